"""Golden cases of the csr family: TensorFlow's CSR sparse matrix ops
(tf.linalg.experimental.sparse) as TensorFlow 2.21's CPU kernels run them:
DenseToCSRSparseMatrix, SparseTensorToCSRSparseMatrix,
CSRSparseMatrixToDense, CSRSparseMatrixToSparseTensor,
CSRSparseMatrixComponents, SparseMatrixNNZ, SparseMatrixTranspose,
SparseMatrixMatMul, SparseMatrixSparseMatMul, SparseMatrixOrderingAMD and
SparseMatrixSparseCholesky.

    $(tools/tf_env) tests/golden/gen_csr.py

Besides the cases the generator writes the ops' signatures
(tf_op_defs.pbtxt, tf_cpu_kernels.txt), which tests/kernels/csr_test.cc
compares with dfx's registry. SparseMatrixAdd, SparseMatrixMul,
SparseMatrixSoftmax(Grad) and SparseMatrixZeros have no CPU kernel in
TensorFlow 2.21 and are left out.

The harness fetches plain tensors, so every case ends in
CSRSparseMatrixToDense, CSRSparseMatrixComponents,
CSRSparseMatrixToSparseTensor or SparseMatrixNNZ. No case fetches a matrix
serialized by SerializeTensor: TensorFlow writes its metadata struct's
padding bytes uninitialized, so its bytes differ from run to run, and a
parsed matrix has no handle data, without which TensorFlow's shape
functions reject it; tests/kernels/csr_test.cc decodes TensorFlow's bytes
and checks dfx's encoding instead.

Left out, because TensorFlow trusts its input and reads out of bounds
where dfx answers InvalidArgument (tests/kernels/csr_test.cc): batched
indices whose batches are not ascending (TensorFlow builds a matrix whose
pointers disagree), and a SparseMatrixSparseCholesky permutation that is
not a permutation. Also left out: errors TensorFlow's shape functions
raise while the graph is built (a dense input of rank 1, indices of the
wrong width, both transpose_x and adjoint_x, a CSR matrix and a dense
operand of different ranks), which the same test checks in dfx's shape
functions. Inputs are fed through placeholders without static dims so
that the shape errors TensorFlow's kernels raise show at run time.
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import golden_lib  # noqa: E402
from golden_lib import tf, tf1  # noqa: E402

FAMILY = "csr"
RAW = tf.raw_ops

OP_NAMES = ["DenseToCSRSparseMatrix", "SparseTensorToCSRSparseMatrix",
            "CSRSparseMatrixToDense", "CSRSparseMatrixToSparseTensor",
            "CSRSparseMatrixComponents", "SparseMatrixNNZ",
            "SparseMatrixTranspose", "SparseMatrixMatMul",
            "SparseMatrixSparseMatMul", "SparseMatrixOrderingAMD",
            "SparseMatrixSparseCholesky"]

DTYPES = [np.float32, np.float64, np.complex64, np.complex128]
TF_TYPES = {np.float32: tf.float32, np.float64: tf.float64,
            np.complex64: tf.complex64, np.complex128: tf.complex128}


def case(name, build, **kw):
    """Scalars come back as vectors of one element."""
    def wrapped():
        fetches, fd = build()
        if not isinstance(fetches, (list, tuple)):
            fetches = [fetches]
        return [golden_lib.flat(t) for t in fetches], fd
    golden_lib.case(FAMILY, name, wrapped, **kw)


def dname(dt):
    return np.dtype(dt).name


def sparse_dense(shape, dt, seed, density=0.4):
    """A dense array with about `density` of its entries non-zero (small
    integers, imaginary parts for complex), and its non-zero indices."""
    r = golden_lib.rng(seed)
    vals = r.integers(1, 6, size=shape).astype(np.float64)
    if np.issubdtype(dt, np.complexfloating):
        vals = vals + 1j * r.integers(-3, 4, size=shape)
    mask = r.random(shape) < density
    d = np.where(mask, vals, 0).astype(dt)
    return d, np.argwhere(mask).astype(np.int64)


def to_csr(d, ix):
    """A placeholder-fed dense array turned into a CSR matrix. The
    placeholders have no static dims (TensorFlow's shape function needs the
    rank), so TensorFlow's shape functions know nothing of the matrix's
    shape (as dfx's never do) and shape errors show at run time."""
    d, ix = np.asarray(d), np.asarray(ix)
    p = tf1.placeholder(tf.as_dtype(d.dtype), shape=[None] * d.ndim)
    q = tf1.placeholder(tf.int64, shape=[None, d.ndim])
    return RAW.DenseToCSRSparseMatrix(dense_input=p, indices=q), {p: d, q: ix}


def unknown(value):
    """A placeholder of value's dtype and no static shape, and the value."""
    value = np.asarray(value)
    return tf1.placeholder(tf.as_dtype(value.dtype), shape=None), value


def to_dense(m, dt):
    return RAW.CSRSparseMatrixToDense(sparse_input=m, type=TF_TYPES[dt])


def components(m, dt, index=0):
    return list(RAW.CSRSparseMatrixComponents(
        csr_sparse_matrix=m, index=index, type=TF_TYPES[dt]))


def conversions():
    for dt in DTYPES:
        n = dname(dt)
        d, ix = sparse_dense((4, 5), dt, 1)

        def dense_round(d=d, ix=ix, dt=dt):
            m, fd = to_csr(d, ix)
            return [to_dense(m, dt), RAW.SparseMatrixNNZ(sparse_matrix=m)] + \
                components(m, dt), fd
        case(f"dense_to_csr_{n}", dense_round)

        d3, ix3 = sparse_dense((3, 3, 4), dt, 2)

        def batched(d=d3, ix=ix3, dt=dt):
            m, fd = to_csr(d, ix)
            return [to_dense(m, dt), RAW.SparseMatrixNNZ(sparse_matrix=m)] + \
                components(m, dt, 1) + components(m, dt, 2), fd
        case(f"dense_to_csr_batched_{n}", batched)

        def sparse_tensor(d=d3, ix=ix3, dt=dt):
            p, v = golden_lib.placeholder(ix)
            q, w = golden_lib.placeholder(d[tuple(ix.T)])
            m = RAW.SparseTensorToCSRSparseMatrix(
                indices=p, values=q, dense_shape=np.array(d.shape, np.int64))
            st = RAW.CSRSparseMatrixToSparseTensor(sparse_matrix=m,
                                                   type=TF_TYPES[dt])
            return [to_dense(m, dt)] + list(st), {p: v, q: w}
        case(f"sparse_tensor_to_csr_batched_{n}", sparse_tensor)

        def round_trip(d=d, ix=ix, dt=dt):
            # dense -> CSR -> SparseTensor -> CSR -> dense.
            m, fd = to_csr(d, ix)
            st = RAW.CSRSparseMatrixToSparseTensor(sparse_matrix=m,
                                                   type=TF_TYPES[dt])
            m2 = RAW.SparseTensorToCSRSparseMatrix(
                indices=st.indices, values=st.values,
                dense_shape=st.dense_shape)
            return [to_dense(m2, dt)], fd
        case(f"round_trip_{n}", round_trip)

        def transpose(d=d3, ix=ix3, dt=dt):
            m, fd = to_csr(d, ix)
            t = RAW.SparseMatrixTranspose(input=m, type=TF_TYPES[dt])
            c = RAW.SparseMatrixTranspose(input=m, type=TF_TYPES[dt],
                                          conjugate=True)
            return [to_dense(t, dt), to_dense(c, dt)] + components(t, dt, 1), fd
        case(f"transpose_batched_{n}", transpose)

    # Unsorted rank-2 indices: TensorFlow counts entries per row and copies
    # the columns in the order given.
    def unsorted():
        d = np.arange(1, 7, dtype=np.float32).reshape(2, 3)
        m, fd = to_csr(d, np.array([[1, 2], [0, 0], [0, 2]], np.int64))
        return [to_dense(m, np.float32)] + components(m, np.float32), fd
    case("dense_to_csr_unsorted", unsorted)

    def empty_cases():
        out = {}
        # No entries at all; a matrix with no rows; a batch whose middle
        # matrix is empty.
        for name, d, ix in [
                ("no_entries", np.ones((3, 2), np.float64),
                 np.zeros((0, 2), np.int64)),
                ("no_rows", np.ones((0, 4), np.float64),
                 np.zeros((0, 2), np.int64)),
                ("batch_middle_empty", np.ones((3, 2, 2), np.float64),
                 np.array([[0, 0, 1], [2, 1, 0]], np.int64))]:
            out[name] = (d, ix)
        return out
    for name, (d, ix) in empty_cases().items():
        def build(d=d, ix=ix):
            m, fd = to_csr(d, ix)
            st = RAW.CSRSparseMatrixToSparseTensor(sparse_matrix=m,
                                                   type=tf.float64)
            t = RAW.SparseMatrixTranspose(input=m, type=tf.float64)
            return [to_dense(m, np.float64), to_dense(t, np.float64),
                    RAW.SparseMatrixNNZ(sparse_matrix=m)] + list(st) + \
                components(m, np.float64, d.shape[0] - 1 if d.ndim == 3
                           else 0), fd
        case(f"empty_{name}", build)

    def empty_batch():
        p, v = golden_lib.placeholder(np.zeros((0, 2, 3), np.float32))
        q, w = golden_lib.placeholder(np.zeros((0, 3), np.int64))
        m = RAW.DenseToCSRSparseMatrix(dense_input=p, indices=q)
        return [to_dense(m, np.float32), RAW.SparseMatrixNNZ(
            sparse_matrix=m)], {p: v, q: w}
    case("empty_zero_batches", empty_batch)


def matmul():
    # Every attribute combination on complex64 (where adjoint and conjugate
    # differ from transpose), a few on the real types, batched.
    a, aix = sparse_dense((3, 4), np.complex64, 10, 0.5)
    r = golden_lib.rng(11)
    for ta in ["", "t", "adj"]:
        for tb in ["", "t", "adj"]:
            for to in [False, True]:
                for co in [False, True]:
                    def build(ta=ta, tb=tb, to=to, co=co):
                        ad = a.T if ta else a   # op(a) shape
                        k = ad.shape[1]
                        bshape = (k, 2) if not tb else (2, k)
                        b = (r.integers(-3, 4, bshape) +
                             1j * r.integers(-3, 4, bshape)).astype(
                                 np.complex64)
                        m, fd = to_csr(a, aix)
                        p, v = golden_lib.placeholder(b)
                        fd[p] = v
                        out = RAW.SparseMatrixMatMul(
                            a=m, b=p, transpose_a=ta == "t",
                            adjoint_a=ta == "adj", transpose_b=tb == "t",
                            adjoint_b=tb == "adj", transpose_output=to,
                            conjugate_output=co)
                        return [out], fd
                    case(f"matmul_a{ta or 'n'}_b{tb or 'n'}_"
                         f"{'to' if to else 'no'}_{'co' if co else 'nc'}",
                         build)
    for dt in [np.float32, np.float64, np.complex128]:
        def batched(dt=dt):
            d, ix = sparse_dense((2, 3, 4), dt, 12)
            m, fd = to_csr(d, ix)
            p, v = golden_lib.placeholder(
                sparse_dense((2, 4, 3), dt, 13, 1.0)[0])
            fd[p] = v
            p2, v2 = golden_lib.placeholder(
                sparse_dense((2, 2, 3), dt, 14, 1.0)[0])
            fd[p2] = v2
            return [RAW.SparseMatrixMatMul(a=m, b=p),
                    RAW.SparseMatrixMatMul(a=m, b=p2, adjoint_a=True,
                                           transpose_b=True,
                                           transpose_output=True)], fd
        case(f"matmul_batched_{dname(dt)}", batched)

    def empty():
        m, fd = to_csr(np.zeros((3, 0), np.float32), np.zeros((0, 2), np.int64))
        p, v = golden_lib.placeholder(np.zeros((0, 2), np.float32))
        fd[p] = v
        return [RAW.SparseMatrixMatMul(a=m, b=p)], fd
    case("matmul_empty_inner", empty)

    def errors(kind):
        def build():
            d, ix = sparse_dense((3, 4), np.float32, 15)
            m, fd = to_csr(d, ix)
            if kind == "inner":
                b, kw = np.ones((3, 2), np.float32), {}
            else:  # dtype
                b, kw = np.ones((4, 2), np.float64), {}
            p, v = golden_lib.placeholder(b)
            fd[p] = v
            return [RAW.SparseMatrixMatMul(a=m, b=p, **kw)], fd
        return build
    # Both transpose_b and adjoint_b, or ranks of a and b that differ:
    # TensorFlow's shape function rejects the graph before it runs
    # (tests/kernels/csr_test.cc).
    for kind in ["inner", "dtype"]:
        case(f"matmul_error_{kind}", errors(kind))


def sparse_matmul():
    for dt in [np.float32, np.complex128]:
        a, aix = sparse_dense((3, 4), dt, 20, 0.5)
        for ta in ["", "t", "adj"]:
            for tb in ["", "t", "adj"]:
                def build(dt=dt, a=a, aix=aix, ta=ta, tb=tb):
                    k = a.shape[0] if ta else a.shape[1]
                    b, bix = sparse_dense((2, k) if tb else (k, 2), dt,
                                          21, 0.6)
                    m, fd = to_csr(a, aix)
                    n, fd2 = to_csr(b, bix)
                    fd.update(fd2)
                    c = RAW.SparseMatrixSparseMatMul(
                        a=m, b=n, type=TF_TYPES[dt], transpose_a=ta == "t",
                        adjoint_a=ta == "adj", transpose_b=tb == "t",
                        adjoint_b=tb == "adj")
                    return [to_dense(c, dt)] + components(c, dt), fd
                case(f"sparse_matmul_{dname(dt)}_a{ta or 'n'}_b{tb or 'n'}",
                     build)

    def cancel():
        # A product whose entries cancel keeps them as stored zeros.
        a = np.array([[1, 1], [0, 1]], np.float64)
        b = np.array([[1, 0], [-1, 0]], np.float64)
        m, fd = to_csr(a, np.argwhere(a != 0))
        n, fd2 = to_csr(b, np.argwhere(b != 0))
        fd.update(fd2)
        c = RAW.SparseMatrixSparseMatMul(a=m, b=n, type=tf.float64)
        return components(c, np.float64) + [RAW.SparseMatrixNNZ(
            sparse_matrix=c)], fd
    case("sparse_matmul_keeps_zeros", cancel)

    for dt in [np.float64, np.complex64]:
        def batched(dt=dt):
            a, aix = sparse_dense((3, 4, 5), dt, 22)
            b, bix = sparse_dense((3, 5, 3), dt, 23)
            m, fd = to_csr(a, aix)
            n, fd2 = to_csr(b, bix)
            fd.update(fd2)
            c = RAW.SparseMatrixSparseMatMul(a=m, b=n, type=TF_TYPES[dt])
            return [to_dense(c, dt), RAW.SparseMatrixNNZ(sparse_matrix=c)] + \
                components(c, dt, 2), fd
        case(f"sparse_matmul_batched_{dname(dt)}", batched)

    def errors(kind):
        def build():
            a, aix = sparse_dense((3, 4), np.float32, 24)
            shape = {"inner": (3, 2), "batch": (2, 4, 2)}.get(kind, (4, 2))
            b, bix = sparse_dense(shape, np.float32, 25)
            m, fd = to_csr(a, aix)
            n, fd2 = to_csr(b, bix)
            fd.update(fd2)
            kw = {}
            t = tf.float64 if kind == "dtype" else tf.float32
            c = RAW.SparseMatrixSparseMatMul(a=m, b=n, type=t, **kw)
            return [RAW.SparseMatrixNNZ(sparse_matrix=c)], fd
        return build
    for kind in ["inner", "batch", "dtype"]:
        case(f"sparse_matmul_error_{kind}", errors(kind))


def spd(n, seed, dt, density=0.3, batch=None):
    """A sparse symmetric (Hermitian) positive definite matrix: a random
    sparse pattern made symmetric, diagonally dominant."""
    r = golden_lib.rng(seed)
    shape = (n, n) if batch is None else (batch, n, n)
    mask = r.random(shape) < density
    vals = r.integers(-2, 3, shape).astype(np.float64)
    if np.issubdtype(dt, np.complexfloating):
        vals = vals + 1j * r.integers(-2, 3, shape)
    lower = np.tril(np.where(mask, vals, 0), -1)
    a = lower + np.conj(np.swapaxes(lower, -1, -2))
    a = a + np.eye(n) * (2 * n + 1)
    return a.astype(dt)


def ordering_and_cholesky():
    for n, seed in [(6, 30), (10, 31), (12, 32)]:
        def amd(n=n, seed=seed):
            a = spd(n, seed, np.float32, 0.25)
            m, fd = to_csr(a, np.argwhere(a != 0))
            return [RAW.SparseMatrixOrderingAMD(input=m)], fd
        case(f"amd_{n}", amd)

    def amd_batched():
        a = spd(7, 33, np.float64, 0.3, batch=3)
        m, fd = to_csr(a, np.argwhere(a != 0))
        return [RAW.SparseMatrixOrderingAMD(input=m)], fd
    case("amd_batched", amd_batched)

    def amd_lower_only():
        # Only the lower triangle is read: an upper-only pattern orders as
        # the diagonal does.
        a = np.triu(spd(6, 34, np.float32, 0.5))
        m, fd = to_csr(a, np.argwhere(a != 0))
        return [RAW.SparseMatrixOrderingAMD(input=m)], fd
    case("amd_upper_pattern", amd_lower_only)

    def amd_empty():
        m, fd = to_csr(np.zeros((0, 0), np.float32), np.zeros((0, 2), np.int64))
        return [RAW.SparseMatrixOrderingAMD(input=m)], fd
    case("amd_empty", amd_empty)

    def amd_not_square():
        m, fd = to_csr(np.ones((2, 3), np.float32), np.array([[0, 0]], np.int64))
        return [RAW.SparseMatrixOrderingAMD(input=m)], fd
    case("amd_error_not_square", amd_not_square)

    for dt in DTYPES:
        for perm in ["amd", "identity", "reverse"]:
            def chol(dt=dt, perm=perm):
                a = spd(8, 40, dt, 0.3)
                m, fd = to_csr(a, np.argwhere(a != 0))
                if perm == "amd":
                    p = RAW.SparseMatrixOrderingAMD(input=m)
                else:
                    pv = np.arange(8, dtype=np.int32)
                    p = pv[::-1].copy() if perm == "reverse" else pv
                c = RAW.SparseMatrixSparseCholesky(input=m, permutation=p,
                                                   type=TF_TYPES[dt])
                return [to_dense(c, dt)] + components(c, dt), fd
            case(f"cholesky_{dname(dt)}_{perm}", chol)

    def chol_batched():
        a = spd(6, 41, np.float64, 0.4, batch=2)
        m, fd = to_csr(a, np.argwhere(a != 0))
        p = RAW.SparseMatrixOrderingAMD(input=m)
        c = RAW.SparseMatrixSparseCholesky(input=m, permutation=p,
                                           type=tf.float64)
        return [to_dense(c, np.float64)] + components(c, np.float64, 1), fd
    case("cholesky_batched", chol_batched)

    def chol_error(kind):
        def build():
            a = spd(4, 42, np.float32, 0.5)
            if kind == "not_pd":
                a = -a
            m, fd = to_csr(a, np.argwhere(a != 0))
            p = {"perm_rank": np.zeros((1, 4), np.int32),
                 "perm_size": np.arange(3, dtype=np.int32)}.get(
                     kind, np.arange(4, dtype=np.int32))
            t = tf.float64 if kind == "dtype" else tf.float32
            c = RAW.SparseMatrixSparseCholesky(input=m, permutation=p, type=t)
            return [RAW.SparseMatrixNNZ(sparse_matrix=c)], fd
        return build
    for kind in ["not_pd", "perm_rank", "perm_size", "dtype"]:
        case(f"cholesky_error_{kind}", chol_error(kind))


def errors():
    # A dense input of rank other than 2 or 3 is rejected by TensorFlow's
    # shape function (tests/kernels/csr_test.cc).
    def dense_index(ix):
        def build():
            m, fd = to_csr(np.ones((2, 3), np.float32), np.array(ix, np.int64))
            return [RAW.SparseMatrixNNZ(sparse_matrix=m)], fd
        return build
    case("error_dense_index_out_of_range", dense_index([[0, 0], [2, 0]]))
    case("error_dense_index_negative", dense_index([[0, -1]]))

    def st_error(ix, vals, shape):
        def build():
            # TensorFlow's shape function needs indices' width and
            # dense_shape's length.
            ixa = np.array(ix, np.int64)
            p = tf1.placeholder(tf.int64, shape=[None, ixa.shape[1]])
            q, w = unknown(np.array(vals, np.float32))
            s, x = golden_lib.placeholder(np.array(shape, np.int64))
            m = RAW.SparseTensorToCSRSparseMatrix(indices=p, values=q,
                                                  dense_shape=s)
            return [RAW.SparseMatrixNNZ(sparse_matrix=m)], {p: ixa, q: w, s: x}
        return build
    case("error_sparse_tensor_out_of_bounds",
         st_error([[0, 0], [0, 5]], [1, 2], [2, 3]))
    case("error_sparse_tensor_count", st_error([[0, 0]], [1, 2], [2, 3]))

    def wrong_type(op):
        def build():
            d, ix = sparse_dense((3, 3), np.float32, 50)
            m, fd = to_csr(d, ix)
            if op == "dense":
                return [to_dense(m, np.float64)], fd
            if op == "sparse_tensor":
                return list(RAW.CSRSparseMatrixToSparseTensor(
                    sparse_matrix=m, type=tf.complex64)), fd
            if op == "components":
                return components(m, np.float64), fd
            return [RAW.SparseMatrixNNZ(sparse_matrix=RAW.SparseMatrixTranspose(
                input=m, type=tf.complex128))], fd
        return build
    for op in ["dense", "sparse_tensor", "components", "transpose"]:
        case(f"error_wrong_type_{op}", wrong_type(op))

    def component_index(i):
        def build():
            d, ix = sparse_dense((2, 3, 3), np.float32, 51)
            m, fd = to_csr(d, ix)
            return components(m, np.float32, i), fd
        return build
    case("error_components_index_high", component_index(2))
    case("error_components_index_negative", component_index(-1))


def main():
    conversions()
    matmul()
    sparse_matmul()
    ordering_and_cholesky()
    errors()
    # After the cases: the first case clears the family's folder.
    golden_lib.write_op_defs(FAMILY, OP_NAMES)


if __name__ == "__main__":
    main()

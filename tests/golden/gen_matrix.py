"""Golden cases of the matrix family: MatrixBandPart, MatrixDiag /
MatrixDiagPart / MatrixSetDiag in their V1, V2 and V3 forms (k ranges,
every alignment, batch dims, dtypes, run-time errors), the dense
decompositions and solvers, and a frozen Keras block with a causal
MultiHeadAttention and LayerNormalization, and the special functions
(Lgamma, Digamma, Erfinv, Ndtri, Igamma, Igammac, Zeta, Polygamma,
Betainc: poles, domain edges, NaN, broadcasting), and the counting ops
(Bincount, DenseBincount, Bucketize, HistogramFixedWidth, InTopKV2, Roll,
UniqueV2, UniqueWithCounts, UniqueWithCountsV2), and the bit ops
(BitwiseAnd/Or/Xor, Invert, LeftShift, RightShift, PopulationCount,
Bitcast, BroadcastArgs), as TensorFlow 2.21 runs them.

Run with the TensorFlow virtualenv: $(tools/tf_env) tests/golden/gen_matrix.py

Decompositions whose factors have a sign or basis freedom (Qr's Q and R up
to signs of columns/rows, eigenvectors, singular vectors) are compared by
what does not depend on the convention: the reconstructed input, the
products Q^T Q / V^T V, and absolute values; each such case says so in its
note. Values TensorFlow orders deterministically (eigenvalues ascending,
singular values descending) are compared directly.
"""

import os

os.environ["DFX_GOLDEN_EAGER"] = "1"

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from tensorflow.python.framework.convert_to_constants import (  # noqa: E402
    convert_variables_to_constants_v2)

import golden_lib  # noqa: E402
from golden_lib import case, placeholder, rng, tf1  # noqa: E402

FAMILY = "matrix"
BF16 = tf.bfloat16.as_numpy_dtype
ALIGNS = ("LEFT_RIGHT", "RIGHT_LEFT", "LEFT_LEFT", "RIGHT_RIGHT")


def ints(shape, seed, dt=np.int32):
    return rng(seed).integers(-9, 10, size=shape).astype(dt)


def floats(shape, seed, dt=np.float32):
    return rng(seed).uniform(-1, 1, size=shape).astype(dt)


def feed(value, dt=None):
    """(graph tensor, placeholder, fed value); bfloat16 is fed as float32
    and cast in the graph (.npy has no bfloat16)."""
    value = np.asarray(value)
    if dt is BF16:
        ph = tf1.placeholder(tf.float32, value.shape)
        return tf.cast(ph, tf.bfloat16), ph, value.astype(np.float32)
    ph, v = placeholder(value if dt is None else value.astype(dt))
    return ph, ph, v


def band_cases():
    for dt in (np.float32, np.float64, np.float16, BF16, np.int32, np.int64,
               np.uint8, np.bool_):
        name = "bfloat16" if dt is BF16 else np.dtype(dt).name
        base = ints((2, 4, 5), 1)
        if dt is np.bool_:
            base = base > 0
        elif dt is np.uint8:
            base = np.abs(base)

        def build(base=base, dt=dt):
            x, ph, v = feed(base, dt)
            outs = [tf.linalg.band_part(x, lo, up)
                    for lo, up in ((-1, 0), (0, -1), (1, 2), (0, 0),
                                   (-1, -1), (4, 5), (3, 1))]
            return outs, {ph: v}
        case(FAMILY, f"band_part_{name}", build)

    def int32_bounds():
        x, xv = placeholder(floats((3, 3), 2))
        lo = tf1.placeholder(tf.int32, [])
        up = tf1.placeholder(tf.int32, [])
        return [tf.raw_ops.MatrixBandPart(input=x, num_lower=lo,
                                          num_upper=up)], \
            {x: xv, lo: np.int32(1), up: np.int32(0)}
    case(FAMILY, "band_part_int32_bounds", int32_bounds)

    def empty():
        x, xv = placeholder(np.zeros((0, 3, 2), np.float32))
        return [tf.linalg.band_part(x, 1, 0)], {x: xv}
    case(FAMILY, "band_part_empty", empty)

    def too_many_lower():
        x, xv = placeholder(floats((3, 4), 3))
        lo = tf1.placeholder(tf.int64, [])
        return [tf.linalg.band_part(x, lo, tf.constant(0, tf.int64))], \
            {x: xv, lo: np.int64(4)}
    case(FAMILY, "band_part_error_num_lower", too_many_lower)


def diag_part_cases():
    x = ints((2, 4, 5), 4)
    for align in ALIGNS:
        for k in ((-2, 1), (1, 3), (-3, -1), (0, 0), (2, 2)):
            def build(k=k, align=align):
                p, v = placeholder(x)
                return [tf.linalg.diag_part(p, k=k, padding_value=-7,
                                            align=align)], {p: v}
            case(FAMILY, f"diag_part_v3_{align.lower()}_k{k[0]}_{k[1]}", build)

    def v1():
        p, v = placeholder(floats((3, 2, 4), 5))
        return [tf.raw_ops.MatrixDiagPart(input=p)], {p: v}
    case(FAMILY, "diag_part_v1", v1)

    def v2():
        p, v = placeholder(floats((4, 3), 6, np.float64))
        return [tf.raw_ops.MatrixDiagPartV2(input=p, k=[-1, 2],
                                            padding_value=9.0)], {p: v}
    case(FAMILY, "diag_part_v2", v2)

    def error_k():
        p, v = placeholder(floats((3, 3), 7))
        k = tf1.placeholder(tf.int32, [2])
        return [tf.raw_ops.MatrixDiagPartV3(input=p, k=k, padding_value=0.0)], \
            {p: v, k: np.array([2, 1], np.int32)}
    case(FAMILY, "diag_part_error_k_order", error_k)


def diag_cases():
    for align in ALIGNS:
        for k, rows, cols in (((-1, 1), -1, -1), ((0, 2), 3, -1),
                              ((-2, 0), -1, 4), ((1, 1), 4, 5),
                              ((-2, 1), 4, 5)):
            num = k[1] - k[0] + 1
            max_len = 3
            shape = (2, max_len) if num == 1 else (2, num, max_len)
            if rows > 0 and cols > 0:
                max_len = min(rows + min(k[1], 0), cols - max(k[0], 0))
                shape = (2, max_len) if num == 1 else (2, num, max_len)

            def build(k=k, rows=rows, cols=cols, align=align, shape=shape):
                p, v = placeholder(ints(shape, 8))
                return [tf.linalg.diag(p, k=k, num_rows=rows, num_cols=cols,
                                       padding_value=5, align=align)], {p: v}
            case(FAMILY, f"diag_v3_{align.lower()}_k{k[0]}_{k[1]}_"
                 f"{rows}x{cols}".replace("-", "m"), build)

    for dt in (np.float32, np.float16, np.int64, np.bool_):
        def v1(dt=dt):
            val = ints((2, 3), 9)
            val = val > 0 if dt is np.bool_ else val.astype(dt)
            p, v = placeholder(val)
            return [tf.raw_ops.MatrixDiag(diagonal=p)], {p: v}
        case(FAMILY, f"diag_v1_{np.dtype(dt).name}", v1)

    def v2():
        p, v = placeholder(floats((2, 3), 10))
        return [tf.raw_ops.MatrixDiagV2(diagonal=p, k=[0, 1], num_rows=-1,
                                        num_cols=-1, padding_value=1.0)], \
            {p: v}
    case(FAMILY, "diag_v2", v2)

    def rows_error():
        p, v = placeholder(floats((3,), 11))
        r = tf1.placeholder(tf.int32, [])
        return [tf.raw_ops.MatrixDiagV3(diagonal=p, k=0, num_rows=r,
                                        num_cols=-1, padding_value=0.0)], \
            {p: v, r: np.int32(2)}
    case(FAMILY, "diag_error_rows_too_small", rows_error)


def set_diag_cases():
    x = ints((2, 4, 3), 12)
    for align in ALIGNS:
        for k in ((-1, 1), (0, 2), (-3, -2), (1, 1)):
            num = k[1] - k[0] + 1
            max_len = min(4 + min(k[1], 0), 3 - max(k[0], 0))
            shape = (2, max_len) if num == 1 else (2, num, max_len)

            def build(k=k, align=align, shape=shape):
                p, v = placeholder(x)
                d, dv = placeholder(ints(shape, 13) * 100)
                return [tf.linalg.set_diag(p, d, k=k, align=align)], \
                    {p: v, d: dv}
            case(FAMILY, f"set_diag_v3_{align.lower()}_k{k[0]}_{k[1]}"
                 .replace("-", "m"), build)

    def v1():
        p, v = placeholder(floats((2, 3, 3), 14, np.float64))
        d, dv = placeholder(floats((2, 3), 15, np.float64))
        return [tf.raw_ops.MatrixSetDiag(input=p, diagonal=d)], {p: v, d: dv}
    case(FAMILY, "set_diag_v1", v1)

    def v2():
        p, v = placeholder(floats((3, 4), 16))
        d, dv = placeholder(floats((2, 3), 17))
        return [tf.raw_ops.MatrixSetDiagV2(input=p, diagonal=d, k=[0, 1])], \
            {p: v, d: dv}
    case(FAMILY, "set_diag_v2", v2)

    def shape_error():
        p, v = placeholder(floats((3, 4), 18), shape=(None, None))
        d, dv = placeholder(floats((2,), 19), shape=(None,))
        return [tf.linalg.set_diag(p, d)], {p: v, d: dv}
    case(FAMILY, "set_diag_error_shape", shape_error)


# Decompositions: float32 within 1e-4 relative (dfx and TensorFlow link
# different Eigen versions, whose blocked kernels round differently);
# float64 within 1e-10.
def dtol(dt):
    return dict(rtol=1e-4, atol=1e-5) if dt == np.float32 else \
        dict(rtol=1e-10, atol=1e-12)


def well_conditioned(shape, seed, dt):
    """Random matrices plus n on the diagonal."""
    n = shape[-1]
    return (floats(shape, seed, np.float64) + n * np.eye(n)).astype(dt)


def spd(shape, seed, dt):
    a = floats(shape, seed, np.float64)
    n = shape[-1]
    return (a @ np.swapaxes(a, -1, -2) + n * np.eye(n)).astype(dt)


def unary_case(name, fn, value, note="", **tol):
    def build():
        p, v = placeholder(value)
        out = fn(p)
        return (list(out) if isinstance(out, (list, tuple)) else [out]), \
            {p: v}
    case(FAMILY, name, build, note=note, **tol)


def decomposition_cases():
    raw = tf.raw_ops
    for dt in (np.float32, np.float64):
        dn = np.dtype(dt).name
        unary_case(f"cholesky_{dn}", lambda x: raw.Cholesky(input=x),
                   spd((2, 4, 4), 30, dt), **dtol(dt))
        for adj in (False, True):
            unary_case(f"inverse_{dn}_adj{int(adj)}",
                       lambda x, adj=adj: raw.MatrixInverse(input=x,
                                                            adjoint=adj),
                       well_conditioned((2, 3, 3), 31, dt), **dtol(dt))
        dets = np.concatenate([
            well_conditioned((2, 3, 3), 32, dt),
            np.array([[[0, 1, 0], [1, 0, 0], [0, 0, 2]],     # sign -1
                      [[1, 2, 3], [2, 4, 6], [0, 1, 1]]],    # singular
                     dt)])
        unary_case(f"determinant_{dn}",
                   lambda x: raw.MatrixDeterminant(input=x), dets,
                   **dtol(dt))
        unary_case(f"log_determinant_{dn}",
                   lambda x: raw.LogMatrixDeterminant(input=x), dets,
                   **dtol(dt))
        for adj in (False, True):
            def solve(adj=adj, dt=dt):
                a, av = placeholder(well_conditioned((2, 3, 3), 33, dt))
                b, bv = placeholder(floats((2, 3, 2), 34, dt))
                return [raw.MatrixSolve(matrix=a, rhs=b, adjoint=adj)], \
                    {a: av, b: bv}
            case(FAMILY, f"solve_{dn}_adj{int(adj)}", solve, **dtol(dt))
        for lower in (False, True):
            for adj in (False, True):
                def tri(lower=lower, adj=adj, dt=dt):
                    # Batch dims [2, 1] and [4] broadcast to [2, 4]; the
                    # unused triangle holds large values that must be
                    # ignored.
                    m = well_conditioned((2, 1, 3, 3), 35, dt)
                    a, av = placeholder(m)
                    b, bv = placeholder(floats((4, 3, 2), 36, dt))
                    return [raw.MatrixTriangularSolve(
                        matrix=a, rhs=b, lower=lower, adjoint=adj)], \
                        {a: av, b: bv}
                case(FAMILY, f"triangular_solve_{dn}_lower{int(lower)}_"
                     f"adj{int(adj)}", tri, **dtol(dt))
        for shape in ((4, 3), (3, 4), (2, 3, 3)):
            for full in (False, True):
                def qr(x, full=full):
                    q, r = raw.Qr(input=x, full_matrices=full)
                    qtq = tf.linalg.matmul(q, q, adjoint_a=True)
                    return [tf.linalg.matmul(q, r), qtq, tf.abs(q),
                            tf.abs(r)]
                unary_case(
                    f"qr_{dn}_{'x'.join(map(str, shape))}_full{int(full)}",
                    qr, floats(shape, 37, dt),
                    note="convention-free: Q R, Q^T Q, |Q|, |R| (Householder "
                    "signs)", **dtol(dt))

        def eig(x):
            e, v = raw.SelfAdjointEigV2(input=x, compute_v=True)
            recon = tf.linalg.matmul(v * e[..., None, :], v, adjoint_b=True)
            return [e, recon, tf.abs(v)]
        unary_case(f"eigh_{dn}", eig, spd((2, 4, 4), 38, dt),
                   note="eigenvalues ascending as TF; vectors compared by "
                   "V diag(e) V^T and |V| (sign convention)", **dtol(dt))
        unary_case(f"eigh_{dn}_values_only",
                   lambda x: raw.SelfAdjointEigV2(input=x,
                                                  compute_v=False)[0],
                   spd((3, 3), 39, dt), **dtol(dt))
        for shape in ((4, 3), (3, 5), (2, 3, 3)):
            for full in (False, True):
                def svd(x, full=full):
                    s, u, v = raw.Svd(input=x, compute_uv=True,
                                      full_matrices=full)
                    p = min(x.shape[-2], x.shape[-1])
                    recon = tf.linalg.matmul(u[..., :p] * s[..., None, :],
                                             v[..., :p], adjoint_b=True)
                    return [s, recon,
                            tf.linalg.matmul(u, u, adjoint_a=True),
                            tf.linalg.matmul(v, v, adjoint_a=True),
                            tf.abs(u[..., :p]), tf.abs(v[..., :p])]
                unary_case(
                    f"svd_{dn}_{'x'.join(map(str, shape))}_full{int(full)}",
                    svd, floats(shape, 40, dt),
                    note="singular values descending as TF; vectors compared "
                    "by U S V^T, U^T U, V^T V and |U|, |V| of the first "
                    "min(m, n) columns (sign convention)", **dtol(dt))
        unary_case(f"svd_{dn}_values_only",
                   lambda x: raw.Svd(input=x, compute_uv=False)[0],
                   floats((2, 4, 3), 41, dt), **dtol(dt))

    # Empty matrices and batches.
    unary_case("cholesky_empty", lambda x: raw.Cholesky(input=x),
               np.zeros((2, 0, 0), np.float32))
    unary_case("determinant_empty",
               lambda x: list(raw.LogMatrixDeterminant(input=x)) +
               [raw.MatrixDeterminant(input=x)],
               np.zeros((2, 0, 0), np.float32))
    unary_case("qr_empty_full",
               lambda x: list(raw.Qr(input=x, full_matrices=True)),
               np.zeros((3, 0), np.float32))
    unary_case("svd_empty_full",
               lambda x: list(raw.Svd(input=x, full_matrices=True)),
               np.zeros((3, 0), np.float32))
    unary_case("determinant_nan",
               lambda x: list(raw.LogMatrixDeterminant(input=x)) +
               [raw.MatrixDeterminant(input=x)],
               np.array([[[np.nan, 0], [0, 1]], [[0, 0], [0, 0]]],
                        np.float32))

    def solve_empty_rhs():
        a, av = placeholder(well_conditioned((3, 3), 42, np.float32))
        b, bv = placeholder(np.zeros((3, 0), np.float32))
        return [raw.MatrixSolve(matrix=a, rhs=b),
                raw.MatrixTriangularSolve(matrix=a, rhs=b)], {a: av, b: bv}
    case(FAMILY, "solve_empty_rhs", solve_empty_rhs)

    # TensorFlow's errors.
    sing = np.array([[1, 2], [2, 4]], np.float32)
    unary_case("inverse_error_singular",
               lambda x: raw.MatrixInverse(input=x), sing)

    def solve_singular():
        a, av = placeholder(sing)
        b, bv = placeholder(np.ones((2, 1), np.float32))
        return [raw.MatrixSolve(matrix=a, rhs=b)], {a: av, b: bv}
    case(FAMILY, "solve_error_singular", solve_singular)

    def not_square():
        a, av = placeholder(floats((2, 3), 43), shape=(None, None))
        return [raw.Cholesky(input=a)], {a: av}
    case(FAMILY, "cholesky_error_not_square", not_square)

    def eig_nan():
        a, av = placeholder(np.full((2, 2), np.nan, np.float32))
        return [raw.SelfAdjointEigV2(input=a)[0]], {a: av}
    case(FAMILY, "eigh_error_nan", eig_nan)

    def tri_batch():
        a, av = placeholder(np.ones((2, 2, 2), np.float32),
                            shape=(None, None, None))
        b, bv = placeholder(np.ones((3, 2, 1), np.float32),
                            shape=(None, None, None))
        return [raw.MatrixTriangularSolve(matrix=a, rhs=b)], {a: av, b: bv}
    case(FAMILY, "triangular_solve_error_batch", tri_batch)


def special_cases():
    """Special functions (Eigen's implementations in both), float32 within
    1e-5 relative, float64 within 1e-12, half within 1e-3."""
    raw = tf.raw_ops
    r = rng(50)
    for dt in (np.float32, np.float64, np.float16):
        dn = np.dtype(dt).name
        tol = {np.float32: dict(rtol=1e-5, atol=1e-6),
               np.float64: dict(rtol=1e-12, atol=1e-14),
               np.float16: dict(rtol=1e-3, atol=1e-3)}[dt]
        x = np.concatenate([r.uniform(-6, 8, 40), [0, -1, -2, 1, 2, 0.5,
                                                   -0.5, np.inf, np.nan]])
        unary_case(f"special_lgamma_{dn}", lambda v: raw.Lgamma(x=v),
                   x.astype(dt), **tol)
        unary_case(f"special_digamma_{dn}", lambda v: raw.Digamma(x=v),
                   x.astype(dt), **tol)
        if dt == np.float16:
            continue
        p = np.concatenate([r.uniform(-1, 1, 40), [0, 1, -1, 0.999999,
                                                   -0.999999, 1.5, np.nan]])
        unary_case(f"special_erfinv_{dn}", lambda v: raw.Erfinv(x=v),
                   p.astype(dt), **tol)
        q = np.concatenate([r.uniform(0, 1, 40), [0, 1, 0.5, 1e-10, -0.5,
                                                  1.5, np.nan]])
        unary_case(f"special_ndtri_{dn}", lambda v: raw.Ndtri(x=v),
                   q.astype(dt), **tol)

        def binary(op, a, b, dt=dt, **kw):
            def build():
                pa, av = placeholder(np.asarray(a, dt))
                pb, bv = placeholder(np.asarray(b, dt))
                return [op(pa, pb)], {pa: av, pb: bv}
            return build
        a = r.uniform(0.1, 6, (4, 1))
        xs = np.concatenate([r.uniform(0, 8, 6), [0, 0.5, np.inf, -1]])
        case(FAMILY, f"special_igamma_{dn}",
             binary(lambda u, v: raw.Igamma(a=u, x=v), a, xs), **tol)
        case(FAMILY, f"special_igammac_{dn}",
             binary(lambda u, v: raw.Igammac(a=u, x=v), a, xs), **tol)
        case(FAMILY, f"special_igamma_edges_{dn}",
             binary(lambda u, v: raw.Igamma(a=u, x=v),
                    [0, -1, 1, np.nan, 2], [1, 1, 0, 1, np.nan]), **tol)
        zx = np.array([[1.5], [2.0], [3.5], [1.0], [0.5]])
        zq = np.array([0.5, 1.0, 2.0, -1.5, 3.0])
        case(FAMILY, f"special_zeta_{dn}",
             binary(lambda u, v: raw.Zeta(x=u, q=v), zx, zq), **tol)
        pn = np.array([[0.0], [1.0], [2.0], [3.0], [1.5], [-1.0]])
        px = np.array([0.5, 1.0, 2.5, 7.0, -1.5])
        case(FAMILY, f"special_polygamma_{dn}",
             binary(lambda u, v: raw.Polygamma(a=u, x=v), pn, px), **tol)

        def betainc(dt=dt):
            pa, av = placeholder(r.uniform(0.2, 5, (3, 4)).astype(dt))
            pb, bv = placeholder(r.uniform(0.2, 5, (3, 4)).astype(dt))
            px, xv = placeholder(np.linspace(0, 1, 12).reshape(3, 4)
                                 .astype(dt))
            ps, sv = placeholder(np.asarray(2.5, dt))
            return [raw.Betainc(a=pa, b=pb, x=px),
                    raw.Betainc(a=ps, b=pb, x=px),
                    raw.Betainc(a=pa, b=ps, x=ps)], \
                {pa: av, pb: bv, px: xv, ps: sv}
        case(FAMILY, f"special_betainc_{dn}", betainc, **tol)

    def betainc_error():
        pa, av = placeholder(np.ones((2,), np.float32), shape=(None,))
        pb, bv = placeholder(np.ones((3,), np.float32), shape=(None,))
        return [raw.Betainc(a=pa, b=pb, x=tf.constant(0.5))], {pa: av, pb: bv}
    case(FAMILY, "special_betainc_error_shapes", betainc_error)


def counting_cases():
    """Bincount, DenseBincount (Keras CategoryEncoding), Bucketize,
    HistogramFixedWidth, InTopKV2, Roll, UniqueV2, UniqueWithCounts(V2):
    integer outputs compared exactly."""
    raw = tf.raw_ops
    r = rng(60)
    arr = r.integers(0, 7, 30).astype(np.int32)
    for dt in (np.int32, np.int64, np.float32, np.float64):
        dn = np.dtype(dt).name

        def bincount(dt=dt):
            a, av = placeholder(arr)
            w, wv = placeholder(r.integers(-3, 4, 30).astype(dt))
            return [raw.Bincount(arr=a, size=5, weights=w),
                    raw.Bincount(arr=a, size=9,
                                 weights=tf.constant([], dt))], {a: av, w: wv}
        case(FAMILY, f"count_bincount_{dn}", bincount)
        for tidx in (np.int32, np.int64):
            for binary in (False, True):
                def dense(dt=dt, tidx=tidx, binary=binary):
                    a, av = placeholder(arr.reshape(5, 6).astype(tidx))
                    w, wv = placeholder(r.integers(1, 4, (5, 6)).astype(dt))
                    v, vv = placeholder(arr[:7].astype(tidx))
                    return [raw.DenseBincount(input=a, size=tidx(6),
                                              weights=w,
                                              binary_output=binary),
                            raw.DenseBincount(input=v, size=tidx(4),
                                              weights=tf.constant([], dt),
                                              binary_output=binary)], \
                        {a: av, w: wv, v: vv}
                case(FAMILY, f"count_dense_bincount_{dn}_"
                     f"{np.dtype(tidx).name}_binary{int(binary)}", dense)

        def bucketize(dt=dt):
            x, xv = placeholder(np.array([-5, 0, 1, 2, 9, 10, 11, 99, 100,
                                          1000], dt))
            return [raw.Bucketize(input=x, boundaries=[0., 2.5, 10., 100.]),
                    raw.Bucketize(input=x, boundaries=[])], {x: xv}
        case(FAMILY, f"count_bucketize_{dn}", bucketize)
        for out_dt in (tf.int32, tf.int64):
            def hist(dt=dt, out_dt=out_dt):
                vals = np.array([-3, 0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 40],
                                dt)
                x, xv = placeholder(vals)
                return [raw.HistogramFixedWidth(
                    values=x, value_range=np.array([0, 10], dt), nbins=4,
                    dtype=out_dt)], {x: xv}
            case(FAMILY, f"count_histogram_{dn}_{out_dt.name}", hist)

    def in_top_k():
        p, pv = placeholder(np.array(
            [[1, 2, 3, 4], [4, 4, 4, 1], [0.5, 9, 3, 3], [1, 2, np.nan, 0],
             [1, np.inf, 2, 0], [3, 1, 2, 0]], np.float32))
        t, tv = placeholder(np.array([3, 1, 3, 0, 1, 9], np.int32))
        return [raw.InTopKV2(predictions=p, targets=t, k=k)
                for k in (0, 1, 2, 3)], {p: pv, t: tv}
    case(FAMILY, "count_in_top_k", in_top_k)

    def in_top_k64():
        p, pv = placeholder(r.uniform(0, 1, (5, 6)).astype(np.float32))
        t, tv = placeholder(np.array([0, 5, 2, -1, 4], np.int64))
        return [raw.InTopKV2(predictions=p, targets=t, k=np.int64(2))], \
            {p: pv, t: tv}
    case(FAMILY, "count_in_top_k_int64", in_top_k64)

    for dt in (np.float32, np.int64, np.bool_, np.float16):
        def roll(dt=dt):
            v = r.integers(-9, 10, (2, 3, 4))
            v = v > 0 if dt is np.bool_ else v.astype(dt)
            x, xv = placeholder(v)
            return [raw.Roll(input=x, shift=2, axis=-1),
                    raw.Roll(input=x, shift=[1, -5, 3], axis=[0, 2, 2]),
                    raw.Roll(input=x, shift=np.array([7], np.int64),
                             axis=np.array([1], np.int64)),
                    raw.Roll(input=x, shift=[1, 1], axis=[0, 1])], {x: xv}
        case(FAMILY, f"count_roll_{np.dtype(dt).name}", roll)

    def roll_error():
        x, xv = placeholder(np.ones((2, 3), np.float32))
        a = tf1.placeholder(tf.int32, [])
        return [raw.Roll(input=x, shift=1, axis=a)], {x: xv, a: np.int32(3)}
    case(FAMILY, "count_roll_error_axis", roll_error)

    for dt in (np.int32, np.float32, np.int64, np.uint8):
        def unique(dt=dt):
            m = r.integers(0, 3, (4, 6)).astype(dt)
            m[:, 4] = m[:, 1]
            m[2] = m[0]
            x, xv = placeholder(m)
            v, vv = placeholder(r.integers(0, 5, 12).astype(dt))
            outs = []
            for ax in (0, 1, -1):
                outs += list(raw.UniqueV2(x=x, axis=[ax]))
                outs += list(raw.UniqueWithCountsV2(
                    x=x, axis=np.array([ax], np.int32), out_idx=tf.int64))
            outs += list(raw.UniqueWithCounts(x=v))
            outs += list(raw.UniqueV2(x=v, axis=tf.constant([], tf.int64)))
            return outs, {x: xv, v: vv}
        case(FAMILY, f"count_unique_{np.dtype(dt).name}", unique)

    def unique_floats():
        v, vv = placeholder(np.array([0., -0., 1., np.nan, 1., np.nan, 2.],
                                     np.float32))
        y, idx, cnt = raw.UniqueWithCounts(x=v)
        return [tf.math.is_nan(y), tf.where(tf.math.is_nan(y), 0., y), idx,
                cnt], {v: vv}
    case(FAMILY, "count_unique_nan_zero", unique_floats,
         note="NaNs compared through is_nan; -0 and 0 are one value")

    def bincount_error():
        a, av = placeholder(np.array([1, -1], np.int32))
        return [raw.Bincount(arr=a, size=3, weights=tf.constant([],
                                                                tf.float32))], \
            {a: av}
    case(FAMILY, "count_bincount_error_negative", bincount_error)


def bit_cases():
    """Bit ops on every integer type (exact), shifts past the width and
    negative, Bitcast between sizes, BroadcastArgs."""
    raw = tf.raw_ops
    r = rng(70)
    for dt in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
               np.uint32, np.uint64):
        info = np.iinfo(dt)
        bits = info.bits

        def build(dt=dt, info=info, bits=bits):
            xv = np.concatenate([r.integers(info.min, info.max, 10,
                                            dtype=dt, endpoint=True),
                                 np.array([0, 1, info.max, info.min], dt)])
            sv = np.array(list(range(0, bits + 3, max(1, bits // 6)))[:14]
                          + [0] * 14, dtype=np.int64)[:14]
            if info.min < 0:
                sv[-2:] = [-1, -bits]
            sv = sv.astype(dt)
            x, xa = placeholder(xv)
            y, ya = placeholder(xv[::-1].copy())
            s, sa = placeholder(sv)
            row, rowa = placeholder(xv[:1].copy())
            return [raw.BitwiseAnd(x=x, y=y), raw.BitwiseOr(x=x, y=y),
                    raw.BitwiseXor(x=x, y=row), raw.Invert(x=x),
                    raw.PopulationCount(x=x), raw.LeftShift(x=x, y=s),
                    raw.RightShift(x=x, y=s)], \
                {x: xa, y: ya, s: sa, row: rowa}
        case(FAMILY, f"bit_ops_{np.dtype(dt).name}", build)

    def bitcast():
        f, fv = placeholder(np.array([[1.0, -2.5, np.inf]], np.float32))
        b, bv = placeholder(np.arange(16, dtype=np.uint8).reshape(2, 8))
        i, iv = placeholder(np.array([1, -1, 1 << 40], np.int64))
        return [raw.Bitcast(input=f, type=tf.int32),
                raw.Bitcast(input=f, type=tf.uint8),
                raw.Bitcast(input=b, type=tf.float64),
                raw.Bitcast(input=raw.Bitcast(
                    input=tf.reshape(b, [2, 4, 2]), type=tf.uint16),
                    type=tf.int16),
                raw.Bitcast(input=i, type=tf.int32),
                raw.Bitcast(input=f, type=tf.float16)], \
            {f: fv, b: bv, i: iv}
    case(FAMILY, "bit_bitcast", bitcast)

    def bitcast_error():
        b, bv = placeholder(np.arange(3, dtype=np.int8), shape=(None,))
        return [raw.Bitcast(input=b, type=tf.int32)], {b: bv}
    case(FAMILY, "bit_bitcast_error", bitcast_error)

    for dt in (np.int32, np.int64):
        def bargs(dt=dt):
            a, av = placeholder(np.array([2, 1, 3], dt))
            b, bv = placeholder(np.array([4, 1], dt))
            e, ev = placeholder(np.array([], dt))
            return [raw.BroadcastArgs(s0=a, s1=b),
                    raw.BroadcastArgs(s0=b, s1=a),
                    raw.BroadcastArgs(s0=e, s1=a),
                    raw.BroadcastArgs(s0=e, s1=e)], {a: av, b: bv, e: ev}
        case(FAMILY, f"bit_broadcast_args_{np.dtype(dt).name}", bargs)

    def bargs_error():
        a, av = placeholder(np.array([2, 3], np.int32))
        b, bv = placeholder(np.array([4], np.int32))
        return [raw.BroadcastArgs(s0=a, s1=b)], {a: av, b: bv}
    case(FAMILY, "bit_broadcast_args_error", bargs_error)


def causal_mha_model():
    """A Transformer block: causal self-attention, residual, LayerNorm."""
    keras = tf.keras
    keras.utils.set_random_seed(3)
    inp = keras.Input((5, 8))
    att = keras.layers.MultiHeadAttention(num_heads=2, key_dim=4)(
        inp, inp, use_causal_mask=True)
    out = keras.layers.LayerNormalization()(inp + att)
    model = keras.Model(inp, out)
    fn = tf.function(lambda x: model(x, training=False))
    concrete = fn.get_concrete_function(tf.TensorSpec((2, 5, 8), tf.float32))
    frozen = convert_variables_to_constants_v2(concrete)
    graph_def = frozen.graph.as_graph_def()
    ops = sorted({n.op for n in graph_def.node})
    x = floats((2, 5, 8), 20)
    golden_lib.case_graph_def(
        FAMILY, "keras_causal_mha_layernorm", graph_def,
        {frozen.inputs[0].name: x}, [t.name for t in frozen.outputs],
        rtol=1e-4, atol=1e-5,
        note="float32 matmuls summed in another order: 1e-4. ops: " +
        ", ".join(ops))


def main():
    band_cases()
    diag_part_cases()
    diag_cases()
    set_diag_cases()
    decomposition_cases()
    special_cases()
    counting_cases()
    bit_cases()
    causal_mha_model()


if __name__ == "__main__":
    main()

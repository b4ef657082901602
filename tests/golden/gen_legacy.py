"""Golden cases of the legacy family: ops old TF1 GraphDefs (and some new
ones) hold that dfx rejected as unregistered. The deprecated ops TensorFlow
2.21 refuses in a new graph (the Batch* names of the matrix ops,
SelfAdjointEig v1, the v1 Conv3DBackpropInput/Filter,
BatchNormWithGlobalNormalization and its Grad) run from GraphDefs marked as
produced at an old version (golden_lib.legacy_case); Diag, DiagPart, Cross,
ToBool, GuaranteeConst, DeepCopy, NextAfter, DataFormatDimMap,
DataFormatVecPermute, CholeskyGrad, MatrixSolveLs, BandedTriangularSolve
and SparseMatMul are built directly.

Run with the TensorFlow virtualenv: $(tools/tf_env) tests/golden/gen_legacy.py

Besides the cases the generator writes the ops' signatures
(tf_op_defs.pbtxt, tf_cpu_kernels.txt), which tests/kernels/legacy_test.cc
compares with dfx's registry.
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import golden_lib  # noqa: E402
from golden_lib import placeholder, rename_node, rng, tf, tf1  # noqa: E402

FAMILY = "legacy"
RAW = tf.raw_ops
BF16 = tf.bfloat16.as_numpy_dtype

OP_NAMES = [
    "BatchMatrixBandPart", "BatchMatrixDiag", "BatchMatrixDiagPart",
    "BatchMatrixSetDiag", "BatchMatrixDeterminant", "BatchMatrixInverse",
    "BatchCholesky", "BatchSelfAdjointEigV2", "BatchSelfAdjointEig",
    "SelfAdjointEig", "BatchMatrixSolve",
    "BatchMatrixTriangularSolve", "BatchSvd", "Conv3DBackpropInput",
    "Conv3DBackpropFilter", "Diag", "DiagPart", "ToBool", "GuaranteeConst",
    "DeepCopy", "NextAfter", "DataFormatDimMap", "DataFormatVecPermute",
    "Cross", "BatchNormWithGlobalNormalization",
    "BatchNormWithGlobalNormalizationGrad", "CholeskyGrad",
    "BatchCholeskyGrad", "MatrixSolveLs", "BatchMatrixSolveLs",
    "BandedTriangularSolve", "SparseMatMul", "Spence", "Dawsn", "Expint",
    "FresnelCos", "FresnelSin", "Variable", "PlaceholderV2", "HostConst"]

TNAME = {np.float32: "float", np.float64: "double", np.float16: "half",
         BF16: "bfloat16", np.complex64: "complex64",
         np.complex128: "complex128", np.int32: "int32", np.int64: "int64",
         np.bool_: "bool", np.int8: "int8", np.uint16: "uint16"}


def case(name, build, **kw):
    golden_lib.case(FAMILY, name, build, **kw)


def legacy(name, build, **kw):
    golden_lib.legacy_case(FAMILY, name, build, **kw)


def values(shape, t, seed=0):
    v = rng(seed).uniform(-2, 2, size=shape)
    if np.issubdtype(np.dtype(t), np.complexfloating):
        v = v + 1j * rng(seed + 1).uniform(-2, 2, size=shape)
    if t is np.bool_:
        return v > 0
    if np.issubdtype(np.dtype(t), np.integer):
        return np.round(v * 3).astype(t)
    return v.astype(t)


def well_conditioned(shape, t, seed=0):
    """Batches of square matrices with a dominant diagonal."""
    v = values(shape, t, seed)
    n = shape[-1]
    return (v + (3 * n) * np.eye(n)).astype(t)


def spd(shape, t, seed=0):
    v = values(shape, t, seed)
    a = v @ np.conj(np.swapaxes(v, -1, -2)) + shape[-1] * np.eye(shape[-1])
    return a.astype(t)


# --------------------------------------------------------------------------
# Deprecated Batch* matrix ops: the current op as a stand-in, renamed.

def batch_matrix_cases():
    for t in (np.float32, np.float64):
        tn = TNAME[t]

        def b(t=t):
            RAW.Cholesky(input=tf.constant(spd([2, 3, 3], t)), name="legacy")
            return rename_node("legacy", "BatchCholesky"), ["legacy:0"]
        legacy(f"batch_cholesky_{tn}", b)

        for adjoint in (False, True):
            def b(t=t, adjoint=adjoint):
                RAW.MatrixInverse(
                    input=tf.constant(well_conditioned([2, 3, 3], t, 1)),
                    adjoint=adjoint, name="legacy")
                return (rename_node("legacy", "BatchMatrixInverse"),
                        ["legacy:0"])
            legacy(f"batch_matrix_inverse_{tn}_adjoint_{adjoint}", b)

            def b(t=t, adjoint=adjoint):
                RAW.MatrixSolve(
                    matrix=tf.constant(well_conditioned([2, 3, 3], t, 2)),
                    rhs=tf.constant(values([2, 3, 2], t, 3)),
                    adjoint=adjoint, name="legacy")
                return rename_node("legacy", "BatchMatrixSolve"), ["legacy:0"]
            legacy(f"batch_matrix_solve_{tn}_adjoint_{adjoint}", b)

            for lower in (True, False):
                def b(t=t, adjoint=adjoint, lower=lower):
                    RAW.MatrixTriangularSolve(
                        matrix=tf.constant(well_conditioned([2, 3, 3], t, 4)),
                        rhs=tf.constant(values([2, 3, 2], t, 5)),
                        lower=lower, adjoint=adjoint, name="legacy")
                    return (rename_node("legacy",
                                        "BatchMatrixTriangularSolve"),
                            ["legacy:0"])
                legacy(f"batch_matrix_triangular_solve_{tn}_lower_{lower}_"
                       f"adjoint_{adjoint}", b)

        for compute_v in (True, False):
            def b(t=t, compute_v=compute_v):
                RAW.SelfAdjointEigV2(input=tf.constant(spd([2, 3, 3], t, 6)),
                                     compute_v=compute_v, name="legacy")
                fetches = ["legacy:0"] + (["legacy:1"] if compute_v else [])
                return rename_node("legacy", "BatchSelfAdjointEigV2"), fetches
            legacy(f"batch_self_adjoint_eig_v2_{tn}_compute_v_{compute_v}", b,
                   rtol=1e-4 if t is np.float32 else None,
                   atol=1e-5 if t is np.float32 else None)

        # v1: one [..., n + 1, n] output, eigenvalues in row 0.
        for op, shape in (("SelfAdjointEig", [3, 3]),
                          ("SelfAdjointEig", [2, 3, 3]),
                          ("BatchSelfAdjointEig", [2, 3, 3]),
                          ("SelfAdjointEig", [2, 0, 0])):
            def b(t=t, op=op, shape=shape):
                RAW.SelfAdjointEigV2(input=tf.constant(spd(shape, t, 6)),
                                     name="legacy")
                return (rename_node("legacy", op, drop_attrs=["compute_v"]),
                        ["legacy:0"])
            legacy(f"{op.lower()}_v1_{tn}_{'x'.join(map(str, shape))}", b,
                   rtol=1e-4 if t is np.float32 else None,
                   atol=1e-5 if t is np.float32 else None)

    # Error: a batch of non-square matrices.
    def b():
        RAW.Cholesky(input=tf1.placeholder_with_default(
            np.ones([2, 3, 2], np.float32), shape=None), name="legacy")
        return rename_node("legacy", "BatchCholesky"), ["legacy:0"]
    legacy("batch_cholesky_error_not_square", b)

    for t in (np.float32, np.float64, np.complex64, np.complex128):
        tn = TNAME[t]

        def b(t=t):
            RAW.MatrixDeterminant(
                input=tf.constant(values([2, 3, 3], t, 7)), name="legacy")
            return rename_node("legacy", "BatchMatrixDeterminant"), [
                "legacy:0"]
        legacy(f"batch_matrix_determinant_{tn}", b,
               rtol=1e-4 if t in (np.float32, np.complex64) else None)

        for compute_uv, full in ((True, False), (True, True), (False, False)):
            def b(t=t, compute_uv=compute_uv, full=full):
                RAW.Svd(input=tf.constant(values([2, 3, 2], t, 8)),
                        compute_uv=compute_uv, full_matrices=full,
                        name="legacy")
                fetches = ["legacy:0"]
                if compute_uv:
                    fetches += ["legacy:1", "legacy:2"]
                return rename_node("legacy", "BatchSvd"), fetches
            lo = t in (np.float32, np.complex64)
            legacy(f"batch_svd_{tn}_uv_{compute_uv}_full_{full}", b,
                   rtol=1e-4 if lo else None, atol=1e-5 if lo else None)

    # Band, diagonal and set-diagonal ops: any type, num_lower/num_upper
    # int64 only.
    for t in (np.float32, np.int32, np.complex64, np.float16, np.int8,
              np.uint16):
        tn = TNAME[t]
        for lo, up in ((1, 0), (-1, 1), (0, -1)):
            def b(t=t, lo=lo, up=up):
                RAW.MatrixBandPart(input=tf.constant(values([2, 3, 4], t, 9)),
                                   num_lower=tf.constant(lo, tf.int64),
                                   num_upper=tf.constant(up, tf.int64),
                                   name="legacy")
                return (rename_node("legacy", "BatchMatrixBandPart",
                                    drop_attrs=["Tindex"]), ["legacy:0"])
            legacy(f"batch_matrix_band_part_{tn}_{lo}_{up}".replace("-", "m"),
                   b)
    for t in (np.float32, np.int32, np.bool_, np.complex128, BF16):
        tn = TNAME[t]

        def b(t=t):
            RAW.MatrixDiag(diagonal=tf.constant(values([2, 3], t, 10)),
                           name="legacy")
            return rename_node("legacy", "BatchMatrixDiag"), ["legacy:0"]
        legacy(f"batch_matrix_diag_{tn}", b)

        def b(t=t):
            RAW.MatrixDiagPart(input=tf.constant(values([2, 3, 4], t, 11)),
                               name="legacy")
            return rename_node("legacy", "BatchMatrixDiagPart"), ["legacy:0"]
        legacy(f"batch_matrix_diag_part_{tn}", b)

        def b(t=t):
            RAW.MatrixSetDiag(input=tf.constant(values([2, 4, 3], t, 12)),
                              diagonal=tf.constant(values([2, 3], t, 13)),
                              name="legacy")
            return rename_node("legacy", "BatchMatrixSetDiag"), ["legacy:0"]
        legacy(f"batch_matrix_set_diag_{tn}", b)

    def b():
        RAW.MatrixDiag(diagonal=tf1.placeholder_with_default(
            np.float32(1), shape=None), name="legacy")
        return rename_node("legacy", "BatchMatrixDiag"), ["legacy:0"]
    legacy("batch_matrix_diag_error_scalar", b)


# --------------------------------------------------------------------------
# Conv3DBackpropInput and Conv3DBackpropFilter (v1, deprecated at version
# 10): the input and filter themselves instead of their shapes; NDHWC.

def conv3d_v1_cases():
    geoms = [("valid", [1, 4, 4, 4, 2], [2, 2, 2, 2, 3], [1, 1, 1, 1, 1],
              "VALID"),
             ("same_stride2", [2, 5, 4, 3, 1], [3, 2, 2, 1, 2],
              [1, 2, 2, 1, 1], "SAME")]
    for gname, ishape, fshape, strides, padding in geoms:
        for t in (np.float32, np.float64, np.float16):
            tn = TNAME[t]
            x = values(ishape, t, 20)
            w = values(fshape, t, 21)
            out = RAW_conv3d_shape(ishape, fshape, strides, padding)
            dy = values(out, t, 22)
            tol = dict(rtol=1e-2, atol=1e-2) if t is np.float16 else {}
            for which in ("Input", "Filter"):
                def b(x=x, w=w, dy=dy, which=which, strides=strides,
                      padding=padding):
                    xi = tf.constant(x, name="x")
                    wi = tf.constant(w, name="w")
                    dyi = tf.constant(dy, name="dy")
                    if which == "Input":
                        RAW.Conv3DBackpropInputV2(
                            input_sizes=tf.constant(x.shape, tf.int32),
                            filter=wi, out_backprop=dyi, strides=strides,
                            padding=padding, name="legacy")
                    else:
                        RAW.Conv3DBackpropFilterV2(
                            input=xi, filter_sizes=tf.constant(w.shape,
                                                               tf.int32),
                            out_backprop=dyi, strides=strides,
                            padding=padding, name="legacy")
                    return (rename_node("legacy", f"Conv3DBackprop{which}",
                                        drop_attrs=["data_format", "Tshape"],
                                        inputs=["x", "w", "dy"]),
                            ["legacy:0"])
                legacy(f"conv3d_backprop_{which.lower()}_v1_{gname}_{tn}", b,
                       **tol)

    def b():
        RAW.Conv3DBackpropInputV2(
            input_sizes=tf.constant([1, 4, 4, 4, 2], tf.int32),
            filter=tf.constant(values([2, 2, 2, 2, 3], np.float32), name="w"),
            out_backprop=tf.constant(values([1, 2, 2, 2, 3], np.float32),
                                     name="dy"),
            strides=[1, 1, 1, 1, 1], padding="VALID", name="legacy")
        tf.constant(values([1, 4, 4, 4, 2], np.float32), name="x")
        return (rename_node("legacy", "Conv3DBackpropInput",
                            drop_attrs=["data_format", "Tshape"],
                            inputs=["x", "w", "dy"]), ["legacy:0"])
    legacy("conv3d_backprop_input_v1_error_out_backprop", b)


def RAW_conv3d_shape(ishape, fshape, strides, padding):
    out = [ishape[0]]
    for i in range(3):
        n, k, s = ishape[1 + i], fshape[i], strides[1 + i]
        out.append((n - k) // s + 1 if padding == "VALID" else -(-n // s))
    return out + [fshape[4]]


# --------------------------------------------------------------------------
# Diag and DiagPart.

def diag_cases():
    # TensorFlow 2.21 has no bfloat16 CPU kernel of either.
    for t in (np.float16, np.float32, np.float64, np.int32, np.int64,
              np.complex64, np.complex128):
        tn = TNAME[t]

        def b(t=t):
            x, v = placeholder(values([3], t, 30))
            return RAW.Diag(diagonal=x), {x: v}
        case(f"diag_rank1_{tn}", b)

        def b(t=t):
            x, v = placeholder(values([2, 3, 2, 3], t, 31))
            v = np.einsum("ij,ij,ik,jl->ijkl", np.ones([2, 3]),
                          np.ones([2, 3]), np.eye(2), np.eye(3)).astype(t) * v
            return RAW.DiagPart(input=x), {x: v}
        case(f"diag_part_rank4_{tn}", b)

    def b():
        x, v = placeholder(values([2, 2], np.float32, 32))
        return RAW.Diag(diagonal=x), {x: v}
    case("diag_rank2_float", b)

    def b():
        x, v = placeholder(np.zeros([0, 2], np.int32))
        return RAW.Diag(diagonal=x), {x: v}
    case("diag_empty", b)

    def b():
        x, v = placeholder(values([3, 3], np.float64, 33))
        return RAW.DiagPart(input=x), {x: v}
    case("diag_part_rank2_double", b)

    def b():
        x, v = placeholder(np.zeros([0, 0], np.float32))
        return RAW.DiagPart(input=x), {x: v}
    case("diag_part_empty", b)

    # Errors the shape function cannot see: an unknown-rank placeholder.
    def b():
        x = tf1.placeholder(tf.float32, shape=None)
        return RAW.Diag(diagonal=x), {x: np.float32(2)}
    case("diag_error_scalar", b)

    def b():
        x = tf1.placeholder(tf.float32, shape=None)
        return RAW.DiagPart(input=x), {x: np.ones([2, 3, 2], np.float32)}
    case("diag_part_error_odd_rank", b)

    def b():
        x = tf1.placeholder(tf.int64, shape=None)
        return RAW.DiagPart(input=x), {x: np.ones([2, 3], np.int64)}
    case("diag_part_error_mismatch", b)

    def b():
        x = tf1.placeholder(tf.float32, shape=None)
        return RAW.DiagPart(input=x), {x: np.float32(5)}
    case("diag_part_scalar", b)


# --------------------------------------------------------------------------
# ToBool, GuaranteeConst, DeepCopy.

def misc_cases():
    scalars = [("float_zero", np.float32(0)), ("float_neg_zero",
               np.float32(-0.0)), ("float_nan", np.float32(np.nan)),
               ("double_one", np.float64(1)), ("int32_zero", np.int32(0)),
               ("int64_neg", np.int64(-3)), ("bool_true", np.bool_(True)),
               ("uint8_zero", np.uint8(0)), ("int8_one", np.int8(1)),
               ("int16_zero", np.int16(0)),
               # Types TensorFlow's kernel refuses as scalars.
               ("half_small", np.float16(1e-4)), ("uint16", np.uint16(1)),
               ("complex64_imag", np.complex64(1j)),
               ("string_empty", np.array(b"", dtype=object)),
               ("string_x", np.array(b"x", dtype=object))]
    for name, v in scalars:
        def b(v=v):
            if isinstance(v, np.ndarray) and v.dtype == object:
                x = tf1.placeholder(tf.string, shape=[])
            else:
                x, v = placeholder(v)
            return RAW.ToBool(input=x), {x: v}
        case(f"to_bool_{name}", b)
    for name, v in [("vector", np.zeros([3], np.float32)),
                    ("empty", np.zeros([0], np.int32)),
                    ("empty_matrix", np.zeros([2, 0], np.float64)),
                    ("one_element", np.zeros([1, 1], np.int64))]:
        def b(v=v):
            x, v = placeholder(v)
            return RAW.ToBool(input=x), {x: v}
        case(f"to_bool_{name}", b)

    for name, v in [("float", values([2, 3], np.float32, 40)),
                    ("int64", values([4], np.int64, 41)),
                    ("empty", np.zeros([0, 3], np.float32))]:
        for op in ("GuaranteeConst", "DeepCopy"):
            def b(v=v, op=op):
                x, v = placeholder(v)
                if op == "GuaranteeConst":
                    return RAW.GuaranteeConst(input=x), {x: v}
                return RAW.DeepCopy(x=x), {x: v}
            case(f"{op.lower()}_{name}", b)

    def b():
        x = tf1.placeholder(tf.string, shape=[2])
        return RAW.DeepCopy(x=x), {x: np.array([b"ab", b""], dtype=object)}
    case("deepcopy_string", b)

    # DeepCopy's output is a buffer of its own: an in-place update of it
    # leaves the input alone.
    def b():
        x, v = placeholder(values([3, 2], np.float32, 42))
        y = RAW.DeepCopy(x=x)
        z = RAW.InplaceUpdate(x=y, i=[1], v=np.ones([1, 2], np.float32))
        with tf.control_dependencies([z]):
            xx = tf.identity(x)
        return [z, xx], {x: v}
    case("deepcopy_then_inplace_update", b)


# --------------------------------------------------------------------------
# NextAfter.

def next_after_cases():
    for t in (np.float32, np.float64):
        tn = TNAME[t]
        x1 = np.array([[0, 1, -1, np.inf], [np.nan, 2, 1e-38, -0.0]], t)
        x2 = np.array([[1, 0, -1, 0], [1, np.nan, 0, 1]], t)

        def b(x1=x1, x2=x2):
            a, va = placeholder(x1)
            c, vc = placeholder(x2)
            return RAW.NextAfter(x1=a, x2=c), {a: va, c: vc}
        case(f"next_after_{tn}", b, rtol=0, atol=0)

        def b(t=t):
            a, va = placeholder(np.array([[1], [2], [-3]], t))
            c, vc = placeholder(np.array([np.inf, -np.inf], t))
            return RAW.NextAfter(x1=a, x2=c), {a: va, c: vc}
        case(f"next_after_broadcast_{tn}", b, rtol=0, atol=0)

    def b():
        a = tf1.placeholder(tf.float32, shape=None)
        c = tf1.placeholder(tf.float32, shape=None)
        return RAW.NextAfter(x1=a, x2=c), {
            a: np.ones([2], np.float32), c: np.ones([3], np.float32)}
    case("next_after_error_shapes", b)

    def b():
        a, va = placeholder(np.zeros([0, 2], np.float32))
        c, vc = placeholder(np.ones([2], np.float32))
        return RAW.NextAfter(x1=a, x2=c), {a: va, c: vc}
    case("next_after_empty", b)


# --------------------------------------------------------------------------
# DataFormatDimMap and DataFormatVecPermute.

def data_format_cases():
    dim_maps = [("NHWC", "NCHW"), ("NCHW", "NHWC"), ("NHWC", "HWNC"),
                ("NDHWC", "NCDHW"), ("NCDHW", "NDHWC"), ("NHWC", "NHWC")]
    for src, dst in dim_maps:
        n = len(src)
        for t in (np.int32, np.int64):
            def b(src=src, dst=dst, n=n, t=t):
                x, v = placeholder(np.arange(-n, n, dtype=t).reshape([2, n]))
                return (RAW.DataFormatDimMap(x=x, src_format=src,
                                             dst_format=dst), {x: v})
            case(f"data_format_dim_map_{src}_{dst}_{TNAME[t]}", b)

    def b():
        x, v = placeholder(np.int32(-1))
        return RAW.DataFormatDimMap(x=x), {x: v}
    case("data_format_dim_map_scalar_default", b)

    for name, src, dst in [("short", "NHW", "NHW"), ("mismatch", "NHWC",
                           "NCDHW"), ("not_permutation", "NHWC", "NHWW"),
                           ("dst_long", "NHWC", "NHWCDE")]:
        for op in ("DataFormatDimMap", "DataFormatVecPermute"):
            def b(src=src, dst=dst, op=op):
                x, v = placeholder(np.zeros([4], np.int32))
                return (getattr(RAW, op)(x=x, src_format=src,
                                         dst_format=dst), {x: v})
            case(f"{op.lower()}_error_{name}", b)

    vec_cases = [
        ("vec4", "NHWC", "NCHW", np.array([1, 2, 3, 4])),
        ("vec4_hwnc", "NHWC", "HWNC", np.array([1, 2, 3, 4])),
        ("mat4", "NHWC", "NCHW", np.arange(8).reshape([4, 2])),
        ("mat4_back", "NCHW", "NHWC", np.arange(8).reshape([4, 2])),
        ("vec2", "NHWC", "NCHW", np.array([5, 6])),
        ("vec2_swap", "NHWC", "NWHC", np.array([5, 6])),
        ("mat2", "NHWC", "HWNC", np.arange(4).reshape([2, 2])),
        ("vec5", "NDHWC", "NCDHW", np.array([1, 2, 3, 4, 5])),
        ("mat5", "NDHWC", "NCDHW", np.arange(10).reshape([5, 2])),
        ("vec3", "NDHWC", "WHDCN", np.array([4, 9, 3])),
        ("mat3", "NDHWC", "NCDHW", np.arange(6).reshape([3, 2])),
    ]
    for name, src, dst, v0 in vec_cases:
        for t in (np.int32, np.int64):
            def b(src=src, dst=dst, v0=v0, t=t):
                x, v = placeholder(v0.astype(t))
                return (RAW.DataFormatVecPermute(x=x, src_format=src,
                                                 dst_format=dst), {x: v})
            case(f"data_format_vec_permute_{name}_{TNAME[t]}", b)

    for name, v0, src, dst in [
            ("rank3", np.zeros([4, 2, 1]), "NHWC", "NCHW"),
            ("size3", np.zeros([3]), "NHWC", "NCHW"),
            ("size4_5d", np.zeros([4]), "NDHWC", "NCDHW"),
            ("rows3", np.zeros([3, 2]), "NHWC", "NCHW"),
            ("cols3", np.zeros([4, 3]), "NHWC", "NCHW"),
            ("scalar", np.zeros([]), "NHWC", "NCHW"),
            ("no_hw", np.zeros([2]), "NCDW", "NDCW")]:
        def b(v0=v0, src=src, dst=dst):
            x = tf1.placeholder(tf.int32, shape=None)
            return (RAW.DataFormatVecPermute(x=x, src_format=src,
                                             dst_format=dst),
                    {x: v0.astype(np.int32)})
        case(f"data_format_vec_permute_error_{name}", b)


# --------------------------------------------------------------------------
# Cross.

def cross_cases():
    for t in (np.float32, np.float64, np.float16, BF16, np.int8, np.uint8,
              np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64):
        tn = np.dtype(t).name if t is not BF16 else "bfloat16"
        if np.issubdtype(np.dtype(t), np.integer):
            info = np.iinfo(t)
            a = rng(50).integers(info.min, info.max, size=[2, 3],
                                 endpoint=True, dtype=t)
            b = rng(51).integers(info.min, info.max, size=[2, 3],
                                 endpoint=True, dtype=t)
        else:
            a, b = values([2, 3], t, 50), values([2, 3], t, 51)

        def build(a=a, b=b):
            x, va = placeholder(a)
            y, vb = placeholder(b)
            return RAW.Cross(a=x, b=y), {x: va, y: vb}
        case(f"cross_{tn}", build)

    def build():
        x, va = placeholder(np.zeros([0, 3], np.float32))
        y, vb = placeholder(np.zeros([0, 3], np.float32))
        return RAW.Cross(a=x, b=y), {x: va, y: vb}
    case("cross_empty", build)
    for name, sa, sb in [("shapes", [2, 3], [3, 3]), ("not3", [2, 4], [2, 4]),
                         ("scalar", [], [])]:
        def build(sa=sa, sb=sb):
            x = tf1.placeholder(tf.float32, shape=None)
            y = tf1.placeholder(tf.float32, shape=None)
            return RAW.Cross(a=x, b=y), {x: np.ones(sa, np.float32),
                                         y: np.ones(sb, np.float32)}
        case(f"cross_error_{name}", build)


# --------------------------------------------------------------------------
# BatchNormWithGlobalNormalization and its Grad (deprecated at version 9).

def batch_norm_global_cases():
    def node_edit(op, inputs, t, eps, scale):
        def edit(graph_def):
            for node in graph_def.node:
                if node.name == "legacy":
                    node.op = op
                    del node.input[:]
                    node.input.extend(inputs)
                    node.attr.clear()
                    node.attr["T"].type = tf.as_dtype(t).as_datatype_enum
                    node.attr["variance_epsilon"].f = eps
                    node.attr["scale_after_normalization"].b = scale
        return edit

    for t in (np.float32, np.float64, np.float16):
        tn = TNAME[t]
        tol = dict(rtol=1e-2, atol=1e-2) if t is np.float16 else {}
        for scale in (True, False):
            for grad in (False, True):
                def b(t=t, scale=scale, grad=grad):
                    tf.constant(values([2, 2, 3, 4], t, 60), name="t")
                    tf.constant(values([4], t, 61), name="m")
                    tf.constant(np.abs(values([4], t, 62)) + t(0.5), name="v")
                    tf.constant(values([4], t, 63), name="beta")
                    tf.constant(values([4], t, 64), name="gamma")
                    tf.constant(values([2, 2, 3, 4], t, 65), name="dy")
                    tf.identity(tf.constant(t(0)), name="legacy")
                    if grad:
                        return (node_edit(
                            "BatchNormWithGlobalNormalizationGrad",
                            ["t", "m", "v", "gamma", "dy"], t, 0.001, scale),
                            [f"legacy:{i}" for i in range(5)])
                    return (node_edit("BatchNormWithGlobalNormalization",
                                      ["t", "m", "v", "beta", "gamma"], t,
                                      0.001, scale), ["legacy:0"])
                op = "batch_norm_global_grad" if grad else "batch_norm_global"
                legacy(f"{op}_{tn}_scale_{scale}", b, **tol)

    for name, tshape, mshape in [("rank3", [2, 3, 4], [4]),
                                 ("mean_matrix", [1, 2, 2, 4], [1, 4])]:
        # No case of vectors shorter than the depth: TensorFlow's kernel
        # does not check it and reads a garbled reshape; dfx refuses it
        # (legacy_test.cc).
        def b(tshape=tshape, mshape=mshape):
            # Unknown static shapes: the kernel's checks answer.
            tf1.placeholder_with_default(np.ones(tshape, np.float32),
                                         shape=None, name="t")
            tf1.placeholder_with_default(np.ones(mshape, np.float32),
                                         shape=None, name="m")
            tf.constant(np.ones([4], np.float32), name="v")
            tf.identity(tf.constant(0.0), name="legacy")
            return (node_edit("BatchNormWithGlobalNormalization",
                              ["t", "m", "v", "v", "v"], np.float32, 0.001,
                              True), ["legacy:0"])
        legacy(f"batch_norm_global_error_{name}", b)


# --------------------------------------------------------------------------
# CholeskyGrad, MatrixSolveLs, BandedTriangularSolve and the Batch* names
# of the first two.

def linalg_cases():
    for t in (np.float32, np.float64):
        tn = TNAME[t]
        lo = t is np.float32
        tol = dict(rtol=1e-4, atol=1e-5) if lo else {}
        l = np.linalg.cholesky(spd([2, 4, 4], np.float64, 70)).astype(t)
        g = values([2, 4, 4], t, 71)

        def b(l=l, g=g):
            x, vx = placeholder(l)
            y, vy = placeholder(g)
            return RAW.CholeskyGrad(l=x, grad=y), {x: vx, y: vy}
        case(f"cholesky_grad_{tn}", b, **tol)

        def b(l=l, g=g):
            RAW.CholeskyGrad(l=tf.constant(l), grad=tf.constant(g),
                             name="legacy")
            return rename_node("legacy", "BatchCholeskyGrad"), ["legacy:0"]
        legacy(f"batch_cholesky_grad_{tn}", b, **tol)

    def b():
        x, vx = placeholder(np.zeros([0, 0], np.float64))
        return RAW.CholeskyGrad(l=x, grad=x), {x: vx}
    case("cholesky_grad_empty", b)

    def b():
        x = tf1.placeholder(tf.float32, shape=None)
        y = tf1.placeholder(tf.float32, shape=None)
        return RAW.CholeskyGrad(l=x, grad=y), {
            x: np.eye(3, dtype=np.float32), y: np.eye(2, dtype=np.float32)}
    case("cholesky_grad_error_shapes", b)

    for t in (np.float32, np.float64, np.complex64, np.complex128):
        tn = TNAME[t]
        lo = t in (np.float32, np.complex64)
        tol = dict(rtol=1e-3, atol=1e-4) if lo else dict(rtol=1e-9,
                                                         atol=1e-10)
        for shape_name, ashape, bshape in (("tall", [2, 5, 3], [2, 5, 2]),
                                           ("wide", [2, 3, 5], [2, 3, 2]),
                                           ("square", [3, 3], [3, 1])):
            for fast in (True, False):
                for l2 in ((0.0, 0.5) if fast else (0.0,)):
                    def b(t=t, ashape=ashape, bshape=bshape, fast=fast,
                          l2=l2):
                        x, vx = placeholder(values(ashape, t, 72))
                        y, vy = placeholder(values(bshape, t, 73))
                        return (RAW.MatrixSolveLs(
                            matrix=x, rhs=y, l2_regularizer=l2, fast=fast),
                            {x: vx, y: vy})
                    case(f"matrix_solve_ls_{tn}_{shape_name}_fast_{fast}_"
                         f"l2_{l2}".replace(".", "p"), b, **tol)
    # Rank deficient: the fast path fails, the slow one gives the
    # minimum-norm solution.
    deficient = np.array([[1, 2], [2, 4], [3, 6]], np.float64)
    for fast in (True, False):
        def b(fast=fast):
            x, vx = placeholder(deficient)
            y, vy = placeholder(np.array([[1], [2], [3]], np.float64))
            return (RAW.MatrixSolveLs(matrix=x, rhs=y, l2_regularizer=0.0,
                                      fast=fast), {x: vx, y: vy})
        case(f"matrix_solve_ls_rank_deficient_fast_{fast}", b,
             rtol=1e-9, atol=1e-10)
    for name, ashape, bshape, l2 in (("rhs_rows", [3, 2], [4, 1], 0.0),
                                     ("negative_l2", [3, 2], [3, 1], -1.0)):
        def b(ashape=ashape, bshape=bshape, l2=l2):
            x = tf1.placeholder(tf.float64, shape=None)
            y = tf1.placeholder(tf.float64, shape=None)
            return (RAW.MatrixSolveLs(matrix=x, rhs=y, l2_regularizer=l2),
                    {x: np.ones(ashape), y: np.ones(bshape)})
        case(f"matrix_solve_ls_error_{name}", b)
    for t in (np.float32, np.float64):
        def b(t=t):
            RAW.MatrixSolveLs(matrix=tf.constant(values([2, 4, 3], t, 74)),
                              rhs=tf.constant(values([2, 4, 2], t, 75)),
                              l2_regularizer=tf.constant(0.25, tf.float64),
                              fast=True, name="legacy")
            return rename_node("legacy", "BatchMatrixSolveLs"), ["legacy:0"]
        legacy(f"batch_matrix_solve_ls_{TNAME[t]}", b,
               rtol=1e-4 if t is np.float32 else None,
               atol=1e-5 if t is np.float32 else None)

    for t in (np.float32, np.float64, np.complex64, np.complex128):
        tn = TNAME[t]
        lo = t in (np.float32, np.complex64)
        tol = dict(rtol=1e-4, atol=1e-5) if lo else {}
        for lower in (True, False):
            for adjoint in (False, True):
                def b(t=t, lower=lower, adjoint=adjoint):
                    bands = values([2, 3, 5], t, 76)
                    bands[:, 0 if lower else -1, :] += 4
                    x, vx = placeholder(bands)
                    y, vy = placeholder(values([1, 5, 2], t, 77))
                    return (RAW.BandedTriangularSolve(
                        matrix=x, rhs=y, lower=lower, adjoint=adjoint),
                        {x: vx, y: vy})
                case(f"banded_triangular_solve_{tn}_lower_{lower}_adjoint_"
                     f"{adjoint}", b, **tol)
    for name, ashape, bshape in (("empty", [0, 3], [3, 1]),
                                 ("rows", [2, 3], [4, 1]),
                                 ("batch", [2, 2, 3], [3, 3, 1])):
        def b(ashape=ashape, bshape=bshape):
            x = tf1.placeholder(tf.float32, shape=None)
            y = tf1.placeholder(tf.float32, shape=None)
            return (RAW.BandedTriangularSolve(matrix=x, rhs=y),
                    {x: np.ones(ashape, np.float32),
                     y: np.ones(bshape, np.float32)})
        case(f"banded_triangular_solve_error_{name}", b)


# --------------------------------------------------------------------------
# SparseMatMul.

def sparse_matmul_cases():
    a = values([3, 4], np.float32, 80)
    a[a < 0] = 0  # many zeros
    bm = values([4, 2], np.float32, 81)
    for ta in (np.float32, BF16):
        for tb in (np.float32, BF16):
            for tr_a, tr_b in ((False, False), (True, False), (False, True),
                               (True, True)):
                def b(ta=ta, tb=tb, tr_a=tr_a, tr_b=tr_b):
                    x, vx = placeholder(np.ascontiguousarray(
                        (a.T if tr_a else a).astype(ta)))
                    y, vy = placeholder(np.ascontiguousarray(
                        (bm.T if tr_b else bm).astype(tb)))
                    return (RAW.SparseMatMul(
                        a=x, b=y, transpose_a=tr_a, transpose_b=tr_b,
                        a_is_sparse=True, b_is_sparse=tr_b), {x: vx, y: vy})
                name = (f"sparse_matmul_{TNAME[ta]}_{TNAME[tb]}_ta_"
                        f"{int(tr_a)}_tb_{int(tr_b)}")
                case(name, b, rtol=1e-5, atol=1e-5)

    def b():
        x, vx = placeholder(np.zeros([0, 3], np.float32))
        y, vy = placeholder(np.ones([3, 2], np.float32))
        return RAW.SparseMatMul(a=x, b=y), {x: vx, y: vy}
    case("sparse_matmul_empty", b)

    def b():
        x = tf1.placeholder(tf.float32, shape=None)
        y = tf1.placeholder(tf.float32, shape=None)
        return RAW.SparseMatMul(a=x, b=y), {x: np.ones([2, 3], np.float32),
                                            y: np.ones([2, 3], np.float32)}
    case("sparse_matmul_error_inner", b)


# --------------------------------------------------------------------------
# Spence (Cephes' dilogarithm, Li2(1 - x)).

def spence_cases():
    pts = [-1.0, 0.0, 1e-8, 0.1, 0.25, 0.5, 0.75, 0.999, 1.0, 1.001, 1.5,
           2.0, 2.5, 3.0, 10.0, 123.4, 1e6, np.inf, np.nan]
    for t in (np.float32, np.float64):
        def b(t=t):
            x, v = placeholder(np.array(pts, t))
            return RAW.Spence(x=x), {x: v}
        case(f"spence_{TNAME[t]}", b)
        def b(t=t):
            x, v = placeholder(rng(90).uniform(0, 20, size=[4, 8]).astype(t))
            return RAW.Spence(x=x), {x: v}
        case(f"spence_random_{TNAME[t]}", b)

    def b():
        x, v = placeholder(np.zeros([0, 2], np.float32))
        return RAW.Spence(x=x), {x: v}
    case("spence_empty", b)


# --------------------------------------------------------------------------
# Dawsn, Expint, FresnelCos, FresnelSin. TensorFlow evaluates Cephes'
# rational approximations in the input's precision; dfx computes in double
# and rounds, so float cases allow a few float ulps. Left out, where
# TensorFlow's answer is an artefact of its method (kernels/math/
# special_integrals.h): Expint(+inf) (TensorFlow: NaN), Expint between
# 709.8 and 716.4 in double and 88.7 and 95 in float (TensorFlow's exp
# overflows before Ei does), Fresnel past |x| = 36974 (TensorFlow: exactly
# +-0.5) and Fresnel at large |x| (TensorFlow forms pi/2 x^2 in the input's
# precision and loses the phase: 3e-13 off at x = 30000 in double).

SPECIAL_TOL = {np.float32: dict(rtol=4e-6, atol=1e-7),
               np.float64: dict(rtol=1e-13, atol=1e-16)}


def special_integral_cases():
    common = [-np.inf, -30.0, -7.5, -2.0, -0.5, -1e-3, -0.0, 0.0, 1e-6, 0.1,
              0.2, 0.5, 1.0, 1.5, 1.8, 2.0, 3.25, 4.0, 6.25, 10.0, 25.0,
              30.0, np.nan]
    pts = {
        "dawsn": (RAW.Dawsn, {
            np.float32: common + [1e4, 1e10, np.inf],
            np.float64: common + [1e4, 1e10, 1e300, np.inf]}),
        "expint": (RAW.Expint, {
            np.float32: [-3.0, -0.0, 0.0, 1e-6, 0.1, 0.3725, 0.5, 1.0, 2.0,
                         3.0, 4.0, 7.9, 8.0, 12.0, 16.0, 31.0, 32.0, 50.0,
                         64.0, 80.0, 88.0, np.nan],
            np.float64: [-3.0, -0.0, 0.0, 1e-12, 0.1, 0.5, 1.0, 2.0, 3.0,
                         4.0, 7.9, 8.0, 12.0, 16.0, 31.0, 32.0, 50.0, 64.0,
                         80.0, 100.0, 300.0, 700.0, 800.0, np.nan]}),
        "fresnel_cos": (RAW.FresnelCos, {
            np.float32: common[:-4] + [4.0, 6.0, 9.5, 20.0, np.inf, np.nan],
            np.float64: common + [100.25, 300.0, 1000.5, np.inf]}),
        "fresnel_sin": (RAW.FresnelSin, {
            np.float32: common[:-4] + [4.0, 6.0, 9.5, 20.0, np.inf, np.nan],
            np.float64: common + [100.25, 300.0, 1000.5, np.inf]}),
    }
    for name, (op, by_type) in pts.items():
        for t, xs in by_type.items():
            def b(op=op, t=t, xs=xs):
                x, v = placeholder(np.array(xs, t))
                return op(x=x), {x: v}
            case(f"{name}_{TNAME[t]}", b, **SPECIAL_TOL[t])
            lo = 0.0 if name == "expint" else -6.0
            def b(op=op, t=t, lo=lo):
                x, v = placeholder(
                    rng(91).uniform(lo, 6.0, size=[3, 7]).astype(t))
                return op(x=x), {x: v}
            case(f"{name}_random_{TNAME[t]}", b, **SPECIAL_TOL[t])

    def b():
        x, v = placeholder(np.zeros([2, 0], np.float64))
        return RAW.FresnelSin(x=x), {x: v}
    case("fresnel_sin_empty", b)

    def b():
        x, v = placeholder(np.ones([2], np.float16))
        return RAW.Dawsn(x=x), {x: v}
    case("dawsn_error_half", b)


# --------------------------------------------------------------------------
# Old names: Variable (VariableV2's), PlaceholderV2 (deprecated at 23),
# HostConst. Not TopK (v1): TensorFlow 2.21 runs it in no graph (its kernel
# constrains an index_type attr the op lacks), as TileGrad.

def old_name_cases():
    def b():
        v = tf1.Variable([1.5, -2.0], use_resource=False, name="legacy")
        with tf.control_dependencies([v.initializer]):
            add = tf1.assign_add(v, [0.25, 1.0], name="add")
        return rename_node("legacy", "Variable"), [add.name]
    legacy("variable_v1_assign_add", b)

    def b():
        # Its own name: on a cluster, variables outlive sessions, and the
        # case above initialized "legacy".
        v = tf1.Variable([1.5], use_resource=False, name="never_assigned")
        return (rename_node("never_assigned", "Variable"),
                ["never_assigned:0"])
    legacy("variable_v1_uninitialized", b)

    def b():
        p = tf1.placeholder(tf.float32, shape=[2], name="legacy")
        tf.identity(p, name="out")
        return rename_node("legacy", "PlaceholderV2"), ["out:0"]
    legacy("placeholder_v2_unfed", b)

    for tn, v in (("float", np.array([[1.5, -2.0]], np.float32)),
                  ("int64", np.array([7, -9], np.int64)),
                  ("string", np.array([b"a", b""], dtype=object))):
        def b(v=v):
            c = tf.constant(v, name="legacy")
            return rename_node("legacy", "HostConst"), ["legacy:0"]
        legacy(f"host_const_{tn}", b)


def main():
    batch_matrix_cases()
    conv3d_v1_cases()
    diag_cases()
    misc_cases()
    next_after_cases()
    data_format_cases()
    cross_cases()
    batch_norm_global_cases()
    linalg_cases()
    sparse_matmul_cases()
    spence_cases()
    special_integral_cases()
    old_name_cases()
    golden_lib.write_op_defs(FAMILY, OP_NAMES)


if __name__ == "__main__":
    main()

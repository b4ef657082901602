"""Golden cases of the complex family: the complex64/complex128 kernels of
ops that dfx already had for real types (MatMul, BatchMatMul V1-V3 with
adjoints, Einsum, Pow, Prod, EuclideanNorm, the trigonometric and
hyperbolic functions, Expm1, Log1p, Sigmoid, Sign, SquaredDifference,
Xdivy/Xlogy/Xlog1py, the unary gradients, Transpose, Fill, BiasAdd,
BiasAddGrad, ClipByValue (part by part, as TensorFlow's vectorised kernel
clips), data movement), the complex cases of
the decompositions and solvers, and the ops this family adds: Asinh, Acosh,
Atanh (real and complex), ConjugateTranspose, Eig and MatrixLogarithm
(MatrixExponential is registered too, but TensorFlow 2.21 refuses it in any
graph newer than GraphDef version 27, so it has unit tests only).

Eigenvectors are unique only up to a phase: Eig's cases compare the
eigenvalues in TensorFlow's order (by increasing magnitude for a complex
input, the real Schur form's order for a real one) and, in the graph,
A v - v diag(e) and each column's norm, which do not depend on the phase.

Run with the TensorFlow virtualenv: $(tools/tf_env) tests/golden/gen_complex.py
"""

import numpy as np
import tensorflow as tf
from tensorflow.python.ops import gen_array_ops, gen_linalg_ops  # noqa: E402
from tensorflow.python.ops import gen_math_ops, gen_nn_ops  # noqa: E402

import golden_lib
from golden_lib import case, placeholder, rng

FAMILY = "complex"

C64 = np.complex64
C128 = np.complex128
COMPLEX = (C64, C128)

# The ops this family adds, whose OpDefs and CPU kernel types are checked
# against TensorFlow's (tests/kernels/complex_test.cc).
OP_NAMES = ["Asinh", "Acosh", "Atanh", "ConjugateTranspose", "Eig",
            "MatrixExponential", "MatrixLogarithm"]


def cvalues(shape, dtype, seed, scale=1.0):
    r = rng(seed)
    return (scale * (r.uniform(-1, 1, shape) + 1j * r.uniform(-1, 1, shape))
            ).astype(dtype)


def name_of(dt):
    return np.dtype(dt).name


def ctol(dt, rtol64=1e-5, atol64=1e-6, rtol128=1e-12, atol128=1e-14):
    return (dict(rtol=rtol64, atol=atol64) if dt == C64
            else dict(rtol=rtol128, atol=atol128))


# ---------------------------------------------------------------------------
# Products.

def matmul_cases():
    for dt in COMPLEX:
        n = name_of(dt)
        for ta in (False, True):
            for tb in (False, True):
                def build(dt=dt, ta=ta, tb=tb):
                    a, av = placeholder(
                        cvalues((5, 3) if ta else (3, 5), dt, 1), name="a")
                    b, bv = placeholder(
                        cvalues((4, 5) if tb else (5, 4), dt, 2), name="b")
                    return tf.linalg.matmul(a, b, transpose_a=ta,
                                            transpose_b=tb), {a: av, b: bv}
                case(FAMILY, f"matmul_{n}_ta{int(ta)}_tb{int(tb)}", build,
                     **ctol(dt))

        def big(dt=dt):
            a, av = placeholder(cvalues((20, 17), dt, 3), name="a")
            b, bv = placeholder(cvalues((17, 9), dt, 4), name="b")
            return tf.linalg.matmul(a, b), {a: av, b: bv}
        case(FAMILY, f"matmul_{n}_20x17x9", big,
             **ctol(dt, 1e-5, 1e-5, 1e-12, 1e-13))

        def empty(dt=dt):
            a, av = placeholder(np.zeros((3, 0), dt), name="a")
            b, bv = placeholder(np.zeros((0, 2), dt), name="b")
            c, cv = placeholder(np.zeros((0, 4), dt), name="c")
            d, dv = placeholder(cvalues((4, 2), dt, 5), name="d")
            return [tf.linalg.matmul(a, b), tf.linalg.matmul(c, d)], \
                {a: av, b: bv, c: cv, d: dv}
        case(FAMILY, f"matmul_{n}_empty", empty)

    def mismatch():
        a, av = placeholder(cvalues((2, 3), C64, 6), name="a",
                            shape=[None, None])
        b, bv = placeholder(cvalues((4, 2), C64, 7), name="b",
                            shape=[None, None])
        return tf.linalg.matmul(a, b), {a: av, b: bv}
    case(FAMILY, "matmul_complex64_mismatch", mismatch)


def batch_matmul_cases():
    for dt in COMPLEX:
        n = name_of(dt)
        for ax in (False, True):
            for ay in (False, True):
                def build(dt=dt, ax=ax, ay=ay):
                    x, xv = placeholder(cvalues((2, 1, 4, 3) if ax else
                                                (2, 1, 3, 4), dt, 8), name="x")
                    y, yv = placeholder(cvalues((3, 5, 4) if ay else
                                                (3, 4, 5), dt, 9), name="y")
                    return [gen_math_ops.batch_mat_mul_v2(
                                x, y, adj_x=ax, adj_y=ay),
                            gen_math_ops.batch_mat_mul_v3(
                                x, y, Tout=dt, adj_x=ax, adj_y=ay)], \
                        {x: xv, y: yv}
                case(FAMILY, f"batch_matmul_{n}_adjx{int(ax)}_adjy{int(ay)}",
                     build, **ctol(dt))

        def v1(dt=dt):
            x, xv = placeholder(cvalues((2, 3, 4), dt, 10), name="x")
            y, yv = placeholder(cvalues((2, 3, 4), dt, 11), name="y")
            return [gen_math_ops.batch_mat_mul(x, y, adj_y=True),
                    gen_math_ops.batch_mat_mul(x, y, adj_x=True)], \
                {x: xv, y: yv}
        case(FAMILY, f"batch_matmul_v1_{n}", v1, **ctol(dt))

        def einsum(dt=dt):
            x, xv = placeholder(cvalues((2, 3, 4), dt, 12), name="x")
            y, yv = placeholder(cvalues((2, 5, 4), dt, 13), name="y")
            m, mv = placeholder(cvalues((4, 4), dt, 14), name="m")
            return [tf.einsum("bij,bkj->bik", x, y),
                    tf.einsum("bij,bkj->kib", x, y),
                    tf.einsum("ij,jk->ik", x[0], m),
                    tf.einsum("ii->i", m), tf.einsum("ii", m),
                    tf.einsum("bij->bj", x), tf.einsum("bij,bkl->bjl", x, y)
                    ], {x: xv, y: yv, m: mv}
        case(FAMILY, f"einsum_{n}", einsum, **ctol(dt, 1e-5, 1e-5))

    def bad_batch():
        x, xv = placeholder(cvalues((2, 3, 4), C128, 15), name="x",
                            shape=[None, None, None])
        y, yv = placeholder(cvalues((3, 4, 5), C128, 16), name="y",
                            shape=[None, None, None])
        return gen_math_ops.batch_mat_mul_v2(x, y), {x: xv, y: yv}
    case(FAMILY, "batch_matmul_complex128_bad_batch", bad_batch)


# ---------------------------------------------------------------------------
# Element-wise functions.

UNARY = [
    ("expm1", tf.math.expm1), ("log1p", tf.math.log1p), ("sin", tf.sin),
    ("cos", tf.cos), ("tan", tf.tan), ("asin", tf.asin), ("acos", tf.acos),
    ("atan", tf.atan), ("sinh", tf.sinh), ("cosh", tf.cosh),
    ("tanh", tf.tanh), ("asinh", tf.asinh), ("acosh", tf.acosh),
    ("atanh", tf.atanh), ("sigmoid", tf.sigmoid), ("sign", tf.sign),
]


def unary_cases():
    specials = [0j, 1e-5 + 1e-5j, -1e-4j, 1 + 0j, -1 + 0j, 0.5 - 2j, 3 + 4j,
                -20 + 1j, 20 - 1j, 1j]
    for dt in COMPLEX:
        n = name_of(dt)
        for op_name, fn in UNARY:
            def build(dt=dt, fn=fn):
                x, xv = placeholder(
                    np.concatenate([cvalues((12,), dt, 20, 2.0),
                                    np.array(specials, dt)]), name="x")
                return fn(x), {x: xv}
            case(FAMILY, f"{op_name}_{n}", build,
                 **ctol(dt, 2e-5, 2e-6, 1e-12, 1e-14))

        def empty(dt=dt):
            x, xv = placeholder(np.zeros((0, 2), dt), name="x")
            return [tf.sin(x), tf.math.expm1(x), tf.sign(x)], {x: xv}
        case(FAMILY, f"unary_empty_{n}", empty)

    # The real kernels of the ops this family adds.
    for dt in (np.float32, np.float64, np.float16, tf.bfloat16.as_numpy_dtype):
        n = np.dtype(dt).name

        def real(dt=dt):
            x, xv = placeholder(np.array([-3, -0.5, 0, 0.25, 0.9, 5], dt),
                                name="x")
            y, yv = placeholder(np.array([1, 1.5, 4, 100], dt), name="y")
            return [tf.asinh(x), tf.atanh(x), tf.acosh(y), tf.acosh(x)], \
                {x: xv, y: yv}
        case(FAMILY, f"asinh_acosh_atanh_{n}", real)


def binary_cases():
    for dt in COMPLEX:
        n = name_of(dt)

        def pow_(dt=dt):
            x, xv = placeholder(np.concatenate([cvalues((6,), dt, 30, 2.0),
                                                np.array([0j, 0j, 2j], dt)]),
                                name="x")
            y, yv = placeholder(np.concatenate([cvalues((6,), dt, 31),
                                                np.array([1 + 1j, 2, 2], dt)]),
                                name="y")
            s, sv = placeholder(np.array(0.5 - 1j, dt), name="s")
            return [tf.pow(x, y), tf.pow(x, s)], {x: xv, y: yv, s: sv}
        case(FAMILY, f"pow_{n}", pow_, **ctol(dt, 2e-5, 2e-6))

        def pow_zero():
            x, xv = placeholder(np.array([0j], dt), name="x")
            return tf.pow(x, x), {x: xv}
        # 0 ** 0 is NaN for TensorFlow's complex Pow (exp(0 * log 0)).
        case(FAMILY, f"pow_zero_zero_{n}", pow_zero)

        def others(dt=dt):
            x, xv = placeholder(np.concatenate([cvalues((2, 5), dt, 32),
                                                np.zeros((1, 5), dt)]),
                                name="x")
            y, yv = placeholder(cvalues((5,), dt, 33), name="y")
            return [tf.math.squared_difference(x, y), tf.math.xdivy(x, y),
                    tf.math.xlogy(x, y), tf.math.xlog1py(x, y)], \
                {x: xv, y: yv}
        case(FAMILY, f"squared_difference_xlogy_{n}", others,
             **ctol(dt, 2e-5, 2e-6))

        def grads(dt=dt):
            y, yv = placeholder(cvalues((7,), dt, 34), name="y")
            dy, dyv = placeholder(cvalues((7,), dt, 35), name="dy")
            return [gen_math_ops.tanh_grad(y, dy),
                    gen_math_ops.sigmoid_grad(y, dy),
                    gen_math_ops.sqrt_grad(y, dy),
                    gen_math_ops.rsqrt_grad(y, dy),
                    gen_math_ops.reciprocal_grad(y, dy),
                    gen_math_ops.inv_grad(y, dy)], {y: yv, dy: dyv}
        case(FAMILY, f"unary_grads_{n}", grads, **ctol(dt))

        def gradients(dt=dt):
            # Gradients through complex graphs use the kernels above.
            x, xv = placeholder(cvalues((3, 3), dt, 36), name="x")
            y = tf.reduce_sum(tf.abs(tf.tanh(x) * tf.sqrt(x)
                                     + tf.math.reciprocal(x)))
            return tf.gradients(y, x)[0], {x: xv}
        case(FAMILY, f"gradient_tanh_sqrt_reciprocal_{n}", gradients,
             **ctol(dt, 1e-4, 1e-5, 1e-11, 1e-12))


# ---------------------------------------------------------------------------
# Reductions and data movement.

def reduction_cases():
    for dt in COMPLEX:
        n = name_of(dt)

        def build(dt=dt):
            x, xv = placeholder(cvalues((3, 4, 5), dt, 40), name="x")
            e, ev = placeholder(np.zeros((2, 0), dt), name="e")
            return [tf.reduce_prod(x, axis=1), tf.reduce_prod(x[0]),
                    tf.reduce_prod(x, axis=[0, 2], keepdims=True),
                    tf.reduce_prod(e, axis=1), tf.norm(x, axis=-1),
                    tf.math.reduce_euclidean_norm(x),
                    tf.math.reduce_euclidean_norm(x, axis=[0, 1]),
                    tf.math.reduce_euclidean_norm(e, axis=1)], {x: xv, e: ev}
        case(FAMILY, f"prod_norm_{n}", build, **ctol(dt, 1e-5, 1e-5))


def transpose_cases():
    for dt in COMPLEX:
        n = name_of(dt)

        def build(dt=dt):
            x, xv = placeholder(cvalues((2, 3, 4), dt, 50), name="x")
            v, vv = placeholder(cvalues((1, 3), dt, 51), name="v")
            return [tf.transpose(x, [2, 0, 1]),
                    gen_array_ops.conjugate_transpose(x, [2, 0, 1]),
                    gen_array_ops.conjugate_transpose(x, [0, 1, 2]),
                    gen_array_ops.conjugate_transpose(v, [1, 0]),
                    tf.linalg.adjoint(x)], {x: xv, v: vv}
        case(FAMILY, f"transpose_{n}", build)

    def real():
        x, xv = placeholder(np.arange(24, dtype=np.float32).reshape(2, 3, 4),
                            name="x")
        i, iv = placeholder(np.arange(6, dtype=np.int64).reshape(2, 3),
                            name="i")
        return [gen_array_ops.conjugate_transpose(x, [1, 2, 0]),
                gen_array_ops.conjugate_transpose(i, np.array([1, 0],
                                                              np.int64))], \
            {x: xv, i: iv}
    case(FAMILY, "conjugate_transpose_real", real)

    def bad_perm():
        x, xv = placeholder(cvalues((2, 3), C64, 52), name="x")
        p, pv = placeholder(np.array([0, 0], np.int32), name="p")
        return gen_array_ops.conjugate_transpose(x, p), {x: xv, p: pv}
    case(FAMILY, "conjugate_transpose_bad_perm", bad_perm)


def data_movement_cases():
    for dt in COMPLEX:
        n = name_of(dt)

        def build(dt=dt):
            x, xv = placeholder(cvalues((2, 3), dt, 53), name="x")
            y, yv = placeholder(cvalues((2, 3), dt, 54), name="y")
            c, cv = placeholder(np.array([True, False, True]), name="c")
            v, vv = placeholder(np.array(1.5 - 2j, dt), name="v")
            return [tf.tile(x, [2, 2]), tf.concat([x, y], axis=0),
                    tf.stack([x, y], axis=1), tf.unstack(x, axis=1)[2],
                    tf.gather(x, [2, 0], axis=1), tf.gather_nd(x, [[1, 2]]),
                    x[:, ::-2], tf.reverse(x, [0]), tf.pad(x, [[1, 0], [0, 2]]),
                    tf.where(c, x, y), tf.fill([2, 2], v),
                    tf.zeros_like(x), tf.ones_like(x), tf.reshape(x, [3, 2]),
                    tf.expand_dims(x, 0), tf.split(x, 3, axis=1)[1],
                    tf.roll(x, 1, axis=1), tf.identity_n([x, y])[1],
                    tf.broadcast_to(v, [2, 2]), tf.add_n([x, y, x])], \
                {x: xv, y: yv, c: cv, v: vv}
        case(FAMILY, f"data_movement_{n}", build, **ctol(dt))

        def bias_clip(dt=dt):
            x, xv = placeholder(cvalues((2, 3, 4), dt, 55, 3.0), name="x")
            b, bv = placeholder(cvalues((4,), dt, 56), name="b")
            bc, bcv = placeholder(cvalues((3,), dt, 57), name="bc")
            lo, lov = placeholder(np.array(-1 + 0.5j, dt), name="lo")
            hi, hiv = placeholder(np.array(2 - 0.25j, dt), name="hi")
            return [tf.nn.bias_add(x, b),
                    tf.nn.bias_add(x, bc, data_format="NCHW"),
                    gen_nn_ops.bias_add_v1(x, b),
                    gen_nn_ops.bias_add_grad(x),
                    gen_nn_ops.bias_add_grad(x, data_format="NCHW"),
                    tf.raw_ops.ClipByValue(t=x, clip_value_min=lo, clip_value_max=hi)], \
                {x: xv, b: bv, bc: bcv, lo: lov, hi: hiv}
        case(FAMILY, f"bias_add_clip_{n}", bias_clip, **ctol(dt))


# ---------------------------------------------------------------------------
# Decompositions and solvers.

def well_conditioned(n, dt, seed, batch=()):
    """Random complex matrices with a dominant diagonal."""
    a = cvalues(batch + (n, n), dt, seed)
    return (a + 3 * np.eye(n)).astype(dt)


def hermitian_pd(n, dt, seed, batch=()):
    a = cvalues(batch + (n, n), dt, seed)
    h = a @ np.conj(np.swapaxes(a, -1, -2)) + n * np.eye(n)
    return h.astype(dt)


def decomposition_cases():
    for dt in COMPLEX:
        n = name_of(dt)
        tol = ctol(dt, 1e-4, 1e-5, 1e-10, 1e-12)

        def inverse_det_solve(dt=dt):
            a, av = placeholder(well_conditioned(4, dt, 60, (2,)), name="a")
            b, bv = placeholder(cvalues((2, 4, 3), dt, 61), name="b")
            return [tf.linalg.inv(a), tf.linalg.inv(a, adjoint=True),
                    tf.linalg.det(a), tf.linalg.slogdet(a)[0],
                    tf.linalg.slogdet(a)[1], tf.linalg.solve(a, b),
                    tf.linalg.solve(a, b, adjoint=True)], {a: av, b: bv}
        case(FAMILY, f"inverse_det_solve_{n}", inverse_det_solve, **tol)

        def cholesky_triangular(dt=dt):
            h, hv = placeholder(hermitian_pd(4, dt, 62, (2,)), name="h")
            b, bv = placeholder(cvalues((4, 2), dt, 63), name="b")
            lower = tf.linalg.cholesky(h)
            return [lower,
                    tf.linalg.triangular_solve(lower, b, lower=True),
                    tf.linalg.triangular_solve(lower, b, lower=True,
                                               adjoint=True),
                    tf.linalg.triangular_solve(
                        tf.linalg.adjoint(lower), b, lower=False)], \
                {h: hv, b: bv}
        case(FAMILY, f"cholesky_triangular_solve_{n}", cholesky_triangular,
             **tol)

        def qr_svd_eigh(dt=dt):
            a, av = placeholder(cvalues((2, 5, 3), dt, 64), name="a")
            h, hv = placeholder(hermitian_pd(4, dt, 65), name="h")
            q, r = tf.linalg.qr(a)
            s = tf.linalg.svd(a, compute_uv=False)
            s2, u, v = tf.linalg.svd(a)
            e = tf.linalg.eigvalsh(h)
            e2, w = tf.linalg.eigh(h)
            # Phase-free checks: Q R, |diag(R)|, U S V^H, the eigenvalues
            # and H W - W diag(e).
            usv = tf.matmul(u * tf.cast(s2, dt)[:, None, :], v,
                            adjoint_b=True)
            hw = tf.matmul(h, w) - w * tf.cast(e2, dt)[None, :]
            return [tf.matmul(q, r), tf.abs(tf.linalg.diag_part(r)), s, usv,
                    e, tf.abs(hw)], {a: av, h: hv}
        case(FAMILY, f"qr_svd_eigh_{n}", qr_svd_eigh,
             **(dict(rtol=1e-4, atol=2e-5) if dt == C64
                else dict(rtol=1e-10, atol=1e-12)))

        def singular(dt=dt):
            a, av = placeholder(np.zeros((2, 2), dt), name="a")
            return tf.linalg.inv(a), {a: av}
        case(FAMILY, f"inverse_singular_{n}", singular)


def eig_matrices(dt):
    """Matrices with distinct eigenvalues: similarity transforms of
    diagonals."""
    r = rng(70)
    out = []
    for lam in ([1, -2.5, 4 + 1j], [0.5j, 3, -1.5 + 0.5j]):
        p = (r.uniform(-1, 1, (3, 3)) + 1j * r.uniform(-1, 1, (3, 3)) +
             2 * np.eye(3))
        out.append(p @ np.diag(lam) @ np.linalg.inv(p))
    return np.array(out).astype(dt)


def eig_cases():
    for dt in COMPLEX:
        n = name_of(dt)
        tol = ctol(dt, 1e-4, 1e-5, 1e-10, 1e-11)

        def build(dt=dt):
            a, av = placeholder(eig_matrices(dt), name="a")
            e, v = gen_linalg_ops.eig(a, Tout=dt, compute_v=True)
            e_only, _ = gen_linalg_ops.eig(a, Tout=dt, compute_v=False)
            residual = tf.abs(tf.matmul(a, v) - v * e[:, None, :])
            return [e, e_only, residual, tf.norm(v, axis=-2)], {a: av}
        case(FAMILY, f"eig_{n}", build, **tol)

    for dt, out in ((np.float32, C64), (np.float64, C128)):
        n = np.dtype(dt).name

        def real(dt=dt, out=out):
            # Rotation-like blocks give complex-conjugate pairs: their sorted
            # parts, residual and norms are checked; and the eigenvalues of
            # a triangular matrix (its diagonal, in order).
            m, mv = placeholder(np.array([[0, -2, 1], [2, 0, 0.5],
                                          [0, 0, 3]], dt), name="m")
            t, tv = placeholder(np.array([[[1, 5, 2], [0, -3, 1],
                                           [0, 0, 2.5]]], dt), name="t")
            e, v = gen_linalg_ops.eig(m, Tout=out)
            et, _ = gen_linalg_ops.eig(t, Tout=out)
            mc = tf.cast(m, out)
            residual = tf.abs(tf.matmul(mc, v) - v * e[None, :])
            return [tf.sort(tf.math.real(e)), tf.sort(tf.math.imag(e)),
                    residual, tf.norm(v, axis=-2), et], {m: mv, t: tv}
        case(FAMILY, f"eig_real_{n}", real, **ctol(out, 1e-4, 1e-5,
                                                   1e-10, 1e-11))

    def empty():
        a, av = placeholder(np.zeros((2, 0, 0), C64), name="a")
        e, v = gen_linalg_ops.eig(a, Tout=C64)
        return [e, v], {a: av}
    case(FAMILY, "eig_empty", empty)

    def not_square():
        a, av = placeholder(cvalues((2, 3), C64, 71), name="a",
                            shape=[None, None])
        return gen_linalg_ops.eig(a, Tout=C64)[0], {a: av}
    case(FAMILY, "eig_not_square", not_square)

    def bad_tout():
        a, av = placeholder(np.eye(2, dtype=np.float32), name="a")
        return gen_linalg_ops.eig(a, Tout=C128)[0], {a: av}
    case(FAMILY, "eig_bad_tout", bad_tout)


def logarithm_cases():
    for dt in COMPLEX:
        n = name_of(dt)

        def build(dt=dt):
            a, av = placeholder(well_conditioned(3, dt, 80, (2,)), name="a")
            d, dv = placeholder(np.diag([1j, -2, 3 + 1j]).astype(dt),
                                name="d")
            return [gen_linalg_ops.matrix_logarithm(a),
                    gen_linalg_ops.matrix_logarithm(d)], {a: av, d: dv}
        case(FAMILY, f"matrix_logarithm_{n}", build,
             **ctol(dt, 1e-4, 1e-5, 1e-10, 1e-12))

    def empty():
        a, av = placeholder(np.zeros((0, 0), C128), name="a")
        return gen_linalg_ops.matrix_logarithm(a), {a: av}
    case(FAMILY, "matrix_logarithm_empty", empty)

    def not_square():
        a, av = placeholder(cvalues((1, 2, 3), C64, 81), name="a",
                            shape=[None, None, None])
        return gen_linalg_ops.matrix_logarithm(a), {a: av}
    case(FAMILY, "matrix_logarithm_not_square", not_square)


def main():
    matmul_cases()
    batch_matmul_cases()
    unary_cases()
    binary_cases()
    reduction_cases()
    transpose_cases()
    data_movement_cases()
    decomposition_cases()
    eig_cases()
    logarithm_cases()
    golden_lib.write_op_defs(FAMILY, OP_NAMES)


if __name__ == "__main__":
    main()

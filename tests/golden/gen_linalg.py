"""Golden cases of the linalg family: MatMul (every transpose and dtype),
BatchMatMul V1/V2/V3 (adjoints, broadcast batch dims, V3's mixed types),
Einsum (the equations of Keras' EinsumDense and MultiHeadAttention,
broadcasting ellipses, transposes, diagonals and traces), run-time shape
errors, and one frozen Keras MultiHeadAttention block, as TensorFlow 2.21
runs them.

Run with the TensorFlow virtualenv: $(tools/tf_env) tests/golden/gen_linalg.py

float32 products use rtol 1e-4 / atol 1e-5 instead of the float32 default:
dfx sums the products in another order than TensorFlow's oneDNN/Eigen
kernels (blocking, FMA, threads), which moves results by a few ulps of the
largest partial sum. half and bfloat16 inputs are multiples of 0.5 with
short sums, so every product is exact in both and the dtype defaults hold.
bfloat16 is fed as float32 and cast in the graph (.npy has no bfloat16).
"""

import os
import subprocess
import sys
import tempfile

import numpy as np

FAMILY = "linalg"
# See the module docstring.
GEMM_TOL = dict(rtol=1e-4, atol=1e-5)


def freeze_mha(path):
    """Runs in a fresh, eager interpreter: builds a Keras MultiHeadAttention
    layer (2 heads, key_dim 4, model dim 8) with seeded weights, freezes its
    call on query [1,3,8] and value [1,4,8] into a GraphDef at `path`."""
    import tensorflow as tf
    from tensorflow.python.framework.convert_to_constants import (
        convert_variables_to_constants_v2)
    tf.keras.utils.set_random_seed(1)
    layer = tf.keras.layers.MultiHeadAttention(num_heads=2, key_dim=4)
    fn = tf.function(lambda q, v: layer(q, v))
    concrete = fn.get_concrete_function(
        tf.TensorSpec([1, 3, 8], tf.float32, name="q"),
        tf.TensorSpec([1, 4, 8], tf.float32, name="v"))
    frozen = convert_variables_to_constants_v2(concrete)
    with open(path, "wb") as f:
        f.write(frozen.graph.as_graph_def().SerializeToString())
    print(frozen.outputs[0].name)


if len(sys.argv) == 3 and sys.argv[1] == "--freeze-mha":
    freeze_mha(sys.argv[2])
    sys.exit(0)

import tensorflow as tf  # noqa: E402
from tensorflow.python.ops import gen_linalg_ops, gen_math_ops  # noqa: E402

from golden_lib import case, rng, tf1  # noqa: E402

BF16 = tf.bfloat16.as_numpy_dtype


def dtype_name(dt):
    return "bfloat16" if dt is BF16 else np.dtype(dt).name


def values(shape, dt, seed):
    """Random inputs: uniform floats for float32/float64, multiples of 0.5
    in [-2, 2] for half/bfloat16 (exact products), small integers else."""
    r = rng(seed)
    if dt in (np.float32, np.float64):
        return r.uniform(-1, 1, size=shape).astype(dt)
    if dt in (np.float16, BF16):
        return (r.integers(-4, 5, size=shape) / 2).astype(np.float32)
    if dt == np.uint8:
        return r.integers(0, 256, size=shape).astype(dt)
    if dt == np.int8:
        return r.integers(-128, 128, size=shape).astype(dt)
    return r.integers(-9, 10, size=shape).astype(dt)


def feed(value, dt, shape="same", name=None):
    """(tensor used in the graph, placeholder, value fed); bfloat16 is fed
    as float32 and cast. shape=None makes the placeholder's shape unknown."""
    value = np.asarray(value)
    ph_shape = value.shape if shape == "same" else shape
    if dt is BF16:
        ph = tf1.placeholder(tf.float32, ph_shape, name=name)
        return tf.cast(ph, tf.bfloat16), ph, value.astype(np.float32)
    ph = tf1.placeholder(tf.as_dtype(dt), ph_shape, name=name)
    return ph, ph, value.astype(dt)


def tol(dt):
    return GEMM_TOL if dt == np.float32 else {}


def binary_case(name, fn, xv, yv, dtx, dty=None, shape="same", **kw):
    dty = dtx if dty is None else dty

    def build():
        x, xph, xval = feed(xv, dtx, shape)
        y, yph, yval = feed(yv, dty, shape)
        return fn(x, y), {xph: xval, yph: yval}
    case(FAMILY, name, build, **kw)


def matmul_cases():
    for dt in (np.float32, np.float64, np.float16, BF16, np.int32, np.int64):
        for ta in (False, True):
            for tb in (False, True):
                m, k, n = 3, 4, 5
                xv = values((k, m) if ta else (m, k), dt, 1)
                yv = values((n, k) if tb else (k, n), dt, 2)
                binary_case(
                    f"matmul_{dtype_name(dt)}_ta{int(ta)}_tb{int(tb)}",
                    lambda x, y, ta=ta, tb=tb: tf.linalg.matmul(
                        x, y, transpose_a=ta, transpose_b=tb),
                    xv, yv, dt, **tol(dt))
    # Larger than one shard of the thread split, with odd sizes.
    binary_case("matmul_float32_split", tf.linalg.matmul,
                values((40, 33), np.float32, 3),
                values((33, 37), np.float32, 4), np.float32, **GEMM_TOL)
    binary_case("matmul_empty_rows", tf.linalg.matmul,
                values((0, 3), np.float32, 5), values((3, 4), np.float32, 6),
                np.float32)
    binary_case("matmul_empty_inner", tf.linalg.matmul,
                values((2, 0), np.float32, 5), values((0, 4), np.float32, 6),
                np.float32)
    binary_case("matmul_error_inner_dim", tf.linalg.matmul,
                values((2, 3), np.float32, 7), values((4, 5), np.float32, 8),
                np.float32, shape=None)
    binary_case("matmul_error_rank", tf.linalg.matmul,
                values((2, 3, 4), np.float32, 7),
                values((4, 5), np.float32, 8), np.float32, shape=None)


def bmm(version, adj_x=False, adj_y=False, tout=None):
    def fn(x, y):
        if version == 1:
            return gen_math_ops.batch_mat_mul(x, y, adj_x=adj_x, adj_y=adj_y)
        if version == 2:
            return gen_math_ops.batch_mat_mul_v2(x, y, adj_x=adj_x,
                                                 adj_y=adj_y)
        return gen_math_ops.batch_mat_mul_v3(x, y, Tout=tout, adj_x=adj_x,
                                             adj_y=adj_y)
    return fn


def batch_matmul_cases():
    f32 = np.float32
    binary_case("bmm_v1_float32", bmm(1), values((2, 3, 4), f32, 1),
                values((2, 4, 5), f32, 2), f32, **GEMM_TOL)
    binary_case("bmm_v1_adj_x_adj_y", bmm(1, True, True),
                values((2, 4, 3), f32, 1), values((2, 5, 4), f32, 2), f32,
                **GEMM_TOL)
    for dt in (np.float32, np.float64, np.float16, BF16, np.int16, np.int32,
               np.int64):
        binary_case(f"bmm_v2_broadcast_{dtype_name(dt)}", bmm(2),
                    values((2, 1, 3, 4), dt, 3), values((5, 4, 6), dt, 4), dt,
                    **tol(dt))
    binary_case("bmm_v2_rank2_by_rank3", bmm(2), values((3, 4), f32, 5),
                values((2, 4, 5), f32, 6), f32, **GEMM_TOL)
    binary_case("bmm_v2_adj_broadcast", bmm(2, True, True),
                values((1, 2, 4, 3), f32, 7), values((3, 1, 5, 4), f32, 8),
                f32, **GEMM_TOL)
    binary_case("bmm_v2_adj_x", bmm(2, True, False),
                values((2, 4, 3), f32, 7), values((2, 4, 5), f32, 8), f32,
                **GEMM_TOL)
    binary_case("bmm_v2_empty_batch", bmm(2), values((0, 3, 4), f32, 9),
                values((1, 4, 5), f32, 10), f32)
    binary_case("bmm_v2_empty_inner", bmm(2), values((2, 3, 0), f32, 9),
                values((2, 0, 5), f32, 10), f32)
    # V3: same types and TensorFlow's CPU mixes.
    binary_case("bmm_v3_float32", bmm(3, tout=tf.float32),
                values((2, 3, 4), f32, 11), values((4, 5), f32, 12), f32,
                **GEMM_TOL)
    binary_case("bmm_v3_int8_uint8_int32", bmm(3, tout=tf.int32),
                values((2, 3, 4), np.int8, 13),
                values((2, 4, 5), np.uint8, 14), np.int8, np.uint8)
    binary_case("bmm_v3_uint8_uint8_int32", bmm(3, True, False, tf.int32),
                values((4, 3), np.uint8, 15), values((4, 5), np.uint8, 16),
                np.uint8)
    binary_case("bmm_v3_bfloat16_int8", bmm(3, tout=tf.bfloat16),
                values((2, 3, 4), BF16, 17),
                np.clip(values((4, 2), np.int8, 18), -2, 2), BF16, np.int8)
    # Shape errors found at run time.
    binary_case("bmm_v2_error_batch", bmm(2), values((2, 3, 4), f32, 19),
                values((3, 4, 5), f32, 20), f32, shape=None)
    binary_case("bmm_v2_error_inner", bmm(2), values((2, 3, 4), f32, 19),
                values((2, 5, 5), f32, 20), f32, shape=None)
    binary_case("bmm_v1_error_batch", bmm(1), values((2, 3, 4), f32, 19),
                values((1, 4, 5), f32, 20), f32, shape=None)
    binary_case("bmm_v2_error_rank", bmm(2), values((4,), f32, 19),
                values((2, 4, 5), f32, 20), f32, shape=None)


def einsum(equation):
    return lambda *xs: gen_linalg_ops.einsum(list(xs), equation)


def einsum_case(name, equation, shapes, dt=np.float32, shape="same"):
    def build():
        tensors, feeds = [], {}
        for i, s in enumerate(shapes):
            t, ph, v = feed(values(s, dt, 30 + i), dt, shape)
            tensors.append(t)
            feeds[ph] = v
        out = gen_linalg_ops.einsum(tensors, equation)
        if equation.endswith("->"):
            # golden_lib's np.ascontiguousarray turns a scalar into shape
            # (1,); fetch the scalar reshaped so both sides agree.
            out = tf.reshape(out, [1])
        return out, feeds
    case(FAMILY, name, build, **tol(dt), note=equation)


def einsum_cases():
    # Keras EinsumDense and MultiHeadAttention.
    einsum_case("einsum_dense_abc_cd", "abc,cd->abd", [(2, 3, 4), (4, 5)])
    einsum_case("einsum_mha_project", "abc,cde->abde", [(2, 3, 4), (4, 2, 3)])
    einsum_case("einsum_mha_output", "abcd,cde->abe",
                [(2, 3, 2, 4), (2, 4, 5)])
    einsum_case("einsum_mha_scores", "aecd,abcd->acbe",
                [(2, 4, 2, 3), (2, 5, 2, 3)])
    einsum_case("einsum_mha_context", "acbe,aecd->abcd",
                [(2, 2, 5, 4), (2, 4, 2, 3)])
    # Products, broadcasting, transposes.
    einsum_case("einsum_ellipsis_broadcast", "...ij,...jk->...ik",
                [(2, 1, 3, 4), (5, 4, 6)])
    einsum_case("einsum_ellipsis_middle", "i...j,j...k->i...k",
                [(2, 3, 4), (4, 3, 5)])
    einsum_case("einsum_batch", "bij,bjk->bik", [(2, 3, 4), (2, 4, 5)])
    einsum_case("einsum_transposed_b", "ij,kj->ik", [(3, 4), (5, 4)])
    einsum_case("einsum_output_transposed", "ij,jk->ki", [(3, 4), (4, 5)])
    einsum_case("einsum_dot", "ab,ab->", [(2, 3), (2, 3)])
    einsum_case("einsum_outer", "ab,cd->abcd", [(2, 3), (1, 2)])
    einsum_case("einsum_hadamard", "ij,ij->ij", [(3, 4), (3, 4)])
    einsum_case("einsum_dropped_labels", "abx,bcy->ac",
                [(2, 3, 2), (3, 4, 3)])
    einsum_case("einsum_diag_operand", "iij,jk->ik", [(2, 2, 3), (3, 4)])
    # One operand.
    einsum_case("einsum_transpose", "ij->ji", [(2, 3)])
    einsum_case("einsum_diagonal", "ii->i", [(3, 3)])
    einsum_case("einsum_trace", "ii->", [(3, 3)])
    einsum_case("einsum_to_diagonal", "i->ii", [(3,)])
    einsum_case("einsum_sum_to_diagonal", "ij->jj", [(2, 3)])
    einsum_case("einsum_reduce", "abc->a", [(2, 3, 4)])
    einsum_case("einsum_batch_diagonal", "...ii->...i", [(2, 3, 3)])
    # Other dtypes.
    einsum_case("einsum_float64", "bij,bjk->bik", [(2, 3, 4), (2, 4, 5)],
                np.float64)
    einsum_case("einsum_float16", "bij,bjk->bik", [(2, 3, 2), (2, 2, 4)],
                np.float16)
    einsum_case("einsum_bfloat16", "abc,cd->abd", [(2, 3, 2), (2, 4)], BF16)
    einsum_case("einsum_int32", "ij,jk->ik", [(3, 4), (4, 5)], np.int32)
    einsum_case("einsum_int64_trace", "ii->", [(3, 3)], np.int64)
    einsum_case("einsum_empty", "ij,jk->ik", [(2, 0), (0, 4)])
    # Shape errors found at run time.
    einsum_case("einsum_error_dims", "ij,jk->ik", [(2, 3), (4, 5)],
                shape=None)
    einsum_case("einsum_error_rank", "ij,jk->ik", [(2, 3, 4), (4, 5)],
                shape=None)


def mha_case():
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "mha.pb")
        out = subprocess.run([sys.executable, __file__, "--freeze-mha", path],
                             check=True, capture_output=True, text=True)
        output_name = out.stdout.strip().splitlines()[-1]
        graph_def = tf1.GraphDef()
        with open(path, "rb") as f:
            graph_def.ParseFromString(f.read())

    def build():
        q = tf1.placeholder(tf.float32, [1, 3, 8], name="query")
        v = tf1.placeholder(tf.float32, [1, 4, 8], name="value")
        (y,) = tf.graph_util.import_graph_def(
            graph_def, input_map={"q:0": q, "v:0": v},
            return_elements=[output_name], name="mha")
        return y, {q: values((1, 3, 8), np.float32, 40),
                   v: values((1, 4, 8), np.float32, 41)}
    case(FAMILY, "keras_multi_head_attention", build, **GEMM_TOL,
         note="ops: " + ", ".join(sorted({n.op for n in graph_def.node})))


def main():
    matmul_cases()
    batch_matmul_cases()
    einsum_cases()
    mha_case()


if __name__ == "__main__":
    main()

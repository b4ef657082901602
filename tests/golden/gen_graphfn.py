"""Golden cases of the graphfn family: SymbolicGradient and
CompositeTensorVariantFromComponents / ToComponents, as TensorFlow 2.21
runs them.

    $(tools/tf_env) tests/golden/gen_graphfn.py

TF1's function.Defun without grad_func: tf.gradients through a call of the
function puts a SymbolicGradient node (f = the function) into the graph,
and TensorFlow builds the gradient function at run time from its per-op
gradients. The cases differentiate Defun functions of elementwise math,
matmul, several results (with grad_ys), unconnected and integer arguments,
nested Defun calls and a function called twice, over float32 and float64;
and the errors: an op on the path without a gradient.

CompositeTensorVariant: components of RaggedTensor and SparseTensor specs
(and of other dtypes, empty ones) packed into a variant scalar and unpacked
again; the errors of ToComponents (another TypeSpec class, another number
of components, another dtype) and of metadata that does not parse.

Not here, and why:
- Ops where TensorFlow's function gradients (REGISTER_OP_GRADIENT) and
  dfx's builder gradients differ: TensorFlow has none for ArgMax (even on
  an integer edge, which dfx does not differentiate), Softplus, Cumsum,
  Rint and Round, which dfx differentiates; dfx has none for Atanh, Asinh
  and Acosh, which TensorFlow differentiates.
- RecordInput: its file pattern is an attr, not a feed, so a case cannot
  point it at the case's folder; tests/kernels/graphfn_test.cc writes the
  files and checks TensorFlow's order (one shard, a buffer that holds an
  epoch: the only configuration where TensorFlow's order does not depend on
  its threads) and, with several shards, every record once per epoch.
- A fetched CompositeTensorVariant scalar: golden files hold no variants;
  tests/kernels/graphfn_test.cc checks its wire encoding.

Besides the cases the generator writes the op's signature
(tf_op_defs.pbtxt, tf_cpu_kernels.txt), which tests/kernels/graphfn_test.cc
compares with dfx's registry.
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import golden_lib  # noqa: E402
from golden_lib import placeholder, tf, tf1  # noqa: E402
from tensorflow.python.framework import function  # noqa: E402

FAMILY = "graphfn"
OP_NAMES = ["SymbolicGradient", "CompositeTensorVariantFromComponents",
            "CompositeTensorVariantToComponents", "RecordInput"]
RAW = tf.raw_ops
# Sums of products: TensorFlow and dfx may add in other orders.
TOL = dict(rtol=1e-5, atol=1e-5)


def case(name, build, **kw):
    golden_lib.case(FAMILY, name, build, **kw)


def rand(shape, dtype=np.float32, seed=0):
    return golden_lib.rng(seed).uniform(-1.0, 1.0, shape).astype(dtype)


def math_case(dtype, name):
    t = tf.as_dtype(dtype)

    @function.Defun(t, t)
    def F(x, y):
        return x * y + tf.sin(x) - tf.exp(y) / (1.0 + x * x)

    def build():
        x, xv = placeholder(rand([2, 3], dtype, 1), "x")
        y, yv = placeholder(rand([2, 3], dtype, 2), "y")
        out = F(x, y)
        return tf.gradients(out, [x, y]), {x: xv, y: yv}
    case(name, build, **TOL)


def matmul_case():
    @function.Defun(tf.float32, tf.float32)
    def F(a, b):
        return tf.tanh(tf.matmul(a, b))

    def build():
        a, av = placeholder(rand([3, 4], seed=3), "a")
        b, bv = placeholder(rand([4, 2], seed=4), "b")
        out = F(a, b)
        return tf.gradients(out, [a, b]), {a: av, b: bv}
    case("matmul_tanh", build, **TOL)


def multi_output_case():
    @function.Defun(tf.float64, tf.float64)
    def F(x, y):
        return x + y, x * y, tf.reduce_sum(x * x)

    def build():
        x, xv = placeholder(rand([4], np.float64, 5), "x")
        y, yv = placeholder(rand([4], np.float64, 6), "y")
        s, p, q = F(x, y)
        dy = tf.constant(rand([4], np.float64, 7))
        return (tf.gradients([s, p, q], [x, y],
                             grad_ys=[dy, 2.0 * dy, tf.constant(3.0, tf.float64)]),
                {x: xv, y: yv})
    case("three_results_grad_ys", build, **TOL)


def unconnected_case():
    @function.Defun(tf.float32, tf.float32, tf.int32)
    def F(x, y, n):
        return x * tf.cast(n, tf.float32) + tf.stop_gradient(y)

    def build():
        x, xv = placeholder(rand([3], seed=8), "x")
        y, yv = placeholder(rand([3], seed=9), "y")
        n, nv = placeholder(np.array([1, 2, 3], np.int32), "n")
        out = F(x, y, n)
        return tf.gradients(out, [x, y]), {x: xv, y: yv, n: nv}
    case("unconnected_and_int_args", build, **TOL)


def nested_case():
    @function.Defun(tf.float32)
    def Inner(x):
        return tf.exp(x) * x

    @function.Defun(tf.float32, tf.float32)
    def Outer(x, y):
        return Inner(x) + tf.square(Inner(y)) + tf.reduce_mean(x * y)

    def build():
        x, xv = placeholder(rand([2, 2], seed=10), "x")
        y, yv = placeholder(rand([2, 2], seed=11), "y")
        out = Outer(x, y)
        return tf.gradients(out, [x, y]), {x: xv, y: yv}
    case("nested_defun", build, **TOL)


def twice_case():
    @function.Defun(tf.float32)
    def Sq(x):
        return x * x * 0.5

    def build():
        x, xv = placeholder(rand([5], seed=12), "x")
        out = Sq(Sq(x)) + Sq(x)
        return tf.gradients(out, [x]), {x: xv}
    case("called_twice_chained", build, **TOL)


def empty_case():
    @function.Defun(tf.float32)
    def F(x):
        return tf.reduce_sum(x * 3.0) + 1.0

    def build():
        x, xv = placeholder(np.zeros([0, 2], np.float32), "x")
        out = F(x)
        return tf.gradients(out, [x]), {x: xv}
    case("empty_input", build, **TOL)


def no_gradient_case():
    # Lgamma has a gradient neither in TensorFlow's function gradients nor
    # in dfx's builder.
    @function.Defun(tf.float32)
    def F(x):
        return tf.math.lgamma(x) * x

    def build():
        x, xv = placeholder(np.array([0.5, 1.5, 3.0], np.float32), "x")
        out = F(x)
        return tf.gradients(out, [x]), {x: xv}
    case("op_without_gradient", build, **TOL)


# --------------------------------------------------------------------------
# CompositeTensorVariant


def metadata(spec):
    from tensorflow.core.protobuf import composite_tensor_variant_pb2
    from tensorflow.python.saved_model import nested_structure_coder
    md = composite_tensor_variant_pb2.CompositeTensorVariantMetadata()
    md.type_spec_proto.CopyFrom(
        nested_structure_coder.encode_structure(spec).type_spec_value)
    return md.SerializeToString()


RAGGED = tf.RaggedTensorSpec([None, None], tf.float32, ragged_rank=1,
                             row_splits_dtype=tf.int64)
SPARSE = tf.SparseTensorSpec([None, 3], tf.int32)


def round_trip(name, spec, values, to_spec=None, to_types=None):
    def build():
        comps, feeds = [], {}
        for i, v in enumerate(values):
            ph, pv = placeholder(v, f"c{i}")
            comps.append(ph)
            feeds[ph] = pv
        enc = RAW.CompositeTensorVariantFromComponents(
            components=comps, metadata=metadata(spec))
        types = to_types or [c.dtype for c in comps]
        out = RAW.CompositeTensorVariantToComponents(
            encoded=enc, metadata=metadata(to_spec or spec),
            Tcomponents=types)
        return [tf.identity(o) for o in out], feeds
    case(name, build)


def composite_cases():
    ragged = [np.array([1.5, -2.0, 3.0, 4.25, 0.0], np.float32),
              np.array([0, 2, 5], np.int64)]
    round_trip("composite_ragged", RAGGED, ragged)
    sparse = [np.array([[0, 1], [2, 2]], np.int64),
              np.array([7, -3], np.int32), np.array([4, 3], np.int64)]
    round_trip("composite_sparse", SPARSE, sparse)
    round_trip("composite_empty_components", RAGGED,
               [np.zeros([0], np.float32), np.array([0], np.int64)])
    round_trip("composite_other_dtypes", RAGGED,
               [np.array([b"a", b"bc"]), np.array([True, False]),
                np.array([[1.0, 2.0]], np.float64)])
    round_trip("composite_class_mismatch", RAGGED, ragged, to_spec=SPARSE)
    round_trip("composite_count_mismatch", RAGGED, ragged,
               to_types=[tf.float32])
    round_trip("composite_dtype_mismatch", RAGGED, ragged,
               to_types=[tf.float32, tf.int32])

    def bad_metadata():
        x, xv = placeholder(np.array([1.0], np.float32), "x")
        enc = RAW.CompositeTensorVariantFromComponents(
            components=[x], metadata=b"\xff\xff\xff")
        out = RAW.CompositeTensorVariantToComponents(
            encoded=enc, metadata=metadata(RAGGED), Tcomponents=[tf.float32])
        return [tf.identity(out[0])], {x: xv}
    case("composite_bad_metadata", bad_metadata)


def main():
    composite_cases()
    math_case(np.float32, "math_float32")
    math_case(np.float64, "math_float64")
    matmul_case()
    multi_output_case()
    unconnected_case()
    nested_case()
    twice_case()
    empty_case()
    no_gradient_case()
    golden_lib.write_op_defs(FAMILY, OP_NAMES)


if __name__ == "__main__":
    main()

"""Golden cases of the fused family: _FusedConv2D and _FusedMatMul, the ops
TensorFlow's Grappler remapper forms from Conv2D/MatMul and the BiasAdd,
FusedBatchNorm and activation after them, as TensorFlow 2.21's own CPU
kernels run them from a GraphDef.

    $(tools/tf_env) tests/golden/gen_fused.py

Every fused_ops combination TensorFlow's CPU kernels serve (Conv2D:
BiasAdd or FusedBatchNorm, each alone or with Relu, Relu6, Elu or
LeakyRelu; MatMul: BiasAdd alone or with Relu, Relu6, Elu, LeakyRelu,
Sigmoid or Tanh), the dtypes (conv: float, double, half refused; MatMul:
float, half, bfloat16), strides, dilations, explicit padding, 1x1 filters,
transposes, epsilon and leakyrelu_alpha, empty tensors, and TensorFlow's
errors: an empty fused_ops, combinations it does not implement, the wrong
num_args, NCHW, grouped convolutions, arguments that are not vectors,
operands that do not multiply.

TF_ENABLE_ONEDNN_OPTS=0: with oneDNN's graph rewrite on (the default of
TensorFlow's x86 wheels) TensorFlow replaces these nodes with its
_MklNativeFused* ops, which accept other combinations (a lone Relu, NCHW)
and answer with other codes; the cases record TensorFlow's own kernels,
which dfx implements.

Not here, and why:
- A bias or batch-norm argument whose size is not the output depth:
  TensorFlow's fused kernels do not check it (they read past a short
  argument, ignore the rest of a long one); dfx refuses it with
  InvalidArgument (tests/kernels/fused_test.cc).
- int8 and qint8 _FusedConv2D: TensorFlow's CPU int8 kernel is a quantized
  convolution with side input and scales (six inputs, NCHW_VECT_C), not
  this float fusion; dfx registers no kernel for it (write_op_defs drops
  int8).

Besides the cases the generator writes the ops' signatures
(tf_op_defs.pbtxt, tf_cpu_kernels.txt), which tests/kernels/fused_test.cc
compares with dfx's registry.
"""

import os
import sys

os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import golden_lib  # noqa: E402
from golden_lib import placeholder, tf, tf1  # noqa: E402
from tensorflow.core.framework import attr_value_pb2  # noqa: E402

FAMILY = "fused"
OP_NAMES = ["_FusedConv2D", "_FusedMatMul"]
AV = attr_value_pb2.AttrValue
LV = attr_value_pb2.AttrValue.ListValue

ACTS_CONV = ["Relu", "Relu6", "Elu", "LeakyRelu"]
ACTS_MATMUL = ["Relu", "Relu6", "Elu", "LeakyRelu", "Sigmoid", "Tanh"]


def case(name, build, **kw):
    golden_lib.case(FAMILY, name, build, **kw)


def rand(shape, dtype=np.float32, seed=0, lo=-1.0, hi=1.0):
    r = np.random.default_rng(seed)
    return r.uniform(lo, hi, size=shape).astype(dtype)


def fused_conv(x, f, args, fused_ops, strides=(1, 1, 1, 1), padding="SAME",
               explicit=None, dilations=(1, 1, 1, 1), data_format="NHWC",
               epsilon=None, alpha=None, name="fused"):
    attrs = {
        "T": AV(type=x.dtype.as_datatype_enum),
        "TArgs": AV(list=LV(type=[a.dtype.as_datatype_enum for a in args])),
        "num_args": AV(i=len(args)),
        "num_host_args": AV(i=0),
        "strides": AV(list=LV(i=list(strides))),
        "padding": AV(s=padding.encode()),
        "explicit_paddings": AV(list=LV(i=list(explicit or []))),
        "data_format": AV(s=data_format.encode()),
        "filter_format": AV(s=b"HWIO"),
        "dilations": AV(list=LV(i=list(dilations))),
        "use_cudnn_on_gpu": AV(b=True),
        "fused_ops": AV(list=LV(s=[s.encode() for s in fused_ops])),
        "epsilon": AV(f=1e-4 if epsilon is None else epsilon),
        "leakyrelu_alpha": AV(f=0.2 if alpha is None else alpha),
    }
    op = tf1.get_default_graph().create_op(
        "_FusedConv2D", [x, f] + list(args), [x.dtype], name=name,
        attrs=attrs)
    return op.outputs[0]


def fused_matmul(a, b, args, fused_ops, transpose_a=False, transpose_b=False,
                 alpha=None, name="fused"):
    attrs = {
        "T": AV(type=a.dtype.as_datatype_enum),
        "num_args": AV(i=len(args)),
        "transpose_a": AV(b=transpose_a),
        "transpose_b": AV(b=transpose_b),
        "fused_ops": AV(list=LV(s=[s.encode() for s in fused_ops])),
        "epsilon": AV(f=1e-4),
        "leakyrelu_alpha": AV(f=0.2 if alpha is None else alpha),
    }
    op = tf1.get_default_graph().create_op(
        "_FusedMatMul", [a, b] + list(args), [a.dtype], name=name,
        attrs=attrs)
    return op.outputs[0]


def bn_args(depth, dtype, seed):
    """scale, offset, mean, variance (positive) as Consts."""
    return [tf.constant(rand(depth, dtype, seed)),
            tf.constant(rand(depth, dtype, seed + 1)),
            tf.constant(rand(depth, dtype, seed + 2)),
            tf.constant(rand(depth, dtype, seed + 3, 0.1, 2.0))]


def conv_case(name, fused_ops, x_shape=(1, 4, 4, 2), f_shape=(2, 2, 2, 3),
              dtype=np.float32, nargs=None, arg_shape=None, seed=0, **kw):
    """A _FusedConv2D case: x fed, filter and arguments Consts."""
    def build():
        x, xv = placeholder(rand(x_shape, dtype, seed), name="x")
        f = tf.constant(rand(f_shape, dtype, seed + 1))
        depth = f_shape[3]
        if fused_ops and fused_ops[0] == "FusedBatchNorm" and nargs is None:
            args = bn_args(depth, dtype, seed + 2)
        else:
            args = [tf.constant(rand(arg_shape or depth, dtype, seed + 2 + i))
                    for i in range(1 if nargs is None else nargs)]
        return fused_conv(x, f, args, fused_ops, **kw), {x: xv}
    case(name, build)


def matmul_case(name, fused_ops, a_shape=(2, 3), b_shape=(3, 4),
                dtype=np.float32, nargs=1, arg_shape=None, seed=0,
                unknown_shape=False, **kw):
    """A _FusedMatMul case: a fed (of unknown shape when unknown_shape, so
    that a bad shape reaches the kernel), b and arguments Consts."""
    def build():
        a, av = placeholder(rand(a_shape, dtype, seed, -2, 2), name="a",
                            shape=None if not unknown_shape else
                            tf.TensorShape(None))
        b = tf.constant(rand(b_shape, dtype, seed + 1))
        n = b_shape[0] if kw.get("transpose_b") else b_shape[1]
        args = [tf.constant(rand(arg_shape or n, dtype, seed + 2 + i))
                for i in range(nargs)]
        return fused_matmul(a, b, args, fused_ops, **kw), {a: av}
    case(name, build)


def main():
    # _FusedConv2D: every combination, float.
    for head in ["BiasAdd", "FusedBatchNorm"]:
        tag = "bias" if head == "BiasAdd" else "bn"
        conv_case(f"conv_{tag}", [head])
        for act in ACTS_CONV:
            conv_case(f"conv_{tag}_{act.lower()}", [head, act], seed=3)
    # double.
    conv_case("conv_bias_relu_double", ["BiasAdd", "Relu"], dtype=np.float64)
    conv_case("conv_bn_elu_double", ["FusedBatchNorm", "Elu"],
              dtype=np.float64)
    # Geometry: strides, VALID, dilation, explicit padding, 1x1, batch.
    conv_case("conv_bias_relu_stride2_valid", ["BiasAdd", "Relu"],
              x_shape=(2, 5, 6, 2), f_shape=(3, 3, 2, 3), strides=(1, 2, 2, 1),
              padding="VALID")
    conv_case("conv_bn_relu_dilated", ["FusedBatchNorm", "Relu"],
              x_shape=(1, 6, 6, 2), f_shape=(3, 3, 2, 3),
              dilations=(1, 2, 2, 1))
    conv_case("conv_bias_explicit_padding", ["BiasAdd", "Relu6"],
              x_shape=(1, 5, 4, 2), f_shape=(2, 2, 2, 3), padding="EXPLICIT",
              explicit=[0, 0, 1, 2, 0, 1, 0, 0])
    conv_case("conv_bn_1x1", ["FusedBatchNorm", "Relu"],
              x_shape=(2, 3, 3, 8), f_shape=(1, 1, 8, 6))
    conv_case("conv_bias_relu_full_window", ["BiasAdd", "Relu"],
              x_shape=(1, 3, 3, 2), f_shape=(3, 3, 2, 5), padding="VALID")
    # Attrs.
    conv_case("conv_bn_epsilon", ["FusedBatchNorm"], epsilon=0.5)
    conv_case("conv_bias_leakyrelu_alpha", ["BiasAdd", "LeakyRelu"],
              alpha=0.01)
    conv_case("conv_bn_leakyrelu_alpha_above_one", ["FusedBatchNorm",
                                                    "LeakyRelu"], alpha=1.5)
    conv_case("conv_bias_relu6_large", ["BiasAdd", "Relu6"], seed=7)
    # Empty tensors.
    conv_case("conv_bias_empty_batch", ["BiasAdd", "Relu"],
              x_shape=(0, 4, 4, 2))
    conv_case("conv_bn_empty_depth", ["FusedBatchNorm"], f_shape=(2, 2, 2, 0))
    conv_case("conv_nchw_empty_output", ["BiasAdd"], x_shape=(0, 2, 4, 4),
              data_format="NCHW")
    conv_case("conv_bias_empty_batch_bias_not_vector", ["BiasAdd"],
              x_shape=(0, 4, 4, 2), arg_shape=(1, 3))
    # Errors.
    conv_case("conv_half_error", ["BiasAdd", "Relu"], dtype=np.float16)
    conv_case("conv_no_fused_ops_error", [])
    conv_case("conv_relu_alone_error", ["Relu"])
    conv_case("conv_bias_sigmoid_error", ["BiasAdd", "Sigmoid"])
    conv_case("conv_bias_tanh_error", ["BiasAdd", "Tanh"])
    conv_case("conv_bn_gelu_error", ["FusedBatchNorm", "GeluExact"])
    conv_case("conv_bias_add_error", ["BiasAdd", "Add"], nargs=2)
    conv_case("conv_bias_relu_relu_error", ["BiasAdd", "Relu", "Relu"])
    conv_case("conv_bias_two_args_error", ["BiasAdd"], nargs=2)
    conv_case("conv_bias_four_args_error", ["BiasAdd"], nargs=4)
    conv_case("conv_bn_one_arg_error", ["FusedBatchNorm"], nargs=1)
    conv_case("conv_nchw_error", ["BiasAdd"], x_shape=(1, 2, 4, 4),
              data_format="NCHW")
    conv_case("conv_grouped_error", ["BiasAdd"], x_shape=(1, 5, 5, 4),
              f_shape=(3, 3, 2, 4))
    conv_case("conv_bias_not_vector_error", ["BiasAdd"], arg_shape=(1, 3))
    conv_case("conv_bn_arg_not_vector_error", ["FusedBatchNorm"], nargs=4,
              arg_shape=(2, 2))
    conv_case("conv_batch_stride_error", ["BiasAdd"], strides=(2, 1, 1, 1))

    # _FusedMatMul: every combination, float.
    matmul_case("matmul_bias", ["BiasAdd"])
    for act in ACTS_MATMUL:
        matmul_case(f"matmul_bias_{act.lower()}", ["BiasAdd", act], seed=5)
    matmul_case("matmul_bias_relu_transpose_a", ["BiasAdd", "Relu"],
                a_shape=(3, 2), transpose_a=True)
    matmul_case("matmul_bias_elu_transpose_b", ["BiasAdd", "Elu"],
                b_shape=(4, 3), transpose_b=True)
    matmul_case("matmul_bias_relu_wide", ["BiasAdd", "Relu"],
                a_shape=(4, 17), b_shape=(17, 20), seed=9)
    matmul_case("matmul_bias_leakyrelu_alpha", ["BiasAdd", "LeakyRelu"],
                alpha=0.05)
    for dtype, tag in [(np.float16, "half"),
                       (tf.bfloat16.as_numpy_dtype, "bfloat16")]:
        matmul_case(f"matmul_bias_relu_{tag}", ["BiasAdd", "Relu"],
                    dtype=dtype)
        matmul_case(f"matmul_bias_tanh_{tag}", ["BiasAdd", "Tanh"],
                    dtype=dtype)
    # Empty tensors.
    matmul_case("matmul_bias_empty_rows", ["BiasAdd", "Relu"],
                a_shape=(0, 3))
    matmul_case("matmul_bias_relu_empty_k", ["BiasAdd", "Relu6"],
                a_shape=(3, 0), b_shape=(0, 4))
    # Errors.
    matmul_case("matmul_no_fused_ops_error", [])
    matmul_case("matmul_relu_alone_error", ["Relu"])
    matmul_case("matmul_bias_gelu_approximate_error",
                ["BiasAdd", "GeluApproximate"])
    matmul_case("matmul_bias_gelu_exact_error", ["BiasAdd", "GeluExact"])
    matmul_case("matmul_bn_error", ["FusedBatchNorm"], nargs=4)
    matmul_case("matmul_bias_add_error", ["BiasAdd", "Add"], nargs=2)
    matmul_case("matmul_bias_two_args_error", ["BiasAdd"], nargs=2)
    matmul_case("matmul_bias_not_vector_error", ["BiasAdd"], arg_shape=(1, 4))
    matmul_case("matmul_size_incompatible_error", ["BiasAdd"],
                a_shape=(2, 4), unknown_shape=True)
    matmul_case("matmul_not_matrix_error", ["BiasAdd"], a_shape=(2, 3, 1),
                unknown_shape=True)

    golden_lib.write_op_defs(FAMILY, OP_NAMES, drop_types=(tf.int8,))


if __name__ == "__main__":
    main()

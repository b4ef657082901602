// The fused family: the ops TensorFlow's Grappler remapper forms from a
// convolution or matrix product and the elementwise ops after it, and that
// GraphDefs dumped after optimization contain: _FusedConv2D and
// _FusedMatMul (master/optimizer/remapper.h forms them too). Signatures
// follow TensorFlow 2.21's nn_ops.cc and math_ops.cc; the shape functions
// are Conv2D's and MatMul's, as TensorFlow's are.
#include "base/status_macros.h"
#include "graph/op_registry.h"

namespace dfx {
namespace {

// Output 0 as the unfused op `op` infers it from this node's attrs and
// inputs 0 and 1; the fused arguments do not change it.
ShapeFn UnfusedShape(const char* op) {
  return [op](InferenceContext* c) {
    const OpRegistrationData* unfused = OpRegistry::Global()->LookUp(op);
    if (unfused == nullptr || !unfused->shape_fn) {
      c->set_output(0, PartialShape::Unknown());
      return absl::OkStatus();
    }
    InferenceContext inner(c->node_def(), unfused->op_def,
                           {c->input(0), c->input(1)},
                           {c->input_tensor(0), c->input_tensor(1)},
                           unfused->op_def.output_arg_size());
    DFX_RETURN_IF_ERROR(unfused->shape_fn(&inner));
    c->set_output(0, inner.output(0));
    return absl::OkStatus();
  };
}

}  // namespace

absl::Status RegisterFusedOps(OpRegistry* registry) {
  DFX_RETURN_IF_ERROR(registry->Register(
      OpDefBuilder("_FusedConv2D")
          .Input("input: T")
          .Input("filter: T")
          .Input("args: TArgs")
          .Input("host_args: num_host_args * float")
          .Output("output: T")
          .Attr("T: {half, float, double, int8, qint8}")
          .Attr("TArgs: list(type) >= 1")
          .Attr("num_args: int >= 0")
          .Attr("num_host_args: int >= 0 = 0")
          .Attr("strides: list(int)")
          .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
          .Attr("explicit_paddings: list(int) = []")
          .Attr("data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'")
          .Attr("filter_format: {'HWIO', 'OIHW', 'OIHW_VECT_I'} = 'HWIO'")
          .Attr("dilations: list(int) = [1, 1, 1, 1]")
          .Attr("use_cudnn_on_gpu: bool = true")
          .Attr("fused_ops: list(string) = []")
          .Attr("epsilon: float = 0.0001")
          .Attr("leakyrelu_alpha: float = 0.2")
          .SetShapeFn(UnfusedShape("Conv2D"))));
  DFX_RETURN_IF_ERROR(
      registry->Register(OpDefBuilder("_FusedMatMul")
                             .Input("a: T")
                             .Input("b: T")
                             .Input("args: num_args * T")
                             .Output("product: T")
                             .Attr("transpose_a: bool = false")
                             .Attr("transpose_b: bool = false")
                             .Attr("T: {bfloat16, half, float}")
                             .Attr("num_args: int >= 0")
                             .Attr("fused_ops: list(string) = []")
                             .Attr("epsilon: float = 0.0001")
                             .Attr("leakyrelu_alpha: float = 0.2")
                             .SetShapeFn(UnfusedShape("MatMul"))));
  return absl::OkStatus();
}

}  // namespace dfx

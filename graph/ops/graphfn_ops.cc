// The graphfn family. SymbolicGradient, the gradient of a function call
// that TF1's function.Defun puts into a graph when tf.gradients goes through
// a call of a function defined without grad_func (signature as TensorFlow
// 2.21's core/ops/functional_ops.cc): the master lowers it, as it lowers
// PartitionedCall, into the inlined gradient body
// (graph/builder/symbolic_gradient.h, graph/lower_functional_ops.h).
// CompositeTensorVariantFromComponents / ToComponents, which pack the
// components of an ExtensionType value into one variant scalar and back
// (core/ops/composite_tensor_ops.cc). RecordInput, TF1's shuffled batches
// of TFRecords (core/ops/data_flow_ops.cc). Kernels:
// kernels/function/graphfn_*.cc, kernels/readers/graphfn_record_input.cc.
#include "base/status_macros.h"
#include "graph/ops/ops.h"

namespace dfx {
namespace {

absl::Status ScalarOut(InferenceContext* c) {
  c->set_output(0, PartialShape::Scalar());
  return absl::OkStatus();
}

}  // namespace

absl::Status RegisterGraphfnOps(OpRegistry* r) {
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("SymbolicGradient")
                                      .Input("input: Tin")
                                      .Output("output: Tout")
                                      .Attr("Tin: list(type) >= 1")
                                      .Attr("Tout: list(type) >= 1")
                                      .Attr("f: func")
                                      .SetShapeFn(shape_fn::Unknown)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("CompositeTensorVariantFromComponents")
                      .Input("components: Tcomponents")
                      .Output("encoded: variant")
                      .Attr("metadata: string")
                      .Attr("Tcomponents: list(type) >= 0")
                      .SetShapeFn(ScalarOut)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("CompositeTensorVariantToComponents")
                      .Input("encoded: variant")
                      .Output("components: Tcomponents")
                      .Attr("metadata: string")
                      .Attr("Tcomponents: list(type) >= 0")
                      .SetShapeFn(shape_fn::Unknown)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("RecordInput")
                      .Output("records: string")
                      .Attr("file_pattern: string")
                      .Attr("file_random_seed: int = 301")
                      .Attr("file_shuffle_shift_ratio: float = 0")
                      .Attr("file_buffer_size: int = 10000")
                      .Attr("file_parallelism: int = 16")
                      .Attr("batch_size: int = 32")
                      .Attr("compression_type: string = ''")
                      .SetIsStateful()
                      .SetShapeFn(shape_fn::Unknown)));
  return absl::OkStatus();
}

}  // namespace dfx

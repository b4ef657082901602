// SobolSample (tf.math.sobol_sample): points of the Sobol low-discrepancy
// sequence. Signature as in TensorFlow 2.21's math_ops.cc.
#include <cstdint>
#include <vector>

#include "base/status_macros.h"
#include "graph/ops/ops.h"

namespace dfx {
namespace {

// [num_results, dim], each known where its input is a constant; TensorFlow
// checks the three inputs are scalars.
absl::Status SobolSampleShape(InferenceContext* c) {
  for (int i = 0; i < 3; ++i) DFX_RETURN_IF_ERROR(c->WithRank(c->input(i), 0));
  std::vector<int64_t> dims = {-1, -1};
  for (int i = 0; i < 2; ++i) {
    std::vector<int64_t> value;
    if (ConstantInts(c->input_tensor(i), &value) && value.size() == 1 &&
        value[0] >= 0) {
      dims[1 - i] = value[0];
    }
  }
  c->set_output(0, PartialShape::Known(dims));
  return absl::OkStatus();
}

}  // namespace

absl::Status RegisterSobolOps(OpRegistry* r) {
  return r->Register(OpDefBuilder("SobolSample")
                         .Input("dim: int32")
                         .Input("num_results: int32")
                         .Input("skip: int32")
                         .Output("samples: dtype")
                         .Attr("dtype: {float, double} = DT_FLOAT")
                         .SetShapeFn(SobolSampleShape));
}

}  // namespace dfx

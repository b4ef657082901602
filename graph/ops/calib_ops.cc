// The calib family: TensorFlow's quantization calibration and debugging
// ops. CustomAggregator (a tensor's min, max and histogram, the tensor
// passed through), CalibrationStatisticsSaver (those statistics gathered
// over steps and written as a CalibrationStatisticsMap) and DumpTensor
// (every value of a tensor into a file of TFRecords). Signatures follow
// TensorFlow 2.21's tensorflow/compiler/mlir/quantization/tensorflow/
// calibrator/ and ops/.
#include <cstdint>

#include "base/status_macros.h"
#include "graph/node_def_util.h"
#include "graph/ops/ops.h"

namespace dfx {
namespace {

// output is the input; min and max are scalars; the histogram has
// num_bins bins (unknown when num_bins is negative, which the kernel
// refuses).
absl::Status CustomAggregatorShape(InferenceContext* c) {
  int64_t num_bins = 0;
  DFX_RETURN_IF_ERROR(GetNodeAttr(c->node_def(), "num_bins", &num_bins));
  c->set_output(0, c->input(0));
  c->set_output(1, PartialShape::Scalar());
  c->set_output(2, PartialShape::Scalar());
  c->set_output(3, PartialShape::Known({num_bins < 0 ? -1 : num_bins}));
  return absl::OkStatus();
}

absl::Status NoOutputs(InferenceContext*) { return absl::OkStatus(); }

}  // namespace

absl::Status RegisterCalibOps(OpRegistry* r) {
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("CustomAggregator")
                                      .Input("input: float")
                                      .Output("output: float")
                                      .Output("min: float")
                                      .Output("max: float")
                                      .Output("histogram: int64")
                                      .Attr("id: string")
                                      .Attr("calibration_method: int = 0")
                                      .Attr("num_bins: int = 0")
                                      .Attr("min_percentile: float = 0")
                                      .Attr("max_percentile: float = 0")
                                      .SetShapeFn(CustomAggregatorShape)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("CalibrationStatisticsSaver")
                      .Input("args: Tin")
                      .Attr("Tin: list(type) >= 0")
                      .Attr("ids: list(string) >= 1")
                      .Attr("calibration_methods: list(int) >= 1")
                      .Attr("output_file_path: string")
                      .SetIsStateful()
                      .SetShapeFn(NoOutputs)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("DumpTensor")
                                      .Input("tensor_data: T")
                                      .Attr("log_dir_path: string")
                                      .Attr("file_name: string")
                                      .Attr("T: type")
                                      .Attr("enabled: bool")
                                      .Attr("func_name: string")
                                      .Attr("node_name: string")
                                      .SetIsStateful()
                                      .SetShapeFn(NoOutputs)));
  return absl::OkStatus();
}

}  // namespace dfx

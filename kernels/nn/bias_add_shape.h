// BiasAdd's attr and shape rules, shared by its CPU and GPU kernels:
// TensorFlow's errors for a bad data_format, a value below 2-D, a bias
// that is not 1-D, or a bias whose size is not the channel dim's (the
// last, or dim 1 in NCHW).
#ifndef DFX_KERNELS_NN_BIAS_ADD_SHAPE_H_
#define DFX_KERNELS_NN_BIAS_ADD_SHAPE_H_

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "graph/node_def_util.h"
#include "runtime/tensor_shape.h"

namespace dfx {

// BiasAdd's data_format attr: NHWC (also BiasAddV1, which has none) or
// NCHW; InvalidArgument for anything else.
inline absl::Status ParseBiasAddFormat(const NodeDef& def, bool* nchw) {
  *nchw = false;
  const AttrValue* format = FindNodeAttr(def, "data_format");
  if (format == nullptr || format->s() == "NHWC") return absl::OkStatus();
  if (format->s() == "NCHW") {
    *nchw = true;
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "Invalid data format: '", format->s(), "': expected 'NHWC' or 'NCHW'"));
}

inline absl::Status CheckBiasAddShapes(const TensorShape& value,
                                       const TensorShape& bias, bool nchw) {
  if (value.dims() < 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Input tensor must be at least 2D: ", value.DebugString()));
  }
  if (bias.dims() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("Biases must be 1D: ", bias.DebugString()));
  }
  const int channel_dim = nchw ? 1 : value.dims() - 1;
  // TensorFlow says "last dimension" whatever the data format.
  if (bias.dim_size(0) != value.dim_size(channel_dim)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Must provide as many biases as the last dimension of the input "
        "tensor: ",
        bias.DebugString(), " vs. ", value.DebugString()));
  }
  return absl::OkStatus();
}

}  // namespace dfx

#endif  // DFX_KERNELS_NN_BIAS_ADD_SHAPE_H_

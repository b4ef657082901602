// DecodeJxl, TensorFlow 2.21's JPEG XL decoder (image_ops.cc), with its
// shape function. Kernel: the decode ops' shared kernel in
// kernels/codec/codec_kernels.cc.
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/node_def_util.h"
#include "graph/ops/ops.h"

namespace dfx {
namespace {

// A scalar file, a [?, ?, channels] image (channels unknown for 0).
absl::Status DecodeJxlShape(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 0));
  int64_t channels = 0;
  if (FindNodeAttr(c->node_def(), "channels") != nullptr) {
    DFX_RETURN_IF_ERROR(GetNodeAttr(c->node_def(), "channels", &channels));
  }
  if (channels < 0) {
    return c->Error(
        absl::StrCat("channels must be non-negative, got ", channels));
  }
  c->set_output(0,
                PartialShape::Known({-1, -1, channels == 0 ? -1 : channels}));
  return absl::OkStatus();
}

}  // namespace

absl::Status RegisterJxlOps(OpRegistry* r) {
  return r->Register(OpDefBuilder("DecodeJxl")
                         .Input("contents: string")
                         .Output("image: dtype")
                         .Attr("channels: int = 0")
                         .Attr("dtype: {uint8} = DT_UINT8")
                         .SetShapeFn(DecodeJxlShape));
}

}  // namespace dfx

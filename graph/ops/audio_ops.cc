// The audio family: AudioMicrofrontend, TensorFlow Lite's speech feature
// frontend as a TensorFlow op (tensorflow/lite/experimental/microfrontend/
// ops/audio_microfrontend_op.cc, loaded by the Python module
// tensorflow.lite.experimental.microfrontend.python.ops), with TensorFlow
// 2.21's signature.
#include <cstdint>

#include "base/status_macros.h"
#include "graph/node_def_util.h"
#include "graph/ops/ops.h"

namespace dfx {
namespace {

// [frames, num_channels * (1 + left_context + right_context)]: a frame every
// window_step ms that fits a whole window, every frame_stride-th kept.
absl::Status AudioMicrofrontendShape(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 1));
  const NodeDef& node = c->node_def();
  int64_t sample_rate = 0, window_size = 0, window_step = 0, num_channels = 0,
          left_context = 0, right_context = 0, frame_stride = 0;
  DFX_RETURN_IF_ERROR(GetNodeAttr(node, "sample_rate", &sample_rate));
  DFX_RETURN_IF_ERROR(GetNodeAttr(node, "window_size", &window_size));
  DFX_RETURN_IF_ERROR(GetNodeAttr(node, "window_step", &window_step));
  DFX_RETURN_IF_ERROR(GetNodeAttr(node, "num_channels", &num_channels));
  DFX_RETURN_IF_ERROR(GetNodeAttr(node, "left_context", &left_context));
  DFX_RETURN_IF_ERROR(GetNodeAttr(node, "right_context", &right_context));
  DFX_RETURN_IF_ERROR(GetNodeAttr(node, "frame_stride", &frame_stride));
  // TensorFlow's int arithmetic: ms times the whole kHz.
  window_size *= sample_rate / 1000;
  window_step *= sample_rate / 1000;
  const PartialShape& audio = c->input(0);
  int64_t frames = -1;
  if (audio.RankKnown() && audio.dims[0] >= 0) {
    if (audio.dims[0] < window_size) {
      frames = 0;
    } else {
      if (window_step <= 0 || frame_stride <= 0) {
        return c->Error(
            "AudioMicrofrontend: window_step and frame_stride must be "
            "positive");
      }
      frames = (audio.dims[0] - window_size) / window_step / frame_stride + 1;
    }
  }
  const int64_t features = num_channels * (1 + left_context + right_context);
  c->set_output(0, PartialShape::Known({frames, features < 0 ? -1 : features}));
  return absl::OkStatus();
}

}  // namespace

absl::Status RegisterAudioOps(OpRegistry* r) {
  return r->Register(OpDefBuilder("AudioMicrofrontend")
                         .Input("audio: int16")
                         .Output("filterbanks: out_type")
                         .Attr("sample_rate: int = 16000")
                         .Attr("window_size: int = 25")
                         .Attr("window_step: int = 10")
                         .Attr("num_channels: int = 32")
                         .Attr("upper_band_limit: float = 7500")
                         .Attr("lower_band_limit: float = 125")
                         .Attr("smoothing_bits: int = 10")
                         .Attr("even_smoothing: float = 0.025")
                         .Attr("odd_smoothing: float = 0.06")
                         .Attr("min_signal_remaining: float = 0.05")
                         .Attr("enable_pcan: bool = false")
                         .Attr("pcan_strength: float = 0.95")
                         .Attr("pcan_offset: float = 80")
                         .Attr("gain_bits: int = 21")
                         .Attr("enable_log: bool = true")
                         .Attr("scale_shift: int = 6")
                         .Attr("left_context: int = 0")
                         .Attr("right_context: int = 0")
                         .Attr("frame_stride: int = 1")
                         .Attr("zero_padding: bool = false")
                         .Attr("out_scale: int = 1")
                         .Attr("out_type: {uint16, float} = DT_UINT16")
                         .SetShapeFn(AudioMicrofrontendShape));
}

}  // namespace dfx

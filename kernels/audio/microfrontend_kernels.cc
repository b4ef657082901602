// AudioMicrofrontend's CPU kernel (op in graph/ops/audio_ops.cc): int16
// audio to uint16 or float filterbank features, frames stacked with their
// neighbours. The arithmetic is kernels/audio/microfrontend.h's.
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/audio/microfrontend.h"
#include "runtime/op_kernel.h"

namespace dfx {
namespace {

template <typename T>
class AudioMicrofrontendOp : public OpKernel {
 public:
  explicit AudioMicrofrontendOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    audio::MicrofrontendConfig& c = config_;
    for (const auto& [name, value] :
         {std::pair<const char*, int*>{"sample_rate", &c.sample_rate},
          {"window_size", &c.window_size_ms},
          {"window_step", &c.window_step_ms},
          {"num_channels", &c.num_channels},
          {"smoothing_bits", &c.smoothing_bits},
          {"gain_bits", &c.gain_bits},
          {"scale_shift", &c.scale_shift},
          {"left_context", &left_context_},
          {"right_context", &right_context_},
          {"frame_stride", &frame_stride_},
          {"out_scale", &out_scale_}}) {
      int32_t v = 0;
      ctx->SetStatus(ctx->GetAttr(name, &v));
      *value = v;
    }
    for (const auto& [name, value] :
         {std::pair<const char*, float*>{"upper_band_limit",
                                         &c.upper_band_limit},
          {"lower_band_limit", &c.lower_band_limit},
          {"even_smoothing", &c.even_smoothing},
          {"odd_smoothing", &c.odd_smoothing},
          {"min_signal_remaining", &c.min_signal_remaining},
          {"pcan_strength", &c.pcan_strength},
          {"pcan_offset", &c.pcan_offset}}) {
      ctx->SetStatus(ctx->GetAttr(name, value));
    }
    ctx->SetStatus(ctx->GetAttr("enable_pcan", &c.enable_pcan));
    ctx->SetStatus(ctx->GetAttr("enable_log", &c.enable_log));
    ctx->SetStatus(ctx->GetAttr("zero_padding", &zero_padding_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& audio = ctx->input(0);
    DFX_OP_REQUIRES(ctx, audio.dims() == 1,
                    absl::InvalidArgumentError("audio is not a vector"));
    const int64_t num_samples = audio.NumElements();
    const int window = audio::WindowSamples(config_);
    const int step = audio::StepSamples(config_);
    const std::string bad = audio::CheckConfig(config_);
    // Where TensorFlow's kernel divides by zero, makes a negative
    // dimension (a CHECK failure), copies a negative length or shifts by
    // more than a word, dfx refuses the attrs instead.
    DFX_OP_REQUIRES(
        ctx, bad.empty(),
        absl::InvalidArgumentError(absl::StrCat("AudioMicrofrontend: ", bad)));
    int64_t num_frames = 0;
    int64_t sampled_frames = 0;
    if (num_samples >= window) {
      DFX_OP_REQUIRES(ctx, step > 0 && frame_stride_ > 0,
                      absl::InvalidArgumentError(
                          absl::StrCat("AudioMicrofrontend: window_step (",
                                       step, " samples) and frame_stride (",
                                       frame_stride_, ") must be positive")));
      num_frames = (num_samples - window) / step + 1;
      sampled_frames = (num_frames - 1) / frame_stride_ + 1;
    }
    const int64_t stack = 1 + int64_t{left_context_} + right_context_;
    DFX_OP_REQUIRES(
        ctx, stack >= 0,
        absl::InvalidArgumentError(absl::StrCat(
            "AudioMicrofrontend: 1 + left_context + right_context is ", stack,
            ", must not be negative")));
    DFX_OP_REQUIRES(
        ctx,
        !(std::is_same_v<T, uint16_t> && out_scale_ == 0 && num_frames > 0),
        absl::InvalidArgumentError(
            "AudioMicrofrontend: out_scale must not be 0 with "
            "out_type uint16 (an integer division)"));
    const int num_channels = config_.num_channels;
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(
                 0, TensorShape({sampled_frames, num_channels * stack}), &out));

    // TensorFlow's window buffer moves a negative length when the step
    // passes the window (after its state setup, which fails first for
    // windows of under two samples).
    DFX_OP_REQUIRES(
        ctx, num_frames == 0 || window < 2 || step <= window,
        absl::InvalidArgumentError(absl::StrCat(
            "AudioMicrofrontend: window_step (", step,
            " samples) must be at most the window (", window, " samples)")));
    std::vector<uint16_t> features;
    DFX_OP_REQUIRES(ctx,
                    audio::ComputeMicrofrontend(config_, audio.data<int16_t>(),
                                                num_samples, &features),
                    absl::InternalError("failed to populate frontend state"));
    std::vector<T> frames(features.size());
    for (size_t i = 0; i < features.size(); ++i) {
      if constexpr (std::is_same_v<T, uint16_t>) {
        frames[i] = static_cast<uint16_t>(int{features[i]} / out_scale_);
      } else {
        frames[i] =
            static_cast<float>(features[i]) / static_cast<float>(out_scale_);
      }
    }
    // Each kept frame with left_context frames before it and right_context
    // after; beyond the ends the first or last frame, or zeros.
    T* dst = out->data<T>();
    for (int64_t anchor = 0; anchor < num_frames; anchor += frame_stride_) {
      for (int64_t f = anchor - left_context_; f <= anchor + right_context_;
           ++f) {
        if (zero_padding_ && (f < 0 || f >= num_frames)) {
          for (int c = 0; c < num_channels; ++c) *dst++ = T(0);
          continue;
        }
        const int64_t src = f < 0 ? 0 : f >= num_frames ? num_frames - 1 : f;
        const T* row = frames.data() + src * num_channels;
        for (int c = 0; c < num_channels; ++c) *dst++ = row[c];
      }
    }
  }

 private:
  audio::MicrofrontendConfig config_;
  int left_context_ = 0;
  int right_context_ = 0;
  int frame_stride_ = 1;
  bool zero_padding_ = false;
  int out_scale_ = 1;
};

}  // namespace

void RegisterMicrofrontendKernels(KernelRegistry* r) {
  RegisterKernel<AudioMicrofrontendOp<uint16_t>>(
      r, KernelDefBuilder("AudioMicrofrontend")
             .TypeConstraint<uint16_t>("out_type"));
  RegisterKernel<AudioMicrofrontendOp<float>>(
      r,
      KernelDefBuilder("AudioMicrofrontend").TypeConstraint<float>("out_type"));
}

}  // namespace dfx

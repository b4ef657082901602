// Registration of the codec kernels' parts; RegisterCodecKernels
// (kernels/kernels.h, in codec_kernels.cc) calls each.
#ifndef DFX_KERNELS_CODEC_CODEC_KERNELS_H_
#define DFX_KERNELS_CODEC_CODEC_KERNELS_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "runtime/op_kernel.h"

namespace dfx {

// A 16-bit PCM WAV file of `frames` frames of `channels` interleaved float
// samples (scaled by 2^15, rounded, clamped) at `rate` Hz, as TensorFlow's
// wav::EncodeAudioAsS16LEWav writes it (EncodeWav, AudioSummary). Its
// InvalidArgument errors for a rate outside (0, 2^32), channels outside
// (0, 2^16) or a file over 4 GiB.
absl::Status EncodeWav(const float* samples, uint64_t frames,
                       uint64_t channels, uint64_t rate, std::string* wav);

// DecodeRaw, for every out_type TensorFlow's CPU kernel serves.
void RegisterDecodeRawKernels(KernelRegistry* registry);
// DecodeWav, EncodeWav, AudioSpectrogram, Mfcc.
void RegisterAudioKernels(KernelRegistry* registry);
// ReadFile.
void RegisterReadFileKernel(KernelRegistry* registry);
// DecodeCompressed.
void RegisterDecodeCompressedKernel(KernelRegistry* registry);

}  // namespace dfx

#endif  // DFX_KERNELS_CODEC_CODEC_KERNELS_H_

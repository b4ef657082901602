// Registration of the codec kernels' parts; RegisterCodecKernels
// (kernels/kernels.h, in codec_kernels.cc) calls each.
#ifndef DFX_KERNELS_CODEC_CODEC_KERNELS_H_
#define DFX_KERNELS_CODEC_CODEC_KERNELS_H_

#include "runtime/op_kernel.h"

namespace dfx {

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

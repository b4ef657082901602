// A small CUDA kernel the GPU tests and tools/gpu_check use to write known
// values into device memory (the first device code; compiled by nvcc for
// CMAKE_CUDA_ARCHITECTURES, sm_90 by default).
#ifndef DFX_GPU_GPU_FILL_H_
#define DFX_GPU_GPU_FILL_H_

#include <cuda_runtime_api.h>

#include <cstdint>

namespace dfx::gpu {

// Enqueues out[i] = start + i for i in [0, n) on `stream`; the launch
// error (cudaSuccess when it was enqueued).
cudaError_t LaunchIota(cudaStream_t stream, int32_t* out, int64_t n,
                       int32_t start);

}  // namespace dfx::gpu

#endif  // DFX_GPU_GPU_FILL_H_

// CudaStatus: a CUDA runtime error as an absl::Status, and the macro that
// returns one from a function. The only place that maps cudaError_t codes.
#ifndef DFX_GPU_CUDA_STATUS_H_
#define DFX_GPU_CUDA_STATUS_H_

#include <cuda_runtime_api.h>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace dfx::gpu {

// OK for cudaSuccess. Otherwise a status naming `what` and the CUDA error
// (name and text): ResourceExhausted for cudaErrorMemoryAllocation,
// Unavailable for "no device / no driver" errors, Internal for the rest.
absl::Status CudaStatus(cudaError_t error, absl::string_view what);

// True for the errors that mean "this machine has no usable GPU": no
// device, no driver or one too old for the runtime, a driver/library
// mismatch. Discovery treats them as zero GPUs.
bool IsNoGpuError(cudaError_t error);

}  // namespace dfx::gpu

// DFX_CUDA_RETURN_IF_ERROR(cudaCall(...), "what it was doing")
#define DFX_CUDA_RETURN_IF_ERROR(expr, what)                     \
  do {                                                           \
    const cudaError_t dfx_cuda_error_ = (expr);                  \
    if (dfx_cuda_error_ != cudaSuccess) {                        \
      return ::dfx::gpu::CudaStatus(dfx_cuda_error_, (what));    \
    }                                                            \
  } while (0)

#endif  // DFX_GPU_CUDA_STATUS_H_

#include "gpu/cuda_status.h"

#include "absl/strings/str_cat.h"

namespace dfx::gpu {

bool IsNoGpuError(cudaError_t error) {
  switch (error) {
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorSystemDriverMismatch:
    case cudaErrorCompatNotSupportedOnDevice:
    case cudaErrorDevicesUnavailable:
      return true;
    default:
      return false;
  }
}

absl::Status CudaStatus(cudaError_t error, absl::string_view what) {
  if (error == cudaSuccess) return absl::OkStatus();
  const std::string message =
      absl::StrCat(what, ": CUDA error ", cudaGetErrorName(error), " (",
                   static_cast<int>(error), "): ", cudaGetErrorString(error));
  if (error == cudaErrorMemoryAllocation) {
    return absl::ResourceExhaustedError(message);
  }
  if (IsNoGpuError(error)) return absl::UnavailableError(message);
  return absl::InternalError(message);
}

}  // namespace dfx::gpu

// CUDA kernels of gpu/kernels/array_gpu.h: grid-stride loops.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <type_traits>

#include "gpu/kernels/array_gpu.h"
#include "gpu/kernels/launch.h"

namespace dfx::gpu {
namespace {

#define DFX_GRID_STRIDE(i, n)                                             \
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n; \
       i += int64_t{gridDim.x} * blockDim.x)

// Every device dtype to and from a common type: double holds every float,
// half, bfloat16 and bool exactly; int64 goes through its own path.
template <typename T>
struct Convert {
  __device__ static double To(T x) { return static_cast<double>(x); }
  __device__ static T From(double x) { return static_cast<T>(x); }
};
template <>
struct Convert<__half> {
  __device__ static double To(__half x) { return __half2float(x); }
  // Through float, as TensorFlow's Eigen::half casts from double do.
  __device__ static __half From(double x) {
    return __float2half_rn(static_cast<float>(x));
  }
};
template <>
struct Convert<__nv_bfloat16> {
  __device__ static double To(__nv_bfloat16 x) { return __bfloat162float(x); }
  __device__ static __nv_bfloat16 From(double x) {
    return __float2bfloat16_rn(static_cast<float>(x));
  }
};
template <>
struct Convert<bool> {
  __device__ static double To(bool x) { return x ? 1.0 : 0.0; }
  __device__ static bool From(double x) { return x != 0; }
};

template <typename From, typename To>
__device__ To CastOne(From x) {
  if constexpr (std::is_same_v<From, To>) {
    return x;
  } else if constexpr (std::is_same_v<From, int64_t> &&
                       std::is_same_v<To, bool>) {
    return x != 0;
  } else if constexpr (std::is_same_v<From, int64_t>) {
    return Convert<To>::From(static_cast<double>(x));
  } else if constexpr (std::is_same_v<To, int64_t>) {
    return static_cast<int64_t>(Convert<From>::To(x));
  } else if constexpr (std::is_same_v<To, float>) {
    // Directly, not through double (half, bfloat16 widen exactly either
    // way; double to float must round once).
    return static_cast<float>(Convert<From>::To(x));
  } else {
    return Convert<To>::From(Convert<From>::To(x));
  }
}

template <typename From, typename To>
__global__ void CastKernel(const From* in, To* out, int64_t n) {
  DFX_GRID_STRIDE(i, n) { out[i] = CastOne<From, To>(in[i]); }
}

template <typename From, typename To>
cudaError_t Cast(cudaStream_t stream, const void* in, void* out, int64_t n) {
  CastKernel<From, To><<<BlocksFor(n), kThreadsPerBlock, 0, stream>>>(
      static_cast<const From*>(in), static_cast<To*>(out), n);
  return cudaGetLastError();
}

template <typename From>
cudaError_t CastFrom(cudaStream_t stream, const void* in, CastType to,
                     void* out, int64_t n) {
  switch (to) {
    case CastType::kFloat: return Cast<From, float>(stream, in, out, n);
    case CastType::kDouble: return Cast<From, double>(stream, in, out, n);
    case CastType::kHalf: return Cast<From, __half>(stream, in, out, n);
    case CastType::kBfloat16:
      return Cast<From, __nv_bfloat16>(stream, in, out, n);
    case CastType::kInt64: return Cast<From, int64_t>(stream, in, out, n);
    case CastType::kBool: return Cast<From, bool>(stream, in, out, n);
  }
  return cudaErrorInvalidValue;
}

template <typename E>
__global__ void FillKernel(E* out, int64_t n, E value) {
  DFX_GRID_STRIDE(i, n) { out[i] = value; }
}

template <typename E>
__global__ void FillFromDeviceKernel(E* out, int64_t n, const E* value) {
  const E v = *value;
  DFX_GRID_STRIDE(i, n) { out[i] = v; }
}

template <typename E>
__global__ void GatherKernel(const E* params, const int64_t* indices, E* out,
                             int64_t outer, int64_t limit,
                             int64_t num_indices, int64_t inner) {
  const int64_t n = outer * num_indices * inner;
  DFX_GRID_STRIDE(i, n) {
    const int64_t k = i % inner;
    const int64_t m = (i / inner) % num_indices;
    const int64_t o = i / (inner * num_indices);
    out[i] = params[(o * limit + indices[m]) * inner + k];
  }
}

template <typename E>
cudaError_t Gather(cudaStream_t stream, const void* params,
                   const int64_t* indices, void* out, int64_t outer,
                   int64_t limit, int64_t num_indices, int64_t inner) {
  const int64_t n = outer * num_indices * inner;
  GatherKernel<E><<<BlocksFor(n), kThreadsPerBlock, 0, stream>>>(
      static_cast<const E*>(params), indices, static_cast<E*>(out), outer,
      limit, num_indices, inner);
  return cudaGetLastError();
}

#undef DFX_GRID_STRIDE

}  // namespace

cudaError_t LaunchCast(cudaStream_t stream, CastType from, const void* in,
                       CastType to, void* out, int64_t n) {
  if (n == 0) return cudaSuccess;
  switch (from) {
    case CastType::kFloat: return CastFrom<float>(stream, in, to, out, n);
    case CastType::kDouble: return CastFrom<double>(stream, in, to, out, n);
    case CastType::kHalf: return CastFrom<__half>(stream, in, to, out, n);
    case CastType::kBfloat16:
      return CastFrom<__nv_bfloat16>(stream, in, to, out, n);
    case CastType::kInt64: return CastFrom<int64_t>(stream, in, to, out, n);
    case CastType::kBool: return CastFrom<bool>(stream, in, to, out, n);
  }
  return cudaErrorInvalidValue;
}

cudaError_t LaunchFillValue(cudaStream_t stream, void* out, int64_t n,
                            int element_size, uint64_t bits) {
  if (n == 0) return cudaSuccess;
  const int blocks = BlocksFor(n);
  switch (element_size) {
    case 1:
      FillKernel<<<blocks, kThreadsPerBlock, 0, stream>>>(
          static_cast<uint8_t*>(out), n, static_cast<uint8_t>(bits));
      break;
    case 2:
      FillKernel<<<blocks, kThreadsPerBlock, 0, stream>>>(
          static_cast<uint16_t*>(out), n, static_cast<uint16_t>(bits));
      break;
    case 4:
      FillKernel<<<blocks, kThreadsPerBlock, 0, stream>>>(
          static_cast<uint32_t*>(out), n, static_cast<uint32_t>(bits));
      break;
    case 8:
      FillKernel<<<blocks, kThreadsPerBlock, 0, stream>>>(
          static_cast<uint64_t*>(out), n, bits);
      break;
    default:
      return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

cudaError_t LaunchFillFromDevice(cudaStream_t stream, void* out, int64_t n,
                                 int element_size, const void* value) {
  if (n == 0) return cudaSuccess;
  const int blocks = BlocksFor(n);
  switch (element_size) {
    case 1:
      FillFromDeviceKernel<<<blocks, kThreadsPerBlock, 0, stream>>>(
          static_cast<uint8_t*>(out), n, static_cast<const uint8_t*>(value));
      break;
    case 2:
      FillFromDeviceKernel<<<blocks, kThreadsPerBlock, 0, stream>>>(
          static_cast<uint16_t*>(out), n,
          static_cast<const uint16_t*>(value));
      break;
    case 4:
      FillFromDeviceKernel<<<blocks, kThreadsPerBlock, 0, stream>>>(
          static_cast<uint32_t*>(out), n,
          static_cast<const uint32_t*>(value));
      break;
    case 8:
      FillFromDeviceKernel<<<blocks, kThreadsPerBlock, 0, stream>>>(
          static_cast<uint64_t*>(out), n,
          static_cast<const uint64_t*>(value));
      break;
    default:
      return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

cudaError_t LaunchGather(cudaStream_t stream, const void* params,
                         const int64_t* indices, void* out, int element_size,
                         int64_t outer, int64_t limit, int64_t num_indices,
                         int64_t inner) {
  if (outer * num_indices * inner == 0) return cudaSuccess;
  switch (element_size) {
    case 1:
      return Gather<uint8_t>(stream, params, indices, out, outer, limit,
                             num_indices, inner);
    case 2:
      return Gather<uint16_t>(stream, params, indices, out, outer, limit,
                              num_indices, inner);
    case 4:
      return Gather<uint32_t>(stream, params, indices, out, outer, limit,
                              num_indices, inner);
    case 8:
      return Gather<uint64_t>(stream, params, indices, out, outer, limit,
                              num_indices, inner);
    default:
      return cudaErrorInvalidValue;
  }
}

}  // namespace dfx::gpu

// Helpers shared by the array kernels: node-named errors, reading index
// vectors, copying element ranges of any dtype, and the registration
// functions of each array-kernel file.
#ifndef DFX_KERNELS_ARRAY_ARRAY_UTIL_H_
#define DFX_KERNELS_ARRAY_ARRAY_UTIL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "runtime/op_kernel.h"
#include "runtime/tensor.h"

namespace dfx::array_internal {

// InvalidArgument "node 'name' (op Type): message".
absl::Status NodeError(const OpKernel& kernel, absl::string_view message);

// The elements of an int32 or int64 tensor, widened to int64. InvalidArgument
// (unnamed) for any other dtype.
absl::StatusOr<std::vector<int64_t>> ReadInts(const Tensor& t);

// Every dtype whose elements the array kernels can move: the fixed-size
// types and string.
const DataTypeVector& MovableTypes();

// Copies `n` elements from src[src_offset...] to dst[dst_offset...] (flat
// element offsets). REQUIRES: same dtype, ranges inside both tensors, a dtype
// of MovableTypes().
void CopyElements(const Tensor& src, int64_t src_offset, Tensor* dst,
                  int64_t dst_offset, int64_t n);

// One per kernel file; RegisterArrayKernels calls them all.
void RegisterIdentityKernels(KernelRegistry* registry);
void RegisterShapeKernels(KernelRegistry* registry);
void RegisterTransposeKernel(KernelRegistry* registry);
void RegisterConcatKernels(KernelRegistry* registry);
void RegisterSearchKernels(KernelRegistry* registry);
void RegisterFillKernels(KernelRegistry* registry);

}  // namespace dfx::array_internal

#endif  // DFX_KERNELS_ARRAY_ARRAY_UTIL_H_

// Helpers shared by the TensorList kernels: reading a list input, writing a
// list output (taking over the input's list when nothing else can see it),
// the element-shape inputs, and copying or zeroing runs of elements of any
// dtype a tensor holds.
#ifndef DFX_KERNELS_LIST_LIST_UTIL_H_
#define DFX_KERNELS_LIST_LIST_UTIL_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/op_kernel.h"
#include "runtime/tensor_list.h"
#include "runtime/variant.h"

namespace dfx::list_internal {

// The list input `index` holds, borrowed from the input. InvalidArgument
// when the input is not a scalar or does not hold a TensorList.
absl::StatusOr<const TensorList*> GetInputList(OpKernelContext* ctx,
                                               int index);

// A list to modify and return: `list` (the one input `index` holds) moved
// out when the kernel holds the only reference to both the input tensor and
// its value and no other input of the kernel is that tensor (inputs one
// output feeds share a slot) — nothing else can observe the move —
// otherwise a copy (which shares the element tensors, not their data).
TensorList TakeOrCopyList(OpKernelContext* ctx, int index,
                          const TensorList& list);

// Sets output `index` to a new scalar variant holding `list`.
absl::Status SetOutputList(OpKernelContext* ctx, int index, TensorList list);

// TensorFlow's element-shape input: a vector of int32/int64 dims (-1 for
// unknown), or the scalar -1 for an unknown rank. InvalidArgument otherwise.
absl::StatusOr<PartialShape> PartialShapeFromTensor(const Tensor& t);

// The element-shape input `index` merged with the list's element shape.
absl::StatusOr<PartialShape> ElementShapeFromInput(OpKernelContext* ctx,
                                                   const TensorList& list,
                                                   int index);

// The longest list a kernel builds: past this, ResourceExhausted (a hostile
// num_elements or index must not take the process down with it).
inline constexpr int64_t kMaxListLength = int64_t{1} << 26;
absl::Status CheckListLength(int64_t length);

// [n] + shape; InvalidArgument when the result is too large.
absl::StatusOr<TensorShape> PrependDim(int64_t n, const TensorShape& shape);

// InvalidArgument unless the op's element_dtype is the list's.
absl::Status CheckListDtype(DataType op_dtype, const TensorList& list);

// The single int32 of `t` (TensorFlow accepts any one-element tensor).
absl::StatusOr<int32_t> ReadInt32Scalar(const Tensor& t, const char* what);

// Copies elements [src_start, src_start + count) of `src` to
// [dst_start, dst_start + count) of `dst`, by value for strings, handles
// and variants. REQUIRES: same dtype, both ranges inside, a dtype a tensor
// holds.
void CopyElements(const Tensor& src, int64_t src_start, Tensor* dst,
                  int64_t dst_start, int64_t count);
// Sets elements [start, start + count) of `t` to zero (empty strings,
// default handles, empty variants).
void ZeroElements(Tensor* t, int64_t start, int64_t count);

// A tensor of zeros from the kernel's allocator.
absl::StatusOr<Tensor> ZerosTensor(OpKernelContext* ctx, DataType dtype,
                                   const TensorShape& shape);
// A copy of rows [start, start + rows) of `t` along dim 0, as its own tensor
// of shape [rows] + t.shape[1:] (or t.shape[1:] when `drop_dim` is true and
// rows == 1).
absl::StatusOr<Tensor> CopyRows(OpKernelContext* ctx, const Tensor& t,
                                int64_t start, int64_t rows, bool drop_dim);

// ZerosLike and AddN for T=variant (list_variant_kernels.cc).
void RegisterListVariantKernels(KernelRegistry* registry);

}  // namespace dfx::list_internal

#endif  // DFX_KERNELS_LIST_LIST_UTIL_H_

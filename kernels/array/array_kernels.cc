#include "kernels/array/array_util.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "kernels/kernels.h"

namespace dfx {
namespace array_internal {

absl::Status NodeError(const OpKernel& kernel, absl::string_view message) {
  return absl::InvalidArgumentError(absl::StrCat(
      "node '", kernel.name(), "' (op ", kernel.type_string(), "): ", message));
}

absl::StatusOr<std::vector<int64_t>> ReadInts(const Tensor& t) {
  std::vector<int64_t> out;
  out.reserve(static_cast<size_t>(t.NumElements()));
  if (t.dtype() == DT_INT32) {
    for (int32_t v : t.span<int32_t>()) out.push_back(v);
  } else if (t.dtype() == DT_INT64) {
    for (int64_t v : t.span<int64_t>()) out.push_back(v);
  } else {
    return absl::InvalidArgumentError(absl::StrCat(
        "expected an int32 or int64 tensor, got ", DataTypeString(t.dtype())));
  }
  return out;
}

const DataTypeVector& MovableTypes() {
  static const DataTypeVector* types = new DataTypeVector{
      DT_FLOAT,  DT_DOUBLE, DT_INT32,  DT_INT64,     DT_BOOL,
      DT_STRING, DT_HALF,   DT_BFLOAT16, DT_INT8,    DT_UINT8,
      DT_INT16,  DT_UINT16, DT_UINT32, DT_UINT64,    DT_COMPLEX64,
      DT_COMPLEX128};
  return *types;
}

void CopyElements(const Tensor& src, int64_t src_offset, Tensor* dst,
                  int64_t dst_offset, int64_t n) {
  if (n <= 0) return;
  if (src.dtype() == DT_STRING) {
    const std::string* from = src.data<std::string>() + src_offset;
    std::string* to = dst->data<std::string>() + dst_offset;
    for (int64_t i = 0; i < n; ++i) to[i] = from[i];
    return;
  }
  const int64_t size = DataTypeSize(src.dtype());
  std::memcpy(static_cast<char*>(dst->raw_data()) + dst_offset * size,
              static_cast<const char*>(src.raw_data()) + src_offset * size,
              static_cast<size_t>(n * size));
}

}  // namespace array_internal

void RegisterArrayKernels(KernelRegistry* registry) {
  array_internal::RegisterIdentityKernels(registry);
  array_internal::RegisterShapeKernels(registry);
  array_internal::RegisterTransposeKernel(registry);
  array_internal::RegisterConcatKernels(registry);
  array_internal::RegisterSearchKernels(registry);
  array_internal::RegisterFillKernels(registry);
}

}  // namespace dfx

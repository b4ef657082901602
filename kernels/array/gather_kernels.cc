// CPU kernels of the gather, scatter, segment, one-hot, where, top-k,
// arg-max and cumulative ops: the registration that calls each file's, and
// the helpers of gather_util.h.
#include "kernels/array/gather_util.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/array/array_util.h"
#include "kernels/kernels.h"

namespace dfx {
namespace gather_internal {

const DataTypeVector& RealTypes() {
  static const DataTypeVector* types = new DataTypeVector{
      DT_FLOAT, DT_DOUBLE, DT_HALF,   DT_BFLOAT16, DT_INT8,   DT_INT16,
      DT_INT32, DT_INT64,  DT_UINT8,  DT_UINT16,   DT_UINT32, DT_UINT64};
  return *types;
}

const DataTypeVector& NumberTypes() {
  static const DataTypeVector* types = [] {
    auto* t = new DataTypeVector(RealTypes());
    t->push_back(DT_COMPLEX64);
    t->push_back(DT_COMPLEX128);
    return t;
  }();
  return *types;
}

void SetZero(Tensor* t) {
  if (t->dtype() == DT_STRING) {
    for (std::string& s : t->span<std::string>()) s.clear();
    return;
  }
  if (t->NumElements() > 0) std::memset(t->raw_data(), 0, t->TotalBytes());
}

absl::StatusOr<int64_t> ScalarIndex(const Tensor& t, absl::string_view what) {
  if (t.dims() != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " must be a scalar, got shape ", t.shape().DebugString()));
  }
  return IntAt(t, 0);
}

std::string IndexPosition(const TensorShape& shape, int64_t flat) {
  const int rank = shape.dims();
  if (rank == 0) return "";
  std::vector<int64_t> pos(rank);
  for (int d = rank - 1; d >= 0; --d) {
    const int64_t size = shape.dim_size(d);
    pos[d] = size > 0 ? flat % size : 0;
    flat = size > 0 ? flat / size : 0;
  }
  return absl::StrCat("[", absl::StrJoin(pos, ","), "]");
}

int64_t DimProduct(const TensorShape& shape, int begin, int end) {
  int64_t n = 1;
  for (int d = begin; d < end; ++d) n *= shape.dim_size(d);
  return n;
}

absl::StatusOr<std::vector<int64_t>> SliceOffsets(const Tensor& indices,
                                                  const TensorShape& shape,
                                                  bool ignore_bad,
                                                  bool gather_style) {
  const int k = static_cast<int>(indices.dim_size(indices.dims() - 1));
  const int64_t n = DimProduct(indices.shape(), 0, indices.dims() - 1);
  std::vector<int64_t> strides(k);
  int64_t stride = DimProduct(shape, k, shape.dims());
  for (int d = k - 1; d >= 0; --d) {
    strides[d] = stride;
    stride *= shape.dim_size(d);
  }
  std::vector<int64_t> offsets(static_cast<size_t>(n));
  absl::Status status;
  VisitIndexType(indices.dtype(), [&]<typename Index>() {
    const Index* idx = indices.data<Index>();
    for (int64_t i = 0; i < n; ++i) {
      const Index* tuple = idx + i * k;
      int64_t offset = 0;
      bool ok = true;
      for (int d = 0; d < k && ok; ++d) {
        const int64_t v = static_cast<int64_t>(tuple[d]);
        ok = v >= 0 && v < shape.dim_size(d);
        offset += ok ? v * strides[d] : 0;
      }
      if (ok) {
        offsets[i] = offset;
        continue;
      }
      if (ignore_bad) {
        offsets[i] = -1;
        continue;
      }
      std::string position = absl::StrCat("[", i, "]");
      if (gather_style) {
        TensorShape outer;
        for (int d = 0; d < indices.dims() - 1; ++d) {
          DFX_CHECK_OK(outer.AddDim(indices.dim_size(d)));
        }
        position = IndexPosition(outer, i);
      }
      status = absl::InvalidArgumentError(absl::StrCat(
          "indices", position, " = [",
          absl::StrJoin(tuple, tuple + k, ", "), "] does not index into ",
          gather_style ? "param shape " : "shape ", shape.DebugString()));
      return;
    }
  });
  if (!status.ok()) return status;
  return offsets;
}

}  // namespace gather_internal

void RegisterGatherKernels(KernelRegistry* registry) {
  gather_internal::RegisterGatherOpKernels(registry);
  gather_internal::RegisterScatterKernels(registry);
  gather_internal::RegisterSegmentKernels(registry);
  gather_internal::RegisterStitchKernels(registry);
  gather_internal::RegisterSelectKernels(registry);
  gather_internal::RegisterScanKernels(registry);
  gather_internal::RegisterIndexKernels(registry);
}

}  // namespace dfx

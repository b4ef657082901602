#include "kernels/array/index_util.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <type_traits>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "base/logging.h"

namespace dfx::array_internal {
namespace {

using Dims = absl::InlinedVector<int64_t, 8>;

// A StridedCopySpec with size-1 dimensions dropped and contiguous
// neighbours merged; rank >= 1.
struct Plan {
  Dims dims;
  Dims src_strides;
  Dims dst_strides;
  int64_t src_offset = 0;
  int64_t dst_offset = 0;
  int64_t total = 0;
};

Plan Simplify(const StridedCopySpec& spec) {
  Plan p;
  p.src_offset = spec.src_offset;
  p.dst_offset = spec.dst_offset;
  p.total = 1;
  for (size_t d = 0; d < spec.dims.size(); ++d) {
    const int64_t n = spec.dims[d];
    p.total *= n;
    if (n == 1) continue;
    // Outer dimension d folds into the inner one when stepping it once
    // equals stepping the inner one through its whole extent, in both
    // views.
    if (!p.dims.empty() && p.src_strides.back() == n * spec.src_strides[d] &&
        p.dst_strides.back() == n * spec.dst_strides[d]) {
      p.dims.back() *= n;
      p.src_strides.back() = spec.src_strides[d];
      p.dst_strides.back() = spec.dst_strides[d];
      continue;
    }
    p.dims.push_back(n);
    p.src_strides.push_back(spec.src_strides[d]);
    p.dst_strides.push_back(spec.dst_strides[d]);
  }
  if (p.dims.empty()) {
    p.dims.push_back(1);
    p.src_strides.push_back(1);
    p.dst_strides.push_back(1);
  }
  return p;
}

// Copies n elements: d[k * ds] = s[k * ss].
template <typename T>
void CopyRun(const T* s, int64_t ss, T* d, int64_t ds, int64_t n) {
  if (ss == 1 && ds == 1) {
    if constexpr (std::is_trivially_copyable_v<T>) {
      std::memcpy(d, s, static_cast<size_t>(n) * sizeof(T));
    } else {
      std::copy(s, s + n, d);
    }
  } else if (ds == 1) {
    if (ss == 0) {
      std::fill(d, d + n, *s);
    } else if (ss == -1) {
      for (int64_t k = 0; k < n; ++k) d[k] = s[-k];
    } else {
      for (int64_t k = 0; k < n; ++k) d[k] = s[k * ss];
    }
  } else if (ss == 1) {
    for (int64_t k = 0; k < n; ++k) d[k * ds] = s[k];
  } else {
    for (int64_t k = 0; k < n; ++k) d[k * ds] = s[k * ss];
  }
}

// Copies the elements whose flat iteration index is in [first, last).
template <typename T>
void CopyRange(const T* src, T* dst, const Plan& p, int64_t first,
               int64_t last) {
  const int rank = static_cast<int>(p.dims.size());
  const int64_t inner = p.dims[rank - 1];
  const int64_t s_in = p.src_strides[rank - 1];
  const int64_t d_in = p.dst_strides[rank - 1];
  Dims idx(rank - 1, 0);
  int64_t so = p.src_offset;
  int64_t dof = p.dst_offset;
  int64_t row = first / inner;
  int64_t j = first % inner;
  for (int d = rank - 2; d >= 0; --d) {
    idx[d] = row % p.dims[d];
    row /= p.dims[d];
    so += idx[d] * p.src_strides[d];
    dof += idx[d] * p.dst_strides[d];
  }
  while (first < last) {
    const int64_t n = std::min(inner - j, last - first);
    CopyRun(src + so + j * s_in, s_in, dst + dof + j * d_in, d_in, n);
    first += n;
    j = 0;
    for (int d = rank - 2; d >= 0; --d) {
      so += p.src_strides[d];
      dof += p.dst_strides[d];
      if (++idx[d] < p.dims[d]) break;
      so -= p.dims[d] * p.src_strides[d];
      dof -= p.dims[d] * p.dst_strides[d];
      idx[d] = 0;
    }
  }
}

template <typename T>
void RunPlan(const Device& device, const void* src, void* dst, const Plan& p) {
  const T* s = static_cast<const T*>(src);
  T* d = static_cast<T*>(dst);
  const double bytes = std::is_trivially_copyable_v<T> ? sizeof(T) : 64;
  ParallelFor(
      device, p.total, Eigen::TensorOpCost(bytes, bytes, 1),
      [&](int64_t first, int64_t last) { CopyRange(s, d, p, first, last); });
}

}  // namespace

absl::StatusOr<std::vector<int64_t>> ReadIndexVector(const Tensor& t) {
  std::vector<int64_t> out;
  out.reserve(static_cast<size_t>(t.NumElements()));
  switch (t.dtype()) {
    case DT_INT8:
      for (int8_t v : t.span<int8_t>()) out.push_back(v);
      break;
    case DT_INT16:
      for (int16_t v : t.span<int16_t>()) out.push_back(v);
      break;
    case DT_INT32:
      for (int32_t v : t.span<int32_t>()) out.push_back(v);
      break;
    case DT_INT64:
      for (int64_t v : t.span<int64_t>()) out.push_back(v);
      break;
    default:
      return absl::InvalidArgumentError(absl::StrCat(
          "expected an integer index tensor, got ", DataTypeString(t.dtype())));
  }
  return out;
}

std::vector<int64_t> RowMajorStrides(const TensorShape& shape) {
  std::vector<int64_t> strides(shape.dims());
  int64_t s = 1;
  for (int d = shape.dims() - 1; d >= 0; --d) {
    strides[d] = s;
    s *= shape.dim_size(d);
  }
  return strides;
}

StridedCopySpec SimplifiedStridedCopy(const StridedCopySpec& spec) {
  const Plan p = Simplify(spec);
  StridedCopySpec out;
  out.dims.assign(p.dims.begin(), p.dims.end());
  out.src_strides.assign(p.src_strides.begin(), p.src_strides.end());
  out.dst_strides.assign(p.dst_strides.begin(), p.dst_strides.end());
  out.src_offset = p.src_offset;
  out.dst_offset = p.dst_offset;
  if (p.total == 0) {  // nothing to copy
    out.dims.assign(1, 0);
    out.src_strides.assign(1, 1);
    out.dst_strides.assign(1, 1);
  }
  return out;
}

void StridedCopy(const Device& device, const Tensor& src, Tensor* dst,
                 StridedCopySpec spec) {
  DFX_CHECK(src.dtype() == dst->dtype());
  DFX_CHECK(spec.dims.size() == spec.src_strides.size() &&
            spec.dims.size() == spec.dst_strides.size());
  const Plan plan = Simplify(spec);
  if (plan.total == 0) return;
  const void* s = src.raw_data();
  void* d = dst->raw_data();
  VisitMovableType(src.dtype(),
                   [&]<typename T>() { RunPlan<T>(device, s, d, plan); });
}

void RunIndexPlan(OpKernelContext* ctx, const Tensor& source, IndexPlan plan) {
  if (plan.kind == IndexPlan::Kind::kForward ||
      plan.kind == IndexPlan::Kind::kRows) {
    const Tensor base =
        plan.kind == IndexPlan::Kind::kForward
            ? source
            : source.Slice(plan.row_begin, plan.row_begin + plan.rows);
    absl::StatusOr<Tensor> view = base.Reshaped(plan.shape);
    DFX_OP_REQUIRES_OK(ctx, view.status());
    ctx->set_output(0, *std::move(view));
    return;
  }
  Tensor* out = nullptr;
  DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, plan.shape, &out));
  if (plan.zero_first) SetZero(*ctx->device(), out);
  if (out->NumElements() == 0 || source.NumElements() == 0) return;
  StridedCopy(*ctx->device(), source, out, std::move(plan.copy));
}

void SetZero(const Device& device, Tensor* t) {
  const int64_t n = t->NumElements();
  if (t->dtype() == DT_STRING) {
    std::string* s = t->data<std::string>();
    for (int64_t i = 0; i < n; ++i) s[i].clear();
    return;
  }
  const int64_t size = DataTypeSize(t->dtype());
  char* base = static_cast<char*>(t->raw_data());
  ParallelFor(device, n * size, Eigen::TensorOpCost(0, 1, 0),
              [&](int64_t first, int64_t last) {
                std::memset(base + first, 0, static_cast<size_t>(last - first));
              });
}

}  // namespace dfx::array_internal

#include "kernels/state/update_functors.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "base/tsan.h"
#include "kernels/eigen_util.h"

namespace dfx {
namespace {

template <typename T>
inline void Apply(UpdateOp op, T* dst, const T* src, int64_t n,
                  bool scalar_src) {
  auto loop = [&](auto fn) {
    if (scalar_src) {
      const T s = *src;
      for (int64_t i = 0; i < n; ++i) dst[i] = fn(dst[i], s);
    } else {
      for (int64_t i = 0; i < n; ++i) dst[i] = fn(dst[i], src[i]);
    }
  };
  switch (op) {
    case UpdateOp::kAssign: loop([](T, T b) { return b; }); break;
    case UpdateOp::kAdd: loop([](T a, T b) { return T(a + b); }); break;
    case UpdateOp::kSub: loop([](T a, T b) { return T(a - b); }); break;
    case UpdateOp::kMul: loop([](T a, T b) { return T(a * b); }); break;
    case UpdateOp::kDiv: loop([](T a, T b) { return T(a / b); }); break;
    case UpdateOp::kMin:
      loop([](T a, T b) { return b < a ? b : a; });
      break;
    case UpdateOp::kMax:
      loop([](T a, T b) { return a < b ? b : a; });
      break;
  }
}

// Calls fn.template operator()<T>() for the arithmetic types updates support.
template <typename Fn>
bool VisitUpdateType(DataType dtype, Fn&& fn) {
  if (dtype == DT_BOOL) return false;
  return VisitNumericType(dtype, std::forward<Fn>(fn));
}

absl::Status NoArithmetic(UpdateOp op, DataType dtype) {
  return absl::UnimplementedError(absl::StrCat(UpdateOpName(op), " of ",
                                               DataTypeString(dtype),
                                               " tensors is not supported"));
}

template <typename Index>
absl::Status ScatterRows(UpdateOp op, const Index* idx, int64_t n,
                         const Tensor& updates, bool scalar, Tensor* params) {
  const int64_t rows = params->dim_size(0);
  for (int64_t i = 0; i < n; ++i) {
    if (idx[i] < 0 || idx[i] >= rows) {
      return absl::InvalidArgumentError(absl::StrCat(
          "indices[", i, "] = ", idx[i], " is not in [0, ", rows, ")"));
    }
  }
  const int64_t row = rows == 0 ? 0 : params->NumElements() / rows;
  const DataType dtype = params->dtype();
  if (op == UpdateOp::kAssign && DataTypeCanMemcpy(dtype) && !scalar) {
    const size_t bytes = static_cast<size_t>(row) * DataTypeSize(dtype);
    char* dst = static_cast<char*>(params->raw_data());
    const char* src = static_cast<const char*>(updates.raw_data());
    for (int64_t i = 0; i < n; ++i) {
      std::memcpy(dst + idx[i] * bytes, src + i * bytes, bytes);
    }
    return absl::OkStatus();
  }
  if (dtype == DT_STRING && op == UpdateOp::kAssign) {
    std::string* dst = params->data<std::string>();
    const std::string* src = updates.data<std::string>();
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < row; ++j) {
        dst[idx[i] * row + j] = src[scalar ? 0 : i * row + j];
      }
    }
    return absl::OkStatus();
  }
  bool ok = false;
  if (op == UpdateOp::kAssign) {
    ok = VisitNumericType(dtype, [&]<typename T>() {
      T* dst = params->data<T>();
      const T* src = updates.data<T>();
      for (int64_t i = 0; i < n; ++i) Apply<T>(op, dst + idx[i] * row, src, row, true);
    });
  } else {
    ok = VisitUpdateType(dtype, [&]<typename T>() {
      T* dst = params->data<T>();
      const T* src = updates.data<T>();
      for (int64_t i = 0; i < n; ++i) {
        Apply<T>(op, dst + idx[i] * row, scalar ? src : src + i * row, row,
                 scalar);
      }
    });
  }
  return ok ? absl::OkStatus() : NoArithmetic(op, dtype);
}

}  // namespace

const char* UpdateOpName(UpdateOp op) {
  switch (op) {
    case UpdateOp::kAssign: return "ScatterUpdate";
    case UpdateOp::kAdd: return "ScatterAdd";
    case UpdateOp::kSub: return "ScatterSub";
    case UpdateOp::kMul: return "ScatterMul";
    case UpdateOp::kDiv: return "ScatterDiv";
    case UpdateOp::kMin: return "ScatterMin";
    case UpdateOp::kMax: return "ScatterMax";
  }
  return "Scatter";
}

absl::Status DenseUpdate(const Device& device, UpdateOp op, const Tensor& src,
                         Tensor* dst, bool hogwild) {
  if (src.shape() != dst->shape()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Cannot update variable with shape ", dst->shape().DebugString(),
        " using a Tensor with shape ", src.shape().DebugString(),
        ", shapes must be equal."));
  }
  const int64_t n = dst->NumElements();
  const bool ok = VisitUpdateType(dst->dtype(), [&]<typename T>() {
    T* d = dst->data<T>();
    const T* s = src.data<T>();
    // Large variables split over the intra-op pool; blocks are disjoint.
    ParallelFor(device, n, Eigen::TensorOpCost(2 * sizeof(T), sizeof(T), 1),
                [&](int64_t begin, int64_t end) {
                  ScopedTsanIgnoreAccesses ignore(hogwild);
                  Apply<T>(op, d + begin, s + begin, end - begin, false);
                });
  });
  return ok ? absl::OkStatus() : NoArithmetic(op, dst->dtype());
}

absl::Status ScatterUpdate(UpdateOp op, const Tensor& indices,
                           const Tensor& updates, bool allow_scalar_updates,
                           Tensor* params) {
  if (params->dims() < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        UpdateOpName(op), " needs a variable of rank >= 1, got shape ",
        params->shape().DebugString()));
  }
  if (updates.dtype() != params->dtype()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "updates are ", DataTypeString(updates.dtype()),
        ", but the variable is ", DataTypeString(params->dtype())));
  }
  const bool scalar = allow_scalar_updates && updates.dims() == 0;
  if (!scalar) {
    TensorShape want = indices.shape();
    for (int d = 1; d < params->dims(); ++d) {
      absl::Status s = want.AddDim(params->dim_size(d));
      if (!s.ok()) return s;
    }
    if (updates.shape() != want) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Must have updates.shape = indices.shape + params.shape[1:] or "
          "updates.shape = [], got updates.shape ",
          updates.shape().DebugString(), ", indices.shape ",
          indices.shape().DebugString(), ", params.shape ",
          params->shape().DebugString()));
    }
  }
  const int64_t n = indices.NumElements();
  if (indices.dtype() == DT_INT32) {
    return ScatterRows(op, indices.data<int32_t>(), n, updates, scalar,
                       params);
  }
  if (indices.dtype() == DT_INT64) {
    return ScatterRows(op, indices.data<int64_t>(), n, updates, scalar,
                       params);
  }
  return absl::InvalidArgumentError(
      absl::StrCat("indices must be int32 or int64, got ",
                   DataTypeString(indices.dtype())));
}

}  // namespace dfx

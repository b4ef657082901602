// LowerBound and UpperBound (tf.searchsorted: per row, the insertion point
// of each value in a sorted row) and UnravelIndex (flat indices to
// coordinates), as TensorFlow 2.21's CPU kernels compute them.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/array/array_util.h"
#include "kernels/array/gather_util.h"

namespace dfx::array_internal {
namespace {

using gather_internal::RealTypes;
using gather_internal::VisitRealType;

template <typename O>
void StoreIndex(Tensor* out, int64_t i, int64_t v) {
  out->data<O>()[i] = static_cast<O>(v);
}

// kUpper: UpperBound (first element > value), else LowerBound (first
// element >= value).
template <bool kUpper>
class SearchSortedOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& sorted = ctx->input(0);
    const Tensor& values = ctx->input(1);
    DFX_OP_REQUIRES(ctx, sorted.dims() == 2 && values.dims() == 2,
                    absl::InvalidArgumentError(absl::StrCat(
                        "sorted_inputs and values must be matrices, got "
                        "shapes ",
                        sorted.shape().DebugString(), " and ",
                        values.shape().DebugString())));
    DFX_OP_REQUIRES(ctx, sorted.dim_size(0) == values.dim_size(0),
                    absl::InvalidArgumentError(
                        "Leading dim_size of both tensors must match."));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, values.shape(), &out));
    const int64_t rows = values.dim_size(0);
    const int64_t n = sorted.dim_size(1);
    const int64_t m = values.dim_size(1);
    const bool int64_out = out->dtype() == DT_INT64;
    const bool known = VisitRealType(sorted.dtype(), [&]<typename T>() {
      const T* s = sorted.data<T>();
      const T* v = values.data<T>();
      for (int64_t r = 0; r < rows; ++r) {
        const T* first = s + r * n;
        for (int64_t j = 0; j < m; ++j) {
          const T& x = v[r * m + j];
          const T* at = kUpper ? std::upper_bound(first, first + n, x)
                               : std::lower_bound(first, first + n, x);
          const int64_t pos = at - first;
          if (int64_out) {
            StoreIndex<int64_t>(out, r * m + j, pos);
          } else {
            StoreIndex<int32_t>(out, r * m + j, pos);
          }
        }
      }
    });
    DFX_CHECK(known);
  }
};

class UnravelIndexOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& indices = ctx->input(0);
    const Tensor& dims_t = ctx->input(1);
    DFX_OP_REQUIRES(ctx, indices.dims() <= 1,
                    absl::InvalidArgumentError(absl::StrCat(
                        "The indices can only be scalar or vector, got \"",
                        indices.shape().DebugString(), "\"")));
    DFX_OP_REQUIRES(ctx, dims_t.dims() == 1,
                    absl::InvalidArgumentError(absl::StrCat(
                        "The indices can only be 1-D, got \"",
                        dims_t.shape().DebugString(), "\"")));
    const bool i64 = indices.dtype() == DT_INT64;
    auto at = [i64](const Tensor& t, int64_t i) -> int64_t {
      return i64 ? t.data<int64_t>()[i] : t.data<int32_t>()[i];
    };
    DFX_OP_REQUIRES(ctx, indices.NumElements() > 0,
                    absl::InvalidArgumentError(absl::StrCat(
                        "received empty tensor indices of shape ",
                        indices.shape().DebugString())));
    const int64_t rank = dims_t.NumElements();
    std::vector<int64_t> dims(rank);
    int64_t product = 1;
    for (int64_t d = 0; d < rank; ++d) {
      dims[d] = at(dims_t, d);
      DFX_OP_REQUIRES(ctx, dims[d] != 0,
                      absl::InvalidArgumentError(absl::StrCat(
                          "Input dims cannot contain a dim of zero, but dims "
                          "contains zero at index ",
                          d)));
      DFX_OP_REQUIRES(ctx, dims[d] > 0,
                      absl::InvalidArgumentError(absl::StrCat(
                          "Input dims must be positive, but dims[", d,
                          "] is ", dims[d])));
      DFX_OP_REQUIRES(
          ctx, !__builtin_mul_overflow(product, dims[d], &product),
          absl::InvalidArgumentError(
              "Input dims product is causing integer overflow"));
    }
    const int64_t n = indices.NumElements();
    // As TensorFlow: only indices past the end are refused; a negative one
    // unravels with C++'s truncating division (-1 in [2, 3] is [0, -1]).
    for (int64_t i = 0; i < n; ++i) {
      DFX_OP_REQUIRES(ctx, at(indices, i) < product,
                      absl::InvalidArgumentError(
                          "index is out of bound as with dims"));
    }
    TensorShape out_shape({rank});
    if (indices.dims() == 1) DFX_OP_REQUIRES_OK(ctx, out_shape.AddDim(n));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    // Output [rank, n]: row d holds every index's coordinate d.
    for (int64_t i = 0; i < n; ++i) {
      int64_t rest = at(indices, i);
      for (int64_t d = rank - 1; d >= 0; --d) {
        const int64_t c = rest % dims[d];
        rest /= dims[d];
        if (i64) {
          StoreIndex<int64_t>(out, d * n + i, c);
        } else {
          StoreIndex<int32_t>(out, d * n + i, c);
        }
      }
    }
  }
};

}  // namespace

void RegisterSearchKernels(KernelRegistry* registry) {
  RegisterKernel<SearchSortedOp<false>>(
      registry, KernelDefBuilder("LowerBound")
                    .TypeConstraint("T", RealTypes())
                    .TypeConstraint("out_type", {DT_INT32, DT_INT64}));
  RegisterKernel<SearchSortedOp<true>>(
      registry, KernelDefBuilder("UpperBound")
                    .TypeConstraint("T", RealTypes())
                    .TypeConstraint("out_type", {DT_INT32, DT_INT64}));
  RegisterKernel<UnravelIndexOp>(
      registry, KernelDefBuilder("UnravelIndex")
                    .TypeConstraint("Tidx", {DT_INT32, DT_INT64}));
}

}  // namespace dfx::array_internal

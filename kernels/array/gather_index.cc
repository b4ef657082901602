// Unique, InvertPermutation and BroadcastGradientArgs.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/array/array_util.h"
#include "kernels/array/gather_util.h"

namespace dfx::gather_internal {
namespace {

// Unique over keys of type K: key(i) gives element i's key, or nullopt-like
// `false` from has_key for elements equal to nothing (NaN). Writes into
// `first` the position of each unique value's first occurrence and into
// `ids` each element's unique id.
template <typename K, typename KeyFn, typename HasKeyFn>
void UniqueIds(int64_t n, KeyFn key, HasKeyFn has_key,
               std::vector<int64_t>* first, std::vector<int64_t>* ids) {
  absl::flat_hash_map<K, int64_t> seen;
  seen.reserve(static_cast<size_t>(std::min<int64_t>(n, 1 << 20)));
  ids->resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    if (!has_key(i)) {
      (*ids)[i] = static_cast<int64_t>(first->size());
      first->push_back(i);
      continue;
    }
    auto [it, inserted] =
        seen.try_emplace(key(i), static_cast<int64_t>(first->size()));
    if (inserted) first->push_back(i);
    (*ids)[i] = it->second;
  }
}

// The bits of a floating value with -0 folded into +0, so that the two
// compare equal as TensorFlow's hash map of values does.
template <typename T, typename Bits>
Bits FloatKey(T v) {
  if (v == T(0)) v = T(0);
  Bits bits;
  std::memcpy(&bits, &v, sizeof(bits));
  return bits;
}

class UniqueOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    DFX_OP_REQUIRES(ctx, x.dims() == 1,
                    absl::InvalidArgumentError(
                        "unique expects a 1D vector."));
    const int64_t n = x.NumElements();
    DFX_OP_REQUIRES(
        ctx, output_type(1) != DT_INT32 || n <= INT32_MAX,
        absl::InvalidArgumentError(
            "unique does not support input tensors larger than 2^31-1 "
            "elements with int32 indices"));
    std::vector<int64_t> first;
    std::vector<int64_t> ids;
    auto always = [](int64_t) { return true; };
    switch (x.dtype()) {
      case DT_STRING: {
        const std::string* v = x.data<std::string>();
        UniqueIds<std::string_view>(
            n, [v](int64_t i) { return std::string_view(v[i]); }, always,
            &first, &ids);
        break;
      }
      case DT_FLOAT:
        FloatUnique<float, uint32_t>(x, &first, &ids);
        break;
      case DT_DOUBLE:
        FloatUnique<double, uint64_t>(x, &first, &ids);
        break;
      case DT_HALF:
        FloatUnique<Eigen::half, uint16_t>(x, &first, &ids);
        break;
      case DT_BFLOAT16:
        FloatUnique<Eigen::bfloat16, uint16_t>(x, &first, &ids);
        break;
      default:
        VisitMoveType(x.dtype(), [&]<typename E>() {
          if constexpr (std::is_integral_v<E>) {
            const E* v = MoveData<E>(x);
            UniqueIds<E>(n, [v](int64_t i) { return v[i]; }, always, &first,
                         &ids);
          }
        });
    }
    const int64_t num_unique = static_cast<int64_t>(first.size());
    Tensor* y = nullptr;
    Tensor* idx = nullptr;
    DFX_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(0, TensorShape({num_unique}), &y));
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(1, x.shape(), &idx));
    VisitMoveType(x.dtype(), [&]<typename E>() {
      const E* src = MoveData<E>(x);
      E* dst = MoveData<E>(y);
      for (int64_t u = 0; u < num_unique; ++u) dst[u] = src[first[u]];
    });
    if (idx->dtype() == DT_INT32) {
      int32_t* out = idx->data<int32_t>();
      for (int64_t i = 0; i < n; ++i) out[i] = static_cast<int32_t>(ids[i]);
    } else {
      std::copy(ids.begin(), ids.end(), idx->data<int64_t>());
    }
  }

 private:
  template <typename T, typename Bits>
  static void FloatUnique(const Tensor& x, std::vector<int64_t>* first,
                          std::vector<int64_t>* ids) {
    const T* v = x.data<T>();
    UniqueIds<Bits>(
        x.NumElements(),
        [v](int64_t i) { return FloatKey<T, Bits>(v[i]); },
        [v](int64_t i) { return !Eigen::numext::isnan(v[i]); }, first, ids);
  }
};

class InvertPermutationOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    DFX_OP_REQUIRES(ctx, x.dims() == 1,
                    absl::InvalidArgumentError(
                        "invert_permutation expects a 1D vector."));
    const int64_t n = x.NumElements();
    DFX_OP_REQUIRES(
        ctx, x.dtype() != DT_INT32 || n <= INT32_MAX,
        absl::InvalidArgumentError("permutation of nonnegative int32s must "
                                   "have <= int32 max elements"));
    Tensor* y = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &y));
    VisitIndexType(x.dtype(), [&]<typename T>() {
      const T* in = x.data<T>();
      T* out = y->data<T>();
      std::fill(out, out + n, T(-1));
      for (int64_t i = 0; i < n; ++i) {
        const int64_t d = static_cast<int64_t>(in[i]);
        DFX_OP_REQUIRES(ctx, d >= 0 && d < n,
                        absl::InvalidArgumentError(absl::StrCat(
                            d, " is not between 0 and ", n)));
        DFX_OP_REQUIRES(ctx, out[d] == T(-1),
                        absl::InvalidArgumentError(absl::StrCat(
                            d, " is duplicated in the input.")));
        out[d] = static_cast<T>(i);
      }
    });
  }
};

class BroadcastGradientArgsOp : public OpKernel {
 public:
  explicit BroadcastGradientArgsOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    set_expensive(false);
  }

  void Compute(OpKernelContext* ctx) override {
    std::vector<int64_t> shapes[2];
    for (int i = 0; i < 2; ++i) {
      const Tensor& s = ctx->input(i);
      DFX_OP_REQUIRES(ctx, s.dims() == 1,
                      absl::InvalidArgumentError(absl::StrCat(
                          "In[", i, "] must be a vector.",
                          s.shape().DebugString())));
      for (int64_t j = 0; j < s.NumElements(); ++j) {
        shapes[i].push_back(IntAt(s, j));
      }
    }
    std::vector<int64_t> reduce[2];
    // Equal shapes reduce nothing, even over dims of size 1 (TensorFlow's
    // fast path).
    if (shapes[0] != shapes[1]) {
      const size_t rank = std::max(shapes[0].size(), shapes[1].size());
      for (size_t j = 0; j < rank; ++j) {
        int64_t dims[2];
        for (int i = 0; i < 2; ++i) {
          const size_t pad = rank - shapes[i].size();
          dims[i] = j < pad ? 1 : shapes[i][j - pad];
        }
        DFX_OP_REQUIRES(
            ctx, dims[0] == dims[1] || dims[0] == 1 || dims[1] == 1,
            absl::InvalidArgumentError(absl::StrCat(
                "Incompatible shapes: [", absl::StrJoin(shapes[0], ","),
                "] vs. [", absl::StrJoin(shapes[1], ","), "]")));
        for (int i = 0; i < 2; ++i) {
          if (dims[i] == 1) reduce[i].push_back(static_cast<int64_t>(j));
        }
      }
    }
    for (int i = 0; i < 2; ++i) {
      Tensor* out = nullptr;
      DFX_OP_REQUIRES_OK(
          ctx, ctx->allocate_output(
                   i, TensorShape({static_cast<int64_t>(reduce[i].size())}),
                   &out));
      for (size_t j = 0; j < reduce[i].size(); ++j) {
        if (out->dtype() == DT_INT32) {
          out->data<int32_t>()[j] = static_cast<int32_t>(reduce[i][j]);
        } else {
          out->data<int64_t>()[j] = reduce[i][j];
        }
      }
    }
  }
};

}  // namespace

void RegisterIndexKernels(KernelRegistry* registry) {
  // Every movable type but complex, as TensorFlow registers it.
  DataTypeVector unique_types;
  for (DataType t : array_internal::MovableTypes()) {
    if (t != DT_COMPLEX64 && t != DT_COMPLEX128) unique_types.push_back(t);
  }
  RegisterKernel<UniqueOp>(registry, KernelDefBuilder("Unique")
                                         .TypeConstraint("T", unique_types)
                                         .TypeConstraint("out_idx",
                                                         {DT_INT32, DT_INT64}));
  RegisterKernel<InvertPermutationOp>(
      registry, KernelDefBuilder("InvertPermutation")
                    .TypeConstraint("T", {DT_INT32, DT_INT64}));
  RegisterKernel<BroadcastGradientArgsOp>(
      registry, KernelDefBuilder("BroadcastGradientArgs")
                    .TypeConstraint("T", {DT_INT32, DT_INT64}));
}

}  // namespace dfx::gather_internal

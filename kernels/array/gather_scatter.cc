// ScatterNd and TensorScatterUpdate/Add/Sub/Min/Max: write slices of
// `updates` into a zero tensor of a given shape, or into a copy of `tensor`,
// at the slices index tuples name. ScatterNdInPlace (nd_index.h) serves the
// variable forms (ScatterNdAdd, ResourceScatterNdUpdate, ...) too.
//
// Index tuples are turned into slice offsets before anything is written; an
// update stops before the first tuple outside the tensor (those before it
// are applied, as in TensorFlow, which only a variable's update shows: the
// other ops drop their output on the error). The writes are split over the columns of a slice: every task
// applies all updates, in order, to its own columns, so duplicate indices
// never race, an add sums duplicates in index order and an assignment keeps
// the last one, whatever the number of threads.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "kernels/array/array_util.h"
#include "kernels/array/gather_util.h"
#include "kernels/array/nd_index.h"

namespace dfx::gather_internal {
namespace {

// out[offsets[i] + c] (op)= updates[i * slice + c] for every i with
// offsets[i] >= 0 and c in [0, slice).
template <typename T, ScatterNdMode kOp>
void ApplyUpdates(const Device& device, const std::vector<int64_t>& offsets,
                  const T* updates, T* out, int64_t slice) {
  const int64_t n = static_cast<int64_t>(offsets.size());
  ParallelForWork(
      device, slice, n * static_cast<int64_t>(sizeof(T)),
      [&](int64_t first, int64_t last) {
        for (int64_t i = 0; i < n; ++i) {
          if (offsets[i] < 0) continue;
          T* dst = out + offsets[i];
          const T* src = updates + i * slice;
          for (int64_t c = first; c < last; ++c) {
            if constexpr (kOp == ScatterNdMode::kAssign) {
              dst[c] = src[c];
            } else if constexpr (std::is_same_v<T, bool>) {
              // C++'s bool arithmetic, as TensorFlow's functors do it.
              dst[c] = kOp == ScatterNdMode::kAdd ? (dst[c] || src[c])
                                                : (dst[c] != src[c]);
            } else if constexpr (kOp == ScatterNdMode::kAdd) {
              dst[c] += src[c];
            } else if constexpr (kOp == ScatterNdMode::kSub) {
              dst[c] -= src[c];
            } else if constexpr (kOp == ScatterNdMode::kMin) {
              if (src[c] < dst[c]) dst[c] = src[c];
            } else {
              if (dst[c] < src[c]) dst[c] = src[c];
            }
          }
        }
      });
}

// TensorFlow's rule for empty tensors: indices and updates both empty, or
// all three of (output, indices, updates) non-empty.
bool ValidEmptyOutputShape(int64_t num_output, int64_t num_indices,
                           int64_t num_updates) {
  if (num_indices == 0 && num_updates == 0) return true;
  return num_output != 0 && num_indices != 0 && num_updates != 0;
}

template <ScatterNdMode kOp>
absl::Status ApplyOp(const Device& device, const std::vector<int64_t>& offsets,
                     const Tensor& updates, Tensor* out, int64_t slice) {
  const DataType dtype = out->dtype();
  bool handled = false;
  if constexpr (kOp == ScatterNdMode::kAssign) {
    handled = VisitMoveType(dtype, [&]<typename E>() {
      ApplyUpdates<E, kOp>(device, offsets, MoveData<E>(updates),
                           MoveData<E>(out), slice);
    });
  } else if constexpr (kOp == ScatterNdMode::kMin || kOp == ScatterNdMode::kMax) {
    handled = VisitRealType(dtype, [&]<typename T>() {
      ApplyUpdates<T, kOp>(device, offsets, updates.data<T>(), out->data<T>(),
                           slice);
    });
  } else {
    handled = VisitNumberType(dtype, [&]<typename T>() {
      ApplyUpdates<T, kOp>(device, offsets, updates.data<T>(), out->data<T>(),
                           slice);
    });
    if (dtype == DT_BOOL) {
      ApplyUpdates<bool, kOp>(device, offsets, updates.data<bool>(),
                              out->data<bool>(), slice);
      handled = true;
    }
    if constexpr (kOp == ScatterNdMode::kAdd) {
      if (dtype == DT_STRING) {  // ScatterNd of strings concatenates
        ApplyUpdates<std::string, kOp>(device, offsets,
                                       updates.data<std::string>(),
                                       out->data<std::string>(), slice);
        handled = true;
      }
    }
  }
  if (!handled) {
    return absl::InternalError(
        absl::StrCat("no scatter for dtype ", DataTypeString(dtype)));
  }
  return absl::OkStatus();
}

absl::Status CheckRanks(const Tensor& indices, const Tensor& updates) {
  if (indices.dims() < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Indices shape must have rank at least one. Found:",
        indices.shape().DebugString()));
  }
  if (updates.dims() < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Updates shape must have rank at least one. Found:",
        updates.shape().DebugString()));
  }
  return absl::OkStatus();
}

class ScatterNdOp : public OpKernel {
 public:
  explicit ScatterNdOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), ignore_bad_(IgnoreBadIndices(ctx)) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& indices = ctx->input(0);
    const Tensor& updates = ctx->input(1);
    const Tensor& shape_t = ctx->input(2);
    DFX_OP_REQUIRES_OK(ctx, CheckRanks(indices, updates));
    TensorShape shape;
    for (int64_t i = 0; i < shape_t.NumElements(); ++i) {
      const int64_t d = IntAt(shape_t, i);
      DFX_OP_REQUIRES(ctx, d >= 0,
                      absl::InvalidArgumentError(
                          absl::StrCat("Dimension ", d, " must be >= 0")));
      DFX_OP_REQUIRES_OK(ctx, shape.AddDim(d));
    }
    DFX_OP_REQUIRES(
        ctx,
        ValidEmptyOutputShape(shape_t.NumElements(), indices.NumElements(),
                              updates.NumElements()),
        absl::InvalidArgumentError(
            "Indices and updates specified for empty output shape"));
    const int outer = indices.dims() - 1;
    bool outer_ok = updates.dims() >= outer;
    for (int i = 0; outer_ok && i < outer; ++i) {
      outer_ok = indices.dim_size(i) == updates.dim_size(i);
    }
    DFX_OP_REQUIRES(
        ctx, outer_ok,
        absl::InvalidArgumentError(absl::StrCat(
            "Dimensions [0,", outer, ") of indices[shape=",
            indices.shape().DebugString(), "] must match dimensions [0,",
            outer, ") of updates[shape=", updates.shape().DebugString(),
            "]")));
    const int64_t ix = indices.dim_size(outer);
    bool inner_ok = updates.dims() - outer == shape.dims() - ix;
    for (int i = 0; inner_ok && i + outer < updates.dims(); ++i) {
      inner_ok = updates.dim_size(i + outer) ==
                 shape.dim_size(static_cast<int>(ix) + i);
    }
    DFX_OP_REQUIRES(
        ctx, inner_ok,
        absl::InvalidArgumentError(absl::StrCat(
            "Dimensions [", ix, ",", shape.dims(), ") of input[shape=",
            shape.DebugString(), "] must match dimensions [", outer, ",",
            updates.dims(), ") of updates[shape=",
            updates.shape().DebugString(), "]")));
    DFX_OP_REQUIRES(ctx, shape_t.dims() == 1,
                    absl::InvalidArgumentError("Shape must be a vector"));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    SetZero(out);
    DFX_OP_REQUIRES_OK(ctx, ScatterNdInPlace(ctx, ScatterNdMode::kAdd, indices, updates,
                                             ignore_bad_, out));
  }

 private:
  const bool ignore_bad_;
};

template <ScatterNdMode kOp>
class TensorScatterOp : public OpKernel {
 public:
  explicit TensorScatterOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), ignore_bad_(IgnoreBadIndices(ctx)) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& indices = ctx->input(1);
    const Tensor& updates = ctx->input(2);
    DFX_OP_REQUIRES_OK(ctx, CheckRanks(indices, updates));
    const TensorShape& shape = input.shape();
    DFX_OP_REQUIRES(
        ctx,
        ValidEmptyOutputShape(shape.num_elements(), indices.NumElements(),
                              updates.NumElements()),
        absl::InvalidArgumentError(
            "Indices and updates specified for empty output shape"));
    const int outer = indices.dims() - 1;
    bool outer_ok = updates.dims() >= outer;
    for (int i = 0; outer_ok && i < outer; ++i) {
      outer_ok = indices.dim_size(i) == updates.dim_size(i);
    }
    DFX_OP_REQUIRES(
        ctx, outer_ok,
        absl::InvalidArgumentError(absl::StrCat(
            "Outer dimensions of indices and update must match. Indices "
            "shape: ",
            indices.shape().DebugString(),
            ", updates shape:", updates.shape().DebugString())));
    const int64_t ix = indices.dim_size(outer);
    DFX_OP_REQUIRES(
        ctx, updates.dims() - outer == shape.dims() - ix,
        absl::InvalidArgumentError(absl::StrCat(
            "Inner dimensions of output shape must match inner dimensions of "
            "updates shape. Output: ",
            shape.DebugString(), " updates: ",
            updates.shape().DebugString())));
    for (int i = 0; i + outer < updates.dims(); ++i) {
      DFX_OP_REQUIRES(
          ctx,
          updates.dim_size(i + outer) ==
              shape.dim_size(static_cast<int>(ix) + i),
          absl::InvalidArgumentError(absl::StrCat(
              "The inner ", shape.dims() - ix,
              " dimensions of output.shape=", shape.DebugString(),
              " must match the inner ", updates.dims() - outer,
              " dimensions of updates.shape=",
              updates.shape().DebugString())));
    }
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    VisitMoveType(input.dtype(), [&]<typename E>() {
      const E* src = MoveData<E>(input);
      E* dst = MoveData<E>(out);
      ParallelForWork(*ctx->device(), input.NumElements(), sizeof(E),
                      [&](int64_t first, int64_t last) {
                        MoveElements(src + first, dst + first, last - first);
                      });
    });
    DFX_OP_REQUIRES_OK(
        ctx, ScatterNdInPlace(ctx, kOp, indices, updates, ignore_bad_, out));
  }

 private:
  const bool ignore_bad_;
};

}  // namespace

void RegisterScatterKernels(KernelRegistry* registry) {
  DataTypeVector scatter_nd_types = NumberTypes();
  scatter_nd_types.push_back(DT_BOOL);
  scatter_nd_types.push_back(DT_STRING);
  RegisterKernel<ScatterNdOp>(
      registry, KernelDefBuilder("ScatterNd")
                    .TypeConstraint("T", scatter_nd_types)
                    .TypeConstraint("Tindices", {DT_INT32, DT_INT64}));
  RegisterKernel<TensorScatterOp<ScatterNdMode::kAssign>>(
      registry, KernelDefBuilder("TensorScatterUpdate")
                    .TypeConstraint("T", array_internal::MovableTypes())
                    .TypeConstraint("Tindices", {DT_INT32, DT_INT64}));
  RegisterKernel<TensorScatterOp<ScatterNdMode::kAdd>>(
      registry, KernelDefBuilder("TensorScatterAdd")
                    .TypeConstraint("T", NumberTypes())
                    .TypeConstraint("Tindices", {DT_INT32, DT_INT64}));
  RegisterKernel<TensorScatterOp<ScatterNdMode::kSub>>(
      registry, KernelDefBuilder("TensorScatterSub")
                    .TypeConstraint("T", NumberTypes())
                    .TypeConstraint("Tindices", {DT_INT32, DT_INT64}));
  RegisterKernel<TensorScatterOp<ScatterNdMode::kMin>>(
      registry, KernelDefBuilder("TensorScatterMin")
                    .TypeConstraint("T", RealTypes())
                    .TypeConstraint("Tindices", {DT_INT32, DT_INT64}));
  RegisterKernel<TensorScatterOp<ScatterNdMode::kMax>>(
      registry, KernelDefBuilder("TensorScatterMax")
                    .TypeConstraint("T", RealTypes())
                    .TypeConstraint("Tindices", {DT_INT32, DT_INT64}));
}

}  // namespace dfx::gather_internal

namespace dfx {

bool IgnoreBadIndices(OpKernelConstruction* ctx) {
  std::string policy;
  if (FindNodeAttr(ctx->def(), "bad_indices_policy") != nullptr) {
    ctx->SetStatus(ctx->GetAttr("bad_indices_policy", &policy));
  }
  if (!policy.empty() && policy != "DEFAULT" && policy != "ERROR" &&
      policy != "IGNORE") {
    ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
        "bad_indices_policy must be '', 'DEFAULT', 'ERROR' or 'IGNORE', got '",
        policy, "'")));
  }
  return policy == "IGNORE";
}

namespace {

absl::Status ApplyScatter(const Device& device, ScatterNdMode op,
                          const std::vector<int64_t>& offsets,
                          const Tensor& updates, int64_t slice, Tensor* out) {
  using gather_internal::ApplyOp;
  switch (op) {
    case ScatterNdMode::kAssign:
      return ApplyOp<ScatterNdMode::kAssign>(device, offsets, updates, out,
                                             slice);
    case ScatterNdMode::kAdd:
      return ApplyOp<ScatterNdMode::kAdd>(device, offsets, updates, out,
                                          slice);
    case ScatterNdMode::kSub:
      return ApplyOp<ScatterNdMode::kSub>(device, offsets, updates, out,
                                          slice);
    case ScatterNdMode::kMin:
      return ApplyOp<ScatterNdMode::kMin>(device, offsets, updates, out,
                                          slice);
    case ScatterNdMode::kMax:
      return ApplyOp<ScatterNdMode::kMax>(device, offsets, updates, out,
                                          slice);
  }
  return absl::InternalError("unknown ScatterNdMode");
}

}  // namespace

absl::Status ScatterNdInPlace(OpKernelContext* ctx, ScatterNdMode op,
                              const Tensor& indices, const Tensor& updates,
                              bool ignore_bad, Tensor* out) {
  using namespace gather_internal;  // NOLINT: this file's own helpers
  if (out->dims() < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Output must be at least 1-D, got shape: ",
        out->shape().DebugString()));
  }
  if (out->NumElements() == 0) return absl::OkStatus();
  const int64_t k = indices.dim_size(indices.dims() - 1);
  if (k < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Only indices.shape[-1] values between 1 and ", out->dims(),
        " are currently supported.  Requested rank: ", k));
  }
  // Bad tuples come back as -1; without ignore_bad the updates stop at
  // the first, as TensorFlow's loop does, and its error is returned.
  absl::StatusOr<std::vector<int64_t>> offsets =
      SliceOffsets(indices, out->shape(), /*ignore_bad=*/true,
                   /*gather_style=*/false);
  if (!offsets.ok()) return offsets.status();
  absl::Status bad_index;
  if (!ignore_bad) {
    const auto first_bad = std::find_if(offsets->begin(), offsets->end(),
                                        [](int64_t o) { return o < 0; });
    if (first_bad != offsets->end()) {
      offsets->erase(first_bad, offsets->end());
      bad_index = SliceOffsets(indices, out->shape(), /*ignore_bad=*/false,
                               /*gather_style=*/false)
                      .status();
    }
  }
  const int64_t slice =
      DimProduct(out->shape(), static_cast<int>(k), out->dims());
  if (offsets->empty() || slice == 0) return bad_index;
  DFX_RETURN_IF_ERROR(ApplyScatter(*ctx->device(), op, *offsets, updates,
                                   slice, out));
  return bad_index;
}

}  // namespace dfx

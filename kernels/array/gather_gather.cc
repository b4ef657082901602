// GatherV2, Gather and GatherNd: copy rows of params chosen by indices.
//
// Elements are moved as bytes (an unsigned integer of the element's size, or
// std::string), so one instantiation serves every dtype of that size. Indices
// are checked in one pass before anything is copied, so the copy loops carry
// no bounds checks; the copy is split over the output's elements, so both
// many small rows and a few large ones spread across the intra-op pool, and
// each row (or the part of one that falls in a range) is one memcpy.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "kernels/array/array_util.h"
#include "kernels/array/gather_util.h"
#include "kernels/array/nd_index.h"

namespace dfx::gather_internal {
namespace {

// Output elements [first, last) of out[batch, outer, n, inner] =
// params[batch, outer, indices[batch, n], inner] where params has
// `gather_dim` rows along the gathered axis. REQUIRES: every index in
// [0, gather_dim).
template <typename E, typename Index>
void GatherRange(const E* params, const Index* indices, E* out, int64_t outer,
                 int64_t gather_dim, int64_t n, int64_t inner, int64_t first,
                 int64_t last) {
  int64_t row = first / inner;
  int64_t col = first - row * inner;
  int64_t i = row % n;          // position among the batch's indices
  int64_t bo = row / n;         // (batch, outer) pair
  int64_t b = bo / outer;       // batch
  if (inner == 1) {
    for (int64_t o = first; o < last; ++o) {
      out[o] = params[bo * gather_dim + indices[b * n + i]];
      if (++i == n) {
        i = 0;
        ++bo;
        b = bo / outer;
      }
    }
    return;
  }
  while (first < last) {
    const int64_t len = std::min(inner - col, last - first);
    const E* src =
        params + (bo * gather_dim + indices[b * n + i]) * inner + col;
    MoveElements(src, out + first, len);
    first += len;
    col = 0;
    if (++i == n) {
      i = 0;
      ++bo;
      b = bo / outer;
    }
  }
}

// The first index outside [0, limit), or -1.
template <typename Index>
int64_t FirstBadIndex(const Index* indices, int64_t n, int64_t limit) {
  for (int64_t i = 0; i < n; ++i) {
    const int64_t v = static_cast<int64_t>(indices[i]);
    if (v < 0 || v >= limit) return i;
  }
  return -1;
}

// Gather (no axis input: axis 0) and GatherV2.
class GatherOp : public OpKernel {
 public:
  explicit GatherOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    if (FindNodeAttr(ctx->def(), "batch_dims") != nullptr) {
      ctx->SetStatus(ctx->GetAttr("batch_dims", &batch_dims_));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& params = ctx->input(0);
    const Tensor& indices = ctx->input(1);
    DFX_OP_REQUIRES(ctx, params.dims() >= 1,
                    absl::InvalidArgumentError(
                        "params must be at least 1 dimensional"));
    int64_t axis = 0;
    if (ctx->num_inputs() == 3) {
      const Tensor& axis_t = ctx->input(2);
      DFX_OP_REQUIRES(ctx, axis_t.dims() == 0,
                      absl::InvalidArgumentError("axis must be scalar"));
      axis = IntAt(axis_t, 0);
    }
    const int64_t min_rank = axis < 0 ? -axis : axis + 1;
    DFX_OP_REQUIRES(ctx, params.dims() >= min_rank,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Shape must be at least rank ", min_rank,
                        " but is rank ", params.dims())));
    if (axis < 0) axis += params.dims();

    int64_t batch_dims = batch_dims_;
    if (batch_dims != 0) {
      const int64_t irank = indices.dims();
      DFX_OP_REQUIRES(ctx, batch_dims >= -irank && batch_dims <= irank,
                      absl::InvalidArgumentError(absl::StrCat(
                          "Expected batch_dims in the range [", -irank, ", ",
                          irank, "], but got ", batch_dims)));
      if (batch_dims < 0) batch_dims += irank;
      DFX_OP_REQUIRES(ctx, batch_dims < params.dims(),
                      absl::InvalidArgumentError(absl::StrCat(
                          "batch_dims (", batch_dims,
                          ") must be less than rank(params) (", params.dims(),
                          ").")));
      DFX_OP_REQUIRES(ctx, axis >= batch_dims,
                      absl::InvalidArgumentError(absl::StrCat(
                          "batch_dims (", batch_dims,
                          ") must be less than or equal to axis (", axis,
                          ").")));
      for (int d = 0; d < batch_dims; ++d) {
        DFX_OP_REQUIRES(
            ctx, params.dim_size(d) == indices.dim_size(d),
            absl::InvalidArgumentError(absl::StrCat(
                "params.shape[", d, "]: ", params.dim_size(d),
                " should be equal to indices.shape[", d,
                "]: ", indices.dim_size(d))));
      }
    }

    const int bd = static_cast<int>(batch_dims);
    const int ax = static_cast<int>(axis);
    TensorShape out_shape;
    for (int d = 0; d < ax; ++d) {
      DFX_OP_REQUIRES_OK(ctx, out_shape.AddDim(params.dim_size(d)));
    }
    for (int d = bd; d < indices.dims(); ++d) {
      DFX_OP_REQUIRES_OK(ctx, out_shape.AddDim(indices.dim_size(d)));
    }
    for (int d = ax + 1; d < params.dims(); ++d) {
      DFX_OP_REQUIRES_OK(ctx, out_shape.AddDim(params.dim_size(d)));
    }
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    // As in TensorFlow, indices are not checked when there is nothing to
    // copy.
    if (out->NumElements() == 0) return;

    const int64_t outer_per_batch = DimProduct(params.shape(), bd, ax);
    const int64_t gather_dim = params.dim_size(ax);
    const int64_t inner = DimProduct(params.shape(), ax + 1, params.dims());
    const int64_t n = DimProduct(indices.shape(), bd, indices.dims());

    VisitIndexType(indices.dtype(), [&]<typename Index>() {
      const Index* idx = indices.data<Index>();
      const int64_t bad = FirstBadIndex(idx, indices.NumElements(), gather_dim);
      DFX_OP_REQUIRES(
          ctx, bad < 0,
          absl::InvalidArgumentError(absl::StrCat(
              "indices", IndexPosition(indices.shape(), bad), " = ",
              static_cast<int64_t>(idx[bad]), " is not in [0, ", gather_dim,
              ")")));
      VisitMoveType(params.dtype(), [&]<typename E>() {
        const E* src = MoveData<E>(params);
        E* dst = MoveData<E>(out);
        ParallelForWork(*ctx->device(), out->NumElements(), sizeof(E),
                        [&](int64_t first, int64_t last) {
                          GatherRange(src, idx, dst, outer_per_batch,
                                      gather_dim, n, inner, first, last);
                        });
      });
    });
  }

 private:
  int64_t batch_dims_ = 0;
};

class GatherNdOp : public OpKernel {
 public:
  explicit GatherNdOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), ignore_bad_indices_(IgnoreBadIndices(ctx)) {}

  void Compute(OpKernelContext* ctx) override {
    DFX_OP_REQUIRES_OK(ctx, GatherNdToOutput(ctx, ctx->input(0), ctx->input(1),
                                             ignore_bad_indices_));
  }

 private:
  const bool ignore_bad_indices_;
};

}  // namespace

void RegisterGatherOpKernels(KernelRegistry* registry) {
  const DataTypeVector& types = array_internal::MovableTypes();
  RegisterKernel<GatherOp>(registry,
                           KernelDefBuilder("GatherV2")
                               .TypeConstraint("Tparams", types)
                               .TypeConstraint("Tindices",
                                               {DT_INT16, DT_INT32, DT_INT64}));
  RegisterKernel<GatherOp>(registry,
                           KernelDefBuilder("Gather")
                               .TypeConstraint("Tparams", types)
                               .TypeConstraint("Tindices", {DT_INT32, DT_INT64}));
  RegisterKernel<GatherNdOp>(
      registry, KernelDefBuilder("GatherNd")
                    .TypeConstraint("Tparams", types)
                    .TypeConstraint("Tindices", {DT_INT16, DT_INT32, DT_INT64}));
}

}  // namespace dfx::gather_internal

namespace dfx {

absl::Status GatherNdToOutput(OpKernelContext* ctx, const Tensor& params,
                              const Tensor& indices, bool ignore_bad) {
  using namespace gather_internal;  // NOLINT: this file's own helpers
  if (params.dims() < 1) {
    return absl::InvalidArgumentError("params must be at least a vector");
  }
  if (indices.dims() < 1) {
    return absl::InvalidArgumentError("indices must be at least a vector");
  }
  const int64_t k = indices.dim_size(indices.dims() - 1);
  if (k > params.dims()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "index innermost dimension length must be <= params rank; saw: ", k,
        " vs. ", params.dims()));
  }
  const int kk = static_cast<int>(k);
  TensorShape out_shape;
  for (int d = 0; d < indices.dims() - 1; ++d) {
    DFX_RETURN_IF_ERROR(out_shape.AddDim(indices.dim_size(d)));
  }
  for (int d = kk; d < params.dims(); ++d) {
    DFX_RETURN_IF_ERROR(out_shape.AddDim(params.dim_size(d)));
  }
  const int64_t n = DimProduct(indices.shape(), 0, indices.dims() - 1);
  if (n > 0 && params.NumElements() == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Requested more than 0 entries, but params is empty.  Params shape: ",
        params.shape().DebugString()));
  }
  Tensor* out = nullptr;
  DFX_RETURN_IF_ERROR(ctx->allocate_output(0, out_shape, &out));
  if (n == 0) return absl::OkStatus();
  const int64_t slice = DimProduct(params.shape(), kk, params.dims());

  DFX_ASSIGN_OR_RETURN(
      const std::vector<int64_t> offsets,
      SliceOffsets(indices, params.shape(), ignore_bad, /*gather_style=*/true));
  if (slice == 0) return absl::OkStatus();

  VisitMoveType(params.dtype(), [&]<typename E>() {
    const E* src = MoveData<E>(params);
    E* dst = MoveData<E>(out);
    ParallelForWork(
        *ctx->device(), out->NumElements(), sizeof(E),
        [&](int64_t first, int64_t last) {
          if (slice == 1) {
            for (int64_t o = first; o < last; ++o) {
              dst[o] = offsets[o] < 0 ? E{} : src[offsets[o]];
            }
            return;
          }
          while (first < last) {
            const int64_t row = first / slice;
            const int64_t col = first - row * slice;
            const int64_t len = std::min(slice - col, last - first);
            if (offsets[row] < 0) {
              std::fill(dst + first, dst + first + len, E{});
            } else {
              MoveElements(src + offsets[row] + col, dst + first, len);
            }
            first += len;
          }
        });
  });
  return absl::OkStatus();
}

}  // namespace dfx

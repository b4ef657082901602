// Tile, BroadcastTo, ReverseV2 and Reverse: each is one StridedCopy whose source
// strides repeat (zero strides) or run backwards (negative strides).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "kernels/array/array_util.h"
#include "kernels/array/index_util.h"

namespace dfx::array_internal {
absl::Status PlanTile(const Tensor& input, const Tensor& multiples_t,
                      IndexPlan* plan) {
  const int rank = input.dims();
  if (multiples_t.dims() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("Expected multiples to be 1-D, but got shape ",
                     multiples_t.shape().DebugString()));
  }
  if (multiples_t.NumElements() != rank) {
    return absl::InvalidArgumentError(
        absl::StrCat("Expected multiples argument to be a vector of length ",
                     rank, " but got length ", multiples_t.NumElements()));
  }
  DFX_ASSIGN_OR_RETURN(std::vector<int64_t> multiples,
                       ReadIndexVector(multiples_t));
  std::vector<int64_t> out_dims(rank);
  bool all_one = true;
  for (int i = 0; i < rank; ++i) {
    const int64_t m = multiples[i];
    const int64_t dim = input.dim_size(i);
    if (m < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("Expected multiples[", i, "] >= 0, but got ", m));
    }
    if (!(dim == 0 || m <= TensorShape::kMaxElements / dim)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Tile of dimension ", i, " (size ", dim, ") by ", m,
          " has more than ", TensorShape::kMaxElements, " elements"));
    }
    out_dims[i] = dim * m;
    all_one &= m == 1;
  }
  if (all_one) {
    plan->kind = IndexPlan::Kind::kForward;
    plan->shape = input.shape();
    return absl::OkStatus();
  }
  DFX_ASSIGN_OR_RETURN(plan->shape, TensorShape::Build(out_dims));
  plan->kind = IndexPlan::Kind::kCopy;
  // Output dim i of size m * dim is the pair (repeat, index) of sizes
  // (m, dim): the repeat walks the output in steps of dim rows and stands
  // still in the input.
  const std::vector<int64_t> in_strides = RowMajorStrides(input.shape());
  const std::vector<int64_t> out_strides = RowMajorStrides(plan->shape);
  StridedCopySpec& copy = plan->copy;
  for (int i = 0; i < rank; ++i) {
    copy.dims.push_back(multiples[i]);
    copy.src_strides.push_back(0);
    copy.dst_strides.push_back(input.dim_size(i) * out_strides[i]);
    copy.dims.push_back(input.dim_size(i));
    copy.src_strides.push_back(in_strides[i]);
    copy.dst_strides.push_back(out_strides[i]);
  }
  return absl::OkStatus();
}

namespace {

class TileOp : public OpKernel {
 public:
  explicit TileOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    IndexPlan plan;
    DFX_OP_REQUIRES_OK(ctx, PlanTile(ctx->input(0), ctx->input(1), &plan));
    RunIndexPlan(ctx, ctx->input(0), std::move(plan));
  }
};

class BroadcastToOp : public OpKernel {
 public:
  explicit BroadcastToOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& shape_t = ctx->input(1);
    DFX_OP_REQUIRES(ctx, shape_t.dims() == 1,
                    absl::InvalidArgumentError(absl::StrCat(
                        "shape must be a vector of {int32,int64}, got shape ",
                        shape_t.shape().DebugString())));
    absl::StatusOr<std::vector<int64_t>> dims = ReadIndexVector(shape_t);
    DFX_OP_REQUIRES_OK(ctx, dims.status());
    absl::StatusOr<TensorShape> shape = TensorShape::Build(*dims);
    DFX_OP_REQUIRES_OK(ctx, shape.status());
    if (*shape == input.shape()) {
      ctx->set_output(0, input);
      return;
    }
    const int in_rank = input.dims();
    const int out_rank = shape->dims();
    DFX_OP_REQUIRES(ctx, in_rank <= out_rank,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Rank of input (", in_rank,
                        ") must be no greater than rank of output shape (",
                        out_rank, ").")));
    const std::vector<int64_t> in_strides = RowMajorStrides(input.shape());
    StridedCopySpec copy;
    copy.dims = *dims;
    copy.dst_strides = RowMajorStrides(*shape);
    copy.src_strides.assign(out_rank, 0);
    for (int i = 0; i < in_rank; ++i) {
      const int o = out_rank - in_rank + i;
      const int64_t in_dim = input.dim_size(i);
      DFX_OP_REQUIRES(ctx, in_dim == shape->dim_size(o) || in_dim == 1,
                      absl::InvalidArgumentError(absl::StrCat(
                          "Incompatible shapes: ", input.shape().DebugString(),
                          " vs. ", shape->DebugString())));
      if (in_dim != 1) copy.src_strides[o] = in_strides[i];
    }
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &out));
    if (out->NumElements() == 0) return;
    StridedCopy(*ctx->device(), input, out, std::move(copy));
  }
};

// ReverseV2 (the axes to reverse as indices) and Reverse (v1: one bool per
// dimension).
class ReverseOp : public OpKernel {
 public:
  explicit ReverseOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), v1_(ctx->def().op() == "Reverse") {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& axis_t = ctx->input(1);
    // As TensorFlow: a scalar or empty input comes back as it is, whatever
    // the axes.
    if (input.dims() == 0 || input.NumElements() == 0) {
      ctx->set_output(0, input);
      return;
    }
    DFX_OP_REQUIRES(ctx, axis_t.dims() == 1,
                    absl::InvalidArgumentError(absl::StrCat(
                        "'dims' must be 1-dimension, not ", axis_t.dims())));
    const int rank = input.dims();
    std::vector<bool> reverse(rank, false);
    if (v1_) {
      DFX_OP_REQUIRES(
          ctx, axis_t.NumElements() == rank,
          absl::InvalidArgumentError(absl::StrCat(
              "'dims' must have the same number of values as 'input' has "
              "dimensions. 'input' has ",
              rank, "'dims' has ", axis_t.NumElements(), " values")));
      for (int d = 0; d < rank; ++d) reverse[d] = axis_t.data<bool>()[d];
    }
    absl::StatusOr<std::vector<int64_t>> axes =
        v1_ ? std::vector<int64_t>{} : ReadIndexVector(axis_t);
    DFX_OP_REQUIRES_OK(ctx, axes.status());
    for (size_t i = 0; i < axes->size(); ++i) {
      const int64_t a = (*axes)[i];
      const int64_t axis = a < 0 ? a + rank : a;
      DFX_OP_REQUIRES(ctx, axis >= 0 && axis < rank,
                      absl::InvalidArgumentError(absl::StrCat(
                          "'axis'[", i, "] = ", a,
                          " is out of valid range [0, ", rank - 1, "]")));
      DFX_OP_REQUIRES(ctx, !reverse[axis],
                      absl::InvalidArgumentError(absl::StrCat(
                          "axis ", axis, " specified more than once.")));
      reverse[axis] = true;
    }
    const std::vector<int64_t> strides = RowMajorStrides(input.shape());
    StridedCopySpec copy;
    copy.dims.assign(input.shape().dim_sizes().begin(),
                     input.shape().dim_sizes().end());
    copy.dst_strides = strides;
    copy.src_strides = strides;
    bool any = false;
    for (int d = 0; d < rank; ++d) {
      if (!reverse[d] || input.dim_size(d) == 1) continue;
      any = true;
      copy.src_offset += (input.dim_size(d) - 1) * strides[d];
      copy.src_strides[d] = -strides[d];
    }
    if (!any) {
      ctx->set_output(0, input);
      return;
    }
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
    StridedCopy(*ctx->device(), input, out, std::move(copy));
  }

 private:
  const bool v1_;
};

// ReverseSequence: along batch_dim, slice b has its first seq_lengths[b]
// elements along seq_dim reversed; the rest is copied.
class ReverseSequenceOp : public OpKernel {
 public:
  explicit ReverseSequenceOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("seq_dim", &seq_dim_));
    ctx->SetStatus(ctx->GetAttr("batch_dim", &batch_dim_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& lens_t = ctx->input(1);
    DFX_OP_REQUIRES(ctx, lens_t.dims() == 1,
                    absl::InvalidArgumentError(absl::StrCat(
                        "seq_lengths must be 1-dim, not ", lens_t.dims())));
    const int rank = input.dims();
    DFX_OP_REQUIRES(ctx, batch_dim_ != seq_dim_,
                    absl::InvalidArgumentError(
                        absl::StrCat("batch_dim == seq_dim == ", seq_dim_)));
    DFX_OP_REQUIRES(ctx, seq_dim_ >= 0 && seq_dim_ < rank,
                    absl::InvalidArgumentError(
                        absl::StrCat("seq_dim must be < input rank ( ",
                                     seq_dim_, " vs. ", rank, ")")));
    DFX_OP_REQUIRES(ctx, batch_dim_ >= 0 && batch_dim_ < rank,
                    absl::InvalidArgumentError(
                        absl::StrCat("batch_dim must be < input rank ( ",
                                     batch_dim_, " vs. ", rank, ")")));
    const int64_t batch = input.dim_size(static_cast<int>(batch_dim_));
    const int64_t max_len = input.dim_size(static_cast<int>(seq_dim_));
    DFX_OP_REQUIRES(ctx, lens_t.NumElements() == batch,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Length of seq_lengths != input.dims(", batch_dim_,
                        "), (", lens_t.NumElements(), " vs. ", batch, ")")));
    absl::StatusOr<std::vector<int64_t>> lens = ReadIndexVector(lens_t);
    DFX_OP_REQUIRES_OK(ctx, lens.status());
    for (size_t d = 0; d < lens->size(); ++d) {
      DFX_OP_REQUIRES(ctx, (*lens)[d] >= 0,
                      absl::InvalidArgumentError(
                          absl::StrCat("seq_lens(", d, ") < 0")));
      DFX_OP_REQUIRES(ctx, (*lens)[d] <= max_len,
                      absl::InvalidArgumentError(absl::StrCat(
                          "seq_lens(", d, ") > input.dims(", seq_dim_, ")")));
    }
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
    if (input.NumElements() == 0) return;
    // Blocks: the dims after both seq_dim and batch_dim are contiguous.
    const int last = static_cast<int>(std::max(seq_dim_, batch_dim_));
    int64_t inner = 1;
    for (int d = last + 1; d < rank; ++d) inner *= input.dim_size(d);
    const std::vector<int64_t> strides = RowMajorStrides(input.shape());
    const int64_t blocks = input.NumElements() / inner;
    std::vector<int64_t> coord(last + 1, 0);
    for (int64_t blk = 0; blk < blocks; ++blk) {
      int64_t rest = blk;
      for (int d = last; d >= 0; --d) {
        coord[d] = rest % input.dim_size(d);
        rest /= input.dim_size(d);
      }
      const int64_t len = (*lens)[coord[batch_dim_]];
      const int64_t s = coord[seq_dim_];
      const int64_t src_s = s < len ? len - 1 - s : s;
      const int64_t dst = blk * inner;
      const int64_t src = dst + (src_s - s) * strides[seq_dim_];
      CopyElements(input, src, out, dst, inner);
    }
  }

 private:
  int64_t seq_dim_ = 0;
  int64_t batch_dim_ = 0;
};

}  // namespace

void RegisterTileKernels(KernelRegistry* registry) {
  RegisterKernel<TileOp>(
      registry, KernelDefBuilder("Tile")
                    .TypeConstraint("T", MovableTypes())
                    .TypeConstraint("Tmultiples", {DT_INT32, DT_INT64}));
  RegisterKernel<BroadcastToOp>(
      registry, KernelDefBuilder("BroadcastTo")
                    .TypeConstraint("T", MovableTypes())
                    .TypeConstraint("Tidx", {DT_INT32, DT_INT64}));
  RegisterKernel<ReverseOp>(
      registry, KernelDefBuilder("ReverseV2")
                    .TypeConstraint("T", MovableTypes())
                    .TypeConstraint("Tidx", {DT_INT32, DT_INT64}));
  RegisterKernel<ReverseOp>(
      registry,
      KernelDefBuilder("Reverse").TypeConstraint("T", MovableTypes()));
  RegisterKernel<ReverseSequenceOp>(
      registry, KernelDefBuilder("ReverseSequence")
                    .TypeConstraint("T", MovableTypes())
                    .TypeConstraint("Tlen", {DT_INT32, DT_INT64}));
}

}  // namespace dfx::array_internal

// StridedSlice, StridedSliceGrad and Slice. A slice that takes whole rows
// of dimension 0 is a view of its input's buffer; every other slice is one
// StridedCopy.
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/ops/strided_slice_spec.h"
#include "kernels/array/array_util.h"
#include "kernels/array/index_util.h"

namespace dfx::array_internal {

absl::Status ReadStridedSliceMasks(OpKernelConstruction* ctx,
                                   StridedSliceMasks* masks) {
  struct Field {
    const char* name;
    int32_t* value;
  };
  const Field fields[] = {{"begin_mask", &masks->begin_mask},
                          {"end_mask", &masks->end_mask},
                          {"ellipsis_mask", &masks->ellipsis_mask},
                          {"new_axis_mask", &masks->new_axis_mask},
                          {"shrink_axis_mask", &masks->shrink_axis_mask}};
  for (const Field& f : fields) {
    if (FindNodeAttr(ctx->def(), f.name) == nullptr) continue;
    int64_t v = 0;
    DFX_RETURN_IF_ERROR(ctx->GetAttr(f.name, &v));
    // TensorFlow holds the masks as 32-bit ints.
    *f.value = static_cast<int32_t>(v);
  }
  return absl::OkStatus();
}

absl::Status StridedSliceSpecOf(const TensorShape& shape,
                                const Tensor& begin_t, const Tensor& end_t,
                                const Tensor& strides_t,
                                const StridedSliceMasks& masks,
                                StridedSliceSpec* spec,
                                TensorShape* out_shape) {
  const int64_t n = strides_t.NumElements();
  if (begin_t.dims() != 1 || end_t.dims() != 1 || strides_t.dims() != 1 ||
      begin_t.NumElements() != n || end_t.NumElements() != n || n >= 32) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Expected begin, end, and strides to be 1D equal size tensors, but "
        "got shapes ",
        begin_t.shape().DebugString(), ", ", end_t.shape().DebugString(),
        ", and ", strides_t.shape().DebugString(), " instead."));
  }
  DFX_ASSIGN_OR_RETURN(std::vector<int64_t> begin, ReadIndexVector(begin_t));
  DFX_ASSIGN_OR_RETURN(std::vector<int64_t> end, ReadIndexVector(end_t));
  DFX_ASSIGN_OR_RETURN(std::vector<int64_t> strides,
                       ReadIndexVector(strides_t));
  DFX_RETURN_IF_ERROR(ComputeStridedSliceSpec(shape.dim_sizes(), &begin, &end,
                                              strides, masks, spec));
  DFX_ASSIGN_OR_RETURN(*out_shape, TensorShape::Build(spec->final_dims));
  return absl::OkStatus();
}

// The other side of a slice's copy is dense.
void SliceWalk(const StridedSliceSpec& spec, const TensorShape& shape,
               std::vector<int64_t>* strides, int64_t* offset) {
  const std::vector<int64_t> dense = RowMajorStrides(shape);
  strides->clear();
  *offset = 0;
  for (int d = 0; d < shape.dims(); ++d) {
    *offset += spec.begin[d] * dense[d];
    strides->push_back(spec.strides[d] * dense[d]);
  }
}

absl::Status PlanStridedSlice(const Tensor& input, const Tensor& begin,
                              const Tensor& end, const Tensor& strides,
                              const StridedSliceMasks& masks, IndexPlan* plan) {
  StridedSliceSpec spec;
  DFX_RETURN_IF_ERROR(StridedSliceSpecOf(input.shape(), begin, end, strides,
                                         masks, &spec, &plan->shape));
  if (spec.is_identity) {
    plan->kind = IndexPlan::Kind::kForward;
    return absl::OkStatus();
  }
  if (spec.slice_dim0) {
    plan->kind = IndexPlan::Kind::kRows;
    plan->row_begin = spec.begin[0];
    plan->rows = spec.processing_dims[0];
    return absl::OkStatus();
  }
  plan->kind = IndexPlan::Kind::kCopy;
  StridedCopySpec& copy = plan->copy;
  copy.dims = spec.processing_dims;
  copy.dst_strides = RowMajorStrides(*TensorShape::Build(copy.dims));
  SliceWalk(spec, input.shape(), &copy.src_strides, &copy.src_offset);
  return absl::OkStatus();
}

absl::Status PlanStridedSliceGrad(const Tensor& shape_t, const Tensor& begin,
                                  const Tensor& end, const Tensor& strides,
                                  const Tensor& dy,
                                  const StridedSliceMasks& masks,
                                  IndexPlan* plan) {
  if (shape_t.dims() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("shape must be 1-D, got shape.shape = ",
                     shape_t.shape().DebugString()));
  }
  DFX_ASSIGN_OR_RETURN(std::vector<int64_t> dims, ReadIndexVector(shape_t));
  DFX_ASSIGN_OR_RETURN(plan->shape, TensorShape::Build(dims));
  StridedSliceSpec spec;
  TensorShape final_shape;
  DFX_RETURN_IF_ERROR(StridedSliceSpecOf(plan->shape, begin, end, strides,
                                         masks, &spec, &final_shape));
  if (dy.shape() != final_shape) {
    return absl::InvalidArgumentError(
        absl::StrCat("shape of dy was ", dy.shape().DebugString(),
                     " instead of ", final_shape.DebugString()));
  }
  if (spec.is_identity) {
    plan->kind = IndexPlan::Kind::kForward;
    return absl::OkStatus();
  }
  plan->kind = IndexPlan::Kind::kCopy;
  plan->zero_first = true;
  StridedCopySpec& copy = plan->copy;
  copy.dims = spec.processing_dims;
  copy.src_strides = RowMajorStrides(*TensorShape::Build(copy.dims));
  SliceWalk(spec, plan->shape, &copy.dst_strides, &copy.dst_offset);
  return absl::OkStatus();
}

absl::Status PlanSlice(const Tensor& input, const Tensor& begin_t,
                       const Tensor& size_tensor, IndexPlan* plan) {
  const int rank = input.dims();
  if (!(begin_t.dims() == 1 && size_tensor.dims() == 1 &&
        begin_t.NumElements() == rank && size_tensor.NumElements() == rank)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Expected begin and size arguments to be 1-D tensors of size ", rank,
        ", but got shapes ", begin_t.shape().DebugString(), " and ",
        size_tensor.shape().DebugString(), " instead."));
  }
  DFX_ASSIGN_OR_RETURN(std::vector<int64_t> begin, ReadIndexVector(begin_t));
  DFX_ASSIGN_OR_RETURN(std::vector<int64_t> size, ReadIndexVector(size_tensor));
  bool identity = true;
  bool rows_only = true;  // every dim but the first taken whole
  for (int i = 0; i < rank; ++i) {
    const int64_t dim = input.dim_size(i);
    const int64_t b = begin[i];
    int64_t& s = size[i];
    if (s == -1 && b >= 0 && b <= dim) s = dim - b;
    if (dim == 0) {
      if (!(b == 0 && s == 0)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Expected begin[", i, "] == 0 (got ", b, ") and size[", i,
            "] == 0 (got ", s, ") when input.dim_size(", i, ") == 0"));
      }
    } else {
      if (!(0 <= b && b <= dim)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Expected begin[", i, "] in [0, ", dim, "], but got ", b));
      }
      if (!(0 <= s && s <= dim - b)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Expected size[", i, "] in [0, ", dim - b, "], but got ", s));
      }
    }
    const bool whole = b == 0 && s == dim;
    identity &= whole;
    if (i > 0) rows_only &= whole;
  }
  if (identity) {
    plan->kind = IndexPlan::Kind::kForward;
    plan->shape = input.shape();
    return absl::OkStatus();
  }
  DFX_ASSIGN_OR_RETURN(plan->shape, TensorShape::Build(size));
  if (rows_only) {
    plan->kind = IndexPlan::Kind::kRows;
    plan->row_begin = begin[0];
    plan->rows = size[0];
    return absl::OkStatus();
  }
  plan->kind = IndexPlan::Kind::kCopy;
  const std::vector<int64_t> in_strides = RowMajorStrides(input.shape());
  StridedCopySpec& copy = plan->copy;
  copy.dims = size;
  copy.src_strides = in_strides;
  copy.dst_strides = RowMajorStrides(plan->shape);
  for (int d = 0; d < rank; ++d) copy.src_offset += begin[d] * in_strides[d];
  return absl::OkStatus();
}

namespace {

class StridedSliceOp : public OpKernel {
 public:
  explicit StridedSliceOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ReadStridedSliceMasks(ctx, &masks_));
  }

  void Compute(OpKernelContext* ctx) override {
    IndexPlan plan;
    DFX_OP_REQUIRES_OK(
        ctx, PlanStridedSlice(ctx->input(0), ctx->input(1), ctx->input(2),
                              ctx->input(3), masks_, &plan));
    RunIndexPlan(ctx, ctx->input(0), std::move(plan));
  }

 private:
  StridedSliceMasks masks_;
};

class StridedSliceGradOp : public OpKernel {
 public:
  explicit StridedSliceGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ReadStridedSliceMasks(ctx, &masks_));
  }

  void Compute(OpKernelContext* ctx) override {
    IndexPlan plan;
    DFX_OP_REQUIRES_OK(
        ctx, PlanStridedSliceGrad(ctx->input(0), ctx->input(1), ctx->input(2),
                                  ctx->input(3), ctx->input(4), masks_, &plan));
    RunIndexPlan(ctx, ctx->input(4), std::move(plan));
  }

 private:
  StridedSliceMasks masks_;
};

class SliceOp : public OpKernel {
 public:
  explicit SliceOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    IndexPlan plan;
    DFX_OP_REQUIRES_OK(
        ctx, PlanSlice(ctx->input(0), ctx->input(1), ctx->input(2), &plan));
    RunIndexPlan(ctx, ctx->input(0), std::move(plan));
  }
};

}  // namespace

void RegisterSliceKernels(KernelRegistry* registry) {
  RegisterKernel<StridedSliceOp>(
      registry, KernelDefBuilder("StridedSlice")
                    .TypeConstraint("T", MovableTypes())
                    .TypeConstraint("Index", {DT_INT16, DT_INT32, DT_INT64}));
  RegisterKernel<StridedSliceGradOp>(
      registry, KernelDefBuilder("StridedSliceGrad")
                    .TypeConstraint("T", MovableTypes())
                    .TypeConstraint("Index", {DT_INT32, DT_INT64}));
  RegisterKernel<SliceOp>(registry,
                          KernelDefBuilder("Slice")
                              .TypeConstraint("T", MovableTypes())
                              .TypeConstraint("Index", {DT_INT32, DT_INT64}));
}

}  // namespace dfx::array_internal

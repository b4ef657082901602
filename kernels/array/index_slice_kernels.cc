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

namespace {

// Sets output 0 to rows [start, start + n) of dimension 0 of `input`,
// viewed with `shape` (which holds as many elements); no copy.
void SetRowsView(OpKernelContext* ctx, const Tensor& input, int64_t start,
                 int64_t n, const TensorShape& shape) {
  absl::StatusOr<Tensor> view = input.Slice(start, start + n).Reshaped(shape);
  DFX_OP_REQUIRES_OK(ctx, view.status());
  ctx->set_output(0, *std::move(view));
}

void SetReshaped(OpKernelContext* ctx, const Tensor& input,
                 const TensorShape& shape) {
  absl::StatusOr<Tensor> out = input.Reshaped(shape);
  DFX_OP_REQUIRES_OK(ctx, out.status());
  ctx->set_output(0, *std::move(out));
}

class StridedSliceOp : public OpKernel {
 public:
  explicit StridedSliceOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ReadStridedSliceMasks(ctx, &masks_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    StridedSliceSpec spec;
    TensorShape shape;
    DFX_OP_REQUIRES_OK(ctx,
                       StridedSliceSpecOf(input.shape(), ctx->input(1),
                                          ctx->input(2), ctx->input(3),
                                          masks_, &spec, &shape));
    if (spec.is_identity) {
      SetReshaped(ctx, input, shape);
      return;
    }
    if (spec.slice_dim0) {
      SetRowsView(ctx, input, spec.begin[0], spec.processing_dims[0], shape);
      return;
    }
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    if (out->NumElements() == 0) return;
    StridedCopySpec copy;
    copy.dims = spec.processing_dims;
    copy.dst_strides = RowMajorStrides(*TensorShape::Build(copy.dims));
    SliceWalk(spec, input.shape(), &copy.src_strides, &copy.src_offset);
    StridedCopy(*ctx->device(), input, out, std::move(copy));
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
    const Tensor& shape_t = ctx->input(0);
    const Tensor& dy = ctx->input(4);
    DFX_OP_REQUIRES(ctx, shape_t.dims() == 1,
                    absl::InvalidArgumentError(
                        absl::StrCat("shape must be 1-D, got shape.shape = ",
                                     shape_t.shape().DebugString())));
    absl::StatusOr<std::vector<int64_t>> dims = ReadIndexVector(shape_t);
    DFX_OP_REQUIRES_OK(ctx, dims.status());
    absl::StatusOr<TensorShape> input_shape = TensorShape::Build(*dims);
    DFX_OP_REQUIRES_OK(ctx, input_shape.status());
    StridedSliceSpec spec;
    TensorShape final_shape;
    DFX_OP_REQUIRES_OK(ctx,
                       StridedSliceSpecOf(*input_shape, ctx->input(1),
                                          ctx->input(2), ctx->input(3),
                                          masks_, &spec, &final_shape));
    DFX_OP_REQUIRES(ctx, dy.shape() == final_shape,
                    absl::InvalidArgumentError(absl::StrCat(
                        "shape of dy was ", dy.shape().DebugString(),
                        " instead of ", final_shape.DebugString())));
    if (spec.is_identity) {
      SetReshaped(ctx, dy, *input_shape);
      return;
    }
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *input_shape, &out));
    SetZero(*ctx->device(), out);
    if (dy.NumElements() == 0) return;
    StridedCopySpec copy;
    copy.dims = spec.processing_dims;
    copy.src_strides = RowMajorStrides(*TensorShape::Build(copy.dims));
    SliceWalk(spec, *input_shape, &copy.dst_strides, &copy.dst_offset);
    StridedCopy(*ctx->device(), dy, out, std::move(copy));
  }

 private:
  StridedSliceMasks masks_;
};

class SliceOp : public OpKernel {
 public:
  explicit SliceOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& begin_t = ctx->input(1);
    const Tensor& size_tensor = ctx->input(2);
    const int rank = input.dims();
    DFX_OP_REQUIRES(
        ctx,
        begin_t.dims() == 1 && size_tensor.dims() == 1 &&
            begin_t.NumElements() == rank && size_tensor.NumElements() == rank,
        absl::InvalidArgumentError(absl::StrCat(
            "Expected begin and size arguments to be 1-D tensors of size ",
            rank, ", but got shapes ", begin_t.shape().DebugString(), " and ",
            size_tensor.shape().DebugString(), " instead.")));
    absl::StatusOr<std::vector<int64_t>> begin = ReadIndexVector(begin_t);
    DFX_OP_REQUIRES_OK(ctx, begin.status());
    absl::StatusOr<std::vector<int64_t>> size = ReadIndexVector(size_tensor);
    DFX_OP_REQUIRES_OK(ctx, size.status());
    bool identity = true;
    bool rows_only = true;  // every dim but the first taken whole
    for (int i = 0; i < rank; ++i) {
      const int64_t dim = input.dim_size(i);
      const int64_t b = (*begin)[i];
      int64_t& s = (*size)[i];
      if (s == -1 && b >= 0 && b <= dim) s = dim - b;
      if (dim == 0) {
        DFX_OP_REQUIRES(
            ctx, b == 0 && s == 0,
            absl::InvalidArgumentError(absl::StrCat(
                "Expected begin[", i, "] == 0 (got ", b, ") and size[", i,
                "] == 0 (got ", s, ") when input.dim_size(", i, ") == 0")));
      } else {
        DFX_OP_REQUIRES(
            ctx, 0 <= b && b <= dim,
            absl::InvalidArgumentError(absl::StrCat(
                "Expected begin[", i, "] in [0, ", dim, "], but got ", b)));
        DFX_OP_REQUIRES(
            ctx, 0 <= s && s <= dim - b,
            absl::InvalidArgumentError(absl::StrCat(
                "Expected size[", i, "] in [0, ", dim - b, "], but got ", s)));
      }
      const bool whole = b == 0 && s == dim;
      identity &= whole;
      if (i > 0) rows_only &= whole;
    }
    if (identity) {
      ctx->set_output(0, input);
      return;
    }
    absl::StatusOr<TensorShape> shape = TensorShape::Build(*size);
    DFX_OP_REQUIRES_OK(ctx, shape.status());
    if (rows_only) {
      SetRowsView(ctx, input, (*begin)[0], (*size)[0], *shape);
      return;
    }
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &out));
    if (out->NumElements() == 0) return;
    const std::vector<int64_t> in_strides = RowMajorStrides(input.shape());
    StridedCopySpec copy;
    copy.dims = *size;
    copy.src_strides = in_strides;
    copy.dst_strides = RowMajorStrides(*shape);
    for (int d = 0; d < rank; ++d) {
      copy.src_offset += (*begin)[d] * in_strides[d];
    }
    StridedCopy(*ctx->device(), input, out, std::move(copy));
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

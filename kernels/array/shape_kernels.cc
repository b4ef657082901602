// Reshape, Shape, ShapeN, ConcatOffset, ExpandDims and Squeeze. Reshape,
// ExpandDims and Squeeze output a view of their input's buffer.
#include <cstdint>
#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/array/array_util.h"

namespace dfx::array_internal {
namespace {

// Outputs input 0 viewed with `dims` (already checked by the caller to hold
// the same number of elements).
void SetReshapedOutput(const OpKernel& kernel, OpKernelContext* ctx,
                       const std::vector<int64_t>& dims) {
  absl::StatusOr<TensorShape> shape = TensorShape::Build(dims);
  DFX_OP_REQUIRES(ctx, shape.ok(),
                  NodeError(kernel, shape.status().message()));
  absl::StatusOr<Tensor> out = ctx->input(0).Reshaped(*shape);
  DFX_OP_REQUIRES(ctx, out.ok(), NodeError(kernel, out.status().message()));
  ctx->set_output(0, *std::move(out));
}

class ReshapeOp : public OpKernel {
 public:
  explicit ReshapeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& sizes = ctx->input(1);
    DFX_OP_REQUIRES(
        ctx, sizes.dims() <= 1,
        NodeError(*this, absl::StrCat("sizes input must be 1-D, not ",
                                      sizes.shape().DebugString())));
    absl::StatusOr<std::vector<int64_t>> dims = ReadInts(sizes);
    DFX_OP_REQUIRES(ctx, dims.ok(), NodeError(*this, dims.status().message()));
    int unknown = -1;
    int64_t product = 1;
    for (int i = 0; i < static_cast<int>(dims->size()); ++i) {
      const int64_t d = (*dims)[i];
      if (d == -1) {
        DFX_OP_REQUIRES(
            ctx, unknown < 0,
            NodeError(*this, absl::StrCat("only one input size may be -1, "
                                          "not both ",
                                          unknown, " and ", i)));
        unknown = i;
        continue;
      }
      DFX_OP_REQUIRES(
          ctx, d >= 0,
          NodeError(*this, absl::StrCat("size ", i,
                                        " must be non-negative, not ", d)));
      // Saturate: a product this large cannot match any input anyway.
      product = (d != 0 && product > TensorShape::kMaxElements / d)
                    ? TensorShape::kMaxElements + 1
                    : product * d;
    }
    const int64_t n = input.NumElements();
    const std::string requested =
        absl::StrCat("[", absl::StrJoin(*dims, ","), "]");
    if (unknown >= 0) {
      DFX_OP_REQUIRES(
          ctx, product > 0,
          NodeError(*this, absl::StrCat(
                               "cannot infer the missing size in ", requested,
                               " for a tensor with ", n,
                               " values unless all specified sizes are "
                               "non-zero")));
      DFX_OP_REQUIRES(
          ctx, n % product == 0,
          NodeError(*this,
                    absl::StrCat("input to reshape is a tensor with ", n,
                                 " values, but the requested shape ", requested,
                                 " requires a multiple of ", product)));
      (*dims)[unknown] = n / product;
    } else {
      DFX_OP_REQUIRES(
          ctx, n == product,
          NodeError(*this,
                    absl::StrCat("input to reshape is a tensor with ", n,
                                 " values, but the requested shape ", requested,
                                 " has ", product)));
    }
    SetReshapedOutput(*this, ctx, *dims);
  }
};

// Writes `shape` as output `index` (int32 or int64 by the output type).
void WriteShape(const OpKernel& kernel, OpKernelContext* ctx, int index,
                const TensorShape& shape) {
  Tensor* out = nullptr;
  DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(
                              index, TensorShape({shape.dims()}), &out));
  if (kernel.output_type(index) == DT_INT32) {
    int32_t* data = out->data<int32_t>();
    for (int i = 0; i < shape.dims(); ++i) {
      DFX_OP_REQUIRES(
          ctx, shape.dim_size(i) <= std::numeric_limits<int32_t>::max(),
          NodeError(kernel, absl::StrCat("dim ", i, " of ",
                                         shape.DebugString(),
                                         " does not fit out_type int32")));
      data[i] = static_cast<int32_t>(shape.dim_size(i));
    }
  } else {
    int64_t* data = out->data<int64_t>();
    for (int i = 0; i < shape.dims(); ++i) data[i] = shape.dim_size(i);
  }
}

class ShapeOp : public OpKernel {
 public:
  explicit ShapeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
  }

  void Compute(OpKernelContext* ctx) override {
    WriteShape(*this, ctx, 0, ctx->input(0).shape());
  }
};

class ShapeNOp : public OpKernel {
 public:
  explicit ShapeNOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
  }

  void Compute(OpKernelContext* ctx) override {
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      WriteShape(*this, ctx, i, ctx->input(i).shape());
      if (!ctx->status().ok()) return;
    }
  }
};

// offset[i] is zero except along concat_dim, where it is the sum of the
// sizes of the inputs before i. Every shape must have the rank of shape 0
// and agree with it outside concat_dim.
class ConcatOffsetOp : public OpKernel {
 public:
  explicit ConcatOffsetOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& dim_t = ctx->input(0);
    DFX_OP_REQUIRES(ctx, dim_t.NumElements() == 1,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Concat dim tensor should be a scalar, but got shape ",
                        dim_t.shape().DebugString())));
    const int n = ctx->num_inputs() - 1;
    auto get = [](const Tensor& t, int64_t k) -> int64_t {
      return t.dtype() == DT_INT32 ? t.data<int32_t>()[k]
                                   : t.data<int64_t>()[k];
    };
    const Tensor& first = ctx->input(1);
    DFX_OP_REQUIRES(ctx, first.dims() == 1,
                    absl::InvalidArgumentError(absl::StrCat(
                        "input 1 should be a vector, got shape ",
                        first.shape().DebugString())));
    const int64_t rank = first.NumElements();
    int64_t axis = dim_t.data<int32_t>()[0];
    if (axis < 0) axis += rank;
    DFX_OP_REQUIRES(ctx, axis >= 0 && axis < rank,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Concat dim is out of range: ", dim_t.data<int32_t>()[0],
                        " vs. ", rank)));
    int64_t offset = 0;
    for (int i = 0; i < n; ++i) {
      const Tensor& shape = ctx->input(i + 1);
      DFX_OP_REQUIRES(
          ctx, shape.dims() == 1 && shape.NumElements() == rank,
          absl::InvalidArgumentError(absl::StrCat(
              "input ", i + 1, " should contain ", rank,
              " elements, but got ", shape.NumElements())));
      Tensor* out = nullptr;
      DFX_OP_REQUIRES_OK(ctx,
                         ctx->allocate_output(i, TensorShape({rank}), &out));
      for (int64_t d = 0; d < rank; ++d) {
        const int64_t size = get(shape, d);
        if (d != axis) {
          DFX_OP_REQUIRES(
              ctx, size == get(first, d),
              absl::InvalidArgumentError(absl::StrCat(
                  "input[", i, ",", d, "] mismatch: ", size, " vs. ",
                  get(first, d))));
        }
        const int64_t v = d == axis ? offset : 0;
        if (out->dtype() == DT_INT32) {
          out->data<int32_t>()[d] = static_cast<int32_t>(v);
        } else {
          out->data<int64_t>()[d] = v;
        }
        if (d == axis) offset += size;
      }
    }
  }
};

class ExpandDimsOp : public OpKernel {
 public:
  explicit ExpandDimsOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& dim_t = ctx->input(1);
    DFX_OP_REQUIRES(
        ctx, dim_t.NumElements() == 1,
        NodeError(*this,
                  absl::StrCat("'dim' must be a tensor with a single value, "
                               "got shape ",
                               dim_t.shape().DebugString())));
    absl::StatusOr<std::vector<int64_t>> dim = ReadInts(dim_t);
    DFX_OP_REQUIRES(ctx, dim.ok(), NodeError(*this, dim.status().message()));
    const int64_t rank = input.dims();
    int64_t d = (*dim)[0];
    DFX_OP_REQUIRES(
        ctx, d >= -1 - rank && d <= rank,
        NodeError(*this, absl::StrCat("'dim' ", d, " is out of range [",
                                      -1 - rank, ", ", rank,
                                      "] for a tensor of shape ",
                                      input.shape().DebugString())));
    if (d < 0) d += rank + 1;
    std::vector<int64_t> dims(input.shape().dim_sizes().begin(),
                              input.shape().dim_sizes().end());
    dims.insert(dims.begin() + d, 1);
    SetReshapedOutput(*this, ctx, dims);
  }
};

class SqueezeOp : public OpKernel {
 public:
  explicit SqueezeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
    if (FindNodeAttr(ctx->def(), "squeeze_dims") != nullptr) {
      ctx->SetStatus(ctx->GetAttr("squeeze_dims", &squeeze_dims_));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const int rank = input.dims();
    std::vector<bool> squeeze(rank, squeeze_dims_.empty());
    for (int64_t d : squeeze_dims_) {
      DFX_OP_REQUIRES(
          ctx, d >= -rank && d < rank,
          NodeError(*this, absl::StrCat("squeeze dim ", d,
                                        " is out of range [", -rank, ", ",
                                        rank, ") for a tensor of shape ",
                                        input.shape().DebugString())));
      const int64_t w = d < 0 ? d + rank : d;
      DFX_OP_REQUIRES(
          ctx, input.dim_size(w) == 1,
          NodeError(*this, absl::StrCat("cannot squeeze dim ", d,
                                        ": expected a dimension of 1, got ",
                                        input.dim_size(w), " (shape ",
                                        input.shape().DebugString(), ")")));
      squeeze[w] = true;
    }
    std::vector<int64_t> dims;
    for (int i = 0; i < rank; ++i) {
      if (squeeze[i] && input.dim_size(i) == 1) continue;
      dims.push_back(input.dim_size(i));
    }
    SetReshapedOutput(*this, ctx, dims);
  }

 private:
  std::vector<int64_t> squeeze_dims_;
};

}  // namespace

void RegisterShapeKernels(KernelRegistry* registry) {
  RegisterKernel<ReshapeOp>(registry, KernelDefBuilder("Reshape"));
  RegisterKernel<ShapeOp>(registry, KernelDefBuilder("Shape"));
  RegisterKernel<ShapeNOp>(registry, KernelDefBuilder("ShapeN"));
  RegisterKernel<ConcatOffsetOp>(registry, KernelDefBuilder("ConcatOffset"));
  RegisterKernel<ExpandDimsOp>(registry, KernelDefBuilder("ExpandDims"));
  RegisterKernel<SqueezeOp>(registry, KernelDefBuilder("Squeeze"));
}

}  // namespace dfx::array_internal

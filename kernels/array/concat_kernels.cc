// ConcatV2 and Concat (join along an existing axis; the axis is ConcatV2's
// last input, Concat's first) and Pack (stack along a new one).
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/array/array_util.h"

namespace dfx::array_internal {
namespace {

// Views every input as [outer, inner_i] and writes, for each outer row, the
// inputs' rows one after another. `inner[i]` is input i's row length.
void JoinRows(const std::vector<const Tensor*>& inputs,
              const std::vector<int64_t>& inner, int64_t outer, Tensor* out) {
  int64_t dst = 0;
  for (int64_t row = 0; row < outer; ++row) {
    for (size_t i = 0; i < inputs.size(); ++i) {
      CopyElements(*inputs[i], row * inner[i], out, dst, inner[i]);
      dst += inner[i];
    }
  }
}

class ConcatOp : public OpKernel {
 public:
  explicit ConcatOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), axis_first_(ctx->def().op() == "Concat") {}

  void Compute(OpKernelContext* ctx) override {
    const int n = ctx->num_inputs() - 1;
    const int base = axis_first_ ? 1 : 0;  // input index of the first value
    const Tensor& axis_t = ctx->input(axis_first_ ? 0 : n);
    DFX_OP_REQUIRES(
        ctx, axis_t.dims() == 0,
        NodeError(*this, absl::StrCat("'axis' must be a scalar, got shape ",
                                      axis_t.shape().DebugString())));
    absl::StatusOr<std::vector<int64_t>> axis_v = ReadInts(axis_t);
    DFX_OP_REQUIRES(ctx, axis_v.ok(),
                    NodeError(*this, axis_v.status().message()));
    const Tensor& first = ctx->input(base);
    const int rank = first.dims();
    DFX_OP_REQUIRES(ctx, rank > 0,
                    NodeError(*this, "cannot concatenate scalars (use Pack "
                                     "instead)"));
    int64_t axis = (*axis_v)[0];
    DFX_OP_REQUIRES(
        ctx, axis >= -rank && axis < rank,
        NodeError(*this, absl::StrCat("'axis' ", axis, " is out of range [",
                                      -rank, ", ", rank,
                                      ") for inputs of rank ", rank)));
    if (axis < 0) axis += rank;

    int64_t outer = 1;
    for (int d = 0; d < axis; ++d) outer *= first.dim_size(d);
    std::vector<const Tensor*> inputs;
    std::vector<int64_t> inner;
    int64_t axis_size = 0;
    for (int i = 0; i < n; ++i) {
      const Tensor& t = ctx->input(base + i);
      DFX_OP_REQUIRES(
          ctx, t.dims() == rank,
          NodeError(*this, absl::StrCat("input ", i, " has shape ",
                                        t.shape().DebugString(),
                                        " but input 0 has shape ",
                                        first.shape().DebugString(),
                                        ": ranks differ")));
      for (int d = 0; d < rank; ++d) {
        DFX_OP_REQUIRES(
            ctx, d == axis || t.dim_size(d) == first.dim_size(d),
            NodeError(*this,
                      absl::StrCat("input ", i, " has shape ",
                                   t.shape().DebugString(),
                                   " but input 0 has shape ",
                                   first.shape().DebugString(),
                                   ": they differ in dimension ", d,
                                   ", which is not the concat axis ", axis)));
      }
      axis_size += t.dim_size(axis);
      inputs.push_back(&t);
      inner.push_back(outer == 0 ? 0 : t.NumElements() / outer);
    }
    TensorShape out_shape = first.shape();
    out_shape.set_dim(static_cast<int>(axis), axis_size);
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    JoinRows(inputs, inner, outer, out);
  }

 private:
  const bool axis_first_;
};

class PackOp : public OpKernel {
 public:
  explicit PackOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    if (FindNodeAttr(ctx->def(), "axis") != nullptr) {
      ctx->SetStatus(ctx->GetAttr("axis", &axis_));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const int n = ctx->num_inputs();
    const Tensor& first = ctx->input(0);
    const int rank = first.dims();
    int64_t axis = axis_;
    DFX_OP_REQUIRES(
        ctx, axis >= -(rank + 1) && axis <= rank,
        NodeError(*this, absl::StrCat("'axis' ", axis, " is out of range [",
                                      -(rank + 1), ", ", rank + 1,
                                      ") for inputs of rank ", rank)));
    if (axis < 0) axis += rank + 1;
    std::vector<const Tensor*> inputs;
    for (int i = 0; i < n; ++i) {
      const Tensor& t = ctx->input(i);
      DFX_OP_REQUIRES(
          ctx, t.shape() == first.shape(),
          NodeError(*this, absl::StrCat("shapes of all inputs must match: "
                                        "input 0 has shape ",
                                        first.shape().DebugString(),
                                        " but input ", i, " has shape ",
                                        t.shape().DebugString())));
      inputs.push_back(&t);
    }
    int64_t outer = 1;
    for (int d = 0; d < axis; ++d) outer *= first.dim_size(d);
    const int64_t row = outer == 0 ? 0 : first.NumElements() / outer;
    std::vector<int64_t> inner(n, row);
    TensorShape out_shape;
    for (int d = 0; d < rank; ++d) {
      if (d == axis) DFX_OP_REQUIRES_OK(ctx, out_shape.AddDim(n));
      DFX_OP_REQUIRES_OK(ctx, out_shape.AddDim(first.dim_size(d)));
    }
    if (axis == rank) DFX_OP_REQUIRES_OK(ctx, out_shape.AddDim(n));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    JoinRows(inputs, inner, outer, out);
  }

 private:
  int64_t axis_ = 0;
};

}  // namespace

void RegisterConcatKernels(KernelRegistry* registry) {
  for (const char* op : {"ConcatV2", "Concat"}) {
    RegisterKernel<ConcatOp>(
        registry, KernelDefBuilder(op).TypeConstraint("T", MovableTypes()));
  }
  RegisterKernel<PackOp>(
      registry, KernelDefBuilder("Pack").TypeConstraint("T", MovableTypes()));
}

}  // namespace dfx::array_internal

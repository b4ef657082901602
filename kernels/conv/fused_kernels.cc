// _FusedConv2D and _FusedMatMul on CPU: the product runs on the unfused
// op's path (ConvRunner for the convolution, linalg::Gemm for the matrix
// product), then one epilogue pass over the output, chunk by chunk on the
// intra-op pool, adds the bias or applies the inference batch norm and the
// activation to each chunk while it is in cache. The fused_ops
// combinations, dtypes and errors are those of TensorFlow 2.21's CPU
// kernels (conv_ops_fused_impl.h, matmul_op_fused.cc), except that a
// bias or batch-norm argument whose size is not the output depth is
// InvalidArgument, as the unfused BiasAdd and FusedBatchNorm say, where
// TensorFlow's fused kernels read past it or ignore the rest.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "kernels/conv/conv_backend.h"
#include "kernels/conv/conv_util.h"
#include "kernels/linalg/gemm.h"
#include "kernels/nn/matmul_shape.h"

namespace dfx {
namespace conv_internal {
namespace {

enum class Activation {
  kNone,
  kRelu,
  kRelu6,
  kElu,
  kLeakyRelu,
  kSigmoid,
  kTanh
};

// What fused_ops asks for after the product.
struct Fusion {
  bool batch_norm = false;  // FusedBatchNorm rather than BiasAdd
  Activation activation = Activation::kNone;
  float epsilon = 0;
  float leakyrelu_alpha = 0;
};

// Parses fused_ops as TensorFlow's InitializeFusedComputation does:
// InvalidArgument for an empty list or the wrong num_args, Unimplemented
// for a combination `op` ("Conv2D", "MatMul") has no CPU kernel for.
absl::Status ReadFusion(const OpKernelConstruction& ctx, const char* op,
                        bool allow_batch_norm, bool allow_sigmoid_tanh,
                        Fusion* fusion) {
  std::vector<std::string> ops;
  int64_t num_args = 0;
  DFX_RETURN_IF_ERROR(ctx.GetAttr("fused_ops", &ops));
  DFX_RETURN_IF_ERROR(ctx.GetAttr("num_args", &num_args));
  DFX_RETURN_IF_ERROR(ctx.GetAttr("epsilon", &fusion->epsilon));
  DFX_RETURN_IF_ERROR(ctx.GetAttr("leakyrelu_alpha", &fusion->leakyrelu_alpha));
  if (ops.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Fused ", op, " must have at least one fused op."));
  }
  bool known =
      ops.size() <= 2 &&
      (ops[0] == "BiasAdd" || (allow_batch_norm && ops[0] == "FusedBatchNorm"));
  if (known && ops.size() == 2) {
    const std::string& a = ops[1];
    if (a == "Relu") {
      fusion->activation = Activation::kRelu;
    } else if (a == "Relu6") {
      fusion->activation = Activation::kRelu6;
    } else if (a == "Elu") {
      fusion->activation = Activation::kElu;
    } else if (a == "LeakyRelu") {
      fusion->activation = Activation::kLeakyRelu;
    } else if (allow_sigmoid_tanh && a == "Sigmoid") {
      fusion->activation = Activation::kSigmoid;
    } else if (allow_sigmoid_tanh && a == "Tanh") {
      fusion->activation = Activation::kTanh;
    } else {
      known = false;
    }
  }
  if (!known) {
    return absl::UnimplementedError(absl::StrCat("Fusion is not implemented: [",
                                                 absl::StrJoin(ops, ","), "]"));
  }
  fusion->batch_norm = ops[0] == "FusedBatchNorm";
  if (!fusion->batch_norm && num_args != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Fused ", op,
        " with BiasAdd must have one extra argument: bias or 4 extra "
        "arguments: bias, side_input, conv_input_scale and "
        "side_input_scale"));
  }
  if (fusion->batch_norm && num_args != 4) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Fused ", op,
        " with FusedBatchNorm must have four extra arguments: scale, "
        "offset, mean, variance."));
  }
  return absl::OkStatus();
}

// The per-channel constants of the epilogue, in the accumulation type A:
// y = act((x - mean) * scale + shift), mean and scale absent for BiasAdd
// (shift is the bias).
template <typename A>
struct Epilogue {
  std::vector<A> mean, scale, shift;
};

template <typename T, typename A>
absl::Status ReadEpilogue(OpKernelContext* ctx, const Fusion& fusion,
                          int first_arg, int64_t depth, Epilogue<A>* e) {
  static const char* const kBnNames[] = {"scale", "offset", "mean", "variance"};
  const int count = fusion.batch_norm ? 4 : 1;
  std::vector<std::vector<A>> args(count);
  for (int i = 0; i < count; ++i) {
    const Tensor& t = ctx->input(first_arg + i);
    const char* name = fusion.batch_norm ? kBnNames[i] : "bias";
    if (t.dims() != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          name, " must be 1-dimensional", t.shape().DebugString()));
    }
    if (t.NumElements() != depth) {
      return absl::InvalidArgumentError(
          absl::StrCat(name, " must have as many elements as the output depth ",
                       depth, ", got ", t.NumElements()));
    }
    const T* p = t.data<T>();
    args[i].assign(depth, A(0));
    for (int64_t c = 0; c < depth; ++c) args[i][c] = static_cast<A>(p[c]);
  }
  if (!fusion.batch_norm) {
    e->shift = std::move(args[0]);
    return absl::OkStatus();
  }
  // TensorFlow's inference batch norm: (x - mean) * scale / sqrt(var + eps)
  // + offset.
  e->mean = std::move(args[2]);
  e->shift = std::move(args[1]);
  e->scale = std::move(args[0]);
  // scale / sqrt(var + eps), as the FusedBatchNorm kernel computes its
  // factor: the same bits.
  for (int64_t c = 0; c < depth; ++c) {
    e->scale[c] /= std::sqrt(args[3][c] + static_cast<A>(fusion.epsilon));
  }
  return absl::OkStatus();
}

template <typename A>
inline A Activate(Activation act, A x, A alpha) {
  switch (act) {
    case Activation::kNone:
      return x;
    case Activation::kRelu:
      return x > A(0) ? x : A(0);
    case Activation::kRelu6:
      return x > A(0) ? (x < A(6) ? x : A(6)) : A(0);
    case Activation::kElu:
      return x < A(0) ? std::expm1(x) : x;
    case Activation::kLeakyRelu:
      return x > A(0) ? x : x * alpha;
    case Activation::kSigmoid:
      return A(1) / (A(1) + std::exp(-x));
    case Activation::kTanh:
      return std::tanh(x);
  }
  return x;
}

// The activation over a row, vectorized (Eigen's packet math).
template <typename A, Activation kAct, typename Row>
void ActivateRow(A alpha, Row&& row) {
  switch (kAct) {
    case Activation::kNone:
      return;
    case Activation::kRelu:
      row = row.max(A(0));
      return;
    case Activation::kRelu6:
      row = row.max(A(0)).min(A(6));
      return;
    case Activation::kElu:
      row = (row < A(0)).select(row.exp() - A(1), row);
      return;
    case Activation::kLeakyRelu:
      row = (row > A(0)).select(row, row * alpha);
      return;
    case Activation::kSigmoid:
      row = (A(1) + (-row).exp()).inverse();
      return;
    case Activation::kTanh:
      row = row.tanh();
      return;
  }
}

// Rows [first, last) of the [rows, depth] output, in place.
template <typename T, typename A, Activation kAct>
void ApplyRows(const Epilogue<A>& e, A alpha, int64_t depth, int64_t first,
               int64_t last, T* out) {
  if constexpr (std::is_same_v<T, A>) {
    // Eigen's packet math: GCC at -O2 leaves the scalar loops below
    // unvectorized, which made the fused node slower than the separate
    // element-wise kernels it replaces.
    using Array = Eigen::Array<A, Eigen::Dynamic, 1>;
    const Eigen::Map<const Array> shift(e.shift.data(), depth);
    const bool bn = !e.scale.empty();
    const Eigen::Map<const Array> mean(bn ? e.mean.data() : e.shift.data(),
                                       depth);
    const Eigen::Map<const Array> scale(bn ? e.scale.data() : e.shift.data(),
                                        depth);
    for (int64_t r = first; r < last; ++r) {
      Eigen::Map<Array> row(out + r * depth, depth);
      if (bn) {
        row = (row - mean) * scale + shift;
      } else {
        row += shift;
      }
      ActivateRow<A, kAct>(alpha, row);
    }
    return;
  }
  const A* shift = e.shift.data();
  if (e.scale.empty()) {
    for (int64_t r = first; r < last; ++r) {
      T* row = out + r * depth;
      for (int64_t c = 0; c < depth; ++c) {
        row[c] = static_cast<T>(
            Activate<A>(kAct, static_cast<A>(row[c]) + shift[c], alpha));
      }
    }
    return;
  }
  const A* mean = e.mean.data();
  const A* scale = e.scale.data();
  for (int64_t r = first; r < last; ++r) {
    T* row = out + r * depth;
    for (int64_t c = 0; c < depth; ++c) {
      const A x = (static_cast<A>(row[c]) - mean[c]) * scale[c] + shift[c];
      row[c] = static_cast<T>(Activate<A>(kAct, x, alpha));
    }
  }
}

// One pass over `out` ([rows, depth], row-major), split into row chunks
// on the intra-op pool.
template <typename T, typename A>
void ApplyEpilogue(const Device& device, const Fusion& fusion,
                   const Epilogue<A>& e, int64_t rows, int64_t depth, T* out) {
  const A alpha = static_cast<A>(fusion.leakyrelu_alpha);
  const double cycles = static_cast<double>(depth) *
                        (fusion.activation == Activation::kElu ||
                                 fusion.activation == Activation::kSigmoid ||
                                 fusion.activation == Activation::kTanh
                             ? 20.0
                             : 3.0);
  auto body = [&](int64_t first, int64_t last) {
    switch (fusion.activation) {
      case Activation::kNone:
        return ApplyRows<T, A, Activation::kNone>(e, alpha, depth, first, last,
                                                  out);
      case Activation::kRelu:
        return ApplyRows<T, A, Activation::kRelu>(e, alpha, depth, first, last,
                                                  out);
      case Activation::kRelu6:
        return ApplyRows<T, A, Activation::kRelu6>(e, alpha, depth, first, last,
                                                   out);
      case Activation::kElu:
        return ApplyRows<T, A, Activation::kElu>(e, alpha, depth, first, last,
                                                 out);
      case Activation::kLeakyRelu:
        return ApplyRows<T, A, Activation::kLeakyRelu>(e, alpha, depth, first,
                                                       last, out);
      case Activation::kSigmoid:
        return ApplyRows<T, A, Activation::kSigmoid>(e, alpha, depth, first,
                                                     last, out);
      case Activation::kTanh:
        return ApplyRows<T, A, Activation::kTanh>(e, alpha, depth, first, last,
                                                  out);
    }
  };
  ParallelForCost(device, rows, cycles, body);
}

// _FusedConv2D: Conv2D's checks and output, then (for a non-empty output)
// TensorFlow's fused-kernel checks: no groups, NHWC, the arguments'
// shapes. T: float or double; half is registered as TensorFlow registers
// it and refused as its kernel refuses it.
template <typename T, typename A>
class FusedConv2DOp : public OpKernel {
 public:
  explicit FusedConv2DOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ReadConvAttrs(*ctx, &attrs_));
    if (!ctx->status().ok()) return;
    ctx->SetStatus(ReadFusion(*ctx, "Conv2D", /*allow_batch_norm=*/true,
                              /*allow_sigmoid_tanh=*/false, &fusion_));
  }

  void Compute(OpKernelContext* ctx) override {
    Tensor input = ctx->input(0);
    Tensor filter = ctx->input(1);
    ConvGeom geom;
    DFX_OP_REQUIRES_OK(ctx, ConvInputAndFilter(attrs_, input.shape(),
                                               filter.shape(), false, &geom));
    DFX_OP_REQUIRES_OK(ctx, ComputeConvOutput(attrs_, &geom));
    std::vector<int64_t> dims = {geom.batch, geom.out_rows, geom.out_cols,
                                 geom.out_depth};
    if (attrs_.nchw)
      dims = {geom.batch, geom.out_depth, geom.out_rows, geom.out_cols};
    auto shape = TensorShape::Build(dims);
    DFX_OP_REQUIRES_OK(ctx, shape.status());
    Tensor* output = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &output));
    if (output->NumElements() == 0) return;
    DFX_OP_REQUIRES(ctx, geom.groups == 1,
                    absl::UnimplementedError(
                        "Fused conv implementation does not support grouped "
                        "convolutions for now."));
    DFX_OP_REQUIRES(ctx, !attrs_.nchw,
                    absl::UnimplementedError(
                        "Fused conv implementation only supports NHWC tensor "
                        "format for now."));
    Epilogue<A> epilogue;
    DFX_OP_REQUIRES_OK(
        ctx, (ReadEpilogue<T, A>(ctx, fusion_, 2, geom.out_depth, &epilogue)));
    DFX_OP_REQUIRES_OK(ctx, runner_.Run(ctx, ConvPass::kForward, geom, &input,
                                        &filter, output));
    ApplyEpilogue<T, A>(*ctx->device(), fusion_, epilogue,
                        output->NumElements() / geom.out_depth, geom.out_depth,
                        output->data<T>());
  }

 private:
  ConvAttrs attrs_;
  Fusion fusion_;
  ConvRunner runner_;
};

// TensorFlow 2.21 registers a half _FusedConv2D CPU kernel whose launcher
// has no half implementation ("Op does not support ... inputs").
class FusedConv2DHalfOp : public OpKernel {
 public:
  explicit FusedConv2DHalfOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    ctx->SetStatus(
        absl::InvalidArgumentError("Op does not support Eigen::half inputs"));
  }
};

// _FusedMatMul: MatMul's checks and product, then the epilogue. T: float,
// half, bfloat16 (the last two accumulate the epilogue in float).
template <typename T>
class FusedMatMulOp : public OpKernel {
 public:
  explicit FusedMatMulOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("transpose_a", &transpose_a_));
    ctx->SetStatus(ctx->GetAttr("transpose_b", &transpose_b_));
    if (!ctx->status().ok()) return;
    ctx->SetStatus(ReadFusion(*ctx, "MatMul", /*allow_batch_norm=*/false,
                              /*allow_sigmoid_tanh=*/true, &fusion_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    absl::StatusOr<MatMulDims> d =
        MatMulShape(a.shape(), b.shape(), transpose_a_, transpose_b_);
    DFX_OP_REQUIRES_OK(ctx, d.status());
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(0, TensorShape({d->m, d->n}), &out));
    if (out->NumElements() == 0) return;
    if (d->k == 0) {
      // As TensorFlow's kernel: both operands empty give zeros, without
      // the epilogue.
      std::fill_n(out->data<T>(), out->NumElements(), T(0));
      return;
    }
    Epilogue<float> epilogue;
    DFX_OP_REQUIRES_OK(
        ctx, (ReadEpilogue<T, float>(ctx, fusion_, 2, d->n, &epilogue)));
    linalg::Gemm<T>(*ctx->device(), d->m, d->n, d->k, a.data<T>(),
                    a.dim_size(1), transpose_a_, b.data<T>(), b.dim_size(1),
                    transpose_b_, out->data<T>(), d->n);
    ApplyEpilogue<T, float>(*ctx->device(), fusion_, epilogue, d->m, d->n,
                            out->data<T>());
  }

 private:
  bool transpose_a_ = false;
  bool transpose_b_ = false;
  Fusion fusion_;
};

}  // namespace
}  // namespace conv_internal

void RegisterFusedKernels(KernelRegistry* registry) {
  using conv_internal::FusedConv2DOp;
  using conv_internal::FusedMatMulOp;
  RegisterKernel<FusedConv2DOp<float, float>>(
      registry, KernelDefBuilder("_FusedConv2D").TypeConstraint<float>("T"));
  RegisterKernel<FusedConv2DOp<double, double>>(
      registry, KernelDefBuilder("_FusedConv2D").TypeConstraint<double>("T"));
  RegisterKernel<conv_internal::FusedConv2DHalfOp>(
      registry,
      KernelDefBuilder("_FusedConv2D").TypeConstraint<Eigen::half>("T"));
  RegisterKernel<FusedMatMulOp<float>>(
      registry, KernelDefBuilder("_FusedMatMul").TypeConstraint<float>("T"));
  RegisterKernel<FusedMatMulOp<Eigen::half>>(
      registry,
      KernelDefBuilder("_FusedMatMul").TypeConstraint<Eigen::half>("T"));
  RegisterKernel<FusedMatMulOp<Eigen::bfloat16>>(
      registry,
      KernelDefBuilder("_FusedMatMul").TypeConstraint<Eigen::bfloat16>("T"));
}

}  // namespace dfx

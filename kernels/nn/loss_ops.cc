// The losses on CPU: L2Loss, SoftmaxCrossEntropyWithLogits (labels and
// logits broadcast against each other to [batch, classes]) and
// SparseSoftmaxCrossEntropyWithLogits. Half and bfloat16 are computed in
// float; the softmax of each row is shifted by the row's maximum, so large
// logits do not overflow.
#include "kernels/nn/nn_util.h"

#include <cstdint>
#include <string>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/broadcast.h"

namespace dfx::nn_internal {
namespace {

using Eigen::bfloat16;
using Eigen::half;
using Index = Eigen::DenseIndex;

// sum(t^2) / 2, a scalar.
template <typename T>
class L2LossOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    using A = AccumType<T>;
    const Tensor& in = ctx->input(0);
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({}), &out));
    A sum = A(0);
    if (in.NumElements() > 0) {
      typename EigenTypes<A>::Scalar result(&sum);
      Assign(*ctx, in.NumElements(), result,
             flat<T>(in).template cast<A>().square().sum() *
                 static_cast<A>(0.5));
    }
    out->scalar<T>() = static_cast<T>(sum);
  }
};

// Row statistics shared by both cross entropies, over [rows, classes] in A:
// on return shifted = logits - max(row) and log_sum[r] = log(sum(exp(row of
// shifted))).
template <typename A>
void ShiftAndLogSumExp(const OpKernelContext& ctx, const A* logits,
                       A* shifted, A* log_sum, int64_t rows, int64_t classes) {
  const int64_t total = rows * classes;
  const Eigen::DSizes<Index, 2> rows_by_one(rows, 1);
  const Eigen::DSizes<Index, 2> one_by_classes(1, classes);
  const Eigen::array<Index, 1> along_class = {1};
  const typename EigenTypes<A, 2>::ConstTensor x(logits, rows, classes);
  typename EigenTypes<A, 2>::Tensor s(shifted, rows, classes);
  typename EigenTypes<A>::Flat stat(log_sum, rows);
  Assign(ctx, total, stat, x.maximum(along_class));
  Assign(ctx, total, s,
         x - stat.reshape(rows_by_one).broadcast(one_by_classes));
  Assign(ctx, total, stat, s.exp().sum(along_class).log());
}

// `in` (rank <= 2) in A, broadcast to [rows, classes], into `out`.
template <typename T, typename A>
void BroadcastToMatrix(const OpKernelContext& ctx, const Tensor& in,
                       int64_t rows, int64_t classes, A* out) {
  const Eigen::DSizes<Index, 2> in_dims = EigenDimsPadded<2>(in.shape());
  const Eigen::DSizes<Index, 2> factors(in_dims[0] == rows ? 1 : rows,
                                        in_dims[1] == classes ? 1 : classes);
  typename EigenTypes<A, 2>::Tensor o(out, rows, classes);
  Assign(ctx, rows * classes, o,
         shaped<T, 2>(in, in_dims).template cast<A>().broadcast(factors));
}

// loss[r] = sum(labels * (log_sum - shifted)) over the row, and backprop =
// softmax(logits) - labels.
template <typename T>
class SoftmaxXentOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    using A = AccumType<T>;
    const Tensor& logits = ctx->input(0);
    const Tensor& labels = ctx->input(1);
    TensorShape shape = logits.shape();
    if (logits.shape() != labels.shape()) {
      absl::StatusOr<TensorShape> b =
          BroadcastShapes(logits.shape(), labels.shape());
      DFX_OP_REQUIRES(
          ctx, b.ok(),
          absl::InvalidArgumentError(absl::StrCat(
              "logits and labels must be broadcastable: logits_size=",
              logits.shape().DebugString(),
              " labels_size=", labels.shape().DebugString())));
      shape = *b;
    }
    DFX_OP_REQUIRES(ctx, shape.dims() == 2,
                    absl::InvalidArgumentError(
                        "logits and labels must be either 2-dimensional, or "
                        "broadcasted to be 2-dimensional"));
    const int64_t rows = shape.dim_size(0);
    const int64_t classes = shape.dim_size(1);
    Tensor* loss = nullptr;
    Tensor* backprop = nullptr;
    DFX_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(0, TensorShape({rows}), &loss));
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(1, shape, &backprop));
    if (rows == 0) return;
    if (classes == 0) {
      flat<T>(*loss).setZero();
      return;
    }
    const int64_t total = rows * classes;
    const DataType a_type = DataTypeToEnum<A>::value;

    // The inputs as [rows, classes] in A: the tensors themselves when they
    // already are, else broadcast (and converted) copies.
    Tensor logits_a, labels_a;
    const A* x = nullptr;
    const A* y = nullptr;
    if (std::is_same_v<A, T> && logits.shape() == shape) {
      x = reinterpret_cast<const A*>(logits.raw_data());
    } else {
      DFX_OP_REQUIRES_OK(ctx, ctx->allocate_temp(a_type, shape, &logits_a));
      BroadcastToMatrix<T, A>(*ctx, logits, rows, classes,
                              logits_a.data<A>());
      x = logits_a.data<A>();
    }
    if (std::is_same_v<A, T> && labels.shape() == shape) {
      y = reinterpret_cast<const A*>(labels.raw_data());
    } else {
      DFX_OP_REQUIRES_OK(ctx, ctx->allocate_temp(a_type, shape, &labels_a));
      BroadcastToMatrix<T, A>(*ctx, labels, rows, classes,
                              labels_a.data<A>());
      y = labels_a.data<A>();
    }
    // Outputs in A: the output tensors themselves for float and double.
    Tensor loss_a, backprop_a;
    A* l = nullptr;
    A* bp = nullptr;
    if constexpr (std::is_same_v<A, T>) {
      l = loss->data<A>();
      bp = backprop->data<A>();
    } else {
      DFX_OP_REQUIRES_OK(ctx, ctx->allocate_temp(a_type, TensorShape({rows}),
                                                 &loss_a));
      DFX_OP_REQUIRES_OK(ctx, ctx->allocate_temp(a_type, shape, &backprop_a));
      l = loss_a.data<A>();
      bp = backprop_a.data<A>();
    }
    Tensor log_sum_t;
    DFX_OP_REQUIRES_OK(
        ctx, ctx->allocate_temp(a_type, TensorShape({rows}), &log_sum_t));
    A* log_sum = log_sum_t.data<A>();
    ShiftAndLogSumExp<A>(*ctx, x, bp, log_sum, rows, classes);

    const Eigen::DSizes<Index, 2> rows_by_one(rows, 1);
    const Eigen::DSizes<Index, 2> one_by_classes(1, classes);
    const Eigen::array<Index, 1> along_class = {1};
    const typename EigenTypes<A, 2>::ConstTensor lab(y, rows, classes);
    typename EigenTypes<A, 2>::Tensor shifted(bp, rows, classes);
    // A named map: the expressions below hold it by reference.
    const typename EigenTypes<A>::ConstFlat log_sum_v(log_sum, rows);
    const auto log_sum_b =
        log_sum_v.reshape(rows_by_one).broadcast(one_by_classes);
    // As TensorFlow: a label of 0 against a logit of -inf gives NaN.
    Assign(*ctx, total, typename EigenTypes<A>::Flat(l, rows),
           (lab * (log_sum_b - shifted)).sum(along_class));
    Assign(*ctx, total, shifted, FlushedExp(shifted - log_sum_b) - lab);
    if constexpr (!std::is_same_v<A, T>) {
      Assign(*ctx, rows, flat<T>(*loss), flat<A>(loss_a).template cast<T>());
      Assign(*ctx, total, flat<T>(*backprop),
             flat<A>(backprop_a).template cast<T>());
    }
  }
};

// loss[r] = log_sum[r] - shifted[r, labels[r]], backprop = softmax(logits)
// - one_hot(labels). A label outside [0, classes) is InvalidArgument.
template <typename T, typename Tlabel>
class SparseSoftmaxXentOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    using A = AccumType<T>;
    const Tensor& logits = ctx->input(0);
    const Tensor& labels = ctx->input(1);
    DFX_OP_REQUIRES(ctx, logits.dims() == 2,
                    absl::InvalidArgumentError(
                        absl::StrCat("logits must be 2-D, but got shape ",
                                     logits.shape().DebugString())));
    DFX_OP_REQUIRES(ctx, labels.dims() == 1,
                    absl::InvalidArgumentError(
                        absl::StrCat("labels must be 1-D, but got shape ",
                                     labels.shape().DebugString())));
    DFX_OP_REQUIRES(
        ctx, logits.dim_size(0) == labels.dim_size(0),
        absl::InvalidArgumentError(absl::StrCat(
            "logits and labels must have the same first dimension, got "
            "logits shape ",
            logits.shape().DebugString(), " and labels shape ",
            labels.shape().DebugString())));
    DFX_OP_REQUIRES(
        ctx, logits.dim_size(1) > 0,
        absl::InvalidArgumentError(absl::StrCat(
            "Must have at least one class, but got logits shape ",
            logits.shape().DebugString())));
    const int64_t rows = logits.dim_size(0);
    const int64_t classes = logits.dim_size(1);
    const Tlabel* label = labels.data<Tlabel>();
    for (int64_t r = 0; r < rows; ++r) {
      if (label[r] < 0 || static_cast<int64_t>(label[r]) >= classes) {
        ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
            "Received a label value of ", label[r],
            " which is outside the valid range of [0, ", classes,
            ").  Label values: ",
            absl::StrJoin(labels.span<Tlabel>(), " "))));
        return;
      }
    }
    Tensor* loss = nullptr;
    Tensor* backprop = nullptr;
    DFX_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(0, TensorShape({rows}), &loss));
    DFX_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(1, logits.shape(), &backprop));
    if (rows == 0) return;
    const int64_t total = rows * classes;
    const DataType a_type = DataTypeToEnum<A>::value;

    Tensor logits_a, backprop_a, log_sum_t;
    const A* x = nullptr;
    A* bp = nullptr;
    if constexpr (std::is_same_v<A, T>) {
      x = logits.data<A>();
      bp = backprop->data<A>();
    } else {
      DFX_OP_REQUIRES_OK(ctx,
                         ctx->allocate_temp(a_type, logits.shape(), &logits_a));
      DFX_OP_REQUIRES_OK(
          ctx, ctx->allocate_temp(a_type, logits.shape(), &backprop_a));
      Assign(*ctx, total, flat<A>(logits_a),
             flat<T>(logits).template cast<A>());
      x = logits_a.data<A>();
      bp = backprop_a.data<A>();
    }
    DFX_OP_REQUIRES_OK(
        ctx, ctx->allocate_temp(a_type, TensorShape({rows}), &log_sum_t));
    A* log_sum = log_sum_t.data<A>();
    ShiftAndLogSumExp<A>(*ctx, x, bp, log_sum, rows, classes);

    T* l = loss->data<T>();
    for (int64_t r = 0; r < rows; ++r) {
      l[r] = static_cast<T>(log_sum[r] - bp[r * classes + label[r]]);
    }
    const Eigen::DSizes<Index, 2> rows_by_one(rows, 1);
    const Eigen::DSizes<Index, 2> one_by_classes(1, classes);
    typename EigenTypes<A, 2>::Tensor shifted(bp, rows, classes);
    const typename EigenTypes<A>::ConstFlat log_sum_v(log_sum, rows);
    Assign(*ctx, total, shifted,
           FlushedExp(shifted - log_sum_v.reshape(rows_by_one)
                                    .broadcast(one_by_classes)));
    for (int64_t r = 0; r < rows; ++r) {
      bp[r * classes + label[r]] -= static_cast<A>(1);
    }
    if constexpr (!std::is_same_v<A, T>) {
      Assign(*ctx, total, flat<T>(*backprop),
             flat<A>(backprop_a).template cast<T>());
    }
  }
};

template <typename T>
void RegisterFloating(KernelRegistry* registry) {
  RegisterKernel<L2LossOp<T>>(
      registry, KernelDefBuilder("L2Loss").TypeConstraint<T>("T"));
  RegisterKernel<SoftmaxXentOp<T>>(
      registry, KernelDefBuilder("SoftmaxCrossEntropyWithLogits")
                    .TypeConstraint<T>("T"));
  RegisterKernel<SparseSoftmaxXentOp<T, int32_t>>(
      registry, KernelDefBuilder("SparseSoftmaxCrossEntropyWithLogits")
                    .TypeConstraint<T>("T")
                    .template TypeConstraint<int32_t>("Tlabels"));
  RegisterKernel<SparseSoftmaxXentOp<T, int64_t>>(
      registry, KernelDefBuilder("SparseSoftmaxCrossEntropyWithLogits")
                    .TypeConstraint<T>("T")
                    .template TypeConstraint<int64_t>("Tlabels"));
}

}  // namespace

void RegisterLossKernels(KernelRegistry* registry) {
  RegisterFloating<float>(registry);
  RegisterFloating<double>(registry);
  RegisterFloating<half>(registry);
  RegisterFloating<bfloat16>(registry);
}

}  // namespace dfx::nn_internal

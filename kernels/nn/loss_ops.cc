// The losses on CPU: L2Loss, SoftmaxCrossEntropyWithLogits (labels and
// logits broadcast against each other to [batch, classes]) and
// SparseSoftmaxCrossEntropyWithLogits. Half and bfloat16 are computed in
// float. The cross-entropies run each row fused (softmax_rows.h: the row's
// maximum, its exp sum, then loss and backprop in one pass), rows split over
// the intra-op pool; each row is shifted by its maximum, so large logits do
// not overflow.
#include "kernels/nn/softmax_rows.h"

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/broadcast.h"
#include "kernels/nn/sparse_xent_checks.h"

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

// The cost of one cross-entropy row of `classes` values of T.
template <typename T>
Eigen::TensorOpCost XentRowCost(int64_t classes) {
  return Eigen::TensorOpCost(static_cast<double>(2 * classes * sizeof(T)),
                             static_cast<double>(classes * sizeof(T)),
                             static_cast<double>(classes * 10));
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
    const DataType a_type = DataTypeToEnum<A>::value;

    // The inputs as [rows, classes] of T: the tensors themselves when they
    // already are, else broadcast copies (in A for half and bfloat16).
    Tensor logits_b, labels_b;
    const T* x = logits.data<T>();
    const T* y = labels.data<T>();
    bool x_in_a = false, y_in_a = false;
    if (logits.shape() != shape) {
      DFX_OP_REQUIRES_OK(ctx, ctx->allocate_temp(a_type, shape, &logits_b));
      BroadcastToMatrix<T, A>(*ctx, logits, rows, classes,
                              logits_b.data<A>());
      x_in_a = true;
    }
    if (labels.shape() != shape) {
      DFX_OP_REQUIRES_OK(ctx, ctx->allocate_temp(a_type, shape, &labels_b));
      BroadcastToMatrix<T, A>(*ctx, labels, rows, classes,
                              labels_b.data<A>());
      y_in_a = true;
    }
    T* l = loss->data<T>();
    T* bp = backprop->data<T>();
    ParallelForBlocks(
        *ctx->device(), rows, XentRowCost<T>(classes),
        [&](int64_t first, int64_t last) {
          // Rows in A: the tensors' own rows where T is A, else widened.
          std::vector<A> scratch;
          if (!std::is_same_v<A, T>) scratch.resize(3 * classes);
          for (int64_t r = first; r < last; ++r) {
            const int64_t off = r * classes;
            const A* xr = x_in_a ? logits_b.data<A>() + off
                                 : reinterpret_cast<const A*>(x + off);
            const A* yr = y_in_a ? labels_b.data<A>() + off
                                 : reinterpret_cast<const A*>(y + off);
            A* br = reinterpret_cast<A*>(bp + off);
            if constexpr (!std::is_same_v<A, T>) {
              if (!x_in_a) {
                ConvertRun(x + off, scratch.data(), classes);
                xr = scratch.data();
              }
              if (!y_in_a) {
                ConvertRun(y + off, scratch.data() + classes, classes);
                yr = scratch.data() + classes;
              }
              br = scratch.data() + 2 * classes;
            }
            const A row_loss = XentRow<A>(xr, yr, br, classes);
            l[r] = static_cast<T>(row_loss);
            if constexpr (!std::is_same_v<A, T>) {
              ConvertRun(br, bp + off, classes);
            }
          }
        });
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
    DFX_OP_REQUIRES_OK(ctx, CheckSparseXentShapes(logits, labels));
    const int64_t rows = logits.dim_size(0);
    const int64_t classes = logits.dim_size(1);
    DFX_OP_REQUIRES_OK(ctx, CheckSparseLabels<Tlabel>(labels, classes));
    const Tlabel* label = labels.data<Tlabel>();
    Tensor* loss = nullptr;
    Tensor* backprop = nullptr;
    DFX_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(0, TensorShape({rows}), &loss));
    DFX_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(1, logits.shape(), &backprop));
    if (rows == 0) return;
    const T* x = logits.data<T>();
    T* l = loss->data<T>();
    T* bp = backprop->data<T>();
    ParallelForBlocks(
        *ctx->device(), rows, XentRowCost<T>(classes),
        [&](int64_t first, int64_t last) {
          std::vector<A> scratch;
          if (!std::is_same_v<A, T>) scratch.resize(2 * classes);
          for (int64_t r = first; r < last; ++r) {
            const int64_t off = r * classes;
            const int64_t lab = static_cast<int64_t>(label[r]);
            if constexpr (std::is_same_v<A, T>) {
              l[r] = SparseXentRow<A>(x + off, lab, bp + off, classes);
            } else {
              ConvertRun(x + off, scratch.data(), classes);
              l[r] = static_cast<T>(SparseXentRow<A>(
                  scratch.data(), lab, scratch.data() + classes, classes));
              ConvertRun(scratch.data() + classes, bp + off, classes);
            }
          }
        });
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

// CTCLoss: the connectionist temporal classification loss of each batch
// member and its gradient with respect to the logits, as TensorFlow 2.21's
// CPU kernel (ctc_loss_calculator.h) computes them: softmax per step,
// log-space forward and backward variables over the label sequence with
// blanks (blank = num_classes - 1), preprocess_collapse_repeated,
// ctc_merge_repeated and ignore_longer_outputs_than_inputs.
#include "kernels/eigen_util.h"  // first: defines EIGEN_USE_THREADS

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/math/misc_kernels.h"
#include "kernels/nn/ctc_util.h"

namespace dfx::misc_internal {
namespace {

using ctc::LogSumExp;
using ctc::LogZero;

// The label checks and l' (blanks around every label) of one batch member.
absl::Status LPrime(const std::vector<int>& label, int b, int num_classes,
                    bool collapse, bool ignore_longer, int seq_len,
                    std::vector<int>* l_prime) {
  if (label.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Labels length is zero in batch ", b));
  }
  std::vector<int> l;
  bool finished = false;
  for (size_t i = 0; i < label.size(); ++i) {
    if (i == 0 || !collapse || label[i] != label[i - 1]) {
      if (label[i] >= num_classes - 1) {
        finished = true;
      } else {
        if (finished) {
          return absl::InvalidArgumentError(absl::StrCat(
              "Saw a non-null label (index >= num_classes - 1) following a ",
              "null label, batch: ", b, " num_classes: ", num_classes,
              " labels: ", absl::StrJoin(label, ","),
              " labels seen so far: ", absl::StrJoin(l, ",")));
        }
        l.push_back(label[i]);
      }
    }
  }
  for (int v : l) {
    if (v < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("All labels must be nonnegative integers, batch: ", b,
                       " labels: ", absl::StrJoin(l, ",")));
    }
  }
  if (!ignore_longer && static_cast<int64_t>(label.size()) > seq_len) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Not enough time for target transition sequence (required: ",
        label.size(), ", available: ", seq_len, ")", b,
        "You can turn this error into a warning by using the flag "
        "ignore_longer_outputs_than_inputs"));
  }
  const int blank = num_classes - 1;
  l_prime->clear();
  for (int v : l) {
    l_prime->push_back(blank);
    l_prime->push_back(v);
  }
  l_prime->push_back(blank);
  return absl::OkStatus();
}

// One batch member: y is [num_classes, steps] column-major (y[c + t * L]),
// the softmax of its logits; writes the loss and dy (same layout).
template <typename T>
T LossAndGradient(const std::vector<int>& lp, const std::vector<T>& y,
                  int num_classes, int steps, bool merge,
                  std::vector<T>* dy) {
  const int L = num_classes;
  const int U = static_cast<int>(lp.size());
  const int blank = num_classes - 1;
  auto Y = [&](int c, int t) { return y[c + static_cast<size_t>(t) * L]; };
  std::vector<T> alpha(static_cast<size_t>(U) * steps, LogZero<T>());
  std::vector<T> beta(static_cast<size_t>(U) * steps, LogZero<T>());
  auto A = [&](int u, int t) -> T& { return alpha[u + static_cast<size_t>(t) * U]; };
  auto B = [&](int u, int t) -> T& { return beta[u + static_cast<size_t>(t) * U]; };
  // Forward variables (Graves, Eq 7.5, 7.6, 7.9).
  A(0, 0) = std::log(Y(blank, 0));
  // TensorFlow writes alpha(1, 0) even for U == 1 (no labels left after
  // the null-label cut); dfx only where it exists.
  if (U > 1) A(1, 0) = std::log(Y(lp[1], 0));
  for (int t = 1; t < steps; ++t) {
    for (int u = std::max(0, U - 2 * (steps - t)); u < std::min(U, 2 * (t + 1));
         ++u) {
      T sum = LogZero<T>();
      if (merge || lp[u] == blank) sum = A(u, t - 1);
      if (u > 0) sum = LogSumExp(sum, A(u - 1, t - 1));
      if (u > 1) {
        const bool same = merge && lp[u] == lp[u - 2];
        if (lp[u] != blank && !same) sum = LogSumExp(sum, A(u - 2, t - 1));
      }
      A(u, t) = std::log(Y(lp[u], t)) + sum;
    }
  }
  // Backward variables (Eq 7.13, 7.15).
  for (int u = std::max(0, U - 2); u < U; ++u) B(u, steps - 1) = 0;
  for (int t = steps - 2; t >= 0; --t) {
    for (int u = std::max(0, U - 2 * (steps - t)); u < std::min(U, 2 * (t + 1));
         ++u) {
      if (merge || lp[u] == blank) {
        B(u, t) = LogSumExp(B(u, t), B(u, t + 1) + std::log(Y(lp[u], t + 1)));
      }
      if (u + 1 < U) {
        B(u, t) = LogSumExp(B(u, t),
                            B(u + 1, t + 1) + std::log(Y(lp[u + 1], t + 1)));
      }
      if (u + 2 < U) {
        const bool same = merge && lp[u] == lp[u + 2];
        if (lp[u] != blank && !same) {
          B(u, t) = LogSumExp(B(u, t),
                              B(u + 2, t + 1) + std::log(Y(lp[u + 2], t + 1)));
        }
      }
    }
  }
  T log_p = LogZero<T>();
  for (int u = 0; u < U; ++u) log_p = LogSumExp(log_p, A(u, 0) + B(u, 0));
  // Gradient (Eq 7.28); no valid path gives the softmax itself.
  if (log_p == LogZero<T>()) {
    *dy = y;
    return -log_p;
  }
  std::vector<T> prob_sum(L);
  for (int t = 0; t < steps; ++t) {
    std::fill(prob_sum.begin(), prob_sum.end(), LogZero<T>());
    for (int u = 0; u < U; ++u) {
      prob_sum[lp[u]] = LogSumExp(prob_sum[lp[u]], A(u, t) + B(u, t));
    }
    for (int c = 0; c < L; ++c) {
      // TensorFlow takes this exp in float, for double too.
      const T negative =
          static_cast<T>(expf(static_cast<float>(prob_sum[c] - log_p)));
      (*dy)[c + static_cast<size_t>(t) * L] = Y(c, t) - negative;
    }
  }
  return -log_p;
}

template <typename T>
class CTCLossOp : public OpKernel {
 public:
  explicit CTCLossOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("preprocess_collapse_repeated", &collapse_));
    ctx->SetStatus(ctx->GetAttr("ctc_merge_repeated", &merge_));
    ctx->SetStatus(
        ctx->GetAttr("ignore_longer_outputs_than_inputs", &ignore_longer_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& inputs = ctx->input(0);
    const Tensor& indices = ctx->input(1);
    const Tensor& values = ctx->input(2);
    const Tensor& seq_len = ctx->input(3);
    DFX_OP_REQUIRES(ctx, inputs.dims() == 3,
                    absl::InvalidArgumentError("inputs is not a 3-Tensor"));
    DFX_OP_REQUIRES(ctx, seq_len.dims() == 1,
                    absl::InvalidArgumentError(
                        "sequence_length is not a vector"));
    DFX_OP_REQUIRES(ctx, indices.dims() == 2,
                    absl::InvalidArgumentError(
                        "labels_indices is not a matrix"));
    DFX_OP_REQUIRES(ctx, indices.dim_size(1) > 1,
                    absl::InvalidArgumentError(absl::StrCat(
                        "labels_indices second dimension must be >= 1. "
                        "Received ",
                        indices.dim_size(1))));
    DFX_OP_REQUIRES(ctx, values.dims() == 1,
                    absl::InvalidArgumentError(
                        "labels_values is not a vector"));
    const int64_t max_time = inputs.dim_size(0);
    const int64_t batch = inputs.dim_size(1);
    const int64_t classes = inputs.dim_size(2);
    DFX_OP_REQUIRES(ctx, max_time != 0,
                    absl::InvalidArgumentError(
                        "Max time or first dimension of input cannot be 0."));
    DFX_OP_REQUIRES(ctx, classes <= std::numeric_limits<int>::max(),
                    absl::InvalidArgumentError(
                        "num_classes cannot exceed max int"));
    DFX_OP_REQUIRES(ctx, seq_len.dim_size(0) == batch,
                    absl::InvalidArgumentError(absl::StrCat(
                        "len(sequence_length) != batch_size.  "
                        "len(sequence_length):  ",
                        seq_len.dim_size(0), " batch_size: ", batch)));
    DFX_OP_REQUIRES(ctx, indices.dim_size(0) == values.dim_size(0),
                    absl::InvalidArgumentError(absl::StrCat(
                        "labels_indices and labels_values must contain the "
                        "same number of rows, but saw shapes: ",
                        indices.shape().DebugString(), " vs. ",
                        values.shape().DebugString())));
    DFX_OP_REQUIRES(ctx, batch != 0,
                    absl::InvalidArgumentError("batch_size must not be 0"));
    // The labels, a sparse [batch, longest] tensor in row-major order.
    const int64_t n = indices.dim_size(0);
    const int64_t width = indices.dim_size(1);
    const int64_t* idx = indices.data<int64_t>();
    int64_t longest = 0;
    for (int64_t i = 0; i < n; ++i) {
      longest = std::max(longest, idx[i * width + 1] + 1);
    }
    std::vector<std::vector<int>> labels(batch);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t b = idx[i * width];
      const int64_t j = idx[i * width + 1];
      auto where = [&] {
        return absl::StrCat("indices[", i, "] = [", b, ",", j, "]");
      };
      DFX_OP_REQUIRES(
          ctx, b >= 0 && b < batch && j >= 0 && j < longest,
          absl::InvalidArgumentError(absl::StrCat(
              "label SparseTensor is not valid: ", where(),
              " is out of bounds: need 0 <= index < [", batch, ",", longest,
              "]")));
      if (i > 0) {
        const int64_t pb = idx[(i - 1) * width];
        const int64_t pj = idx[(i - 1) * width + 1];
        DFX_OP_REQUIRES(ctx, !(pb == b && pj == j),
                        absl::InvalidArgumentError(absl::StrCat(
                            "label SparseTensor is not valid: ", where(),
                            " is repeated")));
        DFX_OP_REQUIRES(
            ctx, pb < b || (pb == b && pj < j),
            absl::InvalidArgumentError(absl::StrCat(
                "label SparseTensor is not valid: ", where(),
                " is out of order. Many sparse ops require sorted indices.\n"
                "    Use `tf.sparse.reorder` to create a correctly ordered "
                "copy.\n\n")));
      }
      labels[b].push_back(values.data<int32_t>()[i]);
    }
    const int32_t* lengths = seq_len.data<int32_t>();
    for (int64_t b = 0; b < batch; ++b) {
      DFX_OP_REQUIRES(ctx, lengths[b] <= max_time,
                      absl::InvalidArgumentError(absl::StrCat(
                          "sequence_length(", b, ") <= ", max_time)));
    }
    Tensor* loss = nullptr;
    Tensor* grad = nullptr;
    DFX_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(0, TensorShape({batch}), &loss));
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(1, inputs.shape(), &grad));
    T* lo = loss->data<T>();
    T* g = grad->data<T>();
    std::fill(lo, lo + batch, T(0));
    std::fill(g, g + grad->NumElements(), T(0));
    for (int64_t b = 0; b < batch; ++b) {
      DFX_OP_REQUIRES(ctx, lengths[b] >= 0,
                      absl::InvalidArgumentError(
                          absl::StrCat("seq_len(", b, ") < 0")));
    }
    const int num_classes = static_cast<int>(classes);
    std::vector<std::vector<int>> l_primes(batch);
    for (int64_t b = 0; b < batch; ++b) {
      DFX_OP_REQUIRES_OK(
          ctx, LPrime(labels[b], static_cast<int>(b), num_classes, collapse_,
                      ignore_longer_, lengths[b], &l_primes[b]));
    }
    const T* in = inputs.data<T>();
    const bool merge = merge_;
    const bool ignore_longer = ignore_longer_;
    ParallelFor(
        *ctx->device(), batch,
        Eigen::TensorOpCost(max_time * classes * sizeof(T),
                            max_time * classes * sizeof(T),
                            60.0 * max_time * (classes + 4 * longest + 2)),
        [&](int64_t first, int64_t last) {
          for (int64_t b = first; b < last; ++b) {
            const int steps = lengths[b];
            if (steps == 0 ||
                (ignore_longer &&
                 static_cast<int64_t>(labels[b].size()) > steps)) {
              continue;
            }
            // Softmax of each step's logits, in T.
            std::vector<T> y(static_cast<size_t>(num_classes) * steps);
            for (int t = 0; t < steps; ++t) {
              const T* row = in + (t * batch + b) * classes;
              const T max_coeff = *std::max_element(row, row + classes);
              T sum(0);
              for (int c = 0; c < num_classes; ++c) {
                y[c + static_cast<size_t>(t) * num_classes] =
                    std::exp(row[c] - max_coeff);
                sum += y[c + static_cast<size_t>(t) * num_classes];
              }
              for (int c = 0; c < num_classes; ++c) {
                y[c + static_cast<size_t>(t) * num_classes] /= sum;
              }
            }
            std::vector<T> dy(y.size(), T(0));
            lo[b] = LossAndGradient<T>(l_primes[b], y, num_classes, steps,
                                       merge, &dy);
            for (int t = 0; t < steps; ++t) {
              std::copy(dy.begin() + static_cast<size_t>(t) * num_classes,
                        dy.begin() + static_cast<size_t>(t + 1) * num_classes,
                        g + (t * batch + b) * classes);
            }
          }
        });
  }

 private:
  bool collapse_ = false;
  bool merge_ = true;
  bool ignore_longer_ = false;
};

}  // namespace

void RegisterCtcLossKernels(KernelRegistry* registry) {
  RegisterKernel<CTCLossOp<float>>(
      registry, KernelDefBuilder("CTCLoss").TypeConstraint<float>("T"));
  RegisterKernel<CTCLossOp<double>>(
      registry, KernelDefBuilder("CTCLoss").TypeConstraint<double>("T"));
}

}  // namespace dfx::misc_internal

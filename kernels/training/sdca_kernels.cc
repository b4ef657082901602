// SdcaOptimizer and SdcaOptimizerV2: one pass of stochastic dual coordinate
// ascent over a mini-batch, as TensorFlow 2.21's CPU kernel (sdca_ops.cc,
// sdca_internal.cc and the five dual loss updaters) computes it. Each
// example's dual variable gets the closed-form (hinge, smooth hinge,
// squared) or ten-Newton-step (logistic, Poisson) update for its loss;
// the weight change it implies is added to the delta outputs; the example
// state data (dual, primal loss, dual loss, weight) comes back updated.
//
// Order: TensorFlow visits the examples in an order drawn from
// std::random_device (a shuffle, or for adaptive sampling an importance
// sample whose acceptance test draws from it) and in parallel over its
// thread pool, so its answer depends on the run whenever two examples share
// a weight. dfx visits each example once, in index order, with or without
// the adaptive attr: a deterministic answer, equal to TensorFlow's whenever
// TensorFlow's is reproducible (one example, or examples whose features
// touch different weights). num_inner_iterations is accepted and unused,
// as in TensorFlow.
//
// The arithmetic follows TensorFlow's types: wx and the duals in double,
// dense dot products and dense delta updates in float, sparse deltas
// accumulated in double and stored as float.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "kernels/kernels.h"

namespace dfx {
namespace {

enum class LossType { kLogistic, kSquared, kHinge, kSmoothHinge, kPoisson };

// The dual loss updaters of TensorFlow's loss.h family, switched on the
// loss type rather than virtual.
class DualLoss {
 public:
  explicit DualLoss(LossType type) : type_(type) {}

  // The example's new dual value.
  double UpdatedDual(int partitions, double label, double weight, double dual,
                     double wx, double norm) const {
    switch (type_) {
      case LossType::kLogistic: {
        double x = 0;
        for (int i = 0; i < 10; ++i) {
          const double t = std::tanh(x);
          const double num =
              -2 * label * x - wx -
              partitions * norm * weight * (0.5 * (1 + t) / label - dual);
          const double den = -2 * label - partitions * norm * weight *
                                              (1 - t * t) * 0.5 / label;
          x -= num / den;
        }
        return 0.5 * (1 + std::tanh(x)) / label;
      }
      case LossType::kSquared:
        return dual + (label - dual - wx) / (1 + partitions * norm * weight);
      case LossType::kHinge:
      case LossType::kSmoothHinge: {
        const double gamma = type_ == LossType::kHinge ? 0.0 : 1.0;
        const double candidate =
            type_ == LossType::kHinge
                ? dual + (label - wx) / (partitions * weight * norm)
                : dual + (label - wx - gamma * dual) /
                             (partitions * weight * norm + gamma);
        if (label * candidate < 0) return 0.0;
        if (label * candidate > 1.0) return label;
        return candidate;
      }
      case LossType::kPoisson: {
        const double y_minus_a = label - dual;
        double x = y_minus_a > 0 ? std::log(y_minus_a) : 0;
        for (int i = 0; i < 10; ++i) {
          const double e = std::exp(x);
          const double num =
              x - wx - partitions * norm * weight * (label - dual - e);
          const double den = 1 + partitions * norm * weight * e;
          x -= num / den;
        }
        return label - std::exp(x);
      }
    }
    return 0;
  }

  double DualLossOf(double dual, double label, double weight) const {
    switch (type_) {
      case LossType::kLogistic: {
        const double ay = dual * label;
        const double log_ay = ay > 0 ? std::log(ay) : 0;
        const double rest = 1 - ay;
        const double log_rest = rest > 0 ? std::log(rest) : 0;
        return (ay * log_ay + rest * log_rest) * weight;
      }
      case LossType::kSquared:
        return dual * (0.5 * dual - label) * weight;
      case LossType::kHinge:
      case LossType::kSmoothHinge: {
        const double y_alpha = dual * label;
        if (y_alpha < 0 || y_alpha > 1.0) {
          return std::numeric_limits<double>::max();
        }
        if (type_ == LossType::kHinge) return -y_alpha * weight;
        return (-y_alpha + 0.5 * dual * dual) * weight;
      }
      case LossType::kPoisson: {
        const double y_minus_a = label - dual;
        if (y_minus_a == 0.0) return 0.0;
        if (y_minus_a < 0.0) return std::numeric_limits<double>::max();
        return y_minus_a * (std::log(y_minus_a) - 1) * weight;
      }
    }
    return 0;
  }

  double PrimalLoss(double wx, double label, double weight) const {
    switch (type_) {
      case LossType::kLogistic: {
        const double y_wx = label * wx;
        if (y_wx > 0) return std::log1p(std::exp(-y_wx)) * weight;
        return (std::log1p(std::exp(y_wx)) - y_wx) * weight;
      }
      case LossType::kSquared: {
        const double error = wx - label;
        return error * error * weight * 0.5;
      }
      case LossType::kHinge:
        return std::max(0.0, 1 - label * wx) * weight;
      case LossType::kSmoothHinge: {
        // gamma = 1; no weight on the zero branch, as in TensorFlow.
        const double y_wx = label * wx;
        if (y_wx >= 1) return 0;
        if (y_wx <= 0) return (1 - y_wx - 0.5) * weight;
        return (1 - y_wx) * (1 - y_wx) * weight * 0.5;
      }
      case LossType::kPoisson:
        return (std::exp(wx) - wx * label) * weight;
    }
    return 0;
  }

  // Labels 0 and 1 become -1 and 1 for the classification losses.
  absl::Status ConvertLabel(float* label) const {
    switch (type_) {
      case LossType::kSquared:
        return absl::OkStatus();
      case LossType::kPoisson:
        if (*label < 0.0f) {
          return absl::InvalidArgumentError(absl::StrCat(
              "Only non-negative labels can be used with the Poisson log "
              "loss. Found example with label: ",
              *label));
        }
        return absl::OkStatus();
      default:
        if (*label == 0.0f) {
          *label = -1;
          return absl::OkStatus();
        }
        if (*label == 1.0f) return absl::OkStatus();
        return absl::InvalidArgumentError(
            absl::StrCat("Only labels of 0.0 or 1.0 are supported right now. "
                         "Found example with label: ",
                         *label));
    }
  }

 private:
  LossType type_;
};

// One sparse feature group's weights: the ids TensorFlow's map gives each
// feature index (the last position of a repeated index wins).
struct SparseGroup {
  const int64_t* example_indices = nullptr;
  const int64_t* feature_indices = nullptr;
  const float* values = nullptr;  // null: every value is 1
  const float* nominals = nullptr;
  float* deltas = nullptr;
  absl::flat_hash_map<int64_t, int64_t> ids;
};

struct DenseGroup {
  const float* features = nullptr;  // [rows, cols]
  int64_t cols = 0;
  const float* nominals = nullptr;
  float* deltas = nullptr;
};

// One example's entries of a sparse group: positions [begin, end) of the
// group's index lists.
struct SparseSpan {
  int64_t begin = 0;
  int64_t end = 0;
};

class SdcaOptimizerOp : public OpKernel {
 public:
  explicit SdcaOptimizerOp(OpKernelConstruction* c) : OpKernel(c) {
    std::string loss;
    c->SetStatus(c->GetAttr("loss_type", &loss));
    if (loss == "logistic_loss") {
      loss_ = DualLoss(LossType::kLogistic);
    } else if (loss == "squared_loss") {
      loss_ = DualLoss(LossType::kSquared);
    } else if (loss == "hinge_loss") {
      loss_ = DualLoss(LossType::kHinge);
    } else if (loss == "smooth_hinge_loss") {
      loss_ = DualLoss(LossType::kSmoothHinge);
    } else if (loss == "poisson_loss") {
      loss_ = DualLoss(LossType::kPoisson);
    } else {
      c->SetStatus(absl::InvalidArgumentError(
          absl::StrCat("Unsupported loss type: ", loss)));
      return;
    }
    int64_t s = 0, v = 0, d = 0, partitions = 0;
    c->SetStatus(c->GetAttr("num_sparse_features", &s));
    c->SetStatus(c->GetAttr("num_sparse_features_with_values", &v));
    c->SetStatus(c->GetAttr("num_dense_features", &d));
    c->SetStatus(c->GetAttr("num_loss_partitions", &partitions));
    if (!c->status().ok()) return;
    if (s + d <= 0) {
      c->SetStatus(absl::InvalidArgumentError(
          "Requires at least one feature to train."));
      return;
    }
    if (s + d > std::numeric_limits<int>::max()) {
      c->SetStatus(absl::InvalidArgumentError(
          absl::StrCat("Too many feature groups: ", s + d, " > ",
                       std::numeric_limits<int>::max())));
      return;
    }
    // TensorFlow reads the attr as an int32: larger is InvalidArgument.
    if (partitions > std::numeric_limits<int>::max()) {
      c->SetStatus(absl::InvalidArgumentError(
          absl::StrCat("Attr num_loss_partitions has value ", partitions,
                       " out of range for an int32")));
      return;
    }
    num_sparse_ = static_cast<int>(s);
    num_with_values_ = static_cast<int>(v);
    num_dense_ = static_cast<int>(d);
    partitions_ = static_cast<int>(partitions);
    float l1 = 0;
    c->SetStatus(c->GetAttr("l1", &l1));
    c->SetStatus(c->GetAttr("l2", &l2_));
    // TensorFlow divides in float and keeps the quotient as a double.
    shrinkage_ = static_cast<double>(l1 / l2_);
  }

  void Compute(OpKernelContext* ctx) override {
    const int s = num_sparse_, d = num_dense_;
    const int in_values = 2 * s;
    const int in_dense = in_values + num_with_values_;
    const int in_weights = in_dense + d;
    const int in_labels = in_weights + 1;
    const int in_sparse_indices = in_labels + 1;
    const int in_sparse_weights = in_sparse_indices + s;
    const int in_dense_weights = in_sparse_weights + s;
    const int in_state = in_dense_weights + d;
    DFX_OP_REQUIRES(ctx, ctx->num_inputs() == in_state + 1,
                    absl::InvalidArgumentError("wrong number of inputs"));

    // The delta outputs, zero, shaped as the weights.
    std::vector<Tensor> sparse_deltas, dense_deltas;
    for (int i = 0; i < s; ++i) {
      const Tensor& w = ctx->input(in_sparse_weights + i);
      sparse_deltas.emplace_back(DT_FLOAT, w.shape());
      std::fill_n(sparse_deltas.back().data<float>(), w.NumElements(), 0.0f);
    }
    for (int i = 0; i < d; ++i) {
      const Tensor& w = ctx->input(in_dense_weights + i);
      dense_deltas.emplace_back(DT_FLOAT, w.shape());
      std::fill_n(dense_deltas.back().data<float>(), w.NumElements(), 0.0f);
    }

    const Tensor& weights_t = ctx->input(in_weights);
    const Tensor& labels_t = ctx->input(in_labels);
    DFX_OP_REQUIRES(
        ctx, weights_t.NumElements() < std::numeric_limits<int>::max(),
        absl::InvalidArgumentError(absl::StrCat(
            "Too many examples in a mini-batch: ", weights_t.NumElements(),
            " > ", std::numeric_limits<int>::max())));
    const int64_t n = weights_t.NumElements();
    DFX_OP_REQUIRES(ctx, labels_t.NumElements() == n,
                    absl::InvalidArgumentError(
                        absl::StrCat("Expected ", n, " example labels but got ",
                                     labels_t.NumElements())));
    for (int i = 0; i < d; ++i) {
      const Tensor& f = ctx->input(in_dense + i);
      DFX_OP_REQUIRES(ctx, f.dims() == 2,
                      absl::InvalidArgumentError(absl::StrCat(
                          "Dense features at index ", i,
                          " must be rank 2 but is rank ", f.dims())));
    }

    // Sparse groups: each example's span of entries, every index checked.
    std::vector<SparseGroup> sparse(s);
    std::vector<SparseSpan> spans(static_cast<size_t>(n) * s);
    for (int i = 0; i < s; ++i) {
      SparseGroup& g = sparse[i];
      const Tensor& ex = ctx->input(i);
      const Tensor& fi = ctx->input(s + i);
      const Tensor& idx = ctx->input(in_sparse_indices + i);
      const Tensor& w = ctx->input(in_sparse_weights + i);
      g.example_indices = ex.data<int64_t>();
      g.feature_indices = fi.data<int64_t>();
      g.nominals = w.data<float>();
      g.deltas = sparse_deltas[i].data<float>();
      const int64_t* ids = idx.data<int64_t>();
      for (int64_t j = 0; j < idx.NumElements(); ++j) g.ids[ids[j]] = j;
      DFX_OP_REQUIRES(
          ctx, ex.NumElements() == fi.NumElements(),
          absl::InvalidArgumentError(absl::StrCat(
              "Found mismatched example_indices and feature_indices [",
              absl::StrJoin(g.example_indices,
                            g.example_indices + ex.NumElements(), " "),
              "] vs [",
              absl::StrJoin(g.feature_indices,
                            g.feature_indices + fi.NumElements(), " "),
              "]")));
      int64_t num_values = -1;
      if (i < num_with_values_) {
        const Tensor& vals = ctx->input(in_values + i);
        g.values = vals.data<float>();
        num_values = vals.NumElements();
      }
      // An example's entries are the run of its id at the current
      // position; entries out of order are never reached, as in
      // TensorFlow.
      const int64_t m = ex.NumElements();
      int64_t end = 0;
      for (int64_t e = 0; e < n; ++e) {
        const int64_t begin = end;
        while (end < m && g.example_indices[end] == e) ++end;
        spans[e * s + i] = SparseSpan{begin, end};
        // TensorFlow reads the values of the run without checking their
        // count; dfx refuses a run past the end.
        DFX_OP_REQUIRES(
            ctx, num_values < 0 || end <= num_values,
            absl::InvalidArgumentError(absl::StrCat(
                "sparse_feature_values[", i, "] has ", num_values,
                " values, fewer than its ", m, " feature indices")));
        for (int64_t k = begin; k < end; ++k) {
          auto it = g.ids.find(g.feature_indices[k]);
          DFX_OP_REQUIRES(ctx, it != g.ids.end(),
                          absl::InvalidArgumentError(absl::StrCat(
                              "Found sparse feature indices out of valid "
                              "range: ",
                              g.feature_indices[k])));
          // TensorFlow reads past the weights when sparse_indices is
          // longer than sparse_weights.
          DFX_OP_REQUIRES(ctx, it->second < w.NumElements(),
                          absl::InvalidArgumentError(absl::StrCat(
                              "sparse_indices[", i, "] has ", idx.NumElements(),
                              " entries but sparse_weights[", i, "] only ",
                              w.NumElements())));
        }
      }
    }

    std::vector<DenseGroup> dense(d);
    for (int i = 0; i < d; ++i) {
      const Tensor& f = ctx->input(in_dense + i);
      const Tensor& w = ctx->input(in_dense_weights + i);
      DenseGroup& g = dense[i];
      g.features = f.data<float>();
      g.cols = f.dim_size(1);
      g.nominals = w.data<float>();
      g.deltas = dense_deltas[i].data<float>();
      DFX_OP_REQUIRES(
          ctx, g.cols >= 1 && g.cols <= w.NumElements(),
          absl::InvalidArgumentError(absl::StrCat(
              "More dense features than we have parameters for: ", g.cols)));
      // TensorFlow reads beyond the example's row (into the next one, or
      // past the matrix) in both cases below; dfx refuses them.
      DFX_OP_REQUIRES(ctx, g.cols == w.NumElements(),
                      absl::InvalidArgumentError(absl::StrCat(
                          "Dense features at index ", i, " have ", g.cols,
                          " columns but dense_weights[", i, "] has ",
                          w.NumElements(), " elements")));
      DFX_OP_REQUIRES(ctx, f.dim_size(0) >= n,
                      absl::InvalidArgumentError(absl::StrCat(
                          "Dense features at index ", i, " have ",
                          f.dim_size(0), " rows for ", n, " examples")));
    }

    // Each example's squared norm; a feature index twice in one group of
    // one example is an error.
    std::vector<double> squared_norms(n, 0.0);
    absl::flat_hash_set<int64_t> seen;
    for (int64_t e = 0; e < n; ++e) {
      double norm = 0;
      for (int i = 0; i < s; ++i) {
        const SparseSpan& span = spans[e * s + i];
        const SparseGroup& g = sparse[i];
        seen.clear();
        for (int64_t k = span.begin; k < span.end; ++k) {
          DFX_OP_REQUIRES(
              ctx, seen.insert(g.feature_indices[k]).second,
              absl::InvalidArgumentError("Duplicate index in sparse vector."));
          const double value = g.values ? g.values[k] : 1.0;
          norm += value * value;
        }
      }
      for (int i = 0; i < d; ++i) {
        const float* row = dense[i].features + e * dense[i].cols;
        float sum = 0.0f;
        for (int64_t k = 0; k < dense[i].cols; ++k) sum += row[k] * row[k];
        norm += sum;
      }
      squared_norms[e] = norm;
    }

    const Tensor& state_in = ctx->input(in_state);
    DFX_OP_REQUIRES(ctx, state_in.dims() == 2,
                    absl::InvalidArgumentError(absl::StrCat(
                        "example_state_data must be rank 2 but is rank ",
                        state_in.dims())));
    const TensorShape expected({n, 4});
    DFX_OP_REQUIRES(
        ctx, state_in.shape() == expected,
        absl::InvalidArgumentError(absl::StrCat(
            "Expected shape ", expected.DebugString(),
            " for example_state_data, got ", state_in.shape().DebugString())));
    Tensor state = state_in.DeepCopy();
    float* st = state.data<float>();
    const float* example_weights = weights_t.data<float>();
    const float* example_labels = labels_t.data<float>();

    for (int64_t e = 0; e < n; ++e) {
      const float dual = st[4 * e];
      const float weight = example_weights[e];
      float label = example_labels[e];
      DFX_OP_REQUIRES_OK(ctx, loss_.ConvertLabel(&label));

      // wx with the weights so far (the deltas scaled by the partitions),
      // prev_wx with the weights the call started from.
      double wx = 0, prev_wx = 0;
      for (int i = 0; i < s; ++i) {
        const SparseGroup& g = sparse[i];
        const SparseSpan& span = spans[e * s + i];
        for (int64_t k = span.begin; k < span.end; ++k) {
          const int64_t id = g.ids.find(g.feature_indices[k])->second;
          const double value = g.values ? g.values[k] : 1.0;
          const float nominal = g.nominals[id];
          const float current =
              nominal + g.deltas[id] * static_cast<float>(partitions_);
          prev_wx += value * Shrink(nominal);
          wx += value * Shrink(current);
        }
      }
      for (int i = 0; i < d; ++i) {
        const DenseGroup& g = dense[i];
        const float* row = g.features + e * g.cols;
        const float shrink = static_cast<float>(shrinkage_);
        float prev_sum = 0.0f, sum = 0.0f;
        for (int64_t k = 0; k < g.cols; ++k) {
          const float current =
              g.nominals[k] + g.deltas[k] * static_cast<float>(partitions_);
          prev_sum += row[k] * ShrinkFloat(g.nominals[k], shrink);
          sum += row[k] * ShrinkFloat(current, shrink);
        }
        prev_wx += prev_sum;
        wx += sum;
      }

      const double norm = squared_norms[e] / l2_;
      const double new_dual =
          loss_.UpdatedDual(partitions_, label, weight, dual, wx, norm);
      const double step = (new_dual - dual) * weight / l2_;
      for (int i = 0; i < s; ++i) {
        SparseGroup& g = sparse[i];
        const SparseSpan& span = spans[e * s + i];
        for (int64_t k = span.begin; k < span.end; ++k) {
          const int64_t id = g.ids.find(g.feature_indices[k])->second;
          const double value = g.values ? g.values[k] : 1.0;
          g.deltas[id] = static_cast<float>(g.deltas[id] + value * step);
        }
      }
      const float step_f = static_cast<float>(step);
      for (int i = 0; i < d; ++i) {
        DenseGroup& g = dense[i];
        const float* row = g.features + e * g.cols;
        for (int64_t k = 0; k < g.cols; ++k) g.deltas[k] += row[k] * step_f;
      }

      st[4 * e] = static_cast<float>(new_dual);
      st[4 * e + 1] =
          static_cast<float>(loss_.PrimalLoss(prev_wx, label, weight));
      st[4 * e + 2] = static_cast<float>(loss_.DualLossOf(dual, label, weight));
      st[4 * e + 3] = weight;
    }

    ctx->set_output(0, std::move(state));
    for (int i = 0; i < s; ++i)
      ctx->set_output(1 + i, std::move(sparse_deltas[i]));
    for (int i = 0; i < d; ++i) {
      ctx->set_output(1 + s + i, std::move(dense_deltas[i]));
    }
  }

 private:
  // sign(w) * max(|w| - l1 / l2, 0), in double (sparse weights).
  double Shrink(double w) const {
    const double shrunk = std::max(std::abs(w) - shrinkage_, 0.0);
    return shrunk > 0.0 ? std::copysign(shrunk, w) : 0.0;
  }

  // The same in float, as TensorFlow's Eigen expression for dense weights.
  static float ShrinkFloat(float w, float shrinkage) {
    const float sign = w > 0.0f ? 1.0f : (w < 0.0f ? -1.0f : w);
    return sign * std::max(std::abs(w) - shrinkage, 0.0f);
  }

  DualLoss loss_{LossType::kSquared};
  int num_sparse_ = 0;
  int num_with_values_ = 0;
  int num_dense_ = 0;
  int partitions_ = 1;
  float l2_ = 0.0f;
  double shrinkage_ = 0.0;
};

}  // namespace

void RegisterSdcaKernels(KernelRegistry* r) {
  RegisterKernel<SdcaOptimizerOp>(r, KernelDefBuilder("SdcaOptimizer"));
  RegisterKernel<SdcaOptimizerOp>(r, KernelDefBuilder("SdcaOptimizerV2"));
}

}  // namespace dfx

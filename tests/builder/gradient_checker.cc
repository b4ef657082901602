#include "tests/builder/gradient_checker.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/builder/gradients.h"
#include "graph/builder/ops.h"
#include "runtime/session.h"

namespace dfx::testing {
namespace {

void SetFromDouble(Tensor& t, int64_t i, double v) {
  switch (t.dtype()) {
    case DT_FLOAT:
      t.data<float>()[i] = static_cast<float>(v);
      return;
    case DT_DOUBLE:
      t.data<double>()[i] = v;
      return;
    default:
      DFX_CHECK_MSG(false, "SetFromDouble: float or double only");
  }
}

// Runs steps of one graph in one session.
class Runner {
 public:
  absl::Status Open(const Scope& scope) {
    GraphDef def;
    DFX_RETURN_IF_ERROR(scope.ToGraphDef(&def));
    SessionOptions options;
    options.config.set_intra_op_parallelism_threads(2);
    DFX_ASSIGN_OR_RETURN(session_, Session::Create("local", options));
    return session_->Extend(def);
  }
  ~Runner() {
    if (session_ != nullptr) (void)session_->Close();
  }

  absl::StatusOr<std::vector<Tensor>> Run(
      const std::vector<std::pair<Output, Tensor>>& feeds,
      const std::vector<Output>& fetches) {
    std::vector<std::pair<std::string, Tensor>> named_feeds;
    for (const auto& [output, value] : feeds) {
      named_feeds.emplace_back(output.ToString(), value);
    }
    std::vector<std::string> names;
    for (const Output& f : fetches) names.push_back(f.ToString());
    std::vector<Tensor> outputs;
    DFX_RETURN_IF_ERROR(session_->Run(named_feeds, names, {}, &outputs));
    return outputs;
  }

 private:
  std::unique_ptr<Session> session_;
};

}  // namespace

absl::StatusOr<std::vector<Tensor>> RunScope(
    const Scope& scope, const std::vector<std::pair<Output, Tensor>>& feeds,
    const std::vector<Output>& fetches) {
  Runner runner;
  DFX_RETURN_IF_ERROR(runner.Open(scope));
  return runner.Run(feeds, fetches);
}

Tensor RandomTensor(DataType dtype, const TensorShape& shape, double lo,
                    double hi, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  Tensor t(dtype, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) SetFromDouble(t, i, dist(gen));
  return t;
}

Tensor MakeTensor(DataType dtype, const TensorShape& shape,
                  const std::vector<double>& values) {
  Tensor t(dtype, shape);
  DFX_CHECK(static_cast<int64_t>(values.size()) == t.NumElements());
  for (int64_t i = 0; i < t.NumElements(); ++i) SetFromDouble(t, i, values[i]);
  return t;
}

double GetAsDouble(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DT_FLOAT:
      return t.data<float>()[i];
    case DT_DOUBLE:
      return t.data<double>()[i];
    case DT_HALF:
      return static_cast<double>(t.data<Eigen::half>()[i]);
    case DT_BFLOAT16:
      return static_cast<double>(t.data<Eigen::bfloat16>()[i]);
    default:
      DFX_CHECK_MSG(false, "GetAsDouble: a floating-point tensor only");
      return 0;
  }
}

absl::StatusOr<double> ComputeGradientError(const Scope& scope,
                                            const std::vector<Output>& xs,
                                            const std::vector<Tensor>& x_values,
                                            const std::vector<Output>& ys,
                                            double delta) {
  if (xs.size() != x_values.size()) {
    return absl::InvalidArgumentError("one value per x");
  }
  std::vector<Output> dys;
  for (const Output& y : ys) {
    dys.push_back(ops::Placeholder(scope.WithOpName("dy"), y.dtype()));
  }
  std::vector<Output> grads;
  DFX_RETURN_IF_ERROR(AddSymbolicGradients(scope, ys, xs, dys, &grads));

  Runner runner;
  DFX_RETURN_IF_ERROR(runner.Open(scope));
  std::vector<std::pair<Output, Tensor>> feeds;
  for (size_t i = 0; i < xs.size(); ++i) feeds.emplace_back(xs[i], x_values[i]);
  DFX_ASSIGN_OR_RETURN(std::vector<Tensor> y_values, runner.Run(feeds, ys));

  int64_t x_size = 0, y_size = 0;
  for (const Tensor& t : x_values) x_size += t.NumElements();
  for (const Tensor& t : y_values) y_size += t.NumElements();
  // jacobian[r * y_size + c] = d y_c / d x_r, flattened over all xs and ys.
  std::vector<double> symbolic(x_size * y_size, 0.0);
  std::vector<double> numeric(x_size * y_size, 0.0);

  // Symbolic: column c is the gradient seeded with a one-hot dy at c.
  int64_t c = 0;
  for (size_t j = 0; j < ys.size(); ++j) {
    for (int64_t k = 0; k < y_values[j].NumElements(); ++k, ++c) {
      std::vector<std::pair<Output, Tensor>> step = feeds;
      for (size_t jj = 0; jj < ys.size(); ++jj) {
        Tensor dy(y_values[jj].dtype(), y_values[jj].shape());
        for (int64_t e = 0; e < dy.NumElements(); ++e) {
          SetFromDouble(dy, e, (jj == j && e == k) ? 1.0 : 0.0);
        }
        step.emplace_back(dys[jj], dy);
      }
      DFX_ASSIGN_OR_RETURN(std::vector<Tensor> g, runner.Run(step, grads));
      int64_t r = 0;
      for (size_t i = 0; i < xs.size(); ++i) {
        if (g[i].shape() != x_values[i].shape()) {
          return absl::InvalidArgumentError(
              absl::StrCat("the gradient of x[", i, "] has shape ",
                           g[i].shape().DebugString(), ", x has ",
                           x_values[i].shape().DebugString()));
        }
        for (int64_t e = 0; e < g[i].NumElements(); ++e, ++r) {
          symbolic[r * y_size + c] = GetAsDouble(g[i], e);
        }
      }
    }
  }

  // Numeric: row r from y(x_r + delta) - y(x_r - delta).
  int64_t r = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    const double d =
        delta > 0 ? delta : (x_values[i].dtype() == DT_DOUBLE ? 1e-5 : 1e-3);
    for (int64_t e = 0; e < x_values[i].NumElements(); ++e, ++r) {
      std::vector<double> plus, minus;
      for (double sign : {1.0, -1.0}) {
        std::vector<std::pair<Output, Tensor>> step;
        for (size_t ii = 0; ii < xs.size(); ++ii) {
          Tensor v = x_values[ii].DeepCopy();
          if (ii == i) SetFromDouble(v, e, GetAsDouble(v, e) + sign * d);
          step.emplace_back(xs[ii], v);
        }
        DFX_ASSIGN_OR_RETURN(std::vector<Tensor> out, runner.Run(step, ys));
        std::vector<double>& dst = sign > 0 ? plus : minus;
        for (const Tensor& t : out) {
          for (int64_t k = 0; k < t.NumElements(); ++k) {
            dst.push_back(GetAsDouble(t, k));
          }
        }
      }
      for (int64_t col = 0; col < y_size; ++col) {
        numeric[r * y_size + col] = (plus[col] - minus[col]) / (2 * d);
      }
    }
  }

  double max_error = 0;
  for (size_t k = 0; k < symbolic.size(); ++k) {
    const double err = std::fabs(symbolic[k] - numeric[k]);
    if (std::isnan(err)) return std::numeric_limits<double>::infinity();
    max_error = std::max(max_error, err);
  }
  return max_error;
}

}  // namespace dfx::testing

// Gradient descent and momentum: GradientDescent, ProximalGradientDescent,
// Momentum (with Nesterov) and KerasMomentum, each in the forms TensorFlow
// has. The math is TensorFlow's training_ops.cc functors, term for term.
#include "kernels/training/training_util.h"

namespace dfx::training {
namespace {

template <typename C>
struct GradientDescentFn {
  C lr;
  void operator()(const Rows<C>& r) const { r.var(0) -= r.grad() * lr; }
};

struct GradientDescentTraits {
  static constexpr int kNumVars = 1;
  static constexpr bool kCheckInnerDim = true;
  static constexpr bool kScatterIndexMessage = false;
  template <typename T>
  static GradientDescentFn<ComputeType<T>> Make(HyperParams<T>& hp,
                                                const OptimizerAttrs&, bool) {
    return {hp.Get("alpha")};
  }
};

// Fobos: v = var - lr * grad, then the l1 shrinkage and l2 scaling.
template <typename C>
struct ProximalGradientDescentFn {
  C lr, l1, l2;
  void operator()(const Rows<C>& r) const {
    auto var = r.var(0);
    var -= r.grad() * lr;
    if (l1 > C(0)) {
      var = var.sign() * (var.abs() - lr * l1).max(C(0)) / (C(1) + l2 * lr);
    } else {
      var = var / (C(1) + l2 * lr);
    }
  }
};

struct ProximalGradientDescentTraits {
  static constexpr int kNumVars = 1;
  static constexpr bool kCheckInnerDim = true;
  static constexpr bool kScatterIndexMessage = false;
  template <typename T>
  static ProximalGradientDescentFn<ComputeType<T>> Make(
      HyperParams<T>& hp, const OptimizerAttrs&, bool) {
    ProximalGradientDescentFn<ComputeType<T>> fn;
    fn.lr = hp.Get("alpha");
    fn.l1 = hp.Get("l1", "l1 regularization strength");
    fn.l2 = hp.Get("l2", "l2 regularization strength");
    return fn;
  }
};

template <typename C>
struct MomentumFn {
  C lr, momentum;
  bool nesterov, sparse;
  void operator()(const Rows<C>& r) const {
    auto var = r.var(0);
    auto accum = r.var(1);
    auto g = r.grad();
    accum = accum * momentum + g;
    if (!nesterov) {
      if (sparse) {
        var -= lr * accum;
      } else {
        var -= accum * lr;
      }
    } else if (sparse) {
      var -= lr * g + (lr * momentum) * accum;
    } else {
      var -= g * lr + accum * momentum * lr;
    }
  }
};

struct MomentumTraits {
  static constexpr int kNumVars = 2;
  static constexpr bool kCheckInnerDim = false;
  static constexpr bool kScatterIndexMessage = false;
  template <typename T>
  static MomentumFn<ComputeType<T>> Make(HyperParams<T>& hp,
                                         const OptimizerAttrs& attrs,
                                         bool sparse) {
    MomentumFn<ComputeType<T>> fn;
    fn.lr = hp.Get("lr");
    fn.momentum = hp.Get("momentum");
    fn.nesterov = attrs.use_nesterov;
    fn.sparse = sparse;
    return fn;
  }
};

// Keras' momentum keeps the velocity with the learning rate folded in.
template <typename C>
struct KerasMomentumFn {
  C lr, momentum;
  bool nesterov;
  void operator()(const Rows<C>& r) const {
    auto var = r.var(0);
    auto accum = r.var(1);
    auto g = r.grad();
    accum = accum * momentum - g * lr;
    if (nesterov) {
      var += accum * momentum - g * lr;
    } else {
      var += accum;
    }
  }
};

struct KerasMomentumTraits {
  static constexpr int kNumVars = 2;
  static constexpr bool kCheckInnerDim = false;
  static constexpr bool kScatterIndexMessage = true;
  template <typename T>
  static KerasMomentumFn<ComputeType<T>> Make(HyperParams<T>& hp,
                                              const OptimizerAttrs& attrs,
                                              bool) {
    KerasMomentumFn<ComputeType<T>> fn;
    fn.lr = hp.Get("lr");
    fn.momentum = hp.Get("momentum");
    fn.nesterov = attrs.use_nesterov;
    return fn;
  }
};

}  // namespace

void RegisterSgdKernels(KernelRegistry* r) {
  RegisterFloatTypes<GradientDescentTraits>(r, "GradientDescent", kDense);
  RegisterComplexTypes<GradientDescentTraits>(r, "GradientDescent", kDense);
  RegisterOptimizer<ProximalGradientDescentTraits, float>(
      r, "ProximalGradientDescent", kAll);
  RegisterOptimizer<ProximalGradientDescentTraits, double>(
      r, "ProximalGradientDescent", kAll);
  RegisterFloatTypes<MomentumTraits>(r, "Momentum", kAll);
  RegisterComplexTypes<MomentumTraits>(r, "Momentum", kAll);
  RegisterFloatTypes<KerasMomentumTraits>(r, "KerasMomentum",
                                          kResource | kSparseResource);
  RegisterComplexTypes<KerasMomentumTraits>(r, "KerasMomentum",
                                            kResource | kSparseResource);
}

}  // namespace dfx::training

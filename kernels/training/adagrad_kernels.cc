// Adaptive per-element learning rates: Adagrad (update_slots), AdagradV2,
// ProximalAdagrad, AdagradDA and Adadelta, dense and sparse. The math is
// TensorFlow's training_ops.cc, term for term; where TensorFlow's sparse
// kernels order the terms differently from its dense functor, the sparse
// form follows the sparse kernel.
#include "kernels/training/training_util.h"

#include "kernels/exact_sqrt.h"

namespace dfx::training {
namespace {

template <typename C>
struct AdagradFn {
  C lr;
  bool update_slots, sparse;
  void operator()(const Rows<C>& r) const {
    auto var = r.var(0);
    auto accum = r.var(1);
    auto g = r.grad();
    if (update_slots) accum += g.square();
    if (sparse) {
      var -= lr * g * accum.rsqrt();
    } else {
      var -= g * lr * accum.rsqrt();
    }
  }
};

struct AdagradTraits {
  static constexpr int kNumVars = 2;
  static constexpr bool kCheckInnerDim = true;
  static constexpr bool kScatterIndexMessage = false;
  template <typename T>
  static AdagradFn<ComputeType<T>> Make(HyperParams<T>& hp,
                                        const OptimizerAttrs& attrs,
                                        bool sparse) {
    AdagradFn<ComputeType<T>> fn;
    fn.lr = hp.Get("lr");
    fn.update_slots = attrs.update_slots;
    fn.sparse = sparse;
    return fn;
  }
};

template <typename C>
struct AdagradV2Fn {
  C lr, epsilon;
  bool update_slots, sparse;
  void operator()(const Rows<C>& r) const {
    auto var = r.var(0);
    auto accum = r.var(1);
    auto g = r.grad();
    if (update_slots) accum += g.square();
    if (sparse) {
      var -= lr * g / (ExactSqrt(accum) + epsilon);
    } else {
      var -= g * lr / (ExactSqrt(accum) + epsilon);
    }
  }
};

struct AdagradV2Traits {
  static constexpr int kNumVars = 2;
  static constexpr bool kCheckInnerDim = true;
  static constexpr bool kScatterIndexMessage = false;
  template <typename T>
  static AdagradV2Fn<ComputeType<T>> Make(HyperParams<T>& hp,
                                          const OptimizerAttrs& attrs,
                                          bool sparse) {
    AdagradV2Fn<ComputeType<T>> fn;
    fn.lr = hp.Get("lr");
    fn.epsilon = hp.Get("epsilon");
    fn.update_slots = attrs.update_slots;
    fn.sparse = sparse;
    return fn;
  }
};

// Fobos with Adagrad's learning rate lr / sqrt(accum).
template <typename C>
struct ProximalAdagradFn {
  C lr, l1, l2;
  void operator()(const Rows<C>& r) const {
    auto var = r.var(0);
    auto accum = r.var(1);
    auto g = r.grad();
    accum += g.square();
    Scratch<C> scratch;
    auto rate = scratch.map(r.n);
    rate = lr * accum.rsqrt();
    var -= g * rate;
    if (l1 > C(0)) {
      var = var.sign() * (var.abs() - rate * l1).max(C(0)) /
            (C(1) + l2 * rate);
    } else {
      var = var / (C(1) + l2 * rate);
    }
  }
};

struct ProximalAdagradTraits {
  static constexpr int kNumVars = 2;
  static constexpr bool kCheckInnerDim = true;
  static constexpr bool kScatterIndexMessage = false;
  template <typename T>
  static ProximalAdagradFn<ComputeType<T>> Make(HyperParams<T>& hp,
                                                const OptimizerAttrs&, bool) {
    ProximalAdagradFn<ComputeType<T>> fn;
    fn.lr = hp.Get("lr", "lr", Range::kPositive);
    fn.l1 = hp.Get("l1", "l1 regularization strength", Range::kNonNegative);
    fn.l2 = hp.Get("l2", "l2 regularization strength", Range::kNonNegative);
    return fn;
  }
};

// Dual averaging: the variable is recomputed from the accumulated gradient
// and squared gradient at global step `step`.
template <typename C>
struct AdagradDAFn {
  C lr, l1, l2, step;
  void operator()(const Rows<C>& r) const {
    auto var = r.var(0);
    auto ga = r.var(1);
    auto gg = r.var(2);
    auto g = r.grad();
    ga += g;
    gg += g.square();
    const C step_lr = step * lr;
    if (l1 > C(0)) {
      var = lr * C(-1) * ga.sign() * (ga.abs() - step * l1).max(C(0)) /
            (l2 * step_lr + ExactSqrt(gg));
    } else {
      var = lr * ga * C(-1) / (l2 * step_lr + ExactSqrt(gg));
    }
  }
};

struct AdagradDATraits {
  static constexpr int kNumVars = 3;
  static constexpr bool kCheckInnerDim = true;
  static constexpr bool kScatterIndexMessage = false;
  template <typename T>
  static AdagradDAFn<ComputeType<T>> Make(HyperParams<T>& hp,
                                          const OptimizerAttrs&, bool) {
    AdagradDAFn<ComputeType<T>> fn;
    fn.lr = hp.Get("lr");
    fn.l1 = hp.Get("l1", "l1 regularization strength");
    fn.l2 = hp.Get("l2", "l2 regularization strength");
    fn.step = static_cast<ComputeType<T>>(hp.GetInt64("global_step"));
    return fn;
  }
};

template <typename C>
struct AdadeltaFn {
  C lr, rho, epsilon;
  void operator()(const Rows<C>& r) const {
    auto var = r.var(0);
    auto accum = r.var(1);
    auto accum_update = r.var(2);
    auto g = r.grad();
    accum = accum * rho + g.square() * (C(1) - rho);
    Scratch<C> scratch;
    auto update = scratch.map(r.n);
    update = ExactSqrt(accum_update + epsilon) * (accum + epsilon).rsqrt() * g;
    var -= update * lr;
    accum_update = accum_update * rho + update.square() * (C(1) - rho);
  }
};

struct AdadeltaTraits {
  static constexpr int kNumVars = 3;
  static constexpr bool kCheckInnerDim = false;
  static constexpr bool kScatterIndexMessage = false;
  template <typename T>
  static AdadeltaFn<ComputeType<T>> Make(HyperParams<T>& hp,
                                         const OptimizerAttrs&, bool) {
    AdadeltaFn<ComputeType<T>> fn;
    fn.lr = hp.Get("lr");
    fn.rho = hp.Get("rho");
    fn.epsilon = hp.Get("epsilon");
    return fn;
  }
};

}  // namespace

void RegisterAdagradKernels(KernelRegistry* r) {
  RegisterFloatTypes<AdagradTraits>(r, "Adagrad", kAll);
  RegisterComplexTypes<AdagradTraits>(r, "Adagrad", kAll);
  RegisterFloatTypes<AdagradV2Traits>(r, "AdagradV2", kAll);
  RegisterComplexTypes<AdagradV2Traits>(r, "AdagradV2", kAll);
  RegisterOptimizer<ProximalAdagradTraits, float>(r, "ProximalAdagrad", kAll);
  RegisterOptimizer<ProximalAdagradTraits, double>(r, "ProximalAdagrad", kAll);
  RegisterOptimizer<AdagradDATraits, float>(r, "AdagradDA", kAll);
  RegisterOptimizer<AdagradDATraits, double>(r, "AdagradDA", kAll);
  RegisterFloatTypes<AdadeltaTraits>(r, "Adadelta", kAll);
  RegisterComplexTypes<AdadeltaTraits>(r, "Adadelta", kAll);
}

}  // namespace dfx::training

// Moment-based optimizers: Adam (with Nesterov), AdamWithAmsgrad, AdaMax,
// AddSign and PowerSign. The math is TensorFlow's training_ops.cc functors,
// term for term: Adam folds the bias corrections into the step,
// lr * sqrt(1 - beta2^t) / (1 - beta1^t), and adds epsilon to sqrt(v).
#include "kernels/training/training_util.h"

#include "kernels/exact_sqrt.h"

namespace dfx::training {
namespace {

template <typename C>
struct AdamFn {
  C alpha, beta1, beta2, epsilon;
  bool nesterov;
  void operator()(const Rows<C>& r) const {
    auto var = r.var(0);
    auto m = r.var(1);
    auto v = r.var(2);
    auto g = r.grad();
    m += (g - m) * (C(1) - beta1);
    v += (g.square() - v) * (C(1) - beta2);
    if (nesterov) {
      var -= ((g * (C(1) - beta1) + beta1 * m) * alpha) /
             (ExactSqrt(v) + epsilon);
    } else {
      var -= (m * alpha) / (ExactSqrt(v) + epsilon);
    }
  }
};

// lr_t = lr * sqrt(1 - beta2_power) / (1 - beta1_power).
template <typename T>
ComputeType<T> AdamStep(HyperParams<T>& hp) {
  using C = ComputeType<T>;
  const C beta1_power = hp.Get("beta1_power");
  const C beta2_power = hp.Get("beta2_power");
  const C lr = hp.Get("lr");
  return lr * std::sqrt(C(1) - beta2_power) / (C(1) - beta1_power);
}

struct AdamTraits {
  static constexpr int kNumVars = 3;
  static constexpr bool kCheckInnerDim = false;
  static constexpr bool kScatterIndexMessage = false;
  template <typename T>
  static AdamFn<ComputeType<T>> Make(HyperParams<T>& hp,
                                     const OptimizerAttrs& attrs, bool) {
    AdamFn<ComputeType<T>> fn;
    fn.alpha = AdamStep(hp);
    fn.beta1 = hp.Get("beta1");
    fn.beta2 = hp.Get("beta2");
    fn.epsilon = hp.Get("epsilon");
    fn.nesterov = attrs.use_nesterov;
    return fn;
  }
};

// AMSGrad divides by the running maximum of v.
template <typename C>
struct AdamWithAmsgradFn {
  C alpha, beta1, beta2, epsilon;
  void operator()(const Rows<C>& r) const {
    auto var = r.var(0);
    auto m = r.var(1);
    auto v = r.var(2);
    auto vhat = r.var(3);
    auto g = r.grad();
    m += (g - m) * (C(1) - beta1);
    v += (g.square() - v) * (C(1) - beta2);
    vhat = vhat.max(v);
    var -= (m * alpha) / (ExactSqrt(vhat) + epsilon);
  }
};

struct AdamWithAmsgradTraits {
  static constexpr int kNumVars = 4;
  static constexpr bool kCheckInnerDim = false;
  static constexpr bool kScatterIndexMessage = false;
  template <typename T>
  static AdamWithAmsgradFn<ComputeType<T>> Make(HyperParams<T>& hp,
                                                const OptimizerAttrs&, bool) {
    AdamWithAmsgradFn<ComputeType<T>> fn;
    fn.alpha = AdamStep(hp);
    fn.beta1 = hp.Get("beta1");
    fn.beta2 = hp.Get("beta2");
    fn.epsilon = hp.Get("epsilon");
    return fn;
  }
};

// AdaMax: v is the exponentially weighted infinity norm.
template <typename C>
struct AdaMaxFn {
  C step, beta1, beta2, epsilon;  // step = lr / (1 - beta1_power)
  void operator()(const Rows<C>& r) const {
    auto var = r.var(0);
    auto m = r.var(1);
    auto v = r.var(2);
    auto g = r.grad();
    m += (g - m) * (C(1) - beta1);
    v = (beta2 * v).max(g.abs());
    var -= step * (m / (v + epsilon));
  }
};

struct AdaMaxTraits {
  static constexpr int kNumVars = 3;
  static constexpr bool kCheckInnerDim = false;
  static constexpr bool kScatterIndexMessage = false;
  template <typename T>
  static AdaMaxFn<ComputeType<T>> Make(HyperParams<T>& hp,
                                       const OptimizerAttrs&, bool) {
    using C = ComputeType<T>;
    AdaMaxFn<C> fn;
    const C beta1_power = hp.Get("beta1_power");
    fn.step = hp.Get("lr") / (C(1) - beta1_power);
    fn.beta1 = hp.Get("beta1");
    fn.beta2 = hp.Get("beta2");
    fn.epsilon = hp.Get("epsilon");
    return fn;
  }
};

// AddSign (kPowerSign false) and PowerSign scale the gradient by how much
// its sign agrees with the moving average's.
template <typename C, bool kPowerSign>
struct SignFn {
  C lr, base, sign_decay, beta;  // base: alpha, or logbase
  void operator()(const Rows<C>& r) const {
    auto var = r.var(0);
    auto m = r.var(1);
    auto g = r.grad();
    m = m * beta + g * (C(1) - beta);
    if constexpr (kPowerSign) {
      var -= lr * (base * sign_decay * (g.sign() * m.sign())).exp() * g;
    } else {
      var -= lr * (base + sign_decay * (g.sign() * m.sign())) * g;
    }
  }
};

template <bool kPowerSign>
struct SignTraits {
  static constexpr int kNumVars = 2;
  static constexpr bool kCheckInnerDim = false;
  static constexpr bool kScatterIndexMessage = false;
  template <typename T>
  static SignFn<ComputeType<T>, kPowerSign> Make(HyperParams<T>& hp,
                                                 const OptimizerAttrs&,
                                                 bool) {
    SignFn<ComputeType<T>, kPowerSign> fn;
    fn.lr = hp.Get("lr");
    fn.base = hp.Get(kPowerSign ? "logbase" : "alpha");
    fn.sign_decay = hp.Get("sign_decay");
    fn.beta = hp.Get("beta");
    return fn;
  }
};

}  // namespace

void RegisterAdamKernels(KernelRegistry* r) {
  RegisterFloatTypes<AdamTraits>(r, "Adam", kDense);
  RegisterComplexTypes<AdamTraits>(r, "Adam", kDense);
  RegisterFloatTypes<AdamWithAmsgradTraits>(r, "AdamWithAmsgrad", kResource);
  // TensorFlow has no bfloat16 AdaMax kernel.
  RegisterOptimizer<AdaMaxTraits, Eigen::half>(r, "AdaMax", kDense);
  RegisterOptimizer<AdaMaxTraits, float>(r, "AdaMax", kDense);
  RegisterOptimizer<AdaMaxTraits, double>(r, "AdaMax", kDense);
  RegisterFloatTypes<SignTraits<false>>(r, "AddSign", kDense);
  RegisterFloatTypes<SignTraits<true>>(r, "PowerSign", kDense);
}

}  // namespace dfx::training

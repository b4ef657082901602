// RMSProp, CenteredRMSProp, Ftrl and FtrlV2, dense and sparse. The math is
// TensorFlow's training_ops.cc: the dense forms follow its functors and the
// sparse forms its sparse kernels, which order some terms differently
// (RMSProp's ms = ms * rho + g^2 * (1 - rho) and rsqrt; Ftrl's clamp of
// linear to [-l1, l1] in place of the select on |linear| > l1).
#include "kernels/training/training_util.h"

#include "kernels/exact_sqrt.h"

namespace dfx::training {
namespace {

template <typename C>
struct RmsPropFn {
  C lr, rho, momentum, epsilon;
  bool sparse;
  void operator()(const Rows<C>& r) const {
    auto var = r.var(0);
    auto ms = r.var(1);
    auto mom = r.var(2);
    auto g = r.grad();
    if (sparse) {
      ms = ms * rho + g.square() * (C(1) - rho);
      mom = mom * momentum + (ms + epsilon).rsqrt() * lr * g;
    } else {
      ms += (g.square() - ms) * (C(1) - rho);
      mom = mom * momentum + (g * lr) / ExactSqrt(ms + epsilon);
    }
    var -= mom;
  }
};

struct RmsPropTraits {
  static constexpr int kNumVars = 3;
  static constexpr bool kCheckInnerDim = false;
  static constexpr bool kScatterIndexMessage = false;
  template <typename T>
  static RmsPropFn<ComputeType<T>> Make(HyperParams<T>& hp,
                                        const OptimizerAttrs&, bool sparse) {
    RmsPropFn<ComputeType<T>> fn;
    fn.lr = hp.Get("lr");
    fn.rho = hp.Get("rho");
    fn.momentum = hp.Get("momentum");
    fn.epsilon = hp.Get("epsilon");
    fn.sparse = sparse;
    return fn;
  }
};

// Centered: the mean square minus the squared mean gradient (var, mg, ms,
// mom).
template <typename C>
struct CenteredRmsPropFn {
  C lr, rho, momentum, epsilon;
  bool sparse;
  void operator()(const Rows<C>& r) const {
    auto var = r.var(0);
    auto mg = r.var(1);
    auto ms = r.var(2);
    auto mom = r.var(3);
    auto g = r.grad();
    if (sparse) {
      ms = ms * rho + g.square() * (C(1) - rho);
      mg = mg * rho + g * (C(1) - rho);
      mom = mom * momentum + (ms + epsilon - mg.square()).rsqrt() * lr * g;
    } else {
      ms += (g.square() - ms) * (C(1) - rho);
      mg += (g - mg) * (C(1) - rho);
      mom = mom * momentum + (g * lr) / ExactSqrt((ms - mg.square()) + epsilon);
    }
    var -= mom;
  }
};

struct CenteredRmsPropTraits {
  static constexpr int kNumVars = 4;
  static constexpr bool kCheckInnerDim = false;
  static constexpr bool kScatterIndexMessage = false;
  template <typename T>
  static CenteredRmsPropFn<ComputeType<T>> Make(HyperParams<T>& hp,
                                                const OptimizerAttrs&,
                                                bool sparse) {
    CenteredRmsPropFn<ComputeType<T>> fn;
    fn.lr = hp.Get("lr");
    fn.rho = hp.Get("rho");
    fn.momentum = hp.Get("momentum");
    fn.epsilon = hp.Get("epsilon");
    fn.sparse = sparse;
    return fn;
  }
};

// Follow-the-regularized-leader (var, accum, linear). kV2 adds the l2
// shrinkage to the gradient that enters `linear`; multiply_linear_by_lr
// keeps `linear` scaled by lr.
template <typename C, bool kV2>
struct FtrlFn {
  C lr, l1, l2, l2_shrinkage, lr_power;
  bool multiply, sparse;

  void operator()(const Rows<C>& r) const {
    auto var = r.var(0);
    auto accum = r.var(1);
    auto linear = r.var(2);
    auto g = r.grad();
    Scratch<C> new_accum_buf, power_buf, sigma_buf;
    auto new_accum = new_accum_buf.map(r.n);
    auto power = power_buf.map(r.n);  // new_accum^-lr_power
    auto sigma = sigma_buf.map(r.n);  // its change: sigma * lr in the paper
    new_accum = accum + g.square();
    if (lr_power == C(-0.5)) {
      power = ExactSqrt(new_accum);
      sigma = power - ExactSqrt(accum);
    } else {
      power = new_accum.pow(-lr_power);
      sigma = power - accum.pow(-lr_power);
    }
    if (multiply) {
      if constexpr (kV2) {
        linear += (g + C(2) * l2_shrinkage * var) * lr - sigma * var;
      } else {
        linear += g * lr - sigma * var;
      }
    } else {
      if constexpr (kV2) {
        linear += (g + C(2) * l2_shrinkage * var) - sigma / lr * var;
      } else {
        linear += g - sigma / lr * var;
      }
    }
    const C l1_bound = multiply ? l1 * lr : l1;
    if (sparse) {
      const C quadratic_l2 = multiply ? C(2) * l2 * lr : C(2) * l2;
      if (multiply) {
        var = (linear.min(l1_bound).max(-l1_bound) - linear) /
              (power + quadratic_l2);
      } else {
        var = (linear.min(l1_bound).max(-l1_bound) - linear) /
              (power / lr + quadratic_l2);
      }
    } else if (multiply) {
      var = (linear.abs() > l1_bound)
                .select((l1_bound * linear.sign() - linear) /
                            (power + C(2) * l2 * lr),
                        C(0));
    } else {
      var = (linear.abs() > l1_bound)
                .select((l1 * linear.sign() - linear) /
                            (power / lr + C(2) * l2),
                        C(0));
    }
    accum = new_accum;
  }
};

template <bool kV2>
struct FtrlTraits {
  static constexpr int kNumVars = 3;
  static constexpr bool kCheckInnerDim = true;
  static constexpr bool kScatterIndexMessage = false;
  template <typename T>
  static FtrlFn<ComputeType<T>, kV2> Make(HyperParams<T>& hp,
                                          const OptimizerAttrs& attrs,
                                          bool sparse) {
    // TensorFlow checks the ranges of the sparse forms' values only.
    auto range = [sparse](Range r) { return sparse ? r : Range::kAny; };
    FtrlFn<ComputeType<T>, kV2> fn;
    fn.lr = hp.Get("lr", "lr",
                   range(attrs.multiply_linear_by_lr ? Range::kPositiveOrZero
                                                     : Range::kPositive));
    fn.l1 = hp.Get("l1", "l1 regularization strength",
                   range(Range::kNonNegative));
    fn.l2 = hp.Get("l2", "l2 regularization strength",
                   range(Range::kNonNegative));
    fn.l2_shrinkage = 0;
    if constexpr (kV2) {
      fn.l2_shrinkage = hp.Get("l2_shrinkage",
                               "l2 shrinkage regularization strength",
                               range(Range::kNonNegative));
    }
    fn.lr_power = hp.Get("lr_power", "lr_power", range(Range::kNonPositive));
    fn.multiply = attrs.multiply_linear_by_lr;
    fn.sparse = sparse;
    return fn;
  }
};

}  // namespace

void RegisterRmsPropFtrlKernels(KernelRegistry* r) {
  RegisterFloatTypes<RmsPropTraits>(r, "RMSProp", kDense);
  RegisterFloatTypes<CenteredRmsPropTraits>(r, "CenteredRMSProp", kDense);
  RegisterComplexTypes<RmsPropTraits>(r, "RMSProp", kAll);
  RegisterComplexTypes<CenteredRmsPropTraits>(r, "CenteredRMSProp", kAll);
  // TensorFlow's sparse RMSProp kernels have no bfloat16 form.
  RegisterOptimizer<RmsPropTraits, Eigen::half>(r, "RMSProp", kSparse);
  RegisterOptimizer<RmsPropTraits, float>(r, "RMSProp", kSparse);
  RegisterOptimizer<RmsPropTraits, double>(r, "RMSProp", kSparse);
  RegisterOptimizer<CenteredRmsPropTraits, Eigen::half>(r, "CenteredRMSProp",
                                                        kSparse);
  RegisterOptimizer<CenteredRmsPropTraits, float>(r, "CenteredRMSProp",
                                                  kSparse);
  RegisterOptimizer<CenteredRmsPropTraits, double>(r, "CenteredRMSProp",
                                                   kSparse);
  RegisterFloatTypes<FtrlTraits<false>>(r, "Ftrl", kAll);
  RegisterFloatTypes<FtrlTraits<true>>(r, "FtrlV2", kAll);
}

}  // namespace dfx::training

// Special functions with Eigen's implementations (the ones TensorFlow's
// kernels call): Lgamma, Digamma, Erfinv, Ndtri, Igamma, Igammac, Zeta,
// Polygamma, Betainc, IgammaGradA and RandomGammaGrad, for the dtypes TensorFlow's CPU kernels register.
#include "kernels/math/cwise_ops.h"  // first: defines EIGEN_USE_THREADS

#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "kernels/kernels.h"

namespace dfx {
namespace {

// The inverse of the normal CDF. Eigen 3.4 answers +-inf outside [0, 1];
// TensorFlow's newer Eigen answers NaN there, as dfx does.
template <typename T>
T Ndtri(T p) {
  if (p < T(0) || p > T(1)) return std::numeric_limits<T>::quiet_NaN();
  return Eigen::numext::ndtri(p);
}

template <typename T>
struct NdtriOp {
  T operator()(const T& p) const { return Ndtri(p); }
};

// erfinv(x) = ndtri((x + 1) / 2) / sqrt(2), as TensorFlow computes it.
template <typename T>
struct ErfinvOp {
  T operator()(const T& x) const {
    return Ndtri(T(0.5) * x + T(0.5)) * T(M_SQRT1_2);
  }
};

// Betainc(a, b, x): each input a scalar or of the one shape they share.
template <typename T>
class BetaincOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    const Tensor& x = ctx->input(2);
    const Tensor* in[] = {&a, &b, &x};
    const char* names[] = {"a", "b", "x"};
    for (int i = 0; i < 3; ++i) {
      for (int j = i + 1; j < 3; ++j) {
        DFX_OP_REQUIRES(ctx,
                        in[i]->dims() == 0 || in[j]->dims() == 0 ||
                            in[i]->shape() == in[j]->shape(),
                        absl::InvalidArgumentError(absl::StrCat(
                            "Shapes of ", names[i], " and ", names[j],
                            " are inconsistent: ", in[i]->shape().DebugString(),
                            " vs. ", in[j]->shape().DebugString())));
      }
    }
    TensorShape shape = a.shape();
    if (b.dims() > 0) shape = b.shape();
    if (x.dims() > 0) shape = x.shape();
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    const T* av = a.data<T>();
    const T* bv = b.data<T>();
    const T* xv = x.data<T>();
    const int64_t as = a.dims() == 0 ? 0 : 1;
    const int64_t bs = b.dims() == 0 ? 0 : 1;
    const int64_t xs = x.dims() == 0 ? 0 : 1;
    T* o = out->data<T>();
    ParallelFor(*ctx->device(), out->NumElements(),
                Eigen::TensorOpCost(3 * sizeof(T), sizeof(T), 1000),
                [&](int64_t first, int64_t last) {
                  for (int64_t i = first; i < last; ++i) {
                    o[i] = Eigen::numext::betainc(av[i * as], bv[i * bs],
                                                  xv[i * xs]);
                  }
                });
  }
};

}  // namespace

void RegisterSpecialMathKernels(KernelRegistry* registry) {
  using math_internal::Binary;
  using math_internal::RegisterForTypes;
  using math_internal::Unary;
  namespace ei = Eigen::internal;
  RegisterForTypes<Unary<ei::scalar_lgamma_op>::Kernel, float, double,
                   Eigen::half>(registry, "Lgamma");
  RegisterForTypes<Unary<ei::scalar_digamma_op>::Kernel, float, double,
                   Eigen::half>(registry, "Digamma");
  RegisterForTypes<Unary<ErfinvOp>::Kernel, float, double>(registry, "Erfinv");
  RegisterForTypes<Unary<NdtriOp>::Kernel, float, double>(registry, "Ndtri");
  RegisterForTypes<Binary<ei::scalar_igamma_op>::Kernel, float, double>(
      registry, "Igamma");
  RegisterForTypes<Binary<ei::scalar_igammac_op>::Kernel, float, double>(
      registry, "Igammac");
  RegisterForTypes<Binary<ei::scalar_zeta_op>::Kernel, float, double>(registry,
                                                                      "Zeta");
  RegisterForTypes<Binary<ei::scalar_polygamma_op>::Kernel, float, double>(
      registry, "Polygamma");
  // The gradients of Igamma with respect to a, and of a gamma sample with
  // respect to its alpha (tf.random.gamma's reparameterized gradient).
  RegisterForTypes<Binary<ei::scalar_igamma_der_a_op>::Kernel, float,
                   double>(registry, "IgammaGradA");
  RegisterForTypes<Binary<ei::scalar_gamma_sample_der_alpha_op>::Kernel, float,
                   double>(registry, "RandomGammaGrad");
  RegisterKernel<BetaincOp<float>>(
      registry, KernelDefBuilder("Betainc").TypeConstraint<float>("T"));
  RegisterKernel<BetaincOp<double>>(
      registry, KernelDefBuilder("Betainc").TypeConstraint<double>("T"));
}

}  // namespace dfx

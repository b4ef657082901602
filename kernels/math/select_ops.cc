// Select (TensorFlow's v1 rules: condition is a scalar, the shape of t and e,
// or a vector over their first dim) and SelectV2 (all three broadcast).
#include <complex>
#include <string>

#include "kernels/math/cwise_ops.h"

namespace dfx {
namespace {

// Cost of one selected element for ParallelFor.
template <typename T>
Eigen::TensorOpCost SelectCost() {
  return Eigen::TensorOpCost(1 + 2 * sizeof(T), sizeof(T), 1);
}

template <typename T>
class SelectOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& cond = ctx->input(0);
    const Tensor& t = ctx->input(1);
    const Tensor& e = ctx->input(2);
    DFX_OP_REQUIRES(
        ctx, t.shape() == e.shape(),
        absl::InvalidArgumentError(absl::StrCat(
            "'then' and 'else' must have the same size.  "
            "but received: ",
            t.shape().DebugString(), " vs. ", e.shape().DebugString())));
    if (cond.dims() == 0) {
      ctx->set_output(0, cond.scalar<bool>() ? t : e);
      return;
    }
    const bool* c = cond.data<bool>();
    const T* tv = t.data<T>();
    const T* ev = e.data<T>();
    if (cond.shape() == t.shape()) {
      Tensor* out = nullptr;
      DFX_OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(
                                  {1, 2}, 0, t.shape(), &out));
      T* o = out->data<T>();
      ParallelFor(*ctx->device(), t.NumElements(), SelectCost<T>(),
                  [&](int64_t first, int64_t last) {
                    for (int64_t i = first; i < last; ++i) {
                      o[i] = c[i] ? tv[i] : ev[i];
                    }
                  });
      return;
    }
    DFX_OP_REQUIRES(
        ctx, cond.dims() == 1 && t.dims() >= 1,
        absl::InvalidArgumentError(absl::StrCat(
            "'then' and 'cond' must have the same size.  "
            "but received: ",
            t.shape().DebugString(), " vs. ", cond.shape().DebugString())));
    DFX_OP_REQUIRES(ctx, cond.dim_size(0) == t.dim_size(0),
                    absl::InvalidArgumentError(absl::StrCat(
                        "Number of batches of 'then' must match size of "
                        "'cond', but saw: ",
                        t.dim_size(0), " vs. ", cond.dim_size(0))));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(
        ctx, ctx->forward_input_or_allocate_output({1, 2}, 0, t.shape(), &out));
    T* o = out->data<T>();
    const int64_t batch = t.dim_size(0);
    if (batch == 0) return;
    const int64_t row = t.NumElements() / batch;
    ParallelFor(*ctx->device(), t.NumElements(), SelectCost<T>(),
                [&](int64_t first, int64_t last) {
                  for (int64_t i = first; i < last; ++i) {
                    o[i] = c[i / row] ? tv[i] : ev[i];
                  }
                });
  }
};

template <typename T>
class SelectV2Op : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& cond = ctx->input(0);
    const Tensor& t = ctx->input(1);
    const Tensor& e = ctx->input(2);
    const TensorShape shapes[] = {cond.shape(), t.shape(), e.shape()};
    absl::StatusOr<Broadcast> bcast = Broadcast::Make(shapes);
    DFX_OP_REQUIRES(ctx, bcast.ok(),
                    absl::InvalidArgumentError(absl::StrCat(
                        "condition ", cond.shape().DebugString(), ", then ",
                        t.shape().DebugString(), ", and else ",
                        e.shape().DebugString(), " must be broadcastable")));
    if (cond.NumElements() == 1 && t.shape() == bcast->output_shape() &&
        e.shape() == bcast->output_shape()) {
      // A scalar condition picks one input whole: share its buffer.
      ctx->set_output(0, cond.data<bool>()[0] ? t : e);
      return;
    }
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(0, bcast->output_shape(), &out));
    const bool* c = cond.data<bool>();
    const T* tv = t.data<T>();
    const T* ev = e.data<T>();
    T* o = out->data<T>();
    const Broadcast& b = *bcast;
    ParallelFor(*ctx->device(), out->NumElements(), SelectCost<T>(),
                [&](int64_t first, int64_t last) {
                  b.ForEachRun(first, last,
                               [&](int64_t off, int64_t len, const int64_t* in,
                                   const int64_t* step) {
                                 const bool* cr = c + in[0];
                                 const T* tr = tv + in[1];
                                 const T* er = ev + in[2];
                                 T* orow = o + off;
                                 for (int64_t i = 0; i < len; ++i) {
                                   orow[i] = cr[i * step[0]] ? tr[i * step[1]]
                                                             : er[i * step[2]];
                                 }
                               });
                });
  }
};

template <typename... Ts>
void RegisterSelect(KernelRegistry* registry) {
  (RegisterKernel<SelectOp<Ts>>(
       registry, KernelDefBuilder("Select").TypeConstraint<Ts>("T")),
   ...);
  (RegisterKernel<SelectV2Op<Ts>>(
       registry, KernelDefBuilder("SelectV2").TypeConstraint<Ts>("T")),
   ...);
}

}  // namespace

void RegisterSelectKernels(KernelRegistry* registry) {
  RegisterSelect<float, double, Eigen::half, Eigen::bfloat16, int8_t, uint8_t,
                 int16_t, uint16_t, int32_t, int64_t, uint32_t, uint64_t, bool,
                 std::string, std::complex<float>, std::complex<double>>(
      registry);
}

}  // namespace dfx

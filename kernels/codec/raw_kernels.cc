// DecodeRaw: the bytes of each string reinterpreted as elements of
// out_type, byte-swapped when their order (little_endian) is not the
// host's. Complex numbers swap their real and imaginary parts separately.
#include <algorithm>
#include <complex>
#include <cstdint>
#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "graph/types.h"
#include "kernels/codec/codec_kernels.h"
#include "runtime/op_kernel.h"

namespace dfx {
namespace {

template <typename T>
constexpr size_t SwapUnit() {
  return sizeof(T);
}
template <>
constexpr size_t SwapUnit<std::complex<float>>() {
  return sizeof(float);
}
template <>
constexpr size_t SwapUnit<std::complex<double>>() {
  return sizeof(double);
}

template <typename T>
class DecodeRawOp : public OpKernel {
 public:
  explicit DecodeRawOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    bool little_endian = true;
    ctx->SetStatus(ctx->GetAttr("little_endian", &little_endian));
    // dfx builds for little-endian hosts only.
    swap_ = !little_endian;
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const std::string* in = input.data<std::string>();
    const int64_t n = input.NumElements();
    int64_t size = -1;
    for (int64_t i = 0; i < n; ++i) {
      const int64_t s = static_cast<int64_t>(in[i].size());
      if (size == -1) {
        size = s;
      } else {
        // TensorFlow's message, which prints the first size before the
        // offending one.
        DFX_OP_REQUIRES(
            ctx, s == size,
            absl::InvalidArgumentError(absl::StrCat(
                "DecodeRaw requires input strings to all be the same size, "
                "but element ",
                i, " has size ", size, " != ", s)));
      }
    }
    TensorShape shape = input.shape();
    if (size <= 0) {
      DFX_OP_REQUIRES_OK(ctx, shape.AddDim(0));
      Tensor* out = nullptr;
      DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
      return;
    }
    DFX_OP_REQUIRES(
        ctx, size % static_cast<int64_t>(sizeof(T)) == 0,
        absl::InvalidArgumentError(absl::StrCat(
            "Input to DecodeRaw has length ", size,
            " that is not a multiple of ", sizeof(T), ", the size of ",
            DataTypeString(DataTypeToEnum<T>::value))));
    const int64_t per_string = size / static_cast<int64_t>(sizeof(T));
    DFX_OP_REQUIRES_OK(ctx, shape.AddDim(per_string));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    char* o = reinterpret_cast<char*>(out->data<T>());
    constexpr size_t unit = SwapUnit<T>();
    for (int64_t i = 0; i < n; ++i, o += size) {
      const char* p = in[i].data();
      if (!swap_ || unit == 1) {
        std::memcpy(o, p, size);
      } else {
        for (int64_t b = 0; b < size; b += unit) {
          std::reverse_copy(p + b, p + b + unit, o + b);
        }
      }
    }
  }

 private:
  bool swap_ = false;
};

template <typename T>
void Register(KernelRegistry* registry) {
  RegisterKernel<DecodeRawOp<T>>(
      registry, KernelDefBuilder("DecodeRaw").TypeConstraint<T>("out_type"));
}

}  // namespace

void RegisterDecodeRawKernels(KernelRegistry* registry) {
  Register<Eigen::half>(registry);
  Register<float>(registry);
  Register<double>(registry);
  Register<int32_t>(registry);
  Register<uint16_t>(registry);
  Register<uint8_t>(registry);
  Register<int16_t>(registry);
  Register<int8_t>(registry);
  Register<int64_t>(registry);
  Register<std::complex<float>>(registry);
  Register<std::complex<double>>(registry);
  Register<bool>(registry);
  Register<Eigen::bfloat16>(registry);
}

}  // namespace dfx

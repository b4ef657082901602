// Fill, ZerosLike and OnesLike: outputs with every element set to one value.
#include <algorithm>
#include <complex>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/array/array_util.h"
#include "kernels/eigen_util.h"

namespace dfx::array_internal {
namespace {

const DataTypeVector& FillTypes() {
  static const DataTypeVector* types = new DataTypeVector{
      DT_FLOAT,  DT_DOUBLE, DT_HALF,   DT_BFLOAT16, DT_INT8,
      DT_INT16,  DT_INT32,  DT_INT64,  DT_UINT8,    DT_UINT16,
      DT_UINT32, DT_UINT64, DT_BOOL,   DT_STRING};
  return *types;
}

// Sets every element of `t` to `value`.
void SetAll(Tensor* t, const std::string& value) {
  for (std::string& x : t->span<std::string>()) x = value;
}

// Sets elements [first, last) of `p` to `value`: a block of them one by
// one, then copies of that block (memcpy from a cache-resident source runs
// at store bandwidth; GCC at -O2 leaves the plain loop scalar, a quarter of
// that for float). All-equal bytes (zero, most often) are one memset.
template <typename T>
void SetRange(T* p, int64_t first, int64_t last, const T& value) {
  static_assert(std::is_trivially_copyable_v<T>);
  T* begin = p + first;
  const int64_t n = last - first;
  unsigned char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  if (std::all_of(bytes, bytes + sizeof(T),
                  [&](unsigned char b) { return b == bytes[0]; })) {
    std::memset(static_cast<void*>(begin), bytes[0],
                static_cast<size_t>(n) * sizeof(T));
    return;
  }
  constexpr int64_t kBlock = 4096 / sizeof(T);
  const int64_t block = std::min(n, kBlock);
  for (int64_t i = 0; i < block; ++i) begin[i] = value;
  for (int64_t i = block; i < n; i += block) {
    std::memcpy(static_cast<void*>(begin + i), begin,
                static_cast<size_t>(std::min(block, n - i)) * sizeof(T));
  }
}

// Sets every element of `t` to `value`, on the device's intra-op pool when
// it is large (TensorFlow's Fill runs on its Eigen device too).
template <typename T>
void SetAll(const Device& device, Tensor* t, const T& value) {
  T* p = t->data<T>();
  ParallelFor(device, t->NumElements(), Eigen::TensorOpCost(0, sizeof(T), 0),
              [&](int64_t first, int64_t last) {
                SetRange(p, first, last, value);
              });
}

class FillOp : public OpKernel {
 public:
  explicit FillOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& dims_t = ctx->input(0);
    const Tensor& value = ctx->input(1);
    DFX_OP_REQUIRES(
        ctx, dims_t.dims() == 1,
        NodeError(*this, absl::StrCat("'dims' must be a vector, got shape ",
                                      dims_t.shape().DebugString())));
    DFX_OP_REQUIRES(
        ctx, value.dims() == 0,
        NodeError(*this, absl::StrCat("'value' must be a scalar, got shape ",
                                      value.shape().DebugString())));
    absl::StatusOr<std::vector<int64_t>> dims = ReadInts(dims_t);
    DFX_OP_REQUIRES(ctx, dims.ok(), NodeError(*this, dims.status().message()));
    absl::StatusOr<TensorShape> shape = TensorShape::Build(*dims);
    DFX_OP_REQUIRES(ctx, shape.ok(),
                    NodeError(*this, absl::StrCat("bad 'dims': ",
                                                  shape.status().message())));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &out));
    if (value.dtype() == DT_STRING) {
      SetAll(out, value.scalar<std::string>());
    } else if (value.dtype() == DT_COMPLEX64) {
      SetAll(*ctx->device(), out, value.scalar<std::complex<float>>());
    } else if (value.dtype() == DT_COMPLEX128) {
      SetAll(*ctx->device(), out, value.scalar<std::complex<double>>());
    } else {
      VisitNumericType(value.dtype(), [&]<typename T>() {
        SetAll(*ctx->device(), out, value.scalar<T>());
      });
    }
  }
};

// ZerosLike (kOne false) and OnesLike (kOne true).
template <bool kOne>
class ConstantLikeOp : public OpKernel {
 public:
  explicit ConstantLikeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &out));
    if (x.dtype() == DT_STRING) {
      SetAll(out, std::string());
      return;
    }
    VisitNumericType(x.dtype(), [&]<typename T>() {
      SetAll(*ctx->device(), out, static_cast<T>(kOne ? 1 : 0));
    });
  }
};

}  // namespace

void RegisterFillKernels(KernelRegistry* registry) {
  // Fill also serves complex (ZerosLike and OnesLike of complex are
  // kernels/fft/complex_ops.cc's).
  DataTypeVector fill_types = FillTypes();
  fill_types.push_back(DT_COMPLEX64);
  fill_types.push_back(DT_COMPLEX128);
  RegisterKernel<FillOp>(
      registry, KernelDefBuilder("Fill").TypeConstraint("T", fill_types));
  RegisterKernel<ConstantLikeOp<false>>(
      registry, KernelDefBuilder("ZerosLike").TypeConstraint("T", FillTypes()));
  RegisterKernel<ConstantLikeOp<true>>(
      registry, KernelDefBuilder("OnesLike")
                    .TypeConstraint("T", {DT_FLOAT, DT_DOUBLE, DT_HALF,
                                          DT_BFLOAT16, DT_INT8, DT_INT16,
                                          DT_INT32, DT_INT64, DT_UINT8,
                                          DT_UINT16, DT_UINT32, DT_UINT64,
                                          DT_BOOL}));
}

}  // namespace dfx::array_internal

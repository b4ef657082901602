// CPU kernels for FFT, IFFT, RFFT, IRFFT and their 2D and 3D forms, as
// TensorFlow's (which call DUCC): the transform runs over the innermost 1, 2
// or 3 dims, the inverse transforms scale by 1/(product of the transformed
// lengths), and the real transforms take an fft_length input.
//
// - RFFT: each transformed input dim must hold at least fft_length[i]
//   elements and is cropped to it (tf.signal.rfft pads a shorter input
//   before calling the op); the output's last dim is fft_length/2+1.
// - IRFFT: the input's last dim must hold at least fft_length/2+1 elements,
//   the others fft_length[i]; each is cropped to that. The outer axes are
//   inverse complex transforms, the last a complex-to-real one that ignores
//   the imaginary parts of the zero (and, for even lengths, the Nyquist)
//   frequency, as DUCC's c2r does.
// - An empty input passes through: the output has the shape the fft_length
//   gives it, and holds zeros where it is not itself empty (TensorFlow
//   leaves such an output uninitialised).
//
// The transforms run in the tensors' own precision (float for complex64,
// double for complex128), as TensorFlow's do, through kernels/fft/
// fft_plan.h: each axis is one batched pass over the [outer, n, inner]
// view of the buffer, the real transforms' last axis a real-to-complex or
// complex-to-real pass, and the inverse's scale folds into the last pass.
#include "kernels/eigen_util.h"  // first: defines EIGEN_USE_THREADS

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <functional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/fft/fft_kernels.h"
#include "kernels/fft/fft_plan.h"
#include "kernels/kernels.h"

namespace dfx {
namespace fft_internal {
namespace {

using complex64 = std::complex<float>;
using complex128 = std::complex<double>;

// Spreads an engine pass over the device's intra-op pool: inline when the
// pool has one thread, the caller is one of its threads, or the pass is
// under kMinParallelCycles (about 0.3 ms: below that, waking and waiting
// for the other threads cost more than they save on a busy machine).
constexpr double kMinParallelCycles = 1e6;

ParallelRunner PoolRunner(const Device& device) {
  return [&device](int64_t n, double cost,
                   const std::function<void(int64_t, int64_t)>& fn) {
    if (n <= 0) return;
    const ThreadPool* pool = device.intra_op_pool();
    if (n == 1 || pool == nullptr || pool->NumThreads() <= 1 ||
        pool->CurrentThreadId() >= 0 ||
        static_cast<double>(n) * cost < kMinParallelCycles) {
      fn(0, n);
      return;
    }
    device.eigen_cpu_device().parallelFor(
        n, Eigen::TensorOpCost(0, 0, cost),
        [&fn](Eigen::Index first, Eigen::Index last) {
          fn(static_cast<int64_t>(first), static_cast<int64_t>(last));
        });
  };
}

// Copies the leading `to_dims` block of `in` (dims `in_dims`, each at least
// the matching to_dims entry) into `out` (dims `to_dims`).
template <typename T>
void CopyBlock(const T* in, const std::vector<int64_t>& in_dims,
               const std::vector<int64_t>& to_dims, T* out) {
  const int rank = static_cast<int>(to_dims.size());
  int64_t total = 1;
  for (int64_t d : to_dims) total *= d;
  if (total == 0) return;
  std::vector<int64_t> in_strides(rank, 1);
  for (int i = rank - 2; i >= 0; --i) {
    in_strides[i] = in_strides[i + 1] * in_dims[i + 1];
  }
  const int64_t row = to_dims[rank - 1];
  std::vector<int64_t> index(rank, 0);  // of the row's first element
  for (int64_t o = 0; o < total; o += row) {
    int64_t in_off = 0;
    for (int i = 0; i < rank; ++i) in_off += index[i] * in_strides[i];
    std::copy_n(in + in_off, row, out + o);
    for (int i = rank - 2; i >= 0; --i) {
      if (++index[i] < to_dims[i]) break;
      index[i] = 0;
    }
  }
}

// Complex transforms of buf (dims `dims`: [batch, d1, ...]) along axes
// first_axis..last_axis, innermost first, from src (same dims; may be
// buf); the last pass multiplies by `scale`. Returns false when no axis
// had length above 1 (nothing was written).
template <typename T>
bool TransformAxes(const std::complex<T>* src, std::complex<T>* buf,
                   const std::vector<int64_t>& dims, int first_axis,
                   int last_axis, bool forward, T scale,
                   const ParallelRunner& run) {
  int outermost = -1;  // the last axis to transform
  for (int a = first_axis; a <= last_axis; ++a) {
    if (dims[a] > 1) {
      outermost = a;
      break;
    }
  }
  if (outermost < 0) return false;
  const std::complex<T>* cur = src;
  for (int a = last_axis; a >= outermost; --a) {
    if (dims[a] <= 1) continue;
    int64_t outer = 1, inner = 1;
    for (int i = 0; i < a; ++i) outer *= dims[i];
    for (size_t i = a + 1; i < dims.size(); ++i) inner *= dims[i];
    FftPlan<T>::Get(dims[a])->Transform(cur, buf, outer, inner, forward,
                                        a == outermost ? scale : T(1), run);
    cur = buf;
  }
  return true;
}

template <bool kForward, bool kReal, int kRank>
class FftOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const int dims = in.dims();
    DFX_OP_REQUIRES(
        ctx, dims >= kRank,
        absl::InvalidArgumentError(absl::StrCat(
            "Input must have rank of at least ", kRank,
            " but got: ", in.shape().DebugString())));
    const DataType out_type = output_type(0);
    if constexpr (kReal) {
      const bool ok =
          kForward ? (in.dtype() == DT_FLOAT && out_type == DT_COMPLEX64) ||
                         (in.dtype() == DT_DOUBLE && out_type == DT_COMPLEX128)
                   : (in.dtype() == DT_COMPLEX64 && out_type == DT_FLOAT) ||
                         (in.dtype() == DT_COMPLEX128 && out_type == DT_DOUBLE);
      DFX_OP_REQUIRES(ctx, ok,
                      absl::InvalidArgumentError(absl::StrCat(
                          "Wrong types for ",
                          kForward ? "forward" : "backward",
                          " real FFT: in=", static_cast<int>(in.dtype()),
                          " out=", static_cast<int>(out_type))));
    }
    // The transform lengths, and the output's shape.
    std::vector<int64_t> lengths(kRank);
    std::vector<int64_t> out_dims(in.shape().dim_sizes().begin(),
                                  in.shape().dim_sizes().end());
    if constexpr (kReal) {
      const Tensor& fft_length = ctx->input(1);
      DFX_OP_REQUIRES(
          ctx, fft_length.dims() == 1 && fft_length.dim_size(0) == kRank,
          absl::InvalidArgumentError(
              absl::StrCat("fft_length must have shape [", kRank, "]")));
      for (int i = 0; i < kRank; ++i) {
        const int32_t v = fft_length.data<int32_t>()[i];
        DFX_OP_REQUIRES(ctx, v >= 0,
                        absl::InvalidArgumentError(absl::StrCat(
                            "fft_length[", i, "] must >= 0, but got: ", v)));
        lengths[i] = v;
        const bool inner = i == kRank - 1;
        const int64_t need = !kForward && inner ? v / 2 + 1 : v;
        const int index = dims - kRank + i;
        DFX_OP_REQUIRES(
            ctx, in.dim_size(index) == 0 || in.dim_size(index) >= need,
            absl::InvalidArgumentError(absl::StrCat(
                "Input dimension ", index, " must have length of at least ",
                need, " but got: ", in.dim_size(index))));
        out_dims[index] = kForward && inner && v != 0 ? v / 2 + 1 : v;
      }
    } else {
      for (int i = 0; i < kRank; ++i) {
        lengths[i] = in.dim_size(dims - kRank + i);
      }
    }
    // An empty input with large fft_lengths may ask for more elements than
    // a shape can hold.
    absl::StatusOr<TensorShape> out_shape = TensorShape::Build(out_dims);
    DFX_OP_REQUIRES(ctx, out_shape.ok(),
                    absl::InvalidArgumentError(absl::StrCat(
                        "FFT output shape: ", out_shape.status().message())));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *out_shape, &out));
    if (out->NumElements() == 0) return;
    if (in.NumElements() == 0) {
      std::memset(out->raw_data(), 0, out->TotalBytes());
      return;
    }
    const ParallelRunner run = PoolRunner(*ctx->device());
    const bool wide = in.dtype() == DT_COMPLEX128 || in.dtype() == DT_DOUBLE;
    if constexpr (!kReal) {
      DFX_OP_REQUIRES(
          ctx, in.dtype() == DT_COMPLEX64 || in.dtype() == DT_COMPLEX128,
          absl::InvalidArgumentError(absl::StrCat(
              "Wrong types for FFT: in=", static_cast<int>(in.dtype()))));
      if (wide) {
        RunComplex<double>(in, lengths, out, run);
      } else {
        RunComplex<float>(in, lengths, out, run);
      }
    } else if constexpr (kForward) {
      if (wide) {
        RunRealForward<double>(in, lengths, out, run);
      } else {
        RunRealForward<float>(in, lengths, out, run);
      }
    } else {
      if (wide) {
        RunRealInverse<double>(in, lengths, out, run);
      } else {
        RunRealInverse<float>(in, lengths, out, run);
      }
    }
  }

 private:
  // [batch, the transformed dims of `t`].
  static std::vector<int64_t> BatchDims(const Tensor& t) {
    const int dims = t.dims();
    int64_t batch = 1;
    for (int i = 0; i < dims - kRank; ++i) batch *= t.dim_size(i);
    std::vector<int64_t> out = {batch};
    for (int i = dims - kRank; i < dims; ++i) out.push_back(t.dim_size(i));
    return out;
  }

  static double InverseScale(const std::vector<int64_t>& lengths) {
    double scale = 1.0;
    for (int64_t n : lengths) scale /= static_cast<double>(n);
    return scale;
  }

  template <typename T>
  static void RunComplex(const Tensor& in, const std::vector<int64_t>& lengths,
                         Tensor* out, const ParallelRunner& run) {
    const std::vector<int64_t> dims = BatchDims(in);
    const T scale = kForward ? T(1) : static_cast<T>(InverseScale(lengths));
    const auto* src = in.data<std::complex<T>>();
    auto* dst = out->data<std::complex<T>>();
    if (!TransformAxes<T>(src, dst, dims, 1, kRank, kForward, scale, run)) {
      std::copy_n(src, in.NumElements(), dst);  // every length is 1
    }
  }

  template <typename T>
  static void RunRealForward(const Tensor& in,
                             const std::vector<int64_t>& lengths, Tensor* out,
                             const ParallelRunner& run) {
    const std::vector<int64_t> in_dims = BatchDims(in);
    std::vector<int64_t> dims = {in_dims[0]};
    dims.insert(dims.end(), lengths.begin(), lengths.end());
    const T* src = in.data<T>();
    std::vector<T> cropped;
    if (dims != in_dims) {
      int64_t size = 1;
      for (int64_t d : dims) size *= d;
      cropped.resize(size);
      CopyBlock(src, in_dims, dims, cropped.data());
      src = cropped.data();
    }
    const int64_t n = lengths.back();
    auto* dst = out->data<std::complex<T>>();
    RealFftPlan<T>::Get(n)->Forward(src, dst, out->NumElements() / (n / 2 + 1),
                                    run);
    dims.back() = n / 2 + 1;
    TransformAxes<T>(dst, dst, dims, 1, kRank - 1, true, T(1), run);
  }

  template <typename T>
  static void RunRealInverse(const Tensor& in,
                             const std::vector<int64_t>& lengths, Tensor* out,
                             const ParallelRunner& run) {
    const std::vector<int64_t> in_dims = BatchDims(in);
    const int64_t n = lengths.back();
    const int64_t half = n / 2 + 1;
    std::vector<int64_t> dims = {in_dims[0]};
    dims.insert(dims.end(), lengths.begin(), lengths.end());
    dims.back() = half;
    const T scale = static_cast<T>(InverseScale(lengths));
    const auto* src = in.data<std::complex<T>>();
    int64_t pitch = in_dims.back();
    std::vector<std::complex<T>> buf;
    if constexpr (kRank > 1) {
      // The outer axes' inverse transforms first, on a cropped copy.
      int64_t size = 1;
      for (int64_t d : dims) size *= d;
      buf.resize(size);
      CopyBlock(src, in_dims, dims, buf.data());
      TransformAxes<T>(buf.data(), buf.data(), dims, 1, kRank - 1, false,
                       T(1), run);
      src = buf.data();
      pitch = half;
    }
    RealFftPlan<T>::Get(n)->Inverse(src, pitch, out->data<T>(),
                                    out->NumElements() / n, scale, run);
  }
};

template <bool kForward, bool kReal, int kRank>
void RegisterOne(KernelRegistry* registry, const char* name) {
  KernelDefBuilder b(name);
  if constexpr (kReal) b.HostMemory("fft_length");
  RegisterKernel<FftOp<kForward, kReal, kRank>>(registry, b);
}

}  // namespace
}  // namespace fft_internal

void RegisterFftOpKernels(KernelRegistry* registry) {
  using fft_internal::RegisterOne;
  RegisterOne<true, false, 1>(registry, "FFT");
  RegisterOne<false, false, 1>(registry, "IFFT");
  RegisterOne<true, false, 2>(registry, "FFT2D");
  RegisterOne<false, false, 2>(registry, "IFFT2D");
  RegisterOne<true, false, 3>(registry, "FFT3D");
  RegisterOne<false, false, 3>(registry, "IFFT3D");
  RegisterOne<true, true, 1>(registry, "RFFT");
  RegisterOne<false, true, 1>(registry, "IRFFT");
  RegisterOne<true, true, 2>(registry, "RFFT2D");
  RegisterOne<false, true, 2>(registry, "IRFFT2D");
  RegisterOne<true, true, 3>(registry, "RFFT3D");
  RegisterOne<false, true, 3>(registry, "IRFFT3D");
}

void RegisterFftKernels(KernelRegistry* registry) {
  RegisterComplexKernels(registry);
  RegisterFftOpKernels(registry);
}

}  // namespace dfx

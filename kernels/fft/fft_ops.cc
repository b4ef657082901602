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
// Everything is computed in double precision and rounded once to the output
// type, so complex64 results are at least as accurate as TensorFlow's.
#include "kernels/eigen_util.h"  // first: defines EIGEN_USE_THREADS

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <numbers>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/fft/fft_kernels.h"
#include "kernels/kernels.h"

namespace dfx {
namespace fft_internal {
namespace {

using cdouble = std::complex<double>;

std::vector<int64_t> PrimeFactors(int64_t n) {
  std::vector<int64_t> f;
  for (int64_t p = 2; p * p <= n; ++p) {
    while (n % p == 0) {
      f.push_back(p);
      n /= p;
    }
  }
  if (n > 1) f.push_back(n);
  return f;
}

}  // namespace

FftPlan::FftPlan(int64_t n) : n_(n) {
  if (n <= 1) return;
  std::vector<int64_t> factors = PrimeFactors(n);
  if (factors.back() <= kMaxDirectPrime) {
    factors_ = std::move(factors);
    roots_.resize(n);
    for (int64_t j = 0; j < n; ++j) {
      const double angle = -2.0 * std::numbers::pi * static_cast<double>(j) /
                           static_cast<double>(n);
      roots_[j] = cdouble(std::cos(angle), std::sin(angle));
    }
    return;
  }
  // Bluestein: jk = (j^2 + k^2 - (k-j)^2) / 2 turns the transform into a
  // convolution with the chirp, done by a power-of-two transform of length
  // m >= 2n - 1. j^2 is reduced mod 2n so the angle stays exact.
  int64_t m = 1;
  while (m < 2 * n - 1) m *= 2;
  chirp_.resize(n);
  for (int64_t j = 0; j < n; ++j) {
    const int64_t sq = (j * j) % (2 * n);
    const double angle =
        -std::numbers::pi * static_cast<double>(sq) / static_cast<double>(n);
    chirp_[j] = cdouble(std::cos(angle), std::sin(angle));
  }
  pow2_ = std::make_unique<FftPlan>(m);
  chirp_fft_.assign(m, cdouble(0, 0));
  chirp_fft_[0] = std::conj(chirp_[0]);
  for (int64_t j = 1; j < n; ++j) {
    chirp_fft_[j] = chirp_fft_[m - j] = std::conj(chirp_[j]);
  }
  std::vector<cdouble> scratch;
  pow2_->Transform(chirp_fft_.data(), /*forward=*/true, &scratch);
}

void FftPlan::Transform(cdouble* data, bool forward,
                        std::vector<cdouble>* scratch) const {
  if (n_ <= 1) return;
  if (pow2_ != nullptr) {
    Bluestein(data, forward, scratch);
    return;
  }
  scratch->assign(data, data + n_);
  Recurse(scratch->data(), 1, data, n_, 0, forward);
}

void FftPlan::Recurse(const cdouble* in, int64_t stride, cdouble* out,
                      int64_t len, size_t level, bool forward) const {
  if (len == 1) {
    out[0] = in[0];
    return;
  }
  const int64_t p = factors_[level];
  const int64_t m = len / p;
  for (int64_t r = 0; r < p; ++r) {
    Recurse(in + r * stride, stride * p, out + r * m, m, level + 1, forward);
  }
  // out[r*m + k] holds the length-m transform of the r-th decimated
  // sequence; combine them with the twiddles W_len^(rk) and a length-p DFT.
  const int64_t len_step = n_ / len;  // W_len^e = roots_[e * len_step]
  const int64_t p_step = n_ / p;      // W_p^e = roots_[e * p_step]
  auto root = [&](int64_t e) {
    return forward ? roots_[e] : std::conj(roots_[e]);
  };
  cdouble t[kMaxDirectPrime];
  for (int64_t k = 0; k < m; ++k) {
    t[0] = out[k];
    for (int64_t r = 1; r < p; ++r) {
      t[r] = out[r * m + k] * root((r * k * len_step) % n_);
    }
    if (p == 2) {
      out[k] = t[0] + t[1];
      out[m + k] = t[0] - t[1];
      continue;
    }
    for (int64_t q = 0; q < p; ++q) {
      cdouble sum = t[0];
      for (int64_t r = 1; r < p; ++r) {
        sum += t[r] * root(((r * q) % p) * p_step);
      }
      out[q * m + k] = sum;
    }
  }
}

void FftPlan::Bluestein(cdouble* data, bool forward,
                        std::vector<cdouble>* scratch) const {
  const int64_t m = pow2_->size();
  // The inverse uses the conjugate chirp; its convolution kernel's
  // transform is conj(chirp_fft_[-k mod m]).
  auto chirp = [&](int64_t j) {
    return forward ? chirp_[j] : std::conj(chirp_[j]);
  };
  std::vector<cdouble> a(m, cdouble(0, 0));
  for (int64_t j = 0; j < n_; ++j) a[j] = data[j] * chirp(j);
  pow2_->Transform(a.data(), /*forward=*/true, scratch);
  for (int64_t k = 0; k < m; ++k) {
    a[k] *= forward ? chirp_fft_[k] : std::conj(chirp_fft_[(m - k) % m]);
  }
  pow2_->Transform(a.data(), /*forward=*/false, scratch);
  const double scale = 1.0 / static_cast<double>(m);
  for (int64_t k = 0; k < n_; ++k) data[k] = chirp(k) * a[k] * scale;
}

namespace {

using complex64 = std::complex<float>;
using complex128 = std::complex<double>;

// Transforms `buf` (row-major, dims `dims`) along each axis in `axes`, each
// line on its own, lines spread over the device's pool.
void TransformAxes(const Device& device, cdouble* buf,
                   const std::vector<int64_t>& dims,
                   const std::vector<int>& axes, bool forward) {
  int64_t total = 1;
  for (int64_t d : dims) total *= d;
  if (total == 0) return;
  for (int axis : axes) {
    const int64_t len = dims[axis];
    if (len <= 1) continue;
    int64_t stride = 1;
    for (size_t i = axis + 1; i < dims.size(); ++i) stride *= dims[i];
    const int64_t lines = total / len;
    const FftPlan plan(len);
    const double log_len = std::log2(static_cast<double>(len)) + 1;
    const Eigen::TensorOpCost cost(len * sizeof(cdouble),
                                   len * sizeof(cdouble), len * 8 * log_len);
    ParallelFor(device, lines, cost, [&](int64_t first, int64_t last) {
      std::vector<cdouble> line(len), scratch;
      for (int64_t l = first; l < last; ++l) {
        cdouble* base = buf + (l / stride) * len * stride + l % stride;
        for (int64_t j = 0; j < len; ++j) line[j] = base[j * stride];
        plan.Transform(line.data(), forward, &scratch);
        for (int64_t j = 0; j < len; ++j) base[j * stride] = line[j];
      }
    });
  }
}

// Copies the leading `to_dims` block of `in` (dims `in_dims`, each at least
// the matching to_dims entry) into `out` (dims `to_dims`), as cdouble.
template <typename T>
void CopyBlock(const T* in, const std::vector<int64_t>& in_dims,
               const std::vector<int64_t>& to_dims, cdouble* out) {
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
    for (int64_t j = 0; j < row; ++j) {
      out[o + j] = cdouble(in[in_off + j]);
    }
    for (int i = rank - 2; i >= 0; --i) {
      if (++index[i] < to_dims[i]) break;
      index[i] = 0;
    }
  }
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
    switch (in.dtype()) {
      case DT_COMPLEX64: Run<complex64>(ctx, in, lengths, out); break;
      case DT_COMPLEX128: Run<complex128>(ctx, in, lengths, out); break;
      case DT_FLOAT: Run<float>(ctx, in, lengths, out); break;
      case DT_DOUBLE: Run<double>(ctx, in, lengths, out); break;
      default:
        ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
            "Wrong types for FFT: in=", static_cast<int>(in.dtype()))));
    }
  }

 private:
  template <typename Tin>
  void Run(OpKernelContext* ctx, const Tensor& in,
           const std::vector<int64_t>& lengths, Tensor* out) {
    const int dims = in.dims();
    // [batch, transformed dims...]
    int64_t batch = 1;
    for (int i = 0; i < dims - kRank; ++i) batch *= in.dim_size(i);
    std::vector<int64_t> in_dims = {batch};
    for (int i = dims - kRank; i < dims; ++i) in_dims.push_back(in.dim_size(i));
    std::vector<int64_t> buf_dims = {batch};
    buf_dims.insert(buf_dims.end(), lengths.begin(), lengths.end());
    if constexpr (kReal && !kForward) buf_dims.back() = lengths.back() / 2 + 1;
    int64_t buf_size = 1;
    for (int64_t d : buf_dims) buf_size *= d;
    std::vector<cdouble> buf(buf_size);
    CopyBlock(in.data<Tin>(), in_dims, buf_dims, buf.data());

    double scale = 1.0;
    for (int64_t n : lengths) scale /= static_cast<double>(n);
    if constexpr (!kReal) {
      std::vector<int> axes;
      for (int i = 1; i <= kRank; ++i) axes.push_back(i);
      TransformAxes(*ctx->device(), buf.data(), buf_dims, axes, kForward);
      Store(buf.data(), buf_size, kForward ? 1.0 : scale, out);
    } else if constexpr (kForward) {
      std::vector<int> axes;
      for (int i = 1; i <= kRank; ++i) axes.push_back(i);
      TransformAxes(*ctx->device(), buf.data(), buf_dims, axes, true);
      // Keep the first n/2+1 frequencies of each last-axis line.
      const int64_t n = lengths.back();
      const int64_t half = n / 2 + 1;
      const int64_t rows = buf_size / n;
      std::vector<cdouble> kept(rows * half);
      for (int64_t r = 0; r < rows; ++r) {
        std::copy_n(buf.data() + r * n, half, kept.data() + r * half);
      }
      Store(kept.data(), rows * half, 1.0, out);
    } else {
      std::vector<int> axes;
      for (int i = 1; i < kRank; ++i) axes.push_back(i);
      TransformAxes(*ctx->device(), buf.data(), buf_dims, axes, false);
      ComplexToReal(*ctx->device(), buf.data(), buf_size / buf_dims.back(),
                    buf_dims.back(), lengths.back(), scale, out);
    }
  }

  // out <- scale * buf, as out's type.
  static void Store(const cdouble* buf, int64_t size, double scale,
                    Tensor* out) {
    if (out->dtype() == DT_COMPLEX64) {
      complex64* o = out->data<complex64>();
      for (int64_t i = 0; i < size; ++i) o[i] = complex64(buf[i] * scale);
    } else {
      complex128* o = out->data<complex128>();
      for (int64_t i = 0; i < size; ++i) o[i] = buf[i] * scale;
    }
  }

  // Each of `rows` rows of `half` = n/2+1 frequencies becomes n real
  // values: the Hermitian-symmetric spectrum is completed, inverse
  // transformed, and its real part scaled into out.
  static void ComplexToReal(const Device& device, const cdouble* buf,
                            int64_t rows, int64_t half, int64_t n,
                            double scale, Tensor* out) {
    const FftPlan plan(n);
    const double log_n = std::log2(static_cast<double>(n)) + 1;
    const Eigen::TensorOpCost cost(half * sizeof(cdouble), n * 8,
                                   n * 8 * log_n);
    ParallelFor(device, rows, cost, [&](int64_t first, int64_t last) {
      std::vector<cdouble> line(n), scratch;
      for (int64_t r = first; r < last; ++r) {
        const cdouble* x = buf + r * half;
        line[0] = cdouble(x[0].real(), 0);
        for (int64_t k = 1; k < half && k < n; ++k) line[k] = x[k];
        if (n % 2 == 0) line[n / 2] = cdouble(x[n / 2].real(), 0);
        for (int64_t k = 1; k < (n + 1) / 2; ++k) {
          line[n - k] = std::conj(x[k]);
        }
        plan.Transform(line.data(), /*forward=*/false, &scratch);
        if (out->dtype() == DT_FLOAT) {
          float* o = out->data<float>() + r * n;
          for (int64_t j = 0; j < n; ++j) {
            o[j] = static_cast<float>(line[j].real() * scale);
          }
        } else {
          double* o = out->data<double>() + r * n;
          for (int64_t j = 0; j < n; ++j) o[j] = line[j].real() * scale;
        }
      }
    });
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

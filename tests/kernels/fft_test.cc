// Unit tests of kernels/fft/: the complex-number kernels, complex
// arithmetic and Cast, and the FFT family (against a direct DFT, and
// TensorFlow's errors). tests/golden/gen_fft.py compares with TensorFlow.
#include <cmath>
#include <complex>
#include <cstdint>
#include <functional>
#include <numbers>
#include <thread>
#include <vector>

#include "catch2/catch.hpp"
#include "kernels/fft/fft_kernels.h"
#include "kernels/fft/fft_plan.h"
#include "tests/kernels/math_test_util.h"

namespace dfx {
namespace {

using testing::MakeTensor;
using testing::MakeVector;
using testing::RunError;
using testing::RunOne;
using testing::StatusIs;
using testing::TestNodeBuilder;
using testing::TypedNode;
using testing::Values;
using c64 = std::complex<float>;
using c128 = std::complex<double>;

constexpr auto kInvalid = absl::StatusCode::kInvalidArgument;

// The textbook O(n^2) DFT, in long double.
std::vector<c128> Dft(const std::vector<c128>& x, bool forward) {
  const int64_t n = static_cast<int64_t>(x.size());
  std::vector<std::complex<long double>> root(n);
  for (int64_t e = 0; e < n; ++e) {
    const long double angle = (forward ? -2.0L : 2.0L) *
                              std::numbers::pi_v<long double> *
                              static_cast<long double>(e) / n;
    root[e] = std::complex<long double>(std::cos(angle), std::sin(angle));
  }
  std::vector<c128> out(n);
  for (int64_t k = 0; k < n; ++k) {
    std::complex<long double> sum = 0;
    int64_t e = 0;  // j * k mod n
    for (int64_t j = 0; j < n; ++j) {
      sum += std::complex<long double>(x[j]) * root[e];
      e += k;
      if (e >= n) e -= n;
    }
    out[k] = c128(sum);
  }
  return out;
}

std::vector<c128> Ramp(int64_t n) {
  std::vector<c128> x(n);
  for (int64_t j = 0; j < n; ++j) {
    x[j] = c128(std::sin(0.7 * j + 0.1), std::cos(1.3 * j) - 0.2);
  }
  return x;
}

double MaxDiff(const std::vector<c128>& a, const std::vector<c128>& b) {
  double m = 0;
  for (size_t i = 0; i < a.size(); ++i) m = std::max(m, std::abs(a[i] - b[i]));
  return m;
}

// Runs each block on its own thread, so the plans run concurrently.
void ThreadRunner(int64_t n, double /*cost*/,
                  const std::function<void(int64_t, int64_t)>& fn) {
  std::vector<std::thread> threads;
  const int64_t parts = std::min<int64_t>(n, 3);
  for (int64_t t = 0; t < parts; ++t) {
    threads.emplace_back([&fn, n, t, parts] {
      fn(n * t / parts, n * (t + 1) / parts);
    });
  }
  for (std::thread& t : threads) t.join();
}

// Plans cover: Stockham radix 4, 2, 3, 5, 7 and generic odd radices
// (lengths up to 2048), the four-step split (longer smooth lengths),
// Bluestein in the lanes (1009: m = 2025) and over whole lines (4099).
const std::vector<int64_t>& PlanLengths() {
  static const std::vector<int64_t>* lengths = [] {
    auto* v = new std::vector<int64_t>;
    for (int64_t n = 1; n <= 64; ++n) v->push_back(n);
    for (int64_t n : {74, 97, 100, 121, 127, 128, 210, 257, 529, 1000, 1009,
                      1024, 2048, 2 * 37 * 41, 4096, 6000, 4099}) {
      v->push_back(n);
    }
    return v;
  }();
  return *lengths;
}

TEST_CASE("FftPlan<double> equals the direct DFT for every length up to 64 "
          "and for long, smooth and prime lengths", "[fft]") {
  for (int64_t n : PlanLengths()) {
    INFO("n = " << n);
    const auto plan = fft_internal::FftPlan<double>::Get(n);
    for (bool forward : {true, false}) {
      const std::vector<c128> x = Ramp(n);
      const std::vector<c128> want = Dft(x, forward);
      std::vector<c128> got(n);
      plan->Transform(x.data(), got.data(), 1, 1, forward, 1.0,
                      fft_internal::RunInline);
      CHECK(MaxDiff(got, want) < 1e-13 * std::sqrt(n) * std::log2(n + 1));
    }
  }
}

// The golden cases' bound for complex64 (gen_fft.py: fft_tol).
TEST_CASE("FftPlan<float> is as accurate as float allows", "[fft]") {
  for (int64_t n : PlanLengths()) {
    INFO("n = " << n);
    const auto plan = fft_internal::FftPlan<float>::Get(n);
    const std::vector<c128> x = Ramp(n);
    std::vector<c64> xf(x.begin(), x.end()), got(n);
    const std::vector<c128> want =
        Dft(std::vector<c128>(xf.begin(), xf.end()), true);
    plan->Transform(xf.data(), got.data(), 1, 1, true, 1.0f,
                    fft_internal::RunInline);
    CHECK(MaxDiff(std::vector<c128>(got.begin(), got.end()), want) <
          4e-7 * std::sqrt(n) * std::log2(n + 1));
  }
}

TEST_CASE("FftPlan transforms the middle axis of [outer, n, inner], in "
          "place or not, on several threads, with a scale", "[fft]") {
  struct Shape {
    int64_t outer, n, inner;
  };
  for (const Shape& s : {Shape{3, 12, 5}, Shape{2, 16, 9}, Shape{5, 7, 3},
                         Shape{3, 97, 2}, Shape{1, 64, 17}, Shape{9, 3, 1},
                         Shape{20, 256, 1}, Shape{1, 5000, 2},
                         Shape{1, 1009, 40}, Shape{2, 1, 3}}) {
    INFO("outer " << s.outer << " n " << s.n << " inner " << s.inner);
    const int64_t total = s.outer * s.n * s.inner;
    const std::vector<c128> x = Ramp(total);
    const auto plan = fft_internal::FftPlan<double>::Get(s.n);
    for (bool in_place : {false, true}) {
      std::vector<c128> got(total);
      if (in_place) {
        got = x;
        plan->Transform(got.data(), got.data(), s.outer, s.inner, false, 0.5,
                        ThreadRunner);
      } else {
        plan->Transform(x.data(), got.data(), s.outer, s.inner, false, 0.5,
                        ThreadRunner);
      }
      double worst = 0;
      for (int64_t o = 0; o < s.outer; ++o) {
        for (int64_t i = 0; i < s.inner; ++i) {
          std::vector<c128> line(s.n), out(s.n);
          for (int64_t j = 0; j < s.n; ++j) {
            line[j] = x[(o * s.n + j) * s.inner + i];
            out[j] = got[(o * s.n + j) * s.inner + i];
          }
          std::vector<c128> want = Dft(line, false);
          for (c128& w : want) w *= 0.5;
          worst = std::max(worst, MaxDiff(out, want));
        }
      }
      CHECK(worst < 1e-12 * std::sqrt(s.n));
    }
  }
}

TEST_CASE("RealFftPlan keeps frequencies 0..n/2 and inverts a Hermitian "
          "completion of them", "[fft]") {
  for (int64_t n : {1, 2, 3, 4, 5, 6, 7, 8, 12, 15, 16, 100, 101, 1009, 4096,
                    4098, 8191}) {
    INFO("n = " << n);
    const int64_t rows = n > 2000 ? 2 : 11;
    const int64_t half = n / 2 + 1;
    const auto plan = fft_internal::RealFftPlan<double>::Get(n);
    std::vector<double> x(rows * n);
    for (int64_t i = 0; i < rows * n; ++i) x[i] = std::sin(0.37 * i + 0.2);
    std::vector<c128> spectrum(rows * half);
    plan->Forward(x.data(), spectrum.data(), rows, ThreadRunner);
    // Inverse input: pitch half + 2, not Hermitian.
    const int64_t pitch = half + 2;
    const std::vector<c128> z = Ramp(rows * pitch);
    std::vector<double> back(rows * n);
    plan->Inverse(z.data(), pitch, back.data(), rows, 0.25, ThreadRunner);
    double worst_forward = 0, worst_inverse = 0;
    for (int64_t r = 0; r < rows; ++r) {
      const std::vector<c128> want = Dft(
          std::vector<c128>(x.begin() + r * n, x.begin() + (r + 1) * n), true);
      for (int64_t k = 0; k < half; ++k) {
        worst_forward =
            std::max(worst_forward, std::abs(spectrum[r * half + k] - want[k]));
      }
      std::vector<c128> full(n);
      for (int64_t k = 0; k < half; ++k) full[k] = z[r * pitch + k];
      full[0] = full[0].real();
      if (n % 2 == 0) full[n / 2] = full[n / 2].real();
      for (int64_t k = 1; k < (n + 1) / 2; ++k) {
        full[n - k] = std::conj(full[k]);
      }
      const std::vector<c128> inv = Dft(full, false);
      for (int64_t j = 0; j < n; ++j) {
        worst_inverse = std::max(
            worst_inverse, std::abs(back[r * n + j] - 0.25 * inv[j].real()));
      }
    }
    CHECK(worst_forward < 1e-12 * std::sqrt(n));
    CHECK(worst_inverse < 1e-12 * std::sqrt(n));
  }
}

TEST_CASE("Complex, Real, Imag, ComplexAbs, Angle and Conj", "[fft]") {
  const Tensor re = MakeTensor<float>({1, -2, 0, 3}, TensorShape({2, 2}));
  const Tensor im = MakeVector<float>({4, -0.5f});
  Tensor z = RunOne(TestNodeBuilder("c", "Complex", 2)
                        .Attr("T", DT_FLOAT)
                        .Attr("Tout", DT_COMPLEX64)
                        .Build(),
                    {re, im});
  REQUIRE(z.dtype() == DT_COMPLEX64);
  REQUIRE(z.shape() == TensorShape({2, 2}));
  CHECK(Values<c64>(z) ==
        std::vector<c64>{{1, 4}, {-2, -0.5f}, {0, 4}, {3, -0.5f}});
  auto part = [&](const char* op) {
    return RunOne(TestNodeBuilder("p", op, 1)
                      .Attr("T", DT_COMPLEX64)
                      .Attr("Tout", DT_FLOAT)
                      .Build(),
                  {z});
  };
  CHECK(Values<float>(part("Real")) == std::vector<float>{1, -2, 0, 3});
  CHECK(Values<float>(part("Imag")) == std::vector<float>{4, -0.5f, 4, -0.5f});
  const std::vector<float> abs = Values<float>(part("ComplexAbs"));
  CHECK(abs[0] == Approx(std::sqrt(17.0f)));
  CHECK(abs[3] == Approx(std::sqrt(9.25f)));
  const std::vector<float> angle = Values<float>(part("Angle"));
  CHECK(angle[1] == Approx(std::atan2(-0.5f, -2.0f)));
  CHECK(angle[2] == Approx(std::numbers::pi_v<float> / 2));
  const Tensor conj = RunOne(
      TypedNode("cj", "Conj", DT_COMPLEX64, 1).Build(), {z});
  CHECK(Values<c64>(conj)[1] == c64(-2, 0.5f));

  const Tensor bad_im = MakeVector<float>({1, 2, 3});
  CHECK_THAT(RunError(TestNodeBuilder("c", "Complex", 2)
                          .Attr("T", DT_FLOAT)
                          .Attr("Tout", DT_COMPLEX64)
                          .Build(),
                      {re, bad_im}),
             StatusIs(kInvalid));
}

TEST_CASE("complex element-wise arithmetic broadcasts like the real kernels",
          "[fft]") {
  const Tensor x = MakeTensor<c128>({{1, 2}, {3, -1}, {0, 0}, {-2, 5}},
                                    TensorShape({2, 2}));
  const Tensor y = MakeVector<c128>({{0, 1}, {2, -2}});
  auto binary = [&](const char* op) {
    return Values<c128>(RunOne(TypedNode("b", op, DT_COMPLEX128, 2).Build(),
                               {x, y}));
  };
  CHECK(binary("AddV2")[3] == c128(0, 3));
  CHECK(binary("Sub")[1] == c128(1, 1));
  CHECK(binary("Mul")[0] == c128(-2, 1));
  const c128 q = binary("RealDiv")[1];
  CHECK(std::abs(q - c128(3, -1) / c128(2, -2)) < 1e-15);
  const c128 e = Values<c128>(
      RunOne(TypedNode("e", "Exp", DT_COMPLEX128, 1).Build(), {x}))[0];
  CHECK(std::abs(e - std::exp(c128(1, 2))) < 1e-14);
  CHECK(Values<c128>(RunOne(TypedNode("s", "Square", DT_COMPLEX128, 1).Build(),
                            {x}))[1] == c128(8, -6));
}

TEST_CASE("Cast from complex takes the real part, to complex adds a zero "
          "imaginary part", "[fft]") {
  const Tensor z = MakeVector<c64>({{0, 1}, {2.7f, -1}, {-3.6f, 0.5f}});
  auto cast = [&](DataType dst) {
    return RunOne(TestNodeBuilder("c", "Cast", 1)
                      .Attr("SrcT", DT_COMPLEX64)
                      .Attr("DstT", dst)
                      .Build(),
                  {z});
  };
  CHECK(Values<bool>(cast(DT_BOOL)) == std::vector<bool>{false, true, true});
  CHECK(Values<uint8_t>(cast(DT_UINT8)) == std::vector<uint8_t>{0, 2, 253});
  CHECK(Values<int32_t>(cast(DT_INT32)) == std::vector<int32_t>{0, 2, -3});
  CHECK(Values<float>(cast(DT_FLOAT)) == std::vector<float>{0, 2.7f, -3.6f});
  CHECK(Values<c128>(cast(DT_COMPLEX128))[2] ==
        c128(static_cast<double>(-3.6f), 0.5));
  const Tensor b = RunOne(TestNodeBuilder("c", "Cast", 1)
                              .Attr("SrcT", DT_INT64)
                              .Attr("DstT", DT_COMPLEX128)
                              .Build(),
                          {MakeVector<int64_t>({-7, 1LL << 40})});
  CHECK(Values<c128>(b) == std::vector<c128>{{-7, 0}, {1099511627776.0, 0}});
}

TEST_CASE("Equal, NotEqual, ZerosLike, OnesLike and AddN on complex",
          "[fft]") {
  const Tensor x = MakeVector<c64>({{1, 2}, {0, 3}, {NAN, 0}});
  const Tensor y = MakeVector<c64>({{1, 2}, {0, -3}, {NAN, 0}});
  CHECK(Values<bool>(RunOne(TypedNode("e", "Equal", DT_COMPLEX64, 2).Build(),
                            {x, y})) == std::vector<bool>{true, false, false});
  CHECK(Values<bool>(RunOne(
            TypedNode("n", "NotEqual", DT_COMPLEX64, 2).Build(), {x, y})) ==
        std::vector<bool>{false, true, true});
  CHECK(Values<c64>(RunOne(TypedNode("o", "OnesLike", DT_COMPLEX64, 1).Build(),
                           {x})) == std::vector<c64>(3, c64(1, 0)));
  CHECK(Values<c64>(RunOne(
            TypedNode("z", "ZerosLike", DT_COMPLEX64, 1).Build(), {x})) ==
        std::vector<c64>(3, c64(0, 0)));
  const Tensor sum = RunOne(TypedNode("a", "AddN", DT_COMPLEX64, 2)
                                .Attr("N", 2)
                                .Build(),
                            {x, y});
  CHECK(Values<c64>(sum)[1] == c64(0, 0));
}

NodeDef FftNode(const char* op, DataType tcomplex) {
  return TestNodeBuilder("f", op, 1).Attr("Tcomplex", tcomplex).Build();
}
NodeDef RealFftNode(const char* op, DataType treal, DataType tcomplex) {
  return TestNodeBuilder("f", op, 2)
      .Attr("Treal", treal)
      .Attr("Tcomplex", tcomplex)
      .Build();
}

TEST_CASE("FFT and IFFT transform the innermost dim of each batch row",
          "[fft]") {
  std::vector<c128> rows = Ramp(14);
  Tensor x(DT_COMPLEX128, TensorShape({2, 7}));
  std::copy(rows.begin(), rows.end(), x.data<c128>());
  const std::vector<c128> got =
      Values<c128>(RunOne(FftNode("FFT", DT_COMPLEX128), {x}));
  for (int r = 0; r < 2; ++r) {
    const std::vector<c128> row(rows.begin() + 7 * r,
                                rows.begin() + 7 * (r + 1));
    const std::vector<c128> want = Dft(row, true);
    CHECK(MaxDiff(std::vector<c128>(got.begin() + 7 * r,
                                    got.begin() + 7 * (r + 1)),
                  want) < 1e-12);
  }
  // IFFT scales by 1/n and undoes FFT.
  Tensor y(DT_COMPLEX128, TensorShape({2, 7}));
  std::copy(got.begin(), got.end(), y.data<c128>());
  const std::vector<c128> back =
      Values<c128>(RunOne(FftNode("IFFT", DT_COMPLEX128), {y}));
  CHECK(MaxDiff(back, rows) < 1e-14);
}

TEST_CASE("FFT2D of a separable input is the product of 1D transforms",
          "[fft]") {
  // x[i][j] = a[i] * b[j]  =>  X[k][l] = A[k] * B[l].
  const std::vector<c128> a = Ramp(3), b = Ramp(5);
  Tensor x(DT_COMPLEX64, TensorShape({3, 5}));
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 5; ++j) x.data<c64>()[i * 5 + j] = c64(a[i] * b[j]);
  }
  const std::vector<c64> got =
      Values<c64>(RunOne(FftNode("FFT2D", DT_COMPLEX64), {x}));
  const std::vector<c128> fa = Dft(a, true), fb = Dft(b, true);
  for (int k = 0; k < 3; ++k) {
    for (int l = 0; l < 5; ++l) {
      CHECK(std::abs(c128(got[k * 5 + l]) - fa[k] * fb[l]) < 1e-5);
    }
  }
}

TEST_CASE("RFFT crops the input to fft_length and keeps n/2+1 frequencies",
          "[fft]") {
  const Tensor x = MakeVector<double>({1, 2, 3, 4, 5, 6, 7, 100});
  const Tensor out = RunOne(RealFftNode("RFFT", DT_DOUBLE, DT_COMPLEX128),
                            {x, MakeVector<int32_t>({5})});
  REQUIRE(out.shape() == TensorShape({3}));
  const std::vector<c128> want = Dft({1, 2, 3, 4, 5}, true);
  CHECK(MaxDiff(Values<c128>(out), {want[0], want[1], want[2]}) < 1e-12);

  // fft_length 0: an empty last dim (TensorFlow aborts on a DUCC assertion).
  const Tensor empty = RunOne(RealFftNode("RFFT", DT_DOUBLE, DT_COMPLEX128),
                              {x, MakeVector<int32_t>({0})});
  CHECK(empty.shape() == TensorShape({0}));
}

TEST_CASE("IRFFT ignores the imaginary parts of the zero and Nyquist "
          "frequencies and inverts RFFT", "[fft]") {
  const std::vector<double> signal = {0.5, -1, 2, 3, -0.25, 1, 4, -2};
  const std::vector<c128> spectrum =
      Dft(std::vector<c128>(signal.begin(), signal.end()), true);
  Tensor half(DT_COMPLEX128, TensorShape({5}));
  for (int k = 0; k < 5; ++k) half.data<c128>()[k] = spectrum[k];
  half.data<c128>()[0] += c128(0, 3);  // ignored
  half.data<c128>()[4] += c128(0, -7);  // ignored (Nyquist of n = 8)
  const Tensor out = RunOne(RealFftNode("IRFFT", DT_DOUBLE, DT_COMPLEX128),
                            {half, MakeVector<int32_t>({8})});
  const std::vector<double> got = Values<double>(out);
  for (int j = 0; j < 8; ++j) CHECK(got[j] == Approx(signal[j]).margin(1e-12));
}

TEST_CASE("an empty FFT input passes through, zero-filled", "[fft]") {
  const Tensor x(DT_FLOAT, TensorShape({2, 0}));
  const Tensor out = RunOne(RealFftNode("RFFT", DT_FLOAT, DT_COMPLEX64),
                            {x, MakeVector<int32_t>({6})});
  REQUIRE(out.shape() == TensorShape({2, 4}));
  for (const c64& v : out.span<c64>()) CHECK(v == c64(0, 0));
}

TEST_CASE("FFT ops reject bad ranks, fft_lengths and type pairs with "
          "TensorFlow's errors", "[fft]") {
  const Tensor z(DT_COMPLEX64, TensorShape({4}));
  CHECK_THAT(RunError(FftNode("FFT2D", DT_COMPLEX64), {z}),
             StatusIs(kInvalid, "Input must have rank of at least 2"));
  const Tensor x = MakeTensor<float>({1, 2, 3, 4, 5, 6}, TensorShape({2, 3}));
  const NodeDef rfft = RealFftNode("RFFT", DT_FLOAT, DT_COMPLEX64);
  CHECK_THAT(RunError(rfft, {x, MakeVector<int32_t>({2, 2})}),
             StatusIs(kInvalid, "fft_length must have shape [1]"));
  CHECK_THAT(RunError(rfft, {x, MakeVector<int32_t>({-1})}),
             StatusIs(kInvalid, "fft_length[0] must >= 0, but got: -1"));
  CHECK_THAT(RunError(rfft, {x, MakeVector<int32_t>({4})}),
             StatusIs(kInvalid,
                      "Input dimension 1 must have length of at least 4 but "
                      "got: 3"));
  const Tensor h(DT_COMPLEX64, TensorShape({2, 3}));
  CHECK_THAT(RunError(RealFftNode("IRFFT", DT_FLOAT, DT_COMPLEX64),
                      {h, MakeVector<int32_t>({6})}),
             StatusIs(kInvalid, "must have length of at least 4"));
  CHECK_THAT(RunError(RealFftNode("RFFT", DT_FLOAT, DT_COMPLEX128),
                      {x, MakeVector<int32_t>({3})}),
             StatusIs(kInvalid, "Wrong types for forward real FFT"));
  CHECK_THAT(RunError(RealFftNode("RFFT3D", DT_FLOAT, DT_COMPLEX64),
                      {x, MakeVector<int32_t>({1, 1, 1})}),
             StatusIs(kInvalid, "Input must have rank of at least 3"));
  // An empty input passes every length check; an output shape of 2^92
  // elements is an error, not a crash.
  const Tensor empty3(DT_FLOAT, TensorShape({0, 0, 0}));
  CHECK_THAT(RunError(RealFftNode("RFFT3D", DT_FLOAT, DT_COMPLEX64),
                      {empty3, MakeVector<int32_t>({2147483647, 2147483647,
                                                    2147483647})}),
             StatusIs(kInvalid, "FFT output shape"));
}

}  // namespace
}  // namespace dfx

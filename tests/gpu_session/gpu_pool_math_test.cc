// The pooling kernels' per-element arithmetic (gpu/kernels/
// pool_gpu_element.cuh, what each CUDA thread of pool_gpu.cu computes) run
// on the host against the CPU kernels: NHWC and NCHW, float32, float64,
// float16 and bfloat16, every padding and a stride past the window. Needs
// no GPU (it runs in every CUDA build); the [gpu] tests in
// gpu_kernels_test.cc check the launches themselves.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "catch2/catch.hpp"
#include "gpu/kernels/pool_gpu_element.cuh"
#include "kernels/conv/pool_util.h"
#include "runtime/session.h"
#include "tests/gpu_session/cpu_session_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::OnCpu;

AttrValue IntsAttr(std::vector<int64_t> values) {
  AttrValue v;
  v.mutable_list();
  for (int64_t x : values) v.mutable_list()->add_i(x);
  return v;
}

double At(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DT_FLOAT:
      return t.data<float>()[i];
    case DT_DOUBLE:
      return t.data<double>()[i];
    case DT_HALF:
      return static_cast<float>(t.data<Eigen::half>()[i]);
    default:
      return static_cast<float>(t.data<Eigen::bfloat16>()[i]);
  }
}

Tensor Random(DataType t, const TensorShape& shape, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> u(-2, 2);
  Tensor out(t, shape);
  for (int64_t i = 0; i < out.NumElements(); ++i) {
    const float v = u(gen);
    switch (t) {
      case DT_FLOAT:
        out.data<float>()[i] = v;
        break;
      case DT_DOUBLE:
        out.data<double>()[i] = v;
        break;
      case DT_HALF:
        out.data<Eigen::half>()[i] = Eigen::half(v);
        break;
      default:
        out.data<Eigen::bfloat16>()[i] = Eigen::bfloat16(v);
        break;
    }
  }
  return out;
}

// NHWC <-> NCHW on the host.
Tensor Transposed(const Tensor& t, bool to_nchw) {
  const int64_t n = t.dim_size(0);
  const int64_t h = to_nchw ? t.dim_size(1) : t.dim_size(2);
  const int64_t w = to_nchw ? t.dim_size(2) : t.dim_size(3);
  const int64_t c = to_nchw ? t.dim_size(3) : t.dim_size(1);
  Tensor out(t.dtype(),
             to_nchw ? TensorShape({n, c, h, w}) : TensorShape({n, h, w, c}));
  const int64_t e = DataTypeSize(t.dtype());
  for (int64_t i = 0; i < n; ++i)
    for (int64_t y = 0; y < h; ++y)
      for (int64_t x = 0; x < w; ++x)
        for (int64_t k = 0; k < c; ++k) {
          const int64_t a = ((i * h + y) * w + x) * c + k;
          const int64_t b = ((i * c + k) * h + y) * w + x;
          std::memcpy(
              static_cast<char*>(out.raw_data()) + (to_nchw ? b : a) * e,
              static_cast<const char*>(t.raw_data()) + (to_nchw ? a : b) * e,
              e);
        }
  return out;
}

// Every element of `out` from the kernel's element function: the forward
// pass (grad null) or the input gradient.
template <typename T>
void RunElements(const gpu::PoolShape& s, bool max, const Tensor& in,
                 const Tensor* grad, Tensor* out) {
  const T* x = static_cast<const T*>(in.raw_data());
  T* y = static_cast<T*>(out->raw_data());
  for (int64_t i = 0; i < out->NumElements(); ++i) {
    y[i] = grad == nullptr ? gpu::pool_element::PoolOutput<T>(s, max, x, i)
                           : gpu::pool_element::PoolGradInput<T>(
                                 s, max, max ? x : nullptr,
                                 static_cast<const T*>(grad->raw_data()), i);
  }
}

void RunElementsOf(DataType t, const gpu::PoolShape& s, bool max,
                   const Tensor& in, const Tensor* grad, Tensor* out) {
  switch (t) {
    case DT_FLOAT:
      return RunElements<float>(s, max, in, grad, out);
    case DT_DOUBLE:
      return RunElements<double>(s, max, in, grad, out);
    case DT_HALF:
      return RunElements<__half>(s, max, in, grad, out);
    default:
      return RunElements<__nv_bfloat16>(s, max, in, grad, out);
  }
}

double MaxError(const Tensor& x, const Tensor& y) {
  REQUIRE(x.shape() == y.shape());
  double worst = 0;
  for (int64_t i = 0; i < x.NumElements(); ++i) {
    const double a = At(x, i), b = At(y, i);
    worst = std::max(worst, std::abs(a - b) / (1 + std::abs(b)));
  }
  return worst;
}

TEST_CASE(
    "gpu pooling arithmetic on the host: MaxPool, AvgPool and their "
    "gradients, NHWC and NCHW, every float dtype, as the CPU kernels") {
  const struct {
    int64_t window, stride;
    const char* padding;
  } kCases[] = {{3, 2, "SAME"},
                {2, 2, "VALID"},
                {2, 3, "SAME"},
                {3, 1, "SAME"},
                {1, 1, "VALID"}};
  const TensorShape shape({2, 7, 8, 3});
  for (DataType t : {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16}) {
    // The CPU scales an average by 1/count, the kernel divides by count.
    const double tolerance = t == DT_HALF       ? 2e-3
                             : t == DT_BFLOAT16 ? 1.6e-2
                                                : 1e-6;
    const Tensor x = Random(t, shape, 1);
    for (const auto& c : kCases) {
      const std::map<std::string, AttrValue> attrs = {
          {"T",
           [t] {
             AttrValue v;
             v.set_type(t);
             return v;
           }()},
          {"ksize", IntsAttr({1, c.window, c.window, 1})},
          {"strides", IntsAttr({1, c.stride, c.stride, 1})},
          {"padding", [&c] {
             AttrValue v;
             v.set_s(c.padding);
             return v;
           }()}};
      conv_internal::PoolAttrs pool;
      pool.ksize = {1, c.window, c.window, 1};
      pool.strides = {1, c.stride, c.stride, 1};
      REQUIRE_OK(conv_internal::ParsePadding(c.padding, &pool.padding));
      conv_internal::PoolGeom g;
      REQUIRE_OK(conv_internal::MakePoolGeom(shape, pool, false, &g));
      for (const bool max : {true, false}) {
        for (const bool nchw : {false, true}) {
          INFO(DataTypeString(t) << (max ? " max" : " avg") << " window "
                                 << c.window << " stride " << c.stride << " "
                                 << c.padding << (nchw ? " NCHW" : " NHWC"));
          auto y = OnCpu(max ? "MaxPool" : "AvgPool", {x}, attrs);
          REQUIRE_OK(y);
          const gpu::PoolShape s{g.batch,       g.in_rows,     g.in_cols,
                                 g.depth,       g.out_rows,    g.out_cols,
                                 g.window_rows, g.window_cols, g.stride_rows,
                                 g.stride_cols, g.pad_top,     g.pad_left,
                                 nchw};
          const Tensor in = nchw ? Transposed(x, true) : x;
          Tensor out(t, nchw ? Transposed(*y, true).shape() : y->shape());
          RunElementsOf(t, s, max, in, nullptr, &out);
          CHECK(MaxError(nchw ? Transposed(out, false) : out, *y) <=
                (max ? 0 : tolerance));
          const Tensor dy = Random(t, y->shape(), 2);
          auto dx = max ? OnCpu("MaxPoolGrad", {x, *y, dy}, attrs)
                        : OnCpu("AvgPoolGrad",
                                {Tensor::FromVector<int32_t>({2, 7, 8, 3}), dy},
                                attrs);
          REQUIRE_OK(dx);
          const Tensor grad = nchw ? Transposed(dy, true) : dy;
          Tensor din(t, in.shape());
          RunElementsOf(t, s, max, in, &grad, &din);
          CHECK(MaxError(nchw ? Transposed(din, false) : din, *dx) <=
                tolerance);
        }
      }
    }
  }
}

}  // namespace
}  // namespace dfx

// Conv2D, Conv2DBackpropInput, Conv2DBackpropFilter and the depthwise
// convolutions: the CPU kernels against naive loops in double, across
// strides, dilations, paddings, groups and dtypes; their errors; and one
// kernel shared by concurrent calls of different shapes.
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "catch2/catch.hpp"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "kernels/conv/conv_backend.h"
#include "kernels/kernels.h"
#include "runtime/tensor.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::RunKernel;
using testing::StatusIs;
using testing::TestCpuDevice;
using testing::TestNodeBuilder;

// One convolution: NHWC input [n, h, w, c], filter [kh, kw, c / groups, oc].
struct Conv {
  int64_t n, h, w, c, kh, kw, oc;
  int64_t groups = 1;
  int64_t sh = 1, sw = 1, dh = 1, dw = 1;
  std::string padding = "SAME";
  std::vector<int64_t> explicit_pads;  // top, bottom, left, right

  int64_t icg() const { return c / groups; }
  void Output(int64_t* oh, int64_t* ow, int64_t* pt, int64_t* pl) const {
    const int64_t eh = (kh - 1) * dh + 1, ew = (kw - 1) * dw + 1;
    if (padding == "VALID") {
      *oh = (h - eh + sh) / sh;
      *ow = (w - ew + sw) / sw;
      *pt = *pl = 0;
    } else if (padding == "SAME") {
      *oh = (h + sh - 1) / sh;
      *ow = (w + sw - 1) / sw;
      *pt = std::max<int64_t>(0, (*oh - 1) * sh + eh - h) / 2;
      *pl = std::max<int64_t>(0, (*ow - 1) * sw + ew - w) / 2;
    } else {
      *oh = (h + explicit_pads[0] + explicit_pads[1] - eh + sh) / sh;
      *ow = (w + explicit_pads[2] + explicit_pads[3] - ew + sw) / sw;
      *pt = explicit_pads[0];
      *pl = explicit_pads[2];
    }
  }
  TensorShape InputShape() const { return TensorShape({n, h, w, c}); }
  TensorShape FilterShape() const { return TensorShape({kh, kw, icg(), oc}); }
  TensorShape OutputShape() const {
    int64_t oh, ow, pt, pl;
    Output(&oh, &ow, &pt, &pl);
    return TensorShape({n, oh, ow, oc});
  }
};

// Calls fn(n, oh, ow, y, x, i, o, in_index, filter_index, out_index) for
// every multiply-add of the convolution.
template <typename Fn>
void ForEachTap(const Conv& cv, Fn fn) {
  int64_t oh, ow, pt, pl;
  cv.Output(&oh, &ow, &pt, &pl);
  const int64_t ocg = cv.oc / cv.groups;
  for (int64_t b = 0; b < cv.n; ++b)
    for (int64_t y = 0; y < oh; ++y)
      for (int64_t x = 0; x < ow; ++x)
        for (int64_t o = 0; o < cv.oc; ++o)
          for (int64_t ky = 0; ky < cv.kh; ++ky)
            for (int64_t kx = 0; kx < cv.kw; ++kx)
              for (int64_t i = 0; i < cv.icg(); ++i) {
                const int64_t iy = y * cv.sh - pt + ky * cv.dh;
                const int64_t ix = x * cv.sw - pl + kx * cv.dw;
                if (iy < 0 || iy >= cv.h || ix < 0 || ix >= cv.w) continue;
                const int64_t ic = (o / ocg) * cv.icg() + i;
                fn(((b * cv.h + iy) * cv.w + ix) * cv.c + ic,
                   ((ky * cv.kw + kx) * cv.icg() + i) * cv.oc + o,
                   ((b * oh + y) * ow + x) * cv.oc + o);
              }
}

std::vector<double> NaiveForward(const Conv& cv, const std::vector<double>& in,
                                 const std::vector<double>& f) {
  std::vector<double> out(cv.OutputShape().num_elements(), 0.0);
  ForEachTap(cv, [&](int64_t a, int64_t b, int64_t c) { out[c] += in[a] * f[b]; });
  return out;
}
std::vector<double> NaiveBackpropInput(const Conv& cv,
                                       const std::vector<double>& f,
                                       const std::vector<double>& dy) {
  std::vector<double> dx(cv.InputShape().num_elements(), 0.0);
  ForEachTap(cv, [&](int64_t a, int64_t b, int64_t c) { dx[a] += dy[c] * f[b]; });
  return dx;
}
std::vector<double> NaiveBackpropFilter(const Conv& cv,
                                        const std::vector<double>& in,
                                        const std::vector<double>& dy) {
  std::vector<double> df(cv.FilterShape().num_elements(), 0.0);
  ForEachTap(cv, [&](int64_t a, int64_t b, int64_t c) { df[b] += dy[c] * in[a]; });
  return df;
}

std::vector<double> RandomValues(std::mt19937* rng, int64_t n) {
  std::uniform_real_distribution<double> d(-1, 1);
  std::vector<double> v(static_cast<size_t>(n));
  for (double& x : v) x = d(*rng);
  return v;
}

template <typename T>
Tensor MakeTensor(const std::vector<double>& v, const TensorShape& shape) {
  Tensor t(DataTypeToEnum<T>::value, shape);
  for (size_t i = 0; i < v.size(); ++i) t.data<T>()[i] = static_cast<T>(v[i]);
  return t;
}

template <typename T>
std::vector<double> Doubles(const Tensor& t) {
  std::vector<double> v;
  for (const T& x : t.span<T>()) v.push_back(static_cast<double>(x));
  return v;
}

Tensor SizesTensor(const TensorShape& shape) {
  std::vector<int32_t> v;
  for (int64_t d : shape.dim_sizes()) v.push_back(static_cast<int32_t>(d));
  return Tensor::FromVector<int32_t>(v);
}

NodeDef ConvNode(const std::string& op, const Conv& cv, DataType dtype,
                 int num_inputs = 2, const char* format = "NHWC") {
  TestNodeBuilder b("conv", op, num_inputs);
  b.Attr("T", dtype)
      .Attr("strides", std::vector<int64_t>{1, cv.sh, cv.sw, 1})
      .Attr("dilations", std::vector<int64_t>{1, cv.dh, cv.dw, 1})
      .Attr("padding", cv.padding.c_str())
      .Attr("data_format", format);
  if (cv.padding == "EXPLICIT") {
    b.Attr("explicit_paddings",
           std::vector<int64_t>{0, 0, cv.explicit_pads[0], cv.explicit_pads[1],
                                cv.explicit_pads[2], cv.explicit_pads[3], 0,
                                0});
  }
  return b.Build();
}

void RequireClose(const std::vector<double>& got,
                  const std::vector<double>& want, double tol) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i << ": got " << got[i] << ", want " << want[i]);
    REQUIRE(std::fabs(got[i] - want[i]) <= tol * (1 + std::fabs(want[i])));
  }
}

std::vector<Conv> ForwardCases() {
  std::vector<Conv> cases;
  cases.push_back({1, 5, 5, 3, 3, 3, 4});
  Conv c = {2, 7, 6, 3, 3, 2, 5};
  c.sh = 2, c.sw = 3;
  cases.push_back(c);
  c = {1, 8, 9, 2, 3, 3, 3};
  c.dh = 2, c.padding = "VALID";
  cases.push_back(c);
  c = {1, 6, 5, 2, 2, 3, 4};
  c.padding = "EXPLICIT", c.explicit_pads = {1, 2, 0, 3}, c.sh = 2;
  cases.push_back(c);
  c = {1, 5, 5, 4, 3, 3, 6};
  c.groups = 2;
  cases.push_back(c);
  c = {1, 5, 5, 4, 3, 3, 8};
  c.groups = 4, c.sh = c.sw = 2;
  cases.push_back(c);
  c = {1, 2, 3, 2, 5, 5, 3};  // filter larger than the input
  cases.push_back(c);
  c = {2, 4, 4, 5, 1, 1, 7};
  cases.push_back(c);
  // Large enough for oneDNN's vectorised kernels and the thread pool.
  c = {2, 12, 11, 32, 3, 3, 48};
  cases.push_back(c);
  c = {1, 14, 14, 64, 3, 3, 64};
  c.sh = c.sw = 2;
  cases.push_back(c);
  return cases;
}

TEST_CASE("Conv2D matches a naive convolution in float and double") {
  std::mt19937 rng(1);
  for (const Conv& cv : ForwardCases()) {
    INFO("input " << cv.InputShape().DebugString() << " filter "
                  << cv.FilterShape().DebugString() << " " << cv.padding);
    const auto in = RandomValues(&rng, cv.InputShape().num_elements());
    const auto f = RandomValues(&rng, cv.FilterShape().num_elements());
    const auto want = NaiveForward(cv, in, f);
    auto out = RunKernel(ConvNode("Conv2D", cv, DT_FLOAT),
                         {MakeTensor<float>(in, cv.InputShape()),
                          MakeTensor<float>(f, cv.FilterShape())});
    REQUIRE_OK(out);
    REQUIRE((*out)[0].shape() == cv.OutputShape());
    RequireClose(Doubles<float>((*out)[0]), want, 1e-5);
    auto out64 = RunKernel(ConvNode("Conv2D", cv, DT_DOUBLE),
                           {MakeTensor<double>(in, cv.InputShape()),
                            MakeTensor<double>(f, cv.FilterShape())});
    REQUIRE_OK(out64);
    RequireClose(Doubles<double>((*out64)[0]), want, 1e-12);
  }
}

TEST_CASE("Conv2D in half, bfloat16 and int32") {
  std::mt19937 rng(2);
  Conv cv = {1, 6, 6, 8, 3, 3, 16};
  const auto in = RandomValues(&rng, cv.InputShape().num_elements());
  const auto f = RandomValues(&rng, cv.FilterShape().num_elements());
  // Round the inputs to bfloat16 first, so every dtype sees the same values.
  std::vector<double> in16, f16;
  for (double v : in) in16.push_back(static_cast<float>(Eigen::bfloat16(v)));
  for (double v : f) f16.push_back(static_cast<float>(Eigen::bfloat16(v)));
  const auto want = NaiveForward(cv, in16, f16);
  auto half = RunKernel(ConvNode("Conv2D", cv, DT_HALF),
                        {MakeTensor<Eigen::half>(in16, cv.InputShape()),
                         MakeTensor<Eigen::half>(f16, cv.FilterShape())});
  REQUIRE_OK(half);
  REQUIRE((*half)[0].dtype() == DT_HALF);
  RequireClose(Doubles<Eigen::half>((*half)[0]), want, 2e-3);
  auto bf = RunKernel(ConvNode("Conv2D", cv, DT_BFLOAT16),
                      {MakeTensor<Eigen::bfloat16>(in16, cv.InputShape()),
                       MakeTensor<Eigen::bfloat16>(f16, cv.FilterShape())});
  REQUIRE_OK(bf);
  RequireClose(Doubles<Eigen::bfloat16>((*bf)[0]), want, 1e-2);

  std::vector<double> ini, fi;
  for (double v : in) ini.push_back(std::round(v * 9));
  for (double v : f) fi.push_back(std::round(v * 9));
  auto i32 = RunKernel(ConvNode("Conv2D", cv, DT_INT32),
                       {MakeTensor<int32_t>(ini, cv.InputShape()),
                        MakeTensor<int32_t>(fi, cv.FilterShape())});
  REQUIRE_OK(i32);
  REQUIRE(Doubles<int32_t>((*i32)[0]) == NaiveForward(cv, ini, fi));
}

TEST_CASE("Conv2D gradients match naive loops") {
  std::mt19937 rng(3);
  for (Conv cv : ForwardCases()) {
    if (cv.groups != 1 || cv.dh != 1 || cv.dw != 1) continue;  // no CPU grads
    INFO("input " << cv.InputShape().DebugString() << " filter "
                  << cv.FilterShape().DebugString() << " " << cv.padding);
    const auto in = RandomValues(&rng, cv.InputShape().num_elements());
    const auto f = RandomValues(&rng, cv.FilterShape().num_elements());
    const auto dy = RandomValues(&rng, cv.OutputShape().num_elements());
    for (DataType dtype : {DT_FLOAT, DT_DOUBLE}) {
      const double tol = dtype == DT_FLOAT ? 1e-5 : 1e-12;
      auto make = [&](const std::vector<double>& v, const TensorShape& s) {
        return dtype == DT_FLOAT ? MakeTensor<float>(v, s)
                                 : MakeTensor<double>(v, s);
      };
      auto doubles = [&](const Tensor& t) {
        return dtype == DT_FLOAT ? Doubles<float>(t) : Doubles<double>(t);
      };
      auto dx = RunKernel(ConvNode("Conv2DBackpropInput", cv, dtype, 3),
                          {SizesTensor(cv.InputShape()),
                           make(f, cv.FilterShape()),
                           make(dy, cv.OutputShape())});
      REQUIRE_OK(dx);
      REQUIRE((*dx)[0].shape() == cv.InputShape());
      RequireClose(doubles((*dx)[0]), NaiveBackpropInput(cv, f, dy), tol);
      auto df = RunKernel(ConvNode("Conv2DBackpropFilter", cv, dtype, 3),
                          {make(in, cv.InputShape()),
                           SizesTensor(cv.FilterShape()),
                           make(dy, cv.OutputShape())});
      REQUIRE_OK(df);
      REQUIRE((*df)[0].shape() == cv.FilterShape());
      RequireClose(doubles((*df)[0]), NaiveBackpropFilter(cv, in, dy), tol);
    }
  }
}

// Big enough that the kernels split the work over the intra-op pool: into
// bands of rows of one image, into groups of images, or (for the filter
// gradient) into partial sums per group of images.
TEST_CASE("Convolutions split over the thread pool match naive loops") {
  std::mt19937 rng(7);
  std::vector<Conv> cases;
  Conv c = {1, 20, 17, 32, 3, 3, 32};
  cases.push_back(c);
  c.padding = "VALID";
  cases.push_back(c);
  c = {1, 31, 29, 32, 5, 3, 48};
  c.sh = c.sw = 2, c.padding = "EXPLICIT", c.explicit_pads = {2, 3, 1, 0};
  cases.push_back(c);
  c = {3, 15, 13, 32, 3, 3, 40};
  c.sh = 2;
  cases.push_back(c);
  c = {1, 32, 32, 32, 3, 3, 32};
  c.sh = c.sw = 2;  // input gradient: strided, one image
  cases.push_back(c);
  c = {1, 30, 28, 32, 3, 3, 32};
  // Bands of output rows whose windows see only padding.
  c.padding = "EXPLICIT", c.explicit_pads = {12, 0, 0, 5};
  cases.push_back(c);
  for (const Conv& cv : cases) {
    INFO("input " << cv.InputShape().DebugString() << " filter "
                  << cv.FilterShape().DebugString() << " " << cv.padding
                  << " stride " << cv.sh);
    const auto in = RandomValues(&rng, cv.InputShape().num_elements());
    const auto f = RandomValues(&rng, cv.FilterShape().num_elements());
    const auto dy = RandomValues(&rng, cv.OutputShape().num_elements());
    auto y = RunKernel(ConvNode("Conv2D", cv, DT_FLOAT),
                       {MakeTensor<float>(in, cv.InputShape()),
                        MakeTensor<float>(f, cv.FilterShape())});
    REQUIRE_OK(y);
    RequireClose(Doubles<float>((*y)[0]), NaiveForward(cv, in, f), 1e-5);
    auto dx = RunKernel(ConvNode("Conv2DBackpropInput", cv, DT_FLOAT, 3),
                        {SizesTensor(cv.InputShape()),
                         MakeTensor<float>(f, cv.FilterShape()),
                         MakeTensor<float>(dy, cv.OutputShape())});
    REQUIRE_OK(dx);
    RequireClose(Doubles<float>((*dx)[0]), NaiveBackpropInput(cv, f, dy),
                 1e-5);
    auto df = RunKernel(ConvNode("Conv2DBackpropFilter", cv, DT_FLOAT, 3),
                        {MakeTensor<float>(in, cv.InputShape()),
                         SizesTensor(cv.FilterShape()),
                         MakeTensor<float>(dy, cv.OutputShape())});
    REQUIRE_OK(df);
    RequireClose(Doubles<float>((*df)[0]), NaiveBackpropFilter(cv, in, dy),
                 1e-4);
  }
  // Depthwise with multiplier 2 over 64 channels, one image.
  Conv dw = {1, 56, 56, 64, 3, 3, 128};
  dw.groups = 64;
  const TensorShape filter({3, 3, 64, 2});
  const auto in = RandomValues(&rng, dw.InputShape().num_elements());
  const auto f = RandomValues(&rng, filter.num_elements());
  auto y = RunKernel(ConvNode("DepthwiseConv2dNative", dw, DT_FLOAT),
                     {MakeTensor<float>(in, dw.InputShape()),
                      MakeTensor<float>(f, filter)});
  REQUIRE_OK(y);
  RequireClose(Doubles<float>((*y)[0]), NaiveForward(dw, in, f), 1e-5);
}

TEST_CASE("Conv2D with few output pixels reads its filter as stored") {
  // The last stage of a ResNet on small images: 3x3x512x512 filters over 1x1
  // to 2x2 outputs. Reordering such a filter into oneDNN's blocked layout on
  // every call cost twenty times the convolution.
  using conv_internal::ConvGeom;
  using conv_internal::ConvPass;
  auto geom = [](int64_t batch, int64_t side, int64_t depth) {
    ConvGeom g;
    g.batch = batch;
    g.in_rows = g.in_cols = side + 2;
    g.in_depth = depth;
    g.filter_rows = g.filter_cols = 3;
    g.out_rows = g.out_cols = side;
    g.out_depth = depth;
    return g;
  };
  conv_internal::ConvRunner runner;
  CHECK_FALSE(runner.ReordersFilter(ConvPass::kForward, geom(1, 1, 512)));
  CHECK_FALSE(runner.ReordersFilter(ConvPass::kForward, geom(2, 2, 512)));
  CHECK(runner.ReordersFilter(ConvPass::kForward, geom(1, 16, 64)));
  // Depthwise passes keep oneDNN's depthwise kernels (on blocked layouts):
  // its GEMM runs them a group at a time, several times slower.
  ConvGeom depthwise = geom(2, 1, 576);
  depthwise.groups = 576;
  CHECK(runner.ReordersFilter(ConvPass::kForward, depthwise));

  std::mt19937 rng(11);
  std::vector<Conv> cases;
  Conv c = {2, 3, 3, 256, 3, 3, 256};  // split over images, 1x1 each
  c.padding = "VALID";
  cases.push_back(c);
  c = {2, 4, 4, 64, 3, 3, 96};
  c.sh = c.sw = 2, c.padding = "EXPLICIT", c.explicit_pads = {1, 0, 0, 1};
  cases.push_back(c);
  c = {3, 2, 2, 48, 1, 1, 40};
  cases.push_back(c);
  c = {2, 3, 3, 64, 3, 3, 64};  // grouped
  c.groups = 4;
  cases.push_back(c);
  for (const Conv& cv : cases) {
    INFO("input " << cv.InputShape().DebugString() << " filter "
                  << cv.FilterShape().DebugString() << " " << cv.padding);
    const auto in = RandomValues(&rng, cv.InputShape().num_elements());
    const auto f = RandomValues(&rng, cv.FilterShape().num_elements());
    auto y = RunKernel(ConvNode("Conv2D", cv, DT_FLOAT),
                       {MakeTensor<float>(in, cv.InputShape()),
                        MakeTensor<float>(f, cv.FilterShape())});
    REQUIRE_OK(y);
    REQUIRE((*y)[0].shape() == cv.OutputShape());
    // Sums of up to 2,304 products.
    RequireClose(Doubles<float>((*y)[0]), NaiveForward(cv, in, f), 1e-4);
  }
}

TEST_CASE("Conv2DBackpropInput takes spatial-only input_sizes") {
  std::mt19937 rng(4);
  Conv cv = {2, 7, 7, 3, 3, 3, 4};
  cv.sh = cv.sw = 2;
  const auto f = RandomValues(&rng, cv.FilterShape().num_elements());
  const auto dy = RandomValues(&rng, cv.OutputShape().num_elements());
  auto dx = RunKernel(ConvNode("Conv2DBackpropInput", cv, DT_FLOAT, 3),
                      {Tensor::FromVector<int32_t>({7, 7}),
                       MakeTensor<float>(f, cv.FilterShape()),
                       MakeTensor<float>(dy, cv.OutputShape())});
  REQUIRE_OK(dx);
  REQUIRE((*dx)[0].shape() == cv.InputShape());
  RequireClose(Doubles<float>((*dx)[0]), NaiveBackpropInput(cv, f, dy), 1e-5);
}

// A depthwise convolution with multiplier m is a grouped convolution with
// groups = c, whose [kh, kw, c, m] filter has the bytes of [kh, kw, 1, c*m].
TEST_CASE("Depthwise convolutions and their gradients match naive loops") {
  std::mt19937 rng(5);
  struct Dw {
    int64_t n, h, w, c, k, m, s;
    const char* padding;
  };
  for (const Dw& d : std::vector<Dw>{{1, 5, 5, 3, 3, 1, 1, "SAME"},
                                     {2, 7, 7, 3, 3, 2, 2, "VALID"},
                                     {1, 7, 6, 2, 3, 3, 2, "SAME"},
                                     {2, 10, 9, 32, 3, 1, 1, "SAME"},
                                     {1, 9, 9, 16, 5, 2, 2, "SAME"}}) {
    Conv cv = {d.n, d.h, d.w, d.c, d.k, d.k, d.c * d.m};
    cv.groups = d.c, cv.sh = cv.sw = d.s, cv.padding = d.padding;
    INFO("depthwise c=" << d.c << " m=" << d.m << " s=" << d.s);
    const TensorShape filter({d.k, d.k, d.c, d.m});
    const auto in = RandomValues(&rng, cv.InputShape().num_elements());
    const auto f = RandomValues(&rng, filter.num_elements());
    const auto dy = RandomValues(&rng, cv.OutputShape().num_elements());
    for (DataType dtype : {DT_FLOAT, DT_DOUBLE}) {
      const double tol = dtype == DT_FLOAT ? 1e-5 : 1e-12;
      auto make = [&](const std::vector<double>& v, const TensorShape& s) {
        return dtype == DT_FLOAT ? MakeTensor<float>(v, s)
                                 : MakeTensor<double>(v, s);
      };
      auto doubles = [&](const Tensor& t) {
        return dtype == DT_FLOAT ? Doubles<float>(t) : Doubles<double>(t);
      };
      auto y = RunKernel(ConvNode("DepthwiseConv2dNative", cv, dtype),
                         {make(in, cv.InputShape()), make(f, filter)});
      REQUIRE_OK(y);
      REQUIRE((*y)[0].shape() == cv.OutputShape());
      RequireClose(doubles((*y)[0]), NaiveForward(cv, in, f), tol);
      auto dx = RunKernel(
          ConvNode("DepthwiseConv2dNativeBackpropInput", cv, dtype, 3),
          {SizesTensor(cv.InputShape()), make(f, filter),
           make(dy, cv.OutputShape())});
      REQUIRE_OK(dx);
      RequireClose(doubles((*dx)[0]), NaiveBackpropInput(cv, f, dy), tol);
      auto df = RunKernel(
          ConvNode("DepthwiseConv2dNativeBackpropFilter", cv, dtype, 3),
          {make(in, cv.InputShape()), SizesTensor(filter),
           make(dy, cv.OutputShape())});
      REQUIRE_OK(df);
      REQUIRE((*df)[0].shape() == filter);
      RequireClose(doubles((*df)[0]), NaiveBackpropFilter(cv, in, dy), tol);
    }
  }
}

TEST_CASE("Convolutions with an empty dimension give empty or zero results") {
  Conv cv = {0, 5, 5, 3, 3, 3, 4};
  auto out = RunKernel(ConvNode("Conv2D", cv, DT_FLOAT),
                       {Tensor(DT_FLOAT, cv.InputShape()),
                        Tensor(DT_FLOAT, cv.FilterShape())});
  REQUIRE_OK(out);
  REQUIRE((*out)[0].shape() == TensorShape({0, 5, 5, 4}));
  // No batch: the filter gradient is an empty sum.
  auto df = RunKernel(ConvNode("Conv2DBackpropFilter", cv, DT_FLOAT, 3),
                      {Tensor(DT_FLOAT, cv.InputShape()),
                       SizesTensor(cv.FilterShape()),
                       Tensor(DT_FLOAT, TensorShape({0, 5, 5, 4}))});
  REQUIRE_OK(df);
  REQUIRE((*df)[0].shape() == cv.FilterShape());
  for (float v : (*df)[0].span<float>()) REQUIRE(v == 0.0f);
}

TEST_CASE("Convolution kernels reject bad arguments as TensorFlow does") {
  Conv cv = {1, 5, 5, 3, 3, 3, 4};
  const Tensor in(DT_FLOAT, cv.InputShape());
  const Tensor f(DT_FLOAT, cv.FilterShape());
  SECTION("NCHW is not implemented on CPU") {
    REQUIRE_THAT(RunKernel(ConvNode("Conv2D", cv, DT_FLOAT, 2, "NCHW"),
                           {Tensor(DT_FLOAT, TensorShape({1, 3, 5, 5})), f})
                     .status(),
                 StatusIs(absl::StatusCode::kUnimplemented, "NHWC"));
    REQUIRE_THAT(
        RunKernel(ConvNode("Conv2DBackpropInput", cv, DT_FLOAT, 3, "NCHW"),
                  {SizesTensor(TensorShape({1, 3, 5, 5})), f,
                   Tensor(DT_FLOAT, TensorShape({1, 4, 5, 5}))})
            .status(),
        StatusIs(absl::StatusCode::kInvalidArgument, "only supports NHWC"));
  }
  SECTION("input depth must be a multiple of the filter's") {
    REQUIRE_THAT(RunKernel(ConvNode("Conv2D", cv, DT_FLOAT),
                           {in, Tensor(DT_FLOAT, TensorShape({3, 3, 2, 4}))})
                     .status(),
                 StatusIs(absl::StatusCode::kInvalidArgument,
                          "input depth must be evenly divisible by filter "
                          "depth: 3 vs 2"));
  }
  SECTION("ranks") {
    REQUIRE_THAT(RunKernel(ConvNode("Conv2D", cv, DT_FLOAT),
                           {Tensor(DT_FLOAT, TensorShape({5, 5, 3})), f})
                     .status(),
                 StatusIs(absl::StatusCode::kInvalidArgument,
                          "must be 4-dimensional"));
  }
  SECTION("a window larger than a VALID input") {
    Conv big = cv;
    big.padding = "VALID";
    REQUIRE_THAT(RunKernel(ConvNode("Conv2D", big, DT_FLOAT),
                           {Tensor(DT_FLOAT, TensorShape({1, 1, 5, 3})), f})
                     .status(),
                 StatusIs(absl::StatusCode::kInvalidArgument,
                          "Computed output size would be negative"));
  }
  SECTION("strides in the batch dimension") {
    NodeDef node = ConvNode("Conv2D", cv, DT_FLOAT);
    auto* strides = (*node.mutable_attr())["strides"].mutable_list();
    strides->set_i(0, 2);
    REQUIRE_THAT(RunKernel(node, {in, f}).status(),
                 StatusIs(absl::StatusCode::kUnimplemented, "batch"));
  }
  SECTION("out_backprop that does not match the geometry") {
    REQUIRE_THAT(
        RunKernel(ConvNode("Conv2DBackpropInput", cv, DT_FLOAT, 3),
                  {SizesTensor(cv.InputShape()), f,
                   Tensor(DT_FLOAT, TensorShape({1, 4, 5, 4}))})
            .status(),
        StatusIs(absl::StatusCode::kInvalidArgument,
                 "Size of out_backprop doesn't match computed"));
    REQUIRE_THAT(
        RunKernel(ConvNode("Conv2DBackpropFilter", cv, DT_FLOAT, 3),
                  {in, SizesTensor(cv.FilterShape()),
                   Tensor(DT_FLOAT, TensorShape({1, 5, 5, 3}))})
            .status(),
        StatusIs(absl::StatusCode::kInvalidArgument, "same out_depth"));
    REQUIRE_THAT(
        RunKernel(ConvNode("Conv2DBackpropInput", cv, DT_FLOAT, 3),
                  {Tensor::FromVector<int32_t>({1, 5, 5}), f,
                   Tensor(DT_FLOAT, cv.OutputShape())})
            .status(),
        StatusIs(absl::StatusCode::kInvalidArgument, "4 values or 2 values"));
    REQUIRE_THAT(
        RunKernel(ConvNode("Conv2DBackpropInput", cv, DT_FLOAT, 3),
                  {Tensor::FromVector<int32_t>({1, -5, 5, 3}), f,
                   Tensor(DT_FLOAT, cv.OutputShape())})
            .status(),
        StatusIs(absl::StatusCode::kInvalidArgument));
  }
  SECTION("dilated gradients and depthwise dilations are not on CPU") {
    Conv dil = cv;
    dil.dh = 2;
    REQUIRE_THAT(RunKernel(ConvNode("Conv2DBackpropInput", dil, DT_FLOAT, 3),
                           {SizesTensor(cv.InputShape()), f,
                            Tensor(DT_FLOAT, cv.OutputShape())})
                     .status(),
                 StatusIs(absl::StatusCode::kInvalidArgument, "dilation"));
    REQUIRE_THAT(RunKernel(ConvNode("DepthwiseConv2dNative", dil, DT_FLOAT),
                           {in, Tensor(DT_FLOAT, TensorShape({3, 3, 3, 1}))})
                     .status(),
                 StatusIs(absl::StatusCode::kUnimplemented, "dilations"));
  }
  SECTION("depthwise: depths must agree, strides must be equal") {
    REQUIRE_THAT(RunKernel(ConvNode("DepthwiseConv2dNative", cv, DT_FLOAT),
                           {in, Tensor(DT_FLOAT, TensorShape({3, 3, 2, 1}))})
                     .status(),
                 StatusIs(absl::StatusCode::kInvalidArgument,
                          "input and filter must have the same depth"));
    Conv uneven = cv;
    uneven.sh = 2;
    REQUIRE_THAT(
        RunKernel(ConvNode("DepthwiseConv2dNative", uneven, DT_FLOAT),
                  {in, Tensor(DT_FLOAT, TensorShape({3, 3, 3, 1}))})
            .status(),
        StatusIs(absl::StatusCode::kInvalidArgument, "equal length strides"));
  }
}

// A kernel is built once per node and shared by concurrent steps: its
// primitive cache must serve several shapes at once.
TEST_CASE("One Conv2D kernel serves concurrent calls of different shapes") {
  Conv base = {1, 9, 9, 16, 3, 3, 16};
  const NodeDef node_in = ConvNode("Conv2D", base, DT_FLOAT);
  const OpRegistrationData* op =
      OpRegistry::Global()->LookUp("Conv2D");
  REQUIRE(op != nullptr);
  NodeDef node = node_in;
  AddDefaultAttrs(op->op_def, &node);
  auto kernel = StandardKernelRegistry()->CreateKernel(node, op->op_def,
                                                        TestCpuDevice());
  REQUIRE_OK(kernel);
  std::vector<Conv> shapes;
  for (int64_t hw : {5, 9, 12, 16}) {
    Conv cv = base;
    cv.h = cv.w = hw;
    shapes.push_back(cv);
  }
  std::mt19937 rng(6);
  std::vector<std::vector<double>> ins, want;
  const auto f = RandomValues(&rng, base.FilterShape().num_elements());
  for (const Conv& cv : shapes) {
    ins.push_back(RandomValues(&rng, cv.InputShape().num_elements()));
    want.push_back(NaiveForward(cv, ins.back(), f));
  }
  std::vector<std::string> failures(8);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int iter = 0; iter < 10; ++iter) {
        const size_t s = static_cast<size_t>((t + iter) % shapes.size());
        std::vector<Tensor> inputs = {
            MakeTensor<float>(ins[s], shapes[s].InputShape()),
            MakeTensor<float>(f, base.FilterShape())};
        OpKernelContext::Params params;
        params.op_kernel = kernel->get();
        params.device = TestCpuDevice();
        params.inputs = inputs;
        OpKernelContext ctx(&params);
        (*kernel)->Compute(&ctx);
        if (!ctx.status().ok()) {
          failures[t] = ctx.status().ToString();
          return;
        }
        const auto got = Doubles<float>((*ctx.mutable_outputs())[0]);
        for (size_t i = 0; i < got.size(); ++i) {
          if (std::fabs(got[i] - want[s][i]) > 1e-4) {
            failures[t] = "wrong value";
            return;
          }
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  for (const std::string& f : failures) REQUIRE(f.empty());
}

TEST_CASE("Convolution shape functions give the output shapes") {
  const OpRegistrationData* conv = OpRegistry::Global()->LookUp("Conv2D");
  REQUIRE(conv != nullptr);
  Conv cv = {1, 7, 6, 3, 3, 2, 4};
  cv.sh = cv.sw = 2;
  NodeDef node = ConvNode("Conv2D", cv, DT_FLOAT);
  AddDefaultAttrs(conv->op_def, &node);
  InferenceContext c(node, conv->op_def,
                     {PartialShape::Known({-1, 7, 6, 3}),
                      PartialShape::Known({3, 2, 3, 4})},
                     {}, 1);
  REQUIRE_OK(conv->shape_fn(&c));
  REQUIRE(c.output(0).DebugString() == "[?,4,3,4]");

  InferenceContext bad(node, conv->op_def,
                       {PartialShape::Known({1, 7, 6, 3}),
                        PartialShape::Known({3, 2, 2, 4})},
                       {}, 1);
  REQUIRE_THAT(conv->shape_fn(&bad),
               StatusIs(absl::StatusCode::kInvalidArgument, "multiple"));

  const OpRegistrationData* dw =
      OpRegistry::Global()->LookUp("DepthwiseConv2dNative");
  NodeDef dnode = ConvNode("DepthwiseConv2dNative", cv, DT_FLOAT);
  dnode.mutable_attr()->erase("use_cudnn_on_gpu");
  AddDefaultAttrs(dw->op_def, &dnode);
  InferenceContext dc(dnode, dw->op_def,
                      {PartialShape::Known({2, 7, 6, 3}),
                       PartialShape::Known({3, 3, 3, 2})},
                      {}, 1);
  REQUIRE_OK(dw->shape_fn(&dc));
  REQUIRE(dc.output(0).DebugString() == "[2,4,3,6]");

  // Conv2DBackpropInput's output is the value of input_sizes when constant.
  const OpRegistrationData* bi =
      OpRegistry::Global()->LookUp("Conv2DBackpropInput");
  NodeDef bnode = ConvNode("Conv2DBackpropInput", cv, DT_FLOAT, 3);
  AddDefaultAttrs(bi->op_def, &bnode);
  TensorProto sizes;
  Tensor::FromVector<int32_t>({1, 7, 6, 3}).AsProtoTensorContent(&sizes);
  InferenceContext bc(bnode, bi->op_def,
                      {PartialShape::Known({4}), PartialShape::Known({3, 2, 3, 4}),
                       PartialShape::Known({1, 4, 3, 4})},
                      {&sizes, nullptr, nullptr}, 1);
  REQUIRE_OK(bi->shape_fn(&bc));
  REQUIRE(bc.output(0).DebugString() == "[1,7,6,3]");
  InferenceContext bu(bnode, bi->op_def,
                      {PartialShape::Known({4}), PartialShape::Known({3, 2, 3, 4}),
                       PartialShape::Known({1, 4, 3, 4})},
                      {nullptr, nullptr, nullptr}, 1);
  REQUIRE_OK(bi->shape_fn(&bu));
  REQUIRE(bu.output(0).DebugString() == "[?,?,?,?]");
}

}  // namespace
}  // namespace dfx

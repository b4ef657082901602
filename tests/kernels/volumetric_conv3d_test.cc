// Conv3D, Conv3DBackpropInputV2 and Conv3DBackpropFilterV2: a direct
// reference on small geometries (strides, dilations, SAME/VALID, NCDHW), the
// gradients checked as adjoints of the forward pass, dtypes, empty tensors
// and the errors TensorFlow's kernels give.
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "runtime/tensor.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::RunKernel;
using testing::StatusIs;
using testing::TestNodeBuilder;

struct Conv3DCase {
  std::vector<int64_t> x;  // NDHWC
  std::vector<int64_t> f;  // KD KH KW C O
  std::vector<int64_t> stride = {1, 1, 1};
  std::vector<int64_t> dilation = {1, 1, 1};
  const char* padding = "SAME";
};

std::vector<int64_t> Attr5(const std::vector<int64_t>& s, bool ncdhw) {
  if (ncdhw) return {1, 1, s[0], s[1], s[2]};
  return {1, s[0], s[1], s[2], 1};
}

NodeDef ConvNode(const std::string& op, DataType dtype, const Conv3DCase& c,
                 bool ncdhw = false, int num_inputs = 2) {
  return TestNodeBuilder("conv", op, num_inputs)
      .Attr("T", dtype)
      .Attr("strides", Attr5(c.stride, ncdhw))
      .Attr("dilations", Attr5(c.dilation, ncdhw))
      .Attr("padding", c.padding)
      .Attr("data_format", ncdhw ? "NCDHW" : "NDHWC")
      .Build();
}

std::vector<double> Random(int64_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(-1, 1);
  std::vector<double> v(n);
  for (double& x : v) x = dist(gen);
  return v;
}

TensorShape Shape(const std::vector<int64_t>& d) {
  return *TensorShape::Build(d);
}

int64_t Prod(const std::vector<int64_t>& d) {
  int64_t p = 1;
  for (int64_t x : d) p *= x;
  return p;
}

template <typename T>
Tensor Make(const std::vector<double>& v, const std::vector<int64_t>& dims) {
  std::vector<T> t;
  for (double x : v) t.push_back(static_cast<T>(x));
  return Tensor::FromVector<T>(t, Shape(dims));
}

template <typename T>
std::vector<double> Doubles(const Tensor& t) {
  std::vector<double> v;
  for (const T& x : t.span<T>()) v.push_back(static_cast<double>(x));
  return v;
}

// Output size and padding before, as TensorFlow defines SAME and VALID.
void OutSize(int64_t in, int64_t k, int64_t s, int64_t d, const char* pad,
             int64_t* out, int64_t* before) {
  const int64_t eff = (k - 1) * d + 1;
  if (std::string(pad) == "VALID") {
    *out = (in - eff + s) / s;
    *before = 0;
  } else {
    *out = (in + s - 1) / s;
    *before = std::max<int64_t>(0, (*out - 1) * s + eff - in) / 2;
  }
}

// The direct definition of Conv3D over NDHWC, in double.
std::vector<double> Reference(const Conv3DCase& c, const std::vector<double>& x,
                              const std::vector<double>& f,
                              std::vector<int64_t>* out_dims) {
  int64_t o[3], p[3];
  for (int i = 0; i < 3; ++i) {
    OutSize(c.x[1 + i], c.f[i], c.stride[i], c.dilation[i], c.padding, &o[i],
            &p[i]);
  }
  const int64_t n = c.x[0], ci = c.x[4], co = c.f[4];
  *out_dims = {n, o[0], o[1], o[2], co};
  std::vector<double> y(Prod(*out_dims), 0.0);
  auto xi = [&](int64_t b, int64_t d, int64_t h, int64_t w, int64_t ch) {
    return (((b * c.x[1] + d) * c.x[2] + h) * c.x[3] + w) * ci + ch;
  };
  for (int64_t b = 0; b < n; ++b)
    for (int64_t od = 0; od < o[0]; ++od)
      for (int64_t oh = 0; oh < o[1]; ++oh)
        for (int64_t ow = 0; ow < o[2]; ++ow)
          for (int64_t oc = 0; oc < co; ++oc) {
            double s = 0;
            for (int64_t kd = 0; kd < c.f[0]; ++kd)
              for (int64_t kh = 0; kh < c.f[1]; ++kh)
                for (int64_t kw = 0; kw < c.f[2]; ++kw)
                  for (int64_t ic = 0; ic < ci; ++ic) {
                    const int64_t d = od * c.stride[0] - p[0] + kd * c.dilation[0];
                    const int64_t h = oh * c.stride[1] - p[1] + kh * c.dilation[1];
                    const int64_t w = ow * c.stride[2] - p[2] + kw * c.dilation[2];
                    if (d < 0 || h < 0 || w < 0 || d >= c.x[1] ||
                        h >= c.x[2] || w >= c.x[3]) {
                      continue;
                    }
                    s += x[xi(b, d, h, w, ic)] *
                         f[(((kd * c.f[1] + kh) * c.f[2] + kw) * ci + ic) * co +
                           oc];
                  }
            y[(((b * o[0] + od) * o[1] + oh) * o[2] + ow) * co + oc] = s;
          }
  return y;
}

// NDHWC <-> NCDHW of a row-major buffer with NDHWC dims `d`.
std::vector<double> ToNcdhw(const std::vector<double>& v,
                            const std::vector<int64_t>& d) {
  std::vector<double> out(v.size());
  const int64_t plane = d[1] * d[2] * d[3];
  for (int64_t b = 0; b < d[0]; ++b)
    for (int64_t s = 0; s < plane; ++s)
      for (int64_t c = 0; c < d[4]; ++c)
        out[(b * d[4] + c) * plane + s] = v[(b * plane + s) * d[4] + c];
  return out;
}

double Dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

void RequireNear(const std::vector<double>& got,
                 const std::vector<double>& want, double tol) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i);
    REQUIRE(std::abs(got[i] - want[i]) <= tol * (1 + std::abs(want[i])));
  }
}

const Conv3DCase kCases[] = {
    {{1, 4, 5, 5, 2}, {3, 3, 3, 2, 3}},
    {{2, 7, 6, 5, 2}, {3, 2, 3, 2, 4}, {2, 2, 2}, {1, 1, 1}, "VALID"},
    {{1, 5, 7, 6, 3}, {2, 3, 2, 3, 2}, {1, 2, 3}},
    {{1, 4, 4, 4, 1}, {4, 2, 2, 1, 2}},
    {{1, 6, 6, 6, 2}, {3, 3, 2, 2, 2}, {1, 1, 1}, {2, 2, 1}},
    {{1, 7, 6, 5, 1}, {2, 2, 2, 1, 3}, {1, 2, 1}, {3, 1, 2}, "VALID"},
    {{1, 2, 2, 2, 1}, {3, 3, 3, 1, 2}},
    // Large enough that every pass splits its work over the intra-op pool.
    {{2, 8, 8, 8, 4}, {3, 3, 3, 4, 8}, {2, 1, 1}},
};

TEST_CASE("Conv3D matches the direct definition", "[volumetric]") {
  unsigned seed = 1;
  for (const Conv3DCase& c : kCases) {
    const auto x = Random(Prod(c.x), seed++);
    const auto f = Random(Prod(c.f), seed++);
    std::vector<int64_t> out_dims;
    const auto want = Reference(c, x, f, &out_dims);
    auto out = RunKernel(ConvNode("Conv3D", DT_DOUBLE, c),
                         {Make<double>(x, c.x), Make<double>(f, c.f)});
    REQUIRE_OK(out);
    REQUIRE((*out)[0].shape() == Shape(out_dims));
    RequireNear(Doubles<double>((*out)[0]), want, 1e-12);

    // The same in NCDHW.
    const std::vector<int64_t> xc = {c.x[0], c.x[4], c.x[1], c.x[2], c.x[3]};
    auto nc = RunKernel(ConvNode("Conv3D", DT_DOUBLE, c, true),
                        {Make<double>(ToNcdhw(x, c.x), xc),
                         Make<double>(f, c.f)});
    REQUIRE_OK(nc);
    RequireNear(Doubles<double>((*nc)[0]), ToNcdhw(want, out_dims), 1e-12);

    // float sums in float.
    auto f32 = RunKernel(ConvNode("Conv3D", DT_FLOAT, c),
                         {Make<float>(x, c.x), Make<float>(f, c.f)});
    REQUIRE_OK(f32);
    RequireNear(Doubles<float>((*f32)[0]), want, 1e-5);
  }
}

TEST_CASE("Conv3D gradients are the adjoints of Conv3D", "[volumetric]") {
  // <conv(x, f), dy> = <x, dconv/dx(dy)> = <f, dconv/df(dy)>.
  unsigned seed = 100;
  for (bool ncdhw : {false, true}) {
    for (const Conv3DCase& c : kCases) {
      const auto x = Random(Prod(c.x), seed++);
      const auto f = Random(Prod(c.f), seed++);
      std::vector<int64_t> out_dims;
      const auto y = Reference(c, x, f, &out_dims);
      const auto dy = Random(y.size(), seed++);
      const double want = Dot(y, dy);
      std::vector<int64_t> xd = c.x, yd = out_dims;
      std::vector<double> xv = x, dyv = dy;
      if (ncdhw) {
        xd = {c.x[0], c.x[4], c.x[1], c.x[2], c.x[3]};
        yd = {out_dims[0], out_dims[4], out_dims[1], out_dims[2], out_dims[3]};
        xv = ToNcdhw(x, c.x);
        dyv = ToNcdhw(dy, out_dims);
      }
      std::vector<int32_t> xs(xd.begin(), xd.end());
      std::vector<int32_t> fs(c.f.begin(), c.f.end());
      auto dx = RunKernel(
          ConvNode("Conv3DBackpropInputV2", DT_DOUBLE, c, ncdhw, 3),
          {Tensor::FromVector<int32_t>(xs), Make<double>(f, c.f),
           Make<double>(dyv, yd)});
      REQUIRE_OK(dx);
      REQUIRE((*dx)[0].shape() == Shape(xd));
      REQUIRE(std::abs(Dot(Doubles<double>((*dx)[0]), xv) - want) < 1e-9);
      auto df = RunKernel(
          ConvNode("Conv3DBackpropFilterV2", DT_DOUBLE, c, ncdhw, 3),
          {Make<double>(xv, xd), Tensor::FromVector<int32_t>(fs),
           Make<double>(dyv, yd)});
      REQUIRE_OK(df);
      REQUIRE((*df)[0].shape() == Shape(c.f));
      REQUIRE(std::abs(Dot(Doubles<double>((*df)[0]), f) - want) < 1e-9);
    }
  }
}

TEST_CASE("Conv3D gradient ops take input_sizes as int64 and 16-bit types",
          "[volumetric]") {
  const Conv3DCase c = {{1, 3, 3, 3, 2}, {2, 2, 2, 2, 1}, {1, 1, 1},
                        {1, 1, 1}, "VALID"};
  // All-ones filter and gradient: each input position receives the number
  // of 2x2x2 windows covering it, per dim 1 at the ends and 2 inside.
  NodeDef node = ConvNode("Conv3DBackpropInputV2", DT_FLOAT, c, false, 3);
  (*node.mutable_attr())["Tshape"].set_type(DT_INT64);
  auto out = RunKernel(
      node, {Tensor::FromVector<int64_t>({1, 3, 3, 3, 2}),
             Make<float>(std::vector<double>(16, 1.0), c.f),
             Make<float>(std::vector<double>(8, 1.0), {1, 2, 2, 2, 1})});
  REQUIRE_OK(out);
  const auto got = Doubles<float>((*out)[0]);
  // Element (d, h, w, ch): product over dims of (1 if at an end, else 2).
  for (int64_t d = 0; d < 3; ++d)
    for (int64_t h = 0; h < 3; ++h)
      for (int64_t w = 0; w < 3; ++w)
        for (int64_t ch = 0; ch < 2; ++ch) {
          const double want =
              (d == 1 ? 2 : 1) * (h == 1 ? 2 : 1) * (w == 1 ? 2 : 1);
          REQUIRE(got[((d * 3 + h) * 3 + w) * 2 + ch] == want);
        }

  for (DataType dt : {DT_HALF, DT_BFLOAT16}) {
    const auto x = Random(54, 7);
    const auto f = Random(16, 8);
    std::vector<int64_t> out_dims;
    const auto want = Reference(c, x, f, &out_dims);
    auto r = dt == DT_HALF
                 ? RunKernel(ConvNode("Conv3D", dt, c),
                             {Make<Eigen::half>(x, c.x),
                              Make<Eigen::half>(f, c.f)})
                 : RunKernel(ConvNode("Conv3D", dt, c),
                             {Make<Eigen::bfloat16>(x, c.x),
                              Make<Eigen::bfloat16>(f, c.f)});
    REQUIRE_OK(r);
    const auto got = dt == DT_HALF ? Doubles<Eigen::half>((*r)[0])
                                   : Doubles<Eigen::bfloat16>((*r)[0]);
    RequireNear(got, want, dt == DT_HALF ? 1e-2 : 6e-2);
  }
}

TEST_CASE("Conv3D on empty tensors", "[volumetric]") {
  const Conv3DCase c = {{0, 3, 3, 3, 2}, {2, 2, 2, 2, 3}};
  auto out = RunKernel(ConvNode("Conv3D", DT_FLOAT, c),
                       {Make<float>({}, c.x),
                        Make<float>(std::vector<double>(48, 1.0), c.f)});
  REQUIRE_OK(out);
  REQUIRE((*out)[0].shape() == TensorShape({0, 3, 3, 3, 3}));
  // An empty batch gives the filter a zero gradient, not garbage.
  auto df = RunKernel(
      ConvNode("Conv3DBackpropFilterV2", DT_FLOAT, c, false, 3),
      {Make<float>({}, c.x), Tensor::FromVector<int32_t>({2, 2, 2, 2, 3}),
       Make<float>({}, {0, 3, 3, 3, 3})});
  REQUIRE_OK(df);
  REQUIRE(Doubles<float>((*df)[0]) == std::vector<double>(48, 0.0));
}

TEST_CASE("Conv3D kernels reject bad shapes and attrs", "[volumetric]") {
  const Conv3DCase c = {{1, 3, 3, 3, 2}, {2, 2, 2, 2, 3}, {1, 1, 1},
                        {1, 1, 1}, "VALID"};
  const Tensor x = Make<float>(std::vector<double>(54, 1.0), c.x);
  const Tensor f = Make<float>(std::vector<double>(48, 1.0), c.f);
  const Tensor dy = Make<float>(std::vector<double>(24, 1.0), {1, 2, 2, 2, 3});
  auto conv = ConvNode("Conv3D", DT_FLOAT, c);
  REQUIRE_THAT(RunKernel(conv, {Make<float>(std::vector<double>(54, 1.0),
                                            {3, 3, 3, 2}),
                                f})
                   .status(),
               StatusIs(absl::StatusCode::kInvalidArgument, "5-dimensional"));
  REQUIRE_THAT(RunKernel(conv, {x, Make<float>(std::vector<double>(72, 1.0),
                                               {2, 2, 2, 3, 3})})
                   .status(),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "input and filter must have the same depth: 2 vs 3"));
  REQUIRE_THAT(
      RunKernel(conv, {x, Make<float>({}, {2, 2, 2, 2, 0})}).status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "zero elements"));
  // VALID with a window one past the input: an empty output; two past: an
  // error.
  auto empty = RunKernel(conv, {x, Make<float>(std::vector<double>(96, 1.0),
                                               {4, 2, 2, 2, 3})});
  REQUIRE_OK(empty);
  REQUIRE((*empty)[0].shape() == TensorShape({1, 0, 2, 2, 3}));
  REQUIRE_THAT(
      RunKernel(conv, {x, Make<float>(std::vector<double>(120, 1.0),
                                      {5, 2, 2, 2, 3})})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "negative"));

  NodeDef batch_stride = conv;
  (*batch_stride.mutable_attr())["strides"].mutable_list()->clear_i();
  for (int64_t s : {2, 1, 1, 1, 1}) {
    (*batch_stride.mutable_attr())["strides"].mutable_list()->add_i(s);
  }
  REQUIRE_THAT(RunKernel(batch_stride, {x, f}).status(),
               StatusIs(absl::StatusCode::kUnimplemented, "batch"));
  NodeDef four_strides = conv;
  (*four_strides.mutable_attr())["strides"].mutable_list()->clear_i();
  for (int64_t s : {1, 1, 1, 1}) {
    (*four_strides.mutable_attr())["strides"].mutable_list()->add_i(s);
  }
  REQUIRE_THAT(RunKernel(four_strides, {x, f}).status(),
               StatusIs(absl::StatusCode::kInvalidArgument, "5 dimensions"));
  NodeDef zero_dilation = conv;
  (*zero_dilation.mutable_attr())["dilations"].mutable_list()->set_i(2, 0);
  REQUIRE_THAT(RunKernel(zero_dilation, {x, f}).status(),
               StatusIs(absl::StatusCode::kInvalidArgument, "Dilation"));

  auto bpi = ConvNode("Conv3DBackpropInputV2", DT_FLOAT, c, false, 3);
  REQUIRE_THAT(
      RunKernel(bpi, {Tensor::FromVector<int32_t>({1, 3, 3, 3, 2}), f,
                      Make<float>(std::vector<double>(81, 1.0),
                                  {1, 3, 3, 3, 3})})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "Size of out_backprop doesn't match computed"));
  REQUIRE_THAT(
      RunKernel(bpi, {Tensor::FromVector<int32_t>({1, 3, 3, 3, 2}), f,
                      Make<float>(std::vector<double>(48, 1.0),
                                  {2, 2, 2, 2, 3})})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "same batch size"));
  REQUIRE_THAT(
      RunKernel(bpi, {Tensor::FromVector<int32_t>({1, 3, 3, 3}), f, dy})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "5-dimensional"));
  REQUIRE_THAT(
      RunKernel(bpi, {Tensor::FromVector<int32_t>({1, 3, 3, 3, 2},
                                                  TensorShape({1, 5})),
                      f, dy})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "vector"));
  REQUIRE_THAT(
      RunKernel(bpi, {Tensor::FromVector<int32_t>({1, 3, 3, 3, -2}), f, dy})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument));

  auto bpf = ConvNode("Conv3DBackpropFilterV2", DT_FLOAT, c, false, 3);
  REQUIRE_THAT(
      RunKernel(bpf, {x, Tensor::FromVector<int32_t>({2, 2, 2, 2, 3}),
                      Make<float>(std::vector<double>(32, 1.0),
                                  {1, 2, 2, 2, 4})})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "out_depth"));
  REQUIRE_THAT(
      RunKernel(bpf, {x, Tensor::FromVector<int32_t>({2, 2, 2, 3}), dy})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "5-dimensional"));
  REQUIRE_THAT(
      RunKernel(bpf, {x, Tensor::FromVector<int32_t>({2, 2, 2, 2, 3}),
                      Make<float>(std::vector<double>(12, 1.0),
                                  {1, 2, 2, 3})})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "5-dimensional"));
}

}  // namespace
}  // namespace dfx

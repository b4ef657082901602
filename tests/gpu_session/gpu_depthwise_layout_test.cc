// What the GPU's depthwise convolutions (gpu/kernels/conv_gpu.cc) rest on,
// checked on the host with the CPU kernels: DepthwiseConv2dNative with a
// [H, W, C, M] filter is the grouped Conv2D with groups = C over the same
// filter bytes read as HWIO [H, W, 1, C * M] (output channel c * M + m),
// which is what the GPU hands cuDNN. Needs no GPU.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "tests/gpu_session/cpu_session_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::OnCpu;

Tensor Random(const TensorShape& shape, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> u(-2, 2);
  Tensor t(DT_FLOAT, shape);
  for (float& v : t.span<float>()) v = u(gen);
  return t;
}

AttrValue Ints(std::vector<int64_t> values) {
  AttrValue v;
  v.mutable_list();
  for (int64_t x : values) v.mutable_list()->add_i(x);
  return v;
}

TEST_CASE(
    "gpu depthwise layout: a depthwise convolution is the grouped "
    "Conv2D over the same filter bytes as [H, W, 1, C * M]") {
  const struct {
    TensorShape input, filter;  // filter [KH, KW, C, M]
    int64_t stride;
    const char* padding;
  } kCases[] = {
      {TensorShape({2, 9, 9, 3}), TensorShape({3, 3, 3, 1}), 1, "SAME"},
      {TensorShape({1, 10, 11, 4}), TensorShape({3, 3, 4, 2}), 2, "SAME"},
      {TensorShape({2, 8, 8, 6}), TensorShape({5, 5, 6, 3}), 2, "VALID"},
      {TensorShape({1, 7, 7, 2}), TensorShape({2, 2, 2, 3}), 3, "SAME"},
  };
  for (const auto& c : kCases) {
    INFO(c.input.DebugString() << " filter " << c.filter.DebugString());
    std::map<std::string, AttrValue> attrs;
    attrs["T"].set_type(DT_FLOAT);
    attrs["strides"] = Ints({1, c.stride, c.stride, 1});
    attrs["padding"].set_s(c.padding);
    const Tensor x = Random(c.input, 1);
    const Tensor w = Random(c.filter, 2);
    auto depthwise = OnCpu("DepthwiseConv2dNative", {x, w}, attrs);
    REQUIRE_OK(depthwise);
    const int64_t channels = c.filter.dim_size(2) * c.filter.dim_size(3);
    auto as_hwio = w.Reshaped(
        TensorShape({c.filter.dim_size(0), c.filter.dim_size(1), 1, channels}));
    REQUIRE_OK(as_hwio);
    auto grouped = OnCpu("Conv2D", {x, *as_hwio}, attrs);
    REQUIRE_OK(grouped);
    REQUIRE(grouped->shape() == depthwise->shape());
    double worst = 0;
    for (int64_t i = 0; i < grouped->NumElements(); ++i) {
      const double a = grouped->data<float>()[i];
      const double b = depthwise->data<float>()[i];
      worst = std::max(worst, std::abs(a - b) / (1 + std::abs(b)));
    }
    CHECK(worst < 1e-5);
  }
}

}  // namespace
}  // namespace dfx

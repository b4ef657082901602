// The GPU kernels beyond MatMul, Conv2D and the element-wise ops, each
// against the CPU kernel on the same inputs in one session (tagged [gpu];
// without a GPU each test says "SKIPPED: no CUDA device visible"):
// reductions, the softmax family, Cast, Fill and the *Like ops, GatherV2,
// ConcatV2, Pack, Transpose, BroadcastTo, the depthwise convolutions,
// Tile, Slice, StridedSlice(Grad), Relu6(Grad), the optimizer updates on
// variables in GPU memory, and the host-memory arguments (shapes, axes,
// indices, labels) that cross to the host on the way.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "catch2/catch.hpp"
#include "gpu/gpu_device_factory.h"
#include "runtime/session.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::StatusIs;

constexpr char kGpu[] = "/job:localhost/replica:0/task:0/device:GPU:0";
constexpr char kCpu[] = "/job:localhost/replica:0/task:0/device:CPU:0";

bool HaveGpu() {
  std::string why;
  if (gpu::VisibleGpuCount(&why) > 0) return true;
  WARN("SKIPPED: no CUDA device visible: " << why);
  return false;
}

Tensor RandomFloats(const TensorShape& shape, uint32_t seed, float lo = -2,
                    float hi = 2) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  Tensor t(DT_FLOAT, shape);
  for (float& v : t.span<float>()) v = u(gen);
  return t;
}

template <typename T>
Tensor Ints(std::vector<T> values, TensorShape shape) {
  return Tensor::FromVector<T>(values, shape);
}
template <typename T>
Tensor Ints(std::vector<T> values) {
  return Tensor::FromVector<T>(values);
}

AttrValue TypeAttr(DataType t) {
  AttrValue v;
  v.set_type(t);
  return v;
}
AttrValue IntAttr(int64_t i) {
  AttrValue v;
  v.set_i(i);
  return v;
}
AttrValue BoolAttr(bool b) {
  AttrValue v;
  v.set_b(b);
  return v;
}

// The node `op` with `attrs` run on the GPU and on the CPU over the same
// fed inputs (placeholders on the CPU); every output of both, GPU first.
struct BothSides {
  std::vector<Tensor> gpu, cpu;
};
absl::StatusOr<BothSides> OnGpuAndCpu(
    const std::string& op, const std::vector<Tensor>& inputs,
    const std::map<std::string, AttrValue>& attrs, int num_outputs = 1) {
  GraphDef g;
  std::vector<std::string> names;
  std::vector<std::pair<std::string, Tensor>> feeds;
  for (size_t i = 0; i < inputs.size(); ++i) {
    names.push_back(absl::StrCat("in", i));
    NodeDef* p = g.add_node();
    p->set_name(names.back());
    p->set_op("Placeholder");
    p->set_device(kCpu);
    (*p->mutable_attr())["dtype"] = TypeAttr(inputs[i].dtype());
    feeds.emplace_back(names.back(), inputs[i]);
  }
  std::vector<std::string> fetches;
  for (const char* side : {"gpu", "cpu"}) {
    NodeDef* n = g.add_node();
    n->set_name(side);
    n->set_op(op);
    n->set_device(side == std::string("gpu") ? kGpu : kCpu);
    for (const auto& in : names) n->add_input(in);
    for (const auto& [k, v] : attrs) (*n->mutable_attr())[k] = v;
    for (int i = 0; i < num_outputs; ++i) {
      fetches.push_back(absl::StrCat(side, ":", i));
    }
  }
  auto session = Session::Create("local", SessionOptions());
  DFX_RETURN_IF_ERROR(session.status());
  DFX_RETURN_IF_ERROR((*session)->Extend(g));
  std::vector<Tensor> out;
  DFX_RETURN_IF_ERROR((*session)->Run(feeds, fetches, {}, &out));
  BothSides both;
  for (int i = 0; i < num_outputs; ++i) {
    both.gpu.push_back(out[i]);
    both.cpu.push_back(out[num_outputs + i]);
  }
  return both;
}

// The largest |x - y| / (1 + |y|), with the dtypes converted to double.
double Value(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DT_FLOAT: return t.data<float>()[i];
    case DT_DOUBLE: return t.data<double>()[i];
    case DT_INT32: return t.data<int32_t>()[i];
    case DT_INT64: return static_cast<double>(t.data<int64_t>()[i]);
    case DT_BOOL: return t.data<bool>()[i] ? 1 : 0;
    case DT_HALF: return static_cast<float>(t.data<Eigen::half>()[i]);
    case DT_BFLOAT16: return static_cast<float>(t.data<Eigen::bfloat16>()[i]);
    default: FAIL("dtype " << DataTypeString(t.dtype())); return 0;
  }
}
double MaxRelativeError(const Tensor& x, const Tensor& y) {
  REQUIRE(x.dtype() == y.dtype());
  REQUIRE(x.shape() == y.shape());
  double worst = 0;
  for (int64_t i = 0; i < x.NumElements(); ++i) {
    const double a = Value(x, i), b = Value(y, i);
    if (std::isnan(a) && std::isnan(b)) continue;
    if (a == b) continue;  // infinities
    worst = std::max(worst, std::abs(a - b) / (1 + std::abs(b)));
  }
  return worst;
}

// Checks that the GPU's outputs match the CPU's within `tolerance`.
void CheckSame(const absl::StatusOr<BothSides>& r, double tolerance) {
  REQUIRE_OK(r);
  for (size_t i = 0; i < r->gpu.size(); ++i) {
    INFO("output " << i << ": GPU " << r->gpu[i].shape().DebugString()
                   << ", CPU " << r->cpu[i].shape().DebugString());
    CHECK(MaxRelativeError(r->gpu[i], r->cpu[i]) <= tolerance);
  }
}

TEST_CASE("gpu kernels: Sum, Mean, Prod, Max and Min over any axes give "
          "the CPU kernels' numbers", "[gpu]") {
  if (!HaveGpu()) return;
  const Tensor x = RandomFloats(TensorShape({4, 5, 6, 7}), 1, 0.5f, 1.5f);
  const std::vector<std::vector<int32_t>> axes_list = {
      {}, {0}, {3}, {1, 2}, {0, 3}, {0, 2}, {1, 3}, {0, 1, 2, 3}, {-1},
      {0, 2, 3}};
  for (const char* op : {"Sum", "Mean", "Prod", "Max", "Min"}) {
    for (const auto& axes : axes_list) {
      for (bool keep : {false, true}) {
        INFO(op << " axes " << axes.size() << " keep_dims " << keep);
        CheckSame(OnGpuAndCpu(op,
                              {x, Ints<int32_t>(axes,
                                                TensorShape({static_cast<int64_t>(
                                                    axes.size())}))},
                              {{"T", TypeAttr(DT_FLOAT)},
                               {"Tidx", TypeAttr(DT_INT32)},
                               {"keep_dims", BoolAttr(keep)}}),
                  1e-5);
      }
    }
  }
  // A long row: the tree keeps a float sum accurate.
  const Tensor ones = RandomFloats(TensorShape({1 << 20}), 2, 1, 1);
  auto sum = OnGpuAndCpu("Sum", {ones, Ints<int64_t>({0})},
                         {{"T", TypeAttr(DT_FLOAT)},
                          {"Tidx", TypeAttr(DT_INT64)},
                          {"keep_dims", BoolAttr(false)}});
  REQUIRE_OK(sum);
  CHECK(sum->gpu[0].scalar<float>() == float{1 << 20});
  // Empty reductions: the identities.
  CheckSame(OnGpuAndCpu("Max", {Tensor(DT_FLOAT, TensorShape({3, 0})),
                                Ints<int32_t>({1})},
                        {{"T", TypeAttr(DT_FLOAT)},
                         {"Tidx", TypeAttr(DT_INT32)},
                         {"keep_dims", BoolAttr(false)}}),
            0);
  CHECK_THAT(OnGpuAndCpu("Sum", {x, Ints<int32_t>({4})},
                         {{"T", TypeAttr(DT_FLOAT)},
                          {"Tidx", TypeAttr(DT_INT32)},
                          {"keep_dims", BoolAttr(false)}})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "Invalid reduction dimension"));
}

TEST_CASE("gpu kernels: Softmax, LogSoftmax and the cross-entropies give "
          "the CPU kernels' numbers, and a bad label names its value", "[gpu]") {
  if (!HaveGpu()) return;
  const Tensor logits = RandomFloats(TensorShape({33, 1000}), 3, -20, 20);
  for (const char* op : {"Softmax", "LogSoftmax"}) {
    INFO(op);
    CheckSame(OnGpuAndCpu(op, {logits}, {{"T", TypeAttr(DT_FLOAT)}}), 1e-5);
  }
  Tensor labels = RandomFloats(TensorShape({33, 1000}), 4, 0, 1);
  CheckSame(OnGpuAndCpu("SoftmaxCrossEntropyWithLogits", {logits, labels},
                        {{"T", TypeAttr(DT_FLOAT)}}, 2),
            1e-4);
  std::vector<int64_t> ids(33);
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = (i * 37) % 1000;
  std::vector<int32_t> ids32(ids.begin(), ids.end());
  CheckSame(OnGpuAndCpu("SparseSoftmaxCrossEntropyWithLogits",
                        {logits, Ints<int64_t>(ids)},
                        {{"T", TypeAttr(DT_FLOAT)},
                         {"Tlabels", TypeAttr(DT_INT64)}},
                        2),
            1e-5);
  CheckSame(OnGpuAndCpu("SparseSoftmaxCrossEntropyWithLogits",
                        {logits, Ints<int32_t>(ids32)},
                        {{"T", TypeAttr(DT_FLOAT)},
                         {"Tlabels", TypeAttr(DT_INT32)}},
                        2),
            1e-5);
  ids32[5] = 1000;
  CHECK_THAT(OnGpuAndCpu("SparseSoftmaxCrossEntropyWithLogits",
                         {logits, Ints<int32_t>(ids32)},
                         {{"T", TypeAttr(DT_FLOAT)},
                          {"Tlabels", TypeAttr(DT_INT32)}},
                         2)
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "Received a label value of 1000 which is outside the "
                      "valid range of [0, 1000)"));
}

TEST_CASE("gpu kernels: Cast, Fill, ZerosLike and OnesLike give the CPU "
          "kernels' values", "[gpu]") {
  if (!HaveGpu()) return;
  const Tensor x = RandomFloats(TensorShape({5, 7}), 5, -300, 300);
  const DataType types[] = {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16,
                            DT_INT64, DT_BOOL, DT_INT32};
  for (DataType to : types) {
    INFO("float to " << DataTypeString(to));
    auto r = OnGpuAndCpu("Cast", {x},
                         {{"SrcT", TypeAttr(DT_FLOAT)},
                          {"DstT", TypeAttr(to)},
                          {"Truncate", BoolAttr(false)}});
    CheckSame(r, 0);
    REQUIRE_OK(r);
    // And back: the round trip through the GPU matches the CPU's.
    if (to == DT_FLOAT) continue;
    INFO("back to float");
    CheckSame(OnGpuAndCpu("Cast", {r->cpu[0]},
                          {{"SrcT", TypeAttr(to)},
                           {"DstT", TypeAttr(DT_FLOAT)},
                           {"Truncate", BoolAttr(false)}}),
              0);
  }
  CheckSame(OnGpuAndCpu("Fill",
                        {Ints<int32_t>({3, 4}), Tensor::Scalar<float>(2.5f)},
                        {{"T", TypeAttr(DT_FLOAT)},
                         {"index_type", TypeAttr(DT_INT32)}}),
            0);
  for (const char* op : {"ZerosLike", "OnesLike"}) {
    for (DataType t : {DT_FLOAT, DT_DOUBLE, DT_INT64}) {
      INFO(op << " " << DataTypeString(t));
      auto cast = OnGpuAndCpu("Cast", {x},
                              {{"SrcT", TypeAttr(DT_FLOAT)},
                               {"DstT", TypeAttr(t)},
                               {"Truncate", BoolAttr(false)}});
      REQUIRE_OK(cast);
      CheckSame(OnGpuAndCpu(op, {cast->cpu[0]}, {{"T", TypeAttr(t)}}), 0);
    }
  }
}

TEST_CASE("gpu kernels: GatherV2, ConcatV2, Pack, Transpose and BroadcastTo "
          "give the CPU kernels' values, and a bad index is an error", "[gpu]") {
  if (!HaveGpu()) return;
  const Tensor params = RandomFloats(TensorShape({6, 5, 4}), 6);
  for (int axis : {0, 1, 2, -1}) {
    INFO("GatherV2 axis " << axis);
    CheckSame(OnGpuAndCpu("GatherV2",
                          {params, Ints<int32_t>({3, 0, 3, 1}, TensorShape({2, 2})),
                           Tensor::Scalar<int32_t>(axis)},
                          {{"Tparams", TypeAttr(DT_FLOAT)},
                           {"Tindices", TypeAttr(DT_INT32)},
                           {"Taxis", TypeAttr(DT_INT32)},
                           {"batch_dims", IntAttr(0)}}),
              0);
  }
  CheckSame(OnGpuAndCpu("GatherV2",
                        {params, Ints<int64_t>({5, 2}),
                         Tensor::Scalar<int64_t>(0)},
                        {{"Tparams", TypeAttr(DT_FLOAT)},
                         {"Tindices", TypeAttr(DT_INT64)},
                         {"Taxis", TypeAttr(DT_INT64)},
                         {"batch_dims", IntAttr(0)}}),
            0);
  CHECK_THAT(OnGpuAndCpu("GatherV2",
                         {params, Ints<int32_t>({6}),
                          Tensor::Scalar<int32_t>(0)},
                         {{"Tparams", TypeAttr(DT_FLOAT)},
                          {"Tindices", TypeAttr(DT_INT32)},
                          {"Taxis", TypeAttr(DT_INT32)},
                          {"batch_dims", IntAttr(0)}})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "6"));
  const Tensor a = RandomFloats(TensorShape({3, 2, 4}), 7);
  const Tensor b = RandomFloats(TensorShape({3, 5, 4}), 8);
  CheckSame(OnGpuAndCpu("ConcatV2", {a, b, Tensor::Scalar<int32_t>(1)},
                        {{"T", TypeAttr(DT_FLOAT)},
                         {"Tidx", TypeAttr(DT_INT32)},
                         {"N", IntAttr(2)}}),
            0);
  CheckSame(OnGpuAndCpu("ConcatV2", {a, a, a, Tensor::Scalar<int32_t>(-1)},
                        {{"T", TypeAttr(DT_FLOAT)},
                         {"Tidx", TypeAttr(DT_INT32)},
                         {"N", IntAttr(3)}}),
            0);
  for (int axis : {0, 1, 3, -1}) {
    INFO("Pack axis " << axis);
    CheckSame(OnGpuAndCpu("Pack", {a, a}, {{"T", TypeAttr(DT_FLOAT)},
                                           {"N", IntAttr(2)},
                                           {"axis", IntAttr(axis)}}),
              0);
  }
  const Tensor x = RandomFloats(TensorShape({2, 3, 4, 5, 6}), 9);
  for (const std::vector<int32_t>& perm :
       {std::vector<int32_t>{4, 3, 2, 1, 0}, {0, 2, 1, 3, 4},
        {1, 0, 4, 2, 3}}) {
    INFO("Transpose " << perm[0] << perm[1] << perm[2]);
    CheckSame(OnGpuAndCpu("Transpose", {x, Ints<int32_t>(perm)},
                          {{"T", TypeAttr(DT_FLOAT)},
                           {"Tperm", TypeAttr(DT_INT32)}}),
              0);
  }
  CheckSame(OnGpuAndCpu("AddN",
                        {RandomFloats(TensorShape({4, 5}), 11),
                         RandomFloats(TensorShape({4, 5}), 12),
                         RandomFloats(TensorShape({4, 5}), 13)},
                        {{"T", TypeAttr(DT_FLOAT)}, {"N", IntAttr(3)}}),
            1e-6);
  // int64 shape arithmetic runs on the host in the GPU's name.
  CheckSame(OnGpuAndCpu("FloorDiv", {Ints<int64_t>({7, -9, 12}),
                                     Ints<int64_t>({2, 4, 5})},
                        {{"T", TypeAttr(DT_INT64)}}),
            0);
  CheckSame(OnGpuAndCpu("Size", {RandomFloats(TensorShape({3, 4}), 14)},
                        {{"T", TypeAttr(DT_FLOAT)},
                         {"out_type", TypeAttr(DT_INT64)}}),
            0);
  CheckSame(OnGpuAndCpu("BroadcastTo",
                        {RandomFloats(TensorShape({3, 1}), 10),
                         Ints<int32_t>({2, 3, 4})},
                        {{"T", TypeAttr(DT_FLOAT)},
                         {"Tidx", TypeAttr(DT_INT32)}}),
            0);
}

TEST_CASE("gpu kernels: BatchMatMulV2 on cuBLAS gives the CPU kernel's "
          "numbers, with adjoints and broadcast batches", "[gpu]") {
  if (!HaveGpu()) return;
  const struct {
    TensorShape x, y;
    bool adj_x, adj_y;
  } kCases[] = {
      {TensorShape({3, 4, 5}), TensorShape({3, 5, 6}), false, false},
      {TensorShape({3, 5, 4}), TensorShape({3, 6, 5}), true, true},
      {TensorShape({4, 5}), TensorShape({2, 3, 5, 6}), false, false},
      {TensorShape({2, 1, 4, 5}), TensorShape({1, 3, 6, 5}), false, true},
      {TensorShape({2, 1, 4, 5}), TensorShape({3, 6, 5}), false, true},
      {TensorShape({2, 4, 0}), TensorShape({2, 0, 3}), false, false},
  };
  for (const auto& c : kCases) {
    for (DataType t : {DT_FLOAT, DT_DOUBLE}) {
      INFO(c.x.DebugString() << " x " << c.y.DebugString() << " adj "
                             << c.adj_x << c.adj_y << " "
                             << DataTypeString(t));
      std::vector<Tensor> in = {RandomFloats(c.x, 40), RandomFloats(c.y, 41)};
      if (t == DT_DOUBLE) {
        for (Tensor& v : in) {
          Tensor d(DT_DOUBLE, v.shape());
          for (int64_t i = 0; i < v.NumElements(); ++i) {
            d.data<double>()[i] = v.data<float>()[i];
          }
          v = d;
        }
      }
      CheckSame(OnGpuAndCpu("BatchMatMulV2", in,
                            {{"T", TypeAttr(t)},
                             {"adj_x", BoolAttr(c.adj_x)},
                             {"adj_y", BoolAttr(c.adj_y)}}),
                1e-5);
    }
  }
  CHECK_THAT(OnGpuAndCpu("BatchMatMulV2",
                         {RandomFloats(TensorShape({2, 4, 5}), 1),
                          RandomFloats(TensorShape({3, 5, 6}), 2)},
                         {{"T", TypeAttr(DT_FLOAT)},
                          {"adj_x", BoolAttr(false)},
                          {"adj_y", BoolAttr(false)}})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "compatible batch dimensions"));
}

AttrValue IntsAttr(std::vector<int64_t> values) {
  AttrValue v;
  v.mutable_list();  // a list, even an empty one
  for (int64_t x : values) v.mutable_list()->add_i(x);
  return v;
}
AttrValue StringAttr(const std::string& s) {
  AttrValue v;
  v.set_s(s);
  return v;
}

TEST_CASE("gpu kernels: Conv2DBackpropInput and Conv2DBackpropFilter on "
          "cuDNN give the CPU kernels' numbers", "[gpu]") {
  if (!HaveGpu()) return;
  const struct {
    TensorShape input, filter;
    int64_t stride, dilation;
    const char* padding;
  } kCases[] = {
      {TensorShape({2, 9, 9, 3}), TensorShape({3, 3, 3, 4}), 1, 1, "SAME"},
      {TensorShape({2, 9, 8, 3}), TensorShape({2, 2, 3, 5}), 1, 1, "SAME"},
      {TensorShape({1, 10, 11, 4}), TensorShape({3, 2, 4, 2}), 2, 1, "SAME"},
      {TensorShape({3, 8, 8, 2}), TensorShape({3, 3, 2, 3}), 2, 1, "VALID"},
      {TensorShape({2, 7, 7, 3}), TensorShape({1, 1, 3, 6}), 2, 1, "VALID"},
  };
  for (const auto& c : kCases) {
    INFO(c.input.DebugString() << " filter " << c.filter.DebugString()
                               << " stride " << c.stride << " dilation "
                               << c.dilation << " " << c.padding);
    const std::map<std::string, AttrValue> attrs = {
        {"T", TypeAttr(DT_FLOAT)},
        {"strides", IntsAttr({1, c.stride, c.stride, 1})},
        {"dilations", IntsAttr({1, c.dilation, c.dilation, 1})},
        {"padding", StringAttr(c.padding)},
        {"data_format", StringAttr("NHWC")},
        {"use_cudnn_on_gpu", BoolAttr(true)},
        {"explicit_paddings", IntsAttr({})}};
    const Tensor input = RandomFloats(c.input, 50);
    const Tensor filter = RandomFloats(c.filter, 51);
    // (The CPU's gradients take no dilation, as TensorFlow's; Conv2D's
    // dilations are checked in gpu_session_test.cc.)
    auto forward = OnGpuAndCpu("Conv2D", {input, filter}, attrs);
    CheckSame(forward, 1e-4);
    REQUIRE_OK(forward);
    const Tensor dy = RandomFloats(forward->cpu[0].shape(), 52);
    std::vector<int32_t> input_sizes, filter_sizes;
    for (int d = 0; d < 4; ++d) {
      input_sizes.push_back(static_cast<int32_t>(c.input.dim_size(d)));
      filter_sizes.push_back(static_cast<int32_t>(c.filter.dim_size(d)));
    }
    CheckSame(OnGpuAndCpu("Conv2DBackpropInput",
                          {Ints<int32_t>(input_sizes), filter, dy}, attrs),
              1e-4);
    CheckSame(OnGpuAndCpu("Conv2DBackpropFilter",
                          {input, Ints<int32_t>(filter_sizes), dy}, attrs),
              1e-4);
  }
  // A gradient that does not fit the geometry names both shapes.
  const std::map<std::string, AttrValue> attrs = {
      {"T", TypeAttr(DT_FLOAT)},
      {"strides", IntsAttr({1, 1, 1, 1})},
      {"dilations", IntsAttr({1, 1, 1, 1})},
      {"padding", StringAttr("VALID")},
      {"data_format", StringAttr("NHWC")},
      {"use_cudnn_on_gpu", BoolAttr(true)},
      {"explicit_paddings", IntsAttr({})}};
  CHECK_THAT(OnGpuAndCpu("Conv2DBackpropInput",
                         {Ints<int32_t>({1, 5, 5, 2}),
                          RandomFloats(TensorShape({3, 3, 2, 2}), 1),
                          RandomFloats(TensorShape({1, 4, 4, 2}), 2)},
                         attrs)
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST_CASE("gpu kernels: MaxPool, AvgPool and their gradients give the CPU "
          "kernels' numbers", "[gpu]") {
  if (!HaveGpu()) return;
  const struct {
    int64_t window, stride;
    const char* padding;
  } kCases[] = {{3, 2, "SAME"}, {2, 2, "VALID"}, {3, 1, "SAME"},
                {2, 3, "SAME"}, {3, 2, "VALID"}};
  const Tensor input = RandomFloats(TensorShape({2, 9, 10, 3}), 60);
  for (const auto& c : kCases) {
    INFO("window " << c.window << " stride " << c.stride << " "
                   << c.padding);
    const std::map<std::string, AttrValue> attrs = {
        {"T", TypeAttr(DT_FLOAT)},
        {"ksize", IntsAttr({1, c.window, c.window, 1})},
        {"strides", IntsAttr({1, c.stride, c.stride, 1})},
        {"padding", StringAttr(c.padding)},
        {"data_format", StringAttr("NHWC")}};
    auto max = OnGpuAndCpu("MaxPool", {input}, attrs);
    CheckSame(max, 0);
    auto avg = OnGpuAndCpu("AvgPool", {input}, attrs);
    CheckSame(avg, 1e-6);
    REQUIRE_OK(max);
    const Tensor dy = RandomFloats(max->cpu[0].shape(), 61);
    CheckSame(OnGpuAndCpu("MaxPoolGrad", {input, max->cpu[0], dy}, attrs),
              1e-6);
    CheckSame(OnGpuAndCpu("AvgPoolGrad", {Ints<int32_t>({2, 9, 10, 3}), dy},
                          attrs),
              1e-6);
  }
}

TEST_CASE("gpu kernels: FusedBatchNormV3 and its gradient give the CPU "
          "kernels' numbers, training and inference, both formats",
          "[gpu]") {
  if (!HaveGpu()) return;
  for (const char* format : {"NHWC", "NCHW"}) {
    const bool nchw = std::string(format) == "NCHW";
    const TensorShape x_shape =
        nchw ? TensorShape({4, 6, 5, 7}) : TensorShape({4, 5, 7, 6});
    const Tensor x = RandomFloats(x_shape, 70, -3, 5);
    const Tensor scale = RandomFloats(TensorShape({6}), 71, 0.5f, 2);
    const Tensor offset = RandomFloats(TensorShape({6}), 72);
    const Tensor mean = RandomFloats(TensorShape({6}), 73);
    const Tensor var = RandomFloats(TensorShape({6}), 74, 0.5f, 2);
    for (bool training : {true, false}) {
      for (float factor : {1.0f, 0.25f}) {
        if (!training && factor != 1.0f) continue;
        INFO(format << (training ? " training" : " inference")
                    << " factor " << factor);
        const std::map<std::string, AttrValue> attrs = {
            {"T", TypeAttr(DT_FLOAT)},
            {"U", TypeAttr(DT_FLOAT)},
            {"epsilon", [] {
               AttrValue v;
               v.set_f(1e-3f);
               return v;
             }()},
            {"exponential_avg_factor", [factor] {
               AttrValue v;
               v.set_f(factor);
               return v;
             }()},
            {"data_format", StringAttr(format)},
            {"is_training", BoolAttr(training)}};
        auto forward = OnGpuAndCpu("FusedBatchNormV3",
                                   {x, scale, offset, mean, var}, attrs, 6);
        CheckSame(forward, 1e-5);
        REQUIRE_OK(forward);
        if (factor != 1.0f || (nchw && !training)) continue;
        std::map<std::string, AttrValue> grad_attrs = attrs;
        grad_attrs.erase("exponential_avg_factor");
        const Tensor dy = RandomFloats(x_shape, 75);
        // The saved statistics (reserve spaces 1 and 2) of the CPU's run.
        CheckSame(OnGpuAndCpu("FusedBatchNormGradV3",
                              {dy, x, scale, forward->cpu[3],
                               forward->cpu[4], forward->cpu[5]},
                              grad_attrs, 3),
                  1e-4);
      }
    }
  }
}

// `f` (float) as a float16 or bfloat16 tensor.
Tensor As16Bit(const Tensor& f, DataType t) {
  Tensor out(t, f.shape());
  for (int64_t i = 0; i < f.NumElements(); ++i) {
    if (t == DT_HALF) {
      out.data<Eigen::half>()[i] = Eigen::half(f.data<float>()[i]);
    } else {
      out.data<Eigen::bfloat16>()[i] = Eigen::bfloat16(f.data<float>()[i]);
    }
  }
  return out;
}

TEST_CASE("gpu kernels: float16 and bfloat16 element-wise ops, BiasAdd, "
          "BiasAddGrad and reductions compute in float as the CPU kernels "
          "do", "[gpu]") {
  if (!HaveGpu()) return;
  for (DataType t : {DT_HALF, DT_BFLOAT16}) {
    // One rounding of a float result: half and bfloat16 ulps.
    const double tolerance = t == DT_HALF ? 2e-3 : 1.6e-2;
    const Tensor x = As16Bit(RandomFloats(TensorShape({6, 37}), 80, -3, 3), t);
    const Tensor y = As16Bit(RandomFloats(TensorShape({37}), 81, -3, 3), t);
    for (const char* op : {"Relu", "Tanh", "Exp", "Sigmoid", "Square"}) {
      INFO(op << " " << DataTypeString(t));
      CheckSame(OnGpuAndCpu(op, {x}, {{"T", TypeAttr(t)}}), tolerance);
    }
    for (const char* op : {"AddV2", "Mul", "Maximum", "RealDiv"}) {
      INFO(op << " " << DataTypeString(t));
      CheckSame(OnGpuAndCpu(op, {x, y}, {{"T", TypeAttr(t)}}), tolerance);
    }
    INFO(DataTypeString(t));
    CheckSame(OnGpuAndCpu("BiasAdd", {x, y},
                          {{"T", TypeAttr(t)},
                           {"data_format", StringAttr("NHWC")}}),
              tolerance);
    CheckSame(OnGpuAndCpu("BiasAddGrad", {x},
                          {{"T", TypeAttr(t)},
                           {"data_format", StringAttr("NHWC")}}),
              tolerance);
    for (const char* op : {"Sum", "Mean", "Max"}) {
      INFO(op);
      CheckSame(OnGpuAndCpu(op, {x, Ints<int32_t>({0})},
                            {{"T", TypeAttr(t)},
                             {"Tidx", TypeAttr(DT_INT32)},
                             {"keep_dims", BoolAttr(false)}}),
                tolerance);
      CheckSame(OnGpuAndCpu(op, {x, Ints<int32_t>({1})},
                            {{"T", TypeAttr(t)},
                             {"Tidx", TypeAttr(DT_INT32)},
                             {"keep_dims", BoolAttr(true)}}),
                tolerance);
    }
  }
}

// `op` (a ResourceApply* update) applied `steps` times to variables on
// `device`, from the same initial values and gradient; the variables'
// final values.
absl::StatusOr<std::vector<Tensor>> ApplyUpdates(
    const std::string& device, const std::string& op, int num_vars,
    const std::vector<float>& scalars, bool nesterov, int steps) {
  GraphDef g;
  auto node = [&](const std::string& name, const std::string& type,
                  std::vector<std::string> inputs) {
    NodeDef* n = g.add_node();
    n->set_name(name);
    n->set_op(type);
    n->set_device(device);
    for (auto& in : inputs) n->add_input(std::move(in));
    return n;
  };
  const TensorShape shape({17, 9});
  std::vector<std::string> update_inputs, init_ops, reads;
  for (int v = 0; v < num_vars; ++v) {
    const std::string var = absl::StrCat("var", v);
    NodeDef* h = node(var, "VarHandleOp", {});
    (*h->mutable_attr())["dtype"] = TypeAttr(DT_FLOAT);
    shape.AsProto((*h->mutable_attr())["shape"].mutable_shape());
    (*h->mutable_attr())["shared_name"].set_s(var);
    (*h->mutable_attr())["container"].set_s("");
    NodeDef* c = node(var + "/init_value", "Const", {});
    (*c->mutable_attr())["dtype"] = TypeAttr(DT_FLOAT);
    // m and v of Adam start non-negative.
    RandomFloats(shape, 20 + v, v == 0 ? -1.0f : 0.0f, 1.0f)
        .AsProtoTensorContent((*c->mutable_attr())["value"].mutable_tensor());
    NodeDef* a = node(var + "/init", "AssignVariableOp", {var, var + "/init_value"});
    (*a->mutable_attr())["dtype"] = TypeAttr(DT_FLOAT);
    NodeDef* r = node(var + "/read", "ReadVariableOp", {var});
    (*r->mutable_attr())["dtype"] = TypeAttr(DT_FLOAT);
    update_inputs.push_back(var);
    init_ops.push_back(var + "/init");
    reads.push_back(var + "/read");
  }
  for (size_t i = 0; i < scalars.size(); ++i) {
    const std::string name = absl::StrCat("scalar", i);
    NodeDef* c = node(name, "Const", {});
    (*c->mutable_attr())["dtype"] = TypeAttr(DT_FLOAT);
    Tensor::Scalar<float>(scalars[i])
        .AsProtoTensorContent((*c->mutable_attr())["value"].mutable_tensor());
    update_inputs.push_back(name);
  }
  NodeDef* grad = node("grad", "Const", {});
  (*grad->mutable_attr())["dtype"] = TypeAttr(DT_FLOAT);
  RandomFloats(shape, 30).AsProtoTensorContent(
      (*grad->mutable_attr())["value"].mutable_tensor());
  // The gradient's place: after lr for Momentum (var, accum, lr, grad,
  // momentum), last for the others.
  if (op == "ResourceApplyMomentum" || op == "ResourceApplyKerasMomentum") {
    update_inputs.insert(update_inputs.begin() + num_vars + 1, "grad");
  } else {
    update_inputs.push_back("grad");
  }
  NodeDef* update = node("update", op, update_inputs);
  (*update->mutable_attr())["T"] = TypeAttr(DT_FLOAT);
  (*update->mutable_attr())["use_locking"].set_b(false);
  if (op != "ResourceApplyGradientDescent") {
    (*update->mutable_attr())["use_nesterov"].set_b(nesterov);
  }
  auto session = Session::Create("local", SessionOptions());
  DFX_RETURN_IF_ERROR(session.status());
  DFX_RETURN_IF_ERROR((*session)->Extend(g));
  std::vector<Tensor> out;
  DFX_RETURN_IF_ERROR((*session)->Run({}, {}, init_ops, &out));
  for (int i = 0; i < steps; ++i) {
    // Fetching the variables' values while updating: the update must not
    // change a value already read (copy-on-write of the GPU buffer).
    DFX_RETURN_IF_ERROR((*session)->Run({}, reads, {"update"}, &out));
  }
  DFX_RETURN_IF_ERROR((*session)->Run({}, reads, {}, &out));
  return out;
}

TEST_CASE("gpu kernels: GradientDescent, Momentum, KerasMomentum and Adam "
          "update variables in GPU memory as the CPU kernels do", "[gpu]") {
  if (!HaveGpu()) return;
  const struct {
    const char* op;
    int num_vars;
    std::vector<float> scalars;
  } kCases[] = {
      {"ResourceApplyGradientDescent", 1, {0.1f}},
      {"ResourceApplyMomentum", 2, {0.05f, 0.9f}},
      {"ResourceApplyKerasMomentum", 2, {0.05f, 0.9f}},
      {"ResourceApplyAdam", 3, {0.9f, 0.999f, 0.01f, 0.9f, 0.999f, 1e-7f}},
  };
  for (const auto& c : kCases) {
    for (bool nesterov : {false, true}) {
      if (nesterov && c.num_vars == 1) continue;
      INFO(c.op << (nesterov ? " nesterov" : ""));
      auto on_gpu = ApplyUpdates(kGpu, c.op, c.num_vars, c.scalars, nesterov, 5);
      auto on_cpu = ApplyUpdates(kCpu, c.op, c.num_vars, c.scalars, nesterov, 5);
      REQUIRE_OK(on_gpu);
      REQUIRE_OK(on_cpu);
      for (int v = 0; v < c.num_vars; ++v) {
        INFO("variable " << v);
        CHECK(MaxRelativeError((*on_gpu)[v], (*on_cpu)[v]) < 1e-5);
      }
    }
  }
}

// `f` (float) in `t`: float, double, half, bfloat16, int64 (rounded) or
// bool (f > 0).
Tensor Convert(const Tensor& f, DataType t) {
  if (t == DT_HALF || t == DT_BFLOAT16) return As16Bit(f, t);
  Tensor out(t, f.shape());
  for (int64_t i = 0; i < f.NumElements(); ++i) {
    const float v = f.data<float>()[i];
    switch (t) {
      case DT_FLOAT:
        out.data<float>()[i] = v;
        break;
      case DT_DOUBLE:
        out.data<double>()[i] = v;
        break;
      case DT_INT64:
        out.data<int64_t>()[i] = std::lround(v * 10);
        break;
      case DT_BOOL:
        out.data<bool>()[i] = v > 0;
        break;
      default:
        FAIL("dtype " << DataTypeString(t));
    }
  }
  return out;
}

// The node `op` run alone on `device` over fed inputs (placeholders on the
// CPU): its first output, or the step's error.
absl::StatusOr<Tensor> OnDevice(const std::string& device,
                                const std::string& op,
                                const std::vector<Tensor>& inputs,
                                const std::map<std::string, AttrValue>& attrs) {
  GraphDef g;
  std::vector<std::pair<std::string, Tensor>> feeds;
  NodeDef n;
  n.set_name("node");
  n.set_op(op);
  n.set_device(device);
  for (size_t i = 0; i < inputs.size(); ++i) {
    NodeDef* p = g.add_node();
    p->set_name(absl::StrCat("in", i));
    p->set_op("Placeholder");
    p->set_device(kCpu);
    (*p->mutable_attr())["dtype"] = TypeAttr(inputs[i].dtype());
    feeds.emplace_back(p->name(), inputs[i]);
    n.add_input(p->name());
  }
  for (const auto& [k, v] : attrs) (*n.mutable_attr())[k] = v;
  *g.add_node() = n;
  auto session = Session::Create("local", SessionOptions());
  DFX_RETURN_IF_ERROR(session.status());
  DFX_RETURN_IF_ERROR((*session)->Extend(g));
  std::vector<Tensor> out;
  DFX_RETURN_IF_ERROR((*session)->Run(feeds, {"node:0"}, {}, &out));
  return out[0];
}

// Both devices fail alike: the same code, and the CPU's message within
// the GPU's.
void CheckSameError(const std::string& op, const std::vector<Tensor>& inputs,
                    const std::map<std::string, AttrValue>& attrs) {
  const absl::StatusOr<Tensor> gpu = OnDevice(kGpu, op, inputs, attrs);
  const absl::StatusOr<Tensor> cpu = OnDevice(kCpu, op, inputs, attrs);
  REQUIRE(!cpu.ok());
  INFO("CPU: " << cpu.status() << "\nGPU: " << gpu.status());
  REQUIRE(!gpu.ok());
  CHECK(gpu.status().code() == cpu.status().code());
  const std::string cpu_message(cpu.status().message());
  // The kernel's own words: after the node's name the runtime prefixes.
  const std::string tail = cpu_message.substr(cpu_message.rfind(": ") + 2);
  CHECK(std::string(gpu.status().message()).find(tail) != std::string::npos);
}

// NHWC <-> NCHW on the host, for any dtype.
Tensor Transposed4(const Tensor& t, bool to_nchw) {
  const int64_t n = t.dim_size(0);
  const int64_t h = to_nchw ? t.dim_size(1) : t.dim_size(2);
  const int64_t w = to_nchw ? t.dim_size(2) : t.dim_size(3);
  const int64_t c = to_nchw ? t.dim_size(3) : t.dim_size(1);
  Tensor out(t.dtype(),
             to_nchw ? TensorShape({n, c, h, w}) : TensorShape({n, h, w, c}));
  const int64_t e = DataTypeSize(t.dtype());
  const char* from = static_cast<const char*>(t.raw_data());
  char* to = static_cast<char*>(out.raw_data());
  for (int64_t i = 0; i < n; ++i)
    for (int64_t y = 0; y < h; ++y)
      for (int64_t x = 0; x < w; ++x)
        for (int64_t k = 0; k < c; ++k) {
          const int64_t nhwc = ((i * h + y) * w + x) * c + k;
          const int64_t nchw = ((i * c + k) * h + y) * w + x;
          std::memcpy(to + (to_nchw ? nchw : nhwc) * e,
                      from + (to_nchw ? nhwc : nchw) * e, e);
        }
  return out;
}

std::vector<int32_t> Dims32(const TensorShape& s) {
  std::vector<int32_t> d;
  for (int i = 0; i < s.dims(); ++i) {
    d.push_back(static_cast<int32_t>(s.dim_size(i)));
  }
  return d;
}

// DepthwiseConv2dNative and its gradients on the GPU against the CPU
// kernels for `types`: multipliers, strides, every padding, an empty
// batch, and NCHW (float32) against the NHWC results transposed.
void CheckDepthwiseKernels(const std::vector<DataType>& types) {
  const struct {
    TensorShape input, filter;  // filter [KH, KW, C, M]
    int64_t stride;
    const char* padding;
    std::vector<int64_t> explicit_pads;
  } kCases[] = {
      {TensorShape({2, 9, 9, 3}), TensorShape({3, 3, 3, 1}), 1, "SAME", {}},
      {TensorShape({1, 10, 11, 4}), TensorShape({3, 3, 4, 2}), 2, "SAME", {}},
      {TensorShape({2, 8, 8, 6}), TensorShape({5, 5, 6, 1}), 2, "VALID", {}},
      {TensorShape({1, 7, 7, 2}), TensorShape({2, 2, 2, 3}), 3, "SAME", {}},
      {TensorShape({2, 8, 8, 5}), TensorShape({2, 2, 5, 1}), 1, "SAME", {}},
      {TensorShape({1, 6, 7, 3}),
       TensorShape({3, 3, 3, 2}),
       1,
       "EXPLICIT",
       {0, 0, 1, 2, 0, 1, 0, 0}},
      {TensorShape({0, 5, 5, 2}), TensorShape({3, 3, 2, 1}), 1, "SAME", {}},
  };
  for (const auto& c : kCases) {
    for (DataType t : types) {
      INFO(c.input.DebugString()
           << " filter " << c.filter.DebugString() << " stride " << c.stride
           << " " << c.padding << " " << DataTypeString(t));
      // Sums of a few products rounded once (float: cuDNN's order).
      const double tolerance = t == DT_DOUBLE  ? 1e-9
                               : t == DT_FLOAT ? 1e-4
                               : t == DT_HALF  ? 4e-3
                                               : 3e-2;
      std::map<std::string, AttrValue> attrs = {
          {"T", TypeAttr(t)},
          {"strides", IntsAttr({1, c.stride, c.stride, 1})},
          {"padding", StringAttr(c.padding)},
          {"data_format", StringAttr("NHWC")},
          {"explicit_paddings", IntsAttr(c.explicit_pads)}};
      const Tensor input = Convert(RandomFloats(c.input, 90), t);
      const Tensor filter = Convert(RandomFloats(c.filter, 91), t);
      auto forward =
          OnGpuAndCpu("DepthwiseConv2dNative", {input, filter}, attrs);
      CheckSame(forward, tolerance);
      REQUIRE_OK(forward);
      const Tensor dy = Convert(RandomFloats(forward->cpu[0].shape(), 92), t);
      auto dx =
          OnGpuAndCpu("DepthwiseConv2dNativeBackpropInput",
                      {Ints<int32_t>(Dims32(c.input)), filter, dy}, attrs);
      CheckSame(dx, tolerance);
      auto dw =
          OnGpuAndCpu("DepthwiseConv2dNativeBackpropFilter",
                      {input, Ints<int32_t>(Dims32(c.filter)), dy}, attrs);
      // The filter's gradient sums over the batch and every position.
      CheckSame(dw, t == DT_FLOAT ? 1e-4 : 4 * tolerance);
      if (t != DT_FLOAT || !c.explicit_pads.empty()) continue;
      // NCHW on the GPU (TensorFlow's CPU kernel has none): the NHWC
      // results, transposed.
      REQUIRE_OK(dx);
      REQUIRE_OK(dw);
      attrs["data_format"] = StringAttr("NCHW");
      attrs["strides"] = IntsAttr({1, 1, c.stride, c.stride});
      const Tensor x_nchw = Transposed4(input, true);
      const Tensor dy_nchw = Transposed4(dy, true);
      auto y = OnDevice(kGpu, "DepthwiseConv2dNative", {x_nchw, filter}, attrs);
      REQUIRE_OK(y);
      CHECK(MaxRelativeError(*y, Transposed4(forward->cpu[0], true)) <=
            tolerance);
      auto dx_nchw = OnDevice(
          kGpu, "DepthwiseConv2dNativeBackpropInput",
          {Ints<int32_t>(Dims32(x_nchw.shape())), filter, dy_nchw}, attrs);
      REQUIRE_OK(dx_nchw);
      CHECK(MaxRelativeError(*dx_nchw, Transposed4(dx->cpu[0], true)) <=
            tolerance);
      auto dw_nchw =
          OnDevice(kGpu, "DepthwiseConv2dNativeBackpropFilter",
                   {x_nchw, Ints<int32_t>(Dims32(c.filter)), dy_nchw}, attrs);
      REQUIRE_OK(dw_nchw);
      CHECK(MaxRelativeError(*dw_nchw, dw->cpu[0]) <= tolerance);
    }
  }
}

// DFX_GPU_DEPTHWISE_DIRECT set while it lives (kernels built meanwhile
// read it).
class DirectDepthwise {
 public:
  DirectDepthwise() { setenv("DFX_GPU_DEPTHWISE_DIRECT", "1", 1); }
  ~DirectDepthwise() { unsetenv("DFX_GPU_DEPTHWISE_DIRECT"); }
};

TEST_CASE(
    "gpu kernels: DepthwiseConv2dNative and its gradients on cuDNN "
    "give the CPU kernels' numbers: multipliers, strides, every "
    "padding, float16, bfloat16, float64 (direct kernels), NCHW, empty "
    "batches",
    "[gpu]") {
  if (!HaveGpu()) return;
  CheckDepthwiseKernels({DT_FLOAT, DT_HALF, DT_BFLOAT16, DT_DOUBLE});
  // TensorFlow's depthwise checks, on both devices alike.
  const Tensor x = RandomFloats(TensorShape({1, 6, 6, 2}), 93);
  const Tensor w = RandomFloats(TensorShape({3, 3, 2, 1}), 94);
  const std::map<std::string, AttrValue> base = {
      {"T", TypeAttr(DT_FLOAT)},
      {"strides", IntsAttr({1, 1, 1, 1})},
      {"padding", StringAttr("SAME")},
      {"data_format", StringAttr("NHWC")}};
  auto dilated = base;
  dilated["dilations"] = IntsAttr({1, 2, 2, 1});
  CheckSameError("DepthwiseConv2dNative", {x, w}, dilated);
  auto uneven = base;
  uneven["strides"] = IntsAttr({1, 1, 2, 1});
  CheckSameError("DepthwiseConv2dNative", {x, w}, uneven);
  CheckSameError("DepthwiseConv2dNative",
                 {x, RandomFloats(TensorShape({3, 3, 3, 1}), 95)}, base);
  CheckSameError(
      "DepthwiseConv2dNativeBackpropInput",
      {Ints<int32_t>({6, 6}), w, RandomFloats(TensorShape({1, 6, 6, 2}), 96)},
      base);
}

TEST_CASE(
    "gpu kernels: the direct depthwise kernels (DFX_GPU_DEPTHWISE_DIRECT=1) "
    "give the CPU kernels' numbers",
    "[gpu]") {
  if (!HaveGpu()) return;
  DirectDepthwise direct;
  CheckDepthwiseKernels({DT_FLOAT, DT_HALF, DT_BFLOAT16});
}

AttrValue MaskAttr(int64_t m) { return IntAttr(m); }

TEST_CASE(
    "gpu kernels: Tile, Slice, StridedSlice and StridedSliceGrad move "
    "every device dtype as the CPU kernels do, and fail with their "
    "errors",
    "[gpu]") {
  if (!HaveGpu()) return;
  const Tensor source = RandomFloats(TensorShape({4, 5, 6}), 100);
  struct Strided {
    std::vector<int32_t> begin, end, strides;
    int64_t begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_mask;
  };
  const Strided kStrided[] = {
      {{0, 0, 0}, {4, 5, 6}, {1, 2, 3}, 0, 0, 0, 0, 0},
      {{3, 4, 5}, {0, 0, 0}, {-1, -2, -1}, 0, 7, 0, 0, 0},  // reversed
      {{-1, 1, 0}, {0, 4, 6}, {-2, 1, 2}, 0, 1, 0, 0, 0},
      {{1, 2}, {2, 3}, {1, 1}, 0, 0, 0, 0, 3},           // shrink
      {{0, 0, 1}, {0, 2, 5}, {1, 1, 2}, 0, 0, 0, 1, 0},  // new axis
      {{0, 1}, {0, 3}, {1, 1}, 0, 0, 1, 0, 0},           // x[..., 1:3]
      {{1}, {3}, {1}, 0, 0, 0, 0, 0},                    // rows: a view
      {{3}, {1}, {1}, 0, 0, 0, 0, 0},                    // empty
  };
  for (DataType t :
       {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16, DT_INT64, DT_BOOL}) {
    const Tensor x = Convert(source, t);
    for (const std::vector<int32_t>& m :
         {std::vector<int32_t>{2, 1, 3}, {1, 1, 1}, {0, 2, 1}, {1, 3, 1}}) {
      INFO("Tile " << m[0] << m[1] << m[2] << " " << DataTypeString(t));
      CheckSame(
          OnGpuAndCpu("Tile", {x, Ints<int32_t>(m)},
                      {{"T", TypeAttr(t)}, {"Tmultiples", TypeAttr(DT_INT32)}}),
          0);
    }
    CheckSame(
        OnGpuAndCpu("Tile", {x, Ints<int64_t>({1, 2, 2})},
                    {{"T", TypeAttr(t)}, {"Tmultiples", TypeAttr(DT_INT64)}}),
        0);
    const struct {
      std::vector<int64_t> begin, size;
    } kSlices[] = {
        {{1, 0, 2}, {2, -1, 3}},
        {{1, 0, 0}, {2, 5, 6}},    // whole rows at an unaligned offset
        {{0, 0, 0}, {2, -1, -1}},  // whole rows at the start: a view
        {{0, 0, 0}, {4, 5, 6}},    // the input itself
        {{3, 2, 1}, {1, 0, 2}},    // empty
    };
    for (const auto& s : kSlices) {
      INFO("Slice " << s.begin[0] << s.begin[1] << s.begin[2] << " "
                    << DataTypeString(t));
      CheckSame(OnGpuAndCpu(
                    "Slice", {x, Ints<int64_t>(s.begin), Ints<int64_t>(s.size)},
                    {{"T", TypeAttr(t)}, {"Index", TypeAttr(DT_INT64)}}),
                0);
    }
    for (size_t k = 0; k < std::size(kStrided); ++k) {
      const Strided& s = kStrided[k];
      INFO("StridedSlice case " << k << " " << DataTypeString(t));
      const std::map<std::string, AttrValue> attrs = {
          {"T", TypeAttr(t)},
          {"Index", TypeAttr(DT_INT32)},
          {"begin_mask", MaskAttr(s.begin_mask)},
          {"end_mask", MaskAttr(s.end_mask)},
          {"ellipsis_mask", MaskAttr(s.ellipsis_mask)},
          {"new_axis_mask", MaskAttr(s.new_axis_mask)},
          {"shrink_axis_mask", MaskAttr(s.shrink_mask)}};
      auto sliced =
          OnGpuAndCpu("StridedSlice",
                      {x, Ints<int32_t>(s.begin), Ints<int32_t>(s.end),
                       Ints<int32_t>(s.strides)},
                      attrs);
      CheckSame(sliced, 0);
      REQUIRE_OK(sliced);
      const Tensor dy = Convert(RandomFloats(sliced->cpu[0].shape(), 101), t);
      CheckSame(
          OnGpuAndCpu("StridedSliceGrad",
                      {Ints<int32_t>({4, 5, 6}), Ints<int32_t>(s.begin),
                       Ints<int32_t>(s.end), Ints<int32_t>(s.strides), dy},
                      attrs),
          0);
    }
  }
  // Rank 6 tiled by 2 everywhere: 12 dims walked by the copy.
  const Tensor big = RandomFloats(TensorShape({2, 3, 2, 3, 2, 3}), 102);
  CheckSame(OnGpuAndCpu("Tile", {big, Ints<int32_t>({2, 2, 2, 2, 2, 2})},
                        {{"T", TypeAttr(DT_FLOAT)},
                         {"Tmultiples", TypeAttr(DT_INT32)}}),
            0);
  // The CPU kernels' errors.
  const std::map<std::string, AttrValue> tile = {
      {"T", TypeAttr(DT_FLOAT)}, {"Tmultiples", TypeAttr(DT_INT32)}};
  CheckSameError("Tile", {source, Ints<int32_t>({1, -1, 1})}, tile);
  CheckSameError("Tile", {source, Ints<int32_t>({1, 1})}, tile);
  const std::map<std::string, AttrValue> slice = {
      {"T", TypeAttr(DT_FLOAT)}, {"Index", TypeAttr(DT_INT32)}};
  CheckSameError("Slice",
                 {source, Ints<int32_t>({0, 6, 0}), Ints<int32_t>({1, 1, 1})},
                 slice);
  CheckSameError("Slice",
                 {source, Ints<int32_t>({0, 1, 0}), Ints<int32_t>({1, 5, 1})},
                 slice);
  std::map<std::string, AttrValue> strided = slice;
  for (const char* mask : {"begin_mask", "end_mask", "ellipsis_mask",
                           "new_axis_mask", "shrink_axis_mask"}) {
    strided[mask] = MaskAttr(0);
  }
  CheckSameError("StridedSlice",
                 {source, Ints<int32_t>({0, 0, 0}), Ints<int32_t>({1, 1, 1}),
                  Ints<int32_t>({1, 0, 1})},
                 strided);
  strided["shrink_axis_mask"] = MaskAttr(1);
  CheckSameError(
      "StridedSlice",
      {source, Ints<int32_t>({7}), Ints<int32_t>({8}), Ints<int32_t>({1})},
      strided);
  CheckSameError(
      "StridedSliceGrad",
      {Ints<int32_t>({4, 5, 6}), Ints<int32_t>({0}), Ints<int32_t>({2}),
       Ints<int32_t>({1}), RandomFloats(TensorShape({3, 5, 6}), 103)},
      strided);
}

TEST_CASE(
    "gpu kernels: Relu6 and Relu6Grad give the CPU kernels' values, "
    "NaN passing through Relu6",
    "[gpu]") {
  if (!HaveGpu()) return;
  Tensor x = RandomFloats(TensorShape({7, 9}), 104, -3, 9);
  x.data<float>()[5] = std::nanf("");
  x.data<float>()[6] = 6;
  x.data<float>()[7] = 0;
  for (DataType t : {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16}) {
    INFO(DataTypeString(t));
    const Tensor xt = Convert(x, t);
    CheckSame(OnGpuAndCpu("Relu6", {xt}, {{"T", TypeAttr(t)}}), 0);
    CheckSame(
        OnGpuAndCpu("Relu6Grad", {Convert(RandomFloats(x.shape(), 105), t), xt},
                    {{"T", TypeAttr(t)}}),
        0);
  }
}

// One rounding of a float result, in half or bfloat16 (float: float's).
double SixteenBitTolerance(DataType t) {
  return t == DT_HALF ? 2e-3 : t == DT_BFLOAT16 ? 1.6e-2 : 1e-5;
}

TEST_CASE(
    "gpu kernels: Softmax, LogSoftmax and the cross-entropies in "
    "float16 and bfloat16 compute in float as the CPU kernels do",
    "[gpu]") {
  if (!HaveGpu()) return;
  for (DataType t : {DT_HALF, DT_BFLOAT16}) {
    INFO(DataTypeString(t));
    const double tolerance = SixteenBitTolerance(t);
    const Tensor logits =
        Convert(RandomFloats(TensorShape({33, 1000}), 110, -20, 20), t);
    for (const char* op : {"Softmax", "LogSoftmax"}) {
      INFO(op);
      CheckSame(OnGpuAndCpu(op, {logits}, {{"T", TypeAttr(t)}}), tolerance);
    }
    const Tensor labels =
        Convert(RandomFloats(TensorShape({33, 1000}), 111, 0, 1), t);
    CheckSame(OnGpuAndCpu("SoftmaxCrossEntropyWithLogits", {logits, labels},
                          {{"T", TypeAttr(t)}}, 2),
              tolerance);
    std::vector<int64_t> ids(33);
    for (size_t i = 0; i < ids.size(); ++i) ids[i] = (i * 37) % 1000;
    CheckSame(
        OnGpuAndCpu("SparseSoftmaxCrossEntropyWithLogits",
                    {logits, Ints<int64_t>(ids)},
                    {{"T", TypeAttr(t)}, {"Tlabels", TypeAttr(DT_INT64)}}, 2),
        tolerance);
  }
}

TEST_CASE(
    "gpu kernels: pooling in NCHW and in float16 and bfloat16, and "
    "MaxPoolV2, give the CPU kernels' numbers",
    "[gpu]") {
  if (!HaveGpu()) return;
  const struct {
    int64_t window, stride;
    const char* padding;
  } kCases[] = {{3, 2, "SAME"}, {2, 2, "VALID"}, {2, 3, "SAME"}};
  for (DataType t : {DT_FLOAT, DT_HALF, DT_BFLOAT16}) {
    const double tolerance = SixteenBitTolerance(t);
    const Tensor x = Convert(RandomFloats(TensorShape({2, 9, 10, 3}), 112), t);
    const Tensor x_nchw = Transposed4(x, true);
    for (const auto& c : kCases) {
      INFO(DataTypeString(t) << " window " << c.window << " stride " << c.stride
                             << " " << c.padding);
      std::map<std::string, AttrValue> attrs = {
          {"T", TypeAttr(t)},
          {"ksize", IntsAttr({1, c.window, c.window, 1})},
          {"strides", IntsAttr({1, c.stride, c.stride, 1})},
          {"padding", StringAttr(c.padding)},
          {"data_format", StringAttr("NHWC")}};
      auto max = OnGpuAndCpu("MaxPool", {x}, attrs);
      CheckSame(max, 0);
      auto avg = OnGpuAndCpu("AvgPool", {x}, attrs);
      CheckSame(avg, tolerance);
      REQUIRE_OK(max);
      REQUIRE_OK(avg);
      const Tensor dy = Convert(RandomFloats(max->cpu[0].shape(), 113), t);
      auto max_grad = OnGpuAndCpu("MaxPoolGrad", {x, max->cpu[0], dy}, attrs);
      CheckSame(max_grad, tolerance);
      auto avg_grad =
          OnGpuAndCpu("AvgPoolGrad", {Ints<int32_t>({2, 9, 10, 3}), dy}, attrs);
      CheckSame(avg_grad, tolerance);
      REQUIRE_OK(max_grad);
      REQUIRE_OK(avg_grad);
      // MaxPoolV2: the window as host-memory inputs.
      std::map<std::string, AttrValue> v2 = {
          {"T", TypeAttr(t)},
          {"padding", StringAttr(c.padding)},
          {"data_format", StringAttr("NHWC")}};
      auto max_v2 =
          OnDevice(kGpu, "MaxPoolV2",
                   {x,
                    Ints<int32_t>({1, static_cast<int32_t>(c.window),
                                   static_cast<int32_t>(c.window), 1}),
                    Ints<int32_t>({1, static_cast<int32_t>(c.stride),
                                   static_cast<int32_t>(c.stride), 1})},
                   v2);
      REQUIRE_OK(max_v2);
      CHECK(MaxRelativeError(*max_v2, max->cpu[0]) == 0);
      // NCHW on the GPU (the CPU kernels have none): the NHWC results,
      // transposed.
      attrs["data_format"] = StringAttr("NCHW");
      attrs["ksize"] = IntsAttr({1, 1, c.window, c.window});
      attrs["strides"] = IntsAttr({1, 1, c.stride, c.stride});
      const Tensor y_nchw = Transposed4(max->cpu[0], true);
      const Tensor dy_nchw = Transposed4(dy, true);
      auto m = OnDevice(kGpu, "MaxPool", {x_nchw}, attrs);
      REQUIRE_OK(m);
      CHECK(MaxRelativeError(*m, y_nchw) == 0);
      auto a = OnDevice(kGpu, "AvgPool", {x_nchw}, attrs);
      REQUIRE_OK(a);
      CHECK(MaxRelativeError(*a, Transposed4(avg->cpu[0], true)) <= tolerance);
      auto mg = OnDevice(kGpu, "MaxPoolGrad", {x_nchw, y_nchw, dy_nchw}, attrs);
      REQUIRE_OK(mg);
      CHECK(MaxRelativeError(*mg, Transposed4(max_grad->cpu[0], true)) <=
            tolerance);
      auto ag = OnDevice(kGpu, "AvgPoolGrad",
                         {Ints<int32_t>({2, 3, 9, 10}), dy_nchw}, attrs);
      REQUIRE_OK(ag);
      CHECK(MaxRelativeError(*ag, Transposed4(avg_grad->cpu[0], true)) <=
            tolerance);
    }
  }
}

TEST_CASE(
    "gpu kernels: FusedBatchNormV3 and its gradient in float16 and "
    "bfloat16 (float statistics) give the CPU kernels' numbers",
    "[gpu]") {
  if (!HaveGpu()) return;
  for (DataType t : {DT_HALF, DT_BFLOAT16}) {
    for (const char* format : {"NHWC", "NCHW"}) {
      const bool nchw = std::string(format) == "NCHW";
      const TensorShape x_shape =
          nchw ? TensorShape({4, 6, 5, 7}) : TensorShape({4, 5, 7, 6});
      const Tensor x = Convert(RandomFloats(x_shape, 114, -3, 5), t);
      const Tensor scale = RandomFloats(TensorShape({6}), 115, 0.5f, 2);
      const Tensor offset = RandomFloats(TensorShape({6}), 116);
      const Tensor mean = RandomFloats(TensorShape({6}), 117);
      const Tensor var = RandomFloats(TensorShape({6}), 118, 0.5f, 2);
      for (bool training : {true, false}) {
        INFO(DataTypeString(t)
             << " " << format << (training ? " training" : " inference"));
        // y is rounded to T once; the float statistics agree to float's
        // precision, within the same tolerance.
        const double tolerance = 2 * SixteenBitTolerance(t);
        const std::map<std::string, AttrValue> attrs = {
            {"T", TypeAttr(t)},
            {"U", TypeAttr(DT_FLOAT)},
            {"epsilon",
             [] {
               AttrValue v;
               v.set_f(1e-3f);
               return v;
             }()},
            {"data_format", StringAttr(format)},
            {"is_training", BoolAttr(training)}};
        auto forward = OnGpuAndCpu("FusedBatchNormV3",
                                   {x, scale, offset, mean, var}, attrs, 6);
        CheckSame(forward, tolerance);
        REQUIRE_OK(forward);
        // (The CPU's inference gradient is NHWC only, as TensorFlow's.)
        if (nchw && !training) continue;
        const Tensor dy = Convert(RandomFloats(x_shape, 119), t);
        CheckSame(OnGpuAndCpu("FusedBatchNormGradV3",
                              {dy, x, scale, forward->cpu[3], forward->cpu[4],
                               forward->cpu[5]},
                              attrs, 3),
                  // scale_grad sums 140 products per channel.
                  4 * tolerance);
      }
    }
  }
}

}  // namespace
}  // namespace dfx

// Graphs with GPU nodes in a local session (tagged [gpu]; without a GPU
// each test says "SKIPPED: no CUDA device visible"): MatMul on cuBLAS
// against the CPU kernel on the same inputs, tensors crossing between host
// and GPU memory through _Send/_Recv, GPU-to-GPU edges, placement's
// fallback for an op without a GPU kernel, and errors naming the node.
#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "catch2/catch.hpp"
#include "gpu/gpu_device.h"
#include "gpu/gpu_device_factory.h"
#include "gpu/kernels/gpu_kernels.h"
#include "graph/builder/ops.h"
#include "graph/builder/train.h"
#include "runtime/more_devices.h"
#include "runtime/session.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::StatusIs;

constexpr char kGpu[] = "/job:localhost/replica:0/task:0/device:GPU:0";

bool HaveGpu() {
  std::string why;
  if (gpu::VisibleGpuCount(&why) > 0) return true;
  WARN("SKIPPED: no CUDA device visible: " << why);
  return false;
}

NodeDef* AddNode(GraphDef* g, const std::string& name, const std::string& op,
                 std::vector<std::string> inputs, const std::string& device,
                 DataType t = DT_FLOAT) {
  NodeDef* n = g->add_node();
  n->set_name(name);
  n->set_op(op);
  n->set_device(device);
  for (auto& in : inputs) n->add_input(std::move(in));
  (*n->mutable_attr())[op == "Placeholder" ? "dtype" : "T"].set_type(t);
  return n;
}

NodeDef* AddMatMul(GraphDef* g, const std::string& name, const std::string& a,
                   const std::string& b, const std::string& device,
                   bool transpose_a = false, bool transpose_b = false,
                   DataType t = DT_FLOAT) {
  NodeDef* n = AddNode(g, name, "MatMul", {a, b}, device, t);
  (*n->mutable_attr())["transpose_a"].set_b(transpose_a);
  (*n->mutable_attr())["transpose_b"].set_b(transpose_b);
  return n;
}

void AddCast(GraphDef* g, const std::string& name, const std::string& x,
             DataType from, DataType to) {
  NodeDef* n = g->add_node();
  n->set_name(name);
  n->set_op("Cast");
  n->add_input(x);
  (*n->mutable_attr())["SrcT"].set_type(from);
  (*n->mutable_attr())["DstT"].set_type(to);
}

Tensor Random(int64_t rows, int64_t cols, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> u(-1, 1);
  Tensor t(DT_FLOAT, TensorShape({rows, cols}));
  for (float& v : t.span<float>()) v = u(gen);
  return t;
}

std::unique_ptr<Session> NewSession(bool soft_placement = false) {
  SessionOptions options;
  options.config.set_allow_soft_placement(soft_placement);
  auto s = Session::Create("local", options);
  DFX_CHECK_OK(s.status());
  return std::move(s).value();
}

// node name -> the device its step stats came from.
std::map<std::string, std::string> DevicesRun(const RunMetadata& metadata) {
  std::map<std::string, std::string> out;
  for (const auto& dev : metadata.step_stats().dev_stats()) {
    for (const auto& node : dev.node_stats()) {
      out[node.node_name()] = dev.device();
    }
  }
  return out;
}

// The largest |x - y| / (1 + |y|) over two float tensors of one shape.
double MaxRelativeError(const Tensor& x, const Tensor& y) {
  REQUIRE(x.shape() == y.shape());
  double worst = 0;
  for (int64_t i = 0; i < x.NumElements(); ++i) {
    const double a = x.data<float>()[i], b = y.data<float>()[i];
    worst = std::max(worst, std::abs(a - b) / (1 + std::abs(b)));
  }
  return worst;
}

TEST_CASE("gpu session: MatMul on a GPU gives the CPU kernel's numbers, with "
          "every transpose and inputs fed from the host", "[gpu]") {
  if (!HaveGpu()) return;
  struct Case {
    int64_t m, k, n;
    bool ta, tb;
  };
  for (const Case& c : {Case{1, 1, 1, false, false},
                        Case{64, 32, 16, false, false},
                        Case{257, 129, 65, true, false},
                        Case{100, 300, 7, false, true},
                        Case{33, 1000, 17, true, true}}) {
    INFO(c.m << "x" << c.k << "x" << c.n << " ta=" << c.ta << " tb=" << c.tb);
    GraphDef g;
    AddNode(&g, "a", "Placeholder", {}, "");
    AddNode(&g, "b", "Placeholder", {}, "");
    AddMatMul(&g, "mm_gpu", "a", "b", kGpu, c.ta, c.tb);
    AddMatMul(&g, "mm_cpu", "a", "b", "/device:CPU:0", c.ta, c.tb);
    auto session = NewSession();
    REQUIRE_OK(session->Extend(g));
    const Tensor a = c.ta ? Random(c.k, c.m, 1) : Random(c.m, c.k, 1);
    const Tensor b = c.tb ? Random(c.n, c.k, 2) : Random(c.k, c.n, 2);
    RunOptions options;
    options.set_trace_level(RunOptions::FULL_TRACE);
    RunMetadata metadata;
    std::vector<Tensor> out;
    REQUIRE_OK(session->Run(options, {{"a", a}, {"b", b}},
                            {"mm_gpu", "mm_cpu"}, {}, &out, &metadata));
    REQUIRE(out.size() == 2);
    CHECK(out[0].shape() == TensorShape({c.m, c.n}));
    // Both sum k products in float, in different orders.
    CHECK(MaxRelativeError(out[0], out[1]) < 1e-5 * std::sqrt(c.k) + 1e-6);
    const auto ran = DevicesRun(metadata);
    CHECK(ran.at("mm_gpu") == kGpu);
    CHECK(ran.at("mm_cpu") == "/job:localhost/replica:0/task:0/device:CPU:0");
  }
}

TEST_CASE("gpu session: TF32 is off by default and changes float32 "
          "products only within its precision when turned on", "[gpu]") {
  if (!HaveGpu()) return;
  REQUIRE_FALSE(gpu::TensorFloat32ExecutionEnabled());
  GraphDef g;
  AddNode(&g, "a", "Placeholder", {}, "");
  AddNode(&g, "b", "Placeholder", {}, "");
  AddMatMul(&g, "mm_gpu", "a", "b", kGpu);
  AddMatMul(&g, "mm_cpu", "a", "b", "/device:CPU:0");
  auto session = NewSession();
  REQUIRE_OK(session->Extend(g));
  const Tensor a = Random(128, 1000, 12), b = Random(1000, 64, 13);
  std::vector<Tensor> fp32, tf32;
  REQUIRE_OK(session->Run({{"a", a}, {"b", b}}, {"mm_gpu", "mm_cpu"}, {},
                          &fp32));
  gpu::SetTensorFloat32Execution(true);
  const absl::Status s =
      session->Run({{"a", a}, {"b", b}}, {"mm_gpu", "mm_cpu"}, {}, &tf32);
  gpu::SetTensorFloat32Execution(false);
  REQUIRE_OK(s);
  const double fp32_error = MaxRelativeError(fp32[0], fp32[1]);
  const double tf32_error = MaxRelativeError(tf32[0], tf32[1]);
  INFO("FP32 " << fp32_error << ", TF32 " << tf32_error);
  // As in the first test: two float sums of 1,000 products in different
  // orders (1.2e-5 on an H200).
  CHECK(fp32_error < 1e-5 * std::sqrt(1000.0));
  // 10-bit mantissas over 1,000 products: several 1e-3 (6.7e-3 on an
  // H200), far above FP32's.
  CHECK(tf32_error > 10 * fp32_error);
  CHECK(tf32_error < 2e-2);
}

TEST_CASE("gpu session: a chain of MatMuls stays on the GPU, and half and "
          "bfloat16 accumulate in float as TensorFlow's", "[gpu]") {
  if (!HaveGpu()) return;
  GraphDef g;
  AddNode(&g, "x", "Placeholder", {}, "");
  AddNode(&g, "w", "Placeholder", {}, "");
  AddMatMul(&g, "h1", "x", "w", kGpu);
  AddMatMul(&g, "h2", "h1", "w", kGpu, false, true);
  AddMatMul(&g, "c1", "x", "w", "/device:CPU:0");
  AddMatMul(&g, "c2", "c1", "w", "/device:CPU:0", false, true);
  for (DataType t : {DT_HALF, DT_BFLOAT16}) {
    const std::string s = DataTypeString(t);
    AddCast(&g, "x_" + s, "x", DT_FLOAT, t);
    AddCast(&g, "w_" + s, "w", DT_FLOAT, t);
    AddMatMul(&g, "mm_" + s, "x_" + s, "w_" + s, kGpu, false, false, t);
    AddCast(&g, "out_" + s, "mm_" + s, t, DT_FLOAT);
  }
  auto session = NewSession();
  REQUIRE_OK(session->Extend(g));
  const Tensor x = Random(50, 64, 3), w = Random(64, 64, 4);
  RunOptions options;
  options.set_trace_level(RunOptions::FULL_TRACE);
  RunMetadata metadata;
  std::vector<Tensor> out;
  REQUIRE_OK(session->Run(options, {{"x", x}, {"w", w}},
                          {"h2", "c2", "c1", "out_half", "out_bfloat16"}, {},
                          &out, &metadata));
  CHECK(MaxRelativeError(out[0], out[1]) < 1e-4);
  // 16-bit inputs (rounded), float sums, a 16-bit result: half keeps 11
  // bits, bfloat16 8.
  CHECK(MaxRelativeError(out[3], out[2]) < 2e-2);
  CHECK(MaxRelativeError(out[4], out[2]) < 1e-1);
  const auto ran = DevicesRun(metadata);
  for (const char* node : {"h1", "h2", "mm_half", "mm_bfloat16"}) {
    INFO(node);
    CHECK(ran.at(node) == kGpu);
  }
}

TEST_CASE("gpu session: empty and zero-depth products, and a shape error "
          "naming the GPU node", "[gpu]") {
  if (!HaveGpu()) return;
  GraphDef g;
  AddNode(&g, "a", "Placeholder", {}, "");
  AddNode(&g, "b", "Placeholder", {}, "");
  AddMatMul(&g, "mm", "a", "b", kGpu);
  auto session = NewSession();
  REQUIRE_OK(session->Extend(g));
  std::vector<Tensor> out;
  // k = 0: a sum of nothing, zeros (the output buffer is not left as is).
  for (int round = 0; round < 2; ++round) {
    REQUIRE_OK(session->Run({{"a", Tensor(DT_FLOAT, TensorShape({3, 0}))},
                             {"b", Tensor(DT_FLOAT, TensorShape({0, 4}))}},
                            {"mm"}, {}, &out));
    REQUIRE(out[0].shape() == TensorShape({3, 4}));
    for (float v : out[0].span<float>()) CHECK(v == 0);
  }
  REQUIRE_OK(session->Run({{"a", Tensor(DT_FLOAT, TensorShape({0, 5}))},
                           {"b", Random(5, 2, 5)}},
                          {"mm"}, {}, &out));
  CHECK(out[0].shape() == TensorShape({0, 2}));
  CHECK_THAT(session->Run({{"a", Random(2, 3, 6)}, {"b", Random(4, 2, 7)}},
                          {"mm"}, {}, &out),
             StatusIs(absl::StatusCode::kInvalidArgument, "mm"));
  // The session still works after the error.
  REQUIRE_OK(session->Run({{"a", Random(2, 3, 6)}, {"b", Random(3, 2, 7)}},
                          {"mm"}, {}, &out));
  CHECK(out[0].shape() == TensorShape({2, 2}));
}

TEST_CASE("gpu session: an op without a GPU kernel asked onto the GPU is "
          "refused, or runs on the CPU with allow_soft_placement", "[gpu]") {
  if (!HaveGpu()) return;
  GraphDef g;
  AddNode(&g, "a", "Placeholder", {}, "");
  NodeDef* cum = AddNode(&g, "cum", "Cumsum", {"a", "axis"}, kGpu);
  (*cum->mutable_attr())["Tidx"].set_type(DT_INT32);
  (*cum->mutable_attr())["exclusive"].set_b(false);
  (*cum->mutable_attr())["reverse"].set_b(false);
  NodeDef* axis = g.add_node();
  axis->set_name("axis");
  axis->set_op("Const");
  (*axis->mutable_attr())["dtype"].set_type(DT_INT32);
  TensorProto* value = (*axis->mutable_attr())["value"].mutable_tensor();
  value->set_dtype(DT_INT32);
  value->add_int_val(1);
  AddMatMul(&g, "mm", "cum", "a", kGpu, false, true);
  const Tensor a = Tensor::FromVector<float>({1, 2, 3, 4}, TensorShape({2, 2}));
  std::vector<Tensor> out;
  // dfx places a graph when it is extended, so the refusal comes there.
  CHECK_THAT(NewSession(false)->Extend(g),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "'cum' (Cumsum) on '" + std::string(kGpu) +
                          "': no kernel"));
  auto soft = NewSession(true);
  REQUIRE_OK(soft->Extend(g));
  RunOptions options;
  options.set_trace_level(RunOptions::FULL_TRACE);
  RunMetadata metadata;
  REQUIRE_OK(soft->Run(options, {{"a", a}}, {"mm"}, {}, &out, &metadata));
  // cumsum along rows: [[1,3],[3,7]]; times aᵀ: [[7,15],[17,37]].
  REQUIRE(out[0].NumElements() == 4);
  CHECK(std::vector<float>(out[0].span<float>().begin(),
                           out[0].span<float>().end()) ==
        std::vector<float>{7, 15, 17, 37});
  const auto ran = DevicesRun(metadata);
  CHECK(ran.at("cum") == "/job:localhost/replica:0/task:0/device:CPU:0");
  CHECK(ran.at("mm") == kGpu);
}

// Runs `op` with `inputs` fed once on GPU:0 and once on CPU:0; the two
// outputs (GPU first), or the GPU node's error.
absl::StatusOr<std::pair<Tensor, Tensor>> OnGpuAndCpu(
    const std::string& op, const std::vector<Tensor>& inputs,
    const std::map<std::string, AttrValue>& attrs = {}) {
  GraphDef g;
  std::vector<std::string> names;
  std::vector<std::pair<std::string, Tensor>> feeds;
  for (size_t i = 0; i < inputs.size(); ++i) {
    names.push_back(absl::StrCat("in", i));
    AddNode(&g, names.back(), "Placeholder", {}, "", inputs[i].dtype());
    feeds.emplace_back(names.back(), inputs[i]);
  }
  for (const char* side : {"gpu", "cpu"}) {
    NodeDef* n = AddNode(&g, side, op, names,
                         side == std::string("gpu") ? kGpu : "/device:CPU:0",
                         inputs[0].dtype());
    for (const auto& [k, v] : attrs) (*n->mutable_attr())[k] = v;
  }
  auto session = NewSession();
  DFX_RETURN_IF_ERROR(session->Extend(g));
  std::vector<Tensor> out;
  DFX_RETURN_IF_ERROR(session->Run(feeds, {"gpu", "cpu"}, {}, &out));
  return std::make_pair(out[0], out[1]);
}

Tensor RandomShaped(const TensorShape& shape, uint32_t seed, float lo = -2,
                    float hi = 2) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  Tensor t(DT_FLOAT, shape);
  for (float& v : t.span<float>()) v = u(gen);
  return t;
}

TEST_CASE("gpu session: element-wise ops on a GPU give the CPU kernels' "
          "numbers, with broadcasting", "[gpu]") {
  if (!HaveGpu()) return;
  for (const char* op : {"Relu", "Neg", "Square", "Exp", "Tanh", "Sigmoid",
                         "Abs", "Log", "Sqrt", "Rsqrt"}) {
    INFO(op);
    // Log, Sqrt and Rsqrt on positive numbers.
    const bool positive = std::string(op) == "Log" ||
                          std::string(op) == "Sqrt" || std::string(op) == "Rsqrt";
    auto r = OnGpuAndCpu(op, {RandomShaped(TensorShape({7, 129}), 11,
                                           positive ? 0.1f : -3.0f, 3.0f)});
    REQUIRE_OK(r);
    CHECK(MaxRelativeError(r->first, r->second) < 1e-5);
  }
  const std::vector<std::pair<TensorShape, TensorShape>> shapes = {
      {TensorShape({3, 4}), TensorShape({3, 4})},
      {TensorShape({2, 3, 4}), TensorShape({4})},
      {TensorShape({2, 1, 4}), TensorShape({3, 1})},
      {TensorShape({}), TensorShape({5})},
      {TensorShape({1}), TensorShape({2, 2})},
      {TensorShape({4, 1, 3, 1, 2}), TensorShape({1, 5, 1, 6, 1})}};
  for (const char* op : {"AddV2", "Sub", "Mul", "RealDiv", "Maximum",
                         "Minimum", "SquaredDifference"}) {
    for (size_t i = 0; i < shapes.size(); ++i) {
      INFO(op << " " << shapes[i].first.DebugString() << " with "
              << shapes[i].second.DebugString());
      auto r = OnGpuAndCpu(op, {RandomShaped(shapes[i].first, 20 + i),
                                RandomShaped(shapes[i].second, 40 + i)});
      REQUIRE_OK(r);
      CHECK(r->first.shape() == r->second.shape());
      CHECK(MaxRelativeError(r->first, r->second) < 1e-6);
    }
  }
  CHECK_THAT(OnGpuAndCpu("AddV2", {RandomShaped(TensorShape({2, 3}), 1),
                                   RandomShaped(TensorShape({4}), 2)})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "Incompatible shapes: [2,3] vs. [4]"));
  // ReluGrad: gradients where the features are positive.
  auto grad = OnGpuAndCpu("ReluGrad", {RandomShaped(TensorShape({9, 33}), 3),
                                       RandomShaped(TensorShape({9, 33}), 4)});
  REQUIRE_OK(grad);
  CHECK(MaxRelativeError(grad->first, grad->second) == 0);
  // BiasAdd in both data formats, and its shape check.
  for (const char* format : {"NHWC", "NCHW"}) {
    INFO(format);
    AttrValue f;
    f.set_s(format);
    const bool nchw = std::string(format) == "NCHW";
    auto r = OnGpuAndCpu(
        "BiasAdd",
        {RandomShaped(nchw ? TensorShape({2, 3, 4, 5}) : TensorShape({2, 4, 5, 3}), 5),
         RandomShaped(TensorShape({3}), 6)},
        {{"data_format", f}});
    REQUIRE_OK(r);
    CHECK(MaxRelativeError(r->first, r->second) == 0);
  }
  // BiasAddGrad: sums over every dim but the channel's.
  for (const char* format : {"NHWC", "NCHW"}) {
    INFO("BiasAddGrad " << format);
    AttrValue f;
    f.set_s(format);
    for (const TensorShape& shape :
         {TensorShape({300, 7}), TensorShape({2, 3, 4, 5}),
          TensorShape({1, 1000, 3})}) {
      auto r = OnGpuAndCpu("BiasAddGrad", {RandomShaped(shape, 7)},
                           {{"data_format", f}});
      REQUIRE_OK(r);
      CHECK(r->first.shape() == r->second.shape());
      CHECK(MaxRelativeError(r->first, r->second) < 1e-5);
    }
  }
  auto same = OnGpuAndCpu("Identity", {RandomShaped(TensorShape({3, 5}), 8)});
  REQUIRE_OK(same);
  CHECK(MaxRelativeError(same->first, same->second) == 0);
  CHECK_THAT(OnGpuAndCpu("BiasAdd", {RandomShaped(TensorShape({2, 4}), 5),
                                     RandomShaped(TensorShape({3}), 6)})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "Must provide as many biases"));
}

TEST_CASE("gpu session: a two-layer perceptron runs on the GPU as on the "
          "CPU", "[gpu]") {
  if (!HaveGpu()) return;
  GraphDef g;
  for (const char* p : {"x", "w1", "b1", "w2", "b2"}) {
    AddNode(&g, p, "Placeholder", {}, "");
  }
  for (const auto& [prefix, device] :
       {std::pair<std::string, std::string>{"g_", kGpu},
        std::pair<std::string, std::string>{"c_", "/device:CPU:0"}}) {
    AddMatMul(&g, prefix + "mm1", "x", "w1", device);
    AddNode(&g, prefix + "h1", "BiasAdd", {prefix + "mm1", "b1"}, device);
    AddNode(&g, prefix + "r1", "Relu", {prefix + "h1"}, device);
    AddMatMul(&g, prefix + "mm2", prefix + "r1", "w2", device);
    AddNode(&g, prefix + "h2", "BiasAdd", {prefix + "mm2", "b2"}, device);
    AddNode(&g, prefix + "y", "Sigmoid", {prefix + "h2"}, device);
  }
  auto session = NewSession();
  REQUIRE_OK(session->Extend(g));
  RunOptions options;
  options.set_trace_level(RunOptions::FULL_TRACE);
  RunMetadata metadata;
  std::vector<Tensor> out;
  REQUIRE_OK(session->Run(
      options,
      {{"x", RandomShaped(TensorShape({64, 100}), 1)},
       {"w1", RandomShaped(TensorShape({100, 50}), 2, -0.2f, 0.2f)},
       {"b1", RandomShaped(TensorShape({50}), 3)},
       {"w2", RandomShaped(TensorShape({50, 10}), 4, -0.2f, 0.2f)},
       {"b2", RandomShaped(TensorShape({10}), 5)}},
      {"g_y", "c_y"}, {}, &out, &metadata));
  CHECK(out[0].shape() == TensorShape({64, 10}));
  CHECK(MaxRelativeError(out[0], out[1]) < 1e-5);
  const auto ran = DevicesRun(metadata);
  for (const char* node : {"g_mm1", "g_h1", "g_r1", "g_mm2", "g_h2", "g_y"}) {
    INFO(node);
    CHECK(ran.at(node) == kGpu);
  }
}

AttrValue IntList(std::vector<int64_t> values) {
  AttrValue v;
  for (int64_t x : values) v.mutable_list()->add_i(x);
  return v;
}

AttrValue String(const std::string& s) {
  AttrValue v;
  v.set_s(s);
  return v;
}

// NCHW <-> NHWC on the host.
Tensor ToNchw(const Tensor& nhwc) {
  const int64_t n = nhwc.dim_size(0), h = nhwc.dim_size(1),
                w = nhwc.dim_size(2), c = nhwc.dim_size(3);
  Tensor out(DT_FLOAT, TensorShape({n, c, h, w}));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t y = 0; y < h; ++y)
      for (int64_t x = 0; x < w; ++x)
        for (int64_t k = 0; k < c; ++k)
          out.data<float>()[((i * c + k) * h + y) * w + x] =
              nhwc.data<float>()[((i * h + y) * w + x) * c + k];
  return out;
}

TEST_CASE("gpu session: Conv2D on cuDNN gives the CPU kernel's numbers: "
          "strides, dilations, groups, every padding, NCHW", "[gpu]") {
  if (!HaveGpu()) return;
  struct Case {
    TensorShape input, filter;
    int64_t stride, dilation;
    const char* padding;
    std::vector<int64_t> explicit_pads;
  };
  const Case cases[] = {
      {TensorShape({2, 9, 9, 8}), TensorShape({3, 3, 8, 16}), 1, 1, "SAME", {}},
      {TensorShape({1, 10, 12, 3}), TensorShape({3, 3, 3, 5}), 2, 1, "SAME", {}},
      {TensorShape({2, 8, 8, 4}), TensorShape({2, 2, 4, 6}), 1, 1, "SAME", {}},
      {TensorShape({1, 11, 11, 4}), TensorShape({3, 3, 4, 4}), 1, 2, "VALID", {}},
      {TensorShape({2, 7, 7, 8}), TensorShape({1, 1, 8, 32}), 1, 1, "VALID", {}},
      {TensorShape({1, 6, 6, 8}), TensorShape({3, 3, 2, 8}), 1, 1, "SAME", {}},
      {TensorShape({1, 7, 6, 3}), TensorShape({3, 2, 3, 4}), 1, 1, "EXPLICIT",
       {0, 0, 1, 2, 0, 1, 0, 0}},
  };
  for (const Case& c : cases) {
    INFO("input " << c.input.DebugString() << " filter "
                  << c.filter.DebugString() << " stride " << c.stride
                  << " dilation " << c.dilation << " " << c.padding);
    std::map<std::string, AttrValue> attrs = {
        {"strides", IntList({1, c.stride, c.stride, 1})},
        {"dilations", IntList({1, c.dilation, c.dilation, 1})},
        {"padding", String(c.padding)}};
    if (!c.explicit_pads.empty()) {
      attrs["explicit_paddings"] = IntList(c.explicit_pads);
    }
    const Tensor x = RandomShaped(c.input, 31), w = RandomShaped(c.filter, 32);
    auto r = OnGpuAndCpu("Conv2D", {x, w}, attrs);
    REQUIRE_OK(r);
    REQUIRE(r->first.shape() == r->second.shape());
    CHECK(MaxRelativeError(r->first, r->second) < 1e-4);
    if (c.explicit_pads.empty() && c.filter.dim_size(2) == c.input.dim_size(3)) {
      // NCHW on the GPU (TensorFlow's CPU kernel has none): the NHWC
      // result, transposed.
      attrs["data_format"] = String("NCHW");
      attrs["strides"] = IntList({1, 1, c.stride, c.stride});
      attrs["dilations"] = IntList({1, 1, c.dilation, c.dilation});
      GraphDef g;
      AddNode(&g, "x", "Placeholder", {}, "");
      AddNode(&g, "w", "Placeholder", {}, "");
      NodeDef* conv = AddNode(&g, "conv", "Conv2D", {"x", "w"}, kGpu);
      for (const auto& [k, v] : attrs) (*conv->mutable_attr())[k] = v;
      auto session = NewSession();
      REQUIRE_OK(session->Extend(g));
      std::vector<Tensor> out;
      REQUIRE_OK(session->Run({{"x", ToNchw(x)}, {"w", w}}, {"conv"}, {}, &out));
      CHECK(MaxRelativeError(out[0], ToNchw(r->second)) < 1e-4);
    }
  }
  CHECK_THAT(OnGpuAndCpu("Conv2D",
                         {RandomShaped(TensorShape({1, 5, 5, 3}), 1),
                          RandomShaped(TensorShape({3, 3, 2, 4}), 2)},
                         {{"strides", IntList({1, 1, 1, 1})},
                          {"padding", String("SAME")}})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "evenly divisible by filter depth"));
}

// Losses of `steps` GradientDescent steps of a two-layer classifier whose
// layers ask for `device` ("" = wherever the placer puts them), in a
// session with soft placement (ops without a GPU kernel run on the CPU).
// Its variables are on the CPU, or with `everything_on_device` the whole
// graph asks for `device`: variables, loss, gradients and updates.
std::vector<float> TrainLosses(const std::string& device, int steps,
                               RunMetadata* last_step,
                               bool everything_on_device = false) {
  Scope s = everything_on_device ? Scope::NewRootScope().WithDevice(device)
                                 : Scope::NewRootScope();
  const Output x = ops::Placeholder(s.WithOpName("x"), DT_FLOAT);
  const Output y = ops::Placeholder(s.WithOpName("y"), DT_INT32);
  train::Variable w1 = train::NewVariable(
      s.WithOpName("w1"), train::GlorotUniform(s, {16, 32}, 1), DT_FLOAT,
      {16, 32});
  train::Variable b1 = train::NewVariable(
      s.WithOpName("b1"), train::Zeros(s, {32}), DT_FLOAT, {32});
  train::Variable w2 = train::NewVariable(
      s.WithOpName("w2"), train::GlorotUniform(s, {32, 4}, 2), DT_FLOAT,
      {32, 4});
  train::Variable b2 = train::NewVariable(
      s.WithOpName("b2"), train::Zeros(s, {4}), DT_FLOAT, {4});
  const Scope compute = device.empty() ? s : s.WithDevice(device);
  const Output hidden = ops::Relu(
      compute.WithOpName("relu"),
      ops::BiasAdd(compute.WithOpName("bias1"),
                   ops::MatMul(compute.WithOpName("mm1"), x, w1.value),
                   b1.value));
  const Output logits = ops::BiasAdd(
      compute.WithOpName("bias2"),
      ops::MatMul(compute.WithOpName("mm2"), hidden, w2.value), b2.value);
  const Output loss = ops::Mean(
      s.WithOpName("loss"),
      ops::SparseSoftmaxCrossEntropyWithLogits(s, logits, y).loss,
      ops::Const(s, 0));
  train::GradientDescent sgd(0.3f);
  const std::vector<train::Variable> vars = {w1, b1, w2, b2};
  absl::StatusOr<Operation> step = sgd.Minimize(s, loss, vars);
  REQUIRE_OK(step);
  const Operation init = train::InitializeAll(s.WithOpName("init"), vars);
  GraphDef def;
  REQUIRE_OK(s.ToGraphDef(&def));
  auto session = NewSession(/*soft_placement=*/true);
  REQUIRE_OK(session->Extend(def));
  std::vector<Tensor> out;
  REQUIRE_OK(session->Run({}, {}, {init.node_name()}, &out));
  // Rows of 16 features; the class is which quarter of them sums highest.
  Tensor xs = RandomShaped(TensorShape({128, 16}), 9);
  Tensor ys(DT_INT32, TensorShape({128}));
  for (int r = 0; r < 128; ++r) {
    float best = -1e9f;
    for (int c = 0; c < 4; ++c) {
      float sum = 0;
      for (int f = 4 * c; f < 4 * c + 4; ++f) sum += xs.data<float>()[r * 16 + f];
      if (sum > best) {
        best = sum;
        ys.data<int32_t>()[r] = c;
      }
    }
  }
  std::vector<float> losses;
  RunOptions options;
  options.set_trace_level(RunOptions::FULL_TRACE);
  for (int i = 0; i < steps; ++i) {
    REQUIRE_OK(session->Run(options, {{"x", xs}, {"y", ys}}, {"loss"},
                            {step->node_name()}, &out, last_step));
    losses.push_back(out[0].scalar<float>());
  }
  return losses;
}

TEST_CASE("gpu session: a classifier trains with its layers on the GPU as "
          "on the CPU, its variables and the ops without GPU kernels on the "
          "CPU", "[gpu]") {
  if (!HaveGpu()) return;
  RunMetadata gpu_step, cpu_step;
  const std::vector<float> on_gpu = TrainLosses(kGpu, 40, &gpu_step);
  const std::vector<float> on_cpu = TrainLosses("/device:CPU:0", 40, &cpu_step);
  for (size_t i = 0; i < on_gpu.size(); ++i) {
    INFO("step " << i << ": GPU " << on_gpu[i] << ", CPU " << on_cpu[i]);
    CHECK(std::abs(on_gpu[i] - on_cpu[i]) <= 1e-4 * (1 + on_cpu[i]));
  }
  CHECK(on_gpu.back() < 0.6 * on_gpu.front());
  const auto ran = DevicesRun(gpu_step);
  for (const char* node : {"mm1", "bias1", "relu", "mm2", "bias2"}) {
    INFO(node);
    CHECK(ran.at(node) == kGpu);
  }
}

TEST_CASE("gpu session: a classifier trains with every node of its step on "
          "the GPU, its variables in GPU memory, as on the CPU", "[gpu]") {
  if (!HaveGpu()) return;
  RunMetadata gpu_step, cpu_step;
  const std::vector<float> on_gpu =
      TrainLosses(kGpu, 40, &gpu_step, /*everything_on_device=*/true);
  const std::vector<float> on_cpu = TrainLosses(
      "/device:CPU:0", 40, &cpu_step, /*everything_on_device=*/true);
  for (size_t i = 0; i < on_gpu.size(); ++i) {
    INFO("step " << i << ": GPU " << on_gpu[i] << ", CPU " << on_cpu[i]);
    CHECK(std::abs(on_gpu[i] - on_cpu[i]) <= 1e-4 * (1 + on_cpu[i]));
  }
  CHECK(on_gpu.back() < 0.6 * on_gpu.front());
  // Every node of the step but the feeds' and fetches' transfers (the
  // client's "_recv_x_0", the partitions' "loss/_5") ran on the GPU: the
  // loss, the gradients' shape arithmetic (on the host, in the GPU's
  // name), the reads and the updates of the variables.
  std::vector<std::string> elsewhere;
  int on_the_gpu = 0;
  for (const auto& [node, device] : DevicesRun(gpu_step)) {
    const size_t cut = node.rfind("/_");
    const bool transfer =
        node.rfind("_", 0) == 0 ||
        (cut != std::string::npos && cut + 2 < node.size() &&
         node.find_first_not_of("0123456789", cut + 2) == std::string::npos);
    if (device == kGpu) {
      ++on_the_gpu;
    } else if (!transfer) {
      elsewhere.push_back(node + " on " + device);
    }
  }
  INFO("not on the GPU: " << absl::StrJoin(elsewhere, ", "));
  CHECK(elsewhere.empty());
  CHECK(on_the_gpu > 30);
}

TEST_CASE("gpu session: a tensor between two GPU devices of one process "
          "goes GPU to GPU, and the products match the CPU's", "[gpu]") {
  if (!HaveGpu()) return;
  // GPU:0 and GPU:1 on CUDA devices 0 and 1 when there are two (the copy
  // goes peer to peer where they allow it), else both on device 0.
  std::string why;
  const int ordinal1 = gpu::VisibleGpuCount(&why) > 1 ? 1 : 0;
  WARN("two GPU devices on CUDA devices 0 and " << ordinal1);
  ScopedMoreDevices two([ordinal1](const std::string& task, ThreadPool* pool)
                            -> absl::StatusOr<std::vector<std::unique_ptr<Device>>> {
    GpuDeviceOptions options;
    options.task_name = task;
    options.allow_growth = true;
    std::vector<std::unique_ptr<Device>> devices;
    for (int index = 0; index < 2; ++index) {
      DFX_ASSIGN_OR_RETURN(
          std::unique_ptr<gpu::GpuDevice> device,
          gpu::GpuDevice::Create(options, index, index == 0 ? 0 : ordinal1,
                                 pool));
      devices.push_back(std::move(device));
    }
    return devices;
  });
  auto session = NewSession();
  const std::string gpu0 = "/job:localhost/replica:0/task:0/device:GPU:0";
  const std::string gpu1 = "/job:localhost/replica:0/task:0/device:GPU:1";
  GraphDef g;
  AddNode(&g, "a", "Placeholder", {}, "");
  AddNode(&g, "b", "Placeholder", {}, "");
  AddMatMul(&g, "mm0", "a", "b", gpu0);
  AddMatMul(&g, "mm1", "mm0", "b", gpu1);
  AddMatMul(&g, "cpu0", "a", "b", "/device:CPU:0");
  AddMatMul(&g, "cpu1", "cpu0", "b", "/device:CPU:0");
  REQUIRE_OK(session->Extend(g));
  const Tensor a = Random(64, 96, 1), b = Random(96, 96, 2);
  RunOptions options;
  options.set_trace_level(RunOptions::FULL_TRACE);
  RunMetadata metadata;
  std::vector<Tensor> out;
  for (int step = 0; step < 3; ++step) {
    REQUIRE_OK(session->Run(options, {{"a", a}, {"b", b}}, {"mm1", "cpu1"},
                            {}, &out, &metadata));
    CHECK(MaxRelativeError(out[0], out[1]) < 1e-4);
  }
  const auto ran = DevicesRun(metadata);
  CHECK(ran.at("mm0") == gpu0);
  CHECK(ran.at("mm1") == gpu1);
}

TEST_CASE(
    "gpu session: asynchronous copies: CPU to GPU to CPU crossings "
    "and host-memory inputs give the CPU's numbers, a large pageable "
    "feed included",
    "[gpu]") {
  if (!HaveGpu()) return;
  // On the GPU: sq = x * x; i = int32(sq), a host kernel (sq moved to the
  // host); f = float(i), its output in host memory (moved back into the
  // GPU for Mul); y = f * sq. On the CPU: z = y + x. Every move and every
  // _Send/_Recv copy is asynchronous (runtime/device_copy.h).
  auto build = [](const std::string& device) {
    GraphDef g;
    AddNode(&g, "x", "Placeholder", {}, "");
    AddNode(&g, "sq", "Square", {"x"}, device);
    AddCast(&g, "i", "sq", DT_FLOAT, DT_INT32);
    g.mutable_node(g.node_size() - 1)->set_device(device);
    AddCast(&g, "f", "i", DT_INT32, DT_FLOAT);
    g.mutable_node(g.node_size() - 1)->set_device(device);
    AddNode(&g, "y", "Mul", {"f", "sq"}, device);
    AddNode(&g, "z", "AddV2", {"y", "x"}, "/device:CPU:0");
    return g;
  };
  auto on_gpu = NewSession();
  REQUIRE_OK(on_gpu->Extend(build(kGpu)));
  auto on_cpu = NewSession();
  REQUIRE_OK(on_cpu->Extend(build("/device:CPU:0")));
  // 3 elements, and 3 Mi (12 MiB, past the 4 MiB staging chunk: the
  // staged copy runs on the device's callback pool).
  for (int64_t n : {int64_t{3}, int64_t{3} << 20}) {
    INFO("elements: " << n);
    Tensor x(DT_FLOAT, TensorShape({n}));
    for (int64_t k = 0; k < n; ++k) {
      x.data<float>()[k] = static_cast<float>(k % 7) * 0.5f - 1.0f;
    }
    std::vector<Tensor> want, got;
    REQUIRE_OK(on_cpu->Run({{"x", x}}, {"y", "z", "i"}, {}, &want));
    RunOptions options;
    options.set_trace_level(RunOptions::FULL_TRACE);
    RunMetadata metadata;
    for (int step = 0; step < 3; ++step) {
      REQUIRE_OK(on_gpu->Run(options, {{"x", x}}, {"y", "z", "i"}, {}, &got,
                             &metadata));
      CHECK(MaxRelativeError(got[0], want[0]) == 0);
      CHECK(MaxRelativeError(got[1], want[1]) == 0);
      CHECK(got[2].NumElements() == n);
    }
    const auto ran = DevicesRun(metadata);
    CHECK(ran.at("sq") == kGpu);
    CHECK(ran.at("y") == kGpu);
  }
}

TEST_CASE(
    "gpu session: a chain of products between two GPU devices of one "
    "process, ordered by events only (no Synchronize), matches the "
    "CPU's",
    "[gpu]") {
  if (!HaveGpu()) return;
  // Each _Send hands its device tensor over as soon as the MatMul is
  // enqueued; the receiving GPU's copy waits for an event on the
  // sender's compute stream. Products large enough to take longer than
  // the hand-over would read unfinished data without that event.
  std::string why;
  const int ordinal1 = gpu::VisibleGpuCount(&why) > 1 ? 1 : 0;
  ScopedMoreDevices two(
      [ordinal1](const std::string& task, ThreadPool* pool)
          -> absl::StatusOr<std::vector<std::unique_ptr<Device>>> {
        GpuDeviceOptions options;
        options.task_name = task;
        options.allow_growth = true;
        std::vector<std::unique_ptr<Device>> devices;
        for (int index = 0; index < 2; ++index) {
          DFX_ASSIGN_OR_RETURN(
              std::unique_ptr<gpu::GpuDevice> device,
              gpu::GpuDevice::Create(options, index, index == 0 ? 0 : ordinal1,
                                     pool));
          devices.push_back(std::move(device));
        }
        return devices;
      });
  auto session = NewSession();
  const std::string gpu[2] = {"/job:localhost/replica:0/task:0/device:GPU:0",
                              "/job:localhost/replica:0/task:0/device:GPU:1"};
  GraphDef g;
  AddNode(&g, "a", "Placeholder", {}, "");
  AddNode(&g, "b", "Placeholder", {}, "");
  std::string gpu_prev = "a", cpu_prev = "a";
  for (int k = 0; k < 6; ++k) {
    const std::string on = absl::StrCat("g", k), off = absl::StrCat("c", k);
    AddMatMul(&g, on, gpu_prev, "b", gpu[k % 2]);
    AddMatMul(&g, off, cpu_prev, "b", "/device:CPU:0");
    gpu_prev = on;
    cpu_prev = off;
  }
  REQUIRE_OK(session->Extend(g));
  // b scaled so that the chain's values stay near 1.
  Tensor a = Random(1024, 1024, 3), b = Random(1024, 1024, 4);
  for (float& v : b.span<float>()) v /= 16;
  std::vector<Tensor> out;
  for (int step = 0; step < 3; ++step) {
    REQUIRE_OK(
        session->Run({{"a", a}, {"b", b}}, {gpu_prev, cpu_prev}, {}, &out));
    CHECK(MaxRelativeError(out[0], out[1]) < 1e-3);
  }
}

}  // namespace
}  // namespace dfx

// Placement of a whole model put on a GPU (`with tf.device("/GPU:0")`,
// no soft placement) against the standard kernel registry: the ops of a
// MobileNet block and its gradient, and the slicing ops, have GPU kernels,
// so every node lands on the GPU. Runs without a GPU (placement reads only
// the registry); in a build without CUDA or cuDNN the registry has no GPU
// kernels and the test says it skipped.
#include <string>

#include "catch2/catch.hpp"
#include "google/protobuf/text_format.h"
#include "graph/graph_def_import.h"
#include "graph/op_registry.h"
#include "kernels/kernels.h"
#include "master/step_planner.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

constexpr char kCpu[] = "/job:localhost/replica:0/task:0/device:CPU:0";
constexpr char kGpu[] = "/job:localhost/replica:0/task:0/device:GPU:0";

// The CPU and one (fake) GPU, no soft placement.
PlacementConfig OneGpu() {
  PlacementConfig config;
  for (const auto& [name, type] :
       {std::pair{kCpu, "CPU"}, std::pair{kGpu, "GPU"}}) {
    DeviceAttributes d;
    d.set_name(name);
    d.set_device_type(type);
    config.devices.push_back(d);
  }
  config.default_device = kCpu;
  config.kernels = StandardKernelRegistry();
  return config;
}

// Whether this build registered the cuDNN GPU kernels (a CUDA build
// that found cuDNN).
bool HaveGpuKernels() {
  NodeDef conv;
  conv.set_op("Conv2D");
  (*conv.mutable_attr())["T"].set_type(DT_FLOAT);
  if (StandardKernelRegistry()->HasKernel(conv, "GPU")) return true;
  WARN(
      "SKIPPED: this build has no cuDNN GPU kernels (built without CUDA "
      "or cuDNN)");
  return false;
}

absl::StatusOr<std::unique_ptr<Graph>> Placed(const std::string& text) {
  GraphDef def;
  REQUIRE(google::protobuf::TextFormat::ParseFromString(text, &def));
  auto g = ImportGraphDef(def, OpRegistry::Global());
  REQUIRE_OK(g);
  absl::Status s = PlaceSessionGraph(OneGpu(), g->get());
  if (!s.ok()) return s;
  return std::move(g).value();
}

// A depthwise block: DepthwiseConv2dNative -> FusedBatchNormV3 -> Relu6,
// its gradient, and a Tile and a StridedSlice of the result, all asked for
// GPU:0; the placeholders feeding it on the CPU. `dtype` is the data's.
std::string MobileNetBlock(const std::string& dtype) {
  const std::string t = "attr { key: 'T' value { type: " + dtype + " } }";
  const std::string u = "attr { key: 'U' value { type: DT_FLOAT } }";
  const std::string index = " attr { key: 'Index' value { type: DT_INT32 } }";
  const std::string conv_attrs =
      t +
      " attr { key: 'strides' value { list { i: 1 i: 2 i: 2 i: 1 } } }"
      " attr { key: 'padding' value { s: 'SAME' } }";
  auto placeholder = [](const std::string& name, const std::string& type) {
    return "node { name: '" + name + "' op: 'Placeholder' device: '" +
           std::string(kCpu) + "' attr { key: 'dtype' value { type: " + type +
           " } } }\n";
  };
  auto ints = [](const std::string& name, const std::string& values, int n) {
    return "node { name: '" + name + "' op: 'Const' device: '" +
           std::string(kGpu) +
           "' attr { key: 'dtype' value { type: DT_INT32 } } attr { key: "
           "'value' value { tensor { dtype: DT_INT32 tensor_shape { dim { "
           "size: " +
           std::to_string(n) + " } } " + values + " } } } }\n";
  };
  auto gpu = [&](const std::string& name, const std::string& op,
                 const std::string& inputs, const std::string& attrs) {
    return "node { name: '" + name + "' op: '" + op + "' " + inputs +
           " device: '" + std::string(kGpu) + "' " + attrs + " }\n";
  };
  return placeholder("x", dtype) + placeholder("w", dtype) +
         placeholder("dy", dtype) + placeholder("scale", "DT_FLOAT") +
         placeholder("offset", "DT_FLOAT") +
         ints("input_sizes", "int_val: 1 int_val: 8 int_val: 8 int_val: 4", 4) +
         ints("filter_sizes", "int_val: 3 int_val: 3 int_val: 4 int_val: 1",
              4) +
         ints("multiples", "int_val: 1 int_val: 2 int_val: 2 int_val: 1", 4) +
         ints("begin", "int_val: 0 int_val: 1 int_val: 1 int_val: 0", 4) +
         ints("end", "int_val: 1 int_val: 7 int_val: 7 int_val: 4", 4) +
         ints("strides", "int_val: 1 int_val: -1 int_val: 2 int_val: 1", 4) +
         gpu("dw", "DepthwiseConv2dNative", "input: 'x' input: 'w'",
             conv_attrs) +
         gpu("bn", "FusedBatchNormV3",
             "input: 'dw' input: 'scale' input: 'offset' input: 'scale' "
             "input: 'offset'",
             t + " " + u) +
         gpu("relu6", "Relu6", "input: 'bn'", t) +
         gpu("tile", "Tile", "input: 'relu6' input: 'multiples'", t) +
         gpu("slice", "StridedSlice",
             "input: 'tile' input: 'begin' input: 'end' input: 'strides'",
             t + index) +
         gpu("slice_grad", "StridedSliceGrad",
             "input: 'multiples' input: 'begin' input: 'end' input: "
             "'strides' input: 'slice'",
             t + index) +
         gpu("relu6_grad", "Relu6Grad", "input: 'dy' input: 'relu6'", t) +
         gpu("bn_grad", "FusedBatchNormGradV3",
             "input: 'relu6_grad' input: 'dw' input: 'scale' input: "
             "'bn:3' input: 'bn:4' input: 'bn:5'",
             t + " " + u) +
         gpu("dx", "DepthwiseConv2dNativeBackpropInput",
             "input: 'input_sizes' input: 'w' input: 'bn_grad'", conv_attrs) +
         gpu("dw_grad", "DepthwiseConv2dNativeBackpropFilter",
             "input: 'x' input: 'filter_sizes' input: 'bn_grad'", conv_attrs);
}

TEST_CASE(
    "gpu placement: a MobileNet block, its gradient, Tile and "
    "StridedSlice asked for a GPU run there without soft placement") {
  if (!HaveGpuKernels()) return;
  auto g = Placed(MobileNetBlock("DT_FLOAT"));
  REQUIRE_OK(g);
  for (const char* node :
       {"dw", "bn", "relu6", "tile", "slice", "slice_grad", "relu6_grad",
        "bn_grad", "dx", "dw_grad", "multiples", "begin"}) {
    INFO(node);
    CHECK((*g)->FindNode(node)->assigned_device_name() == kGpu);
  }
  CHECK((*g)->FindNode("x")->assigned_device_name() == kCpu);
}

TEST_CASE(
    "gpu placement: an op or dtype the GPU kernels do not serve is "
    "refused without soft placement, naming the node") {
  if (!HaveGpuKernels()) return;
  // LRN has no GPU kernel; Conv2D none in float64 (cuDNN's float64 is not
  // served; the depthwise convolutions take float64 on direct kernels).
  for (const auto& [op, dtype] :
       {std::pair{"LRN", "DT_FLOAT"}, std::pair{"Conv2D", "DT_DOUBLE"}}) {
    INFO(op << " " << dtype);
    const std::string t =
        std::string("attr { key: 'T' value { type: ") + dtype + " } }";
    const std::string graph =
        std::string(
            "node { name: 'x' op: 'Placeholder' attr { key: "
            "'dtype' value { type: ") +
        dtype +
        " } } }\n"
        "node { name: 'w' op: 'Placeholder' attr { key: 'dtype' value { "
        "type: " +
        dtype +
        " } } }\n"
        "node { name: 'unserved' op: '" +
        op + "' input: 'x'" +
        (std::string(op) == "Conv2D" ? " input: 'w'" : "") +
        " device: '/device:GPU:0' " + t +
        (std::string(op) == "Conv2D"
             ? " attr { key: 'strides' value { list { i: 1 i: 1 i: 1 i: 1 "
               "} } } attr { key: 'padding' value { s: 'VALID' } }"
             : "") +
        " }\n";
    CHECK_THAT(
        Placed(graph).status(),
        testing::StatusIs(absl::StatusCode::kInvalidArgument, "unserved"));
  }
  // float64 depthwise convolutions do place (the direct kernels).
  auto g = Placed(R"pb(
    node {
      name: 'x'
      op: 'Placeholder'
      attr {
        key: 'dtype'
        value { type: DT_DOUBLE }
      }
    }
    node {
      name: 'w'
      op: 'Placeholder'
      attr {
        key: 'dtype'
        value { type: DT_DOUBLE }
      }
    }
    node {
      name: 'depthwise'
      op: 'DepthwiseConv2dNative'
      input: 'x'
      input: 'w'
      device: '/device:GPU:0'
      attr {
        key: 'T'
        value { type: DT_DOUBLE }
      }
      attr {
        key: 'strides'
        value { list { i: 1 i: 1 i: 1 i: 1 } }
      }
      attr {
        key: 'padding'
        value { s: 'VALID' }
      }
    })pb");
  REQUIRE_OK(g);
  CHECK((*g)->FindNode("depthwise")->assigned_device_name() == kGpu);
}

}  // namespace
}  // namespace dfx

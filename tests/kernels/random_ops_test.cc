// The random ops (graph/ops/random_ops.cc) and their CPU kernels
// (kernels/random/): TensorFlow 2.21's signatures, values TensorFlow gave for
// the same seeds, independence from the thread count, the state a stateful
// kernel keeps between steps, and errors.
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "catch2/catch.hpp"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/message_differencer.h"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "kernels/kernels.h"
#include "runtime/device.h"
#include "runtime/op_kernel.h"
#include "runtime/tensor.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/shape_fn_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::InferShapes;
using testing::StatusIs;
using testing::TestNodeBuilder;

constexpr auto kInvalid = absl::StatusCode::kInvalidArgument;

// TensorFlow 2.21's OpDefs of the random ops, as
// text_format.MessageToString(op_def_registry.get(name), as_one_line=True)
// prints them.
const char* const kTfOpDefs[] = {
    "name: 'RandomUniform' input_arg { name: 'shape' type_attr: 'T' } "
    "output_arg { name: 'output' type_attr: 'dtype' } attr { name: "
    "'seed' type: 'int' default_value { i: 0 } } attr { name: 'seed2' "
    "type: 'int' default_value { i: 0 } } attr { name: 'dtype' type: "
    "'type' allowed_values { list { type: DT_HALF type: DT_BFLOAT16 "
    "type: DT_FLOAT type: DT_DOUBLE } } } attr { name: 'T' type: "
    "'type' allowed_values { list { type: DT_INT32 type: DT_INT64 } } "
    "} is_stateful: true",
    "name: 'RandomStandardNormal' input_arg { name: 'shape' "
    "type_attr: 'T' } output_arg { name: 'output' type_attr: 'dtype' "
    "} attr { name: 'seed' type: 'int' default_value { i: 0 } } attr "
    "{ name: 'seed2' type: 'int' default_value { i: 0 } } attr { "
    "name: 'dtype' type: 'type' allowed_values { list { type: DT_HALF "
    "type: DT_BFLOAT16 type: DT_FLOAT type: DT_DOUBLE } } } attr { "
    "name: 'T' type: 'type' allowed_values { list { type: DT_INT32 "
    "type: DT_INT64 } } } is_stateful: true",
    "name: 'TruncatedNormal' input_arg { name: 'shape' type_attr: 'T' "
    "} output_arg { name: 'output' type_attr: 'dtype' } attr { name: "
    "'seed' type: 'int' default_value { i: 0 } } attr { name: 'seed2' "
    "type: 'int' default_value { i: 0 } } attr { name: 'dtype' type: "
    "'type' allowed_values { list { type: DT_HALF type: DT_BFLOAT16 "
    "type: DT_FLOAT type: DT_DOUBLE } } } attr { name: 'T' type: "
    "'type' allowed_values { list { type: DT_INT32 type: DT_INT64 } } "
    "} is_stateful: true",
    "name: 'RandomUniformInt' input_arg { name: 'shape' type_attr: "
    "'T' } input_arg { name: 'minval' type_attr: 'Tout' } input_arg { "
    "name: 'maxval' type_attr: 'Tout' } output_arg { name: 'output' "
    "type_attr: 'Tout' } attr { name: 'seed' type: 'int' "
    "default_value { i: 0 } } attr { name: 'seed2' type: 'int' "
    "default_value { i: 0 } } attr { name: 'Tout' type: 'type' "
    "allowed_values { list { type: DT_INT32 type: DT_INT64 } } } attr "
    "{ name: 'T' type: 'type' allowed_values { list { type: DT_INT32 "
    "type: DT_INT64 } } } is_stateful: true",
    "name: 'RandomShuffle' input_arg { name: 'value' type_attr: 'T' } "
    "output_arg { name: 'output' type_attr: 'T' } attr { name: 'seed' "
    "type: 'int' default_value { i: 0 } } attr { name: 'seed2' type: "
    "'int' default_value { i: 0 } } attr { name: 'T' type: 'type' } "
    "is_stateful: true",
    "name: 'Multinomial' input_arg { name: 'logits' type_attr: 'T' } "
    "input_arg { name: 'num_samples' type: DT_INT32 } output_arg { "
    "name: 'output' type_attr: 'output_dtype' } attr { name: 'seed' "
    "type: 'int' default_value { i: 0 } } attr { name: 'seed2' type: "
    "'int' default_value { i: 0 } } attr { name: 'T' type: 'type' "
    "allowed_values { list { type: DT_FLOAT type: DT_DOUBLE type: "
    "DT_INT32 type: DT_UINT8 type: DT_INT16 type: DT_INT8 type: "
    "DT_INT64 type: DT_BFLOAT16 type: DT_UINT16 type: DT_HALF type: "
    "DT_UINT32 type: DT_UINT64 } } } attr { name: 'output_dtype' "
    "type: 'type' default_value { type: DT_INT64 } allowed_values { "
    "list { type: DT_INT32 type: DT_INT64 } } } is_stateful: true",
    "name: 'StatelessRandomUniform' input_arg { name: 'shape' "
    "type_attr: 'T' } input_arg { name: 'seed' type_attr: 'Tseed' } "
    "output_arg { name: 'output' type_attr: 'dtype' } attr { name: "
    "'dtype' type: 'type' default_value { type: DT_FLOAT } "
    "allowed_values { list { type: DT_HALF type: DT_BFLOAT16 type: "
    "DT_FLOAT type: DT_DOUBLE } } } attr { name: 'T' type: 'type' "
    "default_value { type: DT_INT32 } allowed_values { list { type: "
    "DT_INT32 type: DT_INT64 } } } attr { name: 'Tseed' type: 'type' "
    "default_value { type: DT_INT64 } allowed_values { list { type: "
    "DT_INT32 type: DT_INT64 } } }",
    "name: 'StatelessRandomNormal' input_arg { name: 'shape' "
    "type_attr: 'T' } input_arg { name: 'seed' type_attr: 'Tseed' } "
    "output_arg { name: 'output' type_attr: 'dtype' } attr { name: "
    "'dtype' type: 'type' default_value { type: DT_FLOAT } "
    "allowed_values { list { type: DT_HALF type: DT_BFLOAT16 type: "
    "DT_FLOAT type: DT_DOUBLE } } } attr { name: 'T' type: 'type' "
    "default_value { type: DT_INT32 } allowed_values { list { type: "
    "DT_INT32 type: DT_INT64 } } } attr { name: 'Tseed' type: 'type' "
    "default_value { type: DT_INT64 } allowed_values { list { type: "
    "DT_INT32 type: DT_INT64 } } }",
    "name: 'StatelessTruncatedNormal' input_arg { name: 'shape' "
    "type_attr: 'T' } input_arg { name: 'seed' type_attr: 'Tseed' } "
    "output_arg { name: 'output' type_attr: 'dtype' } attr { name: "
    "'dtype' type: 'type' default_value { type: DT_FLOAT } "
    "allowed_values { list { type: DT_HALF type: DT_BFLOAT16 type: "
    "DT_FLOAT type: DT_DOUBLE } } } attr { name: 'T' type: 'type' "
    "default_value { type: DT_INT32 } allowed_values { list { type: "
    "DT_INT32 type: DT_INT64 } } } attr { name: 'Tseed' type: 'type' "
    "default_value { type: DT_INT64 } allowed_values { list { type: "
    "DT_INT32 type: DT_INT64 } } }",
    "name: 'StatelessRandomUniformInt' input_arg { name: 'shape' "
    "type_attr: 'T' } input_arg { name: 'seed' type_attr: 'Tseed' } "
    "input_arg { name: 'minval' type_attr: 'dtype' } input_arg { "
    "name: 'maxval' type_attr: 'dtype' } output_arg { name: 'output' "
    "type_attr: 'dtype' } attr { name: 'dtype' type: 'type' "
    "allowed_values { list { type: DT_INT32 type: DT_INT64 } } } attr "
    "{ name: 'T' type: 'type' allowed_values { list { type: DT_INT32 "
    "type: DT_INT64 } } } attr { name: 'Tseed' type: 'type' "
    "default_value { type: DT_INT64 } allowed_values { list { type: "
    "DT_INT32 type: DT_INT64 } } }",
    "name: 'StatelessRandomUniformFullInt' input_arg { name: 'shape' "
    "type_attr: 'T' } input_arg { name: 'seed' type_attr: 'Tseed' } "
    "output_arg { name: 'output' type_attr: 'dtype' } attr { name: "
    "'dtype' type: 'type' default_value { type: DT_UINT64 } "
    "allowed_values { list { type: DT_INT32 type: DT_INT64 type: "
    "DT_UINT32 type: DT_UINT64 } } } attr { name: 'T' type: 'type' "
    "default_value { type: DT_INT32 } allowed_values { list { type: "
    "DT_INT32 type: DT_INT64 } } } attr { name: 'Tseed' type: 'type' "
    "default_value { type: DT_INT64 } allowed_values { list { type: "
    "DT_INT32 type: DT_INT64 type: DT_UINT32 type: DT_UINT64 } } }",
    "name: 'StatelessMultinomial' input_arg { name: 'logits' "
    "type_attr: 'T' } input_arg { name: 'num_samples' type: DT_INT32 "
    "} input_arg { name: 'seed' type_attr: 'Tseed' } output_arg { "
    "name: 'output' type_attr: 'output_dtype' } attr { name: 'T' "
    "type: 'type' allowed_values { list { type: DT_FLOAT type: "
    "DT_DOUBLE type: DT_INT32 type: DT_UINT8 type: DT_INT16 type: "
    "DT_INT8 type: DT_INT64 type: DT_BFLOAT16 type: DT_UINT16 type: "
    "DT_HALF type: DT_UINT32 type: DT_UINT64 } } } attr { name: "
    "'Tseed' type: 'type' default_value { type: DT_INT64 } "
    "allowed_values { list { type: DT_INT32 type: DT_INT64 } } } attr "
    "{ name: 'output_dtype' type: 'type' default_value { type: "
    "DT_INT64 } allowed_values { list { type: DT_INT32 type: DT_INT64 "
    "} } }",
    "name: 'StatelessRandomUniformV2' input_arg { name: 'shape' "
    "type_attr: 'Tshape' } input_arg { name: 'key' type: DT_UINT64 } "
    "input_arg { name: 'counter' type: DT_UINT64 } input_arg { name: "
    "'alg' type: DT_INT32 } output_arg { name: 'output' type_attr: "
    "'dtype' } attr { name: 'dtype' type: 'type' default_value { "
    "type: DT_FLOAT } allowed_values { list { type: DT_HALF type: "
    "DT_BFLOAT16 type: DT_FLOAT type: DT_DOUBLE } } } attr { name: "
    "'Tshape' type: 'type' default_value { type: DT_INT32 } "
    "allowed_values { list { type: DT_INT32 type: DT_INT64 } } }",
    "name: 'StatelessRandomNormalV2' input_arg { name: 'shape' "
    "type_attr: 'Tshape' } input_arg { name: 'key' type: DT_UINT64 } "
    "input_arg { name: 'counter' type: DT_UINT64 } input_arg { name: "
    "'alg' type: DT_INT32 } output_arg { name: 'output' type_attr: "
    "'dtype' } attr { name: 'dtype' type: 'type' default_value { "
    "type: DT_FLOAT } allowed_values { list { type: DT_HALF type: "
    "DT_BFLOAT16 type: DT_FLOAT type: DT_DOUBLE } } } attr { name: "
    "'Tshape' type: 'type' default_value { type: DT_INT32 } "
    "allowed_values { list { type: DT_INT32 type: DT_INT64 } } }",
    "name: 'StatelessTruncatedNormalV2' input_arg { name: 'shape' "
    "type_attr: 'Tshape' } input_arg { name: 'key' type: DT_UINT64 } "
    "input_arg { name: 'counter' type: DT_UINT64 } input_arg { name: "
    "'alg' type: DT_INT32 } output_arg { name: 'output' type_attr: "
    "'dtype' } attr { name: 'dtype' type: 'type' default_value { "
    "type: DT_FLOAT } allowed_values { list { type: DT_HALF type: "
    "DT_BFLOAT16 type: DT_FLOAT type: DT_DOUBLE } } } attr { name: "
    "'Tshape' type: 'type' default_value { type: DT_INT32 } "
    "allowed_values { list { type: DT_INT32 type: DT_INT64 } } }",
    "name: 'StatelessRandomUniformIntV2' input_arg { name: 'shape' "
    "type_attr: 'Tshape' } input_arg { name: 'key' type: DT_UINT64 } "
    "input_arg { name: 'counter' type: DT_UINT64 } input_arg { name: "
    "'alg' type: DT_INT32 } input_arg { name: 'minval' type_attr: "
    "'dtype' } input_arg { name: 'maxval' type_attr: 'dtype' } "
    "output_arg { name: 'output' type_attr: 'dtype' } attr { name: "
    "'dtype' type: 'type' allowed_values { list { type: DT_INT32 "
    "type: DT_INT64 type: DT_UINT32 type: DT_UINT64 } } } attr { "
    "name: 'Tshape' type: 'type' default_value { type: DT_INT32 } "
    "allowed_values { list { type: DT_INT32 type: DT_INT64 } } }",
    "name: 'StatelessRandomUniformFullIntV2' input_arg { name: "
    "'shape' type_attr: 'Tshape' } input_arg { name: 'key' type: "
    "DT_UINT64 } input_arg { name: 'counter' type: DT_UINT64 } "
    "input_arg { name: 'alg' type: DT_INT32 } output_arg { name: "
    "'output' type_attr: 'dtype' } attr { name: 'dtype' type: 'type' "
    "default_value { type: DT_UINT64 } allowed_values { list { type: "
    "DT_INT32 type: DT_INT64 type: DT_UINT32 type: DT_UINT64 } } } "
    "attr { name: 'Tshape' type: 'type' default_value { type: "
    "DT_INT32 } allowed_values { list { type: DT_INT32 type: DT_INT64 "
    "} } }",
    "name: 'StatelessRandomGetKeyCounter' input_arg { name: 'seed' "
    "type_attr: 'Tseed' } output_arg { name: 'key' type: DT_UINT64 } "
    "output_arg { name: 'counter' type: DT_UINT64 } attr { name: "
    "'Tseed' type: 'type' default_value { type: DT_INT64 } "
    "allowed_values { list { type: DT_INT32 type: DT_INT64 } } }",
    "name: 'StatelessRandomGetKeyCounterAlg' input_arg { name: 'seed' "
    "type_attr: 'Tseed' } output_arg { name: 'key' type: DT_UINT64 } "
    "output_arg { name: 'counter' type: DT_UINT64 } output_arg { "
    "name: 'alg' type: DT_INT32 } attr { name: 'Tseed' type: 'type' "
    "default_value { type: DT_INT64 } allowed_values { list { type: "
    "DT_INT32 type: DT_INT64 } } }",
    "name: 'StatelessRandomGetAlg' output_arg { name: 'alg' type: "
    "DT_INT32 } is_stateful: true",
    "name: 'RandomGamma' input_arg { name: 'shape' type_attr: 'S' } "
    "input_arg { name: 'alpha' type_attr: 'T' } output_arg { name: "
    "'output' type_attr: 'T' } attr { name: 'seed' type: 'int' "
    "default_value { i: 0 } } attr { name: 'seed2' type: 'int' "
    "default_value { i: 0 } } attr { name: 'S' type: 'type' "
    "allowed_values { list { type: DT_INT32 type: DT_INT64 } } } attr { "
    "name: 'T' type: 'type' allowed_values { list { type: DT_HALF type: "
    "DT_FLOAT type: DT_DOUBLE } } } is_stateful: true",
    "name: 'RandomPoissonV2' input_arg { name: 'shape' type_attr: 'S' } "
    "input_arg { name: 'rate' type_attr: 'R' } output_arg { name: "
    "'output' type_attr: 'dtype' } attr { name: 'seed' type: 'int' "
    "default_value { i: 0 } } attr { name: 'seed2' type: 'int' "
    "default_value { i: 0 } } attr { name: 'S' type: 'type' "
    "allowed_values { list { type: DT_INT32 type: DT_INT64 } } } attr { "
    "name: 'R' type: 'type' default_value { type: DT_DOUBLE } "
    "allowed_values { list { type: DT_HALF type: DT_FLOAT type: DT_DOUBLE "
    "type: DT_INT32 type: DT_INT64 } } } attr { name: 'dtype' type: "
    "'type' default_value { type: DT_INT64 } allowed_values { list { "
    "type: DT_HALF type: DT_FLOAT type: DT_DOUBLE type: DT_INT32 type: "
    "DT_INT64 } } } is_stateful: true",    "name: 'StatelessRandomGammaV2' input_arg { name: 'shape' "
    "type_attr: 'T' } input_arg { name: 'seed' type_attr: 'Tseed' } "
    "input_arg { name: 'alpha' type_attr: 'dtype' } output_arg { name: "
    "'output' type_attr: 'dtype' } attr { name: 'dtype' type: 'type' "
    "allowed_values { list { type: DT_HALF type: DT_FLOAT type: "
    "DT_DOUBLE } } } attr { name: 'T' type: 'type' allowed_values { "
    "list { type: DT_INT32 type: DT_INT64 } } } attr { name: 'Tseed' "
    "type: 'type' default_value { type: DT_INT64 } allowed_values { "
    "list { type: DT_INT32 type: DT_INT64 } } }",
    "name: 'StatelessRandomGammaV3' input_arg { name: 'shape' "
    "type_attr: 'shape_dtype' } input_arg { name: 'key' type: DT_UINT64"
    " } input_arg { name: 'counter' type: DT_UINT64 } input_arg { name:"
    " 'alg' type: DT_INT32 } input_arg { name: 'alpha' type_attr: "
    "'dtype' } output_arg { name: 'output' type_attr: 'dtype' } attr { "
    "name: 'dtype' type: 'type' allowed_values { list { type: DT_HALF "
    "type: DT_FLOAT type: DT_DOUBLE } } } attr { name: 'shape_dtype' "
    "type: 'type' default_value { type: DT_INT32 } allowed_values { "
    "list { type: DT_INT32 type: DT_INT64 } } }",
    "name: 'StatelessRandomPoisson' input_arg { name: 'shape' "
    "type_attr: 'T' } input_arg { name: 'seed' type_attr: 'Tseed' } "
    "input_arg { name: 'lam' type_attr: 'Rtype' } output_arg { name: "
    "'output' type_attr: 'dtype' } attr { name: 'Rtype' type: 'type' "
    "allowed_values { list { type: DT_HALF type: DT_FLOAT type: "
    "DT_DOUBLE type: DT_INT32 type: DT_INT64 } } } attr { name: 'dtype'"
    " type: 'type' allowed_values { list { type: DT_HALF type: DT_FLOAT"
    " type: DT_DOUBLE type: DT_INT32 type: DT_INT64 } } } attr { name: "
    "'T' type: 'type' allowed_values { list { type: DT_INT32 type: "
    "DT_INT64 } } } attr { name: 'Tseed' type: 'type' default_value { "
    "type: DT_INT64 } allowed_values { list { type: DT_INT32 type: "
    "DT_INT64 } } }",
};

TEST_CASE("Random ops have TensorFlow 2.21's signatures") {
  for (const char* text : kTfOpDefs) {
    OpDef want;
    REQUIRE(google::protobuf::TextFormat::ParseFromString(text, &want));
    INFO(want.name());
    const OpRegistrationData* op = OpRegistry::Global()->LookUp(want.name());
    REQUIRE(op != nullptr);
    std::string diff;
    google::protobuf::util::MessageDifferencer differ;
    differ.ReportDifferencesToString(&diff);
    CHECK(differ.Compare(want, op->op_def));
    INFO(diff);
    CHECK(diff.empty());
  }
}

// CPU devices with 1 and 4 intra-op threads.
Device* CpuWithThreads(int threads) {
  static std::vector<std::unique_ptr<DeviceMgr>>* mgrs =
      new std::vector<std::unique_ptr<DeviceMgr>>;
  static absl::Mutex mu;
  absl::MutexLock lock(&mu);
  CpuDeviceOptions options;
  options.intra_op_threads = threads;
  mgrs->push_back(DeviceMgr::NewCpu(options).value());
  return mgrs->back()->ListDevices()[0];
}
Device* OneThread() {
  static Device* d = CpuWithThreads(1);
  return d;
}
Device* FourThreads() {
  static Device* d = CpuWithThreads(4);
  return d;
}

// One kernel, built once and run as often as a test likes (so a stateful
// kernel keeps its generator between runs, as it does between steps).
class KernelRunner {
 public:
  KernelRunner(const NodeDef& node_in, Device* device) : device_(device) {
    const OpRegistrationData* op = OpRegistry::Global()->LookUp(node_in.op());
    DFX_CHECK(op != nullptr);
    NodeDef node = node_in;
    AddDefaultAttrs(op->op_def, &node);
    absl::StatusOr<std::unique_ptr<OpKernel>> kernel =
        StandardKernelRegistry()->CreateKernel(node, op->op_def, device);
    if (kernel.ok()) {
      kernel_ = *std::move(kernel);
    } else {
      status_ = kernel.status();
    }
  }

  const absl::Status& status() const { return status_; }

  absl::StatusOr<std::vector<Tensor>> Run(const std::vector<Tensor>& inputs) {
    if (!status_.ok()) return status_;
    OpKernelContext::Params params;
    params.op_kernel = kernel_.get();
    params.device = device_;
    params.inputs = inputs;
    OpKernelContext ctx(&params);
    kernel_->Compute(&ctx);
    if (!ctx.status().ok()) return ctx.status();
    return std::vector<Tensor>(ctx.mutable_outputs()->begin(),
                               ctx.mutable_outputs()->end());
  }

 private:
  Device* const device_;
  std::unique_ptr<OpKernel> kernel_;
  absl::Status status_;
};

Tensor Shape32(std::vector<int32_t> dims) {
  return Tensor::FromVector<int32_t>(dims);
}
Tensor Shape64(std::vector<int64_t> dims) {
  return Tensor::FromVector<int64_t>(dims);
}

// The bits of every element, to compare tensors exactly.
std::vector<uint8_t> Bytes(const Tensor& t) {
  const auto* p = static_cast<const uint8_t*>(t.raw_data());
  return std::vector<uint8_t>(p, p + t.TotalBytes());
}

template <typename T>
std::vector<T> Values(const Tensor& t) {
  return std::vector<T>(t.data<T>(), t.data<T>() + t.NumElements());
}

std::vector<uint32_t> FloatBits(const Tensor& t) {
  std::vector<uint32_t> bits(t.NumElements());
  std::memcpy(bits.data(), t.data<float>(), bits.size() * 4);
  return bits;
}
std::vector<uint64_t> DoubleBits(const Tensor& t) {
  std::vector<uint64_t> bits(t.NumElements());
  std::memcpy(bits.data(), t.data<double>(), bits.size() * 8);
  return bits;
}

NodeDef Stateful(const char* op, DataType dtype, int64_t seed, int64_t seed2,
                 DataType shape_type = DT_INT32) {
  return TestNodeBuilder("r", op, 1)
      .Attr("dtype", dtype)
      .Attr("T", shape_type)
      .Attr("seed", seed)
      .Attr("seed2", seed2)
      .Build();
}

TEST_CASE("RandomUniform gives TensorFlow's numbers, new ones each run") {
  KernelRunner r(Stateful("RandomUniform", DT_FLOAT, 1, 2), OneThread());
  REQUIRE_OK(r.status());
  // tf.compat.v1: RandomUniform(shape=[6], seed=1, seed2=2), run twice in
  // one session.
  absl::StatusOr<std::vector<Tensor>> first = r.Run({Shape32({6})});
  REQUIRE_OK(first);
  CHECK(FloatBits((*first)[0]) ==
        std::vector<uint32_t>{0x3ed0133c, 0x3f5b8ba6, 0x3d62e6c0, 0x3dafddd0,
                              0x3ed305cc, 0x3d160a40});
  absl::StatusOr<std::vector<Tensor>> second = r.Run({Shape32({6})});
  REQUIRE_OK(second);
  CHECK(FloatBits((*second)[0]) ==
        std::vector<uint32_t>{0x3effb890, 0x3d80b5f0, 0x3eeb8dc0, 0x3e4fab00,
                              0x3db583d0, 0x3f78fc54});
}

TEST_CASE(
    "TruncatedNormal, RandomUniformInt, RandomShuffle and Multinomial "
    "continue their streams as TensorFlow does") {
  // Each value below is what TensorFlow 2.21 returned for the first and the
  // second run of the op in one session.
  SECTION("TruncatedNormal double") {
    KernelRunner r(Stateful("TruncatedNormal", DT_DOUBLE, 3, 4), OneThread());
    absl::StatusOr<std::vector<Tensor>> a = r.Run({Shape32({3})});
    absl::StatusOr<std::vector<Tensor>> b = r.Run({Shape32({3})});
    REQUIRE_OK(a);
    REQUIRE_OK(b);
    CHECK(DoubleBits((*a)[0]) == std::vector<uint64_t>{0xbfe67f250a944316,
                                                       0xbff2dc48811f3fba,
                                                       0xbfe7903503b06341});
    CHECK(DoubleBits((*b)[0]) == std::vector<uint64_t>{0xbffa65712588458c,
                                                       0x3fc1ab6f589a1a30,
                                                       0xbfe57a019b872b47});
  }
  SECTION("RandomUniformInt int64") {
    KernelRunner r(TestNodeBuilder("r", "RandomUniformInt", 3)
                       .Attr("Tout", DT_INT64)
                       .Attr("T", DT_INT32)
                       .Attr("seed", 5)
                       .Attr("seed2", 6)
                       .Build(),
                   OneThread());
    const std::vector<Tensor> in = {Shape32({3}), Tensor::Scalar<int64_t>(-50),
                                    Tensor::Scalar<int64_t>(100)};
    absl::StatusOr<std::vector<Tensor>> a = r.Run(in);
    absl::StatusOr<std::vector<Tensor>> b = r.Run(in);
    REQUIRE_OK(a);
    REQUIRE_OK(b);
    CHECK(Values<int64_t>((*a)[0]) == std::vector<int64_t>{5, 19, -1});
    CHECK(Values<int64_t>((*b)[0]) == std::vector<int64_t>{-20, 98, 70});
  }
  SECTION("RandomShuffle") {
    KernelRunner r(TestNodeBuilder("r", "RandomShuffle", 1)
                       .Attr("T", DT_INT32)
                       .Attr("seed", 7)
                       .Attr("seed2", 8)
                       .Build(),
                   OneThread());
    const Tensor in =
        Tensor::FromVector<int32_t>({0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
    absl::StatusOr<std::vector<Tensor>> a = r.Run({in});
    absl::StatusOr<std::vector<Tensor>> b = r.Run({in});
    REQUIRE_OK(a);
    REQUIRE_OK(b);
    CHECK(Values<int32_t>((*a)[0]) ==
          std::vector<int32_t>{6, 7, 9, 8, 3, 0, 4, 2, 1, 5});
    CHECK(Values<int32_t>((*b)[0]) ==
          std::vector<int32_t>{9, 8, 4, 2, 7, 0, 5, 3, 1, 6});
    CHECK(Values<int32_t>(in) ==
          std::vector<int32_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  }
  SECTION("Multinomial") {
    KernelRunner r(TestNodeBuilder("r", "Multinomial", 2)
                       .Attr("T", DT_FLOAT)
                       .Attr("seed", 9)
                       .Attr("seed2", 10)
                       .Build(),
                   OneThread());
    const std::vector<Tensor> in = {
        Tensor::FromVector<float>({0, 1, 2, 1, 1, -1}, TensorShape({2, 3})),
        Tensor::Scalar<int32_t>(5)};
    absl::StatusOr<std::vector<Tensor>> a = r.Run(in);
    absl::StatusOr<std::vector<Tensor>> b = r.Run(in);
    REQUIRE_OK(a);
    REQUIRE_OK(b);
    CHECK((*a)[0].shape() == TensorShape({2, 5}));
    CHECK(Values<int64_t>((*a)[0]) ==
          std::vector<int64_t>{1, 0, 2, 2, 2, 0, 0, 1, 0, 1});
    CHECK(Values<int64_t>((*b)[0]) ==
          std::vector<int64_t>{1, 2, 1, 2, 2, 0, 1, 0, 1, 0});
  }
}

TEST_CASE(
    "Concurrent steps of a stateful kernel draw disjoint parts of "
    "its stream") {
  // Eight calls on one kernel from four threads must give the eight outputs
  // that eight calls in a row give, in some order: each call reserves its
  // own part of the stream.
  const NodeDef node = Stateful("RandomUniform", DT_FLOAT, 31, 37);
  KernelRunner sequential(node, OneThread());
  std::set<std::vector<uint8_t>> want;
  for (int i = 0; i < 8; ++i) {
    absl::StatusOr<std::vector<Tensor>> out = sequential.Run({Shape32({100})});
    REQUIRE_OK(out);
    want.insert(Bytes((*out)[0]));
  }
  REQUIRE(want.size() == 8);
  KernelRunner shared(node, OneThread());
  std::vector<std::vector<uint8_t>> got(8);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&shared, &got, t] {
      for (int i = 0; i < 2; ++i) {
        absl::StatusOr<std::vector<Tensor>> out = shared.Run({Shape32({100})});
        if (out.ok()) got[2 * t + i] = Bytes((*out)[0]);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  CHECK(std::set<std::vector<uint8_t>>(got.begin(), got.end()) == want);
}

TEST_CASE("Two stateful kernels with the same seeds draw the same numbers") {
  KernelRunner a(Stateful("RandomStandardNormal", DT_FLOAT, 4, 9), OneThread());
  KernelRunner b(Stateful("RandomStandardNormal", DT_FLOAT, 4, 9),
                 FourThreads());
  absl::StatusOr<std::vector<Tensor>> x = a.Run({Shape64({40, 3})});
  absl::StatusOr<std::vector<Tensor>> y = b.Run({Shape64({40, 3})});
  REQUIRE_OK(x);
  REQUIRE_OK(y);
  CHECK((*x)[0].shape() == TensorShape({40, 3}));
  CHECK(Bytes((*x)[0]) == Bytes((*y)[0]));
}

TEST_CASE("Seeds 0 and 0 draw fresh seeds for every kernel") {
  KernelRunner a(Stateful("RandomUniform", DT_DOUBLE, 0, 0), OneThread());
  KernelRunner b(Stateful("RandomUniform", DT_DOUBLE, 0, 0), OneThread());
  absl::StatusOr<std::vector<Tensor>> x = a.Run({Shape32({8})});
  absl::StatusOr<std::vector<Tensor>> y = b.Run({Shape32({8})});
  REQUIRE_OK(x);
  REQUIRE_OK(y);
  CHECK(Bytes((*x)[0]) != Bytes((*y)[0]));
}

TEST_CASE("Large random outputs do not depend on the number of threads") {
  // Sizes that are not multiples of the group sizes, and large enough for
  // the fills to split over the pool.
  const std::vector<int64_t> shape = {1000003};
  for (const char* op :
       {"RandomUniform", "RandomStandardNormal", "TruncatedNormal"}) {
    for (DataType dtype : {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16}) {
      INFO(op << " " << DataTypeString(dtype));
      KernelRunner one(Stateful(op, dtype, 17, 23, DT_INT64), OneThread());
      KernelRunner four(Stateful(op, dtype, 17, 23, DT_INT64), FourThreads());
      for (int run = 0; run < 2; ++run) {
        absl::StatusOr<std::vector<Tensor>> x = one.Run({Shape64(shape)});
        absl::StatusOr<std::vector<Tensor>> y = four.Run({Shape64(shape)});
        REQUIRE_OK(x);
        REQUIRE_OK(y);
        CHECK(Bytes((*x)[0]) == Bytes((*y)[0]));
      }
    }
  }
  for (DataType dtype : {DT_INT32, DT_INT64}) {
    const NodeDef node = TestNodeBuilder("r", "StatelessRandomUniformInt", 4)
                             .Attr("dtype", dtype)
                             .Attr("T", DT_INT64)
                             .Build();
    const Tensor lo = dtype == DT_INT32 ? Tensor::Scalar<int32_t>(-7)
                                        : Tensor::Scalar<int64_t>(-7);
    const Tensor hi = dtype == DT_INT32 ? Tensor::Scalar<int32_t>(1000)
                                        : Tensor::Scalar<int64_t>(1000);
    const Tensor seed = Tensor::FromVector<int64_t>({3, 4});
    KernelRunner one(node, OneThread());
    KernelRunner four(node, FourThreads());
    absl::StatusOr<std::vector<Tensor>> x =
        one.Run({Shape64(shape), seed, lo, hi});
    absl::StatusOr<std::vector<Tensor>> y =
        four.Run({Shape64(shape), seed, lo, hi});
    REQUIRE_OK(x);
    REQUIRE_OK(y);
    CHECK(Bytes((*x)[0]) == Bytes((*y)[0]));
  }
}

TEST_CASE("RandomGamma gives TensorFlow's numbers, new ones each run, on "
          "any number of threads") {
  const NodeDef node = TestNodeBuilder("g", "RandomGamma", 2)
                           .Attr("T", DT_FLOAT)
                           .Attr("S", DT_INT32)
                           .Attr("seed", int64_t{1})
                           .Attr("seed2", int64_t{2})
                           .Build();
  const Tensor alpha = Tensor::FromVector<float>({0.5f, 2.0f});
  KernelRunner r(node, OneThread());
  REQUIRE_OK(r.status());
  // tf.compat.v1: RandomGamma(shape=[3], alpha=[0.5, 2], seed=1, seed2=2),
  // run twice in one session: [3, 2].
  absl::StatusOr<std::vector<Tensor>> first = r.Run({Shape32({3}), alpha});
  REQUIRE_OK(first);
  CHECK((*first)[0].shape() == TensorShape({3, 2}));
  CHECK(FloatBits((*first)[0]) ==
        std::vector<uint32_t>{0x3c6c93e5, 0x3fa65bb5, 0x3e43a69f, 0x3ff6c720,
                              0x3e44514a, 0x3f10c461});
  absl::StatusOr<std::vector<Tensor>> second = r.Run({Shape32({3}), alpha});
  REQUIRE_OK(second);
  CHECK(FloatBits((*second)[0]) ==
        std::vector<uint32_t>{0x3f10b99c, 0x3ee839b9, 0x3c2ad6f8, 0x3fb7705a,
                              0x3d8ffe99, 0x3f3fac1e});
  // Enough samples to split over four threads: the same values.
  const Tensor alphas = Tensor::FromVector<float>({0.2f, 1.0f, 7.5f});
  KernelRunner one(node, OneThread());
  KernelRunner four(node, FourThreads());
  absl::StatusOr<std::vector<Tensor>> x = one.Run({Shape32({20000}), alphas});
  absl::StatusOr<std::vector<Tensor>> y = four.Run({Shape32({20000}), alphas});
  REQUIRE_OK(x);
  REQUIRE_OK(y);
  CHECK(FloatBits((*x)[0]) == FloatBits((*y)[0]));
}

TEST_CASE("Multinomial does not depend on the number of threads") {
  const int64_t batch = 40000;
  const int64_t classes = 3;
  std::vector<float> logits(batch * classes);
  for (size_t i = 0; i < logits.size(); ++i) {
    logits[i] = static_cast<float>(i % 7) - 3.0f;
  }
  const std::vector<Tensor> in = {
      Tensor::FromVector<float>(logits, TensorShape({batch, classes})),
      Tensor::Scalar<int32_t>(3)};
  auto node = TestNodeBuilder("m", "Multinomial", 2)
                  .Attr("T", DT_FLOAT)
                  .Attr("seed", 1)
                  .Attr("seed2", 1)
                  .Build();
  KernelRunner one(node, OneThread());
  KernelRunner four(node, FourThreads());
  absl::StatusOr<std::vector<Tensor>> x = one.Run(in);
  absl::StatusOr<std::vector<Tensor>> y = four.Run(in);
  REQUIRE_OK(x);
  REQUIRE_OK(y);
  CHECK(Bytes((*x)[0]) == Bytes((*y)[0]));
}

TEST_CASE("Stateless seeds give TensorFlow's key, counter and numbers") {
  absl::StatusOr<std::vector<Tensor>> kc = testing::RunKernel(
      TestNodeBuilder("k", "StatelessRandomGetKeyCounterAlg", 1)
          .Attr("Tseed", DT_INT64)
          .Build(),
      {Tensor::FromVector<int64_t>({1, 2})});
  REQUIRE_OK(kc);
  CHECK(Values<uint64_t>((*kc)[0]) ==
        std::vector<uint64_t>{10413732777507651514ull});
  CHECK(Values<uint64_t>((*kc)[1]) ==
        std::vector<uint64_t>{0, 17830669156045600267ull});
  CHECK((*kc)[2].scalar<int32_t>() == 1);

  // int32 seeds are sign-extended.
  absl::StatusOr<std::vector<Tensor>> kc32 =
      testing::RunKernel(TestNodeBuilder("k", "StatelessRandomGetKeyCounter", 1)
                             .Attr("Tseed", DT_INT32)
                             .Build(),
                         {Tensor::FromVector<int32_t>({-3, 5})});
  REQUIRE_OK(kc32);
  CHECK(Values<uint64_t>((*kc32)[0]) ==
        std::vector<uint64_t>{4583815729385481288ull});
  CHECK(Values<uint64_t>((*kc32)[1]) ==
        std::vector<uint64_t>{0, 1677688561301068929ull});

  // tf.random.stateless_uniform([6], seed=[1, 2]) (the V1 op).
  absl::StatusOr<std::vector<Tensor>> v1 = testing::RunKernel(
      TestNodeBuilder("u", "StatelessRandomUniform", 2).Build(),
      {Shape32({6}), Tensor::FromVector<int64_t>({1, 2})});
  REQUIRE_OK(v1);
  CHECK(FloatBits((*v1)[0]) == std::vector<uint32_t>{1062736984, 1044686728,
                                                     1065289852, 1042562200,
                                                     1049313868, 1059470218});
  // The V2 op on the key and counter of that seed gives the same numbers,
  // for alg 1 (Philox) and 3 (auto-select, Philox on CPU).
  for (int alg : {1, 3}) {
    absl::StatusOr<std::vector<Tensor>> v2 = testing::RunKernel(
        TestNodeBuilder("u", "StatelessRandomUniformV2", 4).Build(),
        {Shape32({6}), (*kc)[0], (*kc)[1], Tensor::Scalar<int32_t>(alg)});
    REQUIRE_OK(v2);
    CHECK(Bytes((*v2)[0]) == Bytes((*v1)[0]));
  }
}

TEST_CASE("Stateless ops give the same numbers on every call") {
  const NodeDef node = TestNodeBuilder("n", "StatelessTruncatedNormal", 2)
                           .Attr("dtype", DT_HALF)
                           .Attr("Tseed", DT_INT32)
                           .Build();
  const std::vector<Tensor> in = {Shape32({5, 7}),
                                  Tensor::FromVector<int32_t>({7, -1})};
  absl::StatusOr<std::vector<Tensor>> a = testing::RunKernel(node, in);
  absl::StatusOr<std::vector<Tensor>> b = testing::RunKernel(node, in);
  REQUIRE_OK(a);
  REQUIRE_OK(b);
  CHECK((*a)[0].shape() == TensorShape({5, 7}));
  CHECK(Bytes((*a)[0]) == Bytes((*b)[0]));
}

TEST_CASE("Random ops give scalars and empty tensors of the asked shape") {
  for (const char* op :
       {"RandomUniform", "RandomStandardNormal", "TruncatedNormal"}) {
    INFO(op);
    KernelRunner r(Stateful(op, DT_BFLOAT16, 1, 2), OneThread());
    absl::StatusOr<std::vector<Tensor>> scalar = r.Run({Shape32({})});
    REQUIRE_OK(scalar);
    CHECK((*scalar)[0].shape() == TensorShape({}));
    CHECK((*scalar)[0].dtype() == DT_BFLOAT16);
    absl::StatusOr<std::vector<Tensor>> empty = r.Run({Shape32({4, 0, 2})});
    REQUIRE_OK(empty);
    CHECK((*empty)[0].shape() == TensorShape({4, 0, 2}));
  }
  absl::StatusOr<std::vector<Tensor>> v2 = testing::RunKernel(
      TestNodeBuilder("u", "StatelessRandomUniformFullIntV2", 4)
          .Attr("dtype", DT_UINT32)
          .Build(),
      {Shape32({}), Tensor::FromVector<uint64_t>({1}),
       Tensor::FromVector<uint64_t>({2, 3}), Tensor::Scalar<int32_t>(1)});
  REQUIRE_OK(v2);
  CHECK((*v2)[0].shape() == TensorShape({}));
  CHECK((*v2)[0].dtype() == DT_UINT32);
}

TEST_CASE("Random kernels reject bad shapes, bounds and seeds") {
  SECTION("the shape must be a vector of non-negative sizes") {
    CHECK_THAT(testing::RunKernel(Stateful("RandomUniform", DT_FLOAT, 1, 1),
                                  {Tensor::Scalar<int32_t>(3)})
                   .status(),
               StatusIs(kInvalid,
                        "shape must be a vector of {int32,int64}, "
                        "got shape []"));
    CHECK_THAT(testing::RunKernel(Stateful("RandomUniform", DT_FLOAT, 1, 1),
                                  {Shape32({2, -1})})
                   .status(),
               StatusIs(kInvalid, "Dimension -1 must be >= 0"));
    CHECK_THAT(
        testing::RunKernel(Stateful("RandomUniform", DT_FLOAT, 1, 1),
                           {Shape64({int64_t{1} << 40, int64_t{1} << 40})})
            .status(),
        StatusIs(kInvalid));
  }
  SECTION("uniform ints need scalar bounds with minval < maxval") {
    const NodeDef node = TestNodeBuilder("r", "RandomUniformInt", 3)
                             .Attr("Tout", DT_INT32)
                             .Attr("T", DT_INT32)
                             .Attr("seed", 1)
                             .Build();
    CHECK_THAT(
        testing::RunKernel(node, {Shape32({2}), Tensor::Scalar<int32_t>(3),
                                  Tensor::Scalar<int32_t>(3)})
            .status(),
        StatusIs(kInvalid, "Need minval < maxval, got 3 >= 3"));
    CHECK_THAT(testing::RunKernel(
                   node, {Shape32({2}), Tensor::FromVector<int32_t>({0}),
                          Tensor::Scalar<int32_t>(3)})
                   .status(),
               StatusIs(kInvalid, "minval must be 0-D, got shape [1]"));
    // An empty output does not look at the bounds' values.
    absl::StatusOr<std::vector<Tensor>> empty =
        testing::RunKernel(node, {Shape32({0, 4}), Tensor::Scalar<int32_t>(3),
                                  Tensor::Scalar<int32_t>(3)});
    REQUIRE_OK(empty);
    CHECK((*empty)[0].shape() == TensorShape({0, 4}));
  }
  SECTION("stateless seeds have shape (2)") {
    CHECK_THAT(testing::RunKernel(
                   TestNodeBuilder("u", "StatelessRandomNormal", 2).Build(),
                   {Shape32({2}), Tensor::FromVector<int64_t>({1, 2, 3})})
                   .status(),
               StatusIs(kInvalid, "seed must have shape [2], not [3]"));
    CHECK_THAT(testing::RunKernel(
                   TestNodeBuilder("u", "StatelessRandomUniformFullInt", 2)
                       .Attr("Tseed", DT_UINT64)
                       .Build(),
                   {Shape32({2}), Tensor::FromVector<uint64_t>({1, 2})})
                   .status(),
               StatusIs(kInvalid, "Invalid seed type: uint64"));
  }
  SECTION("V2 ops check key, counter and algorithm") {
    const NodeDef node =
        TestNodeBuilder("u", "StatelessRandomUniformV2", 4).Build();
    const Tensor key = Tensor::FromVector<uint64_t>({5});
    const Tensor counter = Tensor::FromVector<uint64_t>({0, 0});
    CHECK_THAT(testing::RunKernel(node, {Shape32({2}), key, counter,
                                         Tensor::Scalar<int32_t>(2)})
                   .status(),
               StatusIs(kInvalid, "Unsupported algorithm id: 2"));
    CHECK_THAT(testing::RunKernel(node, {Shape32({2}), key, counter,
                                         Tensor::Scalar<int32_t>(4)})
                   .status(),
               StatusIs(kInvalid,
                        "counter must be a vector with length at "
                        "least 4; got shape: [2]"));
    CHECK_THAT(testing::RunKernel(
                   node, {Shape32({2}), Tensor::FromVector<uint64_t>({5, 6}),
                          counter, Tensor::Scalar<int32_t>(1)})
                   .status(),
               StatusIs(kInvalid, "key must have shape [1], not [2]"));
    CHECK_THAT(testing::RunKernel(
                   node, {Shape32({2}), key, Tensor::FromVector<uint64_t>({0}),
                          Tensor::Scalar<int32_t>(1)})
                   .status(),
               StatusIs(kInvalid,
                        "counter must be a vector with length at "
                        "least 2 for the Philox algorithm"));
    CHECK_THAT(testing::RunKernel(node, {Shape32({2}), key, counter,
                                         Tensor::FromVector<int32_t>({1})})
                   .status(),
               StatusIs(kInvalid, "input 3 (0-based) must have shape []"));
  }
  SECTION("multinomial needs a matrix of logits with classes") {
    const NodeDef node = TestNodeBuilder("m", "Multinomial", 2)
                             .Attr("T", DT_DOUBLE)
                             .Attr("seed", 1)
                             .Build();
    CHECK_THAT(testing::RunKernel(node, {Tensor::FromVector<double>({1, 2}),
                                         Tensor::Scalar<int32_t>(2)})
                   .status(),
               StatusIs(kInvalid, "logits should be a matrix, got shape [2]"));
    CHECK_THAT(testing::RunKernel(node, {Tensor(DT_DOUBLE, TensorShape({2, 0})),
                                         Tensor::Scalar<int32_t>(2)})
                   .status(),
               StatusIs(kInvalid, "num_classes should be positive, got 0"));
    CHECK_THAT(
        testing::RunKernel(node, {Tensor(DT_DOUBLE, TensorShape({2, 3})),
                                  Tensor::Scalar<int32_t>(-1)})
            .status(),
        StatusIs(kInvalid, "num_samples should be non-negative, got -1"));
  }
}

TEST_CASE("Multinomial never picks a class whose logit is -inf") {
  const float inf = std::numeric_limits<float>::infinity();
  absl::StatusOr<std::vector<Tensor>> out = testing::RunKernel(
      TestNodeBuilder("m", "StatelessMultinomial", 3)
          .Attr("T", DT_FLOAT)
          .Attr("output_dtype", DT_INT32)
          .Build(),
      {Tensor::FromVector<float>({-inf, 0, -inf, 5}, TensorShape({2, 2})),
       Tensor::Scalar<int32_t>(50), Tensor::FromVector<int64_t>({4, 4})});
  REQUIRE_OK(out);
  const std::vector<int32_t> v = Values<int32_t>((*out)[0]);
  for (int32_t x : v) CHECK(x == 1);
}

TEST_CASE("RandomShuffle moves whole rows of any dtype") {
  const NodeDef strings = TestNodeBuilder("s", "RandomShuffle", 1)
                              .Attr("T", DT_STRING)
                              .Attr("seed", 3)
                              .Attr("seed2", 3)
                              .Build();
  const NodeDef ints = TestNodeBuilder("s", "RandomShuffle", 1)
                           .Attr("T", DT_INT64)
                           .Attr("seed", 3)
                           .Attr("seed2", 3)
                           .Build();
  Tensor s(DT_STRING, TensorShape({5, 2}));
  Tensor n(DT_INT64, TensorShape({5, 2}));
  for (int i = 0; i < 10; ++i) {
    s.data<std::string>()[i] = std::to_string(i);
    n.data<int64_t>()[i] = i;
  }
  absl::StatusOr<std::vector<Tensor>> a = testing::RunKernel(strings, {s});
  absl::StatusOr<std::vector<Tensor>> b = testing::RunKernel(ints, {n});
  REQUIRE_OK(a);
  REQUIRE_OK(b);
  std::set<int64_t> rows;
  for (int i = 0; i < 10; ++i) {
    CHECK((*a)[0].data<std::string>()[i] ==
          std::to_string((*b)[0].data<int64_t>()[i]));
    if (i % 2 == 0) {
      CHECK((*b)[0].data<int64_t>()[i + 1] == (*b)[0].data<int64_t>()[i] + 1);
      rows.insert((*b)[0].data<int64_t>()[i]);
    }
  }
  CHECK(rows.size() == 5);
  // A scalar or a single row comes back as it is.
  absl::StatusOr<std::vector<Tensor>> c =
      testing::RunKernel(ints, {Tensor::Scalar<int64_t>(9)});
  REQUIRE_OK(c);
  CHECK((*c)[0].scalar<int64_t>() == 9);
}

// ---- Shape functions --------------------------------------------------------

std::string Str(const absl::StatusOr<std::vector<PartialShape>>& r, int i = 0) {
  if (!r.ok()) return r.status().ToString();
  return (*r)[i].DebugString();
}

PartialShape S(std::vector<int64_t> dims) {
  return PartialShape::Known(std::move(dims));
}

TEST_CASE("Random shape functions read constant shapes") {
  const NodeDef uniform = Stateful("RandomUniform", DT_FLOAT, 1, 1);
  CHECK(Str(InferShapes(uniform, {S({3})}, {Shape32({2, -1, 4})})) ==
        "[2,?,4]");
  CHECK(Str(InferShapes(uniform, {S({3})})) == "[?,?,?]");
  CHECK(Str(InferShapes(uniform, {PartialShape::Unknown()})) == "<unknown>");
  CHECK_THAT(InferShapes(uniform, {S({})}).status(), StatusIs(kInvalid));
  CHECK_THAT(InferShapes(uniform, {S({2})}, {Shape32({2, -3})}).status(),
             StatusIs(kInvalid, "must be >= -1"));

  const NodeDef v1 = TestNodeBuilder("u", "StatelessRandomUniformInt", 4)
                         .Attr("dtype", DT_INT32)
                         .Attr("T", DT_INT32)
                         .Build();
  CHECK(Str(InferShapes(v1, {S({2}), S({2}), S({}), S({})},
                        {Shape32({5, 6})})) == "[5,6]");
  CHECK_THAT(InferShapes(v1, {S({2}), S({3}), S({}), S({})}).status(),
             StatusIs(kInvalid, "seed must have shape [2]"));
  CHECK_THAT(InferShapes(v1, {S({2}), S({2}), S({1}), S({})}).status(),
             StatusIs(kInvalid));

  const NodeDef v2 = TestNodeBuilder("u", "StatelessRandomNormalV2", 4).Build();
  CHECK(Str(InferShapes(v2, {S({1}), S({1}), S({2}), S({})})) == "[?]");
  CHECK_THAT(InferShapes(v2, {S({1}), S({2}), S({2}), S({})}).status(),
             StatusIs(kInvalid, "key must have shape [1]"));
  CHECK_THAT(InferShapes(v2, {S({1}), S({1}), S({2}), S({1})}).status(),
             StatusIs(kInvalid));

  const NodeDef multinomial =
      TestNodeBuilder("m", "Multinomial", 2).Attr("T", DT_FLOAT).Build();
  CHECK(Str(InferShapes(multinomial, {S({4, 3}), S({})},
                        {Tensor(), Tensor::Scalar<int32_t>(7)})) == "[4,7]");
  CHECK(Str(InferShapes(multinomial, {S({-1, 3}), S({})})) == "[?,?]");
  CHECK_THAT(InferShapes(multinomial, {S({3}), S({})}).status(),
             StatusIs(kInvalid));

  const NodeDef kc =
      TestNodeBuilder("k", "StatelessRandomGetKeyCounterAlg", 1).Build();
  absl::StatusOr<std::vector<PartialShape>> kc_out = InferShapes(kc, {S({2})});
  CHECK(Str(kc_out, 0) == "[1]");
  CHECK(Str(kc_out, 1) == "[2]");
  CHECK(Str(kc_out, 2) == "[]");
  const NodeDef shuffle =
      TestNodeBuilder("s", "RandomShuffle", 1).Attr("T", DT_FLOAT).Build();
  CHECK(Str(InferShapes(shuffle, {S({5, 2})})) == "[5,2]");
}

}  // namespace
}  // namespace dfx

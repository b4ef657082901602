// The tarray family's ops (tests/golden/gen_tarray.py: TensorFlow's
// TensorArray ops before V3 and its stacks before V2): TensorFlow 2.21's
// signatures and CPU kernel types, the V2 ops' shape checks, and what the
// golden cases cannot show: the string handles themselves, malformed or
// foreign handles, and that a reference handle, a string handle and a
// resource handle name one array.
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "catch2/catch.hpp"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "kernels/kernels.h"
#include "runtime/op_kernel.h"
#include "runtime/resource_mgr.h"
#include "runtime/tensor.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using absl::StatusCode;
using testing::StatusIs;
using testing::TestCpuDevice;
using testing::TestNodeBuilder;

Tensor I32(int32_t v) { return Tensor::Scalar<int32_t>(v); }
Tensor Flow() { return Tensor::Scalar<float>(0.0f); }
Tensor Floats(std::vector<float> v) { return Tensor::FromVector<float>(v); }
Tensor Strings(std::vector<std::string> v) {
  Tensor t(DT_STRING, TensorShape({static_cast<int64_t>(v.size())}));
  for (size_t i = 0; i < v.size(); ++i) t.data<std::string>()[i] = v[i];
  return t;
}
std::vector<std::string> StringValues(const Tensor& t) {
  return std::vector<std::string>(t.data<std::string>(),
                                  t.data<std::string>() + t.NumElements());
}

absl::StatusOr<PartialShape> Infer(const NodeDef& node_in,
                                   std::vector<PartialShape> inputs) {
  const OpRegistrationData* op = OpRegistry::Global()->LookUp(node_in.op());
  if (op == nullptr) return absl::NotFoundError(node_in.op());
  NodeDef node = node_in;
  AddDefaultAttrs(op->op_def, &node);
  std::vector<const TensorProto*> consts(inputs.size(), nullptr);
  InferenceContext c(node, op->op_def, std::move(inputs), consts,
                     op->op_def.output_arg_size());
  absl::Status s = op->shape_fn(&c);
  if (!s.ok()) return s;
  if (c.num_outputs() == 0) return PartialShape::Known({});
  return c.output(0);
}

// What one kernel call gave: its outputs, with a reference output's tensor
// (copied out under its mutex) in place of the missing value.
struct Result {
  std::vector<Tensor> outputs;
  TensorRef ref;  // output 0's reference, when it is one
};

// One step: kernels run one after another with the step's container, as an
// executor runs them. Each input given as a TensorRef goes in by reference.
class Step {
 public:
  Step() : container_(next_id_++, TestCpuDevice()->resource_manager()) {}

  absl::StatusOr<Result> Run(const NodeDef& node_in,
                             const std::vector<Tensor>& inputs,
                             std::vector<TensorRef> refs = {}) {
    const OpRegistrationData* op = OpRegistry::Global()->LookUp(node_in.op());
    if (op == nullptr) return absl::NotFoundError(node_in.op());
    NodeDef node = node_in;
    AddDefaultAttrs(op->op_def, &node);
    absl::StatusOr<std::unique_ptr<OpKernel>> kernel =
        StandardKernelRegistry()->CreateKernel(node, op->op_def,
                                               TestCpuDevice());
    if (!kernel.ok()) return kernel.status();
    std::vector<Tensor> in = inputs;
    if (!refs.empty()) {
      // The reference inputs' values, as the executor also passes them.
      for (size_t i = 0; i < refs.size(); ++i) {
        if (refs[i].valid()) in[i] = *refs[i].tensor;
      }
      refs.resize(in.size());
    }
    OpKernelContext::Params params;
    params.step_id = 1;
    params.op_kernel = kernel->get();
    params.device = TestCpuDevice();
    params.inputs = in;
    params.input_refs = refs;
    params.step_container = &container_;
    OpKernelContext ctx(&params);
    (*kernel)->Compute(&ctx);
    if (!ctx.status().ok()) return ctx.status();
    Result r;
    r.outputs.assign(ctx.mutable_outputs()->begin(),
                     ctx.mutable_outputs()->end());
    if (!ctx.output_refs().empty()) r.ref = ctx.output_refs()[0];
    return r;
  }

 private:
  static std::atomic<int64_t> next_id_;
  ScopedStepContainer container_;
};
std::atomic<int64_t> Step::next_id_{5000};

TEST_CASE("Every tarray op has TensorFlow 2.21's signature and CPU types",
          "[tarray]") {
  testing::CheckSignaturesWithTensorFlow("tarray", 26);
}

TEST_CASE("The deprecated tarray ops carry TensorFlow's deprecation versions",
          "[tarray]") {
  // A GraphDef produced at or after the version may not hold the op.
  const std::pair<const char*, int> want[] = {{"TensorArray", 16},
                                              {"TensorArrayScatter", 19},
                                              {"TensorArrayUnpack", 20},
                                              {"TensorArrayV2", 26},
                                              {"TensorArrayReadV2", 26},
                                              {"TensorArrayConcatV2", 0},
                                              {"Stack", 0},
                                              {"StackPush", 0}};
  for (const auto& [name, version] : want) {
    INFO(name);
    const OpRegistrationData* op = OpRegistry::Global()->LookUp(name);
    REQUIRE(op != nullptr);
    CHECK(op->op_def.deprecation().version() == version);
  }
}

TEST_CASE("The V2 TensorArray shape functions check the [2] string handle",
          "[tarray]") {
  const NodeDef ta =
      TestNodeBuilder("ta", "TensorArrayV2", 1).Attr("dtype", DT_FLOAT).Build();
  CHECK(Infer(ta, {PartialShape::Scalar()})->DebugString() ==
        PartialShape::Known({2}).DebugString());
  CHECK_THAT(Infer(ta, {PartialShape::Known({1})}).status(),
             StatusIs(StatusCode::kInvalidArgument));

  const NodeDef write =
      TestNodeBuilder("w", "TensorArrayWriteV2", 4).Attr("T", DT_FLOAT).Build();
  CHECK(Infer(write, {PartialShape::Known({2}), PartialShape::Scalar(),
                      PartialShape::Known({3}), PartialShape::Scalar()})
            ->DebugString() == PartialShape::Scalar().DebugString());
  // A handle of three strings, an index vector.
  CHECK_THAT(Infer(write, {PartialShape::Known({3}), PartialShape::Scalar(),
                           PartialShape::Known({3}), PartialShape::Scalar()})
                 .status(),
             StatusIs(StatusCode::kInvalidArgument));
  CHECK_THAT(Infer(write, {PartialShape::Known({2}), PartialShape::Known({1}),
                           PartialShape::Known({3}), PartialShape::Scalar()})
                 .status(),
             StatusIs(StatusCode::kInvalidArgument));

  const NodeDef gather = TestNodeBuilder("g", "TensorArrayGatherV2", 3)
                             .Attr("dtype", DT_FLOAT)
                             .Build();
  CHECK_THAT(Infer(gather, {PartialShape::Known({2}), PartialShape::Scalar(),
                            PartialShape::Scalar()})
                 .status(),
             StatusIs(StatusCode::kInvalidArgument));
  const NodeDef stack =
      TestNodeBuilder("s", "Stack", 0).Attr("elem_type", DT_FLOAT).Build();
  CHECK(Infer(stack, {})->DebugString() ==
        PartialShape::Known({2}).DebugString());
}

TEST_CASE(
    "TensorArrayV2's handle is TensorFlow's two strings and names "
    "the array for every later op",
    "[tarray]") {
  Step step;
  auto made = step.Run(TestNodeBuilder("my_array", "TensorArrayV2", 1)
                           .Attr("dtype", DT_FLOAT)
                           .Build(),
                       {I32(2)});
  REQUIRE_OK(made);
  REQUIRE(made->outputs.size() == 1);  // no flow output before V3
  const Tensor h = made->outputs[0];
  REQUIRE(h.dtype() == DT_STRING);
  REQUIRE(h.shape() == TensorShape({2}));
  CHECK(h.data<std::string>()[0] == "_tensor_arrays");
  // The node's name, made unique in the process.
  CHECK(h.data<std::string>()[1].rfind("my_array_", 0) == 0);

  REQUIRE_OK(step.Run(TestNodeBuilder("w", "TensorArrayWriteV2", 4)
                          .Attr("T", DT_FLOAT)
                          .Build(),
                      {h, I32(1), Floats({4, 5}), Flow()})
                 .status());
  auto read = step.Run(TestNodeBuilder("r", "TensorArrayReadV2", 3)
                           .Attr("dtype", DT_FLOAT)
                           .Build(),
                       {h, I32(1), Flow()});
  REQUIRE_OK(read);
  CHECK(read->outputs[0].data<float>()[1] == 5.0f);

  // Its gradient array's handle names the gradient container.
  auto grad = step.Run(TestNodeBuilder("g", "TensorArrayGradV2", 2)
                           .Attr("source", "gradients")
                           .Build(),
                       {h, Flow()});
  REQUIRE_OK(grad);
  const Tensor gh = grad->outputs[0];
  CHECK(StringValues(gh) ==
        std::vector<std::string>{"_tensor_array_grads",
                                 h.data<std::string>()[1] + "@gradients"});
  // A gradient of the gradient array: TensorFlow refuses its container.
  CHECK_THAT(step.Run(TestNodeBuilder("gg", "TensorArrayGradV2", 2)
                          .Attr("source", "gradients")
                          .Build(),
                      {gh, Flow()})
                 .status(),
             StatusIs(StatusCode::kInvalidArgument,
                      "Input container should be '_tensor_arrays'"));
}

TEST_CASE("A malformed or unknown string handle fails without a crash",
          "[tarray]") {
  Step step;
  const NodeDef size = TestNodeBuilder("s", "TensorArraySizeV2", 2).Build();
  CHECK_THAT(step.Run(size, {Strings({"_tensor_arrays"}), Flow()}).status(),
             StatusIs(StatusCode::kInvalidArgument, "handle of 2 strings"));
  CHECK_THAT(
      step.Run(size, {Strings({"_tensor_arrays", "a", "b"}), Flow()}).status(),
      StatusIs(StatusCode::kInvalidArgument));
  // Well formed, but no such array in this step.
  CHECK_THAT(step.Run(size, {Strings({"_tensor_arrays", "missing_0"}), Flow()})
                 .status(),
             StatusIs(StatusCode::kNotFound));
  // A stack's handle names no TensorArray.
  auto stack = step.Run(
      TestNodeBuilder("st", "StackV2", 1).Attr("elem_type", DT_FLOAT).Build(),
      {I32(-1)});
  REQUIRE_OK(stack);
  CHECK_THAT(step.Run(TestNodeBuilder("s3", "TensorArraySizeV3", 2).Build(),
                      {stack->outputs[0], Flow()})
                 .status(),
             StatusIs(StatusCode::kNotFound));
}

TEST_CASE("The v1 TensorArray hands out a reference its ops read through",
          "[tarray]") {
  Step step;
  auto made = step.Run(
      TestNodeBuilder("ta", "TensorArray", 1).Attr("dtype", DT_FLOAT).Build(),
      {I32(3)});
  REQUIRE_OK(made);
  const TensorRef h = made->ref;
  REQUIRE(h.valid());
  REQUIRE(StringValues(*h.tensor)[0] == "_tensor_arrays");

  auto unpack = step.Run(
      TestNodeBuilder("u", "TensorArrayUnpack", 3).Attr("T", DT_FLOAT).Build(),
      {Tensor(), Floats({1, 2, 3}), Flow()}, {h});
  REQUIRE_OK(unpack);
  auto pack = step.Run(TestNodeBuilder("p", "TensorArrayPack", 2)
                           .Attr("dtype", DT_FLOAT)
                           .Build(),
                       {Tensor(), Flow()}, {h});
  REQUIRE_OK(pack);
  CHECK(pack->outputs[0].shape() == TensorShape({3}));
  CHECK(pack->outputs[0].data<float>()[2] == 3.0f);

  // TensorArrayGrad takes the handle by value, as TensorFlow's does.
  auto grad = step.Run(
      TestNodeBuilder("g", "TensorArrayGrad", 2).Attr("source", "s").Build(),
      {*h.tensor, Flow()});
  REQUIRE_OK(grad);
  REQUIRE(grad->ref.valid());
  // One reference per gradient array: a second Grad op of one source
  // refers to the same tensor.
  auto again = step.Run(
      TestNodeBuilder("g2", "TensorArrayGrad", 2).Attr("source", "s").Build(),
      {*h.tensor, Flow()});
  REQUIRE_OK(again);
  CHECK(again->ref.tensor == grad->ref.tensor);
}

TEST_CASE("The v1 Stack pops what was pushed, last first, with no bound",
          "[tarray]") {
  Step step;
  auto made = step.Run(
      TestNodeBuilder("s", "Stack", 0).Attr("elem_type", DT_INT32).Build(), {});
  REQUIRE_OK(made);
  const TensorRef h = made->ref;
  REQUIRE(h.valid());
  CHECK(StringValues(*h.tensor)[0] == "_stacks");
  const NodeDef push = TestNodeBuilder("p", "StackPush", 2)
                           .Attr("T", DT_INT32)
                           .Attr("swap_memory", true)
                           .Build();
  for (int32_t i = 0; i < 100; ++i) {
    REQUIRE_OK(step.Run(push, {Tensor(), I32(i)}, {h}).status());
  }
  const NodeDef pop =
      TestNodeBuilder("q", "StackPop", 1).Attr("elem_type", DT_INT32).Build();
  auto top = step.Run(pop, {Tensor()}, {h});
  REQUIRE_OK(top);
  CHECK(top->outputs[0].scalar<int32_t>() == 99);
  CHECK_THAT(
      step.Run(
              TestNodeBuilder("p2", "StackPush", 2).Attr("T", DT_FLOAT).Build(),
              {Tensor(), Floats({1})}, {h})
          .status(),
      StatusIs(StatusCode::kInvalidArgument));
  REQUIRE_OK(
      step.Run(TestNodeBuilder("c", "StackClose", 1).Build(), {Tensor()}, {h})
          .status());
  CHECK_THAT(step.Run(pop, {Tensor()}, {h}).status(),
             StatusIs(StatusCode::kInvalidArgument, "has already been closed"));
}

TEST_CASE("Writes through one string handle from many threads all land",
          "[tarray]") {
  Step step;
  constexpr int kThreads = 8;
  auto made = step.Run(
      TestNodeBuilder("ta", "TensorArrayV2", 1).Attr("dtype", DT_INT32).Build(),
      {I32(kThreads)});
  REQUIRE_OK(made);
  const Tensor h = made->outputs[0];
  const NodeDef write =
      TestNodeBuilder("w", "TensorArrayWriteV2", 4).Attr("T", DT_INT32).Build();
  std::vector<absl::Status> statuses(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      // Each thread writes its index, then tries the next thread's too:
      // exactly one write of every index succeeds.
      statuses[i] = step.Run(write, {h, I32(i), I32(i * 10), Flow()}).status();
      step.Run(write, {h, I32((i + 1) % kThreads), I32(-1), Flow()})
          .IgnoreError();
    });
  }
  for (std::thread& t : threads) t.join();
  std::vector<int32_t> indices(kThreads);
  for (int i = 0; i < kThreads; ++i) indices[i] = i;
  auto gathered = step.Run(TestNodeBuilder("g", "TensorArrayGatherV2", 3)
                               .Attr("dtype", DT_INT32)
                               .Build(),
                           {h, Tensor::FromVector<int32_t>(indices), Flow()});
  REQUIRE_OK(gathered);
  int own = 0;
  for (int i = 0; i < kThreads; ++i) {
    const int32_t v = gathered->outputs[0].data<int32_t>()[i];
    CHECK((v == i * 10 || v == -1));
    own += statuses[i].ok() ? 1 : 0;
  }
  // A thread's own write failed only where its neighbour got there first.
  int neighbours = 0;
  for (int i = 0; i < kThreads; ++i) {
    neighbours += gathered->outputs[0].data<int32_t>()[i] == -1 ? 1 : 0;
  }
  CHECK(own + neighbours == kThreads);
}

TEST_CASE("A TensorArray or stack op outside a step fails without a crash",
          "[tarray]") {
  // The arrays and stacks live in the step's container; a kernel run
  // without one (not through an executor) gets Internal. (The executor
  // puts the node's name in front of a kernel's error.)
  CHECK_THAT(testing::RunKernel(TestNodeBuilder("arr", "TensorArrayV2", 1)
                                    .Attr("dtype", DT_FLOAT)
                                    .Build(),
                                {I32(2)})
                 .status(),
             StatusIs(StatusCode::kInternal, "no per-step container"));
  CHECK_THAT(
      testing::RunKernel(
          TestNodeBuilder("st", "Stack", 0).Attr("elem_type", DT_FLOAT).Build(),
          {})
          .status(),
      StatusIs(StatusCode::kInternal, "no per-step container"));
}

}  // namespace
}  // namespace dfx

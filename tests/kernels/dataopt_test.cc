// The dataopt family (graph/ops/dataopt_ops.cc, kernels/data/
// dataopt_kernels.cc): TensorFlow 2.21's signatures, and what the golden
// cases (tests/golden/gen_dataopt.py) cannot show: ChooseFastestBranchDataset
// keeps the branch that was fastest (branches that deliberately differ,
// one slowed by a SleepDataset, so the choice shows in the elements),
// wherever it stands among the branches; MapDefun's shape function, and
// its refusal of a function with fewer results than outputs (where
// TensorFlow leaves the outputs unwritten) and its cancellation; bad attrs
// fail the kernel's construction.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "google/protobuf/text_format.h"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "kernels/kernels.h"
#include "proto/function.pb.h"
#include "runtime/cancellation.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/shape_fn_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::RunKernel;
using testing::StatusIs;
using testing::TestNodeBuilder;

Tensor I64(int64_t v) { return Tensor::Scalar<int64_t>(v); }

// slow(v): v's elements, each after 20 ms. skip1(v): v without its first
// element. add(x, c): x + c (int64).
FunctionDefLibrary Library() {
  const char* const kFunctions[] = {
      R"pb(signature {
             name: "slow"
             input_arg { name: "v" type: DT_VARIANT }
             output_arg { name: "out" type: DT_VARIANT }
           }
           node_def {
             name: "c"
             op: "Const"
             attr {
               key: "dtype"
               value { type: DT_INT64 }
             }
             attr {
               key: "value"
               value {
                 tensor {
                   dtype: DT_INT64
                   tensor_shape {}
                   int64_val: 20000
                 }
               }
             }
           }
           node_def {
             name: "s"
             op: "SleepDataset"
             input: "v"
             input: "c:output:0"
             attr {
               key: "output_types"
               value { list { type: DT_INT64 } }
             }
             attr {
               key: "output_shapes"
               value { list { shape {} } }
             }
           }
           ret { key: "out" value: "s:handle:0" })pb",
      R"pb(signature {
             name: "skip1"
             input_arg { name: "v" type: DT_VARIANT }
             output_arg { name: "out" type: DT_VARIANT }
           }
           node_def {
             name: "c"
             op: "Const"
             attr {
               key: "dtype"
               value { type: DT_INT64 }
             }
             attr {
               key: "value"
               value {
                 tensor {
                   dtype: DT_INT64
                   tensor_shape {}
                   int64_val: 1
                 }
               }
             }
           }
           node_def {
             name: "k"
             op: "SkipDataset"
             input: "v"
             input: "c:output:0"
             attr {
               key: "output_types"
               value { list { type: DT_INT64 } }
             }
             attr {
               key: "output_shapes"
               value { list { shape {} } }
             }
           }
           ret { key: "out" value: "k:handle:0" })pb",
      R"pb(signature {
             name: "add"
             input_arg { name: "x" type: DT_INT64 }
             input_arg { name: "c" type: DT_INT64 }
             output_arg { name: "out" type: DT_INT64 }
           }
           node_def {
             name: "a"
             op: "AddV2"
             input: "x"
             input: "c"
             attr {
               key: "T"
               value { type: DT_INT64 }
             }
           }
           ret { key: "out" value: "a:z:0" })pb"};
  FunctionDefLibrary library;
  for (const char* text : kFunctions) {
    REQUIRE(google::protobuf::TextFormat::ParseFromString(
        text, library.add_function()));
  }
  return library;
}

// Runs `node` with the functions of Library().
absl::StatusOr<std::vector<Tensor>> RunWithLibrary(
    NodeDef node, const std::vector<Tensor>& inputs,
    CancellationManager* cm = nullptr) {
  const FunctionDefLibrary library = Library();
  const OpRegistrationData* reg = OpRegistry::Global()->LookUp(node.op());
  if (reg == nullptr) return absl::NotFoundError(node.op());
  AddDefaultAttrs(reg->op_def, &node);
  absl::StatusOr<std::unique_ptr<OpKernel>> kernel =
      StandardKernelRegistry()->CreateKernel(
          node, reg->op_def, testing::TestCpuDevice(), &library);
  if (!kernel.ok()) return kernel.status();
  OpKernelContext::Params params;
  params.op_kernel = kernel->get();
  params.device = testing::TestCpuDevice();
  params.inputs = inputs;
  params.cancellation_manager = cm;
  OpKernelContext ctx(&params);
  (*kernel)->Compute(&ctx);
  if (!ctx.status().ok()) return ctx.status();
  return std::vector<Tensor>(ctx.mutable_outputs()->begin(),
                             ctx.mutable_outputs()->end());
}

NameAttrList Func(const std::string& name) {
  NameAttrList f;
  f.set_name(name);
  return f;
}

Tensor Range(int64_t n) {
  absl::StatusOr<std::vector<Tensor>> out =
      RunKernel(TestNodeBuilder("range", "RangeDataset", 3)
                    .Attr("output_types", DataTypeVector{DT_INT64})
                    .Build(),
                {I64(0), I64(n), I64(1)});
  REQUIRE(out.ok());
  return (*out)[0];
}

absl::StatusOr<Tensor> ChooseFastest(const Tensor& input,
                                     const std::vector<std::string>& branches,
                                     int64_t per_branch,
                                     std::vector<int64_t> lengths = {}) {
  NodeDef node = TestNodeBuilder("choose", "ChooseFastestBranchDataset", 3)
                     .Attr("output_types", DataTypeVector{DT_INT64})
                     .Attr("Targuments", DataTypeVector{})
                     .Attr("num_elements_per_branch", per_branch)
                     .Build();
  if (lengths.empty()) lengths.assign(branches.size(), 0);
  auto* list = (*node.mutable_attr())["branches"].mutable_list();
  for (const std::string& b : branches) *list->add_func() = Func(b);
  auto* ls = (*node.mutable_attr())["other_arguments_lengths"].mutable_list();
  for (int64_t l : lengths) ls->add_i(l);
  (*node.mutable_attr())["output_shapes"].mutable_list()->add_shape();
  absl::StatusOr<std::vector<Tensor>> out =
      RunWithLibrary(node, {input, I64(1), I64(1)});
  if (!out.ok()) return out.status();
  return (*out)[0];
}

// Reads `n` times from an iterator over `ds`: each element, or -1 for an
// end of sequence (the choosing iterator goes on after one).
std::vector<int64_t> Read(const Tensor& ds, int n) {
  absl::StatusOr<std::vector<Tensor>> it =
      RunKernel(TestNodeBuilder("it", "AnonymousIteratorV3", 0)
                    .Attr("output_types", DataTypeVector{DT_INT64})
                    .Build(),
                {});
  REQUIRE(it.ok());
  REQUIRE(RunKernel(TestNodeBuilder("make", "MakeIterator", 2).Build(),
                    {ds, (*it)[0]})
              .ok());
  std::vector<int64_t> got;
  for (int i = 0; i < n; ++i) {
    absl::StatusOr<std::vector<Tensor>> e =
        RunKernel(TestNodeBuilder("next", "IteratorGetNext", 1)
                      .Attr("output_types", DataTypeVector{DT_INT64})
                      .Build(),
                  {(*it)[0]});
    if (!e.ok()) {
      REQUIRE(absl::IsOutOfRange(e.status()));
      got.push_back(-1);
    } else {
      got.push_back((*e)[0].scalar<int64_t>());
    }
  }
  (void)RunKernel(TestNodeBuilder("del", "DeleteIterator", 2).Build(),
                  {(*it)[0], Tensor(DT_VARIANT, TensorShape({}))});
  return got;
}

TEST_CASE("Every dataopt op has TensorFlow 2.21's signature and CPU types",
          "[dataopt]") {
  testing::CheckSignaturesWithTensorFlow("dataopt", 3);
}

TEST_CASE("ChooseFastestBranchDataset keeps the fastest branch, first or last",
          "[dataopt]") {
  // Two elements per branch through a take of two input elements; the
  // first of each branch is not timed. skip1 skips one element at each
  // iterator it makes, so the elements show which branch was kept: after
  // the experiments the slow branch would give 4 next, skip1 gives 5.
  {
    // slow: 0, 1 (20 ms); skip1: skips 2, gives 3, then its take's end.
    absl::StatusOr<Tensor> ds = ChooseFastest(Range(100), {"slow", "skip1"}, 2);
    REQUIRE(ds.ok());
    CHECK(Read(*ds, 7) == std::vector<int64_t>{0, 1, 3, -1, 5, 6, 7});
  }
  {
    // skip1: skips 0, gives 1, then the end; slow: 2, 3 (20 ms).
    absl::StatusOr<Tensor> ds = ChooseFastest(Range(100), {"skip1", "slow"}, 2);
    REQUIRE(ds.ok());
    CHECK(Read(*ds, 7) == std::vector<int64_t>{1, -1, 2, 3, 5, 6, 7});
  }
}

TEST_CASE("ChooseFastestBranchDataset refuses bad branch arguments",
          "[dataopt]") {
  CHECK_THAT(ChooseFastest(Range(3), {"slow", "skip1"}, 2, {0}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "branches and other_arguments_lengths must have the "
                      "same length"));
  // Lengths past the (no) other_arguments: TensorFlow reads out of bounds.
  CHECK_THAT(
      ChooseFastest(Range(3), {"slow", "skip1"}, 2, {1, 0}).status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "other_arguments_lengths"));
  CHECK_THAT(ChooseFastest(Range(3), {"missing"}, 2).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "missing"));
}

NodeDef MapDefunNode(int outputs) {
  NodeDef node =
      TestNodeBuilder("md", "MapDefun", 2)
          .Attr("Targuments", DataTypeVector{DT_INT64})
          .Attr("Tcaptured", DataTypeVector{DT_INT64})
          .Attr("output_types",
                DataTypeVector(static_cast<size_t>(outputs), DT_INT64))
          .Build();
  *(*node.mutable_attr())["f"].mutable_func() = Func("add");
  auto* shapes = (*node.mutable_attr())["output_shapes"].mutable_list();
  for (int i = 0; i < outputs; ++i)
    shapes->add_shape()->add_dim()->set_size(-1);
  return node;
}

TEST_CASE("MapDefun's outputs are the arguments' rows by output_shapes",
          "[dataopt]") {
  const NodeDef node = MapDefunNode(1);
  CHECK(testing::ShapesString(testing::InferShapes(
            node, {PartialShape::Known({3, 2}), PartialShape::Known({})})) ==
        "[3,?]");
  CHECK(testing::ShapesString(testing::InferShapes(
            node, {PartialShape::Unknown(), PartialShape::Known({})})) ==
        "[?,?]");
  CHECK_THAT(testing::InferShapes(
                 node, {PartialShape::Known({}), PartialShape::Known({})})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "rank at least 1"));
}

TEST_CASE("MapDefun runs its function per row and refuses missing results",
          "[dataopt]") {
  Tensor x(DT_INT64, TensorShape({3, 2}));
  for (int i = 0; i < 6; ++i) x.data<int64_t>()[i] = i;
  absl::StatusOr<std::vector<Tensor>> out =
      RunWithLibrary(MapDefunNode(1), {x, I64(10)});
  REQUIRE(out.ok());
  REQUIRE((*out)[0].shape() == TensorShape({3, 2}));
  CHECK((*out)[0].data<int64_t>()[5] == 15);
  // Two outputs, one result: TensorFlow returns an unwritten second
  // output.
  CHECK_THAT(RunWithLibrary(MapDefunNode(2), {x, I64(10)}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "Mismatch in number of function outputs"));
}

TEST_CASE("MapDefun stops when its step is cancelled", "[dataopt]") {
  Tensor x(DT_INT64, TensorShape({1000, 2}));
  for (int i = 0; i < 2000; ++i) x.data<int64_t>()[i] = i;
  CancellationManager cm;
  cm.StartCancel();
  CHECK_THAT(RunWithLibrary(MapDefunNode(1), {x, I64(1)}, &cm).status(),
             StatusIs(absl::StatusCode::kCancelled, "add"));
}

TEST_CASE("WindowOp's elements are its inputs, whole elements only",
          "[dataopt]") {
  NodeDef node =
      TestNodeBuilder("w", "WindowOp", 3)
          .Attr("output_types", DataTypeVector{DT_INT64})
          .Attr("Tinputs", DataTypeVector{DT_INT64, DT_INT64, DT_INT64})
          .Build();
  (*node.mutable_attr())["output_shapes"].mutable_list()->add_shape();
  absl::StatusOr<std::vector<Tensor>> ds =
      RunKernel(node, {I64(4), I64(5), I64(6)});
  REQUIRE(ds.ok());
  CHECK(Read((*ds)[0], 4) == std::vector<int64_t>{4, 5, 6, -1});
}

}  // namespace
}  // namespace dfx

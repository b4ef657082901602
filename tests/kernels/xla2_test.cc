// The xla2 family's ops (tests/golden/gen_xla2.py: TensorFlow's XLA reduce,
// sort and while ops): TensorFlow 2.21's signatures and CPU kernel types,
// the shape functions, both ways a function attr runs (the fast path and
// the function runtime), and the inputs on which TensorFlow aborts, where
// dfx says InvalidArgument.
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "base/status_macros.h"
#include "catch2/catch.hpp"
#include "google/protobuf/text_format.h"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "kernels/kernels.h"
#include "proto/function.pb.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/shape_fn_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::InferShape;
using testing::InferShapes;
using testing::RunKernel;
using testing::ShapesString;
using testing::StatusIs;
using testing::TestNodeBuilder;

std::string Str(const absl::StatusOr<PartialShape>& s) {
  return s.ok() ? s->DebugString() : s.status().ToString();
}

// add_f32(a, b) = a + b (the fast path); checked_add(a, b) =
// CheckNumerics(a + b) (two ops: the function runtime).
constexpr char kLibrary[] = R"pb(
  function {
    signature {
      name: "add_f32"
      input_arg { name: "a" type: DT_FLOAT }
      input_arg { name: "b" type: DT_FLOAT }
      output_arg { name: "c" type: DT_FLOAT }
    }
    node_def {
      name: "add"
      op: "AddV2"
      input: "a"
      input: "b"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    }
    ret { key: "c" value: "add:z:0" }
  }
  function {
    signature {
      name: "checked_add"
      input_arg { name: "a" type: DT_FLOAT }
      input_arg { name: "b" type: DT_FLOAT }
      output_arg { name: "c" type: DT_FLOAT }
    }
    node_def {
      name: "add"
      op: "AddV2"
      input: "a"
      input: "b"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    }
    node_def {
      name: "check"
      op: "CheckNumerics"
      input: "add:z:0"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
      attr {
        key: "message"
        value { s: "sum" }
      }
    }
    ret { key: "c" value: "check:output:0" }
  }
)pb";

const FunctionDefLibrary& Library() {
  static const FunctionDefLibrary* library = [] {
    auto* l = new FunctionDefLibrary();
    REQUIRE(google::protobuf::TextFormat::ParseFromString(kLibrary, l));
    return l;
  }();
  return *library;
}

void SetFunc(NodeDef* node, const std::string& attr, const std::string& f) {
  (*node->mutable_attr())[attr].mutable_func()->set_name(f);
}

// RunKernel with the library above.
absl::StatusOr<std::unique_ptr<OpKernel>> MakeKernel(const NodeDef& in) {
  DFX_ASSIGN_OR_RETURN(const OpRegistrationData* op,
                       OpRegistry::Global()->LookUpOrError(in.op()));
  NodeDef node = in;
  AddDefaultAttrs(op->op_def, &node);
  return StandardKernelRegistry()->CreateKernel(
      node, op->op_def, testing::TestCpuDevice(), &Library());
}

absl::StatusOr<std::vector<Tensor>> Run(OpKernel* kernel,
                                        const std::vector<Tensor>& inputs) {
  OpKernelContext::Params params;
  params.op_kernel = kernel;
  params.device = testing::TestCpuDevice();
  params.inputs = inputs;
  OpKernelContext ctx(&params);
  kernel->Compute(&ctx);
  if (!ctx.status().ok()) return ctx.status();
  return std::vector<Tensor>(ctx.mutable_outputs()->begin(),
                             ctx.mutable_outputs()->end());
}

NodeDef ReduceNode(const std::string& reducer,
                   const std::vector<int64_t>& dims) {
  NodeDef n = TestNodeBuilder("reduce", "XlaReduce", 2)
                  .Attr("T", DT_FLOAT)
                  .Attr("dimensions_to_reduce", dims)
                  .Build();
  SetFunc(&n, "reducer", reducer);
  return n;
}

Tensor Floats(const std::vector<float>& v, const TensorShape& shape) {
  return Tensor::FromVector<float>(v, shape);
}

TEST_CASE("Every xla2 op has TensorFlow 2.21's signature and CPU types",
          "[xla2]") {
  testing::CheckSignaturesWithTensorFlow("xla2", 10);
}

TEST_CASE("Xla2 shape functions drop reduced dims and keep ranks", "[xla2]") {
  const NodeDef reduce = ReduceNode("add_f32", {0, 2});
  CHECK(Str(InferShape(reduce, {PartialShape::Known({2, 3, 4}),
                                PartialShape::Scalar()})) == "[?]");
  CHECK(Str(InferShape(reduce, {PartialShape::Unknown(),
                                PartialShape::Scalar()})) == "<unknown>");
  CHECK_THAT(InferShape(ReduceNode("add_f32", {0, 0}),
                        {PartialShape::Known({2, 3}), PartialShape::Scalar()})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "Invalid dimensions_to_reduce argument to XlaReduce"));
  CHECK_THAT(InferShape(ReduceNode("add_f32", {2}),
                        {PartialShape::Known({2, 3}), PartialShape::Scalar()})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument));

  NodeDef v2 = TestNodeBuilder("v2", "XlaVariadicReduceV2", 4)
                   .Attr("T", DataTypeVector{DT_FLOAT, DT_INT32})
                   .Attr("dimensions_to_reduce", std::vector<int64_t>{1})
                   .Build();
  SetFunc(&v2, "reducer", "r");
  CHECK(ShapesString(InferShapes(
            v2,
            {PartialShape::Known({2, -1, 5}), PartialShape::Known({2, 3, -1}),
             PartialShape::Scalar(), PartialShape::Scalar()})) == "[2,5][2,5]");

  NodeDef window = TestNodeBuilder("w", "XlaReduceWindow", 7)
                       .Attr("T", DT_FLOAT)
                       .Attr("Tindices", DT_INT32)
                       .Build();
  SetFunc(&window, "computation", "add_f32");
  CHECK(Str(InferShape(window,
                       {PartialShape::Known({4, 5}), PartialShape::Scalar(),
                        PartialShape::Unknown(), PartialShape::Unknown(),
                        PartialShape::Unknown(), PartialShape::Unknown(),
                        PartialShape::Unknown()})) == "[?,?]");

  const NodeDef kv = TestNodeBuilder("kv", "XlaKeyValueSort", 2)
                         .Attr("K", DT_FLOAT)
                         .Attr("V", DT_INT32)
                         .Build();
  CHECK(ShapesString(InferShapes(
            kv, {PartialShape::Known({3, 4}), PartialShape::Known({3, -1})})) ==
        "[3,4][3,?]");
}

TEST_CASE(
    "XlaReduce gives the same sums on the fast path and through the "
    "function runtime, from several threads at once",
    "[xla2]") {
  absl::StatusOr<std::unique_ptr<OpKernel>> fast =
      MakeKernel(ReduceNode("add_f32", {1}));
  absl::StatusOr<std::unique_ptr<OpKernel>> general =
      MakeKernel(ReduceNode("checked_add", {1}));
  REQUIRE(fast.ok());
  REQUIRE(general.ok());
  const Tensor x = Floats({1, 2, 3, 4, 5, 6}, TensorShape({2, 3}));
  const Tensor init = Tensor::Scalar<float>(10);
  std::vector<absl::StatusOr<std::vector<Tensor>>> results(8);
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) {
    OpKernel* k = (i % 2 == 0 ? *fast : *general).get();
    threads.emplace_back([&, i, k] { results[i] = Run(k, {x, init}); });
  }
  for (std::thread& t : threads) t.join();
  for (const auto& r : results) {
    REQUIRE(r.ok());
    REQUIRE((*r)[0].NumElements() == 2);
    CHECK((*r)[0].data<float>()[0] == 16);
    CHECK((*r)[0].data<float>()[1] == 25);
  }
}

TEST_CASE(
    "A reducer's error comes back with its code and the function's "
    "name",
    "[xla2]") {
  absl::StatusOr<std::unique_ptr<OpKernel>> k =
      MakeKernel(ReduceNode("checked_add", {0}));
  REQUIRE(k.ok());
  const float inf = std::numeric_limits<float>::infinity();
  CHECK_THAT(Run(k->get(),
                 {Floats({1, inf}, TensorShape({2})), Tensor::Scalar<float>(0)})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "checked_add"));
  NodeDef missing = ReduceNode("no_such_function", {0});
  CHECK_THAT(MakeKernel(missing).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "no_such_function"));
}

TEST_CASE(
    "Inputs that abort TensorFlow's XLA compilation are "
    "InvalidArgument in dfx",
    "[xla2]") {
  // dimensions_to_reduce out of range (TensorFlow: "LLVM ERROR: Failed to
  // infer result type(s)", when the rank was unknown at graph building).
  absl::StatusOr<std::unique_ptr<OpKernel>> reduce =
      MakeKernel(ReduceNode("add_f32", {2}));
  REQUIRE(reduce.ok());
  CHECK_THAT(
      Run(reduce->get(),
          {Floats({1, 2, 3, 4}, TensorShape({2, 2})), Tensor::Scalar<float>(0)})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "dimensions_to_reduce"));
  // A window of another rank than the input (TensorFlow:
  // std::bad_optional_access).
  NodeDef window = TestNodeBuilder("w", "XlaReduceWindow", 7)
                       .Attr("T", DT_FLOAT)
                       .Attr("Tindices", DT_INT32)
                       .Build();
  SetFunc(&window, "computation", "add_f32");
  absl::StatusOr<std::unique_ptr<OpKernel>> w = MakeKernel(window);
  REQUIRE(w.ok());
  const Tensor one = Tensor::FromVector<int32_t>({1});
  CHECK_THAT(
      Run(w->get(),
          {Floats({1, 2, 3, 4}, TensorShape({2, 2})), Tensor::Scalar<float>(0),
           Tensor::FromVector<int32_t>({2}), one, one, one,
           Tensor::FromVector<int32_t>({0, 0}, TensorShape({1, 2}))})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "window_dimensions"));
}

TEST_CASE("XlaSort of NaNs finishes and keeps every element", "[xla2]") {
  const float nan = std::nanf("");
  const NodeDef sort =
      TestNodeBuilder("sort", "XlaSort", 1).Attr("T", DT_FLOAT).Build();
  absl::StatusOr<std::vector<Tensor>> out =
      RunKernel(sort, {Floats({3, nan, 1, nan, 2}, TensorShape({5}))});
  REQUIRE(out.ok());
  int nans = 0;
  for (float v : (*out)[0].span<float>()) nans += std::isnan(v) ? 1 : 0;
  CHECK(nans == 2);
  CHECK_THAT(RunKernel(sort, {Tensor::Scalar<float>(1)}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "scalar"));
}

}  // namespace
}  // namespace dfx

namespace dfx {
namespace {

TEST_CASE(
    "XlaRngBitGenerator's shapes come from the state and the shape "
    "input, and a state that is not a vector is InvalidArgument",
    "[xla2]") {
  const NodeDef rng = testing::TestNodeBuilder("rng", "XlaRngBitGenerator", 3)
                          .Attr("dtype", DT_UINT32)
                          .Build();
  CHECK(testing::ShapesString(testing::InferShapes(
            rng,
            {PartialShape::Scalar(), PartialShape::Known({3}),
             PartialShape::Known({2})},
            {Tensor(), Tensor(), Tensor::FromVector<int32_t>({4, 5})})) ==
        "[3][4,5]");
  CHECK(testing::ShapesString(testing::InferShapes(
            rng, {PartialShape::Scalar(), PartialShape::Known({2}),
                  PartialShape::Known({3})})) == "[2][?,?,?]");
  const Tensor state =
      Tensor::FromVector<uint64_t>({1, 2, 3}, TensorShape({1, 3}));
  CHECK_THAT(
      testing::RunKernel(rng, {Tensor::Scalar<int32_t>(1), state,
                               Tensor::FromVector<int32_t>({4})})
          .status(),
      testing::StatusIs(absl::StatusCode::kInvalidArgument, "initial_state"));
}

}  // namespace
}  // namespace dfx

// The collective2 family (tests/golden/gen_collective2.py): TensorFlow 1's
// collective ops whose keys are attrs, CollectiveAssignGroupV2,
// CollectiveInitializeCommunicator and the V3 ops.
// TensorFlow 2.21's signatures and CPU kernel types, the shapes a graph
// meets at import, and the errors of a bad attr, which name the node.
// Groups of several devices: tests/master/collective2_session_test.cc.
#include <cstdint>
#include <vector>

#include "catch2/catch.hpp"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/shape_fn_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::InferShape;
using testing::RunKernel;
using testing::StatusIs;
using testing::TestNodeBuilder;

std::string Str(const absl::StatusOr<PartialShape>& s) {
  return s.ok() ? s->DebugString() : s.status().ToString();
}

TensorShapeProto ShapeProto(const std::vector<int64_t>& dims) {
  TensorShapeProto proto;
  for (int64_t d : dims) proto.add_dim()->set_size(d);
  return proto;
}

TEST_CASE("Every collective2 op has TensorFlow 2.21's signature and CPU types",
          "[collective2]") {
  testing::CheckSignaturesWithTensorFlow("collective2", 8);
}

TEST_CASE(
    "The v1 gather multiplies dim 0 by group_size, the v1 broadcasts take "
    "the shape attr, CollectiveAssignGroupV2 gives two scalars",
    "[collective2]") {
  const NodeDef gather = TestNodeBuilder("g", "CollectiveGather", 1)
                             .Attr("T", DT_FLOAT)
                             .Attr("group_size", 3)
                             .Attr("group_key", 1)
                             .Attr("instance_key", 1)
                             .Attr("shape", ShapeProto({2, 5}))
                             .Build();
  CHECK(Str(InferShape(gather, {PartialShape::Known({2, 5})})) ==
        PartialShape::Known({6, 5}).DebugString());
  CHECK(Str(InferShape(gather, {PartialShape::Known({-1, 5})})) ==
        PartialShape::Known({-1, 5}).DebugString());
  CHECK_THAT(InferShape(gather, {PartialShape::Scalar()}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "g"));

  const NodeDef recv = TestNodeBuilder("r", "CollectiveBcastRecv", 0)
                           .Attr("T", DT_INT64)
                           .Attr("group_size", 2)
                           .Attr("group_key", 1)
                           .Attr("instance_key", 1)
                           .Attr("shape", ShapeProto({4, 0, 2}))
                           .Build();
  CHECK(Str(InferShape(recv, {})) ==
        PartialShape::Known({4, 0, 2}).DebugString());

  const NodeDef reduce = TestNodeBuilder("c", "CollectiveReduce", 1)
                             .Attr("T", DT_FLOAT)
                             .Attr("group_size", 2)
                             .Attr("group_key", 1)
                             .Attr("instance_key", 1)
                             .Attr("merge_op", "Add")
                             .Attr("final_op", "Id")
                             .Attr("subdiv_offsets", std::vector<int64_t>{0})
                             .Build();
  CHECK(Str(InferShape(reduce, {PartialShape::Known({3, -1})})) ==
        PartialShape::Known({3, -1}).DebugString());

  const NodeDef init =
      TestNodeBuilder("i", "CollectiveInitializeCommunicator", 3).Build();
  CHECK(Str(InferShape(init, {PartialShape::Scalar(), PartialShape::Scalar(),
                              PartialShape::Scalar()})) ==
        PartialShape::Scalar().DebugString());
  const NodeDef a2a = TestNodeBuilder("t", "CollectiveAllToAllV3", 3)
                          .Attr("T", DT_INT64)
                          .Build();
  CHECK(
      Str(InferShape(a2a, {PartialShape::Known({4, -1}), PartialShape::Scalar(),
                           PartialShape::Known({0})})) ==
      PartialShape::Known({4, -1}).DebugString());

  const NodeDef assign =
      TestNodeBuilder("a", "CollectiveAssignGroupV2", 3).Build();
  CHECK(Str(InferShape(assign,
                       {PartialShape::Known({2, 2}), PartialShape::Scalar(),
                        PartialShape::Scalar()})) ==
        PartialShape::Scalar().DebugString());
}

TEST_CASE(
    "Bad attrs of the v1 collectives fail at construction, before any "
    "group forms",
    "[collective2]") {
  auto reduce = [](int64_t group_size, int64_t group_key) {
    return TestNodeBuilder("c", "CollectiveReduce", 1)
        .Attr("T", DT_FLOAT)
        .Attr("group_size", group_size)
        .Attr("group_key", group_key)
        .Attr("instance_key", 1)
        .Attr("merge_op", "Add")
        .Attr("final_op", "Id")
        .Attr("subdiv_offsets", std::vector<int64_t>{0})
        .Build();
  };
  const Tensor x = Tensor::FromVector<float>({1, 2});
  CHECK_THAT(RunKernel(reduce(0, 1), {x}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "group_size must be positive integer but got 0"));
  CHECK_THAT(RunKernel(reduce(-3, 1), {x}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "got -3"));
  // A key beyond int32.
  CHECK_THAT(RunKernel(reduce(1, int64_t{1} << 40), {x}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "group_key"));

  // A broadcast's shape attr must be fully defined.
  TensorShapeProto partial = ShapeProto({2, -1});
  const NodeDef recv = TestNodeBuilder("r", "CollectiveBcastRecv", 0)
                           .Attr("T", DT_FLOAT)
                           .Attr("group_size", 2)
                           .Attr("group_key", 1)
                           .Attr("instance_key", 1)
                           .Attr("shape", partial)
                           .Build();
  CHECK_THAT(RunKernel(recv, {}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "fully defined"));
}

TEST_CASE(
    "CollectiveAssignGroupV2 finds the device's row, wraps the key as "
    "TensorFlow's unsigned sum does and refuses bad assignments",
    "[collective2]") {
  const NodeDef node =
      TestNodeBuilder("a", "CollectiveAssignGroupV2", 3).Build();
  Tensor grid(DT_INT32, TensorShape({2, 3}));
  const std::vector<int32_t> values = {5, 0, 3, 1, 4, 2};
  std::copy(values.begin(), values.end(), grid.span<int32_t>().begin());
  auto run = [&](const Tensor& assignment, int32_t device, int32_t base) {
    return RunKernel(node, {assignment, Tensor::Scalar<int32_t>(device),
                            Tensor::Scalar<int32_t>(base)});
  };
  auto out = run(grid, 4, 10);
  REQUIRE(out.ok());
  CHECK((*out)[0].span<int32_t>()[0] == 3);
  CHECK((*out)[1].span<int32_t>()[0] == 11);
  out = run(grid, 3, INT32_MAX);
  REQUIRE(out.ok());
  CHECK((*out)[1].span<int32_t>()[0] == INT32_MAX);
  out = run(grid, 2, INT32_MAX);
  REQUIRE(out.ok());
  CHECK((*out)[1].span<int32_t>()[0] == INT32_MIN);
  CHECK_THAT(run(grid, 6, 10).status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "device_index 6 is not found in group_assignment"));
  CHECK_THAT(
      run(grid, 2, -1).status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "reserved group_key = 0"));
  grid.span<int32_t>()[2] = 6;  // past the 6 entries
  CHECK_THAT(run(grid, 2, 10).status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "within [0, number of devices)"));
  // Found before the bad entry: TensorFlow stops looking there.
  out = run(grid, 0, 10);
  REQUIRE(out.ok());
  CHECK((*out)[1].span<int32_t>()[0] == 10);
}

}  // namespace
}  // namespace dfx

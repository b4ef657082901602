// The coverage family's ops (tests/golden/gen_coverage.py: v1 forms of
// Concat, InTopK, Reverse, SegmentMax/Min/Prod, SpaceToBatch and
// BatchToSpace; ReverseSequence; LowerBound, UpperBound, UnravelIndex;
// Asinh, Acosh, Atanh): TensorFlow 2.21's signatures and CPU kernel types,
// and the shape checks a graph meets at import.
#include <cstdint>
#include <vector>

#include "catch2/catch.hpp"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/shape_fn_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::InferShape;
using testing::StatusIs;
using testing::TestNodeBuilder;

TEST_CASE("Every coverage op has TensorFlow 2.21's signature and CPU types",
          "[coverage]") {
  testing::CheckSignaturesWithTensorFlow("coverage", 15);
}

TEST_CASE("Coverage ops' shape functions reject what TensorFlow's reject",
          "[coverage]") {
  const NodeDef rs = TestNodeBuilder("rs", "ReverseSequence", 2)
                         .Attr("T", DT_FLOAT)
                         .Attr("seq_dim", int64_t{1})
                         .Attr("batch_dim", int64_t{0})
                         .Build();
  // seq_lengths has one entry per batch row.
  CHECK(InferShape(rs, {PartialShape::Known({3, 5}), PartialShape::Known({3})})
            ->DebugString() == PartialShape::Known({3, 5}).DebugString());
  CHECK_THAT(
      InferShape(rs, {PartialShape::Known({3, 5}), PartialShape::Known({2})})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument));
  // Reverse: one bool per dimension.
  const NodeDef rev =
      TestNodeBuilder("r", "Reverse", 2).Attr("T", DT_FLOAT).Build();
  CHECK_THAT(
      InferShape(rev, {PartialShape::Known({2, 3}), PartialShape::Known({3})})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "'dims' must have"));
  // UnravelIndex: [len(dims), n].
  const NodeDef ui = TestNodeBuilder("u", "UnravelIndex", 2).Build();
  CHECK(InferShape(ui, {PartialShape::Known({4}), PartialShape::Known({3})})
            ->DebugString() == PartialShape::Known({3, 4}).DebugString());
  // SpaceToBatch: [N*b*b, H/b, W/b, C] (paddings not constant: H, W
  // unknown).
  const NodeDef stb = TestNodeBuilder("s", "SpaceToBatch", 2)
                          .Attr("T", DT_FLOAT)
                          .Attr("block_size", int64_t{2})
                          .Build();
  CHECK(
      InferShape(
          stb, {PartialShape::Known({2, 4, 6, 3}), PartialShape::Known({2, 2})})
          ->DebugString() == PartialShape::Known({8, -1, -1, 3}).DebugString());
  CHECK_THAT(InferShape(stb, {PartialShape::Known({2, 4, 6}),
                              PartialShape::Known({2, 2})})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument));
}

}  // namespace
}  // namespace dfx

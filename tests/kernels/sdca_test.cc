// The sdca family's ops (tests/golden/gen_sdca.py): TensorFlow 2.21's
// signatures and CPU kernel types, and what the golden cases cannot show:
// the shape function, dfx's fixed example order where TensorFlow's is
// random, and the inputs with which TensorFlow's kernel reads past a
// tensor (dfx says InvalidArgument).
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "graph/node_def_util.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/shape_fn_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::InferShapes;
using testing::RunKernel;
using testing::StatusIs;
using testing::TestNodeBuilder;

// One sparse group (with values) and one dense group: 10 inputs.
NodeDef SdcaNode(const char* op = "SdcaOptimizerV2",
                 const char* loss = "squared_loss", int dense = 1) {
  return TestNodeBuilder("sdca", op, 8 + 2 * dense)
      .Attr("loss_type", loss)
      .Attr("num_sparse_features", 1)
      .Attr("num_sparse_features_with_values", 1)
      .Attr("num_dense_features", dense)
      .Attr("l1", 0.0f)
      .Attr("l2", 1.0f)
      .Attr("num_loss_partitions", 1)
      .Attr("num_inner_iterations", 1)
      .Build();
}

struct Batch {
  Tensor example_indices = Tensor::FromVector<int64_t>({0, 1});
  Tensor feature_indices = Tensor::FromVector<int64_t>({0, 0});
  Tensor values = Tensor::FromVector<float>({1, 1});
  Tensor dense = Tensor::FromVector<float>({0, 0, 0, 0}, TensorShape({2, 2}));
  Tensor weights = Tensor::FromVector<float>({1, 1});
  Tensor labels = Tensor::FromVector<float>({1, 3});
  Tensor sparse_indices = Tensor::FromVector<int64_t>({0});
  Tensor sparse_weights = Tensor::FromVector<float>({0});
  Tensor dense_weights = Tensor::FromVector<float>({0, 0});
  Tensor state = Tensor::FromVector<float>(std::vector<float>(8, 0.0f),
                                           TensorShape({2, 4}));

  std::vector<Tensor> Inputs() const {
    return {
        example_indices, feature_indices, values,        dense, weights, labels,
        sparse_indices,  sparse_weights,  dense_weights, state};
  }
};

TEST_CASE("Every sdca op has TensorFlow 2.21's signature and CPU types",
          "[sdca]") {
  testing::CheckSignaturesWithTensorFlow("sdca", 2);
}

TEST_CASE("SdcaOptimizer's deltas are shaped as the weights, its state [?,4]",
          "[sdca]") {
  const PartialShape any = PartialShape::Known({-1});
  std::vector<PartialShape> in(9, any);
  in.insert(in.begin() + 7, PartialShape::Known({2, 3}));  // sparse_weights
  in[8] = PartialShape::Known({5});                        // dense_weights
  const auto shapes = InferShapes(SdcaNode(), in);
  REQUIRE(shapes.ok());
  REQUIRE(shapes->size() == 3);
  CHECK((*shapes)[0].DebugString() == "[?,4]");
  CHECK((*shapes)[1].DebugString() == "[2,3]");
  CHECK((*shapes)[2].DebugString() == "[5]");
}

TEST_CASE(
    "SdcaOptimizer visits examples that share a weight once each, in index "
    "order (TensorFlow's order is random)",
    "[sdca]") {
  for (const char* op : {"SdcaOptimizer", "SdcaOptimizerV2"}) {
    const Batch b;
    const auto out = RunKernel(SdcaNode(op), b.Inputs());
    REQUIRE(out.ok());
    // Example 0 (label 1): dual 0.5, delta 0.5. Example 1 (label 3) sees
    // wx 0.5: dual 1.25, delta 1.75. The other order would end at 1.25.
    CHECK((*out)[1].data<float>()[0] == 1.75f);
    const float* st = (*out)[0].data<float>();
    CHECK(std::vector<float>(st, st + 8) ==
          std::vector<float>({0.5f, 0.5f, 0.0f, 1.0f, 1.25f, 4.5f, 0, 1}));
  }
}

TEST_CASE(
    "SdcaOptimizer refuses the inputs with which TensorFlow's kernel reads "
    "past a tensor",
    "[sdca]") {
  const auto invalid = StatusIs(absl::StatusCode::kInvalidArgument);
  Batch b;
  b.dense = Tensor::FromVector<float>({0, 0}, TensorShape({1, 2}));
  CHECK_THAT(RunKernel(SdcaNode(), b.Inputs()).status(), invalid);
  b = Batch();
  b.dense_weights = Tensor::FromVector<float>({0, 0, 0});
  CHECK_THAT(RunKernel(SdcaNode(), b.Inputs()).status(), invalid);
  b = Batch();
  b.values = Tensor::FromVector<float>({1});
  CHECK_THAT(RunKernel(SdcaNode(), b.Inputs()).status(), invalid);
  b = Batch();
  b.sparse_indices = Tensor::FromVector<int64_t>({1, 0});
  CHECK_THAT(RunKernel(SdcaNode(), b.Inputs()).status(), invalid);
  // Unused extra values, as in TensorFlow, are fine.
  b = Batch();
  b.values = Tensor::FromVector<float>({1, 1, 5});
  CHECK(RunKernel(SdcaNode(), b.Inputs()).ok());
}

TEST_CASE("SdcaOptimizer's errors have TensorFlow's codes", "[sdca]") {
  const auto invalid = StatusIs(absl::StatusCode::kInvalidArgument);
  CHECK_THAT(
      RunKernel(SdcaNode("SdcaOptimizerV2", "absolute_loss"), Batch().Inputs())
          .status(),
      invalid);
  Batch b;
  CHECK_THAT(RunKernel(SdcaNode("SdcaOptimizer", "logistic_loss"), b.Inputs())
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "label: 3"));
  b.state = Tensor::FromVector<float>(std::vector<float>(4, 0.0f),
                                      TensorShape({1, 4}));
  CHECK_THAT(RunKernel(SdcaNode(), b.Inputs()).status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "Expected shape [2,4] for example_state_data"));
}

}  // namespace
}  // namespace dfx

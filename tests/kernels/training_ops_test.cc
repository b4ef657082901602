// The training ops' signatures, kernel types and shape functions
// (graph/ops/training_ops.cc, kernels/training/): every op equals
// TensorFlow 2.21's OpDef and has CPU kernels for TensorFlow's CPU types.
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "catch2/catch.hpp"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "kernels/kernels.h"
#include "proto/op_def.pb.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/shape_fn_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::InferShapes;
using testing::StatusIs;
using testing::TestNodeBuilder;

const char* const kDataDir = DFX_TEST_DATA_DIR "/../golden/data/training/";

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST_CASE("Every training op has TensorFlow 2.21's signature and CPU types",
          "[training]") {
  testing::CheckSignaturesWithTensorFlow("training", 57);
}

TEST_CASE("Every sparse training kernel takes int32 and int64 indices",
          "[training]") {
  const std::string path = absl::StrCat(kDataDir, "tf_cpu_kernels.txt");
  std::istringstream lines(ReadFile(path));
  int ops = 0;
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] == '#') continue;
    const std::string op = line.substr(0, line.find(' '));
    if (op.find("Sparse") == std::string::npos) continue;
    INFO(op);
    std::map<DataType, std::set<DataType>> indices;  // T -> Tindices
    for (const KernelDefBuilder& def :
         StandardKernelRegistry()->KernelDefsOf(op)) {
      DataType t = DT_INVALID;
      for (const auto& c : def.constraints()) {
        if (c.attr == "T") t = c.allowed.at(0);
      }
      for (const auto& c : def.constraints()) {
        if (c.attr == "Tindices") indices[t].insert(c.allowed.at(0));
      }
    }
    CHECK_FALSE(indices.empty());
    for (const auto& [t, got] : indices) {
      CHECK(got == std::set<DataType>{DT_INT32, DT_INT64});
    }
    ++ops;
  }
  CHECK(ops == 23);
}

// --- Shape functions.

PartialShape S(std::vector<int64_t> dims) {
  return PartialShape::Known(std::move(dims));
}
const PartialShape kScalar = PartialShape::Scalar();

NodeDef Node(const std::string& op, int inputs) {
  return TestNodeBuilder("opt", op, inputs).Attr("T", DT_FLOAT).Build();
}

NodeDef SparseNode(const std::string& op, int inputs) {
  return TestNodeBuilder("opt", op, inputs)
      .Attr("T", DT_FLOAT)
      .Attr("Tindices", DT_INT32)
      .Build();
}

TEST_CASE("ApplyAdam's output has the merged shape of var, m, v and grad",
          "[training]") {
  auto out =
      InferShapes(Node("ApplyAdam", 10),
                  {S({2, -1}), S({-1, 3}), PartialShape::Unknown(), kScalar,
                   kScalar, kScalar, kScalar, kScalar, kScalar, S({2, 3})});
  REQUIRE_OK(out);
  CHECK((*out)[0].DebugString() == S({2, 3}).DebugString());
}

TEST_CASE("Training shape functions reject a gradient of another shape",
          "[training]") {
  CHECK_THAT(InferShapes(Node("ApplyMomentum", 5),
                         {S({2, 3}), S({2, 3}), kScalar, S({3, 2}), kScalar})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument));
  CHECK_THAT(InferShapes(Node("ApplyAdagrad", 4),
                         {S({2, 3}), S({2, 4}), kScalar, S({2, 3})})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST_CASE(
    "Training shape functions reject a hyper-parameter that is not "
    "a scalar",
    "[training]") {
  CHECK_THAT(
      InferShapes(Node("ApplyGradientDescent", 3), {S({2}), S({1}), S({2})})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "alpha"));
  CHECK_THAT(InferShapes(Node("ResourceApplyAdam", 10),
                         {kScalar, kScalar, kScalar, kScalar, kScalar, S({2}),
                          kScalar, kScalar, kScalar, S({2, 3})})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "lr"));
}

TEST_CASE("Resource forms have no outputs and accept any gradient shape",
          "[training]") {
  // The handles carry no shapes here, so nothing is known of the variables.
  auto out = InferShapes(Node("ResourceApplyMomentum", 5),
                         {kScalar, kScalar, kScalar, S({7, 2}), kScalar});
  REQUIRE_OK(out);
  CHECK(out->empty());
}

TEST_CASE("Sparse shape functions: grad is indices' length + var's rows",
          "[training]") {
  auto out = InferShapes(SparseNode("SparseApplyAdagrad", 5),
                         {S({5, 3}), S({5, -1}), kScalar, S({2, 3}), S({2})});
  REQUIRE_OK(out);
  CHECK((*out)[0].DebugString() == S({5, 3}).DebugString());

  // Row width differs from var's.
  CHECK_THAT(InferShapes(SparseNode("SparseApplyAdagrad", 5),
                         {S({5, 3}), S({5, 3}), kScalar, S({2, 4}), S({2})})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument));
  // Indices not a vector.
  CHECK_THAT(InferShapes(SparseNode("SparseApplyAdagrad", 5),
                         {S({5, 3}), S({5, 3}), kScalar, S({2, 3}), S({2, 1})})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "indices"));
  // As many gradient rows as indices.
  CHECK_THAT(InferShapes(SparseNode("SparseApplyAdagrad", 5),
                         {S({5, 3}), S({5, 3}), kScalar, S({2, 3}), S({3})})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument));
  // A scalar gradient.
  CHECK_THAT(InferShapes(SparseNode("ResourceSparseApplyFtrl", 9),
                         {kScalar, kScalar, kScalar, kScalar, S({1}), kScalar,
                          kScalar, kScalar, kScalar})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "grad must not be a scalar"));
  // global_step must be a scalar too.
  CHECK_THAT(InferShapes(SparseNode("SparseApplyAdagradDA", 9),
                         {S({5, 3}), S({5, 3}), S({5, 3}), S({2, 3}), S({2}),
                          kScalar, kScalar, kScalar, S({1})})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "global_step"));
}

}  // namespace
}  // namespace dfx

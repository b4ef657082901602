// End-to-end check of graph/builder/gradients.h: two small MLPs (dense input,
// and an embedding lookup) built with the builder, their gradients added with
// AddSymbolicGradients, and the results compared with TensorFlow's
// (tests/golden/gen_builder_grads.py writes tests/builder/data/mlp_grads/).
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "catch2/catch.hpp"
#include "graph/builder/gradients.h"
#include "graph/builder/ops.h"
#include "tests/builder/gradient_checker.h"
#include "tests/builder/npy.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

const std::string kDataDir = DFX_TEST_DATA_DIR "/../builder/data/mlp_grads/";

class Case {
 public:
  explicit Case(const std::string& name) : dir_(kDataDir + name + "/") {}
  Tensor Get(const std::string& name) {
    absl::StatusOr<Tensor> t = testing::ReadNpy(dir_ + name + ".npy");
    REQUIRE_OK(t);
    return *t;
  }

 private:
  std::string dir_;
};

// |got - want| <= 1e-5 (1 + |want|) elementwise, same shape.
void RequireClose(const std::string& what, const Tensor& got,
                  const Tensor& want) {
  INFO(what << ": dfx shape " << got.shape().DebugString()
            << ", TensorFlow shape " << want.shape().DebugString());
  REQUIRE(got.shape() == want.shape());
  for (int64_t i = 0; i < want.NumElements(); ++i) {
    const double g = testing::GetAsDouble(got, i);
    const double w = testing::GetAsDouble(want, i);
    INFO("element " << i << ": dfx " << g << ", TensorFlow " << w);
    CHECK(std::fabs(g - w) <= 1e-5 * (1 + std::fabs(w)));
  }
}

// The hidden and output layers shared by both cases.
Output Mlp(const Scope& root, Case& data, const Output& h) {
  const Scope l1 = root.NewSubScope("layer1");
  const Output w1 = ops::Const(root.WithOpName("w1"), data.Get("w1"));
  const Output b1 = ops::Const(root.WithOpName("b1"), data.Get("b1"));
  const Output hidden =
      ops::Relu(l1, ops::BiasAdd(l1, ops::MatMul(l1, h, w1), b1));
  const Scope l2 = root.NewSubScope("layer2");
  const Output w2 = ops::Const(root.WithOpName("w2"), data.Get("w2"));
  const Output b2 = ops::Const(root.WithOpName("b2"), data.Get("b2"));
  return ops::BiasAdd(l2, ops::MatMul(l2, hidden, w2), b2);
}

// Fetches the loss and the gradients of `names` (nodes of the graph) and
// compares them with TensorFlow's.
void CompareWithTensorFlow(const Scope& root, Case& data, const Output& loss,
                           const std::vector<std::string>& names) {
  std::vector<Output> wrt;
  for (const std::string& n : names) wrt.emplace_back(n, 0, DT_FLOAT);
  std::vector<Output> grads;
  REQUIRE_OK(AddSymbolicGradients(root, {loss}, wrt, &grads));
  std::vector<Output> fetches = {loss};
  fetches.insert(fetches.end(), grads.begin(), grads.end());
  auto out = testing::RunScope(root, {}, fetches);
  REQUIRE_OK(out);
  RequireClose("loss", (*out)[0], data.Get("loss"));
  for (size_t i = 0; i < names.size(); ++i) {
    RequireClose("gradient of " + names[i], (*out)[i + 1],
                 data.Get("grad_" + names[i]));
  }
}

TEST_CASE(
    "MLP gradients equal TensorFlow's: dense input, softmax "
    "cross-entropy") {
  Case data("dense");
  Scope root = Scope::NewRootScope();
  const Output x = ops::Const(root.WithOpName("x"), data.Get("x"));
  const Output logits = Mlp(root, data, x);
  const Output labels = ops::Const(root, data.Get("labels"));
  const Output loss = ops::Mean(
      root, ops::SoftmaxCrossEntropyWithLogits(root, logits, labels).loss,
      ops::Const(root, {0}));
  CompareWithTensorFlow(root, data, loss, {"x", "w1", "b1", "w2", "b2"});
}

TEST_CASE(
    "MLP gradients equal TensorFlow's: embedding input, sparse "
    "softmax cross-entropy") {
  Case data("embedding");
  Scope root = Scope::NewRootScope();
  const Output embedding =
      ops::Const(root.WithOpName("embedding"), data.Get("embedding"));
  const Output ids = ops::Const(root, data.Get("ids"));
  const Output looked_up =
      ops::GatherV2(root, embedding, ids, ops::Const(root, 0));
  const Output h = ops::Reshape(root, looked_up, ops::Const(root, {4, 6}));
  const Output logits = Mlp(root, data, h);
  const Output labels = ops::Const(root, data.Get("labels"));
  const Output loss = ops::Mean(
      root, ops::SparseSoftmaxCrossEntropyWithLogits(root, logits, labels).loss,
      ops::Const(root, {0}));
  CompareWithTensorFlow(root, data, loss,
                        {"embedding", "w1", "b1", "w2", "b2"});
}

}  // namespace
}  // namespace dfx

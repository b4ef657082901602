// The fused family's ops (tests/golden/gen_fused.py: _FusedConv2D and
// _FusedMatMul): TensorFlow 2.21's signatures and CPU kernel types, the
// shape functions, the argument-size checks TensorFlow's fused kernels do
// not make, and an epilogue split over the intra-op pool.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "graph/node_def_util.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/shape_fn_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::InferShape;
using testing::RunKernel;
using testing::StatusIs;
using testing::TestNodeBuilder;

void SetFusedOps(NodeDef* def, const std::vector<std::string>& ops) {
  auto* list = (*def->mutable_attr())["fused_ops"].mutable_list();
  for (const std::string& op : ops) list->add_s(op);
}

NodeDef FusedConv(const std::vector<std::string>& ops, int num_args) {
  NodeDef def = TestNodeBuilder("fc", "_FusedConv2D", 2 + num_args)
                    .Attr("T", DT_FLOAT)
                    .Attr("TArgs", DataTypeVector(num_args, DT_FLOAT))
                    .Attr("num_args", num_args)
                    .Attr("strides", std::vector<int64_t>{1, 1, 1, 1})
                    .Attr("padding", "SAME")
                    .Build();
  SetFusedOps(&def, ops);
  return def;
}

NodeDef FusedMatMul(const std::vector<std::string>& ops, int num_args) {
  NodeDef def = TestNodeBuilder("fm", "_FusedMatMul", 2 + num_args)
                    .Attr("T", DT_FLOAT)
                    .Attr("num_args", num_args)
                    .Build();
  SetFusedOps(&def, ops);
  return def;
}

Tensor Random(const TensorShape& shape, unsigned seed) {
  Tensor t(DT_FLOAT, shape);
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1, 1);
  for (float& v : t.span<float>()) v = dist(gen);
  return t;
}

TEST_CASE("Every fused op has TensorFlow 2.21's signature and CPU types",
          "[fused]") {
  testing::CheckSignaturesWithTensorFlow("fused", 2);
}

TEST_CASE("Fused shape functions are Conv2D's and MatMul's", "[fused]") {
  const NodeDef conv = FusedConv({"BiasAdd"}, 1);
  auto s = InferShape(
      conv, {PartialShape::Known({2, 5, 5, 3}),
             PartialShape::Known({3, 3, 3, 4}), PartialShape::Known({4})});
  REQUIRE(s.ok());
  CHECK(s->DebugString() == PartialShape::Known({2, 5, 5, 4}).DebugString());
  const NodeDef mm = FusedMatMul({"BiasAdd"}, 1);
  auto m =
      InferShape(mm, {PartialShape::Known({3, 5}), PartialShape::Known({5, 7}),
                      PartialShape::Known({7})});
  REQUIRE(m.ok());
  CHECK(m->DebugString() == PartialShape::Known({3, 7}).DebugString());
  CHECK_FALSE(
      InferShape(mm, {PartialShape::Known({3, 5}), PartialShape::Known({4, 7}),
                      PartialShape::Known({7})})
          .ok());
}

TEST_CASE("Fused arguments must have the output depth", "[fused]") {
  // TensorFlow's fused kernels read past a short bias; dfx refuses it as
  // BiasAdd and FusedBatchNorm do.
  const Tensor x = Random(TensorShape({1, 3, 3, 2}), 1);
  const Tensor f = Random(TensorShape({1, 1, 2, 4}), 2);
  CHECK_THAT(RunKernel(FusedConv({"BiasAdd", "Relu"}, 1),
                       {x, f, Random(TensorShape({3}), 3)})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "bias must have as many elements as the output depth "
                      "4, got 3"));
  const Tensor v4 = Random(TensorShape({4}), 4);
  CHECK_THAT(RunKernel(FusedConv({"FusedBatchNorm"}, 4),
                       {x, f, v4, v4, Random(TensorShape({5}), 5), v4})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "mean must have"));
  CHECK_THAT(
      RunKernel(FusedMatMul({"BiasAdd"}, 1),
                {Random(TensorShape({2, 3}), 6), Random(TensorShape({3, 4}), 7),
                 Random(TensorShape({8}), 8)})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "bias must have"));
}

TEST_CASE("A large fused MatMul's epilogue covers every row", "[fused]") {
  // 512 x 96 outputs: enough work for the epilogue to split into chunks on
  // the intra-op pool.
  const int64_t m = 512, k = 64, n = 96;
  const Tensor a = Random(TensorShape({m, k}), 9);
  const Tensor b = Random(TensorShape({k, n}), 10);
  const Tensor bias = Random(TensorShape({n}), 11);
  NodeDef def = FusedMatMul({"BiasAdd", "Relu6"}, 1);
  auto out = RunKernel(def, {a, b, bias});
  REQUIRE(out.ok());
  const float* pa = a.data<float>();
  const float* pb = b.data<float>();
  const float* got = out->at(0).data<float>();
  int bad = 0;
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double sum = bias.data<float>()[j];
      for (int64_t p = 0; p < k; ++p)
        sum += double{pa[i * k + p]} * pb[p * n + j];
      const double want = std::min(std::max(sum, 0.0), 6.0);
      if (std::fabs(got[i * n + j] - want) > 1e-4) ++bad;
    }
  }
  CHECK(bad == 0);
}

}  // namespace
}  // namespace dfx

// The volumetric ops' signatures and kernel types (graph/ops/volumetric_ops.cc,
// kernels/volumetric/): every op equals TensorFlow 2.21's OpDef and has CPU
// kernels for exactly the types TensorFlow's CPU kernels serve; and their
// shape functions.
#include <cstdint>
#include <string>
#include <vector>

#include "base/status_macros.h"
#include "catch2/catch.hpp"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "kernels/kernels.h"
#include "proto/op_def.pb.h"
#include "runtime/tensor.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/shape_fn_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::InferShapes;
using testing::StatusIs;
using testing::TestNodeBuilder;

TEST_CASE("Every volumetric op has TensorFlow 2.21's signature and CPU types",
          "[volumetric]") {
  testing::CheckSignaturesWithTensorFlow("volumetric", 13);
}

std::string Str(const absl::StatusOr<std::vector<PartialShape>>& r) {
  if (!r.ok()) return r.status().ToString();
  return (*r)[0].DebugString();
}

PartialShape S(std::vector<int64_t> dims) {
  return PartialShape::Known(std::move(dims));
}

TEST_CASE("Volumetric op shape functions", "[volumetric]") {
  const NodeDef conv = TestNodeBuilder("c", "Conv3D", 2)
                           .Attr("T", DT_FLOAT)
                           .Attr("strides", std::vector<int64_t>{1, 2, 1, 1, 1})
                           .Attr("padding", "SAME")
                           .Build();
  CHECK(Str(InferShapes(conv, {S({2, 5, 4, -1, 3}), S({3, 3, 3, 3, 8})})) ==
        "[2,3,4,?,8]");
  CHECK_THAT(InferShapes(conv, {S({2, 5, 4, 3}), S({3, 3, 3, 3, 8})}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument));
  NodeDef ncdhw = conv;
  (*ncdhw.mutable_attr())["data_format"].set_s("NCDHW");
  (*ncdhw.mutable_attr())["strides"].mutable_list()->set_i(1, 1);
  (*ncdhw.mutable_attr())["strides"].mutable_list()->set_i(2, 2);
  CHECK(Str(InferShapes(ncdhw, {S({2, 3, 5, 4, 6}), S({3, 3, 3, 3, 8})})) ==
        "[2,8,3,4,6]");

  const NodeDef bpi = TestNodeBuilder("b", "Conv3DBackpropInputV2", 3)
                          .Attr("T", DT_FLOAT)
                          .Attr("strides", std::vector<int64_t>{1, 1, 1, 1, 1})
                          .Attr("padding", "VALID")
                          .Build();
  CHECK(Str(InferShapes(bpi, {S({5}), S({2, 2, 2, 3, 4}), S({1, 2, 2, 2, 4})},
                        {Tensor::FromVector<int32_t>({1, 3, 3, 3, 3})})) ==
        "[1,3,3,3,3]");
  CHECK(Str(InferShapes(bpi, {S({5}), S({2, 2, 2, 3, 4}),
                              S({1, 2, 2, 2, 4})})) == "[?,?,?,?,?]");

  const NodeDef pool = TestNodeBuilder("p", "MaxPool3D", 1)
                           .Attr("T", DT_FLOAT)
                           .Attr("ksize", std::vector<int64_t>{1, 2, 2, 2, 1})
                           .Attr("strides", std::vector<int64_t>{1, 2, 2, 2, 1})
                           .Attr("padding", "SAME")
                           .Build();
  CHECK(Str(InferShapes(pool, {S({1, 5, 4, 3, 7})})) == "[1,3,2,2,7]");

  const NodeDef eip = TestNodeBuilder("e", "ExtractImagePatches", 1)
                          .Attr("T", DT_FLOAT)
                          .Attr("ksizes", std::vector<int64_t>{1, 3, 2, 1})
                          .Attr("strides", std::vector<int64_t>{1, 1, 1, 1})
                          .Attr("rates", std::vector<int64_t>{1, 2, 1, 1})
                          .Attr("padding", "VALID")
                          .Build();
  CHECK(Str(InferShapes(eip, {S({2, 8, 5, 3})})) == "[2,4,4,18]");
  CHECK(Str(InferShapes(eip, {S({2, 8, 5, -1})})) == "[2,4,4,?]");
  const NodeDef evp = TestNodeBuilder("e", "ExtractVolumePatches", 1)
                          .Attr("T", DT_FLOAT)
                          .Attr("ksizes", std::vector<int64_t>{1, 2, 2, 2, 1})
                          .Attr("strides", std::vector<int64_t>{1, 2, 2, 2, 1})
                          .Attr("padding", "SAME")
                          .Build();
  CHECK(Str(InferShapes(evp, {S({1, 3, 4, 5, 2})})) == "[1,2,2,3,16]");

  const NodeDef dil = TestNodeBuilder("d", "Dilation2D", 2)
                          .Attr("T", DT_FLOAT)
                          .Attr("strides", std::vector<int64_t>{1, 2, 1, 1})
                          .Attr("rates", std::vector<int64_t>{1, 1, 2, 1})
                          .Attr("padding", "VALID")
                          .Build();
  CHECK(Str(InferShapes(dil, {S({2, 7, 9, -1}), S({3, 3, 4})})) == "[2,3,5,4]");
  CHECK_THAT(InferShapes(dil, {S({2, 7, 9, 3}), S({3, 3, 4})}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument));
}

}  // namespace
}  // namespace dfx

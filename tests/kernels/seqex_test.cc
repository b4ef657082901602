// The seqex family's ops (tests/golden/gen_seqex.py: SequenceExample
// parsing, the sparse-tensors map of tf.compat.v1.train.batch,
// DeserializeManySparse): TensorFlow 2.21's signatures and CPU kernel
// types, bytes features and messages the golden cases show only by code,
// and the map under concurrent adds.
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "catch2/catch.hpp"
#include "proto/example.pb.h"
#include "tests/kernels/math_test_util.h"

namespace dfx {
namespace {

using testing::RunKernel;
using testing::StatusIs;
using testing::TestNodeBuilder;

constexpr auto kInvalid = absl::StatusCode::kInvalidArgument;

// A SequenceExample with context "c" (bytes) and feature list "w" (bytes
// per step).
std::string Serialized(const std::vector<std::string>& c,
                       const std::vector<std::vector<std::string>>& w) {
  SequenceExample e;
  if (!c.empty()) {
    auto& ctx = (*e.mutable_context()->mutable_feature())["c"];
    for (const std::string& s : c) ctx.mutable_bytes_list()->add_value(s);
  }
  auto& list = (*e.mutable_feature_lists()->mutable_feature_list())["w"];
  for (const auto& step : w) {
    Feature* f = list.add_feature();
    for (const std::string& s : step) f->mutable_bytes_list()->add_value(s);
  }
  return e.SerializeAsString();
}

// ParseSingleSequenceExample: dense context "c" (string [1]) and sparse
// feature list "w" (string).
NodeDef SingleParser() {
  NodeDef node =
      TestNodeBuilder("pse", "ParseSingleSequenceExample", 6)
          .Attr("Ncontext_dense", 1)
          .Attr("Nfeature_list_sparse", 1)
          .Attr("Tcontext_dense", DataTypeVector{DT_STRING})
          .Attr("feature_list_sparse_types", DataTypeVector{DT_STRING})
          .Build();
  (*node.mutable_attr())["context_dense_shapes"]
      .mutable_list()
      ->add_shape()
      ->add_dim()
      ->set_size(1);
  return node;
}

absl::StatusOr<std::vector<Tensor>> ParseSingle(const std::string& serialized,
                                                Tensor c_default) {
  return RunKernel(SingleParser(), {Tensor::Scalar<std::string>(serialized),
                                    Tensor(DT_STRING, TensorShape({0})),
                                    Tensor::Scalar<std::string>("c"),
                                    Tensor::Scalar<std::string>("w"), c_default,
                                    Tensor::Scalar<std::string>("ex7")});
}

TEST_CASE("Every seqex op has TensorFlow 2.21's signature and CPU types",
          "[seqex]") {
  testing::CheckSignaturesWithTensorFlow("seqex", 7);
}

TEST_CASE("ParseSingleSequenceExample reads bytes context and feature lists",
          "[seqex]") {
  Tensor def(DT_STRING, TensorShape({1}));
  def.data<std::string>()[0] = "none";
  auto out = ParseSingle(Serialized({"ctx"}, {{"a", "b"}, {}, {"c"}}), def);
  REQUIRE(out.ok());
  // context dense, then the feature list's indices, values, shape.
  REQUIRE(out->size() == 4);
  CHECK((*out)[0].data<std::string>()[0] == "ctx");
  const Tensor& values = (*out)[2];
  REQUIRE(values.NumElements() == 3);
  CHECK(values.data<std::string>()[0] == "a");
  CHECK(values.data<std::string>()[2] == "c");
  const int64_t* shape = (*out)[3].data<int64_t>();
  CHECK(shape[0] == 3);
  CHECK(shape[1] == 2);
  const int64_t* idx = (*out)[1].data<int64_t>();
  CHECK(idx[4] == 2);  // "c" is step 2, position 0
  CHECK(idx[5] == 0);
}

TEST_CASE("ParseSingleSequenceExample's errors are TensorFlow's", "[seqex]") {
  Tensor none(DT_STRING, TensorShape({0}));
  auto missing = ParseSingle(Serialized({}, {}), none);
  REQUIRE_THAT(missing.status(), StatusIs(kInvalid));
  CHECK(std::string(missing.status().message()) ==
        "Name: ex7, Context feature 'c' is required but could not be found.");
  auto wrong_length = ParseSingle(Serialized({"x", "y"}, {}), none);
  REQUIRE_THAT(wrong_length.status(), StatusIs(kInvalid));
  CHECK(std::string(wrong_length.status().message()) ==
        "Name: ex7, Key: c, Index: 0.  Number of string values != expected.  "
        "values size: 2 but output shape: [1]");
  auto malformed = ParseSingle(std::string("\x0a\xff", 2), none);
  REQUIRE_THAT(malformed.status(), StatusIs(kInvalid));
  CHECK(std::string(malformed.status().message())
            .starts_with("Could not parse example input, value: '"));
}

NodeDef MapNode(const char* op, const char* name, int inputs) {
  TestNodeBuilder b(name, op, inputs);
  b.Attr(std::string(op) == "TakeManySparseFromTensorsMap" ? "dtype" : "T",
         DT_FLOAT);
  b.Attr("shared_name", "seqex_test_map");
  return b.Build();
}

TEST_CASE(
    "Adds to one sparse-tensors map from many threads get distinct "
    "handles, and Take removes what it returns",
    "[seqex]") {
  const NodeDef add = MapNode("AddSparseToTensorsMap", "add", 3);
  Tensor indices(DT_INT64, TensorShape({1, 1}));
  indices.data<int64_t>()[0] = 0;
  Tensor values(DT_FLOAT, TensorShape({1}));
  Tensor shape(DT_INT64, TensorShape({1}));
  shape.data<int64_t>()[0] = 1;
  constexpr int kThreads = 4, kEach = 25;
  std::vector<std::vector<int64_t>> got(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        Tensor v(DT_FLOAT, TensorShape({1}));
        v.data<float>()[0] = static_cast<float>(t * 100 + i);
        auto out = RunKernel(add, {indices, v, shape});
        if (out.ok()) got[t].push_back((*out)[0].data<int64_t>()[0]);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  absl::flat_hash_set<int64_t> handles;
  for (const auto& g : got) {
    REQUIRE(g.size() == kEach);
    handles.insert(g.begin(), g.end());
  }
  REQUIRE(handles.size() == kThreads * kEach);
  Tensor all(DT_INT64, TensorShape({kThreads * kEach}));
  int64_t at = 0;
  for (int64_t h : handles) all.data<int64_t>()[at++] = h;
  const NodeDef take = MapNode("TakeManySparseFromTensorsMap", "take", 1);
  auto out = RunKernel(take, {all});
  REQUIRE(out.ok());
  CHECK((*out)[1].NumElements() == kThreads * kEach);
  CHECK((*out)[2].data<int64_t>()[0] == kThreads * kEach);
  auto again = RunKernel(take, {all});
  REQUIRE_THAT(again.status(), StatusIs(kInvalid));
  CHECK(std::string(again.status().message())
            .starts_with("Unable to find SparseTensor: "));
}

}  // namespace
}  // namespace dfx

// ParseExample and ParseSingleExample (kernels/sparse/parse_example_ops.cc):
// bytes features (which the golden cases cannot fetch) and TensorFlow's
// error messages for malformed protos and mismatched features.
#include <cstdint>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "proto/example.pb.h"
#include "tests/kernels/math_test_util.h"

namespace dfx {
namespace {

using testing::MakeVector;
using testing::RunKernel;
using testing::StatusIs;
using testing::TestNodeBuilder;
using testing::Values;

constexpr auto kInvalid = absl::StatusCode::kInvalidArgument;

std::string Serialized(const std::vector<std::string>& tags,
                       const std::vector<float>& x) {
  Example e;
  auto& f = *e.mutable_features()->mutable_feature();
  for (const std::string& t : tags) f["tag"].mutable_bytes_list()->add_value(t);
  for (float v : x) f["x"].mutable_float_list()->add_value(v);
  return e.SerializeAsString();
}

Tensor Strings(const std::vector<std::string>& v) {
  Tensor t(DT_STRING, TensorShape({static_cast<int64_t>(v.size())}));
  for (size_t i = 0; i < v.size(); ++i) t.data<std::string>()[i] = v[i];
  return t;
}

// ParseExample with sparse "tag" (string) and dense "x" (float [2]).
NodeDef BatchParser() {
  NodeDef node = TestNodeBuilder("p", "ParseExample", 5)
                     .Attr("Nsparse", 1)
                     .Attr("Ndense", 1)
                     .Attr("sparse_types", DataTypeVector{DT_STRING})
                     .Attr("Tdense", DataTypeVector{DT_FLOAT})
                     .Build();
  (*node.mutable_attr())["dense_shapes"]
      .mutable_list()
      ->add_shape()
      ->add_dim()
      ->set_size(2);
  return node;
}

absl::StatusOr<std::vector<Tensor>> ParseBatch(
    const std::vector<std::string>& serialized,
    const std::vector<std::string>& names = {},
    Tensor x_default = Tensor(DT_FLOAT, TensorShape({0}))) {
  return RunKernel(BatchParser(),
                   {Strings(serialized), Strings(names),
                    Tensor::Scalar<std::string>("tag"),
                    Tensor::Scalar<std::string>("x"), x_default});
}

TEST_CASE("ParseExample gives bytes features as sparse strings", "[sparse]") {
  absl::StatusOr<std::vector<Tensor>> out = ParseBatch(
      {Serialized({"a", "bc"}, {1, 2}), Serialized({}, {3, 4}),
       Serialized({"d"}, {5, 6})});
  REQUIRE(out.ok());
  REQUIRE(Values<int64_t>((*out)[0]) ==
          std::vector<int64_t>({0, 0, 0, 1, 2, 0}));
  REQUIRE(Values<std::string>((*out)[1]) ==
          std::vector<std::string>({"a", "bc", "d"}));
  REQUIRE(Values<int64_t>((*out)[2]) == std::vector<int64_t>({3, 2}));
  REQUIRE((*out)[3].shape() == TensorShape({3, 2}));
  REQUIRE(Values<float>((*out)[3]) == std::vector<float>({1, 2, 3, 4, 5, 6}));
}

TEST_CASE("ParseExample errors name the example as TensorFlow", "[sparse]") {
  REQUIRE_THAT(ParseBatch({Serialized({}, {1, 2}), "\x0a\x05garbage"}).status(),
               StatusIs(kInvalid, "Could not parse example input, value: '"));
  REQUIRE_THAT(ParseBatch({Serialized({"a"}, {})}, {"rec7"}).status(),
               StatusIs(kInvalid, "Name: rec7, Feature: x (data type: float) "
                                  "is required but could not be found."));
  REQUIRE_THAT(ParseBatch({Serialized({}, {1, 2}), Serialized({}, {1})})
                   .status(),
               StatusIs(kInvalid, "Name: <unknown>, Key: x, Index: 1.  Number "
                                  "of float values != expected.  Values size: "
                                  "1 but output shape: [2]"));
  REQUIRE_THAT(ParseBatch({Serialized({}, {1, 2})}, {},
                          MakeVector<float>({1, 2, 3}))
                   .status(),
               StatusIs(kInvalid, "def_value[0].shape() == [3] is not "
                                  "compatible with dense_shapes_[0] == [2]"));
  REQUIRE_THAT(ParseBatch({Serialized({}, {1, 2})}, {"a", "b"}).status(),
               StatusIs(kInvalid, "Expected names have the same shape as "
                                  "serialized"));
  // A float list where a bytes list is declared.
  Example e;
  (*e.mutable_features()->mutable_feature())["tag"]
      .mutable_float_list()
      ->add_value(1);
  (*e.mutable_features()->mutable_feature())["x"]
      .mutable_float_list()
      ->add_value(1);
  (*e.mutable_features()->mutable_feature())["x"]
      .mutable_float_list()
      ->add_value(2);
  REQUIRE_THAT(ParseBatch({e.SerializeAsString()}).status(),
               StatusIs(kInvalid, "Key: tag, Index: 0.  Data types don't "
                                  "match. Expected type: string, Actual type: "
                                  "float"));
  // A missing feature takes its default.
  absl::StatusOr<std::vector<Tensor>> out =
      ParseBatch({Serialized({"t"}, {})}, {}, MakeVector<float>({7, 8}));
  REQUIRE(out.ok());
  REQUIRE(Values<float>((*out)[3]) == std::vector<float>({7, 8}));
}

TEST_CASE("ParseSingleExample parses one scalar Example", "[sparse]") {
  NodeDef node = TestNodeBuilder("p", "ParseSingleExample", 2)
                     .Attr("num_sparse", 1)
                     .Attr("sparse_types", DataTypeVector{DT_STRING})
                     .Attr("Tdense", DataTypeVector{DT_FLOAT})
                     .Build();
  auto& attrs = *node.mutable_attr();
  attrs["sparse_keys"].mutable_list()->add_s("tag");
  attrs["dense_keys"].mutable_list()->add_s("x");
  attrs["dense_shapes"].mutable_list()->add_shape()->add_dim()->set_size(2);
  absl::StatusOr<std::vector<Tensor>> out = RunKernel(
      node, {Tensor::Scalar<std::string>(Serialized({"p", "q"}, {1, 2})),
             Tensor(DT_FLOAT, TensorShape({0}))});
  REQUIRE(out.ok());
  REQUIRE(Values<int64_t>((*out)[0]) == std::vector<int64_t>({0, 1}));
  REQUIRE(Values<std::string>((*out)[1]) ==
          std::vector<std::string>({"p", "q"}));
  REQUIRE(Values<int64_t>((*out)[2]) == std::vector<int64_t>({2}));
  REQUIRE(Values<float>((*out)[3]) == std::vector<float>({1, 2}));
  REQUIRE_THAT(RunKernel(node, {Strings({Serialized({}, {1, 2})}),
                                Tensor(DT_FLOAT, TensorShape({0}))})
                   .status(),
               StatusIs(kInvalid, "Expected serialized to be a scalar, got "
                                  "shape: [1]"));
  REQUIRE_THAT(RunKernel(node, {Tensor::Scalar<std::string>(
                                    Serialized({}, {1})),
                                Tensor(DT_FLOAT, TensorShape({0}))})
                   .status(),
               StatusIs(kInvalid, "Key: x.  Number of float values != "
                                  "expected.  Values size: 1 but output shape: "
                                  "[2]"));
  REQUIRE_THAT(RunKernel(node, {Tensor::Scalar<std::string>(
                                    Serialized({"t"}, {})),
                                Tensor(DT_FLOAT, TensorShape({0}))})
                   .status(),
               StatusIs(kInvalid, "Feature: x (data type: float) is required "
                                  "but could not be found."));
}

TEST_CASE("ParseExample pads variable-length dense features with the "
          "default", "[sparse]") {
  NodeDef node = BatchParser();
  (*node.mutable_attr())["dense_shapes"]
      .mutable_list()
      ->mutable_shape(0)
      ->mutable_dim(0)
      ->set_size(-1);  // x: [?] rows of one float
  absl::StatusOr<std::vector<Tensor>> out =
      RunKernel(node, {Strings({Serialized({}, {1, 2, 3}), Serialized({}, {}),
                                Serialized({}, {4})}),
                       Strings({}), Tensor::Scalar<std::string>("tag"),
                       Tensor::Scalar<std::string>("x"),
                       Tensor::Scalar<float>(-1)});
  REQUIRE(out.ok());
  REQUIRE((*out)[3].shape() == TensorShape({3, 3}));
  REQUIRE(Values<float>((*out)[3]) ==
          std::vector<float>({1, 2, 3, -1, -1, -1, 4, -1, -1}));
  REQUIRE_THAT(RunKernel(node, {Strings({Serialized({}, {1})}), Strings({}),
                                Tensor::Scalar<std::string>("tag"),
                                Tensor::Scalar<std::string>("x"),
                                Tensor(DT_FLOAT, TensorShape({0}))})
                   .status(),
               StatusIs(kInvalid, "dense_shape[0] is a variable length shape: "
                                  "[?], therefore def_value[0] must contain a "
                                  "single element (the padding element)."));
}

}  // namespace
}  // namespace dfx

// String ops (graph/ops/string_ops.cc, kernels/strings/): signatures equal
// TensorFlow 2.21's byte for byte, and bad input fails with TensorFlow's
// codes and messages rather than crashing. Results are compared with
// TensorFlow's by the "strings" golden family (gen_strings.py).
#include <limits>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "graph/op_registry.h"
#include "kernels/kernels.h"
#include "proto/op_def.pb.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/math_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using absl::StatusCode;
using testing::MakeVector;
using testing::RunError;
using testing::RunKernel;
using testing::RunOne;
using testing::StatusIs;
using testing::TestNodeBuilder;
using testing::TypedNode;
using testing::Values;

TEST_CASE("Every string op has TensorFlow 2.21's signature and CPU types",
          "[strings]") {
  testing::CheckSignaturesWithTensorFlow("strings", 16);
}

Tensor Strings(std::vector<std::string> v, TensorShape shape = {}) {
  if (shape.dims() == 0 && v.size() != 1) {
    shape = TensorShape({static_cast<int64_t>(v.size())});
  }
  Tensor t(DT_STRING, shape);
  for (size_t i = 0; i < v.size(); ++i) t.data<std::string>()[i] = v[i];
  return t;
}

std::vector<std::string> StringValues(const Tensor& t) {
  return Values<std::string>(t);
}

TEST_CASE("Equal and NotEqual compare strings with broadcasting", "[strings]") {
  const Tensor x = Strings({"a", "b", "c", "a"}, TensorShape({2, 2}));
  const Tensor y = Strings({"a", "c"});
  const Tensor eq =
      RunOne(TypedNode("eq", "Equal", DT_STRING, 2).Build(), {x, y});
  CHECK(eq.shape() == TensorShape({2, 2}));
  CHECK(Values<bool>(eq) == std::vector<bool>{true, false, false, false});
  const Tensor ne =
      RunOne(TypedNode("ne", "NotEqual", DT_STRING, 2).Build(), {x, y});
  CHECK(Values<bool>(ne) == std::vector<bool>{false, true, true, true});
  CHECK_THAT(RunError(TypedNode("eq", "Equal", DT_STRING, 2).Build(),
                      {Strings({"a", "b", "c"}), y}),
             StatusIs(StatusCode::kInvalidArgument, "Incompatible shapes"));
  const Tensor scalar = RunOne(TypedNode("ne", "NotEqual", DT_STRING, 2)
                                   .Attr("incompatible_shape_error", false)
                                   .Build(),
                               {Strings({"a", "b", "c"}), y});
  CHECK(scalar.dims() == 0);
  CHECK(Values<bool>(scalar) == std::vector<bool>{true});
}

TEST_CASE("Substr rejects out-of-range positions with TensorFlow's message",
          "[strings]") {
  NodeDef node = TypedNode("s", "Substr", DT_INT32, 3).Build();
  const Tensor pos = Tensor::FromVector<int32_t>({4}, TensorShape());
  const Tensor len = Tensor::FromVector<int32_t>({1}, TensorShape());
  CHECK_THAT(RunError(node, {Strings({"hello", "abc"}), pos, len}),
             StatusIs(StatusCode::kInvalidArgument,
                      "pos 4 out of range for string b'abc' at index 1"));
  CHECK_THAT(RunError(node, {Strings({"abc"}), MakeVector<int32_t>({1, 2}),
                             MakeVector<int32_t>({1})}),
             StatusIs(StatusCode::kInvalidArgument,
                      "pos and len should have the same shape"));
  const Tensor out =
      RunOne(node, {Strings({"hello", "abc"}),
                    Tensor::FromVector<int32_t>({-2}, TensorShape()),
                    Tensor::FromVector<int32_t>({5}, TensorShape())});
  CHECK(StringValues(out) == std::vector<std::string>{"lo", "bc"});
  // Extreme positions and lengths are out of range or clamp, never overflow.
  NodeDef utf8 =
      TypedNode("s", "Substr", DT_INT64, 3).Attr("unit", "UTF8_CHAR").Build();
  const auto scalar = [](int64_t v) {
    return Tensor::FromVector<int64_t>({v}, TensorShape());
  };
  const int64_t lo = std::numeric_limits<int64_t>::min();
  const int64_t hi = std::numeric_limits<int64_t>::max();
  CHECK_THAT(RunError(utf8, {Strings({"abc"}), scalar(lo), scalar(1)}),
             StatusIs(StatusCode::kInvalidArgument, "out of range"));
  CHECK(
      StringValues(RunOne(utf8, {Strings({"abc"}), scalar(-2), scalar(hi)})) ==
      std::vector<std::string>{"bc"});
  CHECK_THAT(RunError(utf8, {Strings({"abc"}), scalar(-1), scalar(lo)}),
             StatusIs(StatusCode::kInvalidArgument, "out of range"));
  CHECK(StringValues(RunOne(utf8, {Strings({"abc"}), scalar(1), scalar(lo)})) ==
        std::vector<std::string>{""});
}

TEST_CASE("StringToNumber names the string it cannot convert", "[strings]") {
  NodeDef node = TestNodeBuilder("n", "StringToNumber", 1)
                     .Attr("out_type", DT_INT32)
                     .Build();
  CHECK_THAT(RunError(node, {Strings({"1", "2147483648"})}),
             StatusIs(StatusCode::kInvalidArgument,
                      "StringToNumberOp could not correctly convert string: "
                      "2147483648"));
  const Tensor out = RunOne(node, {Strings({" 42 ", "-7"})});
  CHECK(Values<int32_t>(out) == std::vector<int32_t>{42, -7});
}

TEST_CASE("AsString rejects attrs TensorFlow rejects", "[strings]") {
  auto error = [](DataType t, const char* attr, auto value) {
    NodeDef node = TypedNode("a", "AsString", t, 1).Attr(attr, value).Build();
    Tensor in(t, TensorShape({1}));
    return RunKernel(node, {in}).status();
  };
  CHECK_THAT(error(DT_INT32, "precision", 2),
             StatusIs(StatusCode::kInvalidArgument,
                      "precision not supported for datatype int32"));
  CHECK_THAT(error(DT_FLOAT, "fill", "ab"),
             StatusIs(StatusCode::kInvalidArgument,
                      "Fill string must be one or fewer characters"));
  CHECK_THAT(error(DT_FLOAT, "fill", "x"),
             StatusIs(StatusCode::kInvalidArgument,
                      "Fill argument not supported: \"x\""));
}

TEST_CASE("StringSplitV2 and ReduceJoin check their ranks", "[strings]") {
  NodeDef split = TestNodeBuilder("s", "StringSplitV2", 2).Build();
  CHECK_THAT(
      RunError(split, {Strings({"a b"}, TensorShape({1, 1})), Strings({""})}),
      StatusIs(StatusCode::kInvalidArgument, "input must be a vector"));
  NodeDef join = TestNodeBuilder("j", "ReduceJoin", 2).Build();
  CHECK_THAT(RunError(join, {Strings({"a", "b"}), MakeVector<int32_t>({1})}),
             StatusIs(StatusCode::kOutOfRange,
                      "Invalid reduction dimension 1 for input with 1 "
                      "dimension(s)"));
}

TEST_CASE("DecodeBase64 rejects what TensorFlow rejects", "[strings]") {
  NodeDef node = TestNodeBuilder("d", "DecodeBase64", 1).Build();
  CHECK_THAT(RunError(node, {Strings({"Zm9v+g=="})}),
             StatusIs(StatusCode::kInvalidArgument,
                      "Invalid character found in base64."));
  CHECK_THAT(RunError(node, {Strings({"Zm9vY"})}),
             StatusIs(StatusCode::kInvalidArgument,
                      "Base64 string length cannot be 1 modulo 4."));
  CHECK(StringValues(RunOne(node, {Strings({"Zm9vYg", "Zm9vYg=="})})) ==
        std::vector<std::string>{"foob", "foob"});
}

}  // namespace
}  // namespace dfx

namespace dfx {
namespace {

// Over kParallelEvalThreshold elements the kernels split the work on the
// intra-op pool; each element must come out as it does alone.
TEST_CASE("Hash buckets and case mapping of many strings equal each alone",
          "[strings]") {
  const std::vector<std::string> few = {"", "a", "Hello \xc3\x89t\xc3\xa9",
                                        std::string(100, 'x')};
  constexpr int64_t kMany = 40000;
  Tensor many(DT_STRING, TensorShape({kMany}));
  for (int64_t i = 0; i < kMany; ++i) {
    many.data<std::string>()[i] = few[i % few.size()];
  }
  const Tensor small = Strings(few);
  for (const NodeDef& node :
       {TestNodeBuilder("h", "StringToHashBucketFast", 1)
            .Attr("num_buckets", int64_t{1} << 40)
            .Build(),
        TestNodeBuilder("h", "StringToHashBucketStrong", 1)
            .Attr("num_buckets", int64_t{1} << 40)
            .Attr("key", std::vector<int64_t>{3, 4})
            .Build()}) {
    const std::vector<int64_t> alone = Values<int64_t>(RunOne(node, {small}));
    const std::vector<int64_t> all = Values<int64_t>(RunOne(node, {many}));
    for (int64_t i = 0; i < kMany; ++i) {
      REQUIRE(all[i] == alone[i % few.size()]);
    }
  }
  NodeDef upper =
      TestNodeBuilder("u", "StringUpper", 1).Attr("encoding", "utf-8").Build();
  const std::vector<std::string> alone = StringValues(RunOne(upper, {small}));
  const std::vector<std::string> all = StringValues(RunOne(upper, {many}));
  for (int64_t i = 0; i < kMany; ++i) {
    REQUIRE(all[i] == alone[i % few.size()]);
  }
}

}  // namespace
}  // namespace dfx

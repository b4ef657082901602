#include "tools/cli/json_tensor.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "nlohmann/json.hpp"
#include "tests/testing/status_matchers.h"

namespace dfx::cli {
namespace {

using testing::StatusIs;

template <typename T>
std::vector<T> Values(const Tensor& t) {
  return std::vector<T>(t.data<T>(), t.data<T>() + t.NumElements());
}

TEST_CASE("JSON literals parse into tensors of every dtype") {
  SECTION("float32 matrix") {
    auto t = ParseJsonTensor("[[1, 2.5], [-3, 4e-1]]", DT_FLOAT);
    REQUIRE_OK(t);
    REQUIRE(t->dtype() == DT_FLOAT);
    REQUIRE(t->shape() == TensorShape({2, 2}));
    REQUIRE(Values<float>(*t) == std::vector<float>{1, 2.5f, -3, 0.4f});
  }
  SECTION("float64 scalar keeps double precision") {
    auto t = ParseJsonTensor("0.1", DT_DOUBLE);
    REQUIRE_OK(t);
    REQUIRE(t->dims() == 0);
    REQUIRE(t->scalar<double>() == 0.1);
  }
  SECTION("int32 vector, with integral floats accepted") {
    auto t = ParseJsonTensor("[1, -2, 2.0, 2147483647, -2147483648]", DT_INT32);
    REQUIRE_OK(t);
    REQUIRE(t->shape() == TensorShape({5}));
    REQUIRE(Values<int32_t>(*t) ==
            std::vector<int32_t>{1, -2, 2, 2147483647,
                                 std::numeric_limits<int32_t>::min()});
  }
  SECTION("int64 holds the full range") {
    auto t = ParseJsonTensor("[9223372036854775807, -9223372036854775808, 3]",
                             DT_INT64);
    REQUIRE_OK(t);
    REQUIRE(Values<int64_t>(*t) ==
            std::vector<int64_t>{std::numeric_limits<int64_t>::max(),
                                 std::numeric_limits<int64_t>::min(), 3});
  }
  SECTION("bool, rank 3") {
    auto t = ParseJsonTensor("[[[true], [false]], [[false], [true]]]", DT_BOOL);
    REQUIRE_OK(t);
    REQUIRE(t->shape() == TensorShape({2, 2, 1}));
    REQUIRE(Values<bool>(*t) == std::vector<bool>{true, false, false, true});
  }
  SECTION("bool scalar") {
    auto t = ParseJsonTensor(" true ", DT_BOOL);
    REQUIRE_OK(t);
    REQUIRE(t->dims() == 0);
    REQUIRE(t->scalar<bool>());
  }
  SECTION("small integer types") {
    auto u8 = ParseJsonTensor("[0, 255]", DT_UINT8);
    REQUIRE_OK(u8);
    REQUIRE(Values<uint8_t>(*u8) == std::vector<uint8_t>{0, 255});
    REQUIRE_THAT(ParseJsonTensor("[256]", DT_UINT8).status(),
                 StatusIs(absl::StatusCode::kInvalidArgument, "out of range"));
    REQUIRE_THAT(ParseJsonTensor("[-1]", DT_UINT8).status(),
                 StatusIs(absl::StatusCode::kInvalidArgument, "out of range"));
    auto i16 = ParseJsonTensor("-32768", DT_INT16);
    REQUIRE_OK(i16);
    REQUIRE(i16->scalar<int16_t>() == -32768);
  }
  SECTION("empty arrays give zero-sized dims") {
    auto e = ParseJsonTensor("[]", DT_FLOAT);
    REQUIRE_OK(e);
    REQUIRE(e->shape() == TensorShape({0}));
    auto e2 = ParseJsonTensor("[[], []]", DT_INT32);
    REQUIRE_OK(e2);
    REQUIRE(e2->shape() == TensorShape({2, 0}));
  }
  SECTION("NaN and infinities as strings") {
    auto t = ParseJsonTensor(R"(["NaN", "Infinity", "-Infinity", 1])",
                             DT_FLOAT);
    REQUIRE_OK(t);
    const auto v = Values<float>(*t);
    REQUIRE(std::isnan(v[0]));
    REQUIRE(v[1] == std::numeric_limits<float>::infinity());
    REQUIRE(v[2] == -std::numeric_limits<float>::infinity());
    REQUIRE(v[3] == 1.0f);
  }
}

TEST_CASE("JSON strings parse into string tensors, as a text model's raw "
          "input") {
  auto t = ParseJsonTensor(R"([["The cat.", ""], ["caf\u00e9", "a\"b"]])",
                           DT_STRING);
  REQUIRE_OK(t);
  REQUIRE(t->shape() == TensorShape({2, 2}));
  REQUIRE(Values<std::string>(*t) ==
          std::vector<std::string>{"The cat.", "", "caf\xc3\xa9", "a\"b"});
  auto scalar = ParseJsonTensor(R"("x y")", DT_STRING);
  REQUIRE_OK(scalar);
  REQUIRE(scalar->dims() == 0);
  REQUIRE(scalar->scalar<std::string>() == "x y");
}

TEST_CASE("JSON literals that do not fit the dtype are InvalidArgument") {
  auto expect = [](const std::string& json, DataType dtype,
                   const std::string& what) {
    INFO(json << " as " << DataTypeString(dtype));
    REQUIRE_THAT(ParseJsonTensor(json, dtype).status(),
                 StatusIs(absl::StatusCode::kInvalidArgument, what));
  };
  // Not JSON.
  expect("", DT_FLOAT, "not valid JSON");
  expect("[1, 2", DT_FLOAT, "not valid JSON");
  expect("[1,, 2]", DT_FLOAT, "not valid JSON");
  expect("abc", DT_FLOAT, "not valid JSON");
  expect("1 2", DT_FLOAT, "not valid JSON");
  expect("NaN", DT_FLOAT, "not valid JSON");
  // Ragged.
  expect("[[1, 2], [3]]", DT_FLOAT, "element [1]: ragged array");
  expect("[[1, 2], 3]", DT_FLOAT, "element [1]: ragged array");
  expect("[1, [2]]", DT_FLOAT, "element [1]: ragged array");
  expect("[[[1], [2]], [[3], [4, 5]]]", DT_INT32, "element [1][1]: ragged");
  expect("[[], [1]]", DT_INT32, "ragged");
  // Values of the wrong kind.
  expect(R"(["a"])", DT_FLOAT, "element [0]: expected a number");
  expect(R"([1, "nan"])", DT_DOUBLE, "element [1]: expected a number");
  expect(R"({"a": 1})", DT_FLOAT, "expected a number for dtype float32");
  expect("null", DT_INT32, "expected an integer");
  expect("[true]", DT_FLOAT, "expected a number");
  expect("[true]", DT_INT64, "expected an integer");
  expect("[1]", DT_BOOL, "expected true or false");
  expect(R"(["true"])", DT_BOOL, "expected true or false");
  expect(R"(["NaN"])", DT_INT32, "expected an integer");
  // Fractions for integer dtypes.
  expect("1.5", DT_INT32, "1.5 is not an integer (dtype int32)");
  expect("[[1, 2], [3, -0.25]]", DT_INT64, "element [1][1]: -0.25 is not an integer");
  // Out of range.
  expect("2147483648", DT_INT32, "out of range for dtype int32");
  expect("-2147483649", DT_INT32, "out of range for dtype int32");
  expect("3e9", DT_INT32, "out of range for dtype int32");
  expect("9223372036854775808", DT_INT64, "out of range for dtype int64");
  expect("1e19", DT_INT64, "out of range for dtype int64");
  expect("-1e300", DT_INT64, "out of range");
  expect("1e39", DT_FLOAT, "out of range for dtype float32");
  expect("[1, -1e39]", DT_FLOAT, "element [1]: -1e+39 is out of range");
  expect("1e400", DT_DOUBLE, "number overflow");
  // Dtypes JSON cannot give.
  expect("1", DT_STRING, "expected a string for dtype string");
  expect(R"(["a", 2])", DT_STRING, "element [1]: expected a string");
  expect("1", DT_COMPLEX64, "complex64");
  // Nesting deeper than any tensor rank.
  expect(std::string(300, '[') + "1" + std::string(300, ']'), DT_FLOAT,
         "nested deeper");
}

TEST_CASE("Doubles at the limits of float32 and int types") {
  auto f = ParseJsonTensor("1e300", DT_DOUBLE);
  REQUIRE_OK(f);
  REQUIRE(f->scalar<double>() == 1e300);
  auto big = ParseJsonTensor("-9.2233720368547758e18", DT_INT64);
  REQUIRE_OK(big);
  REQUIRE(big->scalar<int64_t>() == std::numeric_limits<int64_t>::min());
}

TEST_CASE("Tensors print as JSON objects nested to the shape") {
  auto json = [](const Tensor& t) {
    auto s = TensorToJson(t);
    REQUIRE_OK(s);
    return *s;
  };
  REQUIRE(json(Tensor::FromVector<float>({1, 2.5f, -3, 0.1f},
                                         TensorShape({2, 2}))) ==
          R"({"dtype": "float32", "shape": [2, 2], "values": [[1, 2.5], [-3, 0.1]]})");
  REQUIRE(json(Tensor::Scalar<double>(0.1)) ==
          R"({"dtype": "float64", "shape": [], "values": 0.1})");
  REQUIRE(json(Tensor::FromVector<int32_t>({-2147483647 - 1, 7})) ==
          R"({"dtype": "int32", "shape": [2], "values": [-2147483648, 7]})");
  REQUIRE(json(Tensor::FromVector<int64_t>(
              {std::numeric_limits<int64_t>::max()}, TensorShape({1, 1, 1}))) ==
          R"({"dtype": "int64", "shape": [1, 1, 1], "values": [[[9223372036854775807]]]})");
  REQUIRE(json(Tensor::FromVector<bool>({true, false})) ==
          R"({"dtype": "bool", "shape": [2], "values": [true, false]})");
  REQUIRE(json(Tensor::FromVector<uint64_t>({18446744073709551615ull})) ==
          R"({"dtype": "uint64", "shape": [1], "values": [18446744073709551615]})");
  REQUIRE(json(Tensor::FromVector<uint8_t>({255, 0})) ==
          R"({"dtype": "uint8", "shape": [2], "values": [255, 0]})");
  REQUIRE(json(Tensor(DT_FLOAT, TensorShape({0}))) ==
          R"({"dtype": "float32", "shape": [0], "values": []})");
  REQUIRE(json(Tensor(DT_FLOAT, TensorShape({2, 0}))) ==
          R"({"dtype": "float32", "shape": [2, 0], "values": [[], []]})");
  REQUIRE(json(Tensor::FromVector<float>(
              {std::nanf(""), std::numeric_limits<float>::infinity(),
               -std::numeric_limits<float>::infinity()})) ==
          R"({"dtype": "float32", "shape": [3], "values": ["NaN", "Infinity", "-Infinity"]})");
  REQUIRE(json(Tensor::FromVector<std::string>({"a\"b", "\n"})) ==
          R"({"dtype": "string", "shape": [2], "values": ["a\"b", "\n"]})");
  REQUIRE_THAT(TensorToJson(Tensor(DT_HALF, TensorShape({1}))).status(),
               StatusIs(absl::StatusCode::kInvalidArgument, "half"));
}

TEST_CASE("Printed JSON parses back to the same tensor") {
  const Tensor floats = Tensor::FromVector<float>(
      {0.1f, 1e-30f, 3.4028235e38f, -7.0f, 1.0f / 3.0f, 16777216.0f},
      TensorShape({3, 2}));
  const Tensor doubles = Tensor::FromVector<double>(
      {0.1, 1.0 / 3.0, 1e-300, -2.5e300}, TensorShape({2, 1, 2}));
  for (const Tensor* t : {&floats, &doubles}) {
    auto text = TensorToJson(*t);
    REQUIRE_OK(text);
    const nlohmann::json parsed = nlohmann::json::parse(*text);
    REQUIRE(parsed["shape"].size() == static_cast<size_t>(t->dims()));
    auto back = ParseJsonTensor(parsed["values"].dump(), t->dtype());
    REQUIRE_OK(back);
    REQUIRE(back->shape() == t->shape());
    REQUIRE(std::string(static_cast<const char*>(back->raw_data()),
                        back->TotalBytes()) ==
            std::string(static_cast<const char*>(t->raw_data()),
                        t->TotalBytes()));
  }
}

TEST_CASE("JsonQuote escapes quotes, backslashes and control bytes, and "
          "keeps UTF-8") {
  // UTF-8 stays one character per code point (not one per byte).
  CHECK(JsonQuote("caf\xc3\xa9 \xe2\x82\xac") == "\"caf\xc3\xa9 \xe2\x82\xac\"");
  CHECK(nlohmann::json::parse(JsonQuote("\xc3\xa9")).get<std::string>() ==
        "\xc3\xa9");
  // Bytes that are not UTF-8 become U+FFFD; the output is still JSON.
  CHECK(nlohmann::json::parse(JsonQuote("a\xff" "b")).get<std::string>() ==
        "a\xef\xbf\xbd" "b");
  REQUIRE(JsonQuote("a/b:0") == "\"a/b:0\"");
  REQUIRE(JsonQuote("q\"\\\x01") == "\"q\\\"\\\\\\u0001\"");
  REQUIRE(nlohmann::json::parse(JsonQuote("x\ty\x7f")).get<std::string>() ==
          "x\ty\x7f");
}

}  // namespace
}  // namespace dfx::cli

// Inputs tests/fuzz/ found that once broke graph import, kept as plain
// tests (the reproducers are in tests/fuzz/regressions/graph_def/: a mode
// byte, then the GraphDef, as graph_def_fuzzer reads them).
#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "catch2/catch.hpp"
#include "google/protobuf/text_format.h"
#include "graph/graph_def_import.h"
#include "graph/op_registry.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using ::dfx::testing::StatusIs;

const std::string kRegressions =
    absl::StrCat(DFX_TEST_DATA_DIR, "/../fuzz/regressions/graph_def/");

GraphDef FromText(const std::string& text) {
  GraphDef def;
  REQUIRE(google::protobuf::TextFormat::ParseFromString(text, &def));
  return def;
}

GraphDef FromReproducer(const std::string& name) {
  std::ifstream in(absl::StrCat(kRegressions, name), std::ios::binary);
  REQUIRE(in.good());
  std::stringstream bytes;
  bytes << in.rdbuf();
  const std::string data = bytes.str();
  REQUIRE(!data.empty());
  REQUIRE(data[0] == 0);  // binary mode
  GraphDef def;
  REQUIRE(def.ParseFromString(data.substr(1)));
  return def;
}

TEST_CASE("fuzz regressions: Reshape to a shape whose size overflows is "
          "refused") {
  // 4 x (2^62 + 1) wraps to 4 in int64: once accepted for a 4-element
  // input.
  const GraphDef def = FromText(R"pb(
    node {
      name: "x"
      op: "Const"
      attr { key: "dtype" value { type: DT_FLOAT } }
      attr {
        key: "value"
        value {
          tensor {
            dtype: DT_FLOAT
            tensor_shape { dim { size: 4 } }
            float_val: 1
          }
        }
      }
    }
    node {
      name: "shape"
      op: "Const"
      attr { key: "dtype" value { type: DT_INT64 } }
      attr {
        key: "value"
        value {
          tensor {
            dtype: DT_INT64
            tensor_shape { dim { size: 2 } }
            int64_val: 4
            int64_val: 4611686018427387905
          }
        }
      }
    }
    node {
      name: "r"
      op: "Reshape"
      input: "x"
      input: "shape"
      attr { key: "T" value { type: DT_FLOAT } }
      attr { key: "Tshape" value { type: DT_INT64 } }
    }
  )pb");
  CHECK_THAT(ImportGraphDef(def, OpRegistry::Global()).status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "node 'r' (op Reshape)"));
  CHECK_THAT(ImportGraphDef(def, OpRegistry::Global()).status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "has too many elements"));
}

TEST_CASE("fuzz regressions: the fuzzer's Reshape overflow reproducer is "
          "refused") {
  // A Reshape (among Fill and OneHot nodes) to dims whose product
  // overflows int64 (signed overflow in the shape function).
  CHECK_THAT(
      ImportGraphDef(FromReproducer("reshape_shape_overflow"),
                     OpRegistry::Global())
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "has too many elements"));
}

}  // namespace
}  // namespace dfx

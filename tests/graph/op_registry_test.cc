#include "graph/op_registry.h"

#include "catch2/catch.hpp"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::StatusIs;

TEST_CASE("OpDefBuilder parses TensorFlow-style specs") {
  auto data = OpDefBuilder("MyMatMul")
                  .Input("a: T")
                  .Input("b: T")
                  .Output("product: T")
                  .Attr("transpose_a: bool = false")
                  .Attr("T: {float, double, int32}")
                  .Finalize();
  REQUIRE_OK(data);
  const OpDef& def = data->op_def;
  REQUIRE(def.input_arg_size() == 2);
  REQUIRE(def.input_arg(0).type_attr() == "T");
  REQUIRE(def.attr(0).type() == "bool");
  REQUIRE(def.attr(0).default_value().b() == false);
  REQUIRE(def.attr(1).type() == "type");
  REQUIRE(def.attr(1).allowed_values().list().type_size() == 3);
}

TEST_CASE("OpDefBuilder handles number and list attrs and defaults") {
  auto data = OpDefBuilder("MyConcat")
                  .Input("values: N * T")
                  .Input("axis: Tidx")
                  .Output("output: T")
                  .Attr("N: int >= 2")
                  .Attr("T: type")
                  .Attr("Tidx: {int32, int64} = DT_INT32")
                  .Attr("dims: list(int) = [1, 2]")
                  .Finalize();
  REQUIRE_OK(data);
  REQUIRE(data->op_def.input_arg(0).number_attr() == "N");
  REQUIRE(data->op_def.attr(0).minimum() == 2);
  REQUIRE(data->op_def.attr(2).default_value().type() == DT_INT32);
  REQUIRE(data->op_def.attr(3).default_value().list().i_size() == 2);
}

TEST_CASE("OpDefBuilder rejects an input naming a missing attr") {
  REQUIRE_THAT(OpDefBuilder("Bad").Input("x: T").Finalize().status(),
               StatusIs(absl::StatusCode::kInvalidArgument, "'T'"));
}

TEST_CASE("OpRegistry rejects a duplicate op and reports unknown ops") {
  OpRegistry registry;
  REQUIRE_OK(registry.Register(OpDefBuilder("A").Output("y: float")));
  REQUIRE_THAT(registry.Register(OpDefBuilder("A")),
               StatusIs(absl::StatusCode::kAlreadyExists, "'A'"));
  REQUIRE_THAT(registry.LookUpOrError("Nope").status(),
               StatusIs(absl::StatusCode::kNotFound, "'Nope'"));
}

}  // namespace
}  // namespace dfx

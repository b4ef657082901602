// BitwiseAnd/Or/Xor, Invert, LeftShift and RightShift (TensorFlow's clamped
// shift counts), PopulationCount, Bitcast's shape rules and BroadcastArgs:
// TensorFlow 2.21's answers, its errors, and its OpDefs.
#include <cstdint>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/message_differencer.h"
#include "graph/op_registry.h"
#include "tests/kernels/math_test_util.h"

namespace dfx {
namespace {

using testing::MakeTensor;
using testing::MakeVector;
using testing::RunError;
using testing::RunOne;
using testing::StatusIs;
using testing::TestNodeBuilder;
using testing::TypedNode;
using testing::Values;

template <typename T>
std::vector<T> Bin(const char* op, std::vector<T> x, std::vector<T> y) {
  return Values<T>(
      RunOne(TypedNode("b", op, DataTypeToEnum<T>::value, 2).Build(),
             {Tensor::FromVector<T>(x), Tensor::FromVector<T>(y)}));
}

TEST_CASE("Bitwise ops and TensorFlow's shift clamping", "[bitwise]") {
  CHECK(Bin<int32_t>("BitwiseAnd", {12, -1}, {10, 7}) ==
        std::vector<int32_t>{8, 7});
  CHECK(Bin<uint16_t>("BitwiseOr", {12, 0}, {3, 65535}) ==
        std::vector<uint16_t>{15, 65535});
  CHECK(Bin<int64_t>("BitwiseXor", {12, -1}, {10, 0}) ==
        std::vector<int64_t>{6, -1});
  // Shifts by the width or more act as by width - 1; negative ones as 0.
  CHECK(Bin<int8_t>("LeftShift", {1, 1, 1, -1, 5}, {7, 8, -1, 3, 100}) ==
        std::vector<int8_t>{-128, -128, 1, -8, -128});
  CHECK(Bin<int8_t>("RightShift", {-128, 64, 64, -1, 5}, {7, 8, -1, 3, 100}) ==
        std::vector<int8_t>{-1, 0, 64, -1, 0});
  CHECK(Bin<uint8_t>("LeftShift", {1, 1, 255}, {7, 8, 200}) ==
        std::vector<uint8_t>{128, 128, 128});
  Tensor inv = RunOne(TypedNode("i", "Invert", DT_UINT8, 1).Build(),
                      {MakeVector<uint8_t>({0, 255, 15})});
  CHECK(Values<uint8_t>(inv) == std::vector<uint8_t>{255, 0, 240});
  Tensor pop = RunOne(TypedNode("p", "PopulationCount", DT_INT64, 1).Build(),
                      {MakeVector<int64_t>({-1, 0, 7})});
  CHECK(Values<uint8_t>(pop) == std::vector<uint8_t>{64, 0, 3});
}

NodeDef BitcastNode(DataType from, DataType to) {
  return TypedNode("c", "Bitcast", from, 1).Attr("type", to).Build();
}

TEST_CASE("Bitcast shapes and bytes", "[bitwise]") {
  Tensor up = RunOne(BitcastNode(DT_UINT8, DT_INT32),
                     {MakeTensor<uint8_t>({1, 0, 0, 0}, TensorShape({1, 4}))});
  CHECK(up.shape() == TensorShape({1}));
  CHECK(Values<int32_t>(up) == std::vector<int32_t>{1});
  Tensor down =
      RunOne(BitcastNode(DT_FLOAT, DT_UINT16), {MakeVector<float>({1.0f})});
  CHECK(down.shape() == TensorShape({1, 2}));
  CHECK(Values<uint16_t>(down) == std::vector<uint16_t>{0, 16256});
  Tensor same =
      RunOne(BitcastNode(DT_FLOAT, DT_INT32), {MakeVector<float>({1.0f})});
  CHECK(Values<int32_t>(same) == std::vector<int32_t>{0x3f800000});
  CHECK_THAT(
      RunError(BitcastNode(DT_INT8, DT_INT32), {MakeVector<int8_t>({1, 2, 3})}),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "Cannot bitcast from 6 to 3"));
}

TEST_CASE("BroadcastArgs", "[bitwise]") {
  const NodeDef node = TypedNode("a", "BroadcastArgs", DT_INT32, 2).Build();
  CHECK(Values<int32_t>(RunOne(node, {MakeVector<int32_t>({2, 1, 3}),
                                      MakeVector<int32_t>({4, 1})})) ==
        std::vector<int32_t>{2, 4, 3});
  CHECK(RunOne(node, {Tensor(DT_INT32, TensorShape({0})),
                      Tensor(DT_INT32, TensorShape({0}))})
            .NumElements() == 0);
  CHECK_THAT(
      RunError(node, {MakeVector<int32_t>({2, 3}), MakeVector<int32_t>({4})}),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "Incompatible shapes: [2,3] vs. [4]"));
  CHECK_THAT(RunError(node, {MakeTensor<int32_t>({2, 3}, TensorShape({1, 2})),
                             MakeVector<int32_t>({4})}),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "In[0] must be a vector.[1,2]"));
}

// text_format.MessageToString(op_def_registry.get(name), as_one_line=True)
// of TensorFlow 2.21, double quotes swapped for single ones.
const char* const kTfOpDefs[] = {
    "name: 'BitwiseAnd' input_arg { name: 'x' type_attr: 'T' } "
    "input_arg { name: 'y' type_attr: 'T' } output_arg { name: 'z' "
    "type_attr: 'T' } attr { name: 'T' type: 'type' allowed_values { "
    "list { type: DT_INT8 type: DT_INT16 type: DT_INT32 type: DT_INT64 "
    "type: DT_UINT8 type: DT_UINT16 type: DT_UINT32 type: DT_UINT64 } }"
    " } is_commutative: true",
    "name: 'BitwiseOr' input_arg { name: 'x' type_attr: 'T' } input_arg"
    " { name: 'y' type_attr: 'T' } output_arg { name: 'z' type_attr: "
    "'T' } attr { name: 'T' type: 'type' allowed_values { list { type: "
    "DT_INT8 type: DT_INT16 type: DT_INT32 type: DT_INT64 type: "
    "DT_UINT8 type: DT_UINT16 type: DT_UINT32 type: DT_UINT64 } } } "
    "is_commutative: true",
    "name: 'BitwiseXor' input_arg { name: 'x' type_attr: 'T' } "
    "input_arg { name: 'y' type_attr: 'T' } output_arg { name: 'z' "
    "type_attr: 'T' } attr { name: 'T' type: 'type' allowed_values { "
    "list { type: DT_INT8 type: DT_INT16 type: DT_INT32 type: DT_INT64 "
    "type: DT_UINT8 type: DT_UINT16 type: DT_UINT32 type: DT_UINT64 } }"
    " } is_commutative: true",
    "name: 'Invert' input_arg { name: 'x' type_attr: 'T' } output_arg {"
    " name: 'y' type_attr: 'T' } attr { name: 'T' type: 'type' "
    "allowed_values { list { type: DT_INT8 type: DT_INT16 type: "
    "DT_INT32 type: DT_INT64 type: DT_UINT8 type: DT_UINT16 type: "
    "DT_UINT32 type: DT_UINT64 } } }",
    "name: 'LeftShift' input_arg { name: 'x' type_attr: 'T' } input_arg"
    " { name: 'y' type_attr: 'T' } output_arg { name: 'z' type_attr: "
    "'T' } attr { name: 'T' type: 'type' allowed_values { list { type: "
    "DT_INT8 type: DT_INT16 type: DT_INT32 type: DT_INT64 type: "
    "DT_UINT8 type: DT_UINT16 type: DT_UINT32 type: DT_UINT64 } } }",
    "name: 'RightShift' input_arg { name: 'x' type_attr: 'T' } "
    "input_arg { name: 'y' type_attr: 'T' } output_arg { name: 'z' "
    "type_attr: 'T' } attr { name: 'T' type: 'type' allowed_values { "
    "list { type: DT_INT8 type: DT_INT16 type: DT_INT32 type: DT_INT64 "
    "type: DT_UINT8 type: DT_UINT16 type: DT_UINT32 type: DT_UINT64 } }"
    " }",
    "name: 'PopulationCount' input_arg { name: 'x' type_attr: 'T' } "
    "output_arg { name: 'y' type: DT_UINT8 } attr { name: 'T' type: "
    "'type' allowed_values { list { type: DT_INT8 type: DT_INT16 type: "
    "DT_INT32 type: DT_INT64 type: DT_UINT8 type: DT_UINT16 type: "
    "DT_UINT32 type: DT_UINT64 } } }",
    "name: 'Bitcast' input_arg { name: 'input' type_attr: 'T' } "
    "output_arg { name: 'output' type_attr: 'type' } attr { name: 'T' "
    "type: 'type' allowed_values { list { type: DT_BFLOAT16 type: "
    "DT_HALF type: DT_FLOAT type: DT_DOUBLE type: DT_INT64 type: "
    "DT_INT32 type: DT_UINT8 type: DT_UINT16 type: DT_UINT32 type: "
    "DT_UINT64 type: DT_INT8 type: DT_INT16 type: DT_COMPLEX64 type: "
    "DT_COMPLEX128 type: DT_QINT8 type: DT_QUINT8 type: DT_QINT16 type:"
    " DT_QUINT16 type: DT_QINT32 } } } attr { name: 'type' type: 'type'"
    " allowed_values { list { type: DT_BFLOAT16 type: DT_HALF type: "
    "DT_FLOAT type: DT_DOUBLE type: DT_INT64 type: DT_INT32 type: "
    "DT_UINT8 type: DT_UINT16 type: DT_UINT32 type: DT_UINT64 type: "
    "DT_INT8 type: DT_INT16 type: DT_COMPLEX64 type: DT_COMPLEX128 "
    "type: DT_QINT8 type: DT_QUINT8 type: DT_QINT16 type: DT_QUINT16 "
    "type: DT_QINT32 } } }",
    "name: 'BroadcastArgs' input_arg { name: 's0' type_attr: 'T' } "
    "input_arg { name: 's1' type_attr: 'T' } output_arg { name: 'r0' "
    "type_attr: 'T' } attr { name: 'T' type: 'type' default_value { "
    "type: DT_INT32 } allowed_values { list { type: DT_INT32 type: "
    "DT_INT64 } } }",
};

TEST_CASE("Bit ops have TensorFlow 2.21's signatures", "[bitwise]") {
  for (const char* text : kTfOpDefs) {
    OpDef want;
    REQUIRE(google::protobuf::TextFormat::ParseFromString(text, &want));
    INFO(want.name());
    const OpRegistrationData* op = OpRegistry::Global()->LookUp(want.name());
    REQUIRE(op != nullptr);
    std::string diff;
    google::protobuf::util::MessageDifferencer differ;
    differ.ReportDifferencesToString(&diff);
    differ.Compare(want, op->op_def);
    INFO(diff);
    CHECK(diff.empty());
  }
}

}  // namespace
}  // namespace dfx

// The OpDefs of the complex-number and FFT ops against TensorFlow 2.21's,
// so that its GraphDefs import, and the FFT shape functions.
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/message_differencer.h"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "runtime/tensor.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

// text_format.MessageToString(op_def_registry.get(name), as_one_line=True)
// of TensorFlow 2.21, double quotes swapped for single ones.
const char* const kTfOpDefs[] = {
    "name: 'Complex' input_arg { name: 'real' type_attr: 'T' } "
    "input_arg { name: 'imag' type_attr: 'T' } output_arg { name: 'out'"
    " type_attr: 'Tout' } attr { name: 'T' type: 'type' default_value {"
    " type: DT_FLOAT } allowed_values { list { type: DT_FLOAT type: "
    "DT_DOUBLE } } } attr { name: 'Tout' type: 'type' default_value { "
    "type: DT_COMPLEX64 } allowed_values { list { type: DT_COMPLEX64 "
    "type: DT_COMPLEX128 } } }",
    "name: 'Real' input_arg { name: 'input' type_attr: 'T' } output_arg"
    " { name: 'output' type_attr: 'Tout' } attr { name: 'T' type: "
    "'type' default_value { type: DT_COMPLEX64 } allowed_values { list "
    "{ type: DT_COMPLEX64 type: DT_COMPLEX128 } } } attr { name: 'Tout'"
    " type: 'type' default_value { type: DT_FLOAT } allowed_values { "
    "list { type: DT_FLOAT type: DT_DOUBLE } } }",
    "name: 'Imag' input_arg { name: 'input' type_attr: 'T' } output_arg"
    " { name: 'output' type_attr: 'Tout' } attr { name: 'T' type: "
    "'type' default_value { type: DT_COMPLEX64 } allowed_values { list "
    "{ type: DT_COMPLEX64 type: DT_COMPLEX128 } } } attr { name: 'Tout'"
    " type: 'type' default_value { type: DT_FLOAT } allowed_values { "
    "list { type: DT_FLOAT type: DT_DOUBLE } } }",
    "name: 'ComplexAbs' input_arg { name: 'x' type_attr: 'T' } "
    "output_arg { name: 'y' type_attr: 'Tout' } attr { name: 'T' type: "
    "'type' default_value { type: DT_COMPLEX64 } allowed_values { list "
    "{ type: DT_COMPLEX64 type: DT_COMPLEX128 } } } attr { name: 'Tout'"
    " type: 'type' default_value { type: DT_FLOAT } allowed_values { "
    "list { type: DT_FLOAT type: DT_DOUBLE } } }",
    "name: 'Angle' input_arg { name: 'input' type_attr: 'T' } "
    "output_arg { name: 'output' type_attr: 'Tout' } attr { name: 'T' "
    "type: 'type' default_value { type: DT_COMPLEX64 } allowed_values {"
    " list { type: DT_COMPLEX64 type: DT_COMPLEX128 } } } attr { name: "
    "'Tout' type: 'type' default_value { type: DT_FLOAT } "
    "allowed_values { list { type: DT_FLOAT type: DT_DOUBLE } } }",
    "name: 'Conj' input_arg { name: 'input' type_attr: 'T' } output_arg"
    " { name: 'output' type_attr: 'T' } attr { name: 'T' type: 'type' "
    "default_value { type: DT_COMPLEX64 } allowed_values { list { type:"
    " DT_COMPLEX64 type: DT_COMPLEX128 type: DT_VARIANT } } }",
    "name: 'FFT' input_arg { name: 'input' type_attr: 'Tcomplex' } "
    "output_arg { name: 'output' type_attr: 'Tcomplex' } attr { name: "
    "'Tcomplex' type: 'type' default_value { type: DT_COMPLEX64 } "
    "allowed_values { list { type: DT_COMPLEX64 type: DT_COMPLEX128 } }"
    " }",
    "name: 'IFFT' input_arg { name: 'input' type_attr: 'Tcomplex' } "
    "output_arg { name: 'output' type_attr: 'Tcomplex' } attr { name: "
    "'Tcomplex' type: 'type' default_value { type: DT_COMPLEX64 } "
    "allowed_values { list { type: DT_COMPLEX64 type: DT_COMPLEX128 } }"
    " }",
    "name: 'RFFT' input_arg { name: 'input' type_attr: 'Treal' } "
    "input_arg { name: 'fft_length' type: DT_INT32 } output_arg { name:"
    " 'output' type_attr: 'Tcomplex' } attr { name: 'Treal' type: "
    "'type' default_value { type: DT_FLOAT } allowed_values { list { "
    "type: DT_FLOAT type: DT_DOUBLE } } } attr { name: 'Tcomplex' type:"
    " 'type' default_value { type: DT_COMPLEX64 } allowed_values { list"
    " { type: DT_COMPLEX64 type: DT_COMPLEX128 } } }",
    "name: 'IRFFT' input_arg { name: 'input' type_attr: 'Tcomplex' } "
    "input_arg { name: 'fft_length' type: DT_INT32 } output_arg { name:"
    " 'output' type_attr: 'Treal' } attr { name: 'Treal' type: 'type' "
    "default_value { type: DT_FLOAT } allowed_values { list { type: "
    "DT_FLOAT type: DT_DOUBLE } } } attr { name: 'Tcomplex' type: "
    "'type' default_value { type: DT_COMPLEX64 } allowed_values { list "
    "{ type: DT_COMPLEX64 type: DT_COMPLEX128 } } }",
    "name: 'FFT2D' input_arg { name: 'input' type_attr: 'Tcomplex' } "
    "output_arg { name: 'output' type_attr: 'Tcomplex' } attr { name: "
    "'Tcomplex' type: 'type' default_value { type: DT_COMPLEX64 } "
    "allowed_values { list { type: DT_COMPLEX64 type: DT_COMPLEX128 } }"
    " }",
    "name: 'IFFT2D' input_arg { name: 'input' type_attr: 'Tcomplex' } "
    "output_arg { name: 'output' type_attr: 'Tcomplex' } attr { name: "
    "'Tcomplex' type: 'type' default_value { type: DT_COMPLEX64 } "
    "allowed_values { list { type: DT_COMPLEX64 type: DT_COMPLEX128 } }"
    " }",
    "name: 'RFFT2D' input_arg { name: 'input' type_attr: 'Treal' } "
    "input_arg { name: 'fft_length' type: DT_INT32 } output_arg { name:"
    " 'output' type_attr: 'Tcomplex' } attr { name: 'Treal' type: "
    "'type' default_value { type: DT_FLOAT } allowed_values { list { "
    "type: DT_FLOAT type: DT_DOUBLE } } } attr { name: 'Tcomplex' type:"
    " 'type' default_value { type: DT_COMPLEX64 } allowed_values { list"
    " { type: DT_COMPLEX64 type: DT_COMPLEX128 } } }",
    "name: 'IRFFT2D' input_arg { name: 'input' type_attr: 'Tcomplex' } "
    "input_arg { name: 'fft_length' type: DT_INT32 } output_arg { name:"
    " 'output' type_attr: 'Treal' } attr { name: 'Treal' type: 'type' "
    "default_value { type: DT_FLOAT } allowed_values { list { type: "
    "DT_FLOAT type: DT_DOUBLE } } } attr { name: 'Tcomplex' type: "
    "'type' default_value { type: DT_COMPLEX64 } allowed_values { list "
    "{ type: DT_COMPLEX64 type: DT_COMPLEX128 } } }",
    "name: 'FFT3D' input_arg { name: 'input' type_attr: 'Tcomplex' } "
    "output_arg { name: 'output' type_attr: 'Tcomplex' } attr { name: "
    "'Tcomplex' type: 'type' default_value { type: DT_COMPLEX64 } "
    "allowed_values { list { type: DT_COMPLEX64 type: DT_COMPLEX128 } }"
    " }",
    "name: 'IFFT3D' input_arg { name: 'input' type_attr: 'Tcomplex' } "
    "output_arg { name: 'output' type_attr: 'Tcomplex' } attr { name: "
    "'Tcomplex' type: 'type' default_value { type: DT_COMPLEX64 } "
    "allowed_values { list { type: DT_COMPLEX64 type: DT_COMPLEX128 } }"
    " }",
    "name: 'RFFT3D' input_arg { name: 'input' type_attr: 'Treal' } "
    "input_arg { name: 'fft_length' type: DT_INT32 } output_arg { name:"
    " 'output' type_attr: 'Tcomplex' } attr { name: 'Treal' type: "
    "'type' default_value { type: DT_FLOAT } allowed_values { list { "
    "type: DT_FLOAT type: DT_DOUBLE } } } attr { name: 'Tcomplex' type:"
    " 'type' default_value { type: DT_COMPLEX64 } allowed_values { list"
    " { type: DT_COMPLEX64 type: DT_COMPLEX128 } } }",
    "name: 'IRFFT3D' input_arg { name: 'input' type_attr: 'Tcomplex' } "
    "input_arg { name: 'fft_length' type: DT_INT32 } output_arg { name:"
    " 'output' type_attr: 'Treal' } attr { name: 'Treal' type: 'type' "
    "default_value { type: DT_FLOAT } allowed_values { list { type: "
    "DT_FLOAT type: DT_DOUBLE } } } attr { name: 'Tcomplex' type: "
    "'type' default_value { type: DT_COMPLEX64 } allowed_values { list "
    "{ type: DT_COMPLEX64 type: DT_COMPLEX128 } } }",
};

TEST_CASE("Complex-number and FFT ops have TensorFlow 2.21's signatures",
          "[fft]") {
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

// Runs `op`'s shape function on an input of shape `in` and, for the real
// transforms, an fft_length of shape [len_size] whose value is `lengths`
// when given (a constant) and unknown otherwise.
absl::Status InferFft(const std::string& op_name, const PartialShape& in,
                      const std::vector<int32_t>* lengths, int len_size,
                      PartialShape* out) {
  const OpRegistrationData* op = OpRegistry::Global()->LookUp(op_name);
  REQUIRE(op != nullptr);
  NodeDef node;
  node.set_name("f");
  node.set_op(op_name);
  AddDefaultAttrs(op->op_def, &node);
  std::vector<PartialShape> shapes = {in};
  std::vector<const TensorProto*> values = {nullptr};
  TensorProto proto;
  if (op->op_def.input_arg_size() == 2) {
    shapes.push_back(PartialShape::Known({len_size}));
    if (lengths != nullptr) {
      Tensor::FromVector<int32_t>(*lengths).AsProtoTensorContent(&proto);
      values.push_back(&proto);
    } else {
      values.push_back(nullptr);
    }
  }
  InferenceContext c(node, op->op_def, shapes, values, 1);
  absl::Status s = op->shape_fn(&c);
  *out = c.output(0);
  return s;
}

TEST_CASE("FFT shape functions: innermost dims from a constant fft_length",
          "[fft]") {
  PartialShape out;
  REQUIRE_OK(InferFft("FFT2D", PartialShape::Known({-1, 3, 4}), nullptr, 0,
                      &out));
  CHECK(out.DebugString() == "[?,3,4]");
  CHECK_THAT(InferFft("FFT3D", PartialShape::Known({3, 4}), nullptr, 0, &out),
             testing::StatusIs(absl::StatusCode::kInvalidArgument,
                               "at least rank 3"));
  const std::vector<int32_t> n7 = {7};
  REQUIRE_OK(InferFft("RFFT", PartialShape::Known({2, 10}), &n7, 1, &out));
  CHECK(out.DebugString() == "[2,4]");
  REQUIRE_OK(InferFft("IRFFT", PartialShape::Known({2, 10}), &n7, 1, &out));
  CHECK(out.DebugString() == "[2,7]");
  const std::vector<int32_t> n45 = {4, 5};
  REQUIRE_OK(InferFft("RFFT2D", PartialShape::Known({-1, 6, 8}), &n45, 2,
                      &out));
  CHECK(out.DebugString() == "[?,4,3]");
  REQUIRE_OK(InferFft("IRFFT2D", PartialShape::Known({1, 6, 8}), nullptr, 2,
                      &out));
  CHECK(out.DebugString() == "[1,?,?]");
  CHECK_THAT(InferFft("RFFT2D", PartialShape::Known({6, 8}), &n7, 1, &out),
             testing::StatusIs(absl::StatusCode::kInvalidArgument));
}

}  // namespace
}  // namespace dfx

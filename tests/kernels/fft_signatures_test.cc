// The OpDefs of the complex-number and FFT ops against TensorFlow 2.21's,
// so that its GraphDefs import.
#include <string>

#include "catch2/catch.hpp"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/message_differencer.h"
#include "graph/op_registry.h"

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

}  // namespace
}  // namespace dfx

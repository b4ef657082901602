// The OpDefs of the matrix family (band/diagonal ops, decompositions and
// solvers) against TensorFlow 2.21's, so that its GraphDefs import.
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
    "name: 'MatrixBandPart' input_arg { name: 'input' type_attr: 'T' } "
    "input_arg { name: 'num_lower' type_attr: 'Tindex' } input_arg { "
    "name: 'num_upper' type_attr: 'Tindex' } output_arg { name: 'band' "
    "type_attr: 'T' } attr { name: 'T' type: 'type' } attr { name: "
    "'Tindex' type: 'type' default_value { type: DT_INT64 } "
    "allowed_values { list { type: DT_INT32 type: DT_INT64 } } }",
    "name: 'MatrixDiag' input_arg { name: 'diagonal' type_attr: 'T' } "
    "output_arg { name: 'output' type_attr: 'T' } attr { name: 'T' "
    "type: 'type' }",
    "name: 'MatrixDiagV2' input_arg { name: 'diagonal' type_attr: 'T' }"
    " input_arg { name: 'k' type: DT_INT32 } input_arg { name: "
    "'num_rows' type: DT_INT32 } input_arg { name: 'num_cols' type: "
    "DT_INT32 } input_arg { name: 'padding_value' type_attr: 'T' } "
    "output_arg { name: 'output' type_attr: 'T' } attr { name: 'T' "
    "type: 'type' }",
    "name: 'MatrixDiagV3' input_arg { name: 'diagonal' type_attr: 'T' }"
    " input_arg { name: 'k' type: DT_INT32 } input_arg { name: "
    "'num_rows' type: DT_INT32 } input_arg { name: 'num_cols' type: "
    "DT_INT32 } input_arg { name: 'padding_value' type_attr: 'T' } "
    "output_arg { name: 'output' type_attr: 'T' } attr { name: 'T' "
    "type: 'type' } attr { name: 'align' type: 'string' default_value {"
    " s: 'RIGHT_LEFT' } allowed_values { list { s: 'LEFT_RIGHT' s: "
    "'RIGHT_LEFT' s: 'LEFT_LEFT' s: 'RIGHT_RIGHT' } } }",
    "name: 'MatrixDiagPart' input_arg { name: 'input' type_attr: 'T' } "
    "output_arg { name: 'diagonal' type_attr: 'T' } attr { name: 'T' "
    "type: 'type' }",
    "name: 'MatrixDiagPartV2' input_arg { name: 'input' type_attr: 'T' "
    "} input_arg { name: 'k' type: DT_INT32 } input_arg { name: "
    "'padding_value' type_attr: 'T' } output_arg { name: 'diagonal' "
    "type_attr: 'T' } attr { name: 'T' type: 'type' }",
    "name: 'MatrixDiagPartV3' input_arg { name: 'input' type_attr: 'T' "
    "} input_arg { name: 'k' type: DT_INT32 } input_arg { name: "
    "'padding_value' type_attr: 'T' } output_arg { name: 'diagonal' "
    "type_attr: 'T' } attr { name: 'T' type: 'type' } attr { name: "
    "'align' type: 'string' default_value { s: 'RIGHT_LEFT' } "
    "allowed_values { list { s: 'LEFT_RIGHT' s: 'RIGHT_LEFT' s: "
    "'LEFT_LEFT' s: 'RIGHT_RIGHT' } } }",
    "name: 'MatrixSetDiag' input_arg { name: 'input' type_attr: 'T' } "
    "input_arg { name: 'diagonal' type_attr: 'T' } output_arg { name: "
    "'output' type_attr: 'T' } attr { name: 'T' type: 'type' }",
    "name: 'MatrixSetDiagV2' input_arg { name: 'input' type_attr: 'T' }"
    " input_arg { name: 'diagonal' type_attr: 'T' } input_arg { name: "
    "'k' type: DT_INT32 } output_arg { name: 'output' type_attr: 'T' } "
    "attr { name: 'T' type: 'type' }",
    "name: 'MatrixSetDiagV3' input_arg { name: 'input' type_attr: 'T' }"
    " input_arg { name: 'diagonal' type_attr: 'T' } input_arg { name: "
    "'k' type: DT_INT32 } output_arg { name: 'output' type_attr: 'T' } "
    "attr { name: 'T' type: 'type' } attr { name: 'align' type: "
    "'string' default_value { s: 'RIGHT_LEFT' } allowed_values { list {"
    " s: 'LEFT_RIGHT' s: 'RIGHT_LEFT' s: 'LEFT_LEFT' s: 'RIGHT_RIGHT' }"
    " } }",
    "name: 'Cholesky' input_arg { name: 'input' type_attr: 'T' } "
    "output_arg { name: 'output' type_attr: 'T' } attr { name: 'T' "
    "type: 'type' allowed_values { list { type: DT_DOUBLE type: "
    "DT_FLOAT type: DT_HALF type: DT_COMPLEX64 type: DT_COMPLEX128 } } "
    "}",
    "name: 'MatrixInverse' input_arg { name: 'input' type_attr: 'T' } "
    "output_arg { name: 'output' type_attr: 'T' } attr { name: "
    "'adjoint' type: 'bool' default_value { b: false } } attr { name: "
    "'T' type: 'type' allowed_values { list { type: DT_DOUBLE type: "
    "DT_FLOAT type: DT_HALF type: DT_COMPLEX64 type: DT_COMPLEX128 } } "
    "}",
    "name: 'MatrixDeterminant' input_arg { name: 'input' type_attr: 'T'"
    " } output_arg { name: 'output' type_attr: 'T' } attr { name: 'T' "
    "type: 'type' allowed_values { list { type: DT_HALF type: DT_FLOAT "
    "type: DT_DOUBLE type: DT_COMPLEX64 type: DT_COMPLEX128 } } }",
    "name: 'LogMatrixDeterminant' input_arg { name: 'input' type_attr: "
    "'T' } output_arg { name: 'sign' type_attr: 'T' } output_arg { "
    "name: 'log_abs_determinant' type_attr: 'T' } attr { name: 'T' "
    "type: 'type' allowed_values { list { type: DT_HALF type: DT_FLOAT "
    "type: DT_DOUBLE type: DT_COMPLEX64 type: DT_COMPLEX128 } } }",
    "name: 'MatrixSolve' input_arg { name: 'matrix' type_attr: 'T' } "
    "input_arg { name: 'rhs' type_attr: 'T' } output_arg { name: "
    "'output' type_attr: 'T' } attr { name: 'adjoint' type: 'bool' "
    "default_value { b: false } } attr { name: 'T' type: 'type' "
    "allowed_values { list { type: DT_DOUBLE type: DT_FLOAT type: "
    "DT_HALF type: DT_COMPLEX64 type: DT_COMPLEX128 } } }",
    "name: 'MatrixTriangularSolve' input_arg { name: 'matrix' "
    "type_attr: 'T' } input_arg { name: 'rhs' type_attr: 'T' } "
    "output_arg { name: 'output' type_attr: 'T' } attr { name: 'lower' "
    "type: 'bool' default_value { b: true } } attr { name: 'adjoint' "
    "type: 'bool' default_value { b: false } } attr { name: 'T' type: "
    "'type' allowed_values { list { type: DT_BFLOAT16 type: DT_DOUBLE "
    "type: DT_FLOAT type: DT_HALF type: DT_COMPLEX64 type: "
    "DT_COMPLEX128 } } }",
    "name: 'Qr' input_arg { name: 'input' type_attr: 'T' } output_arg {"
    " name: 'q' type_attr: 'T' } output_arg { name: 'r' type_attr: 'T' "
    "} attr { name: 'full_matrices' type: 'bool' default_value { b: "
    "false } } attr { name: 'T' type: 'type' allowed_values { list { "
    "type: DT_DOUBLE type: DT_FLOAT type: DT_HALF type: DT_COMPLEX64 "
    "type: DT_COMPLEX128 } } }",
    "name: 'SelfAdjointEigV2' input_arg { name: 'input' type_attr: 'T' "
    "} output_arg { name: 'e' type_attr: 'T' } output_arg { name: 'v' "
    "type_attr: 'T' } attr { name: 'compute_v' type: 'bool' "
    "default_value { b: true } } attr { name: 'T' type: 'type' "
    "allowed_values { list { type: DT_DOUBLE type: DT_FLOAT type: "
    "DT_HALF type: DT_COMPLEX64 type: DT_COMPLEX128 } } }",
    "name: 'Svd' input_arg { name: 'input' type_attr: 'T' } output_arg "
    "{ name: 's' type_attr: 'T' } output_arg { name: 'u' type_attr: 'T'"
    " } output_arg { name: 'v' type_attr: 'T' } attr { name: "
    "'compute_uv' type: 'bool' default_value { b: true } } attr { name:"
    " 'full_matrices' type: 'bool' default_value { b: false } } attr { "
    "name: 'T' type: 'type' allowed_values { list { type: DT_DOUBLE "
    "type: DT_FLOAT type: DT_HALF type: DT_COMPLEX64 type: "
    "DT_COMPLEX128 } } }",
};

TEST_CASE("Matrix ops have TensorFlow 2.21's signatures", "[matrix_diag]") {
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

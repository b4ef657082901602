// Tensors as JSON: parsing a JSON literal into a Tensor of a given dtype, and
// printing a Tensor as {"dtype": ..., "shape": [...], "values": ...}.
#ifndef DFX_TOOLS_CLI_JSON_TENSOR_H_
#define DFX_TOOLS_CLI_JSON_TENSOR_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "runtime/tensor.h"

namespace dfx::cli {

// Parses `json` (a number, true/false, or arrays nested to any depth, e.g.
// "3", "[1, 2]", "[[1, 2], [3, 4]]") into a tensor of `dtype`, the shape
// given by the nesting ("[]" is shape [0]).
// dtype float32/float64: numbers, and the strings "NaN", "Infinity",
// "-Infinity". Integer dtypes (int8..int64, uint8..uint64): integers, or a
// float with no fractional part (2.0); it must fit the dtype. bool: true and
// false only. string: JSON strings, each element the string's UTF-8 bytes.
// InvalidArgument, naming the element's index path ("[1][0]"), for: text that
// is not JSON, ragged arrays, a value of the wrong kind (string, object,
// bool for a number, number for a bool), a fractional value for an integer
// dtype, a value out of the dtype's range, nesting deeper than
// TensorShape::kMaxRank, or a dtype not listed here.
absl::StatusOr<Tensor> ParseJsonTensor(absl::string_view json, DataType dtype);

// {"dtype": "float32", "shape": [2, 2], "values": [[1, 2], [3, 4]]}, values
// nested to the shape (a bare value for a scalar). Floats print in the
// shortest form that reads back to the same value; NaN and the infinities,
// which JSON lacks, print as the strings "NaN", "Infinity" and "-Infinity".
// Strings print as JSON strings (bytes above 0x7f as \u00XX). InvalidArgument
// for a dtype other than float, double, int8..int64, uint8..uint64, bool,
// string, or an uninitialized tensor.
absl::StatusOr<std::string> TensorToJson(const Tensor& tensor);

// NumPy's name of a dtype: "float32", "float64", "int32", "int64", "bool",
// "uint8", ..., "string" for DT_STRING; TensorFlow's name for others.
std::string NumpyDtypeName(DataType dtype);

// `s` as a quoted JSON string: UTF-8 as it is, quotes, backslashes and
// control characters escaped; bytes that are not UTF-8 (a string tensor
// may hold any bytes, which JSON cannot carry) each become U+FFFD, as
// Python's decode(errors="replace") does.
std::string JsonQuote(absl::string_view s);

}  // namespace dfx::cli

#endif  // DFX_TOOLS_CLI_JSON_TENSOR_H_

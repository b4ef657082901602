// Shared by the golden tests: where the golden data lives, reading a case's
// JSON, and comparing dfx's tensors with TensorFlow's.
#ifndef DFX_TESTS_GOLDEN_GOLDEN_UTIL_H_
#define DFX_TESTS_GOLDEN_GOLDEN_UTIL_H_

#include <cstdint>
#include <filesystem>
#include <string>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "runtime/tensor.h"

namespace dfx::golden {

inline constexpr const char* kGoldenDir = DFX_TEST_DATA_DIR "/../golden/data";

absl::StatusOr<nlohmann::json> ReadJson(const std::filesystem::path& path);

// A tensor golden_lib.py wrote: a .npy file, or a string tensor's .json
// ({"shape": [...], "base64": [...]}).
absl::StatusOr<Tensor> ReadTensorFile(const std::filesystem::path& path);

// Element i of a numeric tensor as a double (bool as 0/1).
double ElementAsDouble(const Tensor& t, int64_t i);

// The name of a dtype as NumPy spells it (what case.json records).
std::string NumpyName(DataType dtype);

// A complex64 or complex128 tensor from the float (real, imaginary) pairs
// golden_lib.py stores complex values as (NumPy's complex .npy is not read
// by dfx's npy reader): shape [..., 2] becomes [...].
absl::StatusOr<Tensor> ComplexFromPairs(const Tensor& pairs, DataType dtype);

// A quantized tensor (qint8, quint8, qint16, quint16, qint32) from the
// integers golden_lib.py stores it as (int8, uint8, int16, uint16, int32 of
// the same width): the same bytes under the quantized dtype.
absl::StatusOr<Tensor> QuantizedFromStorage(const Tensor& storage,
                                            DataType dtype);

// Compares dfx's output with TensorFlow's; empty when equal within
// tolerance (|got - want| <= atol + rtol * |want|, NaN matches NaN), else
// what differs. String tensors ("string") must be equal byte for byte.
// A complex output is compared with its stored pairs, each part within
// atol + rtol * |want| (the complex modulus).
std::string Compare(const Tensor& got, const Tensor& want,
                    const std::string& want_dtype, double rtol, double atol);

}  // namespace dfx::golden

#endif  // DFX_TESTS_GOLDEN_GOLDEN_UTIL_H_

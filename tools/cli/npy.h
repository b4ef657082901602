// Reading and writing NumPy .npy files (format 1.0, 2.0 and 3.0) as Tensors.
#ifndef DFX_TOOLS_CLI_NPY_H_
#define DFX_TOOLS_CLI_NPY_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "runtime/tensor.h"

namespace dfx::cli {

// Supported element types and their NumPy descr: float16 '<f2', float32 '<f4',
// float64 '<f8', int8 '|i1', int16 '<i2', int32 '<i4', int64 '<i8',
// uint8 '|u1', uint16 '<u2', uint32 '<u4', uint64 '<u8', bool '|b1', and
// string as NumPy's fixed-width bytes '|S<width>' (written as wide as the
// longest element, at least 1; trailing NUL bytes are padding, so a string
// that ends in NULs reads back without them, as in NumPy).
// Only little-endian, C-order arrays are read; any rank, 0-d included.

// Decodes the bytes of a .npy file. `source` names the file in errors.
// InvalidArgument naming `source` for: a bad magic string or version,
// truncated header or data, a header that is not the dict NumPy writes,
// fortran_order True, a big-endian or unsupported dtype, a shape that is
// negative or too large, trailing bytes after the data, or a bool byte other
// than 0 or 1.
absl::StatusOr<Tensor> ParseNpy(absl::string_view bytes,
                                absl::string_view source);

// Reads and decodes a .npy file. NotFound when the file does not exist,
// otherwise as ParseNpy.
absl::StatusOr<Tensor> ReadNpyFile(const std::string& path);

// Encodes `tensor` as format 1.0 (2.0 if the header would not fit in 1.0),
// the header padded with spaces to a multiple of 64 bytes and ended by '\n',
// as NumPy writes it. InvalidArgument for a dtype without an npy descr or an
// uninitialized tensor.
absl::StatusOr<std::string> EncodeNpy(const Tensor& tensor);

// Encodes `tensor` and writes it to `path` (replacing any file there). Errors
// of EncodeNpy, or the errno-derived status of a failed write naming `path`.
absl::Status WriteNpyFile(const std::string& path, const Tensor& tensor);

// The NumPy descr of `dtype` ('<f4'), or empty when none.
std::string NpyDescr(DataType dtype);

}  // namespace dfx::cli

#endif  // DFX_TOOLS_CLI_NPY_H_

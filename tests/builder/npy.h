// Reading the .npy files tests/golden/gen_builder_grads.py writes for the
// golden tests of tests/builder/.
#ifndef DFX_TESTS_BUILDER_NPY_H_
#define DFX_TESTS_BUILDER_NPY_H_

#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "runtime/tensor.h"

namespace dfx::testing {

// Reads what numpy.save writes for a little-endian float32 or int32 array in
// C order (format 1.0). InvalidArgument for anything else.
inline absl::StatusOr<Tensor> ReadNpy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot open ", path));
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string bytes = buffer.str();
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0 ||
      bytes[6] != 1) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": not .npy 1.0"));
  }
  const size_t header_len =
      static_cast<uint8_t>(bytes[8]) | (static_cast<uint8_t>(bytes[9]) << 8);
  if (bytes.size() < 10 + header_len) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": short header"));
  }
  const std::string header = bytes.substr(10, header_len);
  DataType dtype;
  if (header.find("'descr': '<f4'") != std::string::npos) {
    dtype = DT_FLOAT;
  } else if (header.find("'descr': '<i4'") != std::string::npos) {
    dtype = DT_INT32;
  } else {
    return absl::InvalidArgumentError(absl::StrCat(path, ": dtype ", header));
  }
  if (header.find("'fortran_order': False") == std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": Fortran order"));
  }
  const size_t open = header.find("'shape': (");
  const size_t close = header.find(')', open);
  if (open == std::string::npos || close == std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": no shape"));
  }
  std::vector<int64_t> dims;
  const std::string shape = header.substr(open + 10, close - open - 10);
  for (absl::string_view part : absl::StrSplit(shape, ',')) {
    part = absl::StripAsciiWhitespace(part);
    if (part.empty()) continue;
    int64_t d;
    if (!absl::SimpleAtoi(part, &d)) {
      return absl::InvalidArgumentError(absl::StrCat(path, ": shape ", shape));
    }
    dims.push_back(d);
  }
  TensorShape tensor_shape;
  for (int64_t d : dims) {
    if (absl::Status s = tensor_shape.AddDim(d); !s.ok()) return s;
  }
  Tensor t(dtype, tensor_shape);
  const size_t data = 10 + header_len;
  if (bytes.size() - data != t.TotalBytes()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": data size"));
  }
  std::memcpy(t.raw_data(), bytes.data() + data, t.TotalBytes());
  return t;
}

}  // namespace dfx::testing

#endif  // DFX_TESTS_BUILDER_NPY_H_

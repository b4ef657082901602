// Fuzzes the feed parsers of the dfx command (tools/cli): .npy bytes
// (ParseNpy) and JSON literals (ParseJsonTensor) as `dfx run --feed` reads
// them from a user.
//
// Input: one mode byte, then the file or literal.
//   mode < 128: .npy; a tensor that parses must survive EncodeNpy ->
//               ParseNpy unchanged.
//   mode >= 128: JSON for the dtype kDtypes[mode % size]; a tensor that
//               parses must print (TensorToJson) and read back unchanged.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "absl/strings/string_view.h"
#include "base/logging.h"
#include "runtime/tensor.h"
#include "tools/cli/json_tensor.h"
#include "tools/cli/npy.h"

namespace dfx {
namespace {

constexpr DataType kDtypes[] = {DT_FLOAT, DT_DOUBLE, DT_INT8,   DT_INT16,
                                DT_INT32, DT_INT64,  DT_UINT8,  DT_UINT16,
                                DT_UINT32, DT_UINT64, DT_BOOL,  DT_STRING,
                                DT_HALF};

bool SameBytes(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || !(a.shape() == b.shape())) return false;
  if (a.dtype() == DT_STRING) {
    return std::equal(a.data<std::string>(),
                      a.data<std::string>() + a.NumElements(),
                      b.data<std::string>());
  }
  if (a.TotalBytes() != b.TotalBytes()) return false;
  return a.TotalBytes() == 0 ||
         std::memcmp(a.raw_data(), b.raw_data(), a.TotalBytes()) == 0;
}

void FuzzNpy(absl::string_view bytes) {
  absl::StatusOr<Tensor> tensor = cli::ParseNpy(bytes, "fuzz.npy");
  if (!tensor.ok()) return;
  absl::StatusOr<std::string> encoded = cli::EncodeNpy(*tensor);
  DFX_CHECK(encoded.ok());
  absl::StatusOr<Tensor> back = cli::ParseNpy(*encoded, "again.npy");
  DFX_CHECK(back.ok());
  DFX_CHECK(SameBytes(*tensor, *back));
}

void FuzzJson(absl::string_view text, DataType dtype) {
  absl::StatusOr<Tensor> tensor = cli::ParseJsonTensor(text, dtype);
  if (!tensor.ok()) return;
  absl::StatusOr<std::string> printed = cli::TensorToJson(*tensor);
  DFX_CHECK(printed.ok());
  // The printed form is {"dtype", "shape", "values"}; its values read back.
  const size_t values = printed->find("\"values\": ");
  DFX_CHECK(values != std::string::npos);
  std::string literal = printed->substr(values + 10);
  literal.pop_back();  // the closing '}'
  absl::StatusOr<Tensor> back = cli::ParseJsonTensor(literal, dtype);
  DFX_CHECK_MSG(back.ok(), back.status().ToString());
  DFX_CHECK(back->shape() == tensor->shape());
}

}  // namespace
}  // namespace dfx

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const uint8_t mode = data[0];
  const absl::string_view bytes(reinterpret_cast<const char*>(data + 1),
                                size - 1);
  if (mode < 128) {
    dfx::FuzzNpy(bytes);
  } else {
    constexpr size_t n = sizeof(dfx::kDtypes) / sizeof(dfx::kDtypes[0]);
    dfx::FuzzJson(bytes, dfx::kDtypes[mode % n]);
  }
  return 0;
}

// Fuzzes the bulk plane's framing (rpc/bulk_transport.h): a request frame
// as a BulkServer reads it from any TCP client, and a response header as a
// BulkClient reads it from a server.
//
// Input: one mode byte, then the frame. Even mode: a request; odd: a
// response header. A frame that parses must keep its fields exactly as
// the bytes give them (little-endian), and a rejected frame must be of
// the documented kind.
#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "base/logging.h"
#include "rpc/bulk_transport.h"

namespace dfx {
namespace {

uint64_t Le(absl::string_view bytes, size_t at, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) {
    v |= static_cast<uint64_t>(static_cast<uint8_t>(bytes[at + i])) << (8 * i);
  }
  return v;
}

void FuzzRequest(absl::string_view frame) {
  absl::StatusOr<BulkRequest> request = ParseBulkRequest(frame);
  if (!request.ok()) {
    DFX_CHECK(absl::IsInvalidArgument(request.status()) ||
              absl::IsUnimplemented(request.status()));
    return;
  }
  DFX_CHECK(frame.size() == kBulkRequestBytes);
  DFX_CHECK(frame.substr(0, 4) == "DFXB");
  DFX_CHECK(request->version == kBulkProtocolVersion);
  DFX_CHECK(request->ticket == Le(frame, 8, 8));
  DFX_CHECK(request->offset == Le(frame, 16, 8));
  DFX_CHECK(request->length == Le(frame, 24, 8));
  DFX_CHECK(request->token_length == Le(frame, 32, 4));
  DFX_CHECK(request->token_length <= kMaxBulkTokenBytes);
}

void FuzzResponse(absl::string_view frame) {
  absl::StatusOr<BulkResponseHeader> header = ParseBulkResponseHeader(frame);
  if (!header.ok()) {
    DFX_CHECK(absl::IsInternal(header.status()));
    return;
  }
  DFX_CHECK(frame.size() == kBulkResponseHeaderBytes);
  DFX_CHECK(static_cast<uint64_t>(header->code) == Le(frame, 0, 4));
  DFX_CHECK(header->length == Le(frame, 8, 8));
  DFX_CHECK(header->code == absl::StatusCode::kOk ||
            header->length <= kMaxBulkErrorBytes);
}

}  // namespace
}  // namespace dfx

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const absl::string_view frame(reinterpret_cast<const char*>(data + 1),
                                size - 1);
  if (data[0] % 2 == 0) {
    dfx::FuzzRequest(frame);
  } else {
    dfx::FuzzResponse(frame);
  }
  return 0;
}

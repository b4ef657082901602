#include "base/grpc_status.h"

#include <string>
#include <utility>

#include "absl/strings/cord.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace dfx {
namespace {

// Payloads in the status details: "dfxp1", then for each payload its type
// URL and its value, each as a 4-byte big-endian length and the bytes.
constexpr absl::string_view kPayloadMagic = "dfxp1";
constexpr size_t kMaxPayloadBytes = 16 << 10;

void AppendLength(std::string* out, size_t n) {
  for (int shift = 24; shift >= 0; shift -= 8) {
    out->push_back(static_cast<char>((n >> shift) & 0xff));
  }
}

std::string EncodePayloads(const absl::Status& status) {
  std::string out;
  status.ForEachPayload([&out](absl::string_view url, const absl::Cord& value) {
    const std::string bytes(value);
    if (out.size() + url.size() + bytes.size() + 8 > kMaxPayloadBytes) {
      return;  // details travel in a header: keep them small
    }
    if (out.empty()) out = std::string(kPayloadMagic);
    AppendLength(&out, url.size());
    out.append(url.data(), url.size());
    AppendLength(&out, bytes.size());
    out.append(bytes);
  });
  return out;
}

// Details that are not dfx's (another server's google.rpc.Status) or are
// malformed are ignored.
void DecodePayloads(absl::string_view details, absl::Status* status) {
  if (!absl::StartsWith(details, kPayloadMagic)) return;
  details.remove_prefix(kPayloadMagic.size());
  auto read = [&details](absl::string_view* field) {
    if (details.size() < 4) return false;
    size_t n = 0;
    for (int i = 0; i < 4; ++i) {
      n = (n << 8) | static_cast<unsigned char>(details[i]);
    }
    details.remove_prefix(4);
    if (n > details.size()) return false;
    *field = details.substr(0, n);
    details.remove_prefix(n);
    return true;
  };
  while (!details.empty()) {
    absl::string_view url, value;
    if (!read(&url) || !read(&value)) return;
    status->SetPayload(url, absl::Cord(value));
  }
}

}  // namespace

grpc::Status StatusToGrpc(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  // The message travels percent-encoded in the grpc-message header, and a
  // client refuses a response whose headers pass 8 KiB (it would report
  // ResourceExhausted, not the error): a message echoing a huge name is
  // cut to about kMaxGrpcErrorBytes on the wire.
  absl::string_view message = status.message();
  size_t cost = 0;
  size_t keep = 0;
  for (; keep < message.size(); ++keep) {
    const unsigned char c = static_cast<unsigned char>(message[keep]);
    cost += (c < 0x20 || c > 0x7e || c == '%') ? 3 : 1;
    if (cost > kMaxGrpcErrorBytes) break;
  }
  std::string text(message.substr(0, keep));
  if (keep < message.size()) {
    absl::StrAppend(&text, "... (", message.size() - keep, " more bytes)");
  }
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()),
                      std::move(text), EncodePayloads(status));
}

absl::Status StatusFromGrpc(const grpc::Status& status) {
  if (status.ok()) return absl::OkStatus();
  absl::Status result(static_cast<absl::StatusCode>(status.error_code()),
                      status.error_message());
  DecodePayloads(status.error_details(), &result);
  return result;
}

}  // namespace dfx

#include "runtime/rendezvous.h"

#include <memory>
#include <vector>

#include "absl/hash/hash.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "base/status_macros.h"

namespace dfx {
namespace {

bool ParseHex64(absl::string_view s, uint64_t* v) {
  if (s.empty() || s.size() > 16) return false;
  uint64_t out = 0;
  for (char c : s) {
    int d;
    if (c >= '0' && c <= '9') {
      d = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      d = c - 'a' + 10;
    } else if (c >= 'A' && c <= 'F') {
      d = c - 'A' + 10;
    } else {
      return false;
    }
    out = out << 4 | static_cast<uint64_t>(d);
  }
  *v = out;
  return true;
}

}  // namespace

Rendezvous::ParsedKey& Rendezvous::ParsedKey::operator=(
    const ParsedKey& other) {
  if (this == &other) return *this;
  key_ = other.key_;
  // Re-point the views into our own copy of the string.
  auto rebase = [&](absl::string_view v) {
    return absl::string_view(key_.data() + (v.data() - other.key_.data()),
                             v.size());
  };
  src_device_ = rebase(other.src_device_);
  dst_device_ = rebase(other.dst_device_);
  edge_name_ = rebase(other.edge_name_);
  src_incarnation_ = other.src_incarnation_;
  src_ = other.src_;
  dst_ = other.dst_;
  frame_iter_ = other.frame_iter_;
  hash_ = other.hash_;
  return *this;
}

Rendezvous::ParsedKey Rendezvous::ParsedKey::WithFrameIter(
    FrameAndIter frame_iter) const {
  ParsedKey out = *this;
  // The frame is the last part: everything up to the last ';' stays, so
  // the views into the string keep their offsets.
  out.key_.resize(key_.rfind(';') + 1);
  absl::StrAppend(&out.key_, frame_iter.frame_id, ":", frame_iter.iter_id);
  auto rebase = [&](absl::string_view v) {
    return absl::string_view(out.key_.data() + (v.data() - key_.data()),
                             v.size());
  };
  out.src_device_ = rebase(src_device_);
  out.dst_device_ = rebase(dst_device_);
  out.edge_name_ = rebase(edge_name_);
  out.frame_iter_ = frame_iter;
  out.hash_ = absl::HashOf(out.key_);
  return out;
}

absl::StatusOr<Rendezvous::ParsedKey> Rendezvous::ParsedKey::Parse(
    absl::string_view key) {
  ParsedKey parsed;
  parsed.key_ = std::string(key);
  auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat("malformed rendezvous key '", key, "': ", why));
  };
  std::vector<absl::string_view> parts =
      absl::StrSplit(absl::string_view(parsed.key_), ';');
  if (parts.size() != 5) {
    return bad(absl::StrCat("expected 5 parts separated by ';', got ",
                            parts.size()));
  }
  auto src = DeviceName::Parse(parts[0]);
  if (!src.ok() || !src->IsFullySpecified()) {
    return bad("source device is not a full device name");
  }
  auto dst = DeviceName::Parse(parts[2]);
  if (!dst.ok() || !dst->IsFullySpecified()) {
    return bad("destination device is not a full device name");
  }
  if (!ParseHex64(parts[1], &parsed.src_incarnation_)) {
    return bad("source incarnation is not a hexadecimal number");
  }
  if (parts[3].empty()) return bad("empty tensor name");
  std::pair<absl::string_view, absl::string_view> frame =
      absl::StrSplit(parts[4], absl::MaxSplits(':', 1));
  if (!absl::SimpleAtoi(frame.first, &parsed.frame_iter_.frame_id) ||
      !absl::SimpleAtoi(frame.second, &parsed.frame_iter_.iter_id)) {
    return bad("frame and iteration are not 'frame_id:iter_id'");
  }
  parsed.src_device_ = parts[0];
  parsed.dst_device_ = parts[2];
  parsed.edge_name_ = parts[3];
  parsed.src_ = *std::move(src);
  parsed.dst_ = *std::move(dst);
  parsed.hash_ = absl::HashOf(parsed.key_);
  return parsed;
}

std::string Rendezvous::CreateKey(absl::string_view src_device,
                                  uint64_t src_incarnation,
                                  absl::string_view dst_device,
                                  absl::string_view name,
                                  FrameAndIter frame_iter) {
  return absl::StrCat(src_device, ";", absl::StrFormat("%016x", src_incarnation),
                      ";", dst_device, ";", name, ";", frame_iter.frame_id,
                      ":", frame_iter.iter_id);
}

absl::Status Rendezvous::Recv(const ParsedKey& key, const Args& args,
                              Tensor* value, bool* is_dead,
                              absl::Duration timeout) {
  struct State {
    absl::Notification done;
    absl::Status status;
    Tensor value;
    bool is_dead = false;
  };
  // Shared: the callback may run after this call has timed out.
  auto state = std::make_shared<State>();
  RecvAsync(key, args,
            [state](const absl::Status& s, const Tensor& v, bool dead) {
              state->status = s;
              state->value = v;
              state->is_dead = dead;
              state->done.Notify();
            });
  if (!state->done.WaitForNotificationWithTimeout(timeout)) {
    return absl::DeadlineExceededError(absl::StrCat(
        "timed out after ", absl::FormatDuration(timeout),
        " waiting for tensor '", key.FullKey(), "'"));
  }
  DFX_RETURN_IF_ERROR(state->status);
  *value = state->value;
  *is_dead = state->is_dead;
  return absl::OkStatus();
}

}  // namespace dfx

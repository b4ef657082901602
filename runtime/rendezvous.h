// Rendezvous: where a _Send leaves a tensor and its _Recv picks it up, keyed
// by "src_device;src_incarnation;dst_device;tensor_name;frame_id:iter_id".
#ifndef DFX_RUNTIME_RENDEZVOUS_H_
#define DFX_RUNTIME_RENDEZVOUS_H_

#include <cstdint>
#include <functional>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "graph/device_name.h"
#include "runtime/frame_and_iter.h"
#include "runtime/tensor.h"

namespace dfx {

class CancellationManager;


class Rendezvous {
 public:
  // A key parsed once and kept (kernels parse theirs at construction).
  class ParsedKey {
   public:
    // Parses the five ';'-separated parts: two full device names, the
    // incarnation in hex (up to 16 digits), a non-empty tensor name and
    // "frame:iter". InvalidArgument naming the key and the bad part.
    static absl::StatusOr<ParsedKey> Parse(absl::string_view key);

    const std::string& FullKey() const { return key_; }
    absl::string_view src_device() const { return src_device_; }
    uint64_t src_incarnation() const { return src_incarnation_; }
    absl::string_view dst_device() const { return dst_device_; }
    absl::string_view edge_name() const { return edge_name_; }
    const DeviceName& src() const { return src_; }
    const DeviceName& dst() const { return dst_; }
    FrameAndIter frame_iter() const { return frame_iter_; }
    // A hash of the full key, computed once at Parse.
    uint64_t hash() const { return hash_; }

    // The same key in another frame and iteration (a _Send or _Recv inside
    // a loop), without parsing the devices again.
    ParsedKey WithFrameIter(FrameAndIter frame_iter) const;

    ParsedKey(const ParsedKey& other) { *this = other; }
    ParsedKey& operator=(const ParsedKey& other);

   private:
    ParsedKey() = default;
    std::string key_;
    // Views into key_.
    absl::string_view src_device_;
    absl::string_view dst_device_;
    absl::string_view edge_name_;
    uint64_t src_incarnation_ = 0;
    DeviceName src_;
    DeviceName dst_;
    FrameAndIter frame_iter_;
    uint64_t hash_ = 0;
  };

  // The key string; the incarnation as 16 lower-case hex digits.
  static std::string CreateKey(absl::string_view src_device,
                               uint64_t src_incarnation,
                               absl::string_view dst_device,
                               absl::string_view name,
                               FrameAndIter frame_iter = {});

  struct Args {
    // When set, a pending receive ends with Cancelled once it is cancelled.
    CancellationManager* cancellation_manager = nullptr;
    // False only for the _Send and _Recv of a graph edge between two tasks
    // (their client_terminated attr): only those take the push path
    // (rendezvous/remote_rendezvous.h). True for everything else that
    // sends or receives (a fetch the worker hands its client, feeds,
    // collectives, eager sends, tests), which keeps RecvTensor.
    bool client_terminated = true;
    // Receives only, optional, borrowed for the call (the rendezvous keeps
    // its own reference until `done`): a buffer for the tensor. A receive
    // that copies the bytes anyway (from another task) may write them into
    // it when the tensor has its dtype and element count, and hands back a
    // tensor sharing it; otherwise (inside a process, where the sender's
    // tensor is handed over by reference) it is left alone. Callers tell
    // the two apart by the returned tensor's data pointer.
    const Tensor* destination = nullptr;
  };

  // Called exactly once with the tensor (sharing the sender's buffer) or the
  // error, on the thread that completed the match (the sender's, the
  // receiver's, or the aborting one).
  using DoneCallback = std::function<void(const absl::Status& status,
                                          const Tensor& value, bool is_dead)>;

  virtual ~Rendezvous() = default;

  // Never blocks. Each key may be sent once per rendezvous; a second Send of
  // the same key before it is received is InvalidArgument (naming the key).
  // After StartAbort, returns the abort status.
  virtual absl::Status Send(const ParsedKey& key, const Args& args,
                            const Tensor& value, bool is_dead) = 0;

  // Calls `done` when the matching Send happens (at once if it already
  // has), or with the abort status / Cancelled.
  virtual void RecvAsync(const ParsedKey& key, const Args& args,
                         DoneCallback done) = 0;

  // RecvAsync for a tensor the caller has checked was sent in this process
  // (a worker serving RecvTensor for one of its devices): never forwarded
  // to another task, whatever task name the key spells. The default is
  // RecvAsync.
  virtual void RecvLocalAsync(const ParsedKey& key, const Args& args,
                              DoneCallback done) {
    RecvAsync(key, args, std::move(done));
  }

  // Fails every pending RecvAsync with `status` (which must not be OK), and
  // every later Send and RecvAsync too. The first abort status sticks.
  virtual void StartAbort(const absl::Status& status) = 0;

  // Blocking receive for tests and tools (never on a pool thread):
  // DeadlineExceeded after `timeout`.
  absl::Status Recv(const ParsedKey& key, const Args& args, Tensor* value,
                    bool* is_dead, absl::Duration timeout);
};

}  // namespace dfx

#endif  // DFX_RUNTIME_RENDEZVOUS_H_

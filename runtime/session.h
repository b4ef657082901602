// Session: what a client opens to run steps of a graph, and the factories
// that make one for a target ("local", later "grpc://host:port").
#ifndef DFX_RUNTIME_SESSION_H_
#define DFX_RUNTIME_SESSION_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "proto/config.pb.h"
#include "proto/device_attributes.pb.h"
#include "proto/graph.pb.h"
#include "runtime/tensor.h"

namespace dfx {

struct SessionOptions {
  // device_count {"CPU": N}, thread counts, operation_timeout_in_ms,
  // allow_soft_placement, graph_options ...
  ConfigProto config;
};

// Thread-safe: Run may be called from many threads at once.
class Session {
 public:
  // Opens a session on `target`: "local" (or "") runs in this process.
  // InvalidArgument for a target no factory accepts.
  static absl::StatusOr<std::unique_ptr<Session>> Create(
      absl::string_view target, const SessionOptions& options = {});

  virtual ~Session() = default;

  // Adds nodes to the session's graph (the first call may bring the whole
  // graph). The graph is validated: InvalidArgument naming the node for an
  // unknown op, a duplicate name, a bad input, attr or type, or a cycle. On
  // error the session's graph is unchanged.
  virtual absl::Status Extend(const GraphDef& graph) = 0;

  // Runs one step: feeds replace the named tensors ("node:i" or "node"),
  // fetches are tensor names, targets are node names that must run but
  // return nothing. `outputs` gets one tensor per fetch, in order.
  // `run_metadata` (may be null) receives step stats when
  // run_options.trace_level != NO_TRACE. Errors: InvalidArgument for an
  // unknown fetch, feed or target, or a feed of the wrong dtype or shape; a
  // kernel's error naming its node; DeadlineExceeded past
  // run_options.timeout_in_ms (or the session's operation_timeout_in_ms);
  // Cancelled after Close.
  virtual absl::Status Run(
      const RunOptions& run_options,
      const std::vector<std::pair<std::string, Tensor>>& feeds,
      const std::vector<std::string>& fetches,
      const std::vector<std::string>& targets, std::vector<Tensor>* outputs,
      RunMetadata* run_metadata) = 0;

  absl::Status Run(const std::vector<std::pair<std::string, Tensor>>& feeds,
                   const std::vector<std::string>& fetches,
                   const std::vector<std::string>& targets,
                   std::vector<Tensor>* outputs) {
    return Run(RunOptions(), feeds, fetches, targets, outputs, nullptr);
  }

  // The devices steps may run on.
  virtual absl::StatusOr<std::vector<DeviceAttributes>> ListDevices() = 0;

  // Cancels running steps and frees the session's resources; later calls
  // fail with Cancelled. Idempotent.
  virtual absl::Status Close() = 0;
};

// Makes sessions for the targets it accepts.
class SessionFactory {
 public:
  virtual ~SessionFactory() = default;
  virtual bool AcceptsTarget(absl::string_view target) const = 0;
  virtual absl::StatusOr<std::unique_ptr<Session>> NewSession(
      absl::string_view target, const SessionOptions& options) = 0;
};

// Registers a factory under `name` (e.g. "local"). Thread-safe.
void RegisterSessionFactory(std::string name,
                            std::unique_ptr<SessionFactory> factory);

}  // namespace dfx

#endif  // DFX_RUNTIME_SESSION_H_

// GrpcSession: the client's session on a remote master,
// Session::Create("grpc://host:port").
#ifndef DFX_RPC_GRPC_SESSION_H_
#define DFX_RPC_GRPC_SESSION_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "rpc/security.h"
#include "runtime/session.h"

namespace dfx {

// What a GrpcSession needs beyond TensorFlow's SessionOptions.
struct GrpcSessionOptions {
  // TLS (verifying the master's certificate against the CA, with a client
  // certificate for mutual TLS) and the auth token sent with every call.
  // Default: plaintext, no token.
  ChannelSecurity security;
};

// The options of sessions made by Session::Create("grpc://..."), which has
// no place for them: plaintext without a token unless set here (e.g. by
// `dfx run --auth-token-file ...`). Thread-safe; affects sessions created
// afterwards.
void SetDefaultGrpcSessionOptions(GrpcSessionOptions options);
GrpcSessionOptions DefaultGrpcSessionOptions();

// Thread-safe. The first Extend sends CreateSession with the graph, later
// ones ExtendSession; Run and ListDevices before any Extend first create the
// session with an empty graph (as TensorFlow's client does for
// ListDevices). Run sends RunStep with the fetches made unique (errors come
// back in the response body, as TensorFlow's client asks).
//
// Deadlines: before its first RPC the session waits for the channel to
// connect, at most 30 s (or operation_timeout_in_ms when that is shorter):
// Unavailable "no master at <target>" otherwise (also when the TLS
// handshake fails: a plaintext session to a TLS master, a certificate not
// signed by the CA, mutual TLS without a client certificate); after that calls fail fast
// (Unavailable) when the master is unreachable. RunStep's deadline is the
// run's timeout_in_ms, else the session's operation_timeout_in_ms, plus a
// little slack so that the master's own DeadlineExceeded arrives first;
// with neither there is none (a master that dies still ends the call:
// Unavailable). The other RPCs wait for operation_timeout_in_ms (plus the
// slack), else 2 minutes; CloseSession at most 10 s.
//
// Close sends CloseSession (which ends the running steps with Cancelled on
// the master), then cancels whatever RPC is still in flight; later calls
// fail with Cancelled.
class GrpcSession : public Session {
 public:
  // InvalidArgument for a target that is not grpc://HOST:PORT (or
  // HOST:PORT) or a negative operation_timeout_in_ms. Opens the channel
  // only; no RPC is sent yet.
  // The first form uses DefaultGrpcSessionOptions().
  static absl::StatusOr<std::unique_ptr<GrpcSession>> Create(
      absl::string_view target, const SessionOptions& options);
  static absl::StatusOr<std::unique_ptr<GrpcSession>> Create(
      absl::string_view target, const SessionOptions& options,
      const GrpcSessionOptions& grpc_options);
  ~GrpcSession() override;  // Close()

  absl::Status Extend(const GraphDef& graph) override;
  absl::Status Run(const RunOptions& run_options,
                   const std::vector<std::pair<std::string, Tensor>>& feeds,
                   const std::vector<std::string>& fetches,
                   const std::vector<std::string>& targets,
                   std::vector<Tensor>* outputs,
                   RunMetadata* run_metadata) override;
  using Session::Run;
  absl::StatusOr<std::vector<DeviceAttributes>> ListDevices() override;
  absl::Status Close() override;

  // The master's handle of this session ("" before the session exists on
  // the master).
  std::string handle() const;

 private:
  class Impl;
  explicit GrpcSession(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace dfx

#endif  // DFX_RPC_GRPC_SESSION_H_

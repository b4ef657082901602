// What every gRPC piece of dfx shares: status conversion, channel and
// server settings, and protobuf <-> grpc::ByteBuffer.
#ifndef DFX_RPC_GRPC_UTIL_H_
#define DFX_RPC_GRPC_UTIL_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "google/protobuf/message.h"
#include "grpcpp/channel.h"
#include "grpcpp/client_context.h"
#include "grpcpp/server_builder.h"
#include "grpcpp/server_context.h"
#include "grpcpp/support/byte_buffer.h"
#include "grpcpp/support/status.h"
#include "rpc/security.h"

namespace dfx {

// base/grpc_status.h's StatusToGrpc and StatusFromGrpc (codes kept,
// messages cut to 4 KiB on the wire, payloads in the details); ToGrpcStatus
// also counts the error by code at /metrics.
grpc::Status ToGrpcStatus(const absl::Status& status);
absl::Status FromGrpcStatus(const grpc::Status& status);

// "host:port" from "grpc://host:port" (or a bare "host:port").
// InvalidArgument naming the target when there is no port.
absl::StatusOr<std::string> ParseGrpcTarget(absl::string_view target);

// A channel to "host:port" with dfx's settings: no message size limit
// below 2 GiB, keepalive pings every 10 s (a peer host that vanished is
// noticed within about 30 s even mid-call), 10 s for a connection attempt,
// reconnect backoff at most 1 s. `security`: TLS or not, and the auth
// token every call on the channel carries (added by an interceptor).
std::shared_ptr<grpc::Channel> NewChannel(
    const std::string& address, const ChannelSecurity& security = {});

// Server settings matching NewChannel (message limits, and accepting the
// clients' keepalive pings), without SO_REUSEPORT: a second server on a
// port in use fails to listen.
void ConfigureServerBuilder(grpc::ServerBuilder* builder);

// What is left of a served call's deadline, for CallOptions::SetTimeout:
// zero when the client set none; at least 1 ns when it has passed (an
// expired deadline still ends the call).
absl::Duration TimeLeft(const grpc::ServerContextBase* context);

// Sets the context's deadline to now + timeout; nothing for a zero or
// negative timeout.
void SetTimeout(grpc::ClientContext* context, absl::Duration timeout);

// A TCP port of 127.0.0.1 that is free right now (bound, then released):
// another program may take it before the caller binds it. Unavailable when
// none can be had.
absl::StatusOr<int> PickFreeLoopbackPort();

// `n` distinct such ports (all bound at once, then released: ports picked
// one after another may repeat, since a released port is free again).
absl::StatusOr<std::vector<int>> PickFreeLoopbackPorts(int n);

// Calls GetStatus on the worker at `address` ("host:port") until it
// answers OK (each try waits at most 500 ms for the connection), or
// `deadline` passes (DeadlineExceeded carrying the last error), or the
// worker refuses the token (Unauthenticated), or
// `keep_waiting` (may be empty) returns false (Aborted): e.g. the server's
// process has exited. With `expected_task` ("/job:worker/replica:0/task:1")
// a server whose devices name another task of a real job (not
// /job:localhost) is not the one asked for: another process took the
// address, or the cluster spec is wrong. That is FailedPrecondition, naming
// both, at once.
absl::Status WaitForWorkerReady(const std::string& address,
                                absl::Time deadline,
                                const std::function<bool()>& keep_waiting,
                                const ChannelSecurity& security = {},
                                absl::string_view expected_task = {});

// Protobuf <-> ByteBuffer for raw (generic) calls.
grpc::ByteBuffer SerializeToByteBuffer(const google::protobuf::Message& msg);
// InvalidArgument naming `what` when the bytes do not parse.
absl::Status ParseFromByteBuffer(grpc::ByteBuffer* buffer,
                                 google::protobuf::Message* msg,
                                 absl::string_view what);

}  // namespace dfx

#endif  // DFX_RPC_GRPC_UTIL_H_

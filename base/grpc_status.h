// absl::Status <-> grpc::Status, for every gRPC server and client of dfx:
// the task services (rpc/grpc_util.h adds the error counters to these) and
// the RPC ops' servers and clients (kernels/rpc), which sit below rpc/.
// A library of its own (dfx::grpc_status) so that dfx::base does not link
// gRPC.
#ifndef DFX_BASE_GRPC_STATUS_H_
#define DFX_BASE_GRPC_STATUS_H_

#include <cstddef>

#include "absl/status/status.h"
#include "grpcpp/support/status.h"

namespace dfx {

// The most bytes an error message takes on the wire (percent-encoded in the
// grpc-message header; a client refuses headers past 8 KiB).
inline constexpr size_t kMaxGrpcErrorBytes = 4096;

// gRPC and absl share the canonical codes; messages pass through, cut to
// kMaxGrpcErrorBytes as they travel (percent-encoded: a byte outside
// printable ASCII counts 3), then ending "... (N more bytes)". The status's
// payloads (e.g. base/task_status.h's) travel in the status details (up to
// 16 KiB of them) and come back as payloads.
grpc::Status StatusToGrpc(const absl::Status& status);
// Details that are not dfx's payloads (another server's google.rpc.Status)
// or are malformed are ignored.
absl::Status StatusFromGrpc(const grpc::Status& status);

}  // namespace dfx

#endif  // DFX_BASE_GRPC_STATUS_H_

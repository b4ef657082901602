// RequestGate: what every call served by dfx (master and worker services)
// goes through before its handler runs: the auth token check, then the
// parse of the raw request body.
#ifndef DFX_RPC_REQUEST_GATE_H_
#define DFX_RPC_REQUEST_GATE_H_

#include <string>

#include "absl/status/status.h"
#include "google/protobuf/message.h"
#include "grpcpp/server_context.h"
#include "grpcpp/support/byte_buffer.h"

namespace dfx {

// The services take their requests raw (grpc::ByteBuffer) and parse them
// here, so a body that does not parse is InvalidArgument naming the
// request type ("CreateSessionRequest does not parse ..."), not gRPC's
// bare UNIMPLEMENTED. Thread-safe; immutable.
class RequestGate {
 public:
  // `auth_token` empty: calls need no token.
  explicit RequestGate(std::string auth_token = "")
      : auth_token_(std::move(auth_token)) {}

  // Unauthenticated "missing or wrong auth token" unless the call carries
  // "authorization: Bearer <token>" (compared in constant time; the token
  // is never logged nor put in a message). OK without a token.
  absl::Status Admit(const grpc::ServerContextBase& context) const;

  // Admit, then `body` parsed into `request` (an empty body is the empty
  // message). InvalidArgument "<Type> does not parse" otherwise.
  absl::Status Accept(const grpc::ServerContextBase& context,
                      const grpc::ByteBuffer& body,
                      google::protobuf::Message* request) const;

 private:
  const std::string auth_token_;
};

}  // namespace dfx

#endif  // DFX_RPC_REQUEST_GATE_H_

#include "rpc/request_gate.h"

#include "absl/strings/str_cat.h"
#include "grpcpp/impl/codegen/proto_utils.h"
#include "grpcpp/support/proto_buffer_reader.h"
#include "rpc/security.h"

namespace dfx {

absl::Status RequestGate::Admit(const grpc::ServerContextBase& context) const {
  return CheckAuthToken(context, auth_token_);
}

absl::Status RequestGate::Accept(const grpc::ServerContextBase& context,
                                 const grpc::ByteBuffer& body,
                                 google::protobuf::Message* request) const {
  if (absl::Status s = Admit(context); !s.ok()) return s;
  grpc::ByteBuffer copy(body);  // shares the slices
  if (!copy.Valid()) return absl::OkStatus();
  const size_t size = copy.Length();
  grpc::Status s =
      grpc::GenericDeserialize<grpc::ProtoBufferReader,
                               google::protobuf::Message>(&copy, request);
  if (!s.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(request->GetDescriptor()->name(),
                     " does not parse (a request body of ", size,
                     " bytes: not that message, a string field that is not "
                     "UTF-8, or nesting deeper than 100 levels)"));
  }
  return absl::OkStatus();
}

}  // namespace dfx

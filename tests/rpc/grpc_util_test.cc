// Tests of rpc/grpc_util.h's status conversion.
#include "rpc/grpc_util.h"

#include <string>

#include "absl/strings/match.h"
#include "catch2/catch.hpp"

namespace dfx {
namespace {

TEST_CASE("grpc status: codes and short messages pass through") {
  const grpc::Status s =
      ToGrpcStatus(absl::InvalidArgumentError("node 'x': bad"));
  CHECK(s.error_code() == grpc::StatusCode::INVALID_ARGUMENT);
  CHECK(s.error_message() == "node 'x': bad");
  const absl::Status back = FromGrpcStatus(s);
  CHECK(back.code() == absl::StatusCode::kInvalidArgument);
  CHECK(back.message() == "node 'x': bad");
  CHECK(ToGrpcStatus(absl::OkStatus()).ok());
}

TEST_CASE("grpc status: a message past 4 KiB on the wire is cut") {
  // A 10 kB device name echoed in an error once overflowed gRPC's 8 KiB
  // header limit: the client saw ResourceExhausted instead of the error.
  const std::string name(10240, 'x');
  grpc::Status s = ToGrpcStatus(absl::InvalidArgumentError(
      "malformed device name '" + name + "'"));
  CHECK(s.error_code() == grpc::StatusCode::INVALID_ARGUMENT);
  CHECK(s.error_message().size() < 4200);
  CHECK(absl::StartsWith(s.error_message(), "malformed device name 'xxx"));
  CHECK(absl::EndsWith(s.error_message(), "... (6168 more bytes)"));
  // Bytes percent-encoded on the wire count three times.
  const std::string binary(3000, '\xff');
  s = ToGrpcStatus(absl::InternalError(binary));
  CHECK(s.error_message().size() < 1400);
  CHECK(absl::EndsWith(s.error_message(), "... (1635 more bytes)"));
}

}  // namespace
}  // namespace dfx

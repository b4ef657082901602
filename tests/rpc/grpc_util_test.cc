// Tests of rpc/grpc_util.h's status conversion.
#include "rpc/grpc_util.h"

#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "base/task_status.h"
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

TEST_CASE("grpc status: payloads (the unavailable tasks) travel in the "
          "details") {
  absl::Status s = absl::UnavailableError("step failed");
  SetUnavailableTasks(&s, {"/job:worker/replica:0/task:1",
                           "/job:ps/replica:0/task:0"});
  s.SetPayload("type.example/other", absl::Cord(std::string("\0\xff", 2)));
  const grpc::Status wire = ToGrpcStatus(s);
  CHECK(wire.error_code() == grpc::StatusCode::UNAVAILABLE);
  CHECK_FALSE(wire.error_details().empty());
  const absl::Status back = FromGrpcStatus(wire);
  CHECK(back.code() == absl::StatusCode::kUnavailable);
  CHECK(back.message() == "step failed");
  CHECK(UnavailableTasks(back) ==
        std::vector<std::string>{"/job:worker/replica:0/task:1",
                                 "/job:ps/replica:0/task:0"});
  CHECK(back.GetPayload("type.example/other") ==
        absl::Cord(std::string("\0\xff", 2)));

  // No payload: no details, and none named.
  const grpc::Status plain = ToGrpcStatus(absl::UnavailableError("x"));
  CHECK(plain.error_details().empty());
  CHECK(UnavailableTasks(FromGrpcStatus(plain)).empty());
  // Details that are not dfx's, or cut short, are ignored.
  const std::string details = wire.error_details();
  for (const std::string& other :
       {std::string("\x08\x0e\x12\x01x"), details.substr(0, 9),
        details.substr(0, details.size() - 1)}) {
    const absl::Status got = FromGrpcStatus(
        grpc::Status(grpc::StatusCode::UNAVAILABLE, "y", other));
    CHECK(got.code() == absl::StatusCode::kUnavailable);
    CHECK(got.message() == "y");
  }
  CHECK(UnavailableTasks(FromGrpcStatus(grpc::Status(
            grpc::StatusCode::UNAVAILABLE, "y", "\x08\x0e"))).empty());
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

TEST_CASE("free loopback ports: several picked at once are distinct") {
  absl::StatusOr<std::vector<int>> ports = PickFreeLoopbackPorts(32);
  REQUIRE(ports.ok());
  REQUIRE(ports->size() == 32);
  const std::set<int> distinct(ports->begin(), ports->end());
  CHECK(distinct.size() == 32);
  for (int port : *ports) CHECK((port > 0 && port < 65536));
  absl::StatusOr<int> one = PickFreeLoopbackPort();
  REQUIRE(one.ok());
  CHECK(*one > 0);
}

}  // namespace
}  // namespace dfx

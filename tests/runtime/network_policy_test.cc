// Tests of runtime/network_policy.h: which connections each policy allows
// graph ops, and the errors that name the node and the flag.
#include "runtime/network_policy.h"

#include "catch2/catch.hpp"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using ::dfx::testing::IsOk;
using ::dfx::testing::StatusIs;

// Sets the process-wide policy for the object's life.
class PolicyScope {
 public:
  explicit PolicyScope(GraphNetwork policy) { SetGraphNetwork(policy); }
  ~PolicyScope() { SetGraphNetwork(GraphNetwork::kAll); }
};

TEST_CASE("network policy: names parse both ways") {
  for (GraphNetwork p :
       {GraphNetwork::kAll, GraphNetwork::kOutbound, GraphNetwork::kNone}) {
    absl::StatusOr<GraphNetwork> parsed =
        ParseGraphNetwork(GraphNetworkName(p));
    REQUIRE_THAT(parsed.status(), IsOk());
    CHECK(*parsed == p);
  }
  for (const char* bad : {"", "ALL", "inbound", "all "}) {
    CHECK_THAT(ParseGraphNetwork(bad).status(),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "is not one of all, outbound, none"));
  }
}

TEST_CASE(
    "network policy: all (the default) allows listening and "
    "connecting") {
  REQUIRE(GetGraphNetwork() == GraphNetwork::kAll);
  CHECK_THAT(CheckGraphMayListen("server", "0.0.0.0:5000"), IsOk());
  CHECK_THAT(CheckGraphMayConnect("client", "10.0.0.1:5000"), IsOk());
}

TEST_CASE("network policy: outbound refuses listening only") {
  PolicyScope scope(GraphNetwork::kOutbound);
  CHECK_THAT(CheckGraphMayListen("rpc/server", "0.0.0.0:5000"),
             StatusIs(absl::StatusCode::kPermissionDenied,
                      "node 'rpc/server' may not listen on 0.0.0.0:5000: "
                      "this server runs with --graph-network=outbound"));
  CHECK_THAT(CheckGraphMayConnect("client", "10.0.0.1:5000"), IsOk());
}

TEST_CASE("network policy: none refuses both") {
  PolicyScope scope(GraphNetwork::kNone);
  CHECK_THAT(
      CheckGraphMayListen("server", "[::]:5000"),
      StatusIs(absl::StatusCode::kPermissionDenied, "--graph-network=none"));
  CHECK_THAT(CheckGraphMayConnect("data/ds", "dispatcher:5050"),
             StatusIs(absl::StatusCode::kPermissionDenied,
                      "node 'data/ds' may not connect to dispatcher:5050"));
}

}  // namespace
}  // namespace dfx

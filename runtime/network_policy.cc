#include "runtime/network_policy.h"

#include <atomic>

#include "absl/strings/str_cat.h"

namespace dfx {
namespace {

std::atomic<GraphNetwork> graph_network{GraphNetwork::kAll};

absl::Status Refused(absl::string_view node, absl::string_view what,
                     absl::string_view address) {
  return absl::PermissionDeniedError(
      absl::StrCat("node '", node, "' may not ", what, " ", address,
                   ": this server runs with --graph-network=",
                   GraphNetworkName(GetGraphNetwork())));
}

}  // namespace

absl::StatusOr<GraphNetwork> ParseGraphNetwork(absl::string_view value) {
  if (value == "all") return GraphNetwork::kAll;
  if (value == "outbound") return GraphNetwork::kOutbound;
  if (value == "none") return GraphNetwork::kNone;
  return absl::InvalidArgumentError(absl::StrCat(
      "graph network policy '", value, "' is not one of all, outbound, none"));
}

absl::string_view GraphNetworkName(GraphNetwork policy) {
  switch (policy) {
    case GraphNetwork::kAll:
      return "all";
    case GraphNetwork::kOutbound:
      return "outbound";
    case GraphNetwork::kNone:
      return "none";
  }
  return "unknown";
}

void SetGraphNetwork(GraphNetwork policy) {
  graph_network.store(policy, std::memory_order_relaxed);
}

GraphNetwork GetGraphNetwork() {
  return graph_network.load(std::memory_order_relaxed);
}

absl::Status CheckGraphMayListen(absl::string_view node,
                                 absl::string_view address) {
  if (GetGraphNetwork() == GraphNetwork::kAll) return absl::OkStatus();
  return Refused(node, "listen on", address);
}

absl::Status CheckGraphMayConnect(absl::string_view node,
                                  absl::string_view address) {
  if (GetGraphNetwork() != GraphNetwork::kNone) return absl::OkStatus();
  return Refused(node, "connect to", address);
}

}  // namespace dfx

// The network policy: which network connections the ops of a graph may make
// on a server's behalf, set once per process by `dfx server --graph-network`.
//
// Some ops reach the network on their own: RpcServer listens on an address
// of the graph's choosing and serves registered functions to whoever calls;
// RpcClient and the tf.data service ops (RegisterDataset,
// DataServiceDataset, DistributedSave) connect to an address of the
// graph's choosing. Anyone who can submit a graph can use a server for
// that. A hardened deployment forbids it: `outbound` keeps connections out
// and refuses listening ports, `none` refuses both. The default, `all`, is
// TensorFlow's behaviour.
//
// The setting is process-wide, as runtime/file_policy.h's; tests that set
// it set it back.
#ifndef DFX_RUNTIME_NETWORK_POLICY_H_
#define DFX_RUNTIME_NETWORK_POLICY_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace dfx {

enum class GraphNetwork {
  kAll,       // listen and connect (TensorFlow's behaviour)
  kOutbound,  // connect, but no listening port
  kNone,      // neither
};

// "all", "outbound" or "none"; InvalidArgument naming the value otherwise.
absl::StatusOr<GraphNetwork> ParseGraphNetwork(absl::string_view value);
absl::string_view GraphNetworkName(GraphNetwork policy);

// Thread-safe; meant to be set once at start.
void SetGraphNetwork(GraphNetwork policy);
GraphNetwork GetGraphNetwork();

// OK when node `node` may listen on `address` (serving calls from
// anywhere) / connect to `address`; PermissionDenied naming the node, the
// address and the flag otherwise.
absl::Status CheckGraphMayListen(absl::string_view node,
                                 absl::string_view address);
absl::Status CheckGraphMayConnect(absl::string_view node,
                                  absl::string_view address);

}  // namespace dfx

#endif  // DFX_RUNTIME_NETWORK_POLICY_H_

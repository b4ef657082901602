#include "graph/client_graph.h"

#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/device_name.h"
#include "graph/partition.h"
#include "graph/subgraph.h"
#include "graph/types.h"

namespace dfx {
namespace {

// A feed or fetch resolved against the graph.
struct Endpoint {
  std::string canonical;  // "node:i"
  const Node* node = nullptr;
  int index = 0;
};

// Parses `name` into its canonical "node:i" form; InvalidArgument naming
// the tensor (as `what`: "feed" or "fetch") otherwise.
absl::StatusOr<TensorId> Parse(absl::string_view name, absl::string_view what) {
  auto parsed = ParseTensorName(name);
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " '", name, "': ", parsed.status().message()));
  }
  return std::move(parsed).value();
}

absl::StatusOr<Endpoint> Resolve(const Graph& graph, absl::string_view name,
                                 absl::string_view what) {
  DFX_ASSIGN_OR_RETURN(TensorId id, Parse(name, what));
  Endpoint ep;
  ep.canonical = id.ToString();
  ep.index = id.index;
  ep.node = graph.FindNode(id.node);
  if (ep.node == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " tensor '", name, "' not found: the graph has no "
                     "node '", id.node, "'"));
  }
  if (id.index >= ep.node->num_outputs()) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " tensor '", name, "' not found: node '", id.node, "' (op ",
        ep.node->type_string(), ") has ", ep.node->num_outputs(),
        " output(s)"));
  }
  return ep;
}

// `base`, or `base`_1, ... : a name neither `graph` nor `taken` (the names
// added so far) has.
std::string UniqueName(const std::string& base, const Graph& graph,
                       absl::flat_hash_set<std::string>* taken) {
  std::string name = base;
  for (int i = 1; graph.FindNode(name) != nullptr || taken->contains(name);
       ++i) {
    name = absl::StrCat(base, "_", i);
  }
  taken->insert(name);
  return name;
}

NodeDef ClientEndpointDef(const std::string& name, const std::string& op,
                          const std::string& tensor_name, DataType dtype,
                          const ClientGraphOptions& options) {
  NodeDef def;
  def.set_name(name);
  def.set_op(op);
  def.set_device(options.client_device);
  // std::string keys: with a literal key, GCC 12 misreads protobuf's
  // map insertion (a false -Warray-bounds, an error here).
  auto& attr = *def.mutable_attr();
  attr[op == "_Send" ? "T" : "tensor_type"].set_type(dtype);
  attr[std::string("tensor_name")].set_s(tensor_name);
  attr[std::string("send_device")].set_s(options.client_device);
  attr[std::string("send_device_incarnation")].set_i(
      static_cast<int64_t>(options.client_device_incarnation));
  attr[std::string("recv_device")].set_s(options.client_device);
  attr[std::string("client_terminated")].set_b(true);
  return def;
}

using TensorKey = std::pair<int, int>;  // (node id, output)

}  // namespace

absl::StatusOr<std::unique_ptr<Graph>> RewriteForStep(
    const Graph& graph, const ClientGraphOptions& options) {
  if (!options.feeds.empty() || !options.fetches.empty()) {
    auto device = DeviceName::Parse(options.client_device);
    if (!device.ok() || !device->IsFullySpecified()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "client device '", options.client_device,
          "' is not a full device name (/job:J/replica:R/task:T/device:"
          "TYPE:N)"));
    }
  }

  // Fed tensor -> position in `feeds`.
  std::vector<Endpoint> feeds;
  absl::flat_hash_map<TensorKey, int> feed_index;
  for (const std::string& name : options.feeds) {
    DFX_ASSIGN_OR_RETURN(Endpoint ep, Resolve(graph, name, "feed"));
    TensorKey key{ep.node->id(), ep.index};
    if (!feed_index.emplace(key, static_cast<int>(feeds.size())).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("tensor '", ep.canonical, "' is fed more than once"));
    }
    feeds.push_back(std::move(ep));
  }

  std::vector<Endpoint> fetches;
  absl::flat_hash_set<TensorKey> fetched;
  for (const std::string& name : options.fetches) {
    DFX_ASSIGN_OR_RETURN(Endpoint ep, Resolve(graph, name, "fetch"));
    if (!fetched.insert({ep.node->id(), ep.index}).second) continue;
    fetches.push_back(std::move(ep));
  }

  std::vector<const Node*> targets;
  for (const std::string& name : options.targets) {
    const Node* node = name.find_first_of(":^") == std::string::npos
                           ? graph.FindNode(name)
                           : nullptr;
    if (node == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "target '", name, "' is not the name of a node in the graph"));
    }
    targets.push_back(node);
  }

  // Backwards reachability from the fetches and the targets, not crossing
  // fed tensors.
  std::vector<bool> keep(graph.num_node_ids(), false);
  std::vector<bool> feed_used(feeds.size(), false);
  std::vector<const Node*> stack;
  auto visit = [&](const Node* n) {
    if (!keep[n->id()]) {
      keep[n->id()] = true;
      stack.push_back(n);
    }
  };
  // Marks a fed tensor used and returns true, or returns false.
  auto use_feed = [&](const Node* n, int output) {
    auto it = feed_index.find(TensorKey{n->id(), output});
    if (it == feed_index.end()) return false;
    feed_used[it->second] = true;
    return true;
  };
  for (const Endpoint& ep : fetches) {
    if (!use_feed(ep.node, ep.index)) visit(ep.node);
  }
  for (const Node* n : targets) visit(n);
  while (!stack.empty()) {
    const Node* n = stack.back();
    stack.pop_back();
    for (const Edge* e : n->in_edges()) {
      if (!e->IsControlEdge() && use_feed(e->src, e->src_output)) {
        if (IsRefType(n->input_type(e->dst_input))) {
          return absl::InvalidArgumentError(absl::StrCat(
              "fed tensor '", e->src->name(), ":", e->src_output,
              "' is taken as a reference by node '", n->name(), "' (op ",
              n->type_string(), ") input ", e->dst_input,
              "; a feed can only be a value"));
        }
        continue;
      }
      visit(e->src);
    }
  }

  auto out = std::make_unique<Graph>(graph.op_registry());
  *out->mutable_versions() = graph.versions();
  *out->mutable_library() = graph.library();
  absl::flat_hash_set<std::string> taken;  // the client endpoints' names

  std::vector<Node*> recv_for_feed(feeds.size(), nullptr);
  for (size_t i = 0; i < feeds.size(); ++i) {
    if (!feed_used[i]) continue;
    const Endpoint& ep = feeds[i];
    const std::string name = UniqueName(
        absl::StrCat("_recv_", ep.node->name(), "_", ep.index), graph,
        &taken);
    DFX_ASSIGN_OR_RETURN(
        Node * recv,
        out->AddNode(ClientEndpointDef(
            name, "_Recv", ep.canonical,
            BaseType(ep.node->output_type(ep.index)), options)));
    recv->set_assigned_device_name(options.client_device);
    recv_for_feed[i] = recv;
  }

  std::vector<Node*> copy(graph.num_node_ids(), nullptr);
  for (const Node* n : graph.nodes()) {
    if (!keep[n->id()]) continue;
    // The node as placed (assigned device included), without its inputs.
    DFX_ASSIGN_OR_RETURN(Node * c, out->CopyNode(*n));
    copy[n->id()] = c;
  }
  // The node now producing `src`:`output`: its feed's _Recv or its copy.
  auto producer = [&](const Node* src, int output) -> std::pair<Node*, int> {
    auto it = feed_index.find(TensorKey{src->id(), output});
    if (it != feed_index.end()) return {recv_for_feed[it->second], 0};
    return {copy[src->id()], output};
  };
  for (const Node* n : graph.nodes()) {
    Node* dst = copy[n->id()];
    if (dst == nullptr) continue;
    for (const Edge* e : n->in_edges()) {
      if (e->IsControlEdge()) {
        out->AddControlEdge(copy[e->src->id()], dst);
      } else {
        auto [src, output] = producer(e->src, e->src_output);
        out->AddEdge(src, output, dst, e->dst_input);
      }
    }
  }

  for (const Endpoint& ep : fetches) {
    const std::string name = UniqueName(
        absl::StrCat("_send_", ep.node->name(), "_", ep.index), graph,
        &taken);
    DFX_ASSIGN_OR_RETURN(
        Node * send,
        out->AddNode(ClientEndpointDef(
            name, "_Send", ep.canonical,
            BaseType(ep.node->output_type(ep.index)), options)));
    send->set_assigned_device_name(options.client_device);
    auto [src, output] = producer(ep.node, ep.index);
    out->AddEdge(src, output, send, 0);
  }
  return out;
}

absl::StatusOr<ClientRendezvousKeys> ClientStepRendezvousKeys(
    const ClientGraphOptions& options) {
  auto key = [&](const TensorId& id) {
    return SendRecvRendezvousKey(options.client_device,
                                 options.client_device_incarnation,
                                 options.client_device, id.ToString());
  };
  ClientRendezvousKeys keys;
  for (const std::string& name : options.feeds) {
    DFX_ASSIGN_OR_RETURN(TensorId id, Parse(name, "feed"));
    keys.feed_keys.push_back(key(id));
  }
  for (const std::string& name : options.fetches) {
    DFX_ASSIGN_OR_RETURN(TensorId id, Parse(name, "fetch"));
    keys.fetch_keys.push_back(key(id));
  }
  return keys;
}

}  // namespace dfx

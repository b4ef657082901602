#include "graph/placer.h"

#include <algorithm>
#include <numeric>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/log.h"
#include "base/status_macros.h"
#include "graph/device_name.h"
#include "graph/node_def_util.h"

namespace dfx {
namespace {

// Union-find over node ids.
class Groups {
 public:
  explicit Groups(int n) : parent_(n) {
    std::iota(parent_.begin(), parent_.end(), 0);
  }
  int Find(int x) {
    while (parent_[x] != x) {
      parent_[x] = parent_[parent_[x]];
      x = parent_[x];
    }
    return x;
  }
  // The smaller id becomes the root, which keeps results deterministic.
  void Union(int a, int b) {
    a = Find(a);
    b = Find(b);
    if (a == b) return;
    if (a > b) std::swap(a, b);
    parent_[b] = a;
  }

 private:
  std::vector<int> parent_;
};

bool CarriesReference(DataType t) { return IsRefType(t) || t == DT_RESOURCE; }

// Nodes in topological order (ties by id); nodes on cycles (loops) last.
std::vector<Node*> TopologicalOrder(const Graph& graph) {
  std::vector<int> pending(graph.num_node_ids(), 0);
  std::vector<Node*> ready;
  for (Node* n : graph.nodes()) {
    pending[n->id()] = static_cast<int>(n->in_edges().size());
    if (pending[n->id()] == 0) ready.push_back(n);
  }
  std::vector<Node*> order;
  std::vector<bool> done(graph.num_node_ids(), false);
  // A min-heap by id would be stricter; processing in discovery order with
  // the initial roots sorted by id is already deterministic.
  for (size_t i = 0; i < ready.size(); ++i) {
    Node* n = ready[i];
    order.push_back(n);
    done[n->id()] = true;
    for (const Edge* e : n->out_edges()) {
      if (--pending[e->dst->id()] == 0) ready.push_back(e->dst);
    }
  }
  for (Node* n : graph.nodes()) {
    if (!done[n->id()]) order.push_back(n);
  }
  return order;
}

}  // namespace

absl::Status PlaceGraph(const PlacerOptions& options, Graph* graph) {
  if (options.devices.empty()) {
    return absl::InvalidArgumentError("no devices to place the graph on");
  }
  std::vector<DeviceName> device_names;
  for (const PlacerDevice& d : options.devices) {
    DFX_ASSIGN_OR_RETURN(DeviceName parsed, DeviceName::Parse(d.name));
    device_names.push_back(std::move(parsed));
  }
  const std::string default_device = options.default_device.empty()
                                         ? options.devices[0].name
                                         : options.default_device;
  auto has_kernel = [&](const Node& n, const std::string& type) {
    return !options.has_kernel || options.has_kernel(n, type);
  };

  // 1. Colocation groups.
  Groups groups(graph->num_node_ids());
  for (Node* n : graph->nodes()) {
    std::vector<std::string> classes;
    if (FindNodeAttr(n->def(), "_class") != nullptr) {
      DFX_RETURN_IF_ERROR(GetNodeAttr(n->def(), "_class", &classes));
    }
    for (const std::string& c : classes) {
      if (!absl::StartsWith(c, "loc:@")) continue;
      const std::string other = c.substr(5);
      Node* o = graph->FindNode(other);
      if (o == nullptr) {
        return absl::InvalidArgumentError(
            absl::StrCat("node '", n->name(),
                         "' asks to be colocated with unknown node '", other,
                         "'"));
      }
      groups.Union(n->id(), o->id());
    }
    for (const Edge* e : n->in_edges()) {
      if (!e->IsControlEdge() && CarriesReference(n->input_type(e->dst_input))) {
        groups.Union(n->id(), e->src->id());
      }
    }
  }

  // 2. Merge each group's requested device specs.
  struct Group {
    DeviceName spec;
    std::vector<Node*> members;
    const Node* spec_owner = nullptr;  // the node whose request set the spec
    std::string device;               // chosen device; empty until placed
  };
  // By the id of the group's root (union-find), so that a 100,000-node
  // graph's lookups are an index, not a tree walk.
  std::vector<Group> by_root(graph->num_node_ids());
  // A node that holds state (VarHandleOp, VariableV2: a resource or
  // reference output, no such input) decides where its group goes: as in
  // TensorFlow, a consumer joined to it by a resource or reference edge
  // whose own request disagrees is moved to the state's device (a
  // replica_device_setter puts VarIsInitializedOp, Assign, ... on the
  // worker while the variable is on a ps task).
  auto holds_state = [](const Node* n) {
    for (int i = 0; i < n->num_inputs(); ++i) {
      if (CarriesReference(n->input_type(i))) return false;
    }
    for (int i = 0; i < n->num_outputs(); ++i) {
      if (CarriesReference(n->output_type(i))) return true;
    }
    return false;
  };
  auto takes_state = [](const Node* n) {
    for (int i = 0; i < n->num_inputs(); ++i) {
      if (CarriesReference(n->input_type(i))) return true;
    }
    return false;
  };
  std::vector<Node*> owners_first;
  for (Node* n : graph->nodes()) {
    if (holds_state(n)) owners_first.push_back(n);
  }
  for (Node* n : graph->nodes()) {
    if (!holds_state(n)) owners_first.push_back(n);
  }
  // Graphs repeat a few device strings over many nodes: each is parsed once.
  absl::flat_hash_map<std::string, DeviceName> parsed_specs;
  for (Node* n : owners_first) {
    Group& g = by_root[groups.Find(n->id())];
    g.members.push_back(n);
    if (n->requested_device().empty()) continue;
    auto cached = parsed_specs.find(n->requested_device());
    if (cached == parsed_specs.end()) {
      absl::StatusOr<DeviceName> parsed =
          DeviceName::Parse(n->requested_device());
      if (!parsed.ok()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "node '", n->name(), "': ", parsed.status().message()));
      }
      cached =
          parsed_specs.emplace(n->requested_device(), *std::move(parsed)).first;
    }
    const DeviceName* spec = &cached->second;
    if (!g.spec.IsCompatibleWith(*spec)) {
      if (takes_state(n) && g.spec_owner != nullptr &&
          holds_state(g.spec_owner)) {
        spdlog::debug("placer: node '{}' asks for '{}' but uses state of "
                      "'{}' on '{}'; it goes with the state",
                      n->name(), n->requested_device(), g.spec_owner->name(),
                      g.spec_owner->requested_device());
        continue;
      }
      return absl::InvalidArgumentError(absl::StrCat(
          "cannot colocate node '", n->name(), "' (device '",
          n->requested_device(), "') with node '", g.spec_owner->name(),
          "' (device '", g.spec_owner->requested_device(),
          "'): they ask for different devices"));
    }
    DFX_RETURN_IF_ERROR(g.spec.MergeFrom(*spec));
    if (g.spec_owner == nullptr) g.spec_owner = n;
  }

  // 3. Candidates per group, then a choice in topological order.
  auto candidates_for = [&](const Group& g, const DeviceName& spec,
                            std::vector<int>* out) {
    out->clear();
    for (size_t i = 0; i < options.devices.size(); ++i) {
      if (!device_names[i].Matches(spec)) continue;
      bool ok = std::all_of(g.members.begin(), g.members.end(),
                            [&](const Node* n) {
                              return has_kernel(*n, options.devices[i].type);
                            });
      if (ok) out->push_back(static_cast<int>(i));
    }
  };
  auto describe_group = [](const Group& g) {
    std::vector<std::string> names;
    for (const Node* n : g.members) {
      names.push_back(absl::StrCat("'", n->name(), "' (", n->type_string(),
                                   ")"));
    }
    return absl::StrJoin(names, ", ");
  };
  auto known_devices = [&] {
    std::vector<std::string> names;
    for (const PlacerDevice& d : options.devices) names.push_back(d.name);
    return absl::StrJoin(names, ", ");
  };

  for (Node* n : TopologicalOrder(*graph)) {
    Group& g = by_root[groups.Find(n->id())];
    if (!g.device.empty()) continue;
    std::vector<int> candidates;
    candidates_for(g, g.spec, &candidates);
    if (candidates.empty()) {
      bool any_match = false;
      for (const DeviceName& d : device_names) any_match |= d.Matches(g.spec);
      if (!options.allow_soft_placement) {
        if (!any_match) {
          return absl::InvalidArgumentError(absl::StrCat(
              "cannot place node(s) ", describe_group(g),
              ": no device matches the requested device '",
              g.spec.ToString(), "'; known devices: ", known_devices()));
        }
        return absl::InvalidArgumentError(absl::StrCat(
            "cannot place node(s) ", describe_group(g), " on '",
            g.spec.ToString(), "': no kernel for them on the matching "
            "devices (set allow_soft_placement to let dfx move them)"));
      }
      // Soft placement: keep the job/replica/task of the request when that
      // still leaves a device, else drop the request entirely.
      DeviceName relaxed = g.spec;
      relaxed.has_type = relaxed.has_id = false;
      candidates_for(g, relaxed, &candidates);
      if (candidates.empty()) candidates_for(g, DeviceName(), &candidates);
      if (candidates.empty()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "cannot place node(s) ", describe_group(g),
            ": no device has a kernel for them; known devices: ",
            known_devices()));
      }
    }
    // Prefer the device of the first placed data input of any member.
    int choice = -1;
    for (const Node* m : g.members) {
      for (const Edge* e : m->in_edges()) {
        if (e->IsControlEdge()) continue;
        const std::string& src = e->src->assigned_device_name();
        if (src.empty()) continue;
        for (int c : candidates) {
          if (options.devices[c].name == src) {
            choice = c;
            break;
          }
        }
        if (choice >= 0) break;
      }
      if (choice >= 0) break;
    }
    if (choice < 0) {
      for (int c : candidates) {
        if (options.devices[c].name == default_device) choice = c;
      }
    }
    if (choice < 0) choice = candidates[0];
    g.device = options.devices[choice].name;
    for (Node* m : g.members) m->set_assigned_device_name(g.device);
  }

  // 4. TensorFlow's generator rule: a Const colocated with nothing goes
  // with its consumers when they are all on one device its request allows,
  // so a constant a ps-side update uses (AssignAddVariableOp's 1.0) does
  // not cross tasks every step.
  for (Node* n : graph->nodes()) {
    const Group& own = by_root[groups.Find(n->id())];
    if (n->type_string() != "Const" || own.members.size() != 1) continue;
    std::string target;
    bool one_device = true;
    for (const Edge* e : n->out_edges()) {
      if (e->IsControlEdge()) continue;
      const std::string& d = e->dst->assigned_device_name();
      if (target.empty()) target = d;
      one_device &= d == target;
    }
    if (!one_device || target.empty() || target == n->assigned_device_name()) {
      continue;
    }
    // Only where its own request allows ("/device:CPU:0", as TensorFlow's
    // functions ask, allows any task's CPU).
    for (size_t c = 0; c < options.devices.size(); ++c) {
      if (options.devices[c].name == target &&
          device_names[c].Matches(own.spec) &&
          has_kernel(*n, options.devices[c].type)) {
        n->set_assigned_device_name(target);
        break;
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace dfx

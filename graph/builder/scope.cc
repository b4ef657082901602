#include "graph/builder/scope.h"

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "graph/node_def_util.h"

namespace dfx {

std::string Output::ToString() const {
  return index_ == 0 ? node_name_ : absl::StrCat(node_name_, ":", index_);
}

// What every scope derived from one root shares.
struct Scope::Graph {
  GraphDef def;
  absl::Status status;
  absl::flat_hash_set<std::string> node_names;
};

// Names taken in one namespace (the root, or one sub-scope), each with the
// last suffix handed out for it, as TensorFlow's Scope keeps them.
using NameMap = absl::flat_hash_map<std::string, int>;

struct Scope::Impl {
  std::shared_ptr<Scope::Graph> graph;
  std::shared_ptr<NameMap> names;
  std::string prefix;
  std::string op_name;
  std::string device;
  std::vector<std::string> control_deps;
};

namespace {

// TensorFlow's rule for the name of a node built from C++: the same as for an
// imported one.
bool IsValidNodeName(absl::string_view name) {
  if (name.empty()) return false;
  auto alnum = [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
           (c >= '0' && c <= '9');
  };
  if (!alnum(name[0]) && name[0] != '.') return false;
  return std::all_of(name.begin(), name.end(), [&](char c) {
    return alnum(c) || c == '_' || c == '.' || c == '/' || c == '>' ||
           c == '-';
  });
}

std::string Join(absl::string_view prefix, absl::string_view name) {
  if (prefix.empty()) return std::string(name);
  if (name.empty()) return std::string(prefix);
  return absl::StrCat(prefix, "/", name);
}

// "name" when free in `names` (and, joined to `prefix`, not a node of the
// graph), else "name_1", "name_2", ...
std::string UniqueName(NameMap& names,
                       const absl::flat_hash_set<std::string>& nodes,
                       absl::string_view prefix, const std::string& name) {
  auto taken = [&](const std::string& candidate) {
    return names.contains(candidate) || nodes.contains(Join(prefix, candidate));
  };
  auto it = names.find(name);
  if (it == names.end() && !taken(name)) {
    names.emplace(name, 0);
    return name;
  }
  int& counter = names[name];
  std::string candidate;
  do {
    candidate = absl::StrCat(name, "_", ++counter);
  } while (taken(candidate));
  names.emplace(candidate, 0);
  return candidate;
}

}  // namespace

Scope::Scope(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}

Scope Scope::NewRootScope() {
  auto impl = std::make_shared<Impl>();
  impl->graph = std::make_shared<Scope::Graph>();
  impl->names = std::make_shared<NameMap>();
  return Scope(std::move(impl));
}

Scope Scope::WithOpName(absl::string_view name) const {
  auto impl = std::make_shared<Impl>(*impl_);
  impl->op_name = std::string(name);
  return Scope(std::move(impl));
}

Scope Scope::NewSubScope(absl::string_view child) const {
  if (child.empty()) return *this;
  auto impl = std::make_shared<Impl>(*impl_);
  const std::string unique = UniqueName(*impl_->names, impl_->graph->node_names,
                                        impl_->prefix, std::string(child));
  impl->prefix = Join(impl_->prefix, unique);
  impl->names = std::make_shared<NameMap>();
  impl->op_name.clear();
  return Scope(std::move(impl));
}

Scope Scope::WithDevice(absl::string_view device) const {
  auto impl = std::make_shared<Impl>(*impl_);
  impl->device = std::string(device);
  return Scope(std::move(impl));
}

Scope Scope::WithControlDependencies(absl::Span<const Operation> deps) const {
  auto impl = std::make_shared<Impl>(*impl_);
  for (const Operation& op : deps) {
    if (!op.valid()) {
      UpdateStatus(absl::InvalidArgumentError(
          "WithControlDependencies: an Operation is not valid (built on a "
          "failed scope?)"));
      continue;
    }
    if (std::find(impl->control_deps.begin(), impl->control_deps.end(),
                  op.node_name()) == impl->control_deps.end()) {
      impl->control_deps.push_back(op.node_name());
    }
  }
  return Scope(std::move(impl));
}

Scope Scope::WithNoControlDependencies() const {
  auto impl = std::make_shared<Impl>(*impl_);
  impl->control_deps.clear();
  return Scope(std::move(impl));
}

bool Scope::ok() const { return impl_->graph->status.ok(); }

absl::Status Scope::status() const { return impl_->graph->status; }

void Scope::UpdateStatus(const absl::Status& s) const {
  if (impl_->graph->status.ok()) impl_->graph->status = s;
}

absl::Status Scope::ToGraphDef(GraphDef* out) const {
  if (!ok()) return status();
  *out = impl_->graph->def;
  return absl::OkStatus();
}

int Scope::num_nodes() const { return impl_->graph->def.node_size(); }

const NodeDef& Scope::node(int position) const {
  return impl_->graph->def.node(position);
}

absl::Status Scope::SetNodeInputs(
    int position, const std::vector<std::string>& inputs) const {
  if (!ok()) return status();
  Scope::Graph& graph = *impl_->graph;
  NodeDef& node = *graph.def.mutable_node(position);
  for (const std::string& input : inputs) {
    ParsedInput parsed;
    absl::Status s = ParseNodeInput(input, &parsed);
    if (s.ok() && !graph.node_names.contains(parsed.node)) {
      s = absl::InvalidArgumentError(absl::StrCat(
          "input '", input, "' is not a node of this scope's graph"));
    }
    if (!s.ok()) {
      UpdateStatus(absl::InvalidArgumentError(absl::StrCat(
          "node '", node.name(), "' (op ", node.op(), "): ", s.message())));
      return status();
    }
  }
  node.clear_input();
  for (const std::string& input : inputs) node.add_input(input);
  return absl::OkStatus();
}

const std::string& Scope::name_prefix() const { return impl_->prefix; }

const std::string& Scope::device() const { return impl_->device; }

std::string Scope::GetUniqueNameForOp(absl::string_view default_name) const {
  const std::string base =
      impl_->op_name.empty() ? std::string(default_name) : impl_->op_name;
  return Join(impl_->prefix, UniqueName(*impl_->names, impl_->graph->node_names,
                                        impl_->prefix, base));
}

absl::Status Scope::AddNode(NodeDef node) const {
  if (!ok()) return status();
  Scope::Graph& graph = *impl_->graph;
  auto fail = [&](absl::string_view message) {
    UpdateStatus(absl::InvalidArgumentError(absl::StrCat(
        "node '", node.name(), "' (op ", node.op(), "): ", message)));
    return status();
  };
  if (!IsValidNodeName(node.name())) {
    return fail(
        "node name is not valid: it must match [A-Za-z0-9.][A-Za-z0-9_./>-]*");
  }
  if (graph.node_names.contains(node.name())) return fail("duplicate node name");
  for (const std::string& input : node.input()) {
    ParsedInput parsed;
    if (absl::Status s = ParseNodeInput(input, &parsed); !s.ok()) {
      return fail(s.message());
    }
    if (!graph.node_names.contains(parsed.node)) {
      return fail(absl::StrCat("input '", input,
                               "' is not a node of this scope's graph"));
    }
  }
  if (node.device().empty()) node.set_device(impl_->device);
  for (const std::string& dep : impl_->control_deps) {
    if (!graph.node_names.contains(dep)) {
      return fail(absl::StrCat("control dependency '", dep,
                               "' is not a node of this scope's graph"));
    }
    node.add_input(absl::StrCat("^", dep));
  }
  graph.node_names.insert(node.name());
  *graph.def.add_node() = std::move(node);
  return absl::OkStatus();
}

}  // namespace dfx

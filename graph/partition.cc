#include "graph/partition.h"

#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/status_macros.h"
#include "graph/control_flow.h"
#include "graph/node_def_util.h"
#include "graph/types.h"

namespace dfx {

std::string SendRecvRendezvousKey(absl::string_view src_device,
                                  uint64_t src_incarnation,
                                  absl::string_view dst_device,
                                  absl::string_view tensor_name) {
  // Same format as Rendezvous::CreateKey (runtime/, which graph/ cannot
  // include) with the top-level frame and iteration "0:0".
  return absl::StrCat(src_device, ";",
                      absl::StrFormat("%016x", src_incarnation), ";",
                      dst_device, ";", tensor_name, ";0:0");
}

bool IsSendOp(absl::string_view op) {
  return op == "_Send" || op == "_HostSend";
}

bool IsRecvOp(absl::string_view op) {
  return op == "_Recv" || op == "_HostRecv";
}

absl::StatusOr<std::string> SendRecvRendezvousKey(const NodeDef& node) {
  const std::string& op = node.op();
  if (!IsSendOp(op) && !IsRecvOp(op)) {
    return absl::InvalidArgumentError(
        absl::StrCat("node '", node.name(), "' (op ", op,
                     "): not a _Send or _Recv, so it has no rendezvous key"));
  }
  std::string send_device, recv_device, tensor_name;
  int64_t incarnation = 0;
  DFX_RETURN_IF_ERROR(GetNodeAttr(node, "send_device", &send_device));
  DFX_RETURN_IF_ERROR(GetNodeAttr(node, "recv_device", &recv_device));
  DFX_RETURN_IF_ERROR(GetNodeAttr(node, "tensor_name", &tensor_name));
  DFX_RETURN_IF_ERROR(
      GetNodeAttr(node, "send_device_incarnation", &incarnation));
  return SendRecvRendezvousKey(send_device, static_cast<uint64_t>(incarnation),
                               recv_device, tensor_name);
}

namespace {

std::string InputString(const Node& src, int output) {
  return output == 0 ? src.name() : absl::StrCat(src.name(), ":", output);
}

void SetSendRecvAttrs(const std::string& tensor_name,
                      const std::string& send_device, uint64_t incarnation,
                      const std::string& recv_device, NodeDef* def) {
  // std::string keys: with a literal key, GCC 12 misreads protobuf's
  // map insertion (a false -Warray-bounds, an error here).
  auto& attr = *def->mutable_attr();
  attr[std::string("tensor_name")].set_s(tensor_name);
  attr[std::string("send_device")].set_s(send_device);
  attr[std::string("send_device_incarnation")].set_i(
      static_cast<int64_t>(incarnation));
  attr[std::string("recv_device")].set_s(recv_device);
  attr[std::string("client_terminated")].set_b(false);
}

// The state of one Partition call.
class Partitioner {
 public:
  // With `consumed` (then `graph` itself), the nodes' NodeDefs are moved
  // into the partitions at the end instead of copied.
  Partitioner(const Graph& graph, Graph* consumed, const PartitionOptions& opts)
      : graph_(graph), consumed_(consumed), opts_(opts) {}

  absl::StatusOr<std::map<std::string, GraphDef>> Run() {
    const std::vector<Node*> nodes = graph_.nodes();
    loc_.resize(graph_.num_node_ids());
    device_.resize(graph_.num_node_ids());
    for (const Node* n : nodes) {
      std::string loc = opts_.node_to_loc ? opts_.node_to_loc(n)
                                          : n->assigned_device_name();
      if (loc.empty()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "node '", n->name(), "' (op ", n->type_string(), "): ",
            opts_.node_to_loc ? "node_to_loc gave no partition"
                              : "no assigned device, so no partition"));
      }
      device_[n->id()] =
          n->assigned_device_name().empty() ? loc : n->assigned_device_name();
      if (!parts_.contains(loc)) {
        GraphDef& part = parts_[loc];
        *part.mutable_versions() = graph_.versions();
        *part.mutable_library() = graph_.library();
      }
      loc_[n->id()] = std::move(loc);
    }
    DFX_RETURN_IF_ERROR(FindCrossDeviceFrames());
    for (const Node* dst : nodes) DFX_RETURN_IF_ERROR(AddNode(*dst));
    // Every node's own fields last, once nothing reads the graph's NodeDefs
    // any more (LocalCopy and the inserted nodes' names do until here).
    for (auto& [id, out] : copies_) {
      Node* node = graph_.FindNodeId(id);
      NodeDef def = consumed_ != nullptr ? std::move(*node->mutable_def())
                                         : node->def();
      def.mutable_input()->Swap(out->mutable_input());
      def.mutable_device()->swap(*out->mutable_device());
      *out = std::move(def);
    }
    return std::move(parts_);
  }

 private:
  bool Taken(const std::string& name) const {
    return graph_.FindNode(name) != nullptr || taken_.contains(name);
  }

  absl::StatusOr<std::string> NewName(const std::string& prefix) {
    std::string name;
    if (opts_.new_name) {
      name = opts_.new_name(prefix);
      if (name.empty() || Taken(name)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "PartitionOptions::new_name gave '", name, "' for prefix '",
            prefix, "', a name already in use"));
      }
    } else {
      do {
        name = absl::StrCat(prefix, "/_", counter_++);
      } while (Taken(name));
    }
    taken_.insert(name);
    return name;
  }

  // Adds `dst` to its partition, with every input that crosses partitions
  // replaced by a _Recv (created on first use). The rest of its NodeDef
  // comes at the end of Run.
  absl::Status AddNode(const Node& dst) {
    const std::string& dst_loc = loc_[dst.id()];
    NodeDef def;
    def.set_device(device_[dst.id()]);

    std::vector<const Edge*> data(dst.num_inputs(), nullptr);
    std::vector<const Edge*> control;
    for (const Edge* e : dst.in_edges()) {
      if (e->IsControlEdge()) {
        control.push_back(e);
      } else {
        data[e->dst_input] = e;
      }
    }
    for (int i = 0; i < dst.num_inputs(); ++i) {
      const Edge* e = data[i];
      if (e == nullptr) {
        return absl::InvalidArgumentError(
            absl::StrCat("node '", dst.name(), "' (op ", dst.type_string(),
                         "): input ", i, " is not connected"));
      }
      if (loc_[e->src->id()] == dst_loc) {
        def.add_input(InputString(*e->src, e->src_output));
      } else if (IsNextIterationNode(*e->src) || IsEnterNode(*e->src)) {
        DFX_ASSIGN_OR_RETURN(
            std::string copy,
            LocalCopy(*e->src, dst_loc, device_[dst.id()]));
        def.add_input(std::move(copy));
      } else {
        DFX_ASSIGN_OR_RETURN(std::string recv, RecvFor(*e));
        def.add_input(std::move(recv));
      }
    }
    absl::flat_hash_set<std::string> control_inputs;
    for (const Edge* e : control) {
      std::string input;
      if (loc_[e->src->id()] == dst_loc) {
        input = absl::StrCat("^", e->src->name());
      } else if (IsNextIterationNode(*e->src) || IsEnterNode(*e->src)) {
        DFX_ASSIGN_OR_RETURN(
            std::string copy,
            LocalCopy(*e->src, dst_loc, device_[dst.id()]));
        input = absl::StrCat("^", copy);
      } else {
        DFX_ASSIGN_OR_RETURN(std::string recv, RecvFor(*e));
        input = absl::StrCat("^", recv);
      }
      if (control_inputs.insert(input).second) def.add_input(std::move(input));
    }
    NodeDef* out = parts_[dst_loc].add_node();
    *out = std::move(def);
    copies_.emplace_back(dst.id(), out);
    return absl::OkStatus();
  }

  // The name of the _Recv in the destination's partition carrying `edge`'s
  // tensor (or, for a control edge, its source's completion), adding the
  // _Send/_Recv pair (and the dummy Const) on first use.
  absl::StatusOr<std::string> RecvFor(const Edge& edge) {
    return RecvFor(*edge.src, edge.src_output, edge.IsControlEdge(),
                   absl::StrCat("edge_", edge.id, "_", edge.src->name()),
                   loc_[edge.dst->id()], device_[edge.dst->id()],
                   frame_of(*edge.dst));
  }

  // The same for output `src_output` of `src` (or its completion, when
  // `control`) read in partition `dst_loc` on `recv_device`, inside loop
  // frame `frame` (0: the top level).
  absl::StatusOr<std::string> RecvFor(const Node& src, int src_output,
                                      bool control,
                                      const std::string& tensor_name,
                                      const std::string& dst_loc,
                                      const std::string& recv_device,
                                      int32_t frame) {
    const std::string& src_loc = loc_[src.id()];
    auto key = std::make_tuple(src.id(), src_output, dst_loc);
    auto it = recv_for_.find(key);
    if (it != recv_for_.end()) return it->second;

    const std::string& send_device = device_[src.id()];
    if (!opts_.get_incarnation) {
      return absl::InvalidArgumentError(absl::StrCat(
          "PartitionOptions::get_incarnation is not set, but an edge from '",
          src.name(), "' crosses from ", send_device, " to ", recv_device));
    }
    const uint64_t incarnation = opts_.get_incarnation(send_device);
    GraphDef& src_part = parts_[src_loc];

    std::string send_input;
    DataType dtype;
    if (control) {
      // A control dependency travels as an empty float tensor produced once
      // the source has run.
      DFX_ASSIGN_OR_RETURN(std::string dummy_name, NewName(src.name()));
      NodeDef* dummy = src_part.add_node();
      dummy->set_name(dummy_name);
      dummy->set_op("Const");
      dummy->set_device(send_device);
      dummy->add_input(absl::StrCat("^", src.name()));
      auto& attr = *dummy->mutable_attr();
      attr["dtype"].set_type(DT_FLOAT);
      TensorProto* value = attr["value"].mutable_tensor();
      value->set_dtype(DT_FLOAT);
      value->mutable_tensor_shape()->add_dim()->set_size(0);
      send_input = std::move(dummy_name);
      dtype = DT_FLOAT;
    } else {
      send_input = InputString(src, src_output);
      dtype = BaseType(src.output_type(src_output));
    }

    DFX_ASSIGN_OR_RETURN(std::string send_name, NewName(src.name()));
    NodeDef* send = src_part.add_node();
    send->set_name(std::move(send_name));
    send->set_op("_Send");
    send->set_device(send_device);
    send->add_input(std::move(send_input));
    (*send->mutable_attr())["T"].set_type(dtype);
    SetSendRecvAttrs(tensor_name, send_device, incarnation, recv_device, send);

    DFX_ASSIGN_OR_RETURN(std::string recv_name, NewName(src.name()));
    NodeDef* recv = parts_[dst_loc].add_node();
    recv->set_name(recv_name);
    recv->set_op("_Recv");
    recv->set_device(recv_device);
    (*recv->mutable_attr())["tensor_type"].set_type(dtype);
    SetSendRecvAttrs(tensor_name, send_device, incarnation, recv_device, recv);
    recv_for_.emplace(std::move(key), recv_name);
    if (frame != 0) {
      // Inside a loop the _Recv runs once per iteration of its partition's
      // control loop, which puts it into the frame and iteration whose
      // rendezvous key the _Send uses.
      DFX_ASSIGN_OR_RETURN(std::string merge,
                           ControlLoop(frame, dst_loc, recv_device));
      recv->add_input(absl::StrCat("^", merge));
    }
    return recv_name;
  }

  // An Enter's output exists only in iteration 0 of its frame and a
  // NextIteration's belongs to the next iteration, while a _Recv inside a
  // loop runs once per iteration of its partition's control loop. So these
  // values never cross a cut: the value crosses before the node instead,
  // and a copy of the Enter or NextIteration in partition `loc` (same attrs,
  // the original's input and control inputs, received where needed) feeds
  // the local consumers.
  absl::StatusOr<std::string> LocalCopy(const Node& node,
                                        const std::string& loc,
                                        const std::string& device) {
    auto key = std::make_pair(node.id(), loc);
    auto it = local_copies_.find(key);
    if (it != local_copies_.end()) return it->second;
    NodeDef def = node.def();
    def.clear_input();
    def.set_device(device);
    DFX_ASSIGN_OR_RETURN(std::string name, NewName(node.name()));
    def.set_name(name);
    const Edge* data = nullptr;
    std::vector<const Edge*> control;
    for (const Edge* e : node.in_edges()) {
      if (e->IsControlEdge()) {
        control.push_back(e);
      } else {
        data = e;
      }
    }
    if (data == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "node '", node.name(), "' (op ", node.type_string(),
          "): input 0 is not connected"));
    }
    // The input lives in the node's own frame (an Enter's parent frame).
    const int32_t frame = frame_of(node);
    if (loc_[data->src->id()] == loc) {
      def.add_input(InputString(*data->src, data->src_output));
    } else {
      DFX_ASSIGN_OR_RETURN(
          std::string recv,
          RecvFor(*data->src, data->src_output, /*control=*/false,
                  absl::StrCat("edge_", data->id, "_", data->src->name()),
                  loc, device, frame));
      def.add_input(std::move(recv));
    }
    for (const Edge* e : control) {
      if (loc_[e->src->id()] == loc) {
        def.add_input(absl::StrCat("^", e->src->name()));
      } else {
        DFX_ASSIGN_OR_RETURN(
            std::string recv,
            RecvFor(*e->src, e->src_output, /*control=*/true,
                    absl::StrCat("edge_", e->id, "_", e->src->name()), loc,
                    device, frame));
        def.add_input(absl::StrCat("^", recv));
      }
    }
    *parts_[loc].add_node() = std::move(def);
    local_copies_.emplace(key, name);
    return name;
  }

  // The frame a node runs in (0 when the graph has no loops).
  int32_t frame_of(const Node& n) const {
    return frames_.frame_of.empty() ? 0 : frames_.frame_of[n.id()];
  }

  // Finds the loop frames when some edge inside a loop crosses partitions.
  absl::Status FindCrossDeviceFrames() {
    bool crosses = false;
    bool loops = false;
    for (const Node* n : graph_.nodes()) {
      loops |= IsEnterNode(*n);
      for (const Edge* e : n->in_edges()) {
        crosses |= loc_[e->src->id()] != loc_[n->id()];
      }
    }
    if (!loops || !crosses) return absl::OkStatus();
    DFX_ASSIGN_OR_RETURN(frames_, BuildGraphFrames(graph_));
    return absl::OkStatus();
  }

  // A partition holding part of a loop whose LoopCond is elsewhere (or not
  // fed by a local Switch) learns when to start each iteration and when to
  // stop from a control loop of its own (TensorFlow's construction, after
  // Yu et al.): Enter -> Merge <- NextIteration <- Switch(Merge, LoopCond):1,
  // with the LoopCond's value received from its partition each iteration.
  // Each _Recv of the frame in this partition waits for the control loop's
  // Merge. Nested frames stack: the inner control Enter reads the outer
  // control Merge. Returns the Merge's name, adding the loop on first use.
  absl::StatusOr<std::string> ControlLoop(int32_t frame,
                                          const std::string& loc,
                                          const std::string& device) {
    auto it = control_loops_.find(std::make_pair(frame, loc));
    if (it != control_loops_.end()) return it->second;
    const GraphFrames::Frame& f = frames_.frames[frame];
    if (f.loop_cond == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "loop frame '", f.name, "' spans devices but has no LoopCond to "
          "drive its other partitions"));
    }
    const std::string prefix = absl::StrCat("_cloop/", f.name);
    DFX_ASSIGN_OR_RETURN(std::string enter_name, NewName(prefix));
    DFX_ASSIGN_OR_RETURN(std::string merge_name, NewName(prefix));
    DFX_ASSIGN_OR_RETURN(std::string switch_name, NewName(prefix));
    DFX_ASSIGN_OR_RETURN(std::string next_name, NewName(prefix));
    // Registered first: the LoopCond's _Recv below waits for this Merge.
    control_loops_.emplace(std::make_pair(frame, loc), merge_name);

    std::string enter_input;
    if (f.parent == 0) {
      DFX_ASSIGN_OR_RETURN(enter_input, NewName(prefix));
      NodeDef* start = parts_[loc].add_node();
      start->set_name(enter_input);
      start->set_op("Const");
      start->set_device(device);
      auto& attr = *start->mutable_attr();
      attr["dtype"].set_type(DT_FLOAT);
      TensorProto* value = attr["value"].mutable_tensor();
      value->set_dtype(DT_FLOAT);
      value->mutable_tensor_shape()->add_dim()->set_size(0);
    } else {
      DFX_ASSIGN_OR_RETURN(enter_input, ControlLoop(f.parent, loc, device));
    }
    std::string pred;
    if (loc_[f.loop_cond->id()] == loc) {
      pred = f.loop_cond->name();
    } else {
      DFX_ASSIGN_OR_RETURN(
          pred, RecvFor(*f.loop_cond, 0, /*control=*/false,
                        absl::StrCat("cloop_", f.loop_cond->name()), loc,
                        device, frame));
    }
    auto add = [&](const std::string& name, const std::string& op,
                   std::vector<std::string> inputs) {
      NodeDef* n = parts_[loc].add_node();
      n->set_name(name);
      n->set_op(op);
      n->set_device(device);
      for (std::string& in : inputs) n->add_input(std::move(in));
      (*n->mutable_attr())["T"].set_type(DT_FLOAT);
      return n;
    };
    auto& enter_attr = *add(enter_name, "Enter", {enter_input})->mutable_attr();
    enter_attr["frame_name"].set_s(f.name);
    enter_attr["is_constant"].set_b(false);
    enter_attr["parallel_iterations"].set_i(f.parallel_iterations);
    (*add(merge_name, "Merge", {enter_name, next_name})->mutable_attr())["N"]
        .set_i(2);
    add(switch_name, "Switch", {merge_name, pred});
    add(next_name, "NextIteration", {absl::StrCat(switch_name, ":1")});
    return merge_name;
  }

  const Graph& graph_;
  Graph* const consumed_;
  const PartitionOptions& opts_;
  std::vector<std::string> loc_;     // by node id
  std::vector<std::string> device_;  // by node id
  std::map<std::string, GraphDef> parts_;
  // Names of the nodes this call inserted (the graph's are its own).
  absl::flat_hash_set<std::string> taken_;
  // Each graph node's place in its partition, filled at the end of Run.
  std::vector<std::pair<int, NodeDef*>> copies_;
  int counter_ = 0;
  // (source node id, source output or kControlSlot, destination partition)
  // -> the _Recv's name.
  absl::flat_hash_map<std::tuple<int, int, std::string>, std::string>
      recv_for_;
  // Set when some edge inside a loop crosses partitions.
  GraphFrames frames_;
  // (Enter or NextIteration node id, partition) -> its copy there.
  absl::flat_hash_map<std::pair<int, std::string>, std::string>
      local_copies_;
  // (frame, partition) -> the Merge of the partition's control loop.
  absl::flat_hash_map<std::pair<int32_t, std::string>, std::string>
      control_loops_;
};

}  // namespace

absl::StatusOr<std::map<std::string, GraphDef>> Partition(
    const Graph& graph, const PartitionOptions& opts) {
  return Partitioner(graph, nullptr, opts).Run();
}

absl::StatusOr<std::map<std::string, GraphDef>> Partition(
    std::unique_ptr<Graph> graph, const PartitionOptions& opts) {
  Graph* g = graph.get();
  return Partitioner(*g, g, opts).Run();
}

}  // namespace dfx

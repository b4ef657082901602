// GraphDefs with TF1 loops written node by node, as tf.while_loop writes
// them, for tests of the executor, the partitioner and clusters.
#ifndef DFX_TESTS_TESTING_LOOP_GRAPH_H_
#define DFX_TESTS_TESTING_LOOP_GRAPH_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "proto/graph.pb.h"
#include "runtime/tensor.h"
#include "runtime/types.h"

namespace dfx::testing {

// A small GraphDef writer.
class G {
 public:
  NodeDef* Add(const std::string& name, const std::string& op,
               std::vector<std::string> inputs = {}, DataType t = DT_INVALID) {
    NodeDef* n = def_.add_node();
    n->set_name(name);
    n->set_op(op);
    for (std::string& in : inputs) n->add_input(std::move(in));
    if (t != DT_INVALID) (*n->mutable_attr())["T"].set_type(t);
    return n;
  }
  template <typename T>
  NodeDef* Const(const std::string& name, T value,
                 std::vector<std::string> inputs = {}) {
    NodeDef* n = Add(name, "Const", std::move(inputs));
    (*n->mutable_attr())["dtype"].set_type(DataTypeToEnum<T>::value);
    Tensor::Scalar<T>(value).AsProtoTensorContent(
        (*n->mutable_attr())["value"].mutable_tensor());
    return n;
  }
  NodeDef* Placeholder(const std::string& name, DataType t) {
    NodeDef* n = Add(name, "Placeholder");
    (*n->mutable_attr())["dtype"].set_type(t);
    return n;
  }
  const GraphDef& def() const { return def_; }
  // Puts node `name` on `device`.
  void Place(const std::string& name, const std::string& device) {
    for (NodeDef& n : *def_.mutable_node()) {
      if (n.name() == name) n.set_device(device);
    }
  }

 private:
  GraphDef def_;
};

// A TF1 while loop, built as tf.while_loop builds it: per loop variable an
// Enter, a Merge (with the NextIteration back edge), a Switch on the
// LoopCond, an Exit, and an Identity that starts the body.
class Loop {
 public:
  Loop(G* g, std::string prefix, int parallel = 10)
      : g_(g), p_(std::move(prefix)), parallel_(parallel) {}

  // Adds a loop variable; returns the name of its value in the condition.
  std::string Var(const std::string& name, const std::string& init,
                  DataType t) {
    vars_.push_back({name, t});
    NodeDef* enter = g_->Add(At(name, "enter"), "Enter", {init}, t);
    (*enter->mutable_attr())["frame_name"].set_s(p_);
    (*enter->mutable_attr())["parallel_iterations"].set_i(parallel_);
    NodeDef* merge = g_->Add(At(name, "merge"), "Merge",
                             {At(name, "enter"), At(name, "next")}, t);
    (*merge->mutable_attr())["N"].set_i(2);
    return At(name, "merge");
  }
  // A loop-invariant value from outside; returns its name inside the loop.
  std::string Invariant(const std::string& name, const std::string& value,
                        DataType t) {
    NodeDef* enter = g_->Add(At(name, "enter"), "Enter", {value}, t);
    (*enter->mutable_attr())["frame_name"].set_s(p_);
    (*enter->mutable_attr())["is_constant"].set_b(true);
    (*enter->mutable_attr())["parallel_iterations"].set_i(parallel_);
    return At(name, "enter");
  }
  // Sets the condition; returns the body's view of each variable by name.
  void Cond(const std::string& pred) {
    g_->Add(p_ + "/LoopCond", "LoopCond", {pred});
    for (const auto& [name, t] : vars_) {
      g_->Add(At(name, "switch"), "Switch",
              {At(name, "merge"), p_ + "/LoopCond"}, t);
      g_->Add(At(name, "exit"), "Exit", {At(name, "switch") + ":0"}, t);
      g_->Add(At(name, "body"), "Identity", {At(name, "switch") + ":1"}, t);
    }
  }
  std::string Body(const std::string& name) const { return At(name, "body"); }
  // A control input that puts a constant into the body's frame.
  std::string Pivot() const { return "^" + At(vars_[0].first, "body"); }
  void Next(const std::string& name, const std::string& value) {
    for (const auto& [n, t] : vars_) {
      if (n == name) g_->Add(At(name, "next"), "NextIteration", {value}, t);
    }
  }
  std::string Exit(const std::string& name) const { return At(name, "exit"); }

 private:
  std::string At(const std::string& var, const std::string& what) const {
    return absl::StrCat(p_, "/", var, "/", what);
  }

  G* g_;
  std::string p_;
  int parallel_;
  std::vector<std::pair<std::string, DataType>> vars_;
};

// i = 0; while (i < limit) i += 1; with limit "limit" in the graph.
inline std::string CounterLoop(G* g, const std::string& prefix, int parallel,
                        const std::string& limit = "limit") {
  Loop loop(g, prefix, parallel);
  g->Const<int32_t>(prefix + "/zero", 0);
  const std::string i = loop.Var("i", prefix + "/zero", DT_INT32);
  const std::string n = loop.Invariant("n", limit, DT_INT32);
  g->Add(prefix + "/less", "Less", {i, n}, DT_INT32);
  loop.Cond(prefix + "/less");
  g->Const<int32_t>(prefix + "/one", 1, {loop.Pivot()});
  g->Add(prefix + "/add", "AddV2", {loop.Body("i"), prefix + "/one"},
         DT_INT32);
  loop.Next("i", prefix + "/add");
  return loop.Exit("i");
}

}  // namespace dfx::testing

#endif  // DFX_TESTS_TESTING_LOOP_GRAPH_H_

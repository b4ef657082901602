// Scope, Output and Operation: the C++ graph builder's naming, device and
// control-dependency context, modelled on TensorFlow's C++ API. Op wrappers
// (graph/builder/ops.h) add nodes to the GraphDef a scope accumulates.
#ifndef DFX_GRAPH_BUILDER_SCOPE_H_
#define DFX_GRAPH_BUILDER_SCOPE_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "graph/types.h"
#include "proto/graph.pb.h"

namespace dfx {

// One output of a node: its name, output index and dtype. A default-built
// Output (or one returned by a wrapper on a failed scope) is not valid().
class Output {
 public:
  Output() = default;
  Output(std::string node_name, int index, DataType dtype)
      : node_name_(std::move(node_name)), index_(index), dtype_(dtype) {}

  bool valid() const { return !node_name_.empty(); }
  const std::string& node_name() const { return node_name_; }
  int index() const { return index_; }
  DataType dtype() const { return dtype_; }
  // The NodeDef input string: "name" for output 0, "name:k" otherwise.
  std::string ToString() const;

 private:
  std::string node_name_;
  int index_ = 0;
  DataType dtype_ = DT_INVALID;
};

// A node, used as a control dependency. Built from any of its Outputs.
class Operation {
 public:
  Operation() = default;
  explicit Operation(std::string node_name)
      : node_name_(std::move(node_name)) {}
  // The node that produces `output`.
  Operation(const Output& output)  // NOLINT: implicit on purpose
      : node_name_(output.node_name()) {}

  bool valid() const { return !node_name_.empty(); }
  const std::string& node_name() const { return node_name_; }

 private:
  std::string node_name_;
};

// A Scope is a cheap handle: copies and derived scopes (WithOpName,
// NewSubScope, ...) share one GraphDef under construction and one status.
// The first error any wrapper reports (a wrong-typed input, an invalid name,
// an Output from another graph) sticks; later wrappers on a failed scope add
// nothing and return invalid Outputs. Not thread-safe: build a graph from
// one thread at a time, as in TensorFlow.
class Scope {
 public:
  // A fresh, empty graph with no name prefix.
  static Scope NewRootScope();

  // The next node built in the returned scope is called `name` (made unique
  // with "_1", "_2", ... when taken) under this scope's prefix.
  Scope WithOpName(absl::string_view name) const;
  // A scope whose nodes are named "<prefix>/<child>/...". A child name used
  // twice becomes "child_1" the second time, as in TensorFlow. An empty
  // child gives this scope back.
  Scope NewSubScope(absl::string_view child) const;
  // Nodes built in the returned scope request `device` (NodeDef.device).
  Scope WithDevice(absl::string_view device) const;
  // Nodes built in the returned scope get a control input ("^node") from each
  // of `deps` in addition to this scope's.
  Scope WithControlDependencies(absl::Span<const Operation> deps) const;
  // Drops the control dependencies this scope adds.
  Scope WithNoControlDependencies() const;

  bool ok() const;
  absl::Status status() const;
  // Records `s` when no error has been recorded yet; OK is ignored.
  void UpdateStatus(const absl::Status& s) const;

  // Copies the GraphDef built so far into `out` and returns the scope's
  // status; `out` is left untouched on error.
  absl::Status ToGraphDef(GraphDef* out) const;

  // For op wrappers. The unique node name for a node whose op is
  // `default_name` (used when no WithOpName is in effect), full prefix
  // included. Every call takes a new name.
  std::string GetUniqueNameForOp(absl::string_view default_name) const;
  // For op wrappers. Adds `node` (name from GetUniqueNameForOp, data inputs
  // set) after adding the scope's device (when the node has none) and its
  // control inputs. Checks the name and that every input names a node of
  // this graph; records and returns InvalidArgument naming the node
  // otherwise. Does nothing and returns the scope's error on a failed scope.
  absl::Status AddNode(NodeDef node) const;

  // For builders that rewire nodes after adding them (control flow: a
  // loop's back edge, values entering a loop or a branch). Nodes are
  // numbered in the order they were added; a node keeps its position.
  int num_nodes() const;
  // REQUIRES: 0 <= position < num_nodes(). Valid until the next node is
  // added or rewired.
  const NodeDef& node(int position) const;
  // Replaces every input of the node at `position` (data inputs, then
  // "^name" control inputs). Checks each as AddNode does; records and
  // returns InvalidArgument naming the node otherwise. Does nothing and
  // returns the scope's error on a failed scope.
  absl::Status SetNodeInputs(int position,
                             const std::vector<std::string>& inputs) const;

  // The prefix nodes of this scope get ("layer1/layer2"), empty at the root.
  const std::string& name_prefix() const;
  // The device nodes of this scope request (WithDevice), empty if none.
  const std::string& device() const;

 private:
  struct Graph;
  struct Impl;
  explicit Scope(std::shared_ptr<const Impl> impl);

  std::shared_ptr<const Impl> impl_;
};

}  // namespace dfx

#endif  // DFX_GRAPH_BUILDER_SCOPE_H_

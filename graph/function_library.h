// FunctionLibrary: the functions of a GraphDef's library (FunctionDefLibrary)
// validated against an op registry, an op registry that knows each function
// as an op (so a graph may call a function by its name), and instantiation of
// a function body for given attrs.
#ifndef DFX_GRAPH_FUNCTION_LIBRARY_H_
#define DFX_GRAPH_FUNCTION_LIBRARY_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "graph/op_registry.h"
#include "graph/types.h"
#include "proto/function.pb.h"
#include "proto/graph.pb.h"
#include "proto/node_def.pb.h"

namespace dfx {

// The attrs a function is instantiated with (a call node's attrs, or the
// `attr` of a NameAttrList such as If's then_branch).
using FunctionAttrs = google::protobuf::Map<std::string, AttrValue>;

// A function body instantiated for concrete attrs, in GraphDef form (as
// TensorFlow's InstantiateFunction writes it):
// - one `_Arg` node per argument tensor (attrs T and index), named after the
//   input arg ("x"; "x_0", "x_1", ... for a list arg);
// - the body's nodes with every attr placeholder ($T) replaced, default
//   attrs added, and inputs in flat form: "node" / "node:3" / "^node";
// - one `_Retval` node per result tensor (attrs T and index), named
//   "<output arg>_RetVal" ("<output arg>_<i>_RetVal" for a list).
// Names are unique within `nodes` ("_<n>" is appended where an arg or ret
// name would collide with a body node).
struct FunctionBody {
  std::string name;
  DataTypeVector arg_types;  // one per _Arg, by index
  DataTypeVector ret_types;  // one per _Retval, by index
  std::vector<NodeDef> nodes;
  // Names (in `nodes`) of the _Arg and _Retval nodes, by index.
  std::vector<std::string> arg_nodes;
  std::vector<std::string> ret_nodes;
  // Body nodes that must run whenever the function runs (control_ret),
  // sorted by name.
  std::vector<std::string> control_ret_nodes;
  bool is_stateful = false;
};

// Immutable after Create; thread-safe.
class FunctionLibrary {
 public:
  // Validates `library` against `ops` (which must outlive the result):
  // - function names: non-empty, not a registered op, no two different
  //   functions of one name (an identical repeat, as a merged library holds,
  //   is kept once);
  // - signatures: arg names unique and well formed, each arg's type given by
  //   exactly one of type / type_attr / type_list_attr, every attr an arg
  //   names declared by the signature with the right kind;
  // - bodies: node names unique and not empty, every op registered or a
  //   function of the library, every input reference resolves (an argument
  //   name, "node:output_arg:index" with an output arg the node's op has and
  //   an index in range when the count is known, "^node"), func attrs name
  //   functions of the library;
  // - ret covers exactly the output args, control_ret exactly the signature's
  //   control outputs, each naming existing outputs / nodes;
  // - no recursion: a function may not reach itself through calls by name or
  //   through func attrs (f, then_branch, else_branch, branches, cond, body,
  //   any other);
  // - gradient defs name functions of the library.
  // Every error is InvalidArgument naming the function (and the node).
  static absl::StatusOr<std::unique_ptr<FunctionLibrary>> Create(
      const FunctionDefLibrary& library, const OpRegistry* ops);

  FunctionLibrary(const FunctionLibrary&) = delete;
  FunctionLibrary& operator=(const FunctionLibrary&) = delete;

  // The ops of the registry given to Create plus one op per function, whose
  // OpDef is the function's signature. Pass it to ImportGraphDef so a graph
  // may call functions by name. Lives as long as this library.
  const OpRegistry* op_registry() const { return &ops_; }
  // The registry given to Create.
  const OpRegistry* base_op_registry() const { return base_; }

  // Null when there is no such function.
  const FunctionDef* Find(absl::string_view name) const;
  bool Contains(absl::string_view name) const { return Find(name) != nullptr; }
  // Sorted names of the functions.
  std::vector<std::string> ListFunctions() const;
  int num_functions() const { return static_cast<int>(functions_.size()); }
  // The gradient function registered for `name` by a GradientDef; empty when
  // none.
  std::string GradientFunction(absl::string_view name) const;

  // Instantiates function `name` with `attrs` (attrs the signature declares
  // and `attrs` lacks take their defaults; attrs the signature does not
  // declare are ignored). NotFound for an unknown function; InvalidArgument
  // naming the function (and node) for a missing attr, an attr of the wrong
  // kind, a placeholder with no value, or a body that does not fit the
  // instantiated types (an output index out of range).
  absl::StatusOr<FunctionBody> Instantiate(absl::string_view name,
                                           const FunctionAttrs& attrs) const;

 private:
  explicit FunctionLibrary(const OpRegistry* ops);

  const OpRegistry* const base_;
  OpRegistry ops_;
  absl::flat_hash_map<std::string, FunctionDef> functions_;
  absl::flat_hash_map<std::string, std::string> gradients_;
};

// The part of `library` that `graph` uses: functions that its nodes call by
// name or name in func attrs, and the functions those reach, with their
// gradient defs. Functions a graph never runs (another model's, or gradient
// bodies built for a training graph that is not this one) are left out, so
// that they are neither validated nor need registered ops.
FunctionDefLibrary ReachableFunctions(const GraphDef& graph);

// The FunctionDef named `name` of a graph with _Arg and _Retval nodes (a
// partition of an instantiated function, to run on another task): the
// signature's inputs "arg<i>" are the _Arg nodes by their "index" attr, its
// outputs "ret<i>" the _Retval nodes by theirs, with their "T" types; every
// other node goes to the body with its data inputs in the function form
// ("node:output_arg:i", an _Arg by its input's name) and a stateful
// signature. Control inputs on an _Arg name its input. Every op must be in
// `ops`. InvalidArgument naming the node for an unknown op, an input that
// names no node or output, and for _Arg or _Retval indices that are not
// 0..n-1 or nodes without a "T" type.
absl::StatusOr<FunctionDef> GraphDefToFunctionDef(const GraphDef& graph,
                                                  const std::string& name,
                                                  const OpRegistry& ops);

}  // namespace dfx

#endif  // DFX_GRAPH_FUNCTION_LIBRARY_H_

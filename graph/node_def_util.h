// Reading a NodeDef's attrs, and what its op signature makes of them: the
// node's input and output types, default attrs, attr validation.
#ifndef DFX_GRAPH_NODE_DEF_UTIL_H_
#define DFX_GRAPH_NODE_DEF_UTIL_H_

#include <cstdint>
#include <string>
#include "absl/strings/string_view.h"
#include <vector>

#include "absl/status/status.h"
#include "graph/types.h"
#include "proto/node_def.pb.h"
#include "proto/op_def.pb.h"

namespace dfx {

// Typed attr getters. NotFound when the attr is missing, InvalidArgument when
// it holds another kind of value; both name the node and the attr.
absl::Status GetNodeAttr(const NodeDef& node, absl::string_view name,
                         int64_t* value);
absl::Status GetNodeAttr(const NodeDef& node, absl::string_view name,
                         int32_t* value);
absl::Status GetNodeAttr(const NodeDef& node, absl::string_view name,
                         float* value);
absl::Status GetNodeAttr(const NodeDef& node, absl::string_view name,
                         bool* value);
absl::Status GetNodeAttr(const NodeDef& node, absl::string_view name,
                         DataType* value);
absl::Status GetNodeAttr(const NodeDef& node, absl::string_view name,
                         std::string* value);
absl::Status GetNodeAttr(const NodeDef& node, absl::string_view name,
                         TensorShapeProto* value);
absl::Status GetNodeAttr(const NodeDef& node, absl::string_view name,
                         TensorProto* value);
absl::Status GetNodeAttr(const NodeDef& node, absl::string_view name,
                         std::vector<int64_t>* value);
absl::Status GetNodeAttr(const NodeDef& node, absl::string_view name,
                         std::vector<int32_t>* value);
absl::Status GetNodeAttr(const NodeDef& node, absl::string_view name,
                         DataTypeVector* value);
absl::Status GetNodeAttr(const NodeDef& node, absl::string_view name,
                         std::vector<std::string>* value);

// Null when the node has no such attr.
const AttrValue* FindNodeAttr(const NodeDef& node, absl::string_view name);

// The value kind an AttrDef type string ("int", "list(type)") expects, as
// printed in errors: "int", "list(type)", ...; and what `value` holds.
std::string AttrValueKind(const AttrValue& value);

// Adds every attr the op declares with a default and the node lacks.
void AddDefaultAttrs(const OpDef& op_def, NodeDef* node);

// Checks the node's attrs against the op: every declared attr present
// (after defaults), of the declared kind, within allowed values and minimums;
// no attr the op does not declare (names starting with '_' are allowed).
// InvalidArgument naming the node and the attr.
absl::Status ValidateNodeAttrs(const NodeDef& node, const OpDef& op_def);

// The node's input and output types from its op's signature and its attrs
// (type attrs, number attrs, type-list attrs). InvalidArgument naming the node
// when an attr it needs is missing or malformed.
absl::Status InOutTypesForNode(const NodeDef& node, const OpDef& op_def,
                               DataTypeVector* inputs,
                               DataTypeVector* outputs);

// The number of tensors that the op's input (or output) arg `arg_index`
// stands for on this node.
absl::Status NumTensorsForArg(const NodeDef& node, const OpDef::ArgDef& arg,
                              int* count);

// Splits an input string: "node" -> (node, 0), "node:3" -> (node, 3),
// "^node" -> (node, -1). InvalidArgument for an empty name or bad index.
struct ParsedInput {
  absl::string_view node;
  int index = 0;  // -1 for a control input
  bool IsControl() const { return index < 0; }
};
absl::Status ParseNodeInput(absl::string_view input, ParsedInput* parsed);

}  // namespace dfx

#endif  // DFX_GRAPH_NODE_DEF_UTIL_H_

// GraphDef <-> Graph: import with full validation, and export back.
#ifndef DFX_GRAPH_GRAPH_DEF_IMPORT_H_
#define DFX_GRAPH_GRAPH_DEF_IMPORT_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/graph.h"
#include "proto/graph.pb.h"

namespace dfx {

struct ImportOptions {
  // Run each op's shape function over the graph (constant inputs included)
  // and reject shapes that cannot fit together.
  bool validate_shapes = true;
  // Also accept node names that start with '_' (TensorFlow's internal names,
  // as in partitions a master hands to workers). Off: a name must match
  // [A-Za-z0-9.][A-Za-z0-9_./>-]*.
  bool allow_internal_names = false;
};

// An op type that a GraphDef uses and a registry lacks, with the nodes that
// use it (in GraphDef order).
struct MissingOp {
  std::string op;
  std::vector<std::string> nodes;
};

// Every op type of `def`'s nodes that `ops` does not register, sorted by op
// name. Empty when all are registered. (Function bodies are not scanned.)
std::vector<MissingOp> FindMissingOps(const GraphDef& def,
                                      const OpRegistry& ops);

// "Op types not registered: 'Conv2D' (node 'conv1' and 2 more), 'MaxPool'
// (node 'pool')" for the result of FindMissingOps.
std::string MissingOpsMessage(const std::vector<MissingOp>& missing);

// Builds a Graph from `def`; nodes may come in any order (an input may name a
// later node) and get ids in GraphDef order. Attrs the op declares with a
// default are added to each node. Versions and library are kept as they are.
// Every error is InvalidArgument naming the node and the problem: unknown ops
// (all of them at once, as MissingOpsMessage),
// duplicate node name, empty or malformed name, malformed input string, input
// naming a missing node or a missing output index, control input before a
// data input, wrong number of data inputs, missing required attr, attr of the
// wrong kind, not in the allowed list, below its minimum or not declared by
// the op (names starting with '_' are free), dtype mismatch on an edge (a ref
// output may feed a non-ref input of its base type), cycle (the message
// gives the cycle's path; NextIteration -> Merge edges are loop back edges,
// not cycles), and, with validate_shapes, a shape function's error.
// `ops` must outlive the returned graph.
absl::StatusOr<std::unique_ptr<Graph>> ImportGraphDef(
    const GraphDef& def, const OpRegistry* ops,
    const ImportOptions& options = {});
// The same, moving the nodes, versions and library out of `def` instead of
// copying them (a 100,000-node graph imports in about half the time); `def`
// is left valid but unspecified.
absl::StatusOr<std::unique_ptr<Graph>> ImportGraphDef(
    GraphDef&& def, const OpRegistry* ops, const ImportOptions& options = {});

// Writes the graph back: nodes in id order, data inputs in input order
// ("node" for output 0, "node:k" otherwise), then control inputs ("^node").
// Import then export is lossless for a valid GraphDef up to added default
// attrs.
GraphDef ToGraphDef(const Graph& graph);

// Parses a GraphDef from a file: binary protobuf, or text format when the
// name ends in ".pbtxt" or ".txt" (or binary parsing fails). Fields dfx does
// not declare (TensorFlow's experimental_type, debug_info) are kept as unknown
// fields from binary and skipped in text. NotFound for a missing file,
// PermissionDenied for an unreadable one, InvalidArgument naming the file for
// a directory or unparsable content (for text, with the parser's line and
// column). Never crashes on arbitrary bytes.
absl::StatusOr<GraphDef> ReadGraphDefFile(const std::string& path);

}  // namespace dfx

#endif  // DFX_GRAPH_GRAPH_DEF_IMPORT_H_

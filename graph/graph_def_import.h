// GraphDef <-> Graph: import with full validation, and export back.
#ifndef DFX_GRAPH_GRAPH_DEF_IMPORT_H_
#define DFX_GRAPH_GRAPH_DEF_IMPORT_H_

#include <memory>

#include "absl/status/statusor.h"
#include "graph/graph.h"
#include "proto/graph.pb.h"

namespace dfx {

struct ImportOptions {
  // Run each op's shape function over the graph (constant inputs included)
  // and reject shapes that cannot fit together.
  bool validate_shapes = true;
};

// Builds a Graph from `def`. Every error is InvalidArgument naming the node
// and the problem: unknown op, duplicate node name, empty or malformed name,
// input naming a missing node or a missing output index, control input
// before a data input, wrong number of inputs, missing required attr, attr of
// the wrong kind or not in the allowed list or below its minimum, dtype
// mismatch on an edge, cycle, incompatible shapes.
absl::StatusOr<std::unique_ptr<Graph>> ImportGraphDef(
    const GraphDef& def, const OpRegistry* ops,
    const ImportOptions& options = {});

// Writes the graph back: nodes in id order, data inputs in input order
// ("node" for output 0, "node:k" otherwise), then control inputs ("^node").
// Import then export is lossless for a valid GraphDef up to added default
// attrs.
GraphDef ToGraphDef(const Graph& graph);

// Parses a GraphDef from a file: binary protobuf, or text format when the
// name ends in ".pbtxt" or ".txt" (or binary parsing fails). NotFound for a
// missing file, InvalidArgument naming the file for unparsable content.
absl::StatusOr<GraphDef> ReadGraphDefFile(const std::string& path);

}  // namespace dfx

#endif  // DFX_GRAPH_GRAPH_DEF_IMPORT_H_

// InsertDebugWatches: the tfdbg watch ops TensorFlow's DebugNodeInserter
// adds to a partition for a run's RunOptions.debug_options.
#ifndef DFX_GRAPH_DEBUG_WATCHES_H_
#define DFX_GRAPH_DEBUG_WATCHES_H_

#include "absl/status/status.h"
#include "graph/op_registry.h"
#include "proto/debug.pb.h"
#include "proto/graph.pb.h"

namespace dfx {

// For every watched tensor (DebugTensorWatch node_name:output_slot, with
// debug ops) produced by a node of `def`, adds on that node's device
//   __copy_<node>_<slot>             Copy of the tensor, debug_ops_spec
//                                    "<op>;<url>;<gated 0|1>" per op and URL
//   __dbg_<node>:<slot>_<i>_<op>     one node per debug op, reading the copy,
//                                    with device_name (the node's device),
//                                    tensor_name "<node>:<slot>" and
//                                    debug_urls; "Op(attr=value; ...)"
//                                    sets the op's string, float, int and
//                                    bool attrs
// then makes the tensor's consumers read the copy (unless the tensor is a
// reference) and wait for the debug nodes (unless the producer is an
// Enter or NextIteration), as TensorFlow does: tfdbg's reader checks that
// a node's inputs were dumped before it. The debug nodes' names hold a
// ':' (tfdbg's reader parses them); the importer and ParseNodeInput
// accept that in "__dbg_" names, which only control inputs name. Watches of
// nodes not in `def`, of slots the node does not have, and with output_slot < 0
// or no debug ops are skipped. A debug op that cannot be made (an unknown op, a
// malformed name or attr) is FailedPrecondition naming the tensor, unless
// the watch tolerates debug op creation failures (then it is left out);
// InvalidArgument when the watched node's op or types cannot be resolved.
absl::Status InsertDebugWatches(const DebugOptions& options,
                                const OpRegistry& ops, GraphDef* def);

}  // namespace dfx

#endif  // DFX_GRAPH_DEBUG_WATCHES_H_

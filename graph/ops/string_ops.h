// Shape functions of the string ops (graph/ops/string_ops.cc) that the
// text family's ops (graph/ops/text_ops.cc) share.
#ifndef DFX_GRAPH_OPS_STRING_OPS_H_
#define DFX_GRAPH_OPS_STRING_OPS_H_

#include "absl/status/status.h"
#include "graph/shape_inference.h"

namespace dfx {

// StringSplit and StringSplitV2: a vector of strings and a scalar separator
// give a sparse tensor of rank 2.
absl::Status StringSplitShapeFn(InferenceContext* c);

}  // namespace dfx

#endif  // DFX_GRAPH_OPS_STRING_OPS_H_

// Registration of the ragged2 family's ops (graph/ops/ragged2_ops.cc):
// SparseBincount, RaggedBincount, the *CountSparseOutput ops, SparseCrossV2
// and SparseCrossHashed.
#ifndef DFX_GRAPH_OPS_RAGGED2_OPS_H_
#define DFX_GRAPH_OPS_RAGGED2_OPS_H_

#include "absl/status/status.h"
#include "graph/op_registry.h"

namespace dfx {

absl::Status RegisterRagged2Ops(OpRegistry* registry);

}  // namespace dfx

#endif  // DFX_GRAPH_OPS_RAGGED2_OPS_H_

// The GraphDef of a dataset's pipeline, as DatasetToGraphV2 writes it
// (kernels/data/dataset6_kernels.cc), for the kernels that send a dataset
// elsewhere (RegisterDataset).
#ifndef DFX_KERNELS_DATA_DATASET_GRAPH_H_
#define DFX_KERNELS_DATA_DATASET_GRAPH_H_

#include <cstdint>

#include "absl/status/status.h"
#include "kernels/data/dataset.h"
#include "proto/function.pb.h"
#include "proto/graph.pb.h"

namespace dfx::data {

// Writes `dataset`'s pipeline into `*out`: each dataset's node after its
// inputs, a `_Retval` "dataset", and the functions of `library` (may be
// null) the nodes reach. `external_state_policy` is TensorFlow's (2, FAIL:
// a stateful op in the functions is FailedPrecondition). FailedPrecondition
// for a dataset dfx keeps no node record of, NotFound for a function
// missing from `library`.
absl::Status WriteDatasetGraph(const DatasetBase& dataset,
                               const FunctionDefLibrary* library,
                               int64_t external_state_policy,
                               bool strip_device_assignment, GraphDef* out);

}  // namespace dfx::data

#endif  // DFX_KERNELS_DATA_DATASET_GRAPH_H_

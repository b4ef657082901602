// `dfx data-service dispatcher|worker`: a tf.data service of dfx's own that
// speaks TensorFlow's protocol (/tensorflow.data.DispatcherService and
// /tensorflow.data.WorkerService), so that TensorFlow's Python client
// (tf.data.experimental.service.distribute, register_dataset,
// from_dataset_id) and dfx's DataServiceDataset read from it.
//
// The dispatcher keeps a DispatcherState (data_service_state.h) and ages
// its workers and clients once a second. A worker heartbeats the
// dispatcher, runs each task's dataset graph in a local session
// (DatasetFromGraph, an iterator) and answers GetElement with the next
// element: a CompressedElement (snappy) when the registered pipeline ends
// in CompressElement (TensorFlow's client adds it for compression AUTO),
// the components as TensorProtos otherwise. A worker holds at most one
// element per task (it makes the element when asked), so its memory does
// not grow with a slow reader. A DYNAMIC (distributed_epoch) task's
// pipeline reads the splits its worker asks the dispatcher for (GetSplit;
// kernels/data/split_provider.h). With --work-dir the dispatcher journals
// its state there and replays it when started again.
#ifndef DFX_TOOLS_CLI_DATA_SERVICE_H_
#define DFX_TOOLS_CLI_DATA_SERVICE_H_

#include <ostream>
#include <string>
#include <vector>

namespace dfx::cli {

int DataServiceMain(const std::vector<std::string>& args, std::ostream& out,
                    std::ostream& err);

}  // namespace dfx::cli

#endif  // DFX_TOOLS_CLI_DATA_SERVICE_H_

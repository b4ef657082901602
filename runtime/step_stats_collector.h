// StepStatsCollector: gathers per-node execution statistics of one step,
// per device, into a StepStats proto; and NodeExecStatsRecorder, which times
// one node.
#ifndef DFX_RUNTIME_STEP_STATS_COLLECTOR_H_
#define DFX_RUNTIME_STEP_STATS_COLLECTOR_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "proto/step_stats.pb.h"

namespace dfx {

class Node;

// Thread-safe: executors of several devices save into one collector.
class StepStatsCollector {
 public:
  StepStatsCollector() = default;
  StepStatsCollector(const StepStatsCollector&) = delete;
  StepStatsCollector& operator=(const StepStatsCollector&) = delete;

  // Adds one node's statistics under `device`.
  void Save(absl::string_view device, NodeExecStats stats);

  // Moves everything saved so far into `out`, appending one DeviceStepStats
  // per device (devices in name order, nodes in the order saved); the
  // collector is empty afterwards.
  void Finalize(StepStats* out);

 private:
  absl::Mutex mu_;
  std::map<std::string, std::vector<NodeExecStats>, std::less<>> by_device_
      ABSL_GUARDED_BY(mu_);
};

// Times one node's execution. Not thread-safe; an async node hands it from
// the starting thread to the completing one.
class NodeExecStatsRecorder {
 public:
  // Records the scheduling time and the start: node_name, all_start_*,
  // timeline_label "name = Op(input, input:1, ^ctrl)", thread_id.
  explicit NodeExecStatsRecorder(const Node& node);

  void RecordComputeStarted();
  void RecordComputeEnded();
  // Records all_end_* and hands the statistics to `collector`.
  void Done(StepStatsCollector* collector, absl::string_view device);

 private:
  NodeExecStats stats_;
  int64_t start_nanos_;
};

// Nanoseconds since the epoch, from the system clock.
int64_t NowNanos();

// A small, stable id of the calling thread (1, 2, ...).
uint32_t CurrentThreadIdForStats();

}  // namespace dfx

#endif  // DFX_RUNTIME_STEP_STATS_COLLECTOR_H_

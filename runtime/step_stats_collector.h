// StepStatsCollector: gathers per-node execution statistics of one step,
// per device, into a StepStats proto; NodeExecStatsRecorder, which times
// one node; the RecvTensor transfer records (TensorFlow's WorkerCacheLogger
// form) and the registry through which a fetch finds its step's collector;
// and the clock alignment the master applies when it merges the statistics
// of several tasks.
#ifndef DFX_RUNTIME_STEP_STATS_COLLECTOR_H_
#define DFX_RUNTIME_STEP_STATS_COLLECTOR_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "proto/step_stats.pb.h"

namespace dfx {

class Node;
class OpKernelContext;

// Thread-safe: executors of several devices save into one collector.
class StepStatsCollector {
 public:
  StepStatsCollector() = default;
  StepStatsCollector(const StepStatsCollector&) = delete;
  StepStatsCollector& operator=(const StepStatsCollector&) = delete;

  // Adds one node's statistics under `device`. After Finalize, dropped.
  void Save(absl::string_view device, NodeExecStats stats);

  // Moves everything saved so far into `out`, appending one DeviceStepStats
  // per device (devices in name order, nodes in the order saved); the
  // collector is empty and takes nothing more afterwards.
  void Finalize(StepStats* out);

 private:
  absl::Mutex mu_;
  bool finalized_ ABSL_GUARDED_BY(mu_) = false;
  std::map<std::string, std::vector<NodeExecStats>, std::less<>> by_device_
      ABSL_GUARDED_BY(mu_);
};

// Times one node's execution. Not thread-safe; an async node hands it from
// the starting thread to the completing one.
class NodeExecStatsRecorder {
 public:
  // Records the scheduling time and the start: node_name, all_start_*,
  // thread_id, and timeline_label as TensorFlow writes it:
  // "name = Op(input, input:1, ^ctrl)" with the NodeDef's inputs, and
  // "name = _Send(tensor_name @recv_device)" / "name = _Recv(tensor_name
  // @send_device)" for the transfer ops.
  explicit NodeExecStatsRecorder(const Node& node);

  void RecordComputeStarted();
  void RecordComputeEnded();
  // One NodeOutput per produced output (dtype, shape, and the allocation:
  // requested_bytes, allocator_name, ptr), as TensorFlow's executor
  // records them; nothing for a dead node or an unset output.
  void RecordOutputs(OpKernelContext* ctx);
  // Records all_end_* and hands the statistics to `collector`.
  void Done(StepStatsCollector* collector, absl::string_view device);

 private:
  NodeExecStats stats_;
  int64_t start_nanos_;
};

// Nanoseconds since the epoch, from the system clock, plus the test-only
// offset DFX_TEST_CLOCK_OFFSET_US (microseconds, may be negative; read once
// per process) that tests use to give one task of a cluster a skewed clock.
int64_t NowNanos();

// A small, stable id of the calling thread (1, 2, ...).
uint32_t CurrentThreadIdForStats();

// The node name TensorFlow's WorkerCacheLogger gives a transfer record.
inline constexpr absl::string_view kRecvTensorNodeName = "RecvTensor";

// One RecvTensor transfer as TensorFlow's WorkerCacheLogger records it:
// node_name "RecvTensor", all_start_micros `start_micros`, op_end_rel and
// all_end_rel the duration, timeline_label "[<bytes>B] [<rate>Mb/s]
// <tensor> from <src_device> to <dst_device>" (MB and Gb/s for large ones),
// one output with allocation_description.requested_bytes = `bytes`. The
// nanosecond fields are filled as well (TensorFlow leaves them zero).
NodeExecStats RecvTensorStats(int64_t start_nanos, int64_t end_nanos,
                              absl::string_view tensor_name,
                              absl::string_view src_device,
                              absl::string_view dst_device, int64_t bytes);

// Where a RecvTensor fetch of a traced step finds the collector of that
// step. Process-wide: workers register the collectors of their traced steps,
// the fetcher looks them up. While no traced step runs, Active() is false
// and a fetch pays one relaxed atomic load.
class TracedSteps {
 public:
  static bool Active() {
    return active_.load(std::memory_order_relaxed) != 0;
  }
  // `task` is the registering worker's task ("/job:w/replica:0/task:1").
  static void Register(int64_t step_id, absl::string_view task,
                       std::shared_ptr<StepStatsCollector> collector);
  // Removes one registration of `collector` under `step_id`.
  static void Unregister(int64_t step_id, const StepStatsCollector* collector);
  // A collector registered for `step_id`, preferring one of `task`; null
  // when there is none.
  static std::shared_ptr<StepStatsCollector> Find(int64_t step_id,
                                                  absl::string_view task);

 private:
  static std::atomic<int64_t> active_;
};

// Clock alignment. Every task stamps its statistics with its own clock; the
// master moves them onto its own. For one RunGraph call the master knows
// when it sent the request (t0) and got the answer (t3), on its clock; every
// time the worker recorded for that call lies between its receipt of the
// request (t1) and its answer (t2), on the worker's clock. With the worker's
// clock ahead of the master's by theta, t0 <= t1 - theta and
// t2 - theta <= t3, so theta lies in [latest - t3, earliest - t0], where
// earliest/latest are the first and last recorded times. Each call narrows
// that interval; its midpoint is NTP's estimate (t1 - t0 + t2 - t3) / 2 with
// the recorded extremes standing in for t1 and t2, and its half-width bounds
// the error. Shifting by it also keeps every worker time inside the
// master's window of the call.
struct ClockBounds {
  // Feasible offsets (worker minus master, nanoseconds); lo > hi when no
  // call constrained them or the calls contradict each other.
  int64_t lo = INT64_MIN;
  int64_t hi = INT64_MAX;
  int calls = 0;
  // Sum of every call's midpoint, for the contradictory case.
  double midpoint_sum = 0;

  // Adds one call: sent at `t0`, answered at `t3` (master's clock), with
  // the worker statistics `stats` (nothing to learn when they are empty).
  void AddCall(int64_t t0, int64_t t3, const StepStats& stats);
  // The offset to subtract from the worker's times: the middle of the
  // feasible interval, or the mean of the calls' midpoints when the calls
  // contradict each other; 0 without any call.
  int64_t Offset() const;
};

// One RunGraph call of a traced step.
struct TracedCall {
  std::string task;            // "/job:w/replica:0/task:1"
  int64_t sent_nanos = 0;      // the master's clock
  int64_t answered_nanos = 0;  // the master's clock
  const StepStats* stats = nullptr;  // the worker's, on its clock
};

// Per task, the offset to subtract from its times (task clock minus the
// master's): ClockBounds' midpoint over the task's calls, then moved inside
// each task's feasible interval until every _Recv ends no earlier than the
// _Send of its tensor (by the tensor name of their timeline labels, in time
// order for loops) started on another task, as far as the intervals allow.
// The round trips alone leave an error of up to half the RTT not spent
// working, enough for a short transfer on a loaded host to seem to arrive
// before it left; the true offsets satisfy both kinds of constraint.
std::map<std::string, int64_t> EstimateClockOffsets(
    const std::vector<TracedCall>& calls);

// Merges every call's statistics into `into` on the master's clock
// (EstimateClockOffsets, ShiftStepStats, MergeStepStats).
void MergeTracedCalls(const std::vector<TracedCall>& calls,
                      bool with_transfers, StepStats* into);

// Subtracts `offset_nanos` from every absolute time in `stats`
// (all_start_*, scheduled_* where set).
void ShiftStepStats(int64_t offset_nanos, StepStats* stats);

// Appends `from`'s nodes to `into`, merging devices by name (a device new to
// `into` is appended). Without `with_transfers`, RecvTensor records are
// left out.
void MergeStepStats(const StepStats& from, bool with_transfers,
                    StepStats* into);

}  // namespace dfx

#endif  // DFX_RUNTIME_STEP_STATS_COLLECTOR_H_

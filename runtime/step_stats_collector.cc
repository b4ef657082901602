#include "runtime/step_stats_collector.h"

#include <atomic>
#include <chrono>
#include <utility>

#include "absl/strings/str_cat.h"
#include "graph/graph.h"

namespace dfx {

int64_t NowNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

uint32_t CurrentThreadIdForStats() {
  static std::atomic<uint32_t> next{1};
  thread_local uint32_t id = next.fetch_add(1, std::memory_order_relaxed);
  return id;
}

void StepStatsCollector::Save(absl::string_view device, NodeExecStats stats) {
  absl::MutexLock lock(&mu_);
  auto it = by_device_.find(device);
  if (it == by_device_.end()) {
    it = by_device_.emplace(std::string(device), std::vector<NodeExecStats>())
             .first;
  }
  it->second.push_back(std::move(stats));
}

void StepStatsCollector::Finalize(StepStats* out) {
  absl::MutexLock lock(&mu_);
  for (auto& [device, nodes] : by_device_) {
    DeviceStepStats* dev = out->add_dev_stats();
    dev->set_device(device);
    for (NodeExecStats& n : nodes) {
      dev->mutable_thread_names()->insert(
          {n.thread_id(), absl::StrCat("thread ", n.thread_id())});
      *dev->add_node_stats() = std::move(n);
    }
  }
  by_device_.clear();
}

namespace {

std::string TimelineLabel(const Node& node) {
  std::vector<const Edge*> data(node.num_inputs(), nullptr);
  std::vector<const Edge*> control;
  for (const Edge* e : node.in_edges()) {
    if (e->IsControlEdge()) {
      control.push_back(e);
    } else if (e->dst_input >= 0 && e->dst_input < node.num_inputs()) {
      data[e->dst_input] = e;
    }
  }
  std::string label = absl::StrCat(node.name(), " = ", node.type_string(), "(");
  bool first = true;
  auto add = [&](absl::string_view s) {
    if (!first) absl::StrAppend(&label, ", ");
    absl::StrAppend(&label, s);
    first = false;
  };
  for (const Edge* e : data) {
    if (e == nullptr) continue;
    add(e->src_output == 0 ? e->src->name()
                           : absl::StrCat(e->src->name(), ":", e->src_output));
  }
  for (const Edge* e : control) add(absl::StrCat("^", e->src->name()));
  absl::StrAppend(&label, ")");
  return label;
}

}  // namespace

NodeExecStatsRecorder::NodeExecStatsRecorder(const Node& node)
    : start_nanos_(NowNanos()) {
  stats_.set_node_name(node.name());
  stats_.set_all_start_micros(start_nanos_ / 1000);
  stats_.set_all_start_nanos(start_nanos_);
  stats_.set_scheduled_micros(start_nanos_ / 1000);
  stats_.set_scheduled_nanos(start_nanos_);
  stats_.set_timeline_label(TimelineLabel(node));
  stats_.set_thread_id(CurrentThreadIdForStats());
}

void NodeExecStatsRecorder::RecordComputeStarted() {
  const int64_t rel = NowNanos() - start_nanos_;
  stats_.set_op_start_rel_nanos(rel);
  stats_.set_op_start_rel_micros(rel / 1000);
}

void NodeExecStatsRecorder::RecordComputeEnded() {
  const int64_t rel = NowNanos() - start_nanos_;
  stats_.set_op_end_rel_nanos(rel);
  stats_.set_op_end_rel_micros(rel / 1000);
}

void NodeExecStatsRecorder::Done(StepStatsCollector* collector,
                                 absl::string_view device) {
  const int64_t rel = NowNanos() - start_nanos_;
  stats_.set_all_end_rel_nanos(rel);
  stats_.set_all_end_rel_micros(rel / 1000);
  collector->Save(device, std::move(stats_));
}

}  // namespace dfx

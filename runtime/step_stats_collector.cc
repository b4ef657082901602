#include "runtime/step_stats_collector.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <limits>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "graph/graph.h"
#include "graph/node_def_util.h"
#include "graph/partition.h"
#include "runtime/op_kernel.h"

namespace dfx {

namespace {

int64_t TestClockOffsetNanos() {
  static const int64_t offset = [] {
    const char* v = std::getenv("DFX_TEST_CLOCK_OFFSET_US");
    int64_t us = 0;
    if (v == nullptr || !absl::SimpleAtoi(v, &us)) return int64_t{0};
    return us * 1000;
  }();
  return offset;
}

}  // namespace

int64_t NowNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
             .count() +
         TestClockOffsetNanos();
}

uint32_t CurrentThreadIdForStats() {
  static std::atomic<uint32_t> next{1};
  thread_local uint32_t id = next.fetch_add(1, std::memory_order_relaxed);
  return id;
}

void StepStatsCollector::Save(absl::string_view device, NodeExecStats stats) {
  absl::MutexLock lock(&mu_);
  if (finalized_) return;
  auto it = by_device_.find(device);
  if (it == by_device_.end()) {
    it = by_device_.emplace(std::string(device), std::vector<NodeExecStats>())
             .first;
  }
  it->second.push_back(std::move(stats));
}

void StepStatsCollector::Finalize(StepStats* out) {
  absl::MutexLock lock(&mu_);
  finalized_ = true;
  for (auto& [device, nodes] : by_device_) {
    DeviceStepStats* dev = out->add_dev_stats();
    dev->set_device(device);
    for (NodeExecStats& n : nodes) {
      if (n.thread_id() != 0) {
        dev->mutable_thread_names()->insert(
            {n.thread_id(), absl::StrCat("thread ", n.thread_id())});
      }
      *dev->add_node_stats() = std::move(n);
    }
  }
  by_device_.clear();
}

namespace {

std::string StringAttrOrEmpty(const NodeDef& def, absl::string_view name) {
  const AttrValue* v = FindNodeAttr(def, name);
  return v == nullptr ? std::string() : v->s();
}

// TensorFlow's NodeExecStatsWrapper::Done label (without its memory prefix:
// dfx tracks no per-node allocations).
std::string TimelineLabel(const Node& node) {
  const NodeDef& def = node.def();
  if (IsSendOp(def.op())) {
    return absl::StrCat(def.name(), " = ", def.op(), "(",
                        StringAttrOrEmpty(def, "tensor_name"), " @",
                        StringAttrOrEmpty(def, "recv_device"), ")");
  }
  if (IsRecvOp(def.op())) {
    return absl::StrCat(def.name(), " = ", def.op(), "(",
                        StringAttrOrEmpty(def, "tensor_name"), " @",
                        StringAttrOrEmpty(def, "send_device"), ")");
  }
  return absl::StrCat(def.name(), " = ", def.op(), "(",
                      absl::StrJoin(def.input(), ", "), ")");
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

void NodeExecStatsRecorder::RecordOutputs(OpKernelContext* ctx) {
  if (ctx->is_output_dead() || !ctx->status().ok()) return;
  const absl::InlinedVector<Tensor, 4>& outputs = *ctx->mutable_outputs();
  const Allocator* allocator =
      ctx->device() != nullptr ? ctx->device()->GetAllocator() : nullptr;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& t = outputs[i];
    if (!t.IsInitialized()) continue;
    NodeOutput* out = stats_.add_output();
    out->set_slot(static_cast<int32_t>(i));
    TensorDescription* desc = out->mutable_tensor_description();
    desc->set_dtype(t.dtype());
    t.shape().AsProto(desc->mutable_shape());
    if (t.raw_data() != nullptr) {
      AllocationDescription* alloc = desc->mutable_allocation_description();
      alloc->set_requested_bytes(static_cast<int64_t>(t.TotalBytes()));
      if (allocator != nullptr) alloc->set_allocator_name(allocator->Name());
      alloc->set_ptr(reinterpret_cast<uintptr_t>(t.raw_data()));
    }
  }
}

void NodeExecStatsRecorder::Done(StepStatsCollector* collector,
                                 absl::string_view device) {
  const int64_t rel = NowNanos() - start_nanos_;
  stats_.set_all_end_rel_nanos(rel);
  stats_.set_all_end_rel_micros(rel / 1000);
  collector->Save(device, std::move(stats_));
}

NodeExecStats RecvTensorStats(int64_t start_nanos, int64_t end_nanos,
                              absl::string_view tensor_name,
                              absl::string_view src_device,
                              absl::string_view dst_device, int64_t bytes) {
  NodeExecStats ns;
  ns.set_node_name(std::string(kRecvTensorNodeName));
  const int64_t start_us = start_nanos / 1000;
  const int64_t elapsed_us = end_nanos / 1000 - start_us;
  std::string byte_string = absl::StrCat("[", bytes, "B] ");
  if (bytes >= 0.1 * 1048576.0) {
    byte_string = absl::StrFormat("[%.1fMB] ", bytes / 1048576.0);
  }
  // TensorFlow divides by the elapsed microseconds as they are (a zero
  // gives "inf"); one is the least a measured transfer took.
  const float mbs_rate = (8.0f * static_cast<float>(bytes)) /
                         static_cast<float>(std::max<int64_t>(elapsed_us, 1));
  const std::string rate_string =
      mbs_rate >= 1000.0f ? absl::StrFormat("[%.1fGb/s] ", mbs_rate / 1000.0)
                          : absl::StrFormat("[%fMb/s] ", mbs_rate);
  ns.set_timeline_label(absl::StrCat(byte_string, rate_string, tensor_name,
                                     " from ", src_device, " to ",
                                     dst_device));
  ns.set_all_start_micros(start_us);
  ns.set_all_start_nanos(start_nanos);
  ns.set_op_start_rel_micros(0);
  ns.set_op_end_rel_micros(elapsed_us);
  ns.set_all_end_rel_micros(elapsed_us);
  ns.set_op_end_rel_nanos(end_nanos - start_nanos);
  ns.set_all_end_rel_nanos(end_nanos - start_nanos);
  NodeOutput* out = ns.add_output();
  out->set_slot(0);
  out->mutable_tensor_description()
      ->mutable_allocation_description()
      ->set_requested_bytes(bytes);
  return ns;
}

// --- TracedSteps --------------------------------------------------------

std::atomic<int64_t> TracedSteps::active_{0};

namespace {

struct Registration {
  std::string task;
  std::shared_ptr<StepStatsCollector> collector;
};

absl::Mutex& RegistryMu() {
  static absl::Mutex* mu = new absl::Mutex;
  return *mu;
}

absl::flat_hash_map<int64_t, std::vector<Registration>>& Registry()
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(RegistryMu()) {
  static auto* map =
      new absl::flat_hash_map<int64_t, std::vector<Registration>>;
  return *map;
}

}  // namespace

void TracedSteps::Register(int64_t step_id, absl::string_view task,
                           std::shared_ptr<StepStatsCollector> collector) {
  absl::MutexLock lock(&RegistryMu());
  Registry()[step_id].push_back({std::string(task), std::move(collector)});
  active_.fetch_add(1, std::memory_order_relaxed);
}

void TracedSteps::Unregister(int64_t step_id,
                             const StepStatsCollector* collector) {
  absl::MutexLock lock(&RegistryMu());
  auto it = Registry().find(step_id);
  if (it == Registry().end()) return;
  std::vector<Registration>& regs = it->second;
  for (auto r = regs.begin(); r != regs.end(); ++r) {
    if (r->collector.get() == collector) {
      regs.erase(r);
      active_.fetch_sub(1, std::memory_order_relaxed);
      break;
    }
  }
  if (regs.empty()) Registry().erase(it);
}

std::shared_ptr<StepStatsCollector> TracedSteps::Find(int64_t step_id,
                                                      absl::string_view task) {
  absl::MutexLock lock(&RegistryMu());
  auto it = Registry().find(step_id);
  if (it == Registry().end() || it->second.empty()) return nullptr;
  for (const Registration& r : it->second) {
    if (r.task == task) return r.collector;
  }
  return it->second.front().collector;
}

// --- Clock alignment ----------------------------------------------------

void ClockBounds::AddCall(int64_t t0, int64_t t3, const StepStats& stats) {
  int64_t earliest = std::numeric_limits<int64_t>::max();
  int64_t latest = std::numeric_limits<int64_t>::min();
  for (const DeviceStepStats& dev : stats.dev_stats()) {
    for (const NodeExecStats& n : dev.node_stats()) {
      const int64_t start = n.all_start_nanos() != 0
                                ? n.all_start_nanos()
                                : n.all_start_micros() * 1000;
      const int64_t end = start + std::max(n.all_end_rel_nanos(),
                                           n.all_end_rel_micros() * 1000);
      earliest = std::min(earliest, start);
      latest = std::max(latest, end);
    }
  }
  if (earliest > latest) return;  // nothing recorded
  const int64_t call_lo = latest - t3;
  const int64_t call_hi = earliest - t0;
  lo = std::max(lo, call_lo);
  hi = std::min(hi, call_hi);
  midpoint_sum += (static_cast<double>(call_lo) + call_hi) / 2;
  ++calls;
}

int64_t ClockBounds::Offset() const {
  if (calls == 0) return 0;
  if (lo <= hi) return lo + (hi - lo) / 2;
  return static_cast<int64_t>(midpoint_sum / calls);
}

namespace {

// The tensor name of a _Send/_Recv label "n = _Send(tensor @device)"; empty
// for other labels. `send` tells which of the two it is.
absl::string_view TransferTensor(absl::string_view label, bool* send) {
  const size_t eq = label.find(" = ");
  if (eq == absl::string_view::npos) return {};
  absl::string_view rest = label.substr(eq + 3);
  const size_t open = rest.find('(');
  if (open == absl::string_view::npos) return {};
  absl::string_view op = rest.substr(0, open);
  if (IsSendOp(op)) {
    *send = true;
  } else if (IsRecvOp(op)) {
    *send = false;
  } else {
    return {};
  }
  absl::string_view args = rest.substr(open + 1);
  const size_t at = args.find(" @");
  if (at == absl::string_view::npos) return {};
  return args.substr(0, at);
}

struct Causal {
  std::string sender;    // task
  std::string receiver;  // task
  // offset(receiver) - offset(sender) <= slack
  int64_t slack;
};

}  // namespace

std::map<std::string, int64_t> EstimateClockOffsets(
    const std::vector<TracedCall>& calls) {
  std::map<std::string, ClockBounds> bounds;
  for (const TracedCall& c : calls) {
    if (c.stats == nullptr) continue;
    bounds[c.task].AddCall(c.sent_nanos, c.answered_nanos, *c.stats);
  }
  std::map<std::string, int64_t> offset, lo, hi;
  for (const auto& [task, b] : bounds) {
    offset[task] = b.Offset();
    const bool feasible = b.calls > 0 && b.lo <= b.hi;
    lo[task] = feasible ? b.lo : offset[task];
    hi[task] = feasible ? b.hi : offset[task];
  }

  // Every _Send start and _Recv end per tensor, each on its task's clock.
  struct Event {
    int64_t time;
    const std::string* task;
  };
  std::map<std::string, std::vector<Event>, std::less<>> sends, recvs;
  for (const TracedCall& c : calls) {
    if (c.stats == nullptr) continue;
    for (const DeviceStepStats& dev : c.stats->dev_stats()) {
      for (const NodeExecStats& n : dev.node_stats()) {
        bool send = false;
        absl::string_view tensor = TransferTensor(n.timeline_label(), &send);
        if (tensor.empty()) continue;
        const int64_t start = n.all_start_nanos() != 0
                                  ? n.all_start_nanos()
                                  : n.all_start_micros() * 1000;
        if (send) {
          sends[std::string(tensor)].push_back({start, &c.task});
        } else {
          const int64_t end = start + std::max(n.all_end_rel_nanos(),
                                               n.all_end_rel_micros() * 1000);
          recvs[std::string(tensor)].push_back({end, &c.task});
        }
      }
    }
  }
  std::vector<Causal> constraints;
  auto by_time = [](const Event& a, const Event& b) { return a.time < b.time; };
  for (auto& [tensor, ss] : sends) {
    auto it = recvs.find(tensor);
    if (it == recvs.end()) continue;
    std::vector<Event>& rs = it->second;
    std::sort(ss.begin(), ss.end(), by_time);
    std::sort(rs.begin(), rs.end(), by_time);
    for (size_t i = 0; i < ss.size() && i < rs.size(); ++i) {
      if (*ss[i].task == *rs[i].task || offset.count(*ss[i].task) == 0 ||
          offset.count(*rs[i].task) == 0) {
        continue;
      }
      constraints.push_back({*ss[i].task, *rs[i].task,
                             rs[i].time - ss[i].time});
    }
  }

  // Projection: each violated constraint moves the receiver's offset down
  // and the sender's up (half each, within their intervals), until none is
  // violated or nothing moves.
  for (int round = 0; round < 100; ++round) {
    bool moved = false;
    for (const Causal& c : constraints) {
      int64_t& recv = offset[c.receiver];
      int64_t& send = offset[c.sender];
      const int64_t excess = recv - send - c.slack;
      if (excess <= 0) continue;
      const int64_t down = std::min(recv - lo[c.receiver], excess - excess / 2);
      const int64_t up = std::min(hi[c.sender] - send, excess - down);
      const int64_t more = std::min(recv - lo[c.receiver] - down,
                                    excess - down - up);
      if (down + up + more > 0) moved = true;
      recv -= down + more;
      send += up;
    }
    if (!moved) break;
  }
  return offset;
}

void MergeTracedCalls(const std::vector<TracedCall>& calls,
                      bool with_transfers, StepStats* into) {
  const std::map<std::string, int64_t> offsets = EstimateClockOffsets(calls);
  for (const TracedCall& c : calls) {
    if (c.stats == nullptr) continue;
    StepStats shifted = *c.stats;
    auto it = offsets.find(c.task);
    ShiftStepStats(it == offsets.end() ? 0 : it->second, &shifted);
    MergeStepStats(shifted, with_transfers, into);
  }
}

void ShiftStepStats(int64_t offset_nanos, StepStats* stats) {
  if (offset_nanos == 0) return;
  // Micros from the shifted nanos where both are set, so the two agree.
  for (DeviceStepStats& dev : *stats->mutable_dev_stats()) {
    for (NodeExecStats& n : *dev.mutable_node_stats()) {
      if (n.all_start_nanos() != 0) {
        n.set_all_start_nanos(n.all_start_nanos() - offset_nanos);
        n.set_all_start_micros(n.all_start_nanos() / 1000);
      } else if (n.all_start_micros() != 0) {
        n.set_all_start_micros(n.all_start_micros() - offset_nanos / 1000);
      }
      if (n.scheduled_nanos() != 0) {
        n.set_scheduled_nanos(n.scheduled_nanos() - offset_nanos);
        n.set_scheduled_micros(n.scheduled_nanos() / 1000);
      } else if (n.scheduled_micros() != 0) {
        n.set_scheduled_micros(n.scheduled_micros() - offset_nanos / 1000);
      }
    }
  }
}

void MergeStepStats(const StepStats& from, bool with_transfers,
                    StepStats* into) {
  for (const DeviceStepStats& dev : from.dev_stats()) {
    DeviceStepStats* target = nullptr;
    for (DeviceStepStats& existing : *into->mutable_dev_stats()) {
      if (existing.device() == dev.device()) {
        target = &existing;
        break;
      }
    }
    for (const NodeExecStats& n : dev.node_stats()) {
      if (!with_transfers && n.node_name() == kRecvTensorNodeName) continue;
      if (target == nullptr) {
        target = into->add_dev_stats();
        target->set_device(dev.device());
      }
      *target->add_node_stats() = n;
    }
    if (target == nullptr) continue;
    for (const auto& [id, name] : dev.thread_names()) {
      target->mutable_thread_names()->insert({id, name});
    }
  }
}

}  // namespace dfx

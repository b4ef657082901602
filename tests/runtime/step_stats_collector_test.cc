// The pieces of runtime/step_stats_collector.h the master and the fetcher
// use: TensorFlow's RecvTensor record, the traced-step registry, clock
// alignment and merging.
#include "runtime/step_stats_collector.h"

#include <map>
#include <memory>

#include "absl/strings/match.h"
#include "catch2/catch.hpp"

namespace dfx {
namespace {

constexpr char kDev0[] = "/job:w/replica:0/task:0/device:CPU:0";
constexpr char kDev1[] = "/job:w/replica:0/task:1/device:CPU:0";

NodeExecStats Node(const std::string& name, int64_t start_nanos,
                   int64_t dur_nanos) {
  NodeExecStats n;
  n.set_node_name(name);
  n.set_all_start_nanos(start_nanos);
  n.set_all_start_micros(start_nanos / 1000);
  n.set_scheduled_nanos(start_nanos);
  n.set_scheduled_micros(start_nanos / 1000);
  n.set_all_end_rel_nanos(dur_nanos);
  n.set_all_end_rel_micros(dur_nanos / 1000);
  return n;
}

StepStats OnDevice(const std::string& device,
                   std::vector<NodeExecStats> nodes) {
  StepStats s;
  DeviceStepStats* d = s.add_dev_stats();
  d->set_device(device);
  for (NodeExecStats& n : nodes) *d->add_node_stats() = std::move(n);
  return s;
}

TEST_CASE("a RecvTensor record reads as TensorFlow's WorkerCacheLogger writes it") {
  const NodeExecStats small =
      RecvTensorStats(5'000'000, 5'124'000, "edge_4_mm", kDev0, kDev1, 16);
  CHECK(small.node_name() == "RecvTensor");
  // 8 * 16 bits in 124 us.
  CHECK(small.timeline_label() ==
        std::string("[16B] [1.032258Mb/s] edge_4_mm from ") + kDev0 + " to " +
            kDev1);
  CHECK(small.all_start_micros() == 5000);
  CHECK(small.op_start_rel_micros() == 0);
  CHECK(small.op_end_rel_micros() == 124);
  CHECK(small.all_end_rel_micros() == 124);
  CHECK(small.all_end_rel_nanos() == 124'000);
  REQUIRE(small.output_size() == 1);
  CHECK(small.output(0).tensor_description().allocation_description()
            .requested_bytes() == 16);

  const NodeExecStats big = RecvTensorStats(0, 1'000'000, "t", kDev0, kDev1,
                                            4 * 1048576);
  CHECK(absl::StartsWith(big.timeline_label(), "[4.0MB] [33.6Gb/s] t from "));
}

TEST_CASE("a fetch finds the collector of its traced step, preferring its own task's") {
  CHECK_FALSE(TracedSteps::Active());
  auto a = std::make_shared<StepStatsCollector>();
  auto b = std::make_shared<StepStatsCollector>();
  TracedSteps::Register(7, "/job:w/replica:0/task:0", a);
  TracedSteps::Register(7, "/job:w/replica:0/task:1", b);
  CHECK(TracedSteps::Active());
  CHECK(TracedSteps::Find(7, "/job:w/replica:0/task:1") == b);
  CHECK(TracedSteps::Find(7, "/job:w/replica:0/task:0") == a);
  CHECK(TracedSteps::Find(7, "/job:other/replica:0/task:0") != nullptr);
  CHECK(TracedSteps::Find(8, "/job:w/replica:0/task:0") == nullptr);
  TracedSteps::Unregister(7, a.get());
  CHECK(TracedSteps::Find(7, "/job:w/replica:0/task:0") == b);
  TracedSteps::Unregister(7, b.get());
  CHECK(TracedSteps::Find(7, "/job:w/replica:0/task:1") == nullptr);
  CHECK_FALSE(TracedSteps::Active());
}

TEST_CASE("a collector takes nothing after Finalize") {
  StepStatsCollector c;
  c.Save(kDev0, Node("a", 1, 1));
  StepStats out;
  c.Finalize(&out);
  c.Save(kDev0, Node("late", 2, 1));
  StepStats again;
  c.Finalize(&again);
  CHECK(out.dev_stats_size() == 1);
  CHECK(again.dev_stats_size() == 0);
}

TEST_CASE("the clock offset of a task comes from the round trips of its calls") {
  // Worker clock 3 s ahead. Call 1: sent at 1000 us, answered at 1300 us
  // (master); the worker ran from 1050 to 1200 us of master time.
  const int64_t skew = 3'000'000'000;
  ClockBounds bounds;
  bounds.AddCall(1'000'000, 1'300'000,
                 OnDevice(kDev1, {Node("a", skew + 1'050'000, 50'000),
                                  Node("b", skew + 1'100'000, 100'000)}));
  // Feasible: [1200 - 1300, 1050 - 1000] us = [-100, 50] us around skew.
  CHECK(bounds.lo == skew - 100'000);
  CHECK(bounds.hi == skew + 50'000);
  CHECK(bounds.Offset() == skew - 25'000);
  // A second, tighter call narrows it: sent 2000, answered 2110; worker
  // 2010..2100.
  bounds.AddCall(2'000'000, 2'110'000,
                 OnDevice(kDev1, {Node("c", skew + 2'010'000, 90'000)}));
  CHECK(bounds.lo == skew - 10'000);
  CHECK(bounds.hi == skew + 10'000);
  CHECK(bounds.Offset() == skew);
  // A call with nothing recorded teaches nothing.
  bounds.AddCall(0, 1, StepStats());
  CHECK(bounds.calls == 2);
  CHECK(ClockBounds().Offset() == 0);
}

TEST_CASE("contradictory calls fall back to the mean of their midpoints") {
  ClockBounds bounds;
  // Offset in [0, 100] from one call and [200, 300] from another.
  bounds.AddCall(1000, 1100, OnDevice(kDev1, {Node("a", 1100, 0)}));
  bounds.AddCall(5000, 5100, OnDevice(kDev1, {Node("b", 5300, 0)}));
  CHECK(bounds.lo > bounds.hi);
  CHECK(bounds.Offset() == 150);
}

NodeExecStats Labelled(const std::string& label, int64_t start_nanos,
                       int64_t dur_nanos) {
  NodeExecStats n = Node(label.substr(0, label.find(' ')), start_nanos,
                         dur_nanos);
  n.set_timeline_label(label);
  return n;
}

TEST_CASE("clock offsets move inside the round-trip bounds until every _Recv ends after its _Send started") {
  const std::string a_task = "/job:w/replica:0/task:0";
  const std::string b_task = "/job:w/replica:0/task:1";
  // Both calls sent at 0 and answered at 1000 us. Task 0's times give the
  // offset bounds [-400, 100] us (midpoint -150), task 1's [-300, 300]
  // (midpoint 0): by the midpoints, t's _Recv on task 1 (ending at 450 us)
  // would end 100 us before its _Send on task 0 (at 400 + 150 us) started.
  const StepStats a = OnDevice(
      kDev0, {Node("first", 100'000, 1000),
              Labelled("t/_0 = _Send(t @" + std::string(kDev1) + ")", 400'000,
                       10'000),
              Node("last", 590'000, 10'000)});
  const StepStats b = OnDevice(
      kDev1, {Labelled("t/_1 = _Recv(t @" + std::string(kDev0) + ")", 300'000,
                       150'000),
              Node("last", 650'000, 50'000)});
  const std::vector<TracedCall> calls = {{a_task, 0, 1'000'000, &a},
                                         {b_task, 0, 1'000'000, &b}};
  std::map<std::string, int64_t> offsets = EstimateClockOffsets(calls);
  // Half the excess each way.
  CHECK(offsets[a_task] == -100'000);
  CHECK(offsets[b_task] == -50'000);

  StepStats merged;
  MergeTracedCalls(calls, true, &merged);
  REQUIRE(merged.dev_stats_size() == 2);
  const NodeExecStats& send = merged.dev_stats(0).node_stats(1);
  const NodeExecStats& recv = merged.dev_stats(1).node_stats(0);
  CHECK(recv.all_start_nanos() + recv.all_end_rel_nanos() >=
        send.all_start_nanos());

  // Already causal: the midpoints stay.
  const StepStats b_late = OnDevice(
      kDev1, {Labelled("t/_1 = _Recv(t @" + std::string(kDev0) + ")", 300'000,
                       400'000)});
  offsets = EstimateClockOffsets({{a_task, 0, 1'000'000, &a},
                                  {b_task, 0, 1'000'000, &b_late}});
  CHECK(offsets[a_task] == -150'000);
  CHECK(offsets[b_task] == 0);
}

TEST_CASE("shifting and merging move every absolute time and drop transfers without FULL_TRACE") {
  StepStats worker = OnDevice(kDev1, {Node("a", 5'000'500, 100)});
  *worker.mutable_dev_stats(0)->add_node_stats() =
      RecvTensorStats(5'000'000, 5'001'000, "t", kDev0, kDev1, 4);
  ShiftStepStats(2'000'000, &worker);
  const NodeExecStats& a = worker.dev_stats(0).node_stats(0);
  CHECK(a.all_start_nanos() == 3'000'500);
  CHECK(a.all_start_micros() == 3000);
  CHECK(a.scheduled_nanos() == 3'000'500);
  CHECK(a.all_end_rel_nanos() == 100);
  CHECK(worker.dev_stats(0).node_stats(1).all_start_micros() == 3000);

  StepStats merged = OnDevice(kDev0, {Node("x", 1, 1)});
  MergeStepStats(worker, /*with_transfers=*/false, &merged);
  MergeStepStats(OnDevice(kDev0, {Node("y", 2, 1)}), false, &merged);
  REQUIRE(merged.dev_stats_size() == 2);
  CHECK(merged.dev_stats(0).node_stats_size() == 2);  // x, y
  CHECK(merged.dev_stats(1).node_stats_size() == 1);  // a, no RecvTensor
  StepStats full;
  MergeStepStats(worker, /*with_transfers=*/true, &full);
  CHECK(full.dev_stats(0).node_stats_size() == 2);
  // Only transfers and no FULL_TRACE: no empty device.
  StepStats only_transfers = OnDevice(
      kDev0, {RecvTensorStats(0, 1000, "t", kDev1, kDev0, 4)});
  StepStats none;
  MergeStepStats(only_transfers, false, &none);
  CHECK(none.dev_stats_size() == 0);
}

}  // namespace
}  // namespace dfx

// Traced steps on a cluster of `dfx server` processes: RunMetadata's
// step_stats in TensorFlow's form from every task, RecvTensor transfers,
// partition graphs, and a task with a skewed clock merged onto the master's
// clock.
#include <stdlib.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "catch2/catch.hpp"
#include "graph/builder/ops.h"
#include "graph/builder/scope.h"
#include "runtime/session.h"
#include "runtime/step_stats_collector.h"
#include "tests/integration/test_cluster.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using ::dfx::testing::TestCluster;

constexpr char kWorker0[] = "/job:worker/replica:0/task:0";
constexpr char kWorker1[] = "/job:worker/replica:0/task:1";
const std::string kDev0 = std::string(kWorker0) + "/device:CPU:0";
const std::string kDev1 = std::string(kWorker1) + "/device:CPU:0";

// a (task 0) -> b = a @ a (task 1) -> c = -b (task 0): two transfers.
GraphDef TwoTaskGraph() {
  Scope root = Scope::NewRootScope();
  Output a = ops::Placeholder(root.WithOpName("a").WithDevice(kWorker0),
                              DT_FLOAT);
  Output b = ops::MatMul(root.WithOpName("b").WithDevice(kWorker1), a, a);
  ops::Neg(root.WithOpName("c").WithDevice(kWorker0), b);
  GraphDef graph;
  REQUIRE_OK(root.ToGraphDef(&graph));
  return graph;
}

std::unique_ptr<Session> OpenSession(const std::string& target) {
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(target);
  REQUIRE_OK(session.status());
  REQUIRE_OK((*session)->Extend(TwoTaskGraph()));
  return std::move(session).value();
}

RunMetadata RunTraced(Session* session, RunOptions::TraceLevel level,
                      bool partition_graphs = false) {
  RunOptions options;
  options.set_trace_level(level);
  options.set_output_partition_graphs(partition_graphs);
  RunMetadata metadata;
  std::vector<Tensor> out;
  const Tensor a = Tensor::FromVector<float>({1, 2, 3, 4}, TensorShape({2, 2}));
  REQUIRE_OK(session->Run(options, {{"a", a}}, {"c"}, {}, &out, &metadata));
  REQUIRE(out.size() == 1);
  // -(a @ a)
  CHECK(out[0].data<float>()[0] == -7.0f);
  return metadata;
}

std::map<std::string, std::vector<NodeExecStats>> ByDevice(
    const StepStats& stats) {
  std::map<std::string, std::vector<NodeExecStats>> out;
  for (const DeviceStepStats& d : stats.dev_stats()) {
    for (const NodeExecStats& n : d.node_stats()) out[d.device()].push_back(n);
  }
  return out;
}

const NodeExecStats* FindNode(const std::vector<NodeExecStats>& nodes,
                              const std::string& name) {
  for (const NodeExecStats& n : nodes) {
    if (n.node_name() == name) return &n;
  }
  return nullptr;
}

int CountTransfers(const StepStats& stats) {
  int n = 0;
  for (const auto& [device, nodes] : ByDevice(stats)) {
    for (const NodeExecStats& node : nodes) {
      n += node.node_name() == kRecvTensorNodeName;
    }
  }
  return n;
}

TEST_CASE("a FULL_TRACE step on two tasks returns both tasks' nodes, their outputs and the RecvTensor transfers") {
  TestCluster cluster({{"worker", 2}});
  auto session = OpenSession(cluster.Target());
  RunTraced(session.get(), RunOptions::FULL_TRACE);  // registers the graphs

  const RunMetadata md =
      RunTraced(session.get(), RunOptions::FULL_TRACE, /*partition_graphs=*/true);
  auto devices = ByDevice(md.step_stats());
  REQUIRE(devices.count(kDev0) == 1);
  REQUIRE(devices.count(kDev1) == 1);

  const NodeExecStats* b = FindNode(devices[kDev1], "b");
  REQUIRE(b != nullptr);
  CHECK(absl::StartsWith(b->timeline_label(), "b = MatMul("));
  CHECK(b->all_start_micros() > 0);
  CHECK(b->all_start_nanos() / 1000 == b->all_start_micros());
  CHECK(b->op_end_rel_nanos() >= b->op_start_rel_nanos());
  CHECK(b->all_end_rel_nanos() >= b->op_end_rel_nanos());
  REQUIRE(b->output_size() == 1);
  const TensorDescription& desc = b->output(0).tensor_description();
  CHECK(desc.dtype() == DT_FLOAT);
  CHECK(desc.shape().dim_size() == 2);
  CHECK(desc.allocation_description().requested_bytes() == 16);
  CHECK(FindNode(devices[kDev0], "c") != nullptr);

  // _Send/_Recv labels as TensorFlow writes them: (tensor @peer device).
  bool saw_recv = false;
  for (const NodeExecStats& n : devices[kDev1]) {
    if (absl::StrContains(n.timeline_label(), " = _Recv(")) {
      saw_recv = true;
      CHECK(absl::StrContains(n.timeline_label(), " @" + kDev0 + ")"));
    }
  }
  CHECK(saw_recv);

  // The transfers: a to task 1, b back to task 0, each recorded on its
  // destination device with its bytes.
  for (const auto& [dst, src] :
       std::vector<std::pair<std::string, std::string>>{{kDev1, kDev0},
                                                        {kDev0, kDev1}}) {
    int found = 0;
    for (const NodeExecStats& n : devices[dst]) {
      if (n.node_name() != kRecvTensorNodeName) continue;
      ++found;
      INFO(n.timeline_label());
      CHECK(absl::StartsWith(n.timeline_label(), "[16B] "));
      CHECK(absl::StrContains(n.timeline_label(),
                              " from " + src + " to " + dst));
      REQUIRE(n.output_size() == 1);
      CHECK(n.output(0).tensor_description().allocation_description()
                .requested_bytes() == 16);
      CHECK(n.all_end_rel_micros() >= 0);
    }
    CHECK(found == 1);
  }
  CHECK(md.partition_graphs_size() == 2);

  // SOFTWARE_TRACE: the nodes without the transfers; no trace: nothing.
  const RunMetadata software = RunTraced(session.get(), RunOptions::SOFTWARE_TRACE);
  CHECK(CountTransfers(software.step_stats()) == 0);
  CHECK(FindNode(ByDevice(software.step_stats())[kDev1], "b") != nullptr);
  CHECK(software.partition_graphs_size() == 0);
  const RunMetadata none = RunTraced(session.get(), RunOptions::NO_TRACE);
  CHECK(none.step_stats().dev_stats_size() == 0);
  REQUIRE_OK(session->Close());
}

int64_t SystemNowNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

TEST_CASE("a task whose clock is 3 s behind is merged onto the master's clock") {
  TestCluster cluster({{"worker", 2}});
  // Task 1 again, its clock (as its statistics read it) 3 s behind.
  REQUIRE(::setenv("DFX_TEST_CLOCK_OFFSET_US", "-3000000", 1) == 0);
  cluster.Restart("worker", 1);
  REQUIRE(::unsetenv("DFX_TEST_CLOCK_OFFSET_US") == 0);
  auto session = OpenSession(cluster.Target());
  RunTraced(session.get(), RunOptions::FULL_TRACE);

  for (int step = 0; step < 5; ++step) {
    // The master is task 0, on this machine's clock like this test.
    const int64_t before = SystemNowNanos();
    const RunMetadata md = RunTraced(session.get(), RunOptions::FULL_TRACE);
    const int64_t after = SystemNowNanos();
    // tensor name -> _Send start / _Recv end.
    std::map<std::string, int64_t> send_start, recv_end;
    int nodes = 0;
    for (const auto& [device, list] : ByDevice(md.step_stats())) {
      for (const NodeExecStats& n : list) {
        ++nodes;
        INFO(device << " " << n.timeline_label());
        const int64_t start = n.all_start_nanos();
        const int64_t end = start + n.all_end_rel_nanos();
        // Inside the step as the client saw it (1 ms for rounding).
        CHECK(start >= before - 1'000'000);
        CHECK(end <= after + 1'000'000);
        const std::string& label = n.timeline_label();
        const size_t open = label.find('(');
        const size_t at = label.find(" @");
        if (open == std::string::npos || at == std::string::npos) continue;
        const std::string tensor = label.substr(open + 1, at - open - 1);
        if (absl::StrContains(label, " = _Send(")) send_start[tensor] = start;
        if (absl::StrContains(label, " = _Recv(")) recv_end[tensor] = end;
      }
    }
    CHECK(nodes > 6);
    // The feed's and the fetch's _Recv/_Send have the client on the other
    // side; a -> b and b -> c cross between the tasks.
    int pairs = 0;
    for (const auto& [tensor, end] : recv_end) {
      if (send_start.count(tensor) == 0) continue;
      ++pairs;
      INFO("step " << step << ": " << tensor);
      CHECK(end >= send_start[tensor]);
    }
    CHECK(pairs == 2);
  }
  REQUIRE_OK(session->Close());
}

}  // namespace
}  // namespace dfx

// Collectives on clusters of real `dfx server` processes (the V2 ops and
// TensorFlow 1's, keys as attrs): the members'
// kernels resolve their group at the leader (task 0) over CompleteGroup /
// CompleteInstance and move data over RecvTensor (the bulk plane for big
// pieces); members that disagree get InvalidArgument naming the instance
// and task; a member killed while all-reduces run fails the step with
// Unavailable naming it, within seconds.
#include <atomic>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "catch2/catch.hpp"
#include "runtime/session.h"
#include "tests/integration/test_cluster.h"
#include "tests/testing/collective_graphs.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using ::dfx::testing::CollectiveGraph;
using ::dfx::testing::IsOk;
using ::dfx::testing::StatusIs;
using ::dfx::testing::TestCluster;

std::string Dev(int task) {
  return absl::StrCat("/job:worker/replica:0/task:", task, "/device:CPU:0");
}

std::vector<std::string> Devs(int n) {
  std::vector<std::string> d;
  for (int i = 0; i < n; ++i) d.push_back(Dev(i));
  return d;
}

std::unique_ptr<Session> Open(const TestCluster& cluster, const GraphDef& g) {
  SessionOptions options;
  options.config.set_operation_timeout_in_ms(60000);
  auto s = Session::Create(cluster.Target(), options);
  REQUIRE_THAT(s.status(), IsOk());
  REQUIRE_THAT((*s)->Extend(g), IsOk());
  return *std::move(s);
}

std::vector<float> Values(const Tensor& t) {
  auto s = t.span<float>();
  return {s.begin(), s.end()};
}

// Member i's input: n floats, i + j/8 (exact in float).
Tensor Input(int i, int64_t n) {
  std::vector<float> v(n);
  for (int64_t j = 0; j < n; ++j) v[j] = i + static_cast<float>(j % 64) / 8;
  return Tensor::FromVector<float>(v);
}

TEST_CASE("All-reduce, gather and broadcast across 2 and 3 server processes",
          "[collective]") {
  for (int tasks : {2, 3}) {
    INFO(tasks << " tasks");
    TestCluster cluster({{"worker", tasks}});
    // Sizes: one element, one not divisible by the group, one big enough
    // for the bulk plane (2 MiB pieces), empty.
    for (int64_t size : {int64_t{1}, int64_t{1001}, int64_t{3} << 20,
                         int64_t{0}}) {
      INFO(size << " floats");
      for (const char* final_op : {"Id", "Div"}) {
        auto session =
            Open(cluster, CollectiveGraph(Devs(tasks), "CollectiveReduceV2",
                                          1, 1, "Add", final_op));
        std::vector<std::pair<std::string, Tensor>> feeds;
        std::vector<std::string> fetches;
        for (int i = 0; i < tasks; ++i) {
          feeds.emplace_back(absl::StrCat("x", i), Input(i, size));
          fetches.push_back(absl::StrCat("c", i));
        }
        std::vector<Tensor> out;
        REQUIRE_THAT(session->Run(feeds, fetches, {}, &out), IsOk());
        for (int i = 0; i < tasks; ++i) {
          REQUIRE(out[i].NumElements() == size);
          auto got = out[i].span<float>();
          for (int64_t j = 0; j < size; ++j) {
            float want = 0;
            for (int m = 0; m < tasks; ++m) {
              want += m + static_cast<float>(j % 64) / 8;
            }
            if (std::string(final_op) == "Div") want /= tasks;
            if (got[j] != Approx(want)) {
              FAIL("member " << i << " element " << j << ": " << got[j]
                             << " != " << want);
            }
          }
        }
      }
    }
    auto gather = Open(cluster, CollectiveGraph(Devs(tasks),
                                                "CollectiveGatherV2", 2, 1));
    std::vector<std::pair<std::string, Tensor>> feeds;
    std::vector<std::string> fetches;
    std::vector<float> want;
    for (int i = 0; i < tasks; ++i) {
      feeds.emplace_back(absl::StrCat("x", i),
                         Tensor::FromVector<float>({i * 1.f, i + 0.5f}));
      fetches.push_back(absl::StrCat("c", i));
      want.push_back(i);
      want.push_back(i + 0.5f);
    }
    std::vector<Tensor> out;
    REQUIRE_THAT(gather->Run(feeds, fetches, {}, &out), IsOk());
    for (const Tensor& t : out) CHECK(Values(t) == want);

    auto bcast = Open(cluster, CollectiveGraph(Devs(tasks), "Bcast", 3, 1, "",
                                               "", "DT_FLOAT", {3}));
    REQUIRE_THAT(bcast->Run({{"x0", Tensor::FromVector<float>({1, 2, 3})}},
                            fetches, {}, &out),
                 IsOk());
    for (const Tensor& t : out) {
      CHECK(Values(t) == std::vector<float>{1, 2, 3});
    }
  }
}

TEST_CASE(
    "TensorFlow 1's collective ops (keys as attrs) across 2 server "
    "processes, and a member that never comes ends at the deadline",
    "[collective]") {
  using ::dfx::testing::CollectiveV1Graph;
  TestCluster cluster({{"worker", 2}});
  std::vector<Tensor> out;
  // All-reduce of a size the bulk plane moves, then a small one.
  for (int64_t size : {int64_t{3} << 20, int64_t{5}}) {
    INFO(size << " floats");
    auto reduce = Open(cluster, CollectiveV1Graph(Devs(2), "CollectiveReduce",
                                                  31, 1, "Max", "Id"));
    REQUIRE_THAT(reduce->Run({{"x0", Input(0, size)}, {"x1", Input(1, size)}},
                             {"c0", "c1"}, {}, &out),
                 IsOk());
    for (const Tensor& t : out) {
      CHECK(t.NumElements() == size);
      CHECK(t.span<float>()[0] == 1);
      CHECK(t.span<float>()[size - 1] ==
            Input(1, size).span<float>()[size - 1]);
    }
  }
  auto gather = Open(cluster, CollectiveV1Graph(Devs(2), "CollectiveGather",
                                                32, 1, "", "", "DT_FLOAT",
                                                {2}));
  REQUIRE_THAT(gather->Run({{"x0", Tensor::FromVector<float>({1, 2})},
                            {"x1", Tensor::FromVector<float>({3, 4})}},
                           {"c0", "c1"}, {}, &out),
               IsOk());
  for (const Tensor& t : out) {
    CHECK(Values(t) == std::vector<float>{1, 2, 3, 4});
  }
  auto bcast = Open(cluster, CollectiveV1Graph(Devs(2), "Bcast", 33, 1, "",
                                               "", "DT_FLOAT", {3}));
  REQUIRE_THAT(bcast->Run({{"x0", Tensor::FromVector<float>({5, 6, 7})}},
                          {"c0", "c1"}, {}, &out),
               IsOk());
  for (const Tensor& t : out) CHECK(Values(t) == std::vector<float>{5, 6, 7});

  // Task 1's member is not in the graph: task 0's waits for it until the
  // step's deadline, then the session runs a full step.
  GraphDef lone;
  const GraphDef both = CollectiveV1Graph(Devs(2), "CollectiveReduce", 34, 1);
  for (const NodeDef& n : both.node()) {
    if (n.name() == "x0" || n.name() == "c0") *lone.add_node() = n;
  }
  auto waiting = Open(cluster, lone);
  RunOptions options;
  options.set_timeout_in_ms(500);
  const absl::Time start = absl::Now();
  CHECK_THAT(waiting->Run(options, {{"x0", Tensor::FromVector<float>({1})}},
                          {"c0"}, {}, &out, nullptr),
             StatusIs(absl::StatusCode::kDeadlineExceeded));
  CHECK(absl::Now() - start < absl::Seconds(20));
  REQUIRE_THAT(gather->Run({{"x0", Tensor::FromVector<float>({0, 1})},
                            {"x1", Tensor::FromVector<float>({2, 3})}},
                           {"c0", "c1"}, {}, &out),
               IsOk());
  CHECK(Values(out[0]) == std::vector<float>{0, 1, 2, 3});
}

TEST_CASE("Members with mismatched shapes fail naming the instance and task",
          "[collective]") {
  TestCluster cluster({{"worker", 2}});
  auto session =
      Open(cluster, CollectiveGraph(Devs(2), "CollectiveReduceV2", 1, 77));
  std::vector<Tensor> out;
  const absl::Status s =
      session->Run({{"x0", Tensor::FromVector<float>({1, 2})},
                    {"x1", Tensor::FromVector<float>({1, 2, 3})}},
                   {"c0", "c1"}, {}, &out);
  INFO(s);
  CHECK_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument,
                         "collective instance 77"));
  CHECK_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument,
                         "/job:worker/replica:0/task:"));
  // The same session's next step with matching shapes works.
  REQUIRE_THAT(session->Run({{"x0", Tensor::FromVector<float>({1, 2})},
                             {"x1", Tensor::FromVector<float>({3, 4})}},
                            {"c0", "c1"}, {}, &out),
               IsOk());
  CHECK(Values(out[1]) == std::vector<float>{4, 6});
}

// Member i's input for reduce-scatter / all-to-all: rows x cols floats,
// element e = i * 1000 + e (exact in float for these sizes).
Tensor Rows(int i, int64_t rows, int64_t cols) {
  std::vector<float> v(rows * cols);
  for (int64_t e = 0; e < rows * cols; ++e) v[e] = i * 1000.f + e;
  return *Tensor::FromVector<float>(v).Reshaped(TensorShape({rows, cols}));
}

TEST_CASE(
    "CollectiveInitializeCommunicator and the V3 ops across 2 server "
    "processes",
    "[collective]") {
  using ::dfx::testing::CommunicatorGraph;
  TestCluster cluster({{"worker", 2}});
  std::vector<Tensor> out;
  auto reduce = Open(cluster, CommunicatorGraph(Devs(2), "CollectiveReduceV3",
                                                41, "Add"));
  REQUIRE_THAT(reduce->Run({{"x0", Input(0, 1001)}, {"x1", Input(1, 1001)}},
                           {"c0", "c1"}, {}, &out),
               IsOk());
  for (const Tensor& t : out) {
    CHECK(t.span<float>()[9] == Input(0, 1001).span<float>()[9] +
                                    Input(1, 1001).span<float>()[9]);
  }
  // A communicator is made once per session.
  CHECK_THAT(reduce->Run({{"x0", Input(0, 3)}, {"x1", Input(1, 3)}},
                         {"c0", "c1"}, {}, &out),
             StatusIs(absl::StatusCode::kAlreadyExists));
  auto a2a = Open(cluster,
                  CommunicatorGraph(Devs(2), "CollectiveAllToAllV3", 42));
  REQUIRE_THAT(a2a->Run({{"x0", Rows(0, 2, 3)}, {"x1", Rows(1, 2, 3)}},
                        {"c0", "c1"}, {}, &out),
               IsOk());
  CHECK(Values(out[0]) == std::vector<float>{0, 1, 2, 1000, 1001, 1002});
  CHECK(Values(out[1]) == std::vector<float>{3, 4, 5, 1003, 1004, 1005});
}

TEST_CASE("Reduce-scatter and all-to-all across 2 and 3 server processes",
          "[collective]") {
  for (int tasks : {2, 3}) {
    INFO(tasks << " tasks");
    TestCluster cluster({{"worker", tasks}});
    // Rows per member: none, one, and enough (with 1001 columns, an odd
    // row length) for the bulk plane.
    for (int64_t k : {int64_t{0}, int64_t{1}, int64_t{300}}) {
      const int64_t rows = k * tasks;
      const int64_t cols = 1001;
      INFO(rows << "x" << cols);
      for (const char* final_op : {"Id", "Div"}) {
        INFO("reduce-scatter, final_op " << final_op);
        auto session = Open(
            cluster, CollectiveGraph(Devs(tasks), "CollectiveReduceScatterV2",
                                     1, 2, "Add", final_op));
        std::vector<std::pair<std::string, Tensor>> feeds;
        std::vector<std::string> fetches;
        for (int i = 0; i < tasks; ++i) {
          feeds.emplace_back(absl::StrCat("x", i), Rows(i, rows, cols));
          fetches.push_back(absl::StrCat("c", i));
        }
        std::vector<Tensor> out;
        REQUIRE_THAT(session->Run(feeds, fetches, {}, &out), IsOk());
        for (int i = 0; i < tasks; ++i) {
          REQUIRE(out[i].shape() == TensorShape({k, cols}));
          auto got = out[i].span<float>();
          int64_t wrong = 0;
          for (int64_t e = 0; e < k * cols; ++e) {
            // Rows [i*k, (i+1)*k) of the sum over members m of m*1000 + e.
            const int64_t flat = i * k * cols + e;
            float want = 0;
            for (int m = 0; m < tasks; ++m) want += m * 1000.f + flat;
            if (std::string(final_op) == "Div") want /= tasks;
            if (got[e] != Approx(want)) ++wrong;
          }
          CHECK(wrong == 0);
        }
      }
      INFO("all-to-all");
      auto a2a = Open(cluster, CollectiveGraph(Devs(tasks),
                                               "CollectiveAllToAllV2", 1, 3));
      std::vector<std::pair<std::string, Tensor>> feeds;
      std::vector<std::string> fetches;
      // One row per member (TensorFlow's contract) of k rows' elements.
      for (int i = 0; i < tasks; ++i) {
        feeds.emplace_back(absl::StrCat("x", i), Rows(i, tasks, k * cols));
        fetches.push_back(absl::StrCat("c", i));
      }
      std::vector<Tensor> out;
      REQUIRE_THAT(a2a->Run(feeds, fetches, {}, &out), IsOk());
      for (int i = 0; i < tasks; ++i) {
        REQUIRE(out[i].shape() == TensorShape({tasks, k * cols}));
        auto got = out[i].span<float>();
        int64_t wrong = 0;
        for (int j = 0; j < tasks; ++j) {
          // Block j: member j's block i.
          for (int64_t e = 0; e < k * cols; ++e) {
            wrong += got[j * k * cols + e] != j * 1000.f + i * k * cols + e;
          }
        }
        CHECK(wrong == 0);
      }
    }
  }
}

TEST_CASE("Reduce-scatter and all-to-all with bad shapes fail naming the node",
          "[collective]") {
  TestCluster cluster({{"worker", 3}});
  for (const char* op : {"CollectiveReduceScatterV2", "CollectiveAllToAllV2"}) {
    INFO(op);
    auto session = Open(cluster, CollectiveGraph(Devs(3), op, 1, 78));
    std::vector<Tensor> out;
    // Members that disagree on the shape: the leader refuses the instance.
    absl::Status s = session->Run({{"x0", Rows(0, 3, 2)},
                                   {"x1", Rows(1, 3, 2)},
                                   {"x2", Rows(2, 6, 2)}},
                                  {"c0", "c1", "c2"}, {}, &out);
    INFO(s);
    CHECK_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument,
                           "collective instance 78"));
    CHECK_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument, "node 'c"));
    CHECK_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument,
                           "/job:worker/replica:0/task:"));
    // Every member the same shape, but dim 0 (4) does not divide by 3
    // (all-to-all, as TensorFlow's, wants dim 0 equal to the group size).
    s = session->Run({{"x0", Rows(0, 4, 2)},
                      {"x1", Rows(1, 4, 2)},
                      {"x2", Rows(2, 4, 2)}},
                     {"c0", "c1", "c2"}, {}, &out);
    INFO(s);
    CHECK_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument,
                           std::string(op) == "CollectiveAllToAllV2"
                               ? "must be the same as the group size (3)"
                               : "divides by the group size 3"));
    CHECK_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument, "node 'c"));
    // The session still works.
    REQUIRE_THAT(session->Run({{"x0", Rows(0, 3, 2)},
                               {"x1", Rows(1, 3, 2)},
                               {"x2", Rows(2, 3, 2)}},
                              {"c0", "c1", "c2"}, {}, &out),
                 IsOk());
  }
}

TEST_CASE("A member killed during all-reduces fails the step naming it",
          "[collective]") {
  TestCluster cluster({{"worker", 3}});
  auto session =
      Open(cluster, CollectiveGraph(Devs(3), "CollectiveReduceV2", 1, 1));
  // 16 MiB per member: long enough on the wire that the kill below lands
  // in a step's data phase most of the time; any step it lands in must
  // fail the same way.
  std::vector<std::pair<std::string, Tensor>> feeds;
  for (int i = 0; i < 3; ++i) {
    feeds.emplace_back(absl::StrCat("x", i), Input(i, int64_t{4} << 20));
  }
  // Steps back to back until one fails (a step that began before the kill
  // may still pass; the next cannot).
  std::atomic<int> done_steps{0};
  auto steps = std::async(std::launch::async, [&]() -> absl::Status {
    for (int step = 0; step < 1000; ++step) {
      std::vector<Tensor> out;
      // Every member runs (a member the step prunes away never joins, and
      // the others wait for it, as in TensorFlow), but only task 0's result
      // is fetched: once task 1 is dead, the only transfers that can fail
      // are the all-reduce's own (and the master's RunGraph on task 1), not
      // the fetch of a result from task 1 after a finished all-reduce.
      absl::Status s = session->Run(feeds, {"c0"}, {"c1", "c2"}, &out);
      if (!s.ok()) return s;
      done_steps.fetch_add(1);
    }
    return absl::InternalError("no step failed");
  });
  // Two steps done: steps run back to back, so the kill lands in one (in
  // its resolution or its data phase; either must fail the same way).
  const absl::Time give_up = absl::Now() + absl::Seconds(60);
  while (done_steps.load() < 2) {
    REQUIRE(absl::Now() < give_up);
    if (steps.wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
      FAIL("the steps ended before the kill: " << steps.get());
    }
    absl::SleepFor(absl::Milliseconds(5));
  }
  cluster.Kill("worker", 1);
  const absl::Time kill_time = absl::Now();
  REQUIRE(steps.wait_for(std::chrono::seconds(30)) ==
          std::future_status::ready);
  const absl::Status s = steps.get();
  const absl::Duration took = absl::Now() - kill_time;
  INFO(s << " after " << absl::FormatDuration(took));
  CHECK_THAT(s, StatusIs(absl::StatusCode::kUnavailable,
                         "/job:worker/replica:0/task:1"));
  // How soon is measured by tools/bench, not asserted here (timings on a
  // loaded machine are noise); the 30 s wait above bounds it.
}

// Steps until one succeeds (a client's retry after a restart: the first
// steps may meet the restarted task's channel in reconnect backoff, or
// the group being joined again), within 60 s.
absl::Status RunUntilOk(Session* session,
                        const std::vector<std::pair<std::string, Tensor>>& feeds,
                        const std::vector<std::string>& fetches,
                        std::vector<Tensor>* out) {
  const absl::Time give_up = absl::Now() + absl::Seconds(60);
  absl::Status s;
  while (absl::Now() < give_up) {
    s = session->Run(feeds, fetches, {}, out);
    if (s.ok()) return s;
    absl::SleepFor(absl::Milliseconds(100));
  }
  return s;
}

TEST_CASE("A restarted member, and a restarted leader, rejoin the group "
          "under the same group key", "[collective]") {
  TestCluster cluster({{"worker", 3}});
  // The client's master is task 2, so that the leader (task 0) can restart
  // under the session.
  SessionOptions options;
  options.config.set_operation_timeout_in_ms(60000);
  auto created = Session::Create(cluster.Target("worker", 2), options);
  REQUIRE_THAT(created.status(), IsOk());
  std::unique_ptr<Session> session = *std::move(created);
  REQUIRE_THAT(
      session->Extend(CollectiveGraph(Devs(3), "CollectiveReduceV2", 7, 1)),
      IsOk());
  std::vector<std::pair<std::string, Tensor>> feeds;
  for (int i = 0; i < 3; ++i) {
    feeds.emplace_back(absl::StrCat("x", i), Input(i, 1000));
  }
  std::vector<float> want(1000);
  for (int j = 0; j < 1000; ++j) want[j] = 3 + 3 * static_cast<float>(j % 64) / 8;
  auto check = [&](const std::vector<Tensor>& out) {
    REQUIRE(out.size() == 3);
    for (const Tensor& t : out) CHECK(Values(t) == want);
  };
  std::vector<Tensor> out;
  REQUIRE_THAT(session->Run(feeds, {"c0", "c1", "c2"}, {}, &out), IsOk());
  check(out);
  // Task 1 restarts: the others still hold the group with its old
  // incarnation; the leader's answer for each step carries the new one.
  cluster.Restart("worker", 1);
  REQUIRE_THAT(RunUntilOk(session.get(), feeds, {"c0", "c1", "c2"}, &out),
               IsOk());
  check(out);
  REQUIRE_THAT(session->Run(feeds, {"c0", "c1", "c2"}, {}, &out), IsOk());
  check(out);
  // The leader (task 0) restarts and forgets the group: members that
  // cached it get FailedPrecondition once and join again.
  cluster.Restart("worker", 0);
  REQUIRE_THAT(RunUntilOk(session.get(), feeds, {"c0", "c1", "c2"}, &out),
               IsOk());
  check(out);
  REQUIRE_THAT(session->Run(feeds, {"c0", "c1", "c2"}, {}, &out), IsOk());
  check(out);
}

TEST_CASE("All-reduce over 2 devices on each of 2 server processes goes "
          "hierarchically and gives every member the mean", "[collective]") {
  TestCluster cluster({{"worker", 2}}, {"--cpu-devices", "2"});
  std::vector<std::string> devices;
  for (int task = 0; task < 2; ++task) {
    for (int d = 0; d < 2; ++d) {
      devices.push_back(absl::StrCat("/job:worker/replica:0/task:", task,
                                     "/device:CPU:", d));
    }
  }
  auto session = Open(cluster, CollectiveGraph(devices, "CollectiveReduceV2",
                                               8, 1, "Add", "Div"));
  // 3 MiB per member: pieces on the bulk plane between the tasks.
  const int64_t n = int64_t{3} << 18;
  std::vector<std::pair<std::string, Tensor>> feeds;
  for (int i = 0; i < 4; ++i) {
    feeds.emplace_back(absl::StrCat("x", i), Input(i, n));
  }
  std::vector<float> want(n);
  for (int64_t j = 0; j < n; ++j) {
    want[j] = (0 + 1 + 2 + 3 + 4 * static_cast<float>(j % 64) / 8) / 4;
  }
  for (int step = 0; step < 3; ++step) {
    std::vector<Tensor> out;
    REQUIRE_THAT(session->Run(feeds, {"c0", "c1", "c2", "c3"}, {}, &out),
                 IsOk());
    for (const Tensor& t : out) CHECK(Values(t) == want);
  }
}

}  // namespace
}  // namespace dfx

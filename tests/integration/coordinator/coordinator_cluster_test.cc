// ClusterCoordinator (coordinator/cluster_coordinator.h) on real `dfx
// server` processes: a chief (the master), 2 workers and 2 ps tasks,
// training the model of examples/coordinator_model.h.
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/time/clock.h"
#include "base/task_status.h"
#include "catch2/catch.hpp"
#include "coordinator/cluster_coordinator.h"
#include "examples/coordinator_model.h"
#include "rpc/cluster_spec.h"
#include "tests/integration/test_cluster.h"

namespace dfx {
namespace {

using coordinator::ClusterCoordinator;
using coordinator::CoordinatorOptions;
using coordinator::CoordinatorStats;
using coordinator::RemoteValue;
using testing::TestCluster;

constexpr int kBatch = 64;
constexpr int kShardRows = 4096;

struct Setup {
  std::unique_ptr<ClusterCoordinator> coord;
  int shard = -1;
};

Setup StartTraining(const TestCluster& cluster) {
  absl::StatusOr<ClusterDef> def = ParseClusterJson(cluster.json());
  REQUIRE(def.ok());
  absl::StatusOr<examples::CoordinatorModel> model =
      examples::BuildCoordinatorModel(2, 2, 0.2f, kBatch);
  REQUIRE(model.ok());
  CoordinatorOptions options;
  options.master = cluster.Target("chief", 0);
  options.step_timeout = absl::Seconds(60);
  options.probe_initial = absl::Milliseconds(50);
  options.probe_max = absl::Milliseconds(500);
  options.worker_give_up = absl::Minutes(2);
  auto coord = ClusterCoordinator::Create(*def, model->def, options);
  INFO(coord.status());
  REQUIRE(coord.ok());
  std::vector<Tensor> out;
  absl::Status s = testing::RunFirstStep((*coord)->session(), {}, {},
                                         {model->init}, &out);
  INFO(s);
  REQUIRE(s.ok());
  absl::StatusOr<int> shard = (*coord)->CreatePerWorkerValue(
      examples::LoadShard(kShardRows), absl::Seconds(60));
  INFO(shard.status());
  REQUIRE(shard.ok());
  return {*std::move(coord), *shard};
}

// Schedules `n` training closures, numbered from `first`.
std::vector<RemoteValue> ScheduleSteps(ClusterCoordinator* coord, int shard,
                                       int first, int n) {
  std::vector<RemoteValue> values;
  for (int k = first; k < first + n; ++k) {
    values.push_back(coord->Schedule(examples::TrainStep(shard)));
  }
  return values;
}

TEST_CASE("coordinator: a worker SIGKILLed mid-training costs no closure, "
          "rejoins and takes closures again, and the model reaches 0.9",
          "[coordinator]") {
  TestCluster cluster({{"chief", 1}, {"worker", 2}, {"ps", 2}});
  Setup setup = StartTraining(cluster);
  ClusterCoordinator* coord = setup.coord.get();
  std::vector<RemoteValue> all;

  // Both workers train.
  std::vector<RemoteValue> phase = ScheduleSteps(coord, setup.shard, 0, 150);
  all.insert(all.end(), phase.begin(), phase.end());
  REQUIRE(coord->Join(absl::Seconds(120)).ok());
  CoordinatorStats stats = coord->Stats();
  CHECK(stats.closures_per_worker[0] > 0);
  CHECK(stats.closures_per_worker[1] > 0);
  CHECK(stats.worker_losses == 0);

  // Worker 1 dies while closures run: they all still succeed, on worker 0.
  phase = ScheduleSteps(coord, setup.shard, 150, 150);
  all.insert(all.end(), phase.begin(), phase.end());
  cluster.Kill("worker", 1);
  absl::Status joined = coord->Join(absl::Seconds(120));
  INFO(joined);
  REQUIRE(joined.ok());
  stats = coord->Stats();
  CHECK(stats.worker_losses == 1);
  CHECK(stats.retried >= 1);
  CHECK_FALSE(stats.worker_up[1]);

  // Worker 1 comes back (a new process on its port): the coordinator
  // finds it, loads its shard again, and it takes closures again.
  cluster.Restart("worker", 1);
  const absl::Time give_up = absl::Now() + absl::Seconds(60);
  while (absl::Now() < give_up) {
    stats = coord->Stats();
    if (stats.worker_recoveries == 1 && stats.worker_up[1]) break;
    absl::SleepFor(absl::Milliseconds(50));
  }
  REQUIRE(stats.worker_recoveries == 1);
  REQUIRE(stats.worker_up[1]);
  const int64_t worker1_before = stats.closures_per_worker[1];
  phase = ScheduleSteps(coord, setup.shard, 300, 300);
  all.insert(all.end(), phase.begin(), phase.end());
  joined = coord->Join(absl::Seconds(120));
  INFO(joined);
  REQUIRE(joined.ok());
  stats = coord->Stats();
  CHECK(stats.closures_per_worker[1] > worker1_before);

  // Every closure succeeded (once counted), and the model learned.
  int succeeded = 0;
  for (const RemoteValue& v : all) {
    absl::StatusOr<std::vector<Tensor>> loss = v.Fetch(absl::Seconds(1));
    if (loss.ok()) ++succeeded;
  }
  CHECK(succeeded == 600);
  CHECK(stats.succeeded == 600);
  CHECK(stats.failed == 0);
  CHECK(stats.closures_per_worker[0] + stats.closures_per_worker[1] == 600);
  const float accuracy =
      examples::Accuracy(coord->session(), examples::MakeData(1024, 1));
  INFO("accuracy " << accuracy);
  CHECK(accuracy >= 0.9f);
}

TEST_CASE("coordinator: a ps killed mid-training ends Join with Unavailable "
          "naming the ps, and closures are not retried",
          "[coordinator]") {
  TestCluster cluster({{"chief", 1}, {"worker", 2}, {"ps", 2}});
  Setup setup = StartTraining(cluster);
  ClusterCoordinator* coord = setup.coord.get();
  ScheduleSteps(coord, setup.shard, 0, 20);
  REQUIRE(coord->Join(absl::Seconds(120)).ok());

  std::vector<RemoteValue> values = ScheduleSteps(coord, setup.shard, 20, 200);
  cluster.Kill("ps", 1);
  const absl::Status joined = coord->Join(absl::Seconds(60));
  INFO(joined);
  CHECK(absl::IsUnavailable(joined));
  CHECK(absl::StrContains(joined.message(), "/job:ps/replica:0/task:1"));
  const std::vector<std::string> named = UnavailableTasks(joined);
  CHECK(named == std::vector<std::string>{"/job:ps/replica:0/task:1"});
  const CoordinatorStats stats = coord->Stats();
  CHECK(stats.worker_losses == 0);
  CHECK(stats.failed >= 1);
  CHECK(stats.succeeded + stats.failed == 220);
  // The closures queued after the failure were cancelled, not run.
  int cancelled = 0;
  for (const RemoteValue& v : values) {
    absl::StatusOr<std::vector<Tensor>> r = v.Fetch(absl::Seconds(1));
    REQUIRE(v.IsReady());
    if (absl::IsCancelled(r.status())) ++cancelled;
  }
  CHECK(cancelled > 0);
}

TEST_CASE("coordinator: a closure's own error is reported, not retried",
          "[coordinator]") {
  TestCluster cluster({{"chief", 1}, {"worker", 2}, {"ps", 2}});
  Setup setup = StartTraining(cluster);
  ClusterCoordinator* coord = setup.coord.get();
  RemoteValue bad = coord->Schedule(
      [](coordinator::ClosureContext& ctx)
          -> absl::StatusOr<std::vector<Tensor>> {
        return ctx.Run({}, {"no_such_node:0"}, {});
      });
  const absl::Status joined = coord->Join(absl::Seconds(60));
  CHECK(absl::IsInvalidArgument(joined));
  CHECK(bad.attempts() == 1);
  CHECK(absl::IsInvalidArgument(bad.Fetch(absl::Seconds(1)).status()));
  // The error is reported once; the coordinator goes on.
  ScheduleSteps(coord, setup.shard, 0, 10);
  CHECK(coord->Join(absl::Seconds(60)).ok());
  CHECK(coord->Stats().succeeded == 10);
}

TEST_CASE("master: a failed step names the killed task in a payload that "
          "crosses gRPC, and the task rejoins when it is back",
          "[coordinator]") {
  TestCluster cluster({{"chief", 1}, {"worker", 2}, {"ps", 2}});
  Setup setup = StartTraining(cluster);
  Session* session = setup.coord->session();
  std::vector<Tensor> out;
  // Through the coordinator's own session, outside any closure.
  REQUIRE(session->Run({}, {"worker1/loss"}, {"worker1/step"}, &out).ok());

  cluster.Kill("worker", 1);
  absl::Status s =
      session->Run({}, {"worker1/loss"}, {"worker1/step"}, &out);
  INFO(s);
  CHECK(absl::IsUnavailable(s));
  CHECK(UnavailableTasks(s) ==
        std::vector<std::string>{"/job:worker/replica:0/task:1"});
  // Worker 0's steps go on meanwhile, and name nobody.
  CHECK(session->Run({}, {"worker0/loss"}, {"worker0/step"}, &out).ok());

  // A new process on the address: the session rejoins it; its iterator
  // went with the old process (FailedPrecondition: not initialized).
  cluster.Restart("worker", 1);
  const absl::Time give_up = absl::Now() + absl::Seconds(30);
  do {
    s = session->Run({}, {"worker1/loss"}, {"worker1/step"}, &out);
  } while (absl::IsUnavailable(s) && absl::Now() < give_up);
  INFO(s);
  CHECK(absl::IsFailedPrecondition(s));
  CHECK(UnavailableTasks(s).empty());
}

}  // namespace
}  // namespace dfx

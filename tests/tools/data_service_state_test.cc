// The tf.data service dispatcher's state machine
// (tools/cli/data_service_state.h): registration by fingerprint, shared jobs,
// tasks handed to workers and clients, the end of an iteration, and what
// heartbeats that stop cost.
#include "tools/cli/data_service_state.h"

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "runtime/file_policy.h"
#include "tools/cli/command.h"
#include "tools/cli/data_service.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace dfx::cli {
namespace {

using testing::IsOk;
using testing::StatusIs;

const absl::Time kStart = absl::FromUnixSeconds(1000);

tfdata::GetOrRegisterDatasetRequest Dataset(const std::string& node) {
  tfdata::GetOrRegisterDatasetRequest r;
  r.mutable_dataset()->mutable_graph()->add_node()->set_name(node);
  r.mutable_metadata()->set_compression(
      tfdata::DataServiceMetadata::COMPRESSION_SNAPPY);
  return r;
}

tfdata::GetOrCreateJobRequest Job(const std::string& dataset_id,
                                  const std::string& name = "") {
  tfdata::GetOrCreateJobRequest r;
  r.set_dataset_id(dataset_id);
  if (!name.empty()) r.set_job_name(name);
  return r;
}

tfdata::WorkerHeartbeatRequest Beat(const std::string& worker,
                                    std::vector<int64_t> current = {}) {
  tfdata::WorkerHeartbeatRequest r;
  r.set_worker_address(worker);
  for (int64_t t : current) r.add_current_tasks(t);
  return r;
}

tfdata::ClientHeartbeatResponse ClientBeat(DispatcherState& s, int64_t client,
                                           absl::Time now) {
  tfdata::ClientHeartbeatRequest r;
  r.set_iteration_client_id(client);
  auto response = s.ClientHeartbeat(r, now);
  REQUIRE(response.ok());
  return *response;
}

void Complete(DispatcherState& s, const std::string& worker, int64_t task) {
  tfdata::WorkerUpdateRequest u;
  u.set_worker_address(worker);
  tfdata::TaskProgress* p = u.add_updates();
  p->set_task_id(task);
  p->set_completed(true);
  REQUIRE_THAT(s.WorkerUpdate(u), IsOk());
}

TEST_CASE("The dispatcher names one dataset by its graph", "[data_service]") {
  DispatcherState s(absl::Seconds(10), absl::Seconds(60));
  auto a = s.GetOrRegisterDataset(Dataset("a"));
  auto again = s.GetOrRegisterDataset(Dataset("a"));
  auto b = s.GetOrRegisterDataset(Dataset("b"));
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CHECK(*again == *a);
  CHECK(*b != *a);
  CHECK(s.GetMetadata(*a)->compression() ==
        tfdata::DataServiceMetadata::COMPRESSION_SNAPPY);
  CHECK_THAT(s.GetMetadata("nope").status(),
             StatusIs(absl::StatusCode::kNotFound, "nope"));

  // TensorFlow's client names a pipeline's functions afresh each time.
  const auto with_function = [](const std::string& fn) {
    tfdata::GetOrRegisterDatasetRequest r = Dataset("map");
    NodeDef* map = r.mutable_dataset()->mutable_graph()->mutable_node(0);
    (*map->mutable_attr())["f"].mutable_func()->set_name(fn);
    r.mutable_dataset()
        ->mutable_graph()
        ->mutable_library()
        ->add_function()
        ->mutable_signature()
        ->set_name(fn);
    return r;
  };
  CHECK(*s.GetOrRegisterDataset(with_function("lambda_12")) ==
        *s.GetOrRegisterDataset(with_function("lambda_345")));

  // Pipelines that differ in a constant are two datasets.
  const auto with_value = [](int64_t v) {
    tfdata::GetOrRegisterDatasetRequest r = Dataset("const");
    NodeDef* c = r.mutable_dataset()->mutable_graph()->mutable_node(0);
    TensorProto* t = (*c->mutable_attr())["value"].mutable_tensor();
    t->set_dtype(DT_INT64);
    t->add_int64_val(v);
    return r;
  };
  CHECK(*s.GetOrRegisterDataset(with_value(4)) !=
        *s.GetOrRegisterDataset(with_value(8)));

  tfdata::GetOrRegisterDatasetRequest named = Dataset("c");
  named.set_dataset_id("mine");
  CHECK(*s.GetOrRegisterDataset(named) == "mine");
  tfdata::GetOrRegisterDatasetRequest other = Dataset("d");
  other.set_dataset_id("mine");
  CHECK_THAT(s.GetOrRegisterDataset(other).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "mine"));
}

TEST_CASE(
    "Jobs are shared by name, and unknown modes and round robin are refused",
    "[data_service]") {
  DispatcherState s(absl::Seconds(10), absl::Seconds(60));
  const std::string a = *s.GetOrRegisterDataset(Dataset("a"));
  const std::string b = *s.GetOrRegisterDataset(Dataset("b"));
  auto j1 = s.GetOrCreateJob(Job(a, "shared"));
  auto j2 = s.GetOrCreateJob(Job(a, "shared"));
  auto j3 = s.GetOrCreateJob(Job(a));
  REQUIRE(j1.ok());
  CHECK(*j2 == *j1);
  CHECK(*j3 != *j1);
  CHECK_THAT(s.GetOrCreateJob(Job(b, "shared")).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "shared"));
  CHECK_THAT(s.GetOrCreateJob(Job("404")).status(),
             StatusIs(absl::StatusCode::kNotFound));
  tfdata::GetOrCreateJobRequest bogus = Job(a);
  bogus.mutable_processing_mode_def()->set_sharding_policy(
      static_cast<tfdata::ProcessingModeDef::ShardingPolicy>(77));
  CHECK_THAT(s.GetOrCreateJob(bogus).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "77"));
  tfdata::GetOrCreateJobRequest rr = Job(a);
  rr.set_num_consumers(2);
  CHECK_THAT(s.GetOrCreateJob(rr).status(),
             StatusIs(absl::StatusCode::kUnimplemented, "round-robin"));
  CHECK_THAT(s.GetOrCreateIteration(12345, 0, kStart).status(),
             StatusIs(absl::StatusCode::kNotFound));
}

TEST_CASE(
    "Each worker gets a task of an iteration once, and the iteration ends when "
    "every task has",
    "[data_service]") {
  DispatcherState s(absl::Seconds(10), absl::Seconds(60));
  const std::string a = *s.GetOrRegisterDataset(Dataset("a"));
  REQUIRE(s.WorkerHeartbeat(Beat("w1:1"), kStart).ok());
  const int64_t job = *s.GetOrCreateJob(Job(a));
  const int64_t client = *s.GetOrCreateIteration(job, 0, kStart);

  auto w1 = s.WorkerHeartbeat(Beat("w1:1"), kStart);
  REQUIRE(w1.ok());
  REQUIRE(w1->new_tasks_size() == 1);
  const int64_t t1 = w1->new_tasks(0).task_id();
  CHECK(w1->new_tasks(0).dataset_def().graph().node(0).name() == "a");
  // A task the worker runs is not sent again.
  CHECK(s.WorkerHeartbeat(Beat("w1:1", {t1}), kStart)->new_tasks_size() == 0);

  // A worker that joins later serves the unfinished iteration too.
  auto w2 = s.WorkerHeartbeat(Beat("w2:1"), kStart);
  REQUIRE(w2->new_tasks_size() == 1);
  const int64_t t2 = w2->new_tasks(0).task_id();
  CHECK(s.Workers() == std::vector<std::string>{"w1:1", "w2:1"});

  tfdata::ClientHeartbeatResponse r = ClientBeat(s, client, kStart);
  CHECK(r.task_info_size() == 2);
  CHECK_FALSE(r.iteration_finished());
  Complete(s, "w1:1", t1);
  CHECK_FALSE(ClientBeat(s, client, kStart).iteration_finished());
  Complete(s, "w2:1", t2);
  CHECK(ClientBeat(s, client, kStart).iteration_finished());

  // A second reader of the same repetition joins the same iteration.
  const int64_t client2 = *s.GetOrCreateIteration(job, 0, kStart);
  CHECK(ClientBeat(s, client2, kStart).task_info_size() == 2);
  // Another worker's task is not this worker's to report.
  tfdata::WorkerUpdateRequest wrong;
  wrong.set_worker_address("w2:1");
  wrong.add_updates()->set_task_id(t1);
  CHECK_THAT(s.WorkerUpdate(wrong),
             StatusIs(absl::StatusCode::kInvalidArgument));
  tfdata::WorkerUpdateRequest unknown;
  unknown.set_worker_address("nobody:1");
  CHECK_THAT(s.WorkerUpdate(unknown), StatusIs(absl::StatusCode::kNotFound));
  CHECK_THAT(s.WorkerHeartbeat(Beat(""), kStart).status(),
             StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST_CASE(
    "A worker that stops heartbeating loses its tasks, and a released or "
    "silent client frees its iteration's tasks",
    "[data_service]") {
  DispatcherState s(absl::Seconds(10), absl::Seconds(60));
  const std::string a = *s.GetOrRegisterDataset(Dataset("a"));
  REQUIRE(s.WorkerHeartbeat(Beat("w1:1"), kStart).ok());
  REQUIRE(s.WorkerHeartbeat(Beat("w2:1"), kStart).ok());
  const int64_t job = *s.GetOrCreateJob(Job(a));
  const int64_t client = *s.GetOrCreateIteration(job, 0, kStart);
  const int64_t t1 =
      s.WorkerHeartbeat(Beat("w1:1"), kStart)->new_tasks(0).task_id();
  CHECK(ClientBeat(s, client, kStart).task_info_size() == 2);

  // w2 goes silent; w1 and the client keep beating.
  const absl::Time later = kStart + absl::Seconds(11);
  REQUIRE(s.WorkerHeartbeat(Beat("w1:1", {t1}), later).ok());
  ClientBeat(s, client, later);
  s.Expire(later);
  CHECK(s.Workers() == std::vector<std::string>{"w1:1"});
  tfdata::ClientHeartbeatResponse r = ClientBeat(s, client, later);
  REQUIRE(r.task_info_size() == 1);
  CHECK(r.task_info(0).worker_address() == "w1:1");
  Complete(s, "w1:1", t1);
  CHECK(ClientBeat(s, client, later).iteration_finished());

  // Released: the worker is told to drop the task; the client is gone.
  const int64_t job2 = *s.GetOrCreateJob(Job(a));
  const int64_t c2 = *s.GetOrCreateIteration(job2, 0, later);
  const int64_t t2 =
      s.WorkerHeartbeat(Beat("w1:1", {t1}), later)->new_tasks(0).task_id();
  REQUIRE_THAT(s.ReleaseIterationClient(c2), IsOk());
  auto dropped = s.WorkerHeartbeat(Beat("w1:1", {t2}), later);
  REQUIRE(dropped->tasks_to_delete_size() == 1);
  CHECK(dropped->tasks_to_delete(0) == t2);
  tfdata::ClientHeartbeatRequest gone;
  gone.set_iteration_client_id(c2);
  CHECK_THAT(s.ClientHeartbeat(gone, later).status(),
             StatusIs(absl::StatusCode::kNotFound));
  CHECK_THAT(s.ReleaseIterationClient(c2),
             StatusIs(absl::StatusCode::kNotFound));

  // A client silent past its timeout is released the same way.
  const int64_t job3 = *s.GetOrCreateJob(Job(a));
  const int64_t c3 = *s.GetOrCreateIteration(job3, 0, later);
  const absl::Time much_later = later + absl::Seconds(61);
  REQUIRE(s.WorkerHeartbeat(Beat("w1:1"), much_later).ok());
  s.Expire(much_later);
  gone.set_iteration_client_id(c3);
  CHECK_THAT(s.ClientHeartbeat(gone, much_later).status(),
             StatusIs(absl::StatusCode::kNotFound));
}

// Splits 0..n-1, as the dispatcher's provider of a source of n elements.
class CountingSplits final : public data::SplitProvider {
 public:
  explicit CountingSplits(int64_t n) : n_(n) {}
  absl::Status GetNext(int64_t* split, bool* end) override {
    *end = next_ >= n_;
    if (!*end) *split = next_++;
    return absl::OkStatus();
  }

 private:
  const int64_t n_;
  int64_t next_ = 0;
};

// Five splits for any dataset but one whose graph's first node is named
// "random" (not splittable: TensorFlow's Unimplemented).
DispatcherState::SplitProviderFactory FiveSplits() {
  return [](const tfdata::DatasetDef& def)
             -> absl::StatusOr<std::unique_ptr<data::SplitProvider>> {
    if (def.graph().node(0).name() == "random") {
      return absl::UnimplementedError(
          "Cannot create split providers for dataset of type "
          "RandomDatasetOp::Dataset");
    }
    return std::make_unique<CountingSplits>(5);
  };
}

tfdata::GetOrCreateJobRequest DynamicJob(const std::string& dataset_id) {
  tfdata::GetOrCreateJobRequest r = Job(dataset_id);
  r.mutable_processing_mode_def()->set_sharding_policy(
      tfdata::ProcessingModeDef::DYNAMIC);
  return r;
}

// The next split of the iteration: its index, or -1 at the end. With a
// task, its request number `index`.
int64_t Split(DispatcherState& s, int64_t iteration, int64_t task = 0,
              int64_t index = 0) {
  tfdata::GetSplitRequest r;
  r.set_iteration_id(iteration);
  r.set_dfx_task_id(task);
  r.set_dfx_request_index(index);
  auto response = s.GetSplit(r);
  INFO("GetSplit(iteration " << iteration << ", task " << task << ", index "
                             << index << "): " << response.status());
  REQUIRE(response.ok());
  if (response->end_of_splits()) return -1;
  REQUIRE(response->split().int64_val_size() == 1);
  return response->split().int64_val(0);
}

TEST_CASE(
    "A DYNAMIC iteration gives every worker a task and each split once, "
    "and a lost worker leaves the splits to the others",
    "[data_service]") {
  DispatcherState s(absl::Seconds(10), absl::Seconds(60), FiveSplits());
  const std::string a = *s.GetOrRegisterDataset(Dataset("a"));
  const int64_t job = *s.GetOrCreateJob(DynamicJob(a));
  REQUIRE(s.WorkerHeartbeat(Beat("w1:1"), kStart).ok());
  const int64_t client = *s.GetOrCreateIteration(job, 0, kStart);
  auto w1 = s.WorkerHeartbeat(Beat("w1:1"), kStart);
  REQUIRE(w1->new_tasks_size() == 1);
  CHECK(w1->new_tasks(0).processing_mode_def().sharding_policy() ==
        tfdata::ProcessingModeDef::DYNAMIC);
  const int64_t iteration = w1->new_tasks(0).iteration_id();
  // A worker that joins later reads splits too.
  auto w2 = s.WorkerHeartbeat(Beat("w2:1"), kStart);
  REQUIRE(w2->new_tasks_size() == 1);
  CHECK(ClientBeat(s, client, kStart).task_info_size() == 2);
  CHECK(Split(s, iteration) == 0);
  CHECK(Split(s, iteration) == 1);

  // w1 stops: its task goes, w2's reads the splits left.
  const absl::Time later = kStart + absl::Seconds(11);
  REQUIRE(s.WorkerHeartbeat(Beat("w2:1", {w2->new_tasks(0).task_id()}), later)
              .ok());
  ClientBeat(s, client, later);
  s.Expire(later);
  tfdata::ClientHeartbeatResponse r = ClientBeat(s, client, later);
  REQUIRE(r.task_info_size() == 1);
  CHECK(r.task_info(0).worker_address() == "w2:1");
  CHECK_FALSE(r.iteration_finished());
  CHECK(Split(s, iteration) == 2);
  CHECK(Split(s, iteration) == 3);
  CHECK(Split(s, iteration) == 4);
  CHECK(Split(s, iteration) == -1);
  CHECK(Split(s, iteration) == -1);
  Complete(s, "w2:1", w2->new_tasks(0).task_id());
  CHECK(ClientBeat(s, client, later).iteration_finished());
}

TEST_CASE(
    "A DYNAMIC iteration of a source that cannot be split is the factory's "
    "error, and GetSplit refuses what has no splits",
    "[data_service]") {
  DispatcherState s(absl::Seconds(10), absl::Seconds(60), FiveSplits());
  const std::string random = *s.GetOrRegisterDataset(Dataset("random"));
  CHECK_THAT(
      s.GetOrCreateIteration(*s.GetOrCreateJob(DynamicJob(random)), 0, kStart)
          .status(),
      StatusIs(absl::StatusCode::kUnimplemented,
               "Cannot create split providers"));
  const std::string a = *s.GetOrRegisterDataset(Dataset("a"));
  REQUIRE(s.WorkerHeartbeat(Beat("w1:1"), kStart).ok());
  REQUIRE(s.GetOrCreateIteration(*s.GetOrCreateJob(Job(a)), 0, kStart).ok());
  auto w1 = s.WorkerHeartbeat(Beat("w1:1"), kStart);
  REQUIRE(w1->new_tasks_size() == 1);
  tfdata::GetSplitRequest r;
  r.set_iteration_id(w1->new_tasks(0).iteration_id());
  CHECK_THAT(s.GetSplit(r).status(),
             StatusIs(absl::StatusCode::kFailedPrecondition, "not DYNAMIC"));
  r.set_iteration_id(424242);
  CHECK_THAT(s.GetSplit(r).status(),
             StatusIs(absl::StatusCode::kNotFound, "424242"));
}

TEST_CASE(
    "A dispatcher with a journal comes back with its datasets, jobs, "
    "clients, tasks and splits, past a torn last record",
    "[data_service]") {
  testing::TempDir dir;
  std::string a;
  int64_t job = 0, client = 0, task = 0, iteration = 0;
  {
    DispatcherState s(absl::Seconds(10), absl::Seconds(60), FiveSplits());
    REQUIRE_THAT(s.OpenJournal(dir.path(), kStart), IsOk());
    a = *s.GetOrRegisterDataset(Dataset("a"));
    job = *s.GetOrCreateJob(DynamicJob(a));
    REQUIRE(s.WorkerHeartbeat(Beat("w1:1"), kStart).ok());
    client = *s.GetOrCreateIteration(job, 0, kStart);
    auto w1 = s.WorkerHeartbeat(Beat("w1:1"), kStart);
    REQUIRE(w1->new_tasks_size() == 1);
    task = w1->new_tasks(0).task_id();
    iteration = w1->new_tasks(0).iteration_id();
    CHECK(Split(s, iteration) == 0);
    CHECK(Split(s, iteration) == 1);
    CHECK(Split(s, iteration, task, 1) == 2);
  }
  // A crash in the middle of a record: its bytes are dropped.
  {
    std::ofstream torn(dir.path() + "/dispatcher_journal",
                       std::ios::binary | std::ios::app);
    torn.write("\x30\x00\x00\x00\x01\x02", 6);
  }
  const absl::Time later = kStart + absl::Seconds(30);
  {
    DispatcherState s(absl::Seconds(10), absl::Seconds(60), FiveSplits());
    REQUIRE_THAT(s.OpenJournal(dir.path(), later), IsOk());
    CHECK(*s.GetOrRegisterDataset(Dataset("a")) == a);
    // The job's iteration is the one before the restart: a second client
    // of it sees the same task.
    auto second = s.GetOrCreateIteration(job, 0, later);
    REQUIRE(second.ok());
    REQUIRE(ClientBeat(s, *second, later).task_info_size() == 1);
    CHECK(ClientBeat(s, *second, later).task_info(0).task_id() == task);
    tfdata::ClientHeartbeatResponse r = ClientBeat(s, client, later);
    REQUIRE(r.task_info_size() == 1);
    CHECK(r.task_info(0).task_id() == task);
    // The worker goes on with the task it runs: nothing new, nothing to
    // delete.
    auto w1 = s.WorkerHeartbeat(Beat("w1:1", {task}), later);
    CHECK(w1->new_tasks_size() == 0);
    CHECK(w1->tasks_to_delete_size() == 0);
    // The task's answer was lost: asked again, it is the same split.
    CHECK(Split(s, iteration, task, 1) == 2);
    CHECK(Split(s, iteration, task, 2) == 3);
    tfdata::GetSplitRequest skipped;
    skipped.set_iteration_id(iteration);
    skipped.set_dfx_task_id(task);
    skipped.set_dfx_request_index(4);
    CHECK_THAT(s.GetSplit(skipped).status(),
               StatusIs(absl::StatusCode::kInvalidArgument));
    // New ids do not reuse old ones.
    const std::string b = *s.GetOrRegisterDataset(Dataset("b"));
    CHECK(b != a);
    CHECK(std::stoll(b) > client);
  }
  {
    DispatcherState s(absl::Seconds(10), absl::Seconds(60), FiveSplits());
    REQUIRE_THAT(s.OpenJournal(dir.path(), later), IsOk());
    CHECK(Split(s, iteration, task, 2) == 3);
    CHECK(Split(s, iteration) == 4);
    CHECK(Split(s, iteration) == -1);
    // Replayed workers and clients count from the replay.
    s.Expire(later + absl::Seconds(5));
    CHECK(ClientBeat(s, client, later).task_info_size() == 1);
  }
}

// A provider of 1,000 splits, so that a long run journals many.
DispatcherState::SplitProviderFactory ManySplits() {
  return [](const tfdata::DatasetDef&)
             -> absl::StatusOr<std::unique_ptr<data::SplitProvider>> {
    return std::make_unique<CountingSplits>(1000);
  };
}

// What a client, a worker and a task can observe of the state, as text.
std::string Observe(DispatcherState& s, const std::vector<int64_t>& clients,
                    int64_t iteration, int64_t task, int64_t task_index,
                    absl::Time now) {
  std::string out;
  for (int64_t c : clients) {
    tfdata::ClientHeartbeatRequest r;
    r.set_iteration_client_id(c);
    auto beat = s.ClientHeartbeat(r, now);
    out += "client " + std::to_string(c) + ": ";
    out += beat.ok() ? beat->ShortDebugString() : beat.status().ToString();
    out += "\n";
  }
  for (const char* w : {"w1:1", "w2:1"}) {
    auto beat = s.WorkerHeartbeat(Beat(w), now);
    out += std::string(w) + ": ";
    if (beat.ok()) {
      for (const tfdata::TaskDef& t : beat->new_tasks()) {
        out += std::to_string(t.task_id()) + "/" +
               std::to_string(t.iteration_id()) + "/" +
               std::to_string(t.worker_index()) + " ";
      }
    } else {
      out += beat.status().ToString();
    }
    out += "\n";
  }
  // The task's last answer again, then the splits that follow, and ids.
  const int64_t again = Split(s, iteration, task, task_index);
  const int64_t next = Split(s, iteration, task, task_index + 1);
  const int64_t untasked = Split(s, iteration);
  out += "again " + std::to_string(again) + " next " + std::to_string(next) +
         " " + std::to_string(untasked) + "\n";
  out += "new dataset " + *s.GetOrRegisterDataset(Dataset("late")) + "\n";
  return out;
}

TEST_CASE(
    "A journal that outgrows its limit is compacted, and the dispatcher "
    "comes back from it as from the whole journal",
    "[data_service]") {
  testing::TempDir whole_dir, compacted_dir;
  std::vector<int64_t> clients;
  int64_t iteration = 0, task = 0, task_index = 0;
  int64_t whole_bytes = 0, compacted_bytes = 0;
  // The same history on both: datasets, a DYNAMIC and a static job, two
  // workers, 600 splits, a released client, a finished task, a lost
  // worker.
  auto history = [&](DispatcherState& s) {
    s.SetWorkerAddresses({"w1:1", "w2:1"});
    const std::string a = *s.GetOrRegisterDataset(Dataset("a"));
    const std::string b = *s.GetOrRegisterDataset(Dataset("b"));
    const int64_t dynamic = *s.GetOrCreateJob(DynamicJob(a));
    tfdata::GetOrCreateJobRequest data = Job(b, "static");
    data.mutable_processing_mode_def()->set_sharding_policy(
        tfdata::ProcessingModeDef::DATA);
    const int64_t shard = *s.GetOrCreateJob(data);
    REQUIRE(s.WorkerHeartbeat(Beat("w1:1"), kStart).ok());
    REQUIRE(s.WorkerHeartbeat(Beat("w2:1"), kStart).ok());
    clients = {*s.GetOrCreateIteration(dynamic, 0, kStart),
               *s.GetOrCreateIteration(shard, 0, kStart),
               *s.GetOrCreateIteration(shard, 0, kStart)};
    auto w1 = s.WorkerHeartbeat(Beat("w1:1"), kStart);
    REQUIRE(w1->new_tasks_size() == 2);
    for (const tfdata::TaskDef& t : w1->new_tasks()) {
      if (t.processing_mode_def().sharding_policy() ==
          tfdata::ProcessingModeDef::DYNAMIC) {
        iteration = t.iteration_id();
        task = t.task_id();
      }
    }
    for (task_index = 1; task_index <= 300; ++task_index) {
      REQUIRE(Split(s, iteration, task, task_index) >= 0);
      REQUIRE(Split(s, iteration) >= 0);
    }
    --task_index;
    // A released client; a finished task; a fourth client on a second
    // repetition, released too (its iteration goes).
    REQUIRE_THAT(s.ReleaseIterationClient(clients[2]), IsOk());
    Complete(s, "w1:1",
             w1->new_tasks(0).task_id() == task ? w1->new_tasks(1).task_id()
                                                : w1->new_tasks(0).task_id());
    const int64_t gone = *s.GetOrCreateIteration(dynamic, 1, kStart);
    REQUIRE_THAT(s.ReleaseIterationClient(gone), IsOk());
    clients.push_back(gone);
    // w2 stops heartbeating: its unfinished tasks are lost.
    const absl::Time later = kStart + absl::Seconds(11);
    REQUIRE(s.WorkerHeartbeat(Beat("w1:1"), later).ok());
    s.Expire(later);
  };
  {
    DispatcherState whole(absl::Seconds(10), absl::Seconds(60), ManySplits());
    whole.SetJournalCompactionBytes(int64_t{1} << 40);
    REQUIRE_THAT(whole.OpenJournal(whole_dir.path(), kStart), IsOk());
    history(whole);
    CHECK(whole.JournalCompactions() == 0);
    whole_bytes = whole.JournalBytes();
  }
  {
    DispatcherState compacted(absl::Seconds(10), absl::Seconds(60),
                              ManySplits());
    compacted.SetJournalCompactionBytes(4096);
    REQUIRE_THAT(compacted.OpenJournal(compacted_dir.path(), kStart), IsOk());
    history(compacted);
    CHECK(compacted.JournalCompactions() >= 2);
    compacted_bytes = compacted.JournalBytes();
    // The file is what the state says, and nothing is left beside it.
    CHECK(std::filesystem::file_size(compacted_dir.path() +
                                     "/dispatcher_journal") ==
          static_cast<uintmax_t>(compacted_bytes));
    CHECK(!std::filesystem::exists(compacted_dir.path() +
                                   "/dispatcher_journal.compacting"));
  }
  CHECK(compacted_bytes < 8192);
  CHECK(whole_bytes > 4 * compacted_bytes);

  // Both come back the same: clients' tasks, the workers' tasks, the
  // task's repeated request, the splits that follow, the next id.
  const absl::Time later = kStart + absl::Seconds(20);
  std::string from_whole, from_compacted;
  {
    DispatcherState s(absl::Seconds(10), absl::Seconds(60), ManySplits());
    REQUIRE_THAT(s.OpenJournal(whole_dir.path(), later), IsOk());
    from_whole = Observe(s, clients, iteration, task, task_index, later);
  }
  {
    DispatcherState s(absl::Seconds(10), absl::Seconds(60), ManySplits());
    s.SetJournalCompactionBytes(4096);
    REQUIRE_THAT(s.OpenJournal(compacted_dir.path(), later), IsOk());
    from_compacted = Observe(s, clients, iteration, task, task_index, later);
  }
  CHECK(from_compacted == from_whole);
  // What was observed is the history's: the splits go on after 600.
  CHECK_THAT(from_whole, Catch::Contains("again 598 next 600 601"));
  // w2, expired before the restart, is new when it comes back: it gets a
  // task of the unfinished DYNAMIC iteration.
  CHECK_THAT(from_whole, Catch::Contains("w2:1: 10"));
  CHECK_THAT(from_whole, Catch::Contains("Iteration client id not found"));
}

TEST_CASE(
    "Static sharding gives each task its worker's index among the "
    "configured addresses, and refuses workers that are not among them",
    "[data_service]") {
  DispatcherState s(absl::Seconds(10), absl::Seconds(60));
  const std::string a = *s.GetOrRegisterDataset(Dataset("a"));
  tfdata::GetOrCreateJobRequest data = Job(a);
  data.mutable_processing_mode_def()->set_sharding_policy(
      tfdata::ProcessingModeDef::DATA);

  // Without a list, no worker has an index: TensorFlow's NotFound.
  REQUIRE(s.WorkerHeartbeat(Beat("h:1"), kStart).ok());
  CHECK_THAT(
      s.GetOrCreateIteration(*s.GetOrCreateJob(data), 0, kStart).status(),
      StatusIs(absl::StatusCode::kNotFound,
               "Worker h:1 is not in the workers list."));

  DispatcherState t(absl::Seconds(10), absl::Seconds(60));
  t.SetWorkerAddresses({"other:5", "h:%port%", "h"});
  const std::string b = *t.GetOrRegisterDataset(Dataset("a"));
  data.set_dataset_id(b);
  CHECK_THAT(t.WorkerHeartbeat(Beat("stranger:1"), kStart).status(),
             StatusIs(absl::StatusCode::kFailedPrecondition, "not configured"));
  REQUIRE(t.WorkerHeartbeat(Beat("h:1"), kStart).ok());
  REQUIRE(t.GetOrCreateIteration(*t.GetOrCreateJob(data), 0, kStart).ok());
  auto w1 = t.WorkerHeartbeat(Beat("h:1"), kStart);
  REQUIRE(w1->new_tasks_size() == 1);
  CHECK(w1->new_tasks(0).num_workers() == 3);
  CHECK(w1->new_tasks(0).worker_index() == 1);
  auto w2 = t.WorkerHeartbeat(Beat("h:2"), kStart);
  REQUIRE(w2->new_tasks_size() == 1);
  CHECK(w2->new_tasks(0).worker_index() == 2);
  // A third worker of the host: no entry is left, so no task.
  CHECK(t.WorkerHeartbeat(Beat("h:3"), kStart)->new_tasks_size() == 0);
}

TEST_CASE("dfx data-service refuses bad flags before serving",
          "[data_service]") {
  const auto run = [](std::vector<std::string> args) {
    std::ostringstream out, err;
    const int code = DataServiceMain(args, out, err);
    return std::make_pair(code, err.str());
  };
  CHECK(run({}).first == kExitUsage);
  CHECK(run({"--help"}).first == kExitOk);
  auto r = run({"janitor"});
  CHECK(r.first == kExitUsage);
  CHECK(r.second.find("unknown role 'janitor'") != std::string::npos);
  r = run({"dispatcher"});
  CHECK(r.first == kExitUsage);
  CHECK(r.second.find("--port is required") != std::string::npos);
  r = run({"dispatcher", "--port", "70000"});
  CHECK(r.first == kExitUsage);
  CHECK(r.second.find("not a port number") != std::string::npos);
  r = run({"worker", "--port", "1234"});
  CHECK(r.first == kExitUsage);
  CHECK(r.second.find("--dispatcher is required") != std::string::npos);
  r = run({"worker", "--port", "0", "--dispatcher", "localhost:1"});
  CHECK(r.first == kExitUsage);
  CHECK(r.second.find("--worker-address") != std::string::npos);
  CHECK(run({"dispatcher", "--bogus", "1"}).first == kExitUsage);
  // A work directory that cannot be made: the error, before serving.
  r = run({"dispatcher", "--port", "0", "--work-dir", "/dev/null/journal"});
  CHECK(r.first == kExitError);
  CHECK(r.second.find("work directory") != std::string::npos);
  // A data directory that is not there: refused, naming it, and no
  // confinement is left set.
  for (const char* role : {"dispatcher", "worker"}) {
    r = run({role, "--port", "1234", "--dispatcher", "localhost:1",
             "--data-dir", "/nonexistent/dfx-data"});
    CHECK(r.first == kExitUsage);
    CHECK(r.second.find("/nonexistent/dfx-data") != std::string::npos);
  }
  CHECK(DataDir().empty());
}

}  // namespace
}  // namespace dfx::cli

// Training with a ClusterCoordinator (coordinator/cluster_coordinator.h),
// TensorFlow's ParameterServerStrategy V2 in C++: the model of
// examples/coordinator_model.h (variables on the `ps` tasks, one copy of
// the step per worker, each worker's tf.data iterator over its data shard
// made on that worker as a per-worker value), steps scheduled as closures
// that any free worker runs.
// A worker that dies meanwhile costs only time: its closure runs again on
// another worker, and the worker takes closures again once it is back.
//
//   build/bin/dfx cluster up --workers 2 --ps 2 --dir /tmp/c
//   build/bin/example_coordinator_train --cluster /tmp/c/cluster.json
//   build/bin/dfx cluster down --dir /tmp/c
//
// The master is --master, else the cluster's `chief` task 0 when it has
// one, else worker 0 (then that worker must not die). Exit status 0 when
// every closure succeeded and the model reaches --min-accuracy.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "coordinator/cluster_coordinator.h"
#include "examples/coordinator_model.h"
#include "rpc/cluster_spec.h"

namespace {

using namespace dfx;  // NOLINT: an example reads better without prefixes

struct Options {
  std::string cluster_file;
  std::string master;
  int steps = 600;
  int batch = 64;
  int log_every = 100;
  float learning_rate = 0.2f;
  float min_accuracy = 0.9f;
  int round_trips = 0;
};

// With --round-trips N: the cost of a closure against the step it runs.
// Interleaved rounds of N Schedule(step).Fetch() round trips and N direct
// Session::Run calls of worker 0's step (the same fetches and targets);
// the median of each round, best of 5 rounds, in microseconds.
void TimeRoundTrips(coordinator::ClusterCoordinator* coord, int shard,
                    int n) {
  using Clock = std::chrono::steady_clock;
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  double best_closure = 1e30, best_direct = 1e30;
  for (int round = 0; round < 5; ++round) {
    std::vector<double> closure, direct;
    for (int i = 0; i < n; ++i) {
      auto t0 = Clock::now();
      absl::StatusOr<std::vector<Tensor>> r =
          coord->Schedule(examples::TrainStep(shard)).Fetch(absl::Minutes(1));
      auto t1 = Clock::now();
      std::vector<Tensor> out;
      absl::Status s = coord->session()->Run({}, {"worker0/loss"},
                                             {"worker0/step"}, &out);
      auto t2 = Clock::now();
      if (!r.ok() || !s.ok()) {
        std::fprintf(stderr, "round trips: %s %s\n",
                     r.status().ToString().c_str(), s.ToString().c_str());
        return;
      }
      closure.push_back(std::chrono::duration<double, std::micro>(t1 - t0)
                            .count());
      direct.push_back(std::chrono::duration<double, std::micro>(t2 - t1)
                           .count());
    }
    best_closure = std::min(best_closure, median(closure));
    best_direct = std::min(best_direct, median(direct));
  }
  std::printf("round trip: closure %.0f us, direct Session::Run %.0f us "
              "(closure / direct %.2f)\n",
              best_closure, best_direct, best_closure / best_direct);
}

int Run(const Options& opt) {
  absl::StatusOr<ClusterDef> cluster = ReadClusterJsonFile(opt.cluster_file);
  if (!cluster.ok()) {
    std::fprintf(stderr, "%s\n", cluster.status().ToString().c_str());
    return 2;
  }
  int num_ps = 0, num_workers = 0;
  for (const JobDef& job : cluster->job()) {
    if (job.name() == "ps") num_ps = job.tasks_size();
    if (job.name() == "worker") num_workers = job.tasks_size();
  }
  if (num_ps == 0 || num_workers == 0) {
    std::fprintf(stderr, "the cluster needs ps and worker tasks\n");
    return 2;
  }
  std::string master = opt.master;
  if (master.empty()) {
    absl::StatusOr<std::string> chief = TaskAddress(*cluster, "chief", 0);
    absl::StatusOr<std::string> worker0 = TaskAddress(*cluster, "worker", 0);
    master = "grpc://" + (chief.ok() ? *chief : *worker0);
  }

  absl::StatusOr<examples::CoordinatorModel> model =
      examples::BuildCoordinatorModel(num_workers, num_ps,
                                      opt.learning_rate, opt.batch);
  if (!model.ok()) {
    std::fprintf(stderr, "%s\n", model.status().ToString().c_str());
    return 1;
  }
  coordinator::CoordinatorOptions options;
  options.master = master;
  auto coord =
      coordinator::ClusterCoordinator::Create(*cluster, model->def, options);
  if (!coord.ok()) {
    std::fprintf(stderr, "coordinator: %s\n",
                 coord.status().ToString().c_str());
    return 1;
  }
  std::vector<Tensor> out;
  absl::Status s = (*coord)->session()->Run({}, {}, {model->init}, &out);
  if (!s.ok()) {
    std::fprintf(stderr, "init: %s\n", s.ToString().c_str());
    return 1;
  }
  absl::StatusOr<int> shard = (*coord)->CreatePerWorkerValue(
      examples::LoadShard(4096), absl::Minutes(1));
  if (!shard.ok()) {
    std::fprintf(stderr, "shards: %s\n", shard.status().ToString().c_str());
    return 1;
  }

  const examples::Data eval = examples::MakeData(1024, 1);
  const auto start = std::chrono::steady_clock::now();
  std::vector<coordinator::RemoteValue> losses;
  for (int k = 0; k < opt.steps; ++k) {
    losses.push_back((*coord)->Schedule(examples::TrainStep(*shard)));
  }
  for (int k = opt.log_every - 1; k < opt.steps; k += opt.log_every) {
    absl::StatusOr<std::vector<Tensor>> loss =
        losses[k].Fetch(absl::Minutes(10));
    if (!loss.ok()) break;  // Join reports it
    std::printf("closure %4d (worker %d)  loss %.4f  eval accuracy %.3f\n",
                k + 1, losses[k].worker_index(), (*loss)[0].scalar<float>(),
                examples::Accuracy((*coord)->session(), eval));
    std::fflush(stdout);
  }
  s = (*coord)->Join(absl::Minutes(10));
  const double seconds = std::chrono::duration<double>(
                             std::chrono::steady_clock::now() - start)
                             .count();
  const coordinator::CoordinatorStats stats = (*coord)->Stats();
  std::printf("closures: %lld succeeded, %lld failed, %lld retried; worker "
              "losses %lld, recoveries %lld; per worker:",
              static_cast<long long>(stats.succeeded),
              static_cast<long long>(stats.failed),
              static_cast<long long>(stats.retried),
              static_cast<long long>(stats.worker_losses),
              static_cast<long long>(stats.worker_recoveries));
  for (int64_t n : stats.closures_per_worker) {
    std::printf(" %lld", static_cast<long long>(n));
  }
  std::printf("\n");
  if (!s.ok()) {
    std::fprintf(stderr, "training failed: %s\n", s.ToString().c_str());
    return 1;
  }
  if (opt.round_trips > 0) {
    TimeRoundTrips(coord->get(), *shard, opt.round_trips);
  }
  const float accuracy = examples::Accuracy((*coord)->session(), eval);
  std::printf("trained %d closures on %d workers and %d ps tasks in %.1f s "
              "(%.0f examples/s): accuracy %.3f\n",
              opt.steps, num_workers, num_ps, seconds,
              opt.steps * opt.batch / seconds, accuracy);
  return accuracy >= opt.min_accuracy ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", flag.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (flag == "--cluster") {
      opt.cluster_file = value();
    } else if (flag == "--master") {
      opt.master = value();
    } else if (flag == "--steps") {
      opt.steps = std::atoi(value().c_str());
    } else if (flag == "--batch") {
      opt.batch = std::atoi(value().c_str());
    } else if (flag == "--log-every") {
      opt.log_every = std::atoi(value().c_str());
    } else if (flag == "--learning-rate") {
      opt.learning_rate = std::strtof(value().c_str(), nullptr);
    } else if (flag == "--round-trips") {
      opt.round_trips = std::atoi(value().c_str());
    } else if (flag == "--min-accuracy") {
      opt.min_accuracy = std::strtof(value().c_str(), nullptr);
    } else {
      std::fprintf(stderr,
                   "usage: example_coordinator_train --cluster cluster.json "
                   "[--master grpc://host:port] [--steps N] [--batch N] "
                   "[--log-every N] [--learning-rate F] [--min-accuracy F] "
                   "[--round-trips N]\n");
      return 2;
    }
  }
  if (opt.cluster_file.empty() || opt.steps < 1 || opt.batch < 1 ||
      opt.batch > 4096 || opt.log_every < 1) {
    std::fprintf(stderr, "example_coordinator_train: --cluster is required; "
                         "steps, batch (<= 4096) and log-every must be "
                         "positive\n");
    return 2;
  }
  return Run(opt);
}

// Synchronous parameter-server training with the C++ API, as TensorFlow's
// SyncReplicasOptimizer does it (graph/builder/sync_replicas.h): the
// variables live on the `ps` tasks; every `worker` task runs its own loop
// through its own session (between-graph replication) and puts its
// gradients into one ConditionalAccumulator per variable, tagged with the
// global step it computed them at; the chief (worker 0) takes the mean of
// --aggregate gradients per variable, applies it once (Adam), advances the
// global step and hands out tokens of the new step, which the workers wait
// for before their next step. With more workers than --aggregate, the
// slowest gradient of each step arrives after its step was applied and is
// dropped (a backup worker); the example counts them.
//
//   build/bin/dfx cluster up --workers 3 --ps 1 --dir /tmp/c
//   build/bin/example_sync_ps_train --cluster /tmp/c/cluster.json --aggregate 2
//   build/bin/dfx cluster down --dir /tmp/c
//
// Exit status 0 when the global step reached --steps, every worker's
// gradients were either aggregated or dropped as stale, and the model
// reaches --min-accuracy.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "graph/builder/ops.h"
#include "graph/builder/sync_replicas.h"
#include "graph/builder/train.h"
#include "rpc/cluster_spec.h"
#include "runtime/session.h"

namespace {

using namespace dfx;  // NOLINT: an example reads better without prefixes

constexpr int kFeatures = 16, kHidden = 32, kClasses = 4;

struct Options {
  std::string cluster_file;
  int steps = 100;      // global steps (applied updates)
  int batch = 64;       // per worker and step
  int aggregate = -1;   // gradients per update; -1: every worker's
  float min_accuracy = 0.85f;
};

struct Data {
  Tensor x, y;
};

// Examples whose class follows a fixed linear rule of the features.
Data MakeData(int rows, uint32_t seed) {
  std::mt19937 rule_gen(5);
  std::normal_distribution<float> normal;
  std::vector<float> rule(kFeatures * kClasses);
  for (float& v : rule) v = normal(rule_gen);
  std::mt19937 gen(seed);
  Data d{Tensor(DT_FLOAT, TensorShape({rows, kFeatures})),
         Tensor(DT_INT32, TensorShape({rows}))};
  for (int r = 0; r < rows; ++r) {
    float* x = d.x.data<float>() + r * kFeatures;
    for (int f = 0; f < kFeatures; ++f) x[f] = normal(gen);
    int best = 0;
    float best_score = -1e30f;
    for (int c = 0; c < kClasses; ++c) {
      float s = 0;
      for (int f = 0; f < kFeatures; ++f) s += x[f] * rule[f * kClasses + c];
      if (s > best_score) {
        best_score = s;
        best = c;
      }
    }
    d.y.data<int32_t>()[r] = best;
  }
  return d;
}

// One worker's graph: the same variables, accumulators and token queue
// (same names on the same ps tasks) in every worker's, the compute on this
// worker.
struct Graph {
  GraphDef def;
  std::string init, chief_init, init_tokens, sync, close_tokens;
  std::string train, local_init, local_start, global_step, num_accumulated;
  std::string loss, logits;
};

absl::StatusOr<Graph> BuildGraph(int worker, int num_ps, int aggregate,
                                 int total) {
  Scope root = Scope::NewRootScope();
  train::ReplicaDeviceSetter setter(num_ps);
  std::vector<train::Variable> vars;
  auto variable = [&](const std::string& name, std::vector<int64_t> shape,
                      int64_t seed) {
    const Scope s = root.WithDevice(setter.NextDevice(DT_FLOAT, shape));
    Output init = seed == 0 ? train::Zeros(s, shape)
                            : train::GlorotUniform(s, shape, seed);
    vars.push_back(
        train::NewVariable(s.WithOpName(name), init, DT_FLOAT, shape));
    return vars.back();
  };
  train::Variable w1 = variable("w1", {kFeatures, kHidden}, 1);
  train::Variable b1 = variable("b1", {kHidden}, 0);
  train::Variable w2 = variable("w2", {kHidden, kClasses}, 2);
  train::Variable b2 = variable("b2", {kClasses}, 0);
  const Scope on_ps0 = root.WithDevice("/job:ps/task:0");
  train::Variable global_step = train::NewVariable(
      on_ps0.WithOpName("global_step"), ops::Const(on_ps0, int64_t{0}),
      DT_INT64, {});

  const Scope s = root.WithDevice(absl::StrCat("/job:worker/task:", worker));
  Output x = ops::Placeholder(s.WithOpName("x"), DT_FLOAT);
  Output y = ops::Placeholder(s.WithOpName("y"), DT_INT32);
  Output h = ops::Relu(
      s, ops::BiasAdd(s, ops::MatMul(s, x, w1.value), b1.value));
  Output logits = ops::BiasAdd(s.WithOpName("logits"),
                               ops::MatMul(s, h, w2.value), b2.value);
  Output loss = ops::Mean(
      s.WithOpName("loss"),
      ops::SparseSoftmaxCrossEntropyWithLogits(s, logits, y).loss,
      ops::Const(s, 0));

  // The wrapped optimizer lives as long as the graph is built.
  train::Adam adam(0.01f);
  train::SyncReplicasOptimizer sync(&adam, aggregate, total);
  absl::Status status = sync.Build(root.WithDevice("/job:worker/task:0"),
                                    vars, global_step);
  if (!status.ok()) return status;
  absl::StatusOr<train::SyncReplicasOptimizer::Replica> replica =
      sync.AddReplica(s.NewSubScope("replica"), loss);
  if (!replica.ok()) return replica.status();

  std::vector<train::Variable> all = vars;
  all.push_back(global_step);
  all.insert(all.end(), adam.slots().begin(), adam.slots().end());
  Graph g;
  g.init = train::InitializeAll(root.WithOpName("init"), all).node_name();
  g.chief_init = sync.chief_init_op().node_name();
  g.init_tokens = sync.init_tokens_op().node_name();
  g.sync = sync.sync_op().node_name();
  g.close_tokens =
      ops::QueueClose(on_ps0.WithOpName("close_tokens"), sync.token_queue(),
                      /*cancel_pending_enqueues=*/true)
          .node_name();
  g.train = replica->train_op.node_name();
  // The local step's variable, then its value: the global step now.
  g.local_init = replica->local_step.initializer.node_name();
  g.local_start = replica->local_step_init.node_name();
  g.global_step = global_step.value.ToString();
  g.num_accumulated = sync.num_accumulated(0).ToString();
  g.loss = loss.node_name();
  g.logits = logits.node_name();
  status = root.ToGraphDef(&g.def);
  if (!status.ok()) return status;
  return g;
}

float Accuracy(Session* session, const Graph& g, const Data& d) {
  std::vector<Tensor> out;
  if (!session->Run({{"x", d.x}}, {g.logits}, {}, &out).ok()) return -1;
  const int rows = static_cast<int>(d.y.NumElements());
  int right = 0;
  for (int r = 0; r < rows; ++r) {
    const float* row = out[0].data<float>() + r * kClasses;
    right += std::max_element(row, row + kClasses) - row ==
             d.y.data<int32_t>()[r];
  }
  return static_cast<float>(right) / rows;
}

struct Shared {
  absl::Notification initialized;
  absl::Notification failed;
  std::atomic<int64_t> pushed{0};  // train steps run: gradients pushed
  absl::Mutex mu;
  std::string error ABSL_GUARDED_BY(mu);
  void Fail(const std::string& what) {
    absl::MutexLock lock(&mu);
    if (error.empty()) error = what;
    if (!failed.HasBeenNotified()) failed.Notify();
    if (!initialized.HasBeenNotified()) initialized.Notify();
  }
};

absl::StatusOr<std::unique_ptr<Session>> Open(const std::string& address,
                                              const Graph& graph) {
  SessionOptions options;
  options.config.set_operation_timeout_in_ms(60000);
  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::Create("grpc://" + address, options);
  if (!session.ok()) return session.status();
  absl::Status s = (*session)->Extend(graph.def);
  if (!s.ok()) return s;
  return session;
}

// The chief's other loop: one update per global step, then the token
// queue is closed so that the workers' last dequeues end.
void ChiefSyncLoop(const std::string& address, const Graph& graph,
                   const Options& opt, Shared* shared) {
  absl::StatusOr<std::unique_ptr<Session>> session = Open(address, graph);
  if (!session.ok()) return shared->Fail(session.status().ToString());
  std::vector<Tensor> out;
  for (int step = 0; step < opt.steps && !shared->failed.HasBeenNotified();
       ++step) {
    absl::Status s = (*session)->Run({}, {}, {graph.sync}, &out);
    if (!s.ok()) {
      return shared->Fail(absl::StrCat("chief update ", step, ": ",
                                       s.ToString()));
    }
  }
  absl::Status s = (*session)->Run({}, {}, {graph.close_tokens}, &out);
  if (!s.ok()) shared->Fail(absl::StrCat("closing the tokens: ", s.ToString()));
}

void WorkerLoop(int worker, const std::vector<std::string>& workers,
                int num_ps, const Options& opt, int aggregate,
                Shared* shared) {
  auto fail = [&](const absl::Status& s) {
    shared->Fail(absl::StrCat("worker ", worker, ": ", s.ToString()));
  };
  const int total = static_cast<int>(workers.size());
  absl::StatusOr<Graph> graph = BuildGraph(worker, num_ps, aggregate, total);
  if (!graph.ok()) return fail(graph.status());
  absl::StatusOr<std::unique_ptr<Session>> session =
      Open(workers[worker], *graph);
  if (!session.ok()) return fail(session.status());
  std::vector<Tensor> out;
  std::thread chief;
  if (worker == 0) {
    for (const std::string& op :
         {graph->init, graph->chief_init, graph->init_tokens}) {
      absl::Status s = (*session)->Run({}, {}, {op}, &out);
      if (!s.ok()) return fail(s);
    }
    shared->initialized.Notify();
    chief = std::thread(ChiefSyncLoop, workers[0], *graph, std::cref(opt),
                        shared);
  } else if (!shared->initialized.WaitForNotificationWithTimeout(
                 absl::Seconds(60)) ||
             shared->failed.HasBeenNotified()) {
    return;
  }
  absl::Status s = (*session)->Run({}, {}, {graph->local_init}, &out);
  if (s.ok()) s = (*session)->Run({}, {}, {graph->local_start}, &out);
  if (!s.ok()) {
    fail(s);
  } else {
    const Data train = MakeData(opt.batch * 64, 10 + worker);
    for (int i = 0; !shared->failed.HasBeenNotified(); ++i) {
      const int start = (i * opt.batch) % (opt.batch * 63);
      s = (*session)->Run({{"x", train.x.Slice(start, start + opt.batch)},
                           {"y", train.y.Slice(start, start + opt.batch)}},
                          {graph->loss}, {graph->train}, &out);
      // The chief closed the token queue: training is over.
      if (absl::IsOutOfRange(s)) break;
      if (!s.ok()) {
        fail(s);
        break;
      }
      shared->pushed.fetch_add(1);
    }
  }
  if (chief.joinable()) chief.join();
}

int Run(const Options& opt) {
  absl::StatusOr<ClusterDef> cluster = ReadClusterJsonFile(opt.cluster_file);
  if (!cluster.ok()) {
    std::fprintf(stderr, "%s\n", cluster.status().ToString().c_str());
    return 2;
  }
  const std::vector<std::string> workers = JobAddresses(*cluster, "worker");
  int num_ps = 0;
  for (const JobDef& job : cluster->job()) {
    if (job.name() == "ps") num_ps = job.tasks_size();
  }
  const int aggregate =
      opt.aggregate < 0 ? static_cast<int>(workers.size()) : opt.aggregate;
  if (num_ps == 0 || workers.empty() || aggregate < 1 ||
      aggregate > static_cast<int>(workers.size())) {
    std::fprintf(stderr, "the cluster needs ps and worker tasks, and "
                         "--aggregate between 1 and the number of workers\n");
    return 2;
  }
  const auto start = std::chrono::steady_clock::now();
  Shared shared;
  std::vector<std::thread> threads;
  for (int w = 0; w < static_cast<int>(workers.size()); ++w) {
    threads.emplace_back(WorkerLoop, w, std::cref(workers), num_ps,
                         std::cref(opt), aggregate, &shared);
  }
  for (std::thread& t : threads) t.join();
  if (shared.failed.HasBeenNotified()) {
    absl::MutexLock lock(&shared.mu);
    std::fprintf(stderr, "training failed: %s\n", shared.error.c_str());
    return 1;
  }
  const double seconds = std::chrono::duration<double>(
                             std::chrono::steady_clock::now() - start)
                             .count();

  // What the servers hold now: the global step, and the gradients still in
  // an accumulator (pushed after the last update).
  absl::StatusOr<Graph> graph =
      BuildGraph(0, num_ps, aggregate, static_cast<int>(workers.size()));
  if (!graph.ok()) return 1;
  absl::StatusOr<std::unique_ptr<Session>> session = Open(workers[0], *graph);
  if (!session.ok()) return 1;
  std::vector<Tensor> out;
  absl::Status s = (*session)->Run(
      {}, {graph->global_step, graph->num_accumulated}, {}, &out);
  if (!s.ok()) {
    std::fprintf(stderr, "reading the global step: %s\n",
                 s.ToString().c_str());
    return 1;
  }
  const int64_t global_step = out[0].scalar<int64_t>();
  const int64_t left = out[1].scalar<int32_t>();
  const float accuracy =
      Accuracy(session->get(), *graph, MakeData(2048, 1));
  const int64_t pushed = shared.pushed.load();
  const int64_t aggregated = int64_t{opt.steps} * aggregate;
  const int64_t stale = pushed - aggregated - left;
  std::printf(
      "%zu workers, %d ps: %lld global steps in %.1f s, each the mean of %d "
      "workers' gradients; %lld gradients pushed, %lld aggregated, %lld "
      "dropped as stale, %lld left in the accumulators; accuracy %.3f\n",
      workers.size(), num_ps, static_cast<long long>(global_step), seconds,
      aggregate, static_cast<long long>(pushed),
      static_cast<long long>(aggregated), static_cast<long long>(stale),
      static_cast<long long>(left), accuracy);
  const bool ok = global_step == opt.steps && stale >= 0 &&
                  (aggregate < static_cast<int>(workers.size()) || stale == 0) &&
                  accuracy >= opt.min_accuracy;
  return ok ? 0 : 1;
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
    } else if (flag == "--steps") {
      opt.steps = std::atoi(value().c_str());
    } else if (flag == "--batch") {
      opt.batch = std::atoi(value().c_str());
    } else if (flag == "--aggregate") {
      opt.aggregate = std::atoi(value().c_str());
    } else if (flag == "--min-accuracy") {
      opt.min_accuracy = std::strtof(value().c_str(), nullptr);
    } else {
      std::fprintf(stderr,
                   "usage: example_sync_ps_train --cluster cluster.json "
                   "[--steps N] [--batch N] [--aggregate N] "
                   "[--min-accuracy F]\n");
      return 2;
    }
  }
  if (opt.cluster_file.empty() || opt.steps < 1 || opt.batch < 1 ||
      opt.batch > 4096) {
    std::fprintf(stderr, "example_sync_ps_train: --cluster is required; "
                         "steps and batch (<= 4096) must be positive\n");
    return 2;
  }
  return Run(opt);
}

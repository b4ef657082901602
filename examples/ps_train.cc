// Parameter-server training with the C++ API: a classifier (an MLP over 16
// features and an 8-wide embedding of a token id) trained on a synthetic,
// deterministic dataset. Variables live on the `ps` tasks, spread by a
// replica device setter; each `worker` task runs its own training loop
// (between-graph replication, asynchronous updates) through its own
// session. At the end the chief saves a checkpoint in TensorFlow's format,
// resets the variables to their initial values, restores the checkpoint and
// evaluates again.
//
//   build/bin/dfx cluster up --workers 2 --ps 2 --dir /tmp/c
//   build/bin/example_ps_train --cluster /tmp/c/cluster.json
//   build/bin/dfx cluster down --dir /tmp/c
//
// With --worker-device GPU each worker's compute (the model, the loss and
// the gradients) asks for its task's GPU:0, with soft placement for ops
// without a GPU kernel; the variables and their updates stay on the ps
// tasks. Worker 0 then prints how many of its last step's nodes ran on
// the GPU.
//
// Exit status 0 when the restored model reaches --min-accuracy.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "graph/builder/ops.h"
#include "graph/builder/train.h"
#include "rpc/cluster_spec.h"
#include "runtime/session.h"

namespace {

using namespace dfx;  // NOLINT: an example reads better without prefixes

constexpr int kFeatures = 16, kVocab = 50, kEmbed = 8, kHidden = 32,
              kClasses = 4;

struct Options {
  std::string cluster_file;
  int steps = 300;
  int batch = 64;
  int log_every = 50;
  float min_accuracy = 0.9f;
  std::string checkpoint_dir;
  bool gpu = false;  // --worker-device GPU
};

// Session options: with GPU workers, soft placement (ops without a GPU
// kernel run on the worker's CPU).
SessionOptions MakeSessionOptions(const Options& opt) {
  SessionOptions options;
  options.config.set_operation_timeout_in_ms(60000);
  options.config.set_allow_soft_placement(opt.gpu);
  return options;
}

// Examples whose class follows a fixed rule of the features and the token.
struct Data {
  Tensor x, ids, y;
  int rows = 0;
};

Data MakeData(int rows, uint32_t seed) {
  std::mt19937 rule_gen(99);
  std::normal_distribution<float> normal;
  std::vector<float> rule(kFeatures * kClasses), token(kVocab * kClasses);
  for (float& v : rule) v = normal(rule_gen);
  for (float& v : token) v = 2 * normal(rule_gen);

  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> id(0, kVocab - 1);
  Data d;
  d.rows = rows;
  d.x = Tensor(DT_FLOAT, TensorShape({rows, kFeatures}));
  d.ids = Tensor(DT_INT32, TensorShape({rows}));
  d.y = Tensor(DT_INT32, TensorShape({rows}));
  for (int r = 0; r < rows; ++r) {
    float* x = d.x.data<float>() + r * kFeatures;
    for (int f = 0; f < kFeatures; ++f) x[f] = normal(gen);
    const int t = id(gen);
    d.ids.data<int32_t>()[r] = t;
    int best = 0;
    float best_score = -1e30f;
    for (int c = 0; c < kClasses; ++c) {
      float s = token[t * kClasses + c];
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

Data Batch(const Data& d, int start, int size) {
  Data b;
  b.rows = size;
  b.x = d.x.Slice(start, start + size);
  b.ids = d.ids.Slice(start, start + size);
  b.y = d.y.Slice(start, start + size);
  return b;
}

// One worker's graph: the same variables (same names, same ps tasks) in
// every worker, the compute on this worker.
struct Graph {
  GraphDef def;
  std::string train, init, save, restore;
};

absl::StatusOr<Graph> BuildGraph(int worker, int num_ps,
                                 const std::string& checkpoint, bool gpu) {
  Scope root = Scope::NewRootScope();
  train::ReplicaDeviceSetter setter(num_ps);
  std::vector<train::Variable> vars;
  auto variable = [&](const std::string& name, std::vector<int64_t> shape,
                      bool zeros, int64_t seed) {
    const Scope s = root.WithDevice(setter.NextDevice(DT_FLOAT, shape));
    Output init = zeros ? train::Zeros(s, shape)
                        : train::GlorotUniform(s, shape, seed);
    vars.push_back(train::NewVariable(s.WithOpName(name), init, DT_FLOAT,
                                      shape));
    return vars.back();
  };
  train::Variable embedding = variable("embedding", {kVocab, kEmbed}, false, 1);
  train::Variable w1 = variable("w1", {kFeatures, kHidden}, false, 2);
  train::Variable w1e = variable("w1_embedding", {kEmbed, kHidden}, false, 3);
  train::Variable b1 = variable("b1", {kHidden}, true, 0);
  train::Variable w2 = variable("w2", {kHidden, kClasses}, false, 4);
  train::Variable b2 = variable("b2", {kClasses}, true, 0);

  const Scope s = root.WithDevice(absl::StrCat(
      "/job:worker/task:", worker, gpu ? "/device:GPU:0" : ""));
  Output x = ops::Placeholder(s.WithOpName("x"), DT_FLOAT);
  Output ids = ops::Placeholder(s.WithOpName("ids"), DT_INT32);
  Output y = ops::Placeholder(s.WithOpName("y"), DT_INT32);
  Output emb = ops::GatherV2(s, embedding.value, ids, ops::Const(s, 0));
  Output h = ops::Relu(
      s, ops::BiasAdd(s,
                      ops::Add(s, ops::MatMul(s, x, w1.value),
                               ops::MatMul(s, emb, w1e.value)),
                      b1.value));
  Output logits = ops::BiasAdd(s.WithOpName("logits"),
                               ops::MatMul(s, h, w2.value), b2.value);
  Output loss = ops::Mean(
      s.WithOpName("loss"),
      ops::SparseSoftmaxCrossEntropyWithLogits(s, logits, y).loss,
      ops::Const(s, 0));

  train::Momentum optimizer(0.05f, 0.9f);
  absl::StatusOr<Operation> step =
      optimizer.Minimize(s.NewSubScope("train"), loss, vars);
  if (!step.ok()) return step.status();
  std::vector<train::Variable> all = vars;
  all.insert(all.end(), optimizer.slots().begin(), optimizer.slots().end());
  Graph g;
  g.train = step->node_name();
  g.init = train::InitializeAll(root.WithOpName("init"), all).node_name();
  const Scope chief = root.WithDevice("/job:worker/task:0");
  Output prefix = ops::Const(chief.WithOpName("checkpoint_prefix"), checkpoint);
  g.save = train::Save(chief.WithOpName("save"), prefix, vars).node_name();
  g.restore =
      train::Restore(chief.WithOpName("restore"), prefix, vars).node_name();
  absl::Status status = root.ToGraphDef(&g.def);
  if (!status.ok()) return status;
  return g;
}

float Accuracy(Session* session, const Data& d) {
  std::vector<Tensor> out;
  absl::Status s = session->Run({{"x", d.x}, {"ids", d.ids}}, {"logits"}, {},
                                &out);
  if (!s.ok()) return -1;
  int right = 0;
  for (int r = 0; r < d.rows; ++r) {
    const float* row = out[0].data<float>() + r * kClasses;
    int best = 0;
    for (int c = 1; c < kClasses; ++c) {
      if (row[c] > row[best]) best = c;
    }
    right += best == d.y.data<int32_t>()[r];
  }
  return static_cast<float>(right) / d.rows;
}

struct Shared {
  absl::Notification initialized;
  absl::Notification failed;
  absl::Mutex mu;
  std::string error ABSL_GUARDED_BY(mu);
  void Fail(const std::string& what) {
    absl::MutexLock lock(&mu);
    if (error.empty()) error = what;
    if (!failed.HasBeenNotified()) failed.Notify();
    if (!initialized.HasBeenNotified()) initialized.Notify();
  }
};

void WorkerLoop(int worker, const std::string& address, int num_ps,
                const Options& opt, const std::string& checkpoint,
                Shared* shared) {
  auto fail = [&](const absl::Status& s) {
    shared->Fail(absl::StrCat("worker ", worker, ": ", s.ToString()));
  };
  absl::StatusOr<Graph> graph =
      BuildGraph(worker, num_ps, checkpoint, opt.gpu);
  if (!graph.ok()) return fail(graph.status());
  auto session = Session::Create("grpc://" + address, MakeSessionOptions(opt));
  if (!session.ok()) return fail(session.status());
  absl::Status s = (*session)->Extend(graph->def);
  if (!s.ok()) return fail(s);
  std::vector<Tensor> out;
  if (worker == 0) {
    s = (*session)->Run({}, {}, {graph->init}, &out);
    if (!s.ok()) return fail(s);
    shared->initialized.Notify();
  } else if (!shared->initialized.WaitForNotificationWithTimeout(
                 absl::Seconds(60)) ||
             shared->failed.HasBeenNotified()) {
    return;
  }
  const Data train = MakeData(4096, 10 + worker);
  const Data eval = MakeData(1024, 1);
  for (int i = 0; i < opt.steps && !shared->failed.HasBeenNotified(); ++i) {
    const int start = (i * opt.batch) % (train.rows - opt.batch + 1);
    const Data b = Batch(train, start, opt.batch);
    // Worker 0's last step is traced: where did its nodes run?
    const bool trace = worker == 0 && i == opt.steps - 1;
    RunOptions run_options;
    if (trace) run_options.set_trace_level(RunOptions::FULL_TRACE);
    RunMetadata metadata;
    s = (*session)->Run(run_options, {{"x", b.x}, {"ids", b.ids}, {"y", b.y}},
                        {"loss"}, {graph->train}, &out, &metadata);
    if (!s.ok()) return fail(s);
    if (trace) {
      int on_gpu = 0, total = 0;
      for (const auto& dev : metadata.step_stats().dev_stats()) {
        total += dev.node_stats_size();
        if (dev.device().find("/device:GPU:") != std::string::npos) {
          on_gpu += dev.node_stats_size();
        }
      }
      std::printf("worker 0's last step: %d of its %d nodes ran on a GPU\n",
                  on_gpu, total);
    }
    if (worker == 0 && (i % opt.log_every == 0 || i == opt.steps - 1)) {
      std::printf("worker 0 step %4d  loss %.4f  eval accuracy %.3f\n", i,
                  out[0].scalar<float>(), Accuracy(session->get(), eval));
      std::fflush(stdout);
    }
  }
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
  if (num_ps == 0 || workers.empty()) {
    std::fprintf(stderr, "the cluster needs ps and worker tasks\n");
    return 2;
  }
  const std::string dir =
      opt.checkpoint_dir.empty()
          ? (std::filesystem::temp_directory_path() /
             absl::StrCat("dfx-ps-train-", ::getpid()))
                .string()
          : opt.checkpoint_dir;
  std::filesystem::create_directories(dir);
  const std::string checkpoint = dir + "/model.ckpt";

  const auto start = std::chrono::steady_clock::now();
  Shared shared;
  std::vector<std::thread> threads;
  for (int w = 0; w < static_cast<int>(workers.size()); ++w) {
    threads.emplace_back(WorkerLoop, w, workers[w], num_ps, std::cref(opt),
                         checkpoint, &shared);
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

  // The chief saves, forgets (back to the initial values) and restores.
  absl::StatusOr<Graph> graph = BuildGraph(0, num_ps, checkpoint, opt.gpu);
  auto session =
      Session::Create("grpc://" + workers[0], MakeSessionOptions(opt));
  if (!graph.ok() || !session.ok()) return 1;
  std::vector<Tensor> out;
  const Data eval = MakeData(1024, 1);
  absl::Status s = (*session)->Extend(graph->def);
  float trained = 0, reset = 0, restored = 0;
  if (s.ok()) trained = Accuracy(session->get(), eval);
  if (s.ok()) s = (*session)->Run({}, {}, {graph->save}, &out);
  if (s.ok()) s = (*session)->Run({}, {}, {graph->init}, &out);
  if (s.ok()) reset = Accuracy(session->get(), eval);
  if (s.ok()) s = (*session)->Run({}, {}, {graph->restore}, &out);
  if (s.ok()) restored = Accuracy(session->get(), eval);
  if (!s.ok()) {
    std::fprintf(stderr, "checkpoint: %s\n", s.ToString().c_str());
    return 1;
  }
  std::printf(
      "trained %d steps on %zu workers and %d ps tasks in %.1f s "
      "(%.0f examples/s): accuracy %.3f\n",
      opt.steps * static_cast<int>(workers.size()), workers.size(), num_ps,
      seconds, opt.steps * workers.size() * opt.batch / seconds, trained);
  std::printf("checkpoint %s: accuracy %.3f after re-initializing, %.3f "
              "restored\n",
              checkpoint.c_str(), reset, restored);
  return restored >= opt.min_accuracy && restored == trained ? 0 : 1;
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
    } else if (flag == "--log-every") {
      opt.log_every = std::atoi(value().c_str());
    } else if (flag == "--min-accuracy") {
      opt.min_accuracy = std::strtof(value().c_str(), nullptr);
    } else if (flag == "--checkpoint-dir") {
      opt.checkpoint_dir = value();
    } else if (flag == "--worker-device") {
      const std::string device = value();
      if (device != "CPU" && device != "GPU") {
        std::fprintf(stderr, "--worker-device is CPU or GPU, not '%s'\n",
                     device.c_str());
        return 2;
      }
      opt.gpu = device == "GPU";
    } else {
      std::fprintf(stderr,
                   "usage: example_ps_train --cluster cluster.json "
                   "[--steps N] [--batch N] [--log-every N] "
                   "[--min-accuracy F] [--checkpoint-dir DIR] "
                   "[--worker-device CPU|GPU]\n");
      return 2;
    }
  }
  if (opt.cluster_file.empty() || opt.steps < 1 || opt.batch < 1 ||
      opt.batch > 4096 || opt.log_every < 1) {
    std::fprintf(stderr, "example_ps_train: --cluster is required; steps, "
                         "batch (<= 4096) and log-every must be positive\n");
    return 2;
  }
  return Run(opt);
}

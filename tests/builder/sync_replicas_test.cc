// train::SyncReplicasOptimizer (graph/builder/sync_replicas.h): two workers
// on their own CPU devices apply gradients to accumulators on the ps device
// (CPU:0); the chief's sync op updates the variables with the mean gradient
// and hands out tokens of the new global step; a worker's gradient from an
// older step is dropped. One local session with three CPU devices.
#include "graph/builder/sync_replicas.h"

#include <memory>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "graph/builder/ops.h"
#include "graph/builder/train.h"
#include "runtime/session.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

std::string Cpu(int i) {
  return "/job:localhost/replica:0/task:0/device:CPU:" + std::to_string(i);
}

struct Fixture {
  Scope root = Scope::NewRootScope();
  train::GradientDescent sgd{0.5f};
  train::SyncReplicasOptimizer sync{&sgd, /*replicas_to_aggregate=*/2,
                                    /*total_num_replicas=*/2};
  train::Variable w, b, global_step;
  Output tokens;  // how many tokens wait in the token queue
  std::vector<train::SyncReplicasOptimizer::Replica> replicas;
  std::unique_ptr<Session> session;

  Fixture() {
    const Scope ps = root.WithDevice(Cpu(0));
    w = train::NewVariable(ps.WithOpName("w"), ops::Const(ps, {1.0f, 2.0f}),
                           DT_FLOAT, {2});
    b = train::NewVariable(ps.WithOpName("b"), ops::Const(ps, 0.5f), DT_FLOAT,
                           {});
    global_step = train::NewVariable(ps.WithOpName("global_step"),
                                     ops::Const(ps, int64_t{0}), DT_INT64, {});
    REQUIRE_OK(sync.Build(ps, {w, b}, global_step));
    for (int k = 0; k < 2; ++k) {
      // Worker k: loss = sum(w * x_k) + b * c_k, so dw = x_k and db = c_k.
      const Scope ws = root.NewSubScope("worker" + std::to_string(k))
                           .WithDevice(Cpu(k + 1));
      Output x = ops::Placeholder(ws.WithOpName("x"), DT_FLOAT);
      Output c = ops::Placeholder(ws.WithOpName("c"), DT_FLOAT);
      Output loss = ops::AddV2(
          ws, ops::Sum(ws, ops::Mul(ws, w.value, x), ops::Const(ws, 0)),
          ops::Mul(ws, b.value, c));
      absl::StatusOr<train::SyncReplicasOptimizer::Replica> r =
          sync.AddReplica(ws, loss);
      REQUIRE_OK(r.status());
      replicas.push_back(*r);
    }
    tokens = ops::QueueSize(ps.WithOpName("tokens"), sync.token_queue());
    REQUIRE_OK(root.status());
    GraphDef def;
    REQUIRE_OK(root.ToGraphDef(&def));
    SessionOptions options;
    (*options.config.mutable_device_count())["CPU"] = 3;
    options.config.set_operation_timeout_in_ms(60000);  // a hang fails
    auto s = Session::Create("local", options);
    REQUIRE_OK(s.status());
    session = *std::move(s);
    REQUIRE_OK(session->Extend(def));
    std::vector<std::string> init = {w.initializer.node_name(),
                                     b.initializer.node_name(),
                                     global_step.initializer.node_name()};
    Run({}, init);
    std::vector<std::string> local;
    for (const auto& r : replicas) {
      local.push_back(r.local_step.initializer.node_name());
    }
    Run({}, local);
    local.clear();
    for (const auto& r : replicas) {
      local.push_back(r.local_step_init.node_name());
    }
    Run({}, local);
    Run({}, {sync.chief_init_op().node_name()});
    Run({}, {sync.init_tokens_op().node_name()});
  }

  std::vector<Tensor> Run(const std::vector<std::string>& fetches,
                          const std::vector<std::string>& targets,
                          std::vector<std::pair<std::string, Tensor>> feeds =
                              {}) {
    std::vector<Tensor> out;
    REQUIRE_OK(session->Run(feeds, fetches, targets, &out));
    return out;
  }

  void WorkerStep(int k, std::vector<float> x, float c) {
    const std::string p = "worker" + std::to_string(k) + "/";
    Run({}, {replicas[k].train_op.node_name()},
        {{p + "x", Tensor::FromVector<float>(x)},
         {p + "c", Tensor::Scalar<float>(c)}});
  }

  int32_t Accumulated(int i) {
    return Run({sync.num_accumulated(i).ToString()}, {})[0]
        .scalar<int32_t>();
  }
  int64_t Read(const train::Variable& v) {
    return Run({v.value.ToString()}, {})[0].scalar<int64_t>();
  }
};

TEST_CASE("SyncReplicasOptimizer applies the mean of two workers' gradients "
          "once both arrived",
          "[sync_replicas]") {
  Fixture f;
  f.WorkerStep(0, {1, 2}, 3);
  CHECK(f.Accumulated(0) == 1);
  f.WorkerStep(1, {3, 4}, 5);
  CHECK(f.Accumulated(0) == 2);
  CHECK(f.Accumulated(1) == 2);
  // Nothing moved yet: only the chief updates.
  std::vector<Tensor> before = f.Run({f.w.value.ToString()}, {});
  CHECK(before[0].data<float>()[0] == 1.0f);

  f.Run({}, {f.sync.sync_op().node_name()});
  std::vector<Tensor> after =
      f.Run({f.w.value.ToString(), f.b.value.ToString()}, {});
  // w -= 0.5 * mean(x), b -= 0.5 * mean(c), as GradientDescent computes it.
  CHECK(after[0].data<float>()[0] == Approx(1.0f - 0.5f * 2.0f).margin(1e-6));
  CHECK(after[0].data<float>()[1] == Approx(2.0f - 0.5f * 3.0f).margin(1e-6));
  CHECK(after[1].scalar<float>() == Approx(0.5f - 0.5f * 4.0f).margin(1e-6));
  CHECK(f.Read(f.global_step) == 1);
  CHECK(f.Accumulated(0) == 0);
  // Two tokens of step 1 wait for the workers.
  CHECK(f.Run({f.tokens.ToString()}, {})[0].scalar<int32_t>() == 2);
}

TEST_CASE("SyncReplicasOptimizer drops a gradient computed at an older "
          "global step",
          "[sync_replicas]") {
  Fixture f;
  f.WorkerStep(0, {1, 2}, 3);
  f.WorkerStep(1, {3, 4}, 5);
  f.Run({}, {f.sync.sync_op().node_name()});
  // Worker 0's local step is still 0 (the token it took was the initial
  // one): its next gradient is stale and dropped; it then takes a token of
  // step 1.
  CHECK(f.Read(f.replicas[0].local_step) == 0);
  f.WorkerStep(0, {100, 100}, 100);
  CHECK(f.Accumulated(0) == 0);
  CHECK(f.Accumulated(1) == 0);
  CHECK(f.Read(f.replicas[0].local_step) == 1);
  // Its next one counts.
  f.WorkerStep(0, {1, 1}, 1);
  CHECK(f.Accumulated(0) == 1);
}

}  // namespace
}  // namespace dfx

// The ring collectives (runtime/collective_ring.h) between N members that
// share one in-process rendezvous: every member's result against a
// reference computed here, for 2, 3 and 4 members, each reduction, sizes
// that do not divide by the group or the piece size, empty tensors; and
// the errors (a member that brings a different size, an abort).
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "catch2/catch.hpp"
#include "rendezvous/local_rendezvous.h"
#include "runtime/collective_ring.h"
#include "runtime/thread_pool.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::StatusIs;

CollectiveGroup MakeGroup(int n) {
  CollectiveGroup g;
  g.group_key = 1;
  g.group_size = n;
  g.device_type = "CPU";
  for (int i = 0; i < n; ++i) {
    DeviceAttributes d;
    d.set_name(absl::StrCat("/job:worker/replica:0/task:", i, "/device:CPU:0"));
    d.set_device_type("CPU");
    d.set_incarnation(1000 + i);
    g.members.push_back(d);
  }
  g.num_tasks = n;
  return g;
}

// Runs `start(rank, run, done)` for every member and waits (bounded) for
// all of them.
template <typename Start>
std::vector<absl::StatusOr<Tensor>> RunAll(Rendezvous* rendezvous,
                                           const CollectiveGroup& group,
                                           int64_t piece_bytes, Start start,
                                           ThreadPool* pool = nullptr) {
  const int n = group.group_size;
  std::vector<absl::StatusOr<Tensor>> results(n, absl::UnknownError("unset"));
  std::vector<std::unique_ptr<absl::Notification>> done;
  for (int i = 0; i < n; ++i) done.push_back(std::make_unique<absl::Notification>());
  for (int r = 0; r < n; ++r) {
    CollectiveRun run;
    run.rendezvous = rendezvous;
    run.group = &group;
    run.rank = r;
    run.instance_key = 7;
    run.piece_bytes = piece_bytes;
    run.pool = pool;
    start(r, run, [&results, &done, r](absl::StatusOr<Tensor> t) {
      results[r] = std::move(t);
      done[r]->Notify();
    });
  }
  for (int r = 0; r < n; ++r) {
    REQUIRE(done[r]->WaitForNotificationWithTimeout(absl::Seconds(60)));
  }
  return results;
}

// Member r's input: deterministic values that differ between members,
// small integers (exact in float, no overflow in products of 4).
std::vector<float> InputOf(int r, int64_t n) {
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i) {
    v[i] = static_cast<float>(((i * 7 + r * 13) % 11) - 5);
  }
  return v;
}

float Reduce(ReduceOp op, float a, float b) {
  switch (op) {
    case ReduceOp::kAdd: return a + b;
    case ReduceOp::kMul: return a * b;
    case ReduceOp::kMin: return std::min(a, b);
    case ReduceOp::kMax: return std::max(a, b);
  }
  return 0;
}

TEST_CASE("Ring all-reduce gives every member the reduction of all inputs",
          "[collective]") {
  struct Op {
    ReduceOp op;
    bool divide;
    const char* name;
  };
  const std::vector<Op> ops = {{ReduceOp::kAdd, false, "sum"},
                               {ReduceOp::kAdd, true, "mean"},
                               {ReduceOp::kMul, false, "prod"},
                               {ReduceOp::kMin, false, "min"},
                               {ReduceOp::kMax, false, "max"}};
  ThreadPool pool("reduce", 3);
  for (int members : {2, 3, 4}) {
    for (int64_t size : {int64_t{1}, int64_t{5}, int64_t{1001}, int64_t{40000}}) {
      for (const Op& op : ops) {
        INFO(members << " members, " << size << " floats, " << op.name);
        const CollectiveGroup group = MakeGroup(members);
        LocalRendezvous rendezvous;
        // Small pieces: 1001 floats over 3 members make 334-float segments
        // in pieces of 64 floats (the last shorter).
        auto results = RunAll(
            &rendezvous, group, 256,
            [&](int r, const CollectiveRun& run, CollectiveDone done) {
              Tensor in = Tensor::FromVector<float>(InputOf(r, size));
              RingAllReduce(run, in, op.op, op.divide, std::move(done));
            },
            // Half the cases reduce on a pool, the others inline.
            size % 2 == 0 ? &pool : nullptr);
        std::vector<float> want = InputOf(0, size);
        for (int r = 1; r < members; ++r) {
          std::vector<float> x = InputOf(r, size);
          for (int64_t i = 0; i < size; ++i) want[i] = Reduce(op.op, want[i], x[i]);
        }
        if (op.divide) {
          for (float& w : want) w /= members;
        }
        for (int r = 0; r < members; ++r) {
          INFO("rank " << r);
          REQUIRE_THAT(results[r].status(), testing::IsOk());
          REQUIRE(results[r]->NumElements() == size);
          auto got = results[r]->span<float>();
          for (int64_t i = 0; i < size; ++i) {
            INFO("element " << i);
            REQUIRE(got[i] == Approx(want[i]).margin(1e-6));
          }
        }
      }
    }
  }
}

TEST_CASE("Ring all-reduce keeps the input's shape and handles int64",
          "[collective]") {
  const CollectiveGroup group = MakeGroup(3);
  LocalRendezvous rendezvous;
  auto results = RunAll(
      &rendezvous, group, 1 << 20,
      [&](int r, const CollectiveRun& run, CollectiveDone done) {
        Tensor in(DT_INT64, TensorShape({2, 3}));
        for (int i = 0; i < 6; ++i) in.data<int64_t>()[i] = (r + 1) * 10 + i;
        // Mean of integers truncates: (11+21+31)/3 = 21, ...
        RingAllReduce(run, in, ReduceOp::kAdd, /*divide=*/true, std::move(done));
      });
  for (int r = 0; r < 3; ++r) {
    REQUIRE_THAT(results[r].status(), testing::IsOk());
    REQUIRE(results[r]->shape() == TensorShape({2, 3}));
    for (int i = 0; i < 6; ++i) {
      CHECK(results[r]->data<int64_t>()[i] == (60 + 3 * i) / 3);
    }
  }
}

TEST_CASE("Ring all-reduce of an empty tensor gives an empty tensor",
          "[collective]") {
  const CollectiveGroup group = MakeGroup(3);
  LocalRendezvous rendezvous;
  auto results = RunAll(
      &rendezvous, group, 256,
      [&](int r, const CollectiveRun& run, CollectiveDone done) {
        RingAllReduce(run, Tensor(DT_FLOAT, TensorShape({0, 4})),
                      ReduceOp::kAdd, false, std::move(done));
      });
  for (int r = 0; r < 3; ++r) {
    REQUIRE_THAT(results[r].status(), testing::IsOk());
    CHECK(results[r]->shape() == TensorShape({0, 4}));
  }
}

// A LocalRendezvous that shows every Send to Observe first.
class ObservingRendezvous : public Rendezvous {
 public:
  absl::Status Send(const ParsedKey& key, const Args& args,
                    const Tensor& value, bool is_dead) override {
    Observe(key, value);
    return local_.Send(key, args, value, is_dead);
  }
  void RecvAsync(const ParsedKey& key, const Args& args,
                 DoneCallback done) override {
    local_.RecvAsync(key, args, std::move(done));
  }
  void StartAbort(const absl::Status& status) override {
    local_.StartAbort(status);
  }

 protected:
  virtual void Observe(const ParsedKey& key, const Tensor& value) = 0;

 private:
  LocalRendezvous local_;
};

// Keeps every tensor sent (sharing its buffer) beside a copy of its bytes
// at the time of the Send.
class SnapshotRendezvous final : public ObservingRendezvous {
 public:
  // The keys of the tensors whose bytes changed after they were sent.
  std::vector<std::string> Rewritten() {
    absl::MutexLock lock(&mu_);
    std::vector<std::string> keys;
    for (const Sent& s : sent_) {
      if (std::memcmp(s.tensor.raw_data(), s.bytes.raw_data(),
                      s.bytes.TotalBytes()) != 0) {
        keys.push_back(s.key);
      }
    }
    return keys;
  }
  size_t NumSent() {
    absl::MutexLock lock(&mu_);
    return sent_.size();
  }

 private:
  struct Sent {
    std::string key;
    Tensor tensor;
    Tensor bytes;
  };
  void Observe(const ParsedKey& key, const Tensor& value) override {
    absl::MutexLock lock(&mu_);
    sent_.push_back({key.FullKey(), value, value.DeepCopy()});
  }

  absl::Mutex mu_;
  std::vector<Sent> sent_ ABSL_GUARDED_BY(mu_);
};

// Across processes a sent tensor is read by a RecvTensor while the ring
// goes on, so nothing the ring sent may change afterwards, whatever the
// peers' answers imply about that read being over.
TEST_CASE("Ring collectives never write a tensor they have sent",
          "[collective]") {
  ThreadPool pool("reduce", 3);
  for (int members : {2, 3, 4}) {
    for (int64_t size : {int64_t{7}, int64_t{1001}}) {
      INFO(members << " members, " << size << " floats");
      const CollectiveGroup group = MakeGroup(members);
      SnapshotRendezvous rendezvous;
      auto results = RunAll(
          &rendezvous, group, 256,
          [&](int r, const CollectiveRun& run, CollectiveDone done) {
            Tensor in = Tensor::FromVector<float>(InputOf(r, size));
            RingAllReduce(run, in, ReduceOp::kAdd, false, std::move(done));
          },
          &pool);
      for (const auto& result : results) REQUIRE_OK(result.status());
      CHECK(rendezvous.NumSent() > 0);
      CHECK(rendezvous.Rewritten() == std::vector<std::string>{});
    }
  }
}

TEST_CASE("Ring all-gather concatenates the inputs in rank order",
          "[collective]") {
  for (int members : {2, 3, 4}) {
    for (int64_t rows : {int64_t{0}, int64_t{1}, int64_t{3}, int64_t{257}}) {
      INFO(members << " members, " << rows << " rows");
      const CollectiveGroup group = MakeGroup(members);
      LocalRendezvous rendezvous;
      auto results = RunAll(
          &rendezvous, group, 64,
          [&](int r, const CollectiveRun& run, CollectiveDone done) {
            Tensor in(DT_INT32, TensorShape({rows, 2}));
            for (int64_t i = 0; i < rows * 2; ++i) {
              in.data<int32_t>()[i] = r * 100000 + static_cast<int32_t>(i);
            }
            RingAllGather(run, in, std::move(done));
          });
      for (int r = 0; r < members; ++r) {
        REQUIRE_THAT(results[r].status(), testing::IsOk());
        REQUIRE(results[r]->shape() == TensorShape({rows * members, 2}));
        for (int m = 0; m < members; ++m) {
          for (int64_t i = 0; i < rows * 2; ++i) {
            REQUIRE(results[r]->data<int32_t>()[m * rows * 2 + i] ==
                    m * 100000 + i);
          }
        }
      }
    }
  }
}

TEST_CASE("Ring all-reduce of big pieces reduces them in blocks on a pool",
          "[collective]") {
  // 3 MiB pieces: each reduction is cut into one block per pool thread.
  ThreadPool pool("reduce", 4);
  const int64_t size = int64_t{3} << 20;
  for (int members : {2, 3}) {
    INFO(members << " members");
    const CollectiveGroup group = MakeGroup(members);
    LocalRendezvous rendezvous;
    auto results = RunAll(
        &rendezvous, group, int64_t{3} << 20,
        [&](int r, const CollectiveRun& run, CollectiveDone done) {
          RingAllReduce(run, Tensor::FromVector<float>(InputOf(r, size)),
                        ReduceOp::kAdd, /*divide=*/false, std::move(done));
        },
        &pool);
    std::vector<float> want = InputOf(0, size);
    for (int r = 1; r < members; ++r) {
      std::vector<float> x = InputOf(r, size);
      for (int64_t i = 0; i < size; ++i) want[i] += x[i];
    }
    for (int r = 0; r < members; ++r) {
      REQUIRE_THAT(results[r].status(), testing::IsOk());
      auto got = results[r]->span<float>();
      int64_t wrong = 0;
      for (int64_t i = 0; i < size; ++i) wrong += got[i] != want[i];
      CHECK(wrong == 0);
    }
  }
}

TEST_CASE("Ring reduce-scatter gives member r rows r of the reduction",
          "[collective]") {
  struct Op {
    ReduceOp op;
    bool divide;
    const char* name;
  };
  const std::vector<Op> ops = {{ReduceOp::kAdd, false, "sum"},
                               {ReduceOp::kAdd, true, "mean"},
                               {ReduceOp::kMul, false, "prod"},
                               {ReduceOp::kMin, false, "min"},
                               {ReduceOp::kMax, false, "max"}};
  ThreadPool pool("reduce", 2);
  const int64_t cols = 3;
  for (int members : {2, 3, 4}) {
    // Rows per member: none, one, and 334 (1002 floats, pieces of 64).
    for (int64_t k : {int64_t{0}, int64_t{1}, int64_t{334}}) {
      for (const Op& op : ops) {
        const int64_t rows = k * members;
        INFO(members << " members, " << rows << "x" << cols << ", " << op.name);
        const CollectiveGroup group = MakeGroup(members);
        LocalRendezvous rendezvous;
        auto results = RunAll(
            &rendezvous, group, 256,
            [&](int r, const CollectiveRun& run, CollectiveDone done) {
              Tensor in = *Tensor::FromVector<float>(InputOf(r, rows * cols))
                               .Reshaped(TensorShape({rows, cols}));
              RingReduceScatter(run, in, op.op, op.divide, std::move(done));
            },
            k % 2 == 0 ? &pool : nullptr);
        std::vector<float> want = InputOf(0, rows * cols);
        for (int r = 1; r < members; ++r) {
          std::vector<float> x = InputOf(r, rows * cols);
          for (int64_t i = 0; i < rows * cols; ++i) {
            want[i] = Reduce(op.op, want[i], x[i]);
          }
        }
        if (op.divide) {
          for (float& w : want) w /= members;
        }
        for (int r = 0; r < members; ++r) {
          INFO("rank " << r);
          REQUIRE_THAT(results[r].status(), testing::IsOk());
          REQUIRE(results[r]->shape() == TensorShape({k, cols}));
          auto got = results[r]->span<float>();
          for (int64_t i = 0; i < k * cols; ++i) {
            INFO("element " << i);
            REQUIRE(got[i] == Approx(want[r * k * cols + i]).margin(1e-6));
          }
        }
      }
    }
  }
}

TEST_CASE("All-to-all gives member r block r of every member, in rank order",
          "[collective]") {
  for (int members : {2, 3, 4}) {
    for (int64_t k : {int64_t{0}, int64_t{1}, int64_t{7}}) {
      const int64_t rows = k * members;
      INFO(members << " members, " << rows << " rows");
      const CollectiveGroup group = MakeGroup(members);
      LocalRendezvous rendezvous;
      auto results = RunAll(
          &rendezvous, group, 64,
          [&](int r, const CollectiveRun& run, CollectiveDone done) {
            Tensor in(DT_INT32, TensorShape({rows, 2}));
            for (int64_t i = 0; i < rows * 2; ++i) {
              in.data<int32_t>()[i] = r * 100000 + static_cast<int32_t>(i);
            }
            AllToAll(run, in, std::move(done));
          });
      for (int r = 0; r < members; ++r) {
        INFO("rank " << r);
        REQUIRE_THAT(results[r].status(), testing::IsOk());
        REQUIRE(results[r]->shape() == TensorShape({rows, 2}));
        const int32_t* got = results[r]->data<int32_t>();
        for (int j = 0; j < members; ++j) {
          // Block j of the result: member j's block r.
          for (int64_t i = 0; i < k * 2; ++i) {
            REQUIRE(got[j * k * 2 + i] == j * 100000 + r * k * 2 + i);
          }
        }
      }
    }
  }
}

TEST_CASE("Reduce-scatter and all-to-all refuse a dim 0 the group does not "
          "divide",
          "[collective]") {
  const CollectiveGroup group = MakeGroup(3);
  LocalRendezvous rendezvous;
  for (bool scatter : {true, false}) {
    INFO((scatter ? "reduce-scatter" : "all-to-all"));
    for (const TensorShape& shape :
         {TensorShape({4, 2}), TensorShape({1}), TensorShape({})}) {
      INFO(shape.DebugString());
      absl::StatusOr<Tensor> result;
      CollectiveRun run;
      run.rendezvous = &rendezvous;
      run.group = &group;
      run.rank = 1;
      run.instance_key = 9;
      Tensor in(DT_FLOAT, shape);
      auto done = [&](absl::StatusOr<Tensor> t) { result = std::move(t); };
      if (scatter) {
        RingReduceScatter(run, in, ReduceOp::kAdd, false, done);
      } else {
        AllToAll(run, in, done);
      }
      CHECK_THAT(result.status(),
                 StatusIs(absl::StatusCode::kInvalidArgument,
                          "divides by the group size 3"));
      CHECK_THAT(result.status(), StatusIs(absl::StatusCode::kInvalidArgument,
                                           "collective instance 9"));
    }
  }
}

TEST_CASE("A member bringing more rows fails reduce-scatter and all-to-all "
          "everywhere",
          "[collective]") {
  for (bool scatter : {true, false}) {
    INFO((scatter ? "reduce-scatter" : "all-to-all"));
    const CollectiveGroup group = MakeGroup(3);
    LocalRendezvous rendezvous;
    auto results = RunAll(
        &rendezvous, group, 1 << 20,
        [&](int r, const CollectiveRun& run, CollectiveDone done) {
          Tensor in = Tensor::FromVector<float>(InputOf(r, r == 2 ? 9 : 6));
          if (scatter) {
            RingReduceScatter(run, in, ReduceOp::kAdd, false, std::move(done));
          } else {
            AllToAll(run, in, std::move(done));
          }
        });
    for (int r = 0; r < 3; ++r) {
      INFO("rank " << r << ": " << results[r].status());
      CHECK_THAT(results[r].status(),
                 StatusIs(absl::StatusCode::kInvalidArgument,
                          "collective instance 7"));
    }
  }
}

TEST_CASE("Broadcast gives every member the source's tensor",
          "[collective]") {
  const CollectiveGroup group = MakeGroup(3);
  LocalRendezvous rendezvous;
  const Tensor source = Tensor::FromVector<double>({1.5, -2, 3});
  auto results = RunAll(
      &rendezvous, group, 1 << 20,
      [&](int r, const CollectiveRun& run, CollectiveDone done) {
        Broadcast(run, /*source_rank=*/1, r == 1 ? source : Tensor(),
                  DT_DOUBLE, TensorShape({3}), std::move(done));
      });
  for (int r = 0; r < 3; ++r) {
    REQUIRE_THAT(results[r].status(), testing::IsOk());
    auto got = results[r]->span<double>();
    CHECK(std::vector<double>(got.begin(), got.end()) ==
          std::vector<double>{1.5, -2, 3});
  }
}

TEST_CASE("Broadcast to a member expecting another shape fails there",
          "[collective]") {
  const CollectiveGroup group = MakeGroup(2);
  LocalRendezvous rendezvous;
  auto results = RunAll(
      &rendezvous, group, 1 << 20,
      [&](int r, const CollectiveRun& run, CollectiveDone done) {
        Broadcast(run, 0, Tensor::FromVector<float>({1, 2, 3}), DT_FLOAT,
                  TensorShape({4}), std::move(done));
      });
  CHECK_THAT(results[0].status(), testing::IsOk());
  CHECK_THAT(results[1].status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "collective instance 7"));
}

TEST_CASE("A member bringing another size fails the all-reduce everywhere",
          "[collective]") {
  const CollectiveGroup group = MakeGroup(3);
  LocalRendezvous rendezvous;
  auto results = RunAll(
      &rendezvous, group, 1 << 20,
      [&](int r, const CollectiveRun& run, CollectiveDone done) {
        Tensor in = Tensor::FromVector<float>(InputOf(r, r == 2 ? 12 : 9));
        RingAllReduce(run, in, ReduceOp::kAdd, false, std::move(done));
      });
  // The member that finds a piece of the wrong size aborts the
  // rendezvous; the others end with that error, none hangs.
  int invalid = 0;
  for (int r = 0; r < 3; ++r) {
    INFO("rank " << r << ": " << results[r].status());
    REQUIRE_FALSE(results[r].ok());
    if (results[r].status().code() == absl::StatusCode::kInvalidArgument) {
      CHECK(absl::StrContains(results[r].status().message(),
                              "collective instance 7"));
      ++invalid;
    }
  }
  CHECK(invalid == 3);
}

TEST_CASE("An aborted rendezvous ends a waiting all-reduce with its status",
          "[collective]") {
  const CollectiveGroup group = MakeGroup(2);
  LocalRendezvous rendezvous;
  absl::Notification done;
  absl::StatusOr<Tensor> result;
  CollectiveRun run;
  run.rendezvous = &rendezvous;
  run.group = &group;
  run.rank = 0;
  run.instance_key = 3;
  // Only rank 0 runs: it waits for rank 1, which never comes.
  RingAllReduce(run, Tensor::FromVector<float>({1, 2, 3, 4}), ReduceOp::kAdd,
                false, [&](absl::StatusOr<Tensor> t) {
                  result = std::move(t);
                  done.Notify();
                });
  CHECK_FALSE(done.HasBeenNotified());
  rendezvous.StartAbort(absl::UnavailableError("task /job:worker/replica:0/task:1 died"));
  REQUIRE(done.WaitForNotificationWithTimeout(absl::Seconds(30)));
  CHECK_THAT(result.status(), StatusIs(absl::StatusCode::kUnavailable,
                                       "task:1 died"));
}

// A group of devices on several tasks: devices_per_task[t] members on task
// t, in the leader's order.
CollectiveGroup MakeTaskGroup(const std::vector<int>& devices_per_task) {
  CollectiveGroup g;
  g.group_key = 2;
  g.device_type = "CPU";
  for (size_t t = 0; t < devices_per_task.size(); ++t) {
    for (int d = 0; d < devices_per_task[t]; ++d) {
      DeviceAttributes a;
      a.set_name(absl::StrCat("/job:worker/replica:0/task:", t,
                              "/device:CPU:", d));
      a.set_device_type("CPU");
      a.set_incarnation(2000 + t * 10 + d);
      g.members.push_back(a);
    }
  }
  g.group_size = static_cast<int>(g.members.size());
  g.num_tasks = static_cast<int>(devices_per_task.size());
  return g;
}

// A rendezvous that counts the bytes sent from one task to another.
class CountingRendezvous final : public ObservingRendezvous {
 public:
  int64_t cross_task_bytes() const { return cross_task_bytes_.load(); }

 private:
  void Observe(const ParsedKey& key, const Tensor& value) override {
    if (!key.src().IsSameTask(key.dst())) {
      cross_task_bytes_.fetch_add(value.TotalBytes());
    }
  }

  std::atomic<int64_t> cross_task_bytes_{0};
};

TEST_CASE("Hierarchical all-reduce: each task reduces locally first, one "
          "member per task crosses tasks", "[collective]") {
  ThreadPool pool("reduce", 3);
  for (const std::vector<int>& layout :
       {std::vector<int>{2, 2}, std::vector<int>{2, 1, 3},
        std::vector<int>{1, 3}}) {
    const CollectiveGroup group = MakeTaskGroup(layout);
    const int n = group.group_size;
    for (bool divide : {false, true}) {
      for (int64_t size : {int64_t{1}, int64_t{7}, int64_t{3000}}) {
        INFO(n << " members on " << layout.size() << " tasks, " << size
                << " floats, divide " << divide);
        int64_t bytes[2] = {0, 0};
        for (bool hierarchical : {false, true}) {
          CountingRendezvous rendezvous;
          auto results = RunAll(
              &rendezvous, group, 1024,
              [&](int r, const CollectiveRun& run, CollectiveDone done) {
                CollectiveRun h = run;
                h.hierarchical = hierarchical;
                RingAllReduce(h, Tensor::FromVector<float>(InputOf(r, size)),
                              ReduceOp::kAdd, divide, std::move(done));
              },
              size > 100 ? &pool : nullptr);
          std::vector<float> want(size, 0.f);
          for (int r = 0; r < n; ++r) {
            std::vector<float> x = InputOf(r, size);
            for (int64_t i = 0; i < size; ++i) want[i] += x[i];
          }
          if (divide) {
            for (float& w : want) w /= n;
          }
          for (int r = 0; r < n; ++r) {
            INFO("rank " << r << ", hierarchical " << hierarchical);
            REQUIRE_THAT(results[r].status(), testing::IsOk());
            auto got = results[r]->span<float>();
            REQUIRE(static_cast<int64_t>(got.size()) == size);
            for (int64_t i = 0; i < size; ++i) {
              REQUIRE(got[i] == Approx(want[i]).margin(1e-5));
            }
          }
          bytes[hierarchical] = rendezvous.cross_task_bytes();
        }
        // Between tasks, the hierarchy moves 2(T-1)/T of the tensor per
        // task and nothing else: 2(T-1) tensors in all. The flat ring
        // crosses a task boundary T times, each hop carrying 2(n-1)/n of
        // the tensor: 2T(n-1)/n tensors.
        const int tasks = static_cast<int>(layout.size());
        CHECK(bytes[1] == 2 * (tasks - 1) * size * 4);
        if (size >= n) {
          CHECK(bytes[1] < bytes[0]);
        } else {
          // A tensor smaller than the group: most ring segments are empty.
          CHECK(bytes[1] <= bytes[0]);
        }
      }
    }
  }
}

TEST_CASE("Hierarchical all-reduce: a member bringing another size fails "
          "every member", "[collective]") {
  const CollectiveGroup group = MakeTaskGroup({2, 2});
  CountingRendezvous rendezvous;
  auto results = RunAll(
      &rendezvous, group, 1 << 20,
      [&](int r, const CollectiveRun& run, CollectiveDone done) {
        // Rank 1 (task 0's second member) and rank 3 (task 1's) differ.
        RingAllReduce(run,
                      Tensor::FromVector<float>(InputOf(r, r == 3 ? 12 : 9)),
                      ReduceOp::kAdd, false, std::move(done));
      });
  for (int r = 0; r < 4; ++r) {
    INFO("rank " << r << ": " << results[r].status());
    REQUIRE_FALSE(results[r].ok());
  }
  CHECK_THAT(results[2].status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "device /job:worker/replica:0/task:1/device:CPU:1 sent "
                      "12 elements"));
}

}  // namespace
}  // namespace dfx

// dfx_bench rendezvous / session: what a cut through the graph costs.
//
// rendezvous: one Send -> RecvAsync hand-over on a LocalRendezvous, on one
// thread (the match completes inline, so this is the hand-over itself: key
// lookup, shard lock, callback). The tensor's buffer is shared, never
// copied, so the time must not grow with the tensor's size; a 64 MiB memcpy
// measured in the same run shows what a copy would cost.
//
// session: steps of tiny graphs through Session::Create("local"), one
// client thread, so the figures are the fixed cost of a step (planning is
// cached after the first step): a Const fetched, a Placeholder fed and
// fetched through Identity, and - with two or more devices - a Const on
// CPU:0 read by an Identity on CPU:1 (one cross-device transfer).
#include "tools/bench/partition_bench.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "base/logging.h"
#include "base/status_macros.h"
#include "proto/config.pb.h"
#include "proto/graph.pb.h"
#include "rendezvous/local_rendezvous.h"
#include "runtime/session.h"
#include "runtime/tensor.h"

namespace dfx {
namespace {

using Clock = std::chrono::steady_clock;

double Micros(Clock::duration d) {
  return std::chrono::duration<double, std::micro>(d).count();
}

// The fastest of `reps` runs of `batch()`, each returning microseconds per
// operation: on a shared machine the fastest run is the one least disturbed.
template <typename Fn>
double Fastest(int reps, Fn&& batch) {
  double best = batch();
  for (int i = 1; i < reps; ++i) best = std::min(best, batch());
  return best;
}

bool ParseInt(const char* text, int* value) {
  return absl::SimpleAtoi(text, value) && *value > 0;
}

// ---------------------------------------------------------------------------
// rendezvous

struct HandOver {
  double send_first_us = 0;
  double recv_first_us = 0;
  bool shared = false;  // the receiver saw the sender's buffer
};

// One hand-over timer per tensor, run in turns so that a disturbance of the
// machine hits every tensor alike.
class HandOverTimer {
 public:
  HandOverTimer(const Tensor& value, int iters)
      : value_(value),
        iters_(iters),
        key_(*Rendezvous::ParsedKey::Parse(Rendezvous::CreateKey(
            "/job:localhost/replica:0/task:0/device:CPU:0", 0x1234,
            "/job:localhost/replica:0/task:0/device:CPU:1", "edge_1_x"))) {}

  double SendFirst() {
    const auto start = Clock::now();
    for (int i = 0; i < iters_; ++i) {
      DFX_CHECK_OK(rendezvous_.Send(key_, args_, value_, false));
      rendezvous_.RecvAsync(key_, args_, Callback());
    }
    return Finish(start);
  }
  double RecvFirst() {
    const auto start = Clock::now();
    for (int i = 0; i < iters_; ++i) {
      rendezvous_.RecvAsync(key_, args_, Callback());
      DFX_CHECK_OK(rendezvous_.Send(key_, args_, value_, false));
    }
    return Finish(start);
  }
  bool Shared() const { return received_.raw_data() == value_.raw_data(); }

 private:
  Rendezvous::DoneCallback Callback() {
    return [this](const absl::Status& s, const Tensor& t, bool) {
      DFX_CHECK_OK(s);
      received_ = t;
      ++done_;
    };
  }
  double Finish(Clock::time_point start) {
    const double us = Micros(Clock::now() - start) / iters_;
    DFX_CHECK(done_ == iters_);  // every receive completed inline
    done_ = 0;
    return us;
  }

  const Tensor value_;
  const int iters_;
  const Rendezvous::ParsedKey key_;
  const Rendezvous::Args args_;
  LocalRendezvous rendezvous_;
  Tensor received_;
  int done_ = 0;
};

// Microseconds per memcpy of `bytes` between two buffers touched beforehand.
double TimeMemcpy(size_t bytes, int iters) {
  std::vector<char> src(bytes, 1), dst(bytes, 0);
  auto batch = [&] {
    const auto start = Clock::now();
    for (int i = 0; i < iters; ++i) {
      std::memcpy(dst.data(), src.data(), bytes);
      src[static_cast<size_t>(i) % bytes] ^= 1;  // keep the copy observable
    }
    return Micros(Clock::now() - start) / iters;
  };
  batch();
  const double us = Fastest(5, batch);
  volatile char sink = dst[bytes / 2];
  (void)sink;
  return us;
}

}  // namespace

int RunRendezvousBench(int argc, char** argv) {
  int iters = 200000;
  for (int i = 0; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--iters" && i + 1 < argc && ParseInt(argv[i + 1], &iters)) {
      ++i;
    } else {
      std::fprintf(stderr, "usage: dfx_bench rendezvous [--iters N]\n");
      return 2;
    }
  }
  constexpr int64_t kBig = int64_t{64} << 20;  // bytes
  constexpr int kReps = 9;
  const Tensor small = Tensor::Scalar<float>(1.0f);
  Tensor big(DT_FLOAT, TensorShape({kBig / 4}));
  std::memset(big.raw_data(), 1, big.TotalBytes());

  HandOverTimer small_timer(small, iters), big_timer(big, iters);
  small_timer.SendFirst();  // warm-up: the shard's table, the allocator
  big_timer.SendFirst();
  HandOver s{1e300, 1e300, false}, b{1e300, 1e300, false};
  for (int rep = 0; rep < kReps; ++rep) {
    s.send_first_us = std::min(s.send_first_us, small_timer.SendFirst());
    b.send_first_us = std::min(b.send_first_us, big_timer.SendFirst());
    s.recv_first_us = std::min(s.recv_first_us, small_timer.RecvFirst());
    b.recv_first_us = std::min(b.recv_first_us, big_timer.RecvFirst());
  }
  s.shared = small_timer.Shared();
  b.shared = big_timer.Shared();
  const double copy = TimeMemcpy(static_cast<size_t>(kBig), 20);

  std::printf("LocalRendezvous hand-over, one thread, %d per run, fastest of "
              "%d runs taken in turns\n", iters, kReps);
  std::printf("%-10s %12s %16s %16s %8s\n", "tensor", "bytes",
              "send-first us", "recv-first us", "shared");
  std::printf("%-10s %12lld %16.3f %16.3f %8s\n", "float[]", 4LL,
              s.send_first_us, s.recv_first_us, s.shared ? "yes" : "NO");
  std::printf("%-10s %12lld %16.3f %16.3f %8s\n", "float[16M]",
              static_cast<long long>(kBig), b.send_first_us, b.recv_first_us,
              b.shared ? "yes" : "NO");
  std::printf("64 MiB / 4 B hand-over: send-first x%.2f, recv-first x%.2f "
              "(1.00 = independent of size)\n",
              b.send_first_us / s.send_first_us,
              b.recv_first_us / s.recv_first_us);
  std::printf("memcpy of 64 MiB: %.1f us (%.2f GB/s) = x%.0f a 64 MiB "
              "hand-over\n",
              copy, static_cast<double>(kBig) / copy / 1e3,
              copy / std::max(b.send_first_us, b.recv_first_us));
  return 0;
}

// ---------------------------------------------------------------------------
// session

namespace {

NodeDef MakeNode(const std::string& name, const std::string& op,
                 const std::string& device) {
  NodeDef n;
  n.set_name(name);
  n.set_op(op);
  n.set_device(device);
  return n;
}

void SetType(NodeDef* n, const std::string& attr) {
  (*n->mutable_attr())[attr].set_type(DT_FLOAT);
}

NodeDef ConstNode(const std::string& name, const std::string& device) {
  NodeDef n = MakeNode(name, "Const", device);
  SetType(&n, "dtype");
  TensorProto* value = (*n.mutable_attr())["value"].mutable_tensor();
  value->set_dtype(DT_FLOAT);
  value->mutable_tensor_shape();
  value->add_float_val(2.0f);
  return n;
}

NodeDef IdentityNode(const std::string& name, const std::string& input,
                     const std::string& device) {
  NodeDef n = MakeNode(name, "Identity", device);
  n.add_input(input);
  SetType(&n, "T");
  return n;
}

struct SessionCase {
  const char* name;
  GraphDef graph;
  bool fed;  // feeds "x" with 3.0
  std::string fetch;
  float expected;
  int min_devices;
};

std::vector<SessionCase> SessionCases() {
  std::vector<SessionCase> cases;
  {
    SessionCase c{"const", {}, false, "c", 2.0f, 1};
    *c.graph.add_node() = ConstNode("c", "");
    cases.push_back(std::move(c));
  }
  {
    SessionCase c{"feed->identity", {}, true, "y", 3.0f, 1};
    NodeDef x = MakeNode("x", "Placeholder", "");
    SetType(&x, "dtype");
    (*x.mutable_attr())["shape"].mutable_shape();
    *c.graph.add_node() = x;
    *c.graph.add_node() = IdentityNode("y", "x", "");
    cases.push_back(std::move(c));
  }
  {
    SessionCase c{"const@0->identity@1", {}, false, "y", 2.0f, 2};
    *c.graph.add_node() = ConstNode("c", "/device:CPU:0");
    *c.graph.add_node() = IdentityNode("y", "c", "/device:CPU:1");
    cases.push_back(std::move(c));
  }
  return cases;
}

// One session running one case, timed in batches of steps.
class SessionTimer {
 public:
  static absl::StatusOr<std::unique_ptr<SessionTimer>> Create(
      const SessionCase& c, int devices, int steps) {
    SessionOptions options;
    (*options.config.mutable_device_count())["CPU"] = devices;
    DFX_ASSIGN_OR_RETURN(std::unique_ptr<Session> session,
                         Session::Create("local", options));
    DFX_RETURN_IF_ERROR(session->Extend(c.graph));
    auto timer = std::unique_ptr<SessionTimer>(
        new SessionTimer(c, devices, steps, std::move(session)));
    DFX_RETURN_IF_ERROR(timer->Prepare());
    return timer;
  }

  ~SessionTimer() { session_->Close().IgnoreError(); }

  // Microseconds per step over `steps` steps; checks the last result.
  absl::StatusOr<double> Batch() {
    const auto start = Clock::now();
    for (int i = 0; i < steps_; ++i) {
      DFX_RETURN_IF_ERROR(session_->Run(feeds_, fetches_, {}, &outputs_));
    }
    const double us = Micros(Clock::now() - start) / steps_;
    DFX_RETURN_IF_ERROR(CheckOutput());
    return us;
  }

  const SessionCase& test_case() const { return case_; }
  int devices() const { return devices_; }
  int devices_that_ran() const { return devices_that_ran_; }

 private:
  SessionTimer(const SessionCase& c, int devices, int steps,
               std::unique_ptr<Session> session)
      : case_(c), devices_(devices), steps_(steps),
        session_(std::move(session)) {
    if (c.fed) feeds_.emplace_back("x", Tensor::Scalar<float>(3.0f));
    fetches_.push_back(c.fetch);
  }

  // One traced step (which devices ran nodes), then warm-up steps.
  absl::Status Prepare() {
    RunOptions traced;
    traced.set_trace_level(RunOptions::FULL_TRACE);
    RunMetadata metadata;
    DFX_RETURN_IF_ERROR(
        session_->Run(traced, feeds_, fetches_, {}, &outputs_, &metadata));
    std::set<std::string> used;
    for (const DeviceStepStats& d : metadata.step_stats().dev_stats()) {
      if (d.node_stats_size() > 0) used.insert(d.device());
    }
    devices_that_ran_ = static_cast<int>(used.size());
    for (int i = 0; i < 200; ++i) {
      DFX_RETURN_IF_ERROR(session_->Run(feeds_, fetches_, {}, &outputs_));
    }
    return CheckOutput();
  }

  absl::Status CheckOutput() const {
    if (outputs_.size() != 1 || outputs_[0].dtype() != DT_FLOAT ||
        outputs_[0].scalar<float>() != case_.expected) {
      return absl::InternalError(
          absl::StrCat(case_.name, ": wrong result from the session"));
    }
    return absl::OkStatus();
  }

  const SessionCase case_;
  const int devices_;
  const int steps_;
  const std::unique_ptr<Session> session_;
  std::vector<std::pair<std::string, Tensor>> feeds_;
  std::vector<std::string> fetches_;
  std::vector<Tensor> outputs_;
  int devices_that_ran_ = 0;
};

}  // namespace

int RunSessionBench(int argc, char** argv) {
  std::vector<int> device_counts = {1, 4};
  int steps = 10000;
  auto usage = [] {
    std::fprintf(stderr,
                 "usage: dfx_bench session [--devices 1,4] [--steps N]\n");
    return 2;
  };
  for (int i = 0; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--devices" && i + 1 < argc) {
      device_counts.clear();
      for (absl::string_view part : absl::StrSplit(argv[++i], ',')) {
        int d = 0;
        if (!absl::SimpleAtoi(part, &d) || d < 1) return usage();
        device_counts.push_back(d);
      }
    } else if (flag == "--steps" && i + 1 < argc &&
               ParseInt(argv[i + 1], &steps)) {
      ++i;
    } else {
      return usage();
    }
  }
  constexpr int kReps = 5;
  // Every session is made and warmed up first; then the batches run in
  // turns so that a disturbance of the machine hits every row alike.
  std::vector<std::unique_ptr<SessionTimer>> timers;  // null: skipped
  for (const SessionCase& c : SessionCases()) {
    for (int devices : device_counts) {
      if (devices < c.min_devices) {
        timers.push_back(nullptr);
        continue;
      }
      absl::StatusOr<std::unique_ptr<SessionTimer>> timer =
          SessionTimer::Create(c, devices, steps);
      if (!timer.ok()) {
        std::fprintf(stderr, "%s with %d devices: %s\n", c.name, devices,
                     std::string(timer.status().message()).c_str());
        return 1;
      }
      timers.push_back(*std::move(timer));
    }
  }
  std::vector<double> best(timers.size(), 1e300);
  for (int rep = 0; rep < kReps; ++rep) {
    for (size_t i = 0; i < timers.size(); ++i) {
      if (timers[i] == nullptr) continue;
      absl::StatusOr<double> us = timers[i]->Batch();
      if (!us.ok()) {
        std::fprintf(stderr, "%s with %d devices: %s\n",
                     timers[i]->test_case().name, timers[i]->devices(),
                     std::string(us.status().message()).c_str());
        return 1;
      }
      best[i] = std::min(best[i], *us);
    }
  }

  std::printf("local session, one client thread, %d steps per run after 200 "
              "warm-up steps, fastest of %d runs taken in turns\n",
              steps, kReps);
  std::printf("%-22s %8s %12s %12s %18s\n", "graph", "devices", "us/step",
              "x first row", "devices that ran");
  const std::vector<SessionCase> cases = SessionCases();
  double baseline = 0;  // the first row measured
  size_t i = 0;
  for (const SessionCase& c : cases) {
    for (int devices : device_counts) {
      if (timers[i] == nullptr) {
        std::printf("%-22s %8d %12s %12s %18s\n", c.name, devices, "-", "-",
                    "(needs 2)");
      } else {
        if (baseline == 0) baseline = best[i];
        std::printf("%-22s %8d %12.2f %12.2f %18d\n", c.name, devices,
                    best[i], best[i] / baseline,
                    timers[i]->devices_that_ran());
      }
      ++i;
    }
  }
  return 0;
}

}  // namespace dfx

#include "tools/cli/bench.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "base/status_macros.h"
#include "nlohmann/json.hpp"
#include "runtime/chrome_trace.h"
#include "runtime/session.h"
#include "tools/cli/command.h"
#include "tools/cli/command_util.h"

namespace dfx::cli {

const char kBenchUsage[] =
    R"(usage: dfx bench --graph FILE [--feed NAME=VALUE]... [--fetch NAME[:i]]...
                 [--target NODE]... [--target local|grpc://HOST:PORT]
                 [--iters N] [--warmup N] [--threads N] [--json]
                 [--no-optimize] [--no-remap] [--timeout-ms N] [--local-devices N]
                 [--allow-soft-placement] [--auth-token-file FILE]
                 [--tls-ca PEM [--tls-cert PEM --tls-key PEM]]
                 [--security JSON|@FILE] [--trace FILE.json]

Runs a graph's step many times and prints its latency (min, p50, p90, p99,
max, mean) and throughput in steps/s: TensorFlow's benchmark_model, in this
process or on a cluster. The graph, feeds, fetches and session flags are
those of 'dfx run' (see 'dfx run --help').

  --target local    run in this process (the default)
  --target grpc://HOST:PORT
                    run on the cluster whose master is at HOST:PORT
  --iters N         timed steps, over all threads (default 100)
  --warmup N        untimed steps before them (default 5), after the first
                    step, which is timed on its own (it places, partitions
                    and registers the graph)
  --threads N       client threads running steps at once in the one
                    session (default 1); steps/s counts all of them
  --json            print one JSON object: graph, nodes, target, optimize,
                    iters, warmup, threads, setup_us, first_step_us,
                    latency_us {min, p50, p90, p99, max, mean}, wall_s,
                    steps_per_second
  --no-optimize     switch the graph optimizer off (the same as
                    graph_options.rewrite_options.disable_meta_optimizer
                    and optimizer_options.opt_level L0, which also turn
                    a TensorFlow server's optimizers off)
  --no-remap        leave Conv2D/MatMul and the bias, batch norm and
                    activation after them unfused
                    (rewrite_options.remapping OFF)
  --trace FILE.json after the timed steps, run one more with FULL_TRACE
                    and write its trace to FILE.json in Chrome's
                    trace-event format (as 'dfx run --trace'); it is not
                    counted in the figures
  -h, --help        print this help

Exit status: 0 on success, 1 for bad input or a failed step, 2 for bad
flags.
)";

namespace {

absl::Status UsageError(absl::string_view what) {
  return absl::InvalidArgumentError(what);
}

absl::StatusOr<int64_t> ParseCount(const Flag& flag, int64_t min,
                                   int64_t max) {
  int64_t n = 0;
  if (!absl::SimpleAtoi(flag.value, &n) || n < min) {
    return UsageError(absl::StrCat(
        flag.name, " '", flag.value, "' is not ",
        min == 0 ? "a non-negative integer" : "a positive integer"));
  }
  if (n > max) {
    return UsageError(
        absl::StrCat(flag.name, " ", n, " is more than ", max));
  }
  return n;
}

double MicrosSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::micro>(
             std::chrono::steady_clock::now() - start)
      .count();
}

// Readable duration of `us` microseconds.
std::string Duration(double us) {
  if (us < 1e3) return absl::StrFormat("%.1f us", us);
  if (us < 1e6) return absl::StrFormat("%.3f ms", us / 1e3);
  return absl::StrFormat("%.3f s", us / 1e6);
}

std::string TargetName(const BenchCommandOptions& options) {
  return options.run.session_target.empty() ? "local"
                                            : options.run.session_target;
}

// Runs steps on one session from several threads, collecting latencies.
class StepRunner {
 public:
  StepRunner(Session* session, const PreparedRun& prepared,
             const RunCommandOptions& options)
      : session_(session), prepared_(prepared), options_(options) {
    run_options_.set_timeout_in_ms(options.timeout_ms);
  }

  // One step; `step` (counted from 1) names it in an error. With
  // `metadata`, the step runs with FULL_TRACE and its trace lands there.
  absl::Status Step(int64_t step, RunMetadata* metadata = nullptr) const {
    std::vector<Tensor> outputs;
    RunOptions run_options = run_options_;
    if (metadata != nullptr) run_options.set_trace_level(RunOptions::FULL_TRACE);
    absl::Status s =
        session_->Run(run_options, prepared_.feeds, prepared_.fetches,
                      options_.targets, &outputs, metadata);
    if (!s.ok()) {
      return absl::Status(s.code(),
                          absl::StrCat("step ", step, ": ", s.message()));
    }
    if (outputs.size() != prepared_.fetches.size()) {
      return absl::InternalError(absl::StrCat(
          "step ", step, ": the session returned ", outputs.size(),
          " tensors for ", prepared_.fetches.size(), " fetches"));
    }
    return absl::OkStatus();
  }

  // Runs `iters` steps numbered from `first` on `threads` threads; each
  // step's latency in microseconds, in no particular order, and the wall
  // time of them all. The first failed step's error stops every thread.
  absl::StatusOr<std::pair<std::vector<double>, double>> Timed(
      int64_t first, int64_t iters, int threads) {
    std::atomic<int64_t> next{0};
    std::atomic<bool> failed{false};
    absl::Mutex mu;
    absl::Status error;
    std::vector<std::vector<double>> latencies(threads);
    auto loop = [&](int t) {
      latencies[t].reserve(static_cast<size_t>(iters / threads + 1));
      while (!failed.load(std::memory_order_relaxed)) {
        const int64_t i = next.fetch_add(1, std::memory_order_relaxed);
        if (i >= iters) return;
        const auto start = std::chrono::steady_clock::now();
        absl::Status s = Step(first + i);
        const double us = MicrosSince(start);
        if (!s.ok()) {
          absl::MutexLock lock(&mu);
          if (error.ok()) error = std::move(s);
          failed.store(true);
          return;
        }
        latencies[t].push_back(us);
      }
    };
    const auto start = std::chrono::steady_clock::now();
    if (threads == 1) {
      loop(0);
    } else {
      std::vector<std::thread> pool;
      pool.reserve(threads);
      for (int t = 0; t < threads; ++t) pool.emplace_back(loop, t);
      for (std::thread& thread : pool) thread.join();
    }
    const double wall_us = MicrosSince(start);
    DFX_RETURN_IF_ERROR(error);
    std::vector<double> all;
    all.reserve(static_cast<size_t>(iters));
    for (const std::vector<double>& l : latencies) {
      all.insert(all.end(), l.begin(), l.end());
    }
    return std::make_pair(std::move(all), wall_us / 1e6);
  }

 private:
  Session* const session_;
  const PreparedRun& prepared_;
  const RunCommandOptions& options_;
  RunOptions run_options_;
};

}  // namespace

absl::StatusOr<BenchCommandOptions> ParseBenchFlags(
    const std::vector<std::string>& args) {
  BenchCommandOptions options;
  std::set<std::string> valued = RunValuedFlags();
  valued.erase("--out");
  valued.insert({"--iters", "--warmup", "--threads"});
  DFX_ASSIGN_OR_RETURN(std::vector<Flag> flags,
                       SplitFlags(args, valued, RunSwitches()));
  bool local = false;
  for (const Flag& flag : flags) {
    if (flag.name == "--help") {
      options.help = true;
      return options;
    } else if (flag.name == "--iters") {
      DFX_ASSIGN_OR_RETURN(options.iters, ParseCount(flag, 1, kMaxBenchSteps));
    } else if (flag.name == "--warmup") {
      DFX_ASSIGN_OR_RETURN(options.warmup,
                           ParseCount(flag, 0, kMaxBenchSteps));
    } else if (flag.name == "--threads") {
      DFX_ASSIGN_OR_RETURN(int64_t n, ParseCount(flag, 1, kMaxBenchThreads));
      options.threads = static_cast<int>(n);
    } else if (flag.name == "--target" && flag.value == "local") {
      local = true;
    } else {
      DFX_ASSIGN_OR_RETURN(bool known, ApplyRunFlag(flag, &options.run));
      if (!known) {
        return UsageError(absl::StrCat("unknown flag '", flag.name, "'"));
      }
    }
  }
  if (local && !options.run.session_target.empty()) {
    return UsageError("--target local and --target grpc://... exclude "
                      "each other");
  }
  DFX_RETURN_IF_ERROR(CheckRunOptions(options.run));
  return options;
}

double Percentile(const std::vector<double>& sorted, double p) {
  const double n = static_cast<double>(sorted.size());
  const int64_t rank = static_cast<int64_t>(std::ceil(p / 100.0 * n));
  const int64_t index =
      std::clamp<int64_t>(rank - 1, 0, static_cast<int64_t>(sorted.size()) - 1);
  return sorted[static_cast<size_t>(index)];
}

LatencySummary Summarize(std::vector<double> latencies) {
  std::sort(latencies.begin(), latencies.end());
  LatencySummary s;
  s.min = latencies.front();
  s.max = latencies.back();
  s.p50 = Percentile(latencies, 50);
  s.p90 = Percentile(latencies, 90);
  s.p99 = Percentile(latencies, 99);
  double sum = 0;
  for (double l : latencies) sum += l;
  s.mean = sum / static_cast<double>(latencies.size());
  return s;
}

absl::StatusOr<BenchResult> RunBench(const BenchCommandOptions& options) {
  BenchResult result;
  DFX_ASSIGN_OR_RETURN(PreparedRun prepared, PrepareRun(options.run));
  result.nodes = prepared.loaded.def.node_size();

  auto start = std::chrono::steady_clock::now();
  DFX_ASSIGN_OR_RETURN(std::unique_ptr<Session> session,
                       CreateRunSession(options.run));
  absl::Status s = session->Extend(prepared.loaded.def);
  result.setup_us = MicrosSince(start);
  StepRunner runner(session.get(), prepared, options.run);
  if (s.ok()) {
    start = std::chrono::steady_clock::now();
    s = runner.Step(1);
    result.first_step_us = MicrosSince(start);
  }
  for (int64_t i = 0; s.ok() && i < options.warmup; ++i) s = runner.Step(2 + i);
  absl::StatusOr<std::pair<std::vector<double>, double>> timed =
      s.ok() ? runner.Timed(2 + options.warmup, options.iters, options.threads)
             : absl::StatusOr<std::pair<std::vector<double>, double>>(s);
  RunMetadata metadata;
  const bool trace = timed.ok() && !options.run.trace_path.empty();
  absl::Status traced = absl::OkStatus();
  if (trace) {
    traced = runner.Step(2 + options.warmup + options.iters, &metadata);
  }
  session->Close().IgnoreError();
  DFX_RETURN_IF_ERROR(timed.status());
  DFX_RETURN_IF_ERROR(traced);
  if (trace) {
    DFX_RETURN_IF_ERROR(WriteChromeTrace(
        options.run.trace_path,
        absl::MakeConstSpan(&metadata.step_stats(), 1)));
  }
  auto& [latencies, wall_s] = *timed;
  if (latencies.size() != static_cast<size_t>(options.iters)) {
    return absl::InternalError(absl::StrCat(
        "timed ", latencies.size(), " steps of ", options.iters));
  }
  result.latency_us = Summarize(std::move(latencies));
  result.wall_s = wall_s;
  result.steps_per_second =
      wall_s > 0 ? static_cast<double>(options.iters) / wall_s : 0;
  return result;
}

std::string FormatBenchText(const BenchCommandOptions& options,
                            const BenchResult& r) {
  const LatencySummary& l = r.latency_us;
  return absl::StrCat(
      "graph      ", options.run.graph_path, " (", r.nodes, " nodes)\n",
      "target     ", TargetName(options), ", optimizer ",
      options.run.no_optimize ? "off" : "on", ", ", options.threads,
      options.threads == 1 ? " thread\n" : " threads\n",
      "setup      ", Duration(r.setup_us), " (session and Extend)\n",
      "first step ", Duration(r.first_step_us), "\n",
      "steps      ", options.iters, " timed after ", options.warmup,
      " warm-up\n",
      "latency    min ", Duration(l.min), "  p50 ", Duration(l.p50), "  p90 ",
      Duration(l.p90), "  p99 ", Duration(l.p99), "  max ", Duration(l.max),
      "  mean ", Duration(l.mean), "\n",
      "throughput ", absl::StrFormat("%.1f", r.steps_per_second),
      " steps/s\n");
}

std::string FormatBenchJson(const BenchCommandOptions& options,
                            const BenchResult& r) {
  nlohmann::ordered_json json = {
      {"graph", options.run.graph_path},
      {"nodes", r.nodes},
      {"target", TargetName(options)},
      {"optimize", !options.run.no_optimize},
      {"iters", options.iters},
      {"warmup", options.warmup},
      {"threads", options.threads},
      {"setup_us", r.setup_us},
      {"first_step_us", r.first_step_us},
      {"latency_us",
       {{"min", r.latency_us.min},
        {"p50", r.latency_us.p50},
        {"p90", r.latency_us.p90},
        {"p99", r.latency_us.p99},
        {"max", r.latency_us.max},
        {"mean", r.latency_us.mean}}},
      {"wall_s", r.wall_s},
      {"steps_per_second", r.steps_per_second},
  };
  return json.dump() + "\n";
}

int BenchMain(const std::vector<std::string>& args, std::ostream& out,
              std::ostream& err) {
  auto report = [&err](const absl::Status& s) { ReportError("bench", s, err); };
  absl::StatusOr<BenchCommandOptions> options = ParseBenchFlags(args);
  if (!options.ok()) {
    report(absl::InvalidArgumentError(absl::StrCat(
        options.status().message(), " (see 'dfx bench --help')")));
    return kExitUsage;
  }
  if (options->help) {
    out << kBenchUsage;
    return kExitOk;
  }
  absl::StatusOr<BenchResult> result = RunBench(*options);
  if (!result.ok()) {
    report(result.status());
    return kExitError;
  }
  out << (options->run.json ? FormatBenchJson(*options, *result)
                            : FormatBenchText(*options, *result));
  out.flush();
  return kExitOk;
}

}  // namespace dfx::cli

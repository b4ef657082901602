// `dfx bench`: runs a graph file's step many times, in this process or on a
// cluster, and reports its latency distribution and throughput — the
// counterpart of TensorFlow's benchmark_model.
#ifndef DFX_TOOLS_CLI_BENCH_H_
#define DFX_TOOLS_CLI_BENCH_H_

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "tools/cli/run.h"

namespace dfx::cli {

// The most --iters, --warmup and --threads may ask for.
inline constexpr int64_t kMaxBenchSteps = 10'000'000;
inline constexpr int kMaxBenchThreads = 256;

// What `dfx bench` was asked to do, as parsed from its flags.
struct BenchCommandOptions {
  // The step, the session and the output form, with `dfx run`'s flags
  // (--graph, --feed, --fetch, --target, --json, --no-optimize,
  // --timeout-ms, --local-devices, security flags). run.session_target
  // empty: a local session ("--target local" asks for it explicitly).
  RunCommandOptions run;
  int64_t iters = 100;  // timed steps, over all threads
  int64_t warmup = 5;   // untimed steps after the first step
  int threads = 1;      // client threads running steps at once
  bool help = false;
};

// Step latencies, in microseconds.
struct LatencySummary {
  double min = 0;
  double p50 = 0;
  double p90 = 0;
  double p99 = 0;
  double max = 0;
  double mean = 0;
};

// What a benchmark measured.
struct BenchResult {
  int64_t nodes = 0;           // nodes of the graph file
  double setup_us = 0;         // creating the session and Extend
  double first_step_us = 0;    // the first Run (registration included)
  LatencySummary latency_us;   // the timed steps
  double wall_s = 0;           // from the first timed step's start to the
                               // last one's end
  double steps_per_second = 0; // iters / wall_s
};

extern const char kBenchUsage[];

// Parses the flags after "bench". InvalidArgument naming the flag for an
// unknown flag (run's --out and --trace included), a malformed value
// (--iters and --threads >= 1, --warmup >= 0, each at most the limits
// above), no --graph, or neither --fetch nor a target node (unless --help
// was given).
absl::StatusOr<BenchCommandOptions> ParseBenchFlags(
    const std::vector<std::string>& args);

// The nearest-rank percentile `p` (0 < p <= 100) of `sorted` (ascending,
// not empty).
double Percentile(const std::vector<double>& sorted, double p);

// Summarizes latencies (any order, not empty).
LatencySummary Summarize(std::vector<double> latencies);

// Loads and checks the graph and feeds (as `dfx run` does), opens the
// session, Extends it, runs the first step (timed on its own: it registers
// the graph), options.warmup untimed steps, then options.iters timed steps
// on options.threads threads, and closes the session. A failed step stops the benchmark: its error
// names the step; errors of loading, feeds and the session as `dfx run`
// reports them.
absl::StatusOr<BenchResult> RunBench(const BenchCommandOptions& options);

// The result as text (a few lines) or as one JSON object on one line.
std::string FormatBenchText(const BenchCommandOptions& options,
                            const BenchResult& result);
std::string FormatBenchJson(const BenchCommandOptions& options,
                            const BenchResult& result);

// The `bench` subcommand: ParseBenchFlags, RunBench, then the text or
// JSON (--json) on `out`. Errors print as one line "dfx bench: error: ..."
// on `err`; returns 2 for usage errors, 1 for other errors, 0 on success.
int BenchMain(const std::vector<std::string>& args, std::ostream& out,
              std::ostream& err);

}  // namespace dfx::cli

#endif  // DFX_TOOLS_CLI_BENCH_H_

#include "tools/bench/loop_bench.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "master/local_session.h"
#include "proto/graph.pb.h"
#include "runtime/chrome_trace.h"
#include "tools/bench/bench_util.h"

namespace dfx {
namespace {

NodeDef* AddNode(GraphDef* g, const std::string& name, const std::string& op,
                 std::vector<std::string> inputs, const std::string& device) {
  NodeDef* n = g->add_node();
  n->set_name(name);
  n->set_op(op);
  for (std::string& in : inputs) n->add_input(std::move(in));
  if (!device.empty()) n->set_device(device);
  if (op != "Const" && op != "Placeholder") {
    (*n->mutable_attr())["T"].set_type(DT_INT32);
  }
  return n;
}

void IntConst(GraphDef* g, const std::string& name, int32_t v,
              std::vector<std::string> inputs, const std::string& device) {
  NodeDef* n = AddNode(g, name, "Const", std::move(inputs), device);
  (*n->mutable_attr())["dtype"].set_type(DT_INT32);
  Tensor::Scalar<int32_t>(v).AsProtoTensorContent(
      (*n->mutable_attr())["value"].mutable_tensor());
}

// i = 0; while (i < n) i += 1 — tf.while_loop's nodes; the add (and the
// constant it adds) on `body_device`.
GraphDef CounterLoop(const std::string& body_device) {
  GraphDef g;
  NodeDef* n = AddNode(&g, "n", "Placeholder", {}, "");
  (*n->mutable_attr())["dtype"].set_type(DT_INT32);
  IntConst(&g, "zero", 0, {}, "");
  for (const char* name : {"enter_i", "enter_n"}) {
    NodeDef* e = AddNode(&g, name, "Enter",
                         {name == std::string("enter_i") ? "zero" : "n"}, "");
    (*e->mutable_attr())["frame_name"].set_s("loop");
    (*e->mutable_attr())["is_constant"].set_b(name != std::string("enter_i"));
    (*e->mutable_attr())["parallel_iterations"].set_i(10);
  }
  (*AddNode(&g, "merge", "Merge", {"enter_i", "next"}, "")
        ->mutable_attr())["N"]
      .set_i(2);
  AddNode(&g, "less", "Less", {"merge", "enter_n"}, "");
  NodeDef* cond = AddNode(&g, "cond", "LoopCond", {"less"}, "");
  cond->mutable_attr()->erase("T");
  AddNode(&g, "switch", "Switch", {"merge", "cond"}, "");
  AddNode(&g, "exit", "Exit", {"switch:0"}, "");
  AddNode(&g, "body", "Identity", {"switch:1"}, "");
  IntConst(&g, "one", 1, {"^body"}, body_device);
  AddNode(&g, "add", "AddV2", {"body", "one"}, body_device);
  AddNode(&g, "next", "NextIteration", {"add"}, "");
  return g;
}

// Best seconds per iteration over `repeats` steps, or a negative value.
double TimeLoop(int cpus, const std::string& body_device, int iters,
                int repeats) {
  SessionOptions options;
  (*options.config.mutable_device_count())["CPU"] = cpus;
  auto session = LocalSession::Create(options);
  if (!session.ok()) return -1;
  absl::Status s = (*session)->Extend(CounterLoop(body_device));
  double best = 1e30;
  for (int r = 0; s.ok() && r <= repeats; ++r) {
    std::vector<Tensor> out;
    const auto t0 = std::chrono::steady_clock::now();
    s = (*session)->Run({{"n", Tensor::Scalar<int32_t>(iters)}}, {"exit"}, {},
                        &out);
    const double t = std::chrono::duration<double>(
                         std::chrono::steady_clock::now() - t0)
                         .count();
    if (s.ok() && out[0].scalar<int32_t>() != iters) {
      s = absl::InternalError("the loop counted wrong");
    }
    if (r > 0) best = std::min(best, t);  // step 0 registers the graphs
  }
  (void)(*session)->Close();
  if (!s.ok()) {
    std::fprintf(stderr, "loop bench: %s\n", s.ToString().c_str());
    return -1;
  }
  return best / iters;
}

// Runs one traced step of the loop (the body on a second device) and
// writes its Chrome trace to `path`. At most 100 iterations: a trace holds
// every node of every iteration.
absl::Status TraceLoop(const std::string& path, int iters) {
  SessionOptions options;
  (*options.config.mutable_device_count())["CPU"] = 2;
  DFX_ASSIGN_OR_RETURN(std::unique_ptr<Session> session,
                       LocalSession::Create(options));
  DFX_RETURN_IF_ERROR(session->Extend(
      CounterLoop("/job:localhost/replica:0/task:0/device:CPU:1")));
  iters = std::min(iters, 100);
  RunOptions run_options;
  run_options.set_trace_level(RunOptions::FULL_TRACE);
  std::vector<StepStats> steps;
  for (int r = 0; r < 2; ++r) {  // step 0 registers the graphs
    RunMetadata metadata;
    std::vector<Tensor> out;
    DFX_RETURN_IF_ERROR(session->Run(run_options,
                                     {{"n", Tensor::Scalar<int32_t>(iters)}},
                                     {"exit"}, {}, &out, &metadata));
    if (r > 0) steps.push_back(metadata.step_stats());
  }
  (void)session->Close();
  return WriteChromeTrace(path, steps);
}

int Usage() {
  std::fprintf(stderr,
               "usage: dfx_bench loop [--iters 10000] [--repeats 5] "
               "[--no-tf] [--trace FILE.json] [--devices 1|2]\n");
  return 2;
}

}  // namespace

int RunLoopBench(int argc, char** argv) {
  int iters = 10000;
  int repeats = 5;
  bool tf = true;
  std::string trace_path;
  // 0: both local settings; 1 or 2: only that one, without TensorFlow (for
  // instruction counts of one setting).
  int devices = 0;
  for (int i = 0; i < argc; ++i) {
    const std::string flag = argv[i];
    if ((flag == "--iters" || flag == "--repeats") && i + 1 < argc) {
      const int v = std::atoi(argv[++i]);
      if (v <= 0) return Usage();
      (flag == "--iters" ? iters : repeats) = v;
    } else if (flag == "--no-tf") {
      tf = false;
    } else if (flag == "--trace" && i + 1 < argc) {
      trace_path = argv[++i];
    } else if (flag == "--devices" && i + 1 < argc) {
      devices = std::atoi(argv[++i]);
      if (devices != 1 && devices != 2) return Usage();
      tf = false;
    } else {
      return Usage();
    }
  }
  std::printf("# a scalar counter loop, %d iterations, best of %d steps\n",
              iters, repeats);
  std::printf("%-34s %12s\n", "dfx C++ client, local session", "us/iter");
  const double one = devices == 2 ? 0 : TimeLoop(1, "", iters, repeats);
  const double two =
      devices == 1
          ? 0
          : TimeLoop(2, "/job:localhost/replica:0/task:0/device:CPU:1", iters,
                     repeats);
  if (one < 0 || two < 0) return 1;
  if (devices != 2) std::printf("%-34s %12.2f\n", "one device", one * 1e6);
  if (devices != 1) {
    std::printf("%-34s %12.2f\n", "body on a second device", two * 1e6);
  }
  if (!trace_path.empty()) {
    // Traced after the timed steps, so that tracing does not slow them.
    absl::Status s = TraceLoop(trace_path, iters);
    if (!s.ok()) {
      std::fprintf(stderr, "loop bench: --trace: %s\n", s.ToString().c_str());
      return 1;
    }
    std::printf("trace of one step (body on a second device, %d "
                "iterations): %s\n", std::min(iters, 100), trace_path.c_str());
  }
  if (!tf) return 0;
  const std::string root = FindSourceDir();
  const std::string python = root.empty() ? "" : TensorFlowPython(root);
  if (python.empty()) {
    std::printf("TensorFlow comparison: skipped (no venv; run tools/tf_env)\n");
    return 0;
  }
  int status = 0;
  const std::string bin = BinaryDir();
  if (bin.empty()) return 1;
  std::printf("\n# one TensorFlow client against TensorFlow's servers and "
              "dfx's (tools/bench/loop_vs_tf.py)\n");
  std::fflush(stdout);
  const std::string out = RunCommand(
      absl::StrCat("'", python, "' '", root, "/tools/bench/loop_vs_tf.py' ",
                   "--dfx '", bin, "/dfx' --iters ", iters, " --repeats ",
                   repeats, " 2>&1"),
      &status);
  std::printf("%s", out.c_str());
  return status == 0 ? 0 : 1;
}

}  // namespace dfx

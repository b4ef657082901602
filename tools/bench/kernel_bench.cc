// dfx_bench kernels: dense kernels as a user sees them. Each case is a
// one-node graph whose inputs are Const nodes, run as a target through a
// local session (intra-op threads as asked, one inter-op thread), so the
// time includes the executor's step but no feed or fetch copies. The
// figure is the fastest step over at least --min-time seconds: on a shared
// machine the fastest step is the least disturbed one. `--only a,b` runs the
// named cases (the names tf_kernels.py shares) on both sides. TensorFlow 2.21 runs
// the same graphs (tools/bench/tf_kernels.py) with Grappler off, and dfx
// runs them with its graph optimizer off, so neither side folds the
// constants away.
#include "tools/bench/kernel_bench.h"
#include "tools/bench/bench_util.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "base/logging.h"
#include "base/status_macros.h"
#include "graph/op_registry.h"
#include "graph/types.h"
#include "kernels/kernels.h"
#include "proto/config.pb.h"
#include "proto/graph.pb.h"
#include "runtime/session.h"
#include "runtime/tensor.h"

namespace dfx {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr int64_t kMiB = int64_t{1} << 20;

double Seconds(Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

// One benchmark: a graph, the node to run, and what one step does.
struct Case {
  std::string name;     // shared with tf_kernels.py
  std::string label;    // what the table shows
  std::string op;       // the op that must be registered
  bool is_flops = true; // amount is FLOPs (GFLOP/s), else bytes (GB/s)
  double amount = 0;
  GraphDef graph;
};

Tensor RandomFloats(const TensorShape& shape, uint32_t seed) {
  Tensor t(DT_FLOAT, shape);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1, 1);
  float* p = t.data<float>();
  for (int64_t i = 0; i < t.NumElements(); ++i) p[i] = dist(rng);
  return t;
}

// Uniform in [lo, hi), as DT_FLOAT or DT_HALF.
Tensor RandomValues(DataType dtype, const TensorShape& shape, uint32_t seed,
                    float lo, float hi) {
  Tensor f = RandomFloats(shape, seed);
  float* p = f.data<float>();
  for (int64_t i = 0; i < f.NumElements(); ++i) {
    p[i] = lo + (p[i] + 1) * 0.5f * (hi - lo);
  }
  if (dtype == DT_FLOAT) return f;
  Tensor h(DT_HALF, shape);
  for (int64_t i = 0; i < f.NumElements(); ++i) {
    h.data<Eigen::half>()[i] = static_cast<Eigen::half>(p[i]);
  }
  return h;
}

Tensor Ones(int64_t n) {
  Tensor t(DT_FLOAT, TensorShape({n}));
  std::fill_n(t.data<float>(), n, 1.0f);
  return t;
}

void SetType(NodeDef* node, const std::string& attr, DataType t) {
  (*node->mutable_attr())[attr].set_type(t);
}

void AddConst(GraphDef* g, const std::string& name, const Tensor& value) {
  NodeDef* node = g->add_node();
  node->set_name(name);
  node->set_op("Const");
  SetType(node, "dtype", value.dtype());
  value.AsProtoTensorContent((*node->mutable_attr())["value"].mutable_tensor());
}

NodeDef* AddOp(GraphDef* g, const std::string& op,
               const std::vector<std::string>& inputs,
               DataType dtype = DT_FLOAT) {
  NodeDef* node = g->add_node();
  node->set_name("op");
  node->set_op(op);
  for (const std::string& in : inputs) node->add_input(in);
  SetType(node, "T", dtype);
  return node;
}

const char* DtypeName(DataType dtype) {
  return dtype == DT_HALF ? "half" : "float";
}

// The activation cases: element-wise activations and gradients over 4M
// values, and the row-wise softmaxes and cross-entropies over [4096, 1000].
// Rates are the bytes read and written (each input and output once).
void AddActivationCases(std::vector<Case>* cases) {
  const int64_t n = 4 * kMiB;
  struct Unary {
    const char* name;
    const char* op;
    DataType dtype;
  };
  for (const Unary& u : std::vector<Unary>{
           {"elu", "Elu", DT_FLOAT},
           {"elu_half", "Elu", DT_HALF},
           {"selu", "Selu", DT_FLOAT},
           {"softplus", "Softplus", DT_FLOAT},
           {"leaky_relu", "LeakyRelu", DT_FLOAT}}) {
    Case c;
    c.name = absl::StrCat(u.name, "_4m");
    c.label = absl::StrCat(u.op, " 4M ", DtypeName(u.dtype));
    c.op = u.op;
    c.is_flops = false;
    c.amount = 2.0 * n * DataTypeSize(u.dtype);
    AddConst(&c.graph, "x", RandomValues(u.dtype, TensorShape({n}), 5, -3, 3));
    NodeDef* node = AddOp(&c.graph, u.op, {"x"}, u.dtype);
    if (std::string(u.op) == "LeakyRelu") {
      (*node->mutable_attr())["alpha"].set_f(0.2f);
    }
    cases->push_back(std::move(c));
  }
  for (const Unary& u : std::vector<Unary>{{"relu_grad", "ReluGrad", DT_FLOAT},
                                           {"elu_grad", "EluGrad", DT_FLOAT}}) {
    Case c;
    c.name = absl::StrCat(u.name, "_4m");
    c.label = absl::StrCat(u.op, " 4M ", DtypeName(u.dtype));
    c.op = u.op;
    c.is_flops = false;
    c.amount = 3.0 * n * DataTypeSize(u.dtype);
    AddConst(&c.graph, "g", RandomValues(u.dtype, TensorShape({n}), 6, -1, 1));
    AddConst(&c.graph, "x", RandomValues(u.dtype, TensorShape({n}), 7, -1, 1));
    AddOp(&c.graph, u.op, {"g", "x"}, u.dtype);
    cases->push_back(std::move(c));
  }
  const int64_t rows = 4096, classes = 1000;
  for (const Unary& u : std::vector<Unary>{
           {"softmax", "Softmax", DT_FLOAT},
           {"softmax_half", "Softmax", DT_HALF},
           {"log_softmax", "LogSoftmax", DT_FLOAT},
           {"log_softmax_half", "LogSoftmax", DT_HALF}}) {
    Case c;
    c.name = absl::StrCat(u.name, "_4096x1000");
    c.label = absl::StrCat(u.op, " 4096x1000 ", DtypeName(u.dtype));
    c.op = u.op;
    c.is_flops = false;
    c.amount = 2.0 * rows * classes * DataTypeSize(u.dtype);
    AddConst(&c.graph, "x",
             RandomValues(u.dtype, TensorShape({rows, classes}), 8, -5, 5));
    AddOp(&c.graph, u.op, {"x"}, u.dtype);
    cases->push_back(std::move(c));
  }
  {
    Case c;
    c.name = "xent_4096x1000";
    c.label = "SoftmaxCrossEntropyWithLogits 4096x1000";
    c.op = "SoftmaxCrossEntropyWithLogits";
    c.is_flops = false;
    c.amount = 3.0 * rows * classes * 4;
    AddConst(&c.graph, "x",
             RandomValues(DT_FLOAT, TensorShape({rows, classes}), 9, -5, 5));
    AddConst(&c.graph, "y",
             RandomValues(DT_FLOAT, TensorShape({rows, classes}), 10, 0, 1));
    AddOp(&c.graph, c.op, {"x", "y"});
    cases->push_back(std::move(c));
  }
  {
    Case c;
    c.name = "sparse_xent_4096x1000";
    c.label = "SparseSoftmaxXent 4096x1000 int64";
    c.op = "SparseSoftmaxCrossEntropyWithLogits";
    c.is_flops = false;
    c.amount = 2.0 * rows * classes * 4;
    AddConst(&c.graph, "x",
             RandomValues(DT_FLOAT, TensorShape({rows, classes}), 11, -5, 5));
    std::vector<int64_t> labels(rows);
    for (int64_t r = 0; r < rows; ++r) labels[r] = (r * 7919) % classes;
    AddConst(&c.graph, "y", Tensor::FromVector<int64_t>(labels));
    NodeDef* node = AddOp(&c.graph, c.op, {"x", "y"});
    SetType(node, "Tlabels", DT_INT64);
    cases->push_back(std::move(c));
  }
}

std::vector<Case> MakeCases() {
  std::vector<Case> cases;
  for (int64_t n : {128, 192, 256, 1024, 2048}) {
    Case c;
    c.name = absl::StrCat("matmul_", n);
    c.label = absl::StrCat("MatMul ", n, "x", n, " float");
    c.op = "MatMul";
    c.amount = 2.0 * n * n * n;
    AddConst(&c.graph, "a", RandomFloats(TensorShape({n, n}), 1));
    AddConst(&c.graph, "b", RandomFloats(TensorShape({n, n}), 2));
    NodeDef* mm = AddOp(&c.graph, "MatMul", {"a", "b"});
    (*mm->mutable_attr())["transpose_a"].set_b(false);
    (*mm->mutable_attr())["transpose_b"].set_b(false);
    cases.push_back(std::move(c));
  }
  {
    Case c;
    c.name = "conv2d_3x3_64_56";
    c.label = "Conv2D 3x3 64->64 56x56 NHWC";
    c.op = "Conv2D";
    c.amount = 2.0 * 56 * 56 * 64 * 64 * 9;
    AddConst(&c.graph, "x", RandomFloats(TensorShape({1, 56, 56, 64}), 3));
    AddConst(&c.graph, "w", RandomFloats(TensorShape({3, 3, 64, 64}), 4));
    NodeDef* conv = AddOp(&c.graph, "Conv2D", {"x", "w"});
    auto& attr = *conv->mutable_attr();
    for (int i = 0; i < 4; ++i) attr["strides"].mutable_list()->add_i(1);
    for (int i = 0; i < 4; ++i) attr["dilations"].mutable_list()->add_i(1);
    attr["padding"].set_s("SAME");
    attr["data_format"].set_s("NHWC");
    attr["use_cudnn_on_gpu"].set_b(true);
    cases.push_back(std::move(c));
  }
  const int64_t n = 64 * kMiB / 4;
  {
    Case c;
    c.name = "add_64mib";
    c.label = "Add 64 MiB float (2 reads, 1 write)";
    c.op = "AddV2";
    c.is_flops = false;
    c.amount = 3.0 * 64 * kMiB;
    AddConst(&c.graph, "a", Ones(n));
    AddConst(&c.graph, "b", Ones(n));
    AddOp(&c.graph, "AddV2", {"a", "b"});
    cases.push_back(std::move(c));
  }
  {
    Case c;
    c.name = "sum_64mib";
    c.label = "Sum 64 MiB float (1 read)";
    c.op = "Sum";
    c.is_flops = false;
    c.amount = 64.0 * kMiB;
    AddConst(&c.graph, "a", Ones(n));
    AddConst(&c.graph, "axis",
             Tensor::FromVector<int32_t>(std::vector<int32_t>{0}));
    NodeDef* sum = AddOp(&c.graph, "Sum", {"a", "axis"});
    SetType(sum, "Tidx", DT_INT32);
    (*sum->mutable_attr())["keep_dims"].set_b(false);
    cases.push_back(std::move(c));
  }
  AddActivationCases(&cases);
  return cases;
}

// Empty when dfx can run `c`, else why not.
std::string WhyNotRunnable(const Case& c) {
  const OpRegistrationData* op = OpRegistry::Global()->LookUp(c.op);
  if (op == nullptr) return absl::StrCat("op ", c.op, " is not registered");
  const NodeDef& node = c.graph.node(c.graph.node_size() - 1);
  if (!StandardKernelRegistry()->HasKernel(node, "CPU")) {
    return absl::StrCat("no CPU kernel for ", c.op, " ",
                        DataTypeString(node.attr().at("T").type()));
  }
  return "";
}

// The fastest step of `c` in seconds.
absl::StatusOr<double> TimeDfx(const Case& c, int threads, double min_time) {
  SessionOptions options;
  options.config.set_intra_op_parallelism_threads(threads);
  options.config.set_inter_op_parallelism_threads(1);
  // As TensorFlow's side runs without Grappler: dfx's optimizer would fold
  // an op over Consts of up to 10 MiB (the half cases) into a Const.
  options.config.mutable_graph_options()
      ->mutable_rewrite_options()
      ->set_disable_meta_optimizer(true);
  DFX_ASSIGN_OR_RETURN(std::unique_ptr<Session> session,
                       Session::Create("local", options));
  DFX_RETURN_IF_ERROR(session->Extend(c.graph));
  std::vector<Tensor> outputs;
  for (int i = 0; i < 3; ++i) {
    DFX_RETURN_IF_ERROR(session->Run({}, {}, {"op"}, &outputs));
  }
  double best = 1e30;
  int steps = 0;
  const auto start = Clock::now();
  while (steps < 5 || Seconds(Clock::now() - start) < min_time) {
    const auto t0 = Clock::now();
    DFX_RETURN_IF_ERROR(session->Run({}, {}, {"op"}, &outputs));
    best = std::min(best, Seconds(Clock::now() - t0));
    ++steps;
  }
  DFX_RETURN_IF_ERROR(session->Close());
  return best;
}

// The fastest 64 MiB memcpy in seconds.
double TimeMemcpy(double min_time) {
  std::vector<char> src(64 * kMiB, 1), dst(64 * kMiB, 0);
  std::memcpy(dst.data(), src.data(), src.size());
  double best = 1e30;
  int reps = 0;
  const auto start = Clock::now();
  while (reps < 5 || Seconds(Clock::now() - start) < min_time) {
    const auto t0 = Clock::now();
    std::memcpy(dst.data(), src.data(), src.size());
    best = std::min(best, Seconds(Clock::now() - t0));
    src[reps % src.size()] ^= 1;  // keep the copy observable
    ++reps;
  }
  if (dst[0] == 42) std::printf(" ");
  return best;
}

// TensorFlow's fastest step per case name, or why there are none.
std::map<std::string, double> TimeTensorFlow(const std::string& root,
                                             int threads, double min_time,
                                             const std::string& only,
                                             std::string* why_not) {
  std::map<std::string, double> seconds;
  int status = 0;
  const std::string python = TensorFlowPython(root);
  if (python.empty()) {
    *why_not = "skipped (no venv; run tools/tf_env)";
    return seconds;
  }
  const std::string out = RunCommand(
      absl::StrCat("'", python, "' '", root, "/tools/bench/tf_kernels.py' ",
                   "--threads ", threads, " --min-time ", min_time,
                   only.empty() ? "" : absl::StrCat(" --only '", only, "'"),
                   " 2>/dev/null"),
      &status);
  // Lines of {"name": "...", "seconds": x}.
  for (absl::string_view line : absl::StrSplit(out, '\n')) {
    const size_t name_at = line.find("\"name\": \"");
    const size_t sec_at = line.find("\"seconds\": ");
    if (name_at == absl::string_view::npos ||
        sec_at == absl::string_view::npos) {
      continue;
    }
    const size_t name_start = name_at + 9;
    const size_t name_end = line.find('"', name_start);
    absl::string_view value = line.substr(sec_at + 11);
    value = value.substr(0, value.find_first_of(",}"));
    double s = 0;
    if (name_end != absl::string_view::npos && absl::SimpleAtod(value, &s)) {
      seconds[std::string(line.substr(name_start, name_end - name_start))] =
          s;
    }
  }
  if (status != 0) {
    *why_not = absl::StrCat("failed (tf_kernels.py exit status ", status,
                            ")");
  }
  return seconds;
}

std::string Rate(const Case& c, double seconds) {
  return absl::StrFormat("%8.1f %s", c.amount / seconds * 1e-9,
                         c.is_flops ? "GFLOP/s" : "GB/s   ");
}

int Usage() {
  std::fprintf(stderr,
               "usage: dfx_bench kernels [--threads 1,2] [--min-time S] "
               "[--no-tf] [--only NAME,NAME]\n");
  return 2;
}

}  // namespace

int RunKernelBench(int argc, char** argv) {
  std::vector<int> thread_counts = {2};
  double min_time = 1.0;
  bool with_tf = true;
  std::string only;  // comma-separated case names; empty: all
  for (int i = 0; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--threads" && i + 1 < argc) {
      thread_counts.clear();
      for (absl::string_view t : absl::StrSplit(argv[++i], ',')) {
        int v = 0;
        if (!absl::SimpleAtoi(t, &v) || v < 1) return Usage();
        thread_counts.push_back(v);
      }
    } else if (flag == "--min-time" && i + 1 < argc) {
      if (!absl::SimpleAtod(argv[++i], &min_time) || min_time <= 0) {
        return Usage();
      }
    } else if (flag == "--no-tf") {
      with_tf = false;
    } else if (flag == "--only" && i + 1 < argc) {
      only = argv[++i];
    } else {
      return Usage();
    }
  }
  std::vector<Case> cases = MakeCases();
  if (!only.empty()) {
    const std::vector<std::string> names = absl::StrSplit(only, ',');
    std::vector<Case> chosen;
    for (Case& c : cases) {
      if (std::find(names.begin(), names.end(), c.name) != names.end()) {
        chosen.push_back(std::move(c));
      }
    }
    if (chosen.empty()) {
      std::fprintf(stderr, "no case named in --only %s\n", only.c_str());
      return 2;
    }
    cases = std::move(chosen);
  }
  const std::string root = FindSourceDir();
  int failures = 0;
  for (int threads : thread_counts) {
    std::string tf_why_not;
    std::map<std::string, double> tf;
    if (!with_tf) {
      tf_why_not = "skipped (--no-tf)";
    } else if (root.empty()) {
      tf_why_not =
          "skipped (no source tree found; set DFX_SOURCE_DIR, run "
          "tools/tf_env)";
    } else {
      tf = TimeTensorFlow(root, threads, min_time, only, &tf_why_not);
    }
    const double memcpy_s = TimeMemcpy(min_time);
    const double memcpy_gbs = 2.0 * 64 * kMiB / memcpy_s * 1e-9;
    std::printf(
        "\nkernels: intra-op threads %d, inter-op 1; fastest step of >= "
        "%.1f s\n",
        threads, min_time);
    std::printf("memcpy 64 MiB (1 read, 1 write): %.1f GB/s\n", memcpy_gbs);
    if (!tf_why_not.empty()) std::printf("TensorFlow: %s\n", tf_why_not.c_str());
    std::printf("%-38s %18s %18s %8s %10s\n", "case", "dfx", "TensorFlow",
                "dfx/TF", "vs memcpy");
    for (const Case& c : cases) {
      const std::string why = WhyNotRunnable(c);
      if (!why.empty()) {
        std::printf("%-38s skipped: %s\n", c.label.c_str(), why.c_str());
        continue;
      }
      absl::StatusOr<double> s = TimeDfx(c, threads, min_time);
      if (!s.ok()) {
        std::printf("%-38s failed: %s\n", c.label.c_str(),
                    s.status().ToString().c_str());
        ++failures;
        continue;
      }
      std::string tf_rate = "-";
      std::string ratio = "-";
      auto it = tf.find(c.name);
      if (it != tf.end()) {
        tf_rate = Rate(c, it->second);
        ratio = absl::StrFormat("%.2fx", it->second / *s);
      }
      std::string vs_memcpy = "";
      if (!c.is_flops) {
        vs_memcpy = absl::StrFormat(
            "%.2fx", (c.amount / *s * 1e-9) / memcpy_gbs);
      }
      std::printf("%-38s %18s %18s %8s %10s\n", c.label.c_str(),
                  Rate(c, *s).c_str(), tf_rate.c_str(), ratio.c_str(),
                  vs_memcpy.c_str());
      std::fflush(stdout);
    }
  }
  return failures == 0 ? 0 : 1;
}

}  // namespace dfx

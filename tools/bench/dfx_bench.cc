// dfx_bench: micro-benchmarks of the runtime.
//   dfx_bench executor [--nodes 10000] [--iters N] [--graph NAME]
// measures the executor's cost per node on a chain of scalar AddV2 nodes
// ("chain": one Const feeds every add; "tfchain": a Const per add, as a
// TensorFlow client builds x = x + 1.0) and on a fan-out/fan-in (one Const
// feeding N Identity nodes gathered by one AddN), with 1 and 2 inter-op
// threads, against a plain C++ loop doing the
// same number of scalar adds through virtual calls. Mode "run" is
// Executor::Run (roots start on the calling thread), "async" RunAsync.
//   dfx_bench rendezvous [--iters N]
//   dfx_bench session [--devices 1,4] [--steps N]
// measure the cost of partitioning (see tools/bench/partition_bench.h).
//   dfx_bench kernels [--threads 1,2] [--min-time S] [--no-tf]
// measures MatMul, Conv2D, Add and Sum against TensorFlow (see
// tools/bench/kernel_bench.h).
//   dfx_bench loop [--iters 10000] [--repeats 5] [--no-tf] [--trace F.json]
//                  [--devices 1|2]
// measures one while-loop iteration, in one partition and across devices and
// tasks, against TensorFlow (see tools/bench/loop_bench.h).
//   dfx_bench grpc [--steps N] [--sizes-mib 1,64,512] [--iters N]
//                  [--trace F.json]
// measures null steps and RecvTensor between processes against raw gRPC and
// raw TCP (see tools/bench/grpc_bench.h).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/logging.h"
#include "graph/graph.h"
#include "graph/ops/ops.h"
#include "kernels/kernels.h"
#include "runtime/device.h"
#include "runtime/executor.h"
#include "runtime/thread_pool.h"
#include "tools/bench/bench_util.h"
#include "tools/bench/gpu_bench.h"
#include "tools/bench/grpc_bench.h"
#include "tools/bench/kernel_bench.h"
#include "tools/bench/loop_bench.h"
#include "tools/bench/partition_bench.h"

namespace dfx {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

// Stand-ins for AddV2, AddN, Identity and Const (float scalars only), used
// when the standard kernels are not all there.
class BenchConstOp : public OpKernel {
 public:
  explicit BenchConstOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
    value_ = Tensor::Scalar<float>(1.0f);
  }
  void Compute(OpKernelContext* ctx) override { ctx->set_output(0, value_); }

 private:
  Tensor value_;
};
class BenchIdentityOp : public OpKernel {
 public:
  explicit BenchIdentityOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    ctx->set_output(0, ctx->input(0));
  }
};
class BenchAddOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    Tensor* out = nullptr;
    if (!ctx->allocate_output(0, TensorShape(), &out).ok()) return;
    out->scalar<float>() =
        ctx->input(0).scalar<float>() + ctx->input(1).scalar<float>();
  }
};
class BenchAddNOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    float sum = 0;
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      sum += ctx->input(i).scalar<float>();
    }
    ctx->set_output(0, Tensor::Scalar<float>(sum));
  }
};

struct Registries {
  const OpRegistry* ops;
  const KernelRegistry* kernels;
  const char* description;
};

NodeDef MakeDef(const std::string& name, const std::string& op) {
  NodeDef def;
  def.set_name(name);
  def.set_op(op);
  return def;
}
void SetType(NodeDef* def, const std::string& attr) {
  (*def->mutable_attr())[attr].set_type(DT_FLOAT);
}
NodeDef ConstDef(const std::string& name) {
  NodeDef def = MakeDef(name, "Const");
  SetType(&def, "dtype");
  TensorProto* value = (*def.mutable_attr())["value"].mutable_tensor();
  value->set_dtype(DT_FLOAT);
  value->mutable_tensor_shape();
  value->add_float_val(1.0f);
  return def;
}

bool StandardKernelsPresent() {
  const OpRegistry* ops = OpRegistry::Global();
  const KernelRegistry* kernels = StandardKernelRegistry();
  NodeDef add = MakeDef("a", "AddV2");
  SetType(&add, "T");
  NodeDef addn = MakeDef("n", "AddN");
  SetType(&addn, "T");
  (*addn.mutable_attr())["N"].set_i(2);
  NodeDef id = MakeDef("i", "Identity");
  SetType(&id, "T");
  NodeDef c = ConstDef("c");
  for (const NodeDef* def : {&add, &addn, &id, &c}) {
    if (ops->LookUp(def->op()) == nullptr ||
        !kernels->HasKernel(*def, "CPU")) {
      return false;
    }
  }
  return true;
}

Registries PickRegistries() {
  if (StandardKernelsPresent()) {
    return {OpRegistry::Global(), StandardKernelRegistry(),
            "standard kernels"};
  }
  auto* ops = new OpRegistry;
  DFX_CHECK_OK(RegisterFunctionOps(ops));
  DFX_CHECK_OK(ops->Register(OpDefBuilder("Const")
                                 .Output("output: dtype")
                                 .Attr("value: tensor")
                                 .Attr("dtype: type")));
  DFX_CHECK_OK(ops->Register(
      OpDefBuilder("Identity").Input("input: T").Output("output: T").Attr(
          "T: type")));
  DFX_CHECK_OK(ops->Register(OpDefBuilder("AddV2")
                                 .Input("x: T")
                                 .Input("y: T")
                                 .Output("z: T")
                                 .Attr("T: {float}")));
  DFX_CHECK_OK(ops->Register(OpDefBuilder("AddN")
                                 .Input("inputs: N * T")
                                 .Output("sum: T")
                                 .Attr("N: int >= 1")
                                 .Attr("T: {float}")));
  auto* kernels = new KernelRegistry;
  RegisterFunctionKernels(kernels);
  RegisterKernel<BenchConstOp>(kernels, KernelDefBuilder("Const"));
  RegisterKernel<BenchIdentityOp>(kernels, KernelDefBuilder("Identity"));
  RegisterKernel<BenchAddOp>(kernels, KernelDefBuilder("AddV2"));
  RegisterKernel<BenchAddNOp>(kernels, KernelDefBuilder("AddN"));
  return {ops, kernels, "bench stand-in kernels (standard ones missing)"};
}

Node* Add(Graph* g, NodeDef def) {
  auto node = g->AddNode(std::move(def));
  DFX_CHECK_OK(node.status());
  return *node;
}

Node* AddRetval(Graph* g, Node* src) {
  NodeDef def = MakeDef("_retval", "_Retval");
  SetType(&def, "T");
  (*def.mutable_attr())["index"].set_i(0);
  Node* ret = Add(g, std::move(def));
  g->AddEdge(src, 0, ret, 0);
  return ret;
}

// c -> a1 = AddV2(c, c) -> a2 = AddV2(a1, c) -> ... -> a_n; returns a_n.
// Value: n + 1.
std::unique_ptr<Graph> ChainGraph(const OpRegistry* ops, int n) {
  auto g = std::make_unique<Graph>(ops);
  Node* c = Add(g.get(), ConstDef("c"));
  Node* prev = c;
  for (int i = 1; i <= n - 2; ++i) {
    NodeDef def = MakeDef(absl::StrCat("a", i), "AddV2");
    SetType(&def, "T");
    Node* a = Add(g.get(), std::move(def));
    g->AddEdge(prev, 0, a, 0);
    g->AddEdge(c, 0, a, 1);
    prev = a;
  }
  AddRetval(g.get(), prev);
  return g;
}

// The chain as a TensorFlow client builds `x = x + 1.0` in a loop: every
// add reads a Const of its own. c0 -> a1 = AddV2(c0, c1) -> a2 = AddV2(a1,
// c2) -> ...: (n - 2) / 2 adds and as many Consts besides c0 and the
// _Retval. Value: (n - 2) / 2 + 1.
std::unique_ptr<Graph> TfChainGraph(const OpRegistry* ops, int n) {
  auto g = std::make_unique<Graph>(ops);
  Node* prev = Add(g.get(), ConstDef("c0"));
  for (int i = 1; i <= (n - 2) / 2; ++i) {
    Node* c = Add(g.get(), ConstDef(absl::StrCat("c", i)));
    NodeDef def = MakeDef(absl::StrCat("a", i), "AddV2");
    SetType(&def, "T");
    Node* a = Add(g.get(), std::move(def));
    g->AddEdge(prev, 0, a, 0);
    g->AddEdge(c, 0, a, 1);
    prev = a;
  }
  AddRetval(g.get(), prev);
  return g;
}

// c -> n-3 Identity nodes -> AddN; returns the sum (value n - 3).
std::unique_ptr<Graph> FanGraph(const OpRegistry* ops, int n) {
  auto g = std::make_unique<Graph>(ops);
  Node* c = Add(g.get(), ConstDef("c"));
  const int width = n - 3;
  NodeDef sum_def = MakeDef("sum", "AddN");
  SetType(&sum_def, "T");
  (*sum_def.mutable_attr())["N"].set_i(width);
  Node* sum = Add(g.get(), std::move(sum_def));
  for (int i = 0; i < width; ++i) {
    NodeDef def = MakeDef(absl::StrCat("i", i), "Identity");
    SetType(&def, "T");
    Node* id = Add(g.get(), std::move(def));
    g->AddEdge(c, 0, id, 0);
    g->AddEdge(id, 0, sum, i);
  }
  AddRetval(g.get(), sum);
  return g;
}

// The baseline: scalar adds through a virtual call, one object per "node".
struct Adder {
  virtual ~Adder() = default;
  virtual float Apply(float a, float b) const = 0;
};
struct PlainAdder : Adder {
  float Apply(float a, float b) const override { return a + b; }
};
struct TensorAdder {
  virtual ~TensorAdder() = default;
  virtual Tensor Apply(const Tensor& a, const Tensor& b) const {
    Tensor out(DT_FLOAT, TensorShape());
    out.scalar<float>() = a.scalar<float>() + b.scalar<float>();
    return out;
  }
};

double NaiveMicrosPerAdd(int n, int iters) {
  std::vector<std::unique_ptr<Adder>> adders;
  for (int i = 0; i < n; ++i) adders.push_back(std::make_unique<PlainAdder>());
  volatile float sink = 0;
  const auto start = Clock::now();
  for (int it = 0; it < iters; ++it) {
    float x = 0;
    for (const auto& a : adders) x = a->Apply(x, 1.0f);
    sink = sink + x;
  }
  return Seconds(Clock::now() - start) * 1e6 / (double(n) * iters);
}

double NaiveTensorMicrosPerAdd(int n, int iters) {
  std::vector<std::unique_ptr<TensorAdder>> adders;
  for (int i = 0; i < n; ++i) adders.push_back(std::make_unique<TensorAdder>());
  const Tensor one = Tensor::Scalar<float>(1.0f);
  volatile float sink = 0;
  const auto start = Clock::now();
  for (int it = 0; it < iters; ++it) {
    Tensor x = Tensor::Scalar<float>(0.0f);
    for (const auto& a : adders) x = a->Apply(x, one);
    sink = sink + x.scalar<float>();
  }
  return Seconds(Clock::now() - start) * 1e6 / (double(n) * iters);
}

struct Result {
  double micros_per_node;
  float value;
};

Result TimeExecutor(Executor* executor, int num_nodes, int threads, int iters,
                    bool async) {
  ThreadPool pool("bench_inter_op", threads);
  Executor::Args args;
  args.runner = [&pool](std::function<void()> fn) {
    pool.Schedule(std::move(fn));
  };
  float value = 0;
  auto step = [&] {
    SimpleCallFrame frame({}, 1);
    args.call_frame = &frame;
    absl::Status s;
    if (async) {
      absl::Mutex mu;
      bool done = false;
      executor->RunAsync(args, [&](absl::Status st) {
        absl::MutexLock lock(&mu);
        s = std::move(st);
        done = true;
      });
      mu.LockWhen(absl::Condition(&done));
      mu.Unlock();
    } else {
      s = executor->Run(args);
    }
    DFX_CHECK_OK(s);
    auto out = frame.ConsumeRetvals();
    DFX_CHECK_OK(out.status());
    value = (*out)[0].scalar<float>();
  };
  for (int i = 0; i < 3; ++i) step();
  const auto start = Clock::now();
  for (int i = 0; i < iters; ++i) step();
  const double secs = Seconds(Clock::now() - start);
  return {secs * 1e6 / (double(num_nodes) * iters), value};
}

// `only`: run just the graph of that name (all when empty).
int RunExecutorBench(int nodes, int iters, const std::string& only) {
  if (nodes < 4) {
    std::fprintf(stderr, "--nodes must be at least 4\n");
    return 2;
  }
  const Registries reg = PickRegistries();
  CpuDeviceOptions device_options;
  device_options.intra_op_threads = 1;
  auto devices = DeviceMgr::NewCpu(device_options);
  DFX_CHECK_OK(devices.status());
  Device* device = (*devices)->ListDevices()[0];

  // With --graph only that graph's steps run (so that an instruction count
  // of the whole program is the executor's): no baselines.
  const bool baselines = only.empty();
  const double naive = baselines ? NaiveMicrosPerAdd(nodes, iters * 10) : 0;
  const double naive_tensor =
      baselines ? NaiveTensorMicrosPerAdd(nodes, iters) : 0;
  std::printf("executor benchmark: %d nodes per graph, %d steps each, %s\n",
              nodes, iters, reg.description);
  if (baselines) {
    std::printf("naive loop, virtual scalar add:           %8.4f us/add\n",
                naive);
    std::printf("naive loop, virtual add + Tensor result:  %8.4f us/add\n",
                naive_tensor);
  }
  std::printf("%-8s %-6s %7s %10s %14s %10s %10s\n", "graph", "mode",
              "threads", "us/node", "minus naive+T", "x naive+T", "x naive");

  struct Case {
    const char* name;
    std::unique_ptr<Graph> (*make)(const OpRegistry*, int);
    float expected;
  };
  const Case cases[] = {
      {"chain", &ChainGraph, static_cast<float>(nodes - 1)},
      {"tfchain", &TfChainGraph, static_cast<float>((nodes - 2) / 2 + 1)},
      {"fan", &FanGraph, static_cast<float>(nodes - 3)},
  };
  for (const Case& c : cases) {
    if (!only.empty() && only != c.name) continue;
    std::unique_ptr<Graph> graph = c.make(reg.ops, nodes);
    const int graph_nodes = graph->num_nodes();
    auto executor = NewExecutor({device, reg.kernels}, std::move(graph));
    DFX_CHECK_OK(executor.status());
    for (bool async : {false, true}) {
      for (int threads : {1, 2}) {
        const Result r =
            TimeExecutor(executor->get(), graph_nodes, threads, iters, async);
        if (r.value != c.expected) {
          std::fprintf(stderr, "%s: wrong result %g, expected %g\n", c.name,
                       r.value, c.expected);
          return 1;
        }
        if (!baselines) {
          std::printf("%-8s %-6s %7d %10.4f\n", c.name,
                      async ? "async" : "run", threads, r.micros_per_node);
          continue;
        }
        std::printf("%-8s %-6s %7d %10.4f %14.4f %10.2f %10.1f\n", c.name,
                    async ? "async" : "run", threads, r.micros_per_node,
                    r.micros_per_node - naive_tensor,
                    r.micros_per_node / naive_tensor,
                    r.micros_per_node / naive);
      }
    }
  }
  std::printf("goal: < 1 us/node (stretch 0.3)\n");
  return 0;
}

int Usage() {
  std::fprintf(stderr,
               "usage: dfx_bench executor [--nodes 10000] [--iters N] "
               "[--graph chain|tfchain|fan]\n"
               "       dfx_bench rendezvous [--iters N]\n"
               "       dfx_bench session [--devices 1,4] [--steps N]\n"
               "       dfx_bench kernels [--threads 1,2] [--min-time S] "
               "[--no-tf]\n"
               "       dfx_bench loop [--iters 10000] [--repeats 5] "
               "[--no-tf] [--trace F.json] [--devices 1|2]\n"
               "       dfx_bench grpc [--steps N] [--sizes-mib 1,64,512] "
               "[--iters N] [--trace F.json]\n"
               "       dfx_bench collectives [--tasks 2,3] "
               "[--sizes-mib 1,64,256] [--iters N] [--mirrored-steps 20]\n"
               "                             [--no-bulk-local]\n"
               "       dfx_bench eager [--iters 100] [--repeats 5]\n"
               "       dfx_bench gpu [--sizes 4096,8192] [--iters N]\n");
  return 2;
}

// TensorFlow 2 clients against dfx's servers and TensorFlow's, side by
// side: remote eager round trips (tools/bench/eager_vs_tf.py) and
// ClusterCoordinator closure round trips (tools/bench/coordinator_vs_tf.py),
// through the virtualenv tools/tf_env made; skipped without it.
int RunEagerBench(int argc, char** argv) {
  int iters = 100;
  int repeats = 5;
  for (int i = 0; i < argc; ++i) {
    const std::string flag = argv[i];
    if ((flag == "--iters" || flag == "--repeats") && i + 1 < argc) {
      const int v = std::atoi(argv[++i]);
      if (v <= 0) return Usage();
      (flag == "--iters" ? iters : repeats) = v;
    } else {
      return Usage();
    }
  }
  const std::string root = FindSourceDir();
  const std::string python = root.empty() ? "" : TensorFlowPython(root);
  if (python.empty()) {
    std::printf(
        "eager bench: skipped (no TensorFlow venv; run tools/tf_env)\n");
    return 0;
  }
  const std::string bin = BinaryDir();
  if (bin.empty()) return 1;
  int failed = 0;
  for (const char* script : {"eager_vs_tf.py", "coordinator_vs_tf.py"}) {
    std::printf("# tools/bench/%s\n", script);
    std::fflush(stdout);
    int status = 0;
    const std::string out = RunCommand(
        absl::StrCat("'", python, "' '", root, "/tools/bench/", script,
                     "' --dfx '", bin, "/dfx' --iters ", iters,
                     " --repeats ", repeats, " 2>&1 | grep -v -E "
                     "'^(WARNING|W0000|I0000|E0000)'"),
        &status);
    std::printf("%s\n", out.c_str());
    failed |= status != 0;
  }
  return failed ? 1 : 0;
}

}  // namespace
}  // namespace dfx

int main(int argc, char** argv) {
  if (argc >= 2 && std::strcmp(argv[1], "rendezvous") == 0) {
    return dfx::RunRendezvousBench(argc - 2, argv + 2);
  }
  if (argc >= 2 && std::strcmp(argv[1], "grpc") == 0) {
    return dfx::RunGrpcBench(argc - 2, argv + 2);
  }
  if (argc >= 2 && std::strcmp(argv[1], "collectives") == 0) {
    return dfx::RunCollectivesBench(argc - 2, argv + 2);
  }
  if (argc >= 2 && std::strcmp(argv[1], "echo-server") == 0) {
    return dfx::RunEchoServer(argc - 2, argv + 2);
  }
  if (argc >= 2 && std::strcmp(argv[1], "kernels") == 0) {
    return dfx::RunKernelBench(argc - 2, argv + 2);
  }
  if (argc >= 2 && std::strcmp(argv[1], "gpu") == 0) {
    return dfx::RunGpuBench(argc - 2, argv + 2);
  }
  if (argc >= 2 && std::strcmp(argv[1], "loop") == 0) {
    return dfx::RunLoopBench(argc - 2, argv + 2);
  }
  if (argc >= 2 && std::strcmp(argv[1], "eager") == 0) {
    return dfx::RunEagerBench(argc - 2, argv + 2);
  }
  if (argc >= 2 && std::strcmp(argv[1], "session") == 0) {
    return dfx::RunSessionBench(argc - 2, argv + 2);
  }
  if (argc < 2 || std::strcmp(argv[1], "executor") != 0) return dfx::Usage();
  int nodes = 10000;
  int iters = 200;
  std::string only;
  for (int i = 2; i < argc; ++i) {
    const std::string flag = argv[i];
    if ((flag == "--nodes" || flag == "--iters") && i + 1 < argc) {
      const int v = std::atoi(argv[++i]);
      if (v <= 0) return dfx::Usage();
      (flag == "--nodes" ? nodes : iters) = v;
    } else if (flag == "--graph" && i + 1 < argc) {
      only = argv[++i];
      if (only != "chain" && only != "tfchain" && only != "fan") {
        return dfx::Usage();
      }
    } else {
      return dfx::Usage();
    }
  }
  return dfx::RunExecutorBench(nodes, iters, only);
}

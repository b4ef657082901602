// Tests of runtime/executor.h against tiny test ops registered in local
// registries, so they depend on no other kernel library.
#include "runtime/executor.h"

#include <atomic>
#include <chrono>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "catch2/catch.hpp"
#include "google/protobuf/text_format.h"
#include "graph/node_def_util.h"
#include "graph/ops/ops.h"
#include "kernels/kernels.h"
#include "runtime/allocator.h"
#include "runtime/cancellation.h"
#include "runtime/step_stats_collector.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using ::dfx::testing::StatusIs;

constexpr auto kWait = std::chrono::seconds(60);

// What TestRecord nodes append to, in execution order.
struct Log {
  absl::Mutex mu;
  std::vector<std::string> names;
  std::vector<std::string> Get() {
    absl::MutexLock lock(&mu);
    return names;
  }
};
Log* TheLog() {
  static Log* log = new Log;
  return log;
}

// Completion thread for TestDelay, and a notification TestBlockUntilCancelled
// fires when it starts.
ThreadPool* AsyncPool() {
  static ThreadPool* pool = new ThreadPool("test_async", 2);
  return pool;
}
std::atomic<absl::Notification*> g_blocked_started{nullptr};

class TestConstOp : public OpKernel {
 public:
  explicit TestConstOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
    ctx->SetStatus(ctx->GetAttr("value", &value_));
  }
  void Compute(OpKernelContext* ctx) override {
    ctx->set_output(0, Tensor::Scalar<float>(value_));
  }

 private:
  float value_ = 0;
};

class TestAddOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    ctx->set_output(0, Tensor::Scalar<float>(ctx->input(0).scalar<float>() +
                                             ctx->input(1).scalar<float>()));
  }
};

// Adds one on a thread of AsyncPool.
class TestDelayOp : public AsyncOpKernel {
 public:
  using AsyncOpKernel::AsyncOpKernel;
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    AsyncPool()->Schedule([ctx, done = std::move(done)] {
      ctx->set_output(0,
                      Tensor::Scalar<float>(ctx->input(0).scalar<float>() + 1));
      done();
    });
  }
};

// Adds one and calls `done` before ComputeAsync returns.
class TestAddOneNowOp : public AsyncOpKernel {
 public:
  using AsyncOpKernel::AsyncOpKernel;
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    ctx->set_output(0,
                    Tensor::Scalar<float>(ctx->input(0).scalar<float>() + 1));
    done();
  }
};

class TestFailOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    ctx->SetStatus(absl::InvalidArgumentError("boom"));
  }
};

class TestBlockUntilCancelledOp : public AsyncOpKernel {
 public:
  using AsyncOpKernel::AsyncOpKernel;
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    CancellationManager* cm = ctx->cancellation_manager();
    DFX_OP_REQUIRES_ASYNC(ctx, cm != nullptr,
                          absl::InternalError("no cancellation manager"),
                          done);
    const CancellationToken token = cm->get_cancellation_token();
    auto finish = [ctx, done] {
      ctx->SetStatus(absl::CancelledError("blocked kernel cancelled"));
      done();
    };
    const bool registered = cm->RegisterCallback(token, finish);
    if (absl::Notification* n = g_blocked_started.load()) n->Notify();
    if (!registered) finish();
  }
};

class TestRecordOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    {
      absl::MutexLock lock(&TheLog()->mu);
      TheLog()->names.push_back(name());
    }
    ctx->set_output(0, Tensor::Scalar<float>(0));
  }
};

// The sum of its inputs, added in input order; records the largest
// buffer reference count among them.
std::atomic<long> g_sum_max_refs{0};
class TestSumOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    float sum = 0;
    long refs = 0;
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      sum += ctx->input(i).scalar<float>();
      refs = std::max(refs, ctx->input(i).BufferRefCount());
    }
    g_sum_max_refs.store(refs);
    ctx->set_output(0, Tensor::Scalar<float>(sum));
  }
};

class TestWrongTypeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    *ctx->mutable_output(0) = Tensor::Scalar<int32_t>(7);
  }
};

class TestDeadOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override { ctx->set_is_output_dead(true); }
};

// Passes its input on; says it is cheap.
class TestPassOp : public OpKernel {
 public:
  explicit TestPassOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    ctx->set_output(0, ctx->input(0));
  }
};

// Busy for 10 µs, then passes its input on: a kernel too dear to be
// learned cheap (2 µs) that still runs short (under 100 µs).
class TestSpinOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const auto until =
        std::chrono::steady_clock::now() + std::chrono::microseconds(10);
    while (std::chrono::steady_clock::now() < until) {
    }
    ctx->set_output(0, ctx->input(0));
  }
};

const OpRegistry* TestOps() {
  static OpRegistry* ops = [] {
    auto* r = new OpRegistry;
    DFX_CHECK_OK(RegisterFunctionOps(r));
    DFX_CHECK_OK(r->Register(
        OpDefBuilder("TestConst").Output("y: float").Attr("value: float")));
    DFX_CHECK_OK(r->Register(OpDefBuilder("TestAdd")
                                 .Input("a: float")
                                 .Input("b: float")
                                 .Output("y: float")));
    for (const char* op :
         {"TestDelay", "TestAddOneNow", "TestFail", "TestBlockUntilCancelled",
          "TestSpin", "TestPass"}) {
      DFX_CHECK_OK(r->Register(
          OpDefBuilder(op).Input("x: float").Output("y: float")));
    }
    for (const char* op : {"TestRecord", "TestSum"}) {
      DFX_CHECK_OK(r->Register(OpDefBuilder(op)
                                   .Input("x: N * float")
                                   .Attr("N: int >= 0 = 0")
                                   .Output("y: float")));
    }
    DFX_CHECK_OK(
        r->Register(OpDefBuilder("TestWrongType").Output("y: float")));
    DFX_CHECK_OK(r->Register(OpDefBuilder("TestDead").Output("y: float")));
    DFX_CHECK_OK(r->Register(OpDefBuilder("TestNoKernel").Output("y: float")));
    return r;
  }();
  return ops;
}

const KernelRegistry* TestKernels() {
  static KernelRegistry* kernels = [] {
    auto* r = new KernelRegistry;
    RegisterFunctionKernels(r);
    RegisterKernel<TestConstOp>(r, KernelDefBuilder("TestConst"));
    RegisterKernel<TestAddOp>(r, KernelDefBuilder("TestAdd"));
    RegisterKernel<TestDelayOp>(r, KernelDefBuilder("TestDelay"));
    RegisterKernel<TestAddOneNowOp>(r, KernelDefBuilder("TestAddOneNow"));
    RegisterKernel<TestFailOp>(r, KernelDefBuilder("TestFail"));
    RegisterKernel<TestBlockUntilCancelledOp>(
        r, KernelDefBuilder("TestBlockUntilCancelled"));
    RegisterKernel<TestRecordOp>(r, KernelDefBuilder("TestRecord"));
    RegisterKernel<TestSumOp>(r, KernelDefBuilder("TestSum"));
    RegisterKernel<TestSpinOp>(r, KernelDefBuilder("TestSpin"));
    RegisterKernel<TestPassOp>(r, KernelDefBuilder("TestPass"));
    RegisterKernel<TestWrongTypeOp>(r, KernelDefBuilder("TestWrongType"));
    RegisterKernel<TestDeadOp>(r, KernelDefBuilder("TestDead"));
    return r;
  }();
  return kernels;
}

Device* TestDevice() {
  static DeviceMgr* mgr = [] {
    CpuDeviceOptions options;
    options.intra_op_threads = 1;
    return DeviceMgr::NewCpu(options).value().release();
  }();
  return mgr->ListDevices()[0];
}

ThreadPool* InterOpPool() {
  static ThreadPool* pool = new ThreadPool("test_inter_op", 4);
  return pool;
}

Executor::Runner PoolRunner() {
  return [](std::function<void()> fn) {
    InterOpPool()->Schedule(std::move(fn));
  };
}

// Builds a Graph from GraphDef text with the test ops: nodes, then data and
// control edges from each node's inputs (the executor's tests do not rely on
// the GraphDef importer).
std::unique_ptr<const Graph> MakeGraph(const std::string& text) {
  GraphDef def;
  DFX_CHECK(google::protobuf::TextFormat::ParseFromString(text, &def));
  auto graph = std::make_unique<Graph>(TestOps());
  for (const NodeDef& n : def.node()) DFX_CHECK_OK(graph->AddNode(n).status());
  for (const NodeDef& n : def.node()) {
    Node* dst = graph->FindNode(n.name());
    int data = 0;
    for (const std::string& input : n.input()) {
      ParsedInput parsed;
      DFX_CHECK_OK(ParseNodeInput(input, &parsed));
      Node* src = graph->FindNode(parsed.node);
      DFX_CHECK(src != nullptr);
      if (parsed.IsControl()) {
        graph->AddControlEdge(src, dst);
      } else {
        graph->AddEdge(src, parsed.index, dst, data++);
      }
    }
  }
  return graph;
}

std::unique_ptr<Executor> MakeExecutor(const std::string& text) {
  auto executor = NewExecutor({TestDevice(), TestKernels()}, MakeGraph(text));
  DFX_CHECK_OK(executor.status());
  return std::move(executor).value();
}

std::string Const(const std::string& name, float v) {
  return absl::StrCat("node { name: '", name,
                      "' op: 'TestConst' attr { key: 'value' value { f: ", v,
                      " } } }\n");
}
std::string Op(const std::string& name, const std::string& op,
               std::vector<std::string> inputs) {
  std::string s = absl::StrCat("node { name: '", name, "' op: '", op, "'");
  for (const auto& in : inputs) absl::StrAppend(&s, " input: '", in, "'");
  return s + " }\n";
}
std::string Record(const std::string& name, std::vector<std::string> inputs) {
  std::string s = absl::StrCat("node { name: '", name, "' op: 'TestRecord'");
  int n = 0;
  for (const auto& in : inputs) {
    absl::StrAppend(&s, " input: '", in, "'");
    if (in[0] != '^') ++n;
  }
  return absl::StrCat(s, " attr { key: 'N' value { i: ", n, " } } }\n");
}
std::string Sum(const std::string& name, std::vector<std::string> inputs) {
  std::string s = Record(name, std::move(inputs));
  return s.replace(s.find("TestRecord"), 10, "TestSum");
}
std::string Retval(const std::string& name, const std::string& input,
                   int index) {
  return absl::StrCat("node { name: '", name, "' op: '_Retval' input: '",
                      input, "' attr { key: 'T' value { type: DT_FLOAT } }",
                      " attr { key: 'index' value { i: ", index, " } } }\n");
}
std::string Arg(const std::string& name, int index) {
  return absl::StrCat("node { name: '", name,
                      "' op: '_Arg' attr { key: 'T' value { type: DT_FLOAT } }",
                      " attr { key: 'index' value { i: ", index, " } } }\n");
}

// Runs a step through RunAsync and waits (bounded) for it.
absl::Status RunAndWait(Executor* executor, Executor::Args args) {
  auto promise = std::make_shared<std::promise<absl::Status>>();
  auto future = promise->get_future();
  executor->RunAsync(args, [promise](absl::Status s) {
    promise->set_value(std::move(s));
  });
  REQUIRE(future.wait_for(kWait) == std::future_status::ready);
  return future.get();
}

float Scalar(const Tensor& t) { return t.scalar<float>(); }

TEST_CASE("a chain of adds computes its value, inline and on a pool") {
  // x_{i+1} = x_i + x_i, x_0 = 1: x_20 = 2^20.
  std::string text = Const("c", 1);
  std::string prev = "c";
  for (int i = 1; i <= 20; ++i) {
    const std::string name = absl::StrCat("a", i);
    text += Op(name, "TestAdd", {prev, prev});
    prev = name;
  }
  text += Retval("ret", prev, 0);
  auto executor = MakeExecutor(text);
  for (bool use_pool : {false, true}) {
    SimpleCallFrame frame({}, 1);
    Executor::Args args;
    args.call_frame = &frame;
    if (use_pool) args.runner = PoolRunner();
    REQUIRE_OK(executor->Run(args));
    auto out = frame.ConsumeRetvals();
    REQUIRE_OK(out);
    CHECK(Scalar((*out)[0]) == 1048576.0f);
  }
}

TEST_CASE("kernels run with denormals flushed to zero, as in TensorFlow") {
  // 1e-39 is a denormal float: read as zero, so the sum is zero on every
  // thread the executor may use (TensorFlow's ScopedFlushDenormal).
  auto executor = MakeExecutor(Arg("x", 0) + Op("s", "TestAdd", {"x", "x"}) +
                               Retval("r", "s", 0));
  for (bool use_pool : {false, true}) {
    SimpleCallFrame frame({Tensor::Scalar<float>(1e-39f)}, 1);
    Executor::Args args;
    args.call_frame = &frame;
    if (use_pool) args.runner = PoolRunner();
    REQUIRE_OK(RunAndWait(executor.get(), args));
    auto out = frame.ConsumeRetvals();
    REQUIRE_OK(out);
    CHECK(Scalar((*out)[0]) == 0.0f);
  }
  // The caller's own mode is left as it was.
  volatile float tiny = 1e-39f;
  CHECK(tiny + tiny != 0.0f);
}

TEST_CASE("_Arg feeds and several _Retvals come back by index") {
  auto executor =
      MakeExecutor(Arg("x", 0) + Arg("y", 1) + Op("s", "TestAdd", {"x", "y"}) +
                   Op("d", "TestAdd", {"s", "s"}) + Retval("r0", "d", 0) +
                   Retval("r1", "x", 1));
  SimpleCallFrame frame({Tensor::Scalar<float>(3), Tensor::Scalar<float>(4)},
                        2);
  Executor::Args args;
  args.call_frame = &frame;
  args.runner = PoolRunner();
  REQUIRE_OK(RunAndWait(executor.get(), args));
  auto out = frame.ConsumeRetvals();
  REQUIRE_OK(out);
  CHECK(Scalar((*out)[0]) == 14.0f);
  CHECK(Scalar((*out)[1]) == 3.0f);
}

TEST_CASE("an _Arg of the wrong dtype fails naming the node") {
  auto executor = MakeExecutor(Arg("x", 0) + Retval("r", "x", 0));
  SimpleCallFrame frame({Tensor::Scalar<int32_t>(3)}, 1);
  Executor::Args args;
  args.call_frame = &frame;
  CHECK_THAT(executor->Run(args),
             StatusIs(absl::StatusCode::kInvalidArgument, "node 'x' (op _Arg)"));
}

TEST_CASE("control edges order nodes that share no data") {
  // r0 <- ^r1 <- ^r2 ... : r49 runs first, r0 last. Each also has a
  // data-independent sibling so the pool has other work.
  std::string text;
  for (int i = 49; i >= 0; --i) {
    if (i == 49) {
      text += Record("r49", {});
    } else {
      text += Record(absl::StrCat("r", i), {absl::StrCat("^r", i + 1)});
    }
  }
  auto executor = MakeExecutor(text);
  {
    absl::MutexLock lock(&TheLog()->mu);
    TheLog()->names.clear();
  }
  Executor::Args args;
  args.runner = PoolRunner();
  REQUIRE_OK(RunAndWait(executor.get(), args));
  std::vector<std::string> want;
  for (int i = 49; i >= 0; --i) want.push_back(absl::StrCat("r", i));
  CHECK(TheLog()->Get() == want);
}

TEST_CASE("a node waits for all its data and control inputs") {
  // join runs after a and b (data) and after c (control only).
  auto executor = MakeExecutor(Record("a", {}) + Record("b", {}) +
                               Record("c", {}) +
                               Record("join", {"a", "b", "^c"}));
  {
    absl::MutexLock lock(&TheLog()->mu);
    TheLog()->names.clear();
  }
  Executor::Args args;
  args.runner = PoolRunner();
  REQUIRE_OK(RunAndWait(executor.get(), args));
  auto log = TheLog()->Get();
  REQUIRE(log.size() == 4);
  CHECK(log.back() == "join");
}

TEST_CASE("many independent branches and many concurrent steps") {
  // 64 branches: b_i = delay(x + c_i) = x + i + 1, all summed by a tree.
  constexpr int kBranches = 64;
  std::string text = Arg("x", 0);
  std::vector<std::string> level;
  for (int i = 0; i < kBranches; ++i) {
    text += Const(absl::StrCat("c", i), static_cast<float>(i));
    text += Op(absl::StrCat("s", i), "TestAdd", {"x", absl::StrCat("c", i)});
    text += Op(absl::StrCat("b", i), "TestDelay", {absl::StrCat("s", i)});
    level.push_back(absl::StrCat("b", i));
  }
  int counter = 0;
  while (level.size() > 1) {
    std::vector<std::string> next;
    for (size_t i = 0; i + 1 < level.size(); i += 2) {
      const std::string name = absl::StrCat("sum", counter++);
      text += Op(name, "TestAdd", {level[i], level[i + 1]});
      next.push_back(name);
    }
    level = next;
  }
  text += Retval("r", level[0], 0);
  auto executor = MakeExecutor(text);

  constexpr int kSteps = 50;
  std::vector<std::unique_ptr<SimpleCallFrame>> frames;
  std::vector<std::future<absl::Status>> results;
  for (int s = 0; s < kSteps; ++s) {
    frames.push_back(std::make_unique<SimpleCallFrame>(
        std::vector<Tensor>{Tensor::Scalar<float>(static_cast<float>(s))}, 1));
    auto promise = std::make_shared<std::promise<absl::Status>>();
    results.push_back(promise->get_future());
    Executor::Args args;
    args.step_id = s;
    args.call_frame = frames.back().get();
    args.runner = PoolRunner();
    executor->RunAsync(args, [promise](absl::Status st) {
      promise->set_value(std::move(st));
    });
  }
  for (int s = 0; s < kSteps; ++s) {
    REQUIRE(results[s].wait_for(kWait) == std::future_status::ready);
    REQUIRE_OK(results[s].get());
    auto out = frames[s]->ConsumeRetvals();
    REQUIRE_OK(out);
    // sum over i of (s + i + 1) = 64 s + 64*65/2.
    CHECK(Scalar((*out)[0]) == static_cast<float>(kBranches * s + 2080));
  }
}

TEST_CASE("RunAsync hands a graph's cheap roots to the runner together") {
  // 1000 Consts (cheap roots, as in a TensorFlow-built graph with a Const
  // per op) gathered by one node: the runner gets one closure for all the
  // roots, and the sink runs inline after the last of them.
  constexpr int kRoots = 1000;
  std::string text;
  std::vector<std::string> inputs;
  for (int i = 0; i < kRoots; ++i) {
    text += Const(absl::StrCat("c", i), 1);
    inputs.push_back(absl::StrCat("c", i));
  }
  text += Record("sink", inputs);
  text += Retval("ret", "sink", 0);
  auto executor = MakeExecutor(text);
  for (int step = 0; step < 3; ++step) {
    std::atomic<int> closures{0};
    SimpleCallFrame frame({}, 1);
    Executor::Args args;
    args.call_frame = &frame;
    args.runner = [&closures](std::function<void()> fn) {
      ++closures;
      InterOpPool()->Schedule(std::move(fn));
    };
    REQUIRE_OK(RunAndWait(executor.get(), args));
    auto out = frame.ConsumeRetvals();
    REQUIRE_OK(out);
    CHECK(Scalar((*out)[0]) == 0.0f);
    CHECK(closures.load() == 1);
  }
}

// Args whose runner counts its closures (and runs them on the inter-op
// pool), with run_roots_inline as asked.
Executor::Args CountingArgs(SimpleCallFrame* frame, std::atomic<int>* closures,
                            bool run_roots_inline) {
  Executor::Args args;
  args.call_frame = frame;
  args.runner = [closures](std::function<void()> fn) {
    ++*closures;
    InterOpPool()->Schedule(std::move(fn));
  };
  args.run_roots_inline = run_roots_inline;
  return args;
}
Executor::Args InlineRootsArgs(SimpleCallFrame* frame,
                               std::atomic<int>* closures) {
  return CountingArgs(frame, closures, /*run_roots_inline=*/true);
}

TEST_CASE("RunAsync with run_roots_inline runs a cheap graph on the caller's "
          "thread, finishing before it returns") {
  // What the master's step thread (or a worker service's gRPC thread) asks
  // of a partition: no closure for the runner, and `done` already called
  // when RunAsync returns.
  std::string text = Const("a", 1) + Const("b", 2);
  text += Retval("ret", "b", 0);
  auto executor = MakeExecutor(text);
  for (int step = 0; step < 3; ++step) {
    std::atomic<int> closures{0};
    SimpleCallFrame frame({}, 1);
    const Executor::Args args = InlineRootsArgs(&frame, &closures);
    bool done = false;
    absl::Status status = absl::UnknownError("not done");
    const std::thread::id caller = std::this_thread::get_id();
    std::thread::id done_on;
    executor->RunAsync(args, [&](absl::Status s) {
      status = std::move(s);
      done_on = std::this_thread::get_id();
      done = true;
    });
    REQUIRE(done);
    REQUIRE_OK(status);
    CHECK(done_on == caller);
    CHECK(closures.load() == 0);
    auto out = frame.ConsumeRetvals();
    REQUIRE_OK(out);
    CHECK(Scalar((*out)[0]) == 2.0f);
  }
}

TEST_CASE("RunAsync with run_roots_inline hands an expensive node to the "
          "runner, even with nothing else to run") {
  // The caller may be an RPC thread: a kernel not yet found cheap (every
  // kernel that says it may be expensive, at first) never holds it up.
  std::string text = Const("a", 1) + Const("b", 2);
  text += Record("sink", {"a", "b"});
  text += Retval("ret", "sink", 0);
  auto executor = MakeExecutor(text);
  std::atomic<int> closures{0};
  SimpleCallFrame frame({}, 1);
  REQUIRE_OK(
      RunAndWait(executor.get(), InlineRootsArgs(&frame, &closures)));
  CHECK(closures.load() == 1);
  auto out = frame.ConsumeRetvals();
  REQUIRE_OK(out);
}

TEST_CASE("RunAsync with run_roots_inline runs a last expensive node on the "
          "caller's thread once it is known to run short") {
  // A kernel that says it may be expensive and is too dear to be learned
  // cheap but keeps finishing well under 100 µs (an AddN of a few thousand
  // scalars; here a 10 µs spin) is learned and then run inline as the
  // last thing left: no pool wake-up for it.
  std::string text = Const("a", 1) + Op("spin", "TestSpin", {"a"});
  text += Retval("ret", "spin", 0);
  auto executor = MakeExecutor(text);
  bool ran_inline = false;
  // Bounded: a loaded machine may take long runs now and then, each of
  // which starts the learning again.
  for (int step = 0; step < 500 && !ran_inline; ++step) {
    std::atomic<int> closures{0};
    SimpleCallFrame frame({}, 1);
    REQUIRE_OK(
        RunAndWait(executor.get(), InlineRootsArgs(&frame, &closures)));
    ran_inline = closures.load() == 0;
    REQUIRE_OK(frame.ConsumeRetvals());
  }
  CHECK(ran_inline);
}

TEST_CASE("the cheap nodes an async kernel makes ready run on the thread "
          "that completed it") {
  // A _Recv answered by an RPC thread: its cheap consumers run there
  // rather than waking a pool thread.
  std::string text = Arg("x", 0) + Op("d", "TestDelay", {"x"});
  text += Op("id", "TestPass", {"d"});
  text += Retval("r", "id", 0);
  auto executor = MakeExecutor(text);
  for (int step = 0; step < 3; ++step) {
    std::atomic<int> closures{0};
    SimpleCallFrame frame({Tensor::Scalar<float>(5)}, 1);
    REQUIRE_OK(RunAndWait(executor.get(),
                          CountingArgs(&frame, &closures, false)));
    // The one closure: the root (_Arg, started through the runner).
    CHECK(closures.load() == 1);
    auto out = frame.ConsumeRetvals();
    REQUIRE_OK(out);
    CHECK(Scalar((*out)[0]) == 6.0f);
  }
}

TEST_CASE("async kernels complete on another thread") {
  std::string text = Arg("x", 0);
  std::string prev = "x";
  for (int i = 0; i < 10; ++i) {
    const std::string name = absl::StrCat("d", i);
    text += Op(name, "TestDelay", {prev});
    prev = name;
  }
  text += Retval("r", prev, 0);
  auto executor = MakeExecutor(text);
  for (bool use_pool : {false, true}) {
    SimpleCallFrame frame({Tensor::Scalar<float>(5)}, 1);
    Executor::Args args;
    args.call_frame = &frame;
    if (use_pool) args.runner = PoolRunner();
    REQUIRE_OK(RunAndWait(executor.get(), args));
    auto out = frame.ConsumeRetvals();
    REQUIRE_OK(out);
    CHECK(Scalar((*out)[0]) == 15.0f);
  }
}

// The step's done callback may free the executor (a worker's graph
// deregistered while its step ran). When the last node is an async kernel
// that completes before ComputeAsync returns, the executor is gone by then:
// nothing of it may be read afterwards (ASan found the node's item read).
TEST_CASE("an executor freed by its step's done callback, from inside an "
          "async kernel, is not touched again") {
  for (bool use_pool : {false, true}) {
    auto executor =
        MakeExecutor(Arg("x", 0) + Op("n", "TestAddOneNow", {"x"}) +
                     Retval("r", "n", 0));
    SimpleCallFrame frame({Tensor::Scalar<float>(5)}, 1);
    Executor::Args args;
    args.call_frame = &frame;
    if (use_pool) args.runner = PoolRunner();
    auto promise = std::make_shared<std::promise<absl::Status>>();
    auto future = promise->get_future();
    Executor* raw = executor.release();
    raw->RunAsync(args, [raw, promise](absl::Status s) {
      delete raw;
      promise->set_value(std::move(s));
    });
    REQUIRE(future.wait_for(kWait) == std::future_status::ready);
    REQUIRE_OK(future.get());
    auto out = frame.ConsumeRetvals();
    REQUIRE_OK(out);
    CHECK(Scalar((*out)[0]) == 6.0f);
  }
}

TEST_CASE("the first error ends the step, naming the node, later nodes do "
          "not run") {
  auto executor = MakeExecutor(Record("before", {}) +
                               Op("fail", "TestFail", {"before"}) +
                               Record("after", {"fail"}) +
                               Record("after2", {"after"}));
  {
    absl::MutexLock lock(&TheLog()->mu);
    TheLog()->names.clear();
  }
  CancellationManager cm;
  Executor::Args args;
  args.runner = PoolRunner();
  args.cancellation_manager = &cm;
  CHECK_THAT(RunAndWait(executor.get(), args),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "node 'fail' (op TestFail): boom"));
  CHECK(TheLog()->Get() == std::vector<std::string>{"before"});
}

TEST_CASE("a node fed many times by one output runs once, after all its "
          "inputs, step after step") {
  // 1,000 edges from c to `many` in a row (one pending-count decrement),
  // then one from a delayed node, then c once more.
  std::vector<std::string> inputs(1000, "c");
  inputs.push_back("late");
  inputs.push_back("c");
  auto executor =
      MakeExecutor(Const("c", 1) + Op("late", "TestDelay", {"c"}) +
                   Record("many", inputs) + Record("after", {"many"}));
  for (int step = 0; step < 3; ++step) {
    INFO("step " << step);
    {
      absl::MutexLock lock(&TheLog()->mu);
      TheLog()->names.clear();
    }
    Executor::Args args;
    args.runner = PoolRunner();
    REQUIRE_OK(RunAndWait(executor.get(), args));
    CHECK(TheLog()->Get() == std::vector<std::string>{"many", "after"});
  }
}

TEST_CASE("inputs fed by one output share one slot: the kernel sees every "
          "input, the tensor is held once") {
  // c 500 times, then the delayed c + 1, d, c three times more, d again.
  std::vector<std::string> inputs(500, "c");
  for (const char* in : {"late", "d", "c", "c", "c", "d"}) inputs.push_back(in);
  auto executor = MakeExecutor(Const("c", 1.5f) + Const("d", 0.25f) +
                               Op("late", "TestDelay", {"c"}) +
                               Sum("sum", inputs) + Retval("r", "sum", 0));
  float want = 0;
  for (const std::string& in : inputs) {
    want += in == "c" ? 1.5f : in == "d" ? 0.25f : 2.5f;
  }
  for (int step = 0; step < 3; ++step) {
    INFO("step " << step);
    SimpleCallFrame frame({}, 1);
    Executor::Args args;
    args.call_frame = &frame;
    args.runner = PoolRunner();
    REQUIRE_OK(RunAndWait(executor.get(), args));
    auto out = frame.ConsumeRetvals();
    REQUIRE_OK(out.status());
    REQUIRE((*out)[0].scalar<float>() == want);
    // One slot holds c for its 503 inputs (and nothing else does by now).
    CHECK(g_sum_max_refs.load() < 5);
  }
}

TEST_CASE("a failed step's unconsumed inputs are released, not kept for the "
          "next step") {
  // `join` never runs: x stays in its input slot when the step ends.
  auto executor = MakeExecutor(Arg("x", 0) + Const("c", 1) +
                               Op("fail", "TestFail", {"c"}) +
                               Op("join", "TestAdd", {"x", "fail"}) +
                               Retval("r", "join", 0));
  auto x = Tensor::Allocate(CpuAllocator(), DT_FLOAT, TensorShape({}));
  REQUIRE_OK(x.status());
  for (int step = 0; step < 2; ++step) {
    INFO("step " << step);
    {
      SimpleCallFrame frame({*x}, 1);
      Executor::Args args;
      args.call_frame = &frame;
      args.runner = PoolRunner();
      CHECK_THAT(RunAndWait(executor.get(), args),
                 StatusIs(absl::StatusCode::kInvalidArgument,
                          "node 'fail' (op TestFail): boom"));
    }
    CHECK(x->BufferRefCount() == 1);
  }
}

TEST_CASE("an error cancels a branch blocked in an async kernel") {
  auto executor = MakeExecutor(
      Const("c", 1) + Op("block", "TestBlockUntilCancelled", {"c"}) +
      Op("fail", "TestFail", {"c"}) + Op("join", "TestAdd", {"block", "fail"}));
  CancellationManager cm;
  Executor::Args args;
  args.runner = PoolRunner();
  args.cancellation_manager = &cm;
  CHECK_THAT(RunAndWait(executor.get(), args),
             StatusIs(absl::StatusCode::kInvalidArgument, "node 'fail'"));
}

TEST_CASE("StartCancel ends a step blocked in an async kernel") {
  auto executor = MakeExecutor(Const("c", 1) +
                               Op("block", "TestBlockUntilCancelled", {"c"}) +
                               Record("after", {"block"}));
  {
    absl::MutexLock lock(&TheLog()->mu);
    TheLog()->names.clear();
  }
  absl::Notification started;
  g_blocked_started.store(&started);
  CancellationManager cm;
  Executor::Args args;
  args.runner = PoolRunner();
  args.cancellation_manager = &cm;
  auto promise = std::make_shared<std::promise<absl::Status>>();
  auto future = promise->get_future();
  executor->RunAsync(args, [promise](absl::Status s) {
    promise->set_value(std::move(s));
  });
  REQUIRE(started.WaitForNotificationWithTimeout(absl::Seconds(60)));
  g_blocked_started.store(nullptr);
  cm.StartCancel();
  REQUIRE(future.wait_for(kWait) == std::future_status::ready);
  CHECK_THAT(future.get(), StatusIs(absl::StatusCode::kCancelled));
  CHECK(TheLog()->Get().empty());
}

TEST_CASE("a step whose cancellation manager is already cancelled runs "
          "nothing") {
  auto executor = MakeExecutor(Record("a", {}));
  {
    absl::MutexLock lock(&TheLog()->mu);
    TheLog()->names.clear();
  }
  CancellationManager cm;
  cm.StartCancel();
  Executor::Args args;
  args.cancellation_manager = &cm;
  CHECK_THAT(executor->Run(args), StatusIs(absl::StatusCode::kCancelled));
  CHECK(TheLog()->Get().empty());
}

TEST_CASE("a kernel output of the wrong dtype is an error naming the node") {
  auto executor = MakeExecutor(Op("w", "TestWrongType", {}) +
                               Op("sum", "TestAdd", {"w", "w"}));
  Executor::Args args;
  CHECK_THAT(executor->Run(args),
             StatusIs(absl::StatusCode::kInternal,
                      "node 'w' (op TestWrongType)"));
}

TEST_CASE("kernel creation errors are returned by NewExecutor") {
  auto executor = NewExecutor({TestDevice(), TestKernels()},
                              MakeGraph(Op("nk", "TestNoKernel", {})));
  CHECK_THAT(executor.status(),
             StatusIs(absl::StatusCode::kNotFound, "'nk'"));
}

TEST_CASE("dead inputs skip the consumers") {
  auto executor = MakeExecutor(Op("dead", "TestDead", {}) +
                               Record("r1", {"dead"}) + Record("r2", {"r1"}) +
                               Record("live", {}));
  {
    absl::MutexLock lock(&TheLog()->mu);
    TheLog()->names.clear();
  }
  Executor::Args args;
  REQUIRE_OK(executor->Run(args));
  CHECK(TheLog()->Get() == std::vector<std::string>{"live"});
}

TEST_CASE("an empty graph finishes at once") {
  auto executor = MakeExecutor("");
  Executor::Args args;
  REQUIRE_OK(executor->Run(args));
  REQUIRE_OK(RunAndWait(executor.get(), args));
}

TEST_CASE("step stats record every node with its timeline label") {
  auto executor = MakeExecutor(Const("c", 2) + Op("d", "TestDelay", {"c"}) +
                               Op("s", "TestAdd", {"c", "d"}) +
                               Retval("r", "s", 0));
  SimpleCallFrame frame({}, 1);
  StepStatsCollector collector;
  Executor::Args args;
  args.call_frame = &frame;
  args.stats_collector = &collector;
  args.runner = PoolRunner();
  REQUIRE_OK(RunAndWait(executor.get(), args));
  StepStats stats;
  collector.Finalize(&stats);
  REQUIRE(stats.dev_stats_size() == 1);
  CHECK(stats.dev_stats(0).device() == TestDevice()->name());
  std::map<std::string, NodeExecStats> by_name;
  for (const auto& n : stats.dev_stats(0).node_stats()) {
    by_name[n.node_name()] = n;
  }
  REQUIRE(by_name.size() == 4);
  CHECK(by_name["s"].timeline_label() == "s = TestAdd(c, d)");
  CHECK(by_name["c"].timeline_label() == "c = TestConst()");
  for (const auto& [name, n] : by_name) {
    INFO(name);
    CHECK(n.all_start_micros() > 0);
    CHECK(n.op_start_rel_nanos() <= n.op_end_rel_nanos());
    CHECK(n.op_end_rel_nanos() <= n.all_end_rel_nanos());
    CHECK(n.thread_id() > 0);
  }
  // Outputs as TensorFlow's executor records them: the sync and the async
  // (TestDelay) node's float scalar; the _Retval has none.
  for (const char* name : {"c", "d", "s"}) {
    INFO(name);
    REQUIRE(by_name[name].output_size() == 1);
    const NodeOutput& out = by_name[name].output(0);
    CHECK(out.slot() == 0);
    CHECK(out.tensor_description().dtype() == DT_FLOAT);
    CHECK(out.tensor_description().shape().dim_size() == 0);
    CHECK(out.tensor_description().allocation_description()
              .requested_bytes() == 4);
    CHECK_FALSE(out.tensor_description()
                    .allocation_description()
                    .allocator_name()
                    .empty());
  }
  CHECK(by_name["r"].output_size() == 0);
}

}  // namespace
}  // namespace dfx

// Tensors crossing between host memory and a device's own memory at the
// graph's cuts (runtime/device.h: HostReadable, CopyToHost, CopyFromHost;
// runtime/device_copy.h: their asynchronous forms; _Send and _Recv in
// kernels/sendrecv/; the executor's moves of inputs), on every machine: a
// fake "GPU" whose memory is a separate arena the host must not read
// directly, synchronous or with asynchronous copies that complete on a
// thread of their own, and a test op whose kernel checks that its inputs
// are in that arena.
#include <atomic>
#include <cmath>
#include <cstring>
#include <deque>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "catch2/catch.hpp"
#include "graph/graph.h"
#include "graph/node_def_util.h"
#include "graph/ops/ops.h"
#include "kernels/kernels.h"
#include "master/local_session.h"
#include "runtime/cancellation.h"
#include "runtime/device.h"
#include "runtime/device_copy.h"
#include "runtime/executor.h"
#include "runtime/more_devices.h"
#include "runtime/thread_pool.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

// Memory of the fake device: host memory underneath, but every block it
// hands out is recorded, so a kernel can tell device memory from host.
class DeviceArena final : public Allocator {
 public:
  std::string Name() const override { return "fake_device_arena"; }
  void* AllocateRaw(size_t alignment, size_t n) override {
    void* p = CpuAllocator()->AllocateRaw(alignment, n);
    absl::MutexLock lock(&mu_);
    live_.insert(p);
    return p;
  }
  void DeallocateRaw(void* p, size_t n) override {
    {
      absl::MutexLock lock(&mu_);
      live_.erase(p);
    }
    CpuAllocator()->DeallocateRaw(p, n);
  }
  AllocatorStats GetStats() const override { return {}; }
  bool IsHostMemory() const override { return false; }
  bool Owns(const void* p) const {
    absl::MutexLock lock(&mu_);
    return live_.contains(p);
  }

 private:
  mutable absl::Mutex mu_;
  absl::flat_hash_set<const void*> live_ ABSL_GUARDED_BY(mu_);
};

DeviceArena* Arena() {
  static DeviceArena* arena = new DeviceArena;
  return arena;
}

std::atomic<int> copies_in{0}, copies_out{0}, copies_between{0}, syncs{0};

// The fake devices' copies. Into the host: `t` must be in the arena.
absl::StatusOr<Tensor> CopyOut(const Device& device, const Tensor& t) {
  if (!Arena()->Owns(t.raw_data())) {
    return absl::InternalError("CopyToHost of a tensor not in the arena");
  }
  ++copies_out;
  Tensor out(t.dtype(), t.shape());
  std::memcpy(out.raw_data(), t.raw_data(), t.TotalBytes());
  return out;
}

// Into the arena, from the host or from another fake GPU. A NaN or
// infinite first element stands for a device out of memory.
absl::StatusOr<Tensor> CopyIn(const Device& device, const Tensor& t) {
  if (Arena()->Owns(t.raw_data())) {
    // Another fake GPU's tensor: a copy between devices.
    if (t.OnHost()) {
      return absl::InternalError("an arena tensor that says it is on host");
    }
    ++copies_between;
    auto out = Tensor::Allocate(Arena(), t.dtype(), t.shape());
    if (!out.ok()) return out.status();
    std::memcpy(out->raw_data(), t.raw_data(), t.TotalBytes());
    return out;
  }
  if (t.dtype() == DT_FLOAT && t.NumElements() > 0 &&
      !std::isfinite(t.data<float>()[0])) {
    return absl::ResourceExhaustedError(
        absl::StrCat(device.name(), ": fake device memory is full"));
  }
  ++copies_in;
  auto out = Tensor::Allocate(Arena(), t.dtype(), t.shape());
  if (!out.ok()) return out.status();
  std::memcpy(out->raw_data(), t.raw_data(), t.TotalBytes());
  return out;
}

// A fake GPU whose copies are synchronous (Device's hooks only).
class SeparateMemoryDevice final : public Device {
 public:
  using Device::Device;
  bool HostReadable() const override { return false; }
  absl::StatusOr<Tensor> CopyToHost(const Tensor& t) override {
    return CopyOut(*this, t);
  }
  absl::StatusOr<Tensor> CopyFromHost(const Tensor& t) override {
    return CopyIn(*this, t);
  }
  absl::Status Synchronize() override {
    ++syncs;
    return absl::OkStatus();
  }
};

// The asynchronous fake GPUs' copy engine: a copy goes into a queue that
// one thread of the engine's own runs in order, calling the copy's `done`
// there (as a GPU's poller hands a landed copy's callback to a thread of
// the device's). While held, copies wait in the queue until the test
// releases them.
class FakeCopyEngine {
 public:
  using Copy = std::function<absl::StatusOr<Tensor>()>;

  FakeCopyEngine() : thread_([this] { Loop(); }) {}

  void Submit(Copy copy, CopyDoneCallback done) {
    absl::MutexLock lock(&mu_);
    queue_.push_back(Job{std::move(copy), std::move(done)});
  }
  void Hold() {
    absl::MutexLock lock(&mu_);
    held_ = true;
  }
  void Release() {
    absl::MutexLock lock(&mu_);
    held_ = false;
  }
  // Runs `fn` on the engine's thread as soon as a copy waits in the queue
  // while the engine is held.
  void WhenCopyHeld(std::function<void()> fn) {
    absl::MutexLock lock(&mu_);
    waiters_.push_back(std::move(fn));
  }
  // True once `n` copies wait in the queue, false after `timeout`.
  bool AwaitQueued(size_t n, absl::Duration timeout) {
    struct Want {
      FakeCopyEngine* engine;
      size_t n;
    } want{this, n};
    absl::MutexLock lock(&mu_);
    return mu_.AwaitWithTimeout(
        absl::Condition(
            +[](Want* w) ABSL_NO_THREAD_SAFETY_ANALYSIS {
              return w->engine->queue_.size() >= w->n;
            },
            &want),
        timeout);
  }
  // True once no copy is queued or running, false after `timeout`.
  bool AwaitIdle(absl::Duration timeout) {
    absl::MutexLock lock(&mu_);
    return mu_.AwaitWithTimeout(
        absl::Condition(
            +[](FakeCopyEngine* e) ABSL_EXCLUSIVE_LOCKS_REQUIRED(e->mu_) {
              return e->queue_.empty() && !e->running_;
            },
            this),
        timeout);
  }
  bool OnEngineThread() const {
    return std::this_thread::get_id() == thread_.get_id();
  }

 private:
  struct Job {
    Copy copy;
    CopyDoneCallback done;
  };

  void Loop() {
    while (true) {
      std::vector<std::function<void()>> wake;
      std::optional<Job> job;
      {
        absl::MutexLock lock(&mu_);
        mu_.Await(absl::Condition(
            +[](FakeCopyEngine* e) ABSL_EXCLUSIVE_LOCKS_REQUIRED(e->mu_) {
              return !e->queue_.empty() && (!e->held_ || !e->waiters_.empty());
            },
            this));
        if (held_) {
          wake.swap(waiters_);
        } else {
          job.emplace(std::move(queue_.front()));
          queue_.pop_front();
          running_ = true;
        }
      }
      for (auto& fn : wake) fn();
      if (job) {
        std::move(job->done)(job->copy());
        absl::MutexLock lock(&mu_);
        running_ = false;
      }
    }
  }

  absl::Mutex mu_;
  std::deque<Job> queue_ ABSL_GUARDED_BY(mu_);
  std::vector<std::function<void()>> waiters_ ABSL_GUARDED_BY(mu_);
  bool held_ ABSL_GUARDED_BY(mu_) = false;
  bool running_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;
};

FakeCopyEngine* Engine() {
  static FakeCopyEngine* engine = new FakeCopyEngine;  // never destroyed
  return engine;
}

// The async fake GPUs alive, by incarnation.
absl::Mutex async_gpus_mu;
absl::flat_hash_set<uint64_t>* AsyncGpus() {
  static auto* gpus = new absl::flat_hash_set<uint64_t>;
  return gpus;
}

// Copies made with the synchronous hooks (blocking their caller), with
// the async ones, and GPU-to-GPU copies ordered after their source device.
std::atomic<int> sync_copies{0}, async_copies{0}, ordered_after_source{0};

// A fake GPU whose copies are asynchronous (AsyncCopyDevice) and run on
// the engine's thread. Its synchronous copies wait for the engine, as a
// GPU's do for its DMA (inline on the engine's own thread).
class AsyncSeparateMemoryDevice final : public Device, public AsyncCopyDevice {
 public:
  AsyncSeparateMemoryDevice(DeviceAttributes attrs, Allocator* allocator,
                            ThreadPool* pool)
      : Device(std::move(attrs), allocator, pool) {
    absl::MutexLock lock(&async_gpus_mu);
    AsyncGpus()->insert(incarnation());
  }
  ~AsyncSeparateMemoryDevice() override {
    absl::MutexLock lock(&async_gpus_mu);
    AsyncGpus()->erase(incarnation());
  }
  bool HostReadable() const override { return false; }
  absl::StatusOr<Tensor> CopyToHost(const Tensor& t) override {
    ++sync_copies;
    return Wait([&](CopyDoneCallback done) { Out(t, std::move(done)); });
  }
  absl::StatusOr<Tensor> CopyFromHost(const Tensor& t) override {
    ++sync_copies;
    return Wait(
        [&](CopyDoneCallback done) { In(t, CopySource{}, std::move(done)); });
  }
  void CopyToHostAsync(const Tensor& t, CopyDoneCallback done) override {
    ++async_copies;
    Out(t, std::move(done));
  }
  void CopyFromHostAsync(const Tensor& t, const CopySource& source,
                         CopyDoneCallback done) override {
    ++async_copies;
    In(t, source, std::move(done));
  }
  absl::Status Synchronize() override {
    ++syncs;
    return absl::OkStatus();
  }

 private:
  void Out(const Tensor& t, CopyDoneCallback done) {
    Engine()->Submit([this, t] { return CopyOut(*this, t); }, std::move(done));
  }
  void In(const Tensor& t, const CopySource& source, CopyDoneCallback done) {
    if (!t.OnHost() && source.device_incarnation != 0) {
      absl::MutexLock lock(&async_gpus_mu);
      if (!AsyncGpus()->contains(source.device_incarnation)) {
        std::move(done)(absl::FailedPreconditionError("unknown source GPU"));
        return;
      }
      ++ordered_after_source;
    }
    Engine()->Submit([this, t] { return CopyIn(*this, t); }, std::move(done));
  }
  // Starts a copy and waits for it (up to a minute).
  absl::StatusOr<Tensor> Wait(
      const std::function<void(CopyDoneCallback)>& start) {
    struct Result {
      absl::Notification landed;
      absl::StatusOr<Tensor> copy;
    };
    auto result = std::make_shared<Result>();
    CopyDoneCallback done = [result](absl::StatusOr<Tensor> copy) {
      result->copy = std::move(copy);
      result->landed.Notify();
    };
    if (Engine()->OnEngineThread()) {
      return absl::InternalError("a blocking copy on the engine's thread");
    }
    start(std::move(done));
    if (!result->landed.WaitForNotificationWithTimeout(absl::Minutes(1))) {
      return absl::DeadlineExceededError("fake copy did not land");
    }
    return result->copy;
  }
};

// y = x * x, element-wise, only on the fake device: fails unless x is in
// its memory.
class DeviceSquareOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    DFX_OP_REQUIRES(ctx, x.NumElements() == 0 || Arena()->Owns(x.raw_data()),
                    absl::InternalError("input is not in device memory"));
    Tensor* y = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &y));
    for (int64_t i = 0; i < x.NumElements(); ++i) {
      y->data<float>()[i] = x.data<float>()[i] * x.data<float>()[i];
    }
  }
};

// y = sum(x), its input and output in host memory (HostMemory): fails
// when x is in device memory.
class HostSumOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    DFX_OP_REQUIRES(ctx, x.OnHost() && !Arena()->Owns(x.raw_data()),
                    absl::InternalError("input is not in host memory"));
    Tensor* y = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(), &y));
    DFX_OP_REQUIRES(ctx, y->OnHost() && !Arena()->Owns(y->raw_data()),
                    absl::InternalError("output is not in host memory"));
    float sum = 0;
    for (float v : x.span<float>()) sum += v;
    y->scalar<float>() = sum;
  }
};

// Test ops for the executor's moves. WaitCopyHeld (async, no inputs,
// a float scalar out): done once a copy is held in the engine, on the
// engine's thread. Mark: notifies `marked` (an expensive kernel: it goes
// to the runner, not inline on the thread that made it ready).
absl::Notification* marked = nullptr;

class WaitCopyHeldOp : public AsyncOpKernel {
 public:
  using AsyncOpKernel::AsyncOpKernel;
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    Engine()->WhenCopyHeld([ctx, done = std::move(done)] {
      Tensor* y = nullptr;
      absl::Status s = ctx->allocate_output(0, TensorShape(), &y);
      if (!s.ok()) ctx->SetStatus(s);
      done();
    });
  }
};

class MarkOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    if (marked != nullptr) marked->Notify();
    ctx->set_output(0, ctx->input(0));
  }
};

struct Registries {
  OpRegistry ops;
  KernelRegistry kernels;
  Registries() {
    DFX_CHECK_OK(RegisterStandardOps(&ops));
    DFX_CHECK_OK(ops.Register(
        OpDefBuilder("DeviceSquare").Input("x: float").Output("y: float")));
    RegisterStandardKernels(&kernels);
    RegisterKernel<DeviceSquareOp>(&kernels,
                                   KernelDefBuilder("DeviceSquare").Device("GPU"));
    DFX_CHECK_OK(ops.Register(
        OpDefBuilder("HostSum").Input("x: float").Output("y: float")));
    RegisterKernel<HostSumOp>(
        &kernels,
        KernelDefBuilder("HostSum").Device("GPU").HostMemory("x").HostMemory(
            "y"));
    DFX_CHECK_OK(ops.Register(OpDefBuilder("WaitCopyHeld").Output("y: float")));
    RegisterKernel<WaitCopyHeldOp>(
        &kernels, KernelDefBuilder("WaitCopyHeld").Device("GPU"));
    DFX_CHECK_OK(ops.Register(
        OpDefBuilder("Mark").Input("x: float").Output("y: float")));
    RegisterKernel<MarkOp>(&kernels, KernelDefBuilder("Mark").Device("GPU"));
  }
};

// `count` fake GPUs, GPU:0 ... (their memory one arena), `async` ones or
// not.
MoreDevicesFactory FakeGpus(int count, bool async = false) {
  return [count, async](const std::string& task, ThreadPool* pool)
             -> absl::StatusOr<std::vector<std::unique_ptr<Device>>> {
    std::vector<std::unique_ptr<Device>> devices;
    for (int i = 0; i < count; ++i) {
      DeviceAttributes attrs;
      attrs.set_name(absl::StrCat(task, "/device:GPU:", i));
      attrs.set_device_type("GPU");
      attrs.set_incarnation(NewIncarnation());
      if (async) {
        devices.push_back(std::make_unique<AsyncSeparateMemoryDevice>(
            std::move(attrs), Arena(), pool));
      } else {
        devices.push_back(std::make_unique<SeparateMemoryDevice>(
            std::move(attrs), Arena(), pool));
      }
    }
    return devices;
  };
}

// A local session whose devices are CPU:0 and `gpus` fake GPUs.
Registries* TheRegistries() {
  static Registries* registries = new Registries;
  return registries;
}

absl::StatusOr<std::unique_ptr<LocalSession>> NewSessionWithFakeGpu(
    int gpus = 1, bool async = false) {
  ScopedMoreDevices fake(FakeGpus(gpus, async));
  return LocalSession::Create(SessionOptions(), &TheRegistries()->ops,
                              &TheRegistries()->kernels);
}

void AddNode(GraphDef* g, const std::string& name, const std::string& op,
             const std::vector<std::string>& inputs, const std::string& device) {
  NodeDef* n = g->add_node();
  n->set_name(name);
  n->set_op(op);
  n->set_device(device);
  for (const auto& in : inputs) n->add_input(in);
  if (op == "Placeholder") {
    (*n->mutable_attr())["dtype"].set_type(DT_FLOAT);
  } else if (op != "DeviceSquare" && op != "HostSum") {
    (*n->mutable_attr())["T"].set_type(DT_FLOAT);
  }
}

TEST_CASE("device memory: tensors are copied into a device's memory at its "
          "_Recv and out at its _Send, and stay there between its nodes") {
  auto session = NewSessionWithFakeGpu();
  REQUIRE_OK(session);
  GraphDef g;
  const std::string gpu = "/job:localhost/replica:0/task:0/device:GPU:0";
  AddNode(&g, "x", "Placeholder", {}, "");
  AddNode(&g, "sq", "DeviceSquare", {"x"}, gpu);
  AddNode(&g, "sq2", "DeviceSquare", {"sq"}, gpu);
  AddNode(&g, "plus", "AddV2", {"sq2", "x"}, "/device:CPU:0");
  REQUIRE_OK((*session)->Extend(g));
  copies_in = copies_out = 0;
  std::vector<Tensor> out;
  REQUIRE_OK((*session)->Run({{"x", Tensor::FromVector<float>({1, 2, -3})}},
                             {"sq2", "plus"}, {}, &out));
  CHECK(std::vector<float>(out[0].span<float>().begin(),
                           out[0].span<float>().end()) ==
        std::vector<float>{1, 16, 81});
  CHECK(std::vector<float>(out[1].span<float>().begin(),
                           out[1].span<float>().end()) ==
        std::vector<float>{2, 18, 78});
  // x in once; sq -> sq2 on the device; sq2 out to the fetch and to plus
  // (one _Send per destination device: the client's and the CPU's are the
  // same CPU here, so one or two copies out).
  CHECK(copies_in == 1);
  CHECK(copies_out >= 1);
  CHECK(copies_out <= 2);
  // Fetching a host-only result needs no copy of the device's.
  copies_in = copies_out = 0;
  REQUIRE_OK((*session)->Run({{"x", Tensor::FromVector<float>({0.5f})}},
                             {"x"}, {}, &out));
  CHECK(copies_in == 0);
  CHECK(copies_out == 0);
}

TEST_CASE("device memory: a failed copy into a device fails the step with "
          "its error, and the session runs on") {
  auto session = NewSessionWithFakeGpu();
  REQUIRE_OK(session);
  GraphDef g;
  AddNode(&g, "x", "Placeholder", {}, "");
  AddNode(&g, "sq", "DeviceSquare", {"x"},
          "/job:localhost/replica:0/task:0/device:GPU:0");
  REQUIRE_OK((*session)->Extend(g));
  std::vector<Tensor> out;
  CHECK_THAT((*session)->Run({{"x", Tensor::FromVector<float>({NAN, 1})}},
                             {"sq"}, {}, &out),
             testing::StatusIs(absl::StatusCode::kResourceExhausted,
                               "fake device memory is full"));
  REQUIRE_OK((*session)->Run({{"x", Tensor::FromVector<float>({3})}}, {"sq"},
                             {}, &out));
  CHECK(out[0].data<float>()[0] == 9);
}

// An int32 (or float) Const of `values` with `shape` on `device`.
template <typename T>
void AddConst(GraphDef* g, const std::string& name, std::vector<T> values,
              std::vector<int64_t> shape, const std::string& device) {
  NodeDef* n = g->add_node();
  n->set_name(name);
  n->set_op("Const");
  n->set_device(device);
  const Tensor t =
      Tensor::FromVector<T>(values, *TensorShape::Build(shape));
  (*n->mutable_attr())["dtype"].set_type(t.dtype());
  t.AsProtoTensorContent((*n->mutable_attr())["value"].mutable_tensor());
}

std::vector<float> Floats(const Tensor& t) {
  return std::vector<float>(t.span<float>().begin(), t.span<float>().end());
}

std::vector<int32_t> Ints(const Tensor& t) {
  return std::vector<int32_t>(t.span<int32_t>().begin(),
                              t.span<int32_t>().end());
}

TEST_CASE("device memory: a device's shape arithmetic runs on the host in "
          "int32 while its float data stays in device memory") {
  auto session = NewSessionWithFakeGpu();
  REQUIRE_OK(session);
  const std::string gpu = "/job:localhost/replica:0/task:0/device:GPU:0";
  GraphDef g;
  AddNode(&g, "x", "Placeholder", {}, "");
  AddNode(&g, "sq", "DeviceSquare", {"x"}, gpu);
  // Shape of a device tensor: int32, in host memory, no copy of the data.
  AddNode(&g, "shape", "Shape", {"sq"}, gpu);
  (*g.mutable_node(g.node_size() - 1)->mutable_attr())["out_type"].set_type(
      DT_INT32);
  // int32 arithmetic on the host, with an int32 Const of the device.
  AddConst<int32_t>(&g, "two", {2}, {}, gpu);
  AddNode(&g, "twice", "Mul", {"shape", "two"}, gpu);
  (*g.mutable_node(g.node_size() - 1)->mutable_attr())["T"].set_type(
      DT_INT32);
  // Reshape forwards the device buffer; its shape is read on the host.
  AddConst<int32_t>(&g, "new_shape", {3, 2}, {2}, gpu);
  AddNode(&g, "reshaped", "Reshape", {"sq", "new_shape"}, gpu);
  (*g.mutable_node(g.node_size() - 1)->mutable_attr())["Tshape"].set_type(
      DT_INT32);
  AddNode(&g, "sq2", "DeviceSquare", {"reshaped"}, gpu);
  // A float Const of the device is in its memory (DeviceSquare checks).
  AddConst<float>(&g, "c", {0.5f, 4}, {2}, gpu);
  AddNode(&g, "c2", "DeviceSquare", {"c"}, gpu);
  REQUIRE_OK((*session)->Extend(g));
  std::vector<Tensor> out;
  const Tensor x = Tensor::FromVector<float>({1, 2, 3, 4, 5, 6},
                                             TensorShape({2, 3}));
  // The first step builds the kernels (the float Const's copy into the
  // device is made then, once); the second shows a step's copies.
  REQUIRE_OK((*session)->Run({{"x", x}}, {"sq2", "shape", "twice", "c2"}, {},
                             &out));
  copies_in = copies_out = 0;
  REQUIRE_OK((*session)->Run({{"x", x}}, {"sq2", "shape", "twice", "c2"}, {},
                             &out));
  CHECK(out[0].shape() == TensorShape({3, 2}));
  CHECK(Floats(out[0]) == std::vector<float>{1, 16, 81, 256, 625, 1296});
  CHECK(Ints(out[1]) == std::vector<int32_t>{2, 3});
  CHECK(Ints(out[2]) == std::vector<int32_t>{4, 6});
  CHECK(Floats(out[3]) == std::vector<float>{0.25f, 16});
  // In: x. Out: sq2 and c2 (the int32 results are host tensors already).
  CHECK(copies_in == 1);
  CHECK(copies_out == 2);
}

TEST_CASE("device memory: an input in the other memory than its kernel "
          "reads it from is copied before the kernel runs") {
  auto session = NewSessionWithFakeGpu();
  REQUIRE_OK(session);
  const std::string gpu = "/job:localhost/replica:0/task:0/device:GPU:0";
  GraphDef g;
  AddNode(&g, "x", "Placeholder", {}, "");
  AddNode(&g, "sq", "DeviceSquare", {"x"}, gpu);
  // Device tensor into a host-memory input; host output into a device
  // kernel.
  AddNode(&g, "sum", "HostSum", {"sq"}, gpu);
  AddNode(&g, "sum_sq", "DeviceSquare", {"sum"}, gpu);
  REQUIRE_OK((*session)->Extend(g));
  copies_in = copies_out = 0;
  std::vector<Tensor> out;
  REQUIRE_OK((*session)->Run({{"x", Tensor::FromVector<float>({1, 2})}},
                             {"sum", "sum_sq"}, {}, &out));
  CHECK(out[0].scalar<float>() == 5);
  CHECK(out[1].scalar<float>() == 25);
  // In: x, then sum for sum_sq. Out: sq for sum, then sum_sq's fetch (sum
  // is fetched from host memory without a copy: _Send takes either).
  CHECK(copies_in == 2);
  CHECK(copies_out == 2);
}

TEST_CASE("device memory: a tensor from one GPU to another of the process "
          "is copied between them once its sender has synchronized, not "
          "through the host") {
  auto session = NewSessionWithFakeGpu(2);
  REQUIRE_OK(session);
  const std::string gpu0 = "/job:localhost/replica:0/task:0/device:GPU:0";
  const std::string gpu1 = "/job:localhost/replica:0/task:0/device:GPU:1";
  GraphDef g;
  AddNode(&g, "x", "Placeholder", {}, "");
  AddNode(&g, "sq0", "DeviceSquare", {"x"}, gpu0);
  AddNode(&g, "sq1", "DeviceSquare", {"sq0"}, gpu1);
  REQUIRE_OK((*session)->Extend(g));
  std::vector<Tensor> out;
  copies_in = copies_out = copies_between = syncs = 0;
  REQUIRE_OK((*session)->Run({{"x", Tensor::FromVector<float>({2, -3})}},
                             {"sq1"}, {}, &out));
  CHECK(Floats(out[0]) == std::vector<float>{16, 81});
  // x into GPU:0, sq0 from GPU:0 to GPU:1, sq1 out to the host.
  CHECK(copies_in == 1);
  CHECK(copies_between == 1);
  CHECK(copies_out == 1);
  CHECK(syncs == 1);
}

// ---------------------------------------------------------------------------
// Asynchronous copies (runtime/device_copy.h): the fake GPUs' copies land on
// the engine's thread, the test holding them back where it says so.

constexpr absl::Duration kBound = absl::Seconds(30);

// Resets the copy counters.
void ResetCounts() {
  copies_in = copies_out = copies_between = syncs = 0;
  sync_copies = async_copies = ordered_after_source = 0;
}

// x on the host; sq on the GPU; sum of sq on the host (a host-memory input
// and output of a GPU node); sum squared on the GPU again (a host tensor
// into a device input); plus on the CPU.
GraphDef Crossings() {
  const std::string gpu = "/job:localhost/replica:0/task:0/device:GPU:0";
  GraphDef g;
  AddNode(&g, "x", "Placeholder", {}, "");
  AddNode(&g, "sq", "DeviceSquare", {"x"}, gpu);
  AddNode(&g, "sum", "HostSum", {"sq"}, gpu);
  AddNode(&g, "sum_sq", "DeviceSquare", {"sum"}, gpu);
  AddNode(&g, "plus", "AddV2", {"sq", "x"}, "/device:CPU:0");
  return g;
}

TEST_CASE(
    "async device copies: a graph crossing CPU, GPU and host memory "
    "gives the blocking copies' numbers, with no copy blocking a "
    "thread") {
  const std::vector<std::string> fetches = {"sq", "sum", "sum_sq", "plus"};
  const Tensor x = Tensor::FromVector<float>({1, -2, 3});
  std::vector<Tensor> blocking, async;
  {
    auto session = NewSessionWithFakeGpu();
    REQUIRE_OK(session);
    REQUIRE_OK((*session)->Extend(Crossings()));
    REQUIRE_OK((*session)->Run({{"x", x}}, fetches, {}, &blocking));
  }
  auto session = NewSessionWithFakeGpu(1, /*async=*/true);
  REQUIRE_OK(session);
  REQUIRE_OK((*session)->Extend(Crossings()));
  ResetCounts();
  REQUIRE_OK((*session)->Run({{"x", x}}, fetches, {}, &async));
  REQUIRE(async.size() == 4);
  CHECK(Floats(async[0]) == std::vector<float>{1, 4, 9});
  CHECK(async[1].scalar<float>() == 14);
  CHECK(async[2].scalar<float>() == 196);
  CHECK(Floats(async[3]) == std::vector<float>{2, 2, 12});
  for (int i = 0; i < 4; ++i) {
    INFO(fetches[i]);
    CHECK(Floats(async[i]) == Floats(blocking[i]));
  }
  // In: x (_Recv), sum (the executor's move). Out: sq for sum (the move),
  // sq to the CPU and the fetches (_Send). All asynchronous.
  CHECK(copies_in == 2);
  CHECK(copies_out >= 3);
  CHECK(sync_copies == 0);
  CHECK(async_copies == copies_in + copies_out);
  REQUIRE(Engine()->AwaitIdle(kBound));
}

TEST_CASE(
    "async device copies: a tensor from one GPU to another of the "
    "process is ordered after its source device, with no "
    "Synchronize") {
  auto session = NewSessionWithFakeGpu(2, /*async=*/true);
  REQUIRE_OK(session);
  const std::string gpu0 = "/job:localhost/replica:0/task:0/device:GPU:0";
  const std::string gpu1 = "/job:localhost/replica:0/task:0/device:GPU:1";
  GraphDef g;
  AddNode(&g, "x", "Placeholder", {}, "");
  AddNode(&g, "sq0", "DeviceSquare", {"x"}, gpu0);
  AddNode(&g, "sq1", "DeviceSquare", {"sq0"}, gpu1);
  REQUIRE_OK((*session)->Extend(g));
  std::vector<Tensor> out;
  ResetCounts();
  REQUIRE_OK((*session)->Run({{"x", Tensor::FromVector<float>({2, -3})}},
                             {"sq1"}, {}, &out));
  CHECK(Floats(out[0]) == std::vector<float>{16, 81});
  CHECK(copies_in == 1);
  CHECK(copies_between == 1);
  CHECK(ordered_after_source == 1);
  CHECK(copies_out == 1);
  CHECK(syncs == 0);
  CHECK(sync_copies == 0);
  REQUIRE(Engine()->AwaitIdle(kBound));
}

TEST_CASE(
    "async device copies: a failed copy fails the step with the "
    "device's error naming the node, and the session runs on") {
  auto session = NewSessionWithFakeGpu(1, /*async=*/true);
  REQUIRE_OK(session);
  REQUIRE_OK((*session)->Extend(Crossings()));
  std::vector<Tensor> out;
  // At _Recv: x's first element stands for a full device.
  const absl::Status at_recv = (*session)->Run(
      {{"x", Tensor::FromVector<float>({NAN, 1})}}, {"sq"}, {}, &out);
  CHECK_THAT(at_recv, testing::StatusIs(absl::StatusCode::kResourceExhausted,
                                        "GPU:0: fake device memory is full"));
  CHECK_THAT(at_recv,
             testing::StatusIs(absl::StatusCode::kResourceExhausted, "node '"));
  // At the executor's move of sum (infinite) into the GPU for sum_sq.
  CHECK_THAT((*session)->Run({{"x", Tensor::FromVector<float>({1e20f})}},
                             {"sum_sq"}, {}, &out),
             testing::StatusIs(absl::StatusCode::kResourceExhausted,
                               "node 'sum_sq' (op DeviceSquare): copying "
                               "input 0 to device memory: "));
  REQUIRE_OK((*session)->Run({{"x", Tensor::FromVector<float>({3})}},
                             {"sum_sq"}, {}, &out));
  CHECK(out[0].scalar<float>() == 81);
  REQUIRE(Engine()->AwaitIdle(kBound));
}

// An executor on `device` for `g` (a node's inputs are data edges, "^n"
// control edges), with the test's kernels.
std::unique_ptr<Executor> ExecutorOn(Device* device, const GraphDef& g) {
  auto graph = std::make_unique<Graph>(&TheRegistries()->ops);
  for (const NodeDef& n : g.node()) DFX_CHECK_OK(graph->AddNode(n).status());
  for (const NodeDef& n : g.node()) {
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
  auto executor =
      NewExecutor({device, &TheRegistries()->kernels}, std::move(graph));
  DFX_CHECK_OK(executor.status());
  return std::move(executor).value();
}

DeviceAttributes FakeGpuAttrs() {
  DeviceAttributes attrs;
  attrs.set_name("/job:localhost/replica:0/task:0/device:GPU:0");
  attrs.set_device_type("GPU");
  attrs.set_incarnation(NewIncarnation());
  return attrs;
}

// c (a float Const in device memory) into HostSum's host-memory input.
GraphDef HeldMove() {
  GraphDef g;
  AddConst<float>(&g, "c", {1, 2, 3}, {3}, "");
  AddNode(&g, "sum", "HostSum", {"c"}, "");
  return g;
}

// Starts a step; its status comes through the future.
std::future<absl::Status> Start(Executor* executor, Executor::Args args) {
  auto promise = std::make_shared<std::promise<absl::Status>>();
  std::future<absl::Status> future = promise->get_future();
  executor->RunAsync(
      args, [promise](absl::Status s) { promise->set_value(std::move(s)); });
  return future;
}

TEST_CASE(
    "async device copies: while a node's input move is held back, "
    "the one inter-op thread runs the other nodes") {
  // With a blocking move, the one thread of the runner would wait in it:
  // Mark, which can only start once the move is pending, would never run.
  ThreadPool intra("intra", 1), inter("inter", 1);
  AsyncSeparateMemoryDevice gpu(FakeGpuAttrs(), Arena(), &intra);
  GraphDef g = HeldMove();
  NodeDef* w = g.add_node();
  w->set_name("w");
  w->set_op("WaitCopyHeld");
  NodeDef* m = g.add_node();
  m->set_name("m");
  m->set_op("Mark");
  m->add_input("w");
  std::unique_ptr<Executor> executor = ExecutorOn(&gpu, g);
  absl::Notification mark;
  marked = &mark;
  ResetCounts();
  Engine()->Hold();
  Executor::Args args;
  args.runner = [&inter](std::function<void()> fn) {
    inter.Schedule(std::move(fn));
  };
  std::future<absl::Status> step = Start(executor.get(), args);
  const bool ran_while_held = mark.WaitForNotificationWithTimeout(kBound);
  Engine()->Release();
  const bool ended =
      step.wait_for(std::chrono::seconds(30)) == std::future_status::ready;
  marked = nullptr;
  REQUIRE(ended);
  CHECK(ran_while_held);
  CHECK_THAT(step.get(), testing::IsOk());  // HostSum saw a host tensor
  CHECK(copies_out == 1);
  CHECK(sync_copies == 0);
  REQUIRE(Engine()->AwaitIdle(kBound));
}

TEST_CASE(
    "async device copies: cancelling a step whose input move is "
    "pending ends it at once") {
  ThreadPool intra("intra", 1), inter("inter", 1);
  AsyncSeparateMemoryDevice gpu(FakeGpuAttrs(), Arena(), &intra);
  std::unique_ptr<Executor> executor = ExecutorOn(&gpu, HeldMove());
  CancellationManager cancellation;
  Executor::Args args;
  args.runner = [&inter](std::function<void()> fn) {
    inter.Schedule(std::move(fn));
  };
  args.cancellation_manager = &cancellation;
  Engine()->Hold();
  std::future<absl::Status> step = Start(executor.get(), args);
  const bool pending = Engine()->AwaitQueued(1, kBound);
  cancellation.StartCancel();
  const bool ended =
      step.wait_for(std::chrono::seconds(30)) == std::future_status::ready;
  // The held copy lands later into memory nobody reads; it must not
  // outlive the device.
  Engine()->Release();
  REQUIRE(Engine()->AwaitIdle(kBound));
  CHECK(pending);
  REQUIRE(ended);
  CHECK_THAT(step.get(), testing::StatusIs(absl::StatusCode::kCancelled));
}

TEST_CASE(
    "async device copies: a step whose _Recv copy into the GPU is "
    "held past the step's deadline ends with it") {
  auto session = NewSessionWithFakeGpu(1, /*async=*/true);
  REQUIRE_OK(session);
  REQUIRE_OK((*session)->Extend(Crossings()));
  RunOptions options;
  options.set_timeout_in_ms(200);
  Engine()->Hold();
  std::future<absl::Status> step = std::async(std::launch::async, [&] {
    std::vector<Tensor> out;
    RunMetadata metadata;
    return (*session)->Run(options, {{"x", Tensor::FromVector<float>({2})}},
                           {"sq"}, {}, &out, &metadata);
  });
  const bool pending = Engine()->AwaitQueued(1, kBound);
  const bool ended =
      step.wait_for(std::chrono::seconds(30)) == std::future_status::ready;
  Engine()->Release();
  REQUIRE(Engine()->AwaitIdle(kBound));
  CHECK(pending);
  REQUIRE(ended);
  const absl::Status s = step.get();
  CHECK((s.code() == absl::StatusCode::kDeadlineExceeded ||
         s.code() == absl::StatusCode::kCancelled));
  // The session runs on.
  std::vector<Tensor> out;
  REQUIRE_OK((*session)->Run({{"x", Tensor::FromVector<float>({2})}}, {"sq"},
                             {}, &out));
  CHECK(out[0].data<float>()[0] == 4);
}

// Does nothing: a kernel whose memory types the test reads.
class NothingOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext*) override {}
};

TEST_CASE("device memory: HostMemory names args, list args included, int32 "
          "and resources are host memory on a device the host cannot "
          "read, everything is on a CPU") {
  OpRegistry ops;
  DFX_CHECK_OK(ops.Register(OpDefBuilder("Mixed")
                                .Input("values: N * float")
                                .Input("axis: int64")
                                .Input("count: int32")
                                .Input("handle: resource")
                                .Output("out: float")
                                .Output("sizes: N * int64")
                                .Attr("N: int >= 1")));
  KernelRegistry kernels;
  RegisterKernel<NothingOp>(
      &kernels, KernelDefBuilder("Mixed").Device("GPU").HostMemory("axis")
                    .HostMemory("sizes"));
  RegisterKernel<NothingOp>(&kernels, KernelDefBuilder("Mixed"));
  NodeDef node;
  node.set_name("mixed");
  node.set_op("Mixed");
  (*node.mutable_attr())["N"].set_i(3);
  const OpRegistrationData* op = ops.LookUp("Mixed");
  REQUIRE(op != nullptr);

  DeviceAttributes attrs;
  attrs.set_name("/job:localhost/replica:0/task:0/device:GPU:0");
  attrs.set_device_type("GPU");
  attrs.set_incarnation(NewIncarnation());
  ThreadPool pool("test", 1);
  SeparateMemoryDevice gpu(attrs, Arena(), &pool);
  auto kernel = kernels.CreateKernel(node, op->op_def, &gpu);
  REQUIRE_OK(kernel);
  // Inputs: 3 floats (device), axis (HostMemory), count (int32), handle.
  const std::vector<bool> in = {false, false, false, true, true, true};
  for (int i = 0; i < 6; ++i) {
    INFO("input " << i);
    CHECK((*kernel)->input_on_host(i) == in[i]);
  }
  // Outputs: out (device), 3 sizes (HostMemory).
  const std::vector<bool> out = {false, true, true, true};
  for (int i = 0; i < 4; ++i) {
    INFO("output " << i);
    CHECK((*kernel)->output_on_host(i) == out[i]);
  }
  CHECK_FALSE((*kernel)->runs_on_host());

  auto cpu_devices = DeviceMgr::NewCpu(CpuDeviceOptions());
  REQUIRE_OK(cpu_devices);
  auto on_cpu = kernels.CreateKernel(node, op->op_def,
                                     (*cpu_devices)->ListDevices()[0]);
  REQUIRE_OK(on_cpu);
  for (int i = 0; i < 6; ++i) CHECK((*on_cpu)->input_on_host(i));
  for (int i = 0; i < 4; ++i) CHECK((*on_cpu)->output_on_host(i));
}

}  // namespace
}  // namespace dfx

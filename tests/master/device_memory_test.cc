// Tensors crossing between host memory and a device's own memory at the
// graph's cuts (runtime/device.h: HostReadable, CopyToHost, CopyFromHost;
// _Send and _Recv in kernels/sendrecv/), on every machine: a fake "GPU"
// whose memory is a separate arena the host must not read directly, and a
// test op whose kernel checks that its inputs are in that arena.
#include <atomic>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "catch2/catch.hpp"
#include "graph/ops/ops.h"
#include "kernels/kernels.h"
#include "master/local_session.h"
#include "runtime/device.h"
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

class SeparateMemoryDevice final : public Device {
 public:
  using Device::Device;
  bool HostReadable() const override { return false; }
  absl::StatusOr<Tensor> CopyToHost(const Tensor& t) override {
    if (!Arena()->Owns(t.raw_data())) {
      return absl::InternalError("CopyToHost of a tensor not in the arena");
    }
    ++copies_out;
    Tensor out(t.dtype(), t.shape());
    std::memcpy(out.raw_data(), t.raw_data(), t.TotalBytes());
    return out;
  }
  absl::StatusOr<Tensor> CopyFromHost(const Tensor& t) override {
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
    // A NaN first element stands for a device out of memory.
    if (t.dtype() == DT_FLOAT && t.NumElements() > 0 &&
        std::isnan(t.data<float>()[0])) {
      return absl::ResourceExhaustedError("fake device memory is full");
    }
    ++copies_in;
    auto out = Tensor::Allocate(Arena(), t.dtype(), t.shape());
    if (!out.ok()) return out.status();
    std::memcpy(out->raw_data(), t.raw_data(), t.TotalBytes());
    return out;
  }
  absl::Status Synchronize() override {
    ++syncs;
    return absl::OkStatus();
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
  }
};

// `count` fake GPUs, GPU:0 ... (their memory one arena).
MoreDevicesFactory FakeGpus(int count) {
  return [count](const std::string& task, ThreadPool* pool)
             -> absl::StatusOr<std::vector<std::unique_ptr<Device>>> {
    std::vector<std::unique_ptr<Device>> devices;
    for (int i = 0; i < count; ++i) {
      DeviceAttributes attrs;
      attrs.set_name(absl::StrCat(task, "/device:GPU:", i));
      attrs.set_device_type("GPU");
      attrs.set_incarnation(NewIncarnation());
      devices.push_back(std::make_unique<SeparateMemoryDevice>(
          std::move(attrs), Arena(), pool));
    }
    return devices;
  };
}

// A local session whose devices are CPU:0 and `gpus` fake GPUs.
absl::StatusOr<std::unique_ptr<LocalSession>> NewSessionWithFakeGpu(
    int gpus = 1) {
  static Registries* registries = new Registries;
  ScopedMoreDevices fake(FakeGpus(gpus));
  return LocalSession::Create(SessionOptions(), &registries->ops,
                              &registries->kernels);
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

// GPU devices (gpu/gpu_device.h): discovery, which also runs on a machine
// without a GPU, and, tagged [gpu], what needs one: the device's name,
// streams and memory, events ordering work across streams, the GPU arena's
// limit. A [gpu] test on a machine without a GPU reports
// "SKIPPED: no CUDA device visible: <reason>", which ctest reports as skipped.
#include "gpu/gpu_device.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "catch2/catch.hpp"
#include "gpu/cuda_status.h"
#include "gpu/gpu_fill.h"
#include "absl/synchronization/notification.h"
#include "runtime/device.h"
#include "runtime/device_copy.h"
#include "runtime/more_devices.h"
#include "runtime/tensor.h"
#include "tests/testing/status_matchers.h"

namespace dfx::gpu {
namespace {

using testing::IsOk;
using testing::StatusIs;

constexpr int64_t kMiB = int64_t{1} << 20;
const absl::Duration kWait = absl::Seconds(60);

// True when a GPU is visible; otherwise says why the test is skipped.
bool HaveGpu() {
  std::string why;
  if (VisibleGpuCount(&why) > 0) return true;
  WARN("SKIPPED: no CUDA device visible: " << why);
  return false;
}

std::unique_ptr<DeviceMgr> DevicesWithGpus(GpuDeviceOptions options = {}) {
  CpuDeviceOptions cpu;
  cpu.task_name = "/job:worker/replica:0/task:3";
  cpu.intra_op_threads = 2;
  ScopedMoreDevices gpus(GpuDeviceFactory(std::move(options)));
  auto mgr = DeviceMgr::NewCpu(cpu);
  REQUIRE_OK(mgr);
  return std::move(mgr).value();
}

// Pinned host memory for copies from the device.
struct PinnedInts {
  explicit PinnedInts(int64_t n) : n(n) {
    REQUIRE(cudaMallocHost(reinterpret_cast<void**>(&p), n * 4) ==
            cudaSuccess);
  }
  ~PinnedInts() { cudaFreeHost(p); }
  int32_t* p = nullptr;
  int64_t n;
};

TEST_CASE("gpu discovery: the GPUs CUDA sees become devices, and none is not an "
          "error") {
  std::string why;
  const int count = VisibleGpuCount(&why);
  if (count == 0) {
    INFO(why);
    CHECK_FALSE(why.empty());
  }
  std::unique_ptr<DeviceMgr> mgr = DevicesWithGpus();
  int gpus = 0;
  for (Device* d : mgr->ListDevices()) gpus += d->device_type() == "GPU";
  CHECK(gpus == count);
  CHECK(mgr->ListDevices().front()->name() ==
        "/job:worker/replica:0/task:3/device:CPU:0");

  // device_count['GPU'] = 0: no GPUs even where there are some.
  GpuDeviceOptions none;
  none.max_devices = 0;
  mgr = DevicesWithGpus(none);
  CHECK(mgr->ListDevices().size() == 1);

  // A list naming a GPU past the last is InvalidArgument on a machine with
  // GPUs and ignored (as in TensorFlow) on one without.
  GpuDeviceOptions past;
  past.all_visible = false;
  past.visible_device_list = std::to_string(count + 5);
  past.visible_devices = {count + 5};
  ScopedMoreDevices past_gpus(GpuDeviceFactory(past));
  auto bad = DeviceMgr::NewCpu(CpuDeviceOptions());
  if (count > 0) {
    REQUIRE_THAT(bad.status(), StatusIs(absl::StatusCode::kInvalidArgument,
                                        "visible_device_list"));
  } else {
    REQUIRE_OK(bad);
    CHECK((*bad)->ListDevices().size() == 1);
  }
}

TEST_CASE("gpu device: named GPU:N with four streams and memory from its "
          "arena", "[gpu]") {
  if (!HaveGpu()) return;
  std::unique_ptr<DeviceMgr> mgr = DevicesWithGpus();
  auto found = mgr->LookupDevice("/device:GPU:0");
  REQUIRE_OK(found);
  auto* gpu = dynamic_cast<GpuDevice*>(*found);
  REQUIRE(gpu != nullptr);
  CHECK(gpu->name() == "/job:worker/replica:0/task:3/device:GPU:0");
  CHECK(gpu->device_type() == "GPU");
  CHECK(gpu->incarnation() != 0);
  auto legacy = mgr->LookupDevice("/gpu:0");
  REQUIRE_OK(legacy);
  CHECK(*legacy == gpu);
  std::vector<cudaStream_t> streams = {
      gpu->compute_stream()->get(), gpu->host_to_device_stream()->get(),
      gpu->device_to_host_stream()->get(),
      gpu->device_to_device_stream()->get()};
  for (size_t i = 0; i < streams.size(); ++i) {
    for (size_t j = i + 1; j < streams.size(); ++j) {
      CHECK(streams[i] != streams[j]);
    }
  }
  CHECK(gpu->GetAllocator() == gpu->bfc_allocator());

  // A tensor in device memory, written by a kernel, read back through the
  // device-to-host stream after an event.
  const int64_t n = 1 << 20;
  auto t = Tensor::Allocate(gpu->GetAllocator(), DT_INT32, TensorShape({n}));
  REQUIRE_OK(t);
  CHECK(reinterpret_cast<uintptr_t>(t->raw_data()) % kBfcAlignment == 0);
  CHECK(gpu->bfc_allocator()->GetBfcStats().bytes_in_use >= n * 4);
  auto* data = static_cast<int32_t*>(const_cast<void*>(t->raw_data()));
  REQUIRE(LaunchIota(gpu->compute_stream()->get(), data, n, 7) ==
          cudaSuccess);
  auto written = GpuEvent::Create(gpu->cuda_ordinal());
  REQUIRE_OK(written);
  REQUIRE_THAT((*written)->Record(*gpu->compute_stream()), IsOk());
  REQUIRE_THAT(gpu->device_to_host_stream()->WaitFor(**written), IsOk());
  PinnedInts host(n);
  REQUIRE(cudaMemcpyAsync(host.p, data, n * 4, cudaMemcpyDeviceToHost,
                          gpu->device_to_host_stream()->get()) ==
          cudaSuccess);
  REQUIRE_THAT(gpu->device_to_host_stream()->BlockHostUntilDone(kWait),
               IsOk());
  int64_t wrong = 0;
  for (int64_t i = 0; i < n; ++i) wrong += host.p[i] != 7 + i;
  CHECK(wrong == 0);
}

TEST_CASE("gpu device: events order a kernel, a device copy and a copy to "
          "the host on three streams", "[gpu]") {
  if (!HaveGpu()) return;
  std::unique_ptr<DeviceMgr> mgr = DevicesWithGpus();
  auto* gpu = dynamic_cast<GpuDevice*>(*mgr->LookupDevice("/device:GPU:0"));
  REQUIRE(gpu != nullptr);
  BfcAllocator* bfc = gpu->bfc_allocator();
  const int64_t n = 4 << 20;  // 16 MiB: long enough to race if unordered
  auto a = bfc->Allocate(n * 4);
  auto b = bfc->Allocate(n * 4);
  REQUIRE_OK(a);
  REQUIRE_OK(b);
  auto e1 = GpuEvent::Create(gpu->cuda_ordinal());
  auto e2 = GpuEvent::Create(gpu->cuda_ordinal());
  REQUIRE_OK(e1);
  REQUIRE_OK(e2);
  PinnedInts host(n);
  for (int round = 0; round < 3; ++round) {
    REQUIRE(LaunchIota(gpu->compute_stream()->get(),
                       static_cast<int32_t*>(*a), n, round * 100) ==
            cudaSuccess);
    REQUIRE_THAT((*e1)->Record(*gpu->compute_stream()), IsOk());
    REQUIRE_THAT(gpu->device_to_device_stream()->WaitFor(**e1), IsOk());
    REQUIRE(cudaMemcpyAsync(*b, *a, n * 4, cudaMemcpyDeviceToDevice,
                            gpu->device_to_device_stream()->get()) ==
            cudaSuccess);
    REQUIRE_THAT((*e2)->Record(*gpu->device_to_device_stream()), IsOk());
    REQUIRE_THAT(gpu->device_to_host_stream()->WaitFor(**e2), IsOk());
    REQUIRE(cudaMemcpyAsync(host.p, *b, n * 4, cudaMemcpyDeviceToHost,
                            gpu->device_to_host_stream()->get()) ==
            cudaSuccess);
    REQUIRE_THAT(gpu->device_to_host_stream()->BlockHostUntilDone(kWait),
                 IsOk());
    auto done = (*e2)->Done();
    REQUIRE_OK(done);
    CHECK(*done);
    int64_t wrong = 0;
    for (int64_t i = 0; i < n; ++i) wrong += host.p[i] != round * 100 + i;
    CHECK(wrong == 0);
  }
  bfc->Deallocate(*a);
  bfc->Deallocate(*b);
}

TEST_CASE("gpu device: an arena over cudaMalloc refuses beyond its limit with "
          "ResourceExhausted, and a tensor's error names it", "[gpu]") {
  if (!HaveGpu()) return;
  BfcAllocatorOptions options;
  options.name = "GPU_0_test_bfc";
  options.memory_limit = 64 * kMiB;
  options.allow_growth = false;
  auto bfc = BfcAllocator::Create(NewCudaSubAllocator(0), options);
  REQUIRE_OK(bfc);
  auto a = (*bfc)->Allocate(48 * kMiB);
  REQUIRE_OK(a);
  CHECK((*bfc)->GetBfcStats().bytes_reserved == 64 * kMiB);
  REQUIRE_THAT((*bfc)->Allocate(32 * kMiB).status(),
               StatusIs(absl::StatusCode::kResourceExhausted,
                        "cannot allocate 33554432 bytes"));
  auto t = Tensor::Allocate(bfc->get(), DT_FLOAT,
                            TensorShape({8 * 1024 * 1024}));
  REQUIRE_THAT(t.status(),
               StatusIs(absl::StatusCode::kResourceExhausted,
                        "from allocator GPU_0_test_bfc"));
  CHECK_THAT(std::string(t.status().message()),
             Catch::Contains("of a limit of 67108864") &&
                 !Catch::Contains("--memory-limit"));
  (*bfc)->Deallocate(*a);
  REQUIRE_THAT((*bfc)->CheckInvariants(), IsOk());
  auto again = (*bfc)->Allocate(60 * kMiB);
  REQUIRE_OK(again);
  (*bfc)->Deallocate(*again);
}

TEST_CASE("gpu device: tensors cross between host and GPU memory through "
          "the copy streams and pinned staging, byte for byte", "[gpu]") {
  if (!HaveGpu()) return;
  std::unique_ptr<DeviceMgr> mgr = DevicesWithGpus();
  auto found = mgr->LookupDevice("/device:GPU:0");
  REQUIRE_OK(found);
  Device* gpu = *found;
  CHECK_FALSE(gpu->HostReadable());
  CHECK(mgr->ListDevices().front()->HostReadable());
  REQUIRE(PinnedHostAllocator() != nullptr);

  // Empty, one element, below the staging size (direct), two chunks and a
  // tail (staged), and large.
  const int64_t chunk = GpuDevice::kStagingChunk / 4;
  for (int64_t n : {int64_t{0}, int64_t{1}, int64_t{1001}, 2 * chunk + 5,
                    16 * kMiB}) {
    INFO(n << " int32s");
    Tensor host(DT_INT32, TensorShape({n}));
    for (int64_t i = 0; i < n; ++i) host.data<int32_t>()[i] = int32_t(i * 7 + 3);
    auto on_gpu = gpu->CopyFromHost(host);
    REQUIRE_OK(on_gpu);
    auto back = gpu->CopyToHost(*on_gpu);  // into pinned memory
    REQUIRE_OK(back);
    REQUIRE(back->shape() == host.shape());
    CHECK(std::memcmp(back->raw_data(), host.raw_data(), n * 4) == 0);
    // A pinned source goes directly.
    auto again = gpu->CopyFromHost(*back);
    REQUIRE_OK(again);
    auto twice = gpu->CopyToHost(*again);
    REQUIRE_OK(twice);
    CHECK(std::memcmp(twice->raw_data(), host.raw_data(), n * 4) == 0);
  }
  // A GPU holds fixed-size types only.
  Tensor strings(DT_STRING, TensorShape({2}));
  CHECK_THAT(gpu->CopyFromHost(strings).status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "cannot be held in GPU memory"));
}

// What an asynchronous copy's callback got, and on which thread.
struct Landed {
  absl::Notification done;
  absl::StatusOr<Tensor> copy;
  std::thread::id thread;
};

CopyDoneCallback Into(Landed* landed) {
  return [landed](absl::StatusOr<Tensor> copy) {
    landed->copy = std::move(copy);
    landed->thread = std::this_thread::get_id();
    landed->done.Notify();
  };
}

TEST_CASE(
    "gpu device: asynchronous copies land byte for byte with their "
    "callbacks off the caller's thread, and a copy from another GPU "
    "waits for its kernel by an event",
    "[gpu]") {
  if (!HaveGpu()) return;
  ThreadPool pool("intra", 2);
  GpuDeviceOptions options;
  options.allow_growth = true;
  auto made0 = GpuDevice::Create(options, 0, 0, &pool);
  REQUIRE_OK(made0);
  auto made1 = GpuDevice::Create(options, 1, 0, &pool);  // the same GPU
  REQUIRE_OK(made1);
  GpuDevice* gpu = made0->get();
  GpuDevice* other = made1->get();
  const auto caller = std::this_thread::get_id();
  const int64_t chunk = GpuDevice::kStagingChunk / 4;
  // Direct, staged (pageable, two chunks and a tail), and large.
  for (int64_t n : {int64_t{0}, int64_t{1001}, 2 * chunk + 5, 16 * kMiB}) {
    INFO(n << " int32s");
    Tensor host(DT_INT32, TensorShape({n}));
    for (int64_t i = 0; i < n; ++i)
      host.data<int32_t>()[i] = int32_t(i * 5 + 1);
    Landed in;
    CopyFromHostAsync(gpu, host, CopySource{}, nullptr, Into(&in));
    REQUIRE(in.done.WaitForNotificationWithTimeout(kWait));
    REQUIRE_OK(in.copy);
    if (n > 0) CHECK(in.thread != caller);
    Landed out;
    CopyToHostAsync(gpu, *in.copy, nullptr, Into(&out));
    REQUIRE(out.done.WaitForNotificationWithTimeout(kWait));
    REQUIRE_OK(out.copy);
    if (n > 0) CHECK(out.thread != caller);
    CHECK(std::memcmp(out.copy->raw_data(), host.raw_data(), n * 4) == 0);
  }
  // GPU to GPU: the source's kernel is only enqueued when the copy is
  // issued; the copy must wait for it (an event on the source's compute
  // stream), with no host wait in between.
  const int64_t n = 64 * kMiB;
  auto source =
      Tensor::Allocate(other->bfc_allocator(), DT_INT32, TensorShape({n}));
  REQUIRE_OK(source);
  REQUIRE(LaunchIota(other->compute_stream()->get(),
                     static_cast<int32_t*>(source->raw_data()), n,
                     11) == cudaSuccess);
  Landed moved;
  CopyFromHostAsync(gpu, *source, CopySource{other->incarnation()}, nullptr,
                    Into(&moved));
  REQUIRE(moved.done.WaitForNotificationWithTimeout(kWait));
  REQUIRE_OK(moved.copy);
  auto back = gpu->CopyToHost(*moved.copy);
  REQUIRE_OK(back);
  int64_t wrong = 0;
  for (int64_t i = 0; i < n; ++i) {
    wrong += back->data<int32_t>()[i] != int32_t(11 + i);
  }
  CHECK(wrong == 0);
  // A source device that is gone.
  Landed orphan;
  CopyFromHostAsync(gpu, *source, CopySource{other->incarnation() ^ 1}, nullptr,
                    Into(&orphan));
  REQUIRE(orphan.done.WaitForNotificationWithTimeout(kWait));
  CHECK_THAT(orphan.copy.status(),
             StatusIs(absl::StatusCode::kFailedPrecondition, "source device"));
}

TEST_CASE(
    "gpu device: ranges of a GPU tensor are copied to the host "
    "apart, several in flight, byte for byte",
    "[gpu]") {
  if (!HaveGpu()) return;
  std::unique_ptr<DeviceMgr> mgr = DevicesWithGpus();
  auto found = mgr->LookupDevice("/device:GPU:0");
  REQUIRE_OK(found);
  auto* gpu = dynamic_cast<GpuDevice*>(*found);
  REQUIRE(gpu != nullptr);
  const int64_t n = 8 * kMiB + 3;  // int32s: 32 MiB and a tail
  Tensor host(DT_INT32, TensorShape({n}));
  for (int64_t i = 0; i < n; ++i) host.data<int32_t>()[i] = int32_t(i * 5 + 1);
  auto on_gpu = gpu->CopyFromHost(host);
  REQUIRE_OK(on_gpu);
  REQUIRE_OK(gpu->Synchronize());
  // Pinned staging from the device's host allocator, as HeldTensors uses.
  auto staging =
      Tensor::Allocate(gpu->GetHostAllocator(), DT_INT32, TensorShape({n}));
  REQUIRE_OK(staging);
  // Every range started before any is waited for: they land in order.
  const size_t total = static_cast<size_t>(n) * 4;
  const size_t piece = size_t{7} << 20;
  std::vector<std::unique_ptr<DeviceRangeCopier::Pending>> copies;
  for (size_t offset = 0; offset < total; offset += piece) {
    auto copy = gpu->StartCopyRangeToHost(
        *on_gpu, offset, std::min(piece, total - offset),
        static_cast<char*>(staging->raw_data()) + offset);
    REQUIRE_OK(copy);
    copies.push_back(*std::move(copy));
  }
  for (auto& copy : copies) CHECK_THAT(copy->Wait(), IsOk());
  CHECK(std::memcmp(staging->raw_data(), host.raw_data(), total) == 0);
  // A copy destroyed unwaited lands first.
  std::memset(staging->raw_data(), 0, total);
  {
    auto copy =
        gpu->StartCopyRangeToHost(*on_gpu, 0, total, staging->raw_data());
    REQUIRE_OK(copy);
  }
  CHECK(std::memcmp(staging->raw_data(), host.raw_data(), total) == 0);
  CHECK_THAT(
      gpu->StartCopyRangeToHost(*on_gpu, total - 4, 8, staging->raw_data())
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "not inside"));
}

}  // namespace
}  // namespace dfx::gpu

// HeldTensors: the one table of tensors held for peers (chunks and bulk).
#include "rpc/held_tensors.h"

#include <cstring>
#include <memory>
#include <vector>

#include "catch2/catch.hpp"
#include "runtime/thread_pool.h"
#include "tests/rpc/fake_gpu.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using ::dfx::testing::FakeGpu;
using ::dfx::testing::StatusIs;

Tensor Floats(int64_t n) {
  Tensor t(DT_FLOAT, TensorShape({n}));
  for (int64_t i = 0; i < n; ++i) t.data<float>()[i] = static_cast<float>(i);
  return t;
}

TEST_CASE("a held tensor is served by range and let go once every byte was "
          "served, each range counted once") {
  HeldTensors held;
  int served_calls = 0;
  const Tensor t = Floats(4);  // 16 bytes
  const uint64_t h =
      held.Hold(7, "k", t, /*served_prefix=*/0, [&] { ++served_calls; });
  CHECK(h != 0);
  CHECK(h < (uint64_t{1} << 63));
  auto got = held.Lookup(h, 0, 8);
  REQUIRE_OK(got.status());
  // Shares the buffer.
  CHECK(got->raw_data() == t.raw_data());
  held.MarkServed(h, 0, 8);
  held.MarkServed(h, 0, 8);  // the same range again counts once
  CHECK(held.size() == 1);
  CHECK(served_calls == 0);
  held.MarkServed(h, 8, 8);
  CHECK(held.size() == 0);
  CHECK(served_calls == 1);
  CHECK_THAT(held.Lookup(h, 0, 8).status(),
             StatusIs(absl::StatusCode::kNotFound, "every byte was served"));
}

TEST_CASE("bytes already sent inline count as served") {
  HeldTensors held;
  const uint64_t h = held.Hold(1, "k", Floats(4), /*served_prefix=*/12);
  held.MarkServed(h, 12, 4);
  CHECK(held.size() == 0);
}

TEST_CASE("a held tensor is found only for its own step and range") {
  HeldTensors held;
  const uint64_t h = held.Hold(3, "edge;0:0", Floats(4));
  CHECK_THAT(held.Lookup(h, 0, 4, /*step_id=*/4).status(),
             StatusIs(absl::StatusCode::kNotFound, "for step 4"));
  REQUIRE_OK(held.Lookup(h, 0, 4, /*step_id=*/3).status());
  CHECK_THAT(held.Lookup(h, 12, 8).status(),
             StatusIs(absl::StatusCode::kOutOfRange, "'edge;0:0'"));
  CHECK_THAT(held.Lookup(h, ~uint64_t{0}, 1).status(),
             StatusIs(absl::StatusCode::kOutOfRange));
}

TEST_CASE("held tensors go with their step, all at once, or one by one") {
  HeldTensors held;
  const uint64_t a = held.Hold(1, "a", Floats(2));
  held.Hold(1, "b", Floats(2));
  const uint64_t c = held.Hold(2, "c", Floats(2));
  held.ReleaseStep(1);
  CHECK(held.size() == 1);
  CHECK_FALSE(held.Lookup(a, 0, 1).ok());
  held.Release(c);
  CHECK(held.size() == 0);
  held.Hold(5, "d", Floats(2));
  held.ReleaseAll();
  CHECK(held.size() == 0);
}

TEST_CASE("a held tensor nobody asks for within its time to live goes") {
  HeldTensors held(HeldTensors::Options{absl::ZeroDuration()});
  const uint64_t h = held.Hold(1, "k", Floats(2));
  CHECK_THAT(held.Lookup(h, 0, 4).status(),
             StatusIs(absl::StatusCode::kNotFound, "not asked for within"));
  CHECK(held.size() == 0);
}

// A fake GPU and a tensor of `n` bytes (0, 1, 2, ... mod 251) in its
// memory.
struct DeviceTensor {
  ThreadPool pool{"held_tensors_test", 1};
  FakeGpu gpu{"/job:w/replica:0/task:0/device:GPU:0", &pool};
  Tensor tensor;
  explicit DeviceTensor(int64_t n) {
    Tensor host(DT_UINT8, TensorShape({n}));
    for (int64_t i = 0; i < n; ++i) host.data<uint8_t>()[i] = i % 251;
    absl::StatusOr<Tensor> copied = gpu.CopyFromHost(host);
    DFX_CHECK_OK(copied.status());
    tensor = *std::move(copied);
  }
  bool Matches(const HeldTensors::HostBytes& bytes, uint64_t offset) const {
    for (uint64_t i = 0; i < bytes.length; ++i) {
      if (static_cast<uint8_t>(bytes.data()[i]) != (offset + i) % 251) {
        return false;
      }
    }
    return true;
  }
};

TEST_CASE(
    "a device tensor is read by range through staging buffers, the "
    "next range copied while the last one is used") {
  DeviceTensor d(1000);
  HeldTensors held;
  const uint64_t h = held.Hold(1, "edge;0:0", d.tensor, 0, nullptr, &d.gpu);
  // The device tensor itself is never handed out as host bytes.
  for (uint64_t offset = 0; offset < 1000; offset += 300) {
    auto bytes = held.Read(h, offset, 1000 - offset, std::nullopt, 300);
    REQUIRE_OK(bytes.status());
    CHECK(bytes->length == std::min<uint64_t>(300, 1000 - offset));
    CHECK(bytes->owner.OnHost());
    CHECK(d.Matches(*bytes, offset));
  }
  CHECK(d.gpu.whole_copies() == 0);
  const std::vector<FakeGpu::RangeCopy> copies = d.gpu.range_copies();
  // One copy per range, each but the first started as the read-ahead of
  // the one before it, before that one's Read came back.
  REQUIRE(copies.size() == 4);
  for (size_t k = 0; k < copies.size(); ++k) {
    CHECK(copies[k].offset == 300 * k);
    if (k > 0) CHECK(copies[k].started < copies[k - 1].waited);
  }
  // A host tensor's bytes are its own buffer.
  const Tensor t = Floats(4);
  const uint64_t host = held.Hold(1, "k", t);
  auto bytes = held.Read(host, 4, 8);
  REQUIRE_OK(bytes.status());
  CHECK(bytes->data() == static_cast<const char*>(t.raw_data()) + 4);
}

TEST_CASE(
    "a device's copy error fails the read, naming the tensor and the "
    "device, and other ranges are still served") {
  DeviceTensor d(1000);
  d.gpu.set_fail_from(600);
  HeldTensors held;
  const uint64_t h = held.Hold(1, "edge;0:0", d.tensor, 0, nullptr, &d.gpu);
  REQUIRE_OK(held.Read(h, 300, 300).status());
  CHECK_THAT(held.Read(h, 600, 300).status(),
             StatusIs(absl::StatusCode::kInternal,
                      "of 'edge;0:0' from /job:w/replica:0/task:0/device:GPU:0"
                      " to the host: /job:w/replica:0/task:0/device:GPU:0: "
                      "the fake copy engine failed"));
  auto first = held.Read(h, 0, 300);
  REQUIRE_OK(first.status());
  CHECK(d.Matches(*first, 0));
}

TEST_CASE(
    "a device tensor's staging buffers go back when its entry goes: "
    "served, released by step, expired, or all released") {
  DeviceTensor d(1000);
  const auto& staging = d.gpu.host_memory();
  {
    HeldTensors held;
    // Served: each Read leaves a read-ahead behind but the last.
    const uint64_t h = held.Hold(1, "a", d.tensor, 0, nullptr, &d.gpu);
    for (uint64_t offset = 0; offset < 1000; offset += 500) {
      auto bytes = held.Read(h, offset, 500);
      REQUIRE_OK(bytes.status());
      held.MarkServed(h, offset, 500);
    }
    CHECK(held.size() == 0);
    CHECK(staging.live_bytes() == 0);
    // Released by step, with a read-ahead in flight.
    const uint64_t step = held.Hold(2, "b", d.tensor, 0, nullptr, &d.gpu);
    REQUIRE_OK(held.Read(step, 0, 100).status());
    CHECK(staging.live_bytes() > 0);  // the read-ahead of [100, 200)
    held.ReleaseStep(2);
    CHECK(staging.live_bytes() == 0);
    // All released (shutdown).
    const uint64_t all = held.Hold(3, "c", d.tensor, 0, nullptr, &d.gpu);
    REQUIRE_OK(held.Read(all, 0, 100).status());
    held.ReleaseAll();
    CHECK(staging.live_bytes() == 0);
    // A buffer a sender still holds goes with it.
    const uint64_t kept = held.Hold(4, "d", d.tensor, 0, nullptr, &d.gpu);
    auto bytes = held.Read(kept, 0, 100);
    REQUIRE_OK(bytes.status());
    held.Release(kept);
    CHECK(staging.live_bytes() == 100);
    bytes = absl::InternalError("sent");
    CHECK(staging.live_bytes() == 0);
  }
  // Expired, a read-ahead left behind: dropped by the next call that
  // finds it expired.
  HeldTensors expiring(HeldTensors::Options{absl::Milliseconds(500)});
  const uint64_t h = expiring.Hold(1, "e", d.tensor, 0, nullptr, &d.gpu);
  REQUIRE_OK(expiring.Read(h, 0, 100).status());
  CHECK(staging.live_bytes() == 100);
  // (Every call that finds it renews it: one, once it has expired.)
  absl::SleepFor(absl::Milliseconds(600));
  CHECK_THAT(expiring.Lookup(h, 0, 1).status(),
             StatusIs(absl::StatusCode::kNotFound, "not asked for within"));
  CHECK(expiring.size() == 0);
  CHECK(staging.live_bytes() == 0);
}

TEST_CASE(
    "a device without range copies has its tensor copied to the host "
    "whole, once") {
  // The fake GPU's ranges, without its DeviceRangeCopier side.
  class WholeOnly final : public Device {
   public:
    using Device::Device;
    bool HostReadable() const override { return false; }
    absl::StatusOr<Tensor> CopyToHost(const Tensor& t) override {
      ++copies;
      return gpu->CopyToHost(t);
    }
    FakeGpu* gpu = nullptr;
    int copies = 0;
  };
  DeviceTensor d(1000);
  DeviceAttributes attrs;
  attrs.set_name("/job:w/replica:0/task:0/device:XPU:0");
  attrs.set_device_type("XPU");
  attrs.set_incarnation(NewIncarnation());
  WholeOnly device(attrs, testing::FakeGpuMemory::Get(), &d.pool);
  device.gpu = &d.gpu;
  HeldTensors held;
  const uint64_t h = held.Hold(1, "k", d.tensor, 0, nullptr, &device);
  for (uint64_t offset = 0; offset < 1000; offset += 250) {
    auto bytes = held.Read(h, offset, 250);
    REQUIRE_OK(bytes.status());
    CHECK(d.Matches(*bytes, offset));
  }
  CHECK(device.copies == 1);
}

}  // namespace
}  // namespace dfx

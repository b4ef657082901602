// The CPU allocator (runtime/allocator.h) as tensors use it: small buffers,
// which come from per-thread free lists, keep the allocator's alignment,
// values and accounting, also when another thread frees them.
#include "runtime/allocator.h"

#include <cstdint>
#include <thread>
#include <vector>

#include "catch2/catch.hpp"
#include "runtime/tensor.h"

namespace dfx {
namespace {

bool Aligned(const Tensor& t) {
  return reinterpret_cast<uintptr_t>(t.raw_data()) % kAllocatorAlignment == 0;
}

TEST_CASE("small tensors are aligned, distinct and counted, also when "
          "another thread frees them") {
  const int64_t before = CpuAllocator()->GetStats().bytes_in_use;
  // Sizes from 0 to 320 bytes: scalars, short vectors, just over the
  // small-buffer limit.
  std::vector<Tensor> tensors;
  int64_t bytes = 0;
  for (int round = 0; round < 3; ++round) {
    for (int64_t n = 0; n <= 80; ++n) {
      Tensor t(DT_INT32, TensorShape({n}));
      for (int64_t i = 0; i < n; ++i) {
        t.data<int32_t>()[i] = int32_t(n * 1000 + i);
      }
      bytes += n * 4;
      tensors.push_back(std::move(t));
    }
  }
  CHECK(CpuAllocator()->GetStats().bytes_in_use - before == bytes);
  for (const Tensor& t : tensors) {
    CHECK(Aligned(t));
    const int64_t n = t.NumElements();
    for (int64_t i = 0; i < n; ++i) {
      REQUIRE(t.data<int32_t>()[i] == int32_t(n * 1000 + i));
    }
  }
  // Another thread frees half of them (into its own lists), this thread the
  // rest; what this thread allocates next is aligned and not shared.
  std::vector<Tensor> theirs(tensors.begin(), tensors.begin() + 120);
  tensors.erase(tensors.begin(), tensors.begin() + 120);
  std::thread([moved = std::move(theirs)]() mutable { moved.clear(); })
      .join();
  tensors.clear();
  CHECK(CpuAllocator()->GetStats().bytes_in_use == before);

  std::vector<Tensor> again;
  for (int i = 0; i < 500; ++i) {
    again.push_back(Tensor::Scalar<int64_t>(i));
    CHECK(Aligned(again.back()));
  }
  for (int i = 0; i < 500; ++i) {
    CHECK(again[i].scalar<int64_t>() == i);
    if (i > 0) CHECK(!again[i].SharesBufferWith(again[i - 1]));
  }
}

TEST_CASE("small tensors made and dropped on many threads at once keep "
          "their values") {
  const int64_t before = CpuAllocator()->GetStats().bytes_in_use;
  constexpr int kThreads = 4;
  std::vector<std::thread> threads;
  std::vector<int> bad(kThreads, 0);
  // Each thread keeps a window of 64 live scalars while the others
  // allocate and free theirs, and checks each value before dropping it.
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &bad] {
      std::vector<Tensor> live;
      for (int i = 0; i < 20000; ++i) {
        live.push_back(Tensor::Scalar<int32_t>(t * 100000 + i));
        if (live.size() > 64) {
          const Tensor& old = live.front();
          const int32_t want = t * 100000 + i - 64;
          if (old.scalar<int32_t>() != want) ++bad[t];
          live.erase(live.begin());
        }
      }
    });
  }
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) CHECK(bad[t] == 0);
  CHECK(CpuAllocator()->GetStats().bytes_in_use == before);
}

}  // namespace
}  // namespace dfx

#include "runtime/allocator.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>

namespace dfx {
namespace {

constexpr size_t kHugePageBytes = size_t{2} << 20;

class CpuAllocatorImpl final : public Allocator {
 public:
  std::string Name() const override { return "cpu"; }

  void* AllocateRaw(size_t alignment, size_t num_bytes) override {
    alignment = std::max(alignment, kAllocatorAlignment);
    // Large buffers (a received tensor, a big activation) are written once
    // right after allocation: backing them with transparent huge pages
    // takes one page fault per 2 MiB instead of one per 4 KiB, which
    // otherwise costs more than the writing itself.
    const bool huge = num_bytes >= kHugePageBytes;
    if (huge) alignment = std::max(alignment, kHugePageBytes);
    // aligned_alloc wants a size that is a multiple of the alignment.
    const size_t rounded =
        std::max<size_t>(alignment, (num_bytes + alignment - 1) / alignment *
                                        alignment);
    void* p = std::aligned_alloc(alignment, rounded);
    if (p == nullptr) return nullptr;
    if (huge) ::madvise(p, rounded, MADV_HUGEPAGE);  // advice; may fail
    num_allocs_.fetch_add(1, std::memory_order_relaxed);
    const int64_t in_use =
        bytes_in_use_.fetch_add(num_bytes, std::memory_order_relaxed) +
        static_cast<int64_t>(num_bytes);
    UpdateMax(peak_, in_use);
    UpdateMax(largest_, static_cast<int64_t>(num_bytes));
    return p;
  }

  void DeallocateRaw(void* ptr, size_t num_bytes) override {
    if (ptr == nullptr) return;
    bytes_in_use_.fetch_sub(num_bytes, std::memory_order_relaxed);
    std::free(ptr);
  }

  AllocatorStats GetStats() const override {
    AllocatorStats s;
    s.num_allocs = num_allocs_.load(std::memory_order_relaxed);
    s.bytes_in_use = bytes_in_use_.load(std::memory_order_relaxed);
    s.peak_bytes_in_use = peak_.load(std::memory_order_relaxed);
    s.largest_alloc_size = largest_.load(std::memory_order_relaxed);
    return s;
  }

 private:
  static void UpdateMax(std::atomic<int64_t>& m, int64_t v) {
    int64_t cur = m.load(std::memory_order_relaxed);
    while (v > cur &&
           !m.compare_exchange_weak(cur, v, std::memory_order_relaxed)) {
    }
  }

  std::atomic<int64_t> num_allocs_{0};
  std::atomic<int64_t> bytes_in_use_{0};
  std::atomic<int64_t> peak_{0};
  std::atomic<int64_t> largest_{0};
};

}  // namespace

Allocator* CpuAllocator() {
  static Allocator* a = new CpuAllocatorImpl;
  return a;
}

}  // namespace dfx

#include "runtime/allocator.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "runtime/internal/small_blocks.h"
#include "runtime/memory_limit.h"

namespace dfx {
namespace {

constexpr size_t kHugePageBytes = size_t{2} << 20;

// Freed big buffers (2 MiB and more) kept for reuse by a later allocation
// of the same rounded size, up to kMaxCachedBytes in all. A fresh big
// buffer costs a page fault per page and the kernel's zeroing of it, which
// on the hot path of a collective (a received piece, an output, the next
// step's input) cost more than moving and reducing the bytes (dfx_bench
// collectives spent half its CPU in the kernel's clear_page); steps repeat
// their sizes, so the same buffers come back. Cached bytes are not in use
// (GetStats, the host memory limit) but stay resident.
class BigBufferCache {
 public:
  static constexpr int64_t kMaxCachedBytes = int64_t{1} << 30;

  // A cached buffer of exactly `rounded` bytes, or null.
  void* Take(size_t rounded) {
    absl::MutexLock lock(&mu_);
    auto it = free_.find(rounded);
    if (it == free_.end() || it->second.empty()) return nullptr;
    void* p = it->second.back();
    it->second.pop_back();
    cached_ -= static_cast<int64_t>(rounded);
    return p;
  }

  // Keeps `p` (of `rounded` bytes) unless the cache is full: false then,
  // and the caller frees it.
  bool Put(void* p, size_t rounded) {
    absl::MutexLock lock(&mu_);
    if (cached_ + static_cast<int64_t>(rounded) > kMaxCachedBytes) {
      return false;
    }
    free_[rounded].push_back(p);
    cached_ += static_cast<int64_t>(rounded);
    return true;
  }

 private:
  absl::Mutex mu_;
  absl::flat_hash_map<size_t, std::vector<void*>> free_ ABSL_GUARDED_BY(mu_);
  int64_t cached_ ABSL_GUARDED_BY(mu_) = 0;
};

BigBufferCache& BigBuffers() {
  static BigBufferCache* cache = new BigBufferCache;
  return *cache;
}

// The size a big buffer of `num_bytes` really has: whole huge pages.
size_t RoundedBig(size_t num_bytes) {
  return (num_bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
}

std::atomic<int64_t> g_limit{0};
thread_local bool t_unlimited = false;

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
    // The bytes are counted first, so that allocations racing for the
    // last of the limit cannot all get it.
    const int64_t n = static_cast<int64_t>(num_bytes);
    const int64_t in_use =
        bytes_in_use_.fetch_add(n, std::memory_order_relaxed) + n;
    const int64_t limit = g_limit.load(std::memory_order_relaxed);
    if (limit > 0 && in_use > limit && !t_unlimited) {
      bytes_in_use_.fetch_sub(n, std::memory_order_relaxed);
      return nullptr;
    }
    // Big buffers of kHugePageBytes alignment (every one: Tensor asks for
    // kAllocatorAlignment) may come from the cache of freed ones.
    const bool cacheable = huge && alignment == kHugePageBytes;
    void* p = cacheable ? BigBuffers().Take(rounded) : nullptr;
    if (p != nullptr) {
      num_allocs_.fetch_add(1, std::memory_order_relaxed);
      UpdateMax(peak_, in_use);
      UpdateMax(largest_, static_cast<int64_t>(num_bytes));
      return p;
    }
    // Small buffers (scalars, shapes) come from per-thread free lists.
    p = num_bytes <= runtime_internal::kSmallBlockMaxBytes &&
                alignment <= runtime_internal::kSmallBlockAlignment
            ? runtime_internal::AllocateSmallBlock(num_bytes)
            : std::aligned_alloc(alignment, rounded);
    if (p == nullptr) {
      bytes_in_use_.fetch_sub(n, std::memory_order_relaxed);
      return nullptr;
    }
    if (huge) ::madvise(p, rounded, MADV_HUGEPAGE);  // advice; may fail
    num_allocs_.fetch_add(1, std::memory_order_relaxed);
    UpdateMax(peak_, in_use);
    UpdateMax(largest_, static_cast<int64_t>(num_bytes));
    return p;
  }

  void DeallocateRaw(void* ptr, size_t num_bytes) override {
    if (ptr == nullptr) return;
    bytes_in_use_.fetch_sub(num_bytes, std::memory_order_relaxed);
    if (num_bytes <= runtime_internal::kSmallBlockMaxBytes) {
      // Also right for a small buffer allocated with a bigger alignment:
      // its block is at least as big as the small block of its size.
      runtime_internal::FreeSmallBlock(ptr, num_bytes);
    } else if (num_bytes >= kHugePageBytes &&
               BigBuffers().Put(ptr, RoundedBig(num_bytes))) {
      // Kept for the next buffer of its size.
    } else {
      std::free(ptr);
    }
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

void SetHostMemoryLimit(int64_t bytes) {
  g_limit.store(std::max<int64_t>(0, bytes), std::memory_order_relaxed);
}

int64_t HostMemoryLimit() { return g_limit.load(std::memory_order_relaxed); }

int64_t DefaultHostMemoryLimit() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page_size = ::sysconf(_SC_PAGESIZE);
  int64_t total = pages > 0 && page_size > 0
                      ? static_cast<int64_t>(pages) * page_size
                      : int64_t{0};
  // cgroup v2, then v1: "max" or a number of bytes.
  for (const char* path : {"/sys/fs/cgroup/memory.max",
                           "/sys/fs/cgroup/memory/memory.limit_in_bytes"}) {
    std::ifstream in(path);
    std::string text;
    int64_t cgroup = 0;
    if (in >> text && absl::SimpleAtoi(text, &cgroup) && cgroup > 0 &&
        (total == 0 || cgroup < total)) {
      total = cgroup;
    }
  }
  return total / 10 * 7;
}

absl::Status CheckHostMemoryHeadroom(int64_t bytes, absl::string_view what) {
  const int64_t limit = g_limit.load(std::memory_order_relaxed);
  if (limit <= 0 || t_unlimited) return absl::OkStatus();
  const int64_t in_use = CpuAllocator()->GetStats().bytes_in_use;
  if (bytes <= limit - in_use) return absl::OkStatus();
  return absl::ResourceExhaustedError(absl::StrCat(
      "out of memory: ", what, " needs ", bytes, " bytes beside ", in_use,
      " bytes in use, over the limit of ", limit,
      " (dfx server --memory-limit)"));
}

absl::StatusOr<int64_t> ParseByteSize(absl::string_view flag,
                                      absl::string_view value) {
  std::string text = absl::AsciiStrToUpper(absl::StripAsciiWhitespace(value));
  int shift = 0;
  for (absl::string_view suffix : {"IB", "B"}) {
    if (text.size() > suffix.size() &&
        absl::EndsWith(text, suffix)) {
      text.resize(text.size() - suffix.size());
      break;
    }
  }
  if (!text.empty()) {
    switch (text.back()) {
      case 'K': shift = 10; break;
      case 'M': shift = 20; break;
      case 'G': shift = 30; break;
      case 'T': shift = 40; break;
      default: break;
    }
    if (shift != 0) text.pop_back();
  }
  int64_t n = 0;
  if (text.empty() || !absl::SimpleAtoi(text, &n) || n < 0 ||
      (shift > 0 && n > (INT64_MAX >> shift))) {
    return absl::InvalidArgumentError(absl::StrCat(
        flag, " '", value,
        "' is not a byte count (e.g. 17179869184, 16G, 512MiB, 0)"));
  }
  return n << shift;
}

UnlimitedAllocationScope::UnlimitedAllocationScope() : previous_(t_unlimited) {
  t_unlimited = true;
}

UnlimitedAllocationScope::~UnlimitedAllocationScope() {
  t_unlimited = previous_;
}

}  // namespace dfx

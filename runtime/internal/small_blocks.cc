#include "runtime/internal/small_blocks.h"

#include <cstdint>
#include <cstdlib>

namespace dfx {
namespace runtime_internal {
namespace {

// Why: glibc's aligned_alloc takes the arena's slow memalign path (no
// per-thread cache) and a scalar tensor needs two allocations (its buffer
// and its shared header), which made allocation the largest cost of a
// cheap kernel. A thread that frees a block keeps it for its next
// allocation of the same size class, so a chain of kernels on one thread
// allocates from a free list.

constexpr int kClasses =
    static_cast<int>(kSmallBlockMaxBytes / kSmallBlockAlignment);
// Blocks a thread keeps per class: a kernel chain frees one block per
// allocation, so a few suffice; at most 640 KiB per thread.
// Under AddressSanitizer every block goes back to the system, so that a use
// after free of a small tensor is still caught.
#if defined(__SANITIZE_ADDRESS__)
constexpr int32_t kMaxCached = 0;
#else
constexpr int32_t kMaxCached = 1024;
#endif

int ClassOf(size_t bytes) {
  return bytes == 0 ? 0 : static_cast<int>((bytes - 1) / kSmallBlockAlignment);
}

size_t ClassBytes(int c) {
  return static_cast<size_t>(c + 1) * kSmallBlockAlignment;
}

// Trivial, so that it needs no initialisation guard and stays usable while
// the thread's other thread_locals are destroyed.
struct FreeLists {
  void* head[kClasses];
  int32_t count[kClasses];
  // Set once the thread's lists are drained at thread exit: later frees go
  // to the system.
  bool closed;
  bool reaper_armed;
};
thread_local FreeLists t_lists;

// Drains the thread's lists when the thread ends.
struct Reaper {
  bool armed = false;
  ~Reaper() {
    for (int c = 0; c < kClasses; ++c) {
      while (t_lists.head[c] != nullptr) {
        void* block = t_lists.head[c];
        t_lists.head[c] = *static_cast<void**>(block);
        std::free(block);
      }
      t_lists.count[c] = 0;
    }
    t_lists.closed = true;
  }
};
thread_local Reaper t_reaper;

}  // namespace

void* AllocateSmallBlock(size_t bytes) {
  const int c = ClassOf(bytes);
  FreeLists& lists = t_lists;
  void* block = lists.head[c];
  if (block != nullptr) {
    lists.head[c] = *static_cast<void**>(block);
    --lists.count[c];
    return block;
  }
  return std::aligned_alloc(kSmallBlockAlignment, ClassBytes(c));
}

void FreeSmallBlock(void* block, size_t bytes) {
  if (block == nullptr) return;
  const int c = ClassOf(bytes);
  FreeLists& lists = t_lists;
  if (lists.closed || lists.count[c] >= kMaxCached) {
    std::free(block);
    return;
  }
  if (!lists.reaper_armed) {
    lists.reaper_armed = true;
    t_reaper.armed = true;  // constructs it, so that it runs at thread exit
  }
  *static_cast<void**>(block) = lists.head[c];
  lists.head[c] = block;
  ++lists.count[c];
}

}  // namespace runtime_internal
}  // namespace dfx

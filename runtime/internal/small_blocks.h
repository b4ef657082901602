// Per-thread free lists of small 64-byte-aligned blocks, behind the CPU
// allocator's small tensor buffers and the tensors' buffer headers. Private
// to runtime/.
#ifndef DFX_RUNTIME_INTERNAL_SMALL_BLOCKS_H_
#define DFX_RUNTIME_INTERNAL_SMALL_BLOCKS_H_

#include <cstddef>
#include <new>

#include "base/logging.h"

namespace dfx {
namespace runtime_internal {

// Blocks are aligned to this many bytes and sized in multiples of it.
inline constexpr size_t kSmallBlockAlignment = 64;
// Requests above this size are not small.
inline constexpr size_t kSmallBlockMaxBytes = 256;

// A block of at least `bytes` bytes (REQUIRES: bytes <= kSmallBlockMaxBytes),
// aligned to kSmallBlockAlignment; null when out of memory. Taken from the
// calling thread's free list when it has one. Thread-safe.
void* AllocateSmallBlock(size_t bytes);

// Returns a block. REQUIRES: `block` came from AllocateSmallBlock with a
// `bytes` rounding up to the same multiple of kSmallBlockAlignment (the same
// request size will do). The block goes to the calling thread's free list,
// or back to the system when that list is full or the thread is exiting;
// any thread may free a block another thread allocated.
void FreeSmallBlock(void* block, size_t bytes);

// A stateless standard allocator of one T at a time over the small blocks,
// for std::allocate_shared.
template <typename T>
struct SmallBlockAllocator {
  static_assert(sizeof(T) <= kSmallBlockMaxBytes);
  static_assert(alignof(T) <= kSmallBlockAlignment);
  using value_type = T;

  SmallBlockAllocator() = default;
  template <typename U>
  SmallBlockAllocator(const SmallBlockAllocator<U>&) {}  // NOLINT: rebind

  T* allocate(size_t n) {
    DFX_CHECK(n == 1);
    void* p = AllocateSmallBlock(sizeof(T));
    if (p == nullptr) throw std::bad_alloc();  // as std::allocator does
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t) { FreeSmallBlock(p, sizeof(T)); }

  template <typename U>
  bool operator==(const SmallBlockAllocator<U>&) const {
    return true;
  }
};

}  // namespace runtime_internal
}  // namespace dfx

#endif  // DFX_RUNTIME_INTERNAL_SMALL_BLOCKS_H_

// Allocator: where tensor buffers come from, with usage statistics.
#ifndef DFX_RUNTIME_ALLOCATOR_H_
#define DFX_RUNTIME_ALLOCATOR_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

namespace dfx {

// Buffers are aligned to this many bytes (enough for AVX-512 and Eigen).
inline constexpr size_t kAllocatorAlignment = 64;

struct AllocatorStats {
  int64_t num_allocs = 0;
  int64_t bytes_in_use = 0;
  int64_t peak_bytes_in_use = 0;
  int64_t largest_alloc_size = 0;
};

// Thread-safe.
class Allocator {
 public:
  virtual ~Allocator() = default;
  virtual std::string Name() const = 0;
  // Null when out of memory. A zero-byte request returns a non-null pointer
  // that must still be deallocated.
  virtual void* AllocateRaw(size_t alignment, size_t num_bytes) = 0;
  // `num_bytes` is what was requested for `ptr`.
  virtual void DeallocateRaw(void* ptr, size_t num_bytes) = 0;
  virtual AllocatorStats GetStats() const = 0;
  // False when the host cannot read the memory (a GPU's): tensors know by
  // this where they live (Tensor::OnHost).
  virtual bool IsHostMemory() const { return true; }
};

// The process-wide host allocator (aligned malloc, with statistics).
Allocator* CpuAllocator();

}  // namespace dfx

#endif  // DFX_RUNTIME_ALLOCATOR_H_

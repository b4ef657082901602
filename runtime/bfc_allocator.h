// BfcAllocator: a best-fit-with-coalescing arena allocator over big regions
// taken from a SubAllocator (cudaMalloc for a GPU, aligned host memory in
// tests), and the host-memory SubAllocator.
//
// Memory is reserved in regions and carved into chunks. Free chunks sit in
// bins by size (bin b holds sizes in [256 << b, 256 << (b + 1)), the last
// bin everything larger); an allocation takes the smallest free chunk that
// fits (ties: the lowest address), splits off the rest as a free chunk, and
// a free returns the chunk and merges it with free neighbours of the same
// region, so freeing everything leaves one free chunk per region. Regions
// are kept until the allocator is destroyed.
//
// Growth: with allow_growth the first region is `initial_region_bytes` and
// each later one twice the previous (at least the request), until the
// regions add up to `memory_limit`; without it the first allocation
// reserves the whole limit at once. A sub-allocator that refuses a region
// is asked again for smaller ones down to the request. Beyond the limit an
// allocation fails (Allocate: ResourceExhausted naming the size, the limit
// and the bytes in use; AllocateRaw: null), never a crash.
#ifndef DFX_RUNTIME_BFC_ALLOCATOR_H_
#define DFX_RUNTIME_BFC_ALLOCATOR_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "runtime/allocator.h"

namespace dfx {

// Every chunk starts and ends on a multiple of this many bytes from its
// region's start (regions are at least this aligned).
inline constexpr size_t kBfcAlignment = 256;

// Where a BfcAllocator's regions come from. Implementations need not be
// thread-safe: the allocator calls them under its lock.
class SubAllocator {
 public:
  virtual ~SubAllocator() = default;
  // "host", "cuda:0": for messages.
  virtual std::string Name() const = 0;
  // A region of `num_bytes` (a multiple of kBfcAlignment), aligned to at
  // least kBfcAlignment, or null when the memory is not there.
  virtual void* Alloc(size_t num_bytes) = 0;
  // Gives back a region from Alloc with its size.
  virtual void Free(void* ptr, size_t num_bytes) = 0;
  // False for memory the host cannot read (cudaMalloc's).
  virtual bool IsHostMemory() const { return true; }
};

// Host memory from aligned_alloc (tests, and later pinned staging's twin).
class HostSubAllocator final : public SubAllocator {
 public:
  std::string Name() const override { return "host"; }
  void* Alloc(size_t num_bytes) override;
  void Free(void* ptr, size_t num_bytes) override;
};

struct BfcAllocatorOptions {
  // The allocator's name in messages and stats ("GPU_0_bfc").
  std::string name = "bfc";
  // The most bytes the regions may add up to; must be positive.
  int64_t memory_limit = 0;
  // Grow region by region (true) or reserve `memory_limit` at the first
  // allocation (false).
  bool allow_growth = true;
  // The first region's size with allow_growth (rounded up to
  // kBfcAlignment, capped by the limit).
  int64_t initial_region_bytes = int64_t{2} << 20;
};

struct BfcStats {
  int64_t num_allocs = 0;          // allocations served, ever
  int64_t bytes_in_use = 0;        // chunk bytes handed out (rounded sizes)
  int64_t peak_bytes_in_use = 0;
  int64_t largest_alloc_size = 0;  // largest request, in bytes
  int64_t bytes_reserved = 0;      // bytes of all regions
  int64_t bytes_limit = 0;
  int64_t num_regions = 0;
  int64_t num_chunks = 0;          // in use and free
  int64_t num_free_chunks = 0;
  int64_t largest_free_chunk = 0;  // bytes; what one allocation can get
                                   // without a new region
};

// Thread-safe.
class BfcAllocator final : public Allocator {
 public:
  // InvalidArgument for a limit or initial region that is not positive.
  static absl::StatusOr<std::unique_ptr<BfcAllocator>> Create(
      std::unique_ptr<SubAllocator> sub_allocator, BfcAllocatorOptions options);
  // Gives every region back. Chunks still in use are a bug of the caller
  // (logged).
  ~BfcAllocator() override;

  BfcAllocator(const BfcAllocator&) = delete;
  BfcAllocator& operator=(const BfcAllocator&) = delete;

  // `num_bytes` bytes aligned to kBfcAlignment (a zero-byte request gets a
  // distinct pointer too). ResourceExhausted naming the allocator, the
  // size, the limit, the bytes in use and the largest free chunk when it
  // cannot be had without going beyond the limit (or the sub-allocator has
  // no more memory).
  absl::StatusOr<void*> Allocate(size_t num_bytes);
  // Returns a pointer from Allocate / AllocateRaw. A pointer it never gave
  // out is logged and ignored.
  void Deallocate(void* ptr);

  // Allocator: null instead of the status; alignments above kBfcAlignment
  // are refused (null).
  std::string Name() const override { return options_.name; }
  void* AllocateRaw(size_t alignment, size_t num_bytes) override;
  void DeallocateRaw(void* ptr, size_t num_bytes) override;
  AllocatorStats GetStats() const override;
  bool IsHostMemory() const override { return host_memory_; }

  BfcStats GetBfcStats() const;
  // The requested size of a live allocation (0 for an unknown pointer).
  size_t RequestedSize(const void* ptr) const;

  // Walks every region and checks the chunk structure: chunks tile each
  // region without gaps, no two free neighbours, every free chunk in the
  // right bin and nothing else in the bins, the counters match. Internal
  // (naming what is wrong) when it does not hold: for tests.
  absl::Status CheckInvariants() const;

 private:
  using ChunkHandle = int32_t;
  static constexpr ChunkHandle kNone = -1;
  static constexpr int kNumBins = 21;

  struct Chunk {
    char* ptr = nullptr;
    size_t size = 0;       // multiple of kBfcAlignment
    size_t requested = 0;  // in use only
    bool in_use = false;
    ChunkHandle prev = kNone;  // neighbours in the same region, by address
    ChunkHandle next = kNone;
    int32_t region = -1;
  };
  struct Region {
    char* ptr = nullptr;
    size_t size = 0;
    ChunkHandle first = kNone;
  };
  // (size, address, handle): best fit first, then the lowest address.
  using BinEntry = std::tuple<size_t, uintptr_t, ChunkHandle>;

  BfcAllocator(std::unique_ptr<SubAllocator> sub_allocator,
               BfcAllocatorOptions options);

  static int BinFor(size_t size);
  ChunkHandle NewChunkLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void DeleteChunkLocked(ChunkHandle h) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void InsertFreeLocked(ChunkHandle h) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void RemoveFreeLocked(ChunkHandle h) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  ChunkHandle FindFitLocked(size_t rounded) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Adds a region big enough for `rounded` bytes; false when the limit or
  // the sub-allocator says no.
  bool ExtendLocked(size_t rounded) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Merges free chunk `h` with its free successor.
  void MergeWithNextLocked(ChunkHandle h) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  int64_t LargestFreeChunkLocked() const ABSL_SHARED_LOCKS_REQUIRED(mu_);

  const BfcAllocatorOptions options_;
  mutable absl::Mutex mu_;
  const std::unique_ptr<SubAllocator> sub_allocator_ ABSL_GUARDED_BY(mu_);
  const bool host_memory_;  // sub_allocator_->IsHostMemory()
  std::vector<Chunk> chunks_ ABSL_GUARDED_BY(mu_);
  ChunkHandle free_handles_ ABSL_GUARDED_BY(mu_) = kNone;
  std::vector<Region> regions_ ABSL_GUARDED_BY(mu_);
  std::set<BinEntry> bins_[kNumBins] ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<const void*, ChunkHandle> in_use_ ABSL_GUARDED_BY(mu_);
  size_t next_region_bytes_ ABSL_GUARDED_BY(mu_);
  BfcStats stats_ ABSL_GUARDED_BY(mu_);
};

}  // namespace dfx

#endif  // DFX_RUNTIME_BFC_ALLOCATOR_H_

#include "runtime/bfc_allocator.h"

#include <algorithm>
#include <cstdlib>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "base/logging.h"

namespace dfx {
namespace {

size_t RoundUp(size_t n) {
  return (std::max<size_t>(n, 1) + kBfcAlignment - 1) / kBfcAlignment *
         kBfcAlignment;
}

}  // namespace

void* HostSubAllocator::Alloc(size_t num_bytes) {
  return std::aligned_alloc(kBfcAlignment, RoundUp(num_bytes));
}

void HostSubAllocator::Free(void* ptr, size_t) { std::free(ptr); }

absl::StatusOr<std::unique_ptr<BfcAllocator>> BfcAllocator::Create(
    std::unique_ptr<SubAllocator> sub_allocator, BfcAllocatorOptions options) {
  if (sub_allocator == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("allocator ", options.name, ": no sub-allocator"));
  }
  if (options.memory_limit <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("allocator ", options.name,
                     ": memory_limit must be positive, got ",
                     options.memory_limit));
  }
  if (options.initial_region_bytes <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("allocator ", options.name,
                     ": initial_region_bytes must be positive, got ",
                     options.initial_region_bytes));
  }
  return std::unique_ptr<BfcAllocator>(
      new BfcAllocator(std::move(sub_allocator), std::move(options)));
}

BfcAllocator::BfcAllocator(std::unique_ptr<SubAllocator> sub_allocator,
                           BfcAllocatorOptions options)
    : options_(std::move(options)),
      sub_allocator_(std::move(sub_allocator)),
      host_memory_(sub_allocator_->IsHostMemory()) {
  next_region_bytes_ = RoundUp(static_cast<size_t>(
      std::min(options_.initial_region_bytes, options_.memory_limit)));
  stats_.bytes_limit = options_.memory_limit;
}

BfcAllocator::~BfcAllocator() {
  absl::MutexLock lock(&mu_);
  if (!in_use_.empty()) {
    spdlog::error("allocator {}: destroyed with {} allocations ({} bytes) "
                  "still in use",
                  options_.name, in_use_.size(), stats_.bytes_in_use);
  }
  for (const Region& r : regions_) sub_allocator_->Free(r.ptr, r.size);
}

int BfcAllocator::BinFor(size_t size) {
  // size >= 256: bin = floor(log2(size / 256)), capped.
  const size_t units = size / kBfcAlignment;
  int bin = 0;
  for (size_t u = units; u > 1 && bin < kNumBins - 1; u >>= 1) ++bin;
  return bin;
}

BfcAllocator::ChunkHandle BfcAllocator::NewChunkLocked() {
  if (free_handles_ != kNone) {
    const ChunkHandle h = free_handles_;
    free_handles_ = chunks_[h].next;
    chunks_[h] = Chunk();
    return h;
  }
  chunks_.emplace_back();
  return static_cast<ChunkHandle>(chunks_.size() - 1);
}

void BfcAllocator::DeleteChunkLocked(ChunkHandle h) {
  chunks_[h] = Chunk();
  chunks_[h].next = free_handles_;
  free_handles_ = h;
  --stats_.num_chunks;
}

void BfcAllocator::InsertFreeLocked(ChunkHandle h) {
  const Chunk& c = chunks_[h];
  bins_[BinFor(c.size)].emplace(c.size, reinterpret_cast<uintptr_t>(c.ptr), h);
  ++stats_.num_free_chunks;
}

void BfcAllocator::RemoveFreeLocked(ChunkHandle h) {
  const Chunk& c = chunks_[h];
  const size_t erased = bins_[BinFor(c.size)].erase(
      BinEntry(c.size, reinterpret_cast<uintptr_t>(c.ptr), h));
  DFX_CHECK(erased == 1);
  --stats_.num_free_chunks;
}

BfcAllocator::ChunkHandle BfcAllocator::FindFitLocked(size_t rounded) {
  // Bins below BinFor(rounded) hold only smaller chunks; within a bin the
  // set is ordered by size, so the first entry not below `rounded` is the
  // best fit of that bin, and the first bin with one has the best overall.
  for (int b = BinFor(rounded); b < kNumBins; ++b) {
    auto it = bins_[b].lower_bound(BinEntry(rounded, 0, kNone));
    if (it != bins_[b].end()) return std::get<2>(*it);
  }
  return kNone;
}

bool BfcAllocator::ExtendLocked(size_t rounded) {
  const size_t limit = static_cast<size_t>(options_.memory_limit);
  const size_t reserved = static_cast<size_t>(stats_.bytes_reserved);
  const size_t room = reserved >= limit ? 0 : (limit - reserved) /
                                                  kBfcAlignment * kBfcAlignment;
  if (rounded > room) return false;
  size_t want = options_.allow_growth ? std::max(next_region_bytes_, rounded)
                                      : room;
  want = std::min(want, room);
  // A sub-allocator short of memory gets asked for less, down to the
  // request itself.
  void* p = nullptr;
  while (true) {
    p = sub_allocator_->Alloc(want);
    if (p != nullptr || want == rounded) break;
    want = std::max(rounded, want / 2 / kBfcAlignment * kBfcAlignment);
  }
  if (p == nullptr) return false;
  if (options_.allow_growth) {
    next_region_bytes_ = std::max(next_region_bytes_, want * 2);
  }
  const ChunkHandle h = NewChunkLocked();
  ++stats_.num_chunks;
  Region region;
  region.ptr = static_cast<char*>(p);
  region.size = want;
  region.first = h;
  Chunk& c = chunks_[h];
  c.ptr = region.ptr;
  c.size = want;
  c.region = static_cast<int32_t>(regions_.size());
  regions_.push_back(region);
  stats_.bytes_reserved += static_cast<int64_t>(want);
  stats_.num_regions = static_cast<int64_t>(regions_.size());
  InsertFreeLocked(h);
  return true;
}

void BfcAllocator::MergeWithNextLocked(ChunkHandle h) {
  const ChunkHandle n = chunks_[h].next;
  DFX_CHECK(n != kNone && !chunks_[n].in_use && !chunks_[h].in_use);
  chunks_[h].size += chunks_[n].size;
  chunks_[h].next = chunks_[n].next;
  if (chunks_[n].next != kNone) chunks_[chunks_[n].next].prev = h;
  DeleteChunkLocked(n);
}

int64_t BfcAllocator::LargestFreeChunkLocked() const {
  for (int b = kNumBins - 1; b >= 0; --b) {
    if (!bins_[b].empty()) {
      return static_cast<int64_t>(std::get<0>(*bins_[b].rbegin()));
    }
  }
  return 0;
}

absl::StatusOr<void*> BfcAllocator::Allocate(size_t num_bytes) {
  if (num_bytes > static_cast<size_t>(options_.memory_limit)) {
    absl::MutexLock lock(&mu_);
    return absl::ResourceExhaustedError(absl::StrCat(
        "out of memory in allocator ", options_.name, ": cannot allocate ",
        num_bytes, " bytes, more than its limit of ", options_.memory_limit,
        " bytes (", stats_.bytes_in_use, " bytes in use)"));
  }
  const size_t rounded = RoundUp(num_bytes);
  absl::MutexLock lock(&mu_);
  ChunkHandle h = FindFitLocked(rounded);
  if (h == kNone && ExtendLocked(rounded)) h = FindFitLocked(rounded);
  if (h == kNone) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "out of memory in allocator ", options_.name, ": cannot allocate ",
        num_bytes, " bytes (", rounded, " rounded) with ",
        stats_.bytes_in_use, " bytes in use of a limit of ",
        options_.memory_limit, " bytes; ", stats_.bytes_reserved,
        " bytes reserved in ", stats_.num_regions,
        " regions, largest free chunk ", LargestFreeChunkLocked(),
        " bytes (from ", sub_allocator_->Name(), ")"));
  }
  RemoveFreeLocked(h);
  // Split off the rest as a free chunk of its own. Its successor, if any,
  // is in use (free neighbours are always merged), so no merge is needed.
  if (chunks_[h].size - rounded >= kBfcAlignment) {
    const ChunkHandle rest = NewChunkLocked();  // may move chunks_
    ++stats_.num_chunks;
    Chunk& c = chunks_[h];
    Chunk& r = chunks_[rest];
    r.ptr = c.ptr + rounded;
    r.size = c.size - rounded;
    r.region = c.region;
    r.prev = h;
    r.next = c.next;
    if (c.next != kNone) chunks_[c.next].prev = rest;
    c.next = rest;
    c.size = rounded;
    InsertFreeLocked(rest);
  }
  Chunk& c = chunks_[h];
  c.in_use = true;
  c.requested = num_bytes;
  in_use_[c.ptr] = h;
  ++stats_.num_allocs;
  stats_.bytes_in_use += static_cast<int64_t>(c.size);
  stats_.peak_bytes_in_use =
      std::max(stats_.peak_bytes_in_use, stats_.bytes_in_use);
  stats_.largest_alloc_size =
      std::max(stats_.largest_alloc_size, static_cast<int64_t>(num_bytes));
  return static_cast<void*>(c.ptr);
}

void BfcAllocator::Deallocate(void* ptr) {
  if (ptr == nullptr) return;
  absl::MutexLock lock(&mu_);
  auto it = in_use_.find(ptr);
  if (it == in_use_.end()) {
    spdlog::error("allocator {}: free of {} which it did not allocate "
                  "(or freed already); ignored",
                  options_.name, ptr);
    return;
  }
  ChunkHandle h = it->second;
  in_use_.erase(it);
  chunks_[h].in_use = false;
  chunks_[h].requested = 0;
  stats_.bytes_in_use -= static_cast<int64_t>(chunks_[h].size);
  const ChunkHandle next = chunks_[h].next;
  if (next != kNone && !chunks_[next].in_use) {
    RemoveFreeLocked(next);
    MergeWithNextLocked(h);
  }
  const ChunkHandle prev = chunks_[h].prev;
  if (prev != kNone && !chunks_[prev].in_use) {
    RemoveFreeLocked(prev);
    MergeWithNextLocked(prev);
    h = prev;
  }
  InsertFreeLocked(h);
}

void* BfcAllocator::AllocateRaw(size_t alignment, size_t num_bytes) {
  if (alignment > kBfcAlignment) {
    spdlog::error("allocator {}: alignment {} above {} is not supported",
                  options_.name, alignment, kBfcAlignment);
    return nullptr;
  }
  absl::StatusOr<void*> p = Allocate(num_bytes);
  return p.ok() ? *p : nullptr;
}

void BfcAllocator::DeallocateRaw(void* ptr, size_t) { Deallocate(ptr); }

AllocatorStats BfcAllocator::GetStats() const {
  absl::MutexLock lock(&mu_);
  AllocatorStats s;
  s.num_allocs = stats_.num_allocs;
  s.bytes_in_use = stats_.bytes_in_use;
  s.peak_bytes_in_use = stats_.peak_bytes_in_use;
  s.largest_alloc_size = stats_.largest_alloc_size;
  return s;
}

BfcStats BfcAllocator::GetBfcStats() const {
  absl::MutexLock lock(&mu_);
  BfcStats s = stats_;
  s.largest_free_chunk = LargestFreeChunkLocked();
  return s;
}

size_t BfcAllocator::RequestedSize(const void* ptr) const {
  absl::MutexLock lock(&mu_);
  auto it = in_use_.find(ptr);
  return it == in_use_.end() ? 0 : chunks_[it->second].requested;
}

absl::Status BfcAllocator::CheckInvariants() const {
  absl::MutexLock lock(&mu_);
  auto fail = [&](auto&&... parts) {
    return absl::InternalError(
        absl::StrCat("allocator ", options_.name, ": ", parts...));
  };
  int64_t chunks = 0, free_chunks = 0, in_use_bytes = 0, reserved = 0;
  for (size_t r = 0; r < regions_.size(); ++r) {
    const Region& region = regions_[r];
    reserved += static_cast<int64_t>(region.size);
    char* expect = region.ptr;
    ChunkHandle prev = kNone;
    bool prev_free = false;
    for (ChunkHandle h = region.first; h != kNone; h = chunks_[h].next) {
      const Chunk& c = chunks_[h];
      ++chunks;
      if (c.ptr != expect) return fail("region ", r, " has a gap at ", h);
      if (c.prev != prev) return fail("chunk ", h, " has a wrong prev");
      if (c.region != static_cast<int32_t>(r)) {
        return fail("chunk ", h, " names region ", c.region, " not ", r);
      }
      if (c.size == 0 || c.size % kBfcAlignment != 0) {
        return fail("chunk ", h, " has size ", c.size);
      }
      if (c.in_use) {
        in_use_bytes += static_cast<int64_t>(c.size);
        auto it = in_use_.find(c.ptr);
        if (it == in_use_.end() || it->second != h) {
          return fail("chunk ", h, " in use but not in the in-use map");
        }
        if (c.requested > c.size) return fail("chunk ", h, " too small");
      } else {
        ++free_chunks;
        if (prev_free) return fail("free chunks ", prev, " and ", h,
                                   " are neighbours");
        if (bins_[BinFor(c.size)].count(BinEntry(
                c.size, reinterpret_cast<uintptr_t>(c.ptr), h)) != 1) {
          return fail("free chunk ", h, " is not in bin ", BinFor(c.size));
        }
      }
      prev_free = !c.in_use;
      prev = h;
      expect = c.ptr + c.size;
    }
    if (expect != region.ptr + region.size) {
      return fail("region ", r, " is not covered by its chunks");
    }
  }
  int64_t binned = 0;
  for (const auto& bin : bins_) binned += static_cast<int64_t>(bin.size());
  if (binned != free_chunks || free_chunks != stats_.num_free_chunks) {
    return fail(binned, " chunks in bins, ", free_chunks, " free chunks, ",
                stats_.num_free_chunks, " counted");
  }
  if (chunks != stats_.num_chunks) {
    return fail(chunks, " chunks, ", stats_.num_chunks, " counted");
  }
  if (in_use_bytes != stats_.bytes_in_use ||
      static_cast<int64_t>(in_use_.size()) != chunks - free_chunks) {
    return fail(in_use_bytes, " bytes in use, ", stats_.bytes_in_use,
                " counted");
  }
  if (reserved != stats_.bytes_reserved ||
      reserved > options_.memory_limit) {
    return fail(reserved, " bytes reserved, ", stats_.bytes_reserved,
                " counted, limit ", options_.memory_limit);
  }
  return absl::OkStatus();
}

}  // namespace dfx

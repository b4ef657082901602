// The BFC arena allocator (runtime/bfc_allocator.h) over host memory: best
// fit, splitting and coalescing checked against a model of the live
// allocations, growth by regions, the limit and its error message.
#include "runtime/bfc_allocator.h"

#include <atomic>
#include <cstring>
#include <map>
#include <random>
#include <thread>
#include <vector>

#include "catch2/catch.hpp"
#include "runtime/tensor.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::IsOk;
using testing::StatusIs;

constexpr int64_t kKiB = 1024;
constexpr int64_t kMiB = 1024 * 1024;

// Host memory that records every region and refuses regions above
// `max_region` bytes, to see how the allocator grows.
class RecordingSubAllocator final : public SubAllocator {
 public:
  explicit RecordingSubAllocator(std::vector<size_t>* regions,
                                 size_t max_region = SIZE_MAX)
      : regions_(regions), max_region_(max_region) {}
  std::string Name() const override { return "test-host"; }
  void* Alloc(size_t num_bytes) override {
    if (num_bytes > max_region_) return nullptr;
    regions_->push_back(num_bytes);
    return host_.Alloc(num_bytes);
  }
  void Free(void* ptr, size_t num_bytes) override { host_.Free(ptr, num_bytes); }

 private:
  std::vector<size_t>* regions_;
  size_t max_region_;
  HostSubAllocator host_;
};

std::unique_ptr<BfcAllocator> MakeBfc(int64_t limit, bool allow_growth,
                                      int64_t initial = 2 * kMiB,
                                      std::vector<size_t>* regions = nullptr,
                                      size_t max_region = SIZE_MAX) {
  BfcAllocatorOptions options;
  options.name = "test_bfc";
  options.memory_limit = limit;
  options.allow_growth = allow_growth;
  options.initial_region_bytes = initial;
  std::unique_ptr<SubAllocator> sub;
  if (regions != nullptr) {
    sub = std::make_unique<RecordingSubAllocator>(regions, max_region);
  } else {
    sub = std::make_unique<HostSubAllocator>();
  }
  auto bfc = BfcAllocator::Create(std::move(sub), options);
  REQUIRE_OK(bfc);
  return std::move(bfc).value();
}

void* Alloc(BfcAllocator& bfc, size_t n) {
  absl::StatusOr<void*> p = bfc.Allocate(n);
  REQUIRE_OK(p);
  return *p;
}

// The live allocations, by start address: a new one must not overlap any.
class Model {
 public:
  void Add(void* p, size_t n, uint8_t tag) {
    const auto start = reinterpret_cast<uintptr_t>(p);
    REQUIRE(start % kBfcAlignment == 0);
    const size_t len = std::max<size_t>(n, 1);
    auto after = live_.lower_bound(start);
    if (after != live_.end()) REQUIRE(start + len <= after->first);
    if (after != live_.begin()) {
      auto before = std::prev(after);
      REQUIRE(before->first + before->second.first <= start);
    }
    live_[start] = {len, tag};
    // Mark the first and last byte: an overlapping writer would change them.
    static_cast<uint8_t*>(p)[0] = tag;
    static_cast<uint8_t*>(p)[len - 1] = tag;
  }
  void Remove(void* p) {
    auto it = live_.find(reinterpret_cast<uintptr_t>(p));
    REQUIRE(it != live_.end());
    const auto [len, tag] = it->second;
    CHECK(static_cast<uint8_t*>(p)[0] == tag);
    CHECK(static_cast<uint8_t*>(p)[len - 1] == tag);
    live_.erase(it);
  }

 private:
  std::map<uintptr_t, std::pair<size_t, uint8_t>> live_;
};

TEST_CASE("bfc: random allocations never overlap and free back to one chunk "
          "per region") {
  for (const bool growth : {true, false}) {
    INFO("allow_growth " << growth);
    auto bfc = MakeBfc(64 * kMiB, growth, 256 * kKiB);
    std::mt19937 rng(growth ? 7 : 11);
    Model model;
    std::vector<std::pair<void*, size_t>> live;
    for (int step = 0; step < 4000; ++step) {
      const bool alloc = live.empty() || rng() % 100 < 55;
      if (alloc) {
        // Mostly small, sometimes large, sometimes zero bytes.
        const uint32_t kind = rng() % 10;
        const size_t n = kind == 0   ? 0
                         : kind < 7 ? rng() % 4096
                                    : rng() % (512 * kKiB);
        void* p = Alloc(*bfc, n);
        model.Add(p, n, static_cast<uint8_t>(step));
        CHECK(bfc->RequestedSize(p) == n);
        live.emplace_back(p, n);
      } else {
        const size_t i = rng() % live.size();
        model.Remove(live[i].first);
        bfc->Deallocate(live[i].first);
        live[i] = live.back();
        live.pop_back();
      }
      if (step % 250 == 0) REQUIRE_THAT(bfc->CheckInvariants(), IsOk());
    }
    for (auto& [p, n] : live) {
      model.Remove(p);
      bfc->Deallocate(p);
    }
    REQUIRE_THAT(bfc->CheckInvariants(), IsOk());
    const BfcStats stats = bfc->GetBfcStats();
    CHECK(stats.bytes_in_use == 0);
    CHECK(stats.num_regions >= 1);
    CHECK(stats.num_chunks == stats.num_regions);
    CHECK(stats.num_free_chunks == stats.num_regions);
    CHECK(stats.peak_bytes_in_use > 0);
    CHECK(stats.bytes_reserved <= 64 * kMiB);
    if (!growth) CHECK(stats.num_regions == 1);
  }
}

TEST_CASE("bfc: best fit takes the smallest free chunk that fits") {
  auto bfc = MakeBfc(1 * kMiB, /*allow_growth=*/false);
  // Free chunks of 3, 1 and 2 KiB, each kept apart by a chunk in use.
  void* a = Alloc(*bfc, 3 * kKiB);
  void* sep1 = Alloc(*bfc, 256);
  void* b = Alloc(*bfc, 1 * kKiB);
  void* sep2 = Alloc(*bfc, 256);
  void* c = Alloc(*bfc, 2 * kKiB);
  void* sep3 = Alloc(*bfc, 256);
  bfc->Deallocate(a);
  bfc->Deallocate(b);
  bfc->Deallocate(c);
  REQUIRE_THAT(bfc->CheckInvariants(), IsOk());
  // 1.5 KiB fits in 3 and 2 KiB: the 2 KiB chunk is the best fit.
  void* p = Alloc(*bfc, 1536);
  CHECK(p == c);
  // 1 KiB exactly fits the 1 KiB chunk.
  void* q = Alloc(*bfc, 1 * kKiB);
  CHECK(q == b);
  // The 3 KiB chunk is split: 1 KiB from its start, then 2 KiB right after.
  void* r = Alloc(*bfc, 1 * kKiB);
  CHECK(r == a);
  void* s = Alloc(*bfc, 2 * kKiB);
  CHECK(s == static_cast<char*>(a) + 1 * kKiB);
  for (void* x : {p, q, r, s, sep1, sep2, sep3}) bfc->Deallocate(x);
  REQUIRE_THAT(bfc->CheckInvariants(), IsOk());
  CHECK(bfc->GetBfcStats().num_chunks == 1);
}

TEST_CASE("bfc: fragmented free memory does not serve a large request until "
          "neighbours coalesce") {
  auto bfc = MakeBfc(1 * kMiB, /*allow_growth=*/false);
  void* c[4];
  for (void*& p : c) p = Alloc(*bfc, 256 * kKiB);
  CHECK(bfc->GetBfcStats().largest_free_chunk == 0);
  // Half the memory is free, but in two 256 KiB pieces.
  bfc->Deallocate(c[0]);
  bfc->Deallocate(c[2]);
  BfcStats stats = bfc->GetBfcStats();
  CHECK(stats.bytes_in_use == 512 * kKiB);
  CHECK(stats.largest_free_chunk == 256 * kKiB);
  REQUIRE_THAT(bfc->Allocate(512 * kKiB).status(),
               StatusIs(absl::StatusCode::kResourceExhausted,
                        "largest free chunk 262144 bytes"));
  // Freeing the chunk between them merges all three.
  bfc->Deallocate(c[1]);
  stats = bfc->GetBfcStats();
  CHECK(stats.largest_free_chunk == 768 * kKiB);
  CHECK(stats.num_free_chunks == 1);
  void* big = Alloc(*bfc, 512 * kKiB);
  CHECK(big == c[0]);
  bfc->Deallocate(big);
  bfc->Deallocate(c[3]);
  REQUIRE_THAT(bfc->CheckInvariants(), IsOk());
  CHECK(bfc->GetBfcStats().num_chunks == 1);
}

TEST_CASE("bfc: allow_growth starts small and doubles, without it the limit "
          "is reserved at once") {
  SECTION("growth") {
    std::vector<size_t> regions;
    auto bfc = MakeBfc(8 * kMiB, true, 1 * kMiB, &regions);
    CHECK(regions.empty());  // nothing before the first allocation
    void* a = Alloc(*bfc, 512 * kKiB);
    REQUIRE(regions == std::vector<size_t>{size_t(1 * kMiB)});
    void* b = Alloc(*bfc, 512 * kKiB);  // still fits the first region
    CHECK(regions.size() == 1);
    void* c = Alloc(*bfc, 1 * kMiB);    // a second region, twice the first
    REQUIRE(regions == std::vector<size_t>{size_t(1 * kMiB), size_t(2 * kMiB)});
    // A request larger than the next step gets a region of its own size,
    // capped by what the limit leaves (8 - 3 = 5 MiB).
    void* d = Alloc(*bfc, 5 * kMiB);
    REQUIRE(regions.size() == 3);
    CHECK(regions[2] == size_t(5 * kMiB));
    const BfcStats stats = bfc->GetBfcStats();
    CHECK(stats.num_regions == 3);
    CHECK(stats.bytes_reserved == 8 * kMiB);
    // The 1 MiB left in region 2 serves one more; then nothing is free and
    // the limit allows no new region: even 1 KiB fails.
    void* e = Alloc(*bfc, 1 * kMiB);
    REQUIRE_THAT(bfc->Allocate(1 * kKiB).status(),
                 StatusIs(absl::StatusCode::kResourceExhausted));
    for (void* p : {a, b, c, d, e}) bfc->Deallocate(p);
    REQUIRE_THAT(bfc->CheckInvariants(), IsOk());
    CHECK(bfc->GetBfcStats().num_free_chunks == 3);
  }
  SECTION("no growth") {
    std::vector<size_t> regions;
    auto bfc = MakeBfc(8 * kMiB, false, 1 * kMiB, &regions);
    void* a = Alloc(*bfc, 256);
    REQUIRE(regions == std::vector<size_t>{size_t(8 * kMiB)});
    void* b = Alloc(*bfc, 7 * kMiB);
    CHECK(regions.size() == 1);
    bfc->Deallocate(a);
    bfc->Deallocate(b);
  }
  SECTION("a sub-allocator short of memory is asked for less") {
    std::vector<size_t> regions;
    auto bfc = MakeBfc(8 * kMiB, false, 1 * kMiB, &regions,
                       /*max_region=*/3 * kMiB);
    void* a = Alloc(*bfc, 1 * kMiB);
    REQUIRE(regions == std::vector<size_t>{size_t(2 * kMiB)});
    REQUIRE_THAT(bfc->Allocate(4 * kMiB).status(),
                 StatusIs(absl::StatusCode::kResourceExhausted, "test-host"));
    bfc->Deallocate(a);
  }
}

TEST_CASE("bfc: beyond the limit is ResourceExhausted naming the size, the "
          "limit and the bytes in use") {
  auto bfc = MakeBfc(1 * kMiB, true, 256 * kKiB);
  void* a = Alloc(*bfc, 600 * kKiB);
  absl::Status s = bfc->Allocate(600 * kKiB).status();
  REQUIRE_THAT(s, StatusIs(absl::StatusCode::kResourceExhausted,
                           "cannot allocate 614400 bytes"));
  CHECK_THAT(std::string(s.message()),
             Catch::Contains("test_bfc") &&
                 Catch::Contains("614400 bytes in use") &&
                 Catch::Contains("limit of 1048576 bytes"));
  // More than the whole limit, and the largest size_t: errors too.
  REQUIRE_THAT(bfc->Allocate(2 * kMiB).status(),
               StatusIs(absl::StatusCode::kResourceExhausted,
                        "more than its limit of 1048576 bytes"));
  REQUIRE_THAT(bfc->Allocate(SIZE_MAX).status(),
               StatusIs(absl::StatusCode::kResourceExhausted));
  // AllocateRaw answers null instead; the allocator still works.
  CHECK(bfc->AllocateRaw(64, 2 * kMiB) == nullptr);
  CHECK(bfc->AllocateRaw(1024, 16) == nullptr);  // alignment above 256
  void* b = bfc->AllocateRaw(64, 100 * kKiB);
  REQUIRE(b != nullptr);
  const AllocatorStats stats = bfc->GetStats();
  CHECK(stats.bytes_in_use == 700 * kKiB);
  CHECK(stats.largest_alloc_size == 600 * kKiB);
  bfc->DeallocateRaw(b, 100 * kKiB);
  bfc->Deallocate(a);
  // A pointer it never gave out is ignored, not a crash.
  int not_ours = 0;
  bfc->Deallocate(&not_ours);
  REQUIRE_THAT(bfc->CheckInvariants(), IsOk());
  CHECK(bfc->GetStats().bytes_in_use == 0);
}

TEST_CASE("bfc: a tensor that does not fit is ResourceExhausted naming the "
          "arena's own limit") {
  auto bfc = MakeBfc(1 * kMiB, /*allow_growth=*/false);
  {
    auto fits = Tensor::Allocate(bfc.get(), DT_FLOAT, TensorShape({1000}));
    REQUIRE_OK(fits);
    CHECK(fits->raw_data() != nullptr);
    CHECK(bfc->GetStats().bytes_in_use == 4096);  // 4000 rounded up to 256s
    auto big =
        Tensor::Allocate(bfc.get(), DT_FLOAT, TensorShape({512, 1024}));
    REQUIRE_THAT(big.status(),
                 StatusIs(absl::StatusCode::kResourceExhausted,
                          "out of memory allocating 2097152 bytes"));
    CHECK_THAT(std::string(big.status().message()),
               Catch::Contains("from allocator test_bfc: 4096 bytes in use") &&
                   Catch::Contains("of a limit of 1048576") &&
                   !Catch::Contains("--memory-limit"));
  }
  // The tensor's buffer went back to the arena.
  CHECK(bfc->GetStats().bytes_in_use == 0);
}

TEST_CASE("bfc: bad options are InvalidArgument") {
  BfcAllocatorOptions options;
  options.name = "bad";
  options.memory_limit = 0;
  REQUIRE_THAT(BfcAllocator::Create(std::make_unique<HostSubAllocator>(),
                                    options)
                   .status(),
               StatusIs(absl::StatusCode::kInvalidArgument, "memory_limit"));
  options.memory_limit = kMiB;
  options.initial_region_bytes = -1;
  REQUIRE_THAT(BfcAllocator::Create(std::make_unique<HostSubAllocator>(),
                                    options)
                   .status(),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "initial_region_bytes"));
}

TEST_CASE("bfc: threads allocating and freeing at once leave a consistent "
          "arena") {
  auto bfc = MakeBfc(256 * kMiB, true, 1 * kMiB);
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 rng(t);
      std::vector<std::pair<uint8_t*, size_t>> mine;
      for (int i = 0; i < 3000; ++i) {
        if (mine.empty() || rng() % 2 == 0) {
          const size_t n = 1 + rng() % (64 * kKiB);
          absl::StatusOr<void*> p = bfc->Allocate(n);
          if (!p.ok()) {
            failures++;
            continue;
          }
          auto* bytes = static_cast<uint8_t*>(*p);
          std::memset(bytes, t + 1, n);
          mine.emplace_back(bytes, n);
        } else {
          const size_t k = rng() % mine.size();
          auto [bytes, n] = mine[k];
          // No other thread wrote into this allocation.
          if (bytes[0] != t + 1 || bytes[n - 1] != t + 1) failures++;
          bfc->Deallocate(bytes);
          mine[k] = mine.back();
          mine.pop_back();
        }
      }
      for (auto [bytes, n] : mine) bfc->Deallocate(bytes);
    });
  }
  for (auto& th : threads) th.join();
  CHECK(failures.load() == 0);
  REQUIRE_THAT(bfc->CheckInvariants(), IsOk());
  const BfcStats stats = bfc->GetBfcStats();
  CHECK(stats.bytes_in_use == 0);
  CHECK(stats.num_chunks == stats.num_regions);
}

}  // namespace
}  // namespace dfx

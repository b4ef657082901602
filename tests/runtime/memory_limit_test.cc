// The host memory limit (runtime/memory_limit.h): allocations beyond it
// fail with a clear error and leave the process serving; byte sizes parse;
// request ids are remembered (runtime/recent_request_ids.h).
#include "runtime/memory_limit.h"

#include "absl/strings/match.h"
#include "catch2/catch.hpp"
#include "runtime/allocator.h"
#include "runtime/recent_request_ids.h"
#include "runtime/tensor.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using ::dfx::testing::StatusIs;

// Sets a limit for one test and lifts it after.
class ScopedLimit {
 public:
  explicit ScopedLimit(int64_t bytes) : previous_(HostMemoryLimit()) {
    SetHostMemoryLimit(bytes);
  }
  ~ScopedLimit() { SetHostMemoryLimit(previous_); }

 private:
  int64_t previous_;
};

TEST_CASE("an allocation beyond the host memory limit is ResourceExhausted "
          "with the size, the use and the limit") {
  const int64_t in_use = CpuAllocator()->GetStats().bytes_in_use;
  ScopedLimit limit(in_use + (int64_t{8} << 20));
  {
    auto fits = Tensor::Allocate(CpuAllocator(), DT_FLOAT,
                                 TensorShape({1 << 20}));  // 4 MiB
    REQUIRE_OK(fits.status());
    auto too_big = Tensor::Allocate(CpuAllocator(), DT_FLOAT,
                                    TensorShape({2 << 20}));  // 8 MiB more
    CHECK_THAT(too_big.status(),
               StatusIs(absl::StatusCode::kResourceExhausted,
                        "out of memory allocating 8388608 bytes"));
    CHECK(absl::StrContains(too_big.status().message(),
                            "bytes in use of a limit of"));
    // The refused bytes were not counted: what fits still fits.
    auto small = Tensor::Allocate(CpuAllocator(), DT_FLOAT,
                                  TensorShape({1 << 19}));  // 2 MiB
    REQUIRE_OK(small.status());
  }
  // Freed bytes come back.
  auto again = Tensor::Allocate(CpuAllocator(), DT_FLOAT,
                                TensorShape({(2 << 20) - 1024}));
  REQUIRE_OK(again.status());
}

TEST_CASE("the Tensor constructor that cannot fail is never refused by the "
          "limit") {
  ScopedLimit limit(1);
  Tensor t(DT_FLOAT, TensorShape({1024}));
  CHECK(t.NumElements() == 1024);
  CHECK_FALSE(Tensor::Allocate(CpuAllocator(), DT_FLOAT, TensorShape({1024}))
                  .ok());
}

TEST_CASE("a string TensorProto padded past the memory limit is "
          "ResourceExhausted before its strings are made") {
  // Four elements' worth of proto pads out to 2^20 copies of a 1 KiB value:
  // 1 GiB of heap strings the allocator never sees.
  TensorProto proto;
  proto.set_dtype(DT_STRING);
  proto.mutable_tensor_shape()->add_dim()->set_size(1 << 20);
  // (assign, not add_string_val("a"): g++ 12 warns falsely on the latter.)
  proto.add_string_val()->assign(1, 'a');
  proto.add_string_val()->assign(1024, 'x');
  const int64_t in_use = CpuAllocator()->GetStats().bytes_in_use;
  {
    ScopedLimit limit(in_use + (int64_t{64} << 20));
    auto t = Tensor::FromProto(proto);
    CHECK_THAT(t.status(),
               StatusIs(absl::StatusCode::kResourceExhausted,
                        "1048574 copies of a 1024-byte value"));
    CHECK(absl::StrContains(t.status().message(), "--memory-limit"));
  }
  // Small enough to fit: padded as TensorFlow pads.
  proto.mutable_tensor_shape()->mutable_dim(0)->set_size(1000);
  ScopedLimit limit(in_use + (int64_t{64} << 20));
  auto t = Tensor::FromProto(proto);
  REQUIRE_OK(t.status());
  CHECK(t->data<std::string>()[0] == "a");
  CHECK(t->data<std::string>()[999] == std::string(1024, 'x'));
}

TEST_CASE("the default host memory limit is a share of physical memory") {
  const int64_t def = DefaultHostMemoryLimit();
  CHECK(def > (int64_t{64} << 20));
  CHECK(def < (int64_t{1} << 50));
}

TEST_CASE("byte sizes parse with binary units") {
  CHECK(*ParseByteSize("--memory-limit", "0") == 0);
  CHECK(*ParseByteSize("--memory-limit", "1234") == 1234);
  CHECK(*ParseByteSize("--memory-limit", "16G") == (int64_t{16} << 30));
  CHECK(*ParseByteSize("--memory-limit", "512MiB") == (int64_t{512} << 20));
  CHECK(*ParseByteSize("--memory-limit", "4kb") == 4096);
  CHECK(*ParseByteSize("--memory-limit", "2T") == (int64_t{2} << 40));
  for (const char* bad : {"", "G", "-1", "1.5G", "12X", "99999999999T",
                          "abc"}) {
    INFO(bad);
    CHECK_THAT(ParseByteSize("--memory-limit", bad).status(),
               StatusIs(absl::StatusCode::kInvalidArgument, "--memory-limit"));
  }
}

TEST_CASE("a request id is accepted once among the remembered ones") {
  RecentRequestIds ids(3);
  REQUIRE_OK(ids.TrackUnique(1, "RunStep"));
  CHECK_THAT(ids.TrackUnique(1, "RunStep"),
             StatusIs(absl::StatusCode::kAborted, "RunStep request"));
  // 0: the sender gave none.
  REQUIRE_OK(ids.TrackUnique(0, "RunStep"));
  REQUIRE_OK(ids.TrackUnique(0, "RunStep"));
  REQUIRE_OK(ids.TrackUnique(2, "RunStep"));
  REQUIRE_OK(ids.TrackUnique(3, "RunStep"));
  // 1 is the oldest of three: 4 pushes it out.
  REQUIRE_OK(ids.TrackUnique(4, "RunStep"));
  REQUIRE_OK(ids.TrackUnique(1, "RunStep"));
  CHECK_FALSE(ids.TrackUnique(4, "RunStep").ok());
  CHECK(NewRequestId() > 0);
  CHECK(NewRequestId() != NewRequestId());
}

}  // namespace
}  // namespace dfx

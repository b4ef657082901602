// A hidden benchmark (run with: dfx_checkpoint_tests "[.bench]"): saving and
// restoring one 256 MiB float tensor with BundleWriter/BundleReader, against
// a plain write (with fsync; in place, and to a new file renamed over the
// old one, as BundleWriter does) and read of the same bytes, in one run; and
// CRC32C's throughput. Best of kRuns; the page cache is warm for reads.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>

#include "catch2/catch.hpp"
#include "checkpoint/crc32c.h"
#include "checkpoint/tensor_bundle.h"
#include "tests/checkpoint/checkpoint_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using ::dfx::testing::IsOk;
using ::dfx::testing::TempDir;

constexpr int kRuns = 3;
constexpr int64_t kElements = int64_t{64} << 20;  // 256 MiB of floats

double Seconds(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

TEST_CASE("bench: 256 MiB tensor through a bundle vs plain file I/O",
          "[.bench]") {
  TempDir dir;
  Tensor t(DT_FLOAT, TensorShape({kElements}));
  for (int64_t i = 0; i < kElements; ++i) t.data<float>()[i] = 0.5f * i;
  const size_t bytes = t.TotalBytes();
  const double mib = bytes / double(1 << 20);

  double plain_write = 1e30, atomic_write = 1e30, plain_read = 1e30,
         bundle_write = 1e30, bundle_read = 1e30, crc = 1e30;
  // write(2) of every byte, fsync, close.
  auto write_file = [&](const std::string& path) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    REQUIRE(fd >= 0);
    const char* p = static_cast<const char*>(t.raw_data());
    for (size_t done = 0; done < bytes;) {
      const ssize_t n = ::write(fd, p + done, bytes - done);
      REQUIRE(n > 0);
      done += static_cast<size_t>(n);
    }
    REQUIRE(::fsync(fd) == 0);
    ::close(fd);
  };
  Tensor back(DT_FLOAT, TensorShape({kElements}));
  for (int run = 0; run < kRuns; ++run) {
    const std::string plain = dir / "plain.bin";
    ::unlink(plain.c_str());
    auto start = std::chrono::steady_clock::now();
    write_file(plain);
    plain_write = std::min(plain_write, Seconds(start));

    // As a careful program saves: a new file renamed over the old one.
    start = std::chrono::steady_clock::now();
    write_file(plain + ".tmp");
    REQUIRE(::rename((plain + ".tmp").c_str(), (dir / "atomic.bin").c_str()) ==
            0);
    atomic_write = std::min(atomic_write, Seconds(start));

    start = std::chrono::steady_clock::now();
    {
      const int fd = ::open(plain.c_str(), O_RDONLY);
      char* p = static_cast<char*>(back.raw_data());
      for (size_t done = 0; done < bytes;) {
        const ssize_t n = ::pread(fd, p + done, bytes - done, done);
        REQUIRE(n > 0);
        done += static_cast<size_t>(n);
      }
      ::close(fd);
    }
    plain_read = std::min(plain_read, Seconds(start));

    start = std::chrono::steady_clock::now();
    {
      auto writer = BundleWriter::Create(dir / "model");
      REQUIRE_THAT(writer.status(), IsOk());
      REQUIRE_THAT((*writer)->Add("w", t), IsOk());
      REQUIRE_THAT((*writer)->Finish(), IsOk());
    }
    bundle_write = std::min(bundle_write, Seconds(start));

    start = std::chrono::steady_clock::now();
    {
      auto reader = BundleReader::Open(dir / "model");
      REQUIRE_THAT(reader.status(), IsOk());
      REQUIRE_THAT((*reader)->LookupInto("w", &back), IsOk());
    }
    bundle_read = std::min(bundle_read, Seconds(start));
    REQUIRE(testing::SameTensor(back, t));

    start = std::chrono::steady_clock::now();
    const uint32_t c = crc32c::Value(t.raw_data(), bytes);
    crc = std::min(crc, Seconds(start));
    REQUIRE(c != 0);
  }
  std::printf(
      "256 MiB float tensor, best of %d (MiB/s):\n"
      "  write: plain %.0f, plain to a new file renamed over the old %.0f,\n"
      "         BundleWriter %.0f (%.2fx the plain time)\n"
      "  read:  plain %.0f, BundleReader %.0f (%.2fx the plain time)\n"
      "  crc32c alone: %.0f MiB/s (%s)\n",
      kRuns, mib / plain_write, mib / atomic_write, mib / bundle_write,
      bundle_write / plain_write, mib / plain_read, mib / bundle_read,
      bundle_read / plain_read, mib / crc,
      crc32c::IsHardwareAccelerated() ? "sse4.2" : "table");
}

}  // namespace
}  // namespace dfx

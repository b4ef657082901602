// CRC32C against the published test vectors (RFC 3720 B.4, LevelDB's
// crc32c_test), the hardware and table implementations against each other,
// and the masking of stored checksums.
#include "checkpoint/crc32c.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "catch2/catch.hpp"

namespace dfx {
namespace {

TEST_CASE("crc32c: standard vectors") {
  char buf[32];
  std::memset(buf, 0, sizeof(buf));
  CHECK(crc32c::Value(buf, sizeof(buf)) == 0x8a9136aau);
  CHECK(crc32c::ExtendPortable(0, buf, sizeof(buf)) == 0x8a9136aau);

  std::memset(buf, 0xff, sizeof(buf));
  CHECK(crc32c::Value(buf, sizeof(buf)) == 0x62a8ab43u);

  for (int i = 0; i < 32; ++i) buf[i] = static_cast<char>(i);
  CHECK(crc32c::Value(buf, sizeof(buf)) == 0x46dd794eu);

  for (int i = 0; i < 32; ++i) buf[i] = static_cast<char>(31 - i);
  CHECK(crc32c::Value(buf, sizeof(buf)) == 0x113fdb5cu);

  // An iSCSI SCSI Read (10) command PDU.
  const unsigned char iscsi[48] = {
      0x01, 0xc0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
      0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00,
      0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x18, 0x28, 0x00, 0x00, 0x00,
      0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
  CHECK(crc32c::Value(iscsi, sizeof(iscsi)) == 0xd9963a56u);
  CHECK(crc32c::ExtendPortable(0, iscsi, sizeof(iscsi)) == 0xd9963a56u);

  CHECK(crc32c::Value("123456789", 9) == 0xe3069283u);
  CHECK(crc32c::Value("", 0) == 0u);
}

TEST_CASE("crc32c: Extend continues a checksum") {
  const std::string a = "hello ";
  const std::string b = "world";
  CHECK(crc32c::Value("hello world", 11) ==
        crc32c::Extend(crc32c::Value(a.data(), a.size()), b.data(), b.size()));
  CHECK(crc32c::Value("a", 1) != crc32c::Value("foo", 3));
}

TEST_CASE("crc32c: hardware and table implementations agree") {
  INFO("hardware accelerated: " << crc32c::IsHardwareAccelerated());
  std::vector<unsigned char> data(40000 + 64);
  uint32_t x = 1;
  for (auto& c : data) {
    x = x * 1103515245u + 12345u;
    c = static_cast<unsigned char>(x >> 16);
  }
  // Every alignment and many lengths, across the byte, 8-byte, 32-byte and
  // three-chain (>= 12 KiB) paths.
  for (size_t start = 0; start < 16; ++start) {
    for (size_t n : {0, 1, 3, 4, 7, 8, 9, 31, 32, 33, 63, 100, 1000, 4096,
                     12287, 12288, 12289, 24576 + 100, 40000}) {
      const uint32_t seed = static_cast<uint32_t>(n * 7 + start);
      REQUIRE(crc32c::Extend(seed, data.data() + start, n) ==
              crc32c::ExtendPortable(seed, data.data() + start, n));
    }
  }
}

TEST_CASE("crc32c: Mask and Unmask") {
  const uint32_t crc = crc32c::Value("foo", 3);
  CHECK(crc != crc32c::Mask(crc));
  CHECK(crc != crc32c::Mask(crc32c::Mask(crc)));
  CHECK(crc == crc32c::Unmask(crc32c::Mask(crc)));
  CHECK(crc == crc32c::Unmask(crc32c::Unmask(crc32c::Mask(crc32c::Mask(crc)))));
  // The masked checksum of no bytes, as TensorFlow stores for an empty
  // tensor.
  CHECK(crc32c::Mask(0) == 0xa282ead8u);
}

}  // namespace
}  // namespace dfx

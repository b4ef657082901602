// The LevelDB-format table of a bundle's .index file: what TableBuilder
// writes, Table parses back, and damage is reported as DataLoss naming the
// file.
#include "checkpoint/table.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "catch2/catch.hpp"
#include "checkpoint/crc32c.h"
#include "tests/testing/status_matchers.h"

namespace dfx::table {
namespace {

using ::dfx::testing::IsOk;
using ::dfx::testing::StatusIs;

std::vector<std::pair<std::string, std::string>> SomeEntries(int n) {
  std::vector<std::pair<std::string, std::string>> entries;
  for (int i = 0; i < n; ++i) {
    // Shared prefixes exercise the prefix compression; values of varied
    // sizes, some empty.
    entries.emplace_back(absl::StrCat("layer_", 1000 + i, "/kernel"),
                         std::string(i % 37, static_cast<char>('a' + i % 26)));
  }
  return entries;
}

std::string Build(const std::vector<std::pair<std::string, std::string>>& e,
                  TableOptions options = {}) {
  TableBuilder builder(options);
  for (const auto& [k, v] : e) REQUIRE_THAT(builder.Add(k, v), IsOk());
  return builder.Finish();
}

TEST_CASE("table: entries round-trip through one block and many") {
  const auto entries = SomeEntries(500);
  for (size_t block_size : {size_t{64}, size_t{1000}, size_t{262144}}) {
    TableOptions options;
    options.block_size = block_size;
    const std::string bytes = Build(entries, options);
    auto table = Table::Parse(bytes, "t.index");
    REQUIRE_THAT(table.status(), IsOk());
    CHECK(table->entries() == entries);
    for (const auto& [k, v] : entries) {
      const std::string* found = table->Find(k);
      REQUIRE(found != nullptr);
      CHECK(*found == v);
    }
    CHECK(table->Find("layer_") == nullptr);
    CHECK(table->Find("zzz") == nullptr);
    CHECK(table->Find("") == nullptr);
  }
}

TEST_CASE("table: an empty table and keys with any bytes") {
  auto empty = Table::Parse(Build({}), "e.index");
  REQUIRE_THAT(empty.status(), IsOk());
  CHECK(empty->entries().empty());

  std::vector<std::pair<std::string, std::string>> entries = {
      {"", "header"},
      {std::string("\0a", 2), "nul"},
      {"\xff", "ff"},
      {"\xff\xff\xff", "fff"},
  };
  TableOptions options;
  options.block_size = 1;  // one entry per block: every separator is used
  auto table = Table::Parse(Build(entries, options), "k.index");
  REQUIRE_THAT(table.status(), IsOk());
  CHECK(table->entries() == entries);
}

TEST_CASE("table: keys must be added in increasing order") {
  TableBuilder builder;
  REQUIRE_THAT(builder.Add("b", "1"), IsOk());
  CHECK_THAT(builder.Add("a", "2"),
             StatusIs(absl::StatusCode::kInvalidArgument, "increasing order"));
  CHECK_THAT(builder.Add("b", "2"),
             StatusIs(absl::StatusCode::kInvalidArgument, "increasing order"));
}

TEST_CASE("table: the footer ends with LevelDB's magic number") {
  const std::string bytes = Build(SomeEntries(3));
  REQUIRE(bytes.size() >= kFooterSize);
  const std::string magic = bytes.substr(bytes.size() - 8);
  CHECK(magic == std::string("\x57\xfb\x80\x8b\x24\x75\x47\xdb", 8));
}

TEST_CASE("table: damage is DataLoss naming the file") {
  const std::string good = Build(SomeEntries(200), TableOptions{512, 16});

  SECTION("every flipped byte is caught") {
    // A flip in a block fails its checksum; in the footer, the magic
    // number or a handle. (Padding bytes of the footer are not covered.)
    absl::string_view footer(good.data() + good.size() - kFooterSize,
                             kFooterSize);
    uint64_t unused;
    for (int i = 0; i < 4; ++i) REQUIRE(GetVarint64(&footer, &unused));
    const size_t padding_start = good.size() - 8 - (footer.size() - 8);
    for (size_t i = 0; i < good.size(); i += 7) {
      std::string bad = good;
      bad[i] ^= 0x10;
      auto table = Table::Parse(bad, "/ckpt/model.index");
      if (table.ok()) {
        // Only unused footer padding may be changed harmlessly.
        CHECK(i >= padding_start);
        CHECK(i < good.size() - 8);
        continue;
      }
      CHECK_THAT(table.status(),
                 StatusIs(absl::StatusCode::kDataLoss, "/ckpt/model.index"));
    }
  }
  SECTION("truncated") {
    for (size_t keep :
         {size_t{0}, size_t{10}, good.size() / 2, good.size() - 1}) {
      CHECK_THAT(Table::Parse(good.substr(0, keep), "m.index").status(),
                 StatusIs(absl::StatusCode::kDataLoss, "m.index"));
    }
  }
  SECTION("not a table") {
    CHECK_THAT(Table::Parse(std::string(100, 'x'), "m.index").status(),
               StatusIs(absl::StatusCode::kDataLoss, "bad magic number"));
  }
  SECTION("a compressed block") {
    // Re-type the index block as snappy (type 1), with a valid checksum.
    TableBuilder builder;
    REQUIRE_THAT(builder.Add("k", "v"), IsOk());
    std::string bytes = builder.Finish();
    absl::string_view footer(bytes.data() + bytes.size() - kFooterSize,
                             kFooterSize);
    uint64_t meta_offset, meta_size, index_offset, index_size;
    REQUIRE(GetVarint64(&footer, &meta_offset));
    REQUIRE(GetVarint64(&footer, &meta_size));
    REQUIRE(GetVarint64(&footer, &index_offset));
    REQUIRE(GetVarint64(&footer, &index_size));
    char* block = bytes.data() + index_offset;
    block[index_size] = 1;
    std::string crc;
    PutFixed32(&crc, crc32c::Mask(crc32c::Value(block, index_size + 1)));
    bytes.replace(index_offset + index_size + 1, 4, crc);
    CHECK_THAT(Table::Parse(bytes, "s.index").status(),
               StatusIs(absl::StatusCode::kUnimplemented, "snappy"));
  }
}

}  // namespace
}  // namespace dfx::table

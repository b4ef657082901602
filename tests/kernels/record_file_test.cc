// Tests of kernels/data/record_file.h's RecordWriter: the bytes it writes
// are TensorFlow's. tests/golden/data/tfrecord/*.tfrecord* were
// written by TensorFlow 2.21's TFRecordWriter (tests/golden/gen_tfrecord.py);
// read back and written again by dfx they must come out byte for byte the
// same. (DumpTensor's ZLIB files, written through the same class, are
// compared with TensorFlow's in tests/golden/calib_files_test.cc.)
#include "kernels/data/record_file.h"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace dfx::data {
namespace {

namespace fs = std::filesystem;

const fs::path kGolden = fs::path(DFX_TEST_DATA_DIR) / ".." / "golden" / "data";

std::string FileBytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in.good());
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::vector<std::string> Records(const fs::path& path, Compression c) {
  absl::StatusOr<std::unique_ptr<FileReader>> reader =
      FileReader::Open("test", path.string(), c);
  REQUIRE_OK(reader.status());
  std::vector<std::string> records;
  std::string record;
  for (;;) {
    absl::StatusOr<bool> more = (*reader)->NextRecord(&record);
    REQUIRE_OK(more.status());
    if (!*more) break;
    records.push_back(record);
  }
  return records;
}

TEST_CASE("RecordWriter writes TensorFlow's bytes, compressed or not",
          "[record_file]") {
  const struct {
    const char* file;
    Compression compression;
  } cases[] = {
      {"tfrecord/examples.tfrecord", Compression::kNone},
      {"tfrecord/examples.tfrecord.gz", Compression::kGzip},
      {"tfrecord/examples.tfrecord.zz", Compression::kZlib},
      // Several deflate blocks: zlib's memLevel 8 (its default) gives
      // other bytes than TensorFlow's 9.
      {"tfrecord/large.tfrecord.zz", Compression::kZlib},
  };
  const testing::TempDir tmp;
  for (const auto& c : cases) {
    INFO(c.file);
    const fs::path tf_file = kGolden / c.file;
    const std::vector<std::string> records = Records(tf_file, c.compression);
    CHECK_FALSE(records.empty());
    const std::string out = (fs::path(tmp.path()) / "out").string();
    absl::StatusOr<std::unique_ptr<RecordWriter>> writer =
        RecordWriter::Create("test", out, c.compression);
    REQUIRE_OK(writer.status());
    for (const std::string& r : records) REQUIRE_OK((*writer)->Write(r));
    REQUIRE_OK((*writer)->Close());
    CHECK(FileBytes(out) == FileBytes(tf_file));
  }
}

TEST_CASE(
    "RecordWriter's Flush leaves a ZLIB stream readable so far and "
    "going on",
    "[record_file]") {
  const testing::TempDir tmp;
  const std::string out = (fs::path(tmp.path()) / "f.z").string();
  absl::StatusOr<std::unique_ptr<RecordWriter>> writer =
      RecordWriter::Create("test", out, Compression::kZlib);
  REQUIRE_OK(writer.status());
  REQUIRE_OK((*writer)->Write("first"));
  const size_t before = fs::file_size(out);
  REQUIRE_OK((*writer)->Flush());
  CHECK(fs::file_size(out) > before);
  REQUIRE_OK((*writer)->Flush());  // nothing new: still fine
  REQUIRE_OK((*writer)->Write(std::string(1 << 20, 'x')));
  REQUIRE_OK((*writer)->Close());
  REQUIRE_OK((*writer)->Close());  // a second Close does nothing
  CHECK(Records(out, Compression::kZlib) ==
        std::vector<std::string>{"first", std::string(1 << 20, 'x')});
}

}  // namespace
}  // namespace dfx::data

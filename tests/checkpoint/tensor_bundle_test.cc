// BundleWriter, BundleReader and MergeBundles: every dtype round-trips,
// damaged or missing files give clear errors naming the file and key, a
// failed or abandoned writer leaves nothing behind and never clobbers an
// existing checkpoint, and sharded bundles merge and read back.
#include "checkpoint/tensor_bundle.h"

#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "catch2/catch.hpp"
#include "tests/checkpoint/checkpoint_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using ::dfx::testing::IsOk;
using ::dfx::testing::PatternTensor;
using ::dfx::testing::ReadBytes;
using ::dfx::testing::SameTensor;
using ::dfx::testing::SavableDtypes;
using ::dfx::testing::StatusIs;
using ::dfx::testing::TempDir;
using ::dfx::testing::WriteBytes;

using Named = std::vector<std::pair<std::string, Tensor>>;

absl::Status Write(const std::string& prefix, const Named& tensors,
                   BundleWriter::Options options = {}) {
  DFX_ASSIGN_OR_RETURN(auto writer, BundleWriter::Create(prefix, options));
  for (const auto& [key, t] : tensors) DFX_RETURN_IF_ERROR(writer->Add(key, t));
  return writer->Finish();
}

// Every savable dtype in several shapes: scalar, empty, vector, matrix.
Named AllDtypes() {
  Named out;
  uint32_t seed = 1;
  for (DataType dtype : SavableDtypes()) {
    const std::string name = DataTypeString(dtype);
    out.emplace_back(name + "/scalar",
                     PatternTensor(dtype, TensorShape(), seed++));
    out.emplace_back(name + "/empty",
                     PatternTensor(dtype, TensorShape({0, 3}), seed++));
    out.emplace_back(name + "/vector",
                     PatternTensor(dtype, TensorShape({7}), seed++));
    out.emplace_back(name + "/matrix",
                     PatternTensor(dtype, TensorShape({3, 5}), seed++));
  }
  return out;
}

void ExpectBundle(const std::string& prefix, const Named& expected) {
  auto reader = BundleReader::Open(prefix);
  REQUIRE_THAT(reader.status(), IsOk());
  std::vector<std::string> want_keys;
  for (const auto& [key, t] : expected) want_keys.push_back(key);
  std::sort(want_keys.begin(), want_keys.end());
  CHECK((*reader)->Keys() == want_keys);
  for (const auto& [key, want] : expected) {
    INFO("key " << key);
    CHECK((*reader)->Contains(key));
    DataType dtype;
    TensorShape shape;
    REQUIRE_THAT((*reader)->LookupDtypeAndShape(key, &dtype, &shape), IsOk());
    CHECK(dtype == want.dtype());
    CHECK(shape == want.shape());
    auto got = (*reader)->Lookup(key);
    REQUIRE_THAT(got.status(), IsOk());
    CHECK(SameTensor(*got, want));
  }
}

// The entry of `key` (offset and size in its data file).
BundleEntryProto EntryOf(const std::string& prefix, const std::string& key) {
  auto reader = BundleReader::Open(prefix);
  DFX_CHECK_OK(reader.status());
  auto entry = (*reader)->GetEntry(key);
  DFX_CHECK_OK(entry.status());
  return *entry;
}

TEST_CASE("bundle: every dtype round-trips, scalars, empty tensors, strings") {
  TempDir dir;
  const std::string prefix = dir / "ckpt/model";  // the directory is created
  const Named tensors = AllDtypes();
  REQUIRE_THAT(Write(prefix, tensors), IsOk());
  CHECK(dir.Files() ==
        std::vector<std::string>{"ckpt", "ckpt/model.data-00000-of-00001",
                                 "ckpt/model.index"});
  ExpectBundle(prefix, tensors);

  auto reader = BundleReader::Open(prefix);
  REQUIRE_THAT(reader.status(), IsOk());
  CHECK((*reader)->num_shards() == 1);
  CHECK((*reader)->header().version().producer() == 1);
  CHECK_FALSE((*reader)->Contains("nope"));
  CHECK_FALSE((*reader)->Contains(""));  // the header's key is not a tensor
  CHECK_THAT((*reader)->Lookup("nope").status(),
             StatusIs(absl::StatusCode::kNotFound,
                      "Key nope not found in checkpoint"));
}

TEST_CASE("bundle: strings keep NULs, high bytes, empty and long elements") {
  TempDir dir;
  Tensor s(DT_STRING, TensorShape({5}));
  s.data<std::string>()[0] = "";
  s.data<std::string>()[1] = std::string("a\0b", 3);
  s.data<std::string>()[2] = std::string(100000, '\xff');  // 3-byte varint
  s.data<std::string>()[3] = std::string(1, '\0');
  s.data<std::string>()[4] = "last";
  const Named tensors = {{"s", s},
                         {"scalar", Tensor::Scalar<std::string>("x")},
                         {"none", Tensor(DT_STRING, TensorShape({0}))}};
  REQUIRE_THAT(Write(dir / "m", tensors), IsOk());
  ExpectBundle(dir / "m", tensors);
  // TensorFlow's layout: an empty string tensor still stores the 4-byte
  // checksum of its (no) lengths.
  CHECK(EntryOf(dir / "m", "none").size() == 4);
}

TEST_CASE("bundle: tensors larger than the write buffer, and alignment") {
  TempDir dir;
  const Named tensors = {
      {"big", PatternTensor(DT_FLOAT, TensorShape({3, 1000003}), 9)},
      {"small", PatternTensor(DT_INT8, TensorShape({3}), 10)},
      {"after", PatternTensor(DT_DOUBLE, TensorShape({5}), 11)}};
  BundleWriter::Options options;
  options.data_alignment = 64;
  REQUIRE_THAT(Write(dir / "m", tensors, options), IsOk());
  ExpectBundle(dir / "m", tensors);
  for (const auto& [key, t] : tensors) {
    CHECK(EntryOf(dir / "m", key).offset() % 64 == 0);
  }
}

TEST_CASE("bundle: lookups from many threads at once") {
  TempDir dir;
  const Named tensors = AllDtypes();
  REQUIRE_THAT(Write(dir / "m", tensors), IsOk());
  auto reader = BundleReader::Open(dir / "m");
  REQUIRE_THAT(reader.status(), IsOk());
  std::vector<std::thread> threads;
  std::atomic<int> bad{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int round = 0; round < 20; ++round) {
        for (const auto& [key, want] : tensors) {
          auto got = (*reader)->Lookup(key);
          if (!got.ok() || !SameTensor(*got, want)) bad.fetch_add(1);
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  CHECK(bad.load() == 0);
}

TEST_CASE("bundle: LookupInto checks the caller's dtype and shape") {
  TempDir dir;
  const Tensor value = PatternTensor(DT_FLOAT, TensorShape({2, 3}), 3);
  REQUIRE_THAT(Write(dir / "m", {{"w", value}}), IsOk());
  auto reader = BundleReader::Open(dir / "m");
  REQUIRE_THAT(reader.status(), IsOk());

  Tensor out(DT_FLOAT, TensorShape({2, 3}));
  REQUIRE_THAT((*reader)->LookupInto("w", &out), IsOk());
  CHECK(SameTensor(out, value));

  Tensor wrong_type(DT_INT32, TensorShape({2, 3}));
  CHECK_THAT(
      (*reader)->LookupInto("w", &wrong_type),
      StatusIs(absl::StatusCode::kInvalidArgument, "tensor 'w' in checkpoint"));
  Tensor wrong_shape(DT_FLOAT, TensorShape({3, 2}));
  CHECK_THAT((*reader)->LookupInto("w", &wrong_shape),
             StatusIs(absl::StatusCode::kInvalidArgument, "[2,3]"));
}

TEST_CASE("bundle: a missing checkpoint is NotFound naming the file") {
  TempDir dir;
  CHECK_THAT(BundleReader::Open(dir / "nothing").status(),
             StatusIs(absl::StatusCode::kNotFound, dir / "nothing.index"));

  // An index without its data file: NotFound naming the data file, when a
  // tensor is read.
  REQUIRE_THAT(Write(dir / "m", {{"a", Tensor::Scalar<float>(1)}}), IsOk());
  std::filesystem::remove(dir / "m.data-00000-of-00001");
  auto reader = BundleReader::Open(dir / "m");
  REQUIRE_THAT(reader.status(), IsOk());
  CHECK_THAT((*reader)->Lookup("a").status(),
             StatusIs(absl::StatusCode::kNotFound, "m.data-00000-of-00001"));
}

TEST_CASE("bundle: a truncated data file is DataLoss naming file and key") {
  TempDir dir;
  const Named tensors = {
      {"first", PatternTensor(DT_FLOAT, TensorShape({10}), 1)},
      {"second", PatternTensor(DT_STRING, TensorShape({4}), 2)}};
  REQUIRE_THAT(Write(dir / "m", tensors), IsOk());
  const std::string data = dir / "m.data-00000-of-00001";
  const std::string bytes = ReadBytes(data);
  WriteBytes(data, bytes.substr(0, bytes.size() - 1));
  auto reader = BundleReader::Open(dir / "m");
  REQUIRE_THAT(reader.status(), IsOk());
  // The last tensor in the file is cut; the first is still whole.
  const std::string last = EntryOf(dir / "m", "first").offset() >
                                   EntryOf(dir / "m", "second").offset()
                               ? "first"
                               : "second";
  const std::string other = last == "first" ? "second" : "first";
  CHECK_THAT(
      (*reader)->Lookup(last).status(),
      StatusIs(absl::StatusCode::kDataLoss,
               absl::StrCat("m.data-00000-of-00001 is truncated: tensor '",
                            last, "'")));
  CHECK_THAT((*reader)->Lookup(other).status(), IsOk());
}

TEST_CASE(
    "bundle: a flipped byte in the data file is DataLoss naming the key") {
  TempDir dir;
  for (DataType dtype : {DT_FLOAT, DT_STRING, DT_BOOL}) {
    INFO(DataTypeString(dtype));
    const std::string prefix = dir / DataTypeString(dtype);
    REQUIRE_THAT(
        Write(prefix, {{"w", PatternTensor(dtype, TensorShape({64}), 5)}}),
        IsOk());
    const std::string data = DataFilename(prefix, 0, 1);
    const std::string good = ReadBytes(data);
    // Flip each of several positions in turn: lengths, their checksum and
    // the bytes of a string tensor.
    for (size_t pos :
         {size_t{0}, size_t{1}, good.size() / 2, good.size() - 1}) {
      std::string bad = good;
      bad[pos] ^= 0x01;
      WriteBytes(data, bad);
      auto reader = BundleReader::Open(prefix);
      REQUIRE_THAT(reader.status(), IsOk());
      const absl::Status s = (*reader)->Lookup("w").status();
      CHECK_THAT(s, StatusIs(absl::StatusCode::kDataLoss, "'w'"));
      CHECK_THAT(s, StatusIs(absl::StatusCode::kDataLoss, data));
    }
    WriteBytes(data, good);
    auto reader = BundleReader::Open(prefix);
    CHECK_THAT((*reader)->Lookup("w").status(), IsOk());
  }
}

TEST_CASE("bundle: a corrupt or truncated index is DataLoss naming it") {
  TempDir dir;
  REQUIRE_THAT(Write(dir / "m", AllDtypes()), IsOk());
  const std::string index = dir / "m.index";
  const std::string good = ReadBytes(index);
  std::string flipped = good;
  flipped[good.size() / 3] ^= 0x40;
  WriteBytes(index, flipped);
  CHECK_THAT(BundleReader::Open(dir / "m").status(),
             StatusIs(absl::StatusCode::kDataLoss, index));
  WriteBytes(index, good.substr(0, good.size() - 10));
  CHECK_THAT(BundleReader::Open(dir / "m").status(),
             StatusIs(absl::StatusCode::kDataLoss, index));
  WriteBytes(index, "");
  CHECK_THAT(BundleReader::Open(dir / "m").status(),
             StatusIs(absl::StatusCode::kDataLoss, index));

  // A well-formed table that is not a bundle: no header.
  table::TableBuilder builder;
  REQUIRE_THAT(builder.Add("w", "not an entry"), IsOk());
  WriteBytes(index, builder.Finish());
  CHECK_THAT(BundleReader::Open(dir / "m").status(),
             StatusIs(absl::StatusCode::kDataLoss, "no bundle header"));
}

TEST_CASE("bundle: entries that lie are DataLoss, not crashes") {
  TempDir dir;
  REQUIRE_THAT(Write(dir / "m", {{"w", Tensor::Scalar<float>(1)}}), IsOk());
  BundleHeaderProto header;
  header.set_num_shards(1);
  header.mutable_version()->set_producer(1);
  auto write_entry = [&](const BundleEntryProto& entry) {
    table::TableBuilder builder;
    REQUIRE_THAT(builder.Add("", header.SerializeAsString()), IsOk());
    REQUIRE_THAT(builder.Add("w", entry.SerializeAsString()), IsOk());
    WriteBytes(dir / "m.index", builder.Finish());
  };
  BundleEntryProto entry = EntryOf(dir / "m", "w");

  SECTION("a huge shape") {
    BundleEntryProto e = entry;
    e.mutable_shape()->add_dim()->set_size(int64_t{1} << 40);
    write_entry(e);
    auto reader = BundleReader::Open(dir / "m");
    REQUIRE_THAT(reader.status(), IsOk());
    CHECK_THAT((*reader)->Lookup("w").status(),
               StatusIs(absl::StatusCode::kDataLoss, "Invalid size"));
  }
  SECTION("a size past the end of the file") {
    BundleEntryProto e = entry;
    e.set_dtype(DT_STRING);
    e.set_size(int64_t{1} << 40);
    write_entry(e);
    auto reader = BundleReader::Open(dir / "m");
    REQUIRE_THAT(reader.status(), IsOk());
    CHECK_THAT((*reader)->Lookup("w").status(),
               StatusIs(absl::StatusCode::kDataLoss, "truncated"));
  }
  SECTION("a shard that does not exist") {
    BundleEntryProto e = entry;
    e.set_shard_id(3);
    write_entry(e);
    auto reader = BundleReader::Open(dir / "m");
    REQUIRE_THAT(reader.status(), IsOk());
    CHECK_THAT((*reader)->Lookup("w").status(),
               StatusIs(absl::StatusCode::kDataLoss, "shard 3"));
  }
  SECTION("a dtype a bundle cannot hold") {
    BundleEntryProto e = entry;
    e.set_dtype(DT_RESOURCE);
    write_entry(e);
    auto reader = BundleReader::Open(dir / "m");
    REQUIRE_THAT(reader.status(), IsOk());
    CHECK_THAT((*reader)->Lookup("w").status(),
               StatusIs(absl::StatusCode::kDataLoss, "resource"));
  }
  SECTION("a newer format") {
    header.mutable_version()->set_min_consumer(2);
    write_entry(entry);
    CHECK_THAT(
        BundleReader::Open(dir / "m").status(),
        StatusIs(absl::StatusCode::kInvalidArgument, "min consumer version 2"));
  }
  SECTION("a big-endian bundle") {
    header.set_endianness(BundleHeaderProto::BIG);
    write_entry(entry);
    CHECK_THAT(BundleReader::Open(dir / "m").status(),
               StatusIs(absl::StatusCode::kUnimplemented, "big-endian"));
  }
  SECTION("a partitioned tensor") {
    BundleEntryProto e = entry;
    e.add_slices()->add_extent();
    write_entry(e);
    auto reader = BundleReader::Open(dir / "m");
    REQUIRE_THAT(reader.status(), IsOk());
    CHECK_THAT((*reader)->Lookup("w").status(),
               StatusIs(absl::StatusCode::kUnimplemented, "slices"));
  }
}

TEST_CASE(
    "bundle: a failed writer leaves no files and keeps the old checkpoint") {
  TempDir dir;
  const std::string prefix = dir / "m";
  const Named old_values = {
      {"a", PatternTensor(DT_FLOAT, TensorShape({4}), 1)}};
  REQUIRE_THAT(Write(prefix, old_values), IsOk());
  const std::vector<std::string> files = dir.Files();

  SECTION("a duplicate key") {
    auto writer = BundleWriter::Create(prefix);
    REQUIRE_THAT(writer.status(), IsOk());
    REQUIRE_THAT((*writer)->Add("a", Tensor::Scalar<float>(5)), IsOk());
    CHECK_THAT((*writer)->Add("a", Tensor::Scalar<float>(6)),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "Adding duplicate key: a"));
    // Later calls keep failing, and Finish reports the first error.
    CHECK_THAT((*writer)->Add("b", Tensor::Scalar<float>(6)),
               StatusIs(absl::StatusCode::kInvalidArgument, "duplicate"));
    CHECK_THAT((*writer)->Finish(),
               StatusIs(absl::StatusCode::kInvalidArgument, "duplicate"));
  }
  SECTION("a dtype a checkpoint cannot hold") {
    auto writer = BundleWriter::Create(prefix);
    REQUIRE_THAT(writer.status(), IsOk());
    CHECK_THAT((*writer)->Add("r", Tensor(DT_RESOURCE, TensorShape({1}))),
               StatusIs(absl::StatusCode::kInvalidArgument, "resource"));
    CHECK_FALSE((*writer)->Finish().ok());
  }
  SECTION("the empty key") {
    auto writer = BundleWriter::Create(prefix);
    REQUIRE_THAT(writer.status(), IsOk());
    CHECK_THAT((*writer)->Add("", Tensor::Scalar<float>(1)),
               StatusIs(absl::StatusCode::kInvalidArgument, "empty name"));
  }
  SECTION("abandoned before Finish") {
    auto writer = BundleWriter::Create(prefix);
    REQUIRE_THAT(writer.status(), IsOk());
    REQUIRE_THAT((*writer)->Add("a", Tensor::Scalar<float>(5)), IsOk());
    // While writing, only a temporary data file is new.
    CHECK(dir.Files().size() == files.size() + 1);
  }
  SECTION("a directory where the index goes") {
    // Caught before either file is renamed: nothing of the new checkpoint
    // appears.
    std::filesystem::create_directories(dir / "n.index/x");
    auto writer = BundleWriter::Create(dir / "n");
    REQUIRE_THAT(writer.status(), IsOk());
    REQUIRE_THAT((*writer)->Add("a", Tensor::Scalar<float>(5)), IsOk());
    CHECK_THAT((*writer)->Finish(),
               StatusIs(absl::StatusCode::kFailedPrecondition,
                        "n.index is a directory"));
    writer->reset();
    CHECK(dir.Files() == std::vector<std::string>{"m.data-00000-of-00001",
                                                  "m.index", "n.index",
                                                  "n.index/x"});
    std::filesystem::remove_all(dir / "n.index");
  }
  // The old checkpoint is intact and no temporary file is left.
  CHECK(dir.Files() == files);
  ExpectBundle(prefix, old_values);
}

TEST_CASE("bundle: a new checkpoint replaces an old one at the same prefix") {
  TempDir dir;
  REQUIRE_THAT(Write(dir / "m", {{"a", Tensor::Scalar<float>(1)},
                                 {"b", Tensor::Scalar<float>(2)}}),
               IsOk());
  const Named fresh = {{"a", Tensor::Scalar<int64_t>(3)}};
  REQUIRE_THAT(Write(dir / "m", fresh), IsOk());
  ExpectBundle(dir / "m", fresh);
  CHECK(dir.Files() ==
        std::vector<std::string>{"m.data-00000-of-00001", "m.index"});
}

TEST_CASE("bundle: MergeBundles joins shards the way MergeV2Checkpoints does") {
  TempDir dir;
  const std::string temp = dir / "model_temp";
  const Named shard0 = {{"a", PatternTensor(DT_FLOAT, TensorShape({3}), 1)},
                        {"c", PatternTensor(DT_STRING, TensorShape({2}), 2)}};
  const Named shard1 = {{"b", PatternTensor(DT_INT64, TensorShape({2, 2}), 3)}};
  REQUIRE_THAT(Write(temp + "/part-00000-of-00002", shard0), IsOk());
  REQUIRE_THAT(Write(temp + "/part-00001-of-00002", shard1), IsOk());
  const std::vector<std::string> parts = {temp + "/part-00000-of-00002",
                                          temp + "/part-00001-of-00002"};
  REQUIRE_THAT(MergeBundles(parts, dir / "model", /*delete_old_dirs=*/true),
               IsOk());
  CHECK(dir.Files() == std::vector<std::string>{"model.data-00000-of-00002",
                                                "model.data-00001-of-00002",
                                                "model.index"});
  Named all = shard0;
  all.insert(all.end(), shard1.begin(), shard1.end());
  ExpectBundle(dir / "model", all);
  auto reader = BundleReader::Open(dir / "model");
  CHECK((*reader)->num_shards() == 2);
  CHECK((*reader)->GetEntry("b")->shard_id() == 1);
}

TEST_CASE("bundle: a three-shard bundle reads back") {
  TempDir dir;
  Named all;
  std::vector<std::string> parts;
  for (int i = 0; i < 3; ++i) {
    const Named shard = {{absl::StrCat("var", i),
                          PatternTensor(DT_FLOAT, TensorShape({i + 1}), i)},
                         {absl::StrCat("str", i),
                          PatternTensor(DT_STRING, TensorShape({2}), 10 + i)}};
    parts.push_back(dir / absl::StrCat("tmp/part", i));
    REQUIRE_THAT(Write(parts.back(), shard), IsOk());
    all.insert(all.end(), shard.begin(), shard.end());
  }
  // Without delete_old_dirs the (now empty) temporary directory stays.
  REQUIRE_THAT(MergeBundles(parts, dir / "m"), IsOk());
  CHECK(dir.Files() == std::vector<std::string>{
                           "m.data-00000-of-00003", "m.data-00001-of-00003",
                           "m.data-00002-of-00003", "m.index", "tmp"});
  ExpectBundle(dir / "m", all);
  CHECK((*BundleReader::Open(dir / "m"))->num_shards() == 3);

  // A merged bundle merges again (into the same prefix).
  REQUIRE_THAT(Write(dir / "more", {{"extra", Tensor::Scalar<int32_t>(7)}}),
               IsOk());
  REQUIRE_THAT(MergeBundles({dir / "m", dir / "more"}, dir / "m"), IsOk());
  all.emplace_back("extra", Tensor::Scalar<int32_t>(7));
  ExpectBundle(dir / "m", all);
  CHECK((*BundleReader::Open(dir / "m"))->num_shards() == 4);
}

TEST_CASE("bundle: MergeBundles errors") {
  TempDir dir;
  REQUIRE_THAT(Write(dir / "p0", {{"a", Tensor::Scalar<float>(1)}}), IsOk());
  REQUIRE_THAT(Write(dir / "p1", {{"a", Tensor::Scalar<float>(2)}}), IsOk());

  CHECK_THAT(MergeBundles({dir / "p0", dir / "p1"}, dir / "m"),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "Duplicate tensor keyed by a encountered, when merging "
                      "prefix: " +
                          dir / "p1"));
  CHECK_THAT(MergeBundles({dir / "p0", dir / "missing"}, dir / "m"),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "allow_missing_files was set to false and " +
                          dir / "missing" + " did not exist"));
  CHECK_THAT(MergeBundles({dir / "missing"}, dir / "m", false,
                          /*allow_missing_files=*/true),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "At least one prefix checkpoint file must exist"));
  // Nothing was renamed or removed by the failed merges.
  CHECK(dir.Files() ==
        std::vector<std::string>{"p0.data-00000-of-00001", "p0.index",
                                 "p1.data-00000-of-00001", "p1.index"});

  REQUIRE_THAT(MergeBundles({dir / "p0", dir / "missing"}, dir / "m", false,
                            /*allow_missing_files=*/true),
               IsOk());
  ExpectBundle(dir / "m", {{"a", Tensor::Scalar<float>(1)}});
}

}  // namespace
}  // namespace dfx

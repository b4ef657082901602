// The V1 checkpoint writer and reader (checkpoint/tensor_slice_v1.h): the
// key encoding, slice specs, round trips of every dtype, partitioned
// variables, empty tensors and strings, damaged files; and the V1 ops under
// a data directory (runtime/file_policy.h). Files TensorFlow wrote, and
// dfx's files byte for byte TensorFlow's, are in the ckptv1 golden cases
// (tests/golden/gen_ckptv1.py).
#include "checkpoint/tensor_slice_v1.h"

#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "catch2/catch.hpp"
#include "checkpoint/table.h"
#include "graph/types.h"
#include "runtime/file_policy.h"
#include "tests/checkpoint/checkpoint_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

namespace fs = std::filesystem;
using ::dfx::testing::GraphBuilder;
using ::dfx::testing::IntAttr;
using ::dfx::testing::IsOk;
using ::dfx::testing::PatternTensor;
using ::dfx::testing::ReadBytes;
using ::dfx::testing::RunGraph;
using ::dfx::testing::SameTensor;
using ::dfx::testing::StatusIs;
using ::dfx::testing::TempDir;
using ::dfx::testing::TypeAttr;
using ::dfx::testing::TypeListAttr;
using ::dfx::testing::WriteBytes;

TensorSliceV1 Slice(const std::string& text) {
  absl::StatusOr<TensorSliceV1> s = ParseTensorSliceV1(text);
  DFX_CHECK_OK(s.status());
  return *s;
}

std::string Hex(const std::string& s) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

// Restores `name` (the slice `spec` of it) from the files matching
// `pattern`.
absl::StatusOr<Tensor> Restore(const std::string& pattern,
                               const std::string& name, DataType dtype,
                               const std::string& spec = "",
                               int preferred_shard = -1) {
  absl::StatusOr<std::unique_ptr<TensorSliceReaderV1>> reader =
      TensorSliceReaderV1::Open(pattern, preferred_shard);
  if (!reader.ok()) return reader.status();
  return RestoreTensorV1(reader->get(), pattern, name, spec, dtype);
}

TEST_CASE("V1 keys are TensorFlow's ordered code of name and slice") {
  // 0, "x" + terminator, rank 1, start 0 (0x80), length -1 (0x7f): the key
  // of a whole vector in a file TensorFlow wrote.
  CHECK(Hex(EncodeTensorNameSliceV1("x", TensorSliceV1::Full(1))) ==
        "0078000101"
        "01807f");
  // NUL and 0xff escaped; a scalar has rank 0.
  CHECK(Hex(EncodeTensorNameSliceV1(std::string("a\0\xff", 3),
                                    TensorSliceV1::Full(0))) ==
        "006100ffff00000100");
  // Signed numbers: one byte for [-64, 64), two for [-8192, 8192), ...
  TensorSliceV1 s;
  s.starts = {63, 64, 8191, 8192, int64_t{1} << 40};
  s.lengths = {1, 100, 1, 2, 3};
  CHECK(Hex(EncodeTensorNameSliceV1("", s)) ==
        "00"
        "0001"
        "0105"
        "bf"
        "81"  // 63, 1
        "c040"
        "c064"  // 64, 100
        "dfff"
        "81"  // 8191, 1
        "e02000"
        "82"  // 8192, 2
        "fd0000000000"
        "83");  // 2^40, 3
  TensorSliceV1 neg;
  neg.starts = {-1, -64, -65, -8193};
  neg.lengths = {-1, -1, -1, -1};
  CHECK(Hex(EncodeTensorNameSliceV1("", neg)).substr(10) ==
        "7f7f"
        "407f"
        "3fbf7f"
        "1fdfff7f");
}

TEST_CASE("V1 slice specs parse as TensorFlow's") {
  CHECK(Slice("-:0,2:1,3").DebugString() == "-:0,2:1,3");
  CHECK(Slice("").dims() == 0);
  CHECK_THAT(ParseTensorSliceV1("0,2,3").status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "Expected a pair of numbers or '-'"));
  CHECK_THAT(ParseTensorSliceV1("1,0").status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "positive length"));
  CHECK_THAT(ParseTensorSliceV1("9223372036854775807,2").status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "Extent end"));
  absl::StatusOr<ShapeAndSliceV1> p = ParseShapeAndSliceV1("4 3 1,2:-");
  REQUIRE_THAT(p.status(), IsOk());
  CHECK(p->shape == TensorShape({4, 3}));
  CHECK(p->slice_shape == TensorShape({2, 3}));
  CHECK_THAT(ParseShapeAndSliceV1("4 3 3,2:-").status(),
             StatusIs(absl::StatusCode::kInternal, "out of bounds"));
  CHECK(ParseShapeAndSliceV1("4 -").ok());
  CHECK_THAT(ParseShapeAndSliceV1("4 3 -").status(),
             StatusIs(absl::StatusCode::kInternal, "Mismatching ranks"));
  // TensorFlow CHECK-fails on a negative dimension.
  CHECK_THAT(
      ParseShapeAndSliceV1("-4 -").status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "Negative dimension"));
  CHECK_THAT(ParseShapeAndSliceV1("x").status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "Need least two"));
}

TEST_CASE("V1 files round-trip every dtype, empty tensors and strings") {
  TempDir tmp;
  const std::string path = tmp / "ckpt";
  TensorSliceWriterV1 writer(path);
  std::vector<std::pair<std::string, Tensor>> saved;
  uint32_t seed = 1;
  for (DataType dtype :
       {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_INT8, DT_INT16, DT_INT32, DT_INT64,
        DT_UINT8, DT_UINT16, DT_BOOL, DT_COMPLEX64, DT_COMPLEX128, DT_STRING}) {
    for (const TensorShape& shape :
         {TensorShape({}), TensorShape({3, 2}), TensorShape({0, 4})}) {
      Tensor t = PatternTensor(dtype, shape, seed++);
      if (dtype == DT_HALF) {
        // Keep the bit patterns finite: only the bits must survive.
        for (uint16_t& x : absl::Span<uint16_t>(
                 static_cast<uint16_t*>(t.raw_data()), t.NumElements())) {
          x &= 0x3fff;
        }
      }
      const std::string name =
          absl::StrCat(DataTypeString(dtype), "/", shape.DebugString());
      REQUIRE_THAT(
          writer.Add(name, shape, TensorSliceV1::Full(shape.dims()), t),
          IsOk());
      saved.emplace_back(name, t);
    }
  }
  REQUIRE_THAT(writer.Finish(), IsOk());
  CHECK(tmp.Files() == std::vector<std::string>{"ckpt"});
  for (const auto& [name, t] : saved) {
    INFO(name);
    absl::StatusOr<Tensor> got = Restore(path, name, t.dtype());
    REQUIRE_THAT(got.status(), IsOk());
    CHECK(SameTensor(*got, t));
  }
  CHECK_THAT(Restore(path, "missing", DT_FLOAT).status(),
             StatusIs(absl::StatusCode::kNotFound,
                      "Tensor name \"missing\" not found"));
  CHECK_THAT(Restore(path, "float/[3,2]", DT_INT32).status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "Expected to restore a tensor of type int32, got a "
                      "tensor of type float"));
}

TEST_CASE("V1 slices of a partitioned variable restore whole and in parts") {
  TempDir tmp;
  const std::string path = tmp / "part";
  // A [4, 3] variable in two row blocks, one of them in two column blocks.
  Tensor full(DT_INT32, TensorShape({4, 3}));
  for (int i = 0; i < 12; ++i) full.data<int32_t>()[i] = i;
  auto part = [&](int r0, int nr, int c0, int nc) {
    Tensor t(DT_INT32, TensorShape({nr, nc}));
    for (int r = 0; r < nr; ++r) {
      for (int c = 0; c < nc; ++c) {
        t.data<int32_t>()[r * nc + c] = (r0 + r) * 3 + c0 + c;
      }
    }
    return t;
  };
  TensorSliceWriterV1 writer(path);
  const TensorShape shape({4, 3});
  REQUIRE_THAT(writer.Add("v", shape, Slice("0,2:-"), part(0, 2, 0, 3)),
               IsOk());
  REQUIRE_THAT(writer.Add("v", shape, Slice("2,2:0,1"), part(2, 2, 0, 1)),
               IsOk());
  REQUIRE_THAT(writer.Add("v", shape, Slice("2,2:1,2"), part(2, 2, 1, 2)),
               IsOk());
  CHECK_THAT(
      writer.Add("v", TensorShape({4, 4}), Slice("0,1:-"), part(0, 1, 0, 4)),
      StatusIs(absl::StatusCode::kInternal, "Mismatching shapes"));
  CHECK_THAT(writer.Add("w", shape, Slice("0,2:-"), part(0, 1, 0, 3)),
             StatusIs(absl::StatusCode::kInvalidArgument, "has shape [2,3]"));
  REQUIRE_THAT(writer.Finish(), IsOk());

  absl::StatusOr<Tensor> whole = Restore(path, "v", DT_INT32);
  REQUIRE_THAT(whole.status(), IsOk());
  CHECK(SameTensor(*whole, full));
  absl::StatusOr<Tensor> cross = Restore(path, "v", DT_INT32, "4 3 1,2:1,2");
  REQUIRE_THAT(cross.status(), IsOk());
  CHECK(SameTensor(*cross, part(1, 2, 1, 2)));
  CHECK_THAT(Restore(path, "v", DT_INT32, "4 4 -:-").status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "does not match the shape in the save file"));
  // w's slice failed, so w lists a slice without a record: not covered.
  CHECK_THAT(
      Restore(path, "w", DT_INT32).status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "Error copying slice data"));
}

TEST_CASE("V1 readers glob shards and load the preferred one first") {
  TempDir tmp;
  for (int shard = 0; shard < 2; ++shard) {
    TensorSliceWriterV1 writer(tmp /
                               absl::StrCat("m-0000", shard, "-of-00002"));
    Tensor t = Tensor::FromVector<float>({1.0f * shard, 2.0f});
    REQUIRE_THAT(writer.Add(absl::StrCat("t", shard), t.shape(),
                            TensorSliceV1::Full(1), t),
                 IsOk());
    REQUIRE_THAT(writer.Finish(), IsOk());
  }
  const std::string pattern = tmp /
                              "m-?????"
                              "-of-00002";
  for (int preferred : {-1, 0, 1, 7}) {
    absl::StatusOr<Tensor> t1 = Restore(pattern, "t1", DT_FLOAT, "", preferred);
    REQUIRE_THAT(t1.status(), IsOk());
    CHECK(t1->data<float>()[0] == 1.0f);
  }
  CHECK_THAT(Restore(tmp / "x-*", "t1", DT_FLOAT).status(),
             StatusIs(absl::StatusCode::kNotFound,
                      "Failed to find any matching files"));
}

TEST_CASE("V1 readers refuse damaged files with DataLoss") {
  TempDir tmp;
  const std::string path = tmp / "good";
  {
    TensorSliceWriterV1 writer(path);
    Tensor t = Tensor::FromVector<float>({1.0f, 2.0f, 3.0f});
    REQUIRE_THAT(writer.Add("t", t.shape(), TensorSliceV1::Full(1), t), IsOk());
    REQUIRE_THAT(writer.Finish(), IsOk());
  }
  const std::string good = ReadBytes(path);
  REQUIRE(Restore(path, "t", DT_FLOAT).ok());
  for (size_t cut : {size_t{0}, size_t{10}, good.size() / 2, good.size() - 1}) {
    INFO("truncated to " << cut);
    WriteBytes(tmp / "bad", good.substr(0, cut));
    CHECK_THAT(Restore(tmp / "bad", "t", DT_FLOAT).status(),
               StatusIs(absl::StatusCode::kDataLoss, "bad"));
  }
  // A flipped bit in the data block (the first bytes): TensorFlow reads the
  // table lazily and misses the metadata (Internal); dfx checks every
  // block's checksum when it opens the file.
  std::string flipped = good;
  flipped[5] ^= 1;
  WriteBytes(tmp / "bad", flipped);
  CHECK_THAT(Restore(tmp / "bad", "t", DT_FLOAT).status(),
             StatusIs(absl::StatusCode::kDataLoss, "checksum mismatch"));
  // A table without V1 metadata (a V2 index, say).
  {
    table::TableBuilder builder;
    REQUIRE_THAT(builder.Add("a", "b"), IsOk());
    WriteBytes(tmp / "bad", builder.Finish());
  }
  CHECK_THAT(Restore(tmp / "bad", "t", DT_FLOAT).status(),
             StatusIs(absl::StatusCode::kInternal,
                      "Failed to find the saved tensor slices"));
}

TEST_CASE("Table readers read only the blocks a key needs") {
  table::TableBuilder builder(table::TableOptions{.block_size = 64});
  for (int i = 0; i < 100; ++i) {
    REQUIRE_THAT(builder.Add(absl::StrCat("key", 1000 + i),
                             std::string(20, static_cast<char>('a' + i % 26))),
                 IsOk());
  }
  std::string file = builder.Finish();
  size_t bytes_read = 0;
  auto read = [&file, &bytes_read](uint64_t offset, size_t n, char* dst) {
    bytes_read += n;
    std::memcpy(dst, file.data() + offset, n);
    return absl::OkStatus();
  };
  absl::StatusOr<std::unique_ptr<table::TableReader>> reader =
      table::TableReader::Open(read, file.size(), "t");
  REQUIRE_THAT(reader.status(), IsOk());
  bytes_read = 0;
  absl::StatusOr<std::string> v = (*reader)->Get("key1042");
  REQUIRE_THAT(v.status(), IsOk());
  CHECK(*v == std::string(20, 'q'));
  CHECK(bytes_read < 200);  // one small block, not the file
  CHECK_THAT((*reader)->Get("key0").status(),
             StatusIs(absl::StatusCode::kNotFound));
  CHECK_THAT((*reader)->Get("zzz").status(),
             StatusIs(absl::StatusCode::kNotFound));
  // Damage the blocks of the 'q' values (key1016, key1042, ...): those
  // keys are DataLoss, the others read.
  for (size_t at = file.find(std::string(20, 'q')); at != std::string::npos;
       at = file.find(std::string(20, 'q'), at + 1)) {
    file[at] = 'Q';
  }
  CHECK_THAT((*reader)->Get("key1042").status(),
             StatusIs(absl::StatusCode::kDataLoss, "checksum mismatch"));
  CHECK_THAT((*reader)->Get("key1000").status(), IsOk());
  CHECK_THAT(table::TableReader::Open(read, 47, "t").status(),
             StatusIs(absl::StatusCode::kDataLoss, "too short"));
}

TEST_CASE("V1 files of several blocks restore each tensor from its block") {
  TempDir tmp;
  const std::string path = tmp / "big";
  TensorSliceWriterV1 writer(path);
  // Three tensors of 400 KB: each record is larger than a block.
  std::vector<Tensor> saved;
  for (int i = 0; i < 3; ++i) {
    Tensor t = PatternTensor(DT_DOUBLE, TensorShape({50000}), 100 + i);
    REQUIRE_THAT(
        writer.Add(absl::StrCat("t", i), t.shape(), TensorSliceV1::Full(1), t),
        IsOk());
    saved.push_back(t);
  }
  REQUIRE_THAT(writer.Finish(), IsOk());
  for (int i = 0; i < 3; ++i) {
    absl::StatusOr<Tensor> got =
        Restore(path, absl::StrCat("t", i), DT_DOUBLE, "50000 10,20");
    REQUIRE_THAT(got.status(), IsOk());
    CHECK(std::memcmp(got->raw_data(), saved[i].data<double>() + 10,
                      20 * sizeof(double)) == 0);
  }
  // A flipped byte in t2's record: t2 is DataLoss, t0 still restores.
  std::string bytes = ReadBytes(path);
  bytes[bytes.size() - 48 - 5 - 1000] ^= 1;  // before the index block
  WriteBytes(path, bytes);
  CHECK_THAT(Restore(path, "t2", DT_DOUBLE).status(),
             StatusIs(absl::StatusCode::kDataLoss, "checksum mismatch"));
  CHECK_THAT(Restore(path, "t0", DT_DOUBLE).status(), IsOk());
}

TEST_CASE("V1 writers refuse what TensorFlow's Save refuses") {
  TempDir tmp;
  TensorSliceWriterV1 writer(tmp / "x");
  const Tensor bf16(DT_BFLOAT16, TensorShape({1}));
  CHECK_THAT(writer.Add("b", bf16.shape(), TensorSliceV1::Full(1), bf16),
             StatusIs(absl::StatusCode::kUnimplemented,
                      "Saving data type bfloat16 not yet supported"));
  const Tensor u32(DT_UINT32, TensorShape({1}));
  CHECK_THAT(writer.Add("u", u32.shape(), TensorSliceV1::Full(1), u32),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "not implemented for dtype 22"));
  TensorSliceWriterV1 nowhere(tmp / "no/such/dir/x");
  CHECK_THAT(nowhere.Finish(), StatusIs(absl::StatusCode::kNotFound));
  CHECK(tmp.Files().empty());
}

// Sets the data directory to `dir` for the object's life.
class ScopedDataDir {
 public:
  explicit ScopedDataDir(const std::string& dir) {
    REQUIRE_THAT(SetDataDir(dir), IsOk());
  }
  ~ScopedDataDir() { SetDataDir("").IgnoreError(); }
};

GraphDef SaveGraph(const std::string& file) {
  GraphBuilder g;
  g.Node("save", "Save",
         {g.ScalarString("file", file), g.StringConst("names", {"v"}),
          g.Const("v", Tensor::FromVector<float>({1.5f}))},
         {{"T", TypeListAttr({DT_FLOAT})}});
  return g.graph();
}

GraphDef RestoreGraph(const std::string& pattern, const std::string& op) {
  GraphBuilder g;
  std::vector<std::string> inputs = {g.ScalarString("pattern", pattern)};
  if (op == "RestoreV2") {
    inputs.push_back(g.StringConst("names", {"v"}));
    inputs.push_back(g.StringConst("slices", {""}));
    g.Node("restore", op, inputs, {{"dtypes", TypeListAttr({DT_FLOAT})}});
  } else {
    inputs.push_back(g.ScalarString("name", "v"));
    g.Node("restore", op, inputs,
           {{"dt", TypeAttr(DT_FLOAT)}, {"preferred_shard", IntAttr(-1)}});
  }
  return g.graph();
}

TEST_CASE("V1 ops keep to the data directory") {
  TempDir tmp;
  fs::create_directories(tmp / "data/ckpt");
  fs::create_directories(tmp / "outside");
  {
    ScopedDataDir none("");
    REQUIRE_THAT(
        RunGraph(SaveGraph(tmp / "outside/real"), {}, {"save"}).status(),
        IsOk());
  }
  // A file inside that links out, which a glob would match.
  fs::create_symlink(tmp / "outside/real", tmp / "data/ckpt/link");
  ScopedDataDir data(tmp / "data");
  REQUIRE_THAT(RunGraph(SaveGraph("ckpt/model"), {}, {"save"}).status(),
               IsOk());
  CHECK(fs::exists(tmp / "data/ckpt/model"));
  for (const char* op : {"Restore", "RestoreV2"}) {
    INFO(op);
    absl::StatusOr<std::vector<Tensor>> got =
        RunGraph(RestoreGraph("ckpt/model", op), {"restore:0"});
    REQUIRE_THAT(got.status(), IsOk());
    CHECK((*got)[0].data<float>()[0] == 1.5f);
    CHECK_THAT(RunGraph(RestoreGraph(tmp / "outside/real", op), {"restore:0"})
                   .status(),
               StatusIs(absl::StatusCode::kPermissionDenied, "node 'restore'"));
    CHECK_THAT(RunGraph(RestoreGraph("ckpt/*", op), {"restore:0"}).status(),
               StatusIs(absl::StatusCode::kPermissionDenied, "ckpt/link"));
  }
  CHECK_THAT(RunGraph(SaveGraph("../x"), {}, {"save"}).status(),
             StatusIs(absl::StatusCode::kPermissionDenied,
                      "node 'save': path '../x'"));
}

}  // namespace
}  // namespace dfx

// The dataset3 family (graph/ops/dataset3_ops.cc, kernels/data/
// dataset3_kernels.cc and csv_dataset_kernels.cc): TensorFlow 2.21's
// signatures, the shape checks a graph meets at import, and what the golden
// cases (tests/golden/gen_dataset3.py) cannot show: files outside the
// server's --data-dir refused, CSV fields across one-byte reads, nested
// directories of MatchingFilesDataset, DatasetToTFRecord on elements
// TensorFlow's kernel aborts on, byte_offsets TensorFlow reads past.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "runtime/file_policy.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/shape_fn_test_util.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace dfx {
namespace {

namespace fs = std::filesystem;
using testing::RunKernel;
using testing::StatusIs;
using testing::TestNodeBuilder;

void WriteFile(const fs::path& path, const std::string& contents) {
  std::ofstream(path, std::ios::binary) << contents;
}

Tensor Str(const std::string& s) { return Tensor::Scalar<std::string>(s); }
Tensor I64(int64_t v) { return Tensor::Scalar<int64_t>(v); }
Tensor I64s(std::vector<int64_t> v) { return Tensor::FromVector<int64_t>(v); }

// The elements of the dataset `ds` (components of `types`), or the first
// error other than the end.
absl::StatusOr<std::vector<std::vector<Tensor>>> Elements(
    const Tensor& ds, const DataTypeVector& types) {
  absl::StatusOr<std::vector<Tensor>> it =
      RunKernel(TestNodeBuilder("it", "AnonymousIteratorV3", 0)
                    .Attr("output_types", types)
                    .Build(),
                {});
  if (!it.ok()) return it.status();
  absl::Status made =
      RunKernel(TestNodeBuilder("make", "MakeIterator", 2).Build(),
                {ds, (*it)[0]})
          .status();
  if (!made.ok()) return made;
  std::vector<std::vector<Tensor>> out;
  while (true) {
    absl::StatusOr<std::vector<Tensor>> e =
        RunKernel(TestNodeBuilder("next", "IteratorGetNext", 1)
                      .Attr("output_types", types)
                      .Build(),
                  {(*it)[0]});
    if (!e.ok()) {
      if (absl::IsOutOfRange(e.status())) return out;
      return e.status();
    }
    out.push_back(*std::move(e));
  }
}

// Every element of a one-string-component dataset, or the error.
absl::StatusOr<std::vector<std::string>> Strings(
    absl::StatusOr<std::vector<Tensor>> made) {
  if (!made.ok()) return made.status();
  absl::StatusOr<std::vector<std::vector<Tensor>>> all =
      Elements((*made)[0], {DT_STRING});
  if (!all.ok()) return all.status();
  std::vector<std::string> out;
  for (const auto& e : *all) out.push_back(e[0].scalar<std::string>());
  return out;
}

absl::StatusOr<std::vector<Tensor>> FixedLength(const std::string& file,
                                                int64_t record_bytes) {
  return RunKernel(
      TestNodeBuilder("fl", "FixedLengthRecordDatasetV2", 6).Build(),
      {Str(file), I64(0), I64(record_bytes), I64(0), I64(0), Str("")});
}

// A CSVDatasetV2 of int32 columns (default 0 each) over `file`.
absl::StatusOr<std::vector<Tensor>> Csv(const std::string& file, int columns,
                                        int64_t buffer_size) {
  TestNodeBuilder b("csv", "CSVDatasetV2", 9 + columns);
  b.Attr("output_types", DataTypeVector(columns, DT_INT32));
  std::vector<Tensor> in = {Str(file),        Str(""),
                            I64(buffer_size), Tensor::Scalar<bool>(false),
                            Str(","),         Tensor::Scalar<bool>(true),
                            Str(""),          I64s({})};
  for (int i = 0; i < columns; ++i)
    in.push_back(Tensor::FromVector<int32_t>({0}));
  in.push_back(I64s({}));
  return RunKernel(b.Build(), in);
}

TEST_CASE("Every dataset3 op has TensorFlow 2.21's signature and CPU types",
          "[dataset3]") {
  testing::CheckSignaturesWithTensorFlow("dataset3", 25);
}

TEST_CASE(
    "dataset3 shape functions check the ranks of file names and "
    "arguments",
    "[dataset3]") {
  using testing::InferShapes;
  using testing::ShapesString;
  const NodeDef fl =
      TestNodeBuilder("fl", "FixedLengthRecordDataset", 5).Build();
  CHECK(ShapesString(
            InferShapes(fl, {PartialShape::Known({3}), PartialShape::Scalar(),
                             PartialShape::Scalar(), PartialShape::Scalar(),
                             PartialShape::Scalar()})) == "[]");
  CHECK_FALSE(InferShapes(fl, {PartialShape::Known({3, 1}),
                               PartialShape::Scalar(), PartialShape::Scalar(),
                               PartialShape::Scalar(), PartialShape::Scalar()})
                  .ok());
  CHECK_FALSE(InferShapes(fl, {PartialShape::Known({3}),
                               PartialShape::Known({2}), PartialShape::Scalar(),
                               PartialShape::Scalar(), PartialShape::Scalar()})
                  .ok());
  TestNodeBuilder csv("csv", "CSVDataset", 10);
  csv.Attr("output_types", DataTypeVector{DT_INT32, DT_STRING});
  std::vector<PartialShape> in(10, PartialShape::Scalar());
  in[7] = PartialShape::Known({0});
  CHECK(ShapesString(InferShapes(csv.Build(), in)) == "[]");
  in[7] = PartialShape::Scalar();  // select_cols must be a vector
  CHECK_FALSE(InferShapes(csv.Build(), in).ok());
  in[7] = PartialShape::Known({0});
  in[9] = PartialShape::Known({1, 1});  // a default of rank 2
  CHECK_FALSE(InferShapes(csv.Build(), in).ok());
}

TEST_CASE("File datasets refuse files outside the server's data directory",
          "[dataset3]") {
  const testing::TempDir tmp_dir;
  const testing::TempDir tmp_outside;
  const fs::path dir = tmp_dir.path();
  const fs::path outside = tmp_outside.path();
  WriteFile(dir / "in.bin", "abcd");
  WriteFile(outside / "out.bin", "abcd");
  REQUIRE_OK(SetDataDir(dir.string()));
  CHECK(
      Strings(FixedLength("in.bin", 2)).value_or(std::vector<std::string>{}) ==
      std::vector<std::string>{"ab", "cd"});
  CHECK_THAT(Strings(FixedLength((outside / "out.bin").string(), 2)).status(),
             StatusIs(absl::StatusCode::kPermissionDenied));
  CHECK_THAT(
      Strings(FixedLength("../" + outside.filename().string() + "/out.bin", 2))
          .status(),
      StatusIs(absl::StatusCode::kPermissionDenied));
  absl::StatusOr<std::vector<Tensor>> csv =
      Csv((outside / "out.bin").string(), 1, 16);
  REQUIRE_OK(csv.status());
  CHECK_THAT(Elements((*csv)[0], {DT_INT32}).status(),
             StatusIs(absl::StatusCode::kPermissionDenied));
  CHECK_THAT(
      Strings(RunKernel(TestNodeBuilder("m", "MatchingFilesDataset", 1).Build(),
                        {Str((outside / "*").string())}))
          .status(),
      StatusIs(absl::StatusCode::kPermissionDenied));
  // Relative patterns name files under the data directory.
  CHECK(
      Strings(RunKernel(TestNodeBuilder("m", "MatchingFilesDataset", 1).Build(),
                        {Str("*.bin")}))
          .value_or(std::vector<std::string>{}) ==
      std::vector<std::string>{"./in.bin"});
  absl::StatusOr<std::vector<Tensor>> names =
      RunKernel(TestNodeBuilder("s", "TensorSliceDataset", 1)
                    .Attr("Toutput_types", DataTypeVector{DT_STRING})
                    .Build(),
                {Tensor::FromVector<std::string>({"x"})});
  REQUIRE_OK(names.status());
  CHECK_THAT(
      RunKernel(TestNodeBuilder("w", "DatasetToTFRecord", 3).Build(),
                {(*names)[0], Str((outside / "w.tfrecord").string()), Str("")})
          .status(),
      StatusIs(absl::StatusCode::kPermissionDenied));
  CHECK_FALSE(fs::exists(outside / "w.tfrecord"));
  REQUIRE_OK(SetDataDir(""));
  fs::remove_all(dir);
  fs::remove_all(outside);
}

TEST_CASE(
    "CSV fields and quoted line breaks read the same across one-byte "
    "reads",
    "[dataset3]") {
  const testing::TempDir tmp;
  const fs::path dir = tmp.path();
  WriteFile(dir / "a.csv", "1,22\r\n333,\"4\"\"4\"\n\"5\nx\",6");
  for (int64_t buffer : {1, 2, 3, 1000}) {
    INFO("buffer_size " << buffer);
    TestNodeBuilder b("csv", "CSVDatasetV2", 11);
    b.Attr("output_types", DataTypeVector{DT_INT32, DT_STRING});
    absl::StatusOr<std::vector<Tensor>> ds =
        RunKernel(b.Build(), {Str((dir / "a.csv").string()), Str(""),
                              I64(buffer), Tensor::Scalar<bool>(false),
                              Str(","), Tensor::Scalar<bool>(true), Str(""),
                              I64s({}), Tensor::FromVector<int32_t>({0}),
                              Tensor::FromVector<std::string>({""}), I64s({})});
    REQUIRE_OK(ds.status());
    absl::StatusOr<std::vector<std::vector<Tensor>>> rows =
        Elements((*ds)[0], {DT_INT32, DT_STRING});
    // "5\nx" is not an int32: the third record fails, after the others.
    CHECK_THAT(rows.status(), StatusIs(absl::StatusCode::kInvalidArgument,
                                       "not a valid int32"));
  }
  // Without the bad record every row comes back whole.
  WriteFile(dir / "b.csv", "1,22\r\n333,\"4\"\"4\"\n5,\"x\ny\"");
  TestNodeBuilder b("csv", "CSVDatasetV2", 11);
  b.Attr("output_types", DataTypeVector{DT_INT32, DT_STRING});
  absl::StatusOr<std::vector<Tensor>> ds =
      RunKernel(b.Build(), {Str((dir / "b.csv").string()), Str(""), I64(1),
                            Tensor::Scalar<bool>(false), Str(","),
                            Tensor::Scalar<bool>(true), Str(""), I64s({}),
                            Tensor::FromVector<int32_t>({0}),
                            Tensor::FromVector<std::string>({""}), I64s({})});
  REQUIRE_OK(ds.status());
  absl::StatusOr<std::vector<std::vector<Tensor>>> rows =
      Elements((*ds)[0], {DT_INT32, DT_STRING});
  REQUIRE_OK(rows.status());
  REQUIRE(rows->size() == 3);
  CHECK((*rows)[0][0].scalar<int32_t>() == 1);
  CHECK((*rows)[0][1].scalar<std::string>() == "22");
  CHECK((*rows)[1][1].scalar<std::string>() == "4\"4");
  CHECK((*rows)[2][1].scalar<std::string>() == "x\ny");
  fs::remove_all(dir);
}

TEST_CASE("MatchingFilesDataset searches nested directories in sorted order",
          "[dataset3]") {
  const testing::TempDir tmp;
  const fs::path dir = tmp.path();
  fs::create_directories(dir / "b" / "deep");
  fs::create_directories(dir / "a");
  WriteFile(dir / "b" / "x1.txt", "");
  WriteFile(dir / "a" / "x2.txt", "");
  WriteFile(dir / "a" / "y.txt", "");
  WriteFile(dir / "b" / "deep" / "x3.txt", "");
  WriteFile(dir / "x0.txt", "");
  const std::string d = dir.string();
  CHECK(
      Strings(RunKernel(TestNodeBuilder("m", "MatchingFilesDataset", 1).Build(),
                        {Str(d + "/*/x*.txt")}))
          .value_or(std::vector<std::string>{}) ==
      std::vector<std::string>{d + "/a/x2.txt", d + "/b/x1.txt"});
  CHECK(
      Strings(RunKernel(TestNodeBuilder("m", "MatchingFilesDataset", 1).Build(),
                        {Tensor::FromVector<std::string>(
                            {d + "/b/*/*.txt", d + "/x?.txt"})}))
          .value_or(std::vector<std::string>{}) ==
      std::vector<std::string>{d + "/b/deep/x3.txt", d + "/x0.txt"});
  fs::remove_all(dir);
}

TEST_CASE(
    "DatasetToTFRecord refuses elements that are not one string "
    "scalar, and round-trips GZIP records",
    "[dataset3]") {
  const testing::TempDir tmp;
  const fs::path dir = tmp.path();
  absl::StatusOr<std::vector<Tensor>> rows =
      RunKernel(TestNodeBuilder("s", "TensorDataset", 1)
                    .Attr("Toutput_types", DataTypeVector{DT_STRING})
                    .Build(),
                {Tensor::FromVector<std::string>({"a", "b"})});
  REQUIRE_OK(rows.status());
  // TensorFlow's kernel aborts the process on a vector element.
  CHECK_THAT(
      RunKernel(TestNodeBuilder("w", "DatasetToTFRecord", 3).Build(),
                {(*rows)[0], Str((dir / "v.tfrecord").string()), Str("")})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "one string scalar"));
  absl::StatusOr<std::vector<Tensor>> names = RunKernel(
      TestNodeBuilder("s", "TensorSliceDataset", 1)
          .Attr("Toutput_types", DataTypeVector{DT_STRING})
          .Build(),
      {Tensor::FromVector<std::string>({"x", std::string(100000, 'y'), ""})});
  REQUIRE_OK(names.status());
  const std::string file = (dir / "g.tfrecord.gz").string();
  REQUIRE_OK(RunKernel(TestNodeBuilder("w", "DatasetToTFRecord", 3).Build(),
                       {(*names)[0], Str(file), Str("GZIP")})
                 .status());
  CHECK(Strings(RunKernel(TestNodeBuilder("r", "TFRecordDataset", 3).Build(),
                          {Str(file), Str("GZIP"), I64(0)}))
            .value_or(std::vector<std::string>{}) ==
        std::vector<std::string>{"x", std::string(100000, 'y'), ""});
  fs::remove_all(dir);
}

TEST_CASE("TFRecordDatasetV2 refuses fewer byte_offsets than files",
          "[dataset3]") {
  // TensorFlow checks only the ranks and reads past the shorter vector.
  CHECK_THAT(RunKernel(TestNodeBuilder("r", "TFRecordDatasetV2", 4).Build(),
                       {Tensor::FromVector<std::string>({"a", "b"}), Str(""),
                        I64(0), I64s({0})})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "same size"));
  CHECK_THAT(RunKernel(TestNodeBuilder("r", "TFRecordDatasetV2", 4).Build(),
                       {Str("a"), Str(""), I64(0), I64(-1)})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument, ">= 0"));
}

}  // namespace
}  // namespace dfx

// The calib family's ops (tests/golden/gen_calib.py: CustomAggregator,
// CalibrationStatisticsSaver, DumpTensor): TensorFlow 2.21's signatures
// and CPU kernel types, the shape function, and what the goldens cannot
// show: the errors where TensorFlow's kernels crash or loop, the
// statistics written when the saver's kernel goes, and the --data-dir
// policy on both file-writing ops.
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "proto/calibration_statistics.pb.h"
#include "runtime/file_policy.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/shape_fn_test_util.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace dfx {
namespace {

namespace fs = std::filesystem;
using testing::InferShapes;
using testing::RunKernel;
using testing::StatusIs;
using testing::TestNodeBuilder;

NodeDef Aggregator(int64_t method, int64_t num_bins) {
  return TestNodeBuilder("agg", "CustomAggregator", 1)
      .Attr("id", "a")
      .Attr("calibration_method", method)
      .Attr("num_bins", num_bins)
      .Build();
}

// A saver of `ids` (three float, float, int64 inputs each) writing `path`.
NodeDef Saver(const std::vector<std::string>& ids,
              const std::vector<int64_t>& methods, const std::string& path) {
  DataTypeVector types;
  for (size_t i = 0; i < ids.size(); ++i) {
    types.push_back(DT_FLOAT);
    types.push_back(DT_FLOAT);
    types.push_back(DT_INT64);
  }
  NodeDef node = TestNodeBuilder("saver", "CalibrationStatisticsSaver",
                                 static_cast<int>(types.size()))
                     .Attr("Tin", types)
                     .Attr("calibration_methods", methods)
                     .Attr("output_file_path", path.c_str())
                     .Build();
  auto* list = (*node.mutable_attr())["ids"].mutable_list();
  for (const std::string& id : ids) list->add_s(id);
  return node;
}

NodeDef Dump(const std::string& dir, const std::string& file) {
  return TestNodeBuilder("dump", "DumpTensor", 1)
      .Attr("T", DT_FLOAT)
      .Attr("log_dir_path", dir.c_str())
      .Attr("file_name", file.c_str())
      .Attr("enabled", true)
      .Attr("func_name", "f")
      .Attr("node_name", "n")
      .Build();
}

Tensor Floats(std::vector<float> v) {
  Tensor t(DT_FLOAT, TensorShape({static_cast<int64_t>(v.size())}));
  for (size_t i = 0; i < v.size(); ++i) t.data<float>()[i] = v[i];
  return t;
}

Tensor Hist(std::vector<int64_t> v) {
  Tensor t(DT_INT64, TensorShape({static_cast<int64_t>(v.size())}));
  for (size_t i = 0; i < v.size(); ++i) t.data<int64_t>()[i] = v[i];
  return t;
}

CalibrationStatisticsMap ReadStats(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  CalibrationStatisticsMap map;
  CHECK(map.ParseFromString(s.str()));
  return map;
}

TEST_CASE("Every calib op has TensorFlow 2.21's signature and CPU types",
          "[calib]") {
  testing::CheckSignaturesWithTensorFlow("calib", 3);
}

TEST_CASE(
    "CustomAggregator's shapes: the input's, two scalars and num_bins "
    "bins",
    "[calib]") {
  absl::StatusOr<std::vector<PartialShape>> shapes =
      InferShapes(Aggregator(3, 16), {PartialShape::Known({2, -1})});
  REQUIRE(shapes.ok());
  REQUIRE(shapes->size() == 4);
  CHECK((*shapes)[0].DebugString() ==
        PartialShape::Known({2, -1}).DebugString());
  CHECK((*shapes)[1].DebugString() == PartialShape::Scalar().DebugString());
  CHECK((*shapes)[3].DebugString() == PartialShape::Known({16}).DebugString());
}

TEST_CASE(
    "CustomAggregator refuses a negative num_bins and an unspecified "
    "method",
    "[calib]") {
  // TensorFlow aborts the process on the negative histogram shape.
  CHECK_THAT(RunKernel(Aggregator(3, -2), {Floats({1, 2})}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "num_bins"));
  CHECK_THAT(RunKernel(Aggregator(0, 4), {Floats({1, 2})}).status(),
             StatusIs(absl::StatusCode::kAborted, "must be specified"));
}

TEST_CASE(
    "CalibrationStatisticsSaver writes its statistics when its kernel "
    "goes",
    "[calib]") {
  const testing::TempDir dir;
  const std::string path = dir / "stats.pb";
  // RunKernel builds the kernel, runs it once and destroys it.
  REQUIRE_OK(
      RunKernel(Saver({"m", "h"}, {1, 3}, path),
                {Tensor::Scalar<float>(1), Tensor::Scalar<float>(3.5), Hist({}),
                 Tensor::Scalar<float>(1), Tensor::Scalar<float>(3.5),
                 Hist({1, 0, 1, 0, 0, 1, 0, 0})})
          .status());
  const CalibrationStatisticsMap map = ReadStats(path);
  REQUIRE(map.statistics().count("m") == 1);
  CHECK(map.statistics().at("m").min_max_statistics().global_min() == 1);
  CHECK(map.statistics().at("m").min_max_statistics().global_max() == 3.5f);
  REQUIRE(map.statistics().count("h") == 1);
  const auto& hist = map.statistics().at("h").histogram_statistics();
  CHECK(hist.bin_width() == 0.5f);
  CHECK(hist.lower_bound() == 1);
  // Trailing empty bins are dropped.
  CHECK(hist.hist_freq_size() == 6);
}

TEST_CASE(
    "CalibrationStatisticsSaver fails with InvalidArgument where "
    "TensorFlow's collector crashes or loops",
    "[calib]") {
  const testing::TempDir dir;
  const float inf = std::numeric_limits<float>::infinity();
  // An empty input's bounds; a constant input's zero width.
  for (const auto& [min, max] :
       {std::pair<float, float>{inf, -inf}, std::pair<float, float>{2, 2}}) {
    INFO(min << " " << max);
    CHECK_THAT(RunKernel(Saver({"h"}, {3}, dir / "s.pb"),
                         {Tensor::Scalar<float>(min),
                          Tensor::Scalar<float>(max), Hist({1, 0, 0, 0})})
                   .status(),
               StatusIs(absl::StatusCode::kInvalidArgument));
  }
  // Bins of width 1 near 1e8 (whose floats are 8 apart) merged into bins of
  // width 2^27: TensorFlow's loop over the narrow bins never ends. (The
  // same id twice shares one collector.)
  CHECK_THAT(
      RunKernel(
          Saver({"h", "h"}, {3, 3}, dir / "s.pb"),
          {Tensor::Scalar<float>(0), Tensor::Scalar<float>(1e9f),
           Hist({1, 0, 0, 0, 0, 0, 0, 1}), Tensor::Scalar<float>(1e8f),
           Tensor::Scalar<float>(1e8f + 8), Hist({1, 0, 0, 0, 0, 0, 0, 1})})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "precision"));
  // Non-scalar bounds: TensorFlow aborts on a CHECK.
  CHECK_THAT(RunKernel(Saver({"m"}, {1}, dir / "s.pb"),
                       {Floats({1, 2}), Tensor::Scalar<float>(2), Hist({})})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "scalar"));
  // A file that cannot be made: TensorFlow's kernel crashes.
  CHECK_THAT(
      RunKernel(Saver({"m"}, {1}, dir / "no/such/dir/s.pb"),
                {Tensor::Scalar<float>(1), Tensor::Scalar<float>(2), Hist({})})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST_CASE("DumpTensor fails with InvalidArgument when it cannot make its file",
          "[calib]") {
  const testing::TempDir dir;
  dir.Write("plain", "x");
  // The directory is a file: TensorFlow's kernel crashes.
  CHECK_THAT(RunKernel(Dump(dir / "plain", "t.pb"), {Floats({1})}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument));
  // The file name names the directory itself.
  CHECK_THAT(RunKernel(Dump(dir / "d", ""), {Floats({1})}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument));
  REQUIRE_OK(RunKernel(Dump(dir / "ok", "t.pb"), {Floats({1})}).status());
  CHECK(fs::file_size(dir / "ok/quant_unit.pb") > 0);
  CHECK(fs::file_size(dir / "ok/t.pb") > 0);
}

TEST_CASE("The calib file ops stay inside the server's --data-dir", "[calib]") {
  const testing::TempDir data;
  const testing::TempDir outside;
  REQUIRE_OK(SetDataDir(data.path()));
  CHECK_THAT(
      RunKernel(Saver({"m"}, {1}, outside / "s.pb"),
                {Tensor::Scalar<float>(1), Tensor::Scalar<float>(2), Hist({})})
          .status(),
      StatusIs(absl::StatusCode::kPermissionDenied));
  CHECK_THAT(RunKernel(Dump(outside / "d", "t.pb"), {Floats({1})}).status(),
             StatusIs(absl::StatusCode::kPermissionDenied));
  // A relative path lands under the data directory.
  const absl::Status in =
      RunKernel(Saver({"m"}, {1}, "s.pb"),
                {Tensor::Scalar<float>(1), Tensor::Scalar<float>(2), Hist({})})
          .status();
  REQUIRE_OK(SetDataDir(""));
  CHECK(in.ok());
  CHECK(fs::exists(data / "s.pb"));
  CHECK(!fs::exists(outside / "s.pb"));
}

}  // namespace
}  // namespace dfx

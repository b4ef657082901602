// The files TensorFlow 2.21's CalibrationStatisticsSaver and DumpTensor
// write (tests/golden/data/calib_files/, written by gen_calib.py): each
// case's graph runs its steps in a dfx local session with its path attrs
// pointed at a fresh directory; once the session is closed (both ops write
// when their kernel goes) the directory must hold TensorFlow's files. The
// saver's statistics are compared parsed (TensorFlow writes its map in
// hash order) and, for one id, byte for byte; DumpTensor's files byte for
// byte.
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/logging.h"
#include "catch2/catch.hpp"
#include "graph/graph_def_import.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "nlohmann/json.hpp"
#include "proto/calibration_statistics.pb.h"
#include "runtime/session.h"
#include "tests/golden/golden_util.h"
#include "tests/testing/temp_dir.h"

namespace dfx {
namespace {

namespace fs = std::filesystem;

std::string ReadBytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string Deterministic(const CalibrationStatisticsMap& map) {
  std::string out;
  google::protobuf::io::StringOutputStream raw(&out);
  google::protobuf::io::CodedOutputStream coded(&raw);
  coded.SetSerializationDeterministic(true);
  map.SerializeToCodedStream(&coded);
  coded.Trim();
  return out;
}

// What differs between TensorFlow's file `want` and dfx's `got`.
std::string CompareFile(const std::string& name, const fs::path& want,
                        const fs::path& got) {
  if (!fs::exists(got)) return absl::StrCat(name, ": dfx wrote no such file");
  const std::string w = ReadBytes(want);
  const std::string g = ReadBytes(got);
  if (absl::EndsWith(name, "stats.pb")) {
    CalibrationStatisticsMap wm, gm;
    if (!wm.ParseFromString(w)) return absl::StrCat(name, ": TF's unparsable");
    if (!gm.ParseFromString(g)) return absl::StrCat(name, ": dfx's unparsable");
    if (Deterministic(wm) != Deterministic(gm)) {
      return absl::StrCat(name, ": dfx wrote ", gm.DebugString(), "TensorFlow ",
                          wm.DebugString());
    }
    if (wm.statistics_size() <= 1 && w != g) {
      return absl::StrCat(name, ": same statistics, other bytes");
    }
    return "";
  }
  if (w != g) {
    return absl::StrCat(name, ": ", g.size(),
                        " bytes differ from TensorFlow's ", w.size());
  }
  return "";
}

std::string RunFileCase(const fs::path& dir) {
  absl::StatusOr<nlohmann::json> spec = golden::ReadJson(dir / "case.json");
  if (!spec.ok()) return spec.status().ToString();
  absl::StatusOr<GraphDef> graph =
      ReadGraphDefFile((dir / "graph.pb").string());
  if (!graph.ok()) return graph.status().ToString();
  const testing::TempDir scratch("dfx_calib_");
  for (NodeDef& node : *graph->mutable_node()) {
    for (auto& [name, value] : *node.mutable_attr()) {
      if (absl::StartsWith(value.s(), "@SCRATCH_DIR@")) {
        value.set_s(scratch.path() +
                    value.s().substr(std::strlen("@SCRATCH_DIR@")));
      }
    }
  }
  std::vector<std::string> problems;
  {
    SessionOptions options;
    options.config.set_intra_op_parallelism_threads(2);
    auto session = Session::Create("local", options);
    if (!session.ok()) return session.status().ToString();
    absl::Status s = (*session)->Extend(*graph);
    if (!s.ok()) return s.ToString();
    const std::vector<std::string> targets = (*spec)["targets"];
    for (const auto& step : (*spec)["steps"]) {
      absl::StatusOr<Tensor> value =
          golden::ReadTensorFile(dir / step["file"].get<std::string>());
      if (!value.ok()) return value.status().ToString();
      std::vector<Tensor> outputs;
      s = (*session)->Run({{(*spec)["feed"].get<std::string>(), *value}}, {},
                          targets, &outputs);
      if (!s.ok()) return s.ToString();
    }
    s = (*session)->Close();
    if (!s.ok()) return s.ToString();
  }
  std::vector<std::string> want = (*spec)["files"];
  std::vector<std::string> got;
  for (const auto& e : fs::recursive_directory_iterator(scratch.path())) {
    if (e.is_regular_file()) {
      got.push_back(fs::relative(e.path(), scratch.path()).string());
    }
  }
  std::sort(got.begin(), got.end());
  if (want != got) {
    problems.push_back(absl::StrCat("dfx wrote [", absl::StrJoin(got, ", "),
                                    "], TensorFlow [",
                                    absl::StrJoin(want, ", "), "]"));
  }
  for (const std::string& name : want) {
    const std::string p =
        CompareFile(name, dir / "tf" / name, fs::path(scratch.path()) / name);
    if (!p.empty()) problems.push_back(p);
  }
  return absl::StrJoin(problems, "; ");
}

TEST_CASE(
    "golden: calib_files CalibrationStatisticsSaver's statistics and "
    "DumpTensor's files equal TensorFlow's") {
  const fs::path root = fs::path(golden::kGoldenDir) / "calib_files";
  std::vector<fs::path> cases;
  for (const auto& e : fs::directory_iterator(root)) {
    if (e.is_directory()) cases.push_back(e.path());
  }
  std::sort(cases.begin(), cases.end());
  CHECK(cases.size() >= 10);
  int failed = 0;
  for (const fs::path& dir : cases) {
    const std::string problem = RunFileCase(dir);
    if (!problem.empty()) {
      ++failed;
      UNSCOPED_INFO(dir.filename().string() << ": " << problem);
    }
  }
  INFO(failed << " of " << cases.size() << " calib_files cases failed");
  CHECK(failed == 0);
}

// The graph of data/calib/<name> or calib_files/<name>, its path attrs
// pointed into `dir`.
GraphDef CaseGraph(const std::string& folder, const std::string& name,
                   const std::string& dir) {
  absl::StatusOr<GraphDef> graph = ReadGraphDefFile(
      (fs::path(golden::kGoldenDir) / folder / name / "graph.pb").string());
  DFX_CHECK_OK(graph.status());
  for (NodeDef& node : *graph->mutable_node()) {
    for (auto& [attr, value] : *node.mutable_attr()) {
      if (absl::StartsWith(value.s(), "@SCRATCH_DIR@")) {
        value.set_s(dir + value.s().substr(std::strlen("@SCRATCH_DIR@")));
      }
    }
  }
  return *std::move(graph);
}

TEST_CASE(
    "calib: a saver's attr error names the node, with TensorFlow's "
    "Aborted") {
  SessionOptions options;
  auto session = Session::Create("local", options);
  REQUIRE(session.ok());
  REQUIRE(
      (*session)->Extend(CaseGraph("calib", "saver_sizes_differ", "")).ok());
  Tensor x(DT_FLOAT, TensorShape({2}));
  x.data<float>()[0] = 1;
  x.data<float>()[1] = 2;
  std::vector<Tensor> outputs;
  const absl::Status s = (*session)->Run({{"x:0", x}}, {}, {"Saver"}, &outputs);
  CHECK(s.code() == absl::StatusCode::kAborted);
  CHECK(absl::StrContains(s.message(), "Saver"));
  CHECK(absl::StrContains(s.message(), "same size"));
  (void)(*session)->Close();
}

TEST_CASE("calib: steps running at once all reach the saver's statistics") {
  const testing::TempDir scratch("dfx_calib_");
  constexpr int kThreads = 6;
  constexpr int kRuns = 20;
  std::vector<absl::Status> results(kThreads * kRuns);
  {
    SessionOptions options;
    options.config.set_inter_op_parallelism_threads(4);
    auto session = Session::Create("local", options);
    REQUIRE(session.ok());
    REQUIRE((*session)
                ->Extend(CaseGraph("calib_files", "saver_m2", scratch.path()))
                .ok());
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        for (int r = 0; r < kRuns; ++r) {
          Tensor x(DT_FLOAT, TensorShape({2}));
          x.data<float>()[0] = -1;
          x.data<float>()[1] = 2;
          std::vector<Tensor> outputs;
          results[t * kRuns + r] =
              (*session)->Run({{"x:0", x}}, {}, {"Saver"}, &outputs);
        }
      });
    }
    for (std::thread& t : threads) t.join();
    REQUIRE((*session)->Close().ok());
  }
  for (const absl::Status& s : results) REQUIRE(s.ok());
  CalibrationStatisticsMap map;
  REQUIRE(map.ParseFromString(ReadBytes(scratch / "stats.pb")));
  const auto& avg = map.statistics().at("only").average_min_max_statistics();
  CHECK(avg.num_samples() == kThreads * kRuns);
  CHECK(avg.min_sum() == -kThreads * kRuns);
  CHECK(avg.max_sum() == 2 * kThreads * kRuns);
}

}  // namespace
}  // namespace dfx

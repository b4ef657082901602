// Training loops built by tf.compat.v1 (tests/golden/gen_train_graphs.py):
// the GraphDef runs in a dfx local session exactly as TensorFlow ran it —
// the initializer once, then `steps` training steps — and must give
// TensorFlow's initial variable values bit for bit (seeded random
// initializers) and TensorFlow's loss at every step to a relative 1e-5.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "catch2/catch.hpp"
#include "graph/graph_def_import.h"
#include "runtime/session.h"
#include "tests/golden/golden_util.h"
#include "tools/cli/npy.h"

namespace dfx {
namespace {

namespace fs = std::filesystem;

// Runs one case; returns what went wrong, or empty.
std::string RunTrainingCase(const fs::path& dir) {
  absl::StatusOr<nlohmann::json> spec = golden::ReadJson(dir / "case.json");
  if (!spec.ok()) return spec.status().ToString();
  absl::StatusOr<GraphDef> graph =
      ReadGraphDefFile((dir / "graph.pb").string());
  if (!graph.ok()) return graph.status().ToString();

  SessionOptions options;
  options.config.set_intra_op_parallelism_threads(2);
  auto session = Session::Create("local", options);
  if (!session.ok()) return session.status().ToString();
  Session* s = session->get();
  absl::Status st = s->Extend(*graph);
  if (!st.ok()) return absl::StrCat("Extend: ", st.ToString());
  std::vector<Tensor> out;
  st = s->Run({}, {}, {(*spec)["init"].get<std::string>()}, &out);
  if (!st.ok()) return absl::StrCat("init: ", st.ToString());

  std::vector<std::string> problems;
  for (const auto& var : (*spec)["variables"]) {
    const std::string read = var["read"];
    absl::StatusOr<Tensor> want =
        cli::ReadNpyFile((dir / var["file"].get<std::string>()).string());
    if (!want.ok()) return want.status().ToString();
    st = s->Run({}, {read}, {}, &out);
    if (!st.ok()) return absl::StrCat("reading ", read, ": ", st.ToString());
    const std::string diff = golden::Compare(
        out[0], *want, golden::NumpyName(want->dtype()), 0, 0);
    if (!diff.empty()) problems.push_back(absl::StrCat(read, ": ", diff));
  }

  absl::StatusOr<Tensor> losses =
      cli::ReadNpyFile((dir / "losses.npy").string());
  if (!losses.ok()) return losses.status().ToString();
  const std::string loss = (*spec)["loss"];
  const std::string train = (*spec)["train"];
  const int steps = (*spec)["steps"];
  for (int step = 0; step < steps; ++step) {
    st = s->Run({}, {loss}, {train}, &out);
    if (!st.ok()) {
      return absl::StrCat("step ", step, ": ", st.ToString());
    }
    const Tensor want = Tensor::Scalar<float>(losses->data<float>()[step]);
    const std::string diff = golden::Compare(out[0], want, "float32",
                                             /*rtol=*/1e-5, /*atol=*/0);
    if (!diff.empty()) {
      problems.push_back(absl::StrCat("loss at step ", step, ": ", diff));
      break;
    }
  }
  (void)s->Close();
  std::string joined;
  for (const std::string& p : problems) absl::StrAppend(&joined, p, "; ");
  return joined;
}

TEST_CASE("golden: tf.compat.v1 training loops equal TensorFlow's") {
  const fs::path root = fs::path(golden::kGoldenDir) / "train_graphs";
  std::vector<fs::path> cases;
  const char* filter = std::getenv("DFX_GOLDEN_FILTER");
  for (const auto& entry : fs::directory_iterator(root)) {
    if (!entry.is_directory()) continue;
    if (filter != nullptr &&
        entry.path().filename().string().find(filter) == std::string::npos) {
      continue;
    }
    cases.push_back(entry.path());
  }
  std::sort(cases.begin(), cases.end());
  if (filter == nullptr) REQUIRE(cases.size() >= 20);
  int failed = 0;
  for (const fs::path& dir : cases) {
    const std::string problem = RunTrainingCase(dir);
    if (!problem.empty()) {
      ++failed;
      UNSCOPED_INFO(dir.filename().string() << ": " << problem);
    }
  }
  INFO(failed << " of " << cases.size() << " training cases failed");
  CHECK(failed == 0);
}

}  // namespace
}  // namespace dfx

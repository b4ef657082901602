// SaveV2, RestoreV2, MergeV2Checkpoints and the ops that read files under a
// data directory (runtime/file_policy.h, `dfx server --data-dir`), run as a
// user runs them: GraphDefs in a local session.
#include <filesystem>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "runtime/file_policy.h"
#include "tests/checkpoint/checkpoint_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

namespace fs = std::filesystem;
using ::dfx::testing::BoolAttr;
using ::dfx::testing::GraphBuilder;
using ::dfx::testing::IntAttr;
using ::dfx::testing::IsOk;
using ::dfx::testing::RunGraph;
using ::dfx::testing::SameTensor;
using ::dfx::testing::StatusIs;
using ::dfx::testing::StringAttr;
using ::dfx::testing::TempDir;
using ::dfx::testing::TypeAttr;
using ::dfx::testing::TypeListAttr;

// Sets the data directory to `dir` for the object's life.
class ScopedDataDir {
 public:
  explicit ScopedDataDir(const std::string& dir) {
    REQUIRE_THAT(SetDataDir(dir), IsOk());
  }
  ~ScopedDataDir() { SetDataDir("").IgnoreError(); }
};

const Tensor& Value() {
  static const Tensor* value =
      new Tensor(Tensor::FromVector<float>({1.5f, -2.0f, 3.25f}));
  return *value;
}

GraphDef SaveGraph(const std::string& prefix) {
  GraphBuilder g;
  g.Node("save", "SaveV2",
         {g.ScalarString("prefix", prefix), g.StringConst("names", {"v"}),
          g.StringConst("slices", {""}), g.Const("v", Value())},
         {{"dtypes", TypeListAttr({DT_FLOAT})}});
  return g.graph();
}

GraphDef RestoreGraph(const std::string& prefix) {
  GraphBuilder g;
  g.Node("restore", "RestoreV2",
         {g.ScalarString("prefix", prefix), g.StringConst("names", {"v"}),
          g.StringConst("slices", {""})},
         {{"dtypes", TypeListAttr({DT_FLOAT})}});
  return g.graph();
}

GraphDef MergeGraph(const std::vector<std::string>& sources,
                    const std::string& destination) {
  GraphBuilder g;
  g.Node("merge", "MergeV2Checkpoints",
         {g.StringConst("sources", sources),
          g.ScalarString("destination", destination)},
         {{"delete_old_dirs", BoolAttr(false)}});
  return g.graph();
}

TEST_CASE("data dir: a relative prefix saves and restores under it") {
  TempDir tmp;
  fs::create_directories(tmp / "data");
  ScopedDataDir data(tmp / "data");
  REQUIRE_THAT(RunGraph(SaveGraph("ckpt/model"), {}, {"save"}).status(),
               IsOk());
  CHECK(fs::exists(tmp / "data/ckpt/model.index"));
  CHECK(fs::exists(tmp / "data/ckpt/model.data-00000-of-00001"));
  auto got = RunGraph(RestoreGraph("ckpt/model"), {"restore:0"});
  REQUIRE_THAT(got.status(), IsOk());
  CHECK(SameTensor((*got)[0], Value()));
  // Merging inside is fine.
  REQUIRE_THAT(
      RunGraph(MergeGraph({"ckpt/model"}, "merged/model"), {}, {"merge"})
          .status(),
      IsOk());
  CHECK(fs::exists(tmp / "data/merged/model.index"));
}

TEST_CASE("data dir: file ops outside it fail with PermissionDenied") {
  TempDir tmp;
  fs::create_directories(tmp / "data");
  fs::create_directories(tmp / "outside");
  fs::create_directory_symlink(tmp / "outside", tmp / "data/escape");
  {
    // A checkpoint outside, written before the confinement.
    ScopedDataDir none("");
    REQUIRE_THAT(
        RunGraph(SaveGraph(tmp / "outside/real"), {}, {"save"}).status(),
        IsOk());
  }
  ScopedDataDir data(tmp / "data");
  CHECK_THAT(RunGraph(RestoreGraph("/etc/passwd"), {"restore:0"}).status(),
             StatusIs(absl::StatusCode::kPermissionDenied,
                      "node 'restore': path '/etc/passwd'"));
  CHECK_THAT(RunGraph(RestoreGraph(tmp / "outside/real"), {"restore:0"})
                 .status(),
             StatusIs(absl::StatusCode::kPermissionDenied, "outside/real"));
  CHECK_THAT(RunGraph(RestoreGraph("escape/real"), {"restore:0"}).status(),
             StatusIs(absl::StatusCode::kPermissionDenied, "escape/real"));
  CHECK_THAT(RunGraph(SaveGraph("../../x"), {}, {"save"}).status(),
             StatusIs(absl::StatusCode::kPermissionDenied,
                      "node 'save': path '../../x'"));
  CHECK_THAT(RunGraph(SaveGraph("escape/model"), {}, {"save"}).status(),
             StatusIs(absl::StatusCode::kPermissionDenied, "escape/model"));
  CHECK_THAT(RunGraph(MergeGraph({"escape/real"}, "merged"), {}, {"merge"})
                 .status(),
             StatusIs(absl::StatusCode::kPermissionDenied,
                      "node 'merge': path 'escape/real'"));
  CHECK_THAT(RunGraph(MergeGraph({}, tmp / "outside/merged"), {}, {"merge"})
                 .status(),
             StatusIs(absl::StatusCode::kPermissionDenied, "outside/merged"));
  // A checkpoint file inside, linked to one outside.
  fs::create_symlink(tmp / "outside/real.index", tmp / "data/linked.index");
  CHECK_THAT(RunGraph(RestoreGraph("linked"), {"restore:0"}).status(),
             StatusIs(absl::StatusCode::kPermissionDenied, "linked.index"));
  // Nothing was written outside but the checkpoint made before.
  std::vector<std::string> outside;
  for (const auto& e : fs::directory_iterator(tmp / "outside")) {
    outside.push_back(e.path().filename().string());
  }
  std::sort(outside.begin(), outside.end());
  CHECK(outside == std::vector<std::string>{"real.data-00000-of-00001",
                                            "real.index"});
}

TEST_CASE("data dir: ReadFile, text-file tables and vocabulary samplers "
          "read only inside it") {
  TempDir tmp;
  fs::create_directories(tmp / "data");
  fs::create_directories(tmp / "outside");
  tmp.Write("outside/secret.txt", "a\nb\n");
  tmp.Write("data/vocab.txt", "a\nb\n");
  tmp.Write("data/counts.csv", "a,1\nb,2\n");
  ScopedDataDir data(tmp / "data");
  auto read = [](const std::string& path) {
    GraphBuilder g;
    g.Node("read", "ReadFile", {g.ScalarString("name", path)});
    return RunGraph(g.graph(), {"read:0"}).status();
  };
  auto table = [](const std::string& path) {
    GraphBuilder g;
    const std::string t =
        g.Node("table", "HashTableV2", {},
               {{"key_dtype", TypeAttr(DT_STRING)},
                {"value_dtype", TypeAttr(DT_INT64)}});
    g.Node("init", "InitializeTableFromTextFileV2",
           {t, g.ScalarString("name", path)},
           {{"key_index", IntAttr(-2)}, {"value_index", IntAttr(-1)}});
    return RunGraph(g.graph(), {}, {"init"}).status();
  };
  auto sampler = [](const std::string& path) {
    GraphBuilder g;
    g.Node("sample", "FixedUnigramCandidateSampler",
           {g.Const("true", Tensor::FromVector<int64_t>({0}, TensorShape({1, 1})))},
           {{"num_true", IntAttr(1)},
            {"num_sampled", IntAttr(1)},
            {"unique", BoolAttr(true)},
            {"range_max", IntAttr(2)},
            {"vocab_file", StringAttr(path)}});
    return RunGraph(g.graph(), {"sample:0"}).status();
  };
  CHECK_THAT(read("vocab.txt"), IsOk());
  CHECK_THAT(read(tmp / "outside/secret.txt"),
             StatusIs(absl::StatusCode::kPermissionDenied,
                      "node 'read': path '" + (tmp / "outside/secret.txt")));
  CHECK_THAT(read("/etc/passwd"),
             StatusIs(absl::StatusCode::kPermissionDenied, "/etc/passwd"));
  CHECK_THAT(table("vocab.txt"), IsOk());
  CHECK_THAT(table("../outside/secret.txt"),
             StatusIs(absl::StatusCode::kPermissionDenied,
                      "node 'init': path '../outside/secret.txt'"));
  CHECK_THAT(sampler("counts.csv"), IsOk());
  CHECK_THAT(sampler(tmp / "outside/secret.txt"),
             StatusIs(absl::StatusCode::kPermissionDenied, "node 'sample'"));
}

}  // namespace
}  // namespace dfx

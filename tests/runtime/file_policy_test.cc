// Tests of runtime/file_policy.h: how paths resolve under a data directory
// and which ones are refused.
#include "runtime/file_policy.h"

#include <filesystem>
#include <fstream>
#include <string>

#include "catch2/catch.hpp"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace dfx {
namespace {

namespace fs = std::filesystem;
using ::dfx::testing::IsOk;
using ::dfx::testing::StatusIs;

// A temporary folder holding data/ (the data directory, set for the
// object's life) and outside/.
class DataDirFixture {
 public:
  DataDirFixture() {
    root_ = fs::canonical(tmp_.path());
    fs::create_directories(root_ / "data" / "sub");
    fs::create_directories(root_ / "outside");
    REQUIRE_THAT(SetDataDir((root_ / "data").string()), IsOk());
  }
  ~DataDirFixture() { SetDataDir("").IgnoreError(); }
  std::string data() const { return (root_ / "data").string(); }
  std::string outside() const { return (root_ / "outside").string(); }

 private:
  testing::TempDir tmp_{"dfx-policy-"};
  fs::path root_;
};

TEST_CASE("file policy: without a data directory paths are used as given") {
  REQUIRE(DataDir().empty());
  for (const char* path : {"model.ckpt", "/etc/passwd", "../../x", ""}) {
    absl::StatusOr<std::string> got = ResolveDataPath("save", path);
    REQUIRE_THAT(got.status(), IsOk());
    CHECK(*got == path);
  }
}

TEST_CASE("file policy: relative paths resolve under the data directory") {
  DataDirFixture dir;
  CHECK(DataDir() == dir.data());
  absl::StatusOr<std::string> got = ResolveDataPath("save", "ckpt/model");
  REQUIRE_THAT(got.status(), IsOk());
  CHECK(*got == dir.data() + "/ckpt/model");
  got = ResolveDataPath("save", "sub/../model");
  REQUIRE_THAT(got.status(), IsOk());
  CHECK(*got == dir.data() + "/model");
  // An absolute path inside is fine too.
  got = ResolveDataPath("save", dir.data() + "/sub/m");
  REQUIRE_THAT(got.status(), IsOk());
  CHECK(*got == dir.data() + "/sub/m");
}

TEST_CASE("file policy: paths leaving the data directory are refused") {
  DataDirFixture dir;
  for (const std::string& path :
       {std::string("/etc/passwd"), std::string("../../x"),
        std::string("sub/../../x"), std::string("new/../../x"),
        dir.outside() + "/m", dir.data() + "/../data2/m"}) {
    INFO(path);
    CHECK_THAT(ResolveDataPath("restore", path).status(),
               StatusIs(absl::StatusCode::kPermissionDenied,
                        "node 'restore': path '" + path + "'"));
  }
  CHECK_THAT(ResolveDataPath("restore", "/etc/passwd").status(),
             StatusIs(absl::StatusCode::kPermissionDenied,
                      "outside the data directory '" + dir.data() + "'"));
}

TEST_CASE("file policy: a symlink inside pointing out is refused") {
  DataDirFixture dir;
  fs::create_directory_symlink(dir.outside(), dir.data() + "/escape");
  CHECK_THAT(ResolveDataPath("save", "escape/model").status(),
             StatusIs(absl::StatusCode::kPermissionDenied, "escape/model"));
  // A symlink that stays inside is fine, and resolves to its target.
  fs::create_directory_symlink(dir.data() + "/sub", dir.data() + "/alias");
  absl::StatusOr<std::string> got = ResolveDataPath("save", "alias/m");
  REQUIRE_THAT(got.status(), IsOk());
  CHECK(*got == dir.data() + "/sub/m");
}

TEST_CASE("file policy: a checkpoint file of a prefix linked out is refused") {
  DataDirFixture dir;
  std::ofstream(dir.outside() + "/secret") << "x";
  fs::create_symlink(dir.outside() + "/secret", dir.data() + "/m.index");
  // The prefix itself does not exist; its index file leads out.
  CHECK_THAT(ResolveDataPath("restore", "m").status(), IsOk());
  CHECK_THAT(ResolveDataPrefix("restore", "m").status(),
             StatusIs(absl::StatusCode::kPermissionDenied, "m.index"));
  // A prefix that is the data directory would write DIR.index beside it.
  for (const char* prefix : {"", ".", "sub/.."}) {
    INFO(prefix);
    CHECK_THAT(ResolveDataPath("save", prefix).status(), IsOk());
    CHECK_THAT(ResolveDataPrefix("save", prefix).status(),
               StatusIs(absl::StatusCode::kPermissionDenied, "beside"));
  }
  // Other files beside it do not matter.
  fs::create_symlink(dir.outside() + "/secret", dir.data() + "/other.index");
  CHECK_THAT(ResolveDataPrefix("restore", "model").status(), IsOk());
}

TEST_CASE("file policy: the data directory must exist") {
  CHECK_THAT(SetDataDir("/nonexistent/dfx/data"),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "/nonexistent/dfx/data"));
  CHECK(DataDir().empty());
}

}  // namespace
}  // namespace dfx

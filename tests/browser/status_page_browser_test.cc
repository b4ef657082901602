// The status page in a real browser: a 2-task cluster of `dfx server
// --http-port 0` runs steps, headless Chromium loads the page, takes a
// screenshot (kept under build/test_artifacts/) and dumps the DOM, whose
// content is checked. Exits 77 (skipped, as ctest reports it) when
// Chromium is not installed or cannot start; tools/setup installs it.
#define CATCH_CONFIG_RUNNER
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "catch2/catch.hpp"
#include "graph/builder/ops.h"
#include "graph/builder/scope.h"
#include "runtime/session.h"
#include "tests/integration/test_cluster.h"
#include "tests/testing/status_matchers.h"
// Last: it includes <resolv.h>, whose _res macro breaks Eigen's headers.
#include "httplib.h"

namespace dfx {
namespace {

using ::dfx::testing::TestCluster;

constexpr char kWorker0[] = "/job:worker/replica:0/task:0";
constexpr char kWorker1[] = "/job:worker/replica:0/task:1";

std::string& Chromium() {
  static std::string path;
  return path;
}

// Runs `command` (through sh, under `timeout`), returning its stdout and
// exit status.
std::pair<std::string, int> Run(const std::string& command) {
  std::string out;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return {"", -1};
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), pipe)) > 0) out.append(buf, n);
  const int status = ::pclose(pipe);
  return {out, WIFEXITED(status) ? WEXITSTATUS(status) : -1};
}

std::string ChromiumCommand(const std::string& args) {
  // As root (CI containers) Chromium runs only without its sandbox. Its
  // profile is a fresh folder, removed after (the exit status kept).
  return absl::StrCat(
      "profile=$(mktemp -d \"${TMPDIR:-/tmp}/dfx-chromium.XXXXXX\") || "
      "exit 1; timeout 90 ",
      Chromium(),
      " --headless=new --no-sandbox --disable-gpu "
      "--disable-dev-shm-usage --no-first-run "
      "--user-data-dir=\"$profile\" ",
      args, " 2>/dev/null; rc=$?; rm -rf \"$profile\"; exit $rc");
}

TEST_CASE("status page: headless Chromium shows the tasks, the sessions and the steps") {
  TestCluster cluster({{"worker", 2}}, {"--http-port", "0"},
                      TestCluster::Security::kPlain);
  const std::string url = cluster.StatusUrl("worker", 0);

  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x").WithDevice(kWorker0),
                              DT_FLOAT);
  Output w = ops::Const(root.WithOpName("w").WithDevice(kWorker1),
                        {{1.0f, 2.0f}, {3.0f, 4.0f}});
  Output y = ops::MatMul(root.WithOpName("y").WithDevice(kWorker1), x, w);
  ops::AddV2(root.WithOpName("out").WithDevice(kWorker0), y, x);
  GraphDef graph;
  REQUIRE_OK(root.ToGraphDef(&graph));
  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::Create(cluster.Target("worker", 0));
  REQUIRE_OK(session.status());
  REQUIRE_OK(dfx::testing::ExtendFirst(session->get(), graph));
  for (int i = 0; i < 5; ++i) {
    std::vector<Tensor> out;
    REQUIRE_OK(dfx::testing::RunFirstStep(session->get(),
        {{"x", Tensor::FromVector<float>({1, 2, 3, 4}, TensorShape({2, 2}))}},
        {"out"}, {}, &out));
  }
  // The session stays open while the browser looks. The page's health
  // probes of both tasks have answered first (worker 1 may have started
  // after worker 0's first probe).
  {
    httplib::Client client(url);
    client.set_connection_timeout(10);
    const absl::Time give_up = absl::Now() + absl::Seconds(60);
    bool both_up = false;
    while (!both_up && absl::Now() < give_up) {
      httplib::Result page = client.Get("/");
      const std::string body = page ? page->body : "";
      size_t ups = 0;
      for (size_t p = 0; (p = body.find("up (1 device)", p)) !=
                         std::string::npos;
           ++p) {
        ++ups;
      }
      both_up = ups == 2;
      if (!both_up) absl::SleepFor(absl::Milliseconds(200));
    }
    REQUIRE(both_up);
  }

  const std::filesystem::path dir =
      std::filesystem::path(DFX_BIN_DIR).parent_path() / "test_artifacts";
  std::filesystem::create_directories(dir);
  const std::string png = (dir / "status.png").string();
  std::filesystem::remove(png);
  auto [shot, shot_rc] = Run(ChromiumCommand(absl::StrCat(
      "--window-size=1280,1400 --screenshot=", png, " ", url)));
  INFO(shot);
  REQUIRE(shot_rc == 0);
  REQUIRE(std::filesystem::exists(png));
  // A page, not a blank image: a PNG of some size.
  CHECK(std::filesystem::file_size(png) > 10000);
  std::cout << "status page screenshot: " << png << "\n";

  auto [dom, dom_rc] = Run(ChromiumCommand("--dump-dom " + url));
  REQUIRE(dom_rc == 0);
  INFO(dom);
  CHECK(absl::StrContains(dom, "<title>dfx /job:worker/replica:0/task:0"));
  CHECK(absl::StrContains(dom, kWorker0));
  CHECK(absl::StrContains(dom, kWorker1));
  CHECK(absl::StrContains(dom, "Master sessions (1)"));
  // Five steps ran, and any first step RunFirstStep had to retry is there
  // too, with its Unavailable: one row per step, each with its status.
  size_t rows = 0;
  for (size_t p = 0; (p = dom.find("<tr class=\"step\">", p)) !=
                     std::string::npos;
       ++p) {
    ++rows;
  }
  CHECK(rows >= 5);
  CHECK(absl::StrContains(dom, absl::StrCat("Recent steps (", rows, ")")));
  size_t ok_rows = 0;
  for (size_t p = 0; (p = dom.find("<td class=\"ok\">OK</td>", p)) !=
                     std::string::npos;
       ++p) {
    ++ok_rows;
  }
  CHECK(ok_rows == 5);
  // Both tasks answered the page's health probes.
  CHECK(absl::StrContains(dom, "up (1 device)"));
  REQUIRE_OK((*session)->Close());
}

}  // namespace
}  // namespace dfx

int main(int argc, char** argv) {
  for (const char* name : {"chromium", "chromium-browser", "google-chrome"}) {
    auto [path, rc] = dfx::Run(absl::StrCat("command -v ", name));
    if (rc == 0 && !path.empty()) {
      dfx::Chromium() = std::string(absl::StripTrailingAsciiWhitespace(path));
      break;
    }
  }
  if (dfx::Chromium().empty()) {
    std::cout << "SKIPPED: no chromium on PATH (tools/setup installs "
                 "Debian's chromium)\n";
    return 77;
  }
  auto [dom, rc] =
      dfx::Run(dfx::ChromiumCommand("--dump-dom 'data:text/html,<p>hi</p>'"));
  if (rc != 0 || !absl::StrContains(dom, "<p>hi</p>")) {
    std::cout << "SKIPPED: " << dfx::Chromium()
              << " cannot start headless here (exit " << rc << ")\n";
    return 77;
  }
  return Catch::Session().run(argc, argv);
}

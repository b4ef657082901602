// Tests of base/log.h: the logger's text and JSON lines and the step a
// thread works on.
#include "base/log.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "catch2/catch.hpp"
#include "nlohmann/json.hpp"

namespace dfx {
namespace {

// What the process writes to stderr while one lives.
class StderrCapture {
 public:
  StderrCapture() {
    std::fflush(stderr);
    saved_ = ::dup(2);
    file_ = std::tmpfile();
    REQUIRE(file_ != nullptr);
    REQUIRE(::dup2(::fileno(file_), 2) == 2);
  }
  ~StderrCapture() { Restore(); }

  std::string Take() {
    spdlog::default_logger()->flush();
    std::fflush(stderr);
    Restore();
    std::rewind(file_);
    std::string out;
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof(buf), file_)) > 0) {
      out.append(buf, n);
    }
    return out;
  }

 private:
  void Restore() {
    if (saved_ < 0) return;
    std::fflush(stderr);
    ::dup2(saved_, 2);
    ::close(saved_);
    saved_ = -1;
  }
  int saved_ = -1;
  std::FILE* file_ = nullptr;
};

std::vector<std::string> Lines(const std::string& text) {
  return absl::StrSplit(text, '\n', absl::SkipEmpty());
}

TEST_CASE("log: JSON lines carry time, level, task and message, and the step") {
  REQUIRE(ConfigureLogging("info", "json").ok());
  SetLogTask("/job:worker/replica:0/task:3");
  StderrCapture capture;
  spdlog::info("plain \"quoted\" line\nwith a newline");
  int64_t step_id = 0;
  {
    LogStepScope scope("sess-1", &step_id);
    spdlog::warn("before the id");
    step_id = 1234;
    spdlog::error("about the step");
  }
  spdlog::debug("below the level");
  spdlog::info("after the step");
  const std::vector<std::string> lines = Lines(capture.Take());
  REQUIRE(lines.size() == 4);
  std::vector<nlohmann::json> j;
  for (const std::string& line : lines) {
    INFO(line);
    j.push_back(nlohmann::json::parse(line, nullptr, false));
    REQUIRE_FALSE(j.back().is_discarded());
    CHECK(j.back()["task"] == "/job:worker/replica:0/task:3");
    CHECK(j.back()["time"].get<std::string>().size() ==
          std::string("2026-12-03T10:00:00.000Z").size());
  }
  CHECK(j[0]["level"] == "info");
  CHECK(j[0]["msg"] == "plain \"quoted\" line\nwith a newline");
  CHECK_FALSE(j[0].contains("session"));
  CHECK(j[1]["session"] == "sess-1");
  CHECK_FALSE(j[1].contains("step_id"));
  CHECK(j[2]["level"] == "error");
  CHECK(j[2]["session"] == "sess-1");
  CHECK(j[2]["step_id"] == 1234);
  CHECK_FALSE(j[3].contains("step_id"));
  REQUIRE(ConfigureLogging("warn", "text").ok());
}

TEST_CASE("log: text lines name the step at their end") {
  REQUIRE(ConfigureLogging("debug", "text").ok());
  StderrCapture capture;
  int64_t step_id = 77;
  {
    LogStepScope scope("s9", &step_id);
    spdlog::debug("cleanup failed");
  }
  const std::vector<std::string> lines = Lines(capture.Take());
  REQUIRE(lines.size() == 1);
  CHECK(absl::StrContains(lines[0], "[debug] cleanup failed [session s9 "
                                    "step 77]"));
  REQUIRE(ConfigureLogging("warn", "text").ok());
}

TEST_CASE("log: bad levels and formats are refused, naming the flag") {
  absl::Status s = ConfigureLogging("verbose", "text");
  CHECK(s.code() == absl::StatusCode::kInvalidArgument);
  CHECK(absl::StrContains(s.message(), "--log-level 'verbose'"));
  s = CheckLoggingFlags("info", "xml");
  CHECK(s.code() == absl::StatusCode::kInvalidArgument);
  CHECK(absl::StrContains(s.message(), "--log-format 'xml'"));
  CHECK(CheckLoggingFlags("trace", "json").ok());
}

}  // namespace
}  // namespace dfx

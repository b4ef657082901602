#include "base/log.h"

#include <memory>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "nlohmann/json.hpp"
#include "spdlog/sinks/stdout_sinks.h"

namespace dfx {
namespace {

thread_local const LogStepScope* current_step = nullptr;

absl::Mutex task_mu(absl::kConstInit);
std::string* log_task ABSL_GUARDED_BY(task_mu) = nullptr;

std::string LogTask() {
  absl::MutexLock lock(&task_mu);
  return log_task == nullptr ? std::string() : *log_task;
}

}  // namespace

// Writes spdlog's messages as text or JSON lines, with the thread's step.
class LogFormatter : public spdlog::formatter {
 public:
  explicit LogFormatter(bool json) : json_(json) {}

  void format(const spdlog::details::log_msg& msg,
              spdlog::memory_buf_t& dest) override {
    const std::string time =
        absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", absl::FromChrono(msg.time),
                         absl::UTCTimeZone());
    const absl::string_view level(
        spdlog::level::to_string_view(msg.level).data(),
        spdlog::level::to_string_view(msg.level).size());
    const absl::string_view text(msg.payload.data(), msg.payload.size());
    const LogStepScope* step = current_step;
    std::string line;
    if (json_) {
      nlohmann::ordered_json j;
      j["time"] = time;
      j["level"] = level;
      j["task"] = LogTask();
      j["msg"] = text;
      if (step != nullptr) {
        if (*step->step_id_ != 0) j["step_id"] = *step->step_id_;
        j["session"] = step->session_;
      }
      // Bytes that are not UTF-8 (a node name from a graph) become U+FFFD
      // rather than breaking the line.
      line = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    } else {
      line = absl::StrCat("[", time, "] [", level, "] ", text);
      if (step != nullptr) {
        absl::StrAppend(&line, " [session ", step->session_);
        if (*step->step_id_ != 0) {
          absl::StrAppend(&line, " step ", *step->step_id_);
        }
        line += "]";
      }
    }
    line += '\n';
    dest.append(line.data(), line.data() + line.size());
  }

  std::unique_ptr<spdlog::formatter> clone() const override {
    return std::make_unique<LogFormatter>(json_);
  }

 private:
  const bool json_;
};

namespace {

absl::StatusOr<spdlog::level::level_enum> ParseLevel(absl::string_view level) {
  spdlog::level::level_enum lvl;
  if (level == "trace") {
    lvl = spdlog::level::trace;
  } else if (level == "debug") {
    lvl = spdlog::level::debug;
  } else if (level == "info") {
    lvl = spdlog::level::info;
  } else if (level == "warn") {
    lvl = spdlog::level::warn;
  } else if (level == "error") {
    lvl = spdlog::level::err;
  } else {
    return absl::InvalidArgumentError(absl::StrCat(
        "--log-level '", level,
        "' is not one of trace, debug, info, warn, error"));
  }
  return lvl;
}

}  // namespace

absl::Status CheckLoggingFlags(absl::string_view level,
                               absl::string_view format) {
  if (absl::StatusOr<spdlog::level::level_enum> lvl = ParseLevel(level);
      !lvl.ok()) {
    return lvl.status();
  }
  if (format != "text" && format != "json") {
    return absl::InvalidArgumentError(
        absl::StrCat("--log-format '", format, "' is not text or json"));
  }
  return absl::OkStatus();
}

absl::Status ConfigureLogging(absl::string_view level,
                              absl::string_view format) {
  if (absl::Status s = CheckLoggingFlags(level, format); !s.ok()) return s;
  const spdlog::level::level_enum lvl = *ParseLevel(level);
  auto logger = std::make_shared<spdlog::logger>(
      "dfx", std::make_shared<spdlog::sinks::stderr_sink_mt>());
  logger->set_formatter(std::make_unique<LogFormatter>(format == "json"));
  logger->set_level(lvl);
  // Warnings and errors reach the terminal (or the collector) at once.
  logger->flush_on(spdlog::level::warn);
  spdlog::set_default_logger(std::move(logger));
  spdlog::set_level(lvl);
  return absl::OkStatus();
}

void SetLogTask(absl::string_view task) {
  absl::MutexLock lock(&task_mu);
  if (log_task == nullptr) log_task = new std::string;
  log_task->assign(task.data(), task.size());
}

LogStepScope::LogStepScope(absl::string_view session, const int64_t* step_id)
    : previous_(current_step), session_(session), step_id_(step_id) {
  current_step = this;
}

LogStepScope::~LogStepScope() { current_step = previous_; }

}  // namespace dfx

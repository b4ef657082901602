// The process logger (spdlog) with fmt formatters for absl::string_view and
// absl::Status, so both can be logged directly: spdlog::info("{}", status);
// its configuration (level, text or JSON lines); and the step a thread works
// on, which every line it logs meanwhile carries.
#ifndef DFX_BASE_LOG_H_
#define DFX_BASE_LOG_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "spdlog/spdlog.h"

template <>
struct fmt::formatter<absl::string_view> : fmt::formatter<fmt::string_view> {
  template <typename FormatContext>
  auto format(absl::string_view s, FormatContext& ctx) const {
    return fmt::formatter<fmt::string_view>::format(
        fmt::string_view(s.data(), s.size()), ctx);
  }
};

template <>
struct fmt::formatter<absl::Status> : fmt::formatter<fmt::string_view> {
  template <typename FormatContext>
  auto format(const absl::Status& s, FormatContext& ctx) const {
    const std::string text = s.ToString();
    return fmt::formatter<fmt::string_view>::format(
        fmt::string_view(text.data(), text.size()), ctx);
  }
};

namespace dfx {

// Makes the default logger write one line per message to stderr, at
// `level` (trace, debug, info, warn, error) and in `format`: "text"
// ("[time] [level] message", then "[session H step N]" for a line about a
// step) or "json" (one object per line: time, level, task, msg, and
// step_id and session for a line about a step). InvalidArgument naming the
// bad value. Not thread-safe: call it before starting threads.
absl::Status ConfigureLogging(absl::string_view level,
                              absl::string_view format);

// ConfigureLogging's checks alone, changing nothing.
absl::Status CheckLoggingFlags(absl::string_view level,
                               absl::string_view format);

// The task name every JSON line carries ("task"); empty until set.
// Thread-safe.
void SetLogTask(absl::string_view task);

// While one lives, the lines its thread logs are about this step: they
// carry the session handle and the step id (read when a line is written:
// `*step_id` may be set later, 0 meaning not known yet). Both borrowed for
// the scope's life. Scopes nest; the innermost wins.
class LogStepScope {
 public:
  LogStepScope(absl::string_view session, const int64_t* step_id);
  ~LogStepScope();
  LogStepScope(const LogStepScope&) = delete;
  LogStepScope& operator=(const LogStepScope&) = delete;

 private:
  const LogStepScope* const previous_;
  friend class LogFormatter;
  const absl::string_view session_;
  const int64_t* const step_id_;
};

}  // namespace dfx

#endif  // DFX_BASE_LOG_H_

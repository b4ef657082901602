// The process logger (spdlog) with fmt formatters for absl::string_view and
// absl::Status, so both can be logged directly: DFX_LOG_INFO("{}", status).
#ifndef DFX_BASE_LOG_H_
#define DFX_BASE_LOG_H_

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

#endif  // DFX_BASE_LOG_H_

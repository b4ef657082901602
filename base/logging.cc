#include "base/logging.h"

#include <cstdlib>

#include "base/log.h"

namespace dfx::internal {

void CheckFailed(const char* file, int line, const char* cond,
                 absl::string_view message) {
  spdlog::critical("{}:{}: check failed: {} {}", file, line, cond, message);
  spdlog::default_logger()->flush();
  std::abort();
}

}  // namespace dfx::internal

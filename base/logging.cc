#include "base/logging.h"

#include <cstdlib>

#include "base/log.h"

namespace dfx::internal {
namespace {

// spdlog's registry, which holds the default logger, is a function-local
// static inside libspdlog, made on the first log line. Made here instead,
// before main and any thread (this file is in every program: DFX_CHECK
// calls it), so no two threads ever race to make it. Thread-safe statics
// would order them anyway, but the guard's fast path runs inside the
// uninstrumented libspdlog, and ThreadSanitizer saw two threads' first
// collective log lines racing with the registry's construction.
[[maybe_unused]] const bool kLogRegistryMade =
    (spdlog::default_logger_raw(), true);

}  // namespace

void CheckFailed(const char* file, int line, const char* cond,
                 absl::string_view message) {
  spdlog::critical("{}:{}: check failed: {} {}", file, line, cond, message);
  spdlog::default_logger()->flush();
  std::abort();
}

}  // namespace dfx::internal

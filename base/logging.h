// DFX_CHECK for broken invariants of dfx's own code, and the process logger.
// Input from outside (graphs, feeds, RPCs, files) is never CHECKed: it gets an
// absl::Status.
#ifndef DFX_BASE_LOGGING_H_
#define DFX_BASE_LOGGING_H_

#include "absl/strings/string_view.h"

#include "absl/base/optimization.h"

namespace dfx::internal {

// Logs "file:line: check failed: cond" at critical level and aborts.
[[noreturn]] void CheckFailed(const char* file, int line, const char* cond,
                              absl::string_view message);

}  // namespace dfx::internal

#define DFX_CHECK(cond)                                            \
  do {                                                             \
    if (ABSL_PREDICT_FALSE(!(cond))) {                             \
      ::dfx::internal::CheckFailed(__FILE__, __LINE__, #cond, ""); \
    }                                                              \
  } while (0)

#define DFX_CHECK_MSG(cond, message)                                    \
  do {                                                                  \
    if (ABSL_PREDICT_FALSE(!(cond))) {                                  \
      ::dfx::internal::CheckFailed(__FILE__, __LINE__, #cond, message); \
    }                                                                   \
  } while (0)

#define DFX_CHECK_OK(expr)                                               \
  do {                                                                   \
    ::absl::Status dfx_check_status_ = (expr);                           \
    if (ABSL_PREDICT_FALSE(!dfx_check_status_.ok())) {                   \
      ::dfx::internal::CheckFailed(__FILE__, __LINE__, #expr,            \
                                   dfx_check_status_.ToString());        \
    }                                                                    \
  } while (0)

#ifdef NDEBUG
#define DFX_DCHECK(cond) \
  do {                   \
  } while (false && (cond))
#else
#define DFX_DCHECK(cond) DFX_CHECK(cond)
#endif

#endif  // DFX_BASE_LOGGING_H_

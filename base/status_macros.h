// DFX_RETURN_IF_ERROR and DFX_ASSIGN_OR_RETURN, the two status macros every
// module uses (the Debian Abseil has none of its own).
#ifndef DFX_BASE_STATUS_MACROS_H_
#define DFX_BASE_STATUS_MACROS_H_

#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

// Evaluates `expr` (an absl::Status) and returns it from the enclosing
// function when it is not OK.
#define DFX_RETURN_IF_ERROR(expr)                    \
  do {                                               \
    ::absl::Status dfx_status_ = (expr);             \
    if (ABSL_PREDICT_FALSE(!dfx_status_.ok())) {     \
      return dfx_status_;                            \
    }                                                \
  } while (0)

#define DFX_STATUS_MACROS_CONCAT_INNER_(x, y) x##y
#define DFX_STATUS_MACROS_CONCAT_(x, y) DFX_STATUS_MACROS_CONCAT_INNER_(x, y)

// DFX_ASSIGN_OR_RETURN(lhs, expr): evaluates `expr` (an absl::StatusOr<T>);
// returns its status when not OK, otherwise moves the value into `lhs`, which
// may be a declaration (`auto x`) or an existing variable.
#define DFX_ASSIGN_OR_RETURN(lhs, expr)                                      \
  DFX_ASSIGN_OR_RETURN_IMPL_(                                                \
      DFX_STATUS_MACROS_CONCAT_(dfx_statusor_, __LINE__), lhs, expr)

#define DFX_ASSIGN_OR_RETURN_IMPL_(statusor, lhs, expr) \
  auto statusor = (expr);                               \
  if (ABSL_PREDICT_FALSE(!statusor.ok())) {             \
    return std::move(statusor).status();                \
  }                                                     \
  lhs = std::move(statusor).value()

#endif  // DFX_BASE_STATUS_MACROS_H_

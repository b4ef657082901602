#include "graph/ops/ops.h"

namespace dfx {

absl::Status RegisterFunctionOps(OpRegistry* registry) {
  return absl::OkStatus();
}

}  // namespace dfx

#include "graph/ops/ops.h"

namespace dfx {

absl::Status RegisterArrayOps(OpRegistry* registry) {
  return absl::OkStatus();
}

}  // namespace dfx

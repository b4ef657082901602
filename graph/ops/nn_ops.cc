#include "graph/ops/ops.h"

namespace dfx {

absl::Status RegisterNnOps(OpRegistry* registry) {
  return absl::OkStatus();
}

}  // namespace dfx

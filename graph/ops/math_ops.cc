#include "graph/ops/ops.h"

namespace dfx {

absl::Status RegisterMathOps(OpRegistry* registry) {
  return absl::OkStatus();
}

}  // namespace dfx

#include "graph/builder/grad/grad.h"

#include "base/status_macros.h"

namespace dfx {

absl::Status RegisterStandardGradients(GradientRegistry* registry) {
  DFX_RETURN_IF_ERROR(RegisterMathGradients(registry));
  DFX_RETURN_IF_ERROR(RegisterNnGradients(registry));
  DFX_RETURN_IF_ERROR(RegisterArrayGradients(registry));
  DFX_RETURN_IF_ERROR(RegisterControlFlowGradients(registry));
  DFX_RETURN_IF_ERROR(RegisterDataFlowGradients(registry));
  return absl::OkStatus();
}

}  // namespace dfx

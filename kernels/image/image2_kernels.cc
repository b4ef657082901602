// RegisterImage2Kernels: every kernel of the image2 family.
#include "kernels/image/image2_kernels.h"

#include "kernels/kernels.h"

namespace dfx {

void RegisterImage2Kernels(KernelRegistry* registry) {
  RegisterNms2Kernels(registry);
  RegisterCropAndResizeGradKernels(registry);
  RegisterDrawBoundingBoxesKernels(registry);
  RegisterGlimpseContrastKernels(registry);
}

}  // namespace dfx

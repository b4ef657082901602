// RegisterImageKernels: every kernel of kernels/image/.
#include "kernels/image/image_kernels.h"

#include "kernels/kernels.h"

namespace dfx {

void RegisterImageKernels(KernelRegistry* registry) {
  RegisterResizeKernels(registry);
  RegisterScaleAndTranslateKernels(registry);
  RegisterSpaceDepthKernels(registry);
  RegisterNonMaxSuppressionKernels(registry);
  RegisterCropAndResizeKernels(registry);
  RegisterColorKernels(registry);
  RegisterProjectiveTransformKernels(registry);
}

}  // namespace dfx

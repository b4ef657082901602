// Registration of the image2 family's kernel files; RegisterImage2Kernels
// (kernels/kernels.h) calls each.
#ifndef DFX_KERNELS_IMAGE_IMAGE2_KERNELS_H_
#define DFX_KERNELS_IMAGE_IMAGE2_KERNELS_H_

#include "runtime/op_kernel.h"

namespace dfx {

// NonMaxSuppression, NonMaxSuppressionV2, NonMaxSuppressionWithOverlaps,
// CombinedNonMaxSuppression (nms2_ops.cc).
void RegisterNms2Kernels(KernelRegistry* registry);
// CropAndResizeGradImage, CropAndResizeGradBoxes.
void RegisterCropAndResizeGradKernels(KernelRegistry* registry);
// DrawBoundingBoxes, DrawBoundingBoxesV2.
void RegisterDrawBoundingBoxesKernels(KernelRegistry* registry);
// ExtractGlimpse, ExtractGlimpseV2, AdjustContrast (v1).
void RegisterGlimpseContrastKernels(KernelRegistry* registry);

}  // namespace dfx

#endif  // DFX_KERNELS_IMAGE_IMAGE2_KERNELS_H_

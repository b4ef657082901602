// Registration of the image kernels' parts; RegisterImageKernels
// (kernels/kernels.h) calls each.
#ifndef DFX_KERNELS_IMAGE_IMAGE_KERNELS_H_
#define DFX_KERNELS_IMAGE_IMAGE_KERNELS_H_

#include "runtime/op_kernel.h"

namespace dfx {

// ResizeBilinear, ResizeNearestNeighbor, ResizeBicubic, ResizeArea and the
// gradients ResizeBilinearGrad, ResizeNearestNeighborGrad,
// ResizeBicubicGrad.
void RegisterResizeKernels(KernelRegistry* registry);
// DepthToSpace, SpaceToDepth, SpaceToBatchND, BatchToSpaceND.
void RegisterSpaceDepthKernels(KernelRegistry* registry);
// NonMaxSuppressionV3, V4, V5.
void RegisterNonMaxSuppressionKernels(KernelRegistry* registry);
// CropAndResize.
void RegisterCropAndResizeKernels(KernelRegistry* registry);
// RGBToHSV, HSVToRGB, AdjustContrastv2, AdjustSaturation, AdjustHue.
void RegisterColorKernels(KernelRegistry* registry);
// ScaleAndTranslate, ScaleAndTranslateGrad.
void RegisterScaleAndTranslateKernels(KernelRegistry* registry);
// ImageProjectiveTransformV2, V3.
void RegisterProjectiveTransformKernels(KernelRegistry* registry);

}  // namespace dfx

#endif  // DFX_KERNELS_IMAGE_IMAGE_KERNELS_H_

// The sample positions of CropAndResize and its gradients: crop row (or
// column) i of a box edge pair (lo, hi) along an axis of `size` pixels, in
// TensorFlow's float (and, for one-sample crops, double) arithmetic.
#ifndef DFX_KERNELS_IMAGE_CROP_SAMPLING_H_
#define DFX_KERNELS_IMAGE_CROP_SAMPLING_H_

#include <cmath>
#include <cstdint>

namespace dfx {

// The step between samples of a crop of `crop` samples (0 for one).
inline float CropScale(float lo, float hi, int64_t size, int64_t crop) {
  return crop > 1 ? (hi - lo) * static_cast<float>(size - 1) /
                        static_cast<float>(crop - 1)
                  : 0.0f;
}

// The image coordinate of sample i.
inline float CropSamplePosition(float lo, float hi, int64_t i, float scale,
                                int64_t size, int64_t crop) {
  if (crop > 1) return lo * static_cast<float>(size - 1) + i * scale;
  // TensorFlow centers a one-sample crop in double precision.
  return static_cast<float>(0.5 * (lo + hi) * static_cast<double>(size - 1));
}

// Inside [0, size - 1]; NaN positions count as outside (TensorFlow's
// behaviour for them is undefined).
inline bool CropInside(float v, int64_t size) {
  return v >= 0 && v <= static_cast<float>(size - 1);
}

// The two pixels around an inside position and the weight of the second.
struct CropLerp {
  int64_t lo;
  int64_t hi;
  float t;
};
inline CropLerp CropLerpAt(float v) {
  const int64_t lo = static_cast<int64_t>(std::floor(v));
  return CropLerp{lo, static_cast<int64_t>(std::ceil(v)),
                  v - static_cast<float>(lo)};
}

}  // namespace dfx

#endif  // DFX_KERNELS_IMAGE_CROP_SAMPLING_H_

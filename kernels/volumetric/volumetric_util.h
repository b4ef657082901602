// Helpers shared by the volumetric kernels (kernels/volumetric/ only): the
// geometry of a windowed op over a 5-D NDHWC or NCDHW tensor, element
// offsets in either layout, attr checks shared by Conv3D and the 3-D pooling
// ops, and the registration functions RegisterVolumetricKernels calls.
#ifndef DFX_KERNELS_VOLUMETRIC_VOLUMETRIC_UTIL_H_
#define DFX_KERNELS_VOLUMETRIC_VOLUMETRIC_UTIL_H_

#include "kernels/conv/conv_util.h"  // first: defines EIGEN_USE_THREADS

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "runtime/op_kernel.h"
#include "runtime/tensor_shape.h"

namespace dfx::volumetric_internal {

// The type sums are kept in: double for double, float for float and the
// 16-bit floats (as TensorFlow's CPU kernels do for those).
template <typename T>
using AccT = std::conditional_t<std::is_same_v<T, double>, double, float>;

// Strides of the five logical dims (batch, three spatial, channel) of a
// tensor of `batch` x `spatial` x `channels` in one of the two layouts.
struct Offsets5 {
  int64_t n = 0, s[3] = {0, 0, 0}, c = 0;

  Offsets5() = default;
  Offsets5(bool channels_first, const int64_t spatial[3], int64_t channels) {
    const int64_t plane = spatial[0] * spatial[1] * spatial[2];
    if (channels_first) {
      s[2] = 1;
      s[1] = spatial[2];
      s[0] = spatial[1] * spatial[2];
      c = plane;
      n = plane * channels;
    } else {
      c = 1;
      s[2] = channels;
      s[1] = spatial[2] * channels;
      s[0] = spatial[1] * spatial[2] * channels;
      n = plane * channels;
    }
  }
  int64_t At(int64_t b, int64_t d, int64_t h, int64_t w, int64_t ch) const {
    return b * n + d * s[0] + h * s[1] + w * s[2] + ch * c;
  }
};

// The layout-independent geometry of a 3-D windowed op.
struct Geom3 {
  bool channels_first = false;
  int64_t batch = 0;
  int64_t in[3] = {0, 0, 0};
  int64_t in_channels = 0;
  int64_t window[3] = {1, 1, 1};
  int64_t stride[3] = {1, 1, 1};
  int64_t dilation[3] = {1, 1, 1};
  int64_t out[3] = {0, 0, 0};
  int64_t pad[3] = {0, 0, 0};  // before; SAME puts any odd extra after
  int64_t out_channels = 0;

  int64_t InPlane() const { return in[0] * in[1] * in[2]; }
  int64_t OutPlane() const { return out[0] * out[1] * out[2]; }
  Offsets5 InOffsets() const { return Offsets5(channels_first, in, in_channels); }
  Offsets5 OutOffsets() const {
    return Offsets5(channels_first, out, out_channels);
  }
  // A 5-D shape of `batch`, spatial dims `sp` and `channels` in the layout.
  std::vector<int64_t> Dims(const int64_t sp[3], int64_t channels) const;
  // Sets out[] and pad[] from in[], window[], stride[], dilation[].
  absl::Status ComputeOutput(conv_internal::Padding padding);
};

// Reads data_format ("NDHWC" or "NCDHW") into *channels_first.
absl::Status ReadFormat3D(const OpKernelConstruction& ctx,
                          bool* channels_first);

// Reads padding: SAME or VALID (the 3-D ops have no EXPLICIT).
absl::Status ReadPadding(const OpKernelConstruction& ctx,
                         conv_internal::Padding* padding);

// Reads a 5-element list(int) attr; InvalidArgument with `size_error` when
// it has another length.
absl::Status ReadList5(const OpKernelConstruction& ctx, const char* attr,
                       const char* size_error, std::vector<int64_t>* values);

void RegisterConv3DKernels(KernelRegistry* registry);
void RegisterPool3DKernels(KernelRegistry* registry);
void RegisterPatchesKernels(KernelRegistry* registry);
void RegisterDilationKernels(KernelRegistry* registry);

}  // namespace dfx::volumetric_internal

#endif  // DFX_KERNELS_VOLUMETRIC_VOLUMETRIC_UTIL_H_

#include "kernels/volumetric/volumetric_util.h"

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "kernels/kernels.h"

namespace dfx {
namespace volumetric_internal {

std::vector<int64_t> Geom3::Dims(const int64_t sp[3], int64_t channels) const {
  if (channels_first) return {batch, channels, sp[0], sp[1], sp[2]};
  return {batch, sp[0], sp[1], sp[2], channels};
}

absl::Status Geom3::ComputeOutput(conv_internal::Padding padding) {
  for (int i = 0; i < 3; ++i) {
    int64_t after = 0;
    DFX_RETURN_IF_ERROR(conv_internal::WindowedOutputSize(
        in[i], window[i], dilation[i], stride[i], padding, 0, 0, &out[i],
        &pad[i], &after));
  }
  return absl::OkStatus();
}

absl::Status ReadFormat3D(const OpKernelConstruction& ctx,
                          bool* channels_first) {
  std::string format;
  DFX_RETURN_IF_ERROR(ctx.GetAttr("data_format", &format));
  if (format != "NDHWC" && format != "NCDHW") {
    return absl::InvalidArgumentError(
        absl::StrCat("Invalid data format: ", format));
  }
  *channels_first = format == "NCDHW";
  return absl::OkStatus();
}

absl::Status ReadPadding(const OpKernelConstruction& ctx,
                         conv_internal::Padding* padding) {
  std::string text;
  DFX_RETURN_IF_ERROR(ctx.GetAttr("padding", &text));
  if (text != "SAME" && text != "VALID") {
    return absl::InvalidArgumentError(
        absl::StrCat("Unknown padding type: ", text));
  }
  return conv_internal::ParsePadding(text, padding);
}

absl::Status ReadList5(const OpKernelConstruction& ctx, const char* attr,
                       const char* size_error, std::vector<int64_t>* values) {
  DFX_RETURN_IF_ERROR(ctx.GetAttr(attr, values));
  if (values->size() != 5) return absl::InvalidArgumentError(size_error);
  return absl::OkStatus();
}

}  // namespace volumetric_internal

void RegisterVolumetricKernels(KernelRegistry* registry) {
  volumetric_internal::RegisterConv3DKernels(registry);
  volumetric_internal::RegisterPool3DKernels(registry);
  volumetric_internal::RegisterPatchesKernels(registry);
  volumetric_internal::RegisterDilationKernels(registry);
}

}  // namespace dfx

// JPEG XL decoding over libjxl as TensorFlow's decode ops do it
// (tensorflow/core/lib/jxl/jxl_io.cc): the first frame of the file (an
// animation's first composited frame), 8-bit samples in the file's own
// channels: grey, grey+alpha, RGB or RGBA.
#ifndef DFX_KERNELS_CODEC_JXL_CODEC_H_
#define DFX_KERNELS_CODEC_JXL_CODEC_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace dfx::codec {

// True when `data` starts with a JPEG XL codestream or container signature.
bool HasJxlSignature(absl::string_view data);

struct JxlInfo {
  int64_t width = 0;
  int64_t height = 0;
  // Colour channels (1 or 3) plus one for alpha.
  int channels = 0;
};

// The image's size and channels from its header, the whole of `data` being
// the file. False when libjxl cannot read them (bad or truncated header).
bool ReadJxlInfo(absl::string_view data, JxlInfo* info);

// Decodes the first frame of `data` into `out`, `size` bytes that hold
// exactly height * width * `channels` 8-bit samples, row-major,
// interleaved. InvalidArgument "Failed to decode JXL image" for a bad or
// truncated file. Single-threaded.
absl::Status DecodeJxl(absl::string_view data, int channels, uint8_t* out,
                       size_t size);

}  // namespace dfx::codec

#endif  // DFX_KERNELS_CODEC_JXL_CODEC_H_

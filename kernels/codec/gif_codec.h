// GIF decoding over giflib with TensorFlow's frame composition
// (tensorflow/core/lib/gif/gif_io.cc): every frame drawn over the previous
// one on a canvas as large as the largest frame, transparent pixels
// keeping what was there (black on the first frame).
#ifndef DFX_KERNELS_CODEC_GIF_CODEC_H_
#define DFX_KERNELS_CODEC_GIF_CODEC_H_

#include <cstdint>
#include <string>

#include "absl/functional/function_ref.h"
#include "absl/strings/string_view.h"

namespace dfx::codec {

// Called once the size is known; returns a buffer of
// frames * height * width * channels bytes, or null to abandon the decode.
using GifAllocator = absl::FunctionRef<uint8_t*(int frames, int width,
                                                int height, int channels)>;

// Decodes `data` to RGB frames (only the first unless `all_frames`).
// False with `error` set (empty when `allocate` returned null) for an
// invalid file.
bool DecodeGif(absl::string_view data, bool all_frames, GifAllocator allocate,
               std::string* error);

}  // namespace dfx::codec

#endif  // DFX_KERNELS_CODEC_GIF_CODEC_H_

// JPEG decoding and encoding over libjpeg-turbo with TensorFlow's options
// and conversions (tensorflow/core/lib/jpeg/jpeg_mem.cc): channel count,
// downscaling ratio, DCT method, upsampling, crop windows, recovery of
// truncated files. Errors in the file are reported as `false`, never by
// aborting: libjpeg's fatal errors longjmp back here.
#ifndef DFX_KERNELS_CODEC_JPEG_CODEC_H_
#define DFX_KERNELS_CODEC_JPEG_CODEC_H_

#include <cstdint>
#include <string>

#include "absl/functional/function_ref.h"
#include "absl/strings/string_view.h"

namespace dfx::codec {

struct JpegDecodeOptions {
  int channels = 0;  // 0 (the file's own, CMYK as RGB), 1 or 3
  int ratio = 1;     // 1, 2, 4 or 8: the image is scaled down by it
  bool fancy_upscaling = true;
  bool try_recover_truncated = false;
  // Fewer rows than this fraction of the image fails the decode; the rest
  // of a shorter image is black.
  float min_acceptable_fraction = 1.0f;
  bool integer_fast_dct = true;  // else libjpeg's accurate integer DCT
  bool crop = false;
  int crop_x = 0;
  int crop_y = 0;
  int crop_width = 0;
  int crop_height = 0;
};

// Called once the output size is known; returns a buffer of
// height * width * channels bytes, or null to abandon the decode.
using JpegAllocator = absl::FunctionRef<uint8_t*(int width, int height,
                                                 int channels)>;

// Decodes `data` into the buffer `allocate` returns. False for an invalid
// file, options the file cannot satisfy (a crop window outside it) or a
// null buffer.
bool DecodeJpeg(absl::string_view data, const JpegDecodeOptions& options,
                JpegAllocator allocate);

// The size and output channel count libjpeg decodes `data` to by default
// (CMYK files: 4). False for an invalid file.
bool JpegShape(absl::string_view data, int* width, int* height,
               int* channels);

struct JpegEncodeOptions {
  int channels = 3;  // 1 (grayscale) or 3 (RGB)
  int quality = 95;  // 0-100
  bool progressive = false;
  bool optimize_size = false;
  bool chroma_downsampling = true;
  int density_unit = 1;  // JFIF: 1 dots per inch, 2 per cm
  int x_density = 300;
  int y_density = 300;
  absl::string_view xmp_metadata;  // written as an APP1 marker if not empty
};

// Encodes a height x width x channels row-major image. False for an empty
// or too large image or a libjpeg error.
bool EncodeJpeg(const uint8_t* image, int width, int height,
                const JpegEncodeOptions& options, std::string* out);

}  // namespace dfx::codec

#endif  // DFX_KERNELS_CODEC_JPEG_CODEC_H_

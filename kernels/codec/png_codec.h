// PNG decoding and encoding over libpng, with TensorFlow's conversions
// (tensorflow/core/lib/png/png_io.cc): the channel count and bit depth a
// caller asks for, whatever the file holds. Errors in the file are reported
// as `false`, never by aborting: libpng's errors longjmp back here.
#ifndef DFX_KERNELS_CODEC_PNG_CODEC_H_
#define DFX_KERNELS_CODEC_PNG_CODEC_H_

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"

namespace dfx::codec {

// One PNG being decoded. Init reads the header; Finish the pixels. Not
// thread-safe; one decoder per file.
class PngDecoder {
 public:
  PngDecoder() = default;
  PngDecoder(const PngDecoder&) = delete;
  PngDecoder& operator=(const PngDecoder&) = delete;
  ~PngDecoder();

  // Reads the header of `data` (which must outlive the decoder) and sets up
  // the conversion to `channels` (0: the file's own; 1-4) of
  // `channel_bits` (8 or 16) each. False when the header is malformed or
  // the image has no pixels.
  bool Init(absl::string_view data, int channels, int channel_bits);

  // After Init: the image's size and the channels Finish writes.
  uint32_t width() const { return width_; }
  uint32_t height() const { return height_; }
  int channels() const { return channels_; }

  // Decodes every row into `out` (height rows of `row_bytes`; 16-bit
  // samples in host order). False when the data is corrupt or truncated.
  bool Finish(uint8_t* out, int64_t row_bytes);

  // Cursor over the input, for libpng's read callback.
  struct Source {
    const uint8_t* data = nullptr;
    size_t left = 0;
  };

 private:
  void Free();

  Source source_;
  void* png_ = nullptr;   // png_structp
  void* info_ = nullptr;  // png_infop
  uint32_t width_ = 0;
  uint32_t height_ = 0;
  int bit_depth_ = 0;
  int channels_ = 0;
  int passes_ = 1;
  bool synthesize_16_ = false;
};

// Encodes `height` rows of `row_bytes` (`width` pixels of `channels`, 1-4,
// samples of `channel_bits`, 8 or 16, 16-bit ones in host order) at zlib
// level `compression` (-1: zlib's default). False for an empty image or a
// libpng error.
bool EncodePng(const uint8_t* image, int width, int height, int64_t row_bytes,
               int channels, int channel_bits, int compression,
               std::string* out);

}  // namespace dfx::codec

#endif  // DFX_KERNELS_CODEC_PNG_CODEC_H_

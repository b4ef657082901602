// PNG decoding and encoding: see png_codec.h.
//
// libpng reports errors by calling the error function, which must not
// return; ours longjmps to the setjmp of the call that is running. The
// functions that call setjmp hold no objects with destructors, so nothing
// is skipped by the jump.
#include "kernels/codec/png_codec.h"

#include <png.h>
#include <zlib.h>

#include <cstring>

namespace dfx::codec {
namespace {

void OnError(png_structp png, png_const_charp /*msg*/) {
  longjmp(png_jmpbuf(png), 1);
}

// Warnings (a bad ancillary chunk's CRC, say) are not errors for
// TensorFlow either; they are dropped rather than logged per image.
void OnWarning(png_structp, png_const_charp) {}

void ReadFromSource(png_structp png, png_bytep data, png_size_t length) {
  auto* src = static_cast<PngDecoder::Source*>(png_get_io_ptr(png));
  if (src->left < length) {
    png_error(png, "More bytes requested to read than available");
  }
  std::memcpy(data, src->data, length);
  src->data += length;
  src->left -= length;
}

void WriteToString(png_structp png, png_bytep data, png_size_t length) {
  static_cast<std::string*>(png_get_io_ptr(png))
      ->append(reinterpret_cast<const char*>(data), length);
}

void FlushNothing(png_structp) {}

}  // namespace

PngDecoder::~PngDecoder() { Free(); }

void PngDecoder::Free() {
  if (png_ != nullptr) {
    png_structp png = static_cast<png_structp>(png_);
    png_infop info = static_cast<png_infop>(info_);
    png_destroy_read_struct(&png, info != nullptr ? &info : nullptr, nullptr);
    png_ = nullptr;
    info_ = nullptr;
  }
}

bool PngDecoder::Init(absl::string_view data, int channels,
                      int channel_bits) {
  Free();
  channels_ = channels;
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, nullptr,
                                           OnError, OnWarning);
  if (png == nullptr) return false;
  png_ = png;
  if (setjmp(png_jmpbuf(png))) {
    Free();
    return false;
  }
  png_infop info = png_create_info_struct(png);
  if (info == nullptr) {
    Free();
    return false;
  }
  info_ = info;
  source_.data = reinterpret_cast<const uint8_t*>(data.data());
  source_.left = data.size();
  png_set_read_fn(png, &source_, ReadFromSource);
  png_read_info(png, info);
  int color_type = 0;
  png_get_IHDR(png, info, &width_, &height_, &bit_depth_, &color_type,
               nullptr, nullptr, nullptr);
  if (width_ == 0 || height_ == 0) {
    Free();
    return false;
  }
  const bool has_trns = png_get_valid(png, info, PNG_INFO_tRNS) != 0;
  if (channels_ == 0) {
    if (color_type == PNG_COLOR_TYPE_PALETTE) {
      channels_ = has_trns ? 4 : 3;
    } else {
      channels_ = png_get_channels(png, info);
    }
  }
  // The same transformations, in the same order, as TensorFlow's decoder:
  // libpng's results depend on them (rgb_to_gray rounds, say).
  const bool has_alpha = (color_type & PNG_COLOR_MASK_ALPHA) != 0;
  if (channels_ % 2 == 0) {
    if (!has_alpha) {
      if (has_trns) {
        png_set_tRNS_to_alpha(png);
      } else {
        png_set_add_alpha(png, (1 << bit_depth_) - 1, PNG_FILLER_AFTER);
      }
    }
  } else if (has_alpha || has_trns) {
    png_set_strip_alpha(png);
  }
  if (bit_depth_ > 8 && channel_bits <= 8) png_set_strip_16(png);
  synthesize_16_ = bit_depth_ <= 8 && channel_bits == 16;
  png_set_packing(png);
  passes_ = png_set_interlace_handling(png);
  if (channel_bits > 8) {
    // 16-bit samples in host order; dfx only runs on little-endian hosts.
    png_set_swap(png);
  }
  if (color_type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
  const bool want_gray = channels_ < 3;
  const bool is_gray = (color_type & PNG_COLOR_MASK_COLOR) == 0;
  if (is_gray && bit_depth_ < 8) png_set_expand_gray_1_2_4_to_8(png);
  if (want_gray) {
    // ITU-R 601 weights, as JPEG and TensorFlow use.
    if (!is_gray) png_set_rgb_to_gray(png, 1, 0.299, 0.587);
  } else if (is_gray) {
    png_set_gray_to_rgb(png);
  }
  png_read_update_info(png, info);
  return true;
}

bool PngDecoder::Finish(uint8_t* out, int64_t row_bytes) {
  png_structp png = static_cast<png_structp>(png_);
  png_infop info = static_cast<png_infop>(info_);
  if (png == nullptr) return false;
  if (setjmp(png_jmpbuf(png))) {
    Free();
    return false;
  }
  for (int pass = 0; pass < passes_; ++pass) {
    png_bytep row = out;
    for (uint32_t y = 0; y < height_; ++y, row += row_bytes) {
      png_read_row(png, row, nullptr);
    }
  }
  png_read_end(png, info);
  Free();
  if (synthesize_16_) {
    // Widen each 8-bit sample v to v * 257 in place, last sample first.
    const int64_t samples = static_cast<int64_t>(width_) * channels_;
    for (int64_t y = static_cast<int64_t>(height_) - 1; y >= 0; --y) {
      uint8_t* row8 = out + y * row_bytes;
      uint16_t* row16 = reinterpret_cast<uint16_t*>(row8);
      for (int64_t i = samples - 1; i >= 0; --i) {
        const uint16_t v = row8[i];
        row16[i] = static_cast<uint16_t>(v | (v << 8));
      }
    }
  }
  return true;
}

bool EncodePng(const uint8_t* image, int width, int height, int64_t row_bytes,
               int channels, int channel_bits, int compression,
               std::string* out) {
  out->clear();
  if (width == 0 || height == 0) return false;
  int color_type;
  switch (channels) {
    case 1:
      color_type = PNG_COLOR_TYPE_GRAY;
      break;
    case 2:
      color_type = PNG_COLOR_TYPE_GRAY_ALPHA;
      break;
    case 3:
      color_type = PNG_COLOR_TYPE_RGB;
      break;
    case 4:
      color_type = PNG_COLOR_TYPE_RGB_ALPHA;
      break;
    default:
      return false;
  }
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr,
                                            OnError, OnWarning);
  if (png == nullptr) return false;
  // Volatile: assigned after setjmp and read once longjmp has returned.
  png_infop volatile info_after_jump = nullptr;
  if (setjmp(png_jmpbuf(png))) {
    png_infop info = info_after_jump;
    png_destroy_write_struct(&png, info != nullptr ? &info : nullptr);
    out->clear();
    return false;
  }
  png_infop info = png_create_info_struct(png);
  info_after_jump = info;
  if (info == nullptr) {
    png_destroy_write_struct(&png, nullptr);
    return false;
  }
  png_set_write_fn(png, out, WriteToString, FlushNothing);
  png_set_compression_level(png,
                            compression < 0 ? Z_DEFAULT_COMPRESSION
                                            : compression);
  png_set_compression_mem_level(png, MAX_MEM_LEVEL);
  png_set_IHDR(png, info, width, height, channel_bits, color_type,
               PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
               PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  if (channel_bits > 8) png_set_swap(png);
  const uint8_t* row = image;
  for (int y = 0; y < height; ++y, row += row_bytes) {
    png_write_row(png, const_cast<png_bytep>(row));
  }
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return true;
}

}  // namespace dfx::codec

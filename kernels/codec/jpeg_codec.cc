// JPEG decoding and encoding: see jpeg_codec.h.
//
// libjpeg reports fatal errors through error_exit, which must not return;
// ours longjmps to the setjmp of the running call. Everything that call
// needs after the jump (libjpeg's structs, temporary rows) lives in a state
// object of the caller's frame, and the functions calling setjmp hold no
// objects with destructors, so the jump skips nothing.
#include "kernels/codec/jpeg_codec.h"

#include <algorithm>
#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

// jpeglib.h needs FILE and size_t declared first.
#include <jpeglib.h>
// ERREXIT, WARNMS and the message codes.
#include <jerror.h>

namespace dfx::codec {
namespace {

struct ErrorManager {
  jpeg_error_mgr pub;
  jmp_buf jump;
};

void OnError(j_common_ptr cinfo) {
  longjmp(reinterpret_cast<ErrorManager*>(cinfo->err)->jump, 1);
}

// Corrupt-data warnings are counted by libjpeg but not printed: a server
// decoding user files should not log per image.
void SilentMessage(j_common_ptr) {}

void InstallErrorManager(ErrorManager* err, j_common_ptr cinfo) {
  cinfo->err = jpeg_std_error(&err->pub);
  err->pub.error_exit = OnError;
  err->pub.output_message = SilentMessage;
}

// A source reading from memory that handles the end of the data as
// TensorFlow's does (lib/jpeg/jpeg_handle.cc), since that decides the
// pixels of a truncated file: libjpeg asks for more input once its copy of
// the buffer is used up. An empty file is an error. If libjpeg has not yet
// synced its position (bytes still show as unread), the answer is TRUE
// with recovery (libjpeg reloads those bytes) and a suspension without
// (TensorFlow's short image, black below, if acceptable_fraction allows).
// Once the bytes are used up, recovery supplies a fake end-of-image marker
// (libjpeg then finishes the scan with zeros or fails on the marker), and
// without it the end is an error.
//
// Two guards TensorFlow's source lacks keep every input finite: asked
// kMaxUnsyncedRepeats times in a row at the same unsynced position,
// libjpeg is making no progress (libjpeg-turbo 2.1 does that on a file cut
// inside a marker, forever), so the bytes count as used up; and the fake
// markers are capped. (The entropy decoder legitimately asks again at one
// position a few times, which must still be answered as TensorFlow does.)
struct MemorySource {
  jpeg_source_mgr pub;
  const JOCTET* data;
  size_t size;
  bool try_recover_truncated;
  int fake_eois;
  const JOCTET* last_unsynced;  // position of the last unsynced request
  int unsynced_repeats;         // requests in a row at that position
};

const JOCTET kFakeEoi[2] = {0xFF, JPEG_EOI};
// More than a 64 KiB marker segment can swallow two bytes at a time.
constexpr int kMaxFakeEois = 1 << 16;
constexpr int kMaxUnsyncedRepeats = 1 << 12;

void InitSource(j_decompress_ptr cinfo) {
  auto* src = reinterpret_cast<MemorySource*>(cinfo->src);
  src->pub.next_input_byte = src->data;
  src->pub.bytes_in_buffer = src->size;
}

boolean FillInputBuffer(j_decompress_ptr cinfo) {
  auto* src = reinterpret_cast<MemorySource*>(cinfo->src);
  if (src->pub.bytes_in_buffer == 0 && src->pub.next_input_byte == src->data) {
    ERREXIT(cinfo, JERR_INPUT_EMPTY);
    return FALSE;
  }
  if (src->pub.bytes_in_buffer != 0) {
    if (!src->try_recover_truncated) return FALSE;  // suspend
    if (src->last_unsynced != src->pub.next_input_byte) {
      src->last_unsynced = src->pub.next_input_byte;
      src->unsynced_repeats = 0;
    }
    if (++src->unsynced_repeats <= kMaxUnsyncedRepeats) return TRUE;
    // No progress in all those requests: the data is used up.
  }
  src->last_unsynced = nullptr;
  src->unsynced_repeats = 0;
  if (src->pub.next_input_byte != kFakeEoi && src->try_recover_truncated &&
      src->fake_eois < kMaxFakeEois) {
    ++src->fake_eois;
    WARNMS(cinfo, JWRN_JPEG_EOF);
    src->pub.next_input_byte = kFakeEoi;
    src->pub.bytes_in_buffer = 2;
    return TRUE;
  }
  ERREXIT(cinfo, JERR_FILE_READ);
  return FALSE;
}

void SkipInputData(j_decompress_ptr cinfo, long count) {  // NOLINT(runtime/int)
  auto* src = reinterpret_cast<MemorySource*>(cinfo->src);
  if (count < 0) return;
  if (static_cast<size_t>(count) > src->pub.bytes_in_buffer) {
    src->pub.bytes_in_buffer = 0;
    (void)FillInputBuffer(cinfo);
  } else {
    src->pub.bytes_in_buffer -= count;
    src->pub.next_input_byte += count;
  }
}

void TermSource(j_decompress_ptr) {}

void SetSource(j_decompress_ptr cinfo, MemorySource* src,
               absl::string_view data, bool try_recover_truncated) {
  src->pub.init_source = InitSource;
  src->pub.fill_input_buffer = FillInputBuffer;
  src->pub.skip_input_data = SkipInputData;
  src->pub.resync_to_restart = jpeg_resync_to_restart;
  src->pub.term_source = TermSource;
  src->pub.bytes_in_buffer = 0;
  src->pub.next_input_byte = nullptr;
  src->data = reinterpret_cast<const JOCTET*>(data.data());
  src->size = data.size();
  src->try_recover_truncated = try_recover_truncated;
  src->fake_eois = 0;
  src->last_unsynced = nullptr;
  src->unsynced_repeats = 0;
  cinfo->src = &src->pub;
}

// What a decode needs across a longjmp, and what it reports back.
struct DecodeState {
  jpeg_decompress_struct cinfo;
  ErrorManager err;
  MemorySource src;
  std::vector<JSAMPLE> temp;  // a CMYK or MCU-aligned cropped row
  uint8_t* out = nullptr;
  int height = 0;       // rows of the output
  int height_read = 0;  // rows decoded
  int64_t stride = 0;   // bytes per output row
};

bool CropWindowValid(const JpegDecodeOptions& o, int width, int height) {
  return o.crop_width > 0 && o.crop_height > 0 && o.crop_x >= 0 &&
         o.crop_y >= 0 &&
         static_cast<int64_t>(o.crop_y) + o.crop_height <= height &&
         static_cast<int64_t>(o.crop_x) + o.crop_width <= width;
}

// The decode proper. Returns false on failure, with libjpeg's struct
// destroyed; on success s->out holds the rows (s->height_read of them
// decoded).
bool DecodeLow(absl::string_view data, const JpegDecodeOptions& o,
               JpegAllocator allocate, DecodeState* s) {
  if (o.ratio != 1 && o.ratio != 2 && o.ratio != 4 && o.ratio != 8) {
    return false;
  }
  if (o.channels != 0 && o.channels != 1 && o.channels != 3) return false;
  if (data.empty()) return false;
  j_decompress_ptr cinfo = &s->cinfo;
  InstallErrorManager(&s->err, reinterpret_cast<j_common_ptr>(cinfo));
  if (setjmp(s->err.jump)) {
    jpeg_destroy_decompress(&s->cinfo);
    return false;
  }
  jpeg_create_decompress(cinfo);
  SetSource(cinfo, &s->src, data, o.try_recover_truncated);
  jpeg_read_header(cinfo, TRUE);
  // By default at most 3 channels: CMYK files decode to RGB.
  const int channels =
      o.channels == 0 ? std::min(cinfo->num_components, 3) : o.channels;
  if (channels == 1) {
    cinfo->out_color_space = JCS_GRAYSCALE;
  } else if (channels == 3) {
    // libjpeg decodes CMYK and YCCK to CMYK only; RGB is computed below.
    cinfo->out_color_space = cinfo->jpeg_color_space == JCS_CMYK ||
                                     cinfo->jpeg_color_space == JCS_YCCK
                                 ? JCS_CMYK
                                 : JCS_RGB;
  } else {
    jpeg_destroy_decompress(cinfo);
    return false;
  }
  cinfo->do_fancy_upsampling = o.fancy_upscaling ? TRUE : FALSE;
  cinfo->scale_num = 1;
  cinfo->scale_denom = o.ratio;
  cinfo->dct_method = o.integer_fast_dct ? JDCT_IFAST : JDCT_ISLOW;
  jpeg_calc_output_dimensions(cinfo);
  // Fail before allocating for absurd sizes, as TensorFlow does.
  const int64_t total = static_cast<int64_t>(cinfo->output_height) *
                        cinfo->output_width * cinfo->num_components;
  if (cinfo->output_width == 0 || cinfo->output_height == 0 ||
      total >= (int64_t{1} << 29)) {
    jpeg_destroy_decompress(cinfo);
    return false;
  }
  jpeg_start_decompress(cinfo);

  JDIMENSION target_width = cinfo->output_width;
  JDIMENSION target_height = cinfo->output_height;
  JDIMENSION skipped = 0;
  if (o.crop) {
    target_width = o.crop_width;
    target_height = o.crop_height;
    if (!CropWindowValid(o, cinfo->output_width, cinfo->output_height)) {
      jpeg_destroy_decompress(cinfo);
      return false;
    }
    // libjpeg widens the window leftwards to an iMCU boundary;
    // output_width becomes the widened width.
    JDIMENSION x = o.crop_x;
    JDIMENSION w = o.crop_width;
    jpeg_crop_scanline(cinfo, &x, &w);
    skipped = jpeg_skip_scanlines(cinfo, o.crop_y);
    if (skipped != static_cast<JDIMENSION>(o.crop_y)) {
      jpeg_destroy_decompress(cinfo);
      return false;
    }
  }
  const int64_t stride = static_cast<int64_t>(target_width) * channels;
  s->height = target_height;
  s->stride = stride;
  s->out = allocate(target_width, target_height, channels);
  if (s->out == nullptr) {
    jpeg_destroy_decompress(cinfo);
    return false;
  }
  const bool realign = target_width != cinfo->output_width;
  const bool cmyk = cinfo->out_color_space == JCS_CMYK;
  if (cmyk) {
    s->temp.resize(static_cast<size_t>(cinfo->output_width) * 4);
  } else if (realign) {
    s->temp.resize(static_cast<size_t>(cinfo->output_width) * channels);
  }
  JSAMPLE* temp = s->temp.data();
  s->height_read = target_height;
  const JDIMENSION last_line = skipped + target_height;
  const int64_t align_offset =
      static_cast<int64_t>(cinfo->output_width - target_width) *
      (cmyk ? 4 : channels);
  bool truncated = false;
  JSAMPLE* line = s->out;
  while (cinfo->output_scanline < last_line) {
    JDIMENSION read;
    if (cmyk) {
      read = jpeg_read_scanlines(cinfo, &temp, 1);
      if (read > 0) {
        const JSAMPLE* px = temp + (realign ? align_offset : 0);
        for (JDIMENSION i = 0; i < target_width; ++i, px += 4) {
          const int c = px[0], m = px[1], y = px[2], k = px[3];
          // Adobe writes inverted CMYK.
          if (cinfo->saw_Adobe_marker) {
            line[3 * i + 0] = k * c / 255;
            line[3 * i + 1] = k * m / 255;
            line[3 * i + 2] = k * y / 255;
          } else {
            line[3 * i + 0] = (255 - k) * (255 - c) / 255;
            line[3 * i + 1] = (255 - k) * (255 - m) / 255;
            line[3 * i + 2] = (255 - k) * (255 - y) / 255;
          }
        }
      }
    } else if (realign) {
      read = jpeg_read_scanlines(cinfo, &temp, 1);
      if (read > 0) std::memcpy(line, temp + align_offset, stride);
    } else {
      read = jpeg_read_scanlines(cinfo, &line, 1);
    }
    if (read == 0) {
      if (!o.try_recover_truncated) {
        s->height_read = cinfo->output_scanline - skipped;
        truncated = true;
      } else {
        // Black if no row came, else the last row repeated.
        for (JDIMENSION l = cinfo->output_scanline; l < last_line; ++l) {
          if (l == 0) {
            std::memset(line, 0, stride);
          } else {
            std::memcpy(line, line - stride, stride);
          }
          line += stride;
        }
        cinfo->output_scanline = last_line;
      }
      break;
    }
    line += stride;
  }
  if (o.crop && cinfo->output_scanline < cinfo->output_height) {
    // libjpeg must see every row before it is destroyed.
    jpeg_skip_scanlines(cinfo,
                        cinfo->output_height - o.crop_y - o.crop_height);
  }
  const bool bad_param =
      channels == 1 ? cinfo->output_components != 1
                    : cinfo->output_components != (cmyk ? 4 : 3);
  if (!truncated && !bad_param) {
    jpeg_finish_decompress(cinfo);
  } else {
    jpeg_abort(reinterpret_cast<j_common_ptr>(cinfo));
  }
  jpeg_destroy_decompress(cinfo);
  return true;
}

// Destination appending to a string through a fixed buffer.
struct StringDestination {
  jpeg_destination_mgr pub;
  std::string* out;
  JOCTET buffer[1 << 16];
};

void InitDestination(j_compress_ptr cinfo) {
  auto* dest = reinterpret_cast<StringDestination*>(cinfo->dest);
  dest->pub.next_output_byte = dest->buffer;
  dest->pub.free_in_buffer = sizeof(dest->buffer);
}

boolean EmptyOutputBuffer(j_compress_ptr cinfo) {
  auto* dest = reinterpret_cast<StringDestination*>(cinfo->dest);
  dest->out->append(reinterpret_cast<const char*>(dest->buffer),
                    sizeof(dest->buffer));
  dest->pub.next_output_byte = dest->buffer;
  dest->pub.free_in_buffer = sizeof(dest->buffer);
  return TRUE;
}

void TermDestination(j_compress_ptr cinfo) {
  auto* dest = reinterpret_cast<StringDestination*>(cinfo->dest);
  dest->out->append(reinterpret_cast<const char*>(dest->buffer),
                    sizeof(dest->buffer) - dest->pub.free_in_buffer);
}

struct EncodeState {
  jpeg_compress_struct cinfo;
  ErrorManager err;
  StringDestination dest;
  std::vector<JOCTET> marker;
};

bool EncodeLow(const uint8_t* image, int width, int height,
               const JpegEncodeOptions& o, std::string* out, EncodeState* s) {
  j_compress_ptr cinfo = &s->cinfo;
  InstallErrorManager(&s->err, reinterpret_cast<j_common_ptr>(cinfo));
  if (setjmp(s->err.jump)) {
    jpeg_destroy_compress(&s->cinfo);
    return false;
  }
  jpeg_create_compress(cinfo);
  s->dest.pub.init_destination = InitDestination;
  s->dest.pub.empty_output_buffer = EmptyOutputBuffer;
  s->dest.pub.term_destination = TermDestination;
  s->dest.out = out;
  cinfo->dest = &s->dest.pub;
  cinfo->image_width = width;
  cinfo->image_height = height;
  cinfo->input_components = o.channels;
  cinfo->in_color_space = o.channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_set_defaults(cinfo);
  if (o.optimize_size) cinfo->optimize_coding = TRUE;
  cinfo->density_unit = o.density_unit;
  cinfo->X_density = o.x_density;
  cinfo->Y_density = o.y_density;
  jpeg_set_quality(cinfo, o.quality, TRUE);
  if (o.progressive) jpeg_simple_progression(cinfo);
  if (!o.chroma_downsampling) {
    for (int i = 0; i < cinfo->num_components; ++i) {
      cinfo->comp_info[i].h_samp_factor = 1;
      cinfo->comp_info[i].v_samp_factor = 1;
    }
  }
  jpeg_start_compress(cinfo, TRUE);
  if (!o.xmp_metadata.empty()) {
    // XMP goes in APP1 after Adobe's null-terminated namespace.
    static constexpr char kXmpNamespace[] = "http://ns.adobe.com/xap/1.0/";
    s->marker.assign(kXmpNamespace, kXmpNamespace + sizeof(kXmpNamespace));
    s->marker.insert(s->marker.end(), o.xmp_metadata.begin(),
                     o.xmp_metadata.end());
    jpeg_write_marker(cinfo, JPEG_APP0 + 1, s->marker.data(),
                      s->marker.size());
  }
  const int64_t row_bytes = static_cast<int64_t>(width) * o.channels;
  while (cinfo->next_scanline < cinfo->image_height) {
    JSAMPROW row =
        const_cast<JSAMPLE*>(image + cinfo->next_scanline * row_bytes);
    jpeg_write_scanlines(cinfo, &row, 1);
  }
  jpeg_finish_compress(cinfo);
  jpeg_destroy_compress(cinfo);
  return true;
}

}  // namespace

bool DecodeJpeg(absl::string_view data, const JpegDecodeOptions& options,
                JpegAllocator allocate) {
  auto state = std::make_unique<DecodeState>();
  if (!DecodeLow(data, options, allocate, state.get())) return false;
  const float fraction =
      state->height == 0
          ? 1.0f
          : static_cast<float>(state->height_read) / state->height;
  if (fraction < std::min(1.0f, options.min_acceptable_fraction)) {
    return false;
  }
  if (state->height_read != state->height) {
    std::memset(state->out + state->height_read * state->stride, 0,
                (state->height - state->height_read) * state->stride);
  }
  return true;
}

bool JpegShape(absl::string_view data, int* width, int* height,
               int* channels) {
  *width = *height = *channels = 0;
  if (data.empty()) return false;
  auto s = std::make_unique<DecodeState>();
  j_decompress_ptr cinfo = &s->cinfo;
  InstallErrorManager(&s->err, reinterpret_cast<j_common_ptr>(cinfo));
  if (setjmp(s->err.jump)) {
    jpeg_destroy_decompress(&s->cinfo);
    return false;
  }
  jpeg_create_decompress(cinfo);
  SetSource(cinfo, &s->src, data, false);
  jpeg_read_header(cinfo, TRUE);
  // The output size is only set once decompression starts.
  jpeg_start_decompress(cinfo);
  *width = cinfo->output_width;
  *height = cinfo->output_height;
  *channels = cinfo->output_components;
  jpeg_destroy_decompress(cinfo);
  return true;
}

bool EncodeJpeg(const uint8_t* image, int width, int height,
                const JpegEncodeOptions& options, std::string* out) {
  out->clear();
  if (width <= 0 || height <= 0) return false;
  if (static_cast<int64_t>(width) * height >= (int64_t{1} << 29)) return false;
  if (options.channels != 1 && options.channels != 3) return false;
  auto state = std::make_unique<EncodeState>();
  if (!EncodeLow(image, width, height, options, out, state.get())) {
    out->clear();
    return false;
  }
  return true;
}

}  // namespace dfx::codec

// CPU kernels of the image codec ops: one decode kernel serving DecodeJpeg,
// DecodeAndCropJpeg, DecodePng, DecodeGif, DecodeBmp, DecodeWebP, DecodeJxl
// and DecodeImage, and
// EncodePng, EncodeJpeg, EncodeJpegVariableQuality, ExtractJpegShape; and
// RegisterCodecKernels, which
// also registers the raw, compressed, audio and ReadFile kernels of this
// folder.
//
// As in TensorFlow (kernels/image/decode_image_op.cc), every decode op
// looks at the file's magic bytes and decodes whatever of JPEG, PNG, GIF,
// BMP, WebP (libwebp) and JPEG XL (libjxl, kernels/codec/jxl_codec.h) it
// holds: decode_png of a JPEG file works. The op only decides
// the attrs, the output rank (DecodeGif: 4-D) and the combinations
// TensorFlow refuses (DecodeBmp of anything but BMP, DecodeAndCropJpeg of
// anything but JPEG, an animated GIF through DecodeJpeg or DecodePng).
// Files come from outside: every malformed one is an InvalidArgument
// naming the format, with TensorFlow's wording.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "graph/types.h"
#include "kernels/codec/codec_kernels.h"
#include "kernels/codec/gif_codec.h"
#include "kernels/codec/jpeg_codec.h"
#include "kernels/codec/jxl_codec.h"
#include "kernels/codec/png_codec.h"
#include "kernels/eigen_util.h"
#include "kernels/kernels.h"
#include "runtime/memory_limit.h"
#include "runtime/op_kernel.h"
#include "webp/decode.h"
#include "webp/demux.h"

namespace dfx {
namespace {

enum class FileFormat { kUnknown, kJpeg, kPng, kGif, kBmp, kWebp, kJxl };

FileFormat ClassifyFileFormat(absl::string_view data) {
  // JPEG's fourth byte varies (APP0, APP1, ...): three bytes decide.
  if (absl::StartsWith(data, "\xff\xd8\xff")) return FileFormat::kJpeg;
  if (absl::StartsWith(data, "\x89PNG\r\n\x1a\n")) return FileFormat::kPng;
  if (absl::StartsWith(data, "GIF8")) return FileFormat::kGif;
  if (absl::StartsWith(data, "BM")) return FileFormat::kBmp;
  if (absl::StartsWith(data, "RIFF") && data.size() > 12 &&
      data.substr(8, 4) == "WEBP") {
    return FileFormat::kWebp;
  }
  if (codec::HasJxlSignature(data)) return FileFormat::kJxl;
  return FileFormat::kUnknown;
}

int32_t ReadLe32(const uint8_t* p) {
  return static_cast<int32_t>(static_cast<uint32_t>(p[0]) |
                              static_cast<uint32_t>(p[1]) << 8 |
                              static_cast<uint32_t>(p[2]) << 16 |
                              static_cast<uint32_t>(p[3]) << 24);
}

int16_t ReadLe16(const uint8_t* p) {
  return static_cast<int16_t>(static_cast<uint16_t>(p[0]) |
                              static_cast<uint16_t>(p[1]) << 8);
}

// Converts `n` 8-bit samples to the output dtype as TensorFlow does:
// uint16 as v * 256, float as v * (1 / 255).
void WidenSamples(const Device& device, const uint8_t* in, int64_t n,
                  Tensor* out) {
  const Eigen::TensorOpCost cost(1, 4, 2);
  if (out->dtype() == DT_UINT16) {
    uint16_t* o = out->data<uint16_t>();
    ParallelFor(device, n, cost, [&](int64_t first, int64_t last) {
      for (int64_t i = first; i < last; ++i) {
        o[i] = static_cast<uint16_t>(in[i]) * uint16_t{256};
      }
    });
  } else {
    const float scale = static_cast<float>(1.0 / 255);
    float* o = out->data<float>();
    ParallelFor(device, n, cost, [&](int64_t first, int64_t last) {
      for (int64_t i = first; i < last; ++i) {
        o[i] = static_cast<float>(in[i]) * scale;
      }
    });
  }
}

class DecodeImageOp : public OpKernel {
 public:
  explicit DecodeImageOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    op_ = ctx->def().op();
    if (op_ == "DecodeJpeg" || op_ == "DecodeAndCropJpeg") {
      int64_t ratio = 1;
      ctx->SetStatus(ctx->GetAttr("ratio", &ratio));
      if (ratio != 1 && ratio != 2 && ratio != 4 && ratio != 8) {
        ctx->SetStatus(absl::InvalidArgumentError(
            absl::StrCat("ratio must be 1, 2, 4, or 8, got ", ratio)));
        return;
      }
      jpeg_.ratio = static_cast<int>(ratio);
      ctx->SetStatus(ctx->GetAttr("fancy_upscaling", &jpeg_.fancy_upscaling));
      ctx->SetStatus(
          ctx->GetAttr("try_recover_truncated", &jpeg_.try_recover_truncated));
      ctx->SetStatus(ctx->GetAttr("acceptable_fraction",
                                  &jpeg_.min_acceptable_fraction));
      std::string dct;
      ctx->SetStatus(ctx->GetAttr("dct_method", &dct));
      if (!dct.empty() && dct != "INTEGER_FAST" && dct != "INTEGER_ACCURATE") {
        ctx->SetStatus(absl::InvalidArgumentError(
            "dct_method must be one of {'', 'INTEGER_FAST', "
            "'INTEGER_ACCURATE'}"));
        return;
      }
      // TensorFlow's default ("") is the fast integer DCT: speed over
      // quality.
      jpeg_.integer_fast_dct = dct != "INTEGER_ACCURATE";
    }
    if (op_ == "DecodePng" || op_ == "DecodeImage" || op_ == "DecodeWebP") {
      ctx->SetStatus(ctx->GetAttr("dtype", &dtype_));
    }
    if (op_ == "DecodeImage") {
      ctx->SetStatus(ctx->GetAttr("expand_animations", &expand_animations_));
    }
    if (op_ == "DecodeGif") {
      channels_ = 3;  // no attr: always RGB
    } else {
      int64_t channels = 0;
      ctx->SetStatus(ctx->GetAttr("channels", &channels));
      if (channels != 0 && channels != 1 && channels != 3 && channels != 4) {
        ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
            "`channels` must be 0, 1, 3 or 4 but got ", channels)));
        return;
      }
      channels_ = static_cast<int>(channels);
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& contents = ctx->input(0);
    DFX_OP_REQUIRES(ctx, contents.dims() == 0,
                    absl::InvalidArgumentError(
                        absl::StrCat("`contents` must be scalar but got shape",
                                     contents.shape().DebugString())));
    const std::string& input = contents.scalar<std::string>();
    DFX_OP_REQUIRES(ctx, !input.empty(),
                    absl::InvalidArgumentError("Input is empty."));
    DFX_OP_REQUIRES(
        ctx, input.size() <= static_cast<size_t>(std::numeric_limits<int>::max()),
        absl::InvalidArgumentError(absl::StrCat(
            "Input contents are too large for int: ", input.size())));
    switch (ClassifyFileFormat(input)) {
      case FileFormat::kJpeg:
        DecodeJpeg(ctx, input);
        return;
      case FileFormat::kPng:
        DecodePng(ctx, input);
        return;
      case FileFormat::kGif:
        DecodeGif(ctx, input);
        return;
      case FileFormat::kBmp:
        DecodeBmp(ctx, input);
        return;
      case FileFormat::kWebp:
        DecodeWebp(ctx, input);
        return;
      case FileFormat::kJxl:
        DecodeJxl(ctx, input);
        return;
      case FileFormat::kUnknown:
        ctx->SetStatus(absl::InvalidArgumentError(
            "Unknown image file format. One of JPEG, JPEG XL, PNG, GIF, BMP, "
            "WebP required."));
        return;
    }
  }

 private:
  // Allocates the output of `shape` (dtype_) and returns where 8-bit
  // samples go: the output itself for uint8, else `staging` (converted by
  // FinishWide). Null with ctx's status set on failure.
  uint8_t* AllocateImage(OpKernelContext* ctx, const TensorShape& shape,
                         Tensor** out, std::vector<uint8_t>* staging) const {
    absl::Status s = ctx->allocate_output(0, shape, out);
    if (!s.ok()) {
      ctx->SetStatus(s);
      return nullptr;
    }
    if (dtype_ == DT_UINT8) return (*out)->data<uint8_t>();
    staging->resize((*out)->NumElements());
    return staging->data();
  }

  void FinishWide(OpKernelContext* ctx, const std::vector<uint8_t>& staging,
                  Tensor* out) const {
    if (dtype_ == DT_UINT8) return;
    WidenSamples(*ctx->device(), staging.data(), out->NumElements(), out);
  }

  void DecodeJpeg(OpKernelContext* ctx, absl::string_view input) {
    DFX_OP_REQUIRES(
        ctx, channels_ == 0 || channels_ == 1 || channels_ == 3,
        absl::InvalidArgumentError("JPEG does not support 4 channels"));
    codec::JpegDecodeOptions options = jpeg_;
    options.channels = channels_;
    if (op_ == "DecodeAndCropJpeg") {
      const Tensor& window = ctx->input(1);
      DFX_OP_REQUIRES(ctx, window.dims() == 1,
                      absl::InvalidArgumentError(
                          absl::StrCat("crop_window must be 1-D, got shape ",
                                       window.shape().DebugString())));
      DFX_OP_REQUIRES(ctx, window.dim_size(0) == 4,
                      absl::InvalidArgumentError(
                          absl::StrCat("crop_size must have four elements ",
                                       window.shape().DebugString())));
      const int32_t* w = window.data<int32_t>();
      options.crop = true;
      options.crop_y = w[0];
      options.crop_x = w[1];
      options.crop_height = w[2];
      options.crop_width = w[3];
    } else if (op_ == "DecodeBmp") {
      ctx->SetStatus(absl::InvalidArgumentError(
          "Trying to decode JPEG format using DecodeBmp op. Use "
          "`decode_jpeg` or `decode_image` instead."));
      return;
    }
    Tensor* out = nullptr;
    std::vector<uint8_t> staging;
    const bool ok = codec::DecodeJpeg(
        input, options, [&](int width, int height, int channels) -> uint8_t* {
          if (op_ == "DecodeGif") {
            return AllocateImage(ctx, TensorShape({1, height, width, channels}),
                                 &out, &staging);
          }
          return AllocateImage(ctx, TensorShape({height, width, channels}),
                               &out, &staging);
        });
    if (!ctx->status().ok()) return;
    DFX_OP_REQUIRES(
        ctx, ok,
        absl::InvalidArgumentError(
            "jpeg::Uncompress failed. Invalid JPEG data or crop window."));
    FinishWide(ctx, staging, out);
  }

  void DecodePng(OpKernelContext* ctx, absl::string_view input) {
    const int bits = dtype_ == DT_UINT8 ? 8 : 16;
    codec::PngDecoder decoder;
    DFX_OP_REQUIRES(
        ctx, decoder.Init(input, channels_, bits),
        absl::InvalidArgumentError("Invalid PNG. Failed to initialize decoder."));
    const uint32_t width = decoder.width();
    const uint32_t height = decoder.height();
    // Bounds that keep every later size computation well inside int.
    DFX_OP_REQUIRES(
        ctx,
        width < (1u << 27) && height < (1u << 27) &&
            static_cast<uint64_t>(width) * height < (uint64_t{1} << 29),
        absl::InvalidArgumentError(absl::StrCat(
            "PNG size too large for int: ", width, " by ", height)));
    const int64_t h = height;
    const int64_t w = width;
    const int64_t c = decoder.channels();
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(
                                0,
                                op_ == "DecodeGif" ? TensorShape({1, h, w, c})
                                                   : TensorShape({h, w, c}),
                                &out));
    if (op_ == "DecodeBmp") {
      ctx->SetStatus(absl::InvalidArgumentError(
          "Trying to decode PNG format using DecodeBmp op. Use `decode_png` "
          "or `decode_image` instead."));
      return;
    }
    if (op_ == "DecodeAndCropJpeg") {
      ctx->SetStatus(absl::InvalidArgumentError(
          "DecodeAndCropJpeg operation can run on JPEG only, but detected "
          "PNG."));
      return;
    }
    const absl::Status corrupt = absl::InvalidArgumentError(
        absl::StrCat("Invalid PNG data, size ", input.size()));
    if (dtype_ != DT_FLOAT) {
      uint8_t* data = dtype_ == DT_UINT8
                          ? out->data<uint8_t>()
                          : reinterpret_cast<uint8_t*>(out->data<uint16_t>());
      DFX_OP_REQUIRES(ctx, decoder.Finish(data, w * c * (bits / 8)), corrupt);
      return;
    }
    // float: decoded losslessly at 16 bits, then scaled by 1 / 65535.
    std::vector<uint16_t> wide(h * w * c);
    DFX_OP_REQUIRES(
        ctx,
        decoder.Finish(reinterpret_cast<uint8_t*>(wide.data()), w * c * 2),
        corrupt);
    const float scale = static_cast<float>(1.0 / 65535);
    float* o = out->data<float>();
    ParallelFor(*ctx->device(), out->NumElements(),
                Eigen::TensorOpCost(2, 4, 1), [&](int64_t first, int64_t last) {
                  for (int64_t i = first; i < last; ++i) {
                    o[i] = static_cast<float>(wide[i]) * scale;
                  }
                });
  }

  void DecodeGif(OpKernelContext* ctx, absl::string_view input) {
    DFX_OP_REQUIRES(ctx, channels_ == 0 || channels_ == 3,
                    absl::InvalidArgumentError(absl::StrCat(
                        "channels must be 0 or 3 for GIF, got ", channels_)));
    if (op_ == "DecodeBmp") {
      ctx->SetStatus(absl::InvalidArgumentError(
          "Trying to decode GIF format using DecodeBmp op. Use `decode_gif` "
          "or `decode_image` instead."));
      return;
    }
    if (op_ == "DecodeAndCropJpeg") {
      ctx->SetStatus(absl::InvalidArgumentError(
          "DecodeAndCropJpeg operation can run on JPEG only, but detected "
          "GIF."));
      return;
    }
    Tensor* out = nullptr;
    std::vector<uint8_t> staging;
    std::string error;
    const bool ok = codec::DecodeGif(
        input, expand_animations_,
        [&](int frames, int width, int height, int channels) -> uint8_t* {
          if (op_ == "DecodePng" || op_ == "DecodeJpeg") {
            if (frames != 1) {
              ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
                  "Got ", frames, " frames, but animated gifs can only be "
                  "decoded by tf.io.decode_gif or tf.io.decode_image")));
              return nullptr;
            }
            return AllocateImage(ctx, TensorShape({height, width, channels}),
                                 &out, &staging);
          }
          if (op_ == "DecodeImage" && !expand_animations_) {
            return AllocateImage(ctx, TensorShape({height, width, channels}),
                                 &out, &staging);
          }
          return AllocateImage(
              ctx, TensorShape({frames, height, width, channels}), &out, &staging);
        },
        &error);
    if (!ctx->status().ok()) return;
    DFX_OP_REQUIRES(ctx, ok,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Invalid GIF data (size ", input.size(), "), ", error)));
    FinishWide(ctx, staging, out);
  }

  void DecodeBmp(OpKernelContext* ctx, absl::string_view input) {
    DFX_OP_REQUIRES(
        ctx, channels_ != 1,
        absl::InvalidArgumentError(absl::StrCat(
            "`channels` must be 0, 3 or 4 for BMP, but got ", channels_)));
    if (op_ == "DecodeAndCropJpeg") {
      ctx->SetStatus(absl::InvalidArgumentError(
          "DecodeAndCropJpeg operation can run on JPEG only, but detected "
          "BMP."));
      return;
    }
    if (op_ != "DecodeBmp" && op_ != "DecodeImage") {
      ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
          "Trying to decode BMP format using a wrong op. Use `decode_bmp` or "
          "`decode_image` instead. Op used: ",
          op_)));
      return;
    }
    DFX_OP_REQUIRES(
        ctx, input.size() >= 32,
        absl::InvalidArgumentError(absl::StrCat(
            "Incomplete bmp content, requires at least 32 bytes to find the "
            "header size, width, height, and bpp, got ",
            input.size(), " bytes")));
    const auto* bytes = reinterpret_cast<const uint8_t*>(input.data());
    const int32_t header_size = ReadLe32(bytes + 10);
    const int32_t width = ReadLe32(bytes + 18);
    const int32_t height = ReadLe32(bytes + 22);
    const int16_t bpp = ReadLe16(bytes + 28);
    const int file_channels = bpp / 8;
    DFX_OP_REQUIRES(
        ctx, file_channels == 1 || file_channels == 3 || file_channels == 4,
        absl::InvalidArgumentError(absl::StrCat(
            "Number of channels inherent in the image must be 1, 3 or 4, was ",
            file_channels)));
    const int channels = channels_ != 0 ? channels_ : file_channels;
    DFX_OP_REQUIRES(ctx, width > 0,
                    absl::InvalidArgumentError("Width must be positive"));
    DFX_OP_REQUIRES(ctx, height != 0,
                    absl::InvalidArgumentError("Height must be nonzero"));
    DFX_OP_REQUIRES(
        ctx, header_size >= 0,
        absl::InvalidArgumentError("header size must be nonnegative"));
    const int64_t abs_height = std::abs(static_cast<int64_t>(height));
    DFX_OP_REQUIRES(
        ctx,
        static_cast<int64_t>(width) * abs_height <
            std::numeric_limits<int32_t>::max() / 8,
        absl::InvalidArgumentError(
            "Total possible pixel bytes must be less than 2^30"));
    // Rows are padded to a multiple of 4 bytes.
    const int64_t row_size = (int64_t{file_channels} * width + 3) / 4 * 4;
    const int64_t size_diff = static_cast<int64_t>(input.size()) -
                              header_size - row_size * abs_height;
    DFX_OP_REQUIRES(
        ctx, size_diff == 0,
        absl::InvalidArgumentError(absl::StrCat(
            "Input size should match (header_size + row_size * abs_height) but "
            "they differ by ",
            size_diff)));
    Tensor* out = nullptr;
    std::vector<uint8_t> staging;
    uint8_t* dst = AllocateImage(
        ctx, TensorShape({abs_height, width, channels}), &out, &staging);
    if (dst == nullptr) return;
    // Positive heights store the bottom row first.
    const bool top_down = height < 0;
    const uint8_t* pixels = bytes + header_size;
    for (int64_t i = 0; i < abs_height; ++i) {
      const uint8_t* src =
          pixels + (top_down ? i : abs_height - 1 - i) * row_size;
      uint8_t* o = dst + i * width * channels;
      for (int64_t j = 0; j < width; ++j, src += file_channels, o += channels) {
        if (file_channels == 1) {
          o[0] = src[0];
          if (channels >= 3) o[1] = o[2] = src[0];
          if (channels == 4) o[3] = 255;
        } else {
          // BGR(A) in the file.
          o[0] = src[2];
          o[1] = src[1];
          o[2] = src[0];
          if (channels == 4) o[3] = file_channels == 4 ? src[3] : 255;
        }
      }
    }
    FinishWide(ctx, staging, out);
  }

  // WebP, as TensorFlow decodes it through any decode op: uint8 only, the
  // file's own channels (3, or 4 with alpha; an animation is always RGBA),
  // a frame dimension unless DecodeImage's expand_animations is off (then
  // an animation's first frame).
  void DecodeWebp(OpKernelContext* ctx, absl::string_view input) {
    DFX_OP_REQUIRES(
        ctx, channels_ == 0 || channels_ == 3 || channels_ == 4,
        absl::InvalidArgumentError("WebP only supports 3 or 4 channels"));
    DFX_OP_REQUIRES(
        ctx, dtype_ == DT_UINT8,
        absl::InvalidArgumentError("WebP only supports uint8 for dtype"));
    const auto* data = reinterpret_cast<const uint8_t*>(input.data());
    WebPBitstreamFeatures features;
    DFX_OP_REQUIRES(
        ctx, WebPGetFeatures(data, input.size(), &features) == VP8_STATUS_OK,
        absl::InvalidArgumentError("Failed to decode WebP header."));
    const int file_channels =
        features.has_alpha || features.has_animation ? 4 : 3;
    DFX_OP_REQUIRES(ctx, channels_ == 0 || channels_ == file_channels,
                    absl::InvalidArgumentError(
                        "Number of channels requested does not match input"));
    if (features.has_animation) {
      DecodeWebpAnimation(ctx, input);
      return;
    }
    const int64_t h = features.height;
    const int64_t w = features.width;
    const bool frames = op_ != "DecodeImage" || expand_animations_;
    const TensorShape shape = frames ? TensorShape({1, h, w, file_channels})
                                     : TensorShape({h, w, file_channels});
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    uint8_t* o = out->data<uint8_t>();
    const size_t size = static_cast<size_t>(out->NumElements());
    const int stride = static_cast<int>(w * file_channels);
    const uint8_t* done =
        file_channels == 4
            ? WebPDecodeRGBAInto(data, input.size(), o, size, stride)
            : WebPDecodeRGBInto(data, input.size(), o, size, stride);
    DFX_OP_REQUIRES(ctx, done != nullptr,
                    absl::InvalidArgumentError("Failed to decode WebP image."));
  }

  // Every frame composited onto the canvas (libwebpdemux's
  // WebPAnimDecoder), RGBA.
  void DecodeWebpAnimation(OpKernelContext* ctx, absl::string_view input) {
    WebPData data;
    data.bytes = reinterpret_cast<const uint8_t*>(input.data());
    data.size = input.size();
    WebPAnimDecoderOptions options;
    DFX_OP_REQUIRES(ctx, WebPAnimDecoderOptionsInit(&options),
                    absl::InternalError("libwebp version mismatch"));
    options.color_mode = MODE_RGBA;
    options.use_threads = 0;
    std::unique_ptr<WebPAnimDecoder, void (*)(WebPAnimDecoder*)> decoder(
        WebPAnimDecoderNew(&data, &options), WebPAnimDecoderDelete);
    WebPAnimInfo info;
    DFX_OP_REQUIRES(
        ctx,
        decoder != nullptr && WebPAnimDecoderGetInfo(decoder.get(), &info),
        absl::InvalidArgumentError("Failed to decode WebP image."));
    const int64_t h = info.canvas_height;
    const int64_t w = info.canvas_width;
    const bool frames = op_ != "DecodeImage" || expand_animations_;
    const int64_t count = frames ? info.frame_count : 1;
    const TensorShape shape = frames ? TensorShape({count, h, w, 4})
                                     : TensorShape({h, w, 4});
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    const size_t frame_bytes = static_cast<size_t>(h * w * 4);
    uint8_t* o = out->data<uint8_t>();
    for (int64_t i = 0; i < count; ++i, o += frame_bytes) {
      uint8_t* pixels = nullptr;
      int timestamp = 0;
      DFX_OP_REQUIRES(
          ctx,
          WebPAnimDecoderHasMoreFrames(decoder.get()) &&
              WebPAnimDecoderGetNext(decoder.get(), &pixels, &timestamp),
          absl::InvalidArgumentError("Failed to decode WebP image."));
      std::memcpy(o, pixels, frame_bytes);
    }
  }

  // JPEG XL, as TensorFlow decodes it through any decode op: uint8 only,
  // the file's own channels (grey, grey+alpha, RGB, RGBA), always
  // [height, width, channels] (an animation's first frame; DecodeGif too).
  void DecodeJxl(OpKernelContext* ctx, absl::string_view input) {
    DFX_OP_REQUIRES(
        ctx, dtype_ == DT_UINT8,
        absl::InvalidArgumentError("JXL only supports uint8 for dtype"));
    codec::JxlInfo info;
    DFX_OP_REQUIRES(ctx, codec::ReadJxlInfo(input, &info),
                    absl::InvalidArgumentError("Failed to decode JXL header"));
    DFX_OP_REQUIRES(ctx, channels_ == 0 || channels_ == info.channels,
                    absl::InvalidArgumentError(
                        "Number of channels requested does not match input"));
    // A header may declare up to 2^30 x 2^30 pixels in a few bytes. libjxl
    // 0.7 allocates its frame planes (float or int32 samples, three or more
    // planes even for grey) with plain malloc, outside the host memory
    // limit, so dfx bounds them here: a pixel cap, and the output and four
    // planes counted against the limit before anything is allocated.
    const int64_t pixels = info.width * info.height;
    DFX_OP_REQUIRES(
        ctx, pixels <= kMaxJxlPixels,
        absl::ResourceExhaustedError(absl::StrCat(
            "JPEG XL image of ", info.width, "x", info.height,
            " pixels is over dfx's limit of ", kMaxJxlPixels, " pixels")));
    DFX_OP_REQUIRES_OK(ctx, CheckHostMemoryHeadroom(
                                pixels * (info.channels + 16),
                                "a JPEG XL image and its decoder's planes"));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(
        ctx,
        ctx->allocate_output(
            0, TensorShape({info.height, info.width, info.channels}), &out));
    DFX_OP_REQUIRES_OK(
        ctx, codec::DecodeJxl(input, info.channels, out->data<uint8_t>(),
                              static_cast<size_t>(out->NumElements())));
  }

  // 2^30 pixels: 4 GiB of RGBA samples.
  static constexpr int64_t kMaxJxlPixels = int64_t{1} << 30;

  std::string op_;
  int channels_ = 0;
  DataType dtype_ = DT_UINT8;
  bool expand_animations_ = true;
  codec::JpegDecodeOptions jpeg_;
};

template <typename T>
class EncodePngOp : public OpKernel {
 public:
  explicit EncodePngOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    int64_t compression = -1;
    ctx->SetStatus(ctx->GetAttr("compression", &compression));
    if (compression < -1 || compression > 9) {
      ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
          "compression should be in [-1,9], got ", compression)));
    }
    compression_ = static_cast<int>(compression);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& image = ctx->input(0);
    DFX_OP_REQUIRES(ctx, image.dims() >= 3,
                    absl::InvalidArgumentError(
                        absl::StrCat("images must be at least rank 3",
                                     image.shape().DebugString())));
    DFX_OP_REQUIRES(ctx,
                    image.NumElements() < std::numeric_limits<int32_t>::max(),
                    absl::InvalidArgumentError(
                        "image cannot have >= int32 max elements"));
    const int batch_dims = image.dims() - 3;
    const int64_t height = image.dim_size(batch_dims);
    const int64_t width = image.dim_size(batch_dims + 1);
    const int64_t channels = image.dim_size(batch_dims + 2);
    DFX_OP_REQUIRES(
        ctx, width * channels < std::numeric_limits<int32_t>::max() / 2,
        absl::InvalidArgumentError("image too wide to encode"));
    DFX_OP_REQUIRES(ctx, channels >= 1 && channels <= 4,
                    absl::InvalidArgumentError(absl::StrCat(
                        "image must have 1, 2, 3, or 4 channels, got ",
                        channels)));
    TensorShape out_shape;
    int64_t batches = 1;
    for (int i = 0; i < batch_dims; ++i) {
      DFX_OP_REQUIRES_OK(ctx, out_shape.AddDim(image.dim_size(i)));
      batches *= image.dim_size(i);
    }
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    const auto* data = reinterpret_cast<const uint8_t*>(image.data<T>());
    const int64_t row_bytes = width * channels * sizeof(T);
    const int64_t image_bytes = height * row_bytes;
    std::string* files = out->data<std::string>();
    std::vector<char> failed(batches, 0);
    ParallelFor(*ctx->device(), batches,
                Eigen::TensorOpCost(image_bytes, image_bytes, 20 * image_bytes),
                [&](int64_t first, int64_t last) {
                  for (int64_t i = first; i < last; ++i) {
                    failed[i] = !codec::EncodePng(
                        data + i * image_bytes, static_cast<int>(width),
                        static_cast<int>(height), row_bytes,
                        static_cast<int>(channels), 8 * sizeof(T),
                        compression_, &files[i]);
                  }
                });
    std::vector<int64_t> bad;
    for (int64_t i = 0; i < batches; ++i) {
      if (failed[i]) bad.push_back(i);
    }
    DFX_OP_REQUIRES(ctx, bad.empty(),
                    absl::InternalError(absl::StrCat(
                        "PNG encoding failed at the following flattened batch "
                        "indices: ",
                        absl::StrJoin(bad, ", "))));
  }

 private:
  int compression_ = -1;
};

class EncodeJpegOp : public OpKernel {
 public:
  explicit EncodeJpegOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("format", &format_));
    if (!format_.empty() && format_ != "grayscale" && format_ != "rgb") {
      ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
          "format must be '', grayscale or rgb, got ", format_)));
      return;
    }
    int64_t quality = 95;
    ctx->SetStatus(ctx->GetAttr("quality", &quality));
    if (quality < 0 || quality > 100) {
      ctx->SetStatus(absl::InvalidArgumentError(
          absl::StrCat("quality must be in [0,100], got ", quality)));
      return;
    }
    options_.quality = static_cast<int>(quality);
    ctx->SetStatus(ctx->GetAttr("progressive", &options_.progressive));
    ctx->SetStatus(ctx->GetAttr("optimize_size", &options_.optimize_size));
    ctx->SetStatus(
        ctx->GetAttr("chroma_downsampling", &options_.chroma_downsampling));
    std::string unit;
    ctx->SetStatus(ctx->GetAttr("density_unit", &unit));
    if (unit == "in") {
      options_.density_unit = 1;
    } else if (unit == "cm") {
      options_.density_unit = 2;
    } else {
      ctx->SetStatus(absl::InvalidArgumentError(
          absl::StrCat("density_unit must be 'in' or 'cm'", unit)));
      return;
    }
    int64_t x_density = 300;
    int64_t y_density = 300;
    ctx->SetStatus(ctx->GetAttr("x_density", &x_density));
    ctx->SetStatus(ctx->GetAttr("y_density", &y_density));
    // JFIF stores densities in 16 bits; TensorFlow truncates the same way
    // when it hands the int attr to libjpeg.
    options_.x_density = static_cast<uint16_t>(x_density);
    options_.y_density = static_cast<uint16_t>(y_density);
    ctx->SetStatus(ctx->GetAttr("xmp_metadata", &xmp_metadata_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& image = ctx->input(0);
    DFX_OP_REQUIRES(ctx, image.dims() == 3,
                    absl::InvalidArgumentError(
                        absl::StrCat("image must be 3-dimensional",
                                     image.shape().DebugString())));
    DFX_OP_REQUIRES(ctx,
                    image.NumElements() < std::numeric_limits<int32_t>::max(),
                    absl::InvalidArgumentError(
                        "Cannot encode images with >= max int32 elements"));
    const int64_t channels = image.dim_size(2);
    codec::JpegEncodeOptions options = options_;
    options.xmp_metadata = xmp_metadata_;
    if (format_.empty()) {
      DFX_OP_REQUIRES(ctx, channels == 1 || channels == 3,
                      absl::InvalidArgumentError(absl::StrCat(
                          "image must have 1 or 3 channels, got ",
                          image.shape().DebugString())));
      options.channels = static_cast<int>(channels);
    } else {
      options.channels = format_ == "grayscale" ? 1 : 3;
      DFX_OP_REQUIRES(ctx, channels == options.channels,
                      absl::InvalidArgumentError(absl::StrCat(
                          "format ", format_, " expects ", options.channels,
                          " channels, got ", image.shape().DebugString())));
    }
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({}), &out));
    DFX_OP_REQUIRES(
        ctx,
        codec::EncodeJpeg(image.data<uint8_t>(),
                          static_cast<int>(image.dim_size(1)),
                          static_cast<int>(image.dim_size(0)), options,
                          &out->data<std::string>()[0]),
        absl::InternalError("JPEG encoding failed"));
  }

 private:
  std::string format_;
  std::string xmp_metadata_;
  codec::JpegEncodeOptions options_;
};

// EncodeJpegVariableQuality (tf.image.adjust_jpeg_quality): EncodeJpeg's
// defaults with the quality an input and the format from the channels.
class EncodeJpegVariableQualityOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& image = ctx->input(0);
    DFX_OP_REQUIRES(ctx, image.dims() == 3,
                    absl::InvalidArgumentError(
                        absl::StrCat("image must be 3-dimensional",
                                     image.shape().DebugString())));
    DFX_OP_REQUIRES(ctx,
                    image.NumElements() < std::numeric_limits<int32_t>::max(),
                    absl::InvalidArgumentError(
                        "Cannot encode images with >= max int32 elements"));
    const Tensor& quality = ctx->input(1);
    DFX_OP_REQUIRES(ctx, quality.dims() == 0,
                    absl::InvalidArgumentError(
                        absl::StrCat("quality must be scalar: ",
                                     quality.shape().DebugString())));
    codec::JpegEncodeOptions options;
    options.quality = quality.scalar<int32_t>();
    DFX_OP_REQUIRES(ctx, options.quality >= 0 && options.quality <= 100,
                    absl::InvalidArgumentError(absl::StrCat(
                        "quality must be in [0,100], got ", options.quality)));
    const int64_t channels = image.dim_size(2);
    DFX_OP_REQUIRES(ctx, channels == 1 || channels == 3,
                    absl::InvalidArgumentError(absl::StrCat(
                        "image must have 1 or 3 channels, got ",
                        image.shape().DebugString())));
    options.channels = static_cast<int>(channels);
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({}), &out));
    DFX_OP_REQUIRES(
        ctx,
        codec::EncodeJpeg(image.data<uint8_t>(),
                          static_cast<int>(image.dim_size(1)),
                          static_cast<int>(image.dim_size(0)), options,
                          &out->data<std::string>()[0]),
        absl::InternalError("JPEG encoding failed"));
  }
};

template <typename T>
class ExtractJpegShapeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& contents = ctx->input(0);
    DFX_OP_REQUIRES(ctx, contents.dims() == 0,
                    absl::InvalidArgumentError(
                        absl::StrCat("contents must be scalar, got shape ",
                                     contents.shape().DebugString())));
    const std::string& input = contents.scalar<std::string>();
    int width = 0;
    int height = 0;
    int channels = 0;
    DFX_OP_REQUIRES(ctx, codec::JpegShape(input, &width, &height, &channels),
                    absl::InvalidArgumentError(absl::StrCat(
                        "Invalid JPEG data, size ", input.size())));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({3}), &out));
    T* o = out->data<T>();
    o[0] = height;
    o[1] = width;
    o[2] = channels;
  }
};

}  // namespace

void RegisterCodecKernels(KernelRegistry* registry) {
  for (const char* op :
       {"DecodeJpeg", "DecodeAndCropJpeg", "DecodePng", "DecodeGif",
        "DecodeBmp", "DecodeWebP", "DecodeJxl", "DecodeImage"}) {
    RegisterKernel<DecodeImageOp>(registry, KernelDefBuilder(op));
  }
  RegisterKernel<EncodePngOp<uint8_t>>(
      registry, KernelDefBuilder("EncodePng").TypeConstraint<uint8_t>("T"));
  RegisterKernel<EncodePngOp<uint16_t>>(
      registry, KernelDefBuilder("EncodePng").TypeConstraint<uint16_t>("T"));
  RegisterKernel<EncodeJpegOp>(registry, KernelDefBuilder("EncodeJpeg"));
  RegisterKernel<EncodeJpegVariableQualityOp>(
      registry, KernelDefBuilder("EncodeJpegVariableQuality"));
  RegisterKernel<ExtractJpegShapeOp<int32_t>>(
      registry,
      KernelDefBuilder("ExtractJpegShape").TypeConstraint<int32_t>("output_type"));
  RegisterKernel<ExtractJpegShapeOp<int64_t>>(
      registry,
      KernelDefBuilder("ExtractJpegShape").TypeConstraint<int64_t>("output_type"));
  RegisterDecodeRawKernels(registry);
  RegisterAudioKernels(registry);
  RegisterReadFileKernel(registry);
  RegisterDecodeCompressedKernel(registry);
}

}  // namespace dfx

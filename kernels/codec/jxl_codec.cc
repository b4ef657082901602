// libjxl's decoder API, used the way TensorFlow's jxl_io.cc uses it: the
// input given whole and closed, basic info and the full image subscribed,
// and the first full image returned (later frames of an animation are not
// decoded). Orientation is applied and alpha left straight, libjxl's
// defaults.
#include "kernels/codec/jxl_codec.h"

#include <memory>

#include "jxl/decode.h"

namespace dfx::codec {
namespace {

struct DecoderDeleter {
  void operator()(JxlDecoder* d) const { JxlDecoderDestroy(d); }
};
using DecoderPtr = std::unique_ptr<JxlDecoder, DecoderDeleter>;

// A decoder over the whole of `data`, its input closed, subscribed to
// `events`; null when libjxl refuses.
DecoderPtr NewDecoder(absl::string_view data, int events) {
  DecoderPtr dec(JxlDecoderCreate(nullptr));
  if (dec == nullptr ||
      JxlDecoderSubscribeEvents(dec.get(), events) != JXL_DEC_SUCCESS ||
      JxlDecoderSetInput(dec.get(),
                         reinterpret_cast<const uint8_t*>(data.data()),
                         data.size()) != JXL_DEC_SUCCESS) {
    return nullptr;
  }
  JxlDecoderCloseInput(dec.get());
  return dec;
}

}  // namespace

bool HasJxlSignature(absl::string_view data) {
  const JxlSignature sig = JxlSignatureCheck(
      reinterpret_cast<const uint8_t*>(data.data()), data.size());
  return sig == JXL_SIG_CODESTREAM || sig == JXL_SIG_CONTAINER;
}

bool ReadJxlInfo(absl::string_view data, JxlInfo* info) {
  DecoderPtr dec = NewDecoder(data, JXL_DEC_BASIC_INFO);
  if (dec == nullptr ||
      JxlDecoderProcessInput(dec.get()) != JXL_DEC_BASIC_INFO) {
    return false;
  }
  JxlBasicInfo basic;
  if (JxlDecoderGetBasicInfo(dec.get(), &basic) != JXL_DEC_SUCCESS) {
    return false;
  }
  info->width = basic.xsize;
  info->height = basic.ysize;
  info->channels =
      static_cast<int>(basic.num_color_channels) + (basic.alpha_bits ? 1 : 0);
  return true;
}

absl::Status DecodeJxl(absl::string_view data, int channels, uint8_t* out,
                       size_t size) {
  const absl::Status bad =
      absl::InvalidArgumentError("Failed to decode JXL image");
  DecoderPtr dec = NewDecoder(data, JXL_DEC_BASIC_INFO | JXL_DEC_FULL_IMAGE);
  if (dec == nullptr) return bad;
  const JxlPixelFormat format = {static_cast<uint32_t>(channels),
                                 JXL_TYPE_UINT8, JXL_NATIVE_ENDIAN, 0};
  for (;;) {
    switch (JxlDecoderProcessInput(dec.get())) {
      case JXL_DEC_BASIC_INFO:
        break;
      case JXL_DEC_NEED_IMAGE_OUT_BUFFER: {
        size_t need = 0;
        if (JxlDecoderImageOutBufferSize(dec.get(), &format, &need) !=
                JXL_DEC_SUCCESS ||
            need != size ||
            JxlDecoderSetImageOutBuffer(dec.get(), &format, out, size) !=
                JXL_DEC_SUCCESS) {
          return bad;
        }
        break;
      }
      case JXL_DEC_FULL_IMAGE:
      case JXL_DEC_SUCCESS:
        return absl::OkStatus();
      default:  // JXL_DEC_ERROR, JXL_DEC_NEED_MORE_INPUT (truncated), ...
        return bad;
    }
  }
}

}  // namespace dfx::codec

// GIF decoding: see gif_codec.h.
#include "kernels/codec/gif_codec.h"

#include <gif_lib.h>

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace dfx::codec {
namespace {

struct Input {
  const uint8_t* data;
  int64_t left;
};

// giflib's read callback: copies what is left, at most `size` bytes; a
// short read is how giflib learns the file ended early.
int ReadInput(GifFileType* gif, GifByteType* buf, int size) {
  auto* in = static_cast<Input*>(gif->UserData);
  if (in == nullptr) return 0;
  const int n = static_cast<int>(std::min<int64_t>(size, in->left));
  std::memcpy(buf, in->data, n);
  in->data += n;
  in->left -= n;
  return n;
}

const char* ErrorText(int code) {
  const char* text = GifErrorString(code);
  return text != nullptr ? text : "Unknown error";
}

// Closes the file however the decode ends.
struct GifCloser {
  GifFileType* gif;
  ~GifCloser() {
    int code = D_GIF_SUCCEEDED;
    if (gif != nullptr) DGifCloseFile(gif, &code);
  }
};

}  // namespace

bool DecodeGif(absl::string_view data, bool all_frames, GifAllocator allocate,
               std::string* error) {
  error->clear();
  Input input{reinterpret_cast<const uint8_t*>(data.data()),
              static_cast<int64_t>(data.size())};
  int code = D_GIF_SUCCEEDED;
  GifFileType* gif = DGifOpen(&input, ReadInput, &code);
  GifCloser closer{gif};
  if (gif == nullptr || code != D_GIF_SUCCEEDED) {
    *error = absl::StrCat("failed to open gif file: ", ErrorText(code));
    return false;
  }
  if (DGifSlurp(gif) != GIF_OK) {
    *error = absl::StrCat("failed to slurp gif file: ", ErrorText(gif->Error));
    // Frames read before a late error are still decoded, as TensorFlow
    // does, unless none was or the last is incomplete.
    if (gif->ImageCount <= 0 ||
        gif->SavedImages[gif->ImageCount - 1].RasterBits == nullptr ||
        gif->Error == D_GIF_ERR_EOF_TOO_SOON) {
      return false;
    }
  }
  if (gif->ImageCount <= 0) {
    *error = "gif file does not contain any image";
    return false;
  }
  int frames = gif->ImageCount;
  int width = 0;
  int height = 0;
  for (int k = 0; k < frames; ++k) {
    width = std::max<int>(width, gif->SavedImages[k].ImageDesc.Width);
    height = std::max<int>(height, gif->SavedImages[k].ImageDesc.Height);
  }
  constexpr int kChannels = 3;
  if (!all_frames) frames = 1;
  uint8_t* out = allocate(frames, width, height, kChannels);
  if (out == nullptr) {
    error->clear();
    return false;
  }
  const int64_t row = static_cast<int64_t>(width) * kChannels;
  const int64_t frame_bytes = row * height;
  for (int k = 0; k < frames; ++k) {
    uint8_t* dst = out + k * frame_bytes;
    const SavedImage& image = gif->SavedImages[k];
    const GifImageDesc& desc = image.ImageDesc;
    GraphicsControlBlock gcb;
    gcb.TransparentColor = NO_TRANSPARENT_COLOR;
    DGifSavedExtensionToGCB(gif, k, &gcb);
    if (k > 0) std::memcpy(dst, dst - frame_bytes, frame_bytes);
    int left = desc.Left;
    int top = desc.Top;
    int right = desc.Left + desc.Width;
    int bottom = desc.Top + desc.Height;
    if (desc.Left != 0 || desc.Top != 0 || desc.Width != width ||
        desc.Height != height) {
      // A first frame smaller than the canvas leaves the rest black.
      if (k == 0) std::memset(dst, 0, frame_bytes);
      left = std::max(left, 0);
      top = std::max(top, 0);
      right = std::min(right, width);
      bottom = std::min(bottom, height);
    }
    const ColorMapObject* map =
        desc.ColorMap != nullptr ? desc.ColorMap : gif->SColorMap;
    if (map == nullptr) {
      *error = absl::StrCat("missing color map for frame ", k);
      return false;
    }
    for (int64_t i = top; i < bottom; ++i) {
      uint8_t* p = dst + i * row;
      for (int64_t j = left; j < right; ++j) {
        const int index =
            image.RasterBits[(i - desc.Top) * desc.Width + (j - desc.Left)];
        if (index == gcb.TransparentColor) {
          if (k == 0) {
            p[j * kChannels + 0] = 0;
            p[j * kChannels + 1] = 0;
            p[j * kChannels + 2] = 0;
          }
          continue;
        }
        if (index >= map->ColorCount) {
          *error = absl::StrCat("found color index ", index,
                                " outside of color map range ",
                                map->ColorCount);
          return false;
        }
        const GifColorType& color = map->Colors[index];
        p[j * kChannels + 0] = color.Red;
        p[j * kChannels + 1] = color.Green;
        p[j * kChannels + 2] = color.Blue;
      }
    }
  }
  return true;
}

}  // namespace dfx::codec

// Codec ops with their shape functions: images (DecodePng, EncodePng,
// DecodeJpeg, EncodeJpeg, EncodeJpegVariableQuality, ExtractJpegShape,
// DecodeAndCropJpeg, DecodeBmp,
// DecodeGif, DecodeImage), raw and compressed bytes (DecodeRaw,
// DecodeCompressed) and audio (DecodeWav,
// EncodeWav, AudioSpectrogram, Mfcc), and ReadFile, which feeds decoders
// in input pipelines. Signatures follow TensorFlow 2.21's image_ops.cc,
// parsing_ops.cc, audio_ops.cc and io_ops.cc; the shape functions reject at
// import only what TensorFlow's reject.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/node_def_util.h"
#include "graph/ops/ops.h"

namespace dfx {
namespace {

// The node's `name` attr, or `fallback` when a NodeDef leaves it out (a
// GraphDef may omit attrs that have defaults).
template <typename T>
absl::Status AttrOr(InferenceContext* c, const char* name, T fallback,
                    T* out) {
  *out = fallback;
  if (FindNodeAttr(c->node_def(), name) == nullptr) return absl::OkStatus();
  return GetNodeAttr(c->node_def(), name, out);
}

// The channels dim of a decoded image: unknown for 0 (the file's own).
absl::Status ChannelsDim(InferenceContext* c, int64_t* dim) {
  int64_t channels = 0;
  DFX_RETURN_IF_ERROR(AttrOr<int64_t>(c, "channels", 0, &channels));
  if (channels < 0) {
    return c->Error(
        absl::StrCat("channels must be non-negative, got ", channels));
  }
  *dim = channels == 0 ? -1 : channels;
  return absl::OkStatus();
}

// DecodeJpeg, DecodePng, DecodeBmp: a scalar file, a [?, ?, channels] image.
absl::Status DecodeImageShapeFn(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 0));
  int64_t channels = -1;
  DFX_RETURN_IF_ERROR(ChannelsDim(c, &channels));
  c->set_output(0, PartialShape::Known({-1, -1, channels}));
  return absl::OkStatus();
}

// DecodeImage: of unknown rank when GIF animations expand to 4-D.
absl::Status DecodeImageV2ShapeFn(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 0));
  int64_t channels = -1;
  DFX_RETURN_IF_ERROR(ChannelsDim(c, &channels));
  bool expand = true;
  DFX_RETURN_IF_ERROR(AttrOr(c, "expand_animations", true, &expand));
  if (expand) {
    c->set_output(0, PartialShape::Unknown());
  } else {
    c->set_output(0, PartialShape::Known({-1, -1, channels}));
  }
  return absl::OkStatus();
}

// DecodeAndCropJpeg: the crop window's height and width when it is a
// constant.
absl::Status DecodeAndCropJpegShapeFn(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 0));
  int64_t channels = -1;
  DFX_RETURN_IF_ERROR(ChannelsDim(c, &channels));
  const PartialShape& window_shape = c->input(1);
  DFX_RETURN_IF_ERROR(c->WithRank(window_shape, 1));
  if (window_shape.RankKnown() && window_shape.dims[0] >= 0 &&
      window_shape.dims[0] != 4) {
    return c->Error(
        absl::StrCat("Dimension must be 4 but is ", window_shape.dims[0]));
  }
  int64_t h = -1;
  int64_t w = -1;
  std::vector<int64_t> window;
  if (ConstantInts(c->input_tensor(1), &window)) {
    if (window.size() != 4) {
      return c->Error(absl::StrCat("crop_window must have 4 elements, got ",
                                   window.size()));
    }
    if (window[2] < 0 || window[3] < 0) {
      return c->Error("crop_window height and width must be non-negative");
    }
    h = window[2];
    w = window[3];
  }
  c->set_output(0, PartialShape::Known({h, w, channels}));
  return absl::OkStatus();
}

absl::Status DecodeGifShapeFn(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 0));
  c->set_output(0, PartialShape::Known({-1, -1, -1, 3}));
  return absl::OkStatus();
}

// EncodeJpeg: a [height, width, channels] image, a scalar file.
absl::Status EncodeImageShapeFn(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 3));
  c->set_output(0, PartialShape::Scalar());
  return absl::OkStatus();
}

// EncodeJpegVariableQuality: a [height, width, channels] image and a
// scalar quality, a scalar file.
absl::Status EncodeJpegVariableQualityShapeFn(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 3));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 0));
  c->set_output(0, PartialShape::Scalar());
  return absl::OkStatus();
}

// EncodePng: images of rank >= 3, one file per leading (batch) index.
absl::Status BatchedEncodeImageShapeFn(InferenceContext* c) {
  const PartialShape& in = c->input(0);
  if (!in.RankKnown()) {
    c->set_output(0, PartialShape::Unknown());
    return absl::OkStatus();
  }
  if (in.rank() < 3) {
    return c->Error(absl::StrCat("Shape must be at least rank 3 but is rank ",
                                 in.rank()));
  }
  c->set_output(0, PartialShape::Known(std::vector<int64_t>(
                       in.dims.begin(), in.dims.end() - 3)));
  return absl::OkStatus();
}

absl::Status ExtractJpegShapeShapeFn(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 0));
  c->set_output(0, PartialShape::Known({3}));
  return absl::OkStatus();
}

// DecodeRaw: the input's shape and one more dim, the elements per string.
absl::Status DecodeRawShapeFn(InferenceContext* c) {
  const PartialShape& in = c->input(0);
  if (!in.RankKnown()) {
    c->set_output(0, PartialShape::Unknown());
    return absl::OkStatus();
  }
  std::vector<int64_t> dims = in.dims;
  dims.push_back(-1);
  c->set_output(0, PartialShape::Known(std::move(dims)));
  return absl::OkStatus();
}

// DecodeWav: [desired_samples, desired_channels] (-1: unknown) and a
// scalar sample rate.
absl::Status DecodeWavShapeFn(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 0));
  int64_t channels = -1;
  int64_t samples = -1;
  DFX_RETURN_IF_ERROR(AttrOr<int64_t>(c, "desired_channels", -1, &channels));
  DFX_RETURN_IF_ERROR(AttrOr<int64_t>(c, "desired_samples", -1, &samples));
  if (channels < -1) {
    return c->Error(
        absl::StrCat("channels must be non-negative, got ", channels));
  }
  if (samples < -1) {
    return c->Error(
        absl::StrCat("samples must be non-negative, got ", samples));
  }
  c->set_output(0, PartialShape::Known({samples, channels}));
  c->set_output(1, PartialShape::Scalar());
  return absl::OkStatus();
}

absl::Status EncodeWavShapeFn(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 2));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 0));
  c->set_output(0, PartialShape::Scalar());
  return absl::OkStatus();
}

// AudioSpectrogram: [channels, windows, 1 + fft_length / 2] for [samples,
// channels] audio, the FFT as long as the next power of two >= the window.
absl::Status AudioSpectrogramShapeFn(InferenceContext* c) {
  const PartialShape& in = c->input(0);
  DFX_RETURN_IF_ERROR(c->WithRank(in, 2));
  int64_t window = 0;
  int64_t stride = 0;
  DFX_RETURN_IF_ERROR(GetNodeAttr(c->node_def(), "window_size", &window));
  DFX_RETURN_IF_ERROR(GetNodeAttr(c->node_def(), "stride", &stride));
  if (window <= 1) {
    return c->Error(absl::StrCat("window size must be > 1, got ", window));
  }
  if (stride <= 0) {
    return c->Error(
        absl::StrCat("stride must be strictly positive, got ", stride));
  }
  int64_t length = -1;
  int64_t channels = -1;
  if (in.RankKnown()) {
    channels = in.dims[1];
    if (in.dims[0] >= 0) {
      length = in.dims[0] < window ? 0 : 1 + (in.dims[0] - window) / stride;
    }
  }
  int64_t fft = 1;
  while (fft < window) fft <<= 1;
  c->set_output(0, PartialShape::Known({channels, length, 1 + fft / 2}));
  return absl::OkStatus();
}

// Mfcc: [channels, windows, dct_coefficient_count].
absl::Status MfccShapeFn(InferenceContext* c) {
  const PartialShape& in = c->input(0);
  DFX_RETURN_IF_ERROR(c->WithRank(in, 3));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 0));
  int64_t coefficients = 13;
  DFX_RETURN_IF_ERROR(
      AttrOr<int64_t>(c, "dct_coefficient_count", 13, &coefficients));
  int64_t channels = -1;
  int64_t length = -1;
  if (in.RankKnown()) {
    channels = in.dims[0];
    length = in.dims[1];
  }
  c->set_output(0, PartialShape::Known({channels, length, coefficients}));
  return absl::OkStatus();
}

absl::Status UnchangedShapeFn(InferenceContext* c) {
  c->set_output(0, c->input(0));
  return absl::OkStatus();
}

// ReadFile: a scalar file name, a scalar file.
absl::Status ReadFileShapeFn(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 0));
  c->set_output(0, PartialShape::Scalar());
  return absl::OkStatus();
}

// The attrs DecodeJpeg and DecodeAndCropJpeg share.
OpDefBuilder& JpegDecodeAttrs(OpDefBuilder& b) {
  return b.Attr("channels: int = 0")
      .Attr("ratio: int = 1")
      .Attr("fancy_upscaling: bool = true")
      .Attr("try_recover_truncated: bool = false")
      .Attr("acceptable_fraction: float = 1.0")
      .Attr("dct_method: string = ''");
}

}  // namespace

absl::Status RegisterCodecOps(OpRegistry* r) {
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("DecodePng")
                                      .Input("contents: string")
                                      .Output("image: dtype")
                                      .Attr("channels: int = 0")
                                      .Attr("dtype: {uint8, uint16} = DT_UINT8")
                                      .SetShapeFn(DecodeImageShapeFn)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("EncodePng")
                      .Input("image: T")
                      .Output("contents: string")
                      .Attr("compression: int = -1")
                      .Attr("T: {uint8, uint16} = DT_UINT8")
                      .SetShapeFn(BatchedEncodeImageShapeFn)));
  {
    OpDefBuilder b("DecodeJpeg");
    b.Input("contents: string").Output("image: uint8");
    DFX_RETURN_IF_ERROR(
        r->Register(JpegDecodeAttrs(b).SetShapeFn(DecodeImageShapeFn)));
  }
  {
    OpDefBuilder b("DecodeAndCropJpeg");
    b.Input("contents: string")
        .Input("crop_window: int32")
        .Output("image: uint8");
    DFX_RETURN_IF_ERROR(
        r->Register(JpegDecodeAttrs(b).SetShapeFn(DecodeAndCropJpegShapeFn)));
  }
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("EncodeJpeg")
                      .Input("image: uint8")
                      .Output("contents: string")
                      .Attr("format: {'', 'grayscale', 'rgb'} = ''")
                      .Attr("quality: int = 95")
                      .Attr("progressive: bool = false")
                      .Attr("optimize_size: bool = false")
                      .Attr("chroma_downsampling: bool = true")
                      .Attr("density_unit: {'in', 'cm'} = 'in'")
                      .Attr("x_density: int = 300")
                      .Attr("y_density: int = 300")
                      .Attr("xmp_metadata: string = ''")
                      .SetShapeFn(EncodeImageShapeFn)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("EncodeJpegVariableQuality")
                      .Input("images: uint8")
                      .Input("quality: int32")
                      .Output("contents: string")
                      .SetShapeFn(EncodeJpegVariableQualityShapeFn)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("ExtractJpegShape")
                      .Input("contents: string")
                      .Output("image_shape: output_type")
                      .Attr("output_type: {int32, int64} = DT_INT32")
                      .SetShapeFn(ExtractJpegShapeShapeFn)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("DecodeBmp")
                                      .Input("contents: string")
                                      .Output("image: uint8")
                                      .Attr("channels: int = 0")
                                      .SetShapeFn(DecodeImageShapeFn)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("DecodeGif")
                                      .Input("contents: string")
                                      .Output("image: uint8")
                                      .SetShapeFn(DecodeGifShapeFn)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("DecodeImage")
                      .Input("contents: string")
                      .Output("image: dtype")
                      .Attr("channels: int = 0")
                      .Attr("dtype: {uint8, uint16, float} = DT_UINT8")
                      .Attr("expand_animations: bool = true")
                      .SetShapeFn(DecodeImageV2ShapeFn)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("DecodeRaw")
                      .Input("bytes: string")
                      .Output("output: out_type")
                      .Attr("out_type: {half, float, double, int32, uint16, "
                            "uint8, int16, int8, int64, complex64, complex128, "
                            "bool, bfloat16}")
                      .Attr("little_endian: bool = true")
                      .SetShapeFn(DecodeRawShapeFn)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("DecodeWav")
                                      .Input("contents: string")
                                      .Output("audio: float")
                                      .Output("sample_rate: int32")
                                      .Attr("desired_channels: int = -1")
                                      .Attr("desired_samples: int = -1")
                                      .SetShapeFn(DecodeWavShapeFn)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("EncodeWav")
                                      .Input("audio: float")
                                      .Input("sample_rate: int32")
                                      .Output("contents: string")
                                      .SetShapeFn(EncodeWavShapeFn)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("AudioSpectrogram")
                      .Input("input: float")
                      .Output("spectrogram: float")
                      .Attr("window_size: int")
                      .Attr("stride: int")
                      .Attr("magnitude_squared: bool = false")
                      .SetShapeFn(AudioSpectrogramShapeFn)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("Mfcc")
                      .Input("spectrogram: float")
                      .Input("sample_rate: int32")
                      .Output("output: float")
                      .Attr("upper_frequency_limit: float = 4000")
                      .Attr("lower_frequency_limit: float = 20")
                      .Attr("filterbank_channel_count: int = 40")
                      .Attr("dct_coefficient_count: int = 13")
                      .SetShapeFn(MfccShapeFn)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("DecodeCompressed")
                      .Input("bytes: string")
                      .Output("output: string")
                      .Attr("compression_type: string = ''")
                      .SetShapeFn(UnchangedShapeFn)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("ReadFile")
                                      .Input("filename: string")
                                      .Output("contents: string")
                                      .SetShapeFn(ReadFileShapeFn)));
  return absl::OkStatus();
}

}  // namespace dfx

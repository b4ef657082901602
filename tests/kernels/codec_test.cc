// Image codec ops (graph/ops/codec_ops.cc, kernels/codec/): signatures
// equal TensorFlow 2.21's byte for byte; encode/decode round trips; and
// corrupt, truncated or bit-flipped files of every format fail with
// InvalidArgument (or decode, as libjpeg may) without crashing. Results
// are compared with TensorFlow's by the "codec" golden family
// (gen_codec.py).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "catch2/catch.hpp"
#include "base/status_macros.h"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "graph/shape_inference.h"
#include "kernels/kernels.h"
#include "nlohmann/json.hpp"
#include "proto/op_def.pb.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/math_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using absl::StatusCode;
using testing::RunError;
using testing::RunKernel;
using testing::RunOne;
using testing::StatusIs;
using testing::TestNodeBuilder;
using testing::Values;

const char* const kDataDir = DFX_TEST_DATA_DIR "/../golden/data/codec/";

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The file a golden case fed (its first feed, a string scalar).
std::string GoldenFile(const std::string& golden_case) {
  const nlohmann::json j = nlohmann::json::parse(
      ReadFile(std::string(kDataDir) + golden_case + "/feed_0.json"));
  std::string bytes;
  REQUIRE(absl::Base64Unescape(j["base64"][0].get<std::string>(), &bytes));
  return bytes;
}

Tensor Scalar(const std::string& s) {
  Tensor t(DT_STRING, TensorShape({}));
  t.scalar<std::string>() = s;
  return t;
}

// A gradient image of `shape` (h, w, c).
template <typename T>
Tensor Image(int64_t h, int64_t w, int64_t c, int seed = 0) {
  Tensor t(DataTypeToEnum<T>::value, TensorShape({h, w, c}));
  T* p = t.data<T>();
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    p[i] = static_cast<T>((i * 37 + seed * 11) * (sizeof(T) == 1 ? 1 : 251));
  }
  return t;
}

std::string EncodePng(const Tensor& image) {
  return RunOne(TestNodeBuilder("e", "EncodePng", 1)
                    .Attr("T", image.dtype())
                    .Build(),
                {image})
      .scalar<std::string>();
}

std::string EncodeJpeg(const Tensor& image) {
  return RunOne(TestNodeBuilder("e", "EncodeJpeg", 1).Build(), {image})
      .scalar<std::string>();
}

NodeDef Decode(const std::string& op) {
  return TestNodeBuilder("d", op, 1).Build();
}

TEST_CASE("Every codec op has TensorFlow 2.21's signature and CPU types",
          "[codec]") {
  testing::CheckSignaturesWithTensorFlow("codec", 17);
}

// The op's shape function on `node` (defaults added); `consts[i]`, when
// initialized, is the constant value of input i. The first output's shape
// as text, or the error.
std::string Infer(const NodeDef& node_in, std::vector<PartialShape> inputs,
                  const std::vector<Tensor>& consts = {}) {
  const OpRegistrationData* op = OpRegistry::Global()->LookUp(node_in.op());
  if (op == nullptr) return "no op";
  NodeDef node = node_in;
  AddDefaultAttrs(op->op_def, &node);
  std::vector<TensorProto> protos(consts.size());
  std::vector<const TensorProto*> ptrs(inputs.size(), nullptr);
  for (size_t i = 0; i < consts.size(); ++i) {
    if (consts[i].IsInitialized()) {
      consts[i].AsProtoTensorContent(&protos[i]);
      ptrs[i] = &protos[i];
    }
  }
  InferenceContext c(node, op->op_def, std::move(inputs), ptrs,
                     op->op_def.output_arg_size());
  absl::Status s = op->shape_fn(&c);
  if (!s.ok()) return s.ToString();
  return c.output(0).DebugString();
}

PartialShape S(std::vector<int64_t> dims) {
  return PartialShape::Known(std::move(dims));
}

TEST_CASE("Codec op shape functions", "[codec]") {
  CHECK(Infer(TestNodeBuilder("d", "DecodePng", 1).Attr("channels", 3).Build(),
              {S({})}) == "[?,?,3]");
  CHECK(Infer(Decode("DecodeJpeg"), {S({})}) == "[?,?,?]");
  CHECK(Infer(Decode("DecodeGif"), {S({})}) == "[?,?,?,3]");
  CHECK(Infer(Decode("DecodeImage"), {S({})}) == "<unknown>");
  CHECK(Infer(TestNodeBuilder("d", "DecodeImage", 1)
                  .Attr("expand_animations", false)
                  .Attr("channels", 1)
                  .Build(),
              {S({})}) == "[?,?,1]");
  CHECK_THAT(Infer(Decode("DecodeBmp"), {S({2})}),
             ::Catch::Matchers::Contains("INVALID_ARGUMENT"));
  const NodeDef crop = TestNodeBuilder("c", "DecodeAndCropJpeg", 2).Build();
  CHECK(Infer(crop, {S({}), S({4})},
              {Tensor(), Tensor::FromVector<int32_t>({1, 2, 5, 7}, {4})}) ==
        "[5,7,?]");
  CHECK_THAT(Infer(crop, {S({}), S({3})}),
             ::Catch::Matchers::Contains("Dimension must be 4 but is 3"));
  const NodeDef png = TestNodeBuilder("e", "EncodePng", 1).Build();
  CHECK(Infer(png, {S({2, 5, 4, 3, 1})}) == "[2,5]");
  CHECK_THAT(Infer(png, {S({4, 3})}),
             ::Catch::Matchers::Contains("at least rank 3"));
  CHECK(Infer(TestNodeBuilder("e", "EncodeJpeg", 1).Build(), {S({4, 3, 3})}) ==
        "[]");
  CHECK(Infer(Decode("ExtractJpegShape"), {S({})}) == "[3]");
  CHECK(Infer(TestNodeBuilder("r", "DecodeRaw", 1)
                  .Attr("out_type", DT_FLOAT)
                  .Build(),
              {S({2, -1})}) == "[2,?,?]");
  CHECK(Infer(TestNodeBuilder("w", "DecodeWav", 1)
                  .Attr("desired_samples", 100)
                  .Build(),
              {S({})}) == "[100,?]");
  const NodeDef spec = TestNodeBuilder("s", "AudioSpectrogram", 1)
                           .Attr("window_size", 100)
                           .Attr("stride", 30)
                           .Build();
  CHECK(Infer(spec, {S({400, 2})}) == "[2,11,65]");
  CHECK(Infer(spec, {S({50, 2})}) == "[2,0,65]");
  CHECK(Infer(TestNodeBuilder("m", "Mfcc", 2).Build(), {S({2, 11, 65}), S({})}) ==
        "[2,11,13]");
}

TEST_CASE("PNG round trips every channel count and depth", "[codec]") {
  for (int c = 1; c <= 4; ++c) {
    INFO("channels " << c);
    const Tensor img8 = Image<uint8_t>(5, 7, c, c);
    const Tensor back8 = RunOne(Decode("DecodePng"), {Scalar(EncodePng(img8))});
    CHECK(back8.shape() == img8.shape());
    CHECK(Values<uint8_t>(back8) == Values<uint8_t>(img8));
    const Tensor img16 = Image<uint16_t>(4, 3, c, c);
    const Tensor back16 = RunOne(TestNodeBuilder("d", "DecodePng", 1)
                                     .Attr("dtype", DT_UINT16)
                                     .Build(),
                                 {Scalar(EncodePng(img16))});
    CHECK(Values<uint16_t>(back16) == Values<uint16_t>(img16));
  }
  // 8-bit files read as uint16 scale v to v * 257.
  const Tensor img = Image<uint8_t>(2, 3, 1);
  const Tensor wide = RunOne(
      TestNodeBuilder("d", "DecodePng", 1).Attr("dtype", DT_UINT16).Build(),
      {Scalar(EncodePng(img))});
  for (int64_t i = 0; i < img.NumElements(); ++i) {
    CHECK(wide.data<uint16_t>()[i] == img.data<uint8_t>()[i] * 257);
  }
}

TEST_CASE("EncodePng encodes each image of a batch", "[codec]") {
  Tensor batch(DT_UINT8, TensorShape({2, 3, 4, 5, 1}));
  for (int64_t i = 0; i < batch.NumElements(); ++i) {
    batch.data<uint8_t>()[i] = static_cast<uint8_t>(i);
  }
  const Tensor files = RunOne(
      TestNodeBuilder("e", "EncodePng", 1).Attr("T", DT_UINT8).Build(),
      {batch});
  REQUIRE(files.shape() == TensorShape({2, 3}));
  const Tensor fifth =
      RunOne(Decode("DecodePng"), {Scalar(files.data<std::string>()[5])});
  REQUIRE(fifth.shape() == TensorShape({4, 5, 1}));
  CHECK(fifth.data<uint8_t>()[0] == 5 * 20);
}

TEST_CASE("JPEG encodes and decodes close to the original", "[codec]") {
  Tensor img(DT_UINT8, TensorShape({16, 16, 3}));
  for (int64_t i = 0; i < img.NumElements(); ++i) img.data<uint8_t>()[i] = 128;
  const std::string file = EncodeJpeg(img);
  const Tensor back = RunOne(Decode("DecodeJpeg"), {Scalar(file)});
  REQUIRE(back.shape() == img.shape());
  for (uint8_t v : Values<uint8_t>(back)) CHECK(std::abs(v - 128) <= 1);
  const Tensor shape = RunOne(Decode("ExtractJpegShape"), {Scalar(file)});
  CHECK(Values<int32_t>(shape) == std::vector<int32_t>{16, 16, 3});
  const Tensor half =
      RunOne(TestNodeBuilder("d", "DecodeJpeg", 1).Attr("ratio", 2).Build(),
             {Scalar(file)});
  CHECK(half.shape() == TensorShape({8, 8, 3}));
}

TEST_CASE("Bad attrs and inputs fail with InvalidArgument", "[codec]") {
  const std::string png = EncodePng(Image<uint8_t>(4, 4, 3));
  CHECK_THAT(RunError(TestNodeBuilder("d", "DecodePng", 1)
                          .Attr("channels", 2)
                          .Build(),
                      {Scalar(png)}),
             StatusIs(StatusCode::kInvalidArgument,
                      "`channels` must be 0, 1, 3 or 4 but got 2"));
  CHECK_THAT(
      RunError(TestNodeBuilder("d", "DecodeJpeg", 1).Attr("ratio", 3).Build(),
               {Scalar(png)}),
      StatusIs(StatusCode::kInvalidArgument, "ratio must be 1, 2, 4, or 8"));
  CHECK_THAT(RunError(TestNodeBuilder("d", "DecodeJpeg", 1)
                          .Attr("dct_method", "FLOAT")
                          .Build(),
                      {Scalar(png)}),
             StatusIs(StatusCode::kInvalidArgument, "dct_method must be"));
  CHECK_THAT(RunError(TestNodeBuilder("e", "EncodePng", 1)
                          .Attr("T", DT_UINT8)
                          .Attr("compression", 10)
                          .Build(),
                      {Image<uint8_t>(2, 2, 3)}),
             StatusIs(StatusCode::kInvalidArgument,
                      "compression should be in [-1,9], got 10"));
  CHECK_THAT(RunError(TestNodeBuilder("e", "EncodeJpeg", 1)
                          .Attr("quality", 101)
                          .Build(),
                      {Image<uint8_t>(2, 2, 3)}),
             StatusIs(StatusCode::kInvalidArgument, "quality must be in"));
  CHECK_THAT(RunError(TestNodeBuilder("e", "EncodeJpeg", 1).Build(),
                      {Image<uint8_t>(2, 2, 4)}),
             StatusIs(StatusCode::kInvalidArgument,
                      "image must have 1 or 3 channels"));
  CHECK_THAT(RunError(TestNodeBuilder("e", "EncodeJpeg", 1)
                          .Attr("format", "grayscale")
                          .Build(),
                      {Image<uint8_t>(2, 2, 3)}),
             StatusIs(StatusCode::kInvalidArgument,
                      "format grayscale expects 1 channels"));
  CHECK_THAT(RunError(TestNodeBuilder("e", "EncodePng", 1)
                          .Attr("T", DT_UINT8)
                          .Build(),
                      {Image<uint8_t>(2, 2, 5)}),
             StatusIs(StatusCode::kInvalidArgument,
                      "image must have 1, 2, 3, or 4 channels, got 5"));
  Tensor two(DT_STRING, TensorShape({2}));
  CHECK_THAT(RunError(Decode("DecodeImage"), {two}),
             StatusIs(StatusCode::kInvalidArgument,
                      "`contents` must be scalar"));
  CHECK_THAT(RunError(Decode("ExtractJpegShape"), {two}),
             StatusIs(StatusCode::kInvalidArgument, "contents must be scalar"));
  CHECK_THAT(RunError(Decode("DecodeImage"), {Scalar("")}),
             StatusIs(StatusCode::kInvalidArgument, "Input is empty."));
  CHECK_THAT(RunError(Decode("DecodeImage"), {Scalar("GIF9 not really")}),
             StatusIs(StatusCode::kInvalidArgument, "Unknown image file"));
  CHECK_THAT(
      RunError(Decode("DecodeBmp"), {Scalar(png)}),
      StatusIs(StatusCode::kInvalidArgument,
               "Trying to decode PNG format using DecodeBmp op"));
  const std::string jpeg = EncodeJpeg(Image<uint8_t>(8, 8, 3));
  CHECK_THAT(RunError(TestNodeBuilder("d", "DecodeJpeg", 1)
                          .Attr("channels", 4)
                          .Build(),
                      {Scalar(jpeg)}),
             StatusIs(StatusCode::kInvalidArgument,
                      "JPEG does not support 4 channels"));
  const NodeDef crop = TestNodeBuilder("c", "DecodeAndCropJpeg", 2).Build();
  CHECK_THAT(
      RunError(crop, {Scalar(jpeg), Tensor::FromVector<int32_t>(
                                        {0, 0, 4}, TensorShape({3}))}),
      StatusIs(StatusCode::kInvalidArgument, "crop_size must have four"));
  CHECK_THAT(
      RunError(crop, {Scalar(jpeg), Tensor::FromVector<int32_t>(
                                        {6, 0, 4, 4}, TensorShape({4}))}),
      StatusIs(StatusCode::kInvalidArgument,
               "Invalid JPEG data or crop window"));
  const std::string gif = GoldenFile("decode_gif_animated");
  CHECK_THAT(RunError(Decode("DecodePng"), {Scalar(gif)}),
             StatusIs(StatusCode::kInvalidArgument,
                      "Got 3 frames, but animated gifs"));
}

// Every prefix (at a stride) and single-bit flips of a file: each run
// succeeds or fails with InvalidArgument; none crashes or hangs.
void Fuzz(const NodeDef& node, const std::string& file) {
  auto check = [&](const std::string& data) {
    absl::StatusOr<std::vector<Tensor>> out = RunKernel(node, {Scalar(data)});
    if (!out.ok()) {
      INFO(out.status().ToString());
      CHECK(out.status().code() == StatusCode::kInvalidArgument);
    }
  };
  int failures = 0;
  for (size_t n = 0; n < file.size(); n += 1 + file.size() / 97) {
    const std::string prefix = file.substr(0, n);
    check(prefix);
    failures += !RunKernel(node, {Scalar(prefix)}).ok();
  }
  // Most truncations are errors (the first bytes at least are).
  CHECK(failures > 0);
  for (size_t i = 0; i < file.size(); i += 1 + file.size() / 151) {
    std::string flipped = file;
    flipped[i] = static_cast<char>(flipped[i] ^ (1 << (i % 8)));
    check(flipped);
  }
}

TEST_CASE("Truncated and bit-flipped files never crash", "[codec]") {
  SECTION("PNG") {
    Fuzz(Decode("DecodePng"), EncodePng(Image<uint8_t>(9, 7, 4)));
  }
  SECTION("JPEG") {
    Fuzz(Decode("DecodeJpeg"), EncodeJpeg(Image<uint8_t>(24, 17, 3)));
  }
  SECTION("JPEG with recovery of truncated files") {
    // Every cut, in a marker segment too, ends (libjpeg once looped
    // forever on a file cut inside a marker with recovery on).
    const NodeDef recover = TestNodeBuilder("d", "DecodeJpeg", 1)
                                .Attr("try_recover_truncated", true)
                                .Attr("acceptable_fraction", 0.0f)
                                .Build();
    // TensorFlow 2.21 never returns on this one.
    CHECK_THAT(RunError(recover, {Scalar(std::string("\xff\xd8\xff", 3))}),
               StatusIs(StatusCode::kInvalidArgument, "jpeg::Uncompress"));
    Fuzz(recover, GoldenFile("decode_jpeg_big"));
    Fuzz(recover, GoldenFile("decode_jpeg_progressive_c0"));
  }
  SECTION("JPEG shape") {
    Fuzz(Decode("ExtractJpegShape"), EncodeJpeg(Image<uint8_t>(9, 9, 1)));
  }
  SECTION("GIF") {
    Fuzz(Decode("DecodeGif"), GoldenFile("decode_gif_animated"));
  }
  SECTION("BMP") { Fuzz(Decode("DecodeBmp"), GoldenFile("decode_bmp_bgra_c0")); }
  SECTION("DecodeImage") {
    Fuzz(Decode("DecodeImage"), GoldenFile("decode_png_palette_trns_c0_uint8"));
    Fuzz(Decode("DecodeImage"), GoldenFile("decode_png_interlaced_c0_uint8"));
  }
}

TEST_CASE("DecodeRaw reads each string's elements in either byte order",
          "[codec]") {
  Tensor in(DT_STRING, TensorShape({2}));
  in.data<std::string>()[0] = std::string("\x01\x02\x03\x04", 4);
  in.data<std::string>()[1] = std::string("\xff\xff\x00\x80", 4);
  const Tensor le = RunOne(TestNodeBuilder("r", "DecodeRaw", 1)
                               .Attr("out_type", DT_INT16)
                               .Build(),
                           {in});
  REQUIRE(le.shape() == TensorShape({2, 2}));
  CHECK(Values<int16_t>(le) == std::vector<int16_t>{0x0201, 0x0403, -1,
                                                     -32768});
  const Tensor be = RunOne(TestNodeBuilder("r", "DecodeRaw", 1)
                               .Attr("out_type", DT_INT32)
                               .Attr("little_endian", false)
                               .Build(),
                           {in});
  // ff ff 00 80 big-endian is 0xffff0080.
  CHECK(Values<int32_t>(be) == std::vector<int32_t>{0x01020304, -65408});
  in.data<std::string>()[1] = "abc";
  CHECK_THAT(RunError(TestNodeBuilder("r", "DecodeRaw", 1)
                          .Attr("out_type", DT_UINT8)
                          .Build(),
                      {in}),
             StatusIs(StatusCode::kInvalidArgument,
                      "element 1 has size 4 != 3"));
}

TEST_CASE("DecodeCompressed survives truncated and corrupt streams",
          "[codec]") {
  const std::string z = GoldenFile("decompress_zlib");
  const NodeDef zlib = TestNodeBuilder("d", "DecodeCompressed", 1)
                           .Attr("compression_type", "ZLIB")
                           .Build();
  const std::string text = RunOne(zlib, {Scalar(z)}).scalar<std::string>();
  CHECK(text.substr(0, 20) == "line 0 of some text\n");
  for (size_t n = 0; n < z.size(); ++n) {
    // A prefix inflates to a prefix of the text, or fails as DataLoss.
    absl::StatusOr<std::vector<Tensor>> out =
        RunKernel(zlib, {Scalar(z.substr(0, n))});
    if (out.ok()) {
      const std::string& part = (*out)[0].scalar<std::string>();
      CHECK(text.compare(0, part.size(), part) == 0);
    } else {
      CHECK(out.status().code() == StatusCode::kDataLoss);
    }
    std::string flipped = z;
    flipped[n] = static_cast<char>(flipped[n] ^ 0x21);
    out = RunKernel(zlib, {Scalar(flipped)});
    if (!out.ok()) CHECK(out.status().code() == StatusCode::kDataLoss);
  }
  CHECK_THAT(RunError(TestNodeBuilder("d", "DecodeCompressed", 1)
                          .Attr("compression_type", "BZ2")
                          .Build(),
                      {Scalar(z)}),
             StatusIs(StatusCode::kInvalidArgument,
                      "Only ZLIB, ZSTD, GZIP or NONE are supported"));
}

TEST_CASE("WAV round trips and rejects malformed files", "[codec]") {
  Tensor audio(DT_FLOAT, TensorShape({5, 2}));
  const std::vector<float> values = {0.5f, -0.25f, 1.0f, -1.0f, 0.0f,
                                     0.125f, -0.5f, 0.75f, 0.0625f, -0.0625f};
  std::copy(values.begin(), values.end(), audio.data<float>());
  const NodeDef encode = TestNodeBuilder("e", "EncodeWav", 2).Build();
  const Tensor wav =
      RunOne(encode, {audio, Tensor::FromVector<int32_t>({22050}, {})});
  const std::string file = wav.scalar<std::string>();
  CHECK(file.size() == 44 + 5 * 2 * 2);
  absl::StatusOr<std::vector<Tensor>> back =
      RunKernel(TestNodeBuilder("d", "DecodeWav", 1).Build(), {Scalar(file)});
  REQUIRE(back.ok());
  // 1.0 clamps to 32767 / 32768.
  std::vector<float> want = values;
  want[2] = 32767.0f / 32768.0f;
  CHECK(Values<float>((*back)[0]) == want);
  CHECK((*back)[1].scalar<int32_t>() == 22050);
  CHECK_THAT(
      RunError(encode, {audio, Tensor::FromVector<int32_t>({0}, {})}),
      StatusIs(StatusCode::kInvalidArgument, "sample_rate must be in"));
  const NodeDef decode = TestNodeBuilder("d", "DecodeWav", 1).Build();
  auto check_fails = [&](const std::string& data) {
    absl::StatusOr<std::vector<Tensor>> out = RunKernel(decode, {Scalar(data)});
    REQUIRE_FALSE(out.ok());
    CHECK(out.status().code() == StatusCode::kInvalidArgument);
  };
  for (size_t n = 0; n < file.size(); ++n) check_fails(file.substr(0, n));
  std::string bad = file;
  bad[34] = 8;  // 8 bits per sample
  CHECK_THAT(RunError(decode, {Scalar(bad)}),
             StatusIs(StatusCode::kInvalidArgument,
                      "Can only read 16-bit WAV files"));
}

TEST_CASE("AudioSpectrogram finds a pure tone's bin", "[codec]") {
  // 32 cycles in 256 samples: the tone sits in bin 32 of a 256-point FFT.
  Tensor audio(DT_FLOAT, TensorShape({256, 1}));
  for (int i = 0; i < 256; ++i) {
    audio.data<float>()[i] =
        static_cast<float>(std::sin(2 * 3.14159265358979 * 32 * i / 256));
  }
  const Tensor spec = RunOne(TestNodeBuilder("s", "AudioSpectrogram", 1)
                                 .Attr("window_size", 256)
                                 .Attr("stride", 128)
                                 .Build(),
                             {audio});
  REQUIRE(spec.shape() == TensorShape({1, 1, 129}));
  const std::vector<float> row = Values<float>(spec);
  CHECK(std::max_element(row.begin(), row.end()) - row.begin() == 32);
  // The Hann window halves the peak: 256 / 2 / 2.
  CHECK(std::abs(row[32] - 64.0f) < 1e-3f);
  CHECK_THAT(RunError(TestNodeBuilder("s", "AudioSpectrogram", 1)
                          .Attr("window_size", 1)
                          .Attr("stride", 1)
                          .Build(),
                      {audio}),
             StatusIs(StatusCode::kInvalidArgument,
                      "window_size must be > 1, got 1"));
  const Tensor mfcc = RunOne(TestNodeBuilder("m", "Mfcc", 2).Build(),
                             {spec, Tensor::FromVector<int32_t>({8000}, {})});
  CHECK(mfcc.shape() == TensorShape({1, 1, 13}));
  CHECK_THAT(RunError(TestNodeBuilder("m", "Mfcc", 2)
                          .Attr("dct_coefficient_count", 41)
                          .Build(),
                      {spec, Tensor::FromVector<int32_t>({8000}, {})}),
             StatusIs(StatusCode::kInvalidArgument,
                      "Mfcc initialization failed for channel count 129"));
}

}  // namespace
}  // namespace dfx

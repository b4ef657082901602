// Audio kernels: DecodeWav and EncodeWav (16-bit PCM WAV files, as
// TensorFlow's lib/wav/wav_io.cc reads and writes them), AudioSpectrogram
// (Hann-windowed FFT magnitudes, TensorFlow's kernels/spectrogram.cc) and
// Mfcc (mel filterbank, log, DCT: TensorFlow's kernels/mfcc*.cc), as
// speech-command models' graphs use them.
//
// The arithmetic is TensorFlow's, in double where TensorFlow computes in
// double: the spectrogram's FFT is a different algorithm (radix-2 here,
// Ooura's rdft there), so results agree to rounding, not always to the bit.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "kernels/codec/codec_kernels.h"
#include "kernels/eigen_util.h"
#include "runtime/op_kernel.h"

namespace dfx {
namespace {

// --- WAV -----------------------------------------------------------------

// A cursor over the file with TensorFlow's bounds checks and messages.
class WavReader {
 public:
  explicit WavReader(const std::string& data) : data_(data) {}

  int64_t offset() const { return offset_; }
  void Skip(int64_t n) { offset_ += n; }

  absl::Status Advance(int64_t increment, int64_t* new_offset) const {
    if (offset_ < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("Negative offsets are not allowed: ", offset_));
    }
    if (increment < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("Negative increment is not allowed: ", increment));
    }
    const int64_t size = static_cast<int64_t>(data_.size());
    if (offset_ > size) {
      return absl::InvalidArgumentError(
          absl::StrCat("Initial offset is outside data range: ", offset_));
    }
    *new_offset = offset_ + increment;
    if (*new_offset > size) {
      return absl::InvalidArgumentError(
          "Data too short when trying to read string");
    }
    return absl::OkStatus();
  }

  absl::Status ReadString(int64_t length, std::string* value) {
    int64_t next = 0;
    absl::Status s = Advance(length, &next);
    if (!s.ok()) return s;
    value->assign(data_, offset_, length);
    offset_ = next;
    return absl::OkStatus();
  }

  absl::Status Expect(const std::string& text) {
    std::string found;
    int64_t next = 0;
    absl::Status s = Advance(text.size(), &next);
    if (!s.ok()) return s;
    found.assign(data_, offset_, text.size());
    if (found != text) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Header mismatch: Expected ", text, " but found ", found));
    }
    offset_ = next;
    return absl::OkStatus();
  }

  // A little-endian unsigned value of `bytes` bytes.
  absl::Status ReadLe(int bytes, uint32_t* value) {
    int64_t next = 0;
    absl::Status s = Advance(bytes, &next);
    if (!s.ok()) return s;
    *value = 0;
    for (int i = 0; i < bytes; ++i) {
      *value |= static_cast<uint32_t>(static_cast<uint8_t>(
                    data_[offset_ + i]))
                << (8 * i);
    }
    offset_ = next;
    return absl::OkStatus();
  }

 private:
  const std::string& data_;
  int64_t offset_ = 0;
};

#define DFX_WAV_RETURN_IF_ERROR(expr) \
  do {                                \
    absl::Status s_ = (expr);         \
    if (!s_.ok()) return s_;          \
  } while (0)

// Decodes a 16-bit PCM WAV file into interleaved samples in [-1, 1).
absl::Status DecodeWavFile(const std::string& wav, std::vector<float>* samples,
                           uint32_t* frame_count, uint32_t* channel_count,
                           uint32_t* sample_rate) {
  WavReader r(wav);
  DFX_WAV_RETURN_IF_ERROR(r.Expect("RIFF"));
  uint32_t file_size = 0;
  DFX_WAV_RETURN_IF_ERROR(r.ReadLe(4, &file_size));
  DFX_WAV_RETURN_IF_ERROR(r.Expect("WAVE"));
  std::string id;
  DFX_WAV_RETURN_IF_ERROR(r.ReadString(4, &id));
  // Chunks TensorFlow skips before "fmt " (padding, broadcast WAV tags).
  while (id != "fmt ") {
    if (id != "JUNK" && id != "bext" && id != "iXML" && id != "qlty" &&
        id != "mext" && id != "levl" && id != "link" && id != "axml") {
      return absl::InvalidArgumentError(absl::StrCat("Unexpected field ", id));
    }
    uint32_t chunk = 0;
    DFX_WAV_RETURN_IF_ERROR(r.ReadLe(4, &chunk));
    int64_t next = 0;
    DFX_WAV_RETURN_IF_ERROR(r.Advance(chunk, &next));
    r.Skip(next - r.offset());
    DFX_WAV_RETURN_IF_ERROR(r.ReadString(4, &id));
  }
  uint32_t format_size = 0;
  DFX_WAV_RETURN_IF_ERROR(r.ReadLe(4, &format_size));
  if (format_size != 16 && format_size != 18) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Bad format chunk size for WAV: Expected 16 or 18, but got",
        format_size));
  }
  uint32_t audio_format = 0;
  DFX_WAV_RETURN_IF_ERROR(r.ReadLe(2, &audio_format));
  if (audio_format != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Bad audio format for WAV: Expected 1 (PCM), but got", audio_format));
  }
  DFX_WAV_RETURN_IF_ERROR(r.ReadLe(2, channel_count));
  if (*channel_count < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Bad number of channels for WAV: Expected at least 1, but got ",
        *channel_count));
  }
  DFX_WAV_RETURN_IF_ERROR(r.ReadLe(4, sample_rate));
  uint32_t bytes_per_second = 0;
  uint32_t bytes_per_frame = 0;
  uint32_t bits_per_sample = 0;
  DFX_WAV_RETURN_IF_ERROR(r.ReadLe(4, &bytes_per_second));
  DFX_WAV_RETURN_IF_ERROR(r.ReadLe(2, &bytes_per_frame));
  DFX_WAV_RETURN_IF_ERROR(r.ReadLe(2, &bits_per_sample));
  if (bits_per_sample != 16) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Can only read 16-bit WAV files, but received ", bits_per_sample));
  }
  const uint32_t expected_frame = (bits_per_sample * *channel_count + 7) / 8;
  if (bytes_per_frame != expected_frame) {
    return absl::InvalidArgumentError(
        absl::StrCat("Bad bytes per sample in WAV header: Expected ",
                     expected_frame, " but got ", bytes_per_frame));
  }
  // uint32 arithmetic, as TensorFlow's check wraps.
  const uint32_t expected_second = bytes_per_frame * *sample_rate;
  if (bytes_per_second != expected_second) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Bad bytes per second in WAV header: Expected ", expected_second,
        " but got ", bytes_per_second, " (sample_rate=", *sample_rate,
        ", bytes_per_sample=", bytes_per_frame, ")"));
  }
  if (format_size == 18) r.Skip(2);  // cbSize, unused
  bool found_data = false;
  while (r.offset() < static_cast<int64_t>(wav.size())) {
    std::string chunk_id;
    DFX_WAV_RETURN_IF_ERROR(r.ReadString(4, &chunk_id));
    uint32_t chunk_size = 0;
    DFX_WAV_RETURN_IF_ERROR(r.ReadLe(4, &chunk_size));
    if (chunk_size > static_cast<uint32_t>(std::numeric_limits<int32_t>::max())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "WAV data chunk '", chunk_id, "' is too large: ", chunk_size,
          " bytes, but the limit is ", std::numeric_limits<int32_t>::max()));
    }
    if (chunk_id != "data") {
      r.Skip(chunk_size);
      continue;
    }
    if (found_data) {
      return absl::InvalidArgumentError("More than one data chunk found in WAV");
    }
    found_data = true;
    *frame_count = chunk_size / bytes_per_frame;
    const uint32_t count = *frame_count * *channel_count;
    // Checked before allocating, so a lying header cannot exhaust memory.
    int64_t unused = 0;
    DFX_WAV_RETURN_IF_ERROR(r.Advance(int64_t{2} * count, &unused));
    samples->resize(count);
    for (uint32_t i = 0; i < count; ++i) {
      uint32_t v = 0;
      DFX_WAV_RETURN_IF_ERROR(r.ReadLe(2, &v));
      (*samples)[i] = static_cast<float>(static_cast<int16_t>(v)) *
                      (1.0f / 32768.0f);
    }
    // Only the samples are consumed: an odd byte left in the chunk starts
    // the next chunk id, as in TensorFlow.
  }
  if (!found_data) {
    return absl::InvalidArgumentError("No data chunk found in WAV");
  }
  return absl::OkStatus();
}

class DecodeWavOp : public OpKernel {
 public:
  explicit DecodeWavOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("desired_channels", &desired_channels_));
    ctx->SetStatus(ctx->GetAttr("desired_samples", &desired_samples_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& contents = ctx->input(0);
    DFX_OP_REQUIRES(ctx, contents.dims() == 0,
                    absl::InvalidArgumentError(
                        absl::StrCat("contents must be scalar, got shape ",
                                     contents.shape().DebugString())));
    const std::string& wav = contents.scalar<std::string>();
    DFX_OP_REQUIRES(
        ctx, wav.size() <= static_cast<size_t>(std::numeric_limits<int>::max()),
        absl::InvalidArgumentError(absl::StrCat(
            "WAV contents are too large for int: ", wav.size())));
    std::vector<float> samples;
    uint32_t frames = 0;
    uint32_t channels = 0;
    uint32_t rate = 0;
    DFX_OP_REQUIRES_OK(ctx,
                       DecodeWavFile(wav, &samples, &frames, &channels, &rate));
    DFX_OP_REQUIRES(ctx, desired_channels_ >= -1,
                    absl::InvalidArgumentError(absl::StrCat(
                        "desired_channels must be >= -1, got ",
                        desired_channels_)));
    DFX_OP_REQUIRES(ctx, desired_samples_ >= -1,
                    absl::InvalidArgumentError(absl::StrCat(
                        "desired_samples must be >= -1, got ",
                        desired_samples_)));
    // TensorFlow keeps these counts in int32.
    const int32_t out_frames = desired_samples_ == -1
                                   ? static_cast<int32_t>(frames)
                                   : desired_samples_;
    const int32_t out_channels = desired_channels_ == -1
                                     ? static_cast<int32_t>(channels)
                                     : desired_channels_;
    DFX_OP_REQUIRES(ctx, out_frames >= 0,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Output sample count must be >= 0, got ", out_frames)));
    DFX_OP_REQUIRES(ctx, out_channels >= 0,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Output channel count must be >= 0, got ",
                        out_channels)));
    Tensor* audio = nullptr;
    DFX_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(0, TensorShape({out_frames, out_channels}),
                                  &audio));
    float* o = audio->data<float>();
    for (int64_t f = 0; f < out_frames; ++f) {
      for (int64_t c = 0; c < out_channels; ++c) {
        // Missing frames are silent; extra channels repeat the last one.
        float v = 0.0f;
        if (f < static_cast<int64_t>(frames)) {
          const int64_t source = std::min<int64_t>(c, channels - 1);
          v = samples[f * channels + source];
        }
        o[f * out_channels + c] = v;
      }
    }
    Tensor* sample_rate = nullptr;
    DFX_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(1, TensorShape({}), &sample_rate));
    sample_rate->scalar<int32_t>() = static_cast<int32_t>(rate);
  }

 private:
  int32_t desired_channels_ = -1;
  int32_t desired_samples_ = -1;
};

void PutLe(std::string* out, int64_t at, uint32_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) {
    (*out)[at + i] = static_cast<char>((v >> (8 * i)) & 0xff);
  }
}

}  // namespace

absl::Status EncodeWav(const float* samples, uint64_t frames,
                       uint64_t channels, uint64_t rate, std::string* wav) {
  if (rate == 0 || rate > 0xffffffffu) {
    return absl::InvalidArgumentError(
        absl::StrCat("sample_rate must be in (0, 2^32), got: ", rate));
  }
  if (channels == 0 || channels > 0xffffu) {
    return absl::InvalidArgumentError(
        absl::StrCat("num_channels must be in (0, 2^16), got: ", channels));
  }
  constexpr uint64_t kHeader = 44;
  const uint64_t count = frames * channels;
  const uint64_t file_size = kHeader + 2 * count;
  if (file_size > 0xffffffffu) {
    return absl::InvalidArgumentError(
        "Provided channels and frames cannot be encoded as a WAV.");
  }
  wav->assign(file_size, '\0');
  std::memcpy(&(*wav)[0], "RIFF", 4);
  PutLe(wav, 4, static_cast<uint32_t>(file_size - 8), 4);
  std::memcpy(&(*wav)[8], "WAVEfmt ", 8);
  PutLe(wav, 16, 16, 4);  // format chunk size
  PutLe(wav, 20, 1, 2);   // PCM
  PutLe(wav, 22, static_cast<uint32_t>(channels), 2);
  PutLe(wav, 24, static_cast<uint32_t>(rate), 4);
  PutLe(wav, 28, static_cast<uint32_t>(rate * 2 * channels), 4);
  PutLe(wav, 32, static_cast<uint32_t>(2 * channels), 2);
  PutLe(wav, 34, 16, 2);  // bits per sample
  std::memcpy(&(*wav)[36], "data", 4);
  PutLe(wav, 40, static_cast<uint32_t>(2 * count), 4);
  for (uint64_t i = 0; i < count; ++i) {
    // Rounded, clamped to int16; NaN (undefined in TensorFlow) as 0.
    const float scaled = std::round(samples[i] * 32768.0f);
    int16_t v = 0;
    if (!std::isnan(scaled)) {
      v = static_cast<int16_t>(std::min(std::max(scaled, -32768.0f), 32767.0f));
    }
    PutLe(wav, kHeader + 2 * i, static_cast<uint16_t>(v), 2);
  }
  return absl::OkStatus();
}

namespace {

class EncodeWavOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& audio = ctx->input(0);
    DFX_OP_REQUIRES(ctx, audio.dims() == 2,
                    absl::InvalidArgumentError(
                        absl::StrCat("audio must be 2-dimensional",
                                     audio.shape().DebugString())));
    const Tensor& rate_tensor = ctx->input(1);
    DFX_OP_REQUIRES(ctx, rate_tensor.dims() == 0,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Input sample_rate should be a scalar tensor, got ",
                        rate_tensor.shape().DebugString(), " instead.")));
    DFX_OP_REQUIRES(ctx,
                    audio.NumElements() < std::numeric_limits<int32_t>::max(),
                    absl::InvalidArgumentError(
                        "Cannot encode audio with >= max int32 elements"));
    // TensorFlow passes the int32 rate on as a size_t: a negative one is
    // reported as a huge number.
    const uint64_t rate = static_cast<uint64_t>(
        static_cast<int64_t>(rate_tensor.scalar<int32_t>()));
    std::string wav;
    DFX_OP_REQUIRES_OK(ctx, EncodeWav(audio.data<float>(), audio.dim_size(0),
                                      audio.dim_size(1), rate, &wav));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({}), &out));
    out->scalar<std::string>() = std::move(wav);
  }
};

// --- Spectrogram -----------------------------------------------------------

// In-place iterative radix-2 FFT of a power-of-two length; the twiddles
// are computed directly (not by recurrence) to keep double accuracy.
void Fft(std::vector<std::complex<double>>* data) {
  std::vector<std::complex<double>>& a = *data;
  const size_t n = a.size();
  for (size_t i = 1, j = 0; i < n; ++i) {
    size_t bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) std::swap(a[i], a[j]);
  }
  const double pi = std::atan(1.0) * 4;
  for (size_t len = 2; len <= n; len <<= 1) {
    const size_t half = len / 2;
    for (size_t k = 0; k < half; ++k) {
      const double angle = -2 * pi * static_cast<double>(k) / len;
      const std::complex<double> w(std::cos(angle), std::sin(angle));
      for (size_t i = 0; i < n; i += len) {
        const std::complex<double> u = a[i + k];
        const std::complex<double> v = a[i + k + half] * w;
        a[i + k] = u + v;
        a[i + k + half] = u - v;
      }
    }
  }
}

class AudioSpectrogramOp : public OpKernel {
 public:
  explicit AudioSpectrogramOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("window_size", &window_size_));
    ctx->SetStatus(ctx->GetAttr("stride", &stride_));
    ctx->SetStatus(ctx->GetAttr("magnitude_squared", &magnitude_squared_));
    if (window_size_ <= 1) {
      ctx->SetStatus(absl::InvalidArgumentError(
          absl::StrCat("window_size must be > 1, got ", window_size_)));
    }
    if (stride_ <= 0) {
      ctx->SetStatus(absl::InvalidArgumentError(
          absl::StrCat("stride must be > 0, got ", stride_)));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    DFX_OP_REQUIRES(ctx, input.dims() == 2,
                    absl::InvalidArgumentError(
                        absl::StrCat("input must be 2-dimensional",
                                     input.shape().DebugString())));
    const int64_t samples = input.dim_size(0);
    const int64_t channels = input.dim_size(1);
    const int64_t window = window_size_;
    int64_t fft_length = 1;
    while (fft_length < window) fft_length <<= 1;
    const int64_t bins = 1 + fft_length / 2;
    const int64_t frames =
        samples < window ? 0 : 1 + (samples - window) / stride_;
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(
                                0, TensorShape({channels, frames, bins}), &out));
    // The periodic Hann window.
    const double pi = std::atan(1.0) * 4;
    std::vector<double> hann(window);
    for (int64_t i = 0; i < window; ++i) {
      hann[i] = 0.5 - 0.5 * std::cos((2 * pi * i) / window);
    }
    const float* in = input.data<float>();
    float* o = out->data<float>();
    const int64_t work = channels * frames;
    ParallelFor(*ctx->device(), work,
                Eigen::TensorOpCost(4 * window, 4 * bins,
                                    20 * fft_length + 40 * bins),
                [&](int64_t first, int64_t last) {
                  std::vector<std::complex<double>> buf(fft_length);
                  for (int64_t w = first; w < last; ++w) {
                    const int64_t c = w / frames;
                    const int64_t f = w % frames;
                    const int64_t start = f * stride_;
                    for (int64_t j = 0; j < fft_length; ++j) {
                      const double x =
                          j < window ? static_cast<double>(
                                           in[(start + j) * channels + c]) *
                                           hann[j]
                                     : 0.0;
                      buf[j] = std::complex<double>(x, 0.0);
                    }
                    Fft(&buf);
                    float* row = o + w * bins;
                    for (int64_t k = 0; k < bins; ++k) {
                      const double re = buf[k].real();
                      const double im = buf[k].imag();
                      const float power = static_cast<float>(re * re + im * im);
                      row[k] = magnitude_squared_ ? power : std::sqrt(power);
                    }
                  }
                });
  }

 private:
  int32_t window_size_ = 0;
  int32_t stride_ = 0;
  bool magnitude_squared_ = false;
};

// --- MFCC ----------------------------------------------------------------

double FreqToMel(double freq) { return 1127.0 * std::log1p(freq / 700.0); }

// TensorFlow's mel filterbank: triangles between mel-spaced centers, each
// FFT bin from start_ to end_ weighing into two neighbouring channels.
struct MelFilterbank {
  int channels = 0;
  int start = 0;
  int end = 0;
  std::vector<int> band;        // the channel a bin's right side feeds
  std::vector<double> weights;  // its weight there (1 - weight: next one)

  bool Initialize(int input_length, double sample_rate, int channel_count,
                  double lower, double upper) {
    channels = channel_count;
    if (channels < 1 || sample_rate <= 0 || input_length < 2 || lower < 0 ||
        upper <= lower) {
      return false;
    }
    std::vector<double> centers(channels + 1);
    const double mel_low = FreqToMel(lower);
    const double mel_hi = FreqToMel(upper);
    const double spacing = (mel_hi - mel_low) / static_cast<double>(channels + 1);
    for (int i = 0; i < channels + 1; ++i) {
      centers[i] = mel_low + spacing * (i + 1);
    }
    // DC is always left out, as HTK does.
    const double hz_per_bin =
        0.5 * sample_rate / static_cast<double>(input_length - 1);
    start = static_cast<int>(1.5 + lower / hz_per_bin);
    end = static_cast<int>(upper / hz_per_bin);
    band.assign(input_length, 0);
    int channel = 0;
    for (int i = 0; i < input_length; ++i) {
      const double mel = FreqToMel(i * hz_per_bin);
      if (i < start || i > end) {
        band[i] = -2;
      } else {
        while (channel < channels && centers[channel] < mel) ++channel;
        band[i] = channel - 1;
      }
    }
    weights.assign(input_length, 0.0);
    for (int i = 0; i < input_length; ++i) {
      const int ch = band[i];
      if (i < start || i > end) continue;
      if (ch >= 0) {
        weights[i] = (centers[ch + 1] - FreqToMel(i * hz_per_bin)) /
                     (centers[ch + 1] - centers[ch]);
      } else {
        weights[i] =
            (centers[0] - FreqToMel(i * hz_per_bin)) / (centers[0] - mel_low);
      }
    }
    return true;
  }

  // Mel energies of one squared-magnitude frame; empty when the frame has
  // no bin `end` (TensorFlow then logs and leaves its output empty).
  void Compute(const float* frame, int length, std::vector<double>* out) const {
    out->clear();
    if (length <= end) return;
    out->assign(channels, 0.0);
    for (int i = start; i <= end; ++i) {
      const double value = std::sqrt(static_cast<double>(frame[i]));
      const double weighted = value * weights[i];
      int ch = band[i];
      if (ch >= 0) (*out)[ch] += weighted;
      ++ch;
      if (ch < channels) (*out)[ch] += value - weighted;
    }
  }
};

class MfccOp : public OpKernel {
 public:
  explicit MfccOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("upper_frequency_limit", &upper_));
    ctx->SetStatus(ctx->GetAttr("lower_frequency_limit", &lower_));
    ctx->SetStatus(ctx->GetAttr("filterbank_channel_count", &filterbanks_));
    ctx->SetStatus(ctx->GetAttr("dct_coefficient_count", &coefficients_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& spectrogram = ctx->input(0);
    DFX_OP_REQUIRES(ctx, spectrogram.dims() == 3,
                    absl::InvalidArgumentError(
                        absl::StrCat("spectrogram must be 3-dimensional",
                                     spectrogram.shape().DebugString())));
    const Tensor& rate_tensor = ctx->input(1);
    DFX_OP_REQUIRES(ctx, rate_tensor.dims() == 0,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Input sample_rate should be a scalar tensor, got ",
                        rate_tensor.shape().DebugString(), " instead.")));
    const int32_t rate = rate_tensor.scalar<int32_t>();
    const int bins = static_cast<int>(spectrogram.dim_size(2));
    const int64_t frames = spectrogram.dim_size(1);
    const int64_t channels = spectrogram.dim_size(0);
    MelFilterbank bank;
    const bool ok =
        bank.Initialize(bins, rate, filterbanks_, lower_, upper_) &&
        coefficients_ >= 1 && coefficients_ <= filterbanks_;
    DFX_OP_REQUIRES(ctx, ok,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Mfcc initialization failed for channel count ", bins,
                        " and sample rate ", rate)));
    // The DCT-II basis, scaled by sqrt(2 / filterbanks).
    const double pi = std::atan(1.0) * 4;
    const double norm = std::sqrt(2.0 / filterbanks_);
    const double arg = pi / filterbanks_;
    std::vector<double> cosines(static_cast<size_t>(coefficients_) *
                                filterbanks_);
    for (int i = 0; i < coefficients_; ++i) {
      for (int j = 0; j < filterbanks_; ++j) {
        cosines[i * filterbanks_ + j] = norm * std::cos(i * arg * (j + 0.5));
      }
    }
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(
                 0, TensorShape({channels, frames, coefficients_}), &out));
    const float* in = spectrogram.data<float>();
    float* o = out->data<float>();
    ParallelFor(
        *ctx->device(), channels * frames,
        Eigen::TensorOpCost(4 * bins, 4 * coefficients_,
                            30 * bins + 2 * coefficients_ * filterbanks_),
        [&](int64_t first, int64_t last) {
          std::vector<double> mel;
          for (int64_t w = first; w < last; ++w) {
            bank.Compute(in + w * bins, bins, &mel);
            for (double& v : mel) v = std::log(std::max(v, 1e-12));
            const int length =
                std::min<int>(static_cast<int>(mel.size()), filterbanks_);
            float* row = o + w * coefficients_;
            for (int i = 0; i < coefficients_; ++i) {
              double sum = 0.0;
              for (int j = 0; j < length; ++j) {
                sum += cosines[i * filterbanks_ + j] * mel[j];
              }
              row[i] = static_cast<float>(sum);
            }
          }
        });
  }

 private:
  float upper_ = 4000;
  float lower_ = 20;
  int32_t filterbanks_ = 40;
  int32_t coefficients_ = 13;
};

}  // namespace

void RegisterAudioKernels(KernelRegistry* registry) {
  RegisterKernel<DecodeWavOp>(registry, KernelDefBuilder("DecodeWav"));
  RegisterKernel<EncodeWavOp>(registry, KernelDefBuilder("EncodeWav"));
  RegisterKernel<AudioSpectrogramOp>(registry,
                                     KernelDefBuilder("AudioSpectrogram"));
  RegisterKernel<MfccOp>(registry, KernelDefBuilder("Mfcc"));
}

}  // namespace dfx

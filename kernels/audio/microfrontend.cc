// The microfrontend's stages in the integer arithmetic of TensorFlow's
// library: every truncation to int16, every wrap of uint32 and uint64 and
// every rounding shift is where TensorFlow's C code has one, because the
// features must equal TensorFlow's bit for bit. Floats appear only where
// the library builds its tables (window, FFT twiddles, mel weights, PCAN
// gains), with the library's own mix of float and double operations.
#include "kernels/audio/microfrontend.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace dfx::audio {
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr int kWindowBits = 12;
constexpr int kFilterbankBits = 12;
constexpr int kNoiseReductionBits = 14;
constexpr int kPcanSnrBits = 12;
constexpr int kPcanOutputBits = 6;
constexpr int kWideDynamicFunctionBits = 32;
constexpr int kLogScaleLog2 = 16;
constexpr int kLogSegmentsLog2 = 7;
constexpr uint32_t kLogCoeff = 45426;

// log2(1 + x) - x at 129 points of [0, 1] in units of 2^-16 (the
// correction to the log2 fraction's linear part), and one of padding.
constexpr uint16_t kLogLut[] = {
    0,    224,  442,  654,  861,  1063, 1259, 1450, 1636, 1817, 1992, 2163,
    2329, 2490, 2646, 2797, 2944, 3087, 3224, 3358, 3487, 3611, 3732, 3848,
    3960, 4068, 4172, 4272, 4368, 4460, 4549, 4633, 4714, 4791, 4864, 4934,
    5001, 5063, 5123, 5178, 5231, 5280, 5326, 5368, 5408, 5444, 5477, 5507,
    5533, 5557, 5578, 5595, 5610, 5622, 5631, 5637, 5640, 5641, 5638, 5633,
    5626, 5615, 5602, 5586, 5568, 5547, 5524, 5498, 5470, 5439, 5406, 5370,
    5332, 5291, 5249, 5203, 5156, 5106, 5054, 5000, 4944, 4885, 4825, 4762,
    4697, 4630, 4561, 4490, 4416, 4341, 4264, 4184, 4103, 4020, 3935, 3848,
    3759, 3668, 3575, 3481, 3384, 3286, 3186, 3084, 2981, 2875, 2768, 2659,
    2549, 2437, 2323, 2207, 2090, 1971, 1851, 1729, 1605, 1480, 1353, 1224,
    1094, 963,  830,  695,  559,  421,  282,  142,  0,    0};

int MostSignificantBit32(uint32_t n) {
  return n == 0 ? 0 : 32 - __builtin_clz(n);
}
int MostSignificantBit64(uint64_t n) {
  return n == 0 ? 0 : 64 - __builtin_clzll(n);
}

// ---------------------------------------------------------------------------
// 16-bit fixed-point FFT (kissfft with FIXED_POINT=16): Q15 products
// rounded by adding 2^14 before the shift; each stage of radix p divides
// its inputs by p first (multiplying by 32767 / p, rounded), so the output
// is the DFT divided by n.

struct Cpx {
  int16_t r;
  int16_t i;
};

int16_t RoundQ15(int32_t x) {
  return static_cast<int16_t>((x + (1 << 14)) >> 15);
}
Cpx Mul(Cpx a, Cpx b) {
  return {RoundQ15(int32_t{a.r} * b.r - int32_t{a.i} * b.i),
          RoundQ15(int32_t{a.r} * b.i + int32_t{a.i} * b.r)};
}
void FixDiv(Cpx& c, int k) {
  const int32_t scale = 32767 / k;
  c.r = RoundQ15(c.r * scale);
  c.i = RoundQ15(c.i * scale);
}
Cpx Add(Cpx a, Cpx b) {
  return {static_cast<int16_t>(a.r + b.r), static_cast<int16_t>(a.i + b.i)};
}
Cpx Sub(Cpx a, Cpx b) {
  return {static_cast<int16_t>(a.r - b.r), static_cast<int16_t>(a.i - b.i)};
}
Cpx Expi(double phase) {
  return {static_cast<int16_t>(std::floor(.5 + 32767 * std::cos(phase))),
          static_cast<int16_t>(std::floor(.5 + 32767 * std::sin(phase)))};
}

class ComplexFft {
 public:
  explicit ComplexFft(int n) : n_(n), twiddles_(n) {
    for (int i = 0; i < n; ++i) twiddles_[i] = Expi(-2 * kPi * i / n);
    // Radix 4 while it divides, then 2, then odd primes; the rest is one
    // last factor (as kissfft factors).
    int p = 4;
    const double floor_sqrt = std::floor(std::sqrt(static_cast<double>(n)));
    int rest = n;
    do {
      while (rest % p != 0) {
        p = p == 4 ? 2 : p == 2 ? 3 : p + 2;
        if (p > floor_sqrt) p = rest;
      }
      rest /= p;
      factors_.push_back(p);
      factors_.push_back(rest);
    } while (rest > 1);
  }

  int size() const { return n_; }
  const Cpx& twiddle(int i) const { return twiddles_[i]; }

  void Run(const Cpx* in, Cpx* out) const { Work(out, in, 1, factors_.data()); }

 private:
  void Work(Cpx* out, const Cpx* in, size_t fstride, const int* factors) const {
    const int p = factors[0];
    const int m = factors[1];
    if (m == 1) {
      for (int k = 0; k < p; ++k) out[k] = in[k * fstride];
    } else {
      for (int k = 0; k < p; ++k) {
        Work(out + k * m, in + k * fstride, fstride * p, factors + 2);
      }
    }
    switch (p) {
      case 2:
        Radix2(out, fstride, m);
        break;
      case 4:
        Radix4(out, fstride, m);
        break;
      default:
        Generic(out, fstride, m, p);
        break;
    }
  }

  void Radix2(Cpx* out, size_t fstride, int m) const {
    Cpx* out2 = out + m;
    for (int k = 0; k < m; ++k) {
      FixDiv(out[k], 2);
      FixDiv(out2[k], 2);
      const Cpx t = Mul(out2[k], twiddles_[k * fstride]);
      out2[k] = Sub(out[k], t);
      out[k] = Add(out[k], t);
    }
  }

  void Radix4(Cpx* out, size_t fstride, int m) const {
    for (int k = 0; k < m; ++k) {
      Cpx* f = out + k;
      FixDiv(f[0], 4);
      FixDiv(f[m], 4);
      FixDiv(f[2 * m], 4);
      FixDiv(f[3 * m], 4);
      const Cpx s0 = Mul(f[m], twiddles_[k * fstride]);
      const Cpx s1 = Mul(f[2 * m], twiddles_[2 * k * fstride]);
      const Cpx s2 = Mul(f[3 * m], twiddles_[3 * k * fstride]);
      const Cpx s5 = Sub(f[0], s1);
      f[0] = Add(f[0], s1);
      const Cpx s3 = Add(s0, s2);
      const Cpx s4 = Sub(s0, s2);
      f[2 * m] = Sub(f[0], s3);
      f[0] = Add(f[0], s3);
      f[m] = {static_cast<int16_t>(s5.r + s4.i),
              static_cast<int16_t>(s5.i - s4.r)};
      f[3 * m] = {static_cast<int16_t>(s5.r - s4.i),
                  static_cast<int16_t>(s5.i + s4.r)};
    }
  }

  // Any other radix; with power-of-two sizes only the one-point transform
  // (p == 1) gets here.
  void Generic(Cpx* out, size_t fstride, int m, int p) const {
    std::vector<Cpx> scratch(p);
    for (int u = 0; u < m; ++u) {
      for (int q = 0, k = u; q < p; ++q, k += m) {
        scratch[q] = out[k];
        FixDiv(scratch[q], p);
      }
      for (int q1 = 0, k = u; q1 < p; ++q1, k += m) {
        int twidx = 0;
        out[k] = scratch[0];
        for (int q = 1; q < p; ++q) {
          twidx += static_cast<int>(fstride) * k;
          if (twidx >= n_) twidx -= n_;
          out[k] = Add(out[k], Mul(scratch[q], twiddles_[twidx]));
        }
      }
    }
  }

  int n_;
  std::vector<Cpx> twiddles_;
  std::vector<int> factors_;
};

// The real FFT of 2n samples through one complex FFT of n points (kissfft's
// kiss_fftr): n + 1 bins.
class RealFft {
 public:
  explicit RealFft(int size) : fft_(size / 2), super_twiddles_(size / 4) {
    const int n = size / 2;
    for (int i = 0; i < n / 2; ++i) {
      super_twiddles_[i] = Expi(-3.14159265358979323846264338327 *
                                (static_cast<double>(i + 1) / n + .5));
    }
    tmp_.resize(n);
  }

  void Run(const int16_t* time, Cpx* freq) {
    const int n = fft_.size();
    fft_.Run(reinterpret_cast<const Cpx*>(time), tmp_.data());
    Cpx tdc = tmp_[0];
    FixDiv(tdc, 2);
    freq[0] = {static_cast<int16_t>(tdc.r + tdc.i), 0};
    freq[n] = {static_cast<int16_t>(tdc.r - tdc.i), 0};
    for (int k = 1; k <= n / 2; ++k) {
      Cpx fpk = tmp_[k];
      Cpx fpnk = {tmp_[n - k].r, static_cast<int16_t>(-tmp_[n - k].i)};
      FixDiv(fpk, 2);
      FixDiv(fpnk, 2);
      const Cpx f1k = Add(fpk, fpnk);
      const Cpx f2k = Sub(fpk, fpnk);
      const Cpx tw = Mul(f2k, super_twiddles_[k - 1]);
      freq[k] = {static_cast<int16_t>((f1k.r + tw.r) >> 1),
                 static_cast<int16_t>((f1k.i + tw.i) >> 1)};
      freq[n - k] = {static_cast<int16_t>((f1k.r - tw.r) >> 1),
                     static_cast<int16_t>((tw.i - f1k.i) >> 1)};
    }
  }

 private:
  ComplexFft fft_;
  std::vector<Cpx> super_twiddles_;
  std::vector<Cpx> tmp_;
};

// ---------------------------------------------------------------------------
// Filterbank: triangular mel channels over the FFT's power spectrum.

float FreqToMel(float freq) {
  return static_cast<float>(1127.0 * std::log1p(freq / 700.0));
}

uint16_t Sqrt32(uint32_t num) {
  if (num == 0) return 0;
  uint32_t res = 0;
  const int max_bit_number = (32 - MostSignificantBit32(num)) | 1;
  uint32_t bit = 1U << (31 - max_bit_number);
  for (int it = (31 - max_bit_number) / 2 + 1; it > 0; --it) {
    if (num >= res + bit) {
      num -= res + bit;
      res = (res >> 1U) + bit;
    } else {
      res >>= 1U;
    }
    bit >>= 2U;
  }
  if (num > res && res != 0xFFFF) ++res;
  return static_cast<uint16_t>(res);
}

// Takes the 32-bit path when the high word is clear, as the library does
// (slightly off near 2^32, and so must dfx be).
uint32_t Sqrt64(uint64_t num) {
  if ((num >> 32) == 0) return Sqrt32(static_cast<uint32_t>(num));
  uint64_t res = 0;
  const int max_bit_number = (64 - MostSignificantBit64(num)) | 1;
  uint64_t bit = 1ULL << (63 - max_bit_number);
  for (int it = (63 - max_bit_number) / 2 + 1; it > 0; --it) {
    if (num >= res + bit) {
      num -= res + bit;
      res = (res >> 1U) + bit;
    } else {
      res >>= 1U;
    }
    bit >>= 2U;
  }
  if (num > res && res != 0xFFFFFFFFLL) ++res;
  return static_cast<uint32_t>(res);
}

struct Channel {
  int start = 0;                 // first FFT bin
  std::vector<int16_t> weights;  // one per bin from `start`
  std::vector<int16_t> unweights;
};

struct Filterbank {
  int start_index = 0;
  int end_index = 0;
  std::vector<Channel> channels;  // num_channels + 1
};

// False where TensorFlow's FilterbankPopulateState fails (or would index
// bins past what its int16 tables hold).
bool BuildFilterbank(const MicrofrontendConfig& config, int spectrum_size,
                     Filterbank* fb) {
  const int n1 = config.num_channels + 1;
  const float mel_low = FreqToMel(config.lower_band_limit);
  const float mel_hi = FreqToMel(config.upper_band_limit);
  const float mel_span = mel_hi - mel_low;
  const float mel_spacing = mel_span / static_cast<float>(n1);
  std::vector<float> center(n1);
  for (int i = 0; i < n1; ++i) {
    center[i] = mel_low + (mel_spacing * static_cast<float>(i + 1));
  }
  const float hz_per_sbin = static_cast<float>(
      0.5 * config.sample_rate / (static_cast<float>(spectrum_size) - 1));
  fb->start_index =
      static_cast<int>(1.5 + config.lower_band_limit / hz_per_sbin);
  fb->end_index = 0;
  fb->channels.assign(n1, Channel());
  int chan_start = fb->start_index;
  for (int chan = 0; chan < n1; ++chan) {
    int freq = chan_start;
    while (FreqToMel(static_cast<float>(freq) * hz_per_sbin) <= center[chan]) {
      ++freq;
      // TensorFlow keeps bin indices in int16.
      if (freq > std::numeric_limits<int16_t>::max()) return false;
    }
    Channel& c = fb->channels[chan];
    c.start = chan_start;
    const float denom = chan == 0 ? mel_low : center[chan - 1];
    for (int f = chan_start; f < freq; ++f) {
      const float weight =
          (center[chan] - FreqToMel(static_cast<float>(f) * hz_per_sbin)) /
          (center[chan] - denom);
      c.weights.push_back(static_cast<int16_t>(static_cast<int>(std::floor(
          static_cast<double>(weight * (1 << kFilterbankBits)) + 0.5))));
      c.unweights.push_back(static_cast<int16_t>(static_cast<int>(
          std::floor((1.0 - weight) * (1 << kFilterbankBits) + 0.5))));
    }
    if (freq > fb->end_index) fb->end_index = freq;
    chan_start = freq;
  }
  return fb->end_index < spectrum_size && fb->start_index >= 0;
}

// ---------------------------------------------------------------------------
// PCAN gain control: a gain per channel from the noise estimate, by a
// piecewise-quadratic table over the estimate's octaves.

int16_t PcanGain(const MicrofrontendConfig& config, int32_t input_bits,
                 uint32_t x) {
  const float x_as_float =
      static_cast<float>(x) / static_cast<float>(uint32_t{1} << input_bits);
  const float gain =
      static_cast<float>(uint32_t{1} << config.gain_bits) *
      std::pow(x_as_float + config.pcan_offset, -config.pcan_strength);
  if (gain > 0x7FFF) return 0x7FFF;
  return static_cast<int16_t>(static_cast<int32_t>(gain + 0.5f));
}

// The table's entries for interval i (2..32) sit at 4 * i - 6 .. 4 * i - 4;
// entries 0..2 answer x = 0, 1, 2.
std::vector<int16_t> PcanTable(const MicrofrontendConfig& config,
                               int32_t input_bits) {
  std::vector<int16_t> lut(4 * kWideDynamicFunctionBits - 3, 0);
  lut[0] = PcanGain(config, input_bits, 0);
  lut[1] = PcanGain(config, input_bits, 1);
  for (int interval = 2; interval <= kWideDynamicFunctionBits; ++interval) {
    const uint32_t x0 = uint32_t{1} << (interval - 1);
    const uint32_t x1 = x0 + (x0 >> 1);
    const uint32_t x2 =
        interval == kWideDynamicFunctionBits ? x0 + (x0 - 1) : 2 * x0;
    const int16_t y0 = PcanGain(config, input_bits, x0);
    const int16_t y1 = PcanGain(config, input_bits, x1);
    const int16_t y2 = PcanGain(config, input_bits, x2);
    const int32_t diff1 = int32_t{y1} - y0;
    const int32_t diff2 = int32_t{y2} - y0;
    const int32_t a1 = 4 * diff1 - diff2;
    const int32_t a2 = diff2 - a1;
    lut[4 * interval - 6] = y0;
    lut[4 * interval - 5] = static_cast<int16_t>(a1);
    lut[4 * interval - 4] = static_cast<int16_t>(a2);
  }
  return lut;
}

int16_t WideDynamicFunction(uint32_t x, const int16_t* lut) {
  if (x <= 2) return lut[x];
  const int interval = MostSignificantBit32(x);
  lut += 4 * interval - 6;
  const int16_t frac = static_cast<int16_t>(
      ((interval < 11) ? (x << (11 - interval)) : (x >> (interval - 11))) &
      0x3FF);
  // int32 arithmetic that may wrap in TensorFlow's C: done in uint32.
  int32_t result = (int32_t{lut[2]} * frac) >> 5;
  result = static_cast<int32_t>(static_cast<uint32_t>(result) +
                                (static_cast<uint32_t>(lut[1]) << 5));
  result = static_cast<int32_t>(static_cast<uint32_t>(result) *
                                static_cast<uint32_t>(frac));
  result =
      static_cast<int32_t>(static_cast<uint32_t>(result) + (1u << 14)) >> 15;
  result += lut[0];
  return static_cast<int16_t>(result);
}

uint32_t PcanShrink(uint32_t x) {
  if (x < (2u << kPcanSnrBits)) {
    return (x * x) >> (2 + 2 * kPcanSnrBits - kPcanOutputBits);
  }
  return (x >> (kPcanSnrBits - kPcanOutputBits)) - (1u << kPcanOutputBits);
}

// ---------------------------------------------------------------------------
// Log scale: an integer natural log through log2 and a segment table.

uint32_t Log2FractionPart(uint32_t x, uint32_t log2x) {
  int32_t frac = static_cast<int32_t>(x - (int64_t{1} << log2x));
  if (log2x < kLogScaleLog2) {
    frac = static_cast<int32_t>(static_cast<uint32_t>(frac)
                                << (kLogScaleLog2 - log2x));
  } else {
    frac >>= log2x - kLogScaleLog2;
  }
  const uint32_t base_seg =
      static_cast<uint32_t>(frac) >> (kLogScaleLog2 - kLogSegmentsLog2);
  const uint32_t seg_unit = (uint32_t{1} << kLogScaleLog2) >> kLogSegmentsLog2;
  const int32_t c0 = kLogLut[base_seg];
  const int32_t c1 = kLogLut[base_seg + 1];
  const int32_t seg_base = static_cast<int32_t>(seg_unit * base_seg);
  const int32_t rel_pos = ((c1 - c0) * (frac - seg_base)) >> kLogScaleLog2;
  return static_cast<uint32_t>(frac + c0 + rel_pos);
}

uint32_t Log(uint32_t x, uint32_t scale_shift) {
  const uint32_t integer = MostSignificantBit32(x) - 1;
  const uint32_t fraction = Log2FractionPart(x, integer);
  const uint32_t log2 = (integer << kLogScaleLog2) + fraction;
  const uint32_t round = (1u << kLogScaleLog2) / 2;
  const uint32_t loge = static_cast<uint32_t>(
      (uint64_t{kLogCoeff} * log2 + round) >> kLogScaleLog2);
  return ((loge << scale_shift) + round) >> kLogScaleLog2;
}

// float -> uint16 as C converts in range.
bool ScaledToUint16(float v, uint16_t* out) {
  const float scaled = v * (1 << kNoiseReductionBits);
  if (!(scaled >= 0.0f && scaled < 65536.0f)) return false;
  *out = static_cast<uint16_t>(scaled);
  return true;
}

int FftSize(int window) {
  int size = 1;
  while (size < window) size <<= 1;
  return size;
}

// MostSignificantBit(fft_size) - 1 - kFilterbankBits / 2.
int CorrectionBits(int window) {
  return MostSignificantBit32(static_cast<uint32_t>(FftSize(window))) - 1 -
         kFilterbankBits / 2;
}

}  // namespace

int WindowSamples(const MicrofrontendConfig& config) {
  return static_cast<int>(int64_t{config.window_size_ms} * config.sample_rate /
                          1000);
}
int StepSamples(const MicrofrontendConfig& config) {
  return static_cast<int>(int64_t{config.window_step_ms} * config.sample_rate /
                          1000);
}

std::string CheckConfig(const MicrofrontendConfig& c) {
  const int64_t w = int64_t{c.window_size_ms} * c.sample_rate;
  const int64_t s = int64_t{c.window_step_ms} * c.sample_rate;
  const int64_t int_max = std::numeric_limits<int32_t>::max();
  if (w > int_max || w < -int_max || s > int_max || s < -int_max) {
    return "window_size * sample_rate and window_step * sample_rate must fit "
           "in an int32";
  }
  if (WindowSamples(c) > (1 << 24)) {
    return "the window must be at most 2^24 samples";
  }
  if (c.num_channels < 0 || c.num_channels > (1 << 20)) {
    return "num_channels must be in [0, 2^20]";
  }
  if (!std::isfinite(c.lower_band_limit) ||
      !std::isfinite(c.upper_band_limit) || c.lower_band_limit < 0 ||
      c.sample_rate <= 0) {
    return "the band limits must be finite, lower_band_limit non-negative "
           "and sample_rate positive";
  }
  if (c.smoothing_bits < 0 || c.smoothing_bits > 31) {
    return "smoothing_bits must be in [0, 31]";
  }
  uint16_t unused;
  if (!ScaledToUint16(c.even_smoothing, &unused) ||
      !ScaledToUint16(c.odd_smoothing, &unused) ||
      !ScaledToUint16(c.min_signal_remaining, &unused)) {
    return "even_smoothing, odd_smoothing and min_signal_remaining must be "
           "in [0, 4)";
  }
  const int window = WindowSamples(c);
  if (c.enable_pcan && window >= 2) {
    const int correction = CorrectionBits(window);
    const int input_bits = c.smoothing_bits - correction;
    const int snr_shift = c.gain_bits - correction - kPcanSnrBits;
    if (c.gain_bits < 0 || c.gain_bits > 31 || input_bits < 0 ||
        input_bits > 31 || snr_shift < 0 || snr_shift > 63) {
      return "with enable_pcan, gain_bits must be in [0, 31] and leave the "
             "gain and signal-to-noise shifts in range";
    }
    if (!std::isfinite(c.pcan_strength) || !std::isfinite(c.pcan_offset) ||
        c.pcan_offset < 0) {
      return "pcan_strength and pcan_offset must be finite, pcan_offset "
             "non-negative";
    }
  }
  if (c.enable_log && (c.scale_shift < 0 || c.scale_shift > 31)) {
    return "scale_shift must be in [0, 31]";
  }
  return "";
}

bool ComputeMicrofrontend(const MicrofrontendConfig& config,
                          const int16_t* audio, int64_t num_samples,
                          std::vector<uint16_t>* features) {
  features->clear();
  const int window = WindowSamples(config);
  const int step = StepSamples(config);
  // kissfft's real FFT needs an even size: a one-sample window (fft size 1)
  // fails TensorFlow's state setup.
  if (window < 2) return false;
  const int fft_size = FftSize(window);
  const int spectrum_size = fft_size / 2 + 1;

  // Hann window in Q12.
  std::vector<int16_t> coefficients(window);
  const float arg = static_cast<float>(kPi * 2.0 / static_cast<float>(window));
  for (int i = 0; i < window; ++i) {
    const float value = static_cast<float>(
        0.5 - (0.5 * std::cos(static_cast<double>(arg) * (i + 0.5))));
    coefficients[i] = static_cast<int16_t>(static_cast<int>(
        std::floor(static_cast<double>(value * (1 << kWindowBits)) + 0.5)));
  }

  Filterbank fb;
  if (!BuildFilterbank(config, spectrum_size, &fb)) return false;
  const int num_channels = config.num_channels;

  uint16_t even_smoothing = 0, odd_smoothing = 0, min_signal_remaining = 0;
  ScaledToUint16(config.even_smoothing, &even_smoothing);
  ScaledToUint16(config.odd_smoothing, &odd_smoothing);
  ScaledToUint16(config.min_signal_remaining, &min_signal_remaining);
  std::vector<uint32_t> estimate(num_channels, 0);

  const int correction_bits = CorrectionBits(window);
  std::vector<int16_t> gain_lut;
  int snr_shift = 0;
  if (config.enable_pcan) {
    gain_lut = PcanTable(config, config.smoothing_bits - correction_bits);
    snr_shift = config.gain_bits - correction_bits - kPcanSnrBits;
  }

  RealFft fft(fft_size);
  std::vector<int16_t> windowed(window);
  std::vector<int16_t> fft_input(fft_size, 0);
  std::vector<Cpx> spectrum(spectrum_size);
  std::vector<uint64_t> energy(spectrum_size, 0);
  std::vector<uint64_t> work(num_channels + 1);
  std::vector<uint32_t> signal(num_channels);

  const int64_t num_frames =
      num_samples >= window ? (num_samples - window) / step + 1 : 0;
  features->reserve(num_frames * num_channels);
  for (int64_t frame = 0; frame < num_frames; ++frame) {
    const int16_t* in = audio + frame * step;
    int16_t max_abs = 0;
    for (int i = 0; i < window; ++i) {
      int16_t v = static_cast<int16_t>((int32_t{in[i]} * coefficients[i]) >>
                                       kWindowBits);
      windowed[i] = v;
      // As in int16: -(-32768) stays negative and never counts.
      if (v < 0) v = static_cast<int16_t>(-v);
      if (v > max_abs) max_abs = v;
    }
    const int input_shift =
        15 - MostSignificantBit32(static_cast<uint32_t>(max_abs));
    for (int i = 0; i < window; ++i) {
      fft_input[i] = static_cast<int16_t>(static_cast<uint16_t>(windowed[i])
                                          << input_shift);
    }
    fft.Run(fft_input.data(), spectrum.data());

    // Power per bin, as TensorFlow's int32 (which wraps at 2^31) widened
    // to uint64 with its sign.
    for (int i = fb.start_index; i < fb.end_index; ++i) {
      const int32_t re = spectrum[i].r;
      const int32_t im = spectrum[i].i;
      const uint32_t mag =
          static_cast<uint32_t>(re * re) + static_cast<uint32_t>(im * im);
      energy[i] = static_cast<uint64_t>(
          static_cast<int64_t>(static_cast<int32_t>(mag)));
    }
    // Channel c's sum is its bins' weights and the previous channel's
    // unweights.
    uint64_t weighted = 0;
    for (int chan = 0; chan <= num_channels; ++chan) {
      const Channel& c = fb.channels[chan];
      uint64_t unweighted = 0;
      for (size_t j = 0; j < c.weights.size(); ++j) {
        const uint64_t e = energy[c.start + j];
        weighted += static_cast<uint64_t>(int64_t{c.weights[j]}) * e;
        unweighted += static_cast<uint64_t>(int64_t{c.unweights[j]}) * e;
      }
      work[chan] = weighted;
      weighted = unweighted;
    }
    for (int c = 0; c < num_channels; ++c) {
      signal[c] = Sqrt64(work[c + 1]) >> input_shift;
    }

    // Noise reduction.
    for (int c = 0; c < num_channels; ++c) {
      const uint32_t smoothing = (c & 1) == 0 ? even_smoothing : odd_smoothing;
      const uint32_t one_minus_smoothing =
          (1u << kNoiseReductionBits) - smoothing;
      const uint32_t scaled_up = signal[c] << config.smoothing_bits;
      uint32_t est =
          static_cast<uint32_t>((uint64_t{scaled_up} * smoothing +
                                 uint64_t{estimate[c]} * one_minus_smoothing) >>
                                kNoiseReductionBits);
      estimate[c] = est;
      if (est > scaled_up) est = scaled_up;
      const uint32_t floor = static_cast<uint32_t>(
          (uint64_t{signal[c]} * min_signal_remaining) >> kNoiseReductionBits);
      const uint32_t subtracted = (scaled_up - est) >> config.smoothing_bits;
      signal[c] = subtracted > floor ? subtracted : floor;
    }

    if (config.enable_pcan) {
      for (int c = 0; c < num_channels; ++c) {
        const uint32_t gain = static_cast<uint32_t>(static_cast<int32_t>(
            WideDynamicFunction(estimate[c], gain_lut.data())));
        const uint32_t snr =
            static_cast<uint32_t>((uint64_t{signal[c]} * gain) >> snr_shift);
        signal[c] = PcanShrink(snr);
      }
    }

    for (int c = 0; c < num_channels; ++c) {
      uint32_t value = signal[c];
      if (config.enable_log) {
        if (correction_bits < 0) {
          value >>= -correction_bits;
        } else {
          value <<= correction_bits;
        }
        value = value > 1 ? Log(value, config.scale_shift) : 0;
      }
      features->push_back(
          static_cast<uint16_t>(value < 0xFFFF ? value : 0xFFFF));
    }
  }
  return true;
}

}  // namespace dfx::audio

// The audio microfrontend's arithmetic (TensorFlow Lite's
// experimental/microfrontend library, which AudioMicrofrontend runs):
// Hann window, 16-bit fixed-point real FFT, mel filterbank, noise
// reduction, PCAN gain control and log scale, bit for bit as TensorFlow.
#ifndef DFX_KERNELS_AUDIO_MICROFRONTEND_H_
#define DFX_KERNELS_AUDIO_MICROFRONTEND_H_

#include <cstdint>
#include <string>
#include <vector>

namespace dfx::audio {

// AudioMicrofrontend's attrs that shape the per-frame features.
struct MicrofrontendConfig {
  int sample_rate = 16000;
  int window_size_ms = 25;
  int window_step_ms = 10;
  int num_channels = 32;
  float upper_band_limit = 7500.0f;
  float lower_band_limit = 125.0f;
  int smoothing_bits = 10;
  float even_smoothing = 0.025f;
  float odd_smoothing = 0.06f;
  float min_signal_remaining = 0.05f;
  bool enable_pcan = false;
  float pcan_strength = 0.95f;
  float pcan_offset = 80.0f;
  int gain_bits = 21;
  bool enable_log = true;
  int scale_shift = 6;
};

// Window length and step in samples (size_ms * sample_rate / 1000, in
// int arithmetic as TensorFlow computes them).
int WindowSamples(const MicrofrontendConfig& config);
int StepSamples(const MicrofrontendConfig& config);

// Where TensorFlow's library cannot run `config` (its kernel then crashes,
// loops or shifts by more than a word): a message saying why; empty when
// the config is usable. REQUIRES nothing.
std::string CheckConfig(const MicrofrontendConfig& config);

// Computes the features of every frame of `audio` (frames start every step
// samples; a frame needs a whole window): num_frames * num_channels values,
// frame after frame. Returns false when TensorFlow's FrontendPopulateState
// fails (the filterbank reaches past the spectrum, a window of one sample);
// TensorFlow's kernel answers Internal then.
// REQUIRES: CheckConfig(config) is empty.
bool ComputeMicrofrontend(const MicrofrontendConfig& config,
                          const int16_t* audio, int64_t num_samples,
                          std::vector<uint16_t>* features);

}  // namespace dfx::audio

#endif  // DFX_KERNELS_AUDIO_MICROFRONTEND_H_

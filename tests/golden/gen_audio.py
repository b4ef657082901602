"""Golden cases of the audio family: AudioMicrofrontend, TensorFlow Lite's
speech feature frontend (Hann window, 16-bit fixed-point FFT, mel
filterbank, noise reduction, PCAN gain control, log scale) as TensorFlow
2.21 runs it, bit for bit.

    $(tools/tf_env) tests/golden/gen_audio.py

The op is not in TensorFlow's core registry: the module
tensorflow.lite.experimental.microfrontend.python.ops.audio_microfrontend_op
loads its library (_audio_microfrontend_op.so, OpDef and CPU kernels), and
the interop client imports the same module before it reads these graphs.

Cases: the default configuration, PCAN on, log off, both, float output and
out_scale (positive and negative), left/right context with and without zero
padding, frame_stride, odd sample rates, window sizes and steps (a window of
2 samples: a 2-point FFT), channel counts (0, 1, 40), band limits, noise
reduction and PCAN parameters, scale_shift; silence, full-scale noise and a
full-scale square wave; audio shorter than a window, empty audio, exactly
one window. Audio is at most 0.13 s at 16 kHz (a few KiB per case).

Errors, with TensorFlow's codes: audio that is not a vector
(InvalidArgument), a filterbank reaching past the spectrum and a window of
one sample or none (Internal: TensorFlow's state setup fails, before a
step past such a window could matter).

Not here, and why (tests/kernels/audio_test.cc covers them): attrs on which
TensorFlow's kernel crashes or computes with undefined shifts -- a zero
window_step or frame_stride (division by zero), window_step beyond the
window (a negative memmove), 1 + left_context + right_context < 0 or
num_channels < 0 (a negative dimension CHECK-fails), out_scale 0 with uint16
output (integer division by zero), smoothing_bits, gain_bits or scale_shift
that shift by a negative amount or 32 and more (with PCAN, smoothing_bits
below the FFT's correction bits is such a shift). dfx answers
InvalidArgument for those.

Besides the cases the generator writes the op's signature
(tf_op_defs.pbtxt, tf_cpu_kernels.txt), which tests/kernels/audio_test.cc
compares with dfx's registry.
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import golden_lib  # noqa: E402
from golden_lib import placeholder, tf, tf1  # noqa: E402
# Loads AudioMicrofrontend's library (OpDef and kernels) into TensorFlow.
from tensorflow.lite.experimental.microfrontend.python.ops import (  # noqa: E402,F401,E501
    audio_microfrontend_op)
from tensorflow.lite.experimental.microfrontend.ops import (  # noqa: E402
    gen_audio_microfrontend_op as gen_op)

FAMILY = "audio"
OP_NAMES = ["AudioMicrofrontend"]


def case(name, build, **kw):
    golden_lib.case(FAMILY, name, build, **kw)


R = golden_lib.rng(7)


def speech(n, seed=0):
    """Sines of changing pitch and loudness over noise: audio whose
    channels and noise estimate move from frame to frame."""
    r = golden_lib.rng(seed)
    t = np.arange(n) / 16000.0
    pitch = 180 + 120 * np.sin(2 * np.pi * 3 * t)
    phase = 2 * np.pi * np.cumsum(pitch) / 16000.0
    loud = 0.5 + 0.5 * np.sin(2 * np.pi * 5 * t)
    x = loud * (6000 * np.sin(phase) + 2500 * np.sin(3 * phase) +
                900 * np.sin(7.3 * phase)) + r.normal(0, 300, n)
    return np.clip(np.round(x), -32768, 32767).astype(np.int16)


def noise(n, scale, seed=1):
    r = golden_lib.rng(seed)
    return np.clip(np.round(r.normal(0, scale, n)), -32768,
                   32767).astype(np.int16)


def frontend(name, audio, shape=None, **attrs):
    def build():
        a, av = placeholder(audio, name="audio", shape=shape)
        return gen_op.audio_microfrontend(a, **attrs), {a: av}
    case(name, build)


def configurations():
    x = speech(1800)
    frontend("defaults", x)
    frontend("pcan", x, enable_pcan=True)
    frontend("log_off", x, enable_log=False)
    frontend("pcan_log_off", x, enable_pcan=True, enable_log=False)
    frontend("float_out", x, out_type=tf.float32)
    frontend("float_out_scale", x, out_type=tf.float32, out_scale=3)
    frontend("float_pcan_out_scale_negative", x, enable_pcan=True,
             out_type=tf.float32, out_scale=-4)
    frontend("uint16_out_scale", x, out_scale=7)
    # int division of the uint16 feature by -3, wrapped into uint16.
    frontend("uint16_out_scale_negative", x, out_scale=-3)
    frontend("context_edges_copied", x, left_context=2, right_context=1)
    frontend("context_zero_padding", x, left_context=2, right_context=3,
             zero_padding=True)
    frontend("frame_stride", x, frame_stride=3)
    frontend("context_stride_padding", x, left_context=1, right_context=2,
             frame_stride=2, zero_padding=True, num_channels=16)
    # A negative left context shifts the stack right: frames n+1..n+1.
    frontend("context_negative_left", x, left_context=-1, right_context=1)
    frontend("context_empty_stack", x, left_context=-1, right_context=0)
    frontend("channels_40", x, num_channels=40)
    frontend("channels_1", x, num_channels=1)
    frontend("channels_0", x, num_channels=0)
    frontend("band_limits", x, lower_band_limit=300.0,
             upper_band_limit=4000.0, num_channels=20)
    frontend("band_from_dc", x, lower_band_limit=0.0, num_channels=24)
    frontend("noise_reduction_params", x, smoothing_bits=5,
             even_smoothing=0.5, odd_smoothing=0.1,
             min_signal_remaining=0.2)
    frontend("pcan_params", x, enable_pcan=True, pcan_strength=0.5,
             pcan_offset=10.0, gain_bits=18, smoothing_bits=12)
    frontend("scale_shift_2", x, scale_shift=2)
    frontend("scale_shift_10_pcan", x, scale_shift=10, enable_pcan=True)


def odd_sizes():
    # 30 ms windows every 7 ms: 480 samples in a 512-point FFT.
    frontend("window_30_step_7", speech(1500, 2), window_size=30,
             window_step=7)
    frontend("window_equals_step", speech(1300, 3), window_size=20,
             window_step=20)
    # 8 kHz: a 256-point FFT.
    frontend("rate_8000", speech(1000, 4), sample_rate=8000,
             upper_band_limit=3800.0, num_channels=24)
    # 11025 Hz: the kernel's window is 25 * 11025 / 1000 = 275 samples,
    # the shape function's 25 * 11 = 275 too; the step 110.
    frontend("rate_11025", speech(1300, 5), sample_rate=11025,
             upper_band_limit=5000.0, enable_pcan=True)
    # 22050 Hz: the shape function's window (25 * 22 = 550) is not the
    # kernel's (551); the kernel's output counts.
    frontend("rate_22050", speech(2000, 6), sample_rate=22050,
             upper_band_limit=10000.0, num_channels=40)
    frontend("rate_48000_long_window", speech(3500, 7), sample_rate=48000,
             window_size=40, window_step=16, upper_band_limit=16000.0)
    # A 2-sample window at 1 kHz: a 2-point real FFT (one complex point).
    frontend("window_2_samples", noise(60, 3000, 8), sample_rate=1000,
             window_size=2, window_step=1, lower_band_limit=10.0,
             upper_band_limit=400.0, num_channels=1)
    frontend("window_4_samples_small_fft", noise(80, 3000, 9),
             sample_rate=1000, window_size=4, window_step=3,
             lower_band_limit=100.0, upper_band_limit=480.0,
             num_channels=1, enable_pcan=True, smoothing_bits=12)
    frontend("short_audio", speech(399))
    frontend("empty_audio", np.zeros([0], np.int16))
    frontend("one_window", speech(400, 10))
    frontend("unknown_length", speech(800, 11), shape=[None])


def signals():
    frontend("silence", np.zeros(1200, np.int16))
    frontend("silence_pcan", np.zeros(1200, np.int16), enable_pcan=True)
    frontend("full_scale_noise", noise(1500, 40000, 12))
    frontend("full_scale_noise_pcan_float", noise(1500, 40000, 13),
             enable_pcan=True, out_type=tf.float32)
    square = np.where((np.arange(1500) // 7) % 2 == 0, 32767,
                      -32768).astype(np.int16)
    frontend("full_scale_square", square)
    frontend("full_scale_nyquist", np.tile(np.array([-32768, 32767],
                                                    np.int16), 750),
             enable_log=False)
    frontend("quiet_noise", noise(1500, 3, 14))
    impulses = np.zeros(1500, np.int16)
    impulses[::397] = -32768
    frontend("impulses", impulses, enable_pcan=True)
    frontend("random_int16", R.integers(-32768, 32768, 1500).astype(
        np.int16))


def errors():
    # Fed through a placeholder of unknown rank (the shape function
    # refuses a known matrix when the graph is built).
    def matrix():
        a = tf1.placeholder(tf.int16, shape=None, name="audio")
        return (gen_op.audio_microfrontend(a),
                {a: np.zeros([2, 500], np.int16)})
    case("audio_matrix", matrix)
    # Channels reach past the 8 kHz audio's 4 kHz Nyquist: TensorFlow's
    # filterbank setup fails (Internal).
    frontend("band_past_nyquist", speech(1000, 15), sample_rate=8000)
    # One sample a window: kissfft cannot make a 1-point real FFT.
    frontend("window_1_sample", noise(100, 1000, 16), sample_rate=1000,
             window_size=1, window_step=1)
    # The setup fails before the step past the window could matter.
    frontend("window_1_sample_step_2", noise(100, 1000, 17),
             sample_rate=1000, window_size=1, window_step=2)
    frontend("window_0_samples", noise(50, 1000, 18), sample_rate=1000,
             window_size=0, window_step=1)


def main():
    configurations()
    odd_sizes()
    signals()
    errors()
    golden_lib.write_op_defs(FAMILY, OP_NAMES)


if __name__ == "__main__":
    main()

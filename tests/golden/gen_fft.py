"""Golden cases of the fft family: complex tensors through feeds, constants
and fetches; Complex, Real, Imag, ComplexAbs, Angle, Conj; the complex
kernels of the element-wise arithmetic, Sum, Mean, AddN, Equal, NotEqual,
ZerosLike, OnesLike and Cast to and from complex; FFT/IFFT/RFFT/IRFFT in 1, 2 and 3 dims (lengths with large prime factors,
fft_length shorter and longer than the input, batch dims, empty inputs,
TensorFlow's run-time errors); the FFT engine's size classes (primes up to
65537, large prime factors, factors 3/5/7, long powers of two, batches, 2D
and 3D shapes) in each precision; and tf.signal graphs (stft, inverse_stft,
|rfft|, dct/idct and mfccs, fftshift, a frozen log-mel front end) as
TensorFlow 2.21 runs them.

Run with the TensorFlow virtualenv: $(tools/tf_env) tests/golden/gen_fft.py

Complex values are stored as (real, imaginary) float pairs (golden_lib).
Transform outputs get an absolute tolerance scaled by the transform's
length: TensorFlow (DUCC) and dfx both compute complex64 transforms in
float, in different orders, so they differ by about eps * log2(n) times
the output's scale (sqrt(n) for the unit-range inputs used here).
"""

import os
import subprocess
import sys
import tempfile

import numpy as np


def freeze_log_mel(path):
    """Runs in a fresh, eager interpreter: freezes (convert_variables_to_
    constants_v2) a tf.function computing a Keras-style audio front end,
    log-mel spectrogram of [batch, 4000] audio, with a trainable mel
    matrix variable, into a GraphDef at `path`; prints the output name."""
    import tensorflow as tf
    from tensorflow.python.framework.convert_to_constants import (
        convert_variables_to_constants_v2)
    mel = tf.Variable(tf.signal.linear_to_mel_weight_matrix(
        num_mel_bins=16, num_spectrogram_bins=129, sample_rate=8000,
        lower_edge_hertz=80.0, upper_edge_hertz=3800.0))

    @tf.function
    def front_end(audio):
        stft = tf.signal.stft(audio, frame_length=256, frame_step=128,
                              fft_length=256)
        power = tf.math.square(tf.abs(stft))
        return tf.math.log(tf.tensordot(power, mel, 1) + 1e-6)
    concrete = front_end.get_concrete_function(
        tf.TensorSpec([2, 4000], tf.float32, name="audio"))
    frozen = convert_variables_to_constants_v2(concrete)
    with open(path, "wb") as f:
        f.write(frozen.graph.as_graph_def().SerializeToString())
    print(frozen.outputs[0].name)


if len(sys.argv) == 3 and sys.argv[1] == "--freeze-log-mel":
    freeze_log_mel(sys.argv[2])
    sys.exit(0)

import tensorflow as tf  # noqa: E402
from tensorflow.python.ops import gen_math_ops, gen_spectral_ops  # noqa: E402

from golden_lib import case, placeholder, rng, tf1  # noqa: E402

FAMILY = "fft"

C64 = np.complex64
C128 = np.complex128


def cvalues(shape, dtype, seed):
    r = rng(seed)
    return (r.uniform(-1, 1, shape) + 1j * r.uniform(-1, 1, shape)).astype(
        dtype)


def rvalues(shape, dtype, seed):
    return rng(seed).uniform(-1, 1, shape).astype(dtype)


def fft_tol(dtype, n):
    """Tolerance for a transform of total length n with outputs of scale
    about sqrt(n) (or 1/sqrt(n) after an inverse's 1/n)."""
    if dtype in (C64, np.float32, tf.complex64, tf.float32):
        return dict(rtol=1e-5, atol=4e-7 * (n ** 0.5) * max(1.0, np.log2(n)))
    return dict(rtol=1e-12, atol=1e-15 * (n ** 0.5) * max(1.0, np.log2(n)))


# ---------------------------------------------------------------------------
# Complex tensors and the complex-number ops.

def roundtrip_cases():
    for dt in (C64, C128):
        name = np.dtype(dt).name

        def feed(dt=dt):
            x, v = placeholder(cvalues((2, 3), dt, 1), name="x")
            return tf.identity(x), {x: v}
        case(FAMILY, f"feed_fetch_{name}", feed)

        def const(dt=dt):
            c = tf.constant([[1 + 2j, -3.5 + 0.25j], [0j, -1e-3 - 7j]],
                            dtype=dt)
            scalar = tf.constant(2 - 1j, dtype=dt)
            # A splat (one scomplex_val/dcomplex_val pair for 12 elements)
            # and a tensor_content constant.
            splat = tf.constant(1.5 - 2j, dtype=dt, shape=[3, 4])
            content = tf.constant(cvalues((5, 6), dt, 12))
            return [tf.identity(c), tf.identity(scalar), tf.identity(splat),
                    tf.identity(content)], None
        case(FAMILY, f"const_{name}", const)


def part_cases():
    specials = np.array([0j, -0.0 + 0j, 3 - 4j, -1e-30 + 1e-30j, 1e30 + 1e30j,
                         complex(np.inf, 1), complex(1, -np.inf),
                         complex(np.nan, 0), -2 + 0j, -2 - 0j])
    for dt, rt in ((C64, tf.float32), (C128, tf.float64)):
        name = np.dtype(dt).name

        def parts(dt=dt, rt=rt):
            x, v = placeholder(cvalues((3, 4), dt, 2), name="x")
            return [tf.math.real(x), tf.math.imag(x), tf.abs(x),
                    tf.math.angle(x), tf.math.conj(x)], {x: v}
        case(FAMILY, f"parts_{name}", parts)

        def parts_special(dt=dt):
            x, v = placeholder(specials.astype(dt), name="x")
            return [gen_math_ops.real(x, Tout=x.dtype.real_dtype),
                    gen_math_ops.imag(x, Tout=x.dtype.real_dtype),
                    gen_math_ops.complex_abs(x, Tout=x.dtype.real_dtype),
                    gen_math_ops.angle(x, Tout=x.dtype.real_dtype),
                    gen_math_ops.conj(x)], {x: v}
        case(FAMILY, f"parts_special_{name}", parts_special)

        def empty(dt=dt):
            x, v = placeholder(np.zeros((0, 3), dt), name="x")
            return [tf.math.real(x), tf.abs(x), tf.math.conj(x)], {x: v}
        case(FAMILY, f"parts_empty_{name}", empty)

    for rt in (np.float32, np.float64):
        name = np.dtype(rt).name

        def make(rt=rt):
            re, rv = placeholder(rvalues((2, 3), rt, 3), name="re")
            im, iv = placeholder(rvalues((3,), rt, 4), name="im")
            s, sv = placeholder(np.array(0.5, rt), name="s")
            return [tf.complex(re, im), tf.complex(s, re),
                    tf.complex(re, re)], {re: rv, im: iv, s: sv}
        case(FAMILY, f"complex_broadcast_{name}", make)

    def complex_bad_shapes():
        re, rv = placeholder(rvalues((2, 3), np.float32, 5), name="re",
                             shape=[None, None])
        im, iv = placeholder(rvalues((2, 4), np.float32, 6), name="im",
                             shape=[None, None])
        return tf.complex(re, im), {re: rv, im: iv}
    case(FAMILY, "complex_incompatible_shapes", complex_bad_shapes)


def arithmetic_cases():
    for dt in (C64, C128):
        name = np.dtype(dt).name
        tol = dict(rtol=1e-5, atol=1e-6) if dt == C64 else None

        def binary(dt=dt):
            x, xv = placeholder(cvalues((2, 3), dt, 7), name="x")
            y, yv = placeholder(cvalues((3,), dt, 8), name="y")
            z, zv = placeholder(np.array([0j, 2 - 1j, 0j], dt), name="z")
            return [tf.add(x, y), gen_math_ops.add(x, y), tf.subtract(x, y),
                    tf.multiply(x, y), gen_math_ops.real_div(x, y),
                    gen_math_ops.div(x, y), tf.add(x, x),
                    tf.math.divide_no_nan(x, z), tf.math.multiply_no_nan(x, z)
                    ], {x: xv, y: yv, z: zv}
        case(FAMILY, f"binary_{name}", binary, **(tol or {}))

        def unary(dt=dt):
            x, xv = placeholder(cvalues((4, 5), dt, 9), name="x")
            return [tf.negative(x), tf.square(x), tf.exp(x), tf.math.log(x),
                    tf.sqrt(x), tf.math.rsqrt(x), tf.math.reciprocal(x)], \
                {x: xv}
        case(FAMILY, f"unary_{name}", unary, **(tol or {}))

    for dt in (C64, C128):
        name = np.dtype(dt).name

        def reductions(dt=dt):
            x, xv = placeholder(cvalues((3, 4, 5), dt, 11), name="x")
            e, ev = placeholder(np.zeros((2, 0), dt), name="e")
            return [tf.reduce_sum(x), tf.reduce_sum(x, axis=1),
                    tf.reduce_sum(x, axis=[0, 2], keepdims=True),
                    tf.reduce_mean(x), tf.reduce_mean(x, axis=-1),
                    tf.reduce_sum(e, axis=1), tf.reduce_mean(e, axis=1)], \
                {x: xv, e: ev}
        case(FAMILY, f"sum_mean_{name}", reductions,
             **(dict(rtol=1e-5, atol=1e-5) if dt == C64 else {}))

    for dt in (C64, C128):
        name = np.dtype(dt).name

        def misc(dt=dt):
            x, xv = placeholder(np.array([[1 + 2j, 3j], [np.nan, -1]], dt),
                                name="x")
            y, yv = placeholder(np.array([1 + 2j, 3 + 3j], dt), name="y")
            return [tf.equal(x, y), tf.not_equal(x, y), tf.zeros_like(x),
                    tf.ones_like(x), tf.add_n([x, y * 0 + x, x])], \
                {x: xv, y: yv}
        case(FAMILY, f"equal_like_addn_{name}", misc)

    def casts():
        x, xv = placeholder(np.array([0j, 1j, 2.7 - 1j, -3.6 + 0.5j, 300.5j,
                                      -200.25 + 1j, 1e10 + 0j], C64),
                            name="x")
        y, yv = placeholder(np.array([-1.5 + 2j, 70000.75 - 1j, 5e9 + 0j,
                                      -1e20 + 0j], C128), name="y")
        types = (tf.bool, tf.int8, tf.uint8, tf.int16, tf.uint16, tf.int32,
                 tf.uint32, tf.int64, tf.uint64, tf.float16, tf.bfloat16,
                 tf.float32, tf.float64)
        outs = [tf.cast(x, t) for t in types + (tf.complex128,)]
        outs += [tf.cast(y, t) for t in types + (tf.complex64,)]
        return outs, {x: xv, y: yv}
    case(FAMILY, "cast_from_complex64", casts)

    def casts_to():
        outs = []
        feeds = {}
        for i, (dt, vals) in enumerate((
                (np.float32, [1.5, -2.25, 0.0]), (np.float64, [1e300, -1, 0]),
                (np.int32, [7, -8, 2**31 - 1]), (np.int64, [2**40, -3, 0]),
                (np.uint8, [0, 255, 7]), (np.bool_, [True, False, True]),
                (np.float16, [0.5, -65504, 3]))):
            p, v = placeholder(np.array(vals, dt), name=f"x{i}")
            feeds[p] = v
            outs += [tf.cast(p, tf.complex64), tf.cast(p, tf.complex128)]
        z, zv = placeholder(cvalues((3,), C128, 10), name="z")
        feeds[z] = zv
        outs.append(tf.cast(z, tf.complex64))
        return outs, feeds
    case(FAMILY, "cast_to_complex", casts_to)


# ---------------------------------------------------------------------------
# Transforms.

def complex_fft_cases():
    ops = {1: (gen_spectral_ops.fft, gen_spectral_ops.ifft),
           2: (gen_spectral_ops.fft2d, gen_spectral_ops.ifft2d),
           3: (gen_spectral_ops.fft3d, gen_spectral_ops.ifft3d)}
    shapes = [(1, (1,)), (1, (2,)), (1, (7,)), (1, (12,)), (1, (3, 100)),
              (1, (2, 64)), (1, (97,)), (1, (2, 2, 74)),
              (2, (6, 5)), (2, (2, 3, 37)), (3, (2, 3, 4)), (3, (2, 1, 5, 6))]
    for i, (rank, shape) in enumerate(shapes):
        for dt in (C64, C128):
            name = np.dtype(dt).name
            n = int(np.prod(shape[-rank:]))

            def build(rank=rank, shape=shape, dt=dt, seed=20 + i):
                fwd, inv = ops[rank]
                x, v = placeholder(cvalues(shape, dt, seed), name="x")
                return [fwd(x), inv(x)], {x: v}
            dims = "x".join(map(str, shape))
            case(FAMILY, f"fft{rank}d_{dims}_{name}", build, **fft_tol(dt, n))

    def empty():
        a, av = placeholder(np.zeros((0, 8), C64), name="a")
        b, bv = placeholder(np.zeros((3, 0), C128), name="b")
        return [gen_spectral_ops.fft(a), gen_spectral_ops.ifft(b),
                gen_spectral_ops.fft2d(a)], {a: av, b: bv}
    case(FAMILY, "fft_empty", empty)

    def rank_error():
        x, v = placeholder(cvalues((4,), C64, 30), name="x", shape=None)
        x = tf1.placeholder_with_default(v, shape=None)
        return gen_spectral_ops.fft2d(x), None
    case(FAMILY, "fft2d_rank_too_small", rank_error)


def real_fft_cases():
    ops = {1: (gen_spectral_ops.rfft, gen_spectral_ops.irfft),
           2: (gen_spectral_ops.rfft2d, gen_spectral_ops.irfft2d),
           3: (gen_spectral_ops.rfft3d, gen_spectral_ops.irfft3d)}
    # (rank, input shape, fft_length): equal, cropped, odd and even lengths.
    forward = [(1, (8,), [8]), (1, (7,), [7]), (1, (3, 12), [12]),
               (1, (2, 100), [100]), (1, (10,), [6]), (1, (10,), [5]),
               (1, (2, 74), [74]), (1, (4,), [1]),
               (2, (4, 6), [4, 6]), (2, (2, 5, 7), [3, 5]),
               (3, (2, 3, 4, 5), [3, 4, 5]), (3, (3, 4, 6), [2, 3, 4])]
    for i, (rank, shape, length) in enumerate(forward):
        for rt, ct in ((np.float32, tf.complex64), (np.float64, tf.complex128)):
            n = max(1, int(np.prod(length)))

            def build(rank=rank, shape=shape, length=length, rt=rt, ct=ct,
                      seed=40 + i):
                x, v = placeholder(rvalues(shape, rt, seed), name="x")
                return ops[rank][0](x, length, Tcomplex=ct), {x: v}
            dims = "x".join(map(str, shape))
            lens = "x".join(map(str, length))
            case(FAMILY, f"rfft{rank}d_{dims}_len{lens}_{np.dtype(rt).name}",
                 build, **fft_tol(rt, n))

    # fft_length 0 with a non-empty input is left out: TensorFlow 2.21
    # aborts the process there (a DUCC assertion); dfx returns the empty
    # output (kernel unit tests).

    # IRFFT: input last dim n/2+1 or more, other dims fft_length or more;
    # inputs are not Hermitian, so the ignored imaginary parts matter.
    inverse = [(1, (5,), [8]), (1, (4,), [7]), (1, (3, 7), [12]),
               (1, (2, 51), [100]), (1, (9,), [6]), (1, (6,), [5]),
               (1, (2,), [1]), (1, (38,), [74]),
               (2, (4, 4), [4, 6]), (2, (2, 5, 4), [3, 5]),
               (3, (2, 3, 4, 3), [3, 4, 5]), (3, (3, 4, 6), [2, 3, 4])]
    for i, (rank, shape, length) in enumerate(inverse):
        for ct, rt in ((C64, tf.float32), (C128, tf.float64)):
            n = max(1, int(np.prod(length)))

            def build(rank=rank, shape=shape, length=length, ct=ct, rt=rt,
                      seed=60 + i):
                x, v = placeholder(cvalues(shape, ct, seed), name="x")
                return ops[rank][1](x, length, Treal=rt), {x: v}
            dims = "x".join(map(str, shape))
            lens = "x".join(map(str, length))
            case(FAMILY,
                 f"irfft{rank}d_{dims}_len{lens}_{np.dtype(ct).name}",
                 build, **fft_tol(ct, n))

    # tf.signal pads an input shorter than fft_length before the op.
    def signal_padded():
        x, v = placeholder(rvalues((2, 5), np.float32, 80), name="x")
        z, zv = placeholder(cvalues((2, 3), C64, 81), name="z")
        return [tf.signal.rfft(x, [12]), tf.signal.irfft(z, [10]),
                tf.signal.rfft2d(x, [3, 8]),
                tf.signal.irfft2d(z, [4, 6])], {x: v, z: zv}
    case(FAMILY, "signal_fft_length_longer", signal_padded,
         **fft_tol(np.float32, 24))

    def empty():
        a, av = placeholder(np.zeros((0, 8), np.float32), name="a")
        b, bv = placeholder(np.zeros((2, 0), C64), name="b")
        return [gen_spectral_ops.rfft(a, [8]),
                gen_spectral_ops.irfft(b, [0]),
                gen_spectral_ops.rfft(a, [0])], {a: av, b: bv}
    case(FAMILY, "rfft_empty", empty)

    def errors(kind):
        def build():
            x = tf1.placeholder_with_default(rvalues((2, 6), np.float32, 90),
                                             shape=None)
            z = tf1.placeholder_with_default(cvalues((2, 4), C64, 91),
                                             shape=None)
            n = tf1.placeholder_with_default(
                {"short": [8], "negative": [-2], "shape": [4, 4],
                 "irfft_short": [8], "rank": [2, 3]}[kind], shape=None)
            if kind == "irfft_short":
                return gen_spectral_ops.irfft(z, n), None
            if kind == "rank":
                return gen_spectral_ops.rfft3d(x, n), None
            return gen_spectral_ops.rfft(x, n), None
        return build
    for kind in ("short", "negative", "shape", "irfft_short", "rank"):
        case(FAMILY, f"rfft_error_{kind}", errors(kind))


# ---------------------------------------------------------------------------
# The size classes of the FFT engine (kernels/fft/fft_plan.cc): prime
# lengths (Bluestein, short and long), lengths with a large prime factor,
# factors 3/5/7 and generic odd radices, long powers of two (the four-step
# split), batches and strided axes. Inputs are made in the graph from
# integers (exact in any implementation) to keep the cases small, and a
# strided slice of each long output is fetched.

def exact_signal(n, dtype, a):
    """((j * a) mod 211) / 211 - 0.5 for j < n: the same bits everywhere."""
    j = tf.range(n, dtype=tf.int64)
    return tf.cast((j * a) % 211, dtype) / 211.0 - 0.5


def exact_complex(n, dtype, a=7919, b=104729):
    rt = tf.float32 if dtype == tf.complex64 else tf.float64
    return tf.complex(exact_signal(n, rt, a), exact_signal(n, rt, b))


def sampled(y, count=96):
    """About `count` values of y, flattened, evenly spaced (an odd stride,
    so that every position along each axis is visited)."""
    flat = tf.reshape(y, [-1])
    n = int(np.prod(y.shape))
    stride = max(1, n // count) | 1
    return flat[::stride]


SIZE_CLASSES = [
    # (label, length)
    ("prime_1009", 1009),        # Bluestein in the SIMD lanes (m = 2025)
    ("prime_4099", 4099),        # Bluestein over a whole line (m = 8748)
    ("prime_65537", 65537),      # Fermat prime, m = 131220
    ("factor_2x2053", 4106),     # a large prime factor
    ("factor_7x11x13", 1001),    # generic odd radices
    ("factors_1000", 1000),      # 2^3 5^3
    ("factors_6000", 6000),      # 2^4 3 5^3, four-step
    ("factors_44100", 44100),    # 2^2 3^2 5^2 7^2, four-step
    ("pow2_4096", 4096),         # four-step
    ("pow2_65536", 65536),
]


def size_class_cases():
    for label, n in SIZE_CLASSES:
        for ct in (tf.complex64, tf.complex128):
            def build(n=n, ct=ct):
                x = exact_complex(n, ct)
                return [sampled(gen_spectral_ops.fft(x)),
                        sampled(gen_spectral_ops.ifft(x))], None
            case(FAMILY, f"size_fft_{label}_{ct.name}", build,
                 **fft_tol(ct, n))
        for rt, ct in ((tf.float32, tf.complex64), (tf.float64, tf.complex128)):
            def build_real(n=n, rt=rt, ct=ct):
                x = exact_signal(n, rt, 7919)
                z = exact_complex(n // 2 + 1, ct, 613, 4513)
                return [sampled(gen_spectral_ops.rfft(x, [n], Tcomplex=ct)),
                        sampled(gen_spectral_ops.irfft(z, [n], Treal=rt))], None
            case(FAMILY, f"size_rfft_{label}_{rt.name}", build_real,
                 **fft_tol(rt, n))

    # Even real lengths whose half has a large prime factor.
    for rt, ct in ((tf.float32, tf.complex64), (tf.float64, tf.complex128)):
        def half_prime(rt=rt, ct=ct):
            x = exact_signal(8198, rt, 7919)
            z = exact_complex(8198 // 2 + 1, ct, 613, 4513)
            return [sampled(gen_spectral_ops.rfft(x, [8198], Tcomplex=ct)),
                    sampled(gen_spectral_ops.irfft(z, [8198], Treal=rt))], None
        case(FAMILY, f"size_rfft_half_prime_8198_{rt.name}", half_prime,
             **fft_tol(rt, 8198))

    # Batches of short transforms, 2D and 3D shapes (strided axes whose
    # inner size is below, at and above the SIMD width).
    shapes = [(1, (64, 256)), (1, (9, 1009)), (2, (64, 64)), (2, (33, 40)),
              (2, (3, 100, 3)), (3, (16, 16, 16)), (3, (5, 7, 9)),
              (3, (2, 12, 10, 6))]
    ops = {1: (gen_spectral_ops.fft, gen_spectral_ops.ifft,
               gen_spectral_ops.rfft, gen_spectral_ops.irfft),
           2: (gen_spectral_ops.fft2d, gen_spectral_ops.ifft2d,
               gen_spectral_ops.rfft2d, gen_spectral_ops.irfft2d),
           3: (gen_spectral_ops.fft3d, gen_spectral_ops.ifft3d,
               gen_spectral_ops.rfft3d, gen_spectral_ops.irfft3d)}
    for rank, shape in shapes:
        total = int(np.prod(shape))
        n = int(np.prod(shape[-rank:]))
        dims = "x".join(map(str, shape))
        for ct, rt in ((tf.complex64, tf.float32), (tf.complex128, tf.float64)):
            def build(rank=rank, shape=shape, total=total, ct=ct, rt=rt):
                fwd, inv, rfwd, rinv = ops[rank]
                x = tf.reshape(exact_complex(total, ct), shape)
                r = tf.reshape(exact_signal(total, rt, 7919), shape)
                lengths = list(shape[-rank:])
                zshape = list(shape[:-1]) + [shape[-1] // 2 + 1]
                z = tf.reshape(exact_complex(int(np.prod(zshape)), ct, 613,
                                             4513), zshape)
                return [sampled(fwd(x)), sampled(inv(x)),
                        sampled(rfwd(r, lengths, Tcomplex=ct)),
                        sampled(rinv(z, lengths, Treal=rt))], None
            case(FAMILY, f"size_batch_{rank}d_{dims}_{ct.name}", build,
                 **fft_tol(ct, n))


# ---------------------------------------------------------------------------
# tf.signal graphs.

def signal_cases():
    t = np.arange(8000) / 8000.0
    sine = (np.sin(2 * np.pi * 440 * t) +
            0.25 * np.sin(2 * np.pi * 1234 * t)).astype(np.float32)

    def spectrogram():
        # One second at 8 kHz, built in the graph to keep the case small.
        t = tf.range(8000, dtype=tf.float32) / 8000.0
        x = tf.sin(2 * np.pi * 440 * t)
        stft = tf.signal.stft(x, frame_length=256, frame_step=128)
        return [tf.abs(stft)], None
    case(FAMILY, "stft_spectrogram_8khz_sine", spectrogram,
         rtol=1e-4, atol=1e-4)

    def inverse():
        x, v = placeholder(sine[:2048], name="audio")
        stft = tf.signal.stft(x, frame_length=256, frame_step=64)
        y = tf.signal.inverse_stft(
            stft, frame_length=256, frame_step=64,
            window_fn=tf.signal.inverse_stft_window_fn(64))
        return [y], {x: v}
    case(FAMILY, "inverse_stft_roundtrip", inverse, rtol=1e-4, atol=1e-5)

    def abs_rfft():
        x, v = placeholder(rvalues((3, 100), np.float32, 95), name="x")
        return [tf.abs(tf.signal.rfft(x))], {x: v}
    case(FAMILY, "abs_rfft", abs_rfft, **fft_tol(np.float32, 100))


def signal_misc_cases():
    def dct_mfcc():
        x, v = placeholder(rvalues((3, 16), np.float32, 96), name="x")
        log_mel = tf.abs(x) * 4 - 2
        return [tf.signal.dct(x, type=2), tf.signal.dct(x, type=2,
                                                        norm="ortho"),
                tf.signal.idct(x, type=2), tf.signal.dct(x, type=3),
                tf.signal.mfccs_from_log_mel_spectrograms(log_mel)], {x: v}
    case(FAMILY, "dct_mfcc", dct_mfcc, **fft_tol(np.float32, 64))

    def shifts():
        z, zv = placeholder(cvalues((4, 5), C64, 97), name="z")
        spectrum = tf.signal.fft(z)
        return [tf.signal.fftshift(spectrum),
                tf.signal.ifftshift(tf.signal.fftshift(spectrum, axes=1),
                                    axes=1)], {z: zv}
    case(FAMILY, "fftshift", shifts, **fft_tol(C64, 5))


def gradient_cases():
    """tf.gradients through the transforms (TensorFlow's FFT gradients are
    graphs of FFT ops, Complex/Real/Imag, complex Mul and Conj)."""
    def rfft_power_grad():
        x, v = placeholder(rvalues((2, 12), np.float32, 98), name="x")
        loss = tf.reduce_sum(tf.square(tf.abs(tf.signal.rfft(x))))
        return tf.gradients(loss, x), {x: v}
    case(FAMILY, "gradient_rfft_power", rfft_power_grad,
         **fft_tol(np.float32, 144))

    def fft_grad():
        z, v = placeholder(cvalues((3, 8), C128, 99), name="z")
        w = tf.constant(cvalues((3, 8), C128, 100))
        loss = tf.math.real(tf.reduce_sum(
            tf.signal.ifft(tf.signal.fft2d(z) * w)))
        return tf.gradients(loss, z), {z: v}
    case(FAMILY, "gradient_fft_complex128", fft_grad,
         **fft_tol(C128, 24))

    def irfft_grad():
        z, v = placeholder(cvalues((2, 5), C64, 101), name="z")
        loss = tf.reduce_sum(tf.square(tf.signal.irfft(z, [8])))
        return tf.gradients(loss, z), {z: v}
    case(FAMILY, "gradient_irfft", irfft_grad, **fft_tol(C64, 8))

    def stft_grad():
        x, v = placeholder(rvalues((600,), np.float32, 102), name="x")
        spec = tf.abs(tf.signal.stft(x, frame_length=64, frame_step=32))
        loss = tf.reduce_mean(tf.math.log(spec + 1e-3))
        return tf.gradients(loss, x), {x: v}
    case(FAMILY, "gradient_stft_log_spectrogram", stft_grad, rtol=1e-4,
         atol=1e-6)


def frozen_log_mel_case():
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "log_mel.pb")
        out = subprocess.run(
            [sys.executable, __file__, "--freeze-log-mel", path], check=True,
            capture_output=True, text=True)
        output_name = out.stdout.strip().splitlines()[-1]
        graph_def = tf1.GraphDef()
        with open(path, "rb") as f:
            graph_def.ParseFromString(f.read())

    def build():
        # Two tones built in the graph (a fed [2, 4000] would be 32 KB).
        t = tf.range(4000, dtype=tf.float32) / 8000.0
        audio = tf.stack([tf.sin(2 * np.pi * 300 * t),
                          0.5 * tf.sin(2 * np.pi * 2100 * t)])
        (y,) = tf.graph_util.import_graph_def(
            graph_def, input_map={"audio:0": audio},
            return_elements=[output_name], name="front_end")
        return y, None
    # log() of small powers magnifies float32 differences: absolute 1e-3.
    case(FAMILY, "frozen_log_mel_spectrogram", build, rtol=1e-4, atol=1e-3,
         note="ops: " + ", ".join(sorted({n.op for n in graph_def.node})))


def main():
    roundtrip_cases()
    part_cases()
    arithmetic_cases()
    complex_fft_cases()
    real_fft_cases()
    size_class_cases()
    signal_cases()
    signal_misc_cases()
    gradient_cases()
    frozen_log_mel_case()


if __name__ == "__main__":
    main()

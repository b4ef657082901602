#!/usr/bin/env python3
"""FFT, IFFT, RFFT and IRFFT (1D, 2D, 3D), a dfx server against a TensorFlow
server, from the same TensorFlow 2.21 client in the same run.

Each case's graph holds its input in a variable (initialised once from a
seeded random op) and runs a chain of forward/inverse round trips per step
(FFT then IFFT, RFFT then IRFFT, ...; up to 32, about --budget elements
transformed per step), so that the transforms, not the step's fixed cost,
make the time; it fetches one element. Prints the
median ms per transform (step time / transforms per step) over `--repeats`
batches of steps for each backend (the two backends' batches alternate, so
both see the same load on a shared machine), and the ratio dfx / TF. The
first row is an empty step (read one element of the variable), the fixed
cost the transforms' times include.

    $(tools/tf_env) tools/bench/fft_vs_tf.py --dfx build/bin/dfx
    $(tools/tf_env) tools/bench/fft_vs_tf.py --dfx build/bin/dfx --filter rfft
"""

import argparse
import os
import statistics
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import tensorflow as tf  # noqa: E402
from tensorflow.python.ops import gen_spectral_ops as spectral  # noqa: E402

from bench_clusters import start_dfx_cluster, start_tf_cluster  # noqa: E402

tf1 = tf.compat.v1
tf1.disable_eager_execution()

C64, C128 = tf.complex64, tf.complex128
F32, F64 = tf.float32, tf.float64

COMPLEX = {1: (spectral.fft, spectral.ifft),
           2: (spectral.fft2d, spectral.ifft2d),
           3: (spectral.fft3d, spectral.ifft3d)}
REAL = {1: (spectral.rfft, spectral.irfft),
        2: (spectral.rfft2d, spectral.irfft2d),
        3: (spectral.rfft3d, spectral.irfft3d)}

# (label, kind, rank, shape, dtype): kind "c2c" runs FFT/IFFT round trips
# on complex input, "r2c" RFFT/IRFFT round trips on real input.
CASES = [
    ("fft 2^6 c64", "c2c", 1, [64], C64),
    ("fft 2^10 c64", "c2c", 1, [1 << 10], C64),
    ("fft 2^12 c64", "c2c", 1, [1 << 12], C64),
    ("fft 2^16 c64", "c2c", 1, [1 << 16], C64),
    ("fft 2^20 c64", "c2c", 1, [1 << 20], C64),
    ("fft 2^22 c64", "c2c", 1, [1 << 22], C64),
    ("fft 2^20 c128", "c2c", 1, [1 << 20], C128),
    ("fft 1000 c64", "c2c", 1, [1000], C64),
    ("fft 6000 c64", "c2c", 1, [6000], C64),
    ("fft 44100 c64", "c2c", 1, [44100], C64),
    ("fft 44100 c128", "c2c", 1, [44100], C128),
    ("fft prime 1009 c64", "c2c", 1, [1009], C64),
    ("fft prime 65537 c64", "c2c", 1, [65537], C64),
    ("fft 2x2053 c64", "c2c", 1, [4106], C64),
    ("fft batch [4096,256] c64", "c2c", 1, [4096, 256], C64),
    ("fft batch [4096,256] c128", "c2c", 1, [4096, 256], C128),
    ("fft2d 512x512 c64", "c2c", 2, [512, 512], C64),
    ("fft2d 1000x1000 c64", "c2c", 2, [1000, 1000], C64),
    ("fft3d 64x64x64 c64", "c2c", 3, [64, 64, 64], C64),
    ("rfft 2^12 f32", "r2c", 1, [1 << 12], F32),
    ("rfft 2^20 f32", "r2c", 1, [1 << 20], F32),
    ("rfft 2^20 f64", "r2c", 1, [1 << 20], F64),
    ("rfft 44100 f32", "r2c", 1, [44100], F32),
    ("rfft prime 65537 f32", "r2c", 1, [65537], F32),
    ("rfft batch [4096,256] f32", "r2c", 1, [4096, 256], F32),
    ("rfft2d 512x512 f32", "r2c", 2, [512, 512], F32),
    ("rfft3d 64x64x64 f32", "r2c", 3, [64, 64, 64], F32),
]


def size_of(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def build(name, kind, rank, shape, dtype, pairs):
    """Returns (init op, fetch) in the default graph. Variables outlive a
    session on a server: each case's needs a name of its own."""
    real = tf.float64 if dtype in (C128, F64) else tf.float32
    init = tf.random.uniform(shape, -1, 1, dtype=real, seed=7)
    if kind == "c2c":
        init = tf.complex(init, tf.random.uniform(shape, -1, 1, dtype=real,
                                                  seed=8))
    var = tf1.Variable(init, trainable=False, name=name)
    y = var.read_value() if hasattr(var, "read_value") else var
    if pairs == 0:
        return var.initializer, tf.reshape(y, [-1])[:1]
    lengths = shape[-rank:]
    for _ in range(pairs):
        if kind == "c2c":
            fwd, inv = COMPLEX[rank]
            y = inv(fwd(y))
        else:
            fwd, inv = REAL[rank]
            ct = C128 if dtype == F64 else C64
            y = inv(fwd(y, lengths, Tcomplex=ct), lengths, Treal=dtype)
    return var.initializer, tf.reshape(y, [-1])[:1]


def open_case(target, name, case, pairs):
    """A session on `target` with the case's graph, initialised and run once.
    Returns (session, fetch)."""
    _, kind, rank, shape, dtype = case
    g = tf.Graph()
    with g.as_default():
        init, fetch = build(name, kind, rank, shape, dtype, pairs)
    config = tf1.ConfigProto()
    config.graph_options.rewrite_options.disable_meta_optimizer = True
    sess = tf1.Session(target, graph=g, config=config)
    sess.run(init)
    sess.run(fetch)
    return sess, fetch


def time_steps(sess, fetch, steps):
    start = time.perf_counter()
    for _ in range(steps):
        sess.run(fetch)
    return (time.perf_counter() - start) / steps * 1e3


def compare(targets, name, case, steps, repeats, pairs):
    """Median ms per step on each target. The targets' batches alternate,
    so that both see the same load on a shared machine."""
    sessions = {t: open_case(addr, name, case, pairs)
                for t, addr in targets.items()}
    times = {t: [] for t in targets}
    try:
        for _ in range(repeats):
            for t, (sess, fetch) in sessions.items():
                times[t].append(time_steps(sess, fetch, steps))
    finally:
        for sess, _ in sessions.values():
            sess.close()
    return {t: statistics.median(v) for t, v in times.items()}


def plan(case, budget):
    """(pairs per step, steps per repeat) for about `budget` elements of
    transform per step."""
    n = size_of(case[3])
    pairs = max(1, min(32, budget // n))
    steps = max(2, min(20, (16 * budget) // (n * pairs)))
    return pairs, steps


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--dfx", required=True)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--budget", type=int, default=1 << 20,
                   help="elements transformed per step (sets the pairs)")
    p.add_argument("--filter", default="",
                   help="only the cases whose label contains this")
    args = p.parse_args()
    cases = [c for c in CASES if args.filter in c[0]]
    empty = ("empty step (fixed cost)", "c2c", 1, [64], C64)
    results = {}
    tf_cluster, stop_tf = start_tf_cluster(1)
    try:
        dfx_cluster, stop_dfx = start_dfx_cluster(args.dfx, 1)
        try:
            targets = {"tf": "grpc://" + tf_cluster["worker"][0],
                       "dfx": "grpc://" + dfx_cluster["worker"][0]}
            for t, ms in compare(targets, "empty", empty, 50, args.repeats,
                                 0).items():
                results[(t, empty[0])] = ms
            for index, case in enumerate(cases):
                pairs, steps = plan(case, args.budget)
                for t, ms in compare(targets, f"input_{index}", case, steps,
                                     args.repeats, pairs).items():
                    results[(t, case[0])] = ms / (2 * pairs)
        finally:
            stop_dfx()
    finally:
        stop_tf()
    print("| case | TensorFlow ms | dfx ms | dfx / TF |")
    print("|---|---|---|---|")
    for label in [empty[0]] + [c[0] for c in cases]:
        t, d = results[("tf", label)], results[("dfx", label)]
        print(f"| {label} | {t:.3f} | {d:.3f} | {d / t:.2f} |")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""A tf.data input pipeline, a dfx server against a TensorFlow server, from
the same TensorFlow 2.21 client in the same run.

The pipeline: range -> map (cast, multiply, add) -> shuffle(1024, seeded)
-> batch(256) -> prefetch(2), iterated by a TF1 initializable iterator;
each step fetches the sum of one batch. Both sides must give the same
sums (the seeded shuffle is TensorFlow's order on both). Prints the median
ms/step of --repeats batches of --steps steps per backend.

    $(tools/tf_env) tools/bench/pipeline_vs_tf.py --dfx build/bin/dfx
"""

import argparse
import os
import statistics
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import tensorflow as tf  # noqa: E402

from bench_clusters import start_dfx_cluster, start_tf_cluster  # noqa: E402

tf1 = tf.compat.v1
tf1.disable_eager_execution()


def time_pipeline(target, steps, repeats):
    g = tf.Graph()
    with g.as_default():
        ds = (tf.data.Dataset.range(10**9)
              .map(lambda v: tf.cast(v, tf.float32) * 2.0 + 1.0)
              .shuffle(1024, seed=1).batch(256).prefetch(2))
        it = tf1.data.make_initializable_iterator(ds)
        total = tf.reduce_sum(it.get_next())
        config = tf1.ConfigProto()
        config.graph_options.rewrite_options.disable_meta_optimizer = True
        with tf1.Session(target, graph=g, config=config) as sess:
            sess.run(it.initializer)
            first = [float(sess.run(total)) for _ in range(20)]
            times = []
            for _ in range(repeats):
                start = time.perf_counter()
                for _ in range(steps):
                    sess.run(total)
                times.append((time.perf_counter() - start) / steps * 1e3)
    return statistics.median(times), first


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--dfx", required=True)
    p.add_argument("--steps", type=int, default=50)
    p.add_argument("--repeats", type=int, default=5)
    args = p.parse_args()
    results = {}
    for name, start in (("tf", lambda: start_tf_cluster(1)),
                        ("dfx", lambda: start_dfx_cluster(args.dfx, 1))):
        cluster, stop = start()
        try:
            results[name] = time_pipeline("grpc://" + cluster["worker"][0],
                                          args.steps, args.repeats)
        finally:
            stop()
    (tf_ms, tf_first), (dfx_ms, dfx_first) = results["tf"], results["dfx"]
    if tf_first != dfx_first:
        print("FAILED: the batches differ:", tf_first[:3], dfx_first[:3])
        return 1
    print("| pipeline step | TensorFlow ms | dfx ms | dfx / TF |")
    print("|---|---|---|---|")
    print(f"| map, shuffle 1024, batch 256, prefetch 2 | {tf_ms:.2f} | "
          f"{dfx_ms:.2f} | {dfx_ms / tf_ms:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

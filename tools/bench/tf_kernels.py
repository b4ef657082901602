"""TensorFlow 2.21's side of `dfx_bench kernels`: times the same one-node
graphs (inputs are Const nodes, the node runs as a target so nothing is
copied back) in a tf.compat.v1 session with intra_op_parallelism_threads=N,
inter_op_parallelism_threads=1 and Grappler off (no constant folding), and
prints one JSON object per case: {"name": ..., "seconds": fastest step}.

    $(tools/tf_env) tools/bench/tf_kernels.py --threads 2 --min-time 1.0
"""

import argparse
import json
import os
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

tf1 = tf.compat.v1
tf1.disable_eager_execution()

MIB = 1 << 20


def cases():
    """(name, build) pairs; build() adds the node and returns it. Names and
    shapes match tools/bench/kernel_bench.cc."""
    rng = np.random.default_rng(0)

    def matmul(n):
        def build():
            a = tf.constant(rng.uniform(-1, 1, (n, n)).astype(np.float32))
            b = tf.constant(rng.uniform(-1, 1, (n, n)).astype(np.float32))
            return tf.linalg.matmul(a, b)
        return build

    def conv():
        x = tf.constant(rng.uniform(-1, 1, (1, 56, 56, 64)).astype(np.float32))
        w = tf.constant(rng.uniform(-1, 1, (3, 3, 64, 64)).astype(np.float32))
        return tf.nn.conv2d(x, w, strides=[1, 1, 1, 1], padding="SAME")

    def add():
        n = 64 * MIB // 4
        a = tf.constant(np.ones(n, np.float32))
        b = tf.constant(np.ones(n, np.float32))
        return tf.math.add(a, b)

    def reduce_sum():
        n = 64 * MIB // 4
        a = tf.constant(np.ones(n, np.float32))
        return tf.math.reduce_sum(a, axis=[0])

    def values(shape, lo, hi, dtype=np.float32):
        # kernel_bench.cc's values are not reproduced exactly; only their
        # range matters to the speed of these kernels.
        return tf.constant(rng.uniform(lo, hi, shape).astype(dtype))

    n = 4 * MIB

    def unary(fn, dtype=np.float32):
        return lambda: fn(values((n,), -3, 3, dtype))

    def grad(fn):
        return lambda: fn(values((n,), -1, 1), values((n,), -1, 1))

    rows, classes = 4096, 1000

    def rowwise(fn, dtype=np.float32):
        return lambda: fn(values((rows, classes), -5, 5, dtype))

    def xent():
        return tf.raw_ops.SoftmaxCrossEntropyWithLogits(
            features=values((rows, classes), -5, 5),
            labels=values((rows, classes), 0, 1))[0]

    def sparse_xent():
        labels = tf.constant((np.arange(rows) * 7919) % classes, tf.int64)
        return tf.raw_ops.SparseSoftmaxCrossEntropyWithLogits(
            features=values((rows, classes), -5, 5), labels=labels)[0]

    return [("matmul_128", matmul(128)), ("matmul_192", matmul(192)),
            ("matmul_256", matmul(256)), ("matmul_1024", matmul(1024)),
            ("matmul_2048", matmul(2048)), ("conv2d_3x3_64_56", conv),
            ("add_64mib", add), ("sum_64mib", reduce_sum),
            ("elu_4m", unary(tf.nn.elu)),
            ("elu_half_4m", unary(tf.nn.elu, np.float16)),
            ("selu_4m", unary(tf.nn.selu)),
            ("softplus_4m", unary(tf.nn.softplus)),
            ("leaky_relu_4m", unary(lambda x: tf.nn.leaky_relu(x, 0.2))),
            ("relu_grad_4m", grad(lambda g, x: tf.raw_ops.ReluGrad(
                gradients=g, features=x))),
            ("elu_grad_4m", grad(lambda g, x: tf.raw_ops.EluGrad(
                gradients=g, outputs=x))),
            ("softmax_4096x1000", rowwise(tf.nn.softmax)),
            ("softmax_half_4096x1000", rowwise(tf.nn.softmax, np.float16)),
            ("log_softmax_4096x1000", rowwise(tf.nn.log_softmax)),
            ("log_softmax_half_4096x1000",
             rowwise(tf.nn.log_softmax, np.float16)),
            ("xent_4096x1000", xent), ("sparse_xent_4096x1000", sparse_xent)]


def time_case(build, threads, min_time):
    graph = tf.Graph()
    with graph.as_default():
        op = build().op
    config = tf1.ConfigProto(intra_op_parallelism_threads=threads,
                             inter_op_parallelism_threads=1)
    config.graph_options.rewrite_options.disable_meta_optimizer = True
    config.graph_options.optimizer_options.opt_level = tf1.OptimizerOptions.L0
    config.graph_options.optimizer_options.do_constant_folding = False
    with tf1.Session(graph=graph, config=config) as sess:
        for _ in range(3):
            sess.run(op)
        best = float("inf")
        steps = 0
        start = time.perf_counter()
        while steps < 5 or time.perf_counter() - start < min_time:
            t0 = time.perf_counter()
            sess.run(op)
            best = min(best, time.perf_counter() - t0)
            steps += 1
    return best


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--min-time", type=float, default=1.0)
    parser.add_argument("--only", default="", help="comma-separated names")
    args = parser.parse_args()
    only = set(filter(None, args.only.split(",")))
    for name, build in cases():
        if only and name not in only:
            continue
        seconds = time_case(build, args.threads, args.min_time)
        print(json.dumps({"name": name, "seconds": seconds}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

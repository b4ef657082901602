#!/usr/bin/env python3
"""Writes TensorFlow's gradients of two small MLPs, and of single ops, for
tests/builder/.

The C++ test tests/builder/mlp_golden_test.cc builds the same graphs with the
dfx graph builder, adds their gradients with AddSymbolicGradients, and
compares with these at 1e-5. Each case folder holds one .npy per input
(weights, features, ids, labels), `loss.npy`, and `grad_<name>.npy` per
differentiated input:

    tests/builder/data/mlp_grads/dense/      x -> MatMul+BiasAdd+Relu ->
                                             MatMul+BiasAdd -> softmax
                                             cross-entropy (dense labels),
                                             mean over the batch
    tests/builder/data/mlp_grads/embedding/  ids -> GatherV2(embedding) ->
                                             Reshape -> the same MLP ->
                                             sparse softmax cross-entropy

tests/builder/op_golden_test.cc builds single ops (Einsum, Cumsum, Prod,
TopKV2, DepthwiseConv2dNative, ...) the same way and compares their
gradients, seeded with a random upstream gradient, with tf.gradients':

    tests/builder/data/op_grads/<case>/      x0.npy, x1.npy ... (the
                                             differentiated inputs), dy.npy
                                             (the upstream gradient),
                                             grad_x0.npy ... (tf.gradients)

tests/builder/while_grad_test.cc builds small while loops (an RNN cell, a
MatMul with a loop-invariant weight, ...) and compares their gradients with
tf.gradients of the same tf.while_loop built with control flow v1 (Enter,
Exit, StackV2: what AddSymbolicGradients builds), seeded with random
upstream gradients:

    tests/builder/data/while_grads/<case>/   x0.npy ... (the differentiated
                                             inputs), dy0.npy ... (one per
                                             loop output), grad_x0.npy ...

Integer inputs (axes, ids, indices) are written into both this script and
the C++ test.

The data lives beside the test rather than under tests/golden/data/, whose
folders golden_test.cc runs as golden families.

Run with the TensorFlow virtualenv:  $(tools/tf_env) tests/golden/gen_builder_grads.py
"""

import os
import shutil

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from tensorflow.python.ops import control_flow_util  # noqa: E402

tf.get_logger().setLevel("ERROR")
tf1 = tf.compat.v1

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                   "builder", "data", "mlp_grads")
OP_OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                      "builder", "data", "op_grads")
WHILE_OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                         "builder", "data", "while_grads")


def write(case, arrays):
    path = os.path.join(OUT, case)
    os.makedirs(path, exist_ok=True)
    for name, value in arrays.items():
        np.save(os.path.join(path, name + ".npy"), np.asarray(value))


def mlp(h, w1, b1, w2, b2):
    hidden = tf.raw_ops.Relu(features=tf.raw_ops.BiasAdd(
        value=tf.raw_ops.MatMul(a=h, b=w1), bias=b1))
    return tf.raw_ops.BiasAdd(value=tf.raw_ops.MatMul(a=hidden, b=w2), bias=b2)


def weights(rng, n_in, n_hidden, n_out):
    return {
        "w1": rng.normal(0, 0.5, (n_in, n_hidden)).astype(np.float32),
        "b1": rng.normal(0, 0.1, (n_hidden,)).astype(np.float32),
        "w2": rng.normal(0, 0.5, (n_hidden, n_out)).astype(np.float32),
        "b2": rng.normal(0, 0.1, (n_out,)).astype(np.float32),
    }


def dense_case(rng):
    arrays = weights(rng, 5, 8, 3)
    arrays["x"] = rng.normal(0, 1, (4, 5)).astype(np.float32)
    arrays["labels"] = np.eye(3, dtype=np.float32)[[0, 2, 1, 2]]
    names = ["x", "w1", "b1", "w2", "b2"]
    tensors = {k: tf.constant(v) for k, v in arrays.items()}
    with tf.GradientTape() as tape:
        for n in names:
            tape.watch(tensors[n])
        logits = mlp(tensors["x"], tensors["w1"], tensors["b1"],
                     tensors["w2"], tensors["b2"])
        loss, _ = tf.raw_ops.SoftmaxCrossEntropyWithLogits(
            features=logits, labels=tensors["labels"])
        mean = tf.raw_ops.Mean(input=loss, axis=tf.constant([0]))
    grads = tape.gradient(mean, [tensors[n] for n in names])
    arrays["loss"] = mean.numpy()
    for n, g in zip(names, grads):
        arrays["grad_" + n] = tf.convert_to_tensor(g).numpy()
    write("dense", arrays)


def embedding_case(rng):
    arrays = weights(rng, 6, 8, 3)
    arrays["embedding"] = rng.normal(0, 1, (5, 3)).astype(np.float32)
    arrays["ids"] = np.array([[0, 3], [3, 4], [1, 1], [4, 0]], dtype=np.int32)
    arrays["labels"] = np.array([2, 0, 1, 2], dtype=np.int32)
    names = ["embedding", "w1", "b1", "w2", "b2"]
    tensors = {k: tf.constant(v) for k, v in arrays.items()}
    with tf.GradientTape() as tape:
        for n in names:
            tape.watch(tensors[n])
        looked_up = tf.raw_ops.GatherV2(params=tensors["embedding"],
                                        indices=tensors["ids"],
                                        axis=tf.constant(0))
        h = tf.raw_ops.Reshape(tensor=looked_up, shape=tf.constant([4, 6]))
        logits = mlp(h, tensors["w1"], tensors["b1"], tensors["w2"],
                     tensors["b2"])
        loss, _ = tf.raw_ops.SparseSoftmaxCrossEntropyWithLogits(
            features=logits, labels=tensors["labels"])
        mean = tf.raw_ops.Mean(input=loss, axis=tf.constant([0]))
    grads = tape.gradient(mean, [tensors[n] for n in names])
    arrays["loss"] = mean.numpy()
    for n, g in zip(names, grads):
        # The embedding's gradient is IndexedSlices; densify it.
        arrays["grad_" + n] = tf.convert_to_tensor(g).numpy()
    write("embedding", arrays)


def i32(v):
    return tf.constant(v, dtype=tf.int32)


def max_pool_2x2(x):
    return tf.raw_ops.MaxPool(input=x, ksize=[1, 2, 2, 1],
                              strides=[1, 2, 2, 1], padding="VALID")


def max_pool_3x3_same(x):
    return tf.raw_ops.MaxPool(input=x, ksize=[1, 3, 3, 1],
                              strides=[1, 2, 2, 1], padding="SAME")


# name -> (input shapes, a function of the inputs, (lo, hi) of the inputs).
# Keep in step with the table in tests/builder/op_golden_test.cc.
OP_CASES = {
    "einsum_matmul": ([(2, 3), (3, 4)],
                      lambda a, b: tf.raw_ops.Einsum(inputs=[a, b],
                                                     equation="ij,jk->ik")),
    "einsum_batch_broadcast": (
        [(2, 1, 2, 3), (3, 3, 2)],
        lambda a, b: tf.raw_ops.Einsum(inputs=[a, b],
                                       equation="...ij,...jk->...ik")),
    "einsum_summed_label": (
        [(2, 3), (3, 4)],
        lambda a, b: tf.raw_ops.Einsum(inputs=[a, b], equation="ij,jk->i")),
    "einsum_transpose": ([(2, 3)],
                         lambda a: tf.raw_ops.Einsum(inputs=[a],
                                                     equation="ij->ji")),
    "cumsum_exclusive_reverse": (
        [(3, 4)],
        lambda x: tf.raw_ops.Cumsum(x=x, axis=i32(1), exclusive=True,
                                    reverse=True)),
    "cumprod_exclusive": (
        [(3, 4)],
        lambda x: tf.raw_ops.Cumprod(x=x, axis=i32(0), exclusive=True),
        (0.5, 1.5)),
    "prod_axes_0_2": ([(2, 3, 2)],
                      lambda x: tf.raw_ops.Prod(input=x, axis=i32([0, 2])),
                      (0.5, 1.5)),
    "euclidean_norm_axis_1": (
        [(3, 4)],
        lambda x: tf.raw_ops.EuclideanNorm(input=x, axis=i32([1]),
                                           keep_dims=True)),
    "top_k": ([(3, 5)],
              lambda x: tf.raw_ops.TopKV2(input=x, k=i32(2)).values),
    "depthwise_conv2d": (
        [(1, 5, 5, 2), (3, 3, 2, 2)],
        lambda x, f: tf.raw_ops.DepthwiseConv2dNative(
            input=x, filter=f, strides=[1, 2, 2, 1], padding="SAME")),
    "conv2d_backprop_input": (
        [(3, 3, 2, 3), (1, 3, 3, 3)],
        lambda f, dy: tf.raw_ops.Conv2DBackpropInput(
            input_sizes=i32([1, 5, 5, 2]), filter=f, out_backprop=dy,
            strides=[1, 2, 2, 1], padding="SAME")),
    "mirror_pad_reflect": (
        [(3, 4)],
        lambda x: tf.raw_ops.MirrorPad(input=x, paddings=i32([[1, 2], [2, 1]]),
                                       mode="REFLECT")),
    "segment_mean": (
        [(5, 3)],
        lambda x: tf.raw_ops.SegmentMean(data=x,
                                         segment_ids=i32([0, 0, 1, 3, 3]))),
    "unsorted_segment_max": (
        [(5, 3)],
        lambda x: tf.raw_ops.UnsortedSegmentMax(
            data=x, segment_ids=i32([2, 0, -1, 2, 0]), num_segments=i32(4))),
    "unsorted_segment_prod": (
        [(5, 3)],
        lambda x: tf.raw_ops.UnsortedSegmentProd(
            data=x, segment_ids=i32([2, 0, -1, 2, 0]), num_segments=i32(4))),
    "gather_nd": ([(3, 4)],
                  lambda x: tf.raw_ops.GatherNd(
                      params=x, indices=i32([[0, 1], [2, 3], [0, 1]]))),
    "tensor_scatter_update": (
        [(3, 2), (2,)],
        lambda t, u: tf.raw_ops.TensorScatterUpdate(
            tensor=t, indices=i32([[0, 1], [2, 0]]), updates=u)),
    "reverse_v2": ([(2, 3, 2)],
                   lambda x: tf.raw_ops.ReverseV2(tensor=x, axis=i32([0, -1]))),
    "atan2": ([(2, 3), (3,)], lambda y, x: tf.raw_ops.Atan2(y=y, x=x)),
    "xlogy": ([(2, 3), (2, 3)], lambda x, y: tf.raw_ops.Xlogy(x=x, y=y),
              (0.5, 2.0)),
    "erf": ([(2, 3)], lambda x: tf.raw_ops.Erf(x=x)),
    "clip_by_value": (
        [(2, 3)],
        lambda t: tf.raw_ops.ClipByValue(t=t, clip_value_min=-0.4,
                                         clip_value_max=tf.constant(0.5))),
    # Second derivatives of max pooling: MaxPoolGrad's gradient is
    # MaxPoolGradGrad (zeros for the pooled input), and the reverse.
    "max_pool_grad": (
        [(1, 4, 4, 2), (1, 2, 2, 2)],
        lambda x, g: tf.raw_ops.MaxPoolGrad(
            orig_input=x, orig_output=max_pool_2x2(x), grad=g,
            ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID")),
    "max_pool_grad_grad": (
        [(1, 5, 5, 2), (1, 5, 5, 2)],
        lambda x, g: tf.raw_ops.MaxPoolGradGrad(
            orig_input=x, orig_output=max_pool_3x3_same(x), grad=g,
            ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1], padding="SAME")),
    # Inverse hyperbolic functions, inside their domains (tf.gradients of the
    # plain ops: TensorFlow's function gradients, which SymbolicGradient
    # uses, give the reciprocal for Asinh and Acosh; gen_seedfor.py).
    "asinh": ([(3, 4)], lambda x: tf.raw_ops.Asinh(x=x), (-3.0, 3.0)),
    "acosh": ([(3, 4)], lambda x: tf.raw_ops.Acosh(x=x), (1.1, 4.0)),
    "atanh": ([(3, 4)], lambda x: tf.raw_ops.Atanh(x=x), (-0.9, 0.9)),
}


def op_cases(rng):
    for name, spec in OP_CASES.items():
        shapes, fn = spec[0], spec[1]
        lo, hi = spec[2] if len(spec) > 2 else (-1.0, 1.0)
        xs = [rng.uniform(lo, hi, s).astype(np.float32) for s in shapes]
        if name == "unsorted_segment_prod":
            xs[0][1, 0] = 0.0  # one zero in a segment, and two below
            xs[0][0, 2] = 0.0
            xs[0][3, 2] = 0.0

        @tf.function
        def grads(*args):
            y = fn(*args[:-1])
            return y, tf.gradients(y, list(args[:-1]), grad_ys=args[-1])

        y = fn(*[tf.constant(x) for x in xs])
        dy = rng.uniform(-1, 1, y.shape).astype(np.float32)
        _, gs = grads(*[tf.constant(x) for x in xs], tf.constant(dy))
        arrays = {"dy": dy}
        for i, (x, g) in enumerate(zip(xs, gs)):
            arrays["x%d" % i] = x
            arrays["grad_x%d" % i] = g.numpy()
        path = os.path.join(OP_OUT, name)
        os.makedirs(path, exist_ok=True)
        for k, v in arrays.items():
            np.save(os.path.join(path, k + ".npy"), np.asarray(v))


def counted_loop(n, variables, step):
    """for i in range(n): variables = step(i, variables), as a v1 loop."""
    outs = tf1.while_loop(lambda i, *v: i < n,
                          lambda i, *v: [i + 1] + list(step(i, list(v))),
                          [tf.constant(0)] + list(variables))
    return list(outs[1:])


def rnn_step(i, seq, wx, wh, b, h):
    x_t = tf.gather(seq, i)
    return [tf.tanh(tf.matmul(x_t, wx) + tf.matmul(h[0], wh) + b)]


def tensor_array_loop(h0, w):
    """h = tanh(h * w) three times, each h written to a TensorArray, which
    is stacked after the loop (TensorArrayV3 with control flow v1)."""
    ta = tf.TensorArray(tf.float32, size=3)

    def body(i, h, ta):
        h = tf.tanh(h * w)
        return i + 1, h, ta.write(i, h)

    _, _, ta = tf1.while_loop(lambda i, h, ta: i < 3, body,
                              [tf.constant(0), h0, ta])
    return [ta.stack()]


# name -> (input shapes, a function of the inputs giving the loop outputs).
# Keep in step with WhileCases() in tests/builder/while_grad_test.cc.
WHILE_CASES = {
    "while_square": ([(3,), (3,)], lambda v0, w: counted_loop(
        3, [v0], lambda i, v: [v[0] * v[0] * 0.5 + w])),
    "while_matmul_tanh": ([(2, 3), (3, 3)], lambda h0, w: counted_loop(
        4, [h0], lambda i, h: [tf.tanh(tf.matmul(h[0], w))])),
    "while_rnn": ([(4, 2, 3), (3, 4), (4, 4), (4,), (2, 4)],
                  lambda seq, wx, wh, b, h0: counted_loop(
                      4, [h0], lambda i, h: rnn_step(i, seq, wx, wh, b, h))),
    "while_two_vars": ([(3,), (3,)], lambda a0, c0: counted_loop(
        3, [a0, c0], lambda i, v: [v[0] * v[1], tf.sin(v[0]) + v[1]])),
    # Compared in tests/builder/data_flow_grad_test.cc.
    "while_tensor_array": ([(2,), (2,)], tensor_array_loop),
}


def while_cases(rng):
    saved = control_flow_util.ENABLE_CONTROL_FLOW_V2
    control_flow_util.ENABLE_CONTROL_FLOW_V2 = False
    try:
        for name, (shapes, fn) in WHILE_CASES.items():
            xs = [rng.uniform(-1, 1, s).astype(np.float32) for s in shapes]
            graph = tf.Graph()
            with graph.as_default():
                phs = [tf1.placeholder(tf.float32, x.shape) for x in xs]
                ys = fn(*phs)
                dys = [tf1.placeholder(tf.float32) for _ in ys]
                grads = tf.gradients(ys, phs, grad_ys=dys)
                # IndexedSlices (a gather's gradient) densified.
                grads = [tf.convert_to_tensor(g) for g in grads]
                op_types = {op.type for op in graph.get_operations()}
                assert {"Enter", "Exit", "StackPushV2"} <= op_types, (
                    name, "not built as control flow v1")
                if name == "while_tensor_array":
                    assert "TensorArrayGradV3" in op_types, op_types
                with tf1.Session(graph=graph) as sess:
                    feed = dict(zip(phs, xs))
                    y_values = sess.run(ys, feed)
                    dy_values = [rng.uniform(-1, 1, y.shape).astype(np.float32)
                                 for y in y_values]
                    feed.update(zip(dys, dy_values))
                    g_values = sess.run(grads, feed)
            path = os.path.join(WHILE_OUT, name)
            os.makedirs(path, exist_ok=True)
            arrays = {}
            for i, (x, g) in enumerate(zip(xs, g_values)):
                arrays["x%d" % i] = x
                arrays["grad_x%d" % i] = g
            for j, dy in enumerate(dy_values):
                arrays["dy%d" % j] = dy
            for k, v in arrays.items():
                np.save(os.path.join(path, k + ".npy"),
                        np.asarray(v, dtype=np.float32))
    finally:
        control_flow_util.ENABLE_CONTROL_FLOW_V2 = saved


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    shutil.rmtree(OP_OUT, ignore_errors=True)
    shutil.rmtree(WHILE_OUT, ignore_errors=True)
    rng = np.random.default_rng(20240521)
    dense_case(rng)
    embedding_case(rng)
    op_cases(np.random.default_rng(20261203))
    while_cases(np.random.default_rng(20261204))
    print("wrote", os.path.normpath(OUT), ",", os.path.normpath(OP_OUT),
          "and", os.path.normpath(WHILE_OUT))


if __name__ == "__main__":
    main()

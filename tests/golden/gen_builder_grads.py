#!/usr/bin/env python3
"""Writes TensorFlow's gradients of two small MLPs for tests/builder/.

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

The data lives beside the test rather than under tests/golden/data/, whose
folders golden_test.cc runs as golden families.

Run with the TensorFlow virtualenv:  $(tools/tf_env) tests/golden/gen_builder_grads.py
"""

import os
import shutil

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                   "builder", "data", "mlp_grads")


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


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    rng = np.random.default_rng(20240521)
    dense_case(rng)
    embedding_case(rng)
    print("wrote", os.path.normpath(OUT))


if __name__ == "__main__":
    main()

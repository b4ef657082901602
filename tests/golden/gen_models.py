"""Golden whole models: Keras models frozen with
convert_variables_to_constants_v2, as a user exports them for serving, and
tf.compat.v1 graphs of the same kinds. Family "models".

    $(tools/tf_env) tests/golden/gen_models.py
"""

import os

os.environ["DFX_GOLDEN_EAGER"] = "1"

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from tensorflow.python.framework.convert_to_constants import (  # noqa: E402
    convert_variables_to_constants_v2)

import golden_lib  # noqa: E402

keras = tf.keras
FAMILY = "models"


def freeze(model, input_specs):
    """(frozen GraphDef, input tensor names, output tensor names)."""
    fn = tf.function(lambda *xs: model(list(xs) if len(xs) > 1 else xs[0],
                                       training=False))
    concrete = fn.get_concrete_function(*input_specs)
    frozen = convert_variables_to_constants_v2(concrete)
    graph_def = frozen.graph.as_graph_def()
    inputs = [t.name for t in frozen.inputs]
    outputs = [t.name for t in frozen.outputs]
    return graph_def, inputs, outputs


def keras_case(name, model, inputs, rtol=None, atol=None, note=""):
    specs = [tf.TensorSpec(x.shape, tf.as_dtype(x.dtype)) for x in inputs]
    graph_def, in_names, out_names = freeze(model, specs)
    ops = sorted({n.op for n in graph_def.node})
    golden_lib.case_graph_def(
        FAMILY, name, graph_def, dict(zip(in_names, inputs)), out_names,
        rtol=rtol, atol=atol, note=note + " ops: " + ", ".join(ops))


def set_seeds():
    keras.utils.set_random_seed(7)


def small_cnn():
    set_seeds()
    model = keras.Sequential([
        keras.Input((16, 16, 3)),
        keras.layers.Conv2D(8, 3, padding="same", activation="relu"),
        keras.layers.BatchNormalization(),
        keras.layers.MaxPooling2D(2),
        keras.layers.Conv2D(16, 3, strides=2, padding="valid",
                            activation="elu"),
        keras.layers.DepthwiseConv2D(3, padding="same"),
        keras.layers.SeparableConv2D(8, 3, padding="same",
                                     activation="swish"),
        keras.layers.AveragePooling2D(2, padding="same"),
        keras.layers.GlobalAveragePooling2D(),
        keras.layers.Dropout(0.5),
        keras.layers.Dense(10, activation="softmax"),
    ])
    # Make BatchNormalization's moving statistics non-trivial.
    bn = model.layers[1]
    rng = golden_lib.rng(1)
    bn.moving_mean.assign(rng.normal(size=8).astype(np.float32) * 0.1)
    bn.moving_variance.assign(rng.uniform(0.5, 1.5, size=8).astype(np.float32))
    x = rng.normal(size=(2, 16, 16, 3)).astype(np.float32)
    # Convolutions sum in another order than TensorFlow's.
    keras_case("keras_small_cnn", model, [x], rtol=1e-4, atol=1e-5)


def conv1d_transpose_model():
    set_seeds()
    inp = keras.Input((12, 4))
    h = keras.layers.Conv1D(6, 3, padding="causal", activation="gelu")(inp)
    h = keras.layers.Reshape((12, 1, 6))(h)
    h = keras.layers.Conv2DTranspose(4, (3, 1), strides=(2, 1),
                                     padding="same")(h)
    h = keras.layers.Flatten()(h)
    out = keras.layers.Dense(3, activation="log_softmax")(h)
    model = keras.Model(inp, out)
    x = golden_lib.rng(2).normal(size=(3, 12, 4)).astype(np.float32)
    keras_case("keras_conv1d_transpose", model, [x], rtol=1e-4, atol=1e-5)


def transformer_block():
    set_seeds()
    seq, dim, heads = 6, 16, 2
    inp = keras.Input((seq, dim))
    attn = keras.layers.MultiHeadAttention(num_heads=heads, key_dim=dim // 2)
    h = attn(inp, inp)
    h = keras.layers.Add()([inp, h])
    h = keras.layers.LayerNormalization(epsilon=1e-6)(h)
    ff = keras.layers.Dense(32, activation="gelu")(h)
    ff = keras.layers.Dense(dim)(ff)
    h = keras.layers.LayerNormalization(epsilon=1e-6)(
        keras.layers.Add()([h, ff]))
    out = keras.layers.Dense(4, activation="softmax")(
        keras.layers.GlobalAveragePooling1D()(h))
    model = keras.Model(inp, out)
    x = golden_lib.rng(3).normal(size=(2, seq, dim)).astype(np.float32)
    keras_case("keras_transformer_block", model, [x], rtol=1e-4, atol=1e-5)


def recommender():
    set_seeds()
    users = keras.Input((1,), dtype="int32")
    items = keras.Input((3,), dtype="int32")
    u = keras.layers.Flatten()(keras.layers.Embedding(20, 8)(users))
    i = keras.layers.Embedding(30, 8)(items)
    i = keras.layers.GlobalAveragePooling1D()(i)
    h = keras.layers.Concatenate()([u, i, keras.layers.Multiply()([u, i])])
    h = keras.layers.Dense(16, activation="relu")(h)
    h = keras.layers.Dense(8, activation="selu")(h)
    out = keras.layers.Dense(1, activation="sigmoid")(h)
    model = keras.Model([users, items], out)
    rng = golden_lib.rng(4)
    u_ids = rng.integers(0, 20, size=(5, 1)).astype(np.int32)
    i_ids = rng.integers(0, 30, size=(5, 3)).astype(np.int32)
    keras_case("keras_embedding_recommender", model, [u_ids, i_ids],
               rtol=1e-5, atol=1e-6)


def activations_mlp():
    set_seeds()
    inp = keras.Input((6,))
    h = inp
    for act in ["relu6", "elu", "selu", "softplus", "softsign", "tanh",
                "sigmoid", "hard_sigmoid", "silu", "leaky_relu"]:
        h = keras.layers.Dense(6, activation=act)(h)
    h = keras.layers.Dense(6, activation=keras.activations.gelu)(h)
    h = keras.layers.Dense(
        6, activation=lambda t: keras.activations.gelu(t, approximate=True))(h)
    out = keras.layers.Dense(4, activation="softmax")(h)
    model = keras.Model(inp, out)
    x = golden_lib.rng(5).normal(size=(4, 6)).astype(np.float32)
    keras_case("keras_activations_mlp", model, [x], rtol=1e-5, atol=1e-6)


def v1_mlp_classifier():
    """A tf.compat.v1 graph as older code writes it: placeholders, constant
    weights, argmax, one_hot, cross-entropy, accuracy."""
    tf1 = tf.compat.v1

    def build():
        rng = golden_lib.rng(6)
        x, xv = golden_lib.placeholder(
            rng.normal(size=(8, 5)).astype(np.float32), name="x",
            shape=(None, 5))
        y, yv = golden_lib.placeholder(
            rng.integers(0, 3, size=(8,)).astype(np.int64), name="labels",
            shape=(None,))
        w1 = tf.constant(rng.normal(size=(5, 7)).astype(np.float32))
        b1 = tf.constant(rng.normal(size=(7,)).astype(np.float32))
        w2 = tf.constant(rng.normal(size=(7, 3)).astype(np.float32))
        h = tf.nn.relu(tf1.nn.xw_plus_b(x, w1, b1))
        logits = tf.matmul(h, w2)
        probs = tf.nn.softmax(logits)
        pred = tf.argmax(logits, axis=1)
        acc = tf.reduce_mean(tf.cast(tf.equal(pred, y), tf.float32))
        loss = tf.reduce_mean(
            tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y,
                                                           logits=logits))
        onehot_loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(
            labels=tf.one_hot(y, 3), logits=logits))
        top2 = tf.math.top_k(probs, k=2).indices
        return [probs, pred, acc, loss, onehot_loss, top2], {x: xv, y: yv}

    golden_lib.case(FAMILY, "v1_mlp_classifier", build, rtol=1e-5, atol=1e-6)


def v1_check_ops():
    """StopGradient, PreventGradient, Snapshot, EnsureShape and CheckNumerics:
    pass-through ops that exported graphs carry, and their run-time errors."""
    tf1 = tf.compat.v1
    from tensorflow.python.ops import array_ops as tf_array_ops

    def passing():
        x, xv = golden_lib.placeholder(np.arange(6, dtype=np.float32)
                                       .reshape(2, 3), name="x",
                                       shape=(None, 3))
        y = tf.stop_gradient(x) + tf_array_ops.prevent_gradient(x)
        y = tf.raw_ops.Snapshot(input=y)
        y = tf.ensure_shape(y, (2, None))
        y = tf.debugging.check_numerics(y, "y is bad")
        return [y], {x: xv}

    def ensure_shape_error():
        x, xv = golden_lib.placeholder(np.zeros((2, 3), np.float32), name="x",
                                       shape=(None, 3))
        return [tf.ensure_shape(x, (4, 3))], {x: xv}

    def check_numerics_error():
        x, xv = golden_lib.placeholder(
            np.array([1.0, np.inf, np.nan], np.float32), name="x")
        return [tf.debugging.check_numerics(x * 2, "doubled")], {x: xv}

    golden_lib.case(FAMILY, "v1_passthrough_ops", passing)
    golden_lib.case(FAMILY, "v1_ensure_shape_error", ensure_shape_error)
    golden_lib.case(FAMILY, "v1_check_numerics_error", check_numerics_error)
    del tf1


def main():
    for fn in [small_cnn, conv1d_transpose_model, transformer_block,
               recommender, activations_mlp, v1_mlp_classifier, v1_check_ops]:
        fn()


if __name__ == "__main__":
    main()

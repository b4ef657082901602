#!/usr/bin/env python3
"""Training graphs built by tf.compat.v1, and TensorFlow's loss at each step.

Each case is a whole training loop: a GraphDef with variables (resource or
reference), seeded random initializers, a loss and an optimizer's train op.
TensorFlow 2.21 runs the initializer once and then `steps` training steps,
recording the loss each step computes (before its update) and the
variables' initial values. tests/golden/train_graphs_test.cc runs the same
GraphDef in a dfx local session and must match: initial values bit for bit
(TensorFlow's Philox streams), losses to a relative 1e-5.

    tests/golden/data/train_graphs/<case>/
        graph.pb       the GraphDef, binary
        case.json      init op, train op, loss tensor, steps, variables
        losses.npy     float32[steps]
        init_<i>.npy   initial value of variable i (case.json order)

Run with the TensorFlow virtualenv: $(tools/tf_env) tests/golden/gen_train_graphs.py
"""

import json
import os
import shutil
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

tf1 = tf.compat.v1
tf1.disable_eager_execution()

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from golden_lib import _session_config  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data",
                   "train_graphs")
STEPS = 20


def dataset(n=64, features=8, classes=4, vocab=20, seed=0):
    """A small deterministic classification set (labels from a linear rule)."""
    r = np.random.default_rng(seed)
    x = r.normal(size=(n, features)).astype(np.float32)
    ids = r.integers(0, vocab, size=(n,)).astype(np.int32)
    w = r.normal(size=(features, classes)).astype(np.float32)
    y = (x @ w + (ids % classes == np.arange(classes)[:, None]).T * 2.0
         ).argmax(axis=1).astype(np.int32)
    return x, ids, y


def mlp_loss(use_resource, embedding=False, hidden=16, seed=1):
    x_val, ids_val, y_val = dataset()
    x = tf.constant(x_val, name="x")
    y = tf.constant(y_val, name="y")
    init = tf1.glorot_uniform_initializer(seed=seed)
    with tf1.variable_scope("model", use_resource=use_resource):
        inputs = x
        if embedding:
            table = tf1.get_variable(
                "embedding", [20, 4],
                initializer=tf1.random_normal_initializer(stddev=0.5,
                                                          seed=seed + 1))
            emb = tf.nn.embedding_lookup(table, tf.constant(ids_val))
            inputs = tf.concat([x, emb], axis=1)
        w1 = tf1.get_variable("w1", [inputs.shape[1], hidden],
                              initializer=init)
        b1 = tf1.get_variable("b1", [hidden],
                              initializer=tf1.zeros_initializer())
        w2 = tf1.get_variable(
            "w2", [hidden, 4],
            initializer=tf1.truncated_normal_initializer(stddev=0.3,
                                                         seed=seed + 2))
        b2 = tf1.get_variable("b2", [4],
                              initializer=tf1.random_uniform_initializer(
                                  -0.1, 0.1, seed=seed + 3))
    h = tf.nn.relu(tf.nn.bias_add(tf.matmul(inputs, w1), b1))
    logits = tf.matmul(h, w2) + b2
    loss = tf.reduce_mean(
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y,
                                                       logits=logits),
        name="loss")
    return loss


def write_case(name, build, steps=STEPS, note=""):
    graph = tf.Graph()
    with graph.as_default():
        tf1.set_random_seed(1234)
        loss, train_op = build()
        init_op = tf1.global_variables_initializer()
        variables = tf1.global_variables()
        # Resource variables are fetched through read ops, made before the
        # GraphDef is taken so that it has them.
        reads = [v.value() for v in variables]
        graph_def = graph.as_graph_def()
        with tf1.Session(graph=graph, config=_session_config()) as sess:
            sess.run(init_op)
            initial = sess.run(reads)
            losses = []
            for _ in range(steps):
                value, _ = sess.run([loss, train_op])
                losses.append(value)
        var_reads = [t.name for t in reads]
    out_dir = os.path.join(OUT, name)
    os.makedirs(out_dir)
    with open(os.path.join(out_dir, "graph.pb"), "wb") as f:
        f.write(graph_def.SerializeToString())
    np.save(os.path.join(out_dir, "losses.npy"),
            np.asarray(losses, dtype=np.float32))
    spec = {"name": name, "note": note, "init": init_op.name,
            "train": train_op.name, "loss": loss.name, "steps": steps,
            "variables": []}
    for i, (read, value) in enumerate(zip(var_reads, initial)):
        fname = f"init_{i}.npy"
        np.save(os.path.join(out_dir, fname), np.asarray(value))
        spec["variables"].append({"read": read, "file": fname})
    ops = sorted({n.op for n in graph_def.node})
    spec["ops"] = ops
    with open(os.path.join(out_dir, "case.json"), "w") as f:
        json.dump(spec, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"train_graphs/{name}: loss {losses[0]:.4f} -> {losses[-1]:.4f}",
          file=sys.stderr)


def optimizer_case(name, use_resource, make_opt, embedding=False):
    def build():
        loss = mlp_loss(use_resource, embedding=embedding)
        step = tf1.train.get_or_create_global_step()
        return loss, make_opt().minimize(loss, global_step=step)
    write_case(name, build)


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    opts = {
        "sgd": lambda: tf1.train.GradientDescentOptimizer(0.5),
        "momentum": lambda: tf1.train.MomentumOptimizer(0.1, 0.9),
        "nesterov": lambda: tf1.train.MomentumOptimizer(
            0.1, 0.9, use_nesterov=True),
        "adam": lambda: tf1.train.AdamOptimizer(0.01),
        "adagrad": lambda: tf1.train.AdagradOptimizer(0.3),
        "rmsprop": lambda: tf1.train.RMSPropOptimizer(0.01, momentum=0.5),
        "centered_rmsprop": lambda: tf1.train.RMSPropOptimizer(
            0.01, centered=True),
    }
    for opt_name, make in opts.items():
        for use_resource in (True, False):
            kind = "resource" if use_resource else "ref"
            optimizer_case(f"{kind}_{opt_name}", use_resource, make)
    # Embeddings: sparse gradients (IndexedSlices) and the sparse apply ops.
    for opt_name in ("sgd", "momentum", "adagrad", "adam"):
        for use_resource in (True, False):
            kind = "resource" if use_resource else "ref"
            optimizer_case(f"{kind}_embedding_{opt_name}", use_resource,
                           opts[opt_name], embedding=True)


if __name__ == "__main__":
    main()

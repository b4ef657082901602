#!/usr/bin/env python3
"""Parameter-server training with an unchanged tf.compat.v1 program on dfx.

The program is ordinary TensorFlow 1.x-style code: variables placed on the
`ps` tasks by `tf.compat.v1.train.replica_device_setter`, one training loop
per `worker` task (between-graph replication, asynchronous updates), a
sharded `Saver`. Pointed at a dfx cluster it trains there; the checkpoint it
writes (on the servers, in TensorFlow's format) is then restored in plain,
local TensorFlow, which must compute the same accuracy.

    build/bin/dfx cluster up --workers 2 --ps 2 --dir /tmp/c
    $(tools/tf_env) examples/python/tf1_ps_train.py --cluster /tmp/c/cluster.json
    build/bin/dfx cluster down --dir /tmp/c

Exit status 0 when the final accuracy reaches --min-accuracy and the
checkpoint restores in TensorFlow with the same accuracy.
"""

import argparse
import json
import os
import sys
import tempfile
import threading

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

tf1 = tf.compat.v1
tf1.disable_eager_execution()

FEATURES, CLASSES, VOCAB, EMB = 16, 4, 50, 8


def dataset(n, seed):
    """Deterministic data: the class follows a fixed linear rule of the
    features plus the token id."""
    r = np.random.default_rng(seed)
    x = r.normal(size=(n, FEATURES)).astype(np.float32)
    ids = r.integers(0, VOCAB, size=(n,)).astype(np.int32)
    rule = np.random.default_rng(99).normal(size=(FEATURES, CLASSES))
    token_bias = np.random.default_rng(98).normal(size=(VOCAB, CLASSES)) * 2
    y = (x @ rule + token_bias[ids]).argmax(axis=1).astype(np.int32)
    return x, ids, y


def build_model(use_resource):
    """Placeholders, loss, accuracy; the model is an MLP over the features
    and an embedding of the token id."""
    x = tf1.placeholder(tf.float32, [None, FEATURES], name="x")
    ids = tf1.placeholder(tf.int32, [None], name="ids")
    y = tf1.placeholder(tf.int32, [None], name="y")
    with tf1.variable_scope("model", use_resource=use_resource):
        table = tf1.get_variable(
            "embedding", [VOCAB, EMB],
            initializer=tf1.random_normal_initializer(stddev=0.1, seed=1))
        w1 = tf1.get_variable("w1", [FEATURES + EMB, 32],
                              initializer=tf1.glorot_uniform_initializer(2))
        b1 = tf1.get_variable("b1", [32], initializer=tf1.zeros_initializer())
        w2 = tf1.get_variable("w2", [32, CLASSES],
                              initializer=tf1.glorot_uniform_initializer(3))
        b2 = tf1.get_variable("b2", [CLASSES],
                              initializer=tf1.zeros_initializer())
    h = tf.concat([x, tf.nn.embedding_lookup(table, ids)], axis=1)
    h = tf.nn.relu(tf.matmul(h, w1) + b1)
    logits = tf.matmul(h, w2) + b2
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=y, logits=logits), name="loss")
    correct = tf.equal(tf.argmax(logits, axis=1, output_type=tf.int32), y)
    accuracy = tf.reduce_mean(tf.cast(correct, tf.float32), name="accuracy")
    return x, ids, y, loss, accuracy


def worker_loop(task, target, num_ps, args, results):
    graph = tf.Graph()
    with graph.as_default():
        setter = tf1.train.replica_device_setter(
            ps_tasks=num_ps, worker_device=f"/job:worker/task:{task}")
        with tf1.device(setter):
            x, ids, y, loss, accuracy = build_model(not args.ref_variables)
            step = tf1.train.get_or_create_global_step()
            train = tf1.train.AdagradOptimizer(args.learning_rate).minimize(
                loss, global_step=step)
            init = tf1.global_variables_initializer()
            saver = tf1.train.Saver(sharded=True)
        tx, tids, ty = dataset(4096, seed=10 + task)
        ex, eids, ey = dataset(1024, seed=1)
        config = tf1.ConfigProto(operation_timeout_in_ms=60000)
        with tf1.Session(target, graph=graph, config=config) as sess:
            if task == 0:
                sess.run(init)
                results["initialized"].set()
            elif not results["initialized"].wait(60):
                raise RuntimeError("the chief never initialized the model")
            batch = args.batch_size
            for i in range(args.steps):
                lo = (i * batch) % len(tx)
                feed = {x: tx[lo:lo + batch], ids: tids[lo:lo + batch],
                        y: ty[lo:lo + batch]}
                value, _ = sess.run([loss, train], feed)
                if task == 0 and (i % args.log_every == 0 or
                                  i == args.steps - 1):
                    acc = sess.run(accuracy, {x: ex, ids: eids, y: ey})
                    print(f"worker {task} step {i:4d}  loss {value:.4f}  "
                          f"eval accuracy {acc:.3f}", flush=True)
            if task == 0:
                results["stop"].wait(120)  # the other workers finish first
                results["accuracy"] = float(
                    sess.run(accuracy, {x: ex, ids: eids, y: ey}))
                results["global_step"] = int(sess.run(step))
                results["checkpoint"] = saver.save(
                    sess, os.path.join(args.checkpoint_dir, "model.ckpt"),
                    global_step=step)


def restore_locally(checkpoint, ref_variables):
    """Plain TensorFlow, no cluster: restore and evaluate."""
    graph = tf.Graph()
    with graph.as_default():
        x, ids, y, _, accuracy = build_model(not ref_variables)
        tf1.train.get_or_create_global_step()
        saver = tf1.train.Saver()
        ex, eids, ey = dataset(1024, seed=1)
        with tf1.Session(graph=graph) as sess:
            saver.restore(sess, checkpoint)
            return float(sess.run(accuracy, {x: ex, ids: eids, y: ey}))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cluster", required=True,
                        help="cluster.json written by 'dfx cluster up'")
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--learning-rate", type=float, default=0.3)
    parser.add_argument("--log-every", type=int, default=50)
    parser.add_argument("--min-accuracy", type=float, default=0.8)
    parser.add_argument("--ref-variables", action="store_true",
                        help="reference variables (use_resource=False)")
    parser.add_argument("--checkpoint-dir", default="")
    args = parser.parse_args()

    with open(args.cluster) as f:
        cluster = json.load(f)
    workers = cluster["worker"]
    num_ps = len(cluster.get("ps", []))
    if num_ps == 0:
        print("the cluster needs ps tasks", file=sys.stderr)
        return 2
    if not args.checkpoint_dir:
        args.checkpoint_dir = tempfile.mkdtemp(prefix="dfx-ps-train-")

    results = {"initialized": threading.Event(), "stop": threading.Event()}
    errors = []

    def run(task):
        try:
            worker_loop(task, f"grpc://{workers[task]}", num_ps, args,
                        results)
        except Exception as e:  # reported below; the other loops stop too
            errors.append(f"worker {task}: {e}")
            results["initialized"].set()
            results["stop"].set()

    threads = [threading.Thread(target=run, args=(t,))
               for t in range(len(workers))]
    for t in threads:
        t.start()
    for t in threads[1:]:
        t.join()
    results["stop"].set()
    threads[0].join()
    if errors:
        print("\n".join(errors), file=sys.stderr)
        return 1

    restored = restore_locally(results["checkpoint"], args.ref_variables)
    print(f"trained {results['global_step']} steps on {len(workers)} "
          f"workers and {num_ps} ps tasks: accuracy {results['accuracy']:.3f}")
    print(f"checkpoint {results['checkpoint']} restored in TensorFlow: "
          f"accuracy {restored:.3f}")
    ok = (results["accuracy"] >= args.min_accuracy and
          abs(restored - results["accuracy"]) < 1e-6)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

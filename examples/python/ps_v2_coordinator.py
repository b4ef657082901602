#!/usr/bin/env python3
"""TensorFlow 2 parameter-server training on a dfx cluster, unchanged TF code.

tf.distribute.ParameterServerStrategy keeps the variables on the ps tasks;
tf.distribute.coordinator.ClusterCoordinator, in this process (the chief),
schedules a tf.function step on whichever worker is free. Each step runs on
its worker through dfx's eager service, reading and updating the ps tasks'
variables across tasks.

    dfx cluster up --workers 2 --ps 2 --dir /tmp/c
    $(tools/tf_env) examples/python/ps_v2_coordinator.py --cluster /tmp/c/cluster.json
    dfx cluster down --dir /tmp/c

Three parts, each checked; exits 1 when a check fails:

1. A linear regression, y = x·w + b, trained with plain gradient descent:
   first --exact-steps steps one at a time (each joined before the next),
   whose variables must equal a NumPy computation of the same updates; then
   --async-steps steps scheduled all at once (the workers update the
   variables as they come, as asynchronous PS training does), after which
   the loss must be below --max-loss.
2. A per-worker dataset, as TensorFlow's tutorial builds it
   (coordinator.create_per_worker_dataset over
   strategy.distribute_datasets_from_function): the batches the workers'
   iterators yield must be TensorFlow's own, in TensorFlow's order (each
   worker's batches a prefix of what the same pipeline gives in this
   process).
3. The tutorial's training loop on such a dataset: a logistic-regression
   classifier trained by --train-steps closures from its shuffled, batched,
   repeated input; its accuracy on held-out data must reach
   --min-accuracy. The accuracy is printed as "accuracy: 0.9xx" (the
   interop test runs this same program against TensorFlow's servers and
   compares).
"""

import argparse
import json
import os
import socket
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

FEATURES = 4
BATCH = 16
LEARNING_RATE = 0.1


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def batches(count, seed=7):
    """`count` (x, y) batches of a fixed linear model plus a little noise."""
    rng = np.random.default_rng(seed)
    w_true = np.array([[2.0], [-1.0], [0.5], [3.0]], np.float32)
    b_true = np.array([0.25], np.float32)
    out = []
    for _ in range(count):
        x = rng.standard_normal((BATCH, FEATURES)).astype(np.float32)
        noise = 0.01 * rng.standard_normal((BATCH, 1)).astype(np.float32)
        out.append((x, x @ w_true + b_true + noise))
    return out


def numpy_steps(data, w, b):
    """The updates the step makes, in NumPy: mean squared error, SGD."""
    for x, y in data:
        err = x @ w + b - y
        grad_w = 2.0 / BATCH * x.T @ err
        grad_b = 2.0 / BATCH * err.sum(axis=0)
        w = w - LEARNING_RATE * grad_w
        b = b - LEARNING_RATE * grad_b
    return w, b


# --- Per-worker datasets, as TensorFlow's ParameterServerStrategy tutorial
# builds them.

GLOBAL_BATCH = 32


def classification_data(n, seed):
    """n labelled points of a linear boundary with 3% of labels flipped."""
    rng = np.random.default_rng(seed)
    w_true = np.array([[1.5], [-2.0], [0.75], [1.0]], np.float32)
    x = rng.standard_normal((n, FEATURES)).astype(np.float32)
    y = (x @ w_true + 0.3 > 0).astype(np.float32)
    flip = rng.random((n, 1)) < 0.03
    return x, np.where(flip, 1.0 - y, y).astype(np.float32)


def make_dataset_fn(x, y, shuffle_seed):
    def dataset_fn(input_context):
        batch = input_context.get_per_replica_batch_size(GLOBAL_BATCH)
        ds = tf.data.Dataset.from_tensor_slices((x, y))
        ds = ds.shard(input_context.num_input_pipelines,
                      input_context.input_pipeline_id)
        ds = ds.shuffle(256, seed=shuffle_seed).repeat()
        return ds.batch(batch).prefetch(2)
    return dataset_fn


def per_worker_dataset_order(strategy, coordinator, num_workers, failures,
                             steps=12):
    """The workers' batches are TensorFlow's, in TensorFlow's order."""
    x, y = classification_data(200, seed=3)
    ids = np.arange(200, dtype=np.float32).reshape(200, 1)
    dataset_fn = make_dataset_fn(x, ids, shuffle_seed=5)

    @tf.function
    def per_worker_dataset_fn():
        return strategy.distribute_datasets_from_function(dataset_fn)

    iterator = iter(coordinator.create_per_worker_dataset(
        per_worker_dataset_fn))

    @tf.function
    def batch_ids(iterator):
        def replica_fn(batch):
            _, row_ids = batch
            return row_ids
        return strategy.run(replica_fn, args=(next(iterator),))

    got = []
    for _ in range(steps):
        result = coordinator.schedule(batch_ids, args=(iterator,))
        coordinator.join()
        got.append(tuple(int(v) for v in result.fetch().ravel()))
    # The same pipeline in this process, as one worker sees it.
    local = dataset_fn(tf.distribute.InputContext())
    want = [tuple(int(v) for v in b.numpy().ravel())
            for _, b in local.take(steps)]
    # Each worker's batches are a prefix of `want`: batch k is yielded at
    # most once per worker, and no more often than batch k-1.
    counts = [got.count(b) for b in want]
    ok = (sum(counts) == len(got) and max(counts) <= num_workers and
          all(counts[k] <= counts[k - 1] for k in range(1, len(counts))))
    print(f"per-worker dataset: {len(got)} batches, each a batch of "
          f"TensorFlow's own sequence in order: {ok}")
    if not ok:
        failures.append(f"per-worker batches {got[:4]}... are not prefixes "
                        f"of TensorFlow's sequence {want[:4]}...")


def tutorial_training(strategy, coordinator, steps):
    """Logistic regression trained by closures fed from per-worker
    datasets; returns the accuracy on held-out data."""
    x, y = classification_data(2048, seed=1)
    x_test, y_test = classification_data(1024, seed=2)

    @tf.function
    def per_worker_dataset_fn():
        return strategy.distribute_datasets_from_function(
            make_dataset_fn(x, y, shuffle_seed=None))

    iterator = iter(coordinator.create_per_worker_dataset(
        per_worker_dataset_fn))
    with strategy.scope():
        w = tf.Variable(tf.zeros((FEATURES, 1)), name="classifier_w")
        b = tf.Variable(tf.zeros((1,)), name="classifier_b")

    @tf.function
    def train_step(iterator):
        def replica_fn(batch):
            features, labels = batch
            with tf.GradientTape() as tape:
                logits = tf.matmul(features, w) + b
                loss = tf.reduce_mean(
                    tf.nn.sigmoid_cross_entropy_with_logits(
                        labels=labels, logits=logits))
            grad_w, grad_b = tape.gradient(loss, [w, b])
            w.assign_sub(0.5 * grad_w)
            b.assign_sub(0.5 * grad_b)
            return loss
        return strategy.run(replica_fn, args=(next(iterator),))

    for _ in range(steps):
        coordinator.schedule(train_step, args=(iterator,))
    coordinator.join()
    predicted = (x_test @ w.numpy() + b.numpy() > 0).astype(np.float32)
    return float((predicted == y_test).mean())


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--cluster", required=True,
                   help="cluster.json of `dfx cluster up` (worker and ps)")
    p.add_argument("--exact-steps", type=int, default=5)
    p.add_argument("--async-steps", type=int, default=60)
    p.add_argument("--max-loss", type=float, default=0.01)
    p.add_argument("--train-steps", type=int, default=200)
    p.add_argument("--min-accuracy", type=float, default=0.93)
    args = p.parse_args()

    spec = json.load(open(args.cluster))
    # The chief is this process: its address must be in the cluster spec
    # (the workers' _Recv ops fetch tensors it sends from its server).
    cluster = {"worker": spec["worker"], "ps": spec["ps"],
               "chief": [f"127.0.0.1:{free_port()}"]}
    resolver = tf.distribute.cluster_resolver.SimpleClusterResolver(
        tf.train.ClusterSpec(cluster), task_type="chief", task_id=0,
        rpc_layer="grpc")
    strategy = tf.distribute.ParameterServerStrategy(resolver)
    coordinator = tf.distribute.coordinator.ClusterCoordinator(strategy)

    w0 = np.zeros((FEATURES, 1), np.float32)
    b0 = np.zeros((1,), np.float32)
    with strategy.scope():
        w = tf.Variable(w0, name="w")
        b = tf.Variable(b0, name="b")
    print(f"variables: w on {w.device}, b on {b.device}")

    @tf.function
    def train_step(x, y):
        def replica_fn(x, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
            grad_w, grad_b = tape.gradient(loss, [w, b])
            w.assign_sub(LEARNING_RATE * grad_w)
            b.assign_sub(LEARNING_RATE * grad_b)
            return loss
        return strategy.run(replica_fn, args=(x, y))

    failures = []

    # One step at a time: the same updates as NumPy's, in the same order.
    data = batches(args.exact_steps)
    for x, y in data:
        coordinator.schedule(train_step,
                             args=(tf.constant(x), tf.constant(y)))
        coordinator.join()
    want_w, want_b = numpy_steps(data, w0, b0)
    got_w, got_b = w.numpy(), b.numpy()
    if not (np.allclose(got_w, want_w, atol=1e-5)
            and np.allclose(got_b, want_b, atol=1e-5)):
        failures.append(f"after {args.exact_steps} steps w={got_w.ravel()} "
                        f"b={got_b}, NumPy gives w={want_w.ravel()} "
                        f"b={want_b}")
    print(f"{args.exact_steps} steps one at a time: w={got_w.ravel()} "
          f"b={got_b} (NumPy: w={want_w.ravel()} b={want_b})")

    # All at once, on whichever worker is free.
    losses = [coordinator.schedule(train_step,
                                   args=(tf.constant(x), tf.constant(y)))
              for x, y in batches(args.async_steps, seed=11)]
    coordinator.join()
    last = [float(r.fetch()) for r in losses[-5:]]
    print(f"{args.async_steps} steps scheduled at once: last losses "
          + ", ".join(f"{v:.5f}" for v in last))
    print(f"w={w.numpy().ravel()} b={b.numpy()}")
    if max(last) > args.max_loss:
        failures.append(f"loss {max(last):.5f} is above {args.max_loss}")

    per_worker_dataset_order(strategy, coordinator, len(spec["worker"]),
                             failures)
    accuracy = tutorial_training(strategy, coordinator, args.train_steps)
    print(f"accuracy: {accuracy:.4f} after {args.train_steps} steps")
    if accuracy < args.min_accuracy:
        failures.append(f"accuracy {accuracy:.4f} is below "
                        f"{args.min_accuracy}")

    for f in failures:
        print("FAILED:", f)
    if failures:
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())

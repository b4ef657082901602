"""A TensorFlow 2.21 client's collective graph runs on a dfx cluster and
gives TensorFlow's numbers.

The same tf.compat.v1 graph — collective_ops.all_reduce_v2 (sum, mean,
max, prod), all_gather_v2 and broadcast_send_v2/broadcast_recv_v2, and
TensorFlow 1's all_reduce, all_gather and broadcast_send/broadcast_recv
(keys as attrs), one op per member — is built twice: once on /job:worker/task:0 and task:1 and run
on the dfx cluster, once on two CPU devices of an in-process TensorFlow
session (TensorFlow's own collective runtime), which gives the expected
values. Inputs have a size not divisible by the group.

  python tf_client_collective.py --dir CLUSTER_DIR
"""
import argparse
import json
import os
import sys

import numpy as np
import tensorflow as tf
from tensorflow.python.ops import collective_ops

tf1 = tf.compat.v1


def check(cond, what):
    if not cond:
        print("FAIL:", what)
        sys.exit(1)
    print("ok:", what)


def build(devices):
    """The collectives on `devices` (one member each); returns the graph,
    its placeholders and the fetches by name."""
    graph = tf.Graph()
    n = len(devices)
    fetches = {}
    xs = []
    with graph.as_default():
        for i, d in enumerate(devices):
            with tf.device(d):
                x = tf1.placeholder(tf.float32, [7], name="x%d" % i)
                xs.append(x)
                for k, (merge, final) in enumerate(
                        [("Add", "Id"), ("Add", "Div"), ("Max", "Id"),
                         ("Mul", "Id")]):
                    fetches["reduce_%s_%s_%d" % (merge, final, i)] = (
                        collective_ops.all_reduce_v2(
                            x, group_size=n, group_key=1, instance_key=k + 1,
                            merge_op=merge, final_op=final))
                fetches["gather_%d" % i] = collective_ops.all_gather_v2(
                    x, group_size=n, group_key=1, instance_key=10)
                if i == 0:
                    fetches["bcast_%d" % i] = collective_ops.broadcast_send_v2(
                        x, group_size=n, group_key=1, instance_key=20)
                else:
                    fetches["bcast_%d" % i] = collective_ops.broadcast_recv_v2(
                        [7], tf.float32, group_size=n, group_key=1,
                        instance_key=20)
                # TensorFlow 1's forms (keys as attrs), in a group of their
                # own.
                fetches["v1_reduce_%d" % i] = collective_ops.all_reduce(
                    x, n, 2, 30, merge_op="Add", final_op="Div")
                fetches["v1_reduce_max_%d" % i] = collective_ops.all_reduce(
                    x, n, 2, 31, merge_op="Max", final_op="Id",
                    subdiv_offsets=(0, 1))
                fetches["v1_gather_%d" % i] = collective_ops.all_gather(
                    x, n, 2, 32)
                if i == 0:
                    fetches["v1_bcast_%d" % i] = collective_ops.broadcast_send(
                        x, [7], tf.float32, n, 2, 33)
                else:
                    fetches["v1_bcast_%d" % i] = collective_ops.broadcast_recv(
                        [7], tf.float32, n, 2, 33)
    return graph, xs, fetches


# Every step has a deadline, so that a hang (on either side) ends the test
# with DeadlineExceeded naming the side instead of ctest's timeout.
STEP_TIMEOUT_MS = 60_000


def run(target, devices, config, feeds):
    graph, xs, fetches = build(devices)
    options = tf1.RunOptions(timeout_in_ms=STEP_TIMEOUT_MS)
    with tf1.Session(target, graph=graph, config=config) as sess:
        out = sess.run(fetches, feed_dict=dict(zip(xs, feeds)),
                       options=options)
        # A second step: instance keys are reused step after step.
        again = sess.run(fetches, feed_dict=dict(zip(xs, feeds)),
                         options=options)
    for k in out:
        assert np.array_equal(out[k], again[k]), k
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", required=True)
    args = parser.parse_args()
    tf1.disable_eager_execution()
    with open(os.path.join(args.dir, "cluster.json")) as f:
        cluster = json.load(f)
    feeds = [np.array([1, -2, 3.5, 4, 0.25, 6, -7], np.float32),
             np.array([8, 9, -1, 0.5, 2, -3, 4], np.float32)]

    # TensorFlow's own collectives on two CPU devices can deadlock when its
    # inter-op pool is as small as this machine's core count (seen once in
    # ctest -j2: the test hung for 300 s): give it threads of its own.
    local = tf1.ConfigProto(device_count={"CPU": 2},
                            inter_op_parallelism_threads=8)
    print("computing TensorFlow's values in process", flush=True)
    want = run("", ["/job:localhost/replica:0/task:0/device:CPU:0",
                    "/job:localhost/replica:0/task:0/device:CPU:1"],
               local, feeds)

    config = tf1.ConfigProto()
    config.experimental.collective_group_leader = "/job:worker/replica:0/task:0"
    print("running the same graph on the dfx cluster", flush=True)
    got = run("grpc://" + cluster["worker"][0],
              ["/job:worker/task:0", "/job:worker/task:1"], config, feeds)
    for name in sorted(want):
        check(got[name].shape == want[name].shape and
              np.allclose(got[name], want[name], rtol=0, atol=1e-6),
              "%s: dfx %s, TensorFlow %s" % (name, got[name].tolist(),
                                             want[name].tolist()))


if __name__ == "__main__":
    main()

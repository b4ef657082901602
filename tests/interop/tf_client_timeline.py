"""TensorFlow's Timeline renders a step a TensorFlow 2.21 client traced on a
dfx cluster.

A tf.compat.v1.Session on a 2-task dfx cluster runs a step with FULL_TRACE;
tf.python.client.timeline.Timeline(run_metadata.step_stats) turns the
RunMetadata into Chrome trace JSON, which must show the nodes of both tasks
and the RecvTensor transfers between them; partition_graphs come back when
asked for. SOFTWARE_TRACE returns the nodes without the transfers.

  python tf_client_timeline.py --dir CLUSTER_DIR
"""
import argparse
import json
import os
import sys

import tensorflow as tf
from tensorflow.python.client import timeline

tf1 = tf.compat.v1

DEV0 = "/job:worker/replica:0/task:0/device:CPU:0"
DEV1 = "/job:worker/replica:0/task:1/device:CPU:0"


def check(cond, what):
    if not cond:
        print("FAIL:", what)
        sys.exit(1)
    print("ok:", what)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", required=True)
    args = parser.parse_args()
    tf1.disable_eager_execution()
    with open(os.path.join(args.dir, "cluster.json")) as f:
        cluster = json.load(f)
    target = "grpc://" + cluster["worker"][0]

    graph = tf.Graph()
    with graph.as_default():
        with tf.device("/job:worker/task:0"):
            a = tf1.placeholder(tf.float32, [2, 2], name="a")
            # Computed on task 0, so that task 1 receives it from there (a
            # small feed itself would go straight to task 1's RunGraph).
            a2 = tf.multiply(a, 2.0, name="a2")
        with tf.device("/job:worker/task:1"):
            b = tf.matmul(a2, a2, name="b")
        with tf.device("/job:worker/task:0"):
            c = tf.add(b, 1.0, name="c")
    feed = {a: [[1.0, 2.0], [3.0, 4.0]]}
    with tf1.Session(target, graph=graph) as sess:
        sess.run(c, feed_dict=feed)  # registers the partitions
        options = tf1.RunOptions(trace_level=tf1.RunOptions.FULL_TRACE,
                                 output_partition_graphs=True)
        md = tf1.RunMetadata()
        out = sess.run(c, feed_dict=feed, options=options, run_metadata=md)
        check(out.tolist() == [[29.0, 41.0], [61.0, 89.0]], "the step's result")
        check(len(md.partition_graphs) == 2,
              "2 partition graphs with output_partition_graphs")
        devices = {d.device for d in md.step_stats.dev_stats}
        check(DEV0 in devices and DEV1 in devices,
              "step_stats from both tasks: %s" % sorted(devices))

        trace = json.loads(timeline.Timeline(md.step_stats)
                           .generate_chrome_trace_format(show_dataflow=True,
                                                         show_memory=True))
        events = trace["traceEvents"]
        pids = {e["pid"]: e["args"]["name"] for e in events
                if e.get("ph") == "M" and e.get("name") == "process_name"}
        check(DEV0 + " Compute" in pids.values() and
              DEV1 + " Compute" in pids.values(),
              "the Timeline has a Compute process per task's device")
        ops = [(pids[e["pid"]], e["args"]["name"], e["args"]["op"])
               for e in events if e.get("ph") == "X"]
        check((DEV1 + " Compute", "b", "MatMul") in ops,
              "the MatMul of task 1 is drawn on task 1's device")
        check((DEV0 + " Compute", "c", "AddV2") in ops,
              "the AddV2 of task 0 is drawn on task 0's device")
        recvs = [o for o in ops if o[2] == "RecvTensor"]
        check(any(p == DEV1 + " Compute" for p, _, _ in recvs) and
              any(p == DEV0 + " Compute" for p, _, _ in recvs),
              "RecvTensor transfers into both tasks: %s" % recvs)
        check(all(e["dur"] >= 0 for e in events if e.get("ph") == "X"),
              "no negative durations")
        labels = [n.timeline_label for d in md.step_stats.dev_stats
                  for n in d.node_stats if n.node_name == "RecvTensor"]
        check(all(" from /job:worker/replica:0/task:" in l for l in labels) and
              any(l.startswith("[16B] ") for l in labels),
              "transfer labels name bytes and devices: %s" % labels)
        b_stats = [n for d in md.step_stats.dev_stats for n in d.node_stats
                   if n.node_name == "b"]
        check(len(b_stats) == 1 and len(b_stats[0].output) == 1 and
              b_stats[0].output[0].tensor_description
              .allocation_description.requested_bytes == 16 and
              [d.size for d in b_stats[0].output[0].tensor_description
               .shape.dim] == [2, 2],
              "b's output: float[2,2], 16 bytes")

        md2 = tf1.RunMetadata()
        sess.run(c, feed_dict=feed, run_metadata=md2,
                 options=tf1.RunOptions(
                     trace_level=tf1.RunOptions.SOFTWARE_TRACE))
        names = [n.node_name for d in md2.step_stats.dev_stats
                 for n in d.node_stats]
        check("b" in names and "RecvTensor" not in names and
              not md2.partition_graphs,
              "SOFTWARE_TRACE: nodes, no transfers, no partition graphs")
        json.loads(timeline.Timeline(md2.step_stats)
                   .generate_chrome_trace_format())
    print("PASS")


if __name__ == "__main__":
    main()

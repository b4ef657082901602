"""TensorBoard event files: dfx writes them, TensorFlow reads them.

One graph of TF2 summary-writer ops (every Write* op, a flush, more
writes, a close) runs twice: in TensorFlow 2.21's own session, writing one
log directory, and from a TensorFlow client on a dfx cluster (`dfx cluster
up`, two worker tasks; the writer ops on task 1, so the values to write
cross processes), writing another. TensorFlow's reader
(tf.compat.v1.train.summary_iterator) then reads both files, and every
event must be the same but for wall_time: the file version and source
metadata first, then the same steps, tags, values, histograms, PNG and
WAV bytes. The file names must follow TensorFlow's pattern. A TF1
tf.summary.merge_all fetched from dfx, written by TensorFlow's own
FileWriter, must read back as TensorFlow's.

    $(tools/tf_env) tests/interop/tf_summary_events.py --dfx build/bin/dfx

Exit status: 0 when everything matches, 1 otherwise.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from tensorflow.core.framework import summary_pb2  # noqa: E402

tf1 = tf.compat.v1
tf1.disable_eager_execution()
raw = tf.raw_ops

NAME = re.compile(r"^events\.out\.tfevents\.\d{10}\.[^.]+(\.[^.]+)*\.\d+\.\d+"
                  r"\.v2$")


def build(logdir, device):
    """The writer graph; returns the op that runs it all (in order)."""
    rng = np.random.default_rng(7)
    meta = summary_pb2.SummaryMetadata()
    meta.plugin_data.plugin_name = "scalars"
    meta.plugin_data.content = b"\x08\x01"
    with tf.device(device):
        w = raw.SummaryWriter(shared_name="interop_writer")
    steps = []

    def then(make):
        deps = steps[-1:] if steps else []
        with tf.control_dependencies(deps), tf.device(device):
            steps.append(make())

    def i64(v):
        return tf.constant(v, tf.int64)
    # Values made on the client's task 0, written on `device`.
    with tf.device("/job:worker/task:0" if device else None):
        image = tf.constant(rng.uniform(-1, 3, [2, 4, 3, 3]).astype(
            np.float32))
        audio = tf.constant(rng.uniform(-1, 1, [2, 20, 2]).astype(np.float32))
        hist = tf.constant(rng.normal(0, 5, 100).astype(np.float64))
    then(lambda: raw.CreateSummaryFileWriter(
        writer=w, logdir=tf.constant(logdir), max_queue=tf.constant(3),
        flush_millis=tf.constant(600000), filename_suffix=tf.constant(".v2")))
    for step in range(3):
        then(lambda step=step: raw.WriteScalarSummary(
            writer=w, step=i64(step), tag=tf.constant("loss"),
            value=tf.constant(1.0 / (step + 1))))
    then(lambda: raw.WriteHistogramSummary(writer=w, step=i64(3),
                                           tag=tf.constant("weights"),
                                           values=hist))
    then(lambda: raw.WriteImageSummary(
        writer=w, step=i64(4), tag=tf.constant("images"), tensor=image,
        bad_color=tf.constant([255, 0, 0, 255], tf.uint8), max_images=2))
    then(lambda: raw.WriteAudioSummary(
        writer=w, step=i64(5), tag=tf.constant("audio"), tensor=audio,
        sample_rate=tf.constant(16000.0), max_outputs=1))
    then(lambda: raw.FlushSummaryWriter(writer=w))
    then(lambda: raw.WriteSummary(
        writer=w, step=i64(6), tensor=tf.constant(0.5),
        tag=tf.constant("acc"),
        summary_metadata=tf.constant(meta.SerializeToString())))
    then(lambda: raw.WriteRawProtoSummary(
        writer=w, step=i64(7), tensor=tf.constant([summary_pb2.Summary(
            value=[summary_pb2.Summary.Value(tag="raw", simple_value=2.0)])
            .SerializeToString()])))
    then(lambda: raw.WriteGraphSummary(
        writer=w, step=i64(8),
        tensor=tf.constant(tf.Graph().as_graph_def().SerializeToString())))
    event = tf1.Event(step=9, summary=summary_pb2.Summary(value=[
        summary_pb2.Summary.Value(tag="imported", simple_value=3.0)]))
    then(lambda: raw.ImportEvent(writer=w,
                                 event=tf.constant(event.SerializeToString())))
    then(lambda: raw.CloseSummaryWriter(writer=w))
    return steps[-1]


def run(logdir, target=None, device=None):
    graph = tf.Graph()
    with graph.as_default():
        done = build(logdir, device)
        config = tf1.ConfigProto(operation_timeout_in_ms=60000)
        with tf1.Session(target or "", graph=graph, config=config) as sess:
            sess.run(done)


def read(logdir):
    """(file name, events without wall_time) of the one file in logdir."""
    (name,) = os.listdir(logdir)
    events = []
    for e in tf1.train.summary_iterator(os.path.join(logdir, name)):
        e.ClearField("wall_time")
        events.append(e)
    return name, events


def merged_summary(target):
    """tf.compat.v1.summary.merge_all's bytes, fetched from `target`."""
    graph = tf.Graph()
    with graph.as_default():
        tf1.summary.scalar("lr", tf.constant(0.01))
        tf1.summary.histogram("act", tf.constant(np.linspace(-3, 3, 50)))
        tf1.summary.image("pic", tf.constant(
            np.linspace(0, 1, 2 * 3 * 3 * 3).reshape([2, 3, 3, 3])
            .astype(np.float32)))
        tf1.summary.audio("wave", tf.constant(
            np.sin(np.arange(32) / 3.0).reshape([1, 32]).astype(np.float32)),
            8000)
        tf1.summary.text("note", tf.constant("hello"))
        merged = tf1.summary.merge_all()
        with tf1.Session(target or "", graph=graph) as sess:
            return sess.run(merged)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dfx", required=True, help="the dfx binary")
    args = parser.parse_args()
    problems = []
    with tempfile.TemporaryDirectory(prefix="dfx-summary-interop-") as work:
        tf_dir = os.path.join(work, "tf")
        run(tf_dir)
        tf_name, tf_events = read(tf_dir)

        cluster_dir = os.path.join(work, "cluster")
        up = subprocess.run([args.dfx, "cluster", "up", "--workers", "2",
                             "--dir", cluster_dir],
                            capture_output=True, text=True, timeout=120)
        if up.returncode != 0:
            print("dfx cluster up failed:", up.stderr, file=sys.stderr)
            return 1
        target = up.stdout.strip().splitlines()[-1]
        try:
            dfx_dir = os.path.join(work, "dfx", "nested")
            run(dfx_dir, target, "/job:worker/task:1")
            dfx_merged = merged_summary(target)
        finally:
            subprocess.run([args.dfx, "cluster", "down", "--dir",
                            cluster_dir], capture_output=True, timeout=60)
        dfx_name, dfx_events = read(dfx_dir)

        for name in (tf_name, dfx_name):
            if not NAME.match(name):
                problems.append(f"file name {name} is not TensorFlow's")
        if len(dfx_events) != len(tf_events):
            problems.append(f"{len(dfx_events)} events, TensorFlow wrote "
                            f"{len(tf_events)}")
        for i, (ours, theirs) in enumerate(zip(dfx_events, tf_events)):
            if ours != theirs:
                problems.append(f"event {i} differs:\n{ours}\nTensorFlow:\n"
                                f"{theirs}")

        # TF1: a merged summary dfx computed, written by TensorFlow's
        # FileWriter, reads back as the one TensorFlow computed.
        tf_merged = merged_summary(None)
        if dfx_merged != tf_merged:
            problems.append("merge_all's bytes differ from TensorFlow's")
        v1_dir = os.path.join(work, "v1")
        writer = tf1.summary.FileWriter(v1_dir)
        writer.add_summary(dfx_merged, global_step=11)
        writer.close()
        _, v1_events = read(v1_dir)
        want = summary_pb2.Summary.FromString(tf_merged)
        if v1_events[-1].step != 11 or v1_events[-1].summary != want:
            problems.append("the merged summary did not read back")

    for p in problems:
        print("FAIL", p, file=sys.stderr)
    print(f"{len(tf_events)} events of TensorFlow's writer and dfx's compared "
          f"(files {tf_name} and {dfx_name}); merge_all compared; "
          f"{len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

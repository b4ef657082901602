#!/usr/bin/env python3
"""Input files through a TensorFlow client on a dfx cluster, against
TensorFlow's own local session on the same graphs.

Writes tf.train.Example records with TensorFlow's TFRecordWriter and a text
file, then runs, in both places, TF1 graphs that read them:
TFRecordDataset over two files with parse_single_example, a batch parsed
with parse_example, both also with a VarLenFeature (a SparseTensor),
TextLineDataset, and three failures that must be the
same error: a record with a flipped byte (DataLossError), a missing file
(NotFoundError) and a required feature that is absent (InvalidArgument).
Exits 1 when a result differs.
"""

import argparse
import os
import shutil
import sys
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

tf1 = tf.compat.v1
tf1.disable_eager_execution()

SPEC = {"x": tf.io.FixedLenFeature([3], tf.float32),
        "y": tf.io.FixedLenFeature([], tf.int64),
        "name": tf.io.FixedLenFeature([], tf.string),
        "w": tf.io.FixedLenFeature([2], tf.float32, default_value=[0.5, 1.5])}


SPARSE_SPEC = dict(SPEC, tags=tf.io.VarLenFeature(tf.int64))


def write_files(d):
    rng = np.random.default_rng(4)
    paths = []
    for f in range(2):
        path = os.path.join(d, f"part-{f}.tfrecord")
        with tf.io.TFRecordWriter(path) as w:
            for i in range(5):
                feature = {
                    "x": tf.train.Feature(float_list=tf.train.FloatList(
                        value=rng.standard_normal(3).astype(np.float32))),
                    "y": tf.train.Feature(int64_list=tf.train.Int64List(
                        value=[10 * f + i])),
                    "name": tf.train.Feature(bytes_list=tf.train.BytesList(
                        value=[f"r{f}{i}".encode()]))}
                if i % 2:
                    feature["w"] = tf.train.Feature(
                        float_list=tf.train.FloatList(value=[i, -i]))
                if i % 3:
                    feature["tags"] = tf.train.Feature(
                        int64_list=tf.train.Int64List(
                            value=list(range(f + i % 3))))
                w.write(tf.train.Example(features=tf.train.Features(
                    feature=feature)).SerializeToString())
        paths.append(path)
    for kind in ("GZIP", "ZLIB"):
        with tf.io.TFRecordWriter(
                os.path.join(d, f"part-0.{kind}"),
                options=tf.io.TFRecordOptions(compression_type=kind)) as w:
            for i in range(7):
                w.write(f"compressed record {i}".encode() * (i + 1))
    text = os.path.join(d, "lines.txt")
    with open(text, "w") as f:
        f.write("first line\nsecond\r\n\nlast without newline")
    corrupt = os.path.join(d, "corrupt.tfrecord")
    data = bytearray(open(paths[0], "rb").read())
    data[30] ^= 0xFF
    open(corrupt, "wb").write(bytes(data))
    missing_feature = os.path.join(d, "missing.tfrecord")
    with tf.io.TFRecordWriter(missing_feature) as w:
        w.write(tf.train.Example().SerializeToString())
    return paths, text, corrupt, missing_feature


def pull_all(target, make):
    """Every element of make()'s pipeline, or the error's class name."""
    g = tf.Graph()
    with g.as_default():
        it = tf1.data.make_initializable_iterator(make())
        nxt = it.get_next()
        with tf1.Session(target, graph=g) as s:
            s.run(it.initializer)
            out = []
            try:
                while True:
                    out.append(s.run(nxt))
            except tf.errors.OutOfRangeError:
                return out
            except tf.errors.OpError as e:
                return type(e).__name__


def same(a, b):
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        fx, fy = tf.nest.flatten(x), tf.nest.flatten(y)
        if len(fx) != len(fy):
            return False
        for u, v in zip(fx, fy):
            if not np.array_equal(np.asarray(u), np.asarray(v)):
                return False
    return True


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--target", required=True, help="grpc://host:port")
    args = p.parse_args()
    d = tempfile.mkdtemp(prefix="dfx-tf-data-")
    try:
        return run_checks(args, d)
    finally:
        shutil.rmtree(d, ignore_errors=True)


def run_checks(args, d):
    paths, text, corrupt, missing_feature = write_files(d)
    cases = {
        "tfrecord + parse_single_example": lambda: tf.data.TFRecordDataset(
            paths).map(lambda s: tf.io.parse_single_example(s, SPEC)),
        "batch + parse_example": lambda: tf.data.TFRecordDataset(
            paths).batch(4).map(lambda s: tf.io.parse_example(s, SPEC)),
        "VarLenFeature, one example at a time":
            lambda: tf.data.TFRecordDataset(paths).map(
                lambda s: tf.io.parse_single_example(s, SPARSE_SPEC)),
        "VarLenFeature, batches": lambda: tf.data.TFRecordDataset(
            paths).batch(3).map(lambda s: tf.io.parse_example(s, SPARSE_SPEC)),
        "VarLenFeature parsed, then batched":
            lambda: tf.data.TFRecordDataset(paths).map(
                lambda s: tf.io.parse_single_example(s, SPARSE_SPEC)).batch(4),
        "GZIP records": lambda: tf.data.TFRecordDataset(
            os.path.join(d, "part-0.GZIP"), compression_type="GZIP"),
        "ZLIB records": lambda: tf.data.TFRecordDataset(
            os.path.join(d, "part-0.ZLIB"), compression_type="ZLIB"),
        "text lines": lambda: tf.data.TextLineDataset(text),
        "corrupted record": lambda: tf.data.TFRecordDataset(corrupt),
        "missing file": lambda: tf.data.TFRecordDataset(
            os.path.join(d, "nope.tfrecord")),
        "missing required feature": lambda: tf.data.TFRecordDataset(
            missing_feature).map(
                lambda s: tf.io.parse_single_example(s, SPEC)),
    }
    failed = 0
    for name, make in cases.items():
        want = pull_all("", make)
        got = pull_all(args.target, make)
        ok = same(want, got)
        shown = want if isinstance(want, str) else f"{len(want)} elements"
        print(f"{'ok' if ok else 'FAILED'}: {name} ({shown})")
        if not ok:
            print("  TensorFlow:", want if isinstance(want, str) else want[:2])
            print("  dfx:       ", got if isinstance(got, str) else got[:2])
            failed += 1
    print("all data-file checks passed" if not failed else
          f"{failed} data-file checks failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

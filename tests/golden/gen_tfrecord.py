#!/usr/bin/env python3
"""Golden input files: TFRecords of tf.train.Example and a text file, as
TensorFlow 2.21 writes them, with what TensorFlow parses out of them.

    tests/golden/data/tfrecord/examples.tfrecord  3 Examples (and .gz, .zz:
                                                  the same, GZIP and ZLIB)
    tests/golden/data/tfrecord/large.tfrecord.zz  800 records of "a b a ..."
                                                  (75 KB, ZLIB: more than
                                                  one deflate block, so
                                                  zlib's memLevel shows)
    tests/golden/data/tfrecord/lines.txt          4 lines ("\\r\\n" and a
                                                  last line without "\\n")
    tests/golden/data/tfrecord/expected.txt       per record, what
        tf.io.parse_single_example gives for x (float [3]), y (int64),
        name (bytes) and w (float [2], default [0.5, 1.5]):
        "y x0 x1 x2 name w0 w1"; then per line "line <text>"

tests/kernels/dataset_test.cc reads them with dfx's TFRecordDataset,
TextLineDataset and ParseExampleV2 kernels; tests/kernels/record_file_test.cc
writes the records again and compares the bytes.

    $(tools/tf_env) tests/golden/gen_tfrecord.py
"""

import os
import random
import shutil

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data",
                   "tfrecord")
SPEC = {"x": tf.io.FixedLenFeature([3], tf.float32),
        "y": tf.io.FixedLenFeature([], tf.int64),
        "name": tf.io.FixedLenFeature([], tf.string),
        "w": tf.io.FixedLenFeature([2], tf.float32, default_value=[0.5, 1.5])}


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    path = os.path.join(OUT, "examples.tfrecord")
    rng = np.random.default_rng(9)
    with tf.io.TFRecordWriter(path) as w:
        for i in range(3):
            feature = {
                "x": tf.train.Feature(float_list=tf.train.FloatList(
                    value=rng.standard_normal(3).astype(np.float32))),
                "y": tf.train.Feature(int64_list=tf.train.Int64List(
                    value=[100 + i])),
                "name": tf.train.Feature(bytes_list=tf.train.BytesList(
                    value=[f"rec{i}".encode()]))}
            if i != 1:
                feature["w"] = tf.train.Feature(float_list=tf.train.FloatList(
                    value=[i, -i]))
            w.write(tf.train.Example(features=tf.train.Features(
                feature=feature)).SerializeToString())
    # The same records compressed, as TFRecordWriter writes GZIP and ZLIB.
    for kind, suffix in (("GZIP", "gz"), ("ZLIB", "zz")):
        with tf.io.TFRecordWriter(
                f"{path}.{suffix}", options=tf.io.TFRecordOptions(
                    compression_type=kind)) as w:
            for record in tf.data.TFRecordDataset(path):
                w.write(record.numpy())
    rnd = random.Random(5)
    with tf.io.TFRecordWriter(
            os.path.join(OUT, "large.tfrecord.zz"),
            options=tf.io.TFRecordOptions(compression_type="ZLIB")) as w:
        for _ in range(800):
            w.write(" ".join(rnd.choice("ab")
                             for _ in range(rnd.randint(20, 60))).encode())
    lines_path = os.path.join(OUT, "lines.txt")
    with open(lines_path, "w") as f:
        f.write("first line\nsecond\r\n\nlast without newline")
    expected = []
    for record in tf.data.TFRecordDataset(path):
        p = tf.io.parse_single_example(record, SPEC)
        x = p["x"].numpy()
        w = p["w"].numpy()
        expected.append(
            f"{int(p['y'])} {float(x[0])!r} {float(x[1])!r} {float(x[2])!r} "
            f"{p['name'].numpy().decode()} {float(w[0])!r} {float(w[1])!r}")
    for line in tf.data.TextLineDataset(lines_path):
        expected.append("line " + line.numpy().decode())
    with open(os.path.join(OUT, "expected.txt"), "w") as f:
        f.write("\n".join(expected) + "\n")
    print("\n".join(expected))


if __name__ == "__main__":
    main()

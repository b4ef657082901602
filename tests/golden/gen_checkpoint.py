"""Writes checkpoints with TensorFlow 2.21 for dfx's checkpoint tests.

tests/checkpoint/tf_checkpoint_test.cc reads them with dfx's BundleReader
and through RestoreV2 in a dfx session, and compares every value with the
one recorded here. Run with the TensorFlow virtualenv:

    $(tools/tf_env) tests/golden/gen_checkpoint.py

It rewrites tests/checkpoint/data/tf/ (not tests/golden/data/: that tree
holds only golden cases, which golden_test.cc and the TF-client interop
test run one by one):

    saver/model.ckpt.{index,data-00000-of-00001}
        tf.compat.v1.train.Saver(sharded=False) over variables
    saver_sharded/model.ckpt.{index,data-0000?-of-00002}
        tf.compat.v1.train.Saver(sharded=True), the variables on two CPU
        devices (ConfigProto device_count), so two shards merged by
        MergeV2Checkpoints
    raw/all_dtypes.{index,data-00000-of-00001}
        tf.raw_ops.SaveV2 of every dtype a bundle holds (some, like uint32,
        cannot be tf1 variables on CPU)
    expected.json
        for each checkpoint, each tensor's dtype (the DataType enum value),
        shape and exact bytes (hex of the little-endian elements; strings
        one hex per element)
"""

import json
import os
import shutil

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

tf1 = tf.compat.v1
tf1.disable_eager_execution()

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "checkpoint", "data", "tf")

STRINGS = [b"", b"a\x00b", b"\xff\xfe\x00", b"x" * 200, b"last"]


def rng():
    return np.random.default_rng(7)


def values():
    """name -> numpy value, every dtype a variable can have on CPU."""
    r = rng()
    return {
        "dense/kernel": r.standard_normal((3, 4)).astype(np.float32),
        "dense/bias": np.array([0.5, -1.25, np.inf, -0.0], np.float32),
        "global_step": np.array(1234567890123, np.int64),
        "counts": r.integers(-1000, 1000, (2, 3)).astype(np.int32),
        "mask": np.array([True, False, True, True, False]),
        "names": np.array(STRINGS, dtype=object),
        "title": np.array(b"dfx \x00 checkpoint", dtype=object),
        "f64": r.standard_normal(3),
        "f16": r.standard_normal(4).astype(np.float16),
        "bf16": r.standard_normal((2, 2)).astype(tf.bfloat16.as_numpy_dtype),
        "i8": np.array([-128, 0, 127], np.int8),
        "u8": np.array([0, 1, 255], np.uint8),
        "i16": np.array([-32768, 7, 32767], np.int16),
        "u16": np.array([0, 65535], np.uint16),
        "c64": np.array([1 + 2j, -3.5 - 0.25j], np.complex64),
        "c128": np.array([1e300 + 1j], np.complex128),
        "empty": np.zeros((0, 3), np.float32),
    }


def raw_values():
    """The Saver's values plus the dtypes only raw SaveV2 can write."""
    v = values()
    v["u32"] = np.array([0, 4000000000], np.uint32)
    v["u64"] = np.array([0, 18446744073709551615], np.uint64)
    v["empty_strings"] = np.array([], dtype=object).reshape(0, 2)
    v["scalar_f32"] = np.array(3.25, np.float32)
    return v


def describe(value):
    """dtype (TensorFlow's DataType enum value), shape and exact bytes."""
    value = np.asarray(value)
    if value.dtype == object:
        flat = [bytes(s).hex() for s in value.reshape(-1)]
        return {"dtype": tf.string.as_datatype_enum,
                "shape": list(value.shape), "strings_hex": flat}
    return {"dtype": tf.as_dtype(value.dtype).as_datatype_enum,
            "shape": list(value.shape),
            "hex": np.ascontiguousarray(value).tobytes().hex()}


def make_variables(vals, devices):
    out = []
    for i, (name, value) in enumerate(sorted(vals.items())):
        with tf1.device(devices[i % len(devices)]):
            dtype = tf.string if np.asarray(value).dtype == object else None
            out.append(tf1.Variable(value, name=name, dtype=dtype,
                                    use_resource=(i % 2 == 0)))
    return out


def write_saver(subdir, sharded):
    graph = tf.Graph()
    with graph.as_default():
        devices = ["/cpu:0", "/cpu:1"] if sharded else ["/cpu:0"]
        variables = make_variables(values(), devices)
        saver = tf1.train.Saver(variables, sharded=sharded)
        config = tf1.ConfigProto(device_count={"CPU": 2})
        with tf1.Session(graph=graph, config=config) as sess:
            sess.run(tf1.global_variables_initializer())
            os.makedirs(os.path.join(OUT, subdir))
            prefix = os.path.join(OUT, subdir, "model.ckpt")
            saver.save(sess, prefix, write_meta_graph=False,
                       write_state=False)
    return prefix


def write_raw():
    vals = raw_values()
    names = sorted(vals)
    graph = tf.Graph()
    with graph.as_default():
        tensors = [tf.constant(vals[n], dtype=tf.string)
                   if np.asarray(vals[n]).dtype == object
                   else tf.constant(vals[n]) for n in names]
        prefix = os.path.join(OUT, "raw", "all_dtypes")
        save = tf.raw_ops.SaveV2(prefix=prefix, tensor_names=names,
                                 shape_and_slices=[""] * len(names),
                                 tensors=tensors)
        with tf1.Session(graph=graph) as sess:
            sess.run(save)
    return vals


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    write_saver("saver", sharded=False)
    write_saver("saver_sharded", sharded=True)
    raw = write_raw()
    expected = {
        "saver/model.ckpt": {n: describe(v) for n, v in values().items()},
        "saver_sharded/model.ckpt": {n: describe(v)
                                     for n, v in values().items()},
        "raw/all_dtypes": {n: describe(v) for n, v in raw.items()},
    }
    # Check what TensorFlow wrote before committing it.
    for prefix, tensors in expected.items():
        reader = tf.train.load_checkpoint(os.path.join(OUT, prefix))
        got = reader.get_variable_to_dtype_map()
        assert set(got) == set(tensors), (prefix, sorted(got))
    with open(os.path.join(OUT, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1, sort_keys=True)
        f.write("\n")
    for root, _, files in sorted(os.walk(OUT)):
        for name in sorted(files):
            path = os.path.join(root, name)
            print(os.path.relpath(path, OUT), os.path.getsize(path))


if __name__ == "__main__":
    main()

"""Golden cases of the itckpt family: saving and restoring a tf.data
iterator's position with SerializeIterator and DeserializeIterator, as
TensorFlow 2.21 runs them.

Every case is multi-step (gen_lookup.py's steps_case). The round-trip cases
make two iterators over one dataset, read k elements of the first, restore
its serialized state into the second ("copy": DeserializeIterator(second,
SerializeIterator(first))), then read the second to its end: its elements
must be the uninterrupted sequence's rest, which TensorFlow's first iterator
also keeps producing. The saver cases go through a checkpoint the way TF1
graphs do (tf.data.experimental.make_saveable_from_iterator and a
tf.compat.v1.train.Saver, the state a DT_VARIANT tensor in SaveV2/RestoreV2),
in a directory fed as "@SCRATCH_DIR@/" (fresh per run).

    $(tools/tf_env) tests/golden/gen_itckpt.py

Besides the cases the generator writes the ops' signatures
(tf_op_defs.pbtxt, tf_cpu_kernels.txt), which tests/kernels/itckpt_test.cc
compares with dfx's registry.

Left out: a dataset TensorFlow saves and dfx does not (dfx answers
Unimplemented "Saving iterators of <op> is not supported"; TensorFlow
saves it), which tests/kernels/itckpt_test.cc covers.
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import golden_lib  # noqa: E402
import gen_lookup  # noqa: E402
from gen_lookup import SCRATCH_DIR  # noqa: E402
from golden_lib import tf, tf1  # noqa: E402

FAMILY = "itckpt"
RAW = tf.raw_ops
OP_NAMES = ["SerializeIterator", "DeserializeIterator"]


def folder():
    return golden_lib.family_folder(FAMILY)


def round_trip(name, make_dataset, k, rest, note="", files=None):
    """k elements of a first iterator, its state into a second, then `rest`
    reads of the second (one past its end gives OutOfRange) and one more of
    the first. With `files` ({name: bytes}, written into the case folder),
    make_dataset takes the string vector of their paths."""
    def build():
        if files:
            paths = tf1.placeholder(tf.string, shape=[None], name="paths")
            ds = make_dataset(paths)
        else:
            ds = make_dataset()
        first = tf1.data.make_initializable_iterator(ds)
        second = tf1.data.make_initializable_iterator(ds)
        state = RAW.SerializeIterator(
            resource_handle=first._iterator_resource)
        copy = RAW.DeserializeIterator(
            resource_handle=second._iterator_resource, serialized=state)
        named = {"init1": first.initializer, "init2": second.initializer,
                 "copy": copy}
        if files:
            named["paths"] = paths
        for key, it in (("next1", first), ("next2", second)):
            for i, t in enumerate(tf.nest.flatten(it.get_next())):
                named[f"{key}_{i}"] = t
        return named

    with tf.Graph().as_default():
        probe = (make_dataset(tf.constant([""])) if files else make_dataset())
        n = len(tf.nest.flatten(tf1.data.get_output_types(probe)))
    next1 = [f"next1_{i}" for i in range(n)]
    next2 = [f"next2_{i}" for i in range(n)]
    # One iterator made per step: a shuffle's seed generator hands each new
    # iterator the next seeds, so the order of the two MakeIterators counts.
    feeds = ({"paths": [gen_lookup.CASE_DIR + "/" + f for f in sorted(files)]}
             if files else {})
    steps = ([(["init1"], feeds), (["init2"], feeds)] + [(next1, {})] * k +
             [(["copy"], {})] + [(next2, {})] * rest + [(next1, {})])
    gen_lookup.steps_case(folder(), name, build, steps, files=files,
                          note=note)


def tfrecords(records):
    """The bytes of a TFRecord file of `records`."""
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "r.tfrecord")
        with tf.io.TFRecordWriter(path) as w:
            for r in records:
                w.write(r)
        with open(path, "rb") as f:
            return f.read()


def nested_and_file_cases():
    d = tf.data.Dataset
    round_trip("padded_batch", lambda: d.range(1, 7).map(
        lambda x: tf.fill([x], x)).padded_batch(2, padded_shapes=[None]),
        1, 3)
    round_trip("padded_batch_drop", lambda: d.range(1, 8).map(
        lambda x: tf.fill([x % 3], x)).padded_batch(
            3, padded_shapes=[4], padding_values=tf.constant(-1, tf.int64),
            drop_remainder=True), 1, 2)
    round_trip("flat_map", lambda: d.range(1, 5).flat_map(
        lambda x: d.range(x)), 4, 7)
    round_trip("interleave", lambda: d.range(1, 6).interleave(
        lambda x: d.range(x * 10, x * 10 + x), cycle_length=2,
        block_length=2), 5, 11)
    round_trip("interleave_at_start", lambda: d.range(3).interleave(
        lambda x: d.from_tensors(x).repeat(2), cycle_length=3), 0, 7)
    round_trip("cache_first_pass", lambda: d.range(5).map(
        lambda x: x * 3).cache(), 2, 4)
    round_trip("cache_repeat", lambda: d.range(4).cache().repeat(2), 6, 3)
    text = {"a.txt": b"one\ntwo\r\nthree\n", "b.txt": b"four\n\nsix"}
    round_trip("text_line", lambda p: tf1.data.TextLineDataset(p), 2, 5,
               files=text)
    round_trip("text_line_file_boundary",
               lambda p: tf1.data.TextLineDataset(p), 3, 4, files=text)
    recs = {"a.tfrecord": tfrecords([b"r0", b"", b"r2" * 5]),
            "b.tfrecord": tfrecords([b"r3", b"r4"])}
    round_trip("tfrecord", lambda p: tf1.data.TFRecordDataset(p), 1, 5,
               files=recs)
    round_trip("tfrecord_second_file", lambda p: tf1.data.TFRecordDataset(p),
               4, 2, files=recs)
    fixed = {"a.bin": b"HH" + b"abcdefghij" + b"F",
             "b.bin": b"HH" + b"klmnop" + b"F"}
    round_trip("fixed_length", lambda p: tf1.data.FixedLengthRecordDataset(
        p, 2, header_bytes=2, footer_bytes=1), 3, 6, files=fixed)


def shuffle_and_repeat():
    """The fused ShuffleAndRepeatDatasetV2 (what tf.data's optimizations
    make of shuffle().repeat(); Grappler is off in the cases, so built
    raw)."""
    from tensorflow.python.data.ops import dataset_ops
    ds = tf.data.Dataset.range(5)
    fused = RAW.ShuffleAndRepeatDatasetV2(
        input_dataset=ds._variant_tensor,
        buffer_size=tf.constant(3, tf.int64), seed=tf.constant(4, tf.int64),
        seed2=tf.constant(9, tf.int64), count=tf.constant(3, tf.int64),
        seed_generator=RAW.DummySeedGenerator(),
        output_types=[tf.int64], output_shapes=[[]],
        reshuffle_each_iteration=True)
    return dataset_ops._VariantDataset(fused, ds.element_spec)


def round_trip_cases():
    d = tf.data.Dataset
    round_trip("range", lambda: d.range(7), 3, 5)
    round_trip("range_step_int32",
               lambda: d.range(10, 0, -3, output_type=tf.int32), 1, 4)
    round_trip("range_empty", lambda: d.range(0), 0, 1)
    round_trip("range_at_end", lambda: d.range(2), 3, 1)
    round_trip("tensor_unread", lambda: d.from_tensors(
        (np.array([1.5, 2.5], np.float32), np.array(b"s"))), 0, 2)
    round_trip("tensor_read", lambda: d.from_tensors(
        np.arange(4, dtype=np.int32)), 1, 1)
    round_trip("tensor_slices", lambda: d.from_tensor_slices(
        (np.arange(8, dtype=np.float64).reshape(4, 2),
         np.array([b"a", b"bb", b"", b"dddd"]))), 2, 3)
    round_trip("tensor_slices_empty_rows", lambda: d.from_tensor_slices(
        np.zeros((3, 0), np.int64)), 1, 3)
    round_trip("map", lambda: d.range(6).map(lambda x: (x * x, x + 1)), 2, 5)
    round_trip("parallel_map", lambda: d.range(9).map(
        lambda x: tf.cast(x, tf.float32) / 2, num_parallel_calls=3,
        deterministic=True), 4, 6)
    round_trip("filter", lambda: d.range(12).filter(
        lambda x: tf.equal(x % 3, 0)), 2, 3)
    round_trip("batch", lambda: d.range(10).batch(3), 1, 4)
    round_trip("batch_drop_remainder",
               lambda: d.range(10).batch(4, drop_remainder=True), 1, 2)
    round_trip("repeat", lambda: d.range(3).repeat(3), 4, 6)
    round_trip("repeat_forever_take",
               lambda: d.range(2).repeat().take(5), 3, 3)
    round_trip("skip_take", lambda: d.range(10).skip(2).take(5), 2, 4)
    round_trip("take_all", lambda: d.range(4).take(-1), 2, 3)
    round_trip("shard", lambda: d.range(11).shard(3, 1), 2, 3)
    round_trip("shuffle", lambda: d.range(12).shuffle(5, seed=7), 4, 9)
    round_trip("shuffle_buffer_larger",
               lambda: d.range(6).shuffle(100, seed=3), 2, 5)
    round_trip("shuffle_repeat_reshuffle", lambda: d.range(5).shuffle(
        3, seed=11, reshuffle_each_iteration=True).repeat(3), 7, 9)
    round_trip("shuffle_repeat_same", lambda: d.range(5).shuffle(
        4, seed=5, reshuffle_each_iteration=False).repeat(2), 6, 5)
    round_trip("shuffle_and_repeat_fused", shuffle_and_repeat, 8, 8)
    round_trip("prefetch", lambda: d.range(8).map(
        lambda x: x * 10).prefetch(3), 3, 6)
    round_trip("prefetch_autotune", lambda: d.range(5).prefetch(
        tf.data.AUTOTUNE), 2, 4)
    round_trip("zip", lambda: d.zip((d.range(5), d.range(10, 20).map(
        lambda x: tf.cast(x, tf.int32)))), 2, 4)
    round_trip("concatenate", lambda: d.range(3).concatenate(
        d.range(10, 13)), 2, 5)
    round_trip("concatenate_second", lambda: d.range(2).concatenate(
        d.range(10, 13)), 3, 3)
    round_trip("pipeline", lambda: d.from_tensor_slices(
        np.arange(20, dtype=np.int32)).shuffle(6, seed=1).map(
            lambda x: x * 2).batch(3).prefetch(2), 2, 6)


def error_cases():
    d = tf.data.Dataset

    def restore_uninitialized():
        ds = d.range(3)
        first = tf1.data.make_initializable_iterator(ds)
        second = tf1.data.make_initializable_iterator(ds)
        state = RAW.SerializeIterator(
            resource_handle=first._iterator_resource)
        return {"init1": first.initializer,
                "copy": RAW.DeserializeIterator(
                    resource_handle=second._iterator_resource,
                    serialized=state)}
    gen_lookup.steps_case(folder(), "restore_uninitialized",
                          restore_uninitialized,
                          [(["init1"], {}), (["copy"], {})])

    def save_uninitialized():
        it = tf1.data.make_initializable_iterator(d.range(3))
        return {"save": RAW.SerializeIterator(
            resource_handle=it._iterator_resource)}
    gen_lookup.steps_case(folder(), "save_uninitialized", save_uninitialized,
                          [(["save"], {})])


class FedName(str):
    """A tensor fed by name: the Saver's scalar filename tensor (save/Const,
    a PlaceholderWithDefault), which steps_case would otherwise reshape
    (flat) before feeding. Session.run takes a name as a feed key."""

    @property
    def name(self):
        return str(self)


def saver_case(name, make_dataset, k, rest):
    """TF1's checkpointing of an input pipeline: init, k elements, save,
    two more, re-initialize, restore, then the rest from the saved
    position."""
    def build():
        it = tf1.data.make_initializable_iterator(make_dataset())
        saveable = tf.data.experimental.make_saveable_from_iterator(it)
        tf1.add_to_collection(tf1.GraphKeys.SAVEABLE_OBJECTS, saveable)
        saver = tf1.train.Saver(var_list=[saveable])
        graph = tf1.get_default_graph()
        save = graph.get_tensor_by_name(saver.saver_def.save_tensor_name)
        return {"prefix": FedName(saver.saver_def.filename_tensor_name),
                "init": it.initializer,
                "next": tf.nest.flatten(it.get_next())[0],
                "save": save.op,
                "restore": graph.get_operation_by_name(
                    saver.saver_def.restore_op_name)}
    at = {"prefix": SCRATCH_DIR + "/ckpt"}
    steps = ([(["init"], {})] + [(["next"], {})] * k + [(["save"], at)] +
             [(["next"], {})] * 2 + [(["init"], {}), (["restore"], at)] +
             [(["next"], {})] * rest)
    gen_lookup.steps_case(folder(), name, build, steps)


def bundle_variant_case():
    """A DT_VARIANT tensor in a V2 checkpoint, in TensorFlow's bytes: a
    TensorList (a variant kind both know) saved, the data file's bytes
    fetched (dfx's must equal TensorFlow's), restored and stacked."""
    def build():
        prefix = tf1.placeholder(tf.string, shape=[], name="prefix")
        full = RAW.TensorListFromTensor(
            tensor=tf.constant([[1.5, 2.5], [3.5, 4.5]]),
            element_shape=tf.constant([2]))
        empty = RAW.EmptyTensorList(element_shape=tf.constant([-1]),
                                    max_num_elements=-1,
                                    element_dtype=tf.float32)
        save = RAW.SaveV2(prefix=prefix, tensor_names=["empty", "full"],
                          shape_and_slices=["", ""], tensors=[empty, full])
        restored = RAW.RestoreV2(prefix=prefix, tensor_names=["full", "empty"],
                                 shape_and_slices=["", ""],
                                 dtypes=[tf.variant, tf.variant])
        first = RAW.TensorListStack(
            input_handle=restored[0], element_shape=tf.constant([2]),
            element_dtype=tf.float32)
        length = RAW.TensorListLength(input_handle=restored[1])
        data = tf.io.read_file(
            tf.strings.join([prefix, ".data-00000-of-00001"]))
        return {"prefix": FedName(prefix.name), "save": save,
                "data": data, "first": first, "length": length}
    at = {"prefix": SCRATCH_DIR + "/ckpt"}
    gen_lookup.steps_case(folder(), "bundle_variant_tensor_list", build,
                          [(["save"], at), (["data"], at),
                           (["first", "length"], at)])


def saver_cases():
    d = tf.data.Dataset
    saver_case("saver_range", lambda: d.range(8), 3, 6)
    saver_case("saver_pipeline", lambda: d.range(15).shuffle(
        5, seed=9).map(lambda x: x + 100).batch(2).prefetch(1), 2, 7)


def main():
    round_trip_cases()
    nested_and_file_cases()
    error_cases()
    saver_cases()
    bundle_variant_case()
    golden_lib.write_op_defs(FAMILY, OP_NAMES)


if __name__ == "__main__":
    main()

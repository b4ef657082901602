"""Golden cases of the itckpt2 family: saving and restoring the position of
iterators over the tf.data datasets the itckpt family left out (window,
group_by_window, rebatch, unbatch, the legacy parallel interleave, scan,
take_while, unique, ignore_errors,
assert_cardinality, choose_from_datasets, from_list, the file readers,
sampling, SaveDatasetV2), with
SerializeIterator and DeserializeIterator as TensorFlow 2.21 runs them.

Each case is gen_itckpt.py's round trip: two iterators over one dataset, k
elements read from the first, its state restored into the second, the
second read one past its end (OutOfRange), then one more element of the
first. The elements after the restore must be the uninterrupted
sequence's rest.

    $(tools/tf_env) tests/golden/gen_itckpt2.py

No op signatures: the family adds no ops (SerializeIterator and
DeserializeIterator are the itckpt family's, which checks theirs).

Left out: a window's or a group's elements as datasets in the state (a
flat_map over Dataset.window saves the window dataset it opened; dfx's
SerializeIterator encodes its state and a dataset does not encode, as in
TensorFlow, whose DatasetVariantWrapper has no Encode): the window cases
reduce each window inside a map instead. MatchingFilesDataset:
TensorFlow 2.21's restored iterator gives other files than its uninterrupted
one (tests/kernels/itckpt2_test.cc covers dfx's). SnapshotDatasetReader
(TensorFlow constant-folds it here and fails; tests/kernels/itckpt2_test.cc
restores it over the dataset4 family's shard). A CSV restored mid-file
(TensorFlow's gives one record and ends; see csv_second_file).
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import golden_lib  # noqa: E402
import gen_itckpt  # noqa: E402
import gen_lookup  # noqa: E402
from golden_lib import tf, tf1  # noqa: E402

FAMILY = "itckpt2"
RAW = tf.raw_ops
# gen_itckpt.round_trip writes into the folder of gen_itckpt.FAMILY.
gen_itckpt.FAMILY = FAMILY


def round_trip(name, make_dataset, k, files=None):
    """gen_itckpt.round_trip reading the second iterator one past its end
    (the element count taken first)."""
    total = 0
    with tf.Graph().as_default(), tf1.Session() as sess:
        if files:
            import tempfile
            tmp = tempfile.mkdtemp(prefix="dfx_gen_")
            for fname, data in files.items():
                os.makedirs(os.path.dirname(os.path.join(tmp, fname)),
                            exist_ok=True)
                with open(os.path.join(tmp, fname), "wb") as f:
                    f.write(data)
            ds = make_dataset(tf.constant(
                [os.path.join(tmp, f) for f in sorted(files)]))
        else:
            ds = make_dataset()
        next_element = tf1.data.make_one_shot_iterator(ds).get_next()
        try:
            while True:
                sess.run(next_element)
                total += 1
        except tf.errors.OpError:  # the end, or an error at the end
            pass
    if files:
        import shutil
        shutil.rmtree(tmp)
    gen_itckpt.round_trip(name, make_dataset, k, max(total - k, 0) + 1,
                          files=files)


def digits(w):
    """A window of int64 as one number: its elements as decimal digits."""
    return w.reduce(np.int64(0), lambda s, x: s * 10 + x)


def window_cases():
    d = tf.data.Dataset
    round_trip("window_overlapping",
               lambda: d.range(10).window(3, 2).map(digits), 2)
    round_trip("window_shift_one_mid_buffer",
               lambda: d.range(1, 8).window(4, 1).map(digits), 3)
    round_trip("window_shift_past_size",
               lambda: d.range(1, 15).window(2, 5).map(digits), 1)
    round_trip("window_stride_drop_remainder", lambda: d.range(1, 14).window(
        3, shift=2, stride=2, drop_remainder=True).map(digits), 2)
    round_trip("window_two_components", lambda: d.zip(
        (d.range(1, 9), d.range(1, 9).map(lambda x: tf.cast(x, tf.float32))))
        .window(3, 3).map(lambda a, b: (digits(a), b.reduce(0.0, tf.add))), 1)
    round_trip("window_at_start",
               lambda: d.range(5).window(2).map(digits), 0)

    def group_by_window():
        return d.range(20).group_by_window(
            key_func=lambda x: x % 3, reduce_func=lambda k, w: w.batch(2),
            window_size=4)
    round_trip("group_by_window_mid_group", group_by_window, 3)
    round_trip("group_by_window_flushing", group_by_window, 8)

    def group_by_window_sizes():
        return d.range(1, 16).group_by_window(
            key_func=lambda x: x % 2,
            reduce_func=lambda k, w: w.map(lambda x: x * 100 + k),
            window_size_func=lambda k: k + 2)
    round_trip("group_by_window_size_func", group_by_window_sizes, 4)
    round_trip("bucket_by_sequence_length", lambda: d.range(1, 12).map(
        lambda x: tf.fill([x % 4 + 1], x)).bucket_by_sequence_length(
            lambda x: tf.shape(x)[0], bucket_boundaries=[2, 4],
            bucket_batch_sizes=[2, 2, 2]), 2)


def rebatch(ds, sizes, drop_remainder=False):
    from tensorflow.python.data.ops import rebatch_op
    return rebatch_op._RebatchDataset(ds, sizes, drop_remainder)


def legacy_rebatch(ds, n):
    from tensorflow.python.data.experimental.ops import distribute
    return distribute._LegacyRebatchDataset(ds, n)


def interleave_cases():
    d = tf.data.Dataset

    def legacy(cycle, block, prefetch):
        return lambda: d.range(1, 7).apply(
            tf.data.experimental.parallel_interleave(
                lambda x: d.range(x * 10, x * 10 + x), cycle_length=cycle,
                block_length=block,
                prefetch_input_elements=prefetch))
    round_trip("legacy_parallel_interleave", legacy(2, 2, 1), 4)
    round_trip("legacy_parallel_interleave_staged", legacy(2, 1, 2), 7)
    round_trip("legacy_parallel_interleave_no_prefetch", legacy(3, 2, 0), 9)


def batch_cases():
    d = tf.data.Dataset
    round_trip("rebatch_mid_batch",
               lambda: rebatch(d.range(14).batch(4), [3, 1, 2]), 2)
    round_trip("rebatch_joined", lambda: rebatch(
        d.range(12).map(lambda x: (x, tf.fill([2], x))).batch(5), [4]), 1)
    round_trip("rebatch_drop_remainder", lambda: rebatch(
        d.range(11).batch(3), [2, 2], drop_remainder=True), 3)
    round_trip("legacy_rebatch",
               lambda: legacy_rebatch(d.range(10).batch(4), 3), 4)
    round_trip("unbatch_mid_batch", lambda: d.range(10).batch(4).unbatch(), 5)
    round_trip("unbatch_two_components", lambda: d.from_tensor_slices(
        (np.arange(12).reshape(6, 2), np.array([b"a", b"b", b"c", b"d",
                                                b"e", b"f"]))).batch(4)
        .unbatch(), 2)
    round_trip("unbatch_batch_boundary",
               lambda: d.range(9).batch(3).unbatch(), 3)


def scan_cases():
    d = tf.data.Dataset
    round_trip("scan", lambda: d.range(8).scan(
        np.int64(0), lambda s, x: (s + x, s * x)), 3)
    round_trip("scan_two_state", lambda: d.range(1, 7).scan(
        (np.int64(1), np.float32(0.5)),
        lambda s, x: ((s[0] * x, s[1] + 1.0), s[1])), 2)
    round_trip("take_while", lambda: d.range(10).take_while(
        lambda x: x < 6), 3)
    round_trip("take_while_ended", lambda: d.range(10).take_while(
        lambda x: x < 3), 4)
    round_trip("unique", lambda: d.from_tensor_slices(
        np.array([1, 3, 1, 2, 3, 5, 2, 7], np.int32)).unique(), 2)
    round_trip("unique_string", lambda: d.from_tensor_slices(
        [b"b", b"a", b"b", b"", b"a", b"c", b""]).unique(), 3)
    round_trip("ignore_errors", lambda: d.from_tensor_slices(
        np.array([1., 2., 0., 4., 0., 8.], np.float32)).map(
            lambda x: tf.debugging.check_numerics(1 / x, "x")).ignore_errors(),
        2)
    round_trip("assert_cardinality", lambda: d.range(5).apply(
        tf.data.experimental.assert_cardinality(5)), 2)
    # The restored iterator goes on counting: the end comes short.
    round_trip("assert_cardinality_short", lambda: d.range(4).filter(
        lambda x: x < 3).apply(tf.data.experimental.assert_cardinality(4)), 2)
    round_trip("choose_from_datasets", lambda: d.choose_from_datasets(
        [d.range(3), d.range(10, 15)],
        d.from_tensor_slices(np.array([0, 1, 1, 0, 0, 0, 1, 0, 1],
                                      np.int64))), 4)
    round_trip("choose_from_datasets_stop_on_empty", lambda:
               d.choose_from_datasets(
                   [d.range(2), d.range(10, 15)],
                   d.from_tensor_slices(np.array([1, 0, 1, 0, 1, 0, 1],
                                                 np.int64)),
                   stop_on_empty_dataset=True), 3)
    # The selector is a RandomDataset: its Philox stream continues.
    round_trip("sample_from_datasets", lambda: d.sample_from_datasets(
        [d.range(10), d.range(100, 110)], weights=[0.3, 0.7], seed=11), 5)
    round_trip("random", lambda: d.random(seed=4).take(6), 3)
    round_trip("from_list", lambda: tf.data.experimental.from_list(
        [(1, b"x"), (2, b"yy"), (3, b"")]), 1)


def from_raw(variant, spec):
    return tf.data.experimental.from_variant(variant, spec)


def sliding_window(ds, size, shift, stride, drop_remainder=False):
    spec = tf.nest.map_structure(
        lambda t: tf.TensorSpec([None] + t.shape.as_list(), t.dtype),
        ds.element_spec)
    return from_raw(RAW.SlidingWindowDataset(
        input_dataset=ds._variant_tensor,
        window_size=tf.constant(size, tf.int64),
        window_shift=tf.constant(shift, tf.int64),
        window_stride=tf.constant(stride, tf.int64),
        drop_remainder=drop_remainder,
        output_types=[t.dtype for t in tf.nest.flatten(spec)],
        output_shapes=[t.shape for t in tf.nest.flatten(spec)]), spec)


def sampling(ds, rate, seed, seed2):
    flat = tf.nest.flatten(ds.element_spec)
    return from_raw(RAW.SamplingDataset(
        input_dataset=ds._variant_tensor, rate=rate, seed=seed, seed2=seed2,
        output_types=[t.dtype for t in flat],
        output_shapes=[t.shape for t in flat]), ds.element_spec)


def sleep(ds, micros):
    flat = tf.nest.flatten(ds.element_spec)
    return from_raw(RAW.SleepDataset(
        input_dataset=ds._variant_tensor,
        sleep_microseconds=tf.constant(micros, tf.int64),
        output_types=[t.dtype for t in flat],
        output_shapes=[t.shape for t in flat]), ds.element_spec)


def example(i):
    """A serialized tf.train.Example with an int64 "n" (i of them) and a
    string "s"."""
    f = tf.train.Feature
    return tf.train.Example(features=tf.train.Features(feature={
        "n": f(int64_list=tf.train.Int64List(value=list(range(i)))),
        "s": f(bytes_list=tf.train.BytesList(value=[b"e%d" % i])),
    })).SerializeToString()


def other_cases():
    d = tf.data.Dataset
    # TensorFlow 2.21 fails the save (InvalidArgument "Key: buffer_size was
    # not generated using full_name."); dfx refuses with the same code.
    round_trip("sliding_window", lambda: sliding_window(d.range(10), 3, 2, 1),
               2)
    round_trip("sliding_window_stride_drop", lambda: sliding_window(
        d.range(1, 14).map(lambda x: (x, tf.fill([2], x))), 2, 3, 2,
        drop_remainder=True), 1)
    round_trip("sleep", lambda: sleep(d.range(4), 10), 2)
    round_trip("sampling", lambda: sampling(d.range(30), 0.5, 3, 4), 4)
    round_trip("sampling_random_seeds",
               lambda: sampling(d.range(6), 1.0, 0, 0), 2)
    round_trip("group_by_reducer", lambda: d.range(1, 12).apply(
        tf.data.experimental.group_by_reducer(
            lambda x: x % 3, tf.data.experimental.Reducer(
                lambda k: np.int64(0), lambda s, x: s * 10 + x,
                lambda s: s))), 1)
    round_trip("group_by_reducer_unread", lambda: d.range(1, 12).apply(
        tf.data.experimental.group_by_reducer(
            lambda x: x % 4, tf.data.experimental.Reducer(
                lambda k: (k, np.int64(0)), lambda s, x: (s[0], s[1] + x),
                lambda k, n: k * 1000 + n))), 0)
    st = tf.sparse.SparseTensor
    round_trip("sparse_tensor_slices", lambda: d.from_tensor_slices(st(
        indices=[[0, 1], [0, 3], [2, 0], [3, 2], [3, 3]],
        values=np.array([1.5, 2.5, 3.5, 4.5, 5.5], np.float32),
        dense_shape=[5, 4])).map(
            lambda s: (s.indices, s.values, s.dense_shape)), 2)
    round_trip("dense_to_sparse_batch", lambda: d.range(1, 8).map(
        lambda x: tf.fill([x % 3], x)).apply(
            tf.data.experimental.dense_to_sparse_batch(2, [3])).map(
                lambda s: (s.indices, s.values, s.dense_shape)), 2)
    round_trip("parse_example", lambda: d.from_tensor_slices(
        [example(i) for i in range(5)]).batch(2).apply(
            tf.data.experimental.parse_example_dataset({
                "n": tf.io.VarLenFeature(tf.int64),
                "s": tf.io.FixedLenFeature([], tf.string)})).map(
                    lambda f: (f["n"].values, f["s"])), 1)
    csv = {"a.csv": b"h1,h2\n1,x\n2,\"y,z\"\n3,w\n",
           "b.csv": b"h1,h2\n4,\"multi\nline\"\n5,v"}
    # Saved where a file's one record is left: TensorFlow 2.21's restored
    # CSV iterator gives only one more record of the file it was in (from
    # 1,2,3,4 saved after 1 it gives 2 and ends), so the cases restore only
    # where that is the file's rest; tests/kernels/itckpt2_test.cc restores
    # mid-file.
    round_trip("csv_second_file", lambda p: tf.data.experimental.CsvDataset(
        p, [tf.int64, tf.constant(["-"])], header=True), 4, files=csv)


def save_v2_cases():
    """SaveDatasetV2 (Dataset.save's writing pass) saved after k elements:
    the restored iterator writes the rest into the saved run, the next
    checkpoint file of each shard; a load of the directory then reads
    every element once (shard x % 2, the shards in order)."""
    import gen_dataset4 as g4
    from gen_lookup import SCRATCH_DIR

    def case(name, n, k):
        def build():
            path = tf1.placeholder(tf.string, shape=[], name="path")
            ds = tf.data.Dataset.range(n)
            saved = g4.save_v2(ds, path, lambda x: x % 2)
            first = tf1.data.make_initializable_iterator(saved)
            second = tf1.data.make_initializable_iterator(saved)
            state = RAW.SerializeIterator(
                resource_handle=first._iterator_resource)
            out = {"path": path, "init1": first.initializer,
                   "init2": second.initializer, "next1": first.get_next(),
                   "next2": second.get_next(),
                   "copy": RAW.DeserializeIterator(
                       resource_handle=second._iterator_resource,
                       serialized=state)}
            g4.iterate(g4.load(path, ds.element_spec), "r", out)
            return out
        at = {"path": SCRATCH_DIR + "/saved"}
        steps = ([(["init1"], at)] + [(["next1"], {})] * k +
                 [(["init2"], at), (["copy"], at)] +
                 [(["next2"], {})] * (n - k + 1) + [(["rinit"], at)] +
                 [(["rc0"], {})] * (n + 1))
        gen_lookup.steps_case(gen_itckpt.folder(), name, build, steps)
    case("save_v2", 7, 3)
    case("save_v2_at_start", 4, 0)


def main():
    window_cases()
    batch_cases()
    interleave_cases()
    scan_cases()
    other_cases()
    save_v2_cases()


if __name__ == "__main__":
    main()

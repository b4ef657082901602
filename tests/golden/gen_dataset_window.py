#!/usr/bin/env python3
"""Golden cases for tf.data's random and regrouping datasets:
Dataset.random (RandomDataset, RandomDatasetV2), sample_from_datasets and
choose_from_datasets, window (WindowDataset), group_by_window and
bucket_by_sequence_length (GroupByWindowDataset), SparseTensor elements
(SerializeManySparse, SparseTensorSliceDataset, DenseToSparseBatchDataset)
and rebatch (RebatchDatasetV2, RebatchDataset); in TF1 graphs and traced
in tf.function, with TensorFlow's run-time errors. Also writes the ops'
OpDefs and CPU kernel types (tf_op_defs.pbtxt, tf_cpu_kernels.txt).

    $(tools/tf_env) tests/golden/gen_dataset_window.py
"""

import numpy as np

import golden_lib
from golden_lib import case, tf, tf1

FAMILY = "dataset_window"

OP_NAMES = ["RandomDataset", "RandomDatasetV2", "WindowDataset",
            "GroupByWindowDataset", "RebatchDatasetV2", "RebatchDataset",
            "SparseTensorSliceDataset", "DenseToSparseBatchDataset",
            "SerializeManySparse", "ShuffleAndRepeatDataset",
            "MapAndBatchDataset"]


def flat(x):
    return tf.nest.flatten(x, expand_composites=True)


def pipeline(name, make, k, note=""):
    """`k` pulls of a TF1 initializable iterator, every component fetched
    (a SparseTensor as its three tensors)."""
    def build():
        it = tf1.data.make_initializable_iterator(make())
        fetches = []
        deps = [it.initializer]
        for _ in range(k):
            with tf.control_dependencies(deps):
                out = flat(it.get_next())
            fetches.extend(out)
            deps = out
        return fetches, None
    case(FAMILY, name, build, note=note)


def fn_pipeline(name, make, k, note=""):
    """The same pulled inside a tf.function (TensorFlow 2's ops)."""
    def build():
        @tf.function
        def pull():
            it = iter(make())
            out = []
            for _ in range(k):
                out.extend(flat(next(it)))
            return out
        return pull(), None
    case(FAMILY, name, build, note=note)


def both(name, make, k, note=""):
    pipeline(name, make, k, note=note)
    fn_pipeline("fn_" + name, make, k, note=note)


def cardinality(name, make):
    case(FAMILY, name,
         lambda: (tf.data.experimental.cardinality(make()), None))


def main():
    r = tf.data.Dataset.range
    x = np.arange(24, dtype=np.float32).reshape(12, 2)

    # Dataset.random: TensorFlow's Philox words; the same stream each epoch
    # unless rerandomize_each_iteration.
    both("random_seeded", lambda: tf.data.Dataset.random(seed=4).take(6), 6)
    pipeline("random_repeat_same",
             lambda: tf.data.Dataset.random(seed=7).take(3).repeat(2), 6,
             note="RandomDataset: both epochs equal")
    both("random_rerandomize",
         lambda: tf.data.Dataset.random(
             seed=7, rerandomize_each_iteration=True).take(3).repeat(3), 9,
         note="RandomDatasetV2: each epoch new seeds")
    pipeline("random_rerandomize_false",
             lambda: tf.data.Dataset.random(
                 seed=7, rerandomize_each_iteration=False).take(3).repeat(2),
             6)

    def graph_seed_random():
        tf1.set_random_seed(11)
        return tf.data.Dataset.random().take(4)
    pipeline("random_graph_seed", graph_seed_random, 4)
    cardinality("random_cardinality", lambda: tf.data.Dataset.random(seed=1))

    # tf.data.experimental.shuffle_and_repeat in a TF1 graph: the fused
    # ShuffleAndRepeatDataset, reshuffled per epoch or not.
    pipeline("shuffle_and_repeat",
             lambda: r(6).apply(tf.data.experimental.shuffle_and_repeat(
                 4, count=3, seed=5)), 18)
    pipeline("shuffle_and_repeat_forever",
             lambda: r(5).apply(tf.data.experimental.shuffle_and_repeat(
                 5, seed=2)), 12)

    # tf.data.experimental.map_and_batch: the fused MapAndBatchDataset.
    def map_and_batch():
        scale = tf.constant(3, tf.int64)
        return r(10).apply(tf.data.experimental.map_and_batch(
            lambda v: (v * scale, tf.cast(v, tf.float32) / 2.0), 4,
            num_parallel_calls=2))
    pipeline("map_and_batch", map_and_batch, 3)
    pipeline("map_and_batch_drop_remainder",
             lambda: r(10).apply(tf.data.experimental.map_and_batch(
                 lambda v: v + 1, 4, drop_remainder=True)), 3,
             note="2 batches, then OutOfRange")
    pipeline("map_and_batch_error",
             lambda: tf.data.Dataset.from_tensor_slices(
                 np.array([1.0, -1.0, 4.0], np.float32)).apply(
                     tf.data.experimental.map_and_batch(
                         lambda e: tf.debugging.check_numerics(
                             tf.math.log(e), "bad"), 2)), 1)

    # sample_from_datasets: a RandomDataset batched in pairs into stateless
    # categorical draws, then a directed interleave.
    sources = lambda: [r(0, 5), r(100, 110), r(1000, 1003)]  # noqa: E731
    both("sample_from_datasets",
         lambda: tf.data.Dataset.sample_from_datasets(
             sources(), weights=[0.5, 0.3, 0.2], seed=9), 12)
    pipeline("sample_from_datasets_uniform",
             lambda: tf.data.Dataset.sample_from_datasets(
                 sources(), seed=3), 10)
    pipeline("sample_from_datasets_stop_on_empty",
             lambda: tf.data.Dataset.sample_from_datasets(
                 sources(), weights=[0.2, 0.2, 0.6], seed=5,
                 stop_on_empty_dataset=True), 6,
             note="may end early: the pull past the end is OutOfRange")
    pipeline("sample_from_datasets_rerandomize",
             lambda: tf.data.Dataset.sample_from_datasets(
                 [r(0, 3), r(10, 13)], weights=[0.5, 0.5], seed=5,
                 rerandomize_each_iteration=True).repeat(2), 12)
    pipeline("sample_from_datasets_exhausts",
             lambda: tf.data.Dataset.sample_from_datasets(
                 [r(0, 2), r(10, 12)], seed=2), 5,
             note="4 elements, then OutOfRange")
    both("choose_from_datasets_repeat_selector",
         lambda: tf.data.Dataset.choose_from_datasets(
             [r(0, 4), r(10, 14)], r(2).repeat()), 8)

    # window: size, shift, stride, drop_remainder, consumed by flat_map,
    # interleave and zip of the component windows.
    both("window_batch",
         lambda: r(10).window(3).flat_map(lambda w: w.batch(3)), 4)
    both("window_shift_stride",
         lambda: r(12).window(3, shift=2, stride=2).flat_map(
             lambda w: w.batch(3)), 6)
    pipeline("window_drop_remainder",
             lambda: r(10).window(4, shift=3, drop_remainder=True).flat_map(
                 lambda w: w.batch(4)), 3,
             note="2 windows, then OutOfRange")
    pipeline("window_shift_past_size",
             lambda: r(15).window(2, shift=5).flat_map(lambda w: w.batch(2)),
             3, note="elements between windows skipped")
    pipeline("window_stride_past_end",
             lambda: r(7).window(3, shift=1, stride=3).flat_map(
                 lambda w: w.batch(3)), 7)
    pipeline("window_tuple",
             lambda: tf.data.Dataset.from_tensor_slices(
                 (x, np.arange(12, dtype=np.int64))).window(5, shift=4).flat_map(
                     lambda a, b: tf.data.Dataset.zip((a.batch(5),
                                                       b.batch(5)))), 3)
    pipeline("window_dict",
             lambda: tf.data.Dataset.from_tensor_slices(
                 {"s": ["a", "b", "c", "d", "e"],
                  "v": np.arange(5, dtype=np.int32)}).window(2).flat_map(
                     lambda d: tf.data.Dataset.zip(
                         (d["s"].batch(2), d["v"].batch(2)))), 3)
    pipeline("window_interleave",
             lambda: r(8).window(4).interleave(
                 lambda w: w.map(lambda v: v * 10), cycle_length=2), 8)
    pipeline("window_reduce",
             lambda: r(9).window(3, 2).map(
                 lambda w: w.reduce(tf.constant(0, tf.int64),
                                    lambda s, e: s + e)), 5)
    pipeline("window_empty_input",
             lambda: r(0).window(3).flat_map(lambda w: w.batch(3)), 1)
    for arg, kw in (("size", dict(size=0)), ("shift", dict(size=2, shift=-1)),
                    ("stride", dict(size=2, stride=0))):
        pipeline(f"window_bad_{arg}",
                 lambda kw=kw: r(5).window(**kw).flat_map(
                     lambda w: w.batch(2)), 1)
    cardinality("window_cardinality", lambda: r(10).window(3, 2))
    cardinality("window_cardinality_drop",
                lambda: r(10).window(3, 2, 2, drop_remainder=True))

    # group_by_window: groups filled in turn, the rest flushed smallest key
    # first; window sizes per key; captured tensors in each function.
    both("group_by_window",
         lambda: r(11).group_by_window(
             key_func=lambda v: v % 3,
             reduce_func=lambda k, w: w.batch(2), window_size=2), 6)
    pipeline("group_by_window_size_func",
             lambda: r(12).group_by_window(
                 key_func=lambda v: v % 2,
                 reduce_func=lambda k, w: w.batch(5).map(
                     lambda b: (k, b)),
                 window_size_func=lambda k: k + 2), 5)
    def captured():
        m = tf.constant(4, tf.int64)
        scale = tf.constant(100, tf.int64)
        size = tf.constant(3, tf.int64)
        return r(10).group_by_window(
            key_func=lambda v: v % m,
            reduce_func=lambda k, w: w.map(lambda v: v + k * scale).batch(3),
            window_size_func=lambda k: size)
    pipeline("group_by_window_captured", captured, 4)
    pipeline("group_by_window_bad_size",
             lambda: r(4).group_by_window(
                 key_func=lambda v: v % 2,
                 reduce_func=lambda k, w: w.batch(2),
                 window_size_func=lambda k: k - 1), 1)
    pipeline("group_by_window_past_end",
             lambda: r(5).group_by_window(
                 key_func=lambda v: v % 2,
                 reduce_func=lambda k, w: w.batch(10), window_size=10), 3)

    # bucket_by_sequence_length: padded batches per length bucket.
    seqs = lambda: r(1, 12).map(  # noqa: E731
        lambda v: tf.fill(tf.expand_dims(v % 7 + 1, 0), v))
    both("bucket_by_sequence_length",
         lambda: seqs().bucket_by_sequence_length(
             lambda e: tf.shape(e)[0], bucket_boundaries=[3, 5],
             bucket_batch_sizes=[2, 2, 3]), 5)
    pipeline("bucket_by_sequence_length_pad_to_boundary",
             lambda: seqs().bucket_by_sequence_length(
                 lambda e: tf.shape(e)[0], bucket_boundaries=[3, 8],
                 bucket_batch_sizes=[3, 2, 2],
                 padding_values=tf.constant(-1, tf.int64),
                 pad_to_bucket_boundary=True, drop_remainder=True), 3)

    # SparseTensors as elements.
    st = lambda: tf.sparse.SparseTensor(  # noqa: E731
        [[0, 0], [0, 3], [2, 1], [3, 0], [3, 2]],
        np.array([1.5, 2.0, -1.0, 4.0, 8.0], np.float32), [5, 4])
    both("sparse_slices", lambda: tf.data.Dataset.from_tensor_slices(st()), 5)
    pipeline("sparse_slices_int_3d",
             lambda: tf.data.Dataset.from_tensor_slices(tf.sparse.SparseTensor(
                 [[0, 1, 1], [1, 0, 0], [1, 0, 2]],
                 np.array([7, 8, 9], np.int64), [2, 2, 3])), 2)
    pipeline("sparse_slices_batch",
             lambda: tf.data.Dataset.from_tensor_slices(st()).batch(2), 3)
    pipeline("sparse_slices_unordered",
             lambda: tf.data.Dataset.from_tensor_slices(tf.sparse.SparseTensor(
                 [[1, 0], [0, 0]], np.array([1, 2], np.int32), [2, 2])), 1)
    pipeline("sparse_tensor_slice_dataset",
             lambda: tf1.data.Dataset.from_sparse_tensor_slices(st()), 5)
    pipeline("sparse_tensor_slice_dataset_strings",
             lambda: tf1.data.Dataset.from_sparse_tensor_slices(
                 tf.sparse.SparseTensor([[1, 0], [1, 1], [2, 0]],
                                        ["x", "yy", ""], [3, 2])), 3)
    pipeline("sparse_tensor_slice_dataset_unordered",
             lambda: tf1.data.Dataset.from_sparse_tensor_slices(
                 tf.sparse.SparseTensor([[2, 0], [1, 0]],
                                        np.array([1, 2], np.int32), [3, 2])),
             1)
    pipeline("sparse_batch",
             lambda: r(6).map(lambda v: tf.range(v % 4)).sparse_batch(
                 4, [5]), 2)
    pipeline("sparse_batch_unknown_dim",
             lambda: r(5).map(lambda v: tf.fill(tf.stack([2, v % 3]),
                                                tf.cast(v, tf.float64))
                              ).sparse_batch(3, [2, None]), 2)
    pipeline("sparse_batch_too_large",
             lambda: r(6).map(lambda v: tf.range(v)).sparse_batch(4, [3]), 2,
             note="the second batch is DataLoss")
    pipeline("sparse_batch_bad_rank",
             lambda: r(4).map(lambda v: tf.range(v)).sparse_batch(2, [3, 3]),
             1)

    # rebatch: batch sizes in turn, cut across input batches.
    both("rebatch", lambda: r(10).batch(4).rebatch(3), 4)
    pipeline("rebatch_sizes",
             lambda: tf.data.Dataset.from_tensor_slices(
                 (x, np.arange(12, dtype=np.int64))).batch(5).rebatch(
                     [2, 0, 4]), 5)
    pipeline("rebatch_drop_remainder",
             lambda: r(10).batch(4).rebatch(3, drop_remainder=True), 4,
             note="3 batches, then OutOfRange")
    pipeline("rebatch_strings",
             lambda: tf.data.Dataset.from_tensor_slices(
                 ["a", "b", "c", "d", "e"]).batch(2).rebatch(3), 2)

    from tensorflow.python.data.experimental.ops import distribute
    pipeline("legacy_rebatch",
             lambda: distribute._LegacyRebatchDataset(r(10).batch(5), 3), 6)

    golden_lib.write_op_defs(
        FAMILY, OP_NAMES, type_attrs={"SparseTensorSliceDataset": "Tvalues"})


if __name__ == "__main__":
    main()

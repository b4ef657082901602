#!/usr/bin/env python3
"""Golden cases for tf.data: input pipelines and their iterators.

Each case builds a pipeline, makes an iterator and pulls `k` elements in one
step (each IteratorGetNext waits for the one before), fetching every
component of every element. Pulling past the end records TensorFlow's
OutOfRange. Most cases build TF1 graphs (ShuffleDataset, IteratorV2,
MakeIterator); the `fn_` cases trace the same inside a tf.function, which
gives TensorFlow 2's ops (ShuffleDatasetV3 with a DummySeedGenerator,
AnonymousIteratorV3) in a function library.

    $(tools/tf_env) tests/golden/gen_dataset.py
"""

import numpy as np

from golden_lib import case, tf, tf1

FAMILY = "dataset"



def pipeline(name, make, k, note="", family=FAMILY):
    def build():
        ds = make()
        it = tf1.data.make_initializable_iterator(ds)
        fetches = []
        deps = [it.initializer]
        for _ in range(k):
            with tf.control_dependencies(deps):
                flat = tf.nest.flatten(it.get_next())
            fetches.extend(flat)
            deps = flat
        return fetches, None
    case(family, name, build, note=note)


def one_shot(name, make, k, note=""):
    """Pulled through tf.compat.v1.data.make_one_shot_iterator (the dataset
    rebuilt by the iterator's dataset_factory function)."""
    def build():
        it = tf1.data.make_one_shot_iterator(make())
        fetches = []
        deps = []
        for _ in range(k):
            with tf.control_dependencies(deps):
                flat = tf.nest.flatten(it.get_next())
            fetches.extend(flat)
            deps = flat
        return fetches, None
    case(FAMILY, name, build, note=note)


def fn_pipeline(name, make, k, note="", family=FAMILY):
    """The same pulled inside a tf.function (TensorFlow 2's dataset ops)."""
    def build():
        @tf.function
        def pull():
            it = iter(make())
            out = []
            for _ in range(k):
                out.extend(tf.nest.flatten(next(it)))
            return out
        return pull(), None
    case(family, name, build, note=note)


def main():
    x = np.arange(24, dtype=np.float32).reshape(12, 2)
    y = np.arange(100, 112, dtype=np.int64)
    r = tf.data.Dataset.range

    pipeline("range", lambda: r(5), 5)
    pipeline("range_negative_step", lambda: r(10, 2, -3), 3)
    pipeline("range_past_end", lambda: r(3), 4,
             note="the 4th IteratorGetNext is OutOfRange")
    pipeline("slices_tuple",
             lambda: tf.data.Dataset.from_tensor_slices((x, y)), 12)
    pipeline("slices_dict",
             lambda: tf.data.Dataset.from_tensor_slices({"a": x, "b": y}), 3)
    pipeline("tensors", lambda: tf.data.Dataset.from_tensors((x, y)), 1)
    pipeline("map_captured",
             lambda: r(6).map(lambda v: v * 2 + tf.constant(7, tf.int64)), 6)
    pipeline("map_tuple",
             lambda: tf.data.Dataset.from_tensor_slices((x, y)).map(
                 lambda a, b: (a * 2.0 + 1.0, b - 100, tf.reduce_sum(a))), 4)
    pipeline("map_parallel",
             lambda: r(8).map(lambda v: v * v, num_parallel_calls=4), 8)
    pipeline("filter",
             lambda: r(10).filter(lambda v: tf.equal(v % 3, 0)), 4)
    pipeline("batch", lambda: tf.data.Dataset.from_tensor_slices(
        (x, y)).batch(5), 3, note="the last batch has 2 rows")
    pipeline("batch_drop_remainder",
             lambda: r(7).batch(3, drop_remainder=True), 3,
             note="2 batches, then OutOfRange")
    pipeline("batch_shapes_differ",
             lambda: r(1, 4).map(lambda v: tf.range(v)).batch(2), 1)
    pipeline("repeat_take", lambda: r(3).repeat(3).take(7), 7)
    pipeline("repeat_forever", lambda: r(2).repeat(), 5)
    pipeline("take_past_end", lambda: r(3).repeat().take(4), 5)
    pipeline("skip", lambda: r(10).skip(7), 3)
    pipeline("shard", lambda: r(10).shard(3, 1), 3)
    pipeline("zip", lambda: tf.data.Dataset.zip((r(5), r(10, 20))), 5)
    pipeline("concatenate", lambda: r(3).concatenate(r(10, 12)), 5)
    pipeline("prefetch", lambda: r(4).prefetch(2), 4)
    pipeline("flat_map", lambda: r(1, 4).flat_map(
        lambda v: tf.data.Dataset.range(v * 10, v * 10 + v)), 6)
    pipeline("interleave", lambda: r(1, 5).interleave(
        lambda v: tf.data.Dataset.range(v * 10, v * 10 + v),
        cycle_length=2, block_length=2), 10)
    pipeline("interleave_parallel", lambda: r(1, 5).interleave(
        lambda v: tf.data.Dataset.from_tensors(v).repeat(v),
        cycle_length=3, block_length=1, num_parallel_calls=2), 10)
    pipeline("unbatch", lambda: tf.data.Dataset.from_tensor_slices(
        (x, y)).batch(5).unbatch(), 12)
    pipeline("padded_batch", lambda: r(1, 6).map(
        lambda v: tf.fill(tf.stack([v, 2]), v)).padded_batch(
            2, padded_shapes=[None, 3], padding_values=tf.constant(-1, tf.int64)),
        3)
    pipeline("padded_batch_too_small", lambda: r(1, 4).map(
        lambda v: tf.range(v)).padded_batch(2, padded_shapes=[2]), 2)
    pipeline("cache_repeat",
             lambda: r(4).map(lambda v: v * 5).cache().repeat(3), 12)
    pipeline("cache_then_shuffle",
             lambda: r(6).cache().shuffle(6, seed=2).repeat(2), 12)
    fn_pipeline("fn_cache", lambda: r(3).cache().repeat(2), 6)
    pipeline("shuffle_seeded", lambda: r(20).shuffle(7, seed=3), 20)
    pipeline("shuffle_buffer_larger_than_input",
             lambda: r(10).shuffle(100, seed=1), 10)
    pipeline("shuffle_buffer_one", lambda: r(5).shuffle(1, seed=1), 5)
    pipeline("shuffle_reshuffles_each_epoch",
             lambda: r(6).shuffle(4, seed=5).repeat(3), 18)
    pipeline("shuffle_same_order_each_epoch",
             lambda: r(6).shuffle(4, seed=5,
                                  reshuffle_each_iteration=False).repeat(2),
             12)

    def graph_seed():
        tf1.set_random_seed(42)
        return r(10).shuffle(10)
    pipeline("shuffle_graph_seed", graph_seed, 10,
             note="seeds from the graph seed, no op seed")
    pipeline("pipeline",
             lambda: tf.data.Dataset.from_tensor_slices((x, y))
             .shuffle(10, seed=3).repeat()
             .map(lambda a, b: (a * 0.5, b % 7)).batch(4).prefetch(2), 6)

    one_shot("one_shot_map", lambda: r(5).map(lambda v: v * 3), 5)
    one_shot("one_shot_shuffle_batch",
             lambda: r(12).shuffle(5, seed=4).batch(4), 3)
    one_shot("one_shot_past_end", lambda: r(2), 3)

    fn_pipeline("fn_shuffle_batch",
                lambda: r(10).shuffle(6, seed=3).batch(3), 3)
    fn_pipeline("fn_pipeline",
                lambda: tf.data.Dataset.from_tensor_slices((x, y))
                .shuffle(12, seed=9).repeat(2)
                .map(lambda a, b: (a + 1.0, b)).batch(5).prefetch(1), 4)
    fn_pipeline("fn_past_end", lambda: r(2).map(lambda v: v + 1), 3)

    def cardinality(make):
        def build():
            return tf.data.experimental.cardinality(make()), None
        return build
    case(FAMILY, "cardinality_batch",
         cardinality(lambda: r(10).batch(3)))
    case(FAMILY, "cardinality_infinite",
         cardinality(lambda: r(10).repeat().take(-1)))
    case(FAMILY, "cardinality_filter_unknown",
         cardinality(lambda: r(10).filter(lambda v: tf.greater(v, 3))))


if __name__ == "__main__":
    main()

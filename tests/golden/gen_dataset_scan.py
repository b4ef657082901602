#!/usr/bin/env python3
"""Golden cases for the tf.data transformations that carry something
between elements or consume a whole dataset: scan, take_while, unique,
ignore_errors, assert_cardinality, choose_from_datasets (a directed
interleave), batch with num_parallel_calls (ParallelBatchDataset), and
Dataset.reduce and get_single_element; in TF1 graphs and traced in
tf.function, with TensorFlow's run-time errors.

    $(tools/tf_env) tests/golden/gen_dataset_scan.py
"""

import numpy as np

from gen_dataset import fn_pipeline, pipeline
from golden_lib import case, tf, tf1

FAMILY = "dataset_scan"


def both(name, make, k, note=""):
    pipeline(name, make, k, note=note, family=FAMILY)
    fn_pipeline("fn_" + name, make, k, note=note, family=FAMILY)


def single(name, fn, note=""):
    """A graph that computes `fn()` (no iterator): reduce, get_single_element."""
    def build():
        out = tf.nest.flatten(fn())
        return out, None
    case(FAMILY, name, build, note=note)


def main():
    r = tf.data.Dataset.range
    x = np.arange(12, dtype=np.float32).reshape(6, 2)

    # scan: a running sum, a state of two components, outputs of another
    # dtype than the state, captured tensors.
    both("scan_running_sum",
         lambda: r(1, 8).scan(tf.constant(0, tf.int64),
                              lambda s, e: (s + e, s * 10 + e)), 7)
    both("scan_two_states",
         lambda: tf.data.Dataset.from_tensor_slices(x).scan(
             (tf.constant(0.0), tf.constant(1, tf.int32)),
             lambda s, e: ((s[0] + tf.reduce_sum(e), s[1] * 2),
                           (e * s[0], tf.cast(s[1], tf.float64)))), 6)
    def scan_captured():
        scale = tf.constant(3, tf.int64)  # in the case's graph
        return r(5).scan(tf.constant(1, tf.int64),
                         lambda s, e: (s * scale, s + e))
    pipeline("scan_captured", scan_captured, 5, family=FAMILY)
    # take_while, with a predicate that turns false mid-way and one never.
    both("take_while", lambda: r(20).take_while(lambda e: e * e < 30), 6)
    pipeline("take_while_end",
             lambda: r(20).take_while(lambda e: e * e < 30), 7,
             note="the 7th pull is OutOfRange", family=FAMILY)
    both("take_while_all", lambda: r(4).take_while(lambda e: e < 100), 4)
    # unique over int32, int64 and strings.
    both("unique_int64",
         lambda: tf.data.Dataset.from_tensor_slices(
             np.array([3, 1, 3, 2, 1, 5, 2], np.int64)).unique(), 4)
    both("unique_int32",
         lambda: tf.data.Dataset.from_tensor_slices(
             np.array([7, 7, -1, 0, -1], np.int32)).unique(), 3)
    both("unique_string",
         lambda: tf.data.Dataset.from_tensor_slices(
             ["b", "a", "b", "", "a", "c"]).unique(), 4)
    # ignore_errors: a map that fails on some elements.
    both("ignore_errors",
         lambda: tf.data.Dataset.from_tensor_slices(
             np.array([1.0, 0.0, 4.0, -1.0, 9.0], np.float32)).map(
                 lambda e: tf.debugging.check_numerics(
                     tf.math.log(e), "bad")).ignore_errors(), 3,
         note="log(0) and log(-1) dropped")
    # assert_cardinality: right, too few, too many.
    both("assert_cardinality_ok",
         lambda: r(3).filter(lambda e: e >= 0).apply(
             tf.data.experimental.assert_cardinality(3)), 3)
    pipeline("assert_cardinality_ok_end",
             lambda: r(3).filter(lambda e: e >= 0).apply(
                 tf.data.experimental.assert_cardinality(3)), 4,
             note="the 4th pull is OutOfRange, not FailedPrecondition",
             family=FAMILY)
    pipeline("assert_cardinality_too_few",
             lambda: r(2).filter(lambda e: e >= 0).apply(
                 tf.data.experimental.assert_cardinality(3)), 3,
             family=FAMILY)
    pipeline("assert_cardinality_too_many",
             lambda: r(5).filter(lambda e: e >= 0).apply(
                 tf.data.experimental.assert_cardinality(2)), 3,
             family=FAMILY)
    # choose_from_datasets: a directed interleave; an input running out is
    # skipped, or ends everything with stop_on_empty_dataset.
    sources = lambda: [r(0, 3), r(10, 12), r(100, 105)]  # noqa: E731
    choice = np.array([0, 1, 2, 1, 1, 0, 2, 0, 0, 2, 1], np.int64)
    both("choose_from_datasets",
         lambda: tf.data.Dataset.choose_from_datasets(
             sources(), tf.data.Dataset.from_tensor_slices(choice),
             stop_on_empty_dataset=False), 8)
    both("choose_from_datasets_stop_on_empty",
         lambda: tf.data.Dataset.choose_from_datasets(
             sources(), tf.data.Dataset.from_tensor_slices(choice),
             stop_on_empty_dataset=True), 4)
    pipeline("choose_from_datasets_bad_index",
             lambda: tf.data.Dataset.choose_from_datasets(
                 sources(), tf.data.Dataset.from_tensor_slices(
                     np.array([0, 5], np.int64))), 2, family=FAMILY)
    # batch with num_parallel_calls: ParallelBatchDataset.
    both("parallel_batch",
         lambda: r(11).batch(4, num_parallel_calls=3), 3)
    both("parallel_batch_drop_remainder",
         lambda: tf.data.Dataset.from_tensor_slices(x).batch(
             4, drop_remainder=True, num_parallel_calls=2,
             deterministic=True), 1)
    # reduce and get_single_element.
    single("reduce_sum", lambda: r(10).reduce(tf.constant(0, tf.int64),
                                              lambda s, e: s + e))
    single("reduce_two_states",
           lambda: tf.data.Dataset.from_tensor_slices(x).reduce(
               (tf.zeros([2]), tf.constant(0, tf.int32)),
               lambda s, e: (s[0] + e * 2.0, s[1] + 1)))
    single("reduce_empty", lambda: r(0).reduce(tf.constant(7, tf.int64),
                                               lambda s, e: s + e))
    single("single_element",
           lambda: tf.data.Dataset.from_tensors((x, "a")).get_single_element())
    single("single_element_empty", lambda: r(0).get_single_element())
    single("single_element_two", lambda: r(2).get_single_element())


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Golden cases of the randaccess family: random access to tf.data
datasets (TensorFlow's DatasetBase::Get) as TensorFlow 2.21 gives it,
through GetElementAtIndex (tf.data.experimental.at) and
GlobalShuffleDataset (global_shuffle), whose ops the dataset6 family
(gen_dataset6.py) covers. Writes those two ops' OpDefs too
(tests/golden/data/randaccess/tf_op_defs.pbtxt), which
tests/kernels/randaccess_test.cc compares byte for byte with dfx's.

    $(tools/tf_env) tests/golden/gen_randaccess.py

at_* cases: each index a step of its own (an error fails its step only)
over every dataset TensorFlow reads by index: range (at 10**11 of
range(10**12), which a walk could not answer), tensor slices, from_tensors,
map (captured inputs) and parallel map, batch (a short last batch, an input
of unknown cardinality: TensorFlow's OutOfRange "[0, -2)"), take and skip
(negative counts), finite repeat, zip (nested), concatenate, shard, memory
cache, prefetch, options, assert_cardinality (a wrong assertion:
FailedPrecondition) and unbatch (a static batch size); indices outside
the cardinality (OutOfRange), inputs of infinite or unknown cardinality
(FailedPrecondition) and datasets without random access (Unimplemented).

gs_* cases: GlobalShuffleDataset over those pipelines (element i is the
input's element at TensorFlow's index shuffle of i), with fixed seeds and
reshuffled epochs, an iterator save and restore in the middle of a
shuffled epoch, and the inputs TensorFlow refuses (FailedPrecondition).

Left out: GetElementAtIndex over a ShuffleDataset, whose Get in TensorFlow
permutes all indices with its own generator (dfx answers Unimplemented),
and map functions with random ops (their values differ run to run).
"""

import golden_lib
import gen_itckpt
from golden_lib import tf
from gen_dataset6 import at_case, global_shuffle_case, gshuffle, plain, r

FAMILY = "randaccess"
OPS = ["GetElementAtIndex", "GlobalShuffleDataset"]
d = tf.data.Dataset


def slices():
    return d.from_tensor_slices(
        (tf.constant([[1.5, 2.5], [3.5, 4.5], [5.5, 6.5], [7.5, 8.5]]),
         tf.constant(["a", "bb", "", "dddd"])))


def at_cases(folder):
    at_case(folder, "at_range_huge", lambda: r(10**12),
            [10**11, 10**12 - 1, 10**12],
            note="Get, not a walk: index 10**11 at once")
    at_case(folder, "at_range_negative_step_int32",
            lambda: d.range(100, -5, -7, output_type=tf.int32),
            [0, 5, 14, 15, -1])
    at_case(folder, "at_slices_tuple", slices, [0, 3, 4])
    at_case(folder, "at_slices_empty",
            lambda: d.from_tensor_slices(tf.zeros([0, 2])), [0])
    at_case(folder, "at_from_tensors_tuple",
            lambda: d.from_tensors((tf.constant([[1, 2]], tf.int32),
                                    tf.constant(True))), [0, 1])
    at_case(folder, "at_map_captured",
            lambda: r(10).map(lambda x: x * tf.constant(3, tf.int64) + 1),
            [0, 9, 10])
    at_case(folder, "at_map_tuple",
            lambda: slices().map(lambda x, s: (tf.reduce_sum(x),
                                               tf.strings.length(s))), [2])
    # (A map right before a batch would be fused into MapAndBatchDataset
    # by TensorFlow's graph optimizations, which has no random access.)
    at_case(folder, "at_parallel_map_skip",
            lambda: r(21).map(lambda x: x * x, num_parallel_calls=3)
            .skip(2), [0, 18, 19])
    at_case(folder, "at_batch_drop_remainder", lambda: r(10).batch(4, True),
            [1, 2])
    at_case(folder, "at_batch_matrix", lambda: slices().batch(3), [1])
    at_case(folder, "at_batch_unknown_cardinality",
            lambda: r(10).filter(lambda x: x > 2).batch(3), [0])
    at_case(folder, "at_take_all", lambda: r(10).take(-1), [9])
    at_case(folder, "at_skip_all", lambda: r(10).skip(-1), [0])
    at_case(folder, "at_skip_past_end", lambda: r(10).skip(12), [0])
    at_case(folder, "at_take_skip_map",
            lambda: r(50).skip(7).take(20).map(lambda x: -x), [0, 19, 20])
    at_case(folder, "at_take_of_infinite", lambda: r(3).repeat().take(5),
            [4])
    at_case(folder, "at_repeat_map", lambda: r(3).map(lambda x: x + 10)
            .repeat(3), [0, 4, 8, 9])
    at_case(folder, "at_repeat_zero", lambda: r(3).repeat(0), [0])
    at_case(folder, "at_zip_nested",
            lambda: d.zip((r(4), (slices(), d.range(10, 20)))), [0, 3, 4])
    at_case(folder, "at_concatenate_three",
            lambda: r(3).concatenate(d.range(10, 12))
            .concatenate(d.range(20, 24)), [2, 3, 4, 5, 8, 9])
    at_case(folder, "at_zip_infinite_input",
            lambda: d.zip((r(3), r(2).repeat())), [1])
    at_case(folder, "at_batch_of_infinite_take",
            lambda: r(2).repeat().take(6).batch(2), [1])
    at_case(folder, "at_concatenate_infinite",
            lambda: r(3).concatenate(r(2).repeat()), [1])
    at_case(folder, "at_shard", lambda: r(10).shard(3, 1), [0, 2, 3])
    at_case(folder, "at_cache_options_prefetch",
            lambda: r(5).map(lambda x: x * 2).cache()
            .with_options(tf.data.Options()).prefetch(1), [4, 5])
    at_case(folder, "at_assert_cardinality",
            lambda: r(3).apply(tf.data.experimental.assert_cardinality(3)),
            [1, 3])
    at_case(folder, "at_assert_cardinality_wrong",
            lambda: r(3).apply(tf.data.experimental.assert_cardinality(5)),
            [2, 4, 5])
    # No random access: Unimplemented, or FailedPrecondition where the
    # cardinality is unknown or infinite (TensorFlow checks it first).
    at_case(folder, "at_ignore_errors", lambda: r(3).ignore_errors(), [0])
    at_case(folder, "at_interleave",
            lambda: r(3).interleave(lambda x: r(x)), [0])
    at_case(folder, "at_unbatch", lambda: r(6).batch(2).unbatch(), [1])
    # An unbatch whose batch size the static shapes fix reads by index.
    at_case(folder, "at_unbatch_static", lambda: r(6).batch(2, True)
            .unbatch(), [1, 5, 6])
    at_case(folder, "at_unbatch_slices_tuple",
            lambda: d.from_tensor_slices(
                (tf.reshape(tf.range(12), [2, 2, 3]), tf.zeros([2, 2])))
            .unbatch(), [0, 3, 4])
    at_case(folder, "at_unbatch_empty_batches",
            lambda: d.from_tensors(tf.zeros([0, 2])).unbatch(), [0])
    at_case(folder, "at_scan", lambda: r(5).scan(
        tf.constant(0, tf.int64), lambda s, x: (s + x, s)), [3])
    at_case(folder, "at_random", lambda: d.random(seed=1).take(3), [1])
    at_case(folder, "at_choose_from_datasets",
            lambda: d.choose_from_datasets([r(3), r(3)], r(2).repeat(3)), [1])
    at_case(folder, "at_global_shuffle", lambda: gshuffle(r(10), seed=3),
            [1])
    at_case(folder, "at_map_of_filter",
            lambda: r(6).filter(lambda x: x > 2).map(lambda x: x + 1), [0])
    at_case(folder, "at_padded_batch_tail",
            lambda: r(4).map(lambda x: tf.fill([x], x)).padded_batch(2), [1])


def gs_cases(folder):
    gs = global_shuffle_case
    gs(folder, "gs_take", lambda: gshuffle(r(10).take(6), reshuffle=False),
       7)
    gs(folder, "gs_skip", lambda: gshuffle(r(10).skip(3), seed=2), 8)
    gs(folder, "gs_concatenate",
       lambda: gshuffle(r(3).concatenate(d.range(10, 14)), seed=9), 8)
    gs(folder, "gs_zip",
       lambda: gshuffle(d.zip((r(4), slices())), seed=4, reshuffle=False),
       5)
    gs(folder, "gs_batch_drop_remainder",
       lambda: gshuffle(r(11).batch(3, True), seed=5), 4)
    gs(folder, "gs_repeat_input", lambda: gshuffle(r(3).repeat(3), seed=6,
                                                    reshuffle=False), 10)
    gs(folder, "gs_cache_prefetch_options",
       lambda: gshuffle(r(6).cache().prefetch(2)
                        .with_options(tf.data.Options()), seed=8), 7)
    gs(folder, "gs_from_tensors",
       lambda: gshuffle(d.from_tensors(tf.constant([1.5, 2.5]))), 2)
    gs(folder, "gs_shard_assert_cardinality",
       lambda: gshuffle(r(20).shard(3, 2).apply(
           tf.data.experimental.assert_cardinality(6)), seed=10), 7)
    gs(folder, "gs_map_take_skip",
       lambda: gshuffle(r(40).skip(5).take(7)
                        .map(lambda x: (x, tf.strings.as_string(x)),
                             num_parallel_calls=2), seed=12), 8)
    gs(folder, "gs_reshuffle_epochs",
       lambda: gshuffle(r(12).skip(2).take(6), seed=13).repeat(3), 19,
       note="each epoch's iterator takes the next seeds")
    gs(folder, "gs_fixed_epochs",
       lambda: gshuffle(d.zip((r(5), d.range(50, 55))), seed=14,
                        reshuffle=False).repeat(2), 11)
    # Left out: a repeat over a global shuffle of a concatenate, whose
    # later epochs TensorFlow 2.21 ends at once (its concatenate iterator
    # keeps its end across the shuffle's epochs); dfx reads every epoch.
    gs(folder, "gs_other_seed",
       lambda: gshuffle(r(12).take(9), seed=123456789), 10)
    gs(folder, "gs_large", lambda: gshuffle(r(10**9), seed=15).take(5), 6,
       note="10**9 elements: read by index, never held")
    # Errors: inputs TensorFlow does not read by index for a global
    # shuffle (FailedPrecondition).
    gs(folder, "gs_batch_remainder", lambda: gshuffle(r(10).batch(3)), 0)
    gs(folder, "gs_padded_batch",
       lambda: gshuffle(r(10).padded_batch(2, drop_remainder=True)), 0)
    gs(folder, "gs_shuffle", lambda: gshuffle(r(10).shuffle(4, seed=1)), 0)
    gs(folder, "gs_ignore_errors", lambda: gshuffle(r(10).ignore_errors()),
       0)
    gs(folder, "gs_infinite", lambda: gshuffle(r(10).repeat()), 0)
    gs(folder, "gs_concatenate_filter",
       lambda: gshuffle(r(3).concatenate(r(5).filter(lambda x: x > 1))), 0)


def save_cases():
    gen_itckpt.FAMILY = FAMILY
    rt = gen_itckpt.round_trip
    rt("save_gs_fixed",
       lambda: plain(gshuffle(r(9).map(lambda x: x * 3), seed=21,
                              reshuffle=False)), 4, 6)
    rt("save_gs_concatenate_zip",
       lambda: plain(gshuffle(d.zip((r(2).concatenate(d.range(10, 13)),
                                     d.range(5))), seed=22, reshuffle=False)),
       2, 4)


def main():
    folder = golden_lib.family_folder(FAMILY)
    golden_lib.write_op_defs(FAMILY, OPS)
    at_cases(folder)
    gs_cases(folder)
    save_cases()


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Golden cases of the dataset6 family: a dataset as a serialized GraphDef
and back (DatasetToGraph, DatasetToGraphV2, DatasetFromGraph: what
tf.distribute and the tf.data service send between tasks), as TensorFlow
2.21 runs them. Also writes TensorFlow's OpDefs of those ops
(tests/golden/data/dataset6/tf_op_defs.pbtxt), which
tests/kernels/dataset6_test.cc compares byte for byte with dfx's.

    $(tools/tf_env) tests/golden/gen_dataset6.py

Every case is multi-step (gen_lookup.py's steps_case): a pipeline written
into a graph by DatasetToGraph(V2) and made again by DatasetFromGraph in
the same graph, an iterator made over it, then read element by element.
The serialized GraphDef itself is not compared (dfx writes its own: the
same layout, node names and Consts as TensorFlow's, but its own attrs'
order and function library); the elements read back are. Two cases load
GraphDefs TensorFlow wrote (tf_written_*, kept in the graph as a string
constant) in DatasetFromGraph. The other way round, TensorFlow's
DatasetFromGraph loading a graph dfx wrote, is checked in
tests/kernels/dataset6_test.cc's TensorFlow-layout test and was checked by
hand (the dfx-written bytes loaded and read in TensorFlow 2.21).

Error cases: a stateful op in a dataset function under
external_state_policy FAIL, and DatasetToGraph without allow_stateful
(FailedPrecondition); bytes that are not a GraphDef (InvalidArgument) and
an empty GraphDef (NotFound), as TensorFlow's.

GetElementAtIndex (tf.data.experimental.at) cases: each index a step of its
own, over the datasets TensorFlow gives random access, an index past the
end or negative (OutOfRange), datasets without random access
(Unimplemented) and an infinite one (FailedPrecondition).

gs_* cases: GlobalShuffleDataset (global_shuffle), TensorFlow's index
shuffle reproduced bit for bit: fixed seeds, reshuffled epochs of a
repeat, a map over slices, a permutation past 2^16 elements, and its
errors.

ifm_* cases: IndexFlatMapDataset (raw op, Defun functions): rows of
map_func's results by index_map_func's (element, offset), captured
arguments, int32 indices, strings, indices that
jump (one input element read per jump, as TensorFlow), and bad
index_map_func results.

wfm_* cases: WeightedFlatMapDataset (raw op): each input's share by
TensorFlow's normalization of the weights, in input order, and its errors
(a weight not above 0, an input of unknown or infinite cardinality, other
element types).

save_* cases: iterator saves (SerializeIterator, DeserializeIterator) of
the dataset5 family's AutoShardDataset (DATA and AUTO policies),
AssertNextDataset and AssertPrevDataset, as gen_itckpt.py's round trips.
Left out: SnapshotDatasetV2 and SnapshotDataset, whose iterators do not
save in dfx yet (Unimplemented naming the op).
"""

import golden_lib
import gen_itckpt
from golden_lib import tf, tf1
from gen_lookup import steps_case

FAMILY = "dataset6"
OPS = ["DatasetToGraph", "DatasetToGraphV2", "DatasetFromGraph",
       "GetElementAtIndex", "GlobalShuffleDataset", "IndexFlatMapDataset",
       "WeightedFlatMapDataset"]
raw = tf.raw_ops


def plain(ds):
    """ds without TensorFlow's static rewrites (which dfx does not make)."""
    o = tf.data.Options()
    o.experimental_optimization.apply_default_optimizations = False
    o.experimental_optimization.inject_prefetch = False
    o.autotune.enabled = False
    return ds.with_options(o)


def iterate(ds, out):
    it = tf1.data.make_initializable_iterator(ds)
    out["init"] = it.initializer
    keys = []
    for i, t in enumerate(tf.nest.flatten(it.get_next())):
        out[f"c{i}"] = t
        keys.append(f"c{i}")
    return keys


def v2(policy=0, strip=False):
    return lambda v: raw.DatasetToGraphV2(
        input_dataset=v, external_state_policy=policy,
        strip_device_assignment=strip)


def v1(allow_stateful=False, strip=False):
    return lambda v: raw.DatasetToGraph(
        input_dataset=v, allow_stateful=allow_stateful,
        strip_device_assignment=strip)


def round_trip_case(folder, name, make, pulls, to_graph=None, note=""):
    """make()'s pipeline through to_graph (DatasetToGraphV2 by default) and
    DatasetFromGraph, then an iterator: its init, then `pulls` reads."""
    to_graph = to_graph or v2()
    n = [0]

    def build():
        ds = plain(make())
        spec = ds.element_spec
        n[0] = len(tf.nest.flatten(spec))
        v = raw.DatasetFromGraph(graph_def=to_graph(ds._variant_tensor))
        out = {}
        iterate(tf.data.experimental.from_variant(v, spec), out)
        return out
    g = tf.Graph()
    with g.as_default():
        build()
    keys = [f"c{i}" for i in range(n[0])]
    steps_case(folder, name, build,
               [(["init"], {})] + [(keys, {})] * pulls, note=note)


def r(n):
    return tf.data.Dataset.range(n)


def round_trip_cases(folder):
    round_trip_case(folder, "range_map_batch",
                    lambda: r(5).map(lambda x: x * 2 + 1).batch(2), 4)
    round_trip_case(folder, "range_args",
                    lambda: tf.data.Dataset.range(3, 20, 4), 6)
    round_trip_case(folder, "slices_zip",
                    lambda: tf.data.Dataset.zip((
                        tf.data.Dataset.from_tensor_slices(
                            tf.constant(["a", "bb", "ccc"])),
                        r(3),
                        tf.data.Dataset.from_tensors(
                            tf.constant([[1.5, 2.5]], tf.float32))
                        .repeat())), 4)
    round_trip_case(folder, "skip_take_concatenate",
                    lambda: r(10).skip(2).take(5).concatenate(r(3)), 9)
    round_trip_case(folder, "flat_map_nested",
                    lambda: r(4).flat_map(lambda x: r(x)), 7,
                    note="the function makes a dataset: its function "
                    "library travels")
    round_trip_case(folder, "interleave",
                    lambda: tf.data.Dataset.range(1, 4).interleave(
                        lambda x: tf.data.Dataset.from_tensors(x).repeat(x),
                        cycle_length=2, block_length=1), 7)
    round_trip_case(folder, "filter_captured",
                    lambda: r(7).filter(
                        lambda x: tf.equal(x % tf.constant(3, tf.int64), 0)),
                    4, note="the captured constant is a Const input")
    round_trip_case(folder, "shared_input",
                    lambda: (lambda d: tf.data.Dataset.zip((d, d)))(
                        r(3).map(lambda x: x * x)), 4,
                    note="a dataset two inputs share is written once")
    round_trip_case(folder, "padded_batch_int32",
                    lambda: tf.data.Dataset.from_tensor_slices(
                        tf.constant([1, 2, 3], tf.int32))
                    .map(lambda x: tf.fill([x], x))
                    .padded_batch(2), 3)
    round_trip_case(folder, "empty_dataset",
                    lambda: r(0), 1)
    round_trip_case(folder, "v2_strip_devices",
                    lambda: r(3).map(lambda x: -x), 4,
                    to_graph=v2(strip=True))
    round_trip_case(folder, "v2_ignore",
                    lambda: r(3).map(lambda x: x + 7), 4,
                    to_graph=v2(policy=1))
    round_trip_case(folder, "v1",
                    lambda: r(3).map(lambda x: x + 1), 4, to_graph=v1())
    round_trip_case(folder, "v1_allow_stateful_strip",
                    lambda: r(3).batch(2), 3,
                    to_graph=v1(allow_stateful=True, strip=True))
    round_trip_case(folder, "twice",
                    lambda: tf.data.experimental.from_variant(
                        raw.DatasetFromGraph(graph_def=raw.DatasetToGraphV2(
                            input_dataset=r(4).map(
                                lambda x: x * 10)._variant_tensor)),
                        tf.TensorSpec([], tf.int64)).take(3), 4,
                    note="a dataset made by DatasetFromGraph written again")


def random_map(ds):
    return ds.map(lambda x: x + tf.random.uniform([], 0, 3, tf.int64))


def stateful_cases(folder):
    # Under FAIL (and DatasetToGraph without allow_stateful) a stateful op
    # in a function fails the write: the iterator's init fails.
    round_trip_case(folder, "stateful_fail_v2", lambda: random_map(r(3)), 0,
                    to_graph=v2(policy=2))
    round_trip_case(folder, "stateful_fail_v1", lambda: random_map(r(3)), 0,
                    to_graph=v1())
    # WARN and IGNORE write it (the values are random: init only).
    round_trip_case(folder, "stateful_warn", lambda: random_map(r(3)), 0,
                    to_graph=v2(policy=0))
    round_trip_case(folder, "stateful_v1_allowed", lambda: random_map(r(3)),
                    0, to_graph=v1(allow_stateful=True))
    round_trip_case(folder, "policy_unknown",
                    lambda: r(3).map(lambda x: x * 5), 4,
                    to_graph=v2(policy=7),
                    note="TensorFlow does not check the policy's value")


def tf_written_graph(make):
    """The GraphDef TensorFlow's DatasetToGraphV2 writes for make()."""
    g = tf.Graph()
    with g.as_default():
        ds = plain(make())
        t = raw.DatasetToGraphV2(input_dataset=ds._variant_tensor)
        with tf1.Session(graph=g) as sess:
            return sess.run(t), ds.element_spec


def tf_written_case(folder, name, make, pulls, note=""):
    data, spec = tf_written_graph(make)
    n = len(tf.nest.flatten(spec))

    def build():
        v = raw.DatasetFromGraph(graph_def=tf.constant(data))
        out = {}
        iterate(tf.data.experimental.from_variant(v, spec), out)
        return out
    keys = [f"c{i}" for i in range(n)]
    steps_case(folder, name, build,
               [(["init"], {})] + [(keys, {})] * pulls, note=note)


def twice_each(s):
    return tf.data.Dataset.from_tensors(s).repeat(2)


def with_length(s):
    return s, tf.strings.length(s)


def tf_written_cases(folder):
    tf_written_case(folder, "tf_written_map_batch",
                    lambda: r(5).map(lambda x: x * 3).batch(2), 4)
    tf_written_case(folder, "tf_written_flat_map_strings",
                    lambda: tf.data.Dataset.from_tensor_slices(
                        tf.constant(["x", "yy"])).flat_map(twice_each)
                    .map(with_length), 5)


def error_cases(folder):
    def bad(data):
        def build():
            v = raw.DatasetFromGraph(graph_def=tf.constant(data))
            out = {}
            iterate(tf.data.experimental.from_variant(
                v, tf.TensorSpec([], tf.int64)), out)
            return out
        return build
    steps_case(folder, "from_graph_garbage", bad(b"\xff\xff not a graph"),
               [(["init"], {})])
    steps_case(folder, "from_graph_empty", bad(b""), [(["init"], {})])


def at_case(folder, name, make, indices, note=""):
    """GetElementAtIndex (tf.data.experimental.at) of make()'s dataset at
    each of `indices`, one step each (an error fails its step only)."""
    from tensorflow.python.data.experimental.ops import random_access

    def build():
        ds = make()
        out = {}
        for i in indices:
            for j, t in enumerate(tf.nest.flatten(random_access.at(ds, i))):
                out[f"i{i}_{j}"] = t
        return out
    g = tf.Graph()
    with g.as_default():
        keys = sorted(build())
    steps = [([k for k in keys if k.startswith(f"i{i}_")], {})
             for i in indices]
    steps_case(folder, name, build, steps, note=note)


def double(x):
    return x * 2


def at_cases(folder):
    at_case(folder, "at_range", lambda: tf.data.Dataset.range(2, 30, 3),
            [0, 3, 9, 10, -1])
    at_case(folder, "at_slices_strings",
            lambda: tf.data.Dataset.from_tensor_slices(
                tf.constant(["a", "bb", "ccc"])), [0, 2, 3])
    at_case(folder, "at_slices_float_matrix",
            lambda: tf.data.Dataset.from_tensor_slices(
                tf.constant([[1.5, 2.5], [3.5, 4.5]], tf.float32)), [1])
    at_case(folder, "at_from_tensors",
            lambda: tf.data.Dataset.from_tensors(
                tf.constant([7, 8], tf.int32)), [0, 1])
    at_case(folder, "at_map", lambda: r(5).map(double), [0, 4, 5])
    at_case(folder, "at_parallel_map",
            lambda: r(5).map(double, num_parallel_calls=2), [3])
    at_case(folder, "at_batch", lambda: r(10).batch(3), [0, 3, 4])
    at_case(folder, "at_batch_drop", lambda: r(10).batch(3, True), [2, 3])
    at_case(folder, "at_take_skip", lambda: r(10).skip(3).take(4),
            [0, 3, 4])
    at_case(folder, "at_concatenate", lambda: r(3).concatenate(r(2)),
            [2, 3, 5])
    at_case(folder, "at_repeat", lambda: r(3).repeat(2), [4, 6])
    at_case(folder, "at_zip",
            lambda: tf.data.Dataset.zip((r(3), r(5).map(double))), [1, 3])
    at_case(folder, "at_cache_prefetch", lambda: r(4).cache().prefetch(2),
            [2])
    at_case(folder, "at_empty", lambda: r(0), [0])
    # Errors: no random access (Unimplemented), an infinite dataset
    # (FailedPrecondition).
    at_case(folder, "at_filter", lambda: r(5).filter(lambda x: x > 1), [0])
    at_case(folder, "at_padded_batch", lambda: r(5).padded_batch(2), [0])
    at_case(folder, "at_flat_map", lambda: r(3).flat_map(
        lambda x: tf.data.Dataset.range(x)), [0])
    at_case(folder, "at_infinite", lambda: r(3).repeat(), [0])
    # Left out: a shuffle (TensorFlow's Get permutes its indices with the
    # shuffle's generator; dfx refuses it: Unimplemented), sparse slices
    # (GetElementAtIndex outputs a sparse element's variant). More random
    # access cases: gen_randaccess.py.


def shard(ds, num_workers, index, policy):
    spec = ds.element_spec
    v = raw.AutoShardDataset(
        input_dataset=ds._variant_tensor, num_workers=num_workers,
        index=index, auto_shard_policy=policy,
        output_types=[s.dtype for s in tf.nest.flatten(spec)],
        output_shapes=[s.shape for s in tf.nest.flatten(spec)])
    return tf.data.experimental.from_variant(v, spec)


def save_cases():
    """Iterator saves of the dataset5 family's datasets (gen_itckpt's
    round trips: k elements read, the state into a second iterator, the
    rest read from it)."""
    from tensorflow.python.data.experimental.ops import testing
    gen_itckpt.FAMILY = FAMILY
    rt = gen_itckpt.round_trip
    # auto_shard_policy DATA (2) and AUTO (0, DATA for a range).
    rt("save_auto_shard_data", lambda: shard(r(10), 3, 1, 2), 2, 3)
    rt("save_auto_shard_auto_start", lambda: shard(r(10), 4, 3, 0), 0, 3)
    rt("save_auto_shard_at_end", lambda: shard(r(5), 2, 0, 2), 3, 1)
    rt("save_auto_shard_map", lambda: shard(r(9), 2, 1, 2).map(double), 1,
       4)
    rt("save_assert_next",
       lambda: plain(r(5).apply(testing.assert_next(["Map"])).map(double)),
       2, 4)
    rt("save_assert_prev",
       lambda: plain(r(5).map(double).apply(testing.assert_prev(
           [("MapDataset", {})]))), 2, 4)


def global_shuffle_case(folder, name, make, pulls, note=""):
    """An iterator over make() (which calls global_shuffle), read `pulls`
    times."""
    def build():
        out = {}
        iterate(plain(make()), out)
        return out
    with tf.Graph().as_default():
        n = len(tf.nest.flatten(make().element_spec))
    keys = [f"c{i}" for i in range(n)]
    steps_case(folder, name, build,
               [(["init"], {})] + [(keys, {})] * pulls, note=note)


def gshuffle(ds, seed=7, reshuffle=True):
    from tensorflow.python.data.experimental.ops import global_shuffle_op
    return global_shuffle_op._global_shuffle(
        ds, seed=seed, reshuffle_each_iteration=reshuffle)


def global_shuffle_cases(folder):
    global_shuffle_case(folder, "gs_range_fixed",
                        lambda: gshuffle(r(10), reshuffle=False), 11)
    global_shuffle_case(folder, "gs_range_reshuffle_repeat",
                        lambda: gshuffle(r(10)).repeat(3), 31,
                        note="each epoch's iterator takes the next seeds")
    global_shuffle_case(folder, "gs_fixed_repeat",
                        lambda: gshuffle(r(6), seed=3,
                                         reshuffle=False).repeat(2), 13)
    global_shuffle_case(folder, "gs_map_slices",
                        lambda: gshuffle(tf.data.Dataset.from_tensor_slices(
                            (tf.constant([1.5, 2.5, 3.5, 4.5, 5.5]),
                             tf.constant(["a", "b", "c", "d", "e"])))
                            .map(lambda x, y: (x * 2, y)), seed=11), 6)
    global_shuffle_case(folder, "gs_large_block",
                        lambda: gshuffle(r(70000), seed=5).take(6), 7,
                        note="max index past 2^16: a wider cipher block")
    global_shuffle_case(folder, "gs_one_element",
                        lambda: gshuffle(r(1)), 2)
    # Errors: an input without random access (FailedPrecondition), an
    # empty one (InvalidArgument).
    global_shuffle_case(folder, "gs_batch", lambda: gshuffle(r(10).batch(3)),
                        0)
    global_shuffle_case(folder, "gs_filter",
                        lambda: gshuffle(r(10).filter(lambda x: x > 2)), 0)
    global_shuffle_case(folder, "gs_empty", lambda: gshuffle(r(0)), 0)
    # Left out: global_shuffle with seed=None under no graph seed
    # (random seeds). Global shuffles over take, skip, concatenate, zip, a
    # cache and the rest: gen_randaccess.py.


def index_flat_map(ds, map_fn, index_map_fn, spec, map_args=(),
                   index_args=(), cardinality=-2):
    v = raw.IndexFlatMapDataset(
        input_dataset=ds._variant_tensor, map_func_other_args=list(map_args),
        index_map_func_other_args=list(index_args),
        output_cardinality=tf.constant(cardinality, tf.int64),
        map_func=map_fn, index_map_func=index_map_fn,
        output_types=[s.dtype for s in tf.nest.flatten(spec)],
        output_shapes=[s.shape for s in tf.nest.flatten(spec)])
    return tf.data.experimental.from_variant(v, spec)


def index_flat_map_cases(folder):
    """IndexFlatMapDataset (no Python API in TensorFlow 2.21: the raw op
    with Defun functions)."""
    from tensorflow.python.framework import function
    i64 = tf.TensorSpec([], tf.int64)

    def case(name, make, pulls, note=""):
        def build():
            out = {}
            iterate(make(), out)
            return out
        with tf.Graph().as_default():
            n = len(tf.nest.flatten(make().element_spec))
        keys = [f"c{i}" for i in range(n)]
        steps_case(folder, name, build,
                   [(["init"], {})] + [(keys, {})] * pulls)

    def fill3():
        @function.Defun(tf.int64)
        def map_fn(x):
            return tf.fill([3], x * 10)

        @function.Defun(tf.int64)
        def index_map(i):
            return i // 3, i % 3
        return index_flat_map(r(3), map_fn, index_map, i64, cardinality=9)
    case("ifm_fill", fill3, 10)

    def captured():
        @function.Defun(tf.int64, tf.int64)
        def map_fn(x, k):
            return tf.range(k) + x * 100

        @function.Defun(tf.int64, tf.int32)
        def index_map(i, k):
            k = tf.cast(k, tf.int64)
            return tf.cast(i // k, tf.int32), i % k
        return index_flat_map(r(3), map_fn, index_map, i64,
                              map_args=[tf.constant(2, tf.int64)],
                              index_args=[tf.constant(2, tf.int32)])
    case("ifm_captured_int32_index", captured, 7)

    def strings():
        @function.Defun(tf.string)
        def map_fn(s):
            return tf.stack([s, s + "!"])

        @function.Defun(tf.int64)
        def index_map(i):
            return i // 2, i % 2
        return index_flat_map(
            tf.data.Dataset.from_tensor_slices(["a", "bc"]), map_fn,
            index_map, tf.TensorSpec([], tf.string))
    case("ifm_strings", strings, 5)
    # Left out: map_func with two results (TensorFlow 2.21 fails with
    # Internal "Expected 2 components but got 1"; dfx slices each).

    def skip_ahead():
        @function.Defun(tf.int64)
        def map_fn(x):
            return tf.stack([x, -x])

        @function.Defun(tf.int64)
        def index_map(i):
            return 2 * (i // 2), i % 2
        return index_flat_map(r(4), map_fn, index_map, i64)
    case("ifm_index_jumps", skip_ahead, 9)

    def three_values():
        @function.Defun(tf.int64)
        def map_fn(x):
            return tf.stack([x])

        @function.Defun(tf.int64)
        def index_map(i):
            return i, i * 0, i
        return index_flat_map(r(2), map_fn, index_map, i64)
    case("ifm_index_map_three_values", three_values, 1)

    def float_index():
        @function.Defun(tf.int64)
        def map_fn(x):
            return tf.stack([x])

        @function.Defun(tf.int64)
        def index_map(i):
            return tf.cast(i, tf.float32), i * 0
        return index_flat_map(r(2), map_fn, index_map, i64)
    case("ifm_index_map_float", float_index, 1)
    # Left out: an offset past map_func's rows (TensorFlow aborts in
    # Tensor::SubSlice; dfx fails with InvalidArgument).


def weighted_flat_map(datasets, weights):
    spec = datasets[0].element_spec
    v = raw.WeightedFlatMapDataset(
        input_datasets=[d._variant_tensor for d in datasets],
        weights=[tf.constant(w, tf.float64) for w in weights],
        output_types=[s.dtype for s in tf.nest.flatten(spec)],
        output_shapes=[s.shape for s in tf.nest.flatten(spec)])
    return tf.data.experimental.from_variant(v, spec)


def weighted_flat_map_cases(folder):
    """WeightedFlatMapDataset (no Python API in TensorFlow 2.21: the raw
    op)."""
    def case(name, make, pulls):
        def build():
            out = {}
            iterate(make(), out)
            return out
        with tf.Graph().as_default():
            n = len(tf.nest.flatten(make().element_spec))
        keys = [f"c{i}" for i in range(n)]
        steps_case(folder, name, build,
                   [(["init"], {})] + [(keys, {})] * pulls)
    case("wfm_equal", lambda: weighted_flat_map(
        [r(4), tf.data.Dataset.range(10, 14)], [0.5, 0.5]), 9)
    case("wfm_normalized", lambda: weighted_flat_map(
        [r(100), tf.data.Dataset.range(200, 300),
         tf.data.Dataset.range(1000, 1010)], [0.2, 0.3, 0.5]), 21)
    case("wfm_uneven", lambda: weighted_flat_map(
        [r(3).map(lambda x: (x, tf.strings.as_string(x))),
         tf.data.Dataset.range(50, 60).map(
             lambda x: (x, tf.strings.as_string(x)))], [3.0, 1.0]), 5)
    case("wfm_zero_weight", lambda: weighted_flat_map(
        [r(3), r(3)], [1.0, 0.0]), 0)
    case("wfm_unknown_cardinality", lambda: weighted_flat_map(
        [r(3).filter(lambda x: x > 0), r(3)], [1.0, 1.0]), 0)
    case("wfm_infinite", lambda: weighted_flat_map(
        [r(3).repeat(), r(3)], [1.0, 1.0]), 0)
    case("wfm_types_differ", lambda: weighted_flat_map(
        [r(3), r(3).map(lambda x: tf.cast(x, tf.int32))], [1.0, 1.0]), 0)
    gen_itckpt.FAMILY = FAMILY
    gen_itckpt.round_trip("save_weighted_flat_map", lambda: weighted_flat_map(
        [r(3), tf.data.Dataset.range(10, 13)], [1.0, 1.0]), 4, 3)


def main():
    folder = golden_lib.family_folder(FAMILY)
    golden_lib.write_op_defs(FAMILY, OPS)
    round_trip_cases(folder)
    stateful_cases(folder)
    tf_written_cases(folder)
    error_cases(folder)
    at_cases(folder)
    save_cases()
    global_shuffle_cases(folder)
    index_flat_map_cases(folder)
    weighted_flat_map_cases(folder)


if __name__ == "__main__":
    main()

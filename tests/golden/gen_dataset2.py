#!/usr/bin/env python3
"""Golden cases for tf.data ops under their older names and the datasets
added with them (graph/ops/dataset2_ops.cc).

The old names (ExperimentalScanDataset, BatchDataset, ParallelMapDataset,
ParallelInterleaveDatasetV2, Iterator, IteratorFromStringHandle, ...) are
what TF 1.x and early 2.x exported. TensorFlow 2.21 still runs them but its
Python API no longer builds them, so each such case builds the pipeline with
today's API and edits the GraphDef: the node's op becomes the old name, the
attrs the old OpDef lacks are dropped and its inputs are made the old ones.
TensorFlow runs the edited GraphDef to give the outputs. The new datasets
(SlidingWindowDataset, SleepDataset, the statistics pass-throughs) are built
with tf.raw_ops. Also writes the ops' OpDefs and CPU kernel types.

    $(tools/tf_env) tests/golden/gen_dataset2.py
"""

import numpy as np

import golden_lib
from golden_lib import case, case_graph_def, tf, tf1

from tensorflow.core.framework import attr_value_pb2, node_def_pb2
from tensorflow.python.framework import op_def_registry

FAMILY = "dataset2"
raw = tf.raw_ops

OP_NAMES = [
    "ExperimentalMapAndBatchDataset", "ExperimentalScanDataset",
    "ExperimentalUnbatchDataset", "ExperimentalUniqueDataset",
    "ExperimentalTakeWhileDataset", "ExperimentalRebatchDataset",
    "ExperimentalRandomDataset", "ExperimentalGroupByWindowDataset",
    "ExperimentalIgnoreErrorsDataset",
    "ExperimentalDenseToSparseBatchDataset",
    "ExperimentalDirectedInterleaveDataset",
    "ExperimentalParallelInterleaveDataset",
    "ExperimentalDatasetCardinality",
    "ExperimentalMaxIntraOpParallelismDataset",
    "ExperimentalPrivateThreadPoolDataset", "BatchDataset",
    "PaddedBatchDataset", "ParallelMapDataset", "ParallelInterleaveDatasetV2",
    "ParallelInterleaveDatasetV3", "LegacyParallelInterleaveDatasetV2",
    "ParallelInterleaveDataset", "SlidingWindowDataset",
    "ExperimentalSlidingWindowDataset", "SleepDataset",
    "ExperimentalSleepDataset", "LatencyStatsDataset",
    "ExperimentalLatencyStatsDataset", "BytesProducedStatsDataset",
    "ExperimentalBytesProducedStatsDataset", "AnonymousIterator", "Iterator",
    "IteratorFromStringHandle", "IteratorFromStringHandleV2",
]
# ExperimentalMapDataset is registered too (its OpDef) but TensorFlow 2.21
# has no CPU kernel for it, and neither has dfx: the signature test, which
# wants a CPU kernel for every op listed, leaves it out; the golden case
# map_experimental shows the missing kernel.


def flat(x):
    return tf.nest.flatten(x, expand_composites=True)


def pulls(make, k):
    """Builds, in the default graph, `k` chained pulls of a TF1 initializable
    iterator over make(); returns the fetched tensors."""
    it = tf1.data.make_initializable_iterator(make())
    fetches = []
    deps = [it.initializer]
    for _ in range(k):
        with tf.control_dependencies(deps):
            out = flat(it.get_next())
        fetches.extend(out)
        deps = out
    return fetches


def pipeline(name, make, k, note=""):
    case(FAMILY, name, lambda: (pulls(make, k), None), note=note)


# --- GraphDef edits: today's op -> its old name.

def _const_node(graph_def, name, value, dtype):
    node = graph_def.node.add()
    node.name = name
    node.op = "Const"
    node.attr["dtype"].type = dtype.as_datatype_enum
    node.attr["value"].tensor.CopyFrom(
        tf.make_tensor_proto(value, dtype=dtype))
    return name


def rename(new_op, old_op, inputs=None):
    """An edit: every `new_op` node becomes `old_op`, without the attrs the
    old OpDef lacks; inputs(graph_def, node, data_inputs) returns the old
    op's data inputs (default: unchanged)."""
    old_def = op_def_registry.get(old_op)
    old_attrs = {a.name for a in old_def.attr}

    def edit(graph_def):
        count = 0
        for node in list(graph_def.node):
            if node.op != new_op:
                continue
            count += 1
            node.op = old_op
            for a in list(node.attr):
                if a not in old_attrs and not a.startswith("_"):
                    del node.attr[a]
            if inputs is not None:
                data = [i for i in node.input if not i.startswith("^")]
                ctrl = [i for i in node.input if i.startswith("^")]
                new_inputs = inputs(graph_def, node, data)
                del node.input[:]
                node.input.extend(new_inputs + ctrl)
        assert count, f"no {new_op} node to rename"
    return edit


def edited(name, make, k, edits, note=""):
    """`k` pulls of make() (see pulls) with the GraphDef edited by `edits`
    and run by TensorFlow as edited."""
    graph = tf.Graph()
    with graph.as_default():
        fetches = pulls(make, k)
    graph_def = graph.as_graph_def()
    for e in edits:
        e(graph_def)
    case_graph_def(FAMILY, name, graph_def, {}, [t.name for t in fetches],
                   note=note)


def edited_fetch(name, build, edits, note=""):
    """build() returns tensors to fetch; the GraphDef is edited as above."""
    graph = tf.Graph()
    with graph.as_default():
        fetches = build()
    graph_def = graph.as_graph_def()
    for e in edits:
        e(graph_def)
    case_graph_def(FAMILY, name, graph_def, {}, [t.name for t in fetches],
                   note=note)


def drop_input(index):
    def inputs(graph_def, node, data):
        return data[:index] + data[index + 1:]
    return inputs


def captured_count(node, attr="Targuments"):
    return len(node.attr[attr].list.type)


# --- Raw dataset ops on tf.data datasets.

def from_raw(ds, op, spec=None, **kw):
    """op(input_dataset=ds, output_types=..., output_shapes=..., **kw) as a
    tf.data.Dataset of `spec` (default: ds's)."""
    variant = op(input_dataset=ds._variant_tensor,
                 output_types=ds._flat_types,
                 output_shapes=ds._flat_shapes, **kw)
    return tf.data.experimental.from_variant(
        variant, spec if spec is not None else ds.element_spec)


def windowed_spec(ds):
    return tf.nest.map_structure(
        lambda s: tf.TensorSpec([None] + s.shape.as_list(), s.dtype),
        ds.element_spec)


def old_name_cases():
    r = tf.data.Dataset.range
    x = np.arange(12, dtype=np.int32).reshape(6, 2)

    # Iterator (v1) is IteratorV2 renamed.
    edited("iterator_v1", lambda: r(4).map(lambda v: v * 2), 4,
           [rename("IteratorV2", "Iterator")])

    # BatchDataset (v1): no drop_remainder, so the short last batch stays.
    # BatchDataset and PaddedBatchDataset (v1) and ExperimentalRandomDataset
    # have no golden case: TensorFlow 2.21 fails them with Internal (its
    # kernel serializes the dataset with the current op's inputs under the
    # old name). tests/kernels/dataset2_test.cc covers BatchDataset.
    edited("batch_v1_zero", lambda: r(4).batch(3), 1,
           [rename("BatchDatasetV2", "BatchDataset", drop_input(2)),
            zero_const_input("BatchDataset", 1)],
           note="InvalidArgument: batch size 0")

    # ParallelMapDataset: num_parallel_calls is int32.
    def pmap_inputs(graph_def, node, data):
        n = _const_node(graph_def, node.name + "/npc32", 2, tf.int32)
        return data[:-1] + [n]
    for name, make in [
            ("parallel_map_v1", lambda: r(6).map(lambda v: v * v + 1,
                                                 num_parallel_calls=2)),
            ("parallel_map_v1_captured",
             lambda: r(5).map(lambda v: v + tf.constant(10, tf.int64),
                              num_parallel_calls=3))]:
        edited(name, make, 5,
               [rename("ParallelMapDatasetV2", "ParallelMapDataset",
                       pmap_inputs)])
    edited("map_experimental", lambda: r(4).map(lambda v: (v, v * 3)), 4,
           [rename("MapDataset", "ExperimentalMapDataset")])

    # The parallel interleaves: deterministic order (sloppy false).
    def interleave(cycle, block):
        return lambda: r(1, 4).interleave(
            lambda v: r(v * 10, v * 10 + v), cycle_length=cycle,
            block_length=block, num_parallel_calls=2, deterministic=True)
    total = 1 + 2 + 3

    def v23_inputs(graph_def, node, data):
        # ... cycle, block, buffer_output, prefetch_input, num_parallel_calls
        return data[:-3] + data[-1:]

    # The legacy forms want buffer_output_elements > 0 and
    # prefetch_input_elements >= 0 (today's op passes -1, AUTOTUNE).
    def buffers(graph_def, node, buffer, prefetch):
        return [_const_node(graph_def, node.name + "/buffer", buffer,
                            tf.int64),
                _const_node(graph_def, node.name + "/prefetch", prefetch,
                            tf.int64)]

    def legacy_inputs(graph_def, node, data, buffer=2, prefetch=1):
        return data[:-3] + buffers(graph_def, node, buffer, prefetch)

    def sloppy_inputs(graph_def, node, data):
        s = _const_node(graph_def, node.name + "/sloppy", False, tf.bool)
        return data[:-3] + [s] + buffers(graph_def, node, 1, 0)
    forms = [("parallel_interleave_v2", "ParallelInterleaveDatasetV2",
              v23_inputs),
             ("parallel_interleave_v3", "ParallelInterleaveDatasetV3",
              v23_inputs),
             ("legacy_parallel_interleave_v2",
              "LegacyParallelInterleaveDatasetV2", legacy_inputs),
             ("parallel_interleave_v1", "ParallelInterleaveDataset",
              sloppy_inputs),
             ("experimental_parallel_interleave",
              "ExperimentalParallelInterleaveDataset", sloppy_inputs)]
    for cycle, block in [(2, 1), (3, 2), (1, 1)]:
        for prefix, old, inputs in forms:
            edited(f"{prefix}_c{cycle}_b{block}", interleave(cycle, block),
                   total, [rename("ParallelInterleaveDatasetV4", old,
                                  inputs)])
    edited("parallel_interleave_v2_cycle_zero", interleave(2, 1), 1,
           [rename("ParallelInterleaveDatasetV4",
                   "ParallelInterleaveDatasetV2", v23_inputs),
            zero_const_input("ParallelInterleaveDatasetV2", 1)],
           note="InvalidArgument: cycle_length 0")
    for tag, buffer, prefetch in [("buffer_zero", 0, 1),
                                  ("prefetch_negative", 1, -1)]:
        edited(f"legacy_parallel_interleave_v2_{tag}", interleave(2, 1), 1,
               [rename("ParallelInterleaveDatasetV4",
                       "LegacyParallelInterleaveDatasetV2",
                       lambda g, n, d, b=buffer, p=prefetch:
                       legacy_inputs(g, n, d, b, p))],
               note="InvalidArgument: the legacy buffer sizes")

    # Experimental* twins of datasets dfx has.
    edited("map_and_batch_experimental",
           lambda: r(7).apply(tf.data.experimental.map_and_batch(
               lambda v: v * 2, 3)), 3,
           [rename("MapAndBatchDataset", "ExperimentalMapAndBatchDataset")])
    edited("map_and_batch_experimental_drop",
           lambda: r(7).apply(tf.data.experimental.map_and_batch(
               lambda v: (v, -v), 3, drop_remainder=True)), 2,
           [rename("MapAndBatchDataset", "ExperimentalMapAndBatchDataset")])
    edited("scan_experimental",
           lambda: r(6).scan(tf.constant(0, tf.int64),
                             lambda s, v: (s + v, s * 10 + v)), 6,
           [rename("ScanDataset", "ExperimentalScanDataset")])
    edited("unbatch_experimental",
           lambda: tf.data.Dataset.from_tensor_slices(x).batch(4).unbatch(),
           6, [rename("UnbatchDataset", "ExperimentalUnbatchDataset")])
    edited("unique_experimental",
           lambda: tf.data.Dataset.from_tensor_slices(
               np.array([3, 1, 3, 2, 1, 5], np.int32)).unique(), 4,
           [rename("UniqueDataset", "ExperimentalUniqueDataset")])
    edited("take_while_experimental",
           lambda: r(10).take_while(lambda v: v < 4), 4,
           [rename("TakeWhileDataset", "ExperimentalTakeWhileDataset")])
    edited("take_while_experimental_past_end",
           lambda: r(10).take_while(lambda v: v < 2), 3,
           [rename("TakeWhileDataset", "ExperimentalTakeWhileDataset")],
           note="OutOfRange after the predicate fails")
    edited("group_by_window_experimental",
           lambda: r(10).group_by_window(
               lambda v: v % 3, lambda k, w: w.batch(2), window_size=2), 6,
           [rename("GroupByWindowDataset",
                   "ExperimentalGroupByWindowDataset")])
    edited("ignore_errors_experimental",
           lambda: tf.data.Dataset.from_tensor_slices(
               np.array([1.0, 0.0, 2.0, 4.0], np.float32)).map(
                   lambda v: tf.debugging.check_numerics(1.0 / v, "inf"))
           .ignore_errors(), 3,
           [rename("IgnoreErrorsDataset",
                   "ExperimentalIgnoreErrorsDataset")])
    edited("dense_to_sparse_batch_experimental",
           lambda: tf.data.Dataset.from_tensor_slices([1, 2, 3]).map(
               lambda v: tf.fill([v], v)).apply(
                   tf.data.experimental.dense_to_sparse_batch(2, [4])), 2,
           [rename("DenseToSparseBatchDataset",
                   "ExperimentalDenseToSparseBatchDataset")])
    edited("directed_interleave_experimental",
           lambda: tf.data.Dataset.choose_from_datasets(
               [r(0, 5), r(100, 105)],
               tf.data.Dataset.from_tensor_slices(
                   np.array([0, 1, 1, 0, 1, 0], np.int64))), 6,
           [rename("DirectedInterleaveDataset",
                   "ExperimentalDirectedInterleaveDataset")])
    edited("directed_interleave_experimental_empty_input",
           lambda: tf.data.Dataset.choose_from_datasets(
               [r(0, 1), r(100, 103)],
               tf.data.Dataset.from_tensor_slices(
                   np.array([0, 0, 1, 1], np.int64)),
               stop_on_empty_dataset=False), 3,
           [rename("DirectedInterleaveDataset",
                   "ExperimentalDirectedInterleaveDataset")],
           note="an exhausted input is skipped (no stop_on_empty_dataset)")
    edited("rebatch_experimental",
           lambda: from_raw(r(12).batch(4), raw.RebatchDataset,
                            num_replicas=tf.constant(2, tf.int64)), 6,
           [rename("RebatchDataset", "ExperimentalRebatchDataset")])
    for op in ["MaxIntraOpParallelismDataset", "PrivateThreadPoolDataset"]:
        arg = ("max_intra_op_parallelism"
               if op.startswith("Max") else "num_threads")
        edited(f"{op[:-7].lower()}_experimental",
               lambda op=op, arg=arg: from_raw(
                   r(3), getattr(raw, op),
                   **{arg: tf.constant(2, tf.int64)}), 3,
               [rename(op, "Experimental" + op)])

    for name, make in [("range", lambda: r(7)),
                       ("filter_unknown", lambda: r(7).filter(lambda v: v > 2)),
                       ("infinite", lambda: r(3).repeat())]:
        edited_fetch(f"cardinality_experimental_{name}",
                     lambda make=make: [tf.data.experimental.cardinality(
                         make())],
                     [rename("DatasetCardinality",
                             "ExperimentalDatasetCardinality")])


def zero_const_input(op, index):
    """An edit: input `index` of the `op` node becomes a zero int64."""
    def edit(graph_def):
        for node in list(graph_def.node):
            if node.op == op:
                z = _const_node(graph_def, node.name + f"/zero{index}", 0,
                                tf.int64)
                node.input[index] = z
    return edit


def iterator_cases():
    r = tf.data.Dataset.range

    # AnonymousIterator (v1) has no case: a TF1 session hangs on a graph
    # that makes one (tests/kernels/dataset2_test.cc covers it).

    def from_handle(ds_make, types=None, handle=None, k=2):
        def build():
            ds = ds_make()
            it = tf1.data.make_initializable_iterator(ds)
            h = it.string_handle() if handle is None else tf.constant(handle)
            it2 = tf1.data.Iterator.from_string_handle(
                h, tf1.data.get_output_types(ds) if types is None else types,
                tf1.data.get_output_shapes(ds) if types is None else None)
            out, deps = [], [it.initializer]
            for _ in range(k):
                with tf.control_dependencies(deps):
                    v = flat(it2.get_next())
                out.extend(v)
                deps = v
            return out
        return build
    pairs = (lambda: tf.data.Dataset.from_tensor_slices(
        (np.arange(4, dtype=np.int32), np.arange(4, dtype=np.float32))))
    for old in ["IteratorFromStringHandle", "IteratorFromStringHandleV2"]:
        tag = "v1" if old == "IteratorFromStringHandle" else "v2"
        edits = ([rename("IteratorFromStringHandleV2", old)]
                 if tag == "v1" else [])
        edited_fetch(f"from_string_handle_{tag}",
                     from_handle(lambda: r(5).map(lambda v: v * 3), k=3),
                     edits)
        edited_fetch(f"from_string_handle_{tag}_tuple", from_handle(pairs),
                     edits)
        edited_fetch(f"from_string_handle_{tag}_bad_string",
                     from_handle(lambda: r(3), handle="not a handle", k=1),
                     edits, note="InvalidArgument: does not parse")
        edited_fetch(f"from_string_handle_{tag}_wrong_types",
                     from_handle(pairs, types=(tf.int32, tf.int32), k=1),
                     edits, note="InvalidArgument: component 1's dtype")
        edited_fetch(f"from_string_handle_{tag}_wrong_count",
                     from_handle(pairs, types=tf.int32, k=1), edits,
                     note="InvalidArgument: number of components")


def new_dataset_cases():
    r = tf.data.Dataset.range
    x = np.arange(20, dtype=np.float32).reshape(10, 2)

    def sliding(n, size, shift, stride, drop=None, experimental=False,
                source=None):
        def make():
            ds = r(n) if source is None else source()
            op = (raw.ExperimentalSlidingWindowDataset if experimental
                  else raw.SlidingWindowDataset)
            kw = dict(window_size=tf.constant(size, tf.int64),
                      window_shift=tf.constant(shift, tf.int64),
                      window_stride=tf.constant(stride, tf.int64))
            if drop is not None:
                kw["drop_remainder"] = drop
            return from_raw(ds, op, windowed_spec(ds), **kw)
        return make

    def count(n, size, shift, stride, drop):
        span = (size - 1) * stride + 1
        if drop:
            return 0 if n < span else (n - span) // shift + 1
        return -(-n // shift)

    for n, size, shift, stride in [(10, 3, 2, 1), (10, 2, 3, 2),
                                   (7, 4, 5, 1), (3, 5, 1, 1)]:
        tag = f"n{n}_w{size}_s{shift}_t{stride}"
        for drop in [True, False]:
            k = count(n, size, shift, stride, drop)
            name = f"sliding_window_{tag}_{'drop' if drop else 'keep'}"
            pipeline(name, sliding(n, size, shift, stride, drop), k)
        pipeline(f"sliding_window_experimental_{tag}",
                 sliding(n, size, shift, stride, experimental=True),
                 count(n, size, shift, stride, True))
    pipeline("sliding_window_past_end", sliding(10, 2, 3, 2, False), 5,
             note="OutOfRange after the last window")
    pipeline("sliding_window_tuple",
             sliding(0, 3, 2, 1, False, source=lambda:
                     tf.data.Dataset.from_tensor_slices(
                         (x, np.arange(10, dtype=np.int32)))), 5)
    pipeline("sliding_window_ragged_error",
             sliding(0, 2, 1, 1, False, source=lambda: r(1, 4).map(
                 lambda v: tf.fill([v], v))), 1,
             note="InvalidArgument: elements of different shapes")
    for what, args in [("size", (0, 1, 1)), ("shift", (2, 0, 1)),
                       ("stride", (2, 1, -1))]:
        pipeline(f"sliding_window_bad_{what}", sliding(5, *args), 1,
                 note=f"InvalidArgument: window {what}")
    for drop in [True, False]:
        case(FAMILY, f"sliding_window_cardinality_{drop}",
             lambda drop=drop: ([tf.data.experimental.cardinality(
                 sliding(10, 3, 2, 1, drop)())], None))

    for op in ["SleepDataset", "ExperimentalSleepDataset"]:
        pipeline(op.lower(), lambda op=op: from_raw(
            r(3).map(lambda v: (v, tf.cast(v, tf.float32))), getattr(raw, op),
            sleep_microseconds=tf.constant(100, tf.int64)), 3)
    pipeline("sleep_dataset_negative", lambda: from_raw(
        r(3), raw.SleepDataset,
        sleep_microseconds=tf.constant(-1, tf.int64)), 1,
        note="InvalidArgument: negative sleep")
    for op in ["LatencyStatsDataset", "ExperimentalLatencyStatsDataset",
               "BytesProducedStatsDataset",
               "ExperimentalBytesProducedStatsDataset"]:
        pipeline(op.lower(), lambda op=op: from_raw(
            tf.data.Dataset.from_tensor_slices(x), getattr(raw, op),
            tag=tf.constant("stats")), 4)


def main():
    old_name_cases()
    iterator_cases()
    new_dataset_cases()
    golden_lib.write_op_defs(FAMILY, OP_NAMES)


if __name__ == "__main__":
    main()

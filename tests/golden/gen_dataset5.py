#!/usr/bin/env python3
"""Golden cases of the dataset5 family: tf.data's pipeline assertions
(tf.data.experimental.assert_next / assert_prev: AssertNextDataset,
ExperimentalAssertNextDataset, AssertPrevDataset), auto-sharding
(AutoShardDataset, ExperimentalAutoShardDataset: what tf.distribute puts
at the end of a pipeline) and DatasetFingerprint, as TensorFlow 2.21 runs
them. Also writes TensorFlow's OpDefs of those ops
(tests/golden/data/dataset5/tf_op_defs.pbtxt), which
tests/kernels/dataset5_test.cc compares byte for byte with dfx's.

    $(tools/tf_env) tests/golden/gen_dataset5.py

Every case is multi-step (gen_lookup.py's steps_case): an iterator made,
then read element by element. The pipelines turn TensorFlow's static
rewrites off (plain()): TensorFlow checks an assertion against the pipeline
it rewrote (map_parallelization and the like), and dfx rewrites nothing.

DatasetFingerprint's value is TensorFlow's hash of the pipeline's
serialized GraphDef, which dfx does not reproduce (dfx hashes its own
record of the pipeline: the same in every dfx process): the cases compare
fingerprints of two pipelines (equal or not), which both runtimes agree on
for pipelines without functions. (Two maps with equal bodies but distinct
functions fingerprint alike in TensorFlow, apart in dfx: left out.)

Auto-sharding cases cover each policy on pipelines without files (AUTO
falls back to DATA, FILE fails with NotFound), DATA over TFRecord files
(in the case folder), and FILE and AUTO sharding the file names of
TFRecordDataset (a flat_map) and of an interleave, a shuffle of the names
moved below the shard (list_files). Left out: files under a zip or
concatenate, and two shuffles of the names (dfx: Unimplemented), and HINT
over shard(SHARD_HINT) (dfx's ShardDataset refuses SHARD_HINT when it is
made).

SnapshotDatasetV2 (Dataset.snapshot) cases are multi-step: a first pass
writes the snapshot under "@SCRATCH_DIR@/snap/<hash>", a second pass over
the same dataset reads it (the input file is rewritten in between, and the
second pass still yields the old lines). The hash directory's name is
TensorFlow's graph hash in TensorFlow and dfx's own fingerprint in dfx:
each runtime finds what it wrote itself; no case reads the other's
snapshot directory (a directory TensorFlow wrote is read by
Dataset.load). AUTO compression is SNAPPY, as in TensorFlow.

SNAPPY (TensorFlow's block framing of its record files, dfx linking
Debian's libsnappy): a save and load, a snapshot, and a directory
TensorFlow saved with SNAPPY loaded by dfx; dfx's writer makes the same
blocks with the same contents as TensorFlow's (tests/kernels/dataset5_test.cc
rewrites the TensorFlow files of load_tf_saved_snappy and compares); the
compressed bytes differ where Debian's snappy 1.1.9 picks other matches
than TensorFlow's snappy. TensorFlow reads dfx's SNAPPY files (checked by
hand: Dataset.load of a directory whose shard files dfx wrote).

TFRecord files too: DatasetToTFRecord writes SNAPPY and TFRecordDataset
reads it (TextLineDataset and FixedLengthRecordDataset refuse SNAPPY in
TensorFlow, and in dfx).

SnapshotDataset (v1) cases: two passes in each mode and with each
compression, a named snapshot, an unfinished one, and bad attrs. dfx
writes v1 snapshots in the save format, not v1's own files (only dfx
reads what it wrote, as for v2).

Left out of the family: SnapshotNestedDatasetReader (TensorFlow 2.21
crashes making its iterator, see gen_dataset4.py; Dataset.snapshot does
not put it in graphs).
"""

import numpy as np

import golden_lib
from golden_lib import tf, tf1
from gen_lookup import CASE_DIR, SCRATCH_DIR, steps_case
from tensorflow.python.data.experimental.ops import testing

FAMILY = "dataset5"
OPS = ["AssertNextDataset", "ExperimentalAssertNextDataset",
       "AssertPrevDataset", "AutoShardDataset",
       "ExperimentalAutoShardDataset", "SnapshotDatasetV2",
       "SnapshotDataset", "DatasetFingerprint"]
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


def pipeline_case(folder, name, make, pulls, note=""):
    def build():
        out = {}
        iterate(plain(make()), out)
        return out
    g = tf.Graph()
    with g.as_default():
        n = len(tf.nest.flatten(make().element_spec))
    keys = [f"c{i}" for i in range(n)]
    steps_case(folder, name, build,
               [(["init"], {})] + [(keys, {})] * pulls, note=note)


def raw_assert(op, ds, transformations):
    """ds followed by the assertion op `op` over `transformations` (a
    tensor or a list of strings)."""
    spec = ds.element_spec
    v = getattr(raw, op)(
        input_dataset=ds._variant_tensor, transformations=transformations,
        output_types=[s.dtype for s in tf.nest.flatten(spec)],
        output_shapes=[s.shape for s in tf.nest.flatten(spec)])
    return tf.data.experimental.from_variant(v, spec)


def r5():
    return tf.data.Dataset.range(5)


def inc(x):
    return x + 1


def assert_next_cases(folder):
    nxt = testing.assert_next  # ExperimentalAssertNextDataset
    pipeline_case(folder, "next_map",
                  lambda: r5().apply(nxt(["Map"])).map(inc), 3)
    pipeline_case(folder, "next_map_batch",
                  lambda: r5().apply(nxt(["Map", "Batch"])).map(inc)
                  .batch(2), 4, note="Batch matches BatchDatasetV2")
    pipeline_case(folder, "next_map_batch_root",
                  lambda: r5().apply(nxt(["Map", "Batch", "Root"])).map(inc)
                  .batch(2), 1)
    pipeline_case(folder, "next_root",
                  lambda: r5().apply(nxt(["Root"])), 2)
    pipeline_case(folder, "next_empty", lambda: r5().apply(nxt([])), 6)
    # TensorFlow's own names: FiniteTake, FiniteSkip, FiniteRepeat[0] and
    # ForeverRepeat[0], MemoryCacheImpl, Zip[i] and Concatenate[i].
    pipeline_case(folder, "next_filter_take_repeat",
                  lambda: r5().apply(nxt(["Filter", "FiniteTake",
                                          "FiniteRepeat[0]"]))
                  .filter(lambda x: x > 1).take(2).repeat(2), 2,
                  note="the first pass only: TensorFlow names the second "
                  "pass's input FiniteRepeat[1], dfx FiniteRepeat[0]")
    pipeline_case(folder, "next_skip_cache_repeat",
                  lambda: r5().apply(nxt(["FiniteSkip", "MemoryCacheImpl",
                                          "ForeverRepeat[0]", "FiniteTake"]))
                  .skip(3).cache().repeat().take(5), 6)
    pipeline_case(folder, "next_concatenate",
                  lambda: r5().apply(nxt(["Concatenate[0]"])).concatenate(
                      tf.data.Dataset.range(7, 9)), 8)
    pipeline_case(folder, "next_take_name",
                  lambda: r5().apply(nxt(["Take"])).take(2), 1,
                  note="TensorFlow names TakeDataset FiniteTake")
    pipeline_case(folder, "next_parallel_map",
                  lambda: r5().apply(nxt(["ParallelMap"]))
                  .map(inc, num_parallel_calls=2), 2,
                  note="ParallelMap matches ParallelMapDatasetV2")
    pipeline_case(folder, "next_parallel_map_v2",
                  lambda: r5().apply(nxt(["ParallelMapV2"]))
                  .map(inc, num_parallel_calls=2), 2)
    pipeline_case(folder, "next_two_assertions",
                  lambda: r5().apply(nxt(["AssertNext", "Map"]))
                  .apply(nxt(["Map"])).map(inc), 2)
    pipeline_case(folder, "next_zip",
                  lambda: tf.data.Dataset.zip(
                      (r5(), r5().apply(nxt(["Zip[1]", "Batch"]))))
                  .batch(3), 3)
    pipeline_case(folder, "next_zip_name",
                  lambda: tf.data.Dataset.zip(
                      (r5().apply(nxt(["Zip"])), r5())), 1,
                  note="zip's inputs are Zip[0], Zip[1]")
    # Errors: MakeIterator fails with InvalidArgument.
    pipeline_case(folder, "next_wrong",
                  lambda: r5().apply(nxt(["Batch"])).map(inc), 1)
    pipeline_case(folder, "next_map_prefix_only",
                  lambda: r5().apply(nxt(["Ma"])).map(inc), 1,
                  note="a prefix that is not a version does not match")
    pipeline_case(folder, "next_too_many",
                  lambda: r5().apply(nxt(["Map", "Batch"])).map(inc), 1,
                  note="offset 1 is Root")
    pipeline_case(folder, "next_past_root",
                  lambda: r5().apply(nxt(["Map", "Root", "Map"])).map(inc),
                  1)
    # The raw AssertNextDataset, and a transformations input that is not
    # a vector (fed past the shape function): InvalidArgument making it.
    pipeline_case(folder, "next_raw_op",
                  lambda: raw_assert("AssertNextDataset", r5(), ["Map"])
                  .map(inc), 2)
    pipeline_case(folder, "next_raw_op_wrong",
                  lambda: raw_assert("AssertNextDataset", r5(), ["Filter"])
                  .map(inc), 1)
    pipeline_case(folder, "next_scalar_transformations",
                  lambda: raw_assert("AssertNextDataset", r5(),
                                     tf1.placeholder_with_default(
                                         "Map", shape=None)).map(inc), 1)


def assert_prev_cases(folder):
    prev = testing.assert_prev
    pipeline_case(folder, "prev_range",
                  lambda: r5().apply(prev([("RangeDataset", {})])), 2)
    pipeline_case(folder, "prev_map_range",
                  lambda: r5().map(inc).apply(
                      prev([("MapDataset", {}), ("RangeDataset", {})])), 2)
    pipeline_case(folder, "prev_batch_version",
                  lambda: r5().batch(2).apply(prev([("BatchDataset", {})])),
                  2, note="BatchDataset matches BatchDatasetV2")
    pipeline_case(folder, "prev_attrs",
                  lambda: r5().batch(2, drop_remainder=True).apply(prev([(
                      "BatchDatasetV2", {"parallel_copy": False})])), 3)
    pipeline_case(folder, "prev_map_attrs",
                  lambda: r5().map(inc).apply(prev([(
                      "MapDataset", {"use_inter_op_parallelism": True,
                                     "preserve_cardinality": True})])), 2)
    pipeline_case(folder, "prev_zip_last_input",
                  lambda: tf.data.Dataset.zip(
                      (r5(), r5().map(inc))).apply(
                      prev([("ZipDataset", {}), ("MapDataset", {})])), 2,
                  note="a dataset's previous is its last input")
    pipeline_case(folder, "prev_empty", lambda: r5().apply(prev([])), 2)
    # Errors: MakeIterator fails with InvalidArgument.
    pipeline_case(folder, "prev_wrong",
                  lambda: r5().apply(prev([("MapDataset", {})])), 1)
    pipeline_case(folder, "prev_attr_value",
                  lambda: r5().batch(2, drop_remainder=True).apply(prev([(
                      "BatchDatasetV2", {"parallel_copy": True})])), 1)
    pipeline_case(folder, "prev_attr_missing",
                  lambda: r5().apply(prev([("RangeDataset", {"foo": 1})])),
                  1)
    pipeline_case(folder, "prev_too_many",
                  lambda: r5().apply(prev([("RangeDataset", {}),
                                           ("RangeDataset", {})])), 1)
    pipeline_case(folder, "prev_unparsable",
                  lambda: raw_assert("AssertPrevDataset", r5(),
                                     ["name: 'RangeDataset' {"]), 1)
    pipeline_case(folder, "prev_scalar_transformations",
                  lambda: raw_assert("AssertPrevDataset", r5(),
                                     tf1.placeholder_with_default(
                                         "name: 'RangeDataset'", shape=None)),
                  1)


def fingerprint_cases(folder):
    def fp(ds):
        return raw.DatasetFingerprint(input_dataset=ds._variant_tensor)

    def build():
        a = r5().batch(2)
        same = r5().batch(2)
        other_stop = tf.data.Dataset.range(6).batch(2)
        other_attr = r5().batch(2, drop_remainder=True)
        slices = tf.data.Dataset.from_tensor_slices(
            (tf.constant([1, 2], tf.int32), tf.constant(["a", "b"])))
        slices2 = tf.data.Dataset.from_tensor_slices(
            (tf.constant([1, 2], tf.int32), tf.constant(["a", "b"])))
        slices3 = tf.data.Dataset.from_tensor_slices(
            (tf.constant([1, 2], tf.int32), tf.constant(["a", "c"])))
        m1 = r5().map(inc)
        m2 = r5().map(lambda x: x * 2)
        f = fp(a)
        return {
            "same": tf.equal(f, fp(same)),
            "stop": tf.equal(f, fp(other_stop)),
            "attr": tf.equal(f, fp(other_attr)),
            "slices_same": tf.equal(fp(slices), fp(slices2)),
            "slices_other": tf.equal(fp(slices), fp(slices3)),
            "map_other": tf.equal(fp(m1), fp(m2)),
            "map_range": tf.equal(fp(m1), fp(r5())),
            "twice": tf.equal(f, fp(a)),
            "dtype": tf.constant(0, tf.uint64) + tf.zeros_like(f),
        }
    steps_case(folder, "fingerprint_compare", build,
               [(["same", "stop", "attr", "slices_same", "slices_other",
                  "map_other", "map_range", "twice", "dtype"], {})],
               note="equal or not, as TensorFlow; values differ")

    def not_dataset():
        c = raw.CompressElement(components=[tf.constant(1, tf.int64)])
        return {"fp": raw.DatasetFingerprint(input_dataset=c)}
    steps_case(folder, "fingerprint_not_a_dataset", not_dataset,
               [(["fp"], {})])


def tfrecord_bytes(records):
    """A TFRecord file of `records`, uncompressed."""
    import tempfile
    import os
    with tempfile.TemporaryDirectory(prefix="dfx_gen_") as tmp:
        path = os.path.join(tmp, "f")
        with tf.io.TFRecordWriter(path) as w:
            for r in records:
                w.write(r)
        with open(path, "rb") as f:
            return f.read()


def auto_shard_cases(folder):
    OFF, AUTO, FILE, DATA, HINT = -1, 0, 1, 2, 3

    def shard(ds, policy, workers, index, op="AutoShardDataset"):
        spec = ds.element_spec
        v = getattr(raw, op)(
            input_dataset=ds._variant_tensor, num_workers=workers,
            index=index, auto_shard_policy=policy,
            output_types=[s.dtype for s in tf.nest.flatten(spec)],
            output_shapes=[s.shape for s in tf.nest.flatten(spec)])
        return tf.data.experimental.from_variant(v, spec)

    def r10():
        return tf.data.Dataset.range(10)

    for name, policy in [("off", OFF), ("auto", AUTO), ("file", FILE),
                         ("data", DATA), ("hint", HINT),
                         ("unknown_policy", 7)]:
        pipeline_case(folder, "shard_range_" + name,
                      lambda policy=policy: shard(r10(), policy, 3, 1),
                      11 if policy in (OFF, HINT) else 4,
                      note="FILE: NotFound (an unshardable source); AUTO: "
                      "DATA; 7: InvalidArgument")
    pipeline_case(folder, "shard_experimental_op",
                  lambda: shard(r10(), DATA, 4, 3,
                                op="ExperimentalAutoShardDataset"), 3)
    pipeline_case(folder, "shard_last_index",
                  lambda: shard(r10(), AUTO, 3, 2), 4)
    pipeline_case(folder, "shard_batch",
                  lambda: shard(r10().batch(3), DATA, 2, 0), 3,
                  note="batches are sharded")
    pipeline_case(folder, "shard_prefetch",
                  lambda: shard(r10().prefetch(1), DATA, 3, 1), 4)
    pipeline_case(folder, "shard_options",
                  lambda: shard(plain(r10().map(inc)), AUTO, 3, 0), 5)
    pipeline_case(folder, "shard_zip",
                  lambda: shard(tf.data.Dataset.zip((r10(), r10().skip(1))),
                                AUTO, 4, 1), 4)
    pipeline_case(folder, "shard_map_file",
                  lambda: shard(r10().map(inc), FILE, 2, 0), 1,
                  note="NotFound: the walk ends at RangeDataset")
    pipeline_case(folder, "shard_one_worker_file",
                  lambda: shard(r10(), FILE, 1, 0), 11,
                  note="FILE with one worker is no rewrite at all")
    pipeline_case(folder, "shard_fewer_elements",
                  lambda: shard(tf.data.Dataset.range(2), DATA, 3, 2), 1,
                  note="nothing from index on: no element, no error")
    pipeline_case(folder, "shard_not_enough_elements",
                  lambda: shard(tf.data.Dataset.range(2), DATA, 3, 0), 2,
                  note="InvalidArgument for the first element: 2 "
                  "elements for 3 workers")
    pipeline_case(folder, "shard_empty",
                  lambda: shard(tf.data.Dataset.range(0), AUTO, 2, 0), 1)
    pipeline_case(folder, "shard_repeat_take",
                  lambda: shard(tf.data.Dataset.range(3).repeat().take(11),
                                DATA, 4, 1), 4)
    for name, workers, index in [("zero_workers", 0, 0),
                                 ("index_too_big", 3, 3),
                                 ("negative_index", 3, -1)]:
        pipeline_case(folder, "shard_" + name,
                      lambda workers=workers, index=index:
                      shard(r10(), DATA, workers, index), 1)
    pipeline_case(folder, "shard_vector_workers",
                  lambda: shard(r10(), DATA, tf1.placeholder_with_default(
                      np.array([2], np.int64), shape=None), 0), 1)

    # DATA and AUTO over TFRecord files read by a flat_map (AUTO here would
    # shard the files in TensorFlow: only DATA, and a reader of a file name
    # tensor, which FILE cannot shard, are compared).
    files = {f"f{i}.tfrecord": tfrecord_bytes(
        [f"{i}-{j}".encode() for j in range(3)]) for i in range(3)}
    names = [CASE_DIR + "/" + n for n in sorted(files)]

    def files_case(name, make, policy, workers, index, pulls, note=""):
        def build():
            p = tf1.placeholder(tf.string, [None], name="files")
            out = {"files": p}
            iterate(plain(shard(make(p), policy, workers, index)), out)
            return out
        steps_case(folder, name, build,
                   [(["init"], {"files": names})] + [(["c0"], {})] * pulls,
                   files=files, note=note)
    files_case("shard_files_data",
               lambda p: tf.data.Dataset.from_tensor_slices(p).flat_map(
                   tf.data.TFRecordDataset), DATA, 2, 1, 5)
    # FILE (and AUTO) shard the file names below the dataset that reads
    # them: TFRecordDataset of several files (a flat_map), an interleave,
    # with transformations after it.
    files_case("shard_files_file", lambda p: tf.data.TFRecordDataset(p),
               FILE, 2, 1, 4)
    files_case("shard_files_auto", lambda p: tf.data.TFRecordDataset(p),
               AUTO, 3, 2, 4)
    files_case("shard_files_interleave_map_batch",
               lambda p: tf.data.Dataset.from_tensor_slices(p).interleave(
                   tf.data.TFRecordDataset, cycle_length=2)
               .map(tf.strings.upper).batch(2), AUTO, 2, 0, 5)
    files_case("shard_files_assert_cardinality",
               lambda p: tf.data.TFRecordDataset(p).apply(
                   tf.data.experimental.assert_cardinality(9)), FILE, 3, 0, 4,
               )
    files_case("shard_files_too_few", lambda p: tf.data.TFRecordDataset(p),
               FILE, 4, 0, 2,
               note="InvalidArgument: 3 files for 4 workers")
    files_case("shard_files_none_left", lambda p: tf.data.TFRecordDataset(p),
               FILE, 4, 3, 1)
    # list_files' shuffle (seeded) moves below the shard.
    files_case("shard_files_shuffled",
               lambda p: tf.data.Dataset.from_tensor_slices(p).shuffle(
                   3, seed=5).map(lambda f: f).flat_map(
                       tf.data.TFRecordDataset), FILE, 2, 0, 7,
               note="TensorFlow moves the shuffle below the shard")
    files_case("shard_files_list_files",
               lambda p: tf.data.Dataset.list_files(
                   tf.strings.regex_replace(p[0], "f0.tfrecord$",
                                            "*.tfrecord"),
                   seed=11).interleave(tf.data.TFRecordDataset,
                                       cycle_length=2), AUTO, 2, 1, 4)
    files_case("shard_tfrecord_auto",
               lambda p: tf.data.experimental.from_variant(
                   raw.TFRecordDataset(filenames=p, compression_type="",
                                       buffer_size=tf.constant(0, tf.int64)),
                   tf.TensorSpec([], tf.string)), AUTO, 4, 3, 3)
    files_case("shard_tfrecord_file",
               lambda p: tf.data.experimental.from_variant(
                   raw.TFRecordDataset(filenames=p, compression_type="",
                                       buffer_size=tf.constant(0, tf.int64)),
                   tf.TensorSpec([], tf.string)), FILE, 4, 3, 1)


def snapshot_cases(folder):
    def in_order(datasets):
        return datasets.flat_map(lambda d: d)

    def snap(ds, path, shard=lambda *x: tf.constant(0, tf.int64),
             reader=in_order, compression=None):
        return ds.snapshot(path, compression=compression, reader_func=reader,
                           shard_func=shard)

    at = {"path": SCRATCH_DIR + "/snap"}

    # The second pass reads the snapshot, not the input: the input file is
    # rewritten between the passes.
    def reread(compression):
        def build():
            path = tf1.placeholder(tf.string, [], name="path")
            fname = tf1.placeholder(tf.string, [], name="fname")
            content = tf1.placeholder(tf.string, [], name="content")
            out = {"path": path, "fname": fname, "content": content,
                   "write": tf.io.write_file(fname, content)}
            iterate(plain(snap(tf.data.TextLineDataset(fname), path,
                               compression=compression)), out)
            return out
        return build
    fname = {"fname": SCRATCH_DIR + "/in.txt"}
    for name, compression in [("snapshot_reread", None),
                              ("snapshot_reread_gzip", "GZIP"),
                              ("snapshot_reread_snappy", "SNAPPY")]:
        steps_case(folder, name, reread(compression),
                   [(["write"], dict(fname, content="a\nb\nc")),
                    (["init"], dict(at, **fname))] + [(["c0"], {})] * 4 +
                   [(["write"], dict(fname, content="x\ny")),
                    (["init"], dict(at, **fname))] + [(["c0"], {})] * 4,
                   note="both passes yield a, b, c: the second reads the "
                   "snapshot")

    # Dataset.snapshot's defaults: AUTO compression, shards by element
    # index modulo the CPUs, reader_func an interleave over them.
    def defaults():
        path = tf1.placeholder(tf.string, [], name="path")
        out = {"path": path}
        iterate(plain(tf.data.Dataset.range(6).map(lambda x: x * 10)
                      .snapshot(path)), out)
        return out
    steps_case(folder, "snapshot_defaults", defaults,
               [(["init"], at)] + [(["c0"], {})] * 7 + [(["init"], at)] +
               [(["c0"], {})] * 7)

    # Sharded by value, read back shard by shard.
    def sharded():
        path = tf1.placeholder(tf.string, [], name="path")
        out = {"path": path}
        iterate(plain(snap(tf.data.Dataset.range(7), path,
                           shard=lambda x: x % 3)), out)
        return out
    steps_case(folder, "snapshot_sharded", sharded,
               [(["init"], at)] + [(["c0"], {})] * 8 + [(["init"], at)] +
               [(["c0"], {})] * 8,
               note="second pass: shards 0, 1, 2 in order")

    # A pass that stops early leaves an unfinished snapshot: a later
    # iterator passes the input through (TensorFlow's PASSTHROUGH).
    def unfinished():
        path = tf1.placeholder(tf.string, [], name="path")
        out = {"path": path}
        iterate(plain(snap(tf.data.Dataset.range(4), path)), out)
        return out
    steps_case(folder, "snapshot_unfinished", unfinished,
               [(["init"], at)] + [(["c0"], {})] * 2 + [(["init"], at)] +
               [(["c0"], {})] * 5)

    def path_vector():
        out = {}
        iterate(plain(snap(tf.data.Dataset.range(2),
                           tf1.placeholder_with_default(["a"], shape=None))),
                out)
        return out
    steps_case(folder, "snapshot_path_vector", path_vector,
               [(["init"], {}), (["c0"], {})])


def snapshot_v1_cases(folder):
    """SnapshotDataset (v1), as tf.raw_ops builds it."""
    fname = {"fname": SCRATCH_DIR + "/in.txt"}
    at = {"path": SCRATCH_DIR + "/snap"}

    def v1(ds, path, **attrs):
        v = raw.SnapshotDataset(input_dataset=ds._variant_tensor, path=path,
                                output_types=[tf.string], output_shapes=[[]],
                                **attrs)
        return tf.data.experimental.from_variant(v, ds.element_spec)

    def reread(**attrs):
        def build():
            path = tf1.placeholder(tf.string, [], name="path")
            f = tf1.placeholder(tf.string, [], name="fname")
            content = tf1.placeholder(tf.string, [], name="content")
            out = {"path": path, "fname": f, "content": content,
                   "write": tf.io.write_file(f, content)}
            iterate(plain(v1(tf.data.TextLineDataset(f), path, **attrs)), out)
            return out
        return build

    def two_passes(name, note="", pulls=4, **attrs):
        steps_case(folder, name, reread(**attrs),
                   [(["write"], dict(fname, content="a\nb\nc")),
                    (["init"], dict(at, **fname))] + [(["c0"], {})] * pulls +
                   [(["write"], dict(fname, content="x\ny")),
                    (["init"], dict(at, **fname))] + [(["c0"], {})] * 4,
                   note=note)
    two_passes("snapshot_v1_reread",
               note="the second pass reads the snapshot: a, b, c")
    two_passes("snapshot_v1_gzip", compression="GZIP")
    two_passes("snapshot_v1_snappy", compression="SNAPPY")
    two_passes("snapshot_v1_named", snapshot_name="mine")
    two_passes("snapshot_v1_write_mode", mode="write",
               note="write mode: both passes read the input")
    two_passes("snapshot_v1_passthrough_mode", mode="passthrough")
    two_passes("snapshot_v1_unfinished", pulls=2,
               note="the first pass stops early: the second passes through")
    # Errors: read mode over nothing; bad attrs.
    two_passes("snapshot_v1_read_mode_missing", pulls=1, mode="read")
    two_passes("snapshot_v1_bad_compression", pulls=1, compression="ZLIB")
    two_passes("snapshot_v1_bad_mode", pulls=1, mode="sometimes")
    two_passes("snapshot_v1_bad_expiry", pulls=1,
               pending_snapshot_expiry_seconds=0)


def snappy_cases(folder):
    """SNAPPY saves and loads (TensorFlow's block framing), a directory
    TensorFlow saved with SNAPPY loaded by dfx, and a SNAPPY snapshot."""
    import gen_dataset4 as d4
    def save_load():
        path = tf1.placeholder(tf.string, shape=[], name="path")
        ds = d4.mixed()
        out = {"path": path,
               "save": d4.save_op(ds, path, lambda a, b, c, d: a % 2,
                                  "SNAPPY")}
        iterate(d4.load(path, ds.element_spec, "SNAPPY"), out)
        return out
    keys = ["c0", "c1", "c2", "c3"]
    at = {"path": SCRATCH_DIR + "/saved"}
    steps_case(folder, "save_load_snappy", save_load,
               [(["save"], at), (["init"], at)] + [(keys, {})] * 6)

    # TensorFlow's files; "big/" (not read by the case) holds a save with
    # a record over the 256 KiB buffer, for dataset5_test's byte-for-byte
    # comparison of dfx's SNAPPY writer with TensorFlow's.
    files = d4.tf_saved_files(d4.mixed, lambda a, b, c, d: a % 2, "SNAPPY")
    big = d4.tf_saved_files(
        lambda: tf.data.Dataset.from_tensors(tf.zeros([67000], tf.int32))
        .concatenate(tf.data.Dataset.from_tensors(tf.range(5)))
        .concatenate(tf.data.Dataset.from_tensors(tf.range(3))),
        lambda x: tf.constant(0, tf.int64), "SNAPPY")
    files.update({"big/" + k: v for k, v in big.items()})
    d4.loaded_case(folder, "load_tf_saved_snappy", d4.mixed, "SNAPPY", files,
                   6)

    # TFRecord files: DatasetToTFRecord writes SNAPPY, TFRecordDataset
    # reads it back; and a file TensorFlow wrote read by dfx.
    records = [b"hello", b"", b"world" * 40, bytes(range(256))]

    def write_read():
        path = tf1.placeholder(tf.string, [], name="path")
        out = {"path": path,
               "write": tf.data.experimental.TFRecordWriter(
                   path, compression_type="SNAPPY").write(
                       tf.data.Dataset.from_tensor_slices(records))}
        iterate(plain(tf.data.TFRecordDataset(path,
                                              compression_type="SNAPPY")),
                out)
        return out
    at = {"path": SCRATCH_DIR + "/r.tfrecord"}
    steps_case(folder, "tfrecord_snappy", write_read,
               [(["write"], at), (["init"], at)] + [(["c0"], {})] * 5)

    import tempfile
    import os
    with tempfile.TemporaryDirectory(prefix="dfx_gen_") as tmp:
        f = os.path.join(tmp, "r.tfrecord")
        g = tf.Graph()
        with g.as_default():
            op = tf.data.experimental.TFRecordWriter(
                f, compression_type="SNAPPY").write(
                    tf.data.Dataset.from_tensor_slices(records))
            with tf1.Session(graph=g) as sess:
                sess.run(op)
        with open(f, "rb") as fh:
            tf_file = fh.read()

    def read_tf_file():
        path = tf1.placeholder(tf.string, [], name="path")
        out = {"path": path}
        iterate(plain(tf.data.TFRecordDataset(path,
                                              compression_type="SNAPPY")),
                out)
        return out
    steps_case(folder, "tfrecord_snappy_tf_file", read_tf_file,
               [(["init"], {"path": CASE_DIR + "/r.tfrecord"})] +
               [(["c0"], {})] * 5, files={"r.tfrecord": tf_file})


def main():
    folder = golden_lib.family_folder(FAMILY)
    golden_lib.write_op_defs(FAMILY, OPS)
    assert_next_cases(folder)
    assert_prev_cases(folder)
    auto_shard_cases(folder)
    snapshot_cases(folder)
    snapshot_v1_cases(folder)
    snappy_cases(folder)
    fingerprint_cases(folder)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Golden cases of the distsnap family: tf.data distributed snapshots read
back (ListSnapshotChunksDataset, SnapshotChunkDataset: what
tf.data.Dataset.load builds for a directory that
tf.data.experimental.distributed_save wrote), as TensorFlow 2.21 runs them.
Also writes TensorFlow's OpDefs of those ops
(tests/golden/data/distsnap/tf_op_defs.pbtxt), which
tests/kernels/distsnap_test.cc compares byte for byte with dfx's.

    $(tools/tf_env) tests/golden/gen_distsnap.py

The generator starts a tf.data service in-process (a DispatchServer in
fault-tolerant mode and two WorkerServers with a 100 ms heartbeat and
100-byte chunks, so that a small dataset makes several chunks on two
streams), runs distributed_save of small datasets (int64s, strings,
tuples with vectors of varying length, ragged rows; compression none,
SNAPPY, GZIP and AUTO), waits for each DONE file, and writes what a load
reads (snapshot.metadata, dataset_spec.pb, DONE, chunks/*) into the case
folders ("@CASE_DIR@/snap"). Which worker wrote which element varies from
run to run; each case's answer is TensorFlow's reading of the files the
case holds.

Every case is multi-step (gen_lookup.py's steps_case), the snapshot path
fed. load_* cases build the graph TensorFlow's Dataset.load builds for a
distributed snapshot (load_op._load_distributed_snapshot:
ListSnapshotChunksDataset, a map making one SnapshotChunkDataset per chunk
with the metadata's element spec and compression, and the default
reader_func's parallel interleave); the generator checks that they read
what tf.data.Dataset.load itself reads. Chunk names are fetched with their
directory cut off (the case folder differs between runs).

list_partial: a snapshot without its DONE file (still being written):
the committed chunks are listed (reading past them would wait for more,
as in TensorFlow). save_* cases: iterator round trips (SerializeIterator,
DeserializeIterator) of both datasets and of a load. Errors: a missing
chunk file (NotFound), corrupted and truncated records (DataLoss), a record
that is not a TensorProto (DataLoss), an ERROR file (its status), an ERROR
file holding OK (Internal), an empty snapshot_path (InvalidArgument).

SnapshotNestedDatasetReader is not in this family: TensorFlow 2.21
crashes (SIGSEGV) making its iterator (see gen_dataset4.py).
"""

import multiprocessing
import os
import tempfile
import time

import numpy as np

import golden_lib
from golden_lib import tf, tf1
from gen_lookup import CASE_DIR, steps_case
from tensorflow.core.protobuf import service_config_pb2
from tensorflow.python.data.ops import load_op

FAMILY = "distsnap"
raw = tf.raw_ops


def write_snapshots(datasets):
    """{name: (make_dataset, compression)} -> {name: {relative file: bytes}}
    of the snapshots a tf.data service wrote."""
    svc = tf.data.experimental.service
    out = {}
    with tempfile.TemporaryDirectory() as base:
        dispatcher = svc.DispatchServer(svc.DispatcherConfig(
            fault_tolerant_mode=True, work_dir=os.path.join(base, "work")))
        address = dispatcher.target.split("://")[1]
        workers = [svc.WorkerServer(service_config_pb2.WorkerConfig(
            dispatcher_address=address, worker_address="localhost:%port%",
            protocol="grpc", heartbeat_interval_ms=100,
            snapshot_max_chunk_size_bytes=100,
            data_transfer_address="localhost:%dts_port%"))
            for _ in range(2)]
        with tf.Graph().as_default():
            ops = [tf.data.experimental.distributed_save(
                make(), os.path.join(base, name), address,
                compression=compression)
                for name, (make, compression) in datasets.items()]
            with tf1.Session() as sess:
                sess.run(ops)
        for name in datasets:
            path = os.path.join(base, name)
            deadline = time.time() + 120
            while not os.path.exists(os.path.join(path, "DONE")):
                assert time.time() < deadline, f"{name}: no DONE"
                assert not os.path.exists(os.path.join(path, "ERROR"))
                time.sleep(0.1)
            files = {}
            for f in ("snapshot.metadata", "dataset_spec.pb", "DONE"):
                with open(os.path.join(path, f), "rb") as fh:
                    files["snap/" + f] = fh.read()
            for f in sorted(os.listdir(os.path.join(path, "chunks"))):
                with open(os.path.join(path, "chunks", f), "rb") as fh:
                    files["snap/chunks/" + f] = fh.read()
            out[name] = files
        del workers, dispatcher
    return out


def metadata(files):
    from google.protobuf import text_format
    from tensorflow.core.protobuf import snapshot_pb2
    m = text_format.Parse(files["snap/snapshot.metadata"].decode(),
                          snapshot_pb2.DistributedSnapshotMetadata())
    return load_op._parse_element_spec(m.element_spec), m.compression


def tf_load(path, spec, compression):
    """The graph Dataset.load builds for a distributed snapshot at `path`
    (a tensor here: the case feeds it)."""
    ds = load_op._ListSnapshotChunksDataset(path)
    ds = ds.map(lambda f: load_op._SnapshotChunkDataset(
        f, element_spec=spec, compression=compression))
    return ds.interleave(lambda x: x,
                         cycle_length=multiprocessing.cpu_count(),
                         num_parallel_calls=tf.data.AUTOTUNE)


def plain(ds):
    """ds without TensorFlow's static rewrites (which dfx does not make; with
    them TensorFlow 2.21 fails to rewrite a pipeline whose
    SnapshotChunkDataset's input is fed: "Cannot parse tensor from
    proto")."""
    o = tf.data.Options()
    o.experimental_optimization.apply_default_optimizations = False
    o.experimental_optimization.inject_prefetch = False
    o.autotune.enabled = False
    return ds.with_options(o)


def iterate(ds, out, prefix=""):
    it = tf1.data.make_initializable_iterator(plain(ds))
    out[prefix + "init"] = it.initializer
    keys = []
    for i, t in enumerate(tf.nest.flatten(it.get_next(),
                                          expand_composites=True)):
        out[f"{prefix}c{i}"] = t
        keys.append(f"{prefix}c{i}")
    return keys


def chunk_names(ds):
    return ds.map(lambda f: tf.strings.regex_replace(f, ".*/chunks/", ""))


def count(files, spec):
    """How many elements the snapshot holds (the chunk names say)."""
    return sum(int(k.rsplit("_", 1)[1]) for k in files
               if k.startswith("snap/chunks/"))


def read_all_tf(path, make):
    """Every element TensorFlow reads from `make(path)`, flattened."""
    with tf.Graph().as_default():
        it = tf1.data.make_one_shot_iterator(make(path))
        nxt = tf.nest.flatten(it.get_next(), expand_composites=True)
        got = []
        with tf1.Session() as sess:
            while True:
                try:
                    got.append(sess.run(nxt))
                except tf.errors.OutOfRangeError:
                    return got


def load_case(folder, name, files):
    spec, compression = metadata(files)
    n = count(files, spec)
    with tempfile.TemporaryDirectory() as d:
        for f, data in files.items():
            os.makedirs(os.path.dirname(os.path.join(d, f)), exist_ok=True)
            with open(os.path.join(d, f), "wb") as fh:
                fh.write(data)
        ours = read_all_tf(os.path.join(d, "snap"),
                           lambda p: tf_load(tf.constant(p), spec,
                                             compression))
        theirs = read_all_tf(os.path.join(d, "snap"),
                             lambda p: tf.data.Dataset.load(p))
    assert len(ours) == n == len(theirs), (name, len(ours), n, len(theirs))
    for a, b in zip(ours, theirs):
        for x, y in zip(a, b):
            np.testing.assert_array_equal(x, y)

    def build():
        p = tf1.placeholder(tf.string, [], name="path")
        out = {"path": p}
        iterate(tf_load(p, spec, compression), out)
        return out
    with tf.Graph().as_default():
        k = len(tf.nest.flatten(spec, expand_composites=True))
    keys = [f"c{i}" for i in range(k)]
    steps_case(folder, name, build,
               [(["init"], {"path": CASE_DIR + "/snap"})] +
               [(keys, {})] * (n + 1), files=files)


def source_case(folder, name, files, make, pulls, feed, note=""):
    """An iterator over make(fed path) read `pulls` times."""
    def build():
        p = tf1.placeholder(tf.string, [], name="path")
        out = {"path": p}
        iterate(make(p), out)
        return out
    with tf.Graph().as_default():
        k = len(tf.nest.flatten(
            make(tf.constant("x")).element_spec, expand_composites=True))
    keys = [f"c{i}" for i in range(k)]
    steps_case(folder, name, build,
               [(["init"], {"path": feed})] + [(keys, {})] * pulls,
               files=files, note=note)


def round_trip(folder, name, files, make, feed, k, rest):
    """k elements of a first iterator, its state into a second, `rest`
    reads of the second and one more of the first (gen_itckpt.py's)."""
    def build():
        p = tf1.placeholder(tf.string, [], name="path")
        ds = plain(make(p))
        first = tf1.data.make_initializable_iterator(ds)
        second = tf1.data.make_initializable_iterator(ds)
        state = raw.SerializeIterator(
            resource_handle=first._iterator_resource)
        copy = raw.DeserializeIterator(
            resource_handle=second._iterator_resource, serialized=state)
        named = {"path": p, "init1": first.initializer,
                 "init2": second.initializer, "copy": copy}
        for key, it in (("next1", first), ("next2", second)):
            for i, t in enumerate(tf.nest.flatten(it.get_next())):
                named[f"{key}_{i}"] = t
        return named
    with tf.Graph().as_default():
        n = len(tf.nest.flatten(make(tf.constant("x")).element_spec))
    next1 = [f"next1_{i}" for i in range(n)]
    next2 = [f"next2_{i}" for i in range(n)]
    feeds = {"path": feed}
    steps = ([(["init1"], feeds), (["init2"], feeds)] + [(next1, {})] * k +
             [(["copy"], {})] + [(next2, {})] * rest + [(next1, {})])
    steps_case(folder, name, build, steps, files=files)


def chunk(spec, compression):
    def make(p):
        return load_op._SnapshotChunkDataset(p, element_spec=spec,
                                             compression=compression)
    return make


def first_chunk(files):
    return sorted(k for k in files if k.startswith("snap/chunks/"))[0]


def corrupt(files, edit):
    out = dict(files)
    c = first_chunk(files)
    out[c] = edit(files[c])
    return out


def main():
    folder = golden_lib.family_folder(FAMILY)
    golden_lib.write_op_defs(FAMILY, ["ListSnapshotChunksDataset",
                                      "SnapshotChunkDataset"])
    d = tf.data.Dataset
    snaps = write_snapshots({
        "ints": (lambda: d.range(5), None),
        "strings": (lambda: d.from_tensor_slices(
            ["a", "bb", "", "dddd", "e"]), "SNAPPY"),
        "tuples": (lambda: d.range(4).map(
            lambda x: (x, tf.strings.as_string(x),
                       tf.cast(tf.range(x), tf.float32) / 2)), "GZIP"),
        "ragged": (lambda: d.from_tensor_slices(
            tf.ragged.constant([[1, 2], [], [3], [4, 5, 6]])), None),
        "many": (lambda: d.range(30), None),
        "auto": (lambda: d.range(6).map(
            lambda x: tf.fill([2, x], x)), "AUTO"),
    })
    for name, files in snaps.items():
        load_case(folder, "load_" + name, files)

    many = snaps["many"]
    at = CASE_DIR + "/snap"
    n_chunks = sum(1 for k in many if k.startswith("snap/chunks/"))
    list_chunks = lambda p: chunk_names(  # noqa: E731
        load_op._ListSnapshotChunksDataset(p))
    source_case(folder, "list_chunks", many, list_chunks, n_chunks + 1, at,
                note="chunk order: chunk index, then stream index")
    source_case(folder, "list_chunks_trailing_slash", many, list_chunks,
                n_chunks + 1, at + "/")
    # Still being written: no DONE. The committed chunks are listed; a read
    # past them would wait for more.
    partial = {k: v for k, v in snaps["ints"].items() if k != "snap/DONE"}
    source_case(folder, "list_partial", partial, list_chunks,
                sum(1 for k in partial if k.startswith("snap/chunks/")), at)
    # Temporary files (a chunk being committed) are not listed.
    tmp = dict(snaps["ints"])
    tmp["snap/chunks/chunk_0_9_1__abc.tmp"] = b"partial"
    source_case(folder, "list_skips_tmp", tmp, list_chunks,
                sum(1 for k in tmp if k.startswith("snap/chunks/")), at)

    def cardinality(p):
        return d.from_tensors(tf.data.experimental.cardinality(
            load_op._ListSnapshotChunksDataset(p)))
    source_case(folder, "cardinality_done", many, cardinality, 2, at)
    source_case(folder, "cardinality_partial", partial, cardinality, 2, at)

    # One chunk read directly.
    for name in ("ints", "strings", "tuples", "ragged"):
        files = snaps[name]
        spec, compression = metadata(files)
        c = first_chunk(files)
        records = int(c.rsplit("_", 1)[1])
        source_case(folder, f"chunk_{name}", files, chunk(spec, compression),
                    records + 1, CASE_DIR + "/" + c)

    # Iterator round trips.
    ints_spec, _ = metadata(snaps["ints"])
    round_trip(folder, "save_list_chunks", many, list_chunks, at, 2,
               n_chunks - 1)
    round_trip(folder, "save_list_chunks_unread", many, list_chunks, at, 0,
               n_chunks + 1)
    round_trip(folder, "save_list_chunks_at_end", many, list_chunks, at,
               n_chunks + 1, 1)
    c = first_chunk(many)
    records = int(c.rsplit("_", 1)[1])
    round_trip(folder, "save_chunk", many, chunk(ints_spec, ""),
               CASE_DIR + "/" + c, 2, records - 1)
    s_spec, s_comp = metadata(snaps["strings"])
    c = first_chunk(snaps["strings"])
    records = int(c.rsplit("_", 1)[1])
    round_trip(folder, "save_chunk_snappy", snaps["strings"],
               chunk(s_spec, s_comp), CASE_DIR + "/" + c, 1, records)

    def flat_load(p):
        return load_op._ListSnapshotChunksDataset(p).flat_map(
            lambda f: load_op._SnapshotChunkDataset(
                f, element_spec=ints_spec, compression=""))
    round_trip(folder, "save_flat_map_load", many, flat_load, at, 7, 24)

    # Errors.
    ints = snaps["ints"]
    c = first_chunk(ints)
    source_case(folder, "chunk_missing", ints, chunk(ints_spec, ""), 1,
                CASE_DIR + "/snap/chunks/chunk_9_9_9")
    # A flipped data byte: the record's CRC does not match.
    source_case(folder, "chunk_corrupted",
                corrupt(ints, lambda b: b[:14] + bytes([b[14] ^ 0xff]) +
                        b[15:]), chunk(ints_spec, ""), 1, CASE_DIR + "/" + c)
    # Cut within the second record's header: TensorFlow's record reader
    # takes that for the end of the file; within its data: DataLoss.
    source_case(folder, "chunk_truncated_header",
                corrupt(ints, lambda b: b[:40]), chunk(ints_spec, ""), 3,
                CASE_DIR + "/" + c)
    source_case(folder, "chunk_truncated_data",
                corrupt(ints, lambda b: b[:50]), chunk(ints_spec, ""), 3,
                CASE_DIR + "/" + c)
    source_case(folder, "chunk_not_tensor_proto",
                {"snap/chunks/chunk_0_0_1":
                 _tfrecords([b"\x08\x01\x12\x7fab"])},
                chunk(ints_spec, ""), 1,
                CASE_DIR + "/snap/chunks/chunk_0_0_1")
    source_case(folder, "chunk_snappy_read_plain", snaps["strings"],
                chunk(s_spec, ""), 1,
                CASE_DIR + "/" + first_chunk(snaps["strings"]))
    err = dict(ints)
    err["snap/ERROR"] = b'code: RESOURCE_EXHAUSTED\nmessage: "disk full"\n'
    source_case(folder, "list_error_file", err, list_chunks, 1, at)
    ok = dict(ints)
    ok["snap/ERROR"] = b"code: OK\n"
    source_case(folder, "list_error_file_ok", ok, list_chunks, 1, at)
    source_case(folder, "list_empty_path", {}, list_chunks, 1, "")


def _tfrecords(records):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "r")
        with tf.io.TFRecordWriter(path) as w:
            for r in records:
                w.write(r)
        with open(path, "rb") as f:
            return f.read()


if __name__ == "__main__":
    main()

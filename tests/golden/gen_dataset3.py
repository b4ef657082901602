#!/usr/bin/env python3
"""Golden cases of the dataset3 family: tf.data's file sources beside
TFRecordDataset and TextLineDataset (FixedLengthRecordDataset and V2,
TFRecordDatasetV2's byte_offsets, the CSV datasets, MatchingFilesDataset),
the thread-pool datasets, NonSerializableDataset, OptimizeDataset (v1),
ChooseFastestDataset, Wrap/UnwrapDatasetVariant, ParallelFilterDataset,
ListDataset (tf.data.experimental.from_list), GroupByReducerDataset (tf.data.experimental.group_by_reducer) and
DatasetToTFRecord (tf.data.experimental.TFRecordWriter), as TensorFlow 2.21
runs them. Also
writes TensorFlow's OpDefs of those ops (tests/golden/data/dataset3/
tf_op_defs.pbtxt), which tests/kernels/dataset3_test.cc compares byte for
byte with dfx's.

    $(tools/tf_env) tests/golden/gen_dataset3.py

Every case is multi-step (gen_lookup.py's steps_case): the files a case
reads are written into its folder and fed as "@CASE_DIR@/name", which
golden_test.cc resolves; an "init" step makes the iterator (the dataset's
own checks fail there), each "next" step pulls one element, and the last
pulls past the end (OutOfRange) or hits the error under test. Pipelines
are built as tf.compat.v1 graphs: through the tf.data API where it emits
the op (tf.data.FixedLengthRecordDataset gives FixedLengthRecordDatasetV2
inside a flat_map, CsvDataset gives CSVDatasetV2), through tf.raw_ops and
IteratorV2/MakeIterator/IteratorGetNext for the other names.

Left out: AssertNextDataset and AssertPrevDataset (TensorFlow checks them
against the pipeline after its own static rewrites, map parallelization,
injected prefetches and no-op elimination, which dfx does not perform, so
no assertion names the same transformation in both), AutoShardDataset
(a graph rewrite of the pipeline's file sources), IteratorGetDevice (its
answer is a device name, which differs between TensorFlow's session and a
dfx cluster), and the tf.data service and snapshot ops.
"""

import gzip
import os
import tempfile
import zlib

import numpy as np

import golden_lib
from golden_lib import tf, tf1
from gen_lookup import CASE_DIR, SCRATCH_DIR, steps_case

FAMILY = "dataset3"
raw = tf.raw_ops

OPS = ["FixedLengthRecordDataset", "FixedLengthRecordDatasetV2",
       "TFRecordDatasetV2", "CSVDataset", "CSVDatasetV2",
       "ExperimentalCSVDataset", "MatchingFilesDataset",
       "ExperimentalMatchingFilesDataset", "ThreadPoolHandle",
       "ExperimentalThreadPoolHandle", "ThreadPoolDataset",
       "ExperimentalThreadPoolDataset", "NonSerializableDataset",
       "ExperimentalNonSerializableDataset", "GroupByReducerDataset",
       "ExperimentalGroupByReducerDataset", "DatasetToTFRecord",
       "ExperimentalDatasetToTFRecord", "ParallelFilterDataset",
       "OptimizeDataset", "ChooseFastestDataset",
       "ExperimentalChooseFastestDataset", "WrapDatasetVariant",
       "UnwrapDatasetVariant", "ListDataset"]

def records(rs, compression=""):
    """The bytes of a TFRecord file of `rs`, as TensorFlow writes them."""
    with tempfile.TemporaryDirectory(prefix="dfx_gen_") as tmp:
        path = os.path.join(tmp, "records.tfrecord")
        with tf.io.TFRecordWriter(
                path, options=tf.io.TFRecordOptions(
                    compression_type=compression)) as w:
            for r in rs:
                w.write(r)
        with open(path, "rb") as f:
            return f.read()


def only(files, names):
    """The files of `files` that the case reads."""
    return {k: v for k, v in (files or {}).items() if k in names}


def files_ph():
    return tf1.placeholder(tf.string, shape=[None], name="files")


def api_case(folder, name, make, pulls, files, file_names, note=""):
    """make(filenames placeholder) -> tf.data.Dataset; an initializable
    iterator, then `pulls` steps of one element each."""
    def build():
        ph = files_ph()
        it = tf1.data.make_initializable_iterator(make(ph))
        out = {"files": ph, "init": it.initializer}
        for i, t in enumerate(tf.nest.flatten(it.get_next())):
            out[f"c{i}"] = t
        return out
    # The keys of the components: as many as the element has.
    g = tf.Graph()
    with g.as_default():
        spec = make(files_ph()).element_spec
    n = len(tf.nest.flatten(spec))
    keys = [f"c{i}" for i in range(n)]
    run = [(["init"], {"files": [CASE_DIR + "/" + f for f in file_names]})]
    run += [(keys, {})] * pulls
    steps_case(folder, name, build, run, files=only(files, file_names),
               note=note)


def plain_options(ds):
    """ds without TensorFlow's static optimizations and autotuning: with
    them, MakeIterator rewrites the pipeline through its serialized graph,
    which TensorFlow 2.21 cannot build for FixedLengthRecordDataset (v1)
    or TFRecordDatasetV2 (their AsGraphDef gives the wrong inputs)."""
    o = tf.data.Options()
    o.experimental_optimization.apply_default_optimizations = False
    o.experimental_optimization.inject_prefetch = False
    o.autotune.enabled = False
    return ds.with_options(o)


def raw_case(folder, name, make, types, shapes, pulls, files=None,
             file_names=(), note="", feed_scalar=False):
    """make(filenames placeholder) -> a dataset variant tensor (a raw op's),
    iterated through an initializable iterator."""
    def build():
        ph = tf1.placeholder(tf.string, shape=[] if feed_scalar else [None],
                             name="files")
        spec = tuple(tf.TensorSpec(s, t) for t, s in zip(types, shapes))
        ds = tf.data.experimental.from_variant(
            make(ph), spec[0] if len(spec) == 1 else spec)
        it = tf1.data.make_initializable_iterator(plain_options(ds))
        out = {"files": ph, "init": it.initializer}
        for i, t in enumerate(tf.nest.flatten(it.get_next())):
            out[f"c{i}"] = t
        return out
    keys = [f"c{i}" for i in range(len(types))]
    names = [CASE_DIR + "/" + f for f in file_names]
    feed = names[0] if feed_scalar else names
    run = [(["init"], {"files": feed})] + [(keys, {})] * pulls
    steps_case(folder, name, build, run, files=only(files, file_names),
               note=note)


# ---------------------------------------------------------------------------
# FixedLengthRecordDataset.

def fixed_length_cases(folder):
    body = bytes(range(12))
    plain = {"f.bin": b"HH" + body + b"F", "g.bin": b"HH" + b"xyz" + b"F"}
    api_case(folder, "fixed_length_header_footer",
             lambda f: tf.data.FixedLengthRecordDataset(
                 f, 3, header_bytes=2, footer_bytes=1), 5, plain, ["f.bin"])
    api_case(folder, "fixed_length_two_files",
             lambda f: tf.data.FixedLengthRecordDataset(
                 f, 3, header_bytes=2, footer_bytes=1, buffer_size=4), 6,
             plain, ["g.bin", "f.bin"])
    api_case(folder, "fixed_length_no_header",
             lambda f: tf.data.FixedLengthRecordDataset(f, 4), 4,
             {"r.bin": b"abcdefghijkl"}, ["r.bin"])
    api_case(folder, "fixed_length_empty_file",
             lambda f: tf.data.FixedLengthRecordDataset(f, 4), 2,
             {"e.bin": b"", "r.bin": b"wxyz"}, ["e.bin", "r.bin"])
    gz = {"f.bin.gz": gzip.compress(b"HH" + body + b"F", mtime=0),
          "f.bin.z": zlib.compress(b"HH" + body + b"F")}
    api_case(folder, "fixed_length_gzip",
             lambda f: tf.data.FixedLengthRecordDataset(
                 f, 3, header_bytes=2, footer_bytes=1,
                 compression_type="GZIP"), 5, gz, ["f.bin.gz"])
    api_case(folder, "fixed_length_zlib",
             lambda f: tf.data.FixedLengthRecordDataset(
                 f, 6, header_bytes=2, footer_bytes=1,
                 compression_type="ZLIB"), 3, gz, ["f.bin.z"])
    # A body that is not a whole number of records: uncompressed, refused
    # before the file's first record; compressed, DataLoss at the short one.
    api_case(folder, "fixed_length_bad_body",
             lambda f: tf.data.FixedLengthRecordDataset(
                 f, 5, header_bytes=2, footer_bytes=1), 1, plain, ["f.bin"],
             note="12-byte body, 5-byte records: InvalidArgument")
    api_case(folder, "fixed_length_gzip_short_record",
             lambda f: tf.data.FixedLengthRecordDataset(
                 f, 5, header_bytes=2, footer_bytes=1,
                 compression_type="GZIP"), 3, gz, ["f.bin.gz"],
             note="two records, then a 2-byte remainder: DataLoss")
    api_case(folder, "fixed_length_missing_file",
             lambda f: tf.data.FixedLengthRecordDataset(f, 3), 1, plain,
             ["no_such.bin"])
    api_case(folder, "fixed_length_missing_gzip_file",
             lambda f: tf.data.FixedLengthRecordDataset(
                 f, 3, compression_type="GZIP"), 1, plain, ["no_such.bin"])

    def v1(record_bytes=3, header=2, footer=1, buffer_size=0):
        return lambda f: raw.FixedLengthRecordDataset(
            filenames=f, header_bytes=tf.constant(header, tf.int64),
            record_bytes=tf.constant(record_bytes, tf.int64),
            footer_bytes=tf.constant(footer, tf.int64),
            buffer_size=tf.constant(buffer_size, tf.int64))
    raw_case(folder, "fixed_length_v1", v1(), [tf.string], [[]], 5, plain,
             ["f.bin"])
    raw_case(folder, "fixed_length_v1_scalar_filename", v1(), [tf.string],
             [[]], 2, plain, ["g.bin"], feed_scalar=True)
    for label, kw in [("zero_record_bytes", {"record_bytes": 0}),
                      ("negative_header", {"header": -1}),
                      ("negative_footer", {"footer": -2}),
                      ("negative_buffer_size", {"buffer_size": -1})]:
        raw_case(folder, "fixed_length_" + label, v1(**kw), [tf.string],
                 [[]], 0, plain, ["f.bin"])

    def v2(compression):
        return lambda f: raw.FixedLengthRecordDatasetV2(
            filenames=f, header_bytes=tf.constant(2, tf.int64),
            record_bytes=tf.constant(3, tf.int64),
            footer_bytes=tf.constant(1, tf.int64),
            buffer_size=tf.constant(0, tf.int64),
            compression_type=tf.constant(compression))
    raw_case(folder, "fixed_length_v2_bad_compression", v2("LZ4"),
             [tf.string], [[]], 0, plain, ["f.bin"])
    raw_case(folder, "fixed_length_v2_gzip", v2("GZIP"), [tf.string], [[]],
             5, gz, ["f.bin.gz"])


# ---------------------------------------------------------------------------
# TFRecordDatasetV2 and TFRecordDataset's buffer_size.

def tfrecord_cases(folder):
    a = [b"first", b"second record", b""]
    b = [b"b0", b"b1"]
    files = {"a.tfrecord": records(a), "b.tfrecord": records(b),
             "a.tfrecord.gz": records(a, "GZIP")}

    def v2(offsets, compression="", buffer_size=0):
        return lambda f: raw.TFRecordDatasetV2(
            filenames=f, compression_type=tf.constant(compression),
            buffer_size=tf.constant(buffer_size, tf.int64),
            byte_offsets=tf.constant(offsets, tf.int64))
    # Records take 16 bytes beside their data.
    skip_a0 = 16 + len(a[0])
    raw_case(folder, "tfrecord_v2_byte_offsets", v2([skip_a0, 0]),
             [tf.string], [[]], 5, files, ["a.tfrecord", "b.tfrecord"])
    raw_case(folder, "tfrecord_v2_no_offsets",
             v2(np.zeros([0], np.int64)), [tf.string], [[]], 6, files,
             ["a.tfrecord", "b.tfrecord"])
    raw_case(folder, "tfrecord_v2_scalar", v2(16 + len(b[0])), [tf.string],
             [[]], 2, files, ["b.tfrecord"], feed_scalar=True)
    raw_case(folder, "tfrecord_v2_gzip_offset", v2([skip_a0], "GZIP"),
             [tf.string], [[]], 3, files, ["a.tfrecord.gz"])
    raw_case(folder, "tfrecord_v2_offsets_rank_mismatch", v2(0),
             [tf.string], [[]], 0, files, ["a.tfrecord"])
    raw_case(folder, "tfrecord_v2_negative_buffer_size",
             v2([0], buffer_size=-1), [tf.string], [[]], 4, files,
             ["a.tfrecord"])
    raw_case(folder, "tfrecord_v2_missing_file", v2([0]), [tf.string], [[]],
             1, files, ["none.tfrecord"])
    raw_case(folder, "tfrecord_v1_negative_buffer_size",
             lambda f: raw.TFRecordDataset(
                 filenames=f, compression_type=tf.constant(""),
                 buffer_size=tf.constant(-1, tf.int64)),
             [tf.string], [[]], 0, files, ["a.tfrecord"])


# ---------------------------------------------------------------------------
# CSV.

def csv_cases(folder):
    text = ("id,score,name\n"
            "1,0.5,alpha\n"
            "2,,\"be,ta\"\n"
            "3,1.25,\"say \"\"hi\"\"\"\r\n"
            "4,2.5,\"two\nlines\"\n")
    files = {
        "t.csv": text,
        "t.csv.gz": gzip.compress(text.encode(), mtime=0),
        "plain.csv": "1,2,3\n4,5,6\n7,8,9",
        "na.csv": "1,NA,x\nNA,2,NA\n",
        "cols.csv": "1,2,3\n4,5\n6,7,8,9\n10,11,12\n",
        "bad.csv": "1,abc\n2,3\n9999999999,4\n5,1e3\n",
        "quotes.csv": "\"a\"x,1\n\"b\",2\nc\"d,3\n\"e\",4\n",
        "open.csv": "1,\"never closed\n2,x\n",
        "tabs.csv": "a\tb\"c\n\"d\"\te\n",
        "trailing.csv": "1,2,\n",
        "blank.csv": "1,2\n\n3,4\n",
        "empty.csv": "",
        "cr.csv": "1,2\r3,4\r",
        "wide.csv": "1,2.5,x,7\n",
    }
    def defaults3():
        return [tf.constant([0], tf.int32), tf.constant([-1.0]),
                tf.constant(["?"])]
    exp = tf.data.experimental

    def k(values, dtype=None):
        return (values, dtype)

    def csv(defaults, **kw):
        """defaults: a callable (tensors of the case's graph) or a list of
        (values, dtype)."""
        def make(f):
            d = defaults() if callable(defaults) else [
                tf.constant(v, t) for v, t in defaults]
            # (A default's dtype None: TensorFlow infers it.)
            return exp.CsvDataset(f, d, **kw)
        return make
    api_case(folder, "csv_header_quotes", csv(defaults3, header=True), 5,
             files, ["t.csv"])
    api_case(folder, "csv_gzip", csv(defaults3, header=True,
                                     compression_type="GZIP"),
             5, files, ["t.csv.gz"])
    api_case(folder, "csv_two_files", csv(
        [k([0], tf.int64)] * 3), 4, files,
             ["plain.csv", "trailing.csv"],
             note="a last record without a line break; a trailing "
                  "delimiter adds an empty field, which takes its default")
    api_case(folder, "csv_select_cols",
             csv([k([0], tf.int64), k([0.0], tf.float64)],
                 select_cols=[0, 2]), 4, files, ["plain.csv"])
    api_case(folder, "csv_exclude_cols",
             csv([k([0], tf.int32), k([0], tf.int32)],
                 exclude_cols=[1]), 4, files, ["plain.csv"])
    api_case(folder, "csv_na_value",
             csv([k([-1], tf.int32), k([-2.0]),
                  k(["none"])], na_value="NA"), 3, files,
             ["na.csv"])
    api_case(folder, "csv_required_missing",
             csv([k([-1], tf.int32), k([], tf.float32),
                  k(["none"])], na_value="NA"), 3, files,
             ["na.csv"], note="field 1 without a default: the second record "
                              "fails, the iterator goes on")
    api_case(folder, "csv_wrong_column_count",
             csv([k([0], tf.int64)] * 3), 5, files, ["cols.csv"],
             note="too few, then too many fields: InvalidArgument each, "
                  "then the next record")
    api_case(folder, "csv_unparsable",
             csv([k([0], tf.int32), k([0.0])]), 5, files,
             ["bad.csv"], note="not an int32, out of int32's range")
    api_case(folder, "csv_bad_quotes",
             csv([k(["-"]), k([0], tf.int32)]), 5, files,
             ["quotes.csv"])
    api_case(folder, "csv_unclosed_quote",
             csv([k(["-"]), k(["-"])]), 2, files,
             ["open.csv"])
    api_case(folder, "csv_tab_no_quote_delim",
             csv([k(["-"])] * 2, field_delim="\t",
                 use_quote_delim=False), 3, files, ["tabs.csv"])
    api_case(folder, "csv_blank_line",
             csv([k([0], tf.int32)] * 2), 4, files, ["blank.csv"],
             note="a blank line is a record of one empty field")
    api_case(folder, "csv_carriage_returns",
             csv([k([0], tf.int32)] * 2), 3, files, ["cr.csv"])
    api_case(folder, "csv_header_empty_file",
             csv([k([0], tf.int32)], header=True), 1, files,
             ["empty.csv"])
    api_case(folder, "csv_missing_file",
             csv([k([0], tf.int32)]), 1, files, ["none.csv"])
    api_case(folder, "csv_all_types",
             csv([k([0], tf.int64), k([0.0], tf.float64),
                  k([""]), k([0.0], tf.float32)]), 2,
             files, ["wide.csv"])

    def v1(op, delim=",", select=(), buffer_size=64, compression=""):
        def make(f):
            return getattr(raw, op)(
                filenames=f, compression_type=tf.constant(compression),
                buffer_size=tf.constant(buffer_size, tf.int64),
                header=tf.constant(False), field_delim=tf.constant(delim),
                use_quote_delim=tf.constant(True),
                na_value=tf.constant(""),
                select_cols=tf.constant(list(select), tf.int64),
                record_defaults=[tf.constant([0], tf.int32)] * 2,
                output_shapes=[[], []])
        return make
    i32 = [tf.int32, tf.int32]
    raw_case(folder, "csv_v1", v1("CSVDataset", select=[0, 2]), i32, [[]] * 2,
             4, files, ["plain.csv"])
    raw_case(folder, "csv_experimental", v1("ExperimentalCSVDataset"), i32,
             [[]] * 2, 3, files, ["blank.csv"])
    for label, kw in [("bad_delim", {"delim": ",,"}),
                      ("select_not_increasing", {"select": [2, 1]}),
                      ("select_negative", {"select": [-1, 1]}),
                      ("select_size", {"select": [0, 1, 2]}),
                      ("zero_buffer_size", {"buffer_size": 0}),
                      ("bad_compression", {"compression": "BZ2"})]:
        raw_case(folder, "csv_" + label, v1("CSVDataset", **kw), i32,
                 [[]] * 2, 0, files, ["plain.csv"])

    def v2(select, exclude):
        return lambda f: raw.CSVDatasetV2(
            filenames=f, compression_type=tf.constant(""),
            buffer_size=tf.constant(4, tf.int64), header=tf.constant(False),
            field_delim=tf.constant(","), use_quote_delim=tf.constant(True),
            na_value=tf.constant(""),
            select_cols=tf.constant(select, tf.int64),
            record_defaults=[tf.constant([0], tf.int32)] * 2,
            exclude_cols=tf.constant(exclude, tf.int64),
            output_shapes=[[], []])
    raw_case(folder, "csv_v2_select_and_exclude", v2([0, 1], [2]), i32,
             [[]] * 2, 0, files, ["plain.csv"])
    raw_case(folder, "csv_v2_exclude_not_increasing",
             v2(np.zeros([0], np.int64), [2, 0]), i32, [[]] * 2, 0, files,
             ["plain.csv"])
    raw_case(folder, "csv_v2_small_buffer",
             v2(np.zeros([0], np.int64), [0]), i32, [[]] * 2, 4, files,
             ["plain.csv"], note="a 4-byte read buffer: fields across reads")


# ---------------------------------------------------------------------------
# MatchingFilesDataset.

def matching_files_cases(folder):
    files = {"b.txt": "b", "a.txt": "a", "c.bin": "c", ".hidden.txt": "h"}

    def build_for(op, patterns):
        def build():
            ph = tf1.placeholder(tf.string, shape=[None], name="files")
            variant = getattr(raw, op)(patterns=ph)
            ds = tf.data.experimental.from_variant(
                variant, tf.TensorSpec([], tf.string))
            # The names without their directory, which differs between
            # TensorFlow's run and dfx's.
            ds = ds.map(lambda p: tf.strings.regex_replace(p, "^.*/", ""))
            it = tf1.data.make_initializable_iterator(ds)
            return {"files": ph, "init": it.initializer, "c0": it.get_next()}
        return build

    def case(name, op, patterns, pulls, note=""):
        run = [(["init"], {"files": [CASE_DIR + "/" + p for p in patterns]})]
        run += [(["c0"], {})] * pulls
        steps_case(folder, name, build_for(op, patterns), run, files=files,
                   note=note)
    case("matching_files", "MatchingFilesDataset", ["*.txt", "?.bin"], 5,
         note="sorted per pattern, patterns in turn; hidden files match")
    case("matching_files_experimental", "ExperimentalMatchingFilesDataset",
         ["[ab].txt"], 3)
    case("matching_files_none", "MatchingFilesDataset", ["*.csv"], 1,
         note="no match at all: NotFound at the end")
    case("matching_files_missing_dir", "MatchingFilesDataset",
         ["nodir/*.txt", "a.txt"], 2,
         note="NotFound for the missing directory, at every call")
    case("matching_files_no_wildcard", "MatchingFilesDataset",
         ["a.txt", "b.txt", "a.txt"], 4)


# ---------------------------------------------------------------------------
# Thread pools and pass-throughs.

def pass_through_cases(folder):
    def build_for(make):
        def build():
            ph = tf1.placeholder(tf.int64, shape=[], name="n")
            variant = make(tf.data.Dataset.range(ph)._variant_tensor)
            ds = tf.data.experimental.from_variant(
                variant, tf.TensorSpec([], tf.int64))
            it = tf1.data.make_initializable_iterator(plain_options(ds))
            return {"n": ph, "init": it.initializer, "c0": it.get_next()}
        return build

    def case(name, make, pulls):
        steps_case(folder, name, build_for(make),
                   [(["init"], {"n": 3})] + [(["c0"], {})] * pulls)

    def pool(op="ThreadPoolDataset", handle="ThreadPoolHandle", threads=2):
        def make(v):
            h = getattr(raw, handle)(num_threads=threads, display_name="pool")
            return getattr(raw, op)(input_dataset=v, thread_pool=h,
                                    output_types=[tf.int64],
                                    output_shapes=[[]])
        return make
    case("thread_pool", pool(), 4)
    case("thread_pool_experimental",
         pool("ExperimentalThreadPoolDataset", "ExperimentalThreadPoolHandle"),
         4)
    case("thread_pool_zero_threads", pool(threads=0), 4)
    case("thread_pool_negative_threads", pool(threads=-1), 0)
    for name, op in [("non_serializable", "NonSerializableDataset"),
                     ("non_serializable_experimental",
                      "ExperimentalNonSerializableDataset")]:
        case(name,
             lambda v, op=op: getattr(raw, op)(
                 input_dataset=v, output_types=[tf.int64],
                 output_shapes=[[]]), 4)

    case("optimize_dataset_v1",
         lambda v: raw.OptimizeDataset(
             input_dataset=v, optimizations=tf.constant(["noop_elimination"]),
             output_types=[tf.int64], output_shapes=[[]]), 4)
    for name, op in [("choose_fastest", "ChooseFastestDataset"),
                     ("choose_fastest_experimental",
                      "ExperimentalChooseFastestDataset")]:
        case(name,
             lambda v, op=op: getattr(raw, op)(
                 input_datasets=[v, v], num_experiments=2,
                 output_types=[tf.int64], output_shapes=[[]]), 4)
    case("wrap_unwrap_dataset_variant",
         lambda v: raw.UnwrapDatasetVariant(
             input_handle=raw.WrapDatasetVariant(input_handle=v)), 4)

    # tf.data.experimental.from_list (ListDataset).
    def build_list():
        ph = tf1.placeholder(tf.int64, shape=[], name="n")
        ds = tf.data.experimental.from_list(
            [(ph, "a", [1.5, 2.5]), (ph + 1, "", [-1.0, 0.0]),
             (ph * 2, "c", [3.0, 4.0])])
        it = tf1.data.make_initializable_iterator(ds)
        out = {"n": ph, "init": it.initializer}
        for i, t in enumerate(tf.nest.flatten(it.get_next())):
            out[f"c{i}"] = t
        return out
    steps_case(folder, "from_list", build_list,
               [(["init"], {"n": 5})] + [(["c0", "c1", "c2"], {})] * 4)

    # ParallelFilterDataset: no tf.data API emits it in a graph of its own
    # (TensorFlow's filter_parallelization rewrite does), so a filter's
    # FilterDataset node is turned into one, num_parallel_calls appended.
    def filter_case(name, calls, pulls):
        def build():
            g = tf.Graph()
            with g.as_default():
                ph = tf1.placeholder(tf.int64, shape=[], name="n")
                keep = tf.constant(3, tf.int64)  # a captured input
                ds = plain_options(tf.data.Dataset.range(ph).filter(
                    lambda x: tf.math.not_equal(x % keep, 0)))
                tf.constant(calls, tf.int64, name="calls")
                it = tf1.data.make_initializable_iterator(ds)
                nxt = it.get_next()
            gd = g.as_graph_def()
            for node in gd.node:
                if node.op == "FilterDataset":
                    node.op = "ParallelFilterDataset"
                    node.input.append("calls")
                    node.attr["deterministic"].s = b"default"
            tf1.import_graph_def(gd, name="")
            cur = tf1.get_default_graph()
            return {"n": cur.get_tensor_by_name("n:0"),
                    "init": cur.get_operation_by_name(it.initializer.name),
                    "c0": cur.get_tensor_by_name(nxt.name)}
        steps_case(folder, name, build,
                   [(["init"], {"n": 8})] + [(["c0"], {})] * pulls)
    filter_case("parallel_filter", 2, 6)
    filter_case("parallel_filter_autotune", -1, 6)
    # (TensorFlow 2.21 accepts num_parallel_calls 0 when the dataset is
    # made; what its iterator then does is not a case: it may never run.)


# ---------------------------------------------------------------------------
# GroupByReducerDataset (tf.data.experimental.group_by_reducer, which emits
# ExperimentalGroupByReducerDataset).

def group_by_reducer_cases(folder):
    exp = tf.data.experimental

    def case(name, make, pulls, n=10, note=""):
        def build():
            ph = tf1.placeholder(tf.int64, shape=[], name="n")
            it = tf1.data.make_initializable_iterator(make(ph))
            out = {"n": ph, "init": it.initializer}
            for i, t in enumerate(tf.nest.flatten(it.get_next())):
                out[f"c{i}"] = t
            return out
        g = tf.Graph()
        with g.as_default():
            spec = make(tf1.placeholder(tf.int64, [])).element_spec
        keys = [f"c{i}" for i in range(len(tf.nest.flatten(spec)))]
        steps_case(folder, name, build,
                   [(["init"], {"n": n})] + [(keys, {})] * pulls, note=note)

    def sums(n):
        r = exp.Reducer(lambda k: tf.constant(0, tf.int64),
                        lambda s, x: s + x, lambda s: s)
        return tf.data.Dataset.range(n).apply(
            exp.group_by_reducer(lambda x: x % 3, r))
    case("group_by_reducer_sum", sums, 4,
         note="keys 0, 1, 2: smallest first")
    case("group_by_reducer_empty", sums, 1, n=0)

    def mean_and_count(n):
        scale = tf.constant(0.5, tf.float64)  # a captured input
        r = exp.Reducer(
            lambda k: (tf.constant(0, tf.int64), tf.constant(0.0, tf.float64),
                       tf.strings.as_string(k)),
            lambda s, x: (s[0] + 1, s[1] + tf.cast(x[1], tf.float64) * scale,
                          s[2]),
            lambda count, total, name: (
                name, count, total / tf.cast(count, tf.float64)))
        ds = tf.data.Dataset.range(n).map(lambda x: (x, x * x))
        return ds.apply(exp.group_by_reducer(lambda a, b: (b % 4) - 1, r))
    case("group_by_reducer_tuple_state", mean_and_count, 4, n=7,
         note="keys -1, 0, 2 (x*x % 4 - 1); a captured scale")


# ---------------------------------------------------------------------------
# DatasetToTFRecord: written, then read back in the same session.

def to_tfrecord_cases(folder):
    # The file's path is fed ("path"): a fresh directory of each run
    # (@SCRATCH_DIR@), so runs of the case never share a file.
    def build_for(op, compression, dataset):
        def build():
            ds = dataset()
            path = tf1.placeholder(tf.string, shape=[], name="path")
            write = getattr(raw, op)(input_dataset=ds._variant_tensor,
                                     filename=path,
                                     compression_type=tf.constant(
                                         compression))
            back = tf.data.TFRecordDataset(path, compression_type=compression)
            it = tf1.data.make_initializable_iterator(back)
            return {"path": path, "write": write, "init": it.initializer,
                    "c0": it.get_next()}
        return build
    strings = lambda: tf.data.Dataset.from_tensor_slices(  # noqa: E731
        tf.constant(["one", "", "three"]))
    at = {"path": SCRATCH_DIR + "/out.tfrecord"}
    for name, op, compression in [
            ("to_tfrecord", "DatasetToTFRecord", ""),
            ("to_tfrecord_gzip", "ExperimentalDatasetToTFRecord", "GZIP"),
            ("to_tfrecord_zlib", "DatasetToTFRecord", "ZLIB")]:
        steps_case(folder, name, build_for(op, compression, strings),
                   [(["write"], at), (["init"], at)] + [(["c0"], {})] * 4)
    steps_case(folder, "to_tfrecord_rewrite",
               build_for("DatasetToTFRecord", "", strings),
               [(["write"], at), (["write"], at), (["init"], at)] +
               [(["c0"], {})] * 4,
               note="a second write replaces the file")
    steps_case(folder, "to_tfrecord_not_strings",
               build_for("DatasetToTFRecord", "",
                         lambda: tf.data.Dataset.range(2)),
               [(["write"], at)])
    steps_case(folder, "to_tfrecord_two_components",
               build_for("DatasetToTFRecord", "",
                         lambda: tf.data.Dataset.from_tensor_slices(
                             (["a"], ["b"]))),
               [(["write"], at)])
    steps_case(folder, "to_tfrecord_missing_dir",
               build_for("DatasetToTFRecord", "", strings),
               [(["write"], {"path": SCRATCH_DIR + "/no_such_dir/x.tfrecord"})])


def main():
    folder = golden_lib.family_folder(FAMILY)
    golden_lib.write_op_defs(FAMILY, OPS)
    fixed_length_cases(folder)
    tfrecord_cases(folder)
    csv_cases(folder)
    matching_files_cases(folder)
    pass_through_cases(folder)
    group_by_reducer_cases(folder)
    to_tfrecord_cases(folder)


if __name__ == "__main__":
    main()

"""Golden cases of the readers family: the TF1 readers (TFRecordReader,
TextLineReader, FixedLengthRecordReader, WholeFileReader, IdentityReader)
and the Reader* ops, fed by queues as tf.compat.v1.train input pipelines
feed them, and MatchingFiles and WriteFile, as TensorFlow 2.21 runs them.
Also writes TensorFlow's OpDefs of those ops (tests/golden/data/readers/
tf_op_defs.pbtxt), which tests/kernels/readers_test.cc compares byte for
byte with dfx's.

    $(tools/tf_env) tests/golden/gen_readers.py

Readers and queues keep state between steps, so every case is multi-step
(gen_lookup.py's steps_case): the files a case reads are written into its
folder and fed as "@CASE_DIR@/name", which golden_test.cc resolves. Keys
name their file, so cases fetch them with the directory cut off.

The reference (v1) readers other than WholeFileReader are deprecated at
GraphDef version 26, so TensorFlow 2.21 builds none in a new graph: their
cases use the V2 kernels, which are the same in dfx and TensorFlow.
"""

import gzip
import os
import tempfile

import numpy as np

import golden_lib
from golden_lib import tf, tf1
from gen_lookup import CASE_DIR, SCRATCH_DIR, steps_case

FAMILY = "readers"
raw = tf.raw_ops

OPS = ["TFRecordReaderV2", "TFRecordReader", "TextLineReaderV2",
       "TextLineReader", "FixedLengthRecordReaderV2",
       "FixedLengthRecordReader", "WholeFileReaderV2", "WholeFileReader",
       "IdentityReaderV2", "IdentityReader", "ReaderReadV2", "ReaderRead",
       "ReaderReadUpToV2", "ReaderReadUpTo", "ReaderNumRecordsProducedV2",
       "ReaderNumRecordsProduced", "ReaderNumWorkUnitsCompletedV2",
       "ReaderNumWorkUnitsCompleted", "ReaderResetV2", "ReaderReset",
       "ReaderSerializeStateV2", "ReaderSerializeState",
       "ReaderRestoreStateV2", "ReaderRestoreState", "MatchingFiles",
       "WriteFile"]

def tfrecords(records):
    """The bytes of a TFRecord file of `records`, as TensorFlow writes."""
    with tempfile.TemporaryDirectory(prefix="dfx_gen_") as tmp:
        path = os.path.join(tmp, "records.tfrecord")
        with tf.io.TFRecordWriter(path) as w:
            for r in records:
                w.write(r)
        with open(path, "rb") as f:
            return f.read()


def example(i, name):
    return tf.train.Example(features=tf.train.Features(feature={
        "id": tf.train.Feature(int64_list=tf.train.Int64List(value=[i])),
        "x": tf.train.Feature(float_list=tf.train.FloatList(
            value=[i * 0.5, -i])),
        "name": tf.train.Feature(bytes_list=tf.train.BytesList(
            value=[name.encode()])),
    })).SerializeToString()


def base(t):
    """Keys without the case's directory."""
    return tf.strings.regex_replace(t, "^.*/", "")


def s(v):
    return tf.constant(np.asarray(v, dtype=object), dtype=tf.string)


def files_queue(capacity=10):
    """A string queue of file names, fed by placeholder `fnames`."""
    q = tf1.FIFOQueue(capacity, [tf.string], shapes=[[]])
    fnames = tf1.placeholder(tf.string, shape=[None], name="fnames")
    return q, fnames, q.enqueue_many([fnames]), q.close()


FILES_AB = {"a.tfrecord": tfrecords([example(1, "one"), example(2, "two"),
                                     example(3, "three")]),
            "b.tfrecord": tfrecords([example(4, "four"), example(5, "")])}


def pipeline_cases(folder):
    # string_input_producer -> TFRecordReader -> parse_single_example ->
    # batch, with the queue runners' enqueue ops run as steps.
    def build():
        fnames = tf1.placeholder(tf.string, shape=[None], name="fnames")
        fq = tf1.train.string_input_producer(fnames, shuffle=False,
                                             capacity=8)
        reader = tf1.TFRecordReader()
        key, value = reader.read(fq)
        feats = tf1.parse_single_example(value, {
            "id": tf1.FixedLenFeature([], tf.int64),
            "x": tf1.FixedLenFeature([2], tf.float32),
            "name": tf1.FixedLenFeature([], tf.string, default_value="?")})
        batch = tf1.train.batch([feats["id"], feats["x"], feats["name"],
                                 key], batch_size=2, capacity=8)
        runners = tf1.get_collection(tf1.GraphKeys.QUEUE_RUNNERS)
        producer, batcher = runners
        return {"fnames": fnames,
                "produce": producer.enqueue_ops[0],
                "close_files": producer.close_op,
                "batch_step": batcher.enqueue_ops[0],
                "close_batch": batcher.close_op,
                "ids": batch[0], "xs": batch[1], "names": batch[2],
                "keys": base(batch[3]),
                "produced": reader.num_records_produced(),
                "units": reader.num_work_units_completed()}
    files = [CASE_DIR + "/a.tfrecord", CASE_DIR + "/b.tfrecord"]
    steps_case(folder, "pipeline_tfrecord_parse_batch", build,
               [(["produce"], {"fnames": files}),
                (["batch_step"], {}), (["batch_step"], {}),
                (["ids", "xs", "names", "keys"], {}),
                (["produced", "units"], {}),
                (["batch_step"], {}), (["batch_step"], {}),
                (["batch_step"], {}),
                (["ids", "xs", "names", "keys"], {}),
                (["produced", "units"], {}),
                (["close_files"], {}),
                (["batch_step"], {}), (["batch_step"], {}),
                (["produced", "units"], {}),
                (["close_batch"], {}),
                (["ids", "xs", "names", "keys"], {})],
               files=FILES_AB)


def read_steps_case(folder, name, make_reader, files, file_names, reads,
                    up_to=None, note="", value_names=False):
    """A reader fed `file_names` by a queue, read `reads` times (ReadUpTo
    of `up_to` when given), then the queue closed and read once more."""
    def build():
        q, fnames, enq, close = files_queue()
        reader = make_reader()
        if up_to is None:
            k, v = raw.ReaderReadV2(reader_handle=reader, queue_handle=q.queue_ref)
        else:
            k, v = raw.ReaderReadUpToV2(reader_handle=reader,
                                        queue_handle=q.queue_ref,
                                        num_records=tf.constant(up_to, tf.int64))
        return {"fnames": fnames, "enq": enq, "close": close,
                "key": base(k), "value": base(v) if value_names else v,
                "produced": raw.ReaderNumRecordsProducedV2(reader_handle=reader),
                "units": raw.ReaderNumWorkUnitsCompletedV2(reader_handle=reader)}
    steps = [(["enq"], {"fnames": [CASE_DIR + "/" + f for f in file_names]})]
    for _ in range(reads):
        steps.append((["key", "value"], {}))
    steps.append((["produced", "units"], {}))
    steps.append((["close"], {}))
    steps.append((["key", "value"], {}))
    steps.append((["key", "value"], {}))
    steps.append((["produced", "units"], {}))
    steps_case(folder, name, build, steps, files=files, note=note)


def tfrecord_cases(folder):
    read_steps_case(folder, "tfrecord_read", lambda: raw.TFRecordReaderV2(),
                    FILES_AB, ["a.tfrecord", "b.tfrecord"], 4)
    read_steps_case(folder, "tfrecord_read_up_to",
                    lambda: raw.TFRecordReaderV2(), FILES_AB,
                    ["a.tfrecord", "b.tfrecord", "a.tfrecord"], 3, up_to=2)
    read_steps_case(folder, "tfrecord_read_up_to_large",
                    lambda: raw.TFRecordReaderV2(), FILES_AB,
                    ["a.tfrecord", "b.tfrecord"], 2, up_to=10)
    read_steps_case(folder, "tfrecord_read_up_to_zero",
                    lambda: raw.TFRecordReaderV2(), FILES_AB,
                    ["a.tfrecord"], 2, up_to=0)
    recs = [b"alpha", b"", b"gamma" * 50]
    plain = tfrecords(recs)
    files = {"g.tfrecord.gz": gzip.compress(plain),
             "z.tfrecord.z": __import__("zlib").compress(plain),
             "empty.tfrecord": b"",
             "plain.tfrecord": plain}
    read_steps_case(folder, "tfrecord_gzip",
                    lambda: raw.TFRecordReaderV2(compression_type="GZIP"),
                    files, ["g.tfrecord.gz"], 3)
    read_steps_case(folder, "tfrecord_zlib",
                    lambda: raw.TFRecordReaderV2(compression_type="ZLIB"),
                    files, ["z.tfrecord.z"], 3)
    read_steps_case(folder, "tfrecord_empty_file_skipped",
                    lambda: raw.TFRecordReaderV2(),
                    files, ["empty.tfrecord", "plain.tfrecord"], 2)
    bad = bytearray(plain)
    bad[14] ^= 0x20
    read_steps_case(folder, "tfrecord_corrupted",
                    lambda: raw.TFRecordReaderV2(),
                    {"bad.tfrecord": bytes(bad)}, ["bad.tfrecord"], 1)
    read_steps_case(folder, "tfrecord_truncated",
                    lambda: raw.TFRecordReaderV2(),
                    {"cut.tfrecord": plain[:20]}, ["cut.tfrecord"], 1)
    read_steps_case(folder, "tfrecord_missing_file",
                    lambda: raw.TFRecordReaderV2(), FILES_AB,
                    ["missing.tfrecord", "a.tfrecord"], 2)


TEXT = {"h.txt": "name,value\nx,1\r\ny,2\n\nlast line no newline",
        "short.txt": "only header\n",
        "empty.txt": "",
        "two.txt": "h1\nh2\nbody\n"}


def text_cases(folder):
    read_steps_case(folder, "text_line_read", lambda: raw.TextLineReaderV2(),
                    TEXT, ["h.txt", "empty.txt", "two.txt"], 8)
    read_steps_case(folder, "text_line_skip_header",
                    lambda: raw.TextLineReaderV2(skip_header_lines=1),
                    TEXT, ["h.txt", "short.txt", "two.txt"], 5)
    read_steps_case(folder, "text_line_skip_two_up_to",
                    lambda: raw.TextLineReaderV2(skip_header_lines=2),
                    TEXT, ["two.txt", "h.txt"], 2, up_to=3)


def fixed_cases(folder):
    data = bytes(range(2 + 3 * 4 + 1))
    files = {"f.bin": data, "partial.bin": bytes(range(2 + 3 * 2 + 2 + 1)),
             "f.bin.gz": gzip.compress(data), "tiny.bin": b"\x01"}
    read_steps_case(folder, "fixed_length_header_footer",
                    lambda: raw.FixedLengthRecordReaderV2(
                        header_bytes=2, record_bytes=3, footer_bytes=1),
                    files, ["f.bin", "tiny.bin"], 4)
    # A trailing partial record, hop_bytes and encoding="GZIP": TensorFlow
    # 2.21's reader blocks on those files (the generator's steps hit their
    # deadline), so they have no golden cases.


def whole_file_cases(folder):
    files = {"one.txt": "first file", "two.bin": bytes(range(256)),
             "empty": b""}
    read_steps_case(folder, "whole_file_read", lambda: raw.WholeFileReaderV2(),
                    files, ["one.txt", "two.bin", "empty"], 3)
    read_steps_case(folder, "whole_file_missing",
                    lambda: raw.WholeFileReaderV2(), files,
                    ["nope.txt", "one.txt"], 2)
    read_steps_case(folder, "identity_read", lambda: raw.IdentityReaderV2(),
                    {}, ["w1", "", "work/three"], 3, up_to=5,
                    value_names=True)


def state_cases(folder):
    """Serialize, restore and reset, with TensorFlow's state bytes."""
    def build():
        q, fnames, enq, close = files_queue()
        reader = raw.IdentityReaderV2()
        k, v = raw.ReaderReadV2(reader_handle=reader, queue_handle=q.queue_ref)
        state = tf1.placeholder(tf.string, shape=None, name="state")
        return {"fnames": fnames, "enq": enq, "read": k, "value": v,
                "state": state,
                "save": raw.ReaderSerializeStateV2(reader_handle=reader),
                "restore": raw.ReaderRestoreStateV2(reader_handle=reader,
                                                    state=state),
                "reset": raw.ReaderResetV2(reader_handle=reader),
                "produced": raw.ReaderNumRecordsProducedV2(reader_handle=reader),
                "units": raw.ReaderNumWorkUnitsCompletedV2(reader_handle=reader)}
    # ReaderBaseState: work_started 3, work_finished 3, produced 7, "w".
    good = b"\x08\x03\x10\x03\x18\x07\x22\x01w"
    steps_case(folder, "identity_serialize_restore", build,
               [(["save"], {}),
                (["enq"], {"fnames": ["a", "bb"]}),
                (["read", "value"], {}),
                (["save", "produced", "units"], {}),
                (["restore"], {"state": good}),
                (["save", "produced", "units"], {}),
                (["read", "value"], {}),
                (["save"], {}),
                (["restore"], {"state": b"\x08\x05\x10\x02"}),
                (["produced", "units"], {}),
                (["restore"], {"state": b"\xff\xff"}),
                (["restore"], {"state": b"\x08\x7f\x10\x7f"}),
                (["restore"], {"state": np.array([good])}),
                (["produced", "units", "save"], {}),
                (["restore"], {"state": good}),
                (["reset"], {}),
                (["produced", "units", "save"], {})])

    def build_unimplemented():
        reader = raw.TFRecordReaderV2()
        text = raw.TextLineReaderV2()
        return {"save": raw.ReaderSerializeStateV2(reader_handle=reader),
                "restore": raw.ReaderRestoreStateV2(reader_handle=reader,
                                                    state=""),
                "save_text": raw.ReaderSerializeStateV2(reader_handle=text),
                "reset": raw.ReaderResetV2(reader_handle=reader),
                "produced": raw.ReaderNumRecordsProducedV2(reader_handle=reader)}
    steps_case(folder, "serialize_unimplemented", build_unimplemented,
               [(["save"], {}), (["restore"], {}), (["save_text"], {}),
                (["reset"], {}), (["produced"], {})])

    def build_whole_file_state():
        q, fnames, enq, close = files_queue()
        reader = raw.WholeFileReaderV2()
        k, v = raw.ReaderReadV2(reader_handle=reader, queue_handle=q.queue_ref)
        # The state's counters: its current_work is the case's path.
        save = raw.ReaderSerializeStateV2(reader_handle=reader)
        return {"fnames": fnames, "enq": enq, "key": base(k), "value": v,
                "save": tf.strings.substr(save, 0, 6)}
    steps_case(folder, "whole_file_serialize", build_whole_file_state,
               [(["enq"], {"fnames": [CASE_DIR + "/x.txt"]}),
                (["key", "value"], {}),
                (["save"], {})],
               files={"x.txt": "x"})


def queue_error_cases(folder):
    def build(types, shapes, value):
        def b():
            q = tf1.FIFOQueue(5, types, shapes=shapes)
            enq = q.enqueue(value())
            reader = raw.IdentityReaderV2()
            k, v = raw.ReaderReadV2(reader_handle=reader,
                                    queue_handle=q.queue_ref)
            return {"enq": enq, "key": k}
        return b
    steps_case(folder, "queue_of_ints", build([tf.int32], [[]],
                                              lambda: [tf.constant(3)]),
               [(["enq"], {}), (["key"], {})])
    steps_case(folder, "queue_of_two_components",
               build([tf.string, tf.string], [[], []],
                     lambda: [s("a"), s("b")]),
               [(["enq"], {}), (["key"], {})])
    steps_case(folder, "queue_of_string_vectors",
               build([tf.string], [[2]], lambda: [s(["a", "b"])]),
               [(["enq"], {}), (["key"], {})])

    def b_closed():
        q = tf1.FIFOQueue(5, [tf.string], shapes=[[]])
        reader = raw.TFRecordReaderV2()
        k, v = raw.ReaderReadUpToV2(reader_handle=reader,
                                    queue_handle=q.queue_ref,
                                    num_records=tf.constant(2, tf.int64))
        k1, v1 = raw.ReaderReadV2(reader_handle=reader,
                                  queue_handle=q.queue_ref)
        return {"close": q.close(), "keys": k, "key": k1}
    steps_case(folder, "closed_empty_queue", b_closed,
               [(["close"], {}), (["keys"], {}), (["key"], {})])


def v1_cases(folder):
    """The reference forms TensorFlow 2.21 still builds: WholeFileReader
    and the Reader* ops on reference handles."""
    def build():
        qref = raw.FIFOQueue(component_types=[tf.string], shapes=[[]],
                             capacity=5)
        fnames = tf1.placeholder(tf.string, shape=[None], name="fnames")
        enq = raw.QueueEnqueueMany(handle=qref, components=[fnames])
        reader = raw.WholeFileReader()
        k, v = raw.ReaderRead(reader_handle=reader, queue_handle=qref)
        ks, vs = raw.ReaderReadUpTo(reader_handle=reader, queue_handle=qref,
                                    num_records=tf.constant(2, tf.int64))
        state = tf.strings.substr(
            raw.ReaderSerializeState(reader_handle=reader), 0, 6)
        return {"fnames": fnames, "enq": enq, "key": base(k), "value": v,
                "keys": base(ks), "values": vs, "save": state,
                "produced": raw.ReaderNumRecordsProduced(reader_handle=reader),
                "units": raw.ReaderNumWorkUnitsCompleted(reader_handle=reader),
                "reset": raw.ReaderReset(reader_handle=reader),
                "restore": raw.ReaderRestoreState(
                    reader_handle=reader, state=b"\x08\x01\x10\x01")}
    steps_case(folder, "v1_whole_file_reader", build,
               [(["enq"], {"fnames": [CASE_DIR + "/p.txt", CASE_DIR + "/q.txt",
                                      CASE_DIR + "/p.txt"]}),
                (["key", "value"], {}),
                (["keys", "values"], {}),
                (["produced", "units", "save"], {}),
                (["reset"], {}),
                (["produced", "units"], {}),
                (["restore"], {}),
                (["produced", "units"], {})],
               files={"p.txt": "pp", "q.txt": "qqq"})


def file_op_cases(folder):
    def build():
        pattern = tf1.placeholder(tf.string, shape=None, name="pattern")
        return {"pattern": pattern,
                "found": base(raw.MatchingFiles(pattern=pattern))}
    steps_case(folder, "matching_files", build,
               [(["found"], {"pattern": CASE_DIR + "/*.txt"}),
                (["found"], {"pattern": CASE_DIR + "/d?ta_[0-9].bin"}),
                (["found"], {"pattern": [CASE_DIR + "/*.bin",
                                         CASE_DIR + "/b.txt"]}),
                (["found"], {"pattern": CASE_DIR + "/none*"}),
                (["found"], {"pattern": CASE_DIR + "/no_dir/*"}),
                (["found"], {"pattern": np.array([[CASE_DIR]])})],
               files={"b.txt": "b", "a.txt": "a", "data_1.bin": "1",
                      "data_2.bin": "2", "dxta_3.bin": "3",
                      "data_x.bin": "x"})

    def build_write():
        name = tf1.placeholder(tf.string, shape=None, name="name")
        contents = tf1.placeholder(tf.string, shape=None, name="contents")
        write = raw.WriteFile(filename=name, contents=contents)
        return {"name": name, "contents": contents, "write": write,
                "read": raw.ReadFile(filename=name)}
    path = SCRATCH_DIR + "/a/b/c.txt"
    steps_case(folder, "write_file", build_write,
               [(["write"], {"name": path, "contents": "hello\x00world"}),
                (["read"], {"name": path}),
                (["write"], {"name": path, "contents": ""}),
                (["read"], {"name": path}),
                (["write"], {"name": [path], "contents": "x"}),
                (["write"], {"name": path, "contents": ["x"]})])


def _session_config_with_timeout():
    config = _plain_session_config()
    config.operation_timeout_in_ms = 10000  # a wait is a bug here
    return config


_plain_session_config = golden_lib._session_config
golden_lib._session_config = _session_config_with_timeout


def main():
    folder = golden_lib.family_folder(FAMILY)
    golden_lib.write_op_defs(FAMILY, OPS)
    pipeline_cases(folder)
    tfrecord_cases(folder)
    text_cases(folder)
    fixed_cases(folder)
    whole_file_cases(folder)
    state_cases(folder)
    queue_error_cases(folder)
    v1_cases(folder)
    file_op_cases(folder)


if __name__ == "__main__":
    main()

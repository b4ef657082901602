"""Golden cases of the summary family: the TF1 summary ops (ScalarSummary,
HistogramSummary, ImageSummary, AudioSummary(V2), TensorSummary(V2),
MergeSummary), whose serialized Summary protos dfx must write byte for
byte as TensorFlow 2.21 does (the outputs are string tensors compared
exactly); the TF2 summary-writer ops as multi-step cases (which steps
succeed and which fail with what code; the event files' contents are
checked by tests/interop/tf_summary_events.py and
tests/kernels/summary_test.cc); Print and Timestamp. Also writes
TensorFlow's OpDefs of these ops for tests/kernels/summary_test.cc.

    $(tools/tf_env) tests/golden/gen_summary.py

The writer cases write their event files into a fresh directory of each
run ("@SCRATCH_DIR@", fed as the log directory).
"""

import os

import numpy as np

import golden_lib
from golden_lib import tf, tf1
from gen_lookup import SCRATCH_DIR, steps_case
from tensorflow.core.framework import summary_pb2

FAMILY = "summary"
raw = tf.raw_ops

OPS = ["ScalarSummary", "HistogramSummary", "ImageSummary", "AudioSummary",
       "AudioSummaryV2", "TensorSummary", "TensorSummaryV2", "MergeSummary",
       "SummaryWriter", "CreateSummaryFileWriter", "WriteSummary",
       "WriteScalarSummary", "WriteHistogramSummary", "WriteImageSummary",
       "WriteAudioSummary", "WriteRawProtoSummary", "WriteGraphSummary",
       "FlushSummaryWriter", "CloseSummaryWriter", "ImportEvent", "Print",
       "Timestamp"]

DTYPES = [tf.float32, tf.float64, tf.float16, tf.bfloat16, tf.int8, tf.int16,
          tf.int32, tf.int64, tf.uint8, tf.uint16, tf.uint32, tf.uint64]


def case(name, build, **kw):
    golden_lib.case(FAMILY, name, build, **kw)


def const(v, dtype=None):
    return tf.constant(np.asarray(v), dtype=dtype)


def s(v):
    return tf.constant(v, tf.string)


def rng(seed):
    return golden_lib.rng(seed)


def scalar_cases():
    case("scalar_vector_float",
         lambda: (raw.ScalarSummary(tags=s(["a", "b/c", "d"]),
                                    values=const([1.5, -2.0, 3e10],
                                                 tf.float32)), None))
    case("scalar_scalar_double",
         lambda: (raw.ScalarSummary(tags=s("loss"),
                                    values=const(0.1, tf.float64)), None))
    case("scalar_matrix",
         lambda: (raw.ScalarSummary(tags=s([["a", "b"], ["c", "d"]]),
                                    values=const([[1, 2], [3, 4]], tf.int32)),
                  None))
    case("scalar_empty",
         lambda: (raw.ScalarSummary(tags=tf.zeros([0], tf.string),
                                    values=tf.zeros([0])), None))
    for dt in DTYPES:
        def build(dt=dt):
            v = np.array([1.25, 100.0, 7.0])
            return raw.ScalarSummary(tags=s(["x", "y", "z"]),
                                     values=tf.constant(v.astype(
                                         dt.as_numpy_dtype))), None
        case(f"scalar_{dt.name}", build)

    def fed():
        tags, tv = golden_lib.placeholder(np.array([b"p", b"q"], object))
        vals, vv = golden_lib.placeholder(np.array([0.5, np.inf], np.float32))
        return raw.ScalarSummary(tags=tags, values=vals), {tags: tv, vals: vv}
    case("scalar_fed_inf", fed)
    case("scalar_shape_mismatch",
         lambda: (raw.ScalarSummary(tags=s(["a", "b"]),
                                    values=const([1.0, 2.0, 3.0])), None))
    case("scalar_one_tag_mismatch",
         lambda: (raw.ScalarSummary(tags=s(["only"]),
                                    values=const([1.0, 2.0])), None),
         note="the message names the single tag")


def histogram_cases():
    def hist(name, values, dtype=None, tag="h"):
        case(name, lambda: (raw.HistogramSummary(
            tag=s(tag), values=const(values, dtype)), None))
    hist("histogram_normal", rng(1).normal(0, 2, 60), tf.float32)
    hist("histogram_default_dtype", rng(2).uniform(-1, 1, [4, 5]), tf.float32)
    hist("histogram_empty", np.zeros([0]), tf.float32)
    hist("histogram_zeros", np.zeros([7]), tf.float64)
    hist("histogram_tiny_and_huge",
         [1e-15, -1e-15, 1e-12, 1e25, -1e25, 1e20, 3.0, 3.0], tf.float64)
    hist("histogram_double_precise", rng(3).normal(5, 100, 40), tf.float64)
    for dt in DTYPES:
        if dt in (tf.float32, tf.float64):
            continue
        v = rng(4).integers(0, 100, 20).astype(np.float64)
        hist(f"histogram_{dt.name}", v.astype(dt.as_numpy_dtype), dt)
    hist("histogram_nan", [1.0, np.nan, 2.0], tf.float32)
    hist("histogram_inf", [1.0, -np.inf], tf.float64)
    hist("histogram_half_inf", [1.0, 70000.0], tf.float16)

    def fed():
        x, xv = golden_lib.placeholder(rng(5).normal(0, 1, [3, 4])
                                       .astype(np.float32))
        return raw.HistogramSummary(tag=s("fed"), values=x), {x: xv}
    case("histogram_fed", fed)
    case("histogram_tag_not_scalar",
         lambda: (raw.HistogramSummary(tag=s(["a"]), values=const([1.0])),
                  None))


def gradient_image(shape, dtype, seed, low=0.0, high=1.0):
    v = rng(seed).uniform(low, high, shape)
    return v.astype(dtype)


def image_cases():
    def img(name, value, dtype=None, max_images=3, bad_color=None,
            tag="img", note=""):
        def build():
            kw = {}
            if bad_color is not None:
                kw["bad_color"] = tf.make_tensor_proto(
                    np.asarray(bad_color, np.uint8))
            return raw.ImageSummary(tag=s(tag), tensor=const(value, dtype),
                                    max_images=max_images, **kw), None
        case(name, build, note=note)
    u8 = rng(10).integers(0, 256, [2, 3, 4, 3]).astype(np.uint8)
    img("image_uint8_rgb", u8, tf.uint8)
    img("image_uint8_max1", rng(11).integers(0, 256, [3, 2, 2, 1])
        .astype(np.uint8), tf.uint8, max_images=1,
        note="one image of three; the tag ends /image")
    img("image_uint8_rgba", rng(12).integers(0, 256, [1, 3, 3, 4])
        .astype(np.uint8), tf.uint8)
    img("image_float_positive", gradient_image([2, 4, 5, 3], np.float32, 13,
                                               0.0, 2.0), tf.float32)
    img("image_float_signed", gradient_image([2, 3, 3, 1], np.float32, 14,
                                             -3.0, 1.0), tf.float32)
    bad = gradient_image([1, 3, 4, 3], np.float32, 15)
    bad[0, 0, 0, 1] = np.nan
    bad[0, 1, 2, 0] = np.inf
    bad[0, 2, 3, 2] = -np.inf
    img("image_float_nonfinite", bad, tf.float32,
        note="non-finite pixels painted red")
    img("image_float_bad_color", bad, tf.float32, bad_color=[0, 200, 50, 7],
        note="a bad_color attr")
    img("image_float_zeros", np.zeros([1, 2, 2, 3], np.float32), tf.float32,
        note="max below 1e-6: scale 0")
    img("image_half", gradient_image([2, 3, 2, 3], np.float16, 16, -1.0,
                                     4.0), tf.float16)
    dbl = gradient_image([1, 4, 4, 4], np.float64, 17, 0.0, 10.0)
    dbl[0, 3, 3, 3] = np.nan
    img("image_double", dbl, tf.float64)
    img("image_empty_batch", np.zeros([0, 2, 2, 3], np.float32), tf.float32)
    img("image_zero_height", np.zeros([1, 0, 3, 3], np.uint8), tf.uint8)
    img("image_one_element_tag", u8, tf.uint8, tag=["v"],
        note="TensorFlow 2.21 allows no legacy [1] scalars")
    img("image_rank3", np.zeros([2, 2, 3], np.uint8), tf.uint8)
    img("image_depth2", np.zeros([1, 2, 2, 2], np.float32), tf.float32)
    img("image_bad_color_short", bad, tf.float32, bad_color=[1, 2])
    img("image_tag_vector", u8, tf.uint8, tag=["a", "b"])


def audio_cases():
    # AudioSummary (the rate an attr) is not in TensorFlow 2.21's GraphDef
    # versions: graphs cannot hold it, and only its OpDef is checked.
    def audio(name, value, rate=8000.0, max_outputs=3, tag="snd", note=""):
        def build():
            t = const(value, tf.float32)
            return raw.AudioSummaryV2(tag=s(tag), tensor=t,
                                      sample_rate=const(rate, tf.float32),
                                      max_outputs=max_outputs), None
        case(name, build, note=note)
    audio("audio_2d", rng(20).uniform(-1, 1, [2, 10]))
    audio("audio_3d_max2", rng(21).uniform(-1, 1, [3, 6, 2]), max_outputs=2)
    audio("audio_max1_fractional_rate", rng(22).uniform(-1, 1, [2, 5]),
          rate=44100.5, max_outputs=1, note="the WAV's rate rounds to 44100")
    audio("audio_clipping", [[-2.0, -1.0, -0.5, 0.0, 0.99999, 1.0, 3.0]])
    audio("audio_small_rate", [[0.1, 0.2]], rate=0.3,
          note="the WAV's rate rounds to 0, written as 1")
    audio("audio_empty_frames", np.zeros([1, 0]))
    audio("audio_rate_zero", [[0.1]], rate=0.0)
    audio("audio_rate_negative", [[0.1]], rate=-5.0)
    audio("audio_rank1", [0.1, 0.2])
    audio("audio_tag_vector", [[0.1]], tag=["a", "b"])


def metadata(plugin, content=b"", display="", data_class=0):
    m = summary_pb2.SummaryMetadata()
    m.plugin_data.plugin_name = plugin
    m.plugin_data.content = content
    m.display_name = display
    m.data_class = data_class
    return m.SerializeToString()


def tensor_cases():
    case("tensor_v1_float",
         lambda: (raw.TensorSummary(tensor=const([[1.5, 2.0]], tf.float32),
                                    description="ignored", labels=["l"],
                                    display_name="d"), None),
         note="node_name is the node's name; the attrs are not written")
    case("tensor_v1_string",
         lambda: (raw.TensorSummary(tensor=s([["a", "bc"], ["", "d\x00e"]])),
                  None))
    case("tensor_v2_metadata",
         lambda: (raw.TensorSummaryV2(
             tag=s("acc"), tensor=const(0.75, tf.float32),
             serialized_summary_metadata=s(metadata("scalars", b"\x01\x02",
                                                    "Accuracy", 1))), None))
    case("tensor_v2_empty_metadata",
         lambda: (raw.TensorSummaryV2(
             tag=s("t"), tensor=const([1, 2, 3], tf.int64),
             serialized_summary_metadata=s("")), None),
         note="an empty metadata message is still written")
    for dt in [tf.bool, tf.float16, tf.bfloat16, tf.int8, tf.uint32,
               tf.complex64, tf.complex128, tf.float64]:
        def build(dt=dt):
            v = np.array([[1, 0], [2, 3]])
            if dt.is_complex:
                v = v + 1j * v[::-1]
            return raw.TensorSummaryV2(
                tag=s("t"), tensor=tf.constant(v.astype(dt.as_numpy_dtype)),
                serialized_summary_metadata=s(metadata("tensors"))), None
        case(f"tensor_v2_{dt.name}", build)
    case("tensor_v2_string",
         lambda: (raw.TensorSummaryV2(
             tag=s("text"), tensor=s(["hello", "world"]),
             serialized_summary_metadata=s(metadata("text"))), None))
    case("tensor_v2_tag_not_scalar",
         lambda: (raw.TensorSummaryV2(
             tag=s(["a"]), tensor=const(1.0),
             serialized_summary_metadata=s("")), None))
    case("tensor_v2_metadata_not_scalar",
         lambda: (raw.TensorSummaryV2(
             tag=s("a"), tensor=const(1.0),
             serialized_summary_metadata=s(["", ""])), None))


def merge_cases():
    def parts():
        a = raw.ScalarSummary(tags=s(["loss", "acc"]),
                              values=const([0.5, 0.9], tf.float32))
        b = raw.HistogramSummary(tag=s("w"), values=const([1.0, 2.0, 2.5]))
        c = raw.ImageSummary(tag=s("im"), tensor=const(
            np.arange(12).reshape([1, 2, 2, 3]).astype(np.uint8)))
        return a, b, c
    case("merge_three", lambda: (raw.MergeSummary(inputs=list(parts())), None))
    case("merge_vector_input",
         lambda: (raw.MergeSummary(inputs=[tf.stack(list(parts()[:2])),
                                           parts()[2]]), None))
    case("merge_tf1_merge_all",
         lambda: (tf1.summary.merge([
             tf1.summary.scalar("lr", const(0.01)),
             tf1.summary.histogram("act", const(rng(30).normal(0, 1, 30),
                                                tf.float32)),
             tf1.summary.image("pic", const(gradient_image(
                 [2, 2, 3, 3], np.float32, 31)), max_outputs=2),
             tf1.summary.audio("wave", const(rng(32).uniform(-1, 1, [1, 8]),
                                             tf.float32), 16000),
             tf1.summary.text("note", s("hello")),
             tf1.summary.tensor_summary("raw", const([1, 2], tf.int32))]),
                  None),
         note="the tf.compat.v1.summary helpers, merged")
    case("merge_tensor_summaries_no_tag",
         lambda: (raw.MergeSummary(inputs=[
             raw.TensorSummary(tensor=const(1.0)),
             raw.TensorSummary(tensor=const(2.0))]), None),
         note="values without tags are never duplicates")
    case("merge_duplicate_tag",
         lambda: (raw.MergeSummary(inputs=[
             raw.ScalarSummary(tags=s("x"), values=const(1.0)),
             raw.ScalarSummary(tags=s("x"), values=const(2.0))]), None))
    case("merge_unparsable",
         lambda: (raw.MergeSummary(inputs=[s("notaproto")]), None))
    case("merge_empty_vector",
         lambda: (raw.MergeSummary(inputs=[tf.zeros([0], tf.string)]), None))


def print_cases():
    def passthrough():
        x, xv = golden_lib.placeholder(np.array([1.5, 2.0], np.float32))
        out = raw.Print(input=x, data=[const(3), const([[1, 2], [3, 4]]),
                                       s(["a", "b"])],
                        message="values: ", summarize=2, first_n=-1)
        return tf.identity(out) * 2.0, {x: xv}
    case("print_passes_input_through", passthrough)
    case("print_string_input_first_n",
         lambda: (raw.Print(input=s(["keep", "me"]), data=[const(1.0)],
                            first_n=1), None))
    case("print_no_data",
         lambda: (raw.Print(input=const([[7]], tf.int64), data=[]), None))
    case("timestamp_is_now",
         lambda: (tf.logical_and(
             raw.Timestamp() > 1.7e9, raw.Timestamp() < 1e10), None),
         note="seconds since the epoch")


def writer_cases(folder):
    # The log directory is fed ("logdir") at each create step.
    def writer_graph(name):
        logdir = tf1.placeholder(tf.string, shape=[], name="logdir")
        w = raw.SummaryWriter(shared_name=name)
        create = raw.CreateSummaryFileWriter(
            writer=w, logdir=logdir, max_queue=const(10, tf.int32),
            flush_millis=const(100000, tf.int32), filename_suffix=s(".v2"))
        return w, create, logdir

    def run(steps):
        at = {"logdir": SCRATCH_DIR + "/logs"}
        return [(keys, at if "create" in keys else {}) for keys in steps]

    def step(v):
        return const(v, tf.int64)

    def all_ops():
        w, create, logdir = writer_graph("all_ops")
        graph_def = tf.Graph().as_graph_def()
        event = tf1.Event(step=9, summary=summary_pb2.Summary(
            value=[summary_pb2.Summary.Value(tag="imported",
                                             simple_value=2.0)]))
        return {
            "logdir": logdir,
            "create": create,
            "tensor": raw.WriteSummary(
                writer=w, step=step(1), tensor=const([1.0, 2.0]), tag=s("t"),
                summary_metadata=s(metadata("tensors"))),
            "scalar": raw.WriteScalarSummary(writer=w, step=step(2),
                                             tag=s("loss"),
                                             value=const(0.5, tf.float64)),
            "hist": raw.WriteHistogramSummary(
                writer=w, step=step(3), tag=s("h"),
                values=const([1, 2, 3], tf.int32)),
            "image": raw.WriteImageSummary(
                writer=w, step=step(4), tag=s("im"),
                tensor=const(gradient_image([2, 2, 2, 3], np.float32, 40)),
                bad_color=const([255, 0, 0, 255], tf.uint8), max_images=1),
            "audio": raw.WriteAudioSummary(
                writer=w, step=step(5), tag=s("au"),
                tensor=const([[0.1, -0.2]], tf.float32),
                sample_rate=const(8000.0, tf.float32)),
            "raw": raw.WriteRawProtoSummary(
                writer=w, step=step(6),
                tensor=s([summary_pb2.Summary(value=[summary_pb2.Summary.Value(
                    tag="r", simple_value=1.0)]).SerializeToString()])),
            "graph": raw.WriteGraphSummary(
                writer=w, step=step(7),
                tensor=s(graph_def.SerializeToString())),
            "import": raw.ImportEvent(writer=w,
                                      event=s(event.SerializeToString())),
            "flush": raw.FlushSummaryWriter(writer=w),
            "close": raw.CloseSummaryWriter(writer=w),
        }
    steps_case(
        folder, "writer_all_ops", all_ops,
        run([["create"], ["tensor"], ["scalar"], ["hist"], ["image"],
             ["audio"], ["raw"], ["graph"], ["import"], ["flush"], ["create"],
             ["scalar"], ["close"], ["scalar"], ["flush"], ["close"]]),
        note="every write op; a second create is a no-op; writes, flushes "
        "and a second close after close are NotFound")

    def errors():
        w, create, logdir = writer_graph("errors")
        return {
            "logdir": logdir,
            "create": create,
            "nan": raw.WriteHistogramSummary(writer=w, step=step(1),
                                             tag=s("h"),
                                             values=const([1.0, np.nan])),
            "bad_raw": raw.WriteRawProtoSummary(writer=w, step=step(1),
                                                tensor=s(["ok", "notaproto"])),
            "bad_graph": raw.WriteGraphSummary(writer=w, step=step(1),
                                               tensor=s("\xff\xff")),
            "bad_event": raw.ImportEvent(writer=w, event=s("notaproto")),
            "bad_image": raw.WriteImageSummary(
                writer=w, step=step(1), tag=s("i"),
                tensor=const(np.zeros([2, 2, 3], np.uint8)),
                bad_color=const([255, 0, 0, 255], tf.uint8)),
            "bad_color_matrix": raw.WriteImageSummary(
                writer=w, step=step(1), tag=s("i"),
                tensor=const(np.zeros([1, 2, 2, 3], np.float32)),
                bad_color=const([[255, 0, 0, 255]], tf.uint8)),
            "short_color": raw.WriteImageSummary(
                writer=w, step=step(1), tag=s("i"),
                tensor=const(np.zeros([1, 2, 2, 3], np.float32)),
                bad_color=const([255], tf.uint8)),
            "bad_rate": raw.WriteAudioSummary(
                writer=w, step=step(1), tag=s("a"),
                tensor=const([[0.1]], tf.float32),
                sample_rate=const(0.0, tf.float32)),
            "bad_step": raw.WriteRawProtoSummary(
                writer=w, step=const([1, 2], tf.int64), tensor=s([])),
            "close": raw.CloseSummaryWriter(writer=w),
        }
    steps_case(
        folder, "writer_errors", errors,
        run([["nan"], ["create"], ["nan"], ["bad_raw"], ["bad_graph"],
             ["bad_event"], ["bad_image"], ["bad_color_matrix"],
             ["short_color"], ["bad_rate"], ["bad_step"], ["close"]]),
        note="a write before create is NotFound; then each op's own error "
        "(an image of no pixels is left out: TensorFlow aborts on it)")


def training_case(folder):
    def build():
        w = tf1.get_variable("w", initializer=tf.constant([0.5, -1.0, 2.0]))
        target = tf.constant([1.0, 1.0, 1.0])
        loss = tf.reduce_sum(tf.square(w - target))
        train = tf1.train.GradientDescentOptimizer(0.125).minimize(loss)
        tf1.summary.scalar("loss", loss)
        tf1.summary.histogram("w", w)
        tf1.summary.tensor_summary("w_raw", w)
        return {"init": tf1.global_variables_initializer(), "train": train,
                "merged": tf1.summary.merge_all()}
    golden_lib.steps_case(
        folder, "train_graph_with_summaries", build,
        [["init"], ["merged"], ["train"], ["merged"], ["train"], ["merged"]],
        note="a TF1 training graph's merge_all between steps")


def tf_event_file(folder):
    """An event file written by TensorFlow's own summary writer, committed
    as data/summary/tf_written.tfevents: tests/kernels/summary_test.cc
    parses it and writes the same events with dfx's writer, which must give
    the same records but for wall_time. Keep in step with WriteSameEvents
    there."""
    import glob
    import shutil
    import tempfile
    with tempfile.TemporaryDirectory() as logdir:
        with tf.Graph().as_default():
            w = raw.SummaryWriter(shared_name="tf_written")
            create = raw.CreateSummaryFileWriter(
                writer=w, logdir=s(logdir), max_queue=const(10, tf.int32),
                flush_millis=const(100000, tf.int32), filename_suffix=s(""))
            with tf.control_dependencies([create]):
                a = raw.WriteScalarSummary(writer=w, step=const(1, tf.int64),
                                           tag=s("loss"),
                                           value=const(0.25, tf.float32))
            with tf.control_dependencies([a]):
                b = raw.WriteHistogramSummary(
                    writer=w, step=const(2, tf.int64), tag=s("weights"),
                    values=const([1.0, 2.0, 2.0, 3.5, -1.0], tf.float32))
            with tf.control_dependencies([b]):
                c = raw.WriteImageSummary(
                    writer=w, step=const(3, tf.int64), tag=s("pic"),
                    tensor=const(np.arange(12).reshape([1, 2, 2, 3]) * 20,
                                 tf.uint8),
                    bad_color=const([255, 0, 0, 255], tf.uint8),
                    max_images=1)
            with tf.control_dependencies([c]):
                d = raw.WriteSummary(
                    writer=w, step=const(4, tf.int64),
                    tensor=const([1, 2], tf.int32), tag=s("t"),
                    summary_metadata=s(metadata("tensors", b"x")))
            with tf.control_dependencies([d]):
                close = raw.CloseSummaryWriter(writer=w)
            with tf1.Session() as sess:
                sess.run(close)
        (path,) = glob.glob(os.path.join(logdir, "events.out.tfevents.*"))
        shutil.copy(path, os.path.join(folder, "tf_written.tfevents"))
    print(f"{FAMILY}/tf_written.tfevents: {os.path.basename(path)}")


def main():
    scalar_cases()
    histogram_cases()
    image_cases()
    audio_cases()
    tensor_cases()
    merge_cases()
    print_cases()
    writer_cases(golden_lib._family_dir(FAMILY))
    training_case(golden_lib._family_dir(FAMILY))
    tf_event_file(golden_lib._family_dir(FAMILY))
    golden_lib.write_op_defs(FAMILY, OPS)


if __name__ == "__main__":
    main()

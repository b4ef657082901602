"""Golden cases of the estimator family: the ops of TF1 estimators'
k-means clustering (KmeansPlusPlusInitialization, KMC2ChainInitialization,
NearestNeighbors: tf.compat.v1.estimator.experimental.KMeans), warm-starting
(GenerateVocabRemapping, LoadAndRemapMatrix:
tf.compat.v1.train.warm_start) and the SDCA linear
optimizer's helpers (SdcaFprint, SdcaShrinkL1), as TensorFlow 2.21 runs
them.

    $(tools/tf_env) tests/golden/gen_estimator.py

The random ops draw from TensorFlow's Philox stream with the seed input, so
the cases pin the sampled points and indices exactly. GenerateVocabRemapping
reads vocabulary files of the case's folder (gen_lookup.py's steps_case,
feeds "@CASE_DIR@/name"); SdcaShrinkL1 updates reference variables in place
(multi-step cases).

LoadAndRemapMatrix reads checkpoints TensorFlow writes (SaveV2) into the
case's folder ("@CASE_DIR@/ckpt").

Skipgram and NegTrain are deprecated at GraphDef version 19: their cases
are GraphDefs produced at version 7 (golden_lib.legacy_case).

SdcaOptimizer and SdcaOptimizerV2 are the sdca family's (gen_sdca.py).
NearestNeighbors with k < 0 is left out: TensorFlow 2.21's kernel aborts
the process (dfx says InvalidArgument, tests/kernels/estimator_test.cc).
"""

import os
import shutil
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import golden_lib  # noqa: E402
from golden_lib import tf, tf1  # noqa: E402
from gen_lookup import CASE_DIR, steps_case  # noqa: E402

FAMILY = "estimator"
RAW = tf.raw_ops

OP_NAMES = ["KmeansPlusPlusInitialization", "KMC2ChainInitialization",
            "NearestNeighbors", "GenerateVocabRemapping",
            "LoadAndRemapMatrix", "Skipgram", "NegTrain", "SdcaFprint",
            "SdcaShrinkL1"]


def case(name, fn, *inputs, **kw):
    """fn applied to placeholders of unknown shape fed `inputs`, so that
    TensorFlow's kernel (not its Python shape check) judges bad shapes."""
    def build():
        feeds = {}
        for i, v in enumerate(inputs):
            v = np.asarray(v)
            feeds[tf1.placeholder(tf.as_dtype(v.dtype), None,
                                  name=f"in{i}")] = v
        out = fn(*feeds.keys())
        return list(out) if isinstance(out, (list, tuple)) else out, feeds
    golden_lib.case(FAMILY, name, build, **kw)


def folder():
    return golden_lib.family_folder(FAMILY)


def f32(v):
    return np.asarray(v, np.float32)


def i64(v):
    return np.asarray(v, np.int64)


# Small integer coordinates: every distance is exact in float.
POINTS = np.array([[0, 0], [1, 0], [0, 1], [5, 5], [6, 5], [5, 6],
                   [-4, 3], [-5, 4], [10, -2], [2, 2]], np.float32)


def kmeans_cases():
    def kmpp_op(p, n, s, r):
        return RAW.KmeansPlusPlusInitialization(
            points=p, num_to_sample=n, seed=s, num_retries_per_sample=r)

    def kmpp(points, num, seed, retries):
        return (kmpp_op, f32(points), i64(num), i64(seed), i64(retries))
    case("kmpp_default_retries", *kmpp(POINTS, 3, 7, -1))
    case("kmpp_no_retries", *kmpp(POINTS, 4, 11, 0))
    case("kmpp_two_retries", *kmpp(POINTS, 5, 123456789, 2))
    case("kmpp_negative_seed", *kmpp(POINTS, 3, -5, 1))
    case("kmpp_every_point", *kmpp(POINTS, 10, 3, 0),
         note="all ten points, each once")
    case("kmpp_one_point", *kmpp(POINTS[:1], 1, 1, -1))
    case("kmpp_identical_points", *kmpp(np.ones((6, 3), np.float32), 4, 2, 0),
         note="zero distances: uniform draws among the points left")
    case("kmpp_zero_weight_left",
         *kmpp([[0], [0], [0], [0], [5]], 3, 0, 0),
         note="the third draw finds no weight left: TensorFlow takes the "
         "last point again")
    case("kmpp_zero_dims", *kmpp(np.zeros((5, 0), np.float32), 2, 9, 1))
    rng = golden_lib.rng(1)
    grid = rng.integers(-8, 8, size=(24, 3)).astype(np.float32)
    case("kmpp_random_grid", *kmpp(grid, 6, 42, -1))
    case("kmpp_not_matrix", *kmpp(POINTS[0], 1, 1, 0))
    case("kmpp_no_points", *kmpp(np.zeros((0, 2), np.float32), 1, 1, 0))
    case("kmpp_zero_samples", *kmpp(POINTS, 0, 1, 0))
    case("kmpp_too_many_samples", *kmpp(POINTS, 11, 1, 0))
    case("kmpp_seed_not_scalar", *kmpp(POINTS, 2, [1, 2], 0))

    def kmc2_op(d, s):
        return RAW.KMC2ChainInitialization(distances=d, seed=s)

    def kmc2(distances, seed):
        return (kmc2_op, f32(distances), i64(seed))
    case("kmc2_chain", *kmc2([1, 4, 2, 8, 0.5, 3, 9, 1, 2, 7], 5))
    case("kmc2_chain_other_seed", *kmc2([1, 4, 2, 8, 0.5, 3, 9, 1, 2, 7], 77))
    case("kmc2_long_chain",
         *kmc2(golden_lib.rng(2).random(64).astype(np.float32), 1234))
    case("kmc2_zeros", *kmc2([0, 0, 0, 0], 3))
    case("kmc2_single", *kmc2([2.5], 3))
    case("kmc2_empty", *kmc2(np.zeros(0, np.float32), 3))
    case("kmc2_not_vector", *kmc2([[1, 2]], 3))

    def nn_op(p, c, k):
        return RAW.NearestNeighbors(points=p, centers=c, k=k)

    def nn(points, centers, k):
        return (nn_op, f32(points), f32(centers), i64(k))
    centers = POINTS[[0, 3, 6, 8]]
    case("nn_k1", *nn(POINTS, centers, 1))
    case("nn_k2", *nn(POINTS, centers, 2))
    case("nn_k_all", *nn(POINTS, centers, 4))
    case("nn_k_clamped", *nn(POINTS, centers, 9),
         note="k above the number of centers gives every center")
    case("nn_k0", *nn(POINTS, centers, 0))
    case("nn_no_centers", *nn(POINTS, np.zeros((0, 2), np.float32), 3))
    case("nn_ties", *nn([[0, 0], [1, 1]], [[1, 0], [0, 1], [-1, 0], [2, 2]], 3),
         note="equal distances: the lower center index first")
    case("nn_three_dims", *nn(grid, grid[:5], 2))
    case("nn_dims_mismatch", *nn(POINTS, np.zeros((2, 3), np.float32), 1))
    # No k < 0 case: TensorFlow 2.21's kernel aborts the process (a
    # negative output dimension); dfx says InvalidArgument "Expected k >=
    # 0." (tests/kernels/estimator_test.cc).
    case("nn_no_points", *nn(np.zeros((0, 2), np.float32), centers, 1))
    case("nn_points_not_matrix", *nn(POINTS[0], centers, 1))
    case("nn_centers_not_matrix", *nn(POINTS, centers[0], 1))


NEW_VOCAB = "apple\nbanana\ncherry\ndate\nelder\nfig\n"
OLD_VOCAB = "fig\ncherry\nzucchini\napple\ngrape\n"


def vocab_cases():
    def remap(offset, num, old_size=-1):
        def build():
            new = tf1.placeholder(tf.string, [], name="new_vocab")
            old = tf1.placeholder(tf.string, [], name="old_vocab")
            r, n = RAW.GenerateVocabRemapping(
                new_vocab_file=new, old_vocab_file=old,
                new_vocab_offset=offset, num_new_vocab=num,
                old_vocab_size=old_size)
            return {"new": new, "old": old, "remapping": r, "num_present": n}
        return build

    def run(name, build, new="new.txt", old="old.txt", files=None,
            note=""):
        files = files or {"new.txt": NEW_VOCAB, "old.txt": OLD_VOCAB}
        feeds = {"new": new if new == "" else CASE_DIR + "/" + new,
                 "old": old if old == "" else CASE_DIR + "/" + old}
        steps_case(folder(), name, build,
                   [(["remapping", "num_present"], feeds)], files=files,
                   note=note)

    run("vocab_all", remap(0, 6))
    run("vocab_partition", remap(2, 3), note="lines 2..4 of the new vocab")
    run("vocab_empty_partition", remap(6, 0))
    run("vocab_old_size", remap(0, 6, old_size=3),
        note="only the old vocab's first 3 lines count")
    run("vocab_old_size_too_big", remap(0, 6, old_size=9))
    run("vocab_past_end", remap(4, 3))
    run("vocab_crlf", remap(0, 3),
        files={"new.txt": "a\r\nb\r\nc\r\n", "old.txt": "c\r\nb\r\n"})
    run("vocab_no_final_newline", remap(0, 3),
        files={"new.txt": "x\ny\nz", "old.txt": "z\nx"})
    run("vocab_duplicate_old", remap(0, 2),
        files={"new.txt": "a\nb\n", "old.txt": "b\na\nb\n"})
    run("vocab_duplicate_new", remap(0, 3),
        files={"new.txt": "a\na\nb\n", "old.txt": "a\n"})
    run("vocab_empty_line", remap(0, 2),
        files={"new.txt": "a\n\nb\n", "old.txt": "a\n"})
    run("vocab_missing_new", remap(0, 2), new="missing.txt")
    run("vocab_missing_old", remap(0, 2), old="missing.txt")
    run("vocab_empty_new_name", remap(0, 2), new="")
    run("vocab_empty_old_name", remap(0, 2), old="")
    run("vocab_empty_old_file", remap(0, 2),
        files={"new.txt": "a\nb\n", "old.txt": ""})


def checkpoint_files(tensors):
    """The files of a V2 checkpoint "ckpt" TensorFlow writes of `tensors`
    ({name: numpy value}), as {file name: bytes}."""
    tmp = tempfile.mkdtemp(prefix="dfx_gen_")
    prefix = os.path.join(tmp, "ckpt")
    with tf.Graph().as_default(), tf1.Session() as sess:
        names = sorted(tensors)
        sess.run(RAW.SaveV2(prefix=prefix, tensor_names=names,
                            shape_and_slices=[""] * len(names),
                            tensors=[tf.constant(tensors[n]) for n in names]))
    files = {}
    for f in os.listdir(tmp):
        with open(os.path.join(tmp, f), "rb") as fh:
            files[f] = fh.read()
    shutil.rmtree(tmp)
    return files


def remap_matrix_cases():
    ckpt = checkpoint_files({
        "m": np.arange(20, dtype=np.float32).reshape(5, 4),
        "vec": np.ones(3, np.float32),
        "ints": np.ones((2, 2), np.int32),
        "empty": np.zeros((0, 4), np.float32)})

    def run(name, rows, cols, init, num_rows, num_cols, tensor="m",
            path=CASE_DIR + "/ckpt", max_rows=-1, note=""):
        def build():
            ph = {k: tf1.placeholder(d, None, name=k) for k, d in
                  [("path", tf.string), ("tensor", tf.string),
                   ("rows", tf.int64), ("cols", tf.int64),
                   ("init", tf.float32)]}
            out = RAW.LoadAndRemapMatrix(
                ckpt_path=ph["path"], old_tensor_name=ph["tensor"],
                row_remapping=ph["rows"], col_remapping=ph["cols"],
                initializing_values=ph["init"], num_rows=num_rows,
                num_cols=num_cols, max_rows_in_memory=max_rows)
            return dict(ph, out=out)
        feeds = {"path": path, "tensor": tensor,
                 "rows": np.asarray(rows, np.int64),
                 "cols": np.asarray(cols, np.int64),
                 "init": np.asarray(init, np.float32)}
        steps_case(folder(), name, build, [(["out"], feeds)], files=ckpt,
                   note=note)

    run("remap_rows", [3, 0, -1, 4], [], [-1, -2, -3, -4], 4, 4,
        note="new row 2 has no old row: filled from initializing_values")
    run("remap_rows_and_cols", [-1, 4, 1], [2, -1, 0], [1, 2, 3, 4, 5],
        3, 3, note="row 0 and column 1 missing: 5 cells initialized")
    run("remap_chunked", [4, 2, 0, 3], [], [], 4, 4, max_rows=2,
        note="old rows read two at a time")
    run("remap_all_missing", [-1, -1], [], list(range(8)), 2, 4)
    run("remap_no_rows", [], [], [], 0, 4)
    run("remap_path_vector", [1], [], [], 1, 4,
        path=[CASE_DIR + "/ckpt"], note="ckpt_path of shape [1] is taken")
    run("remap_empty_tensor", [-1], [], [0, 0, 0, 0], 1, 4, tensor="empty")
    run("remap_row_past_end", [5, 0], [], [], 2, 4)
    run("remap_duplicate_row", [1, 1], [], [], 2, 4)
    run("remap_duplicate_col", [1], [0, 0], [], 1, 2)
    run("remap_rows_size", [1, 2], [], [], 3, 4)
    run("remap_rows_rank", [[1]], [], [], 1, 4)
    run("remap_cols_size", [1], [0, 1], [], 1, 3)
    run("remap_cols_mismatch", [1], [], [], 1, 3,
        note="without col_remapping num_cols must be the old columns")
    run("remap_too_few_values", [-1], [], [1, 2], 1, 4)
    run("remap_too_many_values", [0], [], [1], 1, 4)
    run("remap_not_float", [0], [], [], 1, 2, tensor="ints")
    run("remap_not_matrix", [0], [], [], 1, 3, tensor="vec")
    run("remap_missing_tensor", [0], [], [], 1, 4, tensor="nope")
    run("remap_missing_checkpoint", [0], [], [], 1, 4,
        path=CASE_DIR + "/none")
    run("remap_two_paths", [0], [], [], 1, 4,
        path=[CASE_DIR + "/ckpt", CASE_DIR + "/ckpt"])
    # No old_tensor_name or col_remapping of another shape: TensorFlow's
    # kernel aborts on them (dfx: InvalidArgument).


def neg_train_cases():
    """NegTrain is deprecated at GraphDef version 19 (tf.raw_ops has no
    NegTrain): each case builds a NoOp stand-in, which the edit turns into
    NegTrain in a GraphDef produced at version 7 (golden_lib.legacy_case).
    One step: the variables are assigned, trained and read back (the reads
    wait on NegTrain). Only num_negative_samples=0 repeats: TensorFlow
    draws the negatives from fresh random seeds (estimator_test.cc checks
    where they land)."""
    def neg(name, w_in, w_out, examples, labels, lr, vocab_count, note="",
            negatives=0):
        def build():
            win = tf1.Variable(np.zeros_like(w_in), use_resource=False,
                               name="w_in")
            wout = tf1.Variable(np.zeros_like(w_out), use_resource=False,
                                name="w_out")
            a_in = tf1.assign(win, w_in, validate_shape=False)
            a_out = tf1.assign(wout, w_out, validate_shape=False)
            ex = tf.constant(np.asarray(examples, np.int32), name="examples")
            lb = tf.constant(np.asarray(labels, np.int32), name="labels")
            rate = tf.constant(np.asarray(lr, np.float32), name="lr")
            stand_in = tf1.no_op(name="neg_train")
            with tf.control_dependencies([stand_in]):
                r_in = tf.identity(a_in, name="read_in")
                r_out = tf.identity(a_out, name="read_out")

            def edit(graph_def):
                for node in graph_def.node:
                    # Colocated with the variables, as ops built under
                    # colocate_with(variable) are: a reference must not
                    # cross tasks when the interop client spreads nodes.
                    if node.name in ("neg_train", "read_in", "read_out"):
                        node.attr["_class"].list.s.append(b"loc:@w_in")
                    if node.name == "neg_train":
                        node.op = "NegTrain"
                        node.input.extend([a_in.op.name, a_out.op.name,
                                           ex.op.name, lb.op.name,
                                           rate.op.name])
                        node.attr["vocab_count"].list.i.extend(vocab_count)
                        node.attr["num_negative_samples"].i = negatives
            return edit, [r_in.name, r_out.name]
        golden_lib.legacy_case(FAMILY, name, build, note=note)

    rng = golden_lib.rng(3)
    w_in = rng.uniform(-1, 1, size=(5, 3)).astype(np.float32)
    w_out = rng.uniform(-1, 1, size=(5, 3)).astype(np.float32)
    neg("negtrain_positive", w_in, w_out, [0, 1, 4], [2, 3, 0], 0.5,
        [3, 1, 4, 1, 5])
    neg("negtrain_shared_rows", w_in, w_out, [1, 1, 2, 1], [2, 2, 1, 1], 0.25,
        [3, 1, 4, 1, 5], note="rows updated by several examples in turn")
    neg("negtrain_one_negative_word", w_in, w_out, [0, 1, 4, 3],
        [2, 3, 0, 2], 0.5, [0, 0, 9, 0, 0], negatives=3,
        note="three negatives of word 2 per example, skipped where the "
        "label is 2")
    neg("negtrain_empty_batch", w_in, w_out, [], [], 0.5, [3, 1, 4, 1, 5])
    neg("negtrain_vocab_mismatch", w_in, w_out, [0], [1], 0.5, [1, 2, 3])
    neg("negtrain_not_matrix", w_in[0], w_out[0], [0], [1], 0.5, [1, 2, 3])
    neg("negtrain_shapes_differ", w_in, w_out[:4], [0], [1], 0.5,
        [3, 1, 4, 1, 5])
    neg("negtrain_examples_not_vector", w_in, w_out, [[0]], [[1]], 0.5,
        [3, 1, 4, 1, 5])
    neg("negtrain_labels_shape", w_in, w_out, [0, 1], [1], 0.5,
        [3, 1, 4, 1, 5])
    neg("negtrain_lr_not_scalar", w_in, w_out, [0], [1], [0.5],
        [3, 1, 4, 1, 5])
    # No example or label outside the vocabulary: TensorFlow's kernel
    # writes outside the matrices (dfx: InvalidArgument).


def skipgram_graph(filename, **attrs):
    """A GraphDef at version 7 of one Skipgram node "skipgram" (a NoOp
    stand-in renamed: tf.raw_ops has no Skipgram)."""
    graph = tf.Graph()
    with graph.as_default():
        tf1.no_op(name="skipgram")
    graph_def = graph.as_graph_def()
    node = graph_def.node[0]
    node.op = "Skipgram"
    node.attr["filename"].s = filename.encode()
    for k, v in attrs.items():
        if isinstance(v, float):
            node.attr[k].f = v
        else:
            node.attr[k].i = v
    graph_def.versions.producer = golden_lib.LEGACY_PRODUCER
    return graph_def


def skipgram_checksum(values):
    return int(sum((i + 1) * int(v) for i, v in enumerate(values)))


def skipgram_cases():
    """Skipgram reads the file its `filename` attr names when its kernel is
    built, which a golden case cannot point into its folder (only feeds
    are rewritten). So TensorFlow's batches for a corpus in the family
    folder (skipgram_corpus.txt) go to skipgram_tf.txt, which
    tests/kernels/estimator_test.cc compares with dfx's: three steps of
    1100 pairs (past the 3000 TensorFlow precomputes), the vocabulary, the
    counters, the first pairs and a checksum of all of them. The golden
    case here is a missing file."""
    rng = golden_lib.rng(5)
    words = [f"w{int(z)}" for z in np.minimum(rng.zipf(1.6, size=600), 40)]
    text = " ".join(words[:300]) + "\n\t" + " ".join(words[300:]) + "\n"
    corpus = os.path.join(folder(), "skipgram_corpus.txt")
    with open(corpus, "w") as f:
        f.write(text)
    attrs = dict(batch_size=1100, window_size=3, min_count=2, subsample=0.01)
    run_graph = tf.Graph()
    with run_graph.as_default():
        tf1.import_graph_def(skipgram_graph(corpus, **attrs), name="")
        outs = [run_graph.get_tensor_by_name(f"skipgram:{i}")
                for i in range(7)]
        with tf1.Session(graph=run_graph) as sess:
            steps = [sess.run(outs) for _ in range(3)]
    lines = ["# TensorFlow 2.21's Skipgram on skipgram_corpus.txt with " +
             " ".join(f"{k}={v}" for k, v in attrs.items()) +
             " (gen_estimator.py): the vocabulary, then per step the",
             "# counters, checksums (sum of (i + 1) * value) and first 24 "
             "examples and labels.",
             "vocab_word " + " ".join(w.decode() for w in steps[0][0]),
             "vocab_freq " + " ".join(str(v) for v in steps[0][1])]
    for out in steps:
        lines.append(f"step {int(out[2])} {int(out[3])} {int(out[4])} "
                     f"{skipgram_checksum(out[5])} "
                     f"{skipgram_checksum(out[6])}")
        lines.append("examples " + " ".join(str(v) for v in out[5][:24]))
        lines.append("labels " + " ".join(str(v) for v in out[6][:24]))
    with open(os.path.join(folder(), "skipgram_tf.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")

    def missing():
        def edit(graph_def):
            graph_def.CopyFrom(skipgram_graph(
                "/nonexistent/dfx_skipgram_corpus.txt", batch_size=4))
        return edit, ["skipgram:5"]
    golden_lib.legacy_case(FAMILY, "skipgram_missing_file", missing)


def fprint_cases():
    words = ["", "a", "ab", "abc", "abcd", "hello", "example_7", "12345678",
             "x" * 15, "y" * 16, "z" * 17, "example id 0042", "q" * 31,
             "r" * 32, "s" * 33, "t" * 64, "u" * 100, "v" * 127, "w" * 128,
             "w" * 129, "".join(chr(65 + i % 50) for i in range(200)),
             "k" * 255, "m" * 256, "n" * 300, "caf\u00e9 \u65e5\u672c"]
    def fp(x):
        return RAW.SdcaFprint(input=x)
    case("fprint_lengths", fp, np.array([w.encode() for w in words], object),
         note="every branch of the 128-bit fingerprint: lengths 0..300")
    case("fprint_empty", fp, np.array([], object))
    case("fprint_matrix", fp, np.array([[b"a", b"b"]], object))
    case("fprint_scalar", fp, np.array(b"a", object))


def shrink_cases():
    def build(l1, l2):
        def b():
            v1 = tf1.Variable(np.array([-3, -0.5, 0, 0.25, 2, 7], np.float32),
                              use_resource=False, name="w1")
            v2 = tf1.Variable(np.array([[1.5, -1.5], [0.1, -4]], np.float32),
                              use_resource=False, name="w2")
            shrink = RAW.SdcaShrinkL1(weights=[v1, v2], l1=l1, l2=l2)
            return {"init": tf1.group(v1.initializer, v2.initializer),
                    "shrink": shrink, "w1": v1.read_value(),
                    "w2": v2.read_value()}
        return b
    steps = [["init"], ["shrink"], ["w1", "w2"], ["shrink"], ["w1", "w2"]]
    golden_lib.steps_case(folder(), "shrink_two_steps", build(1.0, 2.0),
                          steps, note="|w| - l1/l2, twice")
    golden_lib.steps_case(folder(), "shrink_uneven_ratio", build(0.3, 0.7),
                          steps)
    golden_lib.steps_case(folder(), "shrink_zero_l1", build(0.0, 1.0), steps)
    golden_lib.steps_case(folder(), "shrink_zero_l2", build(1.0, 0.0), steps,
                          note="l1/l2 infinite: every weight becomes 0")

    def uninitialized():
        v = tf1.Variable(np.ones(3, np.float32), use_resource=False,
                         name="w_uninit")
        return {"shrink": RAW.SdcaShrinkL1(weights=[v], l1=1.0, l2=1.0)}
    golden_lib.steps_case(folder(), "shrink_uninitialized", uninitialized,
                          [["shrink"]])

    def none():
        return {"shrink": RAW.SdcaShrinkL1(weights=[], l1=1.0, l2=1.0)}
    golden_lib.steps_case(folder(), "shrink_no_weights", none, [["shrink"]])


def main():
    kmeans_cases()
    vocab_cases()
    remap_matrix_cases()
    neg_train_cases()
    skipgram_cases()
    fprint_cases()
    shrink_cases()
    golden_lib.write_op_defs(FAMILY, OP_NAMES)


if __name__ == "__main__":
    main()

"""Golden cases of the ckptv1 family: TensorFlow's V1 checkpoint ops Save,
SaveSlices, Restore and RestoreSlice, and RestoreV2 reading a V1 checkpoint
(what tf.compat.v1.train.Saver(write_version=V1) graphs and TF1 models
before 1.0 run), as TensorFlow 2.21 runs them.

Every case is multi-step (gen_lookup.py's steps_case): it saves into a
directory in one step and restores in a later one. The directory is fed as
"@SCRATCH_DIR@/" at the "init" step (into a string variable the paths are
built from): a fresh directory of each run of the case, which golden_test.cc
and the TF-client interop run make, so runs never share files.

Both directions of the format are covered:
- dfx writes, TensorFlow reads: the save cases fetch the written file's
  bytes (ReadFile), which must equal those TensorFlow's Save wrote, so
  TensorFlow's Restore reads dfx's files;
- TensorFlow writes, dfx reads: the tf_file cases hold files written here by
  TensorFlow's Save as constants, write them with WriteFile and restore
  from them (also damaged copies: DataLoss).

    $(tools/tf_env) tests/golden/gen_ckptv1.py

Besides the cases the generator writes the ops' signatures
(tf_op_defs.pbtxt, tf_cpu_kernels.txt), which tests/kernels/ckptv1_test.cc
compares with dfx's registry.
"""

import json
import os
import re
import shutil
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import golden_lib  # noqa: E402
import gen_lookup  # noqa: E402
from gen_lookup import SCRATCH_DIR  # noqa: E402
from golden_lib import tf, tf1  # noqa: E402

FAMILY = "ckptv1"
RAW = tf.raw_ops
OP_NAMES = ["Save", "SaveSlices", "Restore", "RestoreSlice"]

STRINGS = np.array([b"", b"a\x00b", b"\xff\xfe", b"x" * 40], dtype=object)


def folder():
    return golden_lib.family_folder(FAMILY)


def values():
    """name -> (value, dtype): every dtype V1 saves, and edge shapes."""
    r = np.random.default_rng(11)
    return {
        "f32": (r.standard_normal((2, 3)).astype(np.float32), tf.float32),
        "f64": (np.array([1e300, -0.0, np.inf]), tf.float64),
        "i32": (np.array([[-(2 ** 31), 0, 2 ** 31 - 1]], np.int32), tf.int32),
        "u8": (np.array([0, 1, 255], np.uint8), tf.uint8),
        "i16": (np.array([-32768, 7, 32767], np.int16), tf.int16),
        "i8": (np.array([-128, -1, 127], np.int8), tf.int8),
        "i64": (np.array([-(2 ** 63), 2 ** 40, 5], np.int64), tf.int64),
        "u16": (np.array([0, 65535], np.uint16), tf.uint16),
        "bool": (np.array([[True, False], [False, True]]), tf.bool),
        "c64": (np.array([1 + 2j, -3.5 - 0.25j], np.complex64), tf.complex64),
        "c128": (np.array([1e200 - 1j], np.complex128), tf.complex128),
        "f16": (np.array([1.5, -2.0, 65504.0], np.float16), tf.float16),
        "str": (STRINGS, tf.string),
        "scalar": (np.array(3.25, np.float32), tf.float32),
        "empty": (np.zeros((0, 3), np.float32), tf.float32),
        "empty_str": (np.zeros((2, 0), dtype=object), tf.string),
    }


def const(value, dtype):
    return tf.constant(value, dtype=dtype)


def dir_case(name, body, steps, note=""):
    """A case whose files live in the run's scratch directory (see the
    module doc). body(path) returns {key: tensor or op}; path(name) is the
    string tensor of a file in the directory. Steps "init" (which takes the
    directory) and "mkdir" come first."""
    def build():
        scratch = tf1.placeholder(tf.string, shape=[], name="scratch")
        var = tf1.Variable(scratch, trainable=False, use_resource=False,
                           name="dir")
        d = tf.identity(var)

        def path(file_name):
            return tf.strings.join([d, file_name])
        named = body(path)
        named["scratch"] = scratch
        named["init"] = var.initializer
        named["mkdir"] = tf.io.write_file(path("made"), "")
        return named
    at = {"scratch": SCRATCH_DIR + "/"}
    gen_lookup.steps_case(folder(), name, build,
                          [(["init"], at), (["mkdir"], {})] +
                          [(keys, {}) for keys in steps], note=note)
    # Temporary files' names differ from run to run; the messages name them.
    spec_path = os.path.join(folder(), name, "case.json")
    with open(spec_path) as f:
        spec = json.load(f)
    for step in spec["steps"]:
        if "error" in step:
            step["error"]["message"] = re.sub(
                r"\.tempstate\d+", ".tempstate<id>", step["error"]["message"])
    with open(spec_path, "w") as f:
        json.dump(spec, f, indent=1, sort_keys=True)
        f.write("\n")


def read(path, file_name):
    return tf.io.read_file(path(file_name))


# --------------------------------------------------------------------------
# Save and Restore round trips: dfx's files byte for byte TensorFlow's.


def save_restore_cases():
    vals = values()
    names = sorted(vals)

    def all_dtypes(path):
        out = {"save": RAW.Save(filename=path("ckpt"), tensor_names=names,
                                data=[const(*vals[n]) for n in names]),
               "bytes": read(path, "ckpt")}
        for n in names:
            out["r_" + n] = RAW.Restore(file_pattern=path("ckpt"),
                                        tensor_name=n, dt=vals[n][1])
        return out
    dir_case("save_restore_every_dtype", all_dtypes,
             [["save"], ["bytes"] + ["r_" + n for n in names]])

    def quantized(path):
        q8 = tf1.quantize(tf.constant([-1.0, 0.5, 1.0]), -1.0, 1.0,
                          tf.qint8).output
        qu8 = tf1.quantize(tf.constant([0.0, 0.5, 1.0]), 0.0, 1.0,
                           tf.quint8).output
        q32 = tf1.quantize(tf.constant([-1.0, 0.25]), -1.0, 1.0,
                           tf.qint32).output
        return {"save": RAW.Save(filename=path("q"),
                                 tensor_names=["q8", "qu8", "q32"],
                                 data=[q8, qu8, q32]),
                "bytes": read(path, "q")}
    # The restored quantized values are not fetched (steps_case stores
    # plain outputs); the file's bytes show them.
    dir_case("save_quantized", quantized, [["save"], ["bytes"]])

    def unsorted_names(path):
        # Save sorts by name; the file's metadata lists them so.
        return {"save": RAW.Save(filename=path("u"),
                                 tensor_names=["zeta", "alpha", "mid"],
                                 data=[tf.constant([1, 2]),
                                       tf.constant(b"s"),
                                       tf.constant([[0.5]])]),
                "bytes": read(path, "u"),
                "mid": RAW.Restore(file_pattern=path("u"), tensor_name="mid",
                                   dt=tf.float32)}
    dir_case("save_sorts_names", unsorted_names, [["save"], ["bytes", "mid"]])

    def overwrite(path):
        return {"save1": RAW.Save(filename=path("o"), tensor_names=["v"],
                                  data=[tf.constant([1.0, 2.0])]),
                "save2": RAW.Save(filename=path("o"), tensor_names=["v"],
                                  data=[tf.constant([7, 8, 9])]),
                "r_f": RAW.Restore(file_pattern=path("o"), tensor_name="v",
                                   dt=tf.float32),
                "r_i": RAW.Restore(file_pattern=path("o"), tensor_name="v",
                                   dt=tf.int32)}
    dir_case("save_overwrites", overwrite,
             [["save1"], ["r_f"], ["save2"], ["r_i"], ["r_f"]])

    def names_and_slices(path):
        # Names with the bytes the key encoding escapes, and a long name.
        names2 = ["a\x00b", "a\xffb", "a", "n" * 300, "scope/var:0"]
        return {"save": RAW.Save(filename=path("k"), tensor_names=names2,
                                 data=[tf.constant([float(i)])
                                       for i in range(len(names2))]),
                "bytes": read(path, "k"),
                "r": RAW.Restore(file_pattern=path("k"),
                                 tensor_name="a\x00b", dt=tf.float32)}
    dir_case("save_escaped_names", names_and_slices, [["save"], ["bytes", "r"]])


# --------------------------------------------------------------------------
# SaveSlices and RestoreSlice: partitioned variables.


def slice_cases():
    top = np.arange(6, dtype=np.float32).reshape(2, 3)
    bottom = np.arange(6, 12, dtype=np.float32).reshape(2, 3)
    cols = np.array([[1, 2], [3, 4], [5, 6], [7, 8]], np.int64)

    def partitioned(path):
        save = RAW.SaveSlices(
            filename=path("p"),
            tensor_names=["w", "w", "b", "s", "full"],
            shapes_and_slices=["4 3 0,2:-", "4 3 2,2:-", "4 5 -:3,2",
                               "3 1,2", ""],
            data=[tf.constant(top), tf.constant(bottom), tf.constant(cols),
                  tf.constant([b"y", b"z"]), tf.constant([[1, 2]])])

        def rs(name, spec, dt):
            # Through a placeholder: TensorFlow's shape function parses a
            # constant spec, and a bad one would fail building the graph.
            return RAW.RestoreSlice(
                file_pattern=path("p"), tensor_name=name,
                shape_and_slice=tf1.placeholder_with_default(spec, []), dt=dt)
        return {"save": save, "bytes": read(path, "p"),
                "whole": RAW.Restore(file_pattern=path("p"), tensor_name="w",
                                     dt=tf.float32),
                "cross": rs("w", "4 3 1,2:1,2", tf.float32),
                "same": rs("w", "4 3 2,2:-", tf.float32),
                "col": rs("b", "4 5 -:4,1", tf.int64),
                "str": rs("s", "3 1,2", tf.string),
                "str1": rs("s", "3 2,1", tf.string),
                "empty_spec": rs("full", "", tf.int32),
                "full_spec": rs("full", "1 2 -:-", tf.int32),
                # Columns 0..2 of b were never saved.
                "uncovered": rs("b", "4 5 -:2,2", tf.int64),
                "uncovered_whole": RAW.Restore(file_pattern=path("p"),
                                               tensor_name="b", dt=tf.int64),
                "shape_mismatch": rs("w", "4 4 -:-", tf.float32),
                "out_of_bounds": rs("w", "4 3 3,2:-", tf.float32),
                "rank_mismatch": rs("w", "4 3 -", tf.float32),
                "bad_slice": rs("w", "4 3 0,0:-", tf.float32),
                "not_numbers": rs("w", "4 x -:-", tf.float32),
                "one_item": rs("w", "-:-", tf.float32)}
    dir_case("save_slices_partitioned", partitioned,
             [["save"], ["bytes", "whole", "cross", "same", "col", "str",
                         "str1", "empty_spec", "full_spec"],
              ["uncovered"], ["uncovered_whole"], ["shape_mismatch"],
              ["out_of_bounds"], ["rank_mismatch"], ["bad_slice"],
              ["not_numbers"], ["one_item"]])

    def empty_slices(path):
        return {"save": RAW.SaveSlices(
                    filename=path("e"), tensor_names=["e", "e"],
                    shapes_and_slices=["2 0 0,1:-", "2 0 1,1:-"],
                    data=[tf.zeros([1, 0]), tf.zeros([1, 0])]),
                "bytes": read(path, "e"),
                "r": RAW.Restore(file_pattern=path("e"), tensor_name="e",
                                 dt=tf.float32),
                "rs": RAW.RestoreSlice(file_pattern=path("e"),
                                       tensor_name="e",
                                       shape_and_slice="2 0 1,1:-",
                                       dt=tf.float32)}
    dir_case("save_slices_empty", empty_slices, [["save"], ["bytes", "r",
                                                            "rs"]])

    def save_errors(path):
        def ss(specs, data, names=None):
            names = names or ["v"] * len(data)
            return RAW.SaveSlices(
                filename=path("x"), tensor_names=names,
                shapes_and_slices=tf1.placeholder_with_default(specs, None),
                data=data)
        two = tf.constant([[1.0, 2.0], [3.0, 4.0]])
        return {"spec_mismatch": ss(["4 2 0,3:-"], [two]),
                "spec_oob": ss(["4 2 3,3:-"], [two]),
                "spec_rank": ss(["4 2 -"], [two]),
                "spec_count": ss(["", ""], [two]),
                "spec_parse": ss(["4 2 a,b:-"], [two]),
                "twice_other_shape": ss(["", ""], [two, tf.constant([1.0])]),
                "twice_other_type": ss(["", ""],
                                       [two, tf.constant([[1, 2], [3, 4]])]),
                "missing_dir": RAW.Save(filename=path("no/such/dir/x"),
                                        tensor_names=["v"], data=[two]),
                "names_count": RAW.Save(
                    filename=path("x"),
                    tensor_names=tf1.placeholder_with_default(["a", "b"],
                                                              None),
                    data=[two]),
                "filename_vector": RAW.Save(
                    filename=tf1.placeholder_with_default(
                        tf.stack([path("x"), path("y")]), None),
                    tensor_names=["v"], data=[two]),
                "bfloat16": RAW.Save(filename=path("x"), tensor_names=["v"],
                                     data=[tf.constant([1.0], tf.bfloat16)]),
                "uint32": RAW.Save(filename=path("x"), tensor_names=["v"],
                                   data=[tf.constant([1], tf.uint32)]),
                "uint64": RAW.Save(filename=path("x"), tensor_names=["v"],
                                   data=[tf.constant([1], tf.uint64)]),
                "dup": RAW.Save(filename=path("d"), tensor_names=["v", "v"],
                                data=[tf.constant(1.0), tf.constant(2.0)]),
                "dup_bytes": read(path, "d"),
                "dup_restore": RAW.Restore(file_pattern=path("d"),
                                           tensor_name="v", dt=tf.float32)}
    dir_case("save_errors", save_errors,
             [["spec_mismatch"], ["spec_oob"], ["spec_rank"], ["spec_count"],
              ["spec_parse"], ["twice_other_shape"], ["twice_other_type"],
              ["missing_dir"], ["names_count"], ["filename_vector"],
              ["bfloat16"], ["uint32"], ["uint64"], ["dup"], ["dup_bytes"],
              ["dup_restore"]])


# --------------------------------------------------------------------------
# Restore errors, patterns and shards, RestoreV2's fallback.


def restore_cases():
    def errors(path):
        def r(name, dt, pattern="c", **kw):
            return RAW.Restore(file_pattern=path(pattern), tensor_name=name,
                               dt=dt, **kw)
        return {"save": RAW.Save(filename=path("c"), tensor_names=["a", "s"],
                                 data=[tf.constant([1, 2]),
                                       tf.constant(b"t")]),
                "missing_file": r("a", tf.int32, "nothing"),
                "missing_tensor": r("zz", tf.int32),
                "dtype": r("a", tf.float32),
                "dtype_string": r("s", tf.int32),
                "pattern_vector": RAW.Restore(
                    file_pattern=tf1.placeholder_with_default(
                        tf.stack([path("c"), path("c")]), None),
                    tensor_name="a", dt=tf.int32),
                # Only the first name is used, as in TensorFlow.
                "names_vector": RAW.Restore(
                    file_pattern=path("c"),
                    tensor_name=tf1.placeholder_with_default(["a", "zz"],
                                                             None),
                    dt=tf.int32),
                "ok": r("a", tf.int32)}
    dir_case("restore_errors", errors,
             [["save"], ["missing_file"], ["missing_tensor"], ["dtype"],
              ["dtype_string"], ["pattern_vector"], ["names_vector"], ["ok"]])

    def shards(path):
        s0 = RAW.Save(filename=path("m-00000-of-00002"),
                      tensor_names=["a", "w"],
                      data=[tf.constant([1.0, 2.0]), tf.constant([[1, 2]])])
        s1 = RAW.Save(filename=path("m-00001-of-00002"), tensor_names=["b"],
                      data=[tf.constant([b"shard1"])])

        def r(name, dt, shard, pattern="m-?????-of-00002"):
            return RAW.Restore(file_pattern=path(pattern), tensor_name=name,
                               dt=dt, preferred_shard=shard)
        return {"s0": s0, "s1": s1,
                "a_pref0": r("a", tf.float32, 0),
                "b_pref0": r("b", tf.string, 0),
                "b_pref1": r("b", tf.string, 1),
                "a_pref9": r("a", tf.float32, 9),
                "a_star": r("a", tf.float32, -1, "m-*"),
                "w_slice": RAW.RestoreSlice(
                    file_pattern=path("m-*"), tensor_name="w",
                    shape_and_slice="1 2 -:1,1", dt=tf.int32,
                    preferred_shard=1),
                "none": r("a", tf.float32, -1, "q-*"),
                "missing": r("c", tf.float32, 0)}
    dir_case("restore_sharded_pattern", shards,
             [["s0", "s1"], ["a_pref0", "b_pref0", "b_pref1", "a_pref9",
                             "a_star", "w_slice"], ["none"], ["missing"]])

    def fallback(path):
        def rv2(names, specs, dtypes, prefix="v1"):
            return RAW.RestoreV2(
                prefix=path(prefix), tensor_names=names,
                shape_and_slices=tf1.placeholder_with_default(specs, None),
                dtypes=dtypes)[0]
        both = RAW.RestoreV2(prefix=path("v1"), tensor_names=["n", "w"],
                             shape_and_slices=["", ""],
                             dtypes=[tf.int32, tf.float32])
        sliced = RAW.RestoreV2(prefix=path("v1"), tensor_names=["w", "w"],
                               shape_and_slices=["2 2 1,1:-", "2 2 -:1,1"],
                               dtypes=[tf.float32, tf.float32])
        return {"save": RAW.SaveSlices(
                    filename=path("v1"), tensor_names=["w", "w", "n"],
                    shapes_and_slices=["2 2 0,1:-", "2 2 1,1:-", ""],
                    data=[tf.constant([[1.0, 2.0]]),
                          tf.constant([[3.0, 4.0]]), tf.constant(5)]),
                "all_n": both[0], "all_w": both[1],
                "slice_row": sliced[0], "slice_col": sliced[1],
                "missing_file": rv2(["n"], [""], [tf.int32], "nothing"),
                "missing_tensor": rv2(["zz"], [""], [tf.int32]),
                "dtype": rv2(["n"], [""], [tf.float32]),
                "bad_spec": rv2(["w"], ["3 2 -:-"], [tf.float32])}
    dir_case("restore_v2_reads_v1", fallback,
             [["save"], ["all_n", "all_w", "slice_row", "slice_col"],
              ["missing_file"],
              ["missing_tensor"], ["dtype"], ["bad_spec"]])


# --------------------------------------------------------------------------
# tf.compat.v1.train.Saver(write_version=V1): SaveSlices of a partitioned
# variable, RestoreV2 (one per variable) reading the V1 file back.


def saver_cases():
    from tensorflow.core.protobuf import saver_pb2

    def part_range(shape, dtype=None, partition_info=None):
        """Each partition holds its rows of arange(12).reshape(6, 2)."""
        row = partition_info.var_offset[0] if partition_info else 0
        start = row * shape[1]
        return tf.reshape(tf.range(start, start + shape[0] * shape[1],
                                   dtype=tf.float32), shape)

    def saver_graph(sharded):
        def body(path):
            emb = tf1.get_variable(
                "emb", shape=[6, 2], dtype=tf.float32,
                partitioner=tf1.fixed_size_partitioner(3),
                initializer=part_range,
                use_resource=False)
            step = tf1.Variable(np.int64(41), name="step", use_resource=True)
            words = tf1.Variable(tf.constant([b"a", b"bc"]), name="words",
                                 use_resource=False)
            saver = tf1.train.Saver(
                [emb, step, words], sharded=sharded,
                write_version=saver_pb2.SaverDef.V1)
            graph = tf1.get_default_graph()
            # The Saver's file name is a PlaceholderWithDefault; its default
            # becomes a file in the case's directory.
            name = saver.saver_def.filename_tensor_name.split(":")[0]
            graph.get_operation_by_name(name)._update_input(
                0, path("model.ckpt"))
            save = graph.get_tensor_by_name(
                saver.saver_def.save_tensor_name).op
            parts = list(emb)
            return {"init_vars": tf1.variables_initializer(
                        parts + [step, words]),
                    "save": save,
                    "restore": graph.get_operation_by_name(
                        saver.saver_def.restore_op_name),
                    "clobber": tf.group(
                        *[p.assign(tf.zeros_like(p)) for p in parts],
                        step.assign(0), words.assign([b"", b""])),
                    # What a sharded V1 Saver restores from: the spec
                    # (its restore_all given the plain name finds nothing).
                    "from_spec": RAW.RestoreV2(
                        prefix=path("model.ckpt-?????-of-00001"),
                        tensor_names=["emb", "step"],
                        shape_and_slices=["6 2 2,2:-", ""],
                        dtypes=[tf.float32, tf.int64])[0],
                    "emb": tf.concat([tf.identity(p) for p in parts], 0),
                    "step": step.read_value(),
                    "words": tf.identity(words)}
        return body
    for sharded in (False, True):
        dir_case("saver_v1_" + ("sharded" if sharded else "single"),
                 saver_graph(sharded),
                 [["init_vars"], ["save"], ["clobber"],
                  ["emb", "step", "words"], ["restore"],
                  ["emb", "step", "words"]] +
                 ([["from_spec"]] if sharded else []))


# --------------------------------------------------------------------------
# Files TensorFlow wrote, read by dfx; damaged copies.


def tf_written_files():
    """name -> bytes of V1 checkpoints TensorFlow's Save writes."""
    vals = values()
    names = sorted(vals)
    d = tempfile.mkdtemp(prefix="dfx_gen_ckptv1_")
    try:
        with tf.Graph().as_default():
            ops = [RAW.Save(filename=os.path.join(d, "all"),
                            tensor_names=names,
                            data=[const(*vals[n]) for n in names]),
                   RAW.SaveSlices(
                       filename=os.path.join(d, "part"),
                       tensor_names=["w", "w"],
                       shapes_and_slices=["3 2 0,2:-", "3 2 2,1:-"],
                       data=[tf.constant([[1.0, 2.0], [3.0, 4.0]]),
                             tf.constant([[5.0, 6.0]])])]
            with tf1.Session() as sess:
                sess.run(ops)
        out = {}
        for n in ("all", "part"):
            with open(os.path.join(d, n), "rb") as f:
                out[n] = f.read()
        return out
    finally:
        shutil.rmtree(d)


def damaged(data):
    """Damaged copies: TensorFlow's table reader refuses each with
    DataLoss."""
    index_crc = bytearray(data)
    # The byte before the footer is the index block's last checksum byte.
    index_crc[len(data) - 48 - 1] ^= 0x40
    return {"truncated": data[:-10], "garbage": b"not a table " * 8,
            "empty": b"", "index_checksum": bytes(index_crc)}


def tf_file_cases():
    files = tf_written_files()
    vals = values()
    names = sorted(vals)

    def read_all(path):
        out = {"write": tf.io.write_file(path("all"), files["all"]),
               "write_part": tf.io.write_file(path("part"), files["part"])}
        for n in names:
            out["r_" + n] = RAW.Restore(file_pattern=path("all"),
                                        tensor_name=n, dt=vals[n][1])
        out["w"] = RAW.Restore(file_pattern=path("part"), tensor_name="w",
                               dt=tf.float32)
        out["w_row"] = RAW.RestoreSlice(file_pattern=path("part"),
                                        tensor_name="w",
                                        shape_and_slice="3 2 1,2:-",
                                        dt=tf.float32)
        return out
    dir_case("tf_file_read", read_all,
             [["write", "write_part"],
              ["r_" + n for n in names] + ["w", "w_row"]])

    def corrupt(path):
        out = {}
        for k, data in damaged(files["all"]).items():
            out["write_" + k] = tf.io.write_file(path(k), data)
            out[k] = RAW.Restore(file_pattern=path(k), tensor_name="f32",
                                 dt=tf.float32)
        return out
    keys = list(damaged(files["all"]))
    # Not here: a flipped byte inside the data block. TensorFlow reads the
    # table lazily and then misses the metadata record (Internal "Failed to
    # find the saved tensor slices"); dfx checks every block's checksum when
    # it opens the file and answers DataLoss
    # (tests/checkpoint/tensor_slice_v1_test.cc).
    dir_case("tf_file_damaged", corrupt,
             [["write_" + k for k in keys]] + [[k] for k in keys])


def main():
    save_restore_cases()
    slice_cases()
    restore_cases()
    saver_cases()
    tf_file_cases()
    # Last: the first case empties the family's folder.
    golden_lib.write_op_defs(FAMILY, OP_NAMES)


if __name__ == "__main__":
    main()

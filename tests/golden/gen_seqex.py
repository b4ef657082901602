"""Golden cases of the seqex family: TF1 input-pipeline ops that exported
graphs hold, as TensorFlow 2.21 runs them.

- tf.train.SequenceExample parsing: ParseSingleSequenceExample,
  ParseSequenceExample and ParseSequenceExampleV2 (what
  tf.io.parse_single_sequence_example and tf.io.parse_sequence_example
  emit): context features (dense with defaults, sparse, ragged in V2) and
  feature lists (dense with their lengths, sparse, ragged in V2), every
  feature dtype (float, int64, bytes), empty and missing feature lists,
  missing context features with defaults, and TensorFlow's errors for
  malformed protos, features of the wrong length or type and missing
  required features. The protos are built here (tf.train.SequenceExample).
- The sparse-tensors map of tf.compat.v1.train.batch on SparseTensors:
  AddSparseToTensorsMap, AddManySparseToTensorsMap,
  TakeManySparseFromTensorsMap (multi-step cases: add in one step, take in
  the next; a handle taken twice fails), and DeserializeManySparse.

    $(tools/tf_env) tests/golden/gen_seqex.py

Besides the cases the generator writes the ops' signatures
(tf_op_defs.pbtxt, tf_cpu_kernels.txt), which tests/kernels/seqex_test.cc
compares with dfx's registry.

Left out: ParseSequenceExampleV2 on a scalar `serialized` with ragged
features, whose row splits TensorFlow's kernel leaves unwritten (the
values it returns are whatever the buffer held).
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import golden_lib  # noqa: E402
from golden_lib import placeholder, steps_case, tf, tf1  # noqa: E402

FAMILY = "seqex"
RAW = tf.raw_ops

OP_NAMES = ["ParseSingleSequenceExample", "ParseSequenceExample",
            "ParseSequenceExampleV2", "AddSparseToTensorsMap",
            "AddManySparseToTensorsMap", "TakeManySparseFromTensorsMap",
            "DeserializeManySparse"]


def case(name, build, **kw):
    golden_lib.case(FAMILY, name, build, **kw)


def folder():
    return golden_lib.family_folder(FAMILY)


def _fill(feature, values):
    if values is None:
        return  # a Feature with no kind set
    if isinstance(values, tuple):  # (kind, []) for an empty list of a kind
        getattr(feature, values[0]).SetInParent()
        return
    if all(isinstance(v, float) for v in values):
        feature.float_list.value.extend(values)
    elif all(isinstance(v, int) for v in values):
        feature.int64_list.value.extend(values)
    else:
        feature.bytes_list.value.extend(values)


def seq(context=None, lists=None):
    """A serialized tf.train.SequenceExample: context {key: values},
    feature lists {key: [values per step]}."""
    s = tf.train.SequenceExample()
    for k, v in (context or {}).items():
        _fill(s.context.feature[k], v)
    for k, steps in (lists or {}).items():
        fl = s.feature_lists.feature_list[k]
        fl.SetInParent()
        for v in steps:
            _fill(fl.feature.add(), v)
    return s.SerializeToString()


# Three SequenceExamples with every dtype.
EX_A = seq({"length": [3], "score": [0.5, 1.5], "tag": [b"alpha"],
            "ids": [7, 8, 9]},
           {"tokens": [[1, 2], [3, 4], [5, 6]],
            "weights": [[0.25], [0.5], [0.75]],
            "words": [[b"a"], [b"b"], [b"c"]],
            "sparse_f": [[1.5], [2.5, 3.5], []],
            "sparse_s": [[b"x"], [b"y", b"z"]]})
EX_B = seq({"length": [1], "tag": [b"beta"]},
           {"tokens": [[7, 8]], "weights": [[1.0]], "words": [[b"d"]],
            "sparse_s": [[b"w"]], "empty": []})
EX_EMPTY = seq()
# Field 1 with a length past the end (ASCII: TensorFlow quotes the bytes in
# its message, which Python must decode).
MALFORMED = b"\x0a\x10abc"


def strings(v):
    return np.array(v, dtype=object).astype(bytes)


# --------------------------------------------------------------------------
# ParseSingleSequenceExample


def single(name, serialized, context_dense=(), context_sparse=(),
           list_dense=(), list_sparse=(), missing=(), debug_name="ex",
           note=""):
    """context_dense: (key, dtype, shape, default or None); context_sparse
    and list_sparse: (key, dtype); list_dense: (key, dtype, shape)."""
    def build():
        ser, ser_v = placeholder(np.array(serialized, dtype=object),
                                 name="serialized")
        out = RAW.ParseSingleSequenceExample(
            serialized=ser,
            feature_list_dense_missing_assumed_empty=tf.constant(
                list(missing), tf.string, shape=[len(missing)]),
            context_sparse_keys=[k for k, _ in context_sparse],
            context_dense_keys=[k for k, *_ in context_dense],
            feature_list_sparse_keys=[k for k, _ in list_sparse],
            feature_list_dense_keys=[k for k, *_ in list_dense],
            context_dense_defaults=[
                tf.constant([], dtype) if d is None else tf.constant(d, dtype)
                for _, dtype, _, d in context_dense],
            debug_name=debug_name,
            context_sparse_types=[t for _, t in context_sparse],
            feature_list_dense_types=[t for _, t, _ in list_dense],
            context_dense_shapes=[s for _, _, s, _ in context_dense],
            feature_list_sparse_types=[t for _, t in list_sparse],
            feature_list_dense_shapes=[s for _, _, s in list_dense])
        return tf.nest.flatten(out), {ser: ser_v}
    case("single_" + name, build, note=note)


def single_cases():
    f32, i64, s = tf.float32, tf.int64, tf.string
    single("every_dtype", EX_A,
           context_dense=[("score", f32, [2], None), ("length", i64, [], None),
                          ("tag", s, [1], None)],
           context_sparse=[("ids", i64), ("tag", s), ("nothing", f32)],
           list_dense=[("tokens", i64, [2]), ("weights", f32, []),
                       ("words", s, [1])],
           list_sparse=[("sparse_f", f32), ("sparse_s", s), ("absent", i64)])
    single("context_defaults", EX_B,
           context_dense=[("score", f32, [2], [9.0, 8.0]),
                          ("length", i64, [], 0),
                          ("missing_s", s, [2], [b"d0", b"d1"])])
    single("empty_feature_list", EX_B,
           list_dense=[("empty", f32, [3])], list_sparse=[("empty", s)])
    single("empty_proto", EX_EMPTY,
           context_dense=[("score", f32, [2], [1.0, 2.0])],
           context_sparse=[("ids", i64)], list_sparse=[("tokens", i64)],
           list_dense=[("tokens", i64, [2])], missing=["tokens", "other"])
    single("missing_assumed_empty", EX_B,
           list_dense=[("tokens", i64, [2]), ("absent", f32, [2, 2])],
           missing=["absent"])
    single("empty_debug_name", EX_A, list_dense=[("tokens", i64, [2])],
           debug_name="")
    # Errors: InvalidArgument, as TensorFlow.
    single("required_context_missing", EX_B,
           context_dense=[("score", f32, [2], None)])
    single("required_list_missing", EX_B, list_dense=[("absent", f32, [])])
    single("context_wrong_length", EX_A,
           context_dense=[("score", f32, [3], None)])
    single("list_wrong_length", EX_A, list_dense=[("tokens", i64, [3])])
    single("context_wrong_type", EX_A,
           context_dense=[("score", i64, [2], None)])
    single("context_sparse_wrong_type", EX_A, context_sparse=[("ids", s)])
    single("list_wrong_type", EX_A, list_dense=[("tokens", f32, [2])])
    single("list_sparse_wrong_type", EX_A, list_sparse=[("sparse_f", i64)])
    single("malformed", MALFORMED, context_dense=[("score", f32, [2],
                                                   [1.0, 2.0])])
    single("default_wrong_shape", EX_A,
           context_dense=[("score", f32, [2], [1.0, 2.0, 3.0])])

    def not_scalar():
        # Of unknown rank: TensorFlow's shape function rejects a known one.
        ser = tf1.placeholder(tf.string, shape=None, name="serialized")
        ser_v = np.array([EX_A], dtype=object)
        out = RAW.ParseSingleSequenceExample(
            serialized=ser,
            feature_list_dense_missing_assumed_empty=tf.constant([], tf.string),
            context_sparse_keys=[], context_dense_keys=[],
            feature_list_sparse_keys=["sparse_f"], feature_list_dense_keys=[],
            context_dense_defaults=[], debug_name="",
            feature_list_sparse_types=[tf.float32])
        return tf.nest.flatten(out), {ser: ser_v}
    case("single_serialized_not_scalar", not_scalar)


# --------------------------------------------------------------------------
# ParseSequenceExample (V1, keys as attrs) and ParseSequenceExampleV2


def batch(name, serialized, context_dense=(), context_sparse=(),
          list_dense=(), list_sparse=(), missing=(), names=(), v2=False,
          context_ragged=(), list_ragged=(), split=tf.int64, shape=None,
          note=""):
    """As single(); context_ragged and list_ragged: (key, dtype) (V2)."""
    def build():
        value = np.array(serialized, dtype=object)
        ser, ser_v = placeholder(value, name="serialized", shape=shape)
        names_t = tf.constant(list(names), tf.string, shape=[len(names)])
        defaults = [tf.constant([], dtype) if d is None else
                    tf.constant(d, dtype) for _, dtype, _, d in context_dense]
        common = dict(
            context_sparse_types=[t for _, t in context_sparse],
            feature_list_dense_types=[t for _, t, _ in list_dense],
            context_dense_shapes=[s for _, _, s, _ in context_dense],
            feature_list_sparse_types=[t for _, t in list_sparse],
            feature_list_dense_shapes=[s for _, _, s in list_dense],
            Ncontext_sparse=len(context_sparse),
            Nfeature_list_sparse=len(list_sparse),
            Nfeature_list_dense=len(list_dense))
        keys = lambda group: [g[0] for g in group]  # noqa: E731
        if v2:
            missing_mask = [k in missing for k, *_ in list_dense]
            out = RAW.ParseSequenceExampleV2(
                serialized=ser, debug_name=names_t,
                context_sparse_keys=tf.constant(keys(context_sparse),
                                                tf.string, shape=[len(context_sparse)]),
                context_dense_keys=tf.constant(keys(context_dense), tf.string,
                                               shape=[len(context_dense)]),
                context_ragged_keys=tf.constant(keys(context_ragged),
                                                tf.string, shape=[len(context_ragged)]),
                feature_list_sparse_keys=tf.constant(
                    keys(list_sparse), tf.string, shape=[len(list_sparse)]),
                feature_list_dense_keys=tf.constant(
                    keys(list_dense), tf.string, shape=[len(list_dense)]),
                feature_list_ragged_keys=tf.constant(
                    keys(list_ragged), tf.string, shape=[len(list_ragged)]),
                feature_list_dense_missing_assumed_empty=tf.constant(
                    missing_mask, tf.bool, shape=[len(missing_mask)]),
                context_dense_defaults=defaults,
                context_ragged_value_types=[t for _, t in context_ragged],
                context_ragged_split_types=[split] * len(context_ragged),
                feature_list_ragged_value_types=[t for _, t in list_ragged],
                feature_list_ragged_split_types=[split] * len(list_ragged),
                **common)
        else:
            out = RAW.ParseSequenceExample(
                serialized=ser, debug_name=names_t,
                context_dense_defaults=defaults,
                feature_list_dense_missing_assumed_empty=list(missing),
                context_sparse_keys=keys(context_sparse),
                context_dense_keys=keys(context_dense),
                feature_list_sparse_keys=keys(list_sparse),
                feature_list_dense_keys=keys(list_dense),
                Ncontext_dense=len(context_dense), **common)
        return tf.nest.flatten(out), {ser: ser_v}
    case(("v2_" if v2 else "batch_") + name, build, note=note)


def batch_cases():
    f32, i64, s = tf.float32, tf.int64, tf.string
    for v2 in (False, True):
        batch("every_dtype", [EX_A, EX_B],
              context_dense=[("length", i64, [], None),
                             ("score", f32, [2], [0.0, -1.0]),
                             ("tag", s, [], None)],
              context_sparse=[("ids", i64), ("nothing", s)],
              list_dense=[("tokens", i64, [2]), ("weights", f32, [1]),
                          ("words", s, [])],
              list_sparse=[("sparse_f", f32), ("sparse_s", s),
                           ("empty", i64)],
              names=["first", "second"], v2=v2)
        # The batch parsers take a key once per kind of feature.
        batch("dense_and_sparse", [EX_A],
              context_dense=[("score", f32, [2], None)],
              context_sparse=[("score", f32)], v2=v2)
        batch("list_dense_and_sparse", [EX_A],
              list_dense=[("tokens", i64, [2])],
              list_sparse=[("tokens", i64)], v2=v2)
        batch("missing_assumed_empty", [EX_A, EX_B, EX_EMPTY],
              list_dense=[("tokens", i64, [2]), ("absent", f32, [])],
              missing=["tokens", "absent"], v2=v2)
        batch("empty_batch", np.zeros([0], object),
              context_dense=[("score", f32, [2], [1.0, 2.0])],
              context_sparse=[("ids", i64)],
              list_dense=[("tokens", i64, [2])], list_sparse=[("words", s)],
              missing=["tokens"], v2=v2)
        batch("one_example", [EX_B],
              context_dense=[("length", i64, [1], None)],
              list_dense=[("words", s, [1])], v2=v2)
        # Errors.
        batch("required_context_missing", [EX_A, EX_B],
              context_dense=[("score", f32, [2], None)], v2=v2)
        batch("required_list_missing", [EX_A, EX_B],
              list_dense=[("weights", f32, [1]), ("absent", f32, [])],
              names=["n0", "n1"], v2=v2)
        batch("list_step_wrong_length", [EX_A, EX_B],
              list_dense=[("sparse_f", f32, [])], names=["n0", "n1"], v2=v2)
        batch("list_wrong_length", [EX_A], list_dense=[("tokens", i64, [3])],
              v2=v2)
        batch("context_wrong_length", [EX_B, EX_A],
              context_dense=[("score", f32, [1], [0.0])], v2=v2)
        batch("list_wrong_type", [EX_A], list_dense=[("tokens", f32, [2])],
              v2=v2)
        batch("context_wrong_type", [EX_A], context_sparse=[("tag", i64)],
              v2=v2)
        batch("malformed", [EX_A, MALFORMED],
              context_dense=[("score", f32, [2], [0.0, 0.0])], v2=v2)
        batch("names_wrong_length", [EX_A, EX_B], names=["only_one"],
              context_dense=[("length", i64, [], None)], v2=v2)
    # V2 only: a scalar input (no batch dim), ragged features.
    batch("scalar", EX_A, context_dense=[("score", f32, [2], None)],
          context_sparse=[("ids", i64)], list_dense=[("tokens", i64, [2])],
          list_sparse=[("sparse_s", s)], v2=True)
    for split in (tf.int32, tf.int64):
        batch("ragged_" + split.name, [EX_A, EX_B, EX_EMPTY],
              context_ragged=[("ids", i64), ("tag", s), ("score", f32)],
              list_ragged=[("sparse_f", f32), ("sparse_s", s),
                           ("tokens", i64), ("empty", f32)],
              split=split, v2=True)
    batch("ragged_wrong_type", [EX_A], list_ragged=[("tokens", s)], v2=True)

    def mask_wrong_length():
        ser, ser_v = placeholder(np.array([EX_A], dtype=object),
                                 name="serialized")
        out = RAW.ParseSequenceExampleV2(
            serialized=ser, debug_name=tf.constant([], tf.string),
            context_sparse_keys=tf.constant([], tf.string),
            context_dense_keys=tf.constant([], tf.string),
            context_ragged_keys=tf.constant([], tf.string),
            feature_list_sparse_keys=tf.constant([], tf.string),
            feature_list_dense_keys=tf.constant(["tokens"]),
            feature_list_ragged_keys=tf.constant([], tf.string),
            feature_list_dense_missing_assumed_empty=tf.constant([], tf.bool),
            context_dense_defaults=[], Nfeature_list_dense=1,
            feature_list_dense_types=[tf.int64],
            feature_list_dense_shapes=[[2]])
        return tf.nest.flatten(out), {ser: ser_v}
    case("v2_missing_mask_wrong_length", mask_wrong_length)


def public_api_cases():
    """The graphs tf.io's SequenceExample parsers build."""
    def parse_single():
        ser, ser_v = placeholder(np.array(EX_A, dtype=object),
                                 name="serialized")
        ctx, lists = tf.io.parse_single_sequence_example(
            ser,
            context_features={
                "score": tf.io.FixedLenFeature([2], tf.float32),
                "missing": tf.io.FixedLenFeature([], tf.int64,
                                                 default_value=-1),
                "ids": tf.io.VarLenFeature(tf.int64)},
            sequence_features={
                "tokens": tf.io.FixedLenSequenceFeature([2], tf.int64),
                "words": tf.io.FixedLenSequenceFeature(
                    [], tf.string, allow_missing=True),
                "sparse_f": tf.io.VarLenFeature(tf.float32)},
            example_name="api")
        out = [ctx["score"], ctx["missing"], ctx["ids"].indices,
               ctx["ids"].values, ctx["ids"].dense_shape, lists["tokens"],
               lists["words"], lists["sparse_f"].indices,
               lists["sparse_f"].values, lists["sparse_f"].dense_shape]
        return out, {ser: ser_v}
    case("api_parse_single_sequence_example", parse_single)

    def parse_batch():
        ser, ser_v = placeholder(np.array([EX_A, EX_B], dtype=object),
                                 name="serialized")
        ctx, lists, lengths = tf.io.parse_sequence_example(
            ser,
            context_features={
                "length": tf.io.FixedLenFeature([], tf.int64),
                "tag": tf.io.VarLenFeature(tf.string)},
            sequence_features={
                "tokens": tf.io.FixedLenSequenceFeature([2], tf.int64),
                "weights": tf.io.FixedLenSequenceFeature([], tf.float32),
                "sparse_s": tf.io.VarLenFeature(tf.string)})
        out = [ctx["length"], ctx["tag"].values, ctx["tag"].indices,
               lists["tokens"], lists["weights"], lengths["tokens"],
               lengths["weights"], lists["sparse_s"].values,
               lists["sparse_s"].indices, lists["sparse_s"].dense_shape]
        return out, {ser: ser_v}
    case("api_parse_sequence_example", parse_batch)


# --------------------------------------------------------------------------
# The sparse-tensors map and DeserializeManySparse


def i64(v):
    return tf.constant(np.asarray(v, np.int64))


def parts(name, sparse):
    """A Take's three outputs as steps_case keys name_i, name_v, name_s."""
    i, v, sh = sparse
    return {name + "_i": i, name + "_v": v, name + "_s": sh}


def keys(name):
    return [name + "_i", name + "_v", name + "_s"]


def map_cases():
    def add_then_take(dtype, values):
        def build():
            v = tf.constant(values, dtype)
            a = RAW.AddSparseToTensorsMap(
                sparse_indices=i64([[0, 1], [2, 0]]), sparse_values=v,
                sparse_shape=i64([3, 4]), shared_name="m")
            # After a: handles count in the order the adds run.
            with tf.control_dependencies([a]):
                b = RAW.AddSparseToTensorsMap(
                    sparse_indices=i64([[1, 3]]), sparse_values=v[:1],
                    sparse_shape=i64([2, 5]), shared_name="m")
            take = RAW.TakeManySparseFromTensorsMap(
                sparse_handles=i64([1, 0]), dtype=dtype, shared_name="m")
            return {"a": a, "b": b, **parts("take", take)}
        steps_case(folder(), "add_then_take_" + dtype.name, build,
                   [["a", "b"], keys("take"), keys("take")])
    add_then_take(tf.float32, [1.5, -2.5])
    add_then_take(tf.int64, [10, 20])
    add_then_take(tf.string, [b"p", b"q"])
    add_then_take(tf.bool, [True, False])
    add_then_take(tf.int32, [3, 4])

    def add_many(name, indices, values, shape, take_handles, dtype=tf.float32):
        def build():
            h = RAW.AddManySparseToTensorsMap(
                sparse_indices=i64(indices),
                sparse_values=tf.constant(values, dtype,
                                          shape=[len(values)]),
                sparse_shape=i64(shape), shared_name="many")
            take = RAW.TakeManySparseFromTensorsMap(
                sparse_handles=i64(take_handles), dtype=dtype,
                shared_name="many")
            return {"add": h, **parts("take", take)}
        steps_case(folder(), "add_many_" + name, build,
                   [["add"], keys("take")])
    # Rows with entries get handles first (0 and 1), the empty row last.
    add_many("rows", [[0, 1], [2, 0]], [1.0, 2.0], [3, 4], [0, 2, 1])
    add_many("rank3", [[0, 0, 1], [0, 1, 0], [1, 1, 1]], [1, 2, 3],
             [2, 2, 2], [1, 0], dtype=tf.int64)
    add_many("empty", np.zeros([0, 2], np.int64), [], [3, 2], [2, 1, 0])
    add_many("strings", [[0, 0], [1, 1]], [b"s", b"t"], [2, 3], [0, 1],
             dtype=tf.string)
    # Errors: InvalidArgument, as TensorFlow.
    add_many("rank1", [[0]], [1.0], [2], [0])
    add_many("out_of_order", [[1, 0], [0, 1]], [1.0, 2.0], [2, 2], [0])
    add_many("out_of_bounds", [[0, 5]], [1.0], [2, 2], [0])
    add_many("take_unknown_handle", [[0, 0]], [1.0], [1, 1], [0, 7])
    add_many("take_twice_in_one_call", [[0, 0]], [1.0], [1, 1], [0, 0])

    def errors():
        v = tf.constant([1.0])
        a1 = RAW.AddSparseToTensorsMap(sparse_indices=i64([[0]]),
                                       sparse_values=v, sparse_shape=i64([2]),
                                       shared_name="e")
        with tf.control_dependencies([a1]):  # handles 0 then 1
            a2 = RAW.AddSparseToTensorsMap(sparse_indices=i64([[0, 0]]),
                                           sparse_values=v,
                                           sparse_shape=i64([2, 2]),
                                           shared_name="e")
        mixed = RAW.TakeManySparseFromTensorsMap(
            sparse_handles=i64([0, 1]), dtype=tf.float32, shared_name="e")
        a3 = RAW.AddSparseToTensorsMap(sparse_indices=i64([[0]]),
                                       sparse_values=v, sparse_shape=i64([2]),
                                       shared_name="e")
        wrong_dtype = RAW.TakeManySparseFromTensorsMap(
            sparse_handles=i64([2]), dtype=tf.int64, shared_name="e")
        empty = RAW.TakeManySparseFromTensorsMap(
            sparse_handles=tf.zeros([0], tf.int64), dtype=tf.float32,
            shared_name="e")
        matrix = RAW.TakeManySparseFromTensorsMap(
            sparse_handles=tf1.placeholder_with_default(i64([[0]]), None),
            dtype=tf.float32, shared_name="e")
        bad_add = RAW.AddSparseToTensorsMap(
            sparse_indices=i64([[0, 0]]), sparse_values=tf.constant([1., 2.]),
            sparse_shape=i64([2, 2]), shared_name="e")
        bad_rank = RAW.AddSparseToTensorsMap(
            sparse_indices=i64([[0, 0]]), sparse_values=v,
            sparse_shape=i64([2, 2, 2]), shared_name="e")
        other = RAW.TakeManySparseFromTensorsMap(
            sparse_handles=i64([0]), dtype=tf.float32, container="other",
            shared_name="e")
        return {"a1": a1, "a2": a2, **parts("mixed", mixed), "a3": a3,
                **parts("wrong_dtype", wrong_dtype), **parts("empty", empty),
                **parts("matrix", matrix), "bad_add": bad_add,
                "bad_rank": bad_rank, **parts("other", other)}
    steps_case(folder(), "map_errors", errors,
               [["a1", "a2"], keys("other"), keys("mixed"), ["a3"],
                keys("wrong_dtype"), keys("empty"), keys("matrix"),
                ["bad_add"], ["bad_rank"]])

    def unnamed():
        # An Add without shared_name stores under its node name; a Take
        # without one finds a map of its own, empty.
        a = RAW.AddSparseToTensorsMap(sparse_indices=i64([[0]]),
                                      sparse_values=tf.constant([4.0]),
                                      sparse_shape=i64([1]), name="store")
        by_name = RAW.TakeManySparseFromTensorsMap(
            sparse_handles=i64([0]), dtype=tf.float32, shared_name="store")
        anonymous = RAW.TakeManySparseFromTensorsMap(
            sparse_handles=i64([0]), dtype=tf.float32)
        return {"a": a, **parts("by_name", by_name),
                **parts("anonymous", anonymous)}
    steps_case(folder(), "map_shared_name_defaults", unnamed,
               [["a"], keys("anonymous"), keys("by_name")])

    def train_batch():
        # tf.compat.v1.train.batch on a SparseTensor: the enqueue op stores
        # the SparseTensor in the map, the dequeue takes it back.
        step = tf1.placeholder_with_default(i64(0), [])
        sp = tf.SparseTensor(indices=i64([[0], [2]]),
                             values=tf.stack([tf.cast(step, tf.float32) + 1.0,
                                              -1.0]),
                             dense_shape=i64([4]))
        counter = tf1.Variable(0, dtype=tf.int64, use_resource=False,
                               name="counter")
        bump = tf1.assign_add(counter, 1)
        with tf.control_dependencies([bump]):
            sp = tf.sparse.add(sp, tf.SparseTensor(
                indices=i64([[1]]), values=tf.cast(tf.reshape(bump, [1]),
                                                   tf.float32),
                dense_shape=i64([4])))
        batched = tf1.train.batch([sp], batch_size=2, capacity=4)
        runner = tf1.get_collection(tf1.GraphKeys.QUEUE_RUNNERS)[0]
        return {"init": counter.initializer,
                "enqueue": runner.enqueue_ops[0],
                "indices": batched.indices, "values": batched.values,
                "shape": batched.dense_shape}
    steps_case(folder(), "train_batch_sparse", train_batch,
               [["init"], ["enqueue"], ["enqueue"],
                ["indices", "values", "shape"]])

    def deserialize(name, dtype, values, rows, shape):
        def build():
            ser = RAW.SerializeManySparse(
                sparse_indices=i64(rows),
                sparse_values=tf.constant(values, dtype, shape=[len(values)]),
                sparse_shape=i64(shape))
            return tf.nest.flatten(RAW.DeserializeManySparse(
                serialized_sparse=ser, dtype=dtype)), {}
        case("deserialize_many_" + name, build)
    deserialize("float", tf.float32, [1.0, 2.0, 3.0],
                [[0, 1], [0, 3], [2, 0]], [3, 4])
    deserialize("int64", tf.int64, [5, 6], [[0, 0, 1], [1, 1, 0]], [2, 2, 2])
    deserialize("string", tf.string, [b"u", b"v"], [[1, 1], [1, 2]], [2, 3])
    deserialize("empty_rows", tf.float32, [], np.zeros([0, 2], np.int64),
                [3, 2])

    def deserialize_bad(name, serialized, dtype=tf.float32):
        def build():
            # Of unknown shape: TensorFlow's shape function rejects a known
            # bad one at import.
            ser = tf1.placeholder(tf.string, shape=None, name="serialized")
            ser_v = serialized
            return tf.nest.flatten(RAW.DeserializeManySparse(
                serialized_sparse=ser, dtype=dtype)), {ser: ser_v}
        case("deserialize_many_" + name, build)
    deserialize_bad("not_matrix", strings([b"a", b"b", b"c"]))
    deserialize_bad("two_columns", strings([[b"a", b"b"]]))
    deserialize_bad("garbage", strings([[b"a", b"b", b"c"]]))

    def deserialize_wrong_dtype():
        ser = RAW.SerializeManySparse(
            sparse_indices=i64([[0, 0]]), sparse_values=tf.constant([1.0]),
            sparse_shape=i64([1, 1]))
        return tf.nest.flatten(RAW.DeserializeManySparse(
            serialized_sparse=ser, dtype=tf.int64)), {}
    case("deserialize_many_wrong_dtype", deserialize_wrong_dtype)


def main():
    single_cases()
    batch_cases()
    public_api_cases()
    map_cases()
    # Last: the first case empties the family's folder.
    golden_lib.write_op_defs(FAMILY, OP_NAMES,
                             type_attrs={"TakeManySparseFromTensorsMap":
                                         "dtype",
                                         "DeserializeManySparse": "dtype"})


if __name__ == "__main__":
    main()

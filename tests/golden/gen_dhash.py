"""Golden cases of the dhash family: dense hash tables
(MutableDenseHashTableV2, tf.lookup.experimental.DenseHashTable) driven by
the LookupTable*V2 ops, MutableHashTableOfTensors (the v1 form of
MutableHashTableOfTensorsV2) and InitializeTableFromDataset
(tf.data.experimental.DatasetInitializer), and the Anonymous* table ops (a
new table on every run, living as long as its handle: within a step), as
TensorFlow 2.21 runs them.

    $(tools/tf_env) tests/golden/gen_dhash.py

Tables keep state between steps, so the cases are multi-step
(golden_lib.steps_case): one graph, then steps run one after another in one
session, each with TensorFlow's outputs or error. LookupTableExportV2 of a
dense table gives its bucket arrays (free and deleted buckets included), so
its goldens compare dfx's bucket order with TensorFlow's bit for bit: the
same hashes (the integer itself, TensorFlow's Hash64 of a string,
Hash64Combine over a vector key), probes and growth.

Left out because TensorFlow's own kernel crashes on them (dfx answers
InvalidArgument; tests/kernels/dhash_test.cc checks it): LookupTableRemoveV2
of a scalar key on a dense table (TensorFlow reads dim 0 of a scalar), and
LookupTableImportV2 of dense bucket arrays that are not a [num_buckets, key
size] matrix or have no bucket (TensorFlow's matrix<K>() check fails, or it
probes an empty array). Values of int64 -> variant and string -> resource
dense tables, which TensorFlow registers, are not tables dfx holds.

Besides the cases the generator writes the ops' signatures
(tf_op_defs.pbtxt, tf_cpu_kernels.txt), which tests/kernels/dhash_test.cc
compares with dfx's registry.
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import golden_lib  # noqa: E402
from golden_lib import steps_case, tf  # noqa: E402

FAMILY = "dhash"
RAW = tf.raw_ops

OP_NAMES = ["MutableDenseHashTableV2", "MutableDenseHashTable",
            "MutableHashTableOfTensors", "InitializeTableFromDataset",
            "AnonymousHashTable", "AnonymousMutableHashTable",
            "AnonymousMutableHashTableOfTensors",
            "AnonymousMutableDenseHashTable"]


def folder():
    return golden_lib.family_folder(FAMILY)


def const(v, dtype):
    if dtype == tf.string:
        return tf.constant(np.asarray(v, dtype=object), dtype=tf.string)
    return tf.constant(np.asarray(v, dtype=dtype.as_numpy_dtype))


def unknown(t):
    return tf.compat.v1.placeholder_with_default(t, shape=None)


def dense(kt, vt, empty, deleted, value_shape=(), buckets=8, load=0.8,
          name=None):
    if not isinstance(empty, tf.Tensor):
        empty, deleted = const(empty, kt), const(deleted, kt)
    return RAW.MutableDenseHashTableV2(
        empty_key=empty, deleted_key=deleted,
        value_dtype=vt, value_shape=list(value_shape),
        initial_num_buckets=buckets, max_load_factor=load, name=name)


def insert(t, keys, values, kt, vt):
    return RAW.LookupTableInsertV2(table_handle=t, keys=const(keys, kt),
                                   values=const(values, vt))


def find(t, keys, default, kt, vt):
    return RAW.LookupTableFindV2(table_handle=t, keys=const(keys, kt),
                                 default_value=const(default, vt))


def remove(t, keys, kt):
    return RAW.LookupTableRemoveV2(table_handle=t, keys=const(keys, kt))


def export(t, kt, vt):
    return RAW.LookupTableExportV2(table_handle=t, Tkeys=kt, Tvalues=vt)


def size(t):
    return RAW.LookupTableSizeV2(table_handle=t)


# (key dtype, value dtype): every pair TensorFlow's CPU kernels serve but
# int64 -> variant and string -> resource.
PAIRS = [(tf.int32, tf.float64), (tf.int32, tf.float32), (tf.int32, tf.int32),
         (tf.int64, tf.bool), (tf.int64, tf.float64), (tf.int64, tf.float32),
         (tf.int64, tf.int32), (tf.int64, tf.int64), (tf.string, tf.bool),
         (tf.string, tf.float64), (tf.string, tf.float32),
         (tf.string, tf.int32), (tf.string, tf.int64)]

INT_KEYS = [7, -3, 12, 0, 2**20 + 5]
STR_KEYS = ["apple", "banana", "", "cherry", "a longer key of many bytes"]


def keys_of(kt):
    if kt == tf.string:
        return STR_KEYS, "<empty>", "<deleted>", ["banana", "zz", ""]
    if kt == tf.int32:
        return INT_KEYS, -1, -2, [12, 99, 0]
    return [k * 1000003 for k in INT_KEYS], -1, -2, [12000036, 99, 0]


def values_of(vt):
    if vt == tf.bool:
        return [True, False, True, True, False], False
    if vt in (tf.float32, tf.float64):
        return [0.5, -1.25, 3e8, 7.0, -0.0], np.nan
    return [10, -20, 30, 40, 2**30], -1


def dtype_cases():
    for kt, vt in PAIRS:
        keys, empty, deleted, query = keys_of(kt)
        values, default = values_of(vt)

        def build(kt=kt, vt=vt, keys=keys, empty=empty, deleted=deleted,
                  query=query, values=values, default=default):
            t = dense(kt, vt, empty, deleted)
            ek, ev = export(t, kt, vt)
            return {"insert": insert(t, keys, values, kt, vt),
                    "find": find(t, query, default, kt, vt),
                    "size": size(t), "ek": ek, "ev": ev}
        steps_case(folder(), f"dtypes_{kt.name}_{vt.name}", build,
                   [["size"], ["insert"], ["find", "size", "ek", "ev"]])


def vector_cases():
    def values():
        t = dense(tf.int64, tf.float32, -1, -2, value_shape=[3])
        ek, ev = export(t, tf.int64, tf.float32)
        return {"insert": insert(t, [5, 6], [[1, 2, 3], [4, 5, 6]],
                                 tf.int64, tf.float32),
                "find": find(t, [6, 9, 5], [-1, -2, -3], tf.int64,
                             tf.float32),
                # A default per key: TensorFlow's dense table takes the
                # first row for every missing key.
                "find_full": find(t, [9, 5], [[7, 7, 7], [8, 8, 8]],
                                  tf.int64, tf.float32),
                "find_scalar_key": find(t, 6, [0, 0, 0], tf.int64,
                                        tf.float32),
                "ek": ek, "ev": ev, "size": size(t)}
    steps_case(folder(), "vector_values", values,
               [["insert"], ["find", "find_full", "find_scalar_key"],
                ["ek", "ev", "size"]])

    def int_keys():
        t = dense(tf.int64, tf.int32, [-1, -1], [-2, -2], buckets=4)
        ek, ev = export(t, tf.int64, tf.int32)
        return {"insert": insert(t, [[1, 2], [3, 4], [2, 1]], [12, 34, 21],
                                 tf.int64, tf.int32),
                "insert2": insert(t, [[1, 2], [-1, 0]], [120, 10], tf.int64,
                                  tf.int32),
                "remove": remove(t, [[3, 4], [9, 9]], tf.int64),
                "find": find(t, [[2, 1], [3, 4], [1, 2]], -7, tf.int64,
                             tf.int32),
                "ek": ek, "ev": ev, "size": size(t)}
    steps_case(folder(), "vector_int64_keys", int_keys,
               [["insert"], ["ek", "ev", "size"], ["insert2"],
                ["ek", "ev", "size"], ["remove"], ["find", "ek", "ev",
                                                   "size"]])

    def str_keys():
        t = dense(tf.string, tf.float64, ["", ""], ["-", "-"],
                  value_shape=[2], buckets=16)
        ek, ev = export(t, tf.string, tf.float64)
        return {"insert": insert(t, [["a", "b"], ["b", "a"], ["", "x"]],
                                 [[1, 2], [3, 4], [5, 6]], tf.string,
                                 tf.float64),
                "find": find(t, [["b", "a"], ["a", "a"]], [0, -1],
                             tf.string, tf.float64),
                "ek": ek, "ev": ev, "size": size(t)}
    steps_case(folder(), "vector_string_keys", str_keys,
               [["insert"], ["find", "ek", "ev", "size"]])


def growth_cases():
    def grow():
        t = dense(tf.int64, tf.int64, 0, -1, buckets=4, load=0.5)
        ek, ev = export(t, tf.int64, tf.int64)
        return {"i1": insert(t, [1, 2], [10, 20], tf.int64, tf.int64),
                "i2": insert(t, [3], [30], tf.int64, tf.int64),
                "i3": insert(t, list(range(4, 12)),
                             list(range(40, 120, 10)), tf.int64, tf.int64),
                # Keys already present still count as new when growing.
                "i4": insert(t, [1, 2, 3, 4, 5, 6, 7], [0] * 7, tf.int64,
                             tf.int64),
                "find": find(t, [1, 5, 11, 12], -5, tf.int64, tf.int64),
                "ek": ek, "ev": ev, "size": size(t)}
    steps_case(folder(), "growth_past_max_load_factor", grow,
               [["i1"], ["ek", "size"], ["i2"], ["ek", "ev", "size"], ["i3"],
                ["ek", "ev", "size"], ["i4"], ["find", "ek", "ev", "size"]])

    def default_buckets():
        # TensorFlow's defaults: 131072 buckets, too many for a golden
        # file; the size and finds show them.
        t = RAW.MutableDenseHashTableV2(
            empty_key=const("", tf.string), deleted_key=const("$",
                                                              tf.string),
            value_dtype=tf.int64)
        return {"insert": insert(t, ["x", "y"], [1, 2], tf.string, tf.int64),
                "find": find(t, ["y", "z"], 0, tf.string, tf.int64),
                "size": size(t)}
    steps_case(folder(), "default_attrs", default_buckets,
               [["insert"], ["find", "size"]])


def python_api_cases():
    def api():
        # What tf.lookup.experimental.DenseHashTable builds.
        table = tf.lookup.experimental.DenseHashTable(
            key_dtype=tf.int64, value_dtype=tf.float32, default_value=-1.0,
            empty_key=0, deleted_key=-1, initial_num_buckets=8)
        keys, values = table.export()
        return {"insert": table.insert(const([11, 22, 33], tf.int64),
                                       const([1.5, 2.5, 3.5], tf.float32)),
                "erase": table.erase(const([22], tf.int64)),
                "find": table.lookup(const([11, 22, 33, 44], tf.int64)),
                "size": table.size(), "keys": keys, "values": values}
    steps_case(folder(), "python_dense_hash_table", api,
               [["insert"], ["find", "size"], ["erase"],
                ["find", "size", "keys", "values"]])


def remove_cases():
    def remove_reinsert():
        t = dense(tf.int32, tf.float32, -1, -2, buckets=8)
        ek, ev = export(t, tf.int32, tf.float32)
        return {"insert": insert(t, [1, 9, 17, 2], [1, 9, 17, 2], tf.int32,
                                 tf.float32),
                "remove": remove(t, [9, 100], tf.int32),
                "remove_again": remove(t, [9, 1], tf.int32),
                # 17 collides with 1 and 9: it lands in a deleted bucket.
                "reinsert": insert(t, [9, 25], [-9, -25], tf.int32,
                                   tf.float32),
                "remove_empty": remove(t, np.zeros([0], np.int32),
                                       tf.int32),
                "find": find(t, [1, 9, 17, 25, 2], 0.5, tf.int32,
                             tf.float32),
                "ek": ek, "ev": ev, "size": size(t)}
    steps_case(folder(), "remove_then_reinsert", remove_reinsert,
               [["insert"], ["remove"], ["find", "ek", "ev", "size"],
                ["remove_again"], ["ek", "size"], ["reinsert"],
                ["find", "ek", "ev", "size"], ["remove_empty"], ["size"]])


def import_cases():
    def round_trip():
        a = dense(tf.string, tf.int64, "", "#", buckets=8)
        b = dense(tf.string, tf.int64, "", "#", buckets=4)
        ek, ev = export(a, tf.string, tf.int64)
        bk, bv = export(b, tf.string, tf.int64)
        return {"insert": insert(a, ["p", "q", "r"], [1, 2, 3], tf.string,
                                 tf.int64),
                "remove": remove(a, ["q"], tf.string),
                "import": RAW.LookupTableImportV2(table_handle=b, keys=ek,
                                                  values=ev),
                "find": find(b, ["p", "q", "r", "s"], -1, tf.string,
                             tf.int64),
                "grow": insert(b, ["s", "t", "u", "v", "w"], [4, 5, 6, 7, 8],
                               tf.string, tf.int64),
                "bk": bk, "bv": bv, "size": size(b)}
    steps_case(folder(), "export_import_round_trip", round_trip,
               [["insert"], ["remove"], ["import"], ["find", "bk", "bv",
                                                     "size"],
                ["grow"], ["find", "bk", "bv", "size"]])

    def import_values():
        t = dense(tf.int64, tf.float64, -1, -2, value_shape=[2], buckets=4)
        ek, ev = export(t, tf.int64, tf.float64)
        # Of unknown static shape: TensorFlow's shape function wants the
        # [n] keys of an insert, its kernel the [n, 1] bucket matrix.
        keys = unknown(const([[-1], [5], [-2], [-1], [-1], [-1], [3], [-1]],
                             tf.int64))
        values = unknown(const(np.arange(16).reshape(8, 2), tf.float64))
        return {"import": RAW.LookupTableImportV2(table_handle=t, keys=keys,
                                                  values=values),
                "bad_values": RAW.LookupTableImportV2(
                    table_handle=t, keys=keys,
                    values=const(np.zeros([8, 3]), tf.float64)),
                "find": find(t, [3, 5, 4], [0, 0], tf.int64, tf.float64),
                "ek": ek, "ev": ev, "size": size(t)}
    steps_case(folder(), "import_bucket_arrays", import_values,
               [["import"], ["find", "ek", "ev", "size"], ["bad_values"],
                ["size"]])


def error_cases():
    def reserved_keys():
        t = dense(tf.int64, tf.int64, -1, -2)
        return {"ok": insert(t, [1], [10], tf.int64, tf.int64),
                "empty": insert(t, [3, -1], [30, 0], tf.int64, tf.int64),
                "deleted": insert(t, [-2], [0], tf.int64, tf.int64),
                "find_empty": find(t, [1, -1], 0, tf.int64, tf.int64),
                "find_deleted": find(t, [-2], 0, tf.int64, tf.int64),
                "remove_empty": remove(t, [-1], tf.int64),
                "remove_deleted": remove(t, [1, -2], tf.int64),
                "find": find(t, [1, 3], 0, tf.int64, tf.int64),
                "size": size(t)}
    # Keys before the empty key in a batch are inserted (or removed).
    steps_case(folder(), "reserved_keys", reserved_keys,
               [["ok"], ["empty"], ["deleted"], ["find_empty"],
                ["find_deleted"], ["remove_empty"], ["remove_deleted"],
                ["find", "size"]])

    def bad_arguments():
        # Handles without TensorFlow's handle data, whose shape functions
        # would refuse these graphs: the kernels' errors are the goldens.
        t = unknown(dense(tf.int64, tf.float32, -1, -2))
        v = unknown(dense(tf.int64, tf.float32, [-1, -1], [-2, -2]))
        return {
            "key_dtype": RAW.LookupTableFindV2(
                table_handle=t, keys=const([1], tf.int32),
                default_value=const(0, tf.float32)),
            "value_dtype": RAW.LookupTableInsertV2(
                table_handle=t, keys=const([1], tf.int64),
                values=const([1], tf.float64)),
            "value_shape": insert(t, [1, 2], [[1, 2], [3, 4]], tf.int64,
                                  tf.float32),
            "matrix_keys": insert(t, [[1, 2], [3, 4]], [[1, 2], [3, 4]],
                                  tf.int64, tf.float32),
            "matrix_find": find(t, [[1, 2]], 0, tf.int64, tf.float32),
            "default_shape": find(t, [1, 2], [0, 0, 0], tf.int64,
                                  tf.float32),
            "key_shape": insert(v, [[1, 2, 3]], [1], tf.int64, tf.float32),
            "key_shape_find": find(v, [1, 2, 3], 0, tf.int64, tf.float32),
            "size": size(t)}
    steps_case(folder(), "bad_arguments", bad_arguments,
               [["key_dtype"], ["value_dtype"], ["value_shape"],
                ["matrix_keys"], ["matrix_find"], ["default_shape"],
                ["key_shape"], ["key_shape_find"], ["size"]])

    def bad_table(name, kt, empty, deleted, **kw):
        def build():
            e, d = (empty(), deleted()) if callable(empty) else (empty,
                                                                 deleted)
            t = dense(kt, tf.float32, e, d, **kw)
            return {"size": size(t)}
        steps_case(folder(), name, build, [["size"], ["size"]])
    bad_table("error_buckets_not_power_of_two", tf.int64, -1, -2, buckets=12)
    bad_table("error_buckets_too_few", tf.int64, -1, -2, buckets=2)
    bad_table("error_max_load_factor", tf.int64, -1, -2, load=1.0)
    bad_table("error_max_load_factor_zero", tf.int64, -1, -2, load=0.0)
    bad_table("error_empty_equals_deleted", tf.string, "x", "x")
    bad_table("error_key_shapes_differ", tf.int64, [-1, -1], [-2])
    # (Of unknown static shape: TensorFlow's shape function refuses a
    # matrix.)
    bad_table("error_matrix_empty_key", tf.int64,
              lambda: unknown(const([[-1]], tf.int64)),
              lambda: unknown(const([[-2]], tf.int64)))
    bad_table("error_matrix_value_shape", tf.int64, -1, -2,
              value_shape=[2, 2])

    def v1_table():
        # The v1 op has no deleted_key input, which TensorFlow's kernel
        # reads: it always fails.
        t = RAW.MutableDenseHashTable(empty_key=const(-1, tf.int64),
                                      value_dtype=tf.float32,
                                      initial_num_buckets=8)
        return {"size": RAW.LookupTableSize(table_handle=t)}
    steps_case(folder(), "v1_mutable_dense_hash_table", v1_table,
               [["size"]])


def tensors_v1_cases():
    def tensors():
        t = RAW.MutableHashTableOfTensors(key_dtype=tf.string,
                                          value_dtype=tf.int64,
                                          value_shape=[2])
        ins = RAW.LookupTableInsert(table_handle=t, keys=const(["a", "b"],
                                                               tf.string),
                                    values=const([[1, 2], [3, 4]], tf.int64))
        fnd = RAW.LookupTableFind(table_handle=t,
                                  keys=const(["b", "c", "a"], tf.string),
                                  default_value=const([0, -1], tf.int64))
        imp = RAW.LookupTableImport(table_handle=t, keys=const(["z"],
                                                               tf.string),
                                    values=const([[9, 9]], tf.int64))
        bad = RAW.LookupTableInsert(table_handle=t, keys=const(["a"],
                                                               tf.string),
                                    values=const([1], tf.int64))
        return {"insert": ins, "find": fnd, "import": imp, "bad": bad,
                "size": RAW.LookupTableSize(table_handle=t)}
    steps_case(folder(), "mutable_hash_table_of_tensors_v1", tensors,
               [["size"], ["insert"], ["find", "size"], ["import"],
                ["find", "size"], ["bad"]])


def dataset_cases():
    def from_dataset(name, ds_fn, kt, vt, query, default, steps=None):
        def build():
            t = RAW.HashTableV2(key_dtype=kt, value_dtype=vt)
            ds = ds_fn()
            init = RAW.InitializeTableFromDataset(
                table_handle=t, dataset=ds._variant_tensor)
            return {"init": init, "find": find(t, query, default, kt, vt),
                    "size": size(t)}
        steps_case(folder(), name, build,
                   steps or [["size"], ["find"], ["init"], ["find", "size"],
                             ["init"], ["find", "size"]])

    from_dataset("dataset_string_int64", lambda: tf.data.Dataset.
                 from_tensor_slices((const(["a", "b", "c"], tf.string),
                                     const([1, 2, 3], tf.int64))),
                 tf.string, tf.int64, ["c", "x", "a"], -1)
    from_dataset("dataset_range_map", lambda: tf.data.Dataset.range(6).map(
        lambda x: (x * 3, tf.strings.as_string(x))),
                 tf.int64, tf.string, [0, 3, 4, 15], "?")
    from_dataset("dataset_int32_float", lambda: tf.data.Dataset.
                 from_tensor_slices((const([4, 5], tf.int32),
                                     const([0.5, 1.5], tf.float32))),
                 tf.int32, tf.float32, [5, 6], 0.0)
    from_dataset("dataset_empty", lambda: tf.data.Dataset.
                 from_tensor_slices((const(np.zeros([0]), tf.int64),
                                     const(np.zeros([0]), tf.int64))),
                 tf.int64, tf.int64, [1], 0,
                 steps=[["init"], ["find"], ["size"]])
    from_dataset("dataset_duplicate_keys", lambda: tf.data.Dataset.
                 from_tensor_slices((const([1, 2, 1], tf.int64),
                                     const([10, 20, 30], tf.int64))),
                 tf.int64, tf.int64, [1], 0,
                 steps=[["init"], ["find"], ["size"]])
    from_dataset("dataset_same_duplicate", lambda: tf.data.Dataset.
                 from_tensor_slices((const([1, 2, 1], tf.int64),
                                     const([10, 20, 10], tf.int64))),
                 tf.int64, tf.int64, [1, 2], 0,
                 steps=[["init"], ["find", "size"]])
    # Not here: a dataset whose keys or values are not the table's dtypes,
    # that has other than two components or non-scalar elements. TensorFlow
    # 2.21 checks those first and aborts (std::bad_function_call) on
    # failing; dfx answers InvalidArgument (tests/kernels/dhash_test.cc).

    def not_initializable():
        t = dense(tf.int64, tf.int64, -1, -2)
        ds = tf.data.Dataset.from_tensor_slices((const([1], tf.int64),
                                                 const([1], tf.int64)))
        return {"init": RAW.InitializeTableFromDataset(
            table_handle=t, dataset=ds._variant_tensor), "size": size(t)}
    steps_case(folder(), "dataset_into_dense_table", not_initializable,
               [["init"], ["size"]])

    def initializer():
        # What tf.data.experimental.DatasetInitializer builds.
        ds = tf.data.Dataset.range(4).map(
            lambda x: (tf.strings.as_string(x), x * x))
        table = tf.lookup.StaticHashTable(
            tf.data.experimental.DatasetInitializer(ds), -1)
        return {"init": tf.compat.v1.tables_initializer(),
                "find": table.lookup(const(["3", "0", "9"], tf.string)),
                "size": table.size()}
    steps_case(folder(), "dataset_initializer", initializer,
               [["init"], ["find", "size"]])


def anonymous_cases():
    """Each run makes a new table: filled and read within one step (control
    dependencies order it), empty again in the next."""
    def case(name, make, fill, kt, vt, query, default):
        def build():
            t = make()
            f = fill(t)
            with tf.control_dependencies([f]):
                found = find(t, query, default, kt, vt)
                n = size(t)
            return {"find": found, "size": n, "fresh_size": size(t)}
        steps_case(folder(), name, build,
                   [["find", "size"], ["fresh_size"], ["find", "size"]])

    case("anonymous_hash_table",
         lambda: RAW.AnonymousHashTable(key_dtype=tf.string,
                                        value_dtype=tf.int64),
         lambda t: RAW.InitializeTableV2(table_handle=t,
                                         keys=const(["a", "b"], tf.string),
                                         values=const([1, 2], tf.int64)),
         tf.string, tf.int64, ["b", "z"], -1)
    case("anonymous_mutable_hash_table",
         lambda: RAW.AnonymousMutableHashTable(key_dtype=tf.int64,
                                               value_dtype=tf.float32),
         lambda t: insert(t, [3, 4], [0.5, 1.5], tf.int64, tf.float32),
         tf.int64, tf.float32, [4, 5], 0.0)
    case("anonymous_mutable_hash_table_of_tensors",
         lambda: RAW.AnonymousMutableHashTableOfTensors(
             key_dtype=tf.string, value_dtype=tf.float64, value_shape=[2]),
         lambda t: insert(t, ["x"], [[1, 2]], tf.string, tf.float64),
         tf.string, tf.float64, ["x", "y"], [0, 0])
    case("anonymous_mutable_dense_hash_table",
         lambda: RAW.AnonymousMutableDenseHashTable(
             empty_key=const(-1, tf.int32), deleted_key=const(-2, tf.int32),
             value_dtype=tf.int32, initial_num_buckets=4),
         lambda t: insert(t, [5, 6, 7], [50, 60, 70], tf.int32, tf.int32),
         tf.int32, tf.int32, [7, 8], 0)

    def dense_export():
        t = RAW.AnonymousMutableDenseHashTable(
            empty_key=const("", tf.string), deleted_key=const("-", tf.string),
            value_dtype=tf.bool, value_shape=[2], initial_num_buckets=4)
        ins = insert(t, ["p", "q", "r"], [[True, False], [False, True],
                                          [True, True]], tf.string, tf.bool)
        with tf.control_dependencies([ins]):
            rm = remove(t, ["q"], tf.string)
        with tf.control_dependencies([rm]):
            ek, ev = export(t, tf.string, tf.bool)
        return {"ek": ek, "ev": ev}
    steps_case(folder(), "anonymous_dense_export", dense_export,
               [["ek", "ev"]])

    def bad_buckets():
        t = RAW.AnonymousMutableDenseHashTable(
            empty_key=const(-1, tf.int64), deleted_key=const(-2, tf.int64),
            value_dtype=tf.float32, initial_num_buckets=6)
        return {"size": size(t)}
    steps_case(folder(), "anonymous_dense_bad_buckets", bad_buckets,
               [["size"]])


def main():
    dtype_cases()
    vector_cases()
    growth_cases()
    python_api_cases()
    remove_cases()
    import_cases()
    error_cases()
    tensors_v1_cases()
    dataset_cases()
    anonymous_cases()
    golden_lib.write_op_defs(FAMILY, OP_NAMES)


if __name__ == "__main__":
    main()

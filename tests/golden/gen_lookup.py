"""Golden cases of the lookup family: HashTableV2 (tf.lookup.StaticHashTable,
Keras StringLookup and IntegerLookup), MutableHashTableV2 and the
LookupTable*V2 / InitializeTable*V2 ops, as TensorFlow 2.21 runs them. Also
writes TensorFlow's OpDefs of those ops (tests/golden/data/lookup/
tf_op_defs.pbtxt), which tests/kernels/lookup_test.cc compares byte for byte
with dfx's.

    $(tools/tf_env) tests/golden/gen_lookup.py

Tables keep state between steps, so every case is multi-step (as in
gen_queues.py): one graph, then steps run one after another in one session,
each with its feeds, fetches and targets and TensorFlow's outputs or error
code. A string feed value "@CASE_DIR@/..." names a file of the case's
folder (a vocabulary file); golden_test.cc puts the folder's path in.
"@SCRATCH_DIR@/..." names a file in a fresh directory of each run of the
case, for what a case writes.
"""

import json
import os
import shutil
import sys
import tempfile

import numpy as np

import golden_lib
from golden_lib import tf, tf1

import keras

FAMILY = "lookup"
raw = tf.raw_ops
CASE_DIR = "@CASE_DIR@"
SCRATCH_DIR = "@SCRATCH_DIR@"

OPS = ["HashTableV2", "MutableHashTableV2", "LookupTableImportV2",
       "LookupTableFindV2", "LookupTableInsertV2", "LookupTableRemoveV2",
       "LookupTableSizeV2", "LookupTableExportV2", "InitializeTableV2",
       "InitializeTableFromTextFileV2", "MutableHashTableOfTensorsV2",
       "HashTable", "MutableHashTable",
       "LookupTableFind", "LookupTableInsert", "LookupTableSize",
       "LookupTableExport", "LookupTableImport", "InitializeTable",
       "InitializeTableFromTextFile"]


def family_dir():
    path = os.path.join(golden_lib.DATA_DIR, FAMILY)
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    return path


def flat(t):
    """Scalars come back as [1]."""
    if (isinstance(t, tf.Tensor) and t.shape.rank == 0 and
            t.op.type != "Placeholder"):
        return tf.reshape(t, [1])
    return t


def steps_case(folder, name, build, steps, files=None, note=""):
    """build() returns {key: tensor or op}; steps is a list of (keys, feeds):
    a tensor key is fetched, an op key run as a target; feeds maps a
    placeholder key to its value. files: {name: text} written into the
    case's folder before TensorFlow runs (feed "@CASE_DIR@/name"); a feed
    "@SCRATCH_DIR@/name" names a file in a fresh temporary directory."""
    out_dir = os.path.join(folder, name)
    os.makedirs(out_dir)
    scratch = tempfile.mkdtemp(prefix="dfx_gen_")
    for fname, text in (files or {}).items():
        # A name may hold folders ("saved/<run>/00000000.shard/...").
        os.makedirs(os.path.dirname(os.path.join(out_dir, fname)),
                    exist_ok=True)
        with open(os.path.join(out_dir, fname), "wb") as f:
            f.write(text.encode("utf-8") if isinstance(text, str) else text)

    def real(v):
        if isinstance(v, str) and v.startswith(CASE_DIR):
            return out_dir + v[len(CASE_DIR):]
        if isinstance(v, str) and v.startswith(SCRATCH_DIR):
            return scratch + v[len(SCRATCH_DIR):]
        if isinstance(v, list):  # a vector of file names (gen_readers.py)
            return [real(x) for x in v]
        return v

    graph = tf.Graph()
    with graph.as_default():
        named = build()
        named = {k: flat(v) for k, v in named.items()}
        graph_def = graph.as_graph_def()
        spec = {"name": name, "note": note, "feeds": [], "steps": []}
        results = []
        with tf1.Session(graph=graph,
                         config=golden_lib._session_config()) as sess:
            for keys, feeds in steps:
                fetches = [named[k] for k in keys
                           if isinstance(named[k], tf.Tensor)]
                targets = [named[k] for k in keys
                           if not isinstance(named[k], tf.Tensor)]
                step = {"fetches": [t.name for t in fetches],
                        "targets": [op.name for op in targets],
                        "feeds": []}
                feed_dict = {named[k]: np.asarray(real(v))
                             for k, v in feeds.items()}
                try:
                    out = sess.run([fetches, targets], feed_dict)[0]
                    results.append(out)
                except tf.errors.OpError as err:
                    code = golden_lib._CODE_NAMES.get(type(err).__name__,
                                                      type(err).__name__)
                    step["error"] = {
                        "code": code,
                        # The case's folder as the feeds name it, not
                        # where this run wrote it.
                        "message": golden_lib._clean_message(
                            err.message).replace(out_dir, CASE_DIR)
                        .replace(scratch, SCRATCH_DIR)[:300]}
                    results.append(None)
                step["_feeds"] = feeds
                spec["steps"].append(step)
    shutil.rmtree(scratch)
    with open(os.path.join(out_dir, "graph.pb"), "wb") as f:
        f.write(graph_def.SerializeToString(deterministic=True))
    for s, (step, out) in enumerate(zip(spec["steps"], results)):
        for i, (k, v) in enumerate(step.pop("_feeds").items()):
            fname, dtype = golden_lib.save_value(out_dir, f"feed_{s}_{i}",
                                                 np.asarray(v))
            step["feeds"].append({"name": named[k].name, "file": fname,
                                  "dtype": dtype})
        if out is None:
            continue
        step["outputs"] = []
        for i, value in enumerate(out):
            fname, dtype = golden_lib.save_value(out_dir, f"out_{s}_{i}",
                                                 value)
            rtol, atol = golden_lib.DEFAULT_TOL.get(dtype, (0.0, 0.0))
            step["outputs"].append({"file": fname, "dtype": dtype,
                                    "rtol": rtol, "atol": atol})
    with open(os.path.join(out_dir, "case.json"), "w") as f:
        json.dump(spec, f, indent=1, sort_keys=True)
        f.write("\n")
    codes = [s.get("error", {}).get("code", "ok") for s in spec["steps"]]
    family = os.path.basename(folder)
    print(f"{family}/{name}: {' '.join(codes)}", file=sys.stderr)


def const(v, dtype):
    return tf.constant(np.asarray(v, dtype=dtype))


def s(v):
    return tf.constant(np.asarray(v, dtype=object), dtype=tf.string)


STR_KEYS = ["apple", "banana", "", "cherry", "d\xe9j\xe0 vu", "\x00x"]

# (name, key dtype, keys, value dtype, values, default, query)
STATIC = [
    ("string_int64", tf.string, STR_KEYS, tf.int64, [1, 2, 3, 4, 5, 6], -1,
     [["apple", "zz"], ["", "cherry"], ["d\xe9j\xe0 vu", "\x00x"]]),
    ("string_int32", tf.string, STR_KEYS[:3], tf.int32, [7, -8, 9], 0,
     ["banana", "nope", "", "apple"]),
    ("string_float", tf.string, STR_KEYS[:3], tf.float32, [0.5, -1.25, 3e8],
     np.nan, ["banana", "nope", "", "apple"]),
    ("string_double", tf.string, STR_KEYS[:2], tf.float64, [0.1, 2.5], -0.0,
     ["banana", "x"]),
    ("string_bool", tf.string, ["t", "f"], tf.bool, [True, False], True,
     ["f", "t", "?"]),
    ("string_string", tf.string, ["a", "b"], tf.string, ["A", "B\x00"],
     "<unk>", [["b", "c"], ["a", "a"]]),
    ("int64_int64", tf.int64, [5, -3, 2**40], tf.int64, [50, -30, 1], -1,
     [2**40, 5, 6, -3]),
    ("int64_string", tf.int64, [1, 2, 3], tf.string, ["one", "two", "three"],
     "?", [[3, 2, 1], [0, 4, 1]]),
    ("int64_float", tf.int64, [1, 2], tf.float32, [1.5, 2.5], 0.0, [2, 9]),
    ("int64_double", tf.int64, [1, 2], tf.float64, [1.5, 2.5], 0.0, [2, 9]),
    ("int64_int32", tf.int64, [1, 2], tf.int32, [10, 20], -7, [2, 9]),
    ("int32_int32", tf.int32, [1, 2], tf.int32, [10, 20], -7, [2, 9, 1]),
    ("int32_string", tf.int32, [1, 2], tf.string, ["x", "y"], "", [2, 0]),
    ("int32_float", tf.int32, [1, 2], tf.float32, [1.5, 2.5], 0.0, [2, 9]),
    ("int32_double", tf.int32, [-1], tf.float64, [1.5], 0.0, [-1, 9]),
    ("empty_query", tf.string, ["a"], tf.int64, [1], -1,
     np.zeros([0, 3], dtype=object)),
]


def static_cases(folder):
    for name, kt, keys, vt, values, default, query in STATIC:
        def build(kt=kt, keys=keys, vt=vt, values=values, default=default,
                  query=query):
            table = tf.lookup.StaticHashTable(
                tf.lookup.KeyValueTensorInitializer(
                    tf.constant(keys, kt), tf.constant(values, vt)),
                default_value=tf.constant(default, vt))
            q = tf1.placeholder(kt, shape=None, name="query")
            return {"init": tf1.tables_initializer(), "q": q,
                    "find": table.lookup(q), "size": table.size()}
        qv = np.asarray(query, dtype=object if kt == tf.string else
                        kt.as_numpy_dtype)
        steps_case(folder, "static_" + name, build,
                   [(["size"], {}), (["init"], {}), (["find", "size"],
                                                     {"q": qv})])


def hash_table_edge_cases(folder):
    def uninitialized():
        t = raw.HashTableV2(key_dtype=tf.string, value_dtype=tf.int64)
        find = raw.LookupTableFindV2(table_handle=t, keys=s(["a"]),
                                     default_value=const(-1, np.int64))
        init = raw.InitializeTableV2(table_handle=t, keys=s(["a", "b"]),
                                     values=const([1, 2], np.int64))
        same_size = raw.InitializeTableV2(table_handle=t, keys=s(["x", "y"]),
                                          values=const([8, 9], np.int64))
        other_size = raw.InitializeTableV2(table_handle=t, keys=s(["x"]),
                                           values=const([8], np.int64))
        return {"find": find, "init": init, "same_size": same_size,
                "other_size": other_size,
                "size": raw.LookupTableSizeV2(table_handle=t),
                "insert": raw.LookupTableInsertV2(
                    table_handle=t, keys=s(["q"]),
                    values=const([1], np.int64)),
                "remove": raw.LookupTableRemoveV2(table_handle=t,
                                                  keys=s(["a"]))}
    steps_case(folder, "hash_table_init_once", uninitialized,
               [(["find"], {}), (["init"], {}), (["find", "size"], {}),
                (["same_size"], {}), (["find", "size"], {}),
                (["other_size"], {}), (["insert"], {}), (["remove"], {}),
                (["find"], {})])

    def duplicates():
        t = raw.HashTableV2(key_dtype=tf.string, value_dtype=tf.int64)
        same = raw.HashTableV2(key_dtype=tf.string, value_dtype=tf.int64)
        return {"bad": raw.InitializeTableV2(
                    table_handle=t, keys=s(["a", "b", "a"]),
                    values=const([1, 2, 3], np.int64)),
                "ok": raw.InitializeTableV2(
                    table_handle=same, keys=s(["a", "b", "a"]),
                    values=const([1, 2, 1], np.int64)),
                "size": raw.LookupTableSizeV2(table_handle=same),
                "find": raw.LookupTableFindV2(
                    table_handle=same, keys=s(["a", "b", "c"]),
                    default_value=const(0, np.int64))}
    steps_case(folder, "hash_table_duplicate_keys", duplicates,
               [(["bad"], {}), (["ok"], {}), (["size", "find"], {})])

    def bad_args():
        t = raw.HashTableV2(key_dtype=tf.string, value_dtype=tf.int64)
        keys = tf1.placeholder(tf.string, None, name="keys")
        values = tf1.placeholder(tf.int64, None, name="values")
        dflt = tf1.placeholder(tf.int64, None, name="dflt")
        q = tf1.placeholder(tf.string, None, name="q")
        return {"keys": keys, "values": values, "dflt": dflt, "q": q,
                "init": raw.InitializeTableV2(table_handle=t, keys=keys,
                                              values=values),
                "find": raw.LookupTableFindV2(table_handle=t, keys=q,
                                              default_value=dflt)}
    ks = np.asarray(["a", "b", "c"], dtype=object)
    steps_case(folder, "hash_table_bad_arguments", bad_args, [
        (["init"], {"keys": ks.reshape(3, 1),
                    "values": np.asarray([1, 2, 3])}),
        (["init"], {"keys": ks, "values": np.asarray([[1, 2, 3]])}),
        (["init"], {"keys": ks, "values": np.asarray([1, 2])}),
        (["init"], {"keys": ks, "values": np.asarray([1, 2, 3])}),
        (["find"], {"q": ks.reshape(3, 1), "dflt": np.asarray([1, 2])}),
        (["find"], {"q": np.asarray([["a", "x"], ["c", "y"]], dtype=object),
                    "dflt": np.asarray([[10, 20], [30, 40]])}),
        (["find"], {"q": ks, "dflt": np.asarray(-5)}),
    ])

    def wrong_dtype():
        t = raw.HashTableV2(key_dtype=tf.string, value_dtype=tf.int64)
        return {"init": raw.InitializeTableV2(
                    table_handle=t, keys=s(["a"]),
                    values=const([1], np.int32)),
                "find": raw.LookupTableFindV2(
                    table_handle=t, keys=const([1], np.int64),
                    default_value=const(0, np.int64))}
    steps_case(folder, "hash_table_wrong_dtypes", wrong_dtype,
               [(["init"], {}), (["find"], {})])


def mutable_cases(folder):
    def build():
        t = raw.MutableHashTableV2(key_dtype=tf.string, value_dtype=tf.int64)
        keys = tf1.placeholder(tf.string, None, name="keys")
        values = tf1.placeholder(tf.int64, None, name="values")
        q = tf1.placeholder(tf.string, None, name="q")
        dflt = tf1.placeholder(tf.int64, None, name="dflt")
        ek, ev = raw.LookupTableExportV2(table_handle=t, Tkeys=tf.string,
                                         Tvalues=tf.int64)
        # Export's order is the hash map's: compare its pairs through Find.
        back = raw.LookupTableFindV2(table_handle=t, keys=ek,
                                     default_value=const(-99, np.int64))
        return {"keys": keys, "values": values, "q": q, "dflt": dflt,
                "find_d": raw.LookupTableFindV2(table_handle=t, keys=q,
                                                default_value=dflt),
                "insert": raw.LookupTableInsertV2(table_handle=t, keys=keys,
                                                  values=values),
                "import": raw.LookupTableImportV2(table_handle=t, keys=keys,
                                                  values=values),
                "remove": raw.LookupTableRemoveV2(table_handle=t, keys=q),
                "find": raw.LookupTableFindV2(
                    table_handle=t, keys=q,
                    default_value=const(-1, np.int64)),
                "size": raw.LookupTableSizeV2(table_handle=t),
                "export_ok": tf.reduce_all(tf.equal(back, ev)),
                "export_size": tf.size(ek)}
    a = lambda *v: np.asarray(v, dtype=object)
    i = lambda *v: np.asarray(v, dtype=np.int64)
    steps_case(folder, "mutable_string_int64", build, [
        (["find", "size"], {"q": a("a", "b")}),
        (["insert"], {"keys": a("a", "b", "c"), "values": i(1, 2, 3)}),
        (["find", "size"], {"q": a("a", "b", "x", "c")}),
        (["insert"], {"keys": np.asarray([["b", "d"], ["a", "b"]],
                                         dtype=object),
                      "values": np.asarray([[20, 4], [10, 200]])}),
        (["find", "size", "export_ok", "export_size"],
         {"q": np.asarray([["a", "b"], ["c", "d"]], dtype=object)}),
        (["remove"], {"q": a("b", "nothing")}),
        (["find", "size"], {"q": a("a", "b", "c", "d")}),
        (["import"], {"keys": a("z"), "values": i(26)}),
        (["find", "size", "export_ok", "export_size"],
         {"q": a("a", "z")}),
        (["insert"], {"keys": a("a", "b"), "values": i(1)}),
        (["insert"], {"keys": a("a"), "values": i(1)}),
        (["size"], {}),
        (["find_d"], {"q": a("a", "zz", "z"), "dflt": i(-1, -2, -3)}),
        (["find_d"], {"q": a("a", "zz", "z"), "dflt": np.asarray(-9)}),
    ])

    for kt, vt, keys, values, q in [
            (tf.int64, tf.float32, [3, 1, 2], [0.5, 1.5, -2.0], [1, 5, 3]),
            (tf.int64, tf.string, [3, 1], ["c", "a"], [1, 5, 3]),
            (tf.int32, tf.int32, [3, 1], [30, 10], [1, 5, 3]),
            (tf.int32, tf.double, [3, 1], [0.3, 0.1], [1, 5, 3]),
            (tf.string, tf.bool, ["y", "n"], [True, False], ["n", "?", "y"]),
            (tf.string, tf.float32, ["y", "n"], [1.0, -1.0],
             ["n", "?", "y"])]:
        def build2(kt=kt, vt=vt, keys=keys, values=values, q=q):
            t = raw.MutableHashTableV2(key_dtype=kt, value_dtype=vt)
            dflt = {tf.string: "", tf.bool: False}.get(vt, 0)
            return {"insert": raw.LookupTableInsertV2(
                        table_handle=t, keys=tf.constant(keys, kt),
                        values=tf.constant(values, vt)),
                    "find": raw.LookupTableFindV2(
                        table_handle=t, keys=tf.constant(q, kt),
                        default_value=tf.constant(dflt, vt)),
                    "size": raw.LookupTableSizeV2(table_handle=t)}
        steps_case(folder, f"mutable_{kt.name}_{vt.name}", build2,
                   [(["insert"], {}), (["find", "size"], {})])


def text_file_cases(folder):
    vocab = "apple\t10\t0.5\nbanana\t20\t1.5\r\ncherry\t30\t2.5\n"
    for name, kt, vt, ki, vi, vocab_size, offset, q, text in [
            ("whole_line_to_line_number", tf.string, tf.int64, -2, -1, -1, 0,
             ["cherry", "apple", "x"], "apple\nbanana\ncherry\n"),
            ("line_number_offset", tf.string, tf.int64, -2, -1, -1, 5,
             ["cherry", "apple", "x"], "apple\nbanana\r\ncherry"),
            ("columns_int64", tf.string, tf.int64, 0, 1, -1, 0,
             ["banana", "cherry", "x"], vocab),
            ("columns_int32_offset", tf.string, tf.int32, 0, 1, -1, 3,
             ["banana", "cherry", "x"], vocab),
            ("columns_float", tf.string, tf.float32, 0, 2, -1, 0,
             ["banana", "cherry", "x"], vocab),
            ("columns_double", tf.string, tf.float64, 0, 2, -1, 0,
             ["banana", "cherry", "x"], vocab),
            ("int64_key_string_value", tf.int64, tf.string, 1, 0, -1, 0,
             [20, 30, 1], vocab),
            ("line_number_to_line", tf.int64, tf.string, -1, -2, -1, 0,
             [0, 2, 3], vocab),
            ("vocab_size_truncates", tf.string, tf.int64, -2, -1, 2, 0,
             ["apple", "banana", "cherry"], "apple\nbanana\ncherry\n"),
            ("vocab_size_too_big", tf.string, tf.int64, -2, -1, 4, 0,
             ["apple"], "apple\nbanana\ncherry\n"),
            ("empty_line", tf.string, tf.int64, -2, -1, -1, 0,
             ["apple"], "apple\n\ncherry\n"),
            ("too_few_columns", tf.string, tf.int64, 0, 1, -1, 0,
             ["apple"], "apple\t1\nbanana\n"),
            ("not_a_number", tf.string, tf.int64, 0, 1, -1, 0,
             ["apple"], "apple\t1\nbanana\tx2\n"),
            ("comma_delimiter", tf.string, tf.int64, 1, 0, -1, 0,
             ["b", "a"], "1,a\n2,b\n"),
            ("line_number_needs_int64", tf.string, tf.int32, -2, -1, -1, 0,
             ["apple"], "apple\n"),
            ("whole_line_float_value", tf.string, tf.float32, -2, -2, -1, 0,
             ["apple"], "apple\n")]:
        delim = "," if name == "comma_delimiter" else "\t"

        def build(kt=kt, vt=vt, ki=ki, vi=vi, vocab_size=vocab_size,
                  offset=offset, q=q, delim=delim):
            t = raw.HashTableV2(key_dtype=kt, value_dtype=vt)
            fname = tf1.placeholder(tf.string, [], name="filename")
            dflt = {tf.string: "?"}.get(vt, -1)
            init = raw.InitializeTableFromTextFileV2(
                table_handle=t, filename=fname, key_index=ki, value_index=vi,
                vocab_size=vocab_size, delimiter=delim, offset=offset)
            return {"fname": fname, "init": init,
                    "find": raw.LookupTableFindV2(
                        table_handle=t, keys=tf.constant(q, kt),
                        default_value=tf.constant(dflt, vt)),
                    "size": raw.LookupTableSizeV2(table_handle=t)}
        f = {"fname": CASE_DIR + "/vocab.txt"}
        steps_case(folder, "text_file_" + name, build,
                   [(["init"], f), (["find", "size"], {}), (["init"], f),
                    (["size"], {})],
                   files={"vocab.txt": text})


def keras_cases(folder):
    def build():
        x = tf1.placeholder(tf.string, [None, None], name="x")
        xi = tf1.placeholder(tf.int64, [None], name="xi")
        sl = keras.layers.StringLookup(vocabulary=["red", "green", "blue"])
        sl_oov = keras.layers.StringLookup(
            vocabulary=["red", "green", "blue"], num_oov_indices=2,
            mask_token="")
        il = keras.layers.IntegerLookup(vocabulary=[10, 20, 30])
        return {"x": x, "xi": xi, "init": tf1.tables_initializer(),
                "ids": sl(x), "ids_masked": sl_oov(x), "int_ids": il(xi)}
    steps_case(folder, "keras_lookup_layers", build, [
        (["init"], {}),
        (["ids", "ids_masked", "int_ids"],
         {"x": np.asarray([["red", "blue", ""], ["pink", "green", "red"]],
                          dtype=object),
          "xi": np.asarray([30, 10, 11, 20])}),
        (["ids", "int_ids"],
         {"x": np.zeros([0, 2], dtype=object),
          "xi": np.zeros([0], dtype=np.int64)}),
    ])


def ref_cases(folder):
    """The TF1 forms, whose handle is a reference to 2 strings."""
    def static():
        t = raw.HashTable(key_dtype=tf.string, value_dtype=tf.int64)
        init = raw.InitializeTable(table_handle=t, keys=s(["a", "b", "c"]),
                                   values=const([1, 2, 3], np.int64))
        ek, ev = raw.LookupTableExport(table_handle=t, Tkeys=tf.string,
                                       Tvalues=tf.int64)
        return {"init": init,
                "find": raw.LookupTableFind(
                    table_handle=t, keys=s([["c", "x"], ["a", "b"]]),
                    default_value=const(-1, np.int64)),
                "size": raw.LookupTableSize(table_handle=t),
                "export_sum": tf.reduce_sum(ev),
                "export_size": tf.size(ek),
                "insert": raw.LookupTableInsert(
                    table_handle=t, keys=s(["d"]),
                    values=const([4], np.int64))}
    steps_case(folder, "ref_hash_table", static, [
        (["find"], {}), (["size"], {}), (["init"], {}),
        (["find", "size", "export_sum", "export_size"], {}),
        (["insert"], {}), (["init"], {})])

    def mutable():
        t = raw.MutableHashTable(key_dtype=tf.int64, value_dtype=tf.float32)
        return {"insert": raw.LookupTableInsert(
                    table_handle=t, keys=const([5, 6], np.int64),
                    values=const([0.5, 0.25], np.float32)),
                "import": raw.LookupTableImport(
                    table_handle=t, keys=const([7], np.int64),
                    values=const([7.5], np.float32)),
                "find": raw.LookupTableFind(
                    table_handle=t, keys=const([5, 6, 7], np.int64),
                    default_value=const(-1, np.float32)),
                "size": raw.LookupTableSize(table_handle=t)}
    steps_case(folder, "ref_mutable_hash_table", mutable, [
        (["find", "size"], {}), (["insert"], {}), (["find", "size"], {}),
        (["import"], {}), (["find", "size"], {})])

    def text():
        t = raw.HashTable(key_dtype=tf.string, value_dtype=tf.int64)
        fname = tf1.placeholder(tf.string, [], name="filename")
        return {"fname": fname,
                "init": raw.InitializeTableFromTextFile(
                    table_handle=t, filename=fname, key_index=-2,
                    value_index=-1),
                "find": raw.LookupTableFind(
                    table_handle=t, keys=s(["y", "x", "q"]),
                    default_value=const(-1, np.int64))}
    steps_case(folder, "ref_text_file", text, [
        (["init"], {"fname": CASE_DIR + "/vocab.txt"}), (["find"], {})],
        files={"vocab.txt": "x\ny\n"})


def tensor_cases(folder):
    """MutableHashTableOfTensorsV2: each key maps to a vector."""
    def build():
        t = raw.MutableHashTableOfTensorsV2(key_dtype=tf.string,
                                            value_dtype=tf.float32,
                                            value_shape=[3])
        keys = tf1.placeholder(tf.string, None, name="keys")
        values = tf1.placeholder(tf.float32, None, name="values")
        q = tf1.placeholder(tf.string, None, name="q")
        dflt = tf1.placeholder(tf.float32, None, name="dflt")
        ek, ev = raw.LookupTableExportV2(table_handle=t, Tkeys=tf.string,
                                         Tvalues=tf.float32)
        back = raw.LookupTableFindV2(table_handle=t, keys=ek,
                                     default_value=const([0, 0, 0],
                                                         np.float32))
        return {"keys": keys, "values": values, "q": q, "dflt": dflt,
                "insert": raw.LookupTableInsertV2(table_handle=t, keys=keys,
                                                  values=values),
                "import": raw.LookupTableImportV2(table_handle=t, keys=keys,
                                                  values=values),
                "remove": raw.LookupTableRemoveV2(table_handle=t, keys=q),
                "find": raw.LookupTableFindV2(table_handle=t, keys=q,
                                              default_value=dflt),
                "size": raw.LookupTableSizeV2(table_handle=t),
                "export_ok": tf.reduce_all(tf.equal(back, ev)),
                "export_shape": tf.shape(ev)}
    a = lambda *v: np.asarray(v, dtype=object)
    f = lambda *v: np.asarray(v, dtype=np.float32)
    steps_case(folder, "tensors_string_float", build, [
        (["insert"], {"keys": a("a", "b"),
                      "values": f([1, 2, 3], [4, 5, 6])}),
        (["find", "size"], {"q": a("b", "x", "a"), "dflt": f(-1, -2, -3)}),
        (["find"], {"q": np.asarray([["b", "x"], ["y", "a"]], dtype=object),
                    "dflt": np.arange(12, dtype=np.float32).reshape(2, 2, 3)}),
        (["insert"], {"keys": a("b", "c"), "values": f([7, 8, 9], [0, 0, 1])}),
        (["find", "export_ok", "export_shape"],
         {"q": a("a", "b", "c"), "dflt": f(0, 0, 0)}),
        (["remove"], {"q": a("a")}),
        (["find", "size"], {"q": a("a", "b", "c"), "dflt": f(0, 0, 0)}),
        (["import"], {"keys": a("z"), "values": f([1, 1, 1])}),
        (["find", "size"], {"q": a("b", "z"), "dflt": f(0, 0, 0)}),
        (["insert"], {"keys": a("a"), "values": f(1, 2, 3)}),
        (["find"], {"q": a("a"), "dflt": f(0, 0)}),
    ])

    for kt, vt, keys, values, q, dflt in [
            (tf.int64, tf.string, [1, 2], [["a", "b"], ["c", "d"]], [2, 3],
             ["?", "!"]),
            (tf.int32, tf.int32, [1], [[1, 2, 3, 4]], [1, 0], [0, 0, 0, 0]),
            (tf.string, tf.bool, ["t"], [[True]], ["t", "f"], [False])]:
        def build2(kt=kt, vt=vt, keys=keys, values=values, q=q, dflt=dflt):
            t = raw.MutableHashTableOfTensorsV2(
                key_dtype=kt, value_dtype=vt, value_shape=[len(values[0])])
            return {"insert": raw.LookupTableInsertV2(
                        table_handle=t, keys=tf.constant(keys, kt),
                        values=tf.constant(values, vt)),
                    "find": raw.LookupTableFindV2(
                        table_handle=t, keys=tf.constant(q, kt),
                        default_value=tf.constant(dflt, vt)),
                    "size": raw.LookupTableSizeV2(table_handle=t)}
        steps_case(folder, f"tensors_{kt.name}_{vt.name}", build2,
                   [(["insert"], {}), (["find", "size"], {})])


def main():
    folder = family_dir()
    golden_lib.write_op_defs(FAMILY, OPS)
    static_cases(folder)
    hash_table_edge_cases(folder)
    mutable_cases(folder)
    text_file_cases(folder)
    keras_cases(folder)
    ref_cases(folder)
    tensor_cases(folder)


if __name__ == "__main__":
    main()

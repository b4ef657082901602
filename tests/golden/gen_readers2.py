"""Golden cases of the readers2 family: SqlDataset and ExperimentalSqlDataset
(rows of a SQLite query) and the LMDB ops (LMDBDataset,
ExperimentalLMDBDataset, LMDBReader), as TensorFlow 2.21 runs them. Also
writes TensorFlow's OpDefs of those ops (tests/golden/data/readers2/
tf_op_defs.pbtxt), which tests/kernels/readers2_test.cc compares byte for
byte with dfx's.

    $(tools/tf_env) tests/golden/gen_readers2.py

The databases are small SQLite files made here with Python's sqlite3
module (512-byte pages) and written into each case's folder, fed as
"@CASE_DIR@/x.sqlite". Every case is multi-step (gen_lookup.py's
steps_case): the iterator is made, then read one element per step, one
past its end.

Cases: every SQLite column type (INTEGER, REAL, TEXT, BLOB, NULL and a
column without a declared type) read as every output dtype TensorFlow
allows (string, int8, int16, int32, int64, uint8, uint16, bool, double),
NULLs ("" and 0), wrapping integer casts, empty results, multi-statement
queries (the first runs), recursive CTEs, a tf.data pipeline over
tf.data.experimental.SqlDataset, errors (unsupported output dtypes and
shapes, drivers, a column count that differs, SQL errors at prepare and at
a later step, a file that is not a database, load_extension), a missing
file, and iterator round trips (SerializeIterator, DeserializeIterator).

Left out: queries that write or reach other files (INSERT ... RETURNING,
ATTACH, PRAGMA, VACUUM INTO): TensorFlow runs them (opening the database
read-write, creating a missing file); dfx refuses them with
PermissionDenied when the query is prepared (tests/kernels/readers2_test.cc).
A missing file is queried as an empty database, as TensorFlow does after
creating it; its case names a file in the run's scratch directory so that
TensorFlow's creation of the file leaves nothing behind. A file in a
missing directory: TensorFlow crashes (its iterator closes a connection that
never opened); dfx answers InvalidArgument (tests/kernels/readers2_test.cc).

LMDB: TensorFlow 2.21's kernels of all three ops answer Unimplemented ("LMDB
support is removed from TensorFlow"); the cases check that dfx answers the
same (so no LMDB data file is needed).
"""

import os
import sqlite3
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import golden_lib  # noqa: E402
import gen_itckpt  # noqa: E402
from golden_lib import tf, tf1  # noqa: E402
from gen_lookup import CASE_DIR, SCRATCH_DIR, steps_case  # noqa: E402

FAMILY = "readers2"
RAW = tf.raw_ops
# gen_itckpt.round_trip writes into the folder of gen_itckpt.FAMILY.
gen_itckpt.FAMILY = FAMILY

OPS = ["SqlDataset", "ExperimentalSqlDataset", "LMDBDataset",
       "ExperimentalLMDBDataset", "LMDBReader"]

ALL_TYPES = [tf.string, tf.int8, tf.int16, tf.int32, tf.int64, tf.uint8,
             tf.uint16, tf.bool, tf.double]


def database(statements, rows=None):
    """The bytes of a SQLite file made by `statements` (and `rows`: a list
    of (insert statement, values))."""
    with tempfile.TemporaryDirectory(prefix="dfx_gen_") as tmp:
        path = os.path.join(tmp, "x.sqlite")
        c = sqlite3.connect(path)
        c.execute("PRAGMA page_size=512")
        for s in statements:
            c.execute(s)
        for insert, values in rows or []:
            c.executemany(insert, values)
        c.commit()
        c.close()
        with open(path, "rb") as f:
            return f.read()


# t: one column of each storage class and one without a declared type.
DB = database(
    ["CREATE TABLE t(i INTEGER, r REAL, s TEXT, b BLOB, n)",
     "CREATE TABLE e(x INTEGER)"],
    [("INSERT INTO t VALUES (?, ?, ?, ?, ?)",
      [(1, 1.5, "abc", b"\x00\x01", None),
       (-300, -2.75, "12xy", b"", 7),
       (2**40 + 5, 1e300, "", None, "q"),
       (None, None, None, None, 3.9),
       (-(2**63), -0.5, "-7.9", b"\xff", 1)])])
ROWS = 5


def sql_case(folder, name, query, types, shapes=None, reads=None,
             driver="sqlite", db="x.sqlite", files=None,
             op=RAW.SqlDataset, note=""):
    """An iterator over SqlDataset(driver, db, query), read one element per
    step until one past its end (`reads` steps when given)."""
    shapes = [[]] * len(types) if shapes is None else shapes

    def build():
        path = tf1.placeholder(tf.string, shape=[], name="path")
        ds = op(driver_name=driver, data_source_name=path, query=query,
                output_types=types, output_shapes=shapes)
        it = RAW.IteratorV2(shared_name="sql_it", container="",
                            output_types=types, output_shapes=shapes)
        named = {"path": path, "init": RAW.MakeIterator(dataset=ds,
                                                       iterator=it)}
        nxt = RAW.IteratorGetNext(iterator=it, output_types=types,
                                  output_shapes=shapes)
        for i, t in enumerate(nxt):
            named[f"next_{i}"] = t
        return named

    keys = [f"next_{i}" for i in range(len(types))]
    path = db if db.startswith(SCRATCH_DIR) else CASE_DIR + "/" + db
    steps = [(["init"], {"path": path})]
    steps += [(keys, {})] * (ROWS + 2 if reads is None else reads)
    steps_case(folder, name, build, steps,
               files={"x.sqlite": DB} if files is None else files, note=note)


def conversion_cases(folder):
    query = "SELECT i, r, s, b, n FROM t"
    for t in ALL_TYPES:
        sql_case(folder, f"columns_as_{t.name}", query, [t] * 5)
    sql_case(folder, "mixed_types", "SELECT s, i, r, b, n FROM t "
             "WHERE i > 0 ORDER BY i DESC",
             [tf.string, tf.int64, tf.double, tf.string, tf.bool])
    sql_case(folder, "expressions",
             "SELECT i * 2, r + 1, upper(s) || '!', length(b), "
             "typeof(n) FROM t", [tf.int64, tf.double, tf.string, tf.int32,
                                  tf.string])
    sql_case(folder, "wrapping_casts", "SELECT i, i, i, i, i FROM t",
             [tf.int8, tf.uint8, tf.int16, tf.uint16, tf.int32])
    sql_case(folder, "empty_result", "SELECT i FROM t WHERE 0", [tf.int64],
             reads=2)
    sql_case(folder, "empty_table", "SELECT x, x FROM e",
             [tf.int64, tf.string], reads=2)
    sql_case(folder, "experimental_op", "SELECT s, i FROM t LIMIT 2",
             [tf.string, tf.int64], reads=3, op=RAW.ExperimentalSqlDataset)
    sql_case(folder, "first_statement_only",
             "SELECT i FROM t LIMIT 1; SELECT r FROM t", [tf.int64], reads=2)
    sql_case(folder, "recursive_cte",
             "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x * 3 FROM c "
             "LIMIT 6) SELECT x, x % 2 = 1 FROM c", [tf.int64, tf.bool],
             reads=7)
    sql_case(folder, "no_table", "SELECT 'a', 42, 0.25",
             [tf.string, tf.int16, tf.double], reads=2)
    sql_case(folder, "missing_file_select_constant", "SELECT 7", [tf.int64],
             db=SCRATCH_DIR + "/missing.sqlite", reads=2,
             note="TensorFlow creates the file; dfx reads an empty "
                  "database and writes nothing")


def error_cases(folder):
    sql_case(folder, "output_type_float", "SELECT r FROM t", [tf.float32],
             reads=1)
    sql_case(folder, "output_type_uint32", "SELECT i FROM t", [tf.uint32],
             reads=1)
    sql_case(folder, "output_type_int64_and_half", "SELECT i, r FROM t",
             [tf.int64, tf.half], reads=1)
    sql_case(folder, "output_shape_vector", "SELECT i FROM t", [tf.int64],
             shapes=[[2]], reads=1)
    sql_case(folder, "driver_mysql", "SELECT i FROM t", [tf.int64],
             driver="mysql", reads=1)
    sql_case(folder, "column_count_mismatch", "SELECT i, r FROM t",
             [tf.int64], reads=2)
    sql_case(folder, "no_such_column", "SELECT nosuch FROM t", [tf.int64],
             reads=2)
    sql_case(folder, "no_such_table", "SELECT x FROM nosuch", [tf.int64],
             reads=2)
    sql_case(folder, "syntax_error", "SELEC x", [tf.int64], reads=2)
    sql_case(folder, "error_at_second_row",
             "SELECT CASE WHEN i = -300 THEN abs(-9223372036854775807 - 1) "
             "ELSE i END FROM t", [tf.int64], reads=3)
    sql_case(folder, "load_extension_refused",
             "SELECT load_extension('libm.so.6')", [tf.int64], reads=2)
    sql_case(folder, "not_a_database", "SELECT i FROM t", [tf.int64],
             files={"x.sqlite": b"not a database, just text\n" * 40},
             reads=2)
    sql_case(folder, "missing_file_no_table", "SELECT i FROM t", [tf.int64],
             db=SCRATCH_DIR + "/missing.sqlite", reads=2)


def pipeline_cases(folder):
    def build():
        path = tf1.placeholder(tf.string, shape=[], name="path")
        ds = tf.data.experimental.SqlDataset(
            "sqlite", path, "SELECT i, r, s FROM t WHERE i IS NOT NULL",
            (tf.int64, tf.double, tf.string))
        ds = ds.map(lambda i, r, s: (i % 7, tf.strings.length(s))).batch(2)
        it = tf1.data.make_initializable_iterator(ds)
        a, b = it.get_next()
        return {"path": path, "init": it.initializer, "a": a, "b": b}
    steps_case(folder, "pipeline_map_batch", build,
               [(["init"], {"path": CASE_DIR + "/x.sqlite"})] +
               [(["a", "b"], {})] * 3, files={"x.sqlite": DB})


def round_trip_cases():
    def sql(query, types):
        return lambda paths: tf.data.experimental.SqlDataset(
            "sqlite", paths[0], query, types)
    q = "SELECT i, s FROM t"
    types = (tf.int64, tf.string)
    files = {"x.sqlite": DB}
    gen_itckpt.round_trip("round_trip_mid", sql(q, types), 2, 4, files=files)
    gen_itckpt.round_trip("round_trip_unread", sql(q, types), 0, 6,
                          files=files)
    gen_itckpt.round_trip("round_trip_last_row", sql(q, types), 5, 1,
                          files=files)
    gen_itckpt.round_trip("round_trip_at_end", sql(q, types), 6, 1,
                          files=files)
    gen_itckpt.round_trip(
        "round_trip_ordered_doubles",
        sql("SELECT r FROM t WHERE r IS NOT NULL ORDER BY r", (tf.double,)),
        1, 4, files=files)


def lmdb_cases(folder):
    for op in (RAW.LMDBDataset, RAW.ExperimentalLMDBDataset):
        def build(op=op):
            names = tf1.placeholder(tf.string, shape=[None], name="names")
            ds = op(filenames=names, output_types=[tf.string, tf.string],
                    output_shapes=[[], []])
            it = RAW.IteratorV2(shared_name="lmdb_it", container="",
                                output_types=[tf.string, tf.string],
                                output_shapes=[[], []])
            return {"names": names,
                    "init": RAW.MakeIterator(dataset=ds, iterator=it)}
        steps_case(folder, f"{op.__name__}_removed", build,
                   [(["init"], {"names": [CASE_DIR + "/data.mdb"]})])

    def build_reader():
        reader = RAW.LMDBReader()
        q = RAW.FIFOQueue(component_types=[tf.string], shapes=[[]],
                          capacity=4)
        enq = RAW.QueueEnqueueMany(handle=q, components=[["a.mdb"]])
        key, value = RAW.ReaderRead(reader_handle=reader, queue_handle=q)
        return {"enq": enq, "key": key, "value": value,
                "produced": RAW.ReaderNumRecordsProduced(
                    reader_handle=reader)}
    steps_case(folder, "LMDBReader_removed", build_reader,
               [(["enq"], {}), (["key", "value"], {}), (["produced"], {})])


def main():
    folder = golden_lib.family_folder(FAMILY)
    golden_lib.write_op_defs(FAMILY, OPS)
    conversion_cases(folder)
    error_cases(folder)
    pipeline_cases(folder)
    round_trip_cases()
    lmdb_cases(folder)


if __name__ == "__main__":
    main()

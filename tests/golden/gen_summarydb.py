"""Golden cases of the summarydb family: CreateSummaryDbWriter, a summary
writer into a TensorBoard SQLite database (TensorFlow 2.21's
core/summary/summary_db_writer.cc and schema.cc), driven by the summary
family's write ops.

Every case is multi-step (gen_lookup.py's steps_case). The database is fed
as "@SCRATCH_DIR@/<name>.db" at the create step, so each run writes a fresh
one. The last steps read the database back inside the graph: each query of
QUERIES is a SqlDataset, batched whole, whose one string column is a row
rendered with SQLite's quote(); the rows are sorted, and counted where a
writer repeats them (reserved Tensors rows). The ids TensorFlow draws at
random never appear: each query joins an id to what it names (a tag's name,
a run's name, a node's name), so the outputs compare the databases' content
as multisets of rows with ids mapped to their referents. Times appear only
where a case fixes them (ImportEvent's wall_time) or as "set"/"null".

    $(tools/tf_env) tests/golden/gen_summarydb.py

Besides the cases the generator writes the op's signature
(tf_op_defs.pbtxt, tf_cpu_kernels.txt), which tests/kernels/summarydb_test.cc
compares with dfx's registry.

Left out: a non-scalar db_uri, experiment_name, run_name or user_name (and
a non-scalar step or tag of the write ops): TensorFlow's kernels read them
with scalar() and abort; dfx answers InvalidArgument
(tests/kernels/summarydb_test.cc).
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import golden_lib  # noqa: E402
from gen_lookup import SCRATCH_DIR, steps_case  # noqa: E402
from golden_lib import tf, tf1  # noqa: E402
from tensorflow.core.framework import graph_pb2, summary_pb2  # noqa: E402
from tensorflow.core.util import event_pb2  # noqa: E402

FAMILY = "summarydb"
raw = tf.raw_ops


# A time "set" or "null", or its value when a case fixed it (below 1e6 s).
def _time(col):
    return (f"CASE WHEN {col} IS NULL THEN 'null' WHEN {col} < 1e6 THEN "
            f"quote({col}) ELSE 'set' END")


# The name of run id `col`: "<null>" for no id, "<gone>" for an id whose
# Runs row was replaced.
def _run(col, alias):
    return (f"CASE WHEN {col} IS NULL THEN '<null>' WHEN {alias}.run_id IS "
            f"NULL THEN '<gone>' ELSE {alias}.run_name END")


QUERIES = {
    "tensors": (
        "SELECT quote({run})||' '||quote(t.tag_name)||' '||quote(x.step)||' '"
        "||quote(x.dtype)||' '||quote(x.shape)||' '||quote(x.data)||' '||"
        "{time}||' x'||count(*) FROM Tensors x LEFT JOIN Tags t ON x.series = "
        "t.tag_id LEFT JOIN Runs r ON t.run_id = r.run_id GROUP BY "
        "t.tag_name, t.run_id, r.run_id, r.run_name, x.step, x.dtype, "
        "x.shape, x.data, x.computed_time".format(
            run=_run("t.run_id", "r"), time=_time("x.computed_time"))),
    "strings": (
        "SELECT quote(t.tag_name)||' '||quote(x.step)||' '||quote(s.idx)||' '"
        "||quote(s.data) FROM TensorStrings s LEFT JOIN Tensors x ON "
        "s.tensor_rowid = x.rowid LEFT JOIN Tags t ON x.series = t.tag_id"),
    "tags": (
        "SELECT quote(t.tag_name)||' '||quote({run})||' '||"
        "quote(t.display_name)||' '||quote(t.plugin_name)||' '||"
        "quote(t.plugin_data)||' '||quote(d.description)||' '||{time} FROM "
        "Tags t LEFT JOIN Runs r ON t.run_id = r.run_id LEFT JOIN "
        "Descriptions d ON d.id = t.tag_id".format(
            run=_run("t.run_id", "r"), time=_time("t.inserted_time"))),
    "runs": (
        "SELECT quote(r.run_name)||' '||quote(CASE WHEN r.experiment_id IS "
        "NULL THEN '<null>' ELSE e.experiment_name END)||' '||{ins}||' '||"
        "{start}||' '||{fin} FROM Runs r LEFT JOIN Experiments e ON "
        "r.experiment_id = e.experiment_id".format(
            ins=_time("r.inserted_time"), start=_time("r.started_time"),
            fin=_time("r.finished_time"))),
    "experiments": (
        "SELECT quote(e.experiment_name)||' '||quote(CASE WHEN e.user_id IS "
        "NULL THEN '<null>' ELSE u.user_name END)||' '||quote(e.is_watching)"
        "||' '||{ins}||' '||{start} FROM Experiments e LEFT JOIN Users u ON "
        "e.user_id = u.user_id".format(ins=_time("e.inserted_time"),
                                       start=_time("e.started_time"))),
    "users": (
        "SELECT quote(user_name)||' '||quote(email)||' '||{ins} FROM "
        "Users".format(ins=_time("inserted_time"))),
    "graphs": (
        "SELECT quote({run})||' '||quote(g.graph_def)||' '||{ins}||' nodes='"
        "||(SELECT count(*) FROM Nodes n WHERE n.graph_id = g.graph_id) FROM "
        "Graphs g LEFT JOIN Runs r ON g.run_id = r.run_id".format(
            run=_run("g.run_id", "r"), ins=_time("g.inserted_time"))),
    "nodes": (
        "SELECT quote(CASE WHEN g.graph_id IS NULL THEN '<gone>' ELSE "
        "quote(g.graph_def) END)||' '||quote(n.node_id)||' '||"
        "quote(n.node_name)||' '||quote(n.op)||' '||quote(n.device)||' '||"
        "quote(n.node_def) FROM Nodes n LEFT JOIN Graphs g ON n.graph_id = "
        "g.graph_id"),
    "node_inputs": (
        "SELECT quote(n.node_name)||' '||quote(i.idx)||' '||quote(m.node_name)"
        "||' '||quote(i.input_node_idx)||' '||quote(i.is_control) FROM "
        "NodeInputs i JOIN Nodes n ON n.graph_id = i.graph_id AND n.node_id "
        "= i.node_id JOIN Nodes m ON m.graph_id = i.graph_id AND m.node_id = "
        "i.input_node_id"),
    # Every id names a tag, run, experiment, user or graph (or a run that
    # was replaced); the count of ids and of those naming nothing.
    "ids": (
        "SELECT 'ids='||count(*)||' unnamed='||total(id NOT IN (SELECT tag_id "
        "FROM Tags UNION SELECT run_id FROM Runs UNION SELECT run_id FROM "
        "Tags WHERE run_id IS NOT NULL UNION SELECT experiment_id FROM "
        "Experiments UNION SELECT user_id FROM Users UNION SELECT graph_id "
        "FROM Graphs UNION SELECT graph_id FROM Nodes))||' descriptions='||"
        "(SELECT count(*) FROM Descriptions) FROM Ids"),
    "schema": (
        "SELECT type||' '||name||' '||tbl_name FROM sqlite_master"),
}


def const(v, dtype=None):
    return tf.constant(np.asarray(v), dtype=dtype)


def s(v):
    return tf.constant(v, tf.string)


def step_t(v):
    return const(v, tf.int64)


def read_ops(db, prefix, queries):
    """{prefix+"init": MakeIterator targets, prefix+query: rows} for the
    database fed to `db`."""
    named = {}
    inits = []
    for q in queries:
        sql = (f"SELECT * FROM ({QUERIES[q]}) UNION ALL SELECT '#end' "
               "ORDER BY 1")
        ds = raw.SqlDataset(driver_name="sqlite", data_source_name=db,
                            query=sql, output_types=[tf.string],
                            output_shapes=[[]])
        ds = raw.BatchDatasetV2(input_dataset=ds, batch_size=step_t(100000),
                                drop_remainder=False,
                                output_types=[tf.string],
                                output_shapes=[[None]])
        it = raw.IteratorV2(shared_name=f"{prefix}{q}_it", container="",
                            output_types=[tf.string], output_shapes=[[None]])
        inits.append(raw.MakeIterator(dataset=ds, iterator=it))
        named[prefix + q] = raw.IteratorGetNext(
            iterator=it, output_types=[tf.string], output_shapes=[[None]])[0]
    named[prefix + "init"] = tf.group(*inits)
    return named


def writer(shared, db, exp="exp", run="run", user="user"):
    w = raw.SummaryWriter(shared_name=shared)
    create = raw.CreateSummaryDbWriter(writer=w, db_uri=db,
                                       experiment_name=s(exp),
                                       run_name=s(run), user_name=s(user))
    return w, create


ALL = list(QUERIES)
TENSOR_QUERIES = ["tensors", "strings", "tags", "runs", "experiments",
                  "users", "ids"]


def _reads_placeholder(t):
    op = t if isinstance(t, tf.Operation) else t.op
    seen, todo = set(), [op]
    while todo:
        op = todo.pop()
        if op.name in seen:
            continue
        seen.add(op.name)
        if op.type == "Placeholder":
            return True
        todo += [i.op for i in op.inputs] + list(op.control_inputs)
    return False


def db_case(name, build, steps, queries=TENSOR_QUERIES, dbs=("x",),
            note=""):
    """build(db_placeholders) -> {key: op or tensor}; `steps` lists key
    lists. The databases are fed at the first step; the readers of each
    database come after `steps`."""
    def full():
        places = {d: tf1.placeholder(tf.string, shape=[], name=f"db_{d}")
                  for d in dbs}
        named = build(places)
        for d in dbs:
            named.update(read_ops(places[d], f"{d}_", queries))
        named.update({f"db_{d}": places[d] for d in dbs})
        return named
    feeds = {f"db_{d}": f"{SCRATCH_DIR}/{d}.db" for d in dbs}
    # Feed the databases only to the steps that read them (fewer files).
    with tf.Graph().as_default():
        named = full()
        uses = {k for k, v in named.items() if _reads_placeholder(v)}
    all_steps = [(k, feeds if uses & set(k) else {}) for k in steps]
    for d in dbs:
        all_steps.append(([f"{d}_init"], feeds))
        all_steps.append(([f"{d}_{q}" for q in queries], {}))
    steps_case(golden_lib.family_folder(FAMILY), name, full, all_steps,
               note=note)


def metadata(plugin="", content=b"", display="", description=""):
    m = summary_pb2.SummaryMetadata(display_name=display,
                                    summary_description=description)
    m.plugin_data.plugin_name = plugin
    m.plugin_data.content = content
    return m.SerializeToString()


def scalar_cases():
    def build(db):
        w, create = writer("w", db["x"])
        return {
            "create": create,
            "s1": raw.WriteScalarSummary(writer=w, step=step_t(1), tag="loss",
                                         value=const(0.5, tf.float32)),
            "s2": raw.WriteScalarSummary(writer=w, step=step_t(2), tag="loss",
                                         value=const(0.25, tf.float32)),
            "s2b": raw.WriteScalarSummary(writer=w, step=step_t(2),
                                          tag="loss",
                                          value=const(0.125, tf.float32)),
            "s3": raw.WriteScalarSummary(writer=w, step=step_t(3), tag="loss",
                                         value=const(-1.0, tf.float32)),
            "i64": raw.WriteScalarSummary(writer=w, step=step_t(1), tag="n",
                                          value=const(-7, tf.int64)),
            "vec": raw.WriteScalarSummary(writer=w, step=step_t(5),
                                          tag="first",
                                          value=const([[3, 4]], tf.uint16)),
            "f64": raw.WriteScalarSummary(writer=w, step=step_t(-2),
                                          tag="d",
                                          value=const(1e300, tf.float64)),
            "h": raw.WriteScalarSummary(writer=w, step=step_t(0), tag="half",
                                        value=const(1.5, tf.float16)),
            "flush": raw.FlushSummaryWriter(writer=w),
            "close": raw.CloseSummaryWriter(writer=w),
        }
    db_case("scalars_over_steps", build,
            [["create"], ["s1"], ["s2"], ["s3"], ["s2b"], ["i64"], ["vec"],
             ["f64"], ["h"], ["flush"], ["close"]],
            note="scalars keep their dtype and the first element; step 2 "
            "written again replaces its row; after close half the unused "
            "reserved rows stay (TensorFlow's loop)")

    def open_build(db):
        w, create = writer("w", db["x"], exp="", run="", user="")
        return {"create": create,
                "s1": raw.WriteScalarSummary(writer=w, step=step_t(1),
                                             tag="a", value=const(2, tf.int32)),
                "s2": raw.WriteScalarSummary(writer=w, step=step_t(2),
                                             tag="a", value=const(3, tf.int32))}
    db_case("read_while_open", open_build, [["create"], ["s1"], ["s2"]],
            note="every write commits at once: the rows (and all 998 "
            "unused reserved rows) are there while the writer is open")


def tensor_cases():
    values = [
        ("f16", np.array([1.5, -2.0], np.float16)),
        ("f32", np.array([[1.0, 2.5], [-3.0, 1e-30]], np.float32)),
        ("f64", np.array(3.25, np.float64)),
        ("c64", np.array([1 + 2j], np.complex64)),
        ("c128", np.array([[0.5 - 1j]], np.complex128)),
        ("i8", np.array([-128, 127], np.int8)),
        ("i16", np.array([-3], np.int16)),
        ("i32", np.array([[7, 8, 9]], np.int32)),
        ("i64", np.array(-(2 ** 62), np.int64)),
        ("u8", np.array([255, 0], np.uint8)),
        ("u16", np.array([65535], np.uint16)),
        ("u32", np.array([4000000000], np.uint32)),
        ("u64", np.array([2 ** 64 - 1], np.uint64)),
        ("empty", np.zeros([0, 3], np.float32)),
    ]

    def build(db):
        w, create = writer("w", db["x"])
        named = {"create": create, "close": raw.CloseSummaryWriter(writer=w)}
        for i, (tag, v) in enumerate(values):
            named[tag] = raw.WriteSummary(
                writer=w, step=step_t(i), tensor=tf.constant(v), tag=tag,
                summary_metadata=s(metadata("custom", b"\x00c" + tag.encode(),
                                            "Shown " + tag, "*md* " + tag)))
        named["str0"] = raw.WriteSummary(writer=w, step=step_t(1),
                                         tensor=s("a\x00b"), tag="str0",
                                         summary_metadata=s(b""))
        named["str_empty"] = raw.WriteSummary(writer=w, step=step_t(2),
                                              tensor=s(""), tag="str0",
                                              summary_metadata=s(b""))
        named["str2"] = raw.WriteSummary(
            writer=w, step=step_t(1), tensor=s([["x", ""], ["\xff", "yz"]]),
            tag="str2", summary_metadata=s(b""))
        named["str2b"] = raw.WriteSummary(writer=w, step=step_t(1),
                                          tensor=s(["again"]), tag="str2",
                                          summary_metadata=s(b""))
        named["str_none"] = raw.WriteSummary(
            writer=w, step=step_t(3), tensor=tf.zeros([0], tf.string),
            tag="str2", summary_metadata=s(b""))
        return named
    db_case("tensors_of_each_dtype", build,
            [["create"]] + [[t] for t, _ in values] +
            [["str0"], ["str_empty"], ["str2"], ["str2b"], ["str_none"],
             ["close"]],
            note="raw little-endian bytes, shape text, metadata into Tags "
            "and Descriptions; string tensors in TensorStrings (rewriting a "
            "step leaves the old strings behind); an empty tensor's data "
            "is NULL")

    def errors_build(db):
        w, create = writer("w", db["x"])
        return {
            "create": create,
            "bool": raw.WriteSummary(writer=w, step=step_t(1),
                                     tensor=const([True]), tag="b",
                                     summary_metadata=s(b"")),
            "bf16": raw.WriteScalarSummary(writer=w, step=step_t(1),
                                           tag="bf",
                                           value=const(1.0, tf.bfloat16)),
            "bad_meta": raw.WriteSummary(writer=w, step=step_t(1),
                                             tensor=const(1.0), tag="m",
                                             summary_metadata=s("\xff\xff")),
            "ok": raw.WriteSummary(writer=w, step=step_t(1),
                                   tensor=const(1.0), tag="ok",
                                   summary_metadata=s(b"")),
            "close": raw.CloseSummaryWriter(writer=w),
            "close_again": raw.CloseSummaryWriter(writer=w),
            "after": raw.WriteScalarSummary(writer=w, step=step_t(1),
                                            tag="x", value=const(1.0)),
        }
    db_case("write_errors", errors_build,
            [["after"], ["create"], ["bool"], ["bf16"], ["bad_meta"],
             ["ok"], ["close"], ["close_again"], ["after"]],
            note="bool and bfloat16 are Unimplemented, bad metadata "
            "InvalidArgument, nothing written; before create and after "
            "close NotFound")


def graph_def(nodes, producer=21):
    g = graph_pb2.GraphDef()
    g.versions.producer = producer
    for name, op, inputs, device, attr in nodes:
        n = g.node.add(name=name, op=op, device=device)
        n.input.extend(inputs)
        if attr is not None:
            n.attr["dtype"].type = attr
    return g.SerializeToString()


def graph_cases():
    good = graph_def([
        ("a", "Const", [], "/cpu:0", 1),
        ("b", "Split", ["a"], "", 3),
        ("c", "AddV2", ["b:1", "a:0", "^b"], "/job:w/task:0", None),
        ("d", "NoOp", ["^c"], "", None),
    ])
    second = graph_def([("only", "Placeholder", [], "", 9)], producer=30)

    def build(db):
        w, create = writer("w", db["x"])
        return {
            "create": create,
            "graph": raw.WriteGraphSummary(writer=w, step=step_t(1),
                                           tensor=s(good)),
            "second": raw.WriteGraphSummary(writer=w, step=step_t(2),
                                            tensor=s(second)),
            "missing": raw.WriteGraphSummary(
                writer=w, step=step_t(3),
                tensor=s(graph_def([("x", "Identity", ["nope"], "", None)]))),
            "bad_index": raw.WriteGraphSummary(
                writer=w, step=step_t(3),
                tensor=s(graph_def([("x", "Identity", ["x:y"], "", None)]))),
            "bad_proto": raw.WriteGraphSummary(writer=w, step=step_t(3),
                                               tensor=s("\xff\xff")),
            "close": raw.CloseSummaryWriter(writer=w),
        }
    db_case("graphs_and_nodes", build,
            [["create"], ["graph"], ["missing"], ["bad_index"], ["bad_proto"],
             ["second"], ["close"]],
            queries=["graphs", "nodes", "node_inputs", "runs", "ids"],
            note="nodes and edges (output index, control) into Nodes and "
            "NodeInputs, the rest of the GraphDef into Graphs; a second "
            "graph replaces the run's Graphs row, its old nodes stay; an "
            "unknown input or a bad output index is DataLoss and leaves "
            "nothing")

    def nameless(db):
        w, create = writer("w", db["x"], exp="", run="", user="")
        return {"create": create,
                "graph": raw.WriteGraphSummary(writer=w, step=step_t(1),
                                               tensor=s(good)),
                "close": raw.CloseSummaryWriter(writer=w)}
    db_case("graph_without_run", nameless, [["create"], ["graph"], ["close"]],
            queries=["graphs", "nodes", "node_inputs", "runs", "ids"],
            note="no run name: the Graphs row's run_id is NULL")


def names_cases():
    combos = [("none", "", "", ""), ("run_only", "", "r1", ""),
              ("exp_run", "e1", "r2", ""), ("all", "e2", "r3", "u1"),
              ("exp_no_run", "e3", "", "u2"), ("user_run", "", "r4", "u3"),
              ("same_user", "e4", "r5", "u1")]

    def build(db):
        named = {}
        for key, exp, run, user in combos:
            w, create = writer("w_" + key, db["x"], exp=exp, run=run,
                               user=user)
            named["create_" + key] = create
            named["write_" + key] = raw.WriteScalarSummary(
                writer=w, step=step_t(1), tag="t_" + key, value=const(1.0))
            named["close_" + key] = raw.CloseSummaryWriter(writer=w)
        return named
    steps = []
    for key, _, _, _ in combos:
        steps += [["create_" + key], ["write_" + key], ["close_" + key]]
    db_case("experiment_run_user_names", build, steps,
            note="a run needs a run name, an experiment row also an "
            "experiment name, a user row all three; users are found again "
            "by name")


def reopen_cases():
    def build(db):
        w, create = writer("w", db["x"])
        w2, create2 = writer("w2", db["x"], run="run2")
        return {
            "create": create,
            "a": raw.WriteScalarSummary(writer=w, step=step_t(1), tag="loss",
                                        value=const(1.0)),
            "b": raw.WriteScalarSummary(writer=w, step=step_t(2), tag="loss",
                                        value=const(2.0)),
            "close": raw.CloseSummaryWriter(writer=w),
            "create2": create2,
            "c": raw.WriteScalarSummary(writer=w2, step=step_t(1), tag="loss",
                                        value=const(3.0)),
            "close2": raw.CloseSummaryWriter(writer=w2),
        }
    db_case("reopen_existing_db", build,
            [["create"], ["a"], ["close"], ["create"], ["b"], ["close"],
             ["create2"], ["c"], ["close2"]],
            note="a second writer on the same database finds the user and "
            "experiment again; its run gets a new id and replaces the old "
            "Runs row of that name, whose tags keep a gone run id; another "
            "run name adds a run")

    def twice_build(db):
        w, create = writer("w", db["x"])
        other = raw.CreateSummaryDbWriter(writer=w, db_uri=db["x"] + ".b",
                                          experiment_name="x", run_name="y",
                                          user_name="z")
        return {
            "create": create, "other": other,
            "a": raw.WriteScalarSummary(writer=w, step=step_t(1), tag="t",
                                        value=const(1.0)),
            "close": raw.CloseSummaryWriter(writer=w)}
    db_case("create_again_keeps_writer", twice_build,
            [["create"], ["other"], ["a"], ["close"]],
            note="a create on a handle that has a writer does nothing")


def open_error_cases():
    def build(db):
        named = {}
        paths = {"missing_dir": db["x"] + ".d/no/such/dir/x.db",
                 "directory": db["x"] + ".d",
                 "not_a_db": db["x"] + ".d/junk.db"}
        named["mkdir"] = tf.io.write_file(db["x"] + ".d/junk.db",
                                          "not a database at all " * 100)
        w, create = writer("w_good", db["x"])
        named["good"] = create
        named["close_good"] = raw.CloseSummaryWriter(writer=w)
        for key, path in paths.items():
            w, create = writer("w_" + key, path)
            named[key] = create
            named["write_" + key] = raw.WriteScalarSummary(
                writer=w, step=step_t(1), tag="t", value=const(1.0))
        return named
    db_case("open_errors", build,
            [["good"], ["close_good"], ["mkdir"], ["missing_dir"],
             ["write_missing_dir"], ["directory"], ["not_a_db"],
             ["write_not_a_db"]],
            queries=["schema"],
            note="a path in a missing directory, a directory and a file "
            "that is not a database are InvalidArgument (SQLite's CANTOPEN "
            "and NOTADB); no writer is made, and a write is NotFound")


def two_db_cases():
    def build(db):
        wa, create_a = writer("wa", db["a"], run="ra")
        wb, create_b = writer("wb", db["b"], run="rb", user="")
        return {
            "create": tf.group(create_a, create_b),
            "write": tf.group(
                raw.WriteScalarSummary(writer=wa, step=step_t(1), tag="ta",
                                       value=const(1.0)),
                raw.WriteScalarSummary(writer=wb, step=step_t(1), tag="tb",
                                       value=const(2, tf.int32)),
                raw.WriteSummary(writer=wa, step=step_t(2), tensor=s(["p"]),
                                 tag="sa", summary_metadata=s(b"")),
                raw.WriteHistogramSummary(writer=wb, step=step_t(2),
                                          tag="hb",
                                          values=const([1.0, 2.0, 2.0]))),
            "close": tf.group(raw.CloseSummaryWriter(writer=wa),
                              raw.CloseSummaryWriter(writer=wb)),
        }
    db_case("two_dbs_in_one_step", build, [["create"], ["write"], ["close"]],
            dbs=("a", "b"),
            note="two writers on two databases, created, written and "
            "closed in the same steps, do not mix their rows")


def event_cases():
    img = summary_pb2.Summary.Image(height=2, width=3, colorspace=1,
                                    encoded_image_string=b"\x89PNGfake")
    aud = summary_pb2.Summary.Audio(sample_rate=8000, num_channels=1,
                                    length_frames=2,
                                    encoded_audio_string=b"RIFFfake",
                                    content_type="audio/wav")
    hist = summary_pb2.HistogramProto(min=0, max=2, num=3, sum=3,
                                      sum_squares=5,
                                      bucket_limit=[0.5, 1.5, 2.5],
                                      bucket=[1, 1, 1])
    tensor = tf.make_tensor_proto(np.array([1, 2], np.int32))
    summ = summary_pb2.Summary(value=[
        summary_pb2.Summary.Value(tag="sv", simple_value=2.5),
        summary_pb2.Summary.Value(
            tag="tv", tensor=tensor,
            metadata=summary_pb2.SummaryMetadata(display_name="T")),
        summary_pb2.Summary.Value(tag="hv", histo=hist),
        summary_pb2.Summary.Value(tag="iv", image=img),
        summary_pb2.Summary.Value(tag="av", audio=aud),
        summary_pb2.Summary.Value(tag="old", obsolete_old_style_histogram=b"x"),
    ])
    ev = event_pb2.Event(wall_time=5.5, step=7, summary=summ)
    early = event_pb2.Event(wall_time=2.25, step=8, summary=summary_pb2.Summary(
        value=[summary_pb2.Summary.Value(tag="sv", simple_value=-1)]))
    version = event_pb2.Event(wall_time=1.0, file_version="brain.Event:2")
    graph_ev = event_pb2.Event(wall_time=3.0, step=1, graph_def=graph_def(
        [("g", "Const", [], "", 1)]))
    bad_graph_ev = event_pb2.Event(wall_time=3.0, step=1, graph_def=b"\xff")
    def one_value(**kw):
        return event_pb2.Event(wall_time=4.0, step=1,
                               summary=summary_pb2.Summary(
                                   value=[summary_pb2.Summary.Value(**kw)]))
    mismatch = one_value(tag="bad", histo=summary_pb2.HistogramProto(
        bucket_limit=[1.0], bucket=[1, 2]))
    bad_tensor = one_value(tag="bt",
                           tensor=tf.make_tensor_proto(np.array([True])))

    def build(db):
        w, create = writer("w", db["x"])
        return {
            "create": create,
            "import": raw.ImportEvent(writer=w,
                                      event=s(ev.SerializeToString())),
            "early": raw.ImportEvent(writer=w,
                                     event=s(early.SerializeToString())),
            "version": raw.ImportEvent(writer=w,
                                       event=s(version.SerializeToString())),
            "graph": raw.ImportEvent(writer=w,
                                     event=s(graph_ev.SerializeToString())),
            "bad_graph": raw.ImportEvent(
                writer=w, event=s(bad_graph_ev.SerializeToString())),
            "mismatch": raw.ImportEvent(writer=w,
                                        event=s(mismatch.SerializeToString())),
            "bad_tensor": raw.ImportEvent(
                writer=w, event=s(bad_tensor.SerializeToString())),
            "raw": raw.WriteRawProtoSummary(
                writer=w, step=step_t(9),
                tensor=s([summary_pb2.Summary(value=[summary_pb2.Summary.Value(
                    tag="rv", simple_value=4.0)]).SerializeToString(), b""])),
            "close": raw.CloseSummaryWriter(writer=w),
        }
    db_case("imported_events", build,
            [["create"], ["import"], ["early"], ["version"], ["graph"],
             ["bad_graph"], ["mismatch"], ["bad_tensor"], ["raw"], ["close"]],
            queries=TENSOR_QUERIES + ["graphs"],
            note="each kind of summary value becomes a tensor of TensorBoard's "
            "data_compat form at the event's wall_time, which also moves the "
            "run's and experiment's started_time back; other events and "
            "values are ignored; a bad graph is InvalidArgument, a histogram "
            "of mismatched sizes InvalidArgument, a bool tensor "
            "Unimplemented")

    def ops_build(db):
        w, create = writer("w", db["x"])
        image = np.arange(2 * 2 * 3, dtype=np.uint8).reshape([1, 2, 2, 3])
        return {
            "create": create,
            "hist": raw.WriteHistogramSummary(
                writer=w, step=step_t(1), tag="h",
                values=const([1, 2, 3, 3], tf.int32)),
            "hist_empty": raw.WriteHistogramSummary(
                writer=w, step=step_t(2), tag="h",
                values=tf.zeros([0], tf.float32)),
            "image": raw.WriteImageSummary(
                writer=w, step=step_t(1), tag="im",
                tensor=const(np.concatenate([image, image[:, ::-1]])),
                bad_color=const([255, 0, 0, 255], tf.uint8), max_images=2),
            "audio": raw.WriteAudioSummary(
                writer=w, step=step_t(1), tag="au",
                tensor=const([[0.1, -0.2], [0.3, 0.0]], tf.float32),
                sample_rate=const(8000.0, tf.float32), max_outputs=1),
            "close": raw.CloseSummaryWriter(writer=w),
        }
    db_case("histogram_image_audio_ops", ops_build,
            [["create"], ["hist"], ["hist_empty"], ["image"], ["audio"],
             ["close"]],
            note="the write ops' summaries as TensorBoard's tensors: "
            "[k, 3] doubles, [width, height, PNG] per image, [[WAV, '']] "
            "per clip")


def main():
    golden_lib.family_folder(FAMILY)
    scalar_cases()
    tensor_cases()
    graph_cases()
    names_cases()
    reopen_cases()
    open_error_cases()
    two_db_cases()
    event_cases()
    golden_lib.write_op_defs(FAMILY, ["CreateSummaryDbWriter"])


if __name__ == "__main__":
    main()

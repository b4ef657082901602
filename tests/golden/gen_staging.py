"""Golden cases of the staging family: tf.compat.v1's StagingArea,
MapStagingArea (unordered and ordered) and Barrier front ends
(tensorflow.python.ops.data_flow_ops), and the raw ops where a case needs
what the front ends do not build, as TensorFlow 2.21 runs them. Also
writes TensorFlow's OpDefs of those ops
(tests/golden/data/staging/tf_op_defs.pbtxt), which
tests/kernels/staging_test.cc compares byte for byte with dfx's.

    $(tools/tf_env) tests/golden/gen_staging.py

The areas and barriers keep state between steps, so every case is
multi-step (golden_lib.steps_case, as gen_queues.py): one graph, then steps
run one after another in one session. A step TensorFlow would block for
ever in (an Unstage of an empty area, a Stage into a full one, a get of an
absent key, a TakeMany of more than will come) cannot be a golden case:
TensorFlow's kernels hold a thread on a condition variable with no way
out. tests/kernels/staging_test.cc shows that dfx's wait, and end on their
step's cancellation, instead. So does BarrierTakeMany's timeout_ms, which
TensorFlow rejects ("Timeout not supported yet") and dfx honours.
"""

import os
import shutil

import numpy as np

import golden_lib
from golden_lib import tf, tf1  # noqa: F401
from tensorflow.python.ops import data_flow_ops

FAMILY = "staging"
raw = tf.raw_ops

OPS = ["Stage", "Unstage", "StagePeek", "StageSize", "StageClear",
       "MapStage", "MapPeek", "MapUnstage", "MapUnstageNoKey", "MapSize",
       "MapIncompleteSize", "MapClear", "OrderedMapStage", "OrderedMapPeek",
       "OrderedMapUnstage", "OrderedMapUnstageNoKey", "OrderedMapSize",
       "OrderedMapIncompleteSize", "OrderedMapClear"]
BARRIER_OPS = ["Barrier", "BarrierInsertMany", "BarrierTakeMany",
               "BarrierClose", "BarrierReadySize", "BarrierIncompleteSize"]


def family_dir():
    path = os.path.join(golden_lib.DATA_DIR, FAMILY)
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    return path


def steps_case(folder, name, build, steps, note=""):
    golden_lib.steps_case(folder, name, build, steps, note=note)


def f32(v):
    return tf.constant(np.asarray(v, np.float32))


def i32(v):
    return tf.constant(np.asarray(v, np.int32))


def i64(v):
    return tf.constant(np.asarray(v, np.int64))


_names = [0]


def sname():
    """A shared_name of its own for each area: a dfx cluster's resource
    manager outlives one case's session (tests/interop), so areas of
    different cases must not meet. (The front ends' default, the class
    name, would be the same in every case's graph.)"""
    _names[0] += 1
    return f"area_{_names[0]}"


def put(m, key, vals):
    """MapStagingArea.put of a list (every component) or a dict (some)."""
    if isinstance(vals, list):
        vals = dict(enumerate(vals))
    indices = sorted(vals)
    return m.put(key, [vals[i] for i in indices], indices=indices)


def one(t):
    """A front end's one-component result: a tensor or a list of one."""
    return t[0] if isinstance(t, (list, tuple)) else t


# --------------------------------------------------------------------------
# StagingArea


def area_cases(folder):
    def across_steps():
        area = data_flow_ops.StagingArea([tf.float32, tf.int32],
                                         shapes=[[2], []],
                                         shared_name=sname())
        get = area.get()
        peek = area.peek(0)
        return {"put_a": area.put([f32([1, 2]), i32(7)]),
                "put_b": area.put([f32([3, 4]), i32(8)]),
                "x": get[0], "y": get[1], "px": peek[0], "py": peek[1],
                "size": area.size(), "clear": area.clear()}
    steps_case(folder, "stage_unstage_across_steps", across_steps,
               [["put_a"], ["put_b"], ["size"], ["px", "py"], ["x", "y"],
                ["size"], ["px", "py"], ["x", "y"], ["size"]],
               note="staged by two steps, unstaged by later ones in order; "
               "a peek leaves the tuple")

    def peek_index():
        area = data_flow_ops.StagingArea([tf.int64], shared_name=sname())
        puts = {f"put{i}": area.put([i64([i] * (i + 1))]) for i in range(3)}
        puts.update({"p0": one(area.peek(0)), "p2": one(area.peek(2)),
                     "p1": one(area.peek(1)), "get": one(area.get()),
                     "size": area.size()})
        return puts
    steps_case(folder, "stage_peek_by_index", peek_index,
               [["put0"], ["put1"], ["put2"], ["p2"], ["p0"], ["get"],
                ["p1"], ["size"]],
               note="unshaped components; peek(i) is the i-th from the front")

    def clear():
        area = data_flow_ops.StagingArea([tf.string], capacity=3,
                                         shared_name=sname())
        return {"put_a": area.put([tf.constant(["a", "bc"])]),
                "put_b": area.put([tf.constant("d")]),
                "clear": area.clear(), "size": area.size(),
                "get": one(area.get())}
    steps_case(folder, "stage_clear", clear,
               [["put_a"], ["put_b"], ["size"], ["clear"], ["size"],
                ["put_b"], ["get"], ["size"]])

    def capacity():
        area = data_flow_ops.StagingArea([tf.float32], capacity=2,
                                         shared_name=sname())
        return {"put_a": area.put([f32([1])]), "put_b": area.put([f32([2])]),
                "put_c": area.put([f32([3])]), "get": one(area.get()),
                "size": area.size()}
    steps_case(folder, "stage_capacity_two", capacity,
               [["put_a"], ["put_b"], ["size"], ["get"], ["put_c"],
                ["size"], ["get"], ["get"], ["size"]],
               note="never more than two staged; a third put after a get")

    def memory_limit():
        area = data_flow_ops.StagingArea([tf.float32], memory_limit=16,
                                         shared_name=sname())
        return {"small": area.put([f32([1, 2, 3, 4])]),
                "big": area.put([f32([1, 2, 3, 4, 5])]),
                "get": one(area.get()), "size": area.size()}
    steps_case(folder, "stage_memory_limit", memory_limit,
               [["big"], ["size"], ["small"], ["size"], ["get"]],
               note="a tuple larger than memory_limit is ResourceExhausted")

    def mismatch():
        # The raw ops: the front end keeps a StagingArea's dtypes in step.
        name = sname()
        stage = raw.Stage(values=[f32([1]), i32(2)], shared_name=name)
        # One device's area, as the front ends colocate theirs.
        with tf1.colocate_with(stage):
            unstage = raw.Unstage(dtypes=[tf.float32], shared_name=name)
            size = raw.StageSize(dtypes=[], shared_name=name)
        return {"stage": stage, "unstage": unstage[0], "size": size}
    steps_case(folder, "unstage_count_mismatch", mismatch,
               [["stage"], ["size"], ["unstage"], ["size"]],
               note="one node's tuple of two taken by a node of one dtype: "
               "InvalidArgument, the tuple gone; shared by shared_name")

    def peek_bad_index():
        name = sname()
        stage = raw.Stage(values=[f32([1])], shared_name=name)
        with tf1.colocate_with(stage):
            peek = raw.StagePeek(index=i32([0]), dtypes=[tf.float32],
                                 shared_name=name)
        return {"stage": stage, "peek": peek[0]}
    steps_case(folder, "stage_peek_index_not_scalar", peek_bad_index,
               [["stage"], ["peek"]])


# --------------------------------------------------------------------------
# MapStagingArea


def map_cases(folder, ordered):
    prefix = "ordered_map" if ordered else "map"

    def new(dtypes, **kw):
        return data_flow_ops.MapStagingArea(dtypes, ordered=ordered,
                                            shared_name=sname(), **kw)

    def across_steps():
        m = new([tf.float32, tf.int32], shapes=[[2], []])
        k1 = m.get(i64(1))
        k2 = m.get(i64(2))
        pk = m.peek(i64(2))
        return {"put1": put(m, i64(1), [f32([1, 2]), i32(7)]),
                "put2": put(m, i64(2), [f32([3, 4]), i32(8)]),
                "px": pk[0], "py": pk[1],
                "x1": k1[1][0], "y1": k1[1][1], "x2": k2[1][0],
                "size": m.size(), "incomplete": m.incomplete_size()}
    steps_case(folder, f"{prefix}_across_steps", across_steps,
               [["put1"], ["put2"], ["size"], ["px", "py"], ["x1", "y1"],
                ["size"], ["px", "py"], ["x2"], ["size"], ["incomplete"]],
               note="staged by key in two steps, peeked and taken by key")

    def partial():
        m = new([tf.float32, tf.int32, tf.int64])
        a = put(m, i64(5), {0: f32([1, 2])})
        b = put(m, i64(5), {2: i64(9)})
        c = put(m, i64(5), {1: i32([3, 4, 5])})
        again = put(m, i64(5), {0: f32([0])})
        got = m.get(i64(5))[1]
        return {"a": a, "b": b, "c": c, "again": again, "x": got[0],
                "y": got[1], "z": got[2], "size": m.size(),
                "incomplete": m.incomplete_size()}
    steps_case(folder, f"{prefix}_partial_inserts", partial,
               [["a"], ["size", "incomplete"], ["b"], ["again"],
                ["size", "incomplete"], ["c"], ["size", "incomplete"],
                ["x", "y", "z"], ["size", "incomplete"]],
               note="components 0, 2, then 1 of key 5: complete after the "
               "third; a component given twice is InvalidArgument")

    def partial_get():
        m = new([tf.float32, tf.int32])
        staged = put(m, i64(3), [f32([1.5]), i32(4)])
        g0 = m.get(i64(3), indices=[0])
        p1 = m.peek(i64(3), indices=[1])
        p0 = m.peek(i64(3), indices=[0])
        g1 = m.get(i64(3), indices=[1])
        return {"put": staged, "g0": one(g0[1]), "p1": one(p1), "p0": one(p0),
                "g1": one(g1[1]), "size": m.size()}
    steps_case(folder, f"{prefix}_get_by_index", partial_get,
               [["put"], ["g0"], ["size"], ["p1"], ["p0"], ["g1"], ["size"]],
               note="a tuple leaves the map once every component is taken; "
               "peeking a taken one is InvalidArgument")

    def no_key():
        m = new([tf.int32])
        keys = [4, 1, 3] if ordered else [6]
        puts = {f"put{k}": put(m, i64(k), [i32([k, k])]) for k in keys}
        k, v = m.get()
        puts.update({"k": k, "v": one(v),
                     "size": m.size()})
        return puts
    if ordered:
        steps_case(folder, "ordered_map_unstage_smallest_key", no_key,
                   [["put4"], ["put1"], ["put3"], ["k", "v"], ["k", "v"],
                    ["size"], ["k", "v"]],
                   note="MapUnstageNoKey of an ordered map takes the "
                   "smallest key")
    else:
        steps_case(folder, "map_unstage_no_key", no_key,
                   [["put6"], ["size"], ["k", "v"], ["size"]],
                   note="one key only: which an unordered map gives first "
                   "among several is unspecified")

    def clear():
        m = new([tf.float32, tf.float32], capacity=4)
        return {"full": put(m, i64(1), [f32(1), f32(2)]),
                "half": put(m, i64(2), {1: f32(3)}),
                "clear": m.clear(), "size": m.size(),
                "incomplete": m.incomplete_size()}
    steps_case(folder, f"{prefix}_clear", clear,
               [["full"], ["half"], ["size", "incomplete"], ["clear"],
                ["size", "incomplete"], ["half"], ["size", "incomplete"]])

    def capacity():
        m = new([tf.float32], capacity=2)
        return {"p1": put(m, i64(1), [f32([1])]),
                "p2": put(m, i64(2), [f32([2])]),
                "p3": put(m, i64(3), [f32([3])]),
                "g1": one(m.get(i64(1))[1]), "g3": one(m.get(i64(3))[1]),
                "size": m.size()}
    steps_case(folder, f"{prefix}_capacity_two", capacity,
               [["p1"], ["p2"], ["size"], ["g1"], ["p3"], ["size"], ["g3"],
                ["size"]])

    def memory_limit():
        m = new([tf.float32], memory_limit=12)
        return {"big": put(m, i64(1), [f32([1, 2, 3, 4])]),
                "small": put(m, i64(2), [f32([1, 2, 3])]),
                "size": m.size()}
    steps_case(folder, f"{prefix}_memory_limit", memory_limit,
               [["big"], ["size"], ["small"], ["size"]])

    op = "OrderedMapStage" if ordered else "MapStage"

    def bad_indices(indices):
        def build():
            name = sname()
            put = getattr(raw, op)(key=i64(1), indices=i32(indices),
                                   values=[f32(1), f32(2)][:len(indices)],
                                   dtypes=[tf.float32, tf.float32],
                                   shared_name=name)
            with tf1.colocate_with(put):
                size = getattr(raw, op.replace("Stage", "IncompleteSize"))(
                    dtypes=[tf.float32, tf.float32], shared_name=name)
            return {"put": put, "incomplete": size}
        return build
    steps_case(folder, f"{prefix}_indices_not_ordered",
               bad_indices([1, 0]), [["put"], ["incomplete"]])
    steps_case(folder, f"{prefix}_index_out_of_bounds",
               bad_indices([4]), [["put"], ["incomplete"]])

    def same_key():
        m = new([tf.float32])
        return {"a": put(m, i64(1), [f32([1])]),
                "b": put(m, i64(1), [f32([2])]),
                "get": one(m.get(i64(1))[1]), "size": m.size()}
    steps_case(folder, f"{prefix}_same_key_twice", same_key,
               [["a"], ["b"], ["size"], ["get"], ["size"]],
               note="a complete tuple staged under a key that has one is "
               "dropped, as TensorFlow's map insert does")


# --------------------------------------------------------------------------
# Barrier


def barrier_cases(folder):
    def across_steps():
        b = data_flow_ops.Barrier((tf.float32, tf.int32),
                                  shapes=((), (2,)))
        ins_a0 = b.insert_many(0, tf.constant(["a", "b"]), f32([1, 2]))
        ins_b1 = b.insert_many(1, tf.constant(["b"]), i32([[3, 4]]))
        ins_a1 = b.insert_many(1, tf.constant(["a"]), i32([[5, 6]]))
        idx, keys, values = b.take_many(1)
        return {"ins_a0": ins_a0, "ins_b1": ins_b1, "ins_a1": ins_a1,
                "idx": idx, "keys": keys, "v0": values[0],
                "v1": values[1], "ready": b.ready_size(),
                "incomplete": b.incomplete_size()}
    steps_case(folder, "barrier_insert_then_take", across_steps,
               [["ins_a0"], ["ready", "incomplete"], ["ins_b1"],
                ["ready", "incomplete"], ["idx", "keys", "v0", "v1"],
                ["ins_a1"], ["idx", "keys", "v0", "v1"],
                ["ready", "incomplete"]],
               note="a key is ready once every component is in; the index "
               "output counts insert calls that brought new keys, from "
               "int64's smallest")

    def order():
        b = data_flow_ops.Barrier((tf.int32,), shapes=((),))
        first = b.insert_many(0, tf.constant(["x", "y", "z"]), i32([1, 2, 3]))
        second = b.insert_many(0, tf.constant(["w"]), i32([4]))
        idx, keys, values = b.take_many(4)
        return {"first": first, "second": second, "idx": idx, "keys": keys,
                "v": values[0]}
    def ties():
        b = data_flow_ops.Barrier((tf.int32,), shapes=((),))
        keys = [f"k{i}" for i in range(7)]
        ins = b.insert_many(0, tf.constant(keys), i32(list(range(7))))
        idx, got, values = b.take_many(3)
        return {"ins": ins, "keys": got, "v": values[0]}
    steps_case(folder, "barrier_take_ties", ties,
               [["ins"], ["keys", "v"], ["ins"], ["keys", "v"],
                ["keys", "v"], ["keys", "v"]],
               note="elements of one insert share an index; TensorFlow's "
               "priority queue (a binary heap) orders them; keys taken "
               "already make new elements when inserted again")

    steps_case(folder, "barrier_take_in_insertion_order", order,
               [["second"], ["first"], ["idx", "keys", "v"]],
               note="elements of an earlier insert come first")

    def twice():
        b = data_flow_ops.Barrier((tf.float32, tf.float32), shapes=((), ()))
        ins = b.insert_many(0, tf.constant(["k"]), f32([1]))
        return {"ins": ins, "incomplete": b.incomplete_size()}
    steps_case(folder, "barrier_component_twice", twice,
               [["ins"], ["ins"], ["incomplete"]],
               note="a component inserted twice is InvalidArgument")

    def close():
        b = data_flow_ops.Barrier((tf.float32, tf.float32), shapes=((), ()))
        a0 = b.insert_many(0, tf.constant(["a", "b", "c"]), f32([1, 2, 3]))
        a1 = b.insert_many(1, tf.constant(["a", "b"]), f32([4, 5]))
        c1 = b.insert_many(1, tf.constant(["c"]), f32([6]))
        new = b.insert_many(0, tf.constant(["d"]), f32([7]))
        idx, keys, values = b.take_many(2, allow_small_batch=True)
        idx4, keys4, _ = b.take_many(4)
        return {"a0": a0, "a1": a1, "c1": c1, "new": new,
                "close": b.close(), "keys": keys, "v": values[1],
                "keys4": keys4, "ready": b.ready_size(),
                "incomplete": b.incomplete_size()}
    steps_case(folder, "barrier_close", close,
               [["a0"], ["a1"], ["close"], ["new"], ["keys4"],
                ["ready", "incomplete"], ["c1"], ["keys", "v"],
                ["keys", "v"], ["keys", "v"], ["close"]],
               note="closed: a new key is Cancelled, an incomplete one may "
               "still complete; a take of more than can come is OutOfRange; "
               "allow_small_batch takes what is left; closing twice is "
               "Cancelled")

    def cancel_pending():
        b = data_flow_ops.Barrier((tf.float32, tf.float32), shapes=((), ()))
        a0 = b.insert_many(0, tf.constant(["a", "b"]), f32([1, 2]))
        a1 = b.insert_many(1, tf.constant(["a"]), f32([3]))
        b1 = b.insert_many(1, tf.constant(["b"]), f32([4]))
        idx, keys, values = b.take_many(1, allow_small_batch=True)
        return {"a0": a0, "a1": a1, "b1": b1,
                "close": b.close(cancel_pending_enqueues=True),
                "keys": keys, "ready": b.ready_size(),
                "incomplete": b.incomplete_size()}
    steps_case(folder, "barrier_close_cancel_pending", cancel_pending,
               [["a0"], ["a1"], ["close"], ["ready", "incomplete"], ["b1"],
                ["keys"], ["keys"]],
               note="cancel_pending_enqueues drops the incomplete keys")

    def take_zero():
        b = data_flow_ops.Barrier((tf.float32,), shapes=((3,),))
        idx, keys, values = b.take_many(0)
        return {"idx": idx, "keys": keys, "v": values[0]}
    steps_case(folder, "barrier_take_zero", take_zero,
               [["idx", "keys", "v"]])

    def bad_capacity():
        h = raw.Barrier(component_types=[tf.float32], shapes=[[]],
                        capacity=4)
        return {"ready": raw.BarrierReadySize(handle=h)}
    steps_case(folder, "barrier_capacity_not_unbounded", bad_capacity,
               [["ready"]])

    def bad_shape():
        b = data_flow_ops.Barrier((tf.float32,), shapes=((2,),))
        ins = raw.BarrierInsertMany(handle=b.barrier_ref,
                                    keys=tf.constant(["k"]),
                                    values=f32([[1, 2, 3]]),
                                    component_index=0)
        return {"ins": ins, "ready": b.ready_size(),
                "incomplete": b.incomplete_size()}
    steps_case(folder, "barrier_insert_wrong_shape", bad_shape,
               [["ins"], ["ready", "incomplete"]])

    def bad_index():
        b = data_flow_ops.Barrier((tf.float32,), shapes=((),))
        ins = raw.BarrierInsertMany(handle=b.barrier_ref,
                                    keys=tf.constant(["k"]), values=f32([1]),
                                    component_index=3)
        return {"ins": ins}
    steps_case(folder, "barrier_component_index_out_of_range", bad_index,
               [["ins"]])


def main():
    folder = family_dir()
    with_barrier = os.environ.get("DFX_STAGING_NO_BARRIER") != "1"
    golden_lib.write_op_defs(FAMILY, OPS + (BARRIER_OPS if with_barrier
                                            else []))
    area_cases(folder)
    map_cases(folder, ordered=False)
    map_cases(folder, ordered=True)
    if with_barrier:
        barrier_cases(folder)


if __name__ == "__main__":
    main()

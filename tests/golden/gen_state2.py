"""Golden cases of the state2 family: ops that update variables and tensors
slice by slice, as TensorFlow 2.21 runs them. Strided-slice assignment
(StridedSliceAssign, ResourceStridedSliceAssign, TensorStridedSliceUpdate:
what `v[1:3].assign(x)` and `tf.tensor_strided_slice_update` emit), N-d
scatter into variables (ScatterNd{Update,Add,Sub,Max,Min} and their
Resource* forms), ScatterNdNonAliasingAdd, ResourceGatherNd,
TensorScatterSub/Min/Max, InplaceUpdate/Add/Sub, CountUpTo,
ResourceCountUpTo, Empty, TemporaryVariable and DestroyTemporaryVariable.

Variables keep state between steps, so the variable cases are multi-step
(golden_lib.steps_case): one graph, then steps run one after another in one
session, each with TensorFlow's outputs or error.

    $(tools/tf_env) tests/golden/gen_state2.py

Besides the cases the generator writes the ops' signatures
(tf_op_defs.pbtxt, tf_cpu_kernels.txt), which tests/kernels/state2_test.cc
compares with dfx's registry. ParallelConcat is not here: TensorFlow's CPU
kernel for it only fails ("Found instance of parallel_stack which could not
be properly replaced"); a graph pass rewrites it before it runs.
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import golden_lib  # noqa: E402
from golden_lib import placeholder, steps_case, tf, tf1  # noqa: E402

FAMILY = "state2"
RAW = tf.raw_ops

OP_NAMES = ["StridedSliceAssign", "ResourceStridedSliceAssign",
            "TensorStridedSliceUpdate", "ScatterNdUpdate", "ScatterNdAdd",
            "ScatterNdSub", "ScatterNdMax", "ScatterNdMin",
            "ResourceScatterNdUpdate", "ResourceScatterNdAdd",
            "ResourceScatterNdSub", "ResourceScatterNdMax",
            "ResourceScatterNdMin", "ScatterNdNonAliasingAdd",
            "ResourceGatherNd", "TensorScatterSub", "TensorScatterMin",
            "TensorScatterMax", "InplaceUpdate", "InplaceAdd", "InplaceSub",
            "CountUpTo", "ResourceCountUpTo", "Empty", "TemporaryVariable",
            "DestroyTemporaryVariable"]


def case(name, build, **kw):
    golden_lib.case(FAMILY, name, build, **kw)


def folder():
    return golden_lib.family_folder(FAMILY)


def ints(v, dtype=np.int32):
    return tf.constant(np.asarray(v, dtype))


GRID = np.arange(20, dtype=np.float32).reshape(4, 5)


# --------------------------------------------------------------------------
# TensorStridedSliceUpdate


def tensor_slice_update_cases():
    def update(name, x, begin, end, strides, value, index=np.int32, **masks):
        def build():
            xp, xv = placeholder(x)
            vp, vv = placeholder(value, name="value")
            out = RAW.TensorStridedSliceUpdate(
                input=xp, begin=ints(begin, index), end=ints(end, index),
                strides=ints(strides, index), value=vp, **masks)
            return out, {xp: xv, vp: vv}
        case("tensor_slice_update_" + name, build)

    ones = lambda *shape: np.full(shape, -1, np.float32)  # noqa: E731
    update("rows", GRID, [1], [3], [1], ones(2, 5))
    update("strided", GRID, [1, 0], [3, 5], [1, 2], ones(2, 3))
    update("negative_strides", GRID, [3, 4], [0, 0], [-1, -2], ones(3, 2),
           index=np.int64)
    update("negative_bounds", GRID, [-3, -4], [-1, 5], [1, 1], ones(2, 4))
    update("begin_end_masks", GRID, [2, 3], [0, 1], [1, 1], ones(2, 1),
           begin_mask=0, end_mask=1)
    update("shrink_axis", GRID, [2], [3], [1], np.arange(5, dtype=np.float32),
           shrink_axis_mask=1)
    update("shrink_axis_negative", GRID, [0, -1], [0, 0], [1, 1],
           np.arange(4, dtype=np.float32), begin_mask=1, end_mask=1,
           shrink_axis_mask=2)
    update("new_axis_ellipsis", GRID, [0, 0, 1], [0, 0, 4], [1, 1, 2],
           ones(1, 4, 2), new_axis_mask=1, ellipsis_mask=2)
    update("ellipsis_last_dim", GRID.reshape(2, 2, 5), [0, 1], [0, 2],
           [1, 1], ones(2, 2), ellipsis_mask=1, shrink_axis_mask=2)
    update("broadcast_scalar", GRID, [0, 1], [4, 3], [2, 1],
           np.float32(7.5))
    update("broadcast_row", GRID, [1, 0], [4, 5], [1, 2],
           np.array([[1, 2, 3]], np.float32))
    update("broadcast_column", GRID, [0, 0], [3, 2], [1, 1],
           np.array([[1], [2], [3]], np.float32))
    update("broadcast_leading_ones", GRID, [1], [2], [1],
           np.arange(5, dtype=np.float32).reshape(1, 1, 1, 5),
           shrink_axis_mask=1)
    update("value_shape_mismatch", GRID, [0], [2], [1], ones(3, 5))
    update("value_rank_too_high", GRID, [1], [2], [1], ones(2, 1, 5),
           shrink_axis_mask=1)
    update("empty_slice_any_value", GRID, [2], [2], [1], ones(3, 7))
    update("scalar_input", np.float32(3), [], [], [], np.float32(9))
    update("zero_stride", GRID, [0], [2], [0], ones(2, 5))
    update("shrink_out_of_range", GRID, [4], [5], [1], ones(5),
           shrink_axis_mask=1)
    for dtype in (np.float64, np.float16, np.int8, np.uint16, np.int64,
                  np.uint64, np.complex64, np.complex128, np.bool_):
        x = (GRID % 3).astype(dtype)
        update(np.dtype(dtype).name, x, [0, 4], [4, 0], [2, -2],
               np.ones((2, 2), dtype))

    def strings():
        x, xv = placeholder(np.array([["a", "b", "c"], ["d", "e", "f"]],
                                     dtype=object).astype(bytes))
        v, vv = placeholder(np.array([b"X", b"Y"]), name="value")
        return RAW.TensorStridedSliceUpdate(
            input=x, begin=ints([0, 2]), end=ints([2, 3]),
            strides=ints([1, 1]), value=v, shrink_axis_mask=2), {x: xv, v: vv}
    case("tensor_slice_update_string", strings)


# --------------------------------------------------------------------------
# StridedSliceAssign and ResourceStridedSliceAssign


def slice_assign_cases():
    def ref_var():
        v = tf1.Variable(GRID, use_resource=False, name="ssa_ref")
        a = v[1:3, ::2].assign(np.full((2, 3), -1, np.float32))
        b = v[::-1, 4].assign(np.array([10, 20, 30, 40], np.float32))
        c = v[0].assign(np.float32(5))
        bad = v[0:2].assign(np.ones((3, 5), np.float32))
        return {"init": v.initializer, "a": a.op, "b": b.op, "c": c.op,
                "bad": bad.op, "read": v.read_value()}
    steps_case(folder(), "strided_slice_assign_ref", ref_var,
               [["init"], ["a"], ["read"], ["b"], ["read"], ["c"],
                ["bad"], ["read"]],
               note="v[1:3, ::2].assign(x) on a reference variable, a "
               "reversed column, a broadcast row, a value of the wrong shape")

    def uninitialized():
        v = tf1.Variable(GRID, use_resource=False, name="ssa_uninit")
        a = v[1:3].assign(np.zeros((2, 5), np.float32))
        return {"a": a.op}
    steps_case(folder(), "strided_slice_assign_uninitialized", uninitialized,
               [["a"]])

    def resource_var():
        v = tf1.Variable(GRID, use_resource=True, name="ssa_res")
        a = v[1:3, ::2].assign(np.full((2, 3), -1, np.float32))
        b = v[:, tf.newaxis, 1].assign(np.array([[7], [8], [9], [10]],
                                                np.float32))
        c = v[..., -1].assign(np.float32(0.5))
        bad = v[0:2].assign(np.ones((3, 5), np.float32))
        return {"init": v.initializer, "a": a.op, "b": b.op, "c": c.op,
                "bad": bad.op, "read": v.read_value()}
    steps_case(folder(), "strided_slice_assign_resource", resource_var,
               [["init"], ["read"], ["a"], ["read"], ["b"], ["c"], ["read"],
                ["bad"], ["read"]],
               note="ResourceStridedSliceAssign: new axis, ellipsis, "
               "broadcast scalar, a value of the wrong shape")

    def resource_int64():
        v = tf1.Variable(np.arange(6, dtype=np.int64), use_resource=True)
        a = v[::-2].assign(np.array([-1, -2, -3], np.int64))
        return {"init": v.initializer, "a": a.op, "read": v.read_value()}
    steps_case(folder(), "strided_slice_assign_resource_int64",
               resource_int64, [["init"], ["a"], ["read"]])


# --------------------------------------------------------------------------
# ScatterNd* into variables


def scatter_nd_cases():
    base = np.arange(12, dtype=np.float32).reshape(4, 3)

    def ref_add():
        v = tf1.Variable(base, use_resource=False, name="snd_add")
        add = tf1.scatter_nd_add(v, ints([[1], [3], [1]]),
                                 np.ones((3, 3), np.float32))
        return {"init": v.initializer, "add": add.op, "read": v.read_value()}
    steps_case(folder(), "scatter_nd_add_ref_two_steps", ref_add,
               [["init"], ["add"], ["read"], ["add"], ["read"]],
               note="two steps of ScatterNdAdd on one variable, a row named "
               "twice per step")

    def ref_ops():
        v = tf1.Variable(base, use_resource=False, name="snd_ref")
        ref = v._ref()  # pylint: disable=protected-access
        idx = ints([[0, 1], [2, 2], [0, 1]])
        upd = np.array([5, -4, 2], np.float32)
        ops = {"init": v.initializer, "read": v.read_value()}
        for op in ("ScatterNdUpdate", "ScatterNdAdd", "ScatterNdSub",
                   "ScatterNdMax", "ScatterNdMin"):
            ops[op] = getattr(RAW, op)(ref=ref, indices=idx,
                                       updates=upd).op
        ops["bad"] = RAW.ScatterNdAdd(ref=ref, indices=ints([[0, 0], [4, 0]]),
                                      updates=np.ones(2, np.float32)).op
        ops["bad_shape"] = RAW.ScatterNdUpdate(
            ref=ref, indices=ints([[0], [1]]),
            updates=tf1.placeholder_with_default(np.ones((2, 2), np.float32),
                                                 shape=None)).op
        ops["locked"] = RAW.ScatterNdAdd(ref=ref, indices=ints([[1]]),
                                         updates=np.ones((1, 3), np.float32),
                                         use_locking=True).op
        return ops
    steps_case(folder(), "scatter_nd_ref_ops", ref_ops,
               [["init"], ["ScatterNdUpdate"], ["read"], ["ScatterNdAdd"],
                ["read"], ["ScatterNdSub"], ["read"], ["ScatterNdMax"],
                ["read"], ["ScatterNdMin"], ["read"], ["bad"], ["read"],
                ["bad_shape"], ["read"], ["locked"], ["read"]],
               note="element indices (K = rank); a bad index stops the "
               "update there, the earlier ones applied; use_locking")

    def resource_ops():
        v = tf1.Variable(base, use_resource=True, name="snd_res")
        idx = ints([[3], [0], [3]], np.int64)
        upd = np.array([[1, 2, 3], [4, 5, 6], [-7, 8, -9]], np.float32)
        return {"init": v.initializer, "read": v.read_value(),
                "update": v.scatter_nd_update(idx, upd).op,
                "add": v.scatter_nd_add(idx, upd).op,
                "sub": v.scatter_nd_sub(idx, upd).op,
                "max": v.scatter_nd_max(idx, upd).op,
                "min": v.scatter_nd_min(idx, upd).op,
                "bad": v.scatter_nd_add(ints([[-1]]),
                                        np.ones((1, 3), np.float32)).op}
    steps_case(folder(), "scatter_nd_resource_ops", resource_ops,
               [["init"], ["update"], ["read"], ["add"], ["read"], ["add"],
                ["read"], ["sub"], ["read"], ["max"], ["read"], ["min"],
                ["read"], ["bad"], ["read"]],
               note="ResourceScatterNd*: rows, duplicates in order, a "
               "negative index")

    def resource_dtypes():
        ops = {}
        for dtype in (np.int32, np.int64, np.float16, np.uint8, np.float64):
            tname = np.dtype(dtype).name
            v = tf1.Variable(np.arange(6).reshape(2, 3).astype(dtype),
                             use_resource=True, name="v_" + tname)
            ops["init_" + tname] = v.initializer
            ops["read_" + tname] = v.read_value()
            ops["add_" + tname] = RAW.ResourceScatterNdAdd(
                ref=v.handle, indices=ints([[1, 2], [0, 0]]),
                updates=np.array([3, 4], dtype))
            ops["max_" + tname] = RAW.ResourceScatterNdMax(
                ref=v.handle, indices=ints([[1, 0], [0, 1]]),
                updates=np.array([9, 0], dtype))
        for dtype in (np.complex64, np.bool_):
            tname = np.dtype(dtype).name
            v = tf1.Variable(np.ones((2, 2), dtype), use_resource=True,
                             name="v_" + tname)
            ops["init_" + tname] = v.initializer
            ops["read_" + tname] = v.read_value()
            ops["add_" + tname] = RAW.ResourceScatterNdAdd(
                ref=v.handle, indices=ints([[1]]),
                updates=np.ones((1, 2), dtype))
            ops["upd_" + tname] = RAW.ResourceScatterNdUpdate(
                ref=v.handle, indices=ints([[0, 1]]),
                updates=np.zeros((1,), dtype))
        return ops
    names = ["int32", "int64", "float16", "uint8", "float64"]
    steps = [["init_" + n for n in names + ["complex64", "bool"]]]
    for n in names:
        steps += [["add_" + n], ["max_" + n], ["read_" + n]]
    for n in ("complex64", "bool"):
        steps += [["add_" + n], ["upd_" + n], ["read_" + n]]
    steps_case(folder(), "scatter_nd_resource_dtypes", resource_dtypes, steps)

    def uninitialized():
        v = tf1.Variable(base, use_resource=True, name="snd_uninit")
        return {"add": v.scatter_nd_add(ints([[0]]),
                                        np.ones((1, 3), np.float32)).op}
    steps_case(folder(), "scatter_nd_resource_uninitialized", uninitialized,
               [["add"]])


def non_aliasing_and_gather_cases():
    base = np.arange(12, dtype=np.float32).reshape(4, 3)

    def non_aliasing(name, x, idx, upd):
        def build():
            xp, xv = placeholder(x)
            up, uv = placeholder(upd, name="updates")
            out = RAW.ScatterNdNonAliasingAdd(input=xp, indices=ints(idx),
                                              updates=up)
            return [out, xp], {xp: xv, up: uv}
        case("non_aliasing_add_" + name, build)
    non_aliasing("rows", base, [[1], [3], [1]], np.ones((3, 3), np.float32))
    non_aliasing("elements_int64", base.astype(np.int64), [[0, 2], [3, 1]],
                 np.array([100, 200], np.int64))
    non_aliasing("bool", np.array([True, False, False]), [[1], [2]],
                 np.array([True, False]))
    non_aliasing("bad_index", base, [[0], [4]], np.ones((2, 3), np.float32))
    non_aliasing("empty_updates", base, np.zeros((0, 1), np.int32),
                 np.zeros((0, 3), np.float32))

    def gather():
        v = tf1.Variable(base, use_resource=True, name="gnd")
        return {"init": v.initializer,
                "rows": RAW.ResourceGatherNd(resource=v.handle,
                                             indices=ints([[3], [0]]),
                                             dtype=tf.float32),
                "elements": RAW.ResourceGatherNd(
                    resource=v.handle, indices=ints([[[1, 2]], [[0, 0]]],
                                                    np.int64),
                    dtype=tf.float32),
                "add": v.scatter_nd_add(ints([[0, 0]]),
                                        np.array([50], np.float32)).op,
                "bad": RAW.ResourceGatherNd(resource=v.handle,
                                            indices=ints([[1, 3]]),
                                            dtype=tf.float32)}
    steps_case(folder(), "resource_gather_nd", gather,
               [["init"], ["rows", "elements"], ["add"], ["elements"],
                ["bad"]])

    def gather_strings():
        v = tf1.Variable(np.array([[b"a", b"b"], [b"c", b"d"]]),
                         use_resource=True, name="gnd_str")
        with tf.control_dependencies([v.initializer]):
            g = RAW.ResourceGatherNd(resource=v.handle,
                                     indices=ints([[1, 0], [0, 1]]),
                                     dtype=tf.string)
        return g, {}
    case("resource_gather_nd_string", gather_strings)

    def string_updates():
        v = tf1.Variable(np.array([b"a", b"b", b"c", b"d"]),
                         use_resource=True, name="str_upd")
        with tf.control_dependencies([v.initializer]):
            scatter = v.scatter_nd_update(ints([[3], [0]]),
                                          tf.constant([b"x", b"y"]))
        with tf.control_dependencies([scatter]):
            assign = v[1:3].assign(tf.constant([b"p", b"q"]))
        with tf.control_dependencies([assign]):
            read = v.read_value()
        return read, {}
    case("resource_string_scatter_and_slice_assign", string_updates)


# --------------------------------------------------------------------------
# TensorScatterSub/Min/Max


def tensor_scatter_cases():
    base = np.array([[1, 5, 3], [4, 2, 6]], np.float32)

    def scatter(name, fn, x, idx, upd, index=np.int32):
        def build():
            xp, xv = placeholder(x)
            up, uv = placeholder(upd, name="updates")
            return fn(xp, ints(idx, index), up), {xp: xv, up: uv}
        case("tensor_scatter_" + name, build)

    for fname, fn in (("sub", tf.tensor_scatter_nd_sub),
                      ("min", tf.tensor_scatter_nd_min),
                      ("max", tf.tensor_scatter_nd_max)):
        scatter(fname + "_rows", fn, base, [[1], [0], [1]],
                np.array([[3, 3, 3], [0, 9, 0], [1, 7, -2]], np.float32))
        scatter(fname + "_elements_int64", fn, base.astype(np.int64),
                [[0, 1], [1, 2], [0, 1]], np.array([4, 10, 2], np.int64),
                index=np.int64)
        for dtype in (np.uint8, np.float16, np.int16, np.float64):
            scatter(f"{fname}_{np.dtype(dtype).name}", fn,
                    base.astype(dtype), [[1, 1]], np.array([3], dtype))
        scatter(fname + "_bad_index", fn, base, [[2]],
                np.ones((1, 3), np.float32))
    scatter("sub_complex64", tf.tensor_scatter_nd_sub,
            base.astype(np.complex64), [[0, 0]],
            np.array([1 + 2j], np.complex64))
    scatter("max_nan", tf.tensor_scatter_nd_max, base, [[0, 0], [0, 1]],
            np.array([np.nan, 1], np.float32))


# --------------------------------------------------------------------------
# InplaceUpdate/Add/Sub


def inplace_cases():
    x = np.arange(12, dtype=np.float32).reshape(4, 3)

    # x is a constant, not a feed: TensorFlow writes into x's buffer, which
    # for a fed array is NumPy's own (the saved feed would change).
    def inplace(name, op, x, i, v):
        def build():
            vp, vv = placeholder(v, name="v")
            out = getattr(RAW, op)(x=tf.constant(x), i=ints(i), v=vp)
            return [out], {vp: vv}
        case("inplace_" + name, build)

    rows = np.array([[1, 1, 1], [10, 20, 30]], np.float32)
    for op in ("InplaceUpdate", "InplaceAdd", "InplaceSub"):
        inplace(op[7:].lower(), op, x, [2, 0], rows)
        inplace(op[7:].lower() + "_wrapped_indices", op, x, [-1, 5], rows)
        inplace(op[7:].lower() + "_repeated", op, x, [1, 1], rows)
    inplace("add_int64", "InplaceAdd", x.astype(np.int64), [3],
            np.array([[7, 8, 9]], np.int64))
    inplace("sub_complex128", "InplaceSub", x.astype(np.complex128), [0],
            np.array([[1j, 2, 3]], np.complex128))
    inplace("add_uint16", "InplaceAdd", x.astype(np.uint16), [1],
            np.array([[1, 2, 3]], np.uint16))
    inplace("update_bool", "InplaceUpdate", np.zeros((3, 2), bool), [1],
            np.array([[True, True]]))
    inplace("add_bool", "InplaceAdd", np.zeros((3, 2), bool), [1],
            np.array([[True, True]]))
    inplace("update_1d", "InplaceUpdate", np.arange(5, dtype=np.int32),
            [4, 0], np.array([-4, -9], np.int32))
    inplace("update_empty_rows", "InplaceUpdate", x, [],
            np.zeros((0, 3), np.float32))
    inplace("rank_mismatch", "InplaceAdd", x, [0], np.ones(3, np.float32))
    inplace("row_shape_mismatch", "InplaceAdd", x, [0],
            np.ones((1, 2), np.float32))
    inplace("index_count_mismatch", "InplaceUpdate", x, [0, 1],
            np.ones((1, 3), np.float32))

    def strings(op):
        def build():
            vp, vv = placeholder(np.array([b"z"]), name="v")
            x = tf.constant(np.array([b"a", b"b", b"c"]))
            return getattr(RAW, op)(x=x, i=ints([1]), v=vp), {vp: vv}
        return build
    case("inplace_update_string", strings("InplaceUpdate"))
    case("inplace_add_string", strings("InplaceAdd"))


# --------------------------------------------------------------------------
# CountUpTo, ResourceCountUpTo


def count_up_to_cases():
    def ref(dtype):
        def build():
            v = tf1.Variable(np.array(0, dtype), use_resource=False,
                             name="count_" + np.dtype(dtype).name)
            return {"init": v.initializer,
                    "count": RAW.CountUpTo(ref=v._ref(), limit=2),  # noqa
                    "read": v.read_value()}
        return build
    steps = [["init"], ["count"], ["count"], ["count"], ["read"]]
    steps_case(folder(), "count_up_to_int32", ref(np.int32), steps,
               note="the third step reaches the limit: OutOfRange")
    steps_case(folder(), "count_up_to_int64", ref(np.int64), steps)

    def python_api():
        v = tf1.Variable(np.array(5, np.int64), use_resource=False)
        return {"init": v.initializer, "count": tf1.count_up_to(v, 7),
                "read": v.read_value()}
    steps_case(folder(), "count_up_to_python", python_api, steps)

    def resource(dtype):
        def build():
            v = tf1.Variable(np.array(-1, dtype), use_resource=True,
                             name="rcount_" + np.dtype(dtype).name)
            return {"init": v.initializer,
                    "count": RAW.ResourceCountUpTo(resource=v.handle, limit=1,
                                                   T=tf.as_dtype(dtype)),
                    "read": v.read_value()}
        return build
    steps_case(folder(), "resource_count_up_to_int64", resource(np.int64),
               steps)
    steps_case(folder(), "resource_count_up_to_int32", resource(np.int32),
               steps)


# --------------------------------------------------------------------------
# Empty, TemporaryVariable


def empty_and_temporary_cases():
    def empty(name, shape, dtype, fetch_shape=False):
        def build():
            sv = np.asarray(shape, np.int32)
            sp = tf1.placeholder(tf.int32, shape=None)
            out = RAW.Empty(shape=sp, dtype=dtype, init=True)
            return [tf.shape(out) if fetch_shape else out], {sp: sv}
        case("empty_" + name, build)
    empty("float", [2, 3], tf.float32)
    empty("int64", [4], tf.int64)
    empty("complex64", [1, 2], tf.complex64)
    empty("string", [2], tf.string)
    empty("bool_zero_size", [0, 3], tf.bool)
    empty("scalar", [], tf.float64)
    empty("negative_dim", [2, -1], tf.float32)
    empty("shape_not_vector", [[2, 3]], tf.float32)

    def no_init():
        sp, sv = placeholder(np.asarray([3, 2], np.int32))
        return [tf.shape(RAW.Empty(shape=sp, dtype=tf.float32))], {sp: sv}
    case("empty_without_init_shape", no_init)

    def temporary():
        t = RAW.TemporaryVariable(shape=[2, 2], dtype=tf.float32,
                                  var_name="tmp")
        a = tf1.assign(t, np.array([[1, 2], [3, 4]], np.float32))
        b = tf1.assign_add(a, np.ones((2, 2), np.float32))
        out = RAW.DestroyTemporaryVariable(ref=b, var_name="tmp")
        return {"value": out}
    steps_case(folder(), "temporary_variable", temporary,
               [["value"], ["value"]],
               note="a step-scoped variable, assigned, updated and "
               "destroyed within each step")

    def temporary_slices():
        t = RAW.TemporaryVariable(shape=[3], dtype=tf.int32)
        a = tf1.assign(t, np.array([1, 2, 3], np.int32))
        b = tf1.scatter_add(a, ints([2, 0]), ints([10, 20]))
        out = RAW.DestroyTemporaryVariable(ref=b, var_name=t.op.name)
        return {"value": out}
    steps_case(folder(), "temporary_variable_default_name",
               temporary_slices, [["value"]])

    def temporary_in_loop():
        # A v1 while loop (frames and iterations): each iteration makes and
        # destroys a variable of its own.
        from tensorflow.python.ops import control_flow_util
        saved = control_flow_util.ENABLE_CONTROL_FLOW_V2
        control_flow_util.ENABLE_CONTROL_FLOW_V2 = False
        try:
            def body(i, acc):
                t = RAW.TemporaryVariable(shape=[2], dtype=tf.float32,
                                          var_name="loop_tmp")
                a = tf1.assign(t, tf.fill([2], tf.cast(i, tf.float32)))
                b = tf1.assign_add(a, np.ones(2, np.float32))
                value = RAW.DestroyTemporaryVariable(ref=b,
                                                     var_name="loop_tmp")
                return i + 1, acc + value
            _, total = tf1.while_loop(
                lambda i, acc: i < 4, body,
                [tf.constant(0), tf.zeros([2], tf.float32)])
        finally:
            control_flow_util.ENABLE_CONTROL_FLOW_V2 = saved
        return {"total": total}
    steps_case(folder(), "temporary_variable_in_loop", temporary_in_loop,
               [["total"]])


def main():
    tensor_slice_update_cases()
    slice_assign_cases()
    scatter_nd_cases()
    non_aliasing_and_gather_cases()
    tensor_scatter_cases()
    inplace_cases()
    count_up_to_cases()
    empty_and_temporary_cases()
    # Last: the first case empties the family's folder.
    golden_lib.write_op_defs(FAMILY, OP_NAMES)


if __name__ == "__main__":
    main()

"""Golden control flow: while loops, conds, Case, nested tf.functions,
gradients through loops and conds, TensorArrays, an LSTM and errors raised
inside a loop. Family "control_flow".

    $(tools/tf_env) tests/golden/gen_control_flow.py

Most behaviours are written twice, as control flow v1 (Switch, Merge, Enter,
Exit, NextIteration, LoopCond; StackV2 and TensorArrayV3 for gradients and
arrays) and as control flow v2 (functional While / If / Case calling
functions of the GraphDef's library; TensorList accumulators); the case
names end in _v1 or _v2. The version is chosen per graph by switching
control_flow_util.ENABLE_CONTROL_FLOW_V2 while the case's graph is built
(TensorFlow reads it when tf.while_loop, tf.cond and tf.TensorArray build
their ops). tf.switch_case builds a Case in both modes, so it has one form;
tf.function graphs are always v2.

Each case's note lists the op types of its GraphDef, including the nodes of
the library's functions, and the script ends by printing that table.
"""

import contextlib
import json
import os

os.environ["DFX_GOLDEN_EAGER"] = "1"  # tf.function and freezing need eager

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from tensorflow.core.framework import graph_pb2  # noqa: E402
from tensorflow.python.framework.convert_to_constants import (  # noqa: E402
    convert_variables_to_constants_v2)
from tensorflow.python.keras.layers.legacy_rnn import (  # noqa: E402
    rnn_cell_impl)
from tensorflow.python.ops import control_flow_util  # noqa: E402

import golden_lib  # noqa: E402

tf1 = tf.compat.v1
FAMILY = "control_flow"

# Cases that feed MatMul or transcendental results through later iterations
# allow for another summation order or libm in dfx.
ITER_TOL = {"rtol": 1e-4, "atol": 1e-5}

# case name -> sorted op types of its GraphDef (library functions included).
OP_TABLE = {}


@contextlib.contextmanager
def control_flow_version(v2):
    saved = control_flow_util.ENABLE_CONTROL_FLOW_V2
    control_flow_util.ENABLE_CONTROL_FLOW_V2 = v2
    try:
        yield
    finally:
        control_flow_util.ENABLE_CONTROL_FLOW_V2 = saved


def graph_ops(graph_def):
    ops = {n.op for n in graph_def.node}
    for fn in graph_def.library.function:
        ops.update(n.op for n in fn.node_def)
    return sorted(ops)


def _record_ops(name):
    """Appends the op types of the case's written GraphDef to its note, and
    rewrites graph.pb with deterministic serialization (attr maps in key
    order), so that regenerating leaves v1 graphs byte-identical. Graphs
    with a function library still change: TensorFlow numbers the functions
    (while_body_2465, ...) from a process-wide counter."""
    out_dir = os.path.join(golden_lib.DATA_DIR, FAMILY, name)
    graph_def = graph_pb2.GraphDef()
    with open(os.path.join(out_dir, "graph.pb"), "rb") as f:
        graph_def.ParseFromString(f.read())
    with open(os.path.join(out_dir, "graph.pb"), "wb") as f:
        f.write(graph_def.SerializeToString(deterministic=True))
    ops = graph_ops(graph_def)
    OP_TABLE[name] = ops
    path = os.path.join(out_dir, "case.json")
    with open(path) as f:
        spec = json.load(f)
    spec["note"] = (spec["note"] + " ops: " + ", ".join(ops)).strip()
    with open(path, "w") as f:
        json.dump(spec, f, indent=1, sort_keys=True)
        f.write("\n")


def case(name, build, v2=None, note="", **kwargs):
    """One case; v2 None leaves the control flow version alone (Case,
    tf.function graphs)."""
    def wrapped():
        if v2 is None:
            return build()
        with control_flow_version(v2):
            return build()
    golden_lib.case(FAMILY, name, wrapped, note=note, **kwargs)
    _record_ops(name)


def both(name, build, note="", **kwargs):
    """The case as control flow v1 (name_v1) and v2 (name_v2)."""
    case(name + "_v1", build, v2=False, note=note, **kwargs)
    case(name + "_v2", build, v2=True, note=note, **kwargs)


def graph_def_case(name, graph_def, feeds, fetches, note="", **kwargs):
    golden_lib.case_graph_def(FAMILY, name, graph_def, feeds, fetches,
                              note=note, **kwargs)
    _record_ops(name)


ph = golden_lib.placeholder


# ---------------------------------------------------------------- while


def while_cases():
    def scalar_counter():
        n, nv = ph(np.int32(7), name="n")
        [i] = tf.while_loop(lambda i: i < n, lambda i: i + 1,
                            [tf.constant(0)])
        return [i], {n: nv}

    both("while_scalar_counter", scalar_counter,
         note="counts to a fed n (7)")

    def accumulate():
        x, xv = ph(golden_lib.rng(1).normal(size=6).astype(np.float32),
                   name="x")

        def body(i, acc):
            xi = tf.gather(x, i)
            return i + 1, acc + xi * xi

        i, acc = tf.while_loop(lambda i, acc: i < tf.size(x), body,
                               [tf.constant(0), tf.constant(0.0)])
        return [i, acc], {x: xv}

    both("while_accumulate_fed_vector", accumulate,
         note="sum of squares of a fed vector, element by element")

    def parallel(iterations):
        def build():
            x, xv = ph(golden_lib.rng(2).normal(size=(3, 4))
                       .astype(np.float32), name="x")

            def body(i, acc):
                fi = tf.cast(i, tf.float32)
                return i + 1, acc * 0.5 + tf.reduce_sum(tf.sin(x * fi), 0)

            i, acc = tf.while_loop(
                lambda i, acc: i < 6, body,
                [tf.constant(0), tf.zeros([4])],
                parallel_iterations=iterations)
            return [i, acc], {x: xv}
        return build

    both("while_parallel_iterations_1", parallel(1),
         note="parallel_iterations=1", **ITER_TOL)
    both("while_parallel_iterations_10", parallel(10),
         note="parallel_iterations=10; same answer as with 1", **ITER_TOL)

    def mixed_dtypes():
        n, nv = ph(np.int32(5), name="n")
        start, startv = ph(np.array([1.5, -2.0], np.float32), name="start")

        def body(i, f, k):
            return (i + 1, f * 1.5 + tf.cast(i, tf.float32),
                    k * 3 + tf.cast(i, tf.int64))

        out = tf.while_loop(lambda i, f, k: i < n, body,
                            [tf.constant(0, tf.int32), start,
                             tf.constant(1, tf.int64)])
        return list(out), {n: nv, start: startv}

    both("while_mixed_dtype_vars", mixed_dtypes,
         note="loop vars int32, float32[2], int64")

    def nested():
        n, nv = ph(np.int32(5), name="n")

        def outer_body(i, total, ftotal):
            def inner_body(j, t, ft):
                root = tf.sqrt(tf.cast(i + j, tf.float32))
                return j + 1, t + i * j, ft + root

            _, total, ftotal = tf.while_loop(
                lambda j, t, ft: j < i, inner_body, [0, total, ftotal])
            return i + 1, total, ftotal

        _, total, ftotal = tf.while_loop(
            lambda i, t, ft: i < n, outer_body,
            [tf.constant(0), tf.constant(0), tf.constant(0.0)])
        return [total, ftotal], {n: nv}

    both("while_nested_inner_count_from_outer", nested,
         note="inner loop runs i times for outer i in [0, n)")

    def max_iterations():
        m, mv = ph(np.int32(4), name="max_iter")
        x, xv = ph(np.float32(1.25), name="x")
        i, y = tf.while_loop(lambda i, y: i < 100,
                             lambda i, y: (i + 1, y * x + 1.0),
                             (tf.constant(0), tf.constant(0.5)),
                             maximum_iterations=m)
        # A loop whose condition stops it before maximum_iterations.
        (j,) = tf.while_loop(lambda j: j < 2, lambda j: (j + 1,),
                             (tf.constant(0),), maximum_iterations=m)
        return [i, y, j], {m: mv, x: xv}

    both("while_maximum_iterations", max_iterations,
         note="fed maximum_iterations 4 stops a loop meant to run 100 "
              "times; another stops on its condition after 2")

    def invariant():
        w, wv = ph(golden_lib.rng(3).normal(size=(4, 4)).astype(np.float32)
                   * 0.5, name="w")
        h0, h0v = ph(golden_lib.rng(4).normal(size=(4, 1))
                     .astype(np.float32), name="h0")
        _, h = tf.while_loop(lambda i, h: i < 3,
                             lambda i, h: (i + 1, tf.tanh(tf.matmul(w, h))),
                             [tf.constant(0), h0])
        return [h], {w: wv, h0: h0v}

    both("while_loop_invariant_fed_tensor", invariant,
         note="body multiplies by a fed matrix that every iteration reads",
         **ITER_TOL)

    def zero_iterations():
        n, nv = ph(np.int32(0), name="n")
        x, xv = ph(np.array([1.0, 2.0, 3.0], np.float32), name="x")
        i, y = tf.while_loop(lambda i, y: i < n,
                             lambda i, y: (i + 1, tf.exp(y) * 2.0),
                             [tf.constant(0), x])
        return [i, y], {n: nv, x: xv}

    both("while_zero_iterations", zero_iterations,
         note="fed n = 0: the body never runs, the loop returns its inputs")

    def shape_changing():
        n, nv = ph(np.int32(5), name="n")

        def body(i, v):
            fill = tf.fill([i + 1], tf.cast(i, tf.float32))
            return i + 1, tf.concat([v, fill], 0)

        i, v = tf.while_loop(lambda i, v: i < n, body,
                             [tf.constant(0), tf.zeros([0])],
                             shape_invariants=[tf.TensorShape([]),
                                               tf.TensorShape([None])])
        return [i, v, tf.shape(v)], {n: nv}

    both("while_shape_invariant_concat", shape_changing,
         note="a vector grows by concat each iteration (shape_invariants)")


# ----------------------------------------------------------------- cond


def cond_cases():
    def simple(pred_value):
        def build():
            p, pv = ph(np.bool_(pred_value), name="pred")
            x, xv = ph(np.array([1.0, -2.0, 3.5], np.float32), name="x")
            y = tf.cond(p, lambda: x * 2.0, lambda: x - 1.0)
            return [y], {p: pv, x: xv}
        return build

    both("cond_simple_true", simple(True), note="fed predicate true")
    both("cond_simple_false", simple(False), note="fed predicate false")

    def different_ops(pred_value):
        def build():
            rng = golden_lib.rng(5)
            p, pv = ph(np.bool_(pred_value), name="pred")
            a, av = ph(rng.normal(size=(2, 3)).astype(np.float32), name="a")
            b, bv = ph(rng.normal(size=(3, 2)).astype(np.float32), name="b")
            y = tf.cond(
                p,
                lambda: tf.nn.relu(tf.matmul(a, b)),
                lambda: tf.exp(tf.reduce_sum(a, 1, keepdims=True))
                * tf.ones([2, 2]) - tf.transpose(b[:2, :2]))
            return [y], {p: pv, a: av, b: bv}
        return build

    both("cond_branch_ops_differ_true", different_ops(True),
         note="true branch MatMul+Relu, false branch Sum+Exp+Transpose",
         **ITER_TOL)
    both("cond_branch_ops_differ_false", different_ops(False),
         note="true branch MatMul+Relu, false branch Sum+Exp+Transpose",
         **ITER_TOL)

    def nested():
        x, xv = ph(np.array([0.5, 1.5], np.float32), name="x")
        feeds = {x: xv}
        outs = []
        for k_value in [7, 3, -2]:
            k, kv = ph(np.int32(k_value),
                       name=f"k_{k_value}".replace("-", "m"))
            feeds[k] = kv
            outs.append(tf.cond(
                k > 0,
                lambda k=k: tf.cond(k > 5, lambda: x * 10.0,
                                    lambda: x + tf.cast(k, tf.float32)),
                lambda: -x))
        return outs, feeds

    both("cond_nested", nested,
         note="outer cond k > 0, inner k > 5; fed k 7, 3 and -2 take each "
              "path")

    def in_while():
        x, xv = ph(np.array([1.0, 2.0], np.float32), name="x")
        n, nv = ph(np.int32(6), name="n")

        def body(i, acc):
            step = tf.cond(tf.equal(i % 2, 0),
                           lambda: x * tf.cast(i, tf.float32),
                           lambda: -tf.sqrt(x))
            return i + 1, acc + step

        _, acc = tf.while_loop(lambda i, acc: i < n, body,
                               [tf.constant(0), tf.zeros([2])])
        return [acc], {x: xv, n: nv}

    both("cond_inside_while", in_while,
         note="even iterations add i*x, odd ones subtract sqrt(x)")

    def while_in_cond(pred_value):
        def build():
            p, pv = ph(np.bool_(pred_value), name="pred")
            n, nv = ph(np.int32(4), name="n")
            x, xv = ph(np.array([1.0, 3.0], np.float32), name="x")

            def loop():
                _, y = tf.while_loop(lambda i, y: i < n,
                                     lambda i, y: (i + 1, y * 1.5 + 1.0),
                                     [tf.constant(0), x])
                return y

            y = tf.cond(p, loop, lambda: x - 100.0)
            return [y], {p: pv, n: nv, x: xv}
        return build

    both("while_inside_cond_taken", while_in_cond(True),
         note="the loop is in the taken branch")
    both("while_inside_cond_untaken", while_in_cond(False),
         note="the loop is in the untaken branch: it must not run or hang")

    def several_outputs(pred_value):
        def build():
            p, pv = ph(np.bool_(pred_value), name="pred")
            x, xv = ph(np.array([[1.0, 2.0], [3.0, 4.0]], np.float32),
                       name="x")
            a, b, c = tf.cond(
                p,
                lambda: (x + 1.0, tf.constant(1, tf.int32),
                         tf.reduce_max(x, 1)),
                lambda: (x * x, tf.constant(2, tf.int32),
                         tf.reduce_min(x, 1)))
            return [a, b, c], {p: pv, x: xv}
        return build

    both("cond_several_outputs_true", several_outputs(True),
         note="branches return (float32[2,2], int32, float32[2])")
    both("cond_several_outputs_false", several_outputs(False),
         note="branches return (float32[2,2], int32, float32[2])")


# ----------------------------------------------------------------- case


def switch_cases():
    def switch(index_value):
        def build():
            idx, idxv = ph(np.int32(index_value), name="index")
            x, xv = ph(np.array([1.0, 2.0, 3.0], np.float32), name="x")
            y = tf.switch_case(idx, [lambda: x + 1.0,
                                     lambda: x * x,
                                     lambda: -x])
            return [y], {idx: idxv, x: xv}
        return build

    note = ("tf.switch_case with 3 branches builds a Case in v1 and v2 "
            "alike; out of range uses the last branch")
    case("switch_case_index_0", switch(0), note=note)
    case("switch_case_index_1", switch(1), note=note)
    case("switch_case_index_out_of_range", switch(7), note=note + " (7)")
    case("switch_case_index_negative", switch(-1), note=note + " (-1)")

    def pred_pairs():
        k, kv = ph(np.int32(2), name="k")
        x, xv = ph(np.array([1.0, 2.0], np.float32), name="x")
        y = tf1.case([(tf.equal(k, 1), lambda: x + 1.0),
                      (tf.equal(k, 2), lambda: x * 3.0)],
                     default=lambda: x - 5.0, exclusive=True)
        return [y], {k: kv, x: xv}

    both("case_pred_fn_pairs", pred_pairs,
         note="tf.compat.v1.case: a chain of conds plus an exclusivity check")


# ---------------------------------------------------------- tf.function


def function_cases():
    @tf.function
    def affine(x, w):
        return tf.matmul(x, w) + 1.0

    @tf.function
    def middle(x, w):
        z = affine(x, w)
        total = tf.constant(0.0)
        for i in tf.range(3):  # autograph: a While
            total += tf.reduce_sum(z) * tf.cast(i, tf.float32)
        if tf.reduce_sum(z) > 0:  # autograph: an If
            z = affine(z, w)
        else:
            z = -z
        return z, total

    @tf.function
    def outer(x, w):
        z, total = middle(x, w)
        return z * 2.0, total, affine(x, w)

    rng = golden_lib.rng(6)
    xv = rng.normal(size=(2, 3)).astype(np.float32)
    wv = rng.normal(size=(3, 3)).astype(np.float32)
    concrete = outer.get_concrete_function(
        tf.TensorSpec((2, 3), tf.float32, name="x"),
        tf.TensorSpec((3, 3), tf.float32, name="w"))
    graph_def = concrete.graph.as_graph_def()
    graph_def_case(
        "function_nested_calls", graph_def,
        dict(zip([t.name for t in concrete.inputs], [xv, wv])),
        [t.name for t in concrete.outputs],
        note="tf.function calling tf.functions (PartitionedCall), with an "
             "autograph loop and if", **ITER_TOL)

    @tf.function
    def checked_scale(x):
        tf.debugging.assert_all_finite(x, "x must be finite")
        tf.debugging.Assert(tf.reduce_all(tf.abs(x) < 1e6), [x])
        return x * 3.0

    @tf.function
    def outer_stateful(x):
        return checked_scale(checked_scale(x) - 1.0)

    concrete = outer_stateful.get_concrete_function(
        tf.TensorSpec((2, 3), tf.float32, name="x"))
    graph_def = concrete.graph.as_graph_def()
    graph_def_case(
        "function_nested_stateful_calls", graph_def,
        dict(zip([t.name for t in concrete.inputs], [xv])),
        [t.name for t in concrete.outputs],
        note="nested tf.functions holding Asserts are called with "
             "StatefulPartitionedCall")

    w_var = tf.Variable(wv, name="w")
    b_var = tf.Variable(np.float32(0.25), name="b")

    @tf.function
    def inner_v(x):
        return tf.matmul(x, w_var) + b_var

    @tf.function
    def outer_v(x):
        y = inner_v(x)
        i = tf.constant(0)
        while i < 2:
            y = inner_v(y)
            i += 1
        return tf.nn.relu(y)

    concrete = outer_v.get_concrete_function(
        tf.TensorSpec((2, 3), tf.float32, name="x"))
    # By default freezing inlines the calls and lowers While/If to v1
    # primitives, as exported serving graphs are; lower_control_flow=False
    # keeps the functional ops and the library.
    for suffix, lower in [("", True), ("_functional", False)]:
        frozen = convert_variables_to_constants_v2(
            concrete, lower_control_flow=lower)
        graph_def_case(
            "function_nested_calls_frozen" + suffix,
            frozen.graph.as_graph_def(),
            dict(zip([t.name for t in frozen.inputs], [xv])),
            [t.name for t in frozen.outputs],
            note="nested tf.functions reading variables, frozen with "
                 f"convert_variables_to_constants_v2(lower_control_flow="
                 f"{lower})", **ITER_TOL)


# ------------------------------------------------------------ gradients


def gradient_cases():
    def while_grad():
        rng = golden_lib.rng(7)
        x, xv = ph(rng.normal(size=3).astype(np.float32), name="x")
        w, wv = ph(rng.normal(size=3).astype(np.float32), name="w")
        _, h = tf.while_loop(lambda i, h: i < 4,
                             lambda i, h: (i + 1, tf.sin(h) * w + x),
                             [tf.constant(0), x])
        loss = tf.reduce_sum(h * h)
        gx, gw = tf.gradients(loss, [x, w])
        return [h, loss, gx, gw], {x: xv, w: wv}

    both("gradient_while", while_grad,
         note="tf.gradients through 4 iterations of h = sin(h)*w + x "
              "(v1 keeps forward values on stacks, v2 in TensorLists)",
         **ITER_TOL)

    def cond_grad(pred_value):
        def build():
            p, pv = ph(np.bool_(pred_value), name="pred")
            x, xv = ph(np.array([0.5, -1.0, 2.0], np.float32), name="x")
            w, wv = ph(np.float32(1.5), name="w")
            y = tf.cond(p, lambda: x * x * w, lambda: tf.sin(x) + w)
            loss = tf.reduce_sum(y)
            gx, gw = tf.gradients(loss, [x, w])
            return [y, gx, gw], {p: pv, x: xv, w: wv}
        return build

    both("gradient_cond_true", cond_grad(True), note="predicate true")
    both("gradient_cond_false", cond_grad(False), note="predicate false")


# ---------------------------------------------------------- TensorArray


def tensor_array_cases():
    def loop():
        x, xv = ph(golden_lib.rng(8).normal(size=(5, 2)).astype(np.float32),
                   name="x")
        n = tf.shape(x)[0]
        inputs = tf.TensorArray(tf.float32, size=n).unstack(x)
        outputs = tf.TensorArray(tf.float32, size=n)

        def body(i, running, out):
            running = running + inputs.read(i)
            scaled = running * tf.cast(i, tf.float32)
            return i + 1, running, out.write(i, scaled)

        _, running, outputs = tf.while_loop(
            lambda i, r, o: i < n, body,
            [tf.constant(0), tf.zeros([2]), outputs])
        return [running, outputs.stack(), outputs.size()], {x: xv}

    both("tensor_array_in_loop", loop,
         note="unstack a fed matrix, read and write per iteration, stack "
              "(v1 TensorArrayV3, v2 TensorList ops)")


# ----------------------------------------------------------------- LSTM


def lstm_cases():
    """dynamic_rnn over LSTMCell; the cell's variables are initialized from
    fixed numpy values and frozen to constants, so each case is one run."""
    batch, time, depth, units = 2, 5, 3, 4
    rng = golden_lib.rng(9)
    xv = rng.normal(size=(batch, time, depth)).astype(np.float32)
    lengths = np.array([5, 3], np.int32)
    kernel = (rng.normal(size=(depth + units, 4 * units)) * 0.4).astype(
        np.float32)
    target = rng.normal(size=(batch, time, units)).astype(np.float32)

    def frozen_lstm(v2):
        graph = tf.Graph()
        with graph.as_default(), control_flow_version(v2):
            x = tf1.placeholder(tf.float32, (batch, time, depth), name="x")
            seq = tf1.placeholder(tf.int32, (batch,), name="lengths")
            cell = rnn_cell_impl.LSTMCell(
                units, initializer=tf1.constant_initializer(kernel))
            outputs, state = tf1.nn.dynamic_rnn(cell, x, sequence_length=seq,
                                                dtype=tf.float32)
            loss = (tf.reduce_sum(outputs * target)
                    + tf.reduce_sum(state.c * state.c))
            grads = tf.gradients(loss, [x] + cell.trainable_variables)
            fetches = [outputs, state.c, state.h, loss] + grads
            with tf1.Session(graph=graph) as sess:
                sess.run(tf1.global_variables_initializer())
                frozen = tf1.graph_util.convert_variables_to_constants(
                    sess, graph.as_graph_def(),
                    sorted({t.op.name for t in fetches}))
        return frozen, [t.name for t in fetches]

    for v2 in [False, True]:
        frozen, fetches = frozen_lstm(v2)
        graph_def_case(
            "lstm_dynamic_rnn_v2" if v2 else "lstm_dynamic_rnn_v1", frozen,
            {"x:0": xv, "lengths:0": lengths}, fetches,
            rtol=1e-4, atol=1e-5,
            note="dynamic_rnn over LSTMCell(4) (batch 2, time 5, lengths "
                 "5 and 3), its gradients wrt inputs, kernel and bias; "
                 "variables frozen to constants")


# --------------------------------------------------------------- errors


def error_cases():
    def gather_error():
        params, paramsv = ph(np.array([10.0, 20.0, 30.0], np.float32),
                             name="params")
        idx, idxv = ph(np.array([0, 2, 5, 1], np.int32), name="indices")

        def body(i, acc):
            return i + 1, acc + tf.gather(params, tf.gather(idx, i))

        _, acc = tf.while_loop(lambda i, acc: i < 4, body,
                               [tf.constant(0), tf.constant(0.0)])
        return [acc], {params: paramsv, idx: idxv}

    both("error_in_loop_body_gather_out_of_range", gather_error,
         note="the third iteration gathers index 5 of a 3-element tensor")

    def assert_in_loop(limit_value):
        def build():
            limit, limitv = ph(np.float32(limit_value), name="limit")
            x, xv = ph(np.array([1.0, 2.0], np.float32), name="x")

            def body(i, y):
                y = y * 2.0
                check = tf.debugging.Assert(tf.reduce_all(y < limit), [i, y])
                with tf.control_dependencies([check]):
                    return i + 1, tf.identity(y)

            _, y = tf.while_loop(lambda i, y: i < 4, body,
                                 [tf.constant(0), x])
            return [y], {limit: limitv, x: xv}
        return build

    both("while_stateful_body_assert_passes", assert_in_loop(100.0),
         note="an Assert in the body makes the v2 loop a stateful While; "
              "it holds on every iteration")
    both("error_in_loop_body_assert_fails", assert_in_loop(10.0),
         note="the Assert in the body fails on the third iteration "
              "(y = [8, 16] >= 10)")


def main():
    for fn in [while_cases, cond_cases, switch_cases, function_cases,
               gradient_cases, tensor_array_cases, lstm_cases, error_cases]:
        fn()
    width = max(len(name) for name in OP_TABLE)
    print(f"{'case'.ljust(width)}  op types (GraphDef and its library)")
    for name in sorted(OP_TABLE):
        print(f"{name.ljust(width)}  {', '.join(OP_TABLE[name])}")


if __name__ == "__main__":
    main()

"""Golden cases for TF2 functions: graphs of tf.function concrete functions,
exported by TensorFlow 2.21 as they are (StatefulPartitionedCall,
StatelessIf, StatelessWhile, StatelessCase and the function library), fed,
fetched, and answered by TensorFlow.

    $(tools/tf_env) tests/graph/gen_functions.py

writes tests/graph/data/functions/<case>/ in golden_lib's format (graph.pb,
case.json, feed_<i>.npy, out_<i>.npy); tests/golden/functions_test.cc runs
them through a dfx local session. A case whose graph needs ops dfx does not
have yet can be written with needs=[...] ("needs" in case.json); the
test then expects Extend to name those ops.
"""

import json
import os
import sys

os.environ["DFX_GOLDEN_EAGER"] = "1"
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "golden"))

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

import golden_lib  # noqa: E402

golden_lib.DATA_DIR = os.path.join(HERE, "data")
FAMILY = "functions"


def export(fn, *values, needs=None, note=""):
    """Traces `fn` (a tf.function) for `values`, writes its graph as a case."""
    specs = [tf.TensorSpec(np.asarray(v).shape, tf.as_dtype(np.asarray(v).dtype))
             for v in values]
    cf = fn.get_concrete_function(*specs)
    graph_def = cf.graph.as_graph_def()
    name = fn.__name__ if hasattr(fn, "__name__") else fn.python_function.__name__
    feeds = {t.name: np.asarray(v) for t, v in zip(cf.inputs, values)}
    fetches = [t.name for t in cf.outputs]
    golden_lib.case_graph_def(FAMILY, name, graph_def, feeds, fetches, note=note)
    out_dir = os.path.join(golden_lib.DATA_DIR, FAMILY, name)
    # Attr maps in key order, so regenerating leaves graph.pb as it was
    # (unless TensorFlow's function numbering moves, when cases are added).
    with open(os.path.join(out_dir, "graph.pb"), "wb") as f:
        f.write(graph_def.SerializeToString(deterministic=True))
    if needs:
        path = os.path.join(out_dir, "case.json")
        with open(path) as f:
            spec = json.load(f)
        spec["needs"] = needs
        with open(path, "w") as f:
            json.dump(spec, f, indent=1, sort_keys=True)
            f.write("\n")


@tf.function
def scale(x):
    return x * 3.0


@tf.function
def shift(x):
    return scale(x) + 1.0


@tf.function
def nested_calls(x):
    # Two levels of StatefulPartitionedCall, one called twice.
    return shift(x) - shift(2.0 * x)


@tf.function
def cond_in_function(x, p):
    return tf.cond(p, lambda: x + 10.0, lambda: x * x)


@tf.function
def cond_false_branch(x):
    # The predicate is computed in the graph: false for this input.
    return tf.cond(tf.reduce_sum(x) > 100.0, lambda: x + 10.0,
                   lambda: tf.zeros_like(x) - 1.0)


@tf.function
def while_in_function(x):
    def cond(i, acc):
        return i < 5

    def body(i, acc):
        return i + 1, acc * 2.0 + tf.cast(i, tf.float32)

    i, acc = tf.while_loop(cond, body, [tf.constant(0), x])
    return i, acc


@tf.function
def while_zero_iterations(x):
    _, acc = tf.while_loop(lambda i, a: i < 0, lambda i, a: (i + 1, a + 1.0),
                           [tf.constant(0), x])
    return acc


@tf.function
def switch_case(x, k):
    return tf.switch_case(k, [lambda: x + 1.0, lambda: x * 10.0,
                              lambda: -x])


@tf.function
def cond_in_while(x):
    def body(i, acc):
        acc = tf.cond(i % 2 == 0, lambda: acc + 1.0, lambda: acc * 3.0)
        return i + 1, acc

    _, acc = tf.while_loop(lambda i, a: i < 4, body, [tf.constant(0), x])
    return acc


@tf.function
def nested_while(x):
    def outer(i, acc):
        _, inner = tf.while_loop(lambda j, a: j < i, lambda j, a: (j + 1, a + 1.0),
                                 [tf.constant(0), acc])
        return i + 1, inner

    _, acc = tf.while_loop(lambda i, a: i < 4, outer, [tf.constant(0), x])
    return acc


@tf.function
def while_gradient(x):
    with tf.GradientTape() as tape:
        tape.watch(x)
        _, y = tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * a),
                             [tf.constant(0), x])
        loss = tf.reduce_sum(y)
    return tape.gradient(loss, x)


@tf.function
def resource_in_loop_and_cond(x):
    # A variable handle as a loop variable (it enters the frame once, as a
    # constant) and side effects that only control outputs keep alive.
    h = tf.raw_ops.VarHandleOp(dtype=tf.float32, shape=[3],
                               shared_name="functions_test_acc")
    tf.raw_ops.AssignVariableOp(resource=h, value=tf.zeros([3]))

    def body(i):
        tf.raw_ops.AssignAddVariableOp(resource=h, value=x)
        return i + 1

    tf.while_loop(lambda i: i < 3, body, [tf.constant(0)])

    def add_more():
        tf.raw_ops.AssignAddVariableOp(resource=h, value=tf.ones([3]) * 100.0)
        return tf.constant(1)

    tf.cond(x[0] > 0.0, add_more, lambda: tf.constant(0))
    return tf.raw_ops.ReadVariableOp(resource=h, dtype=tf.float32)


def main():
    x = np.array([1.0, -2.0, 0.5], np.float32)
    export(nested_calls, x)
    export(cond_in_function, x, np.array(True))
    # The same graph, the other branch: a second case with p false.
    @tf.function
    def cond_in_function_false(x, p):
        return tf.cond(p, lambda: x + 10.0, lambda: x * x)
    export(cond_in_function_false, x, np.array(False))
    export(cond_false_branch, x)
    export(while_in_function, x)
    export(while_zero_iterations, x)
    export(switch_case, x, np.array(1, np.int32))

    @tf.function
    def switch_case_out_of_range(x, k):
        return tf.switch_case(k, [lambda: x + 1.0, lambda: x * 10.0,
                                  lambda: -x])
    export(switch_case_out_of_range, x, np.array(7, np.int32),
           note="an index out of range runs the last branch")
    export(cond_in_while, x)
    export(nested_while, x)
    export(resource_in_loop_and_cond, x)
    export(while_gradient, x,
           note="gradients of a loop accumulate forward values in TensorLists")


if __name__ == "__main__":
    main()

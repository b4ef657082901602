"""Golden cases of the queues family: FIFOQueueV2, PaddingFIFOQueueV2 and
their ops, and the conditional accumulators (dense, sparse, resource), as
TensorFlow 2.21 runs them. Also writes TensorFlow's OpDefs of those ops
(tests/golden/data/queues/tf_op_defs.pbtxt), which
tests/kernels/queue_test.cc compares byte for byte with dfx's.

    $(tools/tf_env) tests/golden/gen_queues.py

Queues and accumulators keep state between steps, so most cases are
multi-step: one graph, then a list of steps run one after another in one
session, each with its fetches and targets (node names) and TensorFlow's
outputs or error code. case.json has "steps" instead of "fetches"; each
step's outputs are out_<step>_<i>.npy. golden_test.cc runs the steps in
order in one dfx session. Scalar fetches are reshaped to [1] (see
gen_array.py). No case names a shared_name: every queue and accumulator
belongs to its session, so cases cannot see each other's.
"""

import os
import shutil

import numpy as np

import golden_lib
from golden_lib import tf, tf1

FAMILY = "queues"
raw = tf.raw_ops

OPS = ["FIFOQueueV2", "PaddingFIFOQueueV2", "QueueEnqueueV2",
       "QueueEnqueueManyV2", "QueueDequeueV2", "QueueDequeueManyV2",
       "QueueDequeueUpToV2", "QueueCloseV2", "QueueSizeV2", "QueueIsClosedV2",
       "ConditionalAccumulator", "AccumulatorApplyGradient",
       "AccumulatorNumAccumulated", "AccumulatorSetGlobalStep",
       "AccumulatorTakeGradient", "SparseConditionalAccumulator",
       "SparseAccumulatorApplyGradient", "SparseAccumulatorTakeGradient",
       "ResourceConditionalAccumulator", "ResourceAccumulatorApplyGradient",
       "ResourceAccumulatorNumAccumulated",
       "ResourceAccumulatorSetGlobalStep", "ResourceAccumulatorTakeGradient",
       "FIFOQueue", "PaddingFIFOQueue", "QueueEnqueue", "QueueEnqueueMany",
       "QueueDequeue", "QueueDequeueMany", "QueueDequeueUpTo", "QueueClose",
       "QueueSize", "QueueIsClosed", "PriorityQueueV2", "PriorityQueue",
       "RandomShuffleQueue"]


def family_dir():
    path = os.path.join(golden_lib.DATA_DIR, FAMILY)
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    return path


flat = golden_lib.flat


def steps_case(folder, name, build, steps, note=""):
    golden_lib.steps_case(folder, name, build, steps, note=note)


def f32(v):
    return tf.constant(np.asarray(v, np.float32))


def i32(v):
    return tf.constant(np.asarray(v, np.int32))


def i64(v):
    return tf.constant(np.asarray(v, np.int64))


# --------------------------------------------------------------------------
# Queues


def fifo(types, shapes=(), capacity=-1):
    return raw.FIFOQueueV2(component_types=types, shapes=list(shapes),
                           capacity=capacity)


def queue_cases(folder):
    def two_components():
        q = fifo([tf.float32, tf.int32], [[2], []], capacity=3)
        enq_a = raw.QueueEnqueueV2(handle=q, components=[f32([1, 2]), i32(7)])
        enq_b = raw.QueueEnqueueV2(handle=q,
                                   components=[f32([3, 4]), i32(8)])
        deq = raw.QueueDequeueV2(handle=q,
                                 component_types=[tf.float32, tf.int32])
        return {"enq_a": enq_a, "enq_b": enq_b, "x": deq[0], "y": deq[1],
                "size": raw.QueueSizeV2(handle=q)}
    steps_case(folder, "fifo_across_steps", two_components,
               [["enq_a"], ["enq_b"], ["size"], ["x", "y"], ["size"],
                ["x", "y"], ["size"]],
               note="enqueued by two steps, dequeued by later ones in order")

    def python_api():
        q = tf1.FIFOQueue(4, [tf.float32], shapes=[[3]])
        enq = q.enqueue_many([f32(np.arange(12).reshape(4, 3))])
        deq = q.dequeue_many(2)
        one = q.dequeue()
        return {"enq": enq, "deq": deq, "one": one, "size": q.size()}
    steps_case(folder, "python_fifo_enqueue_many", python_api,
               [["enq"], ["deq"], ["one"], ["size"]],
               note="tf.compat.v1.FIFOQueue's enqueue_many, dequeue_many")

    def close_cases():
        q = fifo([tf.float32], [[]])
        enq = raw.QueueEnqueueManyV2(handle=q,
                                     components=[f32([1, 2, 3, 4])])
        deq2 = raw.QueueDequeueManyV2(handle=q, n=2,
                                      component_types=[tf.float32])
        upto = raw.QueueDequeueUpToV2(handle=q, n=5,
                                      component_types=[tf.float32])
        one = raw.QueueDequeueV2(handle=q, component_types=[tf.float32])
        close = raw.QueueCloseV2(handle=q)
        return {"enq": enq, "deq2": deq2[0], "upto": upto[0], "one": one[0],
                "close": close, "closed": raw.QueueIsClosedV2(handle=q),
                "size": raw.QueueSizeV2(handle=q)}
    steps_case(folder, "close_then_drain", close_cases,
               [["enq"], ["closed"], ["deq2"], ["close"], ["closed"],
                ["enq"], ["deq2"], ["size"], ["upto"], ["one"], ["upto"]],
               note="enqueue on a closed queue is Cancelled; DequeueMany "
               "with too few is OutOfRange and leaves them; DequeueUpTo "
               "takes what is left; then OutOfRange")

    def padding():
        q = raw.PaddingFIFOQueueV2(component_types=[tf.int32, tf.float32],
                                   shapes=[[None], [2, None]])
        e1 = raw.QueueEnqueueV2(handle=q, components=[
            i32([1, 2]), f32([[1], [2]])])
        e2 = raw.QueueEnqueueV2(handle=q, components=[
            i32([3]), f32([[1, 2, 3], [4, 5, 6]])])
        e3 = raw.QueueEnqueueV2(handle=q, components=[
            i32([4, 5, 6]), f32(np.zeros([2, 0]))])
        deq = raw.QueueDequeueManyV2(handle=q, n=3,
                                     component_types=[tf.int32, tf.float32])
        return {"e1": e1, "e2": e2, "e3": e3, "a": deq[0], "b": deq[1]}
    steps_case(folder, "padding_dequeue_many", padding,
               [["e1"], ["e2"], ["e3"], ["a", "b"]],
               note="each batch padded with zeros to its largest element")

    def bad_type():
        q = fifo([tf.float32], [[2]])
        enq = raw.QueueEnqueueV2(handle=q, components=[i32([1, 2])])
        return {"enq": enq}
    steps_case(folder, "enqueue_wrong_dtype", bad_type, [["enq"]])

    def bad_shape():
        q = fifo([tf.float32], [[2]])
        enq = raw.QueueEnqueueV2(handle=q, components=[f32([1, 2, 3])])
        many = raw.QueueEnqueueManyV2(handle=q,
                                      components=[f32([[1, 2, 3]])])
        return {"enq": enq, "many": many}
    steps_case(folder, "enqueue_wrong_shape", bad_shape,
               [["enq"], ["many"]])

    def bad_count():
        q = fifo([tf.float32, tf.float32], [[], []])
        enq = raw.QueueEnqueueV2(handle=q, components=[f32(1)])
        return {"enq": enq}
    steps_case(folder, "enqueue_wrong_component_count", bad_count, [["enq"]])

    def unshaped():
        q = fifo([tf.float32])
        enq = raw.QueueEnqueueV2(handle=q, components=[f32([1, 2])])
        one = raw.QueueDequeueV2(handle=q, component_types=[tf.float32])
        many = raw.QueueDequeueManyV2(handle=q, n=1,
                                      component_types=[tf.float32])
        return {"enq": enq, "one": one[0], "many": many[0]}
    steps_case(folder, "unshaped_queue", unshaped,
               [["enq"], ["enq"], ["one"], ["many"]],
               note="any shape goes in; DequeueMany needs shapes")

    def dequeue_zero():
        q = fifo([tf.float32], [[3]])
        many = raw.QueueDequeueManyV2(handle=q, n=0,
                                      component_types=[tf.float32])
        return {"many": many[0]}
    steps_case(folder, "dequeue_many_zero", dequeue_zero, [["many"]])

    def cancel_pending():
        q = fifo([tf.float32], [[]], capacity=2)
        enq = raw.QueueEnqueueManyV2(handle=q, components=[f32([1, 2])])
        close = raw.QueueCloseV2(handle=q, cancel_pending_enqueues=True)
        deq = raw.QueueDequeueManyV2(handle=q, n=2,
                                     component_types=[tf.float32])
        return {"enq": enq, "close": close, "deq": deq[0]}
    steps_case(folder, "close_cancel_pending_keeps_elements", cancel_pending,
               [["enq"], ["close"], ["deq"], ["deq"]])


    def tf1_ops():
        q = raw.PaddingFIFOQueue(component_types=[tf.float32],
                                 shapes=[[None]], capacity=3)
        e1 = raw.QueueEnqueue(handle=q, components=[f32([1, 2])])
        many = raw.QueueEnqueueMany(handle=q, components=[f32([[3], [4]])])
        deq = raw.QueueDequeueMany(handle=q, n=2,
                                   component_types=[tf.float32])
        upto = raw.QueueDequeueUpTo(handle=q, n=2,
                                    component_types=[tf.float32])
        one = raw.QueueDequeue(handle=q, component_types=[tf.float32])
        return {"e1": e1, "many": many, "deq": deq[0], "upto": upto[0],
                "one": one[0], "close": raw.QueueClose(handle=q),
                "closed": raw.QueueIsClosed(handle=q),
                "size": raw.QueueSize(handle=q)}
    steps_case(folder, "tf1_ref_handle_ops", tf1_ops,
               [["e1"], ["many"], ["size"], ["deq"], ["close"], ["closed"],
                ["upto"], ["one"], ["e1"]],
               note="FIFOQueue's TF1 forms (a reference to a string handle)")

    def padding_bad_rank():
        q = raw.PaddingFIFOQueueV2(component_types=[tf.int32],
                                   shapes=[[None]])
        enq = raw.QueueEnqueueV2(handle=q, components=[i32([[1, 2]])])
        return {"enq": enq, "size": raw.QueueSizeV2(handle=q)}
    steps_case(folder, "padding_enqueue_wrong_rank", padding_bad_rank,
               [["enq"], ["size"]])

    def negative_n():
        q = fifo([tf.float32], [[]])
        enq = raw.QueueEnqueueV2(handle=q, components=[f32(1)])
        # Through a PlaceholderWithDefault: TensorFlow's shape function
        # rejects a constant negative n when the graph is built.
        many = raw.QueueDequeueManyV2(
            handle=q, n=tf1.placeholder_with_default(-1, []),
            component_types=[tf.float32])
        upto = raw.QueueDequeueUpToV2(
            handle=q, n=tf1.placeholder_with_default(-2, []),
            component_types=[tf.float32])
        return {"enq": enq, "many": many[0], "upto": upto[0],
                "size": raw.QueueSizeV2(handle=q)}
    steps_case(folder, "dequeue_negative_n", negative_n,
               [["enq"], ["many"], ["upto"], ["size"]])

    def capacity_one():
        q = fifo([tf.int64], [[2]], capacity=1)
        e1 = raw.QueueEnqueueV2(handle=q, components=[i64([1, 2])])
        one = raw.QueueDequeueV2(handle=q, component_types=[tf.int64])
        return {"e1": e1, "one": one[0], "size": raw.QueueSizeV2(handle=q)}
    steps_case(folder, "capacity_one_alternating", capacity_one,
               [["e1"], ["size"], ["one"], ["e1"], ["one"], ["size"]])


# --------------------------------------------------------------------------
# Accumulators


def priority_cases(folder):
    def python_api():
        q = tf1.PriorityQueue(capacity=-1, types=[tf.string], shapes=[[]])
        enq = q.enqueue_many((i64([5, 1, 3, 1, 4, 2]),
                              tf.constant([b"e", b"a", b"c", b"b", b"d",
                                           b"x"])))
        one = q.dequeue()
        many = q.dequeue_many(3)
        return {"enq": enq, "p": one[0], "v": one[1], "mp": many[0],
                "mv": many[1], "size": q.size()}
    steps_case(folder, "priority_python_order", python_api,
               [["enq"], ["size"], ["p", "v"], ["mp", "mv"], ["size"],
                ["p", "v"], ["p", "v"], ["size"]],
               note="tf.compat.v1.PriorityQueue: lowest priority first")

    def ties():
        # component_types and shapes name the components after the int64
        # priority, which the queue puts first.
        q = raw.PriorityQueueV2(component_types=[tf.int32], shapes=[[]])
        enq = raw.QueueEnqueueManyV2(handle=q, components=[
            i64([2, 2, 1, 2, 2, 1, 2, 0]), i32([0, 1, 2, 3, 4, 5, 6, 7])])
        one = raw.QueueEnqueueV2(handle=q, components=[i64(2), i32(8)])
        deq = raw.QueueDequeueManyV2(handle=q, n=3,
                                     component_types=[tf.int64, tf.int32])
        return {"enq": enq, "one": one, "p": deq[0], "v": deq[1]}
    steps_case(folder, "priority_ties", ties,
               [["enq"], ["one"], ["p", "v"], ["p", "v"], ["p", "v"]],
               note="equal priorities leave in the order of TensorFlow's "
               "heap")

    def closed():
        q = raw.PriorityQueueV2(component_types=[tf.float32], shapes=[[2]],
                                capacity=4)
        enq = raw.QueueEnqueueManyV2(handle=q, components=[
            i64([9, -3]), f32([[1, 2], [3, 4]])])
        close = raw.QueueCloseV2(handle=q)
        many = raw.QueueDequeueManyV2(handle=q, n=3,
                                      component_types=[tf.int64, tf.float32])
        one = raw.QueueDequeueV2(handle=q,
                                 component_types=[tf.int64, tf.float32])
        return {"enq": enq, "close": close, "mp": many[0], "mv": many[1],
                "p": one[0], "v": one[1],
                "size": raw.QueueSizeV2(handle=q)}
    steps_case(folder, "priority_closed", closed,
               [["enq"], ["close"], ["enq"], ["mp", "mv"], ["size"],
                ["p", "v"], ["p", "v"], ["p", "v"]],
               note="enqueue on a closed queue is Cancelled; a DequeueMany "
               "of more than there is OutOfRange and takes nothing")

    # Not a golden: TensorFlow 2.21's PriorityQueueV2 without shapes fails
    # every use ("Shared queue ... has component shapes [] but requested
    # component shapes were [[]]": its kernel adds the priority's shape to
    # the attr's empty list, then compares with the list). dfx's takes any
    # shapes, a scalar priority checked per element (queue_test.cc).

    def tf1_ref():
        q = raw.PriorityQueue(component_types=[tf.int32], shapes=[[]],
                              capacity=2)
        e1 = raw.QueueEnqueue(handle=q, components=[i64(7), i32(70)])
        e2 = raw.QueueEnqueue(handle=q, components=[i64(-1), i32(-10)])
        deq = raw.QueueDequeue(handle=q, component_types=[tf.int64, tf.int32])
        return {"e1": e1, "e2": e2, "p": deq[0], "v": deq[1],
                "size": raw.QueueSize(handle=q)}
    steps_case(folder, "priority_tf1_ref_handle", tf1_ref,
               [["e1"], ["e2"], ["size"], ["p", "v"], ["p", "v"]])

    def shuffle_v1():
        q = raw.RandomShuffleQueue(component_types=[tf.float32], shapes=[[]],
                                   capacity=10, min_after_dequeue=2, seed=3,
                                   seed2=7)
        enq = raw.QueueEnqueueMany(handle=q,
                                   components=[f32(np.arange(8))])
        deq = raw.QueueDequeueMany(handle=q, n=3,
                                   component_types=[tf.float32])
        return {"enq": enq, "deq": deq[0],
                "size": raw.QueueSize(handle=q)}
    steps_case(folder, "random_shuffle_tf1_ref_handle", shuffle_v1,
               [["enq"], ["deq"], ["deq"], ["size"]],
               note="TF1's RandomShuffleQueue, seeded: TensorFlow's order")


def dense_cases(folder):
    def ref_mean(reduction):
        def build():
            acc = raw.ConditionalAccumulator(dtype=tf.float32, shape=[2],
                                             reduction_type=reduction)
            apply = lambda step, g: raw.AccumulatorApplyGradient(  # noqa
                handle=acc, local_step=i64(step), gradient=f32(g))
            return {
                "a0": apply(0, [1, 2]), "b0": apply(0, [3, 6]),
                "stale": apply(0, [100, 100]), "c1": apply(1, [5, 5]),
                "n": raw.AccumulatorNumAccumulated(handle=acc),
                "take2": raw.AccumulatorTakeGradient(
                    handle=acc, num_required=2, dtype=tf.float32),
                "take1": raw.AccumulatorTakeGradient(
                    handle=acc, num_required=1, dtype=tf.float32),
            }
        return build
    steps = [["a0"], ["b0"], ["n"], ["take2"], ["n"], ["stale"], ["n"],
             ["c1"], ["n"], ["take1"]]
    steps_case(folder, "accumulator_mean", ref_mean("MEAN"), steps,
               note="the take advances the global step: a gradient of step 0 "
               "is then dropped")
    steps_case(folder, "accumulator_sum", ref_mean("SUM"), steps)

    def resource():
        acc = raw.ResourceConditionalAccumulator(dtype=tf.float64,
                                                 shape=[None, 2])
        apply = lambda step, g: raw.ResourceAccumulatorApplyGradient(  # noqa
            handle=acc, local_step=i64(step),
            gradient=tf.constant(np.asarray(g, np.float64)))
        return {
            "a": apply(5, [[1, 2], [3, 4]]), "b": apply(6, [[2, 2], [2, 2]]),
            "stale": apply(4, [[9, 9], [9, 9]]),
            "bad": apply(5, [[1, 2, 3]]),
            "set5": raw.ResourceAccumulatorSetGlobalStep(
                handle=acc, new_global_step=i64(5)),
            "n": raw.ResourceAccumulatorNumAccumulated(handle=acc),
            "take": raw.ResourceAccumulatorTakeGradient(
                handle=acc, num_required=2, dtype=tf.float64),
        }
    steps_case(folder, "resource_accumulator_global_step", resource,
               [["set5"], ["a"], ["n"], ["stale"], ["n"], ["b"], ["bad"],
                ["n"], ["take"], ["n"]],
               note="after SetGlobalStep(5) a step-4 gradient is dropped; one of "
               "another shape is InvalidArgument")

    def python_api():
        acc = tf1.ConditionalAccumulator(tf.float32, shape=[3])
        a = acc.apply_grad(f32([1, 2, 3]), local_step=0)
        b = acc.apply_grad(f32([3, 2, 1]), local_step=0)
        return {"a": a, "b": b, "take": acc.take_grad(2),
                "n": acc.num_accumulated()}
    steps_case(folder, "python_conditional_accumulator", python_api,
               [["a"], ["b"], ["n"], ["take"], ["n"]])

    def half_step_back():
        acc = raw.ConditionalAccumulator(dtype=tf.float16, shape=[3],
                                         reduction_type="SUM")
        apply = lambda step, g: raw.AccumulatorApplyGradient(  # noqa
            handle=acc, local_step=i64(step),
            gradient=tf.constant(np.asarray(g, np.float16)))
        return {
            "set9": raw.AccumulatorSetGlobalStep(handle=acc,
                                                 new_global_step=i64(9)),
            "set2": raw.AccumulatorSetGlobalStep(handle=acc,
                                                 new_global_step=i64(2)),
            "a3": apply(3, [0.5, 1.5, -2]), "b2": apply(2, [0.25, 0.25, 1]),
            "n": raw.AccumulatorNumAccumulated(handle=acc),
            "take": raw.AccumulatorTakeGradient(handle=acc, num_required=2,
                                                dtype=tf.float16),
        }
    steps_case(folder, "accumulator_half_global_step_back", half_step_back,
               [["set9"], ["a3"], ["n"], ["set2"], ["a3"], ["b2"], ["n"],
                ["take"], ["n"]],
               note="SetGlobalStep may go back (TensorFlow only warns)")

    def bad_num_required():
        acc = raw.ConditionalAccumulator(dtype=tf.float32, shape=[])
        return {"take": raw.AccumulatorTakeGradient(
            handle=acc, num_required=0, dtype=tf.float32)}
    steps_case(folder, "take_num_required_zero", bad_num_required,
               [["take"]])

    def shape_mismatch():
        acc = raw.ConditionalAccumulator(dtype=tf.float32, shape=[2])
        return {"apply": raw.AccumulatorApplyGradient(
            handle=acc, local_step=i64(0), gradient=f32([1, 2, 3]))}
    steps_case(folder, "apply_shape_mismatch", shape_mismatch, [["apply"]])


def sparse_cases(folder):
    def sparse(reduction):
        def build():
            acc = raw.SparseConditionalAccumulator(
                dtype=tf.float32, shape=[5, 2], reduction_type=reduction)

            def apply(step, idx, vals, known=True):
                return raw.SparseAccumulatorApplyGradient(
                    handle=acc, local_step=i64(step),
                    gradient_indices=i64(idx), gradient_values=f32(vals),
                    gradient_shape=i64([5, 2] if known else []),
                    has_known_shape=known)
            take = raw.SparseAccumulatorTakeGradient(
                handle=acc, num_required=2, dtype=tf.float32)
            return {
                "a": apply(0, [0, 2], [[1, 1], [2, 2]]),
                "b": apply(0, [2, 3], [[4, 4], [6, 6]], known=False),
                "stale": apply(0, [1], [[7, 7]]),
                "c": apply(1, [4], [[1, 3]]),
                "d": apply(1, [1, 4], [[2, 2], [3, 1]]),
                "bad_index": apply(1, [5], [[1, 1]]),
                "bad_row": apply(1, [1], [[1, 1, 1]]),
                "n": raw.AccumulatorNumAccumulated(handle=acc),
                "i": take.indices, "v": take.values, "s": take.shape,
            }
        return build
    steps = [["a"], ["b"], ["n"], ["i", "v", "s"], ["stale"], ["n"], ["c"],
             ["bad_index"], ["bad_row"], ["d"], ["i", "v", "s"]]
    steps_case(folder, "sparse_accumulator_mean", sparse("MEAN"), steps,
               note="rows averaged by how many gradients had the index")
    steps_case(folder, "sparse_accumulator_sum", sparse("SUM"), steps)


def main():
    folder = family_dir()
    golden_lib.write_op_defs(FAMILY, OPS)
    queue_cases(folder)
    priority_cases(folder)
    dense_cases(folder)
    sparse_cases(folder)


if __name__ == "__main__":
    main()

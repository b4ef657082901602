"""Golden cases of the data_flow family: TensorArrays (TensorArrayV3 and its
read, write, gather, scatter, concat, split, size, close and gradient ops)
and TF1 stacks (StackV2, StackPushV2, StackPopV2, StackCloseV2), outside
loops, as TensorFlow 2.21 runs them.

Run with the TensorFlow virtualenv:
    $(tools/tf_env) tests/golden/gen_data_flow.py

tf.TensorArray builds TensorArrayV3 ops only with control flow v1, so this
generator turns control flow v2 off. Cases use both the Python API (which
also builds the gradient graphs tf.gradients makes: TensorArrayGradV3 and
its reads, writes, gathers, scatters, concats and splits) and tf.raw_ops,
which reach the kernels without the Python layer's static checks. Values
that must not be checked at graph time are fed through placeholders of
unknown shape, so run-time errors reach the kernels; those cases record
TensorFlow's error code. Scalar fetches come back reshaped to [1] (see
gen_array.py).
"""

import numpy as np
import tensorflow as tf

from golden_lib import case, rng, tf1

FAMILY = "data_flow"
raw = tf.raw_ops
tf1.disable_control_flow_v2()


def add(name, build, **kw):
    def wrapped():
        fetches, feeds = build()
        if not isinstance(fetches, (list, tuple)):
            fetches = [fetches]
        fetches = [tf.reshape(t, [1]) if t.shape.rank == 0 else t
                   for t in fetches]
        return fetches, feeds
    case(FAMILY, name, wrapped, **kw)


def fed(value, dtype=np.float32, known_shape=True):
    """(tensor, {placeholder: value}) for a fed tensor whose shape is unknown
    at graph time unless known_shape. A scalar is fed as a vector of one
    element and reshaped in the graph (golden_lib writes 0-d feeds as [1])."""
    value = np.asarray(value, dtype=dtype)
    if value.ndim == 0:
        ph = tf1.placeholder(tf.as_dtype(dtype), [1] if known_shape else None)
        return tf.reshape(ph, []), {ph: value.reshape([1])}
    ph = tf1.placeholder(tf.as_dtype(dtype),
                         value.shape if known_shape else None)
    return ph, {ph: value}


def values(shape, seed=0, dtype=np.float32):
    return rng(seed).standard_normal(shape).astype(dtype)


def new_ta(size=3, dtype=tf.float32, **kw):
    return raw.TensorArrayV3(size=size, dtype=dtype, **kw)


def write(h, i, v, f):
    return raw.TensorArrayWriteV3(handle=h, index=i, value=v, flow_in=f)


def read(h, i, f, dtype=tf.float32):
    return raw.TensorArrayReadV3(handle=h, index=i, flow_in=f, dtype=dtype)


# --------------------------------------------------------------------------
# The Python API: what programs write


def python_api_cases():
    def write_read_stack():
        x, xv = fed(values([3, 2, 4]))
        ta = tf.TensorArray(tf.float32, size=3)
        for i in range(3):
            ta = ta.write(i, x[i] * float(i + 1))
        return [ta.stack(), ta.size()], xv
    add("api_write_stack", write_read_stack)

    def write_read():
        x, xv = fed(values([3, 5], seed=1))
        ta = tf.TensorArray(tf.float32, size=3)
        ta = ta.write(2, x[0]).write(0, x[1]).write(1, x[2])
        return [ta.read(0), ta.read(2)], xv
    add("api_write_read", write_read)

    def unstack_gather():
        x, xv = fed(values([4, 3], seed=2))
        ta = tf.TensorArray(tf.float32, size=4).unstack(x)
        return ta.gather([3, 1]), xv
    add("api_unstack_gather", unstack_gather)

    def scatter_stack():
        x, xv = fed(values([3, 2], seed=3))
        ta = tf.TensorArray(tf.float32, size=3).scatter([2, 0, 1], x)
        return ta.stack(), xv
    add("api_scatter_stack", scatter_stack)

    def split_concat():
        x, xv = fed(values([6, 2], seed=4))
        ta = tf.TensorArray(tf.float32, size=3, infer_shape=False,
                            clear_after_read=False)
        ta = ta.split(x, lengths=[1, 3, 2])
        return [ta.concat(), ta.read(1)], xv
    add("api_split_concat", split_concat)

    def dynamic_size():
        x, xv = fed(values([2], seed=5))
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
        ta = ta.write(0, x).write(1, x * 2.0).write(4, x * 3.0)
        return [ta.size(), ta.read(4), ta.read(0)], xv
    add("api_dynamic_size", dynamic_size)

    def dynamic_zeros():
        # Indices 2 and 3 were never written; the element shape is known
        # from the first write, so stacking gives zeros there.
        x, xv = fed(values([2], seed=6))
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
        ta = ta.write(0, x).write(1, x + 1.0).write(4, x + 4.0)
        return ta.stack(), xv
    add("api_dynamic_unwritten_zeros", dynamic_zeros)

    def int_array():
        x, xv = fed(np.arange(12).reshape([3, 4]), np.int32)
        ta = tf.TensorArray(tf.int32, size=3).unstack(x)
        return [ta.gather([2, 0]), ta.read(1)], xv
    add("api_int32", int_array)

    def float64_array():
        x, xv = fed(values([2, 3], seed=7, dtype=np.float64), np.float64)
        ta = tf.TensorArray(tf.float64, size=2).unstack(x)
        return ta.stack() * 2.0, xv
    add("api_float64", float64_array)

    def many_reads():
        x, xv = fed(values([2, 3], seed=8))
        ta = tf.TensorArray(tf.float32, size=2, clear_after_read=False)
        ta = ta.unstack(x)
        return [ta.read(0) + ta.read(0) + ta.read(1), ta.stack()], xv
    add("api_clear_after_read_false", many_reads)

    def close_after():
        x, xv = fed(values([2, 2], seed=9))
        ta = tf.TensorArray(tf.float32, size=2).unstack(x)
        s = ta.stack()
        with tf.control_dependencies([s]):
            c = ta.close()
        with tf.control_dependencies([c]):
            out = tf.identity(s)
        return out, xv
    add("api_close_after_stack", close_after)


# --------------------------------------------------------------------------
# Gradients through TensorArrays (tf.gradients: TensorArrayGradV3 and the
# gradient array's ops)


def gradient_cases():
    def grad_unstack_stack():
        x, xv = fed(values([3, 2], seed=10))
        w, wv = fed(values([3, 2], seed=11))
        ta = tf.TensorArray(tf.float32, size=3).unstack(x)
        y = tf.reduce_sum(ta.stack() * w)
        return tf.gradients(y, [x, w]), {**xv, **wv}
    add("grad_unstack_stack", grad_unstack_stack)

    def grad_write_read():
        x, xv = fed(values([3, 4], seed=12))
        ta = tf.TensorArray(tf.float32, size=3)
        for i in range(3):
            ta = ta.write(i, tf.tanh(x[i]))
        y = ta.read(0) * ta.read(1) + ta.read(2) * 3.0
        return tf.gradients(tf.reduce_sum(y), x), xv
    add("grad_write_read", grad_write_read)

    def grad_many_reads():
        # Each read's gradient is written into one index of the gradient
        # array: the writes sum.
        x, xv = fed(values([2, 3], seed=13))
        ta = tf.TensorArray(tf.float32, size=2, clear_after_read=False)
        ta = ta.unstack(x)
        y = ta.read(0) * 2.0 + ta.read(0) * ta.read(1) + ta.read(0)
        return tf.gradients(tf.reduce_sum(y), x), xv
    add("grad_summed_reads", grad_many_reads)

    def grad_split_concat():
        x, xv = fed(values([5, 2], seed=14))
        ta = tf.TensorArray(tf.float32, size=3, infer_shape=False,
                            clear_after_read=False)
        ta = ta.split(x, lengths=[2, 1, 2])
        y = tf.reduce_sum(tf.square(ta.concat()) * 0.5) + \
            tf.reduce_sum(ta.read(2) * 0.0)
        return tf.gradients(y, x), xv
    add("grad_split_concat", grad_split_concat)

    def grad_concat_of_writes():
        x, xv = fed(values([4, 2], seed=15))
        ta = tf.TensorArray(tf.float32, size=2, infer_shape=False)
        ta = ta.write(0, x[:1]).write(1, x[1:] * 2.0)
        y = tf.reduce_sum(ta.concat() * tf.constant([[1.0, -1.0]]))
        return tf.gradients(y, x), xv
    add("grad_write_concat", grad_concat_of_writes)

    def grad_gather_subset():
        # Only indices 0 and 2 are gathered: index 1's gradient is zeros.
        x, xv = fed(values([3, 2], seed=16))
        ta = tf.TensorArray(tf.float32, size=3, element_shape=[2]).unstack(x)
        y = tf.reduce_sum(ta.gather([2, 0]) * tf.constant([[1.0], [5.0]]))
        return tf.gradients(y, x), xv
    add("grad_gather_subset", grad_gather_subset)

    def grad_two_sources():
        # Two tf.gradients calls: two gradient arrays (sources "gradients"
        # and "gradients_1") of one forward array.
        x, xv = fed(values([2, 2], seed=17))
        ta = tf.TensorArray(tf.float32, size=2, clear_after_read=False)
        ta = ta.unstack(x)
        s = ta.stack()
        g1 = tf.gradients(tf.reduce_sum(s * 2.0), x)[0]
        g2 = tf.gradients(tf.reduce_sum(s * s), x)[0]
        return [g1, g2], xv
    add("grad_two_sources", grad_two_sources)

    def raw_grad_sum():
        x, xv = fed(values([3], seed=18))
        h, f = new_ta(3)
        f = write(h, 0, x, f)
        g, gf = raw.TensorArrayGradV3(handle=h, flow_in=f, source="gradients")
        gf = write(g, 0, x, gf)
        gf = write(g, 0, x * 10.0, gf)
        gf = write(g, 0, x * 100.0, gf)
        return [read(g, 0, gf),
                raw.TensorArraySizeV3(handle=g, flow_in=gf)], xv
    add("raw_grad_writes_sum", raw_grad_sum)

    def raw_grad_zeros():
        x, xv = fed(values([2, 3], seed=19))
        h, f = new_ta(3)
        f = write(h, 1, x, f)
        g, gf = raw.TensorArrayGradV3(handle=h, flow_in=f, source="g")
        return read(g, 1, gf), xv
    add("raw_grad_unwritten_is_zeros", raw_grad_zeros)

    def raw_grad_with_shape():
        x, xv = fed(values([2], seed=20))
        h, f = new_ta(2)
        f = write(h, 0, x, f)
        g, gf = raw.TensorArrayGradWithShape(
            handle=h, flow_in=f, shape_to_prepend=tf.constant([3]),
            source="g")
        gf = write(g, 0, tf.ones([3, 2]), gf)
        return [read(g, 0, gf),
                raw.TensorArraySizeV3(handle=g, flow_in=gf)], xv
    add("raw_grad_with_shape", raw_grad_with_shape)


# --------------------------------------------------------------------------
# Raw ops: semantics and errors the Python layer would catch earlier


def raw_cases():
    def read_unwritten_known():
        h, f = new_ta(3, element_shape=[2, 2])
        return read(h, 1, f), {}
    add("raw_read_unwritten_known_shape_is_zeros", read_unwritten_known)

    def err(name, build):
        add(f"error_{name}", build)

    def read_unwritten_unknown():
        x, xv = fed(values([2]))
        h, f = new_ta(3)
        f = write(h, 0, x, f)
        return read(h, 1, f), xv
    err("read_unwritten_unknown_shape", read_unwritten_unknown)

    def write_twice():
        x, xv = fed(values([2]))
        h, f = new_ta(3)
        f = write(h, 0, x, f)
        return write(h, 0, x, f), xv
    err("write_twice", write_twice)

    def write_out_of_range():
        x, xv = fed(values([2]))
        i, iv = fed(3, np.int32)
        h, f = new_ta(3)
        return write(h, i, x, f), {**xv, **iv}
    err("write_out_of_range", write_out_of_range)

    def write_negative():
        x, xv = fed(values([2]))
        i, iv = fed(-1, np.int32)
        h, f = new_ta(3)
        return write(h, i, x, f), {**xv, **iv}
    err("write_negative_index", write_negative)

    def read_twice():
        x, xv = fed(values([2]))
        h, f = new_ta(3)
        f = write(h, 0, x, f)
        r1 = read(h, 0, f)
        with tf.control_dependencies([r1]):
            r2 = read(h, 0, f)
        return r2, xv
    err("read_twice_cleared", read_twice)

    def write_after_read():
        x, xv = fed(values([2]))
        h, f = new_ta(3, clear_after_read=False)
        f = write(h, 0, x, f)
        r = read(h, 0, f)
        with tf.control_dependencies([r]):
            f2 = write(h, 0, x, f)
        return f2, xv
    err("write_after_read", write_after_read)

    def read_out_of_range():
        i, iv = fed(3, np.int32)
        h, f = new_ta(3, element_shape=[2])
        return read(h, i, f), iv
    err("read_out_of_range", read_out_of_range)

    def bad_element_shape():
        x, xv = fed(values([2]), known_shape=False)
        h, f = new_ta(3, element_shape=[3])
        return write(h, 0, x, f), xv
    err("write_element_shape_mismatch", bad_element_shape)

    def identical_shapes():
        x, xv = fed(values([2]), known_shape=False)
        y, yv = fed(values([3]), known_shape=False)
        h, f = new_ta(3, identical_element_shapes=True)
        f = write(h, 0, x, f)
        return write(h, 1, y, f), {**xv, **yv}
    err("identical_element_shapes", identical_shapes)

    def write_dtype():
        x, xv = fed([1, 2], np.int32)
        h, f = new_ta(3)
        return write(h, 0, x, f), xv
    err("write_wrong_dtype", write_dtype)

    def read_dtype():
        x, xv = fed(values([2]))
        h, f = new_ta(3)
        f = write(h, 0, x, f)
        return read(h, 0, f, tf.int32), xv
    err("read_wrong_dtype", read_dtype)

    def negative_size():
        n, nv = fed(-1, np.int32)
        h, f = new_ta(n)
        return f, nv
    err("negative_size", negative_size)

    def size_after_close():
        h, f = new_ta(2)
        c = raw.TensorArrayCloseV3(handle=h)
        with tf.control_dependencies([c]):
            s = raw.TensorArraySizeV3(handle=h, flow_in=f)
        return s, {}
    err("size_after_close", size_after_close)

    def grad_after_close():
        x, xv = fed(values([2]))
        h, f = new_ta(2)
        f = write(h, 0, x, f)
        c = raw.TensorArrayCloseV3(handle=h)
        with tf.control_dependencies([c]):
            g, gf = raw.TensorArrayGradV3(handle=h, flow_in=f, source="g")
        return gf, xv
    err("grad_after_close", grad_after_close)

    def grad_write_bad_shape():
        x, xv = fed(values([2]))
        y, yv = fed(values([3]), known_shape=False)
        h, f = new_ta(2)
        f = write(h, 0, x, f)
        g, gf = raw.TensorArrayGradV3(handle=h, flow_in=f, source="g")
        return write(g, 0, y, gf), {**xv, **yv}
    err("grad_aggregate_shape_mismatch", grad_write_bad_shape)

    def grad_freezes_size():
        x, xv = fed(values([2]))
        h, f = new_ta(2, dynamic_size=True)
        f = write(h, 0, x, f)
        g, gf = raw.TensorArrayGradV3(handle=h, flow_in=f, source="g")
        with tf.control_dependencies([gf]):
            f2 = write(h, 3, x, f)
        return f2, xv
    err("write_after_grad_not_resizeable", grad_freezes_size)

    def gather_inconsistent():
        x, xv = fed(values([2]), known_shape=False)
        y, yv = fed(values([3]), known_shape=False)
        h, f = new_ta(2)
        f = write(h, 0, x, f)
        f = write(h, 1, y, f)
        return raw.TensorArrayGatherV3(handle=h, indices=[0, 1], flow_in=f,
                                       dtype=tf.float32), {**xv, **yv}
    err("gather_inconsistent_shapes", gather_inconsistent)

    def gather_empty():
        h, f = new_ta(0)
        return raw.TensorArrayGatherV3(
            handle=h, indices=tf.constant([], tf.int32), flow_in=f,
            dtype=tf.float32), {}
    err("gather_empty_unknown_shape", gather_empty)

    def gather_empty_known():
        h, f = new_ta(0)
        return raw.TensorArrayGatherV3(
            handle=h, indices=tf.constant([], tf.int32), flow_in=f,
            dtype=tf.float32, element_shape=[2, 3]), {}
    add("raw_gather_empty_known_shape", gather_empty_known)

    def gather_unwritten_known():
        x, xv = fed(values([2]))
        h, f = new_ta(3, element_shape=[2])
        f = write(h, 1, x, f)
        return raw.TensorArrayGatherV3(handle=h, indices=[2, 1, 0],
                                       flow_in=f, dtype=tf.float32), xv
    add("raw_gather_unwritten_known_shape", gather_unwritten_known)

    def gather_attr_conflict():
        x, xv = fed(values([2]))
        h, f = new_ta(3, element_shape=[2])
        f = write(h, 0, x, f)
        return raw.TensorArrayGatherV3(handle=h, indices=[0], flow_in=f,
                                       dtype=tf.float32,
                                       element_shape=[3]), xv
    err("gather_element_shape_conflict", gather_attr_conflict)

    def scatter_out_of_range():
        x, xv = fed(values([2, 2]))
        i, iv = fed([3, 0], np.int32)
        h, f = new_ta(3)
        return raw.TensorArrayScatterV3(handle=h, indices=i, value=x,
                                        flow_in=f), {**xv, **iv}
    err("scatter_out_of_range", scatter_out_of_range)

    def scatter_dynamic():
        x, xv = fed(values([2, 2], seed=21))
        h, f = new_ta(1, dynamic_size=True)
        f = raw.TensorArrayScatterV3(handle=h, indices=[4, 1], value=x,
                                     flow_in=f)
        return [raw.TensorArraySizeV3(handle=h, flow_in=f),
                read(h, 4, f), read(h, 1, f)], xv
    add("raw_scatter_dynamic_grows", scatter_dynamic)

    def scatter_len_mismatch():
        x, xv = fed(values([2, 2]), known_shape=False)
        i, iv = fed([1], np.int32, known_shape=False)
        h, f = new_ta(3)
        return raw.TensorArrayScatterV3(handle=h, indices=i, value=x,
                                        flow_in=f), {**xv, **iv}
    err("scatter_indices_length_mismatch", scatter_len_mismatch)

    def split_sum_mismatch():
        x, xv = fed(values([6]))
        n, nv = fed([1, 2, 2], np.int64)
        h, f = new_ta(3)
        return raw.TensorArraySplitV3(handle=h, value=x, lengths=n,
                                      flow_in=f), {**xv, **nv}
    err("split_lengths_sum_mismatch", split_sum_mismatch)

    def split_size_mismatch():
        x, xv = fed(values([6]))
        n, nv = fed([1, 2, 3], np.int64)
        h, f = new_ta(2)
        return raw.TensorArraySplitV3(handle=h, value=x, lengths=n,
                                      flow_in=f), {**xv, **nv}
    err("split_size_mismatch", split_size_mismatch)

    def split_dynamic():
        x, xv = fed(values([6], seed=22))
        h, f = new_ta(1, dynamic_size=True)
        f = raw.TensorArraySplitV3(handle=h, value=x,
                                   lengths=tf.constant([3, 0, 3], tf.int64),
                                   flow_in=f)
        v, lengths = raw.TensorArrayConcatV3(handle=h, flow_in=f,
                                             dtype=tf.float32)
        return [v, lengths], xv
    add("raw_split_dynamic_concat", split_dynamic)

    def concat_scalars():
        x, xv = fed([1.0, 2.0])
        h, f = new_ta(2)
        f = write(h, 0, x[0], f)
        f = write(h, 1, x[1], f)
        v, _ = raw.TensorArrayConcatV3(handle=h, flow_in=f, dtype=tf.float32)
        return v, xv
    err("concat_scalars", concat_scalars)

    def concat_empty():
        h, f = new_ta(0)
        v, lengths = raw.TensorArrayConcatV3(handle=h, flow_in=f,
                                             dtype=tf.float32,
                                             element_shape_except0=[3])
        return [v, lengths], {}
    add("raw_concat_empty_known_shape", concat_empty)


# --------------------------------------------------------------------------
# TF1 stacks, outside loops


def stack_cases():
    def push_pop():
        x, xv = fed(values([2, 3], seed=23))
        y, yv = fed(values([4], seed=24))
        h = raw.StackV2(max_size=-1, elem_type=tf.float32)
        p1 = raw.StackPushV2(handle=h, elem=x)
        with tf.control_dependencies([p1]):
            p2 = raw.StackPushV2(handle=h, elem=y)
        with tf.control_dependencies([p2]):
            a = raw.StackPopV2(handle=h, elem_type=tf.float32)
        with tf.control_dependencies([a]):
            b = raw.StackPopV2(handle=h, elem_type=tf.float32)
        return [p1, p2, a, b], {**xv, **yv}
    add("stack_push_pop", push_pop)

    def push_pop_int():
        x, xv = fed(np.arange(5), np.int64)
        h = raw.StackV2(max_size=3, elem_type=tf.int64)
        p = raw.StackPushV2(handle=h, elem=x)
        with tf.control_dependencies([p]):
            a = raw.StackPopV2(handle=h, elem_type=tf.int64)
        return a, xv
    add("stack_int64", push_pop_int)

    def pop_empty():
        h = raw.StackV2(max_size=-1, elem_type=tf.float32)
        return raw.StackPopV2(handle=h, elem_type=tf.float32), {}
    add("error_stack_pop_empty", pop_empty)

    def overflow():
        x, xv = fed(values([2]))
        h = raw.StackV2(max_size=1, elem_type=tf.float32)
        p = raw.StackPushV2(handle=h, elem=x)
        with tf.control_dependencies([p]):
            p2 = raw.StackPushV2(handle=h, elem=x)
        with tf.control_dependencies([p2]):
            a = raw.StackPopV2(handle=h, elem_type=tf.float32)
        return a, xv
    add("error_stack_overflow", overflow)

    def after_close():
        x, xv = fed(values([2]))
        h = raw.StackV2(max_size=-1, elem_type=tf.float32)
        p = raw.StackPushV2(handle=h, elem=x)
        with tf.control_dependencies([p]):
            c = raw.StackCloseV2(handle=h)
        with tf.control_dependencies([c]):
            a = raw.StackPopV2(handle=h, elem_type=tf.float32)
        return a, xv
    add("error_stack_pop_after_close", after_close)

    def push_wrong_type():
        x, xv = fed([1, 2], np.int32)
        h = raw.StackV2(max_size=-1, elem_type=tf.float32)
        p = raw.StackPushV2(handle=h, elem=x)
        with tf.control_dependencies([p]):
            a = raw.StackPopV2(handle=h, elem_type=tf.float32)
        return a, xv
    add("error_stack_push_wrong_type", push_wrong_type)

    def pop_wrong_type():
        x, xv = fed(values([2]))
        h = raw.StackV2(max_size=-1, elem_type=tf.float32)
        p = raw.StackPushV2(handle=h, elem=x)
        with tf.control_dependencies([p]):
            a = raw.StackPopV2(handle=h, elem_type=tf.int32)
        return a, xv
    add("error_stack_pop_wrong_type", pop_wrong_type)


def main():
    python_api_cases()
    gradient_cases()
    raw_cases()
    stack_cases()


if __name__ == "__main__":
    main()

"""Golden cases of the list family: TensorFlow's TensorList ops outside
loops (EmptyTensorList, TensorListReserve, PushBack, PopBack, Length,
ElementShape, GetItem, SetItem, Stack, FromTensor, Gather, Scatter,
ScatterIntoExistingList, Split, ConcatV2, Resize, ConcatLists, and ZerosLike
and AddN on lists), as TensorFlow 2.21 runs them.

Run with the TensorFlow virtualenv: $(tools/tf_env) tests/golden/gen_list.py

The golden harness fetches plain tensors, so every case ends in ops that read
a list (Stack, Length, GetItem, ConcatV2, ...); the lists themselves stay
inside the graph. Data is fed through placeholders of unknown shape where a
bad value must reach the kernel rather than fail TensorFlow's shape
inference when the graph is built; those cases record TensorFlow's error
code.

Besides the cases, this writes tests/data/tf_tensor_list.pb: a TensorProto
(DT_VARIANT scalar) of a TensorList as TensorFlow serializes it, which
tests/runtime/variant_test.cc decodes and re-encodes byte for byte.
"""

import os

import numpy as np
import tensorflow as tf

from golden_lib import case, tf1

FAMILY = "list"
raw = tf.raw_ops
F32 = tf.float32


def add(name, build, **kw):
    """A case; scalar fetches come back as vectors of one element (golden_lib
    writes 0-d arrays as shape [1])."""
    def wrapped():
        fetches, feeds = build()
        if not isinstance(fetches, (list, tuple)):
            fetches = [fetches]
        fetches = [tf.reshape(t, [1]) if t.shape.rank == 0 else t
                   for t in fetches]
        return fetches, feeds
    case(FAMILY, name, wrapped, **kw)


def feed(value, dtype=np.float32, unknown=False):
    value = np.asarray(value, dtype=dtype)
    shape = [None] * value.ndim if unknown else value.shape
    ph = tf1.placeholder(tf.as_dtype(value.dtype), shape)
    return ph, value


def ints(v, dtype=np.int32):
    return tf.constant(np.asarray(v, dtype=dtype))


def shape_of(dims):
    """An element_shape input: -1 (unknown rank) or a vector of dims."""
    return ints(dims)


def empty(dtype=F32, shape=-1, max_elements=-1):
    return raw.EmptyTensorList(element_shape=shape_of(shape),
                               max_num_elements=ints(max_elements),
                               element_dtype=dtype)


def stack(handle, dtype=F32, shape=-1, **kw):
    return raw.TensorListStack(input_handle=handle,
                               element_shape=shape_of(shape),
                               element_dtype=dtype, **kw)


def length(handle):
    return raw.TensorListLength(input_handle=handle)


def push_all(handle, items):
    for item in items:
        handle = raw.TensorListPushBack(input_handle=handle, tensor=item)
    return handle


# --------------------------------------------------------------------------
# Building and reading lists.

def push_stack_cases():
    for dt in [np.float32, np.float64, np.float16, np.int32, np.int64,
               np.int8, np.uint8, np.bool_]:
        def build(dt=dt):
            x, v = feed((np.arange(6).reshape(3, 2) % 5 - 1).astype(dt), dt)
            rows = [x[i] for i in range(3)]
            h = push_all(empty(tf.as_dtype(dt), [2]), rows)
            return [stack(h, tf.as_dtype(dt)), length(h)], {x: v}
        add(f"push_stack_{np.dtype(dt).name}", build)

    def unknown_shape():
        x, v = feed(np.arange(12).reshape(2, 2, 3) * 0.5)
        h = push_all(empty(), [x[0], x[1]])
        return [stack(h), length(h)], {x: v}
    add("push_stack_unknown_element_shape", unknown_shape)

    def empty_known():
        return [stack(empty(shape=[0, 3]), shape=[0, 3]),
                length(empty())], {}
    add("stack_empty_list_known_shape", empty_known)

    def scalars():
        x, v = feed([1.5, -2.0, 3.25, 4.0])
        h = push_all(empty(shape=[]), [x[i] for i in range(4)])
        return stack(h, shape=[]), {x: v}
    add("push_stack_scalars", scalars)

    def long_chain():
        # Each push takes over its input's list (no other consumer).
        x, v = feed(np.arange(40).reshape(20, 2) * 0.25)
        h = push_all(empty(shape=[2]), [x[i] * 2.0 for i in range(20)])
        return [stack(h), length(h)], {x: v}
    add("push_chain_of_20", long_chain)


def pop_cases():
    def pop():
        x, v = feed(np.arange(6).reshape(3, 2) * 1.5)
        h = push_all(empty(shape=[2]), [x[0], x[1], x[2]])
        h1, top = raw.TensorListPopBack(input_handle=h,
                                        element_shape=shape_of(-1),
                                        element_dtype=F32)
        h2, second = raw.TensorListPopBack(input_handle=h1,
                                           element_shape=shape_of(-1),
                                           element_dtype=F32)
        return [top, second, stack(h2), length(h1), stack(h)], {x: v}
    add("pop_back_twice", pop)

    def pop_unset():
        h = raw.TensorListReserve(element_shape=shape_of(-1),
                                  num_elements=ints(2), element_dtype=F32)
        _, item = raw.TensorListPopBack(input_handle=h,
                                        element_shape=shape_of([2, 3]),
                                        element_dtype=F32)
        return item, {}
    add("pop_back_unset_reads_zeros", pop_unset)


def reserve_get_set_cases():
    def reserve_set():
        x, v = feed([[1.0, 2.0], [3.0, 4.0]])
        h = raw.TensorListReserve(element_shape=shape_of([2]),
                                  num_elements=ints(4), element_dtype=F32)
        h = raw.TensorListSetItem(input_handle=h, index=ints(3), item=x[0])
        h = raw.TensorListSetItem(input_handle=h, index=ints(1), item=x[1])
        return [stack(h), length(h)], {x: v}
    add("reserve_set_stack_zeros_for_unset", reserve_set)

    def infer_shape():
        x, v = feed(np.arange(6).reshape(2, 3) * 1.0)
        h = raw.TensorListReserve(element_shape=shape_of(-1),
                                  num_elements=ints(3), element_dtype=F32)
        h = raw.TensorListSetItem(input_handle=h, index=ints(2), item=x)
        g = raw.TensorListGetItem(input_handle=h, index=ints(0),
                                  element_shape=shape_of(-1),
                                  element_dtype=F32)
        return [stack(h), g], {x: v}
    add("unset_elements_take_the_set_shape", infer_shape)

    def get_items():
        x, v = feed(np.arange(8).reshape(4, 2) - 3.0)
        h = raw.TensorListFromTensor(tensor=x, element_shape=shape_of([2]))
        gets = [raw.TensorListGetItem(input_handle=h, index=ints(i),
                                      element_shape=shape_of(-1),
                                      element_dtype=F32) for i in (3, 0, 2)]
        return gets, {x: v}
    add("get_item", get_items)

    def get_int64_shape():
        h = raw.TensorListReserve(element_shape=shape_of(-1),
                                  num_elements=ints(2), element_dtype=tf.int32)
        g = raw.TensorListGetItem(input_handle=h, index=ints(1),
                                  element_shape=ints([2, 2], np.int64),
                                  element_dtype=tf.int32)
        return g, {}
    add("get_unset_item_int64_element_shape", get_int64_shape)

    def set_resize():
        x, v = feed([5.0, 6.0])
        h = push_all(empty(shape=[2]), [x])
        h = raw.TensorListSetItem(input_handle=h, index=ints(3), item=x * 2.0,
                                  resize_if_index_out_of_bounds=True)
        return [stack(h), length(h)], {x: v}
    add("set_item_resizes_when_asked", set_resize)

    def fork():
        # One list, three consumers: each derived list is its own value.
        x, v = feed(np.arange(8).reshape(4, 2) * 1.0)
        base = push_all(empty(shape=[2]), [x[0], x[1]])
        a = raw.TensorListPushBack(input_handle=base, tensor=x[2])
        b = raw.TensorListSetItem(input_handle=base, index=ints(0), item=x[3])
        c, _ = raw.TensorListPopBack(input_handle=base,
                                     element_shape=shape_of(-1),
                                     element_dtype=F32)
        return [stack(base), stack(a), stack(b), stack(c)], {x: v}
    add("derived_lists_leave_their_input_unchanged", fork)


def shape_cases():
    for label, dims, out_type in [("partial_int32", [-1, 3], tf.int32),
                                  ("partial_int64", [2, -1, 4], tf.int64),
                                  ("unknown_rank", -1, tf.int32),
                                  ("scalar_elements", [], tf.int64)]:
        def build(dims=dims, out_type=out_type):
            h = empty(shape=dims)
            return raw.TensorListElementShape(input_handle=h,
                                              shape_type=out_type), {}
        add(f"element_shape_{label}", build)


def gather_scatter_cases():
    def from_tensor_gather():
        x, v = feed(np.arange(12).reshape(4, 3) * 0.5)
        h = raw.TensorListFromTensor(tensor=x, element_shape=shape_of([-1]))
        g = raw.TensorListGather(input_handle=h, indices=ints([3, 0, 0, 2]),
                                 element_shape=shape_of(-1), element_dtype=F32)
        return [g, length(h), stack(h)], {x: v}
    add("from_tensor_gather", from_tensor_gather)

    def gather_empty():
        x, v = feed(np.ones([2, 3], np.float32))
        h = raw.TensorListFromTensor(tensor=x, element_shape=shape_of(-1))
        g = raw.TensorListGather(input_handle=h, indices=ints(np.zeros([0])),
                                 element_shape=shape_of([3]),
                                 element_dtype=F32)
        return g, {x: v}
    add("gather_no_indices_known_shape", gather_empty)

    def scatter_v2():
        x, v = feed(np.arange(6).reshape(3, 2) + 1.0)
        h = raw.TensorListScatterV2(tensor=x, indices=ints([4, 0, 2]),
                                    element_shape=shape_of([2]),
                                    num_elements=ints(6))
        return [stack(h), length(h)], {x: v}
    add("scatter_v2_num_elements", scatter_v2)

    def scatter_v2_grow():
        x, v = feed(np.arange(6).reshape(3, 2) + 1.0)
        h = raw.TensorListScatterV2(tensor=x, indices=ints([1, 3, 1]),
                                    element_shape=shape_of(-1),
                                    num_elements=ints(-1))
        return [stack(h, shape=[2]), length(h)], {x: v}
    add("scatter_v2_duplicate_index_last_wins", scatter_v2_grow)

    def scatter_existing():
        # Inside the list only: TensorFlow 2.21 grows the list with empty
        # float tensors instead of unset elements, and Stack then returns
        # uninitialized memory (dfx reads the new elements as zeros, see
        # tests/kernels/list_ops_test.cc).
        x, v = feed(np.arange(6).reshape(3, 2) * 1.0)
        y, w = feed([[10.0, 11.0], [12.0, 13.0]])
        h = raw.TensorListFromTensor(tensor=x, element_shape=shape_of([2]))
        h2 = raw.TensorListScatterIntoExistingList(input_handle=h, tensor=y,
                                                   indices=ints([2, 0]))
        return [stack(h2), length(h2), stack(h)], {x: v, y: w}
    add("scatter_into_existing_list", scatter_existing)


def split_concat_cases():
    def split_concat():
        x, v = feed(np.arange(10).reshape(5, 2) * 1.0)
        h = raw.TensorListSplit(tensor=x, element_shape=shape_of([-1, 2]),
                                lengths=ints([2, 0, 3], np.int64))
        t, lengths = raw.TensorListConcatV2(
            input_handle=h, element_shape=shape_of([-1, 2]),
            leading_dims=ints(np.zeros([0]), np.int64), element_dtype=F32)
        g = raw.TensorListGetItem(input_handle=h, index=ints(2),
                                  element_shape=shape_of(-1),
                                  element_dtype=F32)
        return [t, lengths, g, length(h)], {x: v}
    add("split_then_concat", split_concat)

    def concat_unset():
        x, v = feed([[1.0, 2.0, 3.0]])
        h = raw.TensorListReserve(element_shape=shape_of([-1, 3]),
                                  num_elements=ints(3), element_dtype=F32)
        h = raw.TensorListSetItem(input_handle=h, index=ints(1), item=x)
        t, lengths = raw.TensorListConcatV2(
            input_handle=h, element_shape=shape_of([-1, 3]),
            leading_dims=ints([2, 7, 1], np.int64), element_dtype=F32)
        return [t, lengths], {x: v}
    add("concat_unset_elements_use_leading_dims", concat_unset)

    def concat_inferred_first_dim():
        x, v = feed(np.arange(4).reshape(2, 2) * 1.0)
        h = raw.TensorListReserve(element_shape=shape_of(-1),
                                  num_elements=ints(3), element_dtype=F32)
        h = raw.TensorListSetItem(input_handle=h, index=ints(0), item=x)
        t, lengths = raw.TensorListConcatV2(
            input_handle=h, element_shape=shape_of(-1),
            leading_dims=ints(np.zeros([0]), np.int64), element_dtype=F32)
        return [t, lengths], {x: v}
    add("concat_infers_first_dim_of_unset", concat_inferred_first_dim)

    def resize():
        x, v = feed(np.arange(8).reshape(4, 2) * 1.0)
        h = raw.TensorListFromTensor(tensor=x, element_shape=shape_of([2]))
        shrunk = raw.TensorListResize(input_handle=h, size=ints(2))
        grown = raw.TensorListResize(input_handle=h, size=ints(6))
        return [stack(shrunk), stack(grown), length(grown)], {x: v}
    add("resize_shrinks_and_grows", resize)

    def concat_lists():
        x, v = feed(np.arange(6).reshape(3, 2) * 1.0)
        a = raw.TensorListFromTensor(tensor=x[:2], element_shape=shape_of([2]))
        b = raw.TensorListFromTensor(tensor=x[1:], element_shape=shape_of([2]))
        h = raw.TensorListConcatLists(input_a=a, input_b=b, element_dtype=F32)
        return [stack(h), length(h)], {x: v}
    add("concat_lists", concat_lists)


def gradient_support_cases():
    def add_n():
        x, v = feed(np.arange(6).reshape(3, 2) * 1.0)
        a = raw.TensorListFromTensor(tensor=x, element_shape=shape_of([2]))
        b = raw.TensorListReserve(element_shape=shape_of([2]),
                                  num_elements=ints(3), element_dtype=F32)
        b = raw.TensorListSetItem(input_handle=b, index=ints(1),
                                  item=x[2] * 10.0)
        s = raw.AddN(inputs=[a, b, a])
        return stack(s), {x: v}
    add("add_n_of_lists", add_n)

    def zeros_like():
        x, v = feed(np.arange(6).reshape(3, 2) + 1.0)
        a = raw.TensorListFromTensor(tensor=x, element_shape=shape_of([2]))
        z = raw.ZerosLike(x=a)
        return [stack(z), length(z)], {x: v}
    add("zeros_like_of_list", zeros_like)


# --------------------------------------------------------------------------
# Errors TensorFlow raises at run time.

def error_cases():
    def pop_empty():
        _, item = raw.TensorListPopBack(input_handle=empty(shape=[2]),
                                        element_shape=shape_of(-1),
                                        element_dtype=F32)
        return item, {}
    add("error_pop_empty_list", pop_empty)

    def get_out_of_range():
        x, v = feed([[1.0, 2.0]])
        i, iv = feed([5], np.int32)
        h = raw.TensorListFromTensor(tensor=x, element_shape=shape_of(-1))
        return raw.TensorListGetItem(input_handle=h,
                                     index=tf.reshape(i, []),
                                     element_shape=shape_of(-1),
                                     element_dtype=F32), {x: v, i: iv}
    add("error_get_item_out_of_range", get_out_of_range)

    def get_negative():
        x, v = feed([[1.0, 2.0]])
        i, iv = feed([-1], np.int32)
        h = raw.TensorListFromTensor(tensor=x, element_shape=shape_of(-1))
        return raw.TensorListGetItem(input_handle=h,
                                     index=tf.reshape(i, []),
                                     element_shape=shape_of(-1),
                                     element_dtype=F32), {x: v, i: iv}
    add("error_get_item_negative", get_negative)

    def set_out_of_range():
        x, v = feed([1.0, 2.0], unknown=True)
        h = push_all(empty(), [x])
        h = raw.TensorListSetItem(input_handle=h, index=ints(1), item=x)
        return length(h), {x: v}
    add("error_set_item_out_of_range", set_out_of_range)

    def push_bad_shape():
        x, v = feed([1.0, 2.0, 3.0], unknown=True)
        h = push_all(empty(shape=[2]), [x])
        return length(h), {x: v}
    add("error_push_incompatible_shape", push_bad_shape)

    def push_full():
        x, v = feed([1.0, 2.0])
        h = push_all(empty(shape=[2], max_elements=1), [x, x])
        return length(h), {x: v}
    add("error_push_into_full_list", push_full)

    def stack_count():
        x, v = feed([[1.0, 2.0]])
        h = raw.TensorListFromTensor(tensor=x, element_shape=shape_of(-1))
        return stack(h, num_elements=2), {x: v}
    add("error_stack_wrong_num_elements", stack_count)

    def stack_unknown_empty():
        return stack(empty()), {}
    add("error_stack_empty_list_unknown_shape", stack_unknown_empty)

    def stack_mixed():
        x, v = feed([1.0], unknown=True)
        y, w = feed([1.0, 2.0], unknown=True)
        return stack(push_all(empty(), [x, y])), {x: v, y: w}
    add("error_stack_mixed_shapes", stack_mixed)

    def reserve_negative():
        n, nv = feed([-2], np.int32)
        h = raw.TensorListReserve(element_shape=shape_of([2]),
                                  num_elements=tf.reshape(n, []),
                                  element_dtype=F32)
        return length(h), {n: nv}
    add("error_reserve_negative", reserve_negative)

    def gather_out_of_range():
        x, v = feed([[1.0, 2.0]])
        h = raw.TensorListFromTensor(tensor=x, element_shape=shape_of(-1))
        return raw.TensorListGather(input_handle=h, indices=ints([0, 3]),
                                    element_shape=shape_of(-1),
                                    element_dtype=F32), {x: v}
    add("error_gather_out_of_range", gather_out_of_range)

    def scatter_negative():
        x, v = feed(np.ones([2, 2], np.float32))
        h = raw.TensorListScatterV2(tensor=x, indices=ints([0, -1]),
                                    element_shape=shape_of(-1),
                                    num_elements=ints(-1))
        return length(h), {x: v}
    add("error_scatter_negative_index", scatter_negative)

    def scatter_past_num_elements():
        x, v = feed(np.ones([2, 2], np.float32))
        h = raw.TensorListScatterV2(tensor=x, indices=ints([0, 3]),
                                    element_shape=shape_of(-1),
                                    num_elements=ints(2))
        return length(h), {x: v}
    add("error_scatter_past_num_elements", scatter_past_num_elements)

    def split_unused():
        x, v = feed(np.ones([3, 2], np.float32))
        h = raw.TensorListSplit(tensor=x, element_shape=shape_of(-1),
                                lengths=ints([1, 1], np.int64))
        return length(h), {x: v}
    add("error_split_leaves_rows_unused", split_unused)

    def split_too_long():
        x, v = feed(np.ones([3, 2], np.float32))
        h = raw.TensorListSplit(tensor=x, element_shape=shape_of(-1),
                                lengths=ints([2, 2], np.int64))
        return length(h), {x: v}
    add("error_split_past_the_end", split_too_long)

    def concat_missing_leading_dim():
        h = raw.TensorListReserve(element_shape=shape_of([-1, 2]),
                                  num_elements=ints(2), element_dtype=F32)
        t, _ = raw.TensorListConcatV2(
            input_handle=h, element_shape=shape_of([-1, 2]),
            leading_dims=ints([1], np.int64), element_dtype=F32)
        return t, {}
    add("error_concat_unset_without_leading_dim", concat_missing_leading_dim)

    def resize_negative():
        x, v = feed([[1.0]])
        s, sv = feed([-1], np.int32)
        h = raw.TensorListFromTensor(tensor=x, element_shape=shape_of(-1))
        h = raw.TensorListResize(input_handle=h, size=tf.reshape(s, []))
        return length(h), {x: v, s: sv}
    add("error_resize_negative", resize_negative)

    def from_tensor_bad_shape():
        x, v = feed(np.ones([2, 3], np.float32), unknown=True)
        h = raw.TensorListFromTensor(tensor=x, element_shape=shape_of([2]))
        return length(h), {x: v}
    add("error_from_tensor_shape_mismatch", from_tensor_bad_shape)

    def bad_element_shape():
        s, sv = feed([-2], np.int32)
        h = raw.EmptyTensorList(element_shape=s, max_num_elements=ints(-1),
                                element_dtype=F32)
        return length(h), {s: sv}
    add("error_element_shape_dim_below_minus_one", bad_element_shape)

    def add_n_lengths():
        x, v = feed(np.ones([2, 2], np.float32))
        a = raw.TensorListFromTensor(tensor=x, element_shape=shape_of([2]))
        b = raw.TensorListFromTensor(tensor=x[:1], element_shape=shape_of([2]))
        return stack(raw.AddN(inputs=[a, b])), {x: v}
    add("error_add_n_lists_of_different_lengths", add_n_lengths)


def write_wire_sample():
    """TensorFlow's serialization of a list with set and unset elements and a
    partial element shape, for tests/runtime/variant_test.cc."""
    graph = tf.Graph()
    with graph.as_default():
        h = raw.TensorListReserve(element_shape=shape_of([-1, 2]),
                                  num_elements=ints(3), element_dtype=F32)
        h = raw.TensorListSetItem(input_handle=h, index=ints(0),
                                  item=tf.constant([[1.0, 2.0]]))
        h = raw.TensorListSetItem(input_handle=h, index=ints(2),
                                  item=tf.constant([[3.0, 4.0], [5.0, 6.0]]))
        s = raw.SerializeTensor(tensor=h)
        with tf1.Session(graph=graph) as sess:
            data = sess.run(s)
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                        "data", "tf_tensor_list.pb")
    with open(path, "wb") as f:
        f.write(data)


def main():
    push_stack_cases()
    pop_cases()
    reserve_get_set_cases()
    shape_cases()
    gather_scatter_cases()
    split_concat_cases()
    gradient_support_cases()
    error_cases()
    write_wire_sample()


if __name__ == "__main__":
    main()

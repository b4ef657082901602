"""Golden cases of the tarray family: TensorFlow's TensorArray ops before V3
and its stacks before V2, which old TF1 GraphDefs (dynamic_rnn and
while_loop gradients of TensorFlow 1.0 to 1.4) hold.

The v1 TensorArray ops (TensorArray, TensorArrayWrite, ..., Pack, Unpack)
hand a reference to a [2] string handle from op to op, the V2 ops the same
tensor by value; TensorFlow 2.21 runs them from GraphDefs produced before
their deprecation (version 16 for most v1 ops, 19 for Scatter, 20 for
Unpack, 26 for the V2 ops), so every case is a golden_lib.legacy_case whose
graph is written node by node (there is no Python API for these ops any
more): producer 15 for the v1 ops, 25 for the V2 ones. The stacks (Stack,
StackPush, StackPop, StackClose) are not deprecated but take the same
reference handle.

Cases: write/read/gather/scatter/concat/split/pack/unpack and size in every
dtype TensorFlow's CPU kernels serve; dynamic_size growth; the gradient
TensorArray (writes to one index summed, one array per source); errors
(read of an unwritten index, out of range, a second write, a second read
with clear_after_read, a closed array, bad sizes, lengths and shapes); an
unrolled dynamic_rnn loop body; a control-flow-v1 while_loop over
TensorArrays and its tf.gradients (v1 stacks in the backward loop), built
with the V3 ops and turned into the older ones as TensorFlow 1.x wrote
them; stacks pushed and popped in order, popped empty, with swap_memory.

    $(tools/tf_env) tests/golden/gen_tarray.py

Besides the cases the generator writes the ops' signatures
(tf_op_defs.pbtxt, tf_cpu_kernels.txt), which tests/kernels/tarray_test.cc
compares with dfx's registry.
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import golden_lib  # noqa: E402
from golden_lib import tf, tf1  # noqa: E402
from tensorflow.core.framework import (  # noqa: E402
    attr_value_pb2, node_def_pb2)

FAMILY = "tarray"
V1_PRODUCER = 15  # before 16, where most v1 TensorArray ops were removed
V2_PRODUCER = 25  # before 26, where the V2 ops were

OP_NAMES = [
    "TensorArray", "TensorArrayGrad", "TensorArrayWrite", "TensorArrayRead",
    "TensorArrayPack", "TensorArrayUnpack", "TensorArrayGather",
    "TensorArrayScatter", "TensorArrayConcat", "TensorArraySplit",
    "TensorArraySize", "TensorArrayClose", "TensorArrayV2",
    "TensorArrayGradV2", "TensorArrayWriteV2", "TensorArrayReadV2",
    "TensorArrayGatherV2", "TensorArrayScatterV2", "TensorArrayConcatV2",
    "TensorArraySplitV2", "TensorArraySizeV2", "TensorArrayCloseV2", "Stack",
    "StackPush", "StackPop", "StackClose"]

BF16 = tf.bfloat16.as_numpy_dtype
DTYPES = [np.float32, np.float64, np.float16, BF16, np.int32, np.int64,
          np.int8, np.int16, np.uint8, np.uint16, np.uint32, np.uint64,
          np.bool_, np.complex64, np.complex128, np.bytes_]


def _attr(v):
    a = attr_value_pb2.AttrValue()
    if isinstance(v, bool):
        a.b = v
    elif isinstance(v, int):
        a.i = v
    elif isinstance(v, str):
        a.s = v.encode()
    elif isinstance(v, tf.DType):
        a.type = v.as_datatype_enum
    elif isinstance(v, (list, tuple, tf.TensorShape)) or v is None:
        a.shape.CopyFrom(tf.TensorShape(v).as_proto())
    else:
        raise TypeError(v)
    return a


class G:
    """The nodes a case adds to its graph by hand. Constants are made in
    the case's tf.Graph; the TensorArray and stack nodes are NodeDefs
    appended to its GraphDef, since TensorFlow 2.21 no longer builds them.
    `v` is "" for the v1 TensorArray ops, "V2" for the V2 ones."""

    def __init__(self, v=""):
        self.v = v
        self.nodes = []
        self.count = 0
        # (node, tensor): stand-in nodes whose input the edit replaces.
        self.pending = []

    def const(self, value, dtype=None):
        t = tf.constant(value, dtype=dtype)
        return t.name

    def op(self, op, inputs, name=None, control=(), **attrs):
        if name is None:
            name = f"{op}_{self.count}"
            self.count += 1
        node = node_def_pb2.NodeDef(name=name, op=op)
        node.input.extend(list(inputs) + ["^" + c for c in control])
        for k, v in attrs.items():
            node.attr[k].CopyFrom(_attr(v))
        self.nodes.append(node)
        return name

    # --- TensorArray ops, v1 or V2 by self.v.

    def ta(self, size, dtype, **attrs):
        return self.op("TensorArray" + self.v, [self.const(size, tf.int32)],
                       dtype=tf.as_dtype(dtype), **attrs)

    def flow(self):
        return self.const(0.0, tf.float32)

    def write(self, h, index, value, flow, dtype=None, value_name=None,
              **kw):
        """value_name: an existing tensor to write instead of `value`."""
        v = value_name or self.const(value, dtype)
        return self.op("TensorArrayWrite" + self.v,
                       [h, self.const(index, tf.int32), v, flow],
                       T=tf.as_dtype(dtype or np.asarray(value).dtype), **kw)

    def read(self, h, index, flow, dtype, **kw):
        return self.op("TensorArrayRead" + self.v,
                       [h, self.const(index, tf.int32), flow],
                       dtype=tf.as_dtype(dtype), **kw)

    def gather(self, h, indices, flow, dtype, **attrs):
        return self.op("TensorArrayGather" + self.v,
                       [h, self.const(indices, tf.int32), flow],
                       dtype=tf.as_dtype(dtype), **attrs)

    def scatter(self, h, indices, value, flow, dtype=None):
        v = self.const(value, dtype)
        return self.op("TensorArrayScatter" + self.v,
                       [h, self.const(indices, tf.int32), v, flow],
                       T=tf.as_dtype(dtype or np.asarray(value).dtype))

    def concat(self, h, flow, dtype, **attrs):
        n = self.op("TensorArrayConcat" + self.v, [h, flow],
                    dtype=tf.as_dtype(dtype), **attrs)
        return n, n + ":1"

    def split(self, h, value, lengths, flow, dtype=None):
        v = self.const(value, dtype)
        return self.op("TensorArraySplit" + self.v,
                       [h, v, self.const(lengths, tf.int64), flow],
                       T=tf.as_dtype(dtype or np.asarray(value).dtype))

    def size(self, h, flow, **kw):
        return self.op("TensorArraySize" + self.v, [h, flow], **kw)

    def close(self, h, **kw):
        return self.op("TensorArrayClose" + self.v, [h], **kw)

    def grad(self, h, flow, source):
        return self.op("TensorArrayGrad" + self.v, [h, flow], source=source)

    def pack(self, h, flow, dtype, **attrs):
        assert self.v == ""
        return self.op("TensorArrayPack", [h, flow],
                       dtype=tf.as_dtype(dtype), **attrs)

    def unpack(self, h, value, flow, dtype=None):
        assert self.v == ""
        v = self.const(value, dtype)
        return self.op("TensorArrayUnpack", [h, v, flow],
                       T=tf.as_dtype(dtype or np.asarray(value).dtype))


def out(name):
    return name if ":" in name else name + ":0"


def legacy(name, body, v="", note=""):
    """A case whose graph body(G(v)) builds; body returns the names of the
    tensors to fetch."""
    def build():
        g = G(v)
        fetches = [out(n) for n in body(g)]

        def edit(graph_def):
            graph_def.node.extend(g.nodes)
        return edit, fetches
    golden_lib.legacy_case(FAMILY, name, build, note=note,
                           producer=V2_PRODUCER if v else V1_PRODUCER)


def values(shape, t, seed=0):
    r = golden_lib.rng(seed)
    if t is np.bytes_:
        flat = [f"s{i}".encode() * (i % 3 + 1)
                for i in range(int(np.prod(shape)))]
        return np.array(flat, dtype=object).reshape(shape)
    v = r.uniform(-3, 3, size=shape)
    if np.issubdtype(np.dtype(t), np.complexfloating):
        v = v + 1j * r.uniform(-3, 3, size=shape)
    if t is np.bool_:
        return v > 0
    if np.issubdtype(np.dtype(t), np.unsignedinteger):
        return np.abs(np.round(v * 10)).astype(t)
    if np.issubdtype(np.dtype(t), np.integer):
        return np.round(v * 10).astype(t)
    return v.astype(t)


def tf_dtype(t):
    return tf.string if t is np.bytes_ else tf.as_dtype(t)


# ---------------------------------------------------------------------------
# Write, read, pack and gather in every dtype.

def dtype_cases():
    for v in ("", "V2"):
        for t in DTYPES:
            dt = tf_dtype(t)
            a, b = values([2, 3], t, 1), values([2, 3], t, 2)

            def body(g, a=a, b=b, dt=dt):
                h = g.ta(3, dt)
                f = g.write(h, 0, a, g.flow(), dt)
                f = g.write(h, 2, b, f, dt)
                f = g.write(h, 1, b, f, dt)
                r = g.read(h, 2, f, dt)
                if g.v:
                    return [r, g.gather(h, [1, 0], f, dt)]
                return [r, g.gather(h, [1, 0], f, dt,
                                    element_shape=[2, 3])]
            legacy(f"write_read_gather{v}_{dt.name}", body, v)
        for t in (np.float32, np.int64, np.bytes_, np.bool_, np.complex128):
            dt = tf_dtype(t)
            x = values([3, 2], t, 3)

            def body(g, x=x, dt=dt):
                h = g.ta(3, dt)
                f = g.scatter(h, [2, 0, 1], x, g.flow(), dt)
                h2 = g.ta(2, dt)
                f2 = g.split(h2, x, [1, 2], g.flow(), dt)
                c, lengths = g.concat(h2, f2, dt)
                return [g.read(h, 0, f, dt), g.gather(h, [2, 1], f, dt),
                        c, lengths]
            legacy(f"scatter_split_concat{v}_{dt.name}", body, v)
    for t in DTYPES:
        dt = tf_dtype(t)
        x = values([3, 2, 2], t, 4)

        def body(g, x=x, dt=dt):
            h = g.ta(3, dt)
            f = g.unpack(h, x, g.flow(), dt)
            return [g.pack(h, f, dt), g.size(h, f)]
        legacy(f"unpack_pack_{dt.name}", body)


# ---------------------------------------------------------------------------
# Shapes, sizes and dynamic growth.

def shape_cases():
    for v in ("", "V2"):
        def dynamic(g):
            h = g.ta(0, tf.float32, dynamic_size=True, element_shape=[2])
            f = g.write(h, 3, np.float32([1, 2]), g.flow())
            f = g.write(h, 1, np.float32([3, 4]), f)
            # Indices 0 and 2 were never written: zeros of the known shape.
            return [g.size(h, f), g.gather(h, [0, 1, 2, 3], f, tf.float32)]
        legacy(f"dynamic_size_growth{v}", dynamic, v)

        def dynamic_scatter(g):
            h = g.ta(1, tf.int32, dynamic_size=True)
            f = g.scatter(h, [4, 2], np.int32([[1], [2]]), g.flow())
            return [g.size(h, f), g.read(h, 4, f, tf.int32)]
        legacy(f"dynamic_size_scatter{v}", dynamic_scatter, v)

        def dynamic_split(g):
            h = g.ta(0, tf.float32, dynamic_size=True)
            f = g.split(h, np.arange(6, dtype=np.float32).reshape(3, 2),
                        [0, 1, 2], g.flow())
            c, lengths = g.concat(h, f, tf.float32)
            return [g.size(h, f), c, lengths]
        legacy(f"dynamic_size_split_empty_piece{v}", dynamic_split, v)

        def empty_gather(g):
            h = g.ta(0, tf.float32)
            return [g.gather(h, np.zeros([0], np.int32), g.flow(),
                             tf.float32, element_shape=[2, 0])]
        legacy(f"gather_none_known_shape{v}", empty_gather, v)

        def empty_gather_unknown(g):
            h = g.ta(0, tf.float32)
            return [g.gather(h, np.zeros([0], np.int32), g.flow(),
                             tf.float32)]
        legacy(f"error_gather_none_unknown_shape{v}", empty_gather_unknown, v)

        def empty_concat(g):
            h = g.ta(0, tf.int32)
            c, lengths = g.concat(h, g.flow(), tf.int32,
                                  element_shape_except0=[3])
            return [c, lengths]
        legacy(f"concat_size_zero{v}", empty_concat, v)

        def empty_elements(g):
            h = g.ta(2, tf.float32)
            f = g.write(h, 0, np.zeros([0, 2], np.float32), g.flow())
            f = g.write(h, 1, np.zeros([0, 2], np.float32), f)
            c, lengths = g.concat(h, f, tf.float32, element_shape_except0=[2])
            return [c, lengths]
        legacy(f"concat_empty_elements{v}", empty_elements, v)

        def identical(g):
            # The element_shape attr merged into the array's; the read of
            # an unwritten index then gives zeros of that shape.
            h = g.ta(2, tf.float32, element_shape=[1, 2])
            f = g.write(h, 1, np.float32([[5, 6]]), g.flow())
            return [g.read(h, 0, f, tf.float32),
                    g.read(h, 1, f, tf.float32)]
        legacy(f"read_unwritten_known_shape{v}", identical, v)

        def clear_false(g):
            h = g.ta(1, tf.float32, clear_after_read=False)
            f = g.write(h, 0, np.float32([7]), g.flow())
            r1 = g.read(h, 0, f, tf.float32)
            r2 = g.read(h, 0, f, tf.float32, control=[r1])
            return [r1, r2]
        legacy(f"read_twice_no_clear{v}", clear_false, v)

        def named(g):
            h = g.ta(2, tf.float32, tensor_array_name="named_array")
            f = g.write(h, 0, np.float32(1), g.flow())
            f = g.write(h, 1, np.float32(2), f)
            return [g.gather(h, [0, 1], f, tf.float32), g.size(h, f)]
        legacy(f"tensor_array_name{v}", named, v)

    def pack_empty(g):
        h = g.ta(0, tf.float64)
        return [g.pack(h, g.flow(), tf.float64, element_shape=[3])]
    legacy("pack_size_zero", pack_empty)

    def pack_empty_unknown(g):
        h = g.ta(0, tf.float64)
        return [g.pack(h, g.flow(), tf.float64)]
    legacy("error_pack_size_zero_unknown_shape", pack_empty_unknown)

    def unpack_dynamic(g):
        h = g.ta(0, tf.int32, dynamic_size=True)
        f = g.unpack(h, np.int32([[1, 2], [3, 4], [5, 6]]), g.flow())
        return [g.size(h, f), g.pack(h, f, tf.int32)]
    legacy("unpack_dynamic_size", unpack_dynamic)


# ---------------------------------------------------------------------------
# Errors, with TensorFlow's codes.

def error_cases():
    for v in ("", "V2"):
        def unwritten(g):
            h = g.ta(3, tf.float32)
            f = g.write(h, 0, np.float32([1]), g.flow())
            return [g.read(h, 1, f, tf.float32)]
        legacy(f"error_read_unwritten{v}", unwritten, v)

        def read_past_end(g):
            h = g.ta(2, tf.float32)
            f = g.write(h, 0, np.float32(1), g.flow())
            return [g.read(h, 2, f, tf.float32)]
        legacy(f"error_read_out_of_range{v}", read_past_end, v)

        def read_negative(g):
            h = g.ta(2, tf.float32)
            f = g.write(h, 0, np.float32(1), g.flow())
            return [g.read(h, -1, f, tf.float32)]
        legacy(f"error_read_negative{v}", read_negative, v)

        def write_past_end(g):
            h = g.ta(2, tf.float32)
            return [g.write(h, 2, np.float32(1), g.flow())]
        legacy(f"error_write_out_of_range{v}", write_past_end, v)

        def double_write(g):
            h = g.ta(2, tf.float32)
            f = g.write(h, 0, np.float32(1), g.flow())
            return [g.write(h, 0, np.float32(2), f)]
        legacy(f"error_write_twice{v}", double_write, v)

        def write_after_read(g):
            h = g.ta(2, tf.float32, clear_after_read=False)
            f = g.write(h, 0, np.float32(1), g.flow())
            r = g.read(h, 0, f, tf.float32)
            return [g.write(h, 0, np.float32(2), f, control=[r])]
        legacy(f"error_write_after_read{v}", write_after_read, v)

        def read_twice(g):
            h = g.ta(1, tf.float32)
            f = g.write(h, 0, np.float32([7]), g.flow())
            r1 = g.read(h, 0, f, tf.float32)
            return [g.read(h, 0, f, tf.float32, control=[r1])]
        legacy(f"error_read_twice_cleared{v}", read_twice, v)

        def closed(g):
            h = g.ta(2, tf.float32)
            f = g.write(h, 0, np.float32(1), g.flow())
            c = g.close(h, control=[f])
            return [g.read(h, 0, f, tf.float32, control=[c])]
        legacy(f"error_read_closed{v}", closed, v)

        def closed_size(g):
            h = g.ta(2, tf.float32)
            c = g.close(h)
            return [g.size(h, g.flow(), control=[c])]
        legacy(f"error_size_closed{v}", closed_size, v)

        def negative_size(g):
            h = g.ta(-1, tf.float32)
            return [g.size(h, g.flow())]
        legacy(f"error_negative_size{v}", negative_size, v)

        def wrong_dtype_write(g):
            h = g.ta(2, tf.float32)
            return [g.write(h, 0, np.int32(1), g.flow())]
        legacy(f"error_write_wrong_dtype{v}", wrong_dtype_write, v)

        def wrong_dtype_read(g):
            h = g.ta(2, tf.float32)
            f = g.write(h, 0, np.float32(1), g.flow())
            return [g.read(h, 0, f, tf.int32)]
        legacy(f"error_read_wrong_dtype{v}", wrong_dtype_read, v)

        def bad_shape(g):
            h = g.ta(2, tf.float32, element_shape=[2])
            return [g.write(h, 0, np.float32([1, 2, 3]), g.flow())]
        legacy(f"error_write_wrong_shape{v}", bad_shape, v)

        def inconsistent(g):
            h = g.ta(2, tf.float32)
            f = g.write(h, 0, np.float32([1, 2]), g.flow())
            f = g.write(h, 1, np.float32([1, 2, 3]), f)
            return [g.gather(h, [0, 1], f, tf.float32)]
        legacy(f"error_gather_inconsistent_shapes{v}", inconsistent, v)

        def concat_scalars(g):
            h = g.ta(1, tf.float32)
            f = g.write(h, 0, np.float32(1), g.flow())
            return list(g.concat(h, f, tf.float32))
        legacy(f"error_concat_scalars{v}", concat_scalars, v)

        def split_bad_lengths(g):
            h = g.ta(2, tf.float32)
            return [g.split(h, np.zeros([3], np.float32), [1, 1], g.flow())]
        legacy(f"error_split_lengths_sum{v}", split_bad_lengths, v)

        def split_wrong_count(g):
            h = g.ta(3, tf.float32)
            return [g.split(h, np.zeros([3], np.float32), [1, 2], g.flow())]
        legacy(f"error_split_size_mismatch{v}", split_wrong_count, v)

        def scatter_past_end(g):
            h = g.ta(2, tf.float32)
            return [g.scatter(h, [0, 2], np.float32([1, 2]), g.flow())]
        legacy(f"error_scatter_out_of_range{v}", scatter_past_end, v)

        def scatter_count(g):
            h = g.ta(3, tf.float32)
            return [g.scatter(h, [0, 1], np.float32([1, 2, 3]), g.flow())]
        legacy(f"error_scatter_indices_count{v}", scatter_count, v)

        def index_not_scalar(g):
            h = g.ta(3, tf.float32)
            return [g.op("TensorArrayWrite" + g.v,
                         [h, g.const([0], tf.int32), g.const(1.0),
                          g.flow()], T=tf.float32)]
        if not v:  # the V2 op's shape function rejects it at import
            legacy("error_write_index_not_scalar", index_not_scalar)

    def unpack_wrong_rows(g):
        h = g.ta(2, tf.float32)
        return [g.unpack(h, np.float32([1, 2, 3]), g.flow())]
    legacy("error_unpack_rows_not_size", unpack_wrong_rows)

    def unpack_scalar(g):
        h = g.ta(2, tf.float32)
        return [g.unpack(h, np.float32(1), g.flow())]
    legacy("error_unpack_scalar", unpack_scalar)


# ---------------------------------------------------------------------------
# Gradient arrays.

def grad_cases():
    for v in ("", "V2"):
        def grad_sum(g):
            h = g.ta(2, tf.float32)
            f = g.write(h, 0, np.float32([1, 2]), g.flow())
            f = g.write(h, 1, np.float32([3, 4]), f)
            gh = g.grad(h, f, "gradients")
            # Writes to one index of a gradient array are summed.
            gf = g.write(gh, 0, np.float32([10, 20]), g.flow())
            gf = g.write(gh, 0, np.float32([1, 1]), gf)
            gf = g.write(gh, 1, np.float32([5, 5]), gf)
            return [g.gather(gh, [0, 1], gf, tf.float32)]
        legacy(f"grad_writes_summed{v}", grad_sum, v)

        def grad_same_source(g):
            h = g.ta(2, tf.float64)
            f = g.write(h, 0, np.float64([1.5]), g.flow())
            f = g.write(h, 1, np.float64([2.5]), f)
            g1 = g.grad(h, f, "gradients")
            gf = g.write(g1, 1, np.float64([4.0]), g.flow())
            # A second Grad op with the same source: the same array.
            g2 = g.grad(h, f, "gradients")
            g3 = g.grad(h, f, "gradients_1")
            # Index 0 was never written to the gradient array: zeros of
            # the forward element's shape.
            return [g.gather(g2, [0, 1], gf, tf.float64),
                    g.size(g3, g.flow())]
        legacy(f"grad_one_array_per_source{v}", grad_same_source, v)

        def grad_freezes(g):
            h = g.ta(1, tf.int32, dynamic_size=True)
            f = g.write(h, 0, np.int32(1), g.flow())
            gh = g.grad(h, f, "gradients")
            # Creating the gradient array froze the forward array's size.
            return [g.write(h, 3, np.int32(2), f, control=[gh])]
        legacy(f"error_grad_freezes_dynamic_size{v}", grad_freezes, v)

        def grad_of_grad(g):
            h = g.ta(1, tf.float32)
            f = g.write(h, 0, np.float32(1), g.flow())
            gh = g.grad(h, f, "gradients")
            return [g.size(g.grad(gh, f, "gradients_1"), g.flow())]
        legacy(f"error_grad_of_grad_array{v}", grad_of_grad, v)

        def grad_split_concat(g):
            h = g.ta(2, tf.float32)
            f = g.split(h, np.float32([1, 2, 3]), [2, 1], g.flow())
            gh = g.grad(h, f, "gradients")
            gf = g.write(gh, 1, np.float32([9]), g.flow())
            c, lengths = g.concat(gh, gf, tf.float32)
            return [c, lengths]
        legacy(f"grad_of_split_concat{v}", grad_split_concat, v)

    # Not here: TensorArrayPack of a gradient array whose forward array was
    # written index by index (never split or unpacked). TensorFlow packs
    # its "marked size", -1 then, and resizes its index vector to it, which
    # does not end in an answer; dfx packs the array's size, as its concat
    # of such an array does (tensor_array.h's ConcatSize).
    def grad_unpack_pack(g):
        h = g.ta(3, tf.float32)
        f = g.unpack(h, np.float32([[1, 2], [3, 4], [5, 6]]), g.flow())
        gh = g.grad(h, f, "gradients")
        gf = g.write(gh, 2, np.float32([1, 1]), g.flow())
        return [g.pack(gh, gf, tf.float32)]
    legacy("grad_of_unpack_pack", grad_unpack_pack)


# ---------------------------------------------------------------------------
# An old dynamic_rnn loop body, unrolled by hand: the inputs unpacked into a
# TensorArray, each step reads its input, computes the new state and writes
# it to the output array, which is packed at the end.

def rnn_cases():
    steps, batch, units = 3, 2, 2
    r = golden_lib.rng(9)
    x = r.uniform(-1, 1, [steps, batch, units]).astype(np.float32)
    w = r.uniform(-1, 1, [units, units]).astype(np.float32)
    u = r.uniform(-1, 1, [units, units]).astype(np.float32)

    def body_v1(g):
        inputs = g.ta(steps, tf.float32, tensor_array_name="dynamic_rnn_in")
        outputs = g.ta(steps, tf.float32, tensor_array_name="dynamic_rnn_out")
        fin = g.unpack(inputs, x, g.flow())
        fout = g.flow()
        h = tf.zeros([batch, units])
        wt, ut = tf.constant(w), tf.constant(u)
        for t in range(steps):
            xt = g.read(inputs, t, fin, tf.float32)
            # The read exists only in the edited GraphDef: the cell reads
            # a stand-in Identity whose input the edit points at it.
            xt_in = tf.raw_ops.Identity(input=tf.zeros([batch, units]),
                                        name=f"x_{t}")
            h = tf.tanh(tf.matmul(xt_in, wt) + tf.matmul(h, ut))
            g.pending.append((f"x_{t}", xt))
            fout = g.write(outputs, t, None, fout, tf.float32,
                           value_name=h.name)
        return [g.pack(outputs, fout, tf.float32), g.size(outputs, fout)]

    def build_rnn(g_body, v):
        def build():
            g = G(v)
            fetches = [out(n) for n in g_body(g)]

            def edit(graph_def):
                for node in graph_def.node:
                    for name, src in g.pending:
                        if node.name == name:
                            del node.input[:]
                            node.input.append(src)
                graph_def.node.extend(g.nodes)
            return edit, fetches
        return build

    golden_lib.legacy_case(FAMILY, "dynamic_rnn_unrolled",
                           build_rnn(body_v1, ""), producer=V1_PRODUCER)

    def body_v2(g):
        inputs = g.ta(steps, tf.float32)
        outputs = g.ta(0, tf.float32, dynamic_size=True)
        fin = g.scatter(inputs, list(range(steps)), x, g.flow())
        fout = g.flow()
        h = tf.zeros([batch, units])
        wt, ut = tf.constant(w), tf.constant(u)
        for t in range(steps):
            xt = g.read(inputs, t, fin, tf.float32)
            xt_in = tf.raw_ops.Identity(input=tf.zeros([batch, units]),
                                        name=f"x_{t}")
            h = tf.tanh(tf.matmul(xt_in, wt) + tf.matmul(h, ut))
            g.pending.append((f"x_{t}", xt))
            fout = g.write(outputs, t, None, fout, tf.float32,
                           value_name=h.name)
        return [g.gather(outputs, list(range(steps)), fout, tf.float32),
                g.size(outputs, fout)]

    golden_lib.legacy_case(FAMILY, "dynamic_rnn_unrolledV2",
                           build_rnn(body_v2, "V2"), producer=V2_PRODUCER)


# A dynamic_rnn-style while_loop as TensorFlow 1.x exported it: built with
# control flow v1 and TensorArrayV3, then turned into the older ops. The
# handles enter the loop frame by Enter (RefEnter for the v1 reference
# handles); creation ops lose their flow output (a constant flow instead).

V3_NAMES = ["Read", "Write", "Gather", "Scatter", "Concat", "Split", "Size",
            "Close", "Grad"]


def to_old_tensor_arrays(graph_def, v):
    """The TensorArrayV3 ops of graph_def as TensorArray<v> ops, its stacks
    (StackV2, ...) as the v1 ones, which take no max_size."""
    flows = {}
    ops = {n.name: n for n in graph_def.node}
    stacks = set()
    for node in graph_def.node:
        if node.op in ("StackV2", "StackPushV2", "StackPopV2",
                       "StackCloseV2"):
            node.op = node.op[:-2]
            if node.op == "Stack":
                stacks.add(node.name)
                del node.input[0]  # max_size
    for node in graph_def.node:
        if node.op == "Enter" and node.attr["T"].type == tf.resource:
            source = node.input[0].split(":")[0]
            while ops[source].op == "Enter":
                source = ops[source].input[0].split(":")[0]
            node.attr["T"].type = tf.string.as_datatype_enum
            if not v or source in stacks:
                node.op = "RefEnter"
        elif node.op == "TensorArrayV3":
            node.op = "TensorArray" + v
            del node.attr["identical_element_shapes"]
            flows[node.name + ":1"] = node.name + "_flow"
        elif node.op.startswith("TensorArray") and node.op.endswith("V3"):
            base = node.op[len("TensorArray"):-2]
            assert base in V3_NAMES, node.op
            node.op = "TensorArray" + base + v
            if base == "Grad":
                flows[node.name + ":1"] = node.name + "_flow"
    for node in graph_def.node:
        for i, inp in enumerate(node.input):
            if inp in flows:
                node.input[i] = flows[inp]
    for flow in sorted(set(flows.values())):
        const = graph_def.node.add(name=flow, op="Const")
        const.attr["dtype"].type = tf.float32.as_datatype_enum
        const.attr["value"].tensor.CopyFrom(
            tf.make_tensor_proto(np.float32(0)))


def loop_cases():
    from tensorflow.python.ops import control_flow_util
    steps, batch, units = 4, 2, 3
    r = golden_lib.rng(11)
    x = r.uniform(-1, 1, [steps, batch, units]).astype(np.float32)
    w = r.uniform(-1, 1, [units, units]).astype(np.float32)

    for v in ("", "V2"):
        def build(v=v):
            old = control_flow_util.ENABLE_CONTROL_FLOW_V2
            control_flow_util.ENABLE_CONTROL_FLOW_V2 = False
            try:
                inputs = tf.TensorArray(tf.float32, size=steps).unstack(x)
                outputs = tf.TensorArray(tf.float32, size=0,
                                         dynamic_size=True)

                def body(t, h, out):
                    h = tf.tanh(tf.matmul(inputs.read(t), w) + h)
                    return t + 1, h, out.write(t, h)
                _, h, out = tf1.while_loop(
                    lambda t, h, out: t < steps, body,
                    [tf.constant(0), tf.zeros([batch, units]), outputs])
                fetches = [out.stack().name, out.size().name, h.name]
            finally:
                control_flow_util.ENABLE_CONTROL_FLOW_V2 = old
            return (lambda gd: to_old_tensor_arrays(gd, v)), fetches
        golden_lib.legacy_case(
            FAMILY, f"while_loop_dynamic_rnn{v}", build,
            producer=V2_PRODUCER if v else V1_PRODUCER)

        # Its gradient, as tf.gradients of TensorFlow 1.x built it: the
        # backward loop pops the forward loop's values from v1 stacks and
        # reads the outputs' gradients from the gradient TensorArray.
        def build_grad(v=v):
            old = control_flow_util.ENABLE_CONTROL_FLOW_V2
            control_flow_util.ENABLE_CONTROL_FLOW_V2 = False
            try:
                wt = tf.constant(w)
                xt = tf.constant(x)
                inputs = tf.TensorArray(tf.float32, size=steps).unstack(xt)
                outputs = tf.TensorArray(tf.float32, size=steps)

                def body(t, h, out):
                    h = tf.tanh(tf.matmul(inputs.read(t), wt) + h)
                    return t + 1, h, out.write(t, h)
                _, h, out = tf1.while_loop(
                    lambda t, h, out: t < steps, body,
                    [tf.constant(0), tf.zeros([batch, units]), outputs])
                stacked = out.stack()
                loss = tf.reduce_sum(stacked * stacked)
                dw, dx = tf.gradients(loss, [wt, xt])
                fetches = [loss.name, dw.name, dx.name]
            finally:
                control_flow_util.ENABLE_CONTROL_FLOW_V2 = old
            return (lambda gd: to_old_tensor_arrays(gd, v)), fetches
        golden_lib.legacy_case(
            FAMILY, f"while_loop_gradient{v}", build_grad,
            producer=V2_PRODUCER if v else V1_PRODUCER)


# ---------------------------------------------------------------------------
# The v1 stacks.

def stack_cases():
    for t in (np.float32, np.int32, np.bytes_, np.float64, np.bool_):
        dt = tf_dtype(t)
        vals = [values([2], t, s) for s in range(3)]

        def body(g, vals=vals, dt=dt):
            s = g.op("Stack", [], elem_type=dt, stack_name="s")
            pushes = []
            prev = []
            for v in vals:
                p = g.op("StackPush", [s, g.const(v, dt)], T=dt,
                         control=prev)
                pushes.append(p)
                prev = [p]
            pops = []
            for _ in vals:
                p = g.op("StackPop", [s], elem_type=dt, control=prev)
                pops.append(p)
                prev = [p]
            return [pushes[0]] + pops
        legacy(f"stack_push_pop_order_{dt.name}", body)

    def swap(g):
        s = g.op("Stack", [], elem_type=tf.float32)
        p = g.op("StackPush", [s, g.const(np.float32([[1, 2]]))],
                 T=tf.float32, swap_memory=True)
        return [g.op("StackPop", [s], elem_type=tf.float32, control=[p])]
    legacy("stack_swap_memory", swap)

    def interleaved(g):
        s = g.op("Stack", [], elem_type=tf.int64)
        p1 = g.op("StackPush", [s, g.const(np.int64(1))], T=tf.int64)
        p2 = g.op("StackPush", [s, g.const(np.int64(2))], T=tf.int64,
                  control=[p1])
        a = g.op("StackPop", [s], elem_type=tf.int64, control=[p2])
        p3 = g.op("StackPush", [s, g.const(np.int64(3))], T=tf.int64,
                  control=[a])
        b = g.op("StackPop", [s], elem_type=tf.int64, control=[p3])
        c = g.op("StackPop", [s], elem_type=tf.int64, control=[b])
        return [a, b, c]
    legacy("stack_interleaved", interleaved)

    def empty(g):
        s = g.op("Stack", [], elem_type=tf.float32)
        return [g.op("StackPop", [s], elem_type=tf.float32)]
    legacy("error_stack_pop_empty", empty)

    def emptied(g):
        s = g.op("Stack", [], elem_type=tf.float32)
        p = g.op("StackPush", [s, g.const(np.float32(1))], T=tf.float32)
        a = g.op("StackPop", [s], elem_type=tf.float32, control=[p])
        return [g.op("StackPop", [s], elem_type=tf.float32, control=[a])]
    legacy("error_stack_pop_emptied", emptied)

    def closed(g):
        s = g.op("Stack", [], elem_type=tf.float32)
        p = g.op("StackPush", [s, g.const(np.float32(1))], T=tf.float32)
        c = g.op("StackClose", [s], control=[p])
        return [g.op("StackPop", [s], elem_type=tf.float32, control=[c])]
    legacy("error_stack_pop_closed", closed)

    def wrong_type(g):
        s = g.op("Stack", [], elem_type=tf.float32)
        return [g.op("StackPush", [s, g.const(np.int32(1))], T=tf.int32)]
    legacy("error_stack_push_wrong_dtype", wrong_type)

    def two_stacks(g):
        # One Stack node per stack: two nodes, two stacks, even with one
        # stack_name.
        s1 = g.op("Stack", [], elem_type=tf.int32, stack_name="same")
        s2 = g.op("Stack", [], elem_type=tf.int32, stack_name="same")
        p1 = g.op("StackPush", [s1, g.const(np.int32(1))], T=tf.int32)
        p2 = g.op("StackPush", [s2, g.const(np.int32(2))], T=tf.int32)
        return [g.op("StackPop", [s1], elem_type=tf.int32, control=[p1]),
                g.op("StackPop", [s2], elem_type=tf.int32, control=[p2])]
    legacy("stack_two_with_one_name", two_stacks)


def main():
    dtype_cases()
    shape_cases()
    error_cases()
    grad_cases()
    rnn_cases()
    loop_cases()
    stack_cases()
    # Last: the first case empties the family's folder.
    golden_lib.write_op_defs(FAMILY, OP_NAMES)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Golden cases of the proto family: tf.io.decode_json_example
(DecodeJSONExample), tf.io.decode_proto (DecodeProtoV2) and
tf.io.encode_proto (EncodeProto), and their OpDefs.

The messages are those of a small proto2 file, dfxtest.proto, built here
with descriptor_pb2 (no protoc): one field of every scalar type, proto2
defaults, an enum, a nested message, a group, and repeated fields packed
and not.
Its FileDescriptorSet travels in the graphs as a "bytes://" descriptor_source
attr (a few hundred bytes). "local://" cases decode tf.train.Example, which
TensorFlow's generated pool holds as tensorflow.Example (dfx resolves the
name to its own dfx.Example, whose field numbers are TensorFlow's).

Cases cover every field type with each dtype TensorFlow allows for it,
repeated fields padded with defaults (sizes output), missing fields (the
proto2 defaults), hand-written wire bytes (fields out of order, a singular
field twice, a packed singular field, a default value on the wire, a
field with the wrong wire type, unrequested and unknown fields), text
format and sanitize, nested messages decoded in two steps, encode then
decode round trips, bad bytes (DataLoss) and bad attrs and inputs
(InvalidArgument).

A descriptor_source naming a file is checked by tests/kernels/proto_test.cc
(the path must go through dfx's --data-dir policy, and golden graphs carry
no per-run paths in attrs). EncodeProto with a negative size is left out:
TensorFlow writes a packed field's length from the negative count (bytes
that depend on unsigned wrap-around); dfx refuses it (InvalidArgument).

    $(tools/tf_env) tests/golden/gen_proto.py
"""

import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from google.protobuf import descriptor_pb2, descriptor_pool  # noqa: E402
from google.protobuf import message_factory  # noqa: E402

import golden_lib  # noqa: E402
from golden_lib import tf1  # noqa: E402

FAMILY = "proto"
RAW = tf.raw_ops
OP_NAMES = ["DecodeJSONExample", "DecodeProtoV2", "EncodeProto"]

F = descriptor_pb2.FieldDescriptorProto


def _file():
    fd = descriptor_pb2.FileDescriptorProto(name="dfxtest.proto",
                                            package="dfxtest",
                                            syntax="proto2")
    color = fd.enum_type.add(name="Color")
    for name, number in (("RED", 0), ("GREEN", 1), ("BLUE", 5),
                         ("NEG", -3)):
        color.value.add(name=name, number=number)
    inner = fd.message_type.add(name="Inner")
    inner.field.add(name="x", number=1, type=F.TYPE_INT32,
                    label=F.LABEL_OPTIONAL)
    inner.field.add(name="s", number=2, type=F.TYPE_STRING,
                    label=F.LABEL_OPTIONAL)
    m = fd.message_type.add(name="All")
    opt, rep = F.LABEL_OPTIONAL, F.LABEL_REPEATED

    def add(name, number, type_, label=opt, default=None, packed=None,
            type_name=None):
        f = m.field.add(name=name, number=number, type=type_, label=label)
        if default is not None:
            f.default_value = default
        if packed is not None:
            f.options.packed = packed
        if type_name:
            f.type_name = type_name

    add("f_double", 1, F.TYPE_DOUBLE, default="2.25")
    add("f_float", 2, F.TYPE_FLOAT, default="1.5")
    add("f_int64", 3, F.TYPE_INT64, default="-9000000000")
    add("f_uint64", 4, F.TYPE_UINT64, default="18000000000000000000")
    add("f_int32", 5, F.TYPE_INT32, default="-7")
    add("f_fixed64", 6, F.TYPE_FIXED64)
    add("f_fixed32", 7, F.TYPE_FIXED32, default="4000000000")
    add("f_bool", 8, F.TYPE_BOOL, default="true")
    add("f_string", 9, F.TYPE_STRING, default="dflt")
    add("f_msg", 11, F.TYPE_MESSAGE, type_name=".dfxtest.Inner")
    add("f_bytes", 12, F.TYPE_BYTES, default="b\\001")
    add("f_uint32", 13, F.TYPE_UINT32, default="7")
    add("f_enum", 14, F.TYPE_ENUM, default="BLUE", type_name=".dfxtest.Color")
    add("f_sfixed32", 15, F.TYPE_SFIXED32, default="-2")
    add("f_sfixed64", 16, F.TYPE_SFIXED64)
    add("f_sint32", 17, F.TYPE_SINT32, default="-100")
    add("f_sint64", 18, F.TYPE_SINT64)
    add("r_int32", 21, F.TYPE_INT32, rep, packed=True)
    add("r_sint64", 22, F.TYPE_SINT64, rep)
    add("r_double", 23, F.TYPE_DOUBLE, rep, packed=True)
    add("r_string", 24, F.TYPE_STRING, rep)
    add("r_msg", 25, F.TYPE_MESSAGE, rep, type_name=".dfxtest.Inner")
    add("r_fixed32", 26, F.TYPE_FIXED32, rep, packed=True)
    add("r_bool", 27, F.TYPE_BOOL, rep)
    add("r_enum", 28, F.TYPE_ENUM, rep, packed=True,
        type_name=".dfxtest.Color")
    add("r_float", 29, F.TYPE_FLOAT, rep)
    add("r_uint64", 30, F.TYPE_UINT64, rep, packed=True)
    add("r_sint32", 31, F.TYPE_SINT32, rep, packed=True)
    add("r_sfixed32", 32, F.TYPE_SFIXED32, rep, packed=True)
    add("r_uint32", 33, F.TYPE_UINT32, rep, packed=True)
    # A proto2 group: its contents between start and end tags.
    m.nested_type.add(name="Grp").field.add(
        name="gx", number=41, type=F.TYPE_INT32, label=F.LABEL_OPTIONAL)
    add("grp", 40, F.TYPE_GROUP, type_name=".dfxtest.All.Grp")
    return fd


FILE = _file()
DESC_SET = descriptor_pb2.FileDescriptorSet(file=[FILE]).SerializeToString()
SRC = b"bytes://" + DESC_SET
_pool = descriptor_pool.DescriptorPool()
_pool.Add(FILE)
All = message_factory.GetMessageClass(_pool.FindMessageTypeByName(
    "dfxtest.All"))
Inner = message_factory.GetMessageClass(_pool.FindMessageTypeByName(
    "dfxtest.Inner"))

# Field name -> the dtypes TensorFlow allows for it.
SCALARS = {
    "f_double": [tf.float64],
    "f_float": [tf.float32, tf.float64],
    "f_int64": [tf.int64],
    "f_uint64": [tf.uint64],
    "f_int32": [tf.int32, tf.int64],
    "f_fixed64": [tf.uint64],
    "f_fixed32": [tf.uint32, tf.uint64],
    "f_bool": [tf.bool],
    "f_string": [tf.string],
    "f_msg": [tf.string],
    "f_bytes": [tf.string],
    "f_uint32": [tf.uint32, tf.uint64],
    "f_enum": [tf.int32],
    "f_sfixed32": [tf.int32, tf.int64],
    "f_sfixed64": [tf.int64],
    "f_sint32": [tf.int32, tf.int64],
    "f_sint64": [tf.int64],
}
REPEATED = {
    "r_int32": tf.int32, "r_sint64": tf.int64, "r_double": tf.float64,
    "r_string": tf.string, "r_msg": tf.string, "r_fixed32": tf.uint32,
    "r_bool": tf.bool, "r_enum": tf.int32, "r_float": tf.float32,
    "r_uint64": tf.uint64, "r_sint32": tf.int64, "r_sfixed32": tf.int64,
    "r_uint32": tf.uint64,
}


def case(name, build, **kw):
    kw.setdefault("rtol", 0.0)
    kw.setdefault("atol", 0.0)
    golden_lib.case(FAMILY, name, build, **kw)


def strings(values, shape=None):
    arr = np.array(values, dtype=object)
    if shape is not None:
        arr = arr.reshape(shape)
    return arr


def full_message(i):
    m = All()
    m.f_double = -1.5e300 + i
    m.f_float = 3.25 * (i + 1)
    m.f_int64 = -2**62 + i
    m.f_uint64 = 2**64 - 1 - i
    m.f_int32 = -2**31 + i
    m.f_fixed64 = 2**63 + i
    m.f_fixed32 = 2**32 - 1 - i
    m.f_bool = i % 2 == 0
    m.f_string = "héllo %d" % i
    m.f_msg.x = 42 + i
    m.f_msg.s = "in"
    m.f_bytes = bytes([0, 255, i])
    m.f_uint32 = 2**31 + i
    m.f_enum = [1, 5, -3][i % 3]
    m.f_sfixed32 = -5 - i
    m.f_sfixed64 = -2**63 + i
    m.f_sint32 = -2**31 + 1 + i
    m.f_sint64 = -12345678901 * (i + 1)
    return m.SerializeToString()


def repeated_message(k):
    m = All()
    for j in range(k):
        m.r_int32.append(-j * 1000)
        m.r_sint64.append(-j * 10**12)
        m.r_double.append(j / 3.0)
        m.r_string.append("s%d" % j)
        sub = m.r_msg.add()
        sub.x = j
        m.r_fixed32.append(4000000000 + j)
        m.r_bool.append(j % 2 == 1)
        m.r_enum.append([0, 1, 5, -3][j % 4])
        m.r_float.append(j * 0.5)
        m.r_uint64.append(2**64 - 1 - j)
        m.r_sint32.append(-2**31 + j)
        m.r_sfixed32.append(-j - 1)
        m.r_uint32.append(2**32 - 1 - j)
    return m.SerializeToString()


def decode(ph, fields, types, **kw):
    kw.setdefault("descriptor_source", SRC)
    kw.setdefault("message_type", "dfxtest.All")
    sizes, values = RAW.DecodeProtoV2(bytes=ph, field_names=fields,
                                      output_types=types, **kw)
    return [sizes] + list(values)


def decode_case(name, messages, fields, types, shape=None, **kw):
    def build():
        ph = tf1.placeholder(tf.string, name="bytes")
        return decode(ph, fields, types, **kw), {ph: strings(messages, shape)}
    case("dec_" + name, build)


def decode_cases():
    msgs = [full_message(i) for i in range(3)] + [b""]
    for dtype_index in (0, 1):
        fields, types = [], []
        for f, ds in SCALARS.items():
            if dtype_index < len(ds):
                fields.append(f)
                types.append(ds[dtype_index])
        decode_case("scalars_dtypes_%d" % dtype_index, msgs, fields, types)
    # The caller's order, not the field numbers'; one field twice.
    decode_case("scalars_any_order", msgs[:2],
                ["f_sint64", "f_double", "f_string", "f_double"],
                [tf.int64, tf.float64, tf.string, tf.float64])
    decode_case("scalars_2d_input", msgs, ["f_int32", "f_string"],
                [tf.int32, tf.string], shape=[2, 2])
    decode_case("scalar_input", msgs[0], ["f_int32", "f_msg"],
                [tf.int64, tf.string], shape=[])
    decode_case("no_fields", msgs[:2], [], [])
    # Missing fields: the proto2 defaults (the type's zero where none).
    decode_case("missing_defaults", [b"", b"", All(f_int32=3).SerializeToString()],
                list(SCALARS), [ds[0] for ds in SCALARS.values()])
    rep = [repeated_message(k) for k in (0, 3, 1, 5)]
    decode_case("repeated_padded", rep, list(REPEATED),
                list(REPEATED.values()))
    decode_case("repeated_padded_2d", rep, ["r_int32", "r_string", "r_msg"],
                [tf.int64, tf.string, tf.string], shape=[2, 2])
    gm = All()
    gm.grp.gx = 77
    gm.f_int32 = 4
    decode_case("group", [gm.SerializeToString(), b""], ["grp", "f_int32"],
                [tf.string, tf.int32])
    decode_case("group_unterminated", [b"\xc3\x02\xc8\x02\x01"], ["grp"],
                [tf.string])
    decode_case("repeated_all_empty", [b"", b""],
                ["r_int32", "r_string"], [tf.int32, tf.string])

    # Hand-written wire bytes.
    wire = {
        # f_int32 (5) twice: the last value, counted once.
        "singular_twice": b"\x28\x01\x28\x02",
        # Fields out of number order.
        "out_of_order": b"\x40\x01\x28\x09\x09" + struct.pack("<d", 2.5),
        # f_double (fixed64) with a varint wire type: skipped, and what
        # follows read as tags (a zero tag ends early: DataLoss).
        "varint_for_fixed": b"\x28\x09\x08" + b"\x00" * 7 + b"\x40\x48\x01",
        # f_int32 packed (a singular field): the last value.
        "singular_packed": b"\x2a\x03\x01\x02\x03",
        # r_int32 (21) unpacked on the wire though the schema packs it.
        "packed_unpacked": b"\xa8\x01\x07\xa8\x01\x08\xaa\x01\x02\x09\x0a",
        # A default value on the wire still counts.
        "zero_on_wire": b"\x28\x00\x40\x00",
        # f_int32 with a fixed32 wire type: skipped.
        "wrong_wire_type": b"\x2d\x01\x00\x00\x00\x28\x04",
        # Unknown fields (99, 100) skipped.
        "unknown_fields": b"\x98\x06\x05\xa2\x06\x02ab\x28\x06",
        # A negative int32 in ten bytes; a sint32 past 32 bits truncated.
        "int32_ten_bytes": b"\x28" + b"\xff" * 9 + b"\x01",
        # f_int32 read packed after a value: no room (DataLoss).
        "singular_value_then_packed": b"\x28\x01\x2a\x01\x02",
        # An empty packed run of r_int32 after its last value: DataLoss.
        "packed_empty_after_last": b"\xaa\x01\x01\x05\xaa\x01\x00",
        # An empty packed run alone: nothing counted.
        "packed_empty": b"\xaa\x01\x00\x28\x03",
        # A varint past 32 bits for an int32: its low 32 bits.
        "int32_wide_varint": b"\x28\x80\x80\x80\x80\x10",
    }
    for name, data in wire.items():
        decode_case("wire_" + name, [data],
                    ["f_int32", "f_double", "f_bool", "r_int32"],
                    [tf.int32, tf.float64, tf.bool, tf.int32])

    # Bad bytes: TensorFlow's DataLoss.
    bad = {
        "truncated_varint": b"\x28",
        "truncated_fixed": b"\x09\x00\x00",
        "truncated_length": b"\x4a\x05ab",
        "truncated_unrequested": b"\x98\x06",
        "bad_wire_type": b"\x2f\x01",
        "packed_bad_varint": b"\xaa\x01\x01\x80",
        "packed_bad_fixed": b"\xd2\x01\x03\x00\x00\x00",
        "packed_too_long": b"\xaa\x01\x05\x01",
    }
    for name, data in bad.items():
        decode_case("bad_" + name, [msgs[0], data],
                    ["f_int32", "f_string", "r_int32", "r_fixed32"],
                    [tf.int32, tf.string, tf.int32, tf.uint32])

    # Nested messages: the bytes of f_msg / r_msg decoded again.
    def nested():
        ph = tf1.placeholder(tf.string, name="bytes")
        outer = decode(ph, ["f_msg", "r_msg"], [tf.string, tf.string])
        inner = decode(outer[1], ["x", "s"], [tf.int32, tf.string],
                       message_type="dfxtest.Inner")
        inner_rep = decode(outer[2], ["x"], [tf.int64],
                           message_type="dfxtest.Inner")
        return outer + inner + inner_rep, {
            ph: strings([full_message(0), repeated_message(3)])}
    case("dec_nested_two_steps", nested)

    # Text format and sanitize.
    text = [b"f_int32: 3 r_int32: 4 r_int32: 5 f_string: 'x'",
            b"f_msg { x: 9 } f_enum: GREEN", b""]
    decode_case("text_format", text,
                ["f_int32", "r_int32", "f_string", "f_msg", "f_enum"],
                [tf.int32, tf.int64, tf.string, tf.string, tf.int32],
                message_format="text")
    decode_case("text_format_bad", [b"f_int32: 'x'"], ["f_int32"], [tf.int32],
                message_format="text")
    decode_case("sanitize", msgs, ["f_int32", "f_msg", "f_double"],
                [tf.int32, tf.string, tf.float64], sanitize=True)
    decode_case("sanitize_bad", [b"\x28"], ["f_int32"], [tf.int32],
                sanitize=True)

    # tf.train.Example through the generated pool.
    ex = tf.train.Example()
    ex.features.feature["a"].int64_list.value.extend([1, 2])
    ex_bytes = ex.SerializeToString()
    decode_case("local_example", [ex_bytes, b""], ["features"], [tf.string],
                descriptor_source="local://",
                message_type="tensorflow.Example")
    f = tf.train.Feature(int64_list=tf.train.Int64List(value=[7, -8]))
    decode_case("local_feature", [f.SerializeToString()],
                ["int64_list", "float_list"], [tf.string, tf.string],
                descriptor_source="local://",
                message_type="tensorflow.Feature")
    decode_case("local_int64_list", [f.int64_list.SerializeToString()],
                ["value"], [tf.int64], descriptor_source="local://",
                message_type="tensorflow.Int64List")

    # Bad attrs and inputs: TensorFlow's InvalidArgument.
    decode_case("err_unknown_field", msgs[:1], ["nope"], [tf.int32])
    decode_case("err_wrong_dtype", msgs[:1], ["f_int32"], [tf.float32])
    decode_case("err_enum_int64", msgs[:1], ["f_enum"], [tf.int64])
    decode_case("err_string_as_int", msgs[:1], ["f_string"], [tf.int32])
    decode_case("err_unknown_message", msgs[:1], ["f_int32"], [tf.int32],
                message_type="dfxtest.Nope")
    decode_case("err_bad_descriptor", msgs[:1], ["f_int32"], [tf.int32],
                descriptor_source=b"bytes://junk")
    unbuildable = descriptor_pb2.FileDescriptorProto(name="u.proto",
                                                     package="u")
    unbuildable.message_type.add(name="U").field.add(
        name="v", number=1, type=F.TYPE_MESSAGE, label=F.LABEL_OPTIONAL,
        type_name=".u.Missing")
    decode_case("err_unbuildable_descriptor", msgs[:1], ["v"], [tf.string],
                message_type="u.U",
                descriptor_source=b"bytes://" + descriptor_pb2.FileDescriptorSet(
                    file=[unbuildable]).SerializeToString())
    decode_case("err_missing_file", msgs[:1], ["f_int32"], [tf.int32],
                descriptor_source="no_such_file.desc")
    decode_case("err_format", msgs[:1], ["f_int32"], [tf.int32],
                message_format="json")
    decode_case("err_empty_input", [], ["f_int32"], [tf.int32], shape=[0])
    decode_case("err_empty_2d_input", [], ["f_int32"], [tf.int32],
                shape=[2, 0])

    def mismatch():
        ph = tf1.placeholder(tf.string, name="bytes")
        g = tf1.get_default_graph()
        op = g.create_op(
            "DecodeProtoV2", [ph], [tf.int32, tf.int32],
            attrs={"message_type": tf1.AttrValue(s=b"dfxtest.All"),
                   "field_names": tf1.AttrValue(
                       list=tf1.AttrValue.ListValue(s=[b"f_int32",
                                                       b"f_sint32"])),
                   "output_types": tf1.AttrValue(
                       list=tf1.AttrValue.ListValue(type=[3])),
                   "descriptor_source": tf1.AttrValue(s=SRC),
                   "message_format": tf1.AttrValue(s=b"binary"),
                   "sanitize": tf1.AttrValue(b=False)},
            compute_shapes=False)
        return [op.outputs[0]], {ph: strings(msgs[:1])}
    case("dec_err_names_types_mismatch", mismatch)


def encode(sizes, values, fields, **kw):
    kw.setdefault("descriptor_source", SRC)
    kw.setdefault("message_type", "dfxtest.All")
    return RAW.EncodeProto(sizes=sizes, values=values, field_names=fields,
                           **kw)


def encode_case(name, sizes, values, fields, decode_types=None, **kw):
    """Encodes values (numpy arrays, fed) with sizes; with decode_types the
    bytes are decoded again in the same graph (a round trip)."""
    def build():
        sizes_ph = tf1.placeholder(tf.int32, name="sizes")
        feeds = {sizes_ph: np.asarray(sizes, np.int32)}
        phs = []
        for i, v in enumerate(values):
            if v.dtype == object:
                ph = tf1.placeholder(tf.string, name="v%d" % i)
            else:
                ph = tf1.placeholder(tf.as_dtype(v.dtype), name="v%d" % i)
            feeds[ph] = v
            phs.append(ph)
        out = encode(sizes_ph, phs, fields, **kw)
        fetches = [out]
        if decode_types is not None:
            fetches += decode(out, fields, decode_types,
                              descriptor_source=kw.get("descriptor_source",
                                                       SRC),
                              message_type=kw.get("message_type",
                                                  "dfxtest.All"))
        return fetches, feeds
    case("enc_" + name, build)


def encode_cases():
    a = np.array
    scalars = [
        ("f_double", a([[1.5e300], [-0.0]])),
        ("f_float", a([[3.25], [-1e-30]], np.float32)),
        ("f_float", a([[1.1], [1e300]], np.float64)),
        ("f_int64", a([[-2**63], [2**63 - 1]], np.int64)),
        ("f_uint64", a([[2**64 - 1], [0]], np.uint64)),
        ("f_int32", a([[-1], [2**31 - 1]], np.int32)),
        ("f_int32", a([[-2**40 - 1], [2**33 + 5]], np.int64)),
        ("f_fixed64", a([[2**64 - 2], [1]], np.uint64)),
        ("f_fixed32", a([[2**32 - 1], [0]], np.uint32)),
        ("f_fixed32", a([[2**40 + 3], [9]], np.uint64)),
        ("f_bool", a([[True], [False]])),
        ("f_string", strings([[b"abc"], [b""]])),
        ("f_msg", strings([[Inner(x=3).SerializeToString()], [b"\x08\x01"]])),
        ("f_bytes", strings([[b"\x00\xff"], [b"z"]])),
        ("f_uint32", a([[2**32 - 1], [128]], np.uint32)),
        ("f_uint32", a([[2**32 + 7], [300]], np.uint64)),
        ("f_enum", a([[-3], [5]], np.int32)),
        ("f_sfixed32", a([[-7], [2**31 - 1]], np.int32)),
        ("f_sfixed32", a([[-2**35], [8]], np.int64)),
        ("f_sfixed64", a([[-2**63], [1]], np.int64)),
        ("f_sint32", a([[-2**31], [2**31 - 1]], np.int32)),
        ("f_sint32", a([[-2**33 - 1], [2**32 + 1]], np.int64)),
        ("f_sint64", a([[-2**63], [2**63 - 1]], np.int64)),
    ]
    for i, (field, value) in enumerate(scalars):
        dtype = tf.string if value.dtype == object else tf.as_dtype(
            value.dtype)
        encode_case("scalar_%02d_%s_%s" % (i, field, dtype.name),
                    [[1], [1]], [value], [field], decode_types=[dtype])
    # Every scalar in one message, sizes 0 leave a field out.
    fields = [f for f, _ in scalars[:6]]
    values = [v for _, v in scalars[:6]]
    encode_case("scalars_together", [[1, 0, 1, 1, 0, 1], [0, 1, 1, 0, 1, 1]],
                values, fields,
                decode_types=[tf.float64, tf.float32, tf.float64, tf.int64,
                              tf.uint64, tf.int32])
    # Repeated fields, packed and not, sizes below the value's width.
    rep = [
        ("r_int32", a([[1, -2, 3], [4, 5, 6]], np.int32)),
        ("r_sint64", a([[-1, 2, -3], [0, 0, 0]], np.int64)),
        ("r_double", a([[0.5, 1.5, 2.5], [3.5, 4.5, 5.5]])),
        ("r_string", strings([[b"a", b"bb", b"c"], [b"d", b"", b"f"]])),
        ("r_fixed32", a([[1, 2, 3], [4, 5, 6]], np.uint32)),
        ("r_bool", a([[True, False, True], [False, True, True]])),
        ("r_enum", a([[0, 1, 5], [-3, 1, 0]], np.int32)),
        ("r_float", a([[0.25, -1, 2], [8, 9, 10]], np.float32)),
        ("r_uint64", a([[2**64 - 1, 0, 1], [5, 6, 7]], np.uint64)),
    ]
    encode_case("repeated", [[3, 2, 1, 0, 3, 2, 3, 1, 3],
                             [1, 3, 3, 2, 0, 1, 2, 3, 0]],
                [v for _, v in rep], [f for f, _ in rep],
                decode_types=[tf.int32, tf.int64, tf.float64, tf.string,
                              tf.uint32, tf.bool, tf.int32, tf.float32,
                              tf.uint64])
    # Fields given out of number order; a batch of [2, 2] messages.
    encode_case("batch_2d", [[[1, 2], [0, 1]], [[1, 0], [1, 3]]],
                [a([[[9], [8]], [[7], [6]]], np.int32),
                 a([[[1, 2, 3], [4, 5, 6]], [[7, 8, 9], [1, 1, 1]]],
                   np.int32)],
                ["f_int32", "r_int32"], decode_types=[tf.int32, tf.int64])
    encode_case("group", [[1, 1]], [strings([[b"\xc8\x02\x05"]]),
                                    a([[3]], np.int32)],
                ["grp", "f_int32"], decode_types=[tf.string, tf.int32])
    encode_case("order_by_number", [[1, 1]],
                [strings([[b"s"]]), a([[5]], np.int32)],
                ["f_string", "f_int32"])
    encode_case("empty_batch", np.zeros([0, 1], np.int32),
                [np.zeros([0, 2], np.int32)], ["r_int32"])
    encode_case("all_sizes_zero", [[0, 0]],
                [a([[1]], np.int32), strings([[b"x"]])],
                ["f_int32", "f_string"], decode_types=[tf.int32, tf.string])
    encode_case("local_example", [[1]],
                [strings([[tf.train.Features().SerializeToString()]])],
                ["features"], descriptor_source="local://",
                message_type="tensorflow.Example")
    encode_case("local_int64_list", [[3]], [a([[1, -1, 300]], np.int64)],
                ["value"], descriptor_source="local://",
                message_type="tensorflow.Int64List",
                decode_types=[tf.int64])

    # Bad inputs and attrs.
    encode_case("err_sizes_shape", [[1]], [a([[1]], np.int32),
                                           a([[2]], np.int32)],
                ["f_int32", "f_sint32"])
    encode_case("err_size_too_big", [[2]], [a([[1]], np.int32)], ["f_int32"])
    encode_case("err_incompatible_dtype", [[1]], [a([[1.0]], np.float32)],
                ["f_int32"])
    encode_case("err_enum_int64", [[1]], [a([[1]], np.int64)], ["f_enum"])
    encode_case("err_value_vector", [1], [a([1], np.int32)], ["f_int32"])
    encode_case("err_prefix_mismatch", [[1, 1]],
                [a([[1]], np.int32), a([[1], [2]], np.int32)],
                ["f_int32", "f_sint32"])
    encode_case("err_unknown_field", [[1]], [a([[1]], np.int32)], ["nope"])
    encode_case("err_unknown_message", [[1]], [a([[1]], np.int32)],
                ["f_int32"], message_type="dfxtest.Nope")
    encode_case("err_bad_descriptor", [[1]], [a([[1]], np.int32)],
                ["f_int32"], descriptor_source=b"bytes://\x0a")

    # A round trip from decode: TensorFlow's own bytes, decoded, encoded
    # again and compared.
    def roundtrip():
        ph = tf1.placeholder(tf.string, name="bytes")
        fields = ["f_int32", "f_string", "r_int32", "r_msg", "f_double"]
        out = decode(ph, fields, [tf.int32, tf.string, tf.int32, tf.string,
                                  tf.float64])
        again = encode(out[0], out[1:], fields)
        return out + [again], {ph: strings([full_message(1),
                                            repeated_message(2), b""])}
    case("roundtrip_decode_encode", roundtrip)


def json_case(name, values, shape=None):
    def build():
        ph = tf1.placeholder(tf.string, name="json")
        return RAW.DecodeJSONExample(json_examples=ph), {
            ph: strings(values, shape)}
    case(name, build)


def json_cases():
    one = ('{"features": {"feature": {"b": {"floatList": {"value": [1.5, '
           '-2]}}, "a": {"bytesList": {"value": ["eHk=", ""]}}, "c": '
           '{"int64List": {"value": ["123", -4, "9007199254740993"]}}}}}')
    json_case("json_features", [one, "{}", '{"features": {}}'])
    json_case("json_2d", [one, "{}", '{"features": {"feature": {}}}',
                          '{"features": {"feature": {"k": {}}}}'],
              shape=[2, 2])
    json_case("json_scalar", one, shape=[])
    json_case("json_empty", [], shape=[0])
    json_case("json_snake_case",
              ['{"features": {"feature": {"x": {"int64_list": {"value": '
               '[1]}}}}}'])
    json_case("json_bad_syntax", ["{}", "{bad"])
    json_case("json_unknown_field", ['{"zz": {}}'])
    json_case("json_wrong_type", ['{"features": 3}'])
    json_case("json_bad_base64",
              ['{"features": {"feature": {"a": {"bytesList": {"value": '
               '["!!"]}}}}}'])


def main():
    decode_cases()
    encode_cases()
    json_cases()
    golden_lib.write_op_defs(FAMILY, OP_NAMES)


if __name__ == "__main__":
    main()

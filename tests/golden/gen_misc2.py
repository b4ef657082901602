"""Golden cases of the misc2 family: small ops TensorFlow graphs carry that
fit no other family, as TensorFlow 2.21 runs them.

    $(tools/tf_env) tests/golden/gen_misc2.py

TensorListPushBackBatch (row b of a tensor appended to list b of a vector
of lists) across dtypes and element shapes; DeviceIndex;
IsTensorFloat32Enabled; GraphDefVersion (of TensorFlow's graphs and of older
GraphDefs); CheckPinned (TensorFlow's CPU kernel only fails);
DisableCopyOnRead, IsResourceHandleRefCounting and MakeWeakResourceHandle
on resource variables; DecodeWebP and the WebP path of DecodeImage and the
other decode ops (WebP files made with the system's libwebp through ctypes:
TensorFlow has no WebP encoder); and the errors of each.

Not here, and why (tests/kernels/misc2_test.cc covers them):
- DevicePlacementOp, IteratorGetDevice, ExperimentalIteratorGetDevice:
  their output is the device's full name, which differs between an
  in-process session and the cluster the interop client runs the cases on.
- ImmutableConst: its file is an attr, not a feed, so a case cannot point
  it at the case's folder.
- Abort: TensorFlow's kernel ends the process (LOG(FATAL)); dfx fails the
  step with Aborted instead (tests/golden/misc2_session_test.cc).
- Send and Recv: their attrs name devices, "/job:localhost/..." in a local
  session, which a cluster's task refuses as another task's (TensorFlow's
  workers do too); tests/golden/misc2_session_test.cc runs them in a local
  dfx session.

Besides the cases the generator writes the ops' signatures
(tf_op_defs.pbtxt, tf_cpu_kernels.txt), which tests/kernels/misc2_test.cc
compares with dfx's registry.
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import golden_lib  # noqa: E402
from golden_lib import placeholder, steps_case, tf, tf1  # noqa: E402
from tensorflow.python.framework import op_def_library  # noqa: E402

FAMILY = "misc2"
RAW = tf.raw_ops

OP_NAMES = ["TensorListPushBackBatch", "DeviceIndex", "DevicePlacementOp",
            "IsTensorFloat32Enabled", "CheckPinned", "DisableCopyOnRead",
            "IsResourceHandleRefCounting", "MakeWeakResourceHandle",
            "ImmutableConst", "Send", "Recv", "IteratorGetDevice",
            "GraphDefVersion", "DecodeWebP",
            "ExperimentalIteratorGetDevice", "Abort"]

def case(name, build, **kw):
    golden_lib.case(FAMILY, name, build, **kw)


def folder():
    return golden_lib.family_folder(FAMILY)


def op(op_type, **kw):
    """An op tf.raw_ops does not export; its first output (or the op)."""
    _, _, o, _ = op_def_library._apply_op_helper(op_type, **kw)
    return o.outputs[0] if o.outputs else o


def ints(v, dtype=np.int32):
    return tf.constant(np.asarray(v, dtype))


# --------------------------------------------------------------------------
# TensorListPushBackBatch


def empty_list(dtype, shape):
    return RAW.EmptyTensorList(element_shape=ints(shape),
                               max_num_elements=-1, element_dtype=dtype)


def stack(handle, dtype, shape):
    return RAW.TensorListStack(input_handle=handle, element_shape=ints(shape),
                               element_dtype=dtype)


def vector_of(handles):
    """A vector of list handles. Built as a list of lists stacked (the
    variant ops both TensorFlow and dfx serve; dfx's Pack and Unpack do not
    take variants)."""
    outer = RAW.EmptyTensorList(element_shape=ints([]), max_num_elements=-1,
                                element_dtype=tf.variant)
    for h in handles:
        outer = RAW.TensorListPushBack(input_handle=outer, tensor=h)
    return RAW.TensorListStack(input_handle=outer, element_shape=ints([]),
                               element_dtype=tf.variant,
                               num_elements=len(handles))


def item(vector, i):
    """Element i of a vector of list handles."""
    outer = RAW.TensorListFromTensor(tensor=vector, element_shape=ints([]))
    return RAW.TensorListGetItem(input_handle=outer, index=ints(i),
                                 element_shape=ints([]),
                                 element_dtype=tf.variant)


def push_back_batch_cases():
    def push(name, value, batch_lists=None, list_shape=None, pushes=1):
        """Pushes `value` (row b onto list b) `pushes` times onto a vector of
        empty lists, then stacks each list."""
        value = np.asarray(value)
        dtype = tf.as_dtype(value.dtype)
        batch = value.shape[0]
        shape = list(value.shape[1:]) if list_shape is None else list_shape

        def build():
            vp, vv = placeholder(value)
            lists = vector_of([empty_list(dtype, shape)
                               for _ in range(batch)])
            for _ in range(pushes):
                lists = RAW.TensorListPushBackBatch(input_handles=lists,
                                                    tensor=vp)
            outs = [stack(item(lists, b), dtype, shape)
                    for b in range(batch)]
            return outs + [RAW.Shape(input=lists)], {vp: vv}
        case("push_back_batch_" + name, build)

    r = golden_lib.rng(1)
    push("float", r.standard_normal((3, 2)).astype(np.float32))
    push("float_twice", r.standard_normal((2, 3)).astype(np.float32),
         pushes=2)
    push("double_matrix_rows", r.standard_normal((2, 2, 3)))
    push("int32", np.arange(6, dtype=np.int32).reshape(3, 2))
    push("int64_vector", np.array([5, -7], np.int64))
    for dt in (np.int8, np.uint8, np.int16, np.uint16, np.uint32, np.uint64):
        push(np.dtype(dt).name, np.arange(4, dtype=dt).reshape(2, 2))
    push("half", np.array([[0.5, 1.5], [2.5, -1]], np.float16))
    push("bool", np.array([[True, False], [False, False]]))
    push("complex64", np.array([[1 + 2j], [3 - 1j]], np.complex64))
    push("complex128", np.array([[1 + 2j, 0], [3 - 1j, 2j]], np.complex128))
    push("string", np.array([[b"a", b"bc"], [b"", b"def"]], object))
    push("unknown_element_shape", np.ones((2, 3), np.float32),
         list_shape=[-1])
    push("empty_elements", np.zeros((2, 0), np.float32))
    push("empty_batch", np.zeros((0, 2), np.float32))

    def push_error(name, value, list_shape, batch=None, handles=None,
                   list_dtype=None):
        value = np.asarray(value)
        dtype = tf.as_dtype(value.dtype)

        def build():
            vp, vv = placeholder(value, shape=[None] * value.ndim)
            if handles is not None:
                lists = handles()
            else:
                n = value.shape[0] if batch is None else batch
                lists = vector_of([empty_list(list_dtype or dtype,
                                              list_shape)
                                   for _ in range(n)])
                # Hides the lists' dtype and shape from TensorFlow's shape
                # function, so the kernel meets the mismatch.
                lists = tf1.placeholder_with_default(lists, [None])
            out = RAW.TensorListPushBackBatch(input_handles=lists, tensor=vp)
            return RAW.Shape(input=out), {vp: vv}
        case("push_back_batch_error_" + name, build)

    push_error("batch_mismatch", np.ones((3, 2), np.float32), [2], batch=2)
    push_error("shape_mismatch", np.ones((2, 3), np.float32), [2])
    push_error("dtype_mismatch", np.ones((2, 2), np.float32), [2],
               list_dtype=tf.int32)
    def scalar_tensor():
        vp = tf1.placeholder(tf.float32, shape=None)
        lists = vector_of([empty_list(tf.float32, [-1])])
        out = RAW.TensorListPushBackBatch(input_handles=lists, tensor=vp)
        return RAW.Shape(input=out), {vp: np.float32(1)}
    case("push_back_batch_error_scalar_tensor", scalar_tensor)
    push_error("not_a_list", np.ones((1, 2), np.float32), [2],
               handles=lambda: vector_of(
                   [tf.data.Dataset.range(2)._variant_tensor]))

    # The pushed lists live on: a second push through a loop-like chain, then
    # one list popped.
    def pop_after_push():
        vp, vv = placeholder(np.array([[1, 2], [3, 4]], np.float32))
        lists = vector_of([empty_list(tf.float32, [2]) for _ in range(2)])
        lists = RAW.TensorListPushBackBatch(input_handles=lists, tensor=vp)
        lists = RAW.TensorListPushBackBatch(input_handles=lists,
                                            tensor=vp * 10)
        first = item(lists, 1)
        _, popped = RAW.TensorListPopBack(input_handle=first,
                                        element_shape=ints([2]),
                                        element_dtype=tf.float32)
        return [popped, RAW.TensorListLength(input_handle=first)], {vp: vv}
    case("push_back_batch_then_pop", pop_after_push)


# --------------------------------------------------------------------------
# Device and runtime queries


def query_cases():
    def device_index(name, names):
        case("device_index_" + name,
             lambda: (op("DeviceIndex", device_names=names), None))
    device_index("cpu_second", ["GPU", "CPU"])
    device_index("cpu_first", ["CPU", "GPU", "TPU"])
    device_index("absent", ["GPU", "TPU"])
    device_index("none", [])
    device_index("case_sensitive", ["cpu", "CPU"])
    device_index("repeated", ["CPU", "CPU"])

    case("is_tensor_float32_enabled",
         lambda: (op("IsTensorFloat32Enabled"), None))

    # The producer version of the GraphDef: TensorFlow 2.21's own for a
    # graph it builds, the GraphDef's for an older one.
    case("graph_def_version", lambda: (op("GraphDefVersion"), None))

    def old_graph():
        op("GraphDefVersion", name="version")
        return lambda graph_def: None, ["version:0"]
    for producer in (7, 1200):
        golden_lib.legacy_case(FAMILY, f"graph_def_version_{producer}",
                               old_graph, producer=producer)

    for dt in (np.float32, np.int32, np.bool_):
        value = np.ones([2], dt)

        def pinned(value=value):
            vp, vv = placeholder(value)
            return RAW.CheckPinned(tensor=vp), {vp: vv}
        case("check_pinned_" + np.dtype(dt).name, pinned)


# --------------------------------------------------------------------------
# Resource handles


def handle_cases():
    def var(name="v", dtype=tf.float32, shape=(2,)):
        return RAW.VarHandleOp(dtype=dtype, shape=list(shape),
                               shared_name=name)

    def copy_on_read():
        v = var()
        assign = RAW.AssignVariableOp(resource=v,
                                      value=tf.constant([1., 2.]))
        disable = RAW.DisableCopyOnRead(resource=v)
        add = RAW.AssignAddVariableOp(resource=v, value=tf.constant([1., 1.]))
        read = RAW.ReadVariableOp(resource=v, dtype=tf.float32)
        return {"assign": assign, "disable": disable, "add": add,
                "read": read}
    steps_case(folder(), "disable_copy_on_read", copy_on_read,
               [["assign"], ["disable"], ["read"], ["add"], ["read"]])
    def disable_missing():
        disable = RAW.DisableCopyOnRead(resource=var("missing"))
        with tf.control_dependencies([disable]):
            return tf.identity(tf.constant(0)), None
    case("disable_copy_on_read_missing_variable", disable_missing)

    def ref_counting(dtype=tf.float32):
        def build():
            return op("IsResourceHandleRefCounting",
                      handle=var("r", dtype)), None
        return build
    case("is_ref_counting_variable", ref_counting())
    case("is_ref_counting_int_variable", ref_counting(tf.int32))

    def weak():
        v = var("w")
        w = op("MakeWeakResourceHandle", handle=v)
        assign = RAW.AssignVariableOp(resource=w, value=tf.constant([3., 4.]))
        read = RAW.ReadVariableOp(resource=v, dtype=tf.float32)
        read_weak = RAW.ReadVariableOp(resource=w, dtype=tf.float32)
        counting = op("IsResourceHandleRefCounting", handle=w)
        return {"assign": assign, "read": read, "read_weak": read_weak,
                "counting": counting}
    steps_case(folder(), "make_weak_resource_handle", weak,
               [["read_weak"], ["assign"], ["read", "read_weak",
                                            "counting"]])


# --------------------------------------------------------------------------
# DecodeWebP and the WebP path of the other decode ops

_LIBWEBP = None


def webp(image, lossless=True, quality=75.0):
    """image encoded as WebP by the system's libwebp (ctypes: TensorFlow has
    no WebP encoder)."""
    global _LIBWEBP
    import ctypes
    if _LIBWEBP is None:
        _LIBWEBP = ctypes.CDLL("libwebp.so.7")
    lib = _LIBWEBP
    h, w, c = image.shape
    buf = np.ascontiguousarray(image, np.uint8)
    pixels = buf.ctypes.data_as(ctypes.POINTER(ctypes.c_uint8))
    out = ctypes.POINTER(ctypes.c_uint8)()
    if lossless:
        f = lib.WebPEncodeLosslessRGB if c == 3 else lib.WebPEncodeLosslessRGBA
        f.restype = ctypes.c_size_t
        n = f(pixels, w, h, w * c, ctypes.byref(out))
    else:
        f = lib.WebPEncodeRGB if c == 3 else lib.WebPEncodeRGBA
        f.restype = ctypes.c_size_t
        n = f(pixels, w, h, w * c, ctypes.c_float(quality), ctypes.byref(out))
    assert n > 0
    data = ctypes.string_at(out, n)
    lib.WebPFree(out)
    return data


def animated_webp(frames, offsets=None, blend=True, dispose=False):
    """An animated WebP (RIFF: VP8X, ANIM, one ANMF per frame holding the
    frame's lossless still bitstream), put together by hand: TensorFlow has
    no encoder and ctypes reaches libwebpmux's only through its structs."""
    import struct

    def chunk(tag, payload):
        pad = b"\0" if len(payload) % 2 else b""
        return tag + struct.pack("<I", len(payload)) + payload + pad

    def u24(v):
        return struct.pack("<I", v)[:3]

    h, w = frames[0].shape[:2]
    body = b""
    for i, f in enumerate(frames):
        still = webp(f)
        assert still[12:16] == b"VP8L"
        fh, fw = f.shape[:2]
        x, y = offsets[i] if offsets else (0, 0)
        flags = (0 if blend else 2) | (1 if dispose else 0)
        body += chunk(b"ANMF", u24(x // 2) + u24(y // 2) + u24(fw - 1) +
                      u24(fh - 1) + u24(100) + bytes([flags]) + still[12:])
    vp8x = chunk(b"VP8X", bytes([0x12]) + b"\0\0\0" + u24(w - 1) +
                 u24(h - 1))
    anim = chunk(b"ANIM", struct.pack("<IH", 0x00000000, 0))
    payload = b"WEBP" + vp8x + anim + body
    return b"RIFF" + struct.pack("<I", len(payload)) + payload


def webp_cases():
    r = golden_lib.rng(2)
    rgb = r.integers(0, 256, (6, 7, 3), dtype=np.uint8)
    rgba = r.integers(0, 256, (5, 4, 4), dtype=np.uint8)
    files = {
        "rgb": webp(rgb),
        "rgba": webp(rgba),
        "rgb_lossy": webp(rgb, lossless=False),
        "rgba_lossy": webp(rgba, lossless=False),
        "one_pixel": webp(np.array([[[1, 2, 3]]], np.uint8)),
    }

    def decode(name, contents, op_type="DecodeWebP", **attrs):
        def build():
            cp, cv = placeholder(np.array(contents, dtype=object))
            out = getattr(RAW, op_type)(contents=cp, **attrs)
            return out, {cp: cv}
        case("decode_webp_" + name, build)

    for f in ("rgb", "rgba", "rgb_lossy", "rgba_lossy", "one_pixel"):
        decode(f, files[f])
    decode("rgb_channels_3", files["rgb"], channels=3)
    decode("rgba_channels_4", files["rgba"], channels=4)
    decode("rgba_lossy_channels_4", files["rgba_lossy"], channels=4)
    # decode_image and the format-specific ops decode WebP too.
    decode("decode_image", files["rgb"], op_type="DecodeImage")
    decode("decode_image_no_expand", files["rgba"], op_type="DecodeImage",
           expand_animations=False)
    decode("decode_image_channels_4", files["rgba"], op_type="DecodeImage",
           channels=4)
    decode("via_decode_png", files["rgb"], op_type="DecodePng")
    decode("via_decode_jpeg", files["rgb"], op_type="DecodeJpeg")
    decode("via_decode_bmp", files["rgba"], op_type="DecodeBmp")
    decode("via_decode_gif", files["rgb"], op_type="DecodeGif")
    # DecodeWebP decodes the other formats as decode_image does.
    decode("png_through_decode_webp", _png_bytes(rgb))
    # Animations: every frame composited onto the canvas, RGBA.
    frames = [r.integers(0, 256, (4, 6, 4), dtype=np.uint8)
              for _ in range(3)]
    anim = animated_webp(frames)
    decode("animation", anim)
    decode("animation_channels_4", anim, channels=4)
    decode("animation_decode_image", anim, op_type="DecodeImage")
    decode("animation_first_frame", anim, op_type="DecodeImage",
           expand_animations=False)
    decode("animation_via_decode_png", anim, op_type="DecodePng")
    small = [frames[0], r.integers(0, 256, (2, 2, 4), dtype=np.uint8),
             r.integers(0, 256, (2, 4, 4), dtype=np.uint8)]
    decode("animation_offsets_no_blend",
           animated_webp(small, offsets=[(0, 0), (2, 2), (2, 0)],
                         blend=False))
    decode("animation_offsets_dispose",
           animated_webp(small, offsets=[(0, 0), (4, 2), (0, 2)],
                         dispose=True))
    decode("error_animation_channels_3", anim, channels=3)
    decode("error_animation_truncated", anim[:len(anim) - 20])
    # Errors.
    decode("error_channels_1", files["rgb"], channels=1)
    decode("error_channels_2", files["rgb"], channels=2)
    decode("error_rgb_channels_4", files["rgb"], channels=4)
    decode("error_rgba_channels_3", files["rgba"], channels=3)
    decode("error_rgba_decode_image_channels_3", files["rgba"],
           op_type="DecodeImage", channels=3)
    decode("error_float_dtype", files["rgb"], op_type="DecodeImage",
           dtype=tf.float32)
    decode("error_uint16_decode_png", files["rgb"], op_type="DecodePng",
           dtype=tf.uint16)
    decode("error_truncated", files["rgb"][:len(files["rgb"]) // 2])
    decode("error_bad_header", b"RIFF1234WEBPVP8 garbage")
    decode("error_empty", b"")
    decode("error_unknown_format", b"not an image")
    decode("error_bmp_through_decode_webp", b"BM" + b"\0" * 60)


def _png_bytes(image):
    g = tf.Graph()
    with g.as_default(), tf1.Session(graph=g) as sess:
        return sess.run(tf.io.encode_png(image))


def main():
    folder()  # the family folder, emptied
    push_back_batch_cases()
    query_cases()
    handle_cases()
    webp_cases()
    golden_lib.write_op_defs(
        FAMILY, OP_NAMES,
        type_attrs={"TensorListPushBackBatch": "element_dtype",
                    "Recv": "tensor_type", "ImmutableConst": "dtype"})


if __name__ == "__main__":
    main()

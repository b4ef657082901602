"""Golden cases of the jxl family: DecodeJxl and the JPEG XL path of every
decode op (decode_image, decode_png, ... all decode JPEG XL), as TensorFlow
2.21 runs them.

    $(tools/tf_env) tests/golden/gen_jxl.py

The JPEG XL files are made by libjxl's `cjxl` (Debian's libjxl-tools, not
installed by tools/setup: only regenerating needs it) from PNG and APNG
files this generator writes itself: lossless and lossy, RGB, RGBA (straight
and premultiplied alpha), grey, grey+alpha, 16-bit, a PQ (HDR) colour
space, a JPEG recompressed losslessly (a container file), an animation; and
truncated, corrupt and mismatched inputs with TensorFlow's errors.

TensorFlow's decoder is a newer libjxl than dfx's (Debian's 0.7). They decode
lossless 8-bit files to the same samples; where libjxl converts to 8 bits
itself (lossy files, 16-bit and HDR ones: 0.7 rounds its floating-point
samples, TensorFlow's dithers them) the two differ by one in some samples,
so those cases compare with atol 1 (`LOSSY_ATOL`; tests/interop's client
honours it for integers as golden_util.cc does).

Besides the cases the generator writes DecodeJxl's signature
(tf_op_defs.pbtxt, tf_cpu_kernels.txt), which tests/kernels/jxl_test.cc
compares with dfx's registry.
"""

import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import golden_lib  # noqa: E402
from golden_lib import placeholder, tf  # noqa: E402

FAMILY = "jxl"
RAW = tf.raw_ops
LOSSY_ATOL = 1


def case(name, build, **kw):
    golden_lib.case(FAMILY, name, build, **kw)


# --------------------------------------------------------------------------
# Input files

def _chunk(tag, payload):
    return (struct.pack(">I", len(payload)) + tag + payload +
            struct.pack(">I", zlib.crc32(tag + payload) & 0xffffffff))


_COLOR_TYPE = {1: 0, 2: 4, 3: 2, 4: 6}  # channels -> PNG colour type


def _rows(image):
    """PNG scanlines (filter 0) of an [h, w, c] uint8 or uint16 image."""
    big = image.astype(image.dtype.newbyteorder(">"))
    return b"".join(b"\0" + row.tobytes() for row in big)


def png(image):
    h, w, c = image.shape
    depth = 16 if image.dtype == np.uint16 else 8
    ihdr = struct.pack(">IIBBBBB", w, h, depth, _COLOR_TYPE[c], 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", ihdr) +
            _chunk(b"IDAT", zlib.compress(_rows(image))) +
            _chunk(b"IEND", b""))


def apng(frames, delay=10):
    """An animated PNG: every frame full-size, replacing the previous one."""
    h, w, c = frames[0].shape
    ihdr = struct.pack(">IIBBBBB", w, h, 8, _COLOR_TYPE[c], 0, 0, 0)
    out = b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", ihdr)
    out += _chunk(b"acTL", struct.pack(">II", len(frames), 0))
    seq = 0
    for i, f in enumerate(frames):
        out += _chunk(b"fcTL", struct.pack(">IIIIIHHBB", seq, w, h, 0, 0,
                                           delay, 100, 0, 0))
        seq += 1
        data = zlib.compress(_rows(f))
        if i == 0:
            out += _chunk(b"IDAT", data)
        else:
            out += _chunk(b"fdAT", struct.pack(">I", seq) + data)
            seq += 1
    return out + _chunk(b"IEND", b"")


def cjxl(source, suffix, *args):
    """source (PNG/APNG/JPEG bytes) encoded by libjxl's cjxl."""
    if shutil.which("cjxl") is None:
        sys.exit("gen_jxl.py needs cjxl: apt-get install libjxl-tools")
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "in." + suffix)
        dst = os.path.join(d, "out.jxl")
        with open(src, "wb") as f:
            f.write(source)
        subprocess.run(["cjxl", src, dst] + list(args), check=True,
                       capture_output=True)
        with open(dst, "rb") as f:
            return f.read()


def size_header(width, height):
    """A JPEG XL codestream of nothing but its signature, a SizeHeader
    (height and width as 30-bit fields) and all-default ImageMetadata."""
    bits = []

    def put(value, n):
        bits.extend((value >> i) & 1 for i in range(n))
    put(0, 1)  # not div8
    put(3, 2)  # height: 30 bits + 1
    put(height - 1, 30)
    put(0, 3)  # no fixed ratio
    put(3, 2)  # width: 30 bits + 1
    put(width - 1, 30)
    put(1, 1)  # ImageMetadata all_default
    bits += [0] * (-len(bits) % 8)
    return b"\xff\x0a" + bytes(
        sum(b << i for i, b in enumerate(bits[k:k + 8]))
        for k in range(0, len(bits), 8))


def jpeg(image):
    g = tf.Graph()
    with g.as_default():
        data = tf.io.encode_jpeg(image, quality=90)
        with golden_lib.tf1.Session(graph=g) as s:
            return s.run(data)


# --------------------------------------------------------------------------
# Cases

def decode(name, contents, op_type="DecodeJxl", atol=None, **attrs):
    def build():
        cp, cv = placeholder(np.array(contents, dtype=object))
        out = getattr(RAW, op_type)(contents=cp, **attrs)
        return out, {cp: cv}
    case(name, build, atol=atol)


def main():
    r = golden_lib.rng(3)
    rgb = r.integers(0, 256, (6, 7, 3), dtype=np.uint8)
    rgba = r.integers(0, 256, (5, 4, 4), dtype=np.uint8)
    grey = r.integers(0, 256, (5, 6, 1), dtype=np.uint8)
    grey_alpha = r.integers(0, 256, (4, 6, 2), dtype=np.uint8)
    rgb16 = r.integers(0, 65536, (4, 5, 3), dtype=np.uint16)
    grey16 = r.integers(0, 65536, (3, 4, 1), dtype=np.uint16)
    # Smooth gradients: what lossy coding is for.
    yy, xx = np.mgrid[0:12, 0:16]
    smooth = np.stack([xx * 15, yy * 20, (xx + yy) * 9], -1).astype(np.uint8)
    lossless = ("-d", "0")
    lossy = ("-d", "1.0")
    files = {
        "rgb": cjxl(png(rgb), "png", *lossless),
        "rgba": cjxl(png(rgba), "png", *lossless),
        "grey": cjxl(png(grey), "png", *lossless),
        "grey_alpha": cjxl(png(grey_alpha), "png", *lossless),
        "one_pixel": cjxl(png(np.array([[[9, 8, 7]]], np.uint8)), "png",
                          *lossless),
        "rgba_premultiplied": cjxl(png(rgba), "png", *lossless,
                                   "--premultiply=1"),
        "rgb_container": cjxl(png(rgb), "png", *lossless, "--container=1"),
        "rgb_lossy": cjxl(png(smooth), "png", *lossy),
        "rgba_lossy": cjxl(png(np.concatenate(
            [smooth, smooth[:, :, :1]], -1)), "png", *lossy),
        "grey_lossy": cjxl(png(smooth[:, :, :1]), "png", *lossy),
        "rgb16": cjxl(png(rgb16), "png", *lossless),
        "grey16": cjxl(png(grey16), "png", *lossless),
        "rgb16_lossy": cjxl(png(rgb16), "png", *lossy),
        "hdr_pq": cjxl(png(rgb16), "png", *lossless,
                       "-x", "color_space=RGB_D65_202_Rel_PeQ"),
        "from_jpeg": cjxl(jpeg(smooth), "jpg", "--lossless_jpeg=1"),
    }
    frames = [r.integers(0, 256, (4, 5, 4), dtype=np.uint8) for _ in range(3)]
    files["animation"] = cjxl(apng(frames), "png", *lossless)

    exact = ("rgb", "rgba", "grey", "grey_alpha", "one_pixel",
             "rgba_premultiplied", "rgb_container", "animation")
    rounded = ("rgb_lossy", "rgba_lossy", "grey_lossy", "rgb16", "grey16",
               "rgb16_lossy", "hdr_pq", "from_jpeg")
    for f in exact:
        decode("decode_jxl_" + f, files[f])
    for f in rounded:
        decode("decode_jxl_" + f, files[f], atol=LOSSY_ATOL)
    decode("rgb_channels_3", files["rgb"], channels=3)
    decode("rgba_channels_4", files["rgba"], channels=4)
    decode("grey_channels_1", files["grey"], channels=1)
    decode("rgba_lossy_channels_4", files["rgba_lossy"], channels=4,
           atol=LOSSY_ATOL)
    # decode_image and the format-specific ops decode JPEG XL too, always
    # [height, width, channels] (DecodeGif's too; an animation's first
    # frame whatever expand_animations says); DecodeAndCropJpeg ignores its
    # crop window, DecodeBmp decodes it.
    decode("decode_image", files["rgb"], op_type="DecodeImage")
    decode("decode_image_no_expand", files["rgba"], op_type="DecodeImage",
           expand_animations=False)
    decode("decode_image_animation", files["animation"],
           op_type="DecodeImage")
    decode("decode_image_channels_1", files["grey"], op_type="DecodeImage",
           channels=1)
    decode("via_decode_png", files["rgb"], op_type="DecodePng")
    decode("via_decode_jpeg", files["rgba"], op_type="DecodeJpeg")
    decode("via_decode_jpeg_channels_4", files["rgba"], op_type="DecodeJpeg",
           channels=4)
    decode("via_decode_gif", files["rgb"], op_type="DecodeGif")
    decode("via_decode_bmp", files["grey"], op_type="DecodeBmp")
    decode("via_decode_webp", files["rgba"], op_type="DecodeWebP")
    decode("via_decode_and_crop_jpeg", files["rgb"],
           op_type="DecodeAndCropJpeg", crop_window=[1, 1, 2, 2])
    # DecodeJxl decodes the other formats as decode_image does.
    decode("png_through_decode_jxl", png(rgb))
    decode("jpeg_through_decode_jxl", jpeg(smooth))
    # Errors: InvalidArgument, TensorFlow's messages.
    decode("error_rgba_channels_3", files["rgba"], channels=3)
    decode("error_rgb_channels_1", files["rgb"], channels=1)
    decode("error_rgb_channels_4", files["rgb"], channels=4)
    decode("error_grey_channels_3", files["grey"], channels=3)
    decode("error_grey_alpha_channels_1", files["grey_alpha"], channels=1)
    decode("error_channels_2", files["rgb"], channels=2)
    decode("error_decode_image_float", files["rgb"], op_type="DecodeImage",
           dtype=tf.float32)
    decode("error_decode_png_uint16", files["rgb"], op_type="DecodePng",
           dtype=tf.uint16)
    rgb_file = files["rgb"]
    decode("error_truncated", rgb_file[:len(rgb_file) // 2])
    decode("error_truncated_last_byte", rgb_file[:-1])
    decode("error_truncated_header", rgb_file[:4])
    decode("error_signature_only", b"\xff\x0a")
    anim = files["animation"]
    # An animation cut inside a later frame: its first frame decodes.
    decode("animation_truncated_later_frame", anim[:len(anim) - 8])
    corrupt = bytearray(rgb_file)
    for i in range(len(corrupt) // 2, len(corrupt)):
        corrupt[i] ^= 0x5a
    decode("error_corrupt", bytes(corrupt))
    decode("error_container_truncated",
           files["rgb_container"][:len(files["rgb_container"]) - 10])
    decode("error_empty", b"")
    decode("error_unknown_format", b"not an image")
    # A codestream header declaring 2^30 x 2^30 pixels and nothing more:
    # ResourceExhausted, TensorFlow's allocation of the output failing, dfx's
    # pixel cap refusing it before anything is allocated. A header of a few
    # GiB of pixels is left out: TensorFlow allocates them, then fails to
    # decode (InvalidArgument) or not, as the machine's memory allows;
    # tests/kernels/jxl_test.cc checks dfx's answer.
    decode("error_huge_declared_size", size_header(1 << 30, 1 << 30))

    def non_scalar():
        cp = golden_lib.tf1.placeholder(tf.string, shape=None)
        return RAW.DecodeJxl(contents=cp), {cp: np.array([rgb_file] * 2,
                                                         dtype=object)}
    case("error_non_scalar", non_scalar)

    golden_lib.write_op_defs(FAMILY, ["DecodeJxl"], type_attrs={
        "DecodeJxl": "dtype"})


if __name__ == "__main__":
    main()

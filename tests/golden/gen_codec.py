"""Golden cases of the codec family: DecodePng, EncodePng, DecodeJpeg,
EncodeJpeg, ExtractJpegShape, DecodeAndCropJpeg, DecodeBmp, DecodeGif,
DecodeImage, DecodeRaw, DecodeWav, EncodeWav, AudioSpectrogram and Mfcc as
TensorFlow 2.21 computes them, including the errors it raises for
corrupt, truncated or mismatched files. Also writes TensorFlow's
OpDefs of these ops (tests/golden/data/codec/tf_op_defs.pbtxt), which
tests/kernels/codec_test.cc compares byte for byte with dfx's.

    $(tools/tf_env) tests/golden/gen_codec.py

The test images are small synthetic gradients: PNG and JPEG files written
by TensorFlow's own encoders; palette, low-bit-depth and interlaced PNGs,
BMPs and GIFs (which TensorFlow cannot write) built by the small writers
below. Files are fed as string scalars (golden_lib's .json string files).
"""

import struct
import zlib

import numpy as np

import golden_lib
from golden_lib import tf, tf1

FAMILY = "codec"
raw = tf.raw_ops

OPS = ["DecodePng", "EncodePng", "DecodeJpeg", "EncodeJpeg",
       "ExtractJpegShape", "DecodeAndCropJpeg", "DecodeBmp", "DecodeGif",
       "DecodeImage", "DecodeRaw", "DecodeWav", "EncodeWav",
       "AudioSpectrogram", "Mfcc", "ReadFile", "DecodeCompressed",
       "EncodeJpegVariableQuality"]


def case(name, build, **kw):
    golden_lib.case(FAMILY, name, build, **kw)


def run(fn):
    """Runs fn() (building TF ops) in a fresh graph; returns its value."""
    with tf.Graph().as_default():
        with tf1.Session() as sess:
            return sess.run(fn())


def gradient(h, w, c, dtype=np.uint8, seed=0):
    """A smooth image with some noise, so JPEG has detail to keep."""
    y, x = np.mgrid[0:h, 0:w]
    top = np.iinfo(dtype).max
    chans = []
    for k in range(c):
        v = (x * (k + 1) * 37 + y * (3 - k % 3) * 23 + k * 50) % 256
        chans.append(v)
    img = np.stack(chans, axis=-1).astype(np.float64) / 255.0
    img += golden_lib.rng(seed).uniform(-0.05, 0.05, img.shape)
    return (np.clip(img, 0, 1) * top).round().astype(dtype)


# --- Files TensorFlow writes ----------------------------------------------

def tf_png(img, compression=-1):
    return run(lambda: raw.EncodePng(image=tf.constant(img),
                                     compression=compression))


def tf_jpeg(img, **kw):
    return run(lambda: raw.EncodeJpeg(image=tf.constant(img), **kw))


# --- Files built here -------------------------------------------------------

def png_chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(
        ">I", zlib.crc32(body) & 0xffffffff)


def png_file(width, height, bit_depth, color_type, rows, plte=None,
             trns=None, interlace=False):
    """A PNG of packed `rows` (bytes per row, filter 0), Adam7 when
    `interlace` (rows are then the full image and are split into passes)."""
    ihdr = struct.pack(">IIBBBBB", width, height, bit_depth, color_type, 0, 0,
                       1 if interlace else 0)
    if not interlace:
        raw_data = b"".join(b"\x00" + r for r in rows)
    else:
        # Only for 8-bit samples: pixel size in bytes.
        px = len(rows[0]) // width
        passes = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4),
                  (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
        raw_data = b""
        for x0, y0, dx, dy in passes:
            for y in range(y0, height, dy):
                line = b"".join(rows[y][x * px:(x + 1) * px]
                                for x in range(x0, width, dx))
                if line:
                    raw_data += b"\x00" + line
    out = b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", ihdr)
    if plte is not None:
        out += png_chunk(b"PLTE", plte)
    if trns is not None:
        out += png_chunk(b"tRNS", trns)
    out += png_chunk(b"IDAT", zlib.compress(raw_data, 9))
    return out + png_chunk(b"IEND", b"")


def palette_png(trns):
    w, h = 9, 5
    plte = bytes(v for i in range(16) for v in (i * 16, 255 - i * 15, i * 7))
    rows = [bytes((x + 2 * y) % 16 for x in range(w)) for y in range(h)]
    t = bytes(range(0, 256, 16)) if trns else None
    return png_file(w, h, 8, 3, rows, plte=plte, trns=t)


def gray4_png():
    w, h = 7, 3
    rows = []
    for y in range(h):
        vals = [(x + 5 * y) % 16 for x in range(w)] + [0]
        rows.append(bytes((vals[i] << 4) | vals[i + 1]
                          for i in range(0, w, 2)))
    return png_file(w, h, 4, 0, rows)


def interlaced_png():
    img = gradient(11, 10, 3, seed=3)
    return png_file(10, 11, 8, 2, [r.tobytes() for r in img], interlace=True)


def bmp_file(img, top_down=False, pad_header=0):
    """An uncompressed BMP (BITMAPINFOHEADER) of an [h, w, c] uint8 image,
    c 1 (8-bit, grayscale palette), 3 (BGR) or 4 (BGRA)."""
    h, w, c = img.shape
    row = (w * c + 3) // 4 * 4
    pixels = b""
    order = range(h) if top_down else range(h - 1, -1, -1)
    for y in order:
        px = img[y][:, [2, 1, 0, 3][:c]] if c >= 3 else img[y]
        line = px.astype(np.uint8).tobytes()
        pixels += line + b"\x00" * (row - len(line))
    palette = b"".join(bytes((i, i, i, 0)) for i in range(256)) if c == 1 \
        else b""
    offset = 14 + 40 + len(palette) + pad_header
    header = b"BM" + struct.pack("<IHHI", offset + len(pixels), 0, 0, offset)
    info = struct.pack("<IiiHHIIiiII", 40, w, -h if top_down else h, 1, 8 * c,
                       0, len(pixels), 2835, 2835, 256 if c == 1 else 0, 0)
    return header + info + palette + b"\x00" * pad_header + pixels


def lzw_literal(indices, min_code_size=8):
    """GIF LZW data that codes every index as a literal, clearing the table
    before it grows past 9-bit codes: valid, if not small."""
    clear = 1 << min_code_size
    end = clear + 1
    codes = []
    for i, v in enumerate(indices):
        if i % 250 == 0:
            codes.append(clear)
        codes.append(int(v))
    codes.append(end)
    bits, nbits, out = 0, 0, bytearray()
    for code in codes:
        bits |= code << nbits
        nbits += 9
        while nbits >= 8:
            out.append(bits & 0xff)
            bits >>= 8
            nbits -= 8
    if nbits:
        out.append(bits & 0xff)
    blocks = b""
    for i in range(0, len(out), 255):
        chunk = bytes(out[i:i + 255])
        blocks += bytes([len(chunk)]) + chunk
    return bytes([min_code_size]) + blocks + b"\x00"


def gif_file(width, height, frames, palette, transparent=None):
    """frames: list of (left, top, w, h, indices [h, w]) sharing the global
    palette (256 RGB entries); `transparent` the index of a GCB's
    transparent color, given to every frame."""
    out = b"GIF89a" + struct.pack("<HHBBB", width, height, 0xF7, 0, 0)
    out += bytes(palette)
    for left, top, w, h, idx in frames:
        if transparent is not None:
            out += b"\x21\xF9\x04" + bytes([1, 10, 0, transparent, 0])
        out += b"\x2C" + struct.pack("<HHHHB", left, top, w, h, 0)
        out += lzw_literal(np.asarray(idx).reshape(-1))
    return out + b"\x3B"


PALETTE = [v for i in range(256) for v in (i, (i * 7) % 256, 255 - i)]


def gif_single():
    idx = (np.arange(8 * 6).reshape(6, 8) * 5) % 256
    return gif_file(8, 6, [(0, 0, 8, 6, idx)], PALETTE)


def gif_animated():
    a = (np.arange(7 * 5).reshape(5, 7) * 3) % 256
    b = np.full((2, 3), 200)
    b[0, 1] = 9  # transparent: keeps frame 0's pixel
    c = (np.arange(7 * 5).reshape(5, 7) * 11) % 256
    return gif_file(7, 5, [(0, 0, 7, 5, a), (2, 1, 3, 2, b), (0, 0, 7, 5, c)],
                    PALETTE, transparent=9)


# --- Cases --------------------------------------------------------------------

def sfeed(data, name="contents"):
    """A string scalar placeholder fed `data`."""
    ph = tf1.placeholder(tf.string, shape=[], name=name)
    return ph, np.asarray(data, dtype=object)


def decode_case(name, op, data, extra_inputs=None, **attrs):
    def build():
        ph, v = sfeed(data)
        out = getattr(raw, op)(contents=ph, **(extra_inputs or {}), **attrs)
        return [out], {ph: v}
    case(name, build)


def main():
    golden_lib.write_op_defs(FAMILY, OPS)

    rgb8 = gradient(12, 16, 3)
    rgba8 = gradient(6, 5, 4, seed=1)
    gray8 = gradient(7, 9, 1, seed=2)
    rgb16 = gradient(5, 6, 3, np.uint16, seed=4)
    ga16 = gradient(4, 3, 2, np.uint16, seed=5)
    pngs = {
        "rgb8": tf_png(rgb8), "rgba8": tf_png(rgba8), "gray8": tf_png(gray8),
        "rgb16": tf_png(rgb16), "ga16": tf_png(ga16),
        "palette": palette_png(False), "palette_trns": palette_png(True),
        "gray4": gray4_png(), "interlaced": interlaced_png(),
    }

    # DecodePng: every source with every channel count and both dtypes.
    for src, data in pngs.items():
        for ch in (0, 1, 3, 4):
            for dt in (tf.uint8, tf.uint16):
                decode_case(f"decode_png_{src}_c{ch}_{dt.name}", "DecodePng",
                            data, channels=ch, dtype=dt)
    decode_case("decode_png_bad_channels", "DecodePng", pngs["rgb8"],
                channels=2)
    decode_case("decode_png_truncated", "DecodePng", pngs["rgb8"][:60])
    decode_case("decode_png_header_only", "DecodePng", pngs["rgb8"][:30])
    flipped = bytearray(pngs["rgb8"])
    flipped[45] ^= 0x40  # inside IDAT: the CRC no longer matches
    decode_case("decode_png_bit_flip", "DecodePng", bytes(flipped))
    decode_case("decode_png_empty", "DecodePng", b"")
    decode_case("decode_png_unknown_format", "DecodePng", b"not an image")
    # decode_png decodes JPEG, GIF too (TensorFlow's unified decoder).
    decode_case("decode_png_of_gif", "DecodePng", gif_single())

    # EncodePng: bytes equal TensorFlow's (same libpng and zlib level).
    def enc_png(name, img, compression=-1):
        def build():
            ph = tf1.placeholder(tf.as_dtype(img.dtype), shape=img.shape)
            out = raw.EncodePng(image=ph, compression=compression)
            fetches = [out]
            if img.size:
                first = out if img.ndim == 3 else tf.reshape(out, [-1])[0]
                fetches.append(raw.DecodePng(contents=first,
                                             dtype=tf.as_dtype(img.dtype)))
            return fetches, {ph: img}
        case(name, build)
    for c in (1, 2, 3, 4):
        enc_png(f"encode_png_u8_c{c}", gradient(6, 7, c, seed=c))
        enc_png(f"encode_png_u16_c{c}", gradient(5, 4, c, np.uint16, seed=c))
    for level in (0, 1, 9):
        enc_png(f"encode_png_level{level}", rgb8, level)
    enc_png("encode_png_batch", gradient(12, 5, 3, seed=7).reshape(2, 2, 3, 5, 3))
    enc_png("encode_png_empty_batch", np.zeros((0, 3, 4, 3), np.uint8))
    enc_png("encode_png_zero_width", np.zeros((3, 0, 3), np.uint8))
    enc_png("encode_png_five_channels", np.zeros((3, 2, 5), np.uint8))
    def enc_png_rank2():
        ph = tf1.placeholder(tf.uint8, shape=None)
        return [raw.EncodePng(image=ph)], {ph: np.zeros((3, 2), np.uint8)}
    case("encode_png_rank2", enc_png_rank2)

    # JPEG files TensorFlow writes: 4:2:0 RGB, 4:4:4, grayscale,
    # progressive, odd sizes.
    jpegs = {
        "rgb420": tf_jpeg(rgb8, quality=90),
        "rgb444": tf_jpeg(gradient(11, 13, 3, seed=8), quality=80,
                          chroma_downsampling=False),
        "gray": tf_jpeg(gray8, quality=75),
        "progressive": tf_jpeg(gradient(17, 19, 3, seed=9), progressive=True),
        "odd": tf_jpeg(gradient(9, 23, 3, seed=10), quality=60),
    }
    for src, data in jpegs.items():
        for ch in (0, 1, 3):
            decode_case(f"decode_jpeg_{src}_c{ch}", "DecodeJpeg", data,
                        channels=ch)
        for ratio in (2, 4, 8):
            decode_case(f"decode_jpeg_{src}_ratio{ratio}", "DecodeJpeg", data,
                        ratio=ratio)
        decode_case(f"decode_jpeg_{src}_accurate", "DecodeJpeg", data,
                    dct_method="INTEGER_ACCURATE")
        decode_case(f"decode_jpeg_{src}_no_fancy", "DecodeJpeg", data,
                    fancy_upscaling=False)
        decode_case(f"decode_jpeg_{src}_fast", "DecodeJpeg", data,
                    dct_method="INTEGER_FAST", channels=3)
    big = tf_jpeg(gradient(40, 24, 3, seed=11), quality=85)
    decode_case("decode_jpeg_big", "DecodeJpeg", big)
    trunc = big[:len(big) * 2 // 3]
    decode_case("decode_jpeg_truncated", "DecodeJpeg", trunc)
    decode_case("decode_jpeg_truncated_recover", "DecodeJpeg", trunc,
                try_recover_truncated=True)
    decode_case("decode_jpeg_truncated_recover_fraction", "DecodeJpeg", trunc,
                try_recover_truncated=True, acceptable_fraction=0.25)
    decode_case("decode_jpeg_header_only", "DecodeJpeg", big[:100])
    # Cut inside a marker segment, with recovery: fake end markers fill the
    # segment until libjpeg fails.
    decode_case("decode_jpeg_header_only_recover", "DecodeJpeg", big[:100],
                try_recover_truncated=True)
    # (Not "\xff\xd8\xff" with recovery: TensorFlow 2.21 loops forever on
    # it; dfx fails with InvalidArgument, see codec_test.cc.)
    decode_case("decode_jpeg_cut_in_sos_recover", "DecodeJpeg",
                big[:big.index(b"\xff\xda") + 6],
                try_recover_truncated=True, acceptable_fraction=0.0)
    flipped = bytearray(big)
    flipped[len(big) // 2] ^= 0x10
    decode_case("decode_jpeg_bit_flip", "DecodeJpeg", bytes(flipped))
    decode_case("decode_jpeg_four_channels", "DecodeJpeg", big, channels=4)
    decode_case("decode_jpeg_bad_ratio", "DecodeJpeg", big, ratio=3)
    decode_case("decode_jpeg_bad_dct", "DecodeJpeg", big, dct_method="FLOAT")
    decode_case("decode_jpeg_of_png", "DecodeJpeg", pngs["rgba8"])
    decode_case("decode_jpeg_of_bmp", "DecodeJpeg", bmp_file(rgb8[:4, :5]))

    # EncodeJpeg: every attr.
    def enc_jpeg(name, img, **attrs):
        def build():
            ph = tf1.placeholder(tf.uint8, shape=img.shape)
            out = raw.EncodeJpeg(image=ph, **attrs)
            return [out], {ph: img}
        case(name, build)
    enc_jpeg("encode_jpeg_default", rgb8)
    enc_jpeg("encode_jpeg_gray", gray8)
    enc_jpeg("encode_jpeg_format_rgb", rgb8, format="rgb")
    enc_jpeg("encode_jpeg_format_gray", gray8, format="grayscale")
    for q in (0, 1, 50, 100):
        enc_jpeg(f"encode_jpeg_quality{q}", rgb8, quality=q)
    enc_jpeg("encode_jpeg_progressive", rgb8, progressive=True)
    enc_jpeg("encode_jpeg_optimize", rgb8, optimize_size=True)
    enc_jpeg("encode_jpeg_no_chroma_downsampling", rgb8,
             chroma_downsampling=False)
    enc_jpeg("encode_jpeg_density_cm", rgb8, density_unit="cm", x_density=72,
             y_density=96)
    enc_jpeg("encode_jpeg_xmp", gray8, xmp_metadata="<x:xmpmeta>dfx</x:xmpmeta>")
    enc_jpeg("encode_jpeg_format_mismatch", rgb8, format="grayscale")
    enc_jpeg("encode_jpeg_four_channels", rgba8)
    enc_jpeg("encode_jpeg_bad_quality", rgb8, quality=101)
    enc_jpeg("encode_jpeg_empty", np.zeros((0, 4, 3), np.uint8))

    def enc_jpeg_q(name, img, quality):
        def build():
            ph = tf1.placeholder(tf.uint8, shape=None)
            q = tf1.placeholder(tf.int32, shape=None)
            out = raw.EncodeJpegVariableQuality(images=ph, quality=q)
            return [out], {ph: img, q: np.asarray(quality, np.int32)}
        case(name, build)
    for q in (0, 30, 95, 100):
        enc_jpeg_q(f"encode_jpeg_variable_quality{q}", rgb8, q)
    enc_jpeg_q("encode_jpeg_variable_quality_gray", gray8, 60)
    enc_jpeg_q("encode_jpeg_variable_quality_bad", rgb8, 101)
    enc_jpeg_q("encode_jpeg_variable_quality_vector", rgb8, [50])
    enc_jpeg_q("encode_jpeg_variable_quality_rgba", rgba8, 50)

    # ExtractJpegShape.
    for src in ("rgb420", "gray", "progressive"):
        for t in (tf.int32, tf.int64):
            decode_case(f"extract_jpeg_shape_{src}_{t.name}",
                        "ExtractJpegShape", jpegs[src], output_type=t)
    decode_case("extract_jpeg_shape_of_png", "ExtractJpegShape", pngs["rgb8"])
    decode_case("extract_jpeg_shape_truncated", "ExtractJpegShape", big[:40])

    # DecodeAndCropJpeg: MCU-aligned and not, with ratio and channels.
    def crop_case(name, data, window, **attrs):
        def build():
            ph, v = sfeed(data)
            # Unknown length, so TensorFlow's shape check lets a bad one run.
            w = tf1.placeholder(tf.int32, shape=[None], name="window")
            out = raw.DecodeAndCropJpeg(contents=ph, crop_window=w, **attrs)
            return [out], {ph: v, w: np.asarray(window, np.int32)}
        case(name, build)
    crop_case("crop_jpeg_aligned", big, [8, 16, 16, 8])
    crop_case("crop_jpeg_unaligned", big, [3, 5, 20, 13])
    crop_case("crop_jpeg_full", big, [0, 0, 40, 24])
    crop_case("crop_jpeg_gray", jpegs["gray"], [1, 2, 4, 5])
    crop_case("crop_jpeg_c1", big, [5, 7, 9, 11], channels=1)
    crop_case("crop_jpeg_ratio2", big, [2, 3, 10, 7], ratio=2)
    crop_case("crop_jpeg_444", jpegs["rgb444"], [1, 3, 6, 7])
    crop_case("crop_jpeg_progressive", jpegs["progressive"], [4, 6, 9, 10])
    crop_case("crop_jpeg_outside", big, [30, 0, 20, 8])
    crop_case("crop_jpeg_zero_width", big, [0, 0, 4, 0])
    crop_case("crop_jpeg_negative", big, [-1, 0, 4, 4])
    crop_case("crop_jpeg_three_elements", big, [0, 0, 4])
    crop_case("crop_jpeg_of_png", pngs["rgb8"], [0, 0, 2, 2])

    # BMP.
    bmps = {
        "bgr": bmp_file(gradient(5, 7, 3, seed=12)),
        "bgra": bmp_file(gradient(4, 3, 4, seed=13)),
        "gray": bmp_file(gradient(6, 5, 1, seed=14)),
        "top_down": bmp_file(gradient(3, 6, 3, seed=15), top_down=True),
    }
    for src, data in bmps.items():
        for ch in (0, 3, 4):
            decode_case(f"decode_bmp_{src}_c{ch}", "DecodeBmp", data,
                        channels=ch)
    decode_case("decode_bmp_c1", "DecodeBmp", bmps["bgr"], channels=1)
    decode_case("decode_bmp_truncated", "DecodeBmp", bmps["bgr"][:-3])
    decode_case("decode_bmp_short", "DecodeBmp", bmps["bgr"][:20])
    bad_bpp = bytearray(bmps["bgr"])
    bad_bpp[28] = 16
    decode_case("decode_bmp_16bit", "DecodeBmp", bytes(bad_bpp))
    decode_case("decode_bmp_of_png", "DecodeBmp", pngs["rgb8"])
    decode_case("decode_bmp_of_jpeg", "DecodeBmp", big)

    # GIF.
    gifs = {"single": gif_single(), "animated": gif_animated()}
    for src, data in gifs.items():
        decode_case(f"decode_gif_{src}", "DecodeGif", data)
    decode_case("decode_gif_of_png", "DecodeGif", pngs["rgba8"])
    decode_case("decode_gif_of_jpeg", "DecodeGif", jpegs["gray"])
    decode_case("decode_gif_truncated", "DecodeGif", gifs["animated"][:100])
    decode_case("decode_jpeg_of_animated_gif", "DecodeJpeg", gifs["animated"])
    decode_case("decode_png_of_single_gif", "DecodePng", gifs["single"])

    # DecodeImage: dispatch, dtypes, expand_animations.
    files = {"png": pngs["rgba8"], "png16": pngs["rgb16"],
             "jpeg": jpegs["rgb420"], "bmp": bmps["bgra"],
             "gif": gifs["animated"]}
    for src, data in files.items():
        for dt in (tf.uint8, tf.uint16, tf.float32):
            decode_case(f"decode_image_{src}_{dt.name}", "DecodeImage", data,
                        dtype=dt)
        decode_case(f"decode_image_{src}_no_expand", "DecodeImage", data,
                    expand_animations=False)
    decode_case("decode_image_png_c3", "DecodeImage", pngs["rgba8"],
                channels=3)
    decode_case("decode_image_gif_c1", "DecodeImage", gifs["single"],
                channels=1)
    decode_case("decode_image_bmp_c1", "DecodeImage", bmps["bgr"], channels=1)
    decode_case("decode_image_unknown", "DecodeImage", b"\x00\x01\x02\x03")

    audio_cases()
    compressed_cases()
    pipeline_cases()


def wav_file(samples, rate=16000, fmt_size=16, extra_chunks=b"",
             leading=b"", bits=16, audio_format=1, data_pad=b""):
    """A PCM WAV of int16 `samples` [frames, channels]."""
    samples = np.asarray(samples, np.int16)
    frames, channels = samples.shape
    data = samples.astype("<i2").tobytes() + data_pad
    block = channels * bits // 8
    fmt = struct.pack("<HHIIHH", audio_format, channels, rate, rate * block,
                      block, bits)
    if fmt_size == 18:
        fmt += b"\x00\x00"
    body = (b"WAVE" + leading + b"fmt " + struct.pack("<I", fmt_size) + fmt +
            extra_chunks + b"data" + struct.pack("<I", len(data)) + data)
    return b"RIFF" + struct.pack("<I", len(body)) + body


def audio_cases():
    # DecodeRaw: every out_type, both byte orders, batches, empty strings.
    r = golden_lib.rng(20)
    blob = [bytes(r.integers(0, 256, 16, dtype=np.uint8)) for _ in range(6)]
    for t in (tf.half, tf.float32, tf.float64, tf.int32, tf.uint16, tf.uint8,
              tf.int16, tf.int8, tf.int64, tf.complex64, tf.complex128,
              tf.bool, tf.bfloat16):
        for le in (True, False):
            def build(t=t, le=le):
                ph = tf1.placeholder(tf.string, shape=[2, 3])
                out = raw.DecodeRaw(bytes=ph, out_type=t, little_endian=le)
                if t in (tf.half, tf.float32, tf.float64, tf.bfloat16,
                         tf.complex64, tf.complex128):
                    # Random bytes hold NaNs: compare the bits.
                    out = tf.strings.as_string(out) if t.is_complex else \
                        tf.bitcast(out, {2: tf.int16, 4: tf.int32,
                                         8: tf.int64}[t.size])
                # bool: bytes other than 0 and 1 are no valid bools.
                data = [bytes(b % 2 for b in x) for x in blob] \
                    if t == tf.bool else blob
                return [out], {ph: np.asarray(data, object).reshape(2, 3)}
            case(f"decode_raw_{t.name}_{'le' if le else 'be'}", build)
    def raw_case(name, strings, t=tf.int32, shape=None):
        def build():
            v = np.asarray(strings, object)
            ph = tf1.placeholder(tf.string, shape=shape)
            return [raw.DecodeRaw(bytes=ph, out_type=t)], {ph: v}
        case(name, build)
    raw_case("decode_raw_scalar", b"\x01\x00\x00\x00\x02\x00\x00\x00")
    raw_case("decode_raw_empty_strings", [b"", b""])
    raw_case("decode_raw_no_strings", np.zeros([0, 2], object), shape=[0, 2])
    raw_case("decode_raw_ragged", [b"\x00" * 4, b"\x00" * 8])
    raw_case("decode_raw_not_multiple", [b"\x00" * 6])

    # WAV.
    mono = (np.sin(np.arange(64) * 0.3) * 20000).astype(np.int16)[:, None]
    stereo = np.stack([mono[:, 0], -mono[:, 0] // 3], axis=1)
    wavs = {
        "mono": wav_file(mono), "stereo": wav_file(stereo, rate=8000),
        "fmt18": wav_file(mono[:10], fmt_size=18),
        "junk": wav_file(mono[:12], leading=b"JUNK\x04\x00\x00\x00abcd",
                         extra_chunks=b"LIST\x02\x00\x00\x00xy"),
        "odd_data": wav_file(stereo[:5], data_pad=b"\x07"),
    }
    def wav_case(name, data, **attrs):
        def build():
            ph, v = sfeed(data)
            audio, rate = raw.DecodeWav(contents=ph, **attrs)
            return [audio, rate], {ph: v}
        case(name, build)
    for src, data in wavs.items():
        wav_case(f"decode_wav_{src}", data)
    wav_case("decode_wav_more_channels", wavs["stereo"], desired_channels=3)
    wav_case("decode_wav_fewer_channels", wavs["stereo"], desired_channels=1)
    wav_case("decode_wav_pad_samples", wavs["mono"], desired_samples=80)
    wav_case("decode_wav_cut_samples", wavs["stereo"], desired_samples=7,
             desired_channels=2)
    wav_case("decode_wav_truncated", wavs["mono"][:100])
    wav_case("decode_wav_header_only", wavs["mono"][:30])
    wav_case("decode_wav_8bit", wav_file(mono[:4], bits=8))
    wav_case("decode_wav_float_format", wav_file(mono[:4], audio_format=3))
    wav_case("decode_wav_not_riff", b"RIFX" + wavs["mono"][4:])
    wav_case("decode_wav_unknown_chunk",
             wav_file(mono[:4], leading=b"abcd\x00\x00\x00\x00"))
    wav_case("decode_wav_two_data",
             wavs["mono"] + b"data\x02\x00\x00\x00\x01\x00")
    wav_case("decode_wav_no_data", wavs["mono"][:36])

    def enc_wav(name, audio, rate=16000):
        def build():
            a = tf1.placeholder(tf.float32, shape=None)
            s = tf1.placeholder(tf.int32, shape=None)
            out = raw.EncodeWav(audio=a, sample_rate=s)
            return [out], {a: np.asarray(audio, np.float32),
                           s: np.asarray(rate, np.int32)}
        case(name, build)
    r = golden_lib.rng(21)
    enc_wav("encode_wav_stereo", r.uniform(-1.2, 1.2, [20, 2]), 44100)
    enc_wav("encode_wav_rounding", np.asarray(
        [[0.5 / 32768], [1.5 / 32768], [-0.5 / 32768], [-2.5 / 32768],
         [1.0], [-1.0], [0.99999]]))
    enc_wav("encode_wav_empty", np.zeros([0, 3]))
    enc_wav("encode_wav_no_channels", np.zeros([4, 0]))
    enc_wav("encode_wav_negative_rate", np.zeros([4, 1]), -5)
    enc_wav("encode_wav_rank1", np.zeros([4]))
    enc_wav("encode_wav_rate_vector", np.zeros([4, 1]), [8000])

    # AudioSpectrogram and Mfcc: a chirp, mono and stereo.
    t = np.arange(400) / 8000.0
    chirp = np.sin(2 * np.pi * (200 + 1500 * t) * t)
    audio = np.stack([chirp, 0.5 * np.cos(2 * np.pi * 700 * t)], 1)
    def spec_case(name, x, window, stride, squared=False, tol=None):
        def build():
            ph = tf1.placeholder(tf.float32, shape=None)
            out = raw.AudioSpectrogram(input=ph, window_size=window,
                                       stride=stride,
                                       magnitude_squared=squared)
            return [out], {ph: np.asarray(x, np.float32)}
        case(name, build, **(tol or {}))
    spec_case("spectrogram_mono", audio[:, :1], 64, 32)
    spec_case("spectrogram_stereo_squared", audio, 50, 40, squared=True)
    spec_case("spectrogram_stride_over_window", audio[:, :1], 16, 37)
    spec_case("spectrogram_short", audio[:10, :1], 16, 8)
    spec_case("spectrogram_pow2_window", audio[:, 1:], 128, 100)
    spec_case("spectrogram_rank1", audio[:, 0], 16, 8)

    def mfcc_case(name, window, stride, rate=8000, channels_in=2, **attrs):
        def build():
            ph = tf1.placeholder(tf.float32, shape=None)
            spec = raw.AudioSpectrogram(input=ph, window_size=window,
                                        stride=stride, magnitude_squared=True)
            s = tf1.placeholder(tf.int32, shape=[])
            out = raw.Mfcc(spectrogram=spec, sample_rate=s, **attrs)
            return [out], {ph: np.asarray(audio[:, :channels_in], np.float32),
                           s: np.asarray(rate, np.int32)}
        case(name, build)
    mfcc_case("mfcc_default", 128, 64)
    mfcc_case("mfcc_attrs", 100, 50, rate=16000, channels_in=1,
              upper_frequency_limit=6000.0, lower_frequency_limit=100.0,
              filterbank_channel_count=20, dct_coefficient_count=20)
    mfcc_case("mfcc_upper_above_nyquist", 64, 64, rate=4000,
              upper_frequency_limit=3000.0)
    mfcc_case("mfcc_too_many_coefficients", 64, 64,
              filterbank_channel_count=10, dct_coefficient_count=11)
    mfcc_case("mfcc_lower_above_upper", 64, 64, lower_frequency_limit=5000.0)
    mfcc_case("mfcc_zero_rate", 64, 64, rate=0)
    def mfcc_direct(name, spec, rate=16000, **attrs):
        def build():
            ph = tf1.placeholder(tf.float32, shape=None)
            s = tf1.placeholder(tf.int32, shape=None)
            out = raw.Mfcc(spectrogram=ph, sample_rate=s, **attrs)
            return [out], {ph: np.asarray(spec, np.float32),
                           s: np.asarray(rate, np.int32)}
        case(name, build)
    # The speech_commands front end: DecodeWav -> AudioSpectrogram -> Mfcc.
    speech = (np.sin(np.arange(600) * 0.07) * np.linspace(0, 1, 600) *
              25000).astype(np.int16)[:, None]
    def speech_front_end():
        ph, v = sfeed(wav_file(speech, rate=16000))
        audio, rate = raw.DecodeWav(contents=ph, desired_channels=1,
                                    desired_samples=640)
        spec = raw.AudioSpectrogram(input=audio, window_size=160, stride=80,
                                    magnitude_squared=True)
        mfcc = raw.Mfcc(spectrogram=spec, sample_rate=rate,
                        dct_coefficient_count=10)
        return [audio, spec, mfcc], {ph: v}
    case("speech_front_end", speech_front_end)
    mfcc_direct("mfcc_zeros", np.zeros([1, 3, 129]))
    mfcc_direct("mfcc_rank2", np.ones([3, 129]))
    mfcc_direct("mfcc_one_bin", np.ones([1, 2, 1]))


def zstd(data, from_pipe=False):
    """zstd's command line tool; from a pipe it cannot record the size."""
    import subprocess
    import tempfile
    if from_pipe:
        return subprocess.run(["zstd", "-q", "-c"], input=data, check=True,
                              capture_output=True).stdout
    with tempfile.NamedTemporaryFile() as f:
        f.write(data)
        f.flush()
        return subprocess.run(["zstd", "-q", "-c", f.name], check=True,
                              capture_output=True).stdout


def compressed_cases():
    import gzip
    text = b"".join(b"line %d of some text\n" % i for i in range(60))
    z = zlib.compress(text)
    g = gzip.compress(text, mtime=0)
    def dc(name, strings, ctype):
        def build():
            v = np.asarray(strings, object)
            ph = tf1.placeholder(tf.string, shape=v.shape)
            return [raw.DecodeCompressed(bytes=ph, compression_type=ctype)], \
                {ph: v}
        case(name, build)
    dc("decompress_zlib", [z, zlib.compress(b"x"), zlib.compress(b"")], "ZLIB")
    dc("decompress_gzip", [[g, gzip.compress(b"abc", mtime=0)]] * 2, "GZIP")
    dc("decompress_none", [b"as is\x00", b""], "")
    dc("decompress_zlib_truncated", [z[:len(z) // 2]], "ZLIB")
    dc("decompress_zlib_trailing", [z + b"junk"], "ZLIB")
    dc("decompress_zlib_twice", [z + z], "ZLIB")
    corrupt = bytearray(z)
    corrupt[12] ^= 0xff
    dc("decompress_zlib_corrupt", [bytes(corrupt)], "ZLIB")
    dc("decompress_gzip_members", [g + g], "GZIP")
    dc("decompress_gzip_trailing", [g + b"junk"], "GZIP")
    dc("decompress_gzip_no_trailer", [g[:-4]], "GZIP")
    dc("decompress_gzip_as_zlib", [g], "ZLIB")
    dc("decompress_zlib_as_gzip", [z], "GZIP")
    dc("decompress_empty_input", [b""], "ZLIB")
    dc("decompress_zstd", [zstd(text), zstd(b"")], "ZSTD")
    dc("decompress_zstd_unknown_size", [zstd(text, from_pipe=True)], "ZSTD")
    bad = bytearray(zstd(text))
    bad[-5] ^= 0x55
    dc("decompress_zstd_corrupt", [bytes(bad)], "ZSTD")
    dc("decompress_bad_type", [z], "BZ2")


def pipeline_cases():
    """tf.io.read_file -> decode -> resize, as input pipelines run it: one
    multi-step case reading files of its own folder (gen_lookup.py's
    steps_case and its "@CASE_DIR@" file names)."""
    from gen_lookup import CASE_DIR, steps_case
    files = {"photo.jpg": tf_jpeg(gradient(20, 30, 3, seed=30), quality=85),
             "icon.png": tf_png(gradient(9, 7, 4, seed=31))}

    def build():
        fname = tf1.placeholder(tf.string, shape=[], name="fname")
        contents = raw.ReadFile(filename=fname)
        jpeg = raw.DecodeJpeg(contents=contents, channels=3)
        resized = tf.image.resize(jpeg[None], [10, 15])
        image = raw.DecodeImage(contents=contents, channels=3,
                                expand_animations=False)
        return {"fname": fname, "contents": contents, "jpeg": jpeg,
                "resized": resized, "image": image}
    steps_case(golden_lib._family_dir(FAMILY), "pipeline_read_decode_resize",
               build,
               [(["contents", "jpeg", "resized"],
                 {"fname": CASE_DIR + "/photo.jpg"}),
                (["image"], {"fname": CASE_DIR + "/icon.png"}),
                (["contents"], {"fname": CASE_DIR + "/missing.jpg"}),
                (["contents"], {"fname": CASE_DIR})],
               files=files)


if __name__ == "__main__":
    main()

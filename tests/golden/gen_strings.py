"""Golden cases of the strings family: Equal/NotEqual on strings,
StringLower/Upper, StringLength, Substr, StringStrip, StringToNumber,
AsString, ReduceJoin, StringSplitV2, (Static)RegexReplace, Encode/
DecodeBase64, StringToHashBucketFast/Strong, as TensorFlow 2.21 computes
them. Also writes TensorFlow's OpDefs of the string ops
(tests/golden/data/strings/tf_op_defs.pbtxt), which
tests/kernels/string_ops_test.cc compares byte for byte with dfx's.

    $(tools/tf_env) tests/golden/gen_strings.py

String feeds and outputs are stored as golden_lib's .json string files.
"""


import numpy as np

import golden_lib
from golden_lib import tf, tf1, placeholder

FAMILY = "strings"
raw = tf.raw_ops

OPS = ["StringLower", "StringUpper", "StringLength", "Substr", "StringStrip",
       "StringToNumber", "AsString", "ReduceJoin", "StringSplitV2",
       "StaticRegexReplace", "RegexReplace", "EncodeBase64", "DecodeBase64",
       "StringToHashBucketFast", "StringToHashBucketStrong",
       "StringToHashBucket"]


def S(v):
    return np.asarray(v, dtype=object)


def case(name, build, **kw):
    golden_lib.case(FAMILY, name, build, **kw)


def sph(v, name=None, known_shape=True):
    v = S(v)
    return tf1.placeholder(tf.string, shape=v.shape if known_shape else None,
                           name=name), v


TEXT = ["Hello, World", "", "  padded\t\n", "MiXeD 123 _-", "\xe9t\xe9 \xc9T\xc9",
        "stra\xdfe", "\u03a3\u039f\u03a6\u039f\u03a3 \u03bf\u03b4\u03cc\u03c2",
        "\u0130stanbul", "\u041f\u0440\u0438\u0432\u0435\u0442",
        "\ufb01ne \ufb02y", "emoji \U0001F600!", "tab\tnew\nline",
        "\u0386\u0388\u0389 \u03ac\u03ad", "\u01c5 \u01c4 \u01c6",
        "\u0587 \u0149 \u01f0 \u0390", "\u1e9e \u00b5 \u00ff \u0131 i",
        "\u03a3 \u0391\u03a3. A\u03a3b", "\u2160\u2170 \u24b6\u24d0",
        "\U00010400\U00010428", "\u1fb3 \u1fbc \u1f80 \u1ffc \u1fb7",
        "\ufb13\ufb17 \u1f50\u1fe4 \u0587\u1e9a"]
RAW_BYTES = [b"\xff\xfeab", b"a\x80b", b"\xc3", b"ok\x00zero"]


def equality_cases():
    for op in ["Equal", "NotEqual"]:
        def build(op=op):
            x, xv = sph([["a", "b", ""], ["c", "d", "e"]])
            y, yv = sph(["a", "x", ""])
            z, zv = sph("c")
            f = getattr(raw, op)
            return [f(x=x, y=y), f(x=x, y=z), f(x=z, y=z)], {x: xv, y: yv,
                                                              z: zv}
        case(f"{op.lower()}_broadcast", build)

        def incompatible(op=op, err=True):
            x, xv = sph(["a", "b", "c"], known_shape=False)
            y, yv = sph(["a", "b"], known_shape=False)
            return getattr(raw, op)(x=x, y=y, incompatible_shape_error=err), {
                x: xv, y: yv}
        case(f"{op.lower()}_incompatible_error", incompatible)
        case(f"{op.lower()}_incompatible_scalar",
             lambda op=op: incompatible(op, False))


def case_cases():
    for op in ["StringLower", "StringUpper"]:
        for enc in ["", "utf-8"]:
            def build(op=op, enc=enc):
                x, xv = sph(TEXT + [b.decode("latin-1") for b in []])
                return getattr(raw, op)(input=x, encoding=enc), {x: xv}
            case(f"{op.lower()}_{enc or 'ascii'}".replace("-", ""), build)

        def raw_bytes(op=op):
            x = tf.constant(RAW_BYTES + [b"AbC"])
            return [getattr(raw, op)(input=x),
                    getattr(raw, op)(input=x, encoding="utf-8")], {}
        case(f"{op.lower()}_bytes", raw_bytes)


def length_strip_cases():
    def build():
        x, xv = sph([TEXT[:10], TEXT[10:20]])
        b = tf.constant(RAW_BYTES)
        return [raw.StringLength(input=x), raw.StringLength(input=x,
                                                            unit="UTF8_CHAR"),
                raw.StringLength(input=b, unit="UTF8_CHAR"),
                raw.StringStrip(input=x), raw.StringStrip(input=b)], {x: xv}
    case("length_and_strip", build)
    case("length_empty", lambda: (raw.StringLength(
        input=tf.zeros([0, 2], tf.string)), {}))


def substr_cases():
    words = ["hello", "", "\xe9t\xe9!", "\U0001F600ab", "abcdefgh"]
    for t in [np.int32, np.int64]:
        tn = np.dtype(t).name
        for unit in ["BYTE", "UTF8_CHAR"]:
            def scalar(t=t, unit=unit):
                x, xv = sph(words)
                out = []
                for pos, ln in [(0, 2), (1, 10), (0, -1), (-2, 2), (-5, 1),
                                (0, 0)]:
                    if unit == "BYTE" and pos < -len("") and False:
                        continue
                    out.append(raw.Substr(input=x[:1], pos=t(pos), len=t(ln),
                                          unit=unit))
                out.append(raw.Substr(input=x, pos=t(0), len=t(3), unit=unit))
                out.append(raw.Substr(input=x, pos=np.asarray(
                    [0, 0, 1, 1, 3], t), len=np.asarray([2, 1, 2, 5, -1], t),
                    unit=unit))
                return out, {x: xv}
            case(f"substr_{unit.lower()}_{tn}", scalar)

            def bcast(t=t, unit=unit):
                x, xv = sph(["abcdef", "\xe9\xe9\xe9\xe9"])
                m, mv = sph([["abcdef", "xyz"], ["12345", "q"]])
                return [raw.Substr(input=x, pos=np.asarray([[0], [1]], t),
                                   len=np.asarray([[2], [3]], t), unit=unit),
                        raw.Substr(input=m, pos=np.asarray([0, 1], t),
                                   len=np.asarray([3, 9], t), unit=unit),
                        raw.Substr(input=x[:1], pos=np.asarray([0, 2, 4], t),
                                   len=np.asarray([1, 1, 5], t), unit=unit),
                        raw.Substr(input=x[0], pos=np.asarray([1, 2], t),
                                   len=np.asarray([1, 2], t), unit=unit)], {
                    x: xv, m: mv}
            case(f"substr_broadcast_{unit.lower()}_{tn}", bcast)
        for unit in ["BYTE", "UTF8_CHAR"]:
            for pos in [6, -7]:
                def oob(t=t, unit=unit, pos=pos):
                    x, xv = sph(["hello", "abcdef"])
                    return raw.Substr(input=x, pos=t(pos), len=t(1),
                                      unit=unit), {x: xv}
                case(f"substr_out_of_range_{unit.lower()}_{pos}_{tn}".replace(
                    "-", "m"), oob)
    def mismatch():
        p = tf1.placeholder(tf.int32, None)
        q = tf1.placeholder(tf.int32, None)
        return raw.Substr(input=tf.constant(["abc"]), pos=p, len=q), {
            p: np.asarray([1, 2], np.int32), q: np.asarray([1], np.int32)}
    case("substr_shape_mismatch", mismatch)
    case("substr_rank3_broadcast", lambda: (raw.Substr(
        input=tf.constant([[["abc"]]]), pos=np.asarray([1, 2], np.int32),
        len=np.asarray([1, 1], np.int32)), {}))


def number_cases():
    good_f = ["1", "-2.5", "  3.25  ", "1e10", "-1E-3", ".5", "5.", "inf",
              "-INF", "+nan", "0x1F", "1e40", "1e-50", "+7", "3.4028235e38",
              "0.1", "123456789.123456789"]
    for t in [tf.float32, tf.float64]:
        case(f"string_to_number_{t.name}", lambda t=t: (raw.StringToNumber(
            string_tensor=tf.constant(good_f), out_type=t), {}))
    good_i = ["0", "-1", " 42 ", "+7", "2147483647", "-2147483648", "0010"]
    for t in [tf.int32, tf.int64]:
        case(f"string_to_number_{t.name}", lambda t=t: (raw.StringToNumber(
            string_tensor=tf.constant(good_i), out_type=t), {}))
    case("string_to_number_int64_big", lambda: (raw.StringToNumber(
        string_tensor=tf.constant(["9223372036854775807",
                                   "-9223372036854775808"]),
        out_type=tf.int64), {}))
    for t in [tf.uint32, tf.uint64]:
        case(f"string_to_number_{t.name}", lambda t=t: (raw.StringToNumber(
            string_tensor=tf.constant(["0", "7", " 4294967295"]),
            out_type=t), {}))
    bad = [("float", tf.float32, "1.5x"), ("float_empty", tf.float32, ""),
           ("float_infinity", tf.float32, "infinity"),
           ("float_long", tf.float32, "1" * 40),
           ("int32_overflow", tf.int32, "2147483648"),
           ("int32_float", tf.int32, "1.5"), ("int64_hex", tf.int64, "0x10"),
           ("uint32_negative", tf.uint32, "-1")]
    for name, t, s in bad:
        case(f"string_to_number_bad_{name}", lambda t=t, s=s: (
            raw.StringToNumber(string_tensor=tf.constant(["1", s]),
                               out_type=t), {}))


def as_string_cases():
    f = np.asarray([0.0, -1.5, 3.14159265, 1e10, -2.5e-7, np.inf, -np.inf,
                    np.nan, 123456.789], np.float32)
    d = f.astype(np.float64) * 1.0000001
    attrs = [{}, {"precision": 3}, {"scientific": True},
             {"shortest": True}, {"width": 12}, {"width": 12, "fill": "0"},
             {"width": 12, "fill": "-"}, {"width": 10, "fill": "+",
                                          "precision": 2},
             {"shortest": True, "precision": 4}, {"fill": " ", "width": 9,
                                                  "scientific": True}]
    for k, a in enumerate(attrs):
        case(f"as_string_float_{k}", lambda a=a: (
            [raw.AsString(input=tf.constant(f), **a),
             raw.AsString(input=tf.constant(d), **a),
             raw.AsString(input=tf.constant(f.astype(np.float16)), **a),
             raw.AsString(input=tf.constant(f, tf.bfloat16), **a),
             raw.AsString(input=tf.constant(f[:4] + 1j * f[4:8],
                                            tf.complex64), **a)], {}))
    ints = [0, 1, -1, 127, -128, 42]
    int_attrs = [{}, {"width": 5}, {"width": 5, "fill": "0"},
                 {"width": 5, "fill": "-"}, {"width": 5, "fill": "+"},
                 {"fill": "#"}]
    for k, a in enumerate(int_attrs):
        case(f"as_string_int_{k}", lambda a=a: (
            [raw.AsString(input=tf.constant(ints, t), **a)
             for t in [tf.int8, tf.int16, tf.int32, tf.int64]] +
            [raw.AsString(input=tf.constant([0, 1, 127, 255], t), **a)
             for t in [tf.uint8, tf.uint16, tf.uint32, tf.uint64]] +
            [raw.AsString(input=tf.constant([2**62, -2**63], tf.int64), **a),
             raw.AsString(input=tf.constant([True, False]), **a)], {}))
    case("as_string_string", lambda: ([
        raw.AsString(input=tf.constant(["ab", "", "xyz"])),
        raw.AsString(input=tf.constant(["ab", "", "xyz"]), width=4),
        raw.AsString(input=tf.constant(["ab", "", "xyz"]), width=4,
                     fill="-")], {}))
    for name, t, a in [("precision_int", tf.int32, {"precision": 2}),
                       ("scientific_int", tf.int64, {"scientific": True}),
                       ("both", tf.float32, {"scientific": True,
                                             "shortest": True}),
                       ("fill_long", tf.float32, {"fill": "ab"}),
                       ("fill_bad", tf.float32, {"fill": "x", "width": 3})]:
        case(f"as_string_bad_{name}", lambda t=t, a=a: (
            raw.AsString(input=tf.constant([1], t), **a), {}))


def join_split_cases():
    x3 = S([[["a", "b", "c"], ["d", "e", "f"]], [["g", "h", "i"],
                                                 ["j", "k", "l"]]])
    for k, (axes, keep) in enumerate([([], False), ([0], False), ([1], True),
                                      ([2], False), ([0, 2], False),
                                      ([2, 0], True), ([-1, 1], False),
                                      ([0, 1, 2], False),
                                      ([1, 2, 0], False)]):
        def build(axes=axes, keep=keep):
            x, xv = sph(x3)
            return raw.ReduceJoin(inputs=x, reduction_indices=tf.constant(
                axes, tf.int32), keep_dims=keep, separator=", "), {x: xv}
        case(f"reduce_join_{k}", build)
    case("reduce_join_scalar_axis", lambda: (raw.ReduceJoin(
        inputs=tf.constant([["a", "b"], ["c", "d"]]),
        reduction_indices=tf.constant(1)), {}))
    case("reduce_join_empty", lambda: ([raw.ReduceJoin(
        inputs=tf.zeros([2, 0], tf.string), reduction_indices=tf.constant(1),
        separator="|"), raw.ReduceJoin(
        inputs=tf.zeros([2, 0], tf.string), reduction_indices=tf.constant(0),
        separator="|")], {}))
    for name, axes in [("out_of_range", [3]), ("duplicate", [1, -1])]:
        def bad(axes=axes):
            a = tf1.placeholder(tf.int32, None)
            return raw.ReduceJoin(inputs=tf.constant([["a", "b"], ["c", "d"]]),
                                  reduction_indices=a), {
                a: np.asarray(axes, np.int32)}
        case(f"reduce_join_bad_{name}", bad)

    lines = ["a b  c", " x ", "", "one,two,,three", ",", "\ttabs\tand  spaces\n",
             "no-sep", "  ", "a b c  ", "  a  b  ", "x--y-", "--"]
    for sep_name, sep in [("ws", ""), ("comma", ","), ("2space", "  "),
                          ("dash", "-")]:
        for maxsplit in [-2, -1, 0, 1, 2, 3]:
            def split(sep=sep, maxsplit=maxsplit):
                x, xv = sph(lines)
                return list(raw.StringSplitV2(input=x, sep=sep,
                                              maxsplit=maxsplit)), {x: xv}
            case(f"string_split_v2_{sep_name}_{maxsplit}".replace("-", "m"),
                 split)
    case("string_split_v2_empty_input", lambda: (list(raw.StringSplitV2(
        input=tf.zeros([0], tf.string), sep=",")), {}))
    def matrix():
        x, xv = sph([["a b"]], known_shape=False)
        return list(raw.StringSplitV2(input=x, sep="")), {x: xv}
    case("string_split_v2_matrix", matrix)


def regex_base64_cases():
    x = ["hello world", "aaa bbb", "", "x1y22z333", "\xe9t\xe9"]
    for k, (pattern, rewrite) in enumerate([
            ("o", "0"), ("[a-z]+", "<\\0>"), ("(\\d+)", "#\\1"),
            ("^", ">"), ("", "-"), ("(a)(a)", "\\2\\1!"), ("\xe9", "e")]):
        for glob in [True, False]:
            def build(pattern=pattern, rewrite=rewrite, glob=glob):
                t, tv = sph(x)
                p, pv = sph(pattern)
                return [raw.StaticRegexReplace(input=t, pattern=pattern,
                                               rewrite=rewrite,
                                               replace_global=glob),
                        raw.RegexReplace(input=t, pattern=p, rewrite=rewrite,
                                         replace_global=glob)], {t: tv, p: pv}
            case(f"regex_replace_{k}_{'global' if glob else 'first'}", build)
    case("regex_replace_bad_pattern", lambda: (raw.RegexReplace(
        input=tf.constant(["a"]), pattern=tf.constant("(a"),
        rewrite=tf.constant("b")), {}))
    case("regex_replace_bad_rewrite", lambda: (raw.RegexReplace(
        input=tf.constant(["a"]), pattern=tf.constant("a"),
        rewrite=tf.constant("\\1")), {}))

    data = ["", "f", "fo", "foo", "foob", "fooba", "foobar", "\xff\xfe\x00?>",
            "The quick brown fox jumps over the lazy dog"]
    for pad in [False, True]:
        def enc(pad=pad):
            t, tv = sph([[d.encode("latin-1") for d in data]])
            e = raw.EncodeBase64(input=t, pad=pad)
            return [e, raw.DecodeBase64(input=e)], {t: tv}
        case(f"base64_roundtrip_{'pad' if pad else 'nopad'}", enc)
    case("base64_decode_forms", lambda: (raw.DecodeBase64(input=tf.constant(
        ["Zm9vYg==", "Zm9vYg", "Zm9vYmE=", "Zm9vYmE", "-_-_", "AB", "ABC=",
         "ABCD", "A"[:0]])), {}))
    for name, s in [("bad_char", "Zm9v+g=="), ("one_mod_four", "Zm9vY"),
                    ("bad_pad", "Zm=v")]:
        case(f"base64_decode_{name}", lambda s=s: (raw.DecodeBase64(
            input=tf.constant(["Zm9v", s])), {}))


def hash_cases():
    rng = golden_lib.rng(5)
    strings = [""] + ["".join(chr(c) for c in rng.integers(32, 127, n))
                      for n in list(range(1, 80)) + [100, 127, 128, 129, 200,
                                                     255, 256, 300]]
    strings += ["\xe9t\xe9", "\x00", "\x00\x00\x00\x00\x00\x00\x00\x00\x00"]
    for buckets in [1, 7, 1000, 2**40]:
        def fast(buckets=buckets):
            t, tv = sph(strings)
            return raw.StringToHashBucketFast(input=t,
                                              num_buckets=buckets), {t: tv}
        case(f"hash_bucket_fast_{buckets}", fast)
    for buckets in [3, 2**40]:
        def legacy(buckets=buckets):
            t, tv = sph(strings)
            return raw.StringToHashBucket(string_tensor=t,
                                          num_buckets=buckets), {t: tv}
        case(f"hash_bucket_legacy_{buckets}", legacy)
    for key in [[0, 0], [1, 2], [-1, 2**62]]:
        def strong(key=key):
            t, tv = sph(strings)
            return raw.StringToHashBucketStrong(input=t, num_buckets=2**40,
                                                key=key), {t: tv}
        case(f"hash_bucket_strong_{abs(key[0])}_{key[1]}", strong)
    case("hash_bucket_strong_bad_key", lambda: (raw.StringToHashBucketStrong(
        input=tf.constant(["a"]), num_buckets=3, key=[1]), {}))


def main():
    golden_lib.write_op_defs(FAMILY, OPS)
    equality_cases()
    case_cases()
    length_strip_cases()
    substr_cases()
    number_cases()
    as_string_cases()
    join_split_cases()
    regex_base64_cases()
    hash_cases()


if __name__ == "__main__":
    main()

"""Golden cases of the text family: text preprocessing, tf.sets and parsing
ops that real graphs hold and dfx lacked: RegexFullMatch, StringSplit (v1),
StringNGrams, UnsortedSegmentJoin, UnicodeDecode(WithOffsets),
UnicodeEncode, UnicodeTranscode, UnicodeScript, Fingerprint, SerializeTensor,
ParseTensor, DecodeCSV, EditDistance, SetSize, DenseToDenseSetOperation,
DenseToSparseSetOperation, SparseToSparseSetOperation and ListDiff.

Run with the TensorFlow virtualenv: $(tools/tf_env) tests/golden/gen_text.py

Besides the cases the generator writes the ops' signatures
(tf_op_defs.pbtxt, tf_cpu_kernels.txt), which tests/kernels/text_test.cc
compares with dfx's registry.
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import golden_lib  # noqa: E402
from golden_lib import placeholder, tf, tf1  # noqa: E402

FAMILY = "text"
RAW = tf.raw_ops
BF16 = tf.bfloat16.as_numpy_dtype

OP_NAMES = ["RegexFullMatch", "StringSplit", "StringNGrams",
            "UnsortedSegmentJoin", "UnicodeDecode", "UnicodeDecodeWithOffsets",
            "UnicodeEncode", "UnicodeTranscode", "UnicodeScript", "DecodeCSV", "ParseTensor",
            "SerializeTensor", "Fingerprint", "EditDistance", "SetSize",
            "DenseToDenseSetOperation", "DenseToSparseSetOperation",
            "SparseToSparseSetOperation", "ListDiff"]


def case(name, build, **kw):
    golden_lib.case(FAMILY, name, build, **kw)


def strings(values, name=None, shape=None):
    """A string placeholder (unknown shape unless given) and its feed."""
    v = np.array(values, dtype=object)
    ph = tf1.placeholder(tf.string, shape=shape, name=name)
    return ph, v


def any_shape(value, name=None):
    """A placeholder of value's dtype and unknown shape: errors then come
    from the kernel, not from graph construction."""
    value = np.asarray(value)
    ph = tf1.placeholder(tf.as_dtype(value.dtype), shape=None, name=name)
    return ph, value


def regex_cases():
    def full_match(pattern, values=(["abc", "ab", "abcd", ""], ["a1", "Ünï", "x", "abc"])):
        def build():
            x, xv = strings(values)
            p, pv = strings(pattern, name="p")
            return RAW.RegexFullMatch(input=x, pattern=p), {x: xv, p: pv}
        return build
    case("regex_full_match", full_match("ab.?"))
    case("regex_full_match_classes", full_match(r"[a-z]\d|\w+"))
    case("regex_full_match_utf8", full_match("Ü.+"))
    case("regex_full_match_empty_input", full_match("a", np.zeros((0, 2), object)))
    case("regex_full_match_bad_pattern", full_match("a(b"))
    case("regex_full_match_pattern_not_scalar", full_match(["a", "b"]))


def split_cases():
    inputs = ["hello world", "a,,b", "", "  x  y ", "one", ",lead,trail,"]

    def split(delim, skip_empty, values=inputs):
        def build():
            x, xv = strings(values)
            d, dv = strings(delim, name="d")
            out = RAW.StringSplit(input=x, delimiter=d, skip_empty=skip_empty)
            return list(out), {x: xv, d: dv}
        return build
    case("string_split_space", split(" ", True))
    case("string_split_space_keep_empty", split(" ", False))
    case("string_split_comma_keep_empty", split(",", False))
    case("string_split_char_set", split(", ", True))
    case("string_split_char_set_keep_empty", split(", ", False))
    case("string_split_empty_delimiter", split("", True))
    case("string_split_empty_delimiter_keep", split("", False))
    case("string_split_empty_input", split(" ", True, np.zeros((0,), object)))
    case("string_split_not_vector", split(" ", True, [["a b"]]))
    case("string_split_delimiter_not_scalar", split([" "], True))


def ngram_cases():
    data = ["a", "b", "c", "d", "e", "f"]

    def ngrams(splits, widths, sep=" ", left="LP", right="RP", pad=0,
               preserve=False, values=data, sdtype=np.int64):
        def build():
            x, xv = strings(values)
            s, sv = any_shape(np.array(splits, sdtype), name="splits")
            out = RAW.StringNGrams(data=x, data_splits=s, separator=sep,
                                   ngram_widths=widths, left_pad=left,
                                   right_pad=right, pad_width=pad,
                                   preserve_short_sequences=preserve)
            return list(out), {x: xv, s: sv}
        return build
    case("ngrams_bigrams", ngrams([0, 4, 6], [2]))
    case("ngrams_uni_bi_tri", ngrams([0, 4, 6], [1, 2, 3], sep="|"))
    case("ngrams_int32_splits", ngrams([0, 1, 6], [2], sdtype=np.int32))
    case("ngrams_pad_1", ngrams([0, 4, 6], [2, 3], pad=1))
    case("ngrams_pad_dynamic", ngrams([0, 4, 6], [3], pad=-1))
    case("ngrams_pad_wider_than_width", ngrams([0, 2, 6], [2], pad=5))
    case("ngrams_short_dropped", ngrams([0, 1, 3, 6], [3]))
    case("ngrams_preserve_short", ngrams([0, 1, 3, 6], [3], preserve=True))
    case("ngrams_preserve_short_padded", ngrams([0, 1, 3, 6], [5], pad=1,
                                                preserve=True))
    case("ngrams_preserve_short_empty_row", ngrams([0, 0, 2, 6], [4],
                                                   preserve=True))
    case("ngrams_preserve_short_negative_pad",
         ngrams([0, 1, 6], [3], pad=-1, preserve=True, sep="_"))
    case("ngrams_empty_separator_pads", ngrams([0, 3, 6], [4], sep="", pad=2))
    case("ngrams_empty_data", ngrams([0, 0], [2], values=np.zeros((0,), object)))
    case("ngrams_no_splits", ngrams(np.zeros((0,), np.int64), [2]))
    case("ngrams_no_widths", ngrams([0, 4, 6], []))
    case("ngrams_width_zero", ngrams([0, 4, 6], [0]))
    case("ngrams_bad_first_split", ngrams([1, 4, 6], [2]))
    case("ngrams_decreasing_split", ngrams([0, 4, 3, 6], [2]))
    case("ngrams_split_beyond_data", ngrams([0, 4, 7], [2]))
    case("ngrams_last_split_short", ngrams([0, 4, 5], [2]))


def segment_join_cases():
    def join(values, ids, num, sep=",", idtype=np.int32, ndtype=np.int32):
        def build():
            x, xv = strings(values)
            i, iv = any_shape(np.array(ids, idtype), name="ids")
            n, nv = any_shape(np.array(num, ndtype), name="num")
            return (RAW.UnsortedSegmentJoin(inputs=x, segment_ids=i,
                                            num_segments=n, separator=sep),
                    {x: xv, i: iv, n: nv})
        return build
    words = ["this", "is", "a", "test", "", "x"]
    case("segment_join_1d", join(words, [0, 1, 0, 2, 0, 2], 4))
    case("segment_join_empty_pieces", join(words, [1, 1, 1, 1, 1, 1], 2,
                                           sep="-"))
    case("segment_join_int64", join(words, [3, 2, 1, 0, 1, 2], 4,
                                    idtype=np.int64, ndtype=np.int64))
    matrix = [["a", "b", "c"], ["d", "e", "f"], ["g", "h", "i"]]
    case("segment_join_2d_rows", join(matrix, [1, 0, 1], 2, sep=":"))
    case("segment_join_2d_ids", join(matrix, [[0, 1, 0], [1, 1, 0], [2, 0, 2]],
                                     3))
    case("segment_join_zero_segments", join(np.zeros((0,), object),
                                            np.zeros((0,), np.int32), 0))
    case("segment_join_id_out_of_range", join(words, [0, 1, 0, 4, 0, 2], 4))
    case("segment_join_negative_id", join(words, [0, 1, -1, 2, 0, 2], 4))
    case("segment_join_scalar_ids", join(words, 0, 4))
    case("segment_join_ids_rank_too_big", join(["a", "b"], [[0, 1]], 2))
    case("segment_join_dim_mismatch", join(words, [0, 1, 0], 4))
    case("segment_join_empty_num", join(words, [0, 1, 0, 2, 0, 2],
                                        np.zeros((0,), np.int32)))


def fingerprint_cases():
    def fp(value, method="farmhash64", name=None):
        def build():
            if np.asarray(value).dtype == object:
                x, xv = strings(value)
            else:
                x, xv = any_shape(value)
            m, mv = strings(method, name="m")
            return RAW.Fingerprint(data=x, method=m), {x: xv, m: mv}
        return build
    words = ["", "a", "hello", "a somewhat longer string of 33 by",
             "x" * 70, "ünïcödé"]
    case("fingerprint_strings", fp(np.array(words, object)))
    case("fingerprint_string_rows", fp(np.array([words[:3], words[3:]],
                                                object)))
    case("fingerprint_string_single_column", fp(np.array([["a"], ["bc"]],
                                                         object)))
    case("fingerprint_int32", fp(np.arange(12, dtype=np.int32).reshape(3, 4)))
    case("fingerprint_int64", fp(np.arange(-3, 3, dtype=np.int64)))
    case("fingerprint_float", fp(np.linspace(-1, 1, 10, dtype=np.float32)
                                 .reshape(2, 5)))
    case("fingerprint_uint8_3d", fp(np.arange(24, dtype=np.uint8)
                                    .reshape(2, 3, 4)))
    case("fingerprint_bool", fp(np.array([[True, False], [False, False]])))
    case("fingerprint_double", fp(np.array([0.5, -0.0, 1e300])))
    case("fingerprint_no_rows", fp(np.zeros((0, 3), np.float32)))
    case("fingerprint_empty_rows", fp(np.zeros((2, 0), np.int32)))
    case("fingerprint_scalar", fp(np.array(3, np.int32)))
    case("fingerprint_bad_method", fp(np.arange(3, dtype=np.int32), "md5"))


def serialize_cases():
    values = {
        "float": np.array([[1.5, -2.0], [0.0, 3.25]], np.float32),
        "double": np.array([1e-300, 2.0], np.float64),
        "int32": np.array([1, -2, 3], np.int32),
        "int64": np.array([[7]], np.int64),
        "uint8": np.array([0, 255], np.uint8),
        "int8": np.array([-128, 5], np.int8),
        "int16": np.array([-3, 300], np.int16),
        "uint16": np.array([65535], np.uint16),
        "uint32": np.array([4000000000], np.uint32),
        "uint64": np.array([2**63 + 5], np.uint64),
        "bool": np.array([True, False, True]),
        "half": np.array([1.5, -0.25], np.float16),
        "bfloat16": np.array([1.5, -0.25], BF16),
        "complex64": np.array([1 + 2j, -3j], np.complex64),
        "complex128": np.array([0.5 - 1j], np.complex128),
        "scalar": np.array(2.5, np.float32),
        "empty": np.zeros((0, 3), np.float32),
    }
    for name, v in values.items():
        def build(v=v):
            x, xv = placeholder(v)
            s = RAW.SerializeTensor(tensor=x)
            back = RAW.ParseTensor(serialized=s, out_type=x.dtype)
            return [s, back], {x: xv}
        case(f"serialize_tensor_{name}", build)

    def strings_case():
        x, xv = strings([["a", ""], ["ünï", "d" * 40]])
        s = RAW.SerializeTensor(tensor=x)
        return [s, RAW.ParseTensor(serialized=s, out_type=tf.string)], {x: xv}
    case("serialize_tensor_string", strings_case)

    def parse(serialized, out_type):
        def build():
            s, sv = strings(serialized)
            return RAW.ParseTensor(serialized=s, out_type=out_type), {s: sv}
        return build
    proto = tf.make_tensor_proto(np.array([1, 2, 3], np.int32))
    case("parse_tensor_int32", parse(proto.SerializeToString(), tf.int32))
    case("parse_tensor_type_mismatch", parse(proto.SerializeToString(),
                                             tf.float32))
    case("parse_tensor_garbage", parse(b"\xff\xff\xff", tf.int32))
    case("parse_tensor_not_scalar", parse([proto.SerializeToString()],
                                          tf.int32))


def csv_cases():
    def csv(records, defaults, fed_defaults=False, **attrs):
        def build():
            r, rv = strings(records)
            feeds = {r: rv}
            defs = []
            for k, d in enumerate(defaults):
                if fed_defaults:
                    ph, v = any_shape(d, name=f"default_{k}")
                    feeds[ph] = v
                    defs.append(ph)
                else:
                    defs.append(tf.constant(d))
            return RAW.DecodeCSV(records=r, record_defaults=defs,
                                 **attrs), feeds
        return build
    i32 = (np.zeros((0,), np.int32),)
    every = [np.array([0], np.int32), np.array([0], np.int64),
             np.array([0.5], np.float32), np.array([0.25], np.float64),
             np.array(["dflt"], object)]
    case("csv_every_type", csv(["1,2,3.5,4.25,abc", ",,,,", "-7,9000000000,"
                                "1e3,-2.5e-3,\"q,uoted\""], every))
    case("csv_scalar_defaults", csv(["1,x", "2,"], [np.int32(5),
                                                  np.array("d", object)]))
    case("csv_matrix_records", csv([["1,2", "3,4"], ["5,", ",6"]],
                                   [np.array([-1], np.int64),
                                    np.array([-2], np.int64)]))
    case("csv_field_delim", csv(["a|b|c", "|\"x|y\"|"],
                                [np.array([""], object)] * 3, field_delim="|"))
    case("csv_quotes", csv(['"a ""quoted"" word",2', '"",3', 'plain,"4"'],
                           [np.array(["d"], object), np.array([0], np.int32)]))
    case("csv_no_quote_delim", csv(['"a",b"c'], [np.array([""], object)] * 2,
                                   use_quote_delim=False))
    case("csv_na_value", csv(["NA,1", "2,NA", "3,4"],
                             [np.array([-1], np.int32),
                              np.array([-2.0], np.float32)], na_value="NA"))
    case("csv_select_cols", csv(["a,1,b,2.5,c", "d,3,e,,f"],
                                [np.array([0], np.int32),
                                 np.array([9.0], np.float64)],
                                select_cols=[1, 3]))
    case("csv_select_cols_last", csv(["a,1,", "b,2,"],
                                     [np.array(["z"], object)] * 2,
                                     select_cols=[0, 2]))
    case("csv_crlf", csv(["1,2\r\n", "\n3,4"], [np.array([0], np.int32)] * 2))
    case("csv_empty_records", csv(np.zeros((0,), object),
                                  [np.array([0], np.int32)]))
    case("csv_float_forms", csv(["inf,-1.5E2", "nan,  7", "+3, 0x10"],
                                [np.array([0], np.float32),
                                 np.array([0], np.float64)]))
    case("csv_int_whitespace", csv([" 12,+3"], [np.array([0], np.int32),
                                                np.array([0], np.int64)]))
    case("csv_required_missing", csv(["1,", "2,3"], [i32[0], i32[0]]))
    case("csv_wrong_field_count", csv(["1,2", "1,2,3"],
                                      [np.array([0], np.int32)] * 2))
    case("csv_bad_int32", csv(["1,x"], [np.array([0], np.int32)] * 2))
    case("csv_int32_overflow", csv(["3000000000"], [np.array([0], np.int32)]))
    case("csv_bad_int64", csv(["1.5"], [np.array([0], np.int64)]))
    case("csv_bad_float", csv(["1.5.2"], [np.array([0], np.float32)]))
    case("csv_bad_double", csv(["abc"], [np.array([0], np.float64)]))
    case("csv_quote_in_unquoted", csv(['ab"c,1'], [np.array([""], object),
                                                   np.array([0], np.int32)]))
    case("csv_unescaped_quote", csv(['"a"b",1'], [np.array([""], object),
                                                  np.array([0], np.int32)]))
    case("csv_unterminated_quote", csv(['"abc'], [np.array([""], object)]))
    case("csv_two_defaults", csv(["1"], [np.array([1, 2], np.int32)],
                                 fed_defaults=True))
    case("csv_default_matrix", csv(["1"], [np.array([[1]], np.int32)],
                                   fed_defaults=True))
    case("csv_bad_delim", csv(["1"], [np.array([0], np.int32)],
                              field_delim="ab"))
    case("csv_select_cols_size", csv(["1,2"], [np.array([0], np.int32)],
                                     select_cols=[0, 1]))
    case("csv_select_cols_order", csv(["1,2"], [np.array([0], np.int32)] * 2,
                                      select_cols=[1, 0]))
    case("csv_select_cols_negative", csv(["1,2"],
                                         [np.array([0], np.int32)] * 2,
                                         select_cols=[-1, 0]))


def sparse(indices, values, shape, dtype, name):
    i, iv = any_shape(np.array(indices, np.int64).reshape(-1, len(shape)),
                      name=name + "_indices")
    if dtype is object:
        v, vv = strings(values, name=name + "_values")
    else:
        v, vv = any_shape(np.array(values, dtype), name=name + "_values")
    s, sv = any_shape(np.array(shape, np.int64), name=name + "_shape")
    return (i, v, s), {i: iv, v: vv, s: sv}


def edit_distance_cases():
    def ed(h, t, normalize, dtype=np.int64):
        def build():
            (hi, hv, hs), f1 = sparse(*h, dtype, "h")
            (ti, tv, ts), f2 = sparse(*t, dtype, "t")
            out = RAW.EditDistance(hypothesis_indices=hi, hypothesis_values=hv,
                                   hypothesis_shape=hs, truth_indices=ti,
                                   truth_values=tv, truth_shape=ts,
                                   normalize=normalize)
            return out, {**f1, **f2}
        return build
    # Rows: 0 both, 1 hypothesis only, 2 truth only, 3 neither.
    h = ([[0, 0], [0, 1], [0, 2], [1, 0], [1, 1]], [1, 2, 3, 4, 5], [4, 3])
    t = ([[0, 0], [0, 1], [2, 0], [2, 1], [2, 2]], [1, 3, 7, 8, 9], [3, 3])
    case("edit_distance_normalized", ed(h, t, True))
    case("edit_distance_raw", ed(h, t, False))
    words_h = ([[0, 0, 0], [0, 0, 1], [1, 1, 0]], ["a", "b", "c"], [2, 2, 2])
    words_t = ([[0, 0, 0], [0, 0, 1], [0, 0, 2], [1, 1, 0]],
               ["a", "x", "b", "c"], [2, 2, 3])
    case("edit_distance_strings_3d", ed(words_h, words_t, True, object))
    for dtype in (np.float32, np.int32, np.uint8, np.float16, np.bool_,
                  np.complex64):
        vals_h = np.array([1, 0, 1], dtype)
        vals_t = np.array([1, 1, 0, 1], dtype)
        case(f"edit_distance_{np.dtype(dtype).name}",
             ed(([[0, 0], [0, 1], [0, 2]], vals_h, [1, 3]),
                ([[0, 0], [0, 1], [0, 2], [0, 3]], vals_t, [1, 4]), False,
                dtype))
    case("edit_distance_float_nan_zero",
         ed(([[0, 0], [0, 1]], [np.nan, -0.0], [1, 2]),
            ([[0, 0], [0, 1]], [np.nan, 0.0], [1, 2]), False, np.float32))
    case("edit_distance_rank_1", ed(([[0]], [1], [3]), ([[0]], [1], [3]),
                                    True))
    case("edit_distance_rank_mismatch",
         ed(([[0, 0]], [1], [2, 2]), ([[0, 0, 0]], [1], [2, 2, 2]), True))
    case("edit_distance_values_count",
         ed(([[0, 0], [0, 1]], [1], [2, 2]), ([[0, 0]], [1], [2, 2]), True))
    case("edit_distance_empty_output",
         ed(([], [], [0, 2]), ([], [], [0, 2]), True))


SET_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
              object]


def set_values(values, dtype):
    if dtype is object:
        return np.array([str(v).encode() if v is not None else b""
                         for v in np.ravel(values)], object).reshape(
                             np.shape(values))
    return np.array(values, dtype)


def set_cases():
    a = [[1, 2, 2, 5], [3, 3, 3, 3], [7, 1, 4, 6]]
    b = [[2, 5, 9, 9], [0, 1, 3, 4], [8, 8, 8, 8]]

    def dense_dense(op, dtype, x=a, y=b, validate=True):
        def build():
            if dtype is object:
                p, pv = strings(set_values(x, dtype), name="a")
                q, qv = strings(set_values(y, dtype), name="b")
            else:
                p, pv = any_shape(set_values(x, dtype), name="a")
                q, qv = any_shape(set_values(y, dtype), name="b")
            out = RAW.DenseToDenseSetOperation(set1=p, set2=q,
                                               set_operation=op,
                                               validate_indices=validate)
            return list(out), {p: pv, q: qv}
        return build
    for op in ("union", "intersection", "a-b", "b-a"):
        for dtype in SET_DTYPES:
            tname = "string" if dtype is object else np.dtype(dtype).name
            case(f"set_dense_dense_{op.replace('-', '_')}_{tname}",
                 dense_dense(op, dtype))
    case("set_dense_dense_upper_case_op", dense_dense("UNION", np.int32))
    case("set_dense_dense_3d", dense_dense(
        "intersection", np.int32,
        np.arange(24).reshape(2, 3, 4) % 5, np.arange(24).reshape(2, 3, 4) % 3))
    case("set_dense_dense_empty_result", dense_dense("a-b", np.int32, a, a))
    case("set_dense_dense_negative_values", dense_dense(
        "union", np.int64, [[-5, 3], [-1, -1]], [[2, -5], [0, 9]]))
    case("set_dense_dense_bad_op", dense_dense("xor", np.int32))
    case("set_dense_dense_rank_1", dense_dense("union", np.int32, [1, 2],
                                               [3, 4]))
    case("set_dense_dense_group_mismatch", dense_dense(
        "union", np.int32, [[1, 2]], [[3, 4], [5, 6]]))
    case("set_dense_dense_last_dim_differs", dense_dense(
        "union", np.int32, [[1, 2, 3], [4, 5, 6]], [[3], [4]]))

    sp_b = ([[0, 0], [0, 1], [2, 0], [2, 1], [2, 2]], [2, 9, 1, 8, 1], [3, 3])

    def dense_sparse(op, dtype, s=sp_b, x=a, validate=True):
        def build():
            if dtype is object:
                p, pv = strings(set_values(x, dtype), name="a")
            else:
                p, pv = any_shape(set_values(x, dtype), name="a")
            (i, v, sh), feeds = sparse(s[0], set_values(s[1], dtype), s[2],
                                       dtype, "b")
            out = RAW.DenseToSparseSetOperation(
                set1=p, set2_indices=i, set2_values=v, set2_shape=sh,
                set_operation=op, validate_indices=validate)
            return list(out), {p: pv, **feeds}
        return build
    for op in ("union", "intersection", "a-b", "b-a"):
        case(f"set_dense_sparse_{op.replace('-', '_')}",
             dense_sparse(op, np.int32))
    case("set_dense_sparse_string", dense_sparse("union", object))
    case("set_dense_sparse_uint8", dense_sparse("b-a", np.uint8))
    case("set_dense_sparse_out_of_order", dense_sparse(
        "union", np.int32, ([[2, 0], [0, 0]], [1, 2], [3, 3])))
    case("set_dense_sparse_out_of_order_unvalidated", dense_sparse(
        "union", np.int32, ([[0, 1], [0, 0], [2, 0]], [1, 2, 3], [3, 3]),
        validate=False))
    case("set_dense_sparse_repeated", dense_sparse(
        "union", np.int32, ([[0, 0], [0, 0]], [1, 2], [3, 3])))
    case("set_dense_sparse_out_of_bounds", dense_sparse(
        "union", np.int32, ([[0, 0], [0, 5]], [1, 2], [3, 3])))
    case("set_dense_sparse_group_mismatch", dense_sparse(
        "union", np.int32, ([[0, 0]], [1], [2, 3])))
    case("set_dense_sparse_shape_not_vector", dense_sparse(
        "union", np.int32, ([[0, 0]], [1], [[3, 3]])))

    sp_a = ([[0, 0], [0, 1], [1, 0], [3, 0], [3, 1]], [5, 1, 4, 2, 2], [4, 5])
    sp_c = ([[0, 0], [2, 0], [2, 1], [3, 0]], [1, 7, 8, 3], [4, 2])

    def sparse_sparse(op, dtype, s1=sp_a, s2=sp_c, validate=True):
        def build():
            (i1, v1, h1), f1 = sparse(s1[0], set_values(s1[1], dtype), s1[2],
                                      dtype, "a")
            (i2, v2, h2), f2 = sparse(s2[0], set_values(s2[1], dtype), s2[2],
                                      dtype, "b")
            out = RAW.SparseToSparseSetOperation(
                set1_indices=i1, set1_values=v1, set1_shape=h1,
                set2_indices=i2, set2_values=v2, set2_shape=h2,
                set_operation=op, validate_indices=validate)
            return list(out), {**f1, **f2}
        return build
    for op in ("union", "intersection", "a-b", "b-a"):
        for dtype in (np.int64, object):
            tname = "string" if dtype is object else "int64"
            case(f"set_sparse_sparse_{op.replace('-', '_')}_{tname}",
                 sparse_sparse(op, dtype))
    case("set_sparse_sparse_int16_3d", sparse_sparse(
        "union", np.int16,
        ([[0, 0, 0], [0, 1, 0], [1, 1, 1]], [1, 2, 3], [2, 2, 2]),
        ([[0, 1, 0], [1, 0, 0]], [4, 5], [2, 2, 6])))
    case("set_sparse_sparse_empty", sparse_sparse(
        "union", np.int32, ([], [], [2, 2]), ([], [], [2, 2])))
    case("set_sparse_sparse_rank_1", sparse_sparse(
        "union", np.int32, ([[0]], [1], [2]), ([[0]], [1], [2])))
    case("set_sparse_sparse_unvalidated_out_of_bounds", sparse_sparse(
        "union", np.int32, ([[0, 7]], [1], [2, 2]), ([[0, 0]], [1], [2, 2]),
        validate=False))

    def set_size(s, dtype, validate=True):
        def build():
            (i, v, sh), feeds = sparse(s[0], set_values(s[1], dtype), s[2],
                                       dtype, "s")
            return RAW.SetSize(set_indices=i, set_values=v, set_shape=sh,
                               validate_indices=validate), feeds
        return build
    dup = ([[0, 0], [0, 1], [0, 2], [2, 0], [2, 3]], [1, 1, 2, 5, 6], [3, 4])
    for dtype in SET_DTYPES:
        tname = "string" if dtype is object else np.dtype(dtype).name
        case(f"set_size_{tname}", set_size(dup, dtype))
    case("set_size_3d", set_size(
        ([[0, 0, 0], [0, 0, 1], [1, 2, 0]], [1, 2, 3], [2, 3, 2]), np.int32))
    case("set_size_empty", set_size(([], [], [2, 3]), np.int32))
    case("set_size_unordered", set_size(
        ([[2, 0], [0, 0]], [1, 2], [3, 4]), np.int32))
    case("set_size_unordered_unvalidated", set_size(
        ([[2, 0], [0, 0], [0, 1]], [1, 2, 3], [3, 4]), np.int32,
        validate=False))
    case("set_size_rank_1", set_size(([[0]], [1], [3]), np.int32))
    case("set_size_values_count", set_size(([[0, 0]], [1, 2], [3, 3]),
                                           np.int32))


def list_diff_cases():
    def diff(x, y, out_idx=tf.int32):
        def build():
            if np.asarray(x).dtype == object:
                p, pv = strings(x, name="x")
                q, qv = strings(y, name="y")
            else:
                p, pv = any_shape(x, name="x")
                q, qv = any_shape(y, name="y")
            out = RAW.ListDiff(x=p, y=q, out_idx=out_idx)
            return list(out), {p: pv, q: qv}
        return build
    for dtype in (np.int32, np.int64, np.float32, np.float64, np.uint8,
                  np.int8, np.int16, np.uint16, np.uint32, np.uint64,
                  np.float16, BF16):
        tname = "bfloat16" if dtype is BF16 else np.dtype(dtype).name
        case(f"list_diff_{tname}", diff(np.array([1, 2, 3, 4, 2, 6], dtype),
                                        np.array([2, 6, 9], dtype)))
    case("list_diff_string", diff(np.array(["a", "b", "c", "b"], object),
                                  np.array(["b", "z"], object)))
    case("list_diff_int64_index", diff(np.array([5, 6, 7], np.int32),
                                       np.array([6], np.int32), tf.int64))
    case("list_diff_float_specials", diff(
        np.array([np.nan, 0.0, -0.0, 1.0], np.float32),
        np.array([np.nan, 0.0], np.float32)))
    case("list_diff_empty", diff(np.zeros((0,), np.int32),
                                 np.array([1], np.int32)))
    case("list_diff_everything_removed", diff(np.array([1, 1], np.int32),
                                              np.array([1], np.int32)))
    case("list_diff_x_not_vector", diff(np.array([[1]], np.int32),
                                        np.array([1], np.int32)))
    case("list_diff_y_not_vector", diff(np.array([1], np.int32),
                                        np.array(1, np.int32)))


# Well-formed and malformed input in each encoding TensorFlow reads.
UTF8_SAMPLES = [
    "héllo wörld €𝄞".encode(),
    b"",
    b"ab\x01\x1fc\n",                 # control characters
    b"\xc3",                           # truncated 2-byte sequence
    b"a\xe2\x82b",                     # truncated 3-byte sequence mid-string
    b"\xe2\x82",                       # truncated at the end
    b"\xf0\x9d\x84",                   # truncated 4-byte at the end
    b"\x80\xbfx",                      # lone continuation bytes
    b"\xc0\x80\xc1\xbf",               # overlong 2-byte forms
    b"\xe0\x80\x80\xe0\xa0\x80",       # overlong 3-byte, then U+0800
    b"\xed\xa0\x80\xed\x9f\xbf",       # a surrogate, then U+D7FF
    b"\xf4\x90\x80\x80\xf4\x8f\xbf\xbf", # above U+10FFFF, then U+10FFFF
    b"\xf5\xff\xfe",                   # never-valid bytes
    b"\xf0\x80\x80\x80z",               # overlong 4-byte
    b"\xef\xbf\xbe\xef\xb7\x90",       # noncharacters U+FFFE, U+FDD0
]
UTF16_SAMPLES = [
    "h€𝄞".encode("utf-16-be"),
    b"\x00a\xd8\x34",                  # a lead surrogate at the end
    b"\xdc\x00\x00b",                  # a lone trail
    b"\xd8\x34\x00c\x00d",              # a lead followed by a non-trail
    b"\x00a\x00",                      # an odd last byte
    b"\xd8\x34\xdd",                   # a lead and one more byte
    b"",
]
UTF32_SAMPLES = [
    "h€𝄞".encode("utf-32-be"),
    b"\x00\x11\x00\x00\x00\x00\x00a",  # above U+10FFFF
    b"\x00\x00\xd8\x00\x00\x00\x00b",  # a surrogate
    b"\x00\x00\x00a\x00\x00",          # 2 trailing bytes
    b"\x80\x00\x00\x00",               # negative as int32
]
SAMPLES = {"UTF-8": UTF8_SAMPLES, "UTF-16-BE": UTF16_SAMPLES,
           "UTF-32-BE": UTF32_SAMPLES}


def unicode_cases():
    def decode(samples, encoding, offsets=False, shape=None, **attrs):
        def build():
            x, xv = strings(samples)
            if offsets:
                out = RAW.UnicodeDecodeWithOffsets(
                    input=x, input_encoding=encoding, **attrs)
            else:
                out = RAW.UnicodeDecode(input=x, input_encoding=encoding,
                                        **attrs)
            return list(out), {x: xv}
        return build
    for enc, samples in SAMPLES.items():
        tag = enc.replace("-", "").lower()
        for errors in ("replace", "ignore", "strict"):
            case(f"unicode_decode_{tag}_{errors}",
                 decode(samples, enc, errors=errors))
            case(f"unicode_decode_offsets_{tag}_{errors}",
                 decode(samples, enc, True, errors=errors))
        # Each sample alone under strict: which ones are errors.
        if enc == "UTF-8":
            for k, sample in enumerate(samples):
                case(f"unicode_decode_{tag}_strict_sample_{k}",
                     decode([sample], enc, errors="strict"))
    case("unicode_decode_replacement_char",
         decode(UTF8_SAMPLES, "UTF-8", True, replacement_char=ord("?")))
    case("unicode_decode_control_characters",
         decode(UTF8_SAMPLES, "UTF-8", True, replace_control_characters=True))
    case("unicode_decode_control_characters_ignore",
         decode(UTF8_SAMPLES, "UTF-8", True, replace_control_characters=True,
                errors="ignore"))
    case("unicode_decode_control_characters_strict",
         decode([b"a\x01b"], "UTF-8", replace_control_characters=True,
                errors="strict"))
    # (Not UnicodeDecodeWithOffsets: TensorFlow's kernel for int32 splits
    # aborts writing its int64 offsets.)
    case("unicode_decode_int32_splits",
         decode([[b"ab", "€".encode()], [b"", b"\xff"]], "UTF-8",
                Tsplits=tf.int32))
    case("unicode_decode_encoding_alias", decode([b"ab"], "utf8"))
    # Other encodings ICU has converters for (dfx reads them through ICU):
    # a byte order mark read once per step, unassigned and illegal bytes.
    other = {
        "UTF-16": ["hé".encode("utf-16"), "x€".encode("utf-16-le"),
                   b"\xfe\xff\x00a", b"\x00"],
        "UTF-16LE": ["h€𝄞".encode("utf-16-le"), b"\x00\xd8a\x00", b"a"],
        "ISO-8859-1": [b"caf\xe9", b"\x00\xff"],
        "US-ASCII": [b"ab\x80c", b"\xff"],
        "windows-1252": [b"\x80\x81\x9f", b"a\x8d"],
        "Shift_JIS": ["日本".encode("shift_jis"), b"\x81", b"\xa0\x82"],
    }
    for enc, samples in other.items():
        tag = enc.replace("-", "").replace("_", "").lower()
        for errors in ("replace", "ignore", "strict"):
            case(f"unicode_decode_icu_{tag}_{errors}",
                 decode(samples, enc, True, errors=errors))
    case("unicode_decode_unknown_encoding",
         decode([b"ab"], "no-such-encoding"))
    case("unicode_decode_bad_replacement_char",
         decode([b"ab"], "UTF-8", replacement_char=0x110000))

    def encode(values, splits, encoding, sdtype=np.int64, **attrs):
        def build():
            v, vv = any_shape(np.array(values, np.int32), name="values")
            s, sv = any_shape(np.array(splits, sdtype), name="splits")
            return (RAW.UnicodeEncode(input_values=v, input_splits=s,
                                      output_encoding=encoding, **attrs),
                    {v: vv, s: sv})
        return build
    cps = [104, 0x20AC, 0x1D11E, 0, 0xD800, 0xDC00, 0xD83D, 0xDE00, 0xFFFE,
           0x110000, -1, 65]
    splits = [0, 3, 4, 6, 8, 12]
    for enc in SAMPLES:
        tag = enc.replace("-", "").lower()
        for errors in ("replace", "ignore", "strict"):
            case(f"unicode_encode_{tag}_{errors}",
                 encode(cps, splits, enc, errors=errors))
        case(f"unicode_encode_{tag}_valid",
             encode(cps[:9], [0, 3, 9], enc, errors="strict"))
    case("unicode_encode_replacement_char",
         encode(cps, splits, "UTF-8", replacement_char=ord("?")))
    case("unicode_encode_int32_splits",
         encode([97, 98], [0, 1, 1, 2], "UTF-8", sdtype=np.int32))
    case("unicode_encode_empty", encode([], [0], "UTF-8"))
    case("unicode_encode_no_splits", encode([], np.zeros((0,), np.int64),
                                            "UTF-8"))
    case("unicode_encode_first_split", encode([97, 98], [1, 2], "UTF-8"))
    case("unicode_encode_last_split", encode([97, 98], [0, 1], "UTF-8"))
    case("unicode_encode_descending_splits", encode([97, 98], [0, 2, 1, 2],
                                                    "UTF-8"))

    def transcode(samples, src, dst, **attrs):
        def build():
            x, xv = strings(samples)
            return (RAW.UnicodeTranscode(input=x, input_encoding=src,
                                         output_encoding=dst, **attrs),
                    {x: xv})
        return build
    for src, samples in SAMPLES.items():
        for dst in SAMPLES:
            for errors in ("replace", "ignore", "strict"):
                case(f"unicode_transcode_{src.replace('-', '').lower()}_"
                     f"{dst.replace('-', '').lower()}_{errors}",
                     transcode(samples, src, dst, errors=errors))
    case("unicode_transcode_control_characters",
         transcode(UTF8_SAMPLES[:3], "UTF-8", "UTF-16-BE",
                   replace_control_characters=True, replacement_char=0x2A))
    case("unicode_transcode_control_characters_strict",
         transcode([b"a\x01"], "UTF-8", "UTF-8",
                   replace_control_characters=True, errors="strict"))
    case("unicode_transcode_valid_strict",
         transcode([["ab€".encode(), b""]], "UTF-8", "UTF-32-BE",
                   errors="strict"))
    def script(values):
        def build():
            x, xv = any_shape(np.array(values, np.int32))
            return RAW.UnicodeScript(input=x), {x: xv}
        return build
    # Latin, Greek, Cyrillic, Arabic, Hebrew, Devanagari, Han, Hiragana,
    # Katakana, Hangul, Thai, common punctuation and digits, inherited
    # combining marks, unassigned, private use, out of range.
    case("unicode_script", script(
        [[ord("a"), 0x3B1, 0x416, 0x628, 0x5D0, 0x915, 0x4E2D, 0x3042],
         [0x30A2, 0xAC00, 0xE01, ord("!"), ord("7"), 0x301, 0x378, 0xE000],
         [0x10FFFF, 0x110000, -1, 0x1F600, 0x20, 0x10A0, 0x1200, 0x13A0]]))
    case("unicode_script_empty", script(np.zeros((0,), np.int32)))
    case("unicode_transcode_icu_windows1252",
         transcode([b"\x80 \x81 \xe9", b"ok"], "windows-1252", "UTF-8"))
    case("unicode_transcode_icu_utf16_strict",
         transcode(["hé".encode("utf-16"), b"\x00\xd8"], "UTF-16",
                   "UTF-32-BE", errors="strict"))
    case("unicode_transcode_surrogate_replacement",
         transcode([b"\xff", b"a"], "UTF-8", "UTF-8", replacement_char=0xD800))


def main():
    regex_cases()
    unicode_cases()
    split_cases()
    ngram_cases()
    segment_join_cases()
    fingerprint_cases()
    serialize_cases()
    csv_cases()
    edit_distance_cases()
    set_cases()
    list_diff_cases()
    golden_lib.write_op_defs(FAMILY, OP_NAMES)


if __name__ == "__main__":
    main()

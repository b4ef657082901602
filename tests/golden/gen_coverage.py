"""Golden cases of the coverage family: op types TensorFlow 2.21 has CPU
kernels for that real graphs use and dfx lacked (found with
tools/op_coverage): the v1 forms older and tf.compat.v1 graphs still hold
(Concat, InTopK, Reverse, SegmentMax/Min/Prod, SpaceToBatch,
BatchToSpace), ReverseSequence (bidirectional RNNs), LowerBound and
UpperBound (tf.searchsorted), UnravelIndex, Asinh, Acosh, Atanh, and Add
of strings.

Run with the TensorFlow virtualenv: $(tools/tf_env) tests/golden/gen_coverage.py

Besides the cases the generator writes the ops' signatures
(tf_op_defs.pbtxt, tf_cpu_kernels.txt), which
tests/kernels/coverage_ops_test.cc compares with dfx's registry.
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import golden_lib  # noqa: E402
from golden_lib import placeholder, rng, tf  # noqa: E402

FAMILY = "coverage"
RAW = tf.raw_ops
BF16 = tf.bfloat16.as_numpy_dtype

OP_NAMES = ["Concat", "InTopK", "Reverse", "SegmentMax",
            "SegmentMin", "SegmentProd", "SpaceToBatch", "BatchToSpace",
            "ReverseSequence", "LowerBound", "UpperBound", "UnravelIndex",
            "Asinh", "Acosh", "Atanh"]


def case(name, build, **kw):
    golden_lib.case(FAMILY, name, build, **kw)


def inverse_hyperbolic_cases():
    domain = {"Asinh": (-6.0, 6.0), "Acosh": (1.0, 8.0), "Atanh": (-0.99, 0.99)}
    for op, (lo, hi) in domain.items():
        for dtype in (np.float32, np.float64, np.float16, BF16):
            v = rng(3).uniform(lo, hi, size=(3, 5)).astype(np.float32)
            # The domain's edges and a value outside it (NaN out).
            v.flat[0] = lo
            v.flat[1] = 0.5 if op == "Acosh" else 2.0
            v = v.astype(dtype)
            tname = np.dtype(dtype).name if dtype is not BF16 else "bfloat16"
            tol = {np.float16: dict(rtol=1e-3, atol=1e-3),
                   BF16: dict(rtol=1e-2, atol=1e-2)}.get(dtype, {})

            def build(op=op, v=v):
                x, fv = placeholder(v)
                return getattr(RAW, op)(x=x), {x: fv}
            case(f"{op.lower()}_{tname}", build, **tol)
        for dtype in (np.complex64, np.complex128):
            re = rng(6).uniform(-3, 3, size=(2, 4))
            im = rng(7).uniform(-3, 3, size=(2, 4))
            v = (re + 1j * im).astype(dtype)

            def build(op=op, v=v):
                x, fv = placeholder(v)
                return getattr(RAW, op)(x=x), {x: fv}
            case(f"{op.lower()}_{np.dtype(dtype).name}", build)


def v1_cases():
    data = rng(1).uniform(-4, 4, size=(3, 6)).astype(np.float32)
    data[0, 2] = data[0, 4]  # a tie

    def concat(dim):
        def build():
            a, av = placeholder(data[:, :2])
            b, bv = placeholder(data[:, 2:], name="b")
            return RAW.Concat(concat_dim=dim, values=[a, b]), {a: av, b: bv}
        return build
    case("concat_v1_dim1", concat(1))
    case("concat_v1_dim_negative", concat(-1))

    def concat_strings():
        a = tf.constant([["a", "b"]])
        b = tf.constant([["c", "d"]])
        return RAW.Concat(concat_dim=0, values=[a, b]), None
    case("concat_v1_strings", concat_strings)

    def concat_bad():
        a, av = placeholder(np.zeros((2, 3), np.float32), shape=(None, None))
        b, bv = placeholder(np.zeros((3, 3), np.float32), name="b",
                            shape=(None, None))
        return RAW.Concat(concat_dim=1, values=[a, b]), {a: av, b: bv}
    case("concat_v1_mismatch", concat_bad)

    def in_top_k(k, tdtype):
        def build():
            p, pv = placeholder(data)
            t, tv = placeholder(np.array([2, 0, 5], tdtype), name="t")
            return RAW.InTopK(predictions=p, targets=t, k=k), {p: pv, t: tv}
        return build
    case("in_top_k_v1_k1", in_top_k(1, np.int32))
    case("in_top_k_v1_k3_int64", in_top_k(3, np.int64))

    def in_top_k_out_of_range():
        p, pv = placeholder(data)
        t, tv = placeholder(np.array([2, 9, -1], np.int32), name="t")
        return RAW.InTopK(predictions=p, targets=t, k=2), {p: pv, t: tv}
    case("in_top_k_v1_target_out_of_range", in_top_k_out_of_range)

    cube = np.arange(24, dtype=np.float32).reshape(2, 3, 4)

    def reverse(dims, value=cube):
        def build():
            x, v = placeholder(value)
            d, dv = placeholder(np.array(dims, bool), name="dims", shape=(None,))
            return RAW.Reverse(tensor=x, dims=d), {x: v, d: dv}
        return build
    case("reverse_v1_first_last", reverse([True, False, True]))
    case("reverse_v1_none", reverse([False, False, False]))
    case("reverse_v1_int64", reverse([False, True],
                                     np.arange(6, dtype=np.int64).reshape(2, 3)))
    case("reverse_v1_dims_length", reverse([True, False]))

    def reverse_strings():
        x = tf.constant([["a", "b", "c"], ["d", "e", "f"]])
        return RAW.Reverse(tensor=x, dims=[False, True]), None
    case("reverse_v1_strings", reverse_strings)


def segment_cases():
    data = rng(2).uniform(-5, 5, size=(6, 3)).astype(np.float32)
    ids = np.array([0, 0, 2, 2, 2, 5], np.int32)  # 1, 3 and 4 are empty

    for op in ("SegmentMax", "SegmentMin", "SegmentProd"):
        for dtype, tname in ((np.float32, "float32"), (np.float64, "float64"),
                             (np.int32, "int32"), (np.float16, "float16")):
            def build(op=op, dtype=dtype):
                x, v = placeholder((data * 2).round().astype(dtype)
                                   if dtype == np.int32 else data.astype(dtype))
                s, sv = placeholder(ids, name="ids")
                return getattr(RAW, op)(data=x, segment_ids=s), {x: v, s: sv}
            case(f"{op.lower()}_{tname}", build)

        def not_sorted(op=op):
            x, v = placeholder(data)
            s, sv = placeholder(np.array([0, 2, 1, 3, 3, 4], np.int64),
                                name="ids")
            return getattr(RAW, op)(data=x, segment_ids=s), {x: v, s: sv}
        case(f"{op.lower()}_not_increasing", not_sorted)

    def prod_complex():
        x = tf.complex(tf.constant(data[:, :2]), tf.constant(data[:, 1:]))
        return RAW.SegmentProd(data=x, segment_ids=tf.constant(ids)), None
    case("segmentprod_complex64", prod_complex)


def space_batch_cases():
    x = np.arange(2 * 4 * 6 * 3, dtype=np.float32).reshape(2, 4, 6, 3)

    def to_batch(pads, block=2):
        def build():
            i, v = placeholder(x)
            p, pv = placeholder(np.array(pads, np.int32), name="pads")
            return RAW.SpaceToBatch(input=i, paddings=p, block_size=block), \
                {i: v, p: pv}
        return build
    case("space_to_batch_v1", to_batch([[0, 0], [0, 0]]))
    case("space_to_batch_v1_padded", to_batch([[1, 1], [0, 2]]))
    case("space_to_batch_v1_block3", to_batch([[1, 1], [0, 0]], 3))
    case("space_to_batch_v1_not_divisible", to_batch([[1, 0], [0, 0]]))

    y = np.arange(8 * 2 * 3 * 2, dtype=np.int32).reshape(8, 2, 3, 2)

    def to_space(crops):
        def build():
            i, v = placeholder(y)
            c, cv = placeholder(np.array(crops, np.int64), name="crops")
            return RAW.BatchToSpace(input=i, crops=c, block_size=2), \
                {i: v, c: cv}
        return build
    case("batch_to_space_v1", to_space([[0, 0], [0, 0]]))
    case("batch_to_space_v1_cropped", to_space([[1, 0], [1, 1]]))


def reverse_sequence_cases():
    x = np.arange(3 * 5 * 2, dtype=np.float32).reshape(3, 5, 2)

    def build_rs(lens, seq_dim, batch_dim, value=x, ltype=np.int64):
        def build():
            i, v = placeholder(value)
            n, nv = placeholder(np.array(lens, ltype), name="lens",
                                shape=(None,))
            return RAW.ReverseSequence(input=i, seq_lengths=n,
                                       seq_dim=seq_dim,
                                       batch_dim=batch_dim), {i: v, n: nv}
        return build
    case("reverse_sequence_seq1_batch0", build_rs([5, 2, 0], 1, 0))
    case("reverse_sequence_int32_lengths",
         build_rs([1, 3, 4], 1, 0, ltype=np.int32))
    case("reverse_sequence_seq0_batch2", build_rs([3, 1], 0, 2))
    case("reverse_sequence_batch_after_seq",
         build_rs([2, 5], 1, 2, value=np.transpose(x, (0, 1, 2))))
    case("reverse_sequence_too_long", build_rs([6, 2, 0], 1, 0))
    case("reverse_sequence_negative", build_rs([1, -1, 0], 1, 0))
    case("reverse_sequence_wrong_count", build_rs([1, 2], 1, 0))

    def strings():
        s = tf.constant([["a", "b", "c"], ["d", "e", "f"]])
        return RAW.ReverseSequence(input=s, seq_lengths=tf.constant([2, 3]),
                                   seq_dim=1, batch_dim=0), None
    case("reverse_sequence_strings", strings)


def search_cases():
    sorted_rows = np.sort(rng(4).integers(-5, 6, size=(3, 7)), axis=1)
    values = rng(5).integers(-7, 8, size=(3, 4))
    values[0, 0] = sorted_rows[0, 3]  # a value present: ties
    for op in ("LowerBound", "UpperBound"):
        for dtype, out in ((np.float32, tf.int32), (np.int32, tf.int64),
                           (np.float64, tf.int32), (np.uint8, tf.int32)):
            def build(op=op, dtype=dtype, out=out):
                if dtype == np.uint8:
                    s = (sorted_rows + 5).astype(dtype)
                    v = (np.abs(values)).astype(dtype)
                else:
                    s, v = sorted_rows.astype(dtype), values.astype(dtype)
                a, av = placeholder(s)
                b, bv = placeholder(v, name="values")
                return getattr(RAW, op)(sorted_inputs=a, values=b,
                                        out_type=out), {a: av, b: bv}
            case(f"{op.lower()}_{np.dtype(dtype).name}", build)

    def bad_batch():
        a, av = placeholder(sorted_rows.astype(np.float32), shape=(None, 7))
        b, bv = placeholder(values[:2].astype(np.float32), name="values",
                            shape=(None, 4))
        return RAW.LowerBound(sorted_inputs=a, values=b), {a: av, b: bv}
    case("lowerbound_batch_mismatch", bad_batch)


def unravel_cases():
    def build_u(indices, dims, dtype=np.int32):
        def build():
            i, iv = placeholder(np.array(indices, dtype))
            d, dv = placeholder(np.array(dims, dtype), name="dims")
            return RAW.UnravelIndex(indices=i, dims=d), {i: iv, d: dv}
        return build
    case("unravel_index_vector", build_u([0, 5, 7, 23], [2, 3, 4]))
    case("unravel_index_scalar_int64", build_u(17, [3, 6], np.int64))
    case("unravel_index_empty", build_u(np.zeros(0), [4, 2]))
    case("unravel_index_out_of_bounds", build_u([1, 24], [2, 3, 4]))
    case("unravel_index_negative", build_u([-1], [2, 3]))
    case("unravel_index_zero_dim", build_u([0], [2, 0]))


def string_add_cases():
    """Add of strings: `prefix + tensor` in tf.strings code."""
    def build_add(a, b, shape_b=None):
        def build():
            x, xv = placeholder(np.array(a, dtype=object).astype(bytes))
            y, yv = placeholder(np.array(b, dtype=object).astype(bytes),
                                name="b", shape=shape_b)
            return RAW.Add(x=x, y=y), {x: xv, y: yv}
        return build
    case("add_strings", build_add([["a", "b"], ["c", ""]],
                                  [["x", "y"], ["", "z"]]))
    case("add_strings_broadcast", build_add([["pre-"], ["other/"]],
                                            ["1", "2", "3"]))
    case("add_strings_incompatible", build_add(["a", "b"], ["x", "y", "z"],
                                               shape_b=(None,)))


def main():
    string_add_cases()
    inverse_hyperbolic_cases()
    v1_cases()
    segment_cases()
    space_batch_cases()
    reverse_sequence_cases()
    search_cases()
    unravel_cases()
    golden_lib.write_op_defs(FAMILY, OP_NAMES)


if __name__ == "__main__":
    main()

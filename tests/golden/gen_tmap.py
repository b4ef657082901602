"""Golden cases of the tmap family: TensorFlow's TensorMap ops
(EmptyTensorMap, TensorMapInsert, TensorMapLookup, TensorMapErase,
TensorMapHasKey, TensorMapSize, TensorMapStackKeys) and the ragged ops
RaggedGather (tf.gather on a RaggedTensor), RaggedTensorToVariant,
RaggedTensorFromVariant and RaggedTensorToVariantGradient (how a ragged
tensor rides through tf.data and tf.map_fn), as TensorFlow 2.21 runs them.

    $(tools/tf_env) tests/golden/gen_tmap.py

Besides the cases the generator writes the ops' signatures
(tf_op_defs.pbtxt, tf_cpu_kernels.txt), which tests/kernels/tmap_test.cc
compares with dfx's registry, and two variant tensors as TensorFlow
serializes them (tf_ragged_variant.pb, tf_tensor_map.pb), which the same
test decodes and re-encodes byte for byte.

The harness fetches plain tensors, so map cases end in Lookup, Size,
HasKey or StackKeys and ragged variants end in RaggedTensorFromVariant.
TensorMapStackKeys returns the keys in the map's hash order, which neither
TensorFlow nor dfx specifies: cases sort them, or stack a single key.

Left out, because TensorFlow crashes or answers garbage where dfx answers
InvalidArgument (tests/kernels/tmap_test.cc): RaggedGather with an
OUTPUT_RAGGED_RANK other than rank(indices) - 1 + PARAMS_RAGGED_RANK
(TensorFlow aborts on a dtype check); RaggedTensorToVariantGradient whose
pieces do not fill dense_values_shape (TensorFlow returns uninitialized
memory); RaggedTensorFromVariant of a variant tensor of rank 3 or more
(TensorFlow's uniform outer splits have the wrong length); TensorMapLookup
with a value_dtype other than the stored value's (TensorFlow hands the
mistyped tensor on).
"""

import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import golden_lib  # noqa: E402
from golden_lib import tf, tf1  # noqa: E402

FAMILY = "tmap"
RAW = tf.raw_ops

OP_NAMES = ["EmptyTensorMap", "TensorMapInsert", "TensorMapLookup",
            "TensorMapErase", "TensorMapHasKey", "TensorMapSize",
            "TensorMapStackKeys", "RaggedGather", "RaggedTensorToVariant",
            "RaggedTensorFromVariant", "RaggedTensorToVariantGradient"]

I32, I64, F32 = np.int32, np.int64, np.float32


def case(name, build, **kw):
    """Scalars come back as vectors of one element."""
    def wrapped():
        fetches, fd = build()
        if not isinstance(fetches, (list, tuple)):
            fetches = [fetches]
        return [golden_lib.flat(t) for t in fetches], fd
    golden_lib.case(FAMILY, name, wrapped, **kw)


def feed(value, dtype=None):
    """A placeholder of unknown shape: bad values reach the kernel."""
    value = np.asarray(value, dtype=dtype)
    if value.dtype.kind == "U":
        value = value.astype(object)
    ph = tf1.placeholder(tf.as_dtype(value.dtype) if value.dtype != object
                         else tf.string, shape=None)
    return ph, value


def vals(dtype, n, shape=()):
    """n values of `dtype` (a numpy dtype or "string"), each of `shape`."""
    count = n * int(np.prod(shape, dtype=np.int64))
    if dtype == "string":
        flat = np.array([b"s%d" % i for i in range(count)], dtype=object)
    elif np.dtype(dtype) == np.bool_:
        flat = (np.arange(count) % 3 == 0)
    elif np.dtype(dtype).kind == "c":
        flat = (np.arange(count) + 1j * np.arange(count, 0, -1)).astype(dtype)
    else:
        flat = (np.arange(count) % 100 + 1).astype(dtype)
    return flat.reshape((n,) + tuple(shape))


DTYPES = [np.float32, np.float64, np.int32, np.uint8, np.int16, np.int8,
          "string", np.complex64, np.int64, np.bool_, tf.bfloat16.as_numpy_dtype,
          np.uint16, np.complex128, np.float16, np.uint32, np.uint64]


def dname(d):
    return "string" if d == "string" else tf.as_dtype(d).name


def tfdt(d):
    return tf.string if d == "string" else tf.as_dtype(d)


# --------------------------------------------------------------------------
# TensorMap


def insert_all(m, pairs):
    for k, v in pairs:
        m = RAW.TensorMapInsert(input_handle=m, key=k, value=v)
    return m


def lookup(m, k, dtype):
    return RAW.TensorMapLookup(input_handle=m, key=k, value_dtype=dtype)


def map_cases():
    # Each value dtype, under int32, int64 and string keys.
    for d in DTYPES:
        def build(d=d):
            v, fd = feed(vals(d, 2, (3,)))
            m = insert_all(RAW.EmptyTensorMap(),
                           [(tf.constant(1), v[0]), (tf.constant(7), v[1])])
            return [lookup(m, tf.constant(7), tfdt(d)),
                    lookup(m, tf.constant(1), tfdt(d)),
                    RAW.TensorMapSize(input_handle=m)], {v: fd}
        case("map_value_" + dname(d), build)
    for kd in [np.int64, "string", np.float32, np.uint8, np.bool_,
               np.float64, np.int16]:
        def build(kd=kd):
            keys, kv = feed(vals(kd, 2) if kd != np.bool_ else
                            np.array([True, False]))
            m = insert_all(RAW.EmptyTensorMap(),
                           [(keys[0], tf.constant([1.0, 2.0])),
                            (keys[1], tf.constant([3.0]))])
            return [lookup(m, keys[1], tf.float32),
                    lookup(m, keys[0], tf.float32),
                    RAW.TensorMapHasKey(input_handle=m, key=keys[1]),
                    RAW.TensorMapSize(input_handle=m)], {keys: kv}
        case("map_key_" + dname(kd), build)

    def replace():
        m = insert_all(RAW.EmptyTensorMap(),
                       [(tf.constant(3), tf.constant([1, 2])),
                        (tf.constant(3), tf.constant([5, 6, 7]))])
        return [lookup(m, tf.constant(3), tf.int32),
                RAW.TensorMapSize(input_handle=m)], None
    case("map_insert_replaces", replace)

    def by_value():
        # Insert and Erase return new maps: the input map keeps its keys.
        m0 = insert_all(RAW.EmptyTensorMap(),
                        [(tf.constant(1), tf.constant(10.0)),
                         (tf.constant(2), tf.constant(20.0))])
        m1 = RAW.TensorMapErase(input_handle=m0, key=tf.constant(1),
                                value_dtype=tf.float32)
        m2 = RAW.TensorMapInsert(input_handle=m0, key=tf.constant(1),
                                 value=tf.constant(11.0))
        return [RAW.TensorMapSize(input_handle=m0),
                RAW.TensorMapSize(input_handle=m1),
                RAW.TensorMapHasKey(input_handle=m1, key=tf.constant(1)),
                lookup(m0, tf.constant(1), tf.float32),
                lookup(m2, tf.constant(1), tf.float32),
                RAW.TensorMapHasKey(input_handle=m0, key=tf.constant(1))], None
    case("map_by_value", by_value)

    def empty():
        m = RAW.EmptyTensorMap()
        return [RAW.TensorMapSize(input_handle=m),
                RAW.TensorMapHasKey(input_handle=m, key=tf.constant(0))], None
    case("map_empty", empty)

    def erase_all():
        m = insert_all(RAW.EmptyTensorMap(),
                       [(tf.constant("a"), tf.constant(1)),
                        (tf.constant("b"), tf.constant(2))])
        for k in ["b", "a"]:
            m = RAW.TensorMapErase(input_handle=m, key=tf.constant(k),
                                   value_dtype=tf.int32)
        return [RAW.TensorMapSize(input_handle=m),
                RAW.TensorMapHasKey(input_handle=m, key=tf.constant("a"))], None
    case("map_erase_all", erase_all)

    def key_dtypes_differ():
        # int32 1 and int64 1 are different keys; a float key 1.0 a third.
        m = insert_all(RAW.EmptyTensorMap(),
                       [(tf.constant(1, tf.int32), tf.constant(1.0)),
                        (tf.constant(1, tf.int64), tf.constant(2.0)),
                        (tf.constant(1.0), tf.constant(3.0))])
        return [RAW.TensorMapSize(input_handle=m),
                lookup(m, tf.constant(1, tf.int64), tf.float32),
                lookup(m, tf.constant(1.0), tf.float32),
                RAW.TensorMapHasKey(input_handle=m,
                                    key=tf.constant(1, tf.int16))], None
    case("map_key_dtypes_differ", key_dtypes_differ)

    def vector_key():
        m = insert_all(RAW.EmptyTensorMap(),
                       [(tf.constant([1, 2]), tf.constant(1.0)),
                        (tf.constant([2, 1]), tf.constant(2.0)),
                        (tf.constant(1), tf.constant(3.0))])
        return [RAW.TensorMapSize(input_handle=m),
                lookup(m, tf.constant([2, 1]), tf.float32),
                RAW.TensorMapHasKey(input_handle=m, key=tf.constant([1])),
                ], None
    case("map_vector_keys", vector_key)

    def nan_key():
        # Keys compare by bytes: a NaN key is found again, -0.0 is not 0.0.
        m = insert_all(RAW.EmptyTensorMap(),
                       [(tf.constant(np.float32("nan")), tf.constant(1)),
                        (tf.constant(-0.0), tf.constant(2))])
        return [lookup(m, tf.constant(np.float32("nan")), tf.int32),
                RAW.TensorMapHasKey(input_handle=m, key=tf.constant(0.0)),
                RAW.TensorMapHasKey(input_handle=m, key=tf.constant(-0.0))], \
            None
    case("map_float_keys_by_bytes", nan_key)

    for kd in [np.int32, np.int64, np.float32, np.float64, np.int8]:
        def build(kd=kd):
            keys, kv = feed(np.array([5, -3, 9, 0, 2], kd))
            m = RAW.EmptyTensorMap()
            for i in range(5):
                m = RAW.TensorMapInsert(input_handle=m, key=keys[i],
                                        value=tf.constant(float(i)))
            return tf.sort(RAW.TensorMapStackKeys(input_handle=m,
                                                  key_dtype=tfdt(kd))), \
                {keys: kv}
        case("map_stack_keys_" + dname(kd), build)

    def stack_one(kd, key):
        def build():
            k, kv = feed(key)
            m = RAW.TensorMapInsert(input_handle=RAW.EmptyTensorMap(), key=k,
                                    value=tf.constant(1.0))
            return RAW.TensorMapStackKeys(input_handle=m,
                                          key_dtype=tfdt(kd)), {k: kv}
        return build
    case("map_stack_keys_string",
         stack_one("string", np.array(b"key", dtype=object)))
    case("map_stack_keys_vector", stack_one(np.int64, np.array([4, 5], I64)))
    case("map_stack_keys_bool", stack_one(np.bool_, np.array(True)))

    def loop():
        # A map built in a loop: key i -> i*i for i < 6, then read back.
        def body(i, m):
            return i + 1, RAW.TensorMapInsert(input_handle=m, key=i,
                                              value=tf.cast(i * i, tf.float32))
        n, fd = feed(np.int32(6))
        _, m = tf.while_loop(lambda i, m: i < n, body,
                             [tf.constant(0), RAW.EmptyTensorMap()])
        return [RAW.TensorMapSize(input_handle=m),
                lookup(m, tf.constant(4), tf.float32),
                tf.sort(RAW.TensorMapStackKeys(input_handle=m,
                                               key_dtype=tf.int32))], {n: fd}
    case("map_while_loop", loop)

    # Errors.
    def missing(op):
        def build():
            k, kv = feed(np.int32(5))
            m = RAW.TensorMapInsert(input_handle=RAW.EmptyTensorMap(),
                                    key=tf.constant(1), value=tf.constant(1.0))
            if op == "lookup":
                out = lookup(m, k, tf.float32)
            else:
                out = RAW.TensorMapSize(input_handle=RAW.TensorMapErase(
                    input_handle=m, key=k, value_dtype=tf.float32))
            return out, {k: kv}
        return build
    case("map_lookup_missing", missing("lookup"))
    case("map_erase_missing", missing("erase"))

    def wrong_key_dtype():
        m = RAW.TensorMapInsert(input_handle=RAW.EmptyTensorMap(),
                                key=tf.constant(1, tf.int64),
                                value=tf.constant(1.0))
        return lookup(m, tf.constant(1, tf.int32), tf.float32), None
    case("map_lookup_key_dtype_mismatch", wrong_key_dtype)

    def lookup_empty():
        return lookup(RAW.EmptyTensorMap(), tf.constant("x"), tf.int32), None
    case("map_lookup_empty", lookup_empty)

    def stack_empty():
        return RAW.TensorMapStackKeys(input_handle=RAW.EmptyTensorMap(),
                                      key_dtype=tf.int32), None
    case("map_stack_keys_empty", stack_empty)

    def stack_wrong_dtype():
        m = RAW.TensorMapInsert(input_handle=RAW.EmptyTensorMap(),
                                key=tf.constant(1, tf.int64),
                                value=tf.constant(1.0))
        return RAW.TensorMapStackKeys(input_handle=m, key_dtype=tf.int32), None
    case("map_stack_keys_wrong_dtype", stack_wrong_dtype)

    def stack_mixed_shapes():
        m = insert_all(RAW.EmptyTensorMap(),
                       [(tf.constant(1), tf.constant(1.0)),
                        (tf.constant([1, 2]), tf.constant(1.0))])
        return RAW.TensorMapStackKeys(input_handle=m, key_dtype=tf.int32), None
    case("map_stack_keys_mixed_shapes", stack_mixed_shapes)

    def not_a_map():
        lst = RAW.EmptyTensorList(element_shape=tf.constant(-1),
                                  max_num_elements=tf.constant(-1),
                                  element_dtype=tf.float32)
        return RAW.TensorMapSize(input_handle=lst), None
    case("map_input_not_a_map", not_a_map)

    def not_scalar():
        h, fd = feed(np.zeros([2], np.int32))
        ms = tf.stack([RAW.EmptyTensorMap()] * 1)
        ms = tf.tile(tf.reshape(RAW.EmptyTensorMap(), [1]), tf.shape(h))
        return RAW.TensorMapSize(input_handle=ms), {h: fd}
    case("map_input_not_scalar", not_scalar)


# --------------------------------------------------------------------------
# RaggedGather


def gather_cases():
    def g(name, splits, values, indices, out_rr=None, tsplits=I64,
          note=""):
        def build():
            sp = [feed(np.asarray(s, tsplits).reshape(np.shape(s))
                       if np.size(s) else np.zeros(np.shape(s), tsplits))
                  for s in splits]
            v, vv = feed(values)
            i, iv = feed(indices)
            rr = out_rr
            if rr is None:
                rr = np.ndim(indices) - 1 + len(splits)
            out = RAW.RaggedGather(params_nested_splits=[p for p, _ in sp],
                                   params_dense_values=v, indices=i,
                                   OUTPUT_RAGGED_RANK=rr)
            fd = {p: x for p, x in sp}
            fd[v] = vv
            fd[i] = iv
            return list(out[0]) + [out[1]], fd
        case("gather_" + name, build, note=note)

    s1 = [[0, 2, 2, 5, 6]]
    for d in DTYPES:
        g(dname(d), s1, vals(d, 6), np.array([3, 0, 1, 2, 0], I32))
    for ti in (I32, I64):
        for ts in (I32, I64):
            g(f"indices_{np.dtype(ti).name}_splits_{np.dtype(ts).name}", s1,
              vals(F32, 6, (2,)), np.array([2, 3, 0], ti), tsplits=ts)
    g("scalar_index", s1, vals(F32, 6), np.int64(2))
    g("scalar_index_rr2", [[0, 1, 3], [0, 2, 2, 5]], vals(I32, 5), np.int32(1))
    g("matrix_indices", s1, vals(F32, 6), np.array([[3, 0], [1, 1]], I32))
    g("matrix_indices_rr2", [[0, 1, 3, 3], [0, 2, 2, 5]], vals(I64, 5, (2,)),
      np.array([[1, 0, 2], [2, 2, 1]], I64))
    g("rank3_indices", s1, vals(F32, 6),
      np.arange(8, dtype=I32).reshape(2, 2, 2) % 4)
    g("rr3", [[0, 2, 3], [0, 1, 3, 4], [0, 2, 2, 5, 6]], vals(F32, 6),
      np.array([1, 0, 1], I32))
    g("empty_indices", s1, vals(F32, 6), np.zeros([0], I32))
    g("empty_matrix_indices", s1, vals(F32, 6), np.zeros([2, 0], I32))
    g("empty_rows", [[0, 0, 0]], vals(F32, 0, (3,)), np.array([1, 0], I32))
    g("values_3d", s1, vals(np.int16, 6, (2, 2)), np.array([2, 3], I32))
    g("splits_nonzero_start", [[1, 2, 2, 5]], vals(F32, 5), np.array([0], I32),
      note="TensorFlow does not refuse a first split above 0")
    g("splits_short_of_values", [[0, 2, 2, 4]], vals(F32, 5),
      np.array([0, 2], I32))
    g("index_out_of_range", s1, vals(F32, 6), np.array([0, 4], I32))
    g("index_negative", s1, vals(F32, 6), np.array([-1], I64))
    g("matrix_index_out_of_range", s1, vals(F32, 6),
      np.array([[0, 1], [9, 0]], I32))
    g("scalar_values", [[0, 0]], np.float32(1), np.array([0], I32))
    g("empty_splits", [[]], vals(F32, 6), np.zeros([0], I32))
    g("empty_splits_with_index", [[]], vals(F32, 6), np.array([0], I32))
    g("splits_unsorted", [[0, 3, 2, 6]], vals(F32, 6), np.array([0], I32))
    g("splits_past_values", [[0, 2, 2, 7]], vals(F32, 6), np.array([0], I32))
    g("inner_splits_past_values", [[0, 1, 2], [0, 2, 9]], vals(F32, 6),
      np.array([0], I32))
    g("splits_negative", [[-1, 2, 6]], vals(F32, 6), np.array([1], I32))

    def public(name, rt_factory, idx, axis=None):
        def build():
            rt = rt_factory()
            out = tf.gather(rt, idx) if axis is None else \
                tf.gather(rt, idx, axis=axis)
            return list(out.nested_row_splits) + [out.flat_values], None
        case("gather_tf_gather_" + name, build)
    public("ragged", lambda: tf.ragged.constant([[1, 2], [], [3, 4, 5]]),
           [2, 0, 2])
    public("nested", lambda: tf.ragged.constant(
        [[[1.0], [2.0, 3.0]], [], [[4.0]]]), [[0, 2], [1, 0]])
    public("int32_splits", lambda: tf.ragged.constant(
        [["a", "b"], ["c"]], row_splits_dtype=tf.int32), [1, 1, 0])


# --------------------------------------------------------------------------
# RaggedTensorToVariant / RaggedTensorFromVariant


def to_variant(splits, values, batched):
    return RAW.RaggedTensorToVariant(rt_nested_splits=splits,
                                     rt_dense_values=values,
                                     batched_input=batched)


def from_variant(v, out_rr, dtype, in_rr=-1, tsplits=tf.int64):
    out = RAW.RaggedTensorFromVariant(encoded_ragged=v,
                                      input_ragged_rank=in_rr,
                                      output_ragged_rank=out_rr,
                                      Tvalues=dtype, Tsplits=tsplits)
    return list(out[0]) + [out[1]]


def variant_cases():
    def rt(name, splits, values, batched, out_rr=None, in_rr=-1,
           tsplits=I64, reshape=None, note=""):
        """splits and values fed, encoded, optionally reshaped (a batched
        variant vector into a matrix), decoded."""
        def build():
            sp = [feed(np.asarray(s, tsplits).reshape(np.shape(s))
                       if np.size(s) else np.zeros(np.shape(s), tsplits))
                  for s in splits]
            v, vv = feed(values)
            enc = to_variant([p for p, _ in sp], v, batched)
            if reshape is not None:
                enc = tf.reshape(enc, reshape)
            rr = out_rr
            if rr is None:
                rr = len(splits)
            fd = {p: x for p, x in sp}
            fd[v] = vv
            dtype = tf.string if np.asarray(values).dtype == object else \
                tf.as_dtype(np.asarray(values).dtype)
            return from_variant(enc, rr, dtype, in_rr,
                                tf.as_dtype(tsplits)), fd
        case("variant_" + name, build, note=note)

    s1 = [[0, 2, 2, 5, 6]]
    for d in DTYPES:
        rt("batched_" + dname(d), s1, vals(d, 6), True)
        rt("unbatched_" + dname(d), s1, vals(d, 6), False)
    rt("batched_int32_splits", s1, vals(F32, 6, (2,)), True, tsplits=I32)
    rt("unbatched_int32_splits", [[0, 1, 3], [0, 2, 2, 4]], vals(F32, 4),
       False, tsplits=I32)
    rt("batched_rr2", [[0, 1, 3, 3], [0, 2, 2, 5]], vals(F32, 5), True)
    rt("batched_rr2_explicit_input_rank", [[0, 1, 3, 3], [0, 2, 2, 5]],
       vals(F32, 5), True, in_rr=1)
    rt("batched_rr3", [[0, 2, 3], [0, 1, 3, 4], [0, 2, 2, 5, 6]],
       vals(I64, 6, (2,)), True)
    rt("unbatched_rr3", [[0, 2, 3], [0, 1, 3, 4], [0, 2, 2, 5, 6]],
       vals(I64, 6), False)
    rt("rr0_unbatched", [], vals(F32, 3), False)
    rt("rr0_unbatched_scalar", [], np.float32(4), False)
    rt("rr0_batched_matrix", [], vals(F32, 3, (2,)), True, out_rr=1)
    rt("rr0_batched_to_dense", [], vals(I32, 3, (2,)), True, out_rr=0,
       note="output_ragged_rank 0: the rows stacked back")
    rt("rr0_batched_empty", [], vals(F32, 0, (2,)), True, out_rr=1,
       note="no rows: values of shape [0], whatever the inner shape")
    rt("rr0_batched_scalar", [], np.float32(1), True, out_rr=1)
    rt("empty_batched", [[0]], vals(F32, 0), True)
    rt("empty_rows_batched", [[0, 0, 0]], vals(F32, 0, (3,)), True)
    rt("empty_unbatched", [[0]], vals(F32, 0), False)
    rt("empty_rr2_batched", [[0, 0], [0]], vals(F32, 0), True)
    rt("empty_inner_rows_batched", [[0, 2, 2], [0, 0, 0]], vals(F32, 0),
       True)
    rt("values_3d_batched", s1, vals(np.float64, 6, (2, 3)), True)
    rt("matrix_of_variants", [[0, 1, 3, 3, 4]], vals(F32, 4), True,
       out_rr=2, reshape=[2, 2],
       note="a 2x2 variant tensor: one uniform outer level")
    rt("matrix_of_variants_rr2", [[0, 1, 3, 3, 4], [0, 2, 2, 5, 6]],
       vals(I32, 6), True, out_rr=3, reshape=[2, 2])
    rt("matrix_of_variants_empty", [[0]], vals(F32, 0), True, out_rr=2,
       reshape=[0, 3])
    # Errors.
    rt("splits_bad_start", [[1, 2, 2, 6]], vals(F32, 6), True)
    rt("splits_decreasing", [[0, 3, 2, 6]], vals(F32, 6), True)
    rt("splits_bad_end", [[0, 2, 2, 7]], vals(F32, 6), True)
    rt("splits_bad_end_unbatched", [[0, 2, 2, 7]], vals(F32, 6), False)
    rt("inner_splits_bad_end", [[0, 1, 2], [0, 2, 5]], vals(F32, 6), False)
    rt("splits_empty", [[]], vals(F32, 0), True)
    rt("splits_matrix", [[[0, 1]]], vals(F32, 1), False)
    rt("values_scalar", [[0]], np.float32(1), False)
    rt("rr0_batched_vector", [], vals(F32, 3), True, out_rr=1,
       note="each row is a scalar: FromVariant refuses it")
    rt("output_rank_mismatch", s1, vals(F32, 6), False, out_rr=2)
    rt("inferred_input_rank_negative", [[0, 1, 1]], vals(F32, 1), True,
       out_rr=0, note="rows of different lengths stacked as dense")
    rt("input_rank_mismatch", s1, vals(F32, 6), True, out_rr=2, in_rr=1)

    def wrong(name, make):
        case("variant_" + name, make)

    def wrong_dtype():
        enc = to_variant([tf.constant([0, 1], tf.int64)],
                         tf.constant([1.0]), False)
        return from_variant(enc, 1, tf.float64), None
    wrong("values_dtype_mismatch", wrong_dtype)

    def wrong_splits():
        enc = to_variant([tf.constant([0, 1], tf.int32)],
                         tf.constant([1.0]), False)
        return from_variant(enc, 1, tf.float32, tsplits=tf.int64), None
    wrong("splits_dtype_mismatch", wrong_splits)

    def not_ragged():
        lst = RAW.EmptyTensorList(element_shape=tf.constant(-1),
                                  max_num_elements=tf.constant(-1),
                                  element_dtype=tf.float32)
        return from_variant(lst, 1, tf.float32), None
    wrong("input_not_ragged", not_ragged)

    # Components of different inner shapes or ranks need a variant tensor
    # built by Pack, which dfx does not run on variants:
    # tests/kernels/tmap_test.cc checks those errors.

    # RaggedTensorToVariantGradient.
    def grad(name, pieces, shape, dtype=F32, tsplits=I64):
        """The gradient of a batched RaggedTensorToVariant of ragged rank
        1 whose rows are `pieces` (each row's gradient is its values)."""
        def build():
            lengths = [len(p) for p in pieces]
            row_splits = np.concatenate([[0], np.cumsum(lengths)])
            flat = np.concatenate([np.asarray(p, dtype).reshape(
                (len(p),) + tuple(shape[1:])) for p in pieces])
            rs, rv = feed(np.asarray(row_splits, tsplits))
            v, vv = feed(flat.astype(dtype))
            sh, sv = feed(np.asarray(shape, I32))
            enc = to_variant([rs], v, True)
            out = RAW.RaggedTensorToVariantGradient(
                encoded_ragged_grad=enc, row_splits=rs,
                dense_values_shape=sh, Tvalues=tf.as_dtype(dtype))
            return out, {rs: rv, sh: sv, v: vv}
        case("variant_gradient_" + name, build)
    for d in (np.float32, np.float64, np.float16, np.int32,
              tf.bfloat16.as_numpy_dtype, np.complex64):
        grad(dname(d), [[1, 2], [3]], [3], d)
    grad("int32_splits", [[1, 2], [3]], [3], tsplits=I32)
    grad("matrix_values", [[[1, 2]], [[3, 4], [5, 6]]], [3, 2])
    grad("empty_piece", [[1, 2], [], [3]], [3])
    grad("one_row", [[1, 2, 3]], [3])

    def grad_of_map_fn():
        # tf.map_fn over a ragged tensor, and its gradient with respect to
        # the ragged tensor's flat values.
        x = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0])
        r = tf.RaggedTensor.from_row_splits(x, tf.constant([0, 2, 2, 5],
                                                           tf.int64))
        y = tf.map_fn(lambda row: row * row, r)
        s = tf.reduce_sum(y.flat_values * tf.constant([1., 2., 3., 4., 5.]))
        return [y.flat_values, y.row_splits] + tf.gradients(s, [x]), None
    case("variant_map_fn_grad", grad_of_map_fn)

    def map_fn_case():
        r = tf.ragged.constant([[1, 2, 3], [], [4, 5]], dtype=tf.int64)
        y = tf.map_fn(lambda row: tf.concat([row, row[:1]], 0), r)
        return [y.flat_values, y.row_splits], None
    case("variant_map_fn", map_fn_case)

    def map_fn_to_dense():
        r = tf.ragged.constant([[1.0, 2.0, 3.0], [], [4.0, 5.0]])
        y = tf.map_fn(tf.reduce_sum, r,
                      fn_output_signature=tf.TensorSpec([], tf.float32))
        return y, None
    case("variant_map_fn_reduce", map_fn_to_dense)


# --------------------------------------------------------------------------
# tf.data


def dataset_cases():
    def pull(name, make, k, note=""):
        def build():
            it = tf1.data.make_initializable_iterator(make())
            fetches, deps = [], [it.initializer]
            for _ in range(k):
                with tf.control_dependencies(deps):
                    el = it.get_next()
                    flat = [el.flat_values] + list(el.nested_row_splits) \
                        if isinstance(el, tf.RaggedTensor) else [el]
                fetches.extend(flat)
                deps = flat
            return fetches, None
        case("dataset_" + name, build, note=note)

    rt = [[1, 2], [], [3, 4, 5], [6]]
    pull("ragged_slices",
         lambda: tf.data.Dataset.from_tensor_slices(tf.ragged.constant(rt)),
         4)
    pull("ragged_batch_of_dense",
         lambda: tf.data.Dataset.range(5).map(
             lambda x: tf.range(x)).ragged_batch(2), 3)
    pull("ragged_batch_of_ragged",
         lambda: tf.data.Dataset.from_tensor_slices(
             tf.ragged.constant([[[1], [2, 3]], [], [[4]], [[5, 6, 7]]],
                                dtype=tf.int32)).ragged_batch(3), 2)
    pull("batch_of_ragged",
         lambda: tf.data.Dataset.from_tensor_slices(
             tf.ragged.constant(rt, dtype=tf.float32)).batch(3), 2)
    pull("ragged_batch_past_end",
         lambda: tf.data.Dataset.range(3).map(
             lambda x: tf.fill([x], "s")).ragged_batch(4), 2,
         note="the second get_next is past the end: OutOfRange")


def wire_cases():
    """Variants serialized by SerializeTensor (TensorFlow's bytes) and
    parsed back by ParseTensor (a variant dfx's runtime holds as opaque
    until a kernel reads it)."""
    def ragged_bytes():
        v = to_variant([tf.constant([0, 2, 3], tf.int64),
                        tf.constant([0, 1, 1, 4], tf.int64)],
                       tf.constant([1.0, 2.0, 3.0, 4.0]), False)
        return tf.io.serialize_tensor(v), None
    case("wire_serialize_ragged", ragged_bytes)

    def batched_bytes():
        v = to_variant([tf.constant([0, 2, 2, 3], tf.int32)],
                       tf.constant(["a", "b", "c"]), True)
        return tf.io.serialize_tensor(v), None
    case("wire_serialize_ragged_batched", batched_bytes)

    def map_bytes():
        m = RAW.TensorMapInsert(input_handle=RAW.EmptyTensorMap(),
                                key=tf.constant("k"),
                                value=tf.constant([[1, 2]], tf.int64))
        return tf.io.serialize_tensor(m), None
    case("wire_serialize_map", map_bytes)

    def ragged_round_trip():
        v = to_variant([tf.constant([0, 1, 3], tf.int64)],
                       tf.constant([[1, 2], [3, 4], [5, 6]], tf.int16), True)
        parsed = tf.io.parse_tensor(tf.io.serialize_tensor(v), tf.variant)
        return from_variant(parsed, 1, tf.int16), None
    case("wire_parse_ragged", ragged_round_trip)

    def map_round_trip():
        m = insert_all(RAW.EmptyTensorMap(),
                       [(tf.constant(1), tf.constant([1.0, 2.0])),
                        (tf.constant(2), tf.constant(3.0))])
        parsed = tf.io.parse_tensor(tf.io.serialize_tensor(m), tf.variant)
        m2 = RAW.TensorMapInsert(input_handle=parsed, key=tf.constant(3),
                                 value=tf.constant(4.0))
        return [lookup(parsed, tf.constant(1), tf.float32),
                RAW.TensorMapSize(input_handle=m2),
                lookup(m2, tf.constant(2), tf.float32)], None
    case("wire_parse_map", map_round_trip)


def write_wire_samples():
    """Variant tensors as TensorFlow serializes them (SerializeTensor of a
    DT_VARIANT scalar), for tests/kernels/tmap_test.cc."""
    folder = os.path.join(golden_lib.DATA_DIR, FAMILY)
    graph = tf.Graph()
    with graph.as_default():
        ragged = to_variant([tf.constant([0, 2, 3], tf.int64),
                             tf.constant([0, 1, 1, 4], tf.int64)],
                            tf.constant([1.0, 2.0, 3.0, 4.0]), False)
        m = RAW.TensorMapInsert(input_handle=RAW.EmptyTensorMap(),
                                key=tf.constant(7),
                                value=tf.constant([[1, 2]], tf.int64))
        out = [tf.io.serialize_tensor(ragged), tf.io.serialize_tensor(m)]
        with tf1.Session(graph=graph) as sess:
            data = sess.run(out)
    for name, blob in zip(["tf_ragged_variant.pb", "tf_tensor_map.pb"], data):
        fd, tmp = tempfile.mkstemp(dir=folder)
        with os.fdopen(fd, "wb") as f:
            f.write(blob)
        os.replace(tmp, os.path.join(folder, name))


def main():
    golden_lib.family_folder(FAMILY)
    map_cases()
    gather_cases()
    variant_cases()
    dataset_cases()
    wire_cases()
    golden_lib.write_op_defs(FAMILY, OP_NAMES, type_attrs={
        "TensorMapInsert": "key_dtype", "TensorMapLookup": "key_dtype",
        "TensorMapErase": "key_dtype", "TensorMapHasKey": "key_dtype",
        "TensorMapStackKeys": "key_dtype", "RaggedGather": "Tvalues",
        "RaggedTensorToVariant": "Tvalues",
        "RaggedTensorFromVariant": "Tvalues",
        "RaggedTensorToVariantGradient": "Tvalues"})
    write_wire_samples()


if __name__ == "__main__":
    main()

"""Golden cases of the ragged2 family: counting on sparse and ragged input
and feature crosses, as TensorFlow 2.21 runs them. SparseBincount and RaggedBincount (dense bins per
row: tf.math.bincount on a SparseTensor or RaggedTensor, what Keras's
CategoryEncoding emits) and DenseCountSparseOutput, SparseCountSparseOutput,
RaggedCountSparseOutput (tf.sparse.bincount: a SparseTensor of counts),
SparseCrossV2 (tf.sparse.cross), SparseCrossHashed (Keras's
HashedCrossing-style crosses: FarmHash fingerprints or keyed SipHash) and
RaggedCross (tf.ragged.cross and cross_hashed), RaggedFillEmptyRows and
RaggedFillEmptyRowsGrad.

    $(tools/tf_env) tests/golden/gen_ragged2.py

Besides the cases the generator writes the ops' signatures
(tf_op_defs.pbtxt, tf_cpu_kernels.txt), which tests/kernels/ragged2_test.cc
compares with dfx's registry.

Left out: SparseBincount and RaggedBincount with non-empty weights of
another size than values. TensorFlow's kernels read such weights out of
bounds (the results are garbage, not an error); dfx answers InvalidArgument
(tests/kernels/ragged2_test.cc). SparseCrossHashed with strong_hash and an
int64 dense input: TensorFlow's kernel reads the int64 value as a pointer
(a crash or garbage); dfx answers InvalidArgument. A non-scalar num_buckets
or strong_hash: TensorFlow aborts on the scalar read; dfx answers
InvalidArgument. RaggedCross with sparse indices of another length than the
values: TensorFlow reads index rows past the end; with a ragged input whose
row splits' dtype is not out_row_splits_type: TensorFlow aborts (it reads
every input's splits as the output's type). dfx answers InvalidArgument to
both.
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import golden_lib  # noqa: E402
from golden_lib import tf, tf1  # noqa: E402

FAMILY = "ragged2"
RAW = tf.raw_ops

OP_NAMES = ["SparseBincount", "RaggedBincount", "DenseCountSparseOutput",
            "SparseCountSparseOutput", "RaggedCountSparseOutput",
            "SparseCrossHashed", "SparseCrossV2", "RaggedCross",
            "RaggedFillEmptyRows", "RaggedFillEmptyRowsGrad"]


def case(name, build, **kw):
    golden_lib.case(FAMILY, name, build, **kw)


def feeds(**values):
    """Placeholders of unknown shape for each value: errors come from the
    kernels, not from graph construction. Returns ({name: tensor},
    feed_dict)."""
    phs, fd = {}, {}
    for k, v in values.items():
        v = np.asarray(v)
        ph = tf1.placeholder(tf.as_dtype(v.dtype), shape=None, name=k)
        phs[k] = ph
        fd[ph] = v
    return phs, fd


def a(v, dtype):
    return np.asarray(v, dtype).reshape(np.shape(v)) if np.size(v) else \
        np.zeros(np.shape(v), dtype)


I64 = np.int64
I32 = np.int32
F32 = np.float32


# --------------------------------------------------------------------------
# SparseBincount


def sparse_bincount_cases():
    def sb(name, indices, values, shape, size, weights, tidx=I32, t=F32,
           binary=False, note=""):
        def build():
            p, fd = feeds(indices=a(indices, I64).reshape(
                              np.shape(indices) if np.size(indices) else
                              (0, len(shape) if np.ndim(shape) else 1)),
                          values=a(values, tidx),
                          dense_shape=a(shape, I64), size=a(size, tidx),
                          weights=a(weights, t))
            return RAW.SparseBincount(binary_output=binary, **p), fd
        case("sparse_bincount_" + name, build, note=note)

    idx2 = [[0, 0], [0, 2], [2, 0], [2, 1], [2, 3]]
    vals = [1, 1, 2, 0, 7]
    for tidx in (I32, I64):
        for t in (I32, I64, F32, np.float64):
            sb(f"{np.dtype(tidx).name}_{np.dtype(t).name}", idx2, vals,
               [3, 4], 3, np.arange(1, 6), tidx, t)
    sb("no_weights", idx2, vals, [3, 4], 4, [])
    sb("binary", idx2, vals, [3, 4], 3, [5, 5, 5, 5, 5], binary=True)
    sb("binary_int64", idx2, vals, [3, 4], 8, [], I64, I64, binary=True)
    sb("1d", [[0], [2], [3]], [1, 1, 5], [4], 3, [])
    sb("1d_weighted", [[0], [2], [3]], [1, 1, 2], [4], 3, [0.5, 2, 3])
    sb("1d_binary", [[0], [2], [3]], [1, 1, 2], [4], 3, [], binary=True)
    sb("unordered_and_repeated", [[2, 0], [0, 0], [0, 0]], [1, 2, 2], [3, 4],
       3, [])
    sb("rank3", [[0, 0, 0], [1, 2, 1]], [1, 2], [2, 3, 2], 3, [1, 2])
    sb("negative_value_dropped_2d", idx2, [1, -1, 2, 0, 7], [3, 4], 3, [],
       note="rows: a negative value is dropped, as TensorFlow's batched "
       "loop does")
    sb("size_zero", idx2, vals, [3, 4], 0, [])
    sb("empty", np.zeros((0, 2)), [], [0, 4], 3, [])
    sb("empty_rows", np.zeros((0, 2)), [], [2, 4], 3, [])
    sb("negative_value_1d", [[0], [2]], [1, -1], [4], 3, [])
    sb("negative_size", idx2, vals, [3, 4], -1, [])
    sb("size_not_scalar", idx2, vals, [3, 4], [3], [])
    sb("indices_not_matrix", [0, 0], [1, 1], [3, 4], 3, [])
    sb("values_not_vector", [[0, 0]], [[1]], [3, 4], 3, [])
    sb("shape_not_vector", [[0, 0]], [1], [[3, 4]], 3, [])
    sb("count_mismatch", [[0, 0]], [1, 1], [3, 4], 3, [])
    sb("rank_mismatch", [[0, 0]], [1], [3], 3, [])
    sb("row_out_of_range", [[0, 0], [5, 0]], [1, 1], [3, 4], 3, [])
    sb("negative_index", [[-1, 0]], [1], [3, 4], 3, [])
    sb("column_out_of_range", [[0, 7]], [1], [3, 4], 3, [])


# --------------------------------------------------------------------------
# RaggedBincount


def ragged_bincount_cases():
    def rb(name, splits, values, size, weights, tidx=I32, t=F32,
           binary=False, note=""):
        def build():
            p, fd = feeds(splits=a(splits, I64), values=a(values, tidx),
                          size=a(size, tidx), weights=a(weights, t))
            return RAW.RaggedBincount(binary_output=binary, **p), fd
        case("ragged_bincount_" + name, build, note=note)

    splits = [0, 2, 2, 5]
    vals = [1, 1, 0, 7, 2]
    for tidx in (I32, I64):
        for t in (I32, I64, F32, np.float64):
            rb(f"{np.dtype(tidx).name}_{np.dtype(t).name}", splits, vals, 3,
               np.arange(1, 6), tidx, t)
    rb("no_weights", splits, vals, 8, [])
    rb("binary", splits, [1, 1, 0, 1, 2], 3, [], binary=True)
    rb("binary_weighted", splits, [1, 1, 0, 1, 2], 3, [4, 4, 4, 4, 4],
       I64, np.float64, binary=True)
    rb("size_zero", splits, vals, 0, [])
    rb("one_split", [0], [], 3, [])
    rb("decreasing_splits", [0, 3, 2, 5], vals, 3, [],
       note="TensorFlow does not refuse splits that decrease; each value "
       "goes to the row before the first split above it")
    rb("splits_empty", [], [], 3, [])
    rb("splits_bad_start", [1, 2, 2, 5], vals, 3, [])
    rb("splits_bad_end", [0, 2, 2, 4], vals, 3, [])
    rb("negative_value", splits, [1, -1, 0, 7, 2], 3, [])
    rb("negative_size", [0, 2], [1, 1], -3, [])
    rb("size_not_scalar", [0, 2], [1, 1], [3], [])

    def public_api():
        rt = tf.RaggedTensor.from_row_splits(
            tf1.placeholder_with_default(np.array([3, 1, 1, 0, 4], I64),
                                         shape=None),
            np.array([0, 3, 3, 5], I64))
        return [tf.math.bincount(rt, minlength=6, maxlength=6, axis=-1,
                                 binary_output=True)], {}
    case("ragged_bincount_math_bincount_axis", public_api)


# --------------------------------------------------------------------------
# DenseCountSparseOutput, SparseCountSparseOutput, RaggedCountSparseOutput


def count_attrs(binary=False, minlength=-1, maxlength=-1):
    return dict(binary_output=binary, minlength=minlength,
                maxlength=maxlength)


def dense_count_cases():
    def dc(name, values, weights, t=I64, w=F32, note="", **attrs):
        def build():
            p, fd = feeds(values=a(values, t), weights=a(weights, w))
            return list(RAW.DenseCountSparseOutput(**p,
                                                   **count_attrs(**attrs))), fd
        case("dense_count_" + name, build, note=note)

    m = [[1, 1, 5], [2, 0, 0]]
    for t in (I32, I64):
        for w in (I32, I64, F32, np.float64):
            dc(f"{np.dtype(t).name}_{np.dtype(w).name}", m,
               np.arange(1, 7).reshape(2, 3), t, w)
    dc("no_weights", m, [])
    dc("1d", [1, 1, 5], [1, 2, 3], minlength=10)
    dc("binary_maxlength", m, [], binary=True, maxlength=3)
    dc("binary_weighted", m, np.ones((2, 3)), binary=True)
    dc("minlength_below_max", m, [], minlength=2)
    dc("maxlength_zero", [4, 5], [], maxlength=0, minlength=2)
    dc("empty_1d", [], [])
    dc("empty_columns", np.zeros((2, 0)), [])
    dc("zero_rows", np.zeros((0, 3)), [])
    dc("negative_value", [[1, -1, 5], [2, 0, 0]], [])
    dc("scalar", 3, [])
    dc("rank3", [[[1]]], [])
    dc("weights_mismatch", [1, 2], [1])


def sparse_count_cases():
    def sc(name, indices, values, shape, weights, t=I64, w=F32, note="",
           **attrs):
        def build():
            ind = np.asarray(indices, I64)
            if ind.size == 0:
                ind = ind.reshape(0, max(np.size(shape), 1))
            p, fd = feeds(indices=ind, values=a(values, t),
                          dense_shape=a(shape, I64), weights=a(weights, w))
            return list(RAW.SparseCountSparseOutput(
                **p, **count_attrs(**attrs))), fd
        case("sparse_count_" + name, build, note=note)

    idx = [[0, 0], [0, 1], [2, 3], [2, 1]]
    vals = [3, 1, 3, 3]
    for t in (I32, I64):
        for w in (I32, I64, F32, np.float64):
            sc(f"{np.dtype(t).name}_{np.dtype(w).name}", idx, vals, [3, 4],
               [1, 2, 3, 4], t, w)
    sc("no_weights", idx, vals, [3, 4], [])
    sc("1d", [[0], [1], [3]], [3, 1, 3], [4], [1, 2, 3])
    sc("binary_weighted_minlength", idx, vals, [3, 4], [4, 5, 6, 7],
       binary=True, minlength=7)
    sc("maxlength", idx, vals, [3, 4], [], maxlength=2)
    sc("rank3", [[0, 0, 0], [1, 1, 1]], [3, 5], [2, 4, 4], [])
    sc("no_values", np.zeros((0, 2)), [], [2, 4], [])
    sc("negative_shape_without_values", np.zeros((0, 2)), [], [2, -1], [],
       note="TensorFlow checks indices against the shape, not the shape")
    sc("zero_batches", np.zeros((0, 2)), [], [0, 4], [])
    sc("empty_shape", np.zeros((0, 0)), [], np.zeros(0), [])
    sc("negative_value", idx, [3, -1, 3, 3], [3, 4], [])
    sc("index_out_of_range", [[0, 0], [0, 9]], [3, 1], [3, 4], [])
    sc("row_out_of_range", [[0, 0], [3, 0]], [3, 1], [3, 4], [])
    sc("weights_mismatch", idx, vals, [3, 4], [1])
    sc("indices_not_matrix", [0, 0], [1, 1], [3, 4], [])
    sc("values_not_vector", [[0, 0]], [[1]], [3, 4], [])
    sc("count_mismatch", [[0, 0]], [1, 1], [3, 4], [])
    sc("dims_mismatch", [[0, 0]], [1], [3], [])

    def public_api():
        st = tf.sparse.SparseTensor(
            tf1.placeholder_with_default(np.array(idx, I64), shape=[4, 2]),
            tf1.placeholder_with_default(np.array(vals, I64), shape=[4]),
            np.array([3, 4], I64))
        out = tf.sparse.bincount(st, weights=None, axis=-1, minlength=5)
        return [out.indices, out.values, out.dense_shape], {}
    case("sparse_count_sparse_bincount", public_api)


def ragged_count_cases():
    def rc(name, splits, values, weights, t=I64, w=F32, note="", **attrs):
        def build():
            p, fd = feeds(splits=a(splits, I64), values=a(values, t),
                          weights=a(weights, w))
            return list(RAW.RaggedCountSparseOutput(
                **p, **count_attrs(**attrs))), fd
        case("ragged_count_" + name, build, note=note)

    splits = [0, 2, 2, 5]
    vals = [1, 1, 0, 7, 2]
    for t in (I32, I64):
        for w in (I32, I64, F32, np.float64):
            rc(f"{np.dtype(t).name}_{np.dtype(w).name}", splits, vals,
               np.arange(1, 6), t, w)
    rc("no_weights", splits, vals, [])
    rc("binary_maxlength", splits, vals, [], binary=True, maxlength=3)
    rc("minlength", splits, vals, [], minlength=12)
    rc("decreasing_splits", [0, 3, 2, 5], vals, [])
    rc("values_matrix", [0, 2], [[1], [1]], [])
    rc("empty_rows", [0, 0, 0], [], [])
    rc("one_split", [0], [], [])
    rc("splits_bad_start", [1, 2], [1, 1], [])
    rc("splits_bad_end", [0, 4], vals, [])
    rc("negative_value", splits, [1, -1, 0, 7, 2], [])
    rc("weights_mismatch", [0, 2], [1, 1], [1])

    def public_api():
        rt = tf.RaggedTensor.from_row_splits(
            tf1.placeholder_with_default(np.array([3, 1, 1, 0, 4], I32),
                                         shape=None),
            np.array([0, 3, 3, 5], I64))
        w = tf.RaggedTensor.from_row_splits(
            np.array([0.5, 1, 2, 3, 4], F32), np.array([0, 3, 3, 5], I64))
        out = tf.sparse.bincount(rt, weights=w, axis=-1, maxlength=4)
        return [out.indices, out.values, out.dense_shape], {}
    case("ragged_count_sparse_bincount", public_api)

    def dense_api():
        x = tf1.placeholder_with_default(np.array([[2, 2, 0], [1, 5, 5]],
                                                  I64), shape=None)
        out = tf.sparse.bincount(x, axis=-1, binary_output=True)
        return [out.indices, out.values, out.dense_shape], {}
    case("dense_count_sparse_bincount", dense_api)


# --------------------------------------------------------------------------
# SparseCrossV2, SparseCrossHashed


def cross_cases():
    def columns(sparse, dense):
        """Placeholders for sparse columns [(indices, values, shape)] and
        dense ones; returns the op's column kwargs and the feed dict."""
        fd = {}
        ind, val, shp, den = [], [], [], []
        for k, (i, v, sh) in enumerate(sparse):
            i = np.asarray(i, I64) if np.size(i) else \
                np.zeros((0, 2), I64)
            v = np.asarray(v)
            for lst, x, nm in ((ind, i, "ind"), (val, v, "val"),
                               (shp, np.asarray(sh, I64), "shape")):
                ph = tf1.placeholder(tf.as_dtype(x.dtype), shape=None,
                                     name=f"{nm}{k}")
                fd[ph] = x
                lst.append(ph)
        for k, d in enumerate(dense):
            d = np.asarray(d)
            ph = tf1.placeholder(tf.as_dtype(d.dtype), shape=None,
                                 name=f"dense{k}")
            fd[ph] = d
            den.append(ph)
        return dict(indices=ind, values=val, shapes=shp,
                    dense_inputs=den), fd

    def hashed(name, sparse, dense, num_buckets=0, strong=False,
               salt=(1, 2), note=""):
        def build():
            kw, fd = columns(sparse, dense)
            extra = {}
            for k, v in (("num_buckets", np.asarray(num_buckets, I64)),
                         ("strong_hash", np.asarray(strong)),
                         ("salt", np.asarray(salt, I64))):
                ph = tf1.placeholder(tf.as_dtype(v.dtype), shape=None,
                                     name=k)
                fd[ph] = v
                extra[k] = ph
            return list(RAW.SparseCrossHashed(**kw, **extra)), fd
        case("cross_hashed_" + name, build, note=note)

    def v2(name, sparse, dense, sep="_X_", note=""):
        def build():
            kw, fd = columns(sparse, dense)
            ph = tf1.placeholder(tf.string, shape=None, name="sep")
            fd[ph] = np.asarray(sep, object)
            return list(RAW.SparseCrossV2(**kw, sep=ph)), fd
        case("cross_v2_" + name, build, note=note)

    ind = [[0, 0], [1, 0], [1, 1]]
    strs = np.array([b"a", b"b", b"c"], object)
    ints = [5, 6, 7]
    dstr = np.array([[b"x"], [b"y"]], object)
    dint = np.array([[3], [4]], I64)
    two = [[0, 0], [0, 1], [2, 0]]
    hashed("strings", [(ind, strs, [2, 2])], [dstr])
    hashed("int64_buckets", [(ind, ints, [2, 2])], [dint], num_buckets=100)
    hashed("strong_strings", [(ind, strs, [2, 2])], [dstr], strong=True,
           salt=(7, -3))
    hashed("strong_int64_sparse", [(ind, ints, [2, 2])], [dstr],
           strong=True)
    hashed("three_columns", [(ind, strs, [3, 2]),
                             (two, np.array([1, 2, 3], I64), [3, 2])],
           [np.array([[b"p", b"q"], [b"r", b"s"], [b"t", b"u"]], object)],
           num_buckets=1000,
           note="row 1 has no value in the second column: no crosses")
    hashed("sparse_only", [(ind, strs, [2, 2]), (ind, ints, [2, 2])], [])
    hashed("dense_only", [], [dstr, dint], num_buckets=10)
    hashed("no_columns", [], [])
    hashed("negative_buckets", [(ind, ints, [2, 2])], [dint],
           num_buckets=-5)
    hashed("salt_length", [(ind, strs, [2, 2])], [dstr], salt=[1, 2, 3])
    hashed("batch_mismatch", [(ind, strs, [2, 2])],
           [np.array([[b"x"]], object)])
    hashed("indices_not_matrix", [([0, 0, 1, 0], strs[:2], [2, 2])], [])
    hashed("dense_not_matrix", [], [np.array([b"x"], object)])

    v2("strings", [(ind, strs, [2, 2])], [dstr])
    v2("separator", [(ind, ints, [2, 2])], [dstr], sep="--")
    v2("empty_separator", [(ind, strs, [2, 2])], [dint], sep="")
    v2("three_columns", [(ind, strs, [3, 2]),
                         (two, np.array([1, 2, 3], I64), [3, 2])],
       [np.array([[b"p", b"q"], [b"r", b"s"], [b"t", b"u"]], object)],
       sep="|")
    v2("no_columns", [], [])
    v2("separator_not_scalar", [(ind, strs, [2, 2])], [], sep=["a", "b"])
    v2("shape_not_2d", [(ind, strs, [2, 2, 1])], [])
    v2("values_count_mismatch", [(ind, strs[:2], [2, 2])], [])

    def public_cross():
        st = tf.sparse.SparseTensor(
            np.array(ind, I64),
            tf1.placeholder_with_default(strs, shape=[3]), [2, 2])
        out = tf.sparse.cross([st, tf.constant(dstr)], separator="+")
        return [out.indices, out.values, out.dense_shape], {}
    case("cross_v2_sparse_cross", public_cross)


def ragged_cross_cases():
    def rc(name, ragged, sparse, dense, order, out=tf.string,
           splits_out=tf.int64, num_buckets=0, hash_key=0, note=""):
        def build():
            fd = {}

            def ph(v, nm):
                v = np.asarray(v)
                p = tf1.placeholder(tf.as_dtype(v.dtype), shape=None, name=nm)
                fd[p] = v
                return p
            rv = [ph(v, f"rv{k}") for k, (v, _) in enumerate(ragged)]
            rs = [ph(sp, f"rs{k}") for k, (_, sp) in enumerate(ragged)]
            si = [ph(np.asarray(i, I64).reshape(-1, 2), f"si{k}")
                  for k, (i, _, _) in enumerate(sparse)]
            sv = [ph(v, f"sv{k}") for k, (_, v, _) in enumerate(sparse)]
            ss = [ph(np.asarray(sh, I64), f"ss{k}")
                  for k, (_, _, sh) in enumerate(sparse)]
            dn = [ph(d, f"d{k}") for k, d in enumerate(dense)]
            return list(RAW.RaggedCross(
                ragged_values=rv, ragged_row_splits=rs, sparse_indices=si,
                sparse_values=sv, sparse_shape=ss, dense_inputs=dn,
                input_order=order, hashed_output=out == tf.int64,
                num_buckets=num_buckets, hash_key=hash_key,
                out_values_type=out, out_row_splits_type=splits_out)), fd
        case("ragged_cross_" + name, build, note=note)

    strs = (np.array([b"a", b"b", b"c"], object), np.array([0, 2, 2, 3], I64))
    ints = (np.array([1, 2, 3, 4, 5], I64), np.array([0, 1, 3, 5], I64))
    ints32 = (ints[0], ints[1].astype(I32))
    strs32 = (strs[0], strs[1].astype(I32))
    dstr = np.array([[b"x"], [b"y"], [b"z"]], object)
    sp = ([[0, 0], [0, 1], [2, 0]], np.array([7, 8, 9], I64), [3, 2])
    rc("strings", [strs, ints], [], [dstr], "RRD")
    rc("order", [strs], [sp], [dstr], "DSR")
    rc("hashed", [strs, ints], [sp], [dstr], "RSRD", out=tf.int64,
       num_buckets=100, hash_key=7)
    rc("hashed_no_buckets", [strs32], [], [dstr], "DR", out=tf.int64,
       splits_out=tf.int32)
    rc("int32_splits", [ints32, strs32], [], [], "RR", splits_out=tf.int32)
    rc("no_inputs", [], [], [], "")
    rc("empty_rows", [(np.array([], object), np.array([0, 0, 0], I64))], [],
       [np.array([[b"x"], [b"y"]], object)], "RD")
    rc("bad_splits_start", [(strs[0], np.array([1, 2, 2, 3], I64))], [], [],
       "R")
    rc("bad_splits_end", [(strs[0], np.array([0, 2, 2, 2], I64))], [], [],
       "R")
    rc("decreasing_splits", [(strs[0], np.array([0, 2, 1, 3], I64))], [], [],
       "R")
    rc("batch_mismatch", [strs], [], [np.array([[b"x"]], object)], "RD")
    rc("dense_not_matrix", [], [], [np.array([b"x"], object)], "D")
    rc("sparse_rank3", [], [([[0, 0]], np.array([1], I64), [3, 2, 1])], [],
       "S")

    def public():
        rt = tf.RaggedTensor.from_row_splits(
            tf1.placeholder_with_default(strs[0], shape=None), strs[1])
        rt2 = tf.RaggedTensor.from_row_splits(
            tf1.placeholder_with_default(ints[0], shape=None), ints[1])
        out = tf.ragged.cross([rt, rt2, tf.constant(dstr)])
        outh = tf.ragged.cross_hashed([rt, rt2, tf.constant(dstr)],
                                      num_buckets=1000, hash_key=3)
        return [out.flat_values, out.row_splits, outh.flat_values], {}
    case("ragged_cross_public_api", public)


def fill_empty_rows_cases():
    def fe(name, rowids, values, nrows, default, note=""):
        def build():
            p, fd = feeds(value_rowids=np.asarray(rowids, I64).reshape(
                              np.shape(rowids)),
                          values=values, nrows=np.asarray(nrows, I64),
                          default_value=default)
            return list(RAW.RaggedFillEmptyRows(**p)), fd
        case("fill_empty_rows_" + name, build, note=note)

    fe("float", [0, 0, 2], np.array([1, 2, 3], F32), 4, np.float32(-1))
    fe("full", [0, 1], np.array([1, 2], I64), 2, np.int64(-1),
       note="no empty row: the inputs come back")
    fe("unordered", [2, 0], np.array([1, 2], np.float64), 3, np.float64(9))
    fe("string", [1], np.array([b"a"], object), 2, np.array(b"z", object))
    fe("bool", [1, 1], np.array([True, True]), 3, np.array(False))
    fe("no_rows", np.zeros(0, I64), np.zeros(0, F32), 0, np.float32(-1),
       note="TensorFlow's output value_rowids is [0, 1] here")
    fe("all_empty", np.zeros(0, I64), np.zeros(0, I32), 3, np.int32(5))
    fe("row_out_of_range", [0, 5], np.array([1, 2], F32), 3, np.float32(-1))
    fe("negative_nrows", np.zeros(0, I64), np.zeros(0, F32), -1,
       np.float32(-1))
    fe("values_without_rows", [0], np.array([1], F32), 0, np.float32(-1))
    fe("values_not_vector", [0], np.array([[1]], F32), 2, np.float32(-1))
    fe("default_not_scalar", [0], np.array([1], F32), 2,
       np.array([-1], F32))
    fe("nrows_not_scalar", [0], np.array([1], F32), [2], np.float32(-1))
    fe("rowids_not_vector", [[0]], np.array([1], F32), 2, np.float32(-1))
    fe("length_mismatch", [0, 1], np.array([1], F32), 2, np.float32(-1))

    def grad(name, rev, g, note=""):
        def build():
            p, fd = feeds(reverse_index_map=np.asarray(rev, I64),
                          grad_values=g)
            return list(RAW.RaggedFillEmptyRowsGrad(**p)), fd
        case("fill_empty_rows_grad_" + name, build, note=note)

    grad("float", [0, 1, 3], np.array([1, 2, 3, 4, 5], F32))
    grad("int32", [0], np.array([1, 2], I32))
    grad("double_empty", np.zeros(0, I64), np.array([1, 2], np.float64))
    grad("out_of_range", [0, 9], np.array([1, 2, 3], F32))


def main():
    sparse_bincount_cases()
    ragged_bincount_cases()
    dense_count_cases()
    sparse_count_cases()
    ragged_count_cases()
    cross_cases()
    ragged_cross_cases()
    fill_empty_rows_cases()
    # Last: the first case empties the family's folder.
    golden_lib.write_op_defs(FAMILY, OP_NAMES)


if __name__ == "__main__":
    main()

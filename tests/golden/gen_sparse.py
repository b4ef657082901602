"""Golden cases of the sparse family, as TensorFlow 2.21 runs them:

- the sparse segment reductions (SparseSegmentSum/Mean/SqrtN, their
  WithNumSegments forms and gradients, V1 and V2) over every dtype
  TensorFlow's CPU kernels take, short and long segments (TensorFlow sums a
  segment as a head of up to 9 rows and then blocks of 8, and scales by 1/n
  below 10 rows but divides at 10 and above), gaps, and the run-time errors
  for unsorted or out-of-range ids;
- SparseTensor ops: SparseToDense, SparseTensorDenseMatMul, SparseReshape,
  SparseFillEmptyRows and its gradient (with the embedding lookups Keras and
  feature columns build from them), SparseAdd, SparseReorder, SparseSlice,
  SparseConcat, SparseSplit, SparseTensorDenseAdd, SparseDenseCwise{Add,Mul,
  Div}, SparseReduceSum/Max (and their *Sparse forms), SparseSoftmax,
  SparseSparseMaximum/Minimum, SparseAddGrad, SparseSliceGrad and SparseCross
  (hashed, as crossed feature columns use it);
- tf.Example parsing with ParseExample and ParseSingleExample (fixed and
  variable-length dense features, sparse features; serialized Examples held
  in Const nodes; golden cases fetch no strings), alone and in a tf.data map;
- ragged tensors: RaggedTensorToTensor (ROW_SPLITS, FIRST_DIM_SIZE +
  VALUE_ROWIDS, shapes that pad or cut, broadcast defaults), RaggedRange and
  RaggedTensorToSparse.

Run with the TensorFlow virtualenv: $(tools/tf_env) tests/golden/gen_sparse.py

dfx follows TensorFlow's order of operations, so most cases must match
exactly (EXACT: rtol = atol = 0) for every dtype. SparseSoftmax, the sparse
reductions and the embedding-lookup models keep the dtype tolerances:
TensorFlow evaluates exp and long sums with vectorized Eigen there. bfloat16
is fed as float32 and cast in the graph (.npy has no bfloat16).
"""

import numpy as np
import tensorflow as tf

from golden_lib import case, rng, tf1

FAMILY = "sparse"
EXACT = dict(rtol=0.0, atol=0.0)
BF16 = tf.bfloat16.as_numpy_dtype


def dtype_name(dt):
    return "bfloat16" if dt is BF16 else np.dtype(dt).name


def values(shape, dt, seed):
    r = rng(seed)
    if dt in (np.float32, np.float64):
        return r.uniform(-1, 1, size=shape).astype(dt)
    if dt in (np.float16, BF16):
        return r.uniform(-4, 4, size=shape).astype(np.float32)
    if dt == np.uint8:
        return r.integers(0, 256, size=shape).astype(dt)
    return r.integers(-50, 50, size=shape).astype(dt)


def feed(value, dt, name=None):
    """(tensor for the graph, placeholder, value fed); bfloat16 is fed as
    float32 and cast."""
    value = np.asarray(value)
    if dt is BF16:
        ph = tf1.placeholder(tf.float32, value.shape, name=name)
        return tf.cast(ph, tf.bfloat16), ph, value.astype(np.float32)
    ph = tf1.placeholder(tf.as_dtype(dt), value.shape, name=name)
    return ph, ph, value.astype(dt)


# Segment lengths covering every head size and several blocks of 8.
SEGMENT_LENGTHS = [1, 2, 0, 3, 7, 8, 9, 10, 11, 17, 26]


def segment_inputs(data_rows, seed):
    """(indices, segment_ids) with SEGMENT_LENGTHS (0: a gap) and random,
    repeating indices into data_rows rows."""
    r = rng(seed)
    ids = []
    for s, n in enumerate(SEGMENT_LENGTHS):
        ids += [s] * n
    idx = r.integers(0, data_rows, size=len(ids))
    return idx, np.array(ids)


REDUCTIONS = {
    "sum": tf.raw_ops.SparseSegmentSum,
    "mean": tf.raw_ops.SparseSegmentMean,
    "sqrtn": tf.raw_ops.SparseSegmentSqrtN,
}
WITH_NUM = {
    "sum": tf.raw_ops.SparseSegmentSumWithNumSegments,
    "mean": tf.raw_ops.SparseSegmentMeanWithNumSegments,
    "sqrtn": tf.raw_ops.SparseSegmentSqrtNWithNumSegments,
}
GRADS = {
    "sum": tf.raw_ops.SparseSegmentSumGrad,
    "mean": tf.raw_ops.SparseSegmentMeanGrad,
    "sqrtn": tf.raw_ops.SparseSegmentSqrtNGrad,
}
GRADS_V2 = {
    "sum": tf.raw_ops.SparseSegmentSumGradV2,
    "mean": tf.raw_ops.SparseSegmentMeanGradV2,
    "sqrtn": tf.raw_ops.SparseSegmentSqrtNGradV2,
}
FLOATS = (np.float32, np.float64, np.float16, BF16)
INTS = (np.int32, np.int64, np.uint8, np.int16)


def segment_cases():
    idx, ids = segment_inputs(12, 1)
    for kind, op in REDUCTIONS.items():
        for dt in FLOATS + (INTS if kind == "sum" else ()):
            for index_dt in (np.int32, np.int64):
                def build(op=op, dt=dt, index_dt=index_dt):
                    x, ph, v = feed(values((12, 3), dt, 2), dt)
                    y = op(data=x, indices=tf.constant(idx.astype(index_dt)),
                           segment_ids=tf.constant(ids.astype(index_dt)))
                    return y, {ph: v}
                case(FAMILY, f"segment_{kind}_{dtype_name(dt)}_"
                     f"{np.dtype(index_dt).name}", build, **EXACT)
        for dt in (np.float32, BF16):
            def build_num(kind=kind, dt=dt):
                x, ph, v = feed(values((12, 2, 2), dt, 3), dt)
                y = WITH_NUM[kind](
                    data=x, indices=tf.constant(idx[:40]),
                    segment_ids=tf.constant(ids[:40]),
                    num_segments=tf.constant(14))
                return y, {ph: v}
            case(FAMILY, f"segment_{kind}_num_segments_{dtype_name(dt)}",
                 build_num, **EXACT)
        for dt in FLOATS:
            def build_grad(kind=kind, dt=dt):
                g, ph, v = feed(values((len(SEGMENT_LENGTHS), 3), dt, 4), dt)
                y = GRADS[kind](grad=g, indices=tf.constant(idx),
                                segment_ids=tf.constant(ids),
                                output_dim0=tf.constant(12))
                return y, {ph: v}
            case(FAMILY, f"segment_{kind}_grad_{dtype_name(dt)}", build_grad,
                 **EXACT)

            def build_grad_v2(kind=kind, dt=dt):
                g, ph, v = feed(values((len(SEGMENT_LENGTHS), 3), dt, 4), dt)
                y = GRADS_V2[kind](grad=g, indices=tf.constant(idx.astype(np.int64)),
                       segment_ids=tf.constant(ids),
                       dense_output_dim0=tf.constant(12))
                return list(y), {ph: v}
            case(FAMILY, f"segment_{kind}_grad_v2_{dtype_name(dt)}",
                 build_grad_v2, **EXACT)

    def empty():
        x, ph, v = feed(values((4, 3), np.float32, 5), np.float32)
        return [tf.raw_ops.SparseSegmentMean(
                    data=x, indices=tf.constant([], tf.int32),
                    segment_ids=tf.constant([], tf.int32)),
                tf.raw_ops.SparseSegmentSumWithNumSegments(
                    data=x, indices=tf.constant([], tf.int32),
                    segment_ids=tf.constant([], tf.int32),
                    num_segments=tf.constant(3))], {ph: v}
    case(FAMILY, "segment_empty", empty, **EXACT)

    # The gradient ops as tf.gradients emits them for an embedding lookup
    # with a combiner (tf.nn.embedding_lookup_sparse).
    def embedding_grad():
        params, ph, v = feed(values((10, 4), np.float32, 6), np.float32)
        sp = tf.sparse.SparseTensor(
            indices=[[0, 0], [0, 1], [1, 0], [3, 0], [3, 1], [3, 2]],
            values=tf.constant([3, 7, 1, 3, 9, 0], tf.int64),
            dense_shape=[4, 3])
        outs = []
        for combiner in ("sum", "mean", "sqrtn"):
            y = tf.nn.embedding_lookup_sparse(params, sp, None,
                                              combiner=combiner)
            outs += [y, tf.gradients(tf.reduce_sum(y * y), params)[0]]
        return [tf.convert_to_tensor(o) for o in outs], {ph: v}
    case(FAMILY, "embedding_lookup_sparse_grad", embedding_grad,
         rtol=1e-6, atol=1e-7)

    def err(name, kind, idx_v, ids_v, rows=4):
        def build():
            x, ph, v = feed(values((rows, 2), np.float32, 7), np.float32)
            return REDUCTIONS[kind](
                data=x, indices=tf.constant(idx_v, tf.int32),
                segment_ids=tf.constant(ids_v, tf.int32)), {ph: v}
        case(FAMILY, name, build)
    err("segment_error_not_increasing", "sum", [0, 1, 2], [1, 0, 2])
    err("segment_error_bad_index", "mean", [0, 1, 9], [0, 0, 1])
    err("segment_error_negative_id", "sqrtn", [0, 1], [-1, 0])


def sparse_to_dense_cases():
    for dt in (np.float32, np.int32, np.int64, np.float16, np.bool_):
        def build(dt=dt):
            vals = (values((4,), dt, 8) if dt != np.bool_
                    else np.array([True, False, True, True]))
            v, ph, fed = feed(vals, dt)
            return tf.raw_ops.SparseToDense(
                sparse_indices=tf.constant([[0, 1, 0], [0, 2, 3], [1, 0, 1],
                                            [2, 3, 3]], tf.int64),
                output_shape=tf.constant([3, 4, 5], tf.int64),
                sparse_values=v, default_value=tf.constant(
                    np.array(1 if dt != np.bool_ else False).astype(dt))), {
                        ph: fed}
        case(FAMILY, f"sparse_to_dense_{np.dtype(dt).name}", build, **EXACT)

    def scalar_value():
        return [tf.raw_ops.SparseToDense(
                    sparse_indices=tf.constant([0, 2, 5]),
                    output_shape=tf.constant([6]),
                    sparse_values=tf.constant(7.5),
                    default_value=tf.constant(-1.0)),
                tf.raw_ops.SparseToDense(
                    sparse_indices=tf.constant(3), output_shape=tf.constant([4]),
                    sparse_values=tf.constant(2), default_value=tf.constant(0)),
                # Unvalidated, out of order and repeated: the last one wins.
                tf.raw_ops.SparseToDense(
                    sparse_indices=tf.constant([[1, 1], [0, 0], [1, 1]]),
                    output_shape=tf.constant([2, 2]),
                    sparse_values=tf.constant([1.0, 2.0, 3.0]),
                    default_value=tf.constant(0.0), validate_indices=False)], {}
    case(FAMILY, "sparse_to_dense_scalar_and_unvalidated", scalar_value,
         **EXACT)

    def std_err(name, idx, shape, validate=True):
        def build():
            return tf.raw_ops.SparseToDense(
                sparse_indices=tf.constant(idx), output_shape=tf.constant(shape),
                sparse_values=tf.constant(1.0), default_value=tf.constant(0.0),
                validate_indices=validate), {}
        case(FAMILY, name, build)
    std_err("sparse_to_dense_error_unsorted", [[1], [0]], [2])
    std_err("sparse_to_dense_error_repeated", [[1], [1]], [2])
    std_err("sparse_to_dense_error_out_of_bounds", [[0, 1], [1, 5]], [2, 3])
    std_err("sparse_to_dense_error_out_of_bounds_unvalidated",
            [[0, 1], [1, 5]], [2, 3], validate=False)


def sparse_matmul_cases():
    r = rng(9)
    entries = sorted({(int(a), int(b)) for a, b in zip(r.integers(0, 5, 12),
                                                     r.integers(0, 6, 12))})
    entries.append(entries[0])  # a repeated entry adds twice
    idx = np.array(entries)
    # int64 has no CPU kernel in TensorFlow: those cases record its error.
    # complex64 is covered by unit tests (.npy feeds here are real).
    for dt in (np.float32, np.float64, np.float16, BF16, np.int32, np.int64):
        for adj_a in (False, True):
            for adj_b in (False, True):
                for n in ((3, 40) if dt in (np.float32, np.float16, BF16) else (3,)):
                    def build(dt=dt, adj_a=adj_a, adj_b=adj_b, n=n):
                        av = values((len(idx),), dt, 10)
                        bv = values((6, n), dt, 12)
                        a_shape = [5, 6]
                        ind = idx
                        if adj_a:
                            ind = idx[:, ::-1]
                            a_shape = [6, 5]
                        if adj_b:
                            bv = bv.T
                        a, aph, afed = feed(av, dt)
                        b, bph, bfed = feed(bv, dt)
                        y = tf.raw_ops.SparseTensorDenseMatMul(
                            a_indices=tf.constant(np.ascontiguousarray(ind)),
                            a_values=a, a_shape=tf.constant(a_shape, tf.int64),
                            b=b, adjoint_a=adj_a, adjoint_b=adj_b)
                        return y, {aph: afed, bph: bfed}
                    case(FAMILY, f"sparse_matmul_{dtype_name(dt)}_a{int(adj_a)}"
                         f"_b{int(adj_b)}_n{n}", build, **EXACT)

    def mm_err():
        return tf.raw_ops.SparseTensorDenseMatMul(
            a_indices=tf.constant([[0, 5]], tf.int64),
            a_values=tf.constant([1.0]), a_shape=tf.constant([2, 1], tf.int64),
            b=tf.constant([[1.0, 2.0]])), {}
    case(FAMILY, "sparse_matmul_error_out_of_bounds", mm_err)


def reshape_fill_cases():
    def reshape():
        ind = tf.constant([[0, 0, 1], [0, 2, 3], [1, 1, 0], [1, 2, 2]],
                          tf.int64)
        shape = tf.constant([2, 3, 4], tf.int64)
        outs = []
        for new in ([6, 4], [-1, 2], [24], [4, -1, 3], [2, 3, 4]):
            o = tf.raw_ops.SparseReshape(input_indices=ind, input_shape=shape,
                                         new_shape=tf.constant(new, tf.int64))
            outs += list(o)
        return outs, {}
    case(FAMILY, "sparse_reshape", reshape, **EXACT)

    def reshape_err():
        return list(tf.raw_ops.SparseReshape(
            input_indices=tf.constant([[1]], tf.int64),
            input_shape=tf.constant([5], tf.int64),
            new_shape=tf.constant([-1, 2], tf.int64))), {}
    case(FAMILY, "sparse_reshape_error_not_multiple", reshape_err)

    def fill(name, ind, dense_shape, dt=np.float32):
        def build():
            v, ph, fed = feed(values((len(ind),), dt, 14), dt)
            out = tf.raw_ops.SparseFillEmptyRows(
                indices=tf.constant(np.array(ind, np.int64).reshape(
                    len(ind), len(dense_shape))),
                values=v, dense_shape=tf.constant(dense_shape, tf.int64),
                default_value=tf.constant(np.array(-3).astype(dt)))
            grad = tf.raw_ops.SparseFillEmptyRowsGrad(
                reverse_index_map=out[3], grad_values=tf.cast(
                    tf.range(tf.shape(out[1])[0]) * 3 + 1, v.dtype))
            return list(out) + list(grad), {ph: fed}
        case(FAMILY, name, build, **EXACT)
    fill("fill_empty_rows_gaps", [[1, 0], [1, 3], [3, 2], [5, 1]], [7, 4])
    fill("fill_empty_rows_full_ordered", [[0, 0], [1, 3], [2, 2]], [3, 4],
         np.int64)
    fill("fill_empty_rows_unordered", [[2, 1], [0, 3], [2, 0]], [4, 4],
         np.float64)
    fill("fill_empty_rows_rank3", [[1, 0, 2], [1, 0, 1]], [3, 2, 3], np.int32)
    fill("fill_empty_rows_empty", [], [3, 2])

    def fill_err():
        return list(tf.raw_ops.SparseFillEmptyRows(
            indices=tf.constant([[3, 0]], tf.int64),
            values=tf.constant([1.0]),
            dense_shape=tf.constant([2, 2], tf.int64),
            default_value=tf.constant(0.0))), {}
    case(FAMILY, "fill_empty_rows_error_row", fill_err)

    # What Keras and feature columns build for a weighted, combined
    # embedding of a SparseTensor with empty rows, and its gradient.
    def safe_embedding():
        params, ph, v = feed(values((10, 4), np.float32, 15), np.float32)
        ids = tf.sparse.SparseTensor(
            indices=[[0, 0], [0, 1], [2, 0], [2, 1], [2, 2], [4, 0]],
            values=tf.constant([3, 7, 1, 3, 9, 0], tf.int64),
            dense_shape=[5, 3])
        weights = tf.sparse.SparseTensor(
            indices=ids.indices,
            values=tf.constant([0.5, 1.0, 2.0, 1.0, 0.25, 1.0]),
            dense_shape=ids.dense_shape)
        outs = []
        # One gradient keeps the graph small; the other combiners' gradient
        # ops are covered by embedding_lookup_sparse_grad.
        for combiner in ("sqrtn", "sum", "mean"):
            y = tf.nn.safe_embedding_lookup_sparse(params, ids, weights,
                                                   combiner=combiner)
            outs.append(y)
            if combiner == "sqrtn":
                outs.append(tf.gradients(tf.reduce_sum(y * y), params)[0])
        outs.append(tf.sparse.to_dense(tf.sparse.reshape(ids, [3, 5])))
        return [tf.convert_to_tensor(o) for o in outs], {ph: v}
    case(FAMILY, "safe_embedding_lookup_sparse", safe_embedding,
         rtol=1e-6, atol=1e-7)


def example(**features):
    """A serialized tf.train.Example: lists of floats, ints or bytes."""
    feats = {}
    for k, v in features.items():
        if v is None:  # a Feature with no list set
            feats[k] = tf.train.Feature()
        elif isinstance(v[0], float):
            feats[k] = tf.train.Feature(float_list=tf.train.FloatList(value=v))
        elif isinstance(v[0], int):
            feats[k] = tf.train.Feature(int64_list=tf.train.Int64List(value=v))
        else:
            feats[k] = tf.train.Feature(bytes_list=tf.train.BytesList(value=v))
    return tf.train.Example(features=tf.train.Features(
        feature=feats)).SerializeToString()


EXAMPLES = [
    example(x=[1.5, -2.0], ids=[3, 1, 4], w=[0.25, 0.5, 1.0],
            m=[1, 2, 3, 4], tag=[b"a"]),
    example(x=[0.125, 8.0], m=[5, 6, 7, 8], w=None, tag=[b"b", b"c"]),
    example(m=[9, 10, 11, 12], ids=[2], x=None),
]


def parse_v1(serialized, names=()):
    """ParseExample (tf.compat.v1's op): sparse ids (int64), w (float);
    dense x (float [2], default), m (int64 [2, 2], required)."""
    out = tf.raw_ops.ParseExample(
        serialized=serialized, names=tf.constant(list(names), tf.string),
        sparse_keys=[tf.constant("ids"), tf.constant("w")],
        dense_keys=[tf.constant("x"), tf.constant("m")],
        dense_defaults=[tf.constant([-1.0, -2.0]),
                        tf.zeros([0], tf.int64)],
        sparse_types=[tf.int64, tf.float32], dense_shapes=[[2], [2, 2]])
    return tf.nest.flatten(tuple(out))


def parse_single(serialized):
    return tf.nest.flatten(tuple(tf.raw_ops.ParseSingleExample(
        serialized=serialized,
        dense_defaults=[tf.constant([-1.0, -2.0]), tf.zeros([0], tf.int64)],
        num_sparse=2, sparse_keys=["ids", "w"], dense_keys=["x", "m"],
        sparse_types=[tf.int64, tf.float32], dense_shapes=[[2], [2, 2]])))


def parse_cases():
    def batch():
        return parse_v1(tf.constant(EXAMPLES), names=["e0", "e1", "e2"]), {}
    case(FAMILY, "parse_example", batch, **EXACT)

    def empty_batch():
        return parse_v1(tf.constant([], tf.string)), {}
    case(FAMILY, "parse_example_empty_batch", empty_batch, **EXACT)

    for i in range(3):
        def single(i=i):
            return parse_single(tf.constant(EXAMPLES[i])), {}
        case(FAMILY, f"parse_single_example_{i}", single, **EXACT)

    def err(name, serialized, fn=parse_v1):
        def build():
            return fn(tf.constant(serialized)), {}
        case(FAMILY, name, build)
    # FixedLenSequenceFeature: dense shapes with an unknown first dim.
    def sequences():
        ser = tf.constant([example(x=[1.0, 2.0, 3.0, 4.0], m=[1, 2, 3]),
                           example(x=[5.0, 6.0]), example(m=[7])])
        dense = tf.raw_ops.ParseExample(
            serialized=ser, names=tf.constant([], tf.string), sparse_keys=[],
            dense_keys=[tf.constant("x"), tf.constant("m")],
            dense_defaults=[tf.constant(-1.0), tf.constant(0, tf.int64)],
            sparse_types=[], dense_shapes=[[None, 2], [None]]).dense_values
        single = tf.raw_ops.ParseSingleExample(
            serialized=tf.constant(EXAMPLES[0]),
            dense_defaults=[tf.constant(-1.0), tf.constant(9, tf.int64)],
            num_sparse=0, sparse_keys=[], dense_keys=["x", "m"],
            sparse_types=[], dense_shapes=[[None], [None, 2]]).dense_values
        return list(dense) + list(single), {}
    case(FAMILY, "parse_example_sequence_features", sequences, **EXACT)

    def sequence_err():
        return list(tf.raw_ops.ParseExample(
            serialized=tf.constant([example(x=[1.0, 2.0, 3.0])]),
            names=tf.constant([], tf.string), sparse_keys=[],
            dense_keys=[tf.constant("x")], dense_defaults=[tf.constant(-1.0)],
            sparse_types=[], dense_shapes=[[None, 2]]).dense_values), {}
    case(FAMILY, "parse_example_error_sequence_stride", sequence_err)

    err("parse_example_error_malformed", [EXAMPLES[0], b"\x0a\x05garbage"])
    err("parse_example_error_missing", [example(x=[1.0, 2.0])])
    err("parse_example_error_type", [example(m=[1.0, 2.0, 3.0, 4.0])])
    err("parse_example_error_count", [example(m=[1, 2, 3])])
    err("parse_example_error_sparse_type",
        [example(m=[1, 2, 3, 4], w=[b"x"])])
    err("parse_single_example_error_malformed", b"\x0a\x05garbage",
        parse_single)

    # The classic TF1 input pipeline: records -> map(parse) -> batch, and
    # batch -> map(parse a batch), through an initializable iterator.
    def pipeline():
        ds = tf.data.Dataset.from_tensor_slices(tf.constant(EXAMPLES))
        def single_fixed(s):
            # The sparse outputs vary in length: batch their sums.
            out = parse_single(s)
            return (tf.reduce_sum(out[2]), tf.reduce_sum(out[3]), out[4][0],
                    out[6], out[7])
        singles = ds.map(single_fixed).batch(3)
        batches = ds.batch(2).map(lambda s: tuple(parse_v1(s)))
        fetches = []
        for d, k in ((singles, 1), (batches, 2)):
            it = tf1.data.make_initializable_iterator(d)
            deps = [it.initializer]
            for _ in range(k):
                with tf.control_dependencies(deps):
                    flat = tf.nest.flatten(it.get_next())
                fetches.extend(flat)
                deps = flat
        return fetches, {}
    case(FAMILY, "parse_in_dataset_map", pipeline, **EXACT)


def ragged_cases():
    def rt(values, *splits):
        r = tf.RaggedTensor.from_row_splits(values, splits[-1], validate=False)
        for sp in reversed(splits[:-1]):
            r = tf.RaggedTensor.from_row_splits(r, sp, validate=False)
        return r

    def to_tensor():
        v, ph, fed = feed(values((9,), np.float32, 16), np.float32)
        v2, ph2, fed2 = feed(values((5, 2), np.float32, 17), np.float32)
        splits = tf.constant([0, 2, 2, 5, 9], tf.int64)
        r = rt(v, splits)
        r2 = rt(v2, tf.constant([0, 2, 2, 5], tf.int32))
        nested = rt(v, tf.constant([0, 1, 3, 4], tf.int64),
                    tf.constant([0, 2, 2, 5, 9], tf.int64))
        outs = [r.to_tensor(), r.to_tensor(default_value=-1.0),
                r.to_tensor(shape=[2, 3]), r.to_tensor(shape=[6, 5]),
                r.to_tensor(shape=[None, 2]),
                r2.to_tensor(), r2.to_tensor(default_value=[7.0, 8.0]),
                r2.to_tensor(shape=[5, 4, 2]),
                nested.to_tensor(), nested.to_tensor(shape=[2, 1, 3])]
        # FIRST_DIM_SIZE + VALUE_ROWIDS, as from_value_rowids graphs give.
        outs.append(tf.raw_ops.RaggedTensorToTensor(
            shape=tf.constant(-1, tf.int64), values=v,
            default_value=tf.constant(0.5),
            row_partition_tensors=[tf.constant(5, tf.int64),
                                   tf.constant([0, 0, 1, 1, 1, 3, 3, 4, 4],
                                               tf.int64)],
            row_partition_types=["FIRST_DIM_SIZE", "VALUE_ROWIDS"]))
        outs.append(tf.raw_ops.RaggedTensorToTensor(
            shape=tf.constant([3, 2], tf.int32), values=v,
            default_value=tf.constant(0.5),
            row_partition_tensors=[tf.constant(5, tf.int32),
                                   tf.constant([0, 0, 1, 1, 1, 3, 3, 4, 4],
                                               tf.int32)],
            row_partition_types=["FIRST_DIM_SIZE", "VALUE_ROWIDS"]))
        return outs, {ph: fed, ph2: fed2}
    case(FAMILY, "ragged_to_tensor", to_tensor, **EXACT)

    def to_tensor_ints():
        r = rt(tf.constant([1, 2, 3, 4, 5], tf.int64),
               tf.constant([0, 3, 3, 5], tf.int64))
        return [r.to_tensor(), r.to_tensor(default_value=9),
                rt(tf.constant([True, False, True]),
                   tf.constant([0, 1, 3], tf.int64)).to_tensor()], {}
    case(FAMILY, "ragged_to_tensor_ints", to_tensor_ints, **EXACT)

    def rt_err(name, parts, types, vals=(1.0, 2.0, 3.0, 4.0, 5.0), shape=-1):
        def build():
            return tf.raw_ops.RaggedTensorToTensor(
                shape=tf.constant(shape, tf.int64),
                values=tf.constant(vals, tf.float32),
                default_value=tf.constant(0.0),
                row_partition_tensors=[tf.constant(p, tf.int64) for p in parts],
                row_partition_types=types), {}
        case(FAMILY, name, build)
    rt_err("ragged_to_tensor_error_splits", [[0, 3, 2, 5]], ["ROW_SPLITS"])
    rt_err("ragged_to_tensor_error_rowids", [2, [0, 0, 2, 2, 2]],
           ["FIRST_DIM_SIZE", "VALUE_ROWIDS"])

    def ragged_range():
        outs = []
        for dt, s, l, d in (
                (tf.int32, [0, 5, 2, 10], [3, 5, 10, 0], [1, 1, 3, -3]),
                (tf.int64, 0, [3, 1, 0], 1),
                (tf.float32, [0.1, 1.0], [5.0, 0.0], [0.3, -0.25]),
                (tf.float64, [0.1], [1.0], 0.1)):
            for splits in (tf.int32, tf.int64):
                outs += list(tf.raw_ops.RaggedRange(
                    starts=tf.constant(s, dt), limits=tf.constant(l, dt),
                    deltas=tf.constant(d, dt), Tsplits=splits))
        return outs, {}
    case(FAMILY, "ragged_range", ragged_range, **EXACT)

    def ragged_range_err():
        return list(tf.raw_ops.RaggedRange(starts=[0], limits=[3],
                                           deltas=[0])), {}
    case(FAMILY, "ragged_range_error_zero_delta", ragged_range_err)

    def to_sparse():
        v, ph, fed = feed(values((9,), np.float32, 18), np.float32)
        v2, ph2, fed2 = feed(values((5, 2), np.float32, 19), np.float32)
        nested = rt(v, tf.constant([0, 1, 3, 4], tf.int64),
                    tf.constant([0, 2, 2, 5, 9], tf.int64))
        r2 = rt(v2, tf.constant([0, 2, 2, 5], tf.int32))
        outs = []
        for r in (nested, r2):
            s = r.to_sparse()
            outs += [s.indices, s.values, s.dense_shape]
        return outs, {ph: fed, ph2: fed2}
    case(FAMILY, "ragged_to_sparse", to_sparse, **EXACT)


def sparse_add_cases():
    def build():
        outs = []
        a_ind = tf.constant([[0, 1], [1, 0], [1, 2], [3, 3]], tf.int64)
        b_ind = tf.constant([[0, 0], [0, 1], [1, 2], [2, 1], [3, 3]],
                            tf.int64)
        shape = tf.constant([4, 4], tf.int64)
        for dt, av, bv in (
                (tf.float32, [1.0, 2.0, 0.25, -1.5], [4.0, -1.0, -0.125, 3.0,
                                                      1.0]),
                (tf.float64, [1.0, 2.0, 0.25, -1.5], [4.0, -1.0, -0.125, 3.0,
                                                      1.0]),
                (tf.int32, [1, 2, 3, -4], [5, -1, -2, 7, 4]),
                (tf.int64, [1, 2, 3, -4], [5, -1, -2, 7, 4])):
            for th in (0, 1):
                out = tf.raw_ops.SparseAdd(
                    a_indices=a_ind, a_values=tf.constant(av, dt),
                    a_shape=shape, b_indices=b_ind,
                    b_values=tf.constant(bv, dt), b_shape=shape,
                    thresh=tf.constant(th, dt))
                outs += list(out)
        # tf.sparse.add of two SparseTensors, as graphs build it.
        sa = tf.sparse.SparseTensor([[0, 0], [2, 1]], [1.0, 2.0], [3, 2])
        sb = tf.sparse.SparseTensor([[1, 1], [2, 1]], [5.0, -2.0], [3, 2])
        s = tf.sparse.add(sa, sb, threshold=0.5)
        outs += [s.indices, s.values, s.dense_shape]
        return outs, {}
    case(FAMILY, "sparse_add", build, **EXACT)

    def reorder():
        outs = []
        for dt in (tf.float32, tf.int64, tf.bool):
            vals = tf.cast(tf.constant([1, 2, 3, 4, 0]), dt)
            out = tf.raw_ops.SparseReorder(
                input_indices=tf.constant([[1, 0, 2], [0, 2, 0], [1, 0, 1],
                                           [0, 1, 1], [0, 0, 3]], tf.int64),
                input_values=vals, input_shape=tf.constant([2, 3, 4],
                                                           tf.int64))
            outs += list(out)
        s = tf.sparse.reorder(tf.sparse.SparseTensor(
            [[2, 1], [0, 3], [1, 1]], [1.5, 2.5, 3.5], [3, 4]))
        outs += [s.indices, s.values, s.dense_shape]
        return outs, {}
    case(FAMILY, "sparse_reorder", reorder, **EXACT)

    def slice_concat():
        ind = tf.constant([[0, 0], [0, 3], [1, 1], [2, 2], [3, 0]], tf.int64)
        val = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0])
        shape = tf.constant([4, 4], tf.int64)
        outs = []
        for start, size in (([0, 1], [3, 3]), ([2, 0], [10, 10]),
                            ([5, 0], [1, 1]), ([-1, 0], [2, 2])):
            outs += list(tf.raw_ops.SparseSlice(
                indices=ind, values=val, shape=shape,
                start=tf.constant(start, tf.int64),
                size=tf.constant(size, tf.int64)))
        a = tf.sparse.SparseTensor([[0, 1], [1, 0]], [1, 2], [2, 3])
        b = tf.sparse.SparseTensor([[0, 0], [1, 2]], [3, 4], [2, 4])
        c = tf.sparse.SparseTensor([[1, 1], [0, 0]], [5, 6], [2, 1])
        for axis in (1, -1):
            s = tf.sparse.concat(axis, [a, b, c])
            outs += [s.indices, s.values, s.dense_shape]
        s = tf.sparse.concat(0, [a, a])
        outs += [s.indices, s.values, s.dense_shape]
        for k, axis in ((2, 1), (3, 0), (3, -1)):
            for piece in tf.sparse.split(sp_input=tf.sparse.SparseTensor(
                    ind, val, shape), num_split=k, axis=axis):
                outs += [piece.indices, piece.values, piece.dense_shape]
        return outs, {}
    case(FAMILY, "sparse_slice_concat", slice_concat, **EXACT)

    def dense_ops():
        outs = []
        for dt in (np.float32, np.float64, np.float16, np.int32, np.int64):
            ind = tf.constant([[0, 1], [1, 2], [0, 1], [1, 0]], tf.int64)
            sv = tf.constant(values((4,), dt, 20).astype(dt))
            dense = tf.constant(values((2, 3), dt, 21).astype(dt))
            if dt in (np.int32, np.int64):
                divisor = tf.constant(np.array([[3, -2, 5]], dt))
            else:
                divisor = tf.constant(values((1, 3), dt, 22).astype(dt) + 8)
            shape = tf.constant([2, 3], tf.int64)
            outs.append(tf.raw_ops.SparseTensorDenseAdd(
                a_indices=ind, a_values=sv, a_shape=shape, b=dense))
            outs.append(tf.raw_ops.SparseDenseCwiseMul(
                sp_indices=ind, sp_values=sv, sp_shape=shape, dense=dense))
            outs.append(tf.raw_ops.SparseDenseCwiseAdd(
                sp_indices=ind, sp_values=sv, sp_shape=shape,
                dense=dense[:, :1]))
            outs.append(tf.raw_ops.SparseDenseCwiseDiv(
                sp_indices=ind, sp_values=sv, sp_shape=shape, dense=divisor))
        # What tf.sparse.add(sparse, dense) and sparse * dense build.
        sp = tf.sparse.SparseTensor([[0, 0], [1, 2]], [1.5, -2.0], [2, 3])
        d = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        outs += [tf.sparse.add(sp, d), (sp * d).values, (sp / d[0]).values]
        return outs, {}
    case(FAMILY, "sparse_dense_ops", dense_ops, **EXACT)

    def reductions():
        outs = []
        ind = tf.constant([[0, 1, 2], [1, 2, 0], [0, 0, 1], [0, 1, 0],
                           [1, 0, 3], [0, 1, 2]], tf.int64)
        shape = tf.constant([2, 3, 4], tf.int64)
        for dt in (np.float32, np.float64, np.int32, np.int64, np.float16):
            v = tf.constant(values((6,), dt, 23).astype(dt))
            for op in (tf.raw_ops.SparseReduceSum, tf.raw_ops.SparseReduceMax):
                for axes in ([1], [0, 2], [-1, 2], [], [0, 1, 2]):
                    for keep in (False, True):
                        outs.append(op(input_indices=ind, input_values=v,
                                       input_shape=shape,
                                       reduction_axes=tf.constant(axes,
                                                                  tf.int32),
                                       keep_dims=keep))
        v = tf.constant(values((6,), np.float32, 23))
        for op in (tf.raw_ops.SparseReduceSumSparse,
                   tf.raw_ops.SparseReduceMaxSparse):
            for axes in ([1], [0, 2], [], [0, 1, 2]):
                for keep in (False, True):
                    outs += list(op(input_indices=ind, input_values=v,
                                    input_shape=shape,
                                    reduction_axes=tf.constant(axes, tf.int32),
                                    keep_dims=keep))
        sp = tf.sparse.SparseTensor([[0, 0], [1, 2], [1, 0]], [1.5, -2.0, 4.0],
                                    [2, 3])
        outs += [tf.sparse.reduce_sum(sp, axis=1), tf.sparse.reduce_max(sp)]
        s = tf.sparse.reduce_sum(sp, axis=0, output_is_sparse=True)
        outs += [s.indices, s.values, s.dense_shape]
        return outs, {}
    case(FAMILY, "sparse_reduce", reductions)

    def softmax_minmax():
        outs = []
        ind = tf.constant([[0, 0], [0, 2], [1, 1], [0, 1], [2, 0], [2, 3]],
                          tf.int64)
        shape = tf.constant([3, 4], tf.int64)
        for dt in (np.float32, np.float64, np.float16):
            v = tf.constant(values((6,), dt, 24).astype(dt))
            outs.append(tf.raw_ops.SparseSoftmax(sp_indices=ind, sp_values=v,
                                                 sp_shape=shape))
        a_ind = tf.constant([[0, 0], [1, 1], [2, 3]], tf.int64)
        b_ind = tf.constant([[0, 1], [1, 1], [2, 0], [2, 3]], tf.int64)
        for dt in (np.float32, np.int32, np.int64, np.float16):
            av = tf.constant(values((3,), dt, 25).astype(dt))
            bv = tf.constant(values((4,), dt, 26).astype(dt))
            for op in (tf.raw_ops.SparseSparseMaximum,
                       tf.raw_ops.SparseSparseMinimum):
                outs += list(op(a_indices=a_ind, a_values=av, a_shape=shape,
                                b_indices=b_ind, b_values=bv, b_shape=shape))
        sp = tf.sparse.SparseTensor([[0, 0], [0, 1], [1, 2]], [1.0, 2.0, 0.5],
                                    [2, 3])
        outs.append(tf.sparse.softmax(sp).values)
        m = tf.sparse.maximum(sp, tf.sparse.SparseTensor([[0, 1]], [3.0],
                                                         [2, 3]))
        outs += [m.indices, m.values]
        return outs, {}
    case(FAMILY, "sparse_softmax_min_max", softmax_minmax)

    # Gradients through tf.sparse.add (one sum dropped by the threshold)
    # and tf.sparse.slice: SparseAddGrad and SparseSliceGrad.
    def sparse_grads():
        av, aph, afed = feed(np.array([1.0, 2.0, -3.0, 4.0], np.float32),
                             np.float32)
        bv, bph, bfed = feed(np.array([5.0, 3.0, 0.5], np.float32), np.float32)
        a = tf.sparse.SparseTensor([[0, 0], [0, 2], [1, 1], [2, 0]], av,
                                   [3, 3])
        b = tf.sparse.SparseTensor([[0, 1], [1, 1], [2, 2]], bv, [3, 3])
        s = tf.sparse.add(a, b, threshold=0.25)
        w = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])[:tf.size(s.values)]
        ga, gb = tf.gradients(tf.reduce_sum(s.values * w), [av, bv])
        sl = tf.sparse.slice(a, [0, 1], [2, 2])
        (gs,) = tf.gradients(tf.reduce_sum(sl.values * 3.0), [av])
        return [s.values, ga, gb, sl.values, gs], {aph: afed, bph: bfed}
    case(FAMILY, "sparse_add_slice_grad", sparse_grads, **EXACT)

    # SparseCross as crossed feature columns build it: hashed crosses of
    # string and int64 sparse columns and a dense column (ids fetched; the
    # string cross is checked by unit tests).
    def cross():
        words = tf.sparse.SparseTensor(
            [[0, 0], [0, 1], [2, 0], [3, 0]],
            tf.constant(["cat", "a longer token of more than sixty-four bytes"
                         " to take FarmHash's long path, really", "dog",
                         "x"]), [4, 2])
        ids = tf.sparse.SparseTensor([[0, 0], [1, 0], [2, 0], [2, 1]],
                                     tf.constant([3, 7, -1, 12], tf.int64),
                                     [4, 2])
        dense = tf.constant([[5, 6], [7, 8], [9, 10], [11, 12]], tf.int64)
        outs = []
        for buckets, key in ((0, 0), (100, 0), (1000, 12345)):
            out = tf.raw_ops.SparseCross(
                indices=[words.indices, ids.indices],
                values=[words.values, ids.values],
                shapes=[words.dense_shape, ids.dense_shape],
                dense_inputs=[dense], hashed_output=True,
                num_buckets=buckets, hash_key=key, out_type=tf.int64,
                internal_type=tf.int64)
            outs += list(out)
        return outs, {}
    case(FAMILY, "sparse_cross_hashed", cross, **EXACT)

    def feature_column_cross():
        ser = tf.constant([
            example(ids=[3, 1], tok=[b"red", b"blue"]),
            example(ids=[9], tok=[b"green"]),
            example(ids=[4], tok=[b"red"]),
        ])
        ids = tf.feature_column.categorical_column_with_identity("ids", 10)
        crossed = tf.feature_column.crossed_column([ids, "tok"], 50)
        ind = tf.feature_column.indicator_column(crossed)
        feats = tf1.io.parse_example(
            ser, tf.feature_column.make_parse_example_spec([ind]))
        return tf1.feature_column.input_layer(feats, [ind]), {}
    case(FAMILY, "feature_column_crossed_indicator", feature_column_cross,
         **EXACT)

    def err():
        return list(tf.raw_ops.SparseAdd(
            a_indices=tf.constant([[0, 1]], tf.int64),
            a_values=tf.constant([1.0]), a_shape=tf.constant([2, 2], tf.int64),
            b_indices=tf.constant([[0, 1]], tf.int64),
            b_values=tf.constant([1.0]), b_shape=tf.constant([2, 3], tf.int64),
            thresh=tf.constant(0.0))), {}
    case(FAMILY, "sparse_add_error_shapes", err)


def main():
    segment_cases()
    sparse_to_dense_cases()
    sparse_matmul_cases()
    reshape_fill_cases()
    sparse_add_cases()
    parse_cases()
    ragged_cases()


if __name__ == "__main__":
    main()

"""Golden cases of the sparse family: the sparse segment reductions
(SparseSegmentSum/Mean/SqrtN, their WithNumSegments forms and gradients,
V1 and V2)
over every dtype TensorFlow's CPU kernels take, short and long segments
(TensorFlow sums a segment as a head of up to 9 rows and then blocks of 8,
and scales by 1/n below 10 rows but divides at 10 and above), gaps, and the
run-time errors for unsorted or out-of-range ids; as TensorFlow 2.21 runs
them.

Run with the TensorFlow virtualenv: $(tools/tf_env) tests/golden/gen_sparse.py

dfx follows TensorFlow's order of operations, so outputs must match exactly
(rtol = atol = 0) for every dtype. bfloat16 is fed as float32 and cast in
the graph (.npy has no bfloat16).
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


def main():
    segment_cases()


if __name__ == "__main__":
    main()

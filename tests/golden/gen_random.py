"""Golden cases of the random family: TensorFlow 2.21's random ops, stateful
and stateless, whose outputs dfx must reproduce bit for bit from the same
seeds.

Run with the TensorFlow virtualenv: $(tools/tf_env) tests/golden/gen_random.py

Every random output is compared exactly (rtol=0, atol=0): Philox, the
mantissa conversions, Box-Muller through the C library's logf/sincosf and the
rejection of truncated normals are all deterministic, and dfx follows them
bit for bit. Only a float64 sum over a million values has a tolerance (its
summation order is the reduction kernel's, not the generator's); the same
large tensors are also checked exactly through slices, min and max.

Seeds come the TensorFlow ways: an op seed alone (graph seed 87654321 is
filled in), a graph seed (tf1.set_random_seed) with or without an op seed,
raw seed/seed2 attrs, and seed tensors for the stateless ops. The golden
runner runs each case once in a fresh session; what a stateful kernel does
on its second run is tested in tests/kernels/random_ops_test.cc against
values taken from TensorFlow.

RandomGamma and RandomPoissonV2: each output reads its own stretch of the
stream (256 blocks apart), so TensorFlow's sharding does not change their
numbers; the samples are computed in double with the C library's log,
log1p, pow, exp and lgamma.

Multinomial: TensorFlow's CPU kernel gives row b of a shard the words after
the shard's start, so its own numbers change with the sharding of large
inputs; dfx gives the single-shard numbers for any thread count, and the
cases here are small enough for TensorFlow to run them in one shard.

Cases need no feeds except the run-time error cases, whose bad input comes
through a placeholder so that TensorFlow fails at run time.
"""

import numpy as np
import tensorflow as tf
from tensorflow.python.ops import gen_random_ops
from tensorflow.python.ops import gen_stateless_random_ops
from tensorflow.python.ops import gen_stateless_random_ops as sl1
from tensorflow.python.ops import gen_stateless_random_ops_v2 as sl2

from golden_lib import case, tf1

FAMILY = "random"
FLOATS = [tf.float32, tf.float64, tf.float16, tf.bfloat16]
SHAPES = {"scalar": [], "n7": [7], "3x5": [3, 5], "2x3x4": [2, 3, 4],
          "empty": [0, 3]}

_OPS = set()


def add(name, build, rtol=0.0, atol=0.0, note=""):
    """A case compared exactly unless a tolerance is given (with a reason)."""
    def wrapped():
        fetches, feeds = build()
        if not isinstance(fetches, (list, tuple)):
            fetches = [fetches]
        # golden_lib stores values through np.ascontiguousarray, which makes
        # 0-d arrays 1-d, so a scalar fetch would compare as shape [1]:
        # scalars are fetched reshaped to [1] (the unit tests check scalar
        # shapes).
        fetches = [tf.reshape(f, [1]) if f.shape.ndims == 0 else f
                   for f in fetches]
        _OPS.update(op.type for op in tf1.get_default_graph().get_operations())
        return fetches, feeds
    case(FAMILY, name, wrapped, rtol=rtol, atol=atol, note=note)


def no_feeds(fn):
    def build():
        return fn(), None
    return build


# --------------------------------------------------------------------------
# Stateful float ops: every dtype, several shapes, the ways seeds are set.

STATEFUL = {
    "uniform": gen_random_ops.random_uniform,
    "normal": gen_random_ops.random_standard_normal,
    "truncated": gen_random_ops.truncated_normal,
}


def stateful_float_cases():
    for kind, op in STATEFUL.items():
        for dt in FLOATS:
            for sname, shape in SHAPES.items():
                add(f"{kind}_{dt.name}_{sname}", no_feeds(
                    lambda op=op, dt=dt, shape=shape:
                    op(tf.constant(shape, tf.int32), dt, seed=11, seed2=7)))
        # int64 shape input, large seeds (both halves of the key and
        # counter), negative seeds.
        add(f"{kind}_int64_shape_big_seeds", no_feeds(
            lambda op=op: op(tf.constant([5, 9], tf.int64), tf.float32,
                             seed=0x123456789abcdef, seed2=-5)))
        add(f"{kind}_seed_only", no_feeds(
            lambda op=op: op([9], tf.float32, seed=0, seed2=3)))
    # What the public API emits: tf.random.* with an op seed only (graph
    # seed 87654321 filled in), a graph seed and op seed, a graph seed only.
    for api_name, api in [("uniform", tf.random.uniform),
                          ("normal", tf.random.normal),
                          ("truncated", tf.random.truncated_normal)]:
        add(f"api_{api_name}_op_seed", no_feeds(
            lambda api=api: api([4, 5], seed=42)))

        def graph_seed(api=api):
            tf1.set_random_seed(1234)
            return [api([4, 5], seed=42), api([3], dtype=tf.float64)]
        add(f"api_{api_name}_graph_seed", no_feeds(graph_seed))
    add("api_uniform_minval_maxval", no_feeds(
        lambda: tf.random.uniform([3, 7], -2.5, 4.0, seed=5)))
    add("api_normal_mean_stddev_float64", no_feeds(
        lambda: tf.random.normal([11], 3.0, 0.5, dtype=tf.float64, seed=5)))


def same_seed_cases():
    """Two separate ops with the same seeds draw the same numbers; with only
    a graph seed each op gets its own op seed and they differ."""
    def same():
        return [gen_random_ops.random_uniform([6], tf.float32, seed=3, seed2=4),
                gen_random_ops.random_uniform([6], tf.float32, seed=3, seed2=4)]
    add("two_ops_same_seeds", no_feeds(same))

    def graph_only():
        tf1.set_random_seed(77)
        return [tf.random.uniform([6]), tf.random.uniform([6])]
    add("two_ops_graph_seed_only", no_feeds(graph_only))

    def op_seed_twice():
        return [tf.random.normal([5], seed=8), tf.random.normal([5], seed=8)]
    add("two_ops_same_op_seed", no_feeds(op_seed_twice))


def large_cases():
    """Over a million values, fetched through exact slices, min and max (and
    a float64 sum with a tolerance: its order is the reduction's)."""
    for kind, op in STATEFUL.items():
        for dt in [tf.float32, tf.float64, tf.float16, tf.bfloat16]:
            def build(op=op, dt=dt):
                r = op([1000, 1003], dt, seed=21, seed2=22)
                flat = tf.reshape(r, [-1])
                return [flat[:9], flat[500001:500010], flat[-11:],
                        tf.reduce_max(r), tf.reduce_min(r)]
            add(f"large_{kind}_{dt.name}", no_feeds(build))

        def sum_build(op=op):
            r = op([1000, 1003], tf.float64, seed=21, seed2=22)
            return tf.reduce_sum(r)
        # A sum of 1,003,000 doubles: 1e-9 covers any summation order.
        add(f"large_{kind}_float64_sum", no_feeds(sum_build), rtol=1e-9,
            atol=1e-9)

    def stateless_large():
        r = tf.random.stateless_truncated_normal([1001, 999], seed=[5, 6])
        flat = tf.reshape(r, [-1])
        return [flat[:9], flat[700001:700010], flat[-7:], tf.reduce_max(r),
                tf.reduce_min(r)]
    add("large_stateless_truncated", no_feeds(stateless_large))

    def int_large():
        r = tf.random.uniform([1000, 1001], -1000, 1000, dtype=tf.int64,
                              seed=9)
        flat = tf.reshape(r, [-1])
        return [flat[:9], flat[-9:], tf.reduce_sum(r), tf.reduce_max(r),
                tf.reduce_min(r)]
    add("large_uniform_int64", no_feeds(int_large))


# --------------------------------------------------------------------------
# Stateful integer ops, shuffle, multinomial.

def uniform_int_cases():
    for dt in [tf.int32, tf.int64]:
        for sname, shape in SHAPES.items():
            add(f"uniform_int_{dt.name}_{sname}", no_feeds(
                lambda dt=dt, shape=shape: tf.random.uniform(
                    shape, -20, 37, dtype=dt, seed=13)))
        lo, hi = dt.min, dt.max
        add(f"uniform_int_{dt.name}_full_range", no_feeds(
            lambda dt=dt, lo=lo, hi=hi: gen_random_ops.random_uniform_int(
                [13], tf.constant(lo, dt), tf.constant(hi, dt), seed=1,
                seed2=2)))
        add(f"uniform_int_{dt.name}_int64_shape", no_feeds(
            lambda dt=dt: gen_random_ops.random_uniform_int(
                tf.constant([3, 3], tf.int64), tf.constant(0, dt),
                tf.constant(3, dt), seed=4, seed2=4)))


def shuffle_cases():
    for dt in [tf.float32, tf.int32, tf.int64, tf.bool, tf.float16,
               tf.uint8]:
        def build(dt=dt):
            v = tf.cast(tf.range(17) % 5, dt)
            return tf.random.shuffle(v, seed=5)
        add(f"shuffle_1d_{dt.name}", no_feeds(build))
    add("shuffle_2d", no_feeds(
        lambda: tf.random.shuffle(tf.reshape(tf.range(30.0), [10, 3]),
                                  seed=6)))
    add("shuffle_3d_graph_seed", no_feeds(
        lambda: (tf1.set_random_seed(3),
                 tf.random.shuffle(tf.reshape(tf.range(24), [4, 3, 2])))[1]))
    add("shuffle_one_row", no_feeds(
        lambda: tf.random.shuffle(tf.constant([[1, 2, 3]]), seed=1)))
    add("shuffle_scalar", no_feeds(
        lambda: tf.random.shuffle(tf.constant(4.5), seed=1)))
    add("shuffle_empty", no_feeds(
        lambda: tf.random.shuffle(tf.zeros([0, 2]), seed=1)))


def multinomial_cases():
    logits = np.log(np.array([[0.1, 0.2, 0.3, 0.4],
                              [0.7, 0.1, 0.1, 0.1],
                              [0.25, 0.25, 0.25, 0.25]]))
    for dt in [tf.float32, tf.float64, tf.float16, tf.bfloat16]:
        for out in [tf.int32, tf.int64]:
            add(f"multinomial_{dt.name}_{out.name}", no_feeds(
                lambda dt=dt, out=out: gen_random_ops.multinomial(
                    tf.constant(logits, dt), 7, seed=3, seed2=5,
                    output_dtype=out)))
            add(f"stateless_multinomial_{dt.name}_{out.name}", no_feeds(
                lambda dt=dt, out=out: tf.random.stateless_categorical(
                    tf.constant(logits, dt), 6, seed=[4, 9], dtype=out)))
    inf = np.inf
    add("multinomial_inf_logits", no_feeds(
        lambda: tf.random.categorical(
            tf.constant([[-inf, 0.0, 1.0], [2.0, -inf, -inf],
                         [1e30, 1.0, -1e30]]), 9, seed=2)))
    add("multinomial_zero_samples", no_feeds(
        lambda: tf.random.categorical(tf.zeros([2, 3]), 0, seed=2)))
    add("multinomial_empty_batch", no_feeds(
        lambda: tf.random.categorical(tf.zeros([0, 3]), 4, seed=2)))
    add("multinomial_graph_seed", no_feeds(
        lambda: (tf1.set_random_seed(10),
                 tf.random.categorical(tf.constant(logits, tf.float32),
                                       10))[1]))


def gamma_cases():
    """RandomGamma: alpha of 1 (exponential), below 1 (the boosted sample)
    and above it, per dtype; alpha's shape appended to `shape`; what
    tf.random.gamma emits."""
    alphas = [1.0, 0.3, 2.5, 0.05, 9.0, 1.0, 40.0]
    for dt in (tf.float16, tf.float32, tf.float64):
        add(f"gamma_{dt.name}", no_feeds(
            lambda dt=dt: gen_random_ops.random_gamma(
                tf.constant([6], tf.int32), tf.constant(alphas, dt), seed=5,
                seed2=9)))
    add("gamma_alpha_matrix_int64_shape", no_feeds(
        lambda: gen_random_ops.random_gamma(
            tf.constant([2, 3], tf.int64),
            tf.constant([[0.5, 1.5], [3.0, 0.9]], tf.float32), seed=1,
            seed2=2)))
    add("gamma_scalar_shape_and_alpha", no_feeds(
        lambda: gen_random_ops.random_gamma(
            tf.constant([], tf.int32), tf.constant(0.7, tf.float64),
            seed=3, seed2=0)))
    add("gamma_empty", no_feeds(
        lambda: gen_random_ops.random_gamma(
            tf.constant([0, 4], tf.int32), tf.constant([2.0], tf.float32),
            seed=3, seed2=4)))
    add("gamma_large", no_feeds(
        lambda: (lambda g: [g[::97], tf.reduce_mean(g)])(
            tf.reshape(gen_random_ops.random_gamma(
                tf.constant([40000], tf.int32),
                tf.constant([0.25, 4.0], tf.float32), seed=8, seed2=1),
                [-1]))),
        rtol=1e-5, atol=0.0,
        note="the mean is a sum: its order may differ")
    add("api_gamma_graph_seed", no_feeds(
        lambda: (tf1.set_random_seed(21),
                 tf.random.gamma([5], [1.5, 0.5], beta=[2.0, 1.0],
                                 seed=4))[1]))


def poisson_cases():
    """RandomPoissonV2: rates below 10 (Knuth's products) and from 10 up
    (Hormann's rejection), every rate and output type, and what
    tf.random.poisson emits."""
    for r_dt in (tf.float16, tf.float32, tf.float64, tf.int32, tf.int64):
        rates = ([0.5, 3.0, 9.99, 10.0, 25.0, 300.0, 0.0]
                 if r_dt.is_floating else [1, 3, 9, 10, 25, 300, 0])
        for out in (tf.float16, tf.float32, tf.float64, tf.int32, tf.int64):
            add(f"poisson_{r_dt.name}_{out.name}", no_feeds(
                lambda r_dt=r_dt, out=out, rates=rates:
                gen_random_ops.random_poisson_v2(
                    tf.constant([5], tf.int32), tf.constant(rates, r_dt),
                    seed=6, seed2=2, dtype=out)))
    add("poisson_rate_matrix_int64_shape", no_feeds(
        lambda: gen_random_ops.random_poisson_v2(
            tf.constant([2, 2], tf.int64),
            tf.constant([[1.5, 12.0], [60.0, 4.0]], tf.float32), seed=3,
            seed2=1, dtype=tf.int32)))
    add("poisson_empty", no_feeds(
        lambda: gen_random_ops.random_poisson_v2(
            tf.constant([3, 0], tf.int32), tf.constant([2.0], tf.float32),
            seed=3, seed2=4)))
    add("poisson_large", no_feeds(
        lambda: (lambda p: [p[::89], tf.reduce_sum(p)])(
            tf.reshape(gen_random_ops.random_poisson_v2(
                tf.constant([30000], tf.int32),
                tf.constant([0.8, 40.0], tf.float64), seed=8, seed2=1),
                [-1]))))
    add("api_poisson_graph_seed", no_feeds(
        lambda: (tf1.set_random_seed(13),
                 tf.random.poisson([4], [2.0, 17.5], dtype=tf.float32,
                                   seed=9))[1]))


def gamma_grad_cases():
    """RandomGammaGrad (what tf.random.gamma's gradient with respect to
    alpha computes from the samples) and IgammaGradA, with the gradient
    tf.gradients builds through a gamma sample."""
    a = np.array([[0.3, 1.0, 2.5], [7.0, 0.05, 40.0]])
    x = np.array([[0.1, 1.3, 2.0], [6.5, 1e-4, 38.0]])
    for dt in (tf.float32, tf.float64):
        add(f"random_gamma_grad_{dt.name}", no_feeds(
            lambda dt=dt: gen_random_ops.random_gamma_grad(
                tf.constant(a, dt), tf.constant(x, dt))),
            rtol=1e-6 if dt == tf.float32 else 1e-12, atol=0.0,
            note="Eigen's series and continued fractions, summed in order")
        add(f"igamma_grad_a_{dt.name}", no_feeds(
            lambda dt=dt: tf.raw_ops.IgammaGradA(
                a=tf.constant(a, dt), x=tf.constant(x, dt))),
            rtol=1e-6 if dt == tf.float32 else 1e-12, atol=0.0)

    def through_sample():
        alpha = tf.constant([0.5, 3.0], tf.float32)
        g = tf.random.gamma([4], alpha, seed=3)
        return [g, tf.gradients(tf.reduce_sum(g), alpha)[0]], None
    add("gamma_sample_gradient", through_sample, rtol=1e-6, atol=0.0,
        note="tf.gradients through a gamma sample: RandomGammaGrad")


def stateless_gamma_poisson_cases():
    """tf.random.stateless_gamma (StatelessRandomGammaV3 from a key and
    counter; V2 from a seed tensor) and tf.random.stateless_poisson
    (StatelessRandomPoisson): the same samplers as the stateful ops, the
    parameter broadcast to the end of `shape`."""
    for dt in (tf.float16, tf.float32, tf.float64):
        add(f"stateless_gamma_{dt.name}", no_feeds(
            lambda dt=dt: tf.random.stateless_gamma(
                [4, 3], seed=[7, 11], alpha=tf.constant([0.4, 1.0, 6.0], dt),
                dtype=dt)))
        add(f"stateless_gamma_v2_{dt.name}", no_feeds(
            lambda dt=dt: gen_stateless_random_ops.stateless_random_gamma_v2(
                tf.constant([5, 2], tf.int32), tf.constant([3, 4], tf.int64),
                tf.constant([0.5, 2.5], dt))))
    # TensorFlow's own API fails here (alpha broadcast against beta to
    # [2, 1], which [2, 6] does not end with): dfx must fail the same way.
    add("error_stateless_gamma_beta_shape", no_feeds(
        lambda: tf.random.stateless_gamma([2, 6], seed=[1, 2], alpha=1.5,
                                          beta=[[2.0], [0.5]])))
    for lam_dt in (tf.float32, tf.float64, tf.int32, tf.int64, tf.float16):
        for out in (tf.int32, tf.int64, tf.float32, tf.float64, tf.float16):
            lam = ([0.7, 4.0, 15.0, 250.0] if lam_dt.is_floating
                   else [1, 4, 15, 250])
            add(f"stateless_poisson_{lam_dt.name}_{out.name}", no_feeds(
                lambda lam_dt=lam_dt, out=out, lam=lam:
                tf.random.stateless_poisson(
                    [3, 4], seed=[5, 6], lam=tf.constant(lam, lam_dt),
                    dtype=out)))
    add("stateless_gamma_empty", no_feeds(
        lambda: tf.random.stateless_gamma([0, 3], seed=[1, 2],
                                          alpha=[1.0, 2.0, 3.0])))

    def bad_shape():
        ph = tf1.placeholder(tf.int32, [None])
        return (gen_stateless_random_ops.stateless_random_gamma_v2(
            ph, tf.constant([1, 2], tf.int64), tf.constant([1.0, 2.0])),
            {ph: np.array([3, 4], np.int32)})
    add("error_stateless_gamma_shape_end", bad_shape)


# --------------------------------------------------------------------------
# Stateless ops: V1 (seed tensor), V2 (key/counter/alg), key/counter ops.

STATELESS_V1 = {
    "uniform": sl1.stateless_random_uniform,
    "normal": sl1.stateless_random_normal,
    "truncated": sl1.stateless_truncated_normal,
}


def stateless_v1_cases():
    for kind, op in STATELESS_V1.items():
        for dt in FLOATS:
            for sname in ["n7", "3x5", "empty", "scalar"]:
                add(f"stateless_v1_{kind}_{dt.name}_{sname}", no_feeds(
                    lambda op=op, dt=dt, shape=SHAPES[sname]: op(
                        tf.constant(shape, tf.int32),
                        tf.constant([7, -3], tf.int64), dtype=dt)))
        add(f"stateless_v1_{kind}_int32_seed_int64_shape", no_feeds(
            lambda op=op: op(tf.constant([2, 5], tf.int64),
                             tf.constant([-1, 2 ** 31 - 1], tf.int32))))
    for dt in [tf.int32, tf.int64]:
        add(f"stateless_v1_uniform_int_{dt.name}", no_feeds(
            lambda dt=dt: sl1.stateless_random_uniform_int(
                [3, 7], tf.constant([1, 2], tf.int64), tf.constant(-5, dt),
                tf.constant(1000, dt))))
    for dt in [tf.int32, tf.int64, tf.uint32, tf.uint64]:
        add(f"stateless_v1_full_int_{dt.name}", no_feeds(
            lambda dt=dt: sl1.stateless_random_uniform_full_int(
                [2, 7], tf.constant([3, 4], tf.int32), dtype=dt)))


def stateless_v2_cases():
    # tf.random.stateless_* emit StatelessRandomGetKeyCounter + the V2 ops.
    apis = {"uniform": tf.random.stateless_uniform,
            "normal": tf.random.stateless_normal,
            "truncated": tf.random.stateless_truncated_normal}
    for kind, api in apis.items():
        for dt in FLOATS:
            for sname in ["n7", "3x5", "empty"]:
                add(f"stateless_v2_{kind}_{dt.name}_{sname}", no_feeds(
                    lambda api=api, dt=dt, shape=SHAPES[sname]: api(
                        shape, seed=[12, 34], dtype=dt)))
    for dt in [tf.int32, tf.int64]:
        add(f"stateless_v2_uniform_int_{dt.name}", no_feeds(
            lambda dt=dt: tf.random.stateless_uniform(
                [4, 9], seed=[5, 6], minval=-3, maxval=77, dtype=dt)))
    for dt in [tf.int32, tf.int64, tf.uint32, tf.uint64]:
        add(f"stateless_v2_full_int_{dt.name}", no_feeds(
            lambda dt=dt: tf.random.stateless_uniform(
                [3, 5], seed=[5, 6], minval=None, maxval=None, dtype=dt)))

    # The raw V2 ops with the algorithm given: 1 (Philox) and 3 (auto
    # select, Philox on CPU), and the key/counter/alg ops.
    def raw(alg):
        def build():
            key, counter, _ = sl2.stateless_random_get_key_counter_alg(
                tf.constant([9, 8], tf.int64))
            return [sl2.stateless_random_normal_v2([2, 5], key, counter, alg),
                    sl2.stateless_random_uniform_int_v2(
                        tf.constant([6], tf.int64), key, counter, alg,
                        tf.constant(-4, tf.int64), tf.constant(4, tf.int64))]
        return build
    add("stateless_v2_raw_alg1", no_feeds(raw(1)))
    add("stateless_v2_raw_alg3", no_feeds(raw(3)))
    add("stateless_v2_raw_explicit_key_counter", no_feeds(
        lambda: sl2.stateless_random_uniform_v2(
            [9], tf.constant(np.array([0xfedcba9876543210], np.uint64)),
            tf.constant(np.array([2 ** 64 - 3, 7], np.uint64)), 1)))
    add("stateless_get_alg", no_feeds(sl2.stateless_random_get_alg))
    # Keys and counters as the op gives them (compared as doubles by the
    # runner; the unit tests compare them exactly).
    add("stateless_get_key_counter", no_feeds(
        lambda: list(sl2.stateless_random_get_key_counter(
            tf.constant([1, 2], tf.int32)))))


# --------------------------------------------------------------------------
# What models use: dropout in training mode, variable initializers.

def model_cases():
    x = np.arange(1, 61, dtype=np.float32).reshape(3, 20) / 7.0

    def dropout(rate, seed=None, graph_seed=None):
        def build():
            if graph_seed is not None:
                tf1.set_random_seed(graph_seed)
            return tf.nn.dropout(tf.constant(x), rate=rate, seed=seed)
        return build
    add("dropout_rate0.5_graph_seed", no_feeds(dropout(0.5, 17, 1)))
    add("dropout_rate0.2_op_seed", no_feeds(dropout(0.2, 17)))
    add("dropout_rate0.9_graph_seed_only", no_feeds(dropout(0.9, None, 5)))
    add("dropout_noise_shape", no_feeds(
        lambda: (tf1.set_random_seed(2),
                 tf.nn.dropout(tf.constant(x), rate=0.4, seed=3,
                               noise_shape=[3, 1]))[1]))
    add("dropout_float64", no_feeds(
        lambda: tf.nn.dropout(tf.constant(x, tf.float64), rate=0.3, seed=4)))

    def v1_dropout():
        tf1.set_random_seed(8)
        return tf1.nn.dropout(tf.constant(x), keep_prob=0.75, seed=12)
    add("dropout_v1_keep_prob", no_feeds(v1_dropout))
    # (Keras 3's Dropout layer keeps its seed in a variable: its graph needs
    # the variable ops, so it is not a case of this family.)

    inits = {
        "glorot_uniform": lambda s: tf1.glorot_uniform_initializer(seed=s),
        "glorot_normal": lambda s: tf1.glorot_normal_initializer(seed=s),
        "truncated_normal": lambda s: tf1.truncated_normal_initializer(
            0.1, 0.02, seed=s),
        "random_normal": lambda s: tf1.random_normal_initializer(
            0.0, 1.5, seed=s),
        "random_uniform": lambda s: tf1.random_uniform_initializer(
            -0.05, 0.05, seed=s),
        "he_uniform": lambda s: tf1.keras.initializers.he_uniform(seed=s),
        "variance_scaling": lambda s: tf1.variance_scaling_initializer(
            2.0, "fan_in", "truncated_normal", seed=s),
    }
    for name, make in inits.items():
        add(f"init_{name}", no_feeds(lambda make=make: make(31)([8, 6])))

        def with_graph_seed(make=make):
            tf1.set_random_seed(99)
            return make(None)([5, 4, 3])
        add(f"init_{name}_graph_seed", no_feeds(with_graph_seed))

    # Keras 3 initializers with a seed: stateless V2 ops.
    add("keras3_glorot_uniform", no_feeds(
        lambda: tf.keras.initializers.GlorotUniform(seed=3)([6, 4])))
    add("keras3_truncated_normal", no_feeds(
        lambda: tf.keras.initializers.TruncatedNormal(seed=3)([6, 4])))


# --------------------------------------------------------------------------
# Errors TensorFlow raises at run time.

def scalar_placeholder(dtype):
    """A scalar fed as a [1] placeholder (golden_lib saves 0-d feeds as 1-d):
    (placeholder, scalar tensor)."""
    ph = tf1.placeholder(dtype, [1])
    return ph, tf.reshape(ph, [])


def error_cases():
    def shape_fed(op, shape):
        def build():
            ph = tf1.placeholder(tf.int32, [None])
            return op(ph), {ph: np.array(shape, np.int32)}
        return build
    add("error_negative_dim", shape_fed(
        lambda s: gen_random_ops.random_uniform(s, tf.float32, seed=1),
        [2, -1]))
    add("error_stateless_negative_dim", shape_fed(
        lambda s: tf.random.stateless_normal(s, seed=[1, 2]), [-3]))

    def bounds(lo, hi, shape=(3,)):
        def build():
            lo_ph, lo_t = scalar_placeholder(tf.int32)
            return (gen_random_ops.random_uniform_int(
                list(shape), lo_t, tf.constant(hi), seed=1, seed2=1),
                {lo_ph: np.array([lo], np.int32)})
        return build
    add("error_minval_not_below_maxval", bounds(5, 5))
    add("uniform_int_bad_bounds_empty_ok", bounds(5, 5, shape=(0,)))

    def seed_fed(seed):
        def build():
            ph = tf1.placeholder(tf.int64, [None])
            return (sl1.stateless_random_uniform([3], ph),
                    {ph: np.array(seed, np.int64)})
        return build
    add("error_stateless_seed_shape", seed_fed([1, 2, 3]))

    def alg_fed(alg):
        def build():
            ph, alg_t = scalar_placeholder(tf.int32)
            key, counter = sl2.stateless_random_get_key_counter([1, 2])
            return (sl2.stateless_random_uniform_v2([4], key, counter, alg_t),
                    {ph: np.array([alg], np.int32)})
        return build
    add("error_alg_threefry", alg_fed(2))
    add("error_alg_unknown", alg_fed(7))

    def samples_fed(n):
        def build():
            ph, n_t = scalar_placeholder(tf.int32)
            return (gen_random_ops.multinomial(tf.zeros([2, 3]), n_t, seed=1),
                    {ph: np.array([n], np.int32)})
        return build
    add("error_multinomial_negative_samples", samples_fed(-2))

    def classes_fed():
        ph = tf1.placeholder(tf.float32, [2, None])
        return (gen_random_ops.multinomial(ph, 3, seed=1),
                {ph: np.zeros([2, 0], np.float32)})
    add("error_multinomial_no_classes", classes_fed)


def main():
    stateful_float_cases()
    same_seed_cases()
    large_cases()
    uniform_int_cases()
    shuffle_cases()
    multinomial_cases()
    gamma_cases()
    poisson_cases()
    stateless_gamma_poisson_cases()
    gamma_grad_cases()
    stateless_v1_cases()
    stateless_v2_cases()
    model_cases()
    error_cases()
    print("ops used:", " ".join(sorted(_OPS)))


if __name__ == "__main__":
    main()

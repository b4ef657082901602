#!/usr/bin/env python3
"""Golden cases of the rng2 family: the tf.random.Generator ops on a
resource variable holding the RNG state (StatefulUniform and its kin,
RngSkip, RngReadAndSkip), the binomial samplers, RandomPoisson (v1) and
NonDeterministicInts (shape and dtype only), the candidate samplers with
ComputeAccidentalHits and a whole sampled_softmax_loss / nce_loss graph; and
TensorFlow's OpDefs and CPU kernel types of the family's ops.

The generator cases run several session steps on one graph
(gen_lookup.steps_case): each step reads the state the previous one left.

Run with the TensorFlow virtualenv:
    $(tools/tf_env) tests/golden/gen_rng2.py
"""

import os
import sys

os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

import golden_lib  # noqa: E402
from golden_lib import case, tf1  # noqa: E402
from gen_lookup import steps_case  # noqa: E402

FAMILY = "rng2"
raw = tf.raw_ops

# --------------------------------------------------------------------------
# The generator ops on a state variable


def state_var(value, dtype=tf.int64, shape=None):
    """A resource variable and its initializing op (AssignVariableOp)."""
    value = np.asarray(value)
    v = raw.VarHandleOp(dtype=dtype,
                        shape=list(value.shape) if shape is None else shape,
                        shared_name="")
    init = raw.AssignVariableOp(resource=v,
                                value=tf.constant(value, dtype=dtype))
    return v, init


def generator_ops(v, alg=1):
    """The generator ops on state variable v, keyed for steps_case."""
    a = tf.constant(alg, tf.int64)

    def shape(*dims, dtype=tf.int64):
        return tf.constant(list(dims), dtype)

    ops = {
        "uniform": raw.StatefulUniform(resource=v, algorithm=a,
                                       shape=shape(5)),
        "uniform_d": raw.StatefulUniform(resource=v, algorithm=a,
                                         shape=shape(2, 3), dtype=tf.float64),
        "uniform_h": raw.StatefulUniform(resource=v, algorithm=a,
                                         shape=shape(7, dtype=tf.int32),
                                         dtype=tf.float16),
        "uniform_b": raw.StatefulUniform(resource=v, algorithm=a,
                                         shape=shape(6), dtype=tf.bfloat16),
        "uniform_empty": raw.StatefulUniform(resource=v, algorithm=a,
                                             shape=shape(0, 4)),
        "normal": raw.StatefulStandardNormalV2(resource=v, algorithm=a,
                                               shape=shape(3, 3)),
        "normal_d": raw.StatefulStandardNormalV2(resource=v, algorithm=a,
                                                 shape=shape(5),
                                                 dtype=tf.float64),
        "normal_h": raw.StatefulStandardNormalV2(resource=v, algorithm=a,
                                                 shape=shape(5),
                                                 dtype=tf.float16),
        "truncated": raw.StatefulTruncatedNormal(resource=v, algorithm=a,
                                                 shape=shape(9)),
        "truncated_d": raw.StatefulTruncatedNormal(resource=v, algorithm=a,
                                                   shape=shape(2, 3),
                                                   dtype=tf.float64),
        "full_u64": raw.StatefulUniformFullInt(resource=v, algorithm=a,
                                               shape=shape(3)),
        "full_i32": raw.StatefulUniformFullInt(resource=v, algorithm=a,
                                               shape=shape(5), dtype=tf.int32),
        "full_u32": raw.StatefulUniformFullInt(resource=v, algorithm=a,
                                               shape=shape(2, 2),
                                               dtype=tf.uint32),
        "full_i64": raw.StatefulUniformFullInt(resource=v, algorithm=a,
                                               shape=shape(3), dtype=tf.int64),
        "int32": raw.StatefulUniformInt(resource=v, algorithm=a,
                                        shape=shape(7),
                                        minval=tf.constant(-5),
                                        maxval=tf.constant(17)),
        "int64": raw.StatefulUniformInt(
            resource=v, algorithm=a, shape=shape(2, 2),
            minval=tf.constant(-2**62, tf.int64),
            maxval=tf.constant(2**62 + 12345, tf.int64)),
        "int_empty_bad": raw.StatefulUniformInt(
            resource=v, algorithm=a, shape=shape(0),
            minval=tf.constant(3, tf.int64), maxval=tf.constant(3, tf.int64)),
        "read": raw.RngReadAndSkip(resource=v, alg=tf.constant(alg),
                                   delta=tf.constant(0, tf.uint64)),
        "read_skip": raw.RngReadAndSkip(resource=v, alg=tf.constant(alg),
                                        delta=tf.constant(5, tf.uint64)),
        "skip": raw.RngSkip(resource=v, algorithm=a,
                            delta=tf.constant(3, tf.int64)),
        "skip_back": raw.RngSkip(resource=v, algorithm=a,
                                 delta=tf.constant(-2, tf.int64)),
    }
    return ops


ALL_GENERATOR_STEPS = [
    "uniform", "read", "uniform_d", "uniform_h", "uniform_b", "uniform_empty",
    "read", "normal", "normal_d", "normal_h", "truncated", "truncated_d",
    "read", "full_u64", "full_i32", "full_u32", "full_i64", "int32", "int64",
    "int_empty_bad", "read", "read_skip", "read", "skip", "read", "skip_back",
    "read", "uniform"]


def generator_cases(folder):
    def build(state, alg=1):
        def b():
            v, init = state_var(state)
            ops = generator_ops(v, alg)
            ops["init"] = init
            return ops
        return b

    steps = [(["init"], {})] + [([k], {}) for k in ALL_GENERATOR_STEPS]
    steps_case(folder, "generator_philox_steps",
               build([0x12345678, 0x9abcdef, 0x1122334455]), steps,
               note="every generator op on one state, the state read "
               "between them (256 blocks per output value)")
    steps_case(folder, "generator_auto_select_steps",
               build([7, 0, 42], alg=3), steps[:8],
               note="algorithm 3 (auto-select) is Philox on CPU")
    # The counter's low word about to wrap: the skip carries into the high
    # word; a negative skip loses its carry as in TensorFlow.
    steps_case(folder, "generator_counter_carry",
               build([-3, 5, 99]),
               [(["init"], {}), (["read"], {}), (["uniform"], {}),
                (["read"], {}), (["skip_back"], {}), (["read"], {}),
                (["normal"], {}), (["read"], {})],
               note="the counter's low word wraps into the high word")
    # No case of a state longer than 3 words: TensorFlow 2.21 corrupts its
    # heap on one (RngReadAndSkip copies the whole state into its 3-word
    # output), and aborts.

    # tf.random.Generator itself: its state, its ops and their alg input.
    def from_seed():
        g = tf.random.Generator.from_seed(1234)
        return {"init": g.state.initializer,
                "state": g.state.read_value(),
                "normal": g.normal([2, 3]),
                "uniform": g.uniform([4], minval=-1.0, maxval=3.0),
                "uniform_int": g.uniform([5], minval=0, maxval=10,
                                         dtype=tf.int32),
                "full": g.uniform_full_int([3], dtype=tf.int64),
                "truncated": g.truncated_normal([4], stddev=2.0),
                "binomial": g.binomial([3, 2], counts=[10.0, 20.0],
                                       probs=[0.3, 0.6]),
                "skip": g.skip(10)}
    steps_case(folder, "generator_from_seed", from_seed,
               [(["init"], {}), (["state"], {}), (["normal"], {}),
                (["uniform"], {}), (["uniform_int"], {}), (["full"], {}),
                (["truncated"], {}), (["binomial"], {}), (["state"], {}),
                (["skip"], {}), (["state"], {}), (["normal"], {})],
               note="tf.random.Generator.from_seed in a tf1 graph")


def generator_error_cases(folder):
    def bad_state(name, state, dtype=tf.int64, note=""):
        def b():
            v, init = state_var(state, dtype)
            a = tf.constant(1, tf.int64)
            return {"init": init,
                    "uniform": raw.StatefulUniform(
                        resource=v, algorithm=a, shape=tf.constant([2])),
                    "skip": raw.RngSkip(resource=v, algorithm=a,
                                        delta=tf.constant(1, tf.int64)),
                    "read": raw.RngReadAndSkip(
                        resource=v, alg=tf.constant(1),
                        delta=tf.constant(1, tf.uint64)),
                    "binomial": raw.StatefulRandomBinomial(
                        resource=v, algorithm=a, shape=tf.constant([2]),
                        counts=tf.constant(5.0), probs=tf.constant(0.5))}
        steps_case(folder, f"state_error_{name}", b,
                   [(["init"], {}), (["uniform"], {}), (["skip"], {}),
                    (["read"], {}), (["binomial"], {})], note=note)

    bad_state("short", [1, 2], note="a Philox state needs 3 words")
    bad_state("int32", [1, 2, 3], tf.int32,
              note="the state must be int64")
    bad_state("matrix", [[1, 2, 3]], note="the state must be a vector")

    def bad_alg():
        v, init = state_var([1, 2, 3])
        out = {"init": init}
        for alg in (0, 2, 4):
            a = tf.constant(alg, tf.int64)
            out[f"uniform_{alg}"] = raw.StatefulUniform(
                resource=v, algorithm=a, shape=tf.constant([2]))
            out[f"skip_{alg}"] = raw.RngSkip(resource=v, algorithm=a,
                                             delta=tf.constant(1, tf.int64))
            out[f"read_{alg}"] = raw.RngReadAndSkip(
                resource=v, alg=tf.constant(alg),
                delta=tf.constant(1, tf.uint64))
        for alg in (2, 3):
            out[f"binomial_{alg}"] = raw.StatefulRandomBinomial(
                resource=v, algorithm=tf.constant(alg, tf.int64),
                shape=tf.constant([2]), counts=tf.constant(5.0),
                probs=tf.constant(0.5))
        out["read"] = raw.RngReadAndSkip(resource=v, alg=tf.constant(1),
                                         delta=tf.constant(0, tf.uint64))
        return out
    keys = ["init"] + [f"{op}_{alg}" for alg in (0, 2, 4)
                       for op in ("uniform", "skip", "read")] + [
        "binomial_2", "binomial_3", "read"]
    steps_case(folder, "algorithm_errors", bad_alg,
               [([k], {}) for k in keys],
               note="ThreeFry is Unimplemented on CPU, unknown ids "
               "InvalidArgument; the binomial takes Philox (1) only; "
               "failed ops leave the state as it was")

    def missing():
        v = raw.VarHandleOp(dtype=tf.int64, shape=[3], shared_name="")
        return {"uniform": raw.StatefulUniform(
            resource=v, algorithm=tf.constant(1, tf.int64),
            shape=tf.constant([2]))}
    steps_case(folder, "state_uninitialized", missing, [(["uniform"], {})],
               note="the variable was never assigned")

    def bad_shape():
        v, init = state_var([1, 2, 3])
        a = tf.constant(1, tf.int64)
        sh = tf1.placeholder(tf.int64, shape=None)
        return {"init": init, "sh": sh,
                "uniform": raw.StatefulUniform(resource=v, algorithm=a,
                                               shape=sh),
                "read": raw.RngReadAndSkip(resource=v, alg=tf.constant(1),
                                           delta=tf.constant(0, tf.uint64))}
    steps_case(folder, "shape_errors", bad_shape,
               [(["init"], {}), (["uniform"], {"sh": np.array([-1, 2])}),
                (["uniform"], {"sh": np.array([[2]])}),
                (["read"], {}), (["uniform"], {"sh": np.array([2, 0])}),
                (["read"], {})],
               note="a negative dim or a matrix shape fails before the "
               "state moves")


# --------------------------------------------------------------------------
# Binomial samplers


def binomial_cases():
    def stateless(name, shape, counts, probs, seed=(1, 2), dtype=tf.int64,
                  t=np.float64, note=""):
        def b():
            return raw.StatelessRandomBinomial(
                shape=tf.constant(shape, tf.int32),
                seed=tf.constant(seed, tf.int64),
                counts=tf.constant(np.asarray(counts, t)),
                probs=tf.constant(np.asarray(probs, t)), dtype=dtype), None
        case(FAMILY, f"stateless_binomial_{name}", b, rtol=0, atol=0,
             note=note)

    stateless("inversion", [8], 5.0, 0.3, note="count * p < 10: inversion")
    stateless("btrs", [8], 100.0, 0.3, note="count * p >= 10: BTRS")
    stateless("high_p", [3, 4], [7.0, 50.0, 200.0, 3.0],
              [0.9, 0.75, 0.99, 0.6], note="p > 0.5 samples count - X(1-p)")
    stateless("broadcast", [2, 3, 2], [[10.0], [40.0], [1000.0]],
              [0.2, 0.5], note="counts [3,1] and probs [2] broadcast")
    stateless("edges", [2, 6], [0.0, -3.0, 5.0, 5.0, 9.0, 1e6],
              [0.5, 0.5, 0.0, 1.0, -0.5, 0.5],
              note="count <= 0, p <= 0, p >= 1, a large count")
    stateless("float_out", [4, 2], [12.0, 30.0], [0.5, 0.1],
              dtype=tf.float32)
    stateless("nan_prob", [3], 5.0, np.nan, dtype=tf.float64,
              note="a NaN probability gives NaN")
    for tname, t in [("half", np.float16), ("float", np.float32)]:
        for oname, o in [("half", tf.float16), ("int32", tf.int32),
                         ("double", tf.float64)]:
            stateless(f"{tname}_to_{oname}", [5, 2], [20.0, 4.0], [0.5, 0.25],
                      t=t, dtype=o, seed=(7, 11))
    stateless("empty", [0, 2], [20.0, 4.0], [0.5, 0.25])
    stateless("seed_int32", [4], 30.0, 0.4, seed=(3, 4))

    def err(name, shape, counts, probs, seed=(1, 2), note=""):
        def b():
            sh = tf1.placeholder(tf.int32, shape=None)
            sd = tf1.placeholder(tf.int64, shape=None)
            return raw.StatelessRandomBinomial(
                shape=sh, seed=sd, counts=tf.constant(counts),
                probs=tf.constant(probs)), {
                    sh: np.asarray(shape, np.int32),
                    sd: np.asarray(seed, np.int64)}
        case(FAMILY, f"stateless_binomial_error_{name}", b, note=note)
    err("not_suffix", [4, 3], [1.0, 2.0], [0.5, 0.5],
        note="shape must end with the batch shape")
    err("incompatible", [4, 2], [1.0, 2.0, 3.0], [0.5, 0.5])
    err("shape_matrix", [[4, 2]], [1.0, 2.0], [0.5, 0.5])
    err("seed", [4], 1.0, 0.5, seed=(1, 2, 3))


def truncated_normal_cases():
    """StatelessParameterizedTruncatedNormal on small outputs, which
    TensorFlow draws in one shard (as dfx always does)."""
    def tn(name, shape, means, stddevs, minvals, maxvals, dtype=np.float32,
           seed=(4, 2), note=""):
        def b():
            c = lambda v: tf.constant(np.asarray(v, dtype))  # noqa: E731
            return raw.StatelessParameterizedTruncatedNormal(
                shape=tf.constant(shape, tf.int32),
                seed=tf.constant(seed, tf.int64), means=c(means),
                stddevs=c(stddevs), minvals=c(minvals),
                maxvals=c(maxvals)), None
        case(FAMILY, f"stateless_truncated_normal_{name}", b, note=note)
    tn("randn", [8], 0.0, 1.0, -2.0, 2.0, note="the normal sampler")
    tn("uniform", [3, 2], [0.0, 5.0], [1.0, 2.0], [0.5, 5.1], [0.9, 5.4],
       note="narrow bounds: the uniform sampler, per batch")
    tn("exponential", [6], 1.0, 0.5, 3.0, np.inf,
       note="a far one-sided bound: the exponential sampler")
    tn("flipped", [5], 0.0, 1.0, -np.inf, -2.5,
       note="an upper bound only: mirrored")
    tn("broadcast", [2, 2, 3], [[0.0], [10.0]], [1.0, 2.0, 3.0], -1.0,
       [[1.0], [20.0]], note="parameters broadcast to [2, 3]")
    tn("double", [4, 2], [0.0, 1.0], [1.0, 0.1], [-0.5, 1.2], [3.0, 1.3],
       dtype=np.float64)
    tn("half", [6], 0.5, 1.0, -1.0, 1.0, dtype=np.float16)
    tn("empty", [0, 2], [0.0, 1.0], 1.0, -1.0, 2.0)

    def err(name, shape, means, stddevs, minvals, maxvals, seed=(1, 2)):
        def b():
            ph = tf1.placeholder(tf.int32, shape=None)
            ps = tf1.placeholder(tf.int64, shape=None)
            c = lambda v: tf1.placeholder_with_default(  # noqa: E731
                np.asarray(v, np.float32), shape=None)
            return raw.StatelessParameterizedTruncatedNormal(
                shape=ph, seed=ps, means=c(means), stddevs=c(stddevs),
                minvals=c(minvals), maxvals=c(maxvals)), {
                    ph: np.asarray(shape, np.int32),
                    ps: np.asarray(seed, np.int64)}
        case(FAMILY, f"stateless_truncated_normal_error_{name}", b)
    err("stddev", [3], 0.0, -1.0, -1.0, 1.0)
    err("bounds", [3], 0.0, 1.0, 1.0, 1.0)
    err("both_infinite", [3], 0.0, 1.0, -np.inf, np.inf)
    err("not_suffix", [3], [0.0, 1.0], 1.0, -1.0, 1.0)
    err("incompatible", [2, 3], [0.0, 1.0, 2.0], [1.0, 1.0], -1.0, 1.0)
    err("seed", [3], 0.0, 1.0, -1.0, 1.0, seed=(1,))


def stateful_binomial_cases(folder):
    def b():
        v, init = state_var([11, 0, 5])
        a = tf.constant(1, tf.int64)

        def binom(shape, counts, probs, dtype=tf.int64):
            return raw.StatefulRandomBinomial(
                resource=v, algorithm=a, shape=tf.constant(shape),
                counts=tf.constant(counts), probs=tf.constant(probs),
                dtype=dtype)
        return {"init": init,
                "small": binom([6], 8.0, 0.4),
                "large": binom([3, 2], [50.0, 300.0], [0.2, 0.7],
                               dtype=tf.float32),
                "half": binom([2, 2], np.float16([5.0, 40.0]),
                              np.float16([0.5, 0.5]), dtype=tf.int32),
                "empty": binom([0, 2], [5.0, 6.0], [0.5, 0.5]),
                "read": raw.RngReadAndSkip(resource=v, alg=tf.constant(1),
                                           delta=tf.constant(0, tf.uint64))}
    steps_case(folder, "stateful_binomial_steps", b,
               [(["init"], {}), (["small"], {}), (["read"], {}),
                (["small"], {}), (["read"], {}),
                (["large"], {}), (["read"], {}), (["half"], {}),
                (["empty"], {}), (["read"], {}), (["small"], {})],
               note="the state moves 200 uniforms per sample (rounded up "
               "to 4) per batch; but not on the first call after the "
               "assignment, while the state's buffer is shared")


# --------------------------------------------------------------------------
# NonDeterministicInts


def nondeterministic_cases():
    for dt in [tf.int32, tf.int64, tf.uint32, tf.uint64]:
        def b(dt=dt):
            x = raw.NonDeterministicInts(shape=tf.constant([2, 3], tf.int64),
                                         dtype=dt)
            return [tf.shape(x)], None
        case(FAMILY, f"nondeterministic_ints_{dt.name}", b,
             note="the values are random: only the shape is compared")

# --------------------------------------------------------------------------
# Candidate samplers


TRUE_CLASSES = np.array([[0, 3], [7, 7], [2, 19], [5, 1]], np.int64)


def sampler(kind, true_classes, num_sampled, unique, range_max=20, seed=3,
            seed2=8, **kw):
    args = dict(true_classes=true_classes, num_true=true_classes.shape[1],
                num_sampled=num_sampled, unique=unique, seed=seed,
                seed2=seed2, **kw)
    if kind != "AllCandidateSampler":
        args["range_max"] = range_max
    return getattr(raw, kind)(**args)


SAMPLERS = ["UniformCandidateSampler", "LogUniformCandidateSampler",
            "LearnedUnigramCandidateSampler",
            "ThreadUnsafeUnigramCandidateSampler"]


def candidate_sampler_cases(folder):
    for kind in SAMPLERS + ["FixedUnigramCandidateSampler"]:
        extra = {}
        if kind == "FixedUnigramCandidateSampler":
            extra = dict(unigrams=[float(i % 5 + 1) for i in range(20)])
        for unique in (False, True):
            def b(kind=kind, unique=unique, extra=extra):
                tc = tf.constant(TRUE_CLASSES)
                out = sampler(kind, tc, 6, unique, **extra)
                return {"candidates": out[0], "true_expected": out[1],
                        "sampled_expected": out[2]}
            name = f"{kind}_{'unique' if unique else 'repeated'}"
            steps_case(folder, name, b,
                       [(["candidates", "true_expected",
                          "sampled_expected"], {})] * 3,
                       note="three steps of one kernel: its generator "
                       "moves on (and a unigram sampler learns the true "
                       "classes)")

    def all_sampler():
        out = sampler("AllCandidateSampler", tf.constant(TRUE_CLASSES), 20,
                      True)
        return {"c": out[0], "t": out[1], "s": out[2]}
    steps_case(folder, "AllCandidateSampler", all_sampler,
               [(["c", "t", "s"], {})] * 2)

    # Every value sampled: the unique loop needs many tries.
    def full_range(kind):
        def b():
            out = sampler(kind, tf.constant([[1], [4]], np.int64), 10, True,
                          range_max=10, seed=1, seed2=0)
            return {"c": out[0], "t": out[1], "s": out[2]}
        return b
    for kind in SAMPLERS:
        steps_case(folder, f"{kind}_full_range", full_range(kind),
                   [(["c", "t", "s"], {})] * 2)

    def big_range():
        out = sampler("LogUniformCandidateSampler",
                      tf.constant([[0, 999999], [12, 5000]], np.int64), 16,
                      True, range_max=1000000, seed=42, seed2=7)
        return {"c": out[0], "t": out[1], "s": out[2]}
    steps_case(folder, "LogUniformCandidateSampler_big_range", big_range,
               [(["c", "t", "s"], {})])
    # Not a power of two past 2^32: Uniform64's rejection on 64-bit words.
    def huge_uniform():
        out = sampler("UniformCandidateSampler",
                      tf.constant([[3]], np.int64), 8, False,
                      range_max=3 * 2**40 + 7, seed=5, seed2=6)
        return {"c": out[0], "t": out[1], "s": out[2]}
    steps_case(folder, "UniformCandidateSampler_huge_range", huge_uniform,
               [(["c", "t", "s"], {})] * 2)

    def fixed(name, **kw):
        def b():
            out = sampler("FixedUnigramCandidateSampler",
                          tf.constant(TRUE_CLASSES % 10), 7, kw.pop(
                              "unique", False), range_max=10, **kw)
            return {"c": out[0], "t": out[1], "s": out[2]}
        steps_case(folder, f"FixedUnigramCandidateSampler_{name}", b,
                   [(["c", "t", "s"], {})] * 2)
    unigrams = [0.5, 3.0, 1.0, 0.0, 7.5, 2.0, 2.0, 0.25, 4.0, 1.5]
    fixed("distortion", unigrams=unigrams, distortion=0.75)
    fixed("reserved", unigrams=unigrams[:7], num_reserved_ids=3)
    fixed("sharded", unigrams=unigrams * 3, num_shards=3, shard=1)
    fixed("sharded_reserved", unigrams=unigrams[:8] + [1.0, 2.0, 9.0, 1.0],
          num_reserved_ids=8, num_shards=2, shard=0, distortion=0.5)

    def sampler_error(name, kind, tc, num_sampled=3, unique=False,
                      range_max=20, **kw):
        def b():
            ph = tf1.placeholder(tf.int64, shape=None)
            out = raw.__dict__[kind](
                true_classes=ph, num_true=2, num_sampled=num_sampled,
                unique=unique, range_max=range_max, seed=1, seed2=2, **kw)
            return {"ph": ph, "c": out[0]}
        steps_case(folder, f"sampler_error_{name}", b,
                   [(["c"], {"ph": np.asarray(tc, np.int64)})])
    sampler_error("not_matrix", "UniformCandidateSampler", [1, 2])
    sampler_error("num_true", "UniformCandidateSampler", [[1, 2, 3]])
    sampler_error("out_of_range", "LogUniformCandidateSampler", [[1, 20]])
    sampler_error("negative", "LearnedUnigramCandidateSampler", [[1, -1]])
    sampler_error("range_too_small", "UniformCandidateSampler", [[1, 2]],
                  num_sampled=5, unique=True, range_max=4)
    sampler_error("fixed_wrong_size", "FixedUnigramCandidateSampler",
                  [[0, 1]], range_max=4, unigrams=[1.0, 2.0, 3.0])
    sampler_error("fixed_no_weights", "FixedUnigramCandidateSampler",
                  [[0, 1]], range_max=4)
    # (unique with fewer values of nonzero weight than num_sampled loops
    # until TensorFlow's CHECK on the number of tries aborts it: no case;
    # dfx refuses it, rng2_test.cc.)
    sampler_error("fixed_both", "FixedUnigramCandidateSampler", [[0, 1]],
                  range_max=3, unigrams=[1.0, 2.0, 3.0],
                  vocab_file="/nonexistent/vocab.csv")
    sampler_error("fixed_missing_file", "FixedUnigramCandidateSampler",
                  [[0, 1]], range_max=3, vocab_file="/nonexistent/vocab.csv")


def accidental_hits_cases():
    def hits(name, true_classes, sampled, note=""):
        def b():
            tc = np.asarray(true_classes, np.int64)
            out = raw.ComputeAccidentalHits(
                true_classes=tf.constant(tc),
                sampled_candidates=tf.constant(np.asarray(sampled, np.int64)),
                num_true=tc.shape[1] if tc.ndim == 2 else 1)
            return list(out), None
        case(FAMILY, f"accidental_hits_{name}", b, note=note)
    hits("some", [[0, 3], [7, 7], [2, 9]], [9, 3, 4, 7, 11])
    hits("duplicates", [[1], [2], [1]], [1, 5, 1, 2],
         note="a candidate sampled twice is found at its last position")
    hits("none", [[1, 2]], [3, 4])
    hits("empty", np.zeros([0, 2]), [3, 4])

    def bad(name, tc, sampled, num_true):
        def b():
            ph = tf1.placeholder(tf.int64, shape=None)
            ps = tf1.placeholder(tf.int64, shape=None)
            out = raw.ComputeAccidentalHits(true_classes=ph,
                                            sampled_candidates=ps,
                                            num_true=num_true)
            return list(out), {ph: np.asarray(tc, np.int64),
                               ps: np.asarray(sampled, np.int64)}
        case(FAMILY, f"accidental_hits_error_{name}", b)
    bad("num_true", [[1, 2]], [1], 3)
    bad("sampled_matrix", [[1, 2]], [[1]], 2)


def sampled_softmax_cases(folder):
    """A whole tf.nn.sampled_softmax_loss and nce_loss graph: the log-uniform
    sampler, accidental hits removed, the logits and the loss."""
    r = np.random.default_rng(4)
    weights = r.normal(size=[50, 8]).astype(np.float32)
    biases = r.normal(size=[50]).astype(np.float32)
    inputs = r.normal(size=[6, 8]).astype(np.float32)
    labels = np.array([[3], [17], [3], [45], [0], [29]], np.int64)

    def b():
        tf1.set_random_seed(77)
        loss = tf1.nn.sampled_softmax_loss(
            weights=tf.constant(weights), biases=tf.constant(biases),
            labels=tf.constant(labels), inputs=tf.constant(inputs),
            num_sampled=10, num_classes=50, seed=5)
        nce = tf1.nn.nce_loss(
            weights=tf.constant(weights), biases=tf.constant(biases),
            labels=tf.constant(labels), inputs=tf.constant(inputs),
            num_sampled=10, num_classes=50)
        return {"loss": loss, "nce": nce}
    steps_case(folder, "sampled_softmax_loss", b,
               [(["loss", "nce"], {})] * 2,
               note="tf.nn.sampled_softmax_loss and nce_loss (log-uniform "
               "sampler with accidental hits removed), two steps")

# --------------------------------------------------------------------------
# SampleDistortedBoundingBox (V1, V2, stateless)


def bounding_box_cases(folder):
    boxes = np.array([[[0.1, 0.2, 0.6, 0.7], [0.3, 0.05, 0.9, 0.5]]],
                     np.float32)

    def stateful(name, image_size, bxs, dtype=np.int32, v1=False, **kw):
        def b():
            size = tf.constant(np.asarray(image_size, dtype))
            bb = tf.constant(np.asarray(bxs, np.float32).reshape([1, -1, 4]))
            if v1:
                out = raw.SampleDistortedBoundingBox(
                    image_size=size, bounding_boxes=bb, seed=4, seed2=9, **kw)
            else:
                mo = kw.pop("min_object_covered", 0.1)
                out = raw.SampleDistortedBoundingBoxV2(
                    image_size=size, bounding_boxes=bb,
                    min_object_covered=tf.constant(mo, tf.float32), seed=4,
                    seed2=9, **kw)
            return {"begin": out[0], "size": out[1], "bboxes": out[2]}
        steps_case(folder, f"sample_box_{name}", b,
                   [(["begin", "size", "bboxes"], {})] * 3,
                   note="three steps of one seeded kernel")

    stateful("v1", [40, 60, 3], boxes, v1=True)
    stateful("v2", [40, 60, 3], boxes)
    stateful("v2_uint8", [200, 100, 3], boxes, dtype=np.uint8,
             min_object_covered=0.5, area_range=[0.3, 0.9])
    stateful("v2_int64", [480, 640, 3], boxes, dtype=np.int64,
             aspect_ratio_range=[0.5, 2.0], min_object_covered=0.0)
    stateful("v2_int16_tiny", [3, 5, 1], boxes, dtype=np.int16)
    stateful("no_boxes", [30, 30, 3], np.zeros([0, 4]),
             use_image_if_no_bounding_boxes=True, max_attempts=5)
    stateful("few_attempts", [50, 20, 3], boxes, min_object_covered=0.9,
             area_range=[0.05, 0.2], max_attempts=2)

    def stateless(name, image_size, bxs, seed, dtype=np.int32, **kw):
        def b():
            out = raw.StatelessSampleDistortedBoundingBox(
                image_size=tf.constant(np.asarray(image_size, dtype)),
                bounding_boxes=tf.constant(
                    np.asarray(bxs, np.float32).reshape([1, -1, 4])),
                min_object_covered=tf.constant(
                    kw.pop("min_object_covered", 0.1)),
                seed=tf.constant(seed, tf.int64), **kw)
            return list(out), None
        case(FAMILY, f"stateless_sample_box_{name}", b)
    stateless("a", [40, 60, 3], boxes, [1, 2])
    stateless("b", [40, 60, 3], boxes, [7, 3], dtype=np.int8)
    stateless("wide", [100, 900, 3], boxes, [5, 5],
              aspect_ratio_range=[3.0, 4.0], area_range=[0.1, 0.5])
    stateless("no_boxes", [32, 32, 3], np.zeros([0, 4]), [2, 2],
              use_image_if_no_bounding_boxes=True)

    def box_error(name, image_size, bxs, mo=0.1, **kw):
        def b():
            ph = tf1.placeholder(tf.int32, shape=None)
            pb = tf1.placeholder(tf.float32, shape=None)
            pm = tf1.placeholder(tf.float32, shape=None)
            out = raw.SampleDistortedBoundingBoxV2(
                image_size=ph, bounding_boxes=pb, min_object_covered=pm,
                seed=1, seed2=1, **kw)
            return list(out), {ph: np.asarray(image_size, np.int32),
                               pb: np.asarray(bxs, np.float32),
                               pm: np.asarray(mo, np.float32)}
        case(FAMILY, f"sample_box_error_{name}", b)
    box_error("image_size_rank", [[40, 60, 3]], boxes)
    box_error("image_size_len", [40, 60], boxes)
    box_error("boxes_rank", [40, 60, 3], boxes[0])
    box_error("boxes_last", [40, 60, 3], boxes[:, :, :3])
    box_error("box_outside", [40, 60, 3], boxes * 2)
    box_error("no_boxes", [40, 60, 3], np.zeros([1, 0, 4]))
    box_error("min_covered_negative", [40, 60, 3], boxes, mo=-0.5)
    box_error("min_covered_vector", [40, 60, 3], boxes, mo=[0.5])
    box_error("area_range", [40, 60, 3], boxes, area_range=[0.5, 1.5])
    box_error("aspect_range", [40, 60, 3], boxes,
              aspect_ratio_range=[0.0, 1.5])
    box_error("max_attempts", [40, 60, 3], boxes, max_attempts=0)
    box_error("height_huge", [2**31 - 1, 60, 3], boxes)

# --------------------------------------------------------------------------
# StatelessShuffle and RandomIndexShuffle


def shuffle_cases():
    def shuffle(name, value, key=7, counter=(3, 9), alg=1, note=""):
        def b():
            return raw.StatelessShuffle(
                value=tf.constant(value),
                key=tf.constant([key], tf.uint64),
                counter=tf.constant(list(counter), tf.uint64),
                alg=tf.constant(alg)), None
        case(FAMILY, f"stateless_shuffle_{name}", b, note=note)
    shuffle("vector", np.arange(10, dtype=np.int32))
    shuffle("rows", np.arange(24, dtype=np.float32).reshape([6, 4]),
            key=12345, counter=(0, 1))
    shuffle("strings", np.array([b"a", b"bb", b"ccc", b"d", b"e"]))
    shuffle("auto_select", np.arange(7, dtype=np.int64), alg=3)
    shuffle("one_row", np.arange(5, dtype=np.int32).reshape([1, 5]))
    shuffle("scalar", np.float64(2.5))
    shuffle("empty", np.zeros([0, 3], np.float32))
    shuffle("threefry", np.arange(5, dtype=np.int32), alg=2)
    shuffle("bad_alg", np.arange(5, dtype=np.int32), alg=7)

    def index(name, idx, seed, max_index, dtype=np.int64, tseed=np.int64,
              rounds=4):
        def b():
            return raw.RandomIndexShuffle(
                index=tf.constant(np.asarray(idx, dtype)),
                seed=tf.constant(np.asarray(seed, tseed)),
                max_index=tf.constant(np.asarray(max_index, dtype)),
                rounds=rounds), None
        case(FAMILY, f"random_index_shuffle_{name}", b)
    index("permutation", np.arange(20), [1, 2, 3], 19)
    index("scalar", 5, [4, 5, 6], 100, dtype=np.int32, tseed=np.int32)
    index("rounds_8", np.arange(10), [9, 8, 7], 9, rounds=8)
    index("seed_rows", [0, 1, 2], [[1, 2, 3], [1, 2, 3], [7, 7, 7]], 50,
          dtype=np.uint32, tseed=np.uint64)
    index("max_vector", [3, 3, 3], [11, 12, 13], [5, 500, 70000],
          dtype=np.uint64, tseed=np.uint32)
    index("big", [0, 1, 12345678901], [3, 1, 4], 2**40 + 17)
    index("huge", [0, 2**63 + 5], [2, 7, 1], 2**64 - 1, dtype=np.uint64)
    index("max_zero", [0, 0], [1, 1, 1], 0)

    def index_error(name, idx, seed, max_index, rounds=4):
        def b():
            return raw.RandomIndexShuffle(
                index=tf1.placeholder_with_default(
                    np.asarray(idx, np.int64), shape=None),
                seed=tf1.placeholder_with_default(
                    np.asarray(seed, np.int64), shape=None),
                max_index=tf1.placeholder_with_default(
                    np.asarray(max_index, np.int64), shape=None),
                rounds=rounds), None
        case(FAMILY, f"random_index_shuffle_error_{name}", b)
    index_error("seed_len", 1, [1, 2], 10)
    index_error("seed_rows", [1, 2], [[1, 2, 3]] * 3, 10)
    index_error("index_matrix", [[1, 2]], [1, 2, 3], 10)
    index_error("max_len", [1, 2], [1, 2, 3], [10, 11, 12])
    # No case of an odd or < 4 `rounds`: TensorFlow does not check it and
    # reads past its round keys (dfx refuses it: rng2_test.cc).

# --------------------------------------------------------------------------
# Ops deprecated long ago (RandomPoisson at GraphDef version 25, RandomCrop
# at 8): TensorFlow 2.21 builds no graph of them but still runs one whose
# GraphDef says it was produced before, with its old CPU kernels.

def legacy_case(name, build, fetches, note=""):
    """golden_lib.legacy_case in this family."""
    golden_lib.legacy_case(FAMILY, name, build, fetches, note=note)


def rename_node(op, drop_attrs=()):
    def edit(graph_def):
        for node in graph_def.node:
            if node.name == "legacy":
                node.op = op
                for a in drop_attrs:
                    del node.attr[a]
    return edit


def legacy_cases():
    for tname, t in [("half", np.float16), ("float", np.float32),
                     ("double", np.float64)]:
        def b(t=t):
            raw.RandomPoissonV2(
                shape=tf.constant([3, 2]),
                rate=tf.constant(np.asarray([0.5, 4.0, 30.0], t)),
                seed=5, seed2=9, dtype=tf.as_dtype(t), name="legacy")
            return rename_node("RandomPoisson", ["R"])
        legacy_case(f"random_poisson_v1_{tname}", b, ["legacy:0"],
                    note="RandomPoisson: RandomPoissonV2's stream with the "
                    "rate's dtype")

    image = np.arange(4 * 6 * 2, dtype=np.float32).reshape([4, 6, 2])
    for name, size, t in [("both", [2, 3], np.float32),
                          ("width_only", [4, 2], np.int32),
                          ("height_only", [1, 6], np.uint8),
                          ("same", [4, 6], np.float64)]:
        def b(size=size, t=t):
            img = tf.constant(image.astype(t))
            sz = tf.constant(np.asarray(size, np.int64))
            # A stand-in of the same inputs and attrs, renamed below.
            raw.StatelessRandomUniformFullInt(
                shape=tf.constant([1]), seed=tf.constant([1, 2], tf.int64),
                name="legacy")

            def edit(graph_def):
                for node in graph_def.node:
                    if node.name == "legacy":
                        node.op = "RandomCrop"
                        del node.input[:]
                        node.input.extend([img.op.name, sz.op.name])
                        node.attr.clear()
                        node.attr["T"].type = tf.as_dtype(t).as_datatype_enum
                        node.attr["seed"].i = 3
                        node.attr["seed2"].i = 4
            return edit
        legacy_case(f"random_crop_{name}", b, ["legacy:0"] * 2,
                    note="RandomCrop (v1): fetched twice in one run, one "
                    "draw")


OP_NAMES = ["StatefulUniform", "StatefulUniformFullInt", "StatefulUniformInt",
            "StatefulStandardNormalV2", "StatefulTruncatedNormal",
            "StatefulRandomBinomial", "RngSkip", "RngReadAndSkip",
            "NonDeterministicInts", "StatelessRandomBinomial",
            "StatelessParameterizedTruncatedNormal",
            "RandomPoisson", "UniformCandidateSampler",
            "LogUniformCandidateSampler", "LearnedUnigramCandidateSampler",
            "FixedUnigramCandidateSampler", "AllCandidateSampler",
            "ThreadUnsafeUnigramCandidateSampler", "ComputeAccidentalHits",
            "SampleDistortedBoundingBox", "SampleDistortedBoundingBoxV2",
            "StatelessSampleDistortedBoundingBox", "StatelessShuffle",
            "RandomIndexShuffle", "RandomCrop"]
TYPE_ATTRS = {"StatefulUniform": "dtype", "StatefulUniformFullInt": "dtype",
              "StatefulUniformInt": "dtype",
              "StatefulStandardNormalV2": "dtype",
              "StatefulTruncatedNormal": "dtype",
              "StatefulRandomBinomial": "dtype",
              "NonDeterministicInts": "dtype",
              "StatelessRandomBinomial": "dtype", "RandomPoisson": "dtype",
              "RandomIndexShuffle": "dtype",
              "StatelessParameterizedTruncatedNormal": "dtype"}


def main():
    folder = golden_lib._family_dir(FAMILY)
    generator_cases(folder)
    generator_error_cases(folder)
    binomial_cases()
    stateful_binomial_cases(folder)
    truncated_normal_cases()
    nondeterministic_cases()
    candidate_sampler_cases(folder)
    accidental_hits_cases()
    sampled_softmax_cases(folder)
    bounding_box_cases(folder)
    shuffle_cases()
    legacy_cases()
    golden_lib.write_op_defs(FAMILY, OP_NAMES, TYPE_ATTRS)


if __name__ == "__main__":
    main()

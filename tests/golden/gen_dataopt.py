#!/usr/bin/env python3
"""Golden cases of the dataopt family: the ops TensorFlow's tf.data
optimizer emits (ChooseFastestBranchDataset, MapDefun, WindowOp), as
TensorFlow 2.21 runs them. Also writes TensorFlow's OpDefs and CPU kernel
types of those ops (tests/golden/data/dataopt/tf_op_defs.pbtxt,
tf_cpu_kernels.txt), which tests/kernels/dataopt_test.cc compares with
dfx's.

    $(tools/tf_env) tests/golden/gen_dataopt.py

None of the three has a Python API in TensorFlow 2.21: the cases call the
raw ops, with Defun functions.

cfb_* cases: ChooseFastestBranchDataset over an iterator (multi-step: the
init, then one read a step). The branches yield the same elements (the
op's contract), so the elements do not depend on which branch wins;
tests/kernels/dataopt_test.cc checks the choice itself with branches that
deliberately differ. Ratios (a batching branch), captured arguments, an
input shorter than the experiments, a branch that ends during its
experiment (the next branch goes on reading the input, as TensorFlow's
kernel does), a branch that reads its input twice (InvalidArgument), the
cardinality (TensorFlow's n * numerator / denominator), bad ratios and
lengths, and iterator saves (gen_itckpt's round trips) during and after
the experiments. The pipelines are read without TensorFlow's autotuning
(its model iterator ends the pipeline at the first end of sequence).

md_* cases: MapDefun in plain graphs (and one inside a dataset's map
function): fully and partly known output shapes, captured inputs, several
outputs, dtypes, empty arguments, and its errors (dim 0 differs, a scalar
argument, a result of another shape or dtype, more results than outputs,
an empty argument with an output shape not fully known: Internal).
Left out: a function with fewer results than outputs (TensorFlow returns
the unwritten outputs' memory; dfx fails with InvalidArgument,
tests/kernels/dataopt_test.cc).

w_* cases: WindowOp, a dataset of its inputs taken len(output_shapes) at a
time (what is left over is dropped), read by an iterator; an element of
another dtype than output_types fails the read (InvalidArgument); its
cardinality; a map over it; an iterator save.
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import golden_lib  # noqa: E402
import gen_itckpt  # noqa: E402
from gen_lookup import steps_case  # noqa: E402
from golden_lib import tf, tf1  # noqa: E402
from tensorflow.python.framework import function  # noqa: E402

FAMILY = "dataopt"
OPS = ["ChooseFastestBranchDataset", "MapDefun", "WindowOp"]
raw = tf.raw_ops


def plain(ds):
    """ds without TensorFlow's static rewrites and autotuning."""
    o = tf.data.Options()
    o.experimental_optimization.apply_default_optimizations = False
    o.experimental_optimization.inject_prefetch = False
    o.autotune.enabled = False
    return ds.with_options(o)


def iterate_case(folder, name, make, pulls, note=""):
    """An iterator over plain(make()): its init, then `pulls` reads."""
    def build():
        it = tf1.data.make_initializable_iterator(plain(make()))
        out = {"init": it.initializer}
        for i, t in enumerate(tf.nest.flatten(it.get_next())):
            out[f"c{i}"] = t
        return out
    with tf.Graph().as_default():
        n = len(tf.nest.flatten(make().element_spec))
    keys = [f"c{i}" for i in range(n)]
    steps_case(folder, name, build, [(["init"], {})] + [(keys, {})] * pulls,
               note=note)


def r(n):
    return tf.data.Dataset.range(n)


def branch(spec, fn, captured=()):
    """A Defun taking a dataset variant of `spec` (and `captured` dtypes)
    and returning fn(dataset, *captured)'s variant."""
    @function.Defun(tf.variant, *captured)
    def b(v, *caps):
        return fn(tf.data.experimental.from_variant(v, spec), *caps)\
            ._variant_tensor
    return b


def choose(ds, fns, per_branch=2, numerator=1, denominator=1, other=(),
           lengths=None, captured=()):
    """ChooseFastestBranchDataset over ds with branches fns (each a
    dataset -> dataset function)."""
    spec = ds.element_spec
    branches = [branch(spec, f, captured) for f in fns]
    # The branches' element spec: the first applied to ds here (nodes the
    # graph does not run).
    out_spec = fns[0](ds, *[tf.zeros([], c) for c in captured]).element_spec
    flat = tf.nest.flatten(out_spec)
    v = raw.ChooseFastestBranchDataset(
        input_dataset=ds._variant_tensor,
        ratio_numerator=tf.constant(numerator, tf.int64),
        ratio_denominator=tf.constant(denominator, tf.int64),
        other_arguments=list(other), num_elements_per_branch=per_branch,
        branches=branches,
        other_arguments_lengths=(lengths if lengths is not None
                                 else [len(captured)] * len(fns)),
        output_types=[s.dtype for s in flat],
        output_shapes=[s.shape for s in flat])
    return tf.data.experimental.from_variant(v, out_spec)


def twice(d):
    return d.map(lambda x: x * 2)


def doubled(d):
    return d.map(lambda x: x + x)


def choose_cases(folder):
    iterate_case(folder, "cfb_map", lambda: choose(r(10), [twice, doubled]),
                 11)
    iterate_case(folder, "cfb_three_branches_per3",
                 lambda: choose(r(12), [twice, doubled, twice], 3), 13)
    iterate_case(folder, "cfb_one_branch_per1",
                 lambda: choose(r(4), [lambda d: d.map(lambda x: -x)], 1), 5)
    iterate_case(folder, "cfb_short_input",
                 lambda: choose(r(3), [twice, doubled]), 5,
                 note="the input ends during the second branch's turn")

    def sum_pairs(d):
        return d.batch(2).map(lambda x: tf.reduce_sum(x))

    def ends(d):
        return d.batch(2).map(lambda x: x[0] + x[-1])
    iterate_case(folder, "cfb_batch_ratio",
                 lambda: choose(r(10), [sum_pairs, ends], 2, 2, 1), 6,
                 note="two input elements per output: a take of four")
    iterate_case(folder, "cfb_ratio_denominator",
                 lambda: choose(r(9), [twice, doubled], 4, 1, 2), 10,
                 note="a take of 4 * 1 / 2 = 2 input elements per branch")

    def plus(d, c):
        return d.map(lambda x: x + c)

    def plus_rev(d, c):
        return d.map(lambda x: c + x)
    iterate_case(folder, "cfb_captured",
                 lambda: choose(r(5), [plus, plus_rev],
                                other=[tf.constant(10, tf.int64),
                                       tf.constant(10, tf.int64)],
                                captured=(tf.int64,)), 6)
    iterate_case(folder, "cfb_take_ends_early",
                 lambda: choose(r(10), [lambda d: d.take(1),
                                        lambda d: d.take(1)]), 6,
                 note="each branch ends after one element; the next goes "
                 "on with the input")

    def evens(d):
        return d.filter(lambda x: tf.equal(x % 2, 0))

    def evens2(d):
        return d.filter(lambda x: tf.equal(tf.math.floormod(x, 2), 0))
    iterate_case(folder, "cfb_filter", lambda: choose(r(10), [evens, evens2]),
                 6)

    def pairs():
        return tf.data.Dataset.from_tensor_slices(
            (tf.constant([1.5, 2.5, 3.5, 4.5], tf.float32),
             tf.constant(["a", "b", "c", "d"])))

    def suffix(d):
        return d.map(lambda x, s: (x * 2, s + "!"))

    def suffix2(d):
        return d.map(lambda x, s: (x + x, tf.strings.join([s, "!"])))
    iterate_case(folder, "cfb_float_string",
                 lambda: choose(pairs(), [suffix, suffix2]), 5)
    iterate_case(folder, "cfb_repeat_twice",
                 lambda: choose(r(3), [lambda d: d.repeat(2)], 1), 4,
                 note="the kept branch makes a second iterator of its "
                 "input: InvalidArgument")
    iterate_case(folder, "cfb_empty_input",
                 lambda: choose(r(0), [twice, doubled]), 3)
    # Bad ratios and lengths: the init fails.
    iterate_case(folder, "cfb_numerator_zero",
                 lambda: choose(r(5), [twice], numerator=0), 0)
    iterate_case(folder, "cfb_denominator_zero",
                 lambda: choose(r(5), [twice], denominator=0), 0)
    iterate_case(folder, "cfb_not_divisible",
                 lambda: choose(r(5), [twice], 3, 1, 2), 0)
    iterate_case(folder, "cfb_lengths_mismatch",
                 lambda: choose(r(5), [twice, doubled], lengths=[0]), 0)

    def cardinality(name, make):
        def build():
            return {"n": tf.data.experimental.cardinality(make())}
        steps_case(folder, name, build, [(["n"], {})])
    cardinality("cfb_cardinality", lambda: choose(r(10), [twice, doubled]))
    cardinality("cfb_cardinality_ratio",
                lambda: choose(r(10), [lambda d: d.batch(2)], 2, 2, 1))
    cardinality("cfb_cardinality_infinite",
                lambda: choose(r(3).repeat(), [twice]))

    rt = gen_itckpt.round_trip
    rt("cfb_save_during_experiments",
       lambda: plain(choose(r(10), [twice, doubled], 3)), 2, 9)
    rt("cfb_save_between_branches",
       lambda: plain(choose(r(10), [twice, doubled], 3)), 3, 8)
    rt("cfb_save_after_experiments",
       lambda: plain(choose(r(10), [twice, doubled], 2)), 6, 5)
    rt("cfb_save_batch_ratio",
       lambda: plain(choose(r(12), [lambda d: d.batch(2),
                                    lambda d: d.batch(2)], 2, 2, 1)), 3, 4)


@function.Defun(tf.int32)
def dbl(x):
    return x * 2


@function.Defun(tf.int32, tf.int32)
def add_c(x, c):
    return x + c


@function.Defun(tf.int32)
def two_results(x):
    return x * 2, tf.cast(x, tf.float32) / 4


@function.Defun(tf.int32)
def iota(x):
    return tf.range(x)


@function.Defun(tf.string)
def exclaim(s):
    return s + "!"


def map_defun(f, args, captured, types, shapes):
    return raw.MapDefun(arguments=args, captured_inputs=captured,
                        output_types=types, output_shapes=shapes, f=f)


def map_defun_cases():
    def case(name, build, note=""):
        golden_lib.case(FAMILY, name, build, note=note)

    m = np.arange(12, dtype=np.int32).reshape(4, 3)

    def simple(shape):
        def build():
            x = tf1.placeholder(tf.int32, [None, 3])
            return map_defun(dbl, [x], [], [tf.int32], [shape]), {x: m}
        return build
    case("md_full_shape", simple([3]))
    case("md_partial_shape", simple([None]))
    case("md_unknown_rank", simple(None))

    def captured():
        x = tf1.placeholder(tf.int32, [None])
        c = tf1.placeholder(tf.int32, [])
        return (map_defun(add_c, [x], [c], [tf.int32], [[]]),
                {x: np.array([1, 2, 3], np.int32), c: np.int32(100)})
    case("md_captured", captured)

    def two_args():
        x = tf1.placeholder(tf.int32, [None, 2])
        y = tf1.placeholder(tf.int32, [None, 2])
        return (map_defun(add_c, [x, y], [], [tf.int32], [[2]]),
                {x: m[:, :2].copy(), y: m[:, 1:].copy()})
    case("md_two_arguments", two_args)

    def two_outputs():
        x = tf1.placeholder(tf.int32, [None])
        return (map_defun(two_results, [x], [], [tf.int32, tf.float32],
                          [[], []]), {x: np.array([1, 2, 3, 5], np.int32)})
    case("md_two_outputs", two_outputs)

    def strings():
        x = tf1.placeholder(tf.string, [None])
        return (map_defun(exclaim, [x], [], [tf.string], [[]]),
                {x: np.array([b"a", b"bc", b""], object)})
    case("md_strings", strings)

    for dtype in (tf.float16, tf.float64, tf.int64, tf.uint8, tf.bool,
                  tf.complex64):
        @function.Defun(dtype)
        def ident(x):
            return tf.identity(tf.reverse(x, [0]))

        def build(dtype=dtype, ident=ident):
            v = np.arange(6).reshape(3, 2)
            if dtype == tf.bool:
                v = v % 2 == 0
            x = tf1.placeholder(dtype, [None, 2])
            return (map_defun(ident, [x], [], [dtype], [[2]]),
                    {x: v.astype(dtype.as_numpy_dtype)})
        case(f"md_reverse_{dtype.name}", build)

    def empty(shape):
        def build():
            x = tf1.placeholder(tf.int32, [None, 2])
            return (map_defun(dbl, [x], [], [tf.int32], [shape]),
                    {x: np.zeros([0, 2], np.int32)})
        return build
    case("md_empty_full_shape", empty([2]))
    case("md_empty_partial_shape", empty([None]),
         note="no call gives the output its shape: Internal")

    # Errors.
    def dim0():
        x = tf1.placeholder(tf.int32, [None])
        y = tf1.placeholder(tf.int32, [None])
        return (map_defun(add_c, [x, y], [], [tf.int32], [[]]),
                {x: np.array([1, 2, 3], np.int32),
                 y: np.array([1, 2], np.int32)})
    case("md_dim0_differs", dim0)

    def scalar():
        x = tf1.placeholder(tf.int32, None)
        return map_defun(dbl, [x], [], [tf.int32], [[]]), {x: np.int32(3)}
    case("md_scalar_argument", scalar)
    case("md_wrong_shape", simple([4]))

    def ragged():
        x = tf1.placeholder(tf.int32, [None])
        return (map_defun(iota, [x], [], [tf.int32], [[None]]),
                {x: np.array([2, 2, 3], np.int32)})
    case("md_rows_differ", ragged,
         note="the first row's result fixes the unknown dim")

    def wrong_dtype():
        x = tf1.placeholder(tf.int32, [None])
        return (map_defun(dbl, [x], [], [tf.float32], [[]]),
                {x: np.array([1], np.int32)})
    case("md_wrong_dtype", wrong_dtype)

    def more_results():
        x = tf1.placeholder(tf.int32, [None])
        return (map_defun(two_results, [x], [], [tf.int32], [[]]),
                {x: np.array([1], np.int32)})
    case("md_more_results", more_results)

    # Inside a dataset's map function.
    def in_dataset(folder):
        def make():
            return tf.data.Dataset.from_tensor_slices(m).batch(2).map(
                lambda x: map_defun(dbl, [x], [], [tf.int32], [[3]])[0])
        iterate_case(folder, "md_in_map_function", make, 3)
    in_dataset(golden_lib.family_folder(FAMILY))


def window(inputs, types, shapes):
    v = raw.WindowOp(inputs=inputs, output_types=types, output_shapes=shapes)
    spec = tuple(tf.TensorSpec(s, t) for s, t in zip(shapes, types))
    return tf.data.experimental.from_variant(
        v, spec[0] if len(spec) == 1 else spec)


def window_cases(folder):
    c = tf.constant
    iterate_case(folder, "w_scalars",
                 lambda: window([c(1), c(2), c(3)], [tf.int32], [[]]), 4)
    iterate_case(folder, "w_two_components_leftover",
                 lambda: window([c(1), c("a"), c(2), c("b"), c(3)],
                                [tf.int32, tf.string], [[], []]), 3,
                 note="the fifth input is not a whole element: dropped")
    iterate_case(folder, "w_matrices",
                 lambda: window([c([[1.5, 2.5]], tf.float64),
                                 c([[3.5, 4.5], [5.5, 6.5]], tf.float64)],
                                [tf.float64], [[None, 2]]), 3)
    iterate_case(folder, "w_empty_tensor",
                 lambda: window([tf.zeros([0, 3], tf.float32)],
                                [tf.float32], [[0, 3]]), 2)
    iterate_case(folder, "w_too_few_inputs",
                 lambda: window([c(1)], [tf.int32, tf.int32], [[], []]), 1)
    iterate_case(folder, "w_type_mismatch",
                 lambda: window([c(1.5), c(2.5)], [tf.int32], [[]]), 2,
                 note="the read fails: InvalidArgument")
    iterate_case(folder, "w_map",
                 lambda: window([c(1, tf.int64), c(5, tf.int64)],
                                [tf.int64], [[]]).map(lambda x: x * 10), 3)

    def cardinality():
        return {"n": tf.data.experimental.cardinality(
            window([c(1), c(2), c(3), c(4)], [tf.int32, tf.int32],
                   [[], []]))}
    steps_case(folder, "w_cardinality", cardinality, [(["n"], {})])
    gen_itckpt.round_trip(
        "w_save", lambda: window([c(i, tf.int64) for i in range(5)],
                                 [tf.int64], [[]]), 2, 4)


def main():
    folder = golden_lib.family_folder(FAMILY)
    golden_lib.write_op_defs(FAMILY, OPS)
    gen_itckpt.FAMILY = FAMILY
    choose_cases(folder)
    map_defun_cases()
    window_cases(folder)


if __name__ == "__main__":
    main()

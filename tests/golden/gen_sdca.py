"""Golden cases of the sdca family: SdcaOptimizer and SdcaOptimizerV2, the
step of TF1 estimators' linear models with the SDCA optimizer, as
TensorFlow 2.21 runs them.

    $(tools/tf_env) tests/golden/gen_sdca.py

TensorFlow's kernel visits a call's examples in an order drawn from
std::random_device (a shuffle; with adaptive sampling an importance sample
whose acceptance test draws from it too, and which may visit an example
twice and another never) and in parallel over its thread pool, so its
answer changes from run to run whenever two examples of one call share a
weight; intra_op_parallelism_threads=1 does not help, the order is still
random. dfx visits each example once in index order. Every case here is
one TensorFlow reproduces: one example per call, or examples whose
features touch different weights (dense rows whose non-zero columns do
not overlap: a zero feature neither reads nor moves its weight). Adaptive
sampling only with one example (TensorFlow then visits it once).

Multi-step cases train a small linear model through the graph an
estimator-style loop builds: reference variables for the weights and the
example state, the op, assign_add of the deltas and assign of the state
(one train op), then SdcaShrinkL1; calls on different examples that share
weights run one per step, so each sees the last one's update.

Left out: a loss_type outside the list (TensorFlow's graph validation
refuses it before the kernel, as dfx's does; tests/kernels/sdca_test.cc);
the inputs with which TensorFlow's kernel reads past a tensor (fewer dense
feature rows than examples, dense features with fewer columns than
dense_weights has elements, fewer sparse_feature_values than indices,
sparse_indices longer than sparse_weights): dfx says InvalidArgument
(tests/kernels/sdca_test.cc).
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import golden_lib  # noqa: E402
from golden_lib import tf, tf1  # noqa: E402

FAMILY = "sdca"
RAW = tf.raw_ops
OP_NAMES = ["SdcaOptimizer", "SdcaOptimizerV2"]
LOSSES = ["logistic_loss", "squared_loss", "hinge_loss", "smooth_hinge_loss",
          "poisson_loss"]


def f32(v):
    return np.asarray(v, np.float32)


def i64(v):
    return np.asarray(v, np.int64)


def sdca_op(v2, sparse, dense, weights, labels, state, loss="squared_loss",
            l1=0.0, l2=1.0, partitions=1, adaptive=False, inner=1):
    """sparse: list of (example_indices, feature_indices, values or None,
    sparse_indices, sparse_weights) of tensors; dense: list of (features,
    weights). Groups with values come first, as the op requires."""
    with_values = [g for g in sparse if g[2] is not None]
    kw = dict(
        sparse_example_indices=[g[0] for g in sparse],
        sparse_feature_indices=[g[1] for g in sparse],
        sparse_feature_values=[g[2] for g in with_values],
        dense_features=[g[0] for g in dense],
        example_weights=weights, example_labels=labels,
        sparse_indices=[g[3] for g in sparse],
        sparse_weights=[g[4] for g in sparse],
        dense_weights=[g[1] for g in dense],
        example_state_data=state, loss_type=loss, l1=l1, l2=l2,
        num_loss_partitions=partitions, num_inner_iterations=inner)
    if v2:
        return RAW.SdcaOptimizerV2(adaptive=adaptive, **kw)
    return RAW.SdcaOptimizer(adaptative=adaptive, **kw)


def outputs(result):
    state, ds, dd = result
    return [state] + list(ds) + list(dd)


def case(name, v2, sparse, dense, weights, labels, state, note="", **kw):
    """Every input a placeholder of unknown shape fed its value, so that
    TensorFlow's kernel (not its Python shape checks) judges shapes."""
    def build():
        feeds = {}

        def ph(value, tag):
            value = np.asarray(value)
            p = tf1.placeholder(tf.as_dtype(value.dtype), None, name=tag)
            feeds[p] = value
            return p
        sp = [tuple(None if x is None else ph(x, f"s{i}_{j}")
                    for j, x in enumerate(g)) for i, g in enumerate(sparse)]
        dn = [tuple(ph(x, f"d{i}_{j}") for j, x in enumerate(g))
              for i, g in enumerate(dense)]
        out = sdca_op(v2, sp, dn, ph(f32(weights), "weights"),
                      ph(f32(labels), "labels"), ph(f32(state).copy(),
                                                    "state"), **kw)
        return outputs(out), feeds
    golden_lib.case(FAMILY, name, build, note=note)
    # TensorFlow's kernel writes the new state into its input's buffer,
    # here the fed array itself; the case keeps the state fed (the last
    # feed), as it was before the run.
    n_feeds = (sum(len([x for x in g if x is not None]) for g in sparse) +
               2 * len(dense) + 3)
    golden_lib.save_value(
        os.path.join(golden_lib.family_folder(FAMILY), name),
        f"feed_{n_feeds - 1}", f32(state))


def zeros_state(n):
    return np.zeros([n, 4], np.float32)


# Three examples that share no weight: sparse group 0 (with values) gives
# example 0 features 1 and 3, example 2 feature 0; group 1 (no values)
# example 1 feature 2 and example 2 feature 1; the dense rows' non-zero
# columns differ.
def three_examples(nominal=0.0):
    w = nominal
    sparse = [
        (i64([0, 0, 2]), i64([1, 3, 0]), f32([0.5, -2.0, 1.5]),
         i64([0, 1, 2, 3]), f32([w, -w, 2 * w, 0.5 * w])),
        (i64([1, 2]), i64([2, 1]), None, i64([0, 1, 2]),
         f32([w, 0.25 * w, -w])),
    ]
    dense = [(f32([[1.0, 0, 0], [0, -0.5, 0], [0, 0, 2.0]]),
              f32([0.5 * w, w, -w]))]
    return sparse, dense


LABELS = {
    "logistic_loss": [1, 0, 1],
    "squared_loss": [0.5, -1.25, 2.0],
    "hinge_loss": [0, 1, 1],
    "smooth_hinge_loss": [1, 1, 0],
    "poisson_loss": [0, 2, 3.5],
}
# A state a previous call could have left: duals of the label's sign.
STATES = {
    "logistic_loss": [[0.25, 1, 0.5, 1], [-0.5, 1, 0.5, 1], [0.75, 1, 1, 1]],
    "squared_loss": [[0.1, 0, 0, 1], [-0.6, 0, 0, 1], [0.8, 0, 0, 1]],
    "hinge_loss": [[-0.5, 0, 0, 1], [0.25, 0, 0, 1], [1.0, 0, 0, 1]],
    "smooth_hinge_loss": [[0.5, 0, 0, 1], [0.1, 0, 0, 1], [-0.3, 0, 0, 1]],
    "poisson_loss": [[-0.5, 0, 0, 1], [1.0, 0, 0, 1], [0.5, 0, 0, 1]],
}


def loss_cases():
    for loss in LOSSES:
        short = loss.replace("_loss", "")
        for v2 in (True, False):
            op = "v2" if v2 else "v1"
            sparse, dense = three_examples()
            case(f"{short}_{op}", v2, sparse, dense, [1, 2.5, 0.5],
                 LABELS[loss], zeros_state(3), loss=loss,
                 note="first call: zero weights and duals")
        sparse, dense = three_examples(0.75)
        case(f"{short}_state_weights", True, sparse, dense, [1, 1, 2],
             LABELS[loss], STATES[loss], loss=loss,
             note="weights and duals a previous step left")
        case(f"{short}_l1_partitions", True, sparse, dense, [1, 1, 2],
             LABELS[loss], STATES[loss], loss=loss, l1=0.5, l2=2.0,
             partitions=3, note="L1 shrinkage, three loss partitions")
        for v2 in (True, False):
            op = "v2" if v2 else "v1"
            case(f"{short}_adaptive_{op}", v2,
                 [(i64([0, 0]), i64([0, 2]), f32([1.5, -1]), i64([0, 1, 2]),
                   f32([0.5, 0.25, -0.75]))],
                 [(f32([[0.5, 2.0]]), f32([0.3, -0.2]))], [1.5],
                 LABELS[loss][-1:], [STATES[loss][2]], loss=loss,
                 adaptive=True, l1=0.1, l2=0.5,
                 note="adaptive sampling of one example")


def shape_cases():
    sparse, dense = three_examples(0.5)
    case("sparse_only", True, sparse, [], [1, 1, 1], [1, 2, 3],
         zeros_state(3))
    case("dense_only", True, [], dense, [1, 1, 1], [1, 2, 3], zeros_state(3))
    case("two_dense_groups", True, [],
         dense + [(f32([[0, 1], [0, 0], [3, 0]]), f32([0.5, 1]))],
         [1, 1, 1], [1, 2, 3], zeros_state(3),
         note="column 0 of the second group is example 2's alone")
    case("weights_matrix", True,
         [(i64([0, 1]), i64([4, 1]), f32([1, 2]), i64([1, 4]),
           f32([[0.5], [-1]]))],
         [(f32([[1, 0, 0, 0], [0, 0, 0, 2]]), f32([[0.5, 1], [1, -2]]))],
         [1, 1], [1, 0], zeros_state(2), loss="logistic_loss",
         note="deltas shaped as the weights; sparse_indices in any order")
    case("empty_batch", True,
         [(i64([]), i64([]), f32([]), i64([0, 1]), f32([1, 2]))],
         [(np.zeros([0, 2], np.float32), f32([1, 2]))], np.zeros([0]),
         np.zeros([0]), zeros_state(0))
    case("example_without_features", True,
         [(i64([1]), i64([0]), None, i64([0, 1]), f32([1, 2]))], [],
         [1, 1], [0.5, 2], zeros_state(2),
         note="example 0 has no features: norm 0")
    case("example_indices_out_of_order", True,
         [(i64([1, 0, 2]), i64([0, 1, 2]), None, i64([0, 1, 2]),
           f32([0, 0, 0]))], [], [1, 1, 1], [1, 2, 3], zeros_state(3),
         note="only the run of each example's id in turn is read, as in "
              "TensorFlow: example 0 gets nothing, the entry (0, 1) is "
              "never reached")
    case("repeated_sparse_index", True,
         [(i64([0]), i64([7]), None, i64([7, 3, 7]), f32([1, 2, 3]))], [],
         [1], [2], zeros_state(1),
         note="feature 7 maps to the last of its positions")
    case("example_weights_matrix", True, sparse, dense, [[1], [2], [0.5]],
         [1, 2, 3], zeros_state(3), note="example weights of any shape")
    case("inner_iterations_unused", True, sparse, dense, [1, 1, 1],
         [1, 2, 3], zeros_state(3), inner=7)


def error_cases():
    sparse, dense = three_examples(0.5)
    case("err_labels_count", True, sparse, dense, [1, 1, 1], [1, 2],
         zeros_state(3))
    case("err_dense_rank", True, [], [(f32([1, 2, 3]), f32([1, 2, 3]))],
         [1, 1, 1], [1, 2, 3], zeros_state(3))
    case("err_dense_too_wide", True, [], [(f32([[1, 2, 3]]), f32([1, 2]))],
         [1], [1], zeros_state(1))
    case("err_dense_no_columns", True, [],
         [(np.zeros([1, 0], np.float32), f32([1]))], [1], [1],
         zeros_state(1))
    case("err_mismatched_indices", True,
         [(i64([0, 0]), i64([0]), None, i64([0, 1]), f32([1, 2]))], [],
         [1], [1], zeros_state(1))
    case("err_sparse_index_out_of_range", True,
         [(i64([0]), i64([5]), None, i64([0, 1]), f32([1, 2]))], [],
         [1], [1], zeros_state(1))
    case("err_duplicate_index", True,
         [(i64([0, 0]), i64([1, 1]), None, i64([0, 1]), f32([1, 2]))], [],
         [1], [1], zeros_state(1))
    case("err_state_rank", True, sparse, dense, [1, 1, 1], [1, 2, 3],
         np.zeros([12], np.float32))
    case("err_state_shape", True, sparse, dense, [1, 1, 1], [1, 2, 3],
         np.zeros([3, 3], np.float32))
    case("err_state_rows", True, sparse, dense, [1, 1, 1], [1, 2, 3],
         zeros_state(2))
    case("err_logistic_label", True, sparse, dense, [1, 1, 1], [1, 0.5, 0],
         zeros_state(3), loss="logistic_loss")
    case("err_hinge_label", False, sparse, dense, [1, 1, 1], [2, 1, 0],
         zeros_state(3), loss="hinge_loss")
    case("err_poisson_label", True, sparse, dense, [1, 1, 1], [1, -1, 0],
         zeros_state(3), loss="poisson_loss")
    case("err_no_features", True, [], [], [1], [1], zeros_state(1))


def train_cases():
    """A linear model trained for a few steps as an estimator-style loop
    does: weights and example state in reference variables."""
    def model(loss, labels, batches, l1=0.0, l2=1.0, v2=True):
        def build():
            sw = tf1.Variable(np.zeros(5, np.float32), use_resource=False,
                              name="sparse_w")
            dw = tf1.Variable(np.zeros(2, np.float32), use_resource=False,
                              name="dense_w")
            named = {"init": None, "sparse_w": None, "dense_w": None}
            inits = [sw.initializer, dw.initializer]
            for b, (ex, fe, va, dense_rows) in enumerate(batches):
                n = len(dense_rows)
                state = tf1.Variable(np.zeros([n, 4], np.float32),
                                     use_resource=False, name=f"state{b}")
                inits.append(state.initializer)
                out_state, ds, dd = sdca_op(
                    v2,
                    [(tf.constant(i64(ex)), tf.constant(i64(fe)),
                      tf.constant(f32(va)), tf.constant(i64(range(5))),
                      sw)],
                    [(tf.constant(f32(dense_rows)), dw)],
                    tf.constant(np.ones(n, np.float32)),
                    tf.constant(f32(labels[b])), state, loss=loss, l1=l1,
                    l2=l2)
                named[f"train{b}"] = tf1.group(
                    tf1.assign_add(sw, ds[0]), tf1.assign_add(dw, dd[0]),
                    tf1.assign(state, out_state))
                named[f"state{b}"] = state.read_value()
            named["init"] = tf1.group(*inits)
            named["shrink"] = RAW.SdcaShrinkL1(weights=[sw, dw], l1=l1,
                                               l2=l2)
            named["sparse_w"] = sw.read_value()
            named["dense_w"] = dw.read_value()
            return named
        return build

    # Batch 0: examples 0 and 1 on disjoint weights; batch 1 one example
    # sharing weights with both.
    batches = [([0, 0, 1], [0, 1, 3], [1, 0.5, 2], [[1, 0], [0, 2]]),
               ([0, 0], [1, 3], [1, -1], [[0.5, 1]])]
    steps = [["init"]]
    for _ in range(3):
        steps += [["train0"], ["sparse_w", "dense_w", "state0"], ["train1"],
                  ["sparse_w", "dense_w", "state1"]]
    steps += [["shrink"], ["sparse_w", "dense_w"]]
    for loss, labels in [("squared_loss", [[1, -2], [0.5]]),
                         ("logistic_loss", [[1, 0], [1]]),
                         ("hinge_loss", [[1, 0], [0]]),
                         ("smooth_hinge_loss", [[0, 1], [1]]),
                         ("poisson_loss", [[2, 0], [1]])]:
        short = loss.replace("_loss", "")
        golden_lib.steps_case(
            golden_lib.family_folder(FAMILY), f"train_{short}",
            model(loss, labels, batches, l1=0.05, l2=0.5), steps,
            note="three rounds of two calls on shared weights, then "
                 "SdcaShrinkL1")
    golden_lib.steps_case(
        golden_lib.family_folder(FAMILY), "train_squared_v1",
        model("squared_loss", [[1, -2], [0.5]], batches, v2=False), steps)


def main():
    loss_cases()
    shape_cases()
    error_cases()
    train_cases()
    golden_lib.write_op_defs(FAMILY, OP_NAMES)


if __name__ == "__main__":
    main()

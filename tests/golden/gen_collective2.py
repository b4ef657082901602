"""Golden cases of the collective2 family: TensorFlow 1's collective ops,
whose group_size, group_key and instance_key are attrs (CollectiveReduce,
CollectiveGather, CollectiveBcastSend, CollectiveBcastRecv: what
CollectiveAllReduceStrategy and cross_device_ops write in graph mode),
CollectiveAssignGroupV2, which picks a device's group out of a
group_assignment matrix, and CollectiveInitializeCommunicator with the V3
ops that take its communicator (CollectiveReduceV3, CollectiveAllToAllV3).

One process runs these cases, so the collectives are groups of one member
(group_size 1): every dtype, shapes, several steps of one instance, and
the errors TensorFlow's kernels raise. Groups of several
devices and tasks are in tests/master/collective2_session_test.cc and
tests/integration/collective_cluster_test.cc. Group keys are unique per
case: dfx's in-process leader (and a cluster's) keeps a group for the life
of the process.

Left out:
- A lone CollectiveBcastRecv (group_size 1, no sender): TensorFlow fails
  with Internal "found no source for broadcast", dfx's leader with
  InvalidArgument (not exactly one source);
  tests/master/collective2_session_test.cc has it.
- Empty inputs: TensorFlow 2.21's v1 kernels crash (SIGSEGV) on them.

The V3 cases hold a CollectiveReduceV2 of a group of its own beside
CollectiveInitializeCommunicator: TensorFlow's graph-mode session gives a
step a collective executor only when its graph holds one of the v1/V2
collective ops, and CollectiveInitializeCommunicator crashes (SIGSEGV)
without one. A communicator is made once per session: running
CollectiveInitializeCommunicator again (which every step that runs a V3
op does) is AlreadyExists, in TensorFlow as in dfx.

    $(tools/tf_env) tests/golden/gen_collective2.py

Besides the cases the generator writes the ops' signatures (tf_op_defs.pbtxt,
tf_cpu_kernels.txt), which tests/kernels/collective2_test.cc compares with
dfx's registry.
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import golden_lib  # noqa: E402
from golden_lib import placeholder, steps_case, tf  # noqa: E402

FAMILY = "collective2"
RAW = tf.raw_ops

OP_NAMES = ["CollectiveReduce", "CollectiveGather", "CollectiveBcastSend",
            "CollectiveBcastRecv", "CollectiveAssignGroupV2",
            "CollectiveInitializeCommunicator", "CollectiveReduceV3",
            "CollectiveAllToAllV3"]

_next_key = [7100]


def key():
    """A group key no other case uses."""
    _next_key[0] += 1
    return _next_key[0]


def case(name, build, **kw):
    golden_lib.case(FAMILY, name, build, **kw)


def values(dtype, shape, seed=0):
    r = golden_lib.rng(seed)
    if dtype == np.bool_:
        return r.integers(0, 2, size=shape).astype(np.bool_)
    if np.issubdtype(dtype, np.integer):
        return r.integers(-50, 50, size=shape).astype(dtype)
    return (r.standard_normal(shape) * 4).astype(dtype)


def fed(dtype, shape, seed=0):
    """A placeholder of dtype (bfloat16: a float32 feed cast) and its
    feed."""
    if dtype == "bfloat16":
        p, v = placeholder(values(np.float32, shape, seed))
        return tf.cast(p, tf.bfloat16), {p: v}
    p, v = placeholder(values(dtype, shape, seed))
    return p, {p: v}


def reduce_cases():
    dtypes = [("bfloat16", "bfloat16"), (np.float32, "float"),
              (np.float16, "half"), (np.float64, "double"),
              (np.int32, "int32"), (np.int64, "int64")]
    for dtype, dname in dtypes:
        for merge in ("Add", "Mul", "Min", "Max"):
            for final in ("Id", "Div"):
                if final == "Div" and merge != "Add":
                    continue

                def build(dtype=dtype, merge=merge, final=final):
                    x, feeds = fed(dtype, [2, 3])
                    out = RAW.CollectiveReduce(
                        input=x, group_size=1, group_key=key(),
                        instance_key=1, merge_op=merge, final_op=final,
                        subdiv_offsets=[0])
                    return out, feeds
                case(f"reduce_{dname}_{merge}_{final}".lower(), build)

    # No empty input: TensorFlow 2.21's CollectiveReduce crashes (SIGSEGV)
    # on one; dfx returns an empty result (collective2_session_test.cc).

    def scalar():
        x, feeds = fed(np.float64, [])
        return RAW.CollectiveReduce(
            input=x, group_size=1, group_key=key(), instance_key=3,
            merge_op="Max", final_op="Id", subdiv_offsets=[0, 1],
            wait_for=[1, 2], communication_hint="ring",
            timeout_seconds=30.0), feeds
    case("reduce_scalar_attrs", scalar)

    def bad_group_size():
        x, feeds = fed(np.float32, [3])
        return RAW.CollectiveReduce(
            input=x, group_size=0, group_key=key(), instance_key=1,
            merge_op="Add", final_op="Id", subdiv_offsets=[0]), feeds
    case("reduce_group_size_0", bad_group_size)

    def timeout():
        # A group of two whose second member never comes: DeadlineExceeded
        # after timeout_seconds.
        x, feeds = fed(np.float32, [3])
        return RAW.CollectiveReduce(
            input=x, group_size=2, group_key=key(), instance_key=1,
            merge_op="Add", final_op="Id", subdiv_offsets=[0],
            timeout_seconds=0.3), feeds
    case("reduce_timeout_lone_member", timeout)

    def gather_timeout():
        x, feeds = fed(np.int64, [2])
        return RAW.CollectiveGather(
            input=x, group_size=3, group_key=key(), instance_key=1,
            shape=[2], timeout_seconds=0.3), feeds
    case("gather_timeout_lone_member", gather_timeout)

    def two_reductions():
        # Two instances of one group in one step.
        gk = key()
        x, feeds = fed(np.float32, [5])
        a = RAW.CollectiveReduce(input=x, group_size=1, group_key=gk,
                                 instance_key=1, merge_op="Add",
                                 final_op="Id", subdiv_offsets=[0])
        # One member, so one device: colocated (the interop client's
        # spread keeps colocated nodes together).
        with tf.compat.v1.colocate_with(a):
            b = RAW.CollectiveReduce(input=a * 2, group_size=1, group_key=gk,
                                     instance_key=2, merge_op="Mul",
                                     final_op="Id", subdiv_offsets=[0])
        return [a, b], feeds
    case("reduce_two_instances", two_reductions)

    def steps():
        gk = key()
        v = tf.compat.v1.Variable(np.arange(4, dtype=np.float32), name="v")
        r = RAW.CollectiveReduce(input=v.read_value(), group_size=1,
                                 group_key=gk, instance_key=5,
                                 merge_op="Add", final_op="Div",
                                 subdiv_offsets=[0])
        return {"init": v.initializer, "reduce": r,
                "add": v.assign_add(r)}
    steps_case(golden_lib.family_folder(FAMILY), "reduce_steps", steps,
               [["init"], ["reduce"], ["add"], ["reduce"], ["add"],
                ["reduce"]])


def gather_cases():
    for dtype, dname in [(np.float32, "float"), (np.float16, "half"),
                         (np.float64, "double"), (np.int32, "int32"),
                         (np.int64, "int64")]:
        def build(dtype=dtype):
            x, feeds = fed(dtype, [2, 3], seed=1)
            return RAW.CollectiveGather(
                input=x, group_size=1, group_key=key(), instance_key=1,
                shape=[2, 3]), feeds
        case(f"gather_{dname}", build)

    # No empty input: TensorFlow 2.21's CollectiveGather crashes (SIGSEGV)
    # on one.

    def vector():
        # The shape attr is not checked against the input.
        x, feeds = fed(np.float32, [4], seed=2)
        return RAW.CollectiveGather(input=x, group_size=1, group_key=key(),
                                    instance_key=7, shape=[9]), feeds
    case("gather_vector_other_shape_attr", vector)


def bcast_cases():
    for dtype, dname in [(np.bool_, "bool"), (np.float32, "float"),
                         (np.float16, "half"), (np.float64, "double"),
                         (np.int32, "int32"), (np.int64, "int64")]:
        def build(dtype=dtype):
            x, feeds = fed(dtype, [3, 2], seed=3)
            return RAW.CollectiveBcastSend(
                input=x, group_size=1, group_key=key(), instance_key=1,
                shape=[3, 2]), feeds
        case(f"bcast_send_{dname}", build)

    # No empty input: TensorFlow 2.21's CollectiveBcastSend crashes
    # (SIGSEGV) on one.

    def mismatch():
        x, feeds = fed(np.float32, [3])
        return RAW.CollectiveBcastSend(input=x, group_size=1,
                                       group_key=key(), instance_key=1,
                                       shape=[4]), feeds
    case("bcast_send_shape_mismatch", mismatch)


def assign_group_cases():
    def build_case(name, assignment, device, base):
        def build():
            a, av = placeholder(np.asarray(assignment, np.int32),
                                name="group_assignment")
            d, dv = placeholder(np.asarray(device, np.int32),
                                name="device_index")
            b, bv = placeholder(np.asarray(base, np.int32), name="base_key")
            out = RAW.CollectiveAssignGroupV2(group_assignment=a,
                                              device_index=d, base_key=b)
            return list(out), {a: av, d: dv, b: bv}
        case("assign_group_" + name, build)

    grid = [[0, 1], [2, 3]]
    build_case("first_row", grid, 1, 5)
    build_case("second_row", grid, 2, 5)
    build_case("negative_base", grid, 3, -9)
    build_case("wrapping_base", [[3, 2, 1, 0], [4, 5, 6, 7]], 6,
               2147483647)
    build_case("single", [[0]], 0, 1)
    build_case("column", [[0], [1], [2]], 2, 100)
    build_case("one_row", [[2, 0, 1]], 1, -1)
    build_case("not_found", grid, 7, 5)
    build_case("reserved_key", grid, 0, 0)
    build_case("reserved_key_second_row", grid, 3, -1)
    build_case("out_of_range", [[0, 9], [1, 2]], 2, 5)
    build_case("negative_entry", [[0, -1], [1, 2]], 0, 5)
    build_case("found_before_bad_entry", [[0, 1], [2, 99]], 1, 5)
    build_case("empty_rows", np.zeros([0, 2]), 0, 5)
    build_case("empty_cols", np.zeros([2, 0]), 0, 5)
    build_case("vector_assignment", [0, 1], 0, 5)
    build_case("vector_device_index", grid, [0], 5)
    build_case("vector_base_key", grid, 0, [5])


def v3_cases():
    def with_communicator(body, group_size=1, rank=0):
        gk = key()
        c = RAW.CollectiveInitializeCommunicator(
            group_key=gk, rank=rank, group_size=group_size)
        # The V2 collective that gives TensorFlow's step a collective
        # executor (see the docstring).
        anchor = RAW.CollectiveReduceV2(
            input=tf.constant([1.0]), group_size=1, group_key=key(),
            instance_key=1, merge_op="Add", final_op="Id",
            ordering_token=[])
        # The V3 op on the communicator's device, as TensorFlow's placer
        # puts a resource's users.
        with tf.compat.v1.colocate_with(c):
            out, feeds = body(c)
        return [out, anchor], feeds

    none = lambda: tf.zeros([0], tf.int32)  # noqa: E731
    for dtype, dname in [("bfloat16", "bfloat16"), (np.float32, "float"),
                         (np.float16, "half"), (np.float64, "double"),
                         (np.int32, "int32"), (np.int64, "int64")]:
        for reduction in ("Add", "Max"):
            def reduce_build(dtype=dtype, reduction=reduction):
                def body(c):
                    x, feeds = fed(dtype, [2, 2], seed=4)
                    return RAW.CollectiveReduceV3(
                        input=x, communicator=c, group_assignment=none(),
                        reduction=reduction), feeds
                return with_communicator(body)
            case(f"reduce_v3_{dname}_{reduction}".lower(), reduce_build)

        def a2a_build(dtype=dtype):
            def body(c):
                x, feeds = fed(dtype, [1, 3], seed=5)
                return RAW.CollectiveAllToAllV3(
                    input=x, communicator=c, group_assignment=none()), feeds
            return with_communicator(body)
        case(f"all_to_all_v3_{dname}", a2a_build)

    def a2a_rows():
        def body(c):
            x, feeds = fed(np.float32, [2, 3])
            return RAW.CollectiveAllToAllV3(
                input=x, communicator=c, group_assignment=none()), feeds
        return with_communicator(body)
    case("all_to_all_v3_rows_not_group_size", a2a_rows)

    def assigned():
        def body(c):
            x, feeds = fed(np.float32, [3])
            return RAW.CollectiveReduceV3(
                input=x, communicator=c,
                group_assignment=tf.constant([[0]]), reduction="Add"), feeds
        return with_communicator(body)
    case("reduce_v3_group_assignment", assigned)

    def mul_rank():
        def body(c):
            x, feeds = fed(np.int32, [4])
            return RAW.CollectiveReduceV3(
                input=x, communicator=c, group_assignment=none(),
                reduction="Mul", timeout_seconds=5.0), feeds
        return with_communicator(body, rank=7)
    case("reduce_v3_mul_rank_7", mul_rank)

    def bad_size():
        def body(c):
            x, feeds = fed(np.float32, [3])
            return RAW.CollectiveReduceV3(
                input=x, communicator=c, group_assignment=none(),
                reduction="Min"), feeds
        return with_communicator(body, group_size=0)
    case("init_group_size_0", bad_size)

    def vector_key():
        anchor = RAW.CollectiveReduceV2(
            input=tf.constant([1.0]), group_size=1, group_key=key(),
            instance_key=1, merge_op="Add", final_op="Id", ordering_token=[])
        c = RAW.CollectiveInitializeCommunicator(
            group_key=[key()], rank=0, group_size=1)
        x, feeds = fed(np.float32, [3])
        with tf.compat.v1.colocate_with(c):
            out = RAW.CollectiveReduceV3(input=x, communicator=c,
                                         group_assignment=none(),
                                         reduction="Min")
        return [out, anchor], feeds
    case("init_vector_group_key", vector_key)

    def steps():
        gk = key()
        c = RAW.CollectiveInitializeCommunicator(group_key=gk, rank=0,
                                                 group_size=1)
        anchor = RAW.CollectiveReduceV2(
            input=tf.constant([2.0]), group_size=1, group_key=key(),
            instance_key=1, merge_op="Add", final_op="Id", ordering_token=[])
        x = tf.constant([[1.5, -2.0]])
        with tf.compat.v1.colocate_with(c):
            r = RAW.CollectiveReduceV3(input=x, communicator=c,
                                       group_assignment=none(),
                                       reduction="Add")
        return {"anchor": anchor, "reduce": r}
    # The second step runs CollectiveInitializeCommunicator again.
    steps_case(golden_lib.family_folder(FAMILY), "reduce_v3_steps", steps,
               [["anchor", "reduce"], ["anchor", "reduce"], ["anchor"]])


if __name__ == "__main__":
    reduce_cases()
    gather_cases()
    bcast_cases()
    assign_group_cases()
    v3_cases()
    golden_lib.write_op_defs(FAMILY, OP_NAMES)

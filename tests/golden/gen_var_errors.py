"""Golden cases of the var_errors family: what each op that takes a
resource variable answers when the variable does not exist (a VarHandleOp
never assigned, or one destroyed by DestroyResourceOp), and when it holds
another dtype. TensorFlow 2.21 answers NotFound for most ops and
FailedPrecondition for ReadVariableOp (and the ops that read through the
same path); dfx must give the same code for each op.

Left out, where TensorFlow 2.21's answer is an accident of its kernels:
ResourceScatterMul and ResourceScatterDiv on a variable that does not
exist succeed (and create nothing), and the training ops
(ResourceApply*) answer Internal.

Every case is multi-step (golden_lib.steps_case) in one session: the
failing step first, then, for the destroyed variable, the assignment, the
destruction and the failing op.

    $(tools/tf_env) tests/golden/gen_var_errors.py
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import golden_lib  # noqa: E402
from golden_lib import steps_case, tf  # noqa: E402

FAMILY = "var_errors"
RAW = tf.raw_ops


def f32(v):
    return tf.constant(np.asarray(v, np.float32))


def i32(v):
    return tf.constant(np.asarray(v, np.int32))


# Each entry: name -> fn(handle) building the op on a float32 [3] variable.
def _ops():
    row = f32([1.0, 2.0, 3.0])
    one = f32([1.0])
    return {
        "read": lambda h: RAW.ReadVariableOp(resource=h, dtype=tf.float32),
        "assign_add": lambda h: RAW.AssignAddVariableOp(resource=h,
                                                        value=row),
        "assign_sub": lambda h: RAW.AssignSubVariableOp(resource=h,
                                                        value=row),
        "variable_shape": lambda h: RAW.VariableShape(input=h),
        "gather": lambda h: RAW.ResourceGather(resource=h, indices=i32([0]),
                                               dtype=tf.float32),
        "gather_nd": lambda h: RAW.ResourceGatherNd(
            resource=h, indices=i32([[0]]), dtype=tf.float32),
        "scatter_add": lambda h: RAW.ResourceScatterAdd(
            resource=h, indices=i32([0]), updates=one),
        "scatter_sub": lambda h: RAW.ResourceScatterSub(
            resource=h, indices=i32([0]), updates=one),
        "scatter_min": lambda h: RAW.ResourceScatterMin(
            resource=h, indices=i32([0]), updates=one),
        "scatter_max": lambda h: RAW.ResourceScatterMax(
            resource=h, indices=i32([0]), updates=one),
        "scatter_update": lambda h: RAW.ResourceScatterUpdate(
            resource=h, indices=i32([0]), updates=one),
        "scatter_nd_add": lambda h: RAW.ResourceScatterNdAdd(
            ref=h, indices=i32([[0]]), updates=one),
        "scatter_nd_update": lambda h: RAW.ResourceScatterNdUpdate(
            ref=h, indices=i32([[0]]), updates=one),
        "strided_slice_assign": lambda h: RAW.ResourceStridedSliceAssign(
            ref=h, begin=i32([0]), end=i32([1]), strides=i32([1]),
            value=one),
    }


def main():
    folder = golden_lib.family_folder(FAMILY)
    names = sorted(_ops())
    for name in names:
        # Never assigned: the variable does not exist.
        def build(name=name):
            h = RAW.VarHandleOp(dtype=tf.float32, shape=[3],
                                shared_name="v")
            return {"op": _ops()[name](h)}
        steps_case(folder, "missing_" + name, build, [["op"]],
                   note=f"{name} on a variable never assigned")

        # Assigned, destroyed, then used.
        def build_destroyed(name=name):
            h = RAW.VarHandleOp(dtype=tf.float32, shape=[3],
                                shared_name="v")
            return {
                "assign": RAW.AssignVariableOp(resource=h,
                                               value=f32([4.0, 5.0, 6.0])),
                "destroy": RAW.DestroyResourceOp(resource=h),
                "op": _ops()[name](h),
            }
        steps_case(folder, "destroyed_" + name, build_destroyed,
                   [["assign"], ["destroy"], ["op"]],
                   note=f"{name} on a variable assigned, then destroyed")

    # A variable of int32 read or updated as float32. (Not ResourceGather:
    # TensorFlow 2.21's kernel aborts the process on it, a failed CHECK in
    # EnsureSparseVariableAccess.)
    for name in ["read", "assign_add", "assign_sub"]:
        def build_dtype(name=name):
            h = RAW.VarHandleOp(dtype=tf.float32, shape=[3],
                                shared_name="v")
            hi = RAW.VarHandleOp(dtype=tf.int32, shape=[3], shared_name="v")
            return {
                "assign": RAW.AssignVariableOp(resource=hi,
                                               value=i32([4, 5, 6])),
                "op": _ops()[name](h),
            }
        steps_case(folder, "wrong_dtype_" + name, build_dtype,
                   [["assign"], ["op"]],
                   note=f"{name} as float32 on an int32 variable")


if __name__ == "__main__":
    main()

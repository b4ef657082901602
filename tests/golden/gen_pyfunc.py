"""Signatures of the pyfunc family: PyFunc, PyFuncStateless and EagerPyFunc
(tf.compat.v1.py_func, tf.numpy_function, tf.py_function).

    $(tools/tf_env) tests/golden/gen_pyfunc.py

Writes the ops' signatures (tf_op_defs.pbtxt, tf_cpu_kernels.txt), which
tests/kernels/pyfunc_test.cc compares with dfx's registry, and no golden
cases: in this process TensorFlow finds the Python function, which a dfx
server never can. What a server does with them is compared with a
TensorFlow server in another process by tests/interop/run_tf_pyfunc.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import golden_lib  # noqa: E402

FAMILY = "pyfunc"

OP_NAMES = ["PyFunc", "PyFuncStateless", "EagerPyFunc"]


def main():
    golden_lib.write_op_defs(FAMILY, OP_NAMES)


if __name__ == "__main__":
    main()

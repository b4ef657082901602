"""Writes TensorFlow 2.21's OpDefs of the collective ops dfx implements
(tests/golden/data/collective/tf_op_defs.pbtxt) and the types of their CPU
kernels (tf_cpu_kernels.txt), which tests/kernels/collective_ops_test.cc
compares with dfx's.

Run with the TF virtualenv: $(tools/tf_env) tests/golden/gen_collective.py
"""
import golden_lib

OPS = ["CollectiveAllToAllV2", "CollectiveBcastRecvV2", "CollectiveBcastSendV2",
       "CollectiveGatherV2", "CollectiveReduceScatterV2", "CollectiveReduceV2"]


if __name__ == "__main__":
    golden_lib.write_op_defs("collective", OPS)

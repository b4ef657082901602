"""Writes TensorFlow 2.21's OpDefs of the collective ops dfx implements
(tests/golden/data/collective/tf_op_defs.pbtxt), which
tests/kernels/collective_ops_test.cc compares byte for byte with dfx's.

Run with the TF virtualenv: $(tools/tf_env) tests/golden/gen_collective.py
"""
import os

from google.protobuf import text_format
from tensorflow.core.framework import op_def_pb2
from tensorflow.python.framework import op_def_registry

import golden_lib

OPS = ["CollectiveAllToAllV2", "CollectiveBcastRecvV2", "CollectiveBcastSendV2",
       "CollectiveGatherV2", "CollectiveReduceScatterV2", "CollectiveReduceV2"]


def main():
    ops = op_def_pb2.OpList()
    for n in OPS:
        ops.op.add().CopyFrom(op_def_registry.get(n))
    folder = os.path.join(golden_lib.DATA_DIR, "collective")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "tf_op_defs.pbtxt"), "w") as f:
        f.write("# TensorFlow 2.21's OpDefs of the collective ops, written by "
                "gen_collective.py.\n")
        f.write(text_format.MessageToString(ops))


if __name__ == "__main__":
    main()

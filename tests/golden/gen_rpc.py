"""Signatures of the rpc family: TensorFlow 2.21's RPC ops
(tf.distribute.experimental.rpc): RpcServer, RpcServerRegister,
RpcServerStart, RpcClient, RpcCall, RpcCheckStatus, RpcGetValue and
DeleteRpcFutureResource.

    $(tools/tf_env) tests/golden/gen_rpc.py

The generator writes the ops' signatures (tf_op_defs.pbtxt,
tf_cpu_kernels.txt), which tests/kernels/rpc_test.cc compares with dfx's
registry, and no golden cases: what these ops do is a side effect (a gRPC
server listening on a port, a client's connection to it), which a one-graph,
one-session case cannot show without a fixed port shared by every run.
Their behaviour is tested with both ends in dfx (tests/kernels/rpc_test.cc)
and against TensorFlow's own Python server and client in other processes
(tests/interop/run_tf_rpc).
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import golden_lib  # noqa: E402
# Registers the ops with TensorFlow's op registry.
import tensorflow.distribute.experimental.rpc.kernels.gen_rpc_ops  # noqa: E402,F401,E501

FAMILY = "rpc"

OP_NAMES = ["RpcServer", "RpcServerRegister", "RpcServerStart", "RpcClient",
            "RpcCall", "RpcCheckStatus", "RpcGetValue",
            "DeleteRpcFutureResource"]


def main():
    golden_lib.write_op_defs(FAMILY, OP_NAMES)


if __name__ == "__main__":
    main()

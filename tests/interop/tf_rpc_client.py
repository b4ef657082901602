"""TensorFlow 2.21's RPC ops (tf.distribute.experimental.rpc) between dfx
and TensorFlow, each end in its own process, over TensorFlow's gRPC
service (/tensorflow.rpc.RpcService).

Starts a local dfx cluster (one worker task, `dfx cluster up`) and:
- a dfx RPC server serves TensorFlow's Python client: a TF client session
  runs, on the dfx cluster, the graph that makes an RpcServer on
  127.0.0.1, registers three functions (one with a captured input, one
  with string inputs and two outputs) and starts it; that step ends, the
  server keeps serving; then TensorFlow's eager Client lists the methods
  (its convenience methods appear), calls them, and gets TensorFlow's
  errors for an unknown method and for bad arguments. The same graph in
  TensorFlow's own session gives the answers the dfx server must give;
- a dfx RPC client calls TensorFlow's Python server: the graph
  RpcClient (listing the methods), RpcCall, RpcCheckStatus, RpcGetValue,
  DeleteRpcFutureResource runs on the dfx cluster against a
  tf.distribute.experimental.rpc.Server in this process, with an unknown
  method and an unreachable server (DeadlineExceeded within the client's
  timeout_in_ms); TensorFlow's own session runs the same graph.

    $(tools/tf_env) tests/interop/tf_rpc_client.py --dfx build/bin/dfx

Exit status: 0 when everything matches, 1 otherwise.
"""

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import tensorflow as tf  # noqa: E402
from tensorflow.distribute.experimental.rpc.kernels import gen_rpc_ops  # noqa: E402,E501
from tensorflow.distribute.experimental.rpc.proto import tf_rpc_service_pb2  # noqa: E402,E501
from tensorflow.python.distribute.experimental.rpc import rpc_ops  # noqa: E402

tf1 = tf.compat.v1

INT = tf.TensorSpec([], tf.int32)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def server_graph(address):
    """The graph Server.create/register/start would run eagerly: an
    RpcServer at `address`, three registered functions, RpcServerStart."""
    g = tf.Graph()
    with g.as_default():
        ten = tf.constant(10, name="ten")

        @tf.function(input_signature=[INT, INT])
        def add(a, b):
            return a + b

        @tf.function(input_signature=[INT])
        def add10(x):
            return x + ten  # a captured input

        @tf.function(input_signature=[tf.TensorSpec([None], tf.string)])
        def shout(s):
            return tf.strings.upper(s), tf.size(s)

        handle = gen_rpc_ops.rpc_server(address)
        registered = []
        for name, fn in [("add", add), ("add10", add10), ("shout", shout)]:
            cf = fn.get_concrete_function()
            registered.append(gen_rpc_ops.rpc_server_register(
                handle, method_name=name,
                captured_inputs=cf.captured_inputs,
                input_specs=rpc_ops.get_input_specs_from_function(cf),
                output_specs=rpc_ops.get_output_specs_from_function(cf),
                f=cf))
        with tf.control_dependencies(registered):
            start = gen_rpc_ops.rpc_server_start(handle)
    return g, start


def start_server(target, address):
    g, start = server_graph(address)
    sess = tf1.Session(target, graph=g)
    sess.run(start)
    return sess


def error(result):
    code, message = result.get_error()
    return int(code.numpy()), message.numpy().decode()


def client_scenarios(address):
    """TensorFlow's eager Python client against the server at `address`:
    {name: comparable result}, and the bad-argument messages."""
    out = {}
    client = tf.distribute.experimental.rpc.Client.create(
        "grpc", address, timeout_in_ms=30000)
    out["methods"] = [m for m in ("add", "add10", "shout", "add_blocking")
                      if hasattr(client, m)]
    out["add"] = int(client.add_blocking(tf.constant(2), tf.constant(3)))
    out["add10"] = int(client.add10_blocking(tf.constant(7)))
    upper, size = client.shout_blocking(tf.constant(["ab", "c"]))
    out["shout"] = [upper.numpy().tolist(), int(size)]
    result = client.call("add", [tf.constant(4), tf.constant(5)],
                         output_specs=INT)
    out["call_is_ok"] = bool(result.is_ok())
    out["call_value"] = int(result.get_value())
    code, message = error(client.call("nope", [tf.constant(1)]))
    out["unknown_method"] = [code, message.split("\n")[0]]
    messages = {}
    code, messages["bad_dtype"] = error(
        client.call("add", [tf.constant(1.5), tf.constant(2.0)]))
    out["bad_dtype"] = code
    code, messages["bad_count"] = error(client.call("add", [tf.constant(1)]))
    out["bad_count"] = code
    try:
        client.add_blocking(tf.constant(1.5), tf.constant(2.0))
        out["blocking_error"] = "ok"
    except tf.errors.OpError as err:
        out["blocking_error"] = type(err).__name__
    return out, messages


def client_graph(address, unreachable):
    """dfx's side of a call to a Python server: the ops Client.create and
    call emit, with every future deleted after its reads."""
    g = tf.Graph()
    with g.as_default():
        client, specs = gen_rpc_ops.rpc_client(
            server_address=address, timeout_in_ms=30000,
            list_registered_methods=True, shared_name="dfx")
        f1, d1 = gen_rpc_ops.rpc_call(
            client, method_name="mul",
            args=[tf.constant(6), tf.constant(7)], timeout_in_ms=0)
        c1, m1 = gen_rpc_ops.rpc_check_status(f1)
        (v1,) = gen_rpc_ops.rpc_get_value(f1, Tout=[tf.int32])
        f2, d2 = gen_rpc_ops.rpc_call(
            client, method_name="join",
            args=[tf.constant(["x", "y"]), tf.constant([1.5, 2.5])],
            timeout_in_ms=0)
        v2 = gen_rpc_ops.rpc_get_value(f2, Tout=[tf.string, tf.float32])
        f3, d3 = gen_rpc_ops.rpc_call(
            client, method_name="nope", args=[tf.constant(1)],
            timeout_in_ms=0)
        c3, m3 = gen_rpc_ops.rpc_check_status(f3)
        lost, _ = gen_rpc_ops.rpc_client(
            server_address=unreachable, timeout_in_ms=500,
            shared_name="lost")
        f4, d4 = gen_rpc_ops.rpc_call(
            lost, method_name="mul", args=[tf.constant(1), tf.constant(2)],
            timeout_in_ms=0)
        c4, _ = gen_rpc_ops.rpc_check_status(f4)
        reads = [c1, m1, v1, c3, m3, c4] + list(v2)
        with tf.control_dependencies(reads):
            deleted = [gen_rpc_ops.delete_rpc_future_resource(f, d)
                       for f, d in [(f1, d1), (f2, d2), (f3, d3), (f4, d4)]]
    return g, [specs, c1, m1, v1, v2[0], v2[1], c3, m3, c4], deleted


def run_client(target, address, unreachable):
    g, fetches, deleted = client_graph(address, unreachable)
    with tf1.Session(target, graph=g) as sess:
        start = time.time()
        specs, c1, m1, v1, s2, x2, c3, m3, c4, _ = sess.run(
            fetches + [deleted])
        seconds = time.time() - start
    names = []
    for s in specs:
        m = tf_rpc_service_pb2.RegisteredMethod()
        m.ParseFromString(s)
        names.append(m.method)
    return {
        "listed": sorted(names),
        "mul": [int(c1), m1.decode(), int(v1)],
        "join": [s2.decode(), x2.tolist()],
        "unknown_method": [int(c3), m3.decode().split("\n")[0]],
        "unreachable": int(c4),
        "within_timeout": seconds < 20,
    }


def python_server(address):
    server = tf.distribute.experimental.rpc.Server.create("grpc", address)

    @tf.function(input_signature=[INT, INT])
    def mul(a, b):
        return a * b

    @tf.function(input_signature=[tf.TensorSpec([None], tf.string),
                                  tf.TensorSpec([None], tf.float32)])
    def join(s, x):
        return tf.strings.reduce_join(s), x * 2

    server.register("mul", mul)
    server.register("join", join)
    server.start()
    return server


def compare(label, expected, actual):
    failed = 0
    for name, want in expected.items():
        got = actual.get(name)
        if got != want:
            failed += 1
            print(f"FAIL {label} {name}: dfx {got}, TensorFlow {want}",
                  file=sys.stderr)
        else:
            print(f"ok {label} {name}: {got}")
    return failed


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dfx", required=True, help="the dfx binary")
    args = parser.parse_args()

    # TensorFlow's answers: its own server and session.
    tf_address = f"127.0.0.1:{free_port()}"
    tf_server_sess = start_server("", tf_address)
    expected_a, _ = client_scenarios(tf_address)
    py_address = f"127.0.0.1:{free_port()}"
    py_server = python_server(py_address)
    unreachable = f"127.0.0.1:{free_port()}"
    expected_b = run_client("", py_address, unreachable)

    failed = 0
    with tempfile.TemporaryDirectory(prefix="dfx-rpc-") as cluster_dir:
        up = subprocess.run([args.dfx, "cluster", "up", "--workers", "1",
                             "--dir", cluster_dir],
                            capture_output=True, text=True, timeout=120)
        if up.returncode != 0:
            print("dfx cluster up failed:", up.stderr, file=sys.stderr)
            return 1
        target = up.stdout.strip().splitlines()[-1]
        try:
            # The dfx server: the step that starts it ends (its session is
            # closed), the server serves on.
            dfx_address = f"127.0.0.1:{free_port()}"
            start_server(target, dfx_address).close()
            actual_a, messages = client_scenarios(dfx_address)
            failed += compare("dfx server:", expected_a, actual_a)
            for name in ("bad_dtype", "bad_count"):
                if "method 'add'" not in messages[name]:
                    failed += 1
                    print(f"FAIL dfx server: {name}'s message does not "
                          f"name the method: {messages[name]}",
                          file=sys.stderr)
            actual_b = run_client(target, py_address, unreachable)
            failed += compare("dfx client:", expected_b, actual_b)
        finally:
            subprocess.run([args.dfx, "cluster", "down", "--dir",
                            cluster_dir], capture_output=True, timeout=60)
    del py_server
    tf_server_sess.close()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

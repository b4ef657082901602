#!/usr/bin/env python3
"""examples/python/ps_v2_coordinator.py on TensorFlow 2.21's own servers.

Starts a TensorFlow cluster of the same shape as the dfx one (2 workers,
2 ps), runs the example against it unchanged and reads the accuracy its
tutorial-style training reaches. With --dfx-accuracy A (what the same
program reached on the dfx cluster), exits 1 when A is more than --margin
below TensorFlow's: dfx must train as well as TensorFlow does.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools", "bench"))

from bench_clusters import start_tf_cluster  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--dfx-accuracy", type=float)
    p.add_argument("--margin", type=float, default=0.03)
    args = p.parse_args()
    cluster, stop = start_tf_cluster(2, ps=2)
    try:
        with tempfile.NamedTemporaryFile("w", suffix=".json",
                                         delete=False) as f:
            json.dump(cluster, f)
        run = subprocess.run(
            [sys.executable,
             os.path.join(HERE, "..", "..", "examples", "python",
                          "ps_v2_coordinator.py"), "--cluster", f.name],
            capture_output=True, text=True, timeout=240)
    finally:
        stop()
        os.unlink(f.name)
    m = re.search(r"^accuracy: ([0-9.]+)", run.stdout, re.M)
    if run.returncode != 0 or m is None:
        print(run.stdout[-2000:], run.stderr[-2000:])
        print("FAILED: the example did not finish on TensorFlow's servers")
        return 1
    tf_accuracy = float(m.group(1))
    print(f"TensorFlow's servers: accuracy {tf_accuracy:.4f}")
    if args.dfx_accuracy is None:
        return 0
    print(f"dfx: accuracy {args.dfx_accuracy:.4f} (TensorFlow's "
          f"{tf_accuracy:.4f}, margin {args.margin})")
    if args.dfx_accuracy < tf_accuracy - args.margin:
        print("FAILED: dfx trained to a lower accuracy than TensorFlow")
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Lists, for every op dfx registers, the dtypes of TensorFlow 2.21's CPU
kernels per type attr, and where dfx's CPU kernels serve other types.

dfx's side comes from `dfx ops --json` (tools/cli/ops.cc): each op with the
device and per-attr type constraints of every kernel. TensorFlow's side comes
from its kernel registry (get_registered_kernels_for_op), limited to the
types the op's OpDef allows for the attr; quantized, resource and variant
types are left out, as golden_lib.write_op_defs does.

    $(tools/tf_env) tests/golden/tf_cpu_types.py --dfx build/bin/dfx
        every op's TF CPU types, one line per (op, attr):
        "<Op> <attr> <type> ..." ("*" where a TF kernel leaves it open)
    ... --diff [--dtypes complex64,complex128]
        only the (op, attr) pairs where TF's CPU types and dfx's differ, as
        "<Op> <attr> tf-only: <types> dfx-only: <types>", limited to the
        listed dtypes when --dtypes is given
    ... --ops-json FILE      read `dfx ops --json` output from FILE instead

An attr that a kernel leaves unconstrained serves every type ("*"); --diff
compares it as the types dfx can hold (UNIVERSE) where the OpDef does not
narrow it. Ops TensorFlow does not
register (dfx-only ops) are listed with --diff as "<Op> (not in TF)" only
when --show-unknown is given.
"""

import argparse
import json
import os
import subprocess
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

from tensorflow.core.framework import types_pb2  # noqa: E402
from tensorflow.python.framework import kernels as tf_kernels  # noqa: E402
from tensorflow.python.framework import op_def_registry  # noqa: E402

# Types never compared: TF's quantized, resource and variant kernels.
_SKIPPED = {
    types_pb2.DT_QINT8, types_pb2.DT_QUINT8, types_pb2.DT_QINT16,
    types_pb2.DT_QUINT16, types_pb2.DT_QINT32, types_pb2.DT_RESOURCE,
    types_pb2.DT_VARIANT,
}
ALL = "*"
# What "any type" means when comparing: the types dfx's kernels can serve.
UNIVERSE = {
    "float", "double", "half", "bfloat16", "int8", "int16", "int32", "int64",
    "uint8", "uint16", "uint32", "uint64", "bool", "string", "complex64",
    "complex128",
}


def type_name(enum):
    """TF's DataType enum as dfx's DataTypeString prints it ("float")."""
    return types_pb2.DataType.Name(enum)[3:].lower()


def dfx_ops(args):
    """{op: {attr: set of type names or ALL}} of dfx's CPU kernels, and the
    set of ops with at least one CPU kernel."""
    if args.ops_json:
        with open(args.ops_json) as f:
            listing = json.load(f)
    else:
        out = subprocess.run([args.dfx, "ops", "--json"], check=True,
                             capture_output=True, text=True).stdout
        listing = json.loads(out)
    ops = {}
    for entry in listing:
        attrs = {}
        cpu = [k for k in entry["kernels"] if k["device"] == "CPU"]
        for kernel in cpu:
            for attr, types in kernel["constraints"].items():
                attrs.setdefault(attr, set()).update(types)
        ops[entry["op"]] = (attrs, cpu)
    return ops


def type_attrs(op_def):
    """The op's attrs of type "type" (not list(type)), with their allowed
    types (None when the OpDef allows any)."""
    result = {}
    for attr in op_def.attr:
        if attr.type != "type":
            continue
        allowed = None
        if attr.HasField("allowed_values"):
            allowed = set(attr.allowed_values.list.type)
        result[attr.name] = allowed
    return result


def allowed_names(op, attr):
    """The type names the op's OpDef allows for `attr` (UNIVERSE when it
    does not narrow them)."""
    allowed = type_attrs(op_def_registry.get(op)).get(attr)
    if allowed is None:
        return set(UNIVERSE)
    return {type_name(t) for t in allowed if t not in _SKIPPED}


def tf_cpu_types(op):
    """{attr: set of type names or ALL} for TF's CPU kernels of `op`, or None
    when TF has no such op."""
    op_def = op_def_registry.get(op)
    if op_def is None:
        return None
    attrs = type_attrs(op_def)
    kernels = [k for k in tf_kernels.get_registered_kernels_for_op(op).kernel
               if k.device_type == "CPU"]
    result = {}
    for name, allowed in attrs.items():
        types = set()
        for k in kernels:
            constraint = [c for c in k.constraint if c.name == name]
            if not constraint:
                types = ALL
                break
            types.update(constraint[0].allowed_values.list.type)
        if types != ALL:
            if allowed is not None:
                types &= allowed
            types = {type_name(t) for t in types if t not in _SKIPPED}
        elif allowed is not None:
            # Unconstrained kernel: it serves what the OpDef allows.
            types = {type_name(t) for t in allowed if t not in _SKIPPED}
        result[name] = types
    return result


def fmt(types):
    return ALL if types == ALL else " ".join(sorted(types))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dfx", default="build/bin/dfx")
    parser.add_argument("--ops-json")
    parser.add_argument("--diff", action="store_true")
    parser.add_argument("--dtypes", default="")
    parser.add_argument("--filter", default="")
    parser.add_argument("--show-unknown", action="store_true")
    args = parser.parse_args()
    only = set(filter(None, args.dtypes.split(",")))
    dfx = dfx_ops(args)
    for op in sorted(dfx):
        if args.filter not in op:
            continue
        dfx_attrs, dfx_cpu = dfx[op]
        tf_attrs = tf_cpu_types(op)
        if tf_attrs is None:
            if args.show_unknown:
                print(f"{op} (not in TF)")
            continue
        if not args.diff:
            for attr, types in sorted(tf_attrs.items()):
                print(f"{op} {attr} {fmt(types)}")
            continue
        for attr, tf_types in sorted(tf_attrs.items()):
            if not dfx_cpu:
                got = set()
            elif attr not in dfx_attrs or any(
                    attr not in k["constraints"] for k in dfx_cpu):
                got = UNIVERSE
            else:
                got = dfx_attrs[attr]
            allowed = allowed_names(op, attr)
            if tf_types == ALL:
                tf_types = allowed
            got = got & allowed
            missing = tf_types - got
            extra = got - tf_types
            if only:
                missing &= only
                extra &= only
            if missing or extra:
                line = f"{op} {attr} tf-only: {fmt(missing) or '-'}"
                line += f" dfx-only: {fmt(extra) or '-'}"
                print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())

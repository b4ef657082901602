"""The comparison behind tools/op_coverage: TensorFlow 2.21's op registry
and CPU kernels against dfx's (`dfx ops --json`, a file given as argv[1]).

Prints the op types TensorFlow has a CPU kernel for and dfx does not
register (internal `_` ops and ops whose kernels are all on other devices
left out), one per line, then apart from them TensorFlow's own test ops
(those `tensorflow/python/framework/test_ops.py` wraps: `Old`, `KernelLabel`,
`SleepOp`, ...), which no model uses; and with --types the dtypes dfx's CPU kernels of
the ops it has lack against TensorFlow's (quantized, resource, variant,
float8, int4 and int2 types left out). --json prints both as one JSON object.
"""
import json
import os
import re
import sys

from tensorflow.core.framework import op_def_pb2, types_pb2
from tensorflow.python.client import pywrap_tf_session
from tensorflow.python.framework import kernels
import tensorflow.python.framework as tf_framework

# Types dfx's tensors do not hold (float8, int4, int2: 24..32) and the
# handle types, whose kernels are not per dtype.
SKIPPED_TYPES = {types_pb2.DT_QINT8, types_pb2.DT_QUINT8, types_pb2.DT_QINT16,
                 types_pb2.DT_QUINT16, types_pb2.DT_QINT32,
                 types_pb2.DT_RESOURCE, types_pb2.DT_VARIANT} | set(
                     range(24, 33))


def type_name(enum):
    """TensorFlow's C++ DataTypeString (what `dfx ops` prints)."""
    return types_pb2.DataType.Name(enum)[3:].lower()


def cpu_types(op_def, kernel_defs):
    """{type attr: set of type names} served, or None for 'any allowed'."""
    out = {}
    for attr in op_def.attr:
        if attr.type != "type":
            continue
        allowed = set(attr.allowed_values.list.type)
        served = set()
        for k in kernel_defs:
            cs = [c for c in k["constraints"] if c["name"] == attr.name]
            if not cs:
                served |= allowed if allowed else {"*"}
                continue
            for c in cs:
                served |= set(c["types"])
        if allowed:
            served &= allowed | {"*"}
        served -= SKIPPED_TYPES
        out[attr.name] = served
    return out


def test_op_names():
    """The op types TensorFlow registers only for its own tests: those its
    generated `test_ops.py` wraps."""
    path = os.path.join(os.path.dirname(tf_framework.__file__), "test_ops.py")
    with open(path) as f:
        return set(re.findall(r'_apply_op_helper\(\s*"(\w+)"', f.read()))


def main():
    dfx = {e["op"]: e["kernels"] for e in json.load(open(sys.argv[1]))}
    want_types = "--types" in sys.argv
    as_json = "--json" in sys.argv
    all_ops = op_def_pb2.OpList()
    all_ops.ParseFromString(pywrap_tf_session.TF_GetBuffer(
        pywrap_tf_session.TF_GetAllOpList()))
    op_defs = {op.name: op for op in all_ops.op}
    names = sorted(op_defs)
    missing, lacking = [], {}
    with_cpu = 0  # TensorFlow's op types with a CPU kernel
    name_to_enum = {type_name(v): v for v in types_pb2.DataType.values()}
    for name in names:
        if name.startswith("_"):
            continue
        tf_kernels = [k for k in kernels.get_registered_kernels_for_op(
            name).kernel if k.device_type == "CPU"]
        if not tf_kernels:
            continue
        with_cpu += 1
        if name not in dfx:
            missing.append(name)
            continue
        if not want_types:
            continue
        op_def = op_defs[name]
        tf_side = cpu_types(op_def, [
            {"constraints": [{"name": c.name,
                              "types": list(c.allowed_values.list.type)}
                             for c in k.constraint]} for k in tf_kernels])
        dfx_side = cpu_types(op_def, [
            {"constraints": [{"name": a,
                              "types": [name_to_enum[t] for t in ts
                                        if t in name_to_enum]}
                             for a, ts in k["constraints"].items()]}
            for k in dfx[name] if k["device"] == "CPU"])
        for attr, types in tf_side.items():
            if "*" in dfx_side.get(attr, set()):
                continue
            lack = types - dfx_side.get(attr, set()) - {"*"}
            if lack:
                lacking.setdefault(name, {})[attr] = sorted(
                    type_name(t) for t in lack)
    test_ops = test_op_names()
    missing_test = [n for n in missing if n in test_ops]
    missing = [n for n in missing if n not in test_ops]
    if as_json:
        print(json.dumps({"missing": missing, "missing_test_ops": missing_test,
                          "lacking_types": lacking,
                          "tf_cpu_op_types": with_cpu}, indent=1))
        return
    print(f"# {len(missing)} of TensorFlow's {with_cpu} op types with CPU "
          f"kernels that dfx does not register ({len(dfx)} registered in "
          f"dfx), TensorFlow's test ops apart")
    for name in missing:
        print(name)
    print(f"# {len(missing_test)} of TensorFlow's test ops (test_ops.py) "
          "dfx does not register")
    for name in missing_test:
        print(name)
    if want_types:
        print(f"# {len(lacking)} ops whose dfx CPU kernels lack dtypes "
              "TensorFlow's serve")
        for name, attrs in sorted(lacking.items()):
            print(name, "; ".join(f"{a}: {' '.join(t)}"
                                  for a, t in attrs.items()))


if __name__ == "__main__":
    main()

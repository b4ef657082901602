#!/usr/bin/env python3
"""Writes the seed corpora of tests/fuzz/corpus/ from the repository's test
data. Run from the repository root: python3 tests/fuzz/gen_corpus.py

Each seed starts with the target's mode byte (see the target's .cc file).
Needs only python3 and protoc (the build's); deterministic.
"""
import glob
import os
import re
import shutil
import struct
import subprocess

ROOT = os.getcwd()
OUT = os.path.join(ROOT, "tests/fuzz/corpus")


def protoc(mode, message, proto, data):
    return subprocess.run(
        ["protoc", "--proto_path=.", f"--{mode}={message}", proto],
        input=data, capture_output=True, check=True).stdout


def write(target, name, data):
    d = os.path.join(OUT, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def graph_seeds():
    # Binary GraphDefs that together use as many op types as possible, a
    # few small files per new op, from the golden and function test data.
    files = sorted(glob.glob("tests/golden/data/*/*/graph.pb") +
                   glob.glob("tests/graph/data/functions/*/graph.pb"))
    files = [f for f in files if os.path.getsize(f) <= 4000]
    files.sort(key=os.path.getsize)
    seen_ops = set()
    chosen = []
    for f in files:
        with open(f, "rb") as fh:
            data = fh.read()
        text = protoc("decode", "dfx.GraphDef", "proto/graph.proto", data)
        ops = set(re.findall(rb'^\s+op: "([^"]+)"', text, re.M))
        if len(ops - seen_ops) >= 2 or (ops - seen_ops and len(chosen) < 40):
            seen_ops |= ops
            chosen.append((f, data, text))
    for i, (f, data, text) in enumerate(chosen):
        base = f.split("/")[-2]
        write("graph_def", f"bin_{i:03d}_{base}", b"\x00" + data)
        # A few as text too, and as a worker sees them (internal names on).
        if i % 4 == 0:
            write("graph_def", f"txt_{i:03d}_{base}", b"\x01" + text)
        if i % 8 == 0:
            write("graph_def", f"wrk_{i:03d}_{base}", b"\x02" + data)
    for f in sorted(glob.glob("tests/data/*.pbtxt")):
        with open(f, "rb") as fh:
            write("graph_def", "txt_" + os.path.basename(f), b"\x01" + fh.read())
    return len(chosen)


TENSOR_PROTOS = [
    'dtype: DT_FLOAT tensor_shape { dim { size: 2 } dim { size: 3 } } '
    'float_val: 1 float_val: 2 float_val: 3',
    'dtype: DT_INT32 tensor_shape { dim { size: 4 } } '
    'tensor_content: "\\001\\000\\000\\000\\002\\000\\000\\000'
    '\\003\\000\\000\\000\\004\\000\\000\\000"',
    'dtype: DT_STRING tensor_shape { dim { size: 2 } } '
    'string_val: "ab" string_val: "c"',
    'dtype: DT_BOOL tensor_shape { } bool_val: true',
    'dtype: DT_HALF tensor_shape { dim { size: 2 } } half_val: 15360',
    'dtype: DT_DOUBLE tensor_shape { dim { size: -1 } } double_val: 1',
    'dtype: DT_INT64 tensor_shape { dim { size: 3 } } int64_val: 7',
    'dtype: DT_COMPLEX64 tensor_shape { dim { size: 1 } } '
    'scomplex_val: 1 scomplex_val: 2',
    'dtype: DT_UINT8 tensor_shape { dim { size: 3 } } int_val: 1 int_val: 255',
    'dtype: DT_RESOURCE tensor_shape { } resource_handle_val { '
    'device: "/job:a/replica:0/task:0/device:CPU:0" container: "c" name: "v" }',
]


def tensor_seeds():
    n = 0
    for i, text in enumerate(TENSOR_PROTOS):
        proto = protoc("encode", "dfx.TensorProto", "proto/tensor.proto",
                       text.encode())
        write("tensor", f"proto_{i:02d}", b"\x00\x00" + proto)
        response = protoc("encode", "dfx.RecvTensorResponse",
                          "proto/worker.proto",
                          f"tensor {{ {text} }} send_start_micros: 12".encode())
        # One slice and 7-byte slices.
        write("tensor", f"recv_{i:02d}", b"\x01\x00" + response)
        write("tensor", f"recv_{i:02d}_sliced", b"\x01\x06" + response)
        n += 3
    # Transport options: the first chunk, and a bulk tensor.
    for name, any_text in [
        ("chunks", 'type_url: "type.googleapis.com/dfx.TensorChunks" '
                   'value: "\\010\\007\\020\\200\\001"'),
        ("bulk", 'type_url: "type.googleapis.com/dfx.BulkTensor" '
                 'value: "\\n\\01001.2.3:4\\020\\005\\030\\200\\001"'),
    ]:
        response = protoc(
            "encode", "dfx.RecvTensorResponse", "proto/worker.proto",
            ('tensor { dtype: DT_FLOAT tensor_shape { dim { size: 32 } } '
             'tensor_content: "\\000\\000\\200\\077" } is_dead: false '
             f'transport_options {{ {any_text} }}').encode())
        write("tensor", f"recv_{name}", b"\x01\x00" + response)
        n += 1
    chunk = protoc("encode", "dfx.RecvTensorChunkResponse",
                   "proto/dfx_worker_service.proto", b'data: "abcdefgh"')
    write("tensor", "chunk", b"\x02\x01" + chunk)
    return n + 1


def npy(descr, shape, payload, version=1):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (
        descr, "(" + "".join(f"{d}, " for d in shape).rstrip(", ") +
        ("," if len(shape) == 1 else "") + ")")
    prefix = 10 if version == 1 else 12
    pad = 64 - (prefix + len(header) + 1) % 64
    header = header + " " * pad + "\n"
    if version == 1:
        head = b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header))
    else:
        head = bytes([0x93]) + b"NUMPY" + bytes([version, 0]) + \
            struct.pack("<I", len(header))
    return head + header.encode() + payload


def feed_seeds():
    n = 0
    files = sorted(glob.glob("tests/golden/data/*/*/feed_0.npy"))
    files = [f for f in files if os.path.getsize(f) <= 512]
    seen = set()
    for f in files:
        with open(f, "rb") as fh:
            data = fh.read()
        descr = re.search(rb"'descr': '([^']+)'", data)
        key = (descr.group(1) if descr else b"", data.count(b","))
        if key in seen:
            continue
        seen.add(key)
        write("feed", f"npy_{n:02d}", b"\x00" + data)
        n += 1
    extra = [
        npy("<f4", [], struct.pack("<f", 1.5)),
        npy("|b1", [3], b"\x00\x01\x00"),
        npy("<i8", [2, 0], b""),
        npy("<u2", [2], b"\x01\x00\x02\x00", version=2),
        npy("<f2", [1], b"\x00\x3c", version=3),
    ]
    for i, data in enumerate(extra):
        write("feed", f"npy_x{i}", b"\x00" + data)
    # JSON literals; the mode byte picks the dtype (tests/fuzz/feed_fuzzer.cc:
    # 128 + k picks kDtypes[(128 + k) % 13]; 128 % 13 == 11).
    dtypes = ["float", "double", "int8", "int16", "int32", "int64", "uint8",
              "uint16", "uint32", "uint64", "bool", "string", "half"]
    literals = {
        "float": ["[[1, 2], [3, 4]]", '["NaN", "Infinity", -0.5e-3]', "3"],
        "double": ["[1.5e300, -2]", "[]"],
        "int8": ["[-128, 127]"], "int16": ["[[1], [2]]"],
        "int32": ["[2.0, -7]", "[[[1]]]"], "int64": ["9007199254740993"],
        "uint8": ["[255, 0]"], "uint16": ["65535"], "uint32": ["[1, 2, 3]"],
        "uint64": ["18446744073709551615"], "bool": ["[true, false]", "true"],
    }
    for dtype, values in literals.items():
        k = dtypes.index(dtype)
        mode = 128 + ((k - 11) % 13)
        for j, v in enumerate(values):
            write("feed", f"json_{dtype}_{j}", bytes([mode]) + v.encode())
            n += 1
    return n + len(extra)


def bulk_seeds():
    # Protocol 2: the fixed part, with the token's length (the token's
    # bytes follow it on the wire, not in the frame).
    req = b"DFXB" + struct.pack("<IQQQII", 2, 0x1234567890ABCDEF, 0, 4096, 0, 0)
    write("bulk", "request", b"\x00" + req)
    write("bulk", "request_token",
          b"\x00" + b"DFXB" + struct.pack("<IQQQII", 2, 1, 2, 3, 32, 0))
    write("bulk", "request_v1",
          b"\x00" + b"DFXB" + struct.pack("<IQQQII", 1, 1, 2, 3, 0, 0))
    write("bulk", "response_ok", b"\x01" + struct.pack("<IIQ", 0, 0, 4096))
    write("bulk", "response_error", b"\x01" + struct.pack("<IIQ", 5, 0, 40))
    return 4


def main():
    if os.path.isdir(OUT):
        shutil.rmtree(OUT)
    counts = {"graph_def": graph_seeds(), "tensor": tensor_seeds(),
              "feed": feed_seeds(), "bulk": bulk_seeds()}
    for target in counts:
        d = os.path.join(OUT, target)
        files = os.listdir(d)
        size = sum(os.path.getsize(os.path.join(d, f)) for f in files)
        print(f"{target}: {len(files)} seeds, {size} bytes")


if __name__ == "__main__":
    main()

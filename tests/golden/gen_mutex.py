"""Golden cases of the mutex family, as TensorFlow 2.21 runs them:
tf.CriticalSection's ops (MutexV2, MutexLock, ConsumeMutexLock) and a few
small ops (DecodePaddedRaw, IsotonicRegression, ParallelConcat,
StochasticCastToInt, and StatefulStandardNormal v1 from a GraphDef older
than its deprecation).

A critical section holds state across steps, so its cases are multi-step
(golden_lib.steps_case): one graph, then steps run one after another in one
session. The lock is a DT_VARIANT no case fetches (TensorFlow does not
encode it); a step that leaves its lock unconsumed releases it when the
step ends, so the next step gets the mutex again.

    $(tools/tf_env) tests/golden/gen_mutex.py

Besides the cases the generator writes the ops' signatures
(tf_op_defs.pbtxt, tf_cpu_kernels.txt), which tests/kernels/mutex_test.cc
compares with dfx's registry.

StochasticCastToInt's random bits follow TensorFlow's x86 build, which
draws one Philox block per SIMD packet where its Eigen expression
vectorizes (float and double into int32) and one per element elsewhere;
kernels/array/small_kernels.cc says how, and the cases below cover packets
and the elements left over.

Left out of the family: SobolSample, which has its own (gen_sobol.py).

Cases TensorFlow cannot answer are left out: DecodePaddedRaw with
little_endian=false on a string shorter than fixed_length (TensorFlow reads
past the string's end; dfx pads with zeros, tests/kernels/mutex_test.cc),
and ParallelConcat with fewer inputs than its shape's first dim (TensorFlow
leaves the other rows uninitialized; dfx writes zeros).
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import golden_lib  # noqa: E402
from golden_lib import placeholder, steps_case, tf, tf1  # noqa: E402

FAMILY = "mutex"
RAW = tf.raw_ops

OP_NAMES = ["MutexV2", "MutexLock", "ConsumeMutexLock", "DecodePaddedRaw",
            "IsotonicRegression", "ParallelConcat", "StatefulStandardNormal",
            "StochasticCastToInt"]


def case(name, build, **kw):
    golden_lib.case(FAMILY, name, build, **kw)


def folder():
    return golden_lib.family_folder(FAMILY)


# --------------------------------------------------------------------------
# tf.CriticalSection


def resource_var(value, name):
    return tf1.get_variable(name, initializer=np.asarray(value),
                            use_resource=True)


def critical_section_cases():
    def increments():
        v = resource_var(np.int32(0), "v")
        cs = tf.CriticalSection(shared_name="cs")
        out = cs.execute(lambda: v.assign_add(1).read_value())
        return {"init": v.initializer, "out": out, "read": v.read_value()}
    steps_case(folder(), "execute_increments", increments,
               [["init"], ["out"], ["out"], ["out"], ["read"]])

    def concurrent():
        # Two executes of one section in one step: they take turns, so the
        # variable sees both updates whatever their order.
        v = resource_var(np.float32(1), "v")
        cs = tf.CriticalSection(shared_name="cs2")
        a = cs.execute(lambda: v.assign(v.read_value() * 2.0).read_value())
        b = cs.execute(lambda: v.assign(v.read_value() * 3.0).read_value())
        both = tf.group(a, b)
        return {"init": v.initializer, "both": both, "read": v.read_value()}
    steps_case(folder(), "execute_concurrent", concurrent,
               [["init"], ["both"], ["read"], ["both"], ["read"]])

    def two_sections():
        # Two sections, each with its own variable, and a section's output
        # feeding the other's function.
        v = resource_var(np.int64(5), "v")
        w = resource_var(np.int64(0), "w")
        cs1 = tf.CriticalSection(shared_name="one")
        cs2 = tf.CriticalSection(shared_name="two")
        x = cs1.execute(lambda: v.assign_add(2).read_value())
        y = cs2.execute(lambda: w.assign_add(x).read_value())
        return {"init": tf.group(v.initializer, w.initializer), "y": y,
                "x": x, "read": w.read_value()}
    steps_case(folder(), "execute_chained", two_sections,
               [["init"], ["y"], ["y"], ["read"]])

    def unconsumed():
        # A lock nothing consumes lives until its step ends.
        m = RAW.MutexV2(shared_name="held")
        lock = RAW.MutexLock(mutex=m)
        with tf.control_dependencies([lock]):
            out = tf.identity(tf.constant([1.5, 2.5]))
        return {"out": out}
    steps_case(folder(), "lock_released_at_step_end", unconsumed,
               [["out"], ["out"], ["out"]])

    def bad_consume():
        # ConsumeMutexLock of a variant that is not a lock.
        lst = RAW.EmptyTensorList(element_shape=tf.constant([], tf.int32),
                                  max_num_elements=-1,
                                  element_dtype=tf.float32)
        return {"consume": RAW.ConsumeMutexLock(mutex_lock=lst)}
    steps_case(folder(), "consume_not_a_lock", bad_consume, [["consume"]])

    def lock_of_variable():
        # MutexLock of a variable's handle makes a mutex of that name: the
        # resource manager keeps a variable and a mutex apart.
        v = resource_var(np.float32(3), "shared")
        lock = RAW.MutexLock(mutex=v.handle)
        with tf.control_dependencies([RAW.ConsumeMutexLock(mutex_lock=lock)]):
            out = v.read_value() + 1.0
        return {"init": v.initializer, "out": out}
    steps_case(folder(), "lock_variable_handle", lock_of_variable,
               [["init"], ["out"], ["out"]])


# --------------------------------------------------------------------------
# DecodePaddedRaw


def decode_padded_raw_cases():
    def decode(name, strings, length, out_type, little_endian=True,
               shape=None, length_feed=False):
        def build():
            arr = np.array(strings, dtype=object)
            if shape is not None:
                arr = arr.reshape(shape)
            sp, sv = placeholder(arr.astype(bytes) if arr.size else
                                 np.zeros(arr.shape, dtype=object))
            feeds = {sp: sv}
            if length_feed:
                lp, lv = placeholder(np.asarray(length, np.int32),
                                     name="length", shape=None)
                feeds[lp] = lv
                length_t = lp
            else:
                length_t = tf.constant(length, tf.int32)
            out = RAW.DecodePaddedRaw(input_bytes=sp, fixed_length=length_t,
                                      out_type=out_type,
                                      little_endian=little_endian)
            return out, feeds
        case("decode_padded_raw_" + name, build)

    words = [b"abcdefgh", b"ijklmnop", b"qrstuvwx"]
    for dt in [tf.float32, tf.float64, tf.int32, tf.uint16, tf.uint8,
               tf.int16, tf.int8, tf.int64, tf.bfloat16]:
        decode(dt.name, words, 8, dt)
        # Big-endian only with strings at least fixed_length long:
        # TensorFlow's byte-swapping path reads fixed_length bytes of every
        # string, past the end of a shorter one.
        if dt.size > 1:
            decode(dt.name + "_big_endian", words, 8, dt, little_endian=False)
    decode("short_strings_padded", [b"ab", b"", b"abcdefghij"], 4, tf.int16)
    decode("short_strings_uint8", [b"xyz", b"q"], 5, tf.uint8)
    decode("long_strings_cut_big_endian", [b"abcdefgh", b"ijklmnopqr"], 4,
           tf.uint16, little_endian=False)
    decode("matrix", [b"aaaa", b"bbbb", b"cccc", b"dddd", b"ee", b"f"], 4,
           tf.int32, shape=(2, 3))
    decode("scalar", b"\x01\x00\x00\x00\x02\x00", 8, tf.int32, shape=())
    decode("empty", [], 4, tf.int32)
    # Fed lengths: the shape function rejects these constants.
    decode("error_not_multiple", words, 6, tf.int32, length_feed=True)
    decode("error_zero", words, 0, tf.int16, length_feed=True)
    decode("error_negative", words, -4, tf.int32, length_feed=True)
    decode("error_length_not_scalar", words, [4, 4], tf.int32,
           length_feed=True)


# --------------------------------------------------------------------------
# IsotonicRegression


def isotonic_cases():
    def iso(name, value, output_dtype=None, rtol=None, atol=None):
        def build():
            xp, xv = placeholder(value)
            kw = {} if output_dtype is None else {"output_dtype": output_dtype}
            out, seg = RAW.IsotonicRegression(input=xp, **kw)
            return [out, seg], {xp: xv}
        case("isotonic_" + name, build, rtol=rtol, atol=atol)

    rng = golden_lib.rng(3)
    base = rng.normal(size=(3, 7))
    iso("float", base.astype(np.float32), tf.float32)
    iso("double", base, tf.float64)
    iso("half", (base * 10).astype(np.float16), tf.float16, rtol=0, atol=0)
    iso("int8", rng.integers(-100, 100, size=(2, 9)).astype(np.int8))
    iso("int16", rng.integers(-3000, 3000, size=(2, 9)).astype(np.int16))
    iso("int32", rng.integers(-10**6, 10**6, size=(2, 9)).astype(np.int32),
        tf.float64)
    iso("int64", np.array([[2**60 + 1, 3, 2**61, -5, 7]], np.int64),
        tf.float64)
    iso("vector", np.array([1., 3., 2., 4., 3.5, 5.], np.float32))
    iso("decreasing", np.array([5., 4., 3., 2., 1.], np.float32))
    iso("increasing", np.array([1., 2., 3., 4., 5.], np.float32))
    iso("ties", np.array([[2., 2., 2., 3., 3., 1.]], np.float32))
    iso("rank3", rng.normal(size=(2, 3, 4)).astype(np.float32))
    iso("scalar", np.float32(4.5))
    iso("nan", np.array([1., np.nan, 3., 2.], np.float32))
    iso("empty_rows", np.zeros((0, 4), np.float32))
    iso("empty_cols", np.zeros((3, 0), np.float32))
    iso("error_float_to_double", base.astype(np.float32), tf.float64)


def isotonic_bfloat16_case():
    def build():
        x = tf.cast(tf.constant(np.linspace(-3, 3, 12).reshape(2, 6)[:, ::-1]
                                * np.array([1, -1] * 6).reshape(2, 6),
                                tf.float32), tf.bfloat16)
        out, seg = RAW.IsotonicRegression(input=x, output_dtype=tf.bfloat16)
        return [tf.cast(out, tf.float32), seg], None
    case("isotonic_bfloat16_kernel", build, rtol=0, atol=0)


# --------------------------------------------------------------------------
# ParallelConcat (tf.parallel_stack)


def parallel_concat_cases():
    def pc(name, values, shape):
        def build():
            feeds = {}
            ins = []
            for i, v in enumerate(values):
                p, pv = placeholder(v, name=f"v{i}")
                feeds[p] = pv
                ins.append(p)
            return RAW.ParallelConcat(values=ins, shape=shape), feeds
        case("parallel_concat_" + name, build)

    pc("float", [np.array([[1., 2.]], np.float32),
                 np.array([[3., 4.]], np.float32)], [2, 2])
    for dt in [np.float64, np.int32, np.int64, np.uint8, np.int8, np.int16,
               np.uint16, np.uint32, np.uint64, np.float16, np.bool_,
               np.complex64, np.complex128]:
        pc(np.dtype(dt).name, [np.ones((1, 3), dt), np.zeros((1, 3), dt),
                               np.ones((1, 3), dt)], [3, 3])
    pc("string", [np.array([[b"a", b"bc"]]), np.array([[b"", b"d"]])],
       [2, 2])
    pc("rank3", [np.arange(6, dtype=np.float32).reshape(1, 2, 3),
                 -np.arange(6, dtype=np.float32).reshape(1, 2, 3)], [2, 2, 3])
    pc("one", [np.array([7], np.int32)], [1])
    pc("empty_rows", [np.zeros((1, 0), np.float32),
                      np.zeros((1, 0), np.float32)], [2, 0])
    pc("error_too_many", [np.array([[1.]], np.float32),
                          np.array([[2.]], np.float32)], [1, 1])

    def stack():
        # What tf.parallel_stack emits: an ExpandDims per input.
        a = tf.constant([1, 2, 3])
        b = tf.constant([4, 5, 6])
        return tf.parallel_stack([a, b]), None
    case("parallel_stack", stack)


# --------------------------------------------------------------------------
# StochasticCastToInt (no tf.raw_ops wrapper in 2.21: built from its OpDef)


def stochastic_cast(x, key, counter, alg, tout):
    from tensorflow.python.framework import op_def_library
    op = op_def_library._apply_op_helper(
        "StochasticCastToInt", input=x, key=key, counter=counter, alg=alg,
        Tout=tout)[2]
    return op.outputs[0]


def stochastic_cast_cases():
    def cast(name, values, tin, tout, key=(9,), counter=(5, 0), alg=1,
             feed_alg=False):
        def build():
            v = np.asarray(values, np.float64)
            if tin == tf.bfloat16:
                # No bfloat16 feeds: a float feed cast in the graph.
                xp, xv = placeholder(v.astype(np.float32))
                x = tf.cast(xp, tf.bfloat16)
            else:
                xp, xv = placeholder(v.astype(tin.as_numpy_dtype))
                x = xp
            feeds = {xp: xv}
            k = tf.constant(np.asarray(key, np.uint64))
            c = tf.constant(np.asarray(counter, np.uint64))
            if feed_alg:
                # Unknown shape: the shape function would reject it.
                ap = tf1.placeholder(tf.int32, shape=None, name="alg")
                feeds[ap] = np.asarray(alg, np.int32)
                a = ap
            else:
                a = tf.constant(alg, tf.int32)
            return stochastic_cast(x, k, c, a, tout), feeds
        case("stochastic_cast_" + name, build)

    rng = golden_lib.rng(7)
    # Values inside every Tout's range. Beyond int32's, TensorFlow converts
    # with undefined behaviour (INT_MIN on x86) where dfx saturates: float,
    # half and bfloat16 to int32 at or past 2^31, and half or bfloat16 to
    # int16 at 32767 (which rounds to 32768 in them) are left out.
    mixed = np.concatenate([rng.uniform(-60, 60, size=37),
                            [0.5, -0.5, 3.0, -7.0, np.nan, 0.25, -0.75]])
    for tin in [tf.float32, tf.float64, tf.float16, tf.bfloat16]:
        for tout in [tf.int8, tf.int16, tf.int32]:
            cast(f"{tin.name}_{tout.name}", mixed, tin, tout)
    # Packets of 8 floats (or 2 x 4 doubles) and the elements left over.
    for n in [1, 7, 8, 9, 33, 64]:
        vals = rng.uniform(-5, 5, size=n)
        cast(f"float32_int32_n{n}", vals, tf.float32, tf.int32,
             key=(2**40 + 3,), counter=(2**33 + 5, 77))
        cast(f"float64_int32_n{n}", vals, tf.float64, tf.int32,
             key=(12345,), counter=(99, 1))
    cast("saturate_int8", [300.0, -300.0, 127.0, -128.0, 126.5, -127.5,
                           np.inf, -np.inf], tf.float32, tf.int8)
    cast("saturate_int16_float", [1e6, -1e6, 32767.0, -32768.0, 32766.5],
         tf.float32, tf.int16)
    cast("saturate_int32_double", [3e9, -3e9, 2147483647.0, -2147483648.0,
                                   2147483646.5, -2147483647.5, np.inf,
                                   -np.inf, 1.5, 2.5, 3.5, 4.5],
         tf.float64, tf.int32)
    cast("half_int32_range", [60000.0, -60000.0, 65504.0, 1000.5, -3.25],
         tf.float16, tf.int32)
    cast("integers", np.arange(-20, 20, dtype=np.float64), tf.float32,
         tf.int32)
    cast("matrix", rng.uniform(-3, 3, size=(4, 5)), tf.float32, tf.int16)
    cast("scalar", 2.75, tf.float64, tf.int8)
    cast("empty", np.zeros((0, 3)), tf.float32, tf.int32)
    cast("auto_select", mixed, tf.float32, tf.int32, alg=3)
    cast("one_word_counter", mixed[:10], tf.float64, tf.int16, counter=(8,))
    cast("error_threefry", mixed, tf.float32, tf.int32, alg=2)
    cast("error_bad_alg", mixed, tf.float32, tf.int32, alg=0)
    cast("error_empty_counter", mixed, tf.float32, tf.int32, counter=())
    cast("error_alg_not_scalar", mixed, tf.float32, tf.int32, alg=[1, 1],
         feed_alg=True)


# --------------------------------------------------------------------------
# StatefulStandardNormal (v1): TensorFlow 2.21 runs it only from a GraphDef
# produced before version 29 (golden_lib.legacy_case). The case graph
# builds StatefulStandardNormalV2 nodes and turns them into v1 ones (the
# algorithm input dropped: v1 reads it from the state's first word).


def normal_v1_cases():
    def normal(name, state, dtype=tf.float32, shape=(2, 3),
               state_dtype=np.int64, draws=2):
        def build():
            st = np.asarray(state, state_dtype)
            handle = RAW.VarHandleOp(dtype=tf.as_dtype(st.dtype),
                                     shape=st.shape, shared_name="rng_" + name,
                                     name="state")
            assign = RAW.AssignVariableOp(resource=handle,
                                          value=tf.constant(st))
            outs = []
            deps = [assign]
            for i in range(draws):
                with tf.control_dependencies(deps):
                    out = RAW.StatefulStandardNormalV2(
                        resource=handle, algorithm=tf.constant(1, tf.int64),
                        shape=tf.constant(shape, tf.int64), dtype=dtype,
                        name=f"draw{i}")
                outs.append(out)
                deps = [out]
            fetches = [o.name for o in outs]
            if st.dtype == np.int64:
                with tf.control_dependencies(deps):
                    read = RAW.ReadVariableOp(resource=handle,
                                              dtype=tf.int64, name="read")
                fetches.append(read.name)

            def edit(graph_def):
                for node in graph_def.node:
                    if node.op == "StatefulStandardNormalV2":
                        node.op = "StatefulStandardNormal"
                        inputs = list(node.input)
                        del node.input[:]
                        node.input.extend(inputs[:1] + inputs[2:])
            return edit, fetches
        golden_lib.legacy_case(FAMILY, "normal_v1_" + name, build,
                               producer=28)

    normal("float", [1, 7, 0, 42])
    normal("double", [1, 2**40, 3, 9], dtype=tf.float64)
    normal("half", [1, 0, 0, 5], dtype=tf.float16)
    normal("bfloat16", [1, 11, 0, 5], dtype=tf.bfloat16)
    normal("auto_select", [3, 100, 1, 77], shape=(5,))
    normal("long_state", [1, 4, 5, 6, 99, 98], shape=(3,))
    normal("empty", [1, 0, 0, 3], shape=(0, 2))
    normal("counter_carry", [1, -1, 0, 1], shape=(4,))
    normal("error_threefry", [2, 0, 0, 1], draws=1)
    normal("error_bad_alg", [7, 0, 0, 1], draws=1)
    normal("error_short_state", [1, 0, 0], draws=1)
    normal("error_empty_state", np.zeros((0,), np.int64), draws=1)
    normal("error_int32_state", [1, 0, 0, 1], state_dtype=np.int32, draws=1)
    normal("error_rank2_state", [[1, 0, 0, 1]], draws=1)


def main():
    golden_lib.family_folder(FAMILY)
    critical_section_cases()
    decode_padded_raw_cases()
    isotonic_cases()
    isotonic_bfloat16_case()
    parallel_concat_cases()
    normal_v1_cases()
    stochastic_cast_cases()
    golden_lib.write_op_defs(FAMILY, OP_NAMES,
                             type_attrs={"DecodePaddedRaw": "out_type",
                                         "IsotonicRegression": "T",
                                         "StatefulStandardNormal": "dtype"})


if __name__ == "__main__":
    main()

"""Golden cases of the dtypes2 family: dtypes TensorFlow 2.21's CPU kernels
serve for ops dfx already had, which dfx's kernels lacked.

  - complex64 and complex128 for the optimizers TensorFlow registers them
    for (Apply*, ResourceApply*, SparseApply*, ResourceSparseApply* of
    GradientDescent, Adadelta, Adagrad, AdagradV2, Adam, Momentum,
    KerasMomentum, RMSProp, CenteredRMSProp): the same expressions in
    complex arithmetic (square is z * z, sqrt the principal root);
  - uint16/uint32/uint64 for AddN, BiasAdd, BiasAddV1, BiasAddGrad, Relu,
    Relu6, ReluGrad, Relu6Grad, ClipByValue, Fill, OnesLike, ZerosLike
    (unsigned sums wrap);
  - uint32/uint64 for MaxPoolGrad, MaxPoolGradV2, MaxPoolGradGrad,
    MaxPoolGradGradV2; every integer type for MaxPoolWithArgmax and
    MaxPoolGradWithArgmax;
  - half for MatrixInverse (TensorFlow inverts in float and rounds) and Qr
    (TensorFlow's kernel computes in half).

The optimizer cases are multi-step (golden_lib.steps_case): variables are
initialized, updated twice and read back, so the slots' state shows.

    $(tools/tf_env) tests/golden/gen_dtypes2.py

Besides the cases the generator writes the ops' signatures
(tf_op_defs.pbtxt, tf_cpu_kernels.txt), which tests/kernels/dtypes2_test.cc
compares with dfx's registry.
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import golden_lib  # noqa: E402
from golden_lib import placeholder, steps_case, tf, tf1  # noqa: E402

FAMILY = "dtypes2"
RAW = tf.raw_ops

# name: (slot input names after var, scalar inputs {name: value}, attrs,
#        forms) with forms a subset of "ref", "resource", "sparse_ref",
#        "sparse_resource".
ALL = ("ref", "resource", "sparse_ref", "sparse_resource")
DENSE = ("ref", "resource")
OPTIMIZERS = {
    "GradientDescent": ([], {"alpha": 0.25 + 0.125j}, {}, DENSE),
    "Adadelta": (["accum", "accum_update"],
                 {"lr": 0.5 - 0.25j, "rho": 0.9 + 0.05j, "epsilon": 1e-3},
                 {}, ALL),
    "Adagrad": (["accum"], {"lr": 0.1 + 0.2j}, {}, ALL),
    "AdagradV2": (["accum"], {"lr": 0.1 - 0.3j, "epsilon": 0.01 + 0.01j},
                  {}, ALL),
    "Adam": (["m", "v"],
             {"beta1_power": 0.9 + 0.01j, "beta2_power": 0.999,
              "lr": 0.05 + 0.05j, "beta1": 0.9, "beta2": 0.999 - 0.001j,
              "epsilon": 1e-3 + 1e-3j}, {}, DENSE),
    "Momentum": (["accum"], {"lr": 0.2 + 0.1j, "momentum": 0.9 - 0.1j}, {},
                 ALL),
    "KerasMomentum": (["accum"], {"lr": 0.2 - 0.1j, "momentum": 0.8 + 0.1j},
                      {}, ("resource", "sparse_resource")),
    "RMSProp": (["ms", "mom"],
                {"lr": 0.1 + 0.1j, "rho": 0.9, "momentum": 0.5 - 0.2j,
                 "epsilon": 1e-2}, {}, ALL),
    "CenteredRMSProp": (["mg", "ms", "mom"],
                        {"lr": 0.1 - 0.05j, "rho": 0.9 + 0.02j,
                         "momentum": 0.5, "epsilon": 1e-2 + 1e-2j}, {}, ALL),
}


def optimizer_op_names():
    names = []
    prefix = {"ref": "Apply", "resource": "ResourceApply",
              "sparse_ref": "SparseApply",
              "sparse_resource": "ResourceSparseApply"}
    for name, (_, _, _, forms) in OPTIMIZERS.items():
        names += [prefix[f] + name for f in forms]
    return names


OP_NAMES = sorted(optimizer_op_names() + [
    "AddN", "BiasAdd", "BiasAddGrad", "BiasAddV1", "ClipByValue", "Fill",
    "MatrixInverse", "MaxPoolGrad", "MaxPoolGradGrad", "MaxPoolGradGradV2",
    "MaxPoolGradV2", "MaxPoolGradWithArgmax", "MaxPoolWithArgmax",
    "OnesLike", "Qr", "Relu", "Relu6", "Relu6Grad", "ReluGrad", "ZerosLike"])


def case(name, build, **kw):
    golden_lib.case(FAMILY, name, build, **kw)


def folder():
    return golden_lib.family_folder(FAMILY)


# --------------------------------------------------------------------------
# Complex optimizers


# Variable and slot values (4 rows of 2): slots with negative real parts
# (sqrt on its principal branch), a zero, mixed signs.
VAR0 = np.array([[1 + 1j, -2 + 0.5j], [0.5 - 0.25j, 0j],
                 [3 - 1j, -0.5 - 2j], [0.25 + 0.75j, -1 + 0j]])
SLOT0 = np.array([[0.5 + 0.1j, -0.5 + 0.1j], [1 + 1j, 0.25 - 0.5j],
                  [2 + 0j, 0.1 + 0.9j], [-0.3 + 0.4j, 1.5 - 0.2j]])
GRAD = np.array([[0.3 - 0.2j, 0j], [-1 + 0.5j, 0.125 + 0.25j],
                 [2 + 1j, -0.75 - 0.5j], [0.5 + 0j, 0 - 0.5j]])
# Sparse updates: rows 2, 0, 2 (a row named twice is updated twice, in
# order).
SPARSE_INDICES = [2, 0, 2]


def optimizer_case(name, form, dtype):
    slots, scalars, attrs, _ = OPTIMIZERS[name]
    op_name = {"ref": "Apply", "resource": "ResourceApply",
               "sparse_ref": "SparseApply",
               "sparse_resource": "ResourceSparseApply"}[form] + name
    sparse = form.startswith("sparse")
    resource = form in ("resource", "sparse_resource")
    tag = np.dtype(dtype).name

    def build():
        variables = []
        for k, slot in enumerate(["var"] + slots):
            init = (VAR0 if k == 0 else SLOT0 * (1 + 0.5 * k)).astype(dtype)
            variables.append(tf1.Variable(init, use_resource=resource,
                                          name=slot))
        args = {}
        for slot, v in zip(["var"] + slots, variables):
            args[slot] = v.handle if resource else v
        for key, value in scalars.items():
            args[key] = tf.constant(value, dtype=dtype)
        grad_key = "delta" if name == "GradientDescent" else "grad"
        if sparse:
            args[grad_key] = tf.constant(GRAD[:3] * (1 - 0.5j), dtype=dtype)
            args["indices"] = tf.constant(
                SPARSE_INDICES, dtype=tf.int64 if resource else tf.int32)
        else:
            args[grad_key] = tf.constant(GRAD, dtype=dtype)
        args.update(attrs)
        update = getattr(RAW, op_name)(**args)
        update = update if isinstance(update, tf.Operation) else update.op
        named = {"init": tf.group([v.initializer for v in variables]),
                 "update": update}
        for slot, v in zip(["var"] + slots, variables):
            named["read_" + slot] = v.read_value()
        return named
    reads = ["read_" + s for s in ["var"] + slots]
    steps_case(folder(), f"{op_name}_{tag}", build,
               [["init"], ["update"], ["update"], reads],
               note=f"{op_name} on {tag} variables, two updates")


def optimizer_variants():
    """Attr variants: Nesterov momentum, Adagrad without slot updates."""
    def nesterov(op_name, dtype, momentum_slot="accum"):
        def build():
            v = tf1.Variable(VAR0.astype(dtype), name="var")
            a = tf1.Variable(SLOT0.astype(dtype), name=momentum_slot)
            lr = tf.constant(0.2 + 0.1j, dtype=dtype)
            m = tf.constant(0.9 - 0.1j, dtype=dtype)
            if op_name == "ResourceApplyAdam":
                a2 = tf1.Variable((SLOT0 * 2).astype(dtype), name="v")
                c = lambda x: tf.constant(x, dtype=dtype)  # noqa: E731
                up = RAW.ResourceApplyAdam(
                    var=v.handle, m=a.handle, v=a2.handle,
                    beta1_power=c(0.81), beta2_power=c(0.998 + 0.001j),
                    lr=c(0.1 - 0.1j), beta1=c(0.9), beta2=c(0.999),
                    epsilon=c(1e-3), grad=c(GRAD), use_nesterov=True)
                init = tf.group(v.initializer, a.initializer, a2.initializer)
                return {"init": init, "update": up,
                        "read_var": v.read_value(), "read_m": a.read_value(),
                        "read_v": a2.read_value()}
            up = getattr(RAW, op_name)(
                var=v.handle, accum=a.handle, lr=lr,
                grad=tf.constant(GRAD, dtype=dtype), momentum=m,
                use_nesterov=True)
            return {"init": tf.group(v.initializer, a.initializer),
                    "update": up, "read_var": v.read_value(),
                    "read_accum": a.read_value()}
        keys = (["read_var", "read_m", "read_v"]
                if op_name == "ResourceApplyAdam"
                else ["read_var", "read_accum"])
        steps_case(folder(),
                   f"{op_name}_nesterov_{np.dtype(dtype).name}", build,
                   [["init"], ["update"], ["update"], keys],
                   note="use_nesterov=True")

    for dtype in (np.complex64, np.complex128):
        nesterov("ResourceApplyMomentum", dtype)
        nesterov("ResourceApplyKerasMomentum", dtype)
        nesterov("ResourceApplyAdam", dtype)

    def no_slot_update():
        v = tf1.Variable(VAR0.astype(np.complex64), name="var")
        a = tf1.Variable(SLOT0.astype(np.complex64), name="accum")
        up = RAW.ResourceSparseApplyAdagradV2(
            var=v.handle, accum=a.handle,
            lr=tf.constant(0.5 + 0.5j, tf.complex64),
            epsilon=tf.constant(0.1, tf.complex64),
            grad=tf.constant(GRAD[:3], tf.complex64),
            indices=tf.constant(SPARSE_INDICES, tf.int32),
            update_slots=False)
        return {"init": tf.group(v.initializer, a.initializer), "update": up,
                "read_var": v.read_value(), "read_accum": a.read_value()}
    steps_case(folder(), "ResourceSparseApplyAdagradV2_no_slot_update",
               no_slot_update,
               [["init"], ["update"], ["read_var", "read_accum"]],
               note="update_slots=False leaves accum as it is")

    def errors():
        v = tf1.Variable(VAR0.astype(np.complex128), name="var")
        a = tf1.Variable(SLOT0.astype(np.complex128), name="accum")
        # Of unknown shape, so that the kernels (not the shape functions)
        # see the bad shapes.
        c = lambda x: tf1.placeholder_with_default(  # noqa: E731
            tf.constant(x, tf.complex128), shape=None)
        bad_grad = RAW.ResourceApplyAdagrad(
            var=v.handle, accum=a.handle, lr=c(0.1), grad=c(GRAD[:2]))
        bad_lr = RAW.ResourceApplyMomentum(
            var=v.handle, accum=a.handle, lr=c([0.1, 0.2]), grad=c(GRAD),
            momentum=c(0.9))
        bad_index = RAW.ResourceSparseApplyRMSProp(
            var=v.handle, ms=a.handle, mom=a.handle, lr=c(0.1), rho=c(0.9),
            momentum=c(0.1), epsilon=c(0.1), grad=c(GRAD[:2]),
            indices=tf.constant([1, 4], tf.int64))
        return {"init": tf.group(v.initializer, a.initializer),
                "bad_grad": bad_grad, "bad_lr": bad_lr,
                "bad_index": bad_index, "read_var": v.read_value()}
    steps_case(folder(), "complex_optimizer_errors", errors,
               [["init"], ["bad_grad"], ["bad_lr"], ["bad_index"],
                ["read_var"]],
               note="a grad of the wrong shape, a non-scalar lr, an index "
               "out of range: InvalidArgument, the variable unchanged")


def optimizer_cases():
    for name, (_, _, _, forms) in OPTIMIZERS.items():
        for form in forms:
            for dtype in (np.complex64, np.complex128):
                optimizer_case(name, form, dtype)
    optimizer_variants()


# --------------------------------------------------------------------------
# Unsigned element-wise ops

UNSIGNED = (np.uint16, np.uint32, np.uint64)


def edge(dtype):
    """0, 1, small values, 6 and 7 (Relu6's bound), the largest value."""
    top = np.iinfo(dtype).max
    return np.array([[0, 1, 5, 6], [7, 100, top - 1, top]], dtype)


def unsigned_cases():
    for dtype in UNSIGNED:
        tag = np.dtype(dtype).name
        x = edge(dtype)
        g = np.array([[3, 4, 5, 6], [7, 8, 9, 10]], dtype)

        def unary(op):
            def build():
                p, v = placeholder(x)
                return getattr(RAW, op)(features=p), {p: v}
            return build
        case(f"relu_{tag}", unary("Relu"))
        case(f"relu6_{tag}", unary("Relu6"))

        def grad(op):
            def build():
                gp, gv = placeholder(g, name="g")
                fp, fv = placeholder(x, name="f")
                return getattr(RAW, op)(gradients=gp, features=fp), {
                    gp: gv, fp: fv}
            return build
        case(f"relu_grad_{tag}", grad("ReluGrad"))
        case(f"relu6_grad_{tag}", grad("Relu6Grad"))

        def bias_add(op, fmt):
            def build():
                value = np.arange(24, dtype=dtype).reshape(2, 3, 2, 2)
                value[0, 0, 0, 0] = np.iinfo(dtype).max  # wraps
                bias = np.array([1, 2, 3] if fmt == "NCHW" else [1, 2],
                                dtype)
                vp, vv = placeholder(value, name="value")
                bp, bv = placeholder(bias, name="bias")
                kw = {} if op == "BiasAddV1" else {"data_format": fmt}
                return getattr(RAW, op)(value=vp, bias=bp, **kw), {
                    vp: vv, bp: bv}
            return build
        case(f"bias_add_nhwc_{tag}", bias_add("BiasAdd", "NHWC"))
        case(f"bias_add_nchw_{tag}", bias_add("BiasAdd", "NCHW"))
        case(f"bias_add_v1_{tag}", bias_add("BiasAddV1", "NHWC"))

        def bias_add_grad(fmt):
            def build():
                value = np.arange(24, dtype=dtype).reshape(2, 3, 2, 2)
                value[1, 2, 1, 1] = np.iinfo(dtype).max  # the sum wraps
                vp, vv = placeholder(value)
                return RAW.BiasAddGrad(out_backprop=vp, data_format=fmt), {
                    vp: vv}
            return build
        case(f"bias_add_grad_nhwc_{tag}", bias_add_grad("NHWC"))
        case(f"bias_add_grad_nchw_{tag}", bias_add_grad("NCHW"))

        def empty_relu():
            p, v = placeholder(np.zeros((0, 3), dtype))
            return RAW.Relu(features=p), {p: v}
        case(f"relu_empty_{tag}", empty_relu)

    for dtype in (np.uint32, np.uint64):
        tag = np.dtype(dtype).name

        def add_n():
            x = edge(dtype)
            a, av = placeholder(x, name="a")
            b, bv = placeholder(np.ones_like(x) * 2, name="b")
            c, cv = placeholder(x[::-1].copy(), name="c")
            return RAW.AddN(inputs=[a, b, c]), {a: av, b: bv, c: cv}
        case(f"add_n_{tag}", add_n)

        def fill():
            v, vv = placeholder(np.array(np.iinfo(dtype).max, dtype))
            return RAW.Fill(dims=tf.constant([2, 3]), value=v), {v: vv}
        case(f"fill_{tag}", fill)

        def fill_empty():
            v, vv = placeholder(np.array(7, dtype))
            return RAW.Fill(dims=tf.constant([0, 3], tf.int64), value=v), {
                v: vv}
        case(f"fill_empty_{tag}", fill_empty)

        def like(op):
            def build():
                p, v = placeholder(edge(dtype))
                return getattr(RAW, op)(x=p), {p: v}
            return build
        case(f"zeros_like_{tag}", like("ZerosLike"))
        case(f"ones_like_{tag}", like("OnesLike"))

    def add_n_shape_mismatch():
        # Unknown shapes: the kernel, not the shape function, sees them.
        a, av = placeholder(np.ones((2, 2), np.uint64), name="a",
                            shape=[None, None])
        b, bv = placeholder(np.ones((2, 3), np.uint64), name="b",
                            shape=[None, None])
        return RAW.AddN(inputs=[a, b]), {a: av, b: bv}
    case("add_n_shape_mismatch_uint64", add_n_shape_mismatch)

    def clip(lo, hi, name):
        def build():
            x = edge(np.uint16)
            xp, xv = placeholder(x, name="x")
            lp, lv = placeholder(np.asarray(lo, np.uint16), name="lo")
            hp, hv = placeholder(np.asarray(hi, np.uint16), name="hi")
            return RAW.ClipByValue(t=xp, clip_value_min=lp,
                                   clip_value_max=hp), {
                                       xp: xv, lp: lv, hp: hv}
        case("clip_by_value_uint16_" + name, build)
    clip(5, 100, "scalars")
    clip(np.array([[1, 0, 9, 7], [2, 3, 4, 65535]]),
         np.array([[2, 2, 10, 6], [8, 50, 65534, 65535]]), "tensors")
    clip(9, 3, "min_above_max")

    def clip_bad_shape():
        xp, xv = placeholder(edge(np.uint16), name="x")
        lp, lv = placeholder(np.array([1, 2], np.uint16), name="lo",
                             shape=[None])
        hp, hv = placeholder(np.array(9, np.uint16), name="hi")
        return RAW.ClipByValue(t=xp, clip_value_min=lp, clip_value_max=hp), {
            xp: xv, lp: lv, hp: hv}
    case("clip_by_value_uint16_bad_shape", clip_bad_shape)


# --------------------------------------------------------------------------
# Pooling

INTS = (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
        np.uint32, np.uint64)


def pool_input(dtype):
    """[2, 4, 4, 2] with ties and the type's extremes."""
    info = np.iinfo(dtype)
    x = (np.arange(64).reshape(2, 4, 4, 2) * 7 % 23).astype(np.int64)
    x = x.astype(dtype)
    x[0, 0, 0, 0] = info.max
    x[1, 3, 3, 1] = info.min
    x[0, 1, 1, 1] = x[0, 1, 0, 1]  # a tie in a window
    return x


def pooling_cases():
    for dtype in (np.uint32, np.uint64):
        tag = np.dtype(dtype).name
        x = pool_input(dtype)
        ksize, strides = [1, 2, 2, 1], [1, 2, 2, 1]

        def max_pool_grad(v2, padding):
            def build():
                xp, xv = placeholder(x, name="x")
                xf = tf.cast(xp, tf.float64)
                out = tf.cast(tf.nn.max_pool2d(xf, [1, 3, 3, 1] if padding ==
                                               "SAME" else ksize, strides,
                                               padding), dtype)
                k = [1, 3, 3, 1] if padding == "SAME" else ksize
                grad = tf.cast(tf.reshape(tf.range(
                    tf.size(out)), tf.shape(out)) + 1, dtype)
                if v2:
                    r = RAW.MaxPoolGradV2(orig_input=xp, orig_output=out,
                                          grad=grad, ksize=tf.constant(k),
                                          strides=tf.constant(strides),
                                          padding=padding)
                else:
                    r = RAW.MaxPoolGrad(orig_input=xp, orig_output=out,
                                        grad=grad, ksize=k, strides=strides,
                                        padding=padding)
                return r, {xp: xv}
            return build
        case(f"max_pool_grad_{tag}", max_pool_grad(False, "VALID"))
        case(f"max_pool_grad_same_{tag}", max_pool_grad(False, "SAME"))
        case(f"max_pool_grad_v2_{tag}", max_pool_grad(True, "VALID"))

        def max_pool_grad_grad(v2):
            def build():
                xp, xv = placeholder(x, name="x")
                out = tf.cast(tf.nn.max_pool2d(tf.cast(xp, tf.float64),
                                               ksize, strides, "VALID"),
                              dtype)
                grad = tf.cast(tf.reshape(tf.range(64), [2, 4, 4, 2]) * 3,
                               dtype)
                if v2:
                    r = RAW.MaxPoolGradGradV2(
                        orig_input=xp, orig_output=out, grad=grad,
                        ksize=tf.constant(ksize),
                        strides=tf.constant(strides), padding="VALID")
                else:
                    r = RAW.MaxPoolGradGrad(
                        orig_input=xp, orig_output=out, grad=grad,
                        ksize=ksize, strides=strides, padding="VALID")
                return r, {xp: xv}
            return build
        case(f"max_pool_grad_grad_{tag}", max_pool_grad_grad(False))
        case(f"max_pool_grad_grad_v2_{tag}", max_pool_grad_grad(True))

    def grad_bad_shape():
        x = pool_input(np.uint64)
        xp, xv = placeholder(x, name="x")
        out = tf.zeros([2, 2, 2, 2], tf.uint64)
        grad = tf1.placeholder_with_default(
            tf.zeros([2, 2, 3, 2], tf.uint64), shape=None)
        return RAW.MaxPoolGrad(orig_input=xp, orig_output=out, grad=grad,
                               ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1],
                               padding="VALID"), {xp: xv}
    case("max_pool_grad_bad_grad_shape_uint64", grad_bad_shape)

    for dtype in INTS:
        tag = np.dtype(dtype).name
        x = pool_input(dtype)
        # Targmax int64 and int32, batch in the index or not, by turns.
        signed = np.iinfo(dtype).min < 0
        targmax = tf.int64 if signed else tf.int32

        def build():
            xp, xv = placeholder(x)
            out, arg = RAW.MaxPoolWithArgmax(
                input=xp, ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1],
                padding="SAME", Targmax=targmax,
                include_batch_in_index=not signed)
            return [out, arg], {xp: xv}
        case(f"max_pool_with_argmax_{targmax.name}_{tag}", build)

        def grad_with_argmax(batch):
            def build():
                xp, xv = placeholder(x, name="x")
                _, arg = RAW.MaxPoolWithArgmax(
                    input=xp, ksize=[1, 2, 2, 1], strides=[1, 1, 1, 1],
                    padding="VALID", include_batch_in_index=batch)
                grad = tf.cast(tf.reshape(tf.range(36), [2, 3, 3, 2]) % 5 +
                               1, dtype)
                r = RAW.MaxPoolGradWithArgmax(
                    input=xp, grad=grad, argmax=arg, ksize=[1, 2, 2, 1],
                    strides=[1, 1, 1, 1], padding="VALID",
                    include_batch_in_index=batch)
                return r, {xp: xv}
            return build
        case(f"max_pool_grad_with_argmax_{tag}", grad_with_argmax(signed))

    def argmax_empty():
        xp, xv = placeholder(np.zeros((0, 4, 4, 1), np.int32))
        return list(RAW.MaxPoolWithArgmax(
            input=xp, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1],
            padding="VALID")), {xp: xv}
    case("max_pool_with_argmax_empty_int32", argmax_empty)

    def grad_with_argmax_wraps():
        x = np.zeros((1, 2, 2, 1), np.uint8)
        xp, xv = placeholder(x, name="x")
        grad = tf.constant([[[[200]]]], tf.uint8)
        arg = tf.constant([[[[3]]]], tf.int64)
        r = RAW.MaxPoolGradWithArgmax(
            input=xp, grad=grad, argmax=arg, ksize=[1, 1, 1, 1],
            strides=[1, 2, 2, 1], padding="SAME")
        return r, {xp: xv}
    case("max_pool_grad_with_argmax_wraps_uint8", grad_with_argmax_wraps)

    # No case of an argmax naming an element outside its image: TensorFlow's
    # CPU kernel aborts the process on one (a CHECK in maxpooling_op.cc);
    # dfx answers InvalidArgument (tests/kernels/dtypes2_test.cc).


# --------------------------------------------------------------------------
# half linear algebra


def linalg_cases():
    a = np.array([[4, 1, 0.5], [1, 3, -1], [0.25, -2, 5]], np.float16)
    batch = np.stack([a, a.T * 0.5 + np.eye(3, dtype=np.float16)])

    def inverse(x, adjoint=False):
        def build():
            p, v = placeholder(x, shape=[None] * x.ndim)
            return RAW.MatrixInverse(input=p, adjoint=adjoint), {p: v}
        return build
    case("matrix_inverse_half", inverse(a))
    case("matrix_inverse_half_adjoint", inverse(a, True))
    case("matrix_inverse_half_batch", inverse(batch))
    case("matrix_inverse_half_empty", inverse(np.zeros((2, 0, 0), np.float16)))
    case("matrix_inverse_half_singular",
         inverse(np.array([[1, 2], [2, 4]], np.float16)))
    case("matrix_inverse_half_not_square",
         inverse(np.ones((2, 3), np.float16)))

    def qr(x, full):
        def build():
            p, v = placeholder(x)
            q, r = RAW.Qr(input=p, full_matrices=full)
            return [q, r], {p: v}
        return build
    tall = np.array([[1, 2], [3, -4], [0.5, 6]], np.float16)
    # TensorFlow computes in half: every step rounds, so dfx's half
    # Householder steps agree to a few half ulps (rtol 1e-3 is one ulp).
    tol = {"rtol": 4e-3, "atol": 4e-3}
    case("qr_half_square", qr(a, False), **tol)
    case("qr_half_tall_reduced", qr(tall, False), **tol)
    case("qr_half_tall_full", qr(tall, True), **tol)
    case("qr_half_wide", qr(tall.T.copy(), False), **tol)
    case("qr_half_empty", qr(np.zeros((0, 3), np.float16), True))


def main():
    folder()
    optimizer_cases()
    unsigned_cases()
    pooling_cases()
    linalg_cases()
    golden_lib.write_op_defs(FAMILY, OP_NAMES)
    print(f"{len(OP_NAMES)} ops", file=sys.stderr)


if __name__ == "__main__":
    main()

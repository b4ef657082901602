"""Golden cases of the training family: TensorFlow 2.21's optimizer updates
(Apply*, ResourceApply*, SparseApply*, ResourceSparseApply*).

Run with the TensorFlow virtualenv: $(tools/tf_env) tests/golden/gen_training.py

Each case is one graph run once: it creates its variables (resource ones
with VarHandleOp + AssignVariableOp, reference ones with VariableV2 +
Assign), runs the update with control dependencies on the assignments (or a
chain of two updates), and fetches every variable and slot after it
(ReadVariableOp, or Identity of the reference, with a control dependency on
the last update; the reference forms also fetch Identity of the op's output
reference). Run-time errors come through placeholders (an index out of
range, a gradient or learning rate of the wrong shape) or from variables
that are never assigned.

Besides the cases, the generator writes tf_op_defs.pbtxt: TensorFlow's
OpDef of every training op, which tests/kernels/training_ops_test.cc
compares with dfx's registry.
"""


import numpy as np
import tensorflow as tf

import golden_lib
from golden_lib import case, tf1

FAMILY = "training"
RAW = tf.raw_ops


# --------------------------------------------------------------------------
# Optimizers: their variables (var first), hyper-parameters, the name of the
# dense gradient input, and the forms TensorFlow has.

def opt(slots, hyper, grad="grad", forms=("ref", "res", "sref", "sres"),
        sparse_grad="grad", init=None, dtypes=("float32", "float64")):
    return dict(slots=slots, hyper=hyper, grad=grad, forms=forms,
                sparse_grad=sparse_grad, init=init or {}, dtypes=dtypes)


POS = (0.1, 1.0)   # accumulators: positive
SMALL = (-0.1, 0.1)

OPTS = {
    "GradientDescent": opt(["var"], {"alpha": 0.1}, grad="delta",
                           forms=("ref", "res")),
    "ProximalGradientDescent": opt(
        ["var"], {"alpha": 0.1, "l1": 0.05, "l2": 0.02}, grad="delta"),
    "Adadelta": opt(["var", "accum", "accum_update"],
                    {"lr": 0.5, "rho": 0.95, "epsilon": 1e-6},
                    init={"accum": POS, "accum_update": POS}),
    "Adagrad": opt(["var", "accum"], {"lr": 0.1}, init={"accum": POS}),
    "AdagradV2": opt(["var", "accum"], {"lr": 0.1, "epsilon": 1e-3},
                     init={"accum": POS}),
    "ProximalAdagrad": opt(["var", "accum"],
                           {"lr": 0.1, "l1": 0.05, "l2": 0.02},
                           init={"accum": POS}),
    "AdagradDA": opt(["var", "gradient_accumulator",
                      "gradient_squared_accumulator"],
                     {"lr": 0.1, "l1": 0.05, "l2": 0.02,
                      "global_step": np.int64(3)},
                     init={"gradient_accumulator": SMALL,
                           "gradient_squared_accumulator": POS}),
    "Ftrl": opt(["var", "accum", "linear"],
                {"lr": 0.5, "l1": 0.05, "l2": 0.02, "lr_power": -0.5},
                init={"accum": POS}),
    "FtrlV2": opt(["var", "accum", "linear"],
                  {"lr": 0.5, "l1": 0.05, "l2": 0.02, "l2_shrinkage": 0.1,
                   "lr_power": -0.5},
                  init={"accum": POS}),
    "Momentum": opt(["var", "accum"], {"lr": 0.1, "momentum": 0.9}),
    "KerasMomentum": opt(["var", "accum"], {"lr": 0.1, "momentum": 0.9},
                         forms=("res", "sres")),
    "Adam": opt(["var", "m", "v"],
                {"beta1_power": 0.9 ** 3, "beta2_power": 0.999 ** 3,
                 "lr": 0.01, "beta1": 0.9, "beta2": 0.999,
                 "epsilon": 1e-7},
                forms=("ref", "res"), init={"v": POS}),
    "AdamWithAmsgrad": opt(["var", "m", "v", "vhat"],
                           {"beta1_power": 0.9 ** 3,
                            "beta2_power": 0.999 ** 3, "lr": 0.01,
                            "beta1": 0.9, "beta2": 0.999, "epsilon": 1e-7},
                           forms=("res",), init={"v": POS, "vhat": POS}),
    "AdaMax": opt(["var", "m", "v"],
                  {"beta1_power": 0.9 ** 3, "lr": 0.01, "beta1": 0.9,
                   "beta2": 0.999, "epsilon": 1e-7},
                  forms=("ref", "res"), init={"v": POS}),
    "RMSProp": opt(["var", "ms", "mom"],
                   {"lr": 0.01, "rho": 0.9, "momentum": 0.5,
                    "epsilon": 1e-6},
                   init={"ms": POS}),
    "CenteredRMSProp": opt(["var", "mg", "ms", "mom"],
                           {"lr": 0.01, "rho": 0.9, "momentum": 0.5,
                            "epsilon": 1e-6},
                           init={"mg": SMALL, "ms": POS}),
    "AddSign": opt(["var", "m"],
                   {"lr": 0.1, "alpha": 1.0, "sign_decay": 0.5,
                    "beta": 0.9},
                   forms=("ref", "res")),
    "PowerSign": opt(["var", "m"],
                     {"lr": 0.1, "logbase": np.log(2.0), "sign_decay": 0.5,
                      "beta": 0.9},
                     forms=("ref", "res")),
}

OP_NAME = {"ref": "Apply{}", "res": "ResourceApply{}",
           "sref": "SparseApply{}", "sres": "ResourceSparseApply{}"}


def op_name(form, name):
    return OP_NAME[form].format(name)


# --------------------------------------------------------------------------
# Graph building.

class Vars:
    """The variables of one case, resource or reference."""

    def __init__(self, resource, values, dtype, shape=None):
        self.resource = resource
        self.dtype = dtype
        self.handles = []
        self.inits = []
        for i, value in enumerate(values):
            var_shape = value.shape if shape is None else shape
            if resource:
                h = RAW.VarHandleOp(dtype=dtype, shape=var_shape,
                                    shared_name=f"v{i}")
                self.inits.append(RAW.AssignVariableOp(
                    resource=h, value=tf.constant(value, dtype)))
            else:
                h = RAW.VariableV2(shape=var_shape, dtype=dtype)
                self.inits.append(RAW.Assign(
                    ref=h, value=tf.constant(value, dtype),
                    validate_shape=shape is None))
            self.handles.append(h)

    def reads(self, after):
        with tf.control_dependencies([after]):
            if self.resource:
                return [RAW.ReadVariableOp(resource=h, dtype=self.dtype)
                        for h in self.handles]
            return [tf.identity(h) for h in self.handles]


def hyper_tensors(spec, dtype, override=None):
    out = {}
    for k, v in spec["hyper"].items():
        if override and k in override:
            v = override[k]
            out[k] = v if isinstance(v, tf.Tensor) else tf.constant(v, dtype)
        elif k == "global_step":
            out[k] = tf.constant(v, tf.int64)
        else:
            out[k] = tf.constant(v, dtype)
    return out


def initial_values(spec, shape, npdt, seed):
    r = golden_lib.rng(seed)
    values = []
    for slot in spec["slots"]:
        lo, hi = spec["init"].get(slot, (-1.0, 1.0))
        values.append(r.uniform(lo, hi, size=shape).astype(npdt))
    return values


def np_dtype(dtype):
    return {"float32": np.float32, "float64": np.float64,
            "float16": np.float16, "bfloat16": np.float32}[dtype]


def apply_op(form, name, spec, handles, hyper, grad, indices=None,
             attrs=None):
    kwargs = dict(zip(spec["slots"], handles))
    kwargs.update(hyper)
    kwargs.update(attrs or {})
    if form in ("sref", "sres"):
        kwargs[spec["sparse_grad"]] = grad
        kwargs["indices"] = indices
    else:
        kwargs[spec["grad"]] = grad
    return getattr(RAW, op_name(form, name))(**kwargs)


def update_case(form, name, dtype="float32", shape=(2, 3), attrs=None,
                hyper=None, indices=None, steps=1, suffix="", seed=0,
                rtol=None, atol=None):
    """One case: initial values, `steps` chained updates, every variable
    fetched after the last."""
    spec = OPTS[name]
    sparse = form in ("sref", "sres")
    resource = form in ("res", "sres")
    npdt = np_dtype(dtype)
    case_name = f"{op_name(form, name)}_{dtype}{suffix}"

    def build():
        tfdt = tf.as_dtype(dtype)
        vals = initial_values(spec, shape, npdt, seed)
        variables = Vars(resource, vals, tfdt)
        r = golden_lib.rng(seed + 100)
        grad_shape = ((len(indices),) + tuple(shape[1:])) if sparse else shape
        fetches = []
        last = None
        deps = variables.inits
        for step in range(steps):
            grad = tf.constant(r.uniform(-1, 1, size=grad_shape).astype(npdt),
                               tfdt)
            idx = (tf.constant(np.array(indices, np.int32))
                   if sparse else None)
            if sparse and step % 2 == 1:
                idx = tf.constant(np.array(indices, np.int64))
            with tf.control_dependencies(deps):
                last = apply_op(form, name, spec, variables.handles,
                                hyper_tensors(spec, tfdt, hyper), grad,
                                idx, attrs)
            deps = [last]
        if not resource:
            fetches.append(tf.identity(last))
        fetches += variables.reads(last)
        return fetches, None

    case(FAMILY, case_name, build, rtol=rtol, atol=atol)


# --------------------------------------------------------------------------
# Cases.

SPARSE_SHAPE = (5, 3)
DUP_INDICES = [1, 3, 1, 4]   # row 1 twice: applied in order


def dense_cases():
    for name, spec in OPTS.items():
        for form in ("ref", "res"):
            if form not in spec["forms"]:
                continue
            for dtype in spec["dtypes"]:
                update_case(form, name, dtype)
        form = "res" if "res" in spec["forms"] else "ref"
        update_case(form, name, "float32", steps=2, suffix="_two_steps",
                    seed=1)
        update_case(form, name, "float64", shape=(7,), suffix="_vector",
                    seed=2)
        update_case(form, name, "float32", shape=(0, 3), suffix="_empty")


def sparse_cases():
    for name, spec in OPTS.items():
        for form in ("sref", "sres"):
            if form not in spec["forms"]:
                continue
            for dtype in spec["dtypes"]:
                update_case(form, name, dtype, shape=SPARSE_SHAPE,
                            indices=DUP_INDICES)
        form = "sres" if "sres" in spec["forms"] else None
        if form is None:
            continue
        # One element per row (TensorFlow's scalar path), two chained
        # updates with int32 then int64 indices, a rank-3 variable, and no
        # indices at all.
        update_case(form, name, "float32", shape=(6,),
                    indices=[5, 0, 5, 2], suffix="_rows_of_one", seed=3)
        update_case(form, name, "float64", shape=SPARSE_SHAPE,
                    indices=DUP_INDICES, steps=2, suffix="_two_steps",
                    seed=4)
        update_case(form, name, "float32", shape=(4, 2, 3),
                    indices=[3, 0], suffix="_rank3", seed=5)
        update_case(form, name, "float32", shape=SPARSE_SHAPE, indices=[],
                    suffix="_no_indices")


def attr_cases():
    for name in ("Momentum", "KerasMomentum", "Adam"):
        forms = [f for f in OPTS[name]["forms"]]
        for form in forms:
            shape = SPARSE_SHAPE if form in ("sref", "sres") else (2, 3)
            idx = DUP_INDICES if form in ("sref", "sres") else None
            for dtype in ("float32", "float64"):
                update_case(form, name, dtype, shape=shape, indices=idx,
                            attrs={"use_nesterov": True},
                            suffix="_nesterov")
    for name in ("Adagrad", "AdagradV2"):
        for form in OPTS[name]["forms"]:
            shape = SPARSE_SHAPE if form in ("sref", "sres") else (2, 3)
            idx = DUP_INDICES if form in ("sref", "sres") else None
            update_case(form, name, "float32", shape=shape, indices=idx,
                        attrs={"update_slots": False},
                        suffix="_no_slot_update")
    for name in ("Ftrl", "FtrlV2"):
        for form in OPTS[name]["forms"]:
            shape = SPARSE_SHAPE if form in ("sref", "sres") else (2, 3)
            idx = DUP_INDICES if form in ("sref", "sres") else None
            for dtype in ("float32", "float64"):
                update_case(form, name, dtype, shape=shape, indices=idx,
                            attrs={"multiply_linear_by_lr": True},
                            suffix="_multiply_linear_by_lr")
                update_case(form, name, dtype, shape=shape, indices=idx,
                            hyper={"lr_power": -0.7},
                            suffix="_lr_power")
                update_case(form, name, dtype, shape=shape, indices=idx,
                            attrs={"multiply_linear_by_lr": True},
                            hyper={"lr_power": -0.7},
                            suffix="_multiply_lr_power")
    # l1 = 0: the plain (unshrunk) branch.
    for name in ("ProximalGradientDescent", "ProximalAdagrad", "AdagradDA",
                 "Ftrl"):
        for form in ("res", "sres"):
            shape = SPARSE_SHAPE if form == "sres" else (2, 3)
            idx = DUP_INDICES if form == "sres" else None
            update_case(form, name, "float64", shape=shape, indices=idx,
                        hyper={"l1": 0.0},
                        suffix="_no_l1")


def half_cases():
    """16-bit variables: dfx computes through float and rounds once per
    store, TensorFlow rounds after every Eigen op; a few units of the last
    place apart."""
    for name, form in (("GradientDescent", "res"), ("Momentum", "ref"),
                       ("Adam", "res"), ("Adagrad", "sres"),
                       ("RMSProp", "res"), ("Ftrl", "sres"),
                       ("AdamWithAmsgrad", "res")):
        shape = SPARSE_SHAPE if form == "sres" else (2, 3)
        idx = DUP_INDICES if form == "sres" else None
        update_case(form, name, "float16", shape=shape, indices=idx,
                    rtol=4e-3, atol=4e-3)
        update_case(form, name, "bfloat16", shape=shape, indices=idx,
                    rtol=3e-2, atol=3e-2)


def large_cases():
    """Large enough for the intra-op pool: inputs built in the graph,
    fetched through slices and a float64 sum."""
    n = 300000

    def adam():
        base = tf.range(n, dtype=tf.float64) * 1e-5
        hs = [RAW.VarHandleOp(dtype=tf.float64, shape=[n], shared_name=s)
              for s in ("var", "m", "v")]
        inits = [RAW.AssignVariableOp(resource=hs[0], value=tf.sin(base)),
                 RAW.AssignVariableOp(resource=hs[1], value=tf.cos(base)),
                 RAW.AssignVariableOp(resource=hs[2],
                                      value=tf.cos(base) ** 2 + 0.1)]
        c = lambda v: tf.constant(v, tf.float64)  # noqa: E731
        with tf.control_dependencies(inits):
            ap = RAW.ResourceApplyAdam(
                var=hs[0], m=hs[1], v=hs[2], beta1_power=c(0.9 ** 2),
                beta2_power=c(0.999 ** 2), lr=c(0.01), beta1=c(0.9),
                beta2=c(0.999), epsilon=c(1e-7), grad=tf.sin(3 * base))
        with tf.control_dependencies([ap]):
            reads = [RAW.ReadVariableOp(resource=h, dtype=tf.float64)
                     for h in hs]
        out = []
        for r in reads:
            out += [r[::997], tf.reshape(tf.reduce_sum(r), [1])]
        return out, None

    case(FAMILY, "large_ResourceApplyAdam_float64", adam)

    def sparse(op, rows, width, dup):
        def build():
            base = tf.reshape(tf.range(rows * width, dtype=tf.float64),
                              [rows, width]) * 1e-4
            hs = [RAW.VarHandleOp(dtype=tf.float64, shape=[rows, width],
                                  shared_name=s) for s in ("var", "accum")]
            inits = [RAW.AssignVariableOp(resource=hs[0], value=tf.sin(base)),
                     RAW.AssignVariableOp(resource=hs[1],
                                          value=tf.cos(base) ** 2 + 0.1)]
            k = rows * 2 if dup else rows
            # Every row once in a scrambled order, or twice when dup.
            idx = (tf.range(k, dtype=tf.int64) * 7919) % rows
            grad = tf.cos(tf.reshape(tf.range(k * width, dtype=tf.float64),
                                     [k, width]) * 1e-3)
            c = lambda v: tf.constant(v, tf.float64)  # noqa: E731
            with tf.control_dependencies(inits):
                if op == "Momentum":
                    ap = RAW.ResourceSparseApplyMomentum(
                        var=hs[0], accum=hs[1], lr=c(0.1), grad=grad,
                        indices=idx, momentum=c(0.9))
                else:
                    ap = RAW.ResourceSparseApplyAdagrad(
                        var=hs[0], accum=hs[1], lr=c(0.1), grad=grad,
                        indices=idx)
            with tf.control_dependencies([ap]):
                reads = [RAW.ReadVariableOp(resource=h, dtype=tf.float64)
                         for h in hs]
            out = []
            for r in reads:
                flat = tf.reshape(r, [-1])
                out += [flat[::499], tf.reshape(tf.reduce_sum(r), [1])]
            return out, None
        return build

    # Narrow rows (split by row ranges) with every row updated twice, and
    # wide rows (split by columns).
    case(FAMILY, "large_ResourceSparseApplyMomentum_narrow_duplicates",
         sparse("Momentum", 40000, 2, True))
    case(FAMILY, "large_ResourceSparseApplyAdagrad_wide",
         sparse("Adagrad", 64, 1024, False))
    case(FAMILY, "large_ResourceSparseApplyMomentum_wide_duplicates",
         sparse("Momentum", 64, 1024, True))


# --------------------------------------------------------------------------
# Run-time errors.

def error_cases():
    f32 = tf.float32

    def bad_index(form, name, index, index_dtype=np.int32):
        spec = OPTS[name]

        def build():
            vals = initial_values(spec, SPARSE_SHAPE, np.float32, 0)
            variables = Vars(form == "sres", vals, f32)
            idx, feed = golden_lib.placeholder(
                np.array([0, index], index_dtype), shape=[None])
            grad = tf.constant(np.ones((2, 3), np.float32))
            with tf.control_dependencies(variables.inits):
                ap = apply_op(form, name, spec, variables.handles,
                              hyper_tensors(spec, f32), grad, idx)
            return variables.reads(ap), {idx: feed}
        case(FAMILY, f"error_{op_name(form, name)}_index_{index}", build)

    for name in ("Adagrad", "AdagradV2", "Momentum", "RMSProp",
                 "CenteredRMSProp", "Ftrl", "FtrlV2", "Adadelta",
                 "ProximalAdagrad", "ProximalGradientDescent", "AdagradDA"):
        bad_index("sref", name, 5)
        bad_index("sres", name, -1, np.int64)
    bad_index("sres", "KerasMomentum", 9)

    def dense_bad(what):
        def build():
            vals = initial_values(OPTS["Adam"], (2, 3), np.float32, 0)
            variables = Vars(True, vals, f32)
            hyper = hyper_tensors(OPTS["Adam"], f32)
            feeds = {}
            if what == "grad":
                grad, v = golden_lib.placeholder(
                    np.ones((3, 2), np.float32), shape=tf.TensorShape(None))
                feeds[grad] = v
            else:
                grad = tf.constant(np.ones((2, 3), np.float32))
                lr, v = golden_lib.placeholder(np.array([0.1, 0.2],
                                                        np.float32),
                                               shape=tf.TensorShape(None))
                hyper["lr"] = lr
                feeds[lr] = v
            with tf.control_dependencies(variables.inits):
                ap = apply_op("res", "Adam", OPTS["Adam"], variables.handles,
                              hyper, grad)
            return variables.reads(ap), feeds
        case(FAMILY, f"error_ResourceApplyAdam_bad_{what}", build)

    dense_bad("grad")
    dense_bad("lr")

    def sparse_grad_rows():
        spec = OPTS["Momentum"]
        vals = initial_values(spec, SPARSE_SHAPE, np.float32, 0)
        variables = Vars(False, vals, f32)
        grad, v = golden_lib.placeholder(np.ones((3, 3), np.float32),
                                         shape=tf.TensorShape(None))
        with tf.control_dependencies(variables.inits):
            ap = apply_op("sref", "Momentum", spec, variables.handles,
                          hyper_tensors(spec, f32), grad,
                          tf.constant([0, 1], tf.int32))
        return variables.reads(ap), {grad: v}

    case(FAMILY, "error_SparseApplyMomentum_grad_rows", sparse_grad_rows)

    def slot_shape(form):
        def build():
            spec = OPTS["Adagrad"]
            vals = [np.ones(3, np.float32), np.ones(4, np.float32)]
            # Variables of unknown shape, so only the kernel can tell.
            variables = Vars(form == "res", vals, f32,
                             shape=tf.TensorShape(None))
            with tf.control_dependencies(variables.inits):
                ap = apply_op(form, "Adagrad", spec, variables.handles,
                              hyper_tensors(spec, f32),
                              tf.constant(np.ones(3, np.float32)))
            return variables.reads(ap)[:1], None
        case(FAMILY, f"error_{op_name(form, 'Adagrad')}_slot_shape", build)

    slot_shape("res")
    slot_shape("ref")

    def uninitialized(form):
        def build():
            spec = OPTS["Momentum"]
            vals = initial_values(spec, (2, 3), np.float32, 0)
            variables = Vars(form == "res", vals, f32)
            # Only var is assigned; accum never is.
            with tf.control_dependencies(variables.inits[:1]):
                ap = apply_op(form, "Momentum", spec, variables.handles,
                              hyper_tensors(spec, f32),
                              tf.constant(np.ones((2, 3), np.float32)))
            return variables.reads(ap)[:1], None
        case(FAMILY, f"error_{op_name(form, 'Momentum')}_uninitialized",
             build)

    # Only the reference form: TensorFlow's resource forms fail a variable
    # that was never assigned with INTERNAL "Invalid variable reference"
    # (its lookup fails before the initialization check); dfx says
    # FAILED_PRECONDITION "Could not find variable", as ReadVariableOp does
    # (tests/kernels/training_dense_test.cc).
    uninitialized("ref")

    def negative_lr(form, name):
        def build():
            spec = OPTS[name]
            shape = SPARSE_SHAPE if form in ("sref", "sres") else (2, 3)
            vals = initial_values(spec, shape, np.float32, 0)
            variables = Vars(form in ("res", "sres"), vals, f32)
            lr, v = golden_lib.placeholder(np.float32(-0.1))
            hyper = hyper_tensors(spec, f32, {"lr": lr})
            if form in ("sref", "sres"):
                grad = tf.constant(np.ones((2, 3), np.float32))
                idx = tf.constant([0, 1], tf.int32)
            else:
                grad = tf.constant(np.ones(shape, np.float32))
                idx = None
            with tf.control_dependencies(variables.inits):
                ap = apply_op(form, name, spec, variables.handles, hyper,
                              grad, idx)
            return variables.reads(ap)[:1], {lr: v}
        case(FAMILY, f"error_{op_name(form, name)}_negative_lr", build)

    negative_lr("sres", "Ftrl")
    negative_lr("sref", "FtrlV2")
    negative_lr("res", "ProximalAdagrad")
    negative_lr("sres", "ProximalAdagrad")



def write_op_defs():
    """TensorFlow's OpDefs of the training ops, and the variable types of
    their CPU kernels (complex ones included: gen_dtypes2.py's cases)."""
    names = sorted(n for n in dir(RAW)
                   if "Apply" in n and "Accumulator" not in n)
    golden_lib.write_op_defs(FAMILY, names)
if __name__ == "__main__":
    dense_cases()
    sparse_cases()
    attr_cases()
    half_cases()
    large_cases()
    error_cases()
    write_op_defs()

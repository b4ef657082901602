// Training ops: the optimizer updates (ApplyGradientDescent, ApplyAdam, ...)
// in their four forms: reference (Apply*, output the variable's reference),
// resource (ResourceApply*, no outputs), and the row-sparse Sparse* and
// ResourceSparse* forms. Signatures follow TensorFlow 2.21's
// core/ops/training_ops.cc; every op is declared from one table row.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/ops/ops.h"

namespace dfx {
namespace {

// Which of the four forms TensorFlow declares for an optimizer.
enum Forms : unsigned {
  kRef = 1,             // Apply<Name>
  kResource = 2,        // ResourceApply<Name>
  kSparseRef = 4,       // SparseApply<Name>
  kSparseResource = 8,  // ResourceSparseApply<Name>
  kDense = kRef | kResource,
  kAll = kRef | kResource | kSparseRef | kSparseResource,
};

struct TrainingOpSpec {
  const char* name;  // "Adam" declares ApplyAdam, ResourceApplyAdam, ...
  unsigned forms;
  // The variables the update writes, in input order (var first).
  std::vector<const char*> vars;
  // The other inputs of the dense forms, "name: type", in order.
  std::vector<const char*> dense_inputs;
  // The other inputs of the sparse forms (with "indices: Tindices").
  std::vector<const char*> sparse_inputs;
  // Attrs after T (and Tindices) and use_locking.
  std::vector<const char*> attrs;
};

const std::vector<TrainingOpSpec>& Specs() {
  static const auto* specs = new std::vector<TrainingOpSpec>{
      {"GradientDescent", kDense, {"var"}, {"alpha: T", "delta: T"}, {}, {}},
      {"ProximalGradientDescent",
       kAll,
       {"var"},
       {"alpha: T", "l1: T", "l2: T", "delta: T"},
       {"alpha: T", "l1: T", "l2: T", "grad: T", "indices: Tindices"},
       {}},
      {"Adadelta",
       kAll,
       {"var", "accum", "accum_update"},
       {"lr: T", "rho: T", "epsilon: T", "grad: T"},
       {"lr: T", "rho: T", "epsilon: T", "grad: T", "indices: Tindices"},
       {}},
      {"Adagrad",
       kAll,
       {"var", "accum"},
       {"lr: T", "grad: T"},
       {"lr: T", "grad: T", "indices: Tindices"},
       {"update_slots: bool = true"}},
      {"AdagradV2",
       kAll,
       {"var", "accum"},
       {"lr: T", "epsilon: T", "grad: T"},
       {"lr: T", "epsilon: T", "grad: T", "indices: Tindices"},
       {"update_slots: bool = true"}},
      {"ProximalAdagrad",
       kAll,
       {"var", "accum"},
       {"lr: T", "l1: T", "l2: T", "grad: T"},
       {"lr: T", "l1: T", "l2: T", "grad: T", "indices: Tindices"},
       {}},
      {"AdagradDA",
       kAll,
       {"var", "gradient_accumulator", "gradient_squared_accumulator"},
       {"grad: T", "lr: T", "l1: T", "l2: T", "global_step: int64"},
       {"grad: T", "indices: Tindices", "lr: T", "l1: T", "l2: T",
        "global_step: int64"},
       {}},
      {"Ftrl",
       kAll,
       {"var", "accum", "linear"},
       {"grad: T", "lr: T", "l1: T", "l2: T", "lr_power: T"},
       {"grad: T", "indices: Tindices", "lr: T", "l1: T", "l2: T",
        "lr_power: T"},
       {"multiply_linear_by_lr: bool = false"}},
      {"FtrlV2",
       kAll,
       {"var", "accum", "linear"},
       {"grad: T", "lr: T", "l1: T", "l2: T", "l2_shrinkage: T",
        "lr_power: T"},
       {"grad: T", "indices: Tindices", "lr: T", "l1: T", "l2: T",
        "l2_shrinkage: T", "lr_power: T"},
       {"multiply_linear_by_lr: bool = false"}},
      {"Momentum",
       kAll,
       {"var", "accum"},
       {"lr: T", "grad: T", "momentum: T"},
       {"lr: T", "grad: T", "indices: Tindices", "momentum: T"},
       {"use_nesterov: bool = false"}},
      {"KerasMomentum",
       kResource | kSparseResource,
       {"var", "accum"},
       {"lr: T", "grad: T", "momentum: T"},
       {"lr: T", "grad: T", "indices: Tindices", "momentum: T"},
       {"use_nesterov: bool = false"}},
      {"Adam",
       kDense,
       {"var", "m", "v"},
       {"beta1_power: T", "beta2_power: T", "lr: T", "beta1: T", "beta2: T",
        "epsilon: T", "grad: T"},
       {},
       {"use_nesterov: bool = false"}},
      {"AdamWithAmsgrad",
       kResource,
       {"var", "m", "v", "vhat"},
       {"beta1_power: T", "beta2_power: T", "lr: T", "beta1: T", "beta2: T",
        "epsilon: T", "grad: T"},
       {},
       {}},
      {"AdaMax",
       kDense,
       {"var", "m", "v"},
       {"beta1_power: T", "lr: T", "beta1: T", "beta2: T", "epsilon: T",
        "grad: T"},
       {},
       {}},
      {"RMSProp",
       kAll,
       {"var", "ms", "mom"},
       {"lr: T", "rho: T", "momentum: T", "epsilon: T", "grad: T"},
       {"lr: T", "rho: T", "momentum: T", "epsilon: T", "grad: T",
        "indices: Tindices"},
       {}},
      {"CenteredRMSProp",
       kAll,
       {"var", "mg", "ms", "mom"},
       {"lr: T", "rho: T", "momentum: T", "epsilon: T", "grad: T"},
       {"lr: T", "rho: T", "momentum: T", "epsilon: T", "grad: T",
        "indices: Tindices"},
       {}},
      {"AddSign",
       kDense,
       {"var", "m"},
       {"lr: T", "alpha: T", "sign_decay: T", "beta: T", "grad: T"},
       {},
       {}},
      {"PowerSign",
       kDense,
       {"var", "m"},
       {"lr: T", "logbase: T", "sign_decay: T", "beta: T", "grad: T"},
       {},
       {}},
  };
  return *specs;
}

// TensorFlow's shape function of every training op, read off the op's
// signature: the variables (reference inputs have their shape; resource
// handles carry none here, so theirs is unknown) merge into one shape;
// every hyper-parameter is a scalar; the dense gradient ("grad" or "delta")
// has the variables' shape; a sparse gradient has a vector of indices as
// long as its first dimension and the variables' shape after it. The
// reference forms output that shape.
absl::Status TrainingShapeFn(InferenceContext* c) {
  const OpDef& op = c->op_def();
  PartialShape s = PartialShape::Unknown();
  int grad = -1;
  int indices = -1;
  for (int i = 0; i < op.input_arg_size(); ++i) {
    const OpDef::ArgDef& arg = op.input_arg(i);
    if (arg.is_ref() || arg.type() == DT_RESOURCE) {
      if (arg.is_ref()) DFX_RETURN_IF_ERROR(c->Merge(s, c->input(i), &s));
    } else if (arg.name() == "grad" || arg.name() == "delta") {
      grad = i;
    } else if (arg.name() == "indices") {
      indices = i;
    } else if (!c->input(i).unknown_rank && c->input(i).rank() != 0) {
      return c->Error(absl::StrCat(arg.name(), " must be a scalar, got shape ",
                                   c->input(i).DebugString()));
    }
  }
  const PartialShape& g = c->input(grad);
  if (indices < 0) {
    DFX_RETURN_IF_ERROR(c->Merge(s, g, &s));
  } else {
    const PartialShape& idx = c->input(indices);
    if (idx.RankKnown() && idx.rank() != 1) {
      return c->Error(absl::StrCat("indices must be a vector, got shape ",
                                   idx.DebugString()));
    }
    if (g.RankKnown()) {
      if (g.rank() == 0) {
        return c->Error("Argument grad must not be a scalar. Got grad with "
                        "rank 0");
      }
      if (idx.RankKnown()) {
        int64_t unused;
        DFX_RETURN_IF_ERROR(c->MergeDim(idx.dims[0], g.dims[0], &unused));
      }
      PartialShape rows = g;
      rows.dims[0] = -1;
      DFX_RETURN_IF_ERROR(c->Merge(s, rows, &s));
    }
  }
  if (c->num_outputs() > 0) c->set_output(0, std::move(s));
  return absl::OkStatus();
}

absl::Status RegisterForm(OpRegistry* r, const TrainingOpSpec& spec,
                          bool resource, bool sparse) {
  const std::string name =
      absl::StrCat(resource ? "Resource" : "", sparse ? "SparseApply" : "Apply",
                   spec.name);
  OpDefBuilder b(name);
  for (const char* var : spec.vars) {
    b.Input(absl::StrCat(var, resource ? ": resource" : ": Ref(T)"));
  }
  for (const char* in : sparse ? spec.sparse_inputs : spec.dense_inputs) {
    b.Input(in);
  }
  if (resource) {
    b.SetIsStateful();
  } else {
    b.Output("out: Ref(T)");
  }
  b.Attr("T: numbertype");
  if (sparse) b.Attr("Tindices: {int32, int64}");
  b.Attr("use_locking: bool = false");
  for (const char* attr : spec.attrs) b.Attr(attr);
  b.SetShapeFn(TrainingShapeFn);
  return r->Register(b);
}

}  // namespace

absl::Status RegisterTrainingOps(OpRegistry* r) {
  for (const TrainingOpSpec& spec : Specs()) {
    if (spec.forms & kRef) {
      DFX_RETURN_IF_ERROR(RegisterForm(r, spec, false, false));
    }
    if (spec.forms & kResource) {
      DFX_RETURN_IF_ERROR(RegisterForm(r, spec, true, false));
    }
    if (spec.forms & kSparseRef) {
      DFX_RETURN_IF_ERROR(RegisterForm(r, spec, false, true));
    }
    if (spec.forms & kSparseResource) {
      DFX_RETURN_IF_ERROR(RegisterForm(r, spec, true, true));
    }
  }
  return absl::OkStatus();
}

}  // namespace dfx

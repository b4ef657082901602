// Gradients of element-wise math, reductions, matrix products, AddN and Cast,
// after TensorFlow's cc/gradients/math_grad.cc and python/ops/math_grad.py.
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/builder/grad/grad.h"
#include "graph/builder/grad/grad_util.h"
#include "graph/builder/ops.h"

namespace dfx {
namespace grad {
namespace {

// ---------------------------------------------------------------------------
// Unary ops: dx = dy * f'(x), written with the op's output y where cheaper.

DFX_GRAD_FN(NegGrad) {
  dx->push_back(ops::Neg(scope, dy[0]));
  return absl::OkStatus();
}

DFX_GRAD_FN(SquareGrad) {
  const Output two = ScalarOfType(scope, op.input(0).dtype(), 2.0);
  dx->push_back(ops::Mul(scope, dy[0], ops::Mul(scope, op.input(0), two)));
  return absl::OkStatus();
}

DFX_GRAD_FN(SqrtGrad) {
  dx->push_back(ops::SqrtGrad(scope, op.output(0), dy[0]));
  return absl::OkStatus();
}

DFX_GRAD_FN(RsqrtGrad) {
  dx->push_back(ops::RsqrtGrad(scope, op.output(0), dy[0]));
  return absl::OkStatus();
}

DFX_GRAD_FN(ExpGrad) {
  dx->push_back(ops::Mul(scope, dy[0], op.output(0)));
  return absl::OkStatus();
}

DFX_GRAD_FN(LogGrad) {
  dx->push_back(ops::Mul(scope, dy[0], ops::Reciprocal(scope, op.input(0))));
  return absl::OkStatus();
}

DFX_GRAD_FN(Log1pGrad) {
  const Output one = ScalarOfType(scope, op.input(0).dtype(), 1.0);
  dx->push_back(
      ops::Mul(scope, dy[0],
               ops::Reciprocal(scope, ops::AddV2(scope, one, op.input(0)))));
  return absl::OkStatus();
}

DFX_GRAD_FN(AbsGrad) {
  dx->push_back(ops::Mul(scope, dy[0], ops::Sign(scope, op.input(0))));
  return absl::OkStatus();
}

DFX_GRAD_FN(ReciprocalGrad) {
  // d(1/x) = -dy / x^2 = -dy * y^2.
  const Output y = op.output(0);
  dx->push_back(ops::Neg(scope, ops::Mul(scope, dy[0], ops::Mul(scope, y, y))));
  return absl::OkStatus();
}

DFX_GRAD_FN(TanhGrad) {
  dx->push_back(ops::TanhGrad(scope, op.output(0), dy[0]));
  return absl::OkStatus();
}

DFX_GRAD_FN(SigmoidGrad) {
  dx->push_back(ops::SigmoidGrad(scope, op.output(0), dy[0]));
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------
// Binary ops with broadcasting: the gradient of the broadcast shape, summed
// back to each input's shape.

DFX_GRAD_FN(AddGrad) {
  ReduceBroadcastGradients(scope, op.input(0), op.input(1), dy[0], dy[0], dx);
  return absl::OkStatus();
}

DFX_GRAD_FN(SubGrad) {
  ReduceBroadcastGradients(scope, op.input(0), op.input(1), dy[0],
                           ops::Neg(scope, dy[0]), dx);
  return absl::OkStatus();
}

DFX_GRAD_FN(MulGrad) {
  const Output& x = op.input(0);
  const Output& y = op.input(1);
  ReduceBroadcastGradients(scope, x, y, ops::Mul(scope, dy[0], y),
                           ops::Mul(scope, x, dy[0]), dx);
  return absl::OkStatus();
}

// RealDiv, and Div on floating-point types (integer Div carries no
// gradient): dx = dy / y, dy' = dy * (-x / y / y).
Output DivLike(const Scope& scope, const GradOp& op, const Output& a,
               const Output& b) {
  return op.op() == "Div" ? ops::Div(scope, a, b) : ops::RealDiv(scope, a, b);
}

DFX_GRAD_FN(DivGrad) {
  const Output& x = op.input(0);
  const Output& y = op.input(1);
  const Output gx = DivLike(scope, op, dy[0], y);
  const Output gy = ops::Mul(
      scope, dy[0],
      DivLike(scope, op, DivLike(scope, op, ops::Neg(scope, x), y), y));
  ReduceBroadcastGradients(scope, x, y, gx, gy, dx);
  return absl::OkStatus();
}

DFX_GRAD_FN(PowGrad) {
  // gx = dy * y * x^(y-1); gy = dy * z * log(x) where x > 0, else 0.
  const Output& x = op.input(0);
  const Output& y = op.input(1);
  const Output& z = op.output(0);
  const DataType t = x.dtype();
  const Output one = ScalarOfType(scope, t, 1.0);
  const Output gx =
      ops::Mul(scope, dy[0],
               ops::Mul(scope, y, ops::Pow(scope, x, ops::Sub(scope, y, one))));
  const Output zero = ScalarOfType(scope, t, 0.0);
  const Output positive = ops::Greater(scope, x, zero);
  const Output safe_x =
      ops::SelectV2(scope, positive, x, ops::OnesLike(scope, x));
  const Output log_x = ops::SelectV2(scope, positive, ops::Log(scope, safe_x),
                                     ops::ZerosLike(scope, x));
  const Output gy = ops::Mul(scope, dy[0], ops::Mul(scope, z, log_x));
  ReduceBroadcastGradients(scope, x, y, gx, gy, dx);
  return absl::OkStatus();
}

// Maximum and Minimum: the gradient goes to x where x is selected (x >= y
// for Maximum, x <= y for Minimum; ties go to x), to y elsewhere.
absl::Status MaxMinGrad(const Scope& scope, const GradOp& op,
                        absl::Span<const Output> dy, std::vector<Output>* dx,
                        bool maximum) {
  const Output& x = op.input(0);
  const Output& y = op.input(1);
  const Output mask =
      maximum ? ops::GreaterEqual(scope, x, y) : ops::LessEqual(scope, x, y);
  const Output zeros = ops::ZerosLike(scope, dy[0]);
  ReduceBroadcastGradients(scope, x, y,
                           ops::SelectV2(scope, mask, dy[0], zeros),
                           ops::SelectV2(scope, mask, zeros, dy[0]), dx);
  return absl::OkStatus();
}

DFX_GRAD_FN(MaximumGrad) { return MaxMinGrad(scope, op, dy, dx, true); }
DFX_GRAD_FN(MinimumGrad) { return MaxMinGrad(scope, op, dy, dx, false); }

DFX_GRAD_FN(SquaredDifferenceGrad) {
  // gx = 2 * dy * (x - y); gy = -gx.
  const Output& x = op.input(0);
  const Output& y = op.input(1);
  const Output two = ScalarOfType(scope, x.dtype(), 2.0);
  const Output gx =
      ops::Mul(scope, ops::Mul(scope, two, dy[0]), ops::Sub(scope, x, y));
  ReduceBroadcastGradients(scope, x, y, gx, ops::Neg(scope, gx), dx);
  return absl::OkStatus();
}

DFX_GRAD_FN(FloorModGrad) {
  // x mod y = x - floor(x / y) * y: gx = dy, gy = -dy * floor(x / y).
  const Output& x = op.input(0);
  const Output& y = op.input(1);
  ReduceBroadcastGradients(
      scope, x, y, dy[0],
      ops::Mul(scope, ops::Neg(scope, dy[0]), ops::FloorDiv(scope, x, y)), dx);
  return absl::OkStatus();
}

DFX_GRAD_FN(AddNGrad) {
  for (int i = 0; i < op.num_inputs(); ++i) dx->push_back(dy[0]);
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------
// Reductions.

// Sum: dy reshaped to the kept-dims shape and broadcast to x's shape.
Output SumGradient(const Scope& scope, const GradOp& op, const Output& grad) {
  const Output input_shape = ops::Shape(scope, op.input(0));
  const Output kept = ReducedShape(scope, input_shape, op.input(1));
  return ops::BroadcastTo(scope, ops::Reshape(scope, grad, kept), input_shape);
}

DFX_GRAD_FN(SumGrad) {
  dx->push_back(SumGradient(scope, op, dy[0]));
  dx->push_back(NoGradient());
  return absl::OkStatus();
}

DFX_GRAD_FN(MeanGrad) {
  // The Sum gradient divided by the number of elements averaged:
  // size(x) / max(size(y), 1), as TensorFlow's safe shape division.
  const Output sum_grad = SumGradient(scope, op, dy[0]);
  const Output factor = ops::FloorDiv(
      scope, ops::Size(scope, op.input(0), DT_INT64),
      ops::Maximum(scope, ops::Size(scope, op.output(0), DT_INT64),
                   ops::Const(scope, int64_t{1})));
  dx->push_back(ops::RealDiv(scope, sum_grad,
                             ops::Cast(scope, factor, op.input(0).dtype())));
  dx->push_back(NoGradient());
  return absl::OkStatus();
}

// Max and Min: the gradient is shared equally among the elements equal to
// the result.
DFX_GRAD_FN(MaxOrMinGrad) {
  const Output& x = op.input(0);
  const Output& axes = op.input(1);
  const Output kept = ReducedShape(scope, ops::Shape(scope, x), axes);
  const Output y = ops::Reshape(scope, op.output(0), kept);
  const Output grad = ops::Reshape(scope, dy[0], kept);
  const Output indicators =
      ops::Cast(scope, ops::Equal(scope, y, x), x.dtype());
  const Output num_selected =
      ops::Reshape(scope, ops::Sum(scope, indicators, axes), kept);
  dx->push_back(
      ops::Mul(scope, ops::RealDiv(scope, indicators, num_selected), grad));
  dx->push_back(NoGradient());
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------
// Matrix products.

DFX_GRAD_FN(MatMulGrad) {
  bool ta = false, tb = false;
  DFX_RETURN_IF_ERROR(Attr(op, "transpose_a", &ta));
  DFX_RETURN_IF_ERROR(Attr(op, "transpose_b", &tb));
  const Output& a = op.input(0);
  const Output& b = op.input(1);
  const Output& g = dy[0];
  auto mm = [&](const Output& l, const Output& r, bool tl, bool tr,
                bool grad_a) {
    return ops::MatMul(scope, l, r,
                       {.transpose_a = tl,
                        .transpose_b = tr,
                        .grad_a = grad_a,
                        .grad_b = !grad_a});
  };
  if (!ta && !tb) {
    dx->push_back(mm(g, b, false, true, true));
    dx->push_back(mm(a, g, true, false, false));
  } else if (!ta && tb) {
    dx->push_back(mm(g, b, false, false, true));
    dx->push_back(mm(g, a, true, false, false));
  } else if (ta && !tb) {
    dx->push_back(mm(b, g, false, true, true));
    dx->push_back(mm(a, g, false, false, false));
  } else {
    dx->push_back(mm(b, g, true, true, true));
    dx->push_back(mm(g, a, true, true, false));
  }
  return absl::OkStatus();
}

DFX_GRAD_FN(BatchMatMulV2Grad) {
  bool adj_x = false, adj_y = false;
  DFX_RETURN_IF_ERROR(Attr(op, "adj_x", &adj_x));
  DFX_RETURN_IF_ERROR(Attr(op, "adj_y", &adj_y));
  const Output& x = op.input(0);
  const Output& y = op.input(1);
  const Output& g = dy[0];
  auto mm = [&](const Output& l, const Output& r, bool al, bool ar,
                bool grad_x) {
    return ops::BatchMatMulV2(
        scope, l, r,
        {.adj_x = al, .adj_y = ar, .grad_x = grad_x, .grad_y = !grad_x});
  };
  Output gx, gy;
  if (!adj_x && !adj_y) {
    gx = mm(g, y, false, true, true);
    gy = mm(x, g, true, false, false);
  } else if (!adj_x && adj_y) {
    gx = mm(g, y, false, false, true);
    gy = mm(g, x, true, false, false);
  } else if (adj_x && !adj_y) {
    gx = mm(y, g, false, true, true);
    gy = mm(x, g, false, false, false);
  } else {
    gx = mm(y, g, true, true, true);
    gy = mm(g, x, true, true, false);
  }
  // Sum over the batch dims that were broadcast: BroadcastGradientArgs of
  // the batch parts (all but the last two dims) of the two shapes.
  const Output sx = ops::Shape(scope, x);
  const Output sy = ops::Shape(scope, y);
  auto batch = [&](const Output& shape) {
    return ops::StridedSlice(scope, shape, ops::Const(scope, {0}),
                             ops::Const(scope, {-2}), ops::Const(scope, {1}));
  };
  const ops::BroadcastGradientArgsOutputs r =
      ops::BroadcastGradientArgs(scope, batch(sx), batch(sy));
  dx->push_back(ops::Reshape(scope, ops::Sum(scope, gx, r.r0), sx));
  dx->push_back(ops::Reshape(scope, ops::Sum(scope, gy, r.r1), sy));
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------

bool IsFloat(DataType t) {
  t = BaseType(t);
  return t == DT_HALF || t == DT_BFLOAT16 || t == DT_FLOAT || t == DT_DOUBLE;
}

// Cast between floating-point types: the gradient cast back. Casts from or to
// other types carry no gradient.
DFX_GRAD_FN(CastGrad) {
  DataType src = DT_INVALID, dst = DT_INVALID;
  DFX_RETURN_IF_ERROR(Attr(op, "SrcT", &src));
  DFX_RETURN_IF_ERROR(Attr(op, "DstT", &dst));
  if (IsFloat(src) && IsFloat(dst)) {
    dx->push_back(ops::Cast(scope, dy[0], src));
  } else {
    dx->push_back(NoGradient());
  }
  return absl::OkStatus();
}

}  // namespace
}  // namespace grad

absl::Status RegisterMathGradients(GradientRegistry* registry) {
  using namespace grad;  // NOLINT: the gradient functions of this file
  struct Entry {
    const char* op;
    GradFunc fn;
  };
  const Entry entries[] = {
      {"Neg", NegGrad},
      {"Square", SquareGrad},
      {"Sqrt", SqrtGrad},
      {"Rsqrt", RsqrtGrad},
      {"Exp", ExpGrad},
      {"Log", LogGrad},
      {"Log1p", Log1pGrad},
      {"Abs", AbsGrad},
      {"Reciprocal", ReciprocalGrad},
      {"Tanh", TanhGrad},
      {"Sigmoid", SigmoidGrad},
      {"Add", AddGrad},
      {"AddV2", AddGrad},
      {"Sub", SubGrad},
      {"Mul", MulGrad},
      {"RealDiv", DivGrad},
      {"Div", DivGrad},
      {"Pow", PowGrad},
      {"Maximum", MaximumGrad},
      {"Minimum", MinimumGrad},
      {"SquaredDifference", SquaredDifferenceGrad},
      {"FloorMod", FloorModGrad},
      {"AddN", AddNGrad},
      {"Sum", SumGrad},
      {"Mean", MeanGrad},
      {"Max", MaxOrMinGrad},
      {"Min", MaxOrMinGrad},
      {"MatMul", MatMulGrad},
      {"BatchMatMulV2", BatchMatMulV2Grad},
      {"Cast", CastGrad},
  };
  for (const Entry& e : entries) {
    DFX_RETURN_IF_ERROR(registry->Register(e.op, e.fn));
  }
  // Piecewise-constant functions, comparisons: no gradient flows back.
  for (const char* op :
       {"Sign", "Floor", "Ceil", "Round", "Rint", "ArgMax", "ArgMin",
        "FloorDiv", "TruncateDiv", "Equal", "NotEqual", "Less", "LessEqual",
        "Greater", "GreaterEqual", "IsFinite", "IsInf", "IsNan",
        "BroadcastGradientArgs"}) {
    DFX_RETURN_IF_ERROR(registry->RegisterNoGradient(op));
  }
  return absl::OkStatus();
}

}  // namespace dfx

// Gradients of element-wise math, reductions, matrix products, AddN and Cast,
// after TensorFlow's cc/gradients/math_grad.cc and python/ops/math_grad.py.
#include <algorithm>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
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
// Trigonometric, hyperbolic and special functions.

DFX_GRAD_FN(SinGrad) {
  dx->push_back(ops::Mul(scope, dy[0], ops::Cos(scope, op.input(0))));
  return absl::OkStatus();
}

DFX_GRAD_FN(CosGrad) {
  dx->push_back(
      ops::Neg(scope, ops::Mul(scope, dy[0], ops::Sin(scope, op.input(0)))));
  return absl::OkStatus();
}

DFX_GRAD_FN(TanGrad) {
  // 1 / cos(x)^2
  const Output sec = ops::Reciprocal(scope, ops::Cos(scope, op.input(0)));
  dx->push_back(ops::Mul(scope, dy[0], ops::Square(scope, sec)));
  return absl::OkStatus();
}

// 1 / sqrt(1 - x^2), shared by Asin and Acos.
Output InvSqrtOneMinusSquare(const Scope& scope, const Output& x) {
  const Output one = ScalarOfType(scope, x.dtype(), 1.0);
  return ops::Rsqrt(scope, ops::Sub(scope, one, ops::Square(scope, x)));
}

DFX_GRAD_FN(AsinGrad) {
  dx->push_back(
      ops::Mul(scope, dy[0], InvSqrtOneMinusSquare(scope, op.input(0))));
  return absl::OkStatus();
}

DFX_GRAD_FN(AcosGrad) {
  dx->push_back(ops::Neg(
      scope,
      ops::Mul(scope, dy[0], InvSqrtOneMinusSquare(scope, op.input(0)))));
  return absl::OkStatus();
}

DFX_GRAD_FN(AtanGrad) {
  const Output& x = op.input(0);
  const Output one = ScalarOfType(scope, x.dtype(), 1.0);
  dx->push_back(ops::Mul(
      scope, dy[0],
      ops::Reciprocal(scope, ops::AddV2(scope, one, ops::Square(scope, x)))));
  return absl::OkStatus();
}

DFX_GRAD_FN(SinhGrad) {
  dx->push_back(ops::Mul(scope, dy[0], ops::Cosh(scope, op.input(0))));
  return absl::OkStatus();
}

DFX_GRAD_FN(CoshGrad) {
  dx->push_back(ops::Mul(scope, dy[0], ops::Sinh(scope, op.input(0))));
  return absl::OkStatus();
}

// y = asinh(x): dx = dy / cosh(y).
DFX_GRAD_FN(AsinhGrad) {
  dx->push_back(ops::Mul(
      scope, dy[0], ops::Reciprocal(scope, ops::Cosh(scope, op.output(0)))));
  return absl::OkStatus();
}

// y = acosh(x): dx = dy / sinh(y).
DFX_GRAD_FN(AcoshGrad) {
  dx->push_back(ops::Mul(
      scope, dy[0], ops::Reciprocal(scope, ops::Sinh(scope, op.output(0)))));
  return absl::OkStatus();
}

// dx = dy / (1 - x^2).
DFX_GRAD_FN(AtanhGrad) {
  const Output& x = op.input(0);
  const Output one = ScalarOfType(scope, x.dtype(), 1.0);
  dx->push_back(ops::Mul(
      scope, dy[0],
      ops::Reciprocal(scope, ops::Sub(scope, one, ops::Square(scope, x)))));
  return absl::OkStatus();
}

// 2 / sqrt(pi) * exp(-x^2): the derivative of erf.
Output ErfDerivative(const Scope& scope, const Output& x) {
  const Output c = ScalarOfType(scope, x.dtype(), 1.1283791670955126);
  return ops::Mul(scope, c, ops::Exp(scope, ops::Neg(scope, ops::Square(scope, x))));
}

DFX_GRAD_FN(ErfGrad) {
  dx->push_back(ops::Mul(scope, dy[0], ErfDerivative(scope, op.input(0))));
  return absl::OkStatus();
}

DFX_GRAD_FN(ErfcGrad) {
  dx->push_back(ops::Neg(
      scope, ops::Mul(scope, dy[0], ErfDerivative(scope, op.input(0)))));
  return absl::OkStatus();
}

DFX_GRAD_FN(Expm1Grad) {
  dx->push_back(ops::Mul(scope, dy[0], ops::Exp(scope, op.input(0))));
  return absl::OkStatus();
}

DFX_GRAD_FN(Atan2Grad) {
  // z = atan2(y, x): dz/dy = x / (x^2 + y^2), dz/dx = -y / (x^2 + y^2).
  const Output& y = op.input(0);
  const Output& x = op.input(1);
  const Output inv = ops::Reciprocal(
      scope, ops::AddV2(scope, ops::Square(scope, x), ops::Square(scope, y)));
  const Output gy = ops::Mul(scope, dy[0], ops::Mul(scope, x, inv));
  const Output gx =
      ops::Mul(scope, dy[0], ops::Mul(scope, ops::Neg(scope, y), inv));
  ReduceBroadcastGradients(scope, y, x, gy, gx, dx);
  return absl::OkStatus();
}

// 1 where x != 0, else 0, of x's dtype: the factor TensorFlow's Xlogy,
// Xdivy and Xlog1py gradients put on x so that x = 0 gets no gradient from
// log(y).
Output NonZero(const Scope& scope, const Output& x) {
  const Output zero = ScalarOfType(scope, x.dtype(), 0.0);
  const Output one = ScalarOfType(scope, x.dtype(), 1.0);
  return ops::Sub(scope, one,
                  ops::Cast(scope, ops::Equal(scope, x, zero), x.dtype()));
}

DFX_GRAD_FN(XlogyGrad) {
  const Output& x = op.input(0);
  const Output& y = op.input(1);
  ReduceBroadcastGradients(
      scope, x, y, ops::Mul(scope, ops::Xlogy(scope, NonZero(scope, x), y), dy[0]),
      ops::Mul(scope, ops::Xdivy(scope, x, y), dy[0]), dx);
  return absl::OkStatus();
}

DFX_GRAD_FN(XdivyGrad) {
  const Output& x = op.input(0);
  const Output& y = op.input(1);
  ReduceBroadcastGradients(
      scope, x, y, ops::Mul(scope, ops::Xdivy(scope, NonZero(scope, x), y), dy[0]),
      ops::Mul(scope,
               ops::Xdivy(scope, ops::Neg(scope, x), ops::Square(scope, y)),
               dy[0]),
      dx);
  return absl::OkStatus();
}

DFX_GRAD_FN(Xlog1pyGrad) {
  const Output& x = op.input(0);
  const Output& y = op.input(1);
  const Output one = ScalarOfType(scope, y.dtype(), 1.0);
  ReduceBroadcastGradients(
      scope, x, y,
      ops::Mul(scope, ops::Xlog1py(scope, NonZero(scope, x), y), dy[0]),
      ops::Mul(scope, ops::Xdivy(scope, x, ops::AddV2(scope, y, one)), dy[0]),
      dx);
  return absl::OkStatus();
}

DFX_GRAD_FN(DivNoNanGrad) {
  const Output& x = op.input(0);
  const Output& y = op.input(1);
  ReduceBroadcastGradients(
      scope, x, y, ops::DivNoNan(scope, dy[0], y),
      ops::Mul(scope, dy[0],
               ops::DivNoNan(scope, ops::DivNoNan(scope, ops::Neg(scope, x), y),
                             y)),
      dx);
  return absl::OkStatus();
}

DFX_GRAD_FN(MulNoNanGrad) {
  const Output& x = op.input(0);
  const Output& y = op.input(1);
  ReduceBroadcastGradients(scope, x, y, ops::MulNoNan(scope, dy[0], y),
                           ops::MulNoNan(scope, x, dy[0]), dx);
  return absl::OkStatus();
}

// `grad` (of t's shape) summed to the shape of `bound`, which broadcast to
// t's.
Output SumToShapeOf(const Scope& scope, const Output& grad, const Output& t,
                    const Output& bound) {
  const Output sb = ops::Shape(scope, bound);
  const ops::BroadcastGradientArgsOutputs r =
      ops::BroadcastGradientArgs(scope, ops::Shape(scope, t), sb);
  return ops::Reshape(scope, ops::Sum(scope, grad, r.r1), sb);
}

DFX_GRAD_FN(ClipByValueGrad) {
  // The gradient goes to t where t is inside [lo, hi], to the bound that
  // clipped it elsewhere.
  const Output& t = op.input(0);
  const Output& lo = op.input(1);
  const Output& hi = op.input(2);
  const Output zeros = ops::ZerosLike(scope, dy[0]);
  const Output below = ops::Less(scope, t, lo);
  const Output above = ops::Greater(scope, t, hi);
  dx->push_back(ops::SelectV2(scope, below, zeros,
                              ops::SelectV2(scope, above, zeros, dy[0])));
  dx->push_back(
      SumToShapeOf(scope, ops::SelectV2(scope, below, dy[0], zeros), t, lo));
  dx->push_back(
      SumToShapeOf(scope, ops::SelectV2(scope, above, dy[0], zeros), t, hi));
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------
// Scans and products.

DFX_GRAD_FN(CumsumGrad) {
  ops::ScanAttrs attrs;
  DFX_RETURN_IF_ERROR(Attr(op, "exclusive", &attrs.exclusive));
  DFX_RETURN_IF_ERROR(Attr(op, "reverse", &attrs.reverse));
  attrs.reverse = !attrs.reverse;
  dx->push_back(ops::Cumsum(scope, dy[0], op.input(1), attrs));
  dx->push_back(NoGradient());
  return absl::OkStatus();
}

DFX_GRAD_FN(CumprodGrad) {
  // As TensorFlow: cumsum(prod * dy) in the other direction, divided by x
  // (so an x of 0 gives a NaN or Inf gradient there, as in TensorFlow).
  ops::ScanAttrs attrs;
  DFX_RETURN_IF_ERROR(Attr(op, "exclusive", &attrs.exclusive));
  DFX_RETURN_IF_ERROR(Attr(op, "reverse", &attrs.reverse));
  const Output& x = op.input(0);
  const Output& axis = op.input(1);
  const Output prod = ops::Cumprod(scope, x, axis, attrs);
  ops::ScanAttrs back = attrs;
  back.reverse = !attrs.reverse;
  const Output out =
      ops::Cumsum(scope, ops::Mul(scope, prod, dy[0]), axis, back);
  dx->push_back(ops::RealDiv(scope, out, x));
  dx->push_back(NoGradient());
  return absl::OkStatus();
}

DFX_GRAD_FN(ProdGrad) {
  // TensorFlow's way, which needs no division (zeros are fine): move the
  // reduced axes first, flatten to [reduced, other], and multiply the
  // exclusive cumulative products from both ends.
  const Output& x = op.input(0);
  const Output input_shape = ops::Shape(scope, x);
  const Output kept = ReducedShape(scope, input_shape, op.input(1));
  const Output grad =
      ops::BroadcastTo(scope, ops::Reshape(scope, dy[0], kept), input_shape);
  const Output rank = ops::Rank(scope, x);
  const Output zero = ops::Const(scope, 0);
  const Output one = ops::Const(scope, 1);
  const Output axes = ops::FloorMod(
      scope,
      ops::Reshape(scope, ToInt32(scope, op.input(1)), ops::Const(scope, {-1})),
      rank);
  // 1 for a reduced axis, 0 for another.
  const Output reduced = ops::Minimum(
      scope, ops::UnsortedSegmentSum(scope, ops::OnesLike(scope, axes), axes, rank),
      one);
  // The permutation: reduced axes in order, then the others in order (the
  // ascending order of i - rank * reduced(i), through TopK of its negation).
  const Output iota = ops::Range(scope, zero, rank, one);
  const Output key = ops::Sub(scope, iota, ops::Mul(scope, rank, reduced));
  const Output perm = ops::TopKV2(scope, ops::Neg(scope, key), rank).indices;
  const Output other_num =
      ops::Maximum(scope, ops::Prod(scope, kept, zero), one);
  const Output reduced_num =
      ops::FloorDiv(scope, ops::Size(scope, x), other_num);
  const Output permuted = ops::Transpose(scope, x, perm);
  const Output permuted_shape = ops::Shape(scope, permuted);
  const Output reshaped =
      ops::Reshape(scope, permuted, ops::Pack(scope, {reduced_num, other_num}));
  const Output left =
      ops::Cumprod(scope, reshaped, zero, {.exclusive = true, .reverse = false});
  const Output right =
      ops::Cumprod(scope, reshaped, zero, {.exclusive = true, .reverse = true});
  const Output y =
      ops::Reshape(scope, ops::Mul(scope, left, right), permuted_shape);
  const Output out = ops::Mul(
      scope, grad,
      ops::Transpose(scope, y, ops::InvertPermutation(scope, perm)));
  dx->push_back(ops::Reshape(scope, out, input_shape));
  dx->push_back(NoGradient());
  return absl::OkStatus();
}

DFX_GRAD_FN(EuclideanNormGrad) {
  // x / norm * dy, with norm and dy in the kept-dims shape.
  const Output& x = op.input(0);
  const Output kept = ReducedShape(scope, ops::Shape(scope, x), op.input(1));
  const Output norm = ops::Reshape(scope, op.output(0), kept);
  const Output grad = ops::Reshape(scope, dy[0], kept);
  dx->push_back(ops::Mul(scope, ops::RealDiv(scope, x, norm), grad));
  dx->push_back(NoGradient());
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------
// Gradients of gradient ops (second derivatives), as TensorFlow's.

DFX_GRAD_FN(TanhGradGrad) {
  // z = dy * (1 - y^2): dz/dy' = -2 * grad * dy * y, dz/d(dy) = TanhGrad(y, grad).
  const Output& y = op.input(0);
  const Output& g = op.input(1);
  const Output minus_two = ScalarOfType(scope, y.dtype(), -2.0);
  dx->push_back(ops::Mul(scope, ops::Mul(scope, minus_two, dy[0]),
                         ops::Mul(scope, g, y)));
  dx->push_back(ops::TanhGrad(scope, y, dy[0]));
  return absl::OkStatus();
}

DFX_GRAD_FN(SigmoidGradGrad) {
  // z = dy * y * (1 - y): dz/dy' = grad * dy * (1 - 2y).
  const Output& y = op.input(0);
  const Output& g = op.input(1);
  const Output one = ScalarOfType(scope, y.dtype(), 1.0);
  const Output two = ScalarOfType(scope, y.dtype(), 2.0);
  dx->push_back(ops::Mul(
      scope, ops::Mul(scope, dy[0], g),
      ops::Sub(scope, one, ops::Mul(scope, two, y))));
  dx->push_back(ops::SigmoidGrad(scope, y, dy[0]));
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------
// Einsum with one or two operands. Each operand's gradient is another
// einsum: the output's gradient contracted with the other operand, onto the
// operand's subscripts. Labels only the operand has (summed away in the
// forward op) are broadcast back. Not supported (Unimplemented): a label
// repeated within one operand (a diagonal), three or more operands, and an
// ellipsis that is summed away, or that is not leading while both operands
// have one.

// '.' stands for "..." in the parsed subscripts.
struct EinsumSpec {
  std::vector<std::string> inputs;
  std::string output;
};

absl::StatusOr<EinsumSpec> ParseEinsum(std::string equation, int n) {
  // Spaces are allowed and ignored.
  equation.erase(std::remove(equation.begin(), equation.end(), ' '),
                 equation.end());
  for (size_t pos; (pos = equation.find("...")) != std::string::npos;) {
    equation.replace(pos, 3, ".");
  }
  EinsumSpec spec;
  const size_t arrow = equation.find("->");
  const std::string lhs = equation.substr(0, arrow);
  size_t start = 0;
  while (true) {
    const size_t comma = lhs.find(',', start);
    spec.inputs.push_back(lhs.substr(start, comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (static_cast<int>(spec.inputs.size()) != n) {
    return absl::InvalidArgumentError(absl::StrCat(
        "einsum equation '", equation, "' has ", spec.inputs.size(),
        " operand(s) for ", n, " input(s)"));
  }
  if (arrow == std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat(
        "einsum equation '", equation, "' has no '->'"));
  }
  spec.output = equation.substr(arrow + 2);
  return spec;
}

std::string EinsumText(const std::string& subscripts) {
  std::string out;
  for (char c : subscripts) {
    if (c == '.') {
      out += "...";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

DFX_GRAD_FN(EinsumGrad) {
  std::string equation;
  DFX_RETURN_IF_ERROR(Attr(op, "equation", &equation));
  const int n = op.num_inputs();
  if (n > 2) {
    return absl::UnimplementedError(absl::StrCat(
        "the gradient of Einsum with ", n, " operands is not supported"));
  }
  DFX_ASSIGN_OR_RETURN(EinsumSpec spec, ParseEinsum(equation, n));
  for (int i = 0; i < n; ++i) {
    const std::string& a = spec.inputs[i];
    const std::string other = n == 2 ? spec.inputs[1 - i] : "";
    std::string kept, reduced_mask;
    bool has_reduced = false;
    for (size_t j = 0; j < a.size(); ++j) {
      const char c = a[j];
      if (a.find(c) != j && c != '.') {
        return absl::UnimplementedError(absl::StrCat(
            "the gradient of Einsum '", equation,
            "' (a label repeated within an operand) is not supported"));
      }
      const bool reduced = spec.output.find(c) == std::string::npos &&
                           other.find(c) == std::string::npos;
      if (reduced && c == '.') {
        return absl::UnimplementedError(absl::StrCat(
            "the gradient of Einsum '", equation,
            "' (an ellipsis summed away) is not supported"));
      }
      has_reduced = has_reduced || reduced;
      if (!reduced) kept.push_back(c);
    }
    const bool ellipsis = a.find('.') != std::string::npos;
    std::string eq = EinsumText(spec.output);
    std::vector<Output> operands = {dy[0]};
    if (n == 2) {
      eq += "," + EinsumText(other);
      operands.push_back(op.input(1 - i));
    }
    eq += "->" + EinsumText(kept);
    Output g = ops::Einsum(scope, operands, eq);
    const Output& x = op.input(i);
    if (has_reduced) {
      if (ellipsis) {
        return absl::UnimplementedError(absl::StrCat(
            "the gradient of Einsum '", equation,
            "' (an ellipsis beside a label summed away) is not supported"));
      }
      // Size 1 where a label was summed away, then broadcast to x's shape.
      std::vector<int32_t> keep, fill;
      for (char c : a) {
        const bool k = kept.find(c) != std::string::npos;
        keep.push_back(k ? 1 : 0);
        fill.push_back(k ? 0 : 1);
      }
      const Output shape = ops::Shape(scope, x);
      const Output kept_shape = ops::AddV2(
          scope, ops::Mul(scope, shape, ops::Const(scope, keep)),
          ops::Const(scope, fill));
      g = ops::BroadcastTo(scope, ops::Reshape(scope, g, kept_shape), shape);
    } else if (ellipsis && n == 2 && other.find('.') != std::string::npos) {
      // The ellipsis dims may have been broadcast against the other
      // operand's: sum them back (right-aligned, so the ellipsis must lead).
      if (a[0] != '.') {
        return absl::UnimplementedError(absl::StrCat(
            "the gradient of Einsum '", equation,
            "' (an ellipsis after a label in both operands) is not supported"));
      }
      const Output sx = ops::Shape(scope, x);
      const ops::BroadcastGradientArgsOutputs r =
          ops::BroadcastGradientArgs(scope, sx, ops::Shape(scope, g));
      g = ops::Reshape(scope, ops::Sum(scope, g, r.r0), sx);
    }
    dx->push_back(g);
  }
  return absl::OkStatus();
}

DFX_GRAD_FN(SqrtGradGrad) {
  // z = 0.5 * b / a: dz/da = -grad / a * z, dz/db = 0.5 * grad / a.
  const Output& a = op.input(0);
  const Output ga = ops::RealDiv(scope, dy[0], a);
  dx->push_back(ops::Mul(scope, ops::Neg(scope, ga), op.output(0)));
  dx->push_back(
      ops::Mul(scope, ScalarOfType(scope, a.dtype(), 0.5), ga));
  return absl::OkStatus();
}

DFX_GRAD_FN(RsqrtGradGrad) {
  // z = -0.5 * b * a^3: dz/da = -1.5 * grad * b * a^2, dz/db = RsqrtGrad.
  const Output& a = op.input(0);
  const Output& b = op.input(1);
  dx->push_back(ops::Mul(
      scope,
      ops::Mul(scope, ScalarOfType(scope, a.dtype(), -1.5),
               ops::Mul(scope, dy[0], b)),
      ops::Square(scope, a)));
  dx->push_back(ops::RsqrtGrad(scope, a, dy[0]));
  return absl::OkStatus();
}

// ReciprocalGrad and InvGrad: z = -b * a^2.
DFX_GRAD_FN(ReciprocalGradGrad) {
  const Output& a = op.input(0);
  const Output& b = op.input(1);
  dx->push_back(ops::Mul(
      scope,
      ops::Mul(scope, dy[0], ScalarOfType(scope, a.dtype(), -2.0)),
      ops::Mul(scope, b, a)));
  dx->push_back(ops::ReciprocalGrad(scope, a, dy[0]));
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
      {"BatchMatMul", BatchMatMulV2Grad},
      {"BatchMatMulV3", BatchMatMulV2Grad},
      {"Einsum", EinsumGrad},
      {"Cast", CastGrad},
      {"Sin", SinGrad},
      {"Cos", CosGrad},
      {"Tan", TanGrad},
      {"Asin", AsinGrad},
      {"Acos", AcosGrad},
      {"Atan", AtanGrad},
      {"Sinh", SinhGrad},
      {"Cosh", CoshGrad},
      {"Asinh", AsinhGrad},
      {"Acosh", AcoshGrad},
      {"Atanh", AtanhGrad},
      {"Erf", ErfGrad},
      {"Erfc", ErfcGrad},
      {"Expm1", Expm1Grad},
      {"Inv", ReciprocalGrad},
      {"Atan2", Atan2Grad},
      {"Xlogy", XlogyGrad},
      {"Xdivy", XdivyGrad},
      {"Xlog1py", Xlog1pyGrad},
      {"DivNoNan", DivNoNanGrad},
      {"MulNoNan", MulNoNanGrad},
      {"ClipByValue", ClipByValueGrad},
      {"Cumsum", CumsumGrad},
      {"Cumprod", CumprodGrad},
      {"Prod", ProdGrad},
      {"EuclideanNorm", EuclideanNormGrad},
      {"TanhGrad", TanhGradGrad},
      {"SigmoidGrad", SigmoidGradGrad},
      {"SqrtGrad", SqrtGradGrad},
      {"RsqrtGrad", RsqrtGradGrad},
      {"ReciprocalGrad", ReciprocalGradGrad},
      {"InvGrad", ReciprocalGradGrad},
  };
  for (const Entry& e : entries) {
    DFX_RETURN_IF_ERROR(registry->Register(e.op, e.fn));
  }
  // Piecewise-constant functions, comparisons: no gradient flows back.
  for (const char* op :
       {"Sign", "Floor", "Ceil", "Round", "Rint", "ArgMax", "ArgMin",
        "FloorDiv", "TruncateDiv", "Equal", "NotEqual", "Less", "LessEqual",
        "Greater", "GreaterEqual", "IsFinite", "IsInf", "IsNan",
        "BroadcastGradientArgs", "ApproximateEqual", "LinSpace",
        "LogicalAnd", "LogicalOr", "LogicalNot"}) {
    DFX_RETURN_IF_ERROR(registry->RegisterNoGradient(op));
  }
  return absl::OkStatus();
}

}  // namespace dfx

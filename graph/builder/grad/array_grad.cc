// Gradients of shape and indexing ops, and the ops that carry no gradient,
// after TensorFlow's cc/gradients/array_grad.cc and python/ops/array_grad.py.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/builder/grad/grad.h"
#include "graph/builder/grad/grad_util.h"
#include "graph/builder/ops.h"

namespace dfx {
namespace grad {
namespace {

// The gradient passes through unchanged (Identity and its kin).
DFX_GRAD_FN(PassThroughGrad) {
  dx->push_back(dy[0]);
  for (int i = 1; i < op.num_inputs(); ++i) dx->push_back(NoGradient());
  return absl::OkStatus();
}

DFX_GRAD_FN(PreventGradientGrad) {
  std::string message;
  DFX_RETURN_IF_ERROR(Attr(op, "message", &message));
  return absl::InvalidArgumentError(
      absl::StrCat("Gradient explicitly disabled. Reason: ", message));
}

// Reshape, ExpandDims, Squeeze: dy takes x's shape back.
DFX_GRAD_FN(ReshapeGrad) {
  dx->push_back(ops::Reshape(scope, dy[0], ops::Shape(scope, op.input(0))));
  for (int i = 1; i < op.num_inputs(); ++i) dx->push_back(NoGradient());
  return absl::OkStatus();
}

DFX_GRAD_FN(TransposeGrad) {
  dx->push_back(
      ops::Transpose(scope, dy[0], ops::InvertPermutation(scope, op.input(1))));
  dx->push_back(NoGradient());
  return absl::OkStatus();
}

// ConcatV2: dy split back into pieces sized like the values along the
// (non-negative) axis.
DFX_GRAD_FN(ConcatV2Grad) {
  const int n = op.num_inputs() - 1;
  const Output axis = ops::FloorMod(scope, ToInt32(scope, op.input(n)),
                                    ops::Rank(scope, op.input(0)));
  std::vector<Output> shapes;
  for (int i = 0; i < n; ++i) shapes.push_back(ops::Shape(scope, op.input(i)));
  const Output sizes = ops::GatherV2(scope, ops::Pack(scope, shapes), axis,
                                     ops::Const(scope, 1));
  std::vector<Output> pieces = ops::SplitV(scope, dy[0], sizes, axis, n);
  if (static_cast<int>(pieces.size()) != n) return scope.status();
  for (Output& p : pieces) dx->push_back(std::move(p));
  dx->push_back(NoGradient());
  return absl::OkStatus();
}

// Split and SplitV: the gradients concatenated back (zeros for pieces no
// gradient reached).
Output ConcatPieces(const Scope& scope, const GradOp& op,
                    absl::Span<const Output> dy, const Output& axis) {
  std::vector<Output> pieces;
  for (int i = 0; i < op.num_outputs(); ++i) {
    pieces.push_back(GradOrZeros(scope, op, dy, i));
  }
  return ops::ConcatV2(scope, pieces, axis);
}

DFX_GRAD_FN(SplitGrad) {
  dx->push_back(NoGradient());
  dx->push_back(ConcatPieces(scope, op, dy, op.input(0)));
  return absl::OkStatus();
}

DFX_GRAD_FN(SplitVGrad) {
  dx->push_back(ConcatPieces(scope, op, dy, op.input(2)));
  dx->push_back(NoGradient());
  dx->push_back(NoGradient());
  return absl::OkStatus();
}

DFX_GRAD_FN(PackGrad) {
  int64_t axis = 0;
  DFX_RETURN_IF_ERROR(Attr(op, "axis", &axis));
  std::vector<Output> pieces = ops::Unpack(scope, dy[0], op.num_inputs(), axis);
  if (static_cast<int>(pieces.size()) != op.num_inputs()) {
    return scope.status();
  }
  for (Output& p : pieces) dx->push_back(std::move(p));
  return absl::OkStatus();
}

DFX_GRAD_FN(UnpackGrad) {
  int64_t axis = 0;
  DFX_RETURN_IF_ERROR(Attr(op, "axis", &axis));
  std::vector<Output> pieces;
  for (int i = 0; i < op.num_outputs(); ++i) {
    pieces.push_back(GradOrZeros(scope, op, dy, i));
  }
  dx->push_back(ops::Pack(scope, pieces, axis));
  return absl::OkStatus();
}

// Slice: dy padded back to x's shape by begin before and the rest after.
DFX_GRAD_FN(SliceGrad) {
  const Output& x = op.input(0);
  const Output& begin = op.input(1);
  const DataType index = begin.dtype();
  const Output pad_shape =
      ops::Pack(scope, {ops::Rank(scope, x), ops::Const(scope, 1)});
  const Output before = ops::Reshape(scope, begin, pad_shape);
  const Output after =
      ops::Reshape(scope,
                   ops::Sub(scope,
                            ops::Sub(scope, ops::Shape(scope, x, index),
                                     ops::Shape(scope, op.output(0), index)),
                            begin),
                   pad_shape);
  const Output paddings =
      ops::ConcatV2(scope, {before, after}, ops::Const(scope, 1));
  dx->push_back(ops::Pad(scope, dy[0], paddings));
  dx->push_back(NoGradient());
  dx->push_back(NoGradient());
  return absl::OkStatus();
}

// The five mask attrs of a StridedSlice or StridedSliceGrad node.
absl::Status StridedSliceMasks(const GradOp& op,
                               ops::StridedSliceAttrs* attrs) {
  DFX_RETURN_IF_ERROR(Attr(op, "begin_mask", &attrs->begin_mask));
  DFX_RETURN_IF_ERROR(Attr(op, "end_mask", &attrs->end_mask));
  DFX_RETURN_IF_ERROR(Attr(op, "ellipsis_mask", &attrs->ellipsis_mask));
  DFX_RETURN_IF_ERROR(Attr(op, "new_axis_mask", &attrs->new_axis_mask));
  return Attr(op, "shrink_axis_mask", &attrs->shrink_axis_mask);
}

DFX_GRAD_FN(StridedSliceGrad) {
  ops::StridedSliceAttrs attrs;
  DFX_RETURN_IF_ERROR(StridedSliceMasks(op, &attrs));
  const Output shape = ops::Shape(scope, op.input(0), op.input(1).dtype());
  dx->push_back(ops::StridedSliceGrad(scope, shape, op.input(1), op.input(2),
                                      op.input(3), dy[0], attrs));
  for (int i = 1; i < 4; ++i) dx->push_back(NoGradient());
  return absl::OkStatus();
}

// Tile: dy seen as [m0, d0, m1, d1, ...] (multiples interleaved with x's
// dims) and summed over the multiples.
DFX_GRAD_FN(TileGrad) {
  const Output& multiples = op.input(1);
  const Output input_shape = ops::Shape(scope, op.input(0), multiples.dtype());
  const Output split_shape = ops::Reshape(
      scope,
      ops::Transpose(scope, ops::Pack(scope, {multiples, input_shape}),
                     ops::Const(scope, {1, 0})),
      ops::Const(scope, {-1}));
  const Output axes =
      ops::Range(scope, ops::Const(scope, 0), ops::Size(scope, split_shape),
                 ops::Const(scope, 2));
  dx->push_back(ops::Sum(scope, ops::Reshape(scope, dy[0], split_shape), axes));
  dx->push_back(NoGradient());
  return absl::OkStatus();
}

// Pad and PadV2: the slice of dy that x occupies.
DFX_GRAD_FN(PadGrad) {
  const Output& x = op.input(0);
  const Output& paddings = op.input(1);
  const Output size =
      ops::Pack(scope, {ops::Rank(scope, x), ops::Const(scope, 1)});
  const Output before =
      ops::Slice(scope, paddings, ops::Const(scope, {0, 0}), size);
  const Output begin = ops::Reshape(scope, before, ops::Const(scope, {-1}));
  dx->push_back(
      ops::Slice(scope, dy[0], begin, ops::Shape(scope, x, paddings.dtype())));
  for (int i = 1; i < op.num_inputs(); ++i) dx->push_back(NoGradient());
  return absl::OkStatus();
}

// A dense gradient for Gather along axis 0: the rows of dy summed into the
// rows of params they were gathered from.
Output GatherAxis0Grad(const Scope& scope, const Output& params,
                       const Output& indices, const Output& grad) {
  const Output params_shape = ops::Shape(scope, params);
  const Output indices_size =
      ops::Reshape(scope, ops::Size(scope, indices), ops::Const(scope, {1}));
  const Output inner = ops::Slice(scope, params_shape, ops::Const(scope, {1}),
                                  ops::Const(scope, {-1}));
  const Output values = ops::Reshape(
      scope, grad,
      ops::ConcatV2(scope, {indices_size, inner}, ops::Const(scope, 0)));
  const Output rows = ops::GatherV2(scope, params_shape, ops::Const(scope, 0),
                                    ops::Const(scope, 0));
  return ops::UnsortedSegmentSum(
      scope, values, ops::Reshape(scope, indices, indices_size), rows);
}

DFX_GRAD_FN(GatherV2Grad) {
  int64_t batch_dims = 0;
  DFX_RETURN_IF_ERROR(Attr(op, "batch_dims", &batch_dims));
  if (batch_dims != 0) {
    return absl::UnimplementedError(
        absl::StrCat("the gradient of GatherV2 with batch_dims ", batch_dims,
                     " is not supported (only batch_dims 0)"));
  }
  const Output& params = op.input(0);
  const Output& indices = op.input(1);
  std::vector<int64_t> axis_value;
  if (ConstInts(op.input_node(2), &axis_value) && axis_value.size() == 1 &&
      axis_value[0] == 0) {
    dx->push_back(GatherAxis0Grad(scope, params, indices, dy[0]));
  } else {
    // Any axis: move the gathered axis first, sum into params' rows along
    // it, and move it back.
    const Output params_shape = ops::Shape(scope, params);
    const Output axis = ops::FloorMod(scope, ToInt32(scope, op.input(2)),
                                      ops::Rank(scope, params));
    const Output axis_1 = ops::Reshape(scope, axis, ops::Const(scope, {1}));
    const Output one = ops::Const(scope, 1);
    const Output axis_plus_1 = ops::AddV2(scope, axis, one);
    const Output outer =
        ops::Slice(scope, params_shape, ops::Const(scope, {0}), axis_1);
    const Output inner =
        ops::Slice(scope, params_shape,
                   ops::Reshape(scope, axis_plus_1, ops::Const(scope, {1})),
                   ops::Const(scope, {-1}));
    const Output indices_size =
        ops::Reshape(scope, ops::Size(scope, indices), ops::Const(scope, {1}));
    const Output values_shape = ops::ConcatV2(
        scope, {outer, indices_size, inner}, ops::Const(scope, 0));
    const Output values = ops::Reshape(scope, dy[0], values_shape);
    const Output values_rank = ops::Size(scope, values_shape);
    const Output zero = ops::Const(scope, 0);
    const Output before = ops::Range(scope, zero, axis, one);
    const Output after = ops::Range(scope, axis_plus_1, values_rank, one);
    const Output perm =
        ops::ConcatV2(scope, {axis_1, before, after}, ops::Const(scope, 0));
    const Output summed =
        ops::UnsortedSegmentSum(scope, ops::Transpose(scope, values, perm),
                                ops::Reshape(scope, indices, indices_size),
                                ops::GatherV2(scope, params_shape, axis, zero));
    const Output inverse =
        ops::ConcatV2(scope,
                      {ops::Range(scope, one, axis_plus_1, one),
                       ops::Const(scope, {0}), after},
                      ops::Const(scope, 0));
    dx->push_back(ops::Transpose(scope, summed, inverse));
  }
  dx->push_back(NoGradient());
  dx->push_back(NoGradient());
  return absl::OkStatus();
}

DFX_GRAD_FN(GatherGrad) {
  dx->push_back(GatherAxis0Grad(scope, op.input(0), op.input(1), dy[0]));
  dx->push_back(NoGradient());
  return absl::OkStatus();
}

DFX_GRAD_FN(SelectGrad) {
  const Output& c = op.input(0);
  const Output zeros = ops::ZerosLike(scope, dy[0]);
  dx->push_back(NoGradient());
  dx->push_back(ops::Select(scope, c, dy[0], zeros));
  dx->push_back(ops::Select(scope, c, zeros, dy[0]));
  return absl::OkStatus();
}

// `grad` (of the output's shape) summed to the shape of `x`, which was
// broadcast to the output's.
Output ReduceToShapeOf(const Scope& scope, const Output& grad, const Output& x,
                       const Output& out) {
  const Output sx = ops::Shape(scope, x);
  const ops::BroadcastGradientArgsOutputs r =
      ops::BroadcastGradientArgs(scope, sx, ops::Shape(scope, out));
  return ops::Reshape(scope, ops::Sum(scope, grad, r.r0), sx);
}

DFX_GRAD_FN(SelectV2Grad) {
  const Output& c = op.input(0);
  const Output zeros = ops::ZerosLike(scope, dy[0]);
  dx->push_back(NoGradient());
  dx->push_back(ReduceToShapeOf(scope, ops::SelectV2(scope, c, dy[0], zeros),
                                op.input(1), op.output(0)));
  dx->push_back(ReduceToShapeOf(scope, ops::SelectV2(scope, c, zeros, dy[0]),
                                op.input(2), op.output(0)));
  return absl::OkStatus();
}

DFX_GRAD_FN(BroadcastToGrad) {
  dx->push_back(ReduceToShapeOf(scope, dy[0], op.input(0), op.output(0)));
  dx->push_back(NoGradient());
  return absl::OkStatus();
}

// Fill: the scalar value receives the sum of dy.
DFX_GRAD_FN(FillGrad) {
  dx->push_back(NoGradient());
  dx->push_back(
      ops::Sum(scope, dy[0],
               ops::Range(scope, ops::Const(scope, 0), ops::Rank(scope, dy[0]),
                          ops::Const(scope, 1))));
  return absl::OkStatus();
}


DFX_GRAD_FN(IdentityNGrad) {
  for (int i = 0; i < op.num_inputs(); ++i) dx->push_back(dy[i]);
  return absl::OkStatus();
}

DFX_GRAD_FN(ReverseV2Grad) {
  dx->push_back(ops::ReverseV2(scope, dy[0], op.input(1)));
  dx->push_back(NoGradient());
  return absl::OkStatus();
}

DFX_GRAD_FN(MirrorPadGrad) {
  std::string mode;
  DFX_RETURN_IF_ERROR(Attr(op, "mode", &mode));
  dx->push_back(ops::MirrorPadGrad(scope, dy[0], op.input(1), mode));
  dx->push_back(NoGradient());
  return absl::OkStatus();
}

DFX_GRAD_FN(MirrorPadGradGrad) {
  std::string mode;
  DFX_RETURN_IF_ERROR(Attr(op, "mode", &mode));
  dx->push_back(ops::MirrorPad(scope, dy[0], op.input(1), mode));
  dx->push_back(NoGradient());
  return absl::OkStatus();
}

DFX_GRAD_FN(StridedSliceGradGrad) {
  ops::StridedSliceAttrs attrs;
  DFX_RETURN_IF_ERROR(StridedSliceMasks(op, &attrs));
  for (int i = 0; i < 4; ++i) dx->push_back(NoGradient());
  dx->push_back(ops::StridedSlice(scope, dy[0], op.input(1), op.input(2),
                                  op.input(3), attrs));
  return absl::OkStatus();
}

DFX_GRAD_FN(GatherNdGrad) {
  const Output& indices = op.input(1);
  dx->push_back(ops::ScatterNd(scope, indices, dy[0],
                               ops::Shape(scope, op.input(0), indices.dtype())));
  dx->push_back(NoGradient());
  return absl::OkStatus();
}

DFX_GRAD_FN(ScatterNdGrad) {
  dx->push_back(NoGradient());
  dx->push_back(ops::GatherNd(scope, dy[0], op.input(0)));
  dx->push_back(NoGradient());
  return absl::OkStatus();
}

DFX_GRAD_FN(TensorScatterUpdateGrad) {
  // The updated positions take nothing from the tensor.
  const Output& indices = op.input(1);
  dx->push_back(ops::TensorScatterUpdate(scope, dy[0], indices,
                                         ops::ZerosLike(scope, op.input(2))));
  dx->push_back(NoGradient());
  dx->push_back(ops::GatherNd(scope, dy[0], indices));
  return absl::OkStatus();
}

DFX_GRAD_FN(TensorScatterAddGrad) {
  dx->push_back(dy[0]);
  dx->push_back(NoGradient());
  dx->push_back(ops::GatherNd(scope, dy[0], op.input(1)));
  return absl::OkStatus();
}

// The shape [d0, 1, 1, ...] of rank(like) with d0 = -1: reshapes a vector
// to broadcast along the first axis of `like`.
Output LeadingShape(const Scope& scope, const Output& leading,
                    const Output& like, const Output& lead_rank) {
  const Output rest = ops::Sub(scope, ops::Rank(scope, like), lead_rank);
  const Output ones =
      ops::Fill(scope, ops::Reshape(scope, rest, ops::Const(scope, {1})),
                ops::Const(scope, 1));
  return ops::ConcatV2(scope, {leading, ones}, ops::Const(scope, 0));
}

DFX_GRAD_FN(SegmentSumGrad) {
  dx->push_back(ops::GatherV2(scope, dy[0], op.input(1), ops::Const(scope, 0)));
  dx->push_back(NoGradient());
  return absl::OkStatus();
}

DFX_GRAD_FN(SegmentMeanGrad) {
  // dy divided by each segment's size, gathered back to the rows.
  const Output& data = op.input(0);
  const Output& ids = op.input(1);
  const Output ones = ops::Cast(scope, ops::OnesLike(scope, ids), data.dtype());
  const Output counts = ops::SegmentSum(scope, ones, ids);
  const Output shaped = ops::Reshape(
      scope, counts,
      LeadingShape(scope, ops::Const(scope, {-1}), dy[0], ops::Const(scope, 1)));
  dx->push_back(ops::GatherV2(scope, ops::RealDiv(scope, dy[0], shaped), ids,
                              ops::Const(scope, 0)));
  dx->push_back(NoGradient());
  return absl::OkStatus();
}

// Rows `ids` of `params` (gathered at max(ids, 0)), zero where an id is
// negative (unsorted segment ops drop such entries): TensorFlow's
// _GatherDropNegatives.
Output GatherDropNegatives(const Scope& scope, const Output& params,
                           const Output& ids) {
  const Output zero = ops::Cast(scope, ops::Const(scope, 0), ids.dtype());
  const Output gathered = ops::GatherV2(scope, params, ops::Maximum(scope, ids, zero),
                                        ops::Const(scope, 0));
  const Output keep = ops::Reshape(
      scope, ops::GreaterEqual(scope, ids, zero),
      LeadingShape(scope, ops::Shape(scope, ids), gathered,
                   ops::Rank(scope, ids)));
  return ops::SelectV2(scope, keep, gathered,
                       ops::ZerosLike(scope, gathered));
}

DFX_GRAD_FN(UnsortedSegmentSumGrad) {
  dx->push_back(GatherDropNegatives(scope, dy[0], op.input(1)));
  dx->push_back(NoGradient());
  dx->push_back(NoGradient());
  return absl::OkStatus();
}

// UnsortedSegmentMax and Min: the gradient is shared among the entries equal
// to their segment's result.
DFX_GRAD_FN(UnsortedSegmentMinOrMaxGrad) {
  const Output& data = op.input(0);
  const Output& ids = op.input(1);
  const Output selected = ops::Equal(
      scope, data, GatherDropNegatives(scope, op.output(0), ids));
  const Output num_selected = ops::UnsortedSegmentSum(
      scope, ops::Cast(scope, selected, data.dtype()), ids, op.input(2));
  const Output weighted = ops::DivNoNan(scope, dy[0], num_selected);
  const Output gathered = GatherDropNegatives(scope, weighted, ids);
  dx->push_back(ops::SelectV2(scope, selected, gathered,
                              ops::ZerosLike(scope, gathered)));
  dx->push_back(NoGradient());
  dx->push_back(NoGradient());
  return absl::OkStatus();
}

DFX_GRAD_FN(UnsortedSegmentProdGrad) {
  // As TensorFlow: the product of the other entries of the segment, computed
  // without dividing by zero (a segment with two zeros gives none).
  const Output& data = op.input(0);
  const Output& ids = op.input(1);
  const Output& num = op.input(2);
  const Output zero = ScalarOfType(scope, data.dtype(), 0.0);
  const Output is_zero = ops::Equal(scope, data, zero);
  const Output num_zeros = ops::UnsortedSegmentSum(
      scope, ops::Cast(scope, is_zero, DT_INT32), ids, num);
  const Output grad =
      ops::SelectV2(scope, ops::Greater(scope, num_zeros, ops::Const(scope, 1)),
                    ops::ZerosLike(scope, dy[0]), dy[0]);
  const Output non_zero_data =
      ops::SelectV2(scope, is_zero, ops::OnesLike(scope, data), data);
  const Output non_zero_prod =
      ops::UnsortedSegmentProd(scope, non_zero_data, ids, num);
  const Output gathered_prod = GatherDropNegatives(scope, op.output(0), ids);
  const Output gathered_non_zero_prod =
      GatherDropNegatives(scope, non_zero_prod, ids);
  const Output partial = ops::SelectV2(
      scope, is_zero, gathered_non_zero_prod,
      ops::RealDiv(scope, gathered_prod, non_zero_data));
  dx->push_back(
      ops::Mul(scope, GatherDropNegatives(scope, grad, ids), partial));
  dx->push_back(NoGradient());
  dx->push_back(NoGradient());
  return absl::OkStatus();
}

// DynamicStitch and ParallelDynamicStitch: each data input gets the rows of
// dy its indices name.
DFX_GRAD_FN(DynamicStitchGrad) {
  const int n = op.num_inputs() / 2;
  for (int i = 0; i < n; ++i) dx->push_back(NoGradient());
  for (int i = 0; i < n; ++i) {
    dx->push_back(ops::GatherV2(scope, dy[0], op.input(i), ops::Const(scope, 0)));
  }
  return absl::OkStatus();
}

// DynamicPartition: the pieces' gradients stitched back to the rows they
// came from (positions partitioned the same way), reshaped to data's shape.
DFX_GRAD_FN(DynamicPartitionGrad) {
  const Output& data = op.input(0);
  const Output& partitions = op.input(1);
  const int n = op.num_outputs();
  const Output prefix = ops::Shape(scope, partitions);
  const Output positions = ops::Reshape(
      scope,
      ops::Range(scope, ops::Const(scope, 0), ops::Size(scope, partitions),
                 ops::Const(scope, 1)),
      prefix);
  std::vector<Output> indices =
      ops::DynamicPartition(scope, positions, partitions, n);
  if (static_cast<int>(indices.size()) != n) return scope.status();
  std::vector<Output> grads;
  for (int i = 0; i < n; ++i) grads.push_back(GradOrZeros(scope, op, dy, i));
  const Output stitched = ops::DynamicStitch(scope, indices, grads);
  dx->push_back(ops::Reshape(scope, stitched, ops::Shape(scope, data)));
  dx->push_back(NoGradient());
  return absl::OkStatus();
}

}  // namespace
}  // namespace grad

absl::Status RegisterArrayGradients(GradientRegistry* registry) {
  using namespace grad;  // NOLINT: the gradient functions of this file
  struct Entry {
    const char* op;
    GradFunc fn;
  };
  const Entry entries[] = {
      {"Identity", PassThroughGrad},
      {"Snapshot", PassThroughGrad},
      {"PlaceholderWithDefault", PassThroughGrad},
      {"EnsureShape", PassThroughGrad},
      {"PreventGradient", PreventGradientGrad},
      {"Reshape", ReshapeGrad},
      {"ExpandDims", ReshapeGrad},
      {"Squeeze", ReshapeGrad},
      {"Transpose", TransposeGrad},
      {"ConcatV2", ConcatV2Grad},
      {"Split", SplitGrad},
      {"SplitV", SplitVGrad},
      {"Pack", PackGrad},
      {"Unpack", UnpackGrad},
      {"Slice", SliceGrad},
      {"StridedSlice", StridedSliceGrad},
      {"Tile", TileGrad},
      {"Pad", PadGrad},
      {"PadV2", PadGrad},
      {"GatherV2", GatherV2Grad},
      {"Gather", GatherGrad},
      {"Select", SelectGrad},
      {"SelectV2", SelectV2Grad},
      {"BroadcastTo", BroadcastToGrad},
      {"Fill", FillGrad},
      {"IdentityN", IdentityNGrad},
      {"RefIdentity", PassThroughGrad},
      // TensorFlow checks the gradient's numbers too; here it passes as is.
      {"CheckNumerics", PassThroughGrad},
      {"CheckNumericsV2", PassThroughGrad},
      {"ReverseV2", ReverseV2Grad},
      {"MirrorPad", MirrorPadGrad},
      {"MirrorPadGrad", MirrorPadGradGrad},
      {"StridedSliceGrad", StridedSliceGradGrad},
      {"GatherNd", GatherNdGrad},
      {"ScatterNd", ScatterNdGrad},
      {"TensorScatterUpdate", TensorScatterUpdateGrad},
      {"TensorScatterAdd", TensorScatterAddGrad},
      {"SegmentSum", SegmentSumGrad},
      {"SegmentMean", SegmentMeanGrad},
      {"UnsortedSegmentSum", UnsortedSegmentSumGrad},
      {"UnsortedSegmentMax", UnsortedSegmentMinOrMaxGrad},
      {"UnsortedSegmentMin", UnsortedSegmentMinOrMaxGrad},
      {"UnsortedSegmentProd", UnsortedSegmentProdGrad},
      {"DynamicStitch", DynamicStitchGrad},
      {"ParallelDynamicStitch", DynamicStitchGrad},
      {"DynamicPartition", DynamicPartitionGrad},
  };
  for (const Entry& e : entries) {
    DFX_RETURN_IF_ERROR(registry->Register(e.op, e.fn));
  }
  // Nothing flows back through these (TensorFlow's NotDifferentiable).
  for (const char* op :
       {"StopGradient", "Shape", "ShapeN", "Rank", "Size", "ZerosLike",
        "OnesLike", "Const", "Placeholder", "Range", "InvertPermutation",
        "OneHot", "Where", "RandomUniform", "RandomStandardNormal",
        "TruncatedNormal", "RandomUniformInt", "Multinomial",
        "RandomShuffle", "ConcatOffset", "Assert", "StringJoin",
        "StatelessMultinomial", "StatelessRandomNormal",
        "StatelessRandomNormalV2", "StatelessRandomUniform",
        "StatelessRandomUniformFullInt", "StatelessRandomUniformFullIntV2",
        "StatelessRandomUniformInt", "StatelessRandomUniformIntV2",
        "StatelessRandomUniformV2", "StatelessTruncatedNormal",
        "StatelessTruncatedNormalV2", "Assign", "AssignAdd", "AssignSub",
        "ScatterAdd", "ScatterSub", "ScatterMul", "ScatterDiv",
        "VarIsInitializedOp", "VariableShape", "TensorArrayCloseV3",
        "TensorArrayGradV3", "TensorArrayGradWithShape", "TensorArraySizeV3",
        "TensorArrayV3", "TensorListConcatLists", "TensorListElementShape",
        "TensorListLength"}) {
    DFX_RETURN_IF_ERROR(registry->RegisterNoGradient(op));
  }
  return absl::OkStatus();
}

}  // namespace dfx

// Slicing, tiling, padding and splitting ops with their shape functions.
// Signatures follow TensorFlow 2.21's array_ops.cc and math_ops.cc (Range,
// LinSpace); shape functions report what TensorFlow's report at graph time
// and leave to the kernels what only run time can tell.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "graph/node_def_util.h"
#include "graph/ops/ops.h"
#include "graph/ops/strided_slice_spec.h"

namespace dfx {
namespace {

int64_t IntAttrOr(const InferenceContext* c, absl::string_view name,
                  int64_t dflt) {
  const AttrValue* v = FindNodeAttr(c->node_def(), name);
  return v != nullptr ? v->i() : dflt;
}

// The number of elements of input i when it is a vector of known length,
// else -1.
int64_t KnownVectorLength(const InferenceContext* c, int i) {
  const PartialShape& s = c->input(i);
  return s.RankKnown() && s.rank() == 1 ? s.dims[0] : -1;
}

absl::Status WithRankAtMost(const InferenceContext* c, int i, int rank,
                            absl::string_view what) {
  const PartialShape& s = c->input(i);
  if (s.RankKnown() && s.rank() > rank) {
    return c->Error(absl::StrCat("'", what, "' must have rank at most ", rank,
                                 ", but has shape ", s.DebugString()));
  }
  return absl::OkStatus();
}

// Merges the lengths of vector inputs `inputs` (each must be rank 1); -1
// when none is known.
absl::Status MergedVectorLength(const InferenceContext* c,
                                std::initializer_list<int> inputs,
                                int64_t* length) {
  *length = -1;
  for (int i : inputs) {
    DFX_RETURN_IF_ERROR(c->WithRank(c->input(i), 1));
    DFX_RETURN_IF_ERROR(c->MergeDim(*length, KnownVectorLength(c, i), length));
  }
  return absl::OkStatus();
}

// Output 0 is the shape held by the 1-D int input i when it is constant
// (-1 entries unknown), else a shape of its length's rank.
absl::Status ShapeFromShapeInput(InferenceContext* c, int i) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(i), 1));
  std::vector<int64_t> dims;
  if (ConstantInts(c->input_tensor(i), &dims)) {
    for (int64_t& d : dims) {
      if (d < -1) {
        return c->Error(
            absl::StrCat("dimension ", d, " in the shape must be >= -1"));
      }
    }
    c->set_output(0, PartialShape::Known(std::move(dims)));
    return absl::OkStatus();
  }
  const int64_t n = KnownVectorLength(c, i);
  c->set_output(
      0, n >= 0 ? UnknownDims(static_cast<int>(n)) : PartialShape::Unknown());
  return absl::OkStatus();
}

absl::Status StridedSliceShapeFn(InferenceContext* c) {
  int64_t sparse_n = -1;
  DFX_RETURN_IF_ERROR(MergedVectorLength(c, {1, 2, 3}, &sparse_n));
  const PartialShape& input = c->input(0);
  std::vector<int64_t> strides;
  if (!input.RankKnown() || sparse_n < 0 ||
      !ConstantInts(c->input_tensor(3), &strides)) {
    c->set_output(0, PartialShape::Unknown());
    return absl::OkStatus();
  }
  std::vector<int64_t> begin, end;
  const bool begin_known = ConstantInts(c->input_tensor(1), &begin);
  const bool end_known = ConstantInts(c->input_tensor(2), &end);
  StridedSliceMasks masks;
  masks.begin_mask = static_cast<int32_t>(IntAttrOr(c, "begin_mask", 0));
  masks.end_mask = static_cast<int32_t>(IntAttrOr(c, "end_mask", 0));
  masks.ellipsis_mask = static_cast<int32_t>(IntAttrOr(c, "ellipsis_mask", 0));
  masks.new_axis_mask = static_cast<int32_t>(IntAttrOr(c, "new_axis_mask", 0));
  masks.shrink_axis_mask =
      static_cast<int32_t>(IntAttrOr(c, "shrink_axis_mask", 0));
  StridedSliceSpec spec;
  absl::Status s = ComputeStridedSliceSpec(
      input.dims, begin_known ? &begin : nullptr, end_known ? &end : nullptr,
      strides, masks, &spec);
  if (!s.ok()) return c->Error(s.message());
  c->set_output(0, PartialShape::Known(std::move(spec.final_dims)));
  return absl::OkStatus();
}

absl::Status StridedSliceGradShapeFn(InferenceContext* c) {
  // begin, end and strides index the sparse spec; shape has the input's
  // rank, which may differ.
  int64_t unused = -1;
  DFX_RETURN_IF_ERROR(MergedVectorLength(c, {1, 2, 3}, &unused));
  return ShapeFromShapeInput(c, 0);
}

absl::Status SliceShapeFn(InferenceContext* c) {
  int64_t n = -1;
  DFX_RETURN_IF_ERROR(MergedVectorLength(c, {1, 2}, &n));
  PartialShape input = c->input(0);
  if (n >= 0) {
    if (input.RankKnown() && input.rank() != n) {
      return c->Error(absl::StrCat("'begin' and 'size' have ", n,
                                   " elements but the input has rank ",
                                   input.rank()));
    }
  } else if (input.RankKnown()) {
    n = input.rank();
  }
  std::vector<int64_t> begin, size;
  const bool begin_known = ConstantInts(c->input_tensor(1), &begin);
  if (!ConstantInts(c->input_tensor(2), &size)) {
    c->set_output(
        0, n >= 0 ? UnknownDims(static_cast<int>(n)) : PartialShape::Unknown());
    return absl::OkStatus();
  }
  std::vector<int64_t> dims(size.size(), -1);
  for (size_t i = 0; i < size.size(); ++i) {
    if (size[i] >= 0) {
      dims[i] = size[i];
    } else if (size[i] != -1) {
      return c->Error(
          absl::StrCat("'size'[", i, "] must be >= -1, but is ", size[i]));
    } else if (begin_known && input.RankKnown() && input.dims[i] >= 0) {
      dims[i] = input.dims[i] - begin[i];
      if (dims[i] < 0) {
        return c->Error(absl::StrCat("'begin'[", i, "] = ", begin[i],
                                     " is past the end of dimension ", i,
                                     " of size ", input.dims[i]));
      }
    }
  }
  c->set_output(0, PartialShape::Known(std::move(dims)));
  return absl::OkStatus();
}

absl::Status TileShapeFn(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 1));
  const PartialShape& input = c->input(0);
  int64_t rank = KnownVectorLength(c, 1);
  if (input.RankKnown()) {
    if (rank >= 0 && rank != input.rank()) {
      return c->Error(
          absl::StrCat("Expected multiples argument to be a vector of length ",
                       input.rank(), " but got length ", rank));
    }
    rank = input.rank();
  }
  std::vector<int64_t> multiples;
  if (!ConstantInts(c->input_tensor(1), &multiples)) {
    c->set_output(0, rank >= 0 ? UnknownDims(static_cast<int>(rank))
                               : PartialShape::Unknown());
    return absl::OkStatus();
  }
  std::vector<int64_t> dims(multiples.size(), -1);
  for (size_t i = 0; i < multiples.size(); ++i) {
    const int64_t m = multiples[i];
    const int64_t d = input.RankKnown() ? input.dims[i] : -1;
    if (m == 0 || d == 0) {
      dims[i] = m < 0 ? -1 : 0;
    } else if (m > 0 && d > 0 && d <= INT64_MAX / m) {
      dims[i] = d * m;
    }
  }
  c->set_output(0, PartialShape::Known(std::move(dims)));
  return absl::OkStatus();
}

// Pad, PadV2, MirrorPad (sign 1) and MirrorPadGrad (sign -1): paddings is
// an [input rank, 2] matrix, and each output dim is the input's plus (minus)
// its two paddings.
absl::Status PaddedShape(InferenceContext* c, int sign) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 2));
  const PartialShape& paddings = c->input(1);
  int64_t rows = -1;
  if (paddings.RankKnown()) {
    int64_t cols = -1;
    DFX_RETURN_IF_ERROR(c->MergeDim(paddings.dims[1], 2, &cols));
    rows = paddings.dims[0];
  }
  const PartialShape& input = c->input(0);
  if (rows >= 0) {
    DFX_RETURN_IF_ERROR(c->WithRank(input, static_cast<int>(rows)));
  } else if (input.RankKnown()) {
    rows = input.rank();
  }
  std::vector<int64_t> pads;
  if (rows < 0 || !ConstantInts(c->input_tensor(1), &pads) ||
      static_cast<int64_t>(pads.size()) != 2 * rows) {
    c->set_output(0, rows >= 0 ? UnknownDims(static_cast<int>(rows))
                               : PartialShape::Unknown());
    return absl::OkStatus();
  }
  std::vector<int64_t> dims(rows, -1);
  for (int64_t i = 0; i < rows; ++i) {
    const int64_t before = pads[2 * i];
    const int64_t after = pads[2 * i + 1];
    if (before < 0 || after < 0) {
      return c->Error(
          absl::StrCat("Paddings must be non-negative: ", before, " ", after));
    }
    if (!input.RankKnown() || input.dims[i] < 0) continue;
    if (sign > 0) {
      dims[i] = input.dims[i] + before + after;
    } else if (before > input.dims[i] || after > input.dims[i] - before) {
      return c->Error(
          absl::StrCat("paddings ", before, " and ", after, " of dimension ", i,
                       " are larger than its size ", input.dims[i]));
    } else {
      dims[i] = input.dims[i] - before - after;
    }
  }
  c->set_output(0, PartialShape::Known(std::move(dims)));
  return absl::OkStatus();
}

absl::Status PadShapeFn(InferenceContext* c) { return PaddedShape(c, 1); }

absl::Status MirrorPadGradShapeFn(InferenceContext* c) {
  return PaddedShape(c, -1);
}

absl::Status ReverseShapeFn(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 1));
  const PartialShape& input = c->input(0);
  const PartialShape& dims = c->input(1);
  if (input.RankKnown() && dims.RankKnown() && dims.dims[0] >= 0 &&
      dims.dims[0] != input.rank()) {
    return c->Error(absl::StrCat(
        "'dims' must have the same number of values as 'input' has "
        "dimensions. 'input' has ",
        input.rank(), "'dims' has ", dims.dims[0], " values"));
  }
  c->set_output(0, input);
  return absl::OkStatus();
}

absl::Status ReverseSequenceShapeFn(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 1));
  PartialShape out = c->input(0);
  int64_t batch_dim = 0;
  DFX_RETURN_IF_ERROR(GetNodeAttr(c->node_def(), "batch_dim", &batch_dim));
  const PartialShape& lens = c->input(1);
  if (out.RankKnown() && lens.RankKnown() && batch_dim >= 0 &&
      batch_dim < out.rank()) {
    DFX_RETURN_IF_ERROR(
        c->MergeDim(out.dims[batch_dim], lens.dims[0], &out.dims[batch_dim]));
  }
  c->set_output(0, std::move(out));
  return absl::OkStatus();
}

absl::Status ReverseV2ShapeFn(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 1));
  const PartialShape& input = c->input(0);
  std::vector<int64_t> axes;
  if (input.RankKnown() && ConstantInts(c->input_tensor(1), &axes)) {
    const int64_t rank = input.rank();
    std::vector<bool> seen(rank, false);
    for (size_t i = 0; i < axes.size(); ++i) {
      const int64_t a = axes[i] < 0 ? axes[i] + rank : axes[i];
      if (a < 0 || a >= rank) {
        return c->Error(absl::StrCat("'axis'[", i, "] = ", axes[i],
                                     " is out of valid range [0, ", rank - 1,
                                     "]"));
      }
      if (seen[a]) {
        return c->Error(absl::StrCat("axis ", a, " specified more than once."));
      }
      seen[a] = true;
    }
  }
  c->set_output(0, input);
  return absl::OkStatus();
}

absl::Status BroadcastToShapeFn(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(ShapeFromShapeInput(c, 1));
  PartialShape out = c->output(0);
  const PartialShape& in = c->input(0);
  if (!out.RankKnown() || !in.RankKnown()) return absl::OkStatus();
  if (in.rank() > out.rank()) {
    return c->Error(absl::StrCat("Rank of input (", in.rank(),
                                 ") must be no greater than rank of output "
                                 "shape (",
                                 out.rank(), ")."));
  }
  for (int i = 0; i < in.rank(); ++i) {
    const int64_t d = in.dims[in.rank() - 1 - i];
    int64_t& o = out.dims[out.rank() - 1 - i];
    if (d > 1) {
      if (o >= 0 && o != d) {
        return c->Error(absl::StrCat("Incompatible shapes: ", in.DebugString(),
                                     " vs. ", out.DebugString()));
      }
      o = d;
    }
  }
  c->set_output(0, std::move(out));
  return absl::OkStatus();
}

// The constant axis of a scalar int32 input `i` made non-negative against
// `rank`: false when unknown (not constant, or rank unknown and negative).
absl::Status ConstantAxis(InferenceContext* c, int i, const PartialShape& s,
                          bool* known, int64_t* axis) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(i), 0));
  std::vector<int64_t> v;
  *known = false;
  if (!ConstantInts(c->input_tensor(i), &v) || v.size() != 1) {
    return absl::OkStatus();
  }
  *axis = v[0];
  if (!s.RankKnown()) return absl::OkStatus();
  const int64_t rank = s.rank();
  if (*axis < -rank || *axis >= rank) {
    return c->Error(absl::StrCat("-input rank(-", rank,
                                 ") <= split_dim < input rank (", rank,
                                 "), but got ", *axis));
  }
  if (*axis < 0) *axis += rank;
  *known = true;
  return absl::OkStatus();
}

absl::Status SplitShapeFn(InferenceContext* c) {
  const PartialShape& input = c->input(1);
  bool known = false;
  int64_t axis = 0;
  DFX_RETURN_IF_ERROR(ConstantAxis(c, 0, input, &known, &axis));
  const int n = c->num_outputs();
  PartialShape out =
      input.RankKnown() ? UnknownDims(input.rank()) : PartialShape::Unknown();
  if (known) {
    out = input;
    const int64_t d = input.dims[axis];
    if (d >= 0) {
      if (n == 0 || d % n != 0) {
        return c->Error(absl::StrCat(
            "Number of ways to split should evenly divide the split "
            "dimension, but got split_dim ",
            axis, " (size = ", d, ") and num_split ", n));
      }
      out.dims[axis] = d / n;
    }
  }
  for (int i = 0; i < n; ++i) c->set_output(i, out);
  return absl::OkStatus();
}

absl::Status SplitVShapeFn(InferenceContext* c) {
  const PartialShape& input = c->input(0);
  const int n = c->num_outputs();
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 1));
  bool known = false;
  int64_t axis = 0;
  DFX_RETURN_IF_ERROR(ConstantAxis(c, 2, input, &known, &axis));
  if (!input.RankKnown()) {
    for (int i = 0; i < n; ++i) c->set_output(i, PartialShape::Unknown());
    return absl::OkStatus();
  }
  if (input.rank() == 0) return c->Error("Can't split scalars");
  std::vector<int64_t> sizes;
  const bool sizes_known = ConstantInts(c->input_tensor(1), &sizes);
  if (!known) {
    for (int i = 0; i < n; ++i) c->set_output(i, UnknownDims(input.rank()));
    return absl::OkStatus();
  }
  if (!sizes_known) {
    PartialShape out = input;
    out.dims[axis] = -1;
    for (int i = 0; i < n; ++i) c->set_output(i, out);
    return absl::OkStatus();
  }
  if (static_cast<int64_t>(sizes.size()) != n) {
    return c->Error(
        absl::StrCat("Length of size_splits should be equal to "
                     "num_outputs, but is ",
                     sizes.size(), " and ", n));
  }
  int64_t total = 0;
  bool has_neg_one = false;
  bool other_negative = false;
  for (int64_t s : sizes) {
    if (s == -1) {
      if (has_neg_one) return c->Error("size_splits can only have one -1");
      has_neg_one = true;
    } else if (s < 0) {
      other_negative = true;  // the kernel reports it
    } else {
      total += s;
    }
  }
  const int64_t d = input.dims[axis];
  if (d >= 0 && !other_negative && (has_neg_one ? total > d : total != d)) {
    return c->Error(absl::StrCat("can't split axis of size ", d,
                                 " into pieces of size [",
                                 absl::StrJoin(sizes, ","), "]"));
  }
  for (int i = 0; i < n; ++i) {
    PartialShape out = input;
    int64_t size = sizes[i];
    if (size == -1) {
      size = (d >= 0 && !other_negative) ? d - total : -1;
    } else if (size < 0) {
      size = -1;
    }
    out.dims[axis] = size;
    c->set_output(i, std::move(out));
  }
  return absl::OkStatus();
}

absl::Status UnpackShapeFn(InferenceContext* c) {
  const PartialShape& input = c->input(0);
  const int n = c->num_outputs();
  PartialShape out = PartialShape::Unknown();
  if (input.RankKnown()) {
    const int64_t rank = input.rank();
    int64_t axis = IntAttrOr(c, "axis", 0);
    if (axis < -rank || axis >= rank) {
      return c->Error(absl::StrCat("Invalid axis: ", axis, "; must be in [",
                                   -rank, ",", rank, ")"));
    }
    if (axis < 0) axis += rank;
    if (input.dims[axis] >= 0 && input.dims[axis] != n) {
      return c->Error(absl::StrCat("Input shape axis ", axis, " must equal ", n,
                                   ", got shape ", input.DebugString()));
    }
    out = input;
    out.dims.erase(out.dims.begin() + axis);
  }
  for (int i = 0; i < n; ++i) c->set_output(i, out);
  return absl::OkStatus();
}

absl::Status RangeShapeFn(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(WithRankAtMost(c, 0, 1, "start"));
  DFX_RETURN_IF_ERROR(WithRankAtMost(c, 1, 1, "limit"));
  DFX_RETURN_IF_ERROR(WithRankAtMost(c, 2, 1, "delta"));
  std::vector<int64_t> start, limit, delta;
  if (!ConstantInts(c->input_tensor(0), &start) ||
      !ConstantInts(c->input_tensor(1), &limit) ||
      !ConstantInts(c->input_tensor(2), &delta) || start.size() != 1 ||
      limit.size() != 1 || delta.size() != 1) {
    c->set_output(0, PartialShape::Known({-1}));
    return absl::OkStatus();
  }
  const __int128 s = start[0], l = limit[0], d = delta[0];
  if (d == 0) return c->Error("Requires delta != 0");
  if (d > 0 && s > l) {
    return c->Error(absl::StrCat(
        "Requires start <= limit when delta > 0: ", start[0], "/", limit[0]));
  }
  if (d < 0 && s < l) {
    return c->Error(absl::StrCat(
        "Requires start >= limit when delta < 0: ", start[0], "/", limit[0]));
  }
  const __int128 span = l > s ? l - s : s - l;
  const __int128 step = d > 0 ? d : -d;
  c->set_output(
      0, PartialShape::Known({static_cast<int64_t>((span + step - 1) / step)}));
  return absl::OkStatus();
}

absl::Status LinSpaceShapeFn(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 0));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 0));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(2), 0));
  std::vector<int64_t> num;
  if (!ConstantInts(c->input_tensor(2), &num) || num.size() != 1) {
    c->set_output(0, PartialShape::Known({-1}));
    return absl::OkStatus();
  }
  if (num[0] <= 0) {
    return c->Error(absl::StrCat("Requires num > 0: ", num[0]));
  }
  c->set_output(0, PartialShape::Known({num[0]}));
  return absl::OkStatus();
}

constexpr char kMirrorPadMode[] = "mode: {'REFLECT', 'SYMMETRIC'}";

}  // namespace

absl::Status RegisterArrayIndexOps(OpRegistry* r) {
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("StridedSlice")
                                      .Input("input: T")
                                      .Input("begin: Index")
                                      .Input("end: Index")
                                      .Input("strides: Index")
                                      .Output("output: T")
                                      .Attr("T: type")
                                      .Attr("Index: {int16, int32, int64}")
                                      .Attr("begin_mask: int = 0")
                                      .Attr("end_mask: int = 0")
                                      .Attr("ellipsis_mask: int = 0")
                                      .Attr("new_axis_mask: int = 0")
                                      .Attr("shrink_axis_mask: int = 0")
                                      .SetShapeFn(StridedSliceShapeFn)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("StridedSliceGrad")
                                      .Input("shape: Index")
                                      .Input("begin: Index")
                                      .Input("end: Index")
                                      .Input("strides: Index")
                                      .Input("dy: T")
                                      .Output("output: T")
                                      .Attr("T: type")
                                      .Attr("Index: {int32, int64}")
                                      .Attr("begin_mask: int = 0")
                                      .Attr("end_mask: int = 0")
                                      .Attr("ellipsis_mask: int = 0")
                                      .Attr("new_axis_mask: int = 0")
                                      .Attr("shrink_axis_mask: int = 0")
                                      .SetShapeFn(StridedSliceGradShapeFn)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("Slice")
                                      .Input("input: T")
                                      .Input("begin: Index")
                                      .Input("size: Index")
                                      .Output("output: T")
                                      .Attr("T: type")
                                      .Attr("Index: {int32, int64}")
                                      .SetShapeFn(SliceShapeFn)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("Tile")
                      .Input("input: T")
                      .Input("multiples: Tmultiples")
                      .Output("output: T")
                      .Attr("T: type")
                      .Attr("Tmultiples: {int32, int64} = DT_INT32")
                      .SetShapeFn(TileShapeFn)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("Pad")
                      .Input("input: T")
                      .Input("paddings: Tpaddings")
                      .Output("output: T")
                      .Attr("T: type")
                      .Attr("Tpaddings: {int32, int64} = DT_INT32")
                      .SetShapeFn(PadShapeFn)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("PadV2")
                      .Input("input: T")
                      .Input("paddings: Tpaddings")
                      .Input("constant_values: T")
                      .Output("output: T")
                      .Attr("T: type")
                      .Attr("Tpaddings: {int32, int64} = DT_INT32")
                      .SetShapeFn(PadShapeFn)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("MirrorPad")
                      .Input("input: T")
                      .Input("paddings: Tpaddings")
                      .Output("output: T")
                      .Attr("T: type")
                      .Attr("Tpaddings: {int32, int64} = DT_INT32")
                      .Attr(kMirrorPadMode)
                      .SetShapeFn(PadShapeFn)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("MirrorPadGrad")
                      .Input("input: T")
                      .Input("paddings: Tpaddings")
                      .Output("output: T")
                      .Attr("T: type")
                      .Attr("Tpaddings: {int32, int64} = DT_INT32")
                      .Attr(kMirrorPadMode)
                      .SetShapeFn(MirrorPadGradShapeFn)));
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("ReverseV2")
          .Input("tensor: T")
          .Input("axis: Tidx")
          .Output("output: T")
          .Attr("Tidx: {int32, int64} = DT_INT32")
          .Attr("T: {uint8, int8, uint16, int16, int32, uint32, int64, "
                "uint64, bool, bfloat16, half, float, double, complex64, "
                "complex128, string}")
          .SetShapeFn(ReverseV2ShapeFn)));
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("Reverse")
          .Input("tensor: T")
          .Input("dims: bool")
          .Output("output: T")
          .Attr("T: {uint8, int8, uint16, int16, uint32, int32, uint64, "
                "int64, bool, bfloat16, half, float, double, complex64, "
                "complex128, string}")
          .SetShapeFn(ReverseShapeFn)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("ReverseSequence")
                      .Input("input: T")
                      .Input("seq_lengths: Tlen")
                      .Output("output: T")
                      .Attr("seq_dim: int")
                      .Attr("batch_dim: int = 0")
                      .Attr("T: type")
                      .Attr("Tlen: {int32, int64} = DT_INT64")
                      .SetShapeFn(ReverseSequenceShapeFn)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("BroadcastTo")
                                      .Input("input: T")
                                      .Input("shape: Tidx")
                                      .Output("output: T")
                                      .Attr("T: type")
                                      .Attr("Tidx: {int32, int64} = DT_INT32")
                                      .SetShapeFn(BroadcastToShapeFn)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("Size")
                      .Input("input: T")
                      .Output("output: out_type")
                      .Attr("T: type")
                      .Attr("out_type: {int32, int64} = DT_INT32")
                      .SetShapeFn(shape_fn::Scalar)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("Rank")
                                      .Input("input: T")
                                      .Output("output: int32")
                                      .Attr("T: type")
                                      .SetShapeFn(shape_fn::Scalar)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("Split")
                                      .Input("split_dim: int32")
                                      .Input("value: T")
                                      .Output("output: num_split * T")
                                      .Attr("num_split: int >= 1")
                                      .Attr("T: type")
                                      .SetShapeFn(SplitShapeFn)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("SplitV")
                      .Input("value: T")
                      .Input("size_splits: Tlen")
                      .Input("split_dim: int32")
                      .Output("output: num_split * T")
                      .Attr("num_split: int >= 1")
                      .Attr("T: type")
                      .Attr("Tlen: {int8, int32, int64} = DT_INT64")
                      .SetShapeFn(SplitVShapeFn)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("Unpack")
                                      .Input("value: T")
                                      .Output("output: num * T")
                                      .Attr("num: int >= 0")
                                      .Attr("T: type")
                                      .Attr("axis: int = 0")
                                      .SetShapeFn(UnpackShapeFn)));
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("Range")
          .Input("start: Tidx")
          .Input("limit: Tidx")
          .Input("delta: Tidx")
          .Output("output: Tidx")
          .Attr("Tidx: {bfloat16, half, float, double, int8, int16, int32, "
                "int64, uint16, uint32, uint64} = DT_INT32")
          .SetShapeFn(RangeShapeFn)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("LinSpace")
                      .Input("start: T")
                      .Input("stop: T")
                      .Input("num: Tidx")
                      .Output("output: T")
                      .Attr("T: {bfloat16, half, float, double}")
                      .Attr("Tidx: {int32, int64} = DT_INT32")
                      .SetShapeFn(LinSpaceShapeFn)));
  return absl::OkStatus();
}

}  // namespace dfx

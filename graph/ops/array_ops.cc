// Array ops: constants, placeholders, identities and the ops that reshape,
// reorder, join or fill tensors. Signatures follow TensorFlow's array_ops.cc.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/node_def_util.h"
#include "graph/ops/ops.h"

namespace dfx {
namespace {

absl::Status GetShapeAttr(InferenceContext* c, absl::string_view name,
                          PartialShape* out) {
  TensorShapeProto proto;
  DFX_RETURN_IF_ERROR(GetNodeAttr(c->node_def(), name, &proto));
  *out = PartialShape::FromProto(proto);
  return absl::OkStatus();
}

absl::Status ConstShapeFn(InferenceContext* c) {
  TensorProto value;
  DFX_RETURN_IF_ERROR(GetNodeAttr(c->node_def(), "value", &value));
  const PartialShape shape = PartialShape::FromProto(value.tensor_shape());
  if (!shape.FullyDefined()) {
    return c->Error(absl::StrCat("attr 'value' has a shape that is not fully "
                                 "defined: ",
                                 shape.DebugString()));
  }
  c->set_output(0, shape);
  return absl::OkStatus();
}

absl::Status PlaceholderShapeFn(InferenceContext* c) {
  PartialShape shape;
  if (FindNodeAttr(c->node_def(), "shape") != nullptr) {
    DFX_RETURN_IF_ERROR(GetShapeAttr(c, "shape", &shape));
  }
  c->set_output(0, shape);
  return absl::OkStatus();
}

absl::Status PlaceholderWithDefaultShapeFn(InferenceContext* c) {
  PartialShape shape;
  DFX_RETURN_IF_ERROR(GetShapeAttr(c, "shape", &shape));
  // The default must be a value the declared shape admits.
  PartialShape merged;
  DFX_RETURN_IF_ERROR(c->Merge(c->input(0), shape, &merged));
  c->set_output(0, shape);
  return absl::OkStatus();
}

// EnsureShape: the input merged with the declared shape.
absl::Status EnsureShapeShapeFn(InferenceContext* c) {
  PartialShape shape;
  DFX_RETURN_IF_ERROR(GetShapeAttr(c, "shape", &shape));
  PartialShape merged;
  DFX_RETURN_IF_ERROR(c->Merge(c->input(0), shape, &merged));
  c->set_output(0, std::move(merged));
  return absl::OkStatus();
}

absl::Status IdentityNShapeFn(InferenceContext* c) {
  for (int i = 0; i < c->num_outputs() && i < c->num_inputs(); ++i) {
    c->set_output(i, c->input(i));
  }
  return absl::OkStatus();
}

absl::Status ReshapeShapeFn(InferenceContext* c) {
  const PartialShape& in = c->input(0);
  std::vector<int64_t> target;
  if (!ConstantInts(c->input_tensor(1), &target)) {
    const PartialShape& shape_shape = c->input(1);
    if (shape_shape.RankKnown() && shape_shape.rank() == 1 &&
        shape_shape.dims[0] >= 0) {
      c->set_output(0, UnknownDims(static_cast<int>(shape_shape.dims[0])));
    } else {
      c->set_output(0, PartialShape::Unknown());
    }
    return absl::OkStatus();
  }
  int infer = -1;
  int64_t known_product = 1;
  for (int i = 0; i < static_cast<int>(target.size()); ++i) {
    if (target[i] == -1) {
      if (infer >= 0) {
        return c->Error(absl::StrCat("can only infer one dimension of the "
                                     "shape, but dims ",
                                     infer, " and ", i, " are both -1"));
      }
      infer = i;
    } else if (target[i] < 0) {
      return c->Error(absl::StrCat("size ", i, " of the requested shape is ",
                                   target[i], ", which is negative"));
    } else if (__builtin_mul_overflow(known_product, target[i],
                                      &known_product)) {
      return c->Error(absl::StrCat("the requested shape ",
                                   PartialShape::Known(target).DebugString(),
                                   " has too many elements"));
    }
  }
  PartialShape out = PartialShape::Known(target);
  if (in.FullyDefined()) {
    int64_t in_elems = 1;
    for (int64_t d : in.dims) {
      if (__builtin_mul_overflow(in_elems, d, &in_elems)) {
        return c->Error(absl::StrCat("the input shape ", in.DebugString(),
                                     " has too many elements"));
      }
    }
    if (infer >= 0) {
      if (known_product == 0 || in_elems % known_product != 0) {
        if (!(known_product == 0 && in_elems == 0)) {
          return c->Error(absl::StrCat(
              "cannot reshape a tensor with ", in_elems,
              " elements to shape ", out.DebugString(), " (", known_product,
              " elements times an inferred dim)"));
        }
        out.dims[infer] = -1;
      } else {
        out.dims[infer] = in_elems / known_product;
      }
    } else if (known_product != in_elems) {
      return c->Error(absl::StrCat("cannot reshape a tensor with ", in_elems,
                                   " elements to shape ", out.DebugString(),
                                   " (", known_product, " elements)"));
    }
  }
  c->set_output(0, std::move(out));
  return absl::OkStatus();
}

absl::Status ShapeShapeFn(InferenceContext* c) {
  const PartialShape& in = c->input(0);
  c->set_output(0, PartialShape::Known({in.RankKnown() ? in.rank() : -1}));
  return absl::OkStatus();
}

absl::Status ExpandDimsShapeFn(InferenceContext* c) {
  const PartialShape& in = c->input(0);
  std::vector<int64_t> dim;
  if (!in.RankKnown() || !ConstantInts(c->input_tensor(1), &dim)) {
    c->set_output(0, in.RankKnown() ? UnknownDims(in.rank() + 1)
                                    : PartialShape::Unknown());
    return absl::OkStatus();
  }
  if (dim.size() != 1) {
    return c->Error(absl::StrCat("'dim' must be a tensor with a single value, "
                                 "but has ",
                                 dim.size()));
  }
  const int64_t rank = in.rank();
  int64_t d = dim[0];
  if (d < -1 - rank || d > rank) {
    return c->Error(absl::StrCat("'dim' ", d, " is out of range [", -1 - rank,
                                 ", ", rank, "] for an input of rank ", rank));
  }
  if (d < 0) d += rank + 1;
  PartialShape out = in;
  out.dims.insert(out.dims.begin() + d, 1);
  c->set_output(0, std::move(out));
  return absl::OkStatus();
}

absl::Status SqueezeShapeFn(InferenceContext* c) {
  const PartialShape& in = c->input(0);
  std::vector<int64_t> squeeze_dims;
  if (FindNodeAttr(c->node_def(), "squeeze_dims") != nullptr) {
    DFX_RETURN_IF_ERROR(
        GetNodeAttr(c->node_def(), "squeeze_dims", &squeeze_dims));
  }
  if (!in.RankKnown()) {
    c->set_output(0, PartialShape::Unknown());
    return absl::OkStatus();
  }
  const int rank = in.rank();
  std::vector<bool> squeeze(rank, false);
  for (int64_t d : squeeze_dims) {
    if (d < -rank || d >= rank) {
      return c->Error(absl::StrCat("squeeze dim ", d, " is out of range [",
                                   -rank, ", ", rank, ") for an input of rank ",
                                   rank));
    }
    const int64_t w = d < 0 ? d + rank : d;
    if (in.dims[w] >= 0 && in.dims[w] != 1) {
      return c->Error(absl::StrCat("cannot squeeze dim ", d,
                                   ": expected a dimension of 1, got ",
                                   in.dims[w]));
    }
    squeeze[w] = true;
  }
  PartialShape out = PartialShape::Scalar();
  for (int i = 0; i < rank; ++i) {
    if (squeeze_dims.empty()) {
      if (in.dims[i] < 0) {
        // Whether this dim goes depends on its runtime size.
        c->set_output(0, PartialShape::Unknown());
        return absl::OkStatus();
      }
      if (in.dims[i] == 1) continue;
    } else if (squeeze[i]) {
      continue;
    }
    out.dims.push_back(in.dims[i]);
  }
  c->set_output(0, std::move(out));
  return absl::OkStatus();
}

absl::Status TransposeShapeFn(InferenceContext* c) {
  const PartialShape& in = c->input(0);
  std::vector<int64_t> perm;
  if (!ConstantInts(c->input_tensor(1), &perm)) {
    if (in.RankKnown()) {
      c->set_output(0, UnknownDims(in.rank()));
    } else if (c->input(1).RankKnown() && c->input(1).rank() == 1 &&
               c->input(1).dims[0] >= 0) {
      c->set_output(0, UnknownDims(static_cast<int>(c->input(1).dims[0])));
    } else {
      c->set_output(0, PartialShape::Unknown());
    }
    return absl::OkStatus();
  }
  const int rank = static_cast<int>(perm.size());
  if (in.RankKnown() && in.rank() != rank) {
    return c->Error(absl::StrCat("transpose expects a vector of size ",
                                 in.rank(), ", but 'perm' has size ", rank));
  }
  std::vector<bool> seen(rank, false);
  for (int64_t p : perm) {
    if (p < 0 || p >= rank || seen[p]) {
      return c->Error(absl::StrCat("'perm' is not a permutation of 0..",
                                   rank - 1));
    }
    seen[p] = true;
  }
  PartialShape out = UnknownDims(rank);
  if (in.RankKnown()) {
    for (int i = 0; i < rank; ++i) out.dims[i] = in.dims[perm[i]];
  }
  c->set_output(0, std::move(out));
  return absl::OkStatus();
}

// ConcatV2 (axis last, axis_first false) and Concat (axis first).
absl::Status ConcatShape(InferenceContext* c, bool axis_first) {
  const int n = c->num_inputs() - 1;
  const int base = axis_first ? 1 : 0;  // input index of the first value
  const int axis_input = axis_first ? 0 : n;
  int rank = -1;
  for (int i = 0; i < n; ++i) {
    if (c->input(base + i).RankKnown()) {
      if (rank >= 0 && c->input(base + i).rank() != rank) {
        return c->Error(absl::StrCat("input ", i, " has rank ",
                                     c->input(base + i).rank(), " but input 0..", i - 1,
                                     " have rank ", rank));
      }
      rank = c->input(base + i).rank();
    }
  }
  std::vector<int64_t> axis_value;
  if (rank < 0) {
    c->set_output(0, PartialShape::Unknown());
    return absl::OkStatus();
  }
  if (rank == 0) {
    return c->Error("cannot concatenate scalars (use Pack instead)");
  }
  if (!ConstantInts(c->input_tensor(axis_input), &axis_value) ||
      axis_value.size() != 1) {
    c->set_output(0, UnknownDims(rank));
    return absl::OkStatus();
  }
  int64_t axis = axis_value[0];
  if (axis < -rank || axis >= rank) {
    return c->Error(absl::StrCat("'axis' ", axis, " is out of range [", -rank,
                                 ", ", rank, ") for inputs of rank ", rank));
  }
  if (axis < 0) axis += rank;
  PartialShape out = UnknownDims(rank);
  int64_t axis_size = 0;
  for (int i = 0; i < n; ++i) {
    const PartialShape& s = c->input(base + i);
    if (!s.RankKnown()) {
      axis_size = -1;
      continue;
    }
    for (int d = 0; d < rank; ++d) {
      if (d == axis) continue;
      if (s.dims[d] >= 0 && out.dims[d] >= 0 && s.dims[d] != out.dims[d]) {
        return c->Error(absl::StrCat(
            "dimension ", d, " of input ", i, " is ", s.dims[d],
            " but earlier inputs have ", out.dims[d],
            " (inputs must agree on every dimension but the axis)"));
      }
      if (out.dims[d] < 0) out.dims[d] = s.dims[d];
    }
    if (axis_size >= 0) {
      axis_size = s.dims[axis] >= 0 ? axis_size + s.dims[axis] : -1;
    }
  }
  out.dims[axis] = axis_size;
  c->set_output(0, std::move(out));
  return absl::OkStatus();
}

// LowerBound and UpperBound: [batch, n] sorted rows and [batch, m] values
// give [batch, m].
absl::Status SearchSortedShapeFn(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 2));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 2));
  const PartialShape& sorted = c->input(0);
  PartialShape out = c->input(1);
  if (sorted.RankKnown() && out.RankKnown()) {
    DFX_RETURN_IF_ERROR(c->MergeDim(sorted.dims[0], out.dims[0], &out.dims[0]));
  }
  c->set_output(0, std::move(out));
  return absl::OkStatus();
}

// UnravelIndex: [len(dims)] for a scalar index, [len(dims), n] for n.
absl::Status UnravelIndexShapeFn(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 1));
  const PartialShape& indices = c->input(0);
  const PartialShape& dims = c->input(1);
  const int64_t rank = dims.RankKnown() ? dims.dims[0] : -1;
  if (!indices.RankKnown()) {
    c->set_output(0, PartialShape::Unknown());
  } else if (indices.rank() == 0) {
    c->set_output(0, PartialShape::Known({rank}));
  } else if (indices.rank() == 1) {
    c->set_output(0, PartialShape::Known({rank, indices.dims[0]}));
  } else {
    return c->Error("Indices must be a scalar or a vector");
  }
  return absl::OkStatus();
}

absl::Status ConcatV2ShapeFn(InferenceContext* c) {
  return ConcatShape(c, /*axis_first=*/false);
}

absl::Status ConcatShapeFn(InferenceContext* c) {
  return ConcatShape(c, /*axis_first=*/true);
}

absl::Status PackShapeFn(InferenceContext* c) {
  int64_t axis = 0;
  if (FindNodeAttr(c->node_def(), "axis") != nullptr) {
    DFX_RETURN_IF_ERROR(GetNodeAttr(c->node_def(), "axis", &axis));
  }
  PartialShape merged = PartialShape::Unknown();
  for (int i = 0; i < c->num_inputs(); ++i) {
    PartialShape next;
    absl::Status s = c->Merge(merged, c->input(i), &next);
    if (!s.ok()) {
      return c->Error(absl::StrCat(
          "shapes of all inputs must match: input ", i, " has shape ",
          c->input(i).DebugString(), " but earlier inputs have ",
          merged.DebugString()));
    }
    merged = std::move(next);
  }
  if (!merged.RankKnown()) {
    c->set_output(0, PartialShape::Unknown());
    return absl::OkStatus();
  }
  const int64_t rank = merged.rank();
  if (axis < -(rank + 1) || axis > rank) {
    return c->Error(absl::StrCat("'axis' ", axis, " is out of range [",
                                 -(rank + 1), ", ", rank + 1,
                                 ") for inputs of rank ", rank));
  }
  if (axis < 0) axis += rank + 1;
  merged.dims.insert(merged.dims.begin() + axis, c->num_inputs());
  c->set_output(0, std::move(merged));
  return absl::OkStatus();
}

absl::Status FillShapeFn(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 1));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 0));
  std::vector<int64_t> dims;
  if (ConstantInts(c->input_tensor(0), &dims)) {
    for (int64_t d : dims) {
      if (d < 0) {
        return c->Error(absl::StrCat("'dims' must be non-negative, but has ",
                                     d));
      }
    }
    c->set_output(0, PartialShape::Known(std::move(dims)));
  } else if (c->input(0).RankKnown() && c->input(0).dims[0] >= 0) {
    c->set_output(0, UnknownDims(static_cast<int>(c->input(0).dims[0])));
  } else {
    c->set_output(0, PartialShape::Unknown());
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status RegisterArrayOps(OpRegistry* r) {
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("Const")
                                      .Output("output: dtype")
                                      .Attr("value: tensor")
                                      .Attr("dtype: type")
                                      .SetShapeFn(ConstShapeFn)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("Placeholder")
                      .Output("output: dtype")
                      .Attr("dtype: type")
                      .Attr("shape: shape = { unknown_rank: true }")
                      .SetShapeFn(PlaceholderShapeFn)));
  {
    // Placeholder before version 23, with a shape that must be given.
    DFX_ASSIGN_OR_RETURN(OpRegistrationData data,
                         OpDefBuilder("PlaceholderV2")
                             .Output("output: dtype")
                             .Attr("dtype: type")
                             .Attr("shape: shape")
                             .SetShapeFn(PlaceholderShapeFn)
                             .Finalize());
    data.op_def.mutable_deprecation()->set_version(23);
    data.op_def.mutable_deprecation()->set_explanation(
        "Placeholder now behaves the same as PlaceholderV2.");
    DFX_RETURN_IF_ERROR(r->Register(std::move(data)));
  }
  // A Const whose output lives in host memory (what dfx's CPU tensors do
  // anyway); no constant folding treats it as a Const.
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("HostConst")
                                      .Output("output: dtype")
                                      .Attr("value: tensor")
                                      .Attr("dtype: type")
                                      .SetShapeFn(ConstShapeFn)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("PlaceholderWithDefault")
                      .Input("input: dtype")
                      .Output("output: dtype")
                      .Attr("dtype: type")
                      .Attr("shape: shape")
                      .SetShapeFn(PlaceholderWithDefaultShapeFn)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("Identity")
                                      .Input("input: T")
                                      .Output("output: T")
                                      .Attr("T: type")
                                      .SetShapeFn(shape_fn::UnchangedShape)));
  // Identity under other names: gradients stop at StopGradient and fail at
  // PreventGradient when built, which concerns graph builders, not kernels.
  for (const char* name : {"StopGradient", "Snapshot"}) {
    DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder(name)
                                        .Input("input: T")
                                        .Output("output: T")
                                        .Attr("T: type")
                                        .SetShapeFn(shape_fn::UnchangedShape)));
  }
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("PreventGradient")
                                      .Input("input: T")
                                      .Output("output: T")
                                      .Attr("T: type")
                                      .Attr("message: string = ''")
                                      .SetShapeFn(shape_fn::UnchangedShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("EnsureShape")
                                      .Input("input: T")
                                      .Output("output: T")
                                      .Attr("shape: shape")
                                      .Attr("T: type")
                                      .SetShapeFn(EnsureShapeShapeFn)));
  for (const char* name : {"CheckNumerics", "CheckNumericsV2"}) {
    DFX_RETURN_IF_ERROR(
        r->Register(OpDefBuilder(name)
                        .Input("tensor: T")
                        .Output("output: T")
                        .Attr("T: {bfloat16, half, float, double}")
                        .Attr("message: string")
                        .SetIsStateful()
                        .SetShapeFn(shape_fn::UnchangedShape)));
  }
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("IdentityN")
                                      .Input("input: T")
                                      .Output("output: T")
                                      .Attr("T: list(type)")
                                      .SetShapeFn(IdentityNShapeFn)));
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("NoOp").SetShapeFn(shape_fn::Unknown)));

  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("Reshape")
                      .Input("tensor: T")
                      .Input("shape: Tshape")
                      .Output("output: T")
                      .Attr("T: type")
                      .Attr("Tshape: {int32, int64} = DT_INT32")
                      .SetShapeFn(ReshapeShapeFn)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("Shape")
                      .Input("input: T")
                      .Output("output: out_type")
                      .Attr("T: type")
                      .Attr("out_type: {int32, int64} = DT_INT32")
                      .SetShapeFn(ShapeShapeFn)));
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("ShapeN")
          .Input("input: N * T")
          .Output("output: N * out_type")
          .Attr("N: int >= 1")
          .Attr("T: type")
          .Attr("out_type: {int32, int64} = DT_INT32")
          .SetShapeFn([](InferenceContext* c) {
            for (int i = 0; i < c->num_outputs() && i < c->num_inputs(); ++i) {
              const PartialShape& in = c->input(i);
              c->set_output(i, PartialShape::Known(
                                   {in.RankKnown() ? in.rank() : -1}));
            }
            return absl::OkStatus();
          })));
  // The offsets of each input of a ConcatV2 along concat_dim (its gradient
  // slices them out).
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("ConcatOffset")
          .Input("concat_dim: int32")
          .Input("shape: N * shape_type")
          .Output("offset: N * shape_type")
          .Attr("N: int >= 2")
          .Attr("shape_type: {int32, int64} = DT_INT32")
          .SetShapeFn([](InferenceContext* c) {
            for (int i = 0; i + 1 < c->num_inputs() && i < c->num_outputs();
                 ++i) {
              c->set_output(i, c->input(i + 1));
            }
            return absl::OkStatus();
          })));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("ExpandDims")
                      .Input("input: T")
                      .Input("dim: Tdim")
                      .Output("output: T")
                      .Attr("T: type")
                      .Attr("Tdim: {int32, int64} = DT_INT32")
                      .SetShapeFn(ExpandDimsShapeFn)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("Squeeze")
                      .Input("input: T")
                      .Output("output: T")
                      .Attr("T: type")
                      .Attr("squeeze_dims: list(int) >= 0 = []")
                      .SetShapeFn(SqueezeShapeFn)));
  // ConjugateTranspose also conjugates complex elements.
  for (const char* name : {"Transpose", "ConjugateTranspose"}) {
    DFX_RETURN_IF_ERROR(
        r->Register(OpDefBuilder(name)
                        .Input("x: T")
                        .Input("perm: Tperm")
                        .Output("y: T")
                        .Attr("T: type")
                        .Attr("Tperm: {int32, int64} = DT_INT32")
                        .SetShapeFn(TransposeShapeFn)));
  }
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("ConcatV2")
                      .Input("values: N * T")
                      .Input("axis: Tidx")
                      .Output("output: T")
                      .Attr("N: int >= 2")
                      .Attr("T: type")
                      .Attr("Tidx: {int32, int64} = DT_INT32")
                      .SetShapeFn(ConcatV2ShapeFn)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("Concat")
                      .Input("concat_dim: int32")
                      .Input("values: N * T")
                      .Output("output: T")
                      .Attr("N: int >= 2")
                      .Attr("T: type")
                      .SetShapeFn(ConcatShapeFn)));
  for (const char* name : {"LowerBound", "UpperBound"}) {
    DFX_RETURN_IF_ERROR(
        r->Register(OpDefBuilder(name)
                        .Input("sorted_inputs: T")
                        .Input("values: T")
                        .Output("output: out_type")
                        .Attr("T: type")
                        .Attr("out_type: {int32, int64} = DT_INT32")
                        .SetShapeFn(SearchSortedShapeFn)));
  }
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("UnravelIndex")
                      .Input("indices: Tidx")
                      .Input("dims: Tidx")
                      .Output("output: Tidx")
                      .Attr("Tidx: {int32, int64} = DT_INT32")
                      .SetShapeFn(UnravelIndexShapeFn)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("Pack")
                                      .Input("values: N * T")
                                      .Output("output: T")
                                      .Attr("N: int >= 1")
                                      .Attr("T: type")
                                      .Attr("axis: int = 0")
                                      .SetShapeFn(PackShapeFn)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("Fill")
                      .Input("dims: index_type")
                      .Input("value: T")
                      .Output("output: T")
                      .Attr("T: type")
                      .Attr("index_type: {int32, int64} = DT_INT32")
                      .SetShapeFn(FillShapeFn)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("ZerosLike")
                                      .Input("x: T")
                                      .Output("y: T")
                                      .Attr("T: type")
                                      .SetShapeFn(shape_fn::UnchangedShape)));
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("OnesLike")
          .Input("x: T")
          .Output("y: T")
          .Attr("T: {bfloat16, half, float, double, int8, uint8, int16, "
                "uint16, int32, uint32, int64, uint64, complex64, complex128, "
                "bool}")
          .SetShapeFn(shape_fn::UnchangedShape)));
  return absl::OkStatus();
}

}  // namespace dfx

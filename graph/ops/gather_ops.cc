// Gather, scatter, segment, one-hot, where, top-k, arg-max and cumulative ops
// with their shape functions. Signatures follow TensorFlow 2.21; shape
// functions reject at import only what TensorFlow's reject, and leave
// unknown what depends on values not known then.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/node_def_util.h"
#include "graph/ops/ops.h"
#include "graph/ops/scatter_shape.h"

namespace dfx {
namespace {

// InvalidArgument when the rank of `shape` is known and below `rank`.
absl::Status WithRankAtLeast(InferenceContext* c, const PartialShape& shape,
                             int64_t rank) {
  if (shape.RankKnown() && shape.rank() < rank) {
    return c->Error(absl::StrCat("shape must be at least rank ", rank,
                                 " but is rank ", shape.rank(), " (",
                                 shape.DebugString(), ")"));
  }
  return absl::OkStatus();
}

// dims [begin, end) of a shape of known rank.
std::vector<int64_t> SubDims(const PartialShape& s, int begin, int end) {
  return std::vector<int64_t>(s.dims.begin() + begin, s.dims.begin() + end);
}

// a followed by b; unknown when either rank is unknown.
PartialShape Concat(const PartialShape& a, const PartialShape& b) {
  if (!a.RankKnown() || !b.RankKnown()) return PartialShape::Unknown();
  PartialShape out = a;
  out.dims.insert(out.dims.end(), b.dims.begin(), b.dims.end());
  return out;
}

// The value of a scalar (or one-element) constant integer input, if known.
bool ConstantScalar(InferenceContext* c, int input, int64_t* value) {
  std::vector<int64_t> v;
  if (!ConstantInts(c->input_tensor(input), &v) || v.size() != 1) {
    return false;
  }
  *value = v[0];
  return true;
}

int64_t IntAttrOr(InferenceContext* c, const char* name, int64_t fallback) {
  const AttrValue* v = FindNodeAttr(c->node_def(), name);
  return v != nullptr ? v->i() : fallback;
}

// Merges the first `prefix.rank()` dims of `shape` with `prefix`; InvalidArgument
// naming both when they disagree.
absl::Status MergePrefix(InferenceContext* c, const PartialShape& shape,
                         const PartialShape& prefix, const char* shape_name,
                         const char* prefix_name) {
  if (!shape.RankKnown() || !prefix.RankKnown()) return absl::OkStatus();
  bool ok = shape.rank() >= prefix.rank();
  for (int i = 0; ok && i < prefix.rank(); ++i) {
    ok = shape.dims[i] < 0 || prefix.dims[i] < 0 ||
         shape.dims[i] == prefix.dims[i];
  }
  if (!ok) {
    return c->Error(absl::StrCat(shape_name, ".shape = ", shape.DebugString(),
                                 " does not start with ", prefix_name,
                                 ".shape = ", prefix.DebugString()));
  }
  return absl::OkStatus();
}

absl::Status GatherV2ShapeFn(InferenceContext* c) {
  const PartialShape& params = c->input(0);
  const PartialShape& indices = c->input(1);
  DFX_RETURN_IF_ERROR(WithRankAtLeast(c, params, 1));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(2), 0));
  int64_t batch_dims = IntAttrOr(c, "batch_dims", 0);
  if (batch_dims < 0) {
    if (!indices.RankKnown()) {
      c->set_output(0, PartialShape::Unknown());
      return absl::OkStatus();
    }
    batch_dims += indices.rank();
    if (batch_dims < 0) {
      return c->Error(absl::StrCat("batch_dims ", batch_dims - indices.rank(),
                                   " is out of range for indices of rank ",
                                   indices.rank()));
    }
  }
  if (indices.RankKnown() && batch_dims > indices.rank()) {
    return c->Error(absl::StrCat("batch_dims (", batch_dims,
                                 ") must be at most rank(indices) (",
                                 indices.rank(), ")"));
  }
  int64_t axis = 0;
  if (!ConstantScalar(c, 2, &axis)) {
    if (params.RankKnown() && indices.RankKnown()) {
      c->set_output(0, UnknownDims(static_cast<int>(
                           params.rank() + indices.rank() - 1 - batch_dims)));
    } else {
      c->set_output(0, PartialShape::Unknown());
    }
    return absl::OkStatus();
  }
  // In int64: an axis near the int64 limits must not wrap to a small rank.
  const int64_t need =
      axis < 0 ? (axis == std::numeric_limits<int64_t>::min()
                      ? std::numeric_limits<int64_t>::max()
                      : -axis)
               : (axis == std::numeric_limits<int64_t>::max() ? axis
                                                              : axis + 1);
  DFX_RETURN_IF_ERROR(WithRankAtLeast(c, params, need));
  if (batch_dims > 0 && params.RankKnown() && batch_dims >= params.rank()) {
    return c->Error(absl::StrCat("batch_dims (", batch_dims,
                                 ") must be less than rank(params) (",
                                 params.rank(), ")"));
  }
  if (!params.RankKnown() || !indices.RankKnown()) {
    c->set_output(0, PartialShape::Unknown());
    return absl::OkStatus();
  }
  if (axis < 0) axis += params.rank();
  if (batch_dims > axis) {
    return c->Error(absl::StrCat("batch_dims (", batch_dims,
                                 ") must be less than or equal to axis (",
                                 axis, ")"));
  }
  PartialShape out = PartialShape::Known(SubDims(params, 0, axis));
  const std::vector<int64_t> mid =
      SubDims(indices, static_cast<int>(batch_dims), indices.rank());
  out.dims.insert(out.dims.end(), mid.begin(), mid.end());
  const std::vector<int64_t> tail =
      SubDims(params, static_cast<int>(axis) + 1, params.rank());
  out.dims.insert(out.dims.end(), tail.begin(), tail.end());
  c->set_output(0, std::move(out));
  return absl::OkStatus();
}

absl::Status GatherShapeFn(InferenceContext* c) {
  const PartialShape& params = c->input(0);
  DFX_RETURN_IF_ERROR(WithRankAtLeast(c, params, 1));
  if (!params.RankKnown()) {
    c->set_output(0, PartialShape::Unknown());
    return absl::OkStatus();
  }
  c->set_output(0, Concat(c->input(1), PartialShape::Known(SubDims(
                                           params, 1, params.rank()))));
  return absl::OkStatus();
}

absl::Status GatherNdShapeFn(InferenceContext* c) {
  const PartialShape& params = c->input(0);
  const PartialShape& indices = c->input(1);
  DFX_RETURN_IF_ERROR(WithRankAtLeast(c, indices, 1));
  if (!indices.RankKnown() || indices.dims.back() < 0) {
    c->set_output(0, PartialShape::Unknown());
    return absl::OkStatus();
  }
  const int64_t k = indices.dims.back();
  if (params.RankKnown() && k > params.rank()) {
    return c->Error(absl::StrCat(
        "indices.shape[-1] must be <= params.rank, but saw indices shape: ",
        indices.DebugString(), " and params shape: ", params.DebugString()));
  }
  if (!params.RankKnown()) {
    c->set_output(0, PartialShape::Unknown());
    return absl::OkStatus();
  }
  c->set_output(
      0, Concat(PartialShape::Known(SubDims(indices, 0, indices.rank() - 1)),
                PartialShape::Known(
                    SubDims(params, static_cast<int>(k), params.rank()))));
  return absl::OkStatus();
}

absl::Status ScatterNdShapeFn(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(2), 1));
  std::vector<int64_t> shape;
  PartialShape out;
  if (ConstantInts(c->input_tensor(2), &shape)) {
    for (int64_t d : shape) {
      if (d < 0) {
        return c->Error(absl::StrCat("Dimension ", d, " must be >= 0"));
      }
    }
    out = PartialShape::Known(std::move(shape));
  } else if (c->input(2).RankKnown() && c->input(2).dims[0] >= 0) {
    out = UnknownDims(static_cast<int>(c->input(2).dims[0]));
  }
  DFX_RETURN_IF_ERROR(CheckScatterShapes(c, c->input(0), c->input(1), out));
  c->set_output(0, std::move(out));
  return absl::OkStatus();
}

absl::Status TensorScatterShapeFn(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(
      CheckScatterShapes(c, c->input(1), c->input(2), c->input(0)));
  c->set_output(0, c->input(0));
  return absl::OkStatus();
}

absl::Status OneHotShapeFn(InferenceContext* c) {
  const int64_t axis = IntAttrOr(c, "axis", -1);
  if (axis < -1) {
    return c->Error(absl::StrCat("axis must be >= -1, got ", axis));
  }
  const PartialShape& indices = c->input(0);
  // An axis past the rank fails at run time, as in TensorFlow.
  if (!indices.RankKnown() || axis > indices.rank()) {
    c->set_output(0, PartialShape::Unknown());
    return absl::OkStatus();
  }
  int64_t depth = -1;
  if (ConstantScalar(c, 1, &depth) && depth < 0) {
    return c->Error(absl::StrCat("depth must be non-negative, got: ", depth));
  }
  PartialShape out = indices;
  out.dims.insert(out.dims.begin() + (axis == -1 ? indices.rank() : axis),
                  depth);
  c->set_output(0, std::move(out));
  return absl::OkStatus();
}

absl::Status WhereShapeFn(InferenceContext* c) {
  const PartialShape& in = c->input(0);
  c->set_output(0, PartialShape::Known({-1, in.RankKnown() ? in.rank() : -1}));
  return absl::OkStatus();
}

absl::Status TopKShapeFn(InferenceContext* c) {
  const PartialShape& in = c->input(0);
  DFX_RETURN_IF_ERROR(WithRankAtLeast(c, in, 1));
  int64_t k = -1;
  if (ConstantScalar(c, 1, &k) && k < 0) {
    return c->Error(absl::StrCat("Need k >= 0, got ", k));
  }
  if (!in.RankKnown()) {
    c->set_output(0, PartialShape::Unknown());
    c->set_output(1, PartialShape::Unknown());
    return absl::OkStatus();
  }
  const int64_t last = in.dims.back();
  if (k >= 0 && last >= 0 && last < k) {
    return c->Error(absl::StrCat("input must have last dimension >= k = ", k,
                                 " but is ", last));
  }
  PartialShape out = in;
  out.dims.back() = k;
  c->set_output(0, out);
  c->set_output(1, std::move(out));
  return absl::OkStatus();
}

absl::Status ArgOpShapeFn(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 0));
  const PartialShape& in = c->input(0);
  if (!in.RankKnown()) {
    c->set_output(0, PartialShape::Unknown());
    return absl::OkStatus();
  }
  const int rank = in.rank();
  // A scalar or vector reduces to a scalar; a bad dimension fails at run
  // time, as in TensorFlow.
  if (rank <= 1) {
    c->set_output(0, PartialShape::Scalar());
    return absl::OkStatus();
  }
  int64_t dim = 0;
  if (!ConstantScalar(c, 1, &dim)) {
    c->set_output(0, UnknownDims(rank - 1));
    return absl::OkStatus();
  }
  if (dim < -rank || dim >= rank) {
    return c->Error(absl::StrCat("Dimension (", dim,
                                 ") must be in the range [", -rank, ", ", rank,
                                 "), where ", rank,
                                 " is the number of dimensions in the input."));
  }
  if (dim < 0) dim += rank;
  PartialShape out = in;
  out.dims.erase(out.dims.begin() + dim);
  c->set_output(0, std::move(out));
  return absl::OkStatus();
}

absl::Status ScanShapeFn(InferenceContext* c) {
  c->set_output(0, c->input(0));
  return absl::OkStatus();
}

absl::Status UnsortedSegmentShapeFn(InferenceContext* c) {
  const PartialShape& data = c->input(0);
  const PartialShape& ids = c->input(1);
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(2), 0));
  DFX_RETURN_IF_ERROR(MergePrefix(c, data, ids, "data", "segment_ids"));
  int64_t num_segments = -1;
  if (ConstantScalar(c, 2, &num_segments) && num_segments < 0) {
    return c->Error(absl::StrCat("Input num_segments == ", num_segments,
                                 " must not be negative."));
  }
  if (!data.RankKnown() || !ids.RankKnown()) {
    c->set_output(0, PartialShape::Unknown());
    return absl::OkStatus();
  }
  PartialShape out = PartialShape::Known({num_segments});
  const std::vector<int64_t> tail = SubDims(data, ids.rank(), data.rank());
  out.dims.insert(out.dims.end(), tail.begin(), tail.end());
  c->set_output(0, std::move(out));
  return absl::OkStatus();
}

absl::Status SegmentShapeFn(InferenceContext* c) {
  const PartialShape& data = c->input(0);
  DFX_RETURN_IF_ERROR(WithRankAtLeast(c, data, 1));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 1));
  if (!data.RankKnown()) {
    c->set_output(0, PartialShape::Unknown());
    return absl::OkStatus();
  }
  int64_t merged = 0;
  DFX_RETURN_IF_ERROR(c->MergeDim(
      data.dims[0], c->input(1).RankKnown() ? c->input(1).dims[0] : -1,
      &merged));
  PartialShape out = data;
  out.dims[0] = -1;
  c->set_output(0, std::move(out));
  return absl::OkStatus();
}

absl::Status DynamicStitchShapeFn(InferenceContext* c) {
  const int n = c->num_inputs() / 2;
  bool all_constant = true;
  int64_t max_index = -1;
  PartialShape extra = PartialShape::Unknown();  // data[i].shape[rank(indices[i]):]
  for (int i = 0; i < n; ++i) {
    std::vector<int64_t> values;
    if (ConstantInts(c->input_tensor(i), &values)) {
      for (int64_t v : values) max_index = std::max(max_index, v);
    } else {
      all_constant = false;
    }
    const PartialShape& indices = c->input(i);
    const PartialShape& data = c->input(n + i);
    if (!indices.RankKnown() || !data.RankKnown()) continue;
    DFX_RETURN_IF_ERROR(MergePrefix(c, data, indices,
                                    absl::StrCat("data[", i, "]").c_str(),
                                    absl::StrCat("indices[", i, "]").c_str()));
    const PartialShape rest =
        PartialShape::Known(SubDims(data, indices.rank(), data.rank()));
    PartialShape next;
    absl::Status s = c->Merge(extra, rest, &next);
    if (!s.ok()) {
      return c->Error(absl::StrCat(
          "Need data[0].shape[rank(indices[0]):] = data[", i,
          "].shape[rank(indices[", i, "]):], got ", extra.DebugString(),
          " and ", rest.DebugString()));
    }
    extra = std::move(next);
  }
  c->set_output(0, Concat(PartialShape::Known(
                              {all_constant ? max_index + 1 : int64_t{-1}}),
                          extra));
  return absl::OkStatus();
}

absl::Status DynamicPartitionShapeFn(InferenceContext* c) {
  const PartialShape& data = c->input(0);
  const PartialShape& partitions = c->input(1);
  DFX_RETURN_IF_ERROR(
      MergePrefix(c, data, partitions, "data", "partitions"));
  PartialShape out = PartialShape::Unknown();
  if (data.RankKnown() && partitions.RankKnown()) {
    out = Concat(PartialShape::Known({-1}),
                 PartialShape::Known(
                     SubDims(data, partitions.rank(), data.rank())));
  }
  for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, out);
  return absl::OkStatus();
}

absl::Status UniqueShapeFn(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 1));
  c->set_output(0, PartialShape::Known({-1}));
  c->set_output(1, c->input(0).RankKnown() ? c->input(0)
                                           : PartialShape::Known({-1}));
  return absl::OkStatus();
}

absl::Status InvertPermutationShapeFn(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 1));
  c->set_output(0, c->input(0).RankKnown() ? c->input(0)
                                           : PartialShape::Known({-1}));
  return absl::OkStatus();
}

absl::Status BroadcastGradientArgsShapeFn(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 1));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 1));
  c->set_output(0, PartialShape::Known({-1}));
  c->set_output(1, PartialShape::Known({-1}));
  return absl::OkStatus();
}

// TensorFlow's type sets, spelled as its OpDefs list them.
constexpr char kRealTypes[] =
    "{float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, "
    "uint32, uint64}";
constexpr char kNumberTypes[] =
    "{float, double, int32, uint8, int16, int8, complex64, int64, qint8, "
    "quint8, qint32, bfloat16, qint16, quint16, uint16, complex128, half, "
    "uint32, uint64}";

}  // namespace

absl::Status CheckScatterShapes(InferenceContext* c,
                                const PartialShape& indices,
                                const PartialShape& updates,
                                const PartialShape& output) {
  DFX_RETURN_IF_ERROR(WithRankAtLeast(c, indices, 1));
  if (!indices.RankKnown() || !updates.RankKnown() || !output.RankKnown()) {
    return absl::OkStatus();
  }
  const int outer = indices.rank() - 1;
  const int64_t k = indices.dims.back();
  if (k >= 0 && k > output.rank()) {
    return c->Error(absl::StrCat("the last dimension of indices (", k,
                                 ") must be at most the rank of the output (",
                                 output.rank(), ")"));
  }
  auto mismatch = [&] {
    return c->Error(absl::StrCat(
        "updates has shape ", updates.DebugString(), " but indices has shape ",
        indices.DebugString(), " and the output has shape ",
        output.DebugString(),
        ": updates must have shape indices.shape[:-1] + "
        "output.shape[indices.shape[-1]:]"));
  };
  if (updates.rank() < outer) return mismatch();
  for (int i = 0; i < outer; ++i) {
    if (updates.dims[i] >= 0 && indices.dims[i] >= 0 &&
        updates.dims[i] != indices.dims[i]) {
      return mismatch();
    }
  }
  if (k < 0) return absl::OkStatus();
  if (updates.rank() - outer != output.rank() - k) return mismatch();
  for (int i = 0; i < updates.rank() - outer; ++i) {
    const int64_t u = updates.dims[outer + i];
    const int64_t o = output.dims[k + i];
    if (u >= 0 && o >= 0 && u != o) return mismatch();
  }
  return absl::OkStatus();
}

absl::Status RegisterGatherOps(OpRegistry* r) {
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("GatherV2")
                      .Input("params: Tparams")
                      .Input("indices: Tindices")
                      .Input("axis: Taxis")
                      .Output("output: Tparams")
                      .Attr("batch_dims: int = 0")
                      .Attr("Tparams: type")
                      .Attr("Tindices: {int16, int32, int64}")
                      .Attr("Taxis: {int32, int64}")
                      .SetShapeFn(GatherV2ShapeFn)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("Gather")
                      .Input("params: Tparams")
                      .Input("indices: Tindices")
                      .Output("output: Tparams")
                      .Attr("validate_indices: bool = true")
                      .Attr("Tparams: type")
                      .Attr("Tindices: {int32, int64}")
                      .SetShapeFn(GatherShapeFn)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("GatherNd")
                      .Input("params: Tparams")
                      .Input("indices: Tindices")
                      .Output("output: Tparams")
                      .Attr("Tparams: type")
                      .Attr("Tindices: {int16, int32, int64}")
                      .Attr("bad_indices_policy: string = ''")
                      .SetShapeFn(GatherNdShapeFn)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("ScatterNd")
                      .Input("indices: Tindices")
                      .Input("updates: T")
                      .Input("shape: Tindices")
                      .Output("output: T")
                      .Attr("T: type")
                      .Attr("Tindices: {int16, int32, int64}")
                      .Attr("bad_indices_policy: string = ''")
                      .SetShapeFn(ScatterNdShapeFn)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("TensorScatterUpdate")
                      .Input("tensor: T")
                      .Input("indices: Tindices")
                      .Input("updates: T")
                      .Output("output: T")
                      .Attr("T: type")
                      .Attr("Tindices: {int16, int32, int64, uint16}")
                      .Attr("bad_indices_policy: string = ''")
                      .SetShapeFn(TensorScatterShapeFn)));
  for (const char* op : {"TensorScatterAdd", "TensorScatterSub",
                         "TensorScatterMin", "TensorScatterMax"}) {
    DFX_RETURN_IF_ERROR(
        r->Register(OpDefBuilder(op)
                        .Input("tensor: T")
                        .Input("indices: Tindices")
                        .Input("updates: T")
                        .Output("output: T")
                        .Attr("T: type")
                        .Attr("Tindices: {int32, int64}")
                        .Attr("bad_indices_policy: string = ''")
                        .SetShapeFn(TensorScatterShapeFn)));
  }
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("OneHot")
                      .Input("indices: TI")
                      .Input("depth: int32")
                      .Input("on_value: T")
                      .Input("off_value: T")
                      .Output("output: T")
                      .Attr("axis: int = -1")
                      .Attr("T: type")
                      .Attr("TI: {uint8, int8, int32, int64} = DT_INT64")
                      .SetShapeFn(OneHotShapeFn)));
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("Where")
          .Input("input: T")
          .Output("index: int64")
          .Attr("T: {float, double, int32, uint8, int16, int8, complex64, "
                "int64, qint8, quint8, qint32, bfloat16, qint16, quint16, "
                "uint16, complex128, half, uint32, uint64, bool} = DT_BOOL")
          .SetShapeFn(WhereShapeFn)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("TopKV2")
                      .Input("input: T")
                      .Input("k: Tk")
                      .Output("values: T")
                      .Output("indices: index_type")
                      .Attr("sorted: bool = true")
                      .Attr(absl::StrCat("T: ", kRealTypes))
                      .Attr("Tk: {int16, int32, int64} = DT_INT32")
                      .Attr("index_type: {int16, int32, int64} = DT_INT32")
                      .SetShapeFn(TopKShapeFn)));
  const std::string arg_types = absl::StrCat(
      "T: {float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, "
      "half, uint32, uint64, qint8, quint8, qint32, qint16, quint16, bool}");
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("ArgMax")
                      .Input("input: T")
                      .Input("dimension: Tidx")
                      .Output("output: output_type")
                      .Attr(arg_types)
                      .Attr("Tidx: {int16, int32, int64} = DT_INT32")
                      .Attr("output_type: {int16, uint16, int32, int64} = "
                            "DT_INT64")
                      .SetShapeFn(ArgOpShapeFn)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("ArgMin")
                      .Input("input: T")
                      .Input("dimension: Tidx")
                      .Output("output: output_type")
                      .Attr(arg_types)
                      .Attr("Tidx: {int32, int64} = DT_INT32")
                      .Attr("output_type: {int32, int64} = DT_INT64")
                      .SetShapeFn(ArgOpShapeFn)));
  for (const char* name : {"Cumsum", "Cumprod"}) {
    DFX_RETURN_IF_ERROR(
        r->Register(OpDefBuilder(name)
                        .Input("x: T")
                        .Input("axis: Tidx")
                        .Output("out: T")
                        .Attr("exclusive: bool = false")
                        .Attr("reverse: bool = false")
                        .Attr(absl::StrCat("T: ", kNumberTypes))
                        .Attr("Tidx: {int32, int64} = DT_INT32")
                        .SetShapeFn(ScanShapeFn)));
  }
  struct SegmentOp {
    const char* name;
    const char* types;
    const char* index_types;
  };
  for (const SegmentOp& op :
       {SegmentOp{"UnsortedSegmentSum", kNumberTypes, "{int16, int32, int64}"},
        SegmentOp{"UnsortedSegmentMax", kRealTypes, "{int32, int64}"},
        SegmentOp{"UnsortedSegmentMin", kRealTypes, "{int32, int64}"},
        SegmentOp{"UnsortedSegmentProd", kNumberTypes, "{int32, int64}"}}) {
    DFX_RETURN_IF_ERROR(
        r->Register(OpDefBuilder(op.name)
                        .Input("data: T")
                        .Input("segment_ids: Tindices")
                        .Input("num_segments: Tnumsegments")
                        .Output("output: T")
                        .Attr(absl::StrCat("T: ", op.types))
                        .Attr(absl::StrCat("Tindices: ", op.index_types))
                        .Attr("Tnumsegments: {int32, int64} = DT_INT32")
                        .SetShapeFn(UnsortedSegmentShapeFn)));
  }
  for (const SegmentOp& op : {SegmentOp{"SegmentSum", kNumberTypes, ""},
                              SegmentOp{"SegmentMean", kNumberTypes, ""},
                              SegmentOp{"SegmentProd", kNumberTypes, ""},
                              SegmentOp{"SegmentMax", kRealTypes, ""},
                              SegmentOp{"SegmentMin", kRealTypes, ""}}) {
    DFX_RETURN_IF_ERROR(
        r->Register(OpDefBuilder(op.name)
                        .Input("data: T")
                        .Input("segment_ids: Tindices")
                        .Output("output: T")
                        .Attr(absl::StrCat("T: ", op.types))
                        .Attr("Tindices: {int32, int64}")
                        .SetShapeFn(SegmentShapeFn)));
  }
  for (const char* name : {"DynamicStitch", "ParallelDynamicStitch"}) {
    DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder(name)
                                        .Input("indices: N * int32")
                                        .Input("data: N * T")
                                        .Output("merged: T")
                                        .Attr("N: int >= 1")
                                        .Attr("T: type")
                                        .SetShapeFn(DynamicStitchShapeFn)));
  }
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("DynamicPartition")
                      .Input("data: T")
                      .Input("partitions: int32")
                      .Output("outputs: num_partitions * T")
                      .Attr("num_partitions: int >= 1")
                      .Attr("T: type")
                      .SetShapeFn(DynamicPartitionShapeFn)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("Unique")
                      .Input("x: T")
                      .Output("y: T")
                      .Output("idx: out_idx")
                      .Attr("T: type")
                      .Attr("out_idx: {int32, int64} = DT_INT32")
                      .SetShapeFn(UniqueShapeFn)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("InvertPermutation")
                      .Input("x: T")
                      .Output("y: T")
                      .Attr("T: {int32, int64} = DT_INT32")
                      .SetShapeFn(InvertPermutationShapeFn)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("BroadcastGradientArgs")
                      .Input("s0: T")
                      .Input("s1: T")
                      .Output("r0: T")
                      .Output("r1: T")
                      .Attr("T: {int32, int64} = DT_INT32")
                      .SetShapeFn(BroadcastGradientArgsShapeFn)));
  return absl::OkStatus();
}

}  // namespace dfx

#include "graph/shape_inference.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace dfx {

PartialShape PartialShape::FromProto(const TensorShapeProto& proto) {
  if (proto.unknown_rank()) return Unknown();
  PartialShape s = Scalar();
  for (const auto& d : proto.dim()) s.dims.push_back(d.size() < 0 ? -1 : d.size());
  return s;
}

bool PartialShape::FullyDefined() const {
  if (unknown_rank) return false;
  return std::all_of(dims.begin(), dims.end(), [](int64_t d) { return d >= 0; });
}

std::string PartialShape::DebugString() const {
  if (unknown_rank) return "<unknown>";
  return absl::StrCat(
      "[",
      absl::StrJoin(dims, ",",
                    [](std::string* out, int64_t d) {
                      absl::StrAppend(out, d < 0 ? std::string("?")
                                                 : absl::StrCat(d));
                    }),
      "]");
}

InferenceContext::InferenceContext(const NodeDef& node_def,
                                   const OpDef& op_def,
                                   std::vector<PartialShape> input_shapes,
                                   std::vector<const TensorProto*> input_tensors,
                                   int num_outputs)
    : node_def_(node_def),
      op_def_(op_def),
      inputs_(std::move(input_shapes)),
      input_tensors_(std::move(input_tensors)),
      outputs_(num_outputs) {
  input_tensors_.resize(inputs_.size(), nullptr);
}

absl::Status InferenceContext::Error(absl::string_view message) const {
  return absl::InvalidArgumentError(absl::StrCat(
      "node '", node_def_.name(), "' (op ", node_def_.op(), "): ", message));
}

absl::Status InferenceContext::MergeDim(int64_t a, int64_t b,
                                        int64_t* out) const {
  if (a >= 0 && b >= 0 && a != b) {
    return Error(absl::StrCat("dimensions must be equal, but are ", a,
                              " and ", b));
  }
  *out = a >= 0 ? a : b;
  return absl::OkStatus();
}

absl::Status InferenceContext::Merge(const PartialShape& a,
                                     const PartialShape& b,
                                     PartialShape* out) const {
  if (a.unknown_rank) {
    *out = b;
    return absl::OkStatus();
  }
  if (b.unknown_rank) {
    *out = a;
    return absl::OkStatus();
  }
  if (a.rank() != b.rank()) {
    return Error(absl::StrCat("shapes ", a.DebugString(), " and ",
                              b.DebugString(), " have different ranks"));
  }
  PartialShape result = PartialShape::Scalar();
  result.dims.resize(a.rank());
  for (int i = 0; i < a.rank(); ++i) {
    if (a.dims[i] >= 0 && b.dims[i] >= 0 && a.dims[i] != b.dims[i]) {
      return Error(absl::StrCat("shapes ", a.DebugString(), " and ",
                                b.DebugString(), " are incompatible"));
    }
    result.dims[i] = a.dims[i] >= 0 ? a.dims[i] : b.dims[i];
  }
  *out = std::move(result);
  return absl::OkStatus();
}

absl::Status InferenceContext::BroadcastBinary(const PartialShape& a,
                                               const PartialShape& b,
                                               PartialShape* out) const {
  if (a.unknown_rank || b.unknown_rank) {
    *out = PartialShape::Unknown();
    return absl::OkStatus();
  }
  const int rank = std::max(a.rank(), b.rank());
  PartialShape result = PartialShape::Scalar();
  result.dims.resize(rank);
  for (int i = 0; i < rank; ++i) {
    const int ia = a.rank() - rank + i;
    const int ib = b.rank() - rank + i;
    const int64_t da = ia >= 0 ? a.dims[ia] : 1;
    const int64_t db = ib >= 0 ? b.dims[ib] : 1;
    if (da == 1) {
      result.dims[i] = db;
    } else if (db == 1) {
      result.dims[i] = da;
    } else if (da < 0 || db < 0) {
      result.dims[i] = da < 0 ? db : da;
    } else if (da == db) {
      result.dims[i] = da;
    } else {
      return Error(absl::StrCat("incompatible shapes for broadcasting: ",
                                a.DebugString(), " and ", b.DebugString()));
    }
  }
  *out = std::move(result);
  return absl::OkStatus();
}

absl::Status InferenceContext::WithRank(const PartialShape& shape,
                                        int rank) const {
  if (shape.RankKnown() && shape.rank() != rank) {
    return Error(absl::StrCat("shape must be rank ", rank, " but is rank ",
                              shape.rank(), " (", shape.DebugString(), ")"));
  }
  return absl::OkStatus();
}

bool ConstantInts(const TensorProto* proto, std::vector<int64_t>* values) {
  if (proto == nullptr) return false;
  if (proto->dtype() != DT_INT32 && proto->dtype() != DT_INT64) return false;
  const PartialShape shape = PartialShape::FromProto(proto->tensor_shape());
  if (!shape.FullyDefined()) return false;
  int64_t n = 1;
  for (int64_t d : shape.dims) {
    if (d > (int64_t{1} << 30) || n > (int64_t{1} << 30)) return false;
    n *= d;
  }
  values->clear();
  const bool is32 = proto->dtype() == DT_INT32;
  const size_t width = is32 ? 4 : 8;
  if (!proto->tensor_content().empty()) {
    const std::string& bytes = proto->tensor_content();
    if (bytes.size() != static_cast<size_t>(n) * width) return false;
    for (int64_t i = 0; i < n; ++i) {
      if (is32) {
        int32_t v;
        std::memcpy(&v, bytes.data() + i * width, width);
        values->push_back(v);
      } else {
        int64_t v;
        std::memcpy(&v, bytes.data() + i * width, width);
        values->push_back(v);
      }
    }
    return true;
  }
  const int count = is32 ? proto->int_val_size() : proto->int64_val_size();
  if (count > n || (count == 0 && n > 0)) return false;
  for (int64_t i = 0; i < n; ++i) {
    const int j = static_cast<int>(i < count ? i : count - 1);
    values->push_back(is32 ? proto->int_val(j) : proto->int64_val(j));
  }
  return true;
}

PartialShape UnknownDims(int rank) {
  return PartialShape::Known(std::vector<int64_t>(rank, -1));
}

namespace shape_fn {

absl::Status Unknown(InferenceContext* c) {
  for (int i = 0; i < c->num_outputs(); ++i) {
    c->set_output(i, PartialShape::Unknown());
  }
  return absl::OkStatus();
}

absl::Status UnchangedShape(InferenceContext* c) {
  c->set_output(0, c->input(0));
  return absl::OkStatus();
}

absl::Status BroadcastBinaryOp(InferenceContext* c) {
  PartialShape out;
  absl::Status s = c->BroadcastBinary(c->input(0), c->input(1), &out);
  if (!s.ok()) return s;
  c->set_output(0, std::move(out));
  return absl::OkStatus();
}

absl::Status Scalar(InferenceContext* c) {
  c->set_output(0, PartialShape::Scalar());
  return absl::OkStatus();
}

}  // namespace shape_fn
}  // namespace dfx

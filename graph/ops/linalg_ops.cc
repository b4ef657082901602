// BatchMatMul (V1, V2, V3) and Einsum with their shape functions.
// Signatures follow TensorFlow 2.21's math_ops.cc and linalg_ops.cc.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/node_def_util.h"
#include "graph/ops/einsum_equation.h"
#include "graph/ops/ops.h"

namespace dfx {
namespace {

// Output of x @ y for inputs of rank >= 2: the batch dims (equal for V1,
// broadcast for V2/V3) followed by [rows of op(x), cols of op(y)].
absl::Status BatchMatMulShape(InferenceContext* c, bool broadcast) {
  const PartialShape& x = c->input(0);
  const PartialShape& y = c->input(1);
  for (int i = 0; i < 2; ++i) {
    const PartialShape& s = c->input(i);
    if (s.RankKnown() && s.rank() < 2) {
      return c->Error(absl::StrCat("In[", i, "] ndims must be >= 2: ",
                                   s.rank()));
    }
  }
  bool adj_x = false;
  bool adj_y = false;
  DFX_RETURN_IF_ERROR(GetNodeAttr(c->node_def(), "adj_x", &adj_x));
  DFX_RETURN_IF_ERROR(GetNodeAttr(c->node_def(), "adj_y", &adj_y));
  if (!broadcast && x.RankKnown() && y.RankKnown() && x.rank() != y.rank()) {
    return c->Error(absl::StrCat("In[0] and In[1] has different ndims: ",
                                 x.DebugString(), " vs. ", y.DebugString()));
  }
  if (!x.RankKnown() || !y.RankKnown()) {
    // The batch rank is unknown; the matrix dims still may be known, but a
    // PartialShape cannot say so without a rank.
    c->set_output(0, PartialShape::Unknown());
    return absl::OkStatus();
  }
  const int xr = x.rank();
  const int yr = y.rank();
  const int64_t m = x.dims[adj_x ? xr - 1 : xr - 2];
  const int64_t kx = x.dims[adj_x ? xr - 2 : xr - 1];
  const int64_t ky = y.dims[adj_y ? yr - 1 : yr - 2];
  const int64_t n = y.dims[adj_y ? yr - 2 : yr - 1];
  if (kx >= 0 && ky >= 0 && kx != ky) {
    return c->Error(absl::StrCat("Matrix size-incompatible: In[0]: ",
                                 x.DebugString(), ", In[1]: ",
                                 y.DebugString()));
  }
  const PartialShape xb = PartialShape::Known(
      std::vector<int64_t>(x.dims.begin(), x.dims.end() - 2));
  const PartialShape yb = PartialShape::Known(
      std::vector<int64_t>(y.dims.begin(), y.dims.end() - 2));
  PartialShape out;
  if (broadcast) {
    absl::Status s = c->BroadcastBinary(xb, yb, &out);
    if (!s.ok()) {
      return c->Error(absl::StrCat(
          "In[0] and In[1] must have compatible batch dimensions: ",
          x.DebugString(), " vs. ", y.DebugString()));
    }
  } else {
    out = xb;
    for (int i = 0; i < xr - 2; ++i) {
      const int64_t a = xb.dims[i];
      const int64_t b = yb.dims[i];
      if (a >= 0 && b >= 0 && a != b) {
        return c->Error(absl::StrCat("In[0].dim(", i, ") and In[1].dim(", i,
                                     ") must be the same: ", x.DebugString(),
                                     " vs ", y.DebugString()));
      }
      out.dims[i] = a >= 0 ? a : b;
    }
  }
  out.dims.push_back(m);
  out.dims.push_back(n);
  c->set_output(0, std::move(out));
  return absl::OkStatus();
}

absl::Status EinsumShape(InferenceContext* c) {
  std::string equation;
  DFX_RETURN_IF_ERROR(GetNodeAttr(c->node_def(), "equation", &equation));
  auto eq = ParseEinsumEquation(equation, c->num_inputs());
  if (!eq.ok()) return c->Error(eq.status().message());
  std::vector<int> ranks;
  for (int i = 0; i < c->num_inputs(); ++i) {
    if (!c->input(i).RankKnown()) {
      // Without the ranks the ellipsis dims are unknown; the output rank is
      // known when the output has no ellipsis.
      if (!EinsumEquation::HasEllipsis(eq->output)) {
        c->set_output(0, UnknownDims(static_cast<int>(eq->output.size())));
      } else {
        c->set_output(0, PartialShape::Unknown());
      }
      return absl::OkStatus();
    }
    ranks.push_back(c->input(i).rank());
  }
  auto r = ResolveEinsum(*eq, ranks);
  if (!r.ok()) return c->Error(r.status().message());
  // Each named label must have one size; a broadcast (ellipsis) label takes
  // its size other than 1, when there is one.
  std::vector<int64_t> size(r->num_labels, 1);
  std::vector<bool> unknown(r->num_labels, false);
  std::vector<bool> seen(r->num_labels, false);
  for (int i = 0; i < c->num_inputs(); ++i) {
    const PartialShape& s = c->input(i);
    for (int d = 0; d < s.rank(); ++d) {
      const int label = r->inputs[i][d];
      const int64_t dim = s.dims[d];
      const bool broadcast = label >= r->num_named;
      if (dim < 0) {
        unknown[label] = true;
        continue;
      }
      if (broadcast && dim == 1) continue;
      if (seen[label] && size[label] != dim) {
        return c->Error(absl::StrCat(
            "Dimensions must be equal, but are ", size[label], " and ", dim,
            " for label '",
            broadcast ? std::string("...")
                      : std::string(1, eq->letters[label]),
            "' of equation '", equation, "'"));
      }
      seen[label] = true;
      size[label] = dim;
    }
  }
  for (int label = 0; label < r->num_labels; ++label) {
    if (!seen[label] && unknown[label]) size[label] = -1;
  }
  PartialShape out = PartialShape::Scalar();
  for (int label : r->output) {
    out.dims.push_back(size[label]);
  }
  c->set_output(0, std::move(out));
  return absl::OkStatus();
}

constexpr char kV1Types[] =
    "T: {bfloat16, half, float, double, int32, int64, complex64, "
    "complex128}";
constexpr char kV2Types[] =
    "T: {bfloat16, half, float, double, int16, int32, int64, uint8, uint16, "
    "uint32, uint64, complex64, complex128}";
constexpr char kV3InTypes[] =
    "{bfloat16, half, float, double, uint8, int8, int16, int32, int64, "
    "complex64, complex128}";
constexpr char kV3OutTypes[] =
    "{bfloat16, half, float, double, int16, int32, int64, complex64, "
    "complex128}";

OpDefBuilder& AdjAttrs(OpDefBuilder& b) {
  return b.Attr("adj_x: bool = false")
      .Attr("adj_y: bool = false")
      .Attr("grad_x: bool = false")
      .Attr("grad_y: bool = false");
}

}  // namespace

absl::Status RegisterLinalgOps(OpRegistry* registry) {
  {
    OpDefBuilder b("BatchMatMul");
    b.Input("x: T").Input("y: T").Output("output: T").Attr(kV1Types);
    AdjAttrs(b).SetShapeFn(
        [](InferenceContext* c) { return BatchMatMulShape(c, false); });
    DFX_RETURN_IF_ERROR(registry->Register(b));
  }
  {
    OpDefBuilder b("BatchMatMulV2");
    b.Input("x: T").Input("y: T").Output("output: T").Attr(kV2Types);
    AdjAttrs(b).SetShapeFn(
        [](InferenceContext* c) { return BatchMatMulShape(c, true); });
    DFX_RETURN_IF_ERROR(registry->Register(b));
  }
  {
    OpDefBuilder b("BatchMatMulV3");
    b.Input("x: Ta")
        .Input("y: Tb")
        .Output("output: Tout")
        .Attr(absl::StrCat("Ta: ", kV3InTypes))
        .Attr(absl::StrCat("Tb: ", kV3InTypes))
        .Attr(absl::StrCat("Tout: ", kV3OutTypes));
    AdjAttrs(b).SetShapeFn(
        [](InferenceContext* c) { return BatchMatMulShape(c, true); });
    DFX_RETURN_IF_ERROR(registry->Register(b));
  }
  DFX_RETURN_IF_ERROR(registry->Register(OpDefBuilder("Einsum")
                                             .Input("inputs: N * T")
                                             .Output("output: T")
                                             .Attr("equation: string")
                                             .Attr("N: int >= 1")
                                             .Attr("T: type")
                                             .SetShapeFn(EinsumShape)));
  return absl::OkStatus();
}

}  // namespace dfx

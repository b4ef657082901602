// The xla2 family: TensorFlow's XLA reduction, sort and loop ops of
// tensorflow/compiler/tf2xla/ops/xla_ops.cc, as jax2tf exports them
// (XlaReduce, XlaVariadicReduce, XlaVariadicReduceV2, XlaReduceWindow,
// XlaSelectAndScatter, XlaSort, XlaKeyValueSort, XlaVariadicSort, XlaWhile,
// XlaRngBitGenerator).
// Signatures and shape functions follow TensorFlow 2.21. XlaWhile is
// lowered as While (graph/lower_functional_ops.h).
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/node_def_util.h"
#include "graph/ops/ops.h"

namespace dfx {
namespace {

constexpr char kNumberOrBool[] =
    "T: {float, double, int32, uint8, int16, int8, complex64, int64, qint8, "
    "quint8, qint32, bfloat16, qint16, quint16, uint16, complex128, half, "
    "uint32, uint64, bool}";
constexpr char kNumber[] =
    "T: {float, double, int32, uint8, int16, int8, complex64, int64, qint8, "
    "quint8, qint32, bfloat16, qint16, quint16, uint16, complex128, half, "
    "uint32, uint64}";

// The rank of the first `n` inputs merged, dims unknown where they differ;
// unknown rank when none is known.
absl::Status MergedInputs(InferenceContext* c, int n, PartialShape* out) {
  *out = c->input(0);
  for (int i = 1; i < n; ++i) {
    PartialShape merged;
    DFX_RETURN_IF_ERROR(c->Merge(*out, c->input(i), &merged));
    *out = std::move(merged);
  }
  return absl::OkStatus();
}

// XlaReduce and its variadic forms: the input's shape without the reduced
// dims (V2 keeps the known dims; the others, as TensorFlow's, only the
// rank). `n` outputs.
absl::Status ReduceShape(InferenceContext* c, int n, const char* op,
                         bool keep_dims) {
  PartialShape in;
  DFX_RETURN_IF_ERROR(MergedInputs(c, n, &in));
  if (!in.RankKnown()) {
    for (int i = 0; i < n; ++i) {
      c->set_output(i, keep_dims ? PartialShape::Unknown() : c->input(i));
    }
    return absl::OkStatus();
  }
  std::vector<int64_t> dims;
  DFX_RETURN_IF_ERROR(
      GetNodeAttr(c->node_def(), "dimensions_to_reduce", &dims));
  const std::set<int64_t> set(dims.begin(), dims.end());
  bool bad = set.size() != dims.size() ||
             static_cast<int64_t>(dims.size()) > in.rank();
  for (int64_t d : dims) bad |= d < 0 || d >= in.rank();
  if (bad) {
    return c->Error(
        absl::StrCat("Invalid dimensions_to_reduce argument to ", op));
  }
  PartialShape out = UnknownDims(in.rank() - static_cast<int>(dims.size()));
  if (keep_dims) {
    out.dims.clear();
    for (int d = 0; d < in.rank(); ++d) {
      if (!set.contains(d)) out.dims.push_back(in.dims[d]);
    }
  }
  for (int i = 0; i < n; ++i) c->set_output(i, out);
  return absl::OkStatus();
}

// XlaRngBitGenerator: the key has the initial state's shape; the output the
// shape the shape input holds, when it is a constant.
absl::Status RngBitGeneratorShape(InferenceContext* c) {
  c->set_output(0, c->input(1));
  std::vector<int64_t> dims;
  if (ConstantInts(c->input_tensor(2), &dims)) {
    for (int64_t d : dims) {
      if (d < 0)
        return c->Error(absl::StrCat("Dimension ", d, " must be >= 0"));
    }
    c->set_output(1, PartialShape::Known(std::move(dims)));
  } else if (c->input(2).RankKnown() && c->input(2).rank() == 1 &&
             c->input(2).dims[0] >= 0) {
    c->set_output(1, UnknownDims(static_cast<int>(c->input(2).dims[0])));
  } else {
    c->set_output(1, PartialShape::Unknown());
  }
  return absl::OkStatus();
}

absl::Status UnchangedRank(InferenceContext* c) {
  c->set_output(0, c->input(0).RankKnown() ? UnknownDims(c->input(0).rank())
                                           : c->input(0));
  return absl::OkStatus();
}

}  // namespace

absl::Status RegisterXla2Ops(OpRegistry* r) {
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("XlaReduce")
                                      .Input("input: T")
                                      .Input("init_value: T")
                                      .Output("output: T")
                                      .Attr(kNumberOrBool)
                                      .Attr("dimensions_to_reduce: list(int)")
                                      .Attr("reducer: func")
                                      .SetShapeFn([](InferenceContext* c) {
                                        return ReduceShape(c, 1, "XlaReduce",
                                                           false);
                                      })));
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("XlaVariadicReduce")
          .Input("input: N * T")
          .Input("init_value: N * T")
          .Output("output: N * T")
          .Attr("N: int >= 1")
          .Attr(kNumberOrBool)
          .Attr("dimensions_to_reduce: list(int)")
          .Attr("reducer: func")
          .SetShapeFn([](InferenceContext* c) {
            return ReduceShape(c, c->num_outputs(), "XlaVariadicReduce", false);
          })));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("XlaVariadicReduceV2")
                                      .Input("inputs: T")
                                      .Input("init_values: T")
                                      .Output("outputs: T")
                                      .Attr("T: list(type) >= 1")
                                      .Attr("dimensions_to_reduce: list(int)")
                                      .Attr("reducer: func")
                                      .SetShapeFn([](InferenceContext* c) {
                                        return ReduceShape(
                                            c, c->num_outputs(),
                                            "XlaVariadicReduceV2", true);
                                      })));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("XlaReduceWindow")
                                      .Input("input: T")
                                      .Input("init_value: T")
                                      .Input("window_dimensions: Tindices")
                                      .Input("window_strides: Tindices")
                                      .Input("base_dilations: Tindices")
                                      .Input("window_dilations: Tindices")
                                      .Input("padding: Tindices")
                                      .Output("output: T")
                                      .Attr(kNumberOrBool)
                                      .Attr("Tindices: {int32, int64}")
                                      .Attr("computation: func")
                                      .SetShapeFn(UnchangedRank)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("XlaSelectAndScatter")
                                      .Input("operand: T")
                                      .Input("window_dimensions: Tindices")
                                      .Input("window_strides: Tindices")
                                      .Input("padding: Tindices")
                                      .Input("source: T")
                                      .Input("init_value: T")
                                      .Output("output: T")
                                      .Attr(kNumber)
                                      .Attr("Tindices: {int32, int64}")
                                      .Attr("select: func")
                                      .Attr("scatter: func")
                                      .SetShapeFn(UnchangedRank)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("XlaSort")
                                      .Input("input: T")
                                      .Output("output: T")
                                      .Attr("T: type")
                                      .SetShapeFn(shape_fn::UnchangedShape)));
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("XlaKeyValueSort")
          .Input("keys: K")
          .Input("values: V")
          .Output("sorted_keys: K")
          .Output("sorted_values: V")
          .Attr("K: {float, double, int32, uint8, int16, int8, int64, "
                "bfloat16, uint16, half, uint32, uint64}")
          .Attr("V: type")
          .SetShapeFn([](InferenceContext* c) {
            c->set_output(0, c->input(0));
            c->set_output(1, c->input(1));
            return absl::OkStatus();
          })));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("XlaVariadicSort")
                                      .Input("inputs: T")
                                      .Input("dimension: int32")
                                      .Output("outputs: T")
                                      .Attr("T: list(type) >= 1")
                                      .Attr("comparator: func")
                                      .Attr("is_stable: bool")
                                      .SetShapeFn([](InferenceContext* c) {
                                        for (int i = 0; i < c->num_outputs();
                                             ++i) {
                                          c->set_output(i, c->input(i));
                                        }
                                        return absl::OkStatus();
                                      })));
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("XlaRngBitGenerator")
          .Input("algorithm: int32")
          .Input("initial_state: uint64")
          .Input("shape: Tshape")
          .Output("output_key: uint64")
          .Output("output: dtype")
          .Attr("dtype: {uint8, int8, int32, int64, uint32, uint64} = "
                "DT_UINT64")
          .Attr("Tshape: {int32, int64} = DT_INT32")
          .SetShapeFn(RngBitGeneratorShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("XlaWhile")
                                      .Input("input: T")
                                      .Output("output: T")
                                      .Attr("T: list(type) >= 0")
                                      .Attr("cond: func")
                                      .Attr("body: func")
                                      .SetIsStateful()
                                      .SetShapeFn(shape_fn::Unknown)));
  return absl::OkStatus();
}

}  // namespace dfx

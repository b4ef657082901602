// Bit ops: BitwiseAnd, BitwiseOr, BitwiseXor, Invert, LeftShift,
// RightShift, PopulationCount, Bitcast, and the shape op BroadcastArgs.
// Signatures follow TensorFlow 2.21's bitwise_ops.cc and array_ops.cc.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/node_def_util.h"
#include "graph/ops/ops.h"
#include "graph/types.h"

namespace dfx {
namespace {

constexpr char kIntTypes[] =
    "T: {int8, int16, int32, int64, uint8, uint16, uint32, uint64}";
constexpr char kBitcastTypes[] =
    "{bfloat16, half, float, double, int64, int32, uint8, uint16, uint32, "
    "uint64, int8, int16, complex64, complex128, qint8, quint8, qint16, "
    "quint16, qint32}";

absl::Status BitcastShape(InferenceContext* c) {
  DataType in_type = DT_INVALID;
  DataType out_type = DT_INVALID;
  DFX_RETURN_IF_ERROR(GetNodeAttr(c->node_def(), "T", &in_type));
  DFX_RETURN_IF_ERROR(GetNodeAttr(c->node_def(), "type", &out_type));
  const PartialShape& in = c->input(0);
  if (!in.RankKnown()) {
    c->set_output(0, PartialShape::Unknown());
    return absl::OkStatus();
  }
  const int64_t in_size = DataTypeSize(in_type);
  const int64_t out_size = DataTypeSize(out_type);
  PartialShape out = in;
  if (in_size > out_size) {
    out.dims.push_back(in_size / out_size);
  } else if (in_size < out_size) {
    if (in.rank() == 0 ||
        (in.dims.back() >= 0 && in.dims.back() != out_size / in_size)) {
      return c->Error(absl::StrCat("Cannot bitcast from ",
                                   static_cast<int>(in_type), " to ",
                                   static_cast<int>(out_type)));
    }
    out.dims.pop_back();
  }
  c->set_output(0, std::move(out));
  return absl::OkStatus();
}

absl::Status BroadcastArgsShape(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 1));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 1));
  const PartialShape& a = c->input(0);
  const PartialShape& b = c->input(1);
  int64_t n = -1;
  if (a.RankKnown() && b.RankKnown() && a.dims[0] >= 0 && b.dims[0] >= 0) {
    n = std::max(a.dims[0], b.dims[0]);
  }
  c->set_output(0, PartialShape::Known({n}));
  return absl::OkStatus();
}

}  // namespace

absl::Status RegisterBitwiseOps(OpRegistry* r) {
  for (const char* name :
       {"BitwiseAnd", "BitwiseOr", "BitwiseXor", "LeftShift", "RightShift"}) {
    OpDefBuilder b(name);
    b.Input("x: T").Input("y: T").Output("z: T").Attr(kIntTypes).SetShapeFn(
        shape_fn::BroadcastBinaryOp);
    if (std::string(name).rfind("Bitwise", 0) == 0) b.SetIsCommutative();
    DFX_RETURN_IF_ERROR(r->Register(b));
  }
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("Invert")
                                      .Input("x: T")
                                      .Output("y: T")
                                      .Attr(kIntTypes)
                                      .SetShapeFn(shape_fn::UnchangedShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("PopulationCount")
                                      .Input("x: T")
                                      .Output("y: uint8")
                                      .Attr(kIntTypes)
                                      .SetShapeFn(shape_fn::UnchangedShape)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("Bitcast")
                      .Input("input: T")
                      .Output("output: type")
                      .Attr(absl::StrCat("T: ", kBitcastTypes))
                      .Attr(absl::StrCat("type: ", kBitcastTypes))
                      .SetShapeFn(BitcastShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("BroadcastArgs")
                                      .Input("s0: T")
                                      .Input("s1: T")
                                      .Output("r0: T")
                                      .Attr("T: {int32, int64} = DT_INT32")
                                      .SetShapeFn(BroadcastArgsShape)));
  return absl::OkStatus();
}

}  // namespace dfx

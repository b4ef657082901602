// The mutex family's small ops: DecodePaddedRaw, IsotonicRegression,
// ParallelConcat, StochasticCastToInt and StatefulStandardNormal (v1).
// Signatures follow TensorFlow 2.21's parsing_ops.cc, nn_ops.cc,
// array_ops.cc, stochastic_cast_op.cc and stateful_random_ops.cc.
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/node_def_util.h"
#include "graph/ops/ops.h"

namespace dfx {
namespace {

// DecodePaddedRaw: the input's shape and one dim of fixed_length / the
// size of out_type (unknown unless fixed_length is a constant).
absl::Status DecodePaddedRawShape(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 0));
  DataType out_type = DT_INVALID;
  DFX_RETURN_IF_ERROR(GetNodeAttr(c->node_def(), "out_type", &out_type));
  int64_t width = -1;
  std::vector<int64_t> length;
  if (ConstantInts(c->input_tensor(1), &length) && length.size() == 1) {
    const int64_t size = DataTypeSize(out_type);
    if (size > 0 && length[0] % size != 0) {
      return c->Error(
          absl::StrCat("Dimension size must be evenly divisible "
                       "by ",
                       size, " but is ", length[0]));
    }
    if (size > 0) width = length[0] / size;
  }
  if (!c->input(0).RankKnown()) {
    c->set_output(0, PartialShape::Unknown());
    return absl::OkStatus();
  }
  PartialShape out = c->input(0);
  out.dims.push_back(width);
  c->set_output(0, std::move(out));
  return absl::OkStatus();
}

// IsotonicRegression: both outputs have the input's shape.
absl::Status IsotonicRegressionShape(InferenceContext* c) {
  c->set_output(0, c->input(0));
  c->set_output(1, c->input(0));
  return absl::OkStatus();
}

// ParallelConcat: the shape attr, fully defined; every input with a first
// dim of 1 and the attr's other dims. TensorFlow also demands fully defined
// input shapes, which its graphs have; dfx may know less of a shape at
// import, so an unknown rank or dim passes.
absl::Status ParallelConcatShape(InferenceContext* c) {
  TensorShapeProto proto;
  DFX_RETURN_IF_ERROR(GetNodeAttr(c->node_def(), "shape", &proto));
  const PartialShape passed = PartialShape::FromProto(proto);
  if (!passed.FullyDefined()) {
    return c->Error("shape attr must be fully defined.");
  }
  PartialShape row = passed;
  if (row.rank() > 0) row.dims[0] = 1;
  for (int i = 0; i < c->num_inputs(); ++i) {
    const PartialShape& in = c->input(i);
    if (!in.RankKnown()) continue;
    if (in.rank() < 1) {
      return c->Error(
          absl::StrCat("The rank of all input shapes must be "
                       "greater than 0, but input ",
                       i, " had rank ", in.rank(), "."));
    }
    if (in.dims[0] != 1 && in.dims[0] != -1) {
      return c->Error("Size of first dimension must be 1.");
    }
    PartialShape merged;
    absl::Status s = c->Merge(in, row, &merged);
    if (!s.ok()) {
      return c->Error(absl::StrCat(s.message(), " From merging shape ", i,
                                   " with other shapes."));
    }
    row = merged;
  }
  c->set_output(0, passed);
  return absl::OkStatus();
}

// StatefulStandardNormal (v1): the shape input's value when it is a
// constant.
absl::Status ShapeFromInput1(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 1));
  std::vector<int64_t> dims;
  if (ConstantInts(c->input_tensor(1), &dims)) {
    c->set_output(0, PartialShape::Known(std::move(dims)));
  } else if (c->input(1).RankKnown() && c->input(1).dims[0] >= 0) {
    c->set_output(0, UnknownDims(static_cast<int>(c->input(1).dims[0])));
  } else {
    c->set_output(0, PartialShape::Unknown());
  }
  return absl::OkStatus();
}

// StochasticCastToInt: the input's shape; key a vector of 1, counter a
// vector, alg a scalar.
absl::Status StochasticCastShape(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 1));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(2), 1));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(3), 0));
  const PartialShape& key = c->input(1);
  if (key.RankKnown() && key.dims[0] >= 0 && key.dims[0] != 1) {
    return c->Error(absl::StrCat("Dimension must be 1 but is ", key.dims[0]));
  }
  c->set_output(0, c->input(0));
  return absl::OkStatus();
}

}  // namespace

absl::Status RegisterSmallOps(OpRegistry* r) {
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("DecodePaddedRaw")
          .Input("input_bytes: string")
          .Input("fixed_length: int32")
          .Output("output: out_type")
          .Attr("out_type: {half, float, double, int32, uint16, uint8, int16, "
                "int8, int64, bfloat16}")
          .Attr("little_endian: bool = true")
          .SetShapeFn(DecodePaddedRawShape)));
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("IsotonicRegression")
          .Input("input: T")
          .Output("output: output_dtype")
          .Output("segments: int32")
          .Attr("T: {float, double, int32, uint8, int16, int8, int64, "
                "bfloat16, uint16, half, uint32, uint64}")
          .Attr("output_dtype: {half, bfloat16, float, double} = DT_FLOAT")
          .SetShapeFn(IsotonicRegressionShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("ParallelConcat")
                                      .Input("values: N * T")
                                      .Output("output: T")
                                      .Attr("N: int >= 1")
                                      .Attr("T: type")
                                      .Attr("shape: shape")
                                      .SetShapeFn(ParallelConcatShape)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("StochasticCastToInt")
                      .Input("input: Tin")
                      .Input("key: uint64")
                      .Input("counter: uint64")
                      .Input("alg: int32")
                      .Output("output: Tout")
                      .Attr("Tin: {half, bfloat16, float, double}")
                      .Attr("Tout: {int8, int16, int32}")
                      .SetShapeFn(StochasticCastShape)));
  // StatefulStandardNormal (v1): the algorithm is the state's first word.
  // Deprecated at GraphDef version 29.
  DFX_ASSIGN_OR_RETURN(OpRegistrationData normal_v1,
                       OpDefBuilder("StatefulStandardNormal")
                           .Input("resource: resource")
                           .Input("shape: shape_dtype")
                           .Output("output: dtype")
                           .Attr("dtype: type = DT_FLOAT")
                           .Attr("shape_dtype: type = DT_INT64")
                           .SetIsStateful()
                           .SetShapeFn(ShapeFromInput1)
                           .Finalize());
  normal_v1.op_def.mutable_deprecation()->set_version(29);
  normal_v1.op_def.mutable_deprecation()->set_explanation(
      "Use StatefulStandardNormalV2 instead");
  DFX_RETURN_IF_ERROR(r->Register(std::move(normal_v1)));
  return absl::OkStatus();
}

}  // namespace dfx

// The proto family: DecodeJSONExample (tf.io.decode_json_example),
// DecodeProtoV2 and EncodeProto (tf.io.decode_proto / encode_proto).
// Signatures follow TensorFlow 2.21's parsing_ops.cc, decode_proto_ops.cc
// and encode_proto_ops.cc.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/node_def_util.h"
#include "graph/ops/ops.h"

namespace dfx {
namespace {

// DecodeProtoV2: sizes are bytes' shape + [number of fields], each value
// bytes' shape + [the largest count, known only when the step runs].
absl::Status DecodeProtoShapeFn(InferenceContext* c) {
  DataTypeVector output_types;
  DFX_RETURN_IF_ERROR(
      GetNodeAttr(c->node_def(), "output_types", &output_types));
  const PartialShape& in = c->input(0);
  if (!in.RankKnown()) {
    for (int i = 0; i < c->num_outputs(); ++i) {
      c->set_output(i, PartialShape::Unknown());
    }
    return absl::OkStatus();
  }
  std::vector<int64_t> sizes = in.dims;
  sizes.push_back(static_cast<int64_t>(output_types.size()));
  c->set_output(0, PartialShape::Known(sizes));
  std::vector<int64_t> values = in.dims;
  values.push_back(-1);
  for (int i = 1; i < c->num_outputs(); ++i) {
    c->set_output(i, PartialShape::Known(values));
  }
  return absl::OkStatus();
}

// EncodeProto: one message per row of sizes (at least a vector).
absl::Status EncodeProtoShapeFn(InferenceContext* c) {
  const PartialShape& sizes = c->input(0);
  if (!sizes.RankKnown()) {
    c->set_output(0, PartialShape::Unknown());
    return absl::OkStatus();
  }
  if (sizes.rank() < 1) {
    return c->Error(absl::StrCat("Shape must be at least rank 1 but is rank ",
                                 sizes.rank()));
  }
  std::vector<int64_t> out(sizes.dims.begin(), sizes.dims.end() - 1);
  c->set_output(0, PartialShape::Known(out));
  return absl::OkStatus();
}

}  // namespace

absl::Status RegisterProtoOps(OpRegistry* r) {
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("DecodeJSONExample")
                                      .Input("json_examples: string")
                                      .Output("binary_examples: string")
                                      .SetShapeFn(shape_fn::UnchangedShape)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("DecodeProtoV2")
                      .Input("bytes: string")
                      .Output("sizes: int32")
                      .Output("values: output_types")
                      .Attr("message_type: string")
                      .Attr("field_names: list(string)")
                      .Attr("output_types: list(type) >= 0")
                      .Attr("descriptor_source: string = 'local://'")
                      .Attr("message_format: string = 'binary'")
                      .Attr("sanitize: bool = false")
                      .SetShapeFn(DecodeProtoShapeFn)));
  return r->Register(OpDefBuilder("EncodeProto")
                         .Input("sizes: int32")
                         .Input("values: Tinput_types")
                         .Output("bytes: string")
                         .Attr("field_names: list(string)")
                         .Attr("message_type: string")
                         .Attr("descriptor_source: string = 'local://'")
                         .Attr("Tinput_types: list(type) >= 1")
                         .SetShapeFn(EncodeProtoShapeFn));
}

}  // namespace dfx

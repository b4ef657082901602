// The summary family: TF1 summary ops that output a serialized Summary
// (ScalarSummary, HistogramSummary, ImageSummary, AudioSummary(V2),
// TensorSummary(V2), MergeSummary), the TF2 summary-writer resource ops
// that write event files (SummaryWriter, CreateSummaryFileWriter, Write*,
// FlushSummaryWriter, CloseSummaryWriter, ImportEvent), and Print and
// Timestamp. Signatures follow TensorFlow 2.21's summary_ops.cc,
// logging_ops.cc and summary_ops.cc (kernels); like TensorFlow's, the shape
// functions check no input ranks: the kernels do.
#include <utility>

#include "absl/status/status.h"
#include "base/status_macros.h"
#include "graph/ops/ops.h"

namespace dfx {
namespace {

constexpr char kHistogramTypes[] =
    "T: {float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, "
    "half, uint32, uint64, bool} = DT_FLOAT";
constexpr char kBadColorDefault[] =
    "bad_color: tensor = { dtype: DT_UINT8 tensor_shape { dim { size: 4 } } "
    "int_val: 255 int_val: 0 int_val: 0 int_val: 255 }";

// The TF2 writer ops: a writer handle and a step, then their own inputs.
OpDefBuilder WriterOp(const char* name) {
  OpDefBuilder b(name);
  b.Input("writer: resource").Input("step: int64").SetIsStateful();
  return b;
}

absl::Status RegisterTf1SummaryOps(OpRegistry* r) {
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("ScalarSummary")
                                      .Input("tags: string")
                                      .Input("values: T")
                                      .Output("summary: string")
                                      .Attr("T: realnumbertype")
                                      .SetShapeFn(shape_fn::Scalar)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("HistogramSummary")
                                      .Input("tag: string")
                                      .Input("values: T")
                                      .Output("summary: string")
                                      .Attr("T: realnumbertype = DT_FLOAT")
                                      .SetShapeFn(shape_fn::Scalar)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("ImageSummary")
                      .Input("tag: string")
                      .Input("tensor: T")
                      .Output("summary: string")
                      .Attr("max_images: int >= 1 = 3")
                      .Attr("T: {uint8, float, half, double} = DT_FLOAT")
                      .Attr(kBadColorDefault)
                      .SetShapeFn(shape_fn::Scalar)));
  // Deprecated at GraphDef version 15 (AudioSummaryV2 replaced it), a
  // field OpDefBuilder has no setter for.
  DFX_ASSIGN_OR_RETURN(OpRegistrationData audio,
                       OpDefBuilder("AudioSummary")
                           .Input("tag: string")
                           .Input("tensor: float")
                           .Output("summary: string")
                           .Attr("sample_rate: float")
                           .Attr("max_outputs: int >= 1 = 3")
                           .SetShapeFn(shape_fn::Scalar)
                           .Finalize());
  audio.op_def.mutable_deprecation()->set_version(15);
  audio.op_def.mutable_deprecation()->set_explanation("Use AudioSummaryV2.");
  DFX_RETURN_IF_ERROR(r->Register(std::move(audio)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("AudioSummaryV2")
                                      .Input("tag: string")
                                      .Input("tensor: float")
                                      .Input("sample_rate: float")
                                      .Output("summary: string")
                                      .Attr("max_outputs: int >= 1 = 3")
                                      .SetShapeFn(shape_fn::Scalar)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("TensorSummary")
                                      .Input("tensor: T")
                                      .Output("summary: string")
                                      .Attr("T: type")
                                      .Attr("description: string = ''")
                                      .Attr("labels: list(string) = []")
                                      .Attr("display_name: string = ''")
                                      .SetShapeFn(shape_fn::Scalar)));
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("TensorSummaryV2")
                      .Input("tag: string")
                      .Input("tensor: T")
                      .Input("serialized_summary_metadata: string")
                      .Output("summary: string")
                      .Attr("T: type")
                      .SetShapeFn(shape_fn::Scalar)));
  return r->Register(OpDefBuilder("MergeSummary")
                         .Input("inputs: N * string")
                         .Output("summary: string")
                         .Attr("N: int >= 1")
                         .SetShapeFn(shape_fn::Scalar));
}

absl::Status RegisterWriterOps(OpRegistry* r) {
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("SummaryWriter")
                                      .Output("writer: resource")
                                      .Attr("shared_name: string = ''")
                                      .Attr("container: string = ''")
                                      .SetIsStateful()
                                      .SetShapeFn(shape_fn::Scalar)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("CreateSummaryFileWriter")
                                      .Input("writer: resource")
                                      .Input("logdir: string")
                                      .Input("max_queue: int32")
                                      .Input("flush_millis: int32")
                                      .Input("filename_suffix: string")
                                      .SetIsStateful()
                                      .SetShapeFn(shape_fn::Unknown)));
  {
    OpDefBuilder b = WriterOp("WriteSummary");
    b.Input("tensor: T")
        .Input("tag: string")
        .Input("summary_metadata: string")
        .Attr("T: type")
        .SetShapeFn(shape_fn::Unknown);
    DFX_RETURN_IF_ERROR(r->Register(b));
  }
  {
    OpDefBuilder b = WriterOp("WriteScalarSummary");
    b.Input("tag: string")
        .Input("value: T")
        .Attr("T: realnumbertype")
        .SetShapeFn(shape_fn::Unknown);
    DFX_RETURN_IF_ERROR(r->Register(b));
  }
  {
    OpDefBuilder b = WriterOp("WriteHistogramSummary");
    b.Input("tag: string")
        .Input("values: T")
        .Attr(kHistogramTypes)
        .SetShapeFn(shape_fn::Unknown);
    DFX_RETURN_IF_ERROR(r->Register(b));
  }
  {
    OpDefBuilder b = WriterOp("WriteImageSummary");
    b.Input("tag: string")
        .Input("tensor: T")
        .Input("bad_color: uint8")
        .Attr("max_images: int >= 1 = 3")
        .Attr("T: {uint8, double, float, half} = DT_FLOAT")
        .SetShapeFn(shape_fn::Unknown);
    DFX_RETURN_IF_ERROR(r->Register(b));
  }
  {
    OpDefBuilder b = WriterOp("WriteAudioSummary");
    b.Input("tag: string")
        .Input("tensor: float")
        .Input("sample_rate: float")
        .Attr("max_outputs: int >= 1 = 3")
        .SetShapeFn(shape_fn::Unknown);
    DFX_RETURN_IF_ERROR(r->Register(b));
  }
  for (const char* name : {"WriteRawProtoSummary", "WriteGraphSummary"}) {
    OpDefBuilder b = WriterOp(name);
    b.Input("tensor: string").SetShapeFn(shape_fn::Unknown);
    DFX_RETURN_IF_ERROR(r->Register(b));
  }
  for (const char* name : {"FlushSummaryWriter", "CloseSummaryWriter"}) {
    DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder(name)
                                        .Input("writer: resource")
                                        .SetIsStateful()
                                        .SetShapeFn(shape_fn::Unknown)));
  }
  return r->Register(OpDefBuilder("ImportEvent")
                         .Input("writer: resource")
                         .Input("event: string")
                         .SetIsStateful()
                         .SetShapeFn(shape_fn::Unknown));
}

}  // namespace

absl::Status RegisterSummaryOps(OpRegistry* r) {
  DFX_RETURN_IF_ERROR(RegisterTf1SummaryOps(r));
  DFX_RETURN_IF_ERROR(RegisterWriterOps(r));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("Print")
                                      .Input("input: T")
                                      .Input("data: U")
                                      .Output("output: T")
                                      .Attr("T: type")
                                      .Attr("U: list(type) >= 0")
                                      .Attr("message: string = ''")
                                      .Attr("first_n: int = -1")
                                      .Attr("summarize: int = 3")
                                      .SetIsStateful()
                                      .SetShapeFn(shape_fn::UnchangedShape)));
  return r->Register(OpDefBuilder("Timestamp")
                         .Output("ts: double")
                         .SetIsStateful()
                         .SetShapeFn(shape_fn::Scalar));
}

}  // namespace dfx

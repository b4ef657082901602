// The TF2 summary-writer ops over SummaryWriterInterface resources
// (event_writer.h; CreateSummaryDbWriter's is in summary_db_writer.cc):
// SummaryWriter makes the handle, CreateSummaryFileWriter opens the event
// file (once per resource), the Write* ops queue events,
// FlushSummaryWriter writes them out and CloseSummaryWriter deletes the
// resource, which flushes what is left. TensorFlow's summary_kernels.cc and
// summary_file_writer.cc; where TensorFlow would abort on a non-scalar
// step or tag, dfx answers InvalidArgument. The log directory is subject
// to the server's --data-dir, as every file op's path is.
#include <cstdint>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "kernels/data_flow/data_flow_util.h"
#include "kernels/summary/event_writer.h"
#include "kernels/summary/summary_convert.h"
#include "kernels/summary/summary_kernels.h"
#include "proto/graph.pb.h"
#include "runtime/file_policy.h"
#include "runtime/op_kernel.h"
#include "runtime/resource_mgr.h"

namespace dfx::summary {
namespace {

absl::StatusOr<std::shared_ptr<SummaryWriterInterface>> GetWriter(
    OpKernelContext* ctx) {
  std::string container, name;
  DFX_RETURN_IF_ERROR(
      data_flow::HandleNameFromInput(ctx, 0, &container, &name));
  return ctx->resource_manager()->Lookup<SummaryWriterInterface>(container,
                                                                 name);
}

// A scalar input of type T; InvalidArgument "<what> must be a scalar".
template <typename T>
absl::StatusOr<T> ScalarInput(OpKernelContext* ctx, int index,
                              const char* what) {
  const Tensor& t = ctx->input(index);
  if (t.dims() != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " must be a scalar, got shape ", t.shape().DebugString()));
  }
  return t.scalar<T>();
}

std::unique_ptr<Event> NewEvent(int64_t step) {
  auto e = std::make_unique<Event>();
  e->set_step(step);
  e->set_wall_time(WallTime());
  return e;
}

class SummaryWriterOp : public OpKernel {
 public:
  explicit SummaryWriterOp(OpKernelConstruction* c) : OpKernel(c) {
    std::string container, name;
    c->SetStatus(c->GetAttr("container", &container));
    c->SetStatus(c->GetAttr("shared_name", &name));
    if (!c->status().ok()) return;
    ResourceMgr* rm = c->device()->resource_manager();
    if (container.empty()) container = rm->default_container();
    handle_ =
        data_flow::SharedResourceHandle(*c->device(), false, container, name,
                                        SummaryWriterInterface::kTypeName);
  }
  void Compute(OpKernelContext* ctx) override { ctx->set_output(0, handle_); }

 private:
  Tensor handle_{DT_RESOURCE, TensorShape()};
};

class CreateSummaryFileWriterOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    auto logdir = ScalarInput<std::string>(ctx, 1, "logdir");
    DFX_OP_REQUIRES_OK(ctx, logdir.status());
    auto max_queue = ScalarInput<int32_t>(ctx, 2, "max_queue");
    DFX_OP_REQUIRES_OK(ctx, max_queue.status());
    auto flush_millis = ScalarInput<int32_t>(ctx, 3, "flush_millis");
    DFX_OP_REQUIRES_OK(ctx, flush_millis.status());
    auto suffix = ScalarInput<std::string>(ctx, 4, "filename_suffix");
    DFX_OP_REQUIRES_OK(ctx, suffix.status());
    std::string container, name;
    DFX_OP_REQUIRES_OK(ctx, data_flow::HandleNameFromInput(ctx, 0, &container,
                                                           &name));
    ResourceMgr* rm = ctx->resource_manager();
    // An existing writer stays as it is (TensorFlow's LookupOrCreate).
    if (rm->Lookup<SummaryWriterInterface>(container, name).ok()) return;
    absl::StatusOr<std::string> dir = ResolveDataPath(this->name(), *logdir);
    DFX_OP_REQUIRES_OK(ctx, dir.status());
    absl::StatusOr<std::shared_ptr<SummaryFileWriter>> writer =
        SummaryFileWriter::Create(*dir, *max_queue, *flush_millis, *suffix);
    DFX_OP_REQUIRES_OK(ctx, writer.status());
    absl::Status s = rm->Create(container, name, *std::move(writer));
    // A concurrent step created it first: that one stays.
    if (!s.ok() && !absl::IsAlreadyExists(s)) ctx->SetStatus(s);
  }
};

class FlushSummaryWriterOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    auto writer = GetWriter(ctx);
    DFX_OP_REQUIRES_OK(ctx, writer.status());
    DFX_OP_REQUIRES_OK(ctx, (*writer)->Flush());
  }
};

class CloseSummaryWriterOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    std::string container, name;
    DFX_OP_REQUIRES_OK(ctx, data_flow::HandleNameFromInput(ctx, 0, &container,
                                                           &name));
    DFX_OP_REQUIRES_OK(ctx,
                       ctx->resource_manager()->Delete(
                           container, name, SummaryWriterInterface::kTypeName));
  }
};

// The Write*Summary ops: the writer, a scalar step, then BuildSummary's
// inputs (which start at input 2).
class WriteOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    auto writer = GetWriter(ctx);
    DFX_OP_REQUIRES_OK(ctx, writer.status());
    auto step = ScalarInput<int64_t>(ctx, 1, "step");
    DFX_OP_REQUIRES_OK(ctx, step.status());
    std::unique_ptr<Event> e = NewEvent(*step);
    DFX_OP_REQUIRES_OK(ctx, Fill(ctx, e.get()));
    DFX_OP_REQUIRES_OK(ctx, (*writer)->WriteEvent(std::move(e)));
  }

 protected:
  virtual absl::Status Fill(OpKernelContext* ctx, Event* e) = 0;
};

// WriteSummary and WriteScalarSummary hand their tensor to the writer,
// which decides how to store it.
class WriteSummaryOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    auto writer = GetWriter(ctx);
    DFX_OP_REQUIRES_OK(ctx, writer.status());
    auto step = ScalarInput<int64_t>(ctx, 1, "step");
    DFX_OP_REQUIRES_OK(ctx, step.status());
    auto tag = ScalarInput<std::string>(ctx, 3, "tag");
    DFX_OP_REQUIRES_OK(ctx, tag.status());
    auto metadata = ScalarInput<std::string>(ctx, 4, "summary_metadata");
    DFX_OP_REQUIRES_OK(ctx, metadata.status());
    DFX_OP_REQUIRES_OK(
        ctx, (*writer)->WriteTensor(*step, ctx->input(2), *tag, *metadata));
  }
};

class WriteScalarSummaryOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    auto writer = GetWriter(ctx);
    DFX_OP_REQUIRES_OK(ctx, writer.status());
    auto step = ScalarInput<int64_t>(ctx, 1, "step");
    DFX_OP_REQUIRES_OK(ctx, step.status());
    auto tag = ScalarInput<std::string>(ctx, 2, "tag");
    DFX_OP_REQUIRES_OK(ctx, tag.status());
    const Tensor& t = ctx->input(3);
    DFX_OP_REQUIRES(ctx, t.NumElements() != 0,
                    absl::InvalidArgumentError(
                        absl::StrCat("value must not be empty, got shape ",
                                     t.shape().DebugString())));
    DFX_OP_REQUIRES_OK(ctx, (*writer)->WriteScalar(*step, t, *tag));
  }
};

class WriteHistogramSummaryOp : public WriteOp {
 public:
  using WriteOp::WriteOp;

 protected:
  absl::Status Fill(OpKernelContext* ctx, Event* e) override {
    DFX_ASSIGN_OR_RETURN(std::string tag, ScalarInput<std::string>(ctx, 2, "tag"));
    return AddHistogram(ctx->input(3), tag, tag, e->mutable_summary());
  }
};

class WriteImageSummaryOp : public WriteOp {
 public:
  explicit WriteImageSummaryOp(OpKernelConstruction* c) : WriteOp(c) {
    int64_t max_images = 3;
    c->SetStatus(c->GetAttr("max_images", &max_images));
    if (c->status().ok() && max_images >= (int64_t{1} << 31)) {
      c->SetStatus(absl::InvalidArgumentError("max_images must be < 2^31"));
    }
    max_images_ = static_cast<int>(max_images);
  }

 protected:
  absl::Status Fill(OpKernelContext* ctx, Event* e) override {
    DFX_ASSIGN_OR_RETURN(std::string tag, ScalarInput<std::string>(ctx, 2, "tag"));
    const Tensor& bad_color = ctx->input(4);
    if (bad_color.dims() != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("bad_color must be a vector, got shape ",
                       bad_color.shape().DebugString()));
    }
    return AddImages(ctx->input(3), tag, max_images_, bad_color,
                     /*require_pixels=*/false, e->mutable_summary());
  }

 private:
  int max_images_ = 3;
};

class WriteAudioSummaryOp : public WriteOp {
 public:
  explicit WriteAudioSummaryOp(OpKernelConstruction* c) : WriteOp(c) {
    c->SetStatus(c->GetAttr("max_outputs", &max_outputs_));
    if (c->status().ok() && max_outputs_ <= 0) {
      c->SetStatus(absl::InvalidArgumentError("max_outputs must be > 0"));
    }
  }

 protected:
  absl::Status Fill(OpKernelContext* ctx, Event* e) override {
    DFX_ASSIGN_OR_RETURN(std::string tag, ScalarInput<std::string>(ctx, 2, "tag"));
    DFX_ASSIGN_OR_RETURN(float rate, ScalarInput<float>(ctx, 4, "sample_rate"));
    const Tensor& audio = ctx->input(3);
    if (audio.dims() < 2 || audio.dims() > 3) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Tensor must be 3-D or 2-D, got: ", audio.shape().DebugString()));
    }
    return AddAudio(audio, tag, static_cast<int>(max_outputs_), rate,
                    e->mutable_summary());
  }

 private:
  int64_t max_outputs_ = 3;
};

class WriteRawProtoSummaryOp : public WriteOp {
 public:
  using WriteOp::WriteOp;

 protected:
  // Summary has one repeated field, so merging the serialized protos
  // concatenates their values.
  absl::Status Fill(OpKernelContext* ctx, Event* e) override {
    const Tensor& t = ctx->input(2);
    for (int64_t i = 0; i < t.NumElements(); ++i) {
      if (!e->mutable_summary()->MergeFromString(t.data<std::string>()[i])) {
        return absl::DataLossError(absl::StrCat(
            "Bad tf.compat.v1.Summary binary proto tensor string at index ",
            i));
      }
    }
    return absl::OkStatus();
  }
};

class WriteGraphSummaryOp : public WriteOp {
 public:
  using WriteOp::WriteOp;

 protected:
  absl::Status Fill(OpKernelContext* ctx, Event* e) override {
    DFX_ASSIGN_OR_RETURN(std::string bytes,
                         ScalarInput<std::string>(ctx, 2, "tensor"));
    GraphDef graph;
    if (!graph.ParseFromString(bytes)) {
      return absl::DataLossError("Bad tf.GraphDef binary proto tensor string");
    }
    graph.SerializeToString(e->mutable_graph_def());
    return absl::OkStatus();
  }
};

class ImportEventOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    auto writer = GetWriter(ctx);
    DFX_OP_REQUIRES_OK(ctx, writer.status());
    auto bytes = ScalarInput<std::string>(ctx, 1, "event");
    DFX_OP_REQUIRES_OK(ctx, bytes.status());
    auto event = std::make_unique<Event>();
    DFX_OP_REQUIRES(ctx, event->ParseFromString(*bytes),
                    absl::DataLossError("Bad tf.Event binary proto tensor string"));
    DFX_OP_REQUIRES_OK(ctx, (*writer)->WriteEvent(std::move(event)));
  }
};

}  // namespace

void RegisterWriterKernels(KernelRegistry* r) {
  RegisterKernel<SummaryWriterOp>(r, KernelDefBuilder("SummaryWriter"));
  RegisterKernel<CreateSummaryFileWriterOp>(
      r, KernelDefBuilder("CreateSummaryFileWriter"));
  RegisterKernel<FlushSummaryWriterOp>(r, KernelDefBuilder("FlushSummaryWriter"));
  RegisterKernel<CloseSummaryWriterOp>(r, KernelDefBuilder("CloseSummaryWriter"));
  RegisterKernel<WriteSummaryOp>(r, KernelDefBuilder("WriteSummary"));
  RegisterKernel<WriteScalarSummaryOp>(r, KernelDefBuilder("WriteScalarSummary"));
  RegisterKernel<WriteHistogramSummaryOp>(
      r, KernelDefBuilder("WriteHistogramSummary"));
  RegisterKernel<WriteImageSummaryOp>(r, KernelDefBuilder("WriteImageSummary"));
  RegisterKernel<WriteAudioSummaryOp>(r, KernelDefBuilder("WriteAudioSummary"));
  RegisterKernel<WriteRawProtoSummaryOp>(
      r, KernelDefBuilder("WriteRawProtoSummary"));
  RegisterKernel<WriteGraphSummaryOp>(r, KernelDefBuilder("WriteGraphSummary"));
  RegisterKernel<ImportEventOp>(r, KernelDefBuilder("ImportEvent"));
}

}  // namespace dfx::summary

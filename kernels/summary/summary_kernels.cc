// The TF1 summary ops, each of which outputs one serialized Summary:
// ScalarSummary, HistogramSummary, ImageSummary, AudioSummary(V2),
// TensorSummary(V2), MergeSummary; and Print (passes its input through and
// writes its data to stderr, TensorFlow's v1 format) and Timestamp.
// TensorFlow's checks and messages (summary_op.cc, summary_image_op.cc,
// summary_audio_op.cc, summary_tensor_op.cc, logging_ops.cc).
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <type_traits>
#include <unordered_set>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "graph/node_def_util.h"
#include "kernels/kernels.h"
#include "kernels/summary/event_writer.h"
#include "kernels/summary/summary_convert.h"
#include "kernels/summary/summary_kernels.h"
#include "runtime/op_kernel.h"
#include "runtime/types.h"

namespace dfx::summary {
namespace {

void SetSummaryOutput(OpKernelContext* ctx, const Summary& s) {
  Tensor* out = nullptr;
  DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({}), &out));
  s.SerializeToString(&out->scalar<std::string>());
}

class ScalarSummaryOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& tags = ctx->input(0);
    const Tensor& values = ctx->input(1);
    DFX_OP_REQUIRES(
        ctx,
        tags.shape() == values.shape(),
        absl::InvalidArgumentError(absl::StrCat(
            "tags and values not the same shape: ", tags.shape().DebugString(),
            " != ", values.shape().DebugString(),
            tags.NumElements() == 1
                ? absl::StrCat(" (tag '", tags.data<std::string>()[0], "')")
                : "")));
    Summary s;
    VisitNumericType(values.dtype(), [&]<typename T>() {
      const T* v = values.data<T>();
      for (int64_t i = 0; i < tags.NumElements(); ++i) {
        Summary::Value* value = s.add_value();
        value->set_tag(tags.data<std::string>()[i]);
        value->set_simple_value(static_cast<float>(v[i]));
      }
    });
    SetSummaryOutput(ctx, s);
  }
};

class HistogramSummaryOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& tag = ctx->input(0);
    DFX_OP_REQUIRES(ctx, tag.dims() == 0,
                    absl::InvalidArgumentError("tags must be scalar"));
    Summary s;
    DFX_OP_REQUIRES_OK(ctx, AddHistogram(ctx->input(1), tag.scalar<std::string>(),
                                         name(), &s));
    SetSummaryOutput(ctx, s);
  }
};

class ImageSummaryOp : public OpKernel {
 public:
  explicit ImageSummaryOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    int64_t max_images = 0;
    ctx->SetStatus(ctx->GetAttr("max_images", &max_images));
    if (!ctx->status().ok()) return;
    if (max_images >= (int64_t{1} << 31)) {
      ctx->SetStatus(absl::InvalidArgumentError("max_images must be < 2^31"));
      return;
    }
    max_images_ = static_cast<int>(max_images);
    TensorProto proto;
    if (FindNodeAttr(ctx->def(), "bad_color") != nullptr) {
      ctx->SetStatus(ctx->GetAttr("bad_color", &proto));
      absl::StatusOr<Tensor> t = Tensor::FromProto(proto);
      ctx->SetStatus(t.status());
      if (!ctx->status().ok()) return;
      bad_color_ = *std::move(t);
    } else {
      bad_color_ = Tensor(DT_UINT8, TensorShape({4}));
      const uint8_t red[] = {255, 0, 0, 255};
      std::copy(red, red + 4, bad_color_.data<uint8_t>());
    }
    if (bad_color_.dtype() != DT_UINT8) {
      ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
          "bad_color must be uint8, got ", DataTypeString(bad_color_.dtype()))));
    } else if (bad_color_.dims() != 1) {
      ctx->SetStatus(absl::InvalidArgumentError(
          absl::StrCat("bad_color must be a vector, got shape ",
                       bad_color_.shape().DebugString())));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& tag = ctx->input(0);
    // TensorFlow's IsLegacyScalar, which its 2.21 GraphDef versions no
    // longer stretch to [1] vectors.
    DFX_OP_REQUIRES(ctx, tag.dims() == 0,
                    absl::InvalidArgumentError("Tags must be a scalar"));
    Summary s;
    DFX_OP_REQUIRES_OK(ctx, AddImages(ctx->input(1), tag.data<std::string>()[0],
                                      max_images_, bad_color_,
                                      /*require_pixels=*/true, &s));
    SetSummaryOutput(ctx, s);
  }

 private:
  int max_images_ = 3;
  Tensor bad_color_;
};

// AudioSummary (sample_rate an attr) and AudioSummaryV2 (an input).
class AudioSummaryOp : public OpKernel {
 public:
  explicit AudioSummaryOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("max_outputs", &max_outputs_));
    if (ctx->status().ok() && max_outputs_ <= 0) {
      ctx->SetStatus(absl::InvalidArgumentError("max_outputs must be > 0"));
    }
    rate_attr_ = ctx->num_inputs() == 2;
    if (rate_attr_) ctx->SetStatus(ctx->GetAttr("sample_rate", &sample_rate_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& tag = ctx->input(0);
    const Tensor& audio = ctx->input(1);
    DFX_OP_REQUIRES(ctx, tag.dims() == 0,
                    absl::InvalidArgumentError("Tag must be a scalar"));
    DFX_OP_REQUIRES(ctx, audio.dims() >= 2 && audio.dims() <= 3,
                    absl::InvalidArgumentError(
                        absl::StrCat("Tensor must be 3-D or 2-D, got: ",
                                     audio.shape().DebugString())));
    float rate = sample_rate_;
    if (!rate_attr_) {
      const Tensor& r = ctx->input(2);
      DFX_OP_REQUIRES(ctx, r.NumElements() == 1,
                      absl::InvalidArgumentError(absl::StrCat(
                          "sample_rate must be a scalar, got shape ",
                          r.shape().DebugString())));
      rate = r.data<float>()[0];
    }
    Summary s;
    DFX_OP_REQUIRES_OK(ctx, AddAudio(audio, tag.data<std::string>()[0],
                                     static_cast<int>(max_outputs_), rate, &s));
    SetSummaryOutput(ctx, s);
  }

 private:
  int64_t max_outputs_ = 3;
  bool rate_attr_ = false;
  float sample_rate_ = 0;
};

class TensorSummaryOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    Summary s;
    Summary::Value* v = s.add_value();
    v->set_node_name(name());
    SetTensor(ctx->input(0), v);
    SetSummaryOutput(ctx, s);
  }
};

class TensorSummaryV2Op : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& tag = ctx->input(0);
    DFX_OP_REQUIRES(ctx, tag.dims() == 0,
                    absl::InvalidArgumentError("tag must be scalar"));
    const Tensor& metadata = ctx->input(2);
    DFX_OP_REQUIRES(ctx, metadata.dims() == 0,
                    absl::InvalidArgumentError(
                        "serialized_summary_metadata must be scalar"));
    Summary s;
    Summary::Value* v = s.add_value();
    v->set_tag(tag.scalar<std::string>());
    SetTensor(ctx->input(1), v);
    // As TensorFlow: the metadata field is set even when empty, and a
    // malformed one is kept as far as it parsed.
    (void)v->mutable_metadata()->ParseFromString(metadata.scalar<std::string>());
    SetSummaryOutput(ctx, s);
  }
};

class MergeSummaryOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    Summary s;
    std::unordered_set<std::string> tags;
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      const Tensor& in = ctx->input(i);
      for (int64_t j = 0; j < in.NumElements(); ++j) {
        Summary part;
        DFX_OP_REQUIRES(
            ctx, part.ParseFromString(in.data<std::string>()[j]),
            absl::InvalidArgumentError(
                "Could not parse one of the summary inputs"));
        for (Summary::Value& v : *part.mutable_value()) {
          // TensorSummary's values have no tag: never duplicates.
          DFX_OP_REQUIRES(
              ctx, v.tag().empty() || tags.insert(v.tag()).second,
              absl::InvalidArgumentError(absl::StrCat(
                  "Duplicate tag ", v.tag(), " found in summary inputs")));
          *s.add_value() = std::move(v);
        }
      }
    }
    SetSummaryOutput(ctx, s);
  }
};

// --- Print -----------------------------------------------------------------

// TensorFlow's FloatToBuffer/DoubleToBuffer: the shortest of %.{6,9}g
// (%.{15,17}g) that reads back as the same value.
template <typename F>
std::string FormatFloat(F v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  constexpr bool kFloat = std::is_same_v<F, float>;
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*g", kFloat ? FLT_DIG : DBL_DIG,
                static_cast<double>(v));
  const F back = kFloat ? static_cast<F>(std::strtof(buf, nullptr))
                        : static_cast<F>(std::strtod(buf, nullptr));
  if (back != v) {
    std::snprintf(buf, sizeof(buf), "%.*g", kFloat ? FLT_DIG + 3 : DBL_DIG + 2,
                  static_cast<double>(v));
  }
  return buf;
}

void AppendElement(const Tensor& t, int64_t i, std::string* out) {
  switch (t.dtype()) {
    case DT_STRING:
      absl::StrAppend(out, absl::Utf8SafeCEscape(t.data<std::string>()[i]));
      return;
    case DT_FLOAT:
      absl::StrAppend(out, FormatFloat(t.data<float>()[i]));
      return;
    case DT_HALF:
      absl::StrAppend(out, FormatFloat(static_cast<float>(t.data<Eigen::half>()[i])));
      return;
    case DT_BFLOAT16:
      absl::StrAppend(
          out, FormatFloat(static_cast<float>(t.data<Eigen::bfloat16>()[i])));
      return;
    case DT_DOUBLE:
      absl::StrAppend(out, FormatFloat(t.data<double>()[i]));
      return;
    default:
      break;
  }
  // Integers and bool as numbers (TensorFlow's StrCat prints bool as 1/0).
  const bool known = VisitNumericType(t.dtype(), [&]<typename T>() {
    if constexpr (std::is_unsigned_v<T>) {
      absl::StrAppend(out, static_cast<uint64_t>(t.data<T>()[i]));
    } else if constexpr (std::is_integral_v<T>) {
      absl::StrAppend(out, static_cast<int64_t>(t.data<T>()[i]));
    }
  });
  if (!known) absl::StrAppend(out, "?");
}

// The rows of dims [dim, rank) in TensorFlow's v1 layout: the last dim's
// values space-separated, each inner block in brackets, "..." where
// `limit` cuts a row.
void AppendDim(const Tensor& t, int dim, int64_t limit, int64_t* index,
               std::string* out) {
  if (*index >= limit) return;
  const int64_t n = t.dim_size(dim);
  if (dim == t.dims() - 1) {
    for (int64_t i = 0; i < n; ++i) {
      if (*index >= limit) {
        if (dim != 0) absl::StrAppend(out, "...");
        return;
      }
      if (i > 0) out->push_back(' ');
      AppendElement(t, (*index)++, out);
    }
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    const bool open = *index < limit;
    if (open) out->push_back('[');
    AppendDim(t, dim + 1, limit, index, out);
    if (open || *index < limit) out->push_back(']');
  }
}

// TensorFlow's Tensor::SummarizeValue(max_entries) without print_v2.
std::string SummarizeV1(const Tensor& t, int64_t max_entries) {
  const int64_t n = t.NumElements();
  const int64_t limit = max_entries < 0 ? n : std::min(max_entries, n);
  std::string out;
  if (t.dims() == 0) {
    if (limit > 0) AppendElement(t, 0, &out);
    return out;
  }
  int64_t index = 0;
  AppendDim(t, 0, limit, &index, &out);
  if (n > limit) absl::StrAppend(&out, "...");
  return out;
}

class PrintOp : public OpKernel {
 public:
  explicit PrintOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("message", &message_));
    ctx->SetStatus(ctx->GetAttr("first_n", &first_n_));
    ctx->SetStatus(ctx->GetAttr("summarize", &summarize_));
  }

  void Compute(OpKernelContext* ctx) override {
    ctx->set_output(0, ctx->input(0));
    if (first_n_ >= 0) {
      absl::MutexLock lock(&mu_);
      if (calls_ >= first_n_) return;
      ++calls_;
    }
    std::string msg = message_;
    for (int i = 1; i < ctx->num_inputs(); ++i) {
      absl::StrAppend(&msg, "[", SummarizeV1(ctx->input(i), summarize_), "]");
    }
    std::cerr << msg << std::endl;
  }

 private:
  std::string message_;
  int64_t first_n_ = -1;
  int64_t summarize_ = 3;
  absl::Mutex mu_;
  int64_t calls_ ABSL_GUARDED_BY(mu_) = 0;
};

class TimestampOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({}), &out));
    out->scalar<double>() = WallTime();
  }
};

}  // namespace
}  // namespace dfx::summary

namespace dfx {

void RegisterSummaryKernels(KernelRegistry* registry) {
  using namespace summary;  // NOLINT: this file's kernels
  RegisterKernel<ScalarSummaryOp>(registry, KernelDefBuilder("ScalarSummary"));
  RegisterKernel<HistogramSummaryOp>(registry,
                                     KernelDefBuilder("HistogramSummary"));
  RegisterKernel<ImageSummaryOp>(registry, KernelDefBuilder("ImageSummary"));
  RegisterKernel<AudioSummaryOp>(registry, KernelDefBuilder("AudioSummary"));
  RegisterKernel<AudioSummaryOp>(registry, KernelDefBuilder("AudioSummaryV2"));
  // TensorFlow's TF_CALL_ALL_TYPES: no resource or variant tensors.
  auto all = [] {
    return DataTypeVector{DT_FLOAT,     DT_DOUBLE, DT_INT32,     DT_UINT8,
                          DT_INT16,     DT_INT8,   DT_STRING,    DT_COMPLEX64,
                          DT_INT64,     DT_BOOL,   DT_BFLOAT16,  DT_UINT16,
                          DT_COMPLEX128, DT_HALF,  DT_UINT32,    DT_UINT64};
  };
  RegisterKernel<TensorSummaryOp>(
      registry, KernelDefBuilder("TensorSummary").TypeConstraint("T", all()));
  RegisterKernel<TensorSummaryV2Op>(
      registry, KernelDefBuilder("TensorSummaryV2").TypeConstraint("T", all()));
  RegisterKernel<MergeSummaryOp>(registry, KernelDefBuilder("MergeSummary"));
  RegisterKernel<PrintOp>(registry, KernelDefBuilder("Print"));
  RegisterKernel<TimestampOp>(registry, KernelDefBuilder("Timestamp"));
  RegisterWriterKernels(registry);
}

}  // namespace dfx

// The calib family's kernels: CustomAggregator, CalibrationStatisticsSaver
// and DumpTensor (graph/ops/calib_ops.cc), as TensorFlow 2.21's
// quantization calibrator runs them (tensorflow/compiler/mlir/quantization/
// tensorflow/calibrator/ and ops/).
//
// The histogram arithmetic is TensorFlow's in float, step by step (the
// build keeps a*b+c unfused), so bins and merged frequencies match its
// bit for bit. Where TensorFlow's float-to-int32 conversion of a bin index
// is undefined (NaN, out of range), x86's answer, INT32_MIN, is taken, as
// TensorFlow's CPU build gets it.
//
// Both file-writing kernels write when they are destroyed (the session or
// the registered graph closes), as TensorFlow's do: the saver its
// statistics, DumpTensor the end of its compressed stream.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "base/logging.h"
#include "base/status_macros.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "kernels/data/record_file.h"
#include "proto/calibration_statistics.pb.h"
#include "proto/tensor.pb.h"
#include "runtime/file_policy.h"
#include "runtime/op_kernel.h"
#include "spdlog/spdlog.h"

namespace dfx {
namespace {

// TensorFlow's CalibrationOptions.CalibrationMethod values.
enum Method : int64_t {
  kUnspecified = 0,
  kMinMax = 1,
  kAverageMinMax = 2,
  kHistogramPercentile = 3,
  kHistogramMseMaxFrequency = 5,
  kHistogramMseBruteforce = 4,
  kHistogramMseSymmetric = 6,
};

// float -> int32 as x86's cvttss2si does it: truncation, and INT32_MIN for
// NaN and values outside int32.
int32_t TruncToInt32(float v) {
  if (!(v >= -2147483648.0f && v < 2147483648.0f)) {
    return std::numeric_limits<int32_t>::min();
  }
  return static_cast<int32_t>(v);
}

// A power of two at least (max - min) / num_bins (TensorFlow's
// CalculateBinWidth, whose pow runs in double).
float BinWidth(float min_value, float max_value, int32_t num_bins) {
  const float raw = (max_value - min_value) / static_cast<float>(num_bins);
  const float exponent = std::ceil(std::log2(raw));
  return static_cast<float>(std::pow(2.0, static_cast<double>(exponent)));
}

float LowerBound(float min_value, float bin_width) {
  const float q = std::floor(min_value / bin_width);
  return q * bin_width;
}

int32_t BinIndex(float value, float lower_bound, float bin_width) {
  const float d = value - lower_bound;
  return TruncToInt32(std::floor(d / bin_width));
}

// The status an errno of a failed open means, as TensorFlow's IOError maps
// it.
absl::Status OpenError(const std::string& what, const std::string& path,
                       int err) {
  const std::string message =
      absl::StrCat(path, "; ", std::strerror(err), " (", what, ")");
  switch (err) {
    case ENOENT:
      return absl::NotFoundError(message);
    case EACCES:
    case EPERM:
    case EROFS:
      return absl::PermissionDeniedError(message);
    case EISDIR:
    case ENOTDIR:
      return absl::FailedPreconditionError(message);
    case EEXIST:
      return absl::AlreadyExistsError(message);
    case ENAMETOOLONG:
      return absl::InvalidArgumentError(message);
    default:
      return absl::UnknownError(message);
  }
}

absl::StatusOr<std::FILE*> OpenForWriting(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return OpenError("NewWritableFile", path, errno);
  return f;
}

// ---------------------------------------------------------------------------
// CustomAggregator

class CustomAggregatorOp : public OpKernel {
 public:
  explicit CustomAggregatorOp(OpKernelConstruction* c) : OpKernel(c) {
    std::string id;
    int64_t method = 0;
    float min_percentile = 0, max_percentile = 0;
    c->SetStatus(c->GetAttr("id", &id));
    c->SetStatus(c->GetAttr("calibration_method", &method));
    c->SetStatus(c->GetAttr("num_bins", &num_bins_));
    c->SetStatus(c->GetAttr("min_percentile", &min_percentile));
    c->SetStatus(c->GetAttr("max_percentile", &max_percentile));
    if (!c->status().ok()) return;
    if (method == kUnspecified) {
      c->SetStatus(
          absl::AbortedError("The calibration method must be specified."));
    } else if (num_bins_ < 0 ||
               num_bins_ > std::numeric_limits<int32_t>::max()) {
      // TensorFlow's kernel aborts the process on a negative shape.
      c->SetStatus(absl::InvalidArgumentError(absl::StrCat(
          "num_bins must be a non-negative int32, got ", num_bins_)));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    ctx->set_output(0, input);
    const float* x = input.data<float>();
    const int64_t n = input.NumElements();
    // Eigen's scalar reduction: the accumulator is kept unless it compares
    // below (above) the next value, so a NaN is dropped by the next number.
    float lo = std::numeric_limits<float>::infinity();
    float hi = -lo;
    for (int64_t i = 0; i < n; ++i) {
      lo = lo < x[i] ? lo : x[i];
      hi = hi > x[i] ? hi : x[i];
    }
    ctx->set_output(1, Tensor::Scalar<float>(lo));
    ctx->set_output(2, Tensor::Scalar<float>(hi));
    const int32_t bins = static_cast<int32_t>(num_bins_);
    Tensor histogram(DT_INT64, TensorShape({bins}));
    int64_t* h = histogram.data<int64_t>();
    std::fill(h, h + bins, 0);
    if (bins > 0 && n > 0) {
      const float width = BinWidth(lo, hi, bins);
      const float lower = LowerBound(lo, width);
      for (int64_t i = 0; i < n; ++i) {
        ++h[std::clamp(BinIndex(x[i], lower, width), 0, bins - 1)];
      }
    }
    ctx->set_output(3, std::move(histogram));
  }

 private:
  int64_t num_bins_ = 0;
};

// ---------------------------------------------------------------------------
// CalibrationStatisticsSaver

// One id's statistics, gathered step by step (TensorFlow's
// CalibrationStatisticsCollector*).
class Collector {
 public:
  virtual ~Collector() = default;
  // InvalidArgument where TensorFlow's collector would crash or loop.
  virtual absl::Status Collect(float min, float max, const int64_t* histogram,
                               int64_t bins) = 0;
  // False when nothing was collected worth saving.
  virtual bool Statistics(CalibrationStatistics* out) const = 0;
};

class MinMaxCollector : public Collector {
 public:
  absl::Status Collect(float min, float max, const int64_t*, int64_t) override {
    min_ = std::min(min_, min);
    max_ = std::max(max_, max);
    return absl::OkStatus();
  }
  bool Statistics(CalibrationStatistics* out) const override {
    if (min_ == std::numeric_limits<float>::max()) return false;
    out->mutable_min_max_statistics()->set_global_min(min_);
    out->mutable_min_max_statistics()->set_global_max(max_);
    return true;
  }

 private:
  float min_ = std::numeric_limits<float>::max();
  float max_ = std::numeric_limits<float>::lowest();
};

class AverageMinMaxCollector : public Collector {
 public:
  absl::Status Collect(float min, float max, const int64_t*, int64_t) override {
    min_sum_ += min;
    max_sum_ += max;
    ++samples_;
    return absl::OkStatus();
  }
  bool Statistics(CalibrationStatistics* out) const override {
    if (samples_ == 0) return false;
    auto* s = out->mutable_average_min_max_statistics();
    s->set_min_sum(min_sum_);
    s->set_max_sum(max_sum_);
    s->set_num_samples(samples_);
    return true;
  }

 private:
  float min_sum_ = 0;
  float max_sum_ = 0;
  int32_t samples_ = 0;
};

// Merges each step's histogram (num_bins bins of a power-of-two width from
// the step's min) into one of the first step's bin width, growing it on
// both sides; a step's bin that straddles merged bins is shared out in
// proportion.
class HistogramCollector : public Collector {
 public:
  absl::Status Collect(float min, float max, const int64_t* histogram,
                       int64_t bins) override {
    if (bins == 0) return absl::OkStatus();
    const float width = BinWidth(min, max, static_cast<int32_t>(bins));
    const float lower = LowerBound(min, width);
    const float upper = std::ceil(max / width) * width;
    // TensorFlow's collector crashes on these (an empty input's infinite
    // bounds, a constant input's zero width).
    if (!std::isfinite(width) || !(width > 0) || !std::isfinite(lower) ||
        !std::isfinite(upper)) {
      return absl::InvalidArgumentError(
          absl::StrCat("cannot merge a histogram of min ", min, " and max ",
                       max, " (bin width ", width, ")"));
    }
    if (freq_.empty()) {
      width_ = width;
      lower_ = lower;
    }
    int32_t lower_idx = BinIndex(lower, lower_, width_);
    const int32_t upper_idx_before = BinIndex(upper, lower_, width_);
    const int64_t grow_left = lower_idx < 0 ? -int64_t{lower_idx} : 0;
    if (lower_idx == std::numeric_limits<int32_t>::min() ||
        upper_idx_before == std::numeric_limits<int32_t>::min() ||
        static_cast<int64_t>(upper_idx_before) + grow_left > kMaxBins) {
      return absl::InvalidArgumentError(absl::StrCat(
          "merging a histogram of [", min, ", ", max, "] into bins of width ",
          width_, " from ", lower_, " needs too many bins"));
    }
    if (lower_idx < 0) {
      freq_.insert(freq_.begin(), static_cast<size_t>(-lower_idx), 0.f);
      const float shift = width_ * static_cast<float>(-lower_idx);
      lower_ -= shift;
      lower_idx = 0;
    }
    const int32_t upper_idx = BinIndex(upper, lower_, width_);
    if (upper_idx < 0 || upper_idx > kMaxBins) {
      return absl::InvalidArgumentError("histogram bounds out of range");
    }
    if (static_cast<size_t>(upper_idx) >= freq_.size()) {
      freq_.resize(static_cast<size_t>(upper_idx) + 1, 0.f);
    }
    for (int32_t idx = lower_idx; idx <= upper_idx; ++idx) {
      const float step = static_cast<float>(idx) * width_;
      const float start = lower_ + step;
      float sum = 0;
      DFX_RETURN_IF_ERROR(RangeFrequencies(histogram, bins, width, lower, start,
                                           start + width_, &sum));
      freq_[idx] += sum;
    }
    return absl::OkStatus();
  }

  bool Statistics(CalibrationStatistics* out) const override {
    if (freq_.empty()) return false;
    size_t size = freq_.size();
    while (size > 0 && freq_[size - 1] == 0) --size;
    auto* s = out->mutable_histogram_statistics();
    s->set_bin_width(width_);
    s->set_lower_bound(lower_);
    for (size_t i = 0; i < size; ++i) s->add_hist_freq(freq_[i]);
    return true;
  }

 private:
  static constexpr int64_t kMaxBins = 1 << 24;

  // The frequency of [start, end) in `histogram` (bins of `width` from
  // `lower`).
  static absl::Status RangeFrequencies(const int64_t* histogram, int64_t bins,
                                       float width, float lower, float start,
                                       float end, float* sum) {
    for (float at = std::max(start, lower); at < end; at += width) {
      if (at + width == at) {
        // TensorFlow's loop never ends here.
        return absl::InvalidArgumentError(absl::StrCat(
            "histogram bin width ", width, " is below the precision of ", at));
      }
      const int32_t idx = BinIndex(at, lower, width);
      if (idx >= bins) break;
      const float part = std::min(end - at, width) / width;
      *sum += static_cast<float>(histogram[idx]) * part;
    }
    return absl::OkStatus();
  }

  float width_ = 0;
  float lower_ = 0;
  std::deque<float> freq_;
};

class CalibrationStatisticsSaverOp : public OpKernel {
 public:
  explicit CalibrationStatisticsSaverOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(Init(c));
  }

  ~CalibrationStatisticsSaverOp() override {
    if (file_ == nullptr) return;
    CalibrationStatisticsMap map;
    {
      absl::MutexLock lock(&mu_);
      for (const auto& [id, collector] : collectors_) {
        CalibrationStatistics stats;
        if (collector->Statistics(&stats)) {
          (*map.mutable_statistics())[id] = std::move(stats);
        }
      }
    }
    // TensorFlow serializes its map in hash order; sorted keys give the
    // same bytes for one id and the same parsed map for several.
    std::string bytes;
    {
      google::protobuf::io::StringOutputStream raw(&bytes);
      google::protobuf::io::CodedOutputStream out(&raw);
      out.SetSerializationDeterministic(true);
      map.SerializeToCodedStream(&out);
    }
    if (std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size()) {
      spdlog::error("Failed to write calibration statistics to {}", path_);
    }
    if (std::fclose(file_) != 0) {
      spdlog::error("Failed to close calibration statistics file {}", path_);
    }
  }

  void Compute(OpKernelContext* ctx) override {
    absl::MutexLock lock(&mu_);
    for (size_t i = 0; i < ids_.size(); ++i) {
      const Tensor& min = ctx->input(3 * i);
      const Tensor& max = ctx->input(3 * i + 1);
      const Tensor& histogram = ctx->input(3 * i + 2);
      // TensorFlow's kernel aborts the process on non-scalar bounds.
      if (min.shape().dims() != 0 || max.shape().dims() != 0) {
        return ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
            "min and max of id ", ids_[i], " must be scalars, got ",
            min.shape().DebugString(), " and ", max.shape().DebugString())));
      }
      std::unique_ptr<Collector>& collector = collectors_[ids_[i]];
      if (collector == nullptr) collector = NewCollector(methods_[i]);
      absl::Status s = collector->Collect(
          min.scalar<float>(), max.scalar<float>(), histogram.data<int64_t>(),
          histogram.NumElements());
      if (!s.ok()) {
        return ctx->SetStatus(absl::InvalidArgumentError(
            absl::StrCat("id ", ids_[i], ": ", s.message())));
      }
    }
  }

 private:
  // The constructor's work; its error fails the kernel's construction.
  absl::Status Init(OpKernelConstruction* c) {
    std::string path;
    DFX_RETURN_IF_ERROR(c->GetAttr("output_file_path", &path));

    absl::StatusOr<std::string> resolved = ResolveDataPath(name(), path);
    if (!resolved.ok()) return resolved.status();
    // Created (or emptied) now, written when the kernel goes, as in
    // TensorFlow.
    // TensorFlow's kernel crashes when it cannot (its destructor writes
    // through the file it never opened); here that is InvalidArgument.
    absl::StatusOr<std::FILE*> file = OpenForWriting(*resolved);
    if (!file.ok()) {
      return absl::InvalidArgumentError(file.status().message());
    }
    file_ = *file;
    path_ = *resolved;
    DFX_RETURN_IF_ERROR(c->GetAttr("ids", &ids_));
    DFX_RETURN_IF_ERROR(c->GetAttr("calibration_methods", &methods_));

    if (ids_.size() != methods_.size()) {
      return absl::AbortedError(
          "The `ids` and `calibration_methods` must have the same size.");
    }
    if (static_cast<size_t>(c->num_inputs()) != ids_.size() * 3) {
      return absl::AbortedError(
          "The number of inputs must be  three times the "
          "size of the `ids` list.");
    }
    for (size_t i = 0; i < ids_.size(); ++i) {
      if (c->input_type(3 * i) != DT_FLOAT) {
        return absl::AbortedError("The input `min` must have float type.");
      }
      if (c->input_type(3 * i + 1) != DT_FLOAT) {
        return absl::AbortedError("The input `max` must have float type.");
      }
      if (c->input_type(3 * i + 2) != DT_INT64) {
        return absl::AbortedError(
            "The input `histogram` must have int64 type.");
      }
    }
    return absl::OkStatus();
  }

  static std::unique_ptr<Collector> NewCollector(int64_t method) {
    switch (method) {
      case kAverageMinMax:
        return std::make_unique<AverageMinMaxCollector>();
      case kHistogramPercentile:
      case kHistogramMseBruteforce:
      case kHistogramMseMaxFrequency:
      case kHistogramMseSymmetric:
        return std::make_unique<HistogramCollector>();
      default:  // MIN_MAX, and any other value, as in TensorFlow
        return std::make_unique<MinMaxCollector>();
    }
  }

  std::string path_;
  std::FILE* file_ = nullptr;  // owned; closed by the destructor
  std::vector<std::string> ids_;
  std::vector<int64_t> methods_;
  absl::Mutex mu_;
  std::map<std::string, std::unique_ptr<Collector>> collectors_
      ABSL_GUARDED_BY(mu_);
};

// ---------------------------------------------------------------------------
// DumpTensor

// TensorFlow's io::JoinPath for two parts.
std::string JoinPath(const std::string& dir, const std::string& name) {
  if (name.empty()) return dir;
  if (dir.empty()) return name;
  const bool slash_a = dir.back() == '/';
  const bool slash_b = name.front() == '/';
  if (slash_a && slash_b) return dir + name.substr(1);
  if (slash_a || slash_b) return dir + name;
  return dir + "/" + name;
}

class DumpTensorOp : public OpKernel {
 public:
  explicit DumpTensorOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(Init(c));
  }
  ~DumpTensorOp() override {
    absl::MutexLock lock(&mu_);
    if (writer_ == nullptr) return;
    // TensorFlow's kernel flushes its writer, then the writer's destructor
    // finishes the stream; nobody is left to hear an error.
    writer_->Flush().IgnoreError();
    writer_->Close().IgnoreError();
  }

  void Compute(OpKernelContext* ctx) override {
    if (!enabled_) return;
    TensorProto proto;
    ctx->input(0).AsProtoTensorContent(&proto);
    const std::string record = proto.SerializeAsString();
    absl::MutexLock lock(&mu_);
    ctx->SetStatus(writer_->Write(record));
  }

 private:
  // The constructor's work; its error fails the kernel's construction.
  absl::Status Init(OpKernelConstruction* c) {
    std::string log_dir, file_name, func_name, node_name;
    DFX_RETURN_IF_ERROR(c->GetAttr("log_dir_path", &log_dir));
    DFX_RETURN_IF_ERROR(c->GetAttr("enabled", &enabled_));
    DFX_RETURN_IF_ERROR(c->GetAttr("file_name", &file_name));
    DFX_RETURN_IF_ERROR(c->GetAttr("func_name", &func_name));
    DFX_RETURN_IF_ERROR(c->GetAttr("node_name", &node_name));

    // TensorFlow's kernel crashes (its destructor flushes a writer it never
    // made) when the directory or the data file cannot be made; here that
    // is InvalidArgument.
    absl::StatusOr<std::string> dir = ResolveDataPath(name(), log_dir);
    if (!dir.ok()) return dir.status();
    std::error_code ec;
    std::filesystem::create_directories(*dir, ec);
    if (ec) {
      return absl::InvalidArgumentError(absl::StrCat(
          "cannot create the directory ", log_dir, ": ", ec.message()));
    }
    absl::StatusOr<std::string> data_path =
        ResolveDataPath(name(), JoinPath(*dir, file_name));
    if (!data_path.ok()) return data_path.status();
    // TFRecords in one zlib stream, as TensorFlow's RecordWriter with ZLIB
    // compression writes them; flushed, then finished, when the kernel goes.
    absl::StatusOr<std::unique_ptr<data::RecordWriter>> writer =
        data::RecordWriter::Create(name(), *data_path,
                                   data::Compression::kZlib);
    if (!writer.ok()) {
      return absl::InvalidArgumentError(writer.status().message());
    }
    {
      absl::MutexLock lock(&mu_);
      writer_ = *std::move(writer);
    }
    QuantizationUnit unit;
    unit.set_func_name(func_name);
    unit.set_node_name(node_name);
    const std::string unit_path = JoinPath(*dir, "quant_unit.pb");
    absl::StatusOr<std::FILE*> f = OpenForWriting(unit_path);
    if (!f.ok()) return f.status();
    const std::string bytes = unit.SerializeAsString();
    const bool written =
        std::fwrite(bytes.data(), 1, bytes.size(), *f) == bytes.size();
    if (std::fclose(*f) != 0 || !written) {
      return absl::DataLossError(absl::StrCat("cannot write ", unit_path));
    }
    return absl::OkStatus();
  }

  bool enabled_ = false;
  absl::Mutex mu_;
  std::unique_ptr<data::RecordWriter> writer_ ABSL_GUARDED_BY(mu_);
};

}  // namespace

void RegisterCalibKernels(KernelRegistry* r) {
  RegisterKernel<CustomAggregatorOp>(r, KernelDefBuilder("CustomAggregator"));
  RegisterKernel<CalibrationStatisticsSaverOp>(
      r, KernelDefBuilder("CalibrationStatisticsSaver"));
  RegisterKernel<DumpTensorOp>(r, KernelDefBuilder("DumpTensor"));
}

}  // namespace dfx

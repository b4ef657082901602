// Summary values from tensors. The loops are plain: histograms and images
// are small, and TensorFlow's arithmetic (in the input's own type for the
// image scaling) must be reproduced exactly for the PNG bytes to match.
#include "kernels/summary/summary_convert.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "kernels/codec/codec_kernels.h"
#include "kernels/codec/png_codec.h"
#include "runtime/types.h"

namespace dfx::summary {
namespace {

const std::vector<double>& DefaultLimits() {
  static const std::vector<double>* limits = [] {
    std::vector<double> positive;
    for (double v = 1.0e-12; v < 1.0e20; v *= 1.1) positive.push_back(v);
    positive.push_back(DBL_MAX);
    auto* all = new std::vector<double>;
    for (auto it = positive.rbegin(); it != positive.rend(); ++it) {
      all->push_back(-*it);
    }
    all->push_back(0.0);
    all->insert(all->end(), positive.begin(), positive.end());
    return all;
  }();
  return *limits;
}

// One image of `hw` pixels of `depth` channels of T scaled into uint8 as
// TensorFlow's NormalizeFloatImage does: min and max over the pixels whose
// channels are all finite, then value * scale + offset computed in T and
// truncated; a pixel with a non-finite channel becomes bad_color.
template <typename T>
void NormalizeImage(const T* values, int64_t hw, int depth,
                    const uint8_t* bad_color, uint8_t* out) {
  auto finite_pixel = [&](int64_t i) {
    for (int j = 0; j < depth; ++j) {
      if (!std::isfinite(static_cast<double>(values[i * depth + j]))) {
        return false;
      }
    }
    return true;
  };
  float image_min = std::numeric_limits<float>::infinity();
  float image_max = -image_min;
  for (int64_t i = 0; i < hw; ++i) {
    if (!finite_pixel(i)) continue;
    for (int j = 0; j < depth; ++j) {
      const float v = static_cast<float>(values[i * depth + j]);
      image_min = std::min(image_min, v);
      image_max = std::max(image_max, v);
    }
  }
  constexpr float kZeroThreshold = 1e-6f;
  T scale, offset;
  if (image_min < 0) {
    const float max_val = std::max(std::abs(image_min), std::abs(image_max));
    scale = T(max_val < kZeroThreshold ? 0.0f : 127.0f / max_val);
    offset = T(128.0f);
  } else {
    scale = T(image_max < kZeroThreshold ? 0.0f : 255.0f / image_max);
    offset = T(0.0f);
  }
  for (int64_t i = 0; i < hw; ++i) {
    const bool finite = finite_pixel(i);
    for (int j = 0; j < depth; ++j) {
      if (finite) {
        // Two rounded steps, as Eigen evaluates them (no fused multiply-add).
        const T product = values[i * depth + j] * scale;
        const T sum = product + offset;
        // double keeps its precision to the cast, as Eigen's cast<uint8>.
        if constexpr (std::is_same_v<T, double>) {
          out[i * depth + j] = static_cast<uint8_t>(sum);
        } else {
          out[i * depth + j] = static_cast<uint8_t>(static_cast<float>(sum));
        }
      } else {
        out[i * depth + j] = bad_color[j];
      }
    }
  }
}

}  // namespace

Histogram::Histogram()
    : limits_(DefaultLimits()),
      counts_(limits_.size(), 0.0),
      min_(limits_.back()),
      max_(-DBL_MAX) {}

void Histogram::Add(double value) {
  const size_t b = std::upper_bound(limits_.begin(), limits_.end(), value) -
                   limits_.begin();
  counts_[b] += 1.0;
  if (min_ > value) min_ = value;
  if (max_ < value) max_ = value;
  num_ += 1;
  sum_ += value;
  sum_squares_ += value * value;
}

void Histogram::Encode(HistogramProto* proto) const {
  proto->Clear();
  proto->set_min(min_);
  proto->set_max(max_);
  proto->set_num(num_);
  proto->set_sum(sum_);
  proto->set_sum_squares(sum_squares_);
  for (size_t i = 0; i < counts_.size();) {
    double limit = limits_[i];
    double count = counts_[i];
    ++i;
    if (count <= 0.0) {
      while (i < counts_.size() && counts_[i] <= 0.0) {
        limit = limits_[i];
        count = counts_[i];
        ++i;
      }
    }
    proto->add_bucket_limit(limit);
    proto->add_bucket(count);
  }
  if (proto->bucket_size() == 0) {
    proto->add_bucket_limit(DBL_MAX);
    proto->add_bucket(0.0);
  }
}

absl::Status AddHistogram(const Tensor& values, const std::string& tag,
                          const std::string& name, Summary* s) {
  Histogram histo;
  absl::Status status;
  const bool known = VisitNumericType(values.dtype(), [&]<typename T>() {
    const T* v = values.data<T>();
    for (int64_t i = 0; i < values.NumElements(); ++i) {
      const double d = static_cast<double>(v[i]);
      if (std::isnan(d)) {
        status = absl::InvalidArgumentError(
            absl::StrCat("Nan in summary histogram for: ", name));
        return;
      }
      if (std::isinf(d)) {
        status = absl::InvalidArgumentError(
            absl::StrCat("Infinity in summary histogram for: ", name));
        return;
      }
      histo.Add(d);
    }
  });
  if (!known) {
    return absl::UnimplementedError(absl::StrCat(
        "SummaryFileWriter ", DataTypeString(values.dtype()),
        " not supported."));
  }
  DFX_RETURN_IF_ERROR(status);
  Summary::Value* v = s->add_value();
  v->set_tag(tag);
  histo.Encode(v->mutable_histo());
  return absl::OkStatus();
}

absl::Status AddImages(const Tensor& images, const std::string& tag,
                       int max_images, const Tensor& bad_color,
                       bool require_pixels, Summary* s) {
  if (!(images.dims() == 4 && (images.dim_size(3) == 1 ||
                               images.dim_size(3) == 3 ||
                               images.dim_size(3) == 4))) {
    return absl::InvalidArgumentError(
        absl::StrCat("Tensor must be 4-D with last dim 1, 3, or 4, not ",
                     images.shape().DebugString()));
  }
  constexpr int64_t k31 = int64_t{1} << 31;
  if (!(images.dim_size(0) < k31 && images.dim_size(1) < k31 &&
        images.dim_size(2) < k31 &&
        images.dim_size(1) * images.dim_size(2) < (int64_t{1} << 29))) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Tensor too large for summary ", images.shape().DebugString()));
  }
  const int batch = static_cast<int>(images.dim_size(0));
  const int h = static_cast<int>(images.dim_size(1));
  const int w = static_cast<int>(images.dim_size(2));
  const int64_t hw = int64_t{h} * w;
  const int depth = static_cast<int>(images.dim_size(3));
  if (require_pixels && hw == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("input tensor must have non-zero dims. Found: [", batch,
                     ", ", h, ", ", w, ", ", depth, "]."));
  }
  const DataType dtype = images.dtype();
  if (dtype != DT_UINT8 && dtype != DT_HALF && dtype != DT_FLOAT &&
      dtype != DT_DOUBLE) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Only DT_INT8, DT_HALF, DT_DOUBLE, and DT_FLOAT images are "
        "supported. Got ",
        DataTypeString(dtype)));
  }
  if (dtype != DT_UINT8 && bad_color.dim_size(0) < depth) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expected depth <= bad_color.size, got depth = ", depth,
        ", bad_color.size = ", bad_color.dim_size(0)));
  }
  std::vector<uint8_t> scaled(dtype == DT_UINT8 ? 0 : hw * depth);
  const int n = std::min(max_images, batch);
  for (int i = 0; i < n; ++i) {
    Summary::Value* v = s->add_value();
    v->set_tag(max_images > 1 ? absl::StrCat(tag, "/image/", i)
                              : absl::StrCat(tag, "/image"));
    const uint8_t* pixels = nullptr;
    const int64_t offset = i * hw * depth;
    const uint8_t* bad = dtype == DT_UINT8 ? nullptr : bad_color.data<uint8_t>();
    switch (dtype) {
      case DT_UINT8:
        pixels = images.data<uint8_t>() + offset;
        break;
      case DT_HALF:
        NormalizeImage(images.data<Eigen::half>() + offset, hw, depth, bad,
                       scaled.data());
        break;
      case DT_FLOAT:
        NormalizeImage(images.data<float>() + offset, hw, depth, bad,
                       scaled.data());
        break;
      default:
        NormalizeImage(images.data<double>() + offset, hw, depth, bad,
                       scaled.data());
        break;
    }
    if (pixels == nullptr) pixels = scaled.data();
    Summary::Image* image = v->mutable_image();
    image->set_height(h);
    image->set_width(w);
    image->set_colorspace(depth);
    if (!codec::EncodePng(pixels, w, h, int64_t{w} * depth, depth, 8, -1,
                          image->mutable_encoded_image_string())) {
      return absl::InternalError("PNG encoding failed");
    }
  }
  return absl::OkStatus();
}

absl::Status AddAudio(const Tensor& audio, const std::string& tag,
                      int max_outputs, float sample_rate, Summary* s) {
  if (!(sample_rate > 0.0f)) {
    return absl::InvalidArgumentError("sample_rate must be > 0");
  }
  const int batch = static_cast<int>(audio.dim_size(0));
  const int64_t frames = audio.dim_size(1);
  const int64_t channels = audio.dims() == 2 ? 1 : audio.dim_size(2);
  const int n = std::min(max_outputs, batch);
  // TensorFlow rounds the rate to the nearest integer, at least 1.
  int64_t rate = std::lrint(sample_rate);
  if (rate == 0) rate = 1;
  for (int i = 0; i < n; ++i) {
    Summary::Value* v = s->add_value();
    v->set_tag(max_outputs > 1 ? absl::StrCat(tag, "/audio/", i)
                               : absl::StrCat(tag, "/audio"));
    Summary::Audio* a = v->mutable_audio();
    a->set_sample_rate(sample_rate);
    a->set_num_channels(channels);
    a->set_length_frames(frames);
    a->set_content_type("audio/wav");
    DFX_RETURN_IF_ERROR(EncodeWav(audio.data<float>() + i * frames * channels,
                                  frames, channels, rate,
                                  a->mutable_encoded_audio_string()));
  }
  return absl::OkStatus();
}

void SetTensor(const Tensor& t, Summary::Value* v) {
  if (t.dtype() == DT_STRING) {
    t.AsProtoField(v->mutable_tensor());
  } else {
    t.AsProtoTensorContent(v->mutable_tensor());
  }
}

}  // namespace dfx::summary

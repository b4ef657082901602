// Tensors into Summary values as TensorFlow builds them (its
// summary_op.cc, summary_image_op.cc, summary_audio_op.cc and
// summary_converter.cc), shared by the TF1 summary ops and the summary
// writer: default-bucket histograms, PNG images scaled from uint8, half,
// float or double, WAV audio, and tensors as TensorProtos.
#ifndef DFX_KERNELS_SUMMARY_SUMMARY_CONVERT_H_
#define DFX_KERNELS_SUMMARY_SUMMARY_CONVERT_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "proto/summary.pb.h"
#include "runtime/tensor.h"

namespace dfx::summary {

// tsl's histogram::Histogram with its default buckets: limits that grow by
// 10% from 1e-12 to 1e20, mirrored below 0, with 0 and +-DBL_MAX.
class Histogram {
 public:
  Histogram();
  void Add(double value);
  // TensorFlow's EncodeToProto(proto, false): runs of empty buckets
  // collapse into one (the last limit of the run).
  void Encode(HistogramProto* proto) const;

 private:
  const std::vector<double>& limits_;
  std::vector<double> counts_;
  double min_;
  double max_;
  double num_ = 0;
  double sum_ = 0;
  double sum_squares_ = 0;
};

// Adds a value `tag` holding the histogram of `values` (any real type or
// bool). InvalidArgument "Nan in summary histogram for: <name>" (or
// "Infinity ...") at the first non-finite value; `name` is the node's
// name for HistogramSummary, the tag for the summary writer.
absl::Status AddHistogram(const Tensor& values, const std::string& tag,
                          const std::string& name, Summary* s);

// Adds min(max_images, batch) values "<tag>/image/<i>" ("<tag>/image" when
// max_images is 1) holding PNGs of the [batch, h, w, 1|3|4] `images`:
// uint8 as it is; half, float and double scaled into [0, 255] (by
// 255/max, or 127/max|x| around 128 when any value is negative) with
// non-finite pixels painted `bad_color` (a uint8 vector of at least
// `depth` entries). InvalidArgument for another shape or dtype, and, when
// `require_pixels` (ImageSummary's check), for images of no pixels.
absl::Status AddImages(const Tensor& images, const std::string& tag,
                       int max_images, const Tensor& bad_color,
                       bool require_pixels, Summary* s);

// Adds min(max_outputs, batch) values "<tag>/audio/<i>" ("<tag>/audio"
// when max_outputs is 1) holding 16-bit WAVs of [batch, frames] or
// [batch, frames, channels] float `audio`. REQUIRES: audio has rank 2 or 3.
// InvalidArgument when sample_rate <= 0.
absl::Status AddAudio(const Tensor& audio, const std::string& tag,
                      int max_outputs, float sample_rate, Summary* s);

// `t` as a value's TensorProto: strings in string_val, other types in
// tensor_content (TensorFlow's choice, which its Python readers need).
void SetTensor(const Tensor& t, Summary::Value* v);

}  // namespace dfx::summary

#endif  // DFX_KERNELS_SUMMARY_SUMMARY_CONVERT_H_

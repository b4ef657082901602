// A small metrics registry (counters, gauges, histograms with fixed
// buckets, labels) rendered in the Prometheus text exposition format 0.0.4.
//
// Debian 12 packages no Prometheus client library for C++ (prometheus-cpp
// is not in bookworm), and what a status page needs is small: this file is
// that part. Updating a metric on the step path is one relaxed atomic add
// (a histogram observation: a binary search over its bucket bounds and two
// relaxed adds); looking a labelled series up takes a mutex, so hot paths
// look their series up once and keep the pointer (series live as long as
// the registry).
//
// Names are checked with DFX_CHECK: they come from dfx's own code, never
// from outside. Label values may be anything and are escaped when rendered.
#ifndef DFX_BASE_METRICS_H_
#define DFX_BASE_METRICS_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "absl/synchronization/mutex.h"

namespace dfx {

// The values of a series' labels, in the order of its family's label names.
using MetricLabels = std::vector<std::string>;

// A value that only goes up. Thread-safe.
class Counter {
 public:
  void Increment(int64_t n = 1) {
    value_.fetch_add(n, std::memory_order_relaxed);
  }
  int64_t Value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<int64_t> value_{0};
};

// A value that goes up and down. Thread-safe.
class Gauge {
 public:
  void Set(double v) { value_.store(v, std::memory_order_relaxed); }
  void Add(double v) { value_.fetch_add(v, std::memory_order_relaxed); }
  double Value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

// Counts observations into buckets with fixed upper bounds (an observation
// v goes to the first bucket whose bound is >= v, or to +Inf) and keeps
// their sum. Thread-safe.
class Histogram {
 public:
  // REQUIRES: `bounds` strictly increasing and finite.
  explicit Histogram(std::vector<double> bounds);

  void Observe(double v);

  const std::vector<double>& bounds() const { return bounds_; }
  // Per bucket (not cumulative), bounds().size() + 1 of them (the last is
  // +Inf), and the sum. The count is the buckets' total.
  std::vector<int64_t> BucketCounts() const;
  double Sum() const { return sum_.load(std::memory_order_relaxed); }

 private:
  const std::vector<double> bounds_;
  const std::unique_ptr<std::atomic<int64_t>[]> buckets_;
  std::atomic<double> sum_{0};
};

// Upper bounds for latencies in seconds: 100 us to 60 s.
std::vector<double> LatencyBuckets();
// Upper bounds for sizes in bytes: 64 B to 1 GiB, by 4.
std::vector<double> ByteSizeBuckets();

enum class MetricType { kCounter, kGauge, kHistogram };

// One metric name with its help, type and label names, and its series.
// Thread-safe.
class MetricFamily {
 public:
  const std::string& name() const { return name_; }
  MetricType type() const { return type_; }

  // The series of these label values, made on first use; the pointer lives
  // as long as the registry. REQUIRES: the family's type, and as many values
  // as label names.
  Counter* GetCounter(const MetricLabels& values);
  Gauge* GetGauge(const MetricLabels& values);
  Histogram* GetHistogram(const MetricLabels& values);

  // A gauge series whose value `read` gives at each rendering, until the
  // returned handle is destroyed. `read` runs under the registry's render
  // and must not call into the registry. REQUIRES: a gauge family; no other
  // series (set or read) with these label values.
  class Callback;
  std::unique_ptr<Callback> AddCallback(const MetricLabels& values,
                                        std::function<double()> read);

 private:
  friend class MetricsRegistry;
  struct Series {
    std::unique_ptr<Counter> counter;
    std::unique_ptr<Gauge> gauge;
    std::unique_ptr<Histogram> histogram;
    std::function<double()> read;
  };

  MetricFamily(std::string name, std::string help, MetricType type,
               std::vector<std::string> label_names,
               std::vector<double> bounds);
  Series* GetSeries(const MetricLabels& values);
  void RemoveCallback(const MetricLabels& values);
  void Render(std::string* out) const;

  const std::string name_;
  const std::string help_;
  const MetricType type_;
  const std::vector<std::string> label_names_;
  const std::vector<double> bounds_;
  mutable absl::Mutex mu_;
  // Ordered: the rendering lists series by their label values.
  std::map<MetricLabels, Series> series_ ABSL_GUARDED_BY(mu_);
};

// Unregisters its callback series when destroyed.
class MetricFamily::Callback {
 public:
  ~Callback();
  Callback(const Callback&) = delete;
  Callback& operator=(const Callback&) = delete;

 private:
  friend class MetricFamily;
  Callback(MetricFamily* family, MetricLabels values)
      : family_(family), values_(std::move(values)) {}
  MetricFamily* const family_;
  const MetricLabels values_;
};

// Families by name. Thread-safe.
class MetricsRegistry {
 public:
  MetricsRegistry() = default;
  MetricsRegistry(const MetricsRegistry&) = delete;
  MetricsRegistry& operator=(const MetricsRegistry&) = delete;

  // The process's registry: what every server of the process renders at
  // /metrics (the step counters, memory and threads are the process's).
  static MetricsRegistry& Default();

  // The family of `name`, made on first use; a later call with the same
  // name returns the same family. REQUIRES: a valid metric name ([a-zA-Z_:]
  // [a-zA-Z0-9_:]*) and label names ([a-zA-Z_][a-zA-Z0-9_]*, not "__..."
  // nor "le" for histograms), the same type, labels and bounds as an
  // earlier call with that name.
  MetricFamily* AddCounter(absl::string_view name, absl::string_view help,
                           std::vector<std::string> label_names = {});
  MetricFamily* AddGauge(absl::string_view name, absl::string_view help,
                         std::vector<std::string> label_names = {});
  MetricFamily* AddHistogram(absl::string_view name, absl::string_view help,
                             std::vector<std::string> label_names,
                             std::vector<double> bounds);

  // Every family in the text exposition format 0.0.4 (Content-Type
  // "text/plain; version=0.0.4"), families by name, series by labels.
  std::string RenderText() const;

 private:
  MetricFamily* Add(absl::string_view name, absl::string_view help,
                    MetricType type, std::vector<std::string> label_names,
                    std::vector<double> bounds);

  mutable absl::Mutex mu_;
  std::map<std::string, std::unique_ptr<MetricFamily>, std::less<>> families_
      ABSL_GUARDED_BY(mu_);
};

// The text format's escapes: in HELP, '\' and newline; in label values, '\',
// '"' and newline.
std::string EscapeMetricHelp(absl::string_view text);
std::string EscapeMetricLabelValue(absl::string_view text);
// A sample value as the format writes it: "+Inf", "-Inf", "NaN", or the
// shortest decimal that reads back as `v`.
std::string FormatMetricValue(double v);

// The label value for a status code: "OK", "CANCELLED", ... (gRPC's names).
const std::string& StatusCodeLabel(absl::StatusCode code);

// The counters of a family whose last label is "code", one per status code
// with the other labels fixed, looked up once: Increment is one atomic add.
class CountersByCode {
 public:
  // REQUIRES: a counter family whose label names are those of
  // `fixed_labels` and then "code".
  CountersByCode(MetricFamily* family, const MetricLabels& fixed_labels);
  void Increment(absl::StatusCode code) const;

 private:
  static constexpr int kCodes =
      static_cast<int>(absl::StatusCode::kUnauthenticated) + 1;
  Counter* counters_[kCodes];
};

// The step metrics of one role ("master": RunStep calls, "worker": RunGraph
// calls) in MetricsRegistry::Default(): dfx_steps_total{role,code} and
// dfx_step_duration_seconds{role}.
class StepMetrics {
 public:
  explicit StepMetrics(absl::string_view role);
  void Record(const absl::Status& status, absl::Duration duration) const;

 private:
  const CountersByCode steps_;
  Histogram* const latency_;
};

}  // namespace dfx

#endif  // DFX_BASE_METRICS_H_

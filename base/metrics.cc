#include "base/metrics.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "base/logging.h"

namespace dfx {
namespace {

bool IsNameChar(char c, bool first, bool colon) {
  const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                     c == '_' || (colon && c == ':');
  return alpha || (!first && c >= '0' && c <= '9');
}

bool IsValidName(absl::string_view name, bool colon) {
  if (name.empty()) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    if (!IsNameChar(name[i], i == 0, colon)) return false;
  }
  return true;
}

void AppendLabels(const std::vector<std::string>& names,
                  const MetricLabels& values, absl::string_view extra_name,
                  absl::string_view extra_value, std::string* out) {
  if (names.empty() && extra_name.empty()) return;
  out->push_back('{');
  bool first = true;
  for (size_t i = 0; i < names.size(); ++i) {
    if (!first) out->push_back(',');
    first = false;
    absl::StrAppend(out, names[i], "=\"", EscapeMetricLabelValue(values[i]),
                    "\"");
  }
  if (!extra_name.empty()) {
    if (!first) out->push_back(',');
    absl::StrAppend(out, extra_name, "=\"", extra_value, "\"");
  }
  out->push_back('}');
}

}  // namespace

Histogram::Histogram(std::vector<double> bounds)
    : bounds_(std::move(bounds)),
      buckets_(new std::atomic<int64_t>[bounds_.size() + 1]) {
  for (size_t i = 0; i <= bounds_.size(); ++i) buckets_[i] = 0;
  for (size_t i = 0; i < bounds_.size(); ++i) {
    DFX_CHECK(std::isfinite(bounds_[i]));
    DFX_CHECK(i == 0 || bounds_[i - 1] < bounds_[i]);
  }
}

void Histogram::Observe(double v) {
  // The first bound >= v ("le"); NaN goes to +Inf.
  const size_t i =
      std::lower_bound(bounds_.begin(), bounds_.end(), v) - bounds_.begin();
  buckets_[i].fetch_add(1, std::memory_order_relaxed);
  sum_.fetch_add(v, std::memory_order_relaxed);
}

std::vector<int64_t> Histogram::BucketCounts() const {
  std::vector<int64_t> counts(bounds_.size() + 1);
  for (size_t i = 0; i < counts.size(); ++i) {
    counts[i] = buckets_[i].load(std::memory_order_relaxed);
  }
  return counts;
}

std::vector<double> LatencyBuckets() {
  return {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
          0.05,   0.1,     0.25,   0.5,   1,      2.5,   5,    10,
          30,     60};
}

std::vector<double> ByteSizeBuckets() {
  std::vector<double> bounds;
  for (double b = 64; b <= double(int64_t{1} << 30); b *= 4) {
    bounds.push_back(b);
  }
  return bounds;
}

MetricFamily::MetricFamily(std::string name, std::string help,
                           MetricType type,
                           std::vector<std::string> label_names,
                           std::vector<double> bounds)
    : name_(std::move(name)),
      help_(std::move(help)),
      type_(type),
      label_names_(std::move(label_names)),
      bounds_(std::move(bounds)) {}

MetricFamily::Series* MetricFamily::GetSeries(const MetricLabels& values) {
  DFX_CHECK_MSG(values.size() == label_names_.size(), name_);
  absl::MutexLock lock(&mu_);
  auto [it, added] = series_.try_emplace(values);
  Series& s = it->second;
  if (added) {
    switch (type_) {
      case MetricType::kCounter:
        s.counter = std::make_unique<Counter>();
        break;
      case MetricType::kGauge:
        s.gauge = std::make_unique<Gauge>();
        break;
      case MetricType::kHistogram:
        s.histogram = std::make_unique<Histogram>(bounds_);
        break;
    }
  }
  return &s;
}

Counter* MetricFamily::GetCounter(const MetricLabels& values) {
  DFX_CHECK_MSG(type_ == MetricType::kCounter, name_);
  return GetSeries(values)->counter.get();
}

Gauge* MetricFamily::GetGauge(const MetricLabels& values) {
  DFX_CHECK_MSG(type_ == MetricType::kGauge, name_);
  Series* s = GetSeries(values);
  DFX_CHECK_MSG(s->gauge != nullptr, name_);
  return s->gauge.get();
}

Histogram* MetricFamily::GetHistogram(const MetricLabels& values) {
  DFX_CHECK_MSG(type_ == MetricType::kHistogram, name_);
  return GetSeries(values)->histogram.get();
}

std::unique_ptr<MetricFamily::Callback> MetricFamily::AddCallback(
    const MetricLabels& values, std::function<double()> read) {
  DFX_CHECK_MSG(type_ == MetricType::kGauge, name_);
  DFX_CHECK_MSG(values.size() == label_names_.size(), name_);
  {
    absl::MutexLock lock(&mu_);
    auto [it, added] = series_.try_emplace(values);
    DFX_CHECK_MSG(added, absl::StrCat(name_, ": a series with these labels "
                                             "exists already"));
    it->second.read = std::move(read);
  }
  return std::unique_ptr<Callback>(new Callback(this, values));
}

void MetricFamily::RemoveCallback(const MetricLabels& values) {
  absl::MutexLock lock(&mu_);
  series_.erase(values);
}

MetricFamily::Callback::~Callback() { family_->RemoveCallback(values_); }

void MetricFamily::Render(std::string* out) const {
  absl::MutexLock lock(&mu_);
  if (series_.empty()) return;
  static constexpr const char* kTypeNames[] = {"counter", "gauge",
                                               "histogram"};
  absl::StrAppend(out, "# HELP ", name_, " ", EscapeMetricHelp(help_),
                  "\n# TYPE ", name_, " ",
                  kTypeNames[static_cast<int>(type_)], "\n");
  for (const auto& [values, s] : series_) {
    if (type_ != MetricType::kHistogram) {
      out->append(name_);
      AppendLabels(label_names_, values, "", "", out);
      const double v = s.read    ? s.read()
                       : s.gauge ? s.gauge->Value()
                                 : static_cast<double>(s.counter->Value());
      absl::StrAppend(out, " ", FormatMetricValue(v), "\n");
      continue;
    }
    const std::vector<int64_t> counts = s.histogram->BucketCounts();
    int64_t cumulative = 0;
    for (size_t i = 0; i < counts.size(); ++i) {
      cumulative += counts[i];
      absl::StrAppend(out, name_, "_bucket");
      AppendLabels(label_names_, values, "le",
                   i < bounds_.size() ? FormatMetricValue(bounds_[i]) : "+Inf",
                   out);
      absl::StrAppend(out, " ", cumulative, "\n");
    }
    absl::StrAppend(out, name_, "_sum");
    AppendLabels(label_names_, values, "", "", out);
    absl::StrAppend(out, " ", FormatMetricValue(s.histogram->Sum()), "\n");
    absl::StrAppend(out, name_, "_count");
    AppendLabels(label_names_, values, "", "", out);
    absl::StrAppend(out, " ", cumulative, "\n");
  }
}

MetricsRegistry& MetricsRegistry::Default() {
  static MetricsRegistry* registry = new MetricsRegistry();
  return *registry;
}

MetricFamily* MetricsRegistry::Add(absl::string_view name,
                                   absl::string_view help, MetricType type,
                                   std::vector<std::string> label_names,
                                   std::vector<double> bounds) {
  DFX_CHECK_MSG(IsValidName(name, /*colon=*/true), name);
  for (const std::string& label : label_names) {
    DFX_CHECK_MSG(IsValidName(label, /*colon=*/false) &&
                      label.rfind("__", 0) != 0 &&
                      !(type == MetricType::kHistogram && label == "le"),
                  absl::StrCat(name, ": label ", label));
  }
  absl::MutexLock lock(&mu_);
  auto it = families_.find(name);
  if (it != families_.end()) {
    MetricFamily* f = it->second.get();
    DFX_CHECK_MSG(f->type_ == type && f->label_names_ == label_names &&
                      f->bounds_ == bounds,
                  absl::StrCat(name, " is registered already as another "
                                     "metric"));
    return f;
  }
  auto family = std::unique_ptr<MetricFamily>(
      new MetricFamily(std::string(name), std::string(help), type,
                       std::move(label_names), std::move(bounds)));
  MetricFamily* f = family.get();
  families_.emplace(std::string(name), std::move(family));
  return f;
}

MetricFamily* MetricsRegistry::AddCounter(
    absl::string_view name, absl::string_view help,
    std::vector<std::string> label_names) {
  return Add(name, help, MetricType::kCounter, std::move(label_names), {});
}

MetricFamily* MetricsRegistry::AddGauge(absl::string_view name,
                                        absl::string_view help,
                                        std::vector<std::string> label_names) {
  return Add(name, help, MetricType::kGauge, std::move(label_names), {});
}

MetricFamily* MetricsRegistry::AddHistogram(
    absl::string_view name, absl::string_view help,
    std::vector<std::string> label_names, std::vector<double> bounds) {
  return Add(name, help, MetricType::kHistogram, std::move(label_names),
             std::move(bounds));
}

std::string MetricsRegistry::RenderText() const {
  std::vector<const MetricFamily*> families;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& [name, f] : families_) families.push_back(f.get());
  }
  std::string out;
  for (const MetricFamily* f : families) f->Render(&out);
  return out;
}

std::string EscapeMetricHelp(absl::string_view text) {
  return absl::StrReplaceAll(text, {{"\\", "\\\\"}, {"\n", "\\n"}});
}

std::string EscapeMetricLabelValue(absl::string_view text) {
  return absl::StrReplaceAll(
      text, {{"\\", "\\\\"}, {"\n", "\\n"}, {"\"", "\\\""}});
}

std::string FormatMetricValue(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  DFX_CHECK(ec == std::errc());
  return std::string(buf, end);
}

const std::string& StatusCodeLabel(absl::StatusCode code) {
  static const auto* names = new std::vector<std::string>{
      "OK",
      "CANCELLED",
      "UNKNOWN",
      "INVALID_ARGUMENT",
      "DEADLINE_EXCEEDED",
      "NOT_FOUND",
      "ALREADY_EXISTS",
      "PERMISSION_DENIED",
      "RESOURCE_EXHAUSTED",
      "FAILED_PRECONDITION",
      "ABORTED",
      "OUT_OF_RANGE",
      "UNIMPLEMENTED",
      "INTERNAL",
      "UNAVAILABLE",
      "DATA_LOSS",
      "UNAUTHENTICATED"};
  const int i = static_cast<int>(code);
  return (i >= 0 && i < static_cast<int>(names->size())) ? (*names)[i]
                                                         : (*names)[2];
}

CountersByCode::CountersByCode(MetricFamily* family,
                               const MetricLabels& fixed_labels) {
  MetricLabels labels = fixed_labels;
  labels.emplace_back();
  for (int c = 0; c < kCodes; ++c) {
    labels.back() = StatusCodeLabel(static_cast<absl::StatusCode>(c));
    counters_[c] = family->GetCounter(labels);
  }
}

void CountersByCode::Increment(absl::StatusCode code) const {
  const int c = static_cast<int>(code);
  counters_[c >= 0 && c < kCodes ? c : static_cast<int>(
                                           absl::StatusCode::kUnknown)]
      ->Increment();
}

StepMetrics::StepMetrics(absl::string_view role)
    : steps_(MetricsRegistry::Default().AddCounter(
                 "dfx_steps_total",
                 "Steps by role (master: RunStep calls, worker: RunGraph "
                 "calls) and outcome (status code).",
                 {"role", "code"}),
             {std::string(role)}),
      latency_(MetricsRegistry::Default()
                   .AddHistogram("dfx_step_duration_seconds",
                                 "Time of one step by role (master: RunStep, "
                                 "worker: RunGraph).",
                                 {"role"}, LatencyBuckets())
                   ->GetHistogram({std::string(role)})) {}

void StepMetrics::Record(const absl::Status& status,
                         absl::Duration duration) const {
  steps_.Increment(status.code());
  latency_->Observe(absl::ToDoubleSeconds(duration));
}

}  // namespace dfx

// tf.data statistics aggregators (TensorFlow's StatsAggregator and
// StatsAggregatorResource): what LatencyStatsDataset and
// BytesProducedStatsDataset record into, reached through the
// IteratorContext that a SetStatsAggregatorDataset above them passes down.
#ifndef DFX_KERNELS_DATA_STATS_AGGREGATOR_H_
#define DFX_KERNELS_DATA_STATS_AGGREGATOR_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "kernels/summary/event_writer.h"
#include "kernels/summary/summary_convert.h"
#include "proto/summary.pb.h"
#include "runtime/resource_mgr.h"

namespace dfx::data {

// Where statistics go. Implementations are thread-safe.
class StatsAggregator {
 public:
  virtual ~StatsAggregator() = default;
  // Adds `value` to the histogram `name`; `step` is the recording
  // iterator's element count (the event's step for a V2 aggregator).
  virtual void AddToHistogram(const std::string& name, double value,
                              int64_t step) = 0;
  // Sets the scalar `name` to `value`.
  virtual void AddScalar(const std::string& name, float value,
                         int64_t step) = 0;
  // Adds `delta` to the counter `name` under `label` (TensorFlow's
  // process-wide monitoring counters, which no summary shows).
  virtual void IncrementCounter(const std::string& name,
                                const std::string& label, int64_t delta) = 0;
};

// The resource behind a StatsAggregatorHandle (V1: kept histograms and
// scalars, which Summary encodes) or StatsAggregatorHandleV2 (each
// recorded value written at once as an event to the summary writer set by
// SetSummaryWriter, nothing kept; Summary is empty). Thread-safe.
class StatsAggregatorResource final : public ResourceBase,
                                      public StatsAggregator {
 public:
  static constexpr char kTypeName[] = "StatsAggregatorResource";

  explicit StatsAggregatorResource(bool v2) : v2_(v2) {}
  std::string TypeName() const override { return kTypeName; }
  std::string DebugString() const override;

  void AddToHistogram(const std::string& name, double value,
                      int64_t step) override;
  void AddScalar(const std::string& name, float value, int64_t step) override;
  void IncrementCounter(const std::string& name, const std::string& label,
                        int64_t delta) override;

  // The V1 aggregator's histograms (TensorFlow's default buckets, runs of
  // empty buckets collapsed) then its scalars, each a Summary value tagged
  // with its name; nothing for V2.
  Summary Encode() const;
  // V2: later values are written to `writer` as events (step, wall time,
  // one value); a no-op for V1, as in TensorFlow.
  void SetSummaryWriter(std::shared_ptr<summary::SummaryFileWriter> writer);
  // The counter `name`'s total under `label`; 0 when never incremented.
  int64_t Counter(const std::string& name, const std::string& label) const;

 private:
  void WriteEventLocked(std::unique_ptr<Event> e)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const bool v2_;
  mutable absl::Mutex mu_;
  std::map<std::string, summary::Histogram> histograms_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, float> scalars_ ABSL_GUARDED_BY(mu_);
  std::map<std::pair<std::string, std::string>, int64_t> counters_
      ABSL_GUARDED_BY(mu_);
  std::shared_ptr<summary::SummaryFileWriter> writer_ ABSL_GUARDED_BY(mu_);
};

}  // namespace dfx::data

#endif  // DFX_KERNELS_DATA_STATS_AGGREGATOR_H_

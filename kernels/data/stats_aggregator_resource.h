// The resource behind the StatsAggregatorHandle ops (TensorFlow's
// StatsAggregatorResource with its V1 and V2 aggregators).
#ifndef DFX_KERNELS_DATA_STATS_AGGREGATOR_RESOURCE_H_
#define DFX_KERNELS_DATA_STATS_AGGREGATOR_RESOURCE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "kernels/data/stats_aggregator.h"
#include "kernels/summary/event_writer.h"
#include "kernels/summary/summary_convert.h"
#include "proto/summary.pb.h"
#include "runtime/resource_mgr.h"

namespace dfx::data {

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

#endif  // DFX_KERNELS_DATA_STATS_AGGREGATOR_RESOURCE_H_

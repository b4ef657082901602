// The tf.data statistics aggregator interface (TensorFlow's
// StatsAggregator): what LatencyStatsDataset, BytesProducedStatsDataset and
// FilterDataset record into, reached through the IteratorContext that a
// SetStatsAggregatorDataset above them passes down. The resource behind the
// handles is in stats_aggregator_resource.h.
#ifndef DFX_KERNELS_DATA_STATS_AGGREGATOR_H_
#define DFX_KERNELS_DATA_STATS_AGGREGATOR_H_

#include <cstdint>
#include <string>

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

}  // namespace dfx::data

#endif  // DFX_KERNELS_DATA_STATS_AGGREGATOR_H_

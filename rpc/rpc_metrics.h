// The RPC layer's metrics in MetricsRegistry::Default() (base/metrics.h):
// RecvTensor bytes and latency on both sides, bulk-plane bytes, and the
// errors this process's services answered with, by status code.
#ifndef DFX_RPC_RPC_METRICS_H_
#define DFX_RPC_RPC_METRICS_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "base/metrics.h"

namespace dfx {

// One side of RecvTensor: "server" (a tensor served to a peer, from the
// request to the reply) or "client" (a tensor fetched from a peer, from
// the request to the last byte, chunks and bulk included).
class RecvTensorMetrics {
 public:
  static const RecvTensorMetrics& Server();
  static const RecvTensorMetrics& Client();
  void Record(int64_t bytes, absl::Duration duration) const {
    bytes_->Increment(bytes);
    latency_->Observe(absl::ToDoubleSeconds(duration));
  }

 private:
  explicit RecvTensorMetrics(const char* side);
  Counter* const bytes_;
  Histogram* const latency_;
};

// Tensor bytes over the bulk data plane: sent by this process's bulk
// server, received by its bulk client.
Counter* BulkBytesSent();
Counter* BulkBytesReceived();
// Of those, the bytes handed over within the host as a shared-memory file
// (counted in both).
Counter* BulkLocalBytesSent();
Counter* BulkLocalBytesReceived();

// Counts one RPC this process's services answered with `status` (OK is
// not counted).
void CountRpcError(const absl::Status& status);

}  // namespace dfx

#endif  // DFX_RPC_RPC_METRICS_H_

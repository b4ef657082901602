#include "rpc/rpc_metrics.h"

namespace dfx {

RecvTensorMetrics::RecvTensorMetrics(const char* side)
    : bytes_(MetricsRegistry::Default()
                 .AddCounter("dfx_recv_tensor_bytes_total",
                             "Tensor bytes moved by RecvTensor, by side "
                             "(server: served to peers, client: fetched "
                             "from peers).",
                             {"side"})
                 ->GetCounter({side})),
      latency_(MetricsRegistry::Default()
                   .AddHistogram("dfx_recv_tensor_duration_seconds",
                                 "Time of one RecvTensor, by side (server: "
                                 "request to reply, client: request to the "
                                 "last byte).",
                                 {"side"}, LatencyBuckets())
                   ->GetHistogram({side})) {}

const RecvTensorMetrics& RecvTensorMetrics::Server() {
  static const RecvTensorMetrics* m = new RecvTensorMetrics("server");
  return *m;
}

const RecvTensorMetrics& RecvTensorMetrics::Client() {
  static const RecvTensorMetrics* m = new RecvTensorMetrics("client");
  return *m;
}

namespace {

MetricFamily* BulkBytes() {
  return MetricsRegistry::Default().AddCounter(
      "dfx_bulk_bytes_total",
      "Tensor bytes over the bulk data plane, by direction (sent by this "
      "process's bulk server, received by its bulk client).",
      {"direction"});
}

MetricFamily* BulkLocalBytes() {
  return MetricsRegistry::Default().AddCounter(
      "dfx_bulk_local_bytes_total",
      "Of dfx_bulk_bytes_total, the bytes handed over within the host as a "
      "shared-memory file instead of over TCP, by direction.",
      {"direction"});
}

}  // namespace

Counter* BulkLocalBytesSent() {
  static Counter* c = BulkLocalBytes()->GetCounter({"sent"});
  return c;
}

Counter* BulkLocalBytesReceived() {
  static Counter* c = BulkLocalBytes()->GetCounter({"received"});
  return c;
}

Counter* BulkBytesSent() {
  static Counter* c = BulkBytes()->GetCounter({"sent"});
  return c;
}

Counter* BulkBytesReceived() {
  static Counter* c = BulkBytes()->GetCounter({"received"});
  return c;
}

void CountRpcError(const absl::Status& status) {
  if (status.ok()) return;
  static const CountersByCode* errors = new CountersByCode(
      MetricsRegistry::Default().AddCounter(
          "dfx_rpc_errors_total",
          "Calls this process's gRPC services (master and worker) answered "
          "with an error, by status code.",
          {"code"}),
      {});
  errors->Increment(status.code());
}

}  // namespace dfx

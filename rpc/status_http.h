// StatusHttpServer: a server's status page and metrics over HTTP (HTTPS
// with the server's TLS certificate), served by cpp-httplib on the task's
// host:
//   /         an HTML page: the task and its peers with their health, the
//             live master and worker sessions, the most recent steps,
//             memory in use against the limit, each device arena's
//             memory (a GPU's), the bulk plane's traffic;
//             it reloads itself every 5 s.
//   /metrics  MetricsRegistry::Default() in Prometheus' text format 0.0.4.
//   /healthz  200 "ok" while the server serves (503 once it stops): a
//             readiness probe that reveals nothing and needs no token.
// With an auth token, / and /metrics answer 401 without "Authorization:
// Bearer TOKEN". With TLS and --tls-client-auth require, every path
// (/healthz too) needs a client certificate signed by the CA.
//
// Peers' health: every probe_interval the server asks each task of the
// cluster (itself included) for GetStatus and keeps the last answer or
// error with its time.
#ifndef DFX_RPC_STATUS_HTTP_H_
#define DFX_RPC_STATUS_HTTP_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "proto/cluster.pb.h"
#include "rpc/security.h"

namespace dfx {

class Device;
class Master;
class Worker;
class WorkerCacheInterface;

struct StatusHttpOptions {
  // Where to listen: the task's host; port 0 picks a free one.
  std::string host;
  int port = 0;
  // This task's name and its cluster (the peers listed).
  std::string task;
  ClusterDef cluster;
  // The auth token and TLS settings of the server.
  ServerSecurity security;
  // Borrowed; must outlive the status server (Stop it first).
  const Master* master = nullptr;
  const Worker* worker = nullptr;
  const WorkerCacheInterface* worker_cache = nullptr;
  // "host:port" of the bulk plane, empty when there is none.
  std::string bulk_address;
  // The task's devices (borrowed, like master). Those with an allocator of
  // their own (a GPU's arena; CPUs share the host allocator above) get a
  // row of the page's "Device memory" table and the gauges
  // dfx_device_memory_{in_use,peak,limit,reserved,largest_free}_bytes
  // {device="..."} (limit, reserved and largest free chunk: a BFC arena's,
  // else absent).
  std::vector<const Device*> devices;
  absl::Duration probe_interval = absl::Seconds(10);
};

// Thread-safe.
class StatusHttpServer {
 public:
  // Starts serving and probing. InvalidArgument for a bad certificate or
  // key; Unavailable naming host:port when it cannot listen.
  static absl::StatusOr<std::unique_ptr<StatusHttpServer>> Start(
      StatusHttpOptions options);

  // Stop(), then waits for the probes still out (see WaitForProbes).
  ~StatusHttpServer();
  StatusHttpServer(const StatusHttpServer&) = delete;
  StatusHttpServer& operator=(const StatusHttpServer&) = delete;

  // Stops serving (/healthz answers 503 until the listener closes) and
  // probing. Idempotent.
  void Stop();
  // True once every GetStatus probe started has called back, by `deadline`
  // (a probe of a peer that does not answer lasts up to the worker
  // interface's control timeout: cancel the workers' calls to end it).
  bool WaitForProbes(absl::Time deadline);

  int port() const;
  // "http://host:port" or "https://host:port".
  std::string url() const;

 private:
  class Impl;
  explicit StatusHttpServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// `text` with &, <, >, " and ' replaced by HTML entities.
std::string HtmlEscape(absl::string_view text);

}  // namespace dfx

#endif  // DFX_RPC_STATUS_HTTP_H_

#include "rpc/grpc_server.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "base/log.h"
#include "base/status_macros.h"
#include "eager/eager_service.h"
#include "runtime/gpu_options.h"
#include "runtime/more_devices.h"
#if DFX_HAVE_CUDA
#include "gpu/gpu_device_factory.h"
#endif
#include "grpcpp/security/server_credentials.h"
#include "grpcpp/server.h"
#include "grpcpp/server_builder.h"
#include "graph/device_name.h"
#include "master/master.h"
#include "rendezvous/remote_rendezvous.h"
#include "rendezvous/rendezvous_mgr.h"
#include "rpc/cluster_spec.h"
#include "rpc/grpc_eager_client.h"
#include "rpc/grpc_eager_service.h"
#include "rpc/grpc_collective.h"
#include "rpc/grpc_master_service.h"
#include "rpc/grpc_util.h"
#include "rpc/grpc_worker_cache.h"
#include "rpc/grpc_worker_service.h"
#include "rpc/status_http.h"
#include "runtime/collective.h"
#include "runtime/collective_leader.h"
#include "runtime/device.h"
#include "runtime/memory_limit.h"
#include "runtime/thread_pool.h"
#include "worker/local_worker.h"
#include "worker/worker.h"
#include "worker/worker_cache_fetcher.h"

namespace dfx {

class GrpcServer::Impl {
 public:
  ~Impl() {
    Stop(absl::Seconds(5));
    if (devices_ != nullptr) {
      for (Device* d : devices_->ListDevices()) UnregisterCollectiveResolver(d);
    }
    if (worker_ != nullptr) UnregisterCollectiveLeader(worker_.get());
    // Reverse order of construction; the pools drain before what their
    // closures use goes.
    status_http_.reset();
    master_service_.reset();
    eager_service_.reset();
    eager_.reset();
    {
      absl::MutexLock lock(&cleanup_mu_);
      cleanup_service_ = nullptr;
    }
    worker_service_.reset();
    master_.reset();
    compute_pool_.reset();
    collective_resolver_.reset();
    collective_client_.reset();
    // Its push streams may report a lost step through the fetcher until
    // they have ended, which its destructor waits for.
    worker_cache_.reset();
    fetcher_.reset();
    local_worker_.reset();
    worker_.reset();
    rendezvous_mgr_.reset();
    devices_.reset();
  }

  void Stop(absl::Duration grace) {
    absl::MutexLock lock(&stop_mu_);
    if (stopped_) return;
    stopped_ = true;
    spdlog::info("task {}: stopping", task_);
    // Readiness goes first: the page and /healthz stop answering.
    if (status_http_ != nullptr) status_http_->Stop();
    // Running steps end first (Cancelled), so the RPCs they wait on end
    // too. Closing the sessions tells every worker (DeleteWorkerSession);
    // a worker that does not answer within `grace` is not waited for.
    if (master_ != nullptr) {
      absl::Notification shut;
      std::thread shutdown([this, &shut] {
        master_->Shutdown();
        shut.Notify();
      });
      if (!shut.WaitForNotificationWithTimeout(grace)) {
        spdlog::warn("task {}: workers did not answer within {}; cancelling "
                     "the calls to them", task_, absl::FormatDuration(grace));
        for (const std::string& task : worker_cache_->ListTasks()) {
          if (WorkerInterface* w = worker_cache_->GetWorker(task)) {
            w->CancelAllCalls();
          }
        }
      }
      shutdown.join();
    }
    // The status page's GetStatus probes of peers that do not answer end
    // once the calls to them are cancelled.
    if (status_http_ != nullptr &&
        !status_http_->WaitForProbes(absl::Now() + grace)) {
      for (const std::string& task : worker_cache_->ListTasks()) {
        if (WorkerInterface* w = worker_cache_->GetWorker(task)) {
          w->CancelAllCalls();
        }
      }
      status_http_->WaitForProbes(absl::InfiniteFuture());
    }
    // Peers' push streams end now; the server would wait for them.
    if (worker_service_ != nullptr) worker_service_->EndPushStreams();
    if (server_ != nullptr) {
      server_->Shutdown(std::chrono::system_clock::now() +
                        absl::ToChronoMilliseconds(grace));
    }
    // Pending receives of steps that never got their CleanupGraph.
    if (rendezvous_mgr_ != nullptr) rendezvous_mgr_->CleanupAll();
    if (server_ != nullptr) server_->Wait();
    spdlog::info("task {}: stopped", task_);
  }

  std::string task_;
  std::string address_;
  std::unique_ptr<DeviceMgr> devices_;
  std::unique_ptr<RendezvousMgr> rendezvous_mgr_;
  std::unique_ptr<ThreadPool> compute_pool_;
  std::unique_ptr<Worker> worker_;
  std::unique_ptr<LocalWorker> local_worker_;
  std::unique_ptr<WorkerCacheInterface> worker_cache_;
  std::unique_ptr<WorkerCacheFetcher> fetcher_;
  // Collectives: the leader's tables (served when this task leads), the
  // way to a leader elsewhere, and the resolver the kernels of this task's
  // devices find through runtime/collective.h.
  CollectiveLeader collective_leader_;
  std::unique_ptr<GrpcCollectiveLeaderClient> collective_client_;
  std::unique_ptr<LeaderCollectiveResolver> collective_resolver_;
  std::unique_ptr<Master> master_;
  std::unique_ptr<GrpcWorkerService> worker_service_;
  // worker_service_ for the worker's step cleanups (set once it exists,
  // null again before it goes).
  absl::Mutex cleanup_mu_;
  GrpcWorkerService* cleanup_service_ ABSL_GUARDED_BY(cleanup_mu_) = nullptr;
  std::unique_ptr<GrpcMasterService> master_service_;
  std::unique_ptr<EagerService> eager_;
  std::unique_ptr<GrpcEagerService> eager_service_;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<StatusHttpServer> status_http_;

  absl::Mutex stop_mu_;
  bool stopped_ ABSL_GUARDED_BY(stop_mu_) = false;
};

namespace {

// The collective group leader: /job:chief task 0, /job:worker task 0, or
// the cluster's first task (by name), in that order of preference.
absl::StatusOr<std::string> CollectiveGroupLeader(const ClusterDef& cluster) {
  std::vector<std::string> tasks;
  for (const JobDef& job : cluster.job()) {
    for (const auto& [index, address] : job.tasks()) {
      tasks.push_back(TaskName(job.name(), index));
    }
  }
  std::sort(tasks.begin(), tasks.end());
  for (const char* job : {"chief", "worker"}) {
    const std::string first = TaskName(job, 0);
    if (std::find(tasks.begin(), tasks.end(), first) != tasks.end()) {
      return first;
    }
  }
  if (tasks.empty()) return absl::InvalidArgumentError("the cluster has no tasks");
  return tasks.front();
}

}  // namespace

absl::StatusOr<std::unique_ptr<GrpcServer>> GrpcServer::Create(
    const GrpcServerOptions& options) {
  if (options.num_cpu_devices < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "num_cpu_devices must be at least 1, got ", options.num_cpu_devices));
  }
  if (options.inter_op_threads < 0 || options.intra_op_threads < 0 ||
      options.master_threads < 1) {
    return absl::InvalidArgumentError(
        "thread counts must not be negative (master_threads at least 1)");
  }
  if (options.http_port < -1 || options.http_port > 65535) {
    return absl::InvalidArgumentError(absl::StrCat(
        "http_port must be -1 (none) or 0..65535, got ", options.http_port));
  }
  if (options.max_chunk_bytes < 1) {
    return absl::InvalidArgumentError("max_chunk_bytes must be positive");
  }
  DFX_ASSIGN_OR_RETURN(
      std::string address,
      TaskAddress(options.cluster, options.job_name, options.task_index));
  const int64_t memory_limit = options.memory_limit_bytes < 0
                                   ? DefaultHostMemoryLimit()
                                   : options.memory_limit_bytes;
  SetHostMemoryLimit(memory_limit);

  auto impl = std::make_unique<Impl>();
  Impl* raw = impl.get();
  impl->task_ = TaskName(options.job_name, options.task_index);

  CpuDeviceOptions device_options;
  device_options.task_name = impl->task_;
  device_options.num_devices = options.num_cpu_devices;
  device_options.intra_op_threads = options.intra_op_threads;
  ConfigProto gpu_config;
  *gpu_config.mutable_gpu_options() = options.gpu_options;
  if (options.max_gpu_devices >= 0) {
    (*gpu_config.mutable_device_count())["GPU"] = options.max_gpu_devices;
  }
  DFX_ASSIGN_OR_RETURN(GpuDeviceOptions gpu_options,
                       GpuDeviceOptionsFromConfig(gpu_config, impl->task_));
#if DFX_HAVE_CUDA
  // A caller's own devices (a test's fake GPUs) take the GPUs' place, as
  // in LocalSession::Create.
  std::optional<ScopedMoreDevices> gpus;
  if (ScopedMoreDevices::Current() == nullptr) {
    gpus.emplace(gpu::GpuDeviceFactory(std::move(gpu_options)));
  }
#else
  (void)gpu_options;
#endif
  DFX_ASSIGN_OR_RETURN(impl->devices_, DeviceMgr::NewCpu(device_options));
  // Each step's rendezvous fetches tensors of other tasks through the
  // fetcher, made below (steps start only once the server serves).
  impl->rendezvous_mgr_ =
      std::make_unique<RendezvousMgr>([raw](int64_t step_id) {
        return std::make_shared<RemoteRendezvous>(
            step_id, raw->task_, raw->fetcher_.get(), raw->fetcher_.get());
      });
  int inter_op = options.inter_op_threads;
  if (inter_op == 0) {
    inter_op =
        std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  }
  impl->compute_pool_ = std::make_unique<ThreadPool>("inter_op", inter_op);
  WorkerEnv env;
  env.device_mgr = impl->devices_.get();
  env.rendezvous_mgr = impl->rendezvous_mgr_.get();
  env.compute_pool = impl->compute_pool_.get();
  // Worker sessions outlive their master's idle sessions by as long again:
  // past that, no master will come back for them.
  env.session_gc_idle = options.session_gc_idle * 2;
  // A step cleaned up in any way (this task's master calls its worker
  // directly) lets go of what the worker service holds for its peers.
  env.on_step_cleanup = [raw](int64_t step_id) {
    absl::MutexLock lock(&raw->cleanup_mu_);
    if (raw->cleanup_service_ != nullptr) {
      raw->cleanup_service_->ReleaseStep(step_id);
    }
  };
  impl->worker_ = std::make_unique<Worker>(env);
  impl->local_worker_ = std::make_unique<LocalWorker>(impl->worker_.get());
  DFX_ASSIGN_OR_RETURN(
      impl->worker_cache_,
      NewGrpcWorkerCache(options.cluster, impl->task_,
                         impl->local_worker_.get(), options.max_chunk_bytes,
                         options.security.ForPeers(), options.enable_push));
  // A step whose pushes to a task may be lost (their stream ended) pushes
  // no more there; the receiver fetches what it lacks from what the step
  // kept (RemoteRendezvous::PushesLost).
  WorkerInterface::PushLost push_lost;
  if (options.enable_push) {
    push_lost = [raw](int64_t step_id, const std::string& task,
                      const absl::Status& /*why*/) {
      std::shared_ptr<Rendezvous> r =
          raw->rendezvous_mgr_->FindIfLive(step_id);
      if (auto* remote = dynamic_cast<RemoteRendezvous*>(r.get())) {
        remote->PushesLost(task);
      }
    };
  }
  impl->fetcher_ = std::make_unique<WorkerCacheFetcher>(
      impl->worker_cache_.get(), std::move(push_lost));
  // Collectives: the group leader is /job:chief task 0, else /job:worker
  // task 0, else the cluster's first task, so every server agrees.
  DFX_ASSIGN_OR_RETURN(const std::string leader,
                       CollectiveGroupLeader(options.cluster));
  if (leader == impl->task_) {
    RegisterCollectiveLeader(impl->worker_.get(), &impl->collective_leader_);
  } else {
    DFX_ASSIGN_OR_RETURN(DeviceName leader_name, DeviceName::Parse(leader));
    DFX_ASSIGN_OR_RETURN(
        std::string leader_address,
        TaskAddress(options.cluster, leader_name.job, leader_name.task));
    impl->collective_client_ = std::make_unique<GrpcCollectiveLeaderClient>(
        leader_address, leader, options.security.ForPeers());
  }
  impl->collective_resolver_ = std::make_unique<LeaderCollectiveResolver>(
      leader == impl->task_ ? &impl->collective_leader_ : nullptr,
      impl->collective_client_.get(), leader);
  for (Device* d : impl->devices_->ListDevices()) {
    RegisterCollectiveResolver(d, impl->collective_resolver_.get());
  }

  MasterEnv master_env;
  master_env.worker_cache = impl->worker_cache_.get();
  master_env.local_task = impl->task_;
  master_env.discovery_timeout = options.discovery_timeout;
  master_env.session_gc_idle = options.session_gc_idle;
  master_env.heartbeat_interval = options.heartbeat_interval;
  master_env.optimize_graphs = options.optimize_graphs;
  impl->master_ = std::make_unique<Master>(master_env);

  GrpcWorkerService::Options worker_options;
  worker_options.max_chunk_bytes = options.max_chunk_bytes;
  worker_options.auth_token = options.security.auth_token;
  // The bulk data plane listens on the task's host, on a port of its own,
  // with TLS when the gRPC port has it; never in clear text then.
  bool bulk = options.enable_bulk;
  if (bulk && options.security.tls()) {
    BulkTls::Config tls;
    tls.cert_pem = options.security.tls_cert_pem;
    tls.key_pem = options.security.tls_key_pem;
    tls.ca_pem = options.security.tls_ca_pem;
    tls.client_auth = static_cast<int>(options.security.tls_client_auth);
    absl::StatusOr<std::shared_ptr<const BulkTls>> bulk_tls =
        BulkTls::NewServer(tls);
    if (bulk_tls.ok()) {
      worker_options.bulk_tls = *std::move(bulk_tls);
    } else {
      spdlog::warn("task {}: no bulk transport, tensors go over gRPC only: {}",
                   impl->task_, bulk_tls.status());
      bulk = false;
    }
  }
  if (bulk) {
    worker_options.bulk_bind_host = address.substr(0, address.rfind(':'));
    worker_options.bulk_local = options.enable_bulk_local;
  }
  impl->worker_service_ =
      std::make_unique<GrpcWorkerService>(impl->worker_.get(), worker_options);
  {
    absl::MutexLock lock(&impl->cleanup_mu_);
    impl->cleanup_service_ = impl->worker_service_.get();
  }
  impl->master_service_ = std::make_unique<GrpcMasterService>(
      impl->master_.get(), options.master_threads, /*max_queued=*/1024,
      options.security.auth_token);
  // TensorFlow 2 clients (the eager service): each context reaches the
  // tasks of its client's ServerDef, the client's own server included.
  EagerServiceEnv eager_env;
  eager_env.device_mgr = impl->devices_.get();
  eager_env.rendezvous_mgr = impl->rendezvous_mgr_.get();
  eager_env.local_task = impl->task_;
  eager_env.worker_cache_factory =
      [raw, max_chunk = options.max_chunk_bytes,
       security = options.security.ForPeers()](const ServerDef& def) {
        return NewGrpcWorkerCache(def.cluster(), raw->task_,
                                  raw->local_worker_.get(), max_chunk,
                                  security);
      };
  eager_env.peer_client_factory =
      [raw, security = options.security.ForPeers()](const ServerDef& def) {
        return NewGrpcEagerPeerClient(def.cluster(), raw->task_, security);
      };
  impl->eager_ = std::make_unique<EagerService>(std::move(eager_env));
  impl->eager_service_ = std::make_unique<GrpcEagerService>(
      impl->eager_.get(), std::max(4, options.master_threads),
      /*max_queued=*/1024, options.security.auth_token);

  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(address, MakeServerCredentials(options.security),
                           &port);
  ConfigureServerBuilder(&builder);
  impl->worker_service_->RegisterWith(&builder);
  impl->master_service_->RegisterWith(&builder);
  impl->eager_service_->RegisterWith(&builder);
  impl->server_ = builder.BuildAndStart();
  if (impl->server_ == nullptr || port == 0) {
    impl->server_.reset();
    return absl::UnavailableError(absl::StrCat(
        "task ", impl->task_, ": cannot listen on ", address,
        options.security.tls()
            ? " (is the port in use, the host not an address of this "
              "machine, or the TLS certificate or key bad?)"
            : " (is the port in use, or the host not an address of this "
              "machine?)"));
  }
  impl->address_ = address.substr(0, address.rfind(':') + 1) +
                   std::to_string(port);
  const BulkServer* bulk_server = impl->worker_service_->bulk_server();
  if (options.http_port >= 0) {
    StatusHttpOptions http;
    http.host = address.substr(0, address.rfind(':'));
    http.port = options.http_port;
    http.task = impl->task_;
    http.cluster = options.cluster;
    http.security = options.security;
    http.master = impl->master_.get();
    http.worker = impl->worker_.get();
    http.worker_cache = impl->worker_cache_.get();
    if (bulk_server != nullptr) http.bulk_address = bulk_server->address();
    for (const Device* d : impl->devices_->ListDevices()) {
      http.devices.push_back(d);
    }
    DFX_ASSIGN_OR_RETURN(impl->status_http_,
                         StatusHttpServer::Start(std::move(http)));
    spdlog::info("task {}: status page at {}", impl->task_,
                 impl->status_http_->url());
  }
  int num_gpus = 0;
  for (const Device* d : impl->devices_->ListDevices()) {
    num_gpus += d->device_type() == "GPU";
  }
  spdlog::info("task {}: serving on {} with {} CPU device(s){}, memory limit "
               "{}{}{}{}", impl->task_, impl->address_,
               options.num_cpu_devices,
               num_gpus > 0 ? absl::StrCat(" and ", num_gpus, " GPU(s)")
                            : std::string(),
               memory_limit > 0 ? absl::StrCat(memory_limit, " bytes")
                                : std::string("none"),
               options.security.tls() ? ", TLS" : "",
               options.security.auth_token.empty() ? "" : ", auth token",
               bulk_server == nullptr
                   ? ", no bulk plane"
                   : absl::StrCat(", bulk plane on ", bulk_server->address(),
                                  worker_options.bulk_tls != nullptr
                                      ? " (TLS)"
                                      : "",
                                  bulk_server->local_address().empty()
                                      ? ""
                                      : " and " +
                                            bulk_server->local_address()));
  return std::unique_ptr<GrpcServer>(new GrpcServer(std::move(impl)));
}

GrpcServer::GrpcServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

GrpcServer::~GrpcServer() = default;

void GrpcServer::Stop(absl::Duration grace) { impl_->Stop(grace); }

const std::string& GrpcServer::task() const { return impl_->task_; }
const std::string& GrpcServer::address() const { return impl_->address_; }
std::string GrpcServer::target() const {
  return absl::StrCat("grpc://", impl_->address_);
}
Master* GrpcServer::master() const { return impl_->master_.get(); }
Worker* GrpcServer::worker() const { return impl_->worker_.get(); }
std::string GrpcServer::status_url() const {
  return impl_->status_http_ == nullptr ? std::string()
                                        : impl_->status_http_->url();
}

}  // namespace dfx

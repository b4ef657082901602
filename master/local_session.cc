#include "master/local_session.h"

#include <algorithm>
#include <optional>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "base/status_macros.h"
#include "kernels/kernels.h"
#include "runtime/gpu_options.h"
#include "runtime/more_devices.h"
#if DFX_HAVE_CUDA
#include "gpu/gpu_device_factory.h"
#endif

namespace dfx {
namespace {

constexpr char kTask[] = "/job:localhost/replica:0/task:0";

}  // namespace

absl::StatusOr<std::unique_ptr<LocalSession>> LocalSession::Create(
    const SessionOptions& options) {
  return Create(options, OpRegistry::Global(), StandardKernelRegistry());
}

absl::StatusOr<std::unique_ptr<LocalSession>> LocalSession::Create(
    const SessionOptions& options, const OpRegistry* ops,
    const KernelRegistry* kernels) {
  const ConfigProto& config = options.config;
  CpuDeviceOptions device_options;
  device_options.task_name = kTask;
  auto cpu = config.device_count().find("CPU");
  if (cpu != config.device_count().end()) {
    if (cpu->second < 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "device_count['CPU'] must be at least 1, got ", cpu->second));
    }
    device_options.num_devices = cpu->second;
  }
  if (config.intra_op_parallelism_threads() < 0 ||
      config.inter_op_parallelism_threads() < 0) {
    return absl::InvalidArgumentError(
        "intra_op_parallelism_threads and inter_op_parallelism_threads must "
        "not be negative");
  }
  if (config.operation_timeout_in_ms() < 0) {
    return absl::InvalidArgumentError(
        "operation_timeout_in_ms must not be negative");
  }
  device_options.intra_op_threads = config.intra_op_parallelism_threads();
  int inter_op = config.inter_op_parallelism_threads();
  if (inter_op == 0) {
    inter_op =
        std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  }

  // gpu_options is checked on every build, so a bad visible_device_list
  // fails alike with and without CUDA; the GPUs themselves come with CUDA.
  DFX_ASSIGN_OR_RETURN(GpuDeviceOptions gpu_options,
                       GpuDeviceOptionsFromConfig(config, kTask));
#if DFX_HAVE_CUDA
  // The GPUs CUDA sees, unless the caller's own scope says which devices
  // to add (tests add fake ones that way on machines without a GPU).
  std::optional<ScopedMoreDevices> gpus;
  if (ScopedMoreDevices::Current() == nullptr) {
    gpus.emplace(gpu::GpuDeviceFactory(std::move(gpu_options)));
  }
#else
  (void)gpu_options;
#endif

  std::unique_ptr<LocalSession> session(new LocalSession());
  DFX_ASSIGN_OR_RETURN(session->devices_, DeviceMgr::NewCpu(device_options));
  session->rendezvous_mgr_ = std::make_unique<RendezvousMgr>();
  session->compute_pool_ = std::make_unique<ThreadPool>("inter_op", inter_op);
  WorkerEnv env;
  env.device_mgr = session->devices_.get();
  env.rendezvous_mgr = session->rendezvous_mgr_.get();
  env.compute_pool = session->compute_pool_.get();
  env.ops = ops;
  env.kernels = kernels;
  session->worker_ = std::make_unique<Worker>(env);
  session->local_worker_ = std::make_unique<LocalWorker>(session->worker_.get());
  session->worker_cache_ = std::make_unique<StaticWorkerCache>();
  session->worker_cache_->AddWorker(kTask, session->local_worker_.get());

  // The cluster is this worker: its devices come from GetStatus, as a
  // master learns a remote worker's.
  struct StatusCall {
    GetStatusRequest request;
    GetStatusResponse response;
    absl::Notification done;
    absl::Status status;
  };
  auto call = std::make_shared<StatusCall>();
  session->local_worker_->GetStatusAsync(
      &call->request, &call->response, [call](const absl::Status& s) {
        call->status = s;
        call->done.Notify();
      });
  if (!call->done.WaitForNotificationWithTimeout(absl::Seconds(60))) {
    return absl::DeadlineExceededError(
        "the in-process worker did not answer GetStatus");
  }
  DFX_RETURN_IF_ERROR(call->status);

  MasterSession::Params params;
  params.options = options;
  params.devices.assign(call->response.device_attributes().begin(),
                        call->response.device_attributes().end());
  params.worker_cache = session->worker_cache_.get();
  params.client_device = absl::StrCat(kTask, "/device:CPU:0");
  params.ops = ops;
  params.kernels = kernels;
  DFX_ASSIGN_OR_RETURN(session->master_,
                       MasterSession::Create(std::move(params)));
  return session;
}

LocalSession::~LocalSession() {
  // The master session waits for every call it made on the worker.
  master_.reset();
  // Closures still unwinding on the pool (after an executor's done) finish
  // before the executors, the worker and the devices go.
  compute_pool_.reset();
  local_worker_.reset();
  worker_.reset();
  rendezvous_mgr_.reset();
  devices_.reset();
}

absl::Status LocalSession::Extend(const GraphDef& graph) {
  return master_->Extend(graph);
}

absl::Status LocalSession::Run(
    const RunOptions& run_options,
    const std::vector<std::pair<std::string, Tensor>>& feeds,
    const std::vector<std::string>& fetches,
    const std::vector<std::string>& targets, std::vector<Tensor>* outputs,
    RunMetadata* run_metadata) {
  return master_->Run(run_options, feeds, fetches, targets, outputs,
                      run_metadata);
}

absl::StatusOr<std::vector<DeviceAttributes>> LocalSession::ListDevices() {
  return master_->ListDevices();
}

absl::Status LocalSession::Close() { return master_->Close(); }

}  // namespace dfx

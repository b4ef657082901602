#include "rpc/grpc_session.h"

#include <algorithm>
#include <chrono>
#include <cstdint>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "base/status_macros.h"
#include "grpcpp/channel.h"
#include "grpcpp/client_context.h"
#include "proto/master_service.grpc.pb.h"
#include "rpc/grpc_util.h"
#include "runtime/recent_request_ids.h"

namespace dfx {
namespace {

constexpr absl::Duration kConnectTimeout = absl::Seconds(30);
constexpr absl::Duration kRefusedGrace = absl::Seconds(5);
// Control RPCs (CreateSession, ExtendSession, ListDevices) without an
// operation timeout: the master may wait up to its discovery timeout for
// the workers.
constexpr absl::Duration kControlTimeout = absl::Minutes(2);
constexpr absl::Duration kCloseTimeout = absl::Seconds(10);
// Added to a step's deadline for the RPC, so the master's DeadlineExceeded
// (naming the step) wins over gRPC's bare one.
constexpr absl::Duration kDeadlineSlack = absl::Seconds(2);

}  // namespace

class GrpcSession::Impl {
 public:
  Impl(std::string target, const std::string& address,
       const SessionOptions& options, const GrpcSessionOptions& grpc_options)
      : target_(std::move(target)),
        options_(options),
        tls_(grpc_options.security.tls),
        channel_(NewChannel(address, grpc_options.security)),
        stub_(tensorflow::MasterService::NewStub(channel_)) {}

  absl::Status Extend(const GraphDef& graph) {
    absl::MutexLock extend_lock(&extend_mu_);
    std::string handle;
    int64_t version;
    {
      absl::MutexLock lock(&mu_);
      if (closed_) return Closed();
      handle = handle_;
      version = graph_version_;
    }
    if (handle.empty()) return CreateLocked(graph);
    ExtendSessionRequest request;
    request.set_session_handle(handle);
    *request.mutable_graph_def() = graph;
    request.set_current_graph_version(version);
    ExtendSessionResponse response;
    DFX_RETURN_IF_ERROR(Call(ControlTimeout(), [&](grpc::ClientContext* ctx) {
      return stub_->ExtendSession(ctx, request, &response);
    }));
    absl::MutexLock lock(&mu_);
    graph_version_ = response.new_graph_version();
    return absl::OkStatus();
  }

  absl::Status Run(const RunOptions& run_options,
                   const std::vector<std::pair<std::string, Tensor>>& feeds,
                   const std::vector<std::string>& fetches,
                   const std::vector<std::string>& targets,
                   std::vector<Tensor>* outputs, RunMetadata* run_metadata) {
    DFX_ASSIGN_OR_RETURN(const std::string handle, EnsureSession());
    RunStepRequest request;
    request.set_session_handle(handle);
    for (const auto& [name, tensor] : feeds) {
      NamedTensorProto* feed = request.add_feed();
      feed->set_name(name);
      tensor.AsProtoTensorContent(feed->mutable_tensor());
    }
    // The master answers each fetch once; duplicates share a slot.
    absl::flat_hash_map<std::string, size_t> slot;
    for (const std::string& fetch : fetches) {
      if (slot.emplace(fetch, slot.size()).second) request.add_fetch(fetch);
    }
    for (const std::string& target : targets) request.add_target(target);
    *request.mutable_options() = run_options;
    const int64_t op_timeout_ms = options_.config.operation_timeout_in_ms();
    if (run_options.timeout_in_ms() <= 0 && op_timeout_ms > 0) {
      request.mutable_options()->set_timeout_in_ms(op_timeout_ms);
    }
    request.set_store_errors_in_response_body(true);
    // The master runs a request id once: a retry is never run twice.
    request.set_request_id(NewRequestId());
    const int64_t timeout_ms = request.options().timeout_in_ms();
    const absl::Duration rpc_timeout =
        timeout_ms > 0 ? absl::Milliseconds(timeout_ms) + kDeadlineSlack
                       : absl::ZeroDuration();

    RunStepResponse response;
    DFX_RETURN_IF_ERROR(Call(rpc_timeout, [&](grpc::ClientContext* ctx) {
      return stub_->RunStep(ctx, request, &response);
    }));
    if (response.status_code() != error::OK) {
      absl::Status error(static_cast<absl::StatusCode>(response.status_code()),
                         response.status_error_message());
      for (const auto& [url, value] : response.status_payload()) {
        error.SetPayload(url, absl::Cord(value));
      }
      return error;
    }
    std::vector<Tensor> values(slot.size());
    std::vector<bool> received(slot.size(), false);
    for (const NamedTensorProto& t : response.tensor()) {
      auto it = slot.find(t.name());
      if (it == slot.end()) {
        return absl::InternalError(absl::StrCat(
            "Received response for unrequested fetch: ", t.name()));
      }
      auto value = Tensor::FromProto(t.tensor());
      if (!value.ok()) {
        return absl::InternalError(absl::StrCat(
            "fetch '", t.name(), "' came back malformed: ",
            value.status().message()));
      }
      values[it->second] = *std::move(value);
      received[it->second] = true;
    }
    std::vector<Tensor> result;
    result.reserve(fetches.size());
    for (const std::string& fetch : fetches) {
      const size_t i = slot.at(fetch);
      if (!received[i]) {
        return absl::InternalError(
            absl::StrCat("the master returned no value for fetch '", fetch,
                         "'"));
      }
      result.push_back(values[i]);
    }
    *outputs = std::move(result);
    if (run_metadata != nullptr && response.has_metadata()) {
      run_metadata->MergeFrom(response.metadata());
    }
    return absl::OkStatus();
  }

  absl::StatusOr<std::vector<DeviceAttributes>> ListDevices() {
    DFX_ASSIGN_OR_RETURN(const std::string handle, EnsureSession());
    ListDevicesRequest request;
    request.set_session_handle(handle);
    ListDevicesResponse response;
    DFX_RETURN_IF_ERROR(Call(ControlTimeout(), [&](grpc::ClientContext* ctx) {
      return stub_->ListDevices(ctx, request, &response);
    }));
    std::vector<DeviceAttributes> devices(response.local_device().begin(),
                                          response.local_device().end());
    devices.insert(devices.end(), response.remote_device().begin(),
                   response.remote_device().end());
    return devices;
  }

  absl::Status Close() {
    std::string handle;
    {
      absl::MutexLock lock(&mu_);
      if (closed_) return absl::OkStatus();
      closed_ = true;
      handle = handle_;
    }
    absl::Status status;
    if (!handle.empty()) status = CloseRemote(handle);
    // What the master did not end (a call stuck in transit) ends here.
    absl::MutexLock lock(&mu_);
    for (grpc::ClientContext* ctx : in_flight_) ctx->TryCancel();
    return status;
  }

  std::string handle() const {
    absl::MutexLock lock(&mu_);
    return handle_;
  }

 private:
  static absl::Status Closed() {
    return absl::CancelledError("session is closed");
  }

  absl::Duration ControlTimeout() const {
    const int64_t ms = options_.config.operation_timeout_in_ms();
    return ms > 0 ? absl::Milliseconds(ms) + kDeadlineSlack : kControlTimeout;
  }

  // Waits (once) for the channel to connect, so that an absent master is
  // reported as such and later calls can fail fast. A master still starting
  // refuses connections for a while, so refusals are retried for
  // kRefusedGrace; a peer that neither answers nor refuses (a host that is
  // gone) is waited for up to the whole connect timeout.
  absl::Status EnsureConnected() {
    absl::MutexLock lock(&connect_mu_);
    if (connected_) return absl::OkStatus();
    absl::Duration timeout = kConnectTimeout;
    const int64_t ms = options_.config.operation_timeout_in_ms();
    if (ms > 0) timeout = std::min(timeout, absl::Milliseconds(ms));
    const absl::Time start = absl::Now();
    const absl::Time end = start + timeout;
    grpc_connectivity_state state = channel_->GetState(true);
    while (state != GRPC_CHANNEL_READY) {
      const absl::Time now = absl::Now();
      if (now >= end || state == GRPC_CHANNEL_SHUTDOWN) break;
      if (state == GRPC_CHANNEL_TRANSIENT_FAILURE &&
          now - start >= kRefusedGrace) {
        return absl::UnavailableError(absl::StrCat(
            "no master at ", target_, ": connections failed for ",
            absl::FormatDuration(now - start),
            tls_ ? " (is a dfx server running there, with TLS, a certificate "
                   "for that address signed by the CA, and does it need a "
                   "client certificate?)"
                 : " (is a dfx server running there, without TLS?)"));
      }
      channel_->WaitForStateChange(
          state, absl::ToChronoTime(std::min(end, now + absl::Milliseconds(250))));
      state = channel_->GetState(true);
    }
    if (state != GRPC_CHANNEL_READY) {
      return absl::UnavailableError(
          absl::StrCat("no master at ", target_, ": could not connect within ",
                       absl::FormatDuration(timeout)));
    }
    connected_ = true;
    return absl::OkStatus();
  }

  // One RPC with `timeout` (zero: none), cancelled by Close. `rpc` runs the
  // blocking stub call on the context.
  template <typename Rpc>
  absl::Status Call(absl::Duration timeout, Rpc rpc) {
    DFX_RETURN_IF_ERROR(EnsureConnected());
    grpc::ClientContext ctx;
    SetTimeout(&ctx, timeout);
    {
      absl::MutexLock lock(&mu_);
      if (closed_) return Closed();
      in_flight_.insert(&ctx);
    }
    const grpc::Status status = rpc(&ctx);
    bool closed;
    {
      absl::MutexLock lock(&mu_);
      in_flight_.erase(&ctx);
      closed = closed_;
    }
    if (status.ok()) return absl::OkStatus();
    if (closed && status.error_code() == grpc::StatusCode::CANCELLED) {
      return Closed();
    }
    // Unavailable with details is the master's answer (a step's task was
    // unavailable: base/task_status.h), not a master out of reach.
    if (status.error_code() == grpc::StatusCode::UNAVAILABLE &&
        status.error_details().empty()) {
      return absl::UnavailableError(absl::StrCat(
          "master at ", target_, ": ", status.error_message()));
    }
    return FromGrpcStatus(status);
  }

  // The session's handle, creating the session with an empty graph first
  // when there is none yet.
  absl::StatusOr<std::string> EnsureSession() {
    {
      absl::MutexLock lock(&mu_);
      if (closed_) return Closed();
      if (!handle_.empty()) return handle_;
    }
    absl::MutexLock extend_lock(&extend_mu_);
    {
      absl::MutexLock lock(&mu_);
      if (closed_) return Closed();
      if (!handle_.empty()) return handle_;
    }
    DFX_RETURN_IF_ERROR(CreateLocked(GraphDef()));
    return handle();
  }

  absl::Status CreateLocked(const GraphDef& graph)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(extend_mu_) {
    CreateSessionRequest request;
    *request.mutable_graph_def() = graph;
    *request.mutable_config() = options_.config;
    request.set_target(target_);
    CreateSessionResponse response;
    DFX_RETURN_IF_ERROR(Call(ControlTimeout(), [&](grpc::ClientContext* ctx) {
      return stub_->CreateSession(ctx, request, &response);
    }));
    {
      absl::MutexLock lock(&mu_);
      if (!closed_) {
        handle_ = response.session_handle();
        graph_version_ = response.graph_version();
        return absl::OkStatus();
      }
    }
    // Closed while the master made the session: it goes at once.
    CloseRemote(response.session_handle()).IgnoreError();
    return Closed();
  }

  absl::Status CloseRemote(const std::string& handle) {
    CloseSessionRequest request;
    request.set_session_handle(handle);
    CloseSessionResponse response;
    grpc::ClientContext ctx;
    SetTimeout(&ctx, kCloseTimeout);
    return FromGrpcStatus(stub_->CloseSession(&ctx, request, &response));
  }

  const std::string target_;
  const SessionOptions options_;
  const bool tls_;
  const std::shared_ptr<grpc::Channel> channel_;
  const std::unique_ptr<tensorflow::MasterService::Stub> stub_;

  absl::Mutex connect_mu_;
  bool connected_ ABSL_GUARDED_BY(connect_mu_) = false;

  // Serializes CreateSession and ExtendSession (graph versions).
  absl::Mutex extend_mu_ ABSL_ACQUIRED_BEFORE(mu_);
  mutable absl::Mutex mu_;
  std::string handle_ ABSL_GUARDED_BY(mu_);
  int64_t graph_version_ ABSL_GUARDED_BY(mu_) = 0;
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  // The contexts of the RPCs in flight, for Close to cancel.
  absl::flat_hash_set<grpc::ClientContext*> in_flight_ ABSL_GUARDED_BY(mu_);
};

namespace {

ABSL_CONST_INIT absl::Mutex default_options_mu(absl::kConstInit);
GrpcSessionOptions* default_options ABSL_GUARDED_BY(default_options_mu) =
    nullptr;

}  // namespace

void SetDefaultGrpcSessionOptions(GrpcSessionOptions options) {
  absl::MutexLock lock(&default_options_mu);
  if (default_options == nullptr) default_options = new GrpcSessionOptions;
  *default_options = std::move(options);
}

GrpcSessionOptions DefaultGrpcSessionOptions() {
  absl::MutexLock lock(&default_options_mu);
  return default_options == nullptr ? GrpcSessionOptions() : *default_options;
}

absl::StatusOr<std::unique_ptr<GrpcSession>> GrpcSession::Create(
    absl::string_view target, const SessionOptions& options) {
  return Create(target, options, DefaultGrpcSessionOptions());
}

absl::StatusOr<std::unique_ptr<GrpcSession>> GrpcSession::Create(
    absl::string_view target, const SessionOptions& options,
    const GrpcSessionOptions& grpc_options) {
  DFX_ASSIGN_OR_RETURN(const std::string address, ParseGrpcTarget(target));
  if (options.config.operation_timeout_in_ms() < 0) {
    return absl::InvalidArgumentError(
        "operation_timeout_in_ms must not be negative");
  }
  return std::unique_ptr<GrpcSession>(
      new GrpcSession(std::make_unique<Impl>(std::string(target), address,
                                             options, grpc_options)));
}

GrpcSession::GrpcSession(std::unique_ptr<Impl> impl)
    : impl_(std::move(impl)) {}

GrpcSession::~GrpcSession() { Close().IgnoreError(); }

absl::Status GrpcSession::Extend(const GraphDef& graph) {
  return impl_->Extend(graph);
}

absl::Status GrpcSession::Run(
    const RunOptions& run_options,
    const std::vector<std::pair<std::string, Tensor>>& feeds,
    const std::vector<std::string>& fetches,
    const std::vector<std::string>& targets, std::vector<Tensor>* outputs,
    RunMetadata* run_metadata) {
  return impl_->Run(run_options, feeds, fetches, targets, outputs,
                    run_metadata);
}

absl::StatusOr<std::vector<DeviceAttributes>> GrpcSession::ListDevices() {
  return impl_->ListDevices();
}

absl::Status GrpcSession::Close() { return impl_->Close(); }

std::string GrpcSession::handle() const { return impl_->handle(); }

}  // namespace dfx

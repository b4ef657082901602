#include "rpc/grpc_remote_worker.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "base/log.h"
#include "grpcpp/client_context.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/support/stub_options.h"
#include "proto/dfx_worker_service.pb.h"
#include "proto/worker_service.grpc.pb.h"
#include "rpc/bulk_transport.h"
#include "rpc/grpc_remote_worker_shared.h"
#include "rpc/grpc_util.h"
#include "rpc/recv_tensor_call.h"
#include "rpc/tensor_coding.h"
#include "rpc/tensor_push.h"

namespace dfx {
namespace {

// After the bulk server of a task could not be reached, its tensors go
// over gRPC alone for this long: a firewall that drops the connection
// attempts must not cost every RecvTensor a connect timeout.
constexpr absl::Duration kBulkRetryAfter = absl::Minutes(5);
// Deadlines of the calls the interface gives none: control calls, the
// cleanup calls sent after steps and sessions (TensorFlow's master gives
// DeleteWorkerSession 10 s), and RegisterGraph, whose graph may be large.
constexpr absl::Duration kControlTimeout = absl::Seconds(60);
constexpr absl::Duration kCleanupTimeout = absl::Seconds(10);
constexpr absl::Duration kRegisterTimeout = absl::Minutes(5);

// The process's bulk client, shared by every remote worker so that a
// process talking to many tasks keeps a few transfer threads, not a few per
// task; it goes with the last remote worker.
std::shared_ptr<BulkClient> ProcessBulkClient() {
  ABSL_CONST_INIT static absl::Mutex mu(absl::kConstInit);
  static auto* weak = new std::weak_ptr<BulkClient>();
  absl::MutexLock lock(&mu);
  std::shared_ptr<BulkClient> client = weak->lock();
  if (client == nullptr) {
    client = std::make_shared<BulkClient>();
    *weak = client;
  }
  return client;
}

}  // namespace

namespace remote_worker_internal {

Shared::Shared(std::shared_ptr<grpc::Channel> channel, std::string task_name,
               const GrpcRemoteWorkerOptions& options)
    : stub(tensorflow::WorkerService::NewStub(channel)),
      generic(channel),
      task(std::move(task_name)),
      max_chunk_bytes(options.max_chunk_bytes > 0 ? options.max_chunk_bytes
                                                  : int64_t{1} << 30),
      allow_bulk(options.allow_bulk),
      bulk_auth_token(options.bulk_auth_token),
      bulk_tls(options.bulk_tls),
      bulk_tls_host(options.bulk_tls_host),
      bulk(ProcessBulkClient()) {}

bool Shared::BulkEnabled() {
  if (!allow_bulk) return false;
  absl::MutexLock lock(&mu);
  return absl::Now() >= bulk_retry_at;
}

void Shared::DisableBulk(const absl::Status& why) {
  {
    absl::MutexLock lock(&mu);
    bulk_retry_at = absl::Now() + kBulkRetryAfter;
  }
  spdlog::warn("task {}: its bulk transport cannot be reached; tensors go "
               "over gRPC alone for the next {}: {}", task,
               absl::FormatDuration(kBulkRetryAfter), why.message());
}

// The status of a finished call. `what` says which call ("RunGraph",
// "RecvTensor of '<key>'").
absl::Status CallStatus(const Shared& shared, absl::string_view what,
                        const grpc::Status& status) {
  switch (status.error_code()) {
    case grpc::StatusCode::OK: return absl::OkStatus();
    case grpc::StatusCode::UNAVAILABLE:
      return absl::UnavailableError(absl::StrCat(
          "task ", shared.task, " is unavailable: ", status.error_message(),
          " (", what, ")"));
    case grpc::StatusCode::DEADLINE_EXCEEDED:
    case grpc::StatusCode::CANCELLED:
      // Usually this side's own deadline or cancellation: say where.
      return absl::Status(static_cast<absl::StatusCode>(status.error_code()),
                          absl::StrCat(what, " on task ", shared.task, ": ",
                                       status.error_message()));
    default: return FromGrpcStatus(status);
  }
}

}  // namespace remote_worker_internal

namespace {

using remote_worker_internal::CallStatus;
using remote_worker_internal::Shared;
using remote_worker_internal::StartRecvTensorCall;

// Installs the cancellation of `context` in `opts`; the context may be gone
// by the time a late StartCancel runs.
void LinkCancel(CallOptions* opts,
                const std::shared_ptr<grpc::ClientContext>& context) {
  if (opts == nullptr) return;
  opts->SetCancelCallback([weak = std::weak_ptr<grpc::ClientContext>(context)] {
    if (auto c = weak.lock()) c->TryCancel();
  });
}

// Fills call->recv (in recv_key order), call->step_stats and
// call->partition_graphs.
absl::Status ReadRunGraphResponse(const Shared& shared,
                                  RunGraphResponse* response,
                                  RunGraphCall* call) {
  if (response->status_code() != error::OK) {
    return absl::Status(static_cast<absl::StatusCode>(response->status_code()),
                        response->status_error_message());
  }
  absl::flat_hash_map<absl::string_view, const NamedTensorProto*> by_key;
  for (const NamedTensorProto& recv : response->recv()) {
    by_key[recv.name()] = &recv;
  }
  call->recv.clear();
  call->recv.reserve(call->request.recv_key_size());
  for (const std::string& key : call->request.recv_key()) {
    auto it = by_key.find(key);
    if (it == by_key.end()) {
      return absl::InternalError(
          absl::StrCat("RunGraph response from task ", shared.task,
                       " has no tensor for recv_key '", key, "'"));
    }
    absl::StatusOr<Tensor> t = Tensor::FromProto(it->second->tensor());
    if (!t.ok()) {
      return absl::InternalError(absl::StrCat(
          "RunGraph response from task ", shared.task, ": the tensor of '", key,
          "' does not decode: ", t.status().message()));
    }
    call->recv.emplace_back(key, *std::move(t));
  }
  call->step_stats.Swap(response->mutable_step_stats());
  call->partition_graphs.clear();
  for (GraphDef& g : *response->mutable_partition_graph()) {
    call->partition_graphs.push_back(std::move(g));
  }
  return absl::OkStatus();
}


class GrpcRemoteWorker : public WorkerInterface {
 public:
  GrpcRemoteWorker(std::shared_ptr<grpc::Channel> channel, std::string task,
                   const GrpcRemoteWorkerOptions& options)
      : shared_(std::make_unique<Shared>(channel, task, options)),
        push_(options.push_from_task.empty()
                  ? nullptr
                  : std::make_unique<TensorPushClient>(
                        channel, options.push_from_task, std::move(task))) {}

  bool PushTensor(int64_t step_id, const std::string& key, const Tensor& value,
                  bool is_dead, bool pull, const PushLost* lost) override {
    if (push_ == nullptr) return false;
    return push_->Push(step_id, key, value, is_dead, pull, lost);
  }

  void CancelAllCalls() override {
    if (push_ != nullptr) push_->Shutdown();
    std::vector<std::shared_ptr<grpc::ClientContext>> live;
    {
      absl::MutexLock lock(&shared_->mu);
      shared_->cancelled = true;
      for (const auto& [raw, weak] : shared_->live) {
        if (auto context = weak.lock()) live.push_back(std::move(context));
      }
    }
    for (const auto& context : live) context->TryCancel();
  }

  void GetStatusAsync(const GetStatusRequest* request,
                      GetStatusResponse* response,
                      StatusCallback done) override {
    Unary("GetStatus", kControlTimeout, std::move(done),
          [&](grpc::ClientContext* c, std::function<void(grpc::Status)> cb) {
            shared_->stub->async()->GetStatus(c, request, response,
                                              std::move(cb));
          });
  }
  void CreateWorkerSessionAsync(const CreateWorkerSessionRequest* request,
                                CreateWorkerSessionResponse* response,
                                StatusCallback done) override {
    Unary("CreateWorkerSession", kControlTimeout, std::move(done),
          [&](grpc::ClientContext* c, std::function<void(grpc::Status)> cb) {
            shared_->stub->async()->CreateWorkerSession(c, request, response,
                                                        std::move(cb));
          });
  }
  void DeleteWorkerSessionAsync(const DeleteWorkerSessionRequest* request,
                                DeleteWorkerSessionResponse* response,
                                StatusCallback done) override {
    Unary("DeleteWorkerSession", kCleanupTimeout, std::move(done),
          [&](grpc::ClientContext* c, std::function<void(grpc::Status)> cb) {
            shared_->stub->async()->DeleteWorkerSession(c, request, response,
                                                        std::move(cb));
          });
  }
  void RegisterGraphAsync(const RegisterGraphRequest* request,
                          RegisterGraphResponse* response,
                          StatusCallback done) override {
    Unary("RegisterGraph", kRegisterTimeout, std::move(done),
          [&](grpc::ClientContext* c, std::function<void(grpc::Status)> cb) {
            shared_->stub->async()->RegisterGraph(c, request, response,
                                                  std::move(cb));
          });
  }
  void DeregisterGraphAsync(const DeregisterGraphRequest* request,
                            DeregisterGraphResponse* response,
                            StatusCallback done) override {
    Unary("DeregisterGraph", kCleanupTimeout, std::move(done),
          [&](grpc::ClientContext* c, std::function<void(grpc::Status)> cb) {
            shared_->stub->async()->DeregisterGraph(c, request, response,
                                                    std::move(cb));
          });
  }
  void CleanupGraphAsync(const CleanupGraphRequest* request,
                         CleanupGraphResponse* response,
                         StatusCallback done) override {
    Unary("CleanupGraph", kCleanupTimeout, std::move(done),
          [&](grpc::ClientContext* c, std::function<void(grpc::Status)> cb) {
            shared_->stub->async()->CleanupGraph(c, request, response,
                                                 std::move(cb));
          });
  }
  void CleanupAllAsync(const CleanupAllRequest* request,
                       CleanupAllResponse* response,
                       StatusCallback done) override {
    Unary("CleanupAll", kControlTimeout, std::move(done),
          [&](grpc::ClientContext* c, std::function<void(grpc::Status)> cb) {
            shared_->stub->async()->CleanupAll(c, request, response,
                                               std::move(cb));
          });
  }

  void RunGraphAsync(CallOptions* opts, RunGraphCall* call,
                     StatusCallback done) override {
    struct State {
      std::shared_ptr<grpc::ClientContext> context =
          std::make_shared<grpc::ClientContext>();
      RunGraphRequest request;
      RunGraphResponse response;
    };
    auto state = std::make_shared<State>();
    // RunGraphCall.request carries no feeds; they travel as TensorProtos.
    state->request = call->request;
    for (const auto& [key, tensor] : call->send) {
      NamedTensorProto* feed = state->request.add_send();
      feed->set_name(key);
      tensor.AsProtoTensorContent(feed->mutable_tensor());
    }
    if (opts != nullptr) SetTimeout(state->context.get(), opts->timeout());
    LinkCancel(opts, state->context);
    grpc::ClientContext* context = state->context.get();
    shared_->stub->async()->RunGraph(
        context, &state->request, &state->response,
        [shared = shared_.get(), state, opts, call,
         done = std::move(done)](grpc::Status s) mutable {
          if (opts != nullptr) opts->ClearCancelCallback();
          absl::Status status = CallStatus(*shared, "RunGraph", s);
          if (status.ok()) {
            status = ReadRunGraphResponse(*shared, &state->response, call);
          }
          state.reset();  // the context goes before `done` (see Shared)
          done(status);
        });
  }

  void RecvTensorAsync(CallOptions* opts, const RecvTensorRequest* request,
                       RecvTensorResult* response,
                       StatusCallback done) override {
    StartRecvTensorCall(shared_.get(), opts, request, response,
                        std::move(done));
  }

 private:
  // A call without CallOptions: the stub's callback API with a context
  // that lives until the call ends, bounded by `timeout` (the interface
  // gives these calls no deadline of their own, and none may wait forever
  // on a peer that stopped answering).
  template <typename StartFn>
  void Unary(const char* what, absl::Duration timeout, StatusCallback done,
             StartFn start) {
    auto context = std::make_shared<grpc::ClientContext>();
    SetTimeout(context.get(), timeout);
    bool cancelled = false;
    {
      absl::MutexLock lock(&shared_->mu);
      cancelled = shared_->cancelled;
      if (!cancelled) shared_->live[context.get()] = context;
    }
    if (cancelled) {
      done(absl::UnavailableError(
          absl::StrCat(what, " to task ", shared_->task,
                       " not sent: this process is shutting down")));
      return;
    }
    start(context.get(), [shared = shared_.get(), context, what,
                          done = std::move(done)](grpc::Status s) mutable {
      {
        absl::MutexLock lock(&shared->mu);
        shared->live.erase(context.get());
      }
      context.reset();  // before `done` (see Shared)
      done(CallStatus(*shared, what, s));
    });
  }

  const std::unique_ptr<Shared> shared_;
  // Null when this process pushes nothing. Goes first: its destructor
  // waits for the stream to end.
  const std::unique_ptr<TensorPushClient> push_;
};

}  // namespace

std::unique_ptr<WorkerInterface> NewGrpcRemoteWorker(
    std::shared_ptr<grpc::Channel> channel, std::string task,
    int64_t max_chunk_bytes) {
  GrpcRemoteWorkerOptions options;
  options.max_chunk_bytes = max_chunk_bytes;
  return NewGrpcRemoteWorker(std::move(channel), std::move(task), options);
}

std::unique_ptr<WorkerInterface> NewGrpcRemoteWorker(
    std::shared_ptr<grpc::Channel> channel, std::string task,
    const GrpcRemoteWorkerOptions& options) {
  return std::make_unique<GrpcRemoteWorker>(std::move(channel), std::move(task),
                                            options);
}

}  // namespace dfx

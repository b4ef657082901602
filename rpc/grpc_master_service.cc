#include "rpc/grpc_master_service.h"

#include <algorithm>
#include <atomic>
#include <functional>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "proto/master_service.grpc.pb.h"
#include "rpc/grpc_util.h"
#include "rpc/rpc_metrics.h"
#include "rpc/request_gate.h"
#include "runtime/elastic_thread_pool.h"
#include "worker/worker_interface.h"

namespace dfx {
namespace {

// One master call: its deadline and the client's cancellation (a client
// that cancels, passes its deadline or goes away) reach the master through
// `opts`. gRPC frees nothing of a custom reactor: it deletes itself in
// OnDone, gRPC's last call on it.
class MasterCallReactor : public grpc::ServerUnaryReactor {
 public:
  explicit MasterCallReactor(const grpc::CallbackServerContext* context) {
    opts_.SetTimeout(TimeLeft(context));
  }
  CallOptions* opts() { return &opts_; }

  void OnCancel() override { opts_.StartCancel(); }
  void OnDone() override { delete this; }

 private:
  CallOptions opts_;
};

using TfMasterService = tensorflow::MasterService;
using MasterServiceBase = TfMasterService::WithRawCallbackMethod_CreateSession<
    TfMasterService::WithRawCallbackMethod_ExtendSession<
        TfMasterService::WithRawCallbackMethod_RunStep<
            TfMasterService::WithRawCallbackMethod_CloseSession<
                TfMasterService::WithRawCallbackMethod_ListDevices<
                    TfMasterService::WithRawCallbackMethod_Reset<
                        TfMasterService::Service>>>>>>;

}  // namespace

// Every method is raw: its body is parsed by the RequestGate (after the
// auth token check), so garbage is InvalidArgument naming the request.
class GrpcMasterService::Impl : public MasterServiceBase {
 public:
  Impl(Master* master, int num_threads, int max_queued,
       std::string auth_token)
      : master_(master),
        gate_(std::move(auth_token)),
        max_calls_(std::max(1, num_threads) + std::max(0, max_queued)),
        pool_(std::make_unique<ElasticThreadPool>("master_service",
                                                  std::max(1, num_threads))) {}

  // The pool goes first: its destructor waits for the calls on it.
  ~Impl() override { pool_.reset(); }

  grpc::ServerUnaryReactor* CreateSession(grpc::CallbackServerContext* context,
                                          const grpc::ByteBuffer* request,
                                          grpc::ByteBuffer* response) override {
    return Serve<CreateSessionRequest, CreateSessionResponse>(
        context, request, response,
        [this](auto& req, auto* resp, CallOptions* opts) {
          return master_->CreateSession(std::move(req), resp, opts);
        });
  }
  grpc::ServerUnaryReactor* ExtendSession(grpc::CallbackServerContext* context,
                                          const grpc::ByteBuffer* request,
                                          grpc::ByteBuffer* response) override {
    return Serve<ExtendSessionRequest, ExtendSessionResponse>(
        context, request, response,
        [this](auto& req, auto* resp, CallOptions* opts) {
          return master_->ExtendSession(std::move(req), resp, opts);
        });
  }
  // Runs on gRPC's thread up to the step's start (the cheap first nodes of
  // this process's partition included) and answers from whichever thread
  // ends the step: a repeated step costs no hand-off to the pool. What may
  // block (a new signature's graph, an error's status checks) goes to it.
  grpc::ServerUnaryReactor* RunStep(grpc::CallbackServerContext* context,
                                    const grpc::ByteBuffer* body,
                                    grpc::ByteBuffer* out) override {
    auto* reactor = new MasterCallReactor(context);
    auto request = Admit<RunStepRequest>(*context, *body, reactor);
    if (request == nullptr) return reactor;
    auto response = std::make_shared<RunStepResponse>();
    master_->RunStepAsync(
        *request, response.get(), reactor->opts(),
        [this](std::function<void()> fn) { pool_->Schedule(std::move(fn)); },
        [this, reactor, out, request, response](absl::Status s) {
          if (!s.ok() && request->store_errors_in_response_body()) {
            // TensorFlow's clients read the error from the body and the
            // gRPC status only for transport failures (a status of
            // UNAVAILABLE would make them send the same request again); it
            // is an error all the same. Its payloads go in dfx's field of
            // the body.
            CountRpcError(s);
            response->clear_tensor();
            response->set_status_code(static_cast<error::Code>(s.code()));
            response->set_status_error_message(std::string(s.message()));
            s.ForEachPayload([&response](absl::string_view url,
                                         const absl::Cord& value) {
              (*response->mutable_status_payload())[std::string(url)] =
                  std::string(value);
            });
            s = absl::OkStatus();
          }
          calls_.fetch_sub(1);
          if (s.ok()) *out = SerializeToByteBuffer(*response);
          reactor->Finish(ToGrpcStatus(s));
        });
    return reactor;
  }
  grpc::ServerUnaryReactor* CloseSession(grpc::CallbackServerContext* context,
                                         const grpc::ByteBuffer* request,
                                         grpc::ByteBuffer* response) override {
    return Serve<CloseSessionRequest, CloseSessionResponse>(
        context, request, response,
        [this](const auto& req, auto* resp, CallOptions* opts) {
          return master_->CloseSession(req, resp, opts);
        });
  }
  grpc::ServerUnaryReactor* ListDevices(grpc::CallbackServerContext* context,
                                        const grpc::ByteBuffer* request,
                                        grpc::ByteBuffer* response) override {
    return Serve<ListDevicesRequest, ListDevicesResponse>(
        context, request, response,
        [this](const auto& req, auto* resp, CallOptions* opts) {
          return master_->ListDevices(req, resp, opts);
        });
  }
  grpc::ServerUnaryReactor* Reset(grpc::CallbackServerContext* context,
                                  const grpc::ByteBuffer* request,
                                  grpc::ByteBuffer* response) override {
    return Serve<ResetRequest, ResetResponse>(
        context, request, response,
        [this](const auto& req, auto* resp, CallOptions* opts) {
          return master_->Reset(req, resp, opts);
        });
  }

 private:
  // Admits and parses the request and counts the call; null, with the
  // RPC answered, when it is refused.
  template <typename Request>
  std::shared_ptr<Request> Admit(const grpc::CallbackServerContext& context,
                                 const grpc::ByteBuffer& body,
                                 MasterCallReactor* reactor) {
    // Shared, not unique: the pool takes copyable closures.
    auto request = std::make_shared<Request>();
    if (absl::Status s = gate_.Accept(context, body, request.get());
        !s.ok()) {
      reactor->Finish(ToGrpcStatus(s));
      return nullptr;
    }
    if (calls_.fetch_add(1) >= max_calls_) {
      const int waiting = calls_.fetch_sub(1) - 1;
      reactor->Finish(ToGrpcStatus(absl::ResourceExhaustedError(absl::StrCat(
          "the master is busy: ", waiting, " calls are running or waiting; "
          "try again later"))));
      return nullptr;
    }
    return request;
  }

  // Admits the request, then runs `call(request, response, opts)` on the
  // pool and finishes the RPC with its status and the serialized response.
  template <typename Request, typename Response, typename Call>
  grpc::ServerUnaryReactor* Serve(grpc::CallbackServerContext* context,
                                  const grpc::ByteBuffer* body,
                                  grpc::ByteBuffer* out, Call call) {
    auto* reactor = new MasterCallReactor(context);
    auto request = Admit<Request>(*context, *body, reactor);
    if (request == nullptr) return reactor;
    pool_->Schedule([this, reactor, out, request = std::move(request),
                     call = std::move(call)] {
      Response response;
      const absl::Status s = call(*request, &response, reactor->opts());
      calls_.fetch_sub(1);
      if (s.ok()) *out = SerializeToByteBuffer(response);
      reactor->Finish(ToGrpcStatus(s));
    });
    return reactor;
  }

  Master* const master_;
  const RequestGate gate_;
  // Calls running or waiting for a pool thread, and their most.
  const int max_calls_;
  std::atomic<int> calls_{0};
  std::unique_ptr<ElasticThreadPool> pool_;
};

GrpcMasterService::GrpcMasterService(Master* master, int num_threads,
                                     int max_queued, std::string auth_token)
    : impl_(std::make_unique<Impl>(master, num_threads, max_queued,
                                   std::move(auth_token))) {}

GrpcMasterService::~GrpcMasterService() = default;

void GrpcMasterService::RegisterWith(grpc::ServerBuilder* builder) {
  builder->RegisterService(impl_.get());
}

}  // namespace dfx

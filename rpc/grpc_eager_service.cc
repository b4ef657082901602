#include "rpc/grpc_eager_service.h"

#include <algorithm>
#include <atomic>
#include <functional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "proto/eager_service_rpc.grpc.pb.h"
#include "rpc/grpc_util.h"
#include "rpc/request_gate.h"
#include "runtime/cancellation.h"
#include "runtime/elastic_thread_pool.h"

namespace dfx {
namespace {

// One unary call: the client's cancellation reaches the operation through
// `cancel`. Deletes itself in OnDone, gRPC's last call on it.
class EagerCallReactor : public grpc::ServerUnaryReactor {
 public:
  CancellationManager* cancel() { return &cancel_; }
  void OnCancel() override { cancel_.StartCancel(); }
  void OnDone() override { delete this; }

 private:
  CancellationManager cancel_;
};

using TfEagerService = tensorflow::eager::EagerService;
using EagerServiceBase =
    TfEagerService::WithRawCallbackMethod_CreateContext<
        TfEagerService::WithRawCallbackMethod_UpdateContext<
            TfEagerService::WithRawCallbackMethod_Enqueue<
                TfEagerService::WithRawCallbackMethod_StreamingEnqueue<
                    TfEagerService::WithRawCallbackMethod_WaitQueueDone<
                        TfEagerService::WithRawCallbackMethod_RunComponentFunction<
                            TfEagerService::WithRawCallbackMethod_KeepAlive<
                                TfEagerService::WithRawCallbackMethod_CloseContext<
                                    TfEagerService::Service>>>>>>>>;

}  // namespace

class GrpcEagerService::Impl : public EagerServiceBase {
 public:
  Impl(EagerService* service, int num_threads, int max_queued,
       std::string auth_token)
      : service_(service),
        gate_(std::move(auth_token)),
        max_calls_(std::max(1, num_threads) + std::max(0, max_queued)),
        pool_(std::make_unique<ElasticThreadPool>("eager_service",
                                                  std::max(1, num_threads))) {}

  ~Impl() override { pool_.reset(); }

  grpc::ServerUnaryReactor* CreateContext(grpc::CallbackServerContext* context,
                                          const grpc::ByteBuffer* request,
                                          grpc::ByteBuffer* response) override {
    return Serve<eager::CreateContextRequest, eager::CreateContextResponse>(
        context, request, response,
        [this](const auto& req, auto* resp, CancellationManager*) {
          return service_->CreateContext(req, resp);
        });
  }
  grpc::ServerUnaryReactor* UpdateContext(grpc::CallbackServerContext* context,
                                          const grpc::ByteBuffer* request,
                                          grpc::ByteBuffer* response) override {
    return Serve<eager::UpdateContextRequest, eager::UpdateContextResponse>(
        context, request, response,
        [this](const auto& req, auto* resp, CancellationManager*) {
          return service_->UpdateContext(req, resp);
        });
  }
  grpc::ServerUnaryReactor* Enqueue(grpc::CallbackServerContext* context,
                                    const grpc::ByteBuffer* request,
                                    grpc::ByteBuffer* response) override {
    return Serve<eager::EnqueueRequest, eager::EnqueueResponse>(
        context, request, response,
        [this](const auto& req, auto* resp, CancellationManager* cancel) {
          return service_->Enqueue(req, resp, cancel);
        },
        [this](const eager::EnqueueRequest& req) {
          return service_->CanRunInline(req);
        });
  }
  grpc::ServerUnaryReactor* WaitQueueDone(grpc::CallbackServerContext* context,
                                          const grpc::ByteBuffer* request,
                                          grpc::ByteBuffer* response) override {
    return Serve<eager::WaitQueueDoneRequest, eager::WaitQueueDoneResponse>(
        context, request, response,
        [this](const auto& req, auto* resp, CancellationManager*) {
          return service_->WaitQueueDone(req, resp);
        });
  }
  grpc::ServerUnaryReactor* RunComponentFunction(
      grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
      grpc::ByteBuffer* response) override {
    return Serve<eager::RunComponentFunctionRequest,
                 eager::RunComponentFunctionResponse>(
        context, request, response,
        [this](const auto& req, auto* resp, CancellationManager* cancel) {
          return service_->RunComponentFunction(req, resp, cancel);
        });
  }
  grpc::ServerUnaryReactor* KeepAlive(grpc::CallbackServerContext* context,
                                      const grpc::ByteBuffer* request,
                                      grpc::ByteBuffer* response) override {
    return Serve<eager::KeepAliveRequest, eager::KeepAliveResponse>(
        context, request, response,
        [this](const auto& req, auto* resp, CancellationManager*) {
          return service_->KeepAlive(req, resp);
        });
  }
  grpc::ServerUnaryReactor* CloseContext(grpc::CallbackServerContext* context,
                                         const grpc::ByteBuffer* request,
                                         grpc::ByteBuffer* response) override {
    return Serve<eager::CloseContextRequest, eager::CloseContextResponse>(
        context, request, response,
        [this](const auto& req, auto* resp, CancellationManager*) {
          return service_->CloseContext(req, resp);
        });
  }

  grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>*
  StreamingEnqueue(grpc::CallbackServerContext* context) override {
    return new StreamReactor(this, context);
  }

 private:
  // One StreamingEnqueue stream: reads a request, runs it (on the thread
  // that read it when the service says it is short and cannot wait, else
  // on the pool), writes its response, then reads the next (so responses
  // keep the requests' order). The first error finishes the stream with
  // it.
  class StreamReactor
      : public grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer> {
   public:
    StreamReactor(Impl* impl, grpc::CallbackServerContext* context)
        : impl_(impl), context_(context) {
      if (absl::Status s = impl_->gate_.Admit(*context_); !s.ok()) {
        Finish(ToGrpcStatus(s));
        return;
      }
      StartRead(&in_);
    }

    void OnReadDone(bool ok) override {
      if (!ok) {  // the client closed its side (or the call ended)
        Finish(grpc::Status::OK);
        return;
      }
      auto request = std::make_shared<eager::EnqueueRequest>();
      if (absl::Status s = impl_->gate_.Accept(*context_, in_, request.get());
          !s.ok()) {
        Finish(ToGrpcStatus(s));
        return;
      }
      if (impl_->service_->CanRunInline(*request)) {
        Run(*request);
      } else {
        impl_->pool_->Schedule([this, request] { Run(*request); });
      }
    }
    void OnWriteDone(bool ok) override {
      if (!ok) {
        Finish(grpc::Status(grpc::StatusCode::CANCELLED,
                            "the client went away mid-stream"));
        return;
      }
      StartRead(&in_);
    }
    void OnCancel() override { cancel_.StartCancel(); }
    void OnDone() override { delete this; }

   private:
    void Run(const eager::EnqueueRequest& request) {
      eager::EnqueueResponse response;
      const absl::Status s =
          impl_->service_->Enqueue(request, &response, &cancel_);
      if (!s.ok()) {
        Finish(ToGrpcStatus(s));
        return;
      }
      out_ = SerializeToByteBuffer(response);
      StartWrite(&out_);
    }

    Impl* const impl_;
    grpc::CallbackServerContext* const context_;
    grpc::ByteBuffer in_;
    grpc::ByteBuffer out_;
    CancellationManager cancel_;
  };

  // Parses the request and runs `call` on the pool, or on this thread when
  // `run_inline` (may be empty) says the request is short and cannot wait.
  template <typename Request, typename Response, typename Call>
  grpc::ServerUnaryReactor* Serve(
      grpc::CallbackServerContext* context, const grpc::ByteBuffer* body,
      grpc::ByteBuffer* out, Call call,
      std::function<bool(const Request&)> run_inline = nullptr) {
    auto* reactor = new EagerCallReactor;
    auto request = std::make_shared<Request>();
    if (absl::Status s = gate_.Accept(*context, *body, request.get());
        !s.ok()) {
      reactor->Finish(ToGrpcStatus(s));
      return reactor;
    }
    if (calls_.fetch_add(1) >= max_calls_) {
      const int waiting = calls_.fetch_sub(1) - 1;
      reactor->Finish(ToGrpcStatus(absl::ResourceExhaustedError(absl::StrCat(
          "the eager service is busy: ", waiting,
          " calls are running or waiting; try again later"))));
      return reactor;
    }
    const bool inline_run = run_inline && run_inline(*request);
    auto run = [this, reactor, out, request = std::move(request),
                call = std::move(call)] {
      Response response;
      const absl::Status s = call(*request, &response, reactor->cancel());
      calls_.fetch_sub(1);
      if (s.ok()) *out = SerializeToByteBuffer(response);
      reactor->Finish(ToGrpcStatus(s));
    };
    if (inline_run) {
      run();
    } else {
      pool_->Schedule(std::move(run));
    }
    return reactor;
  }

  EagerService* const service_;
  const RequestGate gate_;
  const int max_calls_;
  std::atomic<int> calls_{0};
  std::unique_ptr<ElasticThreadPool> pool_;
};

GrpcEagerService::GrpcEagerService(EagerService* service, int num_threads,
                                   int max_queued, std::string auth_token)
    : impl_(std::make_unique<Impl>(service, num_threads, max_queued,
                                   std::move(auth_token))) {}

GrpcEagerService::~GrpcEagerService() = default;

void GrpcEagerService::RegisterWith(grpc::ServerBuilder* builder) {
  builder->RegisterService(impl_.get());
}

}  // namespace dfx

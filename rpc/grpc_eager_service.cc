#include "rpc/grpc_eager_service.h"

#include <algorithm>
#include <atomic>
#include <deque>
#include <functional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "proto/eager_service_rpc.grpc.pb.h"
#include "rpc/grpc_util.h"
#include "rpc/request_gate.h"
#include "runtime/cancellation.h"
#include "runtime/thread_pool.h"

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
        pool_(std::make_unique<ThreadPool>("eager_service",
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
  // One StreamingEnqueue stream. Requests run one at a time in the order
  // they came (on the thread that read them when the service says they are
  // short and cannot wait, else on the pool, which then runs the ones after
  // it too), and their responses are written in that order. Reading does
  // not wait for the answers: the next read is out while a request runs
  // and its answer is written, so a client that streams operations without
  // waiting for them (TensorFlow's does) is served as fast as they run, up
  // to kMaxBacklog requests read and not yet answered. The first error
  // finishes the stream with it once the answers before it are written.
  //
  // gRPC's Start* and Finish are called with mu_ released (a reaction may
  // run at once on another thread, and OnDone deletes the reactor), Finish
  // last of all.
  class StreamReactor
      : public grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer> {
   public:
    StreamReactor(Impl* impl, grpc::CallbackServerContext* context)
        : impl_(impl), context_(context) {
      if (absl::Status s = impl_->gate_.Admit(*context_); !s.ok()) {
        Finish(ToGrpcStatus(s));
        return;
      }
      Act(Next(/*read=*/true));
    }

    void OnReadDone(bool ok) override {
      std::shared_ptr<eager::EnqueueRequest> request;
      absl::Status bad;
      if (ok) {
        request = std::make_shared<eager::EnqueueRequest>();
        bad = impl_->gate_.Accept(*context_, in_, request.get());
      }
      bool run = false;
      Actions actions;
      {
        absl::MutexLock lock(&mu_);
        reading_ = false;
        if (!ok || !bad.ok()) {
          // The client closed its side (or the call ended), or sent garbage.
          read_done_ = true;
          if (!bad.ok() && error_.ok()) error_ = bad;
        } else if (error_.ok()) {
          pending_.push_back(std::move(request));
          run = !running_;
          running_ = true;
        }
        if (!run) actions = NextLocked(/*read=*/true);
      }
      if (run) {
        RunPending(/*on_pool=*/false);
      } else {
        Act(actions);
      }
    }

    void OnWriteDone(bool ok) override {
      Actions actions;
      {
        absl::MutexLock lock(&mu_);
        writing_ = false;
        if (!ok) {
          if (error_.ok()) {
            error_ = absl::CancelledError("the client went away mid-stream");
          }
          responses_.clear();
        }
        actions = NextLocked(/*read=*/true);
      }
      Act(actions);
    }
    void OnCancel() override { cancel_.StartCancel(); }
    void OnDone() override { delete this; }

   private:
    // Requests read and not yet answered, most: past it reading waits.
    static constexpr size_t kMaxBacklog = 64;

    // What to start once mu_ is released.
    struct Actions {
      grpc::ByteBuffer* write = nullptr;
      bool read = false;
      bool finish = false;
      grpc::Status status;
    };

    Actions Next(bool read) {
      absl::MutexLock lock(&mu_);
      return NextLocked(read);
    }

    // Writes the next answer if none is on its way; reads the next request
    // (when `read`) if the backlog allows; finishes once nothing is left.
    Actions NextLocked(bool read) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      Actions a;
      if (finished_) return a;
      if (!writing_ && !responses_.empty()) {
        // Two buffers in turn: the one gRPC may still hold is never
        // overwritten.
        grpc::ByteBuffer* out = &out_[next_out_];
        next_out_ ^= 1;
        *out = std::move(responses_.front());
        responses_.pop_front();
        writing_ = true;
        a.write = out;
      }
      if (read && !reading_ && !read_done_ && error_.ok() &&
          pending_.size() + responses_.size() + (running_ ? 1 : 0) <
              kMaxBacklog) {
        reading_ = true;
        a.read = true;
      }
      if (!running_ && !writing_ && responses_.empty() &&
          (!error_.ok() || read_done_)) {
        finished_ = true;
        a.finish = true;
        a.status = ToGrpcStatus(error_);
      }
      return a;
    }

    // May delete this reactor (through Finish): the caller's last act.
    void Act(const Actions& a) {
      if (a.write != nullptr) StartWrite(a.write);
      if (a.read) StartRead(&in_);
      if (a.finish) Finish(a.status);
    }

    // Runs the pending requests in order: on this thread while they may
    // run inline (or always, `on_pool`); the first that may wait goes to
    // the pool, which continues from there. REQUIRES: this caller set
    // running_.
    void RunPending(bool on_pool) {
      while (true) {
        std::shared_ptr<eager::EnqueueRequest> request;
        Actions actions;
        {
          absl::MutexLock lock(&mu_);
          if (pending_.empty() || !error_.ok()) {
            pending_.clear();
            running_ = false;
            actions = NextLocked(/*read=*/true);
          } else {
            request = pending_.front();
            pending_.pop_front();
          }
        }
        if (request == nullptr) {
          Act(actions);
          return;
        }
        if (!on_pool && !impl_->service_->CanRunInline(*request)) {
          impl_->pool_->Schedule([this, request] {
            RunOne(*request);
            RunPending(/*on_pool=*/true);
          });
          return;
        }
        RunOne(*request);
      }
    }

    // Runs one request and queues its answer (writing it if the stream is
    // idle), or records its error.
    void RunOne(const eager::EnqueueRequest& request) {
      eager::EnqueueResponse response;
      const absl::Status s =
          impl_->service_->Enqueue(request, &response, &cancel_);
      Actions actions;
      {
        absl::MutexLock lock(&mu_);
        if (!s.ok()) {
          if (error_.ok()) error_ = s;
          return;
        }
        responses_.push_back(SerializeToByteBuffer(response));
        // running_ is still set: this cannot finish the stream.
        actions = NextLocked(/*read=*/true);
      }
      Act(actions);
    }

    Impl* const impl_;
    grpc::CallbackServerContext* const context_;
    // Only OnReadDone reads it, and only one read is out at a time.
    grpc::ByteBuffer in_;
    absl::Mutex mu_;
    grpc::ByteBuffer out_[2];
    int next_out_ ABSL_GUARDED_BY(mu_) = 0;
    std::deque<std::shared_ptr<eager::EnqueueRequest>> pending_
        ABSL_GUARDED_BY(mu_);
    std::deque<grpc::ByteBuffer> responses_ ABSL_GUARDED_BY(mu_);
    bool reading_ ABSL_GUARDED_BY(mu_) = false;
    bool read_done_ ABSL_GUARDED_BY(mu_) = false;
    bool running_ ABSL_GUARDED_BY(mu_) = false;
    bool writing_ ABSL_GUARDED_BY(mu_) = false;
    bool finished_ ABSL_GUARDED_BY(mu_) = false;
    absl::Status error_ ABSL_GUARDED_BY(mu_);
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
  std::unique_ptr<ThreadPool> pool_;
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

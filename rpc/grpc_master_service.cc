#include "rpc/grpc_master_service.h"

#include <algorithm>
#include <atomic>
#include <utility>

#include "absl/strings/str_cat.h"
#include "proto/master_service.grpc.pb.h"
#include "rpc/grpc_util.h"
#include "runtime/thread_pool.h"
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

}  // namespace

class GrpcMasterService::Impl
    : public tensorflow::MasterService::CallbackService {
 public:
  Impl(Master* master, int num_threads, int max_queued)
      : master_(master),
        max_calls_(std::max(1, num_threads) + std::max(0, max_queued)),
        pool_(std::make_unique<ThreadPool>("master_service",
                                           std::max(1, num_threads))) {}

  // The pool goes first: its destructor waits for the calls on it.
  ~Impl() override { pool_.reset(); }

  grpc::ServerUnaryReactor* CreateSession(
      grpc::CallbackServerContext* context,
      const CreateSessionRequest* request,
      CreateSessionResponse* response) override {
    return Serve(context, [this, request, response](CallOptions* opts) {
      return master_->CreateSession(*request, response, opts);
    });
  }
  grpc::ServerUnaryReactor* ExtendSession(
      grpc::CallbackServerContext* context,
      const ExtendSessionRequest* request,
      ExtendSessionResponse* response) override {
    return Serve(context, [this, request, response](CallOptions* opts) {
      return master_->ExtendSession(*request, response, opts);
    });
  }
  grpc::ServerUnaryReactor* RunStep(grpc::CallbackServerContext* context,
                                    const RunStepRequest* request,
                                    RunStepResponse* response) override {
    return Serve(context, [this, request, response](CallOptions* opts) {
      absl::Status s = master_->RunStep(*request, response, opts);
      if (s.ok() || !request->store_errors_in_response_body()) return s;
      // TensorFlow's clients read the error from the body and the gRPC
      // status only for transport failures.
      response->clear_tensor();
      response->set_status_code(static_cast<error::Code>(s.code()));
      response->set_status_error_message(std::string(s.message()));
      return absl::OkStatus();
    });
  }
  grpc::ServerUnaryReactor* CloseSession(
      grpc::CallbackServerContext* context, const CloseSessionRequest* request,
      CloseSessionResponse* response) override {
    return Serve(context, [this, request, response](CallOptions* opts) {
      return master_->CloseSession(*request, response, opts);
    });
  }
  grpc::ServerUnaryReactor* ListDevices(
      grpc::CallbackServerContext* context, const ListDevicesRequest* request,
      ListDevicesResponse* response) override {
    return Serve(context, [this, request, response](CallOptions* opts) {
      return master_->ListDevices(*request, response, opts);
    });
  }
  grpc::ServerUnaryReactor* Reset(grpc::CallbackServerContext* context,
                                  const ResetRequest* request,
                                  ResetResponse* response) override {
    return Serve(context, [this, request, response](CallOptions* opts) {
      return master_->Reset(*request, response, opts);
    });
  }

 private:
  // Runs `call(opts)` on the pool and finishes the RPC with its status.
  // The request and response stay valid until Finish.
  template <typename Call>
  grpc::ServerUnaryReactor* Serve(grpc::CallbackServerContext* context,
                                  Call call) {
    auto* reactor = new MasterCallReactor(context);
    if (calls_.fetch_add(1) >= max_calls_) {
      const int waiting = calls_.fetch_sub(1) - 1;
      reactor->Finish(ToGrpcStatus(absl::ResourceExhaustedError(absl::StrCat(
          "the master is busy: ", waiting, " calls are running or waiting; "
          "try again later"))));
      return reactor;
    }
    pool_->Schedule([this, reactor, call = std::move(call)]() mutable {
      const absl::Status s = call(reactor->opts());
      calls_.fetch_sub(1);
      reactor->Finish(ToGrpcStatus(s));
    });
    return reactor;
  }

  Master* const master_;
  // Calls running or waiting for a pool thread, and their most.
  const int max_calls_;
  std::atomic<int> calls_{0};
  std::unique_ptr<ThreadPool> pool_;
};

GrpcMasterService::GrpcMasterService(Master* master, int num_threads,
                                     int max_queued)
    : impl_(std::make_unique<Impl>(master, num_threads, max_queued)) {}

GrpcMasterService::~GrpcMasterService() = default;

void GrpcMasterService::RegisterWith(grpc::ServerBuilder* builder) {
  builder->RegisterService(impl_.get());
}

}  // namespace dfx

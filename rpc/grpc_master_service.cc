#include "rpc/grpc_master_service.h"

#include <algorithm>
#include <utility>

#include "proto/master_service.grpc.pb.h"
#include "rpc/grpc_util.h"
#include "runtime/thread_pool.h"

namespace dfx {

class GrpcMasterService::Impl
    : public tensorflow::MasterService::CallbackService {
 public:
  Impl(Master* master, int num_threads)
      : master_(master),
        pool_(std::make_unique<ThreadPool>("master_service",
                                           std::max(1, num_threads))) {}

  // The pool goes first: its destructor waits for the calls on it.
  ~Impl() override { pool_.reset(); }

  grpc::ServerUnaryReactor* CreateSession(
      grpc::CallbackServerContext* context,
      const CreateSessionRequest* request,
      CreateSessionResponse* response) override {
    return Serve(context, [this, request, response] {
      return master_->CreateSession(*request, response);
    });
  }
  grpc::ServerUnaryReactor* ExtendSession(
      grpc::CallbackServerContext* context,
      const ExtendSessionRequest* request,
      ExtendSessionResponse* response) override {
    return Serve(context, [this, request, response] {
      return master_->ExtendSession(*request, response);
    });
  }
  grpc::ServerUnaryReactor* RunStep(grpc::CallbackServerContext* context,
                                    const RunStepRequest* request,
                                    RunStepResponse* response) override {
    return Serve(context, [this, request, response] {
      absl::Status s = master_->RunStep(*request, response);
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
    return Serve(context, [this, request, response] {
      return master_->CloseSession(*request, response);
    });
  }
  grpc::ServerUnaryReactor* ListDevices(
      grpc::CallbackServerContext* context, const ListDevicesRequest* request,
      ListDevicesResponse* response) override {
    return Serve(context, [this, request, response] {
      return master_->ListDevices(*request, response);
    });
  }
  grpc::ServerUnaryReactor* Reset(grpc::CallbackServerContext* context,
                                  const ResetRequest* request,
                                  ResetResponse* response) override {
    return Serve(context, [this, request, response] {
      return master_->Reset(*request, response);
    });
  }

 private:
  // Runs `call` on the pool and finishes the RPC with its status. The
  // request and response stay valid until Finish.
  template <typename Call>
  grpc::ServerUnaryReactor* Serve(grpc::CallbackServerContext* context,
                                  Call call) {
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    pool_->Schedule([reactor, call = std::move(call)]() mutable {
      reactor->Finish(ToGrpcStatus(call()));
    });
    return reactor;
  }

  Master* const master_;
  std::unique_ptr<ThreadPool> pool_;
};

GrpcMasterService::GrpcMasterService(Master* master, int num_threads)
    : impl_(std::make_unique<Impl>(master, num_threads)) {}

GrpcMasterService::~GrpcMasterService() = default;

void GrpcMasterService::RegisterWith(grpc::ServerBuilder* builder) {
  builder->RegisterService(impl_.get());
}

}  // namespace dfx

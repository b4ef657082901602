#include "rpc/grpc_collective.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "grpcpp/support/server_callback.h"
#include "rpc/grpc_util.h"
#include "runtime/cancellation.h"

namespace dfx {

const char kCompleteGroupMethod[] = "/tensorflow.WorkerService/CompleteGroup";
const char kCompleteInstanceMethod[] =
    "/tensorflow.WorkerService/CompleteInstance";

namespace {

// One call: read the request, join at the leader, write the answer. The
// join's token is kept so that OnCancel can end a join that waits.
class CollectiveReactor : public grpc::ServerGenericBidiReactor {
 public:
  CollectiveReactor(CollectiveLeader* leader, const RequestGate* gate,
                    grpc::GenericCallbackServerContext* context)
      : leader_(leader), gate_(gate), context_(context) {
    StartRead(&request_);
  }

  void OnReadDone(bool ok) override {
    if (!ok) {
      Reply(absl::InvalidArgumentError("no request"));
      return;
    }
    const std::string& method = context_->method();
    if (method == kCompleteGroupMethod) {
      Serve<CompleteGroupRequest, CompleteGroupResponse>(
          [this](const CompleteGroupRequest& r, CollectiveLeader::GroupDone d) {
            return leader_->JoinGroup(r, std::move(d));
          });
    } else if (method == kCompleteInstanceMethod) {
      Serve<CompleteInstanceRequest, CompleteInstanceResponse>(
          [this](const CompleteInstanceRequest& r,
                 CollectiveLeader::InstanceDone d) {
            return leader_->JoinInstance(r, std::move(d));
          });
    } else {
      Reply(absl::UnimplementedError(
          absl::StrCat("method ", method, " is not served here")));
    }
  }

  void OnCancel() override {
    CollectiveLeader::Token token = 0;
    {
      absl::MutexLock lock(&mu_);
      cancelled_ = true;
      token = token_;
    }
    if (token != 0) {
      leader_->Cancel(token, absl::CancelledError(
                                 "the caller cancelled while waiting for the "
                                 "group's other members"));
    }
  }
  void OnWriteDone(bool) override {}
  void OnDone() override { delete this; }

 private:
  template <typename Request, typename Response, typename Join>
  void Serve(Join join) {
    if (leader_ == nullptr) {
      Reply(absl::FailedPreconditionError(
          "this task is not the collective group leader (every server of a "
          "cluster must agree on it: by default /job:chief task 0, else "
          "/job:worker task 0, else the cluster's first task)"));
      return;
    }
    auto request = std::make_shared<Request>();
    if (absl::Status s = gate_->Accept(*context_, request_, request.get());
        !s.ok()) {
      Reply(s);
      return;
    }
    // An answer that comes while `join` runs is sent after it returned:
    // once Reply ran, gRPC may delete this reactor on another thread.
    {
      absl::MutexLock lock(&mu_);
      joining_ = true;
    }
    const CollectiveLeader::Token token = join(
        *request, [this](absl::StatusOr<Response> answer) {
          const absl::Status status = answer.status();
          if (answer.ok()) response_ = SerializeToByteBuffer(*answer);
          {
            absl::MutexLock lock(&mu_);
            if (joining_) {
              answered_ = true;
              answer_ = status;
              return;
            }
          }
          Reply(status);
        });
    bool cancelled = false;
    bool answered = false;
    absl::Status answer;
    {
      absl::MutexLock lock(&mu_);
      token_ = token;
      joining_ = false;
      cancelled = cancelled_;
      answered = answered_;
      answer = answer_;
    }
    if (answered) {
      Reply(answer);
      return;
    }
    CollectiveLeader* leader = leader_;
    // Nothing of this reactor is touched after Cancel: its answer may
    // finish the call.
    if (cancelled) {
      leader->Cancel(token, absl::CancelledError("the caller cancelled"));
    }
  }

  // Exactly once (the join's callback runs once).
  void Reply(const absl::Status& s) {
    if (s.ok()) {
      StartWriteAndFinish(&response_, grpc::WriteOptions(), grpc::Status::OK);
    } else {
      Finish(ToGrpcStatus(s));
    }
  }

  CollectiveLeader* const leader_;
  const RequestGate* const gate_;
  grpc::GenericCallbackServerContext* const context_;
  grpc::ByteBuffer request_;
  grpc::ByteBuffer response_;
  absl::Mutex mu_;
  CollectiveLeader::Token token_ ABSL_GUARDED_BY(mu_) = 0;
  bool cancelled_ ABSL_GUARDED_BY(mu_) = false;
  bool joining_ ABSL_GUARDED_BY(mu_) = false;
  bool answered_ ABSL_GUARDED_BY(mu_) = false;
  absl::Status answer_ ABSL_GUARDED_BY(mu_);
};

}  // namespace

grpc::ServerGenericBidiReactor* CollectiveGenericService::CreateReactor(
    grpc::GenericCallbackServerContext* context) {
  return new CollectiveReactor(leader_, gate_, context);
}

GrpcCollectiveLeaderClient::GrpcCollectiveLeaderClient(
    const std::string& address, std::string task,
    const ChannelSecurity& security)
    : task_(std::move(task)), stub_(NewChannel(address, security)) {}

void GrpcCollectiveLeaderClient::Call(const char* method,
                                      const google::protobuf::Message& request,
                                      google::protobuf::Message* response,
                                      CancellationManager* cancellation,
                                      Done done) {
  struct State {
    grpc::ClientContext context;
    grpc::ByteBuffer request;
    grpc::ByteBuffer response;
  };
  auto state = std::make_shared<State>();
  state->request = SerializeToByteBuffer(request);
  CancellationToken token{};
  if (cancellation != nullptr) {
    token = cancellation->get_cancellation_token();
    if (!cancellation->RegisterCallback(
            token, [weak = std::weak_ptr<State>(state)] {
              if (auto s = weak.lock()) s->context.TryCancel();
            })) {
      done(absl::CancelledError("the step was cancelled"));
      return;
    }
  }
  grpc::ClientContext* context = &state->context;
  stub_.UnaryCall(
      context, method, grpc::StubOptions(), &state->request, &state->response,
      [this, state, response, cancellation, token, method,
       done = std::move(done)](grpc::Status s) mutable {
        if (cancellation != nullptr) cancellation->TryDeregisterCallback(token);
        absl::Status status;
        if (s.error_code() == grpc::StatusCode::UNAVAILABLE) {
          status = absl::UnavailableError(absl::StrCat(
              "task ", task_, " is unavailable: ", s.error_message(), " (",
              method, ")"));
        } else {
          status = FromGrpcStatus(s);
        }
        if (status.ok()) {
          status = ParseFromByteBuffer(&state->response, response, method);
        }
        state.reset();
        done(status);
      });
}

void GrpcCollectiveLeaderClient::CompleteGroupAsync(
    const CompleteGroupRequest* request, CompleteGroupResponse* response,
    CancellationManager* cancellation, Done done) {
  Call(kCompleteGroupMethod, *request, response, cancellation, std::move(done));
}

void GrpcCollectiveLeaderClient::CompleteInstanceAsync(
    const CompleteInstanceRequest* request, CompleteInstanceResponse* response,
    CancellationManager* cancellation, Done done) {
  Call(kCompleteInstanceMethod, *request, response, cancellation,
       std::move(done));
}

}  // namespace dfx

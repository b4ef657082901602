#include "rpc/grpc_eager_client.h"

#include <functional>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "proto/eager_service_rpc.grpc.pb.h"
#include "rpc/cluster_spec.h"
#include "rpc/grpc_util.h"
#include "runtime/cancellation.h"

namespace dfx {
namespace {

using Stub = tensorflow::eager::EagerService::Stub;

class GrpcEagerPeerClient : public EagerPeerClient {
 public:
  struct Peer {
    std::string address;
    std::unique_ptr<Stub> stub;
  };
  explicit GrpcEagerPeerClient(absl::flat_hash_map<std::string, Peer> peers)
      : peers_(std::move(peers)) {}

  void EnqueueAsync(const std::string& task,
                    const eager::EnqueueRequest* request,
                    eager::EnqueueResponse* response,
                    CancellationManager* cancel,
                    std::function<void(absl::Status)> done) override {
    Call(task, "Enqueue", cancel, std::move(done),
         [&](Stub* stub, grpc::ClientContext* ctx,
             std::function<void(grpc::Status)> cb) {
           stub->async()->Enqueue(ctx, request, response, std::move(cb));
         });
  }

  void RunComponentFunctionAsync(
      const std::string& task,
      const eager::RunComponentFunctionRequest* request,
      eager::RunComponentFunctionResponse* response,
      CancellationManager* cancel,
      std::function<void(absl::Status)> done) override {
    Call(task, "RunComponentFunction", cancel, std::move(done),
         [&](Stub* stub, grpc::ClientContext* ctx,
             std::function<void(grpc::Status)> cb) {
           stub->async()->RunComponentFunction(ctx, request, response,
                                               std::move(cb));
         });
  }

 private:
  // One call: `start` issues it on the task's stub; the manager's
  // cancellation cancels the call, which then ends with Cancelled.
  void Call(const std::string& task, absl::string_view method,
            CancellationManager* cancel,
            std::function<void(absl::Status)> done,
            const std::function<void(Stub*, grpc::ClientContext*,
                                     std::function<void(grpc::Status)>)>&
                start) {
    auto it = peers_.find(task);
    if (it == peers_.end()) {
      done(absl::InvalidArgumentError(absl::StrCat(
          "eager ", method, ": task ", task,
          " is not in the client's cluster")));
      return;
    }
    struct State {
      grpc::ClientContext ctx;
      CancellationManager* cancel = nullptr;
      CancellationToken token = 0;
    };
    auto state = std::make_shared<State>();
    if (cancel != nullptr) {
      state->cancel = cancel;
      state->token = cancel->get_cancellation_token();
      State* raw = state.get();
      if (!cancel->RegisterCallback(state->token,
                                    [raw] { raw->ctx.TryCancel(); })) {
        done(absl::CancelledError(absl::StrCat(
            "eager ", method, " to ", task, ": cancelled before it started")));
        return;
      }
    }
    // TensorFlow's words after an error from another task: its
    // ClusterCoordinator tells a ps failure (fatal) from a worker failure
    // (the closure is retried elsewhere) by "... remote target /job:ps".
    const std::string where = absl::StrCat("eager ", method, " to task ",
                                           task, " at ", it->second.address);
    const std::string origin = absl::StrCat(
        "\nAdditional GRPC error information from remote target ", task,
        " while calling /tensorflow.eager.EagerService/", method);
    start(it->second.stub.get(), &state->ctx,
          [state, where, origin, done = std::move(done)](grpc::Status s) {
            // Before done: the manager may go with the caller's step.
            if (state->cancel != nullptr) {
              state->cancel->DeregisterCallback(state->token);
            }
            absl::Status status = FromGrpcStatus(s);
            if (!status.ok()) {
              status = absl::Status(
                  status.code(),
                  absl::StrCat(where, ": ", status.message(), origin));
            }
            done(std::move(status));
          });
  }

  const absl::flat_hash_map<std::string, Peer> peers_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<EagerPeerClient>> NewGrpcEagerPeerClient(
    const ClusterDef& cluster, absl::string_view local_task,
    const ChannelSecurity& security) {
  absl::flat_hash_map<std::string, GrpcEagerPeerClient::Peer> peers;
  for (const JobDef& job : cluster.job()) {
    for (const auto& [index, address] : job.tasks()) {
      const std::string task = TaskName(job.name(), index);
      if (task == local_task) continue;
      if (address.empty()) {
        return absl::InvalidArgumentError(
            absl::StrCat("task ", task, " has an empty address"));
      }
      GrpcEagerPeerClient::Peer p;
      p.address = address;
      p.stub = tensorflow::eager::EagerService::NewStub(
          NewChannel(address, security));
      peers.emplace(task, std::move(p));
    }
  }
  return std::make_unique<GrpcEagerPeerClient>(std::move(peers));
}

}  // namespace dfx

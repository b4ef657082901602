// The rpc family's kernels: TensorFlow's RPC ops (tf.distribute.
// experimental.rpc). RpcServer names a gRPC server of registered functions
// (RpcServerRegister) that RpcServerStart starts; RpcClient names a client
// of such a server, RpcCall starts a call and returns a future that
// RpcCheckStatus and RpcGetValue wait on, DeleteRpcFutureResource drops.
//
// The wire is TensorFlow's: service /tensorflow.rpc.RpcService, methods
// Call and List, its messages' field numbers (proto/tf_rpc.proto), so a dfx
// server answers TensorFlow's Python client and a dfx client calls
// TensorFlow's Python server. Calls wait for the server to be ready
// (TensorFlow's fail_fast=false) until their deadline: the call's
// timeout_in_ms, else the client's, else none.
//
// Lifetimes are TensorFlow's: the server, the client and each future are
// resources of the device's ResourceMgr (containers "rpc_server",
// "rpc_client", "rpc_future_resource"), so a server started by one step
// serves after that step has ended, until its resource is destroyed
// (DestroyResourceOp, a container reset, the device's end); a future lives
// as long as RpcCall's deleter tensor (TensorFlow's ResourceDeleter).
// Registered functions run in a runtime of their own (data::DatasetFunction),
// on an elastic pool of the server, each call a step of its own that the
// client's cancellation or deadline and the server's destruction cancel.
//
// Every wait of a kernel (RpcClient's List, RpcCheckStatus, RpcGetValue)
// ends with the call (whose deadline bounds it) or, first, with Cancelled
// when the step is cancelled.
//
// gRPC status conversion is spelled out here rather than taken from
// rpc/grpc_util.h: dfx::kernels sits below dfx::rpc.
#include <atomic>
#include <climits>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "base/status_macros.h"
#include "google/protobuf/unknown_field_set.h"
#include "grpcpp/channel.h"
#include "grpcpp/client_context.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/security/server_credentials.h"
#include "grpcpp/server.h"
#include "grpcpp/server_builder.h"
#include "grpcpp/support/channel_arguments.h"
#include "kernels/data/dataset.h"
#include "kernels/state/variable_util.h"
#include "proto/tf_rpc.pb.h"
#include "proto/tf_rpc_service.grpc.pb.h"
#include "runtime/cancellation.h"
#include "base/grpc_status.h"
#include "runtime/elastic_thread_pool.h"
#include "runtime/network_policy.h"
#include "runtime/op_kernel.h"
#include "runtime/resource_mgr.h"
#include "runtime/variant.h"

namespace dfx {
namespace {

using TfRpcService = tensorflow::rpc::RpcService;

constexpr char kServerContainer[] = "rpc_server";
constexpr char kClientContainer[] = "rpc_client";
constexpr char kFutureContainer[] = "rpc_future_resource";

absl::StatusOr<std::string> ScalarString(OpKernelContext* ctx, int index,
                                         absl::string_view name) {
  const Tensor& t = ctx->input(index);
  if (t.dtype() != DT_STRING || t.dims() != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        name, " must be a scalar string, got shape ", t.shape().DebugString()));
  }
  return t.scalar<std::string>();
}

absl::StatusOr<int64_t> ScalarInt64(OpKernelContext* ctx, int index,
                                    absl::string_view name) {
  const Tensor& t = ctx->input(index);
  if (t.dtype() != DT_INT64 || t.dims() != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        name, " must be a scalar int64, got shape ", t.shape().DebugString()));
  }
  return t.scalar<int64_t>();
}

// A gRPC address: "host:port" (an IPv6 host in brackets) with a port in
// 1..65535, or a "unix:" path; a client also takes a target with a scheme
// ("dns:///host:port", "ipv4:...", ...), which gRPC resolves. Port 0 (any
// free port) is refused: TensorFlow's server does not report the port it
// then binds, so no client could find it.
absl::Status CheckAddress(absl::string_view address, bool server) {
  auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat("server_address \"", address, "\" ", why));
  };
  if (address.empty()) return bad("is empty; expected host:port");
  if (absl::StartsWith(address, "unix:")) {
    return address.size() > 5 ? absl::OkStatus() : bad("names no path");
  }
  if (!server &&
      (absl::StrContains(address, "://") || absl::StartsWith(address, "dns:") ||
       absl::StartsWith(address, "ipv4:") ||
       absl::StartsWith(address, "ipv6:"))) {
    return absl::OkStatus();
  }
  const size_t colon = address.rfind(':');
  if (colon == absl::string_view::npos || colon == 0) {
    return bad("is not host:port");
  }
  absl::string_view host = address.substr(0, colon);
  if (host.front() == '[' ? host.back() != ']' || host.size() < 3
                          : absl::StrContains(host, ':')) {
    return bad("is not host:port (an IPv6 host goes in brackets)");
  }
  uint32_t port = 0;
  if (!absl::SimpleAtoi(address.substr(colon + 1), &port) || port > 65535) {
    return bad("has no port number in 1..65535");
  }
  if (port == 0) {
    return bad(
        "asks for port 0: not supported (TensorFlow's RPC server does not "
        "report the port it would bind); pick a free port");
  }
  return absl::OkStatus();
}

Tensor ResourceOutput(OpKernelContext* ctx, std::string container,
                      std::string name, std::string type_name) {
  Tensor out(DT_RESOURCE, TensorShape({}));
  ResourceHandle& h = out.scalar<ResourceHandle>();
  h.set_device(ctx->device()->name());
  h.set_container(std::move(container));
  h.set_name(std::move(name));
  h.set_maybe_type_name(std::move(type_name));
  return out;
}

template <typename T>
absl::StatusOr<std::shared_ptr<T>> LookupInput(OpKernelContext* ctx,
                                               int index) {
  absl::StatusOr<const ResourceHandle*> h = HandleFromInput(ctx, index);
  if (!h.ok()) return h.status();
  return ctx->resource_manager()->Lookup<T>((*h)->container(), (*h)->name());
}

// ---------------------------------------------------------------- server

// A registered function and what it was registered with.
struct RpcMethod {
  std::shared_ptr<const data::DatasetFunction> f;
  std::vector<Tensor> captured;
  Device* device = nullptr;
  std::string input_specs;
  std::string output_specs;
};

// One served call. gRPC deletes nothing of a custom reactor: it deletes
// itself in OnDone, gRPC's last call on it. The client's cancellation (it
// cancelled, passed its deadline or went away) cancels the function.
class CallReactor : public grpc::ServerUnaryReactor {
 public:
  CancellationManager* cancellation() { return &cancel_; }
  void OnCancel() override { cancel_.StartCancel(); }
  void OnDone() override { delete this; }

 private:
  CancellationManager cancel_;
};

class RpcServerResource final : public ResourceBase {
 public:
  static constexpr const char* kTypeName = "RpcServer";

  explicit RpcServerResource(std::string address)
      : address_(std::move(address)),
        pool_(std::make_unique<ElasticThreadPool>("rpc_server", 16)),
        service_(std::make_unique<Service>(this)) {}

  // Cancels the functions running, stops serving (each call then ends:
  // gRPC's Shutdown waits for them), then ends the pool's threads.
  ~RpcServerResource() override {
    cancel_.StartCancel();
    if (server_ != nullptr) server_->Shutdown();
    pool_.reset();
  }

  std::string TypeName() const override { return kTypeName; }
  std::string DebugString() const override {
    absl::MutexLock l(&mu_);
    std::vector<std::string> names;
    for (const auto& [name, m] : methods_) names.push_back(name);
    return absl::StrCat("RpcServer resource with Registered methods: [",
                        absl::StrJoin(names, ", "), "]");
  }

  // FailedPrecondition once started; InvalidArgument for a name registered
  // before (TensorFlow's messages).
  absl::Status Register(const std::string& name, RpcMethod method) {
    absl::MutexLock l(&mu_);
    if (started_) {
      return absl::FailedPreconditionError(
          "All methods must be registered before starting the server. Method "
          "registration after starting the server is not supported.");
    }
    if (!methods_.emplace(name, std::move(method)).second) {
      return absl::InvalidArgumentError(
          absl::StrCat(name, " is already registered."));
    }
    return absl::OkStatus();
  }

  // Starts serving at the address; a second start does nothing.
  // Unavailable when gRPC cannot listen there (a port in use, an address
  // not of this host).
  absl::Status Start() {
    absl::MutexLock l(&mu_);
    if (started_) return absl::OkStatus();
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort(address_, grpc::InsecureServerCredentials(),
                             &port);
    builder.RegisterService(service_.get());
    builder.SetMaxReceiveMessageSize(INT_MAX);
    builder.SetMaxSendMessageSize(INT_MAX);
    // A second server on a port in use fails instead of sharing it.
    builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
    server_ = builder.BuildAndStart();
    if (server_ == nullptr || port == 0) {
      server_.reset();
      return absl::UnavailableError(absl::StrCat(
          "RPC server could not listen on ", address_,
          " (the port is in use, or the host is not an address of this "
          "machine)"));
    }
    started_ = true;
    return absl::OkStatus();
  }

  absl::Status List(RpcListResponse* response) const {
    absl::MutexLock l(&mu_);
    for (const auto& [name, m] : methods_) {
      RpcRegisteredMethod* r = response->add_registered_methods();
      r->set_method(name);
      r->set_input_specs(m.input_specs);
      r->set_output_specs(m.output_specs);
    }
    return absl::OkStatus();
  }

  // Runs the method a request names on its tensors (then the captured
  // inputs). InvalidArgument "<method> is not registered." (TensorFlow's
  // answer) for an unknown method; InvalidArgument naming the method and
  // its function for arguments it does not take.
  absl::Status Call(const RpcCallRequest& request, RpcCallResponse* response,
                    CancellationManager* call_cancel) {
    RpcMethod m;
    {
      absl::MutexLock l(&mu_);
      auto it = methods_.find(request.method());
      if (it == methods_.end()) {
        return absl::InvalidArgumentError(
            absl::StrCat(request.method(), " is not registered."));
      }
      m = it->second;
    }
    const DataTypeVector& types = m.f->arg_types();
    const std::string what = absl::StrCat("method '", request.method(),
                                          "' (function '", m.f->name(), "')");
    const size_t expected = types.size() - m.captured.size();
    if (static_cast<size_t>(request.input_tensors_size()) != expected) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, " takes ", expected, " arguments, got ",
                       request.input_tensors_size()));
    }
    std::vector<Tensor> args;
    for (int i = 0; i < request.input_tensors_size(); ++i) {
      absl::StatusOr<Tensor> t = Tensor::FromProto(request.input_tensors(i));
      if (!t.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("Failed to parse input tensor from proto: ", what,
                         " argument ", i, ": ", t.status().message()));
      }
      if (t->dtype() != types[i]) {
        return absl::InvalidArgumentError(absl::StrCat(
            what, " argument ", i, " must be ", DataTypeString(types[i]),
            ", got ", DataTypeString(t->dtype())));
      }
      args.push_back(*std::move(t));
    }
    args.insert(args.end(), m.captured.begin(), m.captured.end());

    // The server's end cancels the call too.
    const CancellationToken token = cancel_.get_cancellation_token();
    if (!cancel_.RegisterCallback(
            token, [call_cancel] { call_cancel->StartCancel(); })) {
      return absl::CancelledError("the RPC server is shutting down");
    }
    data::IteratorContext ictx;
    ictx.device = m.device;
    ictx.cancellation_manager = call_cancel;
    absl::StatusOr<std::vector<Tensor>> out = m.f->Run(&ictx, std::move(args));
    cancel_.DeregisterCallback(token);
    if (!out.ok()) {
      return absl::Status(out.status().code(),
                          absl::StrCat(what, ": ", out.status().message()));
    }
    for (const Tensor& t : *out) t.AsProtoField(response->add_output_tensors());
    return absl::OkStatus();
  }

 private:
  // The gRPC side: every call runs on the server's pool, never on gRPC's
  // callback threads.
  class Service final : public TfRpcService::CallbackService {
   public:
    explicit Service(RpcServerResource* server) : server_(server) {}

    grpc::ServerUnaryReactor* Call(grpc::CallbackServerContext* context,
                                   const RpcCallRequest* request,
                                   RpcCallResponse* response) override {
      auto* reactor = new CallReactor();
      server_->pool_->Schedule([this, reactor, request, response] {
        reactor->Finish(StatusToGrpc(
            server_->Call(*request, response, reactor->cancellation())));
      });
      return reactor;
    }

    grpc::ServerUnaryReactor* List(grpc::CallbackServerContext* context,
                                   const RpcListRequest* request,
                                   RpcListResponse* response) override {
      grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
      reactor->Finish(StatusToGrpc(server_->List(response)));
      return reactor;
    }

   private:
    RpcServerResource* const server_;
  };

  const std::string address_;
  mutable absl::Mutex mu_;
  std::map<std::string, RpcMethod> methods_ ABSL_GUARDED_BY(mu_);
  bool started_ ABSL_GUARDED_BY(mu_) = false;
  // Raised when the resource goes: functions still running are cancelled.
  CancellationManager cancel_;
  std::unique_ptr<ElasticThreadPool> pool_;
  std::unique_ptr<Service> service_;
  std::unique_ptr<grpc::Server> server_;
};

// ---------------------------------------------------------------- futures

// The answer of one RpcCall: set once, by the call's completion; waiters
// run then (or at once when it is already set), on the finishing thread.
class RpcFuture final : public ResourceBase {
 public:
  static constexpr const char* kTypeName = "RpcFutureResource";
  using Waiter =
      std::function<void(const absl::Status&, const RpcCallResponse&)>;

  std::string TypeName() const override { return kTypeName; }
  std::string DebugString() const override { return "Wait Resource"; }

  // Where the call writes its answer. Written only before Finish.
  RpcCallResponse* response() { return &response_; }

  void Finish(absl::Status status) {
    std::vector<Waiter> waiters;
    {
      absl::MutexLock l(&mu_);
      status_ = std::move(status);
      done_ = true;
      waiters.swap(waiters_);
    }
    for (Waiter& w : waiters) w(status_, response_);
  }

  void AddWaiter(Waiter waiter) {
    {
      absl::MutexLock l(&mu_);
      if (!done_) {
        waiters_.push_back(std::move(waiter));
        return;
      }
    }
    waiter(status_, response_);
  }

 private:
  absl::Mutex mu_;
  bool done_ ABSL_GUARDED_BY(mu_) = false;
  absl::Status status_;  // fixed once done_
  RpcCallResponse response_;
  std::vector<Waiter> waiters_ ABSL_GUARDED_BY(mu_);
};

// The deleter RpcCall outputs, as TensorFlow's ResourceDeleter: the future
// goes when the last copy of the deleter tensor does (unless
// DeleteRpcFutureResource, which takes the deleter as an input to run after
// RpcCall, deleted it first). A graph that drops the deleter at once loses
// the future, as in TensorFlow.
class FutureDeleter final : public VariantValue {
 public:
  FutureDeleter(ResourceMgr* rm, std::string name)
      : rm_(rm), name_(std::move(name)) {}
  ~FutureDeleter() override {
    rm_->Delete(kFutureContainer, name_, RpcFuture::kTypeName).IgnoreError();
  }
  std::string TypeName() const override {
    return "tensorflow::ResourceDeleter";
  }
  // TensorFlow's ResourceDeleter does not encode either.
  void Encode(VariantTensorDataProto* proto) const override {}
  std::string DebugString() const override {
    return absl::StrCat("ResourceDeleter of ", kFutureContainer, "/", name_);
  }

 private:
  ResourceMgr* const rm_;
  const std::string name_;
};

// One wait of an async kernel, ended once: by whoever claims it first, the
// awaited completion or the step's cancellation (Cancelled "<what> was
// cancelled").
class KernelWait {
 public:
  // Null (and `done` called, the status Cancelled) when the step is
  // already cancelled.
  static std::shared_ptr<KernelWait> Start(OpKernelContext* ctx,
                                           AsyncOpKernel::DoneCallback done,
                                           std::string what) {
    auto w = std::shared_ptr<KernelWait>(new KernelWait(ctx, std::move(done)));
    w->cm_ = ctx->cancellation_manager();
    if (w->cm_ == nullptr) return w;
    w->token_ = w->cm_->get_cancellation_token();
    // The callback holds the wait until it runs or Claim deregisters it.
    w->registered_ = w->cm_->RegisterCallback(w->token_, [self = w, what] {
      if (self->claimed_.exchange(true)) return;
      self->ctx_->SetStatus(absl::CancelledError(
          absl::StrCat(what, " was cancelled while waiting for the RPC")));
      AsyncOpKernel::DoneCallback d = std::move(self->done_);
      d();
    });
    if (!w->registered_) {
      w->claimed_ = true;
      ctx->SetStatus(absl::CancelledError(
          absl::StrCat(what, " was cancelled before the RPC")));
      AsyncOpKernel::DoneCallback d = std::move(w->done_);
      d();
      return nullptr;
    }
    return w;
  }

  // True for the first claimant, which then sets the kernel's outputs and
  // calls Done(); false once cancelled (the kernel has finished).
  bool Claim() {
    if (claimed_.exchange(true)) return false;
    if (registered_) cm_->DeregisterCallback(token_);
    return true;
  }
  OpKernelContext* ctx() const { return ctx_; }
  void Done() {
    AsyncOpKernel::DoneCallback d = std::move(done_);
    d();
  }

 private:
  KernelWait(OpKernelContext* ctx, AsyncOpKernel::DoneCallback done)
      : ctx_(ctx), done_(std::move(done)) {}

  OpKernelContext* const ctx_;
  AsyncOpKernel::DoneCallback done_;
  CancellationManager* cm_ = nullptr;
  CancellationToken token_ = 0;
  bool registered_ = false;
  std::atomic<bool> claimed_{false};
};

// ---------------------------------------------------------------- client

class RpcClientResource final : public ResourceBase {
 public:
  static constexpr const char* kTypeName = "RpcClient";

  RpcClientResource(std::string address, int64_t timeout_ms)
      : address_(std::move(address)),
        timeout_ms_(timeout_ms),
        in_flight_(std::make_shared<InFlight>()) {
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(-1);
    args.SetMaxSendMessageSize(-1);
    channel_ = grpc::CreateCustomChannel(
        address_, grpc::InsecureChannelCredentials(), args);
    stub_ = TfRpcService::NewStub(channel_);
  }

  // Calls in flight end Cancelled (their futures too).
  ~RpcClientResource() override {
    absl::MutexLock l(&in_flight_->mu);
    in_flight_->closed = true;
    for (grpc::ClientContext* c : in_flight_->contexts) c->TryCancel();
  }

  std::string TypeName() const override { return kTypeName; }
  std::string DebugString() const override {
    return absl::StrCat("Rpc client for address: ", address_);
  }

  // Calls `method` on `args`; the answer goes to `future`.
  void Call(const std::string& method, absl::Span<const Tensor> args,
            int64_t timeout_ms, std::shared_ptr<RpcFuture> future) {
    auto state = std::make_shared<CallState>();
    state->channel = channel_;
    state->request.set_method(method);
    for (const Tensor& t : args)
      t.AsProtoField(state->request.add_input_tensors());
    Prepare(&state->context, timeout_ms > 0 ? timeout_ms : timeout_ms_);
    if (!Begin(&state->context)) {
      future->Finish(absl::CancelledError("the RPC client was deleted"));
      return;
    }
    RpcCallResponse* response = future->response();
    stub_->async()->Call(&state->context, &state->request, response,
                         [state, future = std::move(future),
                          in_flight = in_flight_](grpc::Status s) {
                           End(in_flight.get(), &state->context);
                           future->Finish(StatusFromGrpc(s));
                         });
  }

  // The server's registered methods, within the client's timeout.
  void List(std::function<void(absl::Status, const RpcListResponse&)> done) {
    auto state = std::make_shared<ListState>();
    state->channel = channel_;
    Prepare(&state->context, timeout_ms_);
    if (!Begin(&state->context)) {
      done(absl::CancelledError("the RPC client was deleted"), state->response);
      return;
    }
    stub_->async()->List(&state->context, &state->request, &state->response,
                         [state, done = std::move(done),
                          in_flight = in_flight_](grpc::Status s) {
                           End(in_flight.get(), &state->context);
                           done(StatusFromGrpc(s), state->response);
                         });
  }

 private:
  // The calls in flight, cancelled when the client goes; shared with the
  // calls' callbacks, which may run after the client has gone.
  struct InFlight {
    absl::Mutex mu;
    bool closed ABSL_GUARDED_BY(mu) = false;
    absl::flat_hash_set<grpc::ClientContext*> contexts ABSL_GUARDED_BY(mu);
  };
  // The channel stays while a call uses it (its callbacks run on the
  // channel's completion queue).
  struct CallState {
    std::shared_ptr<grpc::Channel> channel;
    grpc::ClientContext context;
    RpcCallRequest request;
  };
  struct ListState {
    std::shared_ptr<grpc::Channel> channel;
    grpc::ClientContext context;
    RpcListRequest request;
    RpcListResponse response;
  };

  static void Prepare(grpc::ClientContext* context, int64_t timeout_ms) {
    // TensorFlow's fail_fast=false: wait for the server until the deadline.
    context->set_wait_for_ready(true);
    if (timeout_ms > 0) {
      context->set_deadline(std::chrono::system_clock::now() +
                            std::chrono::milliseconds(timeout_ms));
    }
  }
  bool Begin(grpc::ClientContext* context) {
    absl::MutexLock l(&in_flight_->mu);
    if (in_flight_->closed) return false;
    in_flight_->contexts.insert(context);
    return true;
  }
  static void End(InFlight* in_flight, grpc::ClientContext* context) {
    absl::MutexLock l(&in_flight->mu);
    in_flight->contexts.erase(context);
  }

  const std::string address_;
  const int64_t timeout_ms_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<TfRpcService::Stub> stub_;
  std::shared_ptr<InFlight> in_flight_;
};

// ---------------------------------------------------------------- kernels

class RpcServerOp final : public OpKernel {
 public:
  explicit RpcServerOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<std::string> address =
        ScalarString(ctx, 0, "server_address");
    DFX_OP_REQUIRES_OK(ctx, address.status());
    DFX_OP_REQUIRES_OK(ctx, CheckAddress(*address, /*server=*/true));
    DFX_OP_REQUIRES_OK(ctx, CheckGraphMayListen(name(), *address));
    absl::StatusOr<std::shared_ptr<RpcServerResource>> server =
        ctx->resource_manager()->LookupOrCreate<RpcServerResource>(
            kServerContainer, *address,
            [&] { return std::make_shared<RpcServerResource>(*address); });
    DFX_OP_REQUIRES_OK(ctx, server.status());
    ctx->set_output(0, ResourceOutput(ctx, kServerContainer, *address,
                                      RpcServerResource::kTypeName));
  }
};

// A serialized StructuredValue: dfx keeps it as bytes, but checks that they
// parse as a protocol buffer, as TensorFlow's parse of the attr does.
absl::Status ReadSpecAttr(OpKernelConstruction* ctx, absl::string_view attr,
                          std::string* out) {
  DFX_RETURN_IF_ERROR(ctx->GetAttr(attr, out));
  google::protobuf::UnknownFieldSet fields;
  if (!fields.ParseFromString(*out)) {
    // TensorFlow says output_spec for both attrs.
    return absl::InvalidArgumentError(absl::StrCat(
        "Unable to parse StructuredValue output_spec string: ", *out));
  }
  return absl::OkStatus();
}

class RpcServerRegisterOp final : public OpKernel {
 public:
  explicit RpcServerRegisterOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ReadSpecAttr(ctx, "output_specs", &output_specs_));
    if (!ctx->status().ok()) return;
    ctx->SetStatus(ReadSpecAttr(ctx, "input_specs", &input_specs_));
    if (!ctx->status().ok()) return;
    absl::StatusOr<std::shared_ptr<const data::DatasetFunction>> f =
        data::DatasetFunction::Create(ctx, "f");
    if (!f.ok()) {
      ctx->SetStatus(f.status());
      return;
    }
    f_ = *std::move(f);
  }

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<std::string> method = ScalarString(ctx, 1, "method_name");
    DFX_OP_REQUIRES_OK(ctx, method.status());
    RpcMethod m;
    m.f = f_;
    m.device = ctx->device();
    m.input_specs = input_specs_;
    m.output_specs = output_specs_;
    for (int i = 2; i < ctx->num_inputs(); ++i) {
      m.captured.push_back(ctx->input(i));
    }
    // The captured inputs are the function's last arguments.
    const DataTypeVector& types = f_->arg_types();
    DFX_OP_REQUIRES(ctx, m.captured.size() <= types.size(),
                    absl::InvalidArgumentError(absl::StrCat(
                        "function '", f_->name(), "' takes ", types.size(),
                        " arguments, fewer than the ", m.captured.size(),
                        " captured inputs")));
    const size_t first = types.size() - m.captured.size();
    for (size_t i = 0; i < m.captured.size(); ++i) {
      DFX_OP_REQUIRES(
          ctx, m.captured[i].dtype() == types[first + i],
          absl::InvalidArgumentError(absl::StrCat(
              "function '", f_->name(), "' argument ", first + i, " must be ",
              DataTypeString(types[first + i]), ", got captured input ", i,
              " of ", DataTypeString(m.captured[i].dtype()))));
    }
    absl::StatusOr<std::shared_ptr<RpcServerResource>> server =
        LookupInput<RpcServerResource>(ctx, 0);
    DFX_OP_REQUIRES_OK(ctx, server.status());
    DFX_OP_REQUIRES_OK(ctx, (*server)->Register(*method, std::move(m)));
  }

 private:
  std::string input_specs_;
  std::string output_specs_;
  std::shared_ptr<const data::DatasetFunction> f_;
};

class RpcServerStartOp final : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<std::shared_ptr<RpcServerResource>> server =
        LookupInput<RpcServerResource>(ctx, 0);
    DFX_OP_REQUIRES_OK(ctx, server.status());
    DFX_OP_REQUIRES_OK(ctx, (*server)->Start());
  }
};

class RpcClientOp final : public AsyncOpKernel {
 public:
  explicit RpcClientOp(OpKernelConstruction* ctx) : AsyncOpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("shared_name", &shared_name_));
    if (ctx->status().ok()) {
      ctx->SetStatus(ctx->GetAttr("list_registered_methods", &list_));
    }
  }

  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    absl::StatusOr<std::string> address =
        ScalarString(ctx, 0, "server_address");
    DFX_OP_REQUIRES_OK_ASYNC(ctx, address.status(), done);
    DFX_OP_REQUIRES_OK_ASYNC(ctx, CheckAddress(*address, /*server=*/false),
                             done);
    DFX_OP_REQUIRES_OK_ASYNC(ctx, CheckGraphMayConnect(name(), *address), done);
    absl::StatusOr<int64_t> timeout = ScalarInt64(ctx, 1, "timeout_in_ms");
    DFX_OP_REQUIRES_OK_ASYNC(ctx, timeout.status(), done);
    // A new client each run: the old one of the name (its state) goes.
    const std::string name = absl::StrCat(shared_name_, *address);
    ResourceMgr* rm = ctx->resource_manager();
    rm->Delete(kClientContainer, name, RpcClientResource::kTypeName)
        .IgnoreError();
    absl::StatusOr<std::shared_ptr<RpcClientResource>> client =
        rm->LookupOrCreate<RpcClientResource>(kClientContainer, name, [&] {
          return std::make_shared<RpcClientResource>(*address, *timeout);
        });
    DFX_OP_REQUIRES_OK_ASYNC(ctx, client.status(), done);
    ctx->set_output(0, ResourceOutput(ctx, kClientContainer, name,
                                      RpcClientResource::kTypeName));
    if (!list_) {
      ctx->set_output(1, Tensor(DT_STRING, TensorShape({0})));
      done();
      return;
    }
    std::shared_ptr<KernelWait> wait =
        KernelWait::Start(ctx, std::move(done), "RpcClient");
    if (wait == nullptr) return;
    (*client)->List([wait](absl::Status s, const RpcListResponse& response) {
      if (!wait->Claim()) return;
      if (!s.ok()) {
        wait->ctx()->SetStatus(std::move(s));
      } else {
        const int n = response.registered_methods_size();
        Tensor specs(DT_STRING, TensorShape({n}));
        for (int i = 0; i < n; ++i) {
          specs.data<std::string>()[i] =
              response.registered_methods(i).SerializeAsString();
        }
        wait->ctx()->set_output(1, std::move(specs));
      }
      wait->Done();
    });
  }

 private:
  std::string shared_name_;
  bool list_ = false;
};

std::atomic<int64_t> next_future{0};

class RpcCallOp final : public OpKernel {
 public:
  explicit RpcCallOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<std::string> method = ScalarString(ctx, 1, "method_name");
    DFX_OP_REQUIRES_OK(ctx, method.status());
    const int last = ctx->num_inputs() - 1;
    absl::StatusOr<int64_t> timeout = ScalarInt64(ctx, last, "timeout_in_ms");
    DFX_OP_REQUIRES_OK(ctx, timeout.status());
    std::vector<Tensor> args;
    for (int i = 2; i < last; ++i) args.push_back(ctx->input(i));
    absl::StatusOr<std::shared_ptr<RpcClientResource>> client =
        LookupInput<RpcClientResource>(ctx, 0);
    DFX_OP_REQUIRES_OK(ctx, client.status());
    const std::string name = absl::StrCat("future_", next_future++);
    auto future = std::make_shared<RpcFuture>();
    DFX_OP_REQUIRES_OK(
        ctx, ctx->resource_manager()->Create(kFutureContainer, name, future));
    ctx->set_output(
        0, ResourceOutput(ctx, kFutureContainer, name, RpcFuture::kTypeName));
    Tensor deleter(DT_VARIANT, TensorShape({}));
    deleter.scalar<Variant>() =
        Variant::Make<FutureDeleter>(ctx->resource_manager(), name);
    ctx->set_output(1, std::move(deleter));
    (*client)->Call(*method, args, *timeout, std::move(future));
  }
};

// Looks up the future of input 0; NotFound with TensorFlow's message when
// it has been deleted.
absl::StatusOr<std::shared_ptr<RpcFuture>> LookupFuture(
    OpKernelContext* ctx, absl::string_view please) {
  absl::StatusOr<std::shared_ptr<RpcFuture>> f = LookupInput<RpcFuture>(ctx, 0);
  if (absl::IsNotFound(f.status())) {
    return absl::NotFoundError(
        absl::StrCat("Future resource no longer exists. Please ", please,
                     " resource is not already deleted."));
  }
  return f;
}

class RpcCheckStatusOp final : public AsyncOpKernel {
 public:
  using AsyncOpKernel::AsyncOpKernel;
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    absl::StatusOr<std::shared_ptr<RpcFuture>> future =
        LookupFuture(ctx, "make sure");
    DFX_OP_REQUIRES_OK_ASYNC(ctx, future.status(), done);
    std::shared_ptr<KernelWait> wait =
        KernelWait::Start(ctx, std::move(done), "RpcCheckStatus");
    if (wait == nullptr) return;
    (*future)->AddWaiter([wait](const absl::Status& s, const RpcCallResponse&) {
      if (!wait->Claim()) return;
      wait->ctx()->set_output(
          0, Tensor::Scalar<int64_t>(static_cast<int64_t>(s.code())));
      wait->ctx()->set_output(
          1, Tensor::Scalar<std::string>(std::string(s.message())));
      wait->Done();
    });
  }
};

class RpcGetValueOp final : public AsyncOpKernel {
 public:
  using AsyncOpKernel::AsyncOpKernel;
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    absl::StatusOr<std::shared_ptr<RpcFuture>> future =
        LookupFuture(ctx, "ensure");
    DFX_OP_REQUIRES_OK_ASYNC(ctx, future.status(), done);
    std::shared_ptr<KernelWait> wait =
        KernelWait::Start(ctx, std::move(done), "RpcGetValue");
    if (wait == nullptr) return;
    (*future)->AddWaiter(
        [wait](const absl::Status& s, const RpcCallResponse& response) {
          if (!wait->Claim()) return;
          wait->ctx()->SetStatus(Outputs(wait->ctx(), s, response));
          wait->Done();
        });
  }

 private:
  static absl::Status Outputs(OpKernelContext* ctx, const absl::Status& s,
                              const RpcCallResponse& response) {
    if (!s.ok()) return s;
    if (ctx->num_outputs() != response.output_tensors_size()) {
      // TensorFlow's message, spacing included.
      return absl::InvalidArgumentError(absl::StrCat(
          "Incorrect number of output types specified.", ctx->num_outputs(),
          " ", response.output_tensors_size()));
    }
    for (int i = 0; i < ctx->num_outputs(); ++i) {
      absl::StatusOr<Tensor> t = Tensor::FromProto(response.output_tensors(i));
      if (!t.ok()) {
        return absl::InternalError(absl::StrCat(
            "Invalid Tensor Proto response returned: ", t.status().message()));
      }
      if (t->dtype() != ctx->op_kernel().output_type(i)) {
        return absl::InvalidArgumentError(
            absl::StrCat("the RPC's output ", i, " is ",
                         DataTypeString(t->dtype()), ", but Tout[", i, "] is ",
                         DataTypeString(ctx->op_kernel().output_type(i))));
      }
      ctx->set_output(i, *std::move(t));
    }
    return absl::OkStatus();
  }
};

class DeleteRpcFutureResourceOp final : public OpKernel {
 public:
  explicit DeleteRpcFutureResourceOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    set_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    DFX_OP_REQUIRES_OK(ctx,
                       data::DeleteResourceOfInput(ctx, RpcFuture::kTypeName));
  }
};

}  // namespace

void RegisterRpcKernels(KernelRegistry* r) {
  RegisterKernel<RpcServerOp>(r, KernelDefBuilder("RpcServer"));
  RegisterKernel<RpcServerRegisterOp>(r, KernelDefBuilder("RpcServerRegister"));
  RegisterKernel<RpcServerStartOp>(r, KernelDefBuilder("RpcServerStart"));
  RegisterKernel<RpcClientOp>(r, KernelDefBuilder("RpcClient"));
  RegisterKernel<RpcCallOp>(r, KernelDefBuilder("RpcCall"));
  RegisterKernel<RpcCheckStatusOp>(r, KernelDefBuilder("RpcCheckStatus"));
  RegisterKernel<RpcGetValueOp>(r, KernelDefBuilder("RpcGetValue"));
  RegisterKernel<DeleteRpcFutureResourceOp>(
      r, KernelDefBuilder("DeleteRpcFutureResource"));
}

}  // namespace dfx

#include "rpc/grpc_worker_service.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <deque>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "base/log.h"
#include "base/status_macros.h"
#include "graph/device_name.h"
#include "graph/types.h"
#include "grpcpp/support/server_callback.h"
#include "proto/dfx_worker_service.grpc.pb.h"
#include "proto/dfx_worker_service.pb.h"
#include "proto/worker_service.grpc.pb.h"
#include "rendezvous/remote_rendezvous.h"
#include "rpc/grpc_collective.h"
#include "rpc/grpc_util.h"
#include "rpc/held_tensors.h"
#include "rpc/rpc_metrics.h"
#include "rpc/request_gate.h"
#include "rpc/tensor_coding.h"
#include "rpc/tensor_push.h"
#include "runtime/device.h"
#include "runtime/rendezvous.h"

namespace dfx {
namespace {

using TfWorkerService = ::tensorflow::WorkerService;
using DfxWorkerService = ::dfx::WorkerService;

// TensorFlow's methods with the callback API, every one raw: requests are
// parsed by the RequestGate (after the auth token check), and RecvTensor's
// response is bytes this service lays out over the tensor's buffer.
using TfServiceBase = TfWorkerService::WithRawCallbackMethod_GetStatus<
    TfWorkerService::WithRawCallbackMethod_CreateWorkerSession<
        TfWorkerService::WithRawCallbackMethod_DeleteWorkerSession<
            TfWorkerService::WithRawCallbackMethod_RegisterGraph<
                TfWorkerService::WithRawCallbackMethod_DeregisterGraph<
                    TfWorkerService::WithRawCallbackMethod_RunGraph<
                        TfWorkerService::WithRawCallbackMethod_CleanupGraph<
                            TfWorkerService::WithRawCallbackMethod_CleanupAll<
                                TfWorkerService::
                                    WithRawCallbackMethod_RecvTensor<
                                        TfWorkerService::Service>>>>>>>>>;
using DfxServiceBase = DfxWorkerService::WithRawCallbackMethod_RecvTensorChunk<
    DfxWorkerService::WithCallbackMethod_PushTensors<
        DfxWorkerService::Service>>;

// Room for the response's header fields beside a chunk's bytes.
constexpr int64_t kMaxChunkBytes = kMaxGrpcMessageBytes - (int64_t{1} << 20);

int64_t ChunkLimit(int64_t requested) {
  if (requested <= 0) return GrpcWorkerService::Options().max_chunk_bytes;
  return std::min(requested, kMaxChunkBytes);
}

// Everything of a RunGraphRequest but its feeds, which the call carries as
// Tensors: copying them as protos too would copy every feed's bytes twice.
void CopyAllButSend(const RunGraphRequest& from, RunGraphRequest* to) {
  to->set_session_handle(from.session_handle());
  to->set_create_worker_session_called(from.create_worker_session_called());
  to->set_graph_handle(from.graph_handle());
  to->set_step_id(from.step_id());
  if (from.has_exec_opts()) *to->mutable_exec_opts() = from.exec_opts();
  *to->mutable_recv_key() = from.recv_key();
  to->set_is_partial(from.is_partial());
  to->set_is_last_partial_run(from.is_last_partial_run());
  to->set_store_errors_in_response_body(from.store_errors_in_response_body());
  to->set_request_id(from.request_id());
}

// The bulk server and what RecvTensor answers need of it.
struct BulkPlane {
  // Null when there is none.
  std::unique_ptr<BulkServer> server;
  // Put in BulkTensor.address and .local_address.
  std::string address;
  std::string local_address;
  int64_t threshold_bytes = 0;
};

}  // namespace

// ---------------------------------------------------------------------------

namespace {
struct PushStreams;
std::shared_ptr<PushStreams> NewPushStreams();
}  // namespace

class GrpcWorkerService::Impl {
 public:
  Impl(Worker* worker, Options options)
      : worker_(worker),
        max_chunk_bytes_(ChunkLimit(options.max_chunk_bytes)),
        gate_(options.auth_token),
        tf_service_(this),
        dfx_service_(this),
        collective_service_(CollectiveLeaderFor(worker), &gate_) {
    bulk_.threshold_bytes = std::max<int64_t>(1, options.bulk_threshold_bytes);
    if (options.bulk_bind_host.empty()) return;
    BulkServer::Options bulk_options;
    bulk_options.bind_host = options.bulk_bind_host;
    bulk_options.auth_token = options.auth_token;
    bulk_options.tls = options.bulk_tls;
    bulk_options.held = &held_;
    bulk_options.local = options.bulk_local;
    absl::StatusOr<std::unique_ptr<BulkServer>> bulk =
        BulkServer::Start(bulk_options);
    if (!bulk.ok()) {
      spdlog::warn("worker service: no bulk transport, tensors go over gRPC "
                   "only: {}", bulk.status());
      return;
    }
    bulk_.server = *std::move(bulk);
    bulk_.address = options.bulk_address_for_testing.empty()
                        ? bulk_.server->address()
                        : options.bulk_address_for_testing;
    if (options.bulk_address_for_testing.empty()) {
      bulk_.local_address = bulk_.server->local_address();
    }
  }

  ~Impl() {
    // Its connections serve from held_.
    if (bulk_.server != nullptr) bulk_.server->Stop();
  }

  void RegisterWith(grpc::ServerBuilder* builder) {
    builder->RegisterService(&tf_service_);
    builder->RegisterService(&dfx_service_);
    // CompleteGroup/CompleteInstance (rpc/grpc_collective.h), the only
    // methods served generically.
    builder->RegisterCallbackGenericService(&collective_service_);
  }

  Worker* worker() const { return worker_; }
  const RequestGate& gate() const { return gate_; }
  int64_t max_chunk_bytes() const { return max_chunk_bytes_; }
  // Tensors held for peers, fetched in chunks or over the bulk server.
  HeldTensors* held() { return &held_; }
  // Null when there is no bulk server.
  BulkServer* bulk() const { return bulk_.server.get(); }

  // The bytes a RecvTensorChunk asks for, in host memory (a device
  // tensor's staged), counted as served.
  absl::StatusOr<HeldTensors::HostBytes> ServeChunk(
      const RecvTensorChunkRequest& request) {
    const uint64_t handle = static_cast<uint64_t>(request.handle());
    const int64_t offset = request.offset();
    const int64_t length = request.length();
    // (A negative offset or length becomes a huge one: OutOfRange.)
    absl::StatusOr<Tensor> tensor =
        held_.Lookup(handle, static_cast<uint64_t>(offset),
                     static_cast<uint64_t>(length), request.step_id());
    if (!tensor.ok()) {
      return absl::Status(tensor.status().code(),
                          absl::StrCat("RecvTensorChunk: ",
                                       tensor.status().message()));
    }
    if (length <= 0) {
      return absl::OutOfRangeError(absl::StrCat(
          "RecvTensorChunk: an empty range at ", offset, " of handle ",
          request.handle()));
    }
    if (length > max_chunk_bytes_) {
      return absl::OutOfRangeError(absl::StrCat(
          "RecvTensorChunk: ", length, " bytes asked for, over the chunk "
          "limit of ", max_chunk_bytes_));
    }
    absl::StatusOr<HeldTensors::HostBytes> bytes =
        held_.Read(handle, static_cast<uint64_t>(offset),
                   static_cast<uint64_t>(length), request.step_id());
    if (!bytes.ok()) {
      return absl::Status(
          bytes.status().code(),
          absl::StrCat("RecvTensorChunk: ", bytes.status().message()));
    }
    held_.MarkServed(handle, static_cast<uint64_t>(offset),
                     static_cast<uint64_t>(length));
    return bytes;
  }
  const BulkPlane* bulk_plane() const { return &bulk_; }
  const std::shared_ptr<PushStreams>& push_streams() { return push_streams_; }

 private:
  class TfService : public TfServiceBase {
   public:
    explicit TfService(Impl* impl) : impl_(impl) {}

    grpc::ServerUnaryReactor* GetStatus(grpc::CallbackServerContext* context,
                                        const grpc::ByteBuffer* request,
                                        grpc::ByteBuffer* response) override {
      return Forward(context, request, response, &Worker::GetStatusAsync);
    }
    grpc::ServerUnaryReactor* CreateWorkerSession(
        grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
        grpc::ByteBuffer* response) override {
      return Forward(context, request, response,
                     &Worker::CreateWorkerSessionAsync);
    }
    grpc::ServerUnaryReactor* DeleteWorkerSession(
        grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
        grpc::ByteBuffer* response) override {
      return Forward(context, request, response,
                     &Worker::DeleteWorkerSessionAsync);
    }
    grpc::ServerUnaryReactor* RegisterGraph(
        grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
        grpc::ByteBuffer* response) override {
      return Forward(context, request, response,
                     &Worker::TakeAndRegisterGraphAsync);
    }
    grpc::ServerUnaryReactor* DeregisterGraph(
        grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
        grpc::ByteBuffer* response) override {
      return Forward(context, request, response, &Worker::DeregisterGraphAsync);
    }
    grpc::ServerUnaryReactor* CleanupGraph(
        grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
        grpc::ByteBuffer* response) override {
      return Forward(context, request, response, &Worker::CleanupGraphAsync,
                     [this](const CleanupGraphRequest& r) {
                       impl_->held()->ReleaseStep(r.step_id());
                     });
    }
    grpc::ServerUnaryReactor* CleanupAll(grpc::CallbackServerContext* context,
                                         const grpc::ByteBuffer* request,
                                         grpc::ByteBuffer* response) override {
      return Forward(context, request, response, &Worker::CleanupAllAsync,
                     [this](const CleanupAllRequest&) {
                       impl_->held()->ReleaseAll();
                     });
    }
    grpc::ServerUnaryReactor* RunGraph(grpc::CallbackServerContext* context,
                                       const grpc::ByteBuffer* request,
                                       grpc::ByteBuffer* response) override;
    grpc::ServerUnaryReactor* RecvTensor(grpc::CallbackServerContext* context,
                                         const grpc::ByteBuffer* request,
                                         grpc::ByteBuffer* response) override;

   private:
    // A call that never waits long: the request admitted and parsed by the
    // gate, `before` run on it, then the worker's method, the default
    // reactor finished from its callback with the serialized response. A
    // method may take the request mutable (it is the call's own).
    template <typename MethodRequest, typename Response,
              typename Request = std::remove_const_t<MethodRequest>,
              typename Before = void (*)(const Request&)>
    grpc::ServerUnaryReactor* Forward(
        grpc::CallbackServerContext* context, const grpc::ByteBuffer* body,
        grpc::ByteBuffer* out,
        void (Worker::*method)(MethodRequest*, Response*, StatusCallback),
        Before before = [](const Request&) {}) {
      grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
      struct Call {
        Request request;
        Response response;
      };
      auto call = std::make_shared<Call>();
      if (absl::Status s =
              impl_->gate().Accept(*context, *body, &call->request);
          !s.ok()) {
        reactor->Finish(ToGrpcStatus(s));
        return reactor;
      }
      before(call->request);
      (impl_->worker()->*method)(
          &call->request, &call->response,
          [reactor, out, call](const absl::Status& s) {
            if (s.ok()) *out = SerializeToByteBuffer(call->response);
            reactor->Finish(ToGrpcStatus(s));
          });
      return reactor;
    }

    Impl* const impl_;
  };

  class DfxService : public DfxServiceBase {
   public:
    explicit DfxService(Impl* impl) : impl_(impl) {}
    grpc::ServerUnaryReactor* RecvTensorChunk(
        grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
        grpc::ByteBuffer* response) override;
    grpc::ServerReadReactor<PushTensorsRequest>* PushTensors(
        grpc::CallbackServerContext* context,
        PushTensorsResponse* response) override;

   private:
    Impl* const impl_;
  };

  Worker* const worker_;
  const int64_t max_chunk_bytes_;
  const RequestGate gate_;
  // One table for both ways a peer fetches a held tensor (rules in
  // rpc/held_tensors.h), so a tensor fetched partly over each is let go
  // once.
  HeldTensors held_;
  BulkPlane bulk_;  // after held_, which it serves from
  // Shared with the streams' reactors: one whose OnDone runs on a gRPC
  // thread while the service is destroyed still finds it.
  const std::shared_ptr<PushStreams> push_streams_ = NewPushStreams();
  TfService tf_service_;
  DfxService dfx_service_;
  CollectiveGenericService collective_service_;
};

namespace {

// gRPC's callback API ends a reactor's life in OnDone, its last call, and
// leaves freeing it to the reactor: the reactors below are heap objects
// that free themselves there, as gRPC documents.

// RunGraph: feeds decoded into Tensors, the step run by the worker, the
// client's cancellation and deadline passed on to it.
class RunGraphReactor : public grpc::ServerUnaryReactor {
 public:
  RunGraphReactor(Worker* worker, const RequestGate& gate,
                  grpc::CallbackServerContext* context,
                  const grpc::ByteBuffer* body, grpc::ByteBuffer* response)
      : worker_(worker), out_(response) {
    opts_.SetTimeout(TimeLeft(context));
    RunGraphRequest request;
    start_status_ = gate.Accept(*context, *body, &request);
    if (!start_status_.ok()) return;
    CopyAllButSend(request, &call_.request);
    start_status_ = DecodeFeeds(request);
  }

  void Start() {
    if (!start_status_.ok()) {
      // A call not admitted, or a body that did not parse, gets the gRPC
      // status; a feed that does not decode, the asked-for form.
      if (start_status_.code() == absl::StatusCode::kUnauthenticated ||
          !call_.request.store_errors_in_response_body()) {
        Finish(ToGrpcStatus(start_status_));
        return;
      }
      Reply(start_status_);
      return;
    }
    // The partition's cheap first nodes run here, on gRPC's thread, rather
    // than waking a pool thread for them (expensive ones go to the pool).
    call_.caller_runs_inline = true;
    worker_->RunGraphAsync(&opts_, &call_,
                           [this](const absl::Status& s) { Reply(s); });
  }

  void OnCancel() override { opts_.StartCancel(); }
  void OnDone() override { delete this; }

 private:
  absl::Status DecodeFeeds(const RunGraphRequest& request) {
    call_.send.reserve(request.send_size());
    for (const NamedTensorProto& feed : request.send()) {
      absl::StatusOr<Tensor> t = Tensor::FromProto(feed.tensor());
      if (!t.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("RunGraph feed '", feed.name(),
                         "' does not decode: ", t.status().message()));
      }
      call_.send.emplace_back(feed.name(), *std::move(t));
    }
    return absl::OkStatus();
  }

  void Reply(const absl::Status& status) {
    if (!status.ok()) {
      response_.Clear();
      if (call_.request.store_errors_in_response_body()) {
        // TensorFlow's masters ask for this: gRPC status messages may be
        // cut short on the way, the body is not.
        response_.set_status_code(static_cast<error::Code>(status.code()));
        response_.set_status_error_message(std::string(status.message()));
        *out_ = SerializeToByteBuffer(response_);
        Finish(grpc::Status::OK);
      } else {
        Finish(ToGrpcStatus(status));
      }
      return;
    }
    for (const auto& [key, tensor] : call_.recv) {
      NamedTensorProto* out = response_.add_recv();
      out->set_name(key);
      tensor.AsProtoTensorContent(out->mutable_tensor());
    }
    if (call_.step_stats.dev_stats_size() > 0) {
      response_.mutable_step_stats()->Swap(&call_.step_stats);
    }
    for (GraphDef& g : call_.partition_graphs) {
      response_.add_partition_graph()->Swap(&g);
    }
    call_.partition_graphs.clear();
    call_.recv.clear();  // the tensors' bytes are in the proto now
    *out_ = SerializeToByteBuffer(response_);
    response_.Clear();
    Finish(grpc::Status::OK);
  }

  Worker* const worker_;
  grpc::ByteBuffer* const out_;
  RunGraphResponse response_;
  CallOptions opts_;
  RunGraphCall call_;
  absl::Status start_status_;
};

// RecvTensor: waits in the worker (no thread held), answers with bytes over
// the tensor's buffer, in chunks when the receiver takes them and the
// tensor is bigger than the chunk size.
class RecvTensorReactor : public grpc::ServerUnaryReactor {
 public:
  RecvTensorReactor(Worker* worker, HeldTensors* held, int64_t max_chunk_bytes,
                    const BulkPlane* bulk, const RequestGate& gate,
                    grpc::CallbackServerContext* context,
                    const grpc::ByteBuffer* request, grpc::ByteBuffer* response)
      : worker_(worker),
        held_(held),
        max_chunk_bytes_(max_chunk_bytes),
        bulk_(bulk),
        response_(response) {
    opts_.SetTimeout(TimeLeft(context));
    start_status_ = gate.Accept(*context, *request, &request_);
    if (start_status_.ok()) start_status_ = ReadTransport();
  }

  void Start() {
    if (!start_status_.ok()) {
      Finish(ToGrpcStatus(start_status_));
      return;
    }
    worker_->RecvTensorAsync(&opts_, &request_, &result_,
                             [this](const absl::Status& s) { Reply(s); });
  }

  void OnCancel() override { opts_.StartCancel(); }
  void OnDone() override { delete this; }

 private:
  absl::Status ReadTransport() {
    if (request_.has_transport_options() &&
        request_.transport_options().type_url() ==
            kRecvTensorTransportTypeUrl) {
      RecvTensorTransport transport;
      if (!request_.transport_options().UnpackTo(&transport)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "RecvTensor of '", request_.rendezvous_key(),
            "': transport_options hold a bad dfx.RecvTensorTransport"));
      }
      accepts_chunks_ = true;
      accepts_bulk_ = transport.accepts_bulk();
      if (transport.max_chunk_bytes() > 0) {
        chunk_bytes_ = std::min(max_chunk_bytes_, transport.max_chunk_bytes());
      } else {
        chunk_bytes_ = max_chunk_bytes_;
      }
    }
    return absl::OkStatus();
  }

  void Reply(const absl::Status& status) {
    if (!status.ok()) {
      Finish(ToGrpcStatus(status));
      return;
    }
    const Tensor tensor = result_.tensor;
    const std::string& key = request_.rendezvous_key();
    const int64_t step_id = request_.step_id();
    // A _Send for another task leaves a device tensor as it is
    // (kernels/sendrecv/): it is served from the device, by range.
    Device* device = nullptr;
    if (tensor.IsInitialized() && !tensor.OnHost()) {
      absl::StatusOr<Device*> found = SourceDevice();
      if (!found.ok()) {
        Finish(ToGrpcStatus(found.status()));
        return;
      }
      device = *found;
    }
    RecvTensorEncodeOptions options;
    google::protobuf::Any transport_any;
    int64_t handle = 0;
    HeldTensors::HostBytes prefix;
    BulkServer* bulk = bulk_->server.get();
    const bool flat = accepts_chunks_ && !result_.is_dead &&
                      tensor.IsInitialized() &&
                      DataTypeCanMemcpy(tensor.dtype());
    const int64_t total = static_cast<int64_t>(tensor.TotalBytes());
    if (flat && accepts_bulk_ && bulk != nullptr &&
        total >= bulk_->threshold_bytes) {
      // Held once (the buffer shared, not copied) under one handle that is
      // both the bulk ticket and the chunk handle of the gRPC fallback.
      handle = static_cast<int64_t>(
          held_->Hold(step_id, key, tensor, 0, nullptr, device));
      BulkTensor bulk_tensor;
      bulk_tensor.set_address(bulk_->address);
      bulk_tensor.set_local_address(bulk_->local_address);
      bulk_tensor.set_ticket(static_cast<uint64_t>(handle));
      bulk_tensor.set_total_bytes(total);
      bulk_tensor.set_chunk_handle(handle);
      bulk_tensor.set_max_chunk_bytes(chunk_bytes_);
      transport_any.PackFrom(bulk_tensor);
      options.content_limit = 0;
      options.transport_options = &transport_any;
    } else if (flat && total > chunk_bytes_) {
      // The buffer is shared, not copied, while the receiver fetches; the
      // first chunk_bytes_ go in this response (a device tensor's from a
      // copy of just them, the next chunk's copy started meanwhile).
      handle = static_cast<int64_t>(
          held_->Hold(step_id, key, tensor, static_cast<uint64_t>(chunk_bytes_),
                      nullptr, device));
      if (device != nullptr) {
        absl::StatusOr<HeldTensors::HostBytes> staged =
            held_->Read(static_cast<uint64_t>(handle), 0,
                        static_cast<uint64_t>(chunk_bytes_));
        if (!staged.ok()) {
          held_->Release(static_cast<uint64_t>(handle));
          Finish(ToGrpcStatus(staged.status()));
          return;
        }
        prefix = *std::move(staged);
        options.content_from = &prefix.owner;
        options.content_offset = prefix.offset;
      }
      TensorChunks chunks;
      chunks.set_handle(handle);
      chunks.set_total_bytes(static_cast<int64_t>(tensor.TotalBytes()));
      transport_any.PackFrom(chunks);
      options.content_limit = chunk_bytes_;
      options.transport_options = &transport_any;
    } else if (device != nullptr) {
      // Small, or a receiver that takes no chunks: copied whole.
      absl::StatusOr<Tensor> host = device->CopyToHost(tensor);
      if (!host.ok()) {
        Finish(ToGrpcStatus(absl::Status(
            host.status().code(),
            absl::StrCat("RecvTensor of '", key, "': copying it from ",
                         device->name(),
                         " to the host: ", host.status().message()))));
        return;
      }
      result_.tensor = *std::move(host);
    }
    absl::Status s = EncodeRecvTensorResponse(result_, key, options, response_);
    if (!s.ok() && handle != 0) held_->Release(static_cast<uint64_t>(handle));
    if (s.ok()) RecvTensorMetrics::Server().Record(total, absl::Now() - start_);
    Finish(ToGrpcStatus(s));
  }

  // The device of the key's source (RecvTensorAsync found it already).
  absl::StatusOr<Device*> SourceDevice() const {
    absl::StatusOr<Rendezvous::ParsedKey> key =
        Rendezvous::ParsedKey::Parse(request_.rendezvous_key());
    if (!key.ok()) return key.status();
    return worker_->env().device_mgr->LookupDevice(key->src().LocalName());
  }

  Worker* const worker_;
  HeldTensors* const held_;
  const int64_t max_chunk_bytes_;
  const BulkPlane* const bulk_;
  grpc::ByteBuffer* const response_;
  CallOptions opts_;
  RecvTensorRequest request_;
  RecvTensorResult result_;
  bool accepts_chunks_ = false;
  bool accepts_bulk_ = false;
  int64_t chunk_bytes_ = 0;
  absl::Status start_status_;
  const absl::Time start_ = absl::Now();
};

// PushTensors: the receiving end of the push path (rpc/tensor_push.h).
// Each pushed tensor goes to its step's rendezvous (made if the step has
// not started here yet; dropped if it ended here lately); the stream ends
// with InvalidArgument at a tensor that does not decode. When the stream
// ends, however it ends, the steps it carried (the last 256) that are still
// live here may have lost what was on the way: their receives from its
// sender fetch instead (RemoteRendezvous::PushStreamLost).
//
// Owned by itself (self_) from Start to OnDone, and by EndAll while it
// ends it: the live streams are listed (weakly) in PushStreams, so that a
// server shutting down ends them instead of waiting for its grace period.
class PushTensorsReactor;
struct PushStreams {
  absl::Mutex mu;
  bool ended ABSL_GUARDED_BY(mu) = false;
  absl::flat_hash_map<PushTensorsReactor*, std::weak_ptr<PushTensorsReactor>>
      live ABSL_GUARDED_BY(mu);
  // Ends every live stream, and every later one at once.
  void EndAll();
};

class PushTensorsReactor
    : public grpc::ServerReadReactor<PushTensorsRequest>,
      public std::enable_shared_from_this<PushTensorsReactor> {
 public:
  PushTensorsReactor(Worker* worker, std::shared_ptr<PushStreams> streams)
      : rendezvous_mgr_(worker->env().rendezvous_mgr),
        streams_(std::move(streams)) {}

  void Start(const RequestGate& gate, grpc::CallbackServerContext* context) {
    self_ = shared_from_this();
    absl::Status s = gate.Admit(*context);
    if (s.ok()) s = ReadSender(*context);
    if (s.ok()) {
      absl::MutexLock lock(&streams_->mu);
      if (streams_->ended) {
        s = absl::UnavailableError("this worker is shutting down");
      } else {
        streams_->live.emplace(this, self_);
      }
    }
    if (!s.ok()) {
      End(s);
      return;
    }
    context->AddInitialMetadata(kPushReadyMetadata, "1");
    StartSendInitialMetadata();
    StartRead(&request_);
  }

  // Finishes the call once, whoever asks first.
  void End(const absl::Status& status) {
    {
      absl::MutexLock lock(&mu_);
      if (finished_) return;
      finished_ = true;
    }
    Finish(ToGrpcStatus(status));
  }

  void OnReadDone(bool ok) override {
    if (!ok) {  // the sender closed the stream, it broke, or End
      End(absl::OkStatus());
      return;
    }
    absl::Status s = Deliver();
    request_.Clear();
    if (!s.ok()) {
      End(s);
      return;
    }
    StartRead(&request_);
  }

  void OnDone() override {
    for (int64_t step : steps_order_) {
      std::shared_ptr<Rendezvous> r = rendezvous_mgr_->FindIfLive(step);
      if (auto* remote = dynamic_cast<RemoteRendezvous*>(r.get())) {
        remote->PushStreamLost(src_task_);
      }
    }
    {
      absl::MutexLock lock(&streams_->mu);
      streams_->live.erase(this);
    }
    self_.reset();  // may be the last reference
  }

 private:
  static constexpr size_t kRememberedSteps = 256;

  absl::Status ReadSender(const grpc::CallbackServerContext& context) {
    auto it = context.client_metadata().find(kPushTaskMetadata);
    if (it == context.client_metadata().end() || it->second.empty()) {
      return absl::InvalidArgumentError(
          "PushTensors without the pushing task (dfx-push-task metadata)");
    }
    const std::string task(it->second.data(), it->second.size());
    absl::StatusOr<DeviceName> name = DeviceName::Parse(task);
    if (!name.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("PushTensors from a task whose name does not parse: '",
                       task, "'"));
    }
    src_task_ = name->TaskName();
    return absl::OkStatus();
  }

  absl::Status Deliver() {
    int64_t step_id = 0;
    std::shared_ptr<Rendezvous> rendezvous;
    RemoteRendezvous* remote = nullptr;
    for (const PushedTensor& t : request_.tensors()) {
      if (rendezvous == nullptr || t.step_id() != step_id) {
        step_id = t.step_id();
        rendezvous = rendezvous_mgr_->FindForPush(step_id);
        remote = dynamic_cast<RemoteRendezvous*>(rendezvous.get());
        NoteStep(step_id);
      }
      if (remote == nullptr) continue;  // the step ended here
      Tensor value;
      if (!t.is_dead() && !t.pull()) {
        absl::StatusOr<Tensor> decoded = Tensor::FromProto(t.tensor());
        if (!decoded.ok()) {
          return absl::InvalidArgumentError(absl::StrCat(
              "tensor '", t.rendezvous_key(), "' of step ", step_id,
              " pushed by task ", src_task_,
              " does not decode: ", decoded.status().message()));
        }
        value = *std::move(decoded);
      }
      remote->DeliverPushed(src_task_, t.rendezvous_key(), value, t.is_dead(),
                            t.pull());
    }
    return absl::OkStatus();
  }

  void NoteStep(int64_t step_id) {
    if (!steps_.insert(step_id).second) return;
    steps_order_.push_back(step_id);
    if (steps_order_.size() > kRememberedSteps) {
      steps_.erase(steps_order_.front());
      steps_order_.pop_front();
    }
  }

  RendezvousMgr* const rendezvous_mgr_;
  const std::shared_ptr<PushStreams> streams_;
  std::shared_ptr<PushTensorsReactor> self_;
  absl::Mutex mu_;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
  std::string src_task_;
  PushTensorsRequest request_;
  absl::flat_hash_set<int64_t> steps_;
  std::deque<int64_t> steps_order_;
};

std::shared_ptr<PushStreams> NewPushStreams() {
  return std::make_shared<PushStreams>();
}

void PushStreams::EndAll() {
  std::vector<std::shared_ptr<PushTensorsReactor>> live_now;
  {
    absl::MutexLock lock(&mu);
    ended = true;
    for (const auto& [raw, weak] : live) {
      if (auto r = weak.lock()) live_now.push_back(std::move(r));
    }
  }
  for (const auto& r : live_now) {
    r->End(absl::UnavailableError("the receiving worker is shutting down"));
  }
}

}  // namespace

grpc::ServerReadReactor<PushTensorsRequest>*
GrpcWorkerService::Impl::DfxService::PushTensors(
    grpc::CallbackServerContext* context, PushTensorsResponse* /*response*/) {
  auto reactor =
      std::make_shared<PushTensorsReactor>(impl_->worker(), impl_->push_streams());
  reactor->Start(impl_->gate(), context);
  return reactor.get();
}

void GrpcWorkerService::EndPushStreams() { impl_->push_streams()->EndAll(); }

grpc::ServerUnaryReactor* GrpcWorkerService::Impl::TfService::RunGraph(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
    grpc::ByteBuffer* response) {
  auto* reactor = new RunGraphReactor(impl_->worker(), impl_->gate(), context,
                                      request, response);
  reactor->Start();
  return reactor;
}

grpc::ServerUnaryReactor* GrpcWorkerService::Impl::TfService::RecvTensor(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
    grpc::ByteBuffer* response) {
  auto* reactor = new RecvTensorReactor(impl_->worker(), impl_->held(),
                                        impl_->max_chunk_bytes(),
                                        impl_->bulk_plane(), impl_->gate(),
                                        context, request, response);
  reactor->Start();
  return reactor;
}

grpc::ServerUnaryReactor* GrpcWorkerService::Impl::DfxService::RecvTensorChunk(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
    grpc::ByteBuffer* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  RecvTensorChunkRequest parsed;
  if (absl::Status s = impl_->gate().Accept(*context, *request, &parsed);
      !s.ok()) {
    reactor->Finish(ToGrpcStatus(s));
    return reactor;
  }
  absl::StatusOr<HeldTensors::HostBytes> bytes = impl_->ServeChunk(parsed);
  if (!bytes.ok()) {
    reactor->Finish(ToGrpcStatus(bytes.status()));
    return reactor;
  }
  *response =
      EncodeTensorChunk(bytes->owner, static_cast<int64_t>(bytes->offset),
                        static_cast<int64_t>(bytes->length));
  reactor->Finish(grpc::Status::OK);
  return reactor;
}

GrpcWorkerService::GrpcWorkerService(Worker* worker, Options options)
    : impl_(std::make_unique<Impl>(worker, options)) {}

GrpcWorkerService::~GrpcWorkerService() = default;

void GrpcWorkerService::ReleaseStep(int64_t step_id) {
  impl_->held()->ReleaseStep(step_id);
}

void GrpcWorkerService::RegisterWith(grpc::ServerBuilder* builder) {
  impl_->RegisterWith(builder);
}

const BulkServer* GrpcWorkerService::bulk_server() const {
  return impl_->bulk();
}

}  // namespace dfx

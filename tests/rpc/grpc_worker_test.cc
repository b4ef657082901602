// Tests of the worker over gRPC: a real Worker served by GrpcWorkerService
// on 127.0.0.1, called through NewGrpcRemoteWorker (and, for the wire
// rules, raw gRPC calls); and the worker cache of rpc/grpc_worker_cache.h.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "catch2/catch.hpp"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/security/server_credentials.h"
#include "grpcpp/server.h"
#include "grpcpp/server_builder.h"
#include "proto/dfx_worker_service.pb.h"
#include "proto/worker_service.grpc.pb.h"
#include "rpc/bulk_transport.h"
#include "rpc/grpc_remote_worker.h"
#include "rpc/grpc_util.h"
#include "rpc/grpc_worker_cache.h"
#include "rpc/grpc_worker_service.h"
#include "rpc/rpc_metrics.h"
#include "rpc/tensor_coding.h"
#include "runtime/rendezvous.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/wait_until.h"
#include "tests/worker/worker_test_util.h"

namespace dfx {
namespace {

using ::dfx::testing::StatusIs;
using namespace ::dfx::worker_testing;  // NOLINT

// y = x + [10, 20] on CPU:0, x fed.
constexpr char kAddGraph[] = R"pb(
  node {
    name: "x" op: "Placeholder" device: DEV0
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "shape" value { shape { dim { size: 2 } } } }
  }
  node {
    name: "w" op: "Const" device: DEV0
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor {
      dtype: DT_FLOAT tensor_shape { dim { size: 2 } }
      float_val: 10 float_val: 20 } } }
  }
  node {
    name: "y" op: "AddV2" input: "x" input: "w" device: DEV0
    attr { key: "T" value { type: DT_FLOAT } }
  }
)pb";

// A partition on CPU:0 whose _Recv waits for a tensor from another process
// that never sends it.
std::string BlockedGraph() {
  return absl::StrCat(R"pb(
    node {
      name: "r" op: "_Recv" device: DEV0
      attr { key: "tensor_type" value { type: DT_FLOAT } }
      attr { key: "tensor_name" value { s: "edge_1_a" } }
      attr { key: "send_device" value { s: ")pb",
                      kRemote, R"pb(" } }
      attr { key: "send_device_incarnation" value { i: 1 } }
      attr { key: "recv_device" value { s: ")pb",
                      Dev(0), R"pb(" } }
    }
    node {
      name: "y" op: "Identity" input: "r" device: DEV0
      attr { key: "T" value { type: DT_FLOAT } }
    }
  )pb");
}

// A port on 127.0.0.1 nobody listens on (it was free a moment ago).
int FreePort() {
  absl::StatusOr<int> port = PickFreeLoopbackPort();
  REQUIRE_OK(port.status());
  return *port;
}

// A uint8 tensor of `n` bytes whose values depend on their position.
Tensor Pattern(int64_t n, int seed = 0) {
  Tensor t(DT_UINT8, TensorShape({n}));
  uint8_t* p = t.data<uint8_t>();
  for (int64_t i = 0; i < n; ++i) {
    p[i] = static_cast<uint8_t>((i * 131 + seed * 7 + (i >> 13)) & 0xff);
  }
  return t;
}

bool SameBytes(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() &&
         std::memcmp(a.raw_data(), b.raw_data(), a.TotalBytes()) == 0;
}

// A TestWorker served over gRPC on 127.0.0.1, and a remote worker for it.
class ServedWorker {
 public:
  explicit ServedWorker(GrpcWorkerService::Options options = {},
                        int64_t client_max_chunk_bytes = int64_t{1} << 30,
                        int num_devices = 1)
      : worker_(num_devices), service_(worker_.worker(), options) {
    grpc::ServerBuilder builder;
    ConfigureServerBuilder(&builder);
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(),
                             &port_);
    service_.RegisterWith(&builder);
    server_ = builder.BuildAndStart();
    REQUIRE(server_ != nullptr);
    REQUIRE(port_ > 0);
    address_ = absl::StrCat("127.0.0.1:", port_);
    channel_ = NewChannel(address_);
    remote_ = NewGrpcRemoteWorker(channel_, absl::StrCat(kTask, " at ",
                                                         address_),
                                  client_max_chunk_bytes);
  }

  ~ServedWorker() {
    remote_.reset();
    // Cancels whatever is still in flight; waits for the reactors.
    server_->Shutdown(std::chrono::system_clock::now());
  }

  TestWorker& local() { return worker_; }
  GrpcWorkerService& service() { return service_; }
  WorkerInterface* remote() { return remote_.get(); }
  const std::shared_ptr<grpc::Channel>& channel() { return channel_; }
  const std::string& address() const { return address_; }

  // A key of a tensor sent by this worker's CPU:0 to another process.
  std::string Key(const std::string& name) {
    return Rendezvous::CreateKey(Dev(0), worker_.Incarnation(Dev(0)),
                                 kRemote, name);
  }

  void Send(int64_t step_id, const std::string& key, const Tensor& t) {
    auto parsed = Rendezvous::ParsedKey::Parse(key);
    REQUIRE_OK(parsed);
    REQUIRE_OK(worker_.rendezvous_mgr()->Find(step_id)->Send(
        *parsed, Rendezvous::Args(), t, /*is_dead=*/false));
  }

  absl::Status Recv(int64_t step_id, const std::string& key,
                    RecvTensorResult* result, CallOptions* opts = nullptr) {
    RecvTensorRequest request;
    request.set_step_id(step_id);
    request.set_rendezvous_key(key);
    Pending pending;
    remote_->RecvTensorAsync(opts, &request, result, pending.Callback());
    return pending.Wait();
  }

  absl::Status CleanupGraph(int64_t step_id) {
    CleanupGraphRequest request;
    request.set_step_id(step_id);
    CleanupGraphResponse response;
    Pending pending;
    remote_->CleanupGraphAsync(&request, &response, pending.Callback());
    return pending.Wait();
  }

  absl::StatusOr<std::string> Register(const GraphDef& def,
                                       const std::string& session) {
    RegisterGraphRequest request;
    request.set_session_handle(session);
    request.set_create_worker_session_called(!session.empty());
    *request.mutable_graph_def() = def;
    RegisterGraphResponse response;
    Pending pending;
    remote_->RegisterGraphAsync(&request, &response, pending.Callback());
    absl::Status s = pending.Wait();
    if (!s.ok()) return s;
    return response.graph_handle();
  }

  absl::Status Run(RunGraphCall* call, CallOptions* opts = nullptr) {
    Pending pending;
    remote_->RunGraphAsync(opts, call, pending.Callback());
    return pending.Wait();
  }

 private:
  TestWorker worker_;
  GrpcWorkerService service_;
  int port_ = 0;
  std::unique_ptr<grpc::Server> server_;
  std::string address_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<WorkerInterface> remote_;
};

// A raw unary call, as a peer that is not dfx's remote worker makes it.
grpc::Status RawCall(const std::shared_ptr<grpc::Channel>& channel,
                     const std::string& method,
                     const google::protobuf::Message& request,
                     grpc::ByteBuffer* response) {
  grpc::GenericStub stub(channel);
  grpc::ClientContext context;
  SetTimeout(&context, kWait);
  grpc::ByteBuffer bytes = SerializeToByteBuffer(request);
  absl::Notification done;
  grpc::Status status;
  stub.UnaryCall(&context, method, grpc::StubOptions(), &bytes, response,
                 [&](grpc::Status s) {
                   status = std::move(s);
                   done.Notify();
                 });
  REQUIRE(done.WaitForNotificationWithTimeout(kWait + absl::Seconds(10)));
  return status;
}

constexpr char kRecvTensor[] = "/tensorflow.WorkerService/RecvTensor";
constexpr char kRecvTensorChunk[] = "/dfx.WorkerService/RecvTensorChunk";

RecvTensorRequest RecvRequest(int64_t step_id, const std::string& key,
                              std::optional<int64_t> max_chunk_bytes,
                              bool accepts_bulk = false) {
  RecvTensorRequest request;
  request.set_step_id(step_id);
  request.set_rendezvous_key(key);
  if (max_chunk_bytes.has_value()) {
    RecvTensorTransport transport;
    transport.set_max_chunk_bytes(*max_chunk_bytes);
    transport.set_accepts_bulk(accepts_bulk);
    request.mutable_transport_options()->PackFrom(transport);
  }
  return request;
}

RecvTensorChunkRequest ChunkRequest(int64_t step_id, int64_t handle,
                                    int64_t offset, int64_t length) {
  RecvTensorChunkRequest request;
  request.set_step_id(step_id);
  request.set_handle(handle);
  request.set_offset(offset);
  request.set_length(length);
  return request;
}

TEST_CASE("gRPC worker: GetStatus lists the devices and incarnations") {
  ServedWorker served({}, int64_t{1} << 30, /*num_devices=*/2);
  GetStatusRequest request;
  GetStatusResponse response;
  Pending pending;
  served.remote()->GetStatusAsync(&request, &response, pending.Callback());
  REQUIRE_OK(pending.Wait());
  REQUIRE(response.device_attributes_size() == 2);
  for (int i = 0; i < 2; ++i) {
    CHECK(response.device_attributes(i).name() == Dev(i));
    CHECK(response.device_attributes(i).incarnation() ==
          served.local().Incarnation(Dev(i)));
  }
}

TEST_CASE("gRPC worker: a session registers and runs a graph with a feed "
          "and a fetch") {
  ServedWorker served;
  StepGraph step =
      served.local().Prepare(ParseGraph(kAddGraph), {"x:0"}, {"y:0"});
  REQUIRE(step.partitions.size() == 1);

  CreateWorkerSessionRequest create;
  create.set_session_handle("sess1");
  CreateWorkerSessionResponse created;
  Pending pending;
  served.remote()->CreateWorkerSessionAsync(&create, &created,
                                            pending.Callback());
  REQUIRE_OK(pending.Wait());

  auto handle = served.Register(step.partitions.begin()->second, "sess1");
  REQUIRE_OK(handle);
  for (int64_t step_id : {1, 2}) {
    auto call = TestWorker::MakeCall(
        *handle, step_id,
        {{step.feed_keys[0],
          Tensor::FromVector<float>({1, 2 * static_cast<float>(step_id)})}},
        step.fetch_keys, "sess1");
    REQUIRE_OK(served.Run(call.get()));
    REQUIRE(call->recv.size() == 1);
    CHECK(call->recv[0].first == step.fetch_keys[0]);
    const Tensor& y = call->recv[0].second;
    REQUIRE(y.dtype() == DT_FLOAT);
    REQUIRE(y.shape() == TensorShape({2}));
    CHECK(y.data<float>()[0] == 11);
    CHECK(y.data<float>()[1] == 20 + 2 * static_cast<float>(step_id));
    REQUIRE_OK(served.CleanupGraph(step_id));
  }

  SECTION("with timeline statistics") {
    auto call = TestWorker::MakeCall(
        *handle, 3, {{step.feed_keys[0], Tensor::FromVector<float>({0, 0})}},
        step.fetch_keys, "sess1");
    call->request.mutable_exec_opts()->set_record_timeline(true);
    REQUIRE_OK(served.Run(call.get()));
    CHECK(call->step_stats.dev_stats_size() > 0);
  }
  SECTION("then deregisters it and deletes the session") {
    DeregisterGraphRequest dereg;
    dereg.set_session_handle("sess1");
    dereg.set_create_worker_session_called(true);
    dereg.set_graph_handle(*handle);
    DeregisterGraphResponse dereg_response;
    Pending p1;
    served.remote()->DeregisterGraphAsync(&dereg, &dereg_response,
                                          p1.Callback());
    REQUIRE_OK(p1.Wait());
    DeleteWorkerSessionRequest del;
    del.set_session_handle("sess1");
    DeleteWorkerSessionResponse del_response;
    Pending p2;
    served.remote()->DeleteWorkerSessionAsync(&del, &del_response,
                                              p2.Callback());
    REQUIRE_OK(p2.Wait());
    auto call = TestWorker::MakeCall(*handle, 4, {}, {}, "sess1");
    CHECK_THAT(served.Run(call.get()),
               StatusIs(absl::StatusCode::kAborted, "sess1"));
  }
}

TEST_CASE("gRPC worker: RunGraph reports errors in the body when asked") {
  ServedWorker served;
  StepGraph step =
      served.local().Prepare(ParseGraph(kAddGraph), {"x:0"}, {"y:0"});
  auto handle = served.Register(step.partitions.begin()->second, "");
  REQUIRE_OK(handle);
  tensorflow::WorkerService::Stub stub(served.channel());

  RunGraphRequest request;
  request.set_graph_handle(*handle);
  request.set_step_id(9);
  request.add_recv_key(step.fetch_keys[0]);
  NamedTensorProto* feed = request.add_send();
  feed->set_name(step.feed_keys[0]);
  feed->mutable_tensor()->set_dtype(DT_FLOAT);
  feed->mutable_tensor()->mutable_tensor_shape()->add_dim()->set_size(2);
  feed->mutable_tensor()->set_tensor_content("abc");  // 3 bytes, needs 8
  RunGraphResponse response;

  SECTION("as a gRPC status") {
    grpc::ClientContext context;
    SetTimeout(&context, kWait);
    grpc::Status s = stub.RunGraph(&context, request, &response);
    CHECK(s.error_code() == grpc::StatusCode::INVALID_ARGUMENT);
    CHECK_THAT(s.error_message(), Catch::Contains(step.feed_keys[0]));
  }
  SECTION("in the response body") {
    request.set_store_errors_in_response_body(true);
    grpc::ClientContext context;
    SetTimeout(&context, kWait);
    grpc::Status s = stub.RunGraph(&context, request, &response);
    REQUIRE(s.ok());
    CHECK(response.status_code() == error::INVALID_ARGUMENT);
    CHECK_THAT(response.status_error_message(),
               Catch::Contains(step.feed_keys[0]));
  }
  SECTION("and the remote worker reads errors from the body") {
    auto call = TestWorker::MakeCall("no-such-graph", 9, {}, {});
    call->request.set_store_errors_in_response_body(true);
    CHECK_THAT(served.Run(call.get()),
               StatusIs(absl::StatusCode::kAborted, "no-such-graph"));
  }
}

TEST_CASE("gRPC worker: bad requests get the worker's errors") {
  ServedWorker served;
  SECTION("an unknown session") {
    CHECK_THAT(served.Register(ParseGraph(kAddGraph), "nope").status(),
               StatusIs(absl::StatusCode::kAborted, "nope"));
  }
  SECTION("an unknown graph handle") {
    auto call = TestWorker::MakeCall("no-such-graph", 1, {}, {});
    CHECK_THAT(served.Run(call.get()),
               StatusIs(absl::StatusCode::kAborted, "no-such-graph"));
  }
  SECTION("a malformed key") {
    RecvTensorResult result;
    CHECK_THAT(served.Recv(1, "not;a;key", &result),
               StatusIs(absl::StatusCode::kInvalidArgument));
  }
  SECTION("a key of another incarnation") {
    const std::string key = Rendezvous::CreateKey(
        Dev(0), served.local().Incarnation(Dev(0)) + 1, kRemote, "edge_1_x");
    RecvTensorResult result;
    CHECK_THAT(served.Recv(1, key, &result),
               StatusIs(absl::StatusCode::kAborted, "incarnation"));
  }
  SECTION("a feed of the wrong dtype") {
    StepGraph step =
        served.local().Prepare(ParseGraph(kAddGraph), {"x:0"}, {"y:0"});
    auto handle = served.Register(step.partitions.begin()->second, "");
    REQUIRE_OK(handle);
    auto call = TestWorker::MakeCall(
        *handle, 5, {{step.feed_keys[0], Tensor::FromVector<int32_t>({1, 2})}},
        step.fetch_keys);
    CHECK_THAT(served.Run(call.get()),
               StatusIs(absl::StatusCode::kInvalidArgument, "int32"));
  }
}

TEST_CASE("gRPC worker: RecvTensor returns the tensor sent, byte for byte") {
  ServedWorker served;
  int64_t step_id = 100;
  for (int64_t bytes : {int64_t{4}, int64_t{1} << 20, int64_t{64} << 20}) {
    INFO("bytes: " << bytes);
    const std::string key = served.Key(absl::StrCat("edge_", bytes));
    Tensor sent = bytes == 4 ? Tensor::Scalar<float>(2.5f) : Pattern(bytes);
    served.Send(step_id, key, sent);
    RecvTensorResult result;
    REQUIRE_OK(served.Recv(step_id, key, &result));
    CHECK_FALSE(result.is_dead);
    CHECK(SameBytes(result.tensor, sent));
    ++step_id;
  }
}

TEST_CASE("gRPC worker: a tensor bigger than the receiver's chunk size "
          "crosses in chunks") {
  // The client asks for 1 MiB chunks; the service would allow 1 GiB.
  ServedWorker served({}, /*client_max_chunk_bytes=*/int64_t{1} << 20);
  SECTION("bytes") {
    Tensor sent = Pattern((int64_t{10} << 20) + 123, 5);
    const std::string key = served.Key("edge_big");
    served.Send(7, key, sent);
    RecvTensorResult result;
    REQUIRE_OK(served.Recv(7, key, &result));
    CHECK(SameBytes(result.tensor, sent));
  }
  SECTION("a shaped int32 tensor") {
    Tensor sent(DT_INT32, TensorShape({1031, 1027}));
    for (int64_t i = 0; i < sent.NumElements(); ++i) {
      sent.data<int32_t>()[i] = static_cast<int32_t>(i * 2654435761u);
    }
    const std::string key = served.Key("edge_int");
    served.Send(8, key, sent);
    RecvTensorResult result;
    REQUIRE_OK(served.Recv(8, key, &result));
    CHECK(SameBytes(result.tensor, sent));
  }
}

TEST_CASE("gRPC worker: the service's chunk size bounds the chunks too") {
  GrpcWorkerService::Options options;
  options.max_chunk_bytes = 300 * 1024;
  ServedWorker served(options);
  Tensor sent = Pattern((int64_t{3} << 20) + 1, 9);
  const std::string key = served.Key("edge_svc");
  served.Send(3, key, sent);
  RecvTensorResult result;
  REQUIRE_OK(served.Recv(3, key, &result));
  CHECK(SameBytes(result.tensor, sent));
}

TEST_CASE("gRPC worker: RecvTensor waits for a later Send") {
  ServedWorker served;
  const std::string key = served.Key("edge_later");
  RecvTensorRequest request;
  request.set_step_id(11);
  request.set_rendezvous_key(key);
  RecvTensorResult result;
  Pending pending;
  served.remote()->RecvTensorAsync(nullptr, &request, &result,
                                   pending.Callback());
  CHECK_FALSE(pending.Done());  // nothing was sent yet
  Tensor sent = Pattern(5000);
  served.Send(11, key, sent);
  REQUIRE_OK(pending.Wait());
  CHECK(SameBytes(result.tensor, sent));
}

TEST_CASE("gRPC worker: cancelling a pending RecvTensor ends it") {
  ServedWorker served;
  const std::string key = served.Key("edge_never");
  RecvTensorRequest request;
  request.set_step_id(12);
  request.set_rendezvous_key(key);
  RecvTensorResult result;
  CallOptions opts;
  Pending pending;
  served.remote()->RecvTensorAsync(&opts, &request, &result,
                                   pending.Callback());
  opts.StartCancel();
  CHECK_THAT(pending.Wait(), StatusIs(absl::StatusCode::kCancelled));
}

TEST_CASE("gRPC worker: a RecvTensor past its timeout is DeadlineExceeded") {
  ServedWorker served;
  CallOptions opts;
  opts.SetTimeout(absl::Milliseconds(200));
  RecvTensorResult result;
  CHECK_THAT(served.Recv(13, served.Key("edge_late"), &result, &opts),
             StatusIs(absl::StatusCode::kDeadlineExceeded));
}

TEST_CASE("gRPC worker: RunGraph is cancelled and timed out through "
          "CallOptions") {
  ServedWorker served;
  auto handle = served.Register(ParseGraph(BlockedGraph()), "");
  REQUIRE_OK(handle);
  SECTION("cancel") {
    auto call = TestWorker::MakeCall(*handle, 21, {}, {});
    CallOptions opts;
    Pending pending;
    served.remote()->RunGraphAsync(&opts, call.get(), pending.Callback());
    opts.StartCancel();
    CHECK_THAT(pending.Wait(), StatusIs(absl::StatusCode::kCancelled));
  }
  SECTION("timeout") {
    auto call = TestWorker::MakeCall(*handle, 22, {}, {});
    CallOptions opts;
    opts.SetTimeout(absl::Milliseconds(200));
    CHECK_THAT(served.Run(call.get(), &opts),
               StatusIs(absl::StatusCode::kDeadlineExceeded));
  }
}

TEST_CASE("gRPC worker: a task nobody serves is Unavailable, naming it") {
  const std::string address = absl::StrCat("127.0.0.1:", FreePort());
  const std::string task = "/job:ps/replica:0/task:0";
  auto remote = NewGrpcRemoteWorker(NewChannel(address),
                                    absl::StrCat(task, " at ", address));
  const std::string expected =
      absl::StrCat("task ", task, " at ", address, " is unavailable");
  GetStatusRequest request;
  GetStatusResponse response;
  Pending pending;
  remote->GetStatusAsync(&request, &response, pending.Callback());
  CHECK_THAT(pending.Wait(),
             StatusIs(absl::StatusCode::kUnavailable, expected));

  RecvTensorRequest recv;
  recv.set_rendezvous_key("k");
  RecvTensorResult result;
  Pending pending_recv;
  remote->RecvTensorAsync(nullptr, &recv, &result, pending_recv.Callback());
  CHECK_THAT(pending_recv.Wait(),
             StatusIs(absl::StatusCode::kUnavailable, expected));
}

TEST_CASE("gRPC worker: chunk rules on the wire") {
  GrpcWorkerService::Options options;
  options.max_chunk_bytes = int64_t{1} << 20;
  ServedWorker served(options);
  const int64_t size = (int64_t{3} << 20) + 5;
  Tensor sent = Pattern(size, 2);
  const std::string key = served.Key("edge_wire");
  served.Send(31, key, sent);

  SECTION("a TensorFlow receiver gets the whole tensor in one response") {
    grpc::ByteBuffer bytes;
    grpc::Status s = RawCall(served.channel(), kRecvTensor,
                             RecvRequest(31, key, std::nullopt), &bytes);
    REQUIRE(s.ok());
    DecodedRecvTensor decoded;
    REQUIRE_OK(DecodeRecvTensorResponse(bytes, key, &decoded));
    CHECK_FALSE(decoded.chunks.has_value());
    CHECK(SameBytes(decoded.value.tensor, sent));
    // Standard protobuf agrees.
    RecvTensorResponse parsed;
    REQUIRE_OK(ParseFromByteBuffer(&bytes, &parsed, "response"));
    CHECK(parsed.tensor().tensor_content().size() ==
          static_cast<size_t>(size));
  }

  SECTION("a dfx receiver gets the first chunk and fetches the rest") {
    const int64_t asked = GENERATE(int64_t{0}, int64_t{256} << 10);
    const int64_t chunk = asked > 0 ? asked : options.max_chunk_bytes;
    grpc::ByteBuffer bytes;
    REQUIRE(RawCall(served.channel(), kRecvTensor,
                    RecvRequest(31, key, asked), &bytes)
                .ok());
    DecodedRecvTensor first;
    REQUIRE_OK(DecodeRecvTensorResponse(bytes, key, &first));
    REQUIRE(first.chunks.has_value());
    CHECK(first.chunks->total_bytes() == size);
    CHECK(first.content_bytes == chunk);
    const int64_t handle = first.chunks->handle();
    Tensor got = first.value.tensor;

    grpc::ByteBuffer out;
    CHECK(RawCall(served.channel(), kRecvTensorChunk,
                  ChunkRequest(31, handle + 1000, chunk, chunk), &out)
              .error_code() == grpc::StatusCode::NOT_FOUND);
    CHECK(RawCall(served.channel(), kRecvTensorChunk,
                  ChunkRequest(32, handle, chunk, chunk), &out)
              .error_code() == grpc::StatusCode::NOT_FOUND);
    CHECK(RawCall(served.channel(), kRecvTensorChunk,
                  ChunkRequest(31, handle, size - 2, 3), &out)
              .error_code() == grpc::StatusCode::OUT_OF_RANGE);
    CHECK(RawCall(served.channel(), kRecvTensorChunk,
                  ChunkRequest(31, handle, -1, 3), &out)
              .error_code() == grpc::StatusCode::OUT_OF_RANGE);
    CHECK(RawCall(served.channel(), kRecvTensorChunk,
                  ChunkRequest(31, handle, 0, options.max_chunk_bytes + 1),
                  &out)
              .error_code() == grpc::StatusCode::OUT_OF_RANGE);

    for (int64_t offset = chunk; offset < size; offset += chunk) {
      const int64_t length = std::min(chunk, size - offset);
      grpc::ByteBuffer part;
      REQUIRE(RawCall(served.channel(), kRecvTensorChunk,
                      ChunkRequest(31, handle, offset, length), &part)
                  .ok());
      REQUIRE_OK(DecodeTensorChunk(part, key, offset, length, &got));
    }
    CHECK(SameBytes(got, sent));
    // Every byte was fetched: the service let the tensor go.
    CHECK(RawCall(served.channel(), kRecvTensorChunk,
                  ChunkRequest(31, handle, 0, 1), &out)
              .error_code() == grpc::StatusCode::NOT_FOUND);
  }

  SECTION("CleanupGraph drops the step's chunked tensors") {
    grpc::ByteBuffer bytes;
    REQUIRE(RawCall(served.channel(), kRecvTensor,
                    RecvRequest(31, key, 0), &bytes)
                .ok());
    DecodedRecvTensor first;
    REQUIRE_OK(DecodeRecvTensorResponse(bytes, key, &first));
    REQUIRE(first.chunks.has_value());
    REQUIRE_OK(served.CleanupGraph(31));
    grpc::ByteBuffer out;
    grpc::Status s = RawCall(served.channel(), kRecvTensorChunk,
                             ChunkRequest(31, first.chunks->handle(),
                                          first.content_bytes, 1),
                             &out);
    CHECK(s.error_code() == grpc::StatusCode::NOT_FOUND);
  }
}

// The bulk plane over TCP only (the tests below are about TCP; the local
// socket has its own test).
GrpcWorkerService::Options BulkOptions() {
  GrpcWorkerService::Options options;
  options.bulk_bind_host = "127.0.0.1";
  options.bulk_local = false;
  return options;
}

TEST_CASE("gRPC worker: on this host a big tensor arrives as shared memory") {
  GrpcWorkerService::Options options;
  options.bulk_bind_host = "127.0.0.1";
  ServedWorker served(options);
  const BulkServer* bulk = served.service().bulk_server();
  REQUIRE(bulk != nullptr);
  REQUIRE_FALSE(bulk->local_address().empty());
  const int64_t before = BulkLocalBytesReceived()->Value();
  for (int64_t step_id : {56, 57}) {
    Tensor sent = Pattern((int64_t{16} << 20) + 3, static_cast<int>(step_id));
    const std::string key = served.Key("edge_local");
    served.Send(step_id, key, sent);
    RecvTensorResult result;
    REQUIRE_OK(served.Recv(step_id, key, &result));
    CHECK(SameBytes(result.tensor, sent));
  }
  CHECK(BulkLocalBytesReceived()->Value() - before ==
        2 * ((int64_t{16} << 20) + 3));
  // Served: nothing held any more; one local connection, reused.
  CHECK(testing::WaitUntil([&] { return bulk->NumEntries() == 0; }));
  CHECK(bulk->NumConnectionsAccepted() == 1);
}

TEST_CASE("gRPC worker: a big tensor crosses over the bulk transport") {
  ServedWorker served(BulkOptions());
  const BulkServer* bulk = served.service().bulk_server();
  REQUIRE(bulk != nullptr);
  Tensor sent = Pattern(int64_t{64} << 20, 3);
  const std::string key = served.Key("edge_bulk");
  served.Send(51, key, sent);
  RecvTensorResult result;
  REQUIRE_OK(served.Recv(51, key, &result));
  CHECK(SameBytes(result.tensor, sent));
  CHECK(bulk->NumConnectionsAccepted() == 1);

  // Below the threshold (1 MiB) the bytes come with the gRPC response.
  Tensor small = Pattern((int64_t{1} << 20) - 1, 4);
  const std::string small_key = served.Key("edge_small");
  served.Send(52, small_key, small);
  REQUIRE_OK(served.Recv(52, small_key, &result));
  CHECK(SameBytes(result.tensor, small));
  CHECK(testing::WaitUntil([&] { return bulk->NumEntries() == 0; }));

  // A second big one reuses the connection.
  Tensor again = Pattern((int64_t{5} << 20) + 3, 5);
  served.Send(53, key, again);
  REQUIRE_OK(served.Recv(53, key, &result));
  CHECK(SameBytes(result.tensor, again));
  CHECK(bulk->NumConnectionsAccepted() == 1);
}

TEST_CASE("gRPC worker: a received tensor lands in the receiver's buffer, "
          "whichever way its bytes come") {
  GrpcWorkerService::Options shared_memory;
  shared_memory.bulk_bind_host = "127.0.0.1";
  GrpcWorkerService::Options none;  // no bulk server
  struct Way {
    const char* name;
    GrpcWorkerService::Options options;
    int64_t client_chunk_bytes;
  };
  for (const Way& way : {Way{"shared memory", shared_memory, int64_t{1} << 30},
                         Way{"bulk TCP", BulkOptions(), int64_t{1} << 30},
                         Way{"gRPC chunks", none, int64_t{1} << 20},
                         Way{"one gRPC response", none, int64_t{1} << 30}}) {
    INFO(way.name);
    ServedWorker served(way.options, way.client_chunk_bytes);
    const int64_t bytes = (int64_t{3} << 20) + 5;
    Tensor sent = Pattern(bytes, 9);
    const std::string key = served.Key("edge_into");
    served.Send(61, key, sent);
    RecvTensorResult result;
    result.destination = Tensor(DT_UINT8, TensorShape({bytes}));
    REQUIRE_OK(served.Recv(61, key, &result));
    CHECK(result.tensor.raw_data() == result.destination.raw_data());
    CHECK(SameBytes(result.tensor, sent));

    // A buffer of another size is left alone.
    served.Send(62, key, sent);
    RecvTensorResult other;
    other.destination = Tensor(DT_UINT8, TensorShape({bytes - 1}));
    REQUIRE_OK(served.Recv(62, key, &other));
    CHECK(other.tensor.raw_data() != other.destination.raw_data());
    CHECK(SameBytes(other.tensor, sent));
  }
}

TEST_CASE("gRPC worker: a bulk server out of reach falls back to chunks") {
  GrpcWorkerService::Options options = BulkOptions();
  options.bulk_address_for_testing = absl::StrCat("127.0.0.1:", FreePort());
  ServedWorker served(options);
  const BulkServer* bulk = served.service().bulk_server();
  REQUIRE(bulk != nullptr);
  for (int64_t step_id : {61, 62}) {
    INFO("step " << step_id);
    Tensor sent = Pattern((int64_t{8} << 20) + 1, static_cast<int>(step_id));
    const std::string key = served.Key("edge_fallback");
    served.Send(step_id, key, sent);
    RecvTensorResult result;
    REQUIRE_OK(served.Recv(step_id, key, &result));
    CHECK(SameBytes(result.tensor, sent));
    // The chunks fetched every byte: both holds let go.
    CHECK(testing::WaitUntil([&] { return bulk->NumEntries() == 0; }));
  }
  CHECK(bulk->NumConnectionsAccepted() == 0);
}

// A bulk server that takes one request and answers nothing until it goes.
class StalledBulkServer {
 public:
  StalledBulkServer() {
    listen_fd_ = socket(AF_INET, SOCK_STREAM, 0);
    REQUIRE(listen_fd_ >= 0);
    sockaddr_in addr;
    std::memset(&addr, 0, sizeof(addr));
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr),
                 sizeof(addr)) == 0);
    REQUIRE(listen(listen_fd_, 4) == 0);
    socklen_t len = sizeof(addr);
    REQUIRE(getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr),
                        &len) == 0);
    address_ = absl::StrCat("127.0.0.1:", ntohs(addr.sin_port));
    thread_ = std::thread([this] {
      const int fd = accept(listen_fd_, nullptr, nullptr);
      if (fd < 0) return;  // the listener was shut down
      char request[kBulkRequestBytes];
      if (recv(fd, request, sizeof(request), MSG_WAITALL) ==
          static_cast<ssize_t>(sizeof(request))) {
        got_request_.Notify();
      }
      done_.WaitForNotificationWithTimeout(kWait);
      close(fd);
    });
  }
  ~StalledBulkServer() {
    done_.Notify();
    shutdown(listen_fd_, SHUT_RDWR);  // ends an accept still waiting
    thread_.join();
    close(listen_fd_);
  }
  const std::string& address() const { return address_; }
  bool WaitForRequest() {
    return got_request_.WaitForNotificationWithTimeout(kWait);
  }

 private:
  int listen_fd_ = -1;
  std::string address_;
  absl::Notification got_request_;
  absl::Notification done_;
  std::thread thread_;
};

TEST_CASE("gRPC worker: a bulk transfer is cancelled and timed out through "
          "CallOptions") {
  StalledBulkServer stalled;
  GrpcWorkerService::Options options = BulkOptions();
  options.bulk_address_for_testing = stalled.address();
  ServedWorker served(options);
  const std::string key = served.Key("edge_stalled");
  served.Send(81, key, Pattern(int64_t{4} << 20));
  RecvTensorResult result;
  CallOptions opts;
  SECTION("cancel") {
    RecvTensorRequest request;
    request.set_step_id(81);
    request.set_rendezvous_key(key);
    Pending pending;
    served.remote()->RecvTensorAsync(&opts, &request, &result,
                                     pending.Callback());
    REQUIRE(stalled.WaitForRequest());
    CHECK_FALSE(pending.Done());
    opts.StartCancel();
    CHECK_THAT(pending.Wait(), StatusIs(absl::StatusCode::kCancelled, key));
  }
  SECTION("timeout") {
    opts.SetTimeout(absl::Milliseconds(300));
    CHECK_THAT(served.Recv(81, key, &result, &opts),
               StatusIs(absl::StatusCode::kDeadlineExceeded, key));
  }
}

TEST_CASE("gRPC worker: bulk rules on the wire") {
  GrpcWorkerService::Options options = BulkOptions();
  options.max_chunk_bytes = int64_t{1} << 20;
  ServedWorker served(options);
  const BulkServer* bulk = served.service().bulk_server();
  REQUIRE(bulk != nullptr);
  const int64_t size = (int64_t{3} << 20) + 5;
  Tensor sent = Pattern(size, 6);
  const std::string key = served.Key("edge_bulk_wire");
  served.Send(71, key, sent);

  SECTION("a TensorFlow receiver gets the whole tensor in one response") {
    grpc::ByteBuffer bytes;
    REQUIRE(RawCall(served.channel(), kRecvTensor,
                    RecvRequest(71, key, std::nullopt), &bytes)
                .ok());
    RecvTensorResponse parsed;
    REQUIRE_OK(ParseFromByteBuffer(&bytes, &parsed, "response"));
    CHECK_FALSE(parsed.has_transport_options());
    CHECK(parsed.tensor().tensor_content().size() ==
          static_cast<size_t>(size));
    CHECK(testing::WaitUntil([&] { return bulk->NumEntries() == 0; }));
  }

  SECTION("a dfx receiver that does not accept bulk gets chunks") {
    grpc::ByteBuffer bytes;
    REQUIRE(RawCall(served.channel(), kRecvTensor,
                    RecvRequest(71, key, 0, /*accepts_bulk=*/false), &bytes)
                .ok());
    DecodedRecvTensor first;
    REQUIRE_OK(DecodeRecvTensorResponse(bytes, key, &first));
    CHECK(first.chunks.has_value());
    CHECK_FALSE(first.bulk.has_value());
    // Held once, for its chunks: the bulk server and RecvTensorChunk serve
    // from one table.
    CHECK(bulk->NumEntries() == 1);
  }

  SECTION("a dfx receiver that accepts bulk gets a ticket, and the chunks "
          "as the fallback") {
    const int64_t asked = GENERATE(int64_t{0}, int64_t{256} << 10);
    const int64_t chunk = asked > 0 ? asked : options.max_chunk_bytes;
    grpc::ByteBuffer bytes;
    REQUIRE(RawCall(served.channel(), kRecvTensor,
                    RecvRequest(71, key, asked, /*accepts_bulk=*/true), &bytes)
                .ok());
    DecodedRecvTensor first;
    REQUIRE_OK(DecodeRecvTensorResponse(bytes, key, &first));
    REQUIRE(first.bulk.has_value());
    CHECK_FALSE(first.chunks.has_value());
    CHECK(first.content_bytes == 0);
    CHECK(first.bulk->address() == bulk->address());
    CHECK(first.bulk->total_bytes() == size);
    CHECK(first.bulk->max_chunk_bytes() == chunk);
    REQUIRE(first.value.tensor.TotalBytes() == static_cast<size_t>(size));
    CHECK(bulk->NumEntries() == 1);
    Tensor got = first.value.tensor;

    SECTION("fetched from the bulk server") {
      BulkClient client;
      BulkClient::Fetch fetch;
      fetch.address = first.bulk->address();
      fetch.ticket = first.bulk->ticket();
      fetch.dst = got.raw_data();
      fetch.length = static_cast<uint64_t>(size);
      fetch.deadline = absl::Now() + kWait;
      absl::Notification done;
      absl::Status status;
      client.FetchAsync(fetch, [&](const absl::Status& s) {
        status = s;
        done.Notify();
      });
      REQUIRE(done.WaitForNotificationWithTimeout(kWait));
      REQUIRE_OK(status);
      CHECK(SameBytes(got, sent));
    }
    SECTION("fetched in chunks, which lets the bulk ticket go") {
      for (int64_t offset = 0; offset < size; offset += chunk) {
        const int64_t length = std::min(chunk, size - offset);
        grpc::ByteBuffer part;
        REQUIRE(RawCall(served.channel(), kRecvTensorChunk,
                        ChunkRequest(71, first.bulk->chunk_handle(), offset,
                                     length),
                        &part)
                    .ok());
        REQUIRE_OK(DecodeTensorChunk(part, key, offset, length, &got));
      }
      CHECK(SameBytes(got, sent));
      CHECK(testing::WaitUntil([&] { return bulk->NumEntries() == 0; }));
    }
    SECTION("CleanupGraph lets both go") {
      REQUIRE_OK(served.CleanupGraph(71));
      CHECK(testing::WaitUntil([&] { return bulk->NumEntries() == 0; }));
      grpc::ByteBuffer out;
      CHECK(RawCall(served.channel(), kRecvTensorChunk,
                    ChunkRequest(71, first.bulk->chunk_handle(), 0, 1), &out)
                .error_code() == grpc::StatusCode::NOT_FOUND);
    }
  }
}

TEST_CASE("gRPC worker: a tensor over 2 GiB crosses only to a dfx "
          "receiver") {
  GrpcWorkerService::Options options;
  options.max_chunk_bytes = int64_t{1} << 20;
  ServedWorker served(options);
  // Its pages are never written: only the chunk read below touches them.
  const int64_t size = (int64_t{1} << 31) + 1;
  Tensor sent(DT_UINT8, TensorShape({size}));
  const std::string key = served.Key("edge_huge");
  served.Send(41, key, sent);

  SECTION("a TensorFlow receiver: ResourceExhausted naming key and size") {
    grpc::ByteBuffer bytes;
    grpc::Status s = RawCall(served.channel(), kRecvTensor,
                             RecvRequest(41, key, std::nullopt), &bytes);
    CHECK(s.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED);
    CHECK_THAT(s.error_message(), Catch::Contains(key));
    CHECK_THAT(s.error_message(), Catch::Contains("2147483649 bytes"));
  }
  SECTION("a dfx receiver: chunks with offsets past 2 GiB") {
    grpc::ByteBuffer bytes;
    REQUIRE(RawCall(served.channel(), kRecvTensor, RecvRequest(41, key, 0),
                    &bytes)
                .ok());
    DecodedRecvTensor first;
    REQUIRE_OK(DecodeRecvTensorResponse(bytes, key, &first));
    REQUIRE(first.chunks.has_value());
    CHECK(first.chunks->total_bytes() == size);
    CHECK(first.content_bytes == options.max_chunk_bytes);
    const int64_t offset = size - 4096;
    grpc::ByteBuffer part;
    REQUIRE(RawCall(served.channel(), kRecvTensorChunk,
                    ChunkRequest(41, first.chunks->handle(), offset, 4096),
                    &part)
                .ok());
    REQUIRE_OK(DecodeTensorChunk(part, key, offset, 4096, &first.value.tensor));
    CHECK(std::memcmp(static_cast<const char*>(first.value.tensor.raw_data()) +
                          offset,
                      static_cast<const char*>(sent.raw_data()) + offset,
                      4096) == 0);
    REQUIRE_OK(served.CleanupGraph(41));
  }
}

TEST_CASE("gRPC worker cache: a channel per remote task, the local task "
          "in process") {
  ServedWorker served;
  const std::string free_address = absl::StrCat("127.0.0.1:", FreePort());
  ClusterDef cluster;
  JobDef* worker = cluster.add_job();
  worker->set_name("worker");
  (*worker->mutable_tasks())[0] = served.address();
  (*worker->mutable_tasks())[1] = free_address;
  JobDef* ps = cluster.add_job();
  ps->set_name("ps");
  (*ps->mutable_tasks())[0] = "127.0.0.1:1";
  LocalWorker local(served.local().worker());

  auto cache = NewGrpcWorkerCache(cluster, "/job:worker/replica:0/task:1",
                                  &local);
  REQUIRE_OK(cache);
  CHECK((*cache)->ListTasks() ==
        std::vector<std::string>{"/job:ps/replica:0/task:0",
                                 "/job:worker/replica:0/task:0",
                                 "/job:worker/replica:0/task:1"});
  CHECK((*cache)->GetWorker("/job:worker/replica:0/task:1") == &local);
  CHECK((*cache)->GetWorker("/job:worker/replica:0/task:2") == nullptr);
  WorkerInterface* remote = (*cache)->GetWorker("/job:worker/replica:0/task:0");
  REQUIRE(remote != nullptr);
  CHECK(remote == (*cache)->GetWorker("/job:worker/replica:0/task:0"));

  GetStatusRequest request;
  GetStatusResponse response;
  Pending pending;
  remote->GetStatusAsync(&request, &response, pending.Callback());
  REQUIRE_OK(pending.Wait());
  REQUIRE(response.device_attributes_size() == 1);
  CHECK(response.device_attributes(0).incarnation() ==
        served.local().Incarnation(Dev(0)));
}

TEST_CASE("gRPC worker cache: errors of remote tasks name task and "
          "address") {
  const std::string address = absl::StrCat("127.0.0.1:", FreePort());
  ClusterDef cluster;
  JobDef* ps = cluster.add_job();
  ps->set_name("ps");
  (*ps->mutable_tasks())[0] = address;
  auto cache = NewGrpcWorkerCache(cluster, "", nullptr);
  REQUIRE_OK(cache);
  WorkerInterface* remote = (*cache)->GetWorker("/job:ps/replica:0/task:0");
  REQUIRE(remote != nullptr);
  GetStatusRequest request;
  GetStatusResponse response;
  Pending pending;
  remote->GetStatusAsync(&request, &response, pending.Callback());
  CHECK_THAT(pending.Wait(),
             StatusIs(absl::StatusCode::kUnavailable,
                      absl::StrCat("task /job:ps/replica:0/task:0 at ",
                                   address, " is unavailable")));
}

TEST_CASE("gRPC worker cache: a bad cluster is InvalidArgument") {
  ClusterDef cluster;
  JobDef* job = cluster.add_job();
  job->set_name("worker");
  (*job->mutable_tasks())[0] = "127.0.0.1:2222";
  std::string local_task;
  std::string expected;
  SECTION("a bad job name") {
    job->set_name("bad name");
    expected = "bad name";
  }
  SECTION("a job without tasks") {
    cluster.add_job()->set_name("ps");
    expected = "'ps' has no tasks";
  }
  SECTION("a job listed twice") {
    *cluster.add_job() = *job;
    expected = "twice";
  }
  SECTION("an empty address") {
    (*job->mutable_tasks())[1] = "";
    expected = "/job:worker/replica:0/task:1 has an empty address";
  }
  SECTION("an address without a port") {
    (*job->mutable_tasks())[1] = "somehost";
    expected = "somehost";
  }
  SECTION("two tasks at one address") {
    (*job->mutable_tasks())[1] = "127.0.0.1:2222";
    expected = "the same address 127.0.0.1:2222";
  }
  SECTION("a local task not in the cluster") {
    local_task = "/job:worker/replica:0/task:5";
    expected = "task:5";
  }
  TestWorker w(1);
  CHECK_THAT(NewGrpcWorkerCache(cluster, local_task, w.wi()).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, expected));
}

}  // namespace
}  // namespace dfx

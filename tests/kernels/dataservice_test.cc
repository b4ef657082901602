// The tf.data service client (kernels/data/service/): TensorFlow 2.21's
// signatures of its six ops, the decoding of TensorFlow's
// CompressedElement (and that corrupt elements are errors, not crashes),
// and that a call to a dispatcher that is not there ends: Unavailable when
// its retry window closes, Cancelled as soon as its step is cancelled.
// RegisterDataset and DataServiceDataset's iterator run against a fake
// dispatcher and worker in this process (a gRPC server under TensorFlow's
// method paths whose answers each test sets); reading through TensorFlow's
// own servers is tests/interop/tf_data_service_client.py. The split
// providers of distributed_epoch (kernels/data/split_provider.h): the
// dispatcher's indices of a pipeline's source, and a worker's source
// reading the splits attached to it.
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "catch2/catch.hpp"
#include "kernels/data/dataset.h"
#include "kernels/data/service/data_service_client.h"
#include "kernels/data/split_provider.h"
#include "proto/graph.pb.h"
#include "proto/tf_data_service_rpc.grpc.pb.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using data::DataServiceClient;
using data::DecodeCompressedElement;
using data::EncodeCompressedElement;
using testing::RunKernel;
using testing::StatusIs;
using testing::TestNodeBuilder;

// A local port nothing listens on (bound, then closed).
int ClosedPort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  socklen_t len = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

std::string Snappy(const std::string& raw) {
  // The encoder's snappy, on a one-component int8 element of `raw`.
  Tensor t(DT_INT8, TensorShape({static_cast<int64_t>(raw.size())}));
  std::memcpy(t.raw_data(), raw.data(), raw.size());
  return EncodeCompressedElement({t})->data();
}

// A dispatcher and worker in one gRPC server. The dispatcher names one task
// on this server; the worker answers GetElement from `replies` in order
// (then end of sequence) and the dispatcher reports the iteration finished
// once the worker has sent its end. Handlers run on gRPC's threads and
// only record what they saw.
class FakeService final : public ::tensorflow::data::DispatcherService::Service,
                          public ::tensorflow::data::WorkerService::Service {
 public:
  struct Reply {
    grpc::Status status;
    tfdata::GetElementResponse response;
  };

  explicit FakeService(std::vector<Reply> replies)
      : replies_(std::move(replies)) {
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort("localhost:0", grpc::InsecureServerCredentials(),
                             &port);
    builder.RegisterService(
        static_cast<::tensorflow::data::DispatcherService::Service*>(this));
    builder.RegisterService(
        static_cast<::tensorflow::data::WorkerService::Service*>(this));
    server_ = builder.BuildAndStart();
    address_ = "localhost:" + std::to_string(port);
  }
  ~FakeService() override { server_->Shutdown(); }

  const std::string& address() const { return address_; }

  grpc::Status GetOrRegisterDataset(
      grpc::ServerContext*, const tfdata::GetOrRegisterDatasetRequest* request,
      tfdata::GetOrRegisterDatasetResponse* response) override {
    absl::MutexLock lock(&mu_);
    registered_ = *request;
    response->set_dataset_id(dataset_id_);
    return grpc::Status::OK;
  }
  grpc::Status Snapshot(grpc::ServerContext*,
                        const tfdata::SnapshotRequest* request,
                        tfdata::SnapshotResponse*) override {
    absl::MutexLock lock(&mu_);
    for (const tfdata::SnapshotRequest& r : snapshots_) {
      if (r.path() == request->path()) {
        return grpc::Status(grpc::StatusCode::ALREADY_EXISTS,
                            "already started or completed");
      }
    }
    snapshots_.push_back(*request);
    return grpc::Status::OK;
  }
  grpc::Status GetDataServiceConfig(
      grpc::ServerContext*, const tfdata::GetDataServiceConfigRequest*,
      tfdata::GetDataServiceConfigResponse*) override {
    return grpc::Status::OK;
  }
  grpc::Status GetDataServiceMetadata(
      grpc::ServerContext*, const tfdata::GetDataServiceMetadataRequest*,
      tfdata::GetDataServiceMetadataResponse* response) override {
    response->mutable_metadata()->set_compression(
        tfdata::DataServiceMetadata::COMPRESSION_SNAPPY);
    return grpc::Status::OK;
  }
  grpc::Status GetOrCreateJob(
      grpc::ServerContext*, const tfdata::GetOrCreateJobRequest* request,
      tfdata::GetOrCreateJobResponse* response) override {
    absl::MutexLock lock(&mu_);
    job_ = *request;
    response->set_job_id(7);
    return grpc::Status::OK;
  }
  grpc::Status GetOrCreateIteration(
      grpc::ServerContext*, const tfdata::GetOrCreateIterationRequest*,
      tfdata::GetOrCreateIterationResponse* response) override {
    response->set_iteration_client_id(9);
    return grpc::Status::OK;
  }
  grpc::Status ClientHeartbeat(
      grpc::ServerContext*, const tfdata::ClientHeartbeatRequest*,
      tfdata::ClientHeartbeatResponse* response) override {
    absl::MutexLock lock(&mu_);
    tfdata::TaskInfo* task = response->add_task_info();
    task->set_task_id(1);
    task->set_worker_address(address_);
    response->set_iteration_finished(ended_);
    return grpc::Status::OK;
  }
  grpc::Status ReleaseIterationClient(
      grpc::ServerContext*, const tfdata::ReleaseIterationClientRequest*,
      tfdata::ReleaseIterationClientResponse*) override {
    return grpc::Status::OK;
  }
  grpc::Status GetElement(grpc::ServerContext*,
                          const tfdata::GetElementRequest* request,
                          tfdata::GetElementResponse* response) override {
    absl::MutexLock lock(&mu_);
    ++get_element_calls_;
    if (next_reply_ < replies_.size()) {
      const Reply& r = replies_[next_reply_++];
      *response = r.response;
      return r.status;
    }
    ended_ = true;
    response->set_end_of_sequence(true);
    return grpc::Status::OK;
  }

  void set_dataset_id(std::string id) {
    absl::MutexLock lock(&mu_);
    dataset_id_ = std::move(id);
  }
  tfdata::GetOrRegisterDatasetRequest registered() {
    absl::MutexLock lock(&mu_);
    return registered_;
  }
  tfdata::GetOrCreateJobRequest job() {
    absl::MutexLock lock(&mu_);
    return job_;
  }
  std::vector<tfdata::SnapshotRequest> snapshots() {
    absl::MutexLock lock(&mu_);
    return snapshots_;
  }
  int get_element_calls() {
    absl::MutexLock lock(&mu_);
    return get_element_calls_;
  }

 private:
  std::unique_ptr<grpc::Server> server_;
  std::string address_;
  absl::Mutex mu_;
  std::vector<Reply> replies_ ABSL_GUARDED_BY(mu_);
  size_t next_reply_ ABSL_GUARDED_BY(mu_) = 0;
  bool ended_ ABSL_GUARDED_BY(mu_) = false;
  int get_element_calls_ ABSL_GUARDED_BY(mu_) = 0;
  std::string dataset_id_ ABSL_GUARDED_BY(mu_) = "42";
  tfdata::GetOrRegisterDatasetRequest registered_ ABSL_GUARDED_BY(mu_);
  tfdata::GetOrCreateJobRequest job_ ABSL_GUARDED_BY(mu_);
  std::vector<tfdata::SnapshotRequest> snapshots_ ABSL_GUARDED_BY(mu_);
};

FakeService::Reply Compressed(std::vector<Tensor> element) {
  FakeService::Reply r;
  *r.response.mutable_compressed() = *EncodeCompressedElement(element);
  return r;
}

FakeService::Reply Uncompressed(const Tensor& t) {
  FakeService::Reply r;
  t.AsProtoTensorContent(r.response.mutable_uncompressed()->add_components());
  return r;
}

Tensor I64(int64_t v) { return Tensor::Scalar<int64_t>(v); }
Tensor Str(const std::string& v) { return Tensor::Scalar<std::string>(v); }

// DataServiceDatasetV2 over the fake service, read to its end: the int64
// elements, or the first error.
absl::StatusOr<std::vector<int64_t>> ReadAll(const std::string& address,
                                             const std::string& job_name = "",
                                             int64_t num_consumers = -1) {
  const DataTypeVector types = {DT_INT64};
  auto counter =
      RunKernel(TestNodeBuilder("c", "DummyIterationCounter", 0).Build(), {});
  if (!counter.ok()) return counter.status();
  NodeDef node = TestNodeBuilder("ds", "DataServiceDatasetV2", 9)
                     .Attr("output_types", types)
                     .Attr("task_refresh_interval_hint_ms", int64_t{5})
                     .Build();
  (*node.mutable_attr())["output_shapes"].mutable_list()->add_shape();
  auto ds = RunKernel(
      node, {I64(42), Str("parallel_epochs"), Str(address), Str("grpc"),
             Str(job_name), I64(num_consumers >= 0 ? 0 : -1),
             I64(num_consumers), I64(-1), (*counter)[0]});
  if (!ds.ok()) return ds.status();
  auto it = RunKernel(TestNodeBuilder("it", "AnonymousIteratorV3", 0)
                          .Attr("output_types", types)
                          .Build(),
                      {});
  if (!it.ok()) return it.status();
  absl::Status made =
      RunKernel(TestNodeBuilder("make", "MakeIterator", 2).Build(),
                {(*ds)[0], (*it)[0]})
          .status();
  if (!made.ok()) return made;
  std::vector<int64_t> out;
  while (out.size() < 100) {
    auto e = RunKernel(TestNodeBuilder("next", "IteratorGetNext", 1)
                           .Attr("output_types", types)
                           .Build(),
                       {(*it)[0]});
    if (!e.ok()) {
      if (absl::IsOutOfRange(e.status())) return out;
      return e.status();
    }
    out.push_back((*e)[0].data<int64_t>()[0]);
  }
  return out;
}

TEST_CASE(
    "A data service dataset reads its task's elements, compressed or not, "
    "past a worker's transient error, until the iteration finishes",
    "[dataservice]") {
  FakeService::Reply unavailable;
  unavailable.status = grpc::Status(grpc::StatusCode::UNAVAILABLE, "not yet");
  FakeService::Reply skip;
  skip.response.set_skip_task(true);
  FakeService fake({unavailable, Compressed({I64(10)}), skip,
                    Compressed({I64(11)}), Uncompressed(I64(12))});
  auto got = ReadAll(fake.address(), "shared");
  REQUIRE(got.ok());
  CHECK(*got == std::vector<int64_t>{10, 11, 12});
  const tfdata::GetOrCreateJobRequest job = fake.job();
  CHECK(job.dataset_id() == "42");
  CHECK(job.job_name() == "shared");
  CHECK_FALSE(job.has_num_consumers());
  CHECK(job.processing_mode_def().sharding_policy() ==
        tfdata::ProcessingModeDef::OFF);
  CHECK(fake.get_element_calls() >= 6);
}

TEST_CASE("A round-robin read names its consumer count to the dispatcher",
          "[dataservice]") {
  FakeService fake({Compressed({I64(5)})});
  auto got = ReadAll(fake.address(), "rr", 2);
  REQUIRE(got.ok());
  CHECK(*got == std::vector<int64_t>{5});
  CHECK(fake.job().num_consumers() == 2);
}

TEST_CASE(
    "A worker's lasting error, or an element of other dtypes, fails the "
    "read",
    "[dataservice]") {
  FakeService::Reply bad;
  bad.status = grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "no task 1");
  FakeService fails({bad});
  CHECK_THAT(ReadAll(fails.address()).status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "Failed to get element from worker"));

  FakeService floats({Compressed({Tensor::Scalar<float>(1.5f)})});
  CHECK_THAT(ReadAll(floats.address()).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "output_types"));
}

TEST_CASE(
    "RegisterDataset sends the pipeline's graph, metadata and cardinality "
    "and outputs the dispatcher's id",
    "[dataservice]") {
  FakeService fake({});
  NodeDef range = TestNodeBuilder("range", "RangeDataset", 3)
                      .Attr("output_types", DataTypeVector{DT_INT64})
                      .Build();
  (*range.mutable_attr())["output_shapes"].mutable_list()->add_shape();
  auto ds = RunKernel(range, {I64(0), I64(5), I64(1)});
  REQUIRE(ds.ok());

  tfdata::DataServiceMetadata metadata;
  metadata.set_compression(tfdata::DataServiceMetadata::COMPRESSION_SNAPPY);
  const NodeDef v2 = TestNodeBuilder("reg", "RegisterDatasetV2", 3)
                         .Attr("external_state_policy", int64_t{0})
                         .Attr("metadata", metadata.SerializeAsString().c_str())
                         .Build();
  auto id = RunKernel(v2, {(*ds)[0], Str(fake.address()), Str("grpc")});
  REQUIRE(id.ok());
  CHECK((*id)[0].data<std::string>()[0] == "42");
  const tfdata::GetOrRegisterDatasetRequest sent = fake.registered();
  CHECK(sent.metadata().compression() ==
        tfdata::DataServiceMetadata::COMPRESSION_SNAPPY);
  CHECK(sent.metadata().cardinality() == 5);
  bool has_range = false, has_retval = false;
  for (const NodeDef& n : sent.dataset().graph().node()) {
    has_range |= n.op() == "RangeDataset";
    has_retval |= n.op() == "_Retval";
  }
  CHECK(has_range);
  CHECK(has_retval);

  const NodeDef v1 = TestNodeBuilder("reg1", "RegisterDataset", 3)
                         .Attr("external_state_policy", int64_t{0})
                         .Build();
  auto int_id = RunKernel(v1, {(*ds)[0], Str(fake.address()), Str("grpc")});
  REQUIRE(int_id.ok());
  CHECK((*int_id)[0].data<int64_t>()[0] == 42);
  fake.set_dataset_id("not-a-number");
  CHECK_THAT(
      RunKernel(v1, {(*ds)[0], Str(fake.address()), Str("grpc")}).status(),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "Failed to parse dataset ID"));
}

TEST_CASE("Every dataservice op has TensorFlow 2.21's signature and CPU types",
          "[dataservice]") {
  testing::CheckSignaturesWithTensorFlow("dataservice", 7);
}

TEST_CASE(
    "A CompressedElement laid out as TensorFlow's decodes into its "
    "components",
    "[dataservice]") {
  // int32 [2] {1, 2}: its buffer; string [2] {"ab", "c"}: each string.
  std::string raw(
      "\x01\x00\x00\x00\x02\x00\x00\x00"
      "abc",
      11);
  tfdata::CompressedElement e;
  e.set_data(Snappy(raw));
  auto* a = e.add_component_metadata();
  a->set_dtype(static_cast<decltype(a->dtype())>(DT_INT32));
  a->mutable_tensor_shape()->add_dim()->set_size(2);
  a->add_uncompressed_bytes(8);
  auto* s = e.add_component_metadata();
  s->set_dtype(static_cast<decltype(s->dtype())>(DT_STRING));
  s->mutable_tensor_shape()->add_dim()->set_size(2);
  s->add_uncompressed_bytes(2);
  s->add_uncompressed_bytes(1);
  auto out = DecodeCompressedElement(e);
  REQUIRE(out.ok());
  REQUIRE(out->size() == 2);
  CHECK((*out)[0].dtype() == DT_INT32);
  CHECK((*out)[0].data<int32_t>()[0] == 1);
  CHECK((*out)[0].data<int32_t>()[1] == 2);
  CHECK((*out)[1].data<std::string>()[0] == "ab");
  CHECK((*out)[1].data<std::string>()[1] == "c");
}

TEST_CASE("Encoded elements decode back, empty and scalar components too",
          "[dataservice]") {
  Tensor f(DT_FLOAT, TensorShape({0, 3}));
  Tensor b = Tensor::Scalar<bool>(true);
  Tensor s = Tensor::Scalar<std::string>("");
  Tensor i = Tensor::FromVector<int64_t>({7, -8, 9});
  auto e = EncodeCompressedElement({f, b, s, i});
  REQUIRE(e.ok());
  auto out = DecodeCompressedElement(*e);
  REQUIRE(out.ok());
  REQUIRE(out->size() == 4);
  CHECK((*out)[0].shape() == TensorShape({0, 3}));
  CHECK((*out)[1].data<bool>()[0]);
  CHECK((*out)[2].data<std::string>()[0].empty());
  CHECK((*out)[3].data<int64_t>()[1] == -8);
}

TEST_CASE("Corrupt compressed elements are InvalidArgument", "[dataservice]") {
  auto good = EncodeCompressedElement({Tensor::FromVector<int32_t>({1, 2})});
  REQUIRE(good.ok());

  tfdata::CompressedElement not_snappy = *good;
  not_snappy.set_data("\xff\xff\xff\xff\xff garbage");
  CHECK_THAT(DecodeCompressedElement(not_snappy).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "snappy"));

  tfdata::CompressedElement wrong_size = *good;
  wrong_size.mutable_component_metadata(0)->set_uncompressed_bytes(0, 4);
  CHECK_THAT(DecodeCompressedElement(wrong_size).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "byte size"));

  tfdata::CompressedElement bigger_shape = *good;
  bigger_shape.mutable_component_metadata(0)
      ->mutable_tensor_shape()
      ->mutable_dim(0)
      ->set_size(1000000);
  CHECK_THAT(DecodeCompressedElement(bigger_shape).status(),
             StatusIs(absl::StatusCode::kInvalidArgument));

  tfdata::CompressedElement too_many_strings;
  too_many_strings.set_data(Snappy("ab"));
  auto* m = too_many_strings.add_component_metadata();
  m->set_dtype(static_cast<decltype(m->dtype())>(DT_STRING));
  m->mutable_tensor_shape()->add_dim()->set_size(1);
  m->add_uncompressed_bytes(5);
  CHECK_THAT(DecodeCompressedElement(too_many_strings).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "runs past"));

  tfdata::CompressedElement leftover = *good;
  leftover.set_data(Snappy(std::string(12, 'x')));
  CHECK_THAT(DecodeCompressedElement(leftover).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "left after"));
}

TEST_CASE("A protocol other than grpc is TensorFlow's NotFound",
          "[dataservice]") {
  CHECK_THAT(DataServiceClient::Create("localhost:1", "bogus").status(),
             StatusIs(absl::StatusCode::kNotFound, "protocol bogus"));
}

TEST_CASE(
    "A dispatcher that is not there is Unavailable when the retry window "
    "closes",
    "[dataservice]") {
  const std::string address = "localhost:" + std::to_string(ClosedPort());
  auto client = DataServiceClient::Create(address, "grpc", absl::Seconds(2));
  REQUIRE(client.ok());
  const absl::Time start = absl::Now();
  CHECK_THAT((*client)->GetConfig(nullptr).status(),
             StatusIs(absl::StatusCode::kUnavailable,
                      "Failed to get data service config from dispatcher"));
  CHECK(absl::Now() - start < absl::Seconds(20));
}

TEST_CASE(
    "A call to a dispatcher that is not there stops when its step is "
    "cancelled",
    "[dataservice]") {
  const std::string address = "localhost:" + std::to_string(ClosedPort());
  auto client = DataServiceClient::Create(address, "grpc");
  REQUIRE(client.ok());

  CancellationManager already;
  already.StartCancel();
  CHECK_THAT((*client)->GetMetadata("0", &already).status(),
             StatusIs(absl::StatusCode::kCancelled));

  // The 60-minute window would outlast the test; the cancellation ends it.
  CancellationManager cm;
  std::thread canceller([&cm] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    cm.StartCancel();
  });
  const absl::Time start = absl::Now();
  tfdata::GetOrRegisterDatasetRequest request;
  const absl::Status s = (*client)->GetOrRegisterDataset(request, &cm).status();
  canceller.join();
  CHECK_THAT(s, StatusIs(absl::StatusCode::kCancelled));
  CHECK(absl::Now() - start < absl::Seconds(20));
}

TEST_CASE(
    "DistributedSave sends the pipeline, the directory and SNAPPY for AUTO, "
    "the dispatcher's error comes back with its code",
    "[dataservice]") {
  FakeService fake({});
  NodeDef range = TestNodeBuilder("range", "RangeDataset", 3)
                      .Attr("output_types", DataTypeVector{DT_INT64})
                      .Build();
  (*range.mutable_attr())["output_shapes"].mutable_list()->add_shape();
  auto ds = RunKernel(range, {I64(0), I64(5), I64(1)});
  REQUIRE(ds.ok());
  tfdata::DistributedSnapshotMetadata metadata;
  metadata.set_compression("AUTO");
  metadata.set_element_spec("spec");
  const NodeDef save =
      TestNodeBuilder("save", "DistributedSave", 3)
          .Attr("metadata", metadata.SerializeAsString().c_str())
          .Build();
  REQUIRE(
      RunKernel(save, {(*ds)[0], Str("/snap/a"), Str(fake.address())}).ok());
  const std::vector<tfdata::SnapshotRequest> sent = fake.snapshots();
  REQUIRE(sent.size() == 1);
  CHECK(sent[0].path() == "/snap/a");
  CHECK(sent[0].metadata().compression() == "SNAPPY");
  CHECK(sent[0].metadata().element_spec() == "spec");
  bool has_range = false;
  for (const NodeDef& n : sent[0].dataset().graph().node()) {
    has_range |= n.op() == "RangeDataset";
  }
  CHECK(has_range);
  CHECK_THAT(
      RunKernel(save, {(*ds)[0], Str("/snap/a"), Str(fake.address())}).status(),
      StatusIs(absl::StatusCode::kAlreadyExists,
               "Failed to snapshot: already started or completed"));
  CHECK_THAT(
      RunKernel(save, {(*ds)[0], Str("gs://b/snap"), Str(fake.address())})
          .status(),
      StatusIs(absl::StatusCode::kFailedPrecondition, "atomic move"));
}

// A dataset op's output, built by its kernel.
Tensor BuildDataset(const NodeDef& node, const std::vector<Tensor>& inputs) {
  auto out = RunKernel(node, inputs);
  REQUIRE(out.ok());
  return (*out)[0];
}
data::DatasetPtr Ds(const Tensor& t) {
  auto ds = data::DatasetFromTensor(t, "the dataset");
  REQUIRE(ds.ok());
  return *ds;
}

NodeDef DatasetNode(const std::string& name, const std::string& op,
                    int inputs) {
  NodeDef n = TestNodeBuilder(name, op, inputs)
                  .Attr("output_types", DataTypeVector{DT_INT64})
                  .Build();
  (*n.mutable_attr())["output_shapes"].mutable_list()->add_shape();
  return n;
}

// Splits from a list, then the end.
class ListSplits final : public data::SplitProvider {
 public:
  explicit ListSplits(std::vector<int64_t> splits)
      : splits_(std::move(splits)) {}
  absl::Status GetNext(int64_t* split, bool* end) override {
    *end = next_ >= splits_.size();
    if (!*end) *split = splits_[next_++];
    return absl::OkStatus();
  }

 private:
  const std::vector<int64_t> splits_;
  size_t next_ = 0;
};

std::vector<int64_t> Drain(data::SplitProvider& p, int limit = 100) {
  std::vector<int64_t> out;
  int64_t split = 0;
  bool end = false;
  while (static_cast<int>(out.size()) < limit) {
    REQUIRE(p.GetNext(&split, &end).ok());
    if (end) break;
    out.push_back(split);
  }
  return out;
}

TEST_CASE(
    "The dispatcher's splits are the source's indices, repeated as its "
    "RepeatDataset asks, and a worker's source reads the splits it is given",
    "[dataservice]") {
  const Tensor range_t = BuildDataset(DatasetNode("range", "RangeDataset", 3),
                                      {I64(10), I64(20), I64(3)});
  const data::DatasetPtr range = Ds(range_t);
  const data::DatasetPtr repeat = Ds(BuildDataset(
      DatasetNode("repeat", "RepeatDataset", 2), {range_t, I64(2)}));
  auto provider = data::MakeSplitProvider(*repeat);
  REQUIRE(provider.ok());
  CHECK(Drain(**provider) == std::vector<int64_t>{0, 1, 2, 3, 0, 1, 2, 3});
  auto source = data::SplitSource(*repeat);
  REQUIRE(source.ok());
  CHECK(*source == range.get());

  // A worker's copy: the source reads splits 3 and 1 (elements 19 and
  // 13), and the repeat ends with them.
  data::AttachSplitProvider(
      range.get(), std::make_shared<ListSplits>(std::vector<int64_t>{3, 1}));
  data::IteratorContext ctx;
  auto it = repeat->MakeIterator(&ctx);
  REQUIRE(it.ok());
  std::vector<int64_t> got;
  for (int i = 0; i < 10; ++i) {
    std::vector<Tensor> element;
    bool end = false;
    REQUIRE((*it)->GetNext(&ctx, &element, &end).ok());
    if (end) break;
    got.push_back(element[0].data<int64_t>()[0]);
  }
  data::DetachSplitProvider(range.get());
  CHECK(got == std::vector<int64_t>{19, 13});
  CHECK(data::AttachedSplitProvider(range.get()) == nullptr);

  // Forever: no end.
  const data::DatasetPtr forever = Ds(BuildDataset(
      DatasetNode("forever", "RepeatDataset", 2), {range_t, I64(-1)}));
  provider = data::MakeSplitProvider(*forever);
  REQUIRE(provider.ok());
  CHECK(Drain(**provider, 9).size() == 9);
}

TEST_CASE(
    "A source that cannot be split is TensorFlow's Unimplemented, and so "
    "is a pipeline of several sources",
    "[dataservice]") {
  const data::DatasetPtr random = Ds(BuildDataset(
      DatasetNode("random", "RandomDataset", 2), {I64(1), I64(2)}));
  CHECK_THAT(data::MakeSplitProvider(*random).status(),
             StatusIs(absl::StatusCode::kUnimplemented,
                      "Cannot create split providers for dataset of type "
                      "RandomDatasetOp::Dataset"));
  const Tensor r = BuildDataset(DatasetNode("range", "RangeDataset", 3),
                                {I64(0), I64(4), I64(1)});
  NodeDef zip = TestNodeBuilder("zip", "ZipDataset", 2)
                    .Attr("output_types", DataTypeVector{DT_INT64, DT_INT64})
                    .Attr("N", 2)
                    .Build();
  (*zip.mutable_attr())["output_shapes"].mutable_list()->add_shape();
  (*zip.mutable_attr())["output_shapes"].mutable_list()->add_shape();
  CHECK_THAT(data::MakeSplitProvider(*Ds(BuildDataset(zip, {r, r}))).status(),
             StatusIs(absl::StatusCode::kUnimplemented, "one source"));
}

}  // namespace
}  // namespace dfx

// TensorFlow 2's eager service on a cluster of real `dfx server` processes,
// driven with TensorFlow's messages as its client sends them (no
// TensorFlow needed): a function run on worker 0 whose input is a variable
// made on the ps task runs across the two tasks, as a
// ParameterServerStrategy worker's step does; and its bad inputs fail
// naming what is wrong, with the context still serving.
#include <memory>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "google/protobuf/text_format.h"
#include "proto/eager_service_rpc.grpc.pb.h"
#include "rpc/cluster_spec.h"
#include "rpc/grpc_util.h"
#include "runtime/tensor.h"
#include "tests/integration/test_cluster.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using ::dfx::testing::TestCluster;
using Stub = tensorflow::eager::EagerService::Stub;

constexpr uint64_t kContext = 4242;
const absl::Duration kWait = absl::Seconds(60);

constexpr char kWorkerCpu[] = "/job:worker/replica:0/task:0/device:CPU:0";
constexpr char kPsCpu[] = "/job:ps/replica:0/task:0/device:CPU:0";

// y = ReadVariableOp(v) * x: v a resource (on the ps), x a float.
constexpr char kScale[] = R"pb(
  signature {
    name: "Scale"
    input_arg { name: "v" type: DT_RESOURCE }
    input_arg { name: "x" type: DT_FLOAT }
    output_arg { name: "y" type: DT_FLOAT }
    is_stateful: true
  }
  node_def {
    name: "read" op: "ReadVariableOp" input: "v"
    attr { key: "dtype" value { type: DT_FLOAT } }
  }
  node_def {
    name: "mul" op: "Mul" input: "read:value:0" input: "x"
    attr { key: "T" value { type: DT_FLOAT } }
  }
  ret { key: "y" value: "mul:z:0" }
)pb";

absl::Status Call(const std::function<grpc::Status(grpc::ClientContext*)>& f) {
  grpc::ClientContext context;
  SetTimeout(&context, kWait);
  return FromGrpcStatus(f(&context));
}

eager::Operation* AddOp(eager::EnqueueRequest* req, int64_t id,
                        const std::string& name, const std::string& device) {
  eager::Operation* op = req->add_queue()->mutable_operation();
  op->set_id(id);
  op->set_name(name);
  op->set_device(device);
  return op;
}

void AddHandle(eager::Operation* op, int64_t op_id, const std::string& device,
               DataType dtype) {
  eager::RemoteTensorHandle* h = op->add_op_inputs()->mutable_remote_handle();
  h->set_op_id(op_id);
  h->set_output_num(0);
  h->set_device(device);
  h->set_op_device(device);
  h->set_dtype(dtype);
}

void AddTensor(eager::Operation* op, const Tensor& t) {
  t.AsProtoTensorContent(op->add_op_inputs()->mutable_tensor());
}

TEST_CASE("a function on a worker reads a ps variable across tasks through "
          "the eager service") {
  TestCluster cluster({{"worker", 1}, {"ps", 1}});
  absl::StatusOr<ClusterDef> def = ParseClusterJson(cluster.json());
  REQUIRE_OK(def);
  std::unique_ptr<Stub> worker = tensorflow::eager::EagerService::NewStub(
      NewChannel(cluster.Address("worker", 0), cluster.client_security()));
  std::unique_ptr<Stub> ps = tensorflow::eager::EagerService::NewStub(
      NewChannel(cluster.Address("ps", 0), cluster.client_security()));

  // Contexts on both tasks, then the cluster's devices on each (as
  // TensorFlow's client sends them once it knows them all).
  google::protobuf::RepeatedPtrField<DeviceAttributes> devices;
  for (auto [stub, job] : {std::pair{ps.get(), "ps"},
                           std::pair{worker.get(), "worker"}}) {
    eager::CreateContextRequest req;
    req.set_context_id(kContext);
    req.set_keep_alive_secs(600);
    *req.mutable_server_def()->mutable_cluster() = *def;
    req.mutable_server_def()->set_job_name(job);
    req.mutable_server_def()->set_task_index(0);
    eager::CreateContextResponse resp;
    REQUIRE_OK(Call([&](grpc::ClientContext* c) {
      return stub->CreateContext(c, req, &resp);
    }));
    for (const DeviceAttributes& d : resp.device_attributes()) {
      *devices.Add() = d;
    }
  }
  for (Stub* stub : {ps.get(), worker.get()}) {
    eager::UpdateContextRequest req;
    req.set_context_id(kContext);
    *req.mutable_cluster_device_attributes() = devices;
    eager::UpdateContextResponse resp;
    REQUIRE_OK(Call([&](grpc::ClientContext* c) {
      return stub->UpdateContext(c, req, &resp);
    }));
  }

  // v = 3 on the ps (op ids 1 and 2 are the client's, shared by tasks).
  {
    eager::EnqueueRequest req;
    req.set_context_id(kContext);
    eager::Operation* handle = AddOp(&req, 1, "VarHandleOp", kPsCpu);
    (*handle->mutable_attrs())["dtype"].set_type(DT_FLOAT);
    (*handle->mutable_attrs())["shape"].mutable_shape();
    (*handle->mutable_attrs())["shared_name"].set_s("scale_v");
    eager::Operation* assign = AddOp(&req, 2, "AssignVariableOp", kPsCpu);
    (*assign->mutable_attrs())["dtype"].set_type(DT_FLOAT);
    AddHandle(assign, 1, kPsCpu, DT_RESOURCE);
    AddTensor(assign, Tensor::Scalar<float>(3.0f));
    eager::EnqueueResponse resp;
    REQUIRE_OK(Call([&](grpc::ClientContext* c) {
      return ps->Enqueue(c, req, &resp);
    }));
  }
  // Scale registered on the worker.
  {
    eager::EnqueueRequest req;
    req.set_context_id(kContext);
    REQUIRE(google::protobuf::TextFormat::ParseFromString(
        kScale, req.add_queue()
                    ->mutable_register_function()
                    ->mutable_function_def()));
    eager::EnqueueResponse resp;
    REQUIRE_OK(Call([&](grpc::ClientContext* c) {
      return worker->Enqueue(c, req, &resp);
    }));
  }
  // Scale(v on the ps, x) on the worker, its result answered as a tensor.
  auto run_scale = [&](const std::string& v_device, int64_t v_id, float x,
                       float* y) {
    eager::EnqueueRequest req;
    req.set_context_id(kContext);
    eager::Operation* op = AddOp(&req, -1, "Scale", kWorkerCpu);
    op->set_is_function(true);
    AddHandle(op, v_id, v_device, DT_RESOURCE);
    AddTensor(op, Tensor::Scalar<float>(x));
    eager::EnqueueResponse resp;
    absl::Status s = Call([&](grpc::ClientContext* c) {
      return worker->Enqueue(c, req, &resp);
    });
    if (s.ok()) {
      REQUIRE(resp.queue_response_size() == 1);
      REQUIRE(resp.queue_response(0).tensor_size() == 1);
      absl::StatusOr<Tensor> t =
          Tensor::FromProto(resp.queue_response(0).tensor(0));
      REQUIRE_OK(t);
      *y = t->scalar<float>();
    }
    return s;
  };

  float y = 0;
  REQUIRE_OK(run_scale(kPsCpu, 1, 2.0f, &y));
  CHECK(y == 6.0f);
  // Again (the parts are built once), with another x.
  REQUIRE_OK(run_scale(kPsCpu, 1, -0.5f, &y));
  CHECK(y == -1.5f);

  // A handle the ps never made: the ps's part fails, naming it.
  CHECK_THAT(run_scale(kPsCpu, 99, 1.0f, &y),
             testing::StatusIs(absl::StatusCode::kInvalidArgument,
                               "no remote tensor handle (op_id 99"));
  // A device the client's cluster does not list.
  CHECK_THAT(run_scale("/job:ps/replica:0/task:7/device:CPU:0", 1, 1.0f, &y),
             testing::StatusIs(absl::StatusCode::kInvalidArgument,
                               "a device the client's cluster does not list"));
  // The context still serves.
  REQUIRE_OK(run_scale(kPsCpu, 1, 1.0f, &y));
  CHECK(y == 3.0f);
}

}  // namespace
}  // namespace dfx

// The eager service against an in-process client: contexts and their
// lifetime (keep-alive, collection, close), operations on remote tensor
// handles, tensors handed over through the context's rendezvous, and every
// way a request can be wrong. Then the same service over gRPC.
#include "eager/eager_service.h"

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "catch2/catch.hpp"
#include "grpcpp/generic/generic_stub.h"
#include "proto/eager_service_rpc.grpc.pb.h"
#include "rendezvous/rendezvous_mgr.h"
#include "rpc/cluster_spec.h"
#include "rpc/grpc_server.h"
#include "rpc/grpc_util.h"
#include "runtime/device.h"
#include "runtime/rendezvous.h"
#include "runtime/resource_mgr.h"
#include "runtime/tensor.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::IsOk;
using testing::StatusIs;

constexpr char kTask[] = "/job:worker/replica:0/task:0";
const absl::Duration kWait = absl::Seconds(30);

std::string Dev(int i) { return absl::StrCat(kTask, "/device:CPU:", i); }

// Two CPU devices, the worker's rendezvous table and the service over them.
struct Fixture {
  explicit Fixture(absl::Duration gc_interval = absl::Seconds(1)) {
    CpuDeviceOptions options;
    options.task_name = kTask;
    options.num_devices = 2;
    options.intra_op_threads = 1;
    devices = *DeviceMgr::NewCpu(options);
    EagerServiceEnv env;
    env.device_mgr = devices.get();
    env.rendezvous_mgr = &rendezvous;
    env.local_task = kTask;
    env.gc_interval = gc_interval;
    service = std::make_unique<EagerService>(std::move(env));
  }

  eager::CreateContextRequest CreateRequest(uint64_t id,
                                            int64_t keep_alive = 600) {
    eager::CreateContextRequest req;
    req.set_context_id(id);
    req.set_keep_alive_secs(keep_alive);
    req.mutable_server_def()->set_job_name("worker");
    req.mutable_server_def()->set_task_index(0);
    return req;
  }
  void Create(uint64_t id, int64_t keep_alive = 600) {
    eager::CreateContextResponse resp;
    REQUIRE_THAT(service->CreateContext(CreateRequest(id, keep_alive), &resp),
                 IsOk());
  }

  std::unique_ptr<DeviceMgr> devices;
  RendezvousMgr rendezvous;
  std::unique_ptr<EagerService> service;
};

// Builders of queue items.
void AddSendTensor(eager::EnqueueRequest* req, int64_t op_id,
                   const std::vector<Tensor>& tensors, int device = 0) {
  eager::SendTensorOp* send = req->add_queue()->mutable_send_tensor();
  send->set_op_id(op_id);
  send->set_device_name(Dev(device));
  for (const Tensor& t : tensors) t.AsProtoTensorContent(send->add_tensors());
}

eager::Operation* AddOp(eager::EnqueueRequest* req, int64_t id,
                        const std::string& type,
                        std::vector<std::pair<int64_t, int>> inputs,
                        int device = 0) {
  eager::Operation* op = req->add_queue()->mutable_operation();
  op->set_id(id);
  op->set_name(type);
  op->set_device(Dev(device));
  for (auto [op_id, out] : inputs) {
    eager::RemoteTensorHandle* h =
        op->add_op_inputs()->mutable_remote_handle();
    h->set_op_id(op_id);
    h->set_output_num(out);
  }
  return op;
}

void SetType(eager::Operation* op, const std::string& attr, DataType t) {
  (*op->mutable_attrs())[attr].set_type(t);
}

Tensor Matrix(std::vector<float> values, int64_t rows, int64_t cols) {
  return Tensor::FromVector<float>(values, TensorShape({rows, cols}));
}

// The tensor an eager _Send of `op` put into the context's rendezvous,
// taken as the client's RecvTensor takes it.
absl::StatusOr<Tensor> TakeSent(Fixture& f, uint64_t context_id,
                                const std::string& key_string) {
  absl::StatusOr<Rendezvous::ParsedKey> key =
      Rendezvous::ParsedKey::Parse(key_string);
  if (!key.ok()) return key.status();
  absl::Notification done;
  absl::Status status;
  Tensor value;
  f.rendezvous.Find(static_cast<int64_t>(context_id))
      ->RecvLocalAsync(*key, {},
                       [&](const absl::Status& s, const Tensor& v, bool) {
                         status = s;
                         value = v;
                         done.Notify();
                       });
  if (!done.WaitForNotificationWithTimeout(kWait)) {
    return absl::DeadlineExceededError("nothing was sent");
  }
  if (!status.ok()) return status;
  return value;
}

eager::Operation* AddSend(eager::EnqueueRequest* req, int64_t id,
                          std::pair<int64_t, int> input, DataType t,
                          uint64_t incarnation, const std::string& name) {
  eager::Operation* op = AddOp(req, id, "_Send", {input});
  SetType(op, "T", t);
  (*op->mutable_attrs())["tensor_name"].set_s(name);
  (*op->mutable_attrs())["send_device"].set_s(Dev(0));
  (*op->mutable_attrs())["send_device_incarnation"].set_i(
      static_cast<int64_t>(incarnation));
  (*op->mutable_attrs())["recv_device"].set_s(
      "/job:localhost/replica:0/task:0/device:CPU:0");
  (*op->mutable_attrs())["client_terminated"].set_b(false);
  return op;
}

TEST_CASE("CreateContext lists the task's devices and KeepAlive answers") {
  Fixture f;
  eager::CreateContextResponse resp;
  REQUIRE_THAT(f.service->CreateContext(f.CreateRequest(7), &resp), IsOk());
  REQUIRE(resp.device_attributes_size() == 2);
  CHECK(resp.device_attributes(0).name() == Dev(0));
  CHECK(resp.device_attributes(1).incarnation() ==
        f.devices->ListDevices()[1]->incarnation());
  eager::KeepAliveRequest ka;
  ka.set_context_id(7);
  eager::KeepAliveResponse ka_resp;
  CHECK_THAT(f.service->KeepAlive(ka, &ka_resp), IsOk());
  // The same id twice is refused.
  eager::CreateContextResponse again;
  CHECK_THAT(f.service->CreateContext(f.CreateRequest(7), &again),
             StatusIs(absl::StatusCode::kAlreadyExists, "7"));
}

TEST_CASE("An unknown context is InvalidArgument naming its id") {
  Fixture f;
  eager::EnqueueRequest enqueue;
  enqueue.set_context_id(12345);
  eager::EnqueueResponse enqueue_resp;
  CHECK_THAT(f.service->Enqueue(enqueue, &enqueue_resp),
             StatusIs(absl::StatusCode::kInvalidArgument, "12345"));
  eager::KeepAliveRequest ka;
  ka.set_context_id(12345);
  eager::KeepAliveResponse ka_resp;
  CHECK_THAT(f.service->KeepAlive(ka, &ka_resp),
             StatusIs(absl::StatusCode::kInvalidArgument, "12345"));
  eager::WaitQueueDoneRequest wait;
  wait.set_context_id(12345);
  eager::WaitQueueDoneResponse wait_resp;
  CHECK_THAT(f.service->WaitQueueDone(wait, &wait_resp),
             StatusIs(absl::StatusCode::kInvalidArgument, "12345"));
  // Closing one is harmless (it may have been collected), as in TensorFlow.
  eager::CloseContextRequest close;
  close.set_context_id(12345);
  eager::CloseContextResponse close_resp;
  CHECK_THAT(f.service->CloseContext(close, &close_resp), IsOk());
}

TEST_CASE("A closed context is gone") {
  Fixture f;
  f.Create(3);
  eager::CloseContextRequest close;
  close.set_context_id(3);
  eager::CloseContextResponse close_resp;
  REQUIRE_THAT(f.service->CloseContext(close, &close_resp), IsOk());
  CHECK(f.service->NumContexts() == 0);
  eager::KeepAliveRequest ka;
  ka.set_context_id(3);
  eager::KeepAliveResponse ka_resp;
  CHECK_THAT(f.service->KeepAlive(ka, &ka_resp),
             StatusIs(absl::StatusCode::kInvalidArgument, "3"));
}

TEST_CASE("Operations run on remote tensor handles and send results back") {
  Fixture f;
  f.Create(99);
  eager::EnqueueRequest req;
  req.set_context_id(99);
  AddSendTensor(&req, 1, {Matrix({1, 2, 3, 4}, 2, 2), Matrix({5, 6, 7, 8}, 2, 2)});
  SetType(AddOp(&req, 2, "MatMul", {{1, 0}, {1, 1}}), "T", DT_FLOAT);
  SetType(AddOp(&req, 3, "AddV2", {{2, 0}, {1, 0}}, /*device=*/1), "T",
          DT_FLOAT);
  const uint64_t incarnation = f.devices->ListDevices()[0]->incarnation();
  AddSend(&req, 4, {3, 0}, DT_FLOAT, incarnation, "wire_1");
  eager::EnqueueResponse resp;
  REQUIRE_THAT(f.service->Enqueue(req, &resp), IsOk());
  REQUIRE(resp.queue_response_size() == 4);
  // The client learns each output's shape (it knows the device).
  REQUIRE(resp.queue_response(2).shape_size() == 1);
  CHECK(resp.queue_response(2).shape(0).dim_size() == 2);
  CHECK(resp.queue_response(2).device_size() == 0);
  CHECK(resp.queue_response(3).shape_size() == 0);
  // [[1,2],[3,4]] x [[5,6],[7,8]] + [[1,2],[3,4]]
  absl::StatusOr<Tensor> got =
      TakeSent(f, 99,
               Rendezvous::CreateKey(
                   Dev(0), incarnation,
                   "/job:localhost/replica:0/task:0/device:CPU:0", "wire_1"));
  REQUIRE_OK(got);
  auto v = got->span<float>();
  CHECK(std::vector<float>(v.begin(), v.end()) ==
        std::vector<float>{20, 24, 46, 54});
  // One kernel per op signature, none for the transfer (a fresh tensor
  // name each time); the same ops again build nothing.
  CHECK(f.service->NumKernels(99) == 2);
  eager::EnqueueRequest again;
  again.set_context_id(99);
  SetType(AddOp(&again, 10, "MatMul", {{1, 0}, {1, 1}}), "T", DT_FLOAT);
  AddSend(&again, 11, {10, 0}, DT_FLOAT, incarnation, "wire_2");
  eager::EnqueueResponse again_resp;
  REQUIRE_THAT(f.service->Enqueue(again, &again_resp), IsOk());
  CHECK(f.service->NumKernels(99) == 2);
  REQUIRE_OK(TakeSent(f, 99,
                      Rendezvous::CreateKey(
                          Dev(0), incarnation,
                          "/job:localhost/replica:0/task:0/device:CPU:0",
                          "wire_2")));
  eager::EnqueueRequest drop;
  drop.set_context_id(99);
  drop.add_queue()->mutable_handle_to_decref()->set_op_id(10);
  eager::EnqueueResponse drop_resp;
  REQUIRE_THAT(f.service->Enqueue(drop, &drop_resp), IsOk());

  // An operation sent with TensorFlow's "no id" (-1) answers its outputs
  // inline instead of keeping them.
  eager::EnqueueRequest sum;
  sum.set_context_id(99);
  eager::Operation* op = AddOp(&sum, -1, "Sum", {{3, 0}});
  eager::Operation::Input* axis = op->add_op_inputs();
  Tensor::FromVector<int32_t>({0, 1}).AsProtoTensorContent(
      axis->mutable_tensor());
  SetType(op, "T", DT_FLOAT);
  SetType(op, "Tidx", DT_INT32);
  eager::EnqueueResponse sum_resp;
  REQUIRE_THAT(f.service->Enqueue(sum, &sum_resp), IsOk());
  REQUIRE(sum_resp.queue_response(0).tensor_size() == 1);
  absl::StatusOr<Tensor> total =
      Tensor::FromProto(sum_resp.queue_response(0).tensor(0));
  REQUIRE_OK(total);
  CHECK(total->scalar<float>() == 144.0f);

  // Released handles are gone.
  CHECK(f.service->NumHandles(99) == 4);
  eager::EnqueueRequest release;
  release.set_context_id(99);
  release.add_queue()->mutable_handle_to_decref()->set_op_id(2);
  eager::EnqueueResponse release_resp;
  REQUIRE_THAT(f.service->Enqueue(release, &release_resp), IsOk());
  CHECK(f.service->NumHandles(99) == 3);
  eager::EnqueueRequest use;
  use.set_context_id(99);
  SetType(AddOp(&use, 5, "Neg", {{2, 0}}), "T", DT_FLOAT);
  eager::EnqueueResponse use_resp;
  CHECK_THAT(f.service->Enqueue(use, &use_resp),
             StatusIs(absl::StatusCode::kInvalidArgument, "op_id 2"));
}

TEST_CASE("Only short stateless operations with built kernels may run on "
          "the thread that read them") {
  Fixture f;
  f.Create(5);
  eager::EnqueueRequest setup;
  setup.set_context_id(5);
  AddSendTensor(&setup, 1, {Matrix({1, 2, 3, 4}, 2, 2)});
  Tensor big(DT_FLOAT, TensorShape({256, 256}));  // 256 KiB
  AddSendTensor(&setup, 2, {big});
  eager::EnqueueResponse setup_resp;
  REQUIRE_THAT(f.service->Enqueue(setup, &setup_resp), IsOk());

  auto add = [](int64_t id, int64_t input) {
    eager::EnqueueRequest req;
    req.set_context_id(5);
    SetType(AddOp(&req, id, "AddV2", {{input, 0}, {input, 0}}), "T",
            DT_FLOAT);
    return req;
  };
  // Not built yet: the first run builds the kernel on the pool.
  CHECK_FALSE(f.service->CanRunInline(add(10, 1)));
  eager::EnqueueResponse resp;
  REQUIRE_THAT(f.service->Enqueue(add(10, 1), &resp), IsOk());
  CHECK(f.service->CanRunInline(add(11, 1)));
  // Large inputs, unknown handles, stateful ops, transfers, sizes set by
  // values, and functions go to the pool.
  CHECK_FALSE(f.service->CanRunInline(add(12, 2)));
  CHECK_FALSE(f.service->CanRunInline(add(13, 77)));
  eager::EnqueueRequest var;
  var.set_context_id(5);
  eager::Operation* handle = AddOp(&var, 14, "VarHandleOp", {});
  SetType(handle, "dtype", DT_FLOAT);
  (*handle->mutable_attrs())["shape"].mutable_shape();
  CHECK_FALSE(f.service->CanRunInline(var));
  eager::EnqueueRequest send;
  send.set_context_id(5);
  AddSend(&send, 15, {1, 0}, DT_FLOAT, 1, "wire");
  CHECK_FALSE(f.service->CanRunInline(send));
  eager::EnqueueRequest fill;
  fill.set_context_id(5);
  SetType(AddOp(&fill, 16, "Fill", {{1, 0}, {1, 0}}), "T", DT_FLOAT);
  CHECK_FALSE(f.service->CanRunInline(fill));
  eager::EnqueueRequest fn = add(17, 1);
  fn.mutable_queue(0)->mutable_operation()->set_is_function(true);
  CHECK_FALSE(f.service->CanRunInline(fn));
  // Bookkeeping is always short; so is an unknown context (it fails).
  eager::EnqueueRequest decref;
  decref.set_context_id(5);
  decref.add_queue()->mutable_handle_to_decref()->set_op_id(10);
  CHECK(f.service->CanRunInline(decref));
  eager::EnqueueRequest unknown = add(18, 1);
  unknown.set_context_id(404);
  CHECK(f.service->CanRunInline(unknown));
}

TEST_CASE("An anonymous iterator goes with the last handle that names it") {
  Fixture f;
  f.Create(6);
  ResourceMgr* rm = f.devices->ListDevices()[0]->resource_manager();
  auto iterators = [rm] {
    int n = 0;
    for (const ResourceMgr::Entry& e : rm->List()) {
      n += absl::StartsWith(e.name, "_AnonymousIterator");
    }
    return n;
  };
  const int before = iterators();
  eager::EnqueueRequest make;
  make.set_context_id(6);
  eager::Operation* it = AddOp(&make, 1, "AnonymousIteratorV3", {});
  (*it->mutable_attrs())["output_types"].mutable_list()->add_type(DT_INT64);
  (*it->mutable_attrs())["output_shapes"].mutable_list()->add_shape();
  SetType(AddOp(&make, 2, "Identity", {{1, 0}}), "T", DT_RESOURCE);
  eager::EnqueueResponse resp;
  REQUIRE_THAT(f.service->Enqueue(make, &resp), IsOk());
  CHECK(iterators() == before + 1);
  auto release = [&f](int64_t op_id) {
    eager::EnqueueRequest req;
    req.set_context_id(6);
    req.add_queue()->mutable_handle_to_decref()->set_op_id(op_id);
    eager::EnqueueResponse r;
    REQUIRE_THAT(f.service->Enqueue(req, &r), IsOk());
  };
  release(1);
  CHECK(iterators() == before + 1);  // handle 2 still names it
  release(2);
  CHECK(iterators() == before);
}

TEST_CASE("A failing op is reported against that op, earlier ones stand") {
  Fixture f;
  f.Create(5);
  eager::EnqueueRequest req;
  req.set_context_id(5);
  AddSendTensor(&req, 1, {Matrix({1, 2, 3, 4, 5, 6}, 2, 3)});
  SetType(AddOp(&req, 2, "Neg", {{1, 0}}), "T", DT_FLOAT);
  SetType(AddOp(&req, 3, "MatMul", {{1, 0}, {2, 0}}), "T", DT_FLOAT);
  SetType(AddOp(&req, 4, "Neg", {{1, 0}}), "T", DT_FLOAT);
  eager::EnqueueResponse resp;
  absl::Status s = f.service->Enqueue(req, &resp);
  CHECK_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument, "MatMul id 3"));
  // The ops before it ran; the one after it did not.
  CHECK(f.service->NumHandles(5) == 2);
}

TEST_CASE("Malformed operations are refused with what is wrong") {
  Fixture f;
  f.Create(8);
  eager::EnqueueRequest setup;
  setup.set_context_id(8);
  AddSendTensor(&setup, 1, {Matrix({1, 2}, 1, 2)});
  AddSendTensor(&setup, 2, {Tensor::FromVector<int32_t>({1, 2})});
  eager::EnqueueResponse setup_resp;
  REQUIRE_THAT(f.service->Enqueue(setup, &setup_resp), IsOk());

  auto run = [&](const std::function<void(eager::EnqueueRequest*)>& fill) {
    eager::EnqueueRequest req;
    req.set_context_id(8);
    fill(&req);
    eager::EnqueueResponse resp;
    return f.service->Enqueue(req, &resp);
  };
  CHECK_THAT(run([](auto* r) { AddOp(r, 10, "NoSuchOp", {}); }),
             StatusIs(absl::StatusCode::kNotFound, "NoSuchOp"));
  CHECK_THAT(run([](auto* r) {
               SetType(AddOp(r, 10, "AddV2", {{1, 0}}), "T", DT_FLOAT);
             }),
             StatusIs(absl::StatusCode::kInvalidArgument, "expects 2 inputs"));
  CHECK_THAT(run([](auto* r) {
               SetType(AddOp(r, 10, "AddV2", {{1, 0}, {2, 0}}), "T",
                       DT_FLOAT);
             }),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "input 1 was expected to be a float tensor but is a "
                      "int32 tensor"));
  CHECK_THAT(run([](auto* r) {
               SetType(AddOp(r, 10, "Neg", {{77, 0}}), "T", DT_FLOAT);
             }),
             StatusIs(absl::StatusCode::kInvalidArgument, "op_id 77"));
  CHECK_THAT(run([](auto* r) {
               eager::Operation* op = AddOp(r, 10, "Neg", {{1, 0}});
               SetType(op, "T", DT_FLOAT);
               op->set_device("/job:ps/replica:0/task:0/device:CPU:0");
             }),
             StatusIs(absl::StatusCode::kInvalidArgument, "not on this task"));
  CHECK_THAT(run([](auto* r) {
               eager::Operation* op = AddOp(r, 10, "Neg", {{1, 0}});
               SetType(op, "T", DT_FLOAT);
               op->set_device("CPU");
             }),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "not a full device name"));
  CHECK_THAT(run([](auto* r) { AddOp(r, 10, "Neg", {{1, 0}}); }),
             StatusIs(absl::StatusCode::kInvalidArgument, "Neg"));
  CHECK_THAT(run([](auto* r) { r->add_queue(); }),
             StatusIs(absl::StatusCode::kInvalidArgument, "nothing in it"));
  CHECK_THAT(run([](auto* r) {
               eager::SendTensorOp* s = r->add_queue()->mutable_send_tensor();
               s->set_device_name(Dev(0));
               s->add_tensors()->set_dtype(DT_FLOAT);
               s->mutable_tensors(0)->mutable_tensor_shape()->add_dim()->set_size(
                   4);
               s->mutable_tensors(0)->set_tensor_content("abc");
             }),
             StatusIs(absl::StatusCode::kInvalidArgument, "SendTensor"));

  // A ServerDef naming another task, a negative keep-alive.
  eager::CreateContextRequest other = f.CreateRequest(9);
  other.mutable_server_def()->set_task_index(3);
  eager::CreateContextResponse resp;
  CHECK_THAT(f.service->CreateContext(other, &resp),
             StatusIs(absl::StatusCode::kInvalidArgument, "task:3"));
  CHECK_THAT(f.service->CreateContext(f.CreateRequest(10, -1), &resp),
             StatusIs(absl::StatusCode::kInvalidArgument, "keep_alive_secs"));
  CHECK(f.service->NumContexts() == 1);
}

TEST_CASE("A context nobody keeps alive is collected with its resources") {
  Fixture f(absl::Milliseconds(50));
  f.Create(21, /*keep_alive=*/1);
  f.Create(22, /*keep_alive=*/0);  // never collected
  // A variable made in context 21.
  eager::EnqueueRequest req;
  req.set_context_id(21);
  eager::Operation* handle = AddOp(&req, 1, "VarHandleOp", {});
  SetType(handle, "dtype", DT_FLOAT);
  (*handle->mutable_attrs())["shape"].mutable_shape();
  (*handle->mutable_attrs())["shared_name"].set_s("eager_gc_var");
  AddSendTensor(&req, 2, {Tensor::Scalar<float>(4.0f)});
  SetType(AddOp(&req, 3, "AssignVariableOp", {{1, 0}, {2, 0}}), "dtype",
          DT_FLOAT);
  eager::EnqueueResponse resp;
  REQUIRE_THAT(f.service->Enqueue(req, &resp), IsOk());
  ResourceMgr* rm = f.devices->ListDevices()[0]->resource_manager();
  REQUIRE(rm->Lookup<Var>("", "eager_gc_var").ok());

  // KeepAlive holds it past its keep-alive...
  const absl::Time start = absl::Now();
  eager::KeepAliveRequest ka;
  ka.set_context_id(21);
  while (absl::Now() - start < absl::Milliseconds(2500)) {
    eager::KeepAliveResponse ka_resp;
    REQUIRE_THAT(f.service->KeepAlive(ka, &ka_resp), IsOk());
    absl::SleepFor(absl::Milliseconds(200));
  }
  REQUIRE(f.service->NumContexts() == 2);
  // ... and without it, it goes.
  const absl::Time deadline = absl::Now() + kWait;
  while (f.service->NumContexts() != 1 && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(50));
  }
  REQUIRE(f.service->NumContexts() == 1);
  eager::KeepAliveResponse ka_resp;
  CHECK_THAT(f.service->KeepAlive(ka, &ka_resp),
             StatusIs(absl::StatusCode::kInvalidArgument, "21"));
  // The collector forgets the context first and then closes it (deleting
  // its resources) outside its lock: wait for that, bounded.
  while (rm->Lookup<Var>("", "eager_gc_var").ok() && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  CHECK_THAT(rm->Lookup<Var>("", "eager_gc_var").status(),
             StatusIs(absl::StatusCode::kNotFound));
  ka.set_context_id(22);
  CHECK_THAT(f.service->KeepAlive(ka, &ka_resp), IsOk());
}

TEST_CASE("Eager variables with TensorFlow's anonymous shared_name are each "
          "a variable of their own") {
  // TensorFlow 2 creates every eager variable with this shared_name; two of
  // one dtype and shape once were one variable.
  Fixture f;
  f.Create(31);
  eager::EnqueueRequest req;
  req.set_context_id(31);
  for (int64_t id : {1, 2}) {
    eager::Operation* handle = AddOp(&req, id, "VarHandleOp", {});
    SetType(handle, "dtype", DT_FLOAT);
    (*handle->mutable_attrs())["shape"].mutable_shape();
    (*handle->mutable_attrs())["shared_name"].set_s(
        "cd2c89b7-88b7-44c8-ad83-06c2a9158347");
  }
  AddSendTensor(&req, 3, {Tensor::Scalar<float>(1.0f)});
  AddSendTensor(&req, 4, {Tensor::Scalar<float>(2.0f)});
  SetType(AddOp(&req, 5, "AssignVariableOp", {{1, 0}, {3, 0}}), "dtype",
          DT_FLOAT);
  SetType(AddOp(&req, 6, "AssignVariableOp", {{2, 0}, {4, 0}}), "dtype",
          DT_FLOAT);
  SetType(AddOp(&req, -1, "ReadVariableOp", {{1, 0}}), "dtype", DT_FLOAT);
  SetType(AddOp(&req, -1, "ReadVariableOp", {{2, 0}}), "dtype", DT_FLOAT);
  eager::EnqueueResponse resp;
  REQUIRE_THAT(f.service->Enqueue(req, &resp), IsOk());
  REQUIRE(resp.queue_response_size() == 8);
  std::vector<float> got;
  for (int i : {6, 7}) {
    REQUIRE(resp.queue_response(i).tensor_size() == 1);
    absl::StatusOr<Tensor> t =
        Tensor::FromProto(resp.queue_response(i).tensor(0));
    REQUIRE_THAT(t.status(), IsOk());
    got.push_back(t->scalar<float>());
  }
  CHECK(got == std::vector<float>{1.0f, 2.0f});
}

TEST_CASE("Closing a context ends an eager _Recv waiting in it") {
  Fixture f;
  f.Create(31);
  eager::EnqueueRequest req;
  req.set_context_id(31);
  eager::Operation* recv = AddOp(&req, 1, "_Recv", {});
  SetType(recv, "tensor_type", DT_FLOAT);
  (*recv->mutable_attrs())["tensor_name"].set_s("never_sent");
  (*recv->mutable_attrs())["send_device"].set_s(Dev(1));
  (*recv->mutable_attrs())["send_device_incarnation"].set_i(
      static_cast<int64_t>(f.devices->ListDevices()[1]->incarnation()));
  (*recv->mutable_attrs())["recv_device"].set_s(Dev(0));
  (*recv->mutable_attrs())["client_terminated"].set_b(false);
  absl::Notification done;
  absl::Status status;
  std::thread caller([&] {
    eager::EnqueueResponse resp;
    status = f.service->Enqueue(req, &resp);
    done.Notify();
  });
  CHECK_FALSE(done.WaitForNotificationWithTimeout(absl::Milliseconds(200)));
  eager::CloseContextRequest close;
  close.set_context_id(31);
  eager::CloseContextResponse close_resp;
  REQUIRE_THAT(f.service->CloseContext(close, &close_resp), IsOk());
  REQUIRE(done.WaitForNotificationWithTimeout(kWait));
  caller.join();
  CHECK_THAT(status, StatusIs(absl::StatusCode::kCancelled, "_Recv"));
}

TEST_CASE("A _Recv in a context takes what a _Send of the task sent") {
  Fixture f;
  f.Create(41);
  const uint64_t inc1 = f.devices->ListDevices()[1]->incarnation();
  eager::EnqueueRequest req;
  req.set_context_id(41);
  AddSendTensor(&req, 1, {Matrix({3, 4}, 1, 2)}, /*device=*/1);
  eager::Operation* send = AddOp(&req, 2, "_Send", {{1, 0}}, /*device=*/1);
  SetType(send, "T", DT_FLOAT);
  (*send->mutable_attrs())["tensor_name"].set_s("cross_device");
  (*send->mutable_attrs())["send_device"].set_s(Dev(1));
  (*send->mutable_attrs())["send_device_incarnation"].set_i(
      static_cast<int64_t>(inc1));
  (*send->mutable_attrs())["recv_device"].set_s(Dev(0));
  (*send->mutable_attrs())["client_terminated"].set_b(false);
  eager::Operation* recv = AddOp(&req, 3, "_Recv", {});
  *recv->mutable_attrs() = send->attrs();
  recv->mutable_attrs()->erase("T");
  SetType(recv, "tensor_type", DT_FLOAT);
  eager::EnqueueResponse resp;
  REQUIRE_THAT(f.service->Enqueue(req, &resp), IsOk());
  REQUIRE(resp.queue_response(2).shape_size() == 1);
  CHECK(resp.queue_response(2).shape(0).dim(1).size() == 2);
}

// The service over gRPC, in a one-task server of this process.
std::unique_ptr<GrpcServer> StartServer() {
  absl::StatusOr<std::unique_ptr<GrpcServer>> server;
  for (int attempt = 0; attempt < 3; ++attempt) {
    absl::StatusOr<int> port = PickFreeLoopbackPort();
    REQUIRE_OK(port);
    GrpcServerOptions options;
    absl::StatusOr<ClusterDef> cluster = ParseClusterJson(
        absl::StrCat(R"({"worker": ["127.0.0.1:)", *port, R"("]})"));
    REQUIRE_OK(cluster);
    options.cluster = *cluster;
    options.job_name = "worker";
    options.inter_op_threads = 2;
    options.intra_op_threads = 1;
    options.master_threads = 4;
    server = GrpcServer::Create(options);
    if (server.ok()) break;
  }
  REQUIRE_OK(server);
  return *std::move(server);
}

TEST_CASE("The eager service answers over gRPC, streaming included") {
  std::unique_ptr<GrpcServer> server = StartServer();
  auto channel = NewChannel(server->address());

  // A body that is not the request: InvalidArgument naming the type.
  {
    grpc::GenericStub stub(channel);
    grpc::ClientContext context;
    SetTimeout(&context, kWait);
    grpc::Slice slice(std::string("\xff\xff\xff garbage"));
    grpc::ByteBuffer request(&slice, 1);
    grpc::ByteBuffer response;
    absl::Notification done;
    grpc::Status status;
    stub.UnaryCall(&context, "/tensorflow.eager.EagerService/CreateContext",
                   grpc::StubOptions(), &request, &response,
                   [&](grpc::Status s) {
                     status = std::move(s);
                     done.Notify();
                   });
    REQUIRE(done.WaitForNotificationWithTimeout(kWait));
    CHECK(status.error_code() == grpc::StatusCode::INVALID_ARGUMENT);
    CHECK(status.error_message().find("CreateContextRequest") !=
          std::string::npos);
  }

  auto stub = tensorflow::eager::EagerService::NewStub(channel);
  {
    grpc::ClientContext context;
    SetTimeout(&context, kWait);
    eager::CreateContextRequest req;
    req.set_context_id(5);
    req.set_keep_alive_secs(600);
    req.mutable_server_def()->set_job_name("worker");
    eager::CreateContextResponse resp;
    grpc::Status s = stub->CreateContext(&context, req, &resp);
    INFO(s.error_message());
    REQUIRE(s.ok());
    CHECK(resp.device_attributes(0).name() ==
          "/job:worker/replica:0/task:0/device:CPU:0");
  }
  // Two requests on one stream, one response each; then an error ends it.
  grpc::ClientContext context;
  SetTimeout(&context, kWait);
  auto stream = stub->StreamingEnqueue(&context);
  eager::EnqueueRequest first;
  first.set_context_id(5);
  AddSendTensor(&first, 1, {Matrix({1, -2}, 1, 2)});
  SetType(AddOp(&first, 2, "Neg", {{1, 0}}), "T", DT_FLOAT);
  REQUIRE(stream->Write(first));
  eager::EnqueueResponse resp;
  REQUIRE(stream->Read(&resp));
  REQUIRE(resp.queue_response_size() == 2);
  CHECK(resp.queue_response(1).shape(0).dim(1).size() == 2);
  eager::EnqueueRequest bad;
  bad.set_context_id(6);
  REQUIRE(stream->Write(bad));
  CHECK_FALSE(stream->Read(&resp));
  grpc::Status s = stream->Finish();
  CHECK(s.error_code() == grpc::StatusCode::INVALID_ARGUMENT);
  CHECK(s.error_message().find("6") != std::string::npos);
  server->Stop(absl::Seconds(5));
}

TEST_CASE("A stream answers operations sent without waiting, in order, up "
          "to the first error") {
  std::unique_ptr<GrpcServer> server = StartServer();
  auto stub = tensorflow::eager::EagerService::NewStub(
      NewChannel(server->address()));
  {
    grpc::ClientContext context;
    SetTimeout(&context, kWait);
    eager::CreateContextRequest req;
    req.set_context_id(7);
    req.set_keep_alive_secs(600);
    req.mutable_server_def()->set_job_name("worker");
    eager::CreateContextResponse resp;
    REQUIRE(stub->CreateContext(&context, req, &resp).ok());
  }
  grpc::ClientContext context;
  SetTimeout(&context, kWait);
  auto stream = stub->StreamingEnqueue(&context);
  // More requests than the server reads ahead (64), each a [1, k] tensor
  // and its Neg, all written before any answer is read; then one for an
  // unknown context; then more that must not run.
  constexpr int kGood = 150;
  for (int k = 1; k <= kGood + 3; ++k) {
    eager::EnqueueRequest req;
    req.set_context_id(k == kGood + 1 ? 8 : 7);
    AddSendTensor(&req, 2 * k, {Matrix(std::vector<float>(k, 1.0f), 1, k)});
    SetType(AddOp(&req, 2 * k + 1, "Neg", {{2 * k, 0}}), "T", DT_FLOAT);
    if (!stream->Write(req)) break;  // the server ended the stream
  }
  stream->WritesDone();
  int answered = 0;
  eager::EnqueueResponse resp;
  while (stream->Read(&resp)) {
    ++answered;
    INFO("answer " << answered);
    REQUIRE(resp.queue_response_size() == 2);
    // The answers come in the requests' order: answer k is [1, k].
    CHECK(resp.queue_response(1).shape(0).dim(1).size() == answered);
  }
  CHECK(answered == kGood);
  const grpc::Status s = stream->Finish();
  CHECK(s.error_code() == grpc::StatusCode::INVALID_ARGUMENT);
  CHECK(s.error_message().find("8") != std::string::npos);
  server->Stop(absl::Seconds(5));
}

}  // namespace
}  // namespace dfx

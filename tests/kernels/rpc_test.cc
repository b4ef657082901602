// The rpc family's ops (kernels/rpc/rpc_kernels.cc) with both ends in dfx:
// a server of registered functions on 127.0.0.1 and a client calling it,
// TensorFlow's errors for unknown methods, bad arguments and unreachable
// servers, futures, cancellation of every wait, and the server's lifetime
// (it serves after the kernels that started it are gone, until its
// resource is destroyed). tests/interop/run_tf_rpc runs the same against
// TensorFlow's Python server and client.
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "base/status_macros.h"
#include "catch2/catch.hpp"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "kernels/kernels.h"
#include "proto/function.pb.h"
#include "proto/tf_rpc.pb.h"
#include "runtime/cancellation.h"
#include "runtime/device.h"
#include "runtime/resource_mgr.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::StatusIs;
using testing::TestCpuDevice;
using testing::TestNodeBuilder;

// A TCP port of 127.0.0.1 free right now (bound, then released).
int FreePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof(addr);
  int port = -1;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    port = ntohs(addr.sin_port);
  }
  close(fd);
  return port;
}

// add_fn(a: int32, b: int32) -> sum: int32.
FunctionDefLibrary AddLibrary() {
  FunctionDefLibrary lib;
  FunctionDef* f = lib.add_function();
  f->mutable_signature()->set_name("add_fn");
  for (const char* name : {"a", "b"}) {
    OpDef::ArgDef* arg = f->mutable_signature()->add_input_arg();
    arg->set_name(name);
    arg->set_type(DT_INT32);
  }
  OpDef::ArgDef* out = f->mutable_signature()->add_output_arg();
  out->set_name("sum");
  out->set_type(DT_INT32);
  NodeDef* add = f->add_node_def();
  add->set_name("add");
  add->set_op("AddV2");
  add->add_input("a");
  add->add_input("b");
  (*add->mutable_attr())["T"].set_type(DT_INT32);
  (*f->mutable_ret())["sum"] = "add:z:0";
  return lib;
}

// block_fn() -> int32: dequeues from a new, empty queue, so it waits until
// its step is cancelled.
void AddBlockFunction(FunctionDefLibrary* lib) {
  FunctionDef* f = lib->add_function();
  f->mutable_signature()->set_name("block_fn");
  OpDef::ArgDef* out = f->mutable_signature()->add_output_arg();
  out->set_name("out");
  out->set_type(DT_INT32);
  NodeDef* q = f->add_node_def();
  q->set_name("q");
  q->set_op("FIFOQueueV2");
  (*q->mutable_attr())["component_types"].mutable_list()->add_type(DT_INT32);
  NodeDef* d = f->add_node_def();
  d->set_name("d");
  d->set_op("QueueDequeueV2");
  d->add_input("q:handle:0");
  (*d->mutable_attr())["component_types"].mutable_list()->add_type(DT_INT32);
  (*f->mutable_ret())["out"] = "d:components:0";
}

// One kernel call, possibly still waiting (kernels that need the graph's
// function library: async_kernel_test_util.h's TryStart has none).
struct Call {
  std::unique_ptr<OpKernel> kernel;
  std::vector<Tensor> inputs;
  OpKernelContext::Params params;
  std::unique_ptr<OpKernelContext> ctx;
  absl::Notification done;

  bool Wait(absl::Duration d = absl::Seconds(30)) {
    return done.WaitForNotificationWithTimeout(d);
  }
  absl::Status status() const { return ctx->status(); }
  const Tensor& output(int i) const { return (*ctx->mutable_outputs())[i]; }
};

absl::StatusOr<std::unique_ptr<Call>> Start(
    const NodeDef& node_in, std::vector<Tensor> inputs,
    CancellationManager* cm = nullptr,
    const FunctionDefLibrary* library = nullptr) {
  const OpRegistrationData* op = OpRegistry::Global()->LookUp(node_in.op());
  if (op == nullptr) return absl::NotFoundError("no op " + node_in.op());
  NodeDef node = node_in;
  AddDefaultAttrs(op->op_def, &node);
  auto call = std::make_unique<Call>();
  absl::StatusOr<std::unique_ptr<OpKernel>> kernel =
      StandardKernelRegistry()->CreateKernel(node, op->op_def, TestCpuDevice(),
                                             library);
  if (!kernel.ok()) return kernel.status();
  call->kernel = *std::move(kernel);
  call->inputs = std::move(inputs);
  call->params.step_id = 1;
  call->params.op_kernel = call->kernel.get();
  call->params.device = TestCpuDevice();
  call->params.inputs = call->inputs;
  call->params.cancellation_manager = cm;
  call->ctx = std::make_unique<OpKernelContext>(&call->params);
  Call* raw = call.get();
  if (AsyncOpKernel* async = call->kernel->AsAsync()) {
    async->ComputeAsync(raw->ctx.get(), [raw] { raw->done.Notify(); });
  } else {
    call->kernel->Compute(raw->ctx.get());
    raw->done.Notify();
  }
  return call;
}

// Runs a kernel to its end; its status, or its outputs.
absl::StatusOr<std::vector<Tensor>> Run(
    const NodeDef& node, std::vector<Tensor> inputs,
    const FunctionDefLibrary* library = nullptr) {
  absl::StatusOr<std::unique_ptr<Call>> call =
      Start(node, std::move(inputs), nullptr, library);
  if (!call.ok()) return call.status();
  if (!(*call)->Wait()) return absl::DeadlineExceededError("test: no answer");
  if (!(*call)->status().ok()) return (*call)->status();
  return std::vector<Tensor>((*call)->ctx->mutable_outputs()->begin(),
                             (*call)->ctx->mutable_outputs()->end());
}

Tensor Str(const std::string& s) { return Tensor::Scalar<std::string>(s); }
Tensor I64(int64_t v) { return Tensor::Scalar<int64_t>(v); }
Tensor I32(int32_t v) { return Tensor::Scalar<int32_t>(v); }

absl::StatusOr<Tensor> NewServer(const std::string& address) {
  DFX_ASSIGN_OR_RETURN(
      std::vector<Tensor> out,
      Run(TestNodeBuilder("server", "RpcServer", 1).Build(), {Str(address)}));
  return out[0];
}

NodeDef RegisterNode(int num_captured, const char* function = "add_fn") {
  NodeDef n = TestNodeBuilder("register", "RpcServerRegister", 2 + num_captured)
                  .Attr("output_specs", "")
                  .Attr("Tin", DataTypeVector(num_captured, DT_INT32))
                  .Build();
  (*n.mutable_attr())["f"].mutable_func()->set_name(function);
  return n;
}

absl::StatusOr<Tensor> NewClient(const std::string& address, int64_t timeout_ms,
                                 bool list = false,
                                 std::vector<Tensor>* specs = nullptr) {
  DFX_ASSIGN_OR_RETURN(std::vector<Tensor> out,
                       Run(TestNodeBuilder("client", "RpcClient", 2)
                               .Attr("list_registered_methods", list)
                               .Build(),
                           {Str(address), I64(timeout_ms)}));
  if (specs != nullptr) specs->push_back(out[1]);
  return out[0];
}

NodeDef CallNode(const DataTypeVector& tin) {
  return TestNodeBuilder("call", "RpcCall", 3 + static_cast<int>(tin.size()))
      .Attr("Tin", tin)
      .Build();
}

// RpcCall's outputs: the future's handle and its deleter, which keeps the
// future (TensorFlow's ResourceDeleter).
struct Future {
  Tensor handle;
  Tensor deleter;
};

absl::StatusOr<Future> CallMethod(const Tensor& client,
                                  const std::string& method,
                                  std::vector<Tensor> args,
                                  int64_t timeout_ms = 0) {
  DataTypeVector tin;
  std::vector<Tensor> inputs = {client, Str(method)};
  for (const Tensor& a : args) {
    tin.push_back(a.dtype());
    inputs.push_back(a);
  }
  inputs.push_back(I64(timeout_ms));
  DFX_ASSIGN_OR_RETURN(std::vector<Tensor> out,
                       Run(CallNode(tin), std::move(inputs)));
  return Future{out[0], out[1]};
}

NodeDef GetValueNode(const DataTypeVector& tout) {
  return TestNodeBuilder("get", "RpcGetValue", 1).Attr("Tout", tout).Build();
}

// RpcCheckStatus: (code, message).
std::pair<int64_t, std::string> CheckStatus(const Tensor& future) {
  absl::StatusOr<std::vector<Tensor>> out =
      Run(TestNodeBuilder("check", "RpcCheckStatus", 1).Build(), {future});
  if (!out.ok()) return {-1, out.status().ToString()};
  return {(*out)[0].scalar<int64_t>(), (*out)[1].scalar<std::string>()};
}

void DeleteServer(const std::string& address) {
  TestCpuDevice()
      ->resource_manager()
      ->Delete("rpc_server", address, "RpcServer")
      .IgnoreError();
}

TEST_CASE("Every rpc op has TensorFlow 2.21's signature and CPU types",
          "[rpc]") {
  testing::CheckSignaturesWithTensorFlow("rpc", 8);
}

TEST_CASE("A dfx RPC server serves a dfx client its registered functions",
          "[rpc]") {
  const int port = FreePort();
  REQUIRE(port > 0);
  const std::string address = absl::StrCat("127.0.0.1:", port);
  const FunctionDefLibrary lib = AddLibrary();
  absl::StatusOr<Tensor> server = NewServer(address);
  REQUIRE(server.ok());
  {
    // The kernels that register and start go before anything is called:
    // the server is the resource's, not theirs.
    REQUIRE(Run(RegisterNode(0), {*server, Str("add")}, &lib).ok());
    REQUIRE(Run(RegisterNode(1), {*server, Str("add10"), I32(10)}, &lib).ok());
    CHECK_THAT(Run(RegisterNode(0), {*server, Str("add")}, &lib).status(),
               StatusIs(absl::StatusCode::kInvalidArgument, "add is already"));
    REQUIRE(
        Run(TestNodeBuilder("start", "RpcServerStart", 1).Build(), {*server})
            .ok());
    // Starting twice does nothing.
    REQUIRE(
        Run(TestNodeBuilder("start", "RpcServerStart", 1).Build(), {*server})
            .ok());
    CHECK_THAT(Run(RegisterNode(0), {*server, Str("late")}, &lib).status(),
               StatusIs(absl::StatusCode::kFailedPrecondition,
                        "must be registered before starting"));
  }

  std::vector<Tensor> specs;
  absl::StatusOr<Tensor> client = NewClient(address, 10000, true, &specs);
  REQUIRE(client.ok());
  REQUIRE(specs[0].NumElements() == 2);
  std::vector<std::string> listed;
  for (int i = 0; i < 2; ++i) {
    RpcRegisteredMethod m;
    REQUIRE(m.ParseFromString(specs[0].data<std::string>()[i]));
    listed.push_back(m.method());
  }
  std::sort(listed.begin(), listed.end());
  CHECK(listed == std::vector<std::string>{"add", "add10"});

  absl::StatusOr<Future> future = CallMethod(*client, "add", {I32(2), I32(3)});
  REQUIRE(future.ok());
  CHECK(CheckStatus(future->handle) ==
        std::make_pair(int64_t{0}, std::string()));
  absl::StatusOr<std::vector<Tensor>> value =
      Run(GetValueNode({DT_INT32}), {future->handle});
  REQUIRE(value.ok());
  CHECK((*value)[0].scalar<int32_t>() == 5);
  // Too many Tout: TensorFlow's InvalidArgument.
  CHECK_THAT(Run(GetValueNode({DT_INT32, DT_INT32}), {future->handle}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "Incorrect number of output types specified.2 1"));
  CHECK_THAT(Run(GetValueNode({DT_FLOAT}), {future->handle}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "Tout[0]"));
  // The deleted future is NotFound.
  REQUIRE(Run(TestNodeBuilder("del", "DeleteRpcFutureResource", 2).Build(),
              {future->handle, future->deleter})
              .ok());
  CHECK(CheckStatus(future->handle).first == -1);
  CHECK_THAT(Run(GetValueNode({DT_INT32}), {future->handle}).status(),
             StatusIs(absl::StatusCode::kNotFound,
                      "Future resource no longer exists"));

  // Dropping the deleter drops the future, as TensorFlow's ResourceDeleter.
  future = CallMethod(*client, "add", {I32(2), I32(3)});
  REQUIRE(future.ok());
  const Tensor dropped = future->handle;
  future = absl::InternalError("dropped");
  CHECK_THAT(Run(GetValueNode({DT_INT32}), {dropped}).status(),
             StatusIs(absl::StatusCode::kNotFound));

  // Captured inputs come after the call's arguments.
  future = CallMethod(*client, "add10", {I32(7)});
  REQUIRE(future.ok());
  value = Run(GetValueNode({DT_INT32}), {future->handle});
  REQUIRE(value.ok());
  CHECK((*value)[0].scalar<int32_t>() == 17);

  // An unknown method: TensorFlow's InvalidArgument "<m> is not registered."
  future = CallMethod(*client, "nope", {I32(1)});
  REQUIRE(future.ok());
  CHECK(CheckStatus(future->handle) ==
        std::make_pair(int64_t{3}, std::string("nope is not registered.")));
  CHECK_THAT(
      Run(GetValueNode({DT_INT32}), {future->handle}).status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "nope is not registered."));
  // An error echoing a 10 kB method name still reaches the client as the
  // error, its message cut: uncut it would pass gRPC's 8 KiB header limit
  // and the client would see ResourceExhausted instead.
  future = CallMethod(*client, std::string(10000, 'm'), {I32(1)});
  REQUIRE(future.ok());
  const std::pair<int64_t, std::string> cut = CheckStatus(future->handle);
  CHECK(cut.first == 3);
  CHECK(absl::StartsWith(cut.second, "mmmm"));
  CHECK(absl::EndsWith(cut.second, " more bytes)"));
  CHECK(cut.second.size() < 4200);

  // Bad arguments name the method.
  future = CallMethod(*client, "add", {Tensor::Scalar<float>(1), I32(2)});
  REQUIRE(future.ok());
  std::pair<int64_t, std::string> st = CheckStatus(future->handle);
  CHECK(st.first == 3);
  CHECK_THAT(st.second, Catch::Contains("method 'add'") &&
                            Catch::Contains("argument 0 must be int32"));
  future = CallMethod(*client, "add", {I32(2)});
  REQUIRE(future.ok());
  st = CheckStatus(future->handle);
  CHECK(st.first == 3);
  CHECK_THAT(st.second, Catch::Contains("method 'add'") &&
                            Catch::Contains("takes 2 arguments, got 1"));

  // A second server on the port cannot listen: Unavailable at start.
  const std::string other = absl::StrCat("localhost:", port);
  absl::StatusOr<Tensor> second = NewServer(other);
  REQUIRE(second.ok());
  CHECK_THAT(
      Run(TestNodeBuilder("start", "RpcServerStart", 1).Build(), {*second})
          .status(),
      StatusIs(absl::StatusCode::kUnavailable, other));
  DeleteServer(other);

  // Destroying the server's resource stops it: calls then find nobody
  // within their timeout.
  REQUIRE(
      Run(TestNodeBuilder("destroy", "DestroyResourceOp", 1).Build(), {*server})
          .ok());
  future = CallMethod(*client, "add", {I32(2), I32(3)}, 300);
  REQUIRE(future.ok());
  CHECK(CheckStatus(future->handle).first ==
        static_cast<int64_t>(absl::StatusCode::kDeadlineExceeded));
}

TEST_CASE(
    "A served function is cancelled by the call's deadline and by the "
    "server's end",
    "[rpc]") {
  const int port = FreePort();
  REQUIRE(port > 0);
  const std::string address = absl::StrCat("127.0.0.1:", port);
  FunctionDefLibrary lib = AddLibrary();
  AddBlockFunction(&lib);
  absl::StatusOr<Tensor> server = NewServer(address);
  REQUIRE(server.ok());
  REQUIRE(Run(RegisterNode(0, "block_fn"), {*server, Str("block")}, &lib).ok());
  REQUIRE(Run(TestNodeBuilder("start", "RpcServerStart", 1).Build(), {*server})
              .ok());
  absl::StatusOr<Tensor> client = NewClient(address, 0);
  REQUIRE(client.ok());
  // The deadline ends the call at the client and cancels the function.
  absl::StatusOr<Future> timed = CallMethod(*client, "block", {}, 300);
  REQUIRE(timed.ok());
  CHECK(CheckStatus(timed->handle).first ==
        static_cast<int64_t>(absl::StatusCode::kDeadlineExceeded));
  // A call without a deadline ends when the server goes, which cancels
  // the function instead of waiting for it.
  absl::StatusOr<Future> waiting = CallMethod(*client, "block", {});
  REQUIRE(waiting.ok());
  absl::StatusOr<std::unique_ptr<Call>> check = Start(
      TestNodeBuilder("check", "RpcCheckStatus", 1).Build(), {waiting->handle});
  REQUIRE(check.ok());
  CHECK(!(*check)->Wait(absl::Milliseconds(300)));
  const absl::Time start = absl::Now();
  REQUIRE(
      Run(TestNodeBuilder("destroy", "DestroyResourceOp", 1).Build(), {*server})
          .ok());
  REQUIRE((*check)->Wait());
  CHECK(absl::Now() - start < absl::Seconds(10));
  REQUIRE((*check)->status().ok());
  CHECK((*check)->output(0).scalar<int64_t>() != 0);
  TestCpuDevice()
      ->resource_manager()
      ->Delete("rpc_client", address, "RpcClient")
      .IgnoreError();
}

TEST_CASE("RPC addresses are checked and port 0 is refused", "[rpc]") {
  for (const char* bad : {"", "nohost", "127.0.0.1:0", "127.0.0.1:x",
                          "127.0.0.1:70000", "::1:80"}) {
    CAPTURE(bad);
    CHECK_THAT(NewServer(bad).status(),
               StatusIs(absl::StatusCode::kInvalidArgument, "server_address"));
  }
  CHECK_THAT(NewClient("", 0).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "server_address"));
  CHECK_THAT(Run(TestNodeBuilder("server", "RpcServer", 1).Build(),
                 {Tensor::FromVector<std::string>({"a:1", "b:2"})})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "scalar"));
  // A function attr naming no function: an error when the kernel is made.
  FunctionDefLibrary empty;
  CHECK_THAT(Run(RegisterNode(0), {I32(0), Str("m")}, &empty).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "add_fn"));
  // Specs that are not a protocol buffer.
  const FunctionDefLibrary lib = AddLibrary();
  NodeDef bad_specs = RegisterNode(0);
  (*bad_specs.mutable_attr())["output_specs"].set_s("\xff\xff");
  CHECK_THAT(Run(bad_specs, {I32(0), Str("m")}, &lib).status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "Unable to parse StructuredValue"));
}

TEST_CASE("An RPC to an unreachable server fails DeadlineExceeded in time",
          "[rpc]") {
  const int port = FreePort();
  REQUIRE(port > 0);
  const std::string address = absl::StrCat("127.0.0.1:", port);
  const absl::Time start = absl::Now();
  // The client's default timeout, then a per-call one.
  absl::StatusOr<Tensor> client = NewClient(address, 300);
  REQUIRE(client.ok());
  absl::StatusOr<Future> future = CallMethod(*client, "add", {I32(1)});
  REQUIRE(future.ok());
  CHECK(CheckStatus(future->handle).first ==
        static_cast<int64_t>(absl::StatusCode::kDeadlineExceeded));
  future = CallMethod(*client, "add", {I32(1)}, 200);
  REQUIRE(future.ok());
  CHECK_THAT(Run(GetValueNode({DT_INT32}), {future->handle}).status(),
             StatusIs(absl::StatusCode::kDeadlineExceeded));
  // Listing the methods waits as long as the client's timeout.
  CHECK_THAT(NewClient(address, 300, true).status(),
             StatusIs(absl::StatusCode::kDeadlineExceeded));
  CHECK(absl::Now() - start < absl::Seconds(10));
}

TEST_CASE("A cancelled step ends every RPC wait", "[rpc]") {
  const int port = FreePort();
  REQUIRE(port > 0);
  const std::string address = absl::StrCat("127.0.0.1:", port);
  // No timeout anywhere: without cancellation these would wait forever.
  absl::StatusOr<Tensor> client = NewClient(address, 0);
  REQUIRE(client.ok());
  absl::StatusOr<Future> future = CallMethod(*client, "add", {I32(1)});
  REQUIRE(future.ok());

  CancellationManager cm;
  absl::StatusOr<std::unique_ptr<Call>> check =
      Start(TestNodeBuilder("check", "RpcCheckStatus", 1).Build(),
            {future->handle}, &cm);
  REQUIRE(check.ok());
  absl::StatusOr<std::unique_ptr<Call>> get =
      Start(GetValueNode({DT_INT32}), {future->handle}, &cm);
  REQUIRE(get.ok());
  absl::StatusOr<std::unique_ptr<Call>> list =
      Start(TestNodeBuilder("client", "RpcClient", 2)
                .Attr("shared_name", "listing")
                .Attr("list_registered_methods", true)
                .Build(),
            {Str(address), I64(0)}, &cm);
  REQUIRE(list.ok());
  CHECK(!(*check)->Wait(absl::Milliseconds(200)));
  CHECK(!(*get)->done.HasBeenNotified());
  CHECK(!(*list)->done.HasBeenNotified());
  cm.StartCancel();
  for (Call* c : {check->get(), get->get(), list->get()}) {
    REQUIRE(c->Wait());
    CHECK_THAT(c->status(), StatusIs(absl::StatusCode::kCancelled));
  }
  // A step cancelled before the wait fails at once.
  absl::StatusOr<std::unique_ptr<Call>> late =
      Start(TestNodeBuilder("check", "RpcCheckStatus", 1).Build(),
            {future->handle}, &cm);
  REQUIRE(late.ok());
  REQUIRE((*late)->Wait(absl::Seconds(1)));
  CHECK_THAT((*late)->status(), StatusIs(absl::StatusCode::kCancelled));
  // The client's end cancels its calls: the future is answered.
  ResourceMgr* rm = TestCpuDevice()->resource_manager();
  rm->Delete("rpc_client", address, "RpcClient").IgnoreError();
  rm->Delete("rpc_client", "listing" + address, "RpcClient").IgnoreError();
  CHECK(CheckStatus(future->handle).first ==
        static_cast<int64_t>(absl::StatusCode::kCancelled));
}

}  // namespace
}  // namespace dfx

#include "rpc/grpc_util.h"
#include "rpc/rpc_metrics.h"
#include "base/grpc_status.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstring>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/impl/codegen/proto_utils.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/support/channel_arguments.h"
#include "grpcpp/support/proto_buffer_reader.h"
#include "grpcpp/support/proto_buffer_writer.h"
#include "proto/worker_service.grpc.pb.h"

namespace dfx {
namespace {

constexpr int kKeepaliveTimeMs = 10'000;
constexpr int kKeepaliveTimeoutMs = 20'000;
constexpr int kConnectTimeoutMs = 10'000;
// OK unless the devices in `response` belong to a task of a real job other
// than `expected_task` (see WaitForWorkerReady).
absl::Status CheckTaskIdentity(const std::string& address,
                               absl::string_view expected_task,
                               const GetStatusResponse& response) {
  const std::string prefix = absl::StrCat(expected_task, "/");
  for (const DeviceAttributes& d : response.device_attributes()) {
    if (absl::StartsWith(d.name(), prefix) ||
        absl::StartsWith(d.name(), "/job:localhost/")) {
      continue;
    }
    return absl::FailedPreconditionError(absl::StrCat(
        "the server at ", address, " is not ", expected_task,
        ": it has device ", d.name(),
        " (another process took the address, or the cluster spec is "
        "wrong)"));
  }
  return absl::OkStatus();
}

}  // namespace

grpc::Status ToGrpcStatus(const absl::Status& status) {
  // Every service answer passes here: the errors by code at /metrics.
  if (!status.ok()) CountRpcError(status);
  return StatusToGrpc(status);
}

absl::Status FromGrpcStatus(const grpc::Status& status) {
  return StatusFromGrpc(status);
}

absl::StatusOr<std::string> ParseGrpcTarget(absl::string_view target) {
  absl::string_view address = target;
  if (absl::StartsWith(address, "grpc://")) address.remove_prefix(7);
  size_t colon = address.rfind(':');
  uint32_t port = 0;
  if (address.empty() || colon == absl::string_view::npos || colon == 0 ||
      !absl::SimpleAtoi(address.substr(colon + 1), &port) || port == 0 ||
      port > 65535) {
    return absl::InvalidArgumentError(absl::StrCat(
        "bad target '", target,
        "': expected grpc://HOST:PORT (or HOST:PORT) with a port in "
        "1..65535"));
  }
  return std::string(address);
}

std::shared_ptr<grpc::Channel> NewChannel(const std::string& address,
                                          const ChannelSecurity& security) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(INT_MAX);
  args.SetMaxSendMessageSize(INT_MAX);
  args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, kKeepaliveTimeMs);
  args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, kKeepaliveTimeoutMs);
  args.SetInt(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  args.SetInt(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
  // Also the time a connection attempt may take (up to the HTTP/2
  // SETTINGS frame): a loaded peer can take well over 100 ms to answer,
  // and a host that is gone is given up on after this.
  args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, kConnectTimeoutMs);
  // Each channel its own subchannel: a task's RecvTensor traffic and its
  // RunGraph calls share one connection, but two tasks never do.
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  std::vector<std::unique_ptr<grpc::experimental::ClientInterceptorFactoryInterface>>
      interceptors;
  if (auto auth = MakeAuthInterceptorFactory(security.auth_token)) {
    interceptors.push_back(std::move(auth));
  }
  return grpc::experimental::CreateCustomChannelWithInterceptors(
      address, MakeChannelCredentials(security), args,
      std::move(interceptors));
}

void ConfigureServerBuilder(grpc::ServerBuilder* builder) {
  // gRPC sets SO_REUSEPORT by default: a second server on a task's port
  // would start and take half its connections. One port, one server: the
  // second one fails to listen.
  builder->AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  builder->SetMaxReceiveMessageSize(INT_MAX);
  builder->SetMaxSendMessageSize(INT_MAX);
  builder->AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS, kKeepaliveTimeMs);
  builder->AddChannelArgument(GRPC_ARG_KEEPALIVE_TIMEOUT_MS,
                              kKeepaliveTimeoutMs);
  builder->AddChannelArgument(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  builder->AddChannelArgument(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
  builder->AddChannelArgument(
      GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS,
      kKeepaliveTimeMs / 2);
}

absl::Duration TimeLeft(const grpc::ServerContextBase* context) {
  const auto deadline = context->deadline();
  if (deadline == std::chrono::system_clock::time_point::max()) {
    return absl::ZeroDuration();
  }
  const absl::Duration left =
      absl::FromChrono(deadline - std::chrono::system_clock::now());
  return std::max(left, absl::Nanoseconds(1));
}

void SetTimeout(grpc::ClientContext* context, absl::Duration timeout) {
  if (timeout <= absl::ZeroDuration()) return;
  context->set_deadline(std::chrono::system_clock::now() +
                        absl::ToChronoMicroseconds(timeout));
}

absl::StatusOr<std::vector<int>> PickFreeLoopbackPorts(int n) {
  std::vector<int> fds;
  std::vector<int> ports;
  absl::Status status;
  for (int i = 0; i < n && status.ok(); ++i) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
      status = absl::UnavailableError(
          absl::StrCat("socket(): ", std::strerror(errno)));
      break;
    }
    fds.push_back(fd);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    socklen_t len = sizeof(addr);
    if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
      status = absl::UnavailableError("cannot find a free port on 127.0.0.1");
      break;
    }
    ports.push_back(static_cast<int>(ntohs(addr.sin_port)));
  }
  for (int fd : fds) ::close(fd);
  if (!status.ok()) return status;
  return ports;
}

absl::StatusOr<int> PickFreeLoopbackPort() {
  absl::StatusOr<std::vector<int>> ports = PickFreeLoopbackPorts(1);
  if (!ports.ok()) return ports.status();
  return ports->front();
}

absl::Status WaitForWorkerReady(const std::string& address,
                                absl::Time deadline,
                                const std::function<bool()>& keep_waiting,
                                const ChannelSecurity& security,
                                absl::string_view expected_task) {
  auto stub =
      tensorflow::WorkerService::NewStub(NewChannel(address, security));
  absl::Status last = absl::UnavailableError("not asked yet");
  while (absl::Now() < deadline) {
    if (keep_waiting && !keep_waiting()) {
      return absl::AbortedError(
          absl::StrCat("stopped waiting for the worker at ", address));
    }
    grpc::ClientContext context;
    context.set_wait_for_ready(true);
    SetTimeout(&context,
               std::min(absl::Milliseconds(500), deadline - absl::Now()));
    GetStatusRequest request;
    GetStatusResponse response;
    last = FromGrpcStatus(stub->GetStatus(&context, request, &response));
    if (last.ok()) {
      if (expected_task.empty()) return absl::OkStatus();
      return CheckTaskIdentity(address, expected_task, response);
    }
    // Waiting longer does not help a token the worker refuses.
    if (last.code() == absl::StatusCode::kUnauthenticated) {
      return absl::UnauthenticatedError(absl::StrCat(
          "the worker at ", address, " refused GetStatus: ", last.message()));
    }
  }
  return absl::DeadlineExceededError(
      absl::StrCat("the worker at ", address, " did not answer GetStatus in "
                   "time: ", last.message()));
}

grpc::ByteBuffer SerializeToByteBuffer(const google::protobuf::Message& msg) {
  grpc::ByteBuffer buffer;
  bool own_buffer = false;
  // The generated code's own path: one slice for small messages, chunked
  // writes for big ones.
  grpc::GenericSerialize<grpc::ProtoBufferWriter, google::protobuf::Message>(
      msg, &buffer, &own_buffer);
  return buffer;
}

absl::Status ParseFromByteBuffer(grpc::ByteBuffer* buffer,
                                 google::protobuf::Message* msg,
                                 absl::string_view what) {
  grpc::Status s =
      grpc::GenericDeserialize<grpc::ProtoBufferReader,
                               google::protobuf::Message>(buffer, msg);
  if (!s.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("malformed ", what, ": ", s.error_message()));
  }
  return absl::OkStatus();
}

}  // namespace dfx

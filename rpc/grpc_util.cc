#include "rpc/grpc_util.h"
#include "rpc/rpc_metrics.h"

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
// The most bytes of an error message on the wire (grpc_util.h).
constexpr size_t kMaxGrpcErrorBytes = 4096;

// Payloads in the status details: "dfxp1", then for each payload its type
// URL and its value, each as a 4-byte big-endian length and the bytes.
constexpr absl::string_view kPayloadMagic = "dfxp1";
constexpr size_t kMaxPayloadBytes = 16 << 10;

void AppendLength(std::string* out, size_t n) {
  for (int shift = 24; shift >= 0; shift -= 8) {
    out->push_back(static_cast<char>((n >> shift) & 0xff));
  }
}

std::string EncodePayloads(const absl::Status& status) {
  std::string out;
  status.ForEachPayload(
      [&out](absl::string_view url, const absl::Cord& value) {
        const std::string bytes(value);
        if (out.size() + url.size() + bytes.size() + 8 > kMaxPayloadBytes) {
          return;  // details travel in a header: keep them small
        }
        if (out.empty()) out = std::string(kPayloadMagic);
        AppendLength(&out, url.size());
        out.append(url.data(), url.size());
        AppendLength(&out, bytes.size());
        out.append(bytes);
      });
  return out;
}

// Details that are not dfx's (another server's google.rpc.Status) or are
// malformed are ignored.
void DecodePayloads(absl::string_view details, absl::Status* status) {
  if (!absl::StartsWith(details, kPayloadMagic)) return;
  details.remove_prefix(kPayloadMagic.size());
  auto read = [&details](absl::string_view* field) {
    if (details.size() < 4) return false;
    size_t n = 0;
    for (int i = 0; i < 4; ++i) {
      n = (n << 8) | static_cast<unsigned char>(details[i]);
    }
    details.remove_prefix(4);
    if (n > details.size()) return false;
    *field = details.substr(0, n);
    details.remove_prefix(n);
    return true;
  };
  while (!details.empty()) {
    absl::string_view url, value;
    if (!read(&url) || !read(&value)) return;
    status->SetPayload(url, absl::Cord(value));
  }
}

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
  if (status.ok()) return grpc::Status::OK;
  // Every service answer passes here: the errors by code at /metrics.
  CountRpcError(status);
  // The message travels percent-encoded in the grpc-message header, and a
  // client refuses a response whose headers pass 8 KiB (it would report
  // ResourceExhausted, not the error): a message echoing a huge name is
  // cut to about kMaxGrpcErrorBytes on the wire.
  absl::string_view message = status.message();
  size_t cost = 0;
  size_t keep = 0;
  for (; keep < message.size(); ++keep) {
    const unsigned char c = static_cast<unsigned char>(message[keep]);
    cost += (c < 0x20 || c > 0x7e || c == '%') ? 3 : 1;
    if (cost > kMaxGrpcErrorBytes) break;
  }
  std::string text(message.substr(0, keep));
  if (keep < message.size()) {
    absl::StrAppend(&text, "... (", message.size() - keep, " more bytes)");
  }
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()),
                      std::move(text), EncodePayloads(status));
}

absl::Status FromGrpcStatus(const grpc::Status& status) {
  if (status.ok()) return absl::OkStatus();
  absl::Status result(static_cast<absl::StatusCode>(status.error_code()),
                      status.error_message());
  DecodePayloads(status.error_details(), &result);
  return result;
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

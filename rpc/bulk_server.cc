#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/random/random.h"
#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "base/logging.h"
#include "openssl/err.h"
#include "openssl/ssl.h"
#include "rpc/bulk_io.h"
#include "rpc/bulk_transport.h"
#include "rpc/rpc_metrics.h"
#include "rpc/security.h"

namespace dfx {

using bulk_io::BlockSigpipe;
using bulk_io::ErrnoText;
using bulk_io::NumericHost;
using bulk_io::PortOf;
using bulk_io::PutU32;
using bulk_io::PutU64;
using bulk_io::RecvFull;
using bulk_io::ScopedFd;
using bulk_io::SendError;
using bulk_io::SendFull;
using bulk_io::SetNoDelay;
using bulk_io::SetTimeout;
using bulk_io::SslPtr;
using bulk_io::StripBrackets;
using bulk_io::TlsErrors;

namespace {

// A device tensor's range goes over TCP in staged pieces of this size
// (HeldTensors::Read): big enough that a GPU copies each at full speed,
// small enough that the copy of the first one, which nothing overlaps,
// costs little.
constexpr uint64_t kStagedPieceBytes = uint64_t{8} << 20;
// A local request's range is staged in one piece.
static_assert(kStagedPieceBytes >= bulk_io::kMaxLocalPieceBytes);

// A listening abstract Unix socket "@dfx-bulk-<64 random bits>" (the name
// in `*name`); not valid, and logged, when it cannot be made.
ScopedFd ListenLocal(const std::string& address, std::string* name) {
  absl::BitGen random;
  const std::string wanted = absl::StrCat(
      "@dfx-bulk-", absl::Hex(absl::Uniform<uint64_t>(random), absl::kZeroPad16));
  sockaddr_storage addr;
  socklen_t len = 0;
  DFX_CHECK(bulk_io::LocalSocketAddress(wanted, &addr, &len));
  ScopedFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd.valid() ||
      ::bind(fd.get(), reinterpret_cast<sockaddr*>(&addr), len) != 0 ||
      ::listen(fd.get(), 128) != 0) {
    spdlog::warn("bulk server {}: no local socket, receivers on this host "
                 "use TCP: {}", address, ErrnoText(errno));
    return ScopedFd();
  }
  *name = wanted;
  return fd;
}

// OK when the peer of local connection `fd` runs as this process's user.
absl::Status CheckPeerUser(int fd) {
  ucred cred{};
  socklen_t len = sizeof(cred);
  if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
    return absl::PermissionDeniedError(
        absl::StrCat("SO_PEERCRED: ", ErrnoText(errno)));
  }
  if (cred.uid != ::geteuid()) {
    return absl::PermissionDeniedError(absl::StrCat(
        "a local peer of user ", cred.uid, " (this server runs as ",
        ::geteuid(), ")"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<BulkServer>> BulkServer::Start(Options options) {
  const std::string host = StripBrackets(options.bind_host);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const int gai =
      ::getaddrinfo(host.empty() ? nullptr : host.c_str(), "0", &hints, &found);
  if (gai != 0) {
    return absl::UnavailableError(absl::StrCat("bulk server: cannot resolve '",
                                               options.bind_host,
                                               "': ", ::gai_strerror(gai)));
  }
  ScopedFd listen_fd;
  std::string last_error = "no address";
  for (addrinfo* ai = found; ai != nullptr && !listen_fd.valid();
       ai = ai->ai_next) {
    ScopedFd fd(::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, 0));
    if (!fd.valid()) {
      last_error = ErrnoText(errno);
      continue;
    }
    if (::bind(fd.get(), ai->ai_addr, ai->ai_addrlen) != 0 ||
        ::listen(fd.get(), 128) != 0) {
      last_error = ErrnoText(errno);
      continue;
    }
    listen_fd = std::move(fd);
  }
  ::freeaddrinfo(found);
  if (!listen_fd.valid()) {
    return absl::UnavailableError(
        absl::StrCat("bulk server: cannot listen on '", options.bind_host,
                     "': ", last_error));
  }
  sockaddr_storage bound{};
  socklen_t len = sizeof(bound);
  ::getsockname(listen_fd.get(), reinterpret_cast<sockaddr*>(&bound), &len);
  bool is_v6 = false;
  const std::string numeric = NumericHost(bound, len, &is_v6);
  const std::string address =
      is_v6 && !numeric.empty()
          ? absl::StrCat("[", numeric, "]:", PortOf(bound))
          : absl::StrCat(numeric, ":", PortOf(bound));
  int wake[2];
  if (::pipe2(wake, O_CLOEXEC | O_NONBLOCK) != 0) {
    const int err = errno;
    return absl::UnavailableError(
        absl::StrCat("bulk server: pipe: ", ErrnoText(err)));
  }
  std::string local_address;
  ScopedFd local_fd;
  if (options.local) local_fd = ListenLocal(address, &local_address);
  std::unique_ptr<BulkServer> server(new BulkServer(
      std::move(options), std::move(listen_fd), std::move(local_fd),
      ScopedFd(wake[0]), ScopedFd(wake[1]), address, local_address));
  server->accept_thread_ = std::thread([s = server.get()] { s->AcceptLoop(); });
  return server;
}

BulkServer::BulkServer(Options options, ScopedFd listen_fd,
                       ScopedFd local_listen_fd, ScopedFd wake_read_fd,
                       ScopedFd wake_write_fd, std::string address,
                       std::string local_address)
    : options_(std::move(options)),
      own_held_(options_.held == nullptr
                    ? std::make_unique<HeldTensors>(
                          HeldTensors::Options{options_.entry_ttl})
                    : nullptr),
      held_(options_.held != nullptr ? options_.held : own_held_.get()),
      listen_fd_(std::move(listen_fd)),
      local_listen_fd_(std::move(local_listen_fd)),
      wake_read_fd_(std::move(wake_read_fd)),
      wake_write_fd_(std::move(wake_write_fd)),
      address_(std::move(address)),
      local_address_(std::move(local_address)) {}

BulkServer::~BulkServer() { Stop(); }

void BulkServer::Stop() {
  absl::MutexLock stop_lock(&stop_mu_);
  if (stopped_) return;
  stopped_ = true;
  {
    absl::MutexLock lock(&conn_mu_);
    stopping_ = true;
  }
  const char byte = 1;
  (void)!::write(wake_write_fd_.get(), &byte, 1);
  if (accept_thread_.joinable()) accept_thread_.join();
  listen_fd_.reset();
  local_listen_fd_.reset();
  std::vector<std::thread> finished;
  {
    absl::MutexLock lock(&conn_mu_);
    // Wakes the threads blocked in recv or send; each closes its own fd.
    for (auto& [id, connection] : connections_) {
      ::shutdown(connection.fd.get(), SHUT_RDWR);
    }
    auto all_ended = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(conn_mu_) {
      return connections_.empty();
    };
    conn_mu_.Await(absl::Condition(&all_ended));
    finished.swap(finished_);
  }
  for (std::thread& t : finished) t.join();
  wake_read_fd_.reset();
  wake_write_fd_.reset();
  // Only the server's own table: a shared one belongs to its owner.
  if (own_held_ != nullptr) own_held_->ReleaseAll();
}

void BulkServer::ReapFinished() {
  std::vector<std::thread> finished;
  {
    absl::MutexLock lock(&conn_mu_);
    finished.swap(finished_);
  }
  for (std::thread& t : finished) t.join();
}

void BulkServer::AcceptLoop() {
  while (true) {
    // A negative descriptor (no local socket) is ignored by poll.
    pollfd fds[3] = {{wake_read_fd_.get(), POLLIN, 0},
                     {listen_fd_.get(), POLLIN, 0},
                     {local_listen_fd_.get(), POLLIN, 0}};
    const int ready = ::poll(fds, 3, 1000);
    ReapFinished();
    if (ready < 0 && errno != EINTR) {
      spdlog::error("bulk server {}: poll: {}", address_, ErrnoText(errno));
      return;
    }
    if (fds[0].revents != 0) return;  // Stop
    if ((fds[1].revents & POLLIN) != 0 && !Accept(listen_fd_.get(), false)) {
      return;
    }
    if ((fds[2].revents & POLLIN) != 0 &&
        !Accept(local_listen_fd_.get(), true)) {
      return;
    }
  }
}

bool BulkServer::Accept(int listen_fd, bool local) {
  ScopedFd fd(::accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC));
  if (!fd.valid()) {
    if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
        errno == ENOMEM) {
      // Out of descriptors: the pending connection stays in the backlog;
      // wait a little instead of spinning on it.
      pollfd wake = {wake_read_fd_.get(), POLLIN, 0};
      ::poll(&wake, 1, 100);
    }
    return true;
  }
  accepted_.fetch_add(1, std::memory_order_relaxed);
  if (!local) SetNoDelay(fd.get());
  SetTimeout(fd.get(), SO_RCVTIMEO, options_.idle_timeout);
  SetTimeout(fd.get(), SO_SNDTIMEO, options_.send_stall_timeout);
  absl::MutexLock lock(&conn_mu_);
  if (stopping_) return false;
  if (static_cast<int>(connections_.size()) >= options_.max_connections) {
    // The client reads this instead of a response and falls back (a TLS
    // client's handshake fails instead).
    if (local || options_.tls == nullptr) {
      SendError(fd.get(), nullptr,
                absl::ResourceExhaustedError(absl::StrCat(
                    "bulk server ", address_, " has ",
                    options_.max_connections, " connections already")));
    }
    return true;
  }
  const int64_t id = next_connection_id_++;
  Connection& connection = connections_[id];
  const int raw = fd.get();
  connection.fd = std::move(fd);
  connection.thread =
      std::thread([this, id, raw, local] { Serve(id, raw, local); });
  return true;
}

void BulkServer::Serve(int64_t id, int fd, bool local) {
  BlockSigpipe();
  SslPtr ssl;
  bool ready = true;
  if (local) {
    if (absl::Status s = CheckPeerUser(fd); !s.ok()) {
      SendError(fd, nullptr,
                absl::Status(s.code(), absl::StrCat("bulk server ",
                                                    local_address_, ": ",
                                                    s.message())));
      ready = false;
    }
  } else if (options_.tls != nullptr) {
    ssl.reset(SSL_new(options_.tls->ctx()));
    ERR_clear_error();
    ready = ssl != nullptr && SSL_set_fd(ssl.get(), fd) == 1 &&
            SSL_accept(ssl.get()) == 1;
    if (!ready) {
      spdlog::debug("bulk server {}: a TLS handshake failed: {}", address_,
                    TlsErrors());
    }
  }
  // A local connection's shared memory, made at its first answers.
  bulk_io::SegmentPair segments;
  while (ready && ServeOne(fd, ssl.get(), local ? &segments : nullptr)) {
  }
  ssl.reset();
  absl::MutexLock lock(&conn_mu_);
  auto it = connections_.find(id);
  DFX_CHECK(it != connections_.end());
  finished_.push_back(std::move(it->second.thread));
  // Closes the descriptor under the lock, so Stop never shuts down a
  // reused one.
  connections_.erase(it);
}

bool BulkServer::ServeOne(int fd, ssl_st* ssl,
                          bulk_io::SegmentPair* local) {
  char frame[kBulkRequestBytes];
  if (!RecvFull(fd, ssl, frame, sizeof(frame))) return false;
  absl::StatusOr<BulkRequest> request =
      ParseBulkRequest(absl::string_view(frame, sizeof(frame)));
  if (!request.ok()) {
    if (absl::IsUnimplemented(request.status())) {
      // Another framing may follow; answer and end the connection.
      SendError(fd, ssl, absl::UnimplementedError(absl::StrCat(
                             "bulk server ", address_, " ",
                             request.status().message())));
    }
    return false;
  }
  const uint64_t ticket = request->ticket;
  const uint64_t offset = request->offset;
  const uint64_t length = request->length;
  std::string token(request->token_length, '\0');
  if (request->token_length > 0 &&
      !RecvFull(fd, ssl, token.data(), request->token_length)) {
    return false;
  }
  if (!options_.auth_token.empty() &&
      !ConstantTimeEquals(token, options_.auth_token)) {
    SendError(fd, ssl, absl::UnauthenticatedError(absl::StrCat(
                      "bulk server ", address_,
                      ": missing or wrong auth token")));
    return false;
  }
  if (local != nullptr && length > bulk_io::kMaxLocalPieceBytes) {
    return SendError(fd, nullptr,
                     absl::InvalidArgumentError(absl::StrCat(
                         "bulk server ", local_address_, ": ", length,
                         " bytes asked for at once on the local socket, over "
                         "its ", bulk_io::kMaxLocalPieceBytes)));
  }
  // A device tensor's bytes come in staged pieces (HeldTensors::Read): the
  // device copies the next piece while this one is sent.
  absl::StatusOr<HeldTensors::HostBytes> piece =
      held_->Read(ticket, offset, length, std::nullopt, kStagedPieceBytes);
  if (!piece.ok()) {
    return SendError(fd, ssl,
                     absl::Status(piece.status().code(),
                                  absl::StrCat("bulk server ", address_, ": ",
                                               piece.status().message())));
  }
  uint8_t header[kBulkResponseHeaderBytes] = {};
  PutU32(header, static_cast<uint32_t>(absl::StatusCode::kOk));
  PutU64(header + 8, length);
  if (local != nullptr) {
    // The range goes through the segment the client read two answers ago
    // (rules in bulk_transport.h). One piece: at most kMaxLocalPieceBytes.
    if (length == 0) return SendFull(fd, nullptr, header, sizeof(header), 0);
    bulk_io::SharedSegment* segment = local->Take();
    absl::Status s = segment->Reserve(length);
    if (s.ok()) std::memcpy(segment->mutable_data(), piece->data(), length);
    if (!s.ok()) {
      return SendError(fd, nullptr,
                       absl::Status(s.code(), absl::StrCat("bulk server ",
                                                           local_address_,
                                                           ": ", s.message())));
    }
    piece = HeldTensors::HostBytes();  // its staging buffer goes back now
    if (!bulk_io::SendWithFd(fd, header, sizeof(header), segment->fd())) {
      return false;
    }
    BulkBytesSent()->Increment(static_cast<int64_t>(length));
    BulkLocalBytesSent()->Increment(static_cast<int64_t>(length));
    held_->MarkServed(ticket, offset, length);
    return true;
  }
  // MSG_MORE: the header leaves with the first data bytes.
  if (!SendFull(fd, ssl, header, sizeof(header), length > 0 ? MSG_MORE : 0)) {
    return false;
  }
  for (uint64_t sent = 0;;) {
    if (!SendFull(fd, ssl, piece->data(), piece->length, 0)) return false;
    sent += piece->length;
    if (sent >= length) break;
    piece = held_->Read(ticket, offset + sent, length - sent, std::nullopt,
                        kStagedPieceBytes);
    if (!piece.ok()) {
      // The header promised the bytes: the connection ends, and the
      // receiver falls back to the chunk calls, which report the error.
      spdlog::warn("bulk server {}: {}", address_, piece.status().message());
      return false;
    }
  }
  BulkBytesSent()->Increment(static_cast<int64_t>(length));
  held_->MarkServed(ticket, offset, length);
  return true;
}

uint64_t BulkServer::Register(int64_t step_id, Tensor tensor,
                              std::function<void()> on_served) {
  return held_->Hold(step_id, /*key=*/"", std::move(tensor),
                     /*served_prefix=*/0, std::move(on_served));
}

void BulkServer::Release(uint64_t ticket) { held_->Release(ticket); }

void BulkServer::ReleaseStep(int64_t step_id) { held_->ReleaseStep(step_id); }

void BulkServer::ReleaseAll() { held_->ReleaseAll(); }

int64_t BulkServer::NumEntries() const { return held_->size(); }

int64_t BulkServer::NumConnectionsAccepted() const {
  return accepted_.load(std::memory_order_relaxed);
}

}  // namespace dfx

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <utility>
#include <vector>

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
  std::unique_ptr<BulkServer> server(
      new BulkServer(std::move(options), std::move(listen_fd),
                     ScopedFd(wake[0]), ScopedFd(wake[1]), address));
  server->accept_thread_ = std::thread([s = server.get()] { s->AcceptLoop(); });
  return server;
}

BulkServer::BulkServer(Options options, ScopedFd listen_fd,
                       ScopedFd wake_read_fd, ScopedFd wake_write_fd,
                       std::string address)
    : options_(std::move(options)),
      own_held_(options_.held == nullptr
                    ? std::make_unique<HeldTensors>(
                          HeldTensors::Options{options_.entry_ttl})
                    : nullptr),
      held_(options_.held != nullptr ? options_.held : own_held_.get()),
      listen_fd_(std::move(listen_fd)),
      wake_read_fd_(std::move(wake_read_fd)),
      wake_write_fd_(std::move(wake_write_fd)),
      address_(std::move(address)) {}

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
    pollfd fds[2] = {{listen_fd_.get(), POLLIN, 0},
                     {wake_read_fd_.get(), POLLIN, 0}};
    const int ready = ::poll(fds, 2, 1000);
    ReapFinished();
    if (ready < 0 && errno != EINTR) {
      spdlog::error("bulk server {}: poll: {}", address_, ErrnoText(errno));
      return;
    }
    if (fds[1].revents != 0) return;  // Stop
    if ((fds[0].revents & POLLIN) == 0) continue;
    ScopedFd fd(::accept4(listen_fd_.get(), nullptr, nullptr, SOCK_CLOEXEC));
    if (!fd.valid()) {
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
          errno == ENOMEM) {
        // Out of descriptors: the pending connection stays in the backlog;
        // wait a little instead of spinning on it.
        pollfd wake = {wake_read_fd_.get(), POLLIN, 0};
        ::poll(&wake, 1, 100);
      }
      continue;
    }
    accepted_.fetch_add(1, std::memory_order_relaxed);
    SetNoDelay(fd.get());
    SetTimeout(fd.get(), SO_RCVTIMEO, options_.idle_timeout);
    SetTimeout(fd.get(), SO_SNDTIMEO, options_.send_stall_timeout);
    absl::MutexLock lock(&conn_mu_);
    if (stopping_) return;
    if (static_cast<int>(connections_.size()) >= options_.max_connections) {
      // The client reads this instead of a response and falls back (a TLS
      // client's handshake fails instead).
      if (options_.tls == nullptr) {
        SendError(fd.get(), nullptr,
                  absl::ResourceExhaustedError(absl::StrCat(
                      "bulk server ", address_, " has ",
                      options_.max_connections, " connections already")));
      }
      continue;
    }
    const int64_t id = next_connection_id_++;
    Connection& connection = connections_[id];
    const int raw = fd.get();
    connection.fd = std::move(fd);
    connection.thread = std::thread([this, id, raw] { Serve(id, raw); });
  }
}

void BulkServer::Serve(int64_t id, int fd) {
  BlockSigpipe();
  SslPtr ssl;
  bool ready = true;
  if (options_.tls != nullptr) {
    ssl.reset(SSL_new(options_.tls->ctx()));
    ERR_clear_error();
    ready = ssl != nullptr && SSL_set_fd(ssl.get(), fd) == 1 &&
            SSL_accept(ssl.get()) == 1;
    if (!ready) {
      spdlog::debug("bulk server {}: a TLS handshake failed: {}", address_,
                    TlsErrors());
    }
  }
  while (ready && ServeOne(fd, ssl.get())) {
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

bool BulkServer::ServeOne(int fd, ssl_st* ssl) {
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
  absl::StatusOr<Tensor> tensor = held_->Lookup(ticket, offset, length);
  if (!tensor.ok()) {
    return SendError(fd, ssl,
                     absl::Status(tensor.status().code(),
                                  absl::StrCat("bulk server ", address_, ": ",
                                               tensor.status().message())));
  }
  uint8_t header[kBulkResponseHeaderBytes] = {};
  PutU32(header, static_cast<uint32_t>(absl::StatusCode::kOk));
  PutU64(header + 8, length);
  // MSG_MORE: the header leaves with the first data bytes.
  if (!SendFull(fd, ssl, header, sizeof(header), length > 0 ? MSG_MORE : 0)) {
    return false;
  }
  const char* data = static_cast<const char*>(tensor->raw_data()) + offset;
  if (!SendFull(fd, ssl, data, length, 0)) return false;
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

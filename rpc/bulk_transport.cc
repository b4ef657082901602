#include "rpc/bulk_transport.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "base/logging.h"
#include "base/status_macros.h"
#include "graph/types.h"
#include "openssl/err.h"
#include "openssl/pem.h"
#include "openssl/ssl.h"
#include "openssl/x509v3.h"
#include "rpc/security.h"

namespace dfx {
namespace {

constexpr char kMagic[4] = {'D', 'F', 'X', 'B'};

// How often a waiting transfer looks at its cancellation and deadline.
constexpr absl::Duration kPollSlice = absl::Milliseconds(100);

// Marks the errors of fetches that never reached the server.
constexpr char kConnectErrorPayload[] = "dfx.bulk/connect";

// How often the server's table is swept for expired entries.
constexpr absl::Duration kSweepInterval = absl::Seconds(10);

void PutU32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
void PutU64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
uint32_t GetU32(const uint8_t* p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(p[i]) << (8 * i);
  return v;
}
uint64_t GetU64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return v;
}

std::string ErrnoText(int err) { return std::strerror(err); }

// "[::1]" -> "::1"; anything else unchanged.
std::string StripBrackets(absl::string_view host) {
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  return std::string(host);
}

// Splits "host:port" / "[v6]:port" / ":port"; false without a port.
bool SplitHostPort(absl::string_view address, std::string* host,
                   std::string* port) {
  const size_t colon = address.rfind(':');
  if (colon == absl::string_view::npos || colon + 1 == address.size()) {
    return false;
  }
  *host = StripBrackets(address.substr(0, colon));
  *port = std::string(address.substr(colon + 1));
  return true;
}

// The numeric host of `addr`; empty for a wildcard address.
std::string NumericHost(const sockaddr_storage& addr, socklen_t len,
                        bool* is_v6) {
  *is_v6 = addr.ss_family == AF_INET6;
  if (addr.ss_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(&addr);
    if (in->sin_addr.s_addr == htonl(INADDR_ANY)) return "";
  } else if (addr.ss_family == AF_INET6) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(&addr);
    if (IN6_IS_ADDR_UNSPECIFIED(&in6->sin6_addr)) return "";
  }
  char host[NI_MAXHOST];
  if (::getnameinfo(reinterpret_cast<const sockaddr*>(&addr), len, host,
                    sizeof(host), nullptr, 0, NI_NUMERICHOST) != 0) {
    return "";
  }
  return host;
}

int PortOf(const sockaddr_storage& addr) {
  if (addr.ss_family == AF_INET) {
    return ntohs(reinterpret_cast<const sockaddr_in*>(&addr)->sin_port);
  }
  return ntohs(reinterpret_cast<const sockaddr_in6*>(&addr)->sin6_port);
}

void SetNoDelay(int fd) {
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

void SetTimeout(int fd, int option, absl::Duration d) {
  timeval tv = absl::ToTimeval(std::max(d, absl::Milliseconds(1)));
  ::setsockopt(fd, SOL_SOCKET, option, &tv, sizeof(tv));
}

// Blocking I/O on a server connection (timeouts set with SO_RCVTIMEO /
// SO_SNDTIMEO; Stop wakes it with shutdown()). False on EOF, error or
// timeout.
bool RecvFull(int fd, SSL* ssl, void* buf, size_t n) {
  char* p = static_cast<char*>(buf);
  if (ssl != nullptr) {
    while (n > 0) {
      ERR_clear_error();
      const int got = SSL_read(ssl, p, static_cast<int>(std::min<size_t>(
                                           n, size_t{1} << 30)));
      if (got <= 0) return false;
      p += got;
      n -= static_cast<size_t>(got);
    }
    return true;
  }
  while (n > 0) {
    const ssize_t got = ::recv(fd, p, n, 0);
    if (got > 0) {
      p += got;
      n -= static_cast<size_t>(got);
    } else if (got < 0 && errno == EINTR) {
      continue;
    } else {
      return false;
    }
  }
  return true;
}

bool SendFull(int fd, SSL* ssl, const void* buf, size_t n, int flags) {
  const char* p = static_cast<const char*>(buf);
  if (ssl != nullptr) {
    while (n > 0) {
      ERR_clear_error();
      const int put = SSL_write(ssl, p, static_cast<int>(std::min<size_t>(
                                            n, size_t{1} << 30)));
      if (put <= 0) return false;
      p += put;
      n -= static_cast<size_t>(put);
    }
    return true;
  }
  while (n > 0) {
    const ssize_t put = ::send(fd, p, n, flags | MSG_NOSIGNAL);
    if (put > 0) {
      p += put;
      n -= static_cast<size_t>(put);
    } else if (put < 0 && errno == EINTR) {
      continue;
    } else {
      return false;
    }
  }
  return true;
}

// Sends a response header with an error message; false if it could not.
bool SendError(int fd, SSL* ssl, const absl::Status& status) {
  absl::string_view message = status.message();
  if (message.size() > kMaxBulkErrorBytes) {
    message = message.substr(0, kMaxBulkErrorBytes);
  }
  uint8_t header[kBulkResponseHeaderBytes] = {};
  PutU32(header, static_cast<uint32_t>(status.code()));
  PutU64(header + 8, message.size());
  std::string bytes(reinterpret_cast<const char*>(header), sizeof(header));
  bytes.append(message.data(), message.size());
  return SendFull(fd, ssl, bytes.data(), bytes.size(), 0);
}

// OpenSSL writes with write(2), which raises SIGPIPE on a connection the
// peer closed: the bulk plane's own threads block it, so the write fails
// with EPIPE instead (a pending SIGPIPE dies with the thread).
void BlockSigpipe() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

// OpenSSL's errors of this thread, for a message.
std::string TlsErrors() {
  std::string text;
  while (const unsigned long e = ERR_get_error()) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof(buf));
    absl::StrAppend(&text, text.empty() ? "" : "; ", buf);
  }
  return text.empty() ? "unknown TLS error" : text;
}

absl::Status UseCertAndKey(SSL_CTX* ctx, const std::string& cert_pem,
                           const std::string& key_pem) {
  BIO* bio = BIO_new_mem_buf(cert_pem.data(), static_cast<int>(cert_pem.size()));
  X509* leaf = PEM_read_bio_X509_AUX(bio, nullptr, nullptr, nullptr);
  if (leaf == nullptr || SSL_CTX_use_certificate(ctx, leaf) != 1) {
    X509_free(leaf);
    BIO_free(bio);
    return absl::InvalidArgumentError(
        absl::StrCat("bulk TLS: the certificate does not load: ", TlsErrors()));
  }
  X509_free(leaf);
  while (X509* extra = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr)) {
    SSL_CTX_add0_chain_cert(ctx, extra);  // takes it
  }
  ERR_clear_error();  // the end of the chain
  BIO_free(bio);
  bio = BIO_new_mem_buf(key_pem.data(), static_cast<int>(key_pem.size()));
  EVP_PKEY* key = PEM_read_bio_PrivateKey(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  const bool used = key != nullptr && SSL_CTX_use_PrivateKey(ctx, key) == 1 &&
                    SSL_CTX_check_private_key(ctx) == 1;
  EVP_PKEY_free(key);
  if (!used) {
    return absl::InvalidArgumentError(absl::StrCat(
        "bulk TLS: the key does not load or does not match the certificate: ",
        TlsErrors()));
  }
  return absl::OkStatus();
}

absl::Status TrustCa(SSL_CTX* ctx, const std::string& ca_pem) {
  if (ca_pem.empty()) {
    SSL_CTX_set_default_verify_paths(ctx);
    return absl::OkStatus();
  }
  X509_STORE* store = SSL_CTX_get_cert_store(ctx);
  BIO* bio = BIO_new_mem_buf(ca_pem.data(), static_cast<int>(ca_pem.size()));
  int added = 0;
  while (X509* ca = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr)) {
    if (X509_STORE_add_cert(store, ca) == 1) ++added;
    X509_free(ca);
  }
  ERR_clear_error();
  BIO_free(bio);
  if (added == 0) {
    return absl::InvalidArgumentError(
        "bulk TLS: the CA holds no certificate that loads");
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<BulkRequest> ParseBulkRequest(absl::string_view frame) {
  if (frame.size() != kBulkRequestBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("a bulk request of ", frame.size(), " bytes, not ",
                     kBulkRequestBytes));
  }
  const auto* p = reinterpret_cast<const uint8_t*>(frame.data());
  if (std::memcmp(p, kMagic, sizeof(kMagic)) != 0) {
    return absl::InvalidArgumentError("a bulk request without the magic DFXB");
  }
  BulkRequest request;
  request.version = GetU32(p + 4);
  if (request.version != kBulkProtocolVersion) {
    return absl::UnimplementedError(
        absl::StrCat("speaks version ", kBulkProtocolVersion, ", not ",
                     request.version));
  }
  request.ticket = GetU64(p + 8);
  request.offset = GetU64(p + 16);
  request.length = GetU64(p + 24);
  request.token_length = GetU32(p + 32);
  if (request.token_length > kMaxBulkTokenBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("a bulk request with a token of ", request.token_length,
                     " bytes, over the most of ", kMaxBulkTokenBytes));
  }
  return request;
}

absl::StatusOr<BulkResponseHeader> ParseBulkResponseHeader(
    absl::string_view header) {
  if (header.size() != kBulkResponseHeaderBytes) {
    return absl::InternalError(
        absl::StrCat("a bulk response header of ", header.size(),
                     " bytes, not ", kBulkResponseHeaderBytes));
  }
  const auto* p = reinterpret_cast<const uint8_t*>(header.data());
  const uint32_t code = GetU32(p);
  BulkResponseHeader parsed;
  parsed.length = GetU64(p + 8);
  if (code != static_cast<uint32_t>(absl::StatusCode::kOk) &&
      (code > static_cast<uint32_t>(absl::StatusCode::kUnauthenticated) ||
       parsed.length > kMaxBulkErrorBytes)) {
    return absl::InternalError(
        absl::StrCat("a malformed error response (code ", code, ", ",
                     parsed.length, " bytes)"));
  }
  parsed.code = static_cast<absl::StatusCode>(code);
  return parsed;
}

// ---------------------------------------------------------------------------
// BulkTls

absl::StatusOr<std::shared_ptr<const BulkTls>> BulkTls::NewServer(
    const Config& config) {
  SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
  if (ctx == nullptr) return absl::InternalError(TlsErrors());
  std::shared_ptr<const BulkTls> tls(new BulkTls(ctx));
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  // No session tickets: a pooled client connection must hold no bytes
  // that no request asked for.
  SSL_CTX_set_num_tickets(ctx, 0);
  SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
  DFX_RETURN_IF_ERROR(UseCertAndKey(ctx, config.cert_pem, config.key_pem));
  if (config.client_auth > 0) {
    DFX_RETURN_IF_ERROR(TrustCa(ctx, config.ca_pem));
    SSL_CTX_set_verify(ctx,
                       config.client_auth >= 2
                           ? SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT
                           : SSL_VERIFY_PEER,
                       nullptr);
  }
  return tls;
}

absl::StatusOr<std::shared_ptr<const BulkTls>> BulkTls::NewClient(
    const Config& config) {
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  if (ctx == nullptr) return absl::InternalError(TlsErrors());
  std::shared_ptr<const BulkTls> tls(new BulkTls(ctx));
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  DFX_RETURN_IF_ERROR(TrustCa(ctx, config.ca_pem));
  SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
  if (!config.cert_pem.empty()) {
    DFX_RETURN_IF_ERROR(UseCertAndKey(ctx, config.cert_pem, config.key_pem));
  }
  return tls;
}

BulkTls::~BulkTls() { SSL_CTX_free(ctx_); }

// ---------------------------------------------------------------------------
// BulkServer

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
  int listen_fd = -1;
  std::string last_error = "no address";
  for (addrinfo* ai = found; ai != nullptr && listen_fd < 0; ai = ai->ai_next) {
    const int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, 0);
    if (fd < 0) {
      last_error = ErrnoText(errno);
      continue;
    }
    if (::bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 ||
        ::listen(fd, 128) != 0) {
      last_error = ErrnoText(errno);
      ::close(fd);
      continue;
    }
    listen_fd = fd;
  }
  ::freeaddrinfo(found);
  if (listen_fd < 0) {
    return absl::UnavailableError(
        absl::StrCat("bulk server: cannot listen on '", options.bind_host,
                     "': ", last_error));
  }
  sockaddr_storage bound{};
  socklen_t len = sizeof(bound);
  ::getsockname(listen_fd, reinterpret_cast<sockaddr*>(&bound), &len);
  bool is_v6 = false;
  const std::string numeric = NumericHost(bound, len, &is_v6);
  const std::string address =
      is_v6 && !numeric.empty()
          ? absl::StrCat("[", numeric, "]:", PortOf(bound))
          : absl::StrCat(numeric, ":", PortOf(bound));
  int wake[2];
  if (::pipe2(wake, O_CLOEXEC | O_NONBLOCK) != 0) {
    const int err = errno;
    ::close(listen_fd);
    return absl::UnavailableError(
        absl::StrCat("bulk server: pipe: ", ErrnoText(err)));
  }
  std::unique_ptr<BulkServer> server(
      new BulkServer(std::move(options), listen_fd, wake[0], wake[1], address));
  server->accept_thread_ = std::thread([s = server.get()] { s->AcceptLoop(); });
  return server;
}

BulkServer::BulkServer(Options options, int listen_fd, int wake_read_fd,
                       int wake_write_fd, std::string address)
    : options_(std::move(options)),
      listen_fd_(listen_fd),
      wake_read_fd_(wake_read_fd),
      wake_write_fd_(wake_write_fd),
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
  (void)!::write(wake_write_fd_, &byte, 1);
  if (accept_thread_.joinable()) accept_thread_.join();
  ::close(listen_fd_);
  std::vector<std::thread> finished;
  {
    absl::MutexLock lock(&conn_mu_);
    // Wakes the threads blocked in recv or send; each closes its own fd.
    for (auto& [id, connection] : connections_) {
      ::shutdown(connection.fd, SHUT_RDWR);
    }
    auto all_ended = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(conn_mu_) {
      return connections_.empty();
    };
    conn_mu_.Await(absl::Condition(&all_ended));
    finished.swap(finished_);
  }
  for (std::thread& t : finished) t.join();
  ::close(wake_read_fd_);
  ::close(wake_write_fd_);
  ReleaseAll();
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
    pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {wake_read_fd_, POLLIN, 0}};
    const int ready = ::poll(fds, 2, 1000);
    ReapFinished();
    if (ready < 0 && errno != EINTR) {
      spdlog::error("bulk server {}: poll: {}", address_, ErrnoText(errno));
      return;
    }
    if (fds[1].revents != 0) return;  // Stop
    if ((fds[0].revents & POLLIN) == 0) continue;
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
          errno == ENOMEM) {
        // Out of descriptors: the pending connection stays in the backlog;
        // wait a little instead of spinning on it.
        pollfd wake = {wake_read_fd_, POLLIN, 0};
        ::poll(&wake, 1, 100);
      }
      continue;
    }
    accepted_.fetch_add(1, std::memory_order_relaxed);
    SetNoDelay(fd);
    SetTimeout(fd, SO_RCVTIMEO, options_.idle_timeout);
    SetTimeout(fd, SO_SNDTIMEO, options_.send_stall_timeout);
    absl::MutexLock lock(&conn_mu_);
    if (stopping_) {
      ::close(fd);
      return;
    }
    if (static_cast<int>(connections_.size()) >= options_.max_connections) {
      // The client reads this instead of a response and falls back (a TLS
      // client's handshake fails instead).
      if (options_.tls == nullptr) {
        SendError(fd, nullptr,
                  absl::ResourceExhaustedError(absl::StrCat(
                      "bulk server ", address_, " has ",
                      options_.max_connections, " connections already")));
      }
      ::close(fd);
      continue;
    }
    const int64_t id = next_connection_id_++;
    Connection& connection = connections_[id];
    connection.fd = fd;
    connection.thread = std::thread([this, id, fd] { Serve(id, fd); });
  }
}

void BulkServer::Serve(int64_t id, int fd) {
  BlockSigpipe();
  SSL* ssl = nullptr;
  bool ready = true;
  if (options_.tls != nullptr) {
    ssl = SSL_new(options_.tls->ctx());
    ERR_clear_error();
    ready = ssl != nullptr && SSL_set_fd(ssl, fd) == 1 && SSL_accept(ssl) == 1;
    if (!ready) {
      spdlog::debug("bulk server {}: a TLS handshake failed: {}", address_,
                    TlsErrors());
    }
  }
  while (ready && ServeOne(fd, ssl)) {
  }
  if (ssl != nullptr) SSL_free(ssl);
  absl::MutexLock lock(&conn_mu_);
  auto it = connections_.find(id);
  DFX_CHECK(it != connections_.end());
  // Closed under the lock, so Stop never shuts down a reused descriptor.
  ::close(fd);
  finished_.push_back(std::move(it->second.thread));
  connections_.erase(it);
}

bool BulkServer::ServeOne(int fd, SSL* ssl) {
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
  absl::StatusOr<Tensor> tensor = Lookup(ticket, offset, length);
  if (!tensor.ok()) return SendError(fd, ssl, tensor.status());
  uint8_t header[kBulkResponseHeaderBytes] = {};
  PutU32(header, static_cast<uint32_t>(absl::StatusCode::kOk));
  PutU64(header + 8, length);
  // MSG_MORE: the header leaves with the first data bytes.
  if (!SendFull(fd, ssl, header, sizeof(header), length > 0 ? MSG_MORE : 0)) {
    return false;
  }
  const char* data = static_cast<const char*>(tensor->raw_data()) + offset;
  if (!SendFull(fd, ssl, data, length, 0)) return false;
  MarkServed(ticket, offset, length);
  return true;
}

uint64_t BulkServer::Register(int64_t step_id, Tensor tensor,
                              std::function<void()> on_served) {
  DFX_CHECK(tensor.IsInitialized() && DataTypeCanMemcpy(tensor.dtype()));
  absl::MutexLock lock(&table_mu_);
  const absl::Time now = absl::Now();
  if (now >= next_sweep_) SweepLocked(now);
  uint64_t ticket = 0;
  while (ticket == 0 || entries_.contains(ticket)) {
    ticket = absl::Uniform<uint64_t>(random_);
  }
  Entry& entry = entries_[ticket];
  entry.step_id = step_id;
  entry.total = tensor.TotalBytes();
  entry.tensor = std::move(tensor);
  entry.expires = now + options_.entry_ttl;
  entry.on_served = std::move(on_served);
  return ticket;
}

absl::StatusOr<Tensor> BulkServer::Lookup(uint64_t ticket, uint64_t offset,
                                          uint64_t length) {
  Tensor expired;  // freed outside the lock
  absl::MutexLock lock(&table_mu_);
  const absl::Time now = absl::Now();
  if (now >= next_sweep_) SweepLocked(now);
  auto it = entries_.find(ticket);
  if (it != entries_.end() && it->second.expires <= now) {
    expired = std::move(it->second.tensor);
    entries_.erase(it);
    it = entries_.end();
  }
  if (it == entries_.end()) {
    return absl::NotFoundError(absl::StrCat(
        "bulk server ", address_, " holds no tensor with ticket ", ticket,
        " (every byte was served, its step was cleaned up, or it was not "
        "asked for within ",
        absl::FormatDuration(options_.entry_ttl), ")"));
  }
  Entry& entry = it->second;
  if (offset > entry.total || length > entry.total - offset) {
    return absl::OutOfRangeError(
        absl::StrCat("bulk server ", address_, ": bytes [", offset, ", ",
                     offset, " + ", length, ") are not inside the ",
                     entry.total, " bytes of the tensor with ticket ", ticket));
  }
  entry.expires = now + options_.entry_ttl;
  return entry.tensor;
}

void BulkServer::MarkServed(uint64_t ticket, uint64_t offset, uint64_t length) {
  if (length == 0) return;
  Tensor done;  // freed outside the lock
  std::function<void()> on_served;
  {
    absl::MutexLock lock(&table_mu_);
    auto it = entries_.find(ticket);
    if (it == entries_.end()) return;
    Entry& entry = it->second;
    if (!entry.ranges.insert({offset, length}).second) return;
    entry.served += length;
    if (entry.served < entry.total) return;
    done = std::move(entry.tensor);
    on_served = std::move(entry.on_served);
    entries_.erase(it);
  }
  if (on_served) on_served();
}

void BulkServer::SweepLocked(absl::Time now) {
  next_sweep_ = now + kSweepInterval;
  absl::erase_if(
      entries_, [now](const auto& item) { return item.second.expires <= now; });
}

void BulkServer::Release(uint64_t ticket) {
  Tensor released;
  absl::MutexLock lock(&table_mu_);
  auto it = entries_.find(ticket);
  if (it == entries_.end()) return;
  released = std::move(it->second.tensor);
  entries_.erase(it);
}

void BulkServer::ReleaseStep(int64_t step_id) {
  std::vector<Tensor> released;
  absl::MutexLock lock(&table_mu_);
  absl::erase_if(entries_, [&](auto& item) {
    if (item.second.step_id != step_id) return false;
    released.push_back(std::move(item.second.tensor));
    return true;
  });
}

void BulkServer::ReleaseAll() {
  absl::flat_hash_map<uint64_t, Entry> released;
  absl::MutexLock lock(&table_mu_);
  released.swap(entries_);
}

int64_t BulkServer::NumEntries() const {
  absl::MutexLock lock(&table_mu_);
  return static_cast<int64_t>(entries_.size());
}

int64_t BulkServer::NumConnectionsAccepted() const {
  return accepted_.load(std::memory_order_relaxed);
}

// ---------------------------------------------------------------------------
// BulkClient

bool IsBulkConnectError(const absl::Status& status) {
  return status.GetPayload(kConnectErrorPayload).has_value();
}

namespace {

absl::Status ConnectError(std::string message) {
  absl::Status status = absl::UnavailableError(std::move(message));
  status.SetPayload(kConnectErrorPayload, absl::Cord("1"));
  return status;
}

// A client's connection: the socket (non-blocking), and its TLS session
// when the fetch asked for TLS.
struct ClientConn {
  int fd = -1;
  SSL* ssl = nullptr;
};

void CloseConn(const ClientConn& conn) {
  if (conn.ssl != nullptr) SSL_free(conn.ssl);  // leaves the socket open
  if (conn.fd >= 0) ::close(conn.fd);
}

// Where idle connections are pooled: plain ones by address, TLS ones by
// address and context (a connection's TLS settings are its context's).
std::string PoolKey(const BulkClient::Fetch& f) {
  if (f.tls == nullptr) return f.address;
  return absl::StrCat("tls/", reinterpret_cast<uintptr_t>(f.tls.get()), "/",
                      f.tls_host, "/", f.address);
}

}  // namespace

struct BulkClient::State {
  struct Task {
    Fetch fetch;
    std::function<void(const absl::Status&)> done;
  };

  explicit State(Options o) : options(o) {}
  ~State() {
    for (auto& [address, conns] : idle) {
      for (const ClientConn& conn : conns) CloseConn(conn);
    }
  }

  static void Loop(const std::shared_ptr<State>& state) {
    BlockSigpipe();
    while (true) {
      Task task;
      {
        absl::MutexLock lock(&state->mu);
        ++state->idle_threads;
        // (Captures `state` itself: clang 14 cannot see an init-capture
        // in the annotation.)
        auto ready = [&state]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(state->mu) {
          return state->closing || !state->queue.empty();
        };
        state->mu.Await(absl::Condition(&ready));
        --state->idle_threads;
        if (state->closing) return;
        task = std::move(state->queue.front());
        state->queue.pop_front();
      }
      absl::Status status = state->Run(task.fetch);
      task.done(status);
    }
  }

  // One fetch, on a pooled connection or a new one; a pooled connection
  // that turns out to be closed before any response byte came is retried
  // once on a new one.
  absl::Status Run(const Fetch& f) {
    const std::string what = absl::StrCat(
        "bulk fetch of bytes [", f.offset, ", ", f.offset + f.length,
        ") of ticket ", f.ticket, " from ", f.address);
    DFX_RETURN_IF_ERROR(Check(f, what));
    const std::string key = PoolKey(f);
    for (int attempt = 0;; ++attempt) {
      ClientConn conn;
      if (attempt == 0) conn = TakeIdle(key);
      const bool pooled = conn.fd >= 0;
      if (!pooled) {
        absl::StatusOr<ClientConn> connected = Connect(f, what);
        if (!connected.ok()) return connected.status();
        conn = *connected;
      }
      bool started = false;
      bool reusable = false;
      absl::Status status = Exchange(conn, f, what, &started, &reusable);
      if (reusable) {
        ReturnIdle(key, conn);
      } else {
        CloseConn(conn);
      }
      if (status.ok() || !pooled || started ||
          status.code() != absl::StatusCode::kUnavailable) {
        return status;
      }
    }
  }

  absl::Status Check(const Fetch& f, absl::string_view what) {
    if (closing_flag.load(std::memory_order_relaxed)) {
      return absl::CancelledError(
          absl::StrCat(what, ": the bulk client is shutting down"));
    }
    if (f.cancel != nullptr && f.cancel->IsCancelled()) {
      return absl::CancelledError(absl::StrCat(what, " was cancelled"));
    }
    if (absl::Now() >= f.deadline) {
      return absl::DeadlineExceededError(
          absl::StrCat(what, ": deadline exceeded"));
    }
    return absl::OkStatus();
  }

  // Waits until `fd` has `events`, looking at the fetch's cancellation and
  // deadline every kPollSlice. False (OK status) once `limit` passed.
  absl::StatusOr<bool> WaitReady(int fd, short events, const Fetch& f,
                                 absl::string_view what, absl::Time limit) {
    while (true) {
      DFX_RETURN_IF_ERROR(Check(f, what));
      const absl::Time now = absl::Now();
      if (now >= limit) return false;
      const absl::Duration wait =
          std::min({kPollSlice, f.deadline - now, limit - now});
      pollfd p = {fd, events, 0};
      const int ready =
          ::poll(&p, 1, static_cast<int>(absl::ToInt64Milliseconds(wait)) + 1);
      if (ready > 0) return true;
      if (ready < 0 && errno != EINTR) {
        return absl::UnavailableError(
            absl::StrCat(what, ": poll: ", ErrnoText(errno)));
      }
    }
  }

  absl::StatusOr<ClientConn> Connect(const Fetch& f, absl::string_view what) {
    const absl::Time limit = absl::Now() + options.connect_timeout;
    DFX_ASSIGN_OR_RETURN(const int fd, ConnectTcp(f, what, limit));
    ClientConn conn;
    conn.fd = fd;
    if (f.tls == nullptr) return conn;
    absl::Status s = Handshake(&conn, f, what, limit);
    if (!s.ok()) {
      CloseConn(conn);
      return s;
    }
    return conn;
  }

  // The TLS handshake on a connected socket, the server's certificate
  // verified against the CA and f.tls_host. A failure is a connect error:
  // the fetch falls back to gRPC, which has TLS of its own.
  absl::Status Handshake(ClientConn* conn, const Fetch& f,
                         absl::string_view what, absl::Time limit) {
    conn->ssl = SSL_new(f.tls->ctx());
    if (conn->ssl == nullptr || SSL_set_fd(conn->ssl, conn->fd) != 1) {
      return ConnectError(absl::StrCat(what, ": TLS: ", TlsErrors()));
    }
    const std::string host = StripBrackets(f.tls_host);
    in6_addr ip;
    const bool is_ip = ::inet_pton(AF_INET, host.c_str(), &ip) == 1 ||
                       ::inet_pton(AF_INET6, host.c_str(), &ip) == 1;
    X509_VERIFY_PARAM* param = SSL_get0_param(conn->ssl);
    if (host.empty() ||
        (is_ip ? X509_VERIFY_PARAM_set1_ip_asc(param, host.c_str())
               : X509_VERIFY_PARAM_set1_host(param, host.c_str(), 0)) != 1) {
      return ConnectError(
          absl::StrCat(what, ": TLS: no host to verify the server as"));
    }
    if (!is_ip) SSL_set_tlsext_host_name(conn->ssl, host.c_str());
    while (true) {
      ERR_clear_error();
      const int r = SSL_connect(conn->ssl);
      if (r == 1) return absl::OkStatus();
      const int e = SSL_get_error(conn->ssl, r);
      if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
        DFX_ASSIGN_OR_RETURN(
            const bool ready,
            WaitReady(conn->fd, e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT,
                      f, what, limit));
        if (!ready) {
          return ConnectError(absl::StrCat(
              what, ": no TLS handshake within ",
              absl::FormatDuration(options.connect_timeout)));
        }
        continue;
      }
      const long verify = SSL_get_verify_result(conn->ssl);
      return ConnectError(absl::StrCat(
          what, ": TLS handshake failed: ",
          verify != X509_V_OK ? X509_verify_cert_error_string(verify)
                              : TlsErrors()));
    }
  }

  absl::StatusOr<int> ConnectTcp(const Fetch& f, absl::string_view what,
                                 absl::Time limit) {
    std::string host, port;
    if (!SplitHostPort(f.address, &host, &port) || host.empty()) {
      return ConnectError(absl::StrCat(what, ": bad address"));
    }
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICSERV;
    addrinfo* found = nullptr;
    const int gai = ::getaddrinfo(host.c_str(), port.c_str(), &hints, &found);
    if (gai != 0) {
      return ConnectError(absl::StrCat(what, ": cannot resolve '", host,
                                       "': ", ::gai_strerror(gai)));
    }
    std::string last_error = "no address";
    absl::StatusOr<int> result = -1;
    for (addrinfo* ai = found; ai != nullptr; ai = ai->ai_next) {
      const int fd = ::socket(
          ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
      if (fd < 0) {
        last_error = ErrnoText(errno);
        continue;
      }
      if (::connect(fd, ai->ai_addr, ai->ai_addrlen) != 0 &&
          errno != EINPROGRESS) {
        last_error = ErrnoText(errno);
        ::close(fd);
        continue;
      }
      absl::StatusOr<bool> ready = WaitReady(fd, POLLOUT, f, what, limit);
      if (!ready.ok()) {
        ::close(fd);
        result = ready.status();
        break;
      }
      if (!*ready) {
        last_error =
            absl::StrCat("no connection within ",
                         absl::FormatDuration(options.connect_timeout));
        ::close(fd);
        break;
      }
      int err = 0;
      socklen_t len = sizeof(err);
      ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
      if (err != 0) {
        last_error = ErrnoText(err);
        ::close(fd);
        continue;
      }
      SetNoDelay(fd);
      result = fd;
      break;
    }
    ::freeaddrinfo(found);
    if (result.ok() && *result < 0) {
      return ConnectError(absl::StrCat(what, ": cannot connect: ", last_error));
    }
    return result;
  }

  // Waits for what a TLS call wants after `r`; an error for any other
  // outcome than "try again".
  absl::Status TlsWait(const ClientConn& conn, int r, const Fetch& f,
                       absl::string_view what, absl::string_view op) {
    const int e = SSL_get_error(conn.ssl, r);
    if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
      return WaitReady(conn.fd, e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT,
                       f, what, absl::InfiniteFuture())
          .status();
    }
    if (e == SSL_ERROR_ZERO_RETURN || (e == SSL_ERROR_SYSCALL && r == 0)) {
      return absl::UnavailableError(
          absl::StrCat(what, ": the server closed the TLS connection"));
    }
    return absl::UnavailableError(
        absl::StrCat(what, ": TLS ", op, ": ", TlsErrors()));
  }

  absl::Status SendAll(const ClientConn& conn, const uint8_t* p, size_t n,
                       const Fetch& f, absl::string_view what) {
    const int fd = conn.fd;
    while (conn.ssl != nullptr && n > 0) {
      ERR_clear_error();
      const int put = SSL_write(
          conn.ssl, p, static_cast<int>(std::min<size_t>(n, size_t{1} << 30)));
      if (put > 0) {
        p += put;
        n -= static_cast<size_t>(put);
        continue;
      }
      DFX_RETURN_IF_ERROR(TlsWait(conn, put, f, what, "write"));
    }
    while (n > 0) {
      const ssize_t put = ::send(fd, p, n, MSG_NOSIGNAL);
      if (put > 0) {
        p += put;
        n -= static_cast<size_t>(put);
        continue;
      }
      if (put < 0 && errno == EINTR) continue;
      if (put < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        DFX_RETURN_IF_ERROR(
            WaitReady(fd, POLLOUT, f, what, absl::InfiniteFuture()).status());
        continue;
      }
      return absl::UnavailableError(
          absl::StrCat(what, ": send: ", ErrnoText(errno)));
    }
    return absl::OkStatus();
  }

  // Reads exactly `n` bytes; `*got_any` is set once a byte arrived.
  absl::Status RecvAll(const ClientConn& conn, void* buf, size_t n,
                       const Fetch& f, absl::string_view what, bool* got_any) {
    const int fd = conn.fd;
    char* p = static_cast<char*>(buf);
    const size_t total = n;
    while (conn.ssl != nullptr && n > 0) {
      DFX_RETURN_IF_ERROR(Check(f, what));
      ERR_clear_error();
      const int got = SSL_read(
          conn.ssl, p, static_cast<int>(std::min<size_t>(n, size_t{1} << 30)));
      if (got > 0) {
        *got_any = true;
        p += got;
        n -= static_cast<size_t>(got);
        continue;
      }
      absl::Status s = TlsWait(conn, got, f, what, "read");
      if (!s.ok()) {
        return absl::Status(s.code(), absl::StrCat(s.message(), " after ",
                                                   total - n, " of ", total,
                                                   " bytes"));
      }
    }
    while (n > 0) {
      // A transfer that never waits still notices a cancellation or its
      // deadline.
      DFX_RETURN_IF_ERROR(Check(f, what));
      const ssize_t got = ::recv(fd, p, n, 0);
      if (got > 0) {
        *got_any = true;
        p += got;
        n -= static_cast<size_t>(got);
        continue;
      }
      if (got == 0) {
        return absl::UnavailableError(
            absl::StrCat(what, ": the server closed the connection after ",
                         total - n, " of ", total, " bytes"));
      }
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) {
        DFX_RETURN_IF_ERROR(
            WaitReady(fd, POLLIN, f, what, absl::InfiniteFuture()).status());
        continue;
      }
      return absl::UnavailableError(
          absl::StrCat(what, ": recv: ", ErrnoText(errno)));
    }
    return absl::OkStatus();
  }

  // Request and response on a connected socket. `reusable`: the connection
  // is at a message boundary and may go back to the pool.
  absl::Status Exchange(const ClientConn& conn, const Fetch& f,
                        absl::string_view what, bool* started,
                        bool* reusable) {
    if (f.auth_token.size() > kMaxBulkTokenBytes) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, ": the auth token is longer than ",
                       kMaxBulkTokenBytes, " bytes"));
    }
    std::vector<uint8_t> request(kBulkRequestBytes + f.auth_token.size());
    std::memcpy(request.data(), kMagic, sizeof(kMagic));
    PutU32(request.data() + 4, kBulkProtocolVersion);
    PutU64(request.data() + 8, f.ticket);
    PutU64(request.data() + 16, f.offset);
    PutU64(request.data() + 24, f.length);
    PutU32(request.data() + 32, static_cast<uint32_t>(f.auth_token.size()));
    PutU32(request.data() + 36, 0);
    std::memcpy(request.data() + kBulkRequestBytes, f.auth_token.data(),
                f.auth_token.size());
    DFX_RETURN_IF_ERROR(
        SendAll(conn, request.data(), request.size(), f, what));
    char frame[kBulkResponseHeaderBytes];
    DFX_RETURN_IF_ERROR(RecvAll(conn, frame, sizeof(frame), f, what, started));
    absl::StatusOr<BulkResponseHeader> header =
        ParseBulkResponseHeader(absl::string_view(frame, sizeof(frame)));
    if (!header.ok()) {
      return absl::InternalError(
          absl::StrCat(what, ": ", header.status().message()));
    }
    const uint64_t length = header->length;
    if (header->code != absl::StatusCode::kOk) {
      std::string message(length, '\0');
      DFX_RETURN_IF_ERROR(
          RecvAll(conn, message.data(), length, f, what, started));
      *reusable = true;
      return absl::Status(header->code, absl::StrCat(what, ": ", message));
    }
    if (length != f.length) {
      return absl::InternalError(
          absl::StrCat(what, ": the server answers with ", length, " bytes"));
    }
    DFX_RETURN_IF_ERROR(RecvAll(conn, f.dst, length, f, what, started));
    *reusable = true;
    return absl::OkStatus();
  }

  ClientConn TakeIdle(const std::string& key) {
    absl::MutexLock lock(&mu);
    auto it = idle.find(key);
    if (it == idle.end()) return ClientConn();
    std::vector<ClientConn>& conns = it->second;
    while (!conns.empty()) {
      const ClientConn conn = conns.back();
      conns.pop_back();
      // Readable or hung up while idle: the server closed it (idle timeout,
      // restart), or it carries bytes no request asked for.
      pollfd p = {conn.fd, POLLIN | POLLRDHUP, 0};
      if (::poll(&p, 1, 0) == 0 &&
          (conn.ssl == nullptr || SSL_pending(conn.ssl) == 0)) {
        return conn;
      }
      CloseConn(conn);
    }
    return ClientConn();
  }

  void ReturnIdle(const std::string& key, const ClientConn& conn) {
    absl::MutexLock lock(&mu);
    std::vector<ClientConn>& conns = idle[key];
    if (closing ||
        static_cast<int>(conns.size()) >= options.max_idle_per_address) {
      CloseConn(conn);
      return;
    }
    conns.push_back(conn);
  }

  const Options options;
  std::atomic<bool> closing_flag{false};
  absl::Mutex mu;
  bool closing ABSL_GUARDED_BY(mu) = false;
  std::deque<Task> queue ABSL_GUARDED_BY(mu);
  std::vector<std::thread> threads ABSL_GUARDED_BY(mu);
  int idle_threads ABSL_GUARDED_BY(mu) = 0;
  // By PoolKey.
  absl::flat_hash_map<std::string, std::vector<ClientConn>> idle
      ABSL_GUARDED_BY(mu);
};

BulkClient::BulkClient(Options options)
    : state_(std::make_shared<State>(options)) {}

BulkClient::~BulkClient() {
  std::deque<State::Task> queued;
  std::vector<std::thread> threads;
  {
    absl::MutexLock lock(&state_->mu);
    state_->closing = true;
    state_->closing_flag.store(true);
    queued.swap(state_->queue);
    threads.swap(state_->threads);
  }
  for (State::Task& task : queued) {
    task.done(absl::CancelledError(absl::StrCat(
        "bulk fetch of ticket ", task.fetch.ticket, " from ",
        task.fetch.address, ": the bulk client is shutting down")));
  }
  for (std::thread& t : threads) {
    // From inside a `done`: that thread ends by itself once `done`
    // returns, holding the state until then.
    if (t.get_id() == std::this_thread::get_id()) {
      t.detach();
    } else {
      t.join();
    }
  }
}

void BulkClient::FetchAsync(Fetch fetch,
                            std::function<void(const absl::Status&)> done) {
  {
    absl::MutexLock lock(&state_->mu);
    if (!state_->closing) {
      state_->queue.push_back(State::Task{std::move(fetch), std::move(done)});
      if (static_cast<int>(state_->queue.size()) > state_->idle_threads &&
          static_cast<int>(state_->threads.size()) <
              std::max(1, state_->options.max_threads)) {
        state_->threads.emplace_back([state = state_] { State::Loop(state); });
      }
      return;
    }
  }
  done(absl::CancelledError(
      absl::StrCat("bulk fetch of ticket ", fetch.ticket, " from ",
                   fetch.address, ": the bulk client is shutting down")));
}

int BulkClient::NumIdleConnections(absl::string_view address) const {
  absl::MutexLock lock(&state_->mu);
  auto it = state_->idle.find(address);
  return it == state_->idle.end() ? 0 : static_cast<int>(it->second.size());
}

}  // namespace dfx

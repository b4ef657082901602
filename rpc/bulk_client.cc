#include <arpa/inet.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "openssl/err.h"
#include "openssl/ssl.h"
#include "openssl/x509v3.h"
#include "rpc/bulk_io.h"
#include "rpc/bulk_transport.h"
#include "rpc/rpc_metrics.h"

namespace dfx {

using bulk_io::BlockSigpipe;
using bulk_io::ErrnoText;
using bulk_io::kMagic;
using bulk_io::PutU32;
using bulk_io::PutU64;
using bulk_io::ScopedFd;
using bulk_io::SetNoDelay;
using bulk_io::SplitHostPort;
using bulk_io::SslPtr;
using bulk_io::StripBrackets;
using bulk_io::TlsErrors;

namespace {

// How often a waiting transfer looks at its cancellation and deadline.
constexpr absl::Duration kPollSlice = absl::Milliseconds(100);

// Marks the errors of fetches that never reached the server.
constexpr char kConnectErrorPayload[] = "dfx.bulk/connect";

}  // namespace

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
// when the fetch asked for TLS or its view of the server's shared memory
// when local; let go when it is destroyed. Move-only.
struct ClientConn {
  ScopedFd fd;
  SslPtr ssl;
  // A local connection's views of the server's two segments.
  bulk_io::SharedSegment view[2];
  int next_view = 0;
};

// Where idle connections are pooled: plain ones by address, TLS ones by
// address and context (a connection's TLS settings are its context's),
// local ones by their socket's name ("@...").
std::string PoolKey(const BulkClient::Fetch& f, bool local) {
  if (local) return f.local_address;
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
  ~State() = default;

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

  // One fetch: over the server's local socket when it has one this process
  // can reach, else (or when that fails) over TCP.
  absl::Status Run(const Fetch& f) {
    const std::string what = absl::StrCat(
        "bulk fetch of bytes [", f.offset, ", ", f.offset + f.length,
        ") of ticket ", f.ticket, " from ", f.address);
    DFX_RETURN_IF_ERROR(Check(f, what));
    if (!f.local_address.empty() && LocalReachable(f.local_address)) {
      absl::Status s = RunOn(f, what, /*local=*/true);
      if (s.ok() || s.code() == absl::StatusCode::kCancelled ||
          s.code() == absl::StatusCode::kDeadlineExceeded) {
        return s;
      }
      // Another host (or network namespace), or another user: never
      // there again. Anything else: TCP this time, whose error (if it
      // fails too) is the one that counts.
      if (IsBulkConnectError(s) ||
          s.code() == absl::StatusCode::kPermissionDenied) {
        MarkLocalUnreachable(f.local_address);
      }
    }
    return RunOn(f, what, /*local=*/false);
  }

  // The fetch on a pooled connection or a new one; a pooled connection
  // that turns out to be closed before any response byte came is retried
  // once on a new one.
  absl::Status RunOn(const Fetch& f, const std::string& what, bool local) {
    const std::string key = PoolKey(f, local);
    for (int attempt = 0;; ++attempt) {
      ClientConn conn;
      if (attempt == 0) conn = TakeIdle(key);
      const bool pooled = conn.fd.valid();
      if (!pooled) {
        absl::StatusOr<ClientConn> connected =
            local ? ConnectLocal(f, what) : Connect(f, what);
        if (!connected.ok()) return connected.status();
        conn = *std::move(connected);
      }
      bool started = false;
      bool reusable = false;
      absl::Status status = Exchange(conn, f, what, local, &started, &reusable);
      if (reusable) ReturnIdle(key, std::move(conn));
      if (status.ok() || !pooled || started ||
          status.code() != absl::StatusCode::kUnavailable) {
        return status;
      }
    }
  }

  bool LocalReachable(const std::string& local_address) {
    absl::MutexLock lock(&mu);
    return !local_unreachable.contains(local_address);
  }

  void MarkLocalUnreachable(const std::string& local_address) {
    absl::MutexLock lock(&mu);
    // Servers' names are random per process: bounded, forgetting the
    // oldest at worst means one more failed connect.
    if (local_unreachable.size() >= 4096) local_unreachable.clear();
    local_unreachable.insert(local_address);
  }

  absl::StatusOr<ClientConn> ConnectLocal(const Fetch& f,
                                          absl::string_view what) {
    sockaddr_storage addr;
    socklen_t len = 0;
    if (!bulk_io::LocalSocketAddress(f.local_address, &addr, &len)) {
      return ConnectError(absl::StrCat(what, ": bad local address '",
                                       f.local_address, "'"));
    }
    ClientConn conn;
    conn.fd.reset(
        ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
    if (!conn.fd.valid() ||
        ::connect(conn.fd.get(), reinterpret_cast<sockaddr*>(&addr), len) !=
            0) {
      // ECONNREFUSED: nobody listens under that name here (another host);
      // EAGAIN: the server's backlog is full.
      return ConnectError(absl::StrCat(what, ": cannot connect to ",
                                       f.local_address, ": ",
                                       ErrnoText(errno)));
    }
    return conn;
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
    ClientConn conn;
    DFX_ASSIGN_OR_RETURN(conn.fd, ConnectTcp(f, what, limit));
    if (f.tls == nullptr) return conn;
    DFX_RETURN_IF_ERROR(Handshake(&conn, f, what, limit));
    return conn;
  }

  // The TLS handshake on a connected socket, the server's certificate
  // verified against the CA and f.tls_host. A failure is a connect error:
  // the fetch falls back to gRPC, which has TLS of its own.
  absl::Status Handshake(ClientConn* conn, const Fetch& f,
                         absl::string_view what, absl::Time limit) {
    conn->ssl.reset(SSL_new(f.tls->ctx()));
    if (conn->ssl == nullptr || SSL_set_fd(conn->ssl.get(), conn->fd.get()) != 1) {
      return ConnectError(absl::StrCat(what, ": TLS: ", TlsErrors()));
    }
    const std::string host = StripBrackets(f.tls_host);
    in6_addr ip;
    const bool is_ip = ::inet_pton(AF_INET, host.c_str(), &ip) == 1 ||
                       ::inet_pton(AF_INET6, host.c_str(), &ip) == 1;
    X509_VERIFY_PARAM* param = SSL_get0_param(conn->ssl.get());
    if (host.empty() ||
        (is_ip ? X509_VERIFY_PARAM_set1_ip_asc(param, host.c_str())
               : X509_VERIFY_PARAM_set1_host(param, host.c_str(), 0)) != 1) {
      return ConnectError(
          absl::StrCat(what, ": TLS: no host to verify the server as"));
    }
    if (!is_ip) SSL_set_tlsext_host_name(conn->ssl.get(), host.c_str());
    while (true) {
      ERR_clear_error();
      const int r = SSL_connect(conn->ssl.get());
      if (r == 1) return absl::OkStatus();
      const int e = SSL_get_error(conn->ssl.get(), r);
      if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
        DFX_ASSIGN_OR_RETURN(
            const bool ready,
            WaitReady(conn->fd.get(), e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT,
                      f, what, limit));
        if (!ready) {
          return ConnectError(absl::StrCat(
              what, ": no TLS handshake within ",
              absl::FormatDuration(options.connect_timeout)));
        }
        continue;
      }
      const long verify = SSL_get_verify_result(conn->ssl.get());
      return ConnectError(absl::StrCat(
          what, ": TLS handshake failed: ",
          verify != X509_V_OK ? X509_verify_cert_error_string(verify)
                              : TlsErrors()));
    }
  }

  absl::StatusOr<ScopedFd> ConnectTcp(const Fetch& f, absl::string_view what,
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
    absl::StatusOr<ScopedFd> result = ScopedFd();
    for (addrinfo* ai = found; ai != nullptr; ai = ai->ai_next) {
      ScopedFd fd(::socket(
          ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
      if (!fd.valid()) {
        last_error = ErrnoText(errno);
        continue;
      }
      if (::connect(fd.get(), ai->ai_addr, ai->ai_addrlen) != 0 &&
          errno != EINPROGRESS) {
        last_error = ErrnoText(errno);
        continue;
      }
      absl::StatusOr<bool> ready =
          WaitReady(fd.get(), POLLOUT, f, what, limit);
      if (!ready.ok()) {
        result = ready.status();
        break;
      }
      if (!*ready) {
        last_error =
            absl::StrCat("no connection within ",
                         absl::FormatDuration(options.connect_timeout));
        break;
      }
      int err = 0;
      socklen_t len = sizeof(err);
      ::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &err, &len);
      if (err != 0) {
        last_error = ErrnoText(err);
        continue;
      }
      SetNoDelay(fd.get());
      result = std::move(fd);
      break;
    }
    ::freeaddrinfo(found);
    if (result.ok() && !result->valid()) {
      return ConnectError(absl::StrCat(what, ": cannot connect: ", last_error));
    }
    return result;
  }

  // Waits for what a TLS call wants after `r`; an error for any other
  // outcome than "try again".
  absl::Status TlsWait(const ClientConn& conn, int r, const Fetch& f,
                       absl::string_view what, absl::string_view op) {
    const int e = SSL_get_error(conn.ssl.get(), r);
    if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
      return WaitReady(conn.fd.get(), e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT,
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
    const int fd = conn.fd.get();
    while (conn.ssl != nullptr && n > 0) {
      ERR_clear_error();
      const int put = SSL_write(
          conn.ssl.get(), p, static_cast<int>(std::min<size_t>(n, size_t{1} << 30)));
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

  // Reads exactly `n` bytes; `*got_any` is set once a byte arrived. With
  // `passed` (a local connection), a descriptor passed with the bytes goes
  // there (any more are closed).
  absl::Status RecvAll(const ClientConn& conn, void* buf, size_t n,
                       const Fetch& f, absl::string_view what, bool* got_any,
                       ScopedFd* passed = nullptr) {
    const int fd = conn.fd.get();
    char* p = static_cast<char*>(buf);
    const size_t total = n;
    while (conn.ssl != nullptr && n > 0) {
      DFX_RETURN_IF_ERROR(Check(f, what));
      ERR_clear_error();
      const int got = SSL_read(
          conn.ssl.get(), p, static_cast<int>(std::min<size_t>(n, size_t{1} << 30)));
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
      const ssize_t got =
          passed != nullptr ? RecvWithFds(fd, p, n, passed) : ::recv(fd, p, n, 0);
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

  // Request and response on a connected socket; on a local one piece by
  // piece, each piece's request sent before the last piece is copied out
  // (rules in bulk_transport.h). `reusable`: the connection is at a
  // message boundary and may go back to the pool.
  absl::Status Exchange(ClientConn& conn, const Fetch& f,
                        absl::string_view what, bool local, bool* started,
                        bool* reusable) {
    if (f.auth_token.size() > kMaxBulkTokenBytes) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, ": the auth token is longer than ",
                       kMaxBulkTokenBytes, " bytes"));
    }
    const uint64_t piece_bytes =
        local ? bulk_io::kMaxLocalPieceBytes : std::max<uint64_t>(f.length, 1);
    auto piece_at = [&](uint64_t done) {
      return std::min<uint64_t>(f.length - done, piece_bytes);
    };
    DFX_RETURN_IF_ERROR(SendRequest(conn, f, f.offset, piece_at(0), what));
    uint64_t done = 0;
    do {
      const uint64_t piece = piece_at(done);
      char frame[kBulkResponseHeaderBytes];
      ScopedFd passed;
      DFX_RETURN_IF_ERROR(RecvAll(conn, frame, sizeof(frame), f, what, started,
                                  local ? &passed : nullptr));
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
        *reusable = true;  // no request is out past this one
        return absl::Status(header->code, absl::StrCat(what, ": ", message));
      }
      if (length != piece) {
        return absl::InternalError(absl::StrCat(
            what, ": the server answers with ", length, " bytes"));
      }
      char* dst = static_cast<char*>(f.dst) + done;
      if (!local) {
        DFX_RETURN_IF_ERROR(RecvAll(conn, dst, length, f, what, started));
      } else {
        // The next piece is filled while this one is copied out.
        if (done + length < f.length) {
          DFX_RETURN_IF_ERROR(SendRequest(conn, f, f.offset + done + length,
                                          piece_at(done + length), what));
        }
        if (length > 0) {
          DFX_RETURN_IF_ERROR(CopyOut(conn, std::move(passed), dst, length,
                                      what));
        }
      }
      done += length;
    } while (done < f.length);
    *reusable = true;
    BulkBytesReceived()->Increment(static_cast<int64_t>(f.length));
    if (local) {
      BulkLocalBytesReceived()->Increment(static_cast<int64_t>(f.length));
    }
    return absl::OkStatus();
  }

  // Copies `length` bytes out of the segment `passed` names, through the
  // connection's view of it (kept for the next time the server uses it).
  absl::Status CopyOut(ClientConn& conn, ScopedFd passed, char* dst,
                       uint64_t length, absl::string_view what) {
    struct stat st {};
    absl::Status s;
    if (!passed.valid() || ::fstat(passed.get(), &st) != 0) {
      s = absl::InternalError("no shared-memory file came with the answer");
    } else {
      const auto dev = static_cast<uint64_t>(st.st_dev);
      const auto ino = static_cast<uint64_t>(st.st_ino);
      bulk_io::SharedSegment* view =
          conn.view[0].IsFile(dev, ino)   ? &conn.view[0]
          : conn.view[1].IsFile(dev, ino) ? &conn.view[1]
                                          : &conn.view[conn.next_view ^= 1];
      s = view->View(std::move(passed));
      if (s.ok() && view->size() < length) {
        s = absl::InternalError(absl::StrCat(
            "the answer's shared memory holds ", view->size(), " bytes"));
      }
      if (s.ok()) std::memcpy(dst, view->data(), length);
    }
    if (!s.ok()) {
      return absl::Status(s.code(), absl::StrCat(what, ": ", s.message()));
    }
    return absl::OkStatus();
  }

  absl::Status SendRequest(const ClientConn& conn, const Fetch& f,
                           uint64_t offset, uint64_t length,
                           absl::string_view what) {
    std::vector<uint8_t> request(kBulkRequestBytes + f.auth_token.size());
    std::memcpy(request.data(), kMagic, sizeof(kMagic));
    PutU32(request.data() + 4, kBulkProtocolVersion);
    PutU64(request.data() + 8, f.ticket);
    PutU64(request.data() + 16, offset);
    PutU64(request.data() + 24, length);
    PutU32(request.data() + 32, static_cast<uint32_t>(f.auth_token.size()));
    PutU32(request.data() + 36, 0);
    std::memcpy(request.data() + kBulkRequestBytes, f.auth_token.data(),
                f.auth_token.size());
    return SendAll(conn, request.data(), request.size(), f, what);
  }

  // recv(2) that keeps a descriptor passed with the bytes in `*passed`.
  static ssize_t RecvWithFds(int fd, char* p, size_t n, ScopedFd* passed) {
    iovec iov = {p, n};
    alignas(cmsghdr) char control[CMSG_SPACE(4 * sizeof(int))];
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof(control);
    const ssize_t got = ::recvmsg(fd, &msg, MSG_CMSG_CLOEXEC);
    if (got < 0) return got;
    for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr;
         c = CMSG_NXTHDR(&msg, c)) {
      if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
      const size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
      for (size_t i = 0; i < count; ++i) {
        int received;
        std::memcpy(&received, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
        if (!passed->valid()) {
          passed->reset(received);
        } else {
          ::close(received);
        }
      }
    }
    return got;
  }

  ClientConn TakeIdle(const std::string& key) {
    absl::MutexLock lock(&mu);
    auto it = idle.find(key);
    if (it == idle.end()) return ClientConn();
    std::vector<ClientConn>& conns = it->second;
    while (!conns.empty()) {
      ClientConn conn = std::move(conns.back());
      conns.pop_back();
      // Readable or hung up while idle: the server closed it (idle timeout,
      // restart), or it carries bytes no request asked for.
      pollfd p = {conn.fd.get(), POLLIN | POLLRDHUP, 0};
      if (::poll(&p, 1, 0) == 0 &&
          (conn.ssl == nullptr || SSL_pending(conn.ssl.get()) == 0)) {
        return conn;
      }
    }
    return ClientConn();
  }

  void ReturnIdle(const std::string& key, ClientConn conn) {
    absl::MutexLock lock(&mu);
    std::vector<ClientConn>& conns = idle[key];
    if (closing ||
        static_cast<int>(conns.size()) >= options.max_idle_per_address) {
      return;  // closes it
    }
    conns.push_back(std::move(conn));
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
  // Local addresses that could not be reached (another host).
  absl::flat_hash_set<std::string> local_unreachable ABSL_GUARDED_BY(mu);
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

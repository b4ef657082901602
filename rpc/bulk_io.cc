#include "rpc/bulk_io.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "openssl/err.h"
#include "openssl/ssl.h"
#include "rpc/bulk_transport.h"

namespace dfx {
namespace bulk_io {

void ScopedFd::reset(int fd) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = fd;
}

void SslFree::operator()(ssl_st* ssl) const { SSL_free(ssl); }

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

std::string StripBrackets(absl::string_view host) {
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  return std::string(host);
}

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

bool RecvFull(int fd, ssl_st* ssl, void* buf, size_t n) {
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

bool SendFull(int fd, ssl_st* ssl, const void* buf, size_t n, int flags) {
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

bool SendError(int fd, ssl_st* ssl, const absl::Status& status) {
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

bool LocalSocketAddress(absl::string_view name, sockaddr_storage* addr,
                        socklen_t* len) {
  auto* un = reinterpret_cast<sockaddr_un*>(addr);
  if (name.size() < 2 || name[0] != '@' ||
      name.size() > sizeof(un->sun_path)) {
    return false;
  }
  std::memset(addr, 0, sizeof(*addr));
  un->sun_family = AF_UNIX;
  // Abstract: a NUL first, then the name without its '@' (not
  // NUL-terminated; the length says where it ends).
  std::memcpy(un->sun_path + 1, name.data() + 1, name.size() - 1);
  *len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + name.size());
  return true;
}

SharedSegment& SharedSegment::operator=(SharedSegment&& other) noexcept {
  if (this == &other) return *this;
  Unmap();
  fd_ = std::move(other.fd_);
  map_ = std::exchange(other.map_, nullptr);
  size_ = std::exchange(other.size_, 0);
  dev_ = other.dev_;
  ino_ = other.ino_;
  return *this;
}

void SharedSegment::Unmap() {
  if (map_ != nullptr) ::munmap(map_, size_);
  map_ = nullptr;
  size_ = 0;
}

absl::Status SharedSegment::Reserve(size_t n) {
  if (map_ != nullptr && size_ >= n) return absl::OkStatus();
  if (!fd_.valid()) {
    fd_.reset(::memfd_create("dfx-bulk", MFD_CLOEXEC | MFD_ALLOW_SEALING));
    if (!fd_.valid() ||
        ::fcntl(fd_.get(), F_ADD_SEALS, F_SEAL_SHRINK) != 0) {
      const int err = errno;
      fd_.reset();
      return absl::ResourceExhaustedError(
          absl::StrCat("a shared-memory file: ", ErrnoText(err)));
    }
  }
  constexpr size_t kMiB = size_t{1} << 20;
  const size_t want = std::max(size_, (n + kMiB - 1) / kMiB * kMiB);
  Unmap();
  if (::ftruncate(fd_.get(), static_cast<off_t>(want)) != 0) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "a shared-memory file of ", want, " bytes: ", ErrnoText(errno)));
  }
  void* map = ::mmap(nullptr, want, PROT_READ | PROT_WRITE,
                     MAP_SHARED | MAP_POPULATE, fd_.get(), 0);
  if (map == MAP_FAILED) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "mapping a shared-memory file of ", want, " bytes: ",
        ErrnoText(errno)));
  }
  map_ = map;
  size_ = want;
  return absl::OkStatus();
}

absl::Status SharedSegment::View(ScopedFd fd) {
  struct stat st {};
  if (!fd.valid() || ::fstat(fd.get(), &st) != 0) {
    return absl::InternalError("no shared-memory file came with the answer");
  }
  const uint64_t dev = static_cast<uint64_t>(st.st_dev);
  const uint64_t ino = static_cast<uint64_t>(st.st_ino);
  const size_t size = static_cast<size_t>(st.st_size);
  if (IsFile(dev, ino) && size == size_) {
    return absl::OkStatus();  // `fd` closes; the mapping stays
  }
  const int seals = ::fcntl(fd.get(), F_GET_SEALS);
  if (seals < 0 || (seals & F_SEAL_SHRINK) == 0) {
    return absl::InternalError(
        "the answer's shared-memory file is not sealed against shrinking");
  }
  if (size == 0 || size > kMaxLocalPieceBytes) {
    return absl::InternalError(absl::StrCat(
        "the answer's shared-memory file has ", size, " bytes (at most ",
        kMaxLocalPieceBytes, " expected)"));
  }
  Unmap();
  void* map = ::mmap(nullptr, size, PROT_READ, MAP_SHARED | MAP_POPULATE,
                     fd.get(), 0);
  if (map == MAP_FAILED) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "mapping a shared-memory file of ", size, " bytes: ",
        ErrnoText(errno)));
  }
  map_ = map;
  size_ = size;
  dev_ = dev;
  ino_ = ino;
  return absl::OkStatus();
}

bool SendWithFd(int fd, const void* buf, size_t n, int pass) {
  iovec iov = {const_cast<void*>(buf), n};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof(control);
  cmsghdr* c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  std::memcpy(CMSG_DATA(c), &pass, sizeof(int));
  while (true) {
    const ssize_t put = ::sendmsg(fd, &msg, MSG_NOSIGNAL);
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) return false;
    // The descriptor went with the first byte; the rest (never, for a
    // 16-byte header on a Unix socket) goes plain.
    return static_cast<size_t>(put) == n ||
           SendFull(fd, nullptr, static_cast<const char*>(buf) + put,
                    n - static_cast<size_t>(put), 0);
  }
}

void BlockSigpipe() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

std::string TlsErrors() {
  std::string text;
  while (const unsigned long e = ERR_get_error()) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof(buf));
    absl::StrAppend(&text, text.empty() ? "" : "; ", buf);
  }
  return text.empty() ? "unknown TLS error" : text;
}

}  // namespace bulk_io

// The frames (the protocol is described in rpc/bulk_transport.h).

absl::StatusOr<BulkRequest> ParseBulkRequest(absl::string_view frame) {
  if (frame.size() != kBulkRequestBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("a bulk request of ", frame.size(), " bytes, not ",
                     kBulkRequestBytes));
  }
  const auto* p = reinterpret_cast<const uint8_t*>(frame.data());
  if (std::memcmp(p, bulk_io::kMagic, sizeof(bulk_io::kMagic)) != 0) {
    return absl::InvalidArgumentError("a bulk request without the magic DFXB");
  }
  BulkRequest request;
  request.version = bulk_io::GetU32(p + 4);
  if (request.version != kBulkProtocolVersion) {
    return absl::UnimplementedError(
        absl::StrCat("speaks version ", kBulkProtocolVersion, ", not ",
                     request.version));
  }
  request.ticket = bulk_io::GetU64(p + 8);
  request.offset = bulk_io::GetU64(p + 16);
  request.length = bulk_io::GetU64(p + 24);
  request.token_length = bulk_io::GetU32(p + 32);
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
  const uint32_t code = bulk_io::GetU32(p);
  BulkResponseHeader parsed;
  parsed.length = bulk_io::GetU64(p + 8);
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

}  // namespace dfx

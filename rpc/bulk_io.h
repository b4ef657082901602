// What the bulk plane's server and client share (rpc/bulk_server.cc,
// rpc/bulk_client.cc, rpc/bulk_tls.cc): an owning file descriptor, the
// little-endian integer coding of the frames, address helpers, blocking
// full reads and writes, and OpenSSL error text. Not for other callers:
// the bulk plane's API is rpc/bulk_transport.h.
#ifndef DFX_RPC_BULK_IO_H_
#define DFX_RPC_BULK_IO_H_

#include <sys/socket.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

struct ssl_st;

namespace dfx::bulk_io {

inline constexpr char kMagic[4] = {'D', 'F', 'X', 'B'};

// Owns a file descriptor: closes it when destroyed or reset. Move-only.
class ScopedFd {
 public:
  ScopedFd() = default;
  explicit ScopedFd(int fd) : fd_(fd) {}
  ~ScopedFd() { reset(); }
  ScopedFd(ScopedFd&& other) noexcept : fd_(other.release()) {}
  ScopedFd& operator=(ScopedFd&& other) noexcept {
    if (this != &other) reset(other.release());
    return *this;
  }
  ScopedFd(const ScopedFd&) = delete;
  ScopedFd& operator=(const ScopedFd&) = delete;

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  int release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }
  // Closes the descriptor held (if any) and holds `fd`.
  void reset(int fd = -1);

 private:
  int fd_ = -1;
};

// Frees an OpenSSL connection (leaving its socket open).
struct SslFree {
  void operator()(ssl_st* ssl) const;
};
using SslPtr = std::unique_ptr<ssl_st, SslFree>;

void PutU32(uint8_t* p, uint32_t v);
void PutU64(uint8_t* p, uint64_t v);
uint32_t GetU32(const uint8_t* p);
uint64_t GetU64(const uint8_t* p);

std::string ErrnoText(int err);

// "[::1]" -> "::1"; anything else unchanged.
std::string StripBrackets(absl::string_view host);

// Splits "host:port" / "[v6]:port" / ":port"; false without a port.
bool SplitHostPort(absl::string_view address, std::string* host,
                   std::string* port);

// The numeric host of `addr`; empty for a wildcard address.
std::string NumericHost(const sockaddr_storage& addr, socklen_t len,
                        bool* is_v6);
int PortOf(const sockaddr_storage& addr);

void SetNoDelay(int fd);
// SO_RCVTIMEO / SO_SNDTIMEO, at least 1 ms.
void SetTimeout(int fd, int option, absl::Duration d);

// Blocking I/O on a server connection (timeouts set with SetTimeout; the
// server's Stop wakes it with shutdown()), through `ssl` when not null.
// False on EOF, error or timeout.
bool RecvFull(int fd, ssl_st* ssl, void* buf, size_t n);
bool SendFull(int fd, ssl_st* ssl, const void* buf, size_t n, int flags);

// Sends a response header with `status`'s code and message (cut to
// kMaxBulkErrorBytes); false if it could not.
bool SendError(int fd, ssl_st* ssl, const absl::Status& status);

// The address of abstract Unix socket `name` ("@dfx-bulk-..."): false for
// a name without the '@' or too long for sockaddr_un.
bool LocalSocketAddress(absl::string_view name, sockaddr_storage* addr,
                        socklen_t* len);

// The most bytes one request on a local connection asks for (clients ask
// for bigger ranges piece by piece): the size each of a connection's two
// segments grows to at most.
inline constexpr size_t kMaxLocalPieceBytes = size_t{8} << 20;

// A shared-memory file (memfd) mapped into this process: the bulk plane's
// local transfers. A server connection's segment is writable and grows on
// demand (never shrinks: it is sealed against it); the client maps the
// segment the server passes read-only, again only when it changed.
// Move-only.
class SharedSegment {
 public:
  SharedSegment() = default;
  ~SharedSegment() { Unmap(); }
  SharedSegment(SharedSegment&& other) noexcept { *this = std::move(other); }
  SharedSegment& operator=(SharedSegment&& other) noexcept;
  SharedSegment(const SharedSegment&) = delete;
  SharedSegment& operator=(const SharedSegment&) = delete;

  // Server: at least `n` bytes, writable (made, or grown in whole MiB).
  // ResourceExhausted when the memory cannot be had.
  absl::Status Reserve(size_t n);
  // Client: a view of the server's segment `fd` (taken): the one mapped
  // already when it is the same file of the same size. Internal for a
  // file not sealed against shrinking (it could vanish under the reader)
  // or of more than kMaxLocalPieceBytes.
  absl::Status View(ScopedFd fd);

  const char* data() const { return static_cast<const char*>(map_); }
  char* mutable_data() { return static_cast<char*>(map_); }
  size_t size() const { return size_; }
  // The file (server side), to pass to the client.
  int fd() const { return fd_.get(); }
  // The file mapped (client side).
  bool IsFile(uint64_t dev, uint64_t ino) const {
    return map_ != nullptr && dev == dev_ && ino == ino_;
  }

 private:
  void Unmap();

  ScopedFd fd_;
  void* map_ = nullptr;
  size_t size_ = 0;
  // The file mapped (client side), to know it again.
  uint64_t dev_ = 0;
  uint64_t ino_ = 0;
};

// Sends `n` bytes (a response header) with descriptor `pass` attached
// (SCM_RIGHTS) on a blocking socket; false if it could not.
bool SendWithFd(int fd, const void* buf, size_t n, int pass);

// OpenSSL writes with write(2), which raises SIGPIPE on a connection the
// peer closed: the bulk plane's own threads block it, so the write fails
// with EPIPE instead (a pending SIGPIPE dies with the thread).
void BlockSigpipe();

// OpenSSL's errors of this thread, for a message.
std::string TlsErrors();

// A local connection's two segments, used in turn: the server fills one
// with the next piece while the client copies the last one out of the
// other (the client asks for piece i + 1 before it copies piece i, never
// for piece i + 2 before it has).
struct SegmentPair {
  SharedSegment segment[2];
  int next = 0;
  SharedSegment* Take() {
    SharedSegment* s = &segment[next];
    next ^= 1;
    return s;
  }
};

}  // namespace dfx::bulk_io

#endif  // DFX_RPC_BULK_IO_H_

// BulkServer and BulkClient: a plain-TCP data plane beside gRPC that moves
// the bytes of big tensors straight from the sender's tensor buffer into
// the receiver's, without gRPC's framing, flow control and slice copies.
// gRPC still carries the RecvTensor call (and the wait for the tensor);
// its answer names a ticket the receiver then fetches here.
//
// Wire protocol, all integers little-endian, on a long-lived connection
// that carries one request at a time:
//   request,  40 bytes: "DFXB", u32 version (2), u64 ticket, u64 offset,
//                       u64 length, u32 token length, u32 reserved (0);
//                       then `token length` bytes (at most
//                       kMaxBulkTokenBytes): the cluster's auth token, or
//                       none
//   response, 16 bytes: u32 status code (absl::StatusCode), u32 reserved,
//                       u64 length; then `length` bytes: on OK the tensor's
//                       bytes [offset, offset + length), otherwise an error
//                       message (at most kMaxBulkErrorBytes).
// A request with a bad magic or a token longer than kMaxBulkTokenBytes
// closes the connection; another version gets an Unimplemented response
// (once 40 bytes came) and the connection closes; a missing or wrong
// token (on a server with one) gets Unauthenticated and the connection
// closes; an unknown ticket or a range outside the tensor gets an error
// response and the connection stays usable.
//
// Within one host: the server also listens on an abstract Unix socket
// (Linux; "@dfx-bulk-<random>", local_address()), which only processes of
// the same host and network namespace can reach, and only those running as
// the server's user (SO_PEERCRED; another gets PermissionDenied). The
// frames are the same, but a request asks for at most kMaxLocalPieceBytes
// (InvalidArgument otherwise; clients ask piece by piece), and an OK
// response carries no bytes after its header: the header comes with a
// file descriptor (SCM_RIGHTS) of one of the connection's two
// shared-memory segments, memfds sealed against shrinking whose first
// `length` bytes hold the range; successive answers use them in turn. A
// client asks for its next piece once it has the answer for the last one
// and before it copies it out, never further ahead, so the server fills
// one segment while the client reads the other and never writes one being
// read. The segments grow to the largest piece asked for and go with the
// connection: two warm memcpys, overlapped, where TCP on loopback costs
// two copies through the kernel and its protocol stack. TLS does not apply
// there (the bytes never leave the host's memory).
//
// With TLS (BulkTls), the same frames travel inside a TLS session (1.2 or
// later) made when the connection opens: the client verifies the server's
// certificate against its CA and the task's host name, the server the
// client's when it requires one. Without it the bytes are plain TCP (the
// token and tensors readable on the wire).
#ifndef DFX_RPC_BULK_TRANSPORT_H_
#define DFX_RPC_BULK_TRANSPORT_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "rpc/bulk_io.h"
#include "rpc/held_tensors.h"
#include "runtime/tensor.h"

struct ssl_ctx_st;
struct ssl_st;

namespace dfx {

// An OpenSSL context for the bulk plane: a server's (its certificate and
// key, the CA that verifies clients' certificates) or a client's (the CA
// that verifies servers', and its own certificate for servers that require
// one). PEM text. Thread-safe; shared by the connections made with it.
class BulkTls {
 public:
  struct Config {
    std::string cert_pem;
    std::string key_pem;
    // Empty: the system's roots.
    std::string ca_pem;
    // Servers: 0 asks for no client certificate, 1 verifies one if given,
    // 2 refuses a client without one.
    int client_auth = 0;
  };
  // InvalidArgument naming what does not load (a certificate, the key, a
  // key that does not match the certificate, the CA).
  static absl::StatusOr<std::shared_ptr<const BulkTls>> NewServer(
      const Config& config);
  static absl::StatusOr<std::shared_ptr<const BulkTls>> NewClient(
      const Config& config);
  ~BulkTls();
  BulkTls(const BulkTls&) = delete;
  BulkTls& operator=(const BulkTls&) = delete;

  ssl_ctx_st* ctx() const { return ctx_; }

 private:
  explicit BulkTls(ssl_ctx_st* ctx) : ctx_(ctx) {}
  ssl_ctx_st* const ctx_;
};

inline constexpr uint32_t kBulkProtocolVersion = 2;
// The fixed part of a request; the token follows it.
inline constexpr size_t kBulkRequestBytes = 40;
inline constexpr size_t kMaxBulkTokenBytes = 4096;
inline constexpr size_t kBulkResponseHeaderBytes = 16;
inline constexpr size_t kMaxBulkErrorBytes = 4096;

// A request frame's fields.
struct BulkRequest {
  uint32_t version = 0;
  uint64_t ticket = 0;
  uint64_t offset = 0;
  uint64_t length = 0;
  // The auth token's bytes that follow the frame.
  uint32_t token_length = 0;
};

// Reads the fixed part of a request frame, kBulkRequestBytes (the server
// closes the connection on any error). InvalidArgument for another size, a
// bad magic or a token longer than kMaxBulkTokenBytes; Unimplemented naming
// both versions for a version other than kBulkProtocolVersion (the server
// answers it before closing).
absl::StatusOr<BulkRequest> ParseBulkRequest(absl::string_view frame);

// A response header's fields.
struct BulkResponseHeader {
  absl::StatusCode code = absl::StatusCode::kOk;
  // On OK the number of tensor bytes that follow, otherwise the length of
  // the error message that follows.
  uint64_t length = 0;
};

// Reads a response header of kBulkResponseHeaderBytes. Internal for another
// size, a code that is not an absl::StatusCode, or an error message longer
// than kMaxBulkErrorBytes.
absl::StatusOr<BulkResponseHeader> ParseBulkResponseHeader(
    absl::string_view header);

// Serves registered tensors over TCP. An accept thread and one thread per
// connection (clients keep connections open and reuse them); a connection
// past Options.max_connections gets a ResourceExhausted response at once
// and is closed.
//
// Tensors are served from a HeldTensors table (rpc/held_tensors.h), with
// its rules: a tensor is held (its buffer shared, never copied) until every
// one of its bytes was served once (ranges may come in any order, in
// parallel, over several connections; a range is counted once when served
// again), Release / ReleaseStep / ReleaseAll, or until it has not been
// asked for within the table's time to live (checked lazily). The worker
// service shares one table between this server and its RecvTensorChunk
// calls, so a tensor fetched partly over each is let go once.
//
// Thread-safe.
class BulkServer {
 public:
  struct Options {
    // Host or address to listen on ("127.0.0.1", "::1", "[::1]",
    // "localhost", "0.0.0.0"); the port is picked by the kernel.
    std::string bind_host = "127.0.0.1";
    int max_connections = 256;
    // The table tensors are served from, borrowed for the server's life
    // (Register and Release act on it). Null: the server's own, with
    // `entry_ttl`, emptied by Stop.
    HeldTensors* held = nullptr;
    absl::Duration entry_ttl = absl::Minutes(10);
    // A connection idle this long between requests is closed (the client
    // reconnects), so idle pooled connections do not hold threads forever.
    absl::Duration idle_timeout = absl::Minutes(2);
    // A send that makes no progress this long (a client that stopped
    // reading) closes the connection.
    absl::Duration send_stall_timeout = absl::Minutes(1);
    // Every request must carry it (compared in constant time); empty:
    // none is asked for.
    std::string auth_token;
    // From BulkTls::NewServer: every connection speaks TLS. Null: plain.
    std::shared_ptr<const BulkTls> tls;
    // Also serve receivers on this host over an abstract Unix socket, as
    // shared-memory files. A socket that cannot be made is logged and
    // left out.
    bool local = true;
  };

  // Listens and starts the accept thread. Unavailable naming the host when
  // it does not resolve or cannot be bound.
  static absl::StatusOr<std::unique_ptr<BulkServer>> Start(Options options);

  // Stops.
  ~BulkServer();
  BulkServer(const BulkServer&) = delete;
  BulkServer& operator=(const BulkServer&) = delete;

  // "host:port" ("[v6]:port"), with the numeric address listened on. When
  // that is a wildcard (0.0.0.0, ::), the host is left out (":port"): the
  // client uses the host it reached this process at.
  const std::string& address() const { return address_; }
  // "@dfx-bulk-<random>": the abstract Unix socket for receivers on this
  // host; empty when there is none.
  const std::string& local_address() const { return local_address_; }

  // Holds `tensor` for `step_id` in the table and returns its ticket
  // (HeldTensors::Hold). `on_served` (may be empty) runs once, on a
  // connection thread, when the last byte was served; not when the entry is
  // released otherwise. REQUIRES: an initialized tensor of a memcpy-able
  // dtype.
  uint64_t Register(int64_t step_id, Tensor tensor,
                    std::function<void()> on_served = nullptr);

  // Forget tickets; a request in the middle of being served finishes (it
  // holds its own reference to the buffer). Unknown tickets are ignored.
  void Release(uint64_t ticket);
  void ReleaseStep(int64_t step_id);
  void ReleaseAll();

  // Closes the listener and every connection (a client in the middle of a
  // transfer gets an error), joins the threads, and empties the server's
  // own table (not a shared one). Idempotent.
  void Stop();

  // For tests and statistics.
  int64_t NumEntries() const;
  int64_t NumConnectionsAccepted() const;

 private:
  struct Connection {
    bulk_io::ScopedFd fd;
    std::thread thread;
  };

  BulkServer(Options options, bulk_io::ScopedFd listen_fd,
             bulk_io::ScopedFd local_listen_fd, bulk_io::ScopedFd wake_read_fd,
             bulk_io::ScopedFd wake_write_fd, std::string address,
             std::string local_address);

  void AcceptLoop();
  // Takes a connection from `listen_fd` (the local socket's when `local`);
  // false when the server is stopping.
  bool Accept(int listen_fd, bool local);
  void Serve(int64_t id, int fd, bool local);
  // One request read from `fd` and answered (the range through `local`,
  // a local connection's shared memory, when not null); false when the
  // connection should close.
  bool ServeOne(int fd, ssl_st* ssl, bulk_io::SegmentPair* local);
  void ReapFinished();

  const Options options_;
  const std::unique_ptr<HeldTensors> own_held_;
  HeldTensors* const held_;
  bulk_io::ScopedFd listen_fd_;
  bulk_io::ScopedFd local_listen_fd_;  // not valid: no local socket
  bulk_io::ScopedFd wake_read_fd_;
  bulk_io::ScopedFd wake_write_fd_;
  const std::string address_;
  const std::string local_address_;
  std::thread accept_thread_;
  std::atomic<int64_t> accepted_{0};

  absl::Mutex stop_mu_;  // serializes Stop
  bool stopped_ ABSL_GUARDED_BY(stop_mu_) = false;

  mutable absl::Mutex conn_mu_;
  bool stopping_ ABSL_GUARDED_BY(conn_mu_) = false;
  int64_t next_connection_id_ ABSL_GUARDED_BY(conn_mu_) = 0;
  absl::flat_hash_map<int64_t, Connection> connections_
      ABSL_GUARDED_BY(conn_mu_);
  // Threads of connections that ended, joined by the accept thread or Stop.
  std::vector<std::thread> finished_ ABSL_GUARDED_BY(conn_mu_);
};

// Set to cancel fetches that hold it; they end with Cancelled within about
// 100 ms. Thread-safe.
class BulkCancellation {
 public:
  void Cancel() { cancelled_.store(true, std::memory_order_relaxed); }
  bool IsCancelled() const {
    return cancelled_.load(std::memory_order_relaxed);
  }

 private:
  std::atomic<bool> cancelled_{false};
};

// True for a fetch's error that came from not reaching the server at all
// (resolving or connecting failed): a firewall, a wrong address. Other
// errors happen on a connection that was made.
bool IsBulkConnectError(const absl::Status& status);

// Fetches byte ranges of tensors from BulkServers, straight into the
// caller's memory. Transfers run on a few threads owned by the client,
// created when first needed (up to Options.max_threads), which only do
// I/O: the wait for the tensor happened before its ticket was known.
// Connections are kept per address (up to Options.max_idle_per_address
// idle ones) and reused; a pooled connection the server has closed is
// replaced by a fresh one.
//
// Thread-safe. Destroying the client cancels queued and running fetches
// (their `done` gets Cancelled) and waits for them; it may happen on one
// of the client's own threads (inside a `done`).
class BulkClient {
 public:
  struct Options {
    int max_threads = 4;
    int max_idle_per_address = 4;
    absl::Duration connect_timeout = absl::Seconds(5);
  };

  struct Fetch {
    // "host:port", "[v6]:port".
    std::string address;
    uint64_t ticket = 0;
    // Receives bytes [offset, offset + length) of the tensor; borrowed
    // until `done`. Its contents are unspecified after an error.
    void* dst = nullptr;
    uint64_t offset = 0;
    uint64_t length = 0;
    absl::Time deadline = absl::InfiniteFuture();
    // May be null.
    std::shared_ptr<const BulkCancellation> cancel;
    // Sent with the request (the server's token); empty: none.
    std::string auth_token;
    // From BulkTls::NewClient: the connection speaks TLS, the server's
    // certificate verified against the CA and `tls_host` (a DNS name or
    // an IP address: the task's host as the cluster names it). Null:
    // plain.
    std::shared_ptr<const BulkTls> tls;
    std::string tls_host;
    // The server's local_address() (may be empty): tried first; a server
    // that cannot be reached there (another host) is not tried there
    // again, and any failure there falls back to `address`.
    std::string local_address;
  };

  explicit BulkClient(Options options);
  BulkClient() : BulkClient(Options()) {}
  ~BulkClient();
  BulkClient(const BulkClient&) = delete;
  BulkClient& operator=(const BulkClient&) = delete;

  // Runs `done` exactly once on one of the client's threads (on the
  // destroying thread for fetches still queued at destruction): OK once
  // every byte is in `dst`; Unavailable when the server cannot be reached
  // (IsBulkConnectError; also a TLS handshake that failed) or the
  // connection broke; the server's code and
  // message (NotFound for an unknown ticket, OutOfRange for a bad range,
  // Unauthenticated for a missing or wrong token);
  // Cancelled; DeadlineExceeded; Internal for a response that breaks the
  // protocol. Errors name the address, ticket and range.
  void FetchAsync(Fetch fetch, std::function<void(const absl::Status&)> done);

  // For tests: idle connections pooled for `address` (or a local
  // address).
  int NumIdleConnections(absl::string_view address) const;

 private:
  struct State;
  const std::shared_ptr<State> state_;
};

}  // namespace dfx

#endif  // DFX_RPC_BULK_TRANSPORT_H_

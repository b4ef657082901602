// Tests of rpc/bulk_transport.h: a BulkServer and a BulkClient on
// 127.0.0.1, and, for what a misbehaving peer does, raw sockets on either
// side (a fake server that stalls or hangs up, a client that sends
// garbage).
#include "rpc/bulk_transport.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "catch2/catch.hpp"
#include "rpc/rpc_metrics.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/test_certs.h"
#include "tests/testing/wait_until.h"
#include "tests/tools/cli_test_util.h"

namespace dfx {
namespace {

using ::dfx::testing::StatusIs;

constexpr absl::Duration kWait = absl::Seconds(60);

// A uint8 tensor of `n` bytes whose values depend on their position.
Tensor Pattern(int64_t n, int seed = 0) {
  Tensor t(DT_UINT8, TensorShape({n}));
  uint8_t* p = t.data<uint8_t>();
  for (int64_t i = 0; i < n; ++i) {
    p[i] = static_cast<uint8_t>((i * 131 + seed * 7 + (i >> 13)) & 0xff);
  }
  return t;
}

bool SameRange(const std::vector<uint8_t>& got, const Tensor& t,
               uint64_t offset) {
  return std::memcmp(got.data(),
                     static_cast<const uint8_t*>(t.raw_data()) + offset,
                     got.size()) == 0;
}

// Counts on_served calls; the server makes them after the client got the
// last byte, so a test waits for them.
struct Served {
  std::atomic<int> count{0};
  absl::Notification first;
  std::function<void()> Callback() {
    return [this] {
      count.fetch_add(1);
      if (!first.HasBeenNotified()) first.Notify();
    };
  }
  bool Wait() { return first.WaitForNotificationWithTimeout(kWait); }
};

std::unique_ptr<BulkServer> StartServer(BulkServer::Options options = {}) {
  auto server = BulkServer::Start(std::move(options));
  REQUIRE_OK(server);
  return *std::move(server);
}

// Fetches synchronously; fails the test when `done` does not run within
// kWait.
absl::Status Fetch(BulkClient& client, BulkClient::Fetch fetch) {
  absl::Notification done;
  absl::Status status;
  client.FetchAsync(std::move(fetch), [&](const absl::Status& s) {
    status = s;
    done.Notify();
  });
  REQUIRE(done.WaitForNotificationWithTimeout(kWait));
  return status;
}

BulkClient::Fetch MakeFetch(const std::string& address, uint64_t ticket,
                            std::vector<uint8_t>* dst, uint64_t offset,
                            uint64_t length) {
  dst->assign(length, 0);
  BulkClient::Fetch fetch;
  fetch.address = address;
  fetch.ticket = ticket;
  fetch.dst = dst->data();
  fetch.offset = offset;
  fetch.length = length;
  fetch.deadline = absl::Now() + kWait;
  return fetch;
}

// A socket connected to 127.0.0.1:`port` with a receive timeout of kWait.
int ConnectRaw(const std::string& address) {
  const int port = std::stoi(address.substr(address.rfind(':') + 1));
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0);
  timeval tv = absl::ToTimeval(kWait);
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  return fd;
}

std::string Request(absl::string_view magic, uint32_t version, uint64_t ticket,
                    uint64_t offset, uint64_t length,
                    absl::string_view token = "") {
  std::string r(magic);
  for (int i = 0; i < 4; ++i)
    r.push_back(static_cast<char>(version >> (8 * i)));
  for (uint64_t v : {ticket, offset, length}) {
    for (int i = 0; i < 8; ++i) r.push_back(static_cast<char>(v >> (8 * i)));
  }
  const uint64_t token_length_and_reserved = token.size();
  for (int i = 0; i < 8; ++i) {
    r.push_back(static_cast<char>(token_length_and_reserved >> (8 * i)));
  }
  r.append(token.data(), token.size());
  return r;
}

// True when the peer closed `fd` (reads until EOF; false on timeout).
bool ReadsToEof(int fd) {
  char buf[4096];
  while (true) {
    const ssize_t got = ::recv(fd, buf, sizeof(buf), 0);
    if (got == 0) return true;
    if (got < 0) return errno == ECONNRESET;
  }
}

// A listener on 127.0.0.1 whose one connection is handled by `behave`
// (given the socket, after the 40-byte request was read) on a thread of
// its own. `behave` must end within kWait.
class FakeServer {
 public:
  explicit FakeServer(std::function<void(int fd)> behave) {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    REQUIRE(listen_fd_ >= 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr),
                   sizeof(addr)) == 0);
    REQUIRE(::listen(listen_fd_, 4) == 0);
    socklen_t len = sizeof(addr);
    ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    address_ = absl::StrCat("127.0.0.1:", ntohs(addr.sin_port));
    REQUIRE(::pipe(wake_) == 0);
    thread_ = std::thread([this, behave = std::move(behave)] {
      pollfd p[2] = {{listen_fd_, POLLIN, 0}, {wake_[0], POLLIN, 0}};
      if (::poll(p, 2, static_cast<int>(absl::ToInt64Milliseconds(kWait))) <=
              0 ||
          p[1].revents != 0) {
        return;  // no client came
      }
      const int fd = ::accept(listen_fd_, nullptr, nullptr);
      if (fd < 0) return;
      char request[kBulkRequestBytes];
      size_t got = 0;
      while (got < sizeof(request)) {
        const ssize_t n = ::recv(fd, request + got, sizeof(request) - got, 0);
        if (n <= 0) break;
        got += static_cast<size_t>(n);
      }
      if (got == sizeof(request)) behave(fd);
      ::close(fd);
    });
  }
  ~FakeServer() {
    (void)!::write(wake_[1], "x", 1);
    thread_.join();
    ::close(listen_fd_);
    ::close(wake_[0]);
    ::close(wake_[1]);
  }
  const std::string& address() const { return address_; }

 private:
  int listen_fd_ = -1;
  int wake_[2] = {-1, -1};
  std::string address_;
  std::thread thread_;
};

// Sends an OK header for `length` bytes and then `sent` bytes of them.
void SendPartial(int fd, uint64_t length, size_t sent) {
  std::string bytes(kBulkResponseHeaderBytes, '\0');
  for (int i = 0; i < 8; ++i)
    bytes[8 + i] = static_cast<char>(length >> (8 * i));
  bytes.append(sent, 'x');
  ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
}

TEST_CASE("bulk: fetches return the exact bytes, whole or in ranges") {
  auto server = StartServer();
  BulkClient client;
  for (int64_t size : {int64_t{1}, int64_t{4097}, (int64_t{3} << 20) + 7}) {
    INFO("size " << size);
    Tensor t = Pattern(size, static_cast<int>(size % 13));
    const uint64_t n = static_cast<uint64_t>(size);
    std::vector<uint8_t> got;
    // Whole.
    Served whole_served, ranges_served;
    const uint64_t whole = server->Register(1, t, whole_served.Callback());
    REQUIRE_OK(Fetch(client, MakeFetch(server->address(), whole, &got, 0, n)));
    CHECK(SameRange(got, t, 0));
    // In odd ranges, the last first.
    const uint64_t ranges = server->Register(1, t, ranges_served.Callback());
    const uint64_t cut = n / 3;
    REQUIRE_OK(Fetch(client,
                     MakeFetch(server->address(), ranges, &got, cut, n - cut)));
    CHECK(SameRange(got, t, cut));
    if (cut > 0) {
      REQUIRE_OK(
          Fetch(client, MakeFetch(server->address(), ranges, &got, 0, cut)));
      CHECK(SameRange(got, t, 0));
    }
    REQUIRE(whole_served.Wait());
    REQUIRE(ranges_served.Wait());
    CHECK(testing::WaitUntil([&] { return server->NumEntries() == 0; }));
  }
}

TEST_CASE("bulk: ranges fetched in parallel fill the tensor") {
  auto server = StartServer();
  BulkClient client;
  const int64_t size = (int64_t{16} << 20) + 3;
  Tensor t = Pattern(size, 4);
  Served served;
  const uint64_t ticket = server->Register(1, t, served.Callback());
  std::vector<uint8_t> got(static_cast<size_t>(size));
  const uint64_t part = static_cast<uint64_t>(size) / 4 + 1;
  std::vector<std::unique_ptr<absl::Notification>> done;
  std::vector<absl::Status> status(4);
  for (int i = 0; i < 4; ++i) {
    const uint64_t offset = part * i;
    BulkClient::Fetch fetch;
    fetch.address = server->address();
    fetch.ticket = ticket;
    fetch.offset = offset;
    fetch.length = std::min<uint64_t>(part, size - offset);
    fetch.dst = got.data() + offset;
    fetch.deadline = absl::Now() + kWait;
    done.push_back(std::make_unique<absl::Notification>());
    client.FetchAsync(fetch, [&, i](const absl::Status& s) {
      status[i] = s;
      done[i]->Notify();
    });
  }
  for (int i = 0; i < 4; ++i) {
    REQUIRE(done[i]->WaitForNotificationWithTimeout(kWait));
    REQUIRE_OK(status[i]);
  }
  CHECK(std::memcmp(got.data(), t.raw_data(), got.size()) == 0);
  REQUIRE(served.Wait());
  CHECK(served.count.load() == 1);
  CHECK(testing::WaitUntil([&] { return server->NumEntries() == 0; }));
  // Every connection made (one per fetch running at once) is pooled.
  CHECK(client.NumIdleConnections(server->address()) ==
        server->NumConnectionsAccepted());
}

TEST_CASE(
    "bulk: an unknown ticket or a bad range is an error response on "
    "a connection that stays usable") {
  auto server = StartServer();
  BulkClient client;
  Tensor t = Pattern(10000);
  const uint64_t ticket = server->Register(1, t);
  std::vector<uint8_t> got;
  CHECK_THAT(
      Fetch(client, MakeFetch(server->address(), ticket + 1, &got, 0, 10)),
      StatusIs(absl::StatusCode::kNotFound,
               absl::StrCat("ticket ", ticket + 1)));
  CHECK_THAT(
      Fetch(client, MakeFetch(server->address(), ticket, &got, 9990, 11)),
      StatusIs(absl::StatusCode::kOutOfRange, "10000 bytes"));
  CHECK_THAT(Fetch(client,
                   MakeFetch(server->address(), ticket, &got, ~uint64_t{0}, 2)),
             StatusIs(absl::StatusCode::kOutOfRange));
  REQUIRE_OK(
      Fetch(client, MakeFetch(server->address(), ticket, &got, 0, 10000)));
  CHECK(SameRange(got, t, 0));
  CHECK(server->NumConnectionsAccepted() == 1);
}

TEST_CASE("bulk: a tensor is let go once every byte was served") {
  auto server = StartServer();
  BulkClient client;
  Tensor t = Pattern(8192);
  Served served;
  const uint64_t ticket = server->Register(3, t, served.Callback());
  std::vector<uint8_t> got;
  REQUIRE_OK(
      Fetch(client, MakeFetch(server->address(), ticket, &got, 0, 4096)));
  // The same range again does not count twice.
  REQUIRE_OK(
      Fetch(client, MakeFetch(server->address(), ticket, &got, 0, 4096)));
  CHECK(server->NumEntries() == 1);
  CHECK(served.count.load() == 0);
  REQUIRE_OK(
      Fetch(client, MakeFetch(server->address(), ticket, &got, 4096, 4096)));
  CHECK(SameRange(got, t, 4096));
  REQUIRE(served.Wait());
  CHECK(served.count.load() == 1);
  CHECK(testing::WaitUntil([&] { return server->NumEntries() == 0; }));
  CHECK_THAT(Fetch(client, MakeFetch(server->address(), ticket, &got, 0, 1)),
             StatusIs(absl::StatusCode::kNotFound));
}

TEST_CASE("bulk: Release, ReleaseStep and ReleaseAll forget tickets") {
  auto server = StartServer();
  BulkClient client;
  Served served;
  auto count = served.Callback();
  const uint64_t a = server->Register(1, Pattern(100), count);
  const uint64_t b = server->Register(1, Pattern(100), count);
  const uint64_t c = server->Register(2, Pattern(100), count);
  const uint64_t d = server->Register(2, Pattern(100), count);
  std::vector<uint8_t> got;
  auto fetch = [&](uint64_t ticket) {
    return Fetch(client, MakeFetch(server->address(), ticket, &got, 0, 10));
  };
  server->ReleaseStep(1);
  CHECK_THAT(fetch(a), StatusIs(absl::StatusCode::kNotFound));
  CHECK_THAT(fetch(b), StatusIs(absl::StatusCode::kNotFound));
  REQUIRE_OK(fetch(c));
  server->Release(c);
  CHECK_THAT(fetch(c), StatusIs(absl::StatusCode::kNotFound));
  REQUIRE_OK(fetch(d));
  server->ReleaseAll();
  CHECK_THAT(fetch(d), StatusIs(absl::StatusCode::kNotFound));
  CHECK(testing::WaitUntil([&] { return server->NumEntries() == 0; }));
  CHECK(served.count.load() == 0);  // none was served whole
}

TEST_CASE("bulk: a ticket not asked for within the TTL expires") {
  BulkServer::Options options;
  options.entry_ttl = absl::ZeroDuration();
  auto server = StartServer(options);
  BulkClient client;
  const uint64_t ticket = server->Register(1, Pattern(100));
  std::vector<uint8_t> got;
  CHECK_THAT(Fetch(client, MakeFetch(server->address(), ticket, &got, 0, 10)),
             StatusIs(absl::StatusCode::kNotFound));
  CHECK(testing::WaitUntil([&] { return server->NumEntries() == 0; }));
}

TEST_CASE("bulk: connections are reused") {
  auto server = StartServer();
  BulkClient client;
  Tensor t = Pattern(1 << 20);
  std::vector<uint8_t> got;
  for (int i = 0; i < 3; ++i) {
    const uint64_t ticket = server->Register(1, t);
    REQUIRE_OK(
        Fetch(client, MakeFetch(server->address(), ticket, &got, 0, 1 << 20)));
    CHECK(SameRange(got, t, 0));
  }
  CHECK(server->NumConnectionsAccepted() == 1);
  CHECK(client.NumIdleConnections(server->address()) == 1);
}

TEST_CASE("bulk: a server nobody listens at is a connect error") {
  std::string address;
  {
    auto server = StartServer();
    address = server->address();
  }  // stopped: the port is closed now
  BulkClient client;
  std::vector<uint8_t> got;
  const absl::Status status = Fetch(client, MakeFetch(address, 1, &got, 0, 10));
  CHECK_THAT(status, StatusIs(absl::StatusCode::kUnavailable, address));
  CHECK(IsBulkConnectError(status));
  CHECK_FALSE(IsBulkConnectError(absl::UnavailableError("other")));
}

TEST_CASE("bulk: cancelling ends a fetch") {
  BulkClient client;
  auto cancel = std::make_shared<BulkCancellation>();
  std::vector<uint8_t> got;
  SECTION("before it starts: no connection is made") {
    cancel->Cancel();
    auto server = StartServer();
    BulkClient::Fetch fetch = MakeFetch(server->address(), 1, &got, 0, 10);
    fetch.cancel = cancel;
    CHECK_THAT(Fetch(client, fetch), StatusIs(absl::StatusCode::kCancelled));
    CHECK(server->NumConnectionsAccepted() == 0);
  }
  SECTION("in the middle of the bytes") {
    absl::Notification sent_some, cancelled;
    FakeServer fake([&](int fd) {
      SendPartial(fd, 1 << 20, 1000);
      sent_some.Notify();
      // Stalls (holding the connection open) until the test is done.
      cancelled.WaitForNotificationWithTimeout(kWait);
    });
    BulkClient::Fetch fetch = MakeFetch(fake.address(), 1, &got, 0, 1 << 20);
    fetch.cancel = cancel;
    absl::Notification done;
    absl::Status status;
    client.FetchAsync(fetch, [&](const absl::Status& s) {
      status = s;
      done.Notify();
    });
    REQUIRE(sent_some.WaitForNotificationWithTimeout(kWait));
    CHECK_FALSE(done.HasBeenNotified());
    cancel->Cancel();
    REQUIRE(done.WaitForNotificationWithTimeout(kWait));
    cancelled.Notify();
    CHECK_THAT(status, StatusIs(absl::StatusCode::kCancelled, fake.address()));
    // A connection in the middle of a response is not pooled.
    CHECK(client.NumIdleConnections(fake.address()) == 0);
  }
}

TEST_CASE("bulk: a fetch past its deadline is DeadlineExceeded") {
  BulkClient client;
  absl::Notification finished;
  FakeServer fake([&](int fd) {
    SendPartial(fd, 1 << 20, 10);
    finished.WaitForNotificationWithTimeout(kWait);
  });
  std::vector<uint8_t> got;
  BulkClient::Fetch fetch = MakeFetch(fake.address(), 1, &got, 0, 1 << 20);
  fetch.deadline = absl::Now() + absl::Milliseconds(200);
  CHECK_THAT(Fetch(client, fetch),
             StatusIs(absl::StatusCode::kDeadlineExceeded));
  finished.Notify();
}

TEST_CASE("bulk: a server that hangs up mid-response is Unavailable") {
  BulkClient client;
  FakeServer fake([](int fd) { SendPartial(fd, 5000, 1000); });
  std::vector<uint8_t> got;
  const absl::Status status =
      Fetch(client, MakeFetch(fake.address(), 1, &got, 0, 5000));
  CHECK_THAT(status, StatusIs(absl::StatusCode::kUnavailable,
                              "closed the connection after 1000 of 5000"));
  CHECK_FALSE(IsBulkConnectError(status));
}

TEST_CASE("bulk: a response that breaks the protocol is Internal") {
  BulkClient client;
  // An OK header for fewer bytes than asked.
  FakeServer fake([](int fd) { SendPartial(fd, 10, 10); });
  std::vector<uint8_t> got;
  CHECK_THAT(Fetch(client, MakeFetch(fake.address(), 1, &got, 0, 20)),
             StatusIs(absl::StatusCode::kInternal, "10 bytes"));
}

TEST_CASE(
    "bulk: Stop ends connections, the client gets an error, not a "
    "hang") {
  auto server = StartServer();
  BulkClient client;
  Tensor big = Pattern(int64_t{64} << 20);
  std::vector<uint8_t> got;
  SECTION("a pooled connection of a stopped server") {
    const uint64_t ticket = server->Register(1, Pattern(100));
    REQUIRE_OK(
        Fetch(client, MakeFetch(server->address(), ticket, &got, 0, 100)));
    REQUIRE(client.NumIdleConnections(server->address()) == 1);
    const uint64_t next = server->Register(1, big);
    server->Stop();
    server->Stop();  // idempotent
    CHECK_THAT(Fetch(client, MakeFetch(server->address(), next, &got, 0, 10)),
               StatusIs(absl::StatusCode::kUnavailable));
  }
  SECTION("a fetch under way") {
    const uint64_t ticket = server->Register(1, big);
    BulkClient::Fetch fetch =
        MakeFetch(server->address(), ticket, &got, 0, big.TotalBytes());
    absl::Notification done;
    absl::Status status;
    client.FetchAsync(fetch, [&](const absl::Status& s) {
      status = s;
      done.Notify();
    });
    server->Stop();
    REQUIRE(done.WaitForNotificationWithTimeout(kWait));
    // Whether Stop came before, during or after the transfer.
    if (!status.ok()) {
      CHECK_THAT(status, StatusIs(absl::StatusCode::kUnavailable));
    }
  }
  SECTION("a client in the middle of a big response that stopped reading") {
    const uint64_t ticket = server->Register(1, big);
    const int fd = ConnectRaw(server->address());
    const std::string request =
        Request("DFXB", kBulkProtocolVersion, ticket, 0, big.TotalBytes());
    REQUIRE(::send(fd, request.data(), request.size(), 0) ==
            static_cast<ssize_t>(request.size()));
    char first[1];
    REQUIRE(::recv(fd, first, 1, 0) == 1);  // the server is sending
    server->Stop();  // returns although the send cannot finish
    CHECK(ReadsToEof(fd));
    ::close(fd);
  }
}

TEST_CASE("bulk: a garbage request closes its connection, nothing else") {
  auto server = StartServer();
  BulkClient client;
  const uint64_t ticket = server->Register(1, Pattern(100));
  SECTION("bad magic") {
    const int fd = ConnectRaw(server->address());
    const std::string garbage = Request("GET ", 1, 0, 0, 0);
    REQUIRE(::send(fd, garbage.data(), garbage.size(), 0) ==
            static_cast<ssize_t>(garbage.size()));
    char buf[16];
    CHECK(::recv(fd, buf, sizeof(buf), 0) == 0);  // closed, no response
    ::close(fd);
  }
  SECTION("another version") {
    const int fd = ConnectRaw(server->address());
    const std::string request = Request("DFXB", 7, ticket, 0, 10);
    REQUIRE(::send(fd, request.data(), request.size(), 0) ==
            static_cast<ssize_t>(request.size()));
    char header[kBulkResponseHeaderBytes];
    REQUIRE(::recv(fd, header, sizeof(header), MSG_WAITALL) ==
            static_cast<ssize_t>(sizeof(header)));
    CHECK(header[0] == static_cast<char>(absl::StatusCode::kUnimplemented));
    CHECK(ReadsToEof(fd));
    ::close(fd);
  }
  std::vector<uint8_t> got;
  REQUIRE_OK(Fetch(client, MakeFetch(server->address(), ticket, &got, 0, 100)));
}

TEST_CASE("bulk: a server with a token serves only fetches that carry it") {
  BulkServer::Options options;
  options.auth_token = "s3cret-token";
  auto server = StartServer(options);
  BulkClient client;
  const Tensor tensor = Pattern(100);
  const uint64_t ticket = server->Register(1, tensor);
  std::vector<uint8_t> got;
  SECTION("no token") {
    const absl::Status s =
        Fetch(client, MakeFetch(server->address(), ticket, &got, 0, 100));
    CHECK_THAT(s, StatusIs(absl::StatusCode::kUnauthenticated));
    CHECK_THAT(std::string(s.message()),
               Catch::Contains("missing or wrong auth token"));
    CHECK_FALSE(absl::StrContains(s.message(), "s3cret"));
  }
  SECTION("a wrong token, of the same length or not") {
    for (const char* wrong : {"s3cret-tokeN", "s3cret", "s3cret-token-and"}) {
      BulkClient::Fetch fetch =
          MakeFetch(server->address(), ticket, &got, 0, 100);
      fetch.auth_token = wrong;
      CHECK_THAT(Fetch(client, fetch),
                 StatusIs(absl::StatusCode::kUnauthenticated));
    }
  }
  SECTION("a raw request without the token gets no bytes") {
    const int fd = ConnectRaw(server->address());
    const std::string request =
        Request("DFXB", kBulkProtocolVersion, ticket, 0, 100);
    REQUIRE(::send(fd, request.data(), request.size(), 0) ==
            static_cast<ssize_t>(request.size()));
    char header[kBulkResponseHeaderBytes];
    REQUIRE(::recv(fd, header, sizeof(header), MSG_WAITALL) ==
            static_cast<ssize_t>(sizeof(header)));
    CHECK(header[0] == static_cast<char>(absl::StatusCode::kUnauthenticated));
    ::close(fd);
  }
  // Refused fetches leave the tensor in place; the right token gets it.
  BulkClient::Fetch fetch = MakeFetch(server->address(), ticket, &got, 0, 100);
  fetch.auth_token = "s3cret-token";
  REQUIRE_OK(Fetch(client, fetch));
  CHECK(std::memcmp(got.data(), tensor.raw_data(), 100) == 0);
}

// TLS contexts from certificates made in a temporary directory.
struct TlsSetup {
  TlsSetup() {
    testing::MakeTestCerts(dir);
    ca = testing::ReadFile(dir.File("ca.pem"));
    cert = testing::ReadFile(dir.File("cert.pem"));
    key = testing::ReadFile(dir.File("key.pem"));
  }
  std::shared_ptr<const BulkTls> Server(int client_auth) const {
    BulkTls::Config config;
    config.cert_pem = cert;
    config.key_pem = key;
    config.ca_pem = ca;
    config.client_auth = client_auth;
    auto tls = BulkTls::NewServer(config);
    REQUIRE_OK(tls);
    return *tls;
  }
  std::shared_ptr<const BulkTls> Client(const std::string& ca_pem,
                                        bool with_cert) const {
    BulkTls::Config config;
    config.ca_pem = ca_pem;
    if (with_cert) {
      config.cert_pem = cert;
      config.key_pem = key;
    }
    auto tls = BulkTls::NewClient(config);
    REQUIRE_OK(tls);
    return *tls;
  }
  testing::TempDir dir;
  std::string ca, cert, key;
};

TEST_CASE("bulk: over TLS, fetches verify the server and return the bytes") {
  TlsSetup tls;
  BulkServer::Options options;
  options.tls = tls.Server(/*client_auth=*/2);
  options.auth_token = "tls-token";
  auto server = StartServer(options);
  BulkClient client;
  const Tensor tensor = Pattern(3 << 20, 5);  // 3 MiB
  const uint64_t n = tensor.TotalBytes();
  const uint64_t ticket = server->Register(1, tensor);
  std::vector<uint8_t> got;
  const std::shared_ptr<const BulkTls> client_tls =
      tls.Client(tls.ca, /*with_cert=*/true);
  auto fetch = [&](uint64_t offset, uint64_t length) {
    BulkClient::Fetch f =
        MakeFetch(server->address(), ticket, &got, offset, length);
    f.tls = client_tls;
    f.tls_host = "127.0.0.1";
    f.auth_token = "tls-token";
    return f;
  };

  SECTION("a plaintext client gets nothing") {
    const absl::Status s =
        Fetch(client, MakeFetch(server->address(), ticket, &got, 0, n));
    CHECK_THAT(s, StatusIs(absl::StatusCode::kUnavailable));
  }
  SECTION("a client that does not trust the server's CA") {
    BulkClient::Fetch f = fetch(0, n);
    f.tls = tls.Client(testing::ReadFile(tls.dir.File("otherca.pem")), true);
    const absl::Status s = Fetch(client, f);
    CHECK_THAT(s, StatusIs(absl::StatusCode::kUnavailable, "TLS handshake"));
    CHECK(IsBulkConnectError(s));
  }
  SECTION("a certificate that does not name the host dialled") {
    BulkClient::Fetch f = fetch(0, n);
    f.tls_host = "10.9.8.7";
    const absl::Status s = Fetch(client, f);
    CHECK_THAT(s, StatusIs(absl::StatusCode::kUnavailable, "TLS handshake"));
    CHECK(IsBulkConnectError(s));
  }
  SECTION("a client without a certificate, the server requiring one") {
    BulkClient::Fetch f = fetch(0, n);
    f.tls = tls.Client(tls.ca, /*with_cert=*/false);
    CHECK_FALSE(Fetch(client, f).ok());
  }
  SECTION("the right token is still needed") {
    BulkClient::Fetch f = fetch(0, n);
    f.auth_token = "wrong";
    CHECK_THAT(Fetch(client, f),
               StatusIs(absl::StatusCode::kUnauthenticated));
  }
  // The tensor is still there: whole, then again in two ranges on a pooled
  // TLS connection.
  REQUIRE_OK(Fetch(client, fetch(0, n)));
  CHECK(std::memcmp(got.data(), tensor.raw_data(), n) == 0);
  const uint64_t ticket2 = server->Register(2, tensor);
  const int64_t accepted = server->NumConnectionsAccepted();
  for (uint64_t offset : {uint64_t{0}, n / 2}) {
    BulkClient::Fetch f = fetch(offset, n / 2);
    f.ticket = ticket2;
    REQUIRE_OK(Fetch(client, f));
    CHECK(std::memcmp(got.data(),
                      static_cast<const char*>(tensor.raw_data()) + offset,
                      n / 2) == 0);
  }
  CHECK(server->NumConnectionsAccepted() == accepted);
}

TEST_CASE("bulk: connections past the limit are refused") {
  BulkServer::Options options;
  options.max_connections = 1;
  auto server = StartServer(options);
  const uint64_t ticket = server->Register(1, Pattern(100));
  // Holds the one connection: served, and left open.
  const int fd = ConnectRaw(server->address());
  const std::string request =
      Request("DFXB", kBulkProtocolVersion, ticket, 0, 10);
  REQUIRE(::send(fd, request.data(), request.size(), 0) ==
          static_cast<ssize_t>(request.size()));
  char response[kBulkResponseHeaderBytes + 10];
  REQUIRE(::recv(fd, response, sizeof(response), MSG_WAITALL) ==
          static_cast<ssize_t>(sizeof(response)));
  BulkClient client;
  std::vector<uint8_t> got;
  const absl::Status status =
      Fetch(client, MakeFetch(server->address(), ticket, &got, 10, 10));
  CHECK_FALSE(status.ok());
  CHECK_FALSE(IsBulkConnectError(status));
  ::close(fd);
}

TEST_CASE("bulk: destroying the client cancels its fetches") {
  auto client = std::make_unique<BulkClient>();
  absl::Notification finished;
  FakeServer fake([&](int fd) {
    SendPartial(fd, 1 << 20, 10);
    finished.WaitForNotificationWithTimeout(kWait);
  });
  std::vector<uint8_t> got(1 << 20);
  absl::Notification done;
  absl::Status status;
  BulkClient::Fetch fetch = MakeFetch(fake.address(), 1, &got, 0, 1 << 20);
  client->FetchAsync(fetch, [&](const absl::Status& s) {
    status = s;
    done.Notify();
  });
  client.reset();
  REQUIRE(done.HasBeenNotified());
  CHECK_THAT(status, StatusIs(absl::StatusCode::kCancelled));
  finished.Notify();
}

TEST_CASE("bulk: the client may be destroyed from within a done") {
  auto server = StartServer();
  auto client = std::make_unique<BulkClient>();
  const uint64_t ticket = server->Register(1, Pattern(100));
  std::vector<uint8_t> got;
  absl::Notification done;
  absl::Status status;
  client->FetchAsync(MakeFetch(server->address(), ticket, &got, 0, 100),
                     [&](const absl::Status& s) {
                       status = s;
                       client.reset();
                       done.Notify();
                     });
  REQUIRE(done.WaitForNotificationWithTimeout(kWait));
  REQUIRE_OK(status);
  CHECK(client == nullptr);
}

TEST_CASE("bulk: the address names the host listened on") {
  SECTION("a name resolves to its numeric address") {
    BulkServer::Options options;
    options.bind_host = "localhost";
    auto server = StartServer(options);
    const std::string& a = server->address();
    CHECK((absl::StartsWith(a, "127.0.0.1:") || absl::StartsWith(a, "[::1]:")));
    BulkClient client;
    const uint64_t ticket = server->Register(1, Pattern(10));
    std::vector<uint8_t> got;
    REQUIRE_OK(Fetch(client, MakeFetch(a, ticket, &got, 0, 10)));
  }
  SECTION("a wildcard leaves the host to the client") {
    BulkServer::Options options;
    options.bind_host = "0.0.0.0";
    auto server = StartServer(options);
    CHECK(absl::StartsWith(server->address(), ":"));
  }
  SECTION("a host that does not resolve is Unavailable") {
    BulkServer::Options options;
    options.bind_host = "no-such-host.invalid";
    CHECK_THAT(
        BulkServer::Start(options).status(),
        StatusIs(absl::StatusCode::kUnavailable, "no-such-host.invalid"));
  }
}


// ---------------------------------------------------------------------------
// Within the host: the local socket and its shared-memory files.

int64_t LocalBytesReceived() { return BulkLocalBytesReceived()->Value(); }

TEST_CASE("bulk: on this host, fetches come as shared memory") {
  auto server = StartServer();
  const std::string local = server->local_address();
  REQUIRE(absl::StartsWith(local, "@dfx-bulk-"));
  BulkClient client;
  const int64_t size = (int64_t{3} << 20) + 7;
  const Tensor sent = Pattern(size, 9);
  const uint64_t n = static_cast<uint64_t>(size);

  SECTION("ranges are copied into dst") {
    const uint64_t ticket = server->Register(1, sent);
    const int64_t before = LocalBytesReceived();
    std::vector<uint8_t> got;
    const uint64_t cut = n / 3;
    BulkClient::Fetch tail = MakeFetch(server->address(), ticket, &got, cut,
                                       n - cut);
    tail.local_address = local;
    REQUIRE_OK(Fetch(client, tail));
    CHECK(SameRange(got, sent, cut));
    BulkClient::Fetch head = MakeFetch(server->address(), ticket, &got, 0, cut);
    head.local_address = local;
    REQUIRE_OK(Fetch(client, head));
    CHECK(SameRange(got, sent, 0));
    CHECK(LocalBytesReceived() - before == size);
    // Both over one pooled local connection, none over TCP.
    CHECK(client.NumIdleConnections(local) == 1);
    CHECK(client.NumIdleConnections(server->address()) == 0);
    CHECK(testing::WaitUntil([&] { return server->NumEntries() == 0; }));
  }
  SECTION("a range bigger than a piece comes piece by piece") {
    // 5 pieces and a bit: through both segments in turn, each piece asked
    // for while the last is copied out.
    const int64_t big_size =
        5 * static_cast<int64_t>(bulk_io::kMaxLocalPieceBytes) + 3;
    const Tensor big = Pattern(big_size, 4);
    const uint64_t ticket = server->Register(1, big);
    const int64_t before = LocalBytesReceived();
    std::vector<uint8_t> got;
    BulkClient::Fetch fetch = MakeFetch(
        server->address(), ticket, &got, 0, static_cast<uint64_t>(big_size));
    fetch.local_address = local;
    REQUIRE_OK(Fetch(client, fetch));
    CHECK(SameRange(got, big, 0));
    CHECK(LocalBytesReceived() - before == big_size);
    CHECK(testing::WaitUntil([&] { return server->NumEntries() == 0; }));
    // The next, smaller transfer goes through the same shared memory.
    const uint64_t small = server->Register(2, sent);
    BulkClient::Fetch next = MakeFetch(server->address(), small, &got, 0, n);
    next.local_address = local;
    REQUIRE_OK(Fetch(client, next));
    CHECK(SameRange(got, sent, 0));
    CHECK(server->NumConnectionsAccepted() == 1);
  }
  SECTION("a raw request for more than a piece is refused, nothing else") {
    const uint64_t ticket = server->Register(1, sent);
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    REQUIRE(fd >= 0);
    sockaddr_storage addr;
    socklen_t len = 0;
    REQUIRE(bulk_io::LocalSocketAddress(local, &addr, &len));
    REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&addr), len) == 0);
    const std::string request = Request(
        "DFXB", kBulkProtocolVersion, ticket, 0,
        bulk_io::kMaxLocalPieceBytes + 1);
    REQUIRE(::send(fd, request.data(), request.size(), 0) ==
            static_cast<ssize_t>(request.size()));
    char header[kBulkResponseHeaderBytes];
    REQUIRE(::recv(fd, header, sizeof(header), MSG_WAITALL) ==
            static_cast<ssize_t>(sizeof(header)));
    CHECK(header[0] == static_cast<char>(absl::StatusCode::kInvalidArgument));
    ::close(fd);
    // The tensor is still there for a proper fetch.
    std::vector<uint8_t> got;
    BulkClient::Fetch fetch = MakeFetch(server->address(), ticket, &got, 0, n);
    fetch.local_address = local;
    REQUIRE_OK(Fetch(client, fetch));
    CHECK(SameRange(got, sent, 0));
  }
  SECTION("the server's rules hold there too") {
    std::vector<uint8_t> got;
    BulkClient::Fetch unknown = MakeFetch(server->address(), 12345, &got, 0, 1);
    unknown.local_address = local;
    CHECK_THAT(Fetch(client, unknown), StatusIs(absl::StatusCode::kNotFound));
    const uint64_t ticket = server->Register(1, sent);
    BulkClient::Fetch past = MakeFetch(server->address(), ticket, &got, n - 1,
                                       2);
    past.local_address = local;
    CHECK_THAT(Fetch(client, past), StatusIs(absl::StatusCode::kOutOfRange));
    // The connection is still good after the errors.
    BulkClient::Fetch fine = MakeFetch(server->address(), ticket, &got, 0, n);
    fine.local_address = local;
    REQUIRE_OK(Fetch(client, fine));
    CHECK(SameRange(got, sent, 0));
  }
}

TEST_CASE("bulk: a local address nobody listens at falls back to TCP") {
  auto server = StartServer();
  BulkClient client;
  const Tensor sent = Pattern(4097, 2);
  const int64_t before = LocalBytesReceived();
  for (int64_t step : {1, 2}) {
    const uint64_t ticket = server->Register(step, sent);
    std::vector<uint8_t> got;
    BulkClient::Fetch fetch =
        MakeFetch(server->address(), ticket, &got, 0, 4097);
    // Another host's server: no such abstract socket here.
    fetch.local_address = "@dfx-bulk-0000000000000000";
    REQUIRE_OK(Fetch(client, fetch));
    CHECK(SameRange(got, sent, 0));
  }
  CHECK(LocalBytesReceived() == before);
  CHECK(client.NumIdleConnections(server->address()) == 1);
}

TEST_CASE("bulk: the local socket asks for the token too") {
  BulkServer::Options options;
  options.auth_token = "s3cret-token";
  auto server = StartServer(options);
  BulkClient client;
  const Tensor sent = Pattern(100);
  const uint64_t ticket = server->Register(1, sent);
  const int64_t before = LocalBytesReceived();
  std::vector<uint8_t> got;
  BulkClient::Fetch fetch = MakeFetch(server->address(), ticket, &got, 0, 100);
  fetch.local_address = server->local_address();
  CHECK_THAT(Fetch(client, fetch),
             StatusIs(absl::StatusCode::kUnauthenticated));
  fetch.auth_token = "s3cret-token";
  REQUIRE_OK(Fetch(client, fetch));
  CHECK(SameRange(got, sent, 0));
  CHECK(LocalBytesReceived() - before == 100);
}

TEST_CASE("bulk: the local socket serves only its own user") {
  if (::geteuid() != 0) {
    WARN("SKIPPED: needs root, to connect as another user");
    return;
  }
  auto server = StartServer();
  const std::string local = server->local_address();
  const uint64_t ticket = server->Register(1, Pattern(100));
  const std::string request =
      Request("DFXB", kBulkProtocolVersion, ticket, 0, 100);
  sockaddr_storage addr;
  socklen_t len = 0;
  REQUIRE(bulk_io::LocalSocketAddress(local, &addr, &len));
  // A child that becomes "nobody" asks for the tensor; its exit status is
  // the response's code (system calls only between fork and _exit).
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    if (::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(100);
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0 || ::connect(fd, reinterpret_cast<sockaddr*>(&addr), len) != 0) {
      ::_exit(101);
    }
    // The server answers a stranger at once, without reading, and closes:
    // the send may find the connection closed (no SIGPIPE then; the answer
    // is read all the same).
    (void)::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
    char header[kBulkResponseHeaderBytes];
    if (::recv(fd, header, sizeof(header), MSG_WAITALL) !=
        static_cast<ssize_t>(sizeof(header))) {
      ::_exit(103);
    }
    ::_exit(static_cast<unsigned char>(header[0]));
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) ==
        static_cast<int>(absl::StatusCode::kPermissionDenied));
  // Nothing was served: the tensor is still held.
  CHECK(server->NumEntries() == 1);
}

TEST_CASE("bulk: a server without the local socket offers none") {
  BulkServer::Options options;
  options.local = false;
  auto server = StartServer(options);
  CHECK(server->local_address().empty());
}

}  // namespace
}  // namespace dfx

// A cluster of real `dfx server` processes on 127.0.0.1 for integration
// tests: started on free ports, waited for, signalled, and killed at the
// end of the test whatever happened.
//
// Secure mode (DFX_TEST_SECURE=1 in the environment, or asked for; or an
// auth token alone): every server runs with TLS (a CA and a certificate for IP 127.0.0.1 made with
// the openssl command in the cluster's temporary directory), mutual TLS
// required, and an auth token; sessions made with Session::Create (and
// client_security()) get the matching client settings, so a test written
// for a plain cluster runs unchanged on a secure one.
#ifndef DFX_TESTS_INTEGRATION_TEST_CLUSTER_H_
#define DFX_TESTS_INTEGRATION_TEST_CLUSTER_H_

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <map>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/time/clock.h"
#include "catch2/catch.hpp"
#include "rpc/cluster_spec.h"
#include "rpc/grpc_session.h"
#include "rpc/grpc_util.h"
#include "rpc/security.h"
#include "tests/testing/test_certs.h"
#include "tests/tools/cli_test_util.h"

namespace dfx::testing {

inline int PickFreePort() {
  absl::StatusOr<int> port = PickFreeLoopbackPort();
  REQUIRE(port.ok());
  return *port;
}

class TestCluster {
 public:
  enum class Security {
    kPlain,
    // TLS with mutual TLS required, and an auth token.
    kTlsAndToken,
    // An auth token only (the bulk plane stays on).
    kToken,
  };

  // The security DFX_TEST_SECURE asks for: kTlsAndToken when it is "1".
  static Security SecurityFromEnv() {
    const char* secure = std::getenv("DFX_TEST_SECURE");
    return secure != nullptr && std::string(secure) == "1"
               ? Security::kTlsAndToken
               : Security::kPlain;
  }

  // jobs: {"worker", 2}, {"ps", 1} ... Extra flags go to every server.
  TestCluster(std::vector<std::pair<std::string, int>> jobs,
              std::vector<std::string> server_flags = {},
              Security security = SecurityFromEnv())
      : flags_(std::move(server_flags)) {
    if (security != Security::kPlain) {
      SetUpSecurity(security == Security::kTlsAndToken);
    }
    // Free ports are picked before the servers bind them, so a test
    // running beside this one may take one in between: start again on
    // new ports then.
    for (int attempt = 0; attempt < 3; ++attempt) {
      if (TryStart(jobs)) return;
      KillAll();
    }
    FAIL("the cluster did not start in 3 attempts:\n" << last_failure_);
  }

  ~TestCluster() {
    KillAll();
    if (secure_) SetDefaultGrpcSessionOptions({});
  }

  bool secure() const { return secure_; }
  // What a client needs to reach the servers (plaintext without a token
  // unless the cluster is secure); Session::Create uses it too.
  const ChannelSecurity& client_security() const { return client_security_; }
  // The flags of the files every server got ("--auth-token-file", ...),
  // for `dfx run`; empty unless the cluster is secure.
  const std::vector<std::string>& client_flags() const {
    return client_flags_;
  }
  // A file of the cluster's temporary directory (certificates: ca.pem,
  // cert.pem, key.pem, other.pem, other.key; the token: token).
  std::string File(const std::string& name) const { return dir_.File(name); }

  const std::string& json() const { return json_; }
  std::string Address(const std::string& job, int task) const {
    return addresses_.at(Key(job, task));
  }
  std::string Target(const std::string& job = "worker", int task = 0) const {
    return "grpc://" + Address(job, task);
  }
  pid_t Pid(const std::string& job, int task) const {
    return pids_.at(Key(job, task));
  }
  std::string Log(const std::string& job, int task) const {
    return ReadFile(dir_.File(Key(job, task) + ".log"));
  }

  // The status page's URL of a server started with --http-port, from the
  // "status page at URL" line it prints once it serves; fails after 30 s
  // without one.
  std::string StatusUrl(const std::string& job, int task) const {
    constexpr absl::string_view kPrefix = "dfx server: status page at ";
    const absl::Time give_up = absl::Now() + absl::Seconds(30);
    while (absl::Now() < give_up) {
      const std::string log = Log(job, task);
      for (size_t begin = 0; begin < log.size();) {
        size_t end = log.find('\n', begin);
        if (end == std::string::npos) end = log.size();
        const absl::string_view line(log.data() + begin, end - begin);
        if (absl::StartsWith(line, kPrefix)) {
          return std::string(line.substr(kPrefix.size()));
        }
        begin = end + 1;
      }
      absl::SleepFor(absl::Milliseconds(20));
    }
    FAIL("no status page line in the log of " << job << ":" << task << ":\n"
                                              << Log(job, task));
    return "";
  }

  void Signal(const std::string& job, int task, int signal) {
    REQUIRE(::kill(Pid(job, task), signal) == 0);
  }

  // SIGSTOP, then waits until every thread of the task has stopped (a
  // busy machine may let a thread finish a call after kill() returns).
  void Freeze(const std::string& job, int task) {
    Signal(job, task, SIGSTOP);
    const std::string dir = absl::StrCat("/proc/", Pid(job, task), "/task");
    const absl::Time give_up = absl::Now() + absl::Seconds(30);
    while (absl::Now() < give_up) {
      bool all_stopped = true;
      for (const auto& thread : std::filesystem::directory_iterator(dir)) {
        const std::string stat = ReadFile(thread.path().string() + "/stat");
        const size_t paren = stat.rfind(')');
        if (paren == std::string::npos || paren + 2 >= stat.size() ||
            stat[paren + 2] != 'T') {
          all_stopped = false;
          break;
        }
      }
      if (all_stopped) return;
      absl::SleepFor(absl::Milliseconds(1));
    }
    FAIL("task " << job << ":" << task << " did not stop");
  }

  // Waits for the task's process to exit; its exit code, or -1 after a
  // signal, or -2 when it did not exit within `limit`.
  int WaitExit(const std::string& job, int task,
               absl::Duration limit = absl::Seconds(30)) {
    pid_t& pid = pids_.at(Key(job, task));
    const absl::Time deadline = absl::Now() + limit;
    while (absl::Now() < deadline) {
      int status = 0;
      const pid_t r = ::waitpid(pid, &status, WNOHANG);
      if (r == pid) {
        pid = 0;
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      }
      absl::SleepFor(absl::Milliseconds(10));
    }
    return -2;
  }

  // Starts the task again (after Kill, or killing it first) on its address,
  // with the same flags: a new process, so new device incarnations. Its log
  // goes on after the old one's. Waits until it serves.
  void Restart(const std::string& job, int task) {
    Kill(job, task);
    const std::string key = Key(job, task);
    Start(key, /*append_log=*/true);
    const bool ready = WaitReady(key);
    INFO(last_failure_);
    REQUIRE(ready);
  }

  // Kills the task with SIGKILL and reaps it. Its port stays bound (not
  // listening: connections are refused, as by a dead host) until Restart,
  // so that a server of a test running beside this one cannot take it
  // meanwhile and answer for the task.
  void Kill(const std::string& job, int task) {
    const std::string key = Key(job, task);
    pid_t& pid = pids_.at(key);
    if (pid <= 0) return;
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    pid = 0;
    HoldPort(key);
  }

 private:
  bool TryStart(const std::vector<std::pair<std::string, int>>& jobs) {
    addresses_.clear();
    pids_.clear();
    json_ = "{";
    for (const auto& [job, n] : jobs) {
      if (json_.size() > 1) json_ += ", ";
      absl::StrAppend(&json_, "\"", job, "\": [");
      for (int i = 0; i < n; ++i) {
        const std::string address =
            absl::StrCat("127.0.0.1:", PickFreePort());
        absl::StrAppend(&json_, i > 0 ? ", " : "", "\"", address, "\"");
        addresses_[Key(job, i)] = address;
      }
      json_ += "]";
    }
    json_ += "}";
    for (const auto& [key, address] : addresses_) Start(key);
    for (const auto& [key, address] : addresses_) {
      if (!WaitReady(key)) return false;
    }
    return true;
  }

  void SetUpSecurity(bool tls) {
    dir_.Write("token", "dfx-test-token-4f9c2a\n");
    REQUIRE(::chmod(dir_.File("token").c_str(), 0600) == 0);
    flags_.insert(flags_.end(), {"--auth-token-file", dir_.File("token")});
    client_flags_ = {"--auth-token-file", dir_.File("token")};
    client_security_.auth_token = "dfx-test-token-4f9c2a";
    if (tls) {
      MakeTestCerts(dir_);
      flags_.insert(flags_.end(),
                    {"--tls-cert", dir_.File("cert.pem"), "--tls-key",
                     dir_.File("key.pem"), "--tls-ca", dir_.File("ca.pem"),
                     "--tls-client-auth", "require"});
      client_flags_.insert(client_flags_.end(),
                           {"--tls-ca", dir_.File("ca.pem"), "--tls-cert",
                            dir_.File("cert.pem"), "--tls-key",
                            dir_.File("key.pem")});
      client_security_.tls = true;
      client_security_.tls_ca_pem = ReadFile(dir_.File("ca.pem"));
      client_security_.tls_cert_pem = ReadFile(dir_.File("cert.pem"));
      client_security_.tls_key_pem = ReadFile(dir_.File("key.pem"));
    }
    GrpcSessionOptions session_options;
    session_options.security = client_security_;
    SetDefaultGrpcSessionOptions(session_options);
    secure_ = true;
  }

  void KillAll() {
    for (auto& [key, pid] : pids_) {
      if (pid > 0) {
        ::kill(pid, SIGKILL);
        ::waitpid(pid, nullptr, 0);
        pid = 0;
      }
    }
    for (auto& [key, fd] : held_ports_) ::close(fd);
    held_ports_.clear();
  }

  // Binds the killed task's port (best effort). SO_REUSEADDR lets the bind
  // pass the dead server's connections in TIME_WAIT; another process's
  // bind to port 0 (PickFreeLoopbackPort) still skips a bound port.
  void HoldPort(const std::string& key) {
    const std::string& address = addresses_.at(key);
    int port = 0;
    if (!absl::SimpleAtoi(address.substr(address.rfind(':') + 1), &port)) {
      return;
    }
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return;
    const int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(static_cast<uint16_t>(port));
    if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
      ::close(fd);
      return;
    }
    held_ports_[key] = fd;
  }

  void ReleasePort(const std::string& key) {
    auto it = held_ports_.find(key);
    if (it == held_ports_.end()) return;
    ::close(it->second);
    held_ports_.erase(it);
  }

  static std::string Key(const std::string& job, int task) {
    return absl::StrCat(job, "-", task);
  }

  void Start(const std::string& key, bool append_log = false) {
    ReleasePort(key);
    const size_t dash = key.rfind('-');
    const std::string job = key.substr(0, dash);
    const std::string task = key.substr(dash + 1);
    const std::string bin = DFX_BIN_DIR "/dfx";
    std::vector<std::string> args = {bin,    "server", "--cluster", json_,
                                     "--job", job,     "--task",    task};
    args.insert(args.end(), flags_.begin(), flags_.end());
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    const std::string log = dir_.File(key + ".log");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(
        &actions, 1, log.c_str(),
        O_WRONLY | O_CREAT | (append_log ? O_APPEND : O_TRUNC), 0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    // The server goes when this test process does, however it ends.
    std::vector<std::string> env_strings;
    for (char** e = environ; *e != nullptr; ++e) {
      // Set once below, whatever this process has.
      if (std::string_view(*e).starts_with("DFX_EXIT_WITH_PARENT=")) continue;
      env_strings.push_back(*e);
    }
    env_strings.push_back("DFX_EXIT_WITH_PARENT=1");
    std::vector<char*> envp;
    for (std::string& e : env_strings) envp.push_back(e.data());
    envp.push_back(nullptr);
    pid_t pid = 0;
    const int rc = ::posix_spawn(&pid, bin.c_str(), &actions, nullptr,
                                 argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    REQUIRE(rc == 0);
    pids_[key] = pid;
  }

  // "/job:ps/replica:0/task:1" for key "ps-1".
  static std::string TaskOfKey(const std::string& key) {
    const size_t dash = key.rfind('-');
    return TaskName(key.substr(0, dash), std::stoi(key.substr(dash + 1)));
  }

  // False (and last_failure_ says why) when the server exited, did not
  // answer GetStatus within 60 s, or is not the task (a server of another
  // test took the port first).
  bool WaitReady(const std::string& key) {
    pid_t& pid = pids_.at(key);
    absl::Status s = WaitForWorkerReady(
        addresses_.at(key), absl::Now() + absl::Seconds(60), [&pid] {
          int status = 0;
          if (::waitpid(pid, &status, WNOHANG) == 0) return true;
          pid = 0;  // exited (and reaped)
          return false;
        },
        client_security_, TaskOfKey(key));
    if (s.ok()) return true;
    last_failure_ = absl::StrCat(
        "server ", key, pid == 0 ? " exited while starting" : "", ": ",
        s.message(), "\n", ReadFile(dir_.File(key + ".log")));
    return false;
  }

  TempDir dir_;
  bool secure_ = false;
  ChannelSecurity client_security_;
  std::vector<std::string> client_flags_;
  std::vector<std::string> flags_;
  std::string json_;
  std::map<std::string, std::string> addresses_;
  std::map<std::string, pid_t> pids_;
  // Sockets holding killed tasks' ports, by key.
  std::map<std::string, int> held_ports_;
  std::string last_failure_;
};

// For a cluster whose servers probe each other from their start (the
// status page's health probes): a task that asked a peer for its status
// before the peer listened holds that channel in gRPC's reconnect backoff
// for up to 1 s, and fail-fast calls through it (creating a session, which
// asks every task for its devices; a step) fail with Unavailable
// meanwhile. These retry for up to 20 s while that happens; later calls
// need no retry.
inline absl::Status ExtendFirst(Session* session, const GraphDef& graph) {
  const absl::Time deadline = absl::Now() + absl::Seconds(20);
  while (true) {
    absl::Status s = session->Extend(graph);
    if (!absl::IsUnavailable(s) || absl::Now() > deadline) return s;
    absl::SleepFor(absl::Milliseconds(100));
  }
}
inline absl::Status RunFirstStep(
    Session* session, const std::vector<std::pair<std::string, Tensor>>& feeds,
    const std::vector<std::string>& fetches,
    const std::vector<std::string>& targets, std::vector<Tensor>* out) {
  const absl::Time deadline = absl::Now() + absl::Seconds(20);
  while (true) {
    absl::Status s = session->Run(feeds, fetches, targets, out);
    if (!absl::IsUnavailable(s) || absl::Now() > deadline) return s;
    absl::SleepFor(absl::Milliseconds(100));
  }
}

}  // namespace dfx::testing

#endif  // DFX_TESTS_INTEGRATION_TEST_CLUSTER_H_

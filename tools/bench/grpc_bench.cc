#include "tools/bench/grpc_bench.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "graph/builder/ops.h"
#include "graph/builder/scope.h"
#include "graph/builder/strategy.h"
#include "graph/builder/train.h"
#include "google/protobuf/text_format.h"
#include "grpcpp/generic/async_generic_service.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/security/server_credentials.h"
#include "grpcpp/server.h"
#include "grpcpp/server_builder.h"
#include "rpc/grpc_remote_worker.h"
#include "rpc/grpc_util.h"
#include "base/status_macros.h"
#include "runtime/chrome_trace.h"
#include "runtime/rendezvous.h"
#include "runtime/session.h"

extern char** environ;

namespace dfx {
namespace {

using Clock = std::chrono::steady_clock;

double Micros(Clock::duration d) {
  return std::chrono::duration<double, std::micro>(d).count();
}

// A child process killed (SIGTERM, then SIGKILL) when this goes away.
class Child {
 public:
  explicit Child(std::vector<std::string> args) {
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    if (std::getenv("DFX_BENCH_SERVER_LOGS") == nullptr) {
      posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    }
    if (::posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(),
                      environ) != 0) {
      pid_ = 0;
    }
    posix_spawn_file_actions_destroy(&actions);
  }
  ~Child() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGTERM);
    for (int i = 0; i < 500; ++i) {
      if (::waitpid(pid_, nullptr, WNOHANG) == pid_) return;
      absl::SleepFor(absl::Milliseconds(10));
    }
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  bool ok() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = 0;
};

std::string BinDir() {
  return std::filesystem::read_symlink("/proc/self/exe").parent_path();
}

// A cluster of `dfx server` processes: job "worker", `n` tasks, each
// started with `flags` too.
class BenchCluster {
 public:
  explicit BenchCluster(int n, const std::vector<std::string>& flags = {}) {
    std::string json = "{\"worker\": [";
    const std::vector<int> ports = PickFreeLoopbackPorts(n).value();
    for (int i = 0; i < n; ++i) {
      addresses_.push_back(absl::StrCat("127.0.0.1:", ports[i]));
      absl::StrAppend(&json, i > 0 ? ", " : "", "\"", addresses_.back(),
                      "\"");
    }
    json += "]}";
    for (int i = 0; i < n; ++i) {
      std::vector<std::string> args = {BinDir() + "/dfx", "server",
                                       "--cluster", json, "--job", "worker",
                                       "--task", std::to_string(i)};
      args.insert(args.end(), flags.begin(), flags.end());
      children_.push_back(std::make_unique<Child>(std::move(args)));
    }
    for (const std::string& a : addresses_) {
      ok_ = ok_ &&
            WaitForWorkerReady(a, absl::Now() + absl::Seconds(60), nullptr).ok();
    }
  }
  bool ok() const { return ok_; }
  const std::string& address(int i) const { return addresses_[i]; }

 private:
  std::vector<std::string> addresses_;
  std::vector<std::unique_ptr<Child>> children_;
  bool ok_ = true;
};

// The echo service: every call's request comes back as its response; on
// "/bench.Echo/Stream" every message of the stream comes back, in order,
// until the client closes its side.
class EchoService : public grpc::CallbackGenericService {
  class Reactor : public grpc::ServerGenericBidiReactor {
   public:
    explicit Reactor(bool stream) : stream_(stream) { StartRead(&buffer_); }
    void OnReadDone(bool ok) override {
      if (!ok) {
        Finish(grpc::Status::OK);
      } else if (stream_) {
        StartWrite(&buffer_);
      } else {
        StartWriteAndFinish(&buffer_, grpc::WriteOptions(), grpc::Status::OK);
      }
    }
    void OnWriteDone(bool ok) override {
      if (ok) {
        StartRead(&buffer_);
      } else {
        Finish(grpc::Status::OK);
      }
    }
    void OnDone() override { delete this; }

   private:
    const bool stream_;
    grpc::ByteBuffer buffer_;
  };

 public:
  grpc::ServerGenericBidiReactor* CreateReactor(
      grpc::GenericCallbackServerContext* context) override {
    return new Reactor(context->method() == "/bench.Echo/Stream");
  }
};

// The same echo on gRPC's completion-queue API, driven by one thread of
// its own: the baseline a server without the callback API's threads would
// have. Every call is served as a stream (a unary call's one message comes
// back before its status).
class QueueEchoCall {
 public:
  QueueEchoCall(grpc::AsyncGenericService* service,
                grpc::ServerCompletionQueue* queue)
      : service_(service), queue_(queue) {
    service_->RequestCall(&context_, &stream_, queue_, queue_, this);
  }
  // Advances the call by one completion; false once it is over.
  void Proceed(bool ok) {
    switch (state_) {
      case State::kRequested:
        if (!ok) return delete this;  // shutting down
        new QueueEchoCall(service_, queue_);
        state_ = State::kReading;
        stream_.Read(&buffer_, this);
        return;
      case State::kReading:
        if (!ok) {
          state_ = State::kFinishing;
          stream_.Finish(grpc::Status::OK, this);
          return;
        }
        state_ = State::kWriting;
        stream_.Write(buffer_, this);
        return;
      case State::kWriting:
        state_ = ok ? State::kReading : State::kFinishing;
        if (ok) {
          stream_.Read(&buffer_, this);
        } else {
          stream_.Finish(grpc::Status::OK, this);
        }
        return;
      case State::kFinishing:
        delete this;
        return;
    }
  }

 private:
  enum class State { kRequested, kReading, kWriting, kFinishing };
  grpc::AsyncGenericService* const service_;
  grpc::ServerCompletionQueue* const queue_;
  grpc::GenericServerContext context_;
  grpc::GenericServerAsyncReaderWriter stream_{&context_};
  grpc::ByteBuffer buffer_;
  State state_ = State::kRequested;
};

// Microseconds per round trip of a unary call carrying `payload` bytes.
double EchoRoundTrip(const std::string& address, int calls) {
  grpc::GenericStub stub(NewChannel(address));
  std::string payload(16, 'x');
  grpc::Slice slice(payload);
  grpc::ByteBuffer request(&slice, 1);
  auto once = [&]() -> bool {
    grpc::ClientContext context;
    // The echo server is another process that may still be starting (on
    // a loaded machine, for seconds): wait for it rather than fail.
    context.set_wait_for_ready(true);
    context.set_deadline(std::chrono::system_clock::now() +
                         std::chrono::seconds(30));
    grpc::ByteBuffer response;
    absl::Notification done;
    bool ok = false;
    stub.UnaryCall(&context, "/bench.Echo/Echo", grpc::StubOptions(),
                   &request, &response, [&](grpc::Status s) {
                     ok = s.ok();
                     done.Notify();
                   });
    return done.WaitForNotificationWithTimeout(absl::Seconds(30)) && ok;
  };
  for (int i = 0; i < 50; ++i) {
    if (!once()) return -1;
  }
  const auto start = Clock::now();
  for (int i = 0; i < calls; ++i) {
    if (!once()) return -1;
  }
  return Micros(Clock::now() - start) / calls;
}

// CPU seconds (user + system) process `pid` has used so far; -1 if unknown.
double ProcessCpuSeconds(pid_t pid) {
  FILE* f = std::fopen(absl::StrCat("/proc/", pid, "/stat").c_str(), "r");
  if (f == nullptr) return -1;
  char buf[1024];
  const size_t n = std::fread(buf, 1, sizeof(buf) - 1, f);
  std::fclose(f);
  buf[n] = '\0';
  // Fields after the command's closing parenthesis: utime is the 12th,
  // stime the 13th.
  const char* rest = std::strrchr(buf, ')');
  if (rest == nullptr) return -1;
  std::vector<absl::string_view> fields =
      absl::StrSplit(rest + 1, ' ', absl::SkipEmpty());
  int64_t user = 0, system = 0;
  if (fields.size() < 13 || !absl::SimpleAtoi(fields[11], &user) ||
      !absl::SimpleAtoi(fields[12], &system)) {
    return -1;
  }
  return static_cast<double>(user + system) / ::sysconf(_SC_CLK_TCK);
}

// Microseconds per message of 16 bytes echoed over one stream to
// `address`: one at a time (`pipelined` false: write, wait for its echo,
// then the next) or with a write and a read always outstanding. Best of 3
// rounds of `messages`; -1 on failure.
double StreamEchoMicros(const std::string& address, int messages,
                        bool pipelined) {
  grpc::GenericStub stub(NewChannel(address));
  std::string payload(16, 's');
  grpc::Slice slice(payload);
  const grpc::ByteBuffer request(&slice, 1);
  double best = -1;
  for (int round = 0; round < 3; ++round) {
    grpc::ClientContext context;
    context.set_wait_for_ready(true);  // the server may still be starting
    context.set_deadline(std::chrono::system_clock::now() +
                         std::chrono::seconds(60));
    grpc::CompletionQueue queue;
    std::unique_ptr<grpc::GenericClientAsyncReaderWriter> stream =
        stub.PrepareCall(&context, "/bench.Echo/Stream", &queue);
    void* tag = nullptr;
    bool ok = false;
    enum : intptr_t { kStart = 1, kWrite, kRead, kClose, kFinish };
    auto next = [&]() { return queue.Next(&tag, &ok) && ok; };
    stream->StartCall(reinterpret_cast<void*>(kStart));
    if (!next()) return -1;
    grpc::ByteBuffer response;
    auto write = [&] {
      stream->Write(request, reinterpret_cast<void*>(kWrite));
    };
    auto read = [&] {
      stream->Read(&response, reinterpret_cast<void*>(kRead));
    };
    // 100 warm-up messages one at a time, then the timed ones.
    for (int i = 0; i < 100; ++i) {
      write();
      if (!next()) return -1;
      read();
      if (!next()) return -1;
    }
    const Clock::time_point start = Clock::now();
    if (!pipelined) {
      for (int i = 0; i < messages; ++i) {
        write();
        if (!next()) return -1;
        read();
        if (!next()) return -1;
      }
    } else {
      // gRPC allows one outstanding write and one outstanding read.
      int written = 1, received = 0;
      bool writing = true;
      write();
      read();
      while (received < messages || writing) {
        if (!next()) return -1;
        if (tag == reinterpret_cast<void*>(kWrite)) {
          writing = written < messages;
          if (writing) {
            ++written;
            write();
          }
        } else if (++received < messages) {
          read();
        }
      }
    }
    const double micros = Micros(Clock::now() - start) / messages;
    stream->WritesDone(reinterpret_cast<void*>(kClose));
    if (!next()) return -1;
    grpc::Status status;
    stream->Finish(&status, reinterpret_cast<void*>(kFinish));
    if (!next() || !status.ok()) return -1;
    if (best < 0 || micros < best) best = micros;
  }
  return best;
}

// Median seconds for a raw gRPC unary call to carry `bytes` one way: the
// echo's round trip of `bytes` each way, halved.
double RawGrpcSeconds(const std::string& address, int64_t bytes, int iters) {
  grpc::GenericStub stub(NewChannel(address));
  std::string payload(static_cast<size_t>(bytes), 'p');
  grpc::Slice slice(payload);
  grpc::ByteBuffer request(&slice, 1);
  std::vector<double> seconds;
  for (int i = 0; i < iters + 1; ++i) {
    grpc::ClientContext context;
    grpc::ByteBuffer response;
    absl::Notification done;
    bool ok = false;
    const auto start = Clock::now();
    stub.UnaryCall(&context, "/bench.Echo/Echo", grpc::StubOptions(),
                   &request, &response, [&](grpc::Status s) {
                     ok = s.ok();
                     done.Notify();
                   });
    if (!done.WaitForNotificationWithTimeout(absl::Seconds(120)) || !ok) {
      return -1;
    }
    std::vector<grpc::Slice> slices;
    (void)response.Dump(&slices);
    if (i > 0) seconds.push_back(Micros(Clock::now() - start) / 2e6);
  }
  std::sort(seconds.begin(), seconds.end());
  return seconds[seconds.size() / 2];
}

// Microseconds per step fetching one Const placed on `device` (empty: the
// master's CPU:0).
double NullStep(const std::string& target, const std::string& device,
                int steps) {
  Scope root = Scope::NewRootScope();
  ops::Const(root.WithOpName("c").WithDevice(device), 1.0f);
  GraphDef graph;
  if (!root.ToGraphDef(&graph).ok()) return -1;
  auto session = Session::Create(target);
  if (!session.ok() || !(*session)->Extend(graph).ok()) return -1;
  std::vector<Tensor> out;
  for (int i = 0; i < 50; ++i) {
    if (!(*session)->Run({}, {"c"}, {}, &out).ok()) return -1;
  }
  const auto start = Clock::now();
  for (int i = 0; i < steps; ++i) {
    absl::Status s = (*session)->Run({}, {"c"}, {}, &out);
    if (!s.ok()) {
      std::fprintf(stderr, "null step failed: %s\n", s.ToString().c_str());
      return -1;
    }
  }
  const double us = Micros(Clock::now() - start) / steps;
  (void)(*session)->Close();
  return us;
}

// Runs `steps` FULL_TRACE null steps (the Const on `device`) after two
// untraced ones and writes their Chrome trace to `path`.
absl::Status TraceNullSteps(const std::string& target,
                            const std::string& device, int steps,
                            const std::string& path) {
  Scope root = Scope::NewRootScope();
  ops::Const(root.WithOpName("c").WithDevice(device), 1.0f);
  GraphDef graph;
  DFX_RETURN_IF_ERROR(root.ToGraphDef(&graph));
  DFX_ASSIGN_OR_RETURN(std::unique_ptr<Session> session,
                       Session::Create(target));
  DFX_RETURN_IF_ERROR(session->Extend(graph));
  std::vector<Tensor> out;
  for (int i = 0; i < 2; ++i) {
    DFX_RETURN_IF_ERROR(session->Run({}, {"c"}, {}, &out));
  }
  RunOptions options;
  options.set_trace_level(RunOptions::FULL_TRACE);
  std::vector<StepStats> traced;
  for (int i = 0; i < steps; ++i) {
    RunMetadata metadata;
    DFX_RETURN_IF_ERROR(
        session->Run(options, {}, {"c"}, {}, &out, &metadata));
    traced.push_back(metadata.step_stats());
  }
  (void)session->Close();
  return WriteChromeTrace(path, traced);
}

template <typename Call>
absl::Status Wait(Call call) {
  auto done = std::make_shared<absl::Notification>();
  auto status = std::make_shared<absl::Status>();
  call([done, status](const absl::Status& s) {
    *status = s;
    done->Notify();
  });
  if (!done->WaitForNotificationWithTimeout(absl::Seconds(120))) {
    return absl::DeadlineExceededError("no answer in 120 s");
  }
  return *status;
}

// Median seconds of RecvTensor of `bytes` from the server at `address`:
// each step fills the tensor there and leaves it in the step's rendezvous
// (RunGraph returns once the _Send ran); the RecvTensor call alone is
// timed.
absl::StatusOr<double> RecvTensorSeconds(const std::string& address,
                                         int64_t bytes, int iters) {
  const std::string task = "/job:worker/replica:0/task:0";
  std::unique_ptr<WorkerInterface> worker =
      NewGrpcRemoteWorker(NewChannel(address), task);
  GetStatusRequest status_request;
  GetStatusResponse status;
  absl::Status s = Wait([&](StatusCallback cb) {
    worker->GetStatusAsync(&status_request, &status, std::move(cb));
  });
  if (!s.ok()) return s;
  const DeviceAttributes& device = status.device_attributes(0);
  const std::string recv_device = "/job:bench/replica:0/task:0/device:CPU:0";

  Scope root = Scope::NewRootScope().WithDevice(device.name());
  Output fill = ops::Fill(
      root.WithOpName("fill"),
      ops::Const(root.WithOpName("dims"),
                 {static_cast<int32_t>(bytes / sizeof(float))}),
      ops::Const(root.WithOpName("value"), 1.5f));
  GraphDef graph;
  if (absl::Status b = root.ToGraphDef(&graph); !b.ok()) return b;
  NodeDef* send = graph.add_node();
  send->set_name("send");
  send->set_op("_Send");
  send->add_input(fill.node_name());
  send->set_device(device.name());
  auto& attr = *send->mutable_attr();
  attr["T"].set_type(DT_FLOAT);
  attr["tensor_name"].set_s("bench_tensor");
  attr["send_device"].set_s(device.name());
  attr["send_device_incarnation"].set_i(
      static_cast<int64_t>(device.incarnation()));
  attr["recv_device"].set_s(recv_device);
  attr["client_terminated"].set_b(false);

  RegisterGraphRequest register_request;
  *register_request.mutable_graph_def() = graph;
  RegisterGraphResponse registered;
  s = Wait([&](StatusCallback cb) {
    worker->RegisterGraphAsync(&register_request, &registered, std::move(cb));
  });
  if (!s.ok()) return s;
  const std::string key = Rendezvous::CreateKey(
      device.name(), device.incarnation(), recv_device, "bench_tensor");

  std::vector<double> seconds;
  for (int i = 0; i < iters + 1; ++i) {
    const int64_t step_id = 1000 + i;
    RunGraphCall run;
    run.request.set_graph_handle(registered.graph_handle());
    run.request.set_step_id(step_id);
    s = Wait([&](StatusCallback cb) {
      worker->RunGraphAsync(nullptr, &run, std::move(cb));
    });
    if (!s.ok()) return s;
    RecvTensorRequest recv_request;
    recv_request.set_step_id(step_id);
    recv_request.set_rendezvous_key(key);
    RecvTensorResult result;
    const auto start = Clock::now();
    s = Wait([&](StatusCallback cb) {
      worker->RecvTensorAsync(nullptr, &recv_request, &result, std::move(cb));
    });
    const auto end = Clock::now();
    if (!s.ok()) return s;
    if (static_cast<int64_t>(result.tensor.TotalBytes()) != bytes ||
        result.tensor.data<float>()[bytes / sizeof(float) - 1] != 1.5f) {
      return absl::InternalError("RecvTensor returned the wrong tensor");
    }
    if (i > 0) seconds.push_back(Micros(end - start) / 1e6);  // 0: warm-up
    CleanupGraphRequest cleanup_request;
    cleanup_request.set_step_id(step_id);
    CleanupGraphResponse cleanup;
    (void)Wait([&](StatusCallback cb) {
      worker->CleanupGraphAsync(&cleanup_request, &cleanup, std::move(cb));
    });
  }
  std::sort(seconds.begin(), seconds.end());
  return seconds[seconds.size() / 2];
}

bool ReadAll(int fd, char* buf, size_t n) {
  while (n > 0) {
    const ssize_t got = ::read(fd, buf, n);
    if (got <= 0) return false;
    buf += got;
    n -= static_cast<size_t>(got);
  }
  return true;
}

bool WriteAll(int fd, const char* buf, size_t n) {
  while (n > 0) {
    const ssize_t put = ::write(fd, buf, n);
    if (put <= 0) return false;
    buf += put;
    n -= static_cast<size_t>(put);
  }
  return true;
}

// Median seconds to move `bytes` over a TCP loopback connection from a
// child process into a buffer of this one.
double RawTcpSeconds(int64_t bytes, int iters) {
  int listener = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  ::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  ::listen(listener, 1);
  ::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len);
  const pid_t child = ::fork();
  if (child == 0) {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
      ::_exit(1);
    }
    std::vector<char> data(static_cast<size_t>(bytes), 'd');
    char go;
    for (int i = 0; i < iters + 1; ++i) {
      if (::read(fd, &go, 1) != 1) ::_exit(1);
      if (!WriteAll(fd, data.data(), data.size())) ::_exit(1);
    }
    ::_exit(0);
  }
  int fd = ::accept(listener, nullptr, nullptr);
  ::close(listener);
  std::vector<char> buffer(static_cast<size_t>(bytes));
  std::memset(buffer.data(), 0, buffer.size());
  std::vector<double> seconds;
  for (int i = 0; i < iters + 1; ++i) {
    const char go = 'g';
    const auto start = Clock::now();
    if (!WriteAll(fd, &go, 1) || !ReadAll(fd, buffer.data(), buffer.size())) {
      break;
    }
    if (i > 0) seconds.push_back(Micros(Clock::now() - start) / 1e6);
  }
  ::close(fd);
  ::waitpid(child, nullptr, 0);
  if (seconds.empty()) return -1;
  std::sort(seconds.begin(), seconds.end());
  return seconds[seconds.size() / 2];
}


// Median seconds for `members` processes in a ring over loopback TCP each
// to send its successor `bytes` while it receives `bytes` from its
// predecessor, all at once (each writes on one thread while reading on
// another): what every member of a ring all-reduce does at each of its
// steps, so bytes / seconds is the bus bandwidth a ring of that many
// processes can reach on this host. Two members are two processes sending
// each other the tensor. -1 on a failure.
double RawTcpRingSeconds(int members, int64_t bytes, int iters) {
  // Listener i takes the connection from member i's predecessor; go[i]
  // starts a round on member i, done[i] says it finished one.
  std::vector<int> listeners(members, -1);
  std::vector<sockaddr_in> addrs(members);
  std::vector<std::array<int, 2>> go(members), done(members);
  for (int i = 0; i < members; ++i) {
    listeners[i] = ::socket(AF_INET, SOCK_STREAM, 0);
    addrs[i].sin_family = AF_INET;
    addrs[i].sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(addrs[i]);
    if (listeners[i] < 0 ||
        ::bind(listeners[i], reinterpret_cast<sockaddr*>(&addrs[i]),
               sizeof(addrs[i])) != 0 ||
        ::listen(listeners[i], 1) != 0 ||
        ::getsockname(listeners[i], reinterpret_cast<sockaddr*>(&addrs[i]),
                      &len) != 0 ||
        ::pipe(go[i].data()) != 0 || ::pipe(done[i].data()) != 0) {
      return -1;
    }
  }
  std::vector<pid_t> children;
  for (int i = 0; i < members; ++i) {
    const pid_t child = ::fork();
    if (child < 0) break;
    if (child > 0) {
      children.push_back(child);
      continue;
    }
    const sockaddr_in& next = addrs[(i + 1) % members];
    const int succ = ::socket(AF_INET, SOCK_STREAM, 0);
    if (::connect(succ, reinterpret_cast<const sockaddr*>(&next),
                  sizeof(next)) != 0) {
      ::_exit(1);
    }
    const int pred = ::accept(listeners[i], nullptr, nullptr);
    if (pred < 0) ::_exit(1);
    std::vector<char> out(static_cast<size_t>(bytes), 'd');
    std::vector<char> in(static_cast<size_t>(bytes), 0);
    for (int r = 0; r < iters + 1; ++r) {
      char c;
      if (::read(go[i][0], &c, 1) != 1) ::_exit(1);
      bool wrote = false;
      std::thread writer([&] { wrote = WriteAll(succ, out.data(), out.size()); });
      const bool read = ReadAll(pred, in.data(), in.size());
      writer.join();
      if (!wrote || !read || !WriteAll(done[i][1], "d", 1)) ::_exit(1);
    }
    ::_exit(0);
  }
  for (int i = 0; i < members; ++i) {
    ::close(listeners[i]);
    ::close(go[i][0]);
    ::close(done[i][1]);
  }
  std::vector<double> seconds;
  bool ok = static_cast<int>(children.size()) == members;
  for (int r = 0; ok && r < iters + 1; ++r) {
    const auto start = Clock::now();
    for (int i = 0; ok && i < members; ++i) ok = WriteAll(go[i][1], "g", 1);
    char c;
    for (int i = 0; ok && i < members; ++i) ok = ReadAll(done[i][0], &c, 1);
    if (ok && r > 0) seconds.push_back(Micros(Clock::now() - start) / 1e6);
  }
  for (pid_t child : children) {
    if (!ok) ::kill(child, SIGKILL);
    ::waitpid(child, nullptr, 0);
  }
  for (int i = 0; i < members; ++i) {
    ::close(go[i][1]);
    ::close(done[i][0]);
  }
  if (!ok || seconds.empty()) return -1;
  std::sort(seconds.begin(), seconds.end());
  return seconds[seconds.size() / 2];
}

// One member per task: x<i> = Fill([n], i + 1) and an all-reduce (sum)
// of it, all on task i; the step targets every member (nothing is fetched,
// so the client's transfer is not timed).
GraphDef AllReduceGraph(int tasks, int64_t floats) {
  std::string text;
  auto int_const = [](const std::string& name, const std::string& device,
                      const std::string& dtype, const std::string& value,
                      const std::string& shape) {
    return absl::StrCat("node { name: '", name, "' op: 'Const' device: '",
                        device, "' attr { key: 'dtype' value { type: ", dtype,
                        " } } attr { key: 'value' value { tensor { dtype: ",
                        dtype, " tensor_shape { ", shape, " } ", value,
                        " } } } }\n");
  };
  for (int i = 0; i < tasks; ++i) {
    const std::string d =
        absl::StrCat("/job:worker/replica:0/task:", i, "/device:CPU:0");
    const std::string s = absl::StrCat(i);
    text += int_const("dims" + s, d, "DT_INT64",
                      absl::StrCat("int64_val: ", floats), "dim { size: 1 }");
    text += int_const("v" + s, d, "DT_FLOAT", absl::StrCat("float_val: ", i + 1),
                      "");
    text += int_const("gs" + s, d, "DT_INT32",
                      absl::StrCat("int_val: ", tasks), "");
    text += int_const("gk" + s, d, "DT_INT32", "int_val: 1", "");
    text += int_const("ik" + s, d, "DT_INT32", "int_val: 1", "");
    text += absl::StrCat(
        "node { name: 'x", s, "' op: 'Fill' device: '", d, "' input: 'dims", s,
        "' input: 'v", s, "' attr { key: 'T' value { type: DT_FLOAT } } "
        "attr { key: 'index_type' value { type: DT_INT64 } } }\n");
    text += absl::StrCat(
        "node { name: 'c", s, "' op: 'CollectiveReduceV2' device: '", d,
        "' input: 'x", s, "' input: 'gs", s, "' input: 'gk", s,
        "' input: 'ik", s, "' attr { key: 'T' value { type: DT_FLOAT } } "
        "attr { key: 'merge_op' value { s: 'Add' } } attr { key: 'final_op' "
        "value { s: 'Id' } } }\n");
  }
  GraphDef def;
  google::protobuf::TextFormat::ParseFromString(text, &def);
  return def;
}

// Median seconds of a step of AllReduceGraph; -1 on a failure. With
// `fill_only` the step runs only the Fills (the inputs' cost, no
// collective).
double AllReduceSeconds(const std::string& target, int tasks, int64_t bytes,
                        int iters, bool fill_only = false) {
  auto session = Session::Create(target);
  if (!session.ok() ||
      !(*session)->Extend(AllReduceGraph(tasks, bytes / 4)).ok()) {
    return -1;
  }
  std::vector<std::string> targets;
  for (int i = 0; i < tasks; ++i) {
    targets.push_back(absl::StrCat(fill_only ? "x" : "c", i));
  }
  std::vector<Tensor> out;
  std::vector<double> seconds;
  for (int i = 0; i < iters + 1; ++i) {
    const auto start = Clock::now();
    absl::Status s = (*session)->Run({}, {}, targets, &out);
    if (!s.ok()) {
      std::fprintf(stderr, "all-reduce step failed: %s\n",
                   s.ToString().c_str());
      return -1;
    }
    if (i > 0) seconds.push_back(Micros(Clock::now() - start) / 1e6);
  }
  (void)(*session)->Close();
  std::sort(seconds.begin(), seconds.end());
  return seconds[seconds.size() / 2];
}

// Mirrored training throughput: a 2-layer MLP (256 -> 1024 -> 10, global
// batch 512, GradientDescent) with one replica per task through
// MirroredStrategy (`tasks` replicas), or without any strategy on task 0
// (`plain`). Median seconds a step; -1 on a failure.
double MirroredStepSeconds(const std::string& target, int tasks, bool plain,
                           int steps) {
  constexpr int kIn = 256, kHidden = 1024, kOut = 10, kBatch = 512;
  std::vector<std::string> devices;
  for (int t = 0; t < tasks; ++t) {
    devices.push_back(
        absl::StrCat("/job:worker/replica:0/task:", t, "/device:CPU:0"));
  }
  auto strategy = strategy::MirroredStrategy::Create(
      {{.devices = devices, .first_instance_key = 1}});
  if (!strategy.ok()) return -1;
  Scope root = Scope::NewRootScope();
  const int replicas = plain ? 1 : tasks;
  struct Param {
    const char* name;
    std::vector<int64_t> shape;
  };
  const Param params[] = {{"w1", {kIn, kHidden}},
                          {"b1", {kHidden}},
                          {"w2", {kHidden, kOut}},
                          {"b2", {kOut}}};
  auto loss_of = [](const Scope& s, const Output& x, const Output& y,
                    const std::vector<Output>& p) {
    Output h = ops::Relu(s, ops::BiasAdd(s, ops::MatMul(s, x, p[0]), p[1]));
    Output logits = ops::BiasAdd(s, ops::MatMul(s, h, p[2]), p[3]);
    return ops::Mean(
        s, ops::SparseSoftmaxCrossEntropyWithLogits(s, logits, y).loss,
        ops::Const(s, 0));
  };
  auto sgd = [] { return std::make_unique<train::GradientDescent>(0.01f); };
  std::vector<std::string> xs, ys;
  std::string train_op;
  std::vector<train::Variable> all;
  if (plain) {
    const Scope s = root.WithDevice(devices[0]);
    std::vector<train::Variable> vars;
    std::vector<Output> values;
    for (const Param& p : params) {
      vars.push_back(train::NewVariable(
          s.WithOpName(p.name), train::GlorotUniform(s, p.shape, 1),
          DT_FLOAT, p.shape));
      values.push_back(vars.back().value);
    }
    Output x = ops::Placeholder(s.WithOpName("x"), DT_FLOAT);
    Output y = ops::Placeholder(s.WithOpName("y"), DT_INT32);
    xs.push_back(x.node_name());
    ys.push_back(y.node_name());
    auto optimizer = sgd();
    absl::StatusOr<Operation> train =
        optimizer->Minimize(s, loss_of(s, x, y, values), vars);
    if (!train.ok()) return -1;
    train_op = train->node_name();
    all = vars;
  } else {
    std::vector<strategy::MirroredVariable> vars;
    for (const Param& p : params) {
      vars.push_back((*strategy)->CreateVariable(
          root.WithOpName(p.name),
          train::GlorotUniform(root.WithDevice(devices[0]), p.shape, 1),
          DT_FLOAT, p.shape));
      all.insert(all.end(), vars.back().replicas.begin(),
                 vars.back().replicas.end());
    }
    std::vector<Output> losses;
    for (int r = 0; r < replicas; ++r) {
      const Scope rs = (*strategy)->ReplicaScope(root, r);
      Output x = ops::Placeholder(rs.WithOpName("x"), DT_FLOAT);
      Output y = ops::Placeholder(rs.WithOpName("y"), DT_INT32);
      xs.push_back(x.node_name());
      ys.push_back(y.node_name());
      std::vector<Output> values;
      for (const auto& v : vars) values.push_back(v.on(r).value);
      losses.push_back(loss_of(rs, x, y, values));
    }
    absl::StatusOr<strategy::TrainStep> step =
        (*strategy)->Minimize(root, losses, vars, sgd);
    if (!step.ok()) return -1;
    train_op = step->train.node_name();
  }
  Operation init = train::InitializeAll(root.WithOpName("init"), all);
  GraphDef def;
  if (!root.ToGraphDef(&def).ok()) return -1;
  auto session = Session::Create(target);
  if (!session.ok() || !(*session)->Extend(def).ok()) return -1;
  std::vector<Tensor> out;
  if (!(*session)->Run({}, {}, {init.node_name()}, &out).ok()) return -1;
  std::vector<std::pair<std::string, Tensor>> feeds;
  const int rows = kBatch / replicas;
  for (int r = 0; r < replicas; ++r) {
    Tensor x(DT_FLOAT, TensorShape({rows, kIn}));
    Tensor y(DT_INT32, TensorShape({rows}));
    for (int64_t i = 0; i < x.NumElements(); ++i) {
      x.data<float>()[i] = static_cast<float>((i * 7919) % 101) / 101 - 0.5f;
    }
    for (int i = 0; i < rows; ++i) y.data<int32_t>()[i] = (i * 31 + r) % kOut;
    feeds.emplace_back(xs[r], x);
    feeds.emplace_back(ys[r], y);
  }
  std::vector<double> seconds;
  for (int i = 0; i < steps + 2; ++i) {
    const auto start = Clock::now();
    absl::Status s = (*session)->Run(feeds, {}, {train_op}, &out);
    if (!s.ok()) {
      std::fprintf(stderr, "mirrored step failed: %s\n", s.ToString().c_str());
      return -1;
    }
    if (i >= 2) seconds.push_back(Micros(Clock::now() - start) / 1e6);
  }
  (void)(*session)->Close();
  std::sort(seconds.begin(), seconds.end());
  return seconds[seconds.size() / 2];
}

}  // namespace

int RunEchoServer(int argc, char** argv) {
  int port = 0;
  bool queue_api = false;
  for (int i = 0; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--port") == 0) port = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--api") == 0) {
      if (std::strcmp(argv[i + 1], "queue") == 0) {
        queue_api = true;
      } else if (std::strcmp(argv[i + 1], "callback") != 0) {
        return 2;
      }
    }
  }
  if (port <= 0) return 2;
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  EchoService service;
  grpc::AsyncGenericService queue_service;
  grpc::ServerBuilder builder;
  builder.AddListeningPort(absl::StrCat("127.0.0.1:", port),
                           grpc::InsecureServerCredentials());
  ConfigureServerBuilder(&builder);
  std::unique_ptr<grpc::ServerCompletionQueue> queue;
  if (queue_api) {
    builder.RegisterAsyncGenericService(&queue_service);
    queue = builder.AddCompletionQueue();
  } else {
    builder.RegisterCallbackGenericService(&service);
  }
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr) return 1;
  std::thread poller;
  if (queue_api) {
    for (int i = 0; i < 4; ++i) new QueueEchoCall(&queue_service, queue.get());
    poller = std::thread([q = queue.get()] {
      void* tag = nullptr;
      bool ok = false;
      while (q->Next(&tag, &ok)) static_cast<QueueEchoCall*>(tag)->Proceed(ok);
    });
  }
  int signal = 0;
  sigwait(&signals, &signal);
  server->Shutdown(std::chrono::system_clock::now() +
                   std::chrono::seconds(1));
  if (queue_api) {
    queue->Shutdown();
    poller.join();
  }
  return 0;
}

int RunGrpcBench(int argc, char** argv) {
  int steps = 2000;
  int iters = 5;
  std::vector<int64_t> sizes_mib = {1, 64, 512};
  std::string trace_path;
  for (int i = 0; i < argc; ++i) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) return 2;
    const std::string value = argv[++i];
    if (flag == "--steps") {
      if (!absl::SimpleAtoi(value, &steps) || steps < 1) return 2;
    } else if (flag == "--iters") {
      if (!absl::SimpleAtoi(value, &iters) || iters < 1) return 2;
    } else if (flag == "--trace") {
      trace_path = value;
    } else if (flag == "--sizes-mib") {
      sizes_mib.clear();
      for (absl::string_view part : absl::StrSplit(value, ',')) {
        int64_t mib = 0;
        if (!absl::SimpleAtoi(part, &mib) || mib < 1 || mib > 4096) return 2;
        sizes_mib.push_back(mib);
      }
    } else {
      return 2;
    }
  }

  // (a) Null steps against a raw gRPC echo to another process.
  const int echo_port = PickFreeLoopbackPort().value();
  Child echo({BinDir() + "/dfx_bench", "echo-server", "--port",
              std::to_string(echo_port)});
  const double echo_us =
      EchoRoundTrip(absl::StrCat("127.0.0.1:", echo_port), steps);
  BenchCluster one(1);
  BenchCluster two(2);
  if (echo_us < 0 || !one.ok() || !two.ok()) {
    std::fprintf(stderr,
                 "dfx_bench grpc: a server did not start (echo server %s, "
                 "one-task cluster %s, two-task cluster %s)\n",
                 echo_us < 0 ? "failed" : "ok", one.ok() ? "ok" : "failed",
                 two.ok() ? "ok" : "failed");
    return 1;
  }
  const double one_us = NullStep("grpc://" + one.address(0), "", steps);
  const double two_us = NullStep("grpc://" + two.address(0),
                                 "/job:worker/replica:0/task:1", steps);
  if (one_us < 0 || two_us < 0) return 1;
  std::printf("null step (one Const fetched), %d steps; raw gRPC unary echo "
              "round trip %.1f us\n", steps, echo_us);
  std::printf("  %-44s %9s %8s %6s %12s\n", "case", "us/step", "x echo",
              "RPCs", "x echo/RPC");
  // RPCs on the critical path: RunStep; with the Const on task 1 also the
  // RunGraph there and the RecvTensor that brings its value to the
  // master's task, where the fetch leaves the step.
  std::printf("  %-44s %9.1f %8.2f %6d %12.2f\n",
              "1 worker (Const on the master's task)", one_us,
              one_us / echo_us, 1, one_us / echo_us);
  std::printf("  %-44s %9.1f %8.2f %6d %12.2f\n",
              "2 workers (Const on the other task)", two_us, two_us / echo_us,
              3, two_us / echo_us / 3);
  if (!trace_path.empty()) {
    // After the timed steps: 5 traced 2-worker null steps.
    absl::Status s = TraceNullSteps("grpc://" + two.address(0),
                                    "/job:worker/replica:0/task:1", 5,
                                    trace_path);
    if (!s.ok()) {
      std::fprintf(stderr, "--trace: %s\n", s.ToString().c_str());
      return 1;
    }
    std::printf("  trace of 5 steps of the 2-worker case: %s\n",
                trace_path.c_str());
  }

  // (c) A small tensor: RecvTensor of 4 KiB (its answer carries the bytes
  // inline) against raw gRPC echo round trips of 16 bytes and of 4 KiB
  // each way, medians of the same number of calls.
  {
    const int samples = std::min(steps, 1000);
    const std::string echo_address = absl::StrCat("127.0.0.1:", echo_port);
    absl::StatusOr<double> recv = RecvTensorSeconds(one.address(0), 4096,
                                                    samples);
    const double echo_16 = RawGrpcSeconds(echo_address, 16, samples) * 2;
    const double echo_4k = RawGrpcSeconds(echo_address, 4096, samples) * 2;
    if (!recv.ok() || echo_16 < 0 || echo_4k < 0) {
      std::fprintf(stderr, "RecvTensor 4 KiB failed: %s\n",
                   recv.status().ToString().c_str());
      return 1;
    }
    std::printf("\nRecvTensor of 4 KiB, median of %d calls, against raw gRPC "
                "echo round trips (median)\n", samples);
    std::printf("  %12s %14s %14s %10s %10s\n", "RecvTensor", "echo 16 B",
                "echo 4 KiB", "x echo 16", "x echo 4K");
    std::printf("  %9.1f us %11.1f us %11.1f us %10.2f %10.2f\n", *recv * 1e6,
                echo_16 * 1e6, echo_4k * 1e6, *recv / echo_16,
                *recv / echo_4k);
  }

  // (d) The server API: 16-byte messages echoed over one stream by the
  // same echo on gRPC's callback API (as dfx's services are written) and
  // on its completion-queue API with one polling thread of its own, and
  // the echo server's CPU per message.
  {
    const int queue_port = PickFreeLoopbackPort().value();
    Child queue_echo({BinDir() + "/dfx_bench", "echo-server", "--port",
                      std::to_string(queue_port), "--api", "queue"});
    const int messages = std::max(steps, 1000);
    std::printf("\nOne stream, 16-byte messages echoed (best of 3 rounds of "
                "%d): callback API against completion-queue API\n",
                messages);
    std::printf("  %-44s %12s %14s\n", "server API, client", "us/message",
                "server CPU us");
    for (const auto& [name, child, port] :
         {std::tuple<const char*, const Child*, int>{"callback", &echo,
                                                     echo_port},
          {"completion queue, 1 thread", &queue_echo, queue_port}}) {
      for (bool pipelined : {false, true}) {
        const double cpu0 = ProcessCpuSeconds(child->pid());
        const double us = StreamEchoMicros(absl::StrCat("127.0.0.1:", port),
                                           messages, pipelined);
        const double cpu = ProcessCpuSeconds(child->pid()) - cpu0;
        if (us < 0) {
          std::fprintf(stderr, "stream echo (%s) failed\n", name);
          return 1;
        }
        // Warm-up included: 3 rounds of 100 + `messages`.
        std::printf("  %-44s %12.1f %14.1f\n",
                    absl::StrCat(name, pipelined ? ", pipelined"
                                                 : ", one at a time")
                        .c_str(),
                    us, cpu * 1e6 / (3 * (100 + messages)));
      }
    }
  }

  // (b) RecvTensor throughput against raw TCP loopback: from a server on
  // this host (its bulk plane's shared memory), and from one started with
  // --no-bulk-local (its bulk plane's TCP, as from another host).
  BenchCluster tcp_only(1, {"--no-bulk-local"});
  if (!tcp_only.ok()) {
    std::fprintf(stderr, "dfx_bench grpc: a server did not start\n");
    return 1;
  }
  std::printf("\nRecvTensor from a dfx server process (median of at least "
              "%d, and of 256 MiB moved for small sizes) vs raw TCP loopback "
              "between two processes; GB/s\n", iters);
  std::printf("  %8s %8s %12s %12s %10s %10s %10s %10s\n", "MiB", "samples",
              "RecvTensor", "(bulk TCP)", "raw gRPC", "raw TCP", "ratio",
              "(TCP)");
  for (int64_t mib : sizes_mib) {
    const int64_t bytes = mib << 20;
    // A small transfer's time is bimodal over its first dozens of
    // repetitions (warm and cold paths); a median of 7 of 1 MiB gave 0.20
    // of raw TCP, of 60-100 gave 0.35-0.68. Each case therefore moves at
    // least 256 MiB, which costs well under a second at these speeds.
    const int samples = static_cast<int>(std::max<int64_t>(
        iters, std::min<int64_t>(1000, (int64_t{256} << 20) / bytes)));
    absl::StatusOr<double> recv =
        RecvTensorSeconds(one.address(0), bytes, samples);
    absl::StatusOr<double> recv_tcp =
        recv.ok() ? RecvTensorSeconds(tcp_only.address(0), bytes, samples)
                  : recv;
    if (!recv_tcp.ok()) {
      std::fprintf(stderr, "RecvTensor %lld MiB failed: %s\n",
                   static_cast<long long>(mib),
                   recv_tcp.status().ToString().c_str());
      return 1;
    }
    const double tcp = RawTcpSeconds(bytes, samples);
    const double raw_grpc = RawGrpcSeconds(
        absl::StrCat("127.0.0.1:", echo_port), bytes, samples);
    const double recv_gbps = static_cast<double>(bytes) / *recv / 1e9;
    const double recv_tcp_gbps = static_cast<double>(bytes) / *recv_tcp / 1e9;
    const double tcp_gbps = static_cast<double>(bytes) / tcp / 1e9;
    const double grpc_gbps = static_cast<double>(bytes) / raw_grpc / 1e9;
    std::printf("  %8lld %8d %12.2f %12.2f %10.2f %10.2f %10.2f %10.2f\n",
                static_cast<long long>(mib), samples, recv_gbps, recv_tcp_gbps,
                grpc_gbps, tcp_gbps, recv_gbps / tcp_gbps,
                recv_tcp_gbps / tcp_gbps);
  }
  return 0;
}

}  // namespace dfx

namespace dfx {

int RunCollectivesBench(int argc, char** argv) {
  int iters = 5;
  int mirrored_steps = 20;
  std::vector<int64_t> sizes_mib = {1, 64, 256};
  std::vector<int> task_counts = {2, 3};
  std::vector<std::string> server_flags;
  for (int i = 0; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--no-bulk-local") {
      server_flags.push_back(flag);
      continue;
    }
    if (i + 1 >= argc) return 2;
    const std::string value = argv[++i];
    if (flag == "--iters") {
      if (!absl::SimpleAtoi(value, &iters) || iters < 1) return 2;
    } else if (flag == "--mirrored-steps") {
      if (!absl::SimpleAtoi(value, &mirrored_steps) || mirrored_steps < 0) {
        return 2;
      }
    } else if (flag == "--sizes-mib" || flag == "--tasks") {
      std::vector<int64_t> parsed;
      for (absl::string_view part : absl::StrSplit(value, ',')) {
        int64_t v = 0;
        if (!absl::SimpleAtoi(part, &v) || v < 1 || v > 4096) return 2;
        parsed.push_back(v);
      }
      if (flag == "--sizes-mib") {
        sizes_mib = parsed;
      } else {
        task_counts.assign(parsed.begin(), parsed.end());
      }
    } else {
      return 2;
    }
  }
  std::printf("all-reduce (sum, float32) on `dfx server` processes, median of "
              "%d steps; raw TCP loopback measured in the same run; GB/s\n",
              iters);
  // "AR busbw" leaves the Fill out: the all-reduce alone (step minus the
  // fill-only step). "raw TCP": one process sending another the tensor.
  // "TCP ring": as many processes as tasks in a ring, each sending its
  // successor the tensor while receiving its predecessor's, GB/s per link:
  // the bound for a ring all-reduce's bus bandwidth on this host (on one
  // host the links share its cores; across hosts each has its own).
  std::printf("  %5s %6s %9s %8s %8s %8s %9s %8s %8s %9s %8s %8s\n", "tasks",
              "MiB", "ms/step", "ms fill", "algbw", "busbw", "AR busbw",
              "raw TCP", "bus/TCP", "TCP ring", "bus/ring", "AR/ring");
  for (int tasks : task_counts) {
    if (tasks < 2) return 2;
    BenchCluster cluster(tasks, server_flags);
    if (!cluster.ok()) {
      std::fprintf(stderr, "dfx_bench collectives: a server did not start\n");
      return 1;
    }
    for (int64_t mib : sizes_mib) {
      const int64_t bytes = mib << 20;
      const double step = AllReduceSeconds("grpc://" + cluster.address(0),
                                           tasks, bytes, iters);
      if (step < 0) return 1;
      // The same step without the all-reduce: what the inputs cost.
      const double fill = AllReduceSeconds("grpc://" + cluster.address(0),
                                           tasks, bytes, iters,
                                           /*fill_only=*/true);
      if (fill < 0) return 1;
      const double tcp = RawTcpSeconds(bytes, iters);
      const double ring = RawTcpRingSeconds(tasks, bytes, iters);
      if (tcp < 0 || ring < 0) {
        std::fprintf(stderr, "dfx_bench collectives: raw TCP failed\n");
        return 1;
      }
      const double algbw = static_cast<double>(bytes) / step / 1e9;
      // A ring moves 2(n-1)/n of the tensor through each member's link.
      const double busbw = algbw * 2.0 * (tasks - 1) / tasks;
      const double tcp_gbps = static_cast<double>(bytes) / tcp / 1e9;
      const double alone = std::max(step - fill, 1e-9);
      const double alone_busbw = static_cast<double>(bytes) / alone / 1e9 *
                                 2.0 * (tasks - 1) / tasks;
      const double ring_gbps = static_cast<double>(bytes) / ring / 1e9;
      std::printf(
          "  %5d %6lld %9.2f %8.2f %8.3f %8.3f %9.3f %8.3f %8.2f %9.3f %8.2f "
          "%8.2f\n",
          tasks, static_cast<long long>(mib), step * 1e3, fill * 1e3, algbw,
          busbw, alone_busbw, tcp_gbps, busbw / tcp_gbps, ring_gbps,
          busbw / ring_gbps, alone_busbw / ring_gbps);
    }
  }
  if (mirrored_steps == 0) return 0;
  // Mirrored training: the same global batch over 1 and 2 tasks.
  std::printf("\nmirrored training (MLP 256-1024-10, global batch 512, SGD), "
              "median of %d steps\n", mirrored_steps);
  std::printf("  %-34s %9s %12s %9s\n", "setting", "ms/step", "examples/s",
              "x plain");
  double plain = -1;
  for (int tasks : {1, 2}) {
    BenchCluster cluster(tasks, server_flags);
    if (!cluster.ok()) return 1;
    const std::string target = "grpc://" + cluster.address(0);
    if (tasks == 1) {
      plain = MirroredStepSeconds(target, 1, /*plain=*/true, mirrored_steps);
      if (plain < 0) return 1;
      std::printf("  %-34s %9.2f %12.0f %9.2f\n",
                  "1 task, no strategy", plain * 1e3, 512 / plain, 1.0);
    }
    const double s =
        MirroredStepSeconds(target, tasks, /*plain=*/false, mirrored_steps);
    if (s < 0) return 1;
    std::printf("  %-34s %9.2f %12.0f %9.2f\n",
                absl::StrCat(tasks, " task(s), MirroredStrategy").c_str(),
                s * 1e3, 512 / s, plain / s);
  }
  return 0;
}

}  // namespace dfx

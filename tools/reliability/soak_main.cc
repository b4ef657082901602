// dfx_soak: a 3-task cluster of real `dfx server` processes under steady
// load from several clients while a worker task is SIGKILLed and restarted
// every minute. Counts steps, wrong answers, errors by code, hangs, the
// time each restart takes to rejoin, and the master's RSS over time.
//
//   dfx_soak --dfx PATH [--minutes N] [--clients N] [--restart-every S]
//            [--report FILE]
//
// Every client runs y = (x * 2 on task 1 + 3 on task 2) - x on task 0 with
// a random x and checks y == x + 3 exactly. With --report, the figures
// replace the text between "<!-- soak:begin -->" and "<!-- soak:end -->"
// in FILE (docs/reliability.md).
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "graph/builder/ops.h"
#include "graph/builder/scope.h"
#include "rpc/cluster_spec.h"
#include "rpc/grpc_util.h"
#include "runtime/session.h"

extern char** environ;

namespace dfx {
namespace {

constexpr int kTasks = 3;
// A step that takes longer than this is counted as a hang (the session's
// operation timeout is 10 s).
constexpr absl::Duration kHang = absl::Seconds(30);

struct Flags {
  std::string dfx;
  double minutes = 10;
  int clients = 4;
  int restart_every_s = 60;
  std::string report;
};

class Cluster {
 public:
  explicit Cluster(std::string dfx) : dfx_(std::move(dfx)) {
    char tmpl[] = "/tmp/dfx_soak_XXXXXX";
    dir_ = ::mkdtemp(tmpl);
    json_ = "{\"worker\": [";
    absl::StatusOr<std::vector<int>> ports = PickFreeLoopbackPorts(kTasks);
    if (!ports.ok()) Die(ports.status().ToString());
    for (int i = 0; i < kTasks; ++i) {
      addresses_.push_back(absl::StrCat("127.0.0.1:", (*ports)[i]));
      absl::StrAppend(&json_, i > 0 ? ", " : "", "\"", addresses_.back(),
                      "\"");
    }
    json_ += "]}";
    pids_.assign(kTasks, 0);
    for (int i = 0; i < kTasks; ++i) Start(i);
    for (int i = 0; i < kTasks; ++i) WaitReady(i);
  }
  ~Cluster() {
    for (int i = 0; i < kTasks; ++i) Kill(i);
  }

  std::string Target() const { return "grpc://" + addresses_[0]; }
  pid_t Pid(int task) const { return pids_[task]; }
  const std::string& dir() const { return dir_; }

  void Kill(int task) {
    if (pids_[task] <= 0) return;
    ::kill(pids_[task], SIGKILL);
    ::waitpid(pids_[task], nullptr, 0);
    pids_[task] = 0;
  }
  void Start(int task) {
    std::vector<std::string> args = {dfx_, "server", "--cluster", json_,
                                     "--job", "worker", "--task",
                                     std::to_string(task)};
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    const std::string log = absl::StrCat(dir_, "/worker-", task, ".log");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, log.c_str(),
                                     O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    pid_t pid = 0;
    if (::posix_spawn(&pid, dfx_.c_str(), &actions, nullptr, argv.data(),
                      environ) != 0) {
      Die("cannot start " + dfx_);
    }
    posix_spawn_file_actions_destroy(&actions);
    pids_[task] = pid;
  }
  void WaitReady(int task) {
    absl::Status s = WaitForWorkerReady(addresses_[task],
                                        absl::Now() + absl::Seconds(60),
                                        [] { return true; }, {},
                                        TaskName("worker", task));
    if (!s.ok()) Die(absl::StrCat("task ", task, ": ", s.ToString()));
  }

  static void Die(const std::string& why) {
    std::cerr << "dfx_soak: " << why << std::endl;
    std::exit(1);
  }

 private:
  std::string dfx_;
  std::string dir_;
  std::string json_;
  std::vector<std::string> addresses_;
  std::vector<pid_t> pids_;
};

int64_t RssKiB(pid_t pid) {
  std::ifstream in(absl::StrCat("/proc/", pid, "/status"));
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) {
      int64_t kib = 0;
      std::istringstream(line.substr(6)) >> kib;
      return kib;
    }
  }
  return 0;
}

GraphDef SoakGraph() {
  Scope root = Scope::NewRootScope();
  const Scope t0 = root.WithDevice("/job:worker/replica:0/task:0");
  const Scope t1 = root.WithDevice("/job:worker/replica:0/task:1");
  const Scope t2 = root.WithDevice("/job:worker/replica:0/task:2");
  Output x = ops::Placeholder(t0.WithOpName("x"), DT_FLOAT);
  Output a = ops::Mul(t1.WithOpName("a"), x, ops::Const(t1, 2.0f));
  Output b = ops::AddV2(t2.WithOpName("b"), a, ops::Const(t2, 3.0f));
  ops::Sub(t0.WithOpName("y"), b, x);
  GraphDef def;
  if (!root.ToGraphDef(&def).ok()) Cluster::Die("cannot build the graph");
  return def;
}

struct Stats {
  absl::Mutex mu;
  int64_t steps ABSL_GUARDED_BY(mu) = 0;
  int64_t wrong ABSL_GUARDED_BY(mu) = 0;
  int64_t hangs ABSL_GUARDED_BY(mu) = 0;
  std::map<std::string, int64_t> errors ABSL_GUARDED_BY(mu);
  std::string first_wrong ABSL_GUARDED_BY(mu);
  // Per client: when its last step that succeeded started.
  std::vector<absl::Time> last_ok ABSL_GUARDED_BY(mu);
};

void Client(int id, const std::string& target, std::atomic<bool>* stop,
            Stats* stats) {
  std::mt19937 rng(id * 7919 + 1);
  std::uniform_int_distribution<int> value(0, 1 << 20);
  std::unique_ptr<Session> session;
  while (!stop->load()) {
    if (session == nullptr) {
      SessionOptions options;
      options.config.set_operation_timeout_in_ms(10000);
      auto s = Session::Create(target, options);
      if (!s.ok() || !(*s)->Extend(SoakGraph()).ok()) {
        absl::MutexLock lock(&stats->mu);
        ++stats->errors["session creation"];
        absl::SleepFor(absl::Milliseconds(100));
        continue;
      }
      session = *std::move(s);
    }
    Tensor x(DT_FLOAT, TensorShape({4}));
    for (int i = 0; i < 4; ++i) x.data<float>()[i] = value(rng);
    std::vector<Tensor> out;
    const absl::Time start = absl::Now();
    absl::Status s = session->Run({{"x", x}}, {"y"}, {}, &out);
    const absl::Duration took = absl::Now() - start;
    bool right = s.ok() && out.size() == 1 && out[0].NumElements() == 4;
    for (int i = 0; right && i < 4; ++i) {
      right = out[0].data<float>()[i] == x.data<float>()[i] + 3.0f;
    }
    {
      absl::MutexLock lock(&stats->mu);
      ++stats->steps;
      if (took > kHang) ++stats->hangs;
      if (!s.ok()) {
        ++stats->errors[absl::StatusCodeToString(s.code())];
      } else if (!right) {
        ++stats->wrong;
        if (stats->first_wrong.empty()) {
          stats->first_wrong =
              out.empty() ? "no output" : out[0].DebugString();
        }
      } else {
        stats->last_ok[id] = start;
      }
    }
    if (!s.ok()) absl::SleepFor(absl::Milliseconds(20));
  }
  if (session != nullptr) session->Close().IgnoreError();
}

int Main(int argc, char** argv) {
  Flags flags;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) Cluster::Die(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--dfx") {
      flags.dfx = next();
    } else if (arg == "--minutes") {
      if (!absl::SimpleAtod(next(), &flags.minutes) || flags.minutes <= 0) {
        Cluster::Die("--minutes must be a positive number");
      }
    } else if (arg == "--clients") {
      if (!absl::SimpleAtoi(next(), &flags.clients) || flags.clients < 1) {
        Cluster::Die("--clients must be a positive integer");
      }
    } else if (arg == "--restart-every") {
      if (!absl::SimpleAtoi(next(), &flags.restart_every_s) ||
          flags.restart_every_s < 5) {
        Cluster::Die("--restart-every must be at least 5 (seconds)");
      }
    } else if (arg == "--report") {
      flags.report = next();
    } else {
      Cluster::Die("unknown flag " + arg +
                   " (--dfx PATH --minutes N --clients N --restart-every S "
                   "--report FILE)");
    }
  }
  if (flags.dfx.empty()) Cluster::Die("--dfx PATH is required");

  Cluster cluster(flags.dfx);
  std::cout << "dfx_soak: cluster up, logs in " << cluster.dir() << std::endl;
  Stats stats;
  {
    absl::MutexLock lock(&stats.mu);
    stats.last_ok.assign(flags.clients, absl::InfinitePast());
  }
  std::atomic<bool> stop{false};
  std::vector<std::thread> clients;
  for (int c = 0; c < flags.clients; ++c) {
    clients.emplace_back(Client, c, cluster.Target(), &stop, &stats);
  }

  const absl::Time begin = absl::Now();
  const absl::Time end = begin + absl::Seconds(flags.minutes * 60);
  // The master's RSS once warm, and over the run.
  absl::SleepFor(absl::Seconds(5));
  const int64_t rss_start = RssKiB(cluster.Pid(0));
  int64_t rss_max = rss_start;
  std::vector<std::string> rss_samples;
  std::vector<double> recoveries;
  std::vector<std::string> restart_lines;
  int victim = 1;
  absl::Time next_restart = begin + absl::Seconds(flags.restart_every_s);
  absl::Time next_sample = absl::Now();
  while (absl::Now() < end) {
    if (absl::Now() >= next_sample) {
      const int64_t rss = RssKiB(cluster.Pid(0));
      rss_max = std::max(rss_max, rss);
      rss_samples.push_back(absl::StrFormat(
          "%.0fs:%.1fMiB", absl::ToDoubleSeconds(absl::Now() - begin),
          rss / 1024.0));
      next_sample += absl::Seconds(30);
    }
    if (absl::Now() >= next_restart && next_restart + absl::Seconds(10) < end) {
      cluster.Kill(victim);
      const absl::Time killed = absl::Now();
      absl::SleepFor(absl::Milliseconds(500));
      cluster.Start(victim);
      cluster.WaitReady(victim);
      const absl::Time ready = absl::Now();
      // Rejoined: every client has had a step succeed that started after
      // the new process was ready.
      absl::Time all = absl::InfinitePast();
      while (absl::Now() < ready + absl::Seconds(60)) {
        bool done = true;
        absl::Time latest = absl::InfinitePast();
        {
          absl::MutexLock lock(&stats.mu);
          for (absl::Time t : stats.last_ok) {
            if (t < ready) done = false;
            latest = std::max(latest, t);
          }
        }
        if (done) {
          all = latest;
          break;
        }
        absl::SleepFor(absl::Milliseconds(10));
      }
      const double rejoin = all == absl::InfinitePast()
                                ? -1
                                : absl::ToDoubleSeconds(absl::Now() - ready);
      recoveries.push_back(rejoin);
      restart_lines.push_back(absl::StrFormat(
          "task %d: down %.2f s, every client served again %.2f s after "
          "the new process was ready",
          victim, absl::ToDoubleSeconds(ready - killed), rejoin));
      std::cout << "dfx_soak: " << restart_lines.back() << std::endl;
      victim = victim == 1 ? 2 : 1;
      next_restart += absl::Seconds(flags.restart_every_s);
    }
    absl::SleepFor(absl::Milliseconds(100));
  }
  stop = true;
  for (std::thread& t : clients) t.join();
  const int64_t rss_end = RssKiB(cluster.Pid(0));

  absl::MutexLock lock(&stats.mu);
  std::vector<std::string> errors;
  for (const auto& [code, n] : stats.errors) {
    errors.push_back(absl::StrCat(code, " ", n));
  }
  const double worst =
      recoveries.empty() ? 0 : *std::max_element(recoveries.begin(),
                                                  recoveries.end());
  const bool never = std::count(recoveries.begin(), recoveries.end(), -1.0);
  const double rss_growth =
      rss_start > 0 ? 100.0 * (rss_end - rss_start) / rss_start : 0;
  std::ostringstream report;
  report << absl::StrFormat(
      "Run of %.1f min, %d clients, a worker SIGKILLed and restarted every "
      "%d s (`tools/soak --minutes %g`, %s):\n\n",
      flags.minutes, flags.clients, flags.restart_every_s, flags.minutes,
      absl::FormatTime("%Y-%m-%d %H:%M UTC", absl::Now(), absl::UTCTimeZone()));
  report << "| figure | value |\n|---|---|\n";
  report << "| steps | " << stats.steps << " |\n";
  report << "| wrong answers | " << stats.wrong << " |\n";
  report << "| hangs (a step over " << absl::FormatDuration(kHang)
         << ") | " << stats.hangs << " |\n";
  report << "| errors by code | "
         << (errors.empty() ? "none" : absl::StrJoin(errors, ", ")) << " |\n";
  report << "| restarts | " << recoveries.size() << " |\n";
  report << absl::StrFormat(
      "| slowest rejoin (every client served again) | %s |\n",
      never ? "never (a restart did not rejoin within 60 s)"
            : absl::StrFormat("%.2f s", worst));
  report << absl::StrFormat(
      "| master RSS start / max / end | %.1f / %.1f / %.1f MiB (%+.1f%%) |\n",
      rss_start / 1024.0, rss_max / 1024.0, rss_end / 1024.0, rss_growth);
  report << "\nRestarts:\n\n";
  for (const std::string& line : restart_lines) report << "- " << line << "\n";
  report << "\nMaster RSS samples: " << absl::StrJoin(rss_samples, ", ")
         << "\n";
  if (!stats.first_wrong.empty()) {
    report << "\nFirst wrong answer: " << stats.first_wrong << "\n";
  }
  std::cout << report.str();

  if (!flags.report.empty()) {
    std::ifstream in(flags.report);
    std::string text((std::istreambuf_iterator<char>(in)),
                     std::istreambuf_iterator<char>());
    const std::string open = "<!-- soak:begin -->";
    const std::string close = "<!-- soak:end -->";
    const size_t a = text.find(open);
    const size_t b = text.find(close);
    if (a == std::string::npos || b == std::string::npos || b < a) {
      Cluster::Die("--report file has no " + open + " ... " + close);
    }
    text = text.substr(0, a + open.size()) + "\n" + report.str() +
           text.substr(b);
    std::ofstream(flags.report) << text;
  }
  const bool pass = stats.wrong == 0 && stats.hangs == 0 && !never &&
                    worst <= 5.0 && rss_growth <= 10.0;
  std::cout << "dfx_soak: " << (pass ? "PASS" : "FAIL")
            << " (goal: 0 wrong, 0 hangs, every rejoin within 5 s, RSS "
               "within 10%)"
            << std::endl;
  return pass ? 0 : 1;
}

}  // namespace
}  // namespace dfx

int main(int argc, char** argv) { return dfx::Main(argc, argv); }

#include "tools/cli/cluster.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "base/status_macros.h"
#include "rpc/cluster_spec.h"
#include "rpc/grpc_util.h"
#include "runtime/gpu_options.h"
#include "tools/cli/command.h"
#include "tools/cli/command_util.h"

extern char** environ;

namespace dfx::cli {

const char kClusterUsage[] =
    R"(usage: dfx cluster up [--workers N] [--ps M] [--dir DIR]
                      [--cpu-devices N] [--timeout-ms N] [--no-push]
                      [--no-bulk-local] [--gpu-allow-growth]
                      [--worker-gpus all|none|LIST] [--ps-gpus all|none|LIST]
       dfx cluster down [--dir DIR]

up    starts N worker tasks and M ps tasks (default 2 and 1), each a
      'dfx server' process on a free port of 127.0.0.1, waits until every
      task answers, and prints the master target (worker task 0),
      grpc://127.0.0.1:PORT. DIR (default $TMPDIR/dfx-cluster, or
      /tmp/dfx-cluster) receives cluster.json, pids (one "JOB TASK PID" line
      per task) and each task's log, JOB-TASK.log.
down  stops the cluster of DIR: SIGTERM to every task, SIGKILL to one that
      has not exited within 10 s.

  --workers N, --ps M   tasks of the worker and ps jobs (M may be 0)
  --cpu-devices N       CPU devices per task (default 1)
  --timeout-ms N        how long 'up' waits for the tasks (default 30000)
  --no-push             start the servers with --no-push (see 'dfx server
                        --help')
  --no-bulk-local       start the servers with --no-bulk-local
  --gpu-allow-growth    start the servers with --gpu-allow-growth, so that
                        the tasks can share a machine's GPUs
  --worker-gpus all|none|LIST, --ps-gpus all|none|LIST
                        start that job's servers with --gpus (see 'dfx
                        server --help'); e.g. --ps-gpus none keeps ps tasks
                        that hold only variables off the GPUs (no CUDA
                        context, no GPU memory). Default: all
  -h, --help            print this help

Exit status: 0 on success, 1 when the cluster cannot start or stop, 2 for
bad flags.
)";

namespace {

std::string DefaultDir() {
  const char* tmp = std::getenv("TMPDIR");
  return absl::StrCat(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp",
                      "/dfx-cluster");
}

// What 'up' passes on to the servers: flags for every task, and flags for
// the tasks of one job.
struct ServerFlags {
  std::vector<std::string> all;
  std::map<std::string, std::vector<std::string>> per_job;

  std::vector<std::string> For(const std::string& job) const {
    std::vector<std::string> flags = all;
    if (auto it = per_job.find(job); it != per_job.end()) {
      flags.insert(flags.end(), it->second.begin(), it->second.end());
    }
    return flags;
  }
};

struct TaskProcess {
  std::string job;
  int index = 0;
  pid_t pid = 0;
};

// Alive and a dfx server (the pid was not reused by another program).
bool IsServerAlive(pid_t pid) {
  std::ifstream stat(absl::StrCat("/proc/", pid, "/stat"));
  std::string line;
  if (!stat || !std::getline(stat, line)) return false;
  const size_t paren = line.rfind(')');
  if (paren == std::string::npos || paren + 2 >= line.size()) return false;
  if (line[paren + 2] == 'Z') {
    // Our own child (in 'up', after a failure): reap it.
    ::waitpid(pid, nullptr, WNOHANG);
    return false;
  }
  std::ifstream cmdline(absl::StrCat("/proc/", pid, "/cmdline"));
  std::string args((std::istreambuf_iterator<char>(cmdline)),
                   std::istreambuf_iterator<char>());
  // An exiting process loses its memory, command line included, before it
  // becomes a zombie: still alive (a server stopping closes its sockets
  // then), not some other program that reused the pid.
  if (args.empty()) return true;
  return args.find("server") != std::string::npos &&
         args.find("dfx") != std::string::npos;
}

absl::StatusOr<std::vector<TaskProcess>> ReadPids(const std::string& dir) {
  std::ifstream in(dir + "/pids");
  if (!in) {
    return absl::NotFoundError(
        absl::StrCat("no cluster in '", dir, "' (no pids file)"));
  }
  std::vector<TaskProcess> tasks;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::vector<std::string> parts = absl::StrSplit(line, ' ');
    TaskProcess t;
    if (parts.size() != 3 || !absl::SimpleAtoi(parts[1], &t.index) ||
        !absl::SimpleAtoi(parts[2], &t.pid) || t.pid <= 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("'", dir, "/pids': bad line '", line, "'"));
    }
    t.job = parts[0];
    tasks.push_back(t);
  }
  return tasks;
}

// SIGTERM to each, then SIGKILL to those alive after `grace`. Returns the
// tasks that needed SIGKILL.
std::vector<std::string> StopTasks(const std::vector<TaskProcess>& tasks,
                                   absl::Duration grace) {
  for (const TaskProcess& t : tasks) {
    if (IsServerAlive(t.pid)) ::kill(t.pid, SIGTERM);
  }
  const absl::Time deadline = absl::Now() + grace;
  std::vector<std::string> killed;
  for (const TaskProcess& t : tasks) {
    while (IsServerAlive(t.pid) && absl::Now() < deadline) {
      absl::SleepFor(absl::Milliseconds(20));
    }
    if (IsServerAlive(t.pid)) {
      ::kill(t.pid, SIGKILL);
      killed.push_back(TaskName(t.job, t.index));
    }
  }
  return killed;
}

absl::StatusOr<pid_t> SpawnServer(const std::string& dir,
                                  const std::string& cluster_file,
                                  const std::string& job, int index,
                                  int cpu_devices,
                                  const std::vector<std::string>& flags) {
  std::string exe = std::filesystem::read_symlink("/proc/self/exe");
  std::vector<std::string> args = {exe,
                                   "server",
                                   "--cluster",
                                   "@" + cluster_file,
                                   "--job",
                                   job,
                                   "--task",
                                   std::to_string(index),
                                   "--cpu-devices",
                                   std::to_string(cpu_devices)};
  args.insert(args.end(), flags.begin(), flags.end());
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const std::string log = absl::StrCat(dir, "/", job, "-", index, ".log");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // Its own session: the servers outlive this command and do not get the
  // terminal's Ctrl-C.
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID);
  pid_t pid = 0;
  const int rc = ::posix_spawn(&pid, exe.c_str(), &actions, &attr,
                               argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    return absl::InternalError(absl::StrCat(
        "cannot start the server of ", TaskName(job, index), ": ",
        std::strerror(rc)));
  }
  return pid;
}

std::string LogTail(const std::string& path) {
  std::ifstream in(path);
  std::string line, last;
  while (std::getline(in, line)) {
    if (!line.empty()) last = line;
  }
  return last;
}

// Waits until the task answers GetStatus, its process dies, or `deadline`.
// Another program may take a free port before the server binds it (see
// PickFreeLoopbackPort): the server then exits with "cannot listen", which
// the caller retries on.
absl::Status WaitForTask(const std::string& task, const std::string& address,
                         pid_t pid, const std::string& log,
                         absl::Time deadline) {
  // The server is this process's child: waitpid says for certain whether it
  // exited (reading /proc twice once said "dead" and then "alive", and a
  // server that could not listen was reported as a timeout instead of
  // being retried on new ports).
  bool exited = false;
  auto running = [pid, &exited] {
    if (!exited) {
      const pid_t r = ::waitpid(pid, nullptr, WNOHANG);
      exited = r == pid || (r < 0 && errno == ECHILD);
    }
    return !exited;
  };
  absl::Status s =
      WaitForWorkerReady(address, deadline, running, {}, task);
  if (s.ok()) return s;
  if (!running()) {
    return absl::UnavailableError(
        absl::StrCat(task, " exited while starting: ", LogTail(log)));
  }
  // DeadlineExceeded, or FailedPrecondition for another task's server.
  return absl::Status(s.code(),
                      absl::StrCat(task, ": ", s.message(), "; see ", log));
}

absl::StatusOr<std::string> StartCluster(int workers, int ps,
                                         const std::string& dir,
                                         int cpu_devices,
                                         absl::Duration timeout,
                                         const ServerFlags& flags);

absl::Status Up(int workers, int ps, const std::string& dir, int cpu_devices,
                absl::Duration timeout, const ServerFlags& flags,
                std::ostream& out) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    return absl::InvalidArgumentError(
        absl::StrCat("--dir '", dir, "': ", ec.message()));
  }
  if (auto existing = ReadPids(dir); existing.ok()) {
    for (const TaskProcess& t : *existing) {
      if (IsServerAlive(t.pid)) {
        return absl::AlreadyExistsError(absl::StrCat(
            "a cluster is already up in '", dir, "' (", TaskName(t.job, t.index),
            " is pid ", t.pid, "); run 'dfx cluster down --dir ", dir,
            "' first"));
      }
    }
  }
  // Free ports are picked before the servers bind them; if another
  // program takes one in between, that task exits at once and the cluster
  // starts again on new ports.
  absl::Status status;
  for (int attempt = 0; attempt < 3; ++attempt) {
    absl::StatusOr<std::string> target =
        StartCluster(workers, ps, dir, cpu_devices, timeout, flags);
    if (target.ok()) {
      out << *target << std::endl;
      return absl::OkStatus();
    }
    status = target.status();
    if (status.message().find("cannot listen") == absl::string_view::npos) {
      break;
    }
  }
  return status;
}

// One try of 'up': the cluster's target, or the first task's failure (its
// processes stopped).
absl::StatusOr<std::string> StartCluster(int workers, int ps,
                                         const std::string& dir,
                                         int cpu_devices,
                                         absl::Duration timeout,
                                         const ServerFlags& flags) {
  std::error_code ec;
  std::string json = "{";
  std::vector<std::pair<std::string, int>> tasks;
  // Distinct ports (picked one by one, a released port may come again).
  DFX_ASSIGN_OR_RETURN(std::vector<int> ports,
                       PickFreeLoopbackPorts(workers + ps));
  size_t next_port = 0;
  auto add_job = [&](const std::string& job, int n) -> absl::Status {
    if (n == 0) return absl::OkStatus();
    if (json.size() > 1) json += ", ";
    absl::StrAppend(&json, "\"", job, "\": [");
    for (int i = 0; i < n; ++i) {
      const int port = ports[next_port++];
      absl::StrAppend(&json, i > 0 ? ", " : "", "\"127.0.0.1:", port, "\"");
      tasks.emplace_back(job, i);
    }
    json += "]";
    return absl::OkStatus();
  };
  DFX_RETURN_IF_ERROR(add_job("worker", workers));
  DFX_RETURN_IF_ERROR(add_job("ps", ps));
  json += "}";
  DFX_ASSIGN_OR_RETURN(ClusterDef cluster, ParseClusterJson(json));
  const std::string cluster_file = dir + "/cluster.json";
  {
    std::ofstream f(cluster_file);
    f << ClusterToJson(cluster) << "\n";
    if (!f) {
      return absl::InternalError(
          absl::StrCat("cannot write '", cluster_file, "'"));
    }
  }
  std::vector<TaskProcess> started;
  auto fail = [&](const absl::Status& s) {
    StopTasks(started, absl::Seconds(5));
    std::filesystem::remove(dir + "/pids", ec);
    return s;
  };
  {
    std::ofstream pids(dir + "/pids");
    for (const auto& [job, index] : tasks) {
      absl::StatusOr<pid_t> pid =
          SpawnServer(dir, cluster_file, job, index, cpu_devices,
                      flags.For(job));
      if (!pid.ok()) return fail(pid.status());
      started.push_back({job, index, *pid});
      pids << job << " " << index << " " << *pid << "\n";
    }
    pids.flush();
    if (!pids) {
      return fail(absl::InternalError(
          absl::StrCat("cannot write '", dir, "/pids'")));
    }
  }
  const absl::Time deadline = absl::Now() + timeout;
  for (const TaskProcess& t : started) {
    const std::string address = *TaskAddress(cluster, t.job, t.index);
    absl::Status s = WaitForTask(
        TaskName(t.job, t.index), address, t.pid,
        absl::StrCat(dir, "/", t.job, "-", t.index, ".log"), deadline);
    if (!s.ok()) return fail(s);
  }
  return absl::StrCat("grpc://", *TaskAddress(cluster, "worker", 0));
}

absl::Status Down(const std::string& dir, std::ostream& out) {
  DFX_ASSIGN_OR_RETURN(std::vector<TaskProcess> tasks, ReadPids(dir));
  std::vector<std::string> killed = StopTasks(tasks, absl::Seconds(10));
  std::error_code ec;
  std::filesystem::remove(dir + "/pids", ec);
  if (!killed.empty()) {
    out << "dfx cluster: killed (no exit 10 s after SIGTERM):";
    for (const std::string& t : killed) out << " " << t;
    out << std::endl;
  }
  return absl::OkStatus();
}

}  // namespace

int ClusterMain(const std::vector<std::string>& args, std::ostream& out,
                std::ostream& err) {
  auto report = [&err](const absl::Status& s) {
    ReportError("cluster", s, err);
  };
  auto usage = [&](absl::string_view what) {
    report(absl::InvalidArgumentError(
        absl::StrCat(what, " (see 'dfx cluster --help')")));
    return kExitUsage;
  };
  if (args.empty()) return usage("give 'up' or 'down'");
  if (args[0] == "-h" || args[0] == "--help") {
    out << kClusterUsage;
    return kExitOk;
  }
  const std::string verb = args[0];
  if (verb != "up" && verb != "down") {
    return usage(absl::StrCat("unknown action '", verb, "'"));
  }
  std::vector<std::string> rest(args.begin() + 1, args.end());
  absl::StatusOr<std::vector<Flag>> flags =
      verb == "up" ? SplitFlags(rest,
                                {"--workers", "--ps", "--dir",
                                 "--cpu-devices", "--timeout-ms",
                                 "--worker-gpus", "--ps-gpus"},
                                {"--no-push", "--no-bulk-local",
                                 "--gpu-allow-growth"})
                   : SplitFlags(rest, {"--dir"}, {});
  if (!flags.ok()) return usage(flags.status().message());
  int64_t workers = 2, ps = 1, cpu_devices = 1, timeout_ms = 30000;
  std::string dir = DefaultDir();
  ServerFlags server_flags;
  for (const auto& [flag, value] : *flags) {
    if (flag == "--help") {
      out << kClusterUsage;
      return kExitOk;
    }
    if (flag == "--no-push" || flag == "--no-bulk-local" ||
        flag == "--gpu-allow-growth") {
      server_flags.all.push_back(flag);
      continue;
    }
    if (flag == "--worker-gpus" || flag == "--ps-gpus") {
      if (value != "all" && value != "none") {
        if (absl::Status s = ParseVisibleDeviceList(value).status();
            !s.ok()) {
          return usage(absl::StrCat(flag, " '", value, "': ", s.message()));
        }
      }
      const std::string job = flag == "--ps-gpus" ? "ps" : "worker";
      server_flags.per_job[job] = {"--gpus", value};
      continue;
    }
    absl::StatusOr<int64_t> n = int64_t{0};
    if (flag == "--dir") {
      if (value.empty()) return usage("--dir needs a directory");
      dir = value;
      continue;
    }
    if (flag == "--ps") {
      if (!absl::SimpleAtoi(value, &ps) || ps < 0 || ps > 64) {
        return usage(absl::StrCat("--ps '", value, "' is not 0 to 64"));
      }
      continue;
    }
    n = ParsePositiveFlag(flag, value);
    if (!n.ok()) return usage(n.status().message());
    if (flag == "--workers") {
      if (*n > 64) return usage("--workers is at most 64");
      workers = *n;
    } else if (flag == "--cpu-devices") {
      if (*n > kMaxLocalDevices) return usage("--cpu-devices is too large");
      cpu_devices = *n;
    } else if (flag == "--timeout-ms") {
      timeout_ms = *n;
    }
  }
  absl::Status s =
      verb == "up" ? Up(static_cast<int>(workers), static_cast<int>(ps), dir,
                        static_cast<int>(cpu_devices),
                        absl::Milliseconds(timeout_ms), server_flags, out)
                   : Down(dir, out);
  if (!s.ok()) {
    report(s);
    return kExitError;
  }
  return kExitOk;
}

}  // namespace dfx::cli

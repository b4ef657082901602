#include "tools/cli/server.h"

#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "base/status_macros.h"
#include "rpc/cluster_spec.h"
#include "rpc/security.h"
#include "runtime/file_policy.h"
#include "runtime/gpu_options.h"
#include "runtime/memory_limit.h"
#include "tools/cli/command.h"
#include "tools/cli/command_util.h"

namespace dfx::cli {

const char kServerUsage[] =
    R"(usage: dfx server --cluster JSON|@FILE --job NAME --task N
                  [--cpu-devices N] [--inter-op-threads N]
                  [--intra-op-threads N] [--session-gc-seconds S]
                  [--heartbeat-seconds S]
                  [--discovery-timeout-ms N] [--max-chunk-bytes N]
                  [--no-bulk] [--no-bulk-local] [--no-push] [--no-optimize]
                  [--memory-limit BYTES] [--data-dir DIR]
                  [--graph-network all|outbound|none]
                  [--gpus all|none|LIST] [--gpu-memory-fraction F]
                  [--gpu-allow-growth]
                  [--auth-token-file FILE]
                  [--tls-cert PEM --tls-key PEM [--tls-ca PEM]
                   [--tls-client-auth none|request|require]]
                  [--security JSON|@FILE] [--http-port N]
                  [--log-level trace|debug|info|warn|error]
                  [--log-format text|json]
       dfx server          (the task from the TF_CONFIG variable)

Runs one task of a cluster: a master (sessions come to it at
grpc://ADDRESS) and a worker (the master of any task runs graph
partitions on it). It listens on its own address from the cluster and runs
until SIGTERM or SIGINT, which cancel the running steps and exit with 0.
With DFX_EXIT_WITH_PARENT=1 in its environment it also stops when the
process that started it dies.

  --cluster JSON|@FILE  TensorFlow's cluster form, e.g.
                        {"worker": ["127.0.0.1:2222", "127.0.0.1:2223"],
                         "ps": ["127.0.0.1:2224"]}
  --job NAME, --task N  which task of the cluster this server is
  --cpu-devices N       CPU devices of the task (default 1)
  --inter-op-threads N  threads running nodes (default: the cores)
  --intra-op-threads N  threads within one op (default: the cores)
  --session-gc-seconds S
                        close sessions idle for S seconds (default 3600;
                        0: never)
  --heartbeat-seconds S ask the tasks of live sessions every S seconds
                        whether they restarted, so they rejoin before the
                        next step (default 10; 0: only when a step fails)
  --discovery-timeout-ms N
                        how long creating a session waits for every task
                        to answer (default 30000)
  --max-chunk-bytes N   largest piece of a tensor in one RecvTensor answer
                        (default 1 GiB; bigger tensors go in pieces)
  --no-bulk             send every tensor over gRPC; by default tensors of
                        1 MiB and more go to dfx peers over a plain TCP
                        connection to a second port of this host (picked
                        by the kernel; open it in firewalls, or use this)
  --no-bulk-local       receivers on this host take bulk tensors over TCP
                        too; by default they take them from an abstract
                        Unix socket as shared memory (one copy, no TCP)
  --no-push             push no tensors: every _Recv in another task asks
                        for its tensor with RecvTensor; by default tensors
                        of at most 64 KiB go to dfx peers as soon as they
                        are produced, over one stream per peer
  --no-optimize         run every session's steps without the graph
                        optimizer (constant folding, dead branches,
                        arithmetic, CSE, Identity removal), whatever the
                        session's ConfigProto asks
  --memory-limit BYTES  the most bytes of tensors this server holds at once
                        (e.g. 16G, 512MiB; 0: no limit). A step that needs
                        more fails with ResourceExhausted naming the node;
                        the server lives on. Default: 70% of the physical
                        memory (or of the cgroup's limit)
  --data-dir DIR        confine the files graphs read and write (SaveV2,
                        RestoreV2, MergeV2Checkpoints) to DIR: relative
                        paths resolve under it, paths leaving it (after
                        symlinks) fail with PermissionDenied. Default: any
                        path the server's user may use
  --graph-network all|outbound|none
                        the connections graph ops may make on the server's
                        behalf: all (default, as TensorFlow), outbound
                        (RpcClient and the tf.data service ops connect;
                        RpcServer may not listen) or none (neither). A
                        refused op fails with PermissionDenied naming it
  --gpus all|none|LIST  the GPUs of a CUDA build that become this task's
                        /device:GPU:0, GPU:1, ...: all (default), none, or
                        CUDA numbers in order ("1,0": GPU 1 is GPU:0);
                        ConfigProto.gpu_options.visible_device_list
  --gpu-memory-fraction F
                        the share of each GPU's memory the task may take,
                        in (0, 1] (default: its free memory less a reserve)
  --gpu-allow-growth    take GPU memory region by region as needed instead
                        of all of it at the first allocation
  --auth-token-file FILE
                        every call (master, worker, bulk) must carry
                        "authorization: Bearer TOKEN", TOKEN the file's one
                        line; the server's calls to the other tasks send it
                        (the cluster shares one token). The file must not
                        be readable by group or others (chmod 600)
  --tls-cert PEM, --tls-key PEM
                        serve over TLS with this certificate (its SANs must
                        name the task's host as the cluster gives it) and
                        key; the bulk plane speaks TLS too
  --tls-ca PEM          CA that signs the other tasks' certificates (checked
                        on this server's calls to them) and clients'
                        certificates (default: the system's roots)
  --tls-client-auth none|request|require
                        ask clients for a certificate signed by --tls-ca
                        (request: if they have one; require: refuse those
                        without); this server presents its own to its peers
  --security JSON|@FILE the settings above as one JSON object, e.g. a file
                        every task of the cluster shares:
                        {"auth_token_file": "/etc/dfx/token",
                         "tls_cert": "cert.pem", "tls_key": "key.pem",
                         "tls_ca": "ca.pem", "tls_client_auth": "require"}
  --http-port N         serve a status page (/), Prometheus metrics
                        (/metrics) and a readiness probe (/healthz) on
                        port N of the task's host (0: a free port, logged);
                        over HTTPS with the TLS flags, and / and /metrics
                        need the auth token (Bearer) when there is one.
                        Default: no status page
  --log-level LEVEL     trace, debug, info (default), warn or error
  --log-format FORMAT   text (default) or json: one JSON object per line
                        with time, level, task, msg, and step_id and
                        session for lines about a step
  -h, --help            print this help

Without --cluster, TF_CONFIG must hold {"cluster": {...}, "task": {"type":
JOB, "index": N}}, as for TensorFlow. Logs go to stderr. Exit status: 0
after a clean stop, 1 when the server cannot start, 2 for bad flags.
)";

namespace {

absl::Status UsageError(absl::string_view what) {
  return absl::InvalidArgumentError(what);
}

absl::StatusOr<int64_t> NonNegativeFlag(absl::string_view flag,
                                        absl::string_view value) {
  int64_t n = 0;
  if (!absl::SimpleAtoi(value, &n) || n < 0) {
    return UsageError(absl::StrCat(flag, " '", value,
                                   "' is not a non-negative integer"));
  }
  return n;
}

absl::StatusOr<std::string> ReadClusterFlag(const std::string& value) {
  if (value.empty() || value[0] != '@') return value;
  std::ifstream in(value.substr(1));
  if (!in) {
    return absl::NotFoundError(
        absl::StrCat("--cluster: cannot read '", value.substr(1), "'"));
  }
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

absl::StatusOr<ServerCommandOptions> ParseServerFlags(
    const std::vector<std::string>& args, const char* tf_config) {
  ServerCommandOptions options;
  DFX_ASSIGN_OR_RETURN(std::vector<Flag> flags,
                       SplitFlags(args,
                                  {"--cluster",
                                   "--job",
                                   "--task",
                                   "--cpu-devices",
                                   "--inter-op-threads",
                                   "--intra-op-threads",
                                   "--session-gc-seconds",
                                   "--heartbeat-seconds",
                                   "--discovery-timeout-ms",
                                   "--max-chunk-bytes",
                                   "--memory-limit",
                                   "--auth-token-file",
                                   "--tls-cert",
                                   "--tls-key",
                                   "--tls-ca",
                                   "--tls-client-auth",
                                   "--security",
                                   "--data-dir",
                                   "--graph-network",
                                   "--http-port",
                                   "--log-level",
                                   "--log-format",
                                   "--gpus",
                                   "--gpu-memory-fraction"},
                                  {"--no-bulk", "--no-bulk-local", "--no-push",
                                   "--no-optimize", "--gpu-allow-growth"}));
  std::string cluster_json;
  SecurityFiles security_files;
  std::string security_json;
  std::string job;
  int64_t task = -1;
  GrpcServerOptions& server = options.server;
  for (const auto& [flag, value] : flags) {
    if (flag == "--help") {
      options.help = true;
      return options;
    } else if (flag == "--cluster") {
      DFX_ASSIGN_OR_RETURN(cluster_json, ReadClusterFlag(value));
    } else if (flag == "--job") {
      job = value;
    } else if (flag == "--task") {
      DFX_ASSIGN_OR_RETURN(task, NonNegativeFlag(flag, value));
    } else if (flag == "--cpu-devices") {
      DFX_ASSIGN_OR_RETURN(int64_t n, ParsePositiveFlag(flag, value));
      if (n > kMaxLocalDevices) {
        return UsageError(absl::StrCat("--cpu-devices ", n, " is more than ",
                                       kMaxLocalDevices));
      }
      server.num_cpu_devices = static_cast<int>(n);
    } else if (flag == "--inter-op-threads" ||
               flag == "--intra-op-threads") {
      DFX_ASSIGN_OR_RETURN(int64_t n, NonNegativeFlag(flag, value));
      if (n > 4096) {
        return UsageError(absl::StrCat(flag, " ", n, " is more than 4096"));
      }
      (flag == "--inter-op-threads" ? server.inter_op_threads
                                    : server.intra_op_threads) =
          static_cast<int>(n);
    } else if (flag == "--session-gc-seconds") {
      DFX_ASSIGN_OR_RETURN(int64_t n, NonNegativeFlag(flag, value));
      server.session_gc_idle = absl::Seconds(n);
    } else if (flag == "--heartbeat-seconds") {
      DFX_ASSIGN_OR_RETURN(int64_t n, NonNegativeFlag(flag, value));
      server.heartbeat_interval = absl::Seconds(n);
    } else if (flag == "--discovery-timeout-ms") {
      DFX_ASSIGN_OR_RETURN(int64_t n, ParsePositiveFlag(flag, value));
      server.discovery_timeout = absl::Milliseconds(n);
    } else if (flag == "--no-bulk") {
      server.enable_bulk = false;
    } else if (flag == "--no-bulk-local") {
      server.enable_bulk_local = false;
    } else if (flag == "--no-push") {
      server.enable_push = false;
    } else if (flag == "--no-optimize") {
      server.optimize_graphs = false;
    } else if (flag == "--memory-limit") {
      DFX_ASSIGN_OR_RETURN(server.memory_limit_bytes,
                           ParseByteSize(flag, value));
    } else if (flag == "--data-dir") {
      if (value.empty()) return UsageError("--data-dir needs a directory");
      options.data_dir = value;
    } else if (flag == "--graph-network") {
      absl::StatusOr<GraphNetwork> policy = ParseGraphNetwork(value);
      if (!policy.ok()) {
        return UsageError(
            absl::StrCat("--graph-network: ", policy.status().message()));
      }
      options.graph_network = *policy;
    } else if (flag == "--max-chunk-bytes") {
      DFX_ASSIGN_OR_RETURN(server.max_chunk_bytes,
                           ParsePositiveFlag(flag, value));
    } else if (flag == "--security") {
      security_json = value;
    } else if (flag == "--http-port") {
      DFX_ASSIGN_OR_RETURN(int64_t port, NonNegativeFlag(flag, value));
      if (port > 65535) {
        return UsageError(absl::StrCat("--http-port ", port,
                                       " is not a port (0..65535)"));
      }
      server.http_port = static_cast<int>(port);
    } else if (flag == "--gpus") {
      if (value == "none") {
        server.max_gpu_devices = 0;
      } else if (value != "all") {
        if (absl::Status s = ParseVisibleDeviceList(value).status();
            !s.ok()) {
          return UsageError(absl::StrCat("--gpus: ", s.message()));
        }
        server.gpu_options.set_visible_device_list(value);
      }
    } else if (flag == "--gpu-memory-fraction") {
      double fraction = 0;
      if (!absl::SimpleAtod(value, &fraction) || !(fraction > 0) ||
          fraction > 1) {
        return UsageError(absl::StrCat("--gpu-memory-fraction '", value,
                                       "' is not a number in (0, 1]"));
      }
      server.gpu_options.set_per_process_gpu_memory_fraction(fraction);
    } else if (flag == "--gpu-allow-growth") {
      server.gpu_options.set_allow_growth(true);
    } else if (flag == "--log-level") {
      options.log_level = value;
    } else if (flag == "--log-format") {
      options.log_format = value;
    } else if (security_files.SetFlag(flag, value)) {
      if (value.empty()) return UsageError(absl::StrCat(flag, " needs a file"));
    }
  }
  if (!security_json.empty()) {
    DFX_RETURN_IF_ERROR(security_files.MergeJson(security_json));
  }
  DFX_RETURN_IF_ERROR(CheckLoggingFlags(
      options.log_level.empty() ? "info" : options.log_level,
      options.log_format));
  DFX_ASSIGN_OR_RETURN(server.security, LoadServerSecurity(security_files));
  if (cluster_json.empty() && job.empty() && task < 0) {
    if (tf_config == nullptr || *tf_config == '\0') {
      return UsageError(
          "give --cluster, --job and --task, or set TF_CONFIG");
    }
    DFX_ASSIGN_OR_RETURN(TaskSpec spec, ParseTfConfig(tf_config));
    server.cluster = std::move(spec.cluster);
    server.job_name = spec.job;
    server.task_index = spec.task_index;
    return options;
  }
  if (cluster_json.empty()) return UsageError("--cluster is required");
  if (job.empty()) return UsageError("--job is required");
  if (task < 0) return UsageError("--task is required");
  DFX_ASSIGN_OR_RETURN(server.cluster, ParseClusterJson(cluster_json));
  server.job_name = job;
  server.task_index = static_cast<int>(task);
  DFX_RETURN_IF_ERROR(TaskAddress(server.cluster, job, server.task_index)
                          .status());
  return options;
}

int ServerMain(const std::vector<std::string>& args, std::ostream& out,
               std::ostream& err) {
  auto report = [&err](const absl::Status& s) {
    ReportError("server", s, err);
  };
  absl::StatusOr<ServerCommandOptions> options =
      ParseServerFlags(args, std::getenv("TF_CONFIG"));
  if (!options.ok()) {
    report(absl::InvalidArgumentError(absl::StrCat(
        options.status().message(), " (see 'dfx server --help')")));
    return kExitUsage;
  }
  if (options->help) {
    out << kServerUsage;
    return kExitOk;
  }
  // The signals are taken by sigwait below: blocked here, before any thread
  // starts, so that no gRPC or pool thread receives them.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  // DFX_EXIT_WITH_PARENT=1 (the test clusters set it): SIGTERM, taken
  // below, when the process that started this one dies, so that a test
  // process that crashes or stops at a sanitizer report leaves no server
  // behind. (The kernel sends it when the starting thread exits.)
  if (const char* v = std::getenv("DFX_EXIT_WITH_PARENT");
      v != nullptr && std::string(v) == "1") {
    const pid_t parent = ::getppid();
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != parent) {
      spdlog::error("the process that started this server is gone");
      return kExitError;
    }
  }

  // Info by default (SPDLOG_LEVEL may ask for more), or --log-level.
  const spdlog::level::level_enum level =
      std::min(spdlog::get_level(), spdlog::level::info);
  if (absl::Status s =
          ConfigureLogging(options->log_level.empty() ? "info"
                                                      : options->log_level,
                           options->log_format);
      !s.ok()) {
    report(s);
    return kExitUsage;
  }
  if (options->log_level.empty()) spdlog::set_level(level);
  SetLogTask(TaskName(options->server.job_name, options->server.task_index));
  if (absl::Status s = SetDataDir(options->data_dir); !s.ok()) {
    report(absl::InvalidArgumentError(
        absl::StrCat("--data-dir: ", s.message())));
    return kExitError;
  }
  SetGraphNetwork(options->graph_network);
  absl::StatusOr<std::unique_ptr<GrpcServer>> server =
      GrpcServer::Create(options->server);
  if (!server.ok()) {
    report(server.status());
    return kExitError;
  }
  out << "dfx server: " << (*server)->task() << " serving on "
      << (*server)->address() << std::endl;
  if (!(*server)->status_url().empty()) {
    out << "dfx server: status page at " << (*server)->status_url()
        << std::endl;
  }
  int signal = 0;
  sigwait(&signals, &signal);
  spdlog::info("task {}: {} received, shutting down", (*server)->task(),
               signal == SIGTERM ? "SIGTERM" : "SIGINT");
  (*server)->Stop();
  server->reset();
  out << "dfx server: stopped" << std::endl;
  return kExitOk;
}

}  // namespace dfx::cli

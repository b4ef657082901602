#include "rpc/status_http.h"

#include <openssl/bio.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <map>
#include <thread>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "base/log.h"
#include "base/metrics.h"
#include "base/status_macros.h"
#include "master/master.h"
#include "rpc/bulk_io.h"
#include "rpc/cluster_spec.h"
#include "rpc/rpc_metrics.h"
#include "runtime/allocator.h"
#include "runtime/bfc_allocator.h"
#include "runtime/device.h"
#include "runtime/memory_limit.h"
#include "worker/worker.h"
#include "worker/worker_cache.h"
// Last: it includes <resolv.h>, whose _res macro breaks Eigen's headers.
#include "httplib.h"

namespace dfx {
namespace {

// Threads answering HTTP requests: a status page needs few, but a
// keep-alive connection holds one for up to 5 s (a scraper, a probe and a
// browser at once).
constexpr int kHttpThreads = 4;
constexpr int kRefreshSeconds = 5;

// A number from /proc/self/status ("VmRSS:" in kB, "Threads:"); -1 when
// missing.
int64_t ProcStatusField(absl::string_view field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (!absl::StartsWith(line, field)) continue;
    absl::string_view rest = absl::string_view(line).substr(field.size());
    rest = absl::StripAsciiWhitespace(rest);
    rest = rest.substr(0, rest.find(' '));
    int64_t n = 0;
    if (absl::SimpleAtoi(rest, &n)) return n;
  }
  return -1;
}

int64_t ResidentBytes() {
  const int64_t kb = ProcStatusField("VmRSS:");
  return kb < 0 ? -1 : kb * 1024;
}

// The process's gauges, registered once: read at each rendering.
void RegisterProcessGauges() {
  static const bool registered = [] {
    MetricsRegistry& r = MetricsRegistry::Default();
    static auto* handles =
        new std::vector<std::unique_ptr<MetricFamily::Callback>>;
    handles->push_back(
        r.AddGauge("dfx_memory_in_use_bytes",
                   "Bytes of tensor buffers the host allocator holds now "
                   "(what the memory limit counts).")
            ->AddCallback({}, [] {
              return static_cast<double>(
                  CpuAllocator()->GetStats().bytes_in_use);
            }));
    handles->push_back(
        r.AddGauge("dfx_memory_limit_bytes",
                   "The host memory limit (0: none).")
            ->AddCallback({}, [] {
              return static_cast<double>(HostMemoryLimit());
            }));
    handles->push_back(
        r.AddGauge("process_resident_memory_bytes",
                   "Resident memory size in bytes.")
            ->AddCallback({}, [] {
              return static_cast<double>(ResidentBytes());
            }));
    handles->push_back(
        r.AddGauge("process_threads", "Threads of the process.")
            ->AddCallback({}, [] {
              return static_cast<double>(ProcStatusField("Threads:"));
            }));
    return true;
  }();
  (void)registered;
}

std::string Ago(absl::Time t, absl::Time now) {
  if (t == absl::InfinitePast()) return "never";
  return absl::StrCat(absl::FormatDuration(absl::Trunc(now - t,
                                                       absl::Milliseconds(
                                                           100))),
                      " ago");
}

// The devices of `devices` whose allocator is their own (not the host's).
std::vector<const Device*> ArenaDevices(
    const std::vector<const Device*>& devices) {
  std::vector<const Device*> out;
  for (const Device* d : devices) {
    if (d != nullptr && d->GetAllocator() != CpuAllocator()) out.push_back(d);
  }
  return out;
}

// A device arena's figures (-1: not known for this allocator).
struct ArenaFigures {
  int64_t in_use = 0;
  int64_t peak = 0;
  int64_t allocations = 0;
  int64_t limit = -1;
  int64_t reserved = -1;
  int64_t largest_free = -1;
};

ArenaFigures ReadArena(const Device& device) {
  const Allocator* a = device.GetAllocator();
  ArenaFigures f;
  if (const auto* bfc = dynamic_cast<const BfcAllocator*>(a)) {
    const BfcStats s = bfc->GetBfcStats();
    f.in_use = s.bytes_in_use;
    f.peak = s.peak_bytes_in_use;
    f.allocations = s.num_allocs;
    f.limit = s.bytes_limit;
    f.reserved = s.bytes_reserved;
    f.largest_free = s.largest_free_chunk;
    return f;
  }
  const AllocatorStats s = a->GetStats();
  f.in_use = s.bytes_in_use;
  f.peak = s.peak_bytes_in_use;
  f.allocations = s.num_allocs;
  return f;
}

std::string Bytes(int64_t n) {
  if (n < 0) return "unknown";
  if (n < 1024) return absl::StrCat(n, " B");
  const char* units[] = {"KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(n);
  int u = -1;
  while (v >= 1024 && u < 3) {
    v /= 1024;
    ++u;
  }
  return absl::StrFormat("%.1f %s", v, units[u]);
}

// Owns what OpenSSL parsed from PEM text.
struct X509Deleter {
  void operator()(X509* x) const { X509_free(x); }
};
struct PkeyDeleter {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};

}  // namespace

std::string HtmlEscape(absl::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out.push_back(c);
    }
  }
  return out;
}

class StatusHttpServer::Impl {
 public:
  explicit Impl(StatusHttpOptions options) : options_(std::move(options)) {}

  ~Impl() {
    Stop();
    // Bounded: the server cancels the workers' calls before destroying
    // this when a peer does not answer (GrpcServer::Stop).
    WaitForProbes(absl::InfiniteFuture());
  }

  absl::Status Start() {
    if (options_.security.tls()) {
      absl::StatusOr<std::unique_ptr<httplib::Server>> tls = MakeTlsServer();
      if (!tls.ok()) return tls.status();
      http_ = *std::move(tls);
    } else {
      http_ = std::make_unique<httplib::Server>();
    }
    http_->new_task_queue = [] {
      return new httplib::ThreadPool(kHttpThreads);
    };
    http_->set_read_timeout(5, 0);
    http_->set_write_timeout(5, 0);
    http_->set_keep_alive_timeout(5);
    http_->Get("/healthz", [this](const httplib::Request&,
                                  httplib::Response& res) {
      if (serving_.load(std::memory_order_acquire)) {
        res.set_content("ok\n", "text/plain");
      } else {
        res.status = 503;
        res.set_content("stopping\n", "text/plain");
      }
    });
    http_->Get("/metrics", [this](const httplib::Request& req,
                                  httplib::Response& res) {
      if (!Authorized(req, res)) return;
      res.set_content(MetricsRegistry::Default().RenderText(),
                      "text/plain; version=0.0.4; charset=utf-8");
    });
    http_->Get("/", [this](const httplib::Request& req,
                           httplib::Response& res) {
      if (!Authorized(req, res)) return;
      res.set_header("Cache-Control", "no-store");
      res.set_content(RenderPage(), "text/html; charset=utf-8");
    });
    if (options_.port == 0) {
      port_ = http_->bind_to_any_port(options_.host);
    } else if (http_->bind_to_port(options_.host, options_.port)) {
      port_ = options_.port;
    }
    if (port_ <= 0) {
      return absl::UnavailableError(absl::StrCat(
          "task ", options_.task, ": the status page cannot listen on ",
          options_.host, ":", options_.port,
          " (is the port in use, or the host not an address of this "
          "machine?)"));
    }
    RegisterProcessGauges();
    MetricsRegistry& r = MetricsRegistry::Default();
    MetricFamily* sessions = r.AddGauge(
        "dfx_sessions", "Live sessions by kind (master, worker) and task.",
        {"kind", "task"});
    const Master* master = options_.master;
    const Worker* worker = options_.worker;
    gauges_.push_back(sessions->AddCallback(
        {"master", options_.task},
        [master] { return static_cast<double>(master->NumSessions()); }));
    gauges_.push_back(sessions->AddCallback(
        {"worker", options_.task}, [worker] {
          double n = 0;
          for (const auto& s : worker->ListSessions()) n += !s.handle.empty();
          return n;
        }));
    gauges_.push_back(
        r.AddGauge("dfx_registered_graphs",
                   "Graphs registered on the worker of a task, all its "
                   "sessions together.",
                   {"task"})
            ->AddCallback({options_.task}, [worker] {
              double n = 0;
              for (const auto& s : worker->ListSessions()) n += s.graphs;
              return n;
            }));
    // Each device arena's memory, by device.
    struct ArenaGauge {
      const char* name;
      const char* help;
      int64_t ArenaFigures::*field;
    };
    static constexpr ArenaGauge kArenaGauges[] = {
        {"dfx_device_memory_in_use_bytes",
         "Bytes a device's own allocator (a GPU's arena) has handed out.",
         &ArenaFigures::in_use},
        {"dfx_device_memory_peak_bytes",
         "The most bytes a device's own allocator has had handed out at "
         "once.",
         &ArenaFigures::peak},
        {"dfx_device_memory_limit_bytes",
         "The most bytes a device's arena may take (its memory limit).",
         &ArenaFigures::limit},
        {"dfx_device_memory_reserved_bytes",
         "Bytes a device's arena has taken from the device (its regions).",
         &ArenaFigures::reserved},
        {"dfx_device_memory_largest_free_bytes",
         "The largest allocation a device's arena can serve without "
         "taking more memory from the device.",
         &ArenaFigures::largest_free},
    };
    for (const Device* d : ArenaDevices(options_.devices)) {
      const bool bfc =
          dynamic_cast<const BfcAllocator*>(d->GetAllocator()) != nullptr;
      for (const ArenaGauge& g : kArenaGauges) {
        if (!bfc && g.field != &ArenaFigures::in_use &&
            g.field != &ArenaFigures::peak) {
          continue;
        }
        gauges_.push_back(r.AddGauge(g.name, g.help, {"device"})
                              ->AddCallback({d->name()}, [d, field = g.field] {
                                return static_cast<double>(ReadArena(*d).*
                                                           field);
                              }));
      }
    }
    serving_.store(true, std::memory_order_release);
    listener_ = std::thread([this] {
      // OpenSSL writes with write(2): a browser that goes away mid-answer
      // must not SIGPIPE the server. httplib's pool threads start from
      // this one and inherit the mask.
      bulk_io::BlockSigpipe();
      http_->listen_after_bind();
    });
    prober_ = std::thread([this] { ProbeLoop(); });
    return absl::OkStatus();
  }

  void Stop() {
    {
      absl::MutexLock lock(&mu_);
      if (stopped_) return;
      stopped_ = true;
    }
    serving_.store(false, std::memory_order_release);
    stop_probing_.Notify();
    if (prober_.joinable()) prober_.join();
    if (http_ != nullptr) http_->stop();
    if (listener_.joinable()) listener_.join();
    gauges_.clear();
  }

  bool WaitForProbes(absl::Time deadline) {
    absl::MutexLock lock(&mu_);
    return mu_.AwaitWithDeadline(
        absl::Condition(
            +[](int* n) { return *n == 0; }, &probes_in_flight_),
        deadline);
  }

  int port() const { return port_; }
  std::string url() const {
    return absl::StrCat(options_.security.tls() ? "https://" : "http://",
                        options_.host, ":", port_);
  }

 private:
  struct Health {
    absl::Time last_asked = absl::InfinitePast();
    absl::Time last_answer = absl::InfinitePast();
    int devices = 0;
    absl::Time last_error_time = absl::InfinitePast();
    std::string last_error;
    bool probing = false;
  };

  absl::StatusOr<std::unique_ptr<httplib::Server>> MakeTlsServer() {
    const ServerSecurity& sec = options_.security;
    auto read_cert = [](const std::string& pem) {
      BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
      X509* x = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr);
      BIO_free(bio);
      return std::unique_ptr<X509, X509Deleter>(x);
    };
    std::unique_ptr<X509, X509Deleter> cert = read_cert(sec.tls_cert_pem);
    BIO* bio = BIO_new_mem_buf(sec.tls_key_pem.data(),
                               static_cast<int>(sec.tls_key_pem.size()));
    std::unique_ptr<EVP_PKEY, PkeyDeleter> key(
        PEM_read_bio_PrivateKey(bio, nullptr, nullptr, nullptr));
    BIO_free(bio);
    if (cert == nullptr || key == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "task ", options_.task, ": the status page cannot read the TLS ",
          cert == nullptr ? "certificate" : "key"));
    }
    X509_STORE* store = nullptr;
    if (sec.tls_client_auth == TlsClientAuth::kRequire) {
      // httplib then refuses clients without a certificate of the CA.
      store = X509_STORE_new();
      BIO* ca = BIO_new_mem_buf(sec.tls_ca_pem.data(),
                                static_cast<int>(sec.tls_ca_pem.size()));
      while (X509* x = PEM_read_bio_X509(ca, nullptr, nullptr, nullptr)) {
        X509_STORE_add_cert(store, x);
        X509_free(x);
      }
      BIO_free(ca);
    }
    // httplib takes the store; the certificate and key it references.
    auto server =
        std::make_unique<httplib::SSLServer>(cert.get(), key.get(), store);
    if (!server->is_valid()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "task ", options_.task,
          ": the status page cannot use the TLS certificate and key"));
    }
    return std::unique_ptr<httplib::Server>(std::move(server));
  }

  bool Authorized(const httplib::Request& req, httplib::Response& res) const {
    const std::string& token = options_.security.auth_token;
    if (token.empty()) return true;
    const std::string header = req.get_header_value("Authorization");
    constexpr absl::string_view kBearer = "Bearer ";
    if (absl::StartsWith(header, kBearer) &&
        ConstantTimeEquals(absl::string_view(header).substr(kBearer.size()),
                           token)) {
      return true;
    }
    res.status = 401;
    res.set_header("WWW-Authenticate", "Bearer");
    res.set_content("missing or wrong auth token\n", "text/plain");
    return false;
  }

  void ProbeLoop() {
    do {
      for (const std::string& task : options_.worker_cache->ListTasks()) {
        Probe(task);
      }
    } while (
        !stop_probing_.WaitForNotificationWithTimeout(options_.probe_interval));
  }

  void Probe(const std::string& task) {
    WorkerInterface* w = options_.worker_cache->GetWorker(task);
    if (w == nullptr) return;
    {
      absl::MutexLock lock(&mu_);
      Health& h = health_[task];
      if (h.probing) return;  // the last probe is still out
      h.probing = true;
      h.last_asked = absl::Now();
      ++probes_in_flight_;
    }
    struct Call {
      GetStatusRequest request;
      GetStatusResponse response;
    };
    auto call = std::make_shared<Call>();
    w->GetStatusAsync(&call->request, &call->response,
                      [this, task, call](const absl::Status& s) {
                        absl::MutexLock lock(&mu_);
                        Health& h = health_[task];
                        h.probing = false;
                        if (s.ok()) {
                          h.last_answer = absl::Now();
                          h.devices = call->response.device_attributes_size();
                        } else {
                          h.last_error_time = absl::Now();
                          h.last_error = s.ToString();
                        }
                        --probes_in_flight_;
                      });
  }

  std::string RenderPage() const {
    const absl::Time now = absl::Now();
    std::string p;
    const std::string task = HtmlEscape(options_.task);
    absl::StrAppend(
        &p, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">",
        "<meta http-equiv=\"refresh\" content=\"", kRefreshSeconds, "\">",
        "<title>dfx ", task, "</title><style>",
        "body{font-family:sans-serif;margin:1.5em;color:#222}",
        "table{border-collapse:collapse;margin-bottom:1.5em}",
        "th,td{border:1px solid #ccc;padding:3px 8px;text-align:left;",
        "font-size:0.9em}th{background:#eee}",
        ".ok{color:#176317}.bad{color:#a11}.mono{font-family:monospace}",
        "</style></head><body>\n<h1>dfx task <span class=\"mono\" "
        "id=\"task\">",
        task, "</span></h1>\n<p>",
        absl::FormatTime("%Y-%m-%d %H:%M:%S UTC", now, absl::UTCTimeZone()),
        " &middot; reloads every ", kRefreshSeconds,
        " s &middot; <a href=\"/metrics\">metrics</a></p>\n");

    // Memory and bulk traffic.
    const int64_t in_use = CpuAllocator()->GetStats().bytes_in_use;
    const int64_t limit = HostMemoryLimit();
    absl::StrAppend(
        &p, "<h2>Memory and traffic</h2>\n<table id=\"memory\">",
        "<tr><th>tensor memory in use</th><td>", Bytes(in_use),
        limit > 0 ? absl::StrCat(" of ", Bytes(limit), " (",
                                 absl::StrFormat("%.1f", 100.0 * in_use /
                                                             limit),
                                 "%)")
                  : std::string(" (no limit)"),
        "</td></tr><tr><th>process resident memory</th><td>",
        Bytes(ResidentBytes()), "</td></tr><tr><th>bulk plane</th><td>",
        options_.bulk_address.empty()
            ? std::string("off")
            : absl::StrCat("on ", HtmlEscape(options_.bulk_address), ": ",
                           Bytes(BulkBytesSent()->Value()), " sent, ",
                           Bytes(BulkBytesReceived()->Value()), " received"),
        "</td></tr></table>\n");

    // Device arenas (GPUs): CPUs share the host allocator above.
    const std::vector<const Device*> arenas = ArenaDevices(options_.devices);
    if (!arenas.empty()) {
      absl::StrAppend(&p,
                      "<h2>Device memory</h2>\n<table id=\"device-memory\">"
                      "<tr><th>device</th><th>allocator</th><th>in use</th>"
                      "<th>peak</th><th>limit</th><th>reserved</th><th>"
                      "largest free chunk</th><th>allocations</th></tr>\n");
      for (const Device* d : arenas) {
        const ArenaFigures f = ReadArena(*d);
        const auto known = [](int64_t n) {
          return n < 0 ? std::string("-") : Bytes(n);
        };
        absl::StrAppend(
            &p, "<tr class=\"device\"><td class=\"mono\">",
            HtmlEscape(d->name()), "</td><td class=\"mono\">",
            HtmlEscape(d->GetAllocator()->Name()), "</td><td>", Bytes(f.in_use),
            f.limit > 0
                ? absl::StrFormat(" (%.1f%%)",
                                  100.0 * static_cast<double>(f.in_use) /
                                      static_cast<double>(f.limit))
                : std::string(),
            "</td><td>", Bytes(f.peak), "</td><td>", known(f.limit),
            "</td><td>", known(f.reserved), "</td><td>", known(f.largest_free),
            "</td><td>", f.allocations, "</td></tr>\n");
      }
      p += "</table>\n";
    }

    // The cluster's tasks and their health.
    absl::StrAppend(&p, "<h2>Tasks</h2>\n<table id=\"tasks\"><tr><th>task"
                        "</th><th>address</th><th>health</th><th>last "
                        "answer</th><th>last error</th></tr>\n");
    {
      absl::MutexLock lock(&mu_);
      for (const JobDef& job : options_.cluster.job()) {
        std::map<int, std::string> tasks;
        for (const auto& [index, address] : job.tasks()) {
          tasks[index] = address;
        }
        for (const auto& [index, address] : tasks) {
          const std::string name = TaskName(job.name(), index);
          auto it = health_.find(name);
          const Health h = it == health_.end() ? Health() : it->second;
          const bool ok = h.last_answer != absl::InfinitePast() &&
                          h.last_answer >= h.last_error_time;
          std::string state;
          if (h.last_answer == absl::InfinitePast() &&
              h.last_error_time == absl::InfinitePast()) {
            state = "<td>not asked yet</td>";
          } else if (ok) {
            state = absl::StrCat("<td class=\"ok\">up (", h.devices,
                                 " device", h.devices == 1 ? "" : "s",
                                 ")</td>");
          } else {
            state = "<td class=\"bad\">not answering</td>";
          }
          absl::StrAppend(
              &p, "<tr><td class=\"mono\">", HtmlEscape(name),
              name == options_.task ? " (this task)" : "", "</td><td>",
              HtmlEscape(address), "</td>", state, "<td>",
              Ago(h.last_answer, now), "</td><td>",
              h.last_error.empty()
                  ? std::string("none")
                  : absl::StrCat(Ago(h.last_error_time, now), ": ",
                                 HtmlEscape(h.last_error)),
              "</td></tr>\n");
        }
      }
    }
    p += "</table>\n";

    // Sessions.
    const std::vector<MasterSessionSummary> master_sessions =
        options_.master->ListSessions();
    absl::StrAppend(&p, "<h2>Master sessions (", master_sessions.size(),
                    ")</h2>\n<table id=\"master-sessions\"><tr><th>handle"
                    "</th><th>calls running</th><th>last active</th></tr>\n");
    for (const MasterSessionSummary& s : master_sessions) {
      absl::StrAppend(&p, "<tr><td class=\"mono\">", HtmlEscape(s.handle),
                      "</td><td>", s.running_calls, "</td><td>",
                      Ago(s.last_active, now), "</td></tr>\n");
    }
    const std::vector<WorkerSessionSummary> worker_sessions =
        options_.worker->ListSessions();
    absl::StrAppend(&p, "</table>\n<h2>Worker sessions (",
                    worker_sessions.size(),
                    ")</h2>\n<table id=\"worker-sessions\"><tr><th>handle"
                    "</th><th>master</th><th>registered graphs</th><th>"
                    "steps running</th><th>last active</th></tr>\n");
    for (const WorkerSessionSummary& s : worker_sessions) {
      absl::StrAppend(
          &p, "<tr><td class=\"mono\">",
          s.handle.empty() ? std::string("(legacy)") : HtmlEscape(s.handle),
          "</td><td class=\"mono\">", HtmlEscape(s.master_task), "</td><td>",
          s.graphs, "</td><td>", s.running_steps, "</td><td>",
          Ago(s.last_active, now), "</td></tr>\n");
    }

    // Recent steps.
    const std::vector<StepSummary> steps = options_.master->RecentSteps();
    absl::StrAppend(&p, "</table>\n<h2>Recent steps (", steps.size(),
                    ")</h2>\n<table id=\"steps\"><tr><th>started</th><th>"
                    "step</th><th>session</th><th>duration</th><th>status"
                    "</th><th>slowest nodes (traced steps)</th></tr>\n");
    for (const StepSummary& s : steps) {
      std::string nodes;
      for (const auto& [name, d] : s.slowest_nodes) {
        absl::StrAppend(&nodes, nodes.empty() ? "" : ", ", HtmlEscape(name),
                        " ", absl::FormatDuration(d));
      }
      absl::StrAppend(
          &p, "<tr class=\"step\"><td>",
          HtmlEscape(absl::FormatTime("%H:%M:%E3S", s.start,
                                      absl::UTCTimeZone())),
          "</td><td class=\"mono\">", s.step_id, "</td><td class=\"mono\">",
          HtmlEscape(s.session), "</td><td>",
          absl::FormatDuration(absl::Trunc(s.duration, absl::Microseconds(1))),
          "</td><td class=\"", s.status.ok() ? "ok" : "bad", "\">",
          s.status.ok() ? std::string("OK") : HtmlEscape(s.status.ToString()),
          "</td><td class=\"mono\">", nodes, "</td></tr>\n");
    }
    p += "</table>\n</body></html>\n";
    return p;
  }

  const StatusHttpOptions options_;
  std::unique_ptr<httplib::Server> http_;
  int port_ = 0;
  std::atomic<bool> serving_{false};
  std::thread listener_;
  std::thread prober_;
  absl::Notification stop_probing_;
  std::vector<std::unique_ptr<MetricFamily::Callback>> gauges_;

  mutable absl::Mutex mu_;
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
  std::map<std::string, Health> health_ ABSL_GUARDED_BY(mu_);
  int probes_in_flight_ ABSL_GUARDED_BY(mu_) = 0;
};

absl::StatusOr<std::unique_ptr<StatusHttpServer>> StatusHttpServer::Start(
    StatusHttpOptions options) {
  if (options.master == nullptr || options.worker == nullptr ||
      options.worker_cache == nullptr) {
    return absl::InvalidArgumentError(
        "the status page needs the master, the worker and the worker cache");
  }
  if (options.port < 0 || options.port > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat("status page port ", options.port, " is not 0..65535"));
  }
  auto impl = std::make_unique<Impl>(std::move(options));
  DFX_RETURN_IF_ERROR(impl->Start());
  return std::unique_ptr<StatusHttpServer>(
      new StatusHttpServer(std::move(impl)));
}

StatusHttpServer::StatusHttpServer(std::unique_ptr<Impl> impl)
    : impl_(std::move(impl)) {}
StatusHttpServer::~StatusHttpServer() = default;
void StatusHttpServer::Stop() { impl_->Stop(); }
bool StatusHttpServer::WaitForProbes(absl::Time deadline) {
  return impl_->WaitForProbes(deadline);
}
int StatusHttpServer::port() const { return impl_->port(); }
std::string StatusHttpServer::url() const { return impl_->url(); }

}  // namespace dfx

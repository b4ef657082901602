#include "runtime/chrome_trace.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "proto/types.pb.h"
#include "runtime/step_stats_collector.h"

namespace dfx {
namespace {

// A JSON string literal. Bytes outside ASCII are written as \u00XX, so the
// output is valid JSON whatever the names hold.
std::string Quote(absl::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20 || c >= 0x7f) {
          absl::StrAppendFormat(&out, "\\u%04x", c);
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += "\"";
  return out;
}

std::string Micros(int64_t nanos) {
  return absl::StrFormat("%.3f", static_cast<double>(nanos) / 1000.0);
}

int64_t StartNanos(const NodeExecStats& n) {
  return n.all_start_nanos() != 0 ? n.all_start_nanos()
                                  : n.all_start_micros() * 1000;
}

int64_t DurationNanos(const NodeExecStats& n) {
  return std::max<int64_t>(
      0, n.all_end_rel_nanos() != 0 ? n.all_end_rel_nanos()
                                    : n.all_end_rel_micros() * 1000);
}

struct Label {
  bool parsed = false;
  std::string op;
  std::vector<std::string> inputs;
};

// TensorFlow's timeline.py reading of "name = Op(a, b)".
Label ParseLabel(absl::string_view label) {
  Label out;
  const size_t eq = label.find(" = ");
  if (eq == absl::string_view::npos) return out;
  absl::string_view rest = label.substr(eq + 3);
  const size_t open = rest.find('(');
  const size_t close = rest.rfind(')');
  if (open == absl::string_view::npos || close == absl::string_view::npos ||
      close < open) {
    return out;
  }
  out.parsed = true;
  out.op = std::string(rest.substr(0, open));
  absl::string_view args = rest.substr(open + 1, close - open - 1);
  if (!args.empty()) {
    out.inputs = absl::StrSplit(args, ", ");
  }
  return out;
}

bool IsSend(absl::string_view op) {
  return op == "_Send" || op == "_HostSend";
}
bool IsRecv(absl::string_view op) {
  return op == "_Recv" || op == "_HostRecv";
}

// "/job:w/replica:0/task:1" of a device name (the name itself when it has
// no "/device:" part).
std::string TaskOf(absl::string_view device) {
  const size_t d = device.find("/device:");
  return std::string(d == absl::string_view::npos ? device
                                                  : device.substr(0, d));
}

std::string DtypeName(int dtype) {
  std::string name(absl::StripPrefix(
      DataType_Name(static_cast<DataType>(dtype)), "DT_"));
  absl::AsciiStrToLower(&name);
  return name.empty() ? absl::StrCat("dtype", dtype) : name;
}

std::string OutputText(const NodeOutput& out) {
  const TensorDescription& d = out.tensor_description();
  std::vector<std::string> dims;
  for (const auto& dim : d.shape().dim()) dims.push_back(absl::StrCat(dim.size()));
  std::string text =
      absl::StrCat(out.slot(), ": ", DtypeName(d.dtype()), "[",
                   absl::StrJoin(dims, ","), "]");
  if (d.has_allocation_description()) {
    absl::StrAppend(&text, " ", d.allocation_description().requested_bytes(),
                    " B");
  }
  return text;
}

struct Event {
  int64_t ts = 0;   // nanoseconds from the origin
  int64_t dur = 0;  // nanoseconds
  int pid = 0;
  uint32_t tid = 0;
  std::string json;  // everything but ph/pid/tid/ts/dur, starting with ','
  // A transfer's (source task, destination task).
  std::pair<std::string, std::string> stream;
};

// One _Send or _Recv occurrence, for the flows.
struct Transfer {
  int64_t start = 0;
  int64_t end = 0;
  int pid = 0;
  uint32_t tid = 0;
};

}  // namespace

std::string StepStatsToChromeTrace(absl::Span<const StepStats> steps) {
  int64_t origin = std::numeric_limits<int64_t>::max();
  std::map<std::string, int> device_pids;
  std::map<std::pair<std::string, std::string>, int> stream_pids;
  for (const StepStats& step : steps) {
    for (const DeviceStepStats& dev : step.dev_stats()) {
      device_pids.emplace(dev.device(), 0);
      for (const NodeExecStats& n : dev.node_stats()) {
        origin = std::min(origin, StartNanos(n));
      }
    }
  }
  if (origin == std::numeric_limits<int64_t>::max()) origin = 0;
  int next_pid = 1;
  for (auto& [name, pid] : device_pids) pid = next_pid++;

  std::vector<Event> events;
  std::map<std::pair<int, uint32_t>, std::string> thread_names;
  // tensor name -> sends / receives in time order.
  std::map<std::string, std::vector<Transfer>> sends;
  std::map<std::string, std::vector<Transfer>> recvs;

  for (const StepStats& step : steps) {
    for (const DeviceStepStats& dev : step.dev_stats()) {
      const int dev_pid = device_pids[dev.device()];
      for (const auto& [tid, name] : dev.thread_names()) {
        thread_names[{dev_pid, tid}] = name;
      }
      for (const NodeExecStats& n : dev.node_stats()) {
        Event e;
        e.ts = StartNanos(n) - origin;
        e.dur = DurationNanos(n);
        if (n.node_name() == kRecvTensorNodeName) {
          // "[16B] [1.2Mb/s] edge_4_mm from SRC to DST"
          absl::string_view label = n.timeline_label();
          std::string tensor, src, dst;
          const size_t from = label.rfind(" from ");
          const size_t to = label.rfind(" to ");
          if (from != absl::string_view::npos &&
              to != absl::string_view::npos && to > from) {
            src = std::string(label.substr(from + 6, to - from - 6));
            dst = std::string(label.substr(to + 4));
            absl::string_view head = label.substr(0, from);
            const size_t sp = head.rfind(' ');
            tensor = std::string(sp == absl::string_view::npos
                                     ? head
                                     : head.substr(sp + 1));
          } else {
            dst = dev.device();
          }
          e.stream = {TaskOf(src), TaskOf(dst)};
          stream_pids.emplace(e.stream, 0);
          int64_t bytes = 0;
          if (n.output_size() > 0) {
            bytes = n.output(0)
                        .tensor_description()
                        .allocation_description()
                        .requested_bytes();
          }
          e.pid = -1;  // the stream's, once every stream is known
          e.json = absl::StrCat(
              ",\"name\":", Quote(tensor.empty() ? "RecvTensor" : tensor),
              ",\"cat\":\"RecvTensor\",\"args\":{\"bytes\":", bytes,
              ",\"src_device\":", Quote(src), ",\"dst_device\":", Quote(dst),
              ",\"label\":", Quote(label), "}");
          events.push_back(std::move(e));
          continue;
        }
        e.pid = dev_pid;
        e.tid = n.thread_id();
        const Label label = ParseLabel(n.timeline_label());
        std::string args;
        if (label.parsed) {
          absl::StrAppend(&args, "\"op\":", Quote(label.op), ",\"inputs\":[");
          for (size_t i = 0; i < label.inputs.size(); ++i) {
            absl::StrAppend(&args, i ? "," : "", Quote(label.inputs[i]));
          }
          absl::StrAppend(&args, "],");
        }
        absl::StrAppend(&args, "\"outputs\":[");
        int64_t out_bytes = 0;
        for (int i = 0; i < n.output_size(); ++i) {
          absl::StrAppend(&args, i ? "," : "", Quote(OutputText(n.output(i))));
          out_bytes += n.output(i)
                           .tensor_description()
                           .allocation_description()
                           .requested_bytes();
        }
        absl::StrAppend(&args, "],\"output_bytes\":", out_bytes,
                        ",\"op_start_us\":", Micros(n.op_start_rel_nanos()),
                        ",\"op_end_us\":", Micros(n.op_end_rel_nanos()),
                        ",\"label\":", Quote(n.timeline_label()));
        e.json = absl::StrCat(",\"name\":", Quote(n.node_name()),
                              ",\"cat\":\"Op\",\"args\":{", args, "}");
        if (label.parsed && label.inputs.size() == 1) {
          // "tensor @device"
          absl::string_view in = label.inputs[0];
          const size_t at = in.find(" @");
          if (at != absl::string_view::npos) {
            std::string tensor(in.substr(0, at));
            Transfer t{e.ts, e.ts + e.dur, e.pid, e.tid};
            if (IsSend(label.op)) sends[tensor].push_back(t);
            if (IsRecv(label.op)) recvs[tensor].push_back(t);
          }
        }
        events.push_back(std::move(e));
      }
    }
  }

  // Transfer streams after the devices, in (source, destination) order.
  for (auto& [key, pid] : stream_pids) pid = next_pid++;
  for (Event& e : events) {
    if (e.pid == -1) e.pid = stream_pids[e.stream];
  }

  // Flows: the i-th send of a tensor to its i-th receive.
  std::vector<std::string> flows;
  int flow_id = 0;
  for (auto& [tensor, ss] : sends) {
    auto it = recvs.find(tensor);
    if (it == recvs.end()) continue;
    std::vector<Transfer>& rs = it->second;
    auto by_start = [](const Transfer& a, const Transfer& b) {
      return a.start < b.start;
    };
    std::sort(ss.begin(), ss.end(), by_start);
    std::sort(rs.begin(), rs.end(), by_start);
    for (size_t i = 0; i < ss.size() && i < rs.size(); ++i) {
      ++flow_id;
      const Transfer& s = ss[i];
      const Transfer& r = rs[i];
      // The arrow ends inside the receive, just before it finished.
      const int64_t f_ts = r.end - r.start > 1 ? r.end - 1 : r.start;
      flows.push_back(absl::StrCat(
          "{\"ph\":\"s\",\"id\":", flow_id, ",\"name\":", Quote(tensor),
          ",\"cat\":\"transfer\",\"pid\":", s.pid, ",\"tid\":", s.tid,
          ",\"ts\":", Micros(s.start), "}"));
      flows.push_back(absl::StrCat(
          "{\"ph\":\"f\",\"bp\":\"e\",\"id\":", flow_id,
          ",\"name\":", Quote(tensor), ",\"cat\":\"transfer\",\"pid\":",
          r.pid, ",\"tid\":", r.tid, ",\"ts\":", Micros(f_ts), "}"));
    }
  }

  std::stable_sort(events.begin(), events.end(),
                   [](const Event& a, const Event& b) {
                     if (a.pid != b.pid) return a.pid < b.pid;
                     if (a.tid != b.tid) return a.tid < b.tid;
                     return a.ts < b.ts;
                   });

  std::vector<std::string> out;
  for (const auto& [name, pid] : device_pids) {
    out.push_back(absl::StrCat(
        "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":", pid,
        ",\"args\":{\"name\":", Quote(name), "}}"));
    out.push_back(absl::StrCat(
        "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":", pid,
        ",\"args\":{\"sort_index\":", pid, "}}"));
  }
  for (const auto& [key, pid] : stream_pids) {
    out.push_back(absl::StrCat(
        "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":", pid,
        ",\"args\":{\"name\":",
        Quote(absl::StrCat("RecvTensor ", key.first, " -> ", key.second)),
        "}}"));
    out.push_back(absl::StrCat(
        "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":", pid,
        ",\"args\":{\"sort_index\":", pid, "}}"));
  }
  for (const auto& [key, name] : thread_names) {
    out.push_back(absl::StrCat(
        "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":", key.first,
        ",\"tid\":", key.second, ",\"args\":{\"name\":", Quote(name), "}}"));
  }
  for (const Event& e : events) {
    out.push_back(absl::StrCat("{\"ph\":\"X\",\"pid\":", e.pid,
                               ",\"tid\":", e.tid, ",\"ts\":", Micros(e.ts),
                               ",\"dur\":", Micros(e.dur), e.json, "}"));
  }
  for (std::string& f : flows) out.push_back(std::move(f));
  return absl::StrCat("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n",
                      absl::StrJoin(out, ",\n"), "\n]}\n");
}

absl::Status WriteChromeTrace(const std::string& path,
                              absl::Span<const StepStats> steps) {
  const std::string json = StepStatsToChromeTrace(steps);
  const std::string tmp = absl::StrCat(path, ".tmp");
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) {
      return absl::InvalidArgumentError(
          absl::StrCat("cannot write trace file '", path, "' (", tmp, ")"));
    }
    f << json;
    f.close();
    if (!f) {
      return absl::InternalError(
          absl::StrCat("writing trace file '", tmp, "' failed"));
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    return absl::InternalError(absl::StrCat("cannot rename '", tmp, "' to '",
                                            path, "': ", ec.message()));
  }
  return absl::OkStatus();
}

}  // namespace dfx

#include "tools/cli/run.h"

#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <system_error>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/strip.h"
#include "base/status_macros.h"
#include "graph/graph.h"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "rpc/grpc_session.h"
#include "rpc/security.h"
#include "runtime/chrome_trace.h"
#include "runtime/session.h"
#include "tools/cli/command.h"
#include "tools/cli/command_util.h"
#include "tools/cli/json_tensor.h"
#include "tools/cli/npy.h"
#include "tools/cli/tensor_format.h"

namespace dfx::cli {

const char kRunUsage[] =
    R"(usage: dfx run --graph FILE [--feed NAME=VALUE]... [--fetch NAME[:i]]...
               [--target NODE]... [--target grpc://HOST:PORT] [--json]
               [--out DIR] [--timeout-ms N] [--local-devices N]
               [--allow-soft-placement] [--no-optimize] [--no-remap]
               [--auth-token-file FILE]
               [--tls-ca PEM [--tls-cert PEM --tls-key PEM]]
               [--security JSON|@FILE] [--trace FILE.json]

Runs one step of a graph, in a local session or on a cluster, and prints
the fetched tensors.

  --graph FILE      GraphDef to run: binary (.pb) or text (.pbtxt, .txt)
  --feed NAME=VALUE feeds tensor NAME ("node" or "node:i"). VALUE is a JSON
                    literal (3, [1, 2], [[1, 2], [3, 4]], true) or @FILE.npy.
                    The dtype is the fed node's output type; a JSON value is
                    converted to it, an .npy file must already have it.
                    Floats may be given as "NaN", "Infinity", "-Infinity";
                    strings (a text model's input) as JSON strings.
  --fetch NAME[:i]  tensor to compute and print (repeatable)
  --target NODE     node to run without fetching (repeatable)
  --target grpc://HOST:PORT
                    run on the cluster whose master (any 'dfx server') is
                    at HOST:PORT instead of in this process; nodes go where
                    their `device` fields say (/job:ps/task:0, ...)
  --json            print one JSON object mapping each fetch to
                    {"dtype", "shape", "values"}; NaN and infinities print as
                    the strings "NaN", "Infinity", "-Infinity"
  --out DIR         also write each fetch to DIR/NAME.npy (strings as
                    NumPy's fixed-width bytes; '/' and ':' in
                    NAME become '_'); DIR is created
  --timeout-ms N    bound every call of the run by N ms (creating the
                    session on the cluster included): DeadlineExceeded past
                    it
  --local-devices N give the session N CPU devices
                    (/job:localhost/replica:0/task:0/device:CPU:0 .. N-1);
                    a node's `device` field picks one of them
  --allow-soft-placement
                    move a node whose device does not exist to one that does
  --no-optimize     switch the graph optimizer off (constant folding, dead
                    branches, arithmetic simplification, CSE, Identity/NoOp
                    removal, remapping); it is on by default
  --no-remap        leave Conv2D/MatMul, BiasAdd, FusedBatchNorm and
                    activations unfused (rewrite_options.remapping OFF)
  --auth-token-file FILE
                    with --target grpc://: send the token in FILE (one
                    line, chmod 600) with every call, as the servers'
                    --auth-token-file asks
  --tls-ca PEM      with --target grpc://: connect over TLS, checking the
                    server's certificate against this CA
  --tls-cert PEM, --tls-key PEM
                    with --target grpc://: the client certificate and key
                    for servers that ask for one (mutual TLS)
  --security JSON|@FILE
                    the settings above as one JSON object, the same keys
                    as 'dfx server --security' ({"auth_token_file": ...,
                    "tls_ca": ..., "tls_cert": ..., "tls_key": ...})
  --trace FILE.json run the step with FULL_TRACE and write its trace to
                    FILE.json in Chrome's trace-event format (open it in
                    https://ui.perfetto.dev or chrome://tracing): a track
                    per device and per RecvTensor stream between tasks, an
                    event per node, an arrow per _Send -> _Recv; every
                    task's times on the master's clock
  -h, --help        print this help

At least one --fetch or --target is required. Exit status: 0 on success,
1 for bad input or a failed step, 2 for bad flags.
)";

namespace {

absl::Status UsageError(absl::string_view what) {
  return absl::InvalidArgumentError(what);
}

std::string DimsString(absl::Span<const int64_t> dims) {
  return absl::StrCat("[", absl::StrJoin(dims, ", "), "]");
}

// Checks a fed value against a placeholder's declared shape, so that a
// wrongly shaped JSON literal is reported before the step runs.
absl::Status CheckPlaceholderShape(const Node& node, const Tensor& value,
                                   absl::string_view feed) {
  if (node.type_string() != "Placeholder") return absl::OkStatus();
  const AttrValue* attr = FindNodeAttr(node.def(), "shape");
  if (attr == nullptr || !attr->has_shape() || attr->shape().unknown_rank()) {
    return absl::OkStatus();
  }
  const TensorShapeProto& want = attr->shape();
  bool ok = want.dim_size() == value.dims();
  std::vector<std::string> want_dims;
  for (int i = 0; i < want.dim_size(); ++i) {
    const int64_t size = want.dim(i).size();
    want_dims.push_back(size < 0 ? "?" : absl::StrCat(size));
    if (ok && size >= 0 && size != value.dim_size(i)) ok = false;
  }
  if (ok) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "--feed '", feed, "': value of shape ",
      DimsString(value.shape().dim_sizes()), " does not fit placeholder '",
      node.name(), "' of shape [", absl::StrJoin(want_dims, ", "), "]"));
}

absl::StatusOr<Tensor> FeedValue(const Node& node, int index,
                                 absl::string_view feed,
                                 absl::string_view text) {
  const DataType dtype = BaseType(node.output_type(index));
  Tensor value;
  if (absl::ConsumePrefix(&text, "@")) {
    absl::StatusOr<Tensor> read = ReadNpyFile(std::string(text));
    if (!read.ok()) {
      return absl::Status(read.status().code(),
                          absl::StrCat("--feed '", feed, "': ",
                                       read.status().message()));
    }
    if (read->dtype() != dtype) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--feed '", feed, "': '", text, "' holds ",
          NumpyDtypeName(read->dtype()), " but '", feed, "' is ",
          NumpyDtypeName(dtype), " (convert the array, e.g. "
          "arr.astype(numpy.", NumpyDtypeName(dtype), "))"));
    }
    value = *std::move(read);
  } else {
    absl::StatusOr<Tensor> parsed = ParseJsonTensor(text, dtype);
    if (!parsed.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--feed '", feed, "' (", NumpyDtypeName(dtype), "): ",
          parsed.status().message()));
    }
    value = *std::move(parsed);
  }
  DFX_RETURN_IF_ERROR(CheckPlaceholderShape(node, value, feed));
  return value;
}

std::string NpyFileName(absl::string_view fetch) {
  return absl::StrCat(absl::StrReplaceAll(fetch, {{"/", "_"}, {":", "_"}}),
                      ".npy");
}

absl::Status WriteOutputs(const std::string& dir,
                          const std::vector<std::string>& fetches,
                          const std::vector<Tensor>& outputs) {
  std::map<std::string, std::string> files;  // file name -> fetch
  for (const std::string& fetch : fetches) {
    auto [it, inserted] = files.emplace(NpyFileName(fetch), fetch);
    if (!inserted) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--out: fetches '", it->second, "' and '", fetch,
          "' would both be written to ", it->first));
    }
  }
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--out: cannot create directory '", dir, "': ", ec.message()));
  }
  for (size_t i = 0; i < fetches.size(); ++i) {
    const std::string path =
        (std::filesystem::path(dir) / NpyFileName(fetches[i])).string();
    absl::Status s = WriteNpyFile(path, outputs[i]);
    if (!s.ok()) {
      return absl::Status(s.code(), absl::StrCat("--out: fetch '", fetches[i],
                                                 "': ", s.message()));
    }
  }
  return absl::OkStatus();
}

absl::Status PrintOutputs(const RunCommandOptions& options,
                          const std::vector<std::string>& fetches,
                          const std::vector<Tensor>& outputs,
                          std::ostream& out) {
  if (options.json) {
    std::string text = "{";
    for (size_t i = 0; i < fetches.size(); ++i) {
      absl::StatusOr<std::string> value = TensorToJson(outputs[i]);
      if (!value.ok()) {
        return absl::Status(value.status().code(),
                            absl::StrCat("fetch '", fetches[i], "': ",
                                         value.status().message()));
      }
      absl::StrAppend(&text, i > 0 ? ", " : "", JsonQuote(fetches[i]), ": ",
                      *value);
    }
    text.append("}\n");
    out << text;
  } else {
    for (size_t i = 0; i < fetches.size(); ++i) {
      const Tensor& t = outputs[i];
      if (i > 0) out << "\n";
      out << fetches[i] << ": " << NumpyDtypeName(t.dtype()) << " "
          << DimsString(t.shape().dim_sizes()) << "\n"
          << FormatTensorValues(t) << "\n";
    }
  }
  out.flush();
  return absl::OkStatus();
}

}  // namespace

const std::set<std::string>& RunValuedFlags() {
  static const std::set<std::string> flags = {
      "--graph",  "--feed",   "--fetch",    "--target",  "--out",
      "--timeout-ms", "--local-devices", "--auth-token-file", "--tls-ca",
      "--tls-cert", "--tls-key", "--security", "--trace"};
  return flags;
}

const std::set<std::string>& RunSwitches() {
  static const std::set<std::string> flags = {
      "--json", "--allow-soft-placement", "--no-optimize", "--no-remap"};
  return flags;
}

absl::StatusOr<bool> ApplyRunFlag(const Flag& flag,
                                  RunCommandOptions* options) {
  const std::string& value = flag.value;
  if (flag.name == "--json") {
    options->json = true;
  } else if (flag.name == "--allow-soft-placement") {
    options->allow_soft_placement = true;
  } else if (flag.name == "--no-optimize") {
    options->no_optimize = true;
  } else if (flag.name == "--no-remap") {
    options->no_remap = true;
  } else if (flag.name == "--graph") {
    if (value.empty()) return UsageError("--graph needs a file name");
    if (!options->graph_path.empty()) {
      return UsageError("--graph given more than once");
    }
    options->graph_path = value;
  } else if (flag.name == "--feed") {
    const size_t eq = value.find('=');
    if (eq == std::string::npos || eq == 0) {
      return UsageError(absl::StrCat("--feed '", value,
                                     "' is not NAME=VALUE"));
    }
    options->feeds.emplace_back(value.substr(0, eq), value.substr(eq + 1));
  } else if (flag.name == "--fetch") {
    if (value.empty()) return UsageError("--fetch needs a tensor name");
    options->fetches.push_back(value);
  } else if (flag.name == "--target") {
    if (value.empty()) return UsageError("--target needs a node name");
    // Node names cannot hold "://", so a URL is the session's target.
    if (value.find("://") != std::string::npos) {
      if (value.rfind("grpc://", 0) != 0) {
        return UsageError(absl::StrCat("--target '", value,
                                       "': only grpc:// targets exist"));
      }
      if (!options->session_target.empty()) {
        return UsageError("--target grpc://... given more than once");
      }
      options->session_target = value;
    } else {
      options->targets.push_back(value);
    }
  } else if (flag.name == "--trace") {
    if (value.empty()) return UsageError("--trace needs a file name");
    options->trace_path = value;
  } else if (flag.name == "--out") {
    if (value.empty()) return UsageError("--out needs a directory");
    options->out_dir = value;
  } else if (flag.name == "--timeout-ms") {
    DFX_ASSIGN_OR_RETURN(options->timeout_ms,
                         ParsePositiveFlag(flag.name, value));
  } else if (flag.name == "--local-devices") {
    DFX_ASSIGN_OR_RETURN(options->local_devices, ParseLocalDevices(value));
  } else if (flag.name == "--auth-token-file" || flag.name == "--tls-ca" ||
             flag.name == "--tls-cert" || flag.name == "--tls-key" ||
             flag.name == "--security") {
    if (value.empty()) {
      return UsageError(absl::StrCat(flag.name, " needs a value"));
    }
    std::string& field =
        flag.name == "--auth-token-file" ? options->auth_token_file
        : flag.name == "--tls-ca"        ? options->tls_ca
        : flag.name == "--tls-cert"      ? options->tls_cert
        : flag.name == "--tls-key"       ? options->tls_key
                                         : options->security;
    field = value;
  } else {
    return false;
  }
  return true;
}

absl::Status CheckRunOptions(const RunCommandOptions& options) {
  const bool secured = !options.auth_token_file.empty() ||
                       !options.tls_ca.empty() || !options.tls_cert.empty() ||
                       !options.tls_key.empty() || !options.security.empty();
  if (secured && options.session_target.empty()) {
    return UsageError(
        "--auth-token-file, --tls-* and --security apply to --target "
        "grpc://... runs");
  }
  if (options.graph_path.empty()) return UsageError("--graph is required");
  if (!options.session_target.empty() && options.local_devices > 0) {
    return UsageError(
        "--local-devices applies to local runs, not to --target grpc://...");
  }
  if (options.fetches.empty() && options.targets.empty()) {
    return UsageError("give at least one --fetch or --target");
  }
  return absl::OkStatus();
}

absl::StatusOr<RunCommandOptions> ParseRunFlags(
    const std::vector<std::string>& args) {
  RunCommandOptions options;
  DFX_ASSIGN_OR_RETURN(std::vector<Flag> flags,
                       SplitFlags(args, RunValuedFlags(), RunSwitches()));
  for (const Flag& flag : flags) {
    if (flag.name == "--help") {
      options.help = true;
      return options;
    }
    DFX_ASSIGN_OR_RETURN(bool known, ApplyRunFlag(flag, &options));
    if (!known) {
      return UsageError(absl::StrCat("unknown flag '", flag.name, "'"));
    }
  }
  DFX_RETURN_IF_ERROR(CheckRunOptions(options));
  return options;
}

absl::StatusOr<PreparedRun> PrepareRun(const RunCommandOptions& options) {
  PreparedRun prepared;
  DFX_ASSIGN_OR_RETURN(prepared.loaded, LoadGraphFile(options.graph_path));
  const Graph& graph = *prepared.loaded.graph;
  std::set<std::string> fed;
  for (const auto& [name, text] : options.feeds) {
    DFX_ASSIGN_OR_RETURN(auto tensor, FindTensor(graph, name, "--feed"));
    if (!fed.insert(name).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("--feed '", name, "' given more than once"));
    }
    DFX_ASSIGN_OR_RETURN(Tensor value,
                         FeedValue(*tensor.first, tensor.second, name, text));
    prepared.feeds.emplace_back(name, std::move(value));
  }
  // A fetch named twice is computed and printed once.
  std::set<std::string> seen;
  for (const std::string& name : options.fetches) {
    DFX_RETURN_IF_ERROR(FindTensor(graph, name, "--fetch").status());
    if (seen.insert(name).second) prepared.fetches.push_back(name);
  }
  for (const std::string& name : options.targets) {
    DFX_RETURN_IF_ERROR(CheckNodeExists(graph, name, "--target"));
  }
  return prepared;
}

absl::StatusOr<std::unique_ptr<Session>> CreateRunSession(
    const RunCommandOptions& options) {
  SessionOptions session_options;
  if (options.local_devices > 0) {
    (*session_options.config.mutable_device_count())["CPU"] =
        options.local_devices;
  }
  session_options.config.set_allow_soft_placement(
      options.allow_soft_placement);
  if (options.no_remap) {
    session_options.config.mutable_graph_options()
        ->mutable_rewrite_options()
        ->set_remapping(RewriterConfig::OFF);
  }
  if (options.no_optimize) {
    // Both switches, as TensorFlow has two optimizers (Grappler, and the
    // classic one's constant folding): a TensorFlow server does the same
    // work as a dfx one.
    GraphOptions* graph_options =
        session_options.config.mutable_graph_options();
    graph_options->mutable_rewrite_options()->set_disable_meta_optimizer(
        true);
    graph_options->mutable_optimizer_options()->set_opt_level(
        OptimizerOptions::L0);
  }
  // Bounds the session's creation on the cluster (device discovery, which
  // waits for every task) as well as the step.
  session_options.config.set_operation_timeout_in_ms(options.timeout_ms);
  if (options.session_target.empty()) {
    return Session::Create("local", session_options);
  }
  SecurityFiles files;
  files.auth_token_file = options.auth_token_file;
  files.tls_ca = options.tls_ca;
  files.tls_cert = options.tls_cert;
  files.tls_key = options.tls_key;
  if (!options.security.empty()) {
    DFX_RETURN_IF_ERROR(files.MergeJson(options.security));
  }
  GrpcSessionOptions grpc_options;
  DFX_ASSIGN_OR_RETURN(grpc_options.security, LoadChannelSecurity(files));
  DFX_ASSIGN_OR_RETURN(std::unique_ptr<GrpcSession> session,
                       GrpcSession::Create(options.session_target,
                                           session_options, grpc_options));
  return std::unique_ptr<Session>(std::move(session));
}

absl::Status ExecuteRun(const RunCommandOptions& options, std::ostream& out) {
  DFX_ASSIGN_OR_RETURN(PreparedRun prepared, PrepareRun(options));
  const std::vector<std::string>& fetches = prepared.fetches;
  DFX_ASSIGN_OR_RETURN(std::unique_ptr<Session> session,
                       CreateRunSession(options));
  DFX_RETURN_IF_ERROR(session->Extend(prepared.loaded.def));
  RunOptions run_options;
  run_options.set_timeout_in_ms(options.timeout_ms);
  RunMetadata metadata;
  const bool trace = !options.trace_path.empty();
  if (trace) run_options.set_trace_level(RunOptions::FULL_TRACE);
  std::vector<Tensor> outputs;
  absl::Status run =
      session->Run(run_options, prepared.feeds, fetches, options.targets,
                   &outputs, trace ? &metadata : nullptr);
  session->Close().IgnoreError();
  DFX_RETURN_IF_ERROR(run);
  if (trace) {
    DFX_RETURN_IF_ERROR(WriteChromeTrace(
        options.trace_path,
        absl::MakeConstSpan(&metadata.step_stats(), 1)));
  }
  if (outputs.size() != fetches.size()) {
    return absl::InternalError(absl::StrCat("the session returned ",
                                            outputs.size(), " tensors for ",
                                            fetches.size(), " fetches"));
  }
  if (!options.out_dir.empty()) {
    DFX_RETURN_IF_ERROR(WriteOutputs(options.out_dir, fetches, outputs));
  }
  return PrintOutputs(options, fetches, outputs, out);
}

int RunMain(const std::vector<std::string>& args, std::ostream& out,
            std::ostream& err) {
  auto report = [&err](const absl::Status& s) { ReportError("run", s, err); };
  absl::StatusOr<RunCommandOptions> options = ParseRunFlags(args);
  if (!options.ok()) {
    report(absl::InvalidArgumentError(absl::StrCat(
        options.status().message(), " (see 'dfx run --help')")));
    return kExitUsage;
  }
  if (options->help) {
    out << kRunUsage;
    return kExitOk;
  }
  absl::Status s = ExecuteRun(*options, out);
  if (!s.ok()) {
    report(s);
    return kExitError;
  }
  return kExitOk;
}

}  // namespace dfx::cli

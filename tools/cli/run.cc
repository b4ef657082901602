#include "tools/cli/run.h"

#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <system_error>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/strip.h"
#include "base/status_macros.h"
#include "graph/graph.h"
#include "graph/graph_def_import.h"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "runtime/session.h"
#include "tools/cli/command.h"
#include "tools/cli/json_tensor.h"
#include "tools/cli/npy.h"
#include "tools/cli/tensor_format.h"

namespace dfx::cli {

const char kRunUsage[] =
    R"(usage: dfx run --graph FILE [--feed NAME=VALUE]... [--fetch NAME[:i]]...
               [--target NODE]... [--json] [--out DIR] [--timeout-ms N]

Runs one step of a graph in a local session and prints the fetched tensors.

  --graph FILE      GraphDef to run: binary (.pb) or text (.pbtxt, .txt)
  --feed NAME=VALUE feeds tensor NAME ("node" or "node:i"). VALUE is a JSON
                    literal (3, [1, 2], [[1, 2], [3, 4]], true) or @FILE.npy.
                    The dtype is the fed node's output type; a JSON value is
                    converted to it, an .npy file must already have it.
                    Floats may be given as "NaN", "Infinity", "-Infinity".
  --fetch NAME[:i]  tensor to compute and print (repeatable)
  --target NODE     node to run without fetching (repeatable)
  --json            print one JSON object mapping each fetch to
                    {"dtype", "shape", "values"}; NaN and infinities print as
                    the strings "NaN", "Infinity", "-Infinity"
  --out DIR         also write each fetch to DIR/NAME.npy ('/' and ':' in
                    NAME become '_'); DIR is created
  --timeout-ms N    fail the step with DeadlineExceeded after N ms
  -h, --help        print this help

At least one --fetch or --target is required. Exit status: 0 on success,
1 for bad input or a failed step, 2 for bad flags.
)";

namespace {

absl::Status UsageError(absl::string_view what) {
  return absl::InvalidArgumentError(what);
}

// A tensor name "node" or "node:i".
struct TensorRef {
  std::string node;
  int index = 0;
};

absl::StatusOr<TensorRef> ParseTensorName(absl::string_view name) {
  TensorRef ref;
  const size_t colon = name.rfind(':');
  ref.node = std::string(name.substr(0, colon));
  if (colon != absl::string_view::npos) {
    absl::string_view index = name.substr(colon + 1);
    if (index.empty() || !absl::SimpleAtoi(index, &ref.index) ||
        ref.index < 0 || index[0] == '+' || index[0] == '-') {
      return absl::InvalidArgumentError(absl::StrCat(
          "'", name, "' is not a tensor name (expected NODE or NODE:INDEX)"));
    }
  }
  if (ref.node.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "'", name, "' is not a tensor name (expected NODE or NODE:INDEX)"));
  }
  return ref;
}

// The node and output a tensor name refers to in `graph`.
absl::StatusOr<std::pair<const Node*, int>> FindTensor(
    const Graph& graph, absl::string_view name, absl::string_view flag) {
  absl::StatusOr<TensorRef> ref = ParseTensorName(name);
  if (!ref.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(flag, " ", ref.status().message()));
  }
  const Node* node = graph.FindNode(ref->node);
  if (node == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        flag, " '", name, "': the graph has no node named '", ref->node, "'"));
  }
  if (ref->index >= node->num_outputs()) {
    return absl::InvalidArgumentError(absl::StrCat(
        flag, " '", name, "': node '", node->name(), "' (op ",
        node->type_string(), ") has ", node->num_outputs(), " output",
        node->num_outputs() == 1 ? "" : "s"));
  }
  return std::make_pair(node, ref->index);
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

absl::StatusOr<RunCommandOptions> ParseRunFlags(
    const std::vector<std::string>& args) {
  RunCommandOptions options;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "-h" || arg == "--help") {
      options.help = true;
      return options;
    }
    if (!absl::StartsWith(arg, "--")) {
      return UsageError(absl::StrCat("unexpected argument '", arg, "'"));
    }
    std::string flag = arg;
    std::string value;
    bool has_value = false;
    if (const size_t eq = arg.find('='); eq != std::string::npos) {
      flag = arg.substr(0, eq);
      value = arg.substr(eq + 1);
      has_value = true;
    }
    if (flag == "--json") {
      if (has_value) return UsageError("--json takes no value");
      options.json = true;
      continue;
    }
    static const std::set<std::string> kValued = {
        "--graph", "--feed", "--fetch", "--target", "--out", "--timeout-ms"};
    if (!kValued.contains(flag)) {
      return UsageError(absl::StrCat("unknown flag '", flag, "'"));
    }
    if (!has_value) {
      if (i + 1 >= args.size()) {
        return UsageError(absl::StrCat(flag, " needs a value"));
      }
      value = args[++i];
    }
    if (flag == "--graph") {
      if (value.empty()) return UsageError("--graph needs a file name");
      if (!options.graph_path.empty()) {
        return UsageError("--graph given more than once");
      }
      options.graph_path = value;
    } else if (flag == "--feed") {
      const size_t eq = value.find('=');
      if (eq == std::string::npos || eq == 0) {
        return UsageError(absl::StrCat("--feed '", value,
                                       "' is not NAME=VALUE"));
      }
      options.feeds.emplace_back(value.substr(0, eq), value.substr(eq + 1));
    } else if (flag == "--fetch") {
      if (value.empty()) return UsageError("--fetch needs a tensor name");
      options.fetches.push_back(value);
    } else if (flag == "--target") {
      if (value.empty()) return UsageError("--target needs a node name");
      options.targets.push_back(value);
    } else if (flag == "--out") {
      if (value.empty()) return UsageError("--out needs a directory");
      options.out_dir = value;
    } else if (flag == "--timeout-ms") {
      if (!absl::SimpleAtoi(value, &options.timeout_ms) ||
          options.timeout_ms <= 0) {
        return UsageError(absl::StrCat("--timeout-ms '", value,
                                       "' is not a positive integer"));
      }
    }
  }
  if (options.graph_path.empty()) return UsageError("--graph is required");
  if (options.fetches.empty() && options.targets.empty()) {
    return UsageError("give at least one --fetch or --target");
  }
  return options;
}

absl::Status ExecuteRun(const RunCommandOptions& options, std::ostream& out) {
  absl::StatusOr<GraphDef> def = ReadGraphDefFile(options.graph_path);
  if (!def.ok()) {
    if (absl::StrContains(def.status().message(), options.graph_path)) {
      return def.status();
    }
    return absl::Status(def.status().code(),
                        absl::StrCat("graph '", options.graph_path, "': ",
                                     def.status().message()));
  }
  absl::StatusOr<std::unique_ptr<Graph>> graph =
      ImportGraphDef(*def, OpRegistry::Global());
  if (!graph.ok()) {
    return absl::Status(graph.status().code(),
                        absl::StrCat("graph '", options.graph_path, "': ",
                                     graph.status().message()));
  }

  std::vector<std::pair<std::string, Tensor>> feeds;
  std::set<std::string> fed;
  for (const auto& [name, text] : options.feeds) {
    DFX_ASSIGN_OR_RETURN(auto tensor, FindTensor(**graph, name, "--feed"));
    if (!fed.insert(name).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("--feed '", name, "' given more than once"));
    }
    DFX_ASSIGN_OR_RETURN(Tensor value,
                         FeedValue(*tensor.first, tensor.second, name, text));
    feeds.emplace_back(name, std::move(value));
  }
  // A fetch named twice is computed and printed once.
  std::vector<std::string> fetches;
  std::set<std::string> seen;
  for (const std::string& name : options.fetches) {
    DFX_RETURN_IF_ERROR(FindTensor(**graph, name, "--fetch").status());
    if (seen.insert(name).second) fetches.push_back(name);
  }
  for (const std::string& name : options.targets) {
    if ((*graph)->FindNode(name) == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--target '", name, "': the graph has no node named '", name, "'"));
    }
  }

  DFX_ASSIGN_OR_RETURN(std::unique_ptr<Session> session,
                       Session::Create("local"));
  DFX_RETURN_IF_ERROR(session->Extend(*def));
  RunOptions run_options;
  run_options.set_timeout_in_ms(options.timeout_ms);
  std::vector<Tensor> outputs;
  absl::Status run = session->Run(run_options, feeds, fetches, options.targets,
                                  &outputs, nullptr);
  session->Close().IgnoreError();
  DFX_RETURN_IF_ERROR(run);
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
  // One line per error, whatever the message holds.
  auto report = [&err](const absl::Status& s) {
    std::string line(s.message());
    for (char& c : line) {
      if (c == '\n' || c == '\r') c = ' ';
    }
    err << "dfx run: error: " << line << "\n";
    err.flush();
  };
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

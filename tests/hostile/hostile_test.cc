// The hostile corpus (tests/hostile/graphs/cases.txt) against a live
// cluster of two real `dfx server` processes: each hostile GraphDef and
// feed must get its status code and a message naming the problem, and
// after every case the cluster must still run a good step.
//
// The servers run with --data-dir (a temporary folder holding 'escape', a
// symlink to a folder outside it), so the file-access cases check the
// confinement of runtime/file_policy.h; after them nothing may have been
// written outside the data directory. They run with --memory-limit 1G.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "base/status_macros.h"
#include "catch2/catch.hpp"
#include "google/protobuf/text_format.h"
#include "graph/graph_def_import.h"
#include "graph/types.h"
#include "runtime/session.h"
#include "tests/integration/test_cluster.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/time_scale.h"
#include "tools/cli/json_tensor.h"
#include "tools/cli/npy.h"

namespace dfx {
namespace {

using ::dfx::testing::TempDir;
using ::dfx::testing::TestCluster;

const std::string kCaseDir =
    std::string(DFX_TEST_DATA_DIR) + "/../hostile/graphs";

// Every step of a case gets this long (times the sanitizers' slow-down: the
// 100,000-node chain takes most of it under TSan); a hang shows as
// DeadlineExceeded.
const int64_t kStepTimeoutMs = 20000 * dfx::testing::TestTimeScale();

struct Case {
  int line = 0;
  std::string graph;
  std::vector<std::string> feeds;
  std::vector<std::string> fetches;
  std::vector<std::string> targets;
  absl::StatusCode code = absl::StatusCode::kOk;
  std::string message;
  std::string pending;  // "pending-..." when the case waits on a fix
};

absl::StatusCode ParseCode(absl::string_view name) {
  for (int c = 0; c <= 16; ++c) {
    const auto code = static_cast<absl::StatusCode>(c);
    std::string text = absl::StatusCodeToString(code);
    if (name == text) return code;
  }
  FAIL("cases.txt: unknown status code '" << name << "'");
  return absl::StatusCode::kUnknown;
}

std::vector<Case> ReadCases() {
  std::ifstream in(kCaseDir + "/cases.txt");
  REQUIRE(in.good());
  std::vector<Case> cases;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    absl::string_view text = absl::StripAsciiWhitespace(line);
    if (text.empty() || text[0] == '#') continue;
    std::vector<std::string> f = absl::StrSplit(text, " | ");
    INFO("cases.txt:" << n << ": " << line);
    REQUIRE((f.size() == 5 || f.size() == 6));
    for (std::string& s : f) s = std::string(absl::StripAsciiWhitespace(s));
    Case c;
    c.line = n;
    c.graph = f[0];
    if (f[1] != "-") c.feeds = absl::StrSplit(f[1], ' ', absl::SkipEmpty());
    if (f[2] != "-") {
      for (absl::string_view t :
           absl::StrSplit(f[2], ' ', absl::SkipEmpty())) {
        if (t[0] == '^') {
          c.targets.emplace_back(t.substr(1));
        } else {
          c.fetches.emplace_back(t);
        }
      }
    }
    c.code = ParseCode(f[3]);
    c.message = f[4] == "-" ? "" : f[4];
    if (f.size() == 6) {
      REQUIRE(absl::StartsWith(f[5], "pending-"));
      c.pending = f[5];
    }
    cases.push_back(std::move(c));
  }
  return cases;
}

// gen:chain:N: x -> N Identity nodes in a row (deep for any recursive walk).
// gen:calls:N: a call of f0, where f_i calls f_{i+1} and f_N is Identity.
// gen:nested_attr:N: a NoOp whose attr nests N function attrs (deeper than
// protobuf's recursion limit when N > 100).
GraphDef Generated(const std::string& spec) {
  std::vector<std::string> parts = absl::StrSplit(spec, ':');
  REQUIRE(parts.size() == 3);
  int n = 0;
  REQUIRE(absl::SimpleAtoi(parts[2], &n));
  GraphDef def;
  auto add_const = [&def](const std::string& name) {
    NodeDef* c = def.add_node();
    c->set_name(name);
    c->set_op("Const");
    (*c->mutable_attr())["dtype"].set_type(DT_FLOAT);
    TensorProto* t = (*c->mutable_attr())["value"].mutable_tensor();
    t->set_dtype(DT_FLOAT);
    t->mutable_tensor_shape();
    t->add_float_val(7);
  };
  if (parts[1] == "chain") {
    add_const("n0");
    for (int i = 1; i <= n; ++i) {
      NodeDef* node = def.add_node();
      node->set_name(absl::StrCat("n", i));
      node->set_op("Identity");
      node->add_input(absl::StrCat("n", i - 1));
      (*node->mutable_attr())["T"].set_type(DT_FLOAT);
    }
  } else if (parts[1] == "calls") {
    add_const("c");
    for (int i = 0; i <= n; ++i) {
      FunctionDef* f = def.mutable_library()->add_function();
      f->mutable_signature()->set_name(absl::StrCat("f", i));
      auto* in = f->mutable_signature()->add_input_arg();
      in->set_name("x");
      in->set_type(DT_FLOAT);
      auto* out = f->mutable_signature()->add_output_arg();
      out->set_name("y");
      out->set_type(DT_FLOAT);
      NodeDef* body = f->add_node_def();
      body->set_name("body");
      if (i == n) {
        body->set_op("Identity");
        (*body->mutable_attr())["T"].set_type(DT_FLOAT);
        (*f->mutable_ret())["y"] = "body:output:0";
      } else {
        body->set_op(absl::StrCat("f", i + 1));
        (*f->mutable_ret())["y"] = "body:y:0";
      }
      body->add_input("x");
    }
    NodeDef* call = def.add_node();
    call->set_name("call");
    call->set_op("f0");
    call->add_input("c");
  } else if (parts[1] == "nested_attr") {
    NodeDef* node = def.add_node();
    node->set_name("deep");
    node->set_op("NoOp");
    AttrValue* value = &(*node->mutable_attr())["_deep"];
    for (int i = 0; i < n; ++i) {
      NameAttrList* func = value->mutable_func();
      func->set_name("f");
      value = &(*func->mutable_attr())["a"];
    }
    value->set_i(1);
  } else {
    FAIL("cases.txt: unknown generator '" << spec << "'");
  }
  return def;
}

absl::StatusOr<GraphDef> LoadCaseGraph(const std::string& graph) {
  if (absl::StartsWith(graph, "gen:")) return Generated(graph);
  return ReadGraphDefFile(kCaseDir + "/" + graph);
}

// NAME=@FILE.npy, NAME:DTYPE=@FILE.json or NAME:DTYPE=LITERAL, parsed as
// `dfx run --feed` parses it (tools/cli).
absl::StatusOr<std::pair<std::string, Tensor>> ParseFeed(
    const std::string& feed) {
  const size_t eq = feed.find('=');
  REQUIRE(eq != std::string::npos);
  std::string name = feed.substr(0, eq);
  std::string value = feed.substr(eq + 1);
  std::string dtype_name;
  if (const size_t colon = name.find(':'); colon != std::string::npos &&
                                           !absl::ascii_isdigit(name[colon + 1])) {
    dtype_name = name.substr(colon + 1);
    name = name.substr(0, colon);
  }
  if (absl::EndsWith(value, ".npy")) {
    REQUIRE(value[0] == '@');
    DFX_ASSIGN_OR_RETURN(Tensor t,
                         cli::ReadNpyFile(kCaseDir + "/" + value.substr(1)));
    return std::make_pair(name, std::move(t));
  }
  DataType dtype = DT_INVALID;
  REQUIRE(DataTypeFromString(dtype_name, &dtype));
  if (value[0] == '@') {
    std::ifstream in(kCaseDir + "/" + value.substr(1));
    REQUIRE(in.good());
    std::stringstream text;
    text << in.rdbuf();
    value = text.str();
  }
  DFX_ASSIGN_OR_RETURN(Tensor t, cli::ParseJsonTensor(value, dtype));
  return std::make_pair(name, std::move(t));
}

// Runs the case; on success `printed` holds its outputs as TensorToJson
// prints them, one a line.
absl::Status RunCase(const std::string& target, const Case& c,
                     std::string* printed) {
  DFX_ASSIGN_OR_RETURN(GraphDef graph, LoadCaseGraph(c.graph));
  std::vector<std::pair<std::string, Tensor>> feeds;
  for (const std::string& feed : c.feeds) {
    DFX_ASSIGN_OR_RETURN(auto parsed, ParseFeed(feed));
    feeds.push_back(std::move(parsed));
  }
  DFX_ASSIGN_OR_RETURN(std::unique_ptr<Session> session,
                       Session::Create(target));
  absl::Status s = session->Extend(graph);
  if (s.ok()) {
    RunOptions options;
    options.set_timeout_in_ms(kStepTimeoutMs);
    std::vector<Tensor> outputs;
    s = session->Run(options, feeds, c.fetches, c.targets, &outputs, nullptr);
    for (const Tensor& t : outputs) {
      absl::StatusOr<std::string> json = cli::TensorToJson(t);
      absl::StrAppend(printed, json.ok() ? *json : json.status().ToString(),
                      "\n");
    }
  }
  session->Close().IgnoreError();
  return s;
}

// y = x + x over both tasks, fed [1, 2]: [2, 4].
void RequireGoodStep(const std::string& target) {
  absl::StatusOr<GraphDef> graph = ReadGraphDefFile(kCaseDir + "/good.pbtxt");
  REQUIRE_OK(graph.status());
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Create(target);
  REQUIRE_OK(session.status());
  REQUIRE_OK((*session)->Extend(*graph));
  RunOptions options;
  options.set_timeout_in_ms(kStepTimeoutMs);
  std::vector<Tensor> out;
  REQUIRE_OK((*session)->Run(
      options, {{"x", Tensor::FromVector<float>({1.0f, 2.0f})}}, {"y"}, {},
      &out, nullptr));
  REQUIRE(out.size() == 1);
  REQUIRE(out[0].NumElements() == 2);
  CHECK(out[0].data<float>()[0] == 2.0f);
  CHECK(out[0].data<float>()[1] == 4.0f);
  REQUIRE_OK((*session)->Close());
}

TEST_CASE("hostile graphs and feeds get their status codes and the cluster "
          "still serves") {
  TempDir tmp;
  const std::string data_dir = tmp.File("data");
  const std::string outside = tmp.File("outside");
  std::filesystem::create_directories(data_dir);
  std::filesystem::create_directories(outside);
  std::filesystem::create_directory_symlink(outside, data_dir + "/escape");
  // A memory limit far below the 12 GiB Fill case, whatever the machine.
  TestCluster cluster({{"worker", 2}},
                      {"--data-dir", data_dir, "--memory-limit", "1G",
                       "--graph-network", "none"});
  const std::string target = cluster.Target();
  RequireGoodStep(target);

  const std::vector<Case> cases = ReadCases();
  REQUIRE(cases.size() >= 30);
  int run = 0;
  std::vector<std::string> skipped;
  for (const Case& c : cases) {
    const std::string name = absl::StrCat("cases.txt:", c.line, " ", c.graph);
    if (!c.pending.empty()) {
      // Waits on a fix elsewhere (see cases.txt): said out loud, not run.
      skipped.push_back(absl::StrCat(name, " (", c.pending, ")"));
      WARN("SKIPPED " << name << ": " << c.pending);
      std::cout << "hostile: SKIPPED " << name << ": " << c.pending
                << std::endl;
      continue;
    }
#if defined(__SANITIZE_THREAD__)
    // These fill 1 GiB of --memory-limit with millions of small elements:
    // under TSan each heap block costs several times its counted bytes
    // (shadow and metadata), and the server reached 12.5 GB of RSS and
    // was killed by the kernel. The plain and ASan suites run them.
    if (c.graph == "dataset_batch_unbounded.pbtxt" ||
        c.graph == "dataset_shuffle_unbounded.pbtxt") {
      skipped.push_back(absl::StrCat(name, " (TSan's memory overhead)"));
      std::cout << "hostile: SKIPPED under TSan " << name
                << ": its memory overhead outgrows the machine" << std::endl;
      continue;
    }
#endif
    INFO(name);
    std::string printed;
    const absl::Status s = RunCase(target, c, &printed);
    INFO("got: " << s.ToString() << "\n" << printed);
    std::cout << "hostile: " << name << ": "
              << s.ToString().substr(0, 300) << std::endl;
    CHECK(s.code() == c.code);
    // An error's message, or a success's printed outputs.
    CHECK(absl::StrContains(s.ok() ? printed : s.message(), c.message));
    // The cluster still serves: both servers alive, a good step right.
    for (int task = 0; task < 2; ++task) {
      REQUIRE(::kill(cluster.Pid("worker", task), 0) == 0);
    }
    RequireGoodStep(target);
    ++run;
  }
  // Nothing got out of the data directory.
  CHECK(std::filesystem::is_empty(outside));
  CHECK_FALSE(std::filesystem::exists("/tmp/dfx_hostile_escape"));
  std::cout << "hostile: " << run << " cases run, " << skipped.size()
            << " skipped" << std::endl;
  for (const std::string& s : skipped) {
    std::cout << "hostile:   skipped " << s << std::endl;
  }
}

}  // namespace
}  // namespace dfx

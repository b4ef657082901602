// The Chrome trace writer (runtime/chrome_trace.h): valid JSON, a track per
// device and per transfer stream, flows pairing each _Send with its _Recv,
// events in time order.
#include "runtime/chrome_trace.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "catch2/catch.hpp"
#include "nlohmann/json.hpp"
#include "runtime/step_stats_collector.h"
#include "tests/testing/status_matchers.h"
#include "tests/tools/cli_test_util.h"

namespace dfx {
namespace {

constexpr char kDev0[] = "/job:worker/replica:0/task:0/device:CPU:0";
constexpr char kDev1[] = "/job:worker/replica:0/task:1/device:CPU:0";

NodeExecStats Node(const std::string& name, const std::string& label,
                   int64_t start_nanos, int64_t dur_nanos, uint32_t tid) {
  NodeExecStats n;
  n.set_node_name(name);
  n.set_timeline_label(label);
  n.set_all_start_nanos(start_nanos);
  n.set_all_start_micros(start_nanos / 1000);
  n.set_all_end_rel_nanos(dur_nanos);
  n.set_all_end_rel_micros(dur_nanos / 1000);
  n.set_thread_id(tid);
  return n;
}

// A two-task step: x on task 0 goes to y on task 1 (edge_1_x), twice
// (a loop), and its RecvTensor transfers; y's result comes back.
StepStats TwoTaskStep() {
  const int64_t t = 1'700'000'000'000'000'000;
  StepStats step;
  DeviceStepStats* d0 = step.add_dev_stats();
  d0->set_device(kDev0);
  (*d0->mutable_thread_names())[1] = "thread 1";
  NodeExecStats x = Node("x", "x = Const()", t, 2000, 1);
  NodeOutput* out = x.add_output();
  out->set_slot(0);
  out->mutable_tensor_description()->set_dtype(DT_FLOAT);
  out->mutable_tensor_description()->mutable_shape()->add_dim()->set_size(4);
  out->mutable_tensor_description()
      ->mutable_allocation_description()
      ->set_requested_bytes(16);
  *d0->add_node_stats() = x;
  for (int i = 0; i < 2; ++i) {
    *d0->add_node_stats() =
        Node("x/_0", absl::StrCat("x/_0 = _Send(edge_1_x @", kDev1, ")"),
             t + 3000 + i * 100000, 1000, 1);
  }
  DeviceStepStats* d1 = step.add_dev_stats();
  d1->set_device(kDev1);
  for (int i = 0; i < 2; ++i) {
    *d1->add_node_stats() =
        Node("x/_1", absl::StrCat("x/_1 = _Recv(edge_1_x @", kDev0, ")"),
             t + 1000 + i * 100000, 50000, 2);
    *d1->add_node_stats() = RecvTensorStats(
        t + 4000 + i * 100000, t + 40000 + i * 100000, "edge_1_x", kDev0,
        kDev1, 16);
  }
  *d1->add_node_stats() = Node("y", "y = Neg(x/_1, ^c)", t + 60000, 500, 2);
  return step;
}

TEST_CASE("the Chrome trace of a two-task step is valid JSON with a track per device and per transfer stream") {
  const StepStats step = TwoTaskStep();
  const nlohmann::json trace =
      nlohmann::json::parse(StepStatsToChromeTrace({step}));
  REQUIRE(trace["traceEvents"].is_array());
  std::map<int, std::string> process_names;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "process_name") {
      process_names[e["pid"].get<int>()] = e["args"]["name"];
    }
  }
  std::set<std::string> names;
  for (const auto& [pid, name] : process_names) names.insert(name);
  CHECK(names == std::set<std::string>{
                     kDev0, kDev1,
                     "RecvTensor /job:worker/replica:0/task:0 -> "
                     "/job:worker/replica:0/task:1"});

  // Nodes: op, inputs and outputs as args; transfers on their stream.
  int transfers = 0;
  bool saw_y = false, saw_x = false;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] != "X") continue;
    const std::string track = process_names.at(e["pid"].get<int>());
    if (e["cat"] == "RecvTensor") {
      ++transfers;
      CHECK(absl::StartsWith(track, "RecvTensor "));
      CHECK(e["name"] == "edge_1_x");
      CHECK(e["args"]["bytes"] == 16);
      CHECK(e["dur"].get<double>() == Approx(36.0));
      continue;
    }
    if (e["name"] == "y") {
      saw_y = true;
      CHECK(track == kDev1);
      CHECK(e["args"]["op"] == "Neg");
      CHECK(e["args"]["inputs"] ==
            nlohmann::json::array({"x/_1", "^c"}));
    }
    if (e["name"] == "x") {
      saw_x = true;
      CHECK(track == kDev0);
      CHECK(e["args"]["op"] == "Const");
      CHECK(e["args"]["outputs"] == nlohmann::json::array({"0: float[4] 16 B"}));
      CHECK(e["args"]["output_bytes"] == 16);
      CHECK(e["ts"].get<double>() == 0.0);  // the earliest start
      CHECK(e["dur"].get<double>() == 2.0);
    }
  }
  CHECK(saw_x);
  CHECK(saw_y);
  CHECK(transfers == 2);
}

TEST_CASE("the Chrome trace pairs each _Send with its _Recv by flow events") {
  const StepStats step = TwoTaskStep();
  const nlohmann::json trace =
      nlohmann::json::parse(StepStatsToChromeTrace({step}));
  std::map<int, std::string> process_names;
  std::map<int, nlohmann::json> starts, finishes;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "process_name") {
      process_names[e["pid"].get<int>()] = e["args"]["name"];
    }
    if (e["ph"] == "s") starts[e["id"].get<int>()] = e;
    if (e["ph"] == "f") finishes[e["id"].get<int>()] = e;
  }
  REQUIRE(starts.size() == 2);
  REQUIRE(finishes.size() == 2);
  std::vector<double> send_ts;
  for (const auto& [id, s] : starts) {
    REQUIRE(finishes.count(id) == 1);
    const nlohmann::json& f = finishes[id];
    CHECK(s["name"] == "edge_1_x");
    CHECK(f["name"] == "edge_1_x");
    CHECK(process_names[s["pid"].get<int>()] == kDev0);
    CHECK(process_names[f["pid"].get<int>()] == kDev1);
    CHECK(f["bp"] == "e");
    // The arrow ends inside the receive that got the tensor: the i-th send
    // with the i-th receive (3 us after the send, 49.999 us into the recv).
    CHECK(f["ts"].get<double>() - s["ts"].get<double>() ==
          Approx(1.0 + 49.999 - 3.0));
    send_ts.push_back(s["ts"].get<double>());
  }
  std::sort(send_ts.begin(), send_ts.end());
  CHECK(send_ts == std::vector<double>{3.0, 103.0});
}

TEST_CASE("the Chrome trace lists each track's events in time order") {
  StepStats step = TwoTaskStep();
  // Saved out of order, as concurrent threads do.
  std::reverse(step.mutable_dev_stats(1)->mutable_node_stats()->begin(),
               step.mutable_dev_stats(1)->mutable_node_stats()->end());
  const nlohmann::json trace =
      nlohmann::json::parse(StepStatsToChromeTrace({step, step}));
  std::map<std::pair<int, int>, double> last;
  int events = 0;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] != "X") continue;
    ++events;
    CHECK(e["dur"].get<double>() >= 0);
    const auto key = std::make_pair(e["pid"].get<int>(), e["tid"].get<int>());
    auto it = last.find(key);
    if (it != last.end()) CHECK(e["ts"].get<double>() >= it->second);
    last[key] = e["ts"].get<double>();
  }
  CHECK(events == 2 * 8);
}

TEST_CASE("the Chrome trace escapes names into valid JSON and handles an empty step") {
  StepStats step;
  DeviceStepStats* d = step.add_dev_stats();
  d->set_device("/job:a\"b\\c/replica:0/task:0/device:CPU:0");
  *d->add_node_stats() =
      Node("odd\"name\n\x01\xff", "not a label", 1000, 10, 0);
  const nlohmann::json trace =
      nlohmann::json::parse(StepStatsToChromeTrace({step}));
  bool found = false;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] != "X") continue;
    found = true;
    CHECK(e["name"].get<std::string>().substr(0, 9) == "odd\"name\n");
    CHECK_FALSE(e["args"].contains("op"));
  }
  CHECK(found);
  const nlohmann::json empty =
      nlohmann::json::parse(StepStatsToChromeTrace({StepStats()}));
  CHECK(empty["traceEvents"].empty());
}

TEST_CASE("WriteChromeTrace writes the file and names an unwritable one") {
  testing::TempDir tmp;
  const std::string path = tmp.File("trace.json");
  REQUIRE_OK(WriteChromeTrace(path, {TwoTaskStep()}));
  std::ifstream f(path);
  std::stringstream text;
  text << f.rdbuf();
  CHECK(nlohmann::json::parse(text.str())["traceEvents"].size() > 0);
  CHECK_FALSE(std::filesystem::exists(path + ".tmp"));
  const absl::Status bad =
      WriteChromeTrace(tmp.File("no/such/dir/trace.json"), {TwoTaskStep()});
  CHECK_FALSE(bad.ok());
  CHECK(absl::StrContains(bad.message(), "no/such/dir/trace.json"));
}

}  // namespace
}  // namespace dfx

// The status page, /metrics and /healthz of `dfx server --http-port`, read
// over HTTP(S) by cpp-httplib's client; and the servers' JSON log lines.
// The browser check of the page is run_status_page_browser.
#include <signal.h>

#include <cmath>
#include <csignal>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "catch2/catch.hpp"
#include "graph/builder/ops.h"
#include "graph/builder/scope.h"
#include "nlohmann/json.hpp"
#include "runtime/session.h"
#include "tests/integration/test_cluster.h"
#include "tests/testing/metrics_text.h"
#include "tests/testing/status_matchers.h"
// Last: it includes <resolv.h>, whose _res macro breaks Eigen's headers.
#include "httplib.h"

namespace dfx {
namespace {

using ::dfx::testing::TestCluster;

constexpr char kWorker0[] = "/job:worker/replica:0/task:0";
constexpr char kWorker1[] = "/job:worker/replica:0/task:1";

// x (fed on worker 0) @ w (on worker 1) + x: a RecvTensor each way.
GraphDef TwoTaskGraph() {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x").WithDevice(kWorker0),
                              DT_FLOAT);
  Output w = ops::Const(root.WithOpName("w").WithDevice(kWorker1),
                        {{1.0f, 2.0f}, {3.0f, 4.0f}});
  Output y = ops::MatMul(root.WithOpName("y").WithDevice(kWorker1), x, w);
  ops::AddV2(root.WithOpName("out").WithDevice(kWorker0), y, x);
  GraphDef graph;
  REQUIRE_OK(root.ToGraphDef(&graph));
  return graph;
}

Tensor Feed() {
  return Tensor::FromVector<float>({1, 2, 3, 4}, TensorShape({2, 2}));
}

testing::MetricsText GetMetrics(httplib::Client& client,
                                const httplib::Headers& headers = {}) {
  httplib::Result r = client.Get("/metrics", headers);
  REQUIRE(r);
  REQUIRE(r->status == 200);
  CHECK(absl::StartsWith(r->get_header_value("Content-Type"),
                         "text/plain; version=0.0.4"));
  absl::StatusOr<testing::MetricsText> parsed =
      testing::ParseMetricsText(r->body);
  INFO(r->body);
  REQUIRE_OK(parsed.status());
  return *std::move(parsed);
}

// A sample's value, 0 when it has none yet.
double Value(const testing::MetricsText& m, const std::string& series) {
  const double v = m.Get(series);
  return std::isnan(v) ? 0 : v;
}

TEST_CASE("status page: /metrics counts steps, tensors and errors, /healthz answers, / lists the cluster") {
  // --no-push: the RecvTensor metrics below count the transfers of every
  // step (pushed tensors have no metrics of their own yet).
  TestCluster cluster({{"worker", 2}}, {"--http-port", "0", "--no-push"},
                      TestCluster::Security::kPlain);
  const std::string url = cluster.StatusUrl("worker", 0);
  REQUIRE(absl::StartsWith(url, "http://127.0.0.1:"));
  httplib::Client client(url);
  client.set_connection_timeout(10);
  client.set_read_timeout(30);

  const testing::MetricsText before = GetMetrics(client);
  const std::string master_ok = "dfx_steps_total{role=\"master\",code=\"OK\"}";
  const std::string worker_ok = "dfx_steps_total{role=\"worker\",code=\"OK\"}";
  const std::string master_bad =
      "dfx_steps_total{role=\"master\",code=\"INVALID_ARGUMENT\"}";
  CHECK(Value(before, master_ok) == 0);

  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::Create(cluster.Target("worker", 0));
  REQUIRE_OK(session.status());
  REQUIRE_OK(dfx::testing::ExtendFirst(session->get(), TwoTaskGraph()));
  for (int i = 0; i < 3; ++i) {
    std::vector<Tensor> out;
    REQUIRE_OK(dfx::testing::RunFirstStep(session->get(), {{"x", Feed()}},
                                          {"out"}, {}, &out));
  }
  std::vector<Tensor> out;
  CHECK_FALSE((*session)->Run({{"x", Feed()}}, {"no_such<b>node"}, {}, &out)
                  .ok());

  const testing::MetricsText after = GetMetrics(client);
  CHECK(Value(after, master_ok) == 3);
  CHECK(Value(after, master_bad) == 1);
  // Worker 0 runs its partition of each step.
  CHECK(Value(after, worker_ok) == 3);
  // RunFirstStep retries a step that met a channel in gRPC's reconnect
  // backoff (Unavailable); those steps count too.
  const int retried = static_cast<int>(
      Value(after, "dfx_steps_total{role=\"master\",code=\"UNAVAILABLE\"}"));
  CHECK(Value(after, "dfx_step_duration_seconds_count{role=\"master\"}") ==
        4 + retried);
  CHECK(Value(after, "dfx_step_duration_seconds_sum{role=\"master\"}") > 0);
  CHECK(Value(after, "dfx_rpc_errors_total{code=\"INVALID_ARGUMENT\"}") >= 1);
  // Worker 0 fetches y (2x2 floats) from worker 1 each step, and serves x.
  CHECK(Value(after, "dfx_recv_tensor_bytes_total{side=\"client\"}") >= 48);
  CHECK(Value(after, "dfx_recv_tensor_bytes_total{side=\"server\"}") >= 48);
  CHECK(Value(after,
              "dfx_recv_tensor_duration_seconds_count{side=\"client\"}") >= 3);
  CHECK(Value(after, std::string("dfx_sessions{kind=\"master\",task=\"") +
                         kWorker0 + "\"}") == 1);
  CHECK(Value(after, std::string("dfx_registered_graphs{task=\"") + kWorker0 +
                         "\"}") >= 1);
  CHECK(Value(after, "process_resident_memory_bytes") > 0);
  CHECK(Value(after, "process_threads") > 1);
  CHECK(after.types.count("dfx_memory_in_use_bytes") == 1);
  CHECK(after.types.count("dfx_memory_limit_bytes") == 1);

  httplib::Result health = client.Get("/healthz");
  REQUIRE(health);
  CHECK(health->status == 200);
  CHECK(health->body == "ok\n");

  // The page: this task and its peer, the session, the steps.
  httplib::Result page = client.Get("/");
  REQUIRE(page);
  CHECK(page->status == 200);
  INFO(page->body);
  CHECK(absl::StrContains(page->body, kWorker0));
  CHECK(absl::StrContains(page->body, kWorker1));
  CHECK(absl::StrContains(page->body, cluster.Address("worker", 1)));
  CHECK(absl::StrContains(page->body, "Master sessions (1)"));
  CHECK(absl::StrContains(page->body,
                          absl::StrCat("Recent steps (", 4 + retried, ")")));
  // The failed step's error names the fetch, escaped: no <b> tag.
  CHECK(absl::StrContains(page->body, "no_such&lt;b&gt;node"));
  CHECK_FALSE(absl::StrContains(page->body, "<b>"));
  CHECK(absl::StrContains(page->body, "http-equiv=\"refresh\""));
  REQUIRE_OK((*session)->Close());
}

TEST_CASE("a task with several devices gets one RegisterGraph and one "
          "RunGraph per step, and RunMetadata shows each device's graph") {
  TestCluster cluster({{"worker", 2}},
                      {"--http-port", "0", "--cpu-devices", "2"},
                      TestCluster::Security::kPlain);
  // A chain over all four devices: task 0's CPU:0 and CPU:1, then task 1's.
  Scope root = Scope::NewRootScope();
  const std::string w1 = kWorker1;
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  Output a = ops::Neg(
      root.WithOpName("a").WithDevice(std::string(kWorker0) + "/device:CPU:1"),
      x);
  Output b = ops::Neg(root.WithOpName("b").WithDevice(w1 + "/device:CPU:0"), a);
  Output c = ops::Neg(root.WithOpName("c").WithDevice(w1 + "/device:CPU:1"), b);
  ops::AddV2(root.WithOpName("out").WithDevice(
                 std::string(kWorker0) + "/device:CPU:0"),
             c, x);
  GraphDef graph;
  REQUIRE_OK(root.ToGraphDef(&graph));

  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::Create(cluster.Target("worker", 0));
  REQUIRE_OK(session.status());
  REQUIRE_OK(dfx::testing::ExtendFirst(session->get(), graph));
  httplib::Client client(cluster.StatusUrl("worker", 1));
  client.set_connection_timeout(10);
  client.set_read_timeout(30);
  const std::string worker_ok =
      "dfx_steps_total{role=\"worker\",code=\"OK\"}";
  // The first step registers the graphs (retried while a channel is in
  // gRPC's reconnect backoff after the servers' start-up health probes).
  {
    std::vector<Tensor> out;
    REQUIRE_OK(dfx::testing::RunFirstStep(session->get(), {{"x", Feed()}},
                                          {"out"}, {}, &out));
  }
  const double before = Value(GetMetrics(client), worker_ok);
  for (int i = 0; i < 3; ++i) {
    std::vector<Tensor> out;
    REQUIRE_OK((*session)->Run({{"x", Feed()}}, {"out"}, {}, &out));
    // -(-(-x)) + x = 0
    CHECK(out[0].data<float>()[0] == 0.0f);
  }
  const testing::MetricsText after = GetMetrics(client);
  // Task 1 runs one graph per step for its two devices, registered once.
  CHECK(Value(after, worker_ok) - before == 3);
  CHECK(Value(after, std::string("dfx_registered_graphs{task=\"") + w1 +
                         "\"}") == 1);

  RunOptions options;
  options.set_output_partition_graphs(true);
  RunMetadata metadata;
  std::vector<Tensor> out;
  REQUIRE_OK((*session)->Run(options, {{"x", Feed()}}, {"out"}, {}, &out,
                             &metadata));
  std::set<std::string> devices;
  for (const GraphDef& g : metadata.partition_graphs()) {
    REQUIRE(g.node_size() > 0);
    for (const NodeDef& n : g.node()) CHECK(n.device() == g.node(0).device());
    devices.insert(g.node(0).device());
  }
  CHECK(devices == std::set<std::string>{
                       std::string(kWorker0) + "/device:CPU:0",
                       std::string(kWorker0) + "/device:CPU:1",
                       w1 + "/device:CPU:0", w1 + "/device:CPU:1"});
  REQUIRE_OK((*session)->Close());
}

TEST_CASE("status page: with an auth token / and /metrics need it, /healthz does not") {
  TestCluster cluster({{"worker", 1}}, {"--http-port", "0"},
                      TestCluster::Security::kToken);
  httplib::Client client(cluster.StatusUrl("worker", 0));
  client.set_connection_timeout(10);
  const std::string token = cluster.client_security().auth_token;
  for (const char* path : {"/", "/metrics"}) {
    INFO(path);
    httplib::Result none = client.Get(path);
    REQUIRE(none);
    CHECK(none->status == 401);
    CHECK_FALSE(absl::StrContains(none->body, "dfx_steps_total"));
    httplib::Result wrong =
        client.Get(path, {{"Authorization", "Bearer " + token + "x"}});
    REQUIRE(wrong);
    CHECK(wrong->status == 401);
    httplib::Result right =
        client.Get(path, {{"Authorization", "Bearer " + token}});
    REQUIRE(right);
    CHECK(right->status == 200);
  }
  httplib::Result health = client.Get("/healthz");
  REQUIRE(health);
  CHECK(health->status == 200);
  CHECK(health->body == "ok\n");
}

TEST_CASE("status page: with TLS it is served over HTTPS with the server's certificate") {
  // httplib's client writes TLS with write(2): a server that closes the
  // connection (it refuses the anonymous and plain clients below) must not
  // SIGPIPE this test.
  std::signal(SIGPIPE, SIG_IGN);
  TestCluster cluster({{"worker", 1}}, {"--http-port", "0"},
                      TestCluster::Security::kTlsAndToken);
  const std::string url = cluster.StatusUrl("worker", 0);
  REQUIRE(absl::StartsWith(url, "https://127.0.0.1:"));
  const int port = std::stoi(url.substr(url.rfind(':') + 1));
  const std::string token = cluster.client_security().auth_token;

  // Client certificate required (the cluster's --tls-client-auth require).
  httplib::SSLClient client("127.0.0.1", port, cluster.File("cert.pem"),
                            cluster.File("key.pem"));
  client.set_ca_cert_path(cluster.File("ca.pem").c_str());
  client.enable_server_certificate_verification(true);
  client.set_connection_timeout(10);
  httplib::Result metrics =
      client.Get("/metrics", {{"Authorization", "Bearer " + token}});
  REQUIRE(metrics);
  CHECK(metrics->status == 200);
  CHECK(testing::ParseMetricsText(metrics->body).ok());

  httplib::SSLClient anonymous("127.0.0.1", port);
  anonymous.set_ca_cert_path(cluster.File("ca.pem").c_str());
  anonymous.enable_server_certificate_verification(true);
  anonymous.set_connection_timeout(10);
  CHECK_FALSE(anonymous.Get("/healthz"));

  httplib::Client plain("127.0.0.1", port);
  plain.set_connection_timeout(10);
  plain.set_read_timeout(10);
  httplib::Result r = plain.Get("/healthz");
  CHECK((!r || r->status != 200));
  // The refused clients did not take the server down.
  httplib::Result again = client.Get("/healthz");
  REQUIRE(again);
  CHECK(again->status == 200);
}

TEST_CASE("logging: a server with --log-format json writes lines that each parse as JSON") {
  TestCluster cluster({{"worker", 1}},
                      {"--log-format", "json", "--log-level", "debug"},
                      TestCluster::Security::kPlain);
  {
    absl::StatusOr<std::unique_ptr<Session>> session =
        Session::Create(cluster.Target("worker", 0));
    REQUIRE_OK(session.status());
    Scope root = Scope::NewRootScope();
    ops::Const(root.WithOpName("c"), 1.0f);
    GraphDef graph;
    REQUIRE_OK(root.ToGraphDef(&graph));
    REQUIRE_OK(dfx::testing::ExtendFirst(session->get(), graph));
    std::vector<Tensor> out;
    REQUIRE_OK((*session)->Run({}, {"c"}, {}, &out));
    REQUIRE_OK((*session)->Close());
  }
  cluster.Signal("worker", 0, SIGTERM);
  REQUIRE(cluster.WaitExit("worker", 0) == 0);
  const std::string log = cluster.Log("worker", 0);
  INFO(log);
  int lines = 0;
  for (absl::string_view line : absl::StrSplit(log, '\n')) {
    // stdout shares the file: its "dfx server: ..." lines are not logs.
    if (line.empty() || absl::StartsWith(line, "dfx server:")) continue;
    INFO(line);
    nlohmann::json j = nlohmann::json::parse(line, nullptr,
                                             /*allow_exceptions=*/false);
    REQUIRE_FALSE(j.is_discarded());
    CHECK(j["time"].is_string());
    CHECK(j["level"].is_string());
    CHECK(j["task"] == kWorker0);
    CHECK(j["msg"].is_string());
    ++lines;
  }
  // At least "serving on", "stopping", "stopped".
  CHECK(lines >= 3);
}

}  // namespace
}  // namespace dfx

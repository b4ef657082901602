// dfx server's flag parsing, TF_CONFIG included.
#include <sys/stat.h>

#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "rpc/cluster_spec.h"
#include "absl/strings/match.h"
#include "tests/testing/status_matchers.h"
#include "tests/tools/cli_test_util.h"
#include "tools/cli/server.h"

namespace dfx::cli {
namespace {

using ::dfx::testing::StatusIs;

TEST_CASE("dfx server takes gpu_options from --gpus, --gpu-memory-fraction "
          "and --gpu-allow-growth") {
  const std::vector<std::string> base = {
      "--cluster", R"({"worker": ["127.0.0.1:2222"]})", "--job", "worker",
      "--task", "0"};
  auto with = [&](std::vector<std::string> more) {
    std::vector<std::string> args = base;
    args.insert(args.end(), more.begin(), more.end());
    return ParseServerFlags(args, nullptr);
  };
  auto defaults = with({});
  REQUIRE_OK(defaults.status());
  CHECK(defaults->server.gpu_options.visible_device_list().empty());
  CHECK(defaults->server.max_gpu_devices == -1);
  CHECK_FALSE(defaults->server.gpu_options.allow_growth());

  auto some = with({"--gpus", "1,0", "--gpu-memory-fraction", "0.25",
                    "--gpu-allow-growth"});
  REQUIRE_OK(some.status());
  CHECK(some->server.gpu_options.visible_device_list() == "1,0");
  CHECK(some->server.gpu_options.per_process_gpu_memory_fraction() == 0.25);
  CHECK(some->server.gpu_options.allow_growth());

  auto none = with({"--gpus", "none"});
  REQUIRE_OK(none.status());
  CHECK(none->server.max_gpu_devices == 0);
  auto all = with({"--gpus", "all"});
  REQUIRE_OK(all.status());
  CHECK(all->server.gpu_options.visible_device_list().empty());

  REQUIRE_THAT(with({"--gpus", "0,x"}).status(),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "--gpus: gpu_options.visible_device_list '0,x'"));
  for (const char* bad : {"0", "1.5", "-0.5", "half", "nan"}) {
    INFO(bad);
    REQUIRE_THAT(with({"--gpu-memory-fraction", bad}).status(),
                 StatusIs(absl::StatusCode::kInvalidArgument,
                          "--gpu-memory-fraction"));
  }
}

TEST_CASE("dfx server takes its task from the flags") {
  auto options = ParseServerFlags(
      {"--cluster", R"({"worker": ["127.0.0.1:2222", "127.0.0.1:2223"],
                        "ps": ["127.0.0.1:2224"]})",
       "--job", "worker", "--task", "1", "--cpu-devices", "3",
       "--session-gc-seconds", "0", "--heartbeat-seconds", "3",
       "--max-chunk-bytes", "4096", "--no-bulk", "--no-push", "--no-optimize"},
      nullptr);
  REQUIRE_OK(options.status());
  const GrpcServerOptions& s = options->server;
  CHECK_FALSE(s.enable_push);
  CHECK(s.job_name == "worker");
  CHECK(s.task_index == 1);
  CHECK(s.num_cpu_devices == 3);
  CHECK(s.session_gc_idle == absl::ZeroDuration());
  CHECK(s.heartbeat_interval == absl::Seconds(3));
  CHECK(s.max_chunk_bytes == 4096);
  CHECK_FALSE(s.enable_bulk);
  CHECK_FALSE(s.optimize_graphs);
  CHECK(TaskAddress(s.cluster, "ps", 0).value() == "127.0.0.1:2224");
  CHECK(TaskAddress(s.cluster, "worker", 1).value() == "127.0.0.1:2223");
}

TEST_CASE("dfx server --http-port, --log-level and --log-format") {
  const std::string cluster = R"({"worker": ["127.0.0.1:2222"]})";
  auto options = ParseServerFlags({"--cluster", cluster, "--job", "worker",
                                   "--task", "0"},
                                  nullptr);
  REQUIRE_OK(options.status());
  CHECK(options->server.http_port == -1);  // no status page by default
  CHECK(options->server.optimize_graphs);  // the optimizer by default
  CHECK(options->log_level.empty());
  CHECK(options->log_format == "text");
  options = ParseServerFlags(
      {"--cluster", cluster, "--job", "worker", "--task", "0", "--http-port",
       "8080", "--log-level", "debug", "--log-format", "json"},
      nullptr);
  REQUIRE_OK(options.status());
  CHECK(options->server.http_port == 8080);
  CHECK(options->log_level == "debug");
  CHECK(options->log_format == "json");
  const std::vector<std::string> base = {"--cluster", cluster, "--job",
                                         "worker", "--task", "0"};
  auto with = [&base](std::vector<std::string> extra) {
    std::vector<std::string> args = base;
    args.insert(args.end(), extra.begin(), extra.end());
    return ParseServerFlags(args, nullptr).status();
  };
  CHECK_THAT(with({"--http-port", "70000"}),
             StatusIs(absl::StatusCode::kInvalidArgument, "--http-port"));
  CHECK_THAT(with({"--http-port", "-1"}),
             StatusIs(absl::StatusCode::kInvalidArgument, "--http-port"));
  CHECK_THAT(with({"--log-level", "loud"}),
             StatusIs(absl::StatusCode::kInvalidArgument, "--log-level"));
  CHECK_THAT(with({"--log-format", "xml"}),
             StatusIs(absl::StatusCode::kInvalidArgument, "--log-format"));
}

TEST_CASE("dfx server --data-dir is kept for the file policy") {
  const std::string cluster = R"({"worker": ["127.0.0.1:2222"]})";
  auto options = ParseServerFlags({"--cluster", cluster, "--job", "worker",
                                   "--task", "0", "--data-dir", "/srv/dfx"},
                                  nullptr);
  REQUIRE_OK(options.status());
  CHECK(options->data_dir == "/srv/dfx");
  options = ParseServerFlags(
      {"--cluster", cluster, "--job", "worker", "--task", "0"}, nullptr);
  REQUIRE_OK(options.status());
  CHECK(options->data_dir.empty());
  CHECK_THAT(ParseServerFlags({"--cluster", cluster, "--job", "worker",
                               "--task", "0", "--data-dir", ""},
                              nullptr)
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "--data-dir"));
}

TEST_CASE("dfx server --graph-network is parsed and checked") {
  const std::string cluster = R"({"worker": ["127.0.0.1:2222"]})";
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = {"--cluster", cluster,  "--job",
                                     "worker",    "--task", "0"};
    args.insert(args.end(), extra.begin(), extra.end());
    return ParseServerFlags(args, nullptr);
  };
  auto options = with({});
  REQUIRE_OK(options.status());
  CHECK(options->graph_network == GraphNetwork::kAll);
  options = with({"--graph-network", "outbound"});
  REQUIRE_OK(options.status());
  CHECK(options->graph_network == GraphNetwork::kOutbound);
  options = with({"--graph-network", "none"});
  REQUIRE_OK(options.status());
  CHECK(options->graph_network == GraphNetwork::kNone);
  CHECK_THAT(with({"--graph-network", "inbound"}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "--graph-network: graph network policy 'inbound'"));
}

TEST_CASE("dfx server refuses a --data-dir that does not exist") {
  testing::ProcessResult r = testing::RunDfx(
      {"server", "--cluster", R"({"worker": ["127.0.0.1:1"]})", "--job",
       "worker", "--task", "0", "--data-dir", "/nonexistent/dfx-data"},
      std::chrono::seconds(30));
  INFO(testing::Describe(r));
  CHECK(r.exit_code == 1);
  CHECK(absl::StrContains(r.err, "--data-dir"));
  CHECK(absl::StrContains(r.err, "/nonexistent/dfx-data"));
}

TEST_CASE("dfx server with no flags reads TF_CONFIG") {
  const char* tf_config = R"({
    "cluster": {"chief": ["host0:2222"], "worker": ["host1:2222",
                "host2:2222"], "ps": ["host3:2222"]},
    "task": {"type": "worker", "index": 1}})";
  auto options = ParseServerFlags({}, tf_config);
  REQUIRE_OK(options.status());
  CHECK(options->server.job_name == "worker");
  CHECK(options->server.task_index == 1);
  CHECK(TaskAddress(options->server.cluster, "chief", 0).value() ==
        "host0:2222");

  CHECK_THAT(ParseServerFlags({}, nullptr).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "TF_CONFIG"));
  CHECK_THAT(ParseServerFlags({}, R"({"cluster": {"worker": ["h:1"]}})")
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "task"));
  CHECK_THAT(ParseServerFlags({}, R"({"cluster": {"worker": ["h:1"]},
                                      "task": {"type": "ps", "index": 0}})")
                 .status(),
             StatusIs(absl::StatusCode::kNotFound, "/job:ps/replica:0/task:0"));
  CHECK_THAT(ParseServerFlags({}, "{not json").status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "TF_CONFIG"));
}

TEST_CASE("dfx server reads its token and TLS files from flags or --security") {
  testing::TempDir dir;
  dir.Write("token", "flag-token\n");
  REQUIRE(::chmod(dir.File("token").c_str(), 0600) == 0);
  dir.Write("cert.pem", "-----BEGIN CERTIFICATE-----\nc\n");
  dir.Write("key.pem", "-----BEGIN PRIVATE KEY-----\nk\n");
  dir.Write("ca.pem", "-----BEGIN CERTIFICATE-----\na\n");
  const std::vector<std::string> task = {
      "--cluster", R"({"worker": ["127.0.0.1:2222"]})", "--job", "worker",
      "--task", "0"};
  auto with = [&task](std::vector<std::string> more) {
    more.insert(more.begin(), task.begin(), task.end());
    return more;
  };

  auto flags = ParseServerFlags(
      with({"--auth-token-file", dir.File("token"), "--tls-cert",
            dir.File("cert.pem"), "--tls-key", dir.File("key.pem"),
            "--tls-ca", dir.File("ca.pem"), "--tls-client-auth", "request"}),
      nullptr);
  REQUIRE_OK(flags.status());
  const ServerSecurity& s = flags->server.security;
  CHECK(s.auth_token == "flag-token");
  CHECK(s.tls());
  CHECK(s.tls_cert_pem == "-----BEGIN CERTIFICATE-----\nc\n");
  CHECK(s.tls_client_auth == TlsClientAuth::kRequest);

  auto json = ParseServerFlags(
      with({"--security", "{\"auth_token_file\": \"" + dir.File("token") +
                              "\"}"}),
      nullptr);
  REQUIRE_OK(json.status());
  CHECK(json->server.security.auth_token == "flag-token");
  CHECK_FALSE(json->server.security.tls());

  auto plain = ParseServerFlags(task, nullptr);
  REQUIRE_OK(plain.status());
  CHECK(plain->server.security.auth_token.empty());
  CHECK_FALSE(plain->server.security.tls());

  CHECK_THAT(ParseServerFlags(with({"--tls-cert", dir.File("cert.pem")}),
                              nullptr)
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "--tls-key"));
  CHECK_THAT(ParseServerFlags(with({"--auth-token-file", dir.File("none")}),
                              nullptr)
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "cannot read"));
}

TEST_CASE("cluster JSON is validated") {
  CHECK(ParseClusterJson(R"({"worker": {"0": "h:1", "3": "h:2"}})").ok());
  CHECK_THAT(ParseClusterJson(R"({"worker": ["h:1", "h:1"]})").status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "h:1"));
  CHECK_THAT(ParseClusterJson(R"({"worker": []})").status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "no tasks"));
  CHECK_THAT(ParseClusterJson(R"({"worker": ["h"]})").status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "host:port"));
  CHECK_THAT(ParseClusterJson(R"({"worker": [3]})").status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "worker"));
  CHECK_THAT(ParseClusterJson(R"({"job-1": ["h:1"]})").status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "job-1"));
  CHECK_THAT(ParseClusterJson("[]").status(),
             StatusIs(absl::StatusCode::kInvalidArgument));
  // Round trip through the list form.
  auto cluster = ParseClusterJson(R"({"ps": ["a:1"], "worker": ["b:2", "c:3"]})");
  REQUIRE_OK(cluster.status());
  auto again = ParseClusterJson(ClusterToJson(*cluster));
  REQUIRE_OK(again.status());
  CHECK(again->job_size() == 2);
  CHECK(TaskAddress(*again, "ps", 0).value() == "a:1");
  CHECK(TaskAddress(*again, "worker", 1).value() == "c:3");
  CHECK(JobAddresses(*again, "worker") ==
        std::vector<std::string>{"b:2", "c:3"});
  CHECK(JobAddresses(*again, "chief").empty());
  // Tasks 0 and 3 of a sparse job: the addresses stop at the first gap.
  auto sparse = ParseClusterJson(R"({"worker": {"0": "h:1", "3": "h:2"}})");
  REQUIRE_OK(sparse.status());
  CHECK(JobAddresses(*sparse, "worker") == std::vector<std::string>{"h:1"});
}

TEST_CASE("a cluster file is read and validated, naming the file") {
  testing::TempDir dir;
  dir.Write("cluster.json", R"({"ps": ["a:1"], "worker": ["b:2"]})");
  dir.Write("bad.json", R"({"worker": ["b"]})");
  auto cluster = ReadClusterJsonFile(dir.File("cluster.json"));
  REQUIRE_OK(cluster.status());
  CHECK(TaskAddress(*cluster, "ps", 0).value() == "a:1");
  CHECK_THAT(ReadClusterJsonFile(dir.File("bad.json")).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "bad.json"));
  CHECK_THAT(ReadClusterJsonFile(dir.File("none.json")).status(),
             StatusIs(absl::StatusCode::kNotFound, "none.json"));
}

}  // namespace
}  // namespace dfx::cli

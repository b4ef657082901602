// `dfx server` clusters with TLS (mutual TLS required) and an auth token:
// clients without the token, without TLS, without a client certificate or
// with certificates of another CA are refused and the cluster keeps
// serving; big tensors cross tasks intact with TLS on (over gRPC chunks:
// no bulk plane) and with a token alone (over the bulk plane).
#include <sys/stat.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "catch2/catch.hpp"
#include "graph/builder/ops.h"
#include "graph/builder/scope.h"
#include "rpc/grpc_session.h"
#include "rpc/security.h"
#include "tests/integration/test_cluster.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using ::dfx::testing::ReadFile;
using ::dfx::testing::StatusIs;
using ::dfx::testing::TempDir;
using ::dfx::testing::TestCluster;

constexpr char kWorker0[] = "/job:worker/replica:0/task:0";
constexpr char kWorker1[] = "/job:worker/replica:0/task:1";

// b = -a, a made on worker 1 and negated on worker 0: a step needs both
// tasks (the master's calls to its peer carry TLS and the token too).
GraphDef CrossGraph() {
  Scope root = Scope::NewRootScope();
  Output a = ops::Const(root.WithOpName("a").WithDevice(kWorker1),
                        {1.0f, 2.0f, 3.0f});
  ops::Neg(root.WithOpName("b").WithDevice(kWorker0), a);
  GraphDef graph;
  REQUIRE_OK(root.ToGraphDef(&graph));
  return graph;
}

// One step of CrossGraph with `security`; its status.
absl::Status RunCross(const std::string& target,
                      const ChannelSecurity& security) {
  GrpcSessionOptions grpc_options;
  grpc_options.security = security;
  SessionOptions options;
  // A refused handshake is waited on this long, not 30 s.
  options.config.set_operation_timeout_in_ms(5000);
  absl::StatusOr<std::unique_ptr<GrpcSession>> session =
      GrpcSession::Create(target, options, grpc_options);
  if (!session.ok()) return session.status();
  absl::Status s = (*session)->Extend(CrossGraph());
  if (!s.ok()) return s;
  std::vector<Tensor> out;
  s = (*session)->Run({}, {"b"}, {}, &out);
  (void)(*session)->Close();
  if (!s.ok()) return s;
  REQUIRE(out.size() == 1);
  REQUIRE(out[0].NumElements() == 3);
  CHECK(out[0].data<float>()[0] == -1.0f);
  CHECK(out[0].data<float>()[1] == -2.0f);
  CHECK(out[0].data<float>()[2] == -3.0f);
  return absl::OkStatus();
}

// An outer product u (rows x 1) * v (1 x cols), made on `scope`'s device;
// every task computes it bit for bit the same.
Output OuterProduct(const Scope& scope, int rows, int cols) {
  std::vector<float> u(rows), v(cols);
  for (int i = 0; i < rows; ++i) u[i] = 1.0f + 0.001f * static_cast<float>(i);
  for (int j = 0; j < cols; ++j) v[j] = 0.5f - 0.0003f * static_cast<float>(j);
  Output uc = ops::Const(scope.WithOpName(scope.GetUniqueNameForOp("u")), u,
                         std::vector<int64_t>{rows, 1});
  Output vc = ops::Const(scope.WithOpName(scope.GetUniqueNameForOp("v")), v,
                         std::vector<int64_t>{1, cols});
  return ops::MatMul(scope.WithOpName(scope.GetUniqueNameForOp("outer")), uc,
                     vc);
}

// Sends a rows x cols float tensor from worker 1 to worker 0 and checks
// there, against the same tensor computed on worker 0, every bit.
void CheckBigTransfer(const std::string& target,
                      const ChannelSecurity& security, int rows, int cols) {
  Scope root = Scope::NewRootScope();
  Output sent = OuterProduct(root.WithDevice(kWorker1), rows, cols);
  Scope w0 = root.WithDevice(kWorker0);
  Output local = OuterProduct(w0, rows, cols);
  Output diff = ops::Sub(w0.WithOpName("diff"), sent, local);
  ops::Max(w0.WithOpName("max_sq_diff"), ops::Square(w0, diff),
           ops::Const(w0.WithOpName("axes"), {0, 1}));
  ops::Shape(w0.WithOpName("shape"), sent);
  GraphDef graph;
  REQUIRE_OK(root.ToGraphDef(&graph));
  GrpcSessionOptions grpc_options;
  grpc_options.security = security;
  auto session = GrpcSession::Create(target, {}, grpc_options);
  REQUIRE_OK(session);
  REQUIRE_OK((*session)->Extend(graph));
  std::vector<Tensor> out;
  RunOptions run_options;
  run_options.set_timeout_in_ms(120000);
  REQUIRE_OK((*session)->Run(run_options, {}, {"max_sq_diff", "shape"}, {},
                             &out, nullptr));
  REQUIRE(out.size() == 2);
  CHECK(out[0].scalar<float>() == 0.0f);
  REQUIRE(out[1].NumElements() == 2);
  CHECK(out[1].data<int32_t>()[0] == rows);
  CHECK(out[1].data<int32_t>()[1] == cols);
  REQUIRE_OK((*session)->Close());
}

TEST_CASE("a TLS and token cluster refuses clients without the token and "
          "keeps serving") {
  TestCluster cluster({{"worker", 2}}, {},
                      TestCluster::Security::kTlsAndToken);
  const ChannelSecurity good = cluster.client_security();
  REQUIRE_OK(RunCross(cluster.Target(), good));

  ChannelSecurity no_token = good;
  no_token.auth_token.clear();
  const absl::Status missing = RunCross(cluster.Target(), no_token);
  CHECK_THAT(missing, StatusIs(absl::StatusCode::kUnauthenticated));
  CHECK_THAT(std::string(missing.message()),
             Catch::Contains("missing or wrong auth token"));

  for (const std::string& wrong :
       {good.auth_token + "x", good.auth_token.substr(1),
        std::string(good.auth_token.size(), 'a')}) {
    ChannelSecurity wrong_token = good;
    wrong_token.auth_token = wrong;
    INFO("token '" << wrong << "'");
    CHECK_THAT(RunCross(cluster.Target("worker", 1), wrong_token),
               StatusIs(absl::StatusCode::kUnauthenticated));
  }

  REQUIRE_OK(RunCross(cluster.Target("worker", 1), good));
  // The token is never written to a log.
  for (int task = 0; task < 2; ++task) {
    CHECK_FALSE(
        absl::StrContains(cluster.Log("worker", task), good.auth_token));
  }
}

TEST_CASE("a TLS cluster refuses plaintext clients and clients whose "
          "certificates do not verify") {
  TestCluster cluster({{"worker", 2}}, {},
                      TestCluster::Security::kTlsAndToken);
  const ChannelSecurity good = cluster.client_security();
  const std::string other_cert = ReadFile(cluster.File("other.pem"));
  const std::string other_key = ReadFile(cluster.File("other.key"));

  SECTION("plaintext") {
    ChannelSecurity plain;
    plain.auth_token = good.auth_token;
    CHECK_THAT(RunCross(cluster.Target(), plain),
               StatusIs(absl::StatusCode::kUnavailable));
  }
  SECTION("mutual TLS required: no client certificate") {
    ChannelSecurity no_cert = good;
    no_cert.tls_cert_pem.clear();
    no_cert.tls_key_pem.clear();
    CHECK_THAT(RunCross(cluster.Target(), no_cert),
               StatusIs(absl::StatusCode::kUnavailable));
  }
  SECTION("mutual TLS required: a client certificate of another CA") {
    ChannelSecurity untrusted_cert = good;
    untrusted_cert.tls_cert_pem = other_cert;
    untrusted_cert.tls_key_pem = other_key;
    CHECK_THAT(RunCross(cluster.Target(), untrusted_cert),
               StatusIs(absl::StatusCode::kUnavailable));
  }
  SECTION("a client that does not trust the servers' CA") {
    ChannelSecurity other_ca = good;
    other_ca.tls_ca_pem = ReadFile(cluster.File("otherca.pem"));
    CHECK_THAT(RunCross(cluster.Target(), other_ca),
               StatusIs(absl::StatusCode::kUnavailable));
  }
  // None of that disturbed the cluster.
  REQUIRE_OK(RunCross(cluster.Target(), good));
}

TEST_CASE("a big tensor crosses tasks intact over the TLS bulk plane") {
  // 24 MiB + odd bytes, over the bulk plane with TLS (mutual TLS required,
  // the token in each request).
  TestCluster cluster({{"worker", 2}}, {},
                      TestCluster::Security::kTlsAndToken);
  CheckBigTransfer(cluster.Target(), cluster.client_security(), 6151, 1024);
  CHECK_THAT(cluster.Log("worker", 1), Catch::Contains("(TLS)") &&
                                           Catch::Contains("bulk plane on"));
  // The receiver fetched it there, not after a refusal (the fallback to
  // chunks over gRPC would log why).
  CHECK_FALSE(absl::StrContains(cluster.Log("worker", 0), "bulk transfer"));
  CHECK_FALSE(absl::StrContains(cluster.Log("worker", 0), "cannot be reached"));
}

TEST_CASE("a big tensor crosses tasks intact over gRPC chunks with TLS on") {
  TestCluster cluster({{"worker", 2}},
                      {"--max-chunk-bytes", "1048576", "--no-bulk"},
                      TestCluster::Security::kTlsAndToken);
  CheckBigTransfer(cluster.Target(), cluster.client_security(), 6151, 1024);
  CHECK(absl::StrContains(cluster.Log("worker", 1), "no bulk plane"));
}

TEST_CASE("a big tensor crosses tasks over the bulk plane with a token") {
  TestCluster cluster({{"worker", 2}}, {}, TestCluster::Security::kToken);
  // 4 MiB + odd bytes: over the 1 MiB bulk threshold.
  CheckBigTransfer(cluster.Target(), cluster.client_security(), 1031, 1024);
  // The receiver fetched it over the bulk plane, not after a refusal there
  // (the fallback to chunks would log why).
  CHECK(absl::StrContains(cluster.Log("worker", 1), "bulk plane on"));
  CHECK_FALSE(absl::StrContains(cluster.Log("worker", 0), "bulk transfer"));
  CHECK_FALSE(absl::StrContains(cluster.Log("worker", 0), "cannot be reached"));
  CHECK_THAT(RunCross(cluster.Target(), ChannelSecurity()),
             StatusIs(absl::StatusCode::kUnauthenticated));
}

TEST_CASE("dfx run reaches a TLS and token cluster with the matching flags") {
  TestCluster cluster({{"worker", 2}}, {},
                      TestCluster::Security::kTlsAndToken);
  TempDir dir;
  GraphDef graph = CrossGraph();
  dir.Write("g.pb", graph.SerializeAsString());
  std::vector<std::string> args = {"run", "--graph", dir.File("g.pb"),
                                   "--fetch", "b", "--target",
                                   cluster.Target()};
  std::vector<std::string> secure = args;
  secure.insert(secure.end(), cluster.client_flags().begin(),
                cluster.client_flags().end());
  testing::ProcessResult ok = testing::RunDfx(secure);
  INFO(testing::Describe(ok));
  CHECK(ok.exit_code == 0);
  CHECK(absl::StrContains(ok.out, "-1"));
  CHECK(absl::StrContains(ok.out, "-3"));

  // Without the token (TLS and the client certificate still given).
  std::vector<std::string> no_token = args;
  for (size_t i = 2; i < cluster.client_flags().size(); ++i) {
    no_token.push_back(cluster.client_flags()[i]);
  }
  REQUIRE(cluster.client_flags()[0] == "--auth-token-file");
  testing::ProcessResult refused = testing::RunDfx(no_token);
  INFO(testing::Describe(refused));
  CHECK(refused.exit_code == 1);
  CHECK(absl::StrContains(refused.err, "missing or wrong auth token"));
}

TEST_CASE("dfx server refuses a token file others may read, or an empty "
          "one") {
  TempDir dir;
  dir.Write("open_token", "t0ken\n");
  REQUIRE(::chmod(dir.File("open_token").c_str(), 0644) == 0);
  dir.Write("empty_token", "\n");
  REQUIRE(::chmod(dir.File("empty_token").c_str(), 0600) == 0);
  for (const char* file : {"open_token", "empty_token"}) {
    const std::string command = absl::StrCat(
        DFX_BIN_DIR "/dfx server --cluster '{\"worker\": [\"127.0.0.1:1\"]}' "
                    "--job worker --task 0 --auth-token-file ",
        dir.File(file), " > ", dir.File("out"), " 2>&1");
    const int rc = std::system(command.c_str());
    INFO(file << ": " << ReadFile(dir.File("out")));
    CHECK(WIFEXITED(rc));
    CHECK(WEXITSTATUS(rc) == 2);
    CHECK(absl::StrContains(ReadFile(dir.File("out")), "--auth-token-file"));
    CHECK_FALSE(absl::StrContains(ReadFile(dir.File("out")), "t0ken"));
  }
}

}  // namespace
}  // namespace dfx

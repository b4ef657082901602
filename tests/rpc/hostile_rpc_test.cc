// Raw request bodies from tests/hostile/rpc/ (cases.txt: file, method path,
// status code) sent to a live server's master and worker services with a
// generic stub: each gets its code and a message, and the server still runs
// a step afterwards. With an auth token, every method refuses calls without
// it before looking at the body.
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "catch2/catch.hpp"
#include "google/protobuf/text_format.h"
#include "grpcpp/client_context.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/support/stub_options.h"
#include "rpc/cluster_spec.h"
#include "rpc/grpc_server.h"
#include "rpc/grpc_session.h"
#include "rpc/grpc_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

constexpr absl::Duration kWait = absl::Seconds(30);
constexpr char kCorpusDir[] = DFX_TEST_DATA_DIR "/../hostile/rpc";

struct Case {
  std::string file;
  std::string method;
  grpc::StatusCode code;
  int line = 0;
};

grpc::StatusCode CodeByName(const std::string& name) {
  static const auto* codes = new std::map<std::string, grpc::StatusCode>{
      {"OK", grpc::StatusCode::OK},
      {"CANCELLED", grpc::StatusCode::CANCELLED},
      {"UNKNOWN", grpc::StatusCode::UNKNOWN},
      {"INVALID_ARGUMENT", grpc::StatusCode::INVALID_ARGUMENT},
      {"DEADLINE_EXCEEDED", grpc::StatusCode::DEADLINE_EXCEEDED},
      {"NOT_FOUND", grpc::StatusCode::NOT_FOUND},
      {"ALREADY_EXISTS", grpc::StatusCode::ALREADY_EXISTS},
      {"PERMISSION_DENIED", grpc::StatusCode::PERMISSION_DENIED},
      {"RESOURCE_EXHAUSTED", grpc::StatusCode::RESOURCE_EXHAUSTED},
      {"FAILED_PRECONDITION", grpc::StatusCode::FAILED_PRECONDITION},
      {"ABORTED", grpc::StatusCode::ABORTED},
      {"OUT_OF_RANGE", grpc::StatusCode::OUT_OF_RANGE},
      {"UNIMPLEMENTED", grpc::StatusCode::UNIMPLEMENTED},
      {"INTERNAL", grpc::StatusCode::INTERNAL},
      {"UNAVAILABLE", grpc::StatusCode::UNAVAILABLE},
      {"DATA_LOSS", grpc::StatusCode::DATA_LOSS},
      {"UNAUTHENTICATED", grpc::StatusCode::UNAUTHENTICATED}};
  auto it = codes->find(name);
  INFO("status code name " << name);
  REQUIRE(it != codes->end());
  return it->second;
}

std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  INFO("reading " << path);
  REQUIRE(in.good());
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

std::vector<Case> ReadCorpus() {
  std::ifstream in(absl::StrCat(kCorpusDir, "/cases.txt"));
  REQUIRE(in.good());
  std::vector<Case> cases;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    absl::string_view text = absl::StripAsciiWhitespace(line);
    if (text.empty() || text[0] == '#') continue;
    std::vector<std::string> fields =
        absl::StrSplit(text, ' ', absl::SkipEmpty());
    INFO("cases.txt line " << number << ": " << line);
    REQUIRE(fields.size() == 3);
    cases.push_back({fields[0], fields[1], CodeByName(fields[2]), number});
  }
  return cases;
}

// Every method the two services serve.
const std::vector<std::string>& AllMethods() {
  static const auto* methods = new std::vector<std::string>{
      "/tensorflow.MasterService/CreateSession",
      "/tensorflow.MasterService/ExtendSession",
      "/tensorflow.MasterService/RunStep",
      "/tensorflow.MasterService/CloseSession",
      "/tensorflow.MasterService/ListDevices",
      "/tensorflow.MasterService/Reset",
      "/tensorflow.WorkerService/GetStatus",
      "/tensorflow.WorkerService/CreateWorkerSession",
      "/tensorflow.WorkerService/DeleteWorkerSession",
      "/tensorflow.WorkerService/RegisterGraph",
      "/tensorflow.WorkerService/DeregisterGraph",
      "/tensorflow.WorkerService/RunGraph",
      "/tensorflow.WorkerService/CleanupGraph",
      "/tensorflow.WorkerService/CleanupAll",
      "/tensorflow.WorkerService/RecvTensor",
      "/dfx.WorkerService/RecvTensorChunk"};
  return *methods;
}

// A one-task cluster in this process, on a free port of 127.0.0.1 (picked
// again when another program took it first).
std::unique_ptr<GrpcServer> StartServer(const std::string& auth_token) {
  absl::StatusOr<std::unique_ptr<GrpcServer>> server;
  for (int attempt = 0; attempt < 3; ++attempt) {
    absl::StatusOr<int> port = PickFreeLoopbackPort();
    REQUIRE_OK(port);
    GrpcServerOptions options;
    absl::StatusOr<ClusterDef> cluster = ParseClusterJson(
        absl::StrCat(R"({"worker": ["127.0.0.1:)", *port, R"("]})"));
    REQUIRE_OK(cluster);
    options.cluster = *cluster;
    options.job_name = "worker";
    options.inter_op_threads = 2;
    options.intra_op_threads = 1;
    options.master_threads = 4;
    options.security.auth_token = auth_token;
    server = GrpcServer::Create(options);
    if (server.ok()) break;
  }
  REQUIRE_OK(server);
  return *std::move(server);
}

// Sends `body` as the bytes of a call to `method`.
grpc::Status CallRaw(grpc::GenericStub& stub, const std::string& method,
                     const std::string& body) {
  grpc::ClientContext context;
  SetTimeout(&context, kWait);
  grpc::Slice slice(body);
  grpc::ByteBuffer request(&slice, 1);
  grpc::ByteBuffer response;
  absl::Notification done;
  grpc::Status status;
  stub.UnaryCall(&context, method, grpc::StubOptions(), &request, &response,
                 [&](grpc::Status s) {
                   status = std::move(s);
                   done.Notify();
                 });
  REQUIRE(done.WaitForNotificationWithTimeout(kWait + absl::Seconds(5)));
  return status;
}

// A step of a real graph on the server: -[1, 2] = [-1, -2].
void RequireServes(const GrpcServer& server, const std::string& auth_token) {
  GraphDef graph;
  REQUIRE(google::protobuf::TextFormat::ParseFromString(
      R"pb(
        node {
          name: "a"
          op: "Const"
          attr { key: "dtype" value { type: DT_FLOAT } }
          attr {
            key: "value"
            value {
              tensor {
                dtype: DT_FLOAT
                tensor_shape { dim { size: 2 } }
                float_val: [ 1, 2 ]
              }
            }
          }
        }
        node {
          name: "b"
          op: "Neg"
          input: "a"
          attr { key: "T" value { type: DT_FLOAT } }
        })pb",
      &graph));
  GrpcSessionOptions grpc_options;
  grpc_options.security.auth_token = auth_token;
  auto session = GrpcSession::Create(server.target(), {}, grpc_options);
  REQUIRE_OK(session);
  REQUIRE_OK((*session)->Extend(graph));
  std::vector<Tensor> out;
  REQUIRE_OK((*session)->Run({}, {"b"}, {}, &out));
  REQUIRE(out.size() == 1);
  REQUIRE(out[0].dtype() == DT_FLOAT);
  REQUIRE(out[0].NumElements() == 2);
  CHECK(out[0].data<float>()[0] == -1.0f);
  CHECK(out[0].data<float>()[1] == -2.0f);
  REQUIRE_OK((*session)->Close());
}

TEST_CASE("every raw body of tests/hostile/rpc gets its status code") {
  const std::vector<Case> cases = ReadCorpus();
  // The corpus sends garbage to every method of both services.
  std::set<std::string> covered;
  for (const Case& c : cases) {
    if (c.code == grpc::StatusCode::INVALID_ARGUMENT) covered.insert(c.method);
  }
  for (const std::string& method : AllMethods()) {
    INFO("no garbage case in cases.txt for " << method);
    CHECK(covered.contains(method));
  }

  auto server = StartServer("");
  grpc::GenericStub stub(NewChannel(server->address()));
  for (const Case& c : cases) {
    const std::string body = ReadBytes(absl::StrCat(kCorpusDir, "/", c.file));
    grpc::Status s = CallRaw(stub, c.method, body);
    INFO("cases.txt line " << c.line << ": " << c.file << " to " << c.method
                           << " -> " << s.error_code() << " "
                           << s.error_message());
    CHECK(s.error_code() == c.code);
    CHECK_FALSE(s.error_message().empty());
    if (c.code == grpc::StatusCode::INVALID_ARGUMENT) {
      CHECK_THAT(s.error_message(), Catch::Contains("does not parse"));
    }
  }
  RequireServes(*server, "");
}

TEST_CASE("a server with a token refuses every method without it") {
  const std::string token = "hostile-rpc-test-token";
  auto server = StartServer(token);
  const std::string garbage =
      ReadBytes(absl::StrCat(kCorpusDir, "/wire_type_7.bin"));

  SECTION("no token, or a wrong one: Unauthenticated before the body is read") {
    for (const std::string& sent : {std::string(), std::string("wrong"),
                                    token + "x", token.substr(1)}) {
      ChannelSecurity security;
      security.auth_token = sent;
      grpc::GenericStub stub(NewChannel(server->address(), security));
      for (const std::string& method : AllMethods()) {
        for (const std::string& body : {std::string(), garbage}) {
          grpc::Status s = CallRaw(stub, method, body);
          INFO(method << " with token '" << sent << "' -> " << s.error_code()
                      << " " << s.error_message());
          CHECK(s.error_code() == grpc::StatusCode::UNAUTHENTICATED);
          CHECK(s.error_message() == "missing or wrong auth token");
        }
      }
    }
    SECTION("and a session without the token cannot run a step") {
      auto session = GrpcSession::Create(server->target(), {});
      REQUIRE_OK(session);
      CHECK_THAT((*session)->ListDevices().status(),
                 testing::StatusIs(absl::StatusCode::kUnauthenticated));
    }
  }
  SECTION("with the token, garbage is InvalidArgument") {
    ChannelSecurity security;
    security.auth_token = token;
    grpc::GenericStub stub(NewChannel(server->address(), security));
    for (const std::string& method : AllMethods()) {
      grpc::Status s = CallRaw(stub, method, garbage);
      INFO(method << " -> " << s.error_code() << " " << s.error_message());
      CHECK(s.error_code() == grpc::StatusCode::INVALID_ARGUMENT);
    }
  }
  RequireServes(*server, token);
}

}  // namespace
}  // namespace dfx

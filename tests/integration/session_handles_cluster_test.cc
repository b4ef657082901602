// Session handles (GetSessionHandle / GetSessionTensor / DeleteSessionTensor)
// on a cluster of real `dfx server` processes: a tensor stored on task 1
// is read back in a later step by a GetSessionTensor placed where its
// handle says and used on task 0, is not found from another session or
// from a GetSessionTensor on another task, and is gone once deleted; a
// Reset closes the session that stored it.
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "google/protobuf/text_format.h"
#include "proto/master_service.grpc.pb.h"
#include "rpc/grpc_util.h"
#include "runtime/session.h"
#include "tests/integration/test_cluster.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using ::dfx::testing::StatusIs;
using ::dfx::testing::TestCluster;

constexpr char kTask1[] = "/job:worker/replica:0/task:1/device:CPU:0";

// x stored on task 1 ("h"); "v" reads a fed handle on task 1, "y" doubles
// it on task 0; "v0" reads on task 0; "d" deletes on task 1.
constexpr char kGraph[] = R"pb(
  node {
    name: "x"
    op: "Placeholder"
    device: "/job:worker/task:1"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "h"
    op: "GetSessionHandle"
    input: "x"
    device: "/job:worker/task:1"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "p"
    op: "Placeholder"
    attr {
      key: "dtype"
      value { type: DT_STRING }
    }
  }
  node {
    name: "v"
    op: "GetSessionTensor"
    input: "p"
    device: "/job:worker/task:1"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "y"
    op: "AddV2"
    input: "v"
    input: "v"
    device: "/job:worker/task:0"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "v0"
    op: "GetSessionTensor"
    input: "p"
    device: "/job:worker/task:0"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "d"
    op: "DeleteSessionTensor"
    input: "p"
    device: "/job:worker/task:1"
  }
)pb";

std::unique_ptr<Session> Open(const std::string& target) {
  GraphDef def;
  REQUIRE(google::protobuf::TextFormat::ParseFromString(kGraph, &def));
  SessionOptions options;
  options.config.set_operation_timeout_in_ms(60000);
  auto s = Session::Create(target, options);
  REQUIRE_OK(s);
  REQUIRE_OK((*s)->Extend(def));
  return *std::move(s);
}

Tensor Scalar(float v) {
  Tensor t(DT_FLOAT, TensorShape());
  t.scalar<float>() = v;
  return t;
}

Tensor Str(const std::string& s) {
  Tensor t(DT_STRING, TensorShape());
  t.scalar<std::string>() = s;
  return t;
}

std::string Store(Session* s, float value) {
  std::vector<Tensor> out;
  REQUIRE_OK(s->Run({{"x", Scalar(value)}}, {"h:0"}, {}, &out));
  return out[0].scalar<std::string>();
}

TEST_CASE("a session handle names its task and reads back across steps") {
  TestCluster cluster({{"worker", 2}});
  auto a = Open(cluster.Target("worker", 0));
  const std::string handle = Store(a.get(), 3);
  CHECK(handle == absl::StrCat("h;0;", kTask1));

  std::vector<Tensor> out;
  REQUIRE_OK(a->Run({{"p", Str(handle)}}, {"y:0"}, {}, &out));
  CHECK(out[0].scalar<float>() == 6);
  // Again: reading does not consume it.
  REQUIRE_OK(a->Run({{"p", Str(handle)}}, {"v:0"}, {}, &out));
  CHECK(out[0].scalar<float>() == 3);

  // Another session, through the other master, never resolves it.
  auto b = Open(cluster.Target("worker", 1));
  CHECK_THAT(b->Run({{"p", Str(handle)}}, {"v:0"}, {}, &out),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      absl::StrCat("The tensor with handle '", handle,
                                   "' is not in the session store.")));
  // A GetSessionTensor on another task than the handle's says where it is.
  CHECK_THAT(a->Run({{"p", Str(handle)}}, {"v0:0"}, {}, &out),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      absl::StrCat("It was stored on ", kTask1)));

  REQUIRE_OK(a->Run({{"p", Str(handle)}}, {}, {"d"}, &out));
  CHECK_THAT(a->Run({{"p", Str(handle)}}, {"v:0"}, {}, &out),
             StatusIs(absl::StatusCode::kInvalidArgument, handle));
  CHECK_THAT(a->Run({{"p", Str(handle)}}, {}, {"d"}, &out),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "Failed to delete a tensor with handle"));

  // A second store takes the session's next id on task 1.
  const std::string second = Store(a.get(), 5);
  CHECK(second == absl::StrCat("h;1;", kTask1));
  REQUIRE_OK(b->Close());

  // A Reset (tf.compat.v1.Session.reset) closes the session that stored it.
  auto master = tensorflow::MasterService::NewStub(
      NewChannel(cluster.Address("worker", 0), cluster.client_security()));
  grpc::ClientContext ctx;
  SetTimeout(&ctx, absl::Seconds(30));
  ResetRequest reset;
  ResetResponse reset_response;
  REQUIRE(master->Reset(&ctx, reset, &reset_response).ok());
  CHECK_FALSE(a->Run({{"p", Str(second)}}, {"v:0"}, {}, &out).ok());
  auto c = Open(cluster.Target("worker", 0));
  CHECK_THAT(c->Run({{"p", Str(second)}}, {"v:0"}, {}, &out),
             StatusIs(absl::StatusCode::kInvalidArgument, second));
}

}  // namespace
}  // namespace dfx

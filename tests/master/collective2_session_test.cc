// TensorFlow 1's collective ops (keys as attrs: CollectiveReduce,
// CollectiveGather, CollectiveBcastSend/Recv) in a local session over
// several CPU devices, and CollectiveInitializeCommunicator with the V3 ops
// that take its communicator: they run on the same resolver and ring as the
// V2 ops. A group whose members never all come ends at the step's deadline
// instead of hanging.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "catch2/catch.hpp"
#include "master/local_session.h"
#include "tests/master/session_test_util.h"
#include "tests/testing/collective_graphs.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using ::dfx::testing::CollectiveV1Graph;
using ::dfx::testing::CommunicatorGraph;
using ::dfx::testing::IsOk;
using ::dfx::testing::Registries;
using ::dfx::testing::StatusIs;

std::string Dev(int i) {
  return absl::StrCat("/job:localhost/replica:0/task:0/device:CPU:", i);
}

std::unique_ptr<LocalSession> NewSession(int devices, const GraphDef& g) {
  SessionOptions options;
  (*options.config.mutable_device_count())["CPU"] = devices;
  options.config.set_operation_timeout_in_ms(60000);
  auto s =
      LocalSession::Create(options, &Registries()->ops, &Registries()->kernels);
  REQUIRE_THAT(s.status(), IsOk());
  REQUIRE(g.node_size() > 0);
  REQUIRE_THAT((*s)->Extend(g), IsOk());
  return std::move(s).value();
}

std::vector<float> Values(const Tensor& t) {
  auto v = t.span<float>();
  return {v.begin(), v.end()};
}

// Group keys are process-wide (one in-process leader): each test its own,
// apart from collective_session_test.cc's (101..111).
TEST_CASE("CollectiveReduce (v1) over three devices, step after step",
          "[collective2]") {
  auto session = NewSession(
      3, CollectiveV1Graph({Dev(0), Dev(1), Dev(2)}, "CollectiveReduce", 201, 1,
                           "Add", "Div"));
  for (int step = 0; step < 3; ++step) {
    INFO("step " << step);
    std::vector<Tensor> out;
    REQUIRE_THAT(
        session->Run({{"x0", Tensor::FromVector<float>({1, 2, 3})},
                      {"x1", Tensor::FromVector<float>({4, 5, 6})},
                      {"x2", Tensor::FromVector<float>({step + 1.f, 2, 0})}},
                     {"c0", "c1", "c2"}, {}, &out),
        IsOk());
    for (const Tensor& t : out) {
      CHECK(Values(t) == std::vector<float>{(6.f + step) / 3, 3, 3});
    }
  }
  // Empty inputs give empty results (TensorFlow's own kernel crashes).
  std::vector<Tensor> out;
  REQUIRE_THAT(session->Run({{"x0", Tensor::FromVector<float>({})},
                             {"x1", Tensor::FromVector<float>({})},
                             {"x2", Tensor::FromVector<float>({})}},
                            {"c0", "c1", "c2"}, {}, &out),
               IsOk());
  for (const Tensor& t : out) CHECK(t.NumElements() == 0);
}

TEST_CASE("CollectiveGather and the v1 broadcasts over two devices",
          "[collective2]") {
  auto gather =
      NewSession(2, CollectiveV1Graph({Dev(0), Dev(1)}, "CollectiveGather", 202,
                                      1, "", "", "DT_FLOAT", {2}));
  std::vector<Tensor> out;
  REQUIRE_THAT(gather->Run({{"x0", Tensor::FromVector<float>({1, 2})},
                            {"x1", Tensor::FromVector<float>({3, 4})}},
                           {"c0", "c1"}, {}, &out),
               IsOk());
  for (const Tensor& t : out)
    CHECK(Values(t) == std::vector<float>{1, 2, 3, 4});

  auto bcast =
      NewSession(3, CollectiveV1Graph({Dev(0), Dev(1), Dev(2)}, "Bcast", 203, 1,
                                      "", "", "DT_FLOAT", {3}));
  REQUIRE_THAT(bcast->Run({{"x0", Tensor::FromVector<float>({7, -1, 2})}},
                          {"c0", "c1", "c2"}, {}, &out),
               IsOk());
  for (const Tensor& t : out) CHECK(Values(t) == std::vector<float>{7, -1, 2});
  // The sender's input must have the declared shape: TensorFlow's Internal.
  CHECK_THAT(bcast->Run({{"x0", Tensor::FromVector<float>({7, -1})}},
                        {"c0", "c1", "c2"}, {}, &out),
             StatusIs(absl::StatusCode::kInternal, "c0"));
}

TEST_CASE(
    "A v1 collective whose other members never come ends at the step's "
    "deadline or its own timeout_seconds, and the session runs the next "
    "step",
    "[collective2]") {
  // Two members declared, one device: the group never completes.
  GraphDef g = CollectiveV1Graph({Dev(0), Dev(1)}, "CollectiveReduce", 204, 1,
                                 "Add", "Id");
  GraphDef lone;
  for (const NodeDef& n : g.node()) {
    if (n.name() == "x0" || n.name() == "c0") *lone.add_node() = n;
  }
  auto session = NewSession(1, lone);
  RunOptions options;
  options.set_timeout_in_ms(300);
  std::vector<Tensor> out;
  for (int step = 0; step < 2; ++step) {
    CHECK_THAT(session->Run(options, {{"x0", Tensor::FromVector<float>({1})}},
                            {"c0"}, {}, &out, nullptr),
               StatusIs(absl::StatusCode::kDeadlineExceeded));
  }

  // timeout_seconds (here without a step deadline): DeadlineExceeded as
  // TensorFlow words it, for the v1 and the V2 ops alike.
  for (const char* op : {"CollectiveReduce", "CollectiveReduceV2"}) {
    INFO(op);
    const std::string op_name = op;
    GraphDef timed;
    const GraphDef full =
        op_name == "CollectiveReduce"
            ? CollectiveV1Graph({Dev(0), Dev(1)}, op_name, 210, 1)
            : testing::CollectiveGraph({Dev(0), Dev(1)}, op_name, 211, 1);
    for (const NodeDef& n : full.node()) {
      if (n.name() == "x0" || n.name() == "c0" ||
          (n.name().size() == 3 && n.name()[2] == '0')) {
        NodeDef copy = n;
        if (n.name() == "c0") {
          (*copy.mutable_attr())["timeout_seconds"].set_f(0.2f);
        }
        *timed.add_node() = copy;
      }
    }
    // The message says the attr ended the wait, not the session's 60 s
    // operation timeout (which words its DeadlineExceeded otherwise).
    auto session = NewSession(1, timed);
    CHECK_THAT(session->Run({{"x0", Tensor::FromVector<float>({1})}}, {"c0"},
                            {}, &out),
               StatusIs(absl::StatusCode::kDeadlineExceeded,
                        "Collective has timed out waiting for other workers"));
  }

  // A lone receiver (no sender in the group of one) fails at once.
  GraphDef recv_only;
  const GraphDef bcast = CollectiveV1Graph({Dev(0), Dev(0)}, "Bcast", 206, 1,
                                           "", "", "DT_FLOAT", {2});
  for (const NodeDef& n : bcast.node()) {
    if (n.name() == "c1") {
      NodeDef r = n;
      r.mutable_attr()->at("group_size").set_i(1);
      *recv_only.add_node() = r;
    }
  }
  auto lone_recv = NewSession(1, recv_only);
  CHECK_THAT(lone_recv->Run(options, {}, {"c1"}, {}, &out, nullptr),
             StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST_CASE(
    "CollectiveInitializeCommunicator and the V3 ops over three devices, "
    "a communicator is made once per session",
    "[collective2]") {
  auto reduce =
      NewSession(3, CommunicatorGraph({Dev(0), Dev(1), Dev(2)},
                                      "CollectiveReduceV3", 207, "Max"));
  std::vector<Tensor> out;
  REQUIRE_THAT(reduce->Run({{"x0", Tensor::FromVector<float>({1, 9})},
                            {"x1", Tensor::FromVector<float>({4, -2})},
                            {"x2", Tensor::FromVector<float>({3, 5})}},
                           {"c0", "c1", "c2"}, {}, &out),
               IsOk());
  for (const Tensor& t : out) CHECK(Values(t) == std::vector<float>{4, 9});
  // The next step makes the communicators again: AlreadyExists, as in
  // TensorFlow.
  CHECK_THAT(reduce->Run({{"x0", Tensor::FromVector<float>({1, 9})},
                          {"x1", Tensor::FromVector<float>({4, -2})},
                          {"x2", Tensor::FromVector<float>({3, 5})}},
                         {"c0", "c1", "c2"}, {}, &out),
             StatusIs(absl::StatusCode::kAlreadyExists));

  auto a2a = NewSession(
      2, CommunicatorGraph({Dev(0), Dev(1)}, "CollectiveAllToAllV3", 208));
  auto rows = [](std::vector<float> v) {
    return *Tensor::FromVector<float>(v).Reshaped(TensorShape({2, 2}));
  };
  REQUIRE_THAT(
      a2a->Run({{"x0", rows({1, 2, 3, 4})}, {"x1", rows({5, 6, 7, 8})}},
               {"c0", "c1"}, {}, &out),
      IsOk());
  CHECK(Values(out[0]) == std::vector<float>{1, 2, 5, 6});
  CHECK(Values(out[1]) == std::vector<float>{3, 4, 7, 8});

  // Dim 0 must equal the group size (TensorFlow's all-to-all).
  auto bad = NewSession(
      2, CommunicatorGraph({Dev(0), Dev(1)}, "CollectiveAllToAllV3", 209));
  CHECK_THAT(bad->Run({{"x0", Tensor::FromVector<float>({1, 2, 3, 4})},
                       {"x1", Tensor::FromVector<float>({5, 6, 7, 8})}},
                      {"c0", "c1"}, {}, &out),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "must be the same as the group size (2)"));
}

}  // namespace
}  // namespace dfx

// Collective ops in a local session over several CPU devices: the kernels
// (kernels/collective/) resolve their group through the process's
// in-process resolver and move data through the step's rendezvous.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "catch2/catch.hpp"
#include "master/local_session.h"
#include "tests/master/session_test_util.h"
#include "tests/testing/collective_graphs.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using ::dfx::testing::CollectiveGraph;
using ::dfx::testing::IsOk;
using ::dfx::testing::Registries;
using ::dfx::testing::StatusIs;

std::string Dev(int i) {
  return absl::StrCat("/job:localhost/replica:0/task:0/device:CPU:", i);
}

std::unique_ptr<LocalSession> NewSession(int devices) {
  SessionOptions options;
  (*options.config.mutable_device_count())["CPU"] = devices;
  options.config.set_operation_timeout_in_ms(60000);
  auto s = LocalSession::Create(options, &Registries()->ops,
                                &Registries()->kernels);
  REQUIRE_THAT(s.status(), IsOk());
  return std::move(s).value();
}

// Group keys are process-wide (one in-process leader): each test its own.
TEST_CASE("CollectiveReduceV2 over three devices of a local session",
          "[collective]") {
  auto session = NewSession(3);
  REQUIRE_THAT(session->Extend(CollectiveGraph({Dev(0), Dev(1), Dev(2)},
                                               "CollectiveReduceV2", 101, 1,
                                               "Add", "Div")),
               IsOk());
  for (int step = 0; step < 3; ++step) {
    INFO("step " << step);
    std::vector<Tensor> out;
    REQUIRE_THAT(
        session->Run({{"x0", Tensor::FromVector<float>({1, 2, 3, 4, 5})},
                      {"x1", Tensor::FromVector<float>({4, 5, 6, 7, 8})},
                      {"x2", Tensor::FromVector<float>({step + 0.f, 0, 0, 0, 3})}},
                     {"c0", "c1", "c2"}, {}, &out),
        IsOk());
    for (const Tensor& t : out) {
      auto v = t.span<float>();
      CHECK(std::vector<float>(v.begin(), v.end()) ==
            std::vector<float>{(5.f + step) / 3, 7.f / 3, 3, 11.f / 3, 16.f / 3});
    }
  }
}

TEST_CASE("A group key used again by a new local session's devices",
          "[collective]") {
  // Each session makes its devices anew (new incarnations); the
  // process-wide leader keeps the group. The second session's members get
  // the current incarnations with each instance, not the cached ones.
  for (int round = 0; round < 3; ++round) {
    INFO("session " << round);
    auto session = NewSession(2);
    REQUIRE_THAT(session->Extend(CollectiveGraph({Dev(0), Dev(1)},
                                                 "CollectiveReduceV2", 111, 1,
                                                 "Add", "Id")),
                 IsOk());
    std::vector<Tensor> out;
    REQUIRE_THAT(session->Run({{"x0", Tensor::FromVector<float>({1, 2})},
                               {"x1", Tensor::FromVector<float>({3, 4})}},
                              {"c0", "c1"}, {}, &out),
                 IsOk());
    for (const Tensor& t : out) {
      auto v = t.span<float>();
      CHECK(std::vector<float>(v.begin(), v.end()) == std::vector<float>{4, 6});
    }
  }
}

TEST_CASE("CollectiveGatherV2 and broadcast in a local session",
          "[collective]") {
  auto session = NewSession(2);
  REQUIRE_THAT(session->Extend(CollectiveGraph({Dev(0), Dev(1)},
                                               "CollectiveGatherV2", 102, 1)),
               IsOk());
  std::vector<Tensor> out;
  REQUIRE_THAT(session->Run({{"x0", Tensor::FromVector<float>({1, 2})},
                             {"x1", Tensor::FromVector<float>({3, 4})}},
                            {"c0", "c1"}, {}, &out),
               IsOk());
  for (const Tensor& t : out) {
    auto v = t.span<float>();
    CHECK(std::vector<float>(v.begin(), v.end()) ==
          std::vector<float>{1, 2, 3, 4});
  }

  auto bcast = NewSession(3);
  REQUIRE_THAT(bcast->Extend(CollectiveGraph({Dev(0), Dev(1), Dev(2)}, "Bcast",
                                             103, 1, "", "", "DT_FLOAT",
                                             {2})),
               IsOk());
  REQUIRE_THAT(bcast->Run({{"x0", Tensor::FromVector<float>({7, -1})}},
                          {"c0", "c1", "c2"}, {}, &out),
               IsOk());
  for (const Tensor& t : out) {
    auto v = t.span<float>();
    CHECK(std::vector<float>(v.begin(), v.end()) == std::vector<float>{7, -1});
  }
}

TEST_CASE("CollectiveReduceScatterV2 and CollectiveAllToAllV2 in a local "
          "session",
          "[collective]") {
  auto scatter = NewSession(2);
  REQUIRE_THAT(scatter->Extend(CollectiveGraph({Dev(0), Dev(1)},
                                               "CollectiveReduceScatterV2",
                                               106, 1, "Max", "Id")),
               IsOk());
  auto matrix = [](std::vector<float> v) {
    return *Tensor::FromVector<float>(v).Reshaped(TensorShape({2, 2}));
  };
  std::vector<Tensor> out;
  REQUIRE_THAT(scatter->Run({{"x0", matrix({1, 9, 3, 4})},
                             {"x1", matrix({5, 6, 7, 0})}},
                            {"c0", "c1"}, {}, &out),
               IsOk());
  REQUIRE(out[0].shape() == TensorShape({1, 2}));
  auto v0 = out[0].span<float>();
  auto v1 = out[1].span<float>();
  CHECK(std::vector<float>(v0.begin(), v0.end()) == std::vector<float>{5, 9});
  CHECK(std::vector<float>(v1.begin(), v1.end()) == std::vector<float>{7, 4});

  auto a2a = NewSession(2);
  REQUIRE_THAT(a2a->Extend(CollectiveGraph({Dev(0), Dev(1)},
                                           "CollectiveAllToAllV2", 107, 1)),
               IsOk());
  REQUIRE_THAT(a2a->Run({{"x0", matrix({1, 2, 3, 4})},
                         {"x1", matrix({5, 6, 7, 8})}},
                        {"c0", "c1"}, {}, &out),
               IsOk());
  v0 = out[0].span<float>();
  v1 = out[1].span<float>();
  CHECK(std::vector<float>(v0.begin(), v0.end()) ==
        std::vector<float>{1, 2, 5, 6});
  CHECK(std::vector<float>(v1.begin(), v1.end()) ==
        std::vector<float>{3, 4, 7, 8});
}

TEST_CASE("Members with different shapes fail naming the instance",
          "[collective]") {
  auto good = NewSession(2);
  REQUIRE_THAT(good->Extend(CollectiveGraph({Dev(0), Dev(1)},
                                            "CollectiveReduceV2", 105, 6)),
               IsOk());
  std::vector<Tensor> out;
  CHECK_THAT(good->Run({{"x0", Tensor::FromVector<float>({1, 2})},
                        {"x1", Tensor::FromVector<float>({3, 4, 5})}},
                       {"c0", "c1"}, {}, &out),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "collective instance 6"));
}

}  // namespace
}  // namespace dfx

// End-to-end tests of the "local" session with the standard ops, plus two
// test ops (a kernel that blocks until cancelled) in private registries.
#include "master/local_session.h"

#include <atomic>
#include <chrono>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "catch2/catch.hpp"
#include "google/protobuf/text_format.h"
#include "graph/ops/ops.h"
#include "kernels/kernels.h"
#include "runtime/cancellation.h"
#if DFX_HAVE_CUDA
#include "gpu/gpu_device_factory.h"
#endif
#include "tests/master/session_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using ::dfx::testing::BlockUntilCancelledOp;
using ::dfx::testing::Registries;
using ::dfx::testing::StatusIs;

GraphDef Parse(const std::string& text) {
  GraphDef def;
  DFX_CHECK(google::protobuf::TextFormat::ParseFromString(text, &def));
  return def;
}

std::unique_ptr<Session> NewLocal(const SessionOptions& options = {}) {
  auto s = Session::Create("local", options);
  DFX_CHECK_OK(s.status());
  return std::move(s).value();
}

// Waits (bounded) for an async Run.
template <typename F>
absl::Status WithinMinute(F&& f) {
  auto future = std::async(std::launch::async, std::forward<F>(f));
  REQUIRE(future.wait_for(std::chrono::seconds(60)) ==
          std::future_status::ready);
  return future.get();
}


std::unique_ptr<LocalSession> NewBlockingSession(
    const SessionOptions& options = {}) {
  auto s = LocalSession::Create(options, &Registries()->ops,
                                &Registries()->kernels);
  DFX_CHECK_OK(s.status());
  return std::move(s).value();
}

const char* kGraph = R"pb(
  node {
    name: "c"
    op: "Const"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr {
      key: "value"
      value {
        tensor {
          dtype: DT_FLOAT
          tensor_shape { dim { size: 2 } }
          float_val: 1.5
          float_val: -2
        }
      }
    }
  }
  node {
    name: "x"
    op: "Placeholder"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr {
      key: "shape"
      value { shape { dim { size: -1 } dim { size: 3 } } }
    }
  }
  node {
    name: "y"
    op: "Identity"
    input: "x"
    attr { key: "T" value { type: DT_FLOAT } }
  }
  node {
    name: "ic"
    op: "Identity"
    input: "c"
    attr { key: "T" value { type: DT_FLOAT } }
  }
  node {
    name: "k"
    op: "Const"
    attr { key: "dtype" value { type: DT_INT32 } }
    attr {
      key: "value"
      value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 7 } }
    }
  }
)pb";

std::vector<float> Values(const Tensor& t) {
  auto s = t.span<float>();
  return {s.begin(), s.end()};
}

TEST_CASE("Session::Create knows the local target and rejects others") {
  REQUIRE_OK(Session::Create("local"));
  REQUIRE_OK(Session::Create(""));
  CHECK_THAT(Session::Create("grpc://nowhere:1").status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "no session factory accepts target 'grpc://nowhere:1' "
                      "(known: local"));
}

TEST_CASE("constants and identities are fetched in fetch order") {
  auto session = NewLocal();
  REQUIRE_OK(session->Extend(Parse(kGraph)));
  std::vector<Tensor> out;
  REQUIRE_OK(session->Run({}, {"k", "ic:0", "c"}, {}, &out));
  REQUIRE(out.size() == 3);
  CHECK(out[0].dtype() == DT_INT32);
  CHECK(out[0].scalar<int32_t>() == 7);
  CHECK(Values(out[1]) == std::vector<float>{1.5f, -2.0f});
  CHECK(Values(out[2]) == std::vector<float>{1.5f, -2.0f});
  // Cached: the same signature again.
  REQUIRE_OK(session->Run({}, {"k", "ic:0", "c"}, {}, &out));
  CHECK(out[0].scalar<int32_t>() == 7);
}

TEST_CASE("a fed placeholder flows through, a fed fetch returns the feed") {
  auto session = NewLocal();
  REQUIRE_OK(session->Extend(Parse(kGraph)));
  const Tensor x = Tensor::FromVector<float>({1, 2, 3, 4, 5, 6},
                                             TensorShape({2, 3}));
  std::vector<Tensor> out;
  REQUIRE_OK(session->Run({{"x", x}}, {"y", "x:0"}, {}, &out));
  REQUIRE(out.size() == 2);
  CHECK(out[0].shape() == TensorShape({2, 3}));
  CHECK(Values(out[0]) == std::vector<float>{1, 2, 3, 4, 5, 6});
  CHECK(Values(out[1]) == std::vector<float>{1, 2, 3, 4, 5, 6});
  // Feeding a non-placeholder tensor replaces it.
  REQUIRE_OK(session->Run({{"c:0", Tensor::FromVector<float>({9})}}, {"ic"},
                          {}, &out));
  CHECK(Values(out[0]) == std::vector<float>{9});
}

TEST_CASE("bad feeds, fetches and targets are InvalidArgument") {
  auto session = NewLocal();
  REQUIRE_OK(session->Extend(Parse(kGraph)));
  const Tensor x = Tensor::FromVector<float>({1, 2, 3}, TensorShape({1, 3}));
  std::vector<Tensor> out;
  CHECK_THAT(session->Run({{"nope", x}}, {"y"}, {}, &out),
             StatusIs(absl::StatusCode::kInvalidArgument, "'nope'"));
  CHECK_THAT(session->Run({{"x:1", x}}, {"y"}, {}, &out),
             StatusIs(absl::StatusCode::kInvalidArgument, "'x:1'"));
  CHECK_THAT(
      session->Run({{"x", Tensor::Scalar<int32_t>(1)}}, {"y"}, {}, &out),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "feed 'x' is a int32 tensor but tensor 'x:0' has dtype float"));
  CHECK_THAT(session->Run({{"x", Tensor::FromVector<float>({1, 2})}}, {"y"},
                          {}, &out),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "Cannot feed value of shape [2] for tensor 'x:0', "
                      "which has shape [?,3]"));
  CHECK_THAT(session->Run({{"x", x}, {"x:0", x}}, {"y"}, {}, &out),
             StatusIs(absl::StatusCode::kInvalidArgument, "'x:0'"));
  CHECK_THAT(session->Run({}, {"missing:0"}, {}, &out),
             StatusIs(absl::StatusCode::kInvalidArgument, "'missing:0'"));
  CHECK_THAT(session->Run({}, {"c:3"}, {}, &out),
             StatusIs(absl::StatusCode::kInvalidArgument, "'c:3'"));
  CHECK_THAT(session->Run({}, {}, {"nowhere"}, &out),
             StatusIs(absl::StatusCode::kInvalidArgument, "'nowhere'"));
  CHECK_THAT(session->Run({}, {}, {"c:0"}, &out),
             StatusIs(absl::StatusCode::kInvalidArgument, "'c:0'"));
  // The session still works.
  REQUIRE_OK(session->Run({{"x", x}}, {"y"}, {}, &out));
  CHECK(Values(out[0]) == std::vector<float>{1, 2, 3});
}

TEST_CASE("an unfed placeholder that is needed fails naming it") {
  auto session = NewLocal();
  REQUIRE_OK(session->Extend(Parse(kGraph)));
  std::vector<Tensor> out;
  CHECK_THAT(session->Run({}, {"y"}, {}, &out),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "node 'x' (op Placeholder): You must feed a value for "
                      "placeholder tensor 'x'"));
  // Not needed: fine.
  REQUIRE_OK(session->Run({}, {"ic"}, {}, &out));
}

TEST_CASE("a _Recv the client wrote with nothing sending to it is an error "
          "and not a wait for ever") {
  auto session = NewLocal();
  REQUIRE_OK(session->Extend(Parse(R"pb(
    node {
      name: "r" op: "_Recv"
      attr { key: "tensor_type" value { type: DT_FLOAT } }
      attr { key: "tensor_name" value { s: "nobody_sends_this" } }
      attr { key: "send_device" value {
        s: "/job:localhost/replica:0/task:0/device:CPU:0" } }
      attr { key: "send_device_incarnation" value { i: 1 } }
      attr { key: "recv_device" value {
        s: "/job:localhost/replica:0/task:0/device:CPU:0" } }
    }
    node {
      name: "y" op: "Identity" input: "r"
      attr { key: "T" value { type: DT_FLOAT } }
    }
    node {
      name: "cr" op: "_Recv"
      attr { key: "tensor_type" value { type: DT_FLOAT } }
      attr { key: "tensor_name" value { s: "not_fed:0" } }
      attr { key: "send_device" value {
        s: "/job:localhost/replica:0/task:0/device:CPU:0" } }
      attr { key: "send_device_incarnation" value { i: 1 } }
      attr { key: "recv_device" value {
        s: "/job:localhost/replica:0/task:0/device:CPU:0" } }
      attr { key: "client_terminated" value { b: true } }
    }
  )pb")));
  std::vector<Tensor> out;
  // No timeout anywhere: before, this waited for ever.
  CHECK_THAT(WithinMinute([&] { return session->Run({}, {"y"}, {}, &out); }),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "node 'r' (op _Recv) waits for tensor "
                      "'nobody_sends_this'"));
  CHECK_THAT(WithinMinute([&] { return session->Run({}, {"cr"}, {}, &out); }),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "node 'cr' (op _Recv) waits for tensor 'not_fed:0' "
                      "from the client"));
}

TEST_CASE("Extend errors leave the graph as it was") {
  auto session = NewLocal();
  REQUIRE_OK(session->Extend(Parse(kGraph)));
  // A duplicate name.
  CHECK_THAT(session->Extend(Parse(R"pb(
               node {
                 name: "z"
                 op: "Identity"
                 input: "c"
                 attr { key: "T" value { type: DT_FLOAT } }
               }
               node {
                 name: "y"
                 op: "Identity"
                 input: "c"
                 attr { key: "T" value { type: DT_FLOAT } }
               })pb")),
             StatusIs(absl::StatusCode::kInvalidArgument, "'y'"));
  // An input naming a missing node.
  CHECK_THAT(session->Extend(Parse(R"pb(
               node {
                 name: "z"
                 op: "Identity"
                 input: "ghost"
                 attr { key: "T" value { type: DT_FLOAT } }
               })pb")),
             StatusIs(absl::StatusCode::kInvalidArgument));
  // An unknown op.
  CHECK_THAT(
      session->Extend(Parse(R"pb(node { name: "z" op: "NoSuchOp" })pb")),
      StatusIs(absl::StatusCode::kInvalidArgument, "NoSuchOp"));
  std::vector<Tensor> out;
  // "z" was not added by the failed calls.
  CHECK_THAT(session->Run({}, {"z"}, {}, &out),
             StatusIs(absl::StatusCode::kInvalidArgument, "'z'"));
  // A valid extension building on the old nodes works.
  REQUIRE_OK(session->Extend(Parse(R"pb(
    node {
      name: "z"
      op: "Identity"
      input: "ic"
      attr { key: "T" value { type: DT_FLOAT } }
    })pb")));
  REQUIRE_OK(session->Run({}, {"z"}, {}, &out));
  CHECK(Values(out[0]) == std::vector<float>{1.5f, -2.0f});
}

TEST_CASE("targets run without returning anything") {
  auto session = NewLocal();
  REQUIRE_OK(session->Extend(Parse(kGraph)));
  std::vector<Tensor> out;
  REQUIRE_OK(session->Run({}, {}, {"ic"}, &out));
  CHECK(out.empty());
}

const char* kBlockingGraph = R"pb(
  node {
    name: "x"
    op: "Placeholder"
    attr { key: "dtype" value { type: DT_FLOAT } }
  }
  node { name: "block" op: "BlockUntilCancelled" input: "x" }
)pb";

TEST_CASE("a step past its deadline returns DeadlineExceeded") {
  SECTION("RunOptions.timeout_in_ms") {
    auto session = NewBlockingSession();
    REQUIRE_OK(session->Extend(Parse(kBlockingGraph)));
    RunOptions options;
    options.set_timeout_in_ms(20);
    std::vector<Tensor> out;
    CHECK_THAT(WithinMinute([&] {
                 return session->Run(options,
                                     {{"x", Tensor::Scalar<float>(1)}},
                                     {"block"}, {}, &out, nullptr);
               }),
               StatusIs(absl::StatusCode::kDeadlineExceeded));
  }
  SECTION("ConfigProto.operation_timeout_in_ms") {
    SessionOptions so;
    so.config.set_operation_timeout_in_ms(20);
    auto session = NewBlockingSession(so);
    REQUIRE_OK(session->Extend(Parse(kBlockingGraph)));
    std::vector<Tensor> out;
    CHECK_THAT(WithinMinute([&] {
                 return session->Run({{"x", Tensor::Scalar<float>(1)}},
                                     {"block"}, {}, &out);
               }),
               StatusIs(absl::StatusCode::kDeadlineExceeded));
  }
}

TEST_CASE("Close cancels a running step and later Runs fail with Cancelled") {
  auto session = NewBlockingSession();
  REQUIRE_OK(session->Extend(Parse(kBlockingGraph)));
  const int before = BlockUntilCancelledOp::started.load();
  std::vector<Tensor> out;
  auto running = std::async(std::launch::async, [&] {
    return session->Run({{"x", Tensor::Scalar<float>(1)}}, {"block"}, {},
                        &out);
  });
  // Wait (bounded) until the kernel is blocked, then close.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (BlockUntilCancelledOp::started.load() == before &&
         std::chrono::steady_clock::now() < give_up) {
    std::this_thread::yield();
  }
  REQUIRE(BlockUntilCancelledOp::started.load() > before);
  REQUIRE_OK(session->Close());
  REQUIRE(running.wait_for(std::chrono::seconds(60)) ==
          std::future_status::ready);
  CHECK_THAT(running.get(), StatusIs(absl::StatusCode::kCancelled));
  std::vector<Tensor> out2;
  CHECK_THAT(session->Run({{"x", Tensor::Scalar<float>(1)}}, {"x"}, {}, &out2),
             StatusIs(absl::StatusCode::kCancelled));
  CHECK_THAT(session->Extend(GraphDef()),
             StatusIs(absl::StatusCode::kCancelled));
  REQUIRE_OK(session->Close());
}

TEST_CASE("step stats come back when tracing is asked for") {
  // Unoptimized: constant folding would turn ic into a Const.
  SessionOptions unoptimized;
  unoptimized.config.mutable_graph_options()
      ->mutable_rewrite_options()
      ->set_disable_meta_optimizer(true);
  auto session = NewLocal(unoptimized);
  REQUIRE_OK(session->Extend(Parse(kGraph)));
  RunOptions options;
  options.set_trace_level(RunOptions::FULL_TRACE);
  RunMetadata metadata;
  std::vector<Tensor> out;
  REQUIRE_OK(session->Run(options, {}, {"ic"}, {}, &out, &metadata));
  REQUIRE(metadata.step_stats().dev_stats_size() == 1);
  const DeviceStepStats& dev = metadata.step_stats().dev_stats(0);
  CHECK(dev.device() == "/job:localhost/replica:0/task:0/device:CPU:0");
  std::vector<std::string> labels;
  for (const auto& n : dev.node_stats()) labels.push_back(n.timeline_label());
  CHECK(std::find(labels.begin(), labels.end(), "ic = Identity(c)") !=
        labels.end());
  CHECK(std::find(labels.begin(), labels.end(), "c = Const()") !=
        labels.end());
  // Without tracing: nothing.
  RunMetadata none;
  REQUIRE_OK(session->Run(RunOptions(), {}, {"ic"}, {}, &out, &none));
  CHECK(none.step_stats().dev_stats_size() == 0);
}

TEST_CASE("ListDevices lists the configured CPUs") {
  SessionOptions so;
  (*so.config.mutable_device_count())["CPU"] = 2;
  auto session = NewLocal(so);
  auto devices = session->ListDevices();
  REQUIRE_OK(devices);
  REQUIRE(devices->size() == 2);
  CHECK((*devices)[1].name() == "/job:localhost/replica:0/task:0/device:CPU:1");
}

TEST_CASE("100 concurrent Runs from several threads get their own results") {
  SessionOptions so;
  so.config.set_inter_op_parallelism_threads(3);
  auto session = NewLocal(so);
  REQUIRE_OK(session->Extend(Parse(kGraph)));
  constexpr int kThreads = 4;
  constexpr int kRunsPerThread = 25;
  std::vector<std::future<int>> failures;
  for (int t = 0; t < kThreads; ++t) {
    failures.push_back(std::async(std::launch::async, [&, t] {
      int bad = 0;
      for (int i = 0; i < kRunsPerThread; ++i) {
        const float v = static_cast<float>(t * 1000 + i);
        const Tensor x =
            Tensor::FromVector<float>({v, v + 1, v + 2}, TensorShape({1, 3}));
        std::vector<Tensor> out;
        // Alternate between two signatures so the cache is shared.
        std::vector<std::string> fetches = {"y"};
        if (i % 2 == 1) fetches.push_back("ic");
        const absl::Status s = session->Run({{"x", x}}, fetches, {}, &out);
        if (!s.ok() || out.size() != fetches.size() ||
            Values(out[0]) != std::vector<float>{v, v + 1, v + 2}) {
          ++bad;
        }
      }
      return bad;
    }));
  }
  for (auto& f : failures) {
    REQUIRE(f.wait_for(std::chrono::seconds(120)) == std::future_status::ready);
    CHECK(f.get() == 0);
  }
}

TEST_CASE("local session: gpu_options are checked on every build, and the GPUs "
          "CUDA sees are listed after the CPUs") {
  SessionOptions options;
  options.config.mutable_gpu_options()->set_visible_device_list("0,zero");
  REQUIRE_THAT(Session::Create("local", options).status(),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "visible_device_list '0,zero'"));
  options.config.mutable_gpu_options()->set_visible_device_list("");
  options.config.mutable_gpu_options()->set_per_process_gpu_memory_fraction(2);
  REQUIRE_THAT(Session::Create("local", options).status(),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "per_process_gpu_memory_fraction"));

  int expected_gpus = 0;
#if DFX_HAVE_CUDA
  std::string why_none;
  expected_gpus = gpu::VisibleGpuCount(&why_none);
  INFO("no GPUs: " << why_none);
#endif
  auto devices = NewLocal()->ListDevices();
  REQUIRE_OK(devices);
  REQUIRE(devices->size() == 1 + static_cast<size_t>(expected_gpus));
  CHECK((*devices)[0].device_type() == "CPU");
  for (int i = 0; i < expected_gpus; ++i) {
    const DeviceAttributes& d = (*devices)[1 + i];
    CHECK(d.name() ==
          absl::StrCat("/job:localhost/replica:0/task:0/device:GPU:", i));
    CHECK(d.device_type() == "GPU");
    CHECK(d.memory_limit() > 0);
    CHECK(d.physical_device_desc().find("compute capability") !=
          std::string::npos);
  }
}

TEST_CASE("A local session keeps a tensor by handle across runs, for itself "
          "alone") {
  const GraphDef def = Parse(R"pb(
    node {
      name: "x" op: "Placeholder"
      attr { key: "dtype" value { type: DT_INT64 } }
    }
    node {
      name: "h" op: "GetSessionHandle" input: "x"
      attr { key: "T" value { type: DT_INT64 } }
    }
    node {
      name: "p" op: "Placeholder"
      attr { key: "dtype" value { type: DT_STRING } }
    }
    node {
      name: "v" op: "GetSessionTensor" input: "p"
      attr { key: "dtype" value { type: DT_INT64 } }
    }
    node { name: "d" op: "DeleteSessionTensor" input: "p" }
  )pb");
  auto a = NewLocal();
  auto b = NewLocal();
  REQUIRE_OK(a->Extend(def));
  REQUIRE_OK(b->Extend(def));
  std::vector<Tensor> out;
  REQUIRE_OK(
      a->Run({{"x", Tensor::FromVector<int64_t>({4, 5})}}, {"h"}, {}, &out));
  const std::string handle = out[0].scalar<std::string>();
  CHECK(handle == "h;0;/job:localhost/replica:0/task:0/device:CPU:0");
  Tensor fed(DT_STRING, TensorShape());
  fed.scalar<std::string>() = handle;
  REQUIRE_OK(a->Run({{"p", fed}}, {"v"}, {}, &out));
  CHECK(out[0].span<int64_t>()[1] == 5);
  // Session b stores its own "h;0;..." only when it stores something.
  CHECK_THAT(b->Run({{"p", fed}}, {"v"}, {}, &out),
             StatusIs(absl::StatusCode::kInvalidArgument, handle));
  REQUIRE_OK(a->Run({{"p", fed}}, {}, {"d"}, &out));
  CHECK_THAT(a->Run({{"p", fed}}, {"v"}, {}, &out),
             StatusIs(absl::StatusCode::kInvalidArgument, handle));
  REQUIRE_OK(a->Close());
  REQUIRE_OK(b->Close());
}

}  // namespace
}  // namespace dfx

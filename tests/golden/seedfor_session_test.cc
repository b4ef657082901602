// The seedfor family through a dfx local session, for what golden cases
// cannot show: a sleeping SleepOp ends at once when the session closes or
// the step passes its deadline, and a For whose body does not fit fails
// with InvalidArgument naming the node when the graph is lowered.
#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "catch2/catch.hpp"
#include "google/protobuf/text_format.h"
#include "runtime/session.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::StatusIs;

// "nap" sleeps an hour, then passes x on.
constexpr char kSleepGraph[] = R"pb(
  node {
    name: "x"
    op: "Placeholder"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "seconds"
    op: "Const"
    attr {
      key: "dtype"
      value { type: DT_INT32 }
    }
    attr {
      key: "value"
      value {
        tensor {
          dtype: DT_INT32
          tensor_shape {}
          int_val: 3600
        }
      }
    }
  }
  node {
    name: "nap"
    op: "SleepIdentityOp"
    input: "seconds"
    input: "x"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
)pb";

// For(0, 3, 1, [x]) whose body takes (int32, int32): not x's float.
constexpr char kBadForGraph[] = R"pb(
  library {
    function {
      signature {
        name: "Body"
        input_arg { name: "i" type: DT_INT32 }
        input_arg { name: "v" type: DT_INT32 }
        output_arg { name: "out" type: DT_INT32 }
      }
      ret { key: "out" value: "v" }
    }
  }
  node {
    name: "x"
    op: "Placeholder"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "zero"
    op: "Const"
    attr {
      key: "dtype"
      value { type: DT_INT32 }
    }
    attr {
      key: "value"
      value {
        tensor {
          dtype: DT_INT32
          tensor_shape {}
          int_val: 0
        }
      }
    }
  }
  node {
    name: "loop"
    op: "For"
    input: "zero"
    input: "zero"
    input: "zero"
    input: "x"
    attr {
      key: "T"
      value { list { type: DT_FLOAT } }
    }
    attr {
      key: "body"
      value { func { name: "Body" } }
    }
  }
)pb";

// A local session; `extended` gets Extend's status (else it must be OK).
std::unique_ptr<Session> NewSession(const char* text,
                                    absl::Status* extended = nullptr) {
  SessionOptions options;
  auto session = Session::Create("local", options);
  REQUIRE(session.ok());
  GraphDef graph;
  REQUIRE(google::protobuf::TextFormat::ParseFromString(text, &graph));
  const absl::Status s = (*session)->Extend(graph);
  if (extended != nullptr) {
    *extended = s;
  } else {
    REQUIRE(s.ok());
  }
  return *std::move(session);
}

TEST_CASE("Closing the session ends a sleeping SleepIdentityOp at once") {
  std::unique_ptr<Session> s = NewSession(kSleepGraph);
  std::vector<Tensor> out;
  const absl::Time start = absl::Now();
  auto running = std::async(std::launch::async, [&] {
    return s->Run({{"x", Tensor::Scalar<float>(1)}}, {"nap"}, {}, &out);
  });
  // Give the step time to reach the sleep (a Close before it starts fails
  // it with Cancelled as well).
  CHECK(running.wait_for(std::chrono::milliseconds(200)) ==
        std::future_status::timeout);
  REQUIRE(s->Close().ok());
  // Bounded: an hour's sleep that ignored the close fails here.
  REQUIRE(running.wait_for(std::chrono::seconds(30)) ==
          std::future_status::ready);
  CHECK(absl::Now() - start < absl::Seconds(30));
  CHECK_THAT(running.get(), StatusIs(absl::StatusCode::kCancelled));
}

TEST_CASE("A step's deadline ends a sleeping SleepIdentityOp") {
  std::unique_ptr<Session> s = NewSession(kSleepGraph);
  RunOptions options;
  options.set_timeout_in_ms(100);
  std::vector<Tensor> out;
  const absl::Time start = absl::Now();
  auto running = std::async(std::launch::async, [&] {
    return s->Run(options, {{"x", Tensor::Scalar<float>(1)}}, {"nap"}, {}, &out,
                  nullptr);
  });
  REQUIRE(running.wait_for(std::chrono::seconds(30)) ==
          std::future_status::ready);
  CHECK(absl::Now() - start < absl::Seconds(30));
  CHECK_THAT(running.get(), StatusIs(absl::StatusCode::kDeadlineExceeded));
  REQUIRE(s->Close().ok());
}

TEST_CASE("A For whose body does not fit fails naming the node") {
  // The graph is lowered when it is extended.
  absl::Status extended;
  std::unique_ptr<Session> s = NewSession(kBadForGraph, &extended);
  CHECK_THAT(extended, StatusIs(absl::StatusCode::kInvalidArgument,
                                "node 'loop' (op For): body: the arguments"));
  REQUIRE(s->Close().ok());
}

}  // namespace
}  // namespace dfx

// BatchFunction through a dfx local session, where the golden cases (one
// step, so one request per batch) cannot go: steps that run at once and
// meet in one batch. The batched function returns its input and, for every
// row, the number of rows of the batch it ran on, so each step sees the
// batch it was part of. Batches that wait for a full batch have a timeout
// of a minute, so the tests need no sleeps: a batch closes when its last
// request comes.
#include <cstdint>
#include <future>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "catch2/catch.hpp"
#include "google/protobuf/text_format.h"
#include "runtime/session.h"

namespace dfx {
namespace {

// f(x) = (CheckNumerics(x), rows of the batch in every element of x's
// shape). A BatchFunction node of `name` over placeholder x ([?, 1]
// float), with the given attrs.
std::string BatchNode(const std::string& name, const std::string& attrs) {
  return R"pb(
           node { name: ")pb" +
         name + R"pb("
                     op: "BatchFunction"
                     input: "x"
                     attr {
                       key: "f"
                       value { func { name: "f" } }
                     }
                     attr {
                       key: "Tin"
                       value { list { type: DT_FLOAT } }
                     }
                     attr {
                       key: "Tcaptured"
                       value { list {} }
                     }
                     attr {
                       key: "Tout"
                       value { list { type: DT_FLOAT type: DT_FLOAT } }
                     }
                     attr {
                       key: "num_batch_threads"
                       value { i: 2 }
                     }
         )pb" +
         attrs + "}\n";
}

constexpr char kLibrary[] = R"pb(
  node {
    name: "x"
    op: "Placeholder"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
  }
  library {
    function {
      signature {
        name: "f"
        input_arg { name: "x" type: DT_FLOAT }
        output_arg { name: "y" type: DT_FLOAT }
        output_arg { name: "n" type: DT_FLOAT }
      }
      node_def {
        name: "size"
        op: "Size"
        input: "x"
        attr {
          key: "T"
          value { type: DT_FLOAT }
        }
        attr {
          key: "out_type"
          value { type: DT_INT32 }
        }
      }
      node_def {
        name: "sizef"
        op: "Cast"
        input: "size:output:0"
        attr {
          key: "SrcT"
          value { type: DT_INT32 }
        }
        attr {
          key: "DstT"
          value { type: DT_FLOAT }
        }
      }
      node_def {
        name: "zeros"
        op: "ZerosLike"
        input: "x"
        attr {
          key: "T"
          value { type: DT_FLOAT }
        }
      }
      node_def {
        name: "n"
        op: "AddV2"
        input: "zeros:y:0"
        input: "sizef:y:0"
        attr {
          key: "T"
          value { type: DT_FLOAT }
        }
      }
      node_def {
        name: "checked"
        op: "CheckNumerics"
        input: "x"
        attr {
          key: "T"
          value { type: DT_FLOAT }
        }
        attr {
          key: "message"
          value { s: "bad row" }
        }
      }
      ret { key: "y" value: "checked:output:0" }
      ret { key: "n" value: "n:z:0" }
    }
  }
)pb";

std::unique_ptr<Session> NewSession() {
  const std::string graph_text =
      std::string(kLibrary) +
      // Waits for 4 rows.
      BatchNode("full", R"pb(
        attr {
          key: "max_batch_size"
          value { i: 4 }
        }
        attr {
          key: "batch_timeout_micros"
          value { i: 60000000 }
        })pb") +
      // Closes after 20 ms; batches run padded to 4 rows.
      BatchNode("padded", R"pb(
        attr {
          key: "max_batch_size"
          value { i: 4 }
        }
        attr {
          key: "allowed_batch_sizes"
          value { list { i: 4 } }
        }
        attr {
          key: "batch_timeout_micros"
          value { i: 20000 }
        })pb") +
      // Batches of at most 2 rows; larger requests split.
      BatchNode("split", R"pb(
        attr {
          key: "max_batch_size"
          value { i: 8 }
        }
        attr {
          key: "allowed_batch_sizes"
          value { list { i: 2 } }
        }
        attr {
          key: "enable_large_batch_splitting"
          value { b: true }
        }
        attr {
          key: "batch_timeout_micros"
          value { i: 60000000 }
        })pb");
  GraphDef graph;
  REQUIRE(google::protobuf::TextFormat::ParseFromString(graph_text, &graph));
  SessionOptions options;
  // Every step ends within a minute, or the test fails instead of hanging.
  options.config.set_operation_timeout_in_ms(60000);
  auto session = Session::Create("local", options);
  REQUIRE(session.ok());
  REQUIRE((*session)->Extend(graph).ok());
  return *std::move(session);
}

// Rows `values` as a [n, 1] float tensor.
Tensor Rows(const std::vector<float>& values) {
  Tensor t(DT_FLOAT, TensorShape({static_cast<int64_t>(values.size()), 1}));
  for (size_t i = 0; i < values.size(); ++i) t.data<float>()[i] = values[i];
  return t;
}

struct Answer {
  absl::Status status;
  std::vector<float> y;
  std::vector<float> n;
};

Answer Call(Session* s, const std::string& node,
            const std::vector<float>& values, int64_t timeout_ms = 0) {
  RunOptions options;
  if (timeout_ms > 0) options.set_timeout_in_ms(timeout_ms);
  std::vector<Tensor> outputs;
  Answer a;
  a.status = s->Run(options, {{"x", Rows(values)}}, {node + ":0", node + ":1"},
                    {}, &outputs, nullptr);
  if (a.status.ok()) {
    a.y.assign(outputs[0].data<float>(),
               outputs[0].data<float>() + outputs[0].NumElements());
    a.n.assign(outputs[1].data<float>(),
               outputs[1].data<float>() + outputs[1].NumElements());
  }
  return a;
}

std::future<Answer> CallAsync(Session* s, const std::string& node,
                              std::vector<float> values) {
  return std::async(std::launch::async,
                    [s, node, values] { return Call(s, node, values); });
}

TEST_CASE(
    "batching: concurrent steps meet in one batch, the function runs "
    "once on all their rows and each step gets its own rows back") {
  std::unique_ptr<Session> s = NewSession();
  std::vector<std::future<Answer>> calls;
  calls.push_back(CallAsync(s.get(), "full", {1}));
  calls.push_back(CallAsync(s.get(), "full", {2, 3}));
  calls.push_back(CallAsync(s.get(), "full", {4}));
  // The batch holds 4 rows only once all three have come: none can end
  // before, or the timeout of a minute would fail it.
  std::vector<Answer> answers;
  for (auto& c : calls) answers.push_back(c.get());
  CHECK(answers[0].status.ok());
  CHECK(answers[1].status.ok());
  CHECK(answers[2].status.ok());
  CHECK(answers[0].y == std::vector<float>{1});
  CHECK(answers[1].y == std::vector<float>{2, 3});
  CHECK(answers[2].y == std::vector<float>{4});
  CHECK(answers[0].n == std::vector<float>{4});
  CHECK(answers[1].n == std::vector<float>{4, 4});
  CHECK(answers[2].n == std::vector<float>{4});
  (void)s->Close();
}

TEST_CASE(
    "batching: a partial batch closes after batch_timeout_micros and is "
    "padded to the allowed batch size") {
  std::unique_ptr<Session> s = NewSession();
  // One request: nothing else comes, the timeout closes its batch.
  Answer one = Call(s.get(), "padded", {5});
  REQUIRE(one.status.ok());
  CHECK(one.y == std::vector<float>{5});
  CHECK(one.n == std::vector<float>{4});  // 1 row padded to 4
  // Concurrent ones: whichever batches they land in run padded to 4.
  auto a = CallAsync(s.get(), "padded", {6, 7});
  auto b = CallAsync(s.get(), "padded", {8});
  Answer ra = a.get();
  Answer rb = b.get();
  REQUIRE(ra.status.ok());
  REQUIRE(rb.status.ok());
  CHECK(ra.y == std::vector<float>{6, 7});
  CHECK(rb.y == std::vector<float>{8});
  CHECK(ra.n == std::vector<float>{4, 4});
  CHECK(rb.n == std::vector<float>{4});
  (void)s->Close();
}

TEST_CASE(
    "batching: a request larger than the batch is split across batches "
    "and its rows come back in order") {
  std::unique_ptr<Session> s = NewSession();
  // 5 rows in batches of 2: 2 + 2 full at once, the last row waits for a
  // partner from another step.
  auto big = CallAsync(s.get(), "split", {1, 2, 3, 4, 5});
  auto partner = CallAsync(s.get(), "split", {6});
  Answer rbig = big.get();
  Answer rpartner = partner.get();
  REQUIRE(rbig.status.ok());
  REQUIRE(rpartner.status.ok());
  CHECK(rbig.y == std::vector<float>{1, 2, 3, 4, 5});
  CHECK(rbig.n == std::vector<float>{2, 2, 2, 2, 2});
  CHECK(rpartner.y == std::vector<float>{6});
  CHECK(rpartner.n == std::vector<float>{2});
  (void)s->Close();
}

TEST_CASE(
    "batching: an error of the function reaches every request of the "
    "batch") {
  std::unique_ptr<Session> s = NewSession();
  auto good = CallAsync(s.get(), "full", {1, 2});
  auto bad =
      CallAsync(s.get(), "full", {std::numeric_limits<float>::infinity(), 3});
  Answer rgood = good.get();
  Answer rbad = bad.get();
  CHECK(rgood.status.code() == absl::StatusCode::kInvalidArgument);
  CHECK(rbad.status.code() == absl::StatusCode::kInvalidArgument);
  CHECK(std::string(rbad.status.message()).find("bad row") !=
        std::string::npos);
  (void)s->Close();
}

TEST_CASE(
    "batching: a cancelled step leaves its batch, and the others still "
    "run without it") {
  std::unique_ptr<Session> s = NewSession();
  // Alone in a batch of 4 that would wait a minute: its step's deadline
  // cancels it.
  Answer late = Call(s.get(), "full", {9}, 200);
  CHECK(late.status.code() == absl::StatusCode::kDeadlineExceeded);
  // Had its row stayed, the batch would close with it and three of these
  // four, and the fourth would wait a minute for company.
  std::vector<std::future<Answer>> calls;
  for (float v : {1.0f, 2.0f, 3.0f, 4.0f}) {
    calls.push_back(CallAsync(s.get(), "full", {v}));
  }
  for (size_t i = 0; i < calls.size(); ++i) {
    Answer a = calls[i].get();
    REQUIRE(a.status.ok());
    CHECK(a.y == std::vector<float>{static_cast<float>(i + 1)});
    CHECK(a.n == std::vector<float>{4});
  }
  (void)s->Close();
}

TEST_CASE(
    "batching: closing the session ends a request waiting for its "
    "batch") {
  std::unique_ptr<Session> s = NewSession();
  auto waiting = CallAsync(s.get(), "full", {1});
  // Whether the request has reached the batch or not, Close ends it.
  (void)s->Close();
  CHECK_FALSE(waiting.get().status.ok());
}

}  // namespace
}  // namespace dfx

// The misc2 family's ops whose golden cases cannot run everywhere, through
// a dfx local session: the user-level Send and Recv (their attrs name the
// local session's device, which a cluster's task refuses as another
// task's) and Abort (TensorFlow's kernel ends the process; dfx fails the
// step with Aborted, naming the node, and the session serves the next
// step).
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "catch2/catch.hpp"
#include "google/protobuf/text_format.h"
#include "runtime/session.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::StatusIs;

// Send x under "x"; Recv it as float (right) and as int32 (wrong); Abort.
// DEV stands for the session's CPU device.
constexpr char kGraph[] = R"pb(
  node {
    name: "x"
    op: "Const"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
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
    name: "send"
    op: "Send"
    input: "x"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
    attr {
      key: "tensor_name"
      value { s: "x" }
    }
    attr {
      key: "send_device"
      value { s: "DEV" }
    }
    attr {
      key: "send_device_incarnation"
      value { i: 1 }
    }
    attr {
      key: "recv_device"
      value { s: "DEV" }
    }
  }
  node {
    name: "recv"
    op: "Recv"
    attr {
      key: "tensor_type"
      value { type: DT_FLOAT }
    }
    attr {
      key: "tensor_name"
      value { s: "x" }
    }
    attr {
      key: "send_device"
      value { s: "DEV" }
    }
    attr {
      key: "send_device_incarnation"
      value { i: 1 }
    }
    attr {
      key: "recv_device"
      value { s: "DEV" }
    }
  }
  node {
    name: "recv_int"
    op: "Recv"
    attr {
      key: "tensor_type"
      value { type: DT_INT32 }
    }
    attr {
      key: "tensor_name"
      value { s: "x" }
    }
    attr {
      key: "send_device"
      value { s: "DEV" }
    }
    attr {
      key: "send_device_incarnation"
      value { i: 1 }
    }
    attr {
      key: "recv_device"
      value { s: "DEV" }
    }
  }
  node {
    name: "abort"
    op: "Abort"
    attr {
      key: "error_msg"
      value { s: "stop here" }
    }
  }
)pb";

std::unique_ptr<Session> NewSession() {
  SessionOptions options;
  // Every step ends within a minute, or the test fails instead of hanging.
  options.config.set_operation_timeout_in_ms(60000);
  auto session = Session::Create("local", options);
  REQUIRE(session.ok());
  auto devices = (*session)->ListDevices();
  REQUIRE(devices.ok());
  std::string cpu;
  for (const DeviceAttributes& d : *devices) {
    if (d.device_type() == "CPU") cpu = d.name();
  }
  REQUIRE(!cpu.empty());
  GraphDef graph;
  REQUIRE(google::protobuf::TextFormat::ParseFromString(
      absl::StrReplaceAll(kGraph, {{"\"DEV\"", absl::StrCat("\"", cpu, "\"")}}),
      &graph));
  REQUIRE((*session)->Extend(graph).ok());
  return *std::move(session);
}

TEST_CASE(
    "misc2: Send and Recv meet in the step's rendezvous, and a Recv of "
    "another dtype is Internal",
    "[misc2]") {
  std::unique_ptr<Session> s = NewSession();
  std::vector<Tensor> out;
  REQUIRE(s->Run({}, {"recv:0"}, {"send"}, &out).ok());
  REQUIRE(out.size() == 1);
  REQUIRE(out[0].NumElements() == 2);
  CHECK(out[0].data<float>()[0] == 1.5f);
  CHECK(out[0].data<float>()[1] == -2.0f);
  CHECK_THAT(s->Run({}, {"recv_int:0"}, {"send"}, &out),
             StatusIs(absl::StatusCode::kInternal,
                      "does not match declared output type int32"));
}

TEST_CASE(
    "misc2: Abort fails its step with Aborted naming the node, and the "
    "session runs the next step",
    "[misc2]") {
  std::unique_ptr<Session> s = NewSession();
  std::vector<Tensor> out;
  const absl::Status aborted = s->Run({}, {}, {"abort"}, &out);
  CHECK_THAT(aborted, StatusIs(absl::StatusCode::kAborted,
                               "Abort_op intentional failure; stop here"));
  CHECK_THAT(aborted, StatusIs(absl::StatusCode::kAborted, "abort"));
  REQUIRE(s->Run({}, {"recv:0"}, {"send"}, &out).ok());
  CHECK(out[0].data<float>()[0] == 1.5f);
}

}  // namespace
}  // namespace dfx

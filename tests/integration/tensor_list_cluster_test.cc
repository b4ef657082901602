// A TensorList crossing `dfx server` processes: built on one task, pushed to
// on another, read back on the first, so the list travels over RecvTensor
// both ways (DT_VARIANT on the protobuf path) and must come back whole.
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "google/protobuf/text_format.h"
#include "runtime/session.h"
#include "tests/integration/test_cluster.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using ::dfx::testing::TestCluster;

// l0 = FromTensor(x) on worker 0; l1 = PushBack(l0, [7, 8]) on worker 1;
// stack = Stack(l1) on worker 0, length = Length(l1) on worker 1, and
// first = GetItem(l0, 0) on worker 1.
constexpr char kListGraph[] = R"pb(
  node {
    name: "x" op: "Placeholder" device: "/job:worker/task:0"
    attr { key: "dtype" value { type: DT_FLOAT } }
  }
  node {
    name: "shape" op: "Const" device: "/job:worker/task:0"
    attr { key: "dtype" value { type: DT_INT32 } }
    attr { key: "value" value { tensor {
      dtype: DT_INT32 tensor_shape { dim { size: 1 } } int_val: 2 } } }
  }
  node {
    name: "l0" op: "TensorListFromTensor" device: "/job:worker/task:0"
    input: "x" input: "shape"
    attr { key: "element_dtype" value { type: DT_FLOAT } }
    attr { key: "shape_type" value { type: DT_INT32 } }
  }
  node {
    name: "y" op: "Const" device: "/job:worker/task:1"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor {
      dtype: DT_FLOAT tensor_shape { dim { size: 2 } }
      float_val: 7 float_val: 8 } } }
  }
  node {
    name: "l1" op: "TensorListPushBack" device: "/job:worker/task:1"
    input: "l0" input: "y"
    attr { key: "element_dtype" value { type: DT_FLOAT } }
  }
  node {
    name: "unknown" op: "Const" device: "/job:worker/task:0"
    attr { key: "dtype" value { type: DT_INT32 } }
    attr { key: "value" value { tensor {
      dtype: DT_INT32 tensor_shape {} int_val: -1 } } }
  }
  node {
    name: "stack" op: "TensorListStack" device: "/job:worker/task:0"
    input: "l1" input: "unknown"
    attr { key: "element_dtype" value { type: DT_FLOAT } }
  }
  node {
    name: "length" op: "TensorListLength" device: "/job:worker/task:1"
    input: "l1"
  }
  node {
    name: "zero" op: "Const" device: "/job:worker/task:1"
    attr { key: "dtype" value { type: DT_INT32 } }
    attr { key: "value" value { tensor {
      dtype: DT_INT32 tensor_shape {} int_val: 0 } } }
  }
  node {
    name: "first" op: "TensorListGetItem" device: "/job:worker/task:1"
    input: "l0" input: "zero" input: "unknown"
    attr { key: "element_dtype" value { type: DT_FLOAT } }
  }
)pb";

std::vector<float> Floats(const Tensor& t) {
  REQUIRE(t.dtype() == DT_FLOAT);
  return std::vector<float>(t.data<float>(), t.data<float>() + t.NumElements());
}

TEST_CASE("a TensorList crosses server processes and comes back whole") {
  GraphDef graph;
  REQUIRE(google::protobuf::TextFormat::ParseFromString(kListGraph, &graph));
  TestCluster cluster({{"worker", 2}});
  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::Create(cluster.Target());
  REQUIRE_OK(session.status());
  REQUIRE_OK((*session)->Extend(graph));

  const Tensor x = Tensor::FromVector<float>({1, 2, 3, 4, 5, 6},
                                             TensorShape({3, 2}));
  std::vector<Tensor> out;
  REQUIRE_OK((*session)->Run({{"x", x}}, {"stack", "length", "first"}, {},
                             &out));
  REQUIRE(out.size() == 3);
  CHECK(out[0].shape() == TensorShape({4, 2}));
  CHECK(Floats(out[0]) == std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8});
  CHECK(out[1].scalar<int32_t>() == 4);
  CHECK(Floats(out[2]) == std::vector<float>{1, 2});
  REQUIRE_OK((*session)->Close());
}

}  // namespace
}  // namespace dfx

// The pyfunc family (graph/ops/pyfunc_ops.cc, kernels/function/
// pyfunc_kernels.cc): TensorFlow 2.21's signatures, and a call that fails
// as on a TensorFlow server in another process -- InvalidArgument with
// TensorFlow's words, naming the callback and the node -- for each of the
// three ops, with inputs or none. (tests/interop/run_tf_pyfunc compares a
// dfx cluster with a TensorFlow server.)
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "tests/kernels/kernel_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::RunKernel;
using testing::StatusIs;
using testing::TestNodeBuilder;

TEST_CASE("Every pyfunc op has TensorFlow 2.21's signature and CPU types",
          "[pyfunc]") {
  testing::CheckSignaturesWithTensorFlow("pyfunc", 3);
}

TEST_CASE(
    "A Python callback fails with InvalidArgument naming the callback and "
    "the node",
    "[pyfunc]") {
  for (const char* op : {"PyFunc", "PyFuncStateless", "EagerPyFunc"}) {
    INFO(op);
    const NodeDef one = TestNodeBuilder("double_it", op, 1)
                            .Attr("token", "pyfunc_7")
                            .Attr("Tin", DataTypeVector{DT_FLOAT})
                            .Attr("Tout", DataTypeVector{DT_FLOAT})
                            .Build();
    CHECK_THAT(
        RunKernel(one, {Tensor::FromVector<float>({1, 2})}).status(),
        StatusIs(absl::StatusCode::kInvalidArgument,
                 "Could not find callback with key=pyfunc_7 in the registry"));
    CHECK_THAT(RunKernel(one, {Tensor::FromVector<float>({1, 2})}).status(),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        std::string(op) + " node 'double_it'"));
    const NodeDef none = TestNodeBuilder("side_effect", op, 0)
                             .Attr("token", "pyfunc_8")
                             .Attr("Tin", DataTypeVector{})
                             .Attr("Tout", DataTypeVector{})
                             .Build();
    CHECK_THAT(RunKernel(none, {}).status(),
               StatusIs(absl::StatusCode::kInvalidArgument, "key=pyfunc_8"));
  }
}

}  // namespace
}  // namespace dfx

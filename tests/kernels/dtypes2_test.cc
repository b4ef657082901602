// The dtypes2 family (tests/golden/gen_dtypes2.py: complex optimizers,
// unsigned activations, sums and fills, integer max-pooling gradients, half
// MatrixInverse and Qr): TensorFlow 2.21's signatures and CPU kernel types,
// and what the golden cases cannot show.
#include <cstdint>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "runtime/tensor.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::RunKernel;
using testing::StatusIs;
using testing::TestNodeBuilder;

TEST_CASE("Every dtypes2 op has TensorFlow 2.21's signature and CPU types",
          "[dtypes2]") {
  testing::CheckSignaturesWithTensorFlow("dtypes2", 50);
}

TEST_CASE(
    "MaxPoolGradWithArgmax of an integer type rejects an argmax outside its "
    "image",
    "[dtypes2]") {
  // TensorFlow's CPU kernel aborts on this (a CHECK), so no golden case
  // shows it.
  const NodeDef node = TestNodeBuilder("pool", "MaxPoolGradWithArgmax", 3)
                           .Attr("T", DT_INT16)
                           .Attr("Targmax", DT_INT64)
                           .Attr("ksize", std::vector<int64_t>{1, 2, 2, 1})
                           .Attr("strides", std::vector<int64_t>{1, 2, 2, 1})
                           .Attr("padding", "VALID")
                           .Build();
  const Tensor in =
      Tensor::FromVector<int16_t>({1, 2, 3, 4}, TensorShape({1, 2, 2, 1}));
  const Tensor grad =
      Tensor::FromVector<int16_t>({5}, TensorShape({1, 1, 1, 1}));
  const Tensor arg =
      Tensor::FromVector<int64_t>({9}, TensorShape({1, 1, 1, 1}));
  CHECK_THAT(RunKernel(node, {in, grad, arg}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "Invalid output gradient index: 9"));
}

}  // namespace
}  // namespace dfx

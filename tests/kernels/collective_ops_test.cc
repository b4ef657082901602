// The collective ops' signatures (graph/ops/collective_ops.cc): each equals
// TensorFlow 2.21's OpDef byte for byte, and their CPU kernels serve
// TensorFlow's types (tests/golden/gen_collective.py wrote both files).
#include "catch2/catch.hpp"
#include "tests/kernels/kernel_test_util.h"

namespace dfx {
namespace {

TEST_CASE("Every collective op has TensorFlow 2.21's signature and CPU types",
          "[collective]") {
  testing::CheckSignaturesWithTensorFlow("collective", 6);
}

}  // namespace
}  // namespace dfx

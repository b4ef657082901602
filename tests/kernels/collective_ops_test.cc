// The collective ops' signatures (graph/ops/collective_ops.cc): each equals
// TensorFlow 2.21's OpDef byte for byte (tests/golden/gen_collective.py
// wrote them), and each has a CPU kernel.
#include <fstream>
#include <sstream>
#include <string>

#include "catch2/catch.hpp"
#include "google/protobuf/text_format.h"
#include "graph/op_registry.h"
#include "kernels/kernels.h"
#include "proto/op_def.pb.h"

namespace dfx {
namespace {

const char* const kOpDefs =
    DFX_TEST_DATA_DIR "/../golden/data/collective/tf_op_defs.pbtxt";

TEST_CASE("Every collective op has TensorFlow 2.21's signature",
          "[collective]") {
  std::ifstream in(kOpDefs);
  std::stringstream text;
  text << in.rdbuf();
  OpList tf_ops;
  REQUIRE(google::protobuf::TextFormat::ParseFromString(text.str(), &tf_ops));
  REQUIRE(tf_ops.op_size() == 6);
  for (const OpDef& want : tf_ops.op()) {
    INFO(want.name());
    const OpRegistrationData* got = OpRegistry::Global()->LookUp(want.name());
    REQUIRE(got != nullptr);
    std::string want_bytes, got_bytes;
    REQUIRE(want.SerializeToString(&want_bytes));
    REQUIRE(got->op_def.SerializeToString(&got_bytes));
    INFO("dfx:\n"
         << got->op_def.DebugString() << "TensorFlow:\n"
         << want.DebugString());
    CHECK(got_bytes == want_bytes);
    CHECK_FALSE(StandardKernelRegistry()->KernelDefsOf(want.name()).empty());
  }
}

}  // namespace
}  // namespace dfx

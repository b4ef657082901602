// The misc2 family's ops (tests/golden/gen_misc2.py): TensorFlow 2.21's
// signatures and CPU kernel types, and what the golden cases cannot show:
// the device-name ops (whose output depends on where a case runs),
// ImmutableConst's file (an attr, not a feed), Abort (TensorFlow ends the
// process, dfx fails the step) and TensorListPushBackBatch's shape
// function.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "graph/node_def_util.h"
#include "runtime/device.h"
#include "runtime/file_policy.h"
#include "runtime/resource_handle.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/shape_fn_test_util.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace dfx {
namespace {

using testing::InferShape;
using testing::RunKernel;
using testing::StatusIs;
using testing::TestNodeBuilder;

TEST_CASE("Every misc2 op has TensorFlow 2.21's signature and CPU types",
          "[misc2]") {
  testing::CheckSignaturesWithTensorFlow("misc2", 16);
}

TEST_CASE("DeviceIndex and DevicePlacementOp name the kernel's device",
          "[misc2]") {
  NodeDef index = TestNodeBuilder("index", "DeviceIndex", 0).Build();
  AttrValue names;
  for (const char* n : {"GPU", "CPU"}) names.mutable_list()->add_s(n);
  (*index.mutable_attr())["device_names"] = names;
  absl::StatusOr<std::vector<Tensor>> out = RunKernel(index, {});
  REQUIRE(out.ok());
  CHECK((*out)[0].scalar<int32_t>() == 1);
  // Absent: the list's length.
  (*index.mutable_attr())["device_names"].mutable_list()->set_s(1, "TPU");
  out = RunKernel(index, {});
  REQUIRE(out.ok());
  CHECK((*out)[0].scalar<int32_t>() == 2);

  out = RunKernel(TestNodeBuilder("where", "DevicePlacementOp", 0).Build(), {});
  REQUIRE(out.ok());
  CHECK((*out)[0].scalar<std::string>() == testing::TestCpuDevice()->name());
  CHECK((*out)[0].scalar<std::string>().find("/device:CPU:0") !=
        std::string::npos);
}

TEST_CASE(
    "IteratorGetDevice names the iterator's device, and NotFound without "
    "an iterator",
    "[misc2]") {
  absl::StatusOr<std::vector<Tensor>> it =
      RunKernel(TestNodeBuilder("it", "AnonymousIteratorV3", 0)
                    .Attr("output_types", DataTypeVector{DT_INT64})
                    .Build(),
                {});
  REQUIRE(it.ok());
  for (const char* op :
       {"IteratorGetDevice", "ExperimentalIteratorGetDevice"}) {
    absl::StatusOr<std::vector<Tensor>> out =
        RunKernel(TestNodeBuilder("dev", op, 1).Build(), {(*it)[0]});
    REQUIRE(out.ok());
    CHECK((*out)[0].scalar<std::string>() == testing::TestCpuDevice()->name());
  }
  // A handle naming no iterator.
  ResourceHandle missing = (*it)[0].scalar<ResourceHandle>();
  missing.set_name("no_such_iterator");
  CHECK_THAT(RunKernel(TestNodeBuilder("dev", "IteratorGetDevice", 1).Build(),
                       {Tensor::Scalar<ResourceHandle>(missing)})
                 .status(),
             StatusIs(absl::StatusCode::kNotFound, "no_such_iterator"));
}

TEST_CASE(
    "Abort fails the step with Aborted and its message, and the process "
    "lives on",
    "[misc2]") {
  const NodeDef abort = TestNodeBuilder("abort", "Abort", 0)
                            .Attr("error_msg", "stop here")
                            .Build();
  CHECK_THAT(RunKernel(abort, {}).status(),
             StatusIs(absl::StatusCode::kAborted,
                      "Abort_op intentional failure; stop here"));
  const NodeDef quiet = TestNodeBuilder("abort", "Abort", 0)
                            .Attr("exit_without_error", true)
                            .Build();
  CHECK_THAT(RunKernel(quiet, {}).status(),
             StatusIs(absl::StatusCode::kAborted, "exit without error"));
  // Still here: a second run works as the first.
  CHECK_THAT(RunKernel(abort, {}).status(),
             StatusIs(absl::StatusCode::kAborted, "stop here"));
}

NodeDef ImmutableConst(const std::string& path, DataType dtype,
                       std::vector<int64_t> dims) {
  TensorShapeProto shape;
  for (int64_t d : dims) shape.add_dim()->set_size(d);
  return TestNodeBuilder("immutable", "ImmutableConst", 0)
      .Attr("dtype", dtype)
      .Attr("shape", shape)
      .Attr("memory_region_name", path.c_str())
      .Build();
}

TEST_CASE(
    "ImmutableConst maps a file's bytes as a tensor, with TensorFlow's "
    "errors for short files, strings, resources and missing files",
    "[misc2]") {
  testing::TempDir dir;
  const float values[6] = {1, 2, 3, 4, 5, 6};
  // Longer than the tensor: the rest of the file is not read.
  std::string bytes(reinterpret_cast<const char*>(values), sizeof(values));
  bytes += "trailing";
  const std::string path = dir.Write("weights.bin", bytes);

  absl::StatusOr<std::vector<Tensor>> out =
      RunKernel(ImmutableConst(path, DT_FLOAT, {2, 3}), {});
  REQUIRE(out.ok());
  REQUIRE((*out)[0].shape() == TensorShape({2, 3}));
  CHECK(std::memcmp((*out)[0].data<float>(), values, sizeof(values)) == 0);

  out = RunKernel(ImmutableConst(path, DT_INT32, {0}), {});
  REQUIRE(out.ok());
  CHECK((*out)[0].NumElements() == 0);

  // Exactly the file's length, then one element more.
  CHECK(RunKernel(ImmutableConst(path, DT_DOUBLE, {4}), {}).ok());
  CHECK_THAT(RunKernel(ImmutableConst(path, DT_DOUBLE, {5}), {}).status(),
             StatusIs(absl::StatusCode::kInternal,
                      "Readonly memory region has wrong length (32) when "
                      "allocating 40"));
  CHECK_THAT(RunKernel(ImmutableConst(path, DT_STRING, {1}), {}).status(),
             StatusIs(absl::StatusCode::kUnimplemented, "DT_STRING"));
  CHECK_THAT(RunKernel(ImmutableConst(path, DT_RESOURCE, {1}), {}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "Resource and variant dtypes are invalid"));
  CHECK_THAT(
      RunKernel(ImmutableConst(dir / "absent.bin", DT_FLOAT, {1}), {}).status(),
      StatusIs(absl::StatusCode::kNotFound, "absent.bin"));
  CHECK_THAT(
      RunKernel(ImmutableConst("memmapped_package://weights", DT_FLOAT, {1}),
                {})
          .status(),
      StatusIs(absl::StatusCode::kUnimplemented, "memmapped_package"));
  // An empty file holds an empty tensor.
  const std::string empty = dir.Write("empty.bin", "");
  out = RunKernel(ImmutableConst(empty, DT_FLOAT, {0, 2}), {});
  REQUIRE(out.ok());
  CHECK((*out)[0].shape() == TensorShape({0, 2}));
}

TEST_CASE("ImmutableConst reads only inside the server's --data-dir",
          "[misc2]") {
  testing::TempDir data;
  testing::TempDir outside;
  const int32_t v = 7;
  const std::string bytes(reinterpret_cast<const char*>(&v), sizeof(v));
  data.Write("inside.bin", bytes);
  const std::string far = outside.Write("outside.bin", bytes);
  REQUIRE(SetDataDir(data.path()).ok());
  absl::StatusOr<std::vector<Tensor>> in =
      RunKernel(ImmutableConst("inside.bin", DT_INT32, {}), {});
  const absl::Status out =
      RunKernel(ImmutableConst(far, DT_INT32, {}), {}).status();
  REQUIRE(SetDataDir("").ok());
  REQUIRE(in.ok());
  CHECK((*in)[0].scalar<int32_t>() == 7);
  CHECK_THAT(out, StatusIs(absl::StatusCode::kPermissionDenied, "immutable"));
}

TEST_CASE(
    "TensorListPushBackBatch's shape function: a vector of lists and "
    "a tensor of matching rows",
    "[misc2]") {
  const NodeDef push = TestNodeBuilder("push", "TensorListPushBackBatch", 2)
                           .Attr("element_dtype", DT_FLOAT)
                           .Build();
  absl::StatusOr<PartialShape> s =
      InferShape(push, {PartialShape::Known({3}), PartialShape::Known({3, 2})});
  REQUIRE(s.ok());
  CHECK(s->DebugString() == "[3]");
  s = InferShape(push, {PartialShape::Known({-1}), PartialShape::Known({4})});
  REQUIRE(s.ok());
  CHECK(s->DebugString() == "[4]");
  CHECK_FALSE(
      InferShape(push, {PartialShape::Known({2, 1}), PartialShape::Known({2})})
          .ok());
  CHECK_FALSE(
      InferShape(push, {PartialShape::Known({2}), PartialShape::Known({})})
          .ok());
  CHECK_FALSE(
      InferShape(push, {PartialShape::Known({2}), PartialShape::Known({3, 1})})
          .ok());
}

TEST_CASE(
    "GraphDefVersion answers the version graph import stamped on the "
    "node, else TensorFlow 2.21's",
    "[misc2]") {
  NodeDef node = TestNodeBuilder("version", "GraphDefVersion", 0).Build();
  absl::StatusOr<std::vector<Tensor>> out = RunKernel(node, {});
  REQUIRE(out.ok());
  CHECK((*out)[0].scalar<int32_t>() == 2474);
  (*node.mutable_attr())["_graph_def_version"].set_i(7);
  out = RunKernel(node, {});
  REQUIRE(out.ok());
  CHECK((*out)[0].scalar<int32_t>() == 7);
}

TEST_CASE(
    "DecodeWebP's shape function: a scalar in, frames of the attr's "
    "channels out",
    "[misc2]") {
  const NodeDef any = TestNodeBuilder("d", "DecodeWebP", 1).Build();
  absl::StatusOr<PartialShape> s = InferShape(any, {PartialShape::Known({})});
  REQUIRE(s.ok());
  CHECK(s->DebugString() == "[?,?,?,?]");
  const NodeDef rgba =
      TestNodeBuilder("d", "DecodeWebP", 1).Attr("channels", 4).Build();
  s = InferShape(rgba, {PartialShape::Unknown()});
  REQUIRE(s.ok());
  CHECK(s->DebugString() == "[?,?,?,4]");
  CHECK_FALSE(InferShape(any, {PartialShape::Known({2})}).ok());
}

TEST_CASE(
    "IsResourceHandleRefCounting is false and MakeWeakResourceHandle "
    "passes the handle through",
    "[misc2]") {
  ResourceHandle h;
  h.set_device(testing::TestCpuDevice()->name());
  h.set_container("c");
  h.set_name("v");
  const Tensor handle = Tensor::Scalar<ResourceHandle>(h);
  absl::StatusOr<std::vector<Tensor>> out =
      RunKernel(TestNodeBuilder("rc", "IsResourceHandleRefCounting", 1).Build(),
                {handle});
  REQUIRE(out.ok());
  CHECK_FALSE((*out)[0].scalar<bool>());
  out = RunKernel(TestNodeBuilder("weak", "MakeWeakResourceHandle", 1).Build(),
                  {handle});
  REQUIRE(out.ok());
  CHECK((*out)[0].scalar<ResourceHandle>().name() == "v");
  CHECK((*out)[0].scalar<ResourceHandle>().container() == "c");
}

}  // namespace
}  // namespace dfx

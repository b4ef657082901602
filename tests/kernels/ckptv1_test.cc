// The ckptv1 family's ops (tests/golden/gen_ckptv1.py: Save, SaveSlices,
// Restore, RestoreSlice): TensorFlow 2.21's signatures and CPU kernel
// types, the shape checks a graph meets at import, and the inputs on which
// TensorFlow's kernels crash (an empty name or spec vector, a negative
// dimension), which dfx refuses with InvalidArgument.
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::RunKernel;
using testing::StatusIs;
using testing::TestNodeBuilder;

// The op's shape function on `node` (defaults added): its first output, or
// an empty shape for an op without outputs.
absl::StatusOr<PartialShape> Infer(const NodeDef& node_in,
                                   std::vector<PartialShape> inputs) {
  const OpRegistrationData* op = OpRegistry::Global()->LookUp(node_in.op());
  if (op == nullptr) return absl::NotFoundError(node_in.op());
  NodeDef node = node_in;
  AddDefaultAttrs(op->op_def, &node);
  std::vector<const TensorProto*> consts(inputs.size(), nullptr);
  InferenceContext c(node, op->op_def, std::move(inputs), consts,
                     op->op_def.output_arg_size());
  absl::Status s = op->shape_fn(&c);
  if (!s.ok()) return s;
  if (c.num_outputs() == 0) return PartialShape::Known({});
  return c.output(0);
}

Tensor Str(const std::string& s) { return Tensor::Scalar<std::string>(s); }

std::string TempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("dfx_ckptv1_test_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

TEST_CASE("Every ckptv1 op has TensorFlow 2.21's signature and CPU types",
          "[ckptv1]") {
  testing::CheckSignaturesWithTensorFlow("ckptv1", 4);
}

TEST_CASE("ckptv1 shape functions check names, specs and scalars", "[ckptv1]") {
  const NodeDef save = TestNodeBuilder("s", "Save", 4)
                           .Attr("T", DataTypeVector{DT_FLOAT, DT_INT32})
                           .Build();
  const PartialShape scalar = PartialShape::Known({});
  CHECK(Infer(save, {scalar, PartialShape::Known({2}), scalar, scalar}).ok());
  CHECK_THAT(
      Infer(save, {scalar, PartialShape::Known({3}), scalar, scalar}).status(),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "Dimension must be 2 but is 3"));
  CHECK_THAT(Infer(save, {PartialShape::Known({1}), PartialShape::Known({2}),
                          scalar, scalar})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument));
  const NodeDef slices = TestNodeBuilder("s", "SaveSlices", 4)
                             .Attr("T", DataTypeVector{DT_FLOAT})
                             .Build();
  CHECK_THAT(Infer(slices, {scalar, PartialShape::Known({1}),
                            PartialShape::Known({2}), scalar})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "Dimension must be 1 but is 2"));
  const NodeDef restore =
      TestNodeBuilder("r", "RestoreSlice", 3).Attr("dt", DT_FLOAT).Build();
  absl::StatusOr<PartialShape> out = Infer(restore, {scalar, scalar, scalar});
  REQUIRE(out.ok());
  CHECK_FALSE(out->RankKnown());
  CHECK_THAT(
      Infer(restore, {scalar, PartialShape::Known({2}), scalar}).status(),
      StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST_CASE("ckptv1 kernels refuse inputs TensorFlow's kernels crash on",
          "[ckptv1]") {
  const std::string path = TempPath("crash");
  const NodeDef save = TestNodeBuilder("s", "Save", 3)
                           .Attr("T", DataTypeVector{DT_FLOAT})
                           .Build();
  REQUIRE(RunKernel(save, {Str(path), Tensor::FromVector<std::string>({"v"}),
                           Tensor::FromVector<float>({1.0f})})
              .ok());
  const NodeDef restore =
      TestNodeBuilder("r", "Restore", 2).Attr("dt", DT_FLOAT).Build();
  CHECK_THAT(
      RunKernel(restore, {Str(path), Tensor(DT_STRING, TensorShape({0}))})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "Input 1 (tensor_name) must have at least 1 element"));
  const NodeDef slice =
      TestNodeBuilder("r", "RestoreSlice", 3).Attr("dt", DT_FLOAT).Build();
  CHECK_THAT(RunKernel(slice, {Str(path), Str("v"),
                               Tensor(DT_STRING, TensorShape({0}))})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "Input 2 (shape_and_slice) must have at least 1"));
  CHECK_THAT(
      RunKernel(slice, {Str(path), Str("v"), Str("-1 -")}).status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "Negative dimension -1"));
  const NodeDef save_slices = TestNodeBuilder("s", "SaveSlices", 4)
                                  .Attr("T", DataTypeVector{DT_FLOAT})
                                  .Build();
  CHECK_THAT(
      RunKernel(save_slices, {Str(path), Tensor::FromVector<std::string>({"v"}),
                              Tensor::FromVector<std::string>({"-1 0,1"}),
                              Tensor::FromVector<float>({1.0f})})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "Negative dimension"));
  // The file Save wrote is intact and restores.
  auto out = RunKernel(slice, {Str(path), Str("v"), Str("1 0,1")});
  REQUIRE(out.ok());
  CHECK(out->at(0).data<float>()[0] == 1.0f);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace dfx

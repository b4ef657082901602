// The text family's ops (tests/golden/gen_text.py: RegexFullMatch,
// StringSplit, StringNGrams, UnsortedSegmentJoin, the Unicode decoders and
// encoders, DecodeCSV, ParseTensor,
// SerializeTensor, Fingerprint, EditDistance, the tf.sets ops, ListDiff):
// TensorFlow 2.21's signatures and CPU kernel types, the shape functions,
// and the error codes the golden cases cannot name.
#include <cstdint>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "kernels/fingerprint.h"
#include "proto/tensor.pb.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::RunKernel;
using testing::StatusIs;
using testing::TestNodeBuilder;

TEST_CASE("Every text op has TensorFlow 2.21's signature and CPU types",
          "[text]") {
  testing::CheckSignaturesWithTensorFlow("text", 19);
}

// The op's shape function on `node` (defaults added); `consts[i]`, when
// set, is input i's constant value.
absl::StatusOr<std::vector<PartialShape>> Infer(
    const NodeDef& node_in, std::vector<PartialShape> inputs,
    const std::vector<const TensorProto*>& consts = {}) {
  const OpRegistrationData* op = OpRegistry::Global()->LookUp(node_in.op());
  if (op == nullptr) return absl::NotFoundError(node_in.op());
  NodeDef node = node_in;
  AddDefaultAttrs(op->op_def, &node);
  std::vector<const TensorProto*> c = consts;
  c.resize(inputs.size(), nullptr);
  const int outputs = node.op() == "DecodeCSV"
                          ? static_cast<int>(inputs.size()) - 1
                          : op->op_def.output_arg_size();
  InferenceContext ctx(node, op->op_def, std::move(inputs), c, outputs);
  absl::Status s = op->shape_fn(&ctx);
  if (!s.ok()) return s;
  std::vector<PartialShape> out;
  for (int i = 0; i < outputs; ++i) out.push_back(ctx.output(i));
  return out;
}

std::string Str(const absl::StatusOr<std::vector<PartialShape>>& s, int i) {
  if (!s.ok()) return s.status().ToString();
  return (*s)[i].DebugString();
}

PartialShape K(std::vector<int64_t> dims) {
  return PartialShape::Known(std::move(dims));
}

TEST_CASE("Text ops' shape functions", "[text]") {
  const NodeDef set_op = TestNodeBuilder("s", "DenseToDenseSetOperation", 2)
                             .Attr("T", DT_INT32)
                             .Attr("set_operation", "union")
                             .Build();
  // The result is a sparse tensor of the inputs' rank.
  auto dd = Infer(set_op, {K({2, 3, 4}), K({2, 3, 5})});
  CHECK(Str(dd, 0) == K({-1, 3}).DebugString());
  CHECK(Str(dd, 2) == K({3}).DebugString());
  CHECK_THAT(Infer(set_op, {K({4}), K({2, 4})}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument));

  const NodeDef ss = TestNodeBuilder("s", "SparseToSparseSetOperation", 6)
                         .Attr("T", DT_INT64)
                         .Attr("set_operation", "a-b")
                         .Build();
  auto sso =
      Infer(ss, {K({-1, 3}), K({-1}), K({3}), K({-1, 3}), K({-1}), K({3})});
  CHECK(Str(sso, 0) == K({-1, 3}).DebugString());

  // EditDistance: the elementwise maximum of the constant dense shapes
  // without their last dim.
  TensorProto hyp, truth;
  Tensor::FromVector<int64_t>({2, 5, 7}).AsProtoTensorContent(&hyp);
  Tensor::FromVector<int64_t>({3, 1, 2}).AsProtoTensorContent(&truth);
  const NodeDef ed =
      TestNodeBuilder("e", "EditDistance", 6).Attr("T", DT_INT64).Build();
  auto eds =
      Infer(ed, {K({-1, 3}), K({-1}), K({3}), K({-1, 3}), K({-1}), K({3})},
            {nullptr, nullptr, &hyp, nullptr, nullptr, &truth});
  CHECK(Str(eds, 0) == K({3, 5}).DebugString());
  CHECK(
      Str(Infer(ed, {K({-1, 3}), K({-1}), K({3}), K({-1, 3}), K({-1}), K({3})}),
          0) == PartialShape::Unknown().DebugString());

  // Fingerprint: [rows, 8].
  const NodeDef fp =
      TestNodeBuilder("f", "Fingerprint", 2).Attr("T", DT_FLOAT).Build();
  CHECK(Str(Infer(fp, {K({6, 2}), K({})}), 0) == K({6, 8}).DebugString());
  CHECK_THAT(Infer(fp, {K({}), K({})}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument));

  // UnsortedSegmentJoin: [num_segments] + the data dims past the ids'.
  TensorProto num;
  Tensor::Scalar<int32_t>(4).AsProtoTensorContent(&num);
  const NodeDef usj = TestNodeBuilder("u", "UnsortedSegmentJoin", 3)
                          .Attr("Tindices", DT_INT32)
                          .Build();
  CHECK(Str(Infer(usj, {K({3, 5}), K({3}), K({})}, {nullptr, nullptr, &num}),
            0) == K({4, 5}).DebugString());
  CHECK_THAT(Infer(usj, {K({3, 5}), K({3}), K({1})}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument));

  // DecodeCSV: every output has the records' shape; defaults at most one
  // element.
  const NodeDef csv = TestNodeBuilder("c", "DecodeCSV", 3)
                          .Attr("OUT_TYPE", DataTypeVector{DT_INT32, DT_STRING})
                          .Build();
  auto cs = Infer(csv, {K({4, 2}), K({1}), K({})});
  CHECK(Str(cs, 1) == K({4, 2}).DebugString());
  CHECK_THAT(
      Infer(csv, {K({4}), K({2}), K({})}).status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "Shape of a default"));

  // StringNGrams: the splits keep their shape.
  const NodeDef ng = TestNodeBuilder("n", "StringNGrams", 2)
                         .Attr("separator", " ")
                         .Attr("ngram_widths", std::vector<int64_t>{2})
                         .Attr("left_pad", "")
                         .Attr("right_pad", "")
                         .Attr("pad_width", 0)
                         .Attr("preserve_short_sequences", false)
                         .Build();
  CHECK(Str(Infer(ng, {K({-1}), K({5})}), 1) == K({5}).DebugString());
}

TEST_CASE("Text kernels' errors carry TensorFlow's codes", "[text]") {
  const NodeDef fp =
      TestNodeBuilder("f", "Fingerprint", 2).Attr("T", DT_INT32).Build();
  CHECK_THAT(RunKernel(fp, {Tensor::FromVector<int32_t>({1, 2}),
                            Tensor::Scalar<std::string>("sha1")})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "Unsupported fingerprint method: sha1"));
  // Fingerprint64 of the int32 row {1}: FarmHash of its 4 little-endian
  // bytes.
  auto one = RunKernel(fp, {Tensor::FromVector<int32_t>({1}),
                            Tensor::Scalar<std::string>("farmhash64")});
  REQUIRE(one.ok());
  uint64_t got = 0;
  for (int b = 7; b >= 0; --b) got = got << 8 | (*one)[0].data<uint8_t>()[b];
  CHECK(got == Fingerprint64(absl::string_view("\x01\x00\x00\x00", 4)));

  const NodeDef bad_set = TestNodeBuilder("s", "DenseToDenseSetOperation", 2)
                              .Attr("T", DT_INT32)
                              .Attr("set_operation", "xor")
                              .Build();
  CHECK_THAT(
      RunKernel(bad_set,
                {Tensor::FromVector<int32_t>({1, 2}, TensorShape({1, 2})),
                 Tensor::FromVector<int32_t>({1, 2}, TensorShape({1, 2}))})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "Invalid set_operation xor."));

  const NodeDef usj = TestNodeBuilder("u", "UnsortedSegmentJoin", 3)
                          .Attr("Tindices", DT_INT32)
                          .Build();
  CHECK_THAT(
      RunKernel(usj, {Tensor::FromVector<std::string>({"a"}),
                      Tensor::FromVector<int32_t>({0}, TensorShape({1, 1})),
                      Tensor::Scalar<int32_t>(1)})
          .status(),
      StatusIs(absl::StatusCode::kOutOfRange, "Invalid segment_id rank 2"));

  const NodeDef csv = TestNodeBuilder("c", "DecodeCSV", 2)
                          .Attr("OUT_TYPE", DataTypeVector{DT_INT32})
                          .Attr("field_delim", "ab")
                          .Build();
  CHECK_THAT(RunKernel(csv, {Tensor::FromVector<std::string>({"1"}),
                             Tensor::FromVector<int32_t>({0})})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "field_delim should be only 1 char"));

  // Without validation an index past its dim reaches TensorFlow's
  // CheckGroup, an Internal error.
  const NodeDef size = TestNodeBuilder("z", "SetSize", 3)
                           .Attr("T", DT_INT32)
                           .Attr("validate_indices", false)
                           .Build();
  CHECK_THAT(
      RunKernel(size, {Tensor::FromVector<int64_t>({0, 9}, TensorShape({1, 2})),
                       Tensor::FromVector<int32_t>({1}),
                       Tensor::FromVector<int64_t>({2, 3})})
          .status(),
      StatusIs(absl::StatusCode::kInternal, "expected < 3, got 9"));

  const NodeDef ed =
      TestNodeBuilder("e", "EditDistance", 6).Attr("T", DT_INT32).Build();
  const Tensor ix = Tensor::FromVector<int64_t>({0, 0}, TensorShape({1, 2}));
  const Tensor v = Tensor::FromVector<int32_t>({1});
  // An index past the output (unchecked indices) is OutOfRange.
  const Tensor far = Tensor::FromVector<int64_t>({5, 0}, TensorShape({1, 2}));
  CHECK_THAT(RunKernel(ed, {far, v, Tensor::FromVector<int64_t>({1, 1}), ix, v,
                            Tensor::FromVector<int64_t>({1, 1})})
                 .status(),
             StatusIs(absl::StatusCode::kOutOfRange, "Got an inner product 5"));
}

}  // namespace
}  // namespace dfx

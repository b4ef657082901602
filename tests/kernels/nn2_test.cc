// The nn2 family (graph/ops/nn2_ops.cc, kernels/nn/nn2_kernels.h): every op
// has TensorFlow 2.21's OpDef and CPU kernel types; the shape functions;
// error codes the golden cases cannot show; quantized tensors in protos.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "base/status_macros.h"
#include "catch2/catch.hpp"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "kernels/kernels.h"
#include "proto/tensor.pb.h"
#include "runtime/quantized_types.h"
#include "runtime/tensor.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/shape_fn_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::InferShapes;
using testing::RunKernel;
using testing::StatusIs;
using testing::TestNodeBuilder;


// The quantized types of QuantizeV2 and Dequantize are left out on both
// sides (golden_lib.write_op_defs leaves quantized types out of every
// family's file); the golden cases run each of them.
TEST_CASE("Every nn2 op has TensorFlow 2.21's signature and CPU types",
          "[nn2]") {
  testing::CheckSignaturesWithTensorFlow("nn2", 9);
}

std::string Shapes(const absl::StatusOr<std::vector<PartialShape>>& r) {
  return testing::ShapesString(r);
}

PartialShape S(std::vector<int64_t> dims) {
  return PartialShape::Known(std::move(dims));
}

TEST_CASE("nn2 shape functions", "[nn2]") {
  NodeDef q = TestNodeBuilder("q", "QuantizeV2", 3).Attr("T", DT_QINT8).Build();
  CHECK(Shapes(InferShapes(q, {S({2, 3}), S({}), S({})})) == "[2,3][][]");
  CHECK_THAT(InferShapes(q, {S({2, 3}), S({1}), S({})}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument));
  (*q.mutable_attr())["axis"].set_i(1);
  // TensorFlow merges only max_range's length with the axis dim.
  CHECK(Shapes(InferShapes(q, {S({2, 3}), S({4}), S({3})})) == "[2,3][3][3]");
  CHECK_THAT(InferShapes(q, {S({2, 3}), S({3}), S({4})}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument));
  (*q.mutable_attr())["axis"].set_i(2);
  CHECK_THAT(InferShapes(q, {S({2, 3}), S({3}), S({3})}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "at least rank 3"));
  (*q.mutable_attr())["axis"].set_i(-2);
  CHECK_THAT(InferShapes(q, {S({2, 3}), S({}), S({})}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "at least -1"));

  NodeDef d = TestNodeBuilder("d", "Dequantize", 3).Attr("T", DT_QUINT8).Build();
  CHECK(Shapes(InferShapes(d, {S({4}), S({}), S({})})) == "[4]");
  (*d.mutable_attr())["axis"].set_i(0);
  // TensorFlow counts an unknown rank as -1 and refuses any axis; dfx
  // leaves it to the kernel.
  CHECK(Shapes(InferShapes(d, {PartialShape::Unknown(), S({4}), S({4})})) ==
        "<unknown>");
  CHECK(Shapes(InferShapes(d, {S({4, 2}), S({4}), S({4})})) == "[4,2]");
  CHECK_THAT(InferShapes(d, {S({4, 2}), S({4}), S({4})}).status(),
             testing::IsOk());
  (*d.mutable_attr())["axis"].set_i(3);
  CHECK_THAT(InferShapes(d, {S({4, 2}), S({4}), S({4})}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "Axis must be less than input dimension(2)"));

  NodeDef ptn = TestNodeBuilder("p", "ParameterizedTruncatedNormal", 5)
                    .Attr("dtype", DT_FLOAT)
                    .Attr("T", DT_INT32)
                    .Build();
  CHECK(Shapes(InferShapes(ptn, {S({2}), S({}), S({3}), S({}), S({})},
                           {Tensor::FromVector<int32_t>({3, 4})})) == "[3,4]");
  CHECK_THAT(
      InferShapes(ptn, {S({2}), S({1, 1}), S({}), S({}), S({})}).status(),
      StatusIs(absl::StatusCode::kInvalidArgument));

  NodeDef fmp = TestNodeBuilder("f", "FractionalMaxPool", 1)
                    .Attr("T", DT_FLOAT)
                    .Build();
  for (float r : {1.0f, 1.5f, 1.7f, 1.0f}) {
    (*fmp.mutable_attr())["pooling_ratio"].mutable_list()->add_f(r);
  }
  // The sequences have one more value than the pooled dim (TensorFlow's
  // shape function says as many).
  CHECK(Shapes(InferShapes(fmp, {S({2, 7, 9, 3})})) == "[2,4,5,3][5][6]");
  CHECK(Shapes(InferShapes(fmp, {S({-1, 7, -1, 3})})) == "[?,4,?,3][5][?]");
  CHECK_THAT(InferShapes(fmp, {S({7, 9, 3})}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument));

  NodeDef fapg = TestNodeBuilder("g", "FractionalAvgPoolGrad", 4)
                     .Attr("T", DT_FLOAT)
                     .Build();
  CHECK(Shapes(InferShapes(fapg, {S({4}), S({}), S({}), S({})},
                           {Tensor::FromVector<int64_t>({1, 6, 5, 2})})) ==
        "[1,6,5,2]");
  CHECK(Shapes(InferShapes(fapg, {S({4}), S({}), S({}), S({})})) ==
        "[?,?,?,?]");

  NodeDef ctc = TestNodeBuilder("c", "CTCBeamSearchDecoder", 2)
                    .Attr("T", DT_FLOAT)
                    .Attr("beam_width", 4)
                    .Attr("top_paths", 2)
                    .Build();
  CHECK(Shapes(InferShapes(ctc, {S({5, 3, 6}), S({-1})})) ==
        "[?,2][?,2][?][?][2][2][3,2]");
  CHECK_THAT(InferShapes(ctc, {S({5, 3, 6}), S({4})}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST_CASE("Quantized tensors travel in int_val and tensor_content",
          "[nn2]") {
  TensorProto proto;
  proto.set_dtype(DT_QUINT8);
  proto.mutable_tensor_shape()->add_dim()->set_size(3);
  proto.add_int_val(200);
  proto.add_int_val(7);
  absl::StatusOr<Tensor> t = Tensor::FromProto(proto);
  REQUIRE(t.ok());
  REQUIRE(t->dtype() == DT_QUINT8);
  // A short list is padded with its last value.
  CHECK(t->data<quint8>()[0].value == 200);
  CHECK(t->data<quint8>()[2].value == 7);
  CHECK(t->SummarizeValue(10) == "200 7 7");
  TensorProto field;
  t->AsProtoField(&field);
  CHECK(field.int_val_size() == 3);
  CHECK(field.int_val(0) == 200);
  TensorProto content;
  t->AsProtoTensorContent(&content);
  absl::StatusOr<Tensor> back = Tensor::FromProto(content);
  REQUIRE(back.ok());
  CHECK(back->data<quint8>()[1].value == 7);

  Tensor q32(DT_QINT32, TensorShape({1}));
  q32.data<qint32>()[0].value = -5;
  q32.AsProtoField(&field);
  CHECK(field.int_val(0) == -5);
}

Tensor Floats(std::vector<float> v) {
  return Tensor::FromVector<float>(absl::MakeConstSpan(v));
}

TEST_CASE("QuantizeV2 and Dequantize refuse bad ranges and axes", "[nn2]") {
  const NodeDef q = TestNodeBuilder("q", "QuantizeV2", 3)
                        .Attr("T", DT_QINT8)
                        .Attr("axis", 0)
                        .Attr("mode", "MIN_FIRST")
                        .Build();
  CHECK_THAT(RunKernel(q, {Floats({1, 2}), Floats({0, 0}), Floats({1, 1})})
                 .status(),
             StatusIs(absl::StatusCode::kUnimplemented, "MIN_FIRST"));
  const NodeDef even = TestNodeBuilder("q", "QuantizeV2", 3)
                           .Attr("T", DT_QUINT8)
                           .Attr("round_mode", "HALF_TO_EVEN")
                           .Build();
  CHECK_THAT(RunKernel(even, {Floats({1}), Floats({0}), Floats({1})}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "HALF_TO_EVEN"));
  const NodeDef plain =
      TestNodeBuilder("q", "QuantizeV2", 3).Attr("T", DT_QINT16).Build();
  CHECK_THAT(
      RunKernel(plain, {Floats({1}), Floats({2}), Floats({1})}).status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "input_max_range"));

  Tensor q8(DT_QINT8, TensorShape({2, 2}));
  const NodeDef d = TestNodeBuilder("d", "Dequantize", 3)
                        .Attr("T", DT_QINT8)
                        .Attr("axis", 2)
                        .Build();
  CHECK_THAT(RunKernel(d, {q8, Floats({0, 0}), Floats({1, 1})}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "Axis must be less than input dimension(2)"));
  const NodeDef bf = TestNodeBuilder("d", "Dequantize", 3)
                         .Attr("T", DT_QINT8)
                         .Attr("dtype", DT_BFLOAT16)
                         .Attr("mode", "SCALED")
                         .Build();
  CHECK_THAT(RunKernel(bf, {q8, Floats({0}), Floats({1})}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "bfloat16"));
}

NodeDef FractionalPool(const char* op, bool deterministic) {
  NodeDef n = TestNodeBuilder("f", op, 1)
                  .Attr("T", DT_FLOAT)
                  .Attr("deterministic", deterministic)
                  .Build();
  for (float r : {1.0f, 1.6f, 2.5f, 1.0f}) {
    (*n.mutable_attr())["pooling_ratio"].mutable_list()->add_f(r);
  }
  return n;
}

TEST_CASE("Unseeded fractional pooling draws valid sequences", "[nn2]") {
  Tensor x(DT_FLOAT, TensorShape({1, 13, 11, 1}));
  for (int64_t i = 0; i < x.NumElements(); ++i) x.data<float>()[i] = i;
  for (const char* op : {"FractionalMaxPool", "FractionalAvgPool"}) {
    INFO(op);
    absl::StatusOr<std::vector<Tensor>> out =
        RunKernel(FractionalPool(op, false), {x});
    REQUIRE(out.ok());
    CHECK((*out)[0].shape() == TensorShape({1, 8, 4, 1}));
    // Each region is floor(in / out) or one more, the whole dim covered.
    for (int k : {1, 2}) {
      const Tensor& seq = (*out)[k];
      const int64_t in = k == 1 ? 13 : 11;
      const int64_t n = seq.NumElements() - 1;
      CHECK(seq.data<int64_t>()[0] == 0);
      CHECK(seq.data<int64_t>()[n] == in);
      for (int64_t i = 0; i < n; ++i) {
        const int64_t d = seq.data<int64_t>()[i + 1] - seq.data<int64_t>()[i];
        CHECK((d == in / n || d == in / n + 1));
      }
    }
  }
}

TEST_CASE("Fractional pooling gradients refuse sequences out of bounds",
          "[nn2]") {
  Tensor x(DT_FLOAT, TensorShape({1, 4, 4, 1}));
  for (int64_t i = 0; i < 16; ++i) x.data<float>()[i] = i;
  Tensor out(DT_FLOAT, TensorShape({1, 2, 2, 1}));
  for (int64_t i = 0; i < 4; ++i) out.data<float>()[i] = 1;
  const NodeDef g = TestNodeBuilder("g", "FractionalMaxPoolGrad", 5)
                        .Attr("T", DT_FLOAT)
                        .Build();
  // TensorFlow reads before the input here; dfx refuses.
  CHECK_THAT(RunKernel(g, {x, out, out,
                           Tensor::FromVector<int64_t>({-1, 2, 4}),
                           Tensor::FromVector<int64_t>({0, 2, 4})})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "negative"));
  const NodeDef ag = TestNodeBuilder("g", "FractionalAvgPoolGrad", 4)
                         .Attr("T", DT_FLOAT)
                         .Build();
  // A batch larger than the original input's: TensorFlow writes past its
  // buffer; dfx refuses.
  Tensor bp(DT_FLOAT, TensorShape({2, 2, 2, 1}));
  CHECK_THAT(RunKernel(ag, {Tensor::FromVector<int64_t>({1, 4, 4, 1}), bp,
                            Tensor::FromVector<int64_t>({0, 2, 4}),
                            Tensor::FromVector<int64_t>({0, 2, 4})})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "does not fit"));
}

TEST_CASE("ParameterizedTruncatedNormal keeps every sample in bounds",
          "[nn2]") {
  const NodeDef p = TestNodeBuilder("p", "ParameterizedTruncatedNormal", 5)
                        .Attr("dtype", DT_DOUBLE)
                        .Attr("T", DT_INT32)
                        .Attr("seed", 5)
                        .Build();
  auto scalar = [](double v) { return Tensor::Scalar<double>(v); };
  // Shared parameters over many batches of 100: each sampler in turn.
  for (auto [lo, hi] : {std::pair{-1.0, 1.0}, std::pair{0.1, 0.3},
                        std::pair{2.5, 40.0}, std::pair{-30.0, -2.0}}) {
    absl::StatusOr<std::vector<Tensor>> out = RunKernel(
        p, {Tensor::FromVector<int32_t>({10, 70}), scalar(0), scalar(1),
            scalar(lo), scalar(hi)});
    REQUIRE(out.ok());
    for (double v : (*out)[0].span<double>()) {
      CHECK((v >= lo && v <= hi));
    }
  }
  CHECK_THAT(RunKernel(p, {Tensor::FromVector<int32_t>({2, 3}), scalar(0),
                           scalar(-1), scalar(0), scalar(1)})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "Invalid parameters"));
}

}  // namespace
}  // namespace dfx

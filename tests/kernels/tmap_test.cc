// The tmap family's ops (tests/golden/gen_tmap.py: TensorMap ops,
// RaggedGather, RaggedTensorToVariant/FromVariant and the gradient):
// TensorFlow 2.21's signatures and CPU kernel types, shape checks at
// import, the wire encodings of both variant values, and the bad inputs
// on which TensorFlow crashes or answers garbage (left out of the goldens).
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "catch2/catch.hpp"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "kernels/map/tensor_map.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::RunKernel;
using testing::StatusIs;
using testing::TestNodeBuilder;

absl::StatusOr<std::vector<PartialShape>> Infer(
    const NodeDef& node_in, std::vector<PartialShape> inputs) {
  const OpRegistrationData* op = OpRegistry::Global()->LookUp(node_in.op());
  if (op == nullptr) return absl::NotFoundError(node_in.op());
  NodeDef node = node_in;
  AddDefaultAttrs(op->op_def, &node);
  std::vector<const TensorProto*> consts(inputs.size(), nullptr);
  const int outputs =
      node.op() == "RaggedGather" || node.op() == "RaggedTensorFromVariant"
          ? 8
          : op->op_def.output_arg_size();
  InferenceContext c(node, op->op_def, std::move(inputs), consts, outputs);
  absl::Status s = op->shape_fn(&c);
  if (!s.ok()) return s;
  std::vector<PartialShape> out;
  for (int i = 0; i < c.num_outputs(); ++i) out.push_back(c.output(i));
  return out;
}

Tensor I64(std::vector<int64_t> v) { return Tensor::FromVector<int64_t>(v); }
Tensor F32(std::vector<float> v) { return Tensor::FromVector<float>(v); }

template <typename T>
std::vector<T> Values(const Tensor& t) {
  return std::vector<T>(t.span<T>().begin(), t.span<T>().end());
}

Tensor VariantScalar(Variant v) {
  Tensor t(DT_VARIANT, TensorShape());
  t.scalar<Variant>() = std::move(v);
  return t;
}

Tensor VariantVector(std::vector<Variant> vs) {
  Tensor t(DT_VARIANT, TensorShape({static_cast<int64_t>(vs.size())}));
  for (size_t i = 0; i < vs.size(); ++i) t.data<Variant>()[i] = vs[i];
  return t;
}

Variant Ragged(std::vector<Tensor> splits, Tensor values) {
  return Variant::Make<RaggedTensorVariant>(std::move(splits),
                                            std::move(values));
}

std::string ReadGoldenFile(const std::string& name) {
  std::ifstream in(
      absl::StrCat(DFX_TEST_DATA_DIR, "/../golden/data/tmap/", name),
      std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

NodeDef FromVariantNode(int64_t input_rank, int64_t output_rank) {
  return TestNodeBuilder("fv", "RaggedTensorFromVariant", 1)
      .Attr("input_ragged_rank", input_rank)
      .Attr("output_ragged_rank", output_rank)
      .Attr("Tvalues", DT_FLOAT)
      .Attr("Tsplits", DT_INT64)
      .Build();
}

TEST_CASE("Every tmap op has TensorFlow 2.21's signature and CPU types",
          "[tmap]") {
  testing::CheckSignaturesWithTensorFlow("tmap", 11);
}

TEST_CASE("Ragged shape functions check ranks at import", "[tmap]") {
  const NodeDef gather = TestNodeBuilder("g", "RaggedGather", 3)
                             .Attr("Tvalues", DT_FLOAT)
                             .Attr("Tindices", DT_INT32)
                             .Attr("PARAMS_RAGGED_RANK", 1)
                             .Attr("OUTPUT_RAGGED_RANK", 2)
                             .Build();
  // OUTPUT_RAGGED_RANK 2 from ragged rank 1 needs matrix indices.
  auto ok =
      Infer(gather, {PartialShape::Known({4}), PartialShape::Known({5, 3}),
                     PartialShape::Known({2, 2})});
  REQUIRE(ok.ok());
  CHECK((*ok)[2].DebugString() == PartialShape::Known({-1, 3}).DebugString());
  CHECK_THAT(Infer(gather, {PartialShape::Known({4}), PartialShape::Known({5}),
                            PartialShape::Known({2})})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument));
  CHECK_THAT(Infer(gather, {PartialShape::Known({4}), PartialShape::Known({}),
                            PartialShape::Known({2, 2})})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument));

  const NodeDef to = TestNodeBuilder("t", "RaggedTensorToVariant", 2)
                         .Attr("RAGGED_RANK", 1)
                         .Attr("Tvalues", DT_FLOAT)
                         .Attr("batched_input", true)
                         .Build();
  auto rows = Infer(to, {PartialShape::Known({5}), PartialShape::Known({7})});
  REQUIRE(rows.ok());
  CHECK((*rows)[0].DebugString() == PartialShape::Known({4}).DebugString());
  CHECK_THAT(Infer(to, {PartialShape::Known({5, 1}), PartialShape::Known({7})})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument));

  // input_ragged_rank 1 into output_ragged_rank 2: a vector of variants.
  CHECK(Infer(FromVariantNode(1, 2), {PartialShape::Known({3})}).ok());
  CHECK_THAT(Infer(FromVariantNode(1, 2), {PartialShape::Known({})}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST_CASE("Both variant values encode as TensorFlow serializes them",
          "[tmap]") {
  for (const char* file : {"tf_ragged_variant.pb", "tf_tensor_map.pb"}) {
    INFO(file);
    const std::string bytes = ReadGoldenFile(file);
    TensorProto proto;
    REQUIRE(proto.ParseFromString(bytes));
    absl::StatusOr<Tensor> t = Tensor::FromProto(proto);
    REQUIRE(t.ok());
    // dfx's runtime keeps the value opaque; the kernels decode it.
    const Variant& v = t->scalar<Variant>();
    Variant decoded;
    if (std::string(file) == "tf_ragged_variant.pb") {
      std::shared_ptr<const RaggedTensorVariant> holder;
      auto rt = GetVariantValue<RaggedTensorVariant>(v, &holder);
      REQUIRE(rt.ok());
      REQUIRE(*rt != nullptr);
      REQUIRE((*rt)->ragged_rank() == 2);
      CHECK(Values<int64_t>((*rt)->nested_splits[1]) ==
            std::vector<int64_t>{0, 1, 1, 4});
      CHECK(Values<float>((*rt)->values) == std::vector<float>{1, 2, 3, 4});
      decoded = Ragged((*rt)->nested_splits, (*rt)->values);
    } else {
      std::shared_ptr<const TensorMap> holder;
      auto m = GetVariantValue<TensorMap>(v, &holder);
      REQUIRE(m.ok());
      REQUIRE(*m != nullptr);
      REQUIRE((*m)->tensors.size() == 1);
      auto it = (*m)->tensors.find(Tensor::Scalar<int32_t>(7));
      REQUIRE(it != (*m)->tensors.end());
      CHECK(Values<int64_t>(it->second) == std::vector<int64_t>{1, 2});
      decoded = Variant::Make<TensorMap>(**m);
    }
    TensorProto ours;
    VariantScalar(decoded).AsProtoTensorContent(&ours);
    std::string our_bytes;
    ours.SerializeToString(&our_bytes);
    CHECK(our_bytes == bytes);
  }
}

TEST_CASE("RaggedTensorFromVariant decodes ragged tensors from the wire",
          "[tmap]") {
  // A RaggedTensorVariant that came from TensorFlow is an opaque variant in
  // dfx's runtime until a kernel reads it.
  VariantTensorDataProto proto;
  Ragged({I64({0, 2, 3})}, F32({1, 2, 3})).Encode(&proto);
  auto opaque = Variant::Decode(proto);
  REQUIRE(opaque.ok());
  REQUIRE(opaque->get<OpaqueVariant>() != nullptr);
  auto out = RunKernel(FromVariantNode(-1, 1), {VariantScalar(*opaque)});
  REQUIRE(out.ok());
  CHECK(Values<int64_t>(out->at(0)) == std::vector<int64_t>{0, 2, 3});
  CHECK(Values<float>(out->at(1)) == std::vector<float>{1, 2, 3});

  // Splits that do not fit the values are refused, not read past.
  VariantTensorDataProto bad;
  Ragged({I64({0, 2, 9})}, F32({1, 2, 3})).Encode(&bad);
  auto bad_opaque = Variant::Decode(bad);
  REQUIRE(bad_opaque.ok());
  CHECK_THAT(
      RunKernel(FromVariantNode(-1, 1), {VariantScalar(*bad_opaque)}).status(),
      StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST_CASE("RaggedTensorFromVariant refuses components that do not stack",
          "[tmap]") {
  // Values of different inner shapes, then of different ranks.
  const Tensor a = F32({1, 2});
  Tensor b(DT_FLOAT, TensorShape({1, 3}));
  Tensor c(DT_FLOAT, TensorShape({1, 2}));
  CHECK_THAT(RunKernel(FromVariantNode(0, 1),
                       {VariantVector({Ragged({}, c), Ragged({}, b)})})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "All flat_values must have compatible shapes"));
  CHECK_THAT(RunKernel(FromVariantNode(0, 1),
                       {VariantVector({Ragged({}, a), Ragged({}, b)})})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "Rank of values must match"));
  // An empty variant element (what ZerosLike never makes, but a feed can).
  CHECK_THAT(RunKernel(FromVariantNode(0, 1),
                       {VariantVector({Ragged({}, a), Variant()})})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "doesn't hold a RaggedTensorVariant"));
}

TEST_CASE(
    "RaggedTensorFromVariant of a rank-3 variant tensor builds the "
    "ragged tensor its shape describes",
    "[tmap]") {
  // A [2, 2, 1] tensor of rows [1], [2, 3], [], [4]: uniform levels of 2
  // and 4 rows, then the rows. (TensorFlow's second uniform level has the
  // wrong length.)
  Tensor t(DT_VARIANT, TensorShape({2, 2, 1}));
  const std::vector<std::vector<float>> rows = {{1}, {2, 3}, {}, {4}};
  for (int i = 0; i < 4; ++i) t.data<Variant>()[i] = Ragged({}, F32(rows[i]));
  auto out = RunKernel(FromVariantNode(0, 3), {t});
  REQUIRE(out.ok());
  CHECK(Values<int64_t>(out->at(0)) == std::vector<int64_t>{0, 2, 4});
  CHECK(Values<int64_t>(out->at(1)) == std::vector<int64_t>{0, 1, 2, 3, 4});
  CHECK(Values<int64_t>(out->at(2)) == std::vector<int64_t>{0, 1, 3, 3, 4});
  CHECK(Values<float>(out->at(3)) == std::vector<float>{1, 2, 3, 4});
}

TEST_CASE("Bad inputs TensorFlow crashes on are InvalidArgument", "[tmap]") {
  // RaggedGather: OUTPUT_RAGGED_RANK 2 for vector indices into ragged rank
  // 1 (TensorFlow aborts).
  const NodeDef gather = TestNodeBuilder("g", "RaggedGather", 3)
                             .Attr("Tvalues", DT_FLOAT)
                             .Attr("Tindices", DT_INT64)
                             .Attr("PARAMS_RAGGED_RANK", 1)
                             .Attr("OUTPUT_RAGGED_RANK", 2)
                             .Build();
  CHECK_THAT(
      RunKernel(gather, {I64({0, 1, 3}), F32({1, 2, 3}), I64({1})}).status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "OUTPUT_RAGGED_RANK"));

  // Inner splits ending at the next level's splits count, not its row
  // count (TensorFlow reads past the inner splits).
  const NodeDef gather2 = TestNodeBuilder("g", "RaggedGather", 4)
                              .Attr("Tvalues", DT_FLOAT)
                              .Attr("Tindices", DT_INT64)
                              .Attr("PARAMS_RAGGED_RANK", 2)
                              .Attr("OUTPUT_RAGGED_RANK", 2)
                              .Build();
  CHECK_THAT(
      RunKernel(gather2, {I64({0, 3}), I64({0, 1, 2}), F32({1, 2}), I64({0})})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "Ragged splits must not point past values"));
  auto fine =
      RunKernel(gather2, {I64({0, 2}), I64({0, 1, 2}), F32({1, 2}), I64({0})});
  REQUIRE(fine.ok());
  CHECK(Values<float>(fine->at(2)) == std::vector<float>{1, 2});

  // The gradient's pieces must fill dense_values_shape (TensorFlow returns
  // uninitialized memory).
  const NodeDef grad = TestNodeBuilder("vg", "RaggedTensorToVariantGradient", 3)
                           .Attr("Tvalues", DT_FLOAT)
                           .Build();
  const Tensor pieces =
      VariantVector({Ragged({}, F32({1, 2})), Ragged({}, F32({3}))});
  auto ok = RunKernel(
      grad, {pieces, I64({0, 2, 3}), Tensor::FromVector<int32_t>({3})});
  REQUIRE(ok.ok());
  CHECK(Values<float>(ok->at(0)) == std::vector<float>{1, 2, 3});
  CHECK_THAT(RunKernel(grad, {pieces, I64({0, 2, 3}),
                              Tensor::FromVector<int32_t>({4})})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument));
  // A missing piece is zeros of its row's length.
  auto zeros =
      RunKernel(grad, {VariantVector({Variant(), Ragged({}, F32({3}))}),
                       I64({0, 2, 3}), Tensor::FromVector<int32_t>({3})});
  REQUIRE(zeros.ok());
  CHECK(Values<float>(zeros->at(0)) == std::vector<float>{0, 0, 3});
  // ... and needs a row split for it.
  CHECK_THAT(RunKernel(grad, {VariantVector({Ragged({}, F32({3})), Variant()}),
                              I64({0, 1}), Tensor::FromVector<int32_t>({3})})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST_CASE("TensorMap ops build new maps and keep the input's", "[tmap]") {
  auto empty = RunKernel(TestNodeBuilder("e", "EmptyTensorMap", 0).Build(), {});
  REQUIRE(empty.ok());
  const NodeDef insert = TestNodeBuilder("i", "TensorMapInsert", 3)
                             .Attr("key_dtype", DT_INT32)
                             .Attr("value_dtype", DT_FLOAT)
                             .Build();
  auto m1 = RunKernel(insert,
                      {empty->at(0), Tensor::Scalar<int32_t>(1), F32({1, 2})});
  REQUIRE(m1.ok());
  auto m2 =
      RunKernel(insert, {m1->at(0), Tensor::Scalar<int32_t>(2), F32({3})});
  REQUIRE(m2.ok());
  const NodeDef size = TestNodeBuilder("s", "TensorMapSize", 1).Build();
  CHECK(RunKernel(size, {m1->at(0)})->at(0).scalar<int32_t>() == 1);
  CHECK(RunKernel(size, {m2->at(0)})->at(0).scalar<int32_t>() == 2);
  CHECK(RunKernel(size, {empty->at(0)})->at(0).scalar<int32_t>() == 0);

  // A lookup whose value_dtype is not the stored value's: TensorFlow hands
  // the mistyped tensor on; dfx refuses it.
  const NodeDef lookup = TestNodeBuilder("l", "TensorMapLookup", 2)
                             .Attr("key_dtype", DT_INT32)
                             .Attr("value_dtype", DT_INT64)
                             .Build();
  CHECK_THAT(
      RunKernel(lookup, {m2->at(0), Tensor::Scalar<int32_t>(2)}).status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "value_dtype"));

  // ZerosLike of a map is an empty map; AddN of maps adds common keys.
  auto zeros = RunKernel(
      TestNodeBuilder("z", "ZerosLike", 1).Attr("T", DT_VARIANT).Build(),
      {m2->at(0)});
  REQUIRE(zeros.ok());
  CHECK(RunKernel(size, {zeros->at(0)})->at(0).scalar<int32_t>() == 0);
  auto sum = RunKernel(TestNodeBuilder("a", "AddN", 2)
                           .Attr("T", DT_VARIANT)
                           .Attr("N", 2)
                           .Build(),
                       {m1->at(0), m2->at(0)});
  REQUIRE(sum.ok());
  const NodeDef lookup_f = TestNodeBuilder("l", "TensorMapLookup", 2)
                               .Attr("key_dtype", DT_INT32)
                               .Attr("value_dtype", DT_FLOAT)
                               .Build();
  auto one = RunKernel(lookup_f, {sum->at(0), Tensor::Scalar<int32_t>(1)});
  REQUIRE(one.ok());
  CHECK(Values<float>(one->at(0)) == std::vector<float>{2, 4});
}

TEST_CASE(
    "TensorMapInsert takes over a map nobody else holds and copies "
    "one someone else does",
    "[tmap]") {
  const NodeDef insert = TestNodeBuilder("i", "TensorMapInsert", 3)
                             .Attr("key_dtype", DT_INT32)
                             .Attr("value_dtype", DT_FLOAT)
                             .Build();
  const Tensor one = Tensor::Scalar<int32_t>(1);
  auto map_of = [](const Tensor& t) -> const TensorMap& {
    const TensorMap* m = t.scalar<Variant>().get<TensorMap>();
    REQUIRE(m != nullptr);
    return *m;
  };
  TensorMap start;
  start.tensors.emplace(one, F32({1}));
  // Held only by the input: the output map is the input's (its entries
  // stay where they were).
  {
    std::vector<Tensor> inputs = {
        VariantScalar(Variant::Make<TensorMap>(start)),
        Tensor::Scalar<int32_t>(2), F32({2})};
    const Tensor* entry = &map_of(inputs[0]).tensors.find(one)->second;
    auto out = RunKernel(insert, inputs);
    REQUIRE(out.ok());
    CHECK(map_of(out->at(0)).tensors.size() == 2);
    CHECK(&map_of(out->at(0)).tensors.find(one)->second == entry);
  }
  // Held elsewhere too: the input keeps its one key.
  const Tensor held = VariantScalar(Variant::Make<TensorMap>(start));
  const Tensor also = held;
  auto out = RunKernel(insert, {held, Tensor::Scalar<int32_t>(2), F32({2})});
  REQUIRE(out.ok());
  CHECK(map_of(out->at(0)).tensors.size() == 2);
  CHECK(map_of(also).tensors.size() == 1);
}

}  // namespace
}  // namespace dfx

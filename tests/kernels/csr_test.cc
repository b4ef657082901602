// The csr family's ops (tests/golden/gen_csr.py: CSR sparse matrices of
// tf.linalg.experimental.sparse): TensorFlow 2.21's signatures and CPU
// kernel types, what their shape functions reject at import, the variant's
// wire layout against TensorFlow's bytes, and the bad input TensorFlow
// trusts (and reads out of bounds on) where dfx answers InvalidArgument.
#include <complex>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "catch2/catch.hpp"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "kernels/map/tensor_map.h"
#include "kernels/sparse/csr_matrix.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/shape_fn_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::InferShape;
using testing::RunKernel;
using testing::StatusIs;
using testing::TestNodeBuilder;

template <typename T>
std::vector<T> Values(const Tensor& t) {
  auto s = t.span<T>();
  return std::vector<T>(s.begin(), s.end());
}

// tf.io.serialize_tensor of DenseToCSRSparseMatrix([[1, 0, 2], [0, 0, 3]])
// as TensorFlow 2.21 wrote it (the metadata's three padding bytes are
// whatever TensorFlow's stack held).
constexpr char kTfCsrBytes[] =
    "08151200227a790a1b74656e736f72666c6f773a3a4353525370617273654d61747269"
    "78120801cf387b010000001a0c0809120412020802520202031a0c0803120412020802"
    "3a0200031a0d08031204120208033a030002031a0d08031204120208033a030002021a"
    "1608011204120208032a0c0000803f0000004000004040";

TensorProto TfCsrProto() {
  TensorProto proto;
  REQUIRE(proto.ParseFromString(absl::HexStringToBytes(kTfCsrBytes)));
  return proto;
}

// The variant's VariantTensorDataProto in those bytes (TensorFlow writes
// it into tensor_content, which dfx's Tensor::FromProto reads).
VariantTensorDataProto TfCsrData() {
  absl::StatusOr<Tensor> t = Tensor::FromProto(TfCsrProto());
  REQUIRE(t.ok());
  const OpaqueVariant* opaque = t->scalar<Variant>().get<OpaqueVariant>();
  REQUIRE(opaque != nullptr);
  return opaque->proto();
}

Tensor VariantScalar(Variant v) {
  Tensor t(DT_VARIANT, TensorShape());
  t.scalar<Variant>() = std::move(v);
  return t;
}

NodeDef ToDense(DataType type) {
  return TestNodeBuilder("to_dense", "CSRSparseMatrixToDense", 1)
      .Attr("type", type)
      .Build();
}

TEST_CASE("Every csr op has TensorFlow 2.21's signature and CPU types",
          "[csr]") {
  testing::CheckSignaturesWithTensorFlow("csr", 11);
}

TEST_CASE("CSR shape functions reject what TensorFlow's reject at import",
          "[csr]") {
  const NodeDef dense = TestNodeBuilder("d", "DenseToCSRSparseMatrix", 2)
                            .Attr("T", DT_FLOAT)
                            .Build();
  CHECK(InferShape(dense,
                   {PartialShape::Known({2, 3}), PartialShape::Known({-1, 2})})
            .ok());
  CHECK_FALSE(
      InferShape(dense, {PartialShape::Known({3}), PartialShape::Known({1, 1})})
          .ok());
  CHECK_FALSE(
      InferShape(dense, {PartialShape::Known({2, 3}), PartialShape::Known({3})})
          .ok());
  CHECK_FALSE(InferShape(dense, {PartialShape::Known({2, 3}),
                                 PartialShape::Known({-1, 3})})
                  .ok());

  for (const char* x : {"a", "b"}) {
    INFO(x);
    const NodeDef mm = TestNodeBuilder("m", "SparseMatrixMatMul", 2)
                           .Attr("T", DT_FLOAT)
                           .Attr(absl::StrCat("transpose_", x), true)
                           .Attr(absl::StrCat("adjoint_", x), true)
                           .Build();
    CHECK_FALSE(
        InferShape(mm, {PartialShape::Scalar(), PartialShape::Known({3, 2})})
            .ok());
    const NodeDef smm = TestNodeBuilder("s", "SparseMatrixSparseMatMul", 2)
                            .Attr("type", DT_FLOAT)
                            .Attr(absl::StrCat("transpose_", x), true)
                            .Attr(absl::StrCat("adjoint_", x), true)
                            .Build();
    CHECK_FALSE(
        InferShape(smm, {PartialShape::Scalar(), PartialShape::Scalar()}).ok());
  }
  // Ranks of a CSR matrix and a dense operand that cannot match.
  const NodeDef mm =
      TestNodeBuilder("m", "SparseMatrixMatMul", 2).Attr("T", DT_FLOAT).Build();
  CHECK_FALSE(
      InferShape(mm, {PartialShape::Scalar(), PartialShape::Known({4})}).ok());
}

TEST_CASE("A CSR matrix TensorFlow serialized decodes, runs and re-encodes",
          "[csr]") {
  absl::StatusOr<Tensor> t = Tensor::FromProto(TfCsrProto());
  REQUIRE(t.ok());
  // dfx's runtime keeps the value opaque; the kernels decode it.
  std::shared_ptr<const CsrSparseMatrix> holder;
  auto m = GetVariantValue<CsrSparseMatrix>(t->scalar<Variant>(), &holder);
  REQUIRE(m.ok());
  REQUIRE(*m != nullptr);
  const CsrSparseMatrix& csr = **m;
  CHECK(csr.dtype() == DT_FLOAT);
  CHECK(Values<int64_t>(csr.dense_shape()) == std::vector<int64_t>{2, 3});
  CHECK(Values<int32_t>(csr.batch_pointers()) == std::vector<int32_t>{0, 3});
  CHECK(Values<int32_t>(csr.row_pointers()) == std::vector<int32_t>{0, 2, 3});
  CHECK(Values<int32_t>(csr.col_indices()) == std::vector<int32_t>{0, 2, 2});
  CHECK(Values<float>(csr.values()) == std::vector<float>{1, 2, 3});

  absl::StatusOr<std::vector<Tensor>> dense =
      RunKernel(ToDense(DT_FLOAT), {*t});
  REQUIRE(dense.ok());
  CHECK(Values<float>((*dense)[0]) == std::vector<float>{1, 0, 2, 0, 0, 3});

  // dfx writes TensorFlow's metadata with zero padding, and the same
  // components.
  VariantTensorDataProto encoded;
  csr.Encode(&encoded);
  CHECK(encoded.metadata() == std::string("\x01\0\0\0\x01\0\0\0", 8));
  const VariantTensorDataProto tf = TfCsrData();
  REQUIRE(encoded.tensors_size() == 5);
  for (int i = 0; i < 5; ++i) {
    INFO(i);
    absl::StatusOr<Tensor> ours = Tensor::FromProto(encoded.tensors(i));
    absl::StatusOr<Tensor> theirs = Tensor::FromProto(tf.tensors(i));
    REQUIRE(ours.ok());
    REQUIRE(theirs.ok());
    CHECK(ours->DebugString(10) == theirs->DebugString(10));
  }
  absl::StatusOr<CsrSparseMatrix> again = CsrSparseMatrix::Decode(encoded);
  REQUIRE(again.ok());
  CHECK(again->total_nnz() == 3);
}

TEST_CASE("A malformed CSR matrix from the wire is InvalidArgument", "[csr]") {
  VariantTensorDataProto data = TfCsrData();
  VariantTensorDataProto* v = &data;
  SECTION("a row pointer past the entries") {
    Tensor rows = Tensor::FromVector<int32_t>({0, 2, 7});
    rows.AsProtoField(v->mutable_tensors(2));
  }
  SECTION("a column index past the columns") {
    Tensor cols = Tensor::FromVector<int32_t>({0, 2, 3});
    cols.AsProtoField(v->mutable_tensors(3));
  }
  SECTION("values of another dtype") {
    Tensor vals = Tensor::FromVector<double>({1, 2, 3});
    vals.AsProtoField(v->mutable_tensors(4));
  }
  SECTION("four tensors") { v->mutable_tensors()->RemoveLast(); }
  CHECK_THAT(CsrSparseMatrix::Decode(*v).status(),
             StatusIs(absl::StatusCode::kInvalidArgument));
  const Tensor t = VariantScalar(Variant::Make<OpaqueVariant>(data));
  CHECK_THAT(RunKernel(ToDense(DT_FLOAT), {t}).status(),
             StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST_CASE(
    "CSR kernels answer InvalidArgument where TensorFlow trusts its "
    "input",
    "[csr]") {
  SECTION("a variant that is not a CSR matrix") {
    CHECK_THAT(
        RunKernel(ToDense(DT_FLOAT), {VariantScalar(Variant())}).status(),
        StatusIs(absl::StatusCode::kInvalidArgument,
                 "Could not retrieve Variant input 0"));
  }
  SECTION("batched indices whose batches are not ascending") {
    Tensor dense(DT_FLOAT, TensorShape({2, 2, 2}));
    for (float& x : dense.span<float>()) x = 1;
    Tensor indices(DT_INT64, TensorShape({2, 3}));
    auto ix = indices.span<int64_t>();
    const int64_t values[] = {1, 0, 0, 0, 1, 1};
    std::copy(values, values + 6, ix.begin());
    const NodeDef node = TestNodeBuilder("d", "DenseToCSRSparseMatrix", 2)
                             .Attr("T", DT_FLOAT)
                             .Build();
    CHECK_THAT(RunKernel(node, {dense, indices}).status(),
               StatusIs(absl::StatusCode::kInvalidArgument, "row-major"));
  }
  SECTION("a Cholesky permutation that is not one") {
    // A 2 x 2 identity.
    Tensor dense(DT_FLOAT, TensorShape({2, 2}));
    const float id[] = {1, 0, 0, 1};
    std::copy(id, id + 4, dense.span<float>().begin());
    Tensor indices(DT_INT64, TensorShape({2, 2}));
    const int64_t ix[] = {0, 0, 1, 1};
    std::copy(ix, ix + 4, indices.span<int64_t>().begin());
    absl::StatusOr<std::vector<Tensor>> csr =
        RunKernel(TestNodeBuilder("d", "DenseToCSRSparseMatrix", 2)
                      .Attr("T", DT_FLOAT)
                      .Build(),
                  {dense, indices});
    REQUIRE(csr.ok());
    const NodeDef chol = TestNodeBuilder("c", "SparseMatrixSparseCholesky", 2)
                             .Attr("type", DT_FLOAT)
                             .Build();
    CHECK(
        RunKernel(chol, {(*csr)[0], Tensor::FromVector<int32_t>({1, 0})}).ok());
    for (const std::vector<int32_t>& bad :
         {std::vector<int32_t>{0, 0}, std::vector<int32_t>{0, 2},
          std::vector<int32_t>{-1, 0}}) {
      CHECK_THAT(
          RunKernel(chol, {(*csr)[0], Tensor::FromVector<int32_t>(bad)})
              .status(),
          StatusIs(absl::StatusCode::kInvalidArgument, "is not a permutation"));
    }
  }
  SECTION("dense shapes too large for int32 pointers") {
    auto from_shape = [](std::vector<int64_t> shape) {
      return RunKernel(TestNodeBuilder("s", "SparseTensorToCSRSparseMatrix", 3)
                           .Attr("T", DT_FLOAT)
                           .Build(),
                       {Tensor(DT_INT64, TensorShape({0, 2})),
                        Tensor(DT_FLOAT, TensorShape({0})),
                        Tensor::FromVector<int64_t>(shape)});
    };
    CHECK_THAT(from_shape({3000000000, 2}).status(),
               StatusIs(absl::StatusCode::kInvalidArgument));
    // Many columns are fine (TensorFlow takes them too), but not as rows.
    absl::StatusOr<std::vector<Tensor>> wide = from_shape({2, 5000000000});
    REQUIRE(wide.ok());
    CHECK_THAT(RunKernel(TestNodeBuilder("t", "SparseMatrixTranspose", 1)
                             .Attr("type", DT_FLOAT)
                             .Build(),
                         {(*wide)[0]})
                   .status(),
               StatusIs(absl::StatusCode::kInvalidArgument));
    CHECK_THAT(RunKernel(TestNodeBuilder("p", "SparseMatrixSparseMatMul", 2)
                             .Attr("type", DT_FLOAT)
                             .Attr("transpose_a", true)
                             .Build(),
                         {(*wide)[0], (*wide)[0]})
                   .status(),
               StatusIs(absl::StatusCode::kInvalidArgument));
  }
  SECTION("transpose_a and adjoint_a both set, at kernel construction") {
    const NodeDef mm = TestNodeBuilder("m", "SparseMatrixMatMul", 2)
                           .Attr("T", DT_FLOAT)
                           .Attr("transpose_a", true)
                           .Attr("adjoint_a", true)
                           .Build();
    absl::StatusOr<Tensor> m = Tensor::FromProto(TfCsrProto());
    REQUIRE(m.ok());
    CHECK_THAT(
        RunKernel(mm, {*m, Tensor(DT_FLOAT, TensorShape({2, 1}))}).status(),
        StatusIs(absl::StatusCode::kInvalidArgument,
                 "Only one of adjoint_a and transpose_a"));
  }
}

}  // namespace
}  // namespace dfx

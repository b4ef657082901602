// Einsum: the CPU kernel against a naive sum over every label assignment
// (transposes, diagonals, traces, broadcasting ellipses, the equations of
// Keras' MultiHeadAttention and EinsumDense), its errors, the equation
// parser and the shape function.
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "graph/ops/einsum_equation.h"
#include "runtime/tensor.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::RunKernel;
using testing::StatusIs;
using testing::TestNodeBuilder;

TensorShape Shape(const std::vector<int64_t>& dims) {
  return TensorShape::Build(dims).value();
}

NodeDef EinsumNode(const std::string& equation, int n, DataType dtype) {
  return TestNodeBuilder("ein", "Einsum", n)
      .Attr("equation", equation.c_str())
      .Attr("N", n)
      .Attr("T", dtype)
      .Build();
}

template <typename T>
Tensor Random(std::mt19937* rng, const std::vector<int64_t>& dims) {
  const TensorShape shape = Shape(dims);
  std::vector<T> values(shape.num_elements());
  for (T& v : values) {
    v = static_cast<T>(std::uniform_int_distribution<int>(-4, 4)(*rng));
  }
  return Tensor::FromVector<T>(values, shape);
}

// out[...] = sum over all label values of the product of the inputs, with
// NumPy broadcasting of the ellipsis dims: the definition of einsum.
Tensor NaiveEinsum(const std::string& equation,
                   const std::vector<Tensor>& inputs) {
  auto eq = ParseEinsumEquation(equation, static_cast<int>(inputs.size()));
  REQUIRE_OK(eq);
  std::vector<int> ranks;
  for (const Tensor& t : inputs) ranks.push_back(t.dims());
  auto r = ResolveEinsum(*eq, ranks);
  REQUIRE_OK(r);
  // A label's size is its dim in any operand where that dim is not 1.
  std::vector<int64_t> size(r->num_labels, -1);
  for (size_t i = 0; i < inputs.size(); ++i) {
    for (int d = 0; d < inputs[i].dims(); ++d) {
      int64_t& s = size[r->inputs[i][d]];
      if (s < 0 || s == 1) s = inputs[i].dim_size(d);
    }
  }
  for (int64_t& s : size) s = s < 0 ? 1 : s;
  std::vector<int64_t> out_dims;
  for (int label : r->output) out_dims.push_back(size[label]);
  Tensor out(DT_DOUBLE, Shape(out_dims));
  std::fill_n(out.data<double>(), out.NumElements(), 0.0);
  for (int64_t s : size) {
    if (s == 0) return out;  // an empty sum
  }
  std::vector<int64_t> value(r->num_labels, 0);
  while (true) {
    double product = 1;
    for (size_t i = 0; i < inputs.size(); ++i) {
      int64_t offset = 0;
      for (int d = 0; d < inputs[i].dims(); ++d) {
        const int64_t dim = inputs[i].dim_size(d);
        offset = offset * dim + (dim == 1 ? 0 : value[r->inputs[i][d]]);
      }
      product *= inputs[i].data<double>()[offset];
    }
    // Repeated output labels address the diagonal; the rest stays 0.
    int64_t offset = 0;
    for (size_t d = 0; d < r->output.size(); ++d) {
      offset = offset * out_dims[d] + value[r->output[d]];
    }
    out.data<double>()[offset] += product;
    int l = r->num_labels - 1;
    for (; l >= 0; --l) {
      if (++value[l] < size[l]) break;
      value[l] = 0;
    }
    if (l < 0) break;
  }
  return out;
}

template <typename T>
void CheckEquation(const std::string& equation,
                   const std::vector<std::vector<int64_t>>& shapes) {
  INFO(equation);
  std::mt19937 rng(7);
  std::vector<Tensor> inputs, as_double;
  for (const auto& dims : shapes) {
    inputs.push_back(Random<T>(&rng, dims));
    Tensor d(DT_DOUBLE, inputs.back().shape());
    for (int64_t i = 0; i < d.NumElements(); ++i) {
      d.data<double>()[i] = static_cast<double>(inputs.back().data<T>()[i]);
    }
    as_double.push_back(d);
  }
  auto got = RunKernel(EinsumNode(equation, static_cast<int>(inputs.size()),
                                  DataTypeToEnum<T>::value),
                       inputs);
  REQUIRE_OK(got);
  const Tensor want = NaiveEinsum(equation, as_double);
  const Tensor& g = (*got)[0];
  REQUIRE(g.shape() == want.shape());
  for (int64_t i = 0; i < want.NumElements(); ++i) {
    INFO("element " << i);
    // Small integers: every dtype's product is exact.
    REQUIRE(static_cast<double>(g.data<T>()[i]) == want.data<double>()[i]);
  }
}

TEMPLATE_TEST_CASE("Einsum matches the definition", "[einsum]", float,
                   double, int32_t, int64_t, Eigen::half, Eigen::bfloat16) {
  using T = TestType;
  // Keras EinsumDense and MultiHeadAttention.
  CheckEquation<T>("abc,cd->abd", {{2, 3, 4}, {4, 5}});
  CheckEquation<T>("abc,cde->abde", {{2, 3, 4}, {4, 2, 3}});
  CheckEquation<T>("abcd,cde->abe", {{2, 3, 2, 4}, {2, 4, 5}});
  CheckEquation<T>("aecd,abcd->acbe", {{2, 3, 2, 4}, {2, 5, 2, 4}});
  CheckEquation<T>("acbe,aecd->abcd", {{2, 2, 5, 3}, {2, 3, 2, 4}});
  // Matrix products, transposed operands, batches, broadcasting.
  CheckEquation<T>("ij,jk->ik", {{3, 4}, {4, 5}});
  CheckEquation<T>("ij,kj->ik", {{3, 4}, {5, 4}});
  CheckEquation<T>("ji,jk->ik", {{4, 3}, {4, 5}});
  CheckEquation<T>("ij,jk->ki", {{3, 4}, {4, 5}});
  CheckEquation<T>("bij,bjk->bik", {{2, 3, 4}, {2, 4, 5}});
  CheckEquation<T>("...ij,...jk->...ik", {{2, 1, 3, 4}, {5, 4, 6}});
  CheckEquation<T>("...ij,...jk->...ik", {{3, 4}, {2, 4, 6}});
  CheckEquation<T>("i...j,j...k->i...k", {{2, 3, 4}, {4, 3, 5}});
  CheckEquation<T>("b...,b...->b...", {{2, 3}, {2, 1}});
  CheckEquation<T>("...,...->...", {{2, 3}, {3}});
  // Element-wise, outer, full contraction, dropped labels.
  CheckEquation<T>("ij,ij->ij", {{3, 4}, {3, 4}});
  CheckEquation<T>("ab,cd->abcd", {{2, 3}, {1, 2}});
  CheckEquation<T>("ab,c->abc", {{2, 3}, {4}});
  CheckEquation<T>("ab,ab->", {{2, 3}, {2, 3}});
  CheckEquation<T>("ab,bc->", {{2, 3}, {3, 4}});
  CheckEquation<T>("abx,bcy->ac", {{2, 3, 2}, {3, 4, 3}});
  // Diagonals and repeated output labels.
  CheckEquation<T>("iij,jk->ik", {{2, 2, 3}, {3, 4}});
  CheckEquation<T>("ii,ij->ij", {{3, 3}, {3, 2}});
  CheckEquation<T>("ij,jk->iik", {{2, 3}, {3, 2}});
  // One operand.
  CheckEquation<T>("ij->ji", {{2, 3}});
  CheckEquation<T>("ii->i", {{3, 3}});
  CheckEquation<T>("ii->", {{3, 3}});
  CheckEquation<T>("i->ii", {{3}});
  CheckEquation<T>("ij->jj", {{2, 3}});
  CheckEquation<T>("abc->a", {{2, 3, 4}});
  CheckEquation<T>("abc->cb", {{2, 3, 4}});
  CheckEquation<T>("...ii->...i", {{2, 3, 3}});
  CheckEquation<T>("ij->ij", {{2, 3}});
  // Empty dims.
  CheckEquation<T>("ij,jk->ik", {{3, 0}, {0, 5}});
  CheckEquation<T>("ij,jk->ik", {{0, 2}, {2, 5}});
  CheckEquation<T>("ij->i", {{2, 0}});
}

TEST_CASE("Einsum runs large products on the intra-op pool") {
  CheckEquation<float>("abc,cd->abd", {{4, 64, 96}, {96, 80}});
  CheckEquation<float>("aecd,abcd->acbe", {{2, 40, 4, 32}, {2, 50, 4, 32}});
  CheckEquation<float>("acbe,aecd->abcd", {{2, 4, 50, 40}, {2, 40, 4, 32}});
  CheckEquation<float>("ij,ij->ij", {{300, 200}, {300, 200}});
  CheckEquation<double>("abc->ac", {{40, 300, 30}});
}

TEST_CASE("Einsum rejects bad equations and shapes") {
  const Tensor m23(DT_FLOAT, TensorShape({2, 3}));
  const Tensor m44(DT_FLOAT, TensorShape({4, 4}));
  const Tensor c234(DT_FLOAT, TensorShape({2, 3, 4}));
  const auto kInvalid = absl::StatusCode::kInvalidArgument;
  REQUIRE_THAT(RunKernel(EinsumNode("ij", 1, DT_FLOAT), {m23}).status(),
               StatusIs(kInvalid, "Expecting exactly one '->'"));
  REQUIRE_THAT(RunKernel(EinsumNode("ij,jk->ik", 2, DT_FLOAT), {m23, m44})
                   .status(),
               StatusIs(kInvalid, "Expected dimension 3"));
  REQUIRE_THAT(RunKernel(EinsumNode("ij,jk->ik", 2, DT_FLOAT), {c234, m44})
                   .status(),
               StatusIs(kInvalid, "rank 3"));
  REQUIRE_THAT(
      RunKernel(EinsumNode("...ij,...jk->ik", 2, DT_FLOAT), {c234, c234})
          .status(),
      StatusIs(kInvalid, "at most rank 0"));
  REQUIRE_THAT(RunKernel(EinsumNode("ij->ik", 1, DT_FLOAT), {m23}).status(),
               StatusIs(kInvalid, "label 'k' which is not present"));
  REQUIRE_THAT(RunKernel(EinsumNode("ij,jk->ik", 1, DT_FLOAT), {m23}).status(),
               StatusIs(kInvalid, "Expecting 1 input subscripts"));
  REQUIRE_THAT(RunKernel(EinsumNode("i.j->ij", 1, DT_FLOAT), {m23}).status(),
               StatusIs(kInvalid, "ellipsis"));
  REQUIRE_THAT(RunKernel(EinsumNode("i1->i", 1, DT_FLOAT), {m23}).status(),
               StatusIs(kInvalid, "Invalid character"));
  REQUIRE_FALSE(RunKernel(EinsumNode("ij->ij", 1, DT_BOOL),
                          {Tensor(DT_BOOL, TensorShape({1, 1}))})
                    .ok());
}

TEST_CASE("Einsum's equation parser takes TensorFlow's forms") {
  auto eq = ParseEinsumEquation("a...b,bc->...ac", 2);
  REQUIRE_OK(eq);
  REQUIRE(eq->letters == "abc");
  REQUIRE(eq->inputs[0] == std::vector<int>{0, EinsumEquation::kEllipsis, 1});
  REQUIRE(eq->output == std::vector<int>{EinsumEquation::kEllipsis, 0, 2});
  REQUIRE_THAT(ParseEinsumEquation("a,b,c->abc", 3).status(),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "Expecting 1 or 2 input subscripts"));
  REQUIRE_THAT(ParseEinsumEquation("a->b->c", 1).status(),
               StatusIs(absl::StatusCode::kInvalidArgument, "exactly one"));
  REQUIRE_THAT(ParseEinsumEquation("......->", 1).status(),
               StatusIs(absl::StatusCode::kInvalidArgument, "ellipsis"));
}

// Runs Einsum's shape function.
absl::Status InferEinsum(const std::string& equation,
                         std::vector<PartialShape> inputs, PartialShape* out) {
  const OpRegistrationData* op = OpRegistry::Global()->LookUp("Einsum");
  REQUIRE(op != nullptr);
  NodeDef node =
      EinsumNode(equation, static_cast<int>(inputs.size()), DT_FLOAT);
  AddDefaultAttrs(op->op_def, &node);
  const size_t n = inputs.size();
  InferenceContext c(node, op->op_def, std::move(inputs),
                     std::vector<const TensorProto*>(n, nullptr), 1);
  absl::Status s = op->shape_fn(&c);
  *out = c.output(0);
  return s;
}

TEST_CASE("Einsum's shape function") {
  PartialShape out;
  REQUIRE_OK(InferEinsum("abc,cd->abd",
                         {PartialShape::Known({2, -1, 4}),
                          PartialShape::Known({4, 5})},
                         &out));
  REQUIRE(out.DebugString() == "[2,?,5]");
  REQUIRE_OK(InferEinsum("...ij,...jk->...ik",
                         {PartialShape::Known({2, 1, 3, 4}),
                          PartialShape::Known({5, 4, 6})},
                         &out));
  REQUIRE(out.DebugString() == "[2,5,3,6]");
  REQUIRE_OK(InferEinsum("ii->i", {PartialShape::Known({3, 3})}, &out));
  REQUIRE(out.DebugString() == "[3]");
  REQUIRE_OK(InferEinsum("ij,jk->ik",
                         {PartialShape::Unknown(), PartialShape::Known({4, 5})},
                         &out));
  REQUIRE(out.DebugString() == "[?,?]");
  REQUIRE_THAT(InferEinsum("ij,jk->ik",
                           {PartialShape::Known({2, 3}),
                            PartialShape::Known({4, 4})},
                           &out),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "node 'ein' (op Einsum): Dimensions must be equal"));
  REQUIRE_THAT(InferEinsum("...ij,...jk->ik",
                           {PartialShape::Known({2, 3, 4}),
                            PartialShape::Known({2, 4, 5})},
                           &out),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "at most rank 0"));
  REQUIRE_THAT(InferEinsum("ij", {PartialShape::Known({2, 3})}, &out),
               StatusIs(absl::StatusCode::kInvalidArgument, "'->'"));
}

}  // namespace
}  // namespace dfx

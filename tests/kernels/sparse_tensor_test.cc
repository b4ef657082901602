// SparseToDense, SparseTensorDenseMatMul, SparseReshape, SparseFillEmptyRows
// and its gradient (kernels/sparse/sparse_tensor_ops.cc): the dtypes the
// "sparse" golden family cannot carry (strings, complex) and every error
// path, with TensorFlow's messages.
#include <cmath>
#include <complex>
#include <cstdint>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "tests/kernels/math_test_util.h"

namespace dfx {
namespace {

using testing::MakeTensor;
using testing::MakeVector;
using testing::RunError;
using testing::RunKernel;
using testing::RunOne;
using testing::StatusIs;
using testing::TestNodeBuilder;
using testing::Values;

constexpr auto kInvalid = absl::StatusCode::kInvalidArgument;

Tensor I64(std::initializer_list<int64_t> v, TensorShape shape) {
  return MakeTensor<int64_t>(v, shape);
}

NodeDef ToDense(DataType t, bool validate = true) {
  return TestNodeBuilder("d", "SparseToDense", 4)
      .Attr("T", t)
      .Attr("Tindices", DT_INT64)
      .Attr("validate_indices", validate)
      .Build();
}

TEST_CASE("SparseToDense fills strings around the given entries", "[sparse]") {
  Tensor values(DT_STRING, TensorShape({2}));
  values.data<std::string>()[0] = "a";
  values.data<std::string>()[1] = "bc";
  Tensor out = RunOne(ToDense(DT_STRING),
                      {I64({0, 1, 1, 0}, TensorShape({2, 2})),
                       MakeVector<int64_t>({2, 2}), values,
                       Tensor::Scalar<std::string>("-")});
  REQUIRE(Values<std::string>(out) ==
          std::vector<std::string>({"-", "a", "bc", "-"}));
}

TEST_CASE("SparseToDense rejects bad entries with TensorFlow's messages",
          "[sparse]") {
  const Tensor one = Tensor::Scalar<float>(1), zero = Tensor::Scalar<float>(0);
  const Tensor shape = MakeVector<int64_t>({2});
  REQUIRE_THAT(RunError(ToDense(DT_FLOAT), {I64({1, 0}, TensorShape({2, 1})),
                                            shape, one, zero}),
               StatusIs(kInvalid, "indices[1] = [0] is out of order"));
  REQUIRE_THAT(RunError(ToDense(DT_FLOAT), {I64({1, 1}, TensorShape({2, 1})),
                                            shape, one, zero}),
               StatusIs(kInvalid, "indices[1] = [1] is repeated"));
  REQUIRE_THAT(
      RunError(ToDense(DT_FLOAT), {I64({0, 1, 1, 5}, TensorShape({2, 2})),
                                   MakeVector<int64_t>({2, 3}), one, zero}),
      StatusIs(kInvalid,
               "indices[1] = [1,5] is out of bounds: need 0 <= index < [2,3]"));
  REQUIRE_THAT(
      RunError(ToDense(DT_FLOAT, false),
               {I64({0, 1, 1, 5}, TensorShape({2, 2})),
                MakeVector<int64_t>({2, 3}), one, zero}),
      StatusIs(kInvalid, "Indices are not valid (out of bounds).  Shape: [2,3]"));
  REQUIRE_THAT(RunError(ToDense(DT_FLOAT), {I64({0}, TensorShape({1, 1, 1})),
                                            shape, one, zero}),
               StatusIs(kInvalid, "should be a scalar, vector, or matrix"));
  REQUIRE_THAT(RunError(ToDense(DT_FLOAT), {I64({0}, TensorShape({1, 1})),
                                            MakeVector<int64_t>({2, 2}), one,
                                            zero}),
               StatusIs(kInvalid, "output_shape has incorrect number of "
                                  "elements: 2 should be: 1"));
  REQUIRE_THAT(RunError(ToDense(DT_FLOAT), {I64({0}, TensorShape({1, 1})),
                                            shape, MakeVector<float>({1, 2}),
                                            zero}),
               StatusIs(kInvalid, "sparse_values has incorrect shape [2], "
                                  "should be [] or [1]"));
  REQUIRE_THAT(RunError(ToDense(DT_FLOAT), {I64({0}, TensorShape({1, 1})),
                                            shape, one, MakeVector<float>({0})}),
               StatusIs(kInvalid, "default_value should be a scalar."));
  REQUIRE_THAT(RunError(ToDense(DT_FLOAT), {I64({0}, TensorShape({1, 1})),
                                            MakeVector<int64_t>({-2}), one,
                                            zero}),
               StatusIs(kInvalid, "Dimension -2 must be >= 0"));
}

NodeDef MatMul(DataType t, bool adj_a, bool adj_b) {
  return TestNodeBuilder("m", "SparseTensorDenseMatMul", 4)
      .Attr("T", t)
      .Attr("adjoint_a", adj_a)
      .Attr("adjoint_b", adj_b)
      .Build();
}

TEST_CASE("SparseTensorDenseMatMul conjugates complex adjoints", "[sparse]") {
  using C = std::complex<float>;
  // A = [[0, i], [2, 0]] as entries (0,1)=i, (1,0)=2; B = [[1], [1+i]].
  const Tensor ind = I64({0, 1, 1, 0}, TensorShape({2, 2}));
  const Tensor av = MakeVector<C>({C(0, 1), C(2, 0)});
  const Tensor shape = MakeVector<int64_t>({2, 2});
  Tensor plain = RunOne(MatMul(DT_COMPLEX64, false, false),
                        {ind, av, shape,
                         MakeTensor<C>({C(1, 0), C(1, 1)}, TensorShape({2, 1}))});
  REQUIRE(Values<C>(plain) == std::vector<C>({C(-1, 1), C(2, 0)}));
  // A^H = [[0, 2], [-i, 0]]; B^H of [[1, 1+i]] is [[1], [1-i]].
  Tensor adj = RunOne(MatMul(DT_COMPLEX64, true, true),
                      {ind, av, shape,
                       MakeTensor<C>({C(1, 0), C(1, 1)}, TensorShape({1, 2}))});
  REQUIRE(Values<C>(adj) == std::vector<C>({C(2, -2), C(0, -1)}));
}

TEST_CASE("SparseTensorDenseMatMul rejects bad inputs as TensorFlow",
          "[sparse]") {
  const NodeDef node = MatMul(DT_FLOAT, false, false);
  const Tensor b = MakeTensor<float>({1, 2}, TensorShape({1, 2}));
  REQUIRE_THAT(RunError(node, {I64({0, 5}, TensorShape({1, 2})),
                               MakeVector<float>({1}),
                               MakeVector<int64_t>({2, 1}), b}),
               StatusIs(kInvalid, "k (5) from index[0,1] out of bounds (>=1)"));
  REQUIRE_THAT(RunError(node, {I64({4, 0}, TensorShape({1, 2})),
                               MakeVector<float>({1}),
                               MakeVector<int64_t>({2, 1}), b}),
               StatusIs(kInvalid, "m (4) from index[0,0] out of bounds (>=2)"));
  REQUIRE_THAT(RunError(MatMul(DT_FLOAT, true, false),
                        {I64({0, 4}, TensorShape({1, 2})),
                         MakeVector<float>({1}), MakeVector<int64_t>({1, 2}), b}),
               StatusIs(kInvalid, "m (4) from index[0,1] out of bounds (>=2)"));
  REQUIRE_THAT(RunError(node, {I64({0, 0}, TensorShape({1, 2})),
                               MakeVector<float>({1}),
                               MakeVector<int64_t>({2, 3}), b}),
               StatusIs(kInvalid, "inner dimension does not match: 3 vs. 1"));
  REQUIRE_THAT(RunError(node, {I64({0, 0}, TensorShape({1, 2})),
                               MakeVector<float>({1}),
                               MakeVector<int64_t>({-2, 1}), b}),
               StatusIs(kInvalid, "non-negative"));
  REQUIRE_THAT(RunError(node, {I64({0, 0}, TensorShape({1, 2})),
                               MakeVector<float>({1, 2}),
                               MakeVector<int64_t>({2, 1}), b}),
               StatusIs(kInvalid, "Number of rows of a_indices does not match"));
  REQUIRE_THAT(RunError(node, {I64({0, 0}, TensorShape({1, 2})),
                               MakeVector<float>({1}),
                               MakeVector<int64_t>({2, 1}),
                               MakeVector<float>({1, 2})}),
               StatusIs(kInvalid, "Tensor 'b' is not a matrix"));
  REQUIRE_THAT(RunError(node, {I64({0, 0}, TensorShape({1, 2})),
                               MakeVector<float>({1}),
                               MakeVector<int64_t>({2, 1, 1}), b}),
               StatusIs(kInvalid, "Tensor 'a_shape' must have 2 elements"));
}

NodeDef Reshape() {
  return TestNodeBuilder("r", "SparseReshape", 3).Build();
}

TEST_CASE("SparseReshape moves entries and checks the new shape", "[sparse]") {
  absl::StatusOr<std::vector<Tensor>> out =
      RunKernel(Reshape(), {I64({1, 2, 0, 1}, TensorShape({2, 2})),
                            MakeVector<int64_t>({2, 3}),
                            MakeVector<int64_t>({3, -1})});
  REQUIRE(out.ok());
  REQUIRE(Values<int64_t>((*out)[0]) == std::vector<int64_t>({2, 1, 0, 1}));
  REQUIRE(Values<int64_t>((*out)[1]) == std::vector<int64_t>({3, 2}));
  const Tensor ind = I64({1}, TensorShape({1, 1}));
  REQUIRE_THAT(RunError(Reshape(), {ind, MakeVector<int64_t>({4}),
                                    MakeVector<int64_t>({-1, -1})}),
               StatusIs(kInvalid, "only one output dimension may be -1, not "
                                  "both 0 and 1"));
  REQUIRE_THAT(RunError(Reshape(), {ind, MakeVector<int64_t>({4}),
                                    MakeVector<int64_t>({-2, 2})}),
               StatusIs(kInvalid, "size 0 must be non-negative, not -2"));
  REQUIRE_THAT(RunError(Reshape(), {ind, MakeVector<int64_t>({5}),
                                    MakeVector<int64_t>({-1, 2})}),
               StatusIs(kInvalid, "requires a multiple of 2"));
  REQUIRE_THAT(RunError(Reshape(), {ind, MakeVector<int64_t>({5}),
                                    MakeVector<int64_t>({-1, 0})}),
               StatusIs(kInvalid, "reshape cannot infer the missing input"));
  REQUIRE_THAT(RunError(Reshape(), {ind, MakeVector<int64_t>({5}),
                                    MakeVector<int64_t>({2, 2})}),
               StatusIs(kInvalid, "Input to reshape is a tensor with 5 dense "
                                  "values, but the requested shape has 4. "
                                  "input_shape=[5] output_shape=[2,2]"));
  REQUIRE_THAT(RunError(Reshape(), {I64({1, 0}, TensorShape({1, 2})),
                                    MakeVector<int64_t>({2}),
                                    MakeVector<int64_t>({2})}),
               StatusIs(kInvalid, "Input tensor rank must match input shape "
                                  "length."));
  REQUIRE_THAT(RunError(Reshape(), {MakeVector<int64_t>({1}),
                                    MakeVector<int64_t>({2}),
                                    MakeVector<int64_t>({2})}),
               StatusIs(kInvalid, "Input must be a matrix."));
  REQUIRE_THAT(RunError(Reshape(), {I64({1, 1}, TensorShape({1, 2})),
                                    MakeVector<int64_t>({-2, -3}),
                                    MakeVector<int64_t>({6})}),
               StatusIs(kInvalid, "non-negative, got -2"));
}

NodeDef Fill(DataType t) {
  return TestNodeBuilder("f", "SparseFillEmptyRows", 4).Attr("T", t).Build();
}

TEST_CASE("SparseFillEmptyRows fills string rows and groups unordered rows",
          "[sparse]") {
  Tensor values(DT_STRING, TensorShape({3}));
  values.data<std::string>()[0] = "x";
  values.data<std::string>()[1] = "y";
  values.data<std::string>()[2] = "z";
  absl::StatusOr<std::vector<Tensor>> out = RunKernel(
      Fill(DT_STRING), {I64({2, 1, 0, 3, 2, 0}, TensorShape({3, 2})), values,
                        MakeVector<int64_t>({4, 4}),
                        Tensor::Scalar<std::string>("")});
  REQUIRE(out.ok());
  REQUIRE(Values<int64_t>((*out)[0]) ==
          std::vector<int64_t>({0, 3, 1, 0, 2, 1, 2, 0, 3, 0}));
  REQUIRE(Values<std::string>((*out)[1]) ==
          std::vector<std::string>({"y", "", "x", "z", ""}));
  REQUIRE(Values<bool>((*out)[2]) ==
          std::vector<bool>({false, true, false, true}));
  REQUIRE(Values<int64_t>((*out)[3]) == std::vector<int64_t>({2, 0, 3}));
}

TEST_CASE("SparseFillEmptyRows and its gradient reject bad inputs",
          "[sparse]") {
  const Tensor v = MakeVector<float>({1});
  const Tensor zero = Tensor::Scalar<float>(0);
  REQUIRE_THAT(RunError(Fill(DT_FLOAT), {I64({3, 0}, TensorShape({1, 2})), v,
                                         MakeVector<int64_t>({2, 2}), zero}),
               StatusIs(kInvalid, "indices(0, 0) is invalid: 3 >= 2"));
  REQUIRE_THAT(RunError(Fill(DT_FLOAT), {I64({0, 0}, TensorShape({1, 2})), v,
                                         MakeVector<int64_t>({0, 2}), zero}),
               StatusIs(kInvalid, "dense_shape[0] = 0 but indices.shape[0] = 1"));
  REQUIRE_THAT(RunError(Fill(DT_FLOAT), {I64({0, 0}, TensorShape({1, 2})),
                                         MakeVector<float>({1, 2}),
                                         MakeVector<int64_t>({2, 2}), zero}),
               StatusIs(kInvalid, "The length of `values` (2) must match the "
                                  "first dimension of `indices` (1)."));
  REQUIRE_THAT(RunError(Fill(DT_FLOAT), {I64({0, 0}, TensorShape({1, 2})), v,
                                         MakeVector<int64_t>({2, 2, 2}), zero}),
               StatusIs(kInvalid, "The length of `dense_shape` (3) must match"));
  REQUIRE_THAT(RunError(Fill(DT_FLOAT), {I64({}, TensorShape({0, 0})),
                                         MakeVector<float>({}),
                                         MakeVector<int64_t>({}), zero}),
               StatusIs(kInvalid, "Dense shape cannot be empty."));
  REQUIRE_THAT(RunError(Fill(DT_FLOAT), {I64({0, 0}, TensorShape({1, 2})), v,
                                         MakeVector<int64_t>({2, 2}), v}),
               StatusIs(kInvalid, "default_value must be a scalar, saw: [1]"));
  NodeDef grad = TestNodeBuilder("g", "SparseFillEmptyRowsGrad", 2)
                     .Attr("T", DT_FLOAT)
                     .Build();
  REQUIRE_THAT(RunError(grad, {MakeVector<int64_t>({0, 5}),
                               MakeVector<float>({1, 2, 3})}),
               StatusIs(kInvalid, "Elements in reverse index must be in [0, 3) "
                                  "but got 5"));
  REQUIRE_THAT(RunError(grad, {MakeVector<int64_t>({0}),
                               MakeTensor<float>({1, 2, 3}, TensorShape({1, 3}))}),
               StatusIs(kInvalid, "grad_values must be a vector, saw: [1,3]"));
}

TEST_CASE("SparseReorder sorts string entries and checks its operands",
          "[sparse]") {
  NodeDef node =
      TestNodeBuilder("r", "SparseReorder", 3).Attr("T", DT_STRING).Build();
  Tensor values(DT_STRING, TensorShape({3}));
  values.data<std::string>()[0] = "c";
  values.data<std::string>()[1] = "a";
  values.data<std::string>()[2] = "b";
  absl::StatusOr<std::vector<Tensor>> out =
      RunKernel(node, {I64({1, 0, 0, 0, 0, 1}, TensorShape({3, 2})), values,
                       MakeVector<int64_t>({2, 2})});
  REQUIRE(out.ok());
  REQUIRE(Values<int64_t>((*out)[0]) ==
          std::vector<int64_t>({0, 0, 0, 1, 1, 0}));
  REQUIRE(Values<std::string>((*out)[1]) ==
          std::vector<std::string>({"a", "b", "c"}));
  REQUIRE_THAT(RunKernel(node, {I64({1, 0}, TensorShape({1, 2})), values,
                                MakeVector<int64_t>({2, 2})})
                   .status(),
               StatusIs(kInvalid, "Number of elements in indices (1) and "
                                  "values (3) do not match"));
  REQUIRE_THAT(RunKernel(node, {I64({1, 0, 0, 0, 0, 1}, TensorShape({3, 2})),
                                values, MakeVector<int64_t>({2, 2, 2})})
                   .status(),
               StatusIs(kInvalid, "Index rank (2) and shape rank (3) do not "
                                  "match"));
  REQUIRE_THAT(RunKernel(node, {MakeVector<int64_t>({1, 0, 0}), values,
                                MakeVector<int64_t>({2})})
                   .status(),
               StatusIs(kInvalid, "Sparse indices must be rank 2 but is rank 1"));
}

TEST_CASE("SparseSlice, SparseConcat and SparseSplit reject bad operands",
          "[sparse]") {
  const Tensor ind = I64({0, 0, 1, 1}, TensorShape({2, 2}));
  const Tensor val = MakeVector<float>({1, 2});
  const Tensor shape = MakeVector<int64_t>({2, 2});
  NodeDef slice =
      TestNodeBuilder("s", "SparseSlice", 5).Attr("T", DT_FLOAT).Build();
  REQUIRE_THAT(RunError(slice, {ind, val, shape, MakeVector<int64_t>({0, 0}),
                                MakeVector<int64_t>({-1, 2})}),
               StatusIs(kInvalid, "Expected a non-negative size, got -1"));
  REQUIRE_THAT(RunError(slice, {ind, val, shape, MakeVector<int64_t>({0}),
                                MakeVector<int64_t>({1, 1})}),
               StatusIs(kInvalid, "Expected start to be a vector of length 2 "
                                  "but got length 1"));
  NodeDef concat = TestNodeBuilder("c", "SparseConcat", 6)
                       .Attr("T", DT_FLOAT)
                       .Attr("N", 2)
                       .Attr("concat_dim", 2)
                       .Build();
  REQUIRE_THAT(RunError(concat, {ind, ind, val, val, shape, shape}),
               StatusIs(kInvalid, "Concat dimension must be in range [-2, 2), "
                                  "got 2"));
  (*concat.mutable_attr())["concat_dim"].set_i(0);
  REQUIRE_THAT(RunError(concat, {ind, ind, val, val, shape,
                                 MakeVector<int64_t>({2, 3})}),
               StatusIs(kInvalid, "Input shapes must match: expected 2 for "
                                  "dimension 1 but got 3 at position 1"));
  NodeDef split = TestNodeBuilder("p", "SparseSplit", 4)
                      .Attr("T", DT_FLOAT)
                      .Attr("num_split", 3)
                      .Build();
  REQUIRE_THAT(RunError(split, {Tensor::Scalar<int64_t>(0), ind, val, shape}),
               StatusIs(kInvalid, "Input num_split should be between 1 and the "
                                  "splitting dimension size (2), got 3"));
  REQUIRE_THAT(RunError(split, {Tensor::Scalar<int64_t>(2), ind, val, shape}),
               StatusIs(kInvalid, "Input axis should be in range [-2, 2), got 2"));
}

TEST_CASE("Sparse-dense ops reject bad indices and shapes", "[sparse]") {
  NodeDef add = TestNodeBuilder("a", "SparseTensorDenseAdd", 4)
                    .Attr("T", DT_FLOAT)
                    .Attr("Tindices", DT_INT64)
                    .Build();
  const Tensor b = MakeTensor<float>({1, 2, 3, 4, 5, 6}, TensorShape({2, 3}));
  REQUIRE_THAT(RunError(add, {I64({0, 1, 1, 3}, TensorShape({2, 2})),
                              MakeVector<float>({1, 2}),
                              MakeVector<int64_t>({2, 3}), b}),
               StatusIs(kInvalid, "Sparse tensor has an invalid index on "
                                  "dimension 1: a_indices(1,1) = 3, dense "
                                  "tensor shape: 2 3"));
  REQUIRE_THAT(RunError(add, {I64({0, 1}, TensorShape({1, 2})),
                              MakeVector<float>({1}),
                              MakeVector<int64_t>({2, 4}), b}),
               StatusIs(kInvalid, "Dimension 1 does not equal (no broadcasting "
                                  "is supported): sparse side 4 vs dense side "
                                  "3"));
  NodeDef mul =
      TestNodeBuilder("m", "SparseDenseCwiseMul", 4).Attr("T", DT_FLOAT).Build();
  REQUIRE_THAT(RunError(mul, {I64({0, 1}, TensorShape({1, 2})),
                              MakeVector<float>({1}),
                              MakeVector<int64_t>({2, 3}),
                              MakeVector<float>({1, 2})}),
               StatusIs(kInvalid, "broadcasts dense to sparse only; got "
                                  "incompatible shapes: [2,3] vs. [2]"));
  REQUIRE_THAT(RunError(mul, {I64({0, 5}, TensorShape({1, 2})),
                              MakeVector<float>({1}),
                              MakeVector<int64_t>({2, 3}), b}),
               StatusIs(kInvalid, "Provided indices are out-of-bounds"));
  NodeDef div =
      TestNodeBuilder("d", "SparseDenseCwiseDiv", 4).Attr("T", DT_INT32).Build();
  REQUIRE_THAT(RunError(div, {I64({0, 1}, TensorShape({1, 2})),
                              MakeVector<int32_t>({7}),
                              MakeVector<int64_t>({2, 3}),
                              MakeTensor<int32_t>({1, 0, 1}, TensorShape({1, 3}))}),
               StatusIs(kInvalid, "Integer division by zero"));
}

TEST_CASE("SparseReduceSum and SparseReduceMax check their axes", "[sparse]") {
  NodeDef sum =
      TestNodeBuilder("s", "SparseReduceSum", 4).Attr("T", DT_FLOAT).Build();
  const Tensor ind = I64({0, 1, 1, 2, 0, 0}, TensorShape({3, 2}));
  const Tensor val = MakeVector<float>({1, -2, 3});
  const Tensor shape = MakeVector<int64_t>({2, 3});
  REQUIRE_THAT(RunError(sum, {ind, val, shape, MakeVector<int32_t>({2})}),
               StatusIs(kInvalid, "Invalid reduction dimension 2, for input "
                                  "with 2 dimensions."));
  // Kept coordinates outside the shape would write past the output.
  REQUIRE_THAT(RunError(sum, {I64({5, 0}, TensorShape({1, 2})),
                              MakeVector<float>({1}), shape,
                              MakeVector<int32_t>({1})}),
               StatusIs(kInvalid, "out of bounds on dimension 0"));
  NodeDef max =
      TestNodeBuilder("m", "SparseReduceMax", 4).Attr("T", DT_FLOAT).Build();
  // Cells with no entries are 0; others the max of their entries only.
  REQUIRE(Values<float>(RunOne(max, {I64({1, 0}, TensorShape({1, 2})),
                                     MakeVector<float>({-5}), shape,
                                     MakeVector<int32_t>({1})})) ==
          std::vector<float>({0, -5}));
}

TEST_CASE("SparseSoftmax works per row in sorted order and checks its rank",
          "[sparse]") {
  NodeDef node =
      TestNodeBuilder("s", "SparseSoftmax", 3).Attr("T", DT_DOUBLE).Build();
  // Row 0 holds 0 and log(3) (given out of order): softmax 1/4, 3/4.
  Tensor out = RunOne(node, {I64({0, 2, 1, 1, 0, 0}, TensorShape({3, 2})),
                             MakeVector<double>({std::log(3.0), 5, 0}),
                             MakeVector<int64_t>({2, 3})});
  const std::vector<double> got = Values<double>(out);
  REQUIRE(got.size() == 3);
  CHECK(got[0] == Approx(0.25));
  CHECK(got[1] == Approx(0.75));
  CHECK(got[2] == 1.0);
  REQUIRE_THAT(RunError(node, {I64({0, 2}, TensorShape({2, 1})),
                               MakeVector<double>({1, 2}),
                               MakeVector<int64_t>({3})}),
               StatusIs(kInvalid, "Input should have rank >= 2, but received "
                                  "shape: 3"));
}

TEST_CASE("SparseAddGrad and SparseSliceGrad route gradients and check "
          "their inputs", "[sparse]") {
  NodeDef add_grad =
      TestNodeBuilder("g", "SparseAddGrad", 4).Attr("T", DT_FLOAT).Build();
  // a[1,1] was dropped from the sum: its gradient is 0.
  absl::StatusOr<std::vector<Tensor>> out = RunKernel(
      add_grad, {MakeVector<float>({1, 2, 3, 4}),
                 I64({0, 0, 0, 2, 1, 1}, TensorShape({3, 2})),
                 I64({0, 1, 0, 2, 1, 0}, TensorShape({3, 2})),
                 I64({0, 0, 0, 1, 0, 2, 1, 0}, TensorShape({4, 2}))});
  REQUIRE(out.ok());
  REQUIRE(Values<float>((*out)[0]) == std::vector<float>({1, 3, 0}));
  REQUIRE(Values<float>((*out)[1]) == std::vector<float>({2, 3, 4}));
  REQUIRE_THAT(RunError(add_grad, {MakeVector<float>({1, 2}),
                                   I64({0, 0}, TensorShape({1, 2})),
                                   I64({0, 1}, TensorShape({1, 2})),
                                   I64({0, 0, 0, 1, 0, 2}, TensorShape({3, 2}))}),
               StatusIs(kInvalid, "# elements of backprop_val_grad and # rows "
                                  "of sum_indices should match (#nnz of sum): "
                                  "got 2 and 3"));
  NodeDef slice_grad =
      TestNodeBuilder("g", "SparseSliceGrad", 4).Attr("T", DT_FLOAT).Build();
  REQUIRE_THAT(RunKernel(slice_grad, {MakeVector<float>({10, 20}),
                                      I64({0, 0, 0, 3}, TensorShape({2, 2})),
                                      MakeVector<int64_t>({0, 1}),
                                      I64({0, 2, 1, 0}, TensorShape({2, 2}))})
                   .status(),
               StatusIs(absl::StatusCode::kInternal,
                        "Elements of backprop_val_grad aren't all propagated. "
                        "Num elements:2, used: 1"));
}

TEST_CASE("A wide SparseTensorDenseMatMul matches a plain loop", "[sparse]") {
  // 40000 output columns: split over the intra-op pool.
  const int64_t k = 3, n = 40000;
  std::vector<int32_t> b(k * n);
  for (int64_t i = 0; i < k * n; ++i) b[i] = static_cast<int32_t>(i % 23) - 11;
  Tensor out = RunOne(
      TestNodeBuilder("m", "SparseTensorDenseMatMul", 4)
          .Attr("T", DT_INT32)
          .Attr("Tindices", DT_INT32)
          .Build(),
      {MakeTensor<int32_t>({0, 2, 1, 0, 0, 0, 0, 2}, TensorShape({4, 2})),
       MakeVector<int32_t>({2, -1, 3, 5}), MakeVector<int64_t>({2, k}),
       Tensor::FromVector<int32_t>(b, TensorShape({k, n}))});
  std::vector<int32_t> want(2 * n, 0);
  for (int64_t c = 0; c < n; ++c) {
    want[c] = 2 * b[2 * n + c] + 3 * b[c] + 5 * b[2 * n + c];
    want[n + c] = -1 * b[c];
  }
  REQUIRE(Values<int32_t>(out) == want);
}

NodeDef Add(DataType t, DataType treal) {
  return TestNodeBuilder("a", "SparseAdd", 7)
      .Attr("T", t)
      .Attr("Treal", treal)
      .Build();
}

TEST_CASE("SparseAdd merges entries and drops small complex sums", "[sparse]") {
  using C = std::complex<float>;
  const Tensor shape = MakeVector<int64_t>({4});
  absl::StatusOr<std::vector<Tensor>> out = RunKernel(
      Add(DT_COMPLEX64, DT_FLOAT),
      {I64({0, 2}, TensorShape({2, 1})), MakeVector<C>({C(1, 1), C(3, 4)}),
       shape, I64({2, 3}, TensorShape({2, 1})),
       MakeVector<C>({C(-3, -3.5f), C(0, 0.25f)}), shape,
       Tensor::Scalar<float>(0.6f)});
  REQUIRE(out.ok());
  // |(3+4i) + (-3-3.5i)| = 0.5 < 0.6: dropped. One-sided entries stay.
  REQUIRE(Values<int64_t>((*out)[0]) == std::vector<int64_t>({0, 3}));
  REQUIRE(Values<C>((*out)[1]) == std::vector<C>({C(1, 1), C(0, 0.25f)}));
  REQUIRE(Values<int64_t>((*out)[2]) == std::vector<int64_t>({4}));
}

TEST_CASE("SparseAdd rejects mismatched operands as TensorFlow", "[sparse]") {
  const NodeDef node = Add(DT_FLOAT, DT_FLOAT);
  const Tensor ind = I64({0, 1}, TensorShape({1, 2}));
  const Tensor v = MakeVector<float>({1});
  const Tensor shape = MakeVector<int64_t>({2, 2});
  const Tensor th = Tensor::Scalar<float>(0);
  REQUIRE_THAT(RunError(node, {ind, v, shape, ind, v,
                               MakeVector<int64_t>({2, 3}), th}),
               StatusIs(kInvalid, "Operands' shapes do not match: got 2 and 3 "
                                  "for dimension 1"));
  REQUIRE_THAT(RunError(node, {ind, v, shape, I64({0, 1, 0}, TensorShape({1, 3})),
                               v, MakeVector<int64_t>({2, 2, 2}), th}),
               StatusIs(kInvalid, "Input indices must have the same dimension, "
                                  "got 2 and 3"));
  REQUIRE_THAT(RunError(node, {MakeVector<int64_t>({0, 1}), v, shape, ind, v,
                               shape, th}),
               StatusIs(kInvalid, "Input indices should be matrices but "
                                  "received shapes: [2] and [1,2]"));
  REQUIRE_THAT(RunError(node, {ind, MakeVector<float>({1, 2}), shape, ind, v,
                               shape, th}),
               StatusIs(kInvalid, "Expected 1 and 1 non-empty input values, "
                                  "got 2 and 1"));
  REQUIRE_THAT(RunError(node, {ind, v, shape, ind, v, shape,
                               MakeVector<float>({0})}),
               StatusIs(kInvalid, "The magnitude threshold must be a scalar: "
                                  "got shape [1]"));
}

}  // namespace
}  // namespace dfx

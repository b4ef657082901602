// Reshape, Shape, ExpandDims and Squeeze kernels: results are views of the
// input buffer.
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "tests/kernels/kernel_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::RunKernel;
using testing::StatusIs;
using testing::TestNodeBuilder;

Tensor Iota(DataType dtype, const TensorShape& shape) {
  Tensor t(dtype, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    switch (dtype) {
      case DT_FLOAT: t.data<float>()[i] = static_cast<float>(i); break;
      case DT_DOUBLE: t.data<double>()[i] = static_cast<double>(i); break;
      case DT_INT32: t.data<int32_t>()[i] = static_cast<int32_t>(i); break;
      case DT_INT64: t.data<int64_t>()[i] = i; break;
      case DT_BOOL: t.data<bool>()[i] = i % 2 == 1; break;
      case DT_STRING: t.data<std::string>()[i] = std::to_string(i); break;
      default: FAIL("unexpected dtype");
    }
  }
  return t;
}

const DataType kDtypes[] = {DT_FLOAT, DT_DOUBLE, DT_INT32,
                            DT_INT64, DT_BOOL,   DT_STRING};

TEST_CASE("Reshape views the buffer under the new shape, every dtype") {
  for (DataType dtype : kDtypes) {
    INFO(DataTypeString(dtype));
    Tensor in = Iota(dtype, TensorShape({2, 3}));
    auto out = RunKernel(
        TestNodeBuilder("r", "Reshape", 2).Attr("T", dtype).Build(),
        {in, Tensor::FromVector<int32_t>({3, 1, 2})});
    REQUIRE_OK(out);
    REQUIRE((*out)[0].shape() == TensorShape({3, 1, 2}));
    REQUIRE((*out)[0].dtype() == dtype);
    REQUIRE((*out)[0].SharesBufferWith(in));
  }
}

TEST_CASE("Reshape infers one -1 dim, with int32 or int64 shapes") {
  Tensor in = Iota(DT_FLOAT, TensorShape({4, 3}));
  auto a = RunKernel(
      TestNodeBuilder("r", "Reshape", 2).Attr("T", DT_FLOAT).Build(),
      {in, Tensor::FromVector<int32_t>({-1, 6})});
  REQUIRE_OK(a);
  REQUIRE((*a)[0].shape() == TensorShape({2, 6}));
  REQUIRE((*a)[0].data<float>()[7] == 7.0f);
  auto b = RunKernel(TestNodeBuilder("r", "Reshape", 2)
                         .Attr("T", DT_FLOAT)
                         .Attr("Tshape", DT_INT64)
                         .Build(),
                     {in, Tensor::FromVector<int64_t>({3, 2, -1})});
  REQUIRE_OK(b);
  REQUIRE((*b)[0].shape() == TensorShape({3, 2, 2}));
  // To a scalar and back.
  auto s = RunKernel(
      TestNodeBuilder("r", "Reshape", 2).Attr("T", DT_INT32).Build(),
      {Tensor::FromVector<int32_t>({5}), Tensor::FromVector<int32_t>({})});
  REQUIRE_OK(s);
  REQUIRE((*s)[0].shape() == TensorShape());
  REQUIRE((*s)[0].scalar<int32_t>() == 5);
  // An empty tensor with a -1 next to non-zero sizes.
  auto e = RunKernel(
      TestNodeBuilder("r", "Reshape", 2).Attr("T", DT_FLOAT).Build(),
      {Iota(DT_FLOAT, TensorShape({0, 4})), Tensor::FromVector<int32_t>({2, -1})});
  REQUIRE_OK(e);
  REQUIRE((*e)[0].shape() == TensorShape({2, 0}));
}

TEST_CASE("Reshape errors name the node and both sizes") {
  NodeDef node =
      TestNodeBuilder("resh", "Reshape", 2).Attr("T", DT_FLOAT).Build();
  Tensor in = Iota(DT_FLOAT, TensorShape({2, 3}));
  auto s = RunKernel(node, {in, Tensor::FromVector<int32_t>({4})}).status();
  REQUIRE_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument, "node 'resh'"));
  REQUIRE_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument,
                           "tensor with 6 values, but the requested shape [4] "
                           "has 4"));
  REQUIRE_THAT(
      RunKernel(node, {in, Tensor::FromVector<int32_t>({-1, 4})}).status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "requires a multiple of 4"));
  REQUIRE_THAT(
      RunKernel(node, {in, Tensor::FromVector<int32_t>({-1, -1})}).status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "only one input size"));
  REQUIRE_THAT(
      RunKernel(node, {in, Tensor::FromVector<int32_t>({-2, -3})}).status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "non-negative"));
  REQUIRE_THAT(
      RunKernel(node, {in, Tensor::FromVector<int32_t>({2, 3},
                                                       TensorShape({1, 2}))})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "must be 1-D"));
  REQUIRE_THAT(
      RunKernel(node, {Iota(DT_FLOAT, TensorShape({0})),
                       Tensor::FromVector<int32_t>({0, -1})})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "cannot infer"));
}

TEST_CASE("Shape outputs the dims as int32 or int64") {
  for (DataType dtype : kDtypes) {
    INFO(DataTypeString(dtype));
    auto out = RunKernel(
        TestNodeBuilder("s", "Shape", 1).Attr("T", dtype).Build(),
        {Iota(dtype, TensorShape({2, 0, 5}))});
    REQUIRE_OK(out);
    const Tensor& t = (*out)[0];
    REQUIRE(t.dtype() == DT_INT32);
    REQUIRE(t.shape() == TensorShape({3}));
    REQUIRE(t.data<int32_t>()[0] == 2);
    REQUIRE(t.data<int32_t>()[1] == 0);
    REQUIRE(t.data<int32_t>()[2] == 5);
  }
  auto l = RunKernel(TestNodeBuilder("s", "Shape", 1)
                         .Attr("T", DT_FLOAT)
                         .Attr("out_type", DT_INT64)
                         .Build(),
                     {Iota(DT_FLOAT, TensorShape({7}))});
  REQUIRE_OK(l);
  REQUIRE((*l)[0].dtype() == DT_INT64);
  REQUIRE((*l)[0].data<int64_t>()[0] == 7);
  auto scalar = RunKernel(
      TestNodeBuilder("s", "Shape", 1).Attr("T", DT_FLOAT).Build(),
      {Tensor::Scalar<float>(1)});
  REQUIRE_OK(scalar);
  REQUIRE((*scalar)[0].shape() == TensorShape({0}));
}

TEST_CASE("ExpandDims inserts a 1, negative dims counting from the end") {
  struct Case {
    int64_t dim;
    TensorShape want;
  };
  const Case cases[] = {{0, TensorShape({1, 2, 3})},
                        {1, TensorShape({2, 1, 3})},
                        {2, TensorShape({2, 3, 1})},
                        {-1, TensorShape({2, 3, 1})},
                        {-3, TensorShape({1, 2, 3})}};
  for (DataType dtype : kDtypes) {
    for (const Case& c : cases) {
      INFO(DataTypeString(dtype) << " dim " << c.dim);
      Tensor in = Iota(dtype, TensorShape({2, 3}));
      auto out = RunKernel(
          TestNodeBuilder("e", "ExpandDims", 2).Attr("T", dtype).Build(),
          {in, Tensor::Scalar<int32_t>(static_cast<int32_t>(c.dim))});
      REQUIRE_OK(out);
      REQUIRE((*out)[0].shape() == c.want);
      REQUIRE((*out)[0].SharesBufferWith(in));
    }
  }
  // int64 dim given as a one-element vector; a scalar input.
  auto v = RunKernel(TestNodeBuilder("e", "ExpandDims", 2)
                         .Attr("T", DT_FLOAT)
                         .Attr("Tdim", DT_INT64)
                         .Build(),
                     {Tensor::Scalar<float>(3), Tensor::FromVector<int64_t>({-1})});
  REQUIRE_OK(v);
  REQUIRE((*v)[0].shape() == TensorShape({1}));
}

TEST_CASE("ExpandDims rejects an out-of-range or multi-valued dim") {
  NodeDef node =
      TestNodeBuilder("exp", "ExpandDims", 2).Attr("T", DT_FLOAT).Build();
  Tensor in = Iota(DT_FLOAT, TensorShape({2, 3}));
  REQUIRE_THAT(RunKernel(node, {in, Tensor::Scalar<int32_t>(3)}).status(),
               StatusIs(absl::StatusCode::kInvalidArgument, "node 'exp'"));
  REQUIRE_THAT(RunKernel(node, {in, Tensor::Scalar<int32_t>(-4)}).status(),
               StatusIs(absl::StatusCode::kInvalidArgument, "out of range"));
  REQUIRE_THAT(
      RunKernel(node, {in, Tensor::FromVector<int32_t>({0, 1})}).status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "single value"));
}

TEST_CASE("Squeeze drops size-1 dims: all, or the listed ones") {
  for (DataType dtype : kDtypes) {
    INFO(DataTypeString(dtype));
    Tensor in = Iota(dtype, TensorShape({1, 2, 1, 3, 1}));
    auto all = RunKernel(
        TestNodeBuilder("s", "Squeeze", 1).Attr("T", dtype).Build(), {in});
    REQUIRE_OK(all);
    REQUIRE((*all)[0].shape() == TensorShape({2, 3}));
    REQUIRE((*all)[0].SharesBufferWith(in));
    auto some = RunKernel(TestNodeBuilder("s", "Squeeze", 1)
                              .Attr("T", dtype)
                              .Attr("squeeze_dims", std::vector<int64_t>{0, -1})
                              .Build(),
                          {in});
    REQUIRE_OK(some);
    REQUIRE((*some)[0].shape() == TensorShape({2, 1, 3}));
    REQUIRE((*some)[0].SharesBufferWith(in));
  }
  auto scalar = RunKernel(
      TestNodeBuilder("s", "Squeeze", 1).Attr("T", DT_FLOAT).Build(),
      {Iota(DT_FLOAT, TensorShape({1, 1}))});
  REQUIRE_OK(scalar);
  REQUIRE((*scalar)[0].shape() == TensorShape());
}

TEST_CASE("Squeeze rejects a dim that is not 1 or out of range") {
  Tensor in = Iota(DT_FLOAT, TensorShape({1, 2, 1}));
  REQUIRE_THAT(
      RunKernel(TestNodeBuilder("sq", "Squeeze", 1)
                    .Attr("T", DT_FLOAT)
                    .Attr("squeeze_dims", std::vector<int64_t>{1})
                    .Build(),
                {in})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "node 'sq' (op Squeeze): cannot squeeze dim 1: expected a "
               "dimension of 1, got 2"));
  REQUIRE_THAT(
      RunKernel(TestNodeBuilder("sq", "Squeeze", 1)
                    .Attr("T", DT_FLOAT)
                    .Attr("squeeze_dims", std::vector<int64_t>{3})
                    .Build(),
                {in})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "out of range"));
  REQUIRE_THAT(
      RunKernel(TestNodeBuilder("sq", "Squeeze", 1)
                    .Attr("T", DT_FLOAT)
                    .Attr("squeeze_dims", std::vector<int64_t>{-4})
                    .Build(),
                {in})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "out of range"));
}

}  // namespace
}  // namespace dfx

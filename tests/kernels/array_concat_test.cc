// ConcatV2 and Pack kernels, against explicit loops.
#include <cstdint>
#include <random>
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

// The value at multi-index `idx` of a row-major tensor.
int64_t FlatIndex(const std::vector<int64_t>& dims,
                  const std::vector<int64_t>& idx) {
  int64_t flat = 0;
  for (size_t k = 0; k < dims.size(); ++k) flat = flat * dims[k] + idx[k];
  return flat;
}

// Calls fn(idx) for every multi-index of `dims`, row-major.
template <typename Fn>
void ForEachIndex(const std::vector<int64_t>& dims, Fn fn) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  std::vector<int64_t> idx(dims.size(), 0);
  for (int64_t flat = 0; flat < n; ++flat) {
    int64_t rest = flat;
    for (size_t k = dims.size(); k-- > 0;) {
      idx[k] = rest % dims[k];
      rest /= dims[k];
    }
    fn(idx);
  }
}

TEST_CASE("ConcatV2 matches an explicit loop over random shapes and axes") {
  std::mt19937 rng(99);
  for (int trial = 0; trial < 100; ++trial) {
    const int rank = 1 + trial % 4;
    const int n = 2 + trial % 3;
    const int axis = static_cast<int>(rng() % rank);
    std::vector<int64_t> base(rank);
    for (auto& d : base) d = 1 + rng() % 3;
    std::vector<std::vector<int64_t>> dims(n, base);
    std::vector<Tensor> inputs;
    std::vector<std::vector<float>> values(n);
    int64_t total = 0;
    for (int i = 0; i < n; ++i) {
      dims[i][axis] = rng() % 4;  // zero-sized inputs included
      total += dims[i][axis];
      auto shape = TensorShape::Build(dims[i]);
      REQUIRE_OK(shape);
      values[i].resize(shape->num_elements());
      for (auto& v : values[i]) v = static_cast<float>(rng() % 1000);
      inputs.push_back(Tensor::FromVector<float>(values[i], *shape));
    }
    const bool negative = trial % 2 == 1;
    const int64_t axis_arg = negative ? axis - rank : axis;
    const bool int64_axis = trial % 3 == 0;
    inputs.push_back(int64_axis ? Tensor::Scalar<int64_t>(axis_arg)
                                : Tensor::Scalar<int32_t>(
                                      static_cast<int32_t>(axis_arg)));
    NodeDef node = TestNodeBuilder("c", "ConcatV2", n + 1)
                       .Attr("T", DT_FLOAT)
                       .Attr("N", n)
                       .Attr("Tidx", int64_axis ? DT_INT64 : DT_INT32)
                       .Build();
    auto out = RunKernel(node, inputs);
    INFO("trial " << trial << " axis " << axis_arg);
    REQUIRE_OK(out);
    std::vector<int64_t> out_dims = base;
    out_dims[axis] = total;
    auto want_shape = TensorShape::Build(out_dims);
    REQUIRE((*out)[0].shape() == *want_shape);
    // Every output element comes from the input whose axis range holds it.
    ForEachIndex(out_dims, [&](const std::vector<int64_t>& idx) {
      int64_t a = idx[axis];
      int i = 0;
      while (a >= dims[i][axis]) a -= dims[i++][axis];
      std::vector<int64_t> in_idx = idx;
      in_idx[axis] = a;
      REQUIRE((*out)[0].data<float>()[FlatIndex(out_dims, idx)] ==
              values[i][FlatIndex(dims[i], in_idx)]);
    });
  }
}

TEST_CASE("ConcatV2 of each dtype family, by hand") {
  auto run = [](DataType dtype, std::vector<Tensor> in) {
    in.push_back(Tensor::Scalar<int32_t>(1));
    auto out = RunKernel(TestNodeBuilder("c", "ConcatV2", 3)
                             .Attr("T", dtype)
                             .Attr("N", 2)
                             .Build(),
                         in);
    REQUIRE_OK(out);
    return (*out)[0];
  };
  Tensor d = run(DT_DOUBLE,
                 {Tensor::FromVector<double>({1, 2}, TensorShape({2, 1})),
                  Tensor::FromVector<double>({3, 4, 5, 6}, TensorShape({2, 2}))});
  REQUIRE(d.shape() == TensorShape({2, 3}));
  const double dw[] = {1, 3, 4, 2, 5, 6};
  for (int i = 0; i < 6; ++i) REQUIRE(d.data<double>()[i] == dw[i]);
  Tensor l = run(DT_INT64,
                 {Tensor::FromVector<int64_t>({7}, TensorShape({1, 1})),
                  Tensor::FromVector<int64_t>({8}, TensorShape({1, 1}))});
  REQUIRE(l.shape() == TensorShape({1, 2}));
  REQUIRE(l.data<int64_t>()[1] == 8);
  Tensor i = run(DT_INT32,
                 {Tensor::FromVector<int32_t>({1, 2}, TensorShape({1, 2})),
                  Tensor::FromVector<int32_t>({3}, TensorShape({1, 1}))});
  REQUIRE(i.data<int32_t>()[2] == 3);
  Tensor b = run(DT_BOOL,
                 {Tensor::FromVector<bool>({true}, TensorShape({1, 1})),
                  Tensor::FromVector<bool>({false, true}, TensorShape({1, 2}))});
  REQUIRE(b.data<bool>()[0]);
  REQUIRE_FALSE(b.data<bool>()[1]);
  REQUIRE(b.data<bool>()[2]);
  Tensor s = run(DT_STRING,
                 {Tensor::FromVector<std::string>({"a", "b"}, TensorShape({2, 1})),
                  Tensor::FromVector<std::string>({"c", "d"}, TensorShape({2, 1}))});
  const char* sw[] = {"a", "c", "b", "d"};
  for (int k = 0; k < 4; ++k) REQUIRE(s.data<std::string>()[k] == sw[k]);
}

TEST_CASE("ConcatV2 errors name the node and the input") {
  NodeDef node = TestNodeBuilder("cat", "ConcatV2", 4)
                     .Attr("T", DT_FLOAT)
                     .Attr("N", 3)
                     .Build();
  Tensor a = Tensor::FromVector<float>({1, 2, 3, 4}, TensorShape({2, 2}));
  Tensor bad = Tensor::FromVector<float>({1, 2, 3}, TensorShape({3, 1}));
  REQUIRE_THAT(
      RunKernel(node, {a, a, bad, Tensor::Scalar<int32_t>(1)}).status(),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "node 'cat' (op ConcatV2): input 2 has shape [3,1]"));
  REQUIRE_THAT(
      RunKernel(node, {a, Tensor::FromVector<float>({1, 2}), a,
                       Tensor::Scalar<int32_t>(0)})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "input 1"));
  REQUIRE_THAT(
      RunKernel(node, {a, a, a, Tensor::Scalar<int32_t>(2)}).status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "out of range"));
  REQUIRE_THAT(
      RunKernel(node, {a, a, a, Tensor::Scalar<int32_t>(-3)}).status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "out of range"));
  REQUIRE_THAT(
      RunKernel(node, {a, a, a, Tensor::FromVector<int32_t>({0})}).status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "must be a scalar"));
  Tensor s = Tensor::Scalar<float>(1);
  REQUIRE_THAT(
      RunKernel(node, {s, s, s, Tensor::Scalar<int32_t>(0)}).status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "scalars"));
}

TEST_CASE("Pack matches an explicit loop for every axis") {
  const std::vector<int64_t> dims = {2, 3};
  const int n = 3;
  std::vector<std::vector<int32_t>> values(n, std::vector<int32_t>(6));
  std::vector<Tensor> inputs;
  for (int i = 0; i < n; ++i) {
    for (int k = 0; k < 6; ++k) values[i][k] = 100 * i + k;
    inputs.push_back(Tensor::FromVector<int32_t>(values[i], TensorShape({2, 3})));
  }
  for (int64_t axis = -3; axis <= 2; ++axis) {
    INFO("axis " << axis);
    auto out = RunKernel(TestNodeBuilder("p", "Pack", n)
                             .Attr("T", DT_INT32)
                             .Attr("N", n)
                             .Attr("axis", axis)
                             .Build(),
                         inputs);
    REQUIRE_OK(out);
    const int64_t a = axis < 0 ? axis + 3 : axis;
    std::vector<int64_t> out_dims = dims;
    out_dims.insert(out_dims.begin() + a, n);
    auto want_shape = TensorShape::Build(out_dims);
    REQUIRE((*out)[0].shape() == *want_shape);
    ForEachIndex(out_dims, [&](const std::vector<int64_t>& idx) {
      std::vector<int64_t> in_idx = idx;
      in_idx.erase(in_idx.begin() + a);
      REQUIRE((*out)[0].data<int32_t>()[FlatIndex(out_dims, idx)] ==
              values[idx[a]][FlatIndex(dims, in_idx)]);
    });
  }
}

TEST_CASE("Pack of scalars and of each dtype family") {
  auto f = RunKernel(
      TestNodeBuilder("p", "Pack", 2).Attr("T", DT_FLOAT).Attr("N", 2).Build(),
      {Tensor::Scalar<float>(1.5f), Tensor::Scalar<float>(-2)});
  REQUIRE_OK(f);
  REQUIRE((*f)[0].shape() == TensorShape({2}));
  REQUIRE((*f)[0].data<float>()[1] == -2);
  auto d = RunKernel(
      TestNodeBuilder("p", "Pack", 1).Attr("T", DT_DOUBLE).Attr("N", 1).Build(),
      {Tensor::FromVector<double>({4, 5})});
  REQUIRE_OK(d);
  REQUIRE((*d)[0].shape() == TensorShape({1, 2}));
  REQUIRE((*d)[0].data<double>()[1] == 5);
  auto l = RunKernel(TestNodeBuilder("p", "Pack", 2)
                         .Attr("T", DT_INT64)
                         .Attr("N", 2)
                         .Attr("axis", 1)
                         .Build(),
                     {Tensor::FromVector<int64_t>({1, 2}),
                      Tensor::FromVector<int64_t>({3, 4})});
  REQUIRE_OK(l);
  const int64_t lw[] = {1, 3, 2, 4};
  for (int i = 0; i < 4; ++i) REQUIRE((*l)[0].data<int64_t>()[i] == lw[i]);
  auto b = RunKernel(
      TestNodeBuilder("p", "Pack", 2).Attr("T", DT_BOOL).Attr("N", 2).Build(),
      {Tensor::Scalar<bool>(false), Tensor::Scalar<bool>(true)});
  REQUIRE_OK(b);
  REQUIRE((*b)[0].data<bool>()[1]);
  auto s = RunKernel(
      TestNodeBuilder("p", "Pack", 2).Attr("T", DT_STRING).Attr("N", 2).Build(),
      {Tensor::Scalar<std::string>("x"), Tensor::Scalar<std::string>("yz")});
  REQUIRE_OK(s);
  REQUIRE((*s)[0].data<std::string>()[1] == "yz");
}

TEST_CASE("Pack errors: mismatched shapes, axis out of range") {
  NodeDef node =
      TestNodeBuilder("pk", "Pack", 2).Attr("T", DT_FLOAT).Attr("N", 2).Build();
  REQUIRE_THAT(RunKernel(node, {Tensor::FromVector<float>({1, 2}),
                                Tensor::FromVector<float>({1, 2, 3})})
                   .status(),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "node 'pk' (op Pack): shapes of all inputs must match: "
                        "input 0 has shape [2] but input 1 has shape [3]"));
  NodeDef far = TestNodeBuilder("pk", "Pack", 2)
                    .Attr("T", DT_FLOAT)
                    .Attr("N", 2)
                    .Attr("axis", 2)
                    .Build();
  REQUIRE_THAT(RunKernel(far, {Tensor::FromVector<float>({1, 2}),
                               Tensor::FromVector<float>({3, 4})})
                   .status(),
               StatusIs(absl::StatusCode::kInvalidArgument, "out of range"));
}

}  // namespace
}  // namespace dfx

// Transpose kernel, against an explicit index-permutation loop.
#include <cstdint>
#include <numeric>
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

// out[j] = in[i] where out's multi-index j is in's multi-index i permuted:
// j[k] = i[perm[k]].
template <typename T>
std::vector<T> ReferenceTranspose(const std::vector<T>& in,
                                  const std::vector<int64_t>& dims,
                                  const std::vector<int64_t>& perm) {
  const size_t rank = dims.size();
  std::vector<int64_t> out_dims(rank);
  for (size_t k = 0; k < rank; ++k) out_dims[k] = dims[perm[k]];
  std::vector<T> out(in.size());
  std::vector<int64_t> idx(rank, 0);
  for (size_t flat = 0; flat < in.size(); ++flat) {
    // idx = multi-index of `flat` in `dims`.
    int64_t rest = static_cast<int64_t>(flat);
    for (size_t k = rank; k-- > 0;) {
      idx[k] = rest % dims[k];
      rest /= dims[k];
    }
    int64_t out_flat = 0;
    for (size_t k = 0; k < rank; ++k) {
      out_flat = out_flat * out_dims[k] + idx[perm[k]];
    }
    out[out_flat] = in[flat];
  }
  return out;
}

TEST_CASE("Transpose matches an explicit permutation loop, rank 0 to 5") {
  std::mt19937 rng(1234);
  for (int trial = 0; trial < 200; ++trial) {
    const int rank = trial % 6;
    std::vector<int64_t> dims(rank);
    for (auto& d : dims) d = std::uniform_int_distribution<int64_t>(1, 4)(rng);
    if (trial % 17 == 5 && rank > 0) dims[0] = 0;
    std::vector<int64_t> perm(rank);
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    auto shape = TensorShape::Build(dims);
    REQUIRE_OK(shape);
    const int64_t n = shape->num_elements();
    std::vector<int32_t> values(n);
    for (int64_t i = 0; i < n; ++i) values[i] = static_cast<int32_t>(rng());
    const bool use_int64_perm = trial % 2 == 1;
    Tensor perm_t = use_int64_perm
                        ? Tensor::FromVector<int64_t>(perm)
                        : Tensor::FromVector<int32_t>(
                              std::vector<int32_t>(perm.begin(), perm.end()));
    NodeDef node = TestNodeBuilder("t", "Transpose", 2)
                       .Attr("T", DT_INT32)
                       .Attr("Tperm", use_int64_perm ? DT_INT64 : DT_INT32)
                       .Build();
    auto out = RunKernel(
        node, {Tensor::FromVector<int32_t>(values, *shape), perm_t});
    REQUIRE_OK(out);
    const std::vector<int32_t> want = ReferenceTranspose(values, dims, perm);
    INFO("trial " << trial << " shape " << shape->DebugString());
    for (int k = 0; k < rank; ++k) REQUIRE((*out)[0].dim_size(k) == dims[perm[k]]);
    REQUIRE((*out)[0].dims() == rank);
    for (int64_t i = 0; i < n; ++i) REQUIRE((*out)[0].data<int32_t>()[i] == want[i]);
  }
}

TEST_CASE("Transpose works for every element width and strings") {
  const std::vector<int64_t> dims = {2, 3, 4};
  const std::vector<int64_t> perm = {2, 0, 1};
  const TensorShape shape({2, 3, 4});
  std::vector<double> d(24);
  std::vector<float> f(24);
  std::vector<int64_t> l(24);
  std::vector<bool> b(24);
  std::vector<std::string> s(24);
  for (int i = 0; i < 24; ++i) {
    d[i] = i * 0.5;
    f[i] = static_cast<float>(i) - 3;
    l[i] = int64_t{1} << (i + 20);
    b[i] = i % 3 == 0;
    s[i] = std::string(i, 'x');
  }
  auto run = [&](DataType dtype, const Tensor& in) {
    auto out = RunKernel(
        TestNodeBuilder("t", "Transpose", 2).Attr("T", dtype).Build(),
        {in, Tensor::FromVector<int32_t>({2, 0, 1})});
    REQUIRE_OK(out);
    REQUIRE((*out)[0].shape() == TensorShape({4, 2, 3}));
    return (*out)[0];
  };
  {
    Tensor out = run(DT_DOUBLE, Tensor::FromVector<double>(d, shape));
    auto want = ReferenceTranspose(d, dims, perm);
    for (int i = 0; i < 24; ++i) REQUIRE(out.data<double>()[i] == want[i]);
  }
  {
    Tensor out = run(DT_FLOAT, Tensor::FromVector<float>(f, shape));
    auto want = ReferenceTranspose(f, dims, perm);
    for (int i = 0; i < 24; ++i) REQUIRE(out.data<float>()[i] == want[i]);
  }
  {
    Tensor out = run(DT_INT64, Tensor::FromVector<int64_t>(l, shape));
    auto want = ReferenceTranspose(l, dims, perm);
    for (int i = 0; i < 24; ++i) REQUIRE(out.data<int64_t>()[i] == want[i]);
  }
  {
    Tensor in(DT_BOOL, shape);
    for (int i = 0; i < 24; ++i) in.data<bool>()[i] = b[i];
    Tensor out = run(DT_BOOL, in);
    auto want = ReferenceTranspose(b, dims, perm);
    for (int i = 0; i < 24; ++i) REQUIRE(out.data<bool>()[i] == want[i]);
  }
  {
    Tensor out = run(DT_STRING, Tensor::FromVector<std::string>(s, shape));
    auto want = ReferenceTranspose(s, dims, perm);
    for (int i = 0; i < 24; ++i) REQUIRE(out.data<std::string>()[i] == want[i]);
  }
}

TEST_CASE("Transpose of a 2x3 matrix, by hand") {
  auto out = RunKernel(
      TestNodeBuilder("t", "Transpose", 2).Attr("T", DT_FLOAT).Build(),
      {Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, TensorShape({2, 3})),
       Tensor::FromVector<int32_t>({1, 0})});
  REQUIRE_OK(out);
  REQUIRE((*out)[0].shape() == TensorShape({3, 2}));
  const float want[] = {1, 4, 2, 5, 3, 6};
  for (int i = 0; i < 6; ++i) REQUIRE((*out)[0].data<float>()[i] == want[i]);
}

TEST_CASE("Transpose that keeps element order returns a view") {
  Tensor in = Tensor::FromVector<float>({1, 2, 3, 4, 5, 6},
                                        TensorShape({1, 2, 3}));
  NodeDef node =
      TestNodeBuilder("t", "Transpose", 2).Attr("T", DT_FLOAT).Build();
  auto identity = RunKernel(node, {in, Tensor::FromVector<int32_t>({0, 1, 2})});
  REQUIRE_OK(identity);
  REQUIRE((*identity)[0].SharesBufferWith(in));
  auto moves_one = RunKernel(node, {in, Tensor::FromVector<int32_t>({1, 0, 2})});
  REQUIRE_OK(moves_one);
  REQUIRE((*moves_one)[0].shape() == TensorShape({2, 1, 3}));
  REQUIRE((*moves_one)[0].SharesBufferWith(in));
  auto real = RunKernel(node, {in, Tensor::FromVector<int32_t>({0, 2, 1})});
  REQUIRE_OK(real);
  REQUIRE_FALSE((*real)[0].SharesBufferWith(in));
}

TEST_CASE("Transpose rejects a perm that is not a permutation") {
  NodeDef node =
      TestNodeBuilder("tr", "Transpose", 2).Attr("T", DT_FLOAT).Build();
  Tensor in = Tensor::FromVector<float>({1, 2, 3, 4, 5, 6},
                                        TensorShape({2, 3}));
  REQUIRE_THAT(
      RunKernel(node, {in, Tensor::FromVector<int32_t>({1, 1})}).status(),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "node 'tr' (op Transpose): 'perm' [1,1] is not a permutation"));
  REQUIRE_THAT(
      RunKernel(node, {in, Tensor::FromVector<int32_t>({0, 2})}).status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "not a permutation"));
  REQUIRE_THAT(
      RunKernel(node, {in, Tensor::FromVector<int32_t>({0, -1})}).status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "not a permutation"));
  REQUIRE_THAT(
      RunKernel(node, {in, Tensor::FromVector<int32_t>({0, 1, 2})}).status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "has size 3"));
  REQUIRE_THAT(RunKernel(node, {in, Tensor::Scalar<int32_t>(0)}).status(),
               StatusIs(absl::StatusCode::kInvalidArgument, "must be a vector"));
}

}  // namespace
}  // namespace dfx

// MatMul: the CPU kernel (kernels/linalg/gemm.h underneath) against a naive
// triple loop for every dtype, transpose and thread split, its errors, and
// the op's shape function.
#include <cmath>
#include <cstdint>
#include <random>
#include <type_traits>
#include <vector>

#include "catch2/catch.hpp"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "runtime/tensor.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::RunKernel;
using testing::StatusIs;
using testing::TestNodeBuilder;

template <typename T>
constexpr bool kIsFloat = std::is_floating_point_v<T> ||
                          std::is_same_v<T, Eigen::half> ||
                          std::is_same_v<T, Eigen::bfloat16>;

template <typename T>
Tensor RandomTensor(std::mt19937* rng, const TensorShape& shape) {
  std::vector<T> values(shape.num_elements());
  for (T& v : values) {
    if constexpr (kIsFloat<T>) {
      v = static_cast<T>(std::uniform_real_distribution<float>(-1, 1)(*rng));
    } else {
      v = static_cast<T>(std::uniform_int_distribution<int>(-9, 9)(*rng));
    }
  }
  return Tensor::FromVector<T>(values, shape);
}

// What each dtype's product may differ from an exact one by, relative to
// the sum of |terms| (summation order and, for half/bfloat16, the final
// rounding of a float accumulator).
template <typename T>
double Tolerance() {
  if constexpr (std::is_same_v<T, Eigen::half>) return 2e-3;
  if constexpr (std::is_same_v<T, Eigen::bfloat16>) return 1.6e-2;
  if constexpr (std::is_same_v<T, float>) return 1e-5;
  return 1e-12;
}

NodeDef MatMulNode(DataType dtype, bool transpose_a, bool transpose_b) {
  return TestNodeBuilder("mm", "MatMul", 2)
      .Attr("T", dtype)
      .Attr("transpose_a", transpose_a)
      .Attr("transpose_b", transpose_b)
      .Build();
}

TEMPLATE_TEST_CASE("MatMul matches a naive product for every transpose",
                   "[matmul]", float, double, Eigen::half, Eigen::bfloat16,
                   int32_t, int64_t) {
  using T = TestType;
  std::mt19937 rng(1234);
  struct Dims {
    int64_t m, k, n;
  };
  std::vector<Dims> cases = {{1, 1, 1}, {1, 7, 1},  {1, 5, 9},  {9, 5, 1},
                             {4, 1, 6}, {0, 3, 4},  {3, 0, 4},  {3, 4, 0},
                             {0, 0, 0}, {2, 3, 5},  {17, 33, 9},
                             // Large enough to run on the intra-op pool,
                             // split by rows, by columns, odd sizes.
                             {64, 70, 90}, {1, 300, 400}, {300, 200, 1},
                             {130, 257, 129}, {67, 129, 300}};
  for (int i = 0; i < 10; ++i) {
    std::uniform_int_distribution<int64_t> d(1, 12);
    cases.push_back({d(rng), d(rng), d(rng)});
  }
  for (const Dims& c : cases) {
    for (bool ta : {false, true}) {
      for (bool tb : {false, true}) {
        INFO("m=" << c.m << " k=" << c.k << " n=" << c.n << " ta=" << ta
                  << " tb=" << tb);
        const Tensor a = RandomTensor<T>(
            &rng, ta ? TensorShape({c.k, c.m}) : TensorShape({c.m, c.k}));
        const Tensor b = RandomTensor<T>(
            &rng, tb ? TensorShape({c.n, c.k}) : TensorShape({c.k, c.n}));
        auto out = RunKernel(MatMulNode(DataTypeToEnum<T>::value, ta, tb),
                             {a, b});
        REQUIRE_OK(out);
        const Tensor& p = (*out)[0];
        REQUIRE(p.dtype() == DataTypeToEnum<T>::value);
        REQUIRE(p.shape() == TensorShape({c.m, c.n}));
        const T* av = a.data<T>();
        const T* bv = b.data<T>();
        for (int64_t i = 0; i < c.m; ++i) {
          for (int64_t j = 0; j < c.n; ++j) {
            double want = 0;
            double magnitude = 0;
            for (int64_t l = 0; l < c.k; ++l) {
              const T x = ta ? av[l * c.m + i] : av[i * c.k + l];
              const T y = tb ? bv[j * c.k + l] : bv[l * c.n + j];
              want += static_cast<double>(x) * static_cast<double>(y);
              magnitude += std::abs(static_cast<double>(x) *
                                    static_cast<double>(y));
            }
            const T got = p.data<T>()[i * c.n + j];
            if constexpr (kIsFloat<T>) {
              REQUIRE(std::abs(static_cast<double>(got) - want) <=
                      Tolerance<T>() * (magnitude + 1e-30) + 1e-30);
            } else {
              REQUIRE(static_cast<double>(got) == want);
            }
          }
        }
      }
    }
  }
}

TEST_CASE("MatMul computes a hand-checked product") {
  const Tensor a = Tensor::FromVector<float>({1, 2, 3, 4, 5, 6},
                                             TensorShape({2, 3}));
  const Tensor b = Tensor::FromVector<float>({7, 8, 9, 10, 11, 12},
                                             TensorShape({3, 2}));
  auto out = RunKernel(MatMulNode(DT_FLOAT, false, false), {a, b});
  REQUIRE_OK(out);
  const std::vector<float> got((*out)[0].span<float>().begin(),
                               (*out)[0].span<float>().end());
  REQUIRE(got == std::vector<float>{58, 64, 139, 154});
}

TEST_CASE("MatMul defaults to no transposes") {
  const Tensor a = Tensor::FromVector<int32_t>({1, 2}, TensorShape({1, 2}));
  const Tensor b = Tensor::FromVector<int32_t>({3, 4}, TensorShape({2, 1}));
  auto out = RunKernel(
      TestNodeBuilder("mm", "MatMul", 2).Attr("T", DT_INT32).Build(), {a, b});
  REQUIRE_OK(out);
  REQUIRE((*out)[0].shape() == TensorShape({1, 1}));
  REQUIRE((*out)[0].scalar<int32_t>() == 11);
}

TEST_CASE("MatMul rejects inputs that are not matrices") {
  const Tensor m = Tensor(DT_FLOAT, TensorShape({2, 3}));
  const Tensor cube = Tensor(DT_FLOAT, TensorShape({2, 3, 4}));
  const Tensor v = Tensor(DT_FLOAT, TensorShape({3}));
  REQUIRE_THAT(
      RunKernel(MatMulNode(DT_FLOAT, false, false), {cube, m}).status(),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "In[0] is not a matrix. Instead it has shape [2,3,4]"));
  REQUIRE_THAT(RunKernel(MatMulNode(DT_FLOAT, false, false), {m, v}).status(),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "In[1] is not a matrix"));
}

TEST_CASE("MatMul rejects inner dimensions that disagree") {
  const Tensor a = Tensor(DT_FLOAT, TensorShape({2, 3}));
  const Tensor b = Tensor(DT_FLOAT, TensorShape({4, 5}));
  REQUIRE_THAT(
      RunKernel(MatMulNode(DT_FLOAT, false, false), {a, b}).status(),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "Matrix size-incompatible: In[0]: [2,3], In[1]: [4,5]"));
  // With transpose_a the inner dim of [2,3] is 2, which [3,4] lacks.
  const Tensor c = Tensor(DT_FLOAT, TensorShape({3, 4}));
  REQUIRE_OK(RunKernel(MatMulNode(DT_FLOAT, false, false), {a, c}));
  REQUIRE_THAT(RunKernel(MatMulNode(DT_FLOAT, true, false), {a, c}).status(),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "Matrix size-incompatible: In[0]: [2,3], In[1]: "
                        "[3,4]"));
}

TEST_CASE("MatMul has no kernel for a type it does not support") {
  const Tensor a = Tensor(DT_BOOL, TensorShape({1, 1}));
  REQUIRE_FALSE(RunKernel(MatMulNode(DT_BOOL, false, false), {a, a}).ok());
}

// Runs MatMul's shape function on shapes a and b.
absl::Status InferMatMul(const PartialShape& a, const PartialShape& b,
                         bool ta, bool tb, PartialShape* out) {
  const OpRegistrationData* op = OpRegistry::Global()->LookUp("MatMul");
  REQUIRE(op != nullptr);
  NodeDef node = MatMulNode(DT_FLOAT, ta, tb);
  AddDefaultAttrs(op->op_def, &node);
  InferenceContext c(node, op->op_def, {a, b}, {}, 1);
  absl::Status s = op->shape_fn(&c);
  *out = c.output(0);
  return s;
}

TEST_CASE("MatMul's shape function computes the product's shape") {
  PartialShape out;
  REQUIRE_OK(InferMatMul(PartialShape::Known({2, 3}),
                         PartialShape::Known({3, 5}), false, false, &out));
  REQUIRE(out.DebugString() == "[2,5]");
  REQUIRE_OK(InferMatMul(PartialShape::Known({3, 2}),
                         PartialShape::Known({5, 3}), true, true, &out));
  REQUIRE(out.DebugString() == "[2,5]");
  REQUIRE_OK(InferMatMul(PartialShape::Known({-1, 3}),
                         PartialShape::Known({-1, 7}), false, false, &out));
  REQUIRE(out.DebugString() == "[?,7]");
  REQUIRE_OK(InferMatMul(PartialShape::Unknown(), PartialShape::Known({3, 7}),
                         false, false, &out));
  REQUIRE(out.DebugString() == "[?,7]");
}

TEST_CASE("MatMul's shape function catches mismatched known shapes") {
  PartialShape out;
  REQUIRE_THAT(InferMatMul(PartialShape::Known({2, 3}),
                           PartialShape::Known({4, 5}), false, false, &out),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "node 'mm' (op MatMul): Matrix size-incompatible: "
                        "In[0]: [2,3], In[1]: [4,5]"));
  REQUIRE_THAT(InferMatMul(PartialShape::Known({2, 3, 4}),
                           PartialShape::Known({4, 5}), false, false, &out),
               StatusIs(absl::StatusCode::kInvalidArgument, "rank 2"));
}

}  // namespace
}  // namespace dfx

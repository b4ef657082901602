// BatchMatMul, BatchMatMulV2 and BatchMatMulV3: the CPU kernels against a
// naive product (adjoints, broadcast batch dims, mixed V3 types), their
// errors, and the shape functions.
#include <cstdint>
#include <random>
#include <string>
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

TensorShape Shape(const std::vector<int64_t>& dims) {
  return TensorShape::Build(dims).value();
}

NodeDef BmmNode(const std::string& op, DataType t, bool adj_x, bool adj_y) {
  TestNodeBuilder b("bmm", op, 2);
  if (op == "BatchMatMulV3") {
    b.Attr("Ta", t).Attr("Tb", t).Attr("Tout", t);
  } else {
    b.Attr("T", t);
  }
  return b.Attr("adj_x", adj_x).Attr("adj_y", adj_y).Build();
}

template <typename T>
Tensor Random(std::mt19937* rng, const std::vector<int64_t>& dims) {
  const TensorShape shape = Shape(dims);
  std::vector<T> values(shape.num_elements());
  for (T& v : values) {
    v = static_cast<T>(std::uniform_int_distribution<int>(-5, 5)(*rng));
  }
  return Tensor::FromVector<T>(values, shape);
}

// The product of x and y (rank >= 2, batch dims broadcast), as doubles.
template <typename Ta, typename Tb>
std::vector<double> Naive(const Tensor& x, const Tensor& y, bool adj_x,
                          bool adj_y, std::vector<int64_t>* out_dims) {
  const int xr = x.dims(), yr = y.dims();
  const int rank = std::max(xr, yr) - 2;
  std::vector<int64_t> xb(rank, 1), yb(rank, 1), ob(rank, 1);
  for (int i = 0; i < rank; ++i) {
    if (xr - 2 - rank + i >= 0) xb[i] = x.dim_size(xr - 2 - rank + i);
    if (yr - 2 - rank + i >= 0) yb[i] = y.dim_size(yr - 2 - rank + i);
    ob[i] = xb[i] == 1 ? yb[i] : xb[i];
  }
  const int64_t xrows = x.dim_size(xr - 2), xcols = x.dim_size(xr - 1);
  const int64_t yrows = y.dim_size(yr - 2), ycols = y.dim_size(yr - 1);
  const int64_t m = adj_x ? xcols : xrows, k = adj_x ? xrows : xcols;
  const int64_t n = adj_y ? yrows : ycols;
  *out_dims = ob;
  out_dims->push_back(m);
  out_dims->push_back(n);
  int64_t batch = 1;
  for (int64_t d : ob) batch *= d;
  std::vector<double> out(batch * m * n, 0);
  for (int64_t b = 0; b < batch; ++b) {
    int64_t rest = b, xi = 0, yi = 0, xs = 1, ys = 1;
    for (int d = rank - 1; d >= 0; --d) {
      const int64_t i = rest % ob[d];
      rest /= ob[d];
      xi += (xb[d] == 1 ? 0 : i) * xs;
      yi += (yb[d] == 1 ? 0 : i) * ys;
      xs *= xb[d];
      ys *= yb[d];
    }
    const Ta* xm = x.data<Ta>() + xi * xrows * xcols;
    const Tb* ym = y.data<Tb>() + yi * yrows * ycols;
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0;
        for (int64_t l = 0; l < k; ++l) {
          const double a = static_cast<double>(
              static_cast<float>(adj_x ? xm[l * xcols + i] : xm[i * xcols + l]));
          const double c = static_cast<double>(
              static_cast<float>(adj_y ? ym[j * ycols + l] : ym[l * ycols + j]));
          sum += a * c;
        }
        out[(b * m + i) * n + j] = sum;
      }
    }
  }
  return out;
}

template <typename Ta, typename Tb, typename Tout>
void Check(const NodeDef& node, const Tensor& x, const Tensor& y, bool adj_x,
           bool adj_y) {
  std::vector<int64_t> dims;
  const std::vector<double> want = Naive<Ta, Tb>(x, y, adj_x, adj_y, &dims);
  auto got = RunKernel(node, {x, y});
  REQUIRE_OK(got);
  const Tensor& g = (*got)[0];
  REQUIRE(g.dtype() == DataTypeToEnum<Tout>::value);
  REQUIRE(g.shape() == Shape(dims));
  for (size_t i = 0; i < want.size(); ++i) {
    INFO("element " << i);
    // The exact product rounded once to Tout (bfloat16 and half round).
    const Tout rounded = static_cast<Tout>(static_cast<float>(want[i]));
    REQUIRE(static_cast<double>(static_cast<float>(g.data<Tout>()[i])) ==
            static_cast<double>(static_cast<float>(rounded)));
  }
}

TEMPLATE_TEST_CASE("BatchMatMulV2 broadcasts batch dims and adjoints",
                   "[batch_matmul]", float, double, Eigen::half,
                   Eigen::bfloat16, int32_t, int64_t, int16_t) {
  using T = TestType;
  std::mt19937 rng(3);
  struct Case {
    std::vector<int64_t> x, y;  // before adjoints
  };
  const std::vector<Case> cases = {
      {{2, 3, 4}, {2, 4, 5}},       {{2, 1, 3, 4}, {5, 4, 6}},
      {{3, 4}, {2, 4, 5}},          {{1, 3, 4}, {3, 4, 2}},
      {{2, 0, 4}, {2, 4, 5}},       {{2, 3, 0}, {2, 0, 5}},
      {{0, 3, 4}, {1, 4, 5}},       {{4, 64, 48}, {4, 48, 80}},
      {{1, 130, 70}, {70, 200}},    {{6, 2, 2}, {6, 2, 2}}};
  for (const Case& c : cases) {
    for (bool ax : {false, true}) {
      for (bool ay : {false, true}) {
        std::vector<int64_t> xd = c.x, yd = c.y;
        if (ax) std::swap(xd[xd.size() - 1], xd[xd.size() - 2]);
        if (ay) std::swap(yd[yd.size() - 1], yd[yd.size() - 2]);
        INFO("x " << Shape(xd).DebugString() << " y "
                  << Shape(yd).DebugString() << " adj " << ax << ay);
        const Tensor x = Random<T>(&rng, xd);
        const Tensor y = Random<T>(&rng, yd);
        Check<T, T, T>(BmmNode("BatchMatMulV2", DataTypeToEnum<T>::value, ax,
                               ay),
                       x, y, ax, ay);
      }
    }
  }
}

TEST_CASE("BatchMatMul (V1) needs equal batch dims") {
  std::mt19937 rng(4);
  const Tensor x = Random<float>(&rng, {2, 3, 4});
  const Tensor y = Random<float>(&rng, {2, 4, 5});
  Check<float, float, float>(BmmNode("BatchMatMul", DT_FLOAT, false, false),
                             x, y, false, false);
  const Tensor y1 = Random<float>(&rng, {1, 4, 5});
  REQUIRE_THAT(
      RunKernel(BmmNode("BatchMatMul", DT_FLOAT, false, false), {x, y1})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "In[0].dim(0) and In[1].dim(0) must be the same: [2,3,4] vs "
               "[1,4,5]"));
  const Tensor y2 = Random<float>(&rng, {4, 5});
  REQUIRE_THAT(
      RunKernel(BmmNode("BatchMatMul", DT_FLOAT, false, false), {x, y2})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "different ndims"));
}

TEST_CASE("BatchMatMulV2 and V3 reject bad shapes") {
  const auto kInvalid = absl::StatusCode::kInvalidArgument;
  const Tensor x(DT_FLOAT, TensorShape({2, 3, 4}));
  const Tensor y(DT_FLOAT, TensorShape({3, 4, 5}));
  const Tensor v(DT_FLOAT, TensorShape({4}));
  const Tensor w(DT_FLOAT, TensorShape({2, 5, 5}));
  for (const char* op : {"BatchMatMulV2", "BatchMatMulV3"}) {
    INFO(op);
    REQUIRE_THAT(RunKernel(BmmNode(op, DT_FLOAT, false, false), {x, y})
                     .status(),
                 StatusIs(kInvalid, "must have compatible batch dimensions: "
                                    "[2,3,4] vs. [3,4,5]"));
    REQUIRE_THAT(RunKernel(BmmNode(op, DT_FLOAT, false, false), {x, v})
                     .status(),
                 StatusIs(kInvalid, "In[1] ndims must be >= 2: 1"));
    REQUIRE_THAT(RunKernel(BmmNode(op, DT_FLOAT, false, false), {x, w})
                     .status(),
                 StatusIs(kInvalid, "Matrix size-incompatible: In[0]: "
                                    "[2,3,4], In[1]: [2,5,5]"));
  }
}

TEST_CASE("BatchMatMulV3 multiplies mixed types as TensorFlow's CPU does") {
  std::mt19937 rng(5);
  auto v3 = [](DataType ta, DataType tb, DataType tout) {
    return TestNodeBuilder("bmm", "BatchMatMulV3", 2)
        .Attr("Ta", ta)
        .Attr("Tb", tb)
        .Attr("Tout", tout)
        .Build();
  };
  Check<int8_t, uint8_t, int32_t>(
      v3(DT_INT8, DT_UINT8, DT_INT32), Random<int8_t>(&rng, {2, 3, 4}),
      Tensor::FromVector<uint8_t>(std::vector<uint8_t>(20, 200),
                                  TensorShape({4, 5})),
      false, false);
  Check<uint8_t, uint8_t, int32_t>(
      v3(DT_UINT8, DT_UINT8, DT_INT32),
      Tensor::FromVector<uint8_t>(std::vector<uint8_t>(12, 255),
                                  TensorShape({3, 4})),
      Tensor::FromVector<uint8_t>(std::vector<uint8_t>(8, 250),
                                  TensorShape({4, 2})),
      false, false);
  Check<Eigen::bfloat16, int8_t, Eigen::bfloat16>(
      v3(DT_BFLOAT16, DT_INT8, DT_BFLOAT16),
      Random<Eigen::bfloat16>(&rng, {2, 3, 4}), Random<int8_t>(&rng, {4, 2}),
      false, false);
  // No half for V3 on CPU, as in TensorFlow.
  REQUIRE_FALSE(RunKernel(BmmNode("BatchMatMulV3", DT_HALF, false, false),
                          {Tensor(DT_HALF, TensorShape({1, 1})),
                           Tensor(DT_HALF, TensorShape({1, 1}))})
                    .ok());
}

// Runs an op's shape function on shapes x and y.
absl::Status Infer(const std::string& op, const PartialShape& x,
                   const PartialShape& y, bool adj_x, PartialShape* out) {
  const OpRegistrationData* reg = OpRegistry::Global()->LookUp(op);
  REQUIRE(reg != nullptr);
  NodeDef node = BmmNode(op, DT_FLOAT, adj_x, false);
  AddDefaultAttrs(reg->op_def, &node);
  InferenceContext c(node, reg->op_def, {x, y}, {nullptr, nullptr}, 1);
  absl::Status s = reg->shape_fn(&c);
  *out = c.output(0);
  return s;
}

TEST_CASE("BatchMatMul shape functions") {
  PartialShape out;
  REQUIRE_OK(Infer("BatchMatMulV2", PartialShape::Known({2, 1, 3, 4}),
                   PartialShape::Known({5, 4, 6}), false, &out));
  REQUIRE(out.DebugString() == "[2,5,3,6]");
  REQUIRE_OK(Infer("BatchMatMulV3", PartialShape::Known({-1, 4, 3}),
                   PartialShape::Known({4, -1}), true, &out));
  REQUIRE(out.DebugString() == "[?,3,?]");
  REQUIRE_OK(Infer("BatchMatMul", PartialShape::Known({2, 3, 4}),
                   PartialShape::Known({-1, 4, 5}), false, &out));
  REQUIRE(out.DebugString() == "[2,3,5]");
  REQUIRE_THAT(Infer("BatchMatMul", PartialShape::Known({2, 3, 4}),
                     PartialShape::Known({3, 4, 5}), false, &out),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "must be the same"));
  REQUIRE_THAT(Infer("BatchMatMulV2", PartialShape::Known({2, 3, 4}),
                     PartialShape::Known({3, 4, 5}), false, &out),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "compatible batch dimensions"));
  REQUIRE_THAT(Infer("BatchMatMulV2", PartialShape::Known({2, 3, 4}),
                     PartialShape::Known({2, 5, 5}), false, &out),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "Matrix size-incompatible"));
  REQUIRE_THAT(Infer("BatchMatMulV2", PartialShape::Known({4}),
                     PartialShape::Known({2, 5, 5}), false, &out),
               StatusIs(absl::StatusCode::kInvalidArgument, "ndims must be"));
}

}  // namespace
}  // namespace dfx

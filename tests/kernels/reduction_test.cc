// Sum, Mean, Prod, Max and Min: the CPU kernels against explicit loops over
// random shapes and axis sets, their edge cases and errors, and the ops'
// shape function.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <type_traits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
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

NodeDef ReduceNode(const std::string& op, DataType dtype, bool keep_dims,
                   DataType tidx = DT_INT32) {
  return TestNodeBuilder("r", op, 2)
      .Attr("T", dtype)
      .Attr("Tidx", tidx)
      .Attr("keep_dims", keep_dims)
      .Build();
}

Tensor Axes(const std::vector<int64_t>& axes, DataType tidx, bool scalar) {
  if (tidx == DT_INT32) {
    std::vector<int32_t> v(axes.begin(), axes.end());
    return scalar ? Tensor::Scalar<int32_t>(v[0])
                  : Tensor::FromVector<int32_t>(v);
  }
  return scalar ? Tensor::Scalar<int64_t>(axes[0])
                : Tensor::FromVector<int64_t>(axes);
}

// The reduction of `in` over `reduced` dims, computed element by element.
// Values are accumulated in double; Mean of an empty set is NaN (0 for
// integers), Max/Min of an empty set are -inf/+inf (lowest/highest for
// integers).
template <typename T>
std::vector<double> Reference(const std::string& op, const Tensor& in,
                              const std::vector<bool>& reduced,
                              int64_t* out_elements) {
  const int rank = in.dims();
  int64_t out_n = 1;
  int64_t count = 1;
  for (int i = 0; i < rank; ++i) {
    (reduced[i] ? count : out_n) *= in.dim_size(i);
  }
  *out_elements = out_n;
  double init = 0;
  if (op == "Prod") init = 1;
  if (op == "Max") {
    init = std::is_floating_point_v<T>
               ? -std::numeric_limits<double>::infinity()
               : static_cast<double>(std::numeric_limits<T>::lowest());
  }
  if (op == "Min") {
    init = std::is_floating_point_v<T>
               ? std::numeric_limits<double>::infinity()
               : static_cast<double>(std::numeric_limits<T>::max());
  }
  std::vector<double> acc(out_n, init);
  std::vector<int64_t> index(rank, 0);
  for (int64_t flat = 0; flat < in.NumElements(); ++flat) {
    int64_t rem = flat;
    for (int i = rank - 1; i >= 0; --i) {
      index[i] = rem % in.dim_size(i);
      rem /= in.dim_size(i);
    }
    int64_t o = 0;
    for (int i = 0; i < rank; ++i) {
      if (!reduced[i]) o = o * in.dim_size(i) + index[i];
    }
    const double v = static_cast<double>(in.data<T>()[flat]);
    if (op == "Sum" || op == "Mean") acc[o] += v;
    if (op == "Prod") acc[o] *= v;
    if (op == "Max") acc[o] = std::max(acc[o], v);
    if (op == "Min") acc[o] = std::min(acc[o], v);
  }
  if (op == "Mean") {
    for (double& a : acc) {
      if (count == 0) {
        a = std::is_floating_point_v<T> ? std::nan("") : 0;
      } else if (std::is_floating_point_v<T>) {
        a /= static_cast<double>(count);
      } else {
        a = static_cast<double>(static_cast<int64_t>(a) / count);
      }
    }
  }
  return acc;
}

template <typename T>
Tensor RandomInput(std::mt19937* rng, const TensorShape& shape,
                   const std::string& op) {
  std::vector<T> v(shape.num_elements());
  for (T& x : v) {
    if (op == "Prod") {
      // Products stay small: +-1 for integers, near 1 for floats.
      if constexpr (std::is_floating_point_v<T>) {
        x = std::uniform_real_distribution<T>(0.9, 1.1)(*rng);
      } else {
        x = std::uniform_int_distribution<int>(0, 1)(*rng) ? 1 : -1;
      }
    } else if constexpr (std::is_floating_point_v<T>) {
      x = std::uniform_real_distribution<T>(-10, 10)(*rng);
    } else {
      x = static_cast<T>(std::uniform_int_distribution<int>(-50, 50)(*rng));
    }
  }
  return Tensor::FromVector<T>(v, shape);
}

template <typename T>
void CheckRandomReductions(const std::string& op, uint32_t seed) {
  std::mt19937 rng(seed);
  for (int iter = 0; iter < 150; ++iter) {
    // Mostly small shapes, some large enough to run on the intra-op pool.
    const bool large = iter % 15 == 0;
    const int rank = std::uniform_int_distribution<int>(0, large ? 3 : 5)(rng);
    std::vector<int64_t> dims(rank);
    for (int64_t& d : dims) {
      d = large ? std::uniform_int_distribution<int64_t>(20, 60)(rng)
                : std::uniform_int_distribution<int64_t>(0, 4)(rng);
      if (!large && d == 0 && std::uniform_int_distribution<int>(0, 2)(rng)) {
        d = 3;  // keep empty tensors from dominating
      }
    }
    auto shape = TensorShape::Build(dims);
    REQUIRE_OK(shape);
    // A random axis set, each axis written plain or negative, maybe twice.
    std::vector<int64_t> axes;
    std::vector<bool> reduced(rank, false);
    for (int i = 0; i < rank; ++i) {
      const int pick = std::uniform_int_distribution<int>(0, 3)(rng);
      if (pick == 0) continue;
      reduced[i] = true;
      axes.push_back(pick == 1 ? i : i - rank);
      if (pick == 3) axes.push_back(i);
    }
    std::shuffle(axes.begin(), axes.end(), rng);
    const bool keep_dims = std::uniform_int_distribution<int>(0, 1)(rng);
    const DataType tidx =
        std::uniform_int_distribution<int>(0, 1)(rng) ? DT_INT32 : DT_INT64;
    const bool scalar_axis =
        axes.size() == 1 && std::uniform_int_distribution<int>(0, 1)(rng);

    const Tensor in = RandomInput<T>(&rng, *shape, op);
    INFO(op << " " << DataTypeString(DataTypeToEnum<T>::value) << " shape "
            << shape->DebugString() << " axes [" << absl::StrJoin(axes, ",")
            << "] keep_dims " << keep_dims << " scalar " << scalar_axis);
    auto out = RunKernel(
        ReduceNode(op, DataTypeToEnum<T>::value, keep_dims, tidx),
        {in, Axes(axes, tidx, scalar_axis)});
    REQUIRE_OK(out);
    const Tensor& got = (*out)[0];

    std::vector<int64_t> want_dims;
    for (int i = 0; i < rank; ++i) {
      if (!reduced[i]) want_dims.push_back(dims[i]);
      if (reduced[i] && keep_dims) want_dims.push_back(1);
    }
    REQUIRE(got.shape() == *TensorShape::Build(want_dims));
    int64_t n = 0;
    const std::vector<double> want = Reference<T>(op, in, reduced, &n);
    REQUIRE(got.NumElements() == n);
    for (int64_t i = 0; i < n; ++i) {
      const double g = static_cast<double>(got.data<T>()[i]);
      if (std::isnan(want[i])) {
        REQUIRE(std::isnan(g));
      } else if (std::isinf(want[i]) || !std::is_floating_point_v<T>) {
        REQUIRE(g == want[i]);
      } else {
        REQUIRE(g == Approx(want[i]).epsilon(1e-4).margin(1e-3));
      }
    }
  }
}

TEMPLATE_TEST_CASE("Reductions match explicit loops over random axes",
                   "[reduction]", float, double, int32_t, int64_t) {
  uint32_t seed = 100;
  for (const char* op : {"Sum", "Mean", "Prod", "Max", "Min"}) {
    SECTION(op) { CheckRandomReductions<TestType>(op, seed); }
    ++seed;
  }
}

TEST_CASE("Reductions over outer and middle axes of large inputs") {
  // Kept blocks wider than one task's block, with a remainder, on the pool.
  std::mt19937 rng(5);
  struct Case {
    std::vector<int64_t> dims;
    std::vector<int64_t> axes;
  };
  for (const Case& c : std::vector<Case>{{{70, 2500}, {0}},
                                         {{3, 40, 1500}, {1}},
                                         {{6, 50, 7, 300}, {0, 2}}}) {
    const TensorShape shape = *TensorShape::Build(c.dims);
    std::vector<bool> reduced(c.dims.size(), false);
    for (int64_t a : c.axes) reduced[a] = true;
    for (const char* op : {"Sum", "Mean", "Max", "Min"}) {
      INFO(op << " " << shape.DebugString());
      const Tensor in = RandomInput<double>(&rng, shape, op);
      auto out = RunKernel(ReduceNode(op, DT_DOUBLE, false),
                           {in, Axes(c.axes, DT_INT32, false)});
      REQUIRE_OK(out);
      int64_t n = 0;
      const std::vector<double> want = Reference<double>(op, in, reduced, &n);
      REQUIRE((*out)[0].NumElements() == n);
      for (int64_t i = 0; i < n; ++i) {
        REQUIRE((*out)[0].data<double>()[i] == Approx(want[i]).epsilon(1e-9));
      }
    }
  }
}

TEST_CASE("Sum reduces hand-checked axes with keep_dims") {
  // [[1,2,3],[4,5,6]]
  const Tensor in =
      Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, TensorShape({2, 3}));
  auto rows = RunKernel(ReduceNode("Sum", DT_FLOAT, false),
                        {in, Tensor::Scalar<int32_t>(1)});
  REQUIRE_OK(rows);
  REQUIRE((*rows)[0].shape() == TensorShape({2}));
  REQUIRE((*rows)[0].data<float>()[0] == 6);
  REQUIRE((*rows)[0].data<float>()[1] == 15);
  auto cols = RunKernel(ReduceNode("Sum", DT_FLOAT, true),
                        {in, Tensor::FromVector<int32_t>({-2})});
  REQUIRE_OK(cols);
  REQUIRE((*cols)[0].shape() == TensorShape({1, 3}));
  REQUIRE((*cols)[0].data<float>()[2] == 9);
  // Duplicate axes count once.
  auto all = RunKernel(ReduceNode("Sum", DT_FLOAT, false),
                       {in, Tensor::FromVector<int32_t>({0, 1, -1, 0})});
  REQUIRE_OK(all);
  REQUIRE((*all)[0].shape() == TensorShape({}));
  REQUIRE((*all)[0].scalar<float>() == 21);
  // No axes: unchanged.
  auto none = RunKernel(ReduceNode("Sum", DT_FLOAT, false),
                        {in, Tensor::FromVector<int32_t>({})});
  REQUIRE_OK(none);
  REQUIRE((*none)[0].shape() == TensorShape({2, 3}));
  REQUIRE((*none)[0].data<float>()[4] == 5);
}

TEST_CASE("Reductions of an empty set give TensorFlow's identities") {
  const Tensor f = Tensor(DT_FLOAT, TensorShape({2, 0}));
  const Tensor axis1 = Tensor::Scalar<int32_t>(1);
  auto run = [&](const char* op, const Tensor& in, DataType dtype) {
    auto out = RunKernel(ReduceNode(op, dtype, false), {in, axis1});
    REQUIRE_OK(out);
    REQUIRE((*out)[0].shape() == TensorShape({2}));
    return (*out)[0];
  };
  REQUIRE(run("Sum", f, DT_FLOAT).data<float>()[1] == 0);
  REQUIRE(run("Prod", f, DT_FLOAT).data<float>()[1] == 1);
  REQUIRE(std::isnan(run("Mean", f, DT_FLOAT).data<float>()[1]));
  REQUIRE(run("Max", f, DT_FLOAT).data<float>()[1] ==
          -std::numeric_limits<float>::infinity());
  REQUIRE(run("Min", f, DT_FLOAT).data<float>()[1] ==
          std::numeric_limits<float>::infinity());
  const Tensor i = Tensor(DT_INT32, TensorShape({2, 0}));
  REQUIRE(run("Max", i, DT_INT32).data<int32_t>()[0] ==
          std::numeric_limits<int32_t>::lowest());
  REQUIRE(run("Min", i, DT_INT32).data<int32_t>()[0] ==
          std::numeric_limits<int32_t>::max());
  REQUIRE(run("Sum", i, DT_INT32).data<int32_t>()[0] == 0);
}

TEST_CASE("Mean of integers divides as integers") {
  auto out = RunKernel(ReduceNode("Mean", DT_INT32, false),
                       {Tensor::FromVector<int32_t>({1, 2, 4}),
                        Tensor::Scalar<int32_t>(0)});
  REQUIRE_OK(out);
  REQUIRE((*out)[0].scalar<int32_t>() == 2);
}

TEST_CASE("Max and Min propagate NaN") {
  const Tensor in = Tensor::FromVector<float>({1, std::nanf(""), 3, 4},
                                              TensorShape({2, 2}));
  for (const char* op : {"Max", "Min"}) {
    auto out = RunKernel(ReduceNode(op, DT_FLOAT, false),
                         {in, Tensor::Scalar<int32_t>(1)});
    REQUIRE_OK(out);
    REQUIRE(std::isnan((*out)[0].data<float>()[0]));
    REQUIRE((*out)[0].data<float>()[1] == (std::string(op) == "Max" ? 4 : 3));
  }
}

TEST_CASE("Reductions reject out-of-range axes naming the node") {
  const Tensor in = Tensor(DT_FLOAT, TensorShape({2, 3}));
  for (int64_t axis : {2, -3, 100}) {
    REQUIRE_THAT(
        RunKernel(ReduceNode("Sum", DT_FLOAT, false, DT_INT64),
                  {in, Tensor::FromVector<int64_t>({0, axis})})
            .status(),
        StatusIs(absl::StatusCode::kInvalidArgument,
                 absl::StrCat("node 'r' (op Sum): Invalid reduction dimension "
                              "(",
                              axis, " for input with 2 dimension(s))")));
  }
  REQUIRE_THAT(RunKernel(ReduceNode("Max", DT_FLOAT, false),
                         {Tensor::Scalar(1.0f), Tensor::Scalar<int32_t>(0)})
                   .status(),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "Invalid reduction dimension (0 for input with 0"));
  REQUIRE_THAT(RunKernel(ReduceNode("Mean", DT_FLOAT, false),
                         {in, Tensor(DT_INT32, TensorShape({1, 1}))})
                   .status(),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "node 'r' (op Mean): reduction_indices must be a "
                        "scalar or a vector"));
}

// Runs a reduction's shape function on `input` with constant `axes` (or
// unknown axes when null).
absl::Status InferReduction(const PartialShape& input, const Tensor* axes,
                            bool keep_dims, PartialShape* out) {
  const OpRegistrationData* op = OpRegistry::Global()->LookUp("Sum");
  REQUIRE(op != nullptr);
  NodeDef node = ReduceNode("Sum", DT_FLOAT, keep_dims);
  AddDefaultAttrs(op->op_def, &node);
  TensorProto proto;
  PartialShape axes_shape = PartialShape::Known({-1});
  if (axes != nullptr) {
    axes->AsProtoTensorContent(&proto);
    axes_shape = PartialShape::FromProto(proto.tensor_shape());
  }
  InferenceContext c(node, op->op_def, {input, axes_shape},
                     {nullptr, axes != nullptr ? &proto : nullptr}, 1);
  absl::Status s = op->shape_fn(&c);
  *out = c.output(0);
  return s;
}

TEST_CASE("The reduction shape function uses constant axes") {
  PartialShape out;
  const Tensor axes = Tensor::FromVector<int32_t>({-1, 0, 0});
  REQUIRE_OK(InferReduction(PartialShape::Known({2, -1, 4}), &axes, false,
                            &out));
  REQUIRE(out.DebugString() == "[?]");
  REQUIRE_OK(InferReduction(PartialShape::Known({2, -1, 4}), &axes, true,
                            &out));
  REQUIRE(out.DebugString() == "[1,?,1]");
  const Tensor scalar = Tensor::Scalar<int64_t>(1);
  REQUIRE_OK(InferReduction(PartialShape::Known({2, 3}), &scalar, false,
                            &out));
  REQUIRE(out.DebugString() == "[2]");
  // Unknown axes: the rank survives only with keep_dims.
  REQUIRE_OK(InferReduction(PartialShape::Known({2, 3}), nullptr, true, &out));
  REQUIRE(out.DebugString() == "[?,?]");
  REQUIRE_OK(InferReduction(PartialShape::Known({2, 3}), nullptr, false, &out));
  REQUIRE_FALSE(out.RankKnown());
  const Tensor bad = Tensor::FromVector<int32_t>({3});
  REQUIRE_THAT(InferReduction(PartialShape::Known({2, 3, 4}), &bad, false,
                              &out),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "node 'r' (op Sum): Invalid reduction dimension (3 "
                        "for input with 3 dimension(s))"));
}

}  // namespace
}  // namespace dfx

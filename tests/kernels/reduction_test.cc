// Sum, Mean, Prod, Max and Min: the CPU kernels against explicit loops over
// random shapes and axis sets, their edge cases and errors, and the ops'
// shape function.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "catch2/catch.hpp"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "kernels/kernels.h"
#include "runtime/device.h"
#include "runtime/op_kernel.h"
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

// Floating point, half and bfloat16 included.
template <typename T>
constexpr bool kIsFloat =
    std::is_floating_point_v<T> || std::is_same_v<T, Eigen::half> ||
    std::is_same_v<T, Eigen::bfloat16>;

// The reduction of `in` over `reduced` dims, computed element by element.
// Values are accumulated in double; integer Sum and Prod wrap into T at the
// end (as the kernels wrap all along), integer Mean divides with truncation;
// Mean of an empty set is NaN (0 for integers), Max/Min of an empty set are
// -inf/+inf (lowest/highest for integers); EuclideanNorm is for floating
// point only.
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
    init = kIsFloat<T> ? -std::numeric_limits<double>::infinity()
                       : static_cast<double>(std::numeric_limits<T>::lowest());
  }
  if (op == "Min") {
    init = kIsFloat<T> ? std::numeric_limits<double>::infinity()
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
    if (op == "EuclideanNorm") acc[o] += v * v;
    if (op == "Prod") acc[o] *= v;
    if (op == "Max") acc[o] = std::max(acc[o], v);
    if (op == "Min") acc[o] = std::min(acc[o], v);
  }
  for (double& a : acc) {
    if (op == "Mean") {
      if (count == 0) {
        a = kIsFloat<T> ? std::nan("") : 0;
      } else if (kIsFloat<T>) {
        a /= static_cast<double>(count);
      } else {
        a = static_cast<double>(static_cast<int64_t>(a) / count);
      }
    } else if (op == "EuclideanNorm") {
      a = std::sqrt(a);
    } else if constexpr (!kIsFloat<T>) {
      if (op == "Sum" || op == "Prod") {
        a = static_cast<double>(static_cast<T>(static_cast<int64_t>(a)));
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
      // Products stay small: +-1 for integers and half, near 1 for floats,
      // 0 or 1 for unsigned types.
      if constexpr (std::is_floating_point_v<T>) {
        x = std::uniform_real_distribution<T>(0.9, 1.1)(*rng);
      } else if constexpr (std::is_unsigned_v<T>) {
        x = std::uniform_int_distribution<int>(0, 7)(*rng) ? 1 : 0;
      } else {
        x = static_cast<T>(std::uniform_int_distribution<int>(0, 1)(*rng) ? 1
                                                                          : -1);
      }
    } else if constexpr (std::is_floating_point_v<T>) {
      x = std::uniform_real_distribution<T>(-10, 10)(*rng);
    } else if constexpr (kIsFloat<T>) {
      // Multiples of 0.5: every partial sum is exact in float.
      x = static_cast<T>(0.5f *
                         static_cast<float>(std::uniform_int_distribution<int>(
                             -20, 20)(*rng)));
    } else if constexpr (std::is_unsigned_v<T>) {
      x = static_cast<T>(std::uniform_int_distribution<int>(0, 50)(*rng));
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
    auto out =
        RunKernel(ReduceNode(op, DataTypeToEnum<T>::value, keep_dims, tidx),
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
      } else if (std::isinf(want[i]) || !kIsFloat<T>) {
        REQUIRE(g == want[i]);
      } else {
        // Half and bfloat16 round the (float) result once.
        const double eps = std::is_same_v<T, Eigen::bfloat16> ? 8e-3
                           : std::is_same_v<T, Eigen::half>   ? 1e-3
                                                              : 1e-4;
        REQUIRE(g == Approx(want[i]).epsilon(eps).margin(1e-3));
      }
    }
  }
}

TEMPLATE_TEST_CASE("Reductions match explicit loops over random axes",
                   "[reduction]", float, double, Eigen::half, Eigen::bfloat16,
                   int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t,
                   uint32_t, uint64_t) {
  uint32_t seed = 100;
  for (const char* op :
       {"Sum", "Mean", "Prod", "Max", "Min", "EuclideanNorm"}) {
    if (std::string(op) == "EuclideanNorm" && !kIsFloat<TestType>) continue;
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
  auto out = RunKernel(
      ReduceNode("Mean", DT_INT32, false),
      {Tensor::FromVector<int32_t>({1, 2, 4}), Tensor::Scalar<int32_t>(0)});
  REQUIRE_OK(out);
  REQUIRE((*out)[0].scalar<int32_t>() == 2);
}

TEST_CASE("Max and Min propagate NaN") {
  const Tensor in =
      Tensor::FromVector<float>({1, std::nanf(""), 3, 4}, TensorShape({2, 2}));
  for (const char* op : {"Max", "Min"}) {
    auto out = RunKernel(ReduceNode(op, DT_FLOAT, false),
                         {in, Tensor::Scalar<int32_t>(1)});
    REQUIRE_OK(out);
    REQUIRE(std::isnan((*out)[0].data<float>()[0]));
    REQUIRE((*out)[0].data<float>()[1] == (std::string(op) == "Max" ? 4 : 3));
  }
}

TEST_CASE("Reductions reject out-of-range axes") {
  const Tensor in = Tensor(DT_FLOAT, TensorShape({2, 3}));
  for (int64_t axis : {2, -3, 100}) {
    REQUIRE_THAT(RunKernel(ReduceNode("Sum", DT_FLOAT, false, DT_INT64),
                           {in, Tensor::FromVector<int64_t>({0, axis})})
                     .status(),
                 StatusIs(absl::StatusCode::kInvalidArgument,
                          absl::StrCat("Invalid reduction dimension (", axis,
                                       " for input with 2 dimension(s))")));
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
                        "reduction_indices must be a scalar or a vector"));
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
  REQUIRE_OK(
      InferReduction(PartialShape::Known({2, -1, 4}), &axes, false, &out));
  REQUIRE(out.DebugString() == "[?]");
  REQUIRE_OK(
      InferReduction(PartialShape::Known({2, -1, 4}), &axes, true, &out));
  REQUIRE(out.DebugString() == "[1,?,1]");
  const Tensor scalar = Tensor::Scalar<int64_t>(1);
  REQUIRE_OK(InferReduction(PartialShape::Known({2, 3}), &scalar, false, &out));
  REQUIRE(out.DebugString() == "[2]");
  // Unknown axes: the rank survives only with keep_dims.
  REQUIRE_OK(InferReduction(PartialShape::Known({2, 3}), nullptr, true, &out));
  REQUIRE(out.DebugString() == "[?,?]");
  REQUIRE_OK(InferReduction(PartialShape::Known({2, 3}), nullptr, false, &out));
  REQUIRE_FALSE(out.RankKnown());
  const Tensor bad = Tensor::FromVector<int32_t>({3});
  REQUIRE_THAT(
      InferReduction(PartialShape::Known({2, 3, 4}), &bad, false, &out),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "node 'r' (op Sum): Invalid reduction dimension (3 "
               "for input with 3 dimension(s))"));
}

// Runs `node` on a CPU device of its own with `threads` intra-op threads.
Tensor RunOnDevice(const NodeDef& node_in, const std::vector<Tensor>& inputs,
                   int threads) {
  CpuDeviceOptions options;
  options.intra_op_threads = threads;
  std::unique_ptr<DeviceMgr> mgr = DeviceMgr::NewCpu(options).value();
  Device* device = mgr->ListDevices()[0];
  const OpRegistrationData* op = OpRegistry::Global()->LookUp(node_in.op());
  REQUIRE(op != nullptr);
  NodeDef node = node_in;
  AddDefaultAttrs(op->op_def, &node);
  auto kernel =
      StandardKernelRegistry()->CreateKernel(node, op->op_def, device);
  REQUIRE_OK(kernel);
  OpKernelContext::Params params;
  params.op_kernel = kernel->get();
  params.device = device;
  params.inputs = inputs;
  OpKernelContext ctx(&params);
  (*kernel)->Compute(&ctx);
  REQUIRE_OK(ctx.status());
  return (*ctx.mutable_outputs())[0];
}

// 1 + 0.5 sin(i): positive values whose float sum a one-by-one loop gets
// visibly wrong.
Tensor Wave(const TensorShape& shape) {
  Tensor t(DT_FLOAT, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    t.data<float>()[i] = 1.0f + 0.5f * std::sin(static_cast<float>(i));
  }
  return t;
}

// The float64 sum of `t` over `axis` of its 2-D view [rows, cols].
std::vector<double> ExactSum(const Tensor& t, int64_t rows, int64_t cols,
                             int axis) {
  std::vector<double> out(axis == 0 ? cols : rows, 0.0);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      out[axis == 0 ? c : r] += t.data<float>()[r * cols + c];
    }
  }
  return out;
}

// Largest |got - want| / |want|.
double MaxRelativeError(const Tensor& got, const std::vector<double>& want) {
  double worst = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    worst = std::max(
        worst, std::fabs(got.data<float>()[i] - want[i]) / std::fabs(want[i]));
  }
  return worst;
}

TEST_CASE("Float sums of 2^25 values are pairwise, as in TensorFlow") {
  const Tensor ones = [] {
    Tensor t(DT_FLOAT, TensorShape({int64_t{1} << 25}));
    std::fill(t.data<float>(), t.data<float>() + t.NumElements(), 1.0f);
    return t;
  }();
  // A one-by-one sum stops at 2^24 = 16777216 (and a mean at 0.5).
  auto sum = RunKernel(ReduceNode("Sum", DT_FLOAT, false),
                       {ones, Tensor::Scalar<int32_t>(0)});
  REQUIRE_OK(sum);
  CHECK((*sum)[0].scalar<float>() == 33554432.0f);
  auto mean = RunKernel(ReduceNode("Mean", DT_FLOAT, false),
                        {ones, Tensor::Scalar<int32_t>(0)});
  REQUIRE_OK(mean);
  CHECK((*mean)[0].scalar<float>() == 1.0f);
  // Two columns of 2^24 + 7 rows: the regrouped column path.
  const Tensor two_columns = [] {
    Tensor t(DT_FLOAT, TensorShape({(int64_t{1} << 24) + 7, 2}));
    std::fill(t.data<float>(), t.data<float>() + t.NumElements(), 1.0f);
    return t;
  }();
  auto columns = RunKernel(ReduceNode("Sum", DT_FLOAT, false),
                           {two_columns, Tensor::Scalar<int32_t>(0)});
  REQUIRE_OK(columns);
  CHECK((*columns)[0].data<float>()[0] == 16777224.0f);  // 2^24 + 7 rounded
  CHECK((*columns)[0].data<float>()[1] == 16777224.0f);
}

TEST_CASE("Row, column and middle float sums stay within a few ulps") {
  // The float result itself is off by up to 6e-8 relative; the one-chain
  // sums dfx had before were off by 2e-6 (columns), 5e-6 (middle) and
  // 2.5e-5 (rows) here.
  constexpr double kBound = 3e-7;
  const int64_t rows = int64_t{1} << 20;
  const Tensor wave = Wave(TensorShape({rows, 32}));
  auto cols = RunKernel(ReduceNode("Sum", DT_FLOAT, false),
                        {wave, Tensor::Scalar<int32_t>(0)});
  REQUIRE_OK(cols);
  const double cols_error =
      MaxRelativeError((*cols)[0], ExactSum(wave, rows, 32, 0));
  CAPTURE(cols_error);
  CHECK(cols_error < kBound);
  const Tensor long_rows = Wave(TensorShape({32, rows}));
  auto row_sums = RunKernel(ReduceNode("Sum", DT_FLOAT, false),
                            {long_rows, Tensor::Scalar<int32_t>(1)});
  REQUIRE_OK(row_sums);
  const double rows_error =
      MaxRelativeError((*row_sums)[0], ExactSum(long_rows, 32, rows, 1));
  CAPTURE(rows_error);
  CHECK(rows_error < kBound);
  // [4, 2^18, 8] over the middle axis: per outer index, a column sum.
  const Tensor cube = Wave(TensorShape({4, int64_t{1} << 18, 8}));
  auto middle = RunKernel(ReduceNode("Sum", DT_FLOAT, false),
                          {cube, Tensor::Scalar<int32_t>(1)});
  REQUIRE_OK(middle);
  std::vector<double> want(32, 0.0);
  for (int64_t i = 0; i < cube.NumElements(); ++i) {
    want[(i / (int64_t{8} << 18)) * 8 + i % 8] += cube.data<float>()[i];
  }
  const double middle_error = MaxRelativeError((*middle)[0], want);
  CAPTURE(middle_error);
  CHECK(middle_error < kBound);
}

TEST_CASE("Reductions give the same bits whatever the thread count") {
  const Tensor wave = Wave(TensorShape({int64_t{1} << 21, 4}));
  for (const auto& axes : {std::vector<int64_t>{0}, std::vector<int64_t>{1},
                           std::vector<int64_t>{0, 1}}) {
    const NodeDef node = ReduceNode("Sum", DT_FLOAT, false);
    const Tensor a = RunOnDevice(node, {wave, Axes(axes, DT_INT32, false)}, 1);
    const Tensor b = RunOnDevice(node, {wave, Axes(axes, DT_INT32, false)}, 4);
    REQUIRE(a.NumElements() == b.NumElements());
    CHECK(std::memcmp(a.raw_data(), b.raw_data(), a.TotalBytes()) == 0);
  }
}

TEST_CASE("Half and bfloat16 accumulate in float") {
  // 10000 x half(0.1): a half accumulator stalls near 1000; float does not.
  Tensor h(DT_HALF, TensorShape({10000}));
  std::fill(h.data<Eigen::half>(), h.data<Eigen::half>() + 10000,
            Eigen::half(0.1f));
  const double exact = 10000 * static_cast<double>(Eigen::half(0.1f));
  auto sum = RunKernel(ReduceNode("Sum", DT_HALF, false),
                       {h, Tensor::Scalar<int32_t>(0)});
  REQUIRE_OK(sum);
  CHECK(static_cast<float>((*sum)[0].scalar<Eigen::half>()) ==
        static_cast<float>(Eigen::half(static_cast<float>(exact))));
  // A mean whose half sum would overflow.
  Tensor ones(DT_BFLOAT16, TensorShape({100000}));
  std::fill(ones.data<Eigen::bfloat16>(), ones.data<Eigen::bfloat16>() + 100000,
            Eigen::bfloat16(1.0f));
  auto mean = RunKernel(ReduceNode("Mean", DT_BFLOAT16, false),
                        {ones, Tensor::Scalar<int32_t>(0)});
  REQUIRE_OK(mean);
  CHECK(static_cast<float>((*mean)[0].scalar<Eigen::bfloat16>()) == 1.0f);
  Tensor hones(DT_HALF, TensorShape({100000, 2}));
  std::fill(hones.data<Eigen::half>(), hones.data<Eigen::half>() + 200000,
            Eigen::half(1.0f));
  auto hmean = RunKernel(ReduceNode("Mean", DT_HALF, false),
                         {hones, Tensor::Scalar<int32_t>(0)});
  REQUIRE_OK(hmean);
  CHECK(static_cast<float>((*hmean)[0].data<Eigen::half>()[1]) == 1.0f);
}

TEST_CASE("Integer reductions wrap, integer means do not") {
  Tensor i8(DT_INT8, TensorShape({1000}));
  std::fill(i8.data<int8_t>(), i8.data<int8_t>() + 1000, int8_t{100});
  auto sum = RunKernel(ReduceNode("Sum", DT_INT8, false),
                       {i8, Tensor::Scalar<int32_t>(0)});
  REQUIRE_OK(sum);
  CHECK((*sum)[0].scalar<int8_t>() == static_cast<int8_t>(100000 % 256));
  auto mean = RunKernel(ReduceNode("Mean", DT_INT8, false),
                        {i8, Tensor::Scalar<int32_t>(0)});
  REQUIRE_OK(mean);
  CHECK((*mean)[0].scalar<int8_t>() == 100);
  auto mean_neg = RunKernel(
      ReduceNode("Mean", DT_INT32, false),
      {Tensor::FromVector<int32_t>({-3, -4}), Tensor::Scalar<int32_t>(0)});
  REQUIRE_OK(mean_neg);
  CHECK((*mean_neg)[0].scalar<int32_t>() == -3);
}

TEST_CASE("EuclideanNorm, All and Any") {
  const Tensor x =
      Tensor::FromVector<float>({3, -4, 0, -12}, TensorShape({2, 2}));
  auto rows = RunKernel(ReduceNode("EuclideanNorm", DT_FLOAT, false),
                        {x, Tensor::Scalar<int32_t>(1)});
  REQUIRE_OK(rows);
  CHECK((*rows)[0].data<float>()[0] == 5.0f);
  CHECK((*rows)[0].data<float>()[1] == 12.0f);
  // Nothing reduced: |x|, not x.
  auto none = RunKernel(ReduceNode("EuclideanNorm", DT_FLOAT, false),
                        {x, Tensor::FromVector<int32_t>({})});
  REQUIRE_OK(none);
  CHECK((*none)[0].data<float>()[1] == 4.0f);
  // Integers square and sum in their own type, as TensorFlow: 200^2 wraps
  // in int16.
  auto i16 = RunKernel(
      ReduceNode("EuclideanNorm", DT_INT16, false),
      {Tensor::FromVector<int16_t>({200, 200}), Tensor::Scalar<int32_t>(0)});
  REQUIRE_OK(i16);
  CHECK((*i16)[0].scalar<int16_t>() == 120);

  auto bool_node = [](const char* op, bool keep_dims) {
    return TestNodeBuilder("r", op, 2)
        .Attr("Tidx", DT_INT32)
        .Attr("keep_dims", keep_dims)
        .Build();
  };
  const Tensor b = Tensor::FromVector<bool>(
      {true, true, false, true, true, true}, TensorShape({2, 3}));
  auto all_rows =
      RunKernel(bool_node("All", false), {b, Tensor::Scalar<int32_t>(1)});
  REQUIRE_OK(all_rows);
  CHECK((*all_rows)[0].data<bool>()[0] == false);
  CHECK((*all_rows)[0].data<bool>()[1] == true);
  auto any_cols =
      RunKernel(bool_node("Any", true), {b, Tensor::Scalar<int32_t>(0)});
  REQUIRE_OK(any_cols);
  CHECK((*any_cols)[0].shape() == TensorShape({1, 3}));
  const Tensor empty(DT_BOOL, TensorShape({0}));
  auto all_empty =
      RunKernel(bool_node("All", false), {empty, Tensor::Scalar<int32_t>(0)});
  auto any_empty =
      RunKernel(bool_node("Any", false), {empty, Tensor::Scalar<int32_t>(0)});
  REQUIRE_OK(all_empty);
  REQUIRE_OK(any_empty);
  CHECK((*all_empty)[0].scalar<bool>() == true);
  CHECK((*any_empty)[0].scalar<bool>() == false);
  // Large: the vectorised leaves and the column path.
  Tensor big(DT_BOOL, TensorShape({1 << 20, 3}));
  std::fill(big.data<bool>(), big.data<bool>() + big.NumElements(), true);
  big.data<bool>()[12345 * 3 + 1] = false;
  auto all_big =
      RunKernel(bool_node("All", false), {big, Tensor::Scalar<int32_t>(0)});
  REQUIRE_OK(all_big);
  CHECK(std::vector<bool>((*all_big)[0].data<bool>(),
                          (*all_big)[0].data<bool>() + 3) ==
        std::vector<bool>{true, false, true});
  auto any_big = RunKernel(bool_node("Any", false),
                           {big, Tensor::FromVector<int32_t>({0, 1})});
  REQUIRE_OK(any_big);
  CHECK((*any_big)[0].scalar<bool>() == true);
}

// Throughput of 64 MiB reductions against a memcpy of the same bytes; run by
// hand: dfx_kernels_tests "[.bench]". Prints best-of-N GB/s (input bytes per
// second); asserts nothing about speed.
TEST_CASE("Reduction throughput on 64 MiB", "[.bench]") {
  using Clock = std::chrono::steady_clock;
  constexpr int64_t kBytes = int64_t{64} << 20;
  constexpr int kReps = 10;
  auto best_seconds = [](const std::function<void()>& fn) {
    double best = 1e30;
    fn();  // warm up: page faults, thread start
    for (int i = 0; i < kReps; ++i) {
      const auto start = Clock::now();
      fn();
      best = std::min(
          best, std::chrono::duration<double>(Clock::now() - start).count());
    }
    return best;
  };
  auto report = [&](const std::string& what, double seconds) {
    std::printf("%-44s %8.3f ms %8.2f GB/s\n", what.c_str(), seconds * 1e3,
                static_cast<double>(kBytes) / seconds / 1e9);
  };

  std::vector<char> src(kBytes, 1), dst(kBytes);
  report("memcpy", best_seconds([&] {
           std::memcpy(dst.data(), src.data(), kBytes);
           REQUIRE(dst[kBytes - 1] == 1);
         }));

  struct Case {
    std::string name;
    DataType dtype;
    std::vector<int64_t> dims;
    std::vector<int64_t> axes;
  };
  const int64_t n = kBytes / 4;
  const std::vector<Case> cases = {
      {"Sum float [16Mi] all", DT_FLOAT, {n}, {0}},
      {"Sum float [32, 512Ki] axis 1 (rows)", DT_FLOAT, {32, n / 32}, {1}},
      {"Sum float [512Ki, 32] axis 0 (columns)", DT_FLOAT, {n / 32, 32}, {0}},
      {"Sum float [64, 4Ki, 64] axis 1 (middle)",
       DT_FLOAT,
       {64, 4096, 64},
       {1}},
      {"Mean float [16Mi] all", DT_FLOAT, {n}, {0}},
      {"Max float [16Mi] all", DT_FLOAT, {n}, {0}},
      {"Sum double [8Mi] all", DT_DOUBLE, {n / 2}, {0}},
      {"Sum int32 [16Mi] all", DT_INT32, {n}, {0}},
  };
  for (const Case& c : cases) {
    Tensor in(c.dtype, *TensorShape::Build(c.dims));
    std::memset(in.raw_data(), 0, kBytes);
    const NodeDef node =
        ReduceNode(c.name.substr(0, c.name.find(' ')), c.dtype, false);
    const Tensor axes = Axes(c.axes, DT_INT32, false);
    report(c.name, best_seconds([&] {
             REQUIRE_OK(RunKernel(node, {in, axes}));
           }));
  }
}

}  // namespace
}  // namespace dfx

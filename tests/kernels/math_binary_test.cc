// Broadcasting binary math kernels: arithmetic, comparisons, broadcasting
// against an index-by-index reference, division by zero, shape errors.
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <vector>

#include "catch2/catch.hpp"
#include "graph/op_registry.h"
#include "tests/kernels/math_test_util.h"

namespace dfx {
namespace {

using testing::MakeTensor;
using testing::MakeVector;
using testing::RunError;
using testing::RunOne;
using testing::StatusIs;
using testing::TypedNode;
using testing::Values;

Tensor RunBinary(const std::string& op, DataType dtype, const Tensor& x,
                 const Tensor& y) {
  return RunOne(TypedNode("n", op, dtype, 2).Build(), {x, y});
}

TEST_CASE("Math ops have TensorFlow's signatures") {
  const OpRegistry* reg = OpRegistry::Global();
  for (const char* op :
       {"Add", "AddV2", "Sub", "Mul", "Div", "RealDiv", "FloorDiv", "Maximum",
        "Minimum", "SquaredDifference"}) {
    const OpRegistrationData* data = reg->LookUp(op);
    REQUIRE(data != nullptr);
    REQUIRE(data->op_def.input_arg_size() == 2);
    CHECK(data->op_def.input_arg(0).name() == "x");
    CHECK(data->op_def.input_arg(1).name() == "y");
    CHECK(data->op_def.output_arg(0).name() == "z");
  }
  const OpRegistrationData* equal = reg->LookUp("Equal");
  REQUIRE(equal != nullptr);
  CHECK(equal->op_def.output_arg(0).type() == DT_BOOL);
  bool found = false;
  for (const auto& attr : equal->op_def.attr()) {
    if (attr.name() == "incompatible_shape_error") {
      found = true;
      CHECK(attr.default_value().b());
    }
  }
  CHECK(found);
  const OpRegistrationData* addn = reg->LookUp("AddN");
  REQUIRE(addn != nullptr);
  CHECK(addn->op_def.input_arg(0).number_attr() == "N");
  CHECK(addn->op_def.output_arg(0).name() == "sum");
}

TEST_CASE("Arithmetic on same shapes, per dtype") {
  SECTION("float") {
    Tensor x = MakeVector<float>({1.5f, -2.0f, 3.0f, 0.0f});
    Tensor y = MakeVector<float>({0.5f, 4.0f, -1.5f, 2.0f});
    CHECK(Values<float>(RunBinary("AddV2", DT_FLOAT, x, y)) ==
          std::vector<float>{2.0f, 2.0f, 1.5f, 2.0f});
    CHECK(Values<float>(RunBinary("Add", DT_FLOAT, x, y)) ==
          std::vector<float>{2.0f, 2.0f, 1.5f, 2.0f});
    CHECK(Values<float>(RunBinary("Sub", DT_FLOAT, x, y)) ==
          std::vector<float>{1.0f, -6.0f, 4.5f, -2.0f});
    CHECK(Values<float>(RunBinary("Mul", DT_FLOAT, x, y)) ==
          std::vector<float>{0.75f, -8.0f, -4.5f, 0.0f});
    CHECK(Values<float>(RunBinary("RealDiv", DT_FLOAT, x, y)) ==
          std::vector<float>{3.0f, -0.5f, -2.0f, 0.0f});
    CHECK(Values<float>(RunBinary("Div", DT_FLOAT, x, y)) ==
          std::vector<float>{3.0f, -0.5f, -2.0f, 0.0f});
    CHECK(Values<float>(RunBinary("Maximum", DT_FLOAT, x, y)) ==
          std::vector<float>{1.5f, 4.0f, 3.0f, 2.0f});
    CHECK(Values<float>(RunBinary("Minimum", DT_FLOAT, x, y)) ==
          std::vector<float>{0.5f, -2.0f, -1.5f, 0.0f});
    CHECK(Values<float>(RunBinary("SquaredDifference", DT_FLOAT, x, y)) ==
          std::vector<float>{1.0f, 36.0f, 20.25f, 4.0f});
    CHECK(Values<float>(RunBinary("FloorDiv", DT_FLOAT, x, y)) ==
          std::vector<float>{3.0f, -1.0f, -2.0f, 0.0f});
  }
  SECTION("double") {
    Tensor x = MakeVector<double>({1.0, 10.0});
    Tensor y = MakeVector<double>({3.0, -4.0});
    CHECK(Values<double>(RunBinary("RealDiv", DT_DOUBLE, x, y)) ==
          std::vector<double>{1.0 / 3.0, -2.5});
    CHECK(Values<double>(RunBinary("Sub", DT_DOUBLE, x, y)) ==
          std::vector<double>{-2.0, 14.0});
  }
  SECTION("int32") {
    Tensor x = MakeVector<int32_t>({7, -7, 7, -7, 6});
    Tensor y = MakeVector<int32_t>({2, 2, -2, -2, 3});
    CHECK(Values<int32_t>(RunBinary("AddV2", DT_INT32, x, y)) ==
          std::vector<int32_t>{9, -5, 5, -9, 9});
    CHECK(Values<int32_t>(RunBinary("Mul", DT_INT32, x, y)) ==
          std::vector<int32_t>{14, -14, -14, 14, 18});
    // Div truncates toward zero; FloorDiv rounds toward -infinity.
    CHECK(Values<int32_t>(RunBinary("Div", DT_INT32, x, y)) ==
          std::vector<int32_t>{3, -3, -3, 3, 2});
    CHECK(Values<int32_t>(RunBinary("FloorDiv", DT_INT32, x, y)) ==
          std::vector<int32_t>{3, -4, -4, 3, 2});
    CHECK(Values<int32_t>(RunBinary("Maximum", DT_INT32, x, y)) ==
          std::vector<int32_t>{7, 2, 7, -2, 6});
    CHECK(Values<int32_t>(RunBinary("Minimum", DT_INT32, x, y)) ==
          std::vector<int32_t>{2, -7, -2, -7, 3});
  }
  SECTION("int64") {
    const int64_t big = int64_t{1} << 40;
    Tensor x = MakeVector<int64_t>({big, -big});
    Tensor y = MakeVector<int64_t>({3, big});
    CHECK(Values<int64_t>(RunBinary("Sub", DT_INT64, x, y)) ==
          std::vector<int64_t>{big - 3, -2 * big});
    CHECK(Values<int64_t>(RunBinary("Div", DT_INT64, x, y)) ==
          std::vector<int64_t>{big / 3, -1});
  }
  SECTION("half and bfloat16") {
    Tensor hx = MakeVector<Eigen::half>({Eigen::half(1.5f), Eigen::half(-2)});
    Tensor hy = MakeVector<Eigen::half>({Eigen::half(0.25f), Eigen::half(4)});
    Tensor h = RunBinary("AddV2", DT_HALF, hx, hy);
    CHECK(static_cast<float>(h.data<Eigen::half>()[0]) == 1.75f);
    CHECK(static_cast<float>(h.data<Eigen::half>()[1]) == 2.0f);
    Tensor bx = MakeVector<Eigen::bfloat16>({Eigen::bfloat16(3.0f)});
    Tensor by = MakeVector<Eigen::bfloat16>({Eigen::bfloat16(0.5f)});
    Tensor b = RunBinary("Mul", DT_BFLOAT16, bx, by);
    CHECK(static_cast<float>(b.data<Eigen::bfloat16>()[0]) == 1.5f);
  }
}

TEST_CASE("Element-wise kernels write over an input nothing else holds, "
          "and only then") {
  auto values = [](const Tensor& t) {
    return std::vector<float>(t.data<float>(), t.data<float>() + 1000);
  };
  auto iota = [](float from) {
    std::vector<float> v(1000);
    for (int i = 0; i < 1000; ++i) v[i] = from + static_cast<float>(i);
    return Tensor::FromVector<float>(v);
  };
  std::vector<float> want(1000);
  for (int i = 0; i < 1000; ++i) want[i] = 2.0f * i + 3.0f;
  SECTION("the only holder of x: the output is x's buffer") {
    std::vector<Tensor> in = {iota(1), iota(2)};
    const void* x_data = in[0].raw_data();
    Tensor out = RunOne(TypedNode("n", "AddV2", DT_FLOAT, 2).Build(), in);
    CHECK(out.raw_data() == x_data);
    CHECK(values(out) == want);
  }
  SECTION("x held elsewhere too, y not: y's buffer") {
    std::vector<Tensor> in = {iota(1), iota(2)};
    const Tensor kept = in[0];
    const void* y_data = in[1].raw_data();
    Tensor out = RunOne(TypedNode("n", "AddV2", DT_FLOAT, 2).Build(), in);
    CHECK(out.raw_data() == y_data);
    CHECK(values(out) == want);
    CHECK(values(kept) == values(iota(1)));
  }
  SECTION("both held elsewhere: a new buffer, the inputs unchanged") {
    std::vector<Tensor> in = {iota(1), iota(2)};
    const std::vector<Tensor> kept = in;
    Tensor out = RunOne(TypedNode("n", "AddV2", DT_FLOAT, 2).Build(), in);
    CHECK(out.raw_data() != in[0].raw_data());
    CHECK(out.raw_data() != in[1].raw_data());
    CHECK(values(out) == want);
    CHECK(values(kept[0]) == values(iota(1)));
  }
  SECTION("memory lent by someone else (a gRPC slice) is not written") {
    std::vector<float> lent(1000, 1.0f);
    std::vector<Tensor> in = {
        Tensor::FromExternal(DT_FLOAT, TensorShape({1000}), lent.data(),
                             lent.size() * sizeof(float), [] {}),
        Tensor::FromVector<float>(std::vector<float>(1000, 2.0f))};
    const Tensor kept = in[1];  // y held elsewhere: not written either
    Tensor out = RunOne(TypedNode("n", "AddV2", DT_FLOAT, 2).Build(), in);
    CHECK(out.raw_data() != lent.data());
    CHECK(lent == std::vector<float>(1000, 1.0f));
    CHECK(values(out) == std::vector<float>(1000, 3.0f));
  }
  SECTION("another dtype (a comparison) or shape (a broadcast) allocates") {
    std::vector<Tensor> in = {iota(1), iota(1)};
    const void* x_data = in[0].raw_data();
    Tensor eq = RunOne(TypedNode("n", "Equal", DT_FLOAT, 2).Build(), in);
    CHECK(eq.raw_data() != x_data);
    std::vector<Tensor> scalar_and_vector = {Tensor::Scalar<float>(1),
                                             iota(2)};
    const Tensor kept_vector = scalar_and_vector[1];
    Tensor sum = RunOne(TypedNode("n", "AddV2", DT_FLOAT, 2).Build(),
                        scalar_and_vector);
    CHECK(sum.raw_data() != scalar_and_vector[0].raw_data());
    CHECK(sum.raw_data() != kept_vector.raw_data());
  }
  SECTION("a unary kernel too") {
    std::vector<Tensor> in = {iota(1)};
    const void* x_data = in[0].raw_data();
    Tensor out = RunOne(TypedNode("n", "Neg", DT_FLOAT, 1).Build(), in);
    CHECK(out.raw_data() == x_data);
    CHECK(out.data<float>()[999] == -1000.0f);
  }
}

TEST_CASE("Maximum and Minimum propagate NaN") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Tensor x = MakeVector<float>({nan, 1.0f});
  Tensor y = MakeVector<float>({1.0f, nan});
  for (const char* op : {"Maximum", "Minimum"}) {
    std::vector<float> v = Values<float>(RunBinary(op, DT_FLOAT, x, y));
    CHECK(std::isnan(v[0]));
    CHECK(std::isnan(v[1]));
  }
}

TEST_CASE("Integer division by zero is an InvalidArgument error") {
  Tensor x = MakeVector<int32_t>({1, 2, 3});
  Tensor y = MakeVector<int32_t>({1, 0, 3});
  for (const char* op : {"Div", "FloorDiv"}) {
    absl::Status s = RunError(TypedNode("divide", op, DT_INT32, 2).Build(),
                              {x, y});
    CHECK_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument,
                           "Integer division by zero"));
  }
  // A zero scalar divisor broadcast over the input, int64.
  absl::Status s = RunError(TypedNode("d", "Div", DT_INT64, 2).Build(),
                            {MakeVector<int64_t>({4, 5}),
                             Tensor::Scalar<int64_t>(0)});
  CHECK_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument,
                         "Integer division by zero"));
}

TEST_CASE("Integer MIN / -1 wraps instead of trapping") {
  const int32_t min = std::numeric_limits<int32_t>::min();
  Tensor x = MakeVector<int32_t>({min, min});
  Tensor y = MakeVector<int32_t>({-1, 1});
  CHECK(Values<int32_t>(RunBinary("Div", DT_INT32, x, y)) ==
        std::vector<int32_t>{min, min});
  CHECK(Values<int32_t>(RunBinary("FloorDiv", DT_INT32, x, y)) ==
        std::vector<int32_t>{min, min});
}

// As TensorFlow's: two's complement wrap-around, computed without C++'s
// undefined signed overflow (the sanitized build checks that too). Sizes
// that take the packet path (17) and the scalar path (1).
TEST_CASE("Integer addition, subtraction, products and squared differences "
          "wrap around on overflow") {
  const int64_t max64 = std::numeric_limits<int64_t>::max();
  const int64_t min64 = std::numeric_limits<int64_t>::min();
  // n copies of v, as a vector tensor.
  auto fill = []<typename T>(size_t n, T v) {
    return Tensor::FromVector<T>(std::vector<T>(n, v));
  };
  for (size_t n : {size_t{1}, size_t{17}}) {
    INFO(n << " elements");
    CHECK(Values<int64_t>(RunBinary("AddV2", DT_INT64, fill(n, max64),
                                    fill(n, int64_t{1}))) ==
          std::vector<int64_t>(n, min64));
    CHECK(Values<int64_t>(RunBinary("Sub", DT_INT64, fill(n, min64),
                                    fill(n, int64_t{1}))) ==
          std::vector<int64_t>(n, max64));
    CHECK(Values<int32_t>(RunBinary("Mul", DT_INT32, fill(n, int32_t{65536}),
                                    fill(n, int32_t{65536}))) ==
          std::vector<int32_t>(n, 0));
    // (2^32 - 0)^2 = 2^64, which is 0 modulo 2^64.
    CHECK(Values<int64_t>(RunBinary("SquaredDifference", DT_INT64,
                                    fill(n, int64_t{1} << 32),
                                    fill(n, int64_t{0}))) ==
          std::vector<int64_t>(n, 0));
    // 65535 * 65535 = 4294836225, which is 1 modulo 2^16.
    CHECK(Values<uint16_t>(RunBinary("Mul", DT_UINT16,
                                     fill(n, uint16_t{65535}),
                                     fill(n, uint16_t{65535}))) ==
          std::vector<uint16_t>(n, 1));
  }
}

TEST_CASE("Float division by zero gives infinities") {
  Tensor x = MakeVector<float>({1.0f, -1.0f});
  Tensor y = MakeVector<float>({0.0f, 0.0f});
  std::vector<float> v = Values<float>(RunBinary("RealDiv", DT_FLOAT, x, y));
  CHECK(v[0] == std::numeric_limits<float>::infinity());
  CHECK(v[1] == -std::numeric_limits<float>::infinity());
}

TEST_CASE("RealDiv has no integer kernel") {
  absl::StatusOr<std::vector<Tensor>> out = testing::RunKernel(
      TypedNode("rd", "RealDiv", DT_INT32, 2).Build(),
      {MakeVector<int32_t>({1}), MakeVector<int32_t>({1})});
  CHECK_THAT(out.status(), StatusIs(absl::StatusCode::kNotFound, "RealDiv"));
}

TEST_CASE("Broadcasting: scalars, vectors over matrices, size-0 dims") {
  Tensor m = MakeTensor<float>({1, 2, 3, 4, 5, 6}, TensorShape({2, 3}));
  SECTION("scalar right") {
    Tensor out = RunBinary("Sub", DT_FLOAT, m, Tensor::Scalar<float>(1.0f));
    CHECK(out.shape() == TensorShape({2, 3}));
    CHECK(Values<float>(out) == std::vector<float>{0, 1, 2, 3, 4, 5});
  }
  SECTION("scalar left") {
    Tensor out = RunBinary("Sub", DT_FLOAT, Tensor::Scalar<float>(10.0f), m);
    CHECK(Values<float>(out) == std::vector<float>{9, 8, 7, 6, 5, 4});
  }
  SECTION("row vector") {
    Tensor out =
        RunBinary("Mul", DT_FLOAT, m, MakeVector<float>({1.0f, 10.0f, 100.0f}));
    CHECK(out.shape() == TensorShape({2, 3}));
    CHECK(Values<float>(out) ==
          std::vector<float>{1, 20, 300, 4, 50, 600});
  }
  SECTION("column vector") {
    Tensor col = MakeTensor<float>({10.0f, 20.0f}, TensorShape({2, 1}));
    Tensor out = RunBinary("Sub", DT_FLOAT, col, m);
    CHECK(Values<float>(out) == std::vector<float>{9, 8, 7, 16, 15, 14});
  }
  SECTION("outer product shape") {
    Tensor col = MakeTensor<int32_t>({1, 2}, TensorShape({2, 1}));
    Tensor row = MakeTensor<int32_t>({10, 20, 30}, TensorShape({1, 3}));
    Tensor out = RunBinary("AddV2", DT_INT32, col, row);
    CHECK(out.shape() == TensorShape({2, 3}));
    CHECK(Values<int32_t>(out) ==
          std::vector<int32_t>{11, 21, 31, 12, 22, 32});
  }
  SECTION("one-element tensor of higher rank") {
    Tensor one = MakeTensor<float>({2.0f}, TensorShape({1, 1, 1}));
    Tensor out = RunBinary("Mul", DT_FLOAT, m, one);
    CHECK(out.shape() == TensorShape({1, 2, 3}));
    CHECK(Values<float>(out) == std::vector<float>{2, 4, 6, 8, 10, 12});
  }
  SECTION("size-0 dim against 1") {
    Tensor empty(DT_FLOAT, TensorShape({0, 3}));
    Tensor out =
        RunBinary("AddV2", DT_FLOAT, empty, MakeVector<float>({1, 2, 3}));
    CHECK(out.shape() == TensorShape({0, 3}));
    Tensor col(DT_FLOAT, TensorShape({2, 0}));
    Tensor out2 = RunBinary(
        "AddV2", DT_FLOAT, MakeTensor<float>({1, 2}, TensorShape({2, 1})), col);
    CHECK(out2.shape() == TensorShape({2, 0}));
  }
}

TEST_CASE("Incompatible shapes fail with TensorFlow's message") {
  Tensor a(DT_FLOAT, TensorShape({2, 3}));
  Tensor b(DT_FLOAT, TensorShape({4}));
  absl::Status s =
      RunError(TypedNode("add", "AddV2", DT_FLOAT, 2).Build(), {a, b});
  CHECK_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument,
                         "Incompatible shapes: [2,3] "
                         "vs. [4]"));
  // A size-0 dim does not stretch to another size.
  Tensor z(DT_FLOAT, TensorShape({0}));
  CHECK_THAT(RunError(TypedNode("m", "Mul", DT_FLOAT, 2).Build(), {z, b}),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "Incompatible shapes: [0] vs. [4]"));
  CHECK_THAT(RunError(TypedNode("lt", "Less", DT_FLOAT, 2).Build(), {a, b}),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "Incompatible shapes"));
}

TEST_CASE("Comparisons produce bool and broadcast") {
  Tensor x = MakeVector<float>({1.0f, 2.0f, 3.0f});
  Tensor two = Tensor::Scalar<float>(2.0f);
  using B = std::vector<bool>;
  auto run = [&](const char* op) {
    Tensor out = RunBinary(op, DT_FLOAT, x, two);
    REQUIRE(out.dtype() == DT_BOOL);
    const bool* p = out.data<bool>();
    return B(p, p + out.NumElements());
  };
  CHECK(run("Equal") == B{false, true, false});
  CHECK(run("NotEqual") == B{true, false, true});
  CHECK(run("Less") == B{true, false, false});
  CHECK(run("LessEqual") == B{true, true, false});
  CHECK(run("Greater") == B{false, false, true});
  CHECK(run("GreaterEqual") == B{false, true, true});

  Tensor ix = MakeTensor<int64_t>({1, 5, 3, 3}, TensorShape({2, 2}));
  Tensor iy = MakeVector<int64_t>({3, 5});
  Tensor lt = RunBinary("Less", DT_INT64, ix, iy);
  CHECK(lt.shape() == TensorShape({2, 2}));
  const bool* p = lt.data<bool>();
  CHECK(B(p, p + 4) == B{true, false, false, true});

  Tensor bx = MakeVector<bool>({true, false});
  Tensor by = MakeVector<bool>({true, true});
  Tensor eq = RunBinary("Equal", DT_BOOL, bx, by);
  CHECK(eq.data<bool>()[0]);
  CHECK_FALSE(eq.data<bool>()[1]);
}

TEST_CASE("Equal with incompatible_shape_error=false gives a scalar") {
  Tensor a = MakeVector<int32_t>({1, 2, 3});
  Tensor b = MakeVector<int32_t>({1, 2});
  Tensor eq = RunOne(TypedNode("eq", "Equal", DT_INT32, 2)
                         .Attr("incompatible_shape_error", false)
                         .Build(),
                     {a, b});
  CHECK(eq.shape() == TensorShape());
  CHECK_FALSE(eq.data<bool>()[0]);
  Tensor ne = RunOne(TypedNode("ne", "NotEqual", DT_INT32, 2)
                         .Attr("incompatible_shape_error", false)
                         .Build(),
                     {a, b});
  CHECK(ne.data<bool>()[0]);
  // The default still errors.
  CHECK_THAT(RunError(TypedNode("eq", "Equal", DT_INT32, 2).Build(), {a, b}),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "Incompatible shapes: [3] vs. [2]"));
}

// ---------------------------------------------------------------------------
// Property test: broadcasting against an explicit index-by-index loop.

// The flat index into `in` of the element that feeds output multi-index
// `idx` of `out` under NumPy broadcasting.
int64_t SourceIndex(const TensorShape& in, const TensorShape& out,
                    const std::vector<int64_t>& idx) {
  int64_t flat = 0;
  const int offset = out.dims() - in.dims();
  for (int j = 0; j < in.dims(); ++j) {
    const int64_t i = in.dim_size(j) == 1 ? 0 : idx[offset + j];
    flat = flat * in.dim_size(j) + i;
  }
  return flat;
}

// Calls fn(out_flat, multi_index) for each element of `shape`, row-major.
void ForEachIndex(const TensorShape& shape,
                  const std::function<void(int64_t,
                                           const std::vector<int64_t>&)>& fn) {
  std::vector<int64_t> idx(shape.dims(), 0);
  for (int64_t flat = 0; flat < shape.num_elements(); ++flat) {
    fn(flat, idx);
    for (int j = shape.dims() - 1; j >= 0; --j) {
      if (++idx[j] < shape.dim_size(j)) break;
      idx[j] = 0;
    }
  }
}

struct ShapePair {
  TensorShape a, b, out;
};

// Random broadcast-compatible shapes of rank 0..max_rank: each dim is 1 in
// either input or shared (sizes 0..4, mostly small, with many 1s), and one
// input may lack some leading dims. `out` is computed here by NumPy's rule.
ShapePair RandomShapes(std::mt19937* rng, int max_rank) {
  std::uniform_int_distribution<int> rank_dist(0, max_rank);
  std::uniform_int_distribution<int> dim_dist(0, 9);
  std::uniform_int_distribution<int> coin(0, 2);
  const int rank = rank_dist(*rng);
  std::vector<int64_t> a(rank), b(rank);
  for (int j = 0; j < rank; ++j) {
    const int r = dim_dist(*rng);
    const int64_t d = r == 0 ? 0 : (r < 4 ? 1 : r / 2);
    a[j] = coin(*rng) == 0 ? 1 : d;
    b[j] = coin(*rng) == 0 ? 1 : d;
  }
  std::vector<int64_t>& shorter = coin(*rng) == 0 ? a : b;
  const int drop = std::uniform_int_distribution<int>(0, rank)(*rng);
  shorter.erase(shorter.begin(), shorter.begin() + drop);
  std::vector<int64_t> out(rank);
  for (int j = 0; j < rank; ++j) {
    const int ja = j - (rank - static_cast<int>(a.size()));
    const int jb = j - (rank - static_cast<int>(b.size()));
    const int64_t da = ja >= 0 ? a[ja] : 1;
    const int64_t db = jb >= 0 ? b[jb] : 1;
    out[j] = da == 1 ? db : da;
  }
  return {TensorShape::Build(a).value(), TensorShape::Build(b).value(),
          TensorShape::Build(out).value()};
}

template <typename T>
Tensor RandomTensor(const TensorShape& shape, std::mt19937* rng) {
  Tensor t(DataTypeToEnum<T>::value, shape);
  std::uniform_int_distribution<int> dist(-50, 50);
  T* p = t.data<T>();
  for (int64_t i = 0; i < t.NumElements(); ++i) p[i] = static_cast<T>(dist(*rng));
  return t;
}

TEST_CASE("Broadcasting matches an index-by-index loop on random shapes") {
  std::mt19937 rng(20240607);
  for (int trial = 0; trial < 300; ++trial) {
    const ShapePair s = RandomShapes(&rng, trial < 250 ? 5 : 8);
    INFO("shapes " << s.a.DebugString() << " and " << s.b.DebugString());
    Tensor fa = RandomTensor<float>(s.a, &rng);
    Tensor fb = RandomTensor<float>(s.b, &rng);
    Tensor ia = RandomTensor<int32_t>(s.a, &rng);
    Tensor ib = RandomTensor<int32_t>(s.b, &rng);

    Tensor add = RunBinary("AddV2", DT_FLOAT, fa, fb);
    Tensor sub = RunBinary("Sub", DT_INT32, ia, ib);
    Tensor max = RunBinary("Maximum", DT_INT32, ia, ib);
    Tensor less = RunBinary("Less", DT_FLOAT, fa, fb);
    for (const Tensor* t : {&add, &sub, &max, &less}) {
      REQUIRE(t->shape() == s.out);
    }
    int mismatches = 0;
    ForEachIndex(s.out, [&](int64_t flat, const std::vector<int64_t>& idx) {
      const int64_t i = SourceIndex(s.a, s.out, idx);
      const int64_t j = SourceIndex(s.b, s.out, idx);
      const float x = fa.data<float>()[i], y = fb.data<float>()[j];
      const int32_t u = ia.data<int32_t>()[i], v = ib.data<int32_t>()[j];
      if (add.data<float>()[flat] != x + y) ++mismatches;
      if (sub.data<int32_t>()[flat] != u - v) ++mismatches;
      if (max.data<int32_t>()[flat] != std::max(u, v)) ++mismatches;
      if (less.data<bool>()[flat] != (x < y)) ++mismatches;
    });
    REQUIRE(mismatches == 0);
  }
}

TEST_CASE("Rank-8 broadcasting matches the reference") {
  const TensorShape a({2, 1, 3, 1, 2, 1, 2, 1});
  const TensorShape b({1, 2, 1, 3, 1, 2, 1, 2});
  std::mt19937 rng(7);
  Tensor ta = RandomTensor<int64_t>(a, &rng);
  Tensor tb = RandomTensor<int64_t>(b, &rng);
  Tensor out = RunBinary("Sub", DT_INT64, ta, tb);
  const TensorShape expected({2, 2, 3, 3, 2, 2, 2, 2});
  REQUIRE(out.shape() == expected);
  int mismatches = 0;
  ForEachIndex(expected, [&](int64_t flat, const std::vector<int64_t>& idx) {
    const int64_t want = ta.data<int64_t>()[SourceIndex(a, expected, idx)] -
                         tb.data<int64_t>()[SourceIndex(b, expected, idx)];
    if (out.data<int64_t>()[flat] != want) ++mismatches;
  });
  CHECK(mismatches == 0);
}

TEST_CASE("Large tensors, split across the intra-op pool, are exact") {
  std::mt19937 rng(11);
  SECTION("same shape") {
    const TensorShape shape({1000, 97});
    Tensor a = RandomTensor<float>(shape, &rng);
    Tensor b = RandomTensor<float>(shape, &rng);
    Tensor out = RunBinary("Mul", DT_FLOAT, a, b);
    int mismatches = 0;
    for (int64_t i = 0; i < shape.num_elements(); ++i) {
      if (out.data<float>()[i] != a.data<float>()[i] * b.data<float>()[i]) {
        ++mismatches;
      }
    }
    CHECK(mismatches == 0);
  }
  SECTION("broadcast column against matrix") {
    Tensor a = RandomTensor<int32_t>(TensorShape({513, 1}), &rng);
    Tensor b = RandomTensor<int32_t>(TensorShape({513, 129}), &rng);
    Tensor out = RunBinary("Sub", DT_INT32, a, b);
    int mismatches = 0;
    for (int64_t r = 0; r < 513; ++r) {
      for (int64_t c = 0; c < 129; ++c) {
        if (out.data<int32_t>()[r * 129 + c] !=
            a.data<int32_t>()[r] - b.data<int32_t>()[r * 129 + c]) {
          ++mismatches;
        }
      }
    }
    CHECK(mismatches == 0);
  }
}

}  // namespace
}  // namespace dfx

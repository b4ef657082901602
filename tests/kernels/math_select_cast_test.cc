// Select, SelectV2, Cast and AddN kernels.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "tests/kernels/math_test_util.h"

namespace dfx {
namespace {

using testing::MakeTensor;
using testing::MakeVector;
using testing::RunError;
using testing::RunOne;
using testing::StatusIs;
using testing::TestNodeBuilder;
using testing::TypedNode;
using testing::Values;

Tensor Select(const std::string& op, const Tensor& c, const Tensor& t,
              const Tensor& e) {
  return RunOne(TypedNode("sel", op, t.dtype(), 3).Build(), {c, t, e});
}

TEST_CASE("Select v1: condition of the same shape") {
  Tensor c = MakeTensor<bool>({true, false, false, true}, TensorShape({2, 2}));
  Tensor t = MakeTensor<float>({1, 2, 3, 4}, TensorShape({2, 2}));
  Tensor e = MakeTensor<float>({-1, -2, -3, -4}, TensorShape({2, 2}));
  Tensor out = Select("Select", c, t, e);
  CHECK(out.shape() == TensorShape({2, 2}));
  CHECK(Values<float>(out) == std::vector<float>{1, -2, -3, 4});
}

TEST_CASE("Select v1: vector condition picks rows") {
  Tensor c = MakeVector<bool>({false, true, false});
  Tensor t = MakeTensor<int32_t>({1, 2, 3, 4, 5, 6}, TensorShape({3, 2}));
  Tensor e = MakeTensor<int32_t>({10, 20, 30, 40, 50, 60}, TensorShape({3, 2}));
  CHECK(Values<int32_t>(Select("Select", c, t, e)) ==
        std::vector<int32_t>{10, 20, 3, 4, 50, 60});
}

TEST_CASE("Select v1: scalar condition forwards a whole input") {
  Tensor t = MakeVector<int64_t>({1, 2});
  Tensor e = MakeVector<int64_t>({3, 4});
  Tensor out = Select("Select", Tensor::Scalar<bool>(false), t, e);
  CHECK(Values<int64_t>(out) == std::vector<int64_t>{3, 4});
  CHECK(out.SharesBufferWith(e));
}

TEST_CASE("Select v1 rejects mismatched shapes") {
  Tensor t = MakeTensor<float>({1, 2, 3, 4, 5, 6}, TensorShape({3, 2}));
  Tensor e = MakeTensor<float>({1, 2, 3, 4, 5, 6}, TensorShape({2, 3}));
  Tensor c3 = MakeVector<bool>({true, true, false});
  CHECK_THAT(
      RunError(TypedNode("s", "Select", DT_FLOAT, 3).Build(), {c3, t, e}),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "'then' and 'else' must have the same size"));
  Tensor c2 = MakeVector<bool>({true, false});
  CHECK_THAT(
      RunError(TypedNode("s", "Select", DT_FLOAT, 3).Build(), {c2, t, t}),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "Number of batches of 'then' must match size of 'cond'"));
  // v1 does not broadcast a [3,1] condition.
  Tensor c31 = MakeTensor<bool>({true, true, false}, TensorShape({3, 1}));
  CHECK_THAT(
      RunError(TypedNode("s", "Select", DT_FLOAT, 3).Build(), {c31, t, t}),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "'then' and 'cond' must have the same size"));
}

TEST_CASE("SelectV2 broadcasts all three inputs") {
  Tensor c = MakeTensor<bool>({true, false}, TensorShape({2, 1}));
  Tensor t = MakeTensor<float>({1, 2, 3}, TensorShape({1, 3}));
  Tensor e = Tensor::Scalar<float>(-7.0f);
  Tensor out = Select("SelectV2", c, t, e);
  CHECK(out.shape() == TensorShape({2, 3}));
  CHECK(Values<float>(out) == std::vector<float>{1, 2, 3, -7, -7, -7});

  // A scalar condition over same-shaped inputs forwards one of them.
  Tensor t2 = MakeVector<int32_t>({1, 2});
  Tensor e2 = MakeVector<int32_t>({3, 4});
  Tensor fwd = Select("SelectV2", Tensor::Scalar<bool>(true), t2, e2);
  CHECK(fwd.SharesBufferWith(t2));

  // A scalar condition that must broadcast.
  Tensor b = Select("SelectV2", Tensor::Scalar<bool>(false),
                    Tensor::Scalar<int32_t>(5), e2);
  CHECK(Values<int32_t>(b) == std::vector<int32_t>{3, 4});

  CHECK_THAT(
      RunError(TypedNode("s2", "SelectV2", DT_FLOAT, 3).Build(),
               {MakeVector<bool>({true, false, true}), t,
                MakeVector<float>({1, 2})}),
      StatusIs(absl::StatusCode::kInvalidArgument, "must be broadcastable"));
}

TEST_CASE("SelectV2 on strings") {
  Tensor c = MakeVector<bool>({true, false});
  Tensor t = MakeVector<std::string>({"a", "b"});
  Tensor e = Tensor::Scalar<std::string>("z");
  Tensor out = Select("SelectV2", c, t, e);
  CHECK(Values<std::string>(out) == std::vector<std::string>{"a", "z"});
}

TEST_CASE("SelectV2 matches a reference on a broadcast rank-4 case") {
  Tensor c(DT_BOOL, TensorShape({2, 1, 3, 1}));
  Tensor t(DT_INT32, TensorShape({1, 4, 1, 5}));
  Tensor e(DT_INT32, TensorShape({3, 5}));
  for (int64_t i = 0; i < c.NumElements(); ++i) c.data<bool>()[i] = i % 2;
  for (int64_t i = 0; i < t.NumElements(); ++i) t.data<int32_t>()[i] = i;
  for (int64_t i = 0; i < e.NumElements(); ++i) e.data<int32_t>()[i] = -i;
  Tensor out = Select("SelectV2", c, t, e);
  REQUIRE(out.shape() == TensorShape({2, 4, 3, 5}));
  int mismatches = 0;
  for (int a = 0; a < 2; ++a) {
    for (int b = 0; b < 4; ++b) {
      for (int k = 0; k < 3; ++k) {
        for (int d = 0; d < 5; ++d) {
          const bool cond = c.data<bool>()[a * 3 + k];
          const int32_t want = cond ? t.data<int32_t>()[b * 5 + d]
                                    : e.data<int32_t>()[k * 5 + d];
          if (out.data<int32_t>()[((a * 4 + b) * 3 + k) * 5 + d] != want) {
            ++mismatches;
          }
        }
      }
    }
  }
  CHECK(mismatches == 0);
}

// ---------------------------------------------------------------------------

Tensor Cast(const Tensor& x, DataType dst, bool truncate = false) {
  return RunOne(TestNodeBuilder("cast", "Cast", 1)
                    .Attr("SrcT", x.dtype())
                    .Attr("DstT", dst)
                    .Attr("Truncate", truncate)
                    .Build(),
                {x});
}

TEST_CASE("Cast float to integers truncates toward zero") {
  Tensor f = MakeVector<float>({1.7f, -1.7f, 2.5f, -0.5f, 0.0f});
  CHECK(Values<int32_t>(Cast(f, DT_INT32)) ==
        std::vector<int32_t>{1, -1, 2, 0, 0});
  CHECK(Values<int64_t>(Cast(f, DT_INT64)) ==
        std::vector<int64_t>{1, -1, 2, 0, 0});
  Tensor d = MakeVector<double>({1e10, -3.99});
  CHECK(Values<int64_t>(Cast(d, DT_INT64)) ==
        std::vector<int64_t>{10000000000, -3});
}

TEST_CASE("Cast to and from bool") {
  Tensor f = MakeVector<float>({0.0f, 0.5f, -2.0f});
  Tensor b = Cast(f, DT_BOOL);
  REQUIRE(b.dtype() == DT_BOOL);
  CHECK_FALSE(b.data<bool>()[0]);
  CHECK(b.data<bool>()[1]);
  CHECK(b.data<bool>()[2]);
  Tensor i = MakeVector<int64_t>({0, 7});
  Tensor ib = Cast(i, DT_BOOL);
  CHECK_FALSE(ib.data<bool>()[0]);
  CHECK(ib.data<bool>()[1]);
  Tensor bools = MakeVector<bool>({true, false});
  CHECK(Values<float>(Cast(bools, DT_FLOAT)) == std::vector<float>{1.0f, 0.0f});
  CHECK(Values<int32_t>(Cast(bools, DT_INT32)) == std::vector<int32_t>{1, 0});
}

TEST_CASE("Cast between widths and float kinds") {
  Tensor i = MakeVector<int32_t>({-3, 16777217});
  CHECK(Values<double>(Cast(i, DT_DOUBLE)) ==
        std::vector<double>{-3.0, 16777217.0});
  // int32 -> float rounds to the nearest float.
  CHECK(Values<float>(Cast(i, DT_FLOAT)) ==
        std::vector<float>{-3.0f, 16777216.0f});
  // int64 -> int32 keeps the low 32 bits.
  Tensor big = MakeVector<int64_t>({(int64_t{1} << 32) + 5, -1});
  CHECK(Values<int32_t>(Cast(big, DT_INT32)) == std::vector<int32_t>{5, -1});
  Tensor d = MakeVector<double>({0.1});
  CHECK(Values<float>(Cast(d, DT_FLOAT)) == std::vector<float>{0.1f});
  Tensor u8 = MakeVector<uint8_t>({0, 255});
  CHECK(Values<float>(Cast(u8, DT_FLOAT)) == std::vector<float>{0.0f, 255.0f});
  Tensor h = Cast(MakeVector<float>({1.5f, 65504.0f}), DT_HALF);
  CHECK(static_cast<float>(h.data<Eigen::half>()[0]) == 1.5f);
  CHECK(static_cast<float>(h.data<Eigen::half>()[1]) == 65504.0f);
}

TEST_CASE("Cast to bfloat16 rounds, or truncates with Truncate=true") {
  // 1 + 2^-8 + 2^-10 lies between bfloat16's 1 and 1 + 2^-7.
  const float x = 1.0f + 1.0f / 256 + 1.0f / 1024;
  Tensor f = MakeVector<float>({x});
  Tensor rounded = Cast(f, DT_BFLOAT16);
  CHECK(static_cast<float>(rounded.data<Eigen::bfloat16>()[0]) ==
        1.0f + 1.0f / 128);
  Tensor truncated = Cast(f, DT_BFLOAT16, /*truncate=*/true);
  CHECK(static_cast<float>(truncated.data<Eigen::bfloat16>()[0]) == 1.0f);
}

TEST_CASE("Truncate=true truncates exactly the pairs TensorFlow truncates") {
  // float -> half: 1 + 2^-10 + 2^-11 lies between half's 1 + 2^-10 and
  // 1 + 2^-9.
  const float fh = 1.0f + 1.0f / 1024 + 1.0f / 2048;
  CHECK(static_cast<float>(Cast(MakeVector<float>({fh}), DT_HALF, true)
                               .data<Eigen::half>()[0]) == 1.0f + 1.0f / 1024);
  CHECK(static_cast<float>(
            Cast(MakeVector<float>({fh}), DT_HALF).data<Eigen::half>()[0]) ==
        1.0f + 1.0f / 512);
  // double -> float truncates; double -> bfloat16 still rounds.
  const double df = 1.0 + std::ldexp(1.0, -23) + std::ldexp(1.0, -24);
  CHECK(Values<float>(Cast(MakeVector<double>({df}), DT_FLOAT, true))[0] ==
        1.0f + std::ldexp(1.0f, -23));
  const double db = 1.0 + 1.0 / 256 + 1.0 / 512;
  CHECK(static_cast<float>(Cast(MakeVector<double>({db}), DT_BFLOAT16, true)
                               .data<Eigen::bfloat16>()[0]) ==
        1.0f + 1.0f / 128);
  // NaN stays NaN.
  CHECK(Eigen::numext::isnan(
      Cast(MakeVector<float>({std::nanf("")}), DT_BFLOAT16, true)
          .data<Eigen::bfloat16>()[0]));
}

TEST_CASE("Cast of NaN and out-of-range floats to integers is defined") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const Tensor f =
      MakeVector<float>({nan, inf, -inf, 3e9f, -3e9f, -2.7f, 300.5f});
  constexpr int32_t kMin32 = std::numeric_limits<int32_t>::min();
  constexpr int64_t kMin64 = std::numeric_limits<int64_t>::min();
  CHECK(Values<int32_t>(Cast(f, DT_INT32)) ==
        std::vector<int32_t>{kMin32, kMin32, kMin32, kMin32, kMin32, -2, 300});
  CHECK(Values<int64_t>(Cast(f, DT_INT64)) ==
        std::vector<int64_t>{kMin64, kMin64, kMin64, 3000000000, -3000000000,
                             -2, 300});
  // Narrow types saturate what int32 gives.
  CHECK(Values<uint8_t>(Cast(f, DT_UINT8)) ==
        std::vector<uint8_t>{0, 0, 0, 0, 0, 0, 255});
  CHECK(Values<int8_t>(Cast(f, DT_INT8)) ==
        std::vector<int8_t>{-128, -128, -128, -128, -128, -2, 127});
  CHECK(Values<int16_t>(Cast(f, DT_INT16)) ==
        std::vector<int16_t>{-32768, -32768, -32768, -32768, -32768, -2, 300});
  // uint32 and uint64 go through int64.
  CHECK(Values<uint32_t>(Cast(f, DT_UINT32)) ==
        std::vector<uint32_t>{1u << 31, 1u << 31, 1u << 31, 3000000000u,
                              1u << 31, 4294967294u, 300});
  CHECK(Values<uint64_t>(Cast(f, DT_UINT64))[5] == uint64_t{0} - 2);
  CHECK(Values<uint64_t>(Cast(f, DT_UINT64))[0] == uint64_t{1} << 63);
  // The same answers on a tensor long enough to be vectorised and split.
  Tensor big(DT_FLOAT, TensorShape({100000}));
  for (int64_t i = 0; i < big.NumElements(); ++i) {
    big.data<float>()[i] = f.data<float>()[i % 7];
  }
  const Tensor big_u8 = Cast(big, DT_UINT8);
  const Tensor big_i32 = Cast(big, DT_INT32);
  int bad = 0;
  for (int64_t i = 0; i < big.NumElements(); ++i) {
    if (big_u8.data<uint8_t>()[i] !=
            Values<uint8_t>(Cast(f, DT_UINT8))[i % 7] &&
        ++bad > 10) {
      break;
    }
    if (big_i32.data<int32_t>()[i] !=
        Values<int32_t>(Cast(f, DT_INT32))[i % 7]) {
      ++bad;
    }
  }
  CHECK(bad == 0);
}

TEST_CASE("Cast covers uint32, uint64 and half to every type") {
  const Tensor u64 = MakeVector<uint64_t>({~uint64_t{0}, uint64_t{1} << 63, 5});
  CHECK(Values<int64_t>(Cast(u64, DT_INT64)) ==
        std::vector<int64_t>{-1, std::numeric_limits<int64_t>::min(), 5});
  CHECK(Values<uint8_t>(Cast(u64, DT_UINT8)) ==
        std::vector<uint8_t>{255, 0, 5});
  const Tensor h = Cast(u64, DT_HALF);
  CHECK(std::isinf(static_cast<float>(h.data<Eigen::half>()[0])));
  CHECK(static_cast<float>(h.data<Eigen::half>()[2]) == 5.0f);
  const Tensor u32 = Cast(MakeVector<int32_t>({-1, 7}), DT_UINT32);
  CHECK(Values<uint32_t>(u32) == std::vector<uint32_t>{4294967295u, 7});
  CHECK(Values<double>(Cast(u32, DT_DOUBLE)) ==
        std::vector<double>{4294967295.0, 7.0});
  const Tensor hb =
      Cast(MakeVector<Eigen::half>({Eigen::half(-0.0f), Eigen::half(2.0f)}),
           DT_BOOL);
  CHECK(Values<bool>(hb) == std::vector<bool>{false, true});
  const Tensor bf =
      Cast(MakeVector<Eigen::half>({Eigen::half(-3.5f)}), DT_BFLOAT16);
  CHECK(static_cast<float>(bf.data<Eigen::bfloat16>()[0]) == -3.5f);
}

TEST_CASE("Cast to the same type forwards the input") {
  Tensor f = MakeVector<float>({1.0f, 2.0f});
  Tensor out = Cast(f, DT_FLOAT);
  CHECK(out.SharesBufferWith(f));
}

TEST_CASE("Cast to an unsupported type fails cleanly") {
  Tensor f = MakeVector<float>({1.0f});
  auto out = testing::RunKernel(TestNodeBuilder("c", "Cast", 1)
                                    .Attr("SrcT", DT_FLOAT)
                                    .Attr("DstT", DT_STRING)
                                    .Build(),
                                {f});
  CHECK_FALSE(out.ok());
}

TEST_CASE("Cast on a large tensor") {
  Tensor f(DT_FLOAT, TensorShape({70000}));
  for (int64_t i = 0; i < f.NumElements(); ++i) {
    f.data<float>()[i] = static_cast<float>(i) - 0.5f;
  }
  Tensor out = Cast(f, DT_INT32);
  int mismatches = 0;
  for (int64_t i = 0; i < f.NumElements(); ++i) {
    const int32_t want = i == 0 ? 0 : static_cast<int32_t>(i - 1);
    if (out.data<int32_t>()[i] != want) ++mismatches;
  }
  CHECK(mismatches == 0);
}

// ---------------------------------------------------------------------------

NodeDef AddN(DataType dtype, int n) {
  return TypedNode("sum", "AddN", dtype, n).Attr("N", n).Build();
}

TEST_CASE("AddN sums inputs of one shape") {
  Tensor a = MakeTensor<float>({1, 2, 3, 4}, TensorShape({2, 2}));
  Tensor b = MakeTensor<float>({10, 20, 30, 40}, TensorShape({2, 2}));
  Tensor c = MakeTensor<float>({100, 200, 300, 400}, TensorShape({2, 2}));
  Tensor out = RunOne(AddN(DT_FLOAT, 3), {a, b, c});
  CHECK(out.shape() == TensorShape({2, 2}));
  CHECK(Values<float>(out) == std::vector<float>{111, 222, 333, 444});
  Tensor i2 = RunOne(AddN(DT_INT64, 2), {MakeVector<int64_t>({1, -1}),
                                         MakeVector<int64_t>({2, 2})});
  CHECK(Values<int64_t>(i2) == std::vector<int64_t>{3, 1});
}

TEST_CASE("AddN of one input forwards it") {
  Tensor a = MakeVector<int32_t>({4, 5});
  Tensor out = RunOne(AddN(DT_INT32, 1), {a});
  CHECK(out.SharesBufferWith(a));
}

// 5000 floats k, k + 1, ... (more than one of AddN's blocks).
Tensor Counting(float k) {
  std::vector<float> v(5000);
  for (int i = 0; i < 5000; ++i) v[i] = k + static_cast<float>(i);
  return Tensor::FromVector<float>(v);
}

TEST_CASE("AddN writes over its first or second input when nothing else "
          "holds it, never over a later one") {
  std::vector<float> want(5000);
  for (int i = 0; i < 5000; ++i) want[i] = 3.0f * static_cast<float>(i) + 6;
  SECTION("input 0 free") {
    std::vector<Tensor> in = {Counting(1), Counting(2), Counting(3)};
    const void* buffer = in[0].raw_data();
    Tensor out = RunOne(AddN(DT_FLOAT, 3), in);
    CHECK(out.raw_data() == buffer);
    CHECK(Values<float>(out) == want);
  }
  SECTION("input 0 held, input 1 free") {
    const Tensor held = Counting(1);
    std::vector<Tensor> in = {held, Counting(2), Counting(3)};
    const void* buffer = in[1].raw_data();
    Tensor out = RunOne(AddN(DT_FLOAT, 3), in);
    CHECK(out.raw_data() == buffer);
    CHECK(Values<float>(out) == want);
    CHECK(Values<float>(held) == Values<float>(Counting(1)));
  }
  SECTION("only input 2 free: a new buffer, input 2 unchanged") {
    const Tensor a = Counting(1), b = Counting(2);
    std::vector<Tensor> in = {a, b, Counting(3)};
    Tensor out = RunOne(AddN(DT_FLOAT, 3), in);
    CHECK(out.raw_data() != in[2].raw_data());
    CHECK(Values<float>(out) == want);
    CHECK(Values<float>(in[2]) == Values<float>(Counting(3)));
  }
}

TEST_CASE("Select writes over 'then' or 'else' when nothing else holds it") {
  std::vector<bool> pick(5000);
  std::vector<float> want(5000);
  const std::vector<float> t = Values<float>(Counting(1));
  const std::vector<float> e = Values<float>(Counting(-9000));
  for (int i = 0; i < 5000; ++i) {
    pick[i] = i % 3 == 0;
    want[i] = pick[i] ? t[i] : e[i];
  }
  bool cond[5000];
  for (int i = 0; i < 5000; ++i) cond[i] = pick[i];
  const Tensor c = Tensor::FromVector<bool>(absl::Span<const bool>(cond, 5000));
  SECTION("'then' free") {
    std::vector<Tensor> in = {c, Counting(1), Counting(-9000)};
    const void* buffer = in[1].raw_data();
    Tensor out = RunOne(TypedNode("s", "Select", DT_FLOAT, 3).Build(), in);
    CHECK(out.raw_data() == buffer);
    CHECK(Values<float>(out) == want);
  }
  SECTION("'then' held, 'else' free") {
    const Tensor held = Counting(1);
    std::vector<Tensor> in = {c, held, Counting(-9000)};
    const void* buffer = in[2].raw_data();
    Tensor out = RunOne(TypedNode("s", "Select", DT_FLOAT, 3).Build(), in);
    CHECK(out.raw_data() == buffer);
    CHECK(Values<float>(out) == want);
    CHECK(Values<float>(held) == t);
  }
  SECTION("rows picked by a vector condition") {
    bool rows[10];
    for (int r = 0; r < 10; ++r) rows[r] = r % 2 == 1;
    std::vector<Tensor> in = {
        Tensor::FromVector<bool>(absl::Span<const bool>(rows, 10)),
        Tensor::FromVector<float>(t, TensorShape({10, 500})),
        Tensor::FromVector<float>(e, TensorShape({10, 500}))};
    const void* buffer = in[1].raw_data();
    Tensor out = RunOne(TypedNode("s", "Select", DT_FLOAT, 3).Build(), in);
    CHECK(out.raw_data() == buffer);
    for (int i = 0; i < 5000; i += 499) {
      CHECK(out.data<float>()[i] == (rows[i / 500] ? t[i] : e[i]));
    }
  }
}

TEST_CASE("AddN rejects inputs of different shapes") {
  CHECK_THAT(RunError(AddN(DT_FLOAT, 2),
                      {MakeVector<float>({1, 2}), MakeVector<float>({1})}),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "must have the same size and shape"));
}

TEST_CASE("AddN on large inputs") {
  const int n = 5;
  std::vector<Tensor> inputs;
  for (int k = 0; k < n; ++k) {
    Tensor t(DT_DOUBLE, TensorShape({50000}));
    for (int64_t i = 0; i < t.NumElements(); ++i) {
      t.data<double>()[i] = static_cast<double>(i * (k + 1));
    }
    inputs.push_back(t);
  }
  Tensor out = RunOne(AddN(DT_DOUBLE, n), inputs);
  int mismatches = 0;
  for (int64_t i = 0; i < out.NumElements(); ++i) {
    if (out.data<double>()[i] != static_cast<double>(i * 15)) ++mismatches;
  }
  CHECK(mismatches == 0);
}

}  // namespace
}  // namespace dfx

// BesselI0 ... BesselY1, CumulativeLogsumexp, NthElement, Lu,
// TridiagonalMatMul, TridiagonalSolve, MatrixSquareRoot, CTCGreedyDecoder,
// CTCLoss, StringFormat, PrintV2 and Segment{Sum,Prod,Max,Min}V2:
// TensorFlow 2.21's values (XLA's for the V2 segment ops, which TensorFlow
// runs only through XLA), its errors for bad axes, n, shapes, labels and
// streams, and its OpDefs.
#include <cmath>
#include <complex>
#include <iostream>
#include <sstream>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/message_differencer.h"
#include "graph/op_registry.h"
#include "tests/kernels/math_test_util.h"

namespace dfx {
namespace {

using absl::StatusCode;
using testing::MakeTensor;
using testing::MakeVector;
using testing::RunError;
using testing::RunOne;
using testing::StatusIs;
using testing::TestNodeBuilder;
using testing::TypedNode;
using testing::Values;

constexpr double kInf = std::numeric_limits<double>::infinity();

void CheckClose(const std::vector<double>& got,
                const std::vector<double>& want) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i);
    if (std::isinf(want[i])) {
      CHECK(got[i] == want[i]);
    } else {
      CHECK(got[i] == Approx(want[i]).epsilon(1e-14).margin(1e-15));
    }
  }
}

TEST_CASE("Bessel functions equal TensorFlow", "[misc_math]") {
  const Tensor x = MakeVector<double>({0.5, 2.0});
  auto run = [&](const char* op) {
    return Values<double>(RunOne(TypedNode("b", op, DT_DOUBLE, 1).Build(), {x}));
  };
  CheckClose(run("BesselI0e"), {0.6450352704491502, 0.308508322553671});
  CheckClose(run("BesselI1e"), {0.15642080318487162, 0.2152692892489377});
  CheckClose(run("BesselK0"), {0.9244190712276663, 0.1138938727495335});
  CheckClose(run("BesselJ1"), {0.24226845767487387, 0.5767248077568734});
  CheckClose(run("BesselY0"), {-0.4445187335067066, 0.5103756726497451});
}

NodeDef CumLse(bool exclusive, bool reverse) {
  return TypedNode("c", "CumulativeLogsumexp", DT_DOUBLE, 2)
      .Attr("exclusive", exclusive)
      .Attr("reverse", reverse)
      .Build();
}

TEST_CASE("CumulativeLogsumexp scans in log space", "[misc_math]") {
  const Tensor x = MakeTensor<double>({0, 1, 2, 3}, TensorShape({2, 2}));
  const Tensor axis0 = MakeTensor<int32_t>({0}, TensorShape({}));
  const Tensor last = MakeTensor<int64_t>({-1}, TensorShape({}));
  // Exclusive and reversed: the first value of a scan is -inf.
  CheckClose(Values<double>(RunOne(CumLse(true, true), {x, axis0})),
             {2.0, 3.0, -kInf, -kInf});
  CheckClose(Values<double>(RunOne(CumLse(false, false), {x, last})),
             {0.0, 1.3132616875182228, 2.0, 3.313261687518223});
  // -inf plus -inf stays -inf (no NaN from inf - inf).
  const Tensor neg = MakeVector<double>({-kInf, -kInf, 1.0});
  CheckClose(Values<double>(RunOne(CumLse(false, false), {neg, axis0})),
             {-kInf, -kInf, 1.0});
  CHECK_THAT(RunError(CumLse(false, false), {x, MakeVector<int32_t>({0})}),
             StatusIs(StatusCode::kInvalidArgument,
                      "ScanOp: axis must be a scalar, not [1]"));
  CHECK_THAT(RunError(CumLse(false, false),
                      {x, MakeTensor<int32_t>({-3}, TensorShape({}))}),
             StatusIs(StatusCode::kInvalidArgument,
                      "ScanOp: Expected scan axis in the range [-2, 2), but "
                      "got -1"));
}

NodeDef Nth(DataType dtype, bool reverse) {
  return TypedNode("n", "NthElement", dtype, 2)
      .Attr("reverse", reverse)
      .Build();
}

TEST_CASE("NthElement picks the n-th value of each row", "[misc_math]") {
  const Tensor x =
      MakeTensor<int32_t>({5, 1, 4, 2, 7, 7, 0, 3}, TensorShape({2, 4}));
  const Tensor one = MakeTensor<int32_t>({1}, TensorShape({}));
  Tensor out = RunOne(Nth(DT_INT32, false), {x, one});
  CHECK(out.shape() == TensorShape({2}));
  CHECK(Values<int32_t>(out) == std::vector<int32_t>({2, 3}));
  CHECK(Values<int32_t>(RunOne(Nth(DT_INT32, true), {x, one})) ==
        std::vector<int32_t>({4, 7}));
  const Tensor h = MakeVector<Eigen::half>(
      {Eigen::half(2.5f), Eigen::half(-1.0f), Eigen::half(0.5f)});
  CHECK(static_cast<float>(Values<Eigen::half>(RunOne(
            Nth(DT_HALF, false), {h, MakeTensor<int32_t>({2}, TensorShape({}))}))[0]) ==
        2.5f);
  CHECK_THAT(RunError(Nth(DT_INT32, false),
                      {x, MakeTensor<int32_t>({4}, TensorShape({}))}),
             StatusIs(StatusCode::kInvalidArgument,
                      "Input must have last dimension > n = 4"));
  CHECK_THAT(RunError(Nth(DT_INT32, false),
                      {x, MakeTensor<int32_t>({-1}, TensorShape({}))}),
             StatusIs(StatusCode::kInvalidArgument,
                      "n must be non-negative but is -1"));
  CHECK_THAT(RunError(Nth(DT_INT32, false),
                      {MakeTensor<int32_t>({1}, TensorShape({})), one}),
             StatusIs(StatusCode::kInvalidArgument,
                      "Input must be at least rank 1 but is rank 0"));
  CHECK_THAT(RunError(Nth(DT_INT32, false), {x, MakeVector<int32_t>({1})}),
             StatusIs(StatusCode::kInvalidArgument,
                      "N must be scalar but has rank 1"));
}

TEST_CASE("Lu pivots rows as TensorFlow does", "[misc_math]") {
  const Tensor a = MakeTensor<double>({0, 1, 2, 3, 4, 5, 6, 7, 9},
                                      TensorShape({3, 3}));
  NodeDef n = TypedNode("lu", "Lu", DT_DOUBLE, 1)
                  .Attr("output_idx_type", DT_INT64)
                  .Build();
  auto out = testing::RunKernel(n, {a});
  REQUIRE_OK(out);
  // TensorFlow 2.21: rows 2, 0, 1 of the input, and L, U packed.
  CheckClose(Values<double>((*out)[0]), {6, 7, 9, 0, 1, 2, 0.5, 0.5, -0.5});
  CHECK((*out)[1].shape() == TensorShape({3}));
  CHECK(Values<int64_t>((*out)[1]) == std::vector<int64_t>({2, 0, 1}));
  NodeDef n32 = TypedNode("lu", "Lu", DT_DOUBLE, 1).Build();
  CHECK_THAT(RunError(n32, {MakeTensor<double>({1, 2, 2, 4},
                                               TensorShape({2, 2}))}),
             StatusIs(StatusCode::kInvalidArgument,
                      "Input is not invertible."));
  CHECK_THAT(RunError(n32, {MakeTensor<double>({1, 2, 3, 4, 5, 6},
                                               TensorShape({2, 3}))}),
             StatusIs(StatusCode::kInvalidArgument,
                      "Input matrix must be square."));
  CHECK_THAT(RunError(n32, {MakeVector<double>({1, 2})}),
             StatusIs(StatusCode::kInvalidArgument,
                      "Input tensor must have rank >= 2, got 1"));
}

TEST_CASE("TridiagonalMatMul multiplies by the three diagonals",
          "[misc_math]") {
  NodeDef n = TypedNode("t", "TridiagonalMatMul", DT_DOUBLE, 4).Build();
  const Tensor sup = MakeTensor<double>({1, 2, 3}, TensorShape({1, 3}));
  const Tensor mid = MakeTensor<double>({4, 5, 6}, TensorShape({1, 3}));
  const Tensor sub = MakeTensor<double>({7, 8, 9}, TensorShape({1, 3}));
  const Tensor rhs = MakeTensor<double>({1, 2, 3, 4, 5, 6}, TensorShape({3, 2}));
  auto out = testing::RunKernel(n, {sup, mid, sub, rhs});
  REQUIRE_OK(out);
  CheckClose(Values<double>((*out)[0]), {7, 12, 33, 48, 57, 72});
  CHECK_THAT(RunError(n, {MakeTensor<double>({1, 2}, TensorShape({1, 2})), mid,
                          sub, rhs}),
             StatusIs(StatusCode::kInvalidArgument,
                      "Invalid superdiagonal shape."));
  CHECK_THAT(RunError(n, {sup, mid, sub, MakeVector<double>({1, 2, 3})}),
             StatusIs(StatusCode::kInvalidArgument,
                      "Input tensor 3 must have rank >= 2, got 1"));
  CHECK_THAT(RunError(n, {MakeTensor<double>({1, 2, 3}, TensorShape({1, 1, 3})),
                          mid, sub, rhs}),
             StatusIs(StatusCode::kInvalidArgument,
                      "All input tensors must have the same rank."));
}

NodeDef TriSolve(bool pivoting, bool perturb) {
  return TypedNode("s", "TridiagonalSolve", DT_DOUBLE, 2)
      .Attr("partial_pivoting", pivoting)
      .Attr("perturb_singular", perturb)
      .Build();
}

TEST_CASE("TridiagonalSolve pivots, perturbs, or gives NaN as TensorFlow",
          "[misc_math]") {
  // [[1, 1, 0], [1, 1, 1], [0, 1, 1]] x = [1, 2, 3]: the second pivot is
  // zero without a row exchange.
  const Tensor diags = MakeTensor<double>({1, 1, 0, 1, 1, 1, 0, 1, 1},
                                          TensorShape({3, 3}));
  const Tensor rhs = MakeTensor<double>({1, 2, 3}, TensorShape({3, 1}));
  CheckClose(Values<double>(RunOne(TriSolve(true, false), {diags, rhs})),
             {-1, 2, 1});
  CheckClose(Values<double>(RunOne(TriSolve(true, true), {diags, rhs})),
             {-1, 2, 1});
  for (double v : Values<double>(RunOne(TriSolve(false, false), {diags, rhs}))) {
    CHECK(std::isnan(v));
  }
  // One equation with a zero coefficient: NaN, or (perturb_singular) the
  // pivot moved to the smallest normal double.
  const Tensor zero = MakeTensor<double>({5, 0, 7}, TensorShape({3, 1}));
  const Tensor b = MakeTensor<double>({1, 3}, TensorShape({1, 2}));
  for (double v : Values<double>(RunOne(TriSolve(true, false), {zero, b}))) {
    CHECK(std::isnan(v));
  }
  CHECK(Values<double>(RunOne(TriSolve(true, true), {zero, b})) ==
        std::vector<double>({1.4980776123852632e+307, 4.49423283715579e+307}));
  CHECK_THAT(RunError(TriSolve(false, true), {diags, rhs}),
             StatusIs(StatusCode::kInvalidArgument,
                      "Setting perturb_singular requires also setting "
                      "partial_pivoting."));
  CHECK_THAT(RunError(TriSolve(true, false),
                      {MakeTensor<double>({1, 2, 3, 4}, TensorShape({2, 2})),
                       MakeTensor<double>({1, 2}, TensorShape({2, 1}))}),
             StatusIs(StatusCode::kInvalidArgument,
                      "Expected diagonals to be provided as a matrix with 3 "
                      "rows, got 2 rows."));
  CHECK_THAT(RunError(TriSolve(true, false),
                      {diags, MakeTensor<double>({1, 2}, TensorShape({2, 1}))}),
             StatusIs(StatusCode::kInvalidArgument,
                      "Expected the same number of left-hand sides and "
                      "right-hand sides, got 3 and 2."));
}

TEST_CASE("MatrixSquareRoot takes the principal root of each matrix",
          "[misc_math]") {
  NodeDef n = TypedNode("r", "MatrixSquareRoot", DT_DOUBLE, 1).Build();
  // [[5, 4], [4, 5]] = [[2, 1], [1, 2]]^2; a batch of two.
  const Tensor a = MakeTensor<double>({5, 4, 4, 5, 4, 0, 0, 9},
                                      TensorShape({2, 2, 2}));
  CheckClose(Values<double>(RunOne(n, {a})), {2, 1, 1, 2, 2, 0, 0, 3});
  // A negative eigenvalue has no real root: NaN everywhere, as TensorFlow.
  for (double v : Values<double>(RunOne(
           n, {MakeTensor<double>({-4, 0, 0, 9}, TensorShape({2, 2}))}))) {
    CHECK(std::isnan(v));
  }
  NodeDef c = TypedNode("r", "MatrixSquareRoot", DT_COMPLEX128, 1).Build();
  using C = std::complex<double>;
  const std::vector<C> root = Values<C>(RunOne(
      c, {MakeTensor<C>({C(-4, 0), C(0, 0), C(0, 0), C(9, 0)},
                        TensorShape({2, 2}))}));
  CHECK(root[0].real() == Approx(0).margin(1e-12));
  CHECK(root[0].imag() == Approx(2).epsilon(1e-12));
  CHECK(root[3].real() == Approx(3).epsilon(1e-12));
  CHECK_THAT(RunError(n, {MakeTensor<double>({1, 2, 3, 4, 5, 6},
                                             TensorShape({2, 3}))}),
             StatusIs(StatusCode::kInvalidArgument,
                      "Input matrix must be square."));
  CHECK_THAT(RunError(n, {MakeVector<double>({1, 2})}),
             StatusIs(StatusCode::kInvalidArgument,
                      "Input tensor 0 must have rank >= 2, got 1"));
}

TEST_CASE("CTCGreedyDecoder decodes best paths into a sparse tensor",
          "[misc_math]") {
  // max_time 4, batch 2, classes 3 (blank = 2 by default). Batch 0 picks
  // 0, 0, 2, 1; batch 1 (length 2) picks 1, 1.
  const Tensor logits = MakeTensor<float>(
      {1, 0, 0, /**/ 0, 1, 0,    // t = 0
       1, 0, 0, /**/ 0, 1, 0,    // t = 1
       0, 0, 1, /**/ 1, 0, 0,    // t = 2 (beyond batch 1's length)
       0, 1, 0, /**/ 1, 0, 0},   // t = 3
      TensorShape({4, 2, 3}));
  const Tensor lengths = MakeVector<int32_t>({4, 2});
  auto run = [&](bool merge, int blank) {
    NodeDef n = TypedNode("d", "CTCGreedyDecoder", DT_FLOAT, 2)
                    .Attr("merge_repeated", merge)
                    .Attr("blank_index", blank)
                    .Build();
    auto out = testing::RunKernel(n, {logits, lengths});
    REQUIRE_OK(out);
    return *out;
  };
  std::vector<Tensor> plain = run(false, -1);
  CHECK(Values<int64_t>(plain[0]) ==
        std::vector<int64_t>({0, 0, 0, 1, 0, 2, 1, 0, 1, 1}));
  CHECK(Values<int64_t>(plain[1]) == std::vector<int64_t>({0, 0, 1, 1, 1}));
  CHECK(Values<int64_t>(plain[2]) == std::vector<int64_t>({2, 3}));
  CHECK(plain[3].shape() == TensorShape({2, 1}));
  CHECK(Values<float>(plain[3]) == std::vector<float>({-4, -2}));
  std::vector<Tensor> merged = run(true, 0);
  // Blank 0: batch 0 keeps 2, 1; batch 1 merges its two 1s.
  CHECK(Values<int64_t>(merged[1]) == std::vector<int64_t>({2, 1, 1}));
  CHECK(Values<int64_t>(merged[2]) == std::vector<int64_t>({2, 2}));
  NodeDef n = TypedNode("d", "CTCGreedyDecoder", DT_FLOAT, 2)
                  .Attr("blank_index", 3)
                  .Build();
  CHECK_THAT(RunError(n, {logits, lengths}),
             StatusIs(StatusCode::kInvalidArgument,
                      "blank_index expected to be between -3 and 2 but was 3"));
  NodeDef d = TypedNode("d", "CTCGreedyDecoder", DT_FLOAT, 2).Build();
  CHECK_THAT(RunError(d, {logits, MakeVector<int32_t>({5, 1})}),
             StatusIs(StatusCode::kFailedPrecondition,
                      "sequence_length(0) <= 4"));
  CHECK_THAT(RunError(d, {logits, MakeVector<int32_t>({1})}),
             StatusIs(StatusCode::kFailedPrecondition,
                      "len(sequence_length) != batch_size"));
  CHECK_THAT(RunError(d, {MakeTensor<float>({1, 2}, TensorShape({1, 2})),
                          lengths}),
             StatusIs(StatusCode::kInvalidArgument, "inputs is not a 3-Tensor"));
}

TEST_CASE("CTCLoss gives TensorFlow's loss and gradient", "[misc_math]") {
  // Two steps of uniform logits over {0, 1, blank}, label [0]: the paths
  // 00 (merged), 0b, b0 each have probability 1/9.
  const Tensor logits = MakeTensor<double>({0, 0, 0, 0, 0, 0},
                                           TensorShape({2, 1, 3}));
  const Tensor indices = MakeTensor<int64_t>({0, 0}, TensorShape({1, 2}));
  const Tensor values = MakeVector<int32_t>({0});
  const Tensor lengths = MakeVector<int32_t>({2});
  auto run = [&](bool merge) {
    NodeDef n = TypedNode("c", "CTCLoss", DT_DOUBLE, 4)
                    .Attr("ctc_merge_repeated", merge)
                    .Build();
    auto out = testing::RunKernel(n, {logits, indices, values, lengths});
    REQUIRE_OK(out);
    return *out;
  };
  std::vector<Tensor> merged = run(true);
  CheckClose(Values<double>(merged[0]), {1.0986122986363447});
  // TensorFlow's exp of the occupancy is a float even for double, which
  // shows in the last digits.
  CHECK(Values<double>(merged[1]) ==
        std::vector<double>({-0.3333333532015483, 0.3333333333333333,
                             1.986821490662649e-08, -0.3333333532015483,
                             0.3333333333333333, 1.986821490662649e-08}));
  // Without merging dfx's loss differs from TensorFlow's in the 8th digit
  // (TensorFlow rounds part of its recursion to float differently here).
  std::vector<Tensor> unmerged = run(false);
  CHECK(Values<double>(unmerged[0])[0] ==
        Approx(1.504077434539795).epsilon(1e-7));
  NodeDef n = TypedNode("c", "CTCLoss", DT_DOUBLE, 4).Build();
  CHECK_THAT(
      RunError(n, {logits, MakeTensor<int64_t>({0, 0, 0, 1},
                                               TensorShape({2, 2})),
                   MakeVector<int32_t>({0, 1}), MakeVector<int32_t>({1})}),
      StatusIs(StatusCode::kInvalidArgument,
               "Not enough time for target transition sequence (required: 2, "
               "available: 1)"));
  CHECK_THAT(
      RunError(n, {logits, MakeTensor<int64_t>({0, 0, 0, 0},
                                               TensorShape({2, 2})),
                   MakeVector<int32_t>({0, 1}), lengths}),
      StatusIs(StatusCode::kInvalidArgument,
               "label SparseTensor is not valid: indices[1] = [0,0] is "
               "repeated"));
  CHECK_THAT(
      RunError(n, {logits, MakeTensor<int64_t>({1, 0}, TensorShape({1, 2})),
                   values, lengths}),
      StatusIs(StatusCode::kInvalidArgument,
               "indices[0] = [1,0] is out of bounds: need 0 <= index < [1,1]"));
  CHECK_THAT(RunError(n, {logits, indices, MakeVector<int32_t>({-1}),
                          lengths}),
             StatusIs(StatusCode::kInvalidArgument,
                      "All labels must be nonnegative integers, batch: 0"));
  CHECK_THAT(RunError(n, {logits, indices, values, MakeVector<int32_t>({-1})}),
             StatusIs(StatusCode::kInvalidArgument, "seq_len(0) < 0"));
  CHECK_THAT(RunError(n, {logits, indices, values, MakeVector<int32_t>({3})}),
             StatusIs(StatusCode::kInvalidArgument, "sequence_length(0) <= 2"));
}

NodeDef Format(const char* tmpl, const DataTypeVector& types,
               int summarize) {
  return TestNodeBuilder("f", "StringFormat", static_cast<int>(types.size()))
      .Attr("T", types)
      .Attr("template", tmpl)
      .Attr("placeholder", "{}")
      .Attr("summarize", summarize)
      .Build();
}

TEST_CASE("StringFormat prints tensors as TensorFlow does", "[misc_math]") {
  const Tensor f = MakeVector<float>({1.0f / 3, 0.1f, 1e10f, -0.0f});
  const Tensor m = MakeTensor<int32_t>({1, 2, 3, 4, 5, 6, 7, 8, 9, 10},
                                       TensorShape({2, 5}));
  auto run = [](const NodeDef& n, const std::vector<Tensor>& in) {
    return RunOne(n, in).data<std::string>()[0];
  };
  CHECK(run(Format("x={} y={}!", {DT_FLOAT, DT_INT32}, 2), {f, m}) ==
        "x=[0.333333343 0.1 1e+10 -0] y=[[1 2 ... 4 5]\n [6 7 ... 9 10]]!");
  CHECK(run(Format("{}", {DT_DOUBLE}, 3), {MakeVector<double>({1.0 / 3})}) ==
        "[0.33333333333333331]");
  CHECK(run(Format("{}", {DT_INT32}, 0), {m}) == "[\n ...]");
  CHECK(run(Format("{}", {DT_STRING}, 3),
            {Tensor::FromVector<std::string>({"a", "b\"c\n\x01\xff"})}) ==
        "[\"a\" \"b\\\"c\\n\\001\xff\"]");
  CHECK(run(Format("{}", {DT_BOOL}, -1),
            {MakeTensor<bool>({true, false}, TensorShape({2}))}) == "[1 0]");
  CHECK(run(Format("<{}>", {DT_FLOAT}, 3),
            {MakeTensor<float>({2.5f}, TensorShape({}))}) == "<2.5>");
  CHECK_THAT(RunError(Format("{} and {}", {DT_FLOAT}, 3), {f}),
             StatusIs(StatusCode::kInvalidArgument,
                      "num placeholders in template and num inputs must "
                      "match: 2 vs. 1"));
}

TEST_CASE("PrintV2 writes its input and end to the chosen stream",
          "[misc_math]") {
  const Tensor hello = Tensor::FromVector<std::string>(
      std::vector<std::string>{"hello"}, TensorShape({}));
  std::ostringstream captured;
  std::streambuf* saved = std::cerr.rdbuf(captured.rdbuf());
  auto out = testing::RunKernel(
      TestNodeBuilder("p", "PrintV2", 1).Attr("end", "!").Build(), {hello});
  auto out2 =
      testing::RunKernel(TestNodeBuilder("p", "PrintV2", 1).Build(), {hello});
  std::cerr.rdbuf(saved);
  REQUIRE_OK(out);
  REQUIRE_OK(out2);
  CHECK(out->empty());
  CHECK(captured.str() == "hello!hello\n");
  CHECK_THAT(RunError(TestNodeBuilder("p", "PrintV2", 1)
                          .Attr("output_stream", "stdin")
                          .Build(),
                      {hello}),
             StatusIs(StatusCode::kInvalidArgument,
                      "Unknown output stream: stdin, Valid streams are: "
                      "stdout stderr log(info) log(warning) log(error)"));
  CHECK_THAT(RunError(TestNodeBuilder("p", "PrintV2", 1)
                          .Attr("output_stream", "file:///tmp/x")
                          .Build(),
                      {hello}),
             StatusIs(StatusCode::kUnimplemented, "does not print to files"));
  CHECK_THAT(RunError(TestNodeBuilder("p", "PrintV2", 1).Build(),
                      {Tensor::FromVector<std::string>({"a", "b"})}),
             StatusIs(StatusCode::kInvalidArgument,
                      "Input is expected to be scalar, but got [2]"));
}

NodeDef SegmentV2(const char* op) {
  return TypedNode("s", op, DT_FLOAT, 3)
      .Attr("Tindices", DT_INT32)
      .Attr("Tnumsegments", DT_INT32)
      .Build();
}

// TensorFlow runs the V2 segment ops only through XLA; these are XLA's
// answers (tf.function(jit_compile=True)) for the same inputs.
TEST_CASE("Segment*V2 reduce into num_segments rows as XLA does",
          "[misc_math]") {
  const Tensor d = MakeTensor<float>({1, 2, 3, 4, 5, 6}, TensorShape({3, 2}));
  const float lo = std::numeric_limits<float>::lowest();
  const float hi = std::numeric_limits<float>::max();
  auto run = [&](const char* op, std::vector<int32_t> ids, int32_t n) {
    Tensor out = RunOne(SegmentV2(op),
                        {d, Tensor::FromVector<int32_t>(ids),
                         MakeTensor<int32_t>({n}, TensorShape({}))});
    CHECK(out.shape() == TensorShape({n, 2}));
    return Values<float>(out);
  };
  CHECK(run("SegmentSumV2", {0, 0, 2}, 4) ==
        std::vector<float>({4, 6, 0, 0, 5, 6, 0, 0}));
  CHECK(run("SegmentMaxV2", {0, 0, 2}, 4) ==
        std::vector<float>({3, 4, lo, lo, 5, 6, lo, lo}));
  CHECK(run("SegmentMinV2", {0, 0, 2}, 4) ==
        std::vector<float>({1, 2, hi, hi, 5, 6, hi, hi}));
  CHECK(run("SegmentProdV2", {0, 0, 2}, 4) ==
        std::vector<float>({3, 8, 1, 1, 5, 6, 1, 1}));
  // Ids past num_segments or negative drop their rows; unsorted ids work.
  CHECK(run("SegmentSumV2", {0, 0, 7}, 3) ==
        std::vector<float>({4, 6, 0, 0, 0, 0}));
  CHECK(run("SegmentSumV2", {2, 0, 1}, 3) ==
        std::vector<float>({3, 4, 5, 6, 1, 2}));
  CHECK(run("SegmentMaxV2", {-1, 0, 1}, 3) ==
        std::vector<float>({3, 4, 5, 6, lo, lo}));
  CHECK_THAT(RunError(SegmentV2("SegmentSumV2"),
                      {d, Tensor::FromVector<int32_t>({0, 1}),
                       MakeTensor<int32_t>({2}, TensorShape({}))}),
             StatusIs(StatusCode::kInvalidArgument,
                      "segment_ids should be the same size as dimension 0"));
  CHECK_THAT(RunError(SegmentV2("SegmentSumV2"),
                      {d, Tensor::FromVector<int32_t>({0, 1, 1}),
                       MakeTensor<int32_t>({-1}, TensorShape({}))}),
             StatusIs(StatusCode::kInvalidArgument,
                      "Input num_segments == -1 must not be negative."));
}

// TensorFlow 2.21's OpDefs, printed from its op registry.
const char* const kTfOpDefs[] = {
    "name: 'BesselI0' input_arg { name: 'x' type_attr: 'T' } output_arg { "
    "name: 'y' type_attr: 'T' } attr { name: 'T' type: 'type' "
    "allowed_values { list { type: DT_BFLOAT16 type: DT_HALF type: DT_FLOAT"
    " type: DT_DOUBLE } } }",
    "name: 'BesselI0e' input_arg { name: 'x' type_attr: 'T' } output_arg { "
    "name: 'y' type_attr: 'T' } attr { name: 'T' type: 'type' "
    "allowed_values { list { type: DT_BFLOAT16 type: DT_HALF type: DT_FLOAT"
    " type: DT_DOUBLE } } }",
    "name: 'BesselI1' input_arg { name: 'x' type_attr: 'T' } output_arg { "
    "name: 'y' type_attr: 'T' } attr { name: 'T' type: 'type' "
    "allowed_values { list { type: DT_BFLOAT16 type: DT_HALF type: DT_FLOAT"
    " type: DT_DOUBLE } } }",
    "name: 'BesselI1e' input_arg { name: 'x' type_attr: 'T' } output_arg { "
    "name: 'y' type_attr: 'T' } attr { name: 'T' type: 'type' "
    "allowed_values { list { type: DT_BFLOAT16 type: DT_HALF type: DT_FLOAT"
    " type: DT_DOUBLE } } }",
    "name: 'BesselK0' input_arg { name: 'x' type_attr: 'T' } output_arg { "
    "name: 'y' type_attr: 'T' } attr { name: 'T' type: 'type' "
    "allowed_values { list { type: DT_BFLOAT16 type: DT_HALF type: DT_FLOAT"
    " type: DT_DOUBLE } } }",
    "name: 'BesselK0e' input_arg { name: 'x' type_attr: 'T' } output_arg { "
    "name: 'y' type_attr: 'T' } attr { name: 'T' type: 'type' "
    "allowed_values { list { type: DT_BFLOAT16 type: DT_HALF type: DT_FLOAT"
    " type: DT_DOUBLE } } }",
    "name: 'BesselK1' input_arg { name: 'x' type_attr: 'T' } output_arg { "
    "name: 'y' type_attr: 'T' } attr { name: 'T' type: 'type' "
    "allowed_values { list { type: DT_BFLOAT16 type: DT_HALF type: DT_FLOAT"
    " type: DT_DOUBLE } } }",
    "name: 'BesselK1e' input_arg { name: 'x' type_attr: 'T' } output_arg { "
    "name: 'y' type_attr: 'T' } attr { name: 'T' type: 'type' "
    "allowed_values { list { type: DT_BFLOAT16 type: DT_HALF type: DT_FLOAT"
    " type: DT_DOUBLE } } }",
    "name: 'BesselJ0' input_arg { name: 'x' type_attr: 'T' } output_arg { "
    "name: 'y' type_attr: 'T' } attr { name: 'T' type: 'type' "
    "allowed_values { list { type: DT_BFLOAT16 type: DT_HALF type: DT_FLOAT"
    " type: DT_DOUBLE } } }",
    "name: 'BesselJ1' input_arg { name: 'x' type_attr: 'T' } output_arg { "
    "name: 'y' type_attr: 'T' } attr { name: 'T' type: 'type' "
    "allowed_values { list { type: DT_BFLOAT16 type: DT_HALF type: DT_FLOAT"
    " type: DT_DOUBLE } } }",
    "name: 'BesselY0' input_arg { name: 'x' type_attr: 'T' } output_arg { "
    "name: 'y' type_attr: 'T' } attr { name: 'T' type: 'type' "
    "allowed_values { list { type: DT_BFLOAT16 type: DT_HALF type: DT_FLOAT"
    " type: DT_DOUBLE } } }",
    "name: 'BesselY1' input_arg { name: 'x' type_attr: 'T' } output_arg { "
    "name: 'y' type_attr: 'T' } attr { name: 'T' type: 'type' "
    "allowed_values { list { type: DT_BFLOAT16 type: DT_HALF type: DT_FLOAT"
    " type: DT_DOUBLE } } }",
    "name: 'CumulativeLogsumexp' input_arg { name: 'x' type_attr: 'T' } "
    "input_arg { name: 'axis' type_attr: 'Tidx' } output_arg { name: 'out' "
    "type_attr: 'T' } attr { name: 'exclusive' type: 'bool' default_value {"
    " b: false } } attr { name: 'reverse' type: 'bool' default_value { b: "
    "false } } attr { name: 'T' type: 'type' allowed_values { list { type: "
    "DT_BFLOAT16 type: DT_HALF type: DT_FLOAT type: DT_DOUBLE } } } attr { "
    "name: 'Tidx' type: 'type' default_value { type: DT_INT32 } "
    "allowed_values { list { type: DT_INT32 type: DT_INT64 } } }",
    "name: 'NthElement' input_arg { name: 'input' type_attr: 'T' } "
    "input_arg { name: 'n' type: DT_INT32 } output_arg { name: 'values' "
    "type_attr: 'T' } attr { name: 'reverse' type: 'bool' default_value { "
    "b: false } } attr { name: 'T' type: 'type' allowed_values { list { "
    "type: DT_FLOAT type: DT_DOUBLE type: DT_INT32 type: DT_UINT8 type: "
    "DT_INT16 type: DT_INT8 type: DT_INT64 type: DT_BFLOAT16 type: "
    "DT_UINT16 type: DT_HALF type: DT_UINT32 type: DT_UINT64 } } }",
    "name: 'Lu' input_arg { name: 'input' type_attr: 'T' } output_arg { "
    "name: 'lu' type_attr: 'T' } output_arg { name: 'p' type_attr: "
    "'output_idx_type' } attr { name: 'T' type: 'type' allowed_values { "
    "list { type: DT_DOUBLE type: DT_FLOAT type: DT_HALF type: DT_COMPLEX64"
    " type: DT_COMPLEX128 } } } attr { name: 'output_idx_type' type: 'type'"
    " default_value { type: DT_INT32 } allowed_values { list { type: "
    "DT_INT32 type: DT_INT64 } } }",
    "name: 'TridiagonalMatMul' input_arg { name: 'superdiag' type_attr: 'T'"
    " } input_arg { name: 'maindiag' type_attr: 'T' } input_arg { name: "
    "'subdiag' type_attr: 'T' } input_arg { name: 'rhs' type_attr: 'T' } "
    "output_arg { name: 'output' type_attr: 'T' } attr { name: 'T' type: "
    "'type' allowed_values { list { type: DT_DOUBLE type: DT_FLOAT type: "
    "DT_COMPLEX64 type: DT_COMPLEX128 } } }",
    "name: 'TridiagonalSolve' input_arg { name: 'diagonals' type_attr: 'T' "
    "} input_arg { name: 'rhs' type_attr: 'T' } output_arg { name: 'output'"
    " type_attr: 'T' } attr { name: 'partial_pivoting' type: 'bool' "
    "default_value { b: true } } attr { name: 'perturb_singular' type: "
    "'bool' default_value { b: false } } attr { name: 'T' type: 'type' "
    "allowed_values { list { type: DT_DOUBLE type: DT_FLOAT type: "
    "DT_COMPLEX64 type: DT_COMPLEX128 } } }",
    "name: 'MatrixSquareRoot' input_arg { name: 'input' type_attr: 'T' } "
    "output_arg { name: 'output' type_attr: 'T' } attr { name: 'T' type: "
    "'type' allowed_values { list { type: DT_DOUBLE type: DT_FLOAT type: "
    "DT_HALF type: DT_COMPLEX64 type: DT_COMPLEX128 } } }",
    "name: 'CTCGreedyDecoder' input_arg { name: 'inputs' type_attr: 'T' } "
    "input_arg { name: 'sequence_length' type: DT_INT32 } output_arg { "
    "name: 'decoded_indices' type: DT_INT64 } output_arg { name: "
    "'decoded_values' type: DT_INT64 } output_arg { name: 'decoded_shape' "
    "type: DT_INT64 } output_arg { name: 'log_probability' type_attr: 'T' }"
    " attr { name: 'merge_repeated' type: 'bool' default_value { b: false }"
    " } attr { name: 'blank_index' type: 'int' default_value { i: -1 } } "
    "attr { name: 'T' type: 'type' default_value { type: DT_FLOAT } "
    "allowed_values { list { type: DT_FLOAT type: DT_DOUBLE } } }",
    "name: 'CTCLoss' input_arg { name: 'inputs' type_attr: 'T' } input_arg "
    "{ name: 'labels_indices' type: DT_INT64 } input_arg { name: "
    "'labels_values' type: DT_INT32 } input_arg { name: 'sequence_length' "
    "type: DT_INT32 } output_arg { name: 'loss' type_attr: 'T' } output_arg"
    " { name: 'gradient' type_attr: 'T' } attr { name: "
    "'preprocess_collapse_repeated' type: 'bool' default_value { b: false }"
    " } attr { name: 'ctc_merge_repeated' type: 'bool' default_value { b: "
    "true } } attr { name: 'ignore_longer_outputs_than_inputs' type: 'bool'"
    " default_value { b: false } } attr { name: 'T' type: 'type' "
    "default_value { type: DT_FLOAT } allowed_values { list { type: "
    "DT_FLOAT type: DT_DOUBLE } } }",
    "name: 'StringFormat' input_arg { name: 'inputs' type_list_attr: 'T' } "
    "output_arg { name: 'output' type: DT_STRING } attr { name: 'T' type: "
    "'list(type)' has_minimum: true } attr { name: 'template' type: "
    "'string' default_value { s: '%s' } } attr { name: 'placeholder' type: "
    "'string' default_value { s: '%s' } } attr { name: 'summarize' type: "
    "'int' default_value { i: 3 } }",
    "name: 'PrintV2' input_arg { name: 'input' type: DT_STRING } attr { "
    "name: 'output_stream' type: 'string' default_value { s: 'stderr' } } "
    "attr { name: 'end' type: 'string' default_value { s: '\\n' } } "
    "is_stateful: true",
    "name: 'SegmentSumV2' input_arg { name: 'data' type_attr: 'T' } "
    "input_arg { name: 'segment_ids' type_attr: 'Tindices' } input_arg { "
    "name: 'num_segments' type_attr: 'Tnumsegments' } output_arg { name: "
    "'output' type_attr: 'T' } attr { name: 'T' type: 'type' allowed_values"
    " { list { type: DT_FLOAT type: DT_DOUBLE type: DT_INT32 type: DT_UINT8"
    " type: DT_INT16 type: DT_INT8 type: DT_COMPLEX64 type: DT_INT64 type: "
    "DT_QINT8 type: DT_QUINT8 type: DT_QINT32 type: DT_BFLOAT16 type: "
    "DT_QINT16 type: DT_QUINT16 type: DT_UINT16 type: DT_COMPLEX128 type: "
    "DT_HALF type: DT_UINT32 type: DT_UINT64 } } } attr { name: 'Tindices' "
    "type: 'type' allowed_values { list { type: DT_INT32 type: DT_INT64 } }"
    " } attr { name: 'Tnumsegments' type: 'type' default_value { type: "
    "DT_INT32 } allowed_values { list { type: DT_INT32 type: DT_INT64 } } }",
    "name: 'SegmentProdV2' input_arg { name: 'data' type_attr: 'T' } "
    "input_arg { name: 'segment_ids' type_attr: 'Tindices' } input_arg { "
    "name: 'num_segments' type_attr: 'Tnumsegments' } output_arg { name: "
    "'output' type_attr: 'T' } attr { name: 'T' type: 'type' allowed_values"
    " { list { type: DT_FLOAT type: DT_DOUBLE type: DT_INT32 type: DT_UINT8"
    " type: DT_INT16 type: DT_INT8 type: DT_COMPLEX64 type: DT_INT64 type: "
    "DT_QINT8 type: DT_QUINT8 type: DT_QINT32 type: DT_BFLOAT16 type: "
    "DT_QINT16 type: DT_QUINT16 type: DT_UINT16 type: DT_COMPLEX128 type: "
    "DT_HALF type: DT_UINT32 type: DT_UINT64 } } } attr { name: 'Tindices' "
    "type: 'type' allowed_values { list { type: DT_INT32 type: DT_INT64 } }"
    " } attr { name: 'Tnumsegments' type: 'type' default_value { type: "
    "DT_INT32 } allowed_values { list { type: DT_INT32 type: DT_INT64 } } }",
    "name: 'SegmentMaxV2' input_arg { name: 'data' type_attr: 'T' } "
    "input_arg { name: 'segment_ids' type_attr: 'Tindices' } input_arg { "
    "name: 'num_segments' type_attr: 'Tnumsegments' } output_arg { name: "
    "'output' type_attr: 'T' } attr { name: 'T' type: 'type' allowed_values"
    " { list { type: DT_FLOAT type: DT_DOUBLE type: DT_INT32 type: DT_UINT8"
    " type: DT_INT16 type: DT_INT8 type: DT_INT64 type: DT_BFLOAT16 type: "
    "DT_UINT16 type: DT_HALF type: DT_UINT32 type: DT_UINT64 } } } attr { "
    "name: 'Tindices' type: 'type' allowed_values { list { type: DT_INT32 "
    "type: DT_INT64 } } } attr { name: 'Tnumsegments' type: 'type' "
    "default_value { type: DT_INT32 } allowed_values { list { type: "
    "DT_INT32 type: DT_INT64 } } }",
    "name: 'SegmentMinV2' input_arg { name: 'data' type_attr: 'T' } "
    "input_arg { name: 'segment_ids' type_attr: 'Tindices' } input_arg { "
    "name: 'num_segments' type_attr: 'Tnumsegments' } output_arg { name: "
    "'output' type_attr: 'T' } attr { name: 'T' type: 'type' allowed_values"
    " { list { type: DT_FLOAT type: DT_DOUBLE type: DT_INT32 type: DT_UINT8"
    " type: DT_INT16 type: DT_INT8 type: DT_INT64 type: DT_BFLOAT16 type: "
    "DT_UINT16 type: DT_HALF type: DT_UINT32 type: DT_UINT64 } } } attr { "
    "name: 'Tindices' type: 'type' allowed_values { list { type: DT_INT32 "
    "type: DT_INT64 } } } attr { name: 'Tnumsegments' type: 'type' "
    "default_value { type: DT_INT32 } allowed_values { list { type: "
    "DT_INT32 type: DT_INT64 } } }",
};

TEST_CASE("Bessel, CumulativeLogsumexp, NthElement, Lu, TridiagonalMatMul, "
          "TridiagonalSolve, MatrixSquareRoot, CTCGreedyDecoder, CTCLoss, "
          "StringFormat, PrintV2 and Segment*V2 have TensorFlow 2.21's "
          "signatures",
          "[misc_math]") {
  for (const char* text : kTfOpDefs) {
    OpDef want;
    REQUIRE(google::protobuf::TextFormat::ParseFromString(text, &want));
    INFO(want.name());
    const OpRegistrationData* op = OpRegistry::Global()->LookUp(want.name());
    REQUIRE(op != nullptr);
    std::string diff;
    google::protobuf::util::MessageDifferencer differ;
    differ.ReportDifferencesToString(&diff);
    differ.Compare(want, op->op_def);
    INFO(diff);
    CHECK(diff.empty());
  }
}

}  // namespace
}  // namespace dfx

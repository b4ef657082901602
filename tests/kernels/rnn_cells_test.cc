// The rnn_cells family's ops (tests/golden/gen_rnn_cells.py: LSTMBlockCell,
// BlockLSTM(V2), GRUBlockCell and their gradients): TensorFlow 2.21's
// signatures and CPU kernel types, the shape functions, the gate layouts,
// and the errors dfx gives where TensorFlow's kernel crashes or reads out
// of bounds (which the golden cases leave out), each naming the node.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/math_test_util.h"
#include "tests/kernels/shape_fn_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::InferShapes;
using testing::MakeVector;
using testing::RunKernel;
using testing::ShapesString;
using testing::StatusIs;
using testing::TestNodeBuilder;
using testing::Values;

PartialShape S(std::vector<int64_t> dims) {
  return PartialShape::Known(std::move(dims));
}

Tensor Zeros(const TensorShape& shape) {
  Tensor t(DT_FLOAT, shape);
  for (float& v : t.span<float>()) v = 0;
  return t;
}

Tensor Fill(const TensorShape& shape, float value) {
  Tensor t(DT_FLOAT, shape);
  for (float& v : t.span<float>()) v = value;
  return t;
}

// LSTM inputs x, cs_prev, h_prev, w, wci, wcf, wco, b of the given sizes
// (x is [time, batch, input] when time >= 0), filled with small values.
std::vector<Tensor> LstmInputs(int64_t time, int64_t batch, int64_t input,
                               int64_t cell) {
  const TensorShape x_shape = time < 0 ? TensorShape({batch, input})
                                       : TensorShape({time, batch, input});
  return {Fill(x_shape, 0.5f),
          Fill(TensorShape({batch, cell}), 0.25f),
          Fill(TensorShape({batch, cell}), -0.25f),
          Fill(TensorShape({input + cell, 4 * cell}), 0.1f),
          Fill(TensorShape({cell}), 0.3f),
          Fill(TensorShape({cell}), -0.3f),
          Fill(TensorShape({cell}), 0.2f),
          Fill(TensorShape({4 * cell}), 0.05f)};
}

TEST_CASE("Every rnn_cells op has TensorFlow 2.21's signature and CPU types",
          "[rnn_cells]") {
  testing::CheckSignaturesWithTensorFlow("rnn_cells", 8);
}

TEST_CASE("LSTM cell shape functions give [batch, cell] and the gate width",
          "[rnn_cells]") {
  const NodeDef cell =
      TestNodeBuilder("c", "LSTMBlockCell", 8).Attr("T", DT_FLOAT).Build();
  std::vector<PartialShape> in(8, PartialShape::Unknown());
  in[0] = S({2, 3});
  in[1] = S({-1, 4});
  CHECK(ShapesString(InferShapes(cell, in)) ==
        "[2,4][2,4][2,4][2,4][2,4][2,4][2,4]");
  in[0] = S({2, 3, 1});
  CHECK_THAT(InferShapes(cell, in).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "'c'"));

  const NodeDef grad = TestNodeBuilder("g", "LSTMBlockCellGrad", 16)
                           .Attr("T", DT_HALF)
                           .Attr("use_peephole", true)
                           .Build();
  std::vector<PartialShape> gin(16, PartialShape::Unknown());
  gin[0] = S({2, 3});
  gin[1] = S({2, 5});
  CHECK(ShapesString(InferShapes(grad, gin)) == "[2,5][2,20][5][5][5]");
  gin[1] = S({2, -1});
  CHECK(ShapesString(InferShapes(grad, gin)) == "[2,?][2,?][?][?][?]");
  gin[1] = S({5});
  CHECK_THAT(InferShapes(grad, gin).status(),
             StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST_CASE("BlockLSTM shape functions take the cell size from b",
          "[rnn_cells]") {
  for (const char* op : {"BlockLSTM", "BlockLSTMV2"}) {
    const NodeDef node =
        TestNodeBuilder("b", op, 9).Attr("T", DT_FLOAT).Build();
    std::vector<PartialShape> in(9, PartialShape::Unknown());
    in[1] = S({5, 2, 3});
    in[8] = S({8});
    CHECK(ShapesString(InferShapes(node, in)) ==
          "[5,2,2][5,2,2][5,2,2][5,2,2][5,2,2][5,2,2][5,2,2]");
    in[8] = S({-1});
    CHECK(ShapesString(InferShapes(node, in)) ==
          "[5,2,?][5,2,?][5,2,?][5,2,?][5,2,?][5,2,?][5,2,?]");
    in[8] = S({10});
    CHECK_THAT(InferShapes(node, in).status(),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "evenly divisible by 4 but is 10"));
    in[8] = S({8});
    in[1] = S({2, 3});
    CHECK_THAT(InferShapes(node, in).status(),
               StatusIs(absl::StatusCode::kInvalidArgument, "'b'"));
  }
  const NodeDef grad = TestNodeBuilder("g", "BlockLSTMGradV2", 18)
                           .Attr("T", DT_FLOAT)
                           .Attr("use_peephole", false)
                           .Build();
  std::vector<PartialShape> in(18, PartialShape::Unknown());
  in[1] = S({4, 2, 3});
  in[2] = S({2, 5});
  in[4] = S({8, 20});
  in[8] = S({20});
  CHECK(ShapesString(InferShapes(grad, in)) ==
        "[4,2,3][2,5][?,?][8,20][?][?][?][20]");
  in[6] = S({5, 1});  // wcf
  CHECK_THAT(InferShapes(grad, in).status(),
             StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST_CASE("GRU cell shape functions give [batch, cell] and [batch, 2 cell]",
          "[rnn_cells]") {
  const NodeDef cell =
      TestNodeBuilder("c", "GRUBlockCell", 6).Attr("T", DT_FLOAT).Build();
  std::vector<PartialShape> in(6, PartialShape::Unknown());
  in[0] = S({3, 2});
  in[1] = S({-1, 4});
  CHECK(ShapesString(InferShapes(cell, in)) == "[3,4][3,4][3,4][3,4]");
  in[1] = S({4});
  CHECK_THAT(InferShapes(cell, in).status(),
             StatusIs(absl::StatusCode::kInvalidArgument));
  const NodeDef grad =
      TestNodeBuilder("g", "GRUBlockCellGrad", 10).Attr("T", DT_FLOAT).Build();
  std::vector<PartialShape> gin(10, PartialShape::Unknown());
  gin[0] = S({3, 2});
  gin[1] = S({3, 4});
  gin[2] = S({6, 8});
  CHECK(ShapesString(InferShapes(grad, gin)) == "[3,2][3,4][3,4][3,8]");
}

TEST_CASE("BlockLSTM reads gates i, c, f, o and BlockLSTMV2 i, f, c, o",
          "[rnn_cells]") {
  // Zero inputs and weights: the gates are b. With b_c = 10 and b_f = -10
  // in v1's order, cs = sigmoid(0) * tanh(10); V2 reads tanh(-10).
  std::vector<Tensor> in = {
      Tensor::Scalar<int64_t>(1),        Zeros(TensorShape({1, 1, 1})),
      Zeros(TensorShape({1, 1})),        Zeros(TensorShape({1, 1})),
      Zeros(TensorShape({2, 4})),        Zeros(TensorShape({1})),
      Zeros(TensorShape({1})),           Zeros(TensorShape({1})),
      MakeVector<float>({0, 10, -10, 0})};
  auto v1 = RunKernel(TestNodeBuilder("v1", "BlockLSTM", 9)
                          .Attr("T", DT_FLOAT)
                          .Attr("forget_bias", 0.0f)
                          .Build(),
                      in);
  REQUIRE_OK(v1);
  CHECK(Values<float>((*v1)[1])[0] ==
        Approx(0.5 * std::tanh(10.0)).epsilon(1e-5));
  CHECK(Values<float>((*v1)[2])[0] ==
        Approx(1 / (1 + std::exp(10.0))).margin(1e-6));
  auto v2 = RunKernel(
      TestNodeBuilder("v2", "BlockLSTMV2", 9).Attr("T", DT_FLOAT).Build(), in);
  REQUIRE_OK(v2);
  CHECK(Values<float>((*v2)[1])[0] ==
        Approx(-0.5 * std::tanh(10.0)).epsilon(1e-5));
  CHECK(Values<float>((*v2)[2])[0] ==
        Approx(1 / (1 + std::exp(-10.0))).epsilon(1e-5));
}

TEST_CASE("BlockLSTM leaves every output zero past seq_len_max",
          "[rnn_cells]") {
  std::vector<Tensor> in = LstmInputs(3, 2, 2, 3);
  in.insert(in.begin(), Tensor::Scalar<int64_t>(1));
  auto out = RunKernel(TestNodeBuilder("lstm", "BlockLSTM", 9)
                           .Attr("T", DT_FLOAT)
                           .Attr("use_peephole", true)
                           .Build(),
                       in);
  REQUIRE_OK(out);
  REQUIRE(out->size() == 7);
  for (const Tensor& t : *out) {
    REQUIRE(t.shape() == TensorShape({3, 2, 3}));
    const std::vector<float> v = Values<float>(t);
    for (size_t k = 6; k < v.size(); ++k) CHECK(v[k] == 0.0f);
    bool nonzero = false;
    for (size_t k = 0; k < 6; ++k) nonzero |= v[k] != 0.0f;
    CHECK(nonzero);
  }
}

TEST_CASE(
    "A seq_len_max outside x's time steps is InvalidArgument naming the "
    "node, where TensorFlow 2.21 aborts",
    "[rnn_cells]") {
  std::vector<Tensor> in = LstmInputs(4, 2, 3, 2);
  in.insert(in.begin(), Tensor::Scalar<int64_t>(5));
  const NodeDef fwd =
      TestNodeBuilder("lstm", "BlockLSTM", 9).Attr("T", DT_FLOAT).Build();
  CHECK_THAT(RunKernel(fwd, in).status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "node 'lstm' (op BlockLSTM): seq_len_max must be "
                      "between 0 and 4 but is 5"));
  in[0] = Tensor::Scalar<int64_t>(-1);
  CHECK_THAT(RunKernel(fwd, in).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "but is -1"));

  // BlockLSTMGrad after a good forward pass, seq_len_max raised past it.
  in[0] = Tensor::Scalar<int64_t>(4);
  auto outs = RunKernel(fwd, in);
  REQUIRE_OK(outs);
  std::vector<Tensor> gin = in;
  for (const Tensor& t : *outs) gin.push_back(t);
  gin.push_back(Fill(TensorShape({4, 2, 2}), 1.0f));  // cs_grad
  gin.push_back(Fill(TensorShape({4, 2, 2}), 1.0f));  // h_grad
  const NodeDef grad = TestNodeBuilder("lstm_grad", "BlockLSTMGrad", 18)
                           .Attr("T", DT_FLOAT)
                           .Attr("use_peephole", false)
                           .Build();
  REQUIRE_OK(RunKernel(grad, gin));
  gin[0] = Tensor::Scalar<int64_t>(7);
  CHECK_THAT(RunKernel(grad, gin).status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "node 'lstm_grad' (op BlockLSTMGrad): seq_len_max must "
                      "be between 0 and 4 but is 7"));
}

TEST_CASE(
    "BlockLSTMGrad refuses forward outputs, gradients and weights of the "
    "wrong shape, which TensorFlow 2.21 never checks",
    "[rnn_cells]") {
  std::vector<Tensor> in = LstmInputs(2, 2, 3, 2);
  in.insert(in.begin(), Tensor::Scalar<int64_t>(2));
  std::vector<Tensor> gin = in;
  for (int k = 0; k < 9; ++k) gin.push_back(Fill(TensorShape({2, 2, 2}), 0.5f));
  const NodeDef grad = TestNodeBuilder("g", "BlockLSTMGradV2", 18)
                           .Attr("T", DT_FLOAT)
                           .Attr("use_peephole", true)
                           .Build();
  REQUIRE_OK(RunKernel(grad, gin));

  std::vector<Tensor> bad = gin;
  bad[16] = Fill(TensorShape({2, 2, 3}), 0.5f);  // cs_grad
  CHECK_THAT(RunKernel(grad, bad).status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "node 'g' (op BlockLSTMGradV2): cs_grad must be"));
  bad = gin;
  bad[10] = Fill(TensorShape({1, 2, 2}), 0.5f);  // cs, one step short
  CHECK_THAT(RunKernel(grad, bad).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "cs must be"));
  bad = gin;
  bad[6] = Fill(TensorShape({3}), 0.5f);  // wcf
  CHECK_THAT(RunKernel(grad, bad).status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "wcf.dim_size(0) != cell_size: 3 vs. 2"));
  bad = gin;
  bad[2] = Fill(TensorShape({3, 2}), 0.5f);  // cs_prev
  CHECK_THAT(RunKernel(grad, bad).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "cs_prev must be"));
  // w of 6 columns and b of 4: cell_size 1 by both, w too wide for it.
  bad = gin;
  bad[4] = Fill(TensorShape({4, 6}), 0.5f);
  bad[8] = Fill(TensorShape({4}), 0.5f);
  CHECK_THAT(RunKernel(grad, bad).status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "w matrix columns must be a multiple of 4, but got 6"));
}

TEST_CASE(
    "The LSTM cells refuse ranks and peepholes TensorFlow reads past, "
    "naming the node",
    "[rnn_cells]") {
  const NodeDef cell = TestNodeBuilder("cell", "LSTMBlockCell", 8)
                           .Attr("T", DT_FLOAT)
                           .Attr("use_peephole", true)
                           .Build();
  std::vector<Tensor> in = LstmInputs(-1, 2, 3, 4);
  auto out = RunKernel(cell, in);
  REQUIRE_OK(out);
  CHECK(out->size() == 7);

  std::vector<Tensor> bad = in;
  bad[0] = Fill(TensorShape({6}), 0.5f);
  CHECK_THAT(RunKernel(cell, bad).status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "node 'cell' (op LSTMBlockCell): x_tensor must be rank "
                      "2 but is rank 1."));
  bad = in;
  bad[5] = Fill(TensorShape({3}), 0.5f);
  CHECK_THAT(RunKernel(cell, bad).status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "wcf.dim_size(0) != cell_size: 3 vs. 4"));
  // Without peepholes their lengths do not matter, as in TensorFlow.
  const NodeDef plain =
      TestNodeBuilder("plain", "LSTMBlockCell", 8).Attr("T", DT_FLOAT).Build();
  REQUIRE_OK(RunKernel(plain, bad));

  const NodeDef grad = TestNodeBuilder("grad", "LSTMBlockCellGrad", 16)
                           .Attr("T", DT_FLOAT)
                           .Attr("use_peephole", true)
                           .Build();
  std::vector<Tensor> gin = in;
  for (int k = 0; k < 6; ++k) gin.push_back((*out)[k]);
  gin.push_back(Fill(TensorShape({2, 4}), 1.0f));
  gin.push_back(Fill(TensorShape({2, 4}), 1.0f));
  auto g = RunKernel(grad, gin);
  REQUIRE_OK(g);
  CHECK((*g)[1].shape() == TensorShape({2, 16}));
  std::vector<Tensor> gbad = gin;
  gbad[8] = Fill(TensorShape({2, 4, 1}), 0.5f);  // i
  CHECK_THAT(RunKernel(grad, gbad).status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "node 'grad' (op LSTMBlockCellGrad): i must be rank 2 "
                      "but is rank 3"));
  gbad = gin;
  gbad[6] = Fill(TensorShape({5}), 0.5f);  // wco
  CHECK_THAT(RunKernel(grad, gbad).status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "wco.dim_size(0) != cell_size: 5 vs. 4"));
}

TEST_CASE("GRUBlockCell errors name the node", "[rnn_cells]") {
  const NodeDef gru =
      TestNodeBuilder("gru", "GRUBlockCell", 6).Attr("T", DT_FLOAT).Build();
  std::vector<Tensor> in = {
      Fill(TensorShape({2, 3}), 0.5f), Fill(TensorShape({2, 4}), 0.1f),
      Fill(TensorShape({7, 8}), 0.1f), Fill(TensorShape({7, 4}), 0.1f),
      Fill(TensorShape({8}), 0.1f),    Fill(TensorShape({4}), 0.1f)};
  REQUIRE_OK(RunKernel(gru, in));
  in[5] = Fill(TensorShape({5}), 0.1f);
  CHECK_THAT(RunKernel(gru, in).status(),
             StatusIs(absl::StatusCode::kInvalidArgument,
                      "node 'gru' (op GRUBlockCell): b_c.dim_size(0) != "
                      "cell_size: 5 vs. 4"));
}

}  // namespace
}  // namespace dfx

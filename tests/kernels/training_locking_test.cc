// use_locking: concurrent updates of one variable with use_locking=true
// lose nothing, in the reference and resource forms, dense and sparse; two
// updates that lock the same variables in opposite input orders never
// deadlock.
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "catch2/catch.hpp"
#include "tests/kernels/training_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::Doubles;
using testing::FloatTensor;
using testing::MakeVariable;
using testing::ReadVariable;
using testing::RefVariable;
using testing::TestCpuDevice;
using testing::TestNodeBuilder;

constexpr int kThreads = 8;
constexpr int kSteps = 150;
constexpr int64_t kElements = 4096;

std::unique_ptr<OpKernel> MakeKernel(NodeDef node) {
  const OpRegistrationData* op = OpRegistry::Global()->LookUp(node.op());
  DFX_CHECK(op != nullptr);
  AddDefaultAttrs(op->op_def, &node);
  return StandardKernelRegistry()
      ->CreateKernel(node, op->op_def, TestCpuDevice())
      .value();
}

// Runs `kernel` kSteps times on each of kThreads threads at once; the first
// error. Asserts nothing itself (it runs on test threads too).
absl::Status Hammer(OpKernel* kernel, const std::vector<Tensor>& inputs,
                    const std::vector<TensorRef>& refs) {
  std::vector<absl::Status> status(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int s = 0; s < kSteps && status[t].ok(); ++s) {
        OpKernelContext::Params params;
        params.op_kernel = kernel;
        params.device = TestCpuDevice();
        params.inputs = inputs;
        params.input_refs = refs;
        OpKernelContext ctx(&params);
        kernel->Compute(&ctx);
        status[t] = ctx.status();
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (const absl::Status& s : status) {
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

// Every element is kThreads * kSteps: no increment was lost.
void CheckNoneLost(const Tensor& var) {
  const std::vector<double> v = Doubles(var);
  int64_t wrong = 0;
  for (double x : v) wrong += x != kThreads * kSteps;
  CHECK(wrong == 0);
}

TEST_CASE(
    "ApplyGradientDescent with use_locking loses no concurrent "
    "update",
    "[training]") {
  RefVariable var(
      FloatTensor(DT_FLOAT, {kElements}, std::vector<double>(kElements, 0.0)));
  auto kernel = MakeKernel(TestNodeBuilder("gd", "ApplyGradientDescent", 3)
                               .Attr("T", DT_FLOAT)
                               .Attr("use_locking", true)
                               .Build());
  // var -= 1 * -1 on each call.
  const std::vector<Tensor> inputs = {
      Tensor(), Tensor::Scalar<float>(1.0f),
      FloatTensor(DT_FLOAT, {kElements}, std::vector<double>(kElements, -1))};
  REQUIRE_OK(
      Hammer(kernel.get(), inputs, {var.ref(), TensorRef(), TensorRef()}));
  CheckNoneLost(var.tensor);
}

TEST_CASE(
    "ResourceApplyGradientDescent with use_locking loses no "
    "concurrent update",
    "[training]") {
  const Tensor handle = MakeVariable(
      "train_locked_gd",
      FloatTensor(DT_DOUBLE, {kElements}, std::vector<double>(kElements, 0)));
  auto kernel =
      MakeKernel(TestNodeBuilder("gd", "ResourceApplyGradientDescent", 3)
                     .Attr("T", DT_DOUBLE)
                     .Attr("use_locking", true)
                     .Build());
  const std::vector<Tensor> inputs = {
      handle, Tensor::Scalar<double>(1.0),
      FloatTensor(DT_DOUBLE, {kElements}, std::vector<double>(kElements, -1))};
  REQUIRE_OK(Hammer(kernel.get(), inputs, {}));
  CheckNoneLost(ReadVariable("train_locked_gd"));
}

TEST_CASE(
    "ResourceSparseApplyKerasMomentum with use_locking loses no "
    "concurrent update of duplicate rows",
    "[training]") {
  // With momentum 0 the update is var += -lr * grad: here +1 per index.
  constexpr int64_t kRows = 64;
  constexpr int64_t kWidth = kElements / kRows;
  const Tensor var = MakeVariable(
      "train_locked_var", FloatTensor(DT_FLOAT, {kRows, kWidth},
                                      std::vector<double>(kElements, 0)));
  const Tensor accum = MakeVariable(
      "train_locked_accum", FloatTensor(DT_FLOAT, {kRows, kWidth},
                                        std::vector<double>(kElements, 0)));
  std::vector<int64_t> idx;
  for (int64_t r = 0; r < kRows; ++r) idx.push_back(r);
  auto kernel =
      MakeKernel(TestNodeBuilder("mom", "ResourceSparseApplyKerasMomentum", 6)
                     .Attr("T", DT_FLOAT)
                     .Attr("Tindices", DT_INT64)
                     .Attr("use_locking", true)
                     .Build());
  const std::vector<Tensor> inputs = {
      var,
      accum,
      Tensor::Scalar<float>(1.0f),
      FloatTensor(DT_FLOAT, {kRows, kWidth},
                  std::vector<double>(kElements, -1)),
      Tensor::FromVector<int64_t>(idx),
      Tensor::Scalar<float>(0.0f)};
  REQUIRE_OK(Hammer(kernel.get(), inputs, {}));
  CheckNoneLost(ReadVariable("train_locked_var"));
}

TEST_CASE(
    "Updates locking two variables in opposite input orders do not "
    "deadlock",
    "[training]") {
  RefVariable a(FloatTensor(DT_FLOAT, {256}, std::vector<double>(256, 0)));
  RefVariable b(FloatTensor(DT_FLOAT, {256}, std::vector<double>(256, 0)));
  auto kernel = MakeKernel(TestNodeBuilder("mom", "ApplyMomentum", 5)
                               .Attr("T", DT_FLOAT)
                               .Attr("use_locking", true)
                               .Build());
  const std::vector<Tensor> inputs = {
      Tensor(), Tensor(), Tensor::Scalar<float>(0.01f),
      FloatTensor(DT_FLOAT, {256}, std::vector<double>(256, 1)),
      Tensor::Scalar<float>(0.5f)};
  absl::Status other_status;
  std::thread other([&] {
    other_status = Hammer(kernel.get(), inputs, {b.ref(), a.ref(), {}, {}, {}});
  });
  const absl::Status status =
      Hammer(kernel.get(), inputs, {a.ref(), b.ref(), {}, {}, {}});
  other.join();
  REQUIRE_OK(status);
  REQUIRE_OK(other_status);
  // Both variables moved (each was var in some calls).
  CHECK(Doubles(a.tensor)[0] != 0);
  CHECK(Doubles(b.tensor)[0] != 0);
}

}  // namespace
}  // namespace dfx

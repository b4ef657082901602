// The mutex family (graph/ops/mutex_ops.cc, kernels/data_flow/mutex*.cc,
// kernels/array/small_kernels.cc): signatures equal TensorFlow 2.21's byte
// for byte, and what the golden cases cannot show of tf.CriticalSection's
// mutex: a MutexLock of a held mutex holds no thread and goes on when the
// holder's lock tensor is dropped (as the executor drops it after its last
// consumer or at the end of the step), in arrival order; a step cancelled
// while it waits ends with Cancelled and the mutex goes on to the next;
// ConsumeMutexLock refuses a lock another tensor still shares. Shape
// functions name the node in their errors.
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "runtime/cancellation.h"
#include "runtime/variant.h"
#include "tests/kernels/async_kernel_test_util.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using absl::StatusCode;
using testing::Call;
using testing::RunKernel;
using testing::RunNow;
using testing::Start;
using testing::StatusIs;
using testing::TestNodeBuilder;

TEST_CASE(
    "Every mutex family op has TensorFlow 2.21's signature and CPU "
    "types",
    "[mutex]") {
  testing::CheckSignaturesWithTensorFlow("mutex", 8);
}

// A handle of the mutex `name`, shared by every call of one test.
Tensor Handle(const std::string& name) {
  return RunNow(TestNodeBuilder("m", "MutexV2", 0)
                    .Attr("shared_name", name.c_str())
                    .Build(),
                {})[0];
}

NodeDef LockNode() { return TestNodeBuilder("lock", "MutexLock", 1).Build(); }

// Drops the lock a finished MutexLock call holds (its only tensor).
void Drop(Call* call) { call->ctx->mutable_outputs()->clear(); }

TEST_CASE(
    "A MutexLock of a held mutex waits without a thread until the "
    "holder's lock is dropped",
    "[mutex]") {
  const Tensor m = Handle("contended");
  std::unique_ptr<Call> a = Start(LockNode(), {m});
  REQUIRE(a->finished());
  REQUIRE_OK(a->status());
  REQUIRE(a->output(0).dtype() == DT_VARIANT);

  // Two more steps ask for it: both wait, and get it in arrival order.
  std::unique_ptr<Call> b = Start(LockNode(), {m});
  std::unique_ptr<Call> c = Start(LockNode(), {m});
  CHECK_FALSE(b->finished());
  CHECK_FALSE(c->finished());

  Drop(a.get());
  b->done.WaitForNotification();
  REQUIRE_OK(b->status());
  CHECK_FALSE(c->finished());

  // Ending b's step releases the mutex to c.
  b.reset();
  c->done.WaitForNotification();
  REQUIRE_OK(c->status());

  // Once c's lock is gone the mutex is free: a new lock at once.
  c.reset();
  std::unique_ptr<Call> d = Start(LockNode(), {m});
  CHECK(d->finished());
  CHECK(d->status().ok());
}

TEST_CASE(
    "A step cancelled while it waits for the mutex ends with "
    "Cancelled and the next step still gets it",
    "[mutex]") {
  const Tensor m = Handle("cancelled");
  std::unique_ptr<Call> holder = Start(LockNode(), {m});
  REQUIRE(holder->finished());
  REQUIRE_OK(holder->status());

  CancellationManager cm;
  std::unique_ptr<Call> cancelled = Start(LockNode(), {m}, &cm);
  std::unique_ptr<Call> next = Start(LockNode(), {m});
  REQUIRE_FALSE(cancelled->finished());
  cm.StartCancel();
  REQUIRE(cancelled->finished());
  CHECK_THAT(cancelled->status(),
             StatusIs(StatusCode::kCancelled, "Lock acquisition"));
  CHECK_FALSE(next->finished());

  Drop(holder.get());
  next->done.WaitForNotification();
  CHECK(next->status().ok());

  // A step already cancelled waits for nothing.
  CancellationManager done_cm;
  done_cm.StartCancel();
  std::unique_ptr<Call> late = Start(LockNode(), {m}, &done_cm);
  CHECK(late->finished());
  CHECK_THAT(late->status(), StatusIs(StatusCode::kCancelled));
}

TEST_CASE("ConsumeMutexLock accepts a lock held by one tensor only",
          "[mutex]") {
  const Tensor m = Handle("consumed");
  std::unique_ptr<Call> a = Start(LockNode(), {m});
  REQUIRE(a->finished());
  REQUIRE_OK(a->status());
  const NodeDef consume =
      TestNodeBuilder("consume", "ConsumeMutexLock", 1).Build();
  CHECK(RunKernel(consume, {a->output(0)}).status().ok());

  // A second tensor sharing the lock would outlive the critical section.
  Tensor copy(DT_VARIANT, TensorShape());
  copy.scalar<Variant>() = a->output(0).scalar<Variant>();
  CHECK_THAT(RunKernel(consume, {a->output(0)}).status(),
             StatusIs(StatusCode::kInvalidArgument,
                      "Expected use count of lock to be 1, but saw: 2"));

  CHECK_THAT(RunKernel(consume, {Tensor(DT_VARIANT, TensorShape())}).status(),
             StatusIs(StatusCode::kInvalidArgument,
                      "Expected input to contain a SharedLockReleaser"));
  CHECK_THAT(
      RunKernel(consume, {Tensor(DT_VARIANT, TensorShape({2}))}).status(),
      StatusIs(StatusCode::kInvalidArgument, "Expected input to be a scalar"));
}

TEST_CASE("MutexLock refuses a handle of another resource type", "[mutex]") {
  Tensor h(DT_RESOURCE, TensorShape());
  h.scalar<ResourceHandle>().set_name("v");
  h.scalar<ResourceHandle>().set_maybe_type_name("Var");
  std::unique_ptr<Call> c = Start(LockNode(), {h});
  REQUIRE(c->finished());
  CHECK_THAT(c->status(),
             StatusIs(StatusCode::kInvalidArgument, "using the wrong type"));
}

// The op's shape function on `node` (defaults added) and `inputs`; the
// first output.
absl::StatusOr<PartialShape> Infer(
    const NodeDef& node_in, std::vector<PartialShape> inputs,
    std::vector<const TensorProto*> consts = {}) {
  const OpRegistrationData* op = OpRegistry::Global()->LookUp(node_in.op());
  if (op == nullptr) return absl::NotFoundError(node_in.op());
  NodeDef node = node_in;
  AddDefaultAttrs(op->op_def, &node);
  consts.resize(inputs.size(), nullptr);
  InferenceContext c(node, op->op_def, std::move(inputs), consts,
                     op->op_def.output_arg_size());
  absl::Status s = op->shape_fn(&c);
  if (!s.ok()) return s;
  if (c.num_outputs() == 0) return PartialShape::Known({});
  return c.output(0);
}

std::string Str(const absl::StatusOr<PartialShape>& s) {
  return s.ok() ? s->DebugString() : s.status().ToString();
}

TEST_CASE(
    "Shape functions of DecodePaddedRaw, IsotonicRegression and "
    "ParallelConcat",
    "[mutex]") {
  const NodeDef decode = TestNodeBuilder("dec", "DecodePaddedRaw", 2)
                             .Attr("out_type", DT_INT32)
                             .Build();
  TensorProto eight;
  eight.set_dtype(DT_INT32);
  eight.add_int_val(8);
  CHECK(Str(Infer(decode, {PartialShape::Known({3, 2}), PartialShape::Scalar()},
                  {nullptr, &eight})) ==
        PartialShape::Known({3, 2, 2}).DebugString());
  CHECK(
      Str(Infer(decode, {PartialShape::Known({3}), PartialShape::Scalar()})) ==
      PartialShape::Known({3, -1}).DebugString());
  TensorProto six = eight;
  six.set_int_val(0, 6);
  CHECK_THAT(Infer(decode, {PartialShape::Known({3}), PartialShape::Scalar()},
                   {nullptr, &six})
                 .status(),
             StatusIs(StatusCode::kInvalidArgument, "dec"));
  CHECK_THAT(Infer(decode, {PartialShape::Known({3}), PartialShape::Known({2})})
                 .status(),
             StatusIs(StatusCode::kInvalidArgument));

  const NodeDef iso = TestNodeBuilder("iso", "IsotonicRegression", 1)
                          .Attr("T", DT_FLOAT)
                          .Build();
  CHECK(Str(Infer(iso, {PartialShape::Known({2, 5})})) ==
        PartialShape::Known({2, 5}).DebugString());

  TensorShapeProto shape;
  shape.add_dim()->set_size(2);
  shape.add_dim()->set_size(3);
  const NodeDef pc = TestNodeBuilder("pc", "ParallelConcat", 2)
                         .Attr("T", DT_FLOAT)
                         .Attr("N", 2)
                         .Attr("shape", shape)
                         .Build();
  CHECK(Str(Infer(
            pc, {PartialShape::Known({1, 3}), PartialShape::Known({1, 3})})) ==
        PartialShape::Known({2, 3}).DebugString());
  CHECK_THAT(
      Infer(pc, {PartialShape::Known({2, 3}), PartialShape::Known({1, 3})})
          .status(),
      StatusIs(StatusCode::kInvalidArgument,
               "Size of first dimension must be 1"));
  CHECK_THAT(
      Infer(pc, {PartialShape::Known({1, 4}), PartialShape::Known({1, 3})})
          .status(),
      StatusIs(StatusCode::kInvalidArgument, "pc"));
  // dfx may know less of a shape than TensorFlow did: unknown passes.
  CHECK(
      Str(Infer(pc, {PartialShape::Known({1, -1}), PartialShape::Unknown()})) ==
      PartialShape::Known({2, 3}).DebugString());
}

TEST_CASE(
    "DecodePaddedRaw pads short strings with zeros in either byte "
    "order",
    "[mutex]") {
  // TensorFlow reads past a short string's end when it swaps bytes; dfx
  // pads it, as it does for little-endian data.
  const NodeDef big = TestNodeBuilder("dec", "DecodePaddedRaw", 2)
                          .Attr("out_type", DT_UINT16)
                          .Attr("little_endian", false)
                          .Build();
  Tensor in(DT_STRING, TensorShape({2}));
  in.data<std::string>()[0] = std::string("\x01\x02\x03", 3);
  in.data<std::string>()[1] = "";
  auto out = RunKernel(big, {in, Tensor::Scalar<int32_t>(4)});
  REQUIRE_OK(out.status());
  const uint16_t* v = (*out)[0].data<uint16_t>();
  CHECK(v[0] == 0x0102);
  CHECK(v[1] == 0x0300);
  CHECK(v[2] == 0);
  CHECK(v[3] == 0);
}

TEST_CASE(
    "StochasticCastToInt saturates past int32 where TensorFlow's "
    "conversion is undefined",
    "[mutex]") {
  // TensorFlow's x86 build gives INT_MIN for these (golden cases leave
  // them out).
  const NodeDef cast = TestNodeBuilder("cast", "StochasticCastToInt", 4)
                           .Attr("Tin", DT_FLOAT)
                           .Attr("Tout", DT_INT32)
                           .Build();
  const Tensor x = Tensor::FromVector<float>(
      {3e9f, 2147483648.0f, -3e9f, std::numeric_limits<float>::infinity()});
  auto out = RunKernel(
      cast, {x, Tensor::FromVector<uint64_t>({1}),
             Tensor::FromVector<uint64_t>({2, 0}), Tensor::Scalar<int32_t>(1)});
  REQUIRE_OK(out.status());
  const int32_t* y = (*out)[0].data<int32_t>();
  CHECK(y[0] == std::numeric_limits<int32_t>::max());
  CHECK(y[1] == std::numeric_limits<int32_t>::max());
  CHECK(y[2] == std::numeric_limits<int32_t>::min());
  CHECK(y[3] == std::numeric_limits<int32_t>::max());

  const NodeDef half = TestNodeBuilder("cast", "StochasticCastToInt", 4)
                           .Attr("Tin", DT_HALF)
                           .Attr("Tout", DT_INT16)
                           .Build();
  Tensor h(DT_HALF, TensorShape({1}));
  h.data<Eigen::half>()[0] = Eigen::half(40000.0f);
  out = RunKernel(
      half, {h, Tensor::FromVector<uint64_t>({1}),
             Tensor::FromVector<uint64_t>({2}), Tensor::Scalar<int32_t>(3)});
  REQUIRE_OK(out.status());
  CHECK((*out)[0].data<int16_t>()[0] == 32767);
}

TEST_CASE(
    "StochasticCastToInt's shape function checks key, counter and "
    "alg",
    "[mutex]") {
  const NodeDef cast = TestNodeBuilder("sc", "StochasticCastToInt", 4)
                           .Attr("Tin", DT_FLOAT)
                           .Attr("Tout", DT_INT8)
                           .Build();
  CHECK(Str(Infer(cast, {PartialShape::Known({2, 3}), PartialShape::Known({1}),
                         PartialShape::Known({2}), PartialShape::Scalar()})) ==
        PartialShape::Known({2, 3}).DebugString());
  CHECK_THAT(Infer(cast, {PartialShape::Known({2}), PartialShape::Known({2}),
                          PartialShape::Known({2}), PartialShape::Scalar()})
                 .status(),
             StatusIs(StatusCode::kInvalidArgument, "sc"));
  CHECK_THAT(Infer(cast, {PartialShape::Known({2}), PartialShape::Known({1}),
                          PartialShape::Known({2}), PartialShape::Known({1})})
                 .status(),
             StatusIs(StatusCode::kInvalidArgument));
}

}  // namespace
}  // namespace dfx

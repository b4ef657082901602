// Kernels of TF1 stacks and the TensorArrayV3 family (kernels/data_flow/),
// run one after another in one step's container, as an executor runs them,
// and the shape functions of their ops (graph/ops/data_flow_ops.cc).
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "kernels/kernels.h"
#include "runtime/op_kernel.h"
#include "runtime/resource_mgr.h"
#include "runtime/tensor.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/kernels/shape_fn_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using absl::StatusCode;
using testing::InferShapes;
using testing::StatusIs;
using testing::TestCpuDevice;
using testing::TestNodeBuilder;

Tensor Floats(std::vector<float> v, TensorShape shape) {
  return Tensor::FromVector<float>(v, shape);
}
Tensor Floats(std::vector<float> v) {
  const int64_t n = static_cast<int64_t>(v.size());
  return Floats(std::move(v), TensorShape({n}));
}
Tensor Int32s(std::vector<int32_t> v) {
  return Tensor::FromVector<int32_t>(v);
}
Tensor Int64s(std::vector<int64_t> v) {
  return Tensor::FromVector<int64_t>(v);
}
Tensor I32(int32_t v) { return Tensor::Scalar<int32_t>(v); }
Tensor Flow() { return Tensor::Scalar<float>(0.0f); }

std::vector<float> Values(const Tensor& t) {
  return std::vector<float>(t.data<float>(), t.data<float>() + t.NumElements());
}

TensorShapeProto ShapeProto(std::vector<int64_t> dims) {
  TensorShapeProto p;
  for (int64_t d : dims) p.add_dim()->set_size(d);
  return p;
}

struct ArrayOptions {
  DataType dtype = DT_FLOAT;
  bool dynamic_size = false;
  bool clear_after_read = true;
  bool identical_element_shapes = false;
  std::vector<int64_t> element_shape;  // with known_shape
  bool known_shape = false;
};

// One step: kernels run one after another with the step's container, as an
// executor runs them. The container is emptied when the Step goes away.
class Step {
 public:
  Step() : container_(next_id_++, TestCpuDevice()->resource_manager()) {}

  absl::StatusOr<std::vector<Tensor>> Run(const NodeDef& node_in,
                                          const std::vector<Tensor>& inputs,
                                          bool with_container = true) {
    const OpRegistrationData* op = OpRegistry::Global()->LookUp(node_in.op());
    if (op == nullptr) return absl::NotFoundError(node_in.op());
    NodeDef node = node_in;
    AddDefaultAttrs(op->op_def, &node);
    absl::StatusOr<std::unique_ptr<OpKernel>> kernel =
        StandardKernelRegistry()->CreateKernel(node, op->op_def,
                                               TestCpuDevice());
    if (!kernel.ok()) return kernel.status();
    OpKernelContext::Params params;
    params.step_id = 1;
    params.op_kernel = kernel->get();
    params.device = TestCpuDevice();
    params.inputs = inputs;
    params.step_container = with_container ? &container_ : nullptr;
    OpKernelContext ctx(&params);
    (*kernel)->Compute(&ctx);
    if (!ctx.status().ok()) return ctx.status();
    return std::vector<Tensor>(ctx.mutable_outputs()->begin(),
                               ctx.mutable_outputs()->end());
  }

  // TensorArrayV3 of `size`: its handle.
  Tensor NewArray(int32_t size, const ArrayOptions& o = {}) {
    TestNodeBuilder b("ta", "TensorArrayV3", 1);
    b.Attr("dtype", o.dtype)
        .Attr("dynamic_size", o.dynamic_size)
        .Attr("clear_after_read", o.clear_after_read)
        .Attr("identical_element_shapes", o.identical_element_shapes);
    if (o.known_shape) b.Attr("element_shape", ShapeProto(o.element_shape));
    auto out = Run(b.Build(), {I32(size)});
    REQUIRE_OK(out);
    REQUIRE(out->size() == 2);
    REQUIRE(out->at(0).dtype() == DT_RESOURCE);
    REQUIRE(out->at(1).dtype() == DT_FLOAT);
    return out->at(0);
  }

  absl::Status Write(const Tensor& h, int32_t index, const Tensor& value) {
    auto out = Run(TestNodeBuilder("w", "TensorArrayWriteV3", 4)
                       .Attr("T", value.dtype())
                       .Build(),
                   {h, I32(index), value, Flow()});
    return out.status();
  }
  absl::StatusOr<Tensor> Read(const Tensor& h, int32_t index,
                              DataType dtype = DT_FLOAT) {
    auto out = Run(
        TestNodeBuilder("r", "TensorArrayReadV3", 3).Attr("dtype", dtype).Build(),
        {h, I32(index), Flow()});
    if (!out.ok()) return out.status();
    return out->at(0);
  }
  absl::StatusOr<int32_t> Size(const Tensor& h) {
    auto out =
        Run(TestNodeBuilder("s", "TensorArraySizeV3", 2).Build(), {h, Flow()});
    if (!out.ok()) return out.status();
    return out->at(0).scalar<int32_t>();
  }
  absl::StatusOr<Tensor> Gather(const Tensor& h, std::vector<int32_t> indices,
                                const TensorShapeProto* shape = nullptr,
                                DataType dtype = DT_FLOAT) {
    TestNodeBuilder b("g", "TensorArrayGatherV3", 3);
    b.Attr("dtype", dtype);
    if (shape != nullptr) b.Attr("element_shape", *shape);
    auto out = Run(b.Build(), {h, Int32s(indices), Flow()});
    if (!out.ok()) return out.status();
    return out->at(0);
  }
  absl::Status Scatter(const Tensor& h, std::vector<int32_t> indices,
                       const Tensor& value) {
    return Run(TestNodeBuilder("sc", "TensorArrayScatterV3", 4)
                   .Attr("T", value.dtype())
                   .Build(),
               {h, Int32s(indices), value, Flow()})
        .status();
  }
  absl::StatusOr<std::vector<Tensor>> Concat(
      const Tensor& h, const TensorShapeProto* except0 = nullptr,
      DataType dtype = DT_FLOAT) {
    TestNodeBuilder b("c", "TensorArrayConcatV3", 2);
    b.Attr("dtype", dtype);
    if (except0 != nullptr) b.Attr("element_shape_except0", *except0);
    return Run(b.Build(), {h, Flow()});
  }
  absl::Status Split(const Tensor& h, const Tensor& value,
                     std::vector<int64_t> lengths) {
    return Run(TestNodeBuilder("sp", "TensorArraySplitV3", 4)
                   .Attr("T", value.dtype())
                   .Build(),
               {h, value, Int64s(lengths), Flow()})
        .status();
  }
  absl::StatusOr<Tensor> Grad(const Tensor& h, const char* source) {
    auto out = Run(TestNodeBuilder("grad", "TensorArrayGradV3", 2)
                       .Attr("source", source)
                       .Build(),
                   {h, Flow()});
    if (!out.ok()) return out.status();
    return out->at(0);
  }
  absl::Status Close(const Tensor& h) {
    return Run(TestNodeBuilder("close", "TensorArrayCloseV3", 1).Build(), {h})
        .status();
  }

  // Stacks.
  Tensor NewStack(int32_t max_size, DataType dtype = DT_FLOAT) {
    auto out = Run(TestNodeBuilder("stack", "StackV2", 1)
                       .Attr("elem_type", dtype)
                       .Build(),
                   {I32(max_size)});
    REQUIRE_OK(out);
    return out->at(0);
  }
  absl::Status Push(const Tensor& h, const Tensor& value) {
    auto out = Run(TestNodeBuilder("push", "StackPushV2", 2)
                       .Attr("T", value.dtype())
                       .Build(),
                   {h, value});
    if (out.ok()) REQUIRE(out->at(0).SharesBufferWith(value));
    return out.status();
  }
  absl::StatusOr<Tensor> Pop(const Tensor& h, DataType dtype = DT_FLOAT) {
    auto out = Run(
        TestNodeBuilder("pop", "StackPopV2", 1).Attr("elem_type", dtype).Build(),
        {h});
    if (!out.ok()) return out.status();
    return out->at(0);
  }

 private:
  static std::atomic<int64_t> next_id_;
  ScopedStepContainer container_;
};
std::atomic<int64_t> Step::next_id_{1000};

// ---------------------------------------------------------------------------
// TensorArray: write, read, size

TEST_CASE("TensorArray: a written element reads back, and only once by default") {
  Step step;
  Tensor h = step.NewArray(3);
  Tensor value = Floats({1, 2});
  REQUIRE_OK(step.Write(h, 1, value));
  auto got = step.Read(h, 1);
  REQUIRE_OK(got);
  REQUIRE(Values(*got) == std::vector<float>{1, 2});
  REQUIRE(got->SharesBufferWith(value));  // no copy on the way through
  REQUIRE(*step.Size(h) == 3);
  REQUIRE_THAT(step.Read(h, 1).status(),
               StatusIs(StatusCode::kInvalidArgument,
                        "Could not read index 1 twice because it was cleared"));
}

TEST_CASE("TensorArray: clear_after_read false allows many reads, but no write after one") {
  Step step;
  ArrayOptions o;
  o.clear_after_read = false;
  Tensor h = step.NewArray(2, o);
  REQUIRE_OK(step.Write(h, 0, Floats({5})));
  REQUIRE(Values(*step.Read(h, 0)) == std::vector<float>{5});
  REQUIRE(Values(*step.Read(h, 0)) == std::vector<float>{5});
  REQUIRE_THAT(step.Write(h, 0, Floats({6})),
               StatusIs(StatusCode::kInvalidArgument, "already been read"));
}

TEST_CASE("TensorArray: writing an index twice or outside a fixed size fails") {
  Step step;
  Tensor h = step.NewArray(3);
  REQUIRE_OK(step.Write(h, 0, Floats({1})));
  REQUIRE_THAT(step.Write(h, 0, Floats({1})),
               StatusIs(StatusCode::kInvalidArgument,
                        "index 0 because it has already been written to"));
  REQUIRE_THAT(step.Write(h, 3, Floats({1})),
               StatusIs(StatusCode::kInvalidArgument,
                        "Tried to write to index 3 but array is not "
                        "resizeable and size is: 3"));
  REQUIRE_THAT(step.Write(h, -1, Floats({1})),
               StatusIs(StatusCode::kInvalidArgument, "index -1"));
  REQUIRE_THAT(step.Read(h, 3).status(),
               StatusIs(StatusCode::kInvalidArgument,
                        "Tried to read from index 3 but array size is: 3"));
  REQUIRE_THAT(step.Read(h, -2).status(),
               StatusIs(StatusCode::kInvalidArgument, "index -2"));
}

TEST_CASE("TensorArray: errors name the array") {
  Step step;
  auto out = step.Run(TestNodeBuilder("ta", "TensorArrayV3", 1)
                          .Attr("dtype", DT_FLOAT)
                          .Attr("tensor_array_name", "my_array")
                          .Build(),
                      {I32(1)});
  REQUIRE_OK(out);
  Tensor h = out->at(0);
  REQUIRE_OK(step.Write(h, 0, Floats({1})));
  REQUIRE_THAT(step.Write(h, 0, Floats({1})),
               StatusIs(StatusCode::kInvalidArgument, "TensorArray my_array_"));
}

TEST_CASE("TensorArray: each run of one TensorArrayV3 node makes a new array") {
  // In a loop the node runs once per iteration; each gets its own array.
  Step step;
  Tensor a = step.NewArray(1);
  Tensor b = step.NewArray(1);
  REQUIRE(a.scalar<ResourceHandle>().name() !=
          b.scalar<ResourceHandle>().name());
  REQUIRE_OK(step.Write(a, 0, Floats({1})));
  REQUIRE_OK(step.Write(b, 0, Floats({2})));
  REQUIRE(Values(*step.Read(a, 0)) == std::vector<float>{1});
  REQUIRE(Values(*step.Read(b, 0)) == std::vector<float>{2});
}

TEST_CASE("TensorArray: dtype mismatches and bad index shapes fail") {
  Step step;
  Tensor h = step.NewArray(2);
  REQUIRE_THAT(step.Write(h, 0, Int32s({1})),
               StatusIs(StatusCode::kInvalidArgument,
                        "TensorArray dtype is float but Op is trying to write "
                        "dtype int32"));
  REQUIRE_OK(step.Write(h, 0, Floats({1})));
  REQUIRE_THAT(step.Read(h, 0, DT_INT32).status(),
               StatusIs(StatusCode::kInvalidArgument,
                        "TensorArray dtype is float but Op requested dtype "
                        "int32"));
  auto out = step.Run(
      TestNodeBuilder("r", "TensorArrayReadV3", 3).Attr("dtype", DT_FLOAT).Build(),
      {h, Int32s({0, 1}), Flow()});
  REQUIRE_THAT(out.status(), StatusIs(StatusCode::kInvalidArgument,
                                      "TensorArray index must be scalar"));
}

TEST_CASE("TensorArray: the size must be a non-negative scalar within dfx's limit") {
  Step step;
  NodeDef ta = TestNodeBuilder("ta", "TensorArrayV3", 1)
                   .Attr("dtype", DT_FLOAT)
                   .Build();
  REQUIRE_THAT(step.Run(ta, {I32(-1)}).status(),
               StatusIs(StatusCode::kInvalidArgument, "Size should be >= 0"));
  REQUIRE_THAT(step.Run(ta, {Int32s({2, 3})}).status(),
               StatusIs(StatusCode::kInvalidArgument,
                        "TensorArray size must be scalar"));
  REQUIRE_THAT(step.Run(ta, {I32((1 << 24) + 1)}).status(),
               StatusIs(StatusCode::kResourceExhausted, "16777216"));
  // A dynamic array cannot grow past the limit either.
  ArrayOptions o;
  o.dynamic_size = true;
  Tensor h = step.NewArray(1, o);
  REQUIRE_THAT(step.Write(h, 1 << 24, Floats({1})),
               StatusIs(StatusCode::kResourceExhausted, "cannot grow"));
  REQUIRE_OK(step.Write(h, 9, Floats({1})));
  REQUIRE(*step.Size(h) == 10);
}

TEST_CASE("TensorArray: an unwritten index reads as zeros only when the element shape is known") {
  Step step;
  Tensor unknown = step.NewArray(2);
  REQUIRE_THAT(step.Read(unknown, 1).status(),
               StatusIs(StatusCode::kInvalidArgument,
                        "Could not read from TensorArray index 1.  "
                        "Furthermore, the element shape is not fully "
                        "defined: <unknown>"));
  ArrayOptions o;
  o.known_shape = true;
  o.element_shape = {2, 2};
  Tensor known = step.NewArray(2, o);
  auto zeros = step.Read(known, 1);
  REQUIRE_OK(zeros);
  REQUIRE(zeros->shape() == TensorShape({2, 2}));
  REQUIRE(Values(*zeros) == std::vector<float>{0, 0, 0, 0});
  // Partly known is not enough.
  o.element_shape = {-1, 2};
  Tensor partial = step.NewArray(2, o);
  REQUIRE_THAT(step.Read(partial, 0).status(),
               StatusIs(StatusCode::kInvalidArgument, "[?,2]"));
}

TEST_CASE("TensorArray: writes must fit the element shape, and identical_element_shapes fixes it") {
  Step step;
  ArrayOptions o;
  o.known_shape = true;
  o.element_shape = {-1, 2};
  Tensor h = step.NewArray(3, o);
  REQUIRE_OK(step.Write(h, 0, Floats({1, 2, 3, 4, 5, 6}, TensorShape({3, 2}))));
  REQUIRE_THAT(step.Write(h, 1, Floats({1, 2, 3}, TensorShape({1, 3}))),
               StatusIs(StatusCode::kInvalidArgument,
                        "the value shape is [1,3] which is incompatible with "
                        "the TensorArray's inferred element shape: [?,2]"));

  ArrayOptions same;
  same.identical_element_shapes = true;
  Tensor g = step.NewArray(3, same);
  REQUIRE_OK(step.Write(g, 0, Floats({1, 2})));
  REQUIRE_THAT(step.Write(g, 1, Floats({1, 2, 3})),
               StatusIs(StatusCode::kInvalidArgument,
                        "inferred element shape: [2]"));
  // The first write made the shape known: an unwritten index reads as zeros.
  auto zeros = step.Read(g, 2);
  REQUIRE_OK(zeros);
  REQUIRE(Values(*zeros) == std::vector<float>{0, 0});
}

TEST_CASE("TensorArray: a dynamic_size array grows when written past its end") {
  Step step;
  ArrayOptions o;
  o.dynamic_size = true;
  Tensor h = step.NewArray(0, o);
  REQUIRE(*step.Size(h) == 0);
  REQUIRE_OK(step.Write(h, 4, Floats({7})));
  REQUIRE(*step.Size(h) == 5);
  REQUIRE(Values(*step.Read(h, 4)) == std::vector<float>{7});
  REQUIRE_THAT(step.Read(h, 5).status(),
               StatusIs(StatusCode::kInvalidArgument,
                        "Tried to read from index 5 but array size is: 5"));
}

// ---------------------------------------------------------------------------
// Gather, scatter, concat, split

TEST_CASE("TensorArray: scatter then gather moves rows by index") {
  Step step;
  Tensor h = step.NewArray(3);
  REQUIRE_OK(step.Scatter(h, {2, 0}, Floats({1, 2, 3, 4}, TensorShape({2, 2}))));
  auto got = step.Gather(h, {0, 2});
  REQUIRE_OK(got);
  REQUIRE(got->shape() == TensorShape({2, 2}));
  REQUIRE(Values(*got) == std::vector<float>{3, 4, 1, 2});
}

TEST_CASE("TensorArray: gather fills unwritten indices with zeros when the shape is known") {
  Step step;
  ArrayOptions o;
  o.known_shape = true;
  o.element_shape = {2};
  Tensor h = step.NewArray(3, o);
  REQUIRE_OK(step.Write(h, 0, Floats({1, 2})));
  auto got = step.Gather(h, {1, 0, 2});
  REQUIRE_OK(got);
  REQUIRE(Values(*got) == std::vector<float>{0, 0, 1, 2, 0, 0});
}

TEST_CASE("TensorArray: gather checks shapes, indices and the element_shape attr") {
  Step step;
  Tensor h = step.NewArray(3);
  REQUIRE_OK(step.Write(h, 0, Floats({1, 2})));
  REQUIRE_OK(step.Write(h, 1, Floats({1, 2, 3})));
  REQUIRE_THAT(step.Gather(h, {0, 1}).status(),
               StatusIs(StatusCode::kInvalidArgument,
                        "inconsistent shapes.  Index 0 has shape: [2] but "
                        "index 1 has shape: [3]"));

  Tensor g = step.NewArray(3);
  REQUIRE_OK(step.Write(g, 0, Floats({1, 2})));
  REQUIRE_THAT(step.Gather(g, {5}).status(),
               StatusIs(StatusCode::kInvalidArgument,
                        "Tried to read from index 5"));
  auto matrix = step.Run(TestNodeBuilder("g", "TensorArrayGatherV3", 3)
                             .Attr("dtype", DT_FLOAT)
                             .Build(),
                         {g, Tensor::FromVector<int32_t>({0}, TensorShape({1, 1})),
                          Flow()});
  REQUIRE_THAT(matrix.status(),
               StatusIs(StatusCode::kInvalidArgument,
                        "Expected indices to be a vector"));
  TensorShapeProto three = ShapeProto({3});
  REQUIRE_THAT(step.Gather(g, {0}, &three).status(),
               StatusIs(StatusCode::kInvalidArgument,
                        "which does not match the Tensor at index 0: [2]"));

  // The attr narrows the array's element shape; a conflicting one fails.
  ArrayOptions o;
  o.known_shape = true;
  o.element_shape = {2};
  Tensor k = step.NewArray(1, o);
  REQUIRE_THAT(step.Gather(k, {0}, &three).status(),
               StatusIs(StatusCode::kInvalidArgument,
                        "Incompatible shapes during merge: [2] vs. [3]"));
}

TEST_CASE("TensorArray: gathering nothing needs a fully known element_shape attr") {
  Step step;
  Tensor h = step.NewArray(0);
  REQUIRE_THAT(step.Gather(h, {}).status(),
               StatusIs(StatusCode::kUnimplemented,
                        "TensorArray has size zero, but element shape "
                        "<unknown> is not fully defined"));
  TensorShapeProto two = ShapeProto({2});
  auto got = step.Gather(h, {}, &two);
  REQUIRE_OK(got);
  REQUIRE(got->shape() == TensorShape({0, 2}));
}

TEST_CASE("TensorArray: scatter checks its indices against the value and the size") {
  Step step;
  Tensor h = step.NewArray(3);
  Tensor rows = Floats({1, 2, 3, 4}, TensorShape({2, 2}));
  REQUIRE_THAT(step.Scatter(h, {3, 0}, rows),
               StatusIs(StatusCode::kInvalidArgument,
                        "Max scatter index must be < array size (3 vs. 3)"));
  REQUIRE_THAT(step.Scatter(h, {1}, rows),
               StatusIs(StatusCode::kInvalidArgument,
                        "Expected len(indices) == values.shape[0], but saw: 1 "
                        "vs. 2"));
  REQUIRE_THAT(step.Scatter(h, {1}, Tensor::Scalar<float>(1)),
               StatusIs(StatusCode::kInvalidArgument,
                        "must be at least a vector"));
  REQUIRE_THAT(step.Scatter(h, {1, 1}, rows),
               StatusIs(StatusCode::kInvalidArgument,
                        "index 1 because it has already been written to"));
  ArrayOptions o;
  o.dynamic_size = true;
  Tensor d = step.NewArray(1, o);
  REQUIRE_OK(step.Scatter(d, {4, 1}, rows));
  REQUIRE(*step.Size(d) == 5);
  REQUIRE(Values(*step.Read(d, 4)) == std::vector<float>{1, 2});
}

TEST_CASE("TensorArray: split then concat returns the value and the lengths") {
  Step step;
  Tensor h = step.NewArray(3);
  REQUIRE_OK(step.Split(h, Floats({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12},
                                  TensorShape({6, 2})),
                        {1, 0, 5}));
  REQUIRE(step.Read(h, 1)->shape() == TensorShape({0, 2}));
  Tensor h2 = step.NewArray(3);
  REQUIRE_OK(step.Split(h2, Floats({1, 2, 3, 4, 5, 6}), {1, 2, 3}));
  auto got = step.Concat(h2);
  REQUIRE_OK(got);
  REQUIRE(Values(got->at(0)) == std::vector<float>{1, 2, 3, 4, 5, 6});
  REQUIRE(got->at(1).dtype() == DT_INT64);
  REQUIRE(std::vector<int64_t>(got->at(1).data<int64_t>(),
                               got->at(1).data<int64_t>() + 3) ==
          std::vector<int64_t>{1, 2, 3});
}

TEST_CASE("TensorArray: split checks the lengths and the array size") {
  Step step;
  Tensor h = step.NewArray(3);
  Tensor six = Floats({1, 2, 3, 4, 5, 6});
  REQUIRE_THAT(step.Split(h, six, {1, 2, 2}),
               StatusIs(StatusCode::kInvalidArgument,
                        "sum of lengths is 5 and value's shape is: [6]"));
  REQUIRE_THAT(step.Split(h, six, {-1, 4, 3}),
               StatusIs(StatusCode::kInvalidArgument, "lengths[0] = -1"));
  REQUIRE_THAT(step.Split(h, six, {int64_t{1} << 62, int64_t{1} << 62, 6}),
               StatusIs(StatusCode::kInvalidArgument, "sum of lengths"));
  REQUIRE_THAT(step.Split(h, Tensor::Scalar<float>(1), {1, 1, 1}),
               StatusIs(StatusCode::kInvalidArgument,
                        "Expected value to be at least a vector"));
  REQUIRE_THAT(step.Split(h, six, {3, 3}),
               StatusIs(StatusCode::kInvalidArgument,
                        "size of lengths (3 vs. 2)"));
  ArrayOptions o;
  o.dynamic_size = true;
  Tensor d = step.NewArray(1, o);
  REQUIRE_OK(step.Split(d, six, {2, 2, 2}));
  REQUIRE(*step.Size(d) == 3);
}

TEST_CASE("TensorArray: concat needs vectors of one trailing shape") {
  Step step;
  Tensor h = step.NewArray(2);
  REQUIRE_OK(step.Write(h, 0, Tensor::Scalar<float>(1)));
  REQUIRE_OK(step.Write(h, 1, Tensor::Scalar<float>(2)));
  REQUIRE_THAT(step.Concat(h).status(),
               StatusIs(StatusCode::kInvalidArgument,
                        "Concat saw a scalar shape at index 0"));
  Tensor g = step.NewArray(2);
  REQUIRE_OK(step.Write(g, 0, Floats({1, 2}, TensorShape({1, 2}))));
  REQUIRE_OK(step.Write(g, 1, Floats({1, 2, 3}, TensorShape({1, 3}))));
  REQUIRE_THAT(step.Concat(g).status(),
               StatusIs(StatusCode::kInvalidArgument,
                        "inconsistent shapes.  Index 0 has (excepting "
                        "dimension 0) shape: [2] but index 1"));
  Tensor e = step.NewArray(0);
  REQUIRE_THAT(step.Concat(e).status(),
               StatusIs(StatusCode::kUnimplemented, "element_shape_except0"));
  TensorShapeProto three = ShapeProto({3});
  auto empty = step.Concat(e, &three);
  REQUIRE_OK(empty);
  REQUIRE(empty->at(0).shape() == TensorShape({0, 3}));
  REQUIRE(empty->at(1).shape() == TensorShape({0}));
}

TEST_CASE("TensorArray: string elements gather and concatenate") {
  Step step;
  ArrayOptions o;
  o.dtype = DT_STRING;
  Tensor h = step.NewArray(2, o);
  Tensor a(DT_STRING, TensorShape({1}));
  a.data<std::string>()[0] = "alpha";
  Tensor b(DT_STRING, TensorShape({2}));
  b.data<std::string>()[0] = "beta";
  b.data<std::string>()[1] = "gamma";
  REQUIRE_OK(step.Write(h, 0, a));
  REQUIRE_OK(step.Write(h, 1, b));
  auto got = step.Concat(h, nullptr, DT_STRING);
  REQUIRE_OK(got);
  const Tensor& v = got->at(0);
  REQUIRE(v.NumElements() == 3);
  REQUIRE(v.data<std::string>()[0] == "alpha");
  REQUIRE(v.data<std::string>()[2] == "gamma");
}

// ---------------------------------------------------------------------------
// Gradient arrays

TEST_CASE("TensorArray gradient: sized like the forward array, writes to one index sum") {
  Step step;
  Tensor h = step.NewArray(3);
  REQUIRE_OK(step.Write(h, 0, Floats({1, 2})));
  auto g = step.Grad(h, "gradients");
  REQUIRE_OK(g);
  REQUIRE(*step.Size(*g) == 3);
  Tensor first = Floats({1, 2});
  REQUIRE_OK(step.Write(*g, 0, first));
  REQUIRE_OK(step.Write(*g, 0, Floats({10, 20})));
  REQUIRE_OK(step.Write(*g, 0, Floats({100, 200})));
  auto sum = step.Read(*g, 0);
  REQUIRE_OK(sum);
  REQUIRE(Values(*sum) == std::vector<float>{111, 222});
  // The sum went into a buffer of the array's own: the writer's is intact.
  REQUIRE(Values(first) == std::vector<float>{1, 2});
  // A summed array cannot have a gradient of its own.
  REQUIRE_THAT(step.Grad(*g, "again").status(),
               StatusIs(StatusCode::kInvalidArgument,
                        "Unable to create a gradients TensorArray"));
}

TEST_CASE("TensorArray gradient: sums integer and half gradients in their dtype") {
  Step step;
  ArrayOptions o;
  o.dtype = DT_INT32;
  Tensor h = step.NewArray(1, o);
  REQUIRE_OK(step.Write(h, 0, Int32s({1, 2})));
  auto g = step.Grad(h, "gradients");
  REQUIRE_OK(g);
  REQUIRE_OK(step.Write(*g, 0, Int32s({3, 4})));
  REQUIRE_OK(step.Write(*g, 0, Int32s({-10, 40})));
  auto sum = step.Read(*g, 0, DT_INT32);
  REQUIRE_OK(sum);
  REQUIRE(sum->data<int32_t>()[0] == -7);
  REQUIRE(sum->data<int32_t>()[1] == 44);

  o.dtype = DT_HALF;
  Tensor hh = step.NewArray(1, o);
  Tensor one(DT_HALF, TensorShape({1}));
  one.data<Eigen::half>()[0] = Eigen::half(1.5f);
  REQUIRE_OK(step.Write(hh, 0, one));
  auto gh = step.Grad(hh, "gradients");
  REQUIRE_OK(gh);
  REQUIRE_OK(step.Write(*gh, 0, one));
  REQUIRE_OK(step.Write(*gh, 0, one));
  auto hsum = step.Read(*gh, 0, DT_HALF);
  REQUIRE_OK(hsum);
  REQUIRE(static_cast<float>(hsum->data<Eigen::half>()[0]) == 3.0f);
}

TEST_CASE("TensorArray gradient: one array per source, shared by its gradient ops") {
  Step step;
  Tensor h = step.NewArray(2);
  REQUIRE_OK(step.Write(h, 0, Floats({1})));
  REQUIRE_OK(step.Write(h, 1, Floats({2})));
  auto a = step.Grad(h, "gradients");
  auto b = step.Grad(h, "gradients");
  auto other = step.Grad(h, "gradients_1");
  REQUIRE_OK(a);
  REQUIRE_OK(b);
  REQUIRE_OK(other);
  REQUIRE_OK(step.Write(*a, 1, Floats({3})));
  REQUIRE_OK(step.Write(*b, 1, Floats({4})));
  REQUIRE_OK(step.Write(*other, 1, Floats({100})));
  REQUIRE(Values(*step.Read(*a, 1)) == std::vector<float>{7});
  REQUIRE(Values(*step.Read(*other, 1)) == std::vector<float>{100});
}

TEST_CASE("TensorArray gradient: unwritten gradients read as zeros of the forward element's shape") {
  Step step;
  Tensor h = step.NewArray(3);
  REQUIRE_OK(step.Write(h, 0, Floats({1, 2, 3, 4, 5, 6}, TensorShape({2, 3}))));
  REQUIRE_OK(step.Write(h, 1, Floats({1, 2})));
  REQUIRE_OK(step.Read(h, 0));  // the forward read clears the value, not its shape
  auto g = step.Grad(h, "gradients");
  REQUIRE_OK(g);
  auto zeros = step.Read(*g, 0);
  REQUIRE_OK(zeros);
  REQUIRE(zeros->shape() == TensorShape({2, 3}));
  REQUIRE(Values(*zeros) == std::vector<float>(6, 0.0f));
  // A gradient of the wrong shape cannot be summed.
  REQUIRE_THAT(step.Write(*g, 1, Floats({1, 2, 3})),
               StatusIs(StatusCode::kInvalidArgument,
                        "Could not aggregate to TensorArray index 1 because "
                        "the existing shape is [2] but the new input shape "
                        "is [3]"));
  // Index 2 was never written forward and its shape is unknown.
  REQUIRE_THAT(step.Read(*g, 2).status(),
               StatusIs(StatusCode::kInvalidArgument,
                        "@gradients: Could not read from TensorArray index 2"));
}

TEST_CASE("TensorArray gradient: reads past the end give zeros when the shape is known") {
  Step step;
  ArrayOptions o;
  o.known_shape = true;
  o.element_shape = {2};
  Tensor h = step.NewArray(2, o);
  auto g = step.Grad(h, "gradients");
  REQUIRE_OK(g);
  auto zeros = step.Read(*g, 4);
  REQUIRE_OK(zeros);
  REQUIRE(Values(*zeros) == std::vector<float>{0, 0});
  REQUIRE(*step.Size(*g) == 5);
}

TEST_CASE("TensorArray gradient: freezes a dynamic forward array's size") {
  Step step;
  ArrayOptions o;
  o.dynamic_size = true;
  Tensor h = step.NewArray(2, o);
  REQUIRE_OK(step.Write(h, 0, Floats({1})));
  REQUIRE_OK(step.Grad(h, "gradients"));
  REQUIRE_THAT(step.Write(h, 3, Floats({1})),
               StatusIs(StatusCode::kInvalidArgument,
                        "Tried to write to index 3 but array is not "
                        "resizeable and size is: 2"));
}

TEST_CASE("TensorArray gradient: concat of a split array's gradient gives zeros by length") {
  Step step;
  Tensor h = step.NewArray(3);
  REQUIRE_OK(step.Split(h, Floats({1, 2, 3, 4, 5, 6}), {1, 2, 3}));
  auto g = step.Grad(h, "gradients");
  REQUIRE_OK(g);
  REQUIRE_OK(step.Write(*g, 1, Floats({7, 8})));
  auto got = step.Concat(*g);
  REQUIRE_OK(got);
  REQUIRE(Values(got->at(0)) == std::vector<float>{0, 7, 8, 0, 0, 0});
}

TEST_CASE("TensorArray gradient: concat of an array that was never split takes every index") {
  // TensorFlow aborts the process here (it takes the unset split size, -1).
  Step step;
  Tensor h = step.NewArray(2);
  REQUIRE_OK(step.Write(h, 0, Floats({1, 2})));
  REQUIRE_OK(step.Write(h, 1, Floats({3})));
  auto g = step.Grad(h, "gradients");
  REQUIRE_OK(g);
  REQUIRE_OK(step.Write(*g, 1, Floats({9})));
  auto got = step.Concat(*g);
  REQUIRE_OK(got);
  REQUIRE(Values(got->at(0)) == std::vector<float>{0, 0, 9});
}

TEST_CASE("TensorArrayGradWithShape prepends a shape to every element's") {
  Step step;
  Tensor h = step.NewArray(2);
  REQUIRE_OK(step.Write(h, 0, Floats({1, 2})));
  auto out = step.Run(TestNodeBuilder("gws", "TensorArrayGradWithShape", 3)
                          .Attr("source", "gradients")
                          .Build(),
                      {h, Flow(), Int32s({4})});
  REQUIRE_OK(out);
  auto zeros = step.Read(out->at(0), 0);
  REQUIRE_OK(zeros);
  REQUIRE(zeros->shape() == TensorShape({4, 2}));
  auto bad = step.Run(TestNodeBuilder("gws", "TensorArrayGradWithShape", 3)
                          .Attr("source", "other")
                          .Build(),
                      {h, Flow(), Int32s({-1})});
  REQUIRE_THAT(bad.status(), StatusIs(StatusCode::kInvalidArgument, ">= 0"));
}

// ---------------------------------------------------------------------------
// Close, step lifetime, handles

TEST_CASE("TensorArray: every use after close fails") {
  Step step;
  Tensor h = step.NewArray(2);
  REQUIRE_OK(step.Write(h, 0, Floats({1})));
  REQUIRE_OK(step.Close(h));
  REQUIRE_THAT(step.Size(h).status(),
               StatusIs(StatusCode::kInvalidArgument,
                        "has already been closed"));
  REQUIRE_THAT(step.Read(h, 0).status(),
               StatusIs(StatusCode::kInvalidArgument,
                        "has already been closed"));
  REQUIRE_THAT(step.Write(h, 1, Floats({1})),
               StatusIs(StatusCode::kInvalidArgument,
                        "has already been closed"));
  REQUIRE_THAT(step.Grad(h, "gradients").status(),
               StatusIs(StatusCode::kInvalidArgument,
                        "has already been closed"));
}

TEST_CASE("TensorArray and stack: they live in the step's container and go with the step") {
  ResourceMgr* rm = TestCpuDevice()->resource_manager();
  Tensor ta_handle, stack_handle;
  std::string container;
  {
    Step step;
    ta_handle = step.NewArray(1);
    stack_handle = step.NewStack(-1);
    container = ta_handle.scalar<ResourceHandle>().container();
    REQUIRE(container.rfind("__per_step_", 0) == 0);
    REQUIRE(ta_handle.scalar<ResourceHandle>().device() ==
            TestCpuDevice()->name());
    int in_step = 0;
    for (const ResourceMgr::Entry& e : rm->List()) {
      if (e.container == container) ++in_step;
    }
    REQUIRE(in_step == 2);
  }
  for (const ResourceMgr::Entry& e : rm->List()) {
    REQUIRE(e.container != container);
  }
  // A handle kept past its step finds nothing.
  Step later;
  REQUIRE_THAT(later.Size(ta_handle).status(),
               StatusIs(StatusCode::kNotFound));
  REQUIRE_THAT(later.Pop(stack_handle).status(),
               StatusIs(StatusCode::kNotFound));
}

TEST_CASE("TensorArray and stack: without a step container they fail cleanly") {
  Step step;
  auto ta = step.Run(
      TestNodeBuilder("ta", "TensorArrayV3", 1).Attr("dtype", DT_FLOAT).Build(),
      {I32(1)}, /*with_container=*/false);
  REQUIRE_THAT(ta.status(),
               StatusIs(StatusCode::kInternal, "no per-step container"));
  auto stack = step.Run(
      TestNodeBuilder("s", "StackV2", 1).Attr("elem_type", DT_FLOAT).Build(),
      {I32(1)}, /*with_container=*/false);
  REQUIRE_THAT(stack.status(),
               StatusIs(StatusCode::kInternal, "no per-step container"));
}

TEST_CASE("TensorArray: a handle of another device or type is refused") {
  Step step;
  Tensor h = step.NewArray(1);
  Tensor elsewhere(DT_RESOURCE, TensorShape());
  elsewhere.scalar<ResourceHandle>() = h.scalar<ResourceHandle>();
  elsewhere.scalar<ResourceHandle>().set_device(
      "/job:localhost/replica:0/task:0/device:CPU:7");
  REQUIRE_THAT(step.Size(elsewhere).status(),
               StatusIs(StatusCode::kInvalidArgument, "CPU:7"));
  Tensor stack = step.NewStack(-1);
  REQUIRE_THAT(step.Size(stack).status(),
               StatusIs(StatusCode::kNotFound));
}

// ---------------------------------------------------------------------------
// Stacks

TEST_CASE("Stack: pops in reverse push order, and fails when empty") {
  Step step;
  Tensor h = step.NewStack(-1);
  Tensor a = Floats({1, 2});
  Tensor b = Floats({3});
  REQUIRE_OK(step.Push(h, a));
  REQUIRE_OK(step.Push(h, b));
  auto first = step.Pop(h);
  REQUIRE_OK(first);
  REQUIRE(first->SharesBufferWith(b));
  REQUIRE(Values(*step.Pop(h)) == std::vector<float>{1, 2});
  REQUIRE_THAT(step.Pop(h).status(),
               StatusIs(StatusCode::kInvalidArgument,
                        "is empty when calling Pop()"));
}

TEST_CASE("Stack: max_size bounds the pushes, a negative one does not") {
  Step step;
  Tensor h = step.NewStack(1);
  REQUIRE_OK(step.Push(h, Floats({1})));
  REQUIRE_THAT(step.Push(h, Floats({2})),
               StatusIs(StatusCode::kInvalidArgument,
                        "overflowed its max_size (1)"));
  Tensor unbounded = step.NewStack(-1);
  for (int i = 0; i < 100; ++i) REQUIRE_OK(step.Push(unbounded, Floats({1})));
  auto vec = step.Run(
      TestNodeBuilder("s", "StackV2", 1).Attr("elem_type", DT_FLOAT).Build(),
      {Int32s({1, 2})});
  REQUIRE_THAT(vec.status(), StatusIs(StatusCode::kInvalidArgument,
                                      "Stack size must be a scalar"));
}

TEST_CASE("Stack: every use after close fails") {
  Step step;
  Tensor h = step.NewStack(-1);
  REQUIRE_OK(step.Push(h, Floats({1})));
  REQUIRE_OK(step.Run(TestNodeBuilder("c", "StackCloseV2", 1).Build(), {h}));
  REQUIRE_THAT(step.Pop(h).status(),
               StatusIs(StatusCode::kInvalidArgument,
                        "has already been closed"));
  REQUIRE_THAT(step.Push(h, Floats({1})),
               StatusIs(StatusCode::kInvalidArgument,
                        "has already been closed"));
}

TEST_CASE("Stack: pushes and pops of another dtype fail") {
  Step step;
  Tensor h = step.NewStack(-1);
  REQUIRE_THAT(step.Push(h, Int32s({1})),
               StatusIs(StatusCode::kInvalidArgument,
                        "holds float tensors, cannot push a int32"));
  REQUIRE_OK(step.Push(h, Floats({1})));
  // TensorFlow's code for this one is Internal.
  REQUIRE_THAT(step.Pop(h, DT_INT32).status(),
               StatusIs(StatusCode::kInternal, "declares elem_type int32"));
  REQUIRE(Values(*step.Pop(h)) == std::vector<float>{1});
}

// ---------------------------------------------------------------------------
// Op signatures and shape functions

PartialShape S(std::vector<int64_t> dims) {
  return PartialShape::Known(std::move(dims));
}

TEST_CASE("Data-flow ops have TensorFlow's signatures") {
  const OpDef& ta = OpRegistry::Global()->LookUp("TensorArrayV3")->op_def;
  REQUIRE(ta.is_stateful());
  REQUIRE(ta.output_arg(0).type() == DT_RESOURCE);
  REQUIRE(ta.output_arg(1).type() == DT_FLOAT);
  std::vector<std::string> attrs;
  for (const auto& a : ta.attr()) attrs.push_back(a.name());
  REQUIRE(attrs == std::vector<std::string>{
                       "dtype", "element_shape", "dynamic_size",
                       "clear_after_read", "identical_element_shapes",
                       "tensor_array_name"});
  const OpDef& split = OpRegistry::Global()->LookUp("TensorArraySplitV3")->op_def;
  REQUIRE(split.input_arg(2).name() == "lengths");
  REQUIRE(split.input_arg(2).type() == DT_INT64);
  const OpDef& push = OpRegistry::Global()->LookUp("StackPushV2")->op_def;
  REQUIRE(push.attr(1).name() == "swap_memory");
  REQUIRE(!push.attr(1).default_value().b());
  for (const char* op :
       {"StackV2", "StackPushV2", "StackPopV2", "StackCloseV2",
        "TensorArrayGradV3", "TensorArrayGradWithShape", "TensorArrayWriteV3",
        "TensorArrayReadV3", "TensorArrayGatherV3", "TensorArrayScatterV3",
        "TensorArrayConcatV3", "TensorArraySplitV3", "TensorArraySizeV3",
        "TensorArrayCloseV3"}) {
    INFO(op);
    REQUIRE(OpRegistry::Global()->LookUp(op) != nullptr);
    REQUIRE(OpRegistry::Global()->LookUp(op)->op_def.is_stateful());
  }
}

TEST_CASE("Data-flow shape functions check ranks and infer what they can") {
  const PartialShape unknown = PartialShape::Unknown();
  auto ta = InferShapes(
      TestNodeBuilder("ta", "TensorArrayV3", 1).Attr("dtype", DT_FLOAT).Build(),
      {S({})});
  REQUIRE_OK(ta);
  REQUIRE(ta->at(0).DebugString() == "[2]");
  REQUIRE(ta->at(1).DebugString() == "[]");
  REQUIRE_THAT(InferShapes(TestNodeBuilder("ta", "TensorArrayV3", 1)
                               .Attr("dtype", DT_FLOAT)
                               .Build(),
                           {S({2})})
                   .status(),
               StatusIs(StatusCode::kInvalidArgument, "node 'ta'"));

  NodeDef read = TestNodeBuilder("r", "TensorArrayReadV3", 3)
                     .Attr("dtype", DT_FLOAT)
                     .Build();
  // dfx's scalar handles and TensorFlow's [2] are both accepted.
  REQUIRE_OK(InferShapes(read, {S({}), S({}), S({})}));
  REQUIRE_OK(InferShapes(read, {S({2}), S({}), S({})}));
  REQUIRE_THAT(InferShapes(read, {S({3}), S({}), S({})}).status(),
               StatusIs(StatusCode::kInvalidArgument, "handle"));
  REQUIRE_THAT(InferShapes(read, {S({2}), S({2}), S({})}).status(),
               StatusIs(StatusCode::kInvalidArgument, "rank 0"));

  auto gather = InferShapes(TestNodeBuilder("g", "TensorArrayGatherV3", 3)
                                .Attr("dtype", DT_FLOAT)
                                .Attr("element_shape", ShapeProto({-1, 3}))
                                .Build(),
                            {S({2}), S({5}), S({})});
  REQUIRE_OK(gather);
  REQUIRE(gather->at(0).DebugString() == "[5,?,3]");

  NodeDef scatter = TestNodeBuilder("s", "TensorArrayScatterV3", 4)
                        .Attr("T", DT_FLOAT)
                        .Build();
  REQUIRE_OK(InferShapes(scatter, {S({2}), S({4}), S({4, 3}), S({})}));
  REQUIRE_THAT(
      InferShapes(scatter, {S({2}), S({4}), S({5, 3}), S({})}).status(),
      StatusIs(StatusCode::kInvalidArgument, "node 's'"));

  auto push = InferShapes(
      TestNodeBuilder("p", "StackPushV2", 2).Attr("T", DT_FLOAT).Build(),
      {S({2}), S({7, 2})});
  REQUIRE_OK(push);
  REQUIRE(push->at(0).DebugString() == "[7,2]");
  auto concat = InferShapes(TestNodeBuilder("c", "TensorArrayConcatV3", 2)
                                .Attr("dtype", DT_FLOAT)
                                .Build(),
                            {unknown, S({})});
  REQUIRE_OK(concat);
  REQUIRE(concat->at(1).DebugString() == "[?]");
}

}  // namespace
}  // namespace dfx

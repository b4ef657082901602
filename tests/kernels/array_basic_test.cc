// Const, Placeholder, PlaceholderWithDefault, Identity, IdentityN, NoOp,
// Fill, ZerosLike and OnesLike kernels.
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "kernels/kernels.h"
#include "runtime/op_kernel.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::RunKernel;
using testing::StatusIs;
using testing::TestNodeBuilder;

template <typename T>
void RequireTensor(const Tensor& t, const TensorShape& shape,
                   const std::vector<T>& values) {
  REQUIRE(t.dtype() == DataTypeToEnum<T>::value);
  REQUIRE(t.shape() == shape);
  REQUIRE(t.NumElements() == static_cast<int64_t>(values.size()));
  for (size_t i = 0; i < values.size(); ++i) {
    INFO("element " << i);
    REQUIRE(t.data<T>()[i] == values[i]);
  }
}

// Builds the node's kernel once, as an executor does.
std::unique_ptr<OpKernel> MakeKernel(const NodeDef& node_in) {
  const OpRegistrationData* op = OpRegistry::Global()->LookUp(node_in.op());
  REQUIRE(op != nullptr);
  NodeDef node = node_in;
  AddDefaultAttrs(op->op_def, &node);
  auto kernel = StandardKernelRegistry()->CreateKernel(
      node, op->op_def, testing::TestCpuDevice());
  REQUIRE_OK(kernel);
  return *std::move(kernel);
}

Tensor ComputeOnce(OpKernel* kernel) {
  OpKernelContext::Params params;
  params.op_kernel = kernel;
  params.device = testing::TestCpuDevice();
  OpKernelContext ctx(&params);
  kernel->Compute(&ctx);
  REQUIRE_OK(ctx.status());
  return (*ctx.mutable_outputs())[0];
}

TEST_CASE("Const outputs its value, the same buffer every step") {
  Tensor value = Tensor::FromVector<float>({1, 2, 3, 4, 5, 6},
                                           TensorShape({2, 3}));
  NodeDef node = TestNodeBuilder("c", "Const", 0)
                     .Attr("dtype", DT_FLOAT)
                     .Attr("value", value)
                     .Build();
  std::unique_ptr<OpKernel> kernel = MakeKernel(node);
  REQUIRE_FALSE(kernel->IsExpensive());
  Tensor a = ComputeOnce(kernel.get());
  Tensor b = ComputeOnce(kernel.get());
  RequireTensor<float>(a, TensorShape({2, 3}), {1, 2, 3, 4, 5, 6});
  REQUIRE(a.SharesBufferWith(b));
}

TEST_CASE("Const decodes each dtype family from typed fields") {
  SECTION("int64 padded from a short list") {
    TensorProto proto;
    proto.set_dtype(DT_INT64);
    proto.mutable_tensor_shape()->add_dim()->set_size(3);
    proto.add_int64_val(7);
    proto.add_int64_val(9);
    NodeDef node = TestNodeBuilder("c", "Const", 0).Attr("dtype", DT_INT64).Build();
    *(*node.mutable_attr())["value"].mutable_tensor() = proto;
    auto out = RunKernel(node, {});
    REQUIRE_OK(out);
    RequireTensor<int64_t>((*out)[0], TensorShape({3}), {7, 9, 9});
  }
  SECTION("double, int32, bool scalars and vectors") {
    auto d = RunKernel(TestNodeBuilder("c", "Const", 0)
                           .Attr("dtype", DT_DOUBLE)
                           .Attr("value", Tensor::Scalar<double>(2.5))
                           .Build(),
                       {});
    REQUIRE_OK(d);
    RequireTensor<double>((*d)[0], TensorShape(), {2.5});
    auto i = RunKernel(TestNodeBuilder("c", "Const", 0)
                           .Attr("dtype", DT_INT32)
                           .Attr("value", Tensor::FromVector<int32_t>({-1, 4}))
                           .Build(),
                       {});
    REQUIRE_OK(i);
    RequireTensor<int32_t>((*i)[0], TensorShape({2}), {-1, 4});
    auto b = RunKernel(TestNodeBuilder("c", "Const", 0)
                           .Attr("dtype", DT_BOOL)
                           .Attr("value", Tensor::FromVector<bool>({true, false}))
                           .Build(),
                       {});
    REQUIRE_OK(b);
    RequireTensor<bool>((*b)[0], TensorShape({2}), {true, false});
  }
  SECTION("strings") {
    auto s = RunKernel(
        TestNodeBuilder("c", "Const", 0)
            .Attr("dtype", DT_STRING)
            .Attr("value", Tensor::FromVector<std::string>({"ab", "", "xyz"}))
            .Build(),
        {});
    REQUIRE_OK(s);
    RequireTensor<std::string>((*s)[0], TensorShape({3}), {"ab", "", "xyz"});
  }
}

TEST_CASE("Const rejects a malformed or mismatched value, naming the node") {
  TensorProto bad;
  bad.set_dtype(DT_FLOAT);
  bad.mutable_tensor_shape()->add_dim()->set_size(2);
  bad.set_tensor_content(std::string(5, 'x'));  // 8 bytes needed
  NodeDef node = TestNodeBuilder("bad_const", "Const", 0)
                     .Attr("dtype", DT_FLOAT)
                     .Build();
  *(*node.mutable_attr())["value"].mutable_tensor() = bad;
  REQUIRE_THAT(RunKernel(node, {}).status(),
               StatusIs(absl::StatusCode::kInvalidArgument, "'bad_const'"));

  NodeDef mismatch = TestNodeBuilder("mm", "Const", 0)
                         .Attr("dtype", DT_INT32)
                         .Attr("value", Tensor::Scalar<float>(1))
                         .Build();
  REQUIRE_THAT(RunKernel(mismatch, {}).status(),
               StatusIs(absl::StatusCode::kInvalidArgument, "'mm'"));
  REQUIRE_THAT(RunKernel(mismatch, {}).status(),
               StatusIs(absl::StatusCode::kInvalidArgument, "int32"));
}

TEST_CASE("Placeholder that runs was not fed: InvalidArgument") {
  TensorShapeProto shape;
  shape.add_dim()->set_size(-1);
  shape.add_dim()->set_size(3);
  REQUIRE_THAT(
      RunKernel(TestNodeBuilder("x", "Placeholder", 0)
                    .Attr("dtype", DT_FLOAT)
                    .Attr("shape", shape)
                    .Build(),
                {})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "You must feed a value for placeholder tensor 'x' with dtype "
               "float and shape [?,3]"));
  // Default shape: unknown rank, no shape in the message.
  auto s = RunKernel(
      TestNodeBuilder("y", "Placeholder", 0).Attr("dtype", DT_INT64).Build(),
      {});
  REQUIRE_THAT(s.status(),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "placeholder tensor 'y' with dtype int64"));
  REQUIRE(std::string(s.status().message()).find("shape") ==
          std::string::npos);
}

TEST_CASE("Identity, PlaceholderWithDefault and IdentityN share buffers") {
  Tensor f = Tensor::FromVector<float>({1, 2, 3});
  Tensor s = Tensor::FromVector<std::string>({"a", "b"});
  auto id = RunKernel(
      TestNodeBuilder("id", "Identity", 1).Attr("T", DT_FLOAT).Build(), {f});
  REQUIRE_OK(id);
  REQUIRE((*id)[0].SharesBufferWith(f));
  RequireTensor<float>((*id)[0], TensorShape({3}), {1, 2, 3});

  auto ids = RunKernel(
      TestNodeBuilder("id", "Identity", 1).Attr("T", DT_STRING).Build(), {s});
  REQUIRE_OK(ids);
  REQUIRE((*ids)[0].SharesBufferWith(s));

  TensorShapeProto shape;
  shape.add_dim()->set_size(3);
  auto pwd = RunKernel(TestNodeBuilder("p", "PlaceholderWithDefault", 1)
                           .Attr("dtype", DT_FLOAT)
                           .Attr("shape", shape)
                           .Build(),
                       {f});
  REQUIRE_OK(pwd);
  REQUIRE((*pwd)[0].SharesBufferWith(f));

  Tensor i = Tensor::FromVector<int32_t>({5});
  auto idn = RunKernel(TestNodeBuilder("n", "IdentityN", 2)
                           .Attr("T", DataTypeVector{DT_FLOAT, DT_INT32})
                           .Build(),
                       {f, i});
  REQUIRE_OK(idn);
  REQUIRE(idn->size() == 2);
  REQUIRE((*idn)[0].SharesBufferWith(f));
  REQUIRE((*idn)[1].SharesBufferWith(i));
  RequireTensor<int32_t>((*idn)[1], TensorShape({1}), {5});
}

TEST_CASE("NoOp runs and outputs nothing") {
  auto out = RunKernel(TestNodeBuilder("n", "NoOp", 0).Build(), {});
  REQUIRE_OK(out);
  REQUIRE(out->empty());
}

TEST_CASE("Fill fills every dtype family") {
  auto f = RunKernel(TestNodeBuilder("f", "Fill", 2).Attr("T", DT_FLOAT).Build(),
                     {Tensor::FromVector<int32_t>({2, 3}),
                      Tensor::Scalar<float>(1.5f)});
  REQUIRE_OK(f);
  RequireTensor<float>((*f)[0], TensorShape({2, 3}),
                       std::vector<float>(6, 1.5f));
  auto d = RunKernel(TestNodeBuilder("f", "Fill", 2)
                         .Attr("T", DT_DOUBLE)
                         .Attr("index_type", DT_INT64)
                         .Build(),
                     {Tensor::FromVector<int64_t>({1, 2}),
                      Tensor::Scalar<double>(-3)});
  REQUIRE_OK(d);
  RequireTensor<double>((*d)[0], TensorShape({1, 2}), {-3, -3});
  auto i = RunKernel(TestNodeBuilder("f", "Fill", 2).Attr("T", DT_INT64).Build(),
                     {Tensor::FromVector<int32_t>({}), Tensor::Scalar<int64_t>(9)});
  REQUIRE_OK(i);
  RequireTensor<int64_t>((*i)[0], TensorShape(), {9});
  auto b = RunKernel(TestNodeBuilder("f", "Fill", 2).Attr("T", DT_BOOL).Build(),
                     {Tensor::FromVector<int32_t>({2, 0}), Tensor::Scalar<bool>(true)});
  REQUIRE_OK(b);
  REQUIRE((*b)[0].shape() == TensorShape({2, 0}));
  auto i32 = RunKernel(
      TestNodeBuilder("f", "Fill", 2).Attr("T", DT_INT32).Build(),
      {Tensor::FromVector<int32_t>({3}), Tensor::Scalar<int32_t>(-7)});
  REQUIRE_OK(i32);
  RequireTensor<int32_t>((*i32)[0], TensorShape({3}), {-7, -7, -7});
  auto s = RunKernel(
      TestNodeBuilder("f", "Fill", 2).Attr("T", DT_STRING).Build(),
      {Tensor::FromVector<int32_t>({2}), Tensor::Scalar<std::string>("hi")});
  REQUIRE_OK(s);
  RequireTensor<std::string>((*s)[0], TensorShape({2}), {"hi", "hi"});
}

TEST_CASE("Fill and OnesLike set every element of a large tensor, whatever "
          "the value's bytes") {
  // Big enough for the intra-op pool and for many copied blocks, with an
  // odd element count so that the last block is partial.
  const int64_t n = 3 * 100003;
  auto check_all = [&]<typename T>(const Tensor& t, T want) {
    REQUIRE(t.NumElements() == n);
    const T* p = t.data<T>();
    int64_t wrong = 0;
    // Bit for bit (-0.0 is not 0.0 here).
    for (int64_t i = 0; i < n; ++i) {
      wrong += std::memcmp(&p[i], &want, sizeof(T)) != 0;
    }
    CHECK(wrong == 0);
  };
  auto fill = [&]<typename T>(DataType dtype, T value) {
    auto out = RunKernel(
        TestNodeBuilder("f", "Fill", 2).Attr("T", dtype).Build(),
        {Tensor::FromVector<int64_t>({3, 100003}), Tensor::Scalar<T>(value)});
    REQUIRE_OK(out);
    check_all((*out)[0], value);
  };
  fill(DT_FLOAT, 1.5f);
  fill(DT_FLOAT, -0.0f);
  fill(DT_FLOAT, 0.0f);
  fill(DT_DOUBLE, -2.25);
  fill(DT_INT64, int64_t{0x0102030405060708});
  fill(DT_INT32, int32_t{-1});
  fill(DT_HALF, Eigen::half(3.0f));
  fill(DT_BFLOAT16, Eigen::bfloat16(-7.0f));
  fill(DT_UINT8, uint8_t{0xa5});
  fill(DT_BOOL, true);
  Tensor x(DT_FLOAT, TensorShape({n}));
  auto ones = RunKernel(
      TestNodeBuilder("o", "OnesLike", 1).Attr("T", DT_FLOAT).Build(), {x});
  REQUIRE_OK(ones);
  check_all((*ones)[0], 1.0f);
}

TEST_CASE("Fill rejects bad dims and value, naming the node") {
  NodeDef node = TestNodeBuilder("fill", "Fill", 2).Attr("T", DT_FLOAT).Build();
  REQUIRE_THAT(RunKernel(node, {Tensor::FromVector<int32_t>({2, -1}),
                                Tensor::Scalar<float>(0)})
                   .status(),
               StatusIs(absl::StatusCode::kInvalidArgument, "node 'fill'"));
  REQUIRE_THAT(RunKernel(node, {Tensor::Scalar<int32_t>(2),
                                Tensor::Scalar<float>(0)})
                   .status(),
               StatusIs(absl::StatusCode::kInvalidArgument, "'dims' must be a vector"));
  REQUIRE_THAT(RunKernel(node, {Tensor::FromVector<int32_t>({2}),
                                Tensor::FromVector<float>({1, 2})})
                   .status(),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "'value' must be a scalar"));
}

TEST_CASE("ZerosLike and OnesLike keep the shape and dtype") {
  Tensor f = Tensor::FromVector<float>({3, 4, 5, 6}, TensorShape({2, 2}));
  auto z = RunKernel(
      TestNodeBuilder("z", "ZerosLike", 1).Attr("T", DT_FLOAT).Build(), {f});
  REQUIRE_OK(z);
  RequireTensor<float>((*z)[0], TensorShape({2, 2}), {0, 0, 0, 0});
  REQUIRE_FALSE((*z)[0].SharesBufferWith(f));
  auto o = RunKernel(
      TestNodeBuilder("o", "OnesLike", 1).Attr("T", DT_FLOAT).Build(), {f});
  REQUIRE_OK(o);
  RequireTensor<float>((*o)[0], TensorShape({2, 2}), {1, 1, 1, 1});

  Tensor d = Tensor::FromVector<double>({2.5});
  auto od = RunKernel(
      TestNodeBuilder("o", "OnesLike", 1).Attr("T", DT_DOUBLE).Build(), {d});
  REQUIRE_OK(od);
  RequireTensor<double>((*od)[0], TensorShape({1}), {1.0});
  Tensor i = Tensor::FromVector<int64_t>({7, 8, 9});
  auto zi = RunKernel(
      TestNodeBuilder("z", "ZerosLike", 1).Attr("T", DT_INT64).Build(), {i});
  REQUIRE_OK(zi);
  RequireTensor<int64_t>((*zi)[0], TensorShape({3}), {0, 0, 0});
  Tensor i32 = Tensor::FromVector<int32_t>({7, 8});
  auto oi = RunKernel(
      TestNodeBuilder("o", "OnesLike", 1).Attr("T", DT_INT32).Build(), {i32});
  REQUIRE_OK(oi);
  RequireTensor<int32_t>((*oi)[0], TensorShape({2}), {1, 1});
  Tensor b = Tensor::FromVector<bool>({false, true});
  auto ob = RunKernel(
      TestNodeBuilder("o", "OnesLike", 1).Attr("T", DT_BOOL).Build(), {b});
  REQUIRE_OK(ob);
  RequireTensor<bool>((*ob)[0], TensorShape({2}), {true, true});
  auto zb = RunKernel(
      TestNodeBuilder("z", "ZerosLike", 1).Attr("T", DT_BOOL).Build(), {b});
  REQUIRE_OK(zb);
  RequireTensor<bool>((*zb)[0], TensorShape({2}), {false, false});
}

}  // namespace
}  // namespace dfx

#include "runtime/tensor.h"

#include <cstring>

#include "catch2/catch.hpp"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::IsOk;
using testing::StatusIs;

TEST_CASE("TensorShape rejects negative dims and overflow") {
  REQUIRE_THAT(TensorShape::Build({2, -1}).status(),
               StatusIs(absl::StatusCode::kInvalidArgument, "negative"));
  REQUIRE_THAT(
      TensorShape::Build({int64_t{1} << 40, int64_t{1} << 40}).status(),
      StatusIs(absl::StatusCode::kInvalidArgument, "too many elements"));
  auto s = TensorShape::Build({2, 3, 0});
  REQUIRE_OK(s);
  REQUIRE(s->num_elements() == 0);
  REQUIRE(s->DebugString() == "[2,3,0]");
}

TEST_CASE("Tensor round trips through tensor_content and typed fields") {
  Tensor t = Tensor::FromVector<float>({1.5f, -2.0f, 3.25f, 4.0f},
                                       TensorShape({2, 2}));
  TensorProto content, field;
  t.AsProtoTensorContent(&content);
  t.AsProtoField(&field);
  REQUIRE(content.tensor_content().size() == 16);
  REQUIRE(field.float_val_size() == 4);
  for (const TensorProto* p : {&content, &field}) {
    auto back = Tensor::FromProto(*p);
    REQUIRE_OK(back);
    REQUIRE(back->shape() == TensorShape({2, 2}));
    REQUIRE(std::memcmp(back->raw_data(), t.raw_data(), 16) == 0);
  }
}

TEST_CASE("Tensor FromProto pads a short typed list with its last value") {
  TensorProto p;
  p.set_dtype(DT_INT32);
  p.mutable_tensor_shape()->add_dim()->set_size(3);
  p.add_int_val(7);
  auto t = Tensor::FromProto(p);
  REQUIRE_OK(t);
  REQUIRE(t->span<int32_t>()[2] == 7);
}

TEST_CASE("Tensor FromProto rejects content of the wrong size") {
  TensorProto p;
  p.set_dtype(DT_FLOAT);
  p.mutable_tensor_shape()->add_dim()->set_size(3);
  p.set_tensor_content(std::string(8, '\0'));
  REQUIRE_THAT(Tensor::FromProto(p).status(),
               StatusIs(absl::StatusCode::kInvalidArgument, "needs 12"));
}

TEST_CASE("String tensors round trip through TensorFlow's list encoding") {
  Tensor t(DT_STRING, TensorShape({3}));
  t.data<std::string>()[0] = "a";
  t.data<std::string>()[1] = std::string(300, 'x');
  t.data<std::string>()[2] = "";
  TensorProto p;
  t.AsProtoTensorContent(&p);
  auto back = Tensor::FromProto(p);
  REQUIRE_OK(back);
  REQUIRE(back->data<std::string>()[1] == std::string(300, 'x'));
  REQUIRE(back->data<std::string>()[2].empty());
}

TEST_CASE("Slice and Reshaped share the buffer") {
  Tensor t = Tensor::FromVector<int64_t>({1, 2, 3, 4, 5, 6},
                                         TensorShape({3, 2}));
  Tensor s = t.Slice(1, 3);
  REQUIRE(s.SharesBufferWith(t));
  REQUIRE(s.shape() == TensorShape({2, 2}));
  REQUIRE(s.span<int64_t>()[0] == 3);
  auto r = t.Reshaped(TensorShape({6}));
  REQUIRE_OK(r);
  REQUIRE(r->SharesBufferWith(t));
  REQUIRE_THAT(t.Reshaped(TensorShape({4})).status(),
               StatusIs(absl::StatusCode::kInvalidArgument, "cannot reshape"));
}

}  // namespace
}  // namespace dfx

namespace dfx {
namespace {

TEST_CASE("SummarizeValue nests brackets by dimension") {
  REQUIRE(Tensor::FromVector<int32_t>({1, 2, 3, 4}, TensorShape({2, 2}))
              .SummarizeValue(10) == "[[1 2][3 4]]");
  REQUIRE(Tensor::FromVector<int32_t>({1, 2, 3, 4, 5, 6}, TensorShape({3, 2}))
              .SummarizeValue(10) == "[[1 2][3 4][5 6]]");
  REQUIRE(Tensor::FromVector<int64_t>({1, 2, 3, 4, 5, 6, 7, 8},
                                      TensorShape({2, 2, 2}))
              .SummarizeValue(10) == "[[[1 2][3 4]][[5 6][7 8]]]");
  REQUIRE(Tensor::Scalar<float>(1.5f).SummarizeValue(10) == "1.5");
  REQUIRE(Tensor::FromVector<int32_t>({1, 2, 3}).SummarizeValue(2) ==
          "[1 2...");
}

}  // namespace
}  // namespace dfx

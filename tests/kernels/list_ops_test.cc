// TensorList kernels one node at a time: copy-on-write of list values, the
// element dtypes golden files cannot hold (strings, nested lists), inputs
// that are not lists, and ZerosLike/AddN on lists. TensorFlow's numbers and
// error codes for the numeric cases are in tests/golden (family "list").
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "runtime/tensor_list.h"
#include "runtime/variant.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::RunKernel;
using testing::StatusIs;
using testing::TestNodeBuilder;

Tensor ListTensor(TensorList list) {
  Tensor t(DT_VARIANT, TensorShape());
  t.scalar<Variant>() = Variant::Make<TensorList>(std::move(list));
  return t;
}

const TensorList& ListOf(const Tensor& t) {
  REQUIRE(t.dtype() == DT_VARIANT);
  const TensorList* list = t.scalar<Variant>().get<TensorList>();
  REQUIRE(list != nullptr);
  return *list;
}

Tensor Strings(std::vector<std::string> v, TensorShape shape) {
  Tensor t(DT_STRING, shape);
  for (size_t i = 0; i < v.size(); ++i) t.data<std::string>()[i] = v[i];
  return t;
}

std::vector<std::string> StringsOf(const Tensor& t) {
  REQUIRE(t.dtype() == DT_STRING);
  return std::vector<std::string>(t.data<std::string>(),
                                  t.data<std::string>() + t.NumElements());
}

NodeDef Node(const char* op, int inputs, DataType dtype) {
  return TestNodeBuilder("n", op, inputs).Attr("element_dtype", dtype).Build();
}

Tensor UnknownShape() { return Tensor::Scalar<int32_t>(-1); }

TEST_CASE("PushBack leaves a list someone else holds unchanged") {
  TensorList list(DT_FLOAT, PartialShape::Known({2}));
  list.tensors.push_back(Tensor::FromVector<float>({1, 2}));
  const Tensor in = ListTensor(list);
  auto out = RunKernel(Node("TensorListPushBack", 2, DT_FLOAT),
                       {in, Tensor::FromVector<float>({3, 4})});
  REQUIRE_OK(out);
  CHECK(ListOf(in).tensors.size() == 1);
  const TensorList& pushed = ListOf((*out)[0]);
  REQUIRE(pushed.tensors.size() == 2);
  // The copy shares the element tensors, not copies their data.
  CHECK(pushed.tensors[0].SharesBufferWith(ListOf(in).tensors[0]));
  CHECK(pushed.tensors[1].SummarizeValue(10) == "[3 4]");
}

TEST_CASE("PushBack takes over a list nobody else holds") {
  TensorList list(DT_FLOAT, PartialShape::Known({2}));
  list.tensors.reserve(8);  // so a push does not move the elements
  list.tensors.push_back(Tensor::FromVector<float>({1, 2}));
  std::vector<Tensor> inputs = {ListTensor(std::move(list)),
                                Tensor::FromVector<float>({3, 4})};
  const Tensor* elements = ListOf(inputs[0]).tensors.data();
  auto out = RunKernel(Node("TensorListPushBack", 2, DT_FLOAT), inputs);
  REQUIRE_OK(out);
  const TensorList& pushed = ListOf((*out)[0]);
  REQUIRE(pushed.tensors.size() == 2);
  CHECK(pushed.tensors.data() == elements);
}

TEST_CASE("String lists push, stack, gather, split and concat") {
  const Tensor words = Strings({"a", "bb", "", "dddd", "e", "f"},
                               TensorShape({3, 2}));
  auto from = RunKernel(
      TestNodeBuilder("n", "TensorListFromTensor", 2)
          .Attr("element_dtype", DT_STRING)
          .Attr("shape_type", DT_INT32)
          .Build(),
      {words, Tensor::FromVector<int32_t>({2})});
  REQUIRE_OK(from);
  auto pushed = RunKernel(Node("TensorListPushBack", 2, DT_STRING),
                          {(*from)[0], Strings({"x", "yy"}, TensorShape({2}))});
  REQUIRE_OK(pushed);
  auto stacked = RunKernel(Node("TensorListStack", 2, DT_STRING),
                           {(*pushed)[0], UnknownShape()});
  REQUIRE_OK(stacked);
  CHECK((*stacked)[0].shape() == TensorShape({4, 2}));
  CHECK(StringsOf((*stacked)[0]) ==
        std::vector<std::string>{"a", "bb", "", "dddd", "e", "f", "x", "yy"});
  auto gathered = RunKernel(Node("TensorListGather", 3, DT_STRING),
                            {(*pushed)[0], Tensor::FromVector<int32_t>({3, 0}),
                             UnknownShape()});
  REQUIRE_OK(gathered);
  CHECK(StringsOf((*gathered)[0]) ==
        std::vector<std::string>{"x", "yy", "a", "bb"});

  auto split = RunKernel(TestNodeBuilder("n", "TensorListSplit", 3)
                             .Attr("element_dtype", DT_STRING)
                             .Attr("shape_type", DT_INT64)
                             .Build(),
                         {words, Tensor::FromVector<int64_t>({-1, 2}),
                          Tensor::FromVector<int64_t>({1, 2})});
  REQUIRE_OK(split);
  auto concat = RunKernel(TestNodeBuilder("n", "TensorListConcatV2", 3)
                              .Attr("element_dtype", DT_STRING)
                              .Attr("shape_type", DT_INT32)
                              .Build(),
                          {(*split)[0], UnknownShape(),
                           Tensor(DT_INT64, TensorShape({0}))});
  REQUIRE_OK(concat);
  CHECK(StringsOf((*concat)[0]) == StringsOf(words));
  CHECK((*concat)[1].SummarizeValue(10) == "[1 2]");
}

TEST_CASE("An unset string element reads as empty strings") {
  TensorList list(DT_STRING, PartialShape::Known({2}));
  list.tensors.resize(1);
  auto item = RunKernel(Node("TensorListGetItem", 3, DT_STRING),
                        {ListTensor(list), Tensor::Scalar<int32_t>(0),
                         UnknownShape()});
  REQUIRE_OK(item);
  CHECK(StringsOf((*item)[0]) == std::vector<std::string>{"", ""});
}

TEST_CASE("Lists of lists stack into a variant tensor") {
  TensorList inner(DT_INT32, PartialShape::Scalar());
  inner.tensors.push_back(Tensor::Scalar<int32_t>(7));
  TensorList outer(DT_VARIANT, PartialShape::Scalar());
  outer.tensors.push_back(ListTensor(inner));
  outer.tensors.emplace_back();
  auto stacked = RunKernel(Node("TensorListStack", 2, DT_VARIANT),
                           {ListTensor(outer), UnknownShape()});
  REQUIRE_OK(stacked);
  const Tensor& t = (*stacked)[0];
  REQUIRE(t.shape() == TensorShape({2}));
  const TensorList* first = t.data<Variant>()[0].get<TensorList>();
  REQUIRE(first != nullptr);
  CHECK(first->tensors[0].scalar<int32_t>() == 7);
  CHECK(t.data<Variant>()[1].is_empty());
}

TEST_CASE("List ops refuse inputs that are not lists") {
  SECTION("a variant of another kind") {
    VariantTensorDataProto other;
    other.set_type_name("tensorflow::Other");
    Tensor t(DT_VARIANT, TensorShape());
    t.scalar<Variant>() = *Variant::Decode(other);
    CHECK_THAT(RunKernel(TestNodeBuilder("n", "TensorListLength", 1).Build(),
                         {t})
                   .status(),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "Input handle is not a list"));
  }
  SECTION("an empty variant") {
    CHECK_THAT(RunKernel(TestNodeBuilder("n", "TensorListLength", 1).Build(),
                         {Tensor(DT_VARIANT, TensorShape())})
                   .status(),
               StatusIs(absl::StatusCode::kInvalidArgument, "<empty>"));
  }
  SECTION("a vector of lists") {
    CHECK_THAT(RunKernel(TestNodeBuilder("n", "TensorListLength", 1).Build(),
                         {Tensor(DT_VARIANT, TensorShape({2}))})
                   .status(),
               StatusIs(absl::StatusCode::kInvalidArgument, "scalar"));
  }
  SECTION("an element dtype the list does not have") {
    TensorList list(DT_FLOAT, PartialShape::Unknown());
    list.tensors.push_back(Tensor::Scalar<float>(1));
    CHECK_THAT(RunKernel(Node("TensorListGetItem", 3, DT_INT32),
                         {ListTensor(list), Tensor::Scalar<int32_t>(0),
                          UnknownShape()})
                   .status(),
               StatusIs(absl::StatusCode::kInvalidArgument,
                        "op elements int32 but list elements float"));
  }
}

TEST_CASE("Bad element_shape inputs are InvalidArgument") {
  auto empty = [](Tensor shape) {
    return RunKernel(TestNodeBuilder("n", "EmptyTensorList", 2)
                         .Attr("element_dtype", DT_FLOAT)
                         .Attr("shape_type", shape.dtype())
                         .Build(),
                     {shape, Tensor::Scalar<int32_t>(-1)})
        .status();
  };
  CHECK_THAT(empty(Tensor::Scalar<int32_t>(3)),
             StatusIs(absl::StatusCode::kInvalidArgument, "-1"));
  CHECK_THAT(empty(Tensor::FromVector<int64_t>({2, -3})),
             StatusIs(absl::StatusCode::kInvalidArgument, "-3"));
  CHECK_THAT(empty(Tensor(DT_INT32, TensorShape({1, 1}))),
             StatusIs(absl::StatusCode::kInvalidArgument, "rank 2"));
}

TEST_CASE("Scattering a negative index into a list is InvalidArgument") {
  // TensorFlow 2.21 crashes on this one.
  TensorList list(DT_FLOAT, PartialShape::Known({2}));
  CHECK_THAT(RunKernel(Node("TensorListScatterIntoExistingList", 3, DT_FLOAT),
                       {ListTensor(list),
                        Tensor::FromVector<float>({1, 2}, TensorShape({1, 2})),
                        Tensor::FromVector<int32_t>({-1})})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "non-negative"));
}

TEST_CASE("Scattering past the end grows the list with unset elements") {
  // TensorFlow 2.21 fills the gap with empty tensors that Stack then reads
  // as uninitialized memory; dfx's gap reads as zeros.
  TensorList list(DT_FLOAT, PartialShape::Known({2}));
  list.tensors.push_back(Tensor::FromVector<float>({1, 2}));
  auto grown = RunKernel(
      Node("TensorListScatterIntoExistingList", 3, DT_FLOAT),
      {ListTensor(list),
       Tensor::FromVector<float>({10, 11, 12, 13}, TensorShape({2, 2})),
       Tensor::FromVector<int32_t>({3, 0})});
  REQUIRE_OK(grown);
  auto stacked = RunKernel(Node("TensorListStack", 2, DT_FLOAT),
                           {(*grown)[0], UnknownShape()});
  REQUIRE_OK(stacked);
  CHECK((*stacked)[0].SummarizeValue(100) ==
        "[[12 13][0 0][0 0][10 11]]");
}

TEST_CASE("A hostile list length is ResourceExhausted, not a crash") {
  CHECK_THAT(RunKernel(TestNodeBuilder("n", "TensorListReserve", 2)
                           .Attr("element_dtype", DT_FLOAT)
                           .Attr("shape_type", DT_INT32)
                           .Build(),
                       {UnknownShape(), Tensor::Scalar<int32_t>(2000000000)})
                 .status(),
             StatusIs(absl::StatusCode::kResourceExhausted, "elements"));
}

TEST_CASE("ZerosLike and AddN work element by element on lists") {
  TensorList a(DT_INT64, PartialShape::Known({2}));
  a.tensors.push_back(Tensor::FromVector<int64_t>({1, 2}));
  a.tensors.emplace_back();
  a.tensors.push_back(Tensor::FromVector<int64_t>({5, 6}));
  TensorList b(DT_INT64, PartialShape::Known({2}));
  b.tensors.emplace_back();
  b.tensors.push_back(Tensor::FromVector<int64_t>({30, 40}));
  b.tensors.push_back(Tensor::FromVector<int64_t>({50, 60}));

  auto zeros = RunKernel(
      TestNodeBuilder("n", "ZerosLike", 1).Attr("T", DT_VARIANT).Build(),
      {ListTensor(a)});
  REQUIRE_OK(zeros);
  const TensorList& z = ListOf((*zeros)[0]);
  REQUIRE(z.tensors.size() == 3);
  CHECK(z.tensors[0].SummarizeValue(10) == "[0 0]");
  CHECK_FALSE(TensorList::IsSet(z.tensors[1]));

  auto sum = RunKernel(TestNodeBuilder("n", "AddN", 2)
                           .Attr("T", DT_VARIANT)
                           .Attr("N", 2)
                           .Build(),
                       {ListTensor(a), ListTensor(b)});
  REQUIRE_OK(sum);
  const TensorList& s = ListOf((*sum)[0]);
  REQUIRE(s.tensors.size() == 3);
  CHECK(s.tensors[0].SummarizeValue(10) == "[1 2]");
  CHECK(s.tensors[1].SummarizeValue(10) == "[30 40]");
  CHECK(s.tensors[2].SummarizeValue(10) == "[55 66]");

  TensorList words(DT_STRING, PartialShape::Scalar());
  words.tensors.push_back(Strings({"a"}, TensorShape()));
  CHECK_THAT(RunKernel(TestNodeBuilder("n", "AddN", 2)
                           .Attr("T", DT_VARIANT)
                           .Attr("N", 2)
                           .Build(),
                       {ListTensor(words), ListTensor(words)})
                 .status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "string"));
}

}  // namespace
}  // namespace dfx

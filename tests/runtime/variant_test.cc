// Tests of runtime/variant.h and runtime/tensor_list.h: DT_VARIANT tensors
// (allocation, sharing, proto round trips in both encodings), TensorList's
// wire format byte for byte against TensorFlow 2.21, and malformed input.
#include "runtime/variant.h"

#include <fstream>
#include <iterator>
#include <limits>
#include <string>

#include "absl/strings/str_cat.h"
#include "catch2/catch.hpp"
#include "runtime/tensor.h"
#include "runtime/tensor_list.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using testing::StatusIs;

Tensor VariantScalar(Variant v) {
  Tensor t(DT_VARIANT, TensorShape());
  t.scalar<Variant>() = std::move(v);
  return t;
}

// The list TensorFlow serialized into tests/data/tf_tensor_list.pb
// (tests/golden/gen_list.py): float elements of shape [?,2], element 1
// unset.
TensorList SampleList() {
  TensorList list(DT_FLOAT, PartialShape::Known({-1, 2}));
  list.tensors.push_back(
      Tensor::FromVector<float>({1, 2}, TensorShape({1, 2})));
  list.tensors.emplace_back();
  list.tensors.push_back(
      Tensor::FromVector<float>({3, 4, 5, 6}, TensorShape({2, 2})));
  return list;
}

void RequireSameList(const TensorList& got, const TensorList& want) {
  REQUIRE(got.element_dtype == want.element_dtype);
  REQUIRE(got.element_shape.DebugString() == want.element_shape.DebugString());
  REQUIRE(got.max_num_elements == want.max_num_elements);
  REQUIRE(got.tensors.size() == want.tensors.size());
  for (size_t i = 0; i < want.tensors.size(); ++i) {
    const Tensor& a = got.tensors[i];
    const Tensor& b = want.tensors[i];
    REQUIRE(TensorList::IsSet(a) == TensorList::IsSet(b));
    if (!TensorList::IsSet(b)) continue;
    REQUIRE(a.dtype() == b.dtype());
    REQUIRE(a.shape() == b.shape());
    REQUIRE(a.SummarizeValue(100) == b.SummarizeValue(100));
  }
}

const TensorList& ListOf(const Tensor& t) {
  REQUIRE(t.dtype() == DT_VARIANT);
  const TensorList* list = t.scalar<Variant>().get<TensorList>();
  REQUIRE(list != nullptr);
  return *list;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in.good());
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST_CASE("A new variant tensor holds empty variants") {
  Tensor t(DT_VARIANT, TensorShape({3}));
  for (const Variant& v : t.span<Variant>()) {
    CHECK(v.is_empty());
    CHECK(v.TypeName().empty());
    CHECK(v.get<TensorList>() == nullptr);
  }
  CHECK(t.DebugString() ==
        "Tensor<type: variant shape: [3] values: <empty> <empty> <empty>>");
}

TEST_CASE("Copies of a variant tensor share the value, not copy it") {
  Tensor t = VariantScalar(Variant::Make<TensorList>(SampleList()));
  const TensorList* list = t.scalar<Variant>().get<TensorList>();
  REQUIRE(list != nullptr);
  Tensor shared = t;
  Tensor deep = t.DeepCopy();
  CHECK(shared.scalar<Variant>().get<TensorList>() == list);
  CHECK(deep.scalar<Variant>().get<TensorList>() == list);
  CHECK_FALSE(deep.SharesBufferWith(t));
  // The buffer of `t` and `shared` holds one Variant, `deep` another.
  CHECK(t.scalar<Variant>().use_count() == 2);
  CHECK(t.scalar<Variant>().TypeName() == "tensorflow::TensorList");
  CHECK(t.scalar<Variant>().DebugString() ==
        "<TensorList<float, [?,2], 3 elements>>");
}

TEST_CASE("A variant tensor round trips through both proto encodings") {
  TensorList nested(DT_VARIANT, PartialShape::Scalar());
  nested.tensors.push_back(VariantScalar(Variant::Make<TensorList>(SampleList())));
  nested.tensors.emplace_back();
  Tensor t(DT_VARIANT, TensorShape({3}));
  t.data<Variant>()[0] = Variant::Make<TensorList>(SampleList());
  t.data<Variant>()[2] = Variant::Make<TensorList>(nested);

  TensorProto content, field;
  t.AsProtoTensorContent(&content);
  t.AsProtoField(&field);
  CHECK_FALSE(content.tensor_content().empty());
  CHECK(field.variant_val_size() == 3);
  for (const TensorProto* proto : {&content, &field}) {
    absl::StatusOr<Tensor> back = Tensor::FromProto(*proto);
    REQUIRE_OK(back);
    REQUIRE(back->shape() == TensorShape({3}));
    const Variant* v = back->data<Variant>();
    RequireSameList(*v[0].get<TensorList>(), SampleList());
    CHECK(v[1].is_empty());
    const TensorList* outer = v[2].get<TensorList>();
    REQUIRE(outer != nullptr);
    REQUIRE(outer->tensors.size() == 2);
    CHECK(outer->element_dtype == DT_VARIANT);
    RequireSameList(ListOf(outer->tensors[0]), SampleList());
    CHECK_FALSE(TensorList::IsSet(outer->tensors[1]));
  }
}

TEST_CASE("TensorList encodes exactly as TensorFlow 2.21 serializes it") {
  const std::string tf_bytes =
      ReadFile(absl::StrCat(DFX_TEST_DATA_DIR, "/tf_tensor_list.pb"));
  TensorProto tf_proto;
  REQUIRE(tf_proto.ParseFromString(tf_bytes));

  // TensorFlow's bytes decode to the list it built...
  absl::StatusOr<Tensor> decoded = Tensor::FromProto(tf_proto);
  REQUIRE_OK(decoded);
  RequireSameList(ListOf(*decoded), SampleList());

  // ... and dfx's encoding of that list is TensorFlow's, byte for byte.
  TensorProto ours;
  VariantScalar(Variant::Make<TensorList>(SampleList()))
      .AsProtoTensorContent(&ours);
  CHECK(ours.SerializeAsString() == tf_bytes);
}

TEST_CASE("TensorList metadata carries max_num_elements and unset slots") {
  TensorList list(DT_INT64, PartialShape::Unknown(), 7);
  list.tensors.resize(2);
  list.tensors.push_back(Tensor::Scalar<int64_t>(5));
  VariantTensorDataProto proto;
  Variant::Make<TensorList>(list).Encode(&proto);
  CHECK(proto.type_name() == "tensorflow::TensorList");
  CHECK(proto.tensors_size() == 1);
  absl::StatusOr<Variant> back = Variant::Decode(proto);
  REQUIRE_OK(back);
  RequireSameList(*back->get<TensorList>(), list);
}

TEST_CASE("A variant of a kind dfx does not know passes through unchanged") {
  VariantTensorDataProto proto;
  proto.set_type_name("tensorflow::SomethingElse");
  proto.set_metadata(std::string("\x01\x02\x00\x03", 4));
  Tensor::Scalar<float>(2.5f).AsProtoTensorContent(proto.add_tensors());
  absl::StatusOr<Variant> v = Variant::Decode(proto);
  REQUIRE_OK(v);
  CHECK(v->get<TensorList>() == nullptr);
  CHECK(v->TypeName() == "tensorflow::SomethingElse");
  VariantTensorDataProto again;
  v->Encode(&again);
  CHECK(again.SerializeAsString() == proto.SerializeAsString());
}

TEST_CASE("Malformed TensorList data is InvalidArgument") {
  VariantTensorDataProto good;
  Variant::Make<TensorList>(SampleList()).Encode(&good);
  VariantTensorDataProto bad = good;
  std::string reason;
  SECTION("truncated metadata") {
    bad.set_metadata(good.metadata().substr(0, 2));
    reason = "truncated";
  }
  SECTION("unset index past the end") {
    std::string m = good.metadata();
    m[1] = 9;  // the one unset index
    bad.set_metadata(m);
    reason = "unset index";
  }
  SECTION("an element of another dtype") {
    Tensor::FromVector<int32_t>({1, 2}, TensorShape({1, 2}))
        .AsProtoTensorContent(bad.mutable_tensors(0));
    reason = "int32 in a list of float";
  }
  SECTION("an element that does not fit the element shape") {
    Tensor::FromVector<float>({1, 2, 3}, TensorShape({1, 3}))
        .AsProtoTensorContent(bad.mutable_tensors(0));
    reason = "does not fit";
  }
  SECTION("an element dtype no tensor holds") {
    std::string m = good.metadata();
    m[2] = 0;  // DT_INVALID
    bad.set_metadata(m);
    reason = "element dtype";
  }
  SECTION("data without a type name") {
    bad.clear_type_name();
    reason = "without a type name";
  }
  CHECK_THAT(Variant::Decode(bad).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, reason));
}

TEST_CASE("Variant nesting deeper than the limit is refused") {
  TensorList inner(DT_FLOAT, PartialShape::Unknown());
  Variant v = Variant::Make<TensorList>(inner);
  for (int i = 0; i < 100; ++i) {
    TensorList outer(DT_VARIANT, PartialShape::Scalar());
    outer.tensors.push_back(VariantScalar(v));
    v = Variant::Make<TensorList>(std::move(outer));
  }
  VariantTensorDataProto proto;
  v.Encode(&proto);
  CHECK_THAT(Variant::Decode(proto).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "nested"));
}

TEST_CASE("A variant tensor_content with a bad element is InvalidArgument") {
  TensorProto proto;
  proto.set_dtype(DT_VARIANT);
  proto.mutable_tensor_shape()->add_dim()->set_size(1);
  proto.set_tensor_content(std::string("\x03\xff\xff\xff", 4));
  CHECK_THAT(Tensor::FromProto(proto).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "variant"));
  proto.clear_tensor_content();
  CHECK_THAT(Tensor::FromProto(proto).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "0 values"));
}

TEST_CASE("Partial shapes merge and check as TensorFlow's do") {
  const PartialShape a = PartialShape::Known({-1, 2});
  const PartialShape b = PartialShape::Known({3, -1});
  absl::StatusOr<PartialShape> m = MergeShapes(a, b);
  REQUIRE_OK(m);
  CHECK(m->DebugString() == "[3,2]");
  CHECK(MergeShapes(PartialShape::Unknown(), a)->DebugString() == "[?,2]");
  CHECK_THAT(MergeShapes(a, PartialShape::Known({1, 3})).status(),
             StatusIs(absl::StatusCode::kInvalidArgument, "[?,2] vs. [1,3]"));
  CHECK(ShapesCompatible(a, TensorShape({5, 2})));
  CHECK_FALSE(ShapesCompatible(a, TensorShape({5, 2, 1})));
  CHECK(ShapesCompatible(PartialShape::Unknown(), TensorShape({})));
  TensorShape out;
  CHECK_FALSE(ToTensorShape(a, &out));
  REQUIRE(ToTensorShape(*m, &out));
  CHECK(out == TensorShape({3, 2}));
}

}  // namespace
}  // namespace dfx

// DT_VARIANT tensors (TensorLists) over the RecvTensor wire: they take the
// protobuf path, as TensorFlow sends them (tensor_content holding the
// serialized VariantTensorDataProtos), and come back as equal lists.
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "grpcpp/support/slice.h"
#include "proto/worker.pb.h"
#include "rpc/tensor_coding.h"
#include "runtime/tensor_list.h"
#include "runtime/variant.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using ::dfx::testing::StatusIs;

constexpr char kKey[] =
    "/job:a/replica:0/task:0/device:CPU:0;0000000000000001;"
    "/job:b/replica:0/task:0/device:CPU:0;edge_7_list;0:0";

std::string Flatten(const grpc::ByteBuffer& buffer) {
  std::vector<grpc::Slice> slices;
  REQUIRE(buffer.Dump(&slices).ok());
  std::string out;
  for (const grpc::Slice& s : slices) {
    out.append(reinterpret_cast<const char*>(s.begin()), s.size());
  }
  return out;
}

Tensor SampleListTensor() {
  TensorList list(DT_DOUBLE, PartialShape::Known({-1}));
  std::vector<double> big(3000);
  for (size_t i = 0; i < big.size(); ++i) big[i] = 0.5 * static_cast<double>(i);
  list.tensors.push_back(Tensor::FromVector<double>(big));
  list.tensors.emplace_back();
  list.tensors.push_back(Tensor::FromVector<double>({1.5, -2}));
  Tensor t(DT_VARIANT, TensorShape());
  t.scalar<Variant>() = Variant::Make<TensorList>(std::move(list));
  return t;
}

TEST_CASE("RecvTensor coding carries a TensorList across the wire") {
  const Tensor sent = SampleListTensor();
  RecvTensorResult value;
  value.tensor = sent;
  value.send_start_micros = 77;
  grpc::ByteBuffer buffer;
  REQUIRE_OK(EncodeRecvTensorResponse(value, kKey, {}, &buffer));

  // Plain protobuf reads it (TensorFlow's receiver does): a variant scalar
  // whose tensor_content holds the list.
  RecvTensorResponse parsed;
  REQUIRE(parsed.ParseFromString(Flatten(buffer)));
  CHECK(parsed.tensor().dtype() == DT_VARIANT);
  CHECK_FALSE(parsed.tensor().tensor_content().empty());

  DecodedRecvTensor got;
  REQUIRE_OK(DecodeRecvTensorResponse(buffer, kKey, &got));
  CHECK(got.value.send_start_micros == 77);
  const Tensor& t = got.value.tensor;
  REQUIRE(t.dtype() == DT_VARIANT);
  const TensorList* list = t.scalar<Variant>().get<TensorList>();
  const TensorList* want = sent.scalar<Variant>().get<TensorList>();
  REQUIRE(list != nullptr);
  CHECK(list->element_dtype == DT_DOUBLE);
  CHECK(list->element_shape.DebugString() == "[?]");
  REQUIRE(list->tensors.size() == 3);
  CHECK_FALSE(TensorList::IsSet(list->tensors[1]));
  for (int i : {0, 2}) {
    CHECK(list->tensors[i].SummarizeValue(5000) ==
          want->tensors[i].SummarizeValue(5000));
  }
}

TEST_CASE("RecvTensor coding refuses to send a TensorList in chunks") {
  RecvTensorResult value;
  value.tensor = SampleListTensor();
  RecvTensorEncodeOptions options;
  options.content_limit = 0;
  grpc::ByteBuffer buffer;
  CHECK_THAT(EncodeRecvTensorResponse(value, kKey, options, &buffer),
             StatusIs(absl::StatusCode::kInvalidArgument, "chunks"));
}

}  // namespace
}  // namespace dfx

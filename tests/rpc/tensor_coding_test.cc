// Tests of rpc/tensor_coding.h: RecvTensorResponse bytes built over the
// tensor's buffer and read back from any slicing of the bytes, protobuf
// interoperability, chunks, and malformed input.
#include "rpc/tensor_coding.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "catch2/catch.hpp"
#include "grpcpp/support/slice.h"
#include "proto/worker.pb.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

using ::dfx::testing::IsOk;
using ::dfx::testing::StatusIs;

constexpr char kKey[] =
    "/job:a/replica:0/task:0/device:CPU:0;0000000000000001;"
    "/job:b/replica:0/task:0/device:CPU:0;edge_1_x;0:0";

std::string Flatten(const grpc::ByteBuffer& buffer) {
  std::vector<grpc::Slice> slices;
  REQUIRE(buffer.Dump(&slices).ok());
  std::string out;
  for (const grpc::Slice& s : slices) {
    out.append(reinterpret_cast<const char*>(s.begin()), s.size());
  }
  return out;
}

// `bytes` cut into slices of the given sizes, repeated (the last slice
// takes what is left).
grpc::ByteBuffer Sliced(const std::string& bytes,
                        const std::vector<size_t>& sizes) {
  std::vector<grpc::Slice> slices;
  size_t pos = 0;
  for (size_t i = 0; pos < bytes.size(); ++i) {
    const size_t n = std::min(sizes[i % sizes.size()], bytes.size() - pos);
    slices.emplace_back(bytes.data() + pos, n);
    pos += n;
  }
  if (slices.empty()) slices.emplace_back("", 0);
  return grpc::ByteBuffer(slices.data(), slices.size());
}

grpc::ByteBuffer OneSlice(const std::string& bytes) {
  return Sliced(bytes, {bytes.size() + 1});
}

// A uint8 tensor of `n` bytes whose values depend on their position.
Tensor Pattern(int64_t n, int seed = 0) {
  Tensor t(DT_UINT8, TensorShape({n}));
  uint8_t* p = t.data<uint8_t>();
  for (int64_t i = 0; i < n; ++i) {
    p[i] = static_cast<uint8_t>((i * 131 + seed * 7 + (i >> 11)) & 0xff);
  }
  return t;
}

void RequireSameTensor(const Tensor& got, const Tensor& want) {
  REQUIRE(got.dtype() == want.dtype());
  REQUIRE(got.shape() == want.shape());
  if (want.dtype() == DT_STRING) {
    for (int64_t i = 0; i < want.NumElements(); ++i) {
      CHECK(got.data<std::string>()[i] == want.data<std::string>()[i]);
    }
    return;
  }
  REQUIRE(got.TotalBytes() == want.TotalBytes());
  if (want.TotalBytes() > 0) {
    CHECK(std::memcmp(got.raw_data(), want.raw_data(), want.TotalBytes()) ==
          0);
  }
}

RecvTensorResult Value(Tensor t, bool is_dead = false, int64_t micros = 0) {
  RecvTensorResult r;
  r.tensor = std::move(t);
  r.is_dead = is_dead;
  r.send_start_micros = micros;
  return r;
}

grpc::ByteBuffer Encode(const RecvTensorResult& value,
                        const RecvTensorEncodeOptions& options = {}) {
  grpc::ByteBuffer out;
  REQUIRE_OK(EncodeRecvTensorResponse(value, kKey, options, &out));
  return out;
}

// The response of a tensor sent in chunks: its first `content_limit`
// bytes, with TensorChunks{handle, total_bytes} as transport options.
grpc::ByteBuffer EncodeFirstChunk(const Tensor& t, int64_t handle,
                                  int64_t total_bytes, int64_t content_limit) {
  TensorChunks chunks;
  chunks.set_handle(handle);
  chunks.set_total_bytes(total_bytes);
  google::protobuf::Any any;
  any.PackFrom(chunks);
  RecvTensorEncodeOptions options;
  options.content_limit = content_limit;
  options.transport_options = &any;
  return Encode(Value(t), options);
}

DecodedRecvTensor Decode(const grpc::ByteBuffer& buffer) {
  DecodedRecvTensor out;
  REQUIRE_OK(DecodeRecvTensorResponse(buffer, kKey, &out));
  return out;
}

absl::Status DecodeStatus(const grpc::ByteBuffer& buffer) {
  DecodedRecvTensor out;
  return DecodeRecvTensorResponse(buffer, kKey, &out);
}

TEST_CASE("RecvTensor coding round-trips every kind of tensor") {
  Tensor t;
  SECTION("float matrix") {
    t = Tensor::FromVector<float>({1.5f, -2, 3, 4, 5, 6}, TensorShape({2, 3}));
  }
  SECTION("int32 vector") { t = Tensor::FromVector<int32_t>({7, -8, 9}); }
  SECTION("int64 scalar") { t = Tensor::Scalar<int64_t>(int64_t{1} << 40); }
  SECTION("bool") { t = Tensor::FromVector<bool>({true, false, true}); }
  SECTION("double, larger than the inline limit") {
    std::vector<double> v(3000);
    for (size_t i = 0; i < v.size(); ++i) v[i] = 0.25 * static_cast<double>(i);
    t = Tensor::FromVector<double>(v, TensorShape({30, 100}));
  }
  SECTION("empty") { t = Tensor(DT_FLOAT, TensorShape({0, 4})); }
  SECTION("strings") {
    t = Tensor(DT_STRING, TensorShape({3}));
    t.data<std::string>()[0] = "";
    t.data<std::string>()[1] = "a";
    t.data<std::string>()[2] = std::string(5000, 'z');
  }
  const DecodedRecvTensor d = Decode(Encode(Value(t, false, 1234)));
  RequireSameTensor(d.value.tensor, t);
  CHECK_FALSE(d.value.is_dead);
  CHECK(d.value.send_start_micros == 1234);
  CHECK_FALSE(d.chunks.has_value());
  CHECK_FALSE(d.require_ack);
}

TEST_CASE("RecvTensor coding carries is_dead") {
  SECTION("with a value") {
    Tensor t = Tensor::FromVector<float>({1, 2});
    const DecodedRecvTensor d = Decode(Encode(Value(t, true)));
    CHECK(d.value.is_dead);
    RequireSameTensor(d.value.tensor, t);
  }
  SECTION("without a buffer") {
    const DecodedRecvTensor d = Decode(Encode(Value(Tensor(), true)));
    CHECK(d.value.is_dead);
  }
  SECTION("but an uninitialized live tensor is an error") {
    grpc::ByteBuffer out;
    CHECK_THAT(EncodeRecvTensorResponse(Value(Tensor()), kKey, {}, &out),
               StatusIs(absl::StatusCode::kInternal, "edge_1_x"));
  }
}

TEST_CASE("RecvTensor coding puts a big tensor's bytes in a slice over its "
          "buffer") {
  Tensor t = Pattern(100000);
  const long refs_before = t.BufferRefCount();
  {
    grpc::ByteBuffer buffer = Encode(Value(t));
    std::vector<grpc::Slice> slices;
    REQUIRE(buffer.Dump(&slices).ok());
    REQUIRE(slices.size() == 2);
    CHECK(slices[1].begin() == t.raw_data());
    CHECK(slices[1].size() == t.TotalBytes());
    CHECK(slices[0].size() < 64);
    // The slice holds the buffer.
    CHECK(t.BufferRefCount() == refs_before + 1);
  }
  CHECK(t.BufferRefCount() == refs_before);
}

TEST_CASE("RecvTensor coding copies a small tensor into one slice") {
  Tensor t = Pattern(int64_t{kInlineTensorBytes});
  grpc::ByteBuffer buffer = Encode(Value(t));
  std::vector<grpc::Slice> slices;
  REQUIRE(buffer.Dump(&slices).ok());
  CHECK(slices.size() == 1);
  CHECK(t.BufferRefCount() == 1);
  RequireSameTensor(Decode(buffer).value.tensor, t);
}

TEST_CASE("RecvTensor decoding wraps an aligned slice holding the content") {
  Tensor t = Pattern(1 << 20);
  grpc::ByteBuffer buffer = Encode(Value(t));
  const DecodedRecvTensor d = Decode(buffer);
  // In process the content slice is the tensor's own buffer: the decoded
  // tensor views it, and holds it after the message is gone.
  CHECK(d.value.tensor.raw_data() == t.raw_data());
  buffer.Clear();
  RequireSameTensor(d.value.tensor, Pattern(1 << 20));
}

TEST_CASE("RecvTensor decoding copies content that is not aligned") {
  Tensor t = Pattern(5000);
  // The same bytes in one fresh slice: the content starts a few bytes in.
  const DecodedRecvTensor d = Decode(OneSlice(Flatten(Encode(Value(t)))));
  CHECK(d.value.tensor.raw_data() != t.raw_data());
  RequireSameTensor(d.value.tensor, t);
}

TEST_CASE("RecvTensor decoding writes into the receiver's buffer when the "
          "tensor fits it, and leaves any other buffer alone") {
  const Tensor sent = Pattern(6000, 5);
  grpc::ByteBuffer buffer = Encode(Value(sent));
  auto decode_into = [&](const Tensor& destination) {
    DecodedRecvTensor d;
    REQUIRE_OK(DecodeRecvTensorResponse(buffer, kKey, &destination, &d));
    return d.value.tensor;
  };
  SECTION("same dtype and element count: the content lands there, in the "
          "sent shape") {
    Tensor destination(DT_UINT8, TensorShape({2, 3000}));
    const Tensor got = decode_into(destination);
    CHECK(got.raw_data() == destination.raw_data());
    RequireSameTensor(got, sent);
    RequireSameTensor(*destination.Reshaped(TensorShape({6000})), sent);
  }
  SECTION("another element count, another dtype, no buffer") {
    for (const Tensor& destination :
         {Tensor(DT_UINT8, TensorShape({5999})),
          Tensor(DT_INT8, TensorShape({6000})), Tensor()}) {
      const Tensor got = decode_into(destination);
      if (destination.IsInitialized()) {
        CHECK(got.raw_data() != destination.raw_data());
      }
      RequireSameTensor(got, sent);
    }
  }
  SECTION("a first chunk goes there too, the rest is the caller's") {
    buffer = EncodeFirstChunk(sent, 3, 6000, 4096);
    Tensor destination(DT_UINT8, TensorShape({6000}));
    const Tensor got = decode_into(destination);
    CHECK(got.raw_data() == destination.raw_data());
    CHECK(std::memcmp(got.raw_data(), sent.raw_data(), 4096) == 0);
  }
}

TEST_CASE("RecvTensor decoding reads bytes split at awkward offsets") {
  std::vector<float> v(1500);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i) * 0.5f;
  Tensor t = Tensor::FromVector<float>(v, TensorShape({3, 500}));
  google::protobuf::Any extra;
  TensorChunks unrelated;  // transport options travel through
  unrelated.set_handle(9);
  extra.PackFrom(unrelated);
  extra.set_type_url("type.googleapis.com/other.Thing");
  RecvTensorEncodeOptions options;
  options.transport_options = &extra;
  const std::string bytes = Flatten(Encode(Value(t, false, 77), options));
  for (const std::vector<size_t>& sizes :
       std::vector<std::vector<size_t>>{{1}, {2}, {3}, {7}, {13, 1, 4096},
                                        {5, 6000}, {bytes.size() - 1}}) {
    INFO("slice sizes starting " << sizes[0]);
    const DecodedRecvTensor d = Decode(Sliced(bytes, sizes));
    RequireSameTensor(d.value.tensor, t);
    CHECK(d.value.send_start_micros == 77);
    CHECK(d.transport_options.type_url() == "type.googleapis.com/other.Thing");
    CHECK_FALSE(d.chunks.has_value());
  }
}

TEST_CASE("RecvTensor decoding accepts standard protobuf encodings") {
  Tensor t = Tensor::FromVector<int32_t>({1, 2, 3, 4, 5, 6},
                                         TensorShape({2, 3}));
  RecvTensorResponse response;
  response.set_is_dead(true);
  response.set_send_start_micros(99);
  response.set_require_ack(true);

  SECTION("tensor_content, tensor field first") {
    t.AsProtoTensorContent(response.mutable_tensor());
    for (size_t size : {size_t{1}, size_t{4}, size_t{1000}}) {
      const DecodedRecvTensor d =
          Decode(Sliced(response.SerializeAsString(), {size}));
      RequireSameTensor(d.value.tensor, t);
      CHECK(d.value.is_dead);
      CHECK(d.value.send_start_micros == 99);
      CHECK(d.require_ack);
    }
  }
  SECTION("typed values") {
    t.AsProtoField(response.mutable_tensor());
    const DecodedRecvTensor d =
        Decode(Sliced(response.SerializeAsString(), {3}));
    RequireSameTensor(d.value.tensor, t);
    CHECK(d.value.send_start_micros == 99);
  }
  SECTION("content before dtype and shape, scalars after the tensor") {
    // Concatenated messages merge: this orders the fields on the wire.
    TensorProto content, shape, dtype;
    content.set_tensor_content(t.raw_data(), t.TotalBytes());
    t.shape().AsProto(shape.mutable_tensor_shape());
    dtype.set_dtype(DT_INT32);
    const std::string tensor = content.SerializeAsString() +
                               shape.SerializeAsString() +
                               dtype.SerializeAsString();
    RecvTensorResponse head, tail;
    head.mutable_tensor()->ParseFromString(tensor);
    REQUIRE(head.tensor().dtype() == DT_INT32);
    tail.set_send_start_micros(5);
    tail.set_is_dead(true);
    // The tensor field written by hand so its inner order stays.
    std::string bytes = "\x0a";
    bytes.push_back(static_cast<char>(tensor.size()));
    bytes += tensor + tail.SerializeAsString();
    const DecodedRecvTensor d = Decode(Sliced(bytes, {2}));
    RequireSameTensor(d.value.tensor, t);
    CHECK(d.value.send_start_micros == 5);
    CHECK(d.value.is_dead);
  }
}

TEST_CASE("RecvTensor coding sends a big tensor's first chunk, the rest "
          "comes in chunk messages") {
  const int64_t n = 3 * 4096 + 17;
  Tensor t = Pattern(n, 3);
  TensorChunks chunks;
  chunks.set_handle(42);
  chunks.set_total_bytes(n);
  google::protobuf::Any any;
  any.PackFrom(chunks);
  REQUIRE(any.type_url() == kTensorChunksTypeUrl);
  RecvTensorEncodeOptions options;
  options.content_limit = 4096;
  options.transport_options = &any;
  DecodedRecvTensor d = Decode(Sliced(Flatten(Encode(Value(t), options)),
                                      {100, 33}));
  REQUIRE(d.chunks.has_value());
  CHECK(d.chunks->handle() == 42);
  CHECK(d.chunks->total_bytes() == n);
  CHECK(d.content_bytes == 4096);
  Tensor& got = d.value.tensor;
  REQUIRE(got.shape() == t.shape());
  CHECK(std::memcmp(got.raw_data(), t.raw_data(), 4096) == 0);

  for (int64_t offset = 4096; offset < n; offset += 4096) {
    const int64_t length = std::min<int64_t>(4096, n - offset);
    grpc::ByteBuffer chunk = EncodeTensorChunk(t, offset, length);
    std::vector<grpc::Slice> slices;
    REQUIRE(chunk.Dump(&slices).ok());
    if (length > static_cast<int64_t>(kInlineTensorBytes)) {
      REQUIRE(slices.size() == 2);
      CHECK(slices[1].begin() ==
            static_cast<const uint8_t*>(t.raw_data()) + offset);
    }
    // Standard protobuf reads it too.
    RecvTensorChunkResponse parsed;
    REQUIRE(parsed.ParseFromString(Flatten(chunk)));
    CHECK(parsed.data().size() == static_cast<size_t>(length));
    REQUIRE_OK(DecodeTensorChunk(Sliced(Flatten(chunk), {7}), kKey, offset,
                                 length, &got));
  }
  RequireSameTensor(got, t);
}

TEST_CASE("RecvTensor coding refuses what it cannot encode") {
  grpc::ByteBuffer out;
  Tensor t = Pattern(100);
  RecvTensorEncodeOptions options;
  SECTION("a content limit past the tensor") {
    options.content_limit = 101;
    CHECK_THAT(EncodeRecvTensorResponse(Value(t), kKey, options, &out),
               StatusIs(absl::StatusCode::kInvalidArgument, "edge_1_x"));
  }
  SECTION("strings in chunks") {
    Tensor s(DT_STRING, TensorShape({2}));
    options.content_limit = 1;
    CHECK_THAT(EncodeRecvTensorResponse(Value(s), kKey, options, &out),
               StatusIs(absl::StatusCode::kInvalidArgument, "chunks"));
  }
  SECTION("a message over 2 GiB") {
    // Never touched: the size is refused before any byte is read.
    Tensor big(DT_UINT8, TensorShape({int64_t{1} << 31}));
    CHECK_THAT(EncodeRecvTensorResponse(Value(big), kKey, options, &out),
               StatusIs(absl::StatusCode::kResourceExhausted, "2147483648"));
  }
}

TEST_CASE("RecvTensor decoding rejects malformed responses, naming the key") {
  Tensor t = Pattern(4000);
  const std::string good = Flatten(Encode(Value(t)));
  RecvTensorResponse response;
  std::string bytes;

  SECTION("truncated") { bytes = good.substr(0, good.size() - 100); }
  SECTION("garbage") { bytes = "\xff\xff\xff\xff"; }
  SECTION("no tensor") { bytes = ""; }
  SECTION("a bad dtype") {
    Tensor::FromVector<float>({1, 2}).AsProtoTensorContent(
        response.mutable_tensor());
    response.mutable_tensor()->set_dtype(static_cast<DataType>(999));
    bytes = response.SerializeAsString();
  }
  SECTION("a reference dtype") {
    Tensor::FromVector<float>({1, 2}).AsProtoTensorContent(
        response.mutable_tensor());
    response.mutable_tensor()->set_dtype(DT_FLOAT_REF);
    bytes = response.SerializeAsString();
  }
  SECTION("content not matching the shape") {
    Tensor::FromVector<float>({1, 2, 3, 4}).AsProtoTensorContent(
        response.mutable_tensor());
    response.mutable_tensor()->mutable_tensor_content()->resize(12);
    bytes = response.SerializeAsString();
  }
  SECTION("a negative dim") {
    Tensor::FromVector<float>({1, 2}).AsProtoTensorContent(
        response.mutable_tensor());
    response.mutable_tensor()->mutable_tensor_shape()->mutable_dim(0)->set_size(
        -2);
    bytes = response.SerializeAsString();
  }
  SECTION("chunks whose total is not the tensor's size") {
    bytes = Flatten(EncodeFirstChunk(t, 1, 3999, 2000));
  }
  SECTION("a partial content without chunks") {
    RecvTensorEncodeOptions options;
    options.content_limit = 2000;
    bytes = Flatten(Encode(Value(t), options));
  }
  CHECK_THAT(DecodeStatus(Sliced(bytes, {5})),
             StatusIs(absl::StatusCode::kInvalidArgument, "edge_1_x"));
}

TEST_CASE("RecvTensor chunk decoding rejects a wrong or truncated chunk") {
  Tensor t = Pattern(8000);
  Tensor into(DT_UINT8, TensorShape({8000}));
  const std::string chunk = Flatten(EncodeTensorChunk(t, 1000, 3000));
  CHECK_THAT(DecodeTensorChunk(OneSlice(chunk), kKey, 1000, 2999, &into),
             StatusIs(absl::StatusCode::kInvalidArgument, "edge_1_x"));
  CHECK_THAT(DecodeTensorChunk(OneSlice(chunk.substr(0, 2000)), kKey, 1000,
                               3000, &into),
             StatusIs(absl::StatusCode::kInvalidArgument, "truncated"));
  CHECK_THAT(DecodeTensorChunk(OneSlice(""), kKey, 1000, 3000, &into),
             StatusIs(absl::StatusCode::kInvalidArgument, "no data"));
  CHECK_THAT(DecodeTensorChunk(Sliced(chunk, {1}), kKey, 1000, 3000, &into),
             IsOk());
  CHECK(std::memcmp(static_cast<const char*>(into.raw_data()) + 1000,
                    static_cast<const char*>(t.raw_data()) + 1000, 3000) == 0);
}

}  // namespace
}  // namespace dfx

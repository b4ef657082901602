// Fuzzes what a process does with tensor bytes from outside: a TensorProto
// (Const values, feeds, RunGraph/RunStep tensors) through
// Tensor::FromProto, and what a receiver does with a peer's RecvTensor
// response and chunk bytes (rpc/tensor_coding.h).
//
// Input: one mode byte, one slicing byte, then the message.
//   mode % 3 == 0: TensorProto -> Tensor::FromProto; a tensor that decodes
//                  (up to 64 MiB) must survive AsProtoTensorContent ->
//                  FromProto unchanged.
//   mode % 3 == 1: RecvTensorResponse -> DecodeRecvTensorResponse; a whole
//                  memcpy-able tensor that decodes (up to 64 MiB) must
//                  survive EncodeRecvTensorResponse -> Decode unchanged.
//   mode % 3 == 2: RecvTensorChunkResponse -> DecodeTensorChunk into a
//                  64-byte tensor at an offset and length from the mode byte.
// The slicing byte cuts the message into gRPC slices of (byte % 64) + 1
// bytes (0: one slice), as the network may deliver them.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "base/logging.h"
#include "graph/types.h"
#include "grpcpp/support/slice.h"
#include "proto/tensor.pb.h"
#include "proto/worker.pb.h"
#include "rpc/tensor_coding.h"
#include "runtime/tensor.h"

namespace dfx {
namespace {

constexpr char kKey[] =
    "/job:a/replica:0/task:0/device:CPU:0;0000000000000001;"
    "/job:b/replica:0/task:0/device:CPU:0;edge_1_x;0:0";

grpc::ByteBuffer Sliced(const std::string& bytes, uint8_t slicing) {
  std::vector<grpc::Slice> slices;
  const size_t step = slicing == 0 ? bytes.size() + 1 : (slicing % 64) + 1;
  for (size_t pos = 0; pos < bytes.size(); pos += step) {
    slices.emplace_back(bytes.data() + pos, std::min(step, bytes.size() - pos));
  }
  if (slices.empty()) slices.emplace_back("", 0);
  return grpc::ByteBuffer(slices.data(), slices.size());
}

// String tensors are skipped past this many elements. A short string_val
// list is padded to the shape (as in TensorFlow), one std::string per
// element on the heap outside the tensor allocator: a 128-byte proto
// declaring 61^4 strings takes 27 s under ASan. That is memory and time a
// peer can make a receiver spend, a known limit (docs/reliability.md),
// not something the decoder can refuse.
constexpr int64_t kMaxStringElements = int64_t{1} << 20;

constexpr size_t kMaxRoundTripBytes = size_t{64} << 20;

bool TooManyStrings(const TensorProto& proto) {
  if (proto.dtype() != DT_STRING) return false;
  int64_t n = 1;
  for (const auto& dim : proto.tensor_shape().dim()) {
    if (dim.size() < 0) return false;  // refused by FromProto
    if (__builtin_mul_overflow(n, dim.size(), &n)) return true;
  }
  return n > kMaxStringElements;
}

bool SameBytes(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || !(a.shape() == b.shape())) return false;
  if (a.TotalBytes() != b.TotalBytes()) return false;
  return a.TotalBytes() == 0 ||
         std::memcmp(a.raw_data(), b.raw_data(), a.TotalBytes()) == 0;
}

void FuzzTensorProto(const std::string& bytes) {
  TensorProto proto;
  if (!proto.ParseFromString(bytes) || TooManyStrings(proto)) return;
  absl::StatusOr<Tensor> tensor = Tensor::FromProto(proto);
  if (!tensor.ok()) return;
  // The round trip holds the tensor three times: only for small ones, so
  // that a tensor under the 1 GiB allocation limit does not pass libFuzzer's
  // 2 GiB RSS limit.
  if (!DataTypeCanMemcpy(tensor->dtype()) ||
      tensor->TotalBytes() > kMaxRoundTripBytes) {
    return;
  }
  TensorProto again;
  tensor->AsProtoTensorContent(&again);
  absl::StatusOr<Tensor> back = Tensor::FromProto(again);
  DFX_CHECK(back.ok());
  DFX_CHECK(SameBytes(*tensor, *back));
}

void FuzzRecvTensor(const std::string& bytes, uint8_t slicing) {
  RecvTensorResponse parsed;
  if (parsed.ParseFromString(bytes) && TooManyStrings(parsed.tensor())) return;
  DecodedRecvTensor decoded;
  if (!DecodeRecvTensorResponse(Sliced(bytes, slicing), kKey, &decoded).ok()) {
    return;
  }
  const Tensor& t = decoded.value.tensor;
  if (decoded.chunks || decoded.bulk || !t.IsInitialized() ||
      !DataTypeCanMemcpy(t.dtype()) || t.TotalBytes() > kMaxRoundTripBytes) {
    return;
  }
  grpc::ByteBuffer encoded;
  DFX_CHECK(EncodeRecvTensorResponse(decoded.value, kKey, {}, &encoded).ok());
  DecodedRecvTensor again;
  DFX_CHECK(DecodeRecvTensorResponse(encoded, kKey, &again).ok());
  DFX_CHECK(SameBytes(t, again.value.tensor));
  DFX_CHECK(again.value.is_dead == decoded.value.is_dead);
}

void FuzzChunk(const std::string& bytes, uint8_t mode, uint8_t slicing) {
  Tensor tensor(DT_UINT8, TensorShape({64}));
  std::memset(tensor.raw_data(), 0, 64);
  const int64_t offset = (mode >> 2) % 64;
  const int64_t length = (slicing * 7) % (64 - offset + 1);
  DecodeTensorChunk(Sliced(bytes, slicing), kKey, offset, length, &tensor)
      .IgnoreError();
}

}  // namespace
}  // namespace dfx

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const uint8_t mode = data[0];
  const uint8_t slicing = data[1];
  const std::string bytes(reinterpret_cast<const char*>(data + 2), size - 2);
  switch (mode % 3) {
    case 0: dfx::FuzzTensorProto(bytes); break;
    case 1: dfx::FuzzRecvTensor(bytes, slicing); break;
    default: dfx::FuzzChunk(bytes, mode, slicing); break;
  }
  return 0;
}

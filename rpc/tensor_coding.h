// RecvTensorResponse and RecvTensorChunkResponse as raw grpc::ByteBuffers,
// built over the tensor's own buffer and read straight into a tensor: the
// tensor's bytes are never copied into a protobuf message or a string.
//
// The bytes are ordinary protobuf (any protobuf parser, TensorFlow's
// included, reads them), laid out as TensorFlow's sender lays them out:
// is_dead, send_start_micros and transport_options first, then field 1
// (tensor) holding dtype, tensor_shape and tensor_content, whose bytes are
// a slice of their own that references the tensor's buffer.
#ifndef DFX_RPC_TENSOR_CODING_H_
#define DFX_RPC_TENSOR_CODING_H_

#include <cstddef>
#include <cstdint>
#include <optional>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/any.pb.h"
#include "grpcpp/support/byte_buffer.h"
#include "proto/dfx_worker_service.pb.h"
#include "runtime/tensor.h"
#include "worker/worker_interface.h"

namespace dfx {

// Tensor content up to this size is copied into the message's first slice;
// larger content gets a slice of its own over the tensor's buffer.
inline constexpr size_t kInlineTensorBytes = 1024;

// The largest message gRPC carries (its length is a signed 32-bit number).
inline constexpr int64_t kMaxGrpcMessageBytes = 2147483647;

// Type URLs of dfx's transport options (google.protobuf.Any).
inline constexpr char kRecvTensorTransportTypeUrl[] =
    "type.googleapis.com/dfx.RecvTensorTransport";
inline constexpr char kTensorChunksTypeUrl[] =
    "type.googleapis.com/dfx.TensorChunks";
inline constexpr char kBulkTensorTypeUrl[] =
    "type.googleapis.com/dfx.BulkTensor";

struct RecvTensorEncodeOptions {
  // Puts only the first `content_limit` bytes of the tensor's content in
  // the response (the first chunk of a chunked transfer); -1: all of it.
  // Only for memcpy-able dtypes.
  int64_t content_limit = -1;
  // Set as the response's transport_options when not null (borrowed for
  // the call).
  const google::protobuf::Any* transport_options = nullptr;
  // When not null (borrowed for the call): the content's bytes are read
  // from this host tensor's buffer, from `content_offset` on, instead of
  // the tensor's own (a device tensor whose first chunk was staged); the
  // slice then keeps it alive. REQUIRES: memcpy-able, holding the bytes.
  const Tensor* content_from = nullptr;
  uint64_t content_offset = 0;
};

// Encodes RecvTensorResponse{tensor, is_dead, send_start_micros,
// transport_options} of `value` into `out`. Memcpy-able dtypes: the content
// slice references the tensor's buffer and keeps it alive (a Tensor copy
// held by the slice) until gRPC drops the slice; content of at most
// kInlineTensorBytes is copied into the one slice instead. Other dtypes
// (strings) go through the protobuf serializer. A dead tensor without a
// buffer travels as dtype and shape only.
//
// Errors, each naming `key`: ResourceExhausted when the message would pass
// kMaxGrpcMessageBytes (the message says how big the tensor is);
// InvalidArgument for a content_limit outside [0, TotalBytes()] or on a
// dtype that is not memcpy-able; Internal for an uninitialized tensor that
// is not dead.
absl::Status EncodeRecvTensorResponse(const RecvTensorResult& value,
                                      absl::string_view key,
                                      const RecvTensorEncodeOptions& options,
                                      grpc::ByteBuffer* out);

// A RecvTensorResponse read from the wire.
struct DecodedRecvTensor {
  // The tensor at its full size, is_dead and send_start_micros.
  RecvTensorResult value;
  bool require_ack = false;
  // transport_options as received (empty type_url when none).
  google::protobuf::Any transport_options;
  // Set when transport_options hold dfx.TensorChunks: the response carried
  // only the first `content_bytes` of the tensor's content; the rest of
  // value.tensor's buffer is uninitialized until the chunks fill it.
  std::optional<TensorChunks> chunks;
  // Set when transport_options hold dfx.BulkTensor: as for chunks, the
  // response carried only the first `content_bytes` (usually none); the
  // rest waits on the sender's bulk server.
  std::optional<BulkTensor> bulk;
  int64_t content_bytes = 0;
};

// Decodes a RecvTensorResponse by walking the protobuf wire format across
// the buffer's slices: any field order, unknown fields skipped, and a plain
// protobuf parse + Tensor::FromProto for anything the walk does not expect
// (typed *_val fields, strings, groups). The content goes straight into
// the tensor's buffer; when it lies in one slice at a 64-byte aligned
// address, the tensor wraps that slice instead (no copy; the tensor holds
// a reference to the slice).
//
// Errors name `key`: InvalidArgument for a malformed or truncated message,
// a bad dtype or shape, or content whose size is not the shape's (unless
// the message says it is the first chunk or a bulk tensor, whose
// total_bytes must then be the shape's); ResourceExhausted when the
// tensor cannot be allocated.
absl::Status DecodeRecvTensorResponse(const grpc::ByteBuffer& buffer,
                                      absl::string_view key,
                                      DecodedRecvTensor* out);
// The same, with the receiver's buffer for the tensor: when `destination`
// (may be null) has the received tensor's dtype and element count and it
// is bigger than kInlineTensorBytes, the content goes into its buffer and
// value.tensor shares that buffer (in the sent shape), instead of a new
// tensor or a view of the message. Otherwise `destination` is ignored.
absl::Status DecodeRecvTensorResponse(const grpc::ByteBuffer& buffer,
                                      absl::string_view key,
                                      const Tensor* destination,
                                      DecodedRecvTensor* out);

// Encodes RecvTensorChunkResponse{data = the tensor's content bytes
// [offset, offset + length)} with the bytes as a slice over the tensor's
// buffer (copied when at most kInlineTensorBytes).
// REQUIRES: memcpy-able dtype, 0 <= offset <= offset + length <=
// TotalBytes(), length < kMaxGrpcMessageBytes - 16.
grpc::ByteBuffer EncodeTensorChunk(const Tensor& tensor, int64_t offset,
                                   int64_t length);

// Copies the data of a RecvTensorChunkResponse into `tensor`'s content at
// [offset, offset + length). InvalidArgument naming `key` when the message
// is malformed or its data is not exactly `length` bytes.
// REQUIRES: memcpy-able dtype, the range inside tensor->TotalBytes().
absl::Status DecodeTensorChunk(const grpc::ByteBuffer& buffer,
                               absl::string_view key, int64_t offset,
                               int64_t length, Tensor* tensor);

}  // namespace dfx

#endif  // DFX_RPC_TENSOR_CODING_H_

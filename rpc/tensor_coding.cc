#include "rpc/tensor_coding.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/types.h"
#include "grpcpp/support/slice.h"
#include "proto/worker.pb.h"
#include "rpc/grpc_util.h"

namespace dfx {
namespace {

// Wire types and the tags the encoder writes.
constexpr int kVarint = 0;
constexpr int kFixed64 = 1;
constexpr int kLengthDelimited = 2;
constexpr int kFixed32 = 5;

constexpr uint8_t Tag(int field, int wire_type) {
  return static_cast<uint8_t>((field << 3) | wire_type);
}

// RecvTensorResponse fields.
constexpr int kResponseTensor = 1;
constexpr int kResponseIsDead = 2;
constexpr int kResponseSendStartMicros = 3;
constexpr int kResponseTransportOptions = 4;
constexpr int kResponseRequireAck = 5;
// TensorProto fields the fast path reads.
constexpr int kTensorDtype = 1;
constexpr int kTensorShape = 2;
constexpr int kTensorVersion = 3;
constexpr int kTensorContent = 4;
// RecvTensorChunkResponse.data.
constexpr int kChunkData = 1;

// Sub-messages the walk copies out (shapes, transport options) are small;
// a bigger one is something the protobuf parser should judge.
constexpr uint64_t kMaxSmallField = 64 * 1024;

constexpr size_t kZeroCopyAlignment = kAllocatorAlignment;

void PutVarint(std::string* out, uint64_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

size_t VarintLength(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

void PutLengthDelimitedHeader(std::string* out, int field, uint64_t length) {
  out->push_back(static_cast<char>(Tag(field, kLengthDelimited)));
  PutVarint(out, length);
}

// A slice over bytes [offset, offset + length) of `tensor`'s buffer. The
// slice owns a Tensor copy, so the buffer lives until gRPC drops the slice
// (on whichever thread that happens).
grpc::Slice SliceOverTensor(const Tensor& tensor, size_t offset,
                            size_t length) {
  auto* holder = new Tensor(tensor);
  char* base = static_cast<char*>(const_cast<void*>(tensor.raw_data()));
  return grpc::Slice(
      base + offset, length,
      [](void* user_data) { delete static_cast<Tensor*>(user_data); }, holder);
}

grpc::ByteBuffer MakeByteBuffer(const std::string& header,
                                std::optional<grpc::Slice> content) {
  grpc::Slice slices[2] = {grpc::Slice(header), grpc::Slice()};
  size_t n = 1;
  if (content.has_value()) slices[n++] = std::move(*content);
  return grpc::ByteBuffer(slices, n);
}

absl::Status MessageTooBig(absl::string_view key, const Tensor& tensor,
                           int64_t message_bytes) {
  return absl::ResourceExhaustedError(absl::StrCat(
      "RecvTensor of '", key, "': the ", DataTypeString(tensor.dtype()),
      " tensor of shape ", tensor.shape().DebugString(), " (",
      tensor.TotalBytes(), " bytes) needs a ", message_bytes,
      "-byte response, over gRPC's limit of ", kMaxGrpcMessageBytes,
      " bytes; a dfx receiver fetches it in chunks, a TensorFlow one cannot"));
}

// Strings and other dtypes without a flat buffer: the protobuf way.
absl::Status EncodeWithProtobuf(const RecvTensorResult& value,
                                absl::string_view key,
                                const RecvTensorEncodeOptions& options,
                                grpc::ByteBuffer* out) {
  if (options.content_limit >= 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "RecvTensor of '", key, "': a ", DataTypeString(value.tensor.dtype()),
        " tensor cannot be sent in chunks"));
  }
  RecvTensorResponse response;
  if (value.tensor.IsInitialized()) {
    value.tensor.AsProtoTensorContent(response.mutable_tensor());
  } else {
    response.mutable_tensor()->set_dtype(value.tensor.dtype());
    value.tensor.shape().AsProto(
        response.mutable_tensor()->mutable_tensor_shape());
  }
  response.set_is_dead(value.is_dead);
  response.set_send_start_micros(value.send_start_micros);
  if (options.transport_options != nullptr) {
    *response.mutable_transport_options() = *options.transport_options;
  }
  const size_t bytes = response.ByteSizeLong();
  if (bytes > static_cast<size_t>(kMaxGrpcMessageBytes)) {
    return MessageTooBig(key, value.tensor, static_cast<int64_t>(bytes));
  }
  *out = SerializeToByteBuffer(response);
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------
// Reading the wire format across slices.

class WireReader {
 public:
  WireReader() = default;
  explicit WireReader(const std::vector<grpc::Slice>* slices)
      : slices_(slices) {
    for (const grpc::Slice& s : *slices) end_ += s.size();
  }

  size_t remaining() const { return end_ - pos_; }

  bool ReadVarint(uint64_t* v) {
    uint64_t result = 0;
    for (int i = 0; i < 10; ++i) {
      uint8_t byte;
      if (!ReadByte(&byte)) return false;
      if (i == 9 && byte > 1) return false;  // more than 64 bits
      result |= static_cast<uint64_t>(byte & 0x7f) << (7 * i);
      if ((byte & 0x80) == 0) {
        *v = result;
        return true;
      }
    }
    return false;
  }

  bool Skip(uint64_t n) {
    if (n > remaining()) return false;
    while (n > 0) {
      Normalize();
      const size_t take = std::min<uint64_t>(n, Current().size() - off_);
      off_ += take;
      pos_ += take;
      n -= take;
    }
    return true;
  }

  bool CopyTo(void* dst, uint64_t n) {
    if (n > remaining()) return false;
    char* out = static_cast<char*>(dst);
    while (n > 0) {
      Normalize();
      const size_t take = std::min<uint64_t>(n, Current().size() - off_);
      std::memcpy(out, Current().begin() + off_, take);
      out += take;
      off_ += take;
      pos_ += take;
      n -= take;
    }
    return true;
  }

  // Moves the next `n` bytes into a reader of their own.
  bool Split(uint64_t n, WireReader* sub) {
    if (n > remaining()) return false;
    *sub = *this;
    sub->end_ = pos_ + n;
    return Skip(n);
  }

  // The slice holding all of the next `n` (> 0) bytes, and their offset in
  // it; null when they span slices.
  const grpc::Slice* Contiguous(uint64_t n, size_t* offset) {
    if (n == 0 || n > remaining()) return nullptr;
    Normalize();
    if (Current().size() - off_ < n) return nullptr;
    *offset = off_;
    return &Current();
  }

  // Skips a field of `wire_type` whose tag was read; false for groups and
  // unknown wire types.
  bool SkipField(int wire_type) {
    uint64_t v;
    switch (wire_type) {
      case kVarint: return ReadVarint(&v);
      case kFixed64: return Skip(8);
      case kLengthDelimited: return ReadVarint(&v) && Skip(v);
      case kFixed32: return Skip(4);
      default: return false;
    }
  }

  // Reads a tag; false at a malformed one (field 0, overlong).
  bool ReadTag(int* field, int* wire_type) {
    uint64_t tag;
    if (!ReadVarint(&tag) || tag > 0xffffffffu || (tag >> 3) == 0) {
      return false;
    }
    *field = static_cast<int>(tag >> 3);
    *wire_type = static_cast<int>(tag & 7);
    return true;
  }

  bool ReadSmallBytes(std::string* out) {
    uint64_t n;
    if (!ReadVarint(&n) || n > kMaxSmallField || n > remaining()) {
      return false;
    }
    out->resize(n);
    return CopyTo(out->data(), n);
  }

 private:
  const grpc::Slice& Current() const { return (*slices_)[idx_]; }
  // Steps over exhausted (and empty) slices. REQUIRES: remaining() > 0.
  void Normalize() {
    while (off_ == (*slices_)[idx_].size()) {
      ++idx_;
      off_ = 0;
    }
  }
  bool ReadByte(uint8_t* byte) {
    if (remaining() == 0) return false;
    Normalize();
    *byte = Current().begin()[off_];
    ++off_;
    ++pos_;
    return true;
  }

  const std::vector<grpc::Slice>* slices_ = nullptr;
  size_t idx_ = 0;  // current slice
  size_t off_ = 0;  // offset in the current slice
  size_t pos_ = 0;  // bytes consumed from the start of the buffer
  size_t end_ = 0;  // where this reader stops
};

// What the walk found in a RecvTensorResponse.
struct ResponseParts {
  bool has_tensor = false;
  WireReader tensor;
  bool is_dead = false;
  int64_t send_start_micros = 0;
  bool require_ack = false;
  google::protobuf::Any transport_options;
};

struct TensorParts {
  uint64_t dtype = 0;
  TensorShapeProto shape;
  bool has_content = false;
  WireReader content;
  uint64_t content_bytes = 0;
};

// False sends the caller to the protobuf parser.
bool ScanResponse(WireReader in, ResponseParts* parts) {
  bool has_transport = false;
  while (in.remaining() > 0) {
    int field, wire_type;
    if (!in.ReadTag(&field, &wire_type)) return false;
    uint64_t v;
    switch (field) {
      case kResponseTensor:
        // Two tensor fields would merge; let protobuf do that.
        if (wire_type != kLengthDelimited || parts->has_tensor) return false;
        if (!in.ReadVarint(&v) || !in.Split(v, &parts->tensor)) return false;
        parts->has_tensor = true;
        break;
      case kResponseIsDead:
        if (wire_type != kVarint || !in.ReadVarint(&v)) return false;
        parts->is_dead = v != 0;
        break;
      case kResponseSendStartMicros:
        if (wire_type != kVarint || !in.ReadVarint(&v)) return false;
        parts->send_start_micros = static_cast<int64_t>(v);
        break;
      case kResponseTransportOptions: {
        if (wire_type != kLengthDelimited || has_transport) return false;
        std::string bytes;
        if (!in.ReadSmallBytes(&bytes) ||
            !parts->transport_options.ParseFromString(bytes)) {
          return false;
        }
        has_transport = true;
        break;
      }
      case kResponseRequireAck:
        if (wire_type != kVarint || !in.ReadVarint(&v)) return false;
        parts->require_ack = v != 0;
        break;
      default:
        if (!in.SkipField(wire_type)) return false;
    }
  }
  return true;
}

bool ScanTensor(WireReader in, TensorParts* parts) {
  bool has_shape = false;
  while (in.remaining() > 0) {
    int field, wire_type;
    if (!in.ReadTag(&field, &wire_type)) return false;
    uint64_t v;
    switch (field) {
      case kTensorDtype:
        if (wire_type != kVarint || !in.ReadVarint(&v)) return false;
        parts->dtype = v;
        break;
      case kTensorShape: {
        if (wire_type != kLengthDelimited || has_shape) return false;
        std::string bytes;
        if (!in.ReadSmallBytes(&bytes) ||
            !parts->shape.ParseFromString(bytes)) {
          return false;
        }
        has_shape = true;
        break;
      }
      case kTensorVersion:
        if (wire_type != kVarint || !in.ReadVarint(&v)) return false;
        break;
      case kTensorContent:
        if (wire_type != kLengthDelimited || parts->has_content) return false;
        if (!in.ReadVarint(&v) || !in.Split(v, &parts->content)) return false;
        parts->has_content = true;
        parts->content_bytes = v;
        break;
      default:
        // Typed values, resource handles, variants: Tensor::FromProto.
        return false;
    }
  }
  return true;
}

absl::Status Malformed(absl::string_view key, absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("malformed RecvTensor response for '", key, "': ", what));
}

// The chunk or bulk description in `transport_options`, if any.
absl::Status ReadTransport(const google::protobuf::Any& transport_options,
                           absl::string_view key, DecodedRecvTensor* out) {
  out->chunks.reset();
  out->bulk.reset();
  if (transport_options.type_url() == kTensorChunksTypeUrl) {
    TensorChunks c;
    if (!transport_options.UnpackTo(&c)) {
      return Malformed(key, "transport_options hold a bad dfx.TensorChunks");
    }
    out->chunks = c;
  } else if (transport_options.type_url() == kBulkTensorTypeUrl) {
    BulkTensor b;
    if (!transport_options.UnpackTo(&b)) {
      return Malformed(key, "transport_options hold a bad dfx.BulkTensor");
    }
    out->bulk = b;
  }
  return absl::OkStatus();
}

// The total a partial response declares (chunks or bulk), if any.
std::optional<int64_t> DeclaredTotal(const DecodedRecvTensor& decoded) {
  if (decoded.chunks.has_value()) return decoded.chunks->total_bytes();
  if (decoded.bulk.has_value()) return decoded.bulk->total_bytes();
  return std::nullopt;
}

bool IsFlatDtype(DataType dtype) {
  return DataType_IsValid(dtype) && !IsRefType(dtype) &&
         DataTypeCanMemcpy(dtype);
}

// Where the content bytes come from: the wire, or a parsed proto.
struct ContentSource {
  WireReader* wire = nullptr;
  absl::string_view bytes;
  uint64_t size = 0;
};

// Builds the tensor of a memcpy-able dtype from its parts, checking sizes.
// `partial_total`: set when the response carries only the first part of
// the content (chunks, bulk), to the total it declares.
// `destination` (may be null): see DecodeRecvTensorResponse.
absl::Status BuildTensor(DataType dtype, const TensorShapeProto& shape_proto,
                         ContentSource content, bool is_dead,
                         std::optional<int64_t> partial_total,
                         const Tensor* destination, absl::string_view key,
                         Tensor* out) {
  absl::StatusOr<TensorShape> shape = TensorShape::FromProto(shape_proto);
  if (!shape.ok()) return Malformed(key, shape.status().message());
  const int64_t n = shape->num_elements();
  const int64_t elem = DataTypeSize(dtype);
  if (n > INT64_MAX / elem) {
    return Malformed(
        key, absl::StrCat("a ", DataTypeString(dtype), " tensor of shape ",
                          shape->DebugString(), " is too big"));
  }
  const uint64_t total = static_cast<uint64_t>(n * elem);
  if (partial_total.has_value()) {
    if (*partial_total < 0 || static_cast<uint64_t>(*partial_total) != total ||
        content.size > total) {
      return Malformed(
          key, absl::StrCat("the transport options say ", *partial_total,
                            " bytes and ", content.size, " came first, but a ",
                            DataTypeString(dtype), " tensor of shape ",
                            shape->DebugString(), " has ", total));
    }
  } else if (content.size != total) {
    if (is_dead && content.size == 0) {
      // A dead tensor carries no value; receivers never read it.
      *out = Tensor();
      return absl::OkStatus();
    }
    return Malformed(
        key, absl::StrCat("tensor_content has ", content.size, " bytes, but a ",
                          DataTypeString(dtype), " tensor of shape ",
                          shape->DebugString(), " needs ", total));
  }

  // Zero copy: the tensor views the received slice (when gRPC happened to
  // put the content in one suitably aligned slice, or the message never
  // left the process).
  // The receiver's buffer, when it has one for this tensor: the bytes are
  // copied once anyway, there rather than into a new tensor.
  const bool into_destination =
      destination != nullptr && destination->IsInitialized() &&
      destination->dtype() == dtype && destination->NumElements() == n &&
      total > kInlineTensorBytes;
  if (!into_destination && !partial_total.has_value() &&
      content.wire != nullptr && total > kInlineTensorBytes) {
    size_t offset = 0;
    const grpc::Slice* slice = content.wire->Contiguous(total, &offset);
    if (slice != nullptr) {
      auto* data = const_cast<uint8_t*>(slice->begin() + offset);
      if (reinterpret_cast<uintptr_t>(data) % kZeroCopyAlignment == 0) {
        *out = Tensor::FromExternal(dtype, *shape, data, total,
                                    [held = *slice] {});
        return absl::OkStatus();
      }
    }
  }

  absl::StatusOr<Tensor> t = into_destination
                                 ? destination->Reshaped(*shape)
                                 : Tensor::Allocate(CpuAllocator(), dtype,
                                                    *shape);
  if (!t.ok()) {
    return absl::Status(
        t.status().code(),
        absl::StrCat("RecvTensor of '", key, "': ", t.status().message()));
  }
  if (content.size > 0) {
    if (content.wire != nullptr) {
      if (!content.wire->CopyTo(t->raw_data(), content.size)) {
        return Malformed(key, "tensor_content is truncated");
      }
    } else {
      std::memcpy(t->raw_data(), content.bytes.data(), content.size);
    }
  }
  *out = *std::move(t);
  return absl::OkStatus();
}

// The fast path; false when the bytes need the protobuf parser.
bool DecodeFast(const std::vector<grpc::Slice>& slices, absl::string_view key,
                const Tensor* destination, DecodedRecvTensor* out,
                absl::Status* status) {
  ResponseParts parts;
  TensorParts tensor;
  if (!ScanResponse(WireReader(&slices), &parts) || !parts.has_tensor ||
      !ScanTensor(parts.tensor, &tensor)) {
    return false;
  }
  if (tensor.dtype > 0x7fffffff) return false;
  const DataType dtype = static_cast<DataType>(tensor.dtype);
  if (!IsFlatDtype(dtype)) return false;

  out->value.is_dead = parts.is_dead;
  out->value.send_start_micros = parts.send_start_micros;
  out->require_ack = parts.require_ack;
  out->transport_options = std::move(parts.transport_options);
  *status = ReadTransport(out->transport_options, key, out);
  if (!status->ok()) return true;
  ContentSource content;
  content.wire = tensor.has_content ? &tensor.content : nullptr;
  content.size = tensor.content_bytes;
  *status = BuildTensor(dtype, tensor.shape, content, parts.is_dead,
                        DeclaredTotal(*out), destination, key,
                        &out->value.tensor);
  out->content_bytes = static_cast<int64_t>(tensor.content_bytes);
  return true;
}

absl::Status DecodeSlow(const grpc::ByteBuffer& buffer, absl::string_view key,
                        const Tensor* destination, DecodedRecvTensor* out) {
  RecvTensorResponse response;
  grpc::ByteBuffer copy(buffer);  // shares the slices
  if (copy.Valid()) {
    absl::Status s =
        ParseFromByteBuffer(&copy, &response, "RecvTensorResponse");
    if (!s.ok()) return Malformed(key, s.message());
  }
  out->value.is_dead = response.is_dead();
  out->value.send_start_micros = response.send_start_micros();
  out->require_ack = response.require_ack();
  out->transport_options = response.transport_options();
  DFX_RETURN_IF_ERROR(ReadTransport(out->transport_options, key, out));
  const TensorProto& proto = response.tensor();
  const DataType dtype = proto.dtype();
  if (!DataType_IsValid(dtype) || dtype == DT_INVALID || IsRefType(dtype)) {
    return Malformed(key, absl::StrCat("bad dtype ", DataTypeString(dtype)));
  }
  const std::string& bytes = proto.tensor_content();
  out->content_bytes = static_cast<int64_t>(bytes.size());
  if (const std::optional<int64_t> total = DeclaredTotal(*out)) {
    if (!IsFlatDtype(dtype)) {
      return Malformed(key, absl::StrCat("a ", DataTypeString(dtype),
                                         " tensor cannot come in pieces"));
    }
    ContentSource content;
    content.bytes = bytes;
    content.size = bytes.size();
    return BuildTensor(dtype, proto.tensor_shape(), content, response.is_dead(),
                       total, destination, key, &out->value.tensor);
  }
  absl::StatusOr<Tensor> t = Tensor::FromProto(proto);
  if (!t.ok()) {
    if (response.is_dead()) {
      out->value.tensor = Tensor();
      return absl::OkStatus();
    }
    return Malformed(key, t.status().message());
  }
  out->value.tensor = *std::move(t);
  return absl::OkStatus();
}

}  // namespace

absl::Status EncodeRecvTensorResponse(const RecvTensorResult& value,
                                      absl::string_view key,
                                      const RecvTensorEncodeOptions& options,
                                      grpc::ByteBuffer* out) {
  const Tensor& tensor = value.tensor;
  if (!IsFlatDtype(tensor.dtype())) {
    return EncodeWithProtobuf(value, key, options, out);
  }
  const bool has_buffer = tensor.IsInitialized();
  if (!has_buffer && !value.is_dead) {
    return absl::InternalError(absl::StrCat(
        "RecvTensor of '", key, "': the tensor sent has no buffer"));
  }
  const size_t total = has_buffer ? tensor.TotalBytes() : 0;
  size_t content = total;
  if (options.content_limit >= 0) {
    if (static_cast<uint64_t>(options.content_limit) > total) {
      return absl::InvalidArgumentError(absl::StrCat(
          "RecvTensor of '", key, "': content limit ", options.content_limit,
          " is past the tensor's ", total, " bytes"));
    }
    content = static_cast<size_t>(options.content_limit);
  }

  std::string shape;
  if (tensor.dims() > 0) {
    TensorShapeProto proto;
    tensor.shape().AsProto(&proto);
    shape = proto.SerializeAsString();
  }
  const uint64_t dtype = static_cast<uint64_t>(tensor.dtype());
  uint64_t tensor_bytes = 1 + VarintLength(dtype);
  if (!shape.empty()) {
    tensor_bytes += 1 + VarintLength(shape.size()) + shape.size();
  }
  if (content > 0) tensor_bytes += 1 + VarintLength(content) + content;

  // The scalar fields first, then the tensor, its content last: the order
  // TensorFlow's sender uses, so the content can be a slice of its own.
  std::string header;
  header.reserve(64 + shape.size() +
                 (content <= kInlineTensorBytes ? content : 0));
  if (value.is_dead) {
    header.push_back(static_cast<char>(Tag(kResponseIsDead, kVarint)));
    PutVarint(&header, 1);
  }
  if (value.send_start_micros != 0) {
    header.push_back(static_cast<char>(Tag(kResponseSendStartMicros, kVarint)));
    PutVarint(&header, static_cast<uint64_t>(value.send_start_micros));
  }
  if (options.transport_options != nullptr) {
    const std::string any = options.transport_options->SerializeAsString();
    PutLengthDelimitedHeader(&header, kResponseTransportOptions, any.size());
    header.append(any);
  }
  PutLengthDelimitedHeader(&header, kResponseTensor, tensor_bytes);
  header.push_back(static_cast<char>(Tag(kTensorDtype, kVarint)));
  PutVarint(&header, dtype);
  if (!shape.empty()) {
    PutLengthDelimitedHeader(&header, kTensorShape, shape.size());
    header.append(shape);
  }
  if (content > 0) PutLengthDelimitedHeader(&header, kTensorContent, content);

  const uint64_t message_bytes = header.size() + content;
  if (message_bytes > static_cast<uint64_t>(kMaxGrpcMessageBytes)) {
    return MessageTooBig(key, tensor, static_cast<int64_t>(message_bytes));
  }
  const Tensor& from =
      options.content_from != nullptr ? *options.content_from : tensor;
  const size_t from_offset =
      options.content_from != nullptr ? options.content_offset : 0;
  if (content <= kInlineTensorBytes) {
    if (content > 0) {
      header.append(static_cast<const char*>(from.raw_data()) + from_offset,
                    content);
    }
    *out = MakeByteBuffer(header, std::nullopt);
  } else {
    *out = MakeByteBuffer(header, SliceOverTensor(from, from_offset, content));
  }
  return absl::OkStatus();
}

absl::Status DecodeRecvTensorResponse(const grpc::ByteBuffer& buffer,
                                      absl::string_view key,
                                      DecodedRecvTensor* out) {
  return DecodeRecvTensorResponse(buffer, key, nullptr, out);
}

absl::Status DecodeRecvTensorResponse(const grpc::ByteBuffer& buffer,
                                      absl::string_view key,
                                      const Tensor* destination,
                                      DecodedRecvTensor* out) {
  *out = DecodedRecvTensor();
  std::vector<grpc::Slice> slices;
  if (buffer.Valid()) {
    grpc::Status s = buffer.Dump(&slices);
    if (!s.ok()) {
      return absl::InternalError(
          absl::StrCat("RecvTensor of '", key,
                       "': cannot read the response: ", s.error_message()));
    }
  }
  absl::Status status;
  if (DecodeFast(slices, key, destination, out, &status)) return status;
  *out = DecodedRecvTensor();
  return DecodeSlow(buffer, key, destination, out);
}

grpc::ByteBuffer EncodeTensorChunk(const Tensor& tensor, int64_t offset,
                                   int64_t length) {
  DFX_CHECK(IsFlatDtype(tensor.dtype()));
  DFX_CHECK(offset >= 0 && length >= 0 &&
            static_cast<uint64_t>(offset + length) <= tensor.TotalBytes());
  std::string header;
  if (length == 0) return MakeByteBuffer(header, std::nullopt);
  PutLengthDelimitedHeader(&header, kChunkData, length);
  if (static_cast<size_t>(length) <= kInlineTensorBytes) {
    header.append(static_cast<const char*>(tensor.raw_data()) + offset, length);
    return MakeByteBuffer(header, std::nullopt);
  }
  return MakeByteBuffer(header, SliceOverTensor(tensor, offset, length));
}

absl::Status DecodeTensorChunk(const grpc::ByteBuffer& buffer,
                               absl::string_view key, int64_t offset,
                               int64_t length, Tensor* tensor) {
  DFX_CHECK(IsFlatDtype(tensor->dtype()));
  DFX_CHECK(offset >= 0 && length >= 0 &&
            static_cast<uint64_t>(offset + length) <= tensor->TotalBytes());
  auto malformed = [&](absl::string_view what) {
    return absl::InvalidArgumentError(
        absl::StrCat("malformed RecvTensorChunk response for '", key,
                     "' at offset ", offset, ": ", what));
  };
  std::vector<grpc::Slice> slices;
  if (buffer.Valid()) {
    grpc::Status s = buffer.Dump(&slices);
    if (!s.ok()) return malformed(s.error_message());
  }
  WireReader in(&slices);
  bool seen = false;
  while (in.remaining() > 0) {
    int field, wire_type;
    if (!in.ReadTag(&field, &wire_type)) return malformed("bad tag");
    if (field != kChunkData) {
      if (!in.SkipField(wire_type)) return malformed("bad field");
      continue;
    }
    uint64_t n;
    if (wire_type != kLengthDelimited || seen || !in.ReadVarint(&n)) {
      return malformed("bad data field");
    }
    if (n != static_cast<uint64_t>(length)) {
      return malformed(absl::StrCat("got ", n, " bytes, asked for ", length));
    }
    if (!in.CopyTo(static_cast<char*>(tensor->raw_data()) + offset, n)) {
      return malformed("data is truncated");
    }
    seen = true;
  }
  if (!seen && length > 0) {
    return malformed(absl::StrCat("no data, asked for ", length, " bytes"));
  }
  return absl::OkStatus();
}

}  // namespace dfx

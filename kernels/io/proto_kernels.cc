// The proto family's kernels: DecodeJSONExample, DecodeProtoV2 and
// EncodeProto.
//
// DecodeJSONExample turns each element, tf.train.Example in protobuf's JSON
// mapping, into the Example's wire bytes through protobuf's JSON parser
// (JsonToBinaryString over dfx's own Example, whose field numbers are
// TensorFlow's): map entries come out in the JSON's order, as TensorFlow's
// bytes do.
//
// DecodeProtoV2 and EncodeProto read and write the wire format directly
// (not through reflection), as TensorFlow's kernels do: a field is counted
// when it is on the wire, even with its default value; a message-typed
// field is its bytes as they are; a field on the wire with another wire
// type than its schema's is skipped. The descriptors come from
// descriptor_source: "local://" is the process's generated pool (dfx's
// protos, package dfx: "dfx.Example"; a "tensorflow.X" name that the pool
// lacks resolves to "dfx.X", whose field numbers are TensorFlow's), a
// "bytes://" prefix is followed by a serialized FileDescriptorSet, and
// anything else is the path of a file holding one, confined by the
// process's file policy (runtime/file_policy.h: dfx server --data-dir).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/descriptor.pb.h"
#include "google/protobuf/dynamic_message.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/json_util.h"
#include "google/protobuf/util/type_resolver.h"
#include "google/protobuf/util/type_resolver_util.h"
#include "google/protobuf/wire_format_lite.h"
#include "kernels/kernels.h"
#include "proto/example.pb.h"
#include "proto/types.pb.h"
#include "runtime/file_policy.h"

namespace dfx {
namespace {

namespace pb = ::google::protobuf;
using pb::Descriptor;
using pb::DescriptorPool;
using pb::FieldDescriptor;
using pb::internal::WireFormatLite;

// ---------------------------------------------------------------------------
// DecodeJSONExample

class DecodeJsonExampleOp : public OpKernel {
 public:
  explicit DecodeJsonExampleOp(OpKernelConstruction* ctx)
      : OpKernel(ctx),
        resolver_(pb::util::NewTypeResolverForDescriptorPool(
            "type.googleapis.com", dfx::Example::descriptor()->file()->pool())),
        type_url_(absl::StrCat("type.googleapis.com/",
                               dfx::Example::descriptor()->full_name())) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    const std::string* json = in.data<std::string>();
    std::string* binary = out->data<std::string>();
    for (int64_t i = 0; i < in.NumElements(); ++i) {
      pb::util::Status s = pb::util::JsonToBinaryString(
          resolver_.get(), type_url_, json[i], &binary[i]);
      // TensorFlow's words; the message names neither the element nor the
      // node (the executor adds the node).
      DFX_OP_REQUIRES(ctx, s.ok(),
                      absl::InvalidArgumentError(absl::StrCat(
                          "Error while parsing JSON: ", s.message().ToString(),
                          " (element ", i, ")")));
    }
  }

 private:
  const std::unique_ptr<pb::util::TypeResolver> resolver_;
  const std::string type_url_;
};

// ---------------------------------------------------------------------------
// Descriptors

// The pool a kernel reads its message type from, and the type.
struct MessageSchema {
  std::unique_ptr<DescriptorPool> owned_pool;  // null for local://
  const Descriptor* message = nullptr;
};

absl::Status PoolFromSet(const pb::FileDescriptorSet& set,
                         std::unique_ptr<DescriptorPool>* pool) {
  *pool = std::make_unique<DescriptorPool>();
  for (const pb::FileDescriptorProto& file : set.file()) {
    if ((*pool)->BuildFile(file) == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Failed to load FileDescriptorProto: ", file.DebugString()));
    }
  }
  return absl::OkStatus();
}

absl::Status NotADescriptorSet(const std::string& source) {
  return absl::InvalidArgumentError(absl::StrCat(
      "Source does not represent serialized file descriptor set proto. This "
      "may be due to a missing dependency on the file containing "
      "REGISTER_DESCRIPTOR_POOL(\"",
      source, "\", ...);"));
}

absl::StatusOr<MessageSchema> LoadSchema(OpKernelConstruction* ctx,
                                         const std::string& node) {
  std::string source, type;
  DFX_RETURN_IF_ERROR(ctx->GetAttr("descriptor_source", &source));
  DFX_RETURN_IF_ERROR(ctx->GetAttr("message_type", &type));
  MessageSchema schema;
  const DescriptorPool* pool = nullptr;
  if (source == "local://") {
    // Links example.proto's descriptors in whatever else is linked.
    pool = dfx::Example::descriptor()->file()->pool();
  } else {
    pb::FileDescriptorSet set;
    if (absl::StartsWith(source, "bytes://")) {
      if (!set.ParseFromArray(source.data() + 8,
                              static_cast<int>(source.size() - 8))) {
        return NotADescriptorSet(source);
      }
    } else {
      absl::StatusOr<std::string> path = ResolveDataPath(node, source);
      DFX_RETURN_IF_ERROR(path.status());
      std::ifstream file(*path, std::ios::binary);
      if (!file) return NotADescriptorSet(source);
      std::stringstream bytes;
      bytes << file.rdbuf();
      if (!set.ParseFromString(bytes.str())) {
        return absl::InvalidArgumentError(absl::StrCat(
            "descriptor_source contains invalid FileDescriptorSet: ", source));
      }
    }
    DFX_RETURN_IF_ERROR(PoolFromSet(set, &schema.owned_pool));
    pool = schema.owned_pool.get();
  }
  schema.message = pool->FindMessageTypeByName(type);
  if (schema.message == nullptr && schema.owned_pool == nullptr &&
      absl::StartsWith(type, "tensorflow.")) {
    schema.message = pool->FindMessageTypeByName(
        absl::StrCat("dfx.", type.substr(sizeof("tensorflow.") - 1)));
  }
  if (schema.message == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("No descriptor found for message type ", type));
  }
  return schema;
}

// TensorFlow's proto_utils::IsCompatibleType: the dtypes a field type
// converts to and from.
bool IsCompatibleType(FieldDescriptor::Type type, DataType dtype) {
  switch (type) {
    case FieldDescriptor::TYPE_DOUBLE:
      return dtype == DT_DOUBLE;
    case FieldDescriptor::TYPE_FLOAT:
      return dtype == DT_FLOAT || dtype == DT_DOUBLE;
    case FieldDescriptor::TYPE_INT64:
    case FieldDescriptor::TYPE_SFIXED64:
    case FieldDescriptor::TYPE_SINT64:
      return dtype == DT_INT64;
    case FieldDescriptor::TYPE_UINT64:
    case FieldDescriptor::TYPE_FIXED64:
      return dtype == DT_UINT64;
    case FieldDescriptor::TYPE_INT32:
    case FieldDescriptor::TYPE_SFIXED32:
    case FieldDescriptor::TYPE_SINT32:
      return dtype == DT_INT32 || dtype == DT_INT64;
    case FieldDescriptor::TYPE_UINT32:
    case FieldDescriptor::TYPE_FIXED32:
      return dtype == DT_UINT32 || dtype == DT_UINT64;
    case FieldDescriptor::TYPE_BOOL:
      return dtype == DT_BOOL;
    case FieldDescriptor::TYPE_ENUM:
      return dtype == DT_INT32;
    case FieldDescriptor::TYPE_STRING:
    case FieldDescriptor::TYPE_BYTES:
    case FieldDescriptor::TYPE_MESSAGE:
    case FieldDescriptor::TYPE_GROUP:
      return dtype == DT_STRING;
  }
  return false;
}

// The field named `name` of `message`, or an extension of it by full name.
const FieldDescriptor* FindField(const Descriptor* message,
                                 const std::string& name) {
  const FieldDescriptor* f = message->FindFieldByName(name);
  if (f != nullptr) return f;
  std::vector<const FieldDescriptor*> extensions;
  message->file()->pool()->FindAllExtensions(message, &extensions);
  for (const FieldDescriptor* e : extensions) {
    if (e->full_name() == name) return e;
  }
  return nullptr;
}

WireFormatLite::WireType SchemaWireType(FieldDescriptor::Type type) {
  return WireFormatLite::WireTypeForFieldType(
      static_cast<WireFormatLite::FieldType>(type));
}

// ---------------------------------------------------------------------------
// DecodeProtoV2

// A value as read from the wire: the varint or fixed bits, or the bytes of
// a length-delimited (or group) field.
struct WireValue {
  uint64_t bits = 0;
  absl::string_view bytes;
  // A packed int32 read into int64: TensorFlow keeps its low 32 bits
  // unsigned (4294967295 for -1), where an unpacked one is sign-extended.
  bool zero_extend = false;
};

// One requested field of one message, as TensorFlow's two passes see it.
struct FieldValues {
  // The values written (a singular field keeps the last; one read packed
  // is written at index 0 without advancing, so the default shows).
  std::vector<WireValue> values;
  int32_t count = 0;  // the sizes output: values seen, 1 at most if singular
  int64_t packed_at = -1;  // the largest values.size() a packed run began at
};

struct DecodeField {
  const FieldDescriptor* desc;
  FieldDescriptor::Type type;
  int number;
  bool repeated;
  int output;  // index into field_names / output_types
  DataType dtype;
};

// Writes `v`, read for a field of `type`, into element `i` of `out` (of a
// dtype IsCompatibleType allows for the type).
void StoreValue(FieldDescriptor::Type type, const WireValue& v, Tensor* out,
                int64_t i) {
  const DataType dtype = out->dtype();
  if (dtype == DT_STRING) {
    out->data<std::string>()[i] = std::string(v.bytes);
    return;
  }
  switch (type) {
    case FieldDescriptor::TYPE_DOUBLE: {
      double d;
      std::memcpy(&d, &v.bits, sizeof(d));
      out->data<double>()[i] = d;
      return;
    }
    case FieldDescriptor::TYPE_FLOAT: {
      const uint32_t b = static_cast<uint32_t>(v.bits);
      float f;
      std::memcpy(&f, &b, sizeof(f));
      if (dtype == DT_DOUBLE) {
        out->data<double>()[i] = f;
      } else {
        out->data<float>()[i] = f;
      }
      return;
    }
    case FieldDescriptor::TYPE_INT64:
    case FieldDescriptor::TYPE_SFIXED64:
      out->data<int64_t>()[i] = static_cast<int64_t>(v.bits);
      return;
    case FieldDescriptor::TYPE_SINT64:
      out->data<int64_t>()[i] = WireFormatLite::ZigZagDecode64(v.bits);
      return;
    case FieldDescriptor::TYPE_UINT64:
    case FieldDescriptor::TYPE_FIXED64:
      out->data<uint64_t>()[i] = v.bits;
      return;
    case FieldDescriptor::TYPE_INT32:
    case FieldDescriptor::TYPE_SFIXED32:
    case FieldDescriptor::TYPE_SINT32:
    case FieldDescriptor::TYPE_ENUM: {
      int32_t x = static_cast<int32_t>(static_cast<uint32_t>(v.bits));
      if (type == FieldDescriptor::TYPE_SINT32) {
        x = WireFormatLite::ZigZagDecode32(static_cast<uint32_t>(v.bits));
      }
      if (dtype == DT_INT64) {
        out->data<int64_t>()[i] =
            v.zero_extend ? static_cast<int64_t>(static_cast<uint32_t>(x)) : x;
      } else {
        out->data<int32_t>()[i] = x;
      }
      return;
    }
    case FieldDescriptor::TYPE_UINT32:
    case FieldDescriptor::TYPE_FIXED32: {
      const uint32_t x = static_cast<uint32_t>(v.bits);
      if (dtype == DT_UINT64) {
        out->data<uint64_t>()[i] = x;
      } else {
        out->data<uint32_t>()[i] = x;
      }
      return;
    }
    case FieldDescriptor::TYPE_BOOL:
      out->data<bool>()[i] = v.bits != 0;
      return;
    default:
      return;
  }
}

// The field's default (its schema's, or the type's zero) at element `i`.
void StoreDefault(const FieldDescriptor* f, Tensor* out, int64_t i) {
  WireValue v;
  std::string bytes;
  switch (f->type()) {
    case FieldDescriptor::TYPE_DOUBLE: {
      const double d = f->default_value_double();
      std::memcpy(&v.bits, &d, sizeof(d));
      break;
    }
    case FieldDescriptor::TYPE_FLOAT: {
      const float x = f->default_value_float();
      uint32_t b;
      std::memcpy(&b, &x, sizeof(b));
      v.bits = b;
      break;
    }
    case FieldDescriptor::TYPE_INT64:
    case FieldDescriptor::TYPE_SFIXED64:
      v.bits = static_cast<uint64_t>(f->default_value_int64());
      break;
    case FieldDescriptor::TYPE_SINT64:
      v.bits = WireFormatLite::ZigZagEncode64(f->default_value_int64());
      break;
    case FieldDescriptor::TYPE_UINT64:
    case FieldDescriptor::TYPE_FIXED64:
      v.bits = f->default_value_uint64();
      break;
    case FieldDescriptor::TYPE_INT32:
    case FieldDescriptor::TYPE_SFIXED32:
      v.bits = static_cast<uint32_t>(f->default_value_int32());
      break;
    case FieldDescriptor::TYPE_SINT32:
      v.bits = WireFormatLite::ZigZagEncode32(f->default_value_int32());
      break;
    case FieldDescriptor::TYPE_ENUM:
      v.bits = static_cast<uint32_t>(f->default_value_enum()->number());
      break;
    case FieldDescriptor::TYPE_UINT32:
    case FieldDescriptor::TYPE_FIXED32:
      v.bits = f->default_value_uint32();
      break;
    case FieldDescriptor::TYPE_BOOL:
      v.bits = f->default_value_bool() ? 1 : 0;
      break;
    case FieldDescriptor::TYPE_STRING:
    case FieldDescriptor::TYPE_BYTES:
      v.bytes = f->default_value_string();
      break;
    case FieldDescriptor::TYPE_MESSAGE:
    case FieldDescriptor::TYPE_GROUP:
      break;
  }
  StoreValue(f->type(), v, out, i);
}

absl::Status DataLoss(absl::string_view what) {
  return absl::DataLossError(what);
}

// Reads one value of `type` (not length-delimited) from `in`.
bool ReadScalar(FieldDescriptor::Type type, pb::io::CodedInputStream* in,
                uint64_t* bits) {
  switch (SchemaWireType(type)) {
    case WireFormatLite::WIRETYPE_VARINT:
      return in->ReadVarint64(bits);
    case WireFormatLite::WIRETYPE_FIXED32: {
      uint32_t b;
      if (!in->ReadLittleEndian32(&b)) return false;
      *bits = b;
      return true;
    }
    case WireFormatLite::WIRETYPE_FIXED64:
      return in->ReadLittleEndian64(bits);
    default:
      return false;
  }
}

// The requested fields' values in one serialized message, in wire order:
// values[k] for fields_[k]. A singular field keeps its last value.
absl::Status ParseMessage(absl::string_view buf,
                          const std::vector<DecodeField>& fields,
                          std::vector<FieldValues>* values) {
  if (buf.size() > static_cast<size_t>(INT32_MAX)) {
    return DataLoss("serialized message larger than 2 GiB");
  }
  pb::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(buf.data()),
                              static_cast<int>(buf.size()));
  in.SetRecursionLimit(100);
  while (true) {
    const int tag_start = in.CurrentPosition();
    const uint32_t tag = in.ReadTag();
    if (tag == 0) break;
    const auto wire = WireFormatLite::GetTagWireType(tag);
    if (wire == WireFormatLite::WIRETYPE_END_GROUP) break;
    const int number = WireFormatLite::GetTagFieldNumber(tag);
    int k = -1;
    for (size_t j = 0; j < fields.size(); ++j) {
      if (fields[j].number == number) {
        k = static_cast<int>(j);
        break;
      }
    }
    if (k < 0) {
      if (!WireFormatLite::SkipField(&in, tag)) {
        return DataLoss("Failed skipping unrequested field");
      }
      continue;
    }
    const DecodeField& f = fields[k];
    FieldValues& fv = (*values)[k];
    std::vector<WireValue>& out = fv.values;
    const auto schema_wire = SchemaWireType(f.type);
    auto add = [&](const WireValue& v) {
      if (f.repeated || out.empty()) {
        out.push_back(v);
      } else {
        out.back() = v;
      }
      fv.count = static_cast<int32_t>(out.size());
    };
    if (wire == WireFormatLite::WIRETYPE_LENGTH_DELIMITED &&
        schema_wire != WireFormatLite::WIRETYPE_LENGTH_DELIMITED) {
      // Packed values.
      int length;
      if (!in.ReadVarintSizeAsInt(&length)) {
        return DataLoss("CollectField: Failed reading packed size");
      }
      const int start = in.CurrentPosition();
      if (length < 0 || static_cast<size_t>(length) >
                            buf.size() - static_cast<size_t>(start)) {
        return DataLoss("ReadPackedValues: Skipping packed field failed");
      }
      if (length == 0) {  // TensorFlow's count pass ignores it
        fv.packed_at = std::max<int64_t>(fv.packed_at, out.size());
        continue;
      }
      pb::io::CodedInputStream packed(
          reinterpret_cast<const uint8_t*>(buf.data()) + start, length);
      fv.packed_at = std::max<int64_t>(fv.packed_at, out.size());
      int32_t n = 0;
      while (!packed.ExpectAtEnd()) {
        WireValue v;
        v.zero_extend = f.type == FieldDescriptor::TYPE_INT32;
        if (!ReadScalar(f.type, &packed, &v.bits)) {
          return DataLoss(schema_wire == WireFormatLite::WIRETYPE_VARINT
                              ? "Corrupt packed varint"
                              : "Illegal data length for packed fixed-size "
                                "type");
        }
        ++n;
        if (f.repeated) out.push_back(v);
      }
      fv.count = f.repeated ? static_cast<int32_t>(out.size())
                            : std::min<int32_t>(fv.count + n, 1);
      in.Skip(length);
      continue;
    }
    if (wire != schema_wire) {
      // TensorFlow skips a value whose wire type the schema does not give.
      if (!WireFormatLite::SkipField(&in, tag)) {
        return DataLoss("Failed skipping malformed field");
      }
      continue;
    }
    WireValue v;
    if (wire == WireFormatLite::WIRETYPE_LENGTH_DELIMITED) {
      int length;
      if (!in.ReadVarintSizeAsInt(&length)) {
        return DataLoss("ReadValue: Failed skipping field when counting");
      }
      const int start = in.CurrentPosition();
      if (length < 0 || !in.Skip(length)) {
        return DataLoss("ReadValue: Failed skipping field when counting");
      }
      v.bytes = buf.substr(start, length);
    } else if (wire == WireFormatLite::WIRETYPE_START_GROUP) {
      // The group as TensorFlow gives it: its start tag, contents and end
      // tag (EncodeProto adds tags around the value again).
      if (!WireFormatLite::SkipField(&in, tag)) {
        return DataLoss("ReadValue: Failed skipping field when counting");
      }
      v.bytes = buf.substr(tag_start, in.CurrentPosition() - tag_start);
    } else if (!ReadScalar(f.type, &in, &v.bits)) {
      return DataLoss("ReadValue: Failed skipping field when counting");
    }
    add(v);
  }
  if (!in.ConsumedEntireMessage()) {
    return DataLoss("CountFields: Failed to consume entire buffer");
  }
  return absl::OkStatus();
}

class DecodeProtoOp : public OpKernel {
 public:
  explicit DecodeProtoOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    absl::StatusOr<MessageSchema> schema = LoadSchema(ctx, name());
    if (!schema.ok()) {
      ctx->SetStatus(schema.status());
      return;
    }
    schema_ = *std::move(schema);
    std::vector<std::string> names;
    DataTypeVector types;
    ctx->SetStatus(ctx->GetAttr("field_names", &names));
    ctx->SetStatus(ctx->GetAttr("output_types", &types));
    if (!ctx->status().ok()) return;
    if (names.size() != types.size()) {
      ctx->SetStatus(absl::InvalidArgumentError(
          "field_names and output_types attributes must have the same "
          "length"));
      return;
    }
    for (size_t i = 0; i < names.size(); ++i) {
      const FieldDescriptor* f = FindField(schema_.message, names[i]);
      if (f == nullptr) {
        ctx->SetStatus(absl::InvalidArgumentError(
            absl::StrCat("Unknown field: ", names[i], " in message type ",
                         schema_.message->full_name())));
        return;
      }
      if (!IsCompatibleType(f->type(), types[i])) {
        ctx->SetStatus(absl::InvalidArgumentError(
            absl::StrCat("Unexpected output type for ", f->full_name(), ": ",
                         f->cpp_type_name(), " to ", DataType_Name(types[i]))));
        return;
      }
      fields_.push_back({f, f->type(), f->number(), f->is_repeated(),
                         static_cast<int>(i), types[i]});
    }
    std::string format;
    ctx->SetStatus(ctx->GetAttr("message_format", &format));
    ctx->SetStatus(ctx->GetAttr("sanitize", &sanitize_));
    if (!ctx->status().ok()) return;
    if (format != "binary" && format != "text") {
      ctx->SetStatus(
          absl::InvalidArgumentError("format must be one of binary or text"));
      return;
    }
    binary_ = format == "binary";
    prototype_ = factory_.GetPrototype(schema_.message);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const int64_t n = in.NumElements();
    DFX_OP_REQUIRES(ctx, n >= 1,
                    absl::InvalidArgumentError(
                        "Bufs argument must contain at least one value"));
    const int nf = static_cast<int>(fields_.size());
    const std::string* bufs = in.data<std::string>();

    // Text, or sanitized binary: parsed and written again by protobuf.
    std::vector<std::string> rewritten;
    if (!binary_ || sanitize_) {
      rewritten.resize(n);
      for (int64_t m = 0; m < n; ++m) {
        std::unique_ptr<pb::Message> msg(prototype_->New());
        const bool ok =
            binary_ ? msg->ParseFromString(bufs[m])
                    : pb::TextFormat::ParseFromString(bufs[m], msg.get());
        DFX_OP_REQUIRES(
            ctx, ok,
            absl::DataLossError(binary_ ? "Unable to parse binary protobuf"
                                        : "Unable to parse text protobuf"));
        DFX_OP_REQUIRES(
            ctx, msg->SerializeToString(&rewritten[m]),
            absl::DataLossError("Unable to reserialize text proto as binary"));
      }
    }

    std::vector<std::vector<FieldValues>> values(n,
                                                 std::vector<FieldValues>(nf));
    std::vector<int64_t> max_count(nf, 1);
    for (int64_t m = 0; m < n; ++m) {
      absl::string_view buf =
          rewritten.empty() ? absl::string_view(bufs[m]) : rewritten[m];
      DFX_OP_REQUIRES_OK(ctx, ParseMessage(buf, fields_, &values[m]));
      for (int k = 0; k < nf; ++k) {
        max_count[k] = std::max<int64_t>(max_count[k], values[m][k].count);
      }
    }
    // TensorFlow's second pass refuses a packed run that begins where the
    // output has no room left (a singular field read packed after a value,
    // an empty packed run after the longest repeated one).
    for (int64_t m = 0; m < n; ++m) {
      for (int k = 0; k < nf; ++k) {
        DFX_OP_REQUIRES(
            ctx, values[m][k].packed_at < max_count[k],
            absl::DataLossError(absl::StrCat(
                "ReadPackedValues: Tried to write more entries than "
                "allowed.  Field tag: ",
                fields_[k].number, ", Max entries allowed: ", max_count[k])));
      }
    }

    TensorShape sizes_shape = in.shape();
    DFX_OP_REQUIRES_OK(ctx, sizes_shape.AddDim(nf));
    Tensor* sizes = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, sizes_shape, &sizes));
    int32_t* size_data = sizes->data<int32_t>();
    for (int k = 0; k < nf; ++k) {
      const DecodeField& f = fields_[k];
      TensorShape shape = in.shape();
      DFX_OP_REQUIRES_OK(ctx, shape.AddDim(max_count[k]));
      Tensor* out = nullptr;
      DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(f.output + 1, shape, &out));
      for (int64_t m = 0; m < n; ++m) {
        const std::vector<WireValue>& vs = values[m][k].values;
        size_data[m * nf + f.output] = values[m][k].count;
        const int64_t base = m * max_count[k];
        for (size_t j = 0; j < vs.size(); ++j) {
          StoreValue(f.type, vs[j], out, base + j);
        }
        for (int64_t j = vs.size(); j < max_count[k]; ++j) {
          StoreDefault(f.desc, out, base + j);
        }
      }
    }
  }

 private:
  MessageSchema schema_;
  std::vector<DecodeField> fields_;  // in field_names order
  bool binary_ = true;
  bool sanitize_ = false;
  pb::DynamicMessageFactory factory_;
  const pb::Message* prototype_ = nullptr;
};

// ---------------------------------------------------------------------------
// EncodeProto

void PutVarint(uint64_t v, std::string* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

void PutFixed(uint64_t v, int bytes, std::string* out) {
  for (int i = 0; i < bytes; ++i) {
    out->push_back(static_cast<char>(v >> (8 * i)));
  }
}

void PutTag(int number, WireFormatLite::WireType wire, std::string* out) {
  PutVarint(WireFormatLite::MakeTag(number, wire), out);
}

// Element `i` of `t` as a signed or unsigned 64-bit integer, or a double.
int64_t ValueAsInt(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DT_INT32:
      return t.data<int32_t>()[i];
    case DT_INT64:
      return t.data<int64_t>()[i];
    case DT_UINT32:
      return t.data<uint32_t>()[i];
    case DT_UINT64:
      return static_cast<int64_t>(t.data<uint64_t>()[i]);
    case DT_BOOL:
      return t.data<bool>()[i] ? 1 : 0;
    default:
      return 0;
  }
}

double DoubleAt(const Tensor& t, int64_t i) {
  return t.dtype() == DT_FLOAT ? t.data<float>()[i] : t.data<double>()[i];
}

// Writes value `i` of `t` for field `f` without its tag.
void PutValue(const FieldDescriptor& f, const Tensor& t, int64_t i,
              std::string* out) {
  switch (f.type()) {
    case FieldDescriptor::TYPE_DOUBLE: {
      const double d = DoubleAt(t, i);
      uint64_t b;
      std::memcpy(&b, &d, sizeof(b));
      PutFixed(b, 8, out);
      return;
    }
    case FieldDescriptor::TYPE_FLOAT: {
      const float x = static_cast<float>(DoubleAt(t, i));
      uint32_t b;
      std::memcpy(&b, &x, sizeof(b));
      PutFixed(b, 4, out);
      return;
    }
    case FieldDescriptor::TYPE_INT64:
    case FieldDescriptor::TYPE_UINT64:
      PutVarint(static_cast<uint64_t>(ValueAsInt(t, i)), out);
      return;
    case FieldDescriptor::TYPE_INT32:
    case FieldDescriptor::TYPE_ENUM:
      // Negative int32s take ten bytes, sign-extended.
      PutVarint(static_cast<uint64_t>(static_cast<int64_t>(
                    static_cast<int32_t>(ValueAsInt(t, i)))),
                out);
      return;
    case FieldDescriptor::TYPE_UINT32:
      PutVarint(static_cast<uint32_t>(ValueAsInt(t, i)), out);
      return;
    case FieldDescriptor::TYPE_SINT32:
      PutVarint(WireFormatLite::ZigZagEncode32(
                    static_cast<int32_t>(ValueAsInt(t, i))),
                out);
      return;
    case FieldDescriptor::TYPE_SINT64:
      PutVarint(WireFormatLite::ZigZagEncode64(ValueAsInt(t, i)), out);
      return;
    case FieldDescriptor::TYPE_FIXED32:
    case FieldDescriptor::TYPE_SFIXED32:
      PutFixed(static_cast<uint32_t>(ValueAsInt(t, i)), 4, out);
      return;
    case FieldDescriptor::TYPE_FIXED64:
    case FieldDescriptor::TYPE_SFIXED64:
      PutFixed(static_cast<uint64_t>(ValueAsInt(t, i)), 8, out);
      return;
    case FieldDescriptor::TYPE_BOOL:
      out->push_back(ValueAsInt(t, i) != 0 ? 1 : 0);
      return;
    default:
      return;
  }
}

class EncodeProtoOp : public OpKernel {
 public:
  explicit EncodeProtoOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    absl::StatusOr<MessageSchema> schema = LoadSchema(ctx, name());
    if (!schema.ok()) {
      ctx->SetStatus(schema.status());
      return;
    }
    schema_ = *std::move(schema);
    ctx->SetStatus(ctx->GetAttr("field_names", &names_));
    if (!ctx->status().ok()) return;
    for (const std::string& n : names_) {
      const FieldDescriptor* f = schema_.message->FindFieldByName(n);
      if (f == nullptr) {
        ctx->SetStatus(absl::InvalidArgumentError(
            absl::StrCat("Unknown field: ", n, " in message type ",
                         schema_.message->full_name())));
        return;
      }
      fields_.push_back(f);
    }
    order_.resize(fields_.size());
    for (size_t i = 0; i < order_.size(); ++i) order_[i] = static_cast<int>(i);
    std::stable_sort(order_.begin(), order_.end(), [this](int a, int b) {
      return fields_[a]->number() < fields_[b]->number();
    });
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& sizes = ctx->input(0);
    const int nf = static_cast<int>(fields_.size());
    DFX_OP_REQUIRES(ctx, ctx->num_inputs() - 1 == nf,
                    absl::InvalidArgumentError(
                        "Length of inputs list must match field_names"));
    TensorShape prefix;
    for (int i = 0; i < nf; ++i) {
      const Tensor& v = ctx->input(i + 1);
      DFX_OP_REQUIRES(ctx, IsCompatibleType(fields_[i]->type(), v.dtype()),
                      absl::InvalidArgumentError(absl::StrCat(
                          "Incompatible type for field ", names_[i],
                          ".  Saw dtype: ", DataTypeString(v.dtype()),
                          " but field type is: ", fields_[i]->type_name())));
      DFX_OP_REQUIRES(ctx, v.dims() >= 2,
                      absl::InvalidArgumentError(absl::StrCat(
                          "Invalid shape for field ", names_[i],
                          ".  Saw shape ", v.shape().DebugString(),
                          " but it should be at least a matrix.")));
      TensorShape p = v.shape();
      p.RemoveDim(p.dims() - 1);
      if (i == 0) {
        prefix = p;
      } else {
        DFX_OP_REQUIRES(ctx, p == prefix,
                        absl::InvalidArgumentError(
                            "Values must match up to the last dimension"));
      }
    }
    TensorShape expected = prefix;
    DFX_OP_REQUIRES_OK(ctx, expected.AddDim(nf));
    DFX_OP_REQUIRES(
        ctx, sizes.shape() == expected,
        absl::InvalidArgumentError(absl::StrCat(
            "sizes should be batch_size + [len(field_names)].  Saw: ",
            sizes.shape().DebugString(),
            " but expected: ", expected.DebugString())));
    const int64_t n = prefix.num_elements();
    const int32_t* size_data = sizes.data<int32_t>();
    for (int i = 0; i < nf; ++i) {
      const Tensor& v = ctx->input(i + 1);
      const int64_t max_size = v.dim_size(v.dims() - 1);
      for (int64_t m = 0; m < n; ++m) {
        const int32_t s = size_data[m * nf + i];
        DFX_OP_REQUIRES(
            ctx, s <= max_size,
            absl::InvalidArgumentError(absl::StrCat(
                "Size to write must not be larger than value tensor; but "
                "saw: ",
                s, " > ", max_size, " at message ", m, " field ", i)));
        // TensorFlow writes garbage lengths for negative sizes of packed
        // fields; dfx refuses every negative size.
        DFX_OP_REQUIRES(ctx, s >= 0,
                        absl::InvalidArgumentError(absl::StrCat(
                            "Size to write must not be negative; but saw: ", s,
                            " at message ", m, " field ", i)));
      }
    }
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, prefix, &out));
    std::string* bufs = out->data<std::string>();
    std::string packed;
    for (int64_t m = 0; m < n; ++m) {
      std::string& buf = bufs[m];
      for (int i : order_) {
        const FieldDescriptor& f = *fields_[i];
        const Tensor& v = ctx->input(i + 1);
        const int32_t size = size_data[m * nf + i];
        if (size == 0) continue;
        const int64_t base = m * v.dim_size(v.dims() - 1);
        const int number = f.number();
        switch (f.type()) {
          case FieldDescriptor::TYPE_STRING:
          case FieldDescriptor::TYPE_BYTES:
          case FieldDescriptor::TYPE_MESSAGE:
            for (int32_t j = 0; j < size; ++j) {
              const std::string& s = v.data<std::string>()[base + j];
              PutTag(number, WireFormatLite::WIRETYPE_LENGTH_DELIMITED, &buf);
              PutVarint(s.size(), &buf);
              buf += s;
            }
            break;
          case FieldDescriptor::TYPE_GROUP:
            for (int32_t j = 0; j < size; ++j) {
              PutTag(number, WireFormatLite::WIRETYPE_START_GROUP, &buf);
              buf += v.data<std::string>()[base + j];
              PutTag(number, WireFormatLite::WIRETYPE_END_GROUP, &buf);
            }
            break;
          default:
            if (f.is_packed()) {
              packed.clear();
              for (int32_t j = 0; j < size; ++j) {
                PutValue(f, v, base + j, &packed);
              }
              PutTag(number, WireFormatLite::WIRETYPE_LENGTH_DELIMITED, &buf);
              PutVarint(packed.size(), &buf);
              buf += packed;
            } else {
              for (int32_t j = 0; j < size; ++j) {
                PutTag(number, SchemaWireType(f.type()), &buf);
                PutValue(f, v, base + j, &buf);
              }
            }
        }
      }
    }
  }

 private:
  MessageSchema schema_;
  std::vector<std::string> names_;
  std::vector<const FieldDescriptor*> fields_;  // in field_names order
  std::vector<int> order_;  // indices into fields_ by field number
};

}  // namespace

void RegisterProtoKernels(KernelRegistry* registry) {
  RegisterKernel<DecodeJsonExampleOp>(registry,
                                      KernelDefBuilder("DecodeJSONExample"));
  RegisterKernel<DecodeProtoOp>(registry, KernelDefBuilder("DecodeProtoV2"));
  RegisterKernel<EncodeProtoOp>(registry, KernelDefBuilder("EncodeProto"));
}

}  // namespace dfx

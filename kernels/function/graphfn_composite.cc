// CompositeTensorVariantFromComponents / ToComponents: an ExtensionType
// value's component tensors packed into one DT_VARIANT scalar with its
// TypeSpec (the `metadata` attr, a serialized CompositeTensorVariantMetadata)
// and unpacked again, as TensorFlow 2.21's composite_tensor_ops.cc. On the
// wire the value is TensorFlow's: type name "CompositeTensorVariant", the
// metadata bytes, the components as tensors, so a TensorFlow client can feed
// and fetch it (one fed from outside arrives as an OpaqueVariant of that
// type name, which ToComponents reads too).
#include <cstdint>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "google/protobuf/unknown_field_set.h"
#include "kernels/kernels.h"
#include "runtime/variant.h"

namespace dfx {
namespace {

constexpr char kTypeName[] = "CompositeTensorVariant";

class CompositeTensorVariantValue final : public VariantValue {
 public:
  CompositeTensorVariantValue(std::string metadata,
                              std::vector<Tensor> components)
      : metadata_(std::move(metadata)), components_(std::move(components)) {}

  std::string TypeName() const override { return kTypeName; }
  void Encode(VariantTensorDataProto* proto) const override {
    proto->set_metadata(metadata_);
    for (const Tensor& t : components_) {
      t.AsProtoTensorContent(proto->add_tensors());
    }
  }
  std::string DebugString() const override {
    return absl::StrCat(
        "<CompositeTensorVariant components=", components_.size(), ">");
  }
  const std::string& metadata() const { return metadata_; }
  const std::vector<Tensor>& components() const { return components_; }

 private:
  const std::string metadata_;
  const std::vector<Tensor> components_;
};

// TypeSpecProto.TypeSpecClass names (core/protobuf/struct.proto).
std::string TypeSpecClassName(int64_t c) {
  static const char* const kNames[] = {"UNKNOWN",
                                       "SPARSE_TENSOR_SPEC",
                                       "INDEXED_SLICES_SPEC",
                                       "RAGGED_TENSOR_SPEC",
                                       "TENSOR_ARRAY_SPEC",
                                       "DATA_DATASET_SPEC",
                                       "DATA_ITERATOR_SPEC",
                                       "OPTIONAL_SPEC",
                                       "PER_REPLICA_SPEC",
                                       "VARIABLE_SPEC",
                                       "ROW_PARTITION_SPEC",
                                       "",
                                       "REGISTERED_TYPE_SPEC",
                                       "EXTENSION_TYPE_SPEC"};
  if (c >= 0 && c < static_cast<int64_t>(std::size(kNames)) &&
      kNames[c][0] != '\0') {
    return kNames[c];
  }
  return absl::StrCat(c);
}

// The type_spec_class of a serialized CompositeTensorVariantMetadata
// (field 1: TypeSpecProto, whose field 1 is the class); false when the bytes
// are not a protobuf message.
bool ParseTypeSpecClass(const std::string& bytes, int64_t* type_class) {
  *type_class = 0;
  google::protobuf::UnknownFieldSet metadata;
  if (!metadata.ParseFromString(bytes)) return false;
  for (int i = 0; i < metadata.field_count(); ++i) {
    const google::protobuf::UnknownField& f = metadata.field(i);
    if (f.number() != 1) continue;
    if (f.type() != google::protobuf::UnknownField::TYPE_LENGTH_DELIMITED) {
      return false;
    }
    google::protobuf::UnknownFieldSet spec;
    if (!spec.ParseFromString(f.length_delimited())) return false;
    for (int j = 0; j < spec.field_count(); ++j) {
      const google::protobuf::UnknownField& g = spec.field(j);
      if (g.number() != 1) continue;
      if (g.type() != google::protobuf::UnknownField::TYPE_VARINT) {
        return false;
      }
      *type_class = static_cast<int64_t>(g.varint());
    }
  }
  return true;
}

class FromComponentsOp : public OpKernel {
 public:
  explicit FromComponentsOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("metadata", &metadata_));
    int64_t type_class = 0;
    if (!ParseTypeSpecClass(metadata_, &type_class)) {
      ctx->SetStatus(absl::InvalidArgumentError("Error parsing metadata"));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    std::vector<Tensor> components;
    components.reserve(ctx->num_inputs());
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      components.push_back(ctx->input(i));
    }
    Tensor out(DT_VARIANT, TensorShape({}));
    out.data<Variant>()[0] = Variant::Make<CompositeTensorVariantValue>(
        metadata_, std::move(components));
    ctx->set_output(0, std::move(out));
  }

 private:
  std::string metadata_;
};

class ToComponentsOp : public OpKernel {
 public:
  explicit ToComponentsOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string metadata;
    ctx->SetStatus(ctx->GetAttr("metadata", &metadata));
    if (!ParseTypeSpecClass(metadata, &type_class_)) {
      ctx->SetStatus(absl::InvalidArgumentError("Error parsing `metadata`"));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& encoded = ctx->input(0);
    DFX_OP_REQUIRES(ctx, encoded.NumElements() > 0,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Input `encoded` must not be an empty variant tensor, "
                        "but got ",
                        encoded.DebugString())));
    const Variant& v = encoded.data<Variant>()[0];
    std::vector<Tensor> components;
    std::string metadata;
    if (const auto* c = v.get<CompositeTensorVariantValue>(); c != nullptr) {
      metadata = c->metadata();
      components = c->components();
    } else if (const auto* o = v.get<OpaqueVariant>();
               o != nullptr && o->TypeName() == kTypeName) {
      metadata = o->proto().metadata();
      for (const TensorProto& p : o->proto().tensors()) {
        absl::StatusOr<Tensor> t = Tensor::FromProto(p);
        DFX_OP_REQUIRES_OK(ctx, t.status());
        components.push_back(*std::move(t));
      }
    } else {
      ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
          "The input `encoded` is not a valid CompositeTensorVariant tensor, "
          "got ",
          encoded.DebugString())));
      return;
    }
    int64_t actual = 0;
    DFX_OP_REQUIRES(ctx, ParseTypeSpecClass(metadata, &actual),
                    absl::InvalidArgumentError(
                        "The input `encoded` holds metadata that does not "
                        "parse"));
    DFX_OP_REQUIRES(ctx, actual == type_class_,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Expected a ", TypeSpecClassName(type_class_),
                        " (based on `type_spec`), but `encoded` contains a ",
                        TypeSpecClassName(actual))));
    DFX_OP_REQUIRES(ctx,
                    static_cast<int>(components.size()) == ctx->num_outputs(),
                    absl::InvalidArgumentError(absl::StrCat(
                        "Encoded value has ", components.size(),
                        " tensor components; expected ", ctx->num_outputs(),
                        " components based on type_spec")));
    for (int i = 0; i < ctx->num_outputs(); ++i) {
      DFX_OP_REQUIRES(
          ctx, components[i].dtype() == output_type(i),
          absl::InvalidArgumentError(absl::StrCat(
              "Tensor component ", i, " had dtype ",
              DataTypeString(components[i].dtype()), "; expected dtype ",
              DataTypeString(output_type(i)))));
    }
    for (int i = 0; i < ctx->num_outputs(); ++i) {
      ctx->set_output(i, std::move(components[i]));
    }
  }

 private:
  int64_t type_class_ = 0;
};

}  // namespace

void RegisterGraphfnCompositeKernels(KernelRegistry* registry) {
  RegisterKernel<FromComponentsOp>(
      registry, KernelDefBuilder("CompositeTensorVariantFromComponents"));
  RegisterKernel<ToComponentsOp>(
      registry, KernelDefBuilder("CompositeTensorVariantToComponents"));
}

}  // namespace dfx

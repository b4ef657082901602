#include "runtime/tensor_list.h"

#include <cstdint>
#include <limits>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"

namespace dfx {
namespace {

absl::Status Malformed(absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("malformed ", TensorList::kTypeName, " variant: ", what));
}

// Element dtypes a list may hold: those a Tensor can hold.
bool HoldableDtype(DataType dtype) {
  if (!DataType_IsValid(dtype) || dtype == DT_INVALID || IsRefType(dtype)) {
    return false;
  }
  return DataTypeSize(dtype) > 0 || dtype == DT_STRING ||
         dtype == DT_RESOURCE || dtype == DT_VARIANT;
}

}  // namespace

void TensorList::Encode(VariantTensorDataProto* proto) const {
  std::vector<uint64_t> unset;
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (IsSet(tensors[i])) {
      tensors[i].AsProtoField(proto->add_tensors());
    } else {
      unset.push_back(i);
    }
  }
  std::string metadata;
  {
    google::protobuf::io::StringOutputStream stream(&metadata);
    google::protobuf::io::CodedOutputStream out(&stream);
    out.WriteVarint64(unset.size());
    for (uint64_t i : unset) out.WriteVarint64(i);
    out.WriteVarint64(static_cast<uint64_t>(element_dtype));
    // -1 travels as uint64 max, as TensorFlow casts it.
    out.WriteVarint64(
        static_cast<uint64_t>(static_cast<int64_t>(max_num_elements)));
  }
  TensorShapeProto shape;
  PartialShapeAsProto(element_shape, &shape);
  shape.AppendToString(&metadata);
  proto->set_metadata(std::move(metadata));
}

absl::StatusOr<TensorList> TensorList::Decode(
    const VariantTensorDataProto& proto) {
  const std::string& metadata = proto.metadata();
  google::protobuf::io::CodedInputStream in(
      reinterpret_cast<const uint8_t*>(metadata.data()),
      static_cast<int>(metadata.size()));
  uint64_t num_unset = 0;
  if (!in.ReadVarint64(&num_unset)) return Malformed("no unset count");
  // Every unset index takes at least one byte of metadata.
  if (num_unset > metadata.size()) return Malformed("bad unset count");
  const uint64_t total = static_cast<uint64_t>(proto.tensors_size()) + num_unset;
  if (total > static_cast<uint64_t>(std::numeric_limits<int>::max())) {
    return Malformed("too many elements");
  }
  TensorList list;
  list.tensors.resize(total);
  std::vector<bool> is_unset(total, false);
  uint64_t previous = 0;
  for (uint64_t k = 0; k < num_unset; ++k) {
    uint64_t index = 0;
    if (!in.ReadVarint64(&index)) return Malformed("truncated unset index");
    if (index >= total || (k > 0 && index <= previous)) {
      return Malformed(absl::StrCat("unset index ", index,
                                    " is out of order or past ", total));
    }
    is_unset[index] = true;
    previous = index;
  }
  uint64_t dtype = 0;
  uint64_t max_elements = 0;
  if (!in.ReadVarint64(&dtype) || !in.ReadVarint64(&max_elements)) {
    return Malformed("truncated element dtype or maximum length");
  }
  if (dtype > static_cast<uint64_t>(std::numeric_limits<int>::max()) ||
      !HoldableDtype(static_cast<DataType>(dtype))) {
    return Malformed(absl::StrCat("element dtype ", dtype,
                                  " is not one a tensor holds"));
  }
  list.element_dtype = static_cast<DataType>(dtype);
  if (max_elements == std::numeric_limits<uint64_t>::max()) {
    list.max_num_elements = -1;
  } else if (max_elements <= static_cast<uint64_t>(
                                 std::numeric_limits<int>::max())) {
    list.max_num_elements = static_cast<int>(max_elements);
  } else {
    return Malformed(absl::StrCat("maximum length ", max_elements));
  }
  // The element shape proto takes the rest.
  const int used = in.CurrentPosition();
  TensorShapeProto shape;
  if (!shape.ParseFromArray(metadata.data() + used,
                            static_cast<int>(metadata.size()) - used)) {
    return Malformed("element shape does not parse");
  }
  for (const auto& d : shape.dim()) {
    if (d.size() < -1) {
      return Malformed(absl::StrCat("element shape dim ", d.size()));
    }
  }
  list.element_shape = PartialShape::FromProto(shape);

  int next = 0;
  for (uint64_t i = 0; i < total; ++i) {
    if (is_unset[i]) continue;
    absl::StatusOr<Tensor> t = Tensor::FromProto(proto.tensors(next++));
    if (!t.ok()) return Malformed(t.status().message());
    if (t->dtype() != list.element_dtype) {
      return Malformed(absl::StrCat(
          "element ", i, " is ", DataTypeString(t->dtype()), " in a list of ",
          DataTypeString(list.element_dtype)));
    }
    if (!ShapesCompatible(list.element_shape, t->shape())) {
      return Malformed(absl::StrCat("element ", i, " has shape ",
                                    t->shape().DebugString(),
                                    ", which does not fit the list's ",
                                    list.element_shape.DebugString()));
    }
    list.tensors[i] = *std::move(t);
  }
  return list;
}

std::string TensorList::DebugString() const {
  return absl::StrCat("TensorList<", DataTypeString(element_dtype), ", ",
                      element_shape.DebugString(), ", ", tensors.size(),
                      " elements>");
}

bool ShapesCompatible(const PartialShape& a, const PartialShape& b) {
  if (a.unknown_rank || b.unknown_rank) return true;
  if (a.rank() != b.rank()) return false;
  for (int i = 0; i < a.rank(); ++i) {
    if (a.dims[i] >= 0 && b.dims[i] >= 0 && a.dims[i] != b.dims[i]) {
      return false;
    }
  }
  return true;
}

bool ShapesCompatible(const PartialShape& a, const TensorShape& b) {
  return ShapesCompatible(a, ToPartialShape(b));
}

absl::StatusOr<PartialShape> MergeShapes(const PartialShape& a,
                                         const PartialShape& b) {
  if (a.unknown_rank) return b;
  if (b.unknown_rank) return a;
  if (!ShapesCompatible(a, b)) {
    return absl::InvalidArgumentError(
        absl::StrCat("Incompatible shapes during merge: ", a.DebugString(),
                     " vs. ", b.DebugString()));
  }
  PartialShape out = a;
  for (int i = 0; i < a.rank(); ++i) {
    if (out.dims[i] < 0) out.dims[i] = b.dims[i];
  }
  return out;
}

PartialShape ToPartialShape(const TensorShape& shape) {
  return PartialShape::Known(
      std::vector<int64_t>(shape.dim_sizes().begin(), shape.dim_sizes().end()));
}

bool ToTensorShape(const PartialShape& shape, TensorShape* out) {
  if (!shape.FullyDefined()) return false;
  absl::StatusOr<TensorShape> s = TensorShape::Build(shape.dims);
  if (!s.ok()) return false;
  *out = *std::move(s);
  return true;
}

void PartialShapeAsProto(const PartialShape& shape, TensorShapeProto* proto) {
  proto->Clear();
  if (shape.unknown_rank) {
    proto->set_unknown_rank(true);
    return;
  }
  for (int64_t d : shape.dims) proto->add_dim()->set_size(d < 0 ? -1 : d);
}

}  // namespace dfx

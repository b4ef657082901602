#include "runtime/tensor.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <new>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/types.h"
#include "runtime/bfc_allocator.h"
#include "runtime/internal/small_blocks.h"
#include "runtime/memory_limit.h"
#include "runtime/quantized_types.h"
#include "runtime/variant.h"

namespace dfx {
namespace {

// Memory from an Allocator; for DT_STRING, DT_RESOURCE and DT_VARIANT the
// elements are constructed and destroyed with the buffer.
class AllocatedBuffer final : public TensorBuffer {
 public:
  AllocatedBuffer(Allocator* allocator, void* data, size_t size,
                  DataType dtype, int64_t num_objects)
      : TensorBuffer(data, size),
        allocator_(allocator),
        dtype_(dtype),
        num_objects_(num_objects) {}
  ~AllocatedBuffer() override {
    if (dtype_ == DT_STRING) {
      auto* strings = static_cast<std::string*>(data());
      for (int64_t i = 0; i < num_objects_; ++i) strings[i].~basic_string();
    } else if (dtype_ == DT_RESOURCE) {
      auto* handles = static_cast<ResourceHandle*>(data());
      for (int64_t i = 0; i < num_objects_; ++i) handles[i].~ResourceHandle();
    } else if (dtype_ == DT_VARIANT) {
      auto* variants = static_cast<Variant*>(data());
      for (int64_t i = 0; i < num_objects_; ++i) variants[i].~Variant();
    }
    allocator_->DeallocateRaw(data(), size());
  }
  bool OnHost() const override { return allocator_->IsHostMemory(); }
  bool OwnsMemory() const override { return true; }

 private:
  Allocator* const allocator_;
  const DataType dtype_;
  const int64_t num_objects_;
};

class ExternalBuffer final : public TensorBuffer {
 public:
  ExternalBuffer(void* data, size_t size, std::function<void()> release)
      : TensorBuffer(data, size), release_(std::move(release)) {}
  ~ExternalBuffer() override {
    if (release_) release_();
  }

 private:
  std::function<void()> release_;
};

size_t ElementSize(DataType dtype) {
  if (dtype == DT_STRING) return sizeof(std::string);
  if (dtype == DT_RESOURCE) return sizeof(ResourceHandle);
  if (dtype == DT_VARIANT) return sizeof(Variant);
  return static_cast<size_t>(DataTypeSize(dtype));
}

// Appends `v` as a base-128 varint.
void PutVarint64(std::string* out, uint64_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

bool GetVarint64(absl::string_view* in, uint64_t* v) {
  uint64_t result = 0;
  for (int shift = 0; shift <= 63 && !in->empty(); shift += 7) {
    const uint8_t byte = static_cast<uint8_t>((*in)[0]);
    in->remove_prefix(1);
    result |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) {
      *v = result;
      return true;
    }
  }
  return false;
}

template <typename T, typename Field>
absl::Status FillFromField(const Field& field, Tensor* t) {
  const int64_t n = t->NumElements();
  const int64_t have = field.size();
  if (have > n) {
    return absl::InvalidArgumentError(
        absl::StrCat("TensorProto has ", have, " values for shape ",
                     t->shape().DebugString(), " (", n, " elements)"));
  }
  T* out = t->data<T>();
  if (have == 0) {
    // TensorFlow reads a proto with a shape and no values as zeros (frozen
    // Keras graphs carry such constants).
    for (int64_t i = 0; i < n; ++i) out[i] = T();
    return absl::OkStatus();
  }
  for (int64_t i = 0; i < have; ++i) out[i] = static_cast<T>(field.Get(i));
  for (int64_t i = have; i < n; ++i) out[i] = out[have - 1];
  return absl::OkStatus();
}

// Complex values come as (real, imaginary) pairs in scomplex_val or
// dcomplex_val; a short list is padded with its last pair.
template <typename T, typename Field>
absl::Status FillFromComplexField(const Field& field, Tensor* t) {
  const int64_t n = t->NumElements();
  if (field.size() % 2 != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "TensorProto has an odd number (", field.size(),
        ") of complex components"));
  }
  const int64_t have = field.size() / 2;
  if (have > n) {
    return absl::InvalidArgumentError(
        absl::StrCat("TensorProto has ", have, " values for shape ",
                     t->shape().DebugString(), " (", n, " elements)"));
  }
  T* out = t->data<T>();
  for (int64_t i = 0; i < have; ++i) {
    out[i] = T(field.Get(static_cast<int>(2 * i)),
               field.Get(static_cast<int>(2 * i + 1)));
  }
  for (int64_t i = have; i < n; ++i) out[i] = have == 0 ? T() : out[have - 1];
  return absl::OkStatus();
}

template <typename T>
absl::Status FillFromHalfField(const TensorProto& proto, Tensor* t) {
  const int64_t n = t->NumElements();
  const int64_t have = proto.half_val_size();
  if (have > n) {
    return absl::InvalidArgumentError(
        absl::StrCat("TensorProto has ", have, " half values for ", n,
                     " elements"));
  }
  T* out = t->data<T>();
  if (have == 0) {  // zeros, as FillFromField
    for (int64_t i = 0; i < n; ++i) out[i] = T();
    return absl::OkStatus();
  }
  for (int64_t i = 0; i < have; ++i) {
    out[i] = Eigen::numext::bit_cast<T>(
        static_cast<uint16_t>(proto.half_val(i)));
  }
  for (int64_t i = have; i < n; ++i) out[i] = out[have - 1];
  return absl::OkStatus();
}

template <typename T>
void AppendValue(std::string* out, const T& v) {
  if constexpr (std::is_same_v<T, bool>) {
    absl::StrAppend(out, v ? "true" : "false");
  } else if constexpr (std::is_same_v<T, std::string>) {
    absl::StrAppend(out, "\"", v, "\"");
  } else if constexpr (std::is_same_v<T, int8_t> ||
                       std::is_same_v<T, uint8_t>) {
    absl::StrAppend(out, static_cast<int>(v));
  } else if constexpr (std::is_floating_point_v<T> ||
                       std::is_integral_v<T>) {
    absl::StrAppend(out, v);
  } else {
    absl::StrAppend(out, "?");
  }
}

template <typename T>
void Summarize(const Tensor& t, int64_t limit, std::string* out) {
  const T* data = t.data<T>();
  const int64_t n = t.NumElements();
  if (t.dims() == 0) {
    AppendValue(out, data[0]);
    return;
  }
  // Nested brackets: element i opens a bracket for every dim d whose block
  // (the elements of dims d..rank-1) starts at i, and closes one for every
  // block that ends at i.
  const int rank = t.dims();
  std::vector<int64_t> block(rank, 1);
  int64_t size = 1;
  for (int d = rank - 1; d >= 0; --d) {
    size *= std::max<int64_t>(t.dim_size(d), 1);
    block[d] = size;
  }
  for (int64_t i = 0; i < n && i < limit; ++i) {
    for (int d = 0; d < rank; ++d) {
      if (i % block[d] == 0) out->push_back('[');
    }
    if (out->back() != '[') out->push_back(' ');
    AppendValue(out, data[i]);
    for (int d = 0; d < rank; ++d) {
      if ((i + 1) % block[d] == 0) out->push_back(']');
    }
  }
  if (n > limit) absl::StrAppend(out, "...");
}

}  // namespace

Tensor::Tensor(DataType dtype, const TensorShape& shape)
    : Tensor(CpuAllocator(), dtype, shape) {}

Tensor::Tensor(Allocator* allocator, DataType dtype, const TensorShape& shape) {
  // This constructor cannot report an error: the memory limit does not
  // refuse it (runtime/memory_limit.h).
  UnlimitedAllocationScope unlimited;
  auto t = Allocate(allocator, dtype, shape);
  DFX_CHECK_OK(t.status());
  *this = std::move(t).value();
}

absl::StatusOr<Tensor> Tensor::Allocate(Allocator* allocator, DataType dtype,
                                        const TensorShape& shape) {
  const size_t elem = ElementSize(dtype);
  if (elem == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot allocate a tensor of type ", DataTypeString(dtype)));
  }
  const int64_t n = shape.num_elements();
  if (n > 0 && static_cast<uint64_t>(n) > SIZE_MAX / elem) {
    return absl::ResourceExhaustedError("tensor too large");
  }
  const size_t bytes = static_cast<size_t>(n) * elem;
  void* p = allocator->AllocateRaw(kAllocatorAlignment, bytes);
  if (p == nullptr) {
    const AllocatorStats stats = allocator->GetStats();
    // An allocator with a limit of its own (a GPU's arena) names it; the
    // CPU allocator's is the process's host memory limit.
    const auto* bfc = dynamic_cast<const BfcAllocator*>(allocator);
    const bool own_limit = bfc != nullptr;
    const int64_t limit =
        own_limit ? bfc->GetBfcStats().bytes_limit : HostMemoryLimit();
    return absl::ResourceExhaustedError(absl::StrCat(
        "out of memory allocating ", bytes, " bytes for a ",
        DataTypeString(dtype), " tensor of shape ", shape.DebugString(),
        " from allocator ", allocator->Name(), ": ", stats.bytes_in_use,
        " bytes in use",
        limit > 0 ? absl::StrCat(" of a limit of ", limit,
                                 own_limit ? "" : " (dfx server --memory-limit)")
                  : std::string()));
  }
  int64_t num_objects = 0;
  if (dtype == DT_STRING) {
    auto* s = static_cast<std::string*>(p);
    for (int64_t i = 0; i < n; ++i) new (s + i) std::string();
    num_objects = n;
  } else if (dtype == DT_RESOURCE) {
    auto* h = static_cast<ResourceHandle*>(p);
    for (int64_t i = 0; i < n; ++i) new (h + i) ResourceHandle();
    num_objects = n;
  } else if (dtype == DT_VARIANT) {
    auto* v = static_cast<Variant*>(p);
    for (int64_t i = 0; i < n; ++i) new (v + i) Variant();
    num_objects = n;
  }
  // The shared header from a per-thread free list, as small buffers are:
  // a cheap kernel's output costs two list pops, not two mallocs.
  auto buf = std::allocate_shared<AllocatedBuffer>(
      runtime_internal::SmallBlockAllocator<AllocatedBuffer>(), allocator, p,
      bytes, dtype, num_objects);
  return Tensor(dtype, shape, SharedRef<TensorBuffer>(std::move(buf)), p);
}

Tensor Tensor::FromExternal(DataType dtype, const TensorShape& shape,
                            void* data, size_t size,
                            std::function<void()> release) {
  DFX_CHECK(DataTypeCanMemcpy(dtype));
  DFX_CHECK(size >= static_cast<size_t>(shape.num_elements()) *
                        ElementSize(dtype));
  auto buf = std::make_shared<ExternalBuffer>(data, size, std::move(release));
  return Tensor(dtype, shape, SharedRef<TensorBuffer>(std::move(buf)),
                data);
}

size_t Tensor::TotalBytes() const {
  return static_cast<size_t>(NumElements()) * ElementSize(dtype_);
}

Tensor Tensor::Slice(int64_t start, int64_t limit) const {
  DFX_CHECK(dims() >= 1);
  DFX_CHECK(0 <= start && start <= limit && limit <= dim_size(0));
  const int64_t row = dim_size(0) == 0 ? 0 : NumElements() / dim_size(0);
  TensorShape shape = shape_;
  shape.set_dim(0, limit - start);
  char* base = static_cast<char*>(data_);
  return Tensor(dtype_, std::move(shape), buf_,
                base == nullptr ? nullptr
                                : base + start * row * ElementSize(dtype_));
}

absl::StatusOr<Tensor> Tensor::Reshaped(const TensorShape& shape) const {
  if (shape.num_elements() != NumElements()) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot reshape a tensor of shape ", shape_.DebugString(),
                     " (", NumElements(), " elements) to ",
                     shape.DebugString(), " (", shape.num_elements(),
                     " elements)"));
  }
  return Tensor(dtype_, shape, buf_, data_);
}

Tensor Tensor::DeepCopy() const {
  Tensor copy(dtype_, shape_);
  if (dtype_ == DT_STRING) {
    const std::string* src = data<std::string>();
    std::string* dst = copy.data<std::string>();
    for (int64_t i = 0; i < NumElements(); ++i) dst[i] = src[i];
  } else if (dtype_ == DT_RESOURCE) {
    const ResourceHandle* src = data<ResourceHandle>();
    ResourceHandle* dst = copy.data<ResourceHandle>();
    for (int64_t i = 0; i < NumElements(); ++i) dst[i] = src[i];
  } else if (dtype_ == DT_VARIANT) {
    // Values are immutable: the copy shares them.
    const Variant* src = data<Variant>();
    Variant* dst = copy.data<Variant>();
    for (int64_t i = 0; i < NumElements(); ++i) dst[i] = src[i];
  } else if (TotalBytes() > 0) {
    std::memcpy(copy.data_, data_, TotalBytes());
  }
  return copy;
}

absl::StatusOr<Tensor> Tensor::FromProto(const TensorProto& proto,
                                         Allocator* allocator) {
  if (allocator == nullptr) allocator = CpuAllocator();
  const DataType dtype = proto.dtype();
  if (ElementSize(dtype) == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "TensorProto has unsupported dtype ", DataTypeString(dtype)));
  }
  DFX_ASSIGN_OR_RETURN(TensorShape shape,
                       TensorShape::FromProto(proto.tensor_shape()));
  DFX_ASSIGN_OR_RETURN(Tensor t, Allocate(allocator, dtype, shape));
  const int64_t n = shape.num_elements();
  const std::string& content = proto.tensor_content();

  if (!content.empty()) {
    if (dtype == DT_STRING || dtype == DT_RESOURCE || dtype == DT_VARIANT) {
      // TensorFlow's list encoding: every length as a varint, then the
      // bytes (serialized ResourceHandleProtos for resources,
      // VariantTensorDataProtos for variants).
      absl::string_view in(content);
      std::vector<uint64_t> lengths(n);
      for (int64_t i = 0; i < n; ++i) {
        if (!GetVarint64(&in, &lengths[i])) {
          return absl::InvalidArgumentError(absl::StrCat(
              "malformed ", DataTypeString(dtype),
              " tensor_content: bad length prefix"));
        }
      }
      for (int64_t i = 0; i < n; ++i) {
        if (lengths[i] > in.size()) {
          return absl::InvalidArgumentError(absl::StrCat(
              "malformed ", DataTypeString(dtype),
              " tensor_content: element runs past the end"));
        }
        absl::string_view bytes = in.substr(0, lengths[i]);
        in.remove_prefix(lengths[i]);
        if (dtype == DT_STRING) {
          t.data<std::string>()[i].assign(bytes.data(), bytes.size());
          continue;
        }
        if (dtype == DT_VARIANT) {
          VariantTensorDataProto variant;
          if (!variant.ParseFromArray(bytes.data(),
                                      static_cast<int>(bytes.size()))) {
            return absl::InvalidArgumentError(
                "malformed variant tensor_content: an element does not parse");
          }
          DFX_ASSIGN_OR_RETURN(t.data<Variant>()[i], Variant::Decode(variant));
          continue;
        }
        ResourceHandleProto handle;
        if (!handle.ParseFromArray(bytes.data(),
                                   static_cast<int>(bytes.size()))) {
          return absl::InvalidArgumentError(
              "malformed resource tensor_content: a handle does not parse");
        }
        t.data<ResourceHandle>()[i].FromProto(handle);
      }
      if (!in.empty()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "malformed ", DataTypeString(dtype),
            " tensor_content: trailing bytes"));
      }
      return t;
    }
    if (content.size() != t.TotalBytes()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "TensorProto tensor_content has ", content.size(),
          " bytes, but a ", DataTypeString(dtype), " tensor of shape ",
          shape.DebugString(), " needs ", t.TotalBytes()));
    }
    std::memcpy(t.data_, content.data(), content.size());
    return t;
  }
  if (n == 0) return t;

  switch (dtype) {
    case DT_FLOAT:
      DFX_RETURN_IF_ERROR(FillFromField<float>(proto.float_val(), &t));
      break;
    case DT_DOUBLE:
      DFX_RETURN_IF_ERROR(FillFromField<double>(proto.double_val(), &t));
      break;
    case DT_INT32:
      DFX_RETURN_IF_ERROR(FillFromField<int32_t>(proto.int_val(), &t));
      break;
    case DT_INT16:
      DFX_RETURN_IF_ERROR(FillFromField<int16_t>(proto.int_val(), &t));
      break;
    case DT_INT8:
      DFX_RETURN_IF_ERROR(FillFromField<int8_t>(proto.int_val(), &t));
      break;
    case DT_UINT8:
      DFX_RETURN_IF_ERROR(FillFromField<uint8_t>(proto.int_val(), &t));
      break;
    case DT_UINT16:
      DFX_RETURN_IF_ERROR(FillFromField<uint16_t>(proto.int_val(), &t));
      break;
    case DT_QINT8:
    case DT_QUINT8:
    case DT_QINT16:
    case DT_QUINT16:
    case DT_QINT32: {
      // TensorFlow writes quantized values to int_val as their integers.
      absl::Status s;
      VisitQuantizedType(dtype, [&]<typename Q>() {
        s = FillFromField<Q>(proto.int_val(), &t);
      });
      DFX_RETURN_IF_ERROR(s);
      break;
    }
    case DT_INT64:
      DFX_RETURN_IF_ERROR(FillFromField<int64_t>(proto.int64_val(), &t));
      break;
    case DT_UINT32:
      DFX_RETURN_IF_ERROR(FillFromField<uint32_t>(proto.uint32_val(), &t));
      break;
    case DT_UINT64:
      DFX_RETURN_IF_ERROR(FillFromField<uint64_t>(proto.uint64_val(), &t));
      break;
    case DT_BOOL:
      DFX_RETURN_IF_ERROR(FillFromField<bool>(proto.bool_val(), &t));
      break;
    case DT_HALF:
      DFX_RETURN_IF_ERROR(FillFromHalfField<Eigen::half>(proto, &t));
      break;
    case DT_BFLOAT16:
      DFX_RETURN_IF_ERROR(FillFromHalfField<Eigen::bfloat16>(proto, &t));
      break;
    case DT_STRING: {
      // A short list is padded with its last value: n copies of a long
      // string from a few bytes of proto. Their heap bytes are not the
      // allocator's, so the limit is checked for them first.
      const auto& values = proto.string_val();
      if (values.size() > 0 && values.size() < n) {
        const uint64_t last = values.Get(values.size() - 1).size();
        const uint64_t padded = static_cast<uint64_t>(n - values.size());
        if (last > 0) {
          const int64_t bytes =
              padded > static_cast<uint64_t>(INT64_MAX) / last
                  ? INT64_MAX
                  : static_cast<int64_t>(padded * last);
          DFX_RETURN_IF_ERROR(CheckHostMemoryHeadroom(
              bytes, absl::StrCat("padding a string TensorProto of shape ",
                                  shape.DebugString(), " with ", padded,
                                  " copies of a ", last, "-byte value")));
        }
      }
      DFX_RETURN_IF_ERROR(FillFromField<std::string>(values, &t));
      break;
    }
    case DT_COMPLEX64:
      DFX_RETURN_IF_ERROR(FillFromComplexField<std::complex<float>>(
          proto.scomplex_val(), &t));
      break;
    case DT_COMPLEX128:
      DFX_RETURN_IF_ERROR(FillFromComplexField<std::complex<double>>(
          proto.dcomplex_val(), &t));
      break;
    case DT_RESOURCE: {
      if (proto.resource_handle_val_size() != n) {
        return absl::InvalidArgumentError(absl::StrCat(
            "TensorProto of type resource has ",
            proto.resource_handle_val_size(), " handles for ", n,
            " elements"));
      }
      ResourceHandle* out = t.data<ResourceHandle>();
      for (int64_t i = 0; i < n; ++i) {
        out[i].FromProto(proto.resource_handle_val(static_cast<int>(i)));
      }
      break;
    }
    case DT_VARIANT: {
      if (proto.variant_val_size() != n) {
        return absl::InvalidArgumentError(absl::StrCat(
            "TensorProto of type variant has ", proto.variant_val_size(),
            " values for ", n, " elements"));
      }
      Variant* out = t.data<Variant>();
      for (int64_t i = 0; i < n; ++i) {
        DFX_ASSIGN_OR_RETURN(
            out[i], Variant::Decode(proto.variant_val(static_cast<int>(i))));
      }
      break;
    }
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("TensorProto of type ", DataTypeString(dtype),
                       " needs tensor_content"));
  }
  return t;
}

void Tensor::AsProtoTensorContent(TensorProto* proto) const {
  proto->Clear();
  proto->set_dtype(dtype_);
  shape_.AsProto(proto->mutable_tensor_shape());
  if (dtype_ == DT_STRING) {
    std::string* out = proto->mutable_tensor_content();
    const std::string* s = data<std::string>();
    for (int64_t i = 0; i < NumElements(); ++i) PutVarint64(out, s[i].size());
    for (int64_t i = 0; i < NumElements(); ++i) out->append(s[i]);
    return;
  }
  if (dtype_ == DT_RESOURCE) {
    // Handles always travel in resource_handle_val, which TensorFlow reads
    // too.
    AsProtoField(proto);
    return;
  }
  if (dtype_ == DT_VARIANT) {
    // As strings: every length, then the serialized VariantTensorDataProtos.
    std::vector<std::string> encoded(static_cast<size_t>(NumElements()));
    const Variant* v = data<Variant>();
    for (int64_t i = 0; i < NumElements(); ++i) {
      VariantTensorDataProto element;
      v[i].Encode(&element);
      encoded[i] = element.SerializeAsString();
    }
    std::string* out = proto->mutable_tensor_content();
    for (const std::string& e : encoded) PutVarint64(out, e.size());
    for (const std::string& e : encoded) out->append(e);
    return;
  }
  if (TotalBytes() > 0) {
    proto->set_tensor_content(data_, TotalBytes());
  }
}

void Tensor::AsProtoField(TensorProto* proto) const {
  proto->Clear();
  proto->set_dtype(dtype_);
  shape_.AsProto(proto->mutable_tensor_shape());
  const int64_t n = NumElements();
  auto copy = [&](auto* field, auto type_tag) {
    using T = decltype(type_tag);
    const T* d = static_cast<const T*>(data_);
    field->Reserve(static_cast<int>(n));
    for (int64_t i = 0; i < n; ++i) field->Add(d[i]);
  };
  switch (dtype_) {
    case DT_FLOAT: copy(proto->mutable_float_val(), float{}); break;
    case DT_DOUBLE: copy(proto->mutable_double_val(), double{}); break;
    case DT_INT32: copy(proto->mutable_int_val(), int32_t{}); break;
    case DT_INT16: copy(proto->mutable_int_val(), int16_t{}); break;
    case DT_INT8: copy(proto->mutable_int_val(), int8_t{}); break;
    case DT_UINT8: copy(proto->mutable_int_val(), uint8_t{}); break;
    case DT_UINT16: copy(proto->mutable_int_val(), uint16_t{}); break;
    case DT_QINT8:
    case DT_QUINT8:
    case DT_QINT16:
    case DT_QUINT16:
    case DT_QINT32:
      VisitQuantizedType(dtype_, [&]<typename Q>() {
        const Q* d = static_cast<const Q*>(data_);
        for (int64_t i = 0; i < n; ++i) proto->add_int_val(d[i].value);
      });
      break;
    case DT_INT64: copy(proto->mutable_int64_val(), int64_t{}); break;
    case DT_UINT32: copy(proto->mutable_uint32_val(), uint32_t{}); break;
    case DT_UINT64: copy(proto->mutable_uint64_val(), uint64_t{}); break;
    case DT_BOOL: copy(proto->mutable_bool_val(), bool{}); break;
    case DT_HALF:
    case DT_BFLOAT16: {
      const uint16_t* d = static_cast<const uint16_t*>(data_);
      for (int64_t i = 0; i < n; ++i) proto->add_half_val(d[i]);
      break;
    }
    case DT_STRING: {
      const std::string* s = data<std::string>();
      for (int64_t i = 0; i < n; ++i) proto->add_string_val(s[i]);
      break;
    }
    case DT_RESOURCE: {
      const ResourceHandle* h = data<ResourceHandle>();
      for (int64_t i = 0; i < n; ++i) {
        h[i].AsProto(proto->add_resource_handle_val());
      }
      break;
    }
    case DT_VARIANT: {
      const Variant* v = data<Variant>();
      for (int64_t i = 0; i < n; ++i) v[i].Encode(proto->add_variant_val());
      break;
    }
    default:
      if (TotalBytes() > 0) proto->set_tensor_content(data_, TotalBytes());
  }
}

std::string Tensor::SummarizeValue(int64_t max_entries) const {
  std::string out;
  if (NumElements() == 0) return "[]";
  if (!IsInitialized()) return "<uninitialized>";
  switch (dtype_) {
    case DT_FLOAT: Summarize<float>(*this, max_entries, &out); break;
    case DT_DOUBLE: Summarize<double>(*this, max_entries, &out); break;
    case DT_INT32: Summarize<int32_t>(*this, max_entries, &out); break;
    case DT_INT64: Summarize<int64_t>(*this, max_entries, &out); break;
    case DT_INT16: Summarize<int16_t>(*this, max_entries, &out); break;
    case DT_INT8: Summarize<int8_t>(*this, max_entries, &out); break;
    case DT_UINT8: Summarize<uint8_t>(*this, max_entries, &out); break;
    case DT_UINT16: Summarize<uint16_t>(*this, max_entries, &out); break;
    case DT_QINT8:
    case DT_QUINT8:
    case DT_QINT16:
    case DT_QUINT16:
    case DT_QINT32: {
      // As their integers, as TensorFlow prints them.
      const int64_t k = std::min<int64_t>(NumElements(), max_entries);
      VisitQuantizedType(dtype_, [&]<typename Q>() {
        const Q* d = static_cast<const Q*>(data_);
        for (int64_t i = 0; i < k; ++i) {
          absl::StrAppend(&out, i == 0 ? "" : " ",
                          static_cast<int64_t>(d[i].value));
        }
      });
      if (k < NumElements()) absl::StrAppend(&out, "...");
      break;
    }
    case DT_UINT32: Summarize<uint32_t>(*this, max_entries, &out); break;
    case DT_UINT64: Summarize<uint64_t>(*this, max_entries, &out); break;
    case DT_BOOL: Summarize<bool>(*this, max_entries, &out); break;
    case DT_STRING: Summarize<std::string>(*this, max_entries, &out); break;
    case DT_RESOURCE: {
      const ResourceHandle* h = data<ResourceHandle>();
      const int64_t k = std::min<int64_t>(NumElements(), max_entries);
      for (int64_t i = 0; i < k; ++i) {
        absl::StrAppend(&out, i == 0 ? "" : " ", "<", h[i].DebugString(), ">");
      }
      if (k < NumElements()) absl::StrAppend(&out, "...");
      break;
    }
    case DT_VARIANT: {
      const Variant* v = data<Variant>();
      const int64_t k = std::min<int64_t>(NumElements(), max_entries);
      for (int64_t i = 0; i < k; ++i) {
        absl::StrAppend(&out, i == 0 ? "" : " ", v[i].DebugString());
      }
      if (k < NumElements()) absl::StrAppend(&out, "...");
      break;
    }
    default: out = "<values not printable>";
  }
  return out;
}

std::string Tensor::DebugString(int max_entries) const {
  return absl::StrCat("Tensor<type: ", DataTypeString(dtype_),
                      " shape: ", shape_.DebugString(),
                      " values: ", SummarizeValue(max_entries), ">");
}

}  // namespace dfx

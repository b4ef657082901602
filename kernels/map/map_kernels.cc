// TensorMap kernels (CPU, keys and values of every dtype): EmptyTensorMap,
// TensorMapSize, TensorMapLookup, TensorMapInsert, TensorMapErase,
// TensorMapHasKey and TensorMapStackKeys, with TensorFlow 2.21's semantics
// and error codes (tests/golden/gen_tmap.py). A map is never changed once a
// variant holds it: Insert and Erase build a new one, taking the input's
// over when nothing else can see it (as TensorList's kernels do), so a loop
// that inserts n keys copies no map.
//
// TensorMapStackKeys stacks the keys in the map's iteration order, which
// neither TensorFlow nor dfx specifies (both hash the keys).
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "kernels/list/list_util.h"
#include "kernels/map/tensor_map.h"

namespace dfx {

namespace {

bool ComparesByBytes(DataType t) {
  return t != DT_STRING && t != DT_VARIANT && t != DT_RESOURCE;
}

std::string_view Bytes(const Tensor& t) {
  return std::string_view(static_cast<const char*>(t.raw_data()),
                          t.TotalBytes());
}

}  // namespace

size_t TensorMap::KeyHash::operator()(const Tensor& key) const {
  size_t h = std::hash<int>()(key.dtype());
  auto mix = [&h](size_t x) {
    h ^= x + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  };
  for (int64_t d : key.shape().dim_sizes()) mix(std::hash<int64_t>()(d));
  if (ComparesByBytes(key.dtype())) {
    mix(std::hash<std::string_view>()(Bytes(key)));
  } else if (key.dtype() == DT_STRING) {
    for (const std::string& s : key.span<std::string>()) {
      mix(std::hash<std::string>()(s));
    }
  }
  return h;
}

bool TensorMap::KeyEq::operator()(const Tensor& a, const Tensor& b) const {
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) return false;
  if (ComparesByBytes(a.dtype())) return Bytes(a) == Bytes(b);
  if (a.dtype() == DT_STRING) {
    auto x = a.span<std::string>();
    auto y = b.span<std::string>();
    for (size_t i = 0; i < x.size(); ++i) {
      if (x[i] != y[i]) return false;
    }
    return true;
  }
  return false;
}

void TensorMap::Encode(VariantTensorDataProto* proto) const {
  for (const auto& [key, value] : tensors) {
    key.AsProtoField(proto->add_tensors());
    value.AsProtoField(proto->add_tensors());
  }
}

std::string TensorMap::DebugString() const {
  return absl::StrCat("TensorMap<", tensors.size(), " entries>");
}

absl::StatusOr<TensorMap> TensorMap::Decode(
    const VariantTensorDataProto& proto) {
  if (proto.tensors_size() % 2 != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "malformed tensorflow::TensorMap variant: ", proto.tensors_size(),
        " tensors, not key and value pairs"));
  }
  TensorMap map;
  for (int i = 0; i < proto.tensors_size(); i += 2) {
    DFX_ASSIGN_OR_RETURN(Tensor key, Tensor::FromProto(proto.tensors(i)));
    DFX_ASSIGN_OR_RETURN(Tensor value, Tensor::FromProto(proto.tensors(i + 1)));
    map.tensors.insert_or_assign(std::move(key), std::move(value));
  }
  return map;
}

namespace {

// The map input `index` holds: `map` borrows from the input, or from
// `holder` for a map decoded from the wire.
struct InputMap {
  const TensorMap* map = nullptr;
  std::shared_ptr<const TensorMap> holder;
};

absl::StatusOr<InputMap> GetInputMap(OpKernelContext* ctx, int index) {
  const Tensor& t = ctx->input(index);
  if (t.dims() != 0 || !t.IsInitialized()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Input map must be a scalar. Saw: ", t.shape().DebugString()));
  }
  const Variant& v = t.scalar<Variant>();
  InputMap in;
  DFX_ASSIGN_OR_RETURN(in.map, GetVariantValue<TensorMap>(v, &in.holder));
  if (in.map == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Input handle is not a map. Saw: '", v.DebugString(), "'"));
  }
  return in;
}

// A map to modify and return: the input's moved out when nothing else can
// see it (see list_internal::TakeOrCopyList), otherwise a copy (which
// shares the key and value tensors).
TensorMap TakeOrCopyMap(OpKernelContext* ctx, int index, const InputMap& in) {
  const Tensor& t = ctx->input(index);
  if (in.holder == nullptr && !ctx->input_aliased(index) &&
      t.BufferUnshared() && t.scalar<Variant>().Unique()) {
    return std::move(const_cast<TensorMap&>(*in.map));
  }
  return *in.map;
}

absl::Status SetOutputMap(OpKernelContext* ctx, TensorMap map) {
  Tensor* out = nullptr;
  DFX_RETURN_IF_ERROR(ctx->allocate_output(0, TensorShape(), &out));
  out->scalar<Variant>() = Variant::Make<TensorMap>(std::move(map));
  return absl::OkStatus();
}

absl::Status MissingKey(const char* what, const Tensor& key) {
  return absl::InvalidArgumentError(
      absl::StrCat("Trying to ", what, ". Could not find key \"",
                   key.SummarizeValue(100), "\"."));
}

class EmptyTensorMapOp : public OpKernel {
 public:
  explicit EmptyTensorMapOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    DFX_OP_REQUIRES_OK(ctx, SetOutputMap(ctx, TensorMap()));
  }
};

class TensorMapSizeOp : public OpKernel {
 public:
  explicit TensorMapSizeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<InputMap> in = GetInputMap(ctx, 0);
    DFX_OP_REQUIRES_OK(ctx, in.status());
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(), &out));
    out->scalar<int32_t>() = static_cast<int32_t>(in->map->tensors.size());
  }
};

class TensorMapLookupOp : public OpKernel {
 public:
  explicit TensorMapLookupOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<InputMap> in = GetInputMap(ctx, 0);
    DFX_OP_REQUIRES_OK(ctx, in.status());
    const Tensor& key = ctx->input(1);
    auto it = in->map->tensors.find(key);
    DFX_OP_REQUIRES(ctx, it != in->map->tensors.end(),
                    MissingKey("lookup non-existent key", key));
    // The value's dtype is the op's value_dtype in TensorFlow's graphs;
    // one that is not would break the executor's typing.
    DFX_OP_REQUIRES(
        ctx, it->second.dtype() == output_type(0),
        absl::InvalidArgumentError(absl::StrCat(
            "TensorMapLookup: the value of key \"", key.SummarizeValue(100),
            "\" is ", DataTypeString(it->second.dtype()), ", value_dtype is ",
            DataTypeString(output_type(0)))));
    ctx->set_output(0, it->second);
  }
};

class TensorMapInsertOp : public OpKernel {
 public:
  explicit TensorMapInsertOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<InputMap> in = GetInputMap(ctx, 0);
    DFX_OP_REQUIRES_OK(ctx, in.status());
    TensorMap map = TakeOrCopyMap(ctx, 0, *in);
    map.tensors.insert_or_assign(ctx->input(1), ctx->input(2));
    DFX_OP_REQUIRES_OK(ctx, SetOutputMap(ctx, std::move(map)));
  }
};

class TensorMapEraseOp : public OpKernel {
 public:
  explicit TensorMapEraseOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<InputMap> in = GetInputMap(ctx, 0);
    DFX_OP_REQUIRES_OK(ctx, in.status());
    const Tensor& key = ctx->input(1);
    DFX_OP_REQUIRES(ctx, in->map->tensors.count(key) > 0,
                    MissingKey("erase non-existent item", key));
    TensorMap map = TakeOrCopyMap(ctx, 0, *in);
    map.tensors.erase(key);
    DFX_OP_REQUIRES_OK(ctx, SetOutputMap(ctx, std::move(map)));
  }
};

class TensorMapHasKeyOp : public OpKernel {
 public:
  explicit TensorMapHasKeyOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<InputMap> in = GetInputMap(ctx, 0);
    DFX_OP_REQUIRES_OK(ctx, in.status());
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(), &out));
    out->scalar<bool>() = in->map->tensors.count(ctx->input(1)) > 0;
  }
};

class TensorMapStackKeysOp : public OpKernel {
 public:
  explicit TensorMapStackKeysOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("key_dtype", &key_dtype_));
  }
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<InputMap> in = GetInputMap(ctx, 0);
    DFX_OP_REQUIRES_OK(ctx, in.status());
    const TensorMap::Map& m = in->map->tensors;
    DFX_OP_REQUIRES(ctx, !m.empty(),
                    absl::InvalidArgumentError(
                        "TensorMapStackKeys cannot be called on empty map."));
    const TensorShape& key_shape = m.begin()->first.shape();
    for (const auto& entry : m) {
      DFX_OP_REQUIRES(
          ctx, entry.first.dtype() == key_dtype_,
          absl::InvalidArgumentError("Key does not match requested dtype."));
      DFX_OP_REQUIRES(
          ctx, entry.first.shape() == key_shape,
          absl::InvalidArgumentError("Keys must all have the same shape."));
    }
    absl::StatusOr<TensorShape> shape =
        list_internal::PrependDim(static_cast<int64_t>(m.size()), key_shape);
    DFX_OP_REQUIRES_OK(ctx, shape.status());
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &out));
    const int64_t n = key_shape.num_elements();
    int64_t i = 0;
    for (const auto& entry : m) {
      list_internal::CopyElements(entry.first, 0, out, i * n, n);
      ++i;
    }
  }

 private:
  DataType key_dtype_ = DT_INVALID;
};

}  // namespace

void RegisterTensorMapKernels(KernelRegistry* registry) {
  RegisterKernel<EmptyTensorMapOp>(registry,
                                   KernelDefBuilder("EmptyTensorMap"));
  RegisterKernel<TensorMapSizeOp>(registry, KernelDefBuilder("TensorMapSize"));
  RegisterKernel<TensorMapLookupOp>(registry,
                                    KernelDefBuilder("TensorMapLookup"));
  RegisterKernel<TensorMapInsertOp>(registry,
                                    KernelDefBuilder("TensorMapInsert"));
  RegisterKernel<TensorMapEraseOp>(registry,
                                   KernelDefBuilder("TensorMapErase"));
  RegisterKernel<TensorMapHasKeyOp>(registry,
                                    KernelDefBuilder("TensorMapHasKey"));
  RegisterKernel<TensorMapStackKeysOp>(registry,
                                       KernelDefBuilder("TensorMapStackKeys"));
}

void RegisterTmapKernels(KernelRegistry* registry) {
  RegisterTensorMapKernels(registry);
  RegisterRaggedVariantKernels(registry);
}

}  // namespace dfx

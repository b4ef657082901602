// Kernels of the lookup-table ops (graph/ops/lookup_ops.cc), TensorFlow
// 2.21's semantics (core/kernels/lookup_table_op.*, lookup_table_init_op.cc,
// lookup_util.cc):
//
// - HashTableV2 makes (or finds) a read-only table in the device's resource
//   manager. It is filled once, by InitializeTableV2 (keys, values) or
//   InitializeTableFromTextFileV2 (a file), or by LookupTableImportV2; Find
//   before that fails FailedPrecondition "Table not initialized."; a second
//   initialization with as many entries is a no-op, with another number an
//   error; a key given twice with two values is an error. Insert and Remove
//   are Unimplemented.
// - MutableHashTableV2 makes a table that Insert (insert or overwrite),
//   Remove and Import (clear, then insert) change at any time.
//
// - MutableHashTableOfTensors(V2) maps each key to a vector of value_shape.
// - AnonymousHashTable, AnonymousMutableHashTable and
//   AnonymousMutableHashTableOfTensors make a new table of the step on
//   every run (CreateAnonymousTable).
// - The table resource (kernels/lookup/lookup_table.h) is shared with
//   MutableDenseHashTable (dense_hash_table.cc), which these kernels drive
//   as well.
//
// The TF1 forms (HashTable, MutableHashTable, LookupTableFind, ...) name
// the same tables through a reference to a [2] string handle (container,
// name) instead of a DT_RESOURCE handle.
//
// Tables live across steps, as variables do: a graph runs its initializer
// once, then finds keys in later steps of the session. As in TensorFlow, a
// table without a shared_name belongs to its kernel (one per node and
// session), and use_node_name_sharing names it after the node.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "base/logging.h"
#include "base/status_macros.h"
#include "graph/node_def_util.h"
#include "kernels/data_flow/data_flow_util.h"
#include "kernels/kernels.h"
#include "kernels/lookup/lookup_table.h"
#include "kernels/state/variable_util.h"
#include "runtime/file_policy.h"
#include "runtime/resource_mgr.h"

namespace dfx {
namespace {

std::atomic<int64_t> next_table_id{0};

template <typename T>
std::string ToText(const T& v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v ? "1" : "0";
  } else {
    return absl::StrCat(v);
  }
}

template <typename K, typename V>
class TypedTable final : public LookupTable {
 public:
  using LookupTable::LookupTable;

  std::string DebugString() const override {
    return absl::StrCat(initializable() ? "HashTable" : "MutableHashTable",
                        " of ", DataTypeString(key_dtype()), " to ",
                        DataTypeString(value_dtype()), ", ", size(),
                        " entries");
  }

  int64_t size() const override {
    absl::ReaderMutexLock lock(&mu_);
    return static_cast<int64_t>(map_.size());
  }

  absl::Status Find(const Tensor& keys, const Tensor& dflt,
                    Tensor* out) const override {
    const K* k = keys.data<K>();
    const V* d = dflt.data<V>();
    V* o = out->data<V>();
    const int64_t n = keys.NumElements();
    const bool per_key =
        !initializable() && dflt.NumElements() == out->NumElements();
    absl::ReaderMutexLock lock(&mu_);
    for (int64_t i = 0; i < n; ++i) {
      auto it = map_.find(k[i]);
      o[i] = it != map_.end() ? it->second : d[per_key ? i : 0];
    }
    return absl::OkStatus();
  }

  absl::Status Insert(const Tensor& keys, const Tensor& values, bool clear,
                      bool overwrite) override {
    const K* k = keys.data<K>();
    const V* v = values.data<V>();
    const int64_t n = keys.NumElements();
    absl::MutexLock lock(&mu_);
    if (clear) map_.clear();
    for (int64_t i = 0; i < n; ++i) {
      auto [it, inserted] = map_.try_emplace(k[i], v[i]);
      if (inserted) continue;
      if (overwrite) {
        it->second = v[i];
      } else if (!(it->second == v[i])) {
        return absl::FailedPreconditionError(
            absl::StrCat("HashTable has different value for same key. Key ",
                         ToText(k[i]), " has ", ToText(it->second),
                         " and trying to add value ", ToText(v[i])));
      }
    }
    return absl::OkStatus();
  }

  absl::Status Remove(const Tensor& keys) override {
    const K* k = keys.data<K>();
    absl::MutexLock lock(&mu_);
    for (int64_t i = 0; i < keys.NumElements(); ++i) map_.erase(k[i]);
    return absl::OkStatus();
  }

  void Clear() override {
    absl::MutexLock lock(&mu_);
    map_.clear();
  }

  absl::Status Export(Tensor* keys, Tensor* values) const override {
    absl::ReaderMutexLock lock(&mu_);
    *keys =
        Tensor(key_dtype(), TensorShape({static_cast<int64_t>(map_.size())}));
    *values =
        Tensor(value_dtype(), TensorShape({static_cast<int64_t>(map_.size())}));
    int64_t i = 0;
    for (const auto& [key, value] : map_) {
      keys->data<K>()[i] = key;
      values->data<V>()[i] = value;
      ++i;
    }
    return absl::OkStatus();
  }

 private:
  mutable absl::Mutex mu_;
  absl::flat_hash_map<K, V> map_ ABSL_GUARDED_BY(mu_);
};

// MutableHashTableOfTensors: each key maps to a vector of value_shape.
template <typename K, typename V>
class TypedTensorTable final : public LookupTable {
 public:
  TypedTensorTable(DataType key_dtype, DataType value_dtype,
                   TensorShape value_shape)
      : LookupTable(key_dtype, value_dtype, /*initializable=*/false,
                    TensorShape(), value_shape),
        dim_(value_shape.dim_size(0)) {}

  std::string DebugString() const override {
    return absl::StrCat(
        "MutableHashTableOfTensors of ", DataTypeString(key_dtype()), " to ",
        DataTypeString(value_dtype()), ", ", size(), " entries");
  }

  int64_t size() const override {
    absl::ReaderMutexLock lock(&mu_);
    return static_cast<int64_t>(map_.size());
  }

  absl::Status Find(const Tensor& keys, const Tensor& dflt,
                    Tensor* out) const override {
    const K* k = keys.data<K>();
    const V* d = dflt.data<V>();
    V* o = out->data<V>();
    const bool per_key = dflt.NumElements() == out->NumElements();
    absl::ReaderMutexLock lock(&mu_);
    for (int64_t i = 0; i < keys.NumElements(); ++i) {
      auto it = map_.find(k[i]);
      const V* src =
          it != map_.end() ? it->second.data() : d + (per_key ? i * dim_ : 0);
      std::copy(src, src + dim_, o + i * dim_);
    }
    return absl::OkStatus();
  }

  absl::Status Insert(const Tensor& keys, const Tensor& values, bool clear,
                      bool overwrite) override {
    const K* k = keys.data<K>();
    const V* v = values.data<V>();
    absl::MutexLock lock(&mu_);
    if (clear) map_.clear();
    for (int64_t i = 0; i < keys.NumElements(); ++i) {
      map_[k[i]] = Row(v + i * dim_, v + (i + 1) * dim_);
    }
    return absl::OkStatus();
  }

  absl::Status Remove(const Tensor& keys) override {
    const K* k = keys.data<K>();
    absl::MutexLock lock(&mu_);
    for (int64_t i = 0; i < keys.NumElements(); ++i) map_.erase(k[i]);
    return absl::OkStatus();
  }

  void Clear() override {
    absl::MutexLock lock(&mu_);
    map_.clear();
  }

  absl::Status Export(Tensor* keys, Tensor* values) const override {
    absl::ReaderMutexLock lock(&mu_);
    const int64_t n = static_cast<int64_t>(map_.size());
    *keys = Tensor(key_dtype(), TensorShape({n}));
    *values = Tensor(value_dtype(), TensorShape({n, dim_}));
    int64_t i = 0;
    for (const auto& [key, value] : map_) {
      keys->data<K>()[i] = key;
      std::copy(value.begin(), value.end(), values->data<V>() + i * dim_);
      ++i;
    }
    return absl::OkStatus();
  }

 private:
  // Not std::vector: vector<bool> has no data().
  using Row = absl::InlinedVector<V, 4>;
  const int64_t dim_;
  mutable absl::Mutex mu_;
  absl::flat_hash_map<K, Row> map_ ABSL_GUARDED_BY(mu_);
};

// Calls fn.template operator()<T>() for the table key and value dtypes dfx
// supports; false for any other dtype.
template <typename Fn>
bool VisitKeyType(DataType t, Fn&& fn) {
  switch (t) {
    case DT_INT32:
      fn.template operator()<int32_t>();
      return true;
    case DT_INT64:
      fn.template operator()<int64_t>();
      return true;
    case DT_STRING:
      fn.template operator()<std::string>();
      return true;
    default:
      return false;
  }
}
template <typename Fn>
bool VisitValueType(DataType t, Fn&& fn) {
  switch (t) {
    case DT_INT32:
      fn.template operator()<int32_t>();
      return true;
    case DT_INT64:
      fn.template operator()<int64_t>();
      return true;
    case DT_FLOAT:
      fn.template operator()<float>();
      return true;
    case DT_DOUBLE:
      fn.template operator()<double>();
      return true;
    case DT_BOOL:
      fn.template operator()<bool>();
      return true;
    case DT_STRING:
      fn.template operator()<std::string>();
      return true;
    default:
      return false;
  }
}

// `tensors`: a MutableHashTableOfTensors of vectors of `value_shape`.
std::shared_ptr<LookupTable> MakeTable(DataType key, DataType value,
                                       bool initializable, bool tensors,
                                       const TensorShape& value_shape) {
  std::shared_ptr<LookupTable> table;
  VisitKeyType(key, [&]<typename K>() {
    VisitValueType(value, [&]<typename V>() {
      if (tensors) {
        table =
            std::make_shared<TypedTensorTable<K, V>>(key, value, value_shape);
      } else {
        table = std::make_shared<TypedTable<K, V>>(key, value, initializable);
      }
    });
  });
  return table;
}

// HashTable(V2), MutableHashTable(V2): the table's handle, the table made
// on first use (and again after its container is reset).
class TableOp : public OpKernel {
 public:
  explicit TableOp(OpKernelConstruction* c) : OpKernel(c) {
    set_expensive(false);
    // The Anonymous* forms: a new table of the step on every run.
    absl::string_view kind = c->def().op();
    anonymous_ = absl::ConsumePrefix(&kind, "Anonymous");
    initializable_ = absl::StartsWith(kind, "HashTable");
    ref_ = !anonymous_ && !absl::EndsWith(kind, "V2");
    tensors_ = absl::StartsWith(kind, "MutableHashTableOfTensors");
    if (tensors_) {
      TensorShapeProto proto;
      c->SetStatus(GetNodeAttr(c->def(), "value_shape", &proto));
      for (const auto& d : proto.dim()) {
        if (d.size() < 0) {
          c->SetStatus(absl::InvalidArgumentError(absl::StrCat(
              "value_shape must be fully defined, got ", proto.DebugString())));
          return;
        }
        c->SetStatus(value_shape_.AddDim(d.size()));
      }
      if (c->status().ok() && value_shape_.dims() != 1) {
        c->SetStatus(absl::InvalidArgumentError(
            absl::StrCat("Default value must be a vector, got shape ",
                         value_shape_.DebugString())));
      }
    }
    bool use_node_name_sharing = false;
    c->SetStatus(c->GetAttr("key_dtype", &key_dtype_));
    c->SetStatus(c->GetAttr("value_dtype", &value_dtype_));
    if (anonymous_) return;
    c->SetStatus(c->GetAttr("container", &container_));
    c->SetStatus(c->GetAttr("shared_name", &name_));
    c->SetStatus(c->GetAttr("use_node_name_sharing", &use_node_name_sharing));
    if (!c->status().ok()) return;
    if (name_.empty()) {
      name_ = use_node_name_sharing
                  ? c->def().name()
                  : absl::StrCat("_", next_table_id.fetch_add(1), "_",
                                 c->def().name());
    }
    ResourceMgr* rm = c->device()->resource_manager();
    container_ = container_.empty() ? rm->default_container() : container_;
    handle_ = data_flow::SharedResourceHandle(*c->device(), ref_, container_,
                                              name_, LookupTable::kTypeName);
  }

  void Compute(OpKernelContext* ctx) override {
    if (anonymous_) {
      absl::StatusOr<Tensor> handle = CreateAnonymousTable(
          ctx, MakeTable(key_dtype_, value_dtype_, initializable_, tensors_,
                         value_shape_));
      DFX_OP_REQUIRES_OK(ctx, handle.status());
      ctx->set_output(0, *std::move(handle));
      return;
    }
    absl::StatusOr<std::shared_ptr<LookupTable>> table =
        ctx->resource_manager()->LookupOrCreate<LookupTable>(
            container_, name_, [this] {
              return MakeTable(key_dtype_, value_dtype_, initializable_,
                               tensors_, value_shape_);
            });
    DFX_OP_REQUIRES_OK(ctx, table.status());
    const LookupTable& t = **table;
    DFX_OP_REQUIRES(
        ctx,
        t.key_dtype() == key_dtype_ && t.value_dtype() == value_dtype_ &&
            t.initializable() == initializable_ &&
            t.value_shape() == value_shape_,
        absl::InvalidArgumentError(absl::StrCat(
            "Conflicting key/value dtypes ", DataTypeString(key_dtype_), "->",
            DataTypeString(value_dtype_), " with ",
            DataTypeString(t.key_dtype()), "-", DataTypeString(t.value_dtype()),
            " for table ", name_)));
    if (ref_) {
      ctx->set_output_ref(0, TensorRef{&handle_, &handle_mu_});
    } else {
      ctx->set_output(0, handle_);
    }
  }

 private:
  bool anonymous_ = false;
  bool initializable_ = false;
  bool ref_ = false;
  bool tensors_ = false;
  TensorShape value_shape_;  // [] but for MutableHashTableOfTensors
  absl::Mutex handle_mu_;    // the reference's mutex (the handle never changes)
  DataType key_dtype_ = DT_INVALID;
  DataType value_dtype_ = DT_INVALID;
  std::string container_;
  std::string name_;
  Tensor handle_{DT_RESOURCE, TensorShape()};
};

absl::StatusOr<std::shared_ptr<LookupTable>> GetTable(OpKernelContext* ctx) {
  std::string container, name;
  DFX_RETURN_IF_ERROR(
      data_flow::HandleNameFromInput(ctx, 0, &container, &name));
  return ctx->resource_manager()->Lookup<LookupTable>(container, name);
}

// TensorFlow's MatchSignature: the node's input (and output) dtypes must be
// the table's.
absl::Status MatchSignature(OpKernelContext* ctx, DataTypeVector want,
                            const DataTypeVector& want_out) {
  DataTypeVector have;
  const OpKernel& k = ctx->op_kernel();
  for (int i = 0; i < k.num_inputs(); ++i) have.push_back(k.input_type(i));
  DataTypeVector have_out;
  for (int i = 0; i < k.num_outputs(); ++i)
    have_out.push_back(k.output_type(i));
  // Input 0 is the handle in either form (TensorFlow's expected_input_0).
  if (!have.empty() && !want.empty()) want[0] = have[0];
  if (have == want && have_out == want_out) return absl::OkStatus();
  auto names = [](const DataTypeVector& v) {
    std::vector<std::string> s;
    for (DataType t : v) s.push_back(DataTypeString(t));
    return absl::StrJoin(s, ", ");
  };
  return absl::InvalidArgumentError(absl::StrCat(
      "Signature mismatch, have: ", names(have), "->", names(have_out),
      " expected: ", names(want), "->", names(want_out)));
}

class FindOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<std::shared_ptr<LookupTable>> table = GetTable(ctx);
    DFX_OP_REQUIRES_OK(ctx, table.status());
    LookupTable& t = **table;
    DFX_OP_REQUIRES_OK(
        ctx, MatchSignature(ctx, {DT_RESOURCE, t.key_dtype(), t.value_dtype()},
                            {t.value_dtype()}));
    const Tensor& keys = ctx->input(1);
    const Tensor& dflt = ctx->input(2);
    DFX_OP_REQUIRES_OK(ctx, t.CheckFind(keys, dflt));
    absl::StatusOr<TensorShape> out_shape = t.ValuesShape(keys.shape());
    DFX_OP_REQUIRES_OK(ctx, out_shape.status());
    DFX_OP_REQUIRES(ctx, !t.initializable() || t.is_initialized(),
                    absl::FailedPreconditionError("Table not initialized."));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *out_shape, &out));
    DFX_OP_REQUIRES_OK(ctx, t.Find(keys, dflt, out));
  }
};

// LookupTableInsertV2 and LookupTableImportV2 (which clears first).
class InsertOp : public OpKernel {
 public:
  explicit InsertOp(OpKernelConstruction* c) : OpKernel(c) {
    import_ = absl::StartsWith(c->def().op(), "LookupTableImport");
  }
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<std::shared_ptr<LookupTable>> table = GetTable(ctx);
    DFX_OP_REQUIRES_OK(ctx, table.status());
    LookupTable& t = **table;
    DFX_OP_REQUIRES_OK(
        ctx,
        MatchSignature(ctx, {DT_RESOURCE, t.key_dtype(), t.value_dtype()}, {}));
    const Tensor& keys = ctx->input(1);
    const Tensor& values = ctx->input(2);
    DFX_OP_REQUIRES_OK(ctx, import_ ? t.CheckImport(keys, values)
                                    : t.CheckInsert(keys, values));
    if (t.initializable()) {
      DFX_OP_REQUIRES(ctx, import_,
                      absl::UnimplementedError(
                          "Insert not supported by InitializableLookupTable "
                          "implementations"));
      // A HashTable imports as it initializes (TensorFlow's ImportValues).
      DFX_OP_REQUIRES_OK(ctx, t.Initialize(keys, values));
      return;
    }
    DFX_OP_REQUIRES_OK(ctx, import_ ? t.Import(keys, values)
                                    : t.Insert(keys, values, /*clear=*/false,
                                               /*overwrite=*/true));
  }

 private:
  bool import_ = false;
};

class RemoveOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<std::shared_ptr<LookupTable>> table = GetTable(ctx);
    DFX_OP_REQUIRES_OK(ctx, table.status());
    LookupTable& t = **table;
    DFX_OP_REQUIRES_OK(ctx,
                       MatchSignature(ctx, {DT_RESOURCE, t.key_dtype()}, {}));
    const Tensor& keys = ctx->input(1);
    DFX_OP_REQUIRES_OK(ctx, t.CheckKeyShape(keys.shape()));
    DFX_OP_REQUIRES(ctx, !t.initializable(),
                    absl::UnimplementedError(
                        "Remove not supported by InitializableLookupTable "
                        "implementations"));
    DFX_OP_REQUIRES_OK(ctx, t.Remove(keys));
  }
};

class SizeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<std::shared_ptr<LookupTable>> table = GetTable(ctx);
    DFX_OP_REQUIRES_OK(ctx, table.status());
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(), &out));
    out->scalar<int64_t>() = (*table)->size();
  }
};

class ExportOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<std::shared_ptr<LookupTable>> table = GetTable(ctx);
    DFX_OP_REQUIRES_OK(ctx, table.status());
    LookupTable& t = **table;
    DFX_OP_REQUIRES_OK(ctx, MatchSignature(ctx, {DT_RESOURCE},
                                           {t.key_dtype(), t.value_dtype()}));
    Tensor keys, values;
    DFX_OP_REQUIRES_OK(ctx, t.Export(&keys, &values));
    ctx->set_output(0, std::move(keys));
    ctx->set_output(1, std::move(values));
  }
};

class InitializeTableOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<std::shared_ptr<LookupTable>> table =
        GetInitializableTable(ctx);
    DFX_OP_REQUIRES_OK(ctx, table.status());
    LookupTable& t = **table;
    DFX_OP_REQUIRES_OK(
        ctx,
        MatchSignature(ctx, {DT_RESOURCE, t.key_dtype(), t.value_dtype()}, {}));
    const Tensor& keys = ctx->input(1);
    const Tensor& values = ctx->input(2);
    DFX_OP_REQUIRES(ctx, keys.dims() == 1,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Keys must be a vector, but received shape",
                        keys.shape().DebugString())));
    DFX_OP_REQUIRES(ctx, values.dims() == 1,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Values must be a vector, but received shape",
                        values.shape().DebugString())));
    DFX_OP_REQUIRES(ctx, keys.NumElements() == values.NumElements(),
                    absl::InvalidArgumentError(absl::StrCat(
                        "Keys and values must have the same size ",
                        keys.NumElements(), " vs ", values.NumElements())));
    DFX_OP_REQUIRES_OK(ctx, t.Initialize(keys, values));
  }
};

// Index -2 takes the whole line, -1 the line number (TensorFlow's
// TextFileIndex.WHOLE_LINE and LINE_NUMBER), n >= 0 the n-th field.
constexpr int64_t kLineNumber = -1;
constexpr int64_t kWholeLine = -2;

bool IsIntegerType(DataType t) {
  return t == DT_INT8 || t == DT_INT16 || t == DT_INT32 || t == DT_INT64 ||
         t == DT_UINT8 || t == DT_UINT16 || t == DT_UINT32 || t == DT_UINT64;
}

class InitializeTableFromTextFileOp : public OpKernel {
 public:
  explicit InitializeTableFromTextFileOp(OpKernelConstruction* c)
      : OpKernel(c) {
    std::string delimiter;
    c->SetStatus(c->GetAttr("vocab_size", &vocab_size_));
    c->SetStatus(c->GetAttr("key_index", &key_index_));
    c->SetStatus(c->GetAttr("value_index", &value_index_));
    c->SetStatus(c->GetAttr("offset", &offset_));
    c->SetStatus(c->GetAttr("delimiter", &delimiter));
    if (!c->status().ok()) return;
    if (delimiter.size() != 1) {
      c->SetStatus(
          absl::InvalidArgumentError("delimiter should be only 1 char"));
      return;
    }
    delimiter_ = delimiter[0];
  }

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<std::shared_ptr<LookupTable>> table =
        GetInitializableTable(ctx);
    DFX_OP_REQUIRES_OK(ctx, table.status());
    LookupTable& t = **table;
    const Tensor& name = ctx->input(1);
    DFX_OP_REQUIRES(ctx, name.dims() == 0,
                    absl::InvalidArgumentError(absl::StrCat(
                        "filename should be a single string, but got ",
                        name.shape().DebugString())));
    const std::string& filename = name.scalar<std::string>();
    DFX_OP_REQUIRES(ctx, !filename.empty(),
                    absl::InvalidArgumentError("filename cannot be empty."));
    DFX_OP_REQUIRES_OK(ctx, CheckIndices(t));
    Tensor keys, values;
    absl::Status s = ReadFile(filename, t, &keys, &values);
    if (s.ok()) s = t.Initialize(keys, values);
    // As TensorFlow: a table already initialized from a file stays as it is.
    if (absl::IsFailedPrecondition(s) && t.is_initialized()) return;
    DFX_OP_REQUIRES_OK(ctx, s);
  }

 private:
  absl::Status CheckIndices(const LookupTable& t) const {
    const DataType k = t.key_dtype(), v = t.value_dtype();
    if (key_index_ == kLineNumber && k != DT_INT64) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Key index for line number requires table key dtype of int64, got ",
          DataTypeString(k)));
    }
    if (key_index_ == kWholeLine && !IsIntegerType(k) && k != DT_STRING) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Key index for whole line requires string or integer table key, "
          "got ",
          DataTypeString(k)));
    }
    if (value_index_ == kLineNumber && v != DT_INT64) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Value index for line number requires table value dtype of int64, "
          "got ",
          DataTypeString(v)));
    }
    if (value_index_ == kWholeLine && !IsIntegerType(v) && v != DT_STRING) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Value index for whole line requires table value dtype of integer "
          "or string, got ",
          DataTypeString(v)));
    }
    return absl::OkStatus();
  }

  // Element `i` of `out` from field `index` of line number `line_no`.
  // TensorFlow adds `offset` to line numbers and (only) to int32 fields.
  absl::Status SetValue(const std::string& line,
                        const std::vector<std::string>& fields, int64_t index,
                        int64_t line_no, Tensor* out, int64_t i) const {
    if (index == kLineNumber) {
      out->data<int64_t>()[i] = line_no + offset_;
      return absl::OkStatus();
    }
    const std::string& token = index == kWholeLine ? line : fields[index];
    auto bad = [&](const char* type) {
      return absl::InvalidArgumentError(
          absl::StrCat("Field ", token, " in line ", line_no,
                       " is not a valid ", type, "."));
    };
    switch (out->dtype()) {
      case DT_INT32: {
        int32_t v;
        if (!absl::SimpleAtoi(token, &v)) return bad("int32");
        out->data<int32_t>()[i] = static_cast<int32_t>(v + offset_);
        break;
      }
      case DT_INT64: {
        int64_t v;
        if (!absl::SimpleAtoi(token, &v)) return bad("int64");
        out->data<int64_t>()[i] = v;
        break;
      }
      case DT_FLOAT: {
        float v;
        if (!absl::SimpleAtof(token, &v)) return bad("float");
        out->data<float>()[i] = v;
        break;
      }
      case DT_DOUBLE: {
        double v;
        if (!absl::SimpleAtod(token, &v)) return bad("double");
        out->data<double>()[i] = v;
        break;
      }
      case DT_STRING:
        out->data<std::string>()[i] = token;
        break;
      default:
        return absl::InvalidArgumentError(absl::StrCat(
            "Data type ", DataTypeString(out->dtype()), " not supported."));
    }
    return absl::OkStatus();
  }

  // The file's entries: its lines (without "\n" or "\r\n"), at most
  // vocab_size of them, as `keys` and `values` vectors.
  absl::Status ReadFile(const std::string& filename, const LookupTable& t,
                        Tensor* keys, Tensor* values) const {
    // Inside the server's --data-dir when it has one.
    DFX_ASSIGN_OR_RETURN(const std::string path,
                         ResolveDataPath(name(), filename));
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      return absl::NotFoundError(
          absl::StrCat(filename, "; No such file or directory"));
    }
    std::vector<std::string> lines;
    std::string line;
    while (std::getline(in, line)) {
      if (vocab_size_ != -1 &&
          static_cast<int64_t>(lines.size()) >= vocab_size_) {
        break;
      }
      if (!line.empty() && line.back() == '\r') line.pop_back();
      lines.push_back(line);
    }
    if (lines.empty() && vocab_size_ != 0) {
      if (vocab_size_ > 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("Invalid vocab_size in ", filename, ": expected ",
                         vocab_size_, " but got 0"));
      }
      return absl::OutOfRangeError(absl::StrCat("End of file ", filename));
    }
    const int64_t n = static_cast<int64_t>(lines.size());
    *keys = Tensor(t.key_dtype(), TensorShape({n}));
    *values = Tensor(t.value_dtype(), TensorShape({n}));
    const bool split = std::max(key_index_, value_index_) >= 0;
    const size_t want_fields =
        static_cast<size_t>(std::max(key_index_, value_index_) + 1);
    int64_t pos = 0;  // bytes read, for TensorFlow's empty-line message
    for (int64_t i = 0; i < n; ++i) {
      const std::string& l = lines[i];
      pos += static_cast<int64_t>(l.size()) + 1;
      if (l.empty()) {
        return absl::InvalidArgumentError(
            absl::StrCat("Invalid content in ", filename,
                         ": empty line found at position ", pos, "."));
      }
      std::vector<std::string> fields;
      if (split) {
        fields = absl::StrSplit(l, delimiter_);
        if (fields.size() < want_fields) {
          return absl::InvalidArgumentError(absl::StrCat(
              "Invalid number of columns in ", filename, " line ", i, " (", l,
              ") : expected at least ", want_fields, " got ", fields.size()));
        }
      }
      DFX_RETURN_IF_ERROR(SetValue(l, fields, key_index_, i, keys, i));
      DFX_RETURN_IF_ERROR(SetValue(l, fields, value_index_, i, values, i));
    }
    if (vocab_size_ != -1 && n != vocab_size_) {
      return absl::InvalidArgumentError(
          absl::StrCat("Invalid vocab_size in ", filename, ": expected ",
                       vocab_size_, " but got ", n));
    }
    return absl::OkStatus();
  }

  int64_t vocab_size_ = -1;
  int64_t key_index_ = 0;
  int64_t value_index_ = 0;
  int64_t offset_ = 0;
  char delimiter_ = '\t';
};

// TensorFlow 2.21's CPU registrations of each table kind, (key, value).
constexpr std::pair<DataType, DataType> kHashTableTypes[] = {
    {DT_INT32, DT_DOUBLE}, {DT_INT32, DT_FLOAT},   {DT_INT32, DT_INT32},
    {DT_INT32, DT_STRING}, {DT_INT64, DT_DOUBLE},  {DT_INT64, DT_FLOAT},
    {DT_INT64, DT_INT32},  {DT_INT64, DT_INT64},   {DT_INT64, DT_STRING},
    {DT_STRING, DT_BOOL},  {DT_STRING, DT_DOUBLE}, {DT_STRING, DT_FLOAT},
    {DT_STRING, DT_INT32}, {DT_STRING, DT_INT64},  {DT_STRING, DT_STRING},
};
constexpr std::pair<DataType, DataType> kMutableHashTableTypes[] = {
    {DT_INT32, DT_DOUBLE},  {DT_INT32, DT_FLOAT},  {DT_INT32, DT_INT32},
    {DT_INT64, DT_DOUBLE},  {DT_INT64, DT_FLOAT},  {DT_INT64, DT_INT32},
    {DT_INT64, DT_INT64},   {DT_INT64, DT_STRING}, {DT_STRING, DT_BOOL},
    {DT_STRING, DT_DOUBLE}, {DT_STRING, DT_FLOAT}, {DT_STRING, DT_INT32},
    {DT_STRING, DT_INT64},
};

constexpr std::pair<DataType, DataType> kMutableHashTableOfTensorsTypes[] = {
    {DT_INT32, DT_DOUBLE},  {DT_INT32, DT_FLOAT},  {DT_INT32, DT_INT32},
    {DT_INT64, DT_DOUBLE},  {DT_INT64, DT_FLOAT},  {DT_INT64, DT_INT32},
    {DT_INT64, DT_INT64},   {DT_INT64, DT_STRING}, {DT_STRING, DT_BOOL},
    {DT_STRING, DT_DOUBLE}, {DT_STRING, DT_FLOAT}, {DT_STRING, DT_INT32},
    {DT_STRING, DT_INT64},
};

}  // namespace

absl::Status LookupTable::CheckKeyShape(const TensorShape& keys) const {
  const int n = key_shape_.dims();
  bool ends_with = keys.dims() >= n;
  for (int i = 0; ends_with && i < n; ++i) {
    ends_with = keys.dim_size(keys.dims() - n + i) == key_shape_.dim_size(i);
  }
  if (!ends_with) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Input key shape ", keys.DebugString(),
        " must end with the table's key shape ", key_shape_.DebugString()));
  }
  return absl::OkStatus();
}

absl::StatusOr<TensorShape> LookupTable::ValuesShape(
    const TensorShape& keys) const {
  TensorShape shape = keys;
  for (int i = 0; i < key_shape_.dims(); ++i) shape.RemoveDim(shape.dims() - 1);
  for (int64_t d : value_shape_.dim_sizes()) {
    DFX_RETURN_IF_ERROR(shape.AddDim(d));
  }
  return shape;
}

absl::Status LookupTable::CheckInsert(const Tensor& keys,
                                      const Tensor& values) const {
  DFX_RETURN_IF_ERROR(CheckKeyShape(keys.shape()));
  DFX_ASSIGN_OR_RETURN(const TensorShape want, ValuesShape(keys.shape()));
  if (values.shape() != want) {
    return absl::InvalidArgumentError(
        absl::StrCat("Expected shape ", want.DebugString(), " for value, got ",
                     values.shape().DebugString()));
  }
  return absl::OkStatus();
}

absl::Status LookupTable::CheckFind(const Tensor& keys,
                                    const Tensor& dflt) const {
  DFX_RETURN_IF_ERROR(CheckKeyShape(keys.shape()));
  DFX_ASSIGN_OR_RETURN(const TensorShape full, ValuesShape(keys.shape()));
  if (dflt.shape() != value_shape_ && dflt.shape() != full) {
    return absl::InvalidArgumentError(
        absl::StrCat("Expected shape ", value_shape_.DebugString(), " or ",
                     full.DebugString(), " for default value, got ",
                     dflt.shape().DebugString()));
  }
  return absl::OkStatus();
}

absl::Status LookupTable::Initialize(const Tensor& keys, const Tensor& values) {
  absl::MutexLock lock(&init_mu_);
  if (is_initialized()) {
    if (keys.NumElements() == size()) return absl::OkStatus();
    return absl::FailedPreconditionError(
        "Table was already initialized with different data.");
  }
  absl::Status s = Insert(keys, values, /*clear=*/false, /*overwrite=*/false);
  if (!s.ok()) {
    // An uninitialized table holds nothing (TensorFlow's size() is 0).
    Clear();
    return s;
  }
  initialized_.store(true, std::memory_order_release);
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<LookupTable>> GetInitializableTable(
    OpKernelContext* ctx) {
  std::string container, name;
  DFX_RETURN_IF_ERROR(
      data_flow::HandleNameFromInput(ctx, 0, &container, &name));
  DFX_ASSIGN_OR_RETURN(
      std::shared_ptr<LookupTable> t,
      ctx->resource_manager()->Lookup<LookupTable>(container, name));
  if (!t->initializable()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Table ", container, " ", name, " is not initializable"));
  }
  return t;
}

absl::StatusOr<Tensor> CreateAnonymousTable(
    OpKernelContext* ctx, std::shared_ptr<LookupTable> table) {
  DFX_ASSIGN_OR_RETURN(ScopedStepContainer * step,
                       data_flow::StepContainer(ctx));
  const std::string name =
      absl::StrCat("_AnonymousTable_", next_table_id.fetch_add(1));
  DFX_ASSIGN_OR_RETURN(Tensor handle, data_flow::MakeStepHandle(
                                          ctx, name, LookupTable::kTypeName));
  DFX_RETURN_IF_ERROR(
      ctx->resource_manager()->Create(step->name(), name, std::move(table)));
  return handle;
}

void RegisterLookupKernels(KernelRegistry* registry) {
  for (const auto& [k, v] : kHashTableTypes) {
    RegisterKernel<TableOp>(registry, KernelDefBuilder("HashTableV2")
                                          .TypeConstraint("key_dtype", {k})
                                          .TypeConstraint("value_dtype", {v}));
  }
  for (const auto& [k, v] : kMutableHashTableTypes) {
    RegisterKernel<TableOp>(registry, KernelDefBuilder("MutableHashTableV2")
                                          .TypeConstraint("key_dtype", {k})
                                          .TypeConstraint("value_dtype", {v}));
  }
  for (const auto& [k, v] : kHashTableTypes) {
    RegisterKernel<TableOp>(registry, KernelDefBuilder("HashTable")
                                          .TypeConstraint("key_dtype", {k})
                                          .TypeConstraint("value_dtype", {v}));
  }
  for (const auto& [k, v] : kMutableHashTableTypes) {
    RegisterKernel<TableOp>(registry, KernelDefBuilder("MutableHashTable")
                                          .TypeConstraint("key_dtype", {k})
                                          .TypeConstraint("value_dtype", {v}));
  }
  for (const auto& [k, v] : kHashTableTypes) {
    RegisterKernel<TableOp>(registry, KernelDefBuilder("AnonymousHashTable")
                                          .TypeConstraint("key_dtype", {k})
                                          .TypeConstraint("value_dtype", {v}));
  }
  for (const auto& [k, v] : kMutableHashTableTypes) {
    RegisterKernel<TableOp>(registry,
                            KernelDefBuilder("AnonymousMutableHashTable")
                                .TypeConstraint("key_dtype", {k})
                                .TypeConstraint("value_dtype", {v}));
  }
  for (const char* op :
       {"MutableHashTableOfTensorsV2", "MutableHashTableOfTensors",
        "AnonymousMutableHashTableOfTensors"}) {
    for (const auto& [k, v] : kMutableHashTableOfTensorsTypes) {
      RegisterKernel<TableOp>(registry,
                              KernelDefBuilder(op)
                                  .TypeConstraint("key_dtype", {k})
                                  .TypeConstraint("value_dtype", {v}));
    }
  }
  RegisterKernel<FindOp>(registry, KernelDefBuilder("LookupTableFind"));
  RegisterKernel<InsertOp>(registry, KernelDefBuilder("LookupTableInsert"));
  RegisterKernel<InsertOp>(registry, KernelDefBuilder("LookupTableImport"));
  RegisterKernel<SizeOp>(registry, KernelDefBuilder("LookupTableSize"));
  RegisterKernel<ExportOp>(registry, KernelDefBuilder("LookupTableExport"));
  RegisterKernel<InitializeTableOp>(registry,
                                    KernelDefBuilder("InitializeTable"));
  RegisterKernel<InitializeTableFromTextFileOp>(
      registry, KernelDefBuilder("InitializeTableFromTextFile"));
  RegisterKernel<FindOp>(registry, KernelDefBuilder("LookupTableFindV2"));
  RegisterKernel<InsertOp>(registry, KernelDefBuilder("LookupTableInsertV2"));
  RegisterKernel<InsertOp>(registry, KernelDefBuilder("LookupTableImportV2"));
  RegisterKernel<RemoveOp>(registry, KernelDefBuilder("LookupTableRemoveV2"));
  RegisterKernel<SizeOp>(registry, KernelDefBuilder("LookupTableSizeV2"));
  RegisterKernel<ExportOp>(registry, KernelDefBuilder("LookupTableExportV2"));
  RegisterKernel<InitializeTableOp>(registry,
                                    KernelDefBuilder("InitializeTableV2"));
  RegisterKernel<InitializeTableFromTextFileOp>(
      registry, KernelDefBuilder("InitializeTableFromTextFileV2"));
}

}  // namespace dfx

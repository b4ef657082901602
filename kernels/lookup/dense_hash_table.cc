// MutableDenseHashTable(V2) (tf.lookup.experimental.DenseHashTable):
// TensorFlow 2.21's table of open addressing (core/kernels/
// lookup_table_op.cc), driven by the LookupTable* kernels of
// lookup_kernels.cc through the LookupTable interface (lookup_table.h).
//
// Keys (scalars or vectors of key_shape, the shape of the `empty_key`
// input) and values (scalars or vectors of value_shape) sit in two bucket
// arrays, [num_buckets, key size] and [num_buckets, value size]; a bucket
// holding `empty_key` is free, one holding `deleted_key` was removed. A key
// starts at its hash masked to the power-of-two bucket count and probes
// quadratically (offsets 1, 2, 3, ... added up); an insert takes the first
// free or deleted bucket on the way unless the key comes first. An insert
// of n keys first doubles the bucket count until entries + n fit under
// max_load_factor, reinserting every entry in bucket order. The hash of a
// scalar key is the integer itself or TensorFlow's Hash64 of the string, of
// a vector key the Hash64Combine of its elements' hashes: with the same
// probes and growth, LookupTableExport gives the bucket arrays exactly as
// TensorFlow does.
//
// AnonymousMutableDenseHashTable makes a new table on every run, which
// lives as long as the step (lookup_table.h: CreateAnonymousTable).
//
// The v1 MutableDenseHashTable has no deleted_key input, which TensorFlow's
// kernel asks for, so it always fails with TensorFlow's InvalidArgument.
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "base/status_macros.h"
#include "graph/node_def_util.h"
#include "kernels/data_flow/data_flow_util.h"
#include "kernels/fingerprint.h"
#include "kernels/kernels.h"
#include "kernels/lookup/lookup_table.h"

namespace dfx {
namespace {

std::atomic<int64_t> next_dense_table_id{0};

uint64_t HashScalar(int32_t k) { return static_cast<uint64_t>(k); }
uint64_t HashScalar(int64_t k) { return static_cast<uint64_t>(k); }
uint64_t HashScalar(const std::string& k) { return TfHash64(k); }

// TensorFlow's Hash64Combine.
uint64_t HashCombine(uint64_t a, uint64_t b) {
  return a ^ (b + 0x9e3779b97f4a7800ULL + (a << 10) + (a >> 4));
}

// [n] + shape.
TensorShape BatchShape(int64_t n, const TensorShape& shape) {
  TensorShape out({n});
  for (int64_t d : shape.dim_sizes()) out.AddDim(d).IgnoreError();
  return out;
}

// The settings a table is made with (the kernel's attrs and inputs).
struct DenseTableSpec {
  DataType key_dtype;
  DataType value_dtype;
  TensorShape value_shape;
  float max_load_factor;
  int64_t initial_num_buckets;
  Tensor empty_key;
  Tensor deleted_key;
};

template <typename K, typename V>
class DenseHashTable final : public LookupTable {
 public:
  // REQUIRES: spec's keys are scalars or vectors of one shape.
  explicit DenseHashTable(const DenseTableSpec& spec)
      : LookupTable(spec.key_dtype, spec.value_dtype,
                    /*initializable=*/false, spec.empty_key.shape(),
                    spec.value_shape),
        key_size_(spec.empty_key.NumElements()),
        value_size_(spec.value_shape.num_elements()),
        max_load_factor_(spec.max_load_factor),
        empty_key_(spec.empty_key.data<K>(),
                   spec.empty_key.data<K>() + key_size_),
        deleted_key_(spec.deleted_key.data<K>(),
                     spec.deleted_key.data<K>() + key_size_),
        empty_hash_(HashKey(empty_key_.data())),
        deleted_hash_(HashKey(deleted_key_.data())) {}

  // TensorFlow's checks of the keys and the first buckets.
  absl::Status Init(int64_t initial_num_buckets) {
    if (empty_hash_ == deleted_hash_ &&
        Equal(empty_key_.data(), deleted_key_.data())) {
      return absl::InvalidArgumentError(
          "Empty and deleted keys cannot be equal");
    }
    absl::MutexLock lock(&mu_);
    return AllocateLocked(initial_num_buckets);
  }

  std::string DebugString() const override {
    return absl::StrCat(
        "MutableDenseHashTable of ", DataTypeString(key_dtype()), " to ",
        DataTypeString(value_dtype()), ", ", size(), " entries");
  }

  int64_t size() const override {
    absl::ReaderMutexLock lock(&mu_);
    return num_entries_;
  }

  absl::Status Find(const Tensor& keys, const Tensor& dflt,
                    Tensor* out) const override {
    DFX_ASSIGN_OR_RETURN(const int64_t n, NumKeys(keys, /*remove=*/false));
    const K* k = keys.data<K>();
    const V* d = dflt.data<V>();
    V* o = out->data<V>();
    absl::ReaderMutexLock lock(&mu_);
    const K* kb = key_buckets_.data<K>();
    const V* vb = value_buckets_.data<V>();
    for (int64_t i = 0; i < n; ++i) {
      const K* key = k + i * key_size_;
      DFX_RETURN_IF_ERROR(CheckNotReserved(key));
      const uint64_t mask = static_cast<uint64_t>(num_buckets_ - 1);
      uint64_t b = HashKey(key) & mask;
      for (int64_t probes = 0;;) {
        if (Equal(kb + b * key_size_, key)) {
          Copy(vb + b * value_size_, o + i * value_size_);
          break;
        }
        if (Equal(kb + b * key_size_, empty_key_.data())) {
          Copy(d, o + i * value_size_);
          break;
        }
        ++probes;
        b = (b + probes) & mask;
        if (probes >= num_buckets_) {
          return absl::InternalError(
              "Internal error in MutableDenseHashTable lookup");
        }
      }
    }
    return absl::OkStatus();
  }

  // `clear` and `overwrite` are for HashTable's initialization; a dense
  // table always overwrites, and Import replaces its buckets.
  absl::Status Insert(const Tensor& keys, const Tensor& values, bool clear,
                      bool overwrite) override {
    DFX_ASSIGN_OR_RETURN(const int64_t n, NumKeys(keys, /*remove=*/false));
    absl::MutexLock lock(&mu_);
    // As TensorFlow: every key counts as new when deciding to grow.
    const int64_t pending = num_entries_ + n;
    if (pending > num_buckets_ * max_load_factor_) {
      int64_t grown = num_buckets_;
      do {
        grown <<= 1;
      } while (pending > grown * max_load_factor_);
      DFX_RETURN_IF_ERROR(RebucketLocked(grown));
    }
    return InsertLocked(keys.data<K>(), values.data<V>(), n,
                        /*skip_reserved=*/false);
  }

  absl::Status Remove(const Tensor& keys) override {
    DFX_ASSIGN_OR_RETURN(const int64_t n, NumKeys(keys, /*remove=*/true));
    const K* k = keys.data<K>();
    absl::MutexLock lock(&mu_);
    K* kb = key_buckets_.data<K>();
    const uint64_t mask = static_cast<uint64_t>(num_buckets_ - 1);
    for (int64_t i = 0; i < n; ++i) {
      const K* key = k + i * key_size_;
      DFX_RETURN_IF_ERROR(CheckNotReserved(key));
      uint64_t b = HashKey(key) & mask;
      for (int64_t probes = 0;;) {
        if (Equal(kb + b * key_size_, key)) {
          --num_entries_;
          std::copy(deleted_key_.begin(), deleted_key_.end(),
                    kb + b * key_size_);
          break;
        }
        if (Equal(kb + b * key_size_, empty_key_.data())) break;
        ++probes;
        b = (b + probes) & mask;
        if (probes >= num_buckets_) {
          return absl::InternalError(
              "Internal error in MutableDenseHashTable remove");
        }
      }
    }
    return absl::OkStatus();
  }

  void Clear() override {
    absl::MutexLock lock(&mu_);
    AllocateLocked(num_buckets_).IgnoreError();  // a size it had
  }

  absl::Status Export(Tensor* keys, Tensor* values) const override {
    absl::ReaderMutexLock lock(&mu_);
    *keys = key_buckets_.DeepCopy();
    *values = value_buckets_.DeepCopy();
    return absl::OkStatus();
  }

  // TensorFlow's check of bucket arrays (whose scalar keys and values are
  // vectors of 1), then what TensorFlow leaves to crash: the keys must be a
  // matrix of at least one bucket.
  absl::Status CheckImport(const Tensor& keys,
                           const Tensor& values) const override {
    DFX_RETURN_IF_ERROR(CheckKeyShape(keys.shape()));
    if (keys.dims() == 0) return BadImportKeys(keys);
    TensorShape want = keys.shape();
    want.RemoveDim(want.dims() - 1);
    DFX_RETURN_IF_ERROR(want.AddDim(value_size_));
    if (values.shape() != want) {
      return absl::InvalidArgumentError(
          absl::StrCat("Expected shape ", want.DebugString(),
                       " for value, got ", values.shape().DebugString()));
    }
    if (keys.dims() != 2 || keys.dim_size(1) != key_size_ ||
        keys.dim_size(0) == 0) {
      return BadImportKeys(keys);
    }
    return absl::OkStatus();
  }

  absl::Status Import(const Tensor& keys, const Tensor& values) override {
    absl::MutexLock lock(&mu_);
    num_buckets_ = keys.dim_size(0);
    key_buckets_ = keys.DeepCopy();
    value_buckets_ = values.DeepCopy();
    num_entries_ = 0;
    const K* kb = key_buckets_.data<K>();
    for (int64_t b = 0; b < num_buckets_; ++b) {
      const K* key = kb + b * key_size_;
      if (!Equal(key, empty_key_.data()) && !Equal(key, deleted_key_.data())) {
        ++num_entries_;
      }
    }
    return absl::OkStatus();
  }

 private:
  // The number of keys in `keys` ([n] + key_shape, or key_shape alone for
  // one key but in Remove, which TensorFlow does not define for it).
  absl::StatusOr<int64_t> NumKeys(const Tensor& keys, bool remove) const {
    const int64_t n = keys.dims() == 0 ? 1 : keys.dim_size(0);
    if ((remove && keys.dims() == 0) || keys.NumElements() != n * key_size_) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Expected key shape ", BatchShape(n, key_shape()).DebugString(),
          " got ", keys.shape().DebugString()));
    }
    return n;
  }

  absl::Status BadImportKeys(const Tensor& keys) const {
    return absl::InvalidArgumentError(absl::StrCat(
        "Expected keys of shape [num_buckets, ", key_size_,
        "] with num_buckets > 0 to import, got ", keys.shape().DebugString()));
  }

  uint64_t HashKey(const K* key) const {
    if (key_size_ == 1) return HashScalar(key[0]);
    uint64_t h = 0;
    for (int64_t i = 0; i < key_size_; ++i) {
      h = HashCombine(h, HashScalar(key[i]));
    }
    return h;
  }

  bool Equal(const K* a, const K* b) const {
    for (int64_t i = 0; i < key_size_; ++i) {
      if (!(a[i] == b[i])) return false;
    }
    return true;
  }

  void Copy(const V* from, V* to) const {
    for (int64_t j = 0; j < value_size_; ++j) to[j] = from[j];
  }

  absl::Status CheckNotReserved(const K* key) const {
    const uint64_t h = HashKey(key);
    if (h == empty_hash_ && Equal(key, empty_key_.data())) {
      return absl::InvalidArgumentError(
          "Using the empty_key as a table key is not allowed");
    }
    if (h == deleted_hash_ && Equal(key, deleted_key_.data())) {
      return absl::InvalidArgumentError(
          "Using the deleted_key as a table key is not allowed");
    }
    return absl::OkStatus();
  }

  // `skip_reserved`: a rebucketing, which passes over free and deleted
  // buckets instead of failing on them.
  absl::Status InsertLocked(const K* k, const V* v, int64_t n,
                            bool skip_reserved)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    K* kb = key_buckets_.data<K>();
    V* vb = value_buckets_.data<V>();
    const uint64_t mask = static_cast<uint64_t>(num_buckets_ - 1);
    for (int64_t i = 0; i < n; ++i) {
      const K* key = k + i * key_size_;
      const V* value = v + i * value_size_;
      if (absl::Status s = CheckNotReserved(key); !s.ok()) {
        if (skip_reserved) continue;
        return s;
      }
      uint64_t b = HashKey(key) & mask;
      for (int64_t probes = 0;;) {
        K* slot = kb + b * key_size_;
        if (Equal(slot, key)) {
          Copy(value, vb + b * value_size_);
          break;
        }
        if (Equal(slot, empty_key_.data()) ||
            Equal(slot, deleted_key_.data())) {
          ++num_entries_;
          std::copy(key, key + key_size_, slot);
          Copy(value, vb + b * value_size_);
          break;
        }
        ++probes;
        b = (b + probes) & mask;
        if (probes >= num_buckets_) {
          return absl::InternalError(
              "Internal error in MutableDenseHashTable insert");
        }
      }
    }
    return absl::OkStatus();
  }

  // Empty buckets, values of V() (so Export shows no garbage).
  absl::Status AllocateLocked(int64_t num_buckets)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (num_buckets < 4 || (num_buckets & (num_buckets - 1)) != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Number of buckets must be at least 4 and a power of 2, got: ",
          num_buckets));
    }
    num_buckets_ = num_buckets;
    num_entries_ = 0;
    key_buckets_ = Tensor(key_dtype(), TensorShape({num_buckets, key_size_}));
    K* kb = key_buckets_.data<K>();
    for (int64_t b = 0; b < num_buckets; ++b) {
      std::copy(empty_key_.begin(), empty_key_.end(), kb + b * key_size_);
    }
    value_buckets_ =
        Tensor(value_dtype(), TensorShape({num_buckets, value_size_}));
    V* vb = value_buckets_.data<V>();
    for (int64_t i = 0; i < num_buckets * value_size_; ++i) vb[i] = V();
    return absl::OkStatus();
  }

  absl::Status RebucketLocked(int64_t num_buckets)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    const Tensor old_keys = std::move(key_buckets_);
    const Tensor old_values = std::move(value_buckets_);
    const int64_t old_n = num_buckets_;
    if (absl::Status s = AllocateLocked(num_buckets); !s.ok()) {
      key_buckets_ = old_keys;
      value_buckets_ = old_values;
      return s;
    }
    return InsertLocked(old_keys.data<K>(), old_values.data<V>(), old_n,
                        /*skip_reserved=*/true);
  }

  const int64_t key_size_;
  const int64_t value_size_;
  const float max_load_factor_;
  const std::vector<K> empty_key_;
  const std::vector<K> deleted_key_;
  const uint64_t empty_hash_;
  const uint64_t deleted_hash_;
  mutable absl::Mutex mu_;
  int64_t num_entries_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t num_buckets_ ABSL_GUARDED_BY(mu_) = 0;
  Tensor key_buckets_ ABSL_GUARDED_BY(mu_);
  Tensor value_buckets_ ABSL_GUARDED_BY(mu_);
};

template <typename K, typename V>
absl::StatusOr<std::shared_ptr<LookupTable>> NewDenseTable(
    const DenseTableSpec& spec) {
  auto t = std::make_shared<DenseHashTable<K, V>>(spec);
  DFX_RETURN_IF_ERROR(t->Init(spec.initial_num_buckets));
  return t;
}

// The (key, value) dtypes of TensorFlow 2.21's CPU registrations but for
// int64 -> variant and string -> resource values, which dfx's tables do not
// hold: one instantiation each.
struct DenseTableKind {
  DataType key;
  DataType value;
  absl::StatusOr<std::shared_ptr<LookupTable>> (*make)(const DenseTableSpec&);
};
constexpr DenseTableKind kDenseTableKinds[] = {
    {DT_INT32, DT_DOUBLE, &NewDenseTable<int32_t, double>},
    {DT_INT32, DT_FLOAT, &NewDenseTable<int32_t, float>},
    {DT_INT32, DT_INT32, &NewDenseTable<int32_t, int32_t>},
    {DT_INT64, DT_BOOL, &NewDenseTable<int64_t, bool>},
    {DT_INT64, DT_DOUBLE, &NewDenseTable<int64_t, double>},
    {DT_INT64, DT_FLOAT, &NewDenseTable<int64_t, float>},
    {DT_INT64, DT_INT32, &NewDenseTable<int64_t, int32_t>},
    {DT_INT64, DT_INT64, &NewDenseTable<int64_t, int64_t>},
    {DT_STRING, DT_BOOL, &NewDenseTable<std::string, bool>},
    {DT_STRING, DT_DOUBLE, &NewDenseTable<std::string, double>},
    {DT_STRING, DT_FLOAT, &NewDenseTable<std::string, float>},
    {DT_STRING, DT_INT32, &NewDenseTable<std::string, int32_t>},
    {DT_STRING, DT_INT64, &NewDenseTable<std::string, int64_t>},
};

// A dense table for spec's dtypes (one of kDenseTableKinds); checked as
// TensorFlow's constructor checks.
absl::StatusOr<std::shared_ptr<LookupTable>> MakeDenseTable(
    const DenseTableSpec& spec) {
  if (!(spec.max_load_factor > 0 && spec.max_load_factor < 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_load_factor must be between 0 and 1, got: ",
                     spec.max_load_factor));
  }
  if (spec.value_shape.dims() > 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("Empty value must be a scalar or a vector, got shape ",
                     spec.value_shape.DebugString()));
  }
  const TensorShape& key_shape = spec.empty_key.shape();
  if (key_shape.dims() > 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("Empty key must be a scalar or a vector, got shape ",
                     key_shape.DebugString()));
  }
  if (spec.deleted_key.shape() != key_shape) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Empty and deleted keys must have same shape, got shapes: ",
        key_shape.DebugString(), " and ",
        spec.deleted_key.shape().DebugString()));
  }
  for (const DenseTableKind& kind : kDenseTableKinds) {
    if (kind.key == spec.key_dtype && kind.value == spec.value_dtype) {
      return kind.make(spec);
    }
  }
  return absl::UnimplementedError(
      absl::StrCat("No dense table of ", DataTypeString(spec.key_dtype), " to ",
                   DataTypeString(spec.value_dtype)));
}

// MutableDenseHashTableV2: the table's handle; the table made (from the
// empty_key and deleted_key inputs) on first use and again after its
// container is reset. AnonymousMutableDenseHashTable: a new table of the
// step on every run.
class DenseTableOp : public OpKernel {
 public:
  explicit DenseTableOp(OpKernelConstruction* c) : OpKernel(c) {
    set_expensive(false);
    ref_ = c->def().op() == "MutableDenseHashTable";
    anonymous_ = c->def().op() == "AnonymousMutableDenseHashTable";
    bool use_node_name_sharing = false;
    TensorShapeProto proto;
    c->SetStatus(c->GetAttr("key_dtype", &key_dtype_));
    c->SetStatus(c->GetAttr("value_dtype", &value_dtype_));
    if (!anonymous_) {
      c->SetStatus(c->GetAttr("container", &container_));
      c->SetStatus(c->GetAttr("shared_name", &name_));
      c->SetStatus(c->GetAttr("use_node_name_sharing", &use_node_name_sharing));
    }
    c->SetStatus(c->GetAttr("max_load_factor", &max_load_factor_));
    c->SetStatus(c->GetAttr("initial_num_buckets", &initial_num_buckets_));
    c->SetStatus(GetNodeAttr(c->def(), "value_shape", &proto));
    if (!c->status().ok()) return;
    for (const auto& d : proto.dim()) {
      if (d.size() < 0) {
        c->SetStatus(absl::InvalidArgumentError(absl::StrCat(
            "value_shape must be fully defined, got ", proto.DebugString())));
        return;
      }
      c->SetStatus(value_shape_.AddDim(d.size()));
    }
    if (anonymous_) return;
    if (name_.empty()) {
      name_ = use_node_name_sharing
                  ? c->def().name()
                  : absl::StrCat("_dense_", next_dense_table_id.fetch_add(1),
                                 "_", c->def().name());
    }
    ResourceMgr* rm = c->device()->resource_manager();
    container_ = container_.empty() ? rm->default_container() : container_;
    handle_ = data_flow::SharedResourceHandle(*c->device(), ref_, container_,
                                              name_, LookupTable::kTypeName);
  }

  void Compute(OpKernelContext* ctx) override {
    // TensorFlow's kernel reads an input the v1 op does not have.
    DFX_OP_REQUIRES(
        ctx, !ref_,
        absl::InvalidArgumentError("Unknown input name: deleted_key"));
    if (anonymous_) {
      absl::StatusOr<std::shared_ptr<LookupTable>> t = MakeDenseTable(
          {key_dtype_, value_dtype_, value_shape_, max_load_factor_,
           initial_num_buckets_, ctx->input(0), ctx->input(1)});
      DFX_OP_REQUIRES_OK(ctx, t.status());
      absl::StatusOr<Tensor> handle = CreateAnonymousTable(ctx, *std::move(t));
      DFX_OP_REQUIRES_OK(ctx, handle.status());
      ctx->set_output(0, *std::move(handle));
      return;
    }
    absl::Status made = absl::OkStatus();
    absl::StatusOr<std::shared_ptr<LookupTable>> table =
        ctx->resource_manager()->LookupOrCreate<LookupTable>(
            container_, name_, [&]() -> std::shared_ptr<LookupTable> {
              absl::StatusOr<std::shared_ptr<LookupTable>> t = MakeDenseTable(
                  {key_dtype_, value_dtype_, value_shape_, max_load_factor_,
                   initial_num_buckets_, ctx->input(0), ctx->input(1)});
              made = t.status();
              return t.ok() ? *std::move(t) : nullptr;
            });
    DFX_OP_REQUIRES_OK(ctx, made);
    DFX_OP_REQUIRES_OK(ctx, table.status());
    const LookupTable& t = **table;
    DFX_OP_REQUIRES(
        ctx, t.key_dtype() == key_dtype_ && t.value_dtype() == value_dtype_,
        absl::InvalidArgumentError(absl::StrCat(
            "Conflicting key/value dtypes ", DataTypeString(key_dtype_), "->",
            DataTypeString(value_dtype_), " with ",
            DataTypeString(t.key_dtype()), "-", DataTypeString(t.value_dtype()),
            " for table ", name_)));
    ctx->set_output(0, handle_);
  }

 private:
  bool ref_ = false;
  bool anonymous_ = false;  // a new table of the step on every run
  DataType key_dtype_ = DT_INVALID;
  DataType value_dtype_ = DT_INVALID;
  float max_load_factor_ = 0.8f;
  int64_t initial_num_buckets_ = 0;
  TensorShape value_shape_;
  std::string container_;
  std::string name_;
  Tensor handle_{DT_RESOURCE, TensorShape()};
};

}  // namespace

void RegisterDenseHashTableKernels(KernelRegistry* registry) {
  for (const char* op : {"MutableDenseHashTableV2", "MutableDenseHashTable",
                         "AnonymousMutableDenseHashTable"}) {
    for (const DenseTableKind& kind : kDenseTableKinds) {
      RegisterKernel<DenseTableOp>(
          registry, KernelDefBuilder(op)
                        .TypeConstraint("key_dtype", {kind.key})
                        .TypeConstraint("value_dtype", {kind.value}));
    }
  }
}

}  // namespace dfx

// LookupTable: the table resource every lookup-table op kernel drives
// (LookupTableFind/Insert/Remove/Import/Export/Size, v1 and V2), whatever
// kind of table it is (kernels/lookup/lookup_kernels.cc: HashTable,
// MutableHashTable, MutableHashTableOfTensors; dense_hash_table.cc:
// MutableDenseHashTable). TensorFlow's LookupInterface, 2.21 semantics.
#ifndef DFX_KERNELS_LOOKUP_LOOKUP_TABLE_H_
#define DFX_KERNELS_LOOKUP_LOOKUP_TABLE_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "runtime/op_kernel.h"
#include "runtime/resource_mgr.h"

namespace dfx {

// A table's contents and the operations every kind of table has. Each key
// is a tensor of key_shape() ([] but for a dense table made with vector
// keys) and each value one of value_shape(). Thread-safe.
class LookupTable : public ResourceBase {
 public:
  static constexpr const char* kTypeName = "LookupTable";

  LookupTable(DataType key_dtype, DataType value_dtype, bool initializable)
      : key_dtype_(key_dtype),
        value_dtype_(value_dtype),
        initializable_(initializable) {}
  LookupTable(DataType key_dtype, DataType value_dtype, bool initializable,
              const TensorShape& key_shape, const TensorShape& value_shape)
      : key_dtype_(key_dtype),
        value_dtype_(value_dtype),
        initializable_(initializable),
        key_shape_(key_shape),
        value_shape_(value_shape) {}

  std::string TypeName() const override { return kTypeName; }

  DataType key_dtype() const { return key_dtype_; }
  DataType value_dtype() const { return value_dtype_; }
  const TensorShape& key_shape() const { return key_shape_; }
  const TensorShape& value_shape() const { return value_shape_; }
  // A HashTable: filled once, then read-only.
  bool initializable() const { return initializable_; }
  bool is_initialized() const {
    return initialized_.load(std::memory_order_acquire);
  }

  virtual int64_t size() const = 0;
  // out (keys' batch shape + value_shape) = each key's value, or else the
  // default: a MutableHashTable takes dflt's row i when dflt has as many
  // elements as out (TensorFlow's per-key defaults), other tables its first
  // row. REQUIRES: CheckFind(keys, dflt) is OK.
  virtual absl::Status Find(const Tensor& keys, const Tensor& dflt,
                            Tensor* out) const = 0;
  // Inserts each pair; `overwrite` replaces an existing key's value,
  // otherwise a key already present with another value is
  // FailedPrecondition (HashTable). `clear` empties the table first.
  // REQUIRES: CheckInsert(keys, values) is OK.
  virtual absl::Status Insert(const Tensor& keys, const Tensor& values,
                              bool clear, bool overwrite) = 0;
  // REQUIRES: keys end with key_shape().
  virtual absl::Status Remove(const Tensor& keys) = 0;
  virtual void Clear() = 0;
  // The table's contents as LookupTableExport gives them.
  virtual absl::Status Export(Tensor* keys, Tensor* values) const = 0;
  // LookupTableImport: replaces the contents with `keys` and `values` (as
  // Export gave them). REQUIRES: CheckImport(keys, values) is OK.
  virtual absl::Status Import(const Tensor& keys, const Tensor& values) {
    return Insert(keys, values, /*clear=*/true, /*overwrite=*/true);
  }
  // TensorFlow's checks of the arguments: InvalidArgument with its
  // messages. Keys must end with key_shape(); values (and a default of
  // Find) have the keys' batch shape + value_shape().
  absl::Status CheckKeyShape(const TensorShape& keys) const;
  absl::Status CheckInsert(const Tensor& keys, const Tensor& values) const;
  absl::Status CheckFind(const Tensor& keys, const Tensor& dflt) const;
  virtual absl::Status CheckImport(const Tensor& keys,
                                   const Tensor& values) const {
    return CheckInsert(keys, values);
  }
  // keys.shape minus key_shape() plus value_shape(): the shape of the
  // values of `keys`. REQUIRES: keys end with key_shape().
  absl::StatusOr<TensorShape> ValuesShape(const TensorShape& keys) const;

  // HashTable's one initialization from `keys` and `values` (vectors).
  // An initialized table stays as it is when `keys` has as many entries as
  // it (TensorFlow compares only the sizes), else FailedPrecondition.
  absl::Status Initialize(const Tensor& keys, const Tensor& values);

 private:
  const DataType key_dtype_;
  const DataType value_dtype_;
  const bool initializable_;
  const TensorShape key_shape_;
  const TensorShape value_shape_;
  absl::Mutex init_mu_;  // one initialization at a time
  std::atomic<bool> initialized_{false};
};

// The HashTable that input 0 of `ctx` names; InvalidArgument for a table
// of another kind (TensorFlow's "Table ... is not initializable").
absl::StatusOr<std::shared_ptr<LookupTable>> GetInitializableTable(
    OpKernelContext* ctx);

// The Anonymous* table ops: `table` kept in the step's container (it lives
// as long as the step, as TensorFlow's lives as long as its handles within
// a step), and its handle.
absl::StatusOr<Tensor> CreateAnonymousTable(OpKernelContext* ctx,
                                            std::shared_ptr<LookupTable> table);

}  // namespace dfx

#endif  // DFX_KERNELS_LOOKUP_LOOKUP_TABLE_H_

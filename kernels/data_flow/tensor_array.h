// TensorArray: the per-step resource behind TensorFlow's TensorArrayV3 ops,
// an array of tensors of one dtype that a loop writes one index at a time
// and reads back (or gathers, concatenates) after it.
//
// TensorFlow's semantics, which gradients through loops depend on:
//   * An index is written at most once, and never after it was read; a
//     gradient array ("multiple_writes_aggregate") instead sums the writes
//     to one index, since each is a partial gradient of one forward read.
//   * With clear_after_read (the default) an index is read at most once,
//     and its tensor is released when read.
//   * Reading an index never written returns zeros when the element shape
//     is fully known (a gradient array knows each index's shape from its
//     forward array); otherwise it is an error.
//   * A dynamic_size array grows when written past its end; creating its
//     gradient array freezes its size.
//   * The element shape (partially known) is checked on every write; with
//     identical_element_shapes the first write fixes it.
//   * A closed array drops its tensors; every later use fails.
// Every error is InvalidArgument naming the array, except those the method
// documents otherwise.
#ifndef DFX_KERNELS_DATA_FLOW_TENSOR_ARRAY_H_
#define DFX_KERNELS_DATA_FLOW_TENSOR_ARRAY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/types/span.h"
#include "graph/shape_inference.h"
#include "runtime/allocator.h"
#include "runtime/resource_mgr.h"
#include "runtime/tensor.h"

namespace dfx::data_flow {

class TensorArray : public ResourceBase {
 public:
  static constexpr const char* kTypeName = "TensorArray";
  // dfx keeps bookkeeping for every index up to the size, so it bounds the
  // size (TensorFlow's is int32, and runs out of memory near its top):
  // creating, growing or reading past it is ResourceExhausted.
  static constexpr int64_t kMaxSize = int64_t{1} << 24;

  struct Options {
    DataType dtype = DT_INVALID;
    int64_t size = 0;
    PartialShape element_shape;  // unknown rank by default
    bool identical_element_shapes = false;
    bool dynamic_size = false;
    bool clear_after_read = true;
    // A gradient array: writes to one index are summed, reads of unwritten
    // indices (even past the end) give zeros of the forward shape.
    bool is_grad = false;
    // The size a split (or a forward split, for a gradient array) marked:
    // what a gradient array's concat uses. -1 when none.
    int64_t marked_size = -1;
  };

  // `name` appears in errors ("TensorArrayV3_0", "TensorArrayV3_0@gradients").
  // REQUIRES: 0 <= options.size <= kMaxSize (Create checks it).
  TensorArray(std::string name, Options options);

  // The array, or InvalidArgument / ResourceExhausted for a bad size.
  static absl::StatusOr<std::shared_ptr<TensorArray>> Create(std::string name,
                                                             Options options);

  std::string TypeName() const override { return kTypeName; }
  std::string DebugString() const override;
  int64_t MemoryUsed() const override;

  const std::string& name() const { return name_; }
  DataType dtype() const { return dtype_; }
  bool identical_element_shapes() const { return identical_element_shapes_; }

  // Stores `value` (sharing its buffer) at `index`, or adds it to what is
  // there in a gradient array (into a buffer of the array's own, allocated
  // from `allocator`).
  absl::Status Write(Allocator* allocator, int64_t index, const Tensor& value);
  // Writes values[i] at indices[i] in order; stops at the first error
  // (earlier writes stay, as in TensorFlow).
  absl::Status WriteMany(Allocator* allocator, absl::Span<const int64_t> indices,
                         absl::Span<const Tensor> values);
  // The tensor at `index` (zeros allocated from `allocator` for an unwritten
  // index whose shape is known).
  absl::StatusOr<Tensor> Read(Allocator* allocator, int64_t index);
  absl::Status ReadMany(Allocator* allocator, absl::Span<const int64_t> indices,
                        std::vector<Tensor>* values);

  absl::StatusOr<int64_t> Size() const;
  // Records the size after a split (ignored by a gradient array).
  absl::Status SetMarkedSize(int64_t size);
  absl::StatusOr<int64_t> MarkedSize() const;
  // How many elements a concat takes: the marked size for a gradient array
  // (its forward array was split), else the size.
  absl::StatusOr<int64_t> ConcatSize() const;

  void DisableDynamicSize();
  bool HasDynamicSize() const;
  // False once a write was summed into an index: no gradient array of this
  // one can be made (its gradient would be ambiguous).
  bool GradientsAllowed() const;

  PartialShape element_shape() const;
  // Narrows the element shape; InvalidArgument when incompatible.
  absl::Status MergeElementShape(const PartialShape& shape);

  // For a new gradient array of `forward` (same size): marks every index
  // the forward array wrote as written with zeros of its shape, prefixed by
  // `prepend` when given. REQUIRES: this array is not yet shared.
  absl::Status CopyShapesFrom(const TensorArray& forward,
                              const TensorShape* prepend);

  // Drops every tensor; later calls fail.
  void ClearAndMarkClosed();

 private:
  struct Element {
    Tensor tensor;      // uninitialized: not written, or zeros not made yet
    TensorShape shape;  // of what was written
    bool written = false;
    bool read = false;
    bool cleared = false;     // read with clear_after_read
    bool local_copy = false;  // `tensor` is the array's own sum buffer
  };

  absl::Status CheckOpenLocked() const ABSL_SHARED_LOCKS_REQUIRED(mu_);
  absl::Status WriteLocked(Allocator* allocator, int64_t index,
                           const Tensor& value)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::StatusOr<Tensor> ReadLocked(Allocator* allocator, int64_t index)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status GrowLocked(int64_t size) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::string name_;
  const DataType dtype_;
  const bool identical_element_shapes_;
  const bool clear_after_read_;
  const bool is_grad_;
  const bool multiple_writes_aggregate_;

  mutable absl::Mutex mu_;
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  bool dynamic_size_ ABSL_GUARDED_BY(mu_);
  bool gradients_disallowed_ ABSL_GUARDED_BY(mu_) = false;
  int64_t marked_size_ ABSL_GUARDED_BY(mu_);
  PartialShape element_shape_ ABSL_GUARDED_BY(mu_);
  std::vector<Element> elements_ ABSL_GUARDED_BY(mu_);
};

}  // namespace dfx::data_flow

#endif  // DFX_KERNELS_DATA_FLOW_TENSOR_ARRAY_H_

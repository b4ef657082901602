// Tensor: a dtype, a shape and a reference-counted aligned buffer. Copying a
// Tensor shares the buffer; views (Slice, reshape) share it too.
#ifndef DFX_RUNTIME_TENSOR_H_
#define DFX_RUNTIME_TENSOR_H_

#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "base/logging.h"
#include "base/shared_ref.h"
#include "proto/tensor.pb.h"
#include "runtime/allocator.h"
#include "runtime/tensor_shape.h"
#include "runtime/types.h"

namespace dfx {

// A block of memory holding tensor elements. Immutable size; shared by every
// Tensor that views it and freed when the last one goes.
class TensorBuffer {
 public:
  TensorBuffer(void* data, size_t size) : data_(data), size_(size) {}
  virtual ~TensorBuffer() = default;
  TensorBuffer(const TensorBuffer&) = delete;
  TensorBuffer& operator=(const TensorBuffer&) = delete;

  void* data() const { return data_; }
  size_t size() const { return size_; }
  // False when the memory is a device's the host cannot read.
  virtual bool OnHost() const { return true; }
  // True when the memory came from an Allocator for this buffer alone;
  // false for memory someone else lent (Tensor::FromExternal: a gRPC
  // slice, which may be another tensor's buffer).
  virtual bool OwnsMemory() const { return false; }

 private:
  void* const data_;
  const size_t size_;
};

class Tensor {
 public:
  // An uninitialized float scalar (IsInitialized() is false).
  Tensor() = default;
  // Allocates from the CPU allocator. REQUIRES: a dtype with a C++ type
  // (DataTypeSize > 0, or DT_STRING). DFX_CHECKs on out-of-memory; use
  // Allocate for sizes that come from outside.
  Tensor(DataType dtype, const TensorShape& shape);
  Tensor(Allocator* allocator, DataType dtype, const TensorShape& shape);

  // ResourceExhausted when the allocator fails, InvalidArgument for a dtype
  // dfx cannot hold in memory.
  static absl::StatusOr<Tensor> Allocate(Allocator* allocator, DataType dtype,
                                         const TensorShape& shape);

  // Wraps memory owned elsewhere; `release` runs when the last Tensor viewing
  // it goes away. REQUIRES: `size` >= the bytes the shape needs, memcpy-able
  // dtype.
  static Tensor FromExternal(DataType dtype, const TensorShape& shape,
                             void* data, size_t size,
                             std::function<void()> release);

  // A scalar of C++ type T.
  template <typename T>
  static Tensor Scalar(T value) {
    Tensor t(DataTypeToEnum<T>::value, TensorShape());
    t.data<T>()[0] = std::move(value);
    return t;
  }
  // A rank-1 or shaped tensor from values. REQUIRES: values.size() ==
  // shape.num_elements().
  template <typename T>
  static Tensor FromVector(absl::Span<const T> values,
                           const TensorShape& shape) {
    DFX_CHECK(static_cast<int64_t>(values.size()) == shape.num_elements());
    Tensor t(DataTypeToEnum<T>::value, shape);
    T* out = t.data<T>();
    for (size_t i = 0; i < values.size(); ++i) out[i] = values[i];
    return t;
  }
  template <typename T>
  static Tensor FromVector(absl::Span<const T> values) {
    return FromVector<T>(values,
                         TensorShape({static_cast<int64_t>(values.size())}));
  }

  // Decodes tensor_content or the typed *_val fields (a short typed list is
  // padded with its last value, as TensorFlow does). InvalidArgument naming
  // the problem for a malformed proto.
  static absl::StatusOr<Tensor> FromProto(const TensorProto& proto,
                                          Allocator* allocator = nullptr);

  bool IsInitialized() const {
    return buf_.get() != nullptr || num_elements() == 0;
  }
  DataType dtype() const { return dtype_; }
  const TensorShape& shape() const { return shape_; }
  // True unless the elements are in memory the host cannot read (a GPU's);
  // true for a tensor without a buffer.
  bool OnHost() const { return buf_.get() == nullptr || buf_->OnHost(); }
  int dims() const { return shape_.dims(); }
  int64_t dim_size(int i) const { return shape_.dim_size(i); }
  int64_t NumElements() const { return shape_.num_elements(); }
  int64_t num_elements() const { return shape_.num_elements(); }
  // Bytes of element storage (memcpy-able dtypes), or sizeof elements.
  size_t TotalBytes() const;

  // REQUIRES: DataTypeToEnum<T>::value == dtype().
  template <typename T>
  T* data() {
    DFX_DCHECK(DataTypeToEnum<T>::value == dtype_);
    return static_cast<T*>(data_);
  }
  template <typename T>
  const T* data() const {
    DFX_DCHECK(DataTypeToEnum<T>::value == dtype_);
    return static_cast<const T*>(data_);
  }
  template <typename T>
  absl::Span<T> span() {
    return absl::Span<T>(data<T>(), static_cast<size_t>(NumElements()));
  }
  template <typename T>
  absl::Span<const T> span() const {
    return absl::Span<const T>(data<T>(), static_cast<size_t>(NumElements()));
  }
  // REQUIRES: one element.
  template <typename T>
  T& scalar() {
    DFX_DCHECK(NumElements() == 1);
    return *data<T>();
  }
  template <typename T>
  const T& scalar() const {
    DFX_DCHECK(NumElements() == 1);
    return *data<T>();
  }
  void* raw_data() { return data_; }
  const void* raw_data() const { return data_; }

  // Rows [start, limit) of dim 0, sharing the buffer. REQUIRES: dims() >= 1,
  // 0 <= start <= limit <= dim_size(0), memcpy-able dtype.
  Tensor Slice(int64_t start, int64_t limit) const;
  // The same buffer under another shape. InvalidArgument when the element
  // counts differ.
  absl::StatusOr<Tensor> Reshaped(const TensorShape& shape) const;
  // A copy with its own buffer.
  Tensor DeepCopy() const;
  bool SharesBufferWith(const Tensor& other) const {
    return buf_.get() != nullptr && buf_.get() == other.buf_.get();
  }
  // The number of Tensors sharing this buffer (0 when none); a snapshot,
  // for tests and statistics.
  long BufferRefCount() const { return buf_.use_count(); }
  // Whether this Tensor is the only one viewing its buffer, so that a
  // kernel may write it in place. When true, everything done through
  // Tensors that viewed it before (on any thread) happens before what the
  // caller does next.
  bool BufferUnshared() const { return buf_.Unique(); }
  // BufferUnshared, and the memory is the buffer's own (an allocator's,
  // not lent by someone else) and the host's: a kernel may write its
  // output there (OpKernelContext::forward_input_or_allocate_output).
  bool CanWriteInPlace() const {
    return buf_.get() != nullptr && buf_->OwnsMemory() && buf_->OnHost() &&
           buf_.Unique();
  }

  // Writes every element into tensor_content (strings: TensorFlow's
  // varint-length list).
  void AsProtoTensorContent(TensorProto* proto) const;
  // Writes every element into the typed *_val field.
  void AsProtoField(TensorProto* proto) const;

  // "Tensor<type: float shape: [2,2] values: [1 2][3 4]>", at most
  // `max_entries` values.
  std::string DebugString(int max_entries = 6) const;
  // Just the values, nested brackets by dim, at most `max_entries`.
  std::string SummarizeValue(int64_t max_entries) const;

 private:
  Tensor(DataType dtype, TensorShape shape, SharedRef<TensorBuffer> buf,
         void* data)
      : dtype_(dtype), shape_(std::move(shape)), buf_(std::move(buf)),
        data_(data) {}

  DataType dtype_ = DT_FLOAT;
  TensorShape shape_;
  SharedRef<TensorBuffer> buf_;
  void* data_ = nullptr;  // start of this view inside buf_
};

}  // namespace dfx

#endif  // DFX_RUNTIME_TENSOR_H_

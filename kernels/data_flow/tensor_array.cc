#include "kernels/data_flow/tensor_array.h"

#include <complex>
#include <cstring>
#include <type_traits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "kernels/data_flow/data_flow_util.h"
#include "runtime/types.h"

namespace dfx::data_flow {
namespace {

template <typename T>
void AddSpan(const T* a, const T* b, T* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = a[i] + b[i];
}

// Half and bfloat16 add in float and round once, as Eigen does.
template <typename T>
void AddNarrowSpan(const T* a, const T* b, T* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    out[i] = T(static_cast<float>(a[i]) + static_cast<float>(b[i]));
  }
}

// out = a + b elementwise; `out` may be `a`. REQUIRES: equal shapes and
// dtypes. InvalidArgument for a dtype that cannot be summed.
absl::Status AddTensors(const Tensor& a, const Tensor& b, Tensor* out) {
  const int64_t n = a.NumElements();
  switch (a.dtype()) {
    case DT_HALF:
      AddNarrowSpan(a.data<Eigen::half>(), b.data<Eigen::half>(),
                    out->data<Eigen::half>(), n);
      return absl::OkStatus();
    case DT_BFLOAT16:
      AddNarrowSpan(a.data<Eigen::bfloat16>(), b.data<Eigen::bfloat16>(),
                    out->data<Eigen::bfloat16>(), n);
      return absl::OkStatus();
    case DT_COMPLEX64:
      AddSpan(a.data<std::complex<float>>(), b.data<std::complex<float>>(),
              out->data<std::complex<float>>(), n);
      return absl::OkStatus();
    case DT_COMPLEX128:
      AddSpan(a.data<std::complex<double>>(), b.data<std::complex<double>>(),
              out->data<std::complex<double>>(), n);
      return absl::OkStatus();
    case DT_BOOL:
      break;
    default: {
      bool done = VisitNumericType(a.dtype(), [&]<typename T>() {
        if constexpr (!std::is_same_v<T, bool> &&
                      !std::is_same_v<T, Eigen::half> &&
                      !std::is_same_v<T, Eigen::bfloat16>) {
          AddSpan(a.data<T>(), b.data<T>(), out->data<T>(), n);
        }
      });
      if (done) return absl::OkStatus();
    }
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "cannot sum ", DataTypeString(a.dtype()), " tensors"));
}

// Zeros of `dtype` and `shape`: all-zero bytes are zero (or false) for
// every fixed-size type.
absl::StatusOr<Tensor> Zeros(Allocator* allocator, DataType dtype,
                             const TensorShape& shape) {
  if (shape.num_elements() > 0 && !DataTypeCanMemcpy(dtype)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot make a zero ", DataTypeString(dtype), " tensor"));
  }
  DFX_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(allocator, dtype, shape));
  if (t.TotalBytes() > 0) std::memset(t.raw_data(), 0, t.TotalBytes());
  return t;
}

}  // namespace

TensorArray::TensorArray(std::string name, Options options)
    : name_(std::move(name)),
      dtype_(options.dtype),
      identical_element_shapes_(options.identical_element_shapes),
      clear_after_read_(options.clear_after_read),
      is_grad_(options.is_grad),
      multiple_writes_aggregate_(options.is_grad),
      dynamic_size_(options.dynamic_size),
      marked_size_(options.marked_size),
      element_shape_(std::move(options.element_shape)),
      elements_(static_cast<size_t>(options.size)) {}

absl::StatusOr<std::shared_ptr<TensorArray>> TensorArray::Create(
    std::string name, Options options) {
  if (options.size < 0) {
    return absl::InvalidArgumentError("Size should be >= 0.");
  }
  if (options.size > kMaxSize) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "TensorArray ", name, ": size ", options.size,
        " is more than the ", kMaxSize, " elements dfx allows"));
  }
  return std::make_shared<TensorArray>(std::move(name), std::move(options));
}

std::string TensorArray::DebugString() const {
  absl::MutexLock lock(&mu_);
  return absl::StrCat("TensorArray[", name_, "] of ", elements_.size(), " ",
                      DataTypeString(dtype_), " elements",
                      closed_ ? ", closed" : "");
}

int64_t TensorArray::MemoryUsed() const {
  absl::MutexLock lock(&mu_);
  int64_t bytes = 0;
  for (const Element& e : elements_) {
    if (e.tensor.IsInitialized()) {
      bytes += static_cast<int64_t>(e.tensor.TotalBytes());
    }
  }
  return bytes;
}

absl::Status TensorArray::CheckOpenLocked() const {
  if (closed_) {
    return absl::InvalidArgumentError(
        absl::StrCat("TensorArray ", name_, " has already been closed."));
  }
  return absl::OkStatus();
}

absl::Status TensorArray::GrowLocked(int64_t size) {
  if (size <= static_cast<int64_t>(elements_.size())) return absl::OkStatus();
  if (size > kMaxSize) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "TensorArray ", name_, ": cannot grow to ", size,
        " elements, more than the ", kMaxSize, " dfx allows"));
  }
  elements_.resize(static_cast<size_t>(size));
  return absl::OkStatus();
}

absl::Status TensorArray::Write(Allocator* allocator, int64_t index,
                                const Tensor& value) {
  absl::MutexLock lock(&mu_);
  return WriteLocked(allocator, index, value);
}

absl::Status TensorArray::WriteMany(Allocator* allocator,
                                    absl::Span<const int64_t> indices,
                                    absl::Span<const Tensor> values) {
  absl::MutexLock lock(&mu_);
  for (size_t i = 0; i < indices.size(); ++i) {
    DFX_RETURN_IF_ERROR(WriteLocked(allocator, indices[i], values[i]));
  }
  return absl::OkStatus();
}

absl::Status TensorArray::WriteLocked(Allocator* allocator, int64_t index,
                                      const Tensor& value) {
  DFX_RETURN_IF_ERROR(CheckOpenLocked());
  const int64_t size = static_cast<int64_t>(elements_.size());
  if (index < 0 || (!dynamic_size_ && index >= size)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "TensorArray ", name_, ": Tried to write to index ", index,
        " but array is not resizeable and size is: ", size));
  }
  if (value.dtype() != dtype_) {
    return absl::InvalidArgumentError(absl::StrCat(
        "TensorArray ", name_, ": Could not write to TensorArray index ", index,
        " because the value dtype is ", DataTypeString(value.dtype()),
        " but TensorArray dtype is ", DataTypeString(dtype_), "."));
  }
  DFX_RETURN_IF_ERROR(GrowLocked(index + 1));
  if (!IsCompatible(element_shape_, value.shape())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "TensorArray ", name_, ": Could not write to TensorArray index ", index,
        " because the value shape is ", value.shape().DebugString(),
        " which is incompatible with the TensorArray's inferred element "
        "shape: ",
        element_shape_.DebugString(), " (consider setting infer_shape=False)."));
  }
  if (identical_element_shapes_ && !element_shape_.FullyDefined()) {
    element_shape_ = ToPartial(value.shape());
  }
  Element& e = elements_[static_cast<size_t>(index)];
  if (e.read) {
    return absl::InvalidArgumentError(absl::StrCat(
        "TensorArray ", name_, ": Could not write to TensorArray index ", index,
        " because it has already been read."));
  }
  if (!e.written) {
    e.tensor = value;
    e.shape = value.shape();
    e.written = true;
    return absl::OkStatus();
  }
  if (!multiple_writes_aggregate_) {
    return absl::InvalidArgumentError(absl::StrCat(
        "TensorArray ", name_, ": Could not write to TensorArray index ", index,
        " because it has already been written to."));
  }
  // A gradient array: sum the partial gradients.
  if (value.shape() != e.shape) {
    return absl::InvalidArgumentError(absl::StrCat(
        "TensorArray ", name_, ": Could not aggregate to TensorArray index ",
        index, " because the existing shape is ", e.shape.DebugString(),
        " but the new input shape is ", value.shape().DebugString(), "."));
  }
  if (!e.tensor.IsInitialized() || e.tensor.NumElements() == 0) {
    // Only the shape was known (zeros): the value is the sum.
    e.tensor = value;
    return absl::OkStatus();
  }
  if (!e.local_copy) {
    // The first tensor is someone else's buffer; sum into one of our own.
    DFX_ASSIGN_OR_RETURN(Tensor sum,
                         Tensor::Allocate(allocator, dtype_, e.shape));
    absl::Status s = AddTensors(e.tensor, value, &sum);
    if (!s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "TensorArray ", name_, ": Could not aggregate to index ", index,
          ": ", s.message()));
    }
    e.tensor = std::move(sum);
    e.local_copy = true;
  } else {
    DFX_RETURN_IF_ERROR(AddTensors(e.tensor, value, &e.tensor));
  }
  gradients_disallowed_ = true;
  return absl::OkStatus();
}

absl::StatusOr<Tensor> TensorArray::Read(Allocator* allocator, int64_t index) {
  absl::MutexLock lock(&mu_);
  return ReadLocked(allocator, index);
}

absl::Status TensorArray::ReadMany(Allocator* allocator,
                                   absl::Span<const int64_t> indices,
                                   std::vector<Tensor>* values) {
  absl::MutexLock lock(&mu_);
  values->clear();
  values->reserve(indices.size());
  for (int64_t index : indices) {
    DFX_ASSIGN_OR_RETURN(Tensor v, ReadLocked(allocator, index));
    values->push_back(std::move(v));
  }
  return absl::OkStatus();
}

absl::StatusOr<Tensor> TensorArray::ReadLocked(Allocator* allocator,
                                               int64_t index) {
  DFX_RETURN_IF_ERROR(CheckOpenLocked());
  const int64_t size = static_cast<int64_t>(elements_.size());
  if (index < 0 || (!is_grad_ && index >= size)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Tried to read from index ", index, " but array size is: ", size));
  }
  if (index >= size || !elements_[static_cast<size_t>(index)].written) {
    // Never written: zeros, when the shape is known. A gradient array is
    // read where the forward array was not written when stop_gradient kept
    // a gradient from being written; past its end after a dynamic forward
    // array grew.
    if (!element_shape_.FullyDefined()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "TensorArray ", name_, ": Could not read from TensorArray index ",
          index, ".  Furthermore, the element shape is not fully defined: ",
          element_shape_.DebugString(),
          ".  It is possible you are working with a resizeable TensorArray "
          "and stop_gradients is not allowing the gradients to be written.  "
          "If you set the full element_shape property on the forward "
          "TensorArray, the proper all-zeros tensor will be returned instead "
          "of incurring this error."));
    }
    const TensorShape shape = ToTensorShape(element_shape_);
    const size_t old_size = elements_.size();
    DFX_RETURN_IF_ERROR(GrowLocked(index + 1));
    for (size_t i = old_size; i < elements_.size(); ++i) {
      elements_[i].shape = shape;
      elements_[i].written = true;
    }
    Element& e = elements_[static_cast<size_t>(index)];
    e.shape = shape;
    e.written = true;
  }
  Element& e = elements_[static_cast<size_t>(index)];
  if (e.cleared) {
    return absl::InvalidArgumentError(absl::StrCat(
        "TensorArray ", name_, ": Could not read index ", index,
        " twice because it was cleared after a previous read (perhaps try "
        "setting clear_after_read = false?)."));
  }
  if (!e.tensor.IsInitialized() || e.tensor.NumElements() == 0) {
    absl::StatusOr<Tensor> zeros = Zeros(allocator, dtype_, e.shape);
    if (!zeros.ok()) {
      return absl::Status(zeros.status().code(),
                          absl::StrCat("TensorArray ", name_, ": index ",
                                       index, ": ", zeros.status().message()));
    }
    e.tensor = *std::move(zeros);
  }
  Tensor value = e.tensor;
  if (clear_after_read_) {
    e.tensor = Tensor();
    e.cleared = true;
  }
  e.read = true;
  return value;
}

absl::StatusOr<int64_t> TensorArray::Size() const {
  absl::MutexLock lock(&mu_);
  DFX_RETURN_IF_ERROR(CheckOpenLocked());
  return static_cast<int64_t>(elements_.size());
}

absl::Status TensorArray::SetMarkedSize(int64_t size) {
  absl::MutexLock lock(&mu_);
  DFX_RETURN_IF_ERROR(CheckOpenLocked());
  if (!is_grad_) marked_size_ = size;
  return absl::OkStatus();
}

absl::StatusOr<int64_t> TensorArray::MarkedSize() const {
  absl::MutexLock lock(&mu_);
  DFX_RETURN_IF_ERROR(CheckOpenLocked());
  return marked_size_;
}

absl::StatusOr<int64_t> TensorArray::ConcatSize() const {
  absl::MutexLock lock(&mu_);
  DFX_RETURN_IF_ERROR(CheckOpenLocked());
  // TensorFlow takes the marked size of a gradient array even when its
  // forward array was never split (-1), and fails; dfx takes the size then.
  if (is_grad_ && marked_size_ >= 0) return marked_size_;
  return static_cast<int64_t>(elements_.size());
}

void TensorArray::DisableDynamicSize() {
  absl::MutexLock lock(&mu_);
  dynamic_size_ = false;
}

bool TensorArray::HasDynamicSize() const {
  absl::MutexLock lock(&mu_);
  return dynamic_size_;
}

bool TensorArray::GradientsAllowed() const {
  absl::MutexLock lock(&mu_);
  return !gradients_disallowed_;
}

PartialShape TensorArray::element_shape() const {
  absl::MutexLock lock(&mu_);
  return element_shape_;
}

absl::Status TensorArray::MergeElementShape(const PartialShape& shape) {
  absl::MutexLock lock(&mu_);
  DFX_ASSIGN_OR_RETURN(element_shape_, MergeShapes(element_shape_, shape));
  return absl::OkStatus();
}

absl::Status TensorArray::CopyShapesFrom(const TensorArray& forward,
                                         const TensorShape* prepend) {
  // `this` is not shared yet, so taking the two locks cannot deadlock.
  absl::MutexLock lock(&mu_);
  absl::MutexLock forward_lock(&forward.mu_);
  DFX_RETURN_IF_ERROR(CheckOpenLocked());
  DFX_RETURN_IF_ERROR(forward.CheckOpenLocked());
  if (elements_.size() != forward.elements_.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "TensorArray sizes do not match during CopyShapesFrom: ", name_,
        " has size ", elements_.size(), " but rhs ", forward.name_,
        " has size ", forward.elements_.size()));
  }
  for (size_t i = 0; i < elements_.size(); ++i) {
    const Element& f = forward.elements_[i];
    if (!f.written) continue;
    Element& e = elements_[i];
    if (prepend != nullptr) {
      TensorShape shape = *prepend;
      for (int64_t d : f.shape.dim_sizes()) {
        DFX_RETURN_IF_ERROR(shape.AddDim(d));
      }
      e.shape = std::move(shape);
    } else {
      e.shape = f.shape;
    }
    // Written with no tensor: a read gives zeros of this shape, a write
    // takes the value as it is.
    e.written = true;
  }
  return absl::OkStatus();
}

void TensorArray::ClearAndMarkClosed() {
  absl::MutexLock lock(&mu_);
  elements_.clear();
  closed_ = true;
}

}  // namespace dfx::data_flow

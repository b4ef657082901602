// TensorShape: the dims of a tensor whose shape is fully known, with sizes
// checked for overflow.
#ifndef DFX_RUNTIME_TENSOR_SHAPE_H_
#define DFX_RUNTIME_TENSOR_SHAPE_H_

#include <cstdint>
#include <initializer_list>
#include <string>

#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "proto/tensor_shape.pb.h"

namespace dfx {

class TensorShape {
 public:
  // Largest supported rank, and largest number of elements (2^62).
  static constexpr int kMaxRank = 254;
  static constexpr int64_t kMaxElements = int64_t{1} << 62;

  // A scalar.
  TensorShape() = default;
  // REQUIRES: every dim >= 0 and the product fits (dfx's own constants only;
  // use Build for sizes that come from outside).
  TensorShape(std::initializer_list<int64_t> dims);

  // InvalidArgument for a negative dim, rank over kMaxRank, or more than
  // kMaxElements elements.
  static absl::StatusOr<TensorShape> Build(absl::Span<const int64_t> dims);
  // As Build; also rejects unknown rank and unknown (-1) dims.
  static absl::StatusOr<TensorShape> FromProto(const TensorShapeProto& proto);

  int dims() const { return static_cast<int>(dims_.size()); }
  int64_t dim_size(int i) const { return dims_[i]; }
  absl::Span<const int64_t> dim_sizes() const { return dims_; }
  int64_t num_elements() const { return num_elements_; }

  // InvalidArgument when the result would overflow.
  absl::Status AddDim(int64_t size);
  // REQUIRES: 0 <= i < dims(), size >= 0 and the result fits.
  void set_dim(int i, int64_t size);
  void RemoveDim(int i);

  bool IsSameSize(const TensorShape& other) const {
    return dims_ == other.dims_;
  }
  bool operator==(const TensorShape& other) const { return IsSameSize(other); }
  bool operator!=(const TensorShape& other) const { return !IsSameSize(other); }

  void AsProto(TensorShapeProto* proto) const;
  // "[2,3]"; a scalar is "[]".
  std::string DebugString() const;

 private:
  void Recompute();

  absl::InlinedVector<int64_t, 4> dims_;
  int64_t num_elements_ = 1;
};

}  // namespace dfx

#endif  // DFX_RUNTIME_TENSOR_SHAPE_H_

// Broadcast: NumPy-style broadcasting of several tensor shapes to one output
// shape, reduced to the fewest dims that describe the same iteration, and a
// strided walk over runs of contiguous output elements for CPU kernels.
#ifndef DFX_KERNELS_BROADCAST_H_
#define DFX_KERNELS_BROADCAST_H_

#include <algorithm>
#include <cstdint>
#include <string>

#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "runtime/tensor_shape.h"

namespace dfx {

// Immutable after Make; cheap to copy. Any rank, size-0 dims and scalars.
class Broadcast {
 public:
  // Most inputs a Broadcast takes (Select has three).
  static constexpr int kMaxInputs = 4;
  using Dims = absl::InlinedVector<int64_t, 8>;

  // Broadcasts `shapes` (1 to kMaxInputs of them) together: shapes are
  // aligned at their last dim, a missing or size-1 dim stretches to the
  // other size. InvalidArgument "Incompatible shapes: [2,3] vs. [4]" (every
  // shape, " vs. " between them) when some dim has two sizes other than 1.
  // The message does not name a node; kernels prefix it.
  static absl::StatusOr<Broadcast> Make(absl::Span<const TensorShape> shapes);
  static absl::StatusOr<Broadcast> Make(const TensorShape& a,
                                        const TensorShape& b) {
    const TensorShape shapes[] = {a, b};
    return Make(shapes);
  }

  int num_inputs() const { return num_inputs_; }
  const TensorShape& output_shape() const { return output_shape_; }
  int64_t num_elements() const { return output_shape_.num_elements(); }
  // True when input i has exactly the output's shape (it is read in order).
  bool IsIdentity(int i) const { return identity_[i]; }
  // True when input i has one element (it is read as a scalar).
  bool IsScalar(int i) const { return scalar_[i]; }

  // The reduced iteration: output dims with size-1 dims dropped and
  // neighbouring dims that every input treats alike merged (at least one dim;
  // a scalar output is [1]). Their product is num_elements().
  const Dims& reduced_dims() const { return dims_; }
  // Element strides of input i over reduced_dims(): 0 where it is
  // broadcast, row-major over its own elements elsewhere.
  const Dims& reduced_strides(int i) const { return strides_[i]; }

  // The TensorFlow BCast form for Eigen's broadcast(): input i reshaped to
  // reduced rank (1 where broadcast) and the factor it is broadcast by.
  Dims ReducedReshape(int i) const;
  Dims ReducedBroadcastFactors(int i) const;

  // Walks output elements [begin, end) in runs that are contiguous in the
  // output and strided by 0 or 1 in every input. For each run calls
  //   fn(int64_t out_offset, int64_t length, const int64_t* in_offsets,
  //      const int64_t* in_steps)
  // with each input's first element offset and its step (0 or 1) along the
  // run. REQUIRES: 0 <= begin <= end <= num_elements(). Runs on the calling
  // thread; safe to call concurrently on disjoint ranges.
  template <typename Fn>
  void ForEachRun(int64_t begin, int64_t end, Fn&& fn) const;

 private:
  Broadcast() = default;

  int num_inputs_ = 0;
  TensorShape output_shape_;
  bool identity_[kMaxInputs] = {};
  bool scalar_[kMaxInputs] = {};
  Dims dims_;
  Dims strides_[kMaxInputs];
};

// The broadcast of two shapes; errors as Broadcast::Make.
absl::StatusOr<TensorShape> BroadcastShapes(const TensorShape& a,
                                            const TensorShape& b);

template <typename Fn>
void Broadcast::ForEachRun(int64_t begin, int64_t end, Fn&& fn) const {
  if (begin >= end) return;
  const int rank = static_cast<int>(dims_.size());
  const int64_t row_len = dims_[rank - 1];
  int64_t steps[kMaxInputs];
  int64_t base[kMaxInputs];  // offsets of the current row's first element
  int64_t offsets[kMaxInputs];
  int64_t idx[TensorShape::kMaxRank];
  for (int k = 0; k < num_inputs_; ++k) {
    steps[k] = strides_[k][rank - 1];
    base[k] = 0;
  }
  // Decompose the starting row into outer indices.
  int64_t row = begin / row_len;
  int64_t col = begin % row_len;
  for (int j = rank - 2; j >= 0; --j) {
    idx[j] = row % dims_[j];
    row /= dims_[j];
    for (int k = 0; k < num_inputs_; ++k) base[k] += idx[j] * strides_[k][j];
  }
  int64_t pos = begin;
  while (true) {
    const int64_t len = std::min(row_len - col, end - pos);
    for (int k = 0; k < num_inputs_; ++k) offsets[k] = base[k] + col * steps[k];
    fn(pos, len, static_cast<const int64_t*>(offsets),
       static_cast<const int64_t*>(steps));
    pos += len;
    if (pos >= end) return;
    col = 0;
    // Next row: increment the outer indices with carry.
    for (int j = rank - 2; j >= 0; --j) {
      ++idx[j];
      for (int k = 0; k < num_inputs_; ++k) base[k] += strides_[k][j];
      if (idx[j] < dims_[j]) break;
      idx[j] = 0;
      for (int k = 0; k < num_inputs_; ++k) {
        base[k] -= dims_[j] * strides_[k][j];
      }
    }
  }
}

}  // namespace dfx

#endif  // DFX_KERNELS_BROADCAST_H_

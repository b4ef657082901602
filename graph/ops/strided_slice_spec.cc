#include "graph/ops/strided_slice_spec.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace dfx {
namespace {

// Entries of the output-shape recipe that are not input dimensions.
constexpr int kShrinkAxis = -1;
constexpr int kNewAxis = -2;

bool Bit(uint32_t mask, int64_t i) { return i < 32 && ((mask >> i) & 1u); }

}  // namespace

absl::Status ComputeStridedSliceSpec(absl::Span<const int64_t> input_dims,
                                     const std::vector<int64_t>* begin,
                                     const std::vector<int64_t>* end,
                                     const std::vector<int64_t>& strides,
                                     const StridedSliceMasks& masks,
                                     StridedSliceSpec* spec) {
  const int64_t sparse_n = static_cast<int64_t>(strides.size());
  if ((begin != nullptr && static_cast<int64_t>(begin->size()) != sparse_n) ||
      (end != nullptr && static_cast<int64_t>(end->size()) != sparse_n) ||
      sparse_n >= 32) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Expected begin, end, and strides to be 1D equal size tensors of "
        "fewer than 32 elements, but got sizes ",
        begin != nullptr ? absl::StrCat(begin->size()) : "?", ", ",
        end != nullptr ? absl::StrCat(end->size()) : "?", ", and ", sparse_n,
        " instead."));
  }
  // Masks are 32-bit in TensorFlow; work on them unsigned so that bit 31
  // and shifts stay well defined.
  const uint32_t begin_mask = static_cast<uint32_t>(masks.begin_mask);
  const uint32_t end_mask = static_cast<uint32_t>(masks.end_mask);
  uint32_t ellipsis_mask = static_cast<uint32_t>(masks.ellipsis_mask);
  const uint32_t new_axis_mask = static_cast<uint32_t>(masks.new_axis_mask);
  const uint32_t shrink_mask = static_cast<uint32_t>(masks.shrink_axis_mask);
  if ((ellipsis_mask & (ellipsis_mask - 1)) != 0) {
    return absl::InvalidArgumentError(
        "Multiple ellipses in slice spec not allowed");
  }

  // Step 1: count the new axes after the ellipsis; with no ellipsis, one is
  // implied after the last index.
  bool ellipsis_seen = false;
  int64_t new_axes_after_ellipsis = 0;
  for (int64_t i = 0; i < sparse_n; ++i) {
    if (ellipsis_seen && Bit(new_axis_mask, i)) ++new_axes_after_ellipsis;
    if (Bit(ellipsis_mask, i)) ellipsis_seen = true;
  }
  int64_t sparse_dims = sparse_n;
  if (!ellipsis_seen) {
    ellipsis_mask |= 1u << sparse_n;
    ++sparse_dims;
  }

  // Step 2: one entry per input dimension (the dense spec).
  const int64_t dims = static_cast<int64_t>(input_dims.size());
  spec->begin.assign(dims, 0);
  spec->end.assign(dims, 0);
  spec->strides.assign(dims, 0);
  std::vector<bool> dense_begin_mask(dims, false);
  std::vector<bool> dense_end_mask(dims, false);
  std::vector<bool> dense_shrink(dims, false);
  std::vector<int64_t> gather;  // input dim, kShrinkAxis or kNewAxis
  int64_t full = 0;
  for (int64_t i = 0; i < sparse_dims; ++i) {
    if (Bit(ellipsis_mask, i)) {
      const int64_t next = std::min(
          dims - (sparse_dims - i) + 1 + new_axes_after_ellipsis, dims);
      for (; full < next; ++full) {
        spec->strides[full] = 1;
        dense_begin_mask[full] = true;
        dense_end_mask[full] = true;
        gather.push_back(full);
      }
    } else if (Bit(new_axis_mask, i)) {
      gather.push_back(kNewAxis);
    } else {
      if (full == dims) {
        return absl::InvalidArgumentError(
            absl::StrCat("Index out of range using input dim ", full,
                         "; input has only ", dims, " dims"));
      }
      if (begin != nullptr) spec->begin[full] = (*begin)[i];
      if (end != nullptr) spec->end[full] = (*end)[i];
      spec->strides[full] = strides[i];
      dense_begin_mask[full] = Bit(begin_mask, i);
      dense_end_mask[full] = Bit(end_mask, i);
      if (Bit(shrink_mask, i)) {
        gather.push_back(kShrinkAxis);
        dense_shrink[full] = true;
      } else {
        gather.push_back(full);
      }
      ++full;
    }
  }

  // Step 3: make masked and negative bounds explicit, clamp them, and count
  // the elements taken along each dimension.
  const bool values_known = begin != nullptr && end != nullptr;
  spec->is_identity = true;
  spec->slice_dim0 = true;
  spec->is_simple_slice = true;
  spec->processing_dims.clear();
  for (int64_t i = 0; i < dims; ++i) {
    int64_t& begin_i = spec->begin[i];
    int64_t& end_i = spec->end[i];
    const int64_t stride_i = spec->strides[i];
    const int64_t dim_i = input_dims[i];
    if (stride_i == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("strides[", i, "] must be non-zero"));
    }
    const bool shrink_i = dense_shrink[i];
    if (dim_i < 0) {
      spec->processing_dims.push_back(shrink_i ? 1 : -1);
      continue;
    }
    const bool begin_masked = dense_begin_mask[i];
    const bool end_masked = dense_end_mask[i];
    // The valid range of a bound: [0, dim] going forward, [-1, dim - 1]
    // going backward (-1 is one before the first element).
    const int64_t lo = stride_i > 0 ? 0 : -1;
    const int64_t hi = stride_i > 0 ? dim_i : dim_i - 1;
    auto canonical = [&](int64_t x, bool is_end, bool masked) {
      if (masked) {
        // A masked begin is the first element in the stride's direction, a
        // masked end one past the last.
        return (stride_i > 0) != is_end ? lo : hi;
      }
      const int64_t fwd = x < 0 ? dim_i + x : x;
      return fwd < lo ? lo : (fwd > hi ? hi : fwd);
    };
    if (shrink_i && stride_i <= 0) {
      return absl::InvalidArgumentError(
          "only stride 1 allowed on non-range indexing.");
    }
    spec->is_simple_slice &= stride_i == 1;
    const bool both_masked = begin_masked && end_masked;
    if (values_known) {
      if (shrink_i) {
        // foo[-1] arrives as begin -1, end 0: the end is recomputed from
        // the begin.
        const int64_t fwd = begin_i < 0 ? dim_i + begin_i : begin_i;
        begin_i = fwd;
        if (fwd < 0 || fwd >= dim_i) {
          return absl::InvalidArgumentError(absl::StrCat(
              "slice index ", fwd, " of dimension ", i, " out of bounds."));
        }
        end_i = fwd + 1;
      } else {
        begin_i = canonical(begin_i, /*is_end=*/false, begin_masked);
        end_i = canonical(end_i, /*is_end=*/true, end_masked);
      }
      const bool whole = stride_i == 1 && begin_i == 0 && end_i == dim_i;
      spec->is_identity &= whole;
      spec->slice_dim0 &= (i == 0 && stride_i == 1) || whole;
    } else {
      spec->is_identity &= stride_i == 1 && both_masked;
      spec->slice_dim0 &= (i == 0 && stride_i == 1) || both_masked;
    }
    int64_t interval = 0;
    bool known = false;
    if (values_known) {
      interval = end_i - begin_i;
      known = true;
    } else if (shrink_i) {
      interval = 1;
      known = true;
    } else if (both_masked && dim_i > 0) {
      interval = stride_i < 0 ? -dim_i : dim_i;
      known = true;
    }
    if (!known) {
      spec->processing_dims.push_back(-1);
      continue;
    }
    int64_t size = 0;
    if (interval != 0 && (interval < 0) == (stride_i < 0)) {
      size = interval / stride_i + (interval % stride_i != 0 ? 1 : 0);
    }
    spec->processing_dims.push_back(size);
  }

  // Step 4: the output shape: shrunk dims go, new axes come in as 1.
  spec->final_dims.clear();
  spec->final_to_processing.clear();
  for (int64_t g : gather) {
    if (g >= 0) {
      spec->final_dims.push_back(spec->processing_dims[g]);
      spec->final_to_processing.push_back(g);
    } else if (g == kNewAxis) {
      spec->final_dims.push_back(1);
      spec->final_to_processing.push_back(-1);
    }
  }
  return absl::OkStatus();
}

}  // namespace dfx

#include "kernels/broadcast.h"

#include <array>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/logging.h"

namespace dfx {

absl::StatusOr<Broadcast> Broadcast::Make(
    absl::Span<const TensorShape> shapes) {
  const int n = static_cast<int>(shapes.size());
  DFX_CHECK(n >= 1 && n <= kMaxInputs);
  Broadcast b;
  b.num_inputs_ = n;

  int rank = 0;
  for (const TensorShape& s : shapes) rank = std::max(rank, s.dims());
  // Input dims, padded with leading 1s to `rank`.
  auto dim = [&](int k, int j) -> int64_t {
    const int i = shapes[k].dims() - rank + j;
    return i >= 0 ? shapes[k].dim_size(i) : 1;
  };

  Dims out(rank, 1);
  for (int j = 0; j < rank; ++j) {
    for (int k = 0; k < n; ++k) {
      const int64_t d = dim(k, j);
      if (d == 1) continue;
      if (out[j] == 1) {
        out[j] = d;
      } else if (out[j] != d) {
        std::string msg = "Incompatible shapes: ";
        for (int m = 0; m < n; ++m) {
          absl::StrAppend(&msg, m > 0 ? " vs. " : "",
                          shapes[m].DebugString());
        }
        return absl::InvalidArgumentError(msg);
      }
    }
  }
  // The product of broadcast dims cannot exceed the product of the largest
  // input dims, but it can exceed every single input: Build checks overflow.
  absl::StatusOr<TensorShape> out_shape = TensorShape::Build(out);
  if (!out_shape.ok()) return out_shape.status();
  b.output_shape_ = *std::move(out_shape);
  for (int k = 0; k < n; ++k) {
    b.identity_[k] = shapes[k] == b.output_shape_;
    b.scalar_[k] = shapes[k].num_elements() == 1;
  }

  // Reduce: drop output dims of size 1, then merge neighbours in which every
  // input is broadcast (or not) alike. `full[k]` says input k spans the dim.
  std::vector<int64_t> rdims;
  std::vector<std::array<bool, kMaxInputs>> rfull;
  for (int j = 0; j < rank; ++j) {
    if (out[j] == 1) continue;
    std::array<bool, kMaxInputs> full{};
    for (int k = 0; k < n; ++k) full[k] = dim(k, j) != 1;
    if (!rdims.empty() && rfull.back() == full) {
      rdims.back() *= out[j];
    } else {
      rdims.push_back(out[j]);
      rfull.push_back(full);
    }
  }
  if (rdims.empty()) {
    rdims.push_back(1);
    rfull.push_back({});
  }
  const int r = static_cast<int>(rdims.size());
  b.dims_.assign(rdims.begin(), rdims.end());
  for (int k = 0; k < n; ++k) {
    b.strides_[k].assign(r, 0);
    int64_t stride = 1;
    for (int j = r - 1; j >= 0; --j) {
      if (rfull[j][k]) {
        b.strides_[k][j] = stride;
        stride *= rdims[j];
      }
    }
  }
  return b;
}

Broadcast::Dims Broadcast::ReducedReshape(int i) const {
  Dims d(dims_.size());
  for (size_t j = 0; j < dims_.size(); ++j) {
    d[j] = strides_[i][j] != 0 ? dims_[j] : 1;
  }
  return d;
}

Broadcast::Dims Broadcast::ReducedBroadcastFactors(int i) const {
  Dims d(dims_.size());
  for (size_t j = 0; j < dims_.size(); ++j) {
    d[j] = strides_[i][j] != 0 ? 1 : dims_[j];
  }
  return d;
}

absl::StatusOr<TensorShape> BroadcastShapes(const TensorShape& a,
                                            const TensorShape& b) {
  absl::StatusOr<Broadcast> bcast = Broadcast::Make(a, b);
  if (!bcast.ok()) return bcast.status();
  return bcast->output_shape();
}

}  // namespace dfx

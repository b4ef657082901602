#include "runtime/tensor_shape.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/logging.h"
#include "base/status_macros.h"

namespace dfx {
namespace {

// Multiplies with overflow detection against TensorShape::kMaxElements.
bool MulChecked(int64_t a, int64_t b, int64_t* out) {
  if (a == 0 || b == 0) {
    *out = 0;
    return true;
  }
  if (a > TensorShape::kMaxElements / b) return false;
  *out = a * b;
  return true;
}

}  // namespace

TensorShape::TensorShape(std::initializer_list<int64_t> dims) {
  for (int64_t d : dims) DFX_CHECK_OK(AddDim(d));
}

absl::StatusOr<TensorShape> TensorShape::Build(absl::Span<const int64_t> dims) {
  TensorShape shape;
  if (dims.size() > static_cast<size_t>(kMaxRank)) {
    return absl::InvalidArgumentError(
        absl::StrCat("shape has rank ", dims.size(), ", more than ", kMaxRank));
  }
  for (int64_t d : dims) {
    if (d < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "shape [", absl::StrJoin(dims, ","), "] has a negative dimension"));
    }
    DFX_RETURN_IF_ERROR(shape.AddDim(d));
  }
  return shape;
}

absl::StatusOr<TensorShape> TensorShape::FromProto(
    const TensorShapeProto& proto) {
  if (proto.unknown_rank()) {
    return absl::InvalidArgumentError("shape has unknown rank");
  }
  absl::InlinedVector<int64_t, 4> dims;
  for (const auto& d : proto.dim()) {
    if (d.size() < 0) {
      return absl::InvalidArgumentError(
          "shape has an unknown (-1) or negative dimension");
    }
    dims.push_back(d.size());
  }
  return Build(dims);
}

absl::Status TensorShape::AddDim(int64_t size) {
  if (size < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("negative dimension ", size));
  }
  if (dims() >= kMaxRank) {
    return absl::InvalidArgumentError("shape rank too large");
  }
  int64_t n;
  if (!MulChecked(num_elements_, size, &n)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "shape ", DebugString(), " with another dimension of ", size,
        " has too many elements"));
  }
  dims_.push_back(size);
  num_elements_ = n;
  return absl::OkStatus();
}

void TensorShape::set_dim(int i, int64_t size) {
  DFX_CHECK(i >= 0 && i < dims() && size >= 0);
  dims_[i] = size;
  Recompute();
}

void TensorShape::RemoveDim(int i) {
  DFX_CHECK(i >= 0 && i < dims());
  dims_.erase(dims_.begin() + i);
  Recompute();
}

void TensorShape::Recompute() {
  int64_t n = 1;
  for (int64_t d : dims_) DFX_CHECK(MulChecked(n, d, &n));
  num_elements_ = n;
}

void TensorShape::AsProto(TensorShapeProto* proto) const {
  proto->Clear();
  for (int64_t d : dims_) proto->add_dim()->set_size(d);
}

std::string TensorShape::DebugString() const {
  return absl::StrCat("[", absl::StrJoin(dims_, ","), "]");
}

}  // namespace dfx

// Pad, PadV2, MirrorPad and MirrorPadGrad.
//
// The padding kernels write each output element once. Trailing dimensions
// without padding fold into a block of contiguous elements; the output is
// then a sequence of rows along the last padded dimension, each made of
// fill (constant mode), mirrored blocks (mirror modes) and one contiguous
// run copied from the input row. Work is split over output elements, so a
// single huge row is shared between threads too.
#include <algorithm>
#include <complex>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "kernels/array/array_util.h"
#include "kernels/array/index_util.h"

namespace dfx::array_internal {
namespace {

enum class PadMode { kConstant, kReflect, kSymmetric };

absl::Status ReadMode(OpKernelConstruction* ctx, PadMode* mode) {
  std::string s;
  DFX_RETURN_IF_ERROR(ctx->GetAttr("mode", &s));
  if (s == "REFLECT") {
    *mode = PadMode::kReflect;
  } else if (s == "SYMMETRIC") {
    *mode = PadMode::kSymmetric;
  } else {
    return absl::InvalidArgumentError(absl::StrCat(
        "mode must be either REFLECT or SYMMETRIC, not '", s, "'"));
  }
  return absl::OkStatus();
}

// Checks that paddings is an [rank, 2] matrix and reads it as (before,
// after) pairs.
absl::Status ReadPaddings(const Tensor& input, const Tensor& paddings,
                          std::vector<int64_t>* before,
                          std::vector<int64_t>* after) {
  if (paddings.dims() != 2 || paddings.dim_size(1) != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("paddings must be a matrix with 2 columns: ",
                     paddings.shape().DebugString()));
  }
  if (paddings.dim_size(0) != input.dims()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "The first dimension of paddings must be the rank of inputs",
        paddings.shape().DebugString(), " ", input.shape().DebugString()));
  }
  DFX_ASSIGN_OR_RETURN(std::vector<int64_t> values, ReadIndexVector(paddings));
  before->clear();
  after->clear();
  for (int d = 0; d < input.dims(); ++d) {
    before->push_back(values[2 * d]);
    after->push_back(values[2 * d + 1]);
  }
  return absl::OkStatus();
}

// The mirror modes' limit on the paddings of a dimension of size `dim` (the
// input's for MirrorPad, the output's for MirrorPadGrad): REFLECT pads less
// than the size, SYMMETRIC at most the size. `what` qualifies the size in
// the message.
absl::Status CheckMirrorPaddings(PadMode mode, int64_t before, int64_t after,
                                 int64_t dim, absl::string_view what) {
  if (mode == PadMode::kSymmetric) {
    if (before <= dim && after <= dim) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat(
        "paddings must be no greater than the ", what,
        "dimension size: ", before, ", ", after, " greater than ", dim));
  }
  if (before < dim && after < dim) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "paddings must be less than the ", what, "dimension size: ", before, ", ",
      after, " not less than ", dim));
}

// The input index that output index `o` of a dimension of input size `n`
// with `before` padding reads; -1 for constant padding.
inline int64_t MapIndex(PadMode mode, int64_t o, int64_t before, int64_t n) {
  const int64_t i = o - before;
  if (i >= 0 && i < n) return i;
  switch (mode) {
    case PadMode::kConstant:
      return -1;
    case PadMode::kReflect:
      return i < 0 ? -i : 2 * n - 2 - i;
    case PadMode::kSymmetric:
      return i < 0 ? -i - 1 : 2 * n - 1 - i;
  }
  return -1;
}

// The padding problem after folding trailing unpadded dimensions.
struct PadPlan {
  PadMode mode = PadMode::kConstant;
  std::vector<int64_t> in_dims;  // kept dims, the last is the row dim
  std::vector<int64_t> out_dims;
  std::vector<int64_t> before;
  std::vector<int64_t> in_strides;  // in elements
  int64_t block = 1;                // elements per index of the row dim
  int64_t total = 0;                // output elements
};

// REQUIRES: some dimension is padded.
PadPlan MakePlan(PadMode mode, const TensorShape& in,
                 const std::vector<int64_t>& before,
                 const std::vector<int64_t>& after) {
  PadPlan p;
  p.mode = mode;
  int last = -1;
  for (int d = 0; d < in.dims(); ++d) {
    if (before[d] != 0 || after[d] != 0) last = d;
  }
  DFX_CHECK(last >= 0);
  for (int d = last + 1; d < in.dims(); ++d) p.block *= in.dim_size(d);
  int64_t stride = p.block;
  p.in_strides.assign(last + 1, 0);
  for (int d = last; d >= 0; --d) {
    p.in_strides[d] = stride;
    stride *= in.dim_size(d);
  }
  p.total = p.block;
  for (int d = 0; d <= last; ++d) {
    p.in_dims.push_back(in.dim_size(d));
    p.out_dims.push_back(in.dim_size(d) + before[d] + after[d]);
    p.before.push_back(before[d]);
    p.total *= p.out_dims.back();
  }
  return p;
}

template <typename T>
void CopyElems(const T* s, T* d, int64_t n) {
  if constexpr (std::is_trivially_copyable_v<T>) {
    std::memcpy(d, s, static_cast<size_t>(n) * sizeof(T));
  } else {
    std::copy(s, s + n, d);
  }
}

// Writes positions [a, b) of one output row. `in_row` is the input row it
// reads, or null when the whole row is constant padding.
template <typename T>
void WriteRow(const PadPlan& p, const T* in_row, const T& value, T* out_row,
              int64_t a, int64_t b) {
  const int64_t B = p.block;
  const int64_t before = p.before.back();
  const int64_t n = p.in_dims.back();
  const int64_t mid_begin = before * B;
  const int64_t mid_end = (before + n) * B;
  if (in_row == nullptr) {
    std::fill(out_row + a, out_row + b, value);
    return;
  }
  int64_t q = a;
  while (q < b) {
    if (q >= mid_begin && q < mid_end) {
      // The input row itself: one contiguous run.
      const int64_t end = std::min(b, mid_end);
      CopyElems(in_row + (q - mid_begin), out_row + q, end - q);
      q = end;
      continue;
    }
    const int64_t region_end = q < mid_begin ? std::min(b, mid_begin) : b;
    if (p.mode == PadMode::kConstant) {
      std::fill(out_row + q, out_row + region_end, value);
      q = region_end;
    } else if (B == 1) {
      // Mirrored single elements: the source runs backwards.
      const T* s = in_row + MapIndex(p.mode, q, before, n);
      T* d = out_row + q;
      const int64_t len = region_end - q;
      for (int64_t k = 0; k < len; ++k) d[k] = s[-k];
      q = region_end;
    } else {
      // Mirrored blocks: blocks in reverse order, each one forward.
      const int64_t blk = q / B;
      const int64_t off = q % B;
      const int64_t len = std::min(B - off, region_end - q);
      CopyElems(in_row + MapIndex(p.mode, blk, before, n) * B + off,
                out_row + q, len);
      q += len;
    }
  }
}

template <typename T>
void RunPad(const Device& device, const PadPlan& p, const T* in, const T& value,
            T* out) {
  const int k = static_cast<int>(p.out_dims.size());
  const int64_t row_len = p.out_dims[k - 1] * p.block;
  const double bytes = std::is_trivially_copyable_v<T> ? sizeof(T) : 64;
  ParallelFor(device, p.total, Eigen::TensorOpCost(bytes, bytes, 1),
              [&](int64_t first, int64_t last) {
                std::vector<int64_t> idx(k > 1 ? k - 1 : 0, 0);
                int64_t row = first / row_len;
                int64_t j = first % row_len;
                {
                  int64_t r = row;
                  for (int d = k - 2; d >= 0; --d) {
                    idx[d] = r % p.out_dims[d];
                    r /= p.out_dims[d];
                  }
                }
                while (first < last) {
                  const T* in_row = in;
                  for (int d = 0; d < k - 1 && in_row != nullptr; ++d) {
                    const int64_t i =
                        MapIndex(p.mode, idx[d], p.before[d], p.in_dims[d]);
                    in_row = i < 0 ? nullptr : in_row + i * p.in_strides[d];
                  }
                  const int64_t n = std::min(row_len - j, last - first);
                  WriteRow(p, in_row, value, out + row * row_len, j, j + n);
                  first += n;
                  j = 0;
                  ++row;
                  for (int d = k - 2; d >= 0; --d) {
                    if (++idx[d] < p.out_dims[d]) break;
                    idx[d] = 0;
                  }
                }
              });
}

// Dispatches on the element size; `value` is the fill element (ignored by
// the mirror modes).
void Pad(const Device& device, const PadPlan& p, const Tensor& in,
         const Tensor* value, Tensor* out) {
  VisitMovableType(in.dtype(), [&]<typename T>() {
    T fill{};
    if (value != nullptr) {
      if constexpr (std::is_same_v<T, std::string>) {
        fill = value->scalar<std::string>();
      } else {
        std::memcpy(&fill, value->raw_data(), sizeof(T));
      }
    }
    RunPad<T>(device, p, static_cast<const T*>(in.raw_data()), fill,
              static_cast<T*>(out->raw_data()));
  });
}

// Pad (kV2 false) and PadV2.
template <bool kV2>
class PadOp : public OpKernel {
 public:
  explicit PadOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    std::vector<int64_t> before, after;
    DFX_OP_REQUIRES_OK(ctx,
                       ReadPaddings(input, ctx->input(1), &before, &after));
    const Tensor* value = nullptr;
    if (kV2) {
      value = &ctx->input(2);
      DFX_OP_REQUIRES(ctx, value->dims() == 0,
                      absl::InvalidArgumentError(absl::StrCat(
                          "constant_values must be a scalar. Found: ",
                          value->shape().DebugString())));
    }
    std::vector<int64_t> out_dims;
    for (int d = 0; d < input.dims(); ++d) {
      DFX_OP_REQUIRES(
          ctx, before[d] >= 0 && after[d] >= 0,
          absl::InvalidArgumentError(absl::StrCat(
              "Paddings must be non-negative: ", before[d], " ", after[d])));
      const int64_t room = TensorShape::kMaxElements - input.dim_size(d);
      DFX_OP_REQUIRES(
          ctx, before[d] <= room && after[d] <= room - before[d],
          absl::InvalidArgumentError(absl::StrCat(
              "Paddings ", before[d], " ", after[d], " of dimension ", d,
              " make it larger than ", TensorShape::kMaxElements)));
      out_dims.push_back(input.dim_size(d) + before[d] + after[d]);
    }
    absl::StatusOr<TensorShape> shape = TensorShape::Build(out_dims);
    DFX_OP_REQUIRES_OK(ctx, shape.status());
    if (shape->num_elements() == input.NumElements()) {
      // No padding, or an empty output: the input's elements as they are.
      absl::StatusOr<Tensor> same = input.Reshaped(*shape);
      DFX_OP_REQUIRES_OK(ctx, same.status());
      ctx->set_output(0, *std::move(same));
      return;
    }
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &out));
    Pad(*ctx->device(),
        MakePlan(PadMode::kConstant, input.shape(), before, after), input,
        value, out);
  }
};

class MirrorPadOp : public OpKernel {
 public:
  explicit MirrorPadOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ReadMode(ctx, &mode_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    std::vector<int64_t> before, after;
    DFX_OP_REQUIRES_OK(ctx,
                       ReadPaddings(input, ctx->input(1), &before, &after));
    std::vector<int64_t> out_dims;
    for (int d = 0; d < input.dims(); ++d) {
      const int64_t b = before[d];
      const int64_t a = after[d];
      const int64_t dim = input.dim_size(d);
      DFX_OP_REQUIRES(ctx, b >= 0 && a >= 0,
                      absl::InvalidArgumentError(absl::StrCat(
                          "paddings must be non-negative: ", b, " ", a)));
      DFX_OP_REQUIRES_OK(ctx, CheckMirrorPaddings(mode_, b, a, dim, ""));
      out_dims.push_back(dim + b + a);
    }
    absl::StatusOr<TensorShape> shape = TensorShape::Build(out_dims);
    DFX_OP_REQUIRES_OK(ctx, shape.status());
    if (shape->num_elements() == input.NumElements()) {
      absl::StatusOr<Tensor> same = input.Reshaped(*shape);
      DFX_OP_REQUIRES_OK(ctx, same.status());
      ctx->set_output(0, *std::move(same));
      return;
    }
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &out));
    Pad(*ctx->device(), MakePlan(mode_, input.shape(), before, after), input,
        nullptr, out);
  }

 private:
  PadMode mode_ = PadMode::kReflect;
};

// Folds the padded dimension d of `in` ([outer, in_d, inner]) into `out`
// ([outer, out_d, inner]): each output element is its own input element
// plus those mirrored onto it.
template <typename T>
void FoldMirroredDim(const Device& device, PadMode mode, const T* in, T* out,
                     int64_t outer, int64_t in_d, int64_t out_d, int64_t inner,
                     int64_t before) {
  const int64_t after = in_d - out_d - before;
  ParallelForUnits(
      device, outer * inner, in_d * static_cast<int64_t>(sizeof(T)),
      [&](int64_t first, int64_t last) {
        while (first < last) {
          const int64_t o = first / inner;
          const int64_t c0 = first % inner;
          const int64_t c1 = std::min(inner, c0 + (last - first));
          const int64_t w = c1 - c0;
          const T* src = in + o * in_d * inner + c0;
          T* dst = out + o * out_d * inner + c0;
          if (inner == 1) {
            std::copy(src + before, src + before + out_d, dst);
          } else {
            for (int64_t i = 0; i < out_d; ++i) {
              std::copy(src + (before + i) * inner,
                        src + (before + i) * inner + w, dst + i * inner);
            }
          }
          for (int64_t q = 0; q < before; ++q) {
            const int64_t i = MapIndex(mode, q, before, out_d);
            const T* s = src + q * inner;
            T* d = dst + i * inner;
            for (int64_t c = 0; c < w; ++c) d[c] += s[c];
          }
          for (int64_t q = before + out_d; q < before + out_d + after; ++q) {
            const int64_t i = MapIndex(mode, q, before, out_d);
            const T* s = src + q * inner;
            T* d = dst + i * inner;
            for (int64_t c = 0; c < w; ++c) d[c] += s[c];
          }
          first += w;
        }
      });
}

// Calls fn.template operator()<T>() for the dtypes MirrorPadGrad sums.
template <typename Fn>
bool VisitGradType(DataType dtype, Fn&& fn) {
  switch (dtype) {
    case DT_COMPLEX64:
      fn.template operator()<std::complex<float>>();
      return true;
    case DT_COMPLEX128:
      fn.template operator()<std::complex<double>>();
      return true;
    case DT_BOOL:
      return false;
    default:
      return VisitNumericType(dtype, fn);
  }
}

const DataTypeVector& GradTypes() {
  static const DataTypeVector* types = new DataTypeVector{
      DT_FLOAT,  DT_DOUBLE, DT_HALF,      DT_BFLOAT16,  DT_INT8,
      DT_INT16,  DT_INT32,  DT_INT64,     DT_UINT8,     DT_UINT16,
      DT_UINT32, DT_UINT64, DT_COMPLEX64, DT_COMPLEX128};
  return *types;
}

class MirrorPadGradOp : public OpKernel {
 public:
  explicit MirrorPadGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ReadMode(ctx, &mode_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    std::vector<int64_t> before, after;
    DFX_OP_REQUIRES_OK(ctx,
                       ReadPaddings(input, ctx->input(1), &before, &after));
    std::vector<int64_t> out_dims;
    for (int d = 0; d < input.dims(); ++d) {
      const int64_t b = before[d];
      const int64_t a = after[d];
      const int64_t dim = input.dim_size(d);
      DFX_OP_REQUIRES(ctx, b >= 0 && a >= 0,
                      absl::InvalidArgumentError(absl::StrCat(
                          "Paddings must be non-negative: ", b, ", ", a)));
      DFX_OP_REQUIRES(
          ctx, b < dim && a < dim - b,
          absl::InvalidArgumentError(absl::StrCat(
              "Total paddings must be less than the input dimension size: ",
              static_cast<uint64_t>(b) + static_cast<uint64_t>(a),
              " was not less than ", dim)));
      const int64_t out = dim - b - a;
      DFX_OP_REQUIRES_OK(ctx, CheckMirrorPaddings(mode_, b, a, out, "output "));
      out_dims.push_back(out);
    }
    if (out_dims == std::vector<int64_t>(input.shape().dim_sizes().begin(),
                                         input.shape().dim_sizes().end())) {
      ctx->set_output(0, input);
      return;
    }
    // One padded dimension at a time: the last fold writes the output, the
    // others a temporary.
    std::vector<int> padded;
    for (int d = 0; d < input.dims(); ++d) {
      if (before[d] != 0 || after[d] != 0) padded.push_back(d);
    }
    Tensor cur = input;
    for (size_t k = 0; k < padded.size(); ++k) {
      const int d = padded[k];
      TensorShape next_shape = cur.shape();
      next_shape.set_dim(d, out_dims[d]);
      Tensor next;
      if (k + 1 == padded.size()) {
        Tensor* out = nullptr;
        DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, next_shape, &out));
        next = *out;
      } else {
        DFX_OP_REQUIRES_OK(
            ctx, ctx->allocate_temp(input.dtype(), next_shape, &next));
      }
      int64_t outer = 1;
      for (int i = 0; i < d; ++i) outer *= cur.dim_size(i);
      int64_t inner = 1;
      for (int i = d + 1; i < cur.dims(); ++i) inner *= cur.dim_size(i);
      VisitGradType(input.dtype(), [&]<typename T>() {
        FoldMirroredDim<T>(*ctx->device(), mode_, cur.data<T>(), next.data<T>(),
                           outer, cur.dim_size(d), out_dims[d], inner,
                           before[d]);
      });
      cur = next;
    }
  }

 private:
  PadMode mode_ = PadMode::kReflect;
};

}  // namespace

void RegisterPadKernels(KernelRegistry* registry) {
  const DataTypeVector paddings = {DT_INT32, DT_INT64};
  RegisterKernel<PadOp<false>>(registry,
                               KernelDefBuilder("Pad")
                                   .TypeConstraint("T", MovableTypes())
                                   .TypeConstraint("Tpaddings", paddings));
  RegisterKernel<PadOp<true>>(registry,
                              KernelDefBuilder("PadV2")
                                  .TypeConstraint("T", MovableTypes())
                                  .TypeConstraint("Tpaddings", paddings));
  RegisterKernel<MirrorPadOp>(registry,
                              KernelDefBuilder("MirrorPad")
                                  .TypeConstraint("T", MovableTypes())
                                  .TypeConstraint("Tpaddings", paddings));
  RegisterKernel<MirrorPadGradOp>(registry,
                                  KernelDefBuilder("MirrorPadGrad")
                                      .TypeConstraint("T", GradTypes())
                                      .TypeConstraint("Tpaddings", paddings));
}

}  // namespace dfx::array_internal

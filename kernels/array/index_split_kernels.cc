// Split, SplitV, Unpack, Size and Rank. A split whose pieces are runs of
// the input (nothing but size-1 dimensions before the axis) outputs views
// of the input's buffer; otherwise each piece is one StridedCopy.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/array/array_util.h"
#include "kernels/array/index_util.h"

namespace dfx::array_internal {
namespace {

// Pieces whose rows hold at least this many bytes are copied one at a time;
// narrower ones are cut from cached tiles of input rows (measured on
// Unpack and Split of 64 MiB float tensors, 2 threads).
constexpr int64_t kWideBytes = 4096;

// Outputs the pieces of `input` along `axis`: output i takes sizes[i]
// indices starting at the sum of the sizes before it, shaped `shapes[i]`.
// REQUIRES: the sizes are non-negative and sum to the axis size.
void EmitPieces(OpKernelContext* ctx, const Tensor& input, int axis,
                const std::vector<int64_t>& sizes,
                const std::vector<TensorShape>& shapes) {
  int64_t outer = 1;
  for (int d = 0; d < axis; ++d) outer *= input.dim_size(d);
  int64_t inner = 1;
  for (int d = axis + 1; d < input.dims(); ++d) inner *= input.dim_size(d);
  const int64_t axis_size = input.dim_size(axis);
  if (outer == 1) {
    // Each piece is a run of the input: a view, no copy.
    absl::StatusOr<Tensor> rows =
        input.Reshaped(TensorShape({axis_size, inner}));
    DFX_OP_REQUIRES_OK(ctx, rows.status());
    int64_t start = 0;
    for (size_t i = 0; i < sizes.size(); ++i) {
      absl::StatusOr<Tensor> piece =
          rows->Slice(start, start + sizes[i]).Reshaped(shapes[i]);
      DFX_OP_REQUIRES_OK(ctx, piece.status());
      ctx->set_output(static_cast<int>(i), *std::move(piece));
      start += sizes[i];
    }
    return;
  }
  std::vector<Tensor*> outs(sizes.size(), nullptr);
  for (size_t i = 0; i < sizes.size(); ++i) {
    DFX_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(static_cast<int>(i), shapes[i], &outs[i]));
  }
  if (input.NumElements() == 0) return;
  const int64_t row = axis_size * inner;
  // Wide pieces (rows of at least kWideBytes) are copied one piece at a
  // time: one read and one write stream each, long runs of memcpy.
  const int64_t elem_bytes =
      input.dtype() == DT_STRING ? 32 : DataTypeSize(input.dtype());
  std::vector<bool> wide(sizes.size());
  int64_t start = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    wide[i] = sizes[i] * inner * elem_bytes >= kWideBytes;
    if (wide[i]) {
      StridedCopySpec copy;
      copy.dims = {outer, sizes[i] * inner};
      copy.src_strides = {row, 1};
      copy.dst_strides = {sizes[i] * inner, 1};
      copy.src_offset = start * inner;
      StridedCopy(*ctx->device(), input, outs[i], std::move(copy));
    }
    start += sizes[i];
  }
  if (std::all_of(wide.begin(), wide.end(), [](bool w) { return w; })) {
    return;
  }
  // Narrow pieces (Unpack along an inner axis) are cut from tiles of rows of
  // about 64 KiB of input: each tile is read from memory once and stays in
  // cache while its pieces are copied out.
  VisitMovableType(input.dtype(), [&]<typename T>() {
    const T* src = static_cast<const T*>(input.raw_data());
    std::vector<T*> dst;
    for (Tensor* t : outs) dst.push_back(static_cast<T*>(t->raw_data()));
    const int64_t row_bytes = row * static_cast<int64_t>(sizeof(T));
    const int64_t tile = std::max<int64_t>(1, (64 * 1024) / row_bytes);
    ParallelForUnits(
        *ctx->device(), outer, row_bytes, [&](int64_t first, int64_t last) {
          for (int64_t t0 = first; t0 < last; t0 += tile) {
            const int64_t t1 = std::min(last, t0 + tile);
            int64_t offset = 0;
            for (size_t i = 0; i < dst.size(); ++i) {
              const int64_t n = sizes[i] * inner;
              const T* s = src + offset;
              T* d = dst[i];
              offset += n;
              if (wide[i]) continue;
              if (n == 1) {
                for (int64_t o = t0; o < t1; ++o) d[o] = s[o * row];
                continue;
              }
              if constexpr (std::is_trivially_copyable_v<T>) {
                if (n >= 16) {
                  for (int64_t o = t0; o < t1; ++o) {
                    std::memcpy(d + o * n, s + o * row,
                                static_cast<size_t>(n) * sizeof(T));
                  }
                  continue;
                }
              }
              for (int64_t o = t0; o < t1; ++o) {
                for (int64_t k = 0; k < n; ++k) d[o * n + k] = s[o * row + k];
              }
            }
          }
        });
  });
}

// The split axis from the int32 tensor `t` (one element) against `rank`,
// made non-negative.
absl::Status ReadSplitDim(const Tensor& t, int rank, int* axis) {
  if (t.NumElements() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("split_dim must hold one value, but has shape ",
                     t.shape().DebugString()));
  }
  const int32_t orig = t.data<int32_t>()[0];
  const int64_t a = orig < 0 ? int64_t{orig} + rank : orig;
  if (a < 0 || a >= rank) {
    return absl::InvalidArgumentError(
        absl::StrCat("-input rank(-", rank, ") <= split_dim < input rank (",
                     rank, "), but got ", orig));
  }
  *axis = static_cast<int>(a);
  return absl::OkStatus();
}

class SplitOp : public OpKernel {
 public:
  explicit SplitOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& split_dim = ctx->input(0);
    const Tensor& input = ctx->input(1);
    const int n = num_outputs();
    DFX_OP_REQUIRES(
        ctx, split_dim.dims() == 0,
        absl::InvalidArgumentError(absl::StrCat(
            "split_dim must be a scalar but has rank ", split_dim.dims())));
    int axis = 0;
    DFX_OP_REQUIRES_OK(ctx, ReadSplitDim(split_dim, input.dims(), &axis));
    DFX_OP_REQUIRES(ctx, n > 0,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Number of ways to split should be > 0, but got ", n)));
    const int64_t dim = input.dim_size(axis);
    DFX_OP_REQUIRES(
        ctx, dim % n == 0,
        absl::InvalidArgumentError(absl::StrCat(
            "Number of ways to split should evenly divide the split "
            "dimension, but got split_dim ",
            axis, " (size = ", dim, ") and num_split ", n)));
    if (n == 1) {
      ctx->set_output(0, input);
      return;
    }
    TensorShape shape = input.shape();
    shape.set_dim(axis, dim / n);
    EmitPieces(ctx, input, axis, std::vector<int64_t>(n, dim / n),
               std::vector<TensorShape>(n, shape));
  }
};

class SplitVOp : public OpKernel {
 public:
  explicit SplitVOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& sizes_t = ctx->input(1);
    const Tensor& split_dim = ctx->input(2);
    const int n = num_outputs();
    DFX_OP_REQUIRES(
        ctx, sizes_t.dims() == 1 && sizes_t.NumElements() == n,
        absl::InvalidArgumentError(absl::StrCat(
            "size of the split_tensor must be 1-D and have the same elements "
            "as outputs got ",
            sizes_t.dims(), " -D and ", sizes_t.NumElements(), " elements")));
    absl::StatusOr<std::vector<int64_t>> sizes = ReadIndexVector(sizes_t);
    DFX_OP_REQUIRES_OK(ctx, sizes.status());
    DFX_OP_REQUIRES(ctx, n > 0,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Number of ways to split should be > 0, but got ", n)));
    int axis = 0;
    DFX_OP_REQUIRES_OK(ctx, ReadSplitDim(split_dim, input.dims(), &axis));
    const int64_t dim = input.dim_size(axis);
    if (n == 1) {
      DFX_OP_REQUIRES(
          ctx, (*sizes)[0] == dim,
          absl::InvalidArgumentError(absl::StrCat(
              "If there is only one output, it must have the same size as "
              "the input. Input size: ",
              dim, " output size: ", (*sizes)[0])));
      ctx->set_output(0, input);
      return;
    }
    int neg_one = -1;
    __int128 determined = 0;
    for (int i = 0; i < n; ++i) {
      const int64_t s = (*sizes)[i];
      if (s == -1) {
        DFX_OP_REQUIRES(ctx, neg_one == -1,
                        absl::InvalidArgumentError(
                            "There can only be one -1 in the input."));
        neg_one = i;
      } else {
        determined += s;
      }
    }
    DFX_OP_REQUIRES(
        ctx,
        (neg_one == -1 && determined == dim) ||
            (neg_one >= 0 && determined <= dim),
        absl::InvalidArgumentError(absl::StrCat(
            "Determined shape must either match input shape along split_dim "
            "exactly if fully specified, or be less than the size of the "
            "input along split_dim if not fully specified.  Got: ",
            static_cast<int64_t>(determined))));
    if (neg_one >= 0) {
      (*sizes)[neg_one] = dim - static_cast<int64_t>(determined);
    }
    std::vector<TensorShape> shapes;
    for (int i = 0; i < n; ++i) {
      const int64_t s = (*sizes)[i];
      DFX_OP_REQUIRES(
          ctx, s >= 0,
          absl::InvalidArgumentError(absl::StrCat("Split size at index ", i,
                                                  " must be >= 0. Got: ", s)));
      TensorShape shape = input.shape();
      shape.set_dim(axis, s);
      shapes.push_back(std::move(shape));
    }
    // Negative sizes are ruled out, so the sizes sum to the axis size.
    EmitPieces(ctx, input, axis, *sizes, shapes);
  }
};

class UnpackOp : public OpKernel {
 public:
  explicit UnpackOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    if (FindNodeAttr(ctx->def(), "axis") != nullptr) {
      ctx->SetStatus(ctx->GetAttr("axis", &axis_));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const int n = num_outputs();
    const int rank = input.dims();
    const int64_t axis = axis_ < 0 ? axis_ + rank : axis_;
    DFX_OP_REQUIRES(
        ctx, axis >= 0 && axis < rank,
        absl::InvalidArgumentError(absl::StrCat("axis = ", axis_, " not in [",
                                                -rank, ", ", rank, ")")));
    DFX_OP_REQUIRES(ctx, input.dim_size(static_cast<int>(axis)) == n,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Input shape axis ", axis, " must equal ", n,
                        ", got shape ", input.shape().DebugString())));
    TensorShape shape = input.shape();
    shape.RemoveDim(static_cast<int>(axis));
    EmitPieces(ctx, input, static_cast<int>(axis), std::vector<int64_t>(n, 1),
               std::vector<TensorShape>(n, shape));
  }

 private:
  int64_t axis_ = 0;
};

class SizeOp : public OpKernel {
 public:
  explicit SizeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
  }

  void Compute(OpKernelContext* ctx) override {
    const int64_t n = ctx->input(0).NumElements();
    if (output_type(0) == DT_INT32) {
      DFX_OP_REQUIRES(
          ctx, n <= std::numeric_limits<int32_t>::max(),
          absl::InvalidArgumentError(absl::StrCat(
              "Number of elements was larger than representable by 32-bit "
              "output type: ",
              n)));
      ctx->set_output(0, Tensor::Scalar<int32_t>(static_cast<int32_t>(n)));
    } else {
      ctx->set_output(0, Tensor::Scalar<int64_t>(n));
    }
  }
};

class RankOp : public OpKernel {
 public:
  explicit RankOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
  }

  void Compute(OpKernelContext* ctx) override {
    ctx->set_output(0, Tensor::Scalar<int32_t>(ctx->input(0).dims()));
  }
};

}  // namespace

void RegisterSplitKernels(KernelRegistry* registry) {
  RegisterKernel<SplitOp>(
      registry, KernelDefBuilder("Split").TypeConstraint("T", MovableTypes()));
  RegisterKernel<SplitVOp>(
      registry, KernelDefBuilder("SplitV")
                    .TypeConstraint("T", MovableTypes())
                    .TypeConstraint("Tlen", {DT_INT8, DT_INT32, DT_INT64}));
  RegisterKernel<UnpackOp>(
      registry, KernelDefBuilder("Unpack").TypeConstraint("T", MovableTypes()));
  // Size and Rank read only the shape: any dtype, resource included.
  RegisterKernel<SizeOp>(registry, KernelDefBuilder("Size").TypeConstraint(
                                       "out_type", {DT_INT32, DT_INT64}));
  RegisterKernel<RankOp>(registry, KernelDefBuilder("Rank"));
}

}  // namespace dfx::array_internal

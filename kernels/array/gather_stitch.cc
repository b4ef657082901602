// DynamicStitch, ParallelDynamicStitch and DynamicPartition: interleave rows
// of several tensors by index, and split rows of one tensor by partition.
//
// Rows move as bytes (or strings), one memcpy per row. A stitch splits its
// output rows among tasks; each applies every index that lands in its rows,
// in input order, so the last one wins as in TensorFlow's CPU kernel, with
// no memory beyond the output. Rows no index names are zero.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/array/array_util.h"
#include "kernels/array/gather_util.h"

namespace dfx::gather_internal {
namespace {

bool StartsWith(const TensorShape& shape, const TensorShape& prefix) {
  if (shape.dims() < prefix.dims()) return false;
  for (int d = 0; d < prefix.dims(); ++d) {
    if (shape.dim_size(d) != prefix.dim_size(d)) return false;
  }
  return true;
}

class DynamicStitchOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const int n = ctx->num_inputs() / 2;
    const Tensor& indices0 = ctx->input(0);
    const Tensor& data0 = ctx->input(n);
    int64_t max_index = -1;
    for (int i = 0; i < n; ++i) {
      for (int32_t v : ctx->input(i).span<int32_t>()) {
        max_index = std::max<int64_t>(max_index, v);
      }
    }
    const int64_t rows = max_index + 1;
    for (int i = 0; i < n; ++i) {
      const Tensor& indices = ctx->input(i);
      const Tensor& data = ctx->input(n + i);
      DFX_OP_REQUIRES(ctx, StartsWith(data.shape(), indices.shape()),
                      absl::InvalidArgumentError(absl::StrCat(
                          "data[", i, "].shape = ", data.shape().DebugString(),
                          " does not start with indices[", i, "].shape = ",
                          indices.shape().DebugString())));
      bool same_extra =
          data.dims() - indices.dims() == data0.dims() - indices0.dims();
      for (int d = 0; same_extra && d < data.dims() - indices.dims(); ++d) {
        same_extra = data.dim_size(indices.dims() + d) ==
                     data0.dim_size(indices0.dims() + d);
      }
      DFX_OP_REQUIRES(
          ctx, same_extra,
          absl::InvalidArgumentError(absl::StrCat(
              "Need data[0].shape[", indices0.dims(), ":] = data[", i,
              "].shape[", indices.dims(), ":], got data[0].shape = ",
              data0.shape().DebugString(), ", data[", i,
              "].shape = ", data.shape().DebugString(),
              ", indices[0].shape = ", indices0.shape().DebugString(),
              ", indices[", i, "].shape = ", indices.shape().DebugString())));
    }
    TensorShape out_shape;
    DFX_OP_REQUIRES_OK(ctx, out_shape.AddDim(rows));
    for (int d = indices0.dims(); d < data0.dims(); ++d) {
      DFX_OP_REQUIRES_OK(ctx, out_shape.AddDim(data0.dim_size(d)));
    }
    for (int i = 0; i < n; ++i) {
      absl::Span<const int32_t> indices = ctx->input(i).span<int32_t>();
      for (size_t j = 0; j < indices.size(); ++j) {
        DFX_OP_REQUIRES(ctx, indices[j] >= 0,
                        absl::InvalidArgumentError(absl::StrCat(
                            "indices[", j, "] is out of range")));
      }
    }
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;
    const int64_t inner = out->NumElements() / rows;
    int64_t total_indices = 0;
    for (int i = 0; i < n; ++i) total_indices += ctx->input(i).NumElements();

    // Each task owns output rows [first, last): it zeroes them, then walks
    // every index in input order and copies the rows that land in its
    // range, so a later index overwrites an earlier one.
    VisitMoveType(out->dtype(), [&]<typename E>() {
      E* dst = MoveData<E>(out);
      ParallelForWork(
          *ctx->device(), rows,
          inner * static_cast<int64_t>(sizeof(E)) + total_indices / rows + 1,
          [&](int64_t first, int64_t last) {
            std::fill(dst + first * inner, dst + last * inner, E{});
            for (int i = 0; i < n; ++i) {
              absl::Span<const int32_t> indices = ctx->input(i).span<int32_t>();
              const E* src = MoveData<E>(ctx->input(n + i));
              for (size_t j = 0; j < indices.size(); ++j) {
                const int64_t r = indices[j];
                if (r < first || r >= last) continue;
                MoveElements(src + static_cast<int64_t>(j) * inner,
                             dst + r * inner, inner);
              }
            }
          });
    });
  }
};

class DynamicPartitionOp : public OpKernel {
 public:
  explicit DynamicPartitionOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("num_partitions", &num_partitions_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& data = ctx->input(0);
    const Tensor& partitions = ctx->input(1);
    DFX_OP_REQUIRES(
        ctx, StartsWith(data.shape(), partitions.shape()),
        absl::InvalidArgumentError(absl::StrCat(
            "data.shape must start with partitions.shape, got data.shape = ",
            data.shape().DebugString(), ", partitions.shape = ",
            partitions.shape().DebugString())));
    absl::Span<const int32_t> parts = partitions.span<int32_t>();
    std::vector<int64_t> counts(static_cast<size_t>(num_partitions_), 0);
    for (size_t i = 0; i < parts.size(); ++i) {
      const int32_t p = parts[i];
      DFX_OP_REQUIRES(
          ctx, p >= 0 && p < num_partitions_,
          absl::InvalidArgumentError(absl::StrCat(
              "partitions",
              IndexPosition(partitions.shape(), static_cast<int64_t>(i)),
              " = ", p, " is not in [0, ", num_partitions_, ")")));
      ++counts[p];
    }
    const int64_t inner =
        DimProduct(data.shape(), partitions.dims(), data.dims());
    std::vector<Tensor*> outs(static_cast<size_t>(num_partitions_));
    for (int64_t p = 0; p < num_partitions_; ++p) {
      TensorShape shape;
      DFX_OP_REQUIRES_OK(ctx, shape.AddDim(counts[p]));
      for (int d = partitions.dims(); d < data.dims(); ++d) {
        DFX_OP_REQUIRES_OK(ctx, shape.AddDim(data.dim_size(d)));
      }
      DFX_OP_REQUIRES_OK(
          ctx, ctx->allocate_output(static_cast<int>(p), shape, &outs[p]));
    }
    if (inner == 0) return;
    VisitMoveType(data.dtype(), [&]<typename E>() {
      const E* src = MoveData<E>(data);
      std::vector<E*> dst(outs.size());
      for (size_t p = 0; p < outs.size(); ++p) dst[p] = MoveData<E>(outs[p]);
      for (size_t i = 0; i < parts.size(); ++i) {
        E*& d = dst[parts[i]];
        MoveElements(src + static_cast<int64_t>(i) * inner, d, inner);
        d += inner;
      }
    });
  }

 private:
  int64_t num_partitions_ = 1;
};

}  // namespace

void RegisterStitchKernels(KernelRegistry* registry) {
  const DataTypeVector& types = array_internal::MovableTypes();
  RegisterKernel<DynamicStitchOp>(
      registry, KernelDefBuilder("DynamicStitch").TypeConstraint("T", types));
  RegisterKernel<DynamicStitchOp>(
      registry,
      KernelDefBuilder("ParallelDynamicStitch").TypeConstraint("T", types));
  RegisterKernel<DynamicPartitionOp>(
      registry,
      KernelDefBuilder("DynamicPartition").TypeConstraint("T", types));
}

}  // namespace dfx::gather_internal

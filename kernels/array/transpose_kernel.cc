// Transpose: y[i0, ..., in] = x[i_perm^-1...], i.e. y's dim i is x's dim
// perm[i]. A permutation that only moves size-1 dims outputs a view.
// ConjugateTranspose: the same, with complex elements conjugated (a copy,
// never a view); for other types it is Transpose.
#include <complex>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/array/array_util.h"
#include "kernels/type_visitors.h"

namespace dfx::array_internal {
namespace {

// Writes `out` (dims out_dims, row-major) from `in`, where stepping out dim i
// moves in_strides[i] elements in the input.
template <typename T>
void TransposeLoop(const T* in, T* out, const std::vector<int64_t>& out_dims,
                   const std::vector<int64_t>& in_strides) {
  const int rank = static_cast<int>(out_dims.size());
  if (rank == 0) {
    out[0] = in[0];
    return;
  }
  const int64_t inner = out_dims[rank - 1];
  const int64_t inner_stride = in_strides[rank - 1];
  std::vector<int64_t> index(rank, 0);
  int64_t in_offset = 0;
  int64_t rows = 1;
  for (int i = 0; i < rank - 1; ++i) rows *= out_dims[i];
  for (int64_t row = 0; row < rows; ++row) {
    const T* src = in + in_offset;
    if (inner_stride == 1) {
      for (int64_t j = 0; j < inner; ++j) out[j] = src[j];
    } else {
      for (int64_t j = 0; j < inner; ++j) out[j] = src[j * inner_stride];
    }
    out += inner;
    // Advance the index over dims [0, rank-1), last one fastest.
    for (int i = rank - 2; i >= 0; --i) {
      in_offset += in_strides[i];
      if (++index[i] < out_dims[i]) break;
      in_offset -= in_strides[i] * out_dims[i];
      index[i] = 0;
    }
  }
}

// Conjugates the complex elements of `t` in place; other types unchanged.
void ConjugateInPlace(Tensor* t) {
  const int64_t n = t->NumElements();
  if (t->dtype() == DT_COMPLEX64) {
    std::complex<float>* d = t->data<std::complex<float>>();
    for (int64_t i = 0; i < n; ++i) d[i] = std::conj(d[i]);
  } else if (t->dtype() == DT_COMPLEX128) {
    std::complex<double>* d = t->data<std::complex<double>>();
    for (int64_t i = 0; i < n; ++i) d[i] = std::conj(d[i]);
  }
}

class TransposeOp : public OpKernel {
 public:
  TransposeOp(OpKernelConstruction* ctx, bool conjugate)
      : OpKernel(ctx), conjugate_(conjugate) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& perm_t = ctx->input(1);
    DFX_OP_REQUIRES(
        ctx, perm_t.dims() == 1,
        NodeError(*this, absl::StrCat("'perm' must be a vector, not ",
                                      perm_t.shape().DebugString())));
    absl::StatusOr<std::vector<int64_t>> perm_or = ReadInts(perm_t);
    DFX_OP_REQUIRES(ctx, perm_or.ok(),
                    NodeError(*this, perm_or.status().message()));
    const std::vector<int64_t>& perm = *perm_or;
    const int rank = input.dims();
    DFX_OP_REQUIRES(
        ctx, static_cast<int>(perm.size()) == rank,
        NodeError(*this, absl::StrCat("transpose expects a 'perm' of size ",
                                      rank, " for input shape ",
                                      input.shape().DebugString(),
                                      ", but 'perm' has size ", perm.size())));
    std::vector<bool> seen(rank, false);
    for (int64_t p : perm) {
      DFX_OP_REQUIRES(
          ctx, p >= 0 && p < rank && !seen[p],
          NodeError(*this, absl::StrCat("'perm' [", absl::StrJoin(perm, ","),
                                        "] is not a permutation of 0..",
                                        rank - 1)));
      seen[p] = true;
    }

    std::vector<int64_t> out_dims(rank);
    for (int i = 0; i < rank; ++i) out_dims[i] = input.dim_size(perm[i]);
    absl::StatusOr<TensorShape> out_shape = TensorShape::Build(out_dims);
    DFX_OP_REQUIRES(ctx, out_shape.ok(),
                    NodeError(*this, out_shape.status().message()));

    // When the dims larger than 1 keep their order, the element order is
    // unchanged: output a view.
    int64_t last = -1;
    bool order_kept = true;
    for (int i = 0; i < rank && order_kept; ++i) {
      if (out_dims[i] == 1) continue;
      order_kept = perm[i] > last;
      last = perm[i];
    }
    const bool conjugate = conjugate_ && (input.dtype() == DT_COMPLEX64 ||
                                          input.dtype() == DT_COMPLEX128);
    if (conjugate && order_kept && input.NumElements() != 0) {
      Tensor* out = nullptr;
      DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *out_shape, &out));
      std::memcpy(out->raw_data(), input.raw_data(),
                  input.NumElements() * DataTypeSize(input.dtype()));
      ConjugateInPlace(out);
      return;
    }
    if (order_kept || input.NumElements() == 0) {
      if (input.NumElements() != 0) {
        absl::StatusOr<Tensor> view = input.Reshaped(*out_shape);
        DFX_OP_REQUIRES(ctx, view.ok(),
                        NodeError(*this, view.status().message()));
        ctx->set_output(0, *std::move(view));
        return;
      }
      Tensor* out = nullptr;
      DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *out_shape, &out));
      return;
    }

    // Input strides, then the output dims (size 1 dropped) with the input
    // stride each one walks; adjacent dims contiguous in the input merge.
    std::vector<int64_t> in_strides(rank, 1);
    for (int i = rank - 2; i >= 0; --i) {
      in_strides[i] = in_strides[i + 1] * input.dim_size(i + 1);
    }
    std::vector<int64_t> dims, strides;
    for (int i = 0; i < rank; ++i) {
      if (out_dims[i] == 1) continue;
      const int64_t stride = in_strides[perm[i]];
      if (!dims.empty() && strides.back() == stride * out_dims[i]) {
        dims.back() *= out_dims[i];
        strides.back() = stride;
      } else {
        dims.push_back(out_dims[i]);
        strides.push_back(stride);
      }
    }

    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *out_shape, &out));
    const void* src = input.raw_data();
    void* dst = out->raw_data();
    if (input.dtype() == DT_STRING) {
      TransposeLoop(static_cast<const std::string*>(src),
                    static_cast<std::string*>(dst), dims, strides);
      return;
    }
    switch (DataTypeSize(input.dtype())) {
      case 1:
        TransposeLoop(static_cast<const uint8_t*>(src),
                      static_cast<uint8_t*>(dst), dims, strides);
        break;
      case 2:
        TransposeLoop(static_cast<const uint16_t*>(src),
                      static_cast<uint16_t*>(dst), dims, strides);
        break;
      case 4:
        TransposeLoop(static_cast<const uint32_t*>(src),
                      static_cast<uint32_t*>(dst), dims, strides);
        break;
      case 8:
        TransposeLoop(static_cast<const uint64_t*>(src),
                      static_cast<uint64_t*>(dst), dims, strides);
        break;
      case 16:
        TransposeLoop(static_cast<const Bytes16*>(src),
                      static_cast<Bytes16*>(dst), dims, strides);
        break;
      default:
        ctx->SetStatus(NodeError(
            *this, absl::StrCat("unsupported dtype ",
                                DataTypeString(input.dtype()))));
        return;
    }
    if (conjugate) ConjugateInPlace(out);
  }

 private:
  const bool conjugate_;
};

}  // namespace

void RegisterTransposeKernel(KernelRegistry* registry) {
  for (const bool conjugate : {false, true}) {
    registry->Register(
        KernelDefBuilder(conjugate ? "ConjugateTranspose" : "Transpose")
            .TypeConstraint("T", MovableTypes()),
        [conjugate](OpKernelConstruction* ctx) {
          return std::unique_ptr<OpKernel>(new TransposeOp(ctx, conjugate));
        });
  }
}

}  // namespace dfx::array_internal

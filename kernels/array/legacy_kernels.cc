// The legacy family's small kernels (graph/ops/legacy_ops.cc): Diag,
// DiagPart, ToBool, DeepCopy, NextAfter, DataFormatDimMap,
// DataFormatVecPermute, Cross, BatchNormWithGlobalNormalization(Grad),
// SparseMatMul and Spence (Dawsn, Expint and the Fresnel integrals are in
// math/special_integrals.cc); the linear-algebra ones are in linalg/legacy_linalg_ops.cc,
// with TensorFlow 2.21's checks and messages. GuaranteeConst forwards its
// input (kernels/array/identity_kernels.cc). Element moves dispatch on the
// dtype at run time; arithmetic is instantiated for the types TensorFlow's
// CPU kernels serve, as plain loops.
#include "kernels/array/legacy_kernels.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "kernels/array/array_util.h"
#include "kernels/broadcast.h"
#include "kernels/linalg/legacy_linalg.h"

namespace dfx {
namespace {

using array_internal::CopyElements;

// Diag: a rank-k diagonal [d...] gives [d..., d...] with the diagonal's
// elements at out[i, i] of the output seen as an n x n matrix.
class DiagOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& diagonal = ctx->input(0);
    DFX_OP_REQUIRES(ctx, diagonal.dims() != 0,
                    absl::InvalidArgumentError(
                        "Input must be at least rank 1, got 0"));
    TensorShape out_shape;
    for (int pass = 0; pass < 2; ++pass) {
      for (int i = 0; i < diagonal.dims(); ++i) {
        DFX_OP_REQUIRES_OK(ctx, out_shape.AddDim(diagonal.dim_size(i)));
      }
    }
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;
    std::memset(out->raw_data(), 0, out->TotalBytes());
    const int64_t n = diagonal.NumElements();
    for (int64_t i = 0; i < n; ++i) CopyElements(diagonal, i, out, i * n + i, 1);
  }
};

// DiagPart: the inverse of Diag; the rank must be even and the first half
// of the dims equal the second.
class DiagPartOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const int rank = input.dims();
    DFX_OP_REQUIRES(
        ctx, rank % 2 == 0,
        absl::InvalidArgumentError(absl::StrCat(
            // TensorFlow's message, with the run of spaces a line break in
            // its source left in.
            "The rank of the tensor should be" + std::string(42, ' ') +
                "even and positive, got shape ",
            input.shape().DebugString())));
    const int half = rank / 2;
    TensorShape out_shape;
    for (int i = 0; i < half; ++i) {
      DFX_OP_REQUIRES(
          ctx, input.dim_size(i) == input.dim_size(i + half),
          absl::InvalidArgumentError(absl::StrCat(
              "Invalid shape ", input.shape().DebugString(), ": dimensions ",
              i, " and ", i + half, " do not match.")));
      DFX_OP_REQUIRES_OK(ctx, out_shape.AddDim(input.dim_size(i)));
    }
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    const int64_t n = out->NumElements();
    for (int64_t i = 0; i < n; ++i) CopyElements(input, i * n + i, out, i, 1);
  }
};

template <typename T>
bool NonZero(const Tensor& t) {
  return t.scalar<T>() != T(0);
}

// ToBool: a scalar's truth (non-zero, a non-empty string), otherwise
// whether the tensor has any element.
class ToBoolOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    bool result = input.NumElements() > 0;
    if (input.dims() == 0) {
      // TensorFlow's kernel reads these scalar types only.
      switch (input.dtype()) {
        case DT_BOOL: result = input.scalar<bool>(); break;
        case DT_FLOAT: result = NonZero<float>(input); break;
        case DT_DOUBLE: result = NonZero<double>(input); break;
        case DT_INT8: result = NonZero<int8_t>(input); break;
        case DT_UINT8: result = NonZero<uint8_t>(input); break;
        case DT_INT16: result = NonZero<int16_t>(input); break;
        case DT_INT32: result = NonZero<int32_t>(input); break;
        case DT_INT64: result = NonZero<int64_t>(input); break;
        case DT_STRING: result = !input.scalar<std::string>().empty(); break;
        default:
          ctx->SetStatus(absl::InvalidArgumentError(
              absl::StrCat(DataTypeString(input.dtype()),
                           " cannot be converted to a boolean")));
          return;
      }
    }
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(), &out));
    out->scalar<bool>() = result;
  }
};

// DeepCopy: a copy in a buffer of its own (the inplace ops then write it).
class DeepCopyOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    ctx->set_output(0, ctx->input(0).DeepCopy());
  }
};

// NextAfter: the next representable value after x1 towards x2,
// elementwise with broadcasting (std::nextafter, as Eigen's).
class NextAfterOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x1 = ctx->input(0);
    const Tensor& x2 = ctx->input(1);
    absl::StatusOr<Broadcast> bcast = Broadcast::Make(x1.shape(), x2.shape());
    DFX_OP_REQUIRES_OK(ctx, bcast.status());
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(0, bcast->output_shape(), &out));
    if (x1.dtype() == DT_FLOAT) {
      Run<float>(*bcast, x1, x2, out);
    } else {
      Run<double>(*bcast, x1, x2, out);
    }
  }

 private:
  template <typename T>
  static void Run(const Broadcast& bcast, const Tensor& x1, const Tensor& x2,
                  Tensor* out) {
    const T* a = x1.data<T>();
    const T* b = x2.data<T>();
    T* dst = out->data<T>();
    bcast.ForEachRun(0, bcast.num_elements(),
                     [&](int64_t pos, int64_t len, const int64_t* offs,
                         const int64_t* steps) {
                       for (int64_t i = 0; i < len; ++i) {
                         dst[pos + i] = std::nextafter(a[offs[0] + i * steps[0]],
                                                       b[offs[1] + i * steps[1]]);
                       }
                     });
  }
};

// True when `src` and `dst` hold the same distinct characters.
bool IsPermutation(const std::string& src, const std::string& dst) {
  if (src.size() != dst.size()) return false;
  std::string a = src, b = dst;
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  return a == b && std::adjacent_find(a.begin(), a.end()) == a.end();
}

// Reads and checks src_format and dst_format (TensorFlow's messages).
absl::Status ReadFormats(OpKernelConstruction* ctx, std::string* src,
                         std::string* dst) {
  DFX_RETURN_IF_ERROR(ctx->GetAttr("src_format", src));
  DFX_RETURN_IF_ERROR(ctx->GetAttr("dst_format", dst));
  if (src->size() != 4 && src->size() != 5) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Source format must be of length 4 or 5, received src_format = ",
        *src));
  }
  if (dst->size() != 4 && dst->size() != 5) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Destination format must be of length 4 or 5, received dst_format = ",
        *dst));
  }
  if (!IsPermutation(*src, *dst)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Destination and source format must determine a permutation, got ",
        *src, " and ", *dst));
  }
  return absl::OkStatus();
}

// DataFormatDimMap: each element, a dim index of src_format in
// [-n, n), becomes the index of that dim in dst_format.
class DataFormatDimMapOp : public OpKernel {
 public:
  explicit DataFormatDimMapOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string src, dst;
    absl::Status s = ReadFormats(ctx, &src, &dst);
    if (!s.ok()) {
      ctx->SetStatus(std::move(s));
      return;
    }
    for (char c : src) dst_index_.push_back(dst.find(c));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &out));
    if (x.dtype() == DT_INT32) {
      Map<int32_t>(x, out);
    } else {
      Map<int64_t>(x, out);
    }
  }

 private:
  template <typename T>
  void Map(const Tensor& x, Tensor* out) const {
    const T n = static_cast<T>(dst_index_.size());
    const T* src = x.data<T>();
    T* dst = out->data<T>();
    for (int64_t i = 0; i < x.NumElements(); ++i) {
      const T m = ((src[i] % n) + n) % n;
      dst[i] = static_cast<T>(dst_index_[static_cast<size_t>(m)]);
    }
  }

  std::vector<int64_t> dst_index_;
};

// DataFormatVecPermute: a vector (or [n, 2] matrix) of per-dim values in
// src_format's order, permuted to dst_format's. A vector of n - 2 values
// holds the spatial dims only.
class DataFormatVecPermuteOp : public OpKernel {
 public:
  explicit DataFormatVecPermuteOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ReadFormats(ctx, &src_, &dst_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const int64_t full = static_cast<int64_t>(src_.size());
    const int64_t spatial = full - 2;
    DFX_OP_REQUIRES(ctx, x.dims() == 1 || x.dims() == 2,
                    absl::InvalidArgumentError(absl::StrCat(
                        "input must be a vector or 2D tensor, but got shape ",
                        x.shape().DebugString())));
    if (x.dims() == 1) {
      DFX_OP_REQUIRES(
          ctx, x.dim_size(0) == spatial || x.dim_size(0) == full,
          absl::InvalidArgumentError(absl::StrCat(
              "1D input must be of size ", spatial, " or ", full,
              ", but got shape ", x.shape().DebugString())));
    } else {
      DFX_OP_REQUIRES(
          ctx, x.dim_size(0) == spatial || x.dim_size(0) == full,
          absl::InvalidArgumentError(absl::StrCat(
              "First dimension of 2D input must be of size ", spatial, " or ",
              full, ", but got shape ", x.shape().DebugString())));
      DFX_OP_REQUIRES(
          ctx, x.dim_size(1) == 2,
          absl::InvalidArgumentError(absl::StrCat(
              "Second dimension of 2D input must be of size 2, but got "
              "shape ",
              x.shape().DebugString())));
    }
    std::string src = src_, dst = dst_;
    if (x.dim_size(0) == spatial) {
      // Spatial dims only: H and W, and D of a 5-letter format.
      auto keep_spatial = [full](std::string* f) {
        f->erase(std::remove_if(f->begin(), f->end(),
                                [full](char c) {
                                  return c != 'H' && c != 'W' &&
                                         (full != 5 || c != 'D');
                                }),
                 f->end());
      };
      keep_spatial(&src);
      keep_spatial(&dst);
      DFX_OP_REQUIRES(
          ctx,
          static_cast<int64_t>(src.size()) == spatial &&
              static_cast<int64_t>(dst.size()) == spatial,
          absl::InvalidArgumentError(absl::StrCat(
              "Format specifier must contain H and W for 2D case")));
    }
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &out));
    const int64_t row = x.dims() == 2 ? 2 : 1;
    for (size_t i = 0; i < src.size(); ++i) {
      const int64_t j = static_cast<int64_t>(dst.find(src[i]));
      CopyElements(x, static_cast<int64_t>(i) * row, out, j * row, row);
    }
  }

 private:
  std::string src_;
  std::string dst_;
};

// Cross: the cross products of the 3-vectors along the last dim, in T's
// own arithmetic (each product and difference rounded to T, as Eigen's).
class CrossOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    DFX_OP_REQUIRES(ctx, a.shape() == b.shape(),
                    absl::InvalidArgumentError(absl::StrCat(
                        "Both inputs must be of same shape: ",
                        a.shape().DebugString(), " vs. ",
                        b.shape().DebugString())));
    DFX_OP_REQUIRES(ctx, a.dims() >= 1,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Input must be at least 1D", a.shape().DebugString())));
    DFX_OP_REQUIRES(ctx, a.dim_size(a.dims() - 1) == 3,
                    absl::FailedPreconditionError(
                        "Cross-products are only defined for 3-element "
                        "vectors."));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, a.shape(), &out));
    switch (a.dtype()) {
      case DT_FLOAT: Run<float>(a, b, out); break;
      case DT_DOUBLE: Run<double>(a, b, out); break;
      case DT_HALF: Run<Eigen::half>(a, b, out); break;
      case DT_BFLOAT16: Run<Eigen::bfloat16>(a, b, out); break;
      // Integers wrap, computed unsigned.
      case DT_INT8: case DT_UINT8: RunInt<uint8_t>(a, b, out); break;
      case DT_INT16: case DT_UINT16: RunInt<uint16_t>(a, b, out); break;
      case DT_INT32: case DT_UINT32: RunInt<uint32_t>(a, b, out); break;
      default: RunInt<uint64_t>(a, b, out); break;
    }
  }

 private:
  template <typename T>
  static void Run(const Tensor& a, const Tensor& b, Tensor* out) {
    const T* x = static_cast<const T*>(a.raw_data());
    const T* y = static_cast<const T*>(b.raw_data());
    T* z = static_cast<T*>(out->raw_data());
    for (int64_t i = 0; i < a.NumElements(); i += 3) {
      const T *p = x + i, *q = y + i;
      z[i] = T(p[1] * q[2]) - T(p[2] * q[1]);
      z[i + 1] = T(p[2] * q[0]) - T(p[0] * q[2]);
      z[i + 2] = T(p[0] * q[1]) - T(p[1] * q[0]);
    }
  }
  // Two's-complement products keep the low bits: computed in uint64_t and
  // truncated to the type's width U.
  template <typename U>
  static void RunInt(const Tensor& a, const Tensor& b, Tensor* out) {
    const U* x = static_cast<const U*>(a.raw_data());
    const U* y = static_cast<const U*>(b.raw_data());
    U* z = static_cast<U*>(out->raw_data());
    auto term = [](U a1, U b1, U a2, U b2) {
      return static_cast<U>(uint64_t{a1} * b1 - uint64_t{a2} * b2);
    };
    for (int64_t i = 0; i < a.NumElements(); i += 3) {
      const U *p = x + i, *q = y + i;
      z[i] = term(p[1], q[2], p[2], q[1]);
      z[i + 1] = term(p[2], q[0], p[0], q[2]);
      z[i + 2] = term(p[0], q[1], p[1], q[0]);
    }
  }
};

// BatchNormWithGlobalNormalization:
//   (t - m) * rsqrt(v + epsilon) * gamma + beta
// over the last dim (gamma left out unless scale_after_normalization);
// its Grad as TensorFlow's BatchNormGrad functor computes it. Half is
// computed in float.
class BatchNormGlobalOp : public OpKernel {
 public:
  explicit BatchNormGlobalOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    grad_ = ctx->def().op() == "BatchNormWithGlobalNormalizationGrad";
    ctx->SetStatus(ctx->GetAttr("variance_epsilon", &epsilon_));
    ctx->SetStatus(ctx->GetAttr("scale_after_normalization", &scale_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    DFX_OP_REQUIRES(ctx, input.dims() == 4,
                    absl::InvalidArgumentError(
                        absl::StrCat("input must be 4-dimensional",
                                     input.shape().DebugString())));
    const char* names[] = {"mean", "var", grad_ ? "gamma" : "beta", "gamma"};
    for (int i = 1; i < (grad_ ? 4 : 5); ++i) {
      DFX_OP_REQUIRES(ctx, ctx->input(i).dims() == 1,
                      absl::InvalidArgumentError(absl::StrCat(
                          names[i - 1], " must be 1-dimensional",
                          ctx->input(i).shape().DebugString())));
    }
    if (grad_) {
      DFX_OP_REQUIRES(ctx, ctx->input(4).dims() == 4,
                      absl::InvalidArgumentError(absl::StrCat(
                          "backprop must be 4-dimensional",
                          ctx->input(4).shape().DebugString())));
    }
    const int64_t depth = input.dim_size(3);
    for (int i = 1; i < (grad_ ? 4 : 5); ++i) {
      DFX_OP_REQUIRES(
          ctx, ctx->input(i).dim_size(0) == depth,
          absl::InvalidArgumentError(absl::StrCat(
              names[i - 1],
              " must have the same number of elements as the channels of "
              "input: ",
              ctx->input(i).dim_size(0), " vs. ", depth)));
    }
    if (grad_) {
      DFX_OP_REQUIRES(ctx, ctx->input(4).shape() == input.shape(),
                      absl::InvalidArgumentError(absl::StrCat(
                          "backprop must have the same shape as input: ",
                          ctx->input(4).shape().DebugString(), " vs. ",
                          input.shape().DebugString())));
    }
    switch (input.dtype()) {
      case DT_FLOAT: Run<float>(ctx); break;
      case DT_DOUBLE: Run<double>(ctx); break;
      default: Run<Eigen::half>(ctx); break;
    }
  }

 private:
  template <typename T>
  void Run(OpKernelContext* ctx) {
    // Float for half, T otherwise.
    using A = std::conditional_t<std::is_same_v<T, double>, double, float>;
    const Tensor& input = ctx->input(0);
    const int64_t depth = input.dim_size(3);
    const int64_t rows = depth == 0 ? 0 : input.NumElements() / depth;
    auto vec = [&](int i) {
      std::vector<A> v(depth);
      const T* p = ctx->input(i).data<T>();
      for (int64_t c = 0; c < depth; ++c) v[c] = static_cast<A>(p[c]);
      return v;
    };
    const std::vector<A> mean = vec(1), var = vec(2);
    const std::vector<A> gamma = vec(grad_ ? 3 : 4);
    std::vector<A> rsqrt(depth), scale(depth);
    for (int64_t c = 0; c < depth; ++c) {
      rsqrt[c] = A(1) / std::sqrt(var[c] + static_cast<A>(epsilon_));
      scale[c] = scale_ ? rsqrt[c] * gamma[c] : rsqrt[c];
    }
    const T* x = input.data<T>();
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
    T* dst = out->data<T>();
    if (!grad_) {
      const std::vector<A> beta = vec(3);
      for (int64_t r = 0; r < rows; ++r) {
        for (int64_t c = 0; c < depth; ++c) {
          const int64_t i = r * depth + c;
          dst[i] = static_cast<T>((static_cast<A>(x[i]) - mean[c]) * scale[c] +
                                  beta[c]);
        }
      }
      return;
    }
    // db = sum(backprop); s2 = sum(backprop * (x - m)).
    const T* dy = ctx->input(4).data<T>();
    std::vector<double> db(depth, 0.0), s2(depth, 0.0);
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = 0; c < depth; ++c) {
        const int64_t i = r * depth + c;
        const A g = static_cast<A>(dy[i]);
        dst[i] = static_cast<T>(g * scale[c]);
        db[c] += g;
        s2[c] += static_cast<double>(g) *
                 (static_cast<double>(static_cast<A>(x[i])) - mean[c]);
      }
    }
    Tensor* outs[4] = {};
    for (int k = 0; k < 4; ++k) {
      DFX_OP_REQUIRES_OK(
          ctx, ctx->allocate_output(k + 1, TensorShape({depth}), &outs[k]));
    }
    T* dm = outs[0]->data<T>();
    T* dv = outs[1]->data<T>();
    T* dbeta = outs[2]->data<T>();
    T* dg = outs[3]->data<T>();
    for (int64_t c = 0; c < depth; ++c) {
      const A sum_dy = static_cast<A>(db[c]);
      const A sum_dyx = static_cast<A>(s2[c]);
      dbeta[c] = static_cast<T>(sum_dy);
      dm[c] = static_cast<T>(-sum_dy * scale[c]);
      dg[c] = static_cast<T>(scale_ ? sum_dyx * rsqrt[c] : A(0));
      // -1/2 (v + epsilon)^(-3/2), times gamma when scaling.
      const A half_cube = rsqrt[c] * A(-0.5) /
                          (var[c] + static_cast<A>(epsilon_));
      dv[c] = static_cast<T>(sum_dyx *
                             (scale_ ? half_cube * gamma[c] : half_cube));
    }
  }

  bool grad_ = false;
  float epsilon_ = 0;
  bool scale_ = false;
};

// SparseMatMul: a plain float product of two matrices, each float or
// bfloat16 (widened to float); a_is_sparse and b_is_sparse only say which
// operand has many zeros, and zero rows of a are skipped.
class SparseMatMulOp : public OpKernel {
 public:
  explicit SparseMatMulOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("transpose_a", &transpose_a_));
    ctx->SetStatus(ctx->GetAttr("transpose_b", &transpose_b_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    DFX_OP_REQUIRES(ctx, a.dims() == 2 && b.dims() == 2,
                    absl::InvalidArgumentError(absl::StrCat(
                        "a and b must be matrices: ", a.shape().DebugString(),
                        " ", b.shape().DebugString())));
    const int64_t m = a.dim_size(transpose_a_ ? 1 : 0);
    const int64_t k = a.dim_size(transpose_a_ ? 0 : 1);
    const int64_t kb = b.dim_size(transpose_b_ ? 1 : 0);
    const int64_t n = b.dim_size(transpose_b_ ? 0 : 1);
    DFX_OP_REQUIRES(
        ctx, k == kb,
        absl::InvalidArgumentError(absl::StrCat(
            "Matrix size incompatible: a: ", a.shape().DebugString(),
            ", b: ", b.shape().DebugString())));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({m, n}), &out));
    float* z = out->data<float>();
    std::fill_n(z, m * n, 0.0f);
    if (m == 0 || n == 0 || k == 0) return;
    // Both operands as row-major float [m, k] and [k, n].
    const std::vector<float> x = Widen(a, transpose_a_);
    const std::vector<float> y = Widen(b, transpose_b_);
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t p = 0; p < k; ++p) {
        const float v = x[i * k + p];
        if (v == 0.0f) continue;
        const float* row = y.data() + p * n;
        for (int64_t j = 0; j < n; ++j) z[i * n + j] += v * row[j];
      }
    }
  }

 private:
  // t as float, transposed when asked.
  static std::vector<float> Widen(const Tensor& t, bool transpose) {
    const int64_t r = t.dim_size(0), c = t.dim_size(1);
    std::vector<float> v(r * c);
    for (int64_t i = 0; i < r; ++i) {
      for (int64_t j = 0; j < c; ++j) {
        const float e = t.dtype() == DT_FLOAT
                            ? t.data<float>()[i * c + j]
                            : static_cast<float>(
                                  t.data<Eigen::bfloat16>()[i * c + j]);
        v[transpose ? j * r + i : i * c + j] = e;
      }
    }
    return v;
  }

  bool transpose_a_ = false;
  bool transpose_b_ = false;
};

// The dilogarithm Li2(z) = -integral_0^z log(1 - t) / t dt for z <= 1,
// given w = 1 - z too (exact when the caller has it). Reflections bring
// z into [-1, 1/2], where the Bernoulli series in u = -log(1 - z),
//   Li2(z) = u - u^2 / 4 + sum_k B_2k u^(2k+1) / (2k+1)!,
// converges fast (|u| <= log 2).
double Dilog(double z, double w) {
  constexpr double kPi2Over6 = 1.6449340668482264;
  if (z < -1.0) {
    // Li2(z) + Li2(1/z) = -pi^2/6 - log(-z)^2 / 2.
    const double l = std::log(-z);
    return -kPi2Over6 - 0.5 * l * l - Dilog(1.0 / z, 1.0 - 1.0 / z);
  }
  if (z > 0.5) {
    // Li2(z) + Li2(1 - z) = pi^2/6 - log(z) log(1 - z).
    if (w == 0.0) return kPi2Over6;
    return kPi2Over6 - std::log(z) * std::log(w) - Dilog(w, z);
  }
  // B_2k / (2k+1)! for k = 1..10.
  static constexpr double kCoeffs[] = {
      1.0 / 36.0,
      -1.0 / 3600.0,
      1.0 / 211680.0,
      -1.0 / 10886400.0,
      1.0 / 526901760.0,
      -691.0 / 2730.0 / 6227020800.0,
      7.0 / 6.0 / 1307674368000.0,
      -3617.0 / 510.0 / 355687428096000.0,
      43867.0 / 798.0 / 121645100408832000.0,
      -174611.0 / 330.0 / 51090942171709440000.0,
  };
  const double u = -std::log(w);
  const double u2 = u * u;
  double sum = 0.0;
  for (int k = 9; k >= 0; --k) sum = sum * u2 + kCoeffs[k];
  return u - 0.25 * u2 + sum * u2 * u;
}

// Spence: Cephes' spence(x) = -integral_1^x log(t) / (t - 1) dt =
// Li2(1 - x) for x >= 0; NaN below 0, at infinity and for NaN, as
// TensorFlow's. Float is computed in double and rounded.
class SpenceOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &out));
    if (x.dtype() == DT_FLOAT) {
      Run<float>(x, out);
    } else {
      Run<double>(x, out);
    }
  }

 private:
  template <typename T>
  static void Run(const Tensor& x, Tensor* out) {
    const T* src = x.data<T>();
    T* dst = out->data<T>();
    for (int64_t i = 0; i < x.NumElements(); ++i) {
      const double v = src[i];
      dst[i] = !(v >= 0.0) || std::isinf(v)
                   ? std::numeric_limits<T>::quiet_NaN()
                   : static_cast<T>(v == 1.0 ? 0.0 : Dilog(1.0 - v, v));
    }
  }
};

}  // namespace

void RegisterLegacyKernels(KernelRegistry* registry) {
  linalg::RegisterLegacyLinalgKernels(registry);
  // TensorFlow 2.21's CPU kernels: no bfloat16 (which the OpDef allows).
  const DataTypeVector diag_types = {DT_HALF,  DT_FLOAT,     DT_DOUBLE,
                                     DT_INT32, DT_INT64,     DT_COMPLEX64,
                                     DT_COMPLEX128};
  RegisterKernel<DiagOp>(
      registry, KernelDefBuilder("Diag").TypeConstraint("T", diag_types));
  RegisterKernel<DiagPartOp>(
      registry, KernelDefBuilder("DiagPart").TypeConstraint("T", diag_types));
  RegisterKernel<ToBoolOp>(registry, KernelDefBuilder("ToBool"));
  RegisterKernel<DeepCopyOp>(registry, KernelDefBuilder("DeepCopy"));
  RegisterKernel<NextAfterOp>(
      registry,
      KernelDefBuilder("NextAfter").TypeConstraint("T", {DT_FLOAT, DT_DOUBLE}));
  RegisterKernel<CrossOp>(
      registry,
      KernelDefBuilder("Cross").TypeConstraint(
          "T", {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16, DT_INT8, DT_UINT8,
                DT_INT16, DT_UINT16, DT_INT32, DT_UINT32, DT_INT64,
                DT_UINT64}));
  for (const char* name : {"BatchNormWithGlobalNormalization",
                           "BatchNormWithGlobalNormalizationGrad"}) {
    RegisterKernel<BatchNormGlobalOp>(
        registry, KernelDefBuilder(name).TypeConstraint(
                      "T", {DT_FLOAT, DT_DOUBLE, DT_HALF}));
  }
  RegisterKernel<SpenceOp>(
      registry,
      KernelDefBuilder("Spence").TypeConstraint("T", {DT_FLOAT, DT_DOUBLE}));
  RegisterSpecialIntegralKernels(registry);
  RegisterKernel<SparseMatMulOp>(
      registry, KernelDefBuilder("SparseMatMul")
                    .TypeConstraint("Ta", {DT_FLOAT, DT_BFLOAT16})
                    .TypeConstraint("Tb", {DT_FLOAT, DT_BFLOAT16}));
  for (const char* name : {"DataFormatDimMap", "DataFormatVecPermute"}) {
    KernelDefBuilder def(name);
    def.TypeConstraint("T", {DT_INT32, DT_INT64});
    if (std::string(name) == "DataFormatDimMap") {
      RegisterKernel<DataFormatDimMapOp>(registry, def);
    } else {
      RegisterKernel<DataFormatVecPermuteOp>(registry, def);
    }
  }
}

}  // namespace dfx

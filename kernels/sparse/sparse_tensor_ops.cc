// Kernels over SparseTensors held as (indices, values, dense_shape):
// SparseToDense, SparseTensorDenseMatMul, SparseReshape, SparseFillEmptyRows,
// SparseFillEmptyRowsGrad, SparseReorder, SparseSlice, SparseConcat,
// SparseSplit, SparseTensorDenseAdd, SparseDenseCwise{Add,Mul,Div},
// SparseReduceSum/Max (and their *Sparse forms), SparseSoftmax, SparseSparseMaximum/
// Minimum, SparseAdd and the gradients SparseAddGrad and SparseSliceGrad. Checks and their messages follow
// TensorFlow's CPU kernels, in TensorFlow's order, so a bad GraphDef or feed
// gets TensorFlow's first error; arithmetic follows TensorFlow's order of
// operations (SparseTensorDenseMatMul adds a[i] * b row by row in the order
// of the entries), so results are bitwise TensorFlow's.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernels/sparse/sparse_util.h"

namespace dfx::sparse_internal {
namespace {

// "[a,b,c]" as TensorFlow prints an index tuple or shape.
std::string Bracketed(const std::vector<int64_t>& v) {
  return absl::StrCat("[", absl::StrJoin(v, ","), "]");
}

// ---------------------------------------------------------------------------
// SparseToDense

class SparseToDenseOp : public OpKernel {
 public:
  explicit SparseToDenseOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFX_OP_REQUIRES_OK(ctx, ctx->GetAttr("validate_indices", &validate_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& indices = ctx->input(0);
    DFX_OP_REQUIRES(
        ctx, indices.dims() <= 2,
        absl::InvalidArgumentError(absl::StrCat(
            "sparse_indices should be a scalar, vector, or matrix, got shape ",
            indices.shape().DebugString())));
    const int64_t num_elems = indices.dims() > 0 ? indices.dim_size(0) : 1;
    const int64_t num_dims = indices.dims() > 1 ? indices.dim_size(1) : 1;
    const Tensor& shape_t = ctx->input(1);
    DFX_OP_REQUIRES(ctx, shape_t.dims() == 1,
                    absl::InvalidArgumentError(absl::StrCat(
                        "output_shape must be rank 1, got shape ",
                        shape_t.shape().DebugString())));
    DFX_OP_REQUIRES(ctx, shape_t.NumElements() == num_dims,
                    absl::InvalidArgumentError(absl::StrCat(
                        "output_shape has incorrect number of elements: ",
                        shape_t.NumElements(), " should be: ", num_dims)));
    const Tensor& values = ctx->input(2);
    const int64_t num_values = values.NumElements();
    DFX_OP_REQUIRES(
        ctx,
        values.dims() == 0 || (values.dims() == 1 && num_values == num_elems),
        absl::InvalidArgumentError(absl::StrCat(
            "sparse_values has incorrect shape ", values.shape().DebugString(),
            ", should be [] or [", num_elems, "]")));
    const Tensor& default_value = ctx->input(3);
    DFX_OP_REQUIRES(
        ctx, default_value.dims() == 0,
        absl::InvalidArgumentError("default_value should be a scalar."));

    TensorShape out_shape;
    std::vector<int64_t> dims(static_cast<size_t>(num_dims));
    for (int64_t d = 0; d < num_dims; ++d) {
      dims[d] = IndexAt(shape_t, d);
      DFX_OP_REQUIRES(ctx, dims[d] >= 0,
                      absl::InvalidArgumentError(absl::StrCat(
                          "Dimension ", dims[d], " must be >= 0")));
      DFX_OP_REQUIRES_OK(ctx, out_shape.AddDim(dims[d]));
    }
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));

    auto index = [&](int64_t i, int64_t d) {
      return IndexAt(indices, i * num_dims + d);
    };
    auto tuple = [&](int64_t i) {
      std::vector<int64_t> t(static_cast<size_t>(num_dims));
      for (int64_t d = 0; d < num_dims; ++d) t[d] = index(i, d);
      return t;
    };
    if (validate_) {
      // TensorFlow's SparseTensor::IndicesValid: each entry in bounds, then
      // strictly after the one before it in row-major order.
      for (int64_t i = 0; i < num_elems; ++i) {
        bool in_bounds = true;
        for (int64_t d = 0; d < num_dims; ++d) {
          const int64_t v = index(i, d);
          in_bounds = in_bounds && v >= 0 && v < dims[d];
        }
        DFX_OP_REQUIRES(ctx, in_bounds,
                        absl::InvalidArgumentError(absl::StrCat(
                            "indices[", i, "] = ", Bracketed(tuple(i)),
                            " is out of bounds: need 0 <= index < ",
                            Bracketed(dims))));
        if (i == 0) continue;
        int order = 0;  // <0: out of order, 0: repeated, >0: increasing
        for (int64_t d = 0; d < num_dims && order == 0; ++d) {
          const int64_t prev = index(i - 1, d), cur = index(i, d);
          if (cur != prev) order = cur > prev ? 1 : -1;
        }
        DFX_OP_REQUIRES(
            ctx, order >= 0,
            absl::InvalidArgumentError(absl::StrCat(
                "indices[", i, "] = ", Bracketed(tuple(i)),
                " is out of order. Many sparse ops require sorted indices.\n"
                "    Use `tf.sparse.reorder` to create a correctly ordered "
                "copy.\n\n")));
        DFX_OP_REQUIRES(ctx, order > 0,
                        absl::InvalidArgumentError(absl::StrCat(
                            "indices[", i, "] = ", Bracketed(tuple(i)),
                            " is repeated")));
      }
    }
    // Flat offsets first, so a bad index fails before anything is written.
    std::vector<int64_t> offsets(static_cast<size_t>(num_elems));
    for (int64_t i = 0; i < num_elems; ++i) {
      int64_t offset = 0;
      bool in_bounds = true;
      for (int64_t d = 0; d < num_dims; ++d) {
        const int64_t v = index(i, d);
        in_bounds = in_bounds && v >= 0 && v < dims[d];
        offset = offset * dims[d] + v;
      }
      DFX_OP_REQUIRES(ctx, in_bounds,
                      absl::InvalidArgumentError(absl::StrCat(
                          "Indices are not valid (out of bounds).  Shape: ",
                          out_shape.DebugString())));
      offsets[i] = offset;
    }
    const bool known = VisitMoveType(out->dtype(), [&]<typename E>() {
      E* o = Elements<E>(out);
      const E fill = Elements<E>(default_value)[0];
      std::fill(o, o + out->NumElements(), fill);
      const E* v = Elements<E>(values);
      for (int64_t i = 0; i < num_elems; ++i) {
        o[offsets[i]] = values.dims() == 0 ? v[0] : v[i];
      }
    });
    DFX_OP_REQUIRES(ctx, known,
                    absl::InvalidArgumentError("SparseToDense: unsupported dtype"));
  }

 private:
  bool validate_ = true;
};

// ---------------------------------------------------------------------------
// SparseTensorDenseMatMul

template <typename T>
T Conj(const T& v) {
  return v;
}
template <typename R>
std::complex<R> Conj(const std::complex<R>& v) {
  return std::conj(v);
}

class SparseTensorDenseMatMulOp : public OpKernel {
 public:
  explicit SparseTensorDenseMatMulOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    DFX_OP_REQUIRES_OK(ctx, ctx->GetAttr("adjoint_a", &adjoint_a_));
    DFX_OP_REQUIRES_OK(ctx, ctx->GetAttr("adjoint_b", &adjoint_b_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& a_indices = ctx->input(0);
    const Tensor& a_values = ctx->input(1);
    const Tensor& a_shape = ctx->input(2);
    const Tensor& b = ctx->input(3);
    DFX_OP_REQUIRES(ctx, b.dims() == 2,
                    absl::InvalidArgumentError("Tensor 'b' is not a matrix"));
    DFX_OP_REQUIRES(
        ctx, a_shape.dims() == 1,
        absl::InvalidArgumentError("Tensor 'a_shape' is not a vector"));
    DFX_OP_REQUIRES(
        ctx, a_shape.NumElements() == 2,
        absl::InvalidArgumentError("Tensor 'a_shape' must have 2 elements"));
    DFX_OP_REQUIRES(
        ctx, a_values.dims() == 1,
        absl::InvalidArgumentError("Tensor 'a_values' is not a vector"));
    DFX_OP_REQUIRES(
        ctx, a_indices.dims() == 2,
        absl::InvalidArgumentError("Tensor 'a_indices' is not a matrix"));
    const int64_t nnz = a_indices.dim_size(0);
    DFX_OP_REQUIRES(ctx, nnz == a_values.NumElements(),
                    absl::InvalidArgumentError(
                        "Number of rows of a_indices does not match number of "
                        "entries in a_values"));
    DFX_OP_REQUIRES(ctx, a_indices.dim_size(1) == a_shape.NumElements(),
                    absl::InvalidArgumentError(
                        "Number of columns of a_indices does not match number "
                        "of entries in a_shape"));
    const int64_t a0 = a_shape.data<int64_t>()[0];
    const int64_t a1 = a_shape.data<int64_t>()[1];
    const int64_t outer_left = adjoint_a_ ? a1 : a0;
    const int64_t inner_left = adjoint_a_ ? a0 : a1;
    const int64_t outer_right = adjoint_b_ ? b.dim_size(0) : b.dim_size(1);
    const int64_t inner_right = adjoint_b_ ? b.dim_size(1) : b.dim_size(0);
    DFX_OP_REQUIRES(
        ctx, inner_left == inner_right,
        absl::InvalidArgumentError(absl::StrCat(
            "Cannot multiply A and B because inner dimension does not match: ",
            inner_left, " vs. ", inner_right,
            ".  Did you forget a transpose?  Dimensions of A: [", a0, ", ", a1,
            ").  Dimensions of B: ", b.shape().DebugString())));
    // TensorFlow aborts the process on a negative a_shape; an error here.
    DFX_OP_REQUIRES(ctx, a0 >= 0 && a1 >= 0,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Expected shape dimensions to be non-negative, got ",
                        a0 < 0 ? a0 : a1)));
    TensorShape out_shape;
    DFX_OP_REQUIRES_OK(ctx, out_shape.AddDim(outer_left));
    DFX_OP_REQUIRES_OK(ctx, out_shape.AddDim(outer_right));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;
    std::memset(out->raw_data(), 0,
                static_cast<size_t>(out->NumElements()) *
                    DataTypeSize(out->dtype()));
    if (nnz == 0 || b.NumElements() == 0) return;

    const int lhs_col = adjoint_a_ ? 1 : 0;  // column of a_indices giving m
    const int rhs_col = adjoint_a_ ? 0 : 1;  // column giving k
    for (int64_t i = 0; i < nnz; ++i) {
      const int64_t m = IndexAt(a_indices, 2 * i + lhs_col);
      const int64_t k = IndexAt(a_indices, 2 * i + rhs_col);
      DFX_OP_REQUIRES(ctx, k >= 0 && k < inner_right,
                      absl::InvalidArgumentError(absl::StrCat(
                          "k (", k, ") from index[", i, ",", rhs_col,
                          "] out of bounds (>=", inner_right, ")")));
      DFX_OP_REQUIRES(ctx, m >= 0 && m < outer_left,
                      absl::InvalidArgumentError(absl::StrCat(
                          "m (", m, ") from index[", i, ",", lhs_col,
                          "] out of bounds (>=", outer_left, ")")));
    }
    bool known = false;
    auto run = [&]<typename T>() {
      known = true;
      Multiply<T>(ctx, a_indices, a_values, b, lhs_col, rhs_col, outer_right,
                  out);
    };
    switch (b.dtype()) {
      case DT_FLOAT: run.template operator()<float>(); break;
      case DT_DOUBLE: run.template operator()<double>(); break;
      case DT_HALF: run.template operator()<Eigen::half>(); break;
      case DT_BFLOAT16: run.template operator()<Eigen::bfloat16>(); break;
      case DT_INT32: run.template operator()<int32_t>(); break;
      case DT_COMPLEX64: run.template operator()<std::complex<float>>(); break;
      case DT_COMPLEX128: run.template operator()<std::complex<double>>(); break;
      default: break;
    }
    DFX_OP_REQUIRES(ctx, known,
                    absl::InvalidArgumentError(
                        "SparseTensorDenseMatMul: unsupported dtype"));
  }

 private:
  // out[m, :] += a * op(b)[k, :] for each entry in order. Output columns
  // are split over the pool: each column sees the entries in order, so the
  // result does not depend on the split. TensorFlow 2.21 accumulates half
  // in float and rounds once at the end; bfloat16 and the rest in T.
  template <typename T>
  void Multiply(OpKernelContext* ctx, const Tensor& a_indices,
                const Tensor& a_values, const Tensor& b, int lhs_col,
                int rhs_col, int64_t n, Tensor* out) const {
    using A = std::conditional_t<std::is_same_v<T, Eigen::half>, float, T>;
    const int64_t nnz = a_values.NumElements();
    const int64_t size = out->NumElements();
    const T* av = a_values.data<T>();
    const T* bv = b.data<T>();
    std::vector<A> wide;
    A* o = nullptr;
    if constexpr (std::is_same_v<A, T>) {
      o = out->data<T>();
    } else {
      wide.assign(static_cast<size_t>(size), A(0));
      o = wide.data();
    }
    const int64_t b_cols = b.dim_size(1);
    const bool adj_a = adjoint_a_, adj_b = adjoint_b_;
    ParallelFor(
        *ctx->device(), n,
        Eigen::TensorOpCost(static_cast<double>(nnz * sizeof(T)),
                            static_cast<double>(nnz * sizeof(T)),
                            static_cast<double>(2 * nnz)),
        [&](int64_t c0, int64_t c1) {
          for (int64_t i = 0; i < nnz; ++i) {
            const int64_t m = IndexAt(a_indices, 2 * i + lhs_col);
            const int64_t k = IndexAt(a_indices, 2 * i + rhs_col);
            const A a = A(adj_a ? Conj(av[i]) : av[i]);
            A* orow = o + m * n;
            for (int64_t c = c0; c < c1; ++c) {
              const A bk =
                  A(adj_b ? Conj(bv[c * b_cols + k]) : bv[k * b_cols + c]);
              orow[c] = A(orow[c] + A(bk * a));
            }
          }
        });
    if constexpr (!std::is_same_v<A, T>) {
      T* dst = out->data<T>();
      for (int64_t j = 0; j < size; ++j) dst[j] = T(wide[j]);
    }
  }

  bool adjoint_a_ = false;
  bool adjoint_b_ = false;
};

// ---------------------------------------------------------------------------
// SparseReshape

class SparseReshapeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& indices = ctx->input(0);
    const Tensor& in_shape_t = ctx->input(1);
    const Tensor& target_t = ctx->input(2);
    DFX_OP_REQUIRES(ctx, indices.dims() == 2,
                    absl::InvalidArgumentError("Input must be a matrix."));
    DFX_OP_REQUIRES(ctx, in_shape_t.dims() == 1,
                    absl::InvalidArgumentError("Input shape must be a vector."));
    DFX_OP_REQUIRES(ctx, target_t.dims() == 1,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Target shape should be a vector but received shape ",
                        target_t.shape().DebugString())));
    const int64_t nnz = indices.dim_size(0);
    const int64_t in_rank = in_shape_t.NumElements();
    const int64_t out_rank = target_t.NumElements();
    DFX_OP_REQUIRES(ctx, indices.dim_size(1) == in_rank,
                    absl::InvalidArgumentError(
                        "Input tensor rank must match input shape length."));
    const int64_t* in_dims = in_shape_t.data<int64_t>();
    const int64_t* target = target_t.data<int64_t>();
    TensorShape in_shape;
    for (int64_t d = 0; d < in_rank; ++d) {
      DFX_OP_REQUIRES(ctx, in_dims[d] >= 0,
                      absl::InvalidArgumentError(absl::StrCat(
                          "Expected shape dimensions to be non-negative, got ",
                          in_dims[d])));
      DFX_OP_REQUIRES_OK(ctx, in_shape.AddDim(in_dims[d]));
    }
    const int64_t dense_size = in_shape.num_elements();

    std::vector<int64_t> out_dims(static_cast<size_t>(out_rank));
    int64_t product = 1;
    int64_t unknown = -1;
    for (int64_t d = 0; d < out_rank; ++d) {
      const int64_t size = target[d];
      if (size == -1) {
        DFX_OP_REQUIRES(ctx, unknown == -1,
                        absl::InvalidArgumentError(absl::StrCat(
                            "only one output dimension may be -1, not both ",
                            unknown, " and ", d)));
        unknown = d;
      } else {
        DFX_OP_REQUIRES(ctx, size >= 0,
                        absl::InvalidArgumentError(absl::StrCat(
                            "size ", d, " must be non-negative, not ", size)));
        DFX_OP_REQUIRES(
            ctx, size == 0 || product <= TensorShape::kMaxElements / size,
            absl::InvalidArgumentError("requested shape is too large"));
        product *= size;
        out_dims[d] = size;
      }
    }
    if (unknown != -1) {
      DFX_OP_REQUIRES(
          ctx, product > 0,
          absl::InvalidArgumentError(
              "reshape cannot infer the missing input size for an empty "
              "tensor unless all specified input sizes are non-zero"));
      const int64_t missing = dense_size / product;
      DFX_OP_REQUIRES(
          ctx, product * missing == dense_size,
          absl::InvalidArgumentError(absl::StrCat(
              "Input to reshape is a SparseTensor with ", dense_size,
              " dense values, but the requested shape requires a multiple of ",
              product, ".")));
      out_dims[unknown] = missing;
      product *= missing;
    }
    DFX_OP_REQUIRES(
        ctx, product == dense_size,
        absl::InvalidArgumentError(absl::StrCat(
            "Input to reshape is a tensor with ", dense_size,
            " dense values, but the requested shape has ", product,
            ". input_shape=", in_shape.DebugString(),
            " output_shape=", Bracketed(out_dims))));

    Tensor* out_indices = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({nnz, out_rank}),
                                                 &out_indices));
    Tensor* out_shape = nullptr;
    DFX_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(1, TensorShape({out_rank}), &out_shape));
    std::copy(out_dims.begin(), out_dims.end(), out_shape->data<int64_t>());
    const int64_t* in = indices.data<int64_t>();
    int64_t* o = out_indices->data<int64_t>();
    // Row-major linear position of each entry, re-split by the new dims.
    // Like TensorFlow, entries outside the input shape are not rejected.
    for (int64_t i = 0; i < nnz; ++i) {
      int64_t linear = 0;
      int64_t stride = 1;
      for (int64_t d = in_rank - 1; d >= 0; --d) {
        linear += in[i * in_rank + d] * stride;
        stride *= in_dims[d];
      }
      // The first output coordinate takes what is left, so an entry outside
      // the input shape lands outside the output shape, as in TensorFlow.
      for (int64_t d = out_rank - 1; d >= 1; --d) {
        const int64_t size = out_dims[d];
        o[i * out_rank + d] = size == 0 ? 0 : linear % size;
        linear = size == 0 ? 0 : linear / size;
      }
      if (out_rank > 0) o[i * out_rank] = linear;
    }
  }
};

// ---------------------------------------------------------------------------
// SparseFillEmptyRows and its gradient, and their ragged forms
// RaggedFillEmptyRows(Grad): value_rowids are the indices of a rank-1
// SparseTensor of nrows rows, and the output value_rowids a vector (but
// [0, 1] when nrows is 0, as TensorFlow's shares SparseFillEmptyRows' code).

class SparseFillEmptyRowsOp : public OpKernel {
 public:
  SparseFillEmptyRowsOp(OpKernelConstruction* ctx, bool ragged)
      : OpKernel(ctx), ragged_(ragged) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& values = ctx->input(1);
    const Tensor& default_value = ctx->input(3);
    DFX_OP_REQUIRES(ctx, default_value.dims() == 0,
                    absl::InvalidArgumentError(absl::StrCat(
                        "default_value must be a scalar, saw: ",
                        default_value.shape().DebugString())));
    Tensor indices = ctx->input(0);
    Tensor dense_shape = ctx->input(2);
    if (ragged_) {
      DFX_OP_REQUIRES(ctx, indices.dims() == 1,
                      absl::InvalidArgumentError(absl::StrCat(
                          "value_rowids must be a vector, saw: ",
                          indices.shape().DebugString())));
      DFX_OP_REQUIRES(ctx, dense_shape.dims() == 0,
                      absl::InvalidArgumentError(absl::StrCat(
                          "nrows must be a scalar, saw: ",
                          dense_shape.shape().DebugString())));
      // Views: [n, 1] indices and a [1] dense shape, the same buffers.
      absl::StatusOr<Tensor> as_matrix =
          indices.Reshaped(TensorShape({indices.dim_size(0), 1}));
      absl::StatusOr<Tensor> as_vector = dense_shape.Reshaped(TensorShape({1}));
      DFX_OP_REQUIRES_OK(ctx, as_matrix.status());
      DFX_OP_REQUIRES_OK(ctx, as_vector.status());
      indices = *std::move(as_matrix);
      dense_shape = *std::move(as_vector);
    }
    DFX_OP_REQUIRES(ctx, indices.dims() == 2,
                    absl::InvalidArgumentError(absl::StrCat(
                        "indices must be a matrix, saw: ",
                        indices.shape().DebugString())));
    DFX_OP_REQUIRES(ctx, values.dims() == 1,
                    absl::InvalidArgumentError(absl::StrCat(
                        "values must be a vector, saw: ",
                        values.shape().DebugString())));
    DFX_OP_REQUIRES(ctx, dense_shape.dims() == 1,
                    absl::InvalidArgumentError(absl::StrCat(
                        "dense_shape must be a vector, saw: ",
                        dense_shape.shape().DebugString())));
    const int64_t n = indices.dim_size(0);
    const int64_t rank = indices.dim_size(1);
    DFX_OP_REQUIRES(ctx, values.dim_size(0) == n,
                    absl::InvalidArgumentError(absl::StrCat(
                        "The length of `values` (", values.dim_size(0),
                        ") must match the first dimension of `indices` (", n,
                        ").")));
    DFX_OP_REQUIRES(ctx, dense_shape.dim_size(0) == rank,
                    absl::InvalidArgumentError(absl::StrCat(
                        "The length of `dense_shape` (", dense_shape.dim_size(0),
                        ") must match the second dimension of `indices` (",
                        rank, ").")));
    DFX_OP_REQUIRES(ctx, rank > 0,
                    absl::InvalidArgumentError("Dense shape cannot be empty."));
    const int64_t dense_rows = dense_shape.data<int64_t>()[0];
    const int64_t* in = indices.data<int64_t>();

    Tensor* empty_rows = nullptr;
    DFX_OP_REQUIRES(ctx, dense_rows >= 0,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Expected shape dimensions to be non-negative, got ",
                        dense_rows)));
    DFX_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(2, TensorShape({dense_rows}), &empty_rows));
    Tensor* reverse = nullptr;
    DFX_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(3, TensorShape({n}), &reverse));
    int64_t* rev = reverse->data<int64_t>();
    if (dense_rows == 0) {
      DFX_OP_REQUIRES(ctx, n == 0,
                      absl::InvalidArgumentError(absl::StrCat(
                          "Received SparseTensor with dense_shape[0] = 0 but "
                          "indices.shape[0] = ",
                          n)));
      Tensor* unused = nullptr;
      DFX_OP_REQUIRES_OK(
          ctx, ctx->allocate_output(0, TensorShape({0, rank}), &unused));
      DFX_OP_REQUIRES_OK(ctx,
                         ctx->allocate_output(1, TensorShape({0}), &unused));
      return;
    }

    // Entries per row, then each row's end offset in the output (every row
    // holding at least one entry).
    bool ordered = true;
    int64_t last_row = 0;
    std::vector<int64_t> end(static_cast<size_t>(dense_rows), 0);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t row = in[i * rank];
      DFX_OP_REQUIRES(ctx, row >= 0 && row < dense_rows,
                      absl::InvalidArgumentError(absl::StrCat(
                          "indices(", i, ", 0) is invalid: ", row, " >= ",
                          dense_rows)));
      ++end[row];
      ordered = ordered && row >= last_row;
      last_row = row;
    }
    bool all_full = true;
    bool* empty = empty_rows->data<bool>();
    for (int64_t row = 0; row < dense_rows; ++row) {
      empty[row] = end[row] == 0;
      all_full = all_full && end[row] != 0;
      end[row] = std::max<int64_t>(end[row], 1);
      if (row > 0) end[row] += end[row - 1];
    }
    if (all_full && ordered) {
      ctx->set_output(0, ctx->input(0));
      ctx->set_output(1, values);
      for (int64_t i = 0; i < n; ++i) rev[i] = i;
      return;
    }
    const int64_t full = end[dense_rows - 1];
    Tensor* out_indices = nullptr;
    DFX_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(
                 0, ragged_ ? TensorShape({full}) : TensorShape({full, rank}),
                 &out_indices));
    Tensor* out_values = nullptr;
    DFX_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(1, TensorShape({full}), &out_values));
    int64_t* oi = out_indices->data<int64_t>();
    std::vector<int64_t> filled(static_cast<size_t>(dense_rows), 0);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t row = in[i * rank];
      const int64_t pos = (row == 0 ? 0 : end[row - 1]) + filled[row]++;
      std::copy(in + i * rank, in + (i + 1) * rank, oi + pos * rank);
      rev[i] = pos;
    }
    for (int64_t row = 0; row < dense_rows; ++row) {
      if (filled[row] != 0) continue;
      const int64_t pos = row == 0 ? 0 : end[row - 1];
      oi[pos * rank] = row;
      std::fill(oi + pos * rank + 1, oi + (pos + 1) * rank, 0);
    }
    const bool known = VisitMoveType(values.dtype(), [&]<typename E>() {
      const E* v = Elements<E>(values);
      E* ov = Elements<E>(out_values);
      for (int64_t i = 0; i < n; ++i) ov[rev[i]] = v[i];
      const E fill = Elements<E>(default_value)[0];
      for (int64_t row = 0; row < dense_rows; ++row) {
        if (filled[row] == 0) ov[row == 0 ? 0 : end[row - 1]] = fill;
      }
    });
    DFX_OP_REQUIRES(ctx, known,
                    absl::InvalidArgumentError(
                        "SparseFillEmptyRows: unsupported dtype"));
  }

 private:
  const bool ragged_;
};

template <bool kRagged>
class FillEmptyRowsOp : public SparseFillEmptyRowsOp {
 public:
  explicit FillEmptyRowsOp(OpKernelConstruction* ctx)
      : SparseFillEmptyRowsOp(ctx, kRagged) {}
};

class SparseFillEmptyRowsGradOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& reverse = ctx->input(0);
    const Tensor& grad = ctx->input(1);
    DFX_OP_REQUIRES(ctx, reverse.dims() == 1,
                    absl::InvalidArgumentError(absl::StrCat(
                        "reverse_index_map must be a vector, saw: ",
                        reverse.shape().DebugString())));
    DFX_OP_REQUIRES(ctx, grad.dims() == 1,
                    absl::InvalidArgumentError(absl::StrCat(
                        "grad_values must be a vector, saw: ",
                        grad.shape().DebugString())));
    const int64_t n = reverse.dim_size(0);
    const int64_t full = grad.dim_size(0);
    Tensor* d_values = nullptr;
    DFX_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(0, TensorShape({n}), &d_values));
    Tensor* d_default = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape(), &d_default));
    const int64_t* rev = reverse.data<int64_t>();
    for (int64_t i = 0; i < n; ++i) {
      DFX_OP_REQUIRES(ctx, rev[i] >= 0 && rev[i] < full,
                      absl::InvalidArgumentError(absl::StrCat(
                          "Elements in reverse index must be in [0, ", full,
                          ") but got ", rev[i])));
    }
    const bool known = VisitNumberType(grad.dtype(), [&]<typename T>() {
      const T* g = grad.data<T>();
      T* dv = d_values->data<T>();
      std::vector<bool> visited(static_cast<size_t>(full), false);
      for (int64_t i = 0; i < n; ++i) {
        dv[i] = g[rev[i]];
        visited[rev[i]] = true;
      }
      // The default value filled every slot no entry reached.
      T acc = T(0);
      for (int64_t j = 0; j < full; ++j) {
        if (!visited[j]) acc = T(acc + g[j]);
      }
      d_default->data<T>()[0] = acc;
    });
    DFX_OP_REQUIRES(ctx, known,
                    absl::InvalidArgumentError(
                        "SparseFillEmptyRowsGrad: unsupported dtype"));
  }
};

// ---------------------------------------------------------------------------
// SparseReorder

class SparseReorderOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& indices = ctx->input(0);
    const Tensor& values = ctx->input(1);
    const Tensor& shape = ctx->input(2);
    // TensorFlow's SparseTensor::Create checks; indices are not bounds
    // checked (TensorFlow sorts out-of-range ones too).
    DFX_OP_REQUIRES(ctx, indices.dims() == 2,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Sparse indices must be rank 2 but is rank ",
                        indices.dims())));
    DFX_OP_REQUIRES(ctx, values.dims() == 1,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Sparse values must be rank 1 but is rank ",
                        values.dims())));
    DFX_OP_REQUIRES(ctx, shape.dims() == 1,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Sparse shape must be rank 1 but is rank ",
                        shape.dims())));
    const int64_t n = indices.dim_size(0);
    const int64_t rank = indices.dim_size(1);
    DFX_OP_REQUIRES(ctx, n == values.dim_size(0),
                    absl::InvalidArgumentError(absl::StrCat(
                        "Number of elements in indices (", n,
                        ") and values (", values.dim_size(0),
                        ") do not match")));
    DFX_OP_REQUIRES(ctx, rank == shape.dim_size(0),
                    absl::InvalidArgumentError(absl::StrCat(
                        "Index rank (", rank, ") and shape rank (",
                        shape.dim_size(0), ") do not match")));
    const int64_t* in = indices.data<int64_t>();
    std::vector<int64_t> order(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) order[i] = i;
    // Row-major order; equal indices keep their input order.
    std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) {
      return std::lexicographical_compare(in + x * rank, in + (x + 1) * rank,
                                          in + y * rank, in + (y + 1) * rank);
    });
    Tensor* out_indices = nullptr;
    DFX_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(0, indices.shape(), &out_indices));
    Tensor* out_values = nullptr;
    DFX_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(1, values.shape(), &out_values));
    int64_t* oi = out_indices->data<int64_t>();
    for (int64_t k = 0; k < n; ++k) {
      std::copy(in + order[k] * rank, in + (order[k] + 1) * rank, oi + k * rank);
    }
    const bool known = VisitMoveType(values.dtype(), [&]<typename E>() {
      const E* v = Elements<E>(values);
      E* o = Elements<E>(out_values);
      for (int64_t k = 0; k < n; ++k) o[k] = v[order[k]];
    });
    DFX_OP_REQUIRES(ctx, known,
                    absl::InvalidArgumentError(
                        "SparseReorder: unsupported dtype"));
  }
};

// ---------------------------------------------------------------------------
// SparseSlice, SparseConcat and SparseSplit

}  // namespace

absl::Status CheckSparseTensor(const Tensor& indices, const Tensor& values,
                               const Tensor& shape) {
  if (indices.dims() != 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Sparse indices must be rank 2 but is rank ", indices.dims()));
  }
  if (values.dims() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Sparse values must be rank 1 but is rank ", values.dims()));
  }
  if (shape.dims() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Sparse shape must be rank 1 but is rank ", shape.dims()));
  }
  if (indices.dim_size(0) != values.dim_size(0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Number of elements in indices (", indices.dim_size(0),
        ") and values (", values.dim_size(0), ") do not match"));
  }
  if (indices.dim_size(1) != shape.dim_size(0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("Index rank (", indices.dim_size(1), ") and shape rank (",
                     shape.dim_size(0), ") do not match"));
  }
  return absl::OkStatus();
}

namespace {

class SparseSliceOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& indices = ctx->input(0);
    const Tensor& values = ctx->input(1);
    const Tensor& shape = ctx->input(2);
    const Tensor& start = ctx->input(3);
    const Tensor& size = ctx->input(4);
    DFX_OP_REQUIRES_OK(ctx, CheckSparseTensor(indices, values, shape));
    const int64_t rank = shape.NumElements();
    for (const auto& [t, what] : {std::pair<const Tensor*, const char*>{&start, "start"},
                                  {&size, "size"}}) {
      DFX_OP_REQUIRES(ctx, t->dims() == 1,
                      absl::InvalidArgumentError(absl::StrCat(
                          "Input ", what, " should be a vector but received "
                          "shape ",
                          t->shape().DebugString())));
      DFX_OP_REQUIRES(ctx, t->NumElements() == rank,
                      absl::InvalidArgumentError(absl::StrCat(
                          "Expected ", what, " to be a vector of length ",
                          rank, " but got length ", t->NumElements())));
    }
    const int64_t* st = start.data<int64_t>();
    const int64_t* sz = size.data<int64_t>();
    const int64_t* dims = shape.data<int64_t>();
    std::vector<int64_t> out_dims(static_cast<size_t>(rank));
    for (int64_t d = 0; d < rank; ++d) {
      DFX_OP_REQUIRES(ctx, sz[d] >= 0,
                      absl::InvalidArgumentError(absl::StrCat(
                          "Expected a non-negative size, got ", sz[d])));
      DFX_OP_REQUIRES(ctx, dims[d] >= 0,
                      absl::InvalidArgumentError(absl::StrCat(
                          "Expected shape dimensions to be non-negative, got ",
                          dims[d])));
      // The slice is cut to the shape; an empty one has size 0.
      const int64_t end = st[d] > dims[d] - sz[d] ? dims[d] : st[d] + sz[d];
      out_dims[d] = std::max<int64_t>(end - st[d], 0);
    }
    const int64_t n = indices.dim_size(0);
    const int64_t* in = indices.data<int64_t>();
    std::vector<int64_t> kept;
    for (int64_t i = 0; i < n; ++i) {
      bool inside = true;
      for (int64_t d = 0; d < rank && inside; ++d) {
        const int64_t v = in[i * rank + d];
        inside = v >= st[d] && v - st[d] < sz[d];
      }
      if (inside) kept.push_back(i);
    }
    const int64_t m = static_cast<int64_t>(kept.size());
    Tensor* out_indices = nullptr;
    DFX_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(0, TensorShape({m, rank}), &out_indices));
    Tensor* out_values = nullptr;
    DFX_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(1, TensorShape({m}), &out_values));
    int64_t* oi = out_indices->data<int64_t>();
    for (int64_t k = 0; k < m; ++k) {
      for (int64_t d = 0; d < rank; ++d) {
        oi[k * rank + d] = in[kept[k] * rank + d] - st[d];
      }
    }
    const bool known = VisitMoveType(values.dtype(), [&]<typename E>() {
      const E* v = Elements<E>(values);
      E* o = Elements<E>(out_values);
      for (int64_t k = 0; k < m; ++k) o[k] = v[kept[k]];
    });
    DFX_OP_REQUIRES(ctx, known,
                    absl::InvalidArgumentError("SparseSlice: unsupported dtype"));
    ctx->set_output(2, Tensor::FromVector<int64_t>(out_dims));
  }
};

class SparseConcatOp : public OpKernel {
 public:
  explicit SparseConcatOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFX_OP_REQUIRES_OK(ctx, ctx->GetAttr("concat_dim", &concat_dim_));
    DFX_OP_REQUIRES_OK(ctx, ctx->GetAttr("N", &n_));
  }

  void Compute(OpKernelContext* ctx) override {
    const int64_t n = n_;
    auto indices = [&](int64_t i) -> const Tensor& { return ctx->input(i); };
    auto values = [&](int64_t i) -> const Tensor& { return ctx->input(n + i); };
    auto shape = [&](int64_t i) -> const Tensor& {
      return ctx->input(2 * n + i);
    };
    for (int64_t i = 0; i < n; ++i) {
      DFX_OP_REQUIRES(ctx, indices(i).dims() == 2,
                      absl::InvalidArgumentError(absl::StrCat(
                          "Input indices should be a matrix but received "
                          "shape ",
                          indices(i).shape().DebugString(), " at position ",
                          i)));
      DFX_OP_REQUIRES(ctx, values(i).dims() == 1,
                      absl::InvalidArgumentError(absl::StrCat(
                          "Input values should be a vector but received shape ",
                          values(i).shape().DebugString(), " at position ",
                          i)));
      DFX_OP_REQUIRES(ctx, shape(i).dims() == 1,
                      absl::InvalidArgumentError(absl::StrCat(
                          "Input shapes should be a vector but received shape ",
                          shape(i).shape().DebugString(), " at position ",
                          i)));
    }
    const int64_t rank = shape(0).NumElements();
    DFX_OP_REQUIRES(ctx, concat_dim_ >= -rank && concat_dim_ < rank,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Concat dimension must be in range [", -rank, ", ",
                        rank, "), got ", concat_dim_)));
    const int64_t cd = concat_dim_ < 0 ? concat_dim_ + rank : concat_dim_;
    const int64_t* dims0 = shape(0).data<int64_t>();
    for (int64_t i = 1; i < n; ++i) {
      DFX_OP_REQUIRES(ctx, shape(i).NumElements() == rank,
                      absl::InvalidArgumentError(absl::StrCat(
                          "Ranks of all input tensors must match: expected ",
                          rank, " but got ", shape(i).NumElements(),
                          " at position ", i)));
      for (int64_t d = 0; d < rank; ++d) {
        const int64_t got = shape(i).data<int64_t>()[d];
        DFX_OP_REQUIRES(ctx, d == cd || got == dims0[d],
                        absl::InvalidArgumentError(absl::StrCat(
                            "Input shapes must match: expected ", dims0[d],
                            " for dimension ", d, " but got ", got,
                            " at position ", i)));
      }
    }
    for (int64_t i = 0; i < n; ++i) {
      DFX_OP_REQUIRES_OK(ctx,
                         CheckSparseTensor(indices(i), values(i), shape(i)));
    }
    // Entries with their inputs' offsets along concat_dim, then sorted
    // row-major as TensorFlow's final Reorder leaves them.
    std::vector<int64_t> all;  // flat indices, rank per entry
    std::vector<std::pair<int64_t, int64_t>> source;  // (input, entry)
    std::vector<int64_t> out_dims(dims0, dims0 + rank);
    out_dims[cd] = 0;
    for (int64_t i = 0; i < n; ++i) {
      const int64_t* in = indices(i).data<int64_t>();
      for (int64_t e = 0; e < indices(i).dim_size(0); ++e) {
        for (int64_t d = 0; d < rank; ++d) {
          all.push_back(in[e * rank + d] + (d == cd ? out_dims[cd] : 0));
        }
        source.emplace_back(i, e);
      }
      out_dims[cd] += shape(i).data<int64_t>()[cd];
    }
    const int64_t total = static_cast<int64_t>(source.size());
    std::vector<int64_t> order(static_cast<size_t>(total));
    for (int64_t k = 0; k < total; ++k) order[k] = k;
    std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) {
      return std::lexicographical_compare(
          all.begin() + x * rank, all.begin() + (x + 1) * rank,
          all.begin() + y * rank, all.begin() + (y + 1) * rank);
    });
    Tensor* out_indices = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({total, rank}),
                                                 &out_indices));
    Tensor* out_values = nullptr;
    DFX_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(1, TensorShape({total}), &out_values));
    int64_t* oi = out_indices->data<int64_t>();
    for (int64_t k = 0; k < total; ++k) {
      std::copy(all.begin() + order[k] * rank,
                all.begin() + (order[k] + 1) * rank, oi + k * rank);
    }
    const bool known = VisitMoveType(out_values->dtype(), [&]<typename E>() {
      E* o = Elements<E>(out_values);
      for (int64_t k = 0; k < total; ++k) {
        const auto& [input, entry] = source[order[k]];
        o[k] = Elements<E>(values(input))[entry];
      }
    });
    DFX_OP_REQUIRES(ctx, known,
                    absl::InvalidArgumentError("SparseConcat: unsupported dtype"));
    ctx->set_output(2, Tensor::FromVector<int64_t>(out_dims));
  }

 private:
  int64_t concat_dim_ = 0;
  int64_t n_ = 0;
};

class SparseSplitOp : public OpKernel {
 public:
  explicit SparseSplitOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFX_OP_REQUIRES_OK(ctx, ctx->GetAttr("num_split", &num_split_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& axis_t = ctx->input(0);
    const Tensor& indices = ctx->input(1);
    const Tensor& values = ctx->input(2);
    const Tensor& shape = ctx->input(3);
    DFX_OP_REQUIRES(ctx, axis_t.dims() == 0,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Input axis should be a scalar but received shape ",
                        axis_t.shape().DebugString())));
    DFX_OP_REQUIRES_OK(ctx, CheckSparseTensor(indices, values, shape));
    const int64_t rank = shape.NumElements();
    int64_t axis = axis_t.data<int64_t>()[0];
    DFX_OP_REQUIRES(ctx, axis >= -rank && axis < rank,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Input axis should be in range [", -rank, ", ", rank,
                        "), got ", axis)));
    if (axis < 0) axis += rank;
    const int64_t* dims = shape.data<int64_t>();
    const int64_t dim = dims[axis];
    DFX_OP_REQUIRES(ctx, num_split_ >= 1 && num_split_ <= dim,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Input num_split should be between 1 and the splitting "
                        "dimension size (",
                        dim, "), got ", num_split_)));
    // Piece p covers [begin[p], begin[p + 1]); the first dim % num_split
    // pieces are one longer.
    const int64_t base = dim / num_split_, extra = dim % num_split_;
    std::vector<int64_t> begin(static_cast<size_t>(num_split_ + 1), 0);
    for (int64_t p = 0; p < num_split_; ++p) {
      begin[p + 1] = begin[p] + base + (p < extra ? 1 : 0);
    }
    const int64_t n = indices.dim_size(0);
    const int64_t* in = indices.data<int64_t>();
    std::vector<std::vector<int64_t>> members(static_cast<size_t>(num_split_));
    for (int64_t i = 0; i < n; ++i) {
      const int64_t v = in[i * rank + axis];
      DFX_OP_REQUIRES(ctx, v >= 0 && v < dim,
                      absl::InvalidArgumentError(absl::StrCat(
                          "Index ", v, " of entry ", i,
                          " is outside the splitting dimension of size ",
                          dim)));
      const int64_t p =
          std::upper_bound(begin.begin(), begin.end(), v) - begin.begin() - 1;
      members[p].push_back(i);
    }
    for (int64_t p = 0; p < num_split_; ++p) {
      const int64_t m = static_cast<int64_t>(members[p].size());
      Tensor* out_indices = nullptr;
      DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(
                                  p, TensorShape({m, rank}), &out_indices));
      int64_t* oi = out_indices->data<int64_t>();
      for (int64_t k = 0; k < m; ++k) {
        std::copy(in + members[p][k] * rank, in + (members[p][k] + 1) * rank,
                  oi + k * rank);
        oi[k * rank + axis] -= begin[p];
      }
      Tensor* out_values = nullptr;
      DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(num_split_ + p,
                                                   TensorShape({m}),
                                                   &out_values));
      const bool known = VisitMoveType(values.dtype(), [&]<typename E>() {
        const E* v = Elements<E>(values);
        E* o = Elements<E>(out_values);
        for (int64_t k = 0; k < m; ++k) o[k] = v[members[p][k]];
      });
      DFX_OP_REQUIRES(ctx, known, absl::InvalidArgumentError(
                                      "SparseSplit: unsupported dtype"));
      std::vector<int64_t> piece(dims, dims + rank);
      piece[axis] = begin[p + 1] - begin[p];
      ctx->set_output(2 * num_split_ + p, Tensor::FromVector<int64_t>(piece));
    }
  }

 private:
  int64_t num_split_ = 1;
};

// ---------------------------------------------------------------------------
// SparseTensorDenseAdd and SparseDenseCwise{Add,Mul,Div}

class SparseTensorDenseAddOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& a_indices = ctx->input(0);
    const Tensor& a_values = ctx->input(1);
    const Tensor& a_shape = ctx->input(2);
    const Tensor& b = ctx->input(3);
    DFX_OP_REQUIRES(ctx, a_indices.dims() == 2,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Input a_indices should be a matrix but received "
                        "shape: ",
                        a_indices.shape().DebugString())));
    DFX_OP_REQUIRES(ctx, a_values.dims() == 1 && a_shape.dims() == 1,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Inputs a_values and a_shape should be vectors but "
                        "received shapes: ",
                        a_values.shape().DebugString(), " and ",
                        a_shape.shape().DebugString())));
    const int64_t rank = a_shape.NumElements();
    DFX_OP_REQUIRES(ctx, rank == b.dims(),
                    absl::InvalidArgumentError(absl::StrCat(
                        "Two operands have different ranks; received: ", rank,
                        " and ", b.dims())));
    for (int64_t d = 0; d < rank; ++d) {
      const int64_t a = IndexAt(a_shape, d);
      DFX_OP_REQUIRES(ctx, a == b.dim_size(static_cast<int>(d)),
                      absl::InvalidArgumentError(absl::StrCat(
                          "Dimension ", d,
                          " does not equal (no broadcasting is supported): "
                          "sparse side ",
                          a, " vs dense side ", b.dim_size(static_cast<int>(d)))));
    }
    const int64_t nnz = a_indices.dim_size(0);
    DFX_OP_REQUIRES(ctx, a_values.dim_size(0) == nnz && a_indices.dim_size(1) == rank,
                    absl::InvalidArgumentError(absl::StrCat(
                        "a_indices of shape ", a_indices.shape().DebugString(),
                        " does not match a_values of shape ",
                        a_values.shape().DebugString(), " and rank ", rank)));
    std::vector<int64_t> offsets(static_cast<size_t>(nnz));
    for (int64_t i = 0; i < nnz; ++i) {
      int64_t offset = 0;
      for (int64_t d = 0; d < rank; ++d) {
        const int64_t v = IndexAt(a_indices, i * rank + d);
        const int64_t size = b.dim_size(static_cast<int>(d));
        DFX_OP_REQUIRES(ctx, v >= 0 && v < size,
                        absl::InvalidArgumentError(absl::StrCat(
                            "Sparse tensor has an invalid index on dimension ",
                            d, ": a_indices(", i, ",", d, ") = ", v,
                            ", dense tensor shape: ",
                            absl::StrJoin(b.shape().dim_sizes(), " "))));
        offset = offset * size + v;
      }
      offsets[i] = offset;
    }
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, b.shape(), &out));
    const bool known = VisitNumberType(b.dtype(), [&]<typename T>() {
      const T* src = b.data<T>();
      T* o = out->data<T>();
      std::copy(src, src + b.NumElements(), o);
      const T* v = a_values.data<T>();
      // In entry order, each add rounded to T as TensorFlow's loop does.
      for (int64_t i = 0; i < nnz; ++i) o[offsets[i]] = T(o[offsets[i]] + v[i]);
    });
    DFX_OP_REQUIRES(ctx, known,
                    absl::InvalidArgumentError(
                        "SparseTensorDenseAdd: unsupported dtype"));
  }
};

enum class CwiseOp { kAdd, kMul, kDiv };

template <CwiseOp kOp>
class SparseDenseCwiseOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& indices = ctx->input(0);
    const Tensor& values = ctx->input(1);
    const Tensor& shape = ctx->input(2);
    const Tensor& dense = ctx->input(3);
    DFX_OP_REQUIRES(ctx, indices.dims() == 2,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Input sp_indices should be a matrix but received "
                        "shape: ",
                        indices.shape().DebugString())));
    DFX_OP_REQUIRES(ctx, values.dims() == 1 && shape.dims() == 1,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Inputs sp_values and sp_shape should be vectors but "
                        "received shapes: ",
                        values.shape().DebugString(), " and ",
                        shape.shape().DebugString())));
    const int64_t nnz = indices.dim_size(0);
    const int64_t rank = shape.NumElements();
    DFX_OP_REQUIRES(ctx, values.dim_size(0) == nnz && indices.dim_size(1) == rank,
                    absl::InvalidArgumentError(absl::StrCat(
                        "sp_indices of shape ", indices.shape().DebugString(),
                        " does not match sp_values of shape ",
                        values.shape().DebugString(), " and rank ", rank)));
    const int64_t* dims = shape.data<int64_t>();
    // dense broadcasts to the sparse shape: dims aligned on the right, each
    // 1 or equal.
    bool compatible = dense.dims() <= rank;
    for (int i = 1; compatible && i <= dense.dims(); ++i) {
      const int64_t d = dense.dim_size(dense.dims() - i);
      compatible = d == 1 || d == dims[rank - i];
    }
    DFX_OP_REQUIRES(
        ctx, compatible,
        absl::InvalidArgumentError(absl::StrCat(
            "SparseDenseBinaryOpShared broadcasts dense to sparse only; got "
            "incompatible shapes: ",
            Bracketed(std::vector<int64_t>(dims, dims + rank)), " vs. ",
            dense.shape().DebugString())));
    // Each entry's position in dense, its index clamped to 0 on broadcast
    // dims; an index outside the sparse shape is an error.
    std::vector<int64_t> at(static_cast<size_t>(nnz));
    const int64_t* in = indices.data<int64_t>();
    const int64_t lead = rank - dense.dims();
    for (int64_t i = 0; i < nnz; ++i) {
      int64_t offset = 0;
      bool ok = true;
      for (int64_t d = 0; d < rank; ++d) {
        const int64_t v = in[i * rank + d];
        ok = ok && v >= 0 && v < dims[d];
        if (d < lead) continue;
        const int64_t size = dense.dim_size(static_cast<int>(d - lead));
        offset = offset * size + (size == 1 ? 0 : v);
      }
      DFX_OP_REQUIRES(ctx, ok,
                      absl::InvalidArgumentError(
                          "Provided indices are out-of-bounds w.r.t. dense "
                          "side with broadcasted shape"));
      at[i] = offset;
    }
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({nnz}), &out));
    absl::Status status;
    const bool known = VisitRealType(values.dtype(), [&]<typename T>() {
      const T* v = values.data<T>();
      const T* dv = dense.data<T>();
      T* o = out->data<T>();
      for (int64_t i = 0; i < nnz; ++i) {
        const T x = v[i], y = dv[at[i]];
        if constexpr (kOp == CwiseOp::kAdd) {
          o[i] = T(x + y);
        } else if constexpr (kOp == CwiseOp::kMul) {
          o[i] = T(x * y);
        } else {
          if constexpr (std::is_integral_v<T>) {
            if (y == T(0)) {
              status = absl::InvalidArgumentError("Integer division by zero");
              return;
            }
          }
          o[i] = T(x / y);
        }
      }
    });
    DFX_OP_REQUIRES_OK(ctx, status);
    DFX_OP_REQUIRES(ctx, known,
                    absl::InvalidArgumentError(
                        "SparseDenseCwise: unsupported dtype"));
  }
};

// ---------------------------------------------------------------------------
// SparseReduceSum and SparseReduceMax (dense outputs) and their *Sparse forms
// (the non-empty cells as a SparseTensor).

template <bool kMax, bool kSparseOutput>
class SparseReduceOp : public OpKernel {
 public:
  explicit SparseReduceOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    DFX_OP_REQUIRES_OK(ctx, ctx->GetAttr("keep_dims", &keep_dims_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& indices = ctx->input(0);
    const Tensor& values = ctx->input(1);
    const Tensor& shape = ctx->input(2);
    const Tensor& axes_t = ctx->input(3);
    DFX_OP_REQUIRES_OK(ctx, CheckSparseTensor(indices, values, shape));
    DFX_OP_REQUIRES(ctx, axes_t.dims() <= 1,
                    absl::InvalidArgumentError(absl::StrCat(
                        "reduction_axes must be a scalar or a vector, got "
                        "shape ",
                        axes_t.shape().DebugString())));
    const int64_t rank = shape.NumElements();
    const int64_t* dims = shape.data<int64_t>();
    std::vector<bool> reduced(static_cast<size_t>(rank), false);
    for (int64_t i = 0; i < axes_t.NumElements(); ++i) {
      int64_t axis = axes_t.data<int32_t>()[i];
      DFX_OP_REQUIRES(ctx, axis >= -rank && axis < rank,
                      absl::InvalidArgumentError(absl::StrCat(
                          "Invalid reduction dimension ", axis,
                          ", for input with ", rank, " dimensions.")));
      reduced[axis < 0 ? axis + rank : axis] = true;
    }
    TensorShape out_shape;
    std::vector<int64_t> kept;  // the dims the output keeps
    for (int64_t d = 0; d < rank; ++d) {
      DFX_OP_REQUIRES(ctx, dims[d] >= 0,
                      absl::InvalidArgumentError(absl::StrCat(
                          "Expected shape dimensions to be non-negative, got ",
                          dims[d])));
      if (!reduced[d]) {
        kept.push_back(d);
        DFX_OP_REQUIRES_OK(ctx, out_shape.AddDim(dims[d]));
      } else if (keep_dims_) {
        DFX_OP_REQUIRES_OK(ctx, out_shape.AddDim(1));
      }
    }
    // Each entry's output cell from its kept coordinates (which must be in
    // the shape; reduced coordinates are not checked, as in TensorFlow).
    const int64_t n = indices.dim_size(0);
    const int64_t* in = indices.data<int64_t>();
    std::vector<int64_t> cell(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      int64_t offset = 0;
      for (int64_t d : kept) {
        const int64_t v = in[i * rank + d];
        DFX_OP_REQUIRES(ctx, v >= 0 && v < dims[d],
                        absl::InvalidArgumentError(absl::StrCat(
                            "indices[", i, "] is out of bounds on dimension ",
                            d, ": ", v, " not in [0, ", dims[d], ")")));
        offset = offset * dims[d] + v;
      }
      cell[i] = offset;
    }
    // Entries in TensorFlow's order: by cell, then by reduced coordinates.
    std::vector<int64_t> order(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) {
      if (cell[x] != cell[y]) return cell[x] < cell[y];
      for (int64_t d = 0; d < rank; ++d) {
        if (!reduced[d]) continue;
        const int64_t a = in[x * rank + d], b = in[y * rank + d];
        if (a != b) return a < b;
      }
      return false;
    });
    // The groups: [group_start[g], group_start[g + 1]) of `order`.
    std::vector<int64_t> group_start;
    for (int64_t k = 0; k < n; ++k) {
      if (k == 0 || cell[order[k]] != cell[order[k - 1]]) group_start.push_back(k);
    }
    const int64_t groups = static_cast<int64_t>(group_start.size());
    group_start.push_back(n);
    Tensor* out = nullptr;
    if constexpr (kSparseOutput) {
      // Each non-empty cell's output coordinates, then its value.
      const int64_t out_rank = out_shape.dims();
      Tensor* out_indices = nullptr;
      DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(
                                  0, TensorShape({groups, out_rank}),
                                  &out_indices));
      int64_t* oi = out_indices->data<int64_t>();
      for (int64_t g = 0; g < groups; ++g) {
        const int64_t first = order[group_start[g]];
        int64_t at = 0;
        for (int64_t d = 0; d < rank; ++d) {
          if (!reduced[d]) {
            oi[g * out_rank + at++] = in[first * rank + d];
          } else if (keep_dims_) {
            oi[g * out_rank + at++] = 0;
          }
        }
      }
      DFX_OP_REQUIRES_OK(
          ctx, ctx->allocate_output(1, TensorShape({groups}), &out));
      ctx->set_output(2, Tensor::FromVector<int64_t>(std::vector<int64_t>(
                             out_shape.dim_sizes().begin(),
                             out_shape.dim_sizes().end())));
    } else {
      DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    }
    auto reduce = [&]<typename T>() {
      T* o = out->data<T>();
      if constexpr (!kSparseOutput) {
        std::fill(o, o + out->NumElements(), T(0));  // cells with no entries
      }
      const T* v = values.data<T>();
      for (int64_t g = 0; g < groups; ++g) {
        const int64_t k = group_start[g];
        T acc = v[order[k]];
        for (int64_t j = k + 1; j < group_start[g + 1]; ++j) {
          if constexpr (kMax) {
            acc = v[order[j]] > acc ? v[order[j]] : acc;
          } else {
            acc = T(acc + v[order[j]]);
          }
        }
        o[kSparseOutput ? g : cell[order[k]]] = acc;
      }
    };
    bool known = false;
    if constexpr (kMax) {
      known = VisitRealType(values.dtype(), reduce);
    } else {
      known = VisitNumberType(values.dtype(), reduce);
    }
    DFX_OP_REQUIRES(ctx, known,
                    absl::InvalidArgumentError("SparseReduce: unsupported dtype"));
  }

 private:
  bool keep_dims_ = false;
};

// ---------------------------------------------------------------------------
// SparseSoftmax and SparseSparseMaximum/Minimum

class SparseSoftmaxOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& indices = ctx->input(0);
    const Tensor& values = ctx->input(1);
    const Tensor& shape = ctx->input(2);
    DFX_OP_REQUIRES(ctx, indices.dims() == 2,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Input sp_indices should be a matrix but received "
                        "shape: ",
                        indices.shape().DebugString())));
    DFX_OP_REQUIRES(ctx, values.dims() == 1,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Input sp_values should be a vector but received "
                        "shape: ",
                        values.shape().DebugString())));
    DFX_OP_REQUIRES(ctx, shape.dims() == 1,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Input sp_shape should be a vector but received "
                        "shape: ",
                        shape.shape().DebugString())));
    const int64_t n = indices.dim_size(0);
    const int64_t rank = indices.dim_size(1);
    DFX_OP_REQUIRES(ctx, values.dim_size(0) == n,
                    absl::InvalidArgumentError(absl::StrCat(
                        "indices and values rows (indexing dimension) must "
                        "match. (indices = ",
                        n, ", values = ", values.dim_size(0), ")")));
    DFX_OP_REQUIRES(ctx, shape.NumElements() >= 2,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Input should have rank >= 2, but received shape: ",
                        absl::StrJoin(std::vector<int64_t>(
                                          shape.data<int64_t>(),
                                          shape.data<int64_t>() +
                                              shape.NumElements()),
                                      " "))));
    DFX_OP_REQUIRES(ctx, rank == shape.NumElements(),
                    absl::InvalidArgumentError(absl::StrCat(
                        "Index rank (", rank, ") and shape rank (",
                        shape.NumElements(), ") do not match")));
    // TensorFlow sorts the entries row-major and writes the output in that
    // order; each softmax runs over one row of the last dim.
    const int64_t* in = indices.data<int64_t>();
    std::vector<int64_t> order(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) {
      return std::lexicographical_compare(in + x * rank, in + (x + 1) * rank,
                                          in + y * rank, in + (y + 1) * rank);
    });
    auto same_group = [&](int64_t x, int64_t y) {
      return std::equal(in + x * rank, in + x * rank + rank - 1, in + y * rank);
    };
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({n}), &out));
    auto run = [&]<typename T>() {
      using A = typename AccumType<T>::type;
      const T* v = values.data<T>();
      T* o = out->data<T>();
      std::vector<A> e;
      for (int64_t k = 0; k < n;) {
        int64_t j = k + 1;
        while (j < n && same_group(order[k], order[j])) ++j;
        A max = A(v[order[k]]);
        for (int64_t i = k + 1; i < j; ++i) max = std::max(max, A(v[order[i]]));
        e.assign(static_cast<size_t>(j - k), A(0));
        A sum = A(0);
        for (int64_t i = k; i < j; ++i) {
          e[i - k] = std::exp(A(v[order[i]]) - max);
          sum += e[i - k];
        }
        for (int64_t i = k; i < j; ++i) o[i] = T(e[i - k] / sum);
        k = j;
      }
    };
    bool known = true;
    switch (values.dtype()) {
      case DT_FLOAT: run.template operator()<float>(); break;
      case DT_DOUBLE: run.template operator()<double>(); break;
      case DT_HALF: run.template operator()<Eigen::half>(); break;
      default: known = false;
    }
    DFX_OP_REQUIRES(ctx, known,
                    absl::InvalidArgumentError("SparseSoftmax: unsupported dtype"));
  }
};

template <bool kMax>
class SparseSparseMinOrMaxOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& a_indices = ctx->input(0);
    const Tensor& a_values = ctx->input(1);
    const Tensor& a_shape = ctx->input(2);
    const Tensor& b_indices = ctx->input(3);
    const Tensor& b_values = ctx->input(4);
    const Tensor& b_shape = ctx->input(5);
    DFX_OP_REQUIRES_OK(ctx, CheckSparseTensor(a_indices, a_values, a_shape));
    DFX_OP_REQUIRES_OK(ctx, CheckSparseTensor(b_indices, b_values, b_shape));
    const int64_t rank = a_shape.NumElements();
    DFX_OP_REQUIRES(ctx, b_shape.NumElements() == rank,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Operands do not have the same ranks; got ", rank,
                        " and ", b_shape.NumElements())));
    for (int64_t d = 0; d < rank; ++d) {
      const int64_t x = a_shape.data<int64_t>()[d];
      const int64_t y = b_shape.data<int64_t>()[d];
      DFX_OP_REQUIRES(ctx, x == y,
                      absl::InvalidArgumentError(absl::StrCat(
                          "Operands' shapes do not match: got ", x, " and ", y,
                          " for dimension ", d)));
    }
    const int64_t na = a_indices.dim_size(0), nb = b_indices.dim_size(0);
    const int64_t* ai = a_indices.data<int64_t>();
    const int64_t* bi = b_indices.data<int64_t>();
    auto compare = [&](int64_t i, int64_t j) {
      for (int64_t d = 0; d < rank; ++d) {
        const int64_t x = ai[i * rank + d], y = bi[j * rank + d];
        if (x != y) return x < y ? -1 : 1;
      }
      return 0;
    };
    // The union of the entries in merge order; a side without the entry
    // counts as 0.
    struct Entry {
      const int64_t* index;
      int64_t a;  // entry of a, or -1
      int64_t b;  // entry of b, or -1
    };
    std::vector<Entry> merged;
    int64_t i = 0, j = 0;
    while (i < na && j < nb) {
      const int c = compare(i, j);
      if (c < 0) {
        merged.push_back({ai + i * rank, i, -1});
        ++i;
      } else if (c > 0) {
        merged.push_back({bi + j * rank, -1, j});
        ++j;
      } else {
        merged.push_back({ai + i * rank, i, j});
        ++i;
        ++j;
      }
    }
    for (; i < na; ++i) merged.push_back({ai + i * rank, i, -1});
    for (; j < nb; ++j) merged.push_back({bi + j * rank, -1, j});
    const int64_t n = static_cast<int64_t>(merged.size());
    Tensor* out_indices = nullptr;
    DFX_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(0, TensorShape({n, rank}), &out_indices));
    Tensor* out_values = nullptr;
    DFX_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(1, TensorShape({n}), &out_values));
    int64_t* oi = out_indices->data<int64_t>();
    for (int64_t k = 0; k < n; ++k) {
      std::copy(merged[k].index, merged[k].index + rank, oi + k * rank);
    }
    const bool known = VisitRealType(a_values.dtype(), [&]<typename T>() {
      const T* av = a_values.data<T>();
      const T* bv = b_values.data<T>();
      T* o = out_values->data<T>();
      for (int64_t k = 0; k < n; ++k) {
        const T x = merged[k].a >= 0 ? av[merged[k].a] : T(0);
        const T y = merged[k].b >= 0 ? bv[merged[k].b] : T(0);
        if constexpr (kMax) {
          o[k] = x < y ? y : x;
        } else {
          o[k] = y < x ? y : x;
        }
      }
    });
    DFX_OP_REQUIRES(ctx, known,
                    absl::InvalidArgumentError(
                        "SparseSparseMinOrMax: unsupported dtype"));
  }
};

// ---------------------------------------------------------------------------
// SparseAddGrad and SparseSliceGrad

class SparseAddGradOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& grad = ctx->input(0);
    const Tensor& a_indices = ctx->input(1);
    const Tensor& b_indices = ctx->input(2);
    const Tensor& sum_indices = ctx->input(3);
    DFX_OP_REQUIRES(ctx, grad.dims() == 1,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Input backprop_val_grad should be a vector but "
                        "received shape: ",
                        grad.shape().DebugString())));
    DFX_OP_REQUIRES(
        ctx,
        a_indices.dims() == 2 && b_indices.dims() == 2 &&
            sum_indices.dims() == 2,
        absl::InvalidArgumentError(absl::StrCat(
            "Input indices should be matrices but received shapes: ",
            a_indices.shape().DebugString(), ", ",
            b_indices.shape().DebugString(), ", ",
            sum_indices.shape().DebugString())));
    const int64_t rank = a_indices.dim_size(1);
    DFX_OP_REQUIRES(
        ctx, b_indices.dim_size(1) == rank && sum_indices.dim_size(1) == rank,
        absl::InvalidArgumentError(absl::StrCat(
            "The densified operands should have the same ndims; for A, B, sum "
            "got: ",
            rank, b_indices.dim_size(1), sum_indices.dim_size(1))));
    const int64_t na = a_indices.dim_size(0), nb = b_indices.dim_size(0);
    const int64_t ns = sum_indices.dim_size(0);
    DFX_OP_REQUIRES(ctx, grad.dim_size(0) == ns,
                    absl::InvalidArgumentError(absl::StrCat(
                        "# elements of backprop_val_grad and # rows of "
                        "sum_indices should match (#nnz of sum): got ",
                        grad.dim_size(0), " and ", ns)));
    const int64_t* ai = a_indices.data<int64_t>();
    const int64_t* bi = b_indices.data<int64_t>();
    const int64_t* si = sum_indices.data<int64_t>();
    auto cmp = [rank](const int64_t* x, const int64_t* y) {
      for (int64_t d = 0; d < rank; ++d) {
        if (x[d] != y[d]) return x[d] < y[d] ? -1 : 1;
      }
      return 0;
    };
    // Which sum entry each operand entry became, walking the three sorted
    // lists together as TensorFlow does; -1: none (dropped by thresh).
    std::vector<int64_t> a_from(static_cast<size_t>(na), -1);
    std::vector<int64_t> b_from(static_cast<size_t>(nb), -1);
    int64_t i = 0, j = 0, k = 0;
    auto match = [&](const int64_t* x, std::vector<int64_t>& from, int64_t at) {
      if (k < ns && cmp(x, si + k * rank) == 0) from[at] = k++;
    };
    while (i < na && j < nb && k < ns) {
      const int c = cmp(ai + i * rank, bi + j * rank);
      if (c < 0) {
        match(ai + i * rank, a_from, i);
        ++i;
      } else if (c > 0) {
        match(bi + j * rank, b_from, j);
        ++j;
      } else {
        if (cmp(ai + i * rank, si + k * rank) == 0) {
          a_from[i] = k;
          b_from[j] = k;
          ++k;
        }
        ++i;
        ++j;
      }
    }
    for (; i < na && k < ns; ++i) match(ai + i * rank, a_from, i);
    for (; j < nb && k < ns; ++j) match(bi + j * rank, b_from, j);
    Tensor* a_grad = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({na}), &a_grad));
    Tensor* b_grad = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({nb}), &b_grad));
    const bool known = VisitNumberType(grad.dtype(), [&]<typename T>() {
      const T* g = grad.data<T>();
      T* oa = a_grad->data<T>();
      T* ob = b_grad->data<T>();
      for (int64_t x = 0; x < na; ++x) oa[x] = a_from[x] < 0 ? T(0) : g[a_from[x]];
      for (int64_t x = 0; x < nb; ++x) ob[x] = b_from[x] < 0 ? T(0) : g[b_from[x]];
    });
    DFX_OP_REQUIRES(ctx, known,
                    absl::InvalidArgumentError("SparseAddGrad: unsupported dtype"));
  }
};

class SparseSliceGradOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& grad = ctx->input(0);
    const Tensor& in_indices = ctx->input(1);
    const Tensor& start = ctx->input(2);
    const Tensor& out_indices = ctx->input(3);
    DFX_OP_REQUIRES(ctx, grad.dims() == 1,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Input backprop_val_grad should be a vector but "
                        "received shape: ",
                        grad.shape().DebugString())));
    DFX_OP_REQUIRES(ctx, in_indices.dims() == 2 && out_indices.dims() == 2,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Input and output indices should be matrices but "
                        "received shapes: ",
                        in_indices.shape().DebugString(), " and ",
                        out_indices.shape().DebugString())));
    DFX_OP_REQUIRES(ctx, start.dims() == 1,
                    absl::InvalidArgumentError(absl::StrCat(
                        "The input_start should be a vector but received "
                        "shape ",
                        start.shape().DebugString())));
    const int64_t rank = in_indices.dim_size(1);
    DFX_OP_REQUIRES(
        ctx, out_indices.dim_size(1) == rank && start.dim_size(0) == rank,
        absl::InvalidArgumentError(absl::StrCat(
            "The input_indices, output_indices, and input_start should have "
            "the same number of dimensions: ",
            rank, ", ", out_indices.dim_size(1), ", ", start.dim_size(0))));
    const int64_t n_out = out_indices.dim_size(0);
    DFX_OP_REQUIRES(ctx, grad.dim_size(0) == n_out,
                    absl::InvalidArgumentError(absl::StrCat(
                        "# elements of backprop_val_grad and # rows of "
                        "output_indices should match (#nnz of sum): got ",
                        grad.dim_size(0), " and ", n_out)));
    const int64_t n_in = in_indices.dim_size(0);
    const int64_t* in = in_indices.data<int64_t>();
    const int64_t* out = out_indices.data<int64_t>();
    const int64_t* st = start.data<int64_t>();
    // Both lists are in the same order: walk them together.
    std::vector<int64_t> from(static_cast<size_t>(n_in), -1);
    int64_t k = 0;
    for (int64_t i = 0; i < n_in && k < n_out; ++i) {
      bool same = true;
      for (int64_t d = 0; d < rank && same; ++d) {
        same = in[i * rank + d] - st[d] == out[k * rank + d];
      }
      if (same) from[i] = k++;
    }
    DFX_OP_REQUIRES(ctx, k == n_out,
                    absl::InternalError(absl::StrCat(
                        "Elements of backprop_val_grad aren't all propagated. "
                        "Num elements:",
                        n_out, ", used: ", k)));
    Tensor* val_grad = nullptr;
    DFX_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(0, TensorShape({n_in}), &val_grad));
    const bool known = VisitNumberType(grad.dtype(), [&]<typename T>() {
      const T* g = grad.data<T>();
      T* o = val_grad->data<T>();
      for (int64_t i = 0; i < n_in; ++i) o[i] = from[i] < 0 ? T(0) : g[from[i]];
    });
    DFX_OP_REQUIRES(ctx, known, absl::InvalidArgumentError(
                                    "SparseSliceGrad: unsupported dtype"));
  }
};

// ---------------------------------------------------------------------------
// SparseAdd

// |v| in the real type R of T.
template <typename T>
auto Magnitude(const T& v) {
  if constexpr (std::is_unsigned_v<T>) {
    return v;
  } else {
    return std::abs(v);
  }
}

class SparseAddOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& a_indices = ctx->input(0);
    const Tensor& a_values = ctx->input(1);
    const Tensor& a_shape = ctx->input(2);
    const Tensor& b_indices = ctx->input(3);
    const Tensor& b_values = ctx->input(4);
    const Tensor& b_shape = ctx->input(5);
    const Tensor& thresh = ctx->input(6);
    DFX_OP_REQUIRES(ctx, a_indices.dims() == 2 && b_indices.dims() == 2,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Input indices should be matrices but received "
                        "shapes: ",
                        a_indices.shape().DebugString(), " and ",
                        b_indices.shape().DebugString())));
    const int64_t a_nnz = a_indices.dim_size(0);
    const int64_t b_nnz = b_indices.dim_size(0);
    const int64_t num_dims = a_indices.dim_size(1);
    DFX_OP_REQUIRES(ctx, b_indices.dim_size(1) == num_dims,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Input indices must have the same dimension, got ",
                        num_dims, " and ", b_indices.dim_size(1))));
    DFX_OP_REQUIRES(ctx, a_values.dims() == 1 && b_values.dims() == 1,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Input values should be vectors but received shapes: ",
                        a_values.shape().DebugString(), " and ",
                        b_values.shape().DebugString())));
    DFX_OP_REQUIRES(
        ctx, a_values.dim_size(0) == a_nnz && b_values.dim_size(0) == b_nnz,
        absl::InvalidArgumentError(absl::StrCat(
            "Expected ", a_nnz, " and ", b_nnz,
            " non-empty input values, got ", a_values.dim_size(0), " and ",
            b_values.dim_size(0))));
    DFX_OP_REQUIRES(ctx, a_shape.dims() == 1 && b_shape.dims() == 1,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Input shapes should be a vector but received shapes ",
                        a_shape.shape().DebugString(), " and ",
                        b_shape.shape().DebugString())));
    const int64_t* as = a_shape.data<int64_t>();
    const int64_t* bs = b_shape.data<int64_t>();
    std::vector<int64_t> av(as, as + a_shape.NumElements());
    std::vector<int64_t> bv(bs, bs + b_shape.NumElements());
    DFX_OP_REQUIRES(ctx, av.size() == bv.size(),
                    absl::InvalidArgumentError(absl::StrCat(
                        "Operands do not have the same ranks; got shapes: ",
                        absl::StrJoin(av, " "), " and ",
                        absl::StrJoin(bv, " "))));
    for (size_t d = 0; d < av.size(); ++d) {
      DFX_OP_REQUIRES(ctx, av[d] == bv[d],
                      absl::InvalidArgumentError(absl::StrCat(
                          "Operands' shapes do not match: got ", av[d],
                          " and ", bv[d], " for dimension ", d)));
    }
    DFX_OP_REQUIRES(ctx, thresh.dims() == 0,
                    absl::InvalidArgumentError(absl::StrCat(
                        "The magnitude threshold must be a scalar: got shape ",
                        thresh.shape().DebugString())));

    const int64_t* ai = a_indices.data<int64_t>();
    const int64_t* bi = b_indices.data<int64_t>();
    // Lexicographic order of a's entry i against b's entry j.
    auto compare = [&](int64_t i, int64_t j) {
      for (int64_t d = 0; d < num_dims; ++d) {
        const int64_t x = ai[i * num_dims + d], y = bi[j * num_dims + d];
        if (x != y) return x < y ? -1 : 1;
      }
      return 0;
    };
    bool known = false;
    auto run = [&]<typename T, typename R>() {
      known = true;
      const T* a = a_values.data<T>();
      const T* b = b_values.data<T>();
      const R limit = thresh.data<R>()[0];
      // (from a?, index) of each output entry, and its value. Entries on
      // one side only are kept whatever their size; a sum is kept when
      // |sum| >= thresh.
      std::vector<std::pair<bool, int64_t>> from;
      std::vector<T> values;
      int64_t i = 0, j = 0;
      while (i < a_nnz && j < b_nnz) {
        const int c = compare(i, j);
        if (c < 0) {
          from.emplace_back(true, i);
          values.push_back(a[i++]);
        } else if (c > 0) {
          from.emplace_back(false, j);
          values.push_back(b[j++]);
        } else {
          const T sum = T(a[i] + b[j]);
          if (limit <= Magnitude(sum)) {
            from.emplace_back(true, i);
            values.push_back(sum);
          }
          ++i;
          ++j;
        }
      }
      for (; i < a_nnz; ++i) {
        from.emplace_back(true, i);
        values.push_back(a[i]);
      }
      for (; j < b_nnz; ++j) {
        from.emplace_back(false, j);
        values.push_back(b[j]);
      }
      const int64_t n = static_cast<int64_t>(values.size());
      Tensor* out_indices = nullptr;
      DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(
                                  0, TensorShape({n, num_dims}), &out_indices));
      int64_t* oi = out_indices->data<int64_t>();
      for (int64_t k = 0; k < n; ++k) {
        const int64_t* src = (from[k].first ? ai : bi) + from[k].second * num_dims;
        std::copy(src, src + num_dims, oi + k * num_dims);
      }
      Tensor* out_values = nullptr;
      DFX_OP_REQUIRES_OK(
          ctx, ctx->allocate_output(1, TensorShape({n}), &out_values));
      std::copy(values.begin(), values.end(), out_values->data<T>());
      ctx->set_output(2, a_shape);
    };
    switch (a_values.dtype()) {
      case DT_FLOAT: run.template operator()<float, float>(); break;
      case DT_DOUBLE: run.template operator()<double, double>(); break;
      case DT_INT8: run.template operator()<int8_t, int8_t>(); break;
      case DT_INT16: run.template operator()<int16_t, int16_t>(); break;
      case DT_INT32: run.template operator()<int32_t, int32_t>(); break;
      case DT_INT64: run.template operator()<int64_t, int64_t>(); break;
      case DT_COMPLEX64:
        run.template operator()<std::complex<float>, float>();
        break;
      case DT_COMPLEX128:
        run.template operator()<std::complex<double>, double>();
        break;
      default: break;
    }
    DFX_OP_REQUIRES(ctx, known,
                    absl::InvalidArgumentError("SparseAdd: unsupported dtype"));
  }
};

}  // namespace

void RegisterSparseTensorKernels(KernelRegistry* registry) {
  const DataTypeVector index_types = {DT_INT32, DT_INT64};
  const DataTypeVector numbers = {
      DT_FLOAT, DT_DOUBLE, DT_HALF,   DT_BFLOAT16, DT_INT8,      DT_INT16,
      DT_INT32, DT_INT64,  DT_UINT8,  DT_UINT16,   DT_UINT32,    DT_UINT64,
      DT_COMPLEX64, DT_COMPLEX128};
  DataTypeVector dense_types = numbers;
  dense_types.push_back(DT_BOOL);
  dense_types.push_back(DT_STRING);
  RegisterKernel<SparseToDenseOp>(registry,
                                  KernelDefBuilder("SparseToDense")
                                      .TypeConstraint("T", dense_types)
                                      .TypeConstraint("Tindices", index_types));
  RegisterKernel<SparseTensorDenseMatMulOp>(
      registry, KernelDefBuilder("SparseTensorDenseMatMul")
                    .TypeConstraint("T", {DT_FLOAT, DT_DOUBLE, DT_HALF,
                                          DT_BFLOAT16, DT_INT32, DT_COMPLEX64,
                                          DT_COMPLEX128})
                    .TypeConstraint("Tindices", index_types));
  RegisterKernel<SparseReshapeOp>(registry, KernelDefBuilder("SparseReshape"));
  RegisterKernel<SparseReorderOp>(registry, KernelDefBuilder("SparseReorder"));
  RegisterKernel<SparseSliceOp>(registry, KernelDefBuilder("SparseSlice"));
  RegisterKernel<SparseConcatOp>(registry, KernelDefBuilder("SparseConcat"));
  RegisterKernel<SparseSplitOp>(registry, KernelDefBuilder("SparseSplit"));
  DataTypeVector dense_add_types = numbers;
  RegisterKernel<SparseTensorDenseAddOp>(
      registry, KernelDefBuilder("SparseTensorDenseAdd")
                    .TypeConstraint("T", dense_add_types)
                    .TypeConstraint("Tindices", index_types));
  const DataTypeVector reals = {DT_FLOAT, DT_DOUBLE, DT_HALF,   DT_BFLOAT16,
                                DT_INT8,  DT_INT16,  DT_INT32,  DT_INT64,
                                DT_UINT8, DT_UINT16, DT_UINT32, DT_UINT64};
  RegisterKernel<SparseAddGradOp>(
      registry, KernelDefBuilder("SparseAddGrad").TypeConstraint(
                    "T", {DT_FLOAT, DT_DOUBLE, DT_INT8, DT_INT16, DT_INT32,
                          DT_INT64, DT_COMPLEX64, DT_COMPLEX128}));
  RegisterKernel<SparseSliceGradOp>(
      registry, KernelDefBuilder("SparseSliceGrad").TypeConstraint("T", numbers));
  RegisterKernel<SparseSoftmaxOp>(
      registry, KernelDefBuilder("SparseSoftmax")
                    .TypeConstraint("T", {DT_HALF, DT_FLOAT, DT_DOUBLE}));
  RegisterKernel<SparseSparseMinOrMaxOp<true>>(
      registry,
      KernelDefBuilder("SparseSparseMaximum").TypeConstraint("T", reals));
  RegisterKernel<SparseSparseMinOrMaxOp<false>>(
      registry,
      KernelDefBuilder("SparseSparseMinimum").TypeConstraint("T", reals));
  RegisterKernel<SparseReduceOp<false, false>>(
      registry, KernelDefBuilder("SparseReduceSum").TypeConstraint("T", numbers));
  RegisterKernel<SparseReduceOp<true, false>>(
      registry, KernelDefBuilder("SparseReduceMax").TypeConstraint("T", reals));
  RegisterKernel<SparseReduceOp<false, true>>(
      registry,
      KernelDefBuilder("SparseReduceSumSparse").TypeConstraint("T", numbers));
  RegisterKernel<SparseReduceOp<true, true>>(
      registry,
      KernelDefBuilder("SparseReduceMaxSparse").TypeConstraint("T", reals));
  RegisterKernel<SparseDenseCwiseOp<CwiseOp::kAdd>>(
      registry,
      KernelDefBuilder("SparseDenseCwiseAdd").TypeConstraint("T", reals));
  RegisterKernel<SparseDenseCwiseOp<CwiseOp::kMul>>(
      registry,
      KernelDefBuilder("SparseDenseCwiseMul").TypeConstraint("T", reals));
  RegisterKernel<SparseDenseCwiseOp<CwiseOp::kDiv>>(
      registry,
      KernelDefBuilder("SparseDenseCwiseDiv").TypeConstraint("T", reals));
  RegisterKernel<SparseAddOp>(
      registry, KernelDefBuilder("SparseAdd").TypeConstraint(
                    "T", {DT_FLOAT, DT_DOUBLE, DT_INT8, DT_INT16, DT_INT32,
                          DT_INT64, DT_COMPLEX64, DT_COMPLEX128}));
  RegisterKernel<FillEmptyRowsOp<false>>(
      registry,
      KernelDefBuilder("SparseFillEmptyRows").TypeConstraint("T", dense_types));
  RegisterKernel<FillEmptyRowsOp<true>>(
      registry,
      KernelDefBuilder("RaggedFillEmptyRows").TypeConstraint("T", dense_types));
  RegisterKernel<SparseFillEmptyRowsGradOp>(
      registry,
      KernelDefBuilder("SparseFillEmptyRowsGrad").TypeConstraint("T", numbers));
  RegisterKernel<SparseFillEmptyRowsGradOp>(
      registry,
      KernelDefBuilder("RaggedFillEmptyRowsGrad").TypeConstraint("T", numbers));
}

}  // namespace dfx::sparse_internal

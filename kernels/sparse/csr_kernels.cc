// The CSR sparse matrix variant (csr_matrix.h) and the kernels that need no
// Eigen sparse code: DenseToCSRSparseMatrix, SparseTensorToCSRSparseMatrix,
// CSRSparseMatrixToDense, CSRSparseMatrixToSparseTensor,
// CSRSparseMatrixComponents, SparseMatrixNNZ, SparseMatrixTranspose and
// SparseMatrixMatMul (sparse times dense), for float, double, complex64 and
// complex128 as TensorFlow 2.21's CPU kernels serve them.
//
// TensorFlow builds a matrix from COO indices by counting entries per row
// and copying the column indices in the order given: it assumes row-major
// order and does not check it. dfx does the same, so an unsorted rank-2
// input gives TensorFlow's (scrambled) matrix; unsorted batch indices,
// which give TensorFlow a matrix whose pointers disagree, are
// InvalidArgument here.
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "graph/types.h"
#include "kernels/map/tensor_map.h"
#include "kernels/sparse/csr_matrix.h"

namespace dfx {

namespace {

constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();

bool IsCsrType(DataType t) {
  return t == DT_FLOAT || t == DT_DOUBLE || t == DT_COMPLEX64 ||
         t == DT_COMPLEX128;
}

std::string ShapeString(const Tensor& t) { return t.shape().DebugString(); }

absl::Status Malformed(const std::string& what) {
  return absl::InvalidArgumentError(
      absl::StrCat("CSRSparseMatrix::Validate: ", what));
}

// TensorFlow's ValidateTypesAndShapes, with its messages.
absl::Status CheckTypesAndShapes(DataType dtype, const Tensor& dense_shape,
                                 const Tensor& batch_pointers,
                                 const Tensor& row_pointers,
                                 const Tensor& col_indices,
                                 const Tensor& values) {
  if (!IsCsrType(dtype)) {
    return Malformed(absl::StrCat("dtype = ", DataTypeString(dtype),
                                  " not in {float32, float64, complex64, "
                                  "complex128}"));
  }
  if (dense_shape.dtype() != DT_INT64) {
    return Malformed(absl::StrCat(
        "dense_shape.dtype() = ", DataTypeString(dense_shape.dtype()),
        " != int64"));
  }
  if (dense_shape.dims() != 1) {
    return Malformed(
        absl::StrCat("dense_shape should be a vector, but saw tensor: ",
                     dense_shape.DebugString()));
  }
  const int64_t rank = dense_shape.dim_size(0);
  if (rank < 2 || rank > 3) {
    return Malformed(
        absl::StrCat("dense_shape should be a 2- or 3- vector, but saw: ",
                     dense_shape.SummarizeValue(5)));
  }
  const int64_t* shape = dense_shape.data<int64_t>();
  const int64_t batch_size = rank == 2 ? 1 : shape[0];
  if (batch_pointers.dtype() != DT_INT32) {
    return Malformed(absl::StrCat(
        "batch_pointers.dtype() = ", DataTypeString(batch_pointers.dtype()),
        " != int32"));
  }
  if (batch_pointers.dims() != 1) {
    return Malformed(absl::StrCat("batch_indices is not a vector, saw shape: ",
                                  ShapeString(batch_pointers)));
  }
  if (batch_size != batch_pointers.NumElements() - 1) {
    return Malformed(absl::StrCat("dense_shape is ",
                                  dense_shape.SummarizeValue(5),
                                  " but batch pointers implies batch size is ",
                                  batch_pointers.NumElements() - 1));
  }
  if (row_pointers.dtype() != DT_INT32) {
    return Malformed(absl::StrCat(
        "row_indices.dtype() = ", DataTypeString(row_pointers.dtype()),
        " != int32"));
  }
  if (row_pointers.dims() != 1) {
    return Malformed(absl::StrCat("row_indices is not a vector, saw shape: ",
                                  ShapeString(row_pointers)));
  }
  if (col_indices.dtype() != DT_INT32) {
    return Malformed(absl::StrCat(
        "col_indices.dtype() = ", DataTypeString(col_indices.dtype()),
        " != int32"));
  }
  if (col_indices.dims() != 1) {
    return Malformed(absl::StrCat("col_indices is not a vector, saw shape: ",
                                  ShapeString(col_indices)));
  }
  if (values.dtype() != dtype) {
    return Malformed(
        absl::StrCat("values.dtype() = ", DataTypeString(values.dtype()),
                     " != dtype = ", DataTypeString(dtype)));
  }
  if (values.dims() != 1) {
    return Malformed(absl::StrCat("values is not a vector, saw shape: ",
                                  ShapeString(values)));
  }
  if (col_indices.dim_size(0) != values.dim_size(0)) {
    return Malformed(
        absl::StrCat("size(col_indices) = ", col_indices.dim_size(0),
                     " != size(values) = ", values.dim_size(0)));
  }
  return absl::OkStatus();
}

// What TensorFlow leaves to trust: that every pointer and column index is
// in range, so that no kernel reads outside the components.
absl::Status CheckPointers(const Tensor& dense_shape,
                           const Tensor& batch_pointers,
                           const Tensor& row_pointers,
                           const Tensor& col_indices) {
  const int64_t rank = dense_shape.NumElements();
  const int64_t* shape = dense_shape.data<int64_t>();
  for (int64_t i = 0; i < rank; ++i) {
    if (shape[i] < 0) {
      return Malformed(absl::StrCat("dense_shape has a negative dimension: ",
                                    dense_shape.SummarizeValue(5)));
    }
  }
  const int64_t batch = rank == 2 ? 1 : shape[0];
  const int64_t rows = shape[rank - 2];
  const int64_t cols = shape[rank - 1];
  if (rows >= kInt32Max || batch >= kInt32Max ||
      (rows + 1) * batch > kInt32Max ||
      row_pointers.NumElements() != batch * (rows + 1)) {
    return Malformed(
        absl::StrCat("row_pointers has ", row_pointers.NumElements(),
                     " elements, dense_shape ", dense_shape.SummarizeValue(5),
                     " needs ", batch * (rows + 1)));
  }
  const int32_t* bp = batch_pointers.data<int32_t>();
  const int32_t* rp = row_pointers.data<int32_t>();
  const int32_t* ci = col_indices.data<int32_t>();
  const int64_t nnz = col_indices.NumElements();
  if (bp[0] != 0 || bp[batch] != nnz) {
    return Malformed(
        absl::StrCat("batch_pointers must run from 0 to nnz = ", nnz, ", saw ",
                     batch_pointers.SummarizeValue(10)));
  }
  for (int64_t b = 0; b < batch; ++b) {
    if (bp[b + 1] < bp[b]) {
      return Malformed(absl::StrCat("batch_pointers decrease: ",
                                    batch_pointers.SummarizeValue(10)));
    }
    const int32_t* r = rp + b * (rows + 1);
    const int32_t batch_nnz = bp[b + 1] - bp[b];
    if (r[0] != 0 || r[rows] != batch_nnz) {
      return Malformed(absl::StrCat("row_pointers of batch ", b,
                                    " must run from 0 to ", batch_nnz));
    }
    for (int64_t i = 0; i < rows; ++i) {
      if (r[i + 1] < r[i]) {
        return Malformed(
            absl::StrCat("row_pointers of batch ", b, " decrease at row ", i));
      }
    }
    for (int32_t k = bp[b]; k < bp[b + 1]; ++k) {
      if (ci[k] < 0 || ci[k] >= cols) {
        return Malformed(absl::StrCat("column index ", ci[k], " of batch ", b,
                                      " is not in [0, ", cols, ")"));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<CsrSparseMatrix> CsrSparseMatrix::Create(
    DataType dtype, Tensor dense_shape, Tensor batch_pointers,
    Tensor row_pointers, Tensor col_indices, Tensor values) {
  DFX_RETURN_IF_ERROR(CheckTypesAndShapes(dtype, dense_shape, batch_pointers,
                                          row_pointers, col_indices, values));
  DFX_RETURN_IF_ERROR(
      CheckPointers(dense_shape, batch_pointers, row_pointers, col_indices));
  CsrSparseMatrix m;
  m.dtype_ = dtype;
  m.dense_shape_ = std::move(dense_shape);
  m.batch_pointers_ = std::move(batch_pointers);
  m.row_pointers_ = std::move(row_pointers);
  m.col_indices_ = std::move(col_indices);
  m.values_ = std::move(values);
  return m;
}

void CsrSparseMatrix::Encode(VariantTensorDataProto* proto) const {
  // TensorFlow stores its struct Metadata {bool validated; DataType dtype;}
  // by its bytes: the bool, three bytes of padding, the enum (little-endian
  // int32).
  char metadata[8] = {1, 0, 0, 0, 0, 0, 0, 0};
  const int32_t type = static_cast<int32_t>(dtype_);
  std::memcpy(metadata + 4, &type, sizeof(type));
  proto->set_metadata(std::string(metadata, sizeof(metadata)));
  dense_shape_.AsProtoField(proto->add_tensors());
  batch_pointers_.AsProtoField(proto->add_tensors());
  row_pointers_.AsProtoField(proto->add_tensors());
  col_indices_.AsProtoField(proto->add_tensors());
  values_.AsProtoField(proto->add_tensors());
}

std::string CsrSparseMatrix::DebugString() const {
  return absl::StrCat("CSRSparseMatrix<", DataTypeString(dtype_), " ",
                      dense_shape_.SummarizeValue(3), ", nnz ",
                      col_indices_.NumElements(), ">");
}

absl::StatusOr<CsrSparseMatrix> CsrSparseMatrix::Decode(
    const VariantTensorDataProto& proto) {
  if (proto.metadata().size() != 8 || proto.tensors_size() != 5) {
    return absl::InvalidArgumentError(absl::StrCat(
        "malformed ", kTypeName, " variant: metadata of ",
        proto.metadata().size(), " bytes and ", proto.tensors_size(),
        " tensors, want 8 bytes and 5 tensors"));
  }
  if (proto.metadata()[0] == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("malformed ", kTypeName, " variant: not validated"));
  }
  int32_t type = 0;
  std::memcpy(&type, proto.metadata().data() + 4, sizeof(type));
  Tensor t[5];
  for (int i = 0; i < 5; ++i) {
    DFX_ASSIGN_OR_RETURN(t[i], Tensor::FromProto(proto.tensors(i)));
  }
  return Create(static_cast<DataType>(type), std::move(t[0]), std::move(t[1]),
                std::move(t[2]), std::move(t[3]), std::move(t[4]));
}

absl::StatusOr<CsrInput> GetCsrInput(OpKernelContext* ctx, int index) {
  const Tensor& t = ctx->input(index);
  CsrInput in;
  if (t.dims() == 0 && t.IsInitialized()) {
    DFX_ASSIGN_OR_RETURN(in.matrix, GetVariantValue<CsrSparseMatrix>(
                                        t.scalar<Variant>(), &in.holder));
  }
  if (in.matrix == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("Could not retrieve Variant input ", index));
  }
  // TensorFlow's CSRSparseMatrix::valid(): a batch of no matrices has no
  // row pointers, and no kernel takes it.
  if (in.matrix->row_pointers().NumElements() == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("Variant input ", index, " is not valid."));
  }
  return in;
}

absl::Status CheckCsrType(const CsrSparseMatrix& m, DataType want) {
  if (m.dtype() == want) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("Asked for a CSRSparseMatrix of type ", DataTypeString(want),
                   " but saw dtype: ", DataTypeString(m.dtype())));
}

absl::Status SetCsrOutput(OpKernelContext* ctx, int index, CsrSparseMatrix m) {
  Tensor* out = nullptr;
  DFX_RETURN_IF_ERROR(ctx->allocate_output(index, TensorShape(), &out));
  out->scalar<Variant>() = Variant::Make<CsrSparseMatrix>(std::move(m));
  return absl::OkStatus();
}

Tensor CsrDenseShape(absl::Span<const int64_t> dims) {
  return Tensor::FromVector<int64_t>(dims);
}

namespace {

template <typename T>
T Conj(T x) {
  return x;
}
template <typename R>
std::complex<R> Conj(std::complex<R> x) {
  return std::conj(x);
}

// The matrix TensorFlow's SparseTensorToCSRSparseMatrixCPUFunctor builds
// from COO `indices` ([nnz, rank], in range) and `values`.
absl::StatusOr<CsrSparseMatrix> FromCoo(DataType dtype,
                                        absl::Span<const int64_t> dims,
                                        const int64_t* indices, int64_t nnz,
                                        Tensor values) {
  const int rank = static_cast<int>(dims.size());
  const int64_t batch = rank == 2 ? 1 : dims[0];
  const int64_t rows = dims[rank - 2];
  if (batch >= kInt32Max || rows >= kInt32Max || nnz > kInt32Max ||
      (rows + 1) * batch > kInt32Max) {
    return absl::InvalidArgumentError(absl::StrCat(
        "The CSR matrix of dense shape [", absl::StrJoin(dims, ","), "] with ",
        nnz, " entries does not fit int32 pointers"));
  }
  Tensor batch_ptr(DT_INT32, TensorShape({batch + 1}));
  Tensor row_ptr(DT_INT32, TensorShape({batch * (rows + 1)}));
  Tensor col_ind(DT_INT32, TensorShape({nnz}));
  int32_t* bp = batch_ptr.data<int32_t>();
  int32_t* rp = row_ptr.data<int32_t>();
  int32_t* ci = col_ind.data<int32_t>();
  std::fill(rp, rp + batch * (rows + 1), 0);
  int64_t prev_batch = -1;
  if (rank == 2) {
    bp[0] = 0;
    prev_batch = 0;
    for (int64_t i = 0; i < nnz; ++i) {
      ++rp[indices[2 * i] + 1];
      ci[i] = static_cast<int32_t>(indices[2 * i + 1]);
    }
  } else {
    for (int64_t i = 0; i < nnz; ++i) {
      const int64_t b = indices[3 * i];
      ++rp[b * (rows + 1) + indices[3 * i + 1] + 1];
      ci[i] = static_cast<int32_t>(indices[3 * i + 2]);
      for (; prev_batch < b; ++prev_batch) {
        bp[prev_batch + 1] = static_cast<int32_t>(i);
      }
    }
  }
  for (; prev_batch < batch; ++prev_batch) {
    bp[prev_batch + 1] = static_cast<int32_t>(nnz);
  }
  for (int64_t b = 0; b < batch; ++b) {
    int32_t* r = rp + b * (rows + 1);
    for (int64_t i = 0; i < rows; ++i) r[i + 1] += r[i];
  }
  absl::StatusOr<CsrSparseMatrix> m = CsrSparseMatrix::Create(
      dtype, CsrDenseShape(dims), std::move(batch_ptr), std::move(row_ptr),
      std::move(col_ind), std::move(values));
  if (!m.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("indices are not in row-major order (batches ascending): ",
                     m.status().message()));
  }
  return m;
}

// The row-major offset of index row `i` of `indices` in a tensor of shape
// `dims`, or InvalidArgument (GatherNd's message) when out of range.
absl::StatusOr<int64_t> DenseOffset(const int64_t* indices, int64_t i,
                                    absl::Span<const int64_t> dims,
                                    const TensorShape& shape) {
  const int rank = static_cast<int>(dims.size());
  const int64_t* ix = indices + i * rank;
  int64_t offset = 0;
  for (int d = 0; d < rank; ++d) {
    if (ix[d] < 0 || ix[d] >= dims[d]) {
      return absl::InvalidArgumentError(absl::StrCat(
          "indices[", i, "] = [", absl::StrJoin(ix, ix + rank, ", "),
          "] does not index into param shape ", shape.DebugString()));
    }
    offset = offset * dims[d] + ix[d];
  }
  return offset;
}

template <typename T>
class DenseToCsrOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& params = ctx->input(0);
    const Tensor& indices = ctx->input(1);
    const int rank = params.dims();
    DFX_OP_REQUIRES(ctx, rank == 2 || rank == 3,
                    absl::InvalidArgumentError(absl::StrCat(
                        "params must have rank == 2 or 3; but saw shape: ",
                        params.shape().DebugString())));
    DFX_OP_REQUIRES(ctx, indices.dims() == 2,
                    absl::InvalidArgumentError(absl::StrCat(
                        "indices must be a matrix, but saw shape: ",
                        indices.shape().DebugString())));
    DFX_OP_REQUIRES(ctx, indices.dim_size(1) == rank,
                    absl::InvalidArgumentError(absl::StrCat(
                        "indices.shape[1] must be equal to the rank of "
                        "params, but saw: ",
                        indices.dim_size(1), " vs. ", rank)));
    const int64_t nnz = indices.dim_size(0);
    const auto dims = params.shape().dim_sizes();
    const int64_t* ix = indices.data<int64_t>();
    Tensor values(DataTypeToEnum<T>::value, TensorShape({nnz}));
    const T* in = params.data<T>();
    T* out = values.data<T>();
    for (int64_t i = 0; i < nnz; ++i) {
      absl::StatusOr<int64_t> offset = DenseOffset(ix, i, dims, params.shape());
      DFX_OP_REQUIRES_OK(ctx, offset.status());
      out[i] = in[*offset];
    }
    absl::StatusOr<CsrSparseMatrix> m =
        FromCoo(DataTypeToEnum<T>::value, dims, ix, nnz, std::move(values));
    DFX_OP_REQUIRES_OK(ctx, m.status());
    DFX_OP_REQUIRES_OK(ctx, SetCsrOutput(ctx, 0, *std::move(m)));
  }
};

template <typename T>
class SparseTensorToCsrOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& indices = ctx->input(0);
    const Tensor& values = ctx->input(1);
    const Tensor& shape = ctx->input(2);
    DFX_OP_REQUIRES_OK(ctx, Validate(indices, values, shape));
    const int64_t nnz = indices.dim_size(0);
    const auto dims = shape.span<int64_t>();
    const int64_t* ix = indices.data<int64_t>();
    absl::StatusOr<CsrSparseMatrix> m =
        FromCoo(DataTypeToEnum<T>::value, dims, ix, nnz, values);
    DFX_OP_REQUIRES_OK(ctx, m.status());
    DFX_OP_REQUIRES_OK(ctx, SetCsrOutput(ctx, 0, *std::move(m)));
  }

 private:
  // TensorFlow's sparse_utils::ValidateSparseTensor (unordered indices,
  // each in bounds), then its rank check.
  static absl::Status Validate(const Tensor& indices, const Tensor& values,
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
    const int64_t nnz = indices.dim_size(0);
    const int64_t rank = indices.dim_size(1);
    if (nnz != values.dim_size(0)) {
      return absl::InvalidArgumentError(
          absl::StrCat("Number of elements in indices (", nnz, ") and values (",
                       values.dim_size(0), ") do not match"));
    }
    if (rank != shape.dim_size(0)) {
      return absl::InvalidArgumentError(
          absl::StrCat("Index rank (", rank, ") and shape rank (",
                       shape.dim_size(0), ") do not match"));
    }
    const int64_t* dims = shape.data<int64_t>();
    const int64_t* ix = indices.data<int64_t>();
    for (int64_t i = 0; i < nnz; ++i) {
      for (int64_t d = 0; d < rank; ++d) {
        const int64_t v = ix[i * rank + d];
        if (v < 0 || v >= dims[d]) {
          return absl::InvalidArgumentError(absl::StrCat(
              "Sparse index tuple [",
              absl::StrJoin(ix + i * rank, ix + (i + 1) * rank, ","),
              "] is out of bounds"));
        }
      }
    }
    if (rank != 2 && rank != 3) {
      return absl::InvalidArgumentError(absl::StrCat(
          "SparseTensor must have rank 2 or 3; but indices has rank: ", rank));
    }
    for (int64_t d = 0; d < rank; ++d) {
      if (dims[d] < 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("Dimension ", dims[d], " must be >= 0"));
      }
    }
    return absl::OkStatus();
  }
};

template <typename T>
class CsrToDenseOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<CsrInput> in = GetCsrInput(ctx, 0);
    DFX_OP_REQUIRES_OK(ctx, in.status());
    const CsrSparseMatrix& m = *in->matrix;
    DFX_OP_REQUIRES_OK(ctx, CheckCsrType(m, DataTypeToEnum<T>::value));
    absl::StatusOr<TensorShape> shape =
        TensorShape::Build(m.dense_shape().span<int64_t>());
    DFX_OP_REQUIRES_OK(ctx, shape.status());
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &out));
    T* dense = out->data<T>();
    std::fill(dense, dense + out->NumElements(), T(0));
    const int64_t rows = m.rows(), cols = m.cols();
    for (int64_t b = 0; b < m.batch_size(); ++b) {
      const int32_t* rp = m.RowPtr(b);
      const int32_t* ci = m.ColInd(b);
      const T* v = m.Values<T>(b);
      T* d = dense + b * rows * cols;
      for (int64_t r = 0; r < rows; ++r) {
        for (int32_t k = rp[r]; k < rp[r + 1]; ++k) d[r * cols + ci[k]] = v[k];
      }
    }
  }
};

template <typename T>
class CsrToSparseTensorOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<CsrInput> in = GetCsrInput(ctx, 0);
    DFX_OP_REQUIRES_OK(ctx, in.status());
    const CsrSparseMatrix& m = *in->matrix;
    DFX_OP_REQUIRES(ctx, m.dtype() == DataTypeToEnum<T>::value,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Expected a CSRSparseMatrix of type ",
                        DataTypeString(DataTypeToEnum<T>::value),
                        " but saw type: ", DataTypeString(m.dtype()))));
    const int rank = m.rank();
    const int64_t nnz = m.total_nnz();
    Tensor* indices = nullptr;
    DFX_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(0, TensorShape({nnz, rank}), &indices));
    int64_t* ix = indices->data<int64_t>();
    for (int64_t b = 0; b < m.batch_size(); ++b) {
      const int32_t* rp = m.RowPtr(b);
      const int32_t* ci = m.ColInd(b);
      for (int64_t r = 0; r < m.rows(); ++r) {
        for (int32_t k = rp[r]; k < rp[r + 1]; ++k) {
          if (rank == 3) *ix++ = b;
          *ix++ = r;
          *ix++ = ci[k];
        }
      }
    }
    ctx->set_output(1, m.values());
    ctx->set_output(2, m.dense_shape());
  }
};

template <typename T>
class CsrComponentsOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<CsrInput> in = GetCsrInput(ctx, 0);
    DFX_OP_REQUIRES_OK(ctx, in.status());
    const CsrSparseMatrix& m = *in->matrix;
    const Tensor& index_t = ctx->input(1);
    DFX_OP_REQUIRES(ctx, m.dtype() == DataTypeToEnum<T>::value,
                    absl::InvalidArgumentError(absl::StrCat(
                        "dtype of input is not equal to 'type': ",
                        DataTypeString(m.dtype()), " vs. ",
                        DataTypeString(DataTypeToEnum<T>::value))));
    DFX_OP_REQUIRES(
        ctx, index_t.dims() == 0,
        absl::InvalidArgumentError(absl::StrCat(
            "index should be a scalar, but saw: ", index_t.DebugString())));
    const int32_t index = index_t.scalar<int32_t>();
    DFX_OP_REQUIRES(
        ctx, index >= 0 && index < m.batch_size(),
        absl::InvalidArgumentError(absl::StrCat(
            "index (", index, ") not in [0, ", m.batch_size(), ")")));
    if (m.rank() == 2) {
      ctx->set_output(0, m.row_pointers());
      ctx->set_output(1, m.col_indices());
      ctx->set_output(2, m.values());
      return;
    }
    const int64_t rows = m.rows();
    const int64_t nnz = m.Nnz(index);
    ctx->set_output(0, m.row_pointers().Slice(index * (rows + 1),
                                              (index + 1) * (rows + 1)));
    ctx->set_output(1, m.col_indices().Slice(m.BatchOffset(index),
                                             m.BatchOffset(index) + nnz));
    ctx->set_output(
        2, m.values().Slice(m.BatchOffset(index), m.BatchOffset(index) + nnz));
  }
};

class SparseMatrixNnzOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<CsrInput> in = GetCsrInput(ctx, 0);
    DFX_OP_REQUIRES_OK(ctx, in.status());
    const CsrSparseMatrix& m = *in->matrix;
    Tensor* out = nullptr;
    const TensorShape shape =
        m.rank() == 2 ? TensorShape() : TensorShape({m.batch_size()});
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    int32_t* nnz = out->data<int32_t>();
    for (int64_t b = 0; b < m.batch_size(); ++b) nnz[b] = m.Nnz(b);
  }
};

// The transpose (conjugate transpose when `conjugate`) of every matrix of
// `m`: a counting sort by column, so each row of the result lists its
// columns in ascending order, as TensorFlow's CPU kernel does.
template <typename T>
CsrSparseMatrix TransposeCsr(const CsrSparseMatrix& m, bool conjugate) {
  const int rank = m.rank();
  const int64_t batch = m.batch_size(), rows = m.rows(), cols = m.cols();
  std::vector<int64_t> dims(m.dense_shape().span<int64_t>().begin(),
                            m.dense_shape().span<int64_t>().end());
  std::swap(dims[rank - 2], dims[rank - 1]);
  const int64_t nnz = m.total_nnz();
  Tensor row_ptr(DT_INT32, TensorShape({batch * (cols + 1)}));
  Tensor col_ind(DT_INT32, TensorShape({nnz}));
  Tensor values(DataTypeToEnum<T>::value, TensorShape({nnz}));
  for (int64_t b = 0; b < batch; ++b) {
    const int32_t* rp = m.RowPtr(b);
    const int32_t* ci = m.ColInd(b);
    const T* v = m.Values<T>(b);
    int32_t* out_rp = row_ptr.data<int32_t>() + b * (cols + 1);
    int32_t* out_ci = col_ind.data<int32_t>() + m.BatchOffset(b);
    T* out_v = values.data<T>() + m.BatchOffset(b);
    std::fill(out_rp, out_rp + cols + 1, 0);
    for (int32_t k = 0; k < m.Nnz(b); ++k) ++out_rp[ci[k] + 1];
    for (int64_t c = 0; c < cols; ++c) out_rp[c + 1] += out_rp[c];
    std::vector<int32_t> next(out_rp, out_rp + cols);
    for (int64_t r = 0; r < rows; ++r) {
      for (int32_t k = rp[r]; k < rp[r + 1]; ++k) {
        const int32_t at = next[ci[k]]++;
        out_ci[at] = static_cast<int32_t>(r);
        out_v[at] = conjugate ? Conj(v[k]) : v[k];
      }
    }
  }
  // The layout is valid by construction.
  return *CsrSparseMatrix::Create(DataTypeToEnum<T>::value, CsrDenseShape(dims),
                                  m.batch_pointers(), std::move(row_ptr),
                                  std::move(col_ind), std::move(values));
}

template <typename T>
class SparseMatrixTransposeOp : public OpKernel {
 public:
  explicit SparseMatrixTransposeOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("conjugate", &conjugate_));
  }
  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<CsrInput> in = GetCsrInput(ctx, 0);
    DFX_OP_REQUIRES_OK(ctx, in.status());
    const CsrSparseMatrix& m = *in->matrix;
    DFX_OP_REQUIRES(ctx, m.dtype() == DataTypeToEnum<T>::value,
                    absl::InvalidArgumentError(absl::StrCat(
                        "dtype of input is not equal to 'type': ",
                        DataTypeString(m.dtype()), " vs. ",
                        DataTypeString(DataTypeToEnum<T>::value))));
    DFX_OP_REQUIRES(
        ctx,
        m.cols() < kInt32Max && (m.cols() + 1) * m.batch_size() <= kInt32Max,
        absl::InvalidArgumentError(
            absl::StrCat("the transpose of a matrix of dense shape ",
                         m.dense_shape().SummarizeValue(3), " needs more than ",
                         kInt32Max, " row pointers")));
    DFX_OP_REQUIRES_OK(ctx,
                       SetCsrOutput(ctx, 0, TransposeCsr<T>(m, conjugate_)));
  }

 private:
  bool conjugate_ = false;
};

// SparseMatrixMatMul: op(a) * op(b) per batch, each entry summed over a's
// row in storage order; then the result transposed and/or conjugated.
template <typename T>
class SparseMatrixMatMulOp : public OpKernel {
 public:
  explicit SparseMatrixMatMulOp(OpKernelConstruction* c) : OpKernel(c) {
    bool adjoint_a = false, adjoint_b = false;
    for (const auto& [name, flag] :
         {std::pair<const char*, bool*>{"transpose_a", &transpose_a_},
          {"transpose_b", &transpose_b_},
          {"adjoint_a", &adjoint_a},
          {"adjoint_b", &adjoint_b},
          {"transpose_output", &transpose_output_},
          {"conjugate_output", &conjugate_output_}}) {
      absl::Status s = c->GetAttr(name, flag);
      if (!s.ok()) {
        c->SetStatus(s);
        return;
      }
    }
    if (adjoint_a && transpose_a_) {
      c->SetStatus(absl::InvalidArgumentError(
          "Only one of adjoint_a and transpose_a may be true."));
      return;
    }
    if (adjoint_b && transpose_b_) {
      c->SetStatus(absl::InvalidArgumentError(
          "Only one of adjoint_b and transpose_b may be true."));
      return;
    }
    conjugate_a_ = adjoint_a;
    conjugate_b_ = adjoint_b;
    transpose_a_ |= adjoint_a;
    transpose_b_ |= adjoint_b;
  }

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<CsrInput> in = GetCsrInput(ctx, 0);
    DFX_OP_REQUIRES_OK(ctx, in.status());
    const CsrSparseMatrix& a = *in->matrix;
    const Tensor& b = ctx->input(1);
    DFX_OP_REQUIRES(
        ctx, a.dtype() == b.dtype(),
        absl::InvalidArgumentError(absl::StrCat(
            "Input types don't match.  a.dtype == ", DataTypeString(a.dtype()),
            " vs. b.dtype == ", DataTypeString(b.dtype()))));
    const int rank = a.rank();
    DFX_OP_REQUIRES(ctx, rank == b.dims(),
                    absl::InvalidArgumentError(
                        absl::StrCat("Ranks of a and b must match, saw: ", rank,
                                     " vs. ", b.dims(), ".")));
    const int64_t batch = rank == 2 ? 1 : b.dim_size(0);
    DFX_OP_REQUIRES(ctx, a.batch_size() == batch,
                    absl::InvalidArgumentError(
                        absl::StrCat("Batch sizes of a and b must match, saw: ",
                                     a.batch_size(), " vs. ", batch, ".")));
    const int64_t a_rows = a.rows(), a_cols = a.cols();
    const int64_t b_rows = b.dim_size(rank - 2), b_cols = b.dim_size(rank - 1);
    const int64_t a_inner = transpose_a_ ? a_rows : a_cols;
    const int64_t b_inner = transpose_b_ ? b_cols : b_rows;
    DFX_OP_REQUIRES(ctx, a_inner == b_inner,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Inner product dimensions of A and B do not agree.  "
                        "Shapes are: [",
                        absl::StrJoin(a.dense_shape().span<int64_t>(), ","),
                        "] vs. ", b.shape().DebugString())));
    const int64_t m = transpose_a_ ? a_cols : a_rows;  // result rows
    const int64_t n = transpose_b_ ? b_rows : b_cols;  // result cols
    const int64_t k = a_inner;
    TensorShape out_shape;
    if (rank == 3) DFX_OP_REQUIRES_OK(ctx, out_shape.AddDim(batch));
    DFX_OP_REQUIRES_OK(ctx, out_shape.AddDim(transpose_output_ ? n : m));
    DFX_OP_REQUIRES_OK(ctx, out_shape.AddDim(transpose_output_ ? m : n));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    std::vector<T> product(m * n);
    std::vector<T> op_b(k * n);
    for (int64_t bi = 0; bi < batch; ++bi) {
      // op(b) as a dense k x n row-major matrix.
      const T* bb = b.data<T>() + bi * b_rows * b_cols;
      for (int64_t i = 0; i < k; ++i) {
        for (int64_t j = 0; j < n; ++j) {
          T v = transpose_b_ ? bb[j * b_cols + i] : bb[i * b_cols + j];
          op_b[i * n + j] = conjugate_b_ ? Conj(v) : v;
        }
      }
      std::fill(product.begin(), product.end(), T(0));
      const int32_t* rp = a.RowPtr(bi);
      const int32_t* ci = a.ColInd(bi);
      const T* av = a.Values<T>(bi);
      for (int64_t r = 0; r < a_rows; ++r) {
        for (int32_t e = rp[r]; e < rp[r + 1]; ++e) {
          const T x = conjugate_a_ ? Conj(av[e]) : av[e];
          // a[r, c] contributes to product row r (or row c of op(a) = a^T).
          const int64_t c = ci[e];
          const int64_t row = transpose_a_ ? c : r;
          const int64_t inner = transpose_a_ ? r : c;
          T* p = product.data() + row * n;
          const T* q = op_b.data() + inner * n;
          for (int64_t j = 0; j < n; ++j) p[j] += x * q[j];
        }
      }
      T* o = out->data<T>() + bi * m * n;
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) {
          T v = product[i * n + j];
          if (conjugate_output_) v = Conj(v);
          if (transpose_output_) {
            o[j * m + i] = v;
          } else {
            o[i * n + j] = v;
          }
        }
      }
    }
  }

 private:
  bool transpose_a_ = false, transpose_b_ = false;
  bool conjugate_a_ = false, conjugate_b_ = false;
  bool transpose_output_ = false, conjugate_output_ = false;
};

template <typename T>
void RegisterTyped(KernelRegistry* r) {
  RegisterKernel<DenseToCsrOp<T>>(
      r, KernelDefBuilder("DenseToCSRSparseMatrix").TypeConstraint<T>("T"));
  RegisterKernel<SparseTensorToCsrOp<T>>(
      r,
      KernelDefBuilder("SparseTensorToCSRSparseMatrix").TypeConstraint<T>("T"));
  RegisterKernel<CsrToDenseOp<T>>(
      r, KernelDefBuilder("CSRSparseMatrixToDense").TypeConstraint<T>("type"));
  RegisterKernel<CsrToSparseTensorOp<T>>(
      r, KernelDefBuilder("CSRSparseMatrixToSparseTensor")
             .TypeConstraint<T>("type"));
  RegisterKernel<CsrComponentsOp<T>>(
      r,
      KernelDefBuilder("CSRSparseMatrixComponents").TypeConstraint<T>("type"));
  RegisterKernel<SparseMatrixTransposeOp<T>>(
      r, KernelDefBuilder("SparseMatrixTranspose").TypeConstraint<T>("type"));
  RegisterKernel<SparseMatrixMatMulOp<T>>(
      r, KernelDefBuilder("SparseMatrixMatMul").TypeConstraint<T>("T"));
}

}  // namespace

void RegisterCsrKernels(KernelRegistry* registry) {
  RegisterTyped<float>(registry);
  RegisterTyped<double>(registry);
  RegisterTyped<std::complex<float>>(registry);
  RegisterTyped<std::complex<double>>(registry);
  RegisterKernel<SparseMatrixNnzOp>(registry,
                                    KernelDefBuilder("SparseMatrixNNZ"));
  RegisterCsrEigenKernels(registry);
}

}  // namespace dfx

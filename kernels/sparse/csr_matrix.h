// CsrSparseMatrix: the value a DT_VARIANT scalar carries between the CSR
// sparse matrix kernels (tf.linalg.experimental.sparse), with TensorFlow's
// type name and wire layout (sparse_matrix.h), so a TensorFlow client can
// fetch one from dfx and feed it back.
#ifndef DFX_KERNELS_SPARSE_CSR_MATRIX_H_
#define DFX_KERNELS_SPARSE_CSR_MATRIX_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "runtime/op_kernel.h"
#include "runtime/tensor.h"
#include "runtime/variant.h"

namespace dfx {

// A rank-2 matrix or a batch of them (rank 3) in compressed sparse row
// form: dense_shape (int64 [rank]), batch_pointers (int32 [batch + 1], the
// offset of each batch's entries), row_pointers (int32 [batch * (rows +
// 1)], offsets within the batch), col_indices (int32 [nnz]) and values
// (dtype [nnz]). Immutable once built; Create and Decode check the layout
// fully, so kernels index it without further checks.
class CsrSparseMatrix final : public VariantValue {
 public:
  static constexpr char kTypeName[] = "tensorflow::CSRSparseMatrix";

  // The matrix of these components, or InvalidArgument with TensorFlow's
  // message (CSRSparseMatrix::Validate) when the dtypes or shapes are
  // wrong, or one saying which pointer or index is out of range.
  static absl::StatusOr<CsrSparseMatrix> Create(
      DataType dtype, Tensor dense_shape, Tensor batch_pointers,
      Tensor row_pointers, Tensor col_indices, Tensor values);

  std::string TypeName() const override { return kTypeName; }
  // TensorFlow's layout: metadata {bool validated; DataType dtype} as its
  // 8 bytes, then the five component tensors in the order above.
  void Encode(VariantTensorDataProto* proto) const override;
  std::string DebugString() const override;
  // Reverses Encode; InvalidArgument when malformed.
  static absl::StatusOr<CsrSparseMatrix> Decode(
      const VariantTensorDataProto& proto);

  DataType dtype() const { return dtype_; }
  int rank() const { return static_cast<int>(dense_shape_.NumElements()); }
  int64_t batch_size() const { return batch_pointers_.NumElements() - 1; }
  int64_t rows() const { return Dim(rank() - 2); }
  int64_t cols() const { return Dim(rank() - 1); }
  int64_t Dim(int i) const { return dense_shape_.data<int64_t>()[i]; }
  int32_t total_nnz() const { return BatchOffset(batch_size()); }
  int32_t BatchOffset(int64_t b) const {
    return batch_pointers_.data<int32_t>()[b];
  }
  int32_t Nnz(int64_t b) const { return BatchOffset(b + 1) - BatchOffset(b); }
  // Batch b's rows + 1 row pointers, its column indices and its values.
  const int32_t* RowPtr(int64_t b) const {
    return row_pointers_.data<int32_t>() + b * (rows() + 1);
  }
  const int32_t* ColInd(int64_t b) const {
    return col_indices_.data<int32_t>() + BatchOffset(b);
  }
  template <typename T>
  const T* Values(int64_t b) const {
    return values_.data<T>() + BatchOffset(b);
  }

  const Tensor& dense_shape() const { return dense_shape_; }
  const Tensor& batch_pointers() const { return batch_pointers_; }
  const Tensor& row_pointers() const { return row_pointers_; }
  const Tensor& col_indices() const { return col_indices_; }
  const Tensor& values() const { return values_; }

 private:
  CsrSparseMatrix() = default;

  DataType dtype_ = DT_INVALID;
  Tensor dense_shape_;
  Tensor batch_pointers_;
  Tensor row_pointers_;
  Tensor col_indices_;
  Tensor values_;
};

// The CSR matrix input `index` of a kernel holds: `matrix` borrows from the
// input, or from `holder` for one decoded from the wire.
struct CsrInput {
  const CsrSparseMatrix* matrix = nullptr;
  std::shared_ptr<const CsrSparseMatrix> holder;
};

// InvalidArgument "Could not retrieve Variant input <index>" (TensorFlow's
// message) when the input is not a scalar CSR matrix.
absl::StatusOr<CsrInput> GetCsrInput(OpKernelContext* ctx, int index);

// InvalidArgument "<prefix>: <dtype of m> vs. <want>" style checks live in
// the kernels; this one is TensorFlow's most common:
// "Asked for a CSRSparseMatrix of type <want> but saw dtype: <have>".
absl::Status CheckCsrType(const CsrSparseMatrix& m, DataType want);

// Sets output `index` to a scalar holding `m`.
absl::Status SetCsrOutput(OpKernelContext* ctx, int index, CsrSparseMatrix m);

// A dense_shape tensor (int64) of `dims`.
Tensor CsrDenseShape(absl::Span<const int64_t> dims);

// The kernels of csr_eigen_kernels.cc (SparseMatrixSparseMatMul,
// SparseMatrixOrderingAMD, SparseMatrixSparseCholesky).
void RegisterCsrEigenKernels(KernelRegistry* registry);

}  // namespace dfx

#endif  // DFX_KERNELS_SPARSE_CSR_MATRIX_H_

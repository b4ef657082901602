// MatrixBandPart and the diagonal ops: MatrixDiag, MatrixDiagPart and
// MatrixSetDiag in their V1 (main diagonal), V2 (a band of diagonals k,
// LEFT_LEFT alignment) and V3 (the `align` attr) forms, with TensorFlow's
// checks and messages.
//
// A band of diagonals lower..upper is stored as [num_diags, max_diag_len]
// per matrix, row m holding diagonal upper - m. A diagonal shorter than
// max_diag_len is padded on the right (left-aligned) or the left
// (right-aligned); `align` names the alignment of the superdiagonals, then
// of the subdiagonals, and the main diagonal is left-aligned when either
// is.
#include "kernels/eigen_util.h"  // first: defines EIGEN_USE_THREADS

#include <algorithm>
#include <complex>
#include <cstdint>
#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/node_def_util.h"
#include "kernels/linalg/matrix_kernels.h"
#include "runtime/op_kernel.h"

namespace dfx::linalg {
namespace {

struct Alignment {
  bool left_super = true;
  bool left_sub = true;
};

// V1 and V2 ops have no `align` attr and use LEFT_LEFT.
absl::Status ReadAlignment(const NodeDef& def, Alignment* a) {
  if (def.attr().find("align") == def.attr().end()) return absl::OkStatus();
  std::string align;
  DFX_RETURN_IF_ERROR(GetNodeAttr(def, "align", &align));
  if (align != "LEFT_LEFT" && align != "LEFT_RIGHT" && align != "RIGHT_LEFT" &&
      align != "RIGHT_RIGHT") {
    return absl::InvalidArgumentError(
        absl::StrCat("Invalid align attr: ", align));
  }
  a->left_super = align == "LEFT_LEFT" || align == "LEFT_RIGHT";
  a->left_sub = align == "LEFT_LEFT" || align == "RIGHT_LEFT";
  return absl::OkStatus();
}

// The length of diagonal d of a rows x cols matrix, and where its values
// start in a row of max_len.
struct DiagPlacement {
  int64_t len;
  int64_t offset;
};

DiagPlacement Place(int64_t d, int64_t max_len, int64_t rows, int64_t cols,
                    const Alignment& a) {
  const bool left = (d >= 0 && a.left_super) || (d <= 0 && a.left_sub);
  const int64_t len =
      std::min(rows + std::min<int64_t>(0, d), cols - std::max<int64_t>(0, d));
  return {len, left ? 0 : max_len - len};
}

// Reads k (a scalar or a vector of one or two int32) into lower, upper.
absl::Status ReadDiagIndex(const Tensor& k, int64_t* lower, int64_t* upper) {
  if (k.dims() > 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("diag_index must be a scalar or vector, received shape: ",
                     k.shape().DebugString()));
  }
  if (k.dims() == 1 && (k.dim_size(0) < 1 || k.dim_size(0) > 2)) {
    return absl::InvalidArgumentError(
        absl::StrCat("diag_index must have only one or two elements, received ",
                     k.dim_size(0), " elements."));
  }
  const int32_t* v = k.data<int32_t>();
  *lower = v[0];
  *upper = k.NumElements() > 1 ? v[1] : v[0];
  return absl::OkStatus();
}

// The bounds TensorFlow puts on k for an input of rows x cols.
absl::Status CheckDiagBounds(int64_t lower, int64_t upper, int64_t rows,
                             int64_t cols) {
  if (!((-rows < lower && lower < cols) || lower == 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("lower_diag_index is out of bound: ", lower,
                     ". It must be between ", -rows, " and ", cols));
  }
  if (!((-rows < upper && upper < cols) || upper == 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("upper_diag_index is out of bound: ", upper,
                     " It must be between ", -rows, " and ", cols));
  }
  if (lower > upper) {
    return absl::InvalidArgumentError(absl::StrCat(
        "lower_diag_index must not be larger than upper_diag_index: ", lower,
        " > ", upper));
  }
  return absl::OkStatus();
}

template <typename T>
absl::Status ReadScalar(const Tensor& t, const char* name, T* value) {
  if (t.NumElements() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        name, " must be a scalar, received shape: ", t.shape().DebugString()));
  }
  *value = t.data<T>()[0];
  return absl::OkStatus();
}

// Shards `batches` matrices of `cost` element copies each.
template <typename Fn>
void ForEachBatch(const Device& device, int64_t batches, int64_t elements,
                  int64_t bytes, Fn&& fn) {
  // ParallelFor splits by units; use matrices as units, costed by their size.
  const Eigen::TensorOpCost cost(static_cast<double>(elements * bytes),
                                 static_cast<double>(elements * bytes),
                                 static_cast<double>(elements));
  if (batches * elements < kParallelEvalThreshold) {
    fn(int64_t{0}, batches);
    return;
  }
  device.eigen_cpu_device().parallelFor(
      batches, cost,
      [&fn](Eigen::Index first, Eigen::Index last) { fn(first, last); });
}

template <typename T>
class MatrixBandPartOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    DFX_OP_REQUIRES(ctx, input.dims() >= 2,
                    absl::InvalidArgumentError(absl::StrCat(
                        "input must be at least 2-dim, received shape: ",
                        input.shape().DebugString())));
    const int64_t rows = input.dim_size(input.dims() - 2);
    const int64_t cols = input.dim_size(input.dims() - 1);
    int64_t num_lower = 0;
    int64_t num_upper = 0;
    DFX_OP_REQUIRES_OK(ctx, ReadBound(ctx->input(1), "num_lower", &num_lower));
    DFX_OP_REQUIRES_OK(ctx, ReadBound(ctx->input(2), "num_upper", &num_upper));
    DFX_OP_REQUIRES(
        ctx, num_lower <= rows,
        absl::InvalidArgumentError(absl::StrCat(
            "num_lower must be negative or less or equal to number of rows (",
            rows, ") got: ", num_lower)));
    DFX_OP_REQUIRES(ctx, num_upper <= cols,
                    absl::InvalidArgumentError(
                        absl::StrCat("num_upper must be negative or less or "
                                     "equal to number of columns (",
                                     cols, ") got: ", num_upper)));
    if ((num_lower < 0 || num_lower >= rows - 1) &&
        (num_upper < 0 || num_upper >= cols - 1)) {
      // The band holds the whole matrix.
      ctx->set_output(0, input);
      return;
    }
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
    if (input.NumElements() == 0) return;
    const int64_t batches = input.NumElements() / (rows * cols);
    const T* in = input.data<T>();
    T* o = out->data<T>();
    ForEachBatch(*ctx->device(), batches, rows * cols, sizeof(T),
                 [&](int64_t first, int64_t last) {
                   for (int64_t b = first; b < last; ++b) {
                     const T* src = in + b * rows * cols;
                     T* dst = o + b * rows * cols;
                     for (int64_t i = 0; i < rows; ++i) {
                       for (int64_t j = 0; j < cols; ++j) {
                         const bool keep =
                             (num_lower < 0 || i - j <= num_lower) &&
                             (num_upper < 0 || j - i <= num_upper);
                         dst[i * cols + j] = keep ? src[i * cols + j] : T(0);
                       }
                     }
                   }
                 });
  }

 private:
  static absl::Status ReadBound(const Tensor& t, const char* name,
                                int64_t* value) {
    if (t.dims() != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          name, " must be scalar, got shape ", t.shape().DebugString()));
    }
    *value =
        t.dtype() == DT_INT32 ? t.data<int32_t>()[0] : t.data<int64_t>()[0];
    return absl::OkStatus();
  }
};

// MatrixDiagPart{,V2,V3}: output [..., num_diags (when > 1), max_diag_len].
template <typename T>
class MatrixDiagPartOp : public OpKernel {
 public:
  explicit MatrixDiagPartOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ReadAlignment(ctx->def(), &align_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    int64_t lower = 0;
    int64_t upper = 0;
    T padding = T(0);
    if (ctx->num_inputs() > 1) {
      DFX_OP_REQUIRES_OK(ctx, ReadDiagIndex(ctx->input(1), &lower, &upper));
      DFX_OP_REQUIRES_OK(
          ctx, ReadScalar<T>(ctx->input(2), "padding_value", &padding));
    }
    DFX_OP_REQUIRES(ctx, input.dims() >= 2,
                    absl::InvalidArgumentError(absl::StrCat(
                        "input must be at least 2-dim, received shape: ",
                        input.shape().DebugString())));
    const int rank = input.dims();
    const int64_t rows = input.dim_size(rank - 2);
    const int64_t cols = input.dim_size(rank - 1);
    DFX_OP_REQUIRES_OK(ctx, CheckDiagBounds(lower, upper, rows, cols));
    TensorShape out_shape;
    for (int i = 0; i < rank - 2; ++i) {
      DFX_OP_REQUIRES_OK(ctx, out_shape.AddDim(input.dim_size(i)));
    }
    const int64_t num_diags = upper - lower + 1;
    if (num_diags > 1) DFX_OP_REQUIRES_OK(ctx, out_shape.AddDim(num_diags));
    const int64_t max_len = std::min(rows + std::min<int64_t>(upper, 0),
                                     cols - std::max<int64_t>(lower, 0));
    DFX_OP_REQUIRES_OK(ctx, out_shape.AddDim(max_len));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;
    const int64_t batches = out->NumElements() / (num_diags * max_len);
    const T* in = input.data<T>();
    T* o = out->data<T>();
    const Alignment a = align_;
    ForEachBatch(*ctx->device(), batches, num_diags * max_len, sizeof(T),
                 [&](int64_t first, int64_t last) {
                   for (int64_t b = first; b < last; ++b) {
                     const T* m = in + b * rows * cols;
                     T* dst = o + b * num_diags * max_len;
                     for (int64_t r = 0; r < num_diags; ++r, dst += max_len) {
                       const int64_t d = upper - r;
                       const DiagPlacement p = Place(d, max_len, rows, cols, a);
                       const int64_t row0 = std::max<int64_t>(0, -d);
                       const int64_t col0 = std::max<int64_t>(0, d);
                       for (int64_t n = 0; n < max_len; ++n) {
                         const int64_t idx = n - p.offset;
                         dst[n] = (idx >= 0 && idx < p.len)
                                      ? m[(row0 + idx) * cols + col0 + idx]
                                      : padding;
                       }
                     }
                   }
                 });
  }

 private:
  Alignment align_;
};

// MatrixDiag{,V2,V3}: builds matrices from a band of diagonals, the rest
// padding_value.
template <typename T>
class MatrixDiagOp : public OpKernel {
 public:
  explicit MatrixDiagOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ReadAlignment(ctx->def(), &align_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& diagonal = ctx->input(0);
    int64_t lower = 0;
    int64_t upper = 0;
    int32_t rows_in = -1;
    int32_t cols_in = -1;
    T padding = T(0);
    if (ctx->num_inputs() > 1) {
      DFX_OP_REQUIRES_OK(ctx, ReadDiagIndex(ctx->input(1), &lower, &upper));
      DFX_OP_REQUIRES_OK(
          ctx, ReadScalar<int32_t>(ctx->input(2), "num_rows", &rows_in));
      DFX_OP_REQUIRES_OK(
          ctx, ReadScalar<int32_t>(ctx->input(3), "num_cols", &cols_in));
      DFX_OP_REQUIRES_OK(
          ctx, ReadScalar<T>(ctx->input(4), "padding_value", &padding));
    }
    const int rank = diagonal.dims();
    DFX_OP_REQUIRES(ctx, rank >= 1,
                    absl::InvalidArgumentError(absl::StrCat(
                        "diagonal must be at least 1-dim, received shape: ",
                        diagonal.shape().DebugString())));
    DFX_OP_REQUIRES(
        ctx, lower <= upper,
        absl::InvalidArgumentError(absl::StrCat(
            "lower_diag_index must not be larger than upper_diag_index: ",
            lower, " > ", upper)));
    const int64_t num_diags = upper - lower + 1;
    DFX_OP_REQUIRES(
        ctx,
        lower == upper ||
            (rank >= 2 && diagonal.dim_size(rank - 2) == num_diags),
        absl::InvalidArgumentError(
            "The number of diagonals provided in the input does not match the "
            "lower_diag_index and upper_diag_index range."));
    const int64_t max_len = diagonal.dim_size(rank - 1);
    const int64_t min_rows = max_len - std::min<int64_t>(upper, 0);
    const int64_t min_cols = max_len + std::max<int64_t>(lower, 0);
    int64_t rows = rows_in;
    int64_t cols = cols_in;
    DFX_OP_REQUIRES(
        ctx, rows == -1 || rows >= min_rows,
        absl::InvalidArgumentError("The number of rows is too small."));
    DFX_OP_REQUIRES(
        ctx, cols == -1 || cols >= min_cols,
        absl::InvalidArgumentError("The number of columns is too small."));
    // Unknown rows and cols make the smallest square; one unknown takes
    // its smallest value.
    if (rows == -1 && cols == -1) {
      rows = std::max(min_rows, min_cols);
      cols = rows;
    } else if (rows == -1) {
      rows = min_rows;
    } else if (cols == -1) {
      cols = min_cols;
    }
    DFX_OP_REQUIRES(ctx, rows == min_rows || cols == min_cols,
                    absl::InvalidArgumentError(
                        "The number of rows or columns is not consistent with "
                        "the specified d_lower, d_upper, and diagonal."));
    const int batch_rank = num_diags == 1 ? rank - 1 : rank - 2;
    TensorShape out_shape;
    for (int i = 0; i < batch_rank; ++i) {
      DFX_OP_REQUIRES_OK(ctx, out_shape.AddDim(diagonal.dim_size(i)));
    }
    DFX_OP_REQUIRES_OK(ctx, out_shape.AddDim(rows));
    DFX_OP_REQUIRES_OK(ctx, out_shape.AddDim(cols));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;
    const int64_t batches = out->NumElements() / (rows * cols);
    const T* in = diagonal.data<T>();
    T* o = out->data<T>();
    const Alignment a = align_;
    ForEachBatch(*ctx->device(), batches, rows * cols, sizeof(T),
                 [&](int64_t first, int64_t last) {
                   for (int64_t b = first; b < last; ++b) {
                     const T* diag = in + b * num_diags * max_len;
                     T* dst = o + b * rows * cols;
                     for (int64_t i = 0; i < rows; ++i) {
                       for (int64_t j = 0; j < cols; ++j) {
                         const int64_t d = j - i;
                         if (d < lower || d > upper) {
                           dst[i * cols + j] = padding;
                           continue;
                         }
                         const DiagPlacement p =
                             Place(d, max_len, rows, cols, a);
                         const int64_t idx = i + std::min<int64_t>(d, 0);
                         dst[i * cols + j] =
                             diag[(upper - d) * max_len + p.offset + idx];
                       }
                     }
                   }
                 });
  }

 private:
  Alignment align_;
};

// MatrixSetDiag{,V2,V3}: the input with a band of diagonals replaced.
template <typename T>
class MatrixSetDiagOp : public OpKernel {
 public:
  explicit MatrixSetDiagOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ReadAlignment(ctx->def(), &align_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& diag = ctx->input(1);
    int64_t lower = 0;
    int64_t upper = 0;
    if (ctx->num_inputs() > 2) {
      const Tensor& k = ctx->input(2);
      DFX_OP_REQUIRES(ctx, k.dims() > 0 || k.NumElements() > 0,
                      absl::InvalidArgumentError(
                          "diag_index must have at least one element"));
      DFX_OP_REQUIRES_OK(ctx, ReadDiagIndex(k, &lower, &upper));
    }
    DFX_OP_REQUIRES(ctx, input.dims() >= 2,
                    absl::InvalidArgumentError(absl::StrCat(
                        "input must be at least 2-dim, received shape: ",
                        input.shape().DebugString())));
    DFX_OP_REQUIRES(ctx, diag.dims() >= 1,
                    absl::InvalidArgumentError(absl::StrCat(
                        "diagonal must be at least 1-dim, received shape: ",
                        diag.shape().DebugString())));
    const int rank = input.dims();
    const int64_t rows = input.dim_size(rank - 2);
    const int64_t cols = input.dim_size(rank - 1);
    if (!((-rows < lower && lower < cols) || lower == 0)) {
      ctx->SetStatus(absl::InvalidArgumentError(
          absl::StrCat("lower_diag_index is out of bound: ", lower,
                       " It must be between ", -rows, " and ", cols)));
      return;
    }
    DFX_OP_REQUIRES_OK(ctx, CheckDiagBounds(lower, upper, rows, cols));
    const int64_t num_diags = upper - lower + 1;
    DFX_OP_REQUIRES(
        ctx,
        lower == upper ||
            (diag.dims() > rank - 2 && diag.dim_size(rank - 2) == num_diags),
        absl::InvalidArgumentError(
            "The number of diagonals provided in `diag` is not consistent "
            "with `lower_diag_index` and `upper_diag_index`"));
    TensorShape expected;
    for (int i = 0; i < rank - 2; ++i) {
      DFX_OP_REQUIRES_OK(ctx, expected.AddDim(input.dim_size(i)));
    }
    if (num_diags > 1) DFX_OP_REQUIRES_OK(ctx, expected.AddDim(num_diags));
    const int64_t max_len = std::min(rows + std::min<int64_t>(upper, 0),
                                     cols - std::max<int64_t>(lower, 0));
    DFX_OP_REQUIRES_OK(ctx, expected.AddDim(max_len));
    DFX_OP_REQUIRES(
        ctx, expected == diag.shape(),
        absl::InvalidArgumentError(absl::StrCat(
            "Either first dimensions of diagonal don't match "
            "input.shape[:-2], or diagonal.shape[:-1] is not equal to the "
            "longests diagonal in range [lower_diag_index:upper_diag_index]."
            "\nInput shape: ",
            input.shape().DebugString(),
            "\nDiagonal shape: ", diag.shape().DebugString(),
            "\nExpected diagonal shape: ", expected.DebugString())));
    if (input.NumElements() == 0) {
      ctx->set_output(0, input);
      return;
    }
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(
                                {0}, 0, input.shape(), &out));
    T* o = out->data<T>();
    const T* in = input.data<T>();
    const T* dv = diag.data<T>();
    const int64_t batches = input.NumElements() / (rows * cols);
    const Alignment a = align_;
    ForEachBatch(*ctx->device(), batches, rows * cols, sizeof(T),
                 [&](int64_t first, int64_t last) {
                   for (int64_t b = first; b < last; ++b) {
                     T* dst = o + b * rows * cols;
                     if (o != in)
                       std::copy_n(in + b * rows * cols, rows * cols, dst);
                     const T* src = dv + b * num_diags * max_len;
                     for (int64_t r = 0; r < num_diags; ++r, src += max_len) {
                       const int64_t d = upper - r;
                       const DiagPlacement p = Place(d, max_len, rows, cols, a);
                       const int64_t row0 = std::max<int64_t>(0, -d);
                       const int64_t col0 = std::max<int64_t>(0, d);
                       for (int64_t n = 0; n < p.len; ++n) {
                         dst[(row0 + n) * cols + col0 + n] = src[p.offset + n];
                       }
                     }
                   }
                 });
  }

 private:
  Alignment align_;
};

template <typename... Ts>
void RegisterAll(KernelRegistry* r) {
  (RegisterKernel<MatrixBandPartOp<Ts>>(
       r, KernelDefBuilder("MatrixBandPart").TypeConstraint<Ts>("T")),
   ...);
  for (const char* name :
       {"MatrixDiag", "MatrixDiagV2", "MatrixDiagV3", "BatchMatrixDiag"}) {
    (RegisterKernel<MatrixDiagOp<Ts>>(
         r, KernelDefBuilder(name).TypeConstraint<Ts>("T")),
     ...);
  }
  for (const char* name :
       {"MatrixDiagPart", "MatrixDiagPartV2", "MatrixDiagPartV3",
        "BatchMatrixDiagPart"}) {
    (RegisterKernel<MatrixDiagPartOp<Ts>>(
         r, KernelDefBuilder(name).TypeConstraint<Ts>("T")),
     ...);
  }
  for (const char* name :
       {"MatrixSetDiag", "MatrixSetDiagV2", "MatrixSetDiagV3",
        "BatchMatrixSetDiag"}) {
    (RegisterKernel<MatrixSetDiagOp<Ts>>(
         r, KernelDefBuilder(name).TypeConstraint<Ts>("T")),
     ...);
  }
}

template <typename... Ts>
void RegisterBatchBandPart(KernelRegistry* r) {
  (RegisterKernel<MatrixBandPartOp<Ts>>(
       r, KernelDefBuilder("BatchMatrixBandPart").TypeConstraint<Ts>("T")),
   ...);
}

}  // namespace

// TensorFlow registers these for its POD types: every number type and bool.
// BatchMatrixDiag, BatchMatrixDiagPart and BatchMatrixSetDiag (deprecated
// at GraphDef version 14) are registered above with the V1 ops;
// BatchMatrixBandPart, like TensorFlow's, serves every type but bool.
void RegisterMatrixDiagKernels(KernelRegistry* registry) {
  RegisterAll<float, double, Eigen::half, Eigen::bfloat16, int8_t, uint8_t,
              int16_t, uint16_t, int32_t, int64_t, uint32_t, uint64_t, bool,
              std::complex<float>, std::complex<double>>(registry);
  RegisterBatchBandPart<float, double, Eigen::half, Eigen::bfloat16, int8_t,
                        uint8_t, int16_t, uint16_t, int32_t, int64_t,
                        uint32_t, uint64_t, std::complex<float>,
                        std::complex<double>>(registry);
}

}  // namespace dfx::linalg

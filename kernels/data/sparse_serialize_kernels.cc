// SerializeSparse and DeserializeSparse: how tf.data carries a SparseTensor
// (a VarLenFeature's value) through a dataset: its indices, values and
// shape as three variants (or three serialized TensorProtos), and back,
// with the leading dimensions of a batch of them folded into the indices.
// SerializeManySparse (each row of a SparseTensor so, for
// from_tensor_slices), and the datasets of SparseTensors:
// SparseTensorSliceDataset (the rows of one) and DenseToSparseBatchDataset
// (a batch of dense elements as one).
#include <algorithm>
#include <atomic>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "kernels/data/dataset.h"
#include "kernels/data/element_util.h"
#include "kernels/data/state_util.h"
#include "kernels/data_flow/data_flow_util.h"
#include "proto/tensor.pb.h"
#include "runtime/resource_mgr.h"
#include "runtime/variant.h"

namespace dfx::data {
namespace {

// A Variant holding one tensor (TensorFlow's "tensorflow::Tensor" kind).
class TensorVariant final : public VariantValue {
 public:
  static constexpr char kTypeName[] = "tensorflow::Tensor";
  explicit TensorVariant(Tensor t) : tensor_(std::move(t)) {}
  std::string TypeName() const override { return kTypeName; }
  void Encode(VariantTensorDataProto* proto) const override {
    tensor_.AsProtoTensorContent(proto->add_tensors());
  }
  std::string DebugString() const override {
    return absl::StrCat("Tensor<", tensor_.DebugString(), ">");
  }
  const Tensor& tensor() const { return tensor_; }

 private:
  const Tensor tensor_;
};

// The tensor in element `i` of a serialized sparse tensor.
absl::StatusOr<Tensor> Component(const Tensor& serialized, int64_t i) {
  if (serialized.dtype() == DT_STRING) {
    TensorProto proto;
    if (!proto.ParseFromString(serialized.data<std::string>()[i])) {
      return absl::InvalidArgumentError(
          "Could not parse serialized sparse tensor component");
    }
    return Tensor::FromProto(proto);
  }
  const Variant& v = serialized.data<Variant>()[i];
  if (const TensorVariant* t = v.get<TensorVariant>()) return t->tensor();
  if (const OpaqueVariant* o = v.get<OpaqueVariant>();
      o != nullptr && o->TypeName() == TensorVariant::kTypeName &&
      o->proto().tensors_size() == 1) {
    return Tensor::FromProto(o->proto().tensors(0));
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "serialized sparse component ", i, " holds ", v.DebugString(),
      ", not a tensor"));
}

// Sets element `i` of `out` (a string or variant tensor) to `t`: a
// serialized TensorProto, or a variant holding it.
void SetComponent(const Tensor& t, Tensor* out, int64_t i) {
  if (out->dtype() == DT_STRING) {
    TensorProto proto;
    t.AsProtoTensorContent(&proto);
    out->data<std::string>()[i] = proto.SerializeAsString();
  } else {
    out->data<Variant>()[i] = Variant::Make<TensorVariant>(t);
  }
}

class SerializeSparseOp final : public OpKernel {
 public:
  explicit SerializeSparseOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& indices = ctx->input(0);
    const Tensor& values = ctx->input(1);
    const Tensor& shape = ctx->input(2);
    DFX_OP_REQUIRES(
        ctx,
        indices.dims() == 2 && values.dims() == 1 && shape.dims() == 1 &&
            indices.dim_size(0) == values.dim_size(0) &&
            indices.dim_size(1) == shape.dim_size(0),
        absl::InvalidArgumentError(absl::StrCat(
            "not a sparse tensor: indices ", indices.shape().DebugString(),
            ", values ", values.shape().DebugString(), ", shape ",
            shape.shape().DebugString())));
    Tensor out(output_type(0), TensorShape({3}));
    const Tensor* parts[3] = {&indices, &values, &shape};
    for (int i = 0; i < 3; ++i) SetComponent(*parts[i], &out, i);
    ctx->set_output(0, std::move(out));
  }
};

class DeserializeSparseOp final : public OpKernel {
 public:
  // Also DeserializeManySparse's kernel, as in TensorFlow.
  explicit DeserializeSparseOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("dtype", &dtype_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& serialized = ctx->input(0);
    DFX_OP_REQUIRES(
        ctx, serialized.dims() >= 1 &&
                 serialized.dim_size(serialized.dims() - 1) == 3,
        absl::InvalidArgumentError(absl::StrCat(
            "Serialized sparse should have 3 as the last dimension, got ",
            serialized.shape().DebugString())));
    const int lead_rank = serialized.dims() - 1;
    const int64_t rows = serialized.NumElements() / 3;
    std::vector<Tensor> indices(rows), values(rows), shapes(rows);
    int64_t total = 0, rank = -1;
    for (int64_t r = 0; r < rows; ++r) {
      absl::StatusOr<Tensor> i = Component(serialized, 3 * r);
      absl::StatusOr<Tensor> v = Component(serialized, 3 * r + 1);
      absl::StatusOr<Tensor> s = Component(serialized, 3 * r + 2);
      DFX_OP_REQUIRES_OK(ctx, i.status());
      DFX_OP_REQUIRES_OK(ctx, v.status());
      DFX_OP_REQUIRES_OK(ctx, s.status());
      DFX_OP_REQUIRES(
          ctx,
          i->dtype() == DT_INT64 && i->dims() == 2 && s->dtype() == DT_INT64 &&
              s->dims() == 1 && i->dim_size(1) == s->dim_size(0) &&
              v->dtype() == dtype_ && v->dims() == 1 &&
              v->dim_size(0) == i->dim_size(0) &&
              (rank < 0 || rank == s->dim_size(0)),
          absl::InvalidArgumentError(absl::StrCat(
              "serialized sparse tensor ", r, " is malformed or of another "
              "rank or dtype")));
      rank = s->dim_size(0);
      total += i->dim_size(0);
      indices[r] = *std::move(i);
      values[r] = *std::move(v);
      shapes[r] = *std::move(s);
    }
    if (rank < 0) rank = 0;
    const int64_t out_rank = lead_rank + rank;
    Tensor out_indices(DT_INT64, TensorShape({total, out_rank}));
    Tensor out_values(dtype_, TensorShape({total}));
    std::vector<int64_t> out_shape(out_rank, 0);
    for (int d = 0; d < lead_rank; ++d) {
      out_shape[d] = serialized.dim_size(d);
    }
    int64_t at = 0;
    for (int64_t r = 0; r < rows; ++r) {
      // The row's position in the leading dimensions.
      std::vector<int64_t> lead(lead_rank);
      int64_t rest = r;
      for (int d = lead_rank - 1; d >= 0; --d) {
        lead[d] = rest % serialized.dim_size(d);
        rest /= serialized.dim_size(d);
      }
      for (int64_t d = 0; d < rank; ++d) {
        out_shape[lead_rank + d] = std::max(
            out_shape[lead_rank + d], shapes[r].data<int64_t>()[d]);
      }
      const int64_t n = indices[r].dim_size(0);
      for (int64_t k = 0; k < n; ++k) {
        int64_t* row = out_indices.data<int64_t>() + (at + k) * out_rank;
        for (int d = 0; d < lead_rank; ++d) row[d] = lead[d];
        for (int64_t d = 0; d < rank; ++d) {
          row[lead_rank + d] = indices[r].data<int64_t>()[k * rank + d];
        }
      }
      DFX_OP_REQUIRES(ctx, data_flow::CanMove(dtype_),
                      absl::InvalidArgumentError(absl::StrCat(
                          "sparse values of type ", DataTypeString(dtype_),
                          " are not supported")));
      data_flow::CopyElements(values[r], 0, &out_values, at, n);
      at += n;
    }
    ctx->set_output(0, std::move(out_indices));
    ctx->set_output(1, std::move(out_values));
    ctx->set_output(2, Tensor::FromVector<int64_t>(out_shape));
  }

 private:
  DataType dtype_ = DT_INVALID;
};

// ---------------------------------------------------------------------------
// Rows of a SparseTensor.

// "[0,2]": row `n` of an indices matrix, for messages.
std::string IndexString(const Tensor& indices, int64_t n) {
  const int64_t rank = indices.dim_size(1);
  const int64_t* row = indices.data<int64_t>() + n * rank;
  return absl::StrCat("[", absl::StrJoin(row, row + rank, ","), "]");
}

// The ranks of a SparseTensor's three parts: a matrix, a vector, a vector.
absl::Status CheckSparseRanks(const Tensor& indices, const Tensor& values,
                              const Tensor& shape) {
  if (indices.dims() != 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Input indices should be a matrix but received shape ",
        indices.shape().DebugString()));
  }
  if (values.dims() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Input values should be a vector but received shape ",
        values.shape().DebugString()));
  }
  if (shape.dims() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Input shape should be a vector but received shape ",
        shape.shape().DebugString()));
  }
  return absl::OkStatus();
}

// OK when (indices, values, shape) is a SparseTensor of rank >= 1 whose
// indices are inside the shape and in row-major order, without repeats
// (TensorFlow's SparseTensor::IndicesValid, and its messages).
absl::Status CheckSparseTensor(const Tensor& indices, const Tensor& values,
                               const Tensor& shape) {
  DFX_RETURN_IF_ERROR(CheckSparseRanks(indices, values, shape));
  if (values.dim_size(0) != indices.dim_size(0) ||
      shape.dim_size(0) != indices.dim_size(1)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Number of values and dimensions must match the indices: indices ",
        indices.shape().DebugString(), ", values ",
        values.shape().DebugString(), ", shape ",
        shape.shape().DebugString()));
  }
  const int64_t n = indices.dim_size(0), rank = indices.dim_size(1);
  const int64_t* dims = shape.data<int64_t>();
  const int64_t* ix = indices.data<int64_t>();
  for (int64_t i = 0; i < n; ++i) {
    const int64_t* row = ix + i * rank;
    for (int64_t d = 0; d < rank; ++d) {
      if (row[d] < 0 || row[d] >= dims[d]) {
        return absl::InvalidArgumentError(absl::StrCat(
            "indices[", i, "] = ", IndexString(indices, i),
            " is out of bounds: need 0 <= index < [",
            absl::StrJoin(dims, dims + rank, ","), "]"));
      }
    }
    if (i == 0) continue;
    const int64_t* prev = row - rank;
    const bool increasing =
        std::lexicographical_compare(prev, prev + rank, row, row + rank);
    if (!increasing) {
      const bool repeated = std::equal(prev, prev + rank, row);
      return absl::InvalidArgumentError(absl::StrCat(
          "indices[", i, "] = ", IndexString(indices, i),
          repeated ? " is repeated"
                   : " is out of order. Many sparse ops require sorted "
                     "indices.\n    Use `tf.sparse.reorder` to create a "
                     "correctly ordered copy.\n\n"));
    }
  }
  return absl::OkStatus();
}

// The entries [begin, end) of a SparseTensor whose first index is one row:
// their indices without the first column, and their values.
void RowEntries(const Tensor& indices, const Tensor& values, int64_t begin,
                int64_t end, Tensor* row_indices, Tensor* row_values) {
  const int64_t rank = indices.dim_size(1);
  *row_indices = Tensor(DT_INT64, TensorShape({end - begin, rank - 1}));
  *row_values = Tensor(values.dtype(), TensorShape({end - begin}));
  for (int64_t i = begin; i < end; ++i) {
    const int64_t* from = indices.data<int64_t>() + i * rank + 1;
    std::copy(from, from + rank - 1,
              row_indices->data<int64_t>() + (i - begin) * (rank - 1));
  }
  data_flow::CopyElements(values, begin, row_values, 0, end - begin);
}

// The shape of each row: the SparseTensor's without its first dimension.
Tensor RowShape(const Tensor& shape) {
  Tensor out(DT_INT64, TensorShape({shape.dim_size(0) - 1}));
  std::copy(shape.data<int64_t>() + 1,
            shape.data<int64_t>() + shape.dim_size(0), out.data<int64_t>());
  return out;
}

// SerializeManySparse: row b of the output is the serialized SparseTensor
// of the input's entries whose first index is b (empty ones included).
class SerializeManySparseOp final : public OpKernel {
 public:
  explicit SerializeManySparseOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& indices = ctx->input(0);
    const Tensor& values = ctx->input(1);
    const Tensor& shape = ctx->input(2);
    DFX_OP_REQUIRES_OK(ctx, CheckSparseTensor(indices, values, shape));
    DFX_OP_REQUIRES(ctx, shape.NumElements() > 1,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Rank of input SparseTensor should be > 1, but saw "
                        "rank: ",
                        shape.NumElements())));
    DFX_OP_REQUIRES(ctx,
                    data_flow::CanMove(values.dtype()) ||
                        values.dtype() == DT_VARIANT,
                    absl::InvalidArgumentError(absl::StrCat(
                        "sparse values of type ",
                        DataTypeString(values.dtype()),
                        " are not supported")));
    const int64_t rows = shape.data<int64_t>()[0];
    const int64_t rank = indices.dim_size(1);
    const int64_t n = indices.dim_size(0);
    Tensor out(output_type(0), TensorShape({rows, 3}));
    const Tensor row_shape = RowShape(shape);
    int64_t at = 0;
    for (int64_t b = 0; b < rows; ++b) {
      int64_t end = at;
      while (end < n && indices.data<int64_t>()[end * rank] == b) ++end;
      Tensor row_indices, row_values;
      RowEntries(indices, values, at, end, &row_indices, &row_values);
      at = end;
      SetComponent(row_indices, &out, b * 3);
      SetComponent(row_values, &out, b * 3 + 1);
      SetComponent(row_shape, &out, b * 3 + 2);
    }
    ctx->set_output(0, std::move(out));
  }
};

// SparseTensorSliceDataset: element b is (indices, values, dense_shape) of
// the SparseTensor's row b, the first index column dropped.
class SparseTensorSliceDataset final : public DatasetBase {
 public:
  SparseTensorSliceDataset(Tensor indices, Tensor values, Tensor shape)
      : DatasetBase({DT_INT64, values.dtype(), DT_INT64}),
        indices_(std::move(indices)),
        values_(std::move(values)),
        row_shape_(RowShape(shape)),
        rows_(shape.data<int64_t>()[0]) {}

  int64_t Cardinality() const override { return rows_; }
  std::string DebugString() const override {
    return absl::StrCat("SparseTensorSliceDataset(", rows_, " rows)");
  }
  absl::StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(
      IteratorContext*) const override {
    return std::unique_ptr<IteratorBase>(
        new Iterator(Self<SparseTensorSliceDataset>()));
  }

 private:
  class Iterator final : public IteratorBase {
   public:
    explicit Iterator(std::shared_ptr<const SparseTensorSliceDataset> d)
        : d_(std::move(d)) {}
    absl::Status GetNext(IteratorContext*, std::vector<Tensor>* out,
                         bool* end) override {
      const SparseTensorSliceDataset& d = *d_;
      *end = row_ >= d.rows_;
      if (*end) return absl::OkStatus();
      const int64_t rank = d.indices_.dim_size(1);
      const int64_t n = d.indices_.dim_size(0);
      int64_t stop = next_;
      while (stop < n && d.indices_.data<int64_t>()[stop * rank] == row_) {
        ++stop;
      }
      Tensor row_indices, row_values;
      RowEntries(d.indices_, d.values_, next_, stop, &row_indices,
                 &row_values);
      next_ = stop;
      ++row_;
      out->push_back(std::move(row_indices));
      out->push_back(std::move(row_values));
      out->push_back(d.row_shape_);
      return absl::OkStatus();
    }

    absl::Status Save(const std::string& prefix,
                      IteratorState* state) override {
      state->WriteInt(prefix, "row", row_);
      state->WriteInt(prefix, "next", next_);
      return absl::OkStatus();
    }
    // The entry `next` must be the first of a row at or after `row`.
    absl::Status Restore(IteratorContext*, const std::string& prefix,
                         const IteratorState& state) override {
      const SparseTensorSliceDataset& d = *d_;
      const int64_t rank = d.indices_.dim_size(1);
      const int64_t n = d.indices_.dim_size(0);
      DFX_ASSIGN_OR_RETURN(int64_t row,
                           ReadIntInRange(state, prefix, "row", 0, d.rows_));
      DFX_ASSIGN_OR_RETURN(int64_t next,
                           ReadIntInRange(state, prefix, "next", 0, n));
      const int64_t* batch = d.indices_.data<int64_t>();
      if ((next < n && batch[next * rank] < row) ||
          (next > 0 && batch[(next - 1) * rank] >= row)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "the iterator state's entries ", prefix, "/row and ", prefix,
            "/next (", row, " and ", next, ") do not name one position"));
      }
      row_ = row;
      next_ = next;
      return absl::OkStatus();
    }

   private:
    const std::shared_ptr<const SparseTensorSliceDataset> d_;
    int64_t row_ = 0;   // the next row to produce
    int64_t next_ = 0;  // the first entry not yet produced
  };

  const Tensor indices_, values_, row_shape_;
  const int64_t rows_;
};

class SparseTensorSliceDatasetOp final : public OpKernel {
 public:
  explicit SparseTensorSliceDatasetOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    set_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& indices = ctx->input(0);
    const Tensor& values = ctx->input(1);
    const Tensor& shape = ctx->input(2);
    DFX_OP_REQUIRES(ctx, indices.dims() == 2,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Input indices must be a matrix. Got: ",
                        indices.shape().DebugString())));
    DFX_OP_REQUIRES(ctx, values.dims() == 1,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Input values must be a vector. Got: ",
                        values.shape().DebugString())));
    DFX_OP_REQUIRES(ctx, shape.dims() == 1,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Input shape must be a vector. Got: ",
                        shape.shape().DebugString())));
    DFX_OP_REQUIRES(
        ctx, values.dim_size(0) == indices.dim_size(0),
        absl::InvalidArgumentError(absl::StrCat(
            "Number of values must match first dimension of indices. Got ",
            values.dim_size(0),
            " values, indices shape: ", indices.shape().DebugString())));
    DFX_OP_REQUIRES(
        ctx, shape.dim_size(0) == indices.dim_size(1),
        absl::InvalidArgumentError(absl::StrCat(
            "Number of dimensions must match second dimension of indices. "
            "Got ",
            shape.dim_size(0),
            " dimensions, indices shape: ", indices.shape().DebugString())));
    DFX_OP_REQUIRES(ctx, shape.NumElements() > 0,
                    absl::InvalidArgumentError(
                        "The shape argument requires at least one element."));
    DFX_OP_REQUIRES(ctx,
                    data_flow::CanMove(values.dtype()) ||
                        values.dtype() == DT_VARIANT,
                    absl::InvalidArgumentError(absl::StrCat(
                        "sparse values of type ",
                        DataTypeString(values.dtype()),
                        " are not supported")));
    const int64_t rank = indices.dim_size(1);
    int64_t previous = -1;
    for (int64_t i = 0; i < indices.dim_size(0); ++i) {
      const int64_t b = indices.data<int64_t>()[i * rank];
      DFX_OP_REQUIRES(
          ctx, b >= previous,
          absl::UnimplementedError(
              "The SparseTensor must be ordered in the batch dimension; "
              "handling arbitrarily ordered input is not currently "
              "supported."));
      previous = b;
    }
    SetDatasetOutput(ctx, 0,
                     std::make_shared<SparseTensorSliceDataset>(indices, values,
                                                                shape));
  }
};

// DenseToSparseBatchDataset: up to batch_size dense elements as one
// SparseTensor of shape [batch] + row_shape (a -1 in row_shape: the
// largest of the batch), every value of each element an entry, in
// row-major order; the element is the SparseTensor as three variants.
class DenseToSparseBatchDataset final : public UnaryDataset {
 public:
  DenseToSparseBatchDataset(DatasetPtr input, int64_t batch_size,
                            std::vector<int64_t> row_shape)
      : UnaryDataset(std::move(input), {DT_VARIANT}),
        batch_size_(batch_size),
        row_shape_(std::move(row_shape)) {}

  int64_t Cardinality() const override {
    const int64_t n = input()->Cardinality();
    if (n < 0) return n;
    return n / batch_size_ + (n % batch_size_ == 0 ? 0 : 1);
  }
  std::string DebugString() const override {
    return absl::StrCat("DenseToSparseBatchDataset(", batch_size_, ")");
  }
  absl::StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(
      IteratorContext* ctx) const override {
    DFX_ASSIGN_OR_RETURN(auto in, input()->MakeIterator(ctx));
    return std::unique_ptr<IteratorBase>(
        new Iterator(Self<DenseToSparseBatchDataset>(), std::move(in)));
  }

 private:
  // "[?,5]": row_shape as TensorFlow's PartialTensorShape prints it.
  std::string RowShapeString() const {
    std::vector<std::string> dims;
    for (int64_t d : row_shape_) {
      dims.push_back(d < 0 ? "?" : absl::StrCat(d));
    }
    return absl::StrCat("[", absl::StrJoin(dims, ","), "]");
  }

  class Iterator final : public IteratorBase {
   public:
    Iterator(std::shared_ptr<const DenseToSparseBatchDataset> d,
             std::unique_ptr<IteratorBase> in)
        : d_(std::move(d)), in_(std::move(in)) {}

    absl::Status GetNext(IteratorContext* ctx, std::vector<Tensor>* out,
                         bool* end) override {
      const DenseToSparseBatchDataset& d = *d_;
      const int rank = static_cast<int>(d.row_shape_.size());
      std::vector<int64_t> dense(rank + 1, 0);
      for (int i = 0; i < rank; ++i) {
        dense[i + 1] = std::max<int64_t>(d.row_shape_[i], 0);
      }
      std::vector<Tensor> batch;
      int64_t total = 0, held = 0;
      while (in_ != nullptr && static_cast<int64_t>(batch.size()) <
                                   d.batch_size_) {
        std::vector<Tensor> element;
        bool input_end = false;
        DFX_RETURN_IF_ERROR(in_->GetNext(ctx, &element, &input_end));
        if (input_end) {
          in_.reset();
          break;
        }
        const Tensor& t = element[0];
        if (t.dims() != rank) {
          return absl::InvalidArgumentError(absl::StrCat(
              "Input element had shape (", t.shape().DebugString(),
              ") that is incompatible with the row shape (",
              d.RowShapeString(), ")."));
        }
        for (int j = 0; j < rank; ++j) {
          if (d.row_shape_[j] == -1) {
            dense[j + 1] = std::max(dense[j + 1], t.dim_size(j));
          } else if (t.dim_size(j) > d.row_shape_[j]) {
            return absl::DataLossError(absl::StrCat(
                "Input element had shape (", t.shape().DebugString(),
                ") that is larger than the row shape (", d.RowShapeString(),
                ")."));
          }
        }
        total += t.NumElements();
        held += ElementBytes(element);
        DFX_RETURN_IF_ERROR(CheckHeldElements(held, d.DebugString()));
        batch.push_back(t);
      }
      if (batch.empty()) {
        *end = true;
        return absl::OkStatus();
      }
      *end = false;
      const DataType dtype = d.input()->output_dtypes()[0];
      Tensor indices(DT_INT64, TensorShape({total, rank + 1}));
      Tensor values(dtype, TensorShape({total}));
      int64_t at = 0;
      std::vector<int64_t> strides(rank, 1);
      for (size_t b = 0; b < batch.size(); ++b) {
        const Tensor& t = batch[b];
        for (int k = rank - 2; k >= 0; --k) {
          strides[k] = strides[k + 1] * t.dim_size(k + 1);
        }
        const int64_t n = t.NumElements();
        data_flow::CopyElements(t, 0, &values, at, n);
        for (int64_t j = 0; j < n; ++j) {
          int64_t* row = indices.data<int64_t>() + (at + j) * (rank + 1);
          row[0] = static_cast<int64_t>(b);
          int64_t rest = j;
          for (int k = 0; k < rank; ++k) {
            row[k + 1] = rest / strides[k];
            rest %= strides[k];
          }
        }
        at += n;
      }
      dense[0] = static_cast<int64_t>(batch.size());
      Tensor serialized(DT_VARIANT, TensorShape({3}));
      SetComponent(indices, &serialized, 0);
      SetComponent(values, &serialized, 1);
      SetComponent(Tensor::FromVector<int64_t>(dense), &serialized, 2);
      out->push_back(std::move(serialized));
      return absl::OkStatus();
    }

    absl::Status Save(const std::string& prefix,
                      IteratorState* state) override {
      return SaveInput(*d_->input(), in_.get(), prefix + "/input", state);
    }
    absl::Status Restore(IteratorContext* ctx, const std::string& prefix,
                         const IteratorState& state) override {
      return RestoreInput(ctx, *d_->input(), &in_, prefix + "/input", state);
    }

   private:
    const std::shared_ptr<const DenseToSparseBatchDataset> d_;
    std::unique_ptr<IteratorBase> in_;
  };

  const int64_t batch_size_;
  const std::vector<int64_t> row_shape_;
};

class DenseToSparseBatchDatasetOp final : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;

 private:
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    DFX_ASSIGN_OR_RETURN(DatasetPtr input, DatasetFromInput(ctx, 0));
    DFX_ASSIGN_OR_RETURN(int64_t batch_size,
                         ScalarInt64Input(ctx, 1, "batch_size"));
    if (batch_size <= 0) {
      return absl::InvalidArgumentError(
          "Batch size must be greater than zero.");
    }
    const Tensor& row_shape = ctx->input(2);
    if (row_shape.dims() != 1) {
      return absl::InvalidArgumentError("row_shape must be a vector");
    }
    std::vector<int64_t> dims(row_shape.data<int64_t>(),
                              row_shape.data<int64_t>() +
                                  row_shape.NumElements());
    for (int64_t d : dims) {
      if (d < -1) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Dimension ", d, " must be >= -1"));
      }
    }
    if (input->output_dtypes().size() != 1) {
      return absl::InvalidArgumentError(
          "DenseToSparseBatchDataset only supports inputs with a single "
          "component.");
    }
    const DataType dtype = input->output_dtypes()[0];
    if (!data_flow::CanMove(dtype) || dtype == DT_RESOURCE) {
      return absl::InvalidArgumentError(absl::StrCat(
          "DenseToSparseBatchDataset unhandled data type: ",
          DataTypeString(dtype)));
    }
    return std::make_shared<DenseToSparseBatchDataset>(
        std::move(input), batch_size, std::move(dims));
  }
};

// ---------------------------------------------------------------------------
// The sparse-tensors map of tf.compat.v1.train.batch on SparseTensors:
// AddSparseToTensorsMap / AddManySparseToTensorsMap store SparseTensors
// under int64 handles (counted from 0 per map); TakeManySparseFromTensorsMap
// removes them and stacks them into one SparseTensor of rank + 1. The map is
// a resource shared by container/shared_name; an Add op without a
// shared_name uses its node name, as TensorFlow does.

class SparseTensorsMap final : public ResourceBase {
 public:
  static constexpr const char* kTypeName = "SparseTensorsMap";
  struct Entry {
    Tensor indices;  // [n, rank]
    Tensor values;   // [n]
    Tensor shape;    // [rank]
  };
  explicit SparseTensorsMap(std::string name) : name_(std::move(name)) {}
  std::string TypeName() const override { return kTypeName; }
  std::string DebugString() const override {
    return absl::StrCat("SparseTensorsMap ", name_);
  }
  const std::string& name() const { return name_; }

  int64_t Add(Entry entry) {
    absl::MutexLock lock(&mu_);
    const int64_t handle = next_++;
    entries_.emplace(handle, std::move(entry));
    return handle;
  }

  // Removes the entries of `handles` in turn; NotFound-style
  // InvalidArgument at the first one absent (those before it removed).
  absl::Status Take(const int64_t* handles, int64_t n,
                    std::vector<Entry>* out) {
    absl::MutexLock lock(&mu_);
    for (int64_t i = 0; i < n; ++i) {
      auto it = entries_.find(handles[i]);
      if (it == entries_.end()) {
        return absl::InvalidArgumentError(
            absl::StrCat("Unable to find SparseTensor: ", handles[i],
                         " in map: ", name_));
      }
      out->push_back(std::move(it->second));
      entries_.erase(it);
    }
    return absl::OkStatus();
  }

 private:
  const std::string name_;
  absl::Mutex mu_;
  int64_t next_ ABSL_GUARDED_BY(mu_) = 0;
  absl::flat_hash_map<int64_t, Entry> entries_ ABSL_GUARDED_BY(mu_);
};

std::atomic<int64_t> next_anonymous_map{0};

class SparseTensorsMapOp : public OpKernel {
 public:
  // adding: an Add op, whose empty shared_name means its node name.
  SparseTensorsMapOp(OpKernelConstruction* ctx, bool adding) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("container", &container_));
    ctx->SetStatus(ctx->GetAttr("shared_name", &name_));
    if (name_.empty()) {
      name_ = adding ? ctx->def().name()
                     : absl::StrCat("_", next_anonymous_map.fetch_add(1), "_",
                                    ctx->def().name());
    }
  }

 protected:
  absl::StatusOr<std::shared_ptr<SparseTensorsMap>> Map(OpKernelContext* ctx) {
    ResourceMgr* rm = ctx->resource_manager();
    return rm->LookupOrCreate<SparseTensorsMap>(
        container_.empty() ? rm->default_container() : container_, name_,
        [this] { return std::make_shared<SparseTensorsMap>(name_); });
  }

  std::string container_, name_;
};

// The shape checks of a SparseTensor's three parts.
absl::Status CheckSparseParts(const Tensor& indices, const Tensor& values,
                              const Tensor& shape) {
  DFX_RETURN_IF_ERROR(CheckSparseRanks(indices, values, shape));
  if (values.dim_size(0) != indices.dim_size(0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "indices and values rows (indexing dimension) must match. (indices = ",
        indices.dim_size(0), ", values = ", values.dim_size(0), ")"));
  }
  if (shape.dim_size(0) != indices.dim_size(1)) {
    return absl::InvalidArgumentError("Order length must be SparseTensor rank.");
  }
  return absl::OkStatus();
}

class AddSparseToTensorsMapOp final : public SparseTensorsMapOp {
 public:
  explicit AddSparseToTensorsMapOp(OpKernelConstruction* ctx)
      : SparseTensorsMapOp(ctx, /*adding=*/true) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& indices = ctx->input(0);
    const Tensor& values = ctx->input(1);
    const Tensor& shape = ctx->input(2);
    DFX_OP_REQUIRES_OK(ctx, CheckSparseParts(indices, values, shape));
    absl::StatusOr<std::shared_ptr<SparseTensorsMap>> map = Map(ctx);
    DFX_OP_REQUIRES_OK(ctx, map.status());
    const int64_t handle = (*map)->Add({indices, values, shape});
    ctx->set_output(0, Tensor::FromVector<int64_t>({handle}, TensorShape({})));
  }
};

class AddManySparseToTensorsMapOp final : public SparseTensorsMapOp {
 public:
  explicit AddManySparseToTensorsMapOp(OpKernelConstruction* ctx)
      : SparseTensorsMapOp(ctx, /*adding=*/true) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& indices = ctx->input(0);
    const Tensor& values = ctx->input(1);
    const Tensor& shape = ctx->input(2);
    DFX_OP_REQUIRES_OK(ctx, CheckSparseParts(indices, values, shape));
    DFX_OP_REQUIRES(ctx, shape.NumElements() > 1,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Rank of input SparseTensor should be > 1, but saw "
                        "rank: ",
                        shape.NumElements())));
    DFX_OP_REQUIRES_OK(ctx, CheckSparseTensor(indices, values, shape));
    DFX_OP_REQUIRES(ctx,
                    data_flow::CanMove(values.dtype()) ||
                        values.dtype() == DT_VARIANT,
                    absl::InvalidArgumentError(absl::StrCat(
                        "sparse values of type ",
                        DataTypeString(values.dtype()), " are not supported")));
    absl::StatusOr<std::shared_ptr<SparseTensorsMap>> map = Map(ctx);
    DFX_OP_REQUIRES_OK(ctx, map.status());
    const int64_t rows = shape.data<int64_t>()[0];
    const int64_t rank = indices.dim_size(1);
    const int64_t n = indices.dim_size(0);
    Tensor handles(DT_INT64, TensorShape({rows}));
    const Tensor row_shape = RowShape(shape);
    // The rows with entries get handles first, in order, then the empty
    // ones, as TensorFlow's grouping of the entries does.
    std::vector<bool> filled(static_cast<size_t>(rows), false);
    int64_t at = 0;
    while (at < n) {
      const int64_t b = indices.data<int64_t>()[at * rank];
      int64_t end = at;
      while (end < n && indices.data<int64_t>()[end * rank] == b) ++end;
      Tensor row_indices, row_values;
      RowEntries(indices, values, at, end, &row_indices, &row_values);
      at = end;
      filled[b] = true;
      handles.data<int64_t>()[b] =
          (*map)->Add({std::move(row_indices), std::move(row_values),
                       row_shape});
    }
    for (int64_t b = 0; b < rows; ++b) {
      if (filled[b]) continue;
      handles.data<int64_t>()[b] = (*map)->Add(
          {Tensor(DT_INT64, TensorShape({0, rank - 1})),
           Tensor(values.dtype(), TensorShape({0})), row_shape});
    }
    ctx->set_output(0, std::move(handles));
  }
};

class TakeManySparseFromTensorsMapOp final : public SparseTensorsMapOp {
 public:
  explicit TakeManySparseFromTensorsMapOp(OpKernelConstruction* ctx)
      : SparseTensorsMapOp(ctx, /*adding=*/false) {
    ctx->SetStatus(ctx->GetAttr("dtype", &dtype_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& handles = ctx->input(0);
    DFX_OP_REQUIRES(ctx, handles.dims() == 1,
                    absl::InvalidArgumentError(absl::StrCat(
                        "sparse_handles should be a vector but received "
                        "shape ",
                        handles.shape().DebugString())));
    const int64_t n = handles.NumElements();
    DFX_OP_REQUIRES(ctx, n > 0,
                    absl::InvalidArgumentError(
                        "Must have at least 1 serialized SparseTensor, but "
                        "input matrix has 0 rows"));
    absl::StatusOr<std::shared_ptr<SparseTensorsMap>> map = Map(ctx);
    DFX_OP_REQUIRES_OK(ctx, map.status());
    std::vector<SparseTensorsMap::Entry> entries;
    DFX_OP_REQUIRES_OK(
        ctx, (*map)->Take(handles.data<int64_t>(), n, &entries));
    int64_t rank = -1, total = 0;
    for (int64_t i = 0; i < n; ++i) {
      const SparseTensorsMap::Entry& e = entries[i];
      DFX_OP_REQUIRES(ctx, e.values.dtype() == dtype_,
                      absl::InvalidArgumentError(absl::StrCat(
                          "Requested SparseTensor of type ",
                          DataTypeString(dtype_), " but SparseTensor[", i,
                          "].values.dtype() == ",
                          DataTypeString(e.values.dtype()))));
      const int64_t r = e.shape.NumElements();
      DFX_OP_REQUIRES(
          ctx, rank < 0 || r == rank,
          absl::InvalidArgumentError(absl::StrCat(
              "Inconsistent rank across SparseTensors: rank prior to "
              "SparseTensor[",
              i, "] was: ", rank + 1, " but rank of SparseTensor[", i,
              "] is: ", r + 1)));
      rank = r;
      total += e.indices.dim_size(0);
    }
    DFX_OP_REQUIRES(ctx,
                    data_flow::CanMove(dtype_) || dtype_ == DT_VARIANT,
                    absl::InvalidArgumentError(absl::StrCat(
                        "sparse values of type ", DataTypeString(dtype_),
                        " are not supported")));
    Tensor out_indices(DT_INT64, TensorShape({total, rank + 1}));
    Tensor out_values(dtype_, TensorShape({total}));
    std::vector<int64_t> out_shape(static_cast<size_t>(rank + 1), 0);
    out_shape[0] = n;
    int64_t at = 0;
    int64_t* ix = out_indices.data<int64_t>();
    for (int64_t i = 0; i < n; ++i) {
      const SparseTensorsMap::Entry& e = entries[i];
      for (int64_t d = 0; d < rank; ++d) {
        out_shape[d + 1] = std::max(out_shape[d + 1], e.shape.data<int64_t>()[d]);
      }
      const int64_t m = e.indices.dim_size(0);
      for (int64_t k = 0; k < m; ++k) {
        *ix++ = i;
        const int64_t* from = e.indices.data<int64_t>() + k * rank;
        ix = std::copy(from, from + rank, ix);
      }
      data_flow::CopyElements(e.values, 0, &out_values, at, m);
      at += m;
    }
    ctx->set_output(0, std::move(out_indices));
    ctx->set_output(1, std::move(out_values));
    ctx->set_output(2, Tensor::FromVector<int64_t>(out_shape));
  }

 private:
  DataType dtype_ = DT_INVALID;
};

// `types`: TensorFlow's types of AddMany's and Take's CPU kernels (Add's
// and DeserializeManySparse's take any).
void RegisterSparseTensorsMapKernels(KernelRegistry* registry,
                                     const DataTypeVector& types) {
  RegisterKernel<AddSparseToTensorsMapOp>(
      registry, KernelDefBuilder("AddSparseToTensorsMap"));
  RegisterKernel<AddManySparseToTensorsMapOp>(
      registry,
      KernelDefBuilder("AddManySparseToTensorsMap").TypeConstraint("T", types));
  RegisterKernel<TakeManySparseFromTensorsMapOp>(
      registry, KernelDefBuilder("TakeManySparseFromTensorsMap")
                    .TypeConstraint("dtype", types));
  RegisterKernel<DeserializeSparseOp>(registry,
                                      KernelDefBuilder("DeserializeManySparse"));
}

}  // namespace

void RegisterSparseSerializeKernels(KernelRegistry* registry) {
  RegisterKernel<SerializeSparseOp>(registry,
                                    KernelDefBuilder("SerializeSparse"));
  RegisterKernel<DeserializeSparseOp>(registry,
                                      KernelDefBuilder("DeserializeSparse"));
  // TensorFlow's CPU kernels of SerializeManySparse,
  // SparseTensorSliceDataset, AddManySparseToTensorsMap and
  // TakeManySparseFromTensorsMap: every type but the quantized.
  const DataTypeVector values = {
      DT_BOOL,   DT_COMPLEX64, DT_COMPLEX128, DT_FLOAT,  DT_DOUBLE,
      DT_HALF,   DT_BFLOAT16,  DT_INT8,       DT_UINT8,  DT_INT16,
      DT_UINT16, DT_INT32,     DT_UINT32,     DT_INT64,  DT_UINT64,
      DT_STRING, DT_RESOURCE,  DT_VARIANT};
  RegisterSparseTensorsMapKernels(registry, values);
  RegisterKernel<SerializeManySparseOp>(
      registry,
      KernelDefBuilder("SerializeManySparse").TypeConstraint("T", values));
  RegisterKernel<SparseTensorSliceDatasetOp>(
      registry, KernelDefBuilder("SparseTensorSliceDataset")
                    .TypeConstraint("Tvalues", values));
  for (const char* op : {"DenseToSparseBatchDataset",
                         "ExperimentalDenseToSparseBatchDataset"}) {
    RegisterKernel<DenseToSparseBatchDatasetOp>(registry, KernelDefBuilder(op));
  }
}

}  // namespace dfx::data

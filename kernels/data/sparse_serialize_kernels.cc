// SerializeSparse and DeserializeSparse: how tf.data carries a SparseTensor
// (a VarLenFeature's value) through a dataset: its indices, values and
// shape as three variants (or three serialized TensorProtos), and back,
// with the leading dimensions of a batch of them folded into the indices.
#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "kernels/data/dataset.h"
#include "kernels/data_flow/data_flow_util.h"
#include "proto/tensor.pb.h"
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
    for (int i = 0; i < 3; ++i) {
      if (output_type(0) == DT_STRING) {
        TensorProto proto;
        parts[i]->AsProtoTensorContent(&proto);
        out.data<std::string>()[i] = proto.SerializeAsString();
      } else {
        out.data<Variant>()[i] = Variant::Make<TensorVariant>(*parts[i]);
      }
    }
    ctx->set_output(0, std::move(out));
  }
};

class DeserializeSparseOp final : public OpKernel {
 public:
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

}  // namespace

void RegisterSparseSerializeKernels(KernelRegistry* registry) {
  RegisterKernel<SerializeSparseOp>(registry,
                                    KernelDefBuilder("SerializeSparse"));
  RegisterKernel<DeserializeSparseOp>(registry,
                                      KernelDefBuilder("DeserializeSparse"));
}

}  // namespace dfx::data

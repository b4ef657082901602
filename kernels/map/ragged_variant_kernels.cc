// RaggedGather and the kernels that carry a ragged tensor inside a variant
// (RaggedTensorToVariant, RaggedTensorFromVariant,
// RaggedTensorToVariantGradient): CPU, every value dtype TensorFlow 2.21's
// CPU kernels take, int32 or int64 splits. Semantics and error codes are
// TensorFlow's (tests/golden/gen_tmap.py), with these differences:
//
// - RaggedGather with an OUTPUT_RAGGED_RANK other than the indices' rank
//   less one plus PARAMS_RAGGED_RANK: TensorFlow aborts; dfx answers
//   InvalidArgument. Ragged splits that are not vectors, and inner splits
//   that end at the next level's splits count (TensorFlow then reads past
//   them): InvalidArgument.
// - RaggedTensorFromVariant of a variant tensor of rank 3 or more:
//   TensorFlow builds uniform outer splits of the wrong length (it strides
//   by each dim's own size rather than the product of the dims before it);
//   dfx builds the ragged tensor the variant tensor's shape describes.
// - RaggedTensorToVariantGradient whose pieces do not add up to
//   dense_values_shape: TensorFlow returns uninitialized memory; dfx
//   answers InvalidArgument.
//
// Values are copied as rows of bytes (or strings), and splits read into
// int64 and written back in Tsplits: one code path for every dtype, no
// template instantiation per type.
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "kernels/list/list_util.h"
#include "kernels/map/tensor_map.h"

namespace dfx {

void RaggedTensorVariant::Encode(VariantTensorDataProto* proto) const {
  for (const Tensor& s : nested_splits) s.AsProtoField(proto->add_tensors());
  values.AsProtoField(proto->add_tensors());
}

std::string RaggedTensorVariant::DebugString() const {
  return absl::StrCat("RaggedTensorVariant<ragged_rank ", ragged_rank(),
                      ", values ", DataTypeString(values.dtype()), " ",
                      values.shape().DebugString(), ">");
}

absl::StatusOr<RaggedTensorVariant> RaggedTensorVariant::Decode(
    const VariantTensorDataProto& proto) {
  if (proto.tensors_size() < 1) {
    return absl::InvalidArgumentError(
        "malformed RaggedTensorVariant: no values tensor");
  }
  RaggedTensorVariant rt;
  for (int i = 0; i + 1 < proto.tensors_size(); ++i) {
    DFX_ASSIGN_OR_RETURN(Tensor s, Tensor::FromProto(proto.tensors(i)));
    rt.nested_splits.push_back(std::move(s));
  }
  DFX_ASSIGN_OR_RETURN(
      rt.values, Tensor::FromProto(proto.tensors(proto.tensors_size() - 1)));
  return rt;
}

namespace {

using list_internal::CopyElements;

constexpr int64_t kNoLimit = -1;

std::vector<int64_t> ReadSplits(const Tensor& t) {
  std::vector<int64_t> out(static_cast<size_t>(t.NumElements()));
  if (t.dtype() == DT_INT32) {
    const int32_t* p = t.data<int32_t>();
    for (size_t i = 0; i < out.size(); ++i) out[i] = p[i];
  } else {
    const int64_t* p = t.data<int64_t>();
    for (size_t i = 0; i < out.size(); ++i) out[i] = p[i];
  }
  return out;
}

Tensor MakeSplits(DataType dtype, const std::vector<int64_t>& splits) {
  Tensor t(dtype, TensorShape({static_cast<int64_t>(splits.size())}));
  if (dtype == DT_INT32) {
    int32_t* p = t.data<int32_t>();
    for (size_t i = 0; i < splits.size(); ++i) {
      p[i] = static_cast<int32_t>(splits[i]);
    }
  } else {
    int64_t* p = t.data<int64_t>();
    for (size_t i = 0; i < splits.size(); ++i) p[i] = splits[i];
  }
  return t;
}

// A shape built from dims of a valid shape (no dim grows).
TensorShape ShapeOf(const std::vector<int64_t>& dims) {
  return TensorShape::Build(dims).value();
}

// Elements per row of `t` along dim 0. REQUIRES: t.dims() >= 1.
int64_t RowSize(const Tensor& t) {
  int64_t n = 1;
  for (int i = 1; i < t.dims(); ++i) n *= t.dim_size(i);
  return n;
}

// A tensor of `rows` rows shaped like `like` past dim 0, filled with rows
// [start, start + rows) of `src`.
Tensor CopyRowRange(const Tensor& src, int64_t start, int64_t rows) {
  std::vector<int64_t> dims(src.shape().dim_sizes().begin(),
                            src.shape().dim_sizes().end());
  dims[0] = rows;
  Tensor out(src.dtype(), ShapeOf(dims));
  const int64_t row = RowSize(src);
  CopyElements(src, start * row, &out, 0, rows * row);
  return out;
}

// TensorFlow's RaggedTensorVerifySplits for RaggedTensorToVariant: each
// splits a non-empty vector starting at 0, never decreasing, ending at the
// next level's row count.
absl::Status VerifySplits(const std::vector<Tensor>& splits,
                          const Tensor& values) {
  if (!splits.empty() && values.dims() < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Requires flat_values to have rank>=1 when nested_row_splits is not "
        "empty, but is ",
        values.dims(), "."));
  }
  for (size_t level = 0; level < splits.size(); ++level) {
    const Tensor& t = splits[level];
    if (t.dims() != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Invalid ragged splits: ragged splits must be rank 1 but is rank ",
          t.dims()));
    }
    if (t.NumElements() < 1) {
      return absl::InvalidArgumentError(
          "Invalid ragged splits: ragged splits must have at least one "
          "splits, but is empty");
    }
    const std::vector<int64_t> s = ReadSplits(t);
    if (s[0] != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Invalid ragged splits: first element of ragged splits  must be 0 "
          "but is ",
          s[0]));
    }
    for (size_t i = 1; i < s.size(); ++i) {
      if (s[i] < s[i - 1]) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Invalid ragged splits: ragged splits must be monotonically "
            "increasing, but ragged_splits[",
            i, "]=", s[i], " is smaller than row_splits[", i - 1,
            "]=", s[i - 1]));
      }
    }
    const int64_t rows = level + 1 < splits.size()
                             ? splits[level + 1].NumElements() - 1
                             : values.dim_size(0);
    if (s.back() != rows) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Invalid ragged splits: last element of ragged splits must be the "
          "number of ragged values(",
          rows, ") but is ", s.back()));
    }
  }
  return absl::OkStatus();
}

class RaggedTensorToVariantOp : public OpKernel {
 public:
  explicit RaggedTensorToVariantOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("batched_input", &batched_));
  }

  void Compute(OpKernelContext* ctx) override {
    const int rank = ctx->num_inputs() - 1;
    std::vector<Tensor> splits;
    for (int i = 0; i < rank; ++i) splits.push_back(ctx->input(i));
    const Tensor& values = ctx->input(rank);
    DFX_OP_REQUIRES_OK(ctx, VerifySplits(splits, values));
    if (!batched_) {
      Tensor* out = nullptr;
      DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(), &out));
      out->scalar<Variant>() =
          Variant::Make<RaggedTensorVariant>(std::move(splits), values);
      return;
    }
    std::vector<RaggedTensorVariant> rows;
    if (rank == 0) {
      // Each row of the values is a ragged tensor of ragged rank 0.
      DFX_OP_REQUIRES(
          ctx, values.dims() >= 1,
          absl::InvalidArgumentError(
              "RaggedTensorToVariant: batched_input needs values of rank "
              ">= 1 when there are no splits"));
      std::vector<int64_t> dims(values.shape().dim_sizes().begin() + 1,
                                values.shape().dim_sizes().end());
      const TensorShape row_shape = ShapeOf(dims);
      const int64_t n = row_shape.num_elements();
      for (int64_t r = 0; r < values.dim_size(0); ++r) {
        Tensor row(values.dtype(), row_shape);
        CopyElements(values, r * n, &row, 0, n);
        rows.emplace_back(std::vector<Tensor>{}, std::move(row));
      }
    } else {
      std::vector<std::vector<int64_t>> s;
      for (const Tensor& t : splits) s.push_back(ReadSplits(t));
      const int64_t num_rows = static_cast<int64_t>(s[0].size()) - 1;
      for (int64_t r = 0; r < num_rows; ++r) {
        int64_t start = s[0][r], limit = s[0][r + 1];
        std::vector<Tensor> row_splits;
        for (int level = 1; level < rank; ++level) {
          const std::vector<int64_t>& sl = s[level];
          std::vector<int64_t> rebased(static_cast<size_t>(limit - start + 1));
          for (int64_t j = start; j <= limit; ++j) {
            rebased[j - start] = sl[j] - sl[start];
          }
          row_splits.push_back(MakeSplits(splits[level].dtype(), rebased));
          const int64_t next_start = sl[start];
          limit = sl[limit];
          start = next_start;
        }
        rows.emplace_back(std::move(row_splits),
                          CopyRowRange(values, start, limit - start));
      }
    }
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(
                 0, TensorShape({static_cast<int64_t>(rows.size())}), &out));
    for (size_t i = 0; i < rows.size(); ++i) {
      out->data<Variant>()[i] =
          Variant::Make<RaggedTensorVariant>(std::move(rows[i]));
    }
  }

 private:
  bool batched_ = false;
};

// The ragged tensors a variant tensor holds, each checked against the
// kernel's ragged rank and dtypes. `holders` keeps those decoded from the
// wire.
absl::Status ReadComponents(
    const Tensor& encoded, int ragged_rank, bool values_may_be_scalar,
    DataType values_dtype, DataType splits_dtype,
    std::vector<const RaggedTensorVariant*>* out,
    std::vector<std::shared_ptr<const RaggedTensorVariant>>* holders) {
  const Variant* v = encoded.data<Variant>();
  for (int64_t i = 0; i < encoded.NumElements(); ++i) {
    std::shared_ptr<const RaggedTensorVariant> holder;
    DFX_ASSIGN_OR_RETURN(const RaggedTensorVariant* rt,
                         GetVariantValue<RaggedTensorVariant>(v[i], &holder));
    if (rt == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Input Variant element at index ", i,
          " doesn't hold a RaggedTensorVariant: ", v[i].DebugString()));
    }
    if (holder != nullptr) holders->push_back(holder);
    if (rt->ragged_rank() != ragged_rank) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Encoded input RaggedTensorVariant has ragged_rank=",
          rt->ragged_rank(), ".  Expected ragged_rank=", ragged_rank, "."));
    }
    if (rt->values.dtype() != values_dtype) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Expected values Tensor dtype: ", DataTypeString(values_dtype),
          ", found: ", DataTypeString(rt->values.dtype())));
    }
    if (rt->values.dims() < 1 && !values_may_be_scalar) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Ragged values must have rank >= 1; encoded scalar element at "
          "index ",
          i, " has values Tensor: ", rt->values.DebugString()));
    }
    for (const Tensor& s : rt->nested_splits) {
      if (s.dtype() != splits_dtype) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Expected row_splits Tensor dtype: ", DataTypeString(splits_dtype),
            ", found: ", DataTypeString(s.dtype())));
      }
      if (s.dims() != 1 || s.NumElements() < 1) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Ragged splits must have rank 1; encoded scalar element at index ",
            i, " has splits Tensor ", s.DebugString()));
      }
    }
    // A value from the wire was never checked by RaggedTensorToVariant.
    if (holder != nullptr) {
      DFX_RETURN_IF_ERROR(VerifySplits(rt->nested_splits, rt->values));
    }
    out->push_back(rt);
  }
  return absl::OkStatus();
}

class RaggedTensorFromVariantOp : public OpKernel {
 public:
  explicit RaggedTensorFromVariantOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("input_ragged_rank", &input_rank_attr_));
    ctx->SetStatus(ctx->GetAttr("output_ragged_rank", &output_rank_));
    ctx->SetStatus(ctx->GetAttr("Tvalues", &values_dtype_));
    ctx->SetStatus(ctx->GetAttr("Tsplits", &splits_dtype_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& encoded = ctx->input(0);
    const int64_t dims = encoded.dims();
    int64_t input_rank = input_rank_attr_;
    if (input_rank == -1) {
      input_rank = output_rank_ - dims;
      if (output_rank_ == 0 && input_rank < 0) input_rank = 0;
      DFX_OP_REQUIRES(ctx, input_rank >= 0,
                      absl::InvalidArgumentError(absl::StrCat(
                          "Inferred input_ragged_rank (output_ragged_rank - "
                          "encoded_variant.dims()) must be >= 0, found "
                          "output_ragged_rank: ",
                          output_rank_, ", encoded_variant.dims(): ", dims,
                          ", inferred input_ragged_rank: ", input_rank)));
    }
    DFX_OP_REQUIRES(
        ctx,
        (output_rank_ == 0 && input_rank == 0) ||
            output_rank_ == dims + input_rank,
        absl::InvalidArgumentError(absl::StrCat(
            "output_ragged_rank must be equal to input_ragged_rank + "
            "encoded_ragged.dims(); output_ragged_rank: ",
            output_rank_, ", input_ragged_rank: ", input_rank,
            ", encoded_variant.dims(): ", dims, ".")));
    std::vector<const RaggedTensorVariant*> parts;
    std::vector<std::shared_ptr<const RaggedTensorVariant>> holders;
    DFX_OP_REQUIRES_OK(
        ctx,
        ReadComponents(encoded, static_cast<int>(input_rank), output_rank_ == 0,
                       values_dtype_, splits_dtype_, &parts, &holders));
    if (dims == 0) {
      const RaggedTensorVariant& rt = *parts[0];
      for (int i = 0; i < rt.ragged_rank(); ++i) {
        ctx->set_output(i, rt.nested_splits[i]);
      }
      ctx->set_output(rt.ragged_rank(), rt.values);
      return;
    }
    if (output_rank_ == 0) {
      DFX_OP_REQUIRES_OK(ctx, StackValues(ctx, parts));
      return;
    }
    // Outer splits: dims - 1 uniform levels from the variant tensor's
    // shape, then one level whose rows are the components.
    int out = 0;
    int64_t rows = 1;
    for (int64_t d = 0; d + 1 < dims; ++d) {
      rows *= encoded.dim_size(static_cast<int>(d));
      const int64_t width = encoded.dim_size(static_cast<int>(d) + 1);
      std::vector<int64_t> s(static_cast<size_t>(rows + 1));
      for (int64_t j = 0; j <= rows; ++j) s[j] = j * width;
      ctx->set_output(out++, MakeSplits(splits_dtype_, s));
    }
    std::vector<int64_t> s{0};
    for (const RaggedTensorVariant* rt : parts) {
      const int64_t n = input_rank > 0 ? rt->nested_splits[0].NumElements() - 1
                                       : rt->values.dim_size(0);
      s.push_back(s.back() + n);
    }
    ctx->set_output(out++, MakeSplits(splits_dtype_, s));
    // Inner splits: each component's, offset by those before it.
    for (int64_t level = 0; level < input_rank; ++level) {
      std::vector<int64_t> joined{0};
      for (const RaggedTensorVariant* rt : parts) {
        const std::vector<int64_t> cs = ReadSplits(rt->nested_splits[level]);
        const int64_t base = joined.back() - cs[0];
        for (size_t k = 1; k < cs.size(); ++k) joined.push_back(cs[k] + base);
      }
      ctx->set_output(out++, MakeSplits(splits_dtype_, joined));
    }
    DFX_OP_REQUIRES_OK(ctx, ConcatValues(ctx, out, parts));
  }

 private:
  // Output 0 (ragged rank 0): the components' values stacked.
  absl::Status StackValues(OpKernelContext* ctx,
                           const std::vector<const RaggedTensorVariant*>& p) {
    TensorShape shape({0});
    if (!p.empty()) {
      const TensorShape& first = p[0]->values.shape();
      for (size_t i = 0; i < p.size(); ++i) {
        if (p[i]->values.shape() != first) {
          return absl::InvalidArgumentError(absl::StrCat(
              "All flat_values must have compatible shapes.  Shape at index "
              "0: ",
              first.DebugString(), ".  Shape at index ", i, ": ",
              p[i]->values.shape().DebugString()));
        }
      }
      DFX_ASSIGN_OR_RETURN(shape, list_internal::PrependDim(
                                      static_cast<int64_t>(p.size()), first));
    }
    Tensor* out = nullptr;
    DFX_RETURN_IF_ERROR(ctx->allocate_output(0, shape, &out));
    int64_t at = 0;
    for (const RaggedTensorVariant* rt : p) {
      CopyElements(rt->values, 0, out, at, rt->values.NumElements());
      at += rt->values.NumElements();
    }
    return absl::OkStatus();
  }

  // Output `index`: the components' values joined along dim 0.
  absl::Status ConcatValues(OpKernelContext* ctx, int index,
                            const std::vector<const RaggedTensorVariant*>& p) {
    std::vector<int64_t> dims{0};
    if (!p.empty()) {
      dims.assign(p[0]->values.shape().dim_sizes().begin(),
                  p[0]->values.shape().dim_sizes().end());
    }
    int64_t total = 0;
    for (size_t i = 0; i < p.size(); ++i) {
      const Tensor& v = p[i]->values;
      if (v.dims() != static_cast<int>(dims.size())) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Rank of values must match for all components; values shape at "
            "index 0: ",
            p[0]->values.shape().DebugString(), ", values shape at index ", i,
            ": ", v.shape().DebugString()));
      }
      total += v.dim_size(0);
    }
    for (size_t i = 0; i < p.size(); ++i) {
      const Tensor& v = p[i]->values;
      for (int d = 1; d < v.dims(); ++d) {
        if (v.dim_size(d) != dims[d]) {
          return absl::InvalidArgumentError(absl::StrCat(
              "All flat_values must have compatible shapes.  Shape at index "
              "0: ",
              p[0]->values.shape().DebugString(), ".  Shape at index ", i, ": ",
              v.shape().DebugString(),
              ".  If you are using tf.map_fn, then you may need to specify "
              "an explicit fn_output_signature with appropriate ragged_rank, "
              "and/or convert output tensors to RaggedTensors."));
        }
      }
    }
    dims[0] = total;
    DFX_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::Build(dims));
    Tensor* out = nullptr;
    DFX_RETURN_IF_ERROR(ctx->allocate_output(index, shape, &out));
    int64_t at = 0;
    for (const RaggedTensorVariant* rt : p) {
      CopyElements(rt->values, 0, out, at, rt->values.NumElements());
      at += rt->values.NumElements();
    }
    return absl::OkStatus();
  }

  int64_t input_rank_attr_ = -1;
  int64_t output_rank_ = 0;
  DataType values_dtype_ = DT_INVALID;
  DataType splits_dtype_ = DT_INVALID;
};

class RaggedTensorToVariantGradientOp : public OpKernel {
 public:
  explicit RaggedTensorToVariantGradientOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("Tvalues", &values_dtype_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& encoded = ctx->input(0);
    const Tensor& splits_t = ctx->input(1);
    const Tensor& shape_t = ctx->input(2);
    DFX_OP_REQUIRES(ctx, shape_t.dims() == 1,
                    absl::InvalidArgumentError(absl::StrCat(
                        "dense_values_shape must be a vector, saw shape ",
                        shape_t.shape().DebugString())));
    std::vector<int64_t> dims(shape_t.data<int32_t>(),
                              shape_t.data<int32_t>() + shape_t.NumElements());
    absl::StatusOr<TensorShape> shape = TensorShape::Build(dims);
    DFX_OP_REQUIRES_OK(ctx, shape.status());
    const int64_t n = encoded.NumElements();
    const std::vector<int64_t> splits = ReadSplits(splits_t);
    std::vector<Tensor> pieces;
    const Variant* v = encoded.data<Variant>();
    for (int64_t i = 0; i < n; ++i) {
      std::shared_ptr<const RaggedTensorVariant> holder;
      absl::StatusOr<const RaggedTensorVariant*> rt =
          GetVariantValue<RaggedTensorVariant>(v[i], &holder);
      DFX_OP_REQUIRES_OK(ctx, rt.status());
      if (*rt != nullptr) {
        DFX_OP_REQUIRES(
            ctx, (*rt)->values.dtype() == values_dtype_,
            absl::InvalidArgumentError(absl::StrCat(
                "Expected values Tensor dtype: ", DataTypeString(values_dtype_),
                ", found: ", DataTypeString((*rt)->values.dtype()))));
        pieces.push_back((*rt)->values);
        continue;
      }
      // A gradient that reached only some rows: zeros for this one.
      DFX_OP_REQUIRES(
          ctx,
          shape->dims() >= 1 && static_cast<int64_t>(splits.size()) > i + 1,
          absl::InvalidArgumentError(absl::StrCat(
              "RaggedTensorToVariantGradient: no row_splits for element ", i,
              " of ", n, " or dense_values_shape is a scalar")));
      std::vector<int64_t> zdims = dims;
      zdims[0] = splits[i + 1] - splits[i];
      absl::StatusOr<TensorShape> zshape = TensorShape::Build(zdims);
      DFX_OP_REQUIRES_OK(ctx, zshape.status());
      absl::StatusOr<Tensor> zeros =
          list_internal::ZerosTensor(ctx, values_dtype_, *zshape);
      DFX_OP_REQUIRES_OK(ctx, zeros.status());
      pieces.push_back(*std::move(zeros));
    }
    if (pieces.size() == 1) {
      ctx->set_output(0, pieces[0]);
      return;
    }
    int64_t total = 0;
    for (const Tensor& p : pieces) total += p.NumElements();
    DFX_OP_REQUIRES(ctx, total == shape->num_elements(),
                    absl::InvalidArgumentError(absl::StrCat(
                        "RaggedTensorToVariantGradient: the gradients hold ",
                        total, " values, dense_values_shape ",
                        shape->DebugString(), " has ", shape->num_elements())));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &out));
    int64_t at = 0;
    for (const Tensor& p : pieces) {
      CopyElements(p, 0, out, at, p.NumElements());
      at += p.NumElements();
    }
  }

 private:
  DataType values_dtype_ = DT_INVALID;
};

class RaggedGatherOp : public OpKernel {
 public:
  explicit RaggedGatherOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("Tsplits", &splits_dtype_));
  }

  void Compute(OpKernelContext* ctx) override {
    const int rank = ctx->num_inputs() - 2;
    const Tensor& values = ctx->input(rank);
    const Tensor& indices_t = ctx->input(rank + 1);
    const int64_t num_params =
        ctx->input(0).dims() == 0 ? -1 : ctx->input(0).dim_size(0) - 1;
    const std::vector<int64_t> indices = ReadSplits(indices_t);
    for (size_t i = 0; i < indices.size(); ++i) {
      if (indices[i] < 0 || indices[i] >= num_params) {
        ctx->SetStatus(absl::InvalidArgumentError(
            absl::StrCat("indices", IndexString(indices_t.shape(), i), " = ",
                         indices[i], " is not in [0, ", num_params, ")")));
        return;
      }
    }
    DFX_OP_REQUIRES(ctx, values.dims() > 0,
                    absl::InvalidArgumentError("params.rank must be nonzero"));
    const int out_rank = indices_t.dims() - 1 + rank;
    DFX_OP_REQUIRES(ctx, out_rank == num_outputs() - 1,
                    absl::InvalidArgumentError(absl::StrCat(
                        "OUTPUT_RAGGED_RANK is ", num_outputs() - 1,
                        ", but indices of rank ", indices_t.dims(),
                        " into params of "
                        "ragged rank ",
                        rank, " give ragged rank ", out_rank)));
    std::vector<std::vector<int64_t>> splits;
    for (int level = 0; level < rank; ++level) {
      const Tensor& t = ctx->input(level);
      DFX_OP_REQUIRES(ctx, t.dims() == 1,
                      absl::InvalidArgumentError(absl::StrCat(
                          "Ragged splits must be a vector, saw shape ",
                          t.shape().DebugString())));
      splits.push_back(ReadSplits(t));
      const std::vector<int64_t>& s = splits.back();
      // An inner level's splits index the next level's rows, one fewer
      // than its splits. (TensorFlow allows the splits count itself and
      // then reads past the next level's splits.)
      const int64_t last = level + 1 < rank
                               ? ctx->input(level + 1).NumElements() - 1
                               : values.dim_size(0);
      DFX_OP_REQUIRES(
          ctx, !s.empty(),
          absl::InvalidArgumentError("Ragged splits may not be empty"));
      DFX_OP_REQUIRES(
          ctx, s[0] >= 0,
          absl::InvalidArgumentError("Ragged splits must be non-negative"));
      DFX_OP_REQUIRES(ctx, s.back() <= last,
                      absl::InvalidArgumentError(
                          "Ragged splits must not point past values"));
      for (size_t i = 1; i < s.size(); ++i) {
        DFX_OP_REQUIRES(
            ctx, s[i - 1] <= s[i],
            absl::InvalidArgumentError("Ragged splits must be sorted"));
      }
    }
    // Uniform levels from the indices' outer dims, then each gathered
    // row's ragged levels.
    std::vector<std::vector<int64_t>> out(static_cast<size_t>(out_rank),
                                          std::vector<int64_t>{0});
    int64_t rows = 1;
    for (int d = 0; d + 1 < indices_t.dims(); ++d) {
      rows *= indices_t.dim_size(d);
      const int64_t width = indices_t.dim_size(d + 1);
      for (int64_t j = 1; j <= rows; ++j) out[d].push_back(j * width);
    }
    std::vector<std::pair<int64_t, int64_t>> slices;
    int64_t num_values = 0;
    for (int64_t index : indices) {
      int64_t start = index, limit = index + 1;
      for (int level = 0; level < rank; ++level) {
        const std::vector<int64_t>& s = splits[level];
        const int out_level = level + indices_t.dims() - 1;
        if (out_level >= 0) {
          std::vector<int64_t>& o = out[out_level];
          const int64_t delta = o.back() - s[start];
          for (int64_t j = start; j < limit; ++j) o.push_back(s[j + 1] + delta);
        }
        start = s[start];
        limit = s[limit];
      }
      if (limit > start) {
        slices.emplace_back(start, limit);
        num_values += limit - start;
      }
    }
    for (int i = 0; i < out_rank; ++i) {
      ctx->set_output(i, MakeSplits(splits_dtype_, out[i]));
    }
    std::vector<int64_t> dims(values.shape().dim_sizes().begin(),
                              values.shape().dim_sizes().end());
    dims[0] = num_values;
    Tensor* vout = nullptr;
    DFX_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(out_rank, ShapeOf(dims), &vout));
    const int64_t row = RowSize(values);
    int64_t at = 0;
    for (const auto& [start, limit] : slices) {
      CopyElements(values, start * row, vout, at, (limit - start) * row);
      at += (limit - start) * row;
    }
  }

 private:
  // "[i]" for a vector, "[i,j]" for a matrix: the position of flat index
  // `i` in `shape`, as TensorFlow's SliceDebugString writes it.
  static std::string IndexString(const TensorShape& shape, int64_t i) {
    if (shape.dims() == 0) return "";
    std::vector<int64_t> pos(static_cast<size_t>(shape.dims()));
    for (int d = shape.dims() - 1; d >= 0; --d) {
      pos[d] = i % shape.dim_size(d);
      i /= shape.dim_size(d);
    }
    std::string out = "[";
    for (size_t d = 0; d < pos.size(); ++d) {
      absl::StrAppend(&out, d == 0 ? "" : ",", pos[d]);
    }
    return out + "]";
  }

  DataType splits_dtype_ = DT_INVALID;
};

// TensorFlow's CPU kernels serve every type but the resource and variant
// ones (and the quantized types dfx does not run here).
const DataTypeVector& RaggedValueTypes() {
  static const DataTypeVector* types = new DataTypeVector{
      DT_FLOAT,      DT_DOUBLE,    DT_INT32,  DT_UINT8, DT_INT16,    DT_INT8,
      DT_STRING,     DT_COMPLEX64, DT_INT64,  DT_BOOL,  DT_BFLOAT16, DT_UINT16,
      DT_COMPLEX128, DT_HALF,      DT_UINT32, DT_UINT64};
  return *types;
}

}  // namespace

void RegisterRaggedVariantKernels(KernelRegistry* registry) {
  const DataTypeVector& types = RaggedValueTypes();
  RegisterKernel<RaggedGatherOp>(
      registry,
      KernelDefBuilder("RaggedGather").TypeConstraint("Tvalues", types));
  RegisterKernel<RaggedTensorToVariantOp>(
      registry, KernelDefBuilder("RaggedTensorToVariant")
                    .TypeConstraint("Tvalues", types));
  RegisterKernel<RaggedTensorFromVariantOp>(
      registry, KernelDefBuilder("RaggedTensorFromVariant")
                    .TypeConstraint("Tvalues", types));
  RegisterKernel<RaggedTensorToVariantGradientOp>(
      registry, KernelDefBuilder("RaggedTensorToVariantGradient")
                    .TypeConstraint("Tvalues", types));
}

}  // namespace dfx

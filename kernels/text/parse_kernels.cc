// DecodeCSV, ParseTensor and SerializeTensor with TensorFlow 2.21's
// semantics and errors (decode_csv_op.cc, parse_tensor_op.cc).
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "graph/types.h"
#include "kernels/text/text_util.h"
#include "proto/tensor.pb.h"

namespace dfx::text {
namespace {

class DecodeCsvOp : public OpKernel {
 public:
  explicit DecodeCsvOp(OpKernelConstruction* c) : OpKernel(c) {
    std::string delim;
    c->SetStatus(c->GetAttr("OUT_TYPE", &out_types_));
    c->SetStatus(c->GetAttr("field_delim", &delim));
    c->SetStatus(c->GetAttr("use_quote_delim", &use_quote_delim_));
    c->SetStatus(c->GetAttr("select_cols", &select_cols_));
    c->SetStatus(c->GetAttr("na_value", &na_value_));
    if (!c->status().ok()) return;
    if (!select_cols_.empty() && select_cols_.size() != out_types_.size()) {
      c->SetStatus(
          absl::InvalidArgumentError("select_cols should match output size"));
      return;
    }
    for (size_t i = 1; i < select_cols_.size(); ++i) {
      if (select_cols_[i - 1] >= select_cols_[i]) {
        c->SetStatus(absl::InvalidArgumentError(
            "select_cols should be strictly increasing indices"));
        return;
      }
    }
    if (!select_cols_.empty() && select_cols_.front() < 0) {
      c->SetStatus(absl::InvalidArgumentError(
          "select_cols should be non-negative indices"));
      return;
    }
    if (delim.size() != 1) {
      c->SetStatus(
          absl::InvalidArgumentError("field_delim should be only 1 char"));
      return;
    }
    delim_ = delim[0];
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& records = ctx->input(0);
    const int num_fields = static_cast<int>(out_types_.size());
    for (int f = 0; f < num_fields; ++f) {
      const Tensor& d = ctx->input(1 + f);
      DFX_OP_REQUIRES(ctx, d.dims() <= 1,
                      absl::InvalidArgumentError(
                          "Each record default should be at most rank 1"));
      DFX_OP_REQUIRES(ctx, d.NumElements() < 2,
                      absl::InvalidArgumentError(absl::StrCat(
                          "There should only be 1 default per field but field ",
                          f, " has ", d.NumElements())));
    }
    std::vector<Tensor*> outs(num_fields);
    for (int f = 0; f < num_fields; ++f) {
      DFX_OP_REQUIRES_OK(ctx,
                         ctx->allocate_output(f, records.shape(), &outs[f]));
    }
    const std::string* rec = records.data<std::string>();
    for (int64_t i = 0; i < records.NumElements(); ++i) {
      std::vector<std::string> fields;
      DFX_OP_REQUIRES_OK(ctx, ExtractFields(rec[i], &fields));
      DFX_OP_REQUIRES(ctx, fields.size() == out_types_.size(),
                      absl::InvalidArgumentError(absl::StrCat(
                          "Expect ", out_types_.size(), " fields but have ",
                          fields.size(), " in record ", i)));
      for (int f = 0; f < num_fields; ++f) {
        const Tensor& def = ctx->input(1 + f);
        std::string& field = fields[f];
        if (field.empty() || field == na_value_) {
          DFX_OP_REQUIRES(
              ctx, def.NumElements() == 1,
              absl::InvalidArgumentError(absl::StrCat(
                  "Field ", f, " is required but missing in record ", i, "!")));
          CopyDefault(def, outs[f], i);
          continue;
        }
        auto bad = [&](const char* type) {
          return absl::InvalidArgumentError(
              absl::StrCat("Field ", f, " in record ", i, " is not a valid ",
                           type, ": ", field));
        };
        switch (out_types_[f]) {
          case DT_INT32:
            DFX_OP_REQUIRES(
                ctx, absl::SimpleAtoi(field, &outs[f]->data<int32_t>()[i]),
                bad("int32"));
            break;
          case DT_INT64:
            DFX_OP_REQUIRES(
                ctx, absl::SimpleAtoi(field, &outs[f]->data<int64_t>()[i]),
                bad("int64"));
            break;
          case DT_FLOAT:
            DFX_OP_REQUIRES(ctx,
                            absl::SimpleAtof(field, &outs[f]->data<float>()[i]),
                            bad("float"));
            break;
          case DT_DOUBLE:
            DFX_OP_REQUIRES(
                ctx, absl::SimpleAtod(field, &outs[f]->data<double>()[i]),
                bad("double"));
            break;
          case DT_STRING:
            outs[f]->data<std::string>()[i] = std::move(field);
            break;
          default:
            DFX_OP_REQUIRES(ctx, false,
                            absl::InvalidArgumentError(
                                absl::StrCat("csv: data type ", out_types_[f],
                                             " not supported in field ", f)));
        }
      }
    }
  }

 private:
  static void CopyDefault(const Tensor& def, Tensor* out, int64_t i) {
    switch (def.dtype()) {
      case DT_INT32:
        out->data<int32_t>()[i] = def.data<int32_t>()[0];
        break;
      case DT_INT64:
        out->data<int64_t>()[i] = def.data<int64_t>()[0];
        break;
      case DT_FLOAT:
        out->data<float>()[i] = def.data<float>()[0];
        break;
      case DT_DOUBLE:
        out->data<double>()[i] = def.data<double>()[0];
        break;
      case DT_STRING:
        out->data<std::string>()[i] = def.data<std::string>()[0];
        break;
      default:
        break;
    }
  }

  bool Selected(size_t selector, int64_t field) const {
    return select_cols_.empty() || select_cols_[selector] == field;
  }

  // TensorFlow's ExtractFields: RFC 4180 fields (quotes doubled inside a
  // quoted field), CR and LF between fields skipped, a trailing delimiter
  // adding an empty last field; with select_cols only those fields.
  absl::Status ExtractFields(absl::string_view in,
                             std::vector<std::string>* result) const {
    if (in.empty()) return absl::OkStatus();
    size_t at = 0;
    int64_t parsed = 0;
    size_t selector = 0;
    while (at < in.size()) {
      if (in[at] == '\n' || in[at] == '\r') {
        ++at;
        continue;
      }
      const bool include = Selected(selector, parsed);
      bool quoted = false;
      if (use_quote_delim_ && in[at] == '"') {
        quoted = true;
        ++at;
      }
      std::string field;
      if (!quoted) {
        while (at < in.size() && in[at] != delim_) {
          if ((use_quote_delim_ && in[at] == '"') || in[at] == '\n' ||
              in[at] == '\r') {
            return absl::InvalidArgumentError(
                "Unquoted fields cannot have quotes/CRLFs inside");
          }
          if (include) field += in[at];
          ++at;
        }
        ++at;
      } else {
        while (at < in.size() - 1 && (in[at] != '"' || in[at + 1] != delim_)) {
          if (in[at] != '"') {
            if (include) field += in[at];
            ++at;
          } else {
            if (in[at + 1] != '"') {
              return absl::InvalidArgumentError(
                  "Quote inside a string has to be escaped by another quote");
            }
            if (include) field += '"';
            at += 2;
          }
        }
        if (!(at < in.size() && in[at] == '"' &&
              (at == in.size() - 1 || in[at + 1] == delim_))) {
          return absl::InvalidArgumentError(
              "Quoted field has to end with quote followed by delim or end");
        }
        at += 2;
      }
      ++parsed;
      if (include) {
        result->push_back(std::move(field));
        ++selector;
        if (selector == select_cols_.size()) return absl::OkStatus();
      }
    }
    if (Selected(selector, parsed) && in.back() == delim_) {
      result->push_back(std::string());
    }
    return absl::OkStatus();
  }

  DataTypeVector out_types_;
  std::vector<int64_t> select_cols_;
  char delim_ = ',';
  bool use_quote_delim_ = true;
  std::string na_value_;
};

class ParseTensorOp : public OpKernel {
 public:
  explicit ParseTensorOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("out_type", &out_type_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& serialized = ctx->input(0);
    DFX_OP_REQUIRES(ctx, serialized.dims() == 0,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Expected `serialized` to be a scalar, got shape: ",
                        serialized.shape().DebugString())));
    const std::string& bytes = serialized.scalar<std::string>();
    TensorProto proto;
    DFX_OP_REQUIRES(ctx, proto.ParseFromString(bytes),
                    absl::InvalidArgumentError(absl::StrCat(
                        "Could not parse `serialized` as TensorProto, base64: ",
                        absl::Base64Escape(bytes))));
    absl::StatusOr<Tensor> t = Tensor::FromProto(proto);
    DFX_OP_REQUIRES_OK(ctx, t.status());
    DFX_OP_REQUIRES(
        ctx, t->dtype() == out_type_,
        absl::InvalidArgumentError(absl::StrCat(
            "Type mismatch between parsed tensor (", DataTypeString(t->dtype()),
            ") and dtype (", DataTypeString(out_type_), ")")));
    ctx->set_output(0, *std::move(t));
  }

 private:
  DataType out_type_ = DT_FLOAT;
};

// SerializeTensor: strings in string_val, everything else in
// tensor_content, as TensorFlow writes them.
class SerializeTensorOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& t = ctx->input(0);
    TensorProto proto;
    if (t.dtype() == DT_STRING) {
      t.AsProtoField(&proto);
    } else {
      t.AsProtoTensorContent(&proto);
    }
    ctx->set_output(0, Tensor::Scalar<std::string>(proto.SerializeAsString()));
  }
};

}  // namespace

void RegisterTextParseKernels(KernelRegistry* registry) {
  RegisterKernel<DecodeCsvOp>(registry, KernelDefBuilder("DecodeCSV"));
  RegisterKernel<ParseTensorOp>(registry, KernelDefBuilder("ParseTensor"));
  // Variants too (TensorLists, TensorMaps, ragged tensors), as in
  // TensorFlow: each element's VariantTensorDataProto in tensor_content.
  DataTypeVector serializable = PodAndStringTypes();
  serializable.push_back(DT_VARIANT);
  RegisterKernel<SerializeTensorOp>(
      registry, KernelDefBuilder("SerializeTensor")
                    .TypeConstraint("T", std::move(serializable)));
}

}  // namespace dfx::text

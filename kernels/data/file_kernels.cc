// Input files: TFRecordDataset (TensorFlow's record format, every record's
// length and data checked against their masked CRC32C; TFRecordDatasetV2's
// byte_offsets say where each file's first record starts) and TextLineDataset
// (one element per line), plain or ZLIB/GZIP, each file confined to the
// server's --data-dir as every file op is. And ParseExampleV2 for
// tf.train.Example records (tf.io.parse_example and parse_single_example
// with FixedLenFeature and VarLenFeature).
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "kernels/data/dataset.h"
#include "kernels/data/record_file.h"
#include "kernels/data/split_provider.h"
#include "kernels/data_flow/data_flow_util.h"
#include "proto/example.pb.h"

namespace dfx::data {
namespace {

// The records (or lines) of `filenames`, file after file.
class FileDataset final : public DatasetBase {
 public:
  // `offsets`: empty, or where each file's first record starts
  // (TFRecordDatasetV2's byte_offsets), one per file.
  FileDataset(std::string node, std::vector<std::string> filenames,
              bool lines, Compression compression,
              std::vector<int64_t> offsets = {})
      : DatasetBase({DT_STRING}),
        node_(std::move(node)),
        filenames_(std::move(filenames)),
        lines_(lines),
        compression_(compression),
        offsets_(std::move(offsets)) {}

  std::string DebugString() const override {
    return absl::StrCat(lines_ ? "TextLineDataset(" : "TFRecordDataset(",
                        filenames_.size(), " files)");
  }
  absl::StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(
      IteratorContext*) const override {
    return std::unique_ptr<IteratorBase>(new Iterator(Self<FileDataset>()));
  }

 private:
  class Iterator final : public IteratorBase {
   public:
    explicit Iterator(std::shared_ptr<const FileDataset> d)
        : d_(std::move(d)) {}
    absl::Status GetNext(IteratorContext*, std::vector<Tensor>* out,
                         bool* end) override {
      std::string value;
      while (true) {
        if (reader_ == nullptr) {
          // A tf.data service worker's copy: the files of the dispatcher's
          // splits.
          if (SplitProvider* splits = splits_.Of(d_.get())) {
            DFX_RETURN_IF_ERROR(NextSplitFile(
                *splits, *d_, d_->filenames_.size(), &next_file_, end));
            if (*end) return absl::OkStatus();
          }
          if (next_file_ >= d_->filenames_.size()) {
            *end = true;
            return absl::OkStatus();
          }
          DFX_RETURN_IF_ERROR(OpenNextFile());
        }
        DFX_ASSIGN_OR_RETURN(bool got, Next(&value));
        if (got) break;
        reader_.reset();
      }
      ++read_in_file_;
      *end = false;
      out->assign(1, Tensor::Scalar<std::string>(std::move(value)));
      return absl::OkStatus();
    }

    // The file being read and how many of its elements were read; a
    // restore reopens the file and reads past them (compressed files
    // cannot seek).
    absl::Status Save(const std::string& prefix,
                      IteratorState* state) override {
      state->WriteInt(prefix, "next_file", static_cast<int64_t>(next_file_));
      state->WriteInt(prefix, "open", reader_ != nullptr);
      state->WriteInt(prefix, "read_in_file", read_in_file_);
      return absl::OkStatus();
    }
    absl::Status Restore(IteratorContext*, const std::string& prefix,
                         const IteratorState& state) override {
      DFX_ASSIGN_OR_RETURN(int64_t next_file,
                           state.ReadInt(prefix, "next_file"));
      DFX_ASSIGN_OR_RETURN(int64_t open, state.ReadInt(prefix, "open"));
      DFX_ASSIGN_OR_RETURN(int64_t read, state.ReadInt(prefix, "read_in_file"));
      const int64_t files = static_cast<int64_t>(d_->filenames_.size());
      if (next_file < 0 || next_file > files || (open != 0 && next_file < 1) ||
          read < 0) {
        return absl::InvalidArgumentError(
            "the file dataset iterator's saved state is malformed");
      }
      reader_.reset();
      next_file_ = static_cast<size_t>(next_file);
      read_in_file_ = 0;
      if (open == 0) return absl::OkStatus();
      --next_file_;
      DFX_RETURN_IF_ERROR(OpenNextFile());
      std::string value;
      for (; read_in_file_ < read; ++read_in_file_) {
        DFX_ASSIGN_OR_RETURN(bool got, Next(&value));
        if (!got) {
          return absl::DataLossError(absl::StrCat(
              d_->filenames_[next_file_ - 1], " has fewer than ", read,
              " elements now: it changed since the iterator was saved"));
        }
      }
      return absl::OkStatus();
    }

   private:
    absl::Status OpenNextFile() {
      DFX_ASSIGN_OR_RETURN(
          reader_, FileReader::Open(d_->node_, d_->filenames_[next_file_],
                                    d_->compression_));
      if (!d_->offsets_.empty()) {
        DFX_RETURN_IF_ERROR(
            reader_->Skip(static_cast<uint64_t>(d_->offsets_[next_file_]))
                .status());
      }
      ++next_file_;
      read_in_file_ = 0;
      return absl::OkStatus();
    }
    absl::StatusOr<bool> Next(std::string* value) {
      return d_->lines_ ? reader_->NextLine(value) : reader_->NextRecord(value);
    }

    const std::shared_ptr<const FileDataset> d_;
    std::unique_ptr<FileReader> reader_;
    SourceSplits splits_;
    size_t next_file_ = 0;
    int64_t read_in_file_ = 0;  // elements of the open file read
  };

  const std::string node_;
  const std::vector<std::string> filenames_;
  const bool lines_;
  const Compression compression_;
  const std::vector<int64_t> offsets_;
};

class FileDatasetOp final : public OpKernel {
 public:
  explicit FileDatasetOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), lines_(ctx->def().op() == "TextLineDataset") {
    set_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& names = ctx->input(0);
    DFX_OP_REQUIRES(ctx, names.dtype() == DT_STRING && names.dims() <= 1,
                    absl::InvalidArgumentError(
                        "`filenames` must be a scalar or a vector."));
    const Tensor& compression = ctx->input(1);
    DFX_OP_REQUIRES(
        ctx, compression.dtype() == DT_STRING && compression.NumElements() == 1,
        absl::InvalidArgumentError("compression_type must be a scalar string"));
    const std::string& type = compression.data<std::string>()[0];
    // TFRecordDataset also reads SNAPPY (TensorFlow's block framing);
    // TextLineDataset does not.
    absl::StatusOr<Compression> kind =
        !lines_ && type == "SNAPPY" ? Compression::kSnappy
                                    : ParseCompression(type);
    DFX_OP_REQUIRES_OK(ctx, kind.status());
    std::vector<int64_t> offsets;
    if (v2_) {
      // TFRecordDatasetV2: a scalar or vector of offsets, one per file (or
      // none at all: no seeking).
      const Tensor& t = ctx->input(3);
      DFX_OP_REQUIRES(ctx, t.dtype() == DT_INT64 && t.dims() <= 1,
                      absl::InvalidArgumentError(
                          "`byte_offsets` must be a scalar or a vector."));
      DFX_OP_REQUIRES(ctx, t.dims() == names.dims(),
                      absl::InvalidArgumentError(
                          "`byte_offsets` must be of same size as `filenames`"));
      // TensorFlow checks only the ranks and reads past a shorter vector.
      DFX_OP_REQUIRES(
          ctx, t.NumElements() == 0 || t.NumElements() == names.NumElements(),
          absl::InvalidArgumentError(absl::StrCat(
              "`byte_offsets` must be of same size as `filenames`: ",
              t.NumElements(), " offsets for ", names.NumElements(),
              " files")));
      for (int64_t i = 0; i < t.NumElements(); ++i) {
        DFX_OP_REQUIRES(ctx, t.data<int64_t>()[i] >= 0,
                        absl::InvalidArgumentError(absl::StrCat(
                            "`byte_offsets` must be >= 0, not ",
                            t.data<int64_t>()[i])));
        offsets.push_back(t.data<int64_t>()[i]);
      }
    }
    std::vector<std::string> files(names.data<std::string>(),
                                   names.data<std::string>() +
                                       names.NumElements());
    SetDatasetOutput(ctx, 0,
                     std::make_shared<FileDataset>(name(), std::move(files),
                                                   lines_, *kind,
                                                   std::move(offsets)));
  }

 private:
  const bool lines_;
  const bool v2_ = def().op() == "TFRecordDatasetV2";
};

// ---------------------------------------------------------------------------
// ParseExampleV2: FixedLenFeature (dense) and VarLenFeature (sparse).

class ParseExampleOp final : public OpKernel {
 public:
  explicit ParseExampleOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    int64_t num_sparse = 0;
    DataTypeVector ragged;
    ctx->SetStatus(ctx->GetAttr("num_sparse", &num_sparse));
    ctx->SetStatus(ctx->GetAttr("ragged_value_types", &ragged));
    ctx->SetStatus(ctx->GetAttr("Tdense", &dense_types_));
    if (!ctx->status().ok()) return;
    ctx->SetStatus(ctx->GetAttr("sparse_types", &sparse_types_));
    if (!ctx->status().ok()) return;
    if (!ragged.empty()) {
      ctx->SetStatus(absl::UnimplementedError(
          "ParseExampleV2: dfx parses FixedLenFeature and VarLenFeature; "
          "RaggedFeature is not supported yet"));
      return;
    }
    if (num_sparse != static_cast<int64_t>(sparse_types_.size())) {
      ctx->SetStatus(absl::InvalidArgumentError(
          "num_sparse must equal the number of sparse_types"));
      return;
    }
    const AttrValue* shapes = FindNodeAttr(ctx->def(), "dense_shapes");
    if (shapes == nullptr ||
        shapes->list().shape_size() != static_cast<int>(dense_types_.size())) {
      ctx->SetStatus(absl::InvalidArgumentError(
          "dense_shapes must have one shape per dense key"));
      return;
    }
    for (const TensorShapeProto& p : shapes->list().shape()) {
      TensorShape s;
      for (const auto& d : p.dim()) {
        if (d.size() < 0) {
          ctx->SetStatus(absl::UnimplementedError(
              "ParseExampleV2: dense features of variable length "
              "(FixedLenSequenceFeature) are not supported yet"));
          return;
        }
        ctx->SetStatus(s.AddDim(d.size()));
      }
      dense_shapes_.push_back(s);
    }
  }

  void Compute(OpKernelContext* ctx) override {
    // Inputs: serialized, names, sparse_keys, dense_keys, ragged_keys,
    // dense_defaults...; outputs: each sparse feature's indices, then
    // values, then shapes, then the dense values (no ragged).
    const Tensor& serialized = ctx->input(0);
    const Tensor& sparse_keys = ctx->input(2);
    const Tensor& keys = ctx->input(3);
    const int n = static_cast<int>(dense_types_.size());
    const int ns = static_cast<int>(sparse_types_.size());
    DFX_OP_REQUIRES(ctx,
                    sparse_keys.dtype() == DT_STRING &&
                        sparse_keys.NumElements() == ns,
                    absl::InvalidArgumentError(absl::StrCat(
                        "sparse_keys must hold ", ns, " keys")));
    DFX_OP_REQUIRES(
        ctx, serialized.dtype() == DT_STRING && serialized.dims() <= 1,
        absl::InvalidArgumentError("serialized must be a scalar or a vector"));
    DFX_OP_REQUIRES(ctx,
                    keys.dtype() == DT_STRING && keys.NumElements() == n,
                    absl::InvalidArgumentError(absl::StrCat(
                        "dense_keys must hold ", n, " keys")));
    const int64_t batch = serialized.NumElements();
    std::vector<Tensor> outs(n);
    for (int k = 0; k < n; ++k) {
      TensorShape shape;
      if (serialized.dims() == 1) {
        DFX_OP_REQUIRES_OK(ctx, shape.AddDim(batch));
      }
      for (int d = 0; d < dense_shapes_[k].dims(); ++d) {
        DFX_OP_REQUIRES_OK(ctx, shape.AddDim(dense_shapes_[k].dim_size(d)));
      }
      absl::StatusOr<Tensor> t =
          Tensor::Allocate(ctx->allocator(), dense_types_[k], shape);
      DFX_OP_REQUIRES_OK(ctx, t.status());
      outs[k] = *std::move(t);
    }
    Example example;
    // Each sparse feature's values, per example.
    std::vector<std::vector<Tensor>> sparse(ns, std::vector<Tensor>(batch));
    for (int64_t b = 0; b < batch; ++b) {
      DFX_OP_REQUIRES(
          ctx, example.ParseFromString(serialized.data<std::string>()[b]),
          absl::InvalidArgumentError(absl::StrCat(
              "Could not parse example input, value: '",
              serialized.data<std::string>()[b].substr(0, 64), "'")));
      for (int k = 0; k < n; ++k) {
        DFX_OP_REQUIRES_OK(ctx, Fill(ctx, example, keys.data<std::string>()[k],
                                     k, b, &outs[k]));
      }
      for (int k = 0; k < ns; ++k) {
        absl::StatusOr<Tensor> values = Values(
            example, sparse_keys.data<std::string>()[k], sparse_types_[k]);
        DFX_OP_REQUIRES_OK(ctx, values.status());
        sparse[k][b] = *std::move(values);
      }
    }
    for (int k = 0; k < ns; ++k) {
      SetSparse(ctx, k, ns, sparse[k], serialized.dims() == 1);
    }
    for (int k = 0; k < n; ++k) ctx->set_output(3 * ns + k, std::move(outs[k]));
  }

 private:
  // The values of feature `key` (none when absent), a vector of `dtype`.
  static absl::StatusOr<Tensor> Values(const Example& example,
                                       const std::string& key,
                                       DataType dtype) {
    const auto& features = example.features().feature();
    auto it = features.find(key);
    const Feature* f = it == features.end() ? nullptr : &it->second;
    auto mismatch = [&]() {
      return absl::InvalidArgumentError(absl::StrCat(
          "Key: ", key, ".  Data types don't match. Expected type: ",
          DataTypeString(dtype)));
    };
    switch (dtype) {
      case DT_FLOAT: {
        if (f != nullptr && f->kind_case() != Feature::KIND_NOT_SET &&
            !f->has_float_list()) {
          return mismatch();
        }
        std::vector<float> v;
        if (f != nullptr) {
          v.assign(f->float_list().value().begin(),
                   f->float_list().value().end());
        }
        return Tensor::FromVector<float>(v);
      }
      case DT_INT64: {
        if (f != nullptr && f->kind_case() != Feature::KIND_NOT_SET &&
            !f->has_int64_list()) {
          return mismatch();
        }
        std::vector<int64_t> v;
        if (f != nullptr) {
          v.assign(f->int64_list().value().begin(),
                   f->int64_list().value().end());
        }
        return Tensor::FromVector<int64_t>(v);
      }
      case DT_STRING: {
        if (f != nullptr && f->kind_case() != Feature::KIND_NOT_SET &&
            !f->has_bytes_list()) {
          return mismatch();
        }
        const int size = f == nullptr ? 0 : f->bytes_list().value_size();
        Tensor t(DT_STRING, TensorShape({size}));
        for (int i = 0; i < size; ++i) {
          t.data<std::string>()[i] = f->bytes_list().value(i);
        }
        return t;
      }
      default:
        return absl::InvalidArgumentError(absl::StrCat(
            "feature ", key, " must be float, int64 or string, not ",
            DataTypeString(dtype)));
    }
  }

  // Sets sparse feature k's indices, values and shape from its values per
  // example: indices (example, position) rows, or (position) for one
  // scalar example; the shape is [examples, longest] or [longest].
  static void SetSparse(OpKernelContext* ctx, int k, int ns,
                        const std::vector<Tensor>& per_example, bool batched) {
    int64_t total = 0, longest = 0;
    for (const Tensor& v : per_example) {
      total += v.NumElements();
      longest = std::max(longest, v.NumElements());
    }
    const int64_t rank = batched ? 2 : 1;
    Tensor indices(DT_INT64, TensorShape({total, rank}));
    Tensor values(per_example.empty() ? DT_FLOAT : per_example[0].dtype(),
                  TensorShape({total}));
    int64_t at = 0;
    for (size_t b = 0; b < per_example.size(); ++b) {
      const Tensor& v = per_example[b];
      for (int64_t j = 0; j < v.NumElements(); ++j, ++at) {
        int64_t* row = indices.data<int64_t>() + at * rank;
        if (batched) {
          row[0] = static_cast<int64_t>(b);
          row[1] = j;
        } else {
          row[0] = j;
        }
      }
      data_flow::CopyElements(v, 0, &values, at - v.NumElements(),
                              v.NumElements());
    }
    std::vector<int64_t> shape;
    if (batched) shape.push_back(static_cast<int64_t>(per_example.size()));
    shape.push_back(longest);
    ctx->set_output(k, std::move(indices));
    ctx->set_output(ns + k, std::move(values));
    ctx->set_output(2 * ns + k, Tensor::FromVector<int64_t>(shape));
  }

  absl::Status Fill(OpKernelContext* ctx, const Example& example,
                    const std::string& key, int k, int64_t b,
                    Tensor* out) const {
    const int64_t per = dense_shapes_[k].num_elements();
    const int64_t at = b * per;
    const DataType dtype = dense_types_[k];
    const auto& features = example.features().feature();
    auto it = features.find(key);
    if (it == features.end() ||
        it->second.kind_case() == Feature::KIND_NOT_SET) {
      const Tensor& fallback =
        ctx->input(5 + k);  // dense_defaults follow the four key inputs
      if (fallback.NumElements() == 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Feature: ", key, " (data type: ", DataTypeString(dtype),
            ") is required but could not be found."));
      }
      if (fallback.dtype() != dtype ||
          (fallback.NumElements() != per && fallback.NumElements() != 1)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "the default of feature ", key, " has the wrong type or size"));
      }
      for (int64_t i = 0; i < per; ++i) {
        const int64_t from = fallback.NumElements() == 1 ? 0 : i;
        switch (dtype) {
          case DT_FLOAT:
            out->data<float>()[at + i] = fallback.data<float>()[from];
            break;
          case DT_INT64:
            out->data<int64_t>()[at + i] = fallback.data<int64_t>()[from];
            break;
          default:
            out->data<std::string>()[at + i] =
                fallback.data<std::string>()[from];
        }
      }
      return absl::OkStatus();
    }
    const Feature& f = it->second;
    auto bad = [&](int64_t got) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Key: ", key, ".  Can't parse serialized Example: expected ", per,
          " values of type ", DataTypeString(dtype), ", got ", got));
    };
    switch (dtype) {
      case DT_FLOAT:
        if (!f.has_float_list()) return bad(-1);
        if (f.float_list().value_size() != per) {
          return bad(f.float_list().value_size());
        }
        std::copy(f.float_list().value().begin(), f.float_list().value().end(),
                  out->data<float>() + at);
        return absl::OkStatus();
      case DT_INT64:
        if (!f.has_int64_list()) return bad(-1);
        if (f.int64_list().value_size() != per) {
          return bad(f.int64_list().value_size());
        }
        std::copy(f.int64_list().value().begin(), f.int64_list().value().end(),
                  out->data<int64_t>() + at);
        return absl::OkStatus();
      case DT_STRING:
        if (!f.has_bytes_list()) return bad(-1);
        if (f.bytes_list().value_size() != per) {
          return bad(f.bytes_list().value_size());
        }
        for (int64_t i = 0; i < per; ++i) {
          out->data<std::string>()[at + i] = f.bytes_list().value(i);
        }
        return absl::OkStatus();
      default:
        return absl::InvalidArgumentError(absl::StrCat(
            "feature ", key, ": a dense feature must be float, int64 or "
            "string, not ", DataTypeString(dtype)));
    }
  }

  DataTypeVector dense_types_;
  DataTypeVector sparse_types_;
  std::vector<TensorShape> dense_shapes_;
};

}  // namespace

void RegisterFileDatasetKernels(KernelRegistry* registry) {
  RegisterKernel<FileDatasetOp>(registry, KernelDefBuilder("TFRecordDataset"));
  RegisterKernel<FileDatasetOp>(registry,
                                KernelDefBuilder("TFRecordDatasetV2"));
  RegisterKernel<FileDatasetOp>(registry, KernelDefBuilder("TextLineDataset"));
  RegisterKernel<ParseExampleOp>(registry, KernelDefBuilder("ParseExampleV2"));
}

}  // namespace dfx::data

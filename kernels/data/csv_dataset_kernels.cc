// CSVDataset, CSVDatasetV2 and ExperimentalCSVDataset
// (tf.data.experimental.CsvDataset): one element per record of each file,
// a scalar per selected column, with TensorFlow 2.21's parsing and errors.
//
// The file is read as a stream of characters, not line by line: a quoted
// field may hold the delimiter, a doubled quote and line breaks; records
// end at "\n", "\r" or "\r\n" outside quotes, or at the file's end. As in
// TensorFlow, a malformed field does not stop the parse at once: the rest
// of the record is read, its first error returned, and the next GetNext
// starts at the following record. Fields convert as DecodeCSV's do (an
// empty field or na_value takes the column's default; InvalidArgument
// "Field i is required but missing in record!" when it has none).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "kernels/data/dataset.h"
#include "kernels/data/record_file.h"
#include "kernels/data/state_util.h"

namespace dfx::data {
namespace {

struct CsvOptions {
  DataTypeVector types;
  std::vector<Tensor> defaults;  // one per output, 0 or 1 elements
  std::vector<int64_t> select;   // strictly increasing, or empty
  std::vector<int64_t> exclude;  // strictly increasing, or empty
  bool header = false;
  bool use_quote_delim = true;
  char delim = ',';
  std::string na_value;
  Compression compression = Compression::kNone;
  size_t chunk = 0;  // bytes read from the file at a time
};

// One file's bytes, a chunk at a time.
class CharSource {
 public:
  CharSource(std::unique_ptr<FileReader> reader, size_t chunk)
      : reader_(std::move(reader)), chunk_(chunk) {}

  // The next byte, or -1 at the end of the file.
  absl::StatusOr<int> Peek() {
    if (at_ >= buffer_.size()) {
      if (eof_) return -1;
      buffer_.resize(chunk_);
      DFX_ASSIGN_OR_RETURN(size_t got,
                           reader_->Read(buffer_.data(), buffer_.size()));
      buffer_.resize(got);
      at_ = 0;
      if (got == 0) {
        eof_ = true;
        return -1;
      }
    }
    return static_cast<unsigned char>(buffer_[at_]);
  }
  // The next byte, consumed; -1 at the end.
  absl::StatusOr<int> Get() {
    DFX_ASSIGN_OR_RETURN(int c, Peek());
    if (c >= 0) ++at_;
    return c;
  }

 private:
  const std::unique_ptr<FileReader> reader_;
  const size_t chunk_;
  std::string buffer_;
  size_t at_ = 0;
  bool eof_ = false;
};

class CsvDataset final : public DatasetBase {
 public:
  CsvDataset(std::string node, std::vector<std::string> files, CsvOptions o)
      : DatasetBase(o.types),
        node_(std::move(node)),
        files_(std::move(files)),
        o_(std::move(o)) {}

  std::string DebugString() const override {
    return absl::StrCat("CSVDataset(", files_.size(), " files, ",
                        o_.types.size(), " columns)");
  }
  absl::StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(
      IteratorContext*) const override {
    return std::unique_ptr<IteratorBase>(new Iterator(Self<CsvDataset>()));
  }

 private:
  class Iterator final : public IteratorBase {
   public:
    explicit Iterator(std::shared_ptr<const CsvDataset> d) : d_(std::move(d)) {}

    absl::Status GetNext(IteratorContext*, std::vector<Tensor>* out,
                         bool* end) override {
      const CsvOptions& o = d_->o_;
      while (true) {
        if (src_ != nullptr) {
          out->clear();
          bool eof = false;
          absl::Status s = ReadRecord(out, /*skip=*/false, &eof);
          if (!eof) {
            ++records_;
            *end = false;
            if (s.ok() && out->size() != o.types.size()) {
              s = absl::InvalidArgumentError(
                  absl::StrCat("Expect ", o.types.size(), " fields but have ",
                               out->size(), " in record"));
            }
            if (!s.ok()) out->clear();
            return s;
          }
          DFX_RETURN_IF_ERROR(s);  // a read error at the file's end
          src_.reset();
          ++next_file_;
        }
        if (next_file_ >= d_->files_.size()) {
          *end = true;
          return absl::OkStatus();
        }
        DFX_RETURN_IF_ERROR(OpenFile());
      }
    }

    // The file reached and, while it is open, the records read from it
    // (read again, unconverted, on restore).
    absl::Status Save(const std::string& prefix,
                      IteratorState* state) override {
      state->WriteInt(prefix, "next_file", static_cast<int64_t>(next_file_));
      if (src_ != nullptr) state->WriteInt(prefix, "records", records_);
      return absl::OkStatus();
    }
    absl::Status Restore(IteratorContext*, const std::string& prefix,
                         const IteratorState& state) override {
      DFX_ASSIGN_OR_RETURN(
          int64_t next_file,
          ReadIntInRange(state, prefix, "next_file", 0,
                         static_cast<int64_t>(d_->files_.size())));
      next_file_ = static_cast<size_t>(next_file);
      src_.reset();
      records_ = 0;
      if (!state.Contains(prefix, "records")) return absl::OkStatus();
      DFX_ASSIGN_OR_RETURN(int64_t records,
                           ReadIntInRange(state, prefix, "records", 0,
                                          std::numeric_limits<int64_t>::max()));
      if (next_file_ >= d_->files_.size()) {
        return absl::InvalidArgumentError(
            absl::StrCat("the iterator state's entry ", prefix,
                         "/records is set past the last file"));
      }
      // A header that fails failed a GetNext before the save already.
      absl::Status opened = OpenFile();
      if (src_ == nullptr) return opened;
      for (; records_ < records; ++records_) {
        bool eof = false;
        absl::Status s = ReadRecord(nullptr, /*skip=*/true, &eof);
        if (eof) {
          return absl::InvalidArgumentError(absl::StrCat(
              "the iterator state's entry ", prefix, "/records is ", records,
              ": ", d_->files_[next_file_], " has ", records_, " records now"));
        }
        // A read error: a record that failed when it was read before.
        if (!s.ok() && !absl::IsInvalidArgument(s)) return s;
      }
      return absl::OkStatus();
    }

   private:
    // Opens files_[next_file_] and reads its header, if any.
    absl::Status OpenFile() {
      const CsvOptions& o = d_->o_;
      records_ = 0;
      DFX_ASSIGN_OR_RETURN(
          std::unique_ptr<FileReader> reader,
          FileReader::Open(d_->node_, d_->files_[next_file_], o.compression));
      src_ = std::make_unique<CharSource>(std::move(reader), o.chunk);
      if (o.header) {
        // Parsed as a record (its quoted fields may hold line breaks),
        // nothing kept. On failure the file stays open past what was
        // read, as in TensorFlow.
        bool eof = false;
        absl::Status s = ReadRecord(nullptr, /*skip=*/true, &eof);
        if (!s.ok() || eof) {
          return absl::InvalidArgumentError("Can't read header of file");
        }
      }
      return absl::OkStatus();
    }

    // Reads one record, converting its selected fields into `out` (none
    // when `skip`). `*eof` when the file has no record left. The first
    // error of its fields, once the whole record is read; a read error at
    // once.
    absl::Status ReadRecord(std::vector<Tensor>* out, bool skip, bool* eof) {
      const CsvOptions& o = d_->o_;
      DFX_ASSIGN_OR_RETURN(int first, src_->Peek());
      if (first < 0) {
        *eof = true;
        return absl::OkStatus();
      }
      const bool select_all = o.select.empty() && o.exclude.empty();
      bool end_of_record = false;
      size_t parsed = 0, selected = 0, excluded = 0;
      absl::Status result;
      while (!end_of_record) {
        const bool explicit_exclude =
            excluded < o.exclude.size() &&
            o.exclude[excluded] == static_cast<int64_t>(parsed);
        const bool include =
            !skip && (select_all ||
                      (selected < o.select.size() &&
                       o.select[selected] == static_cast<int64_t>(parsed)) ||
                      (!o.exclude.empty() && !explicit_exclude));
        absl::Status field_status;
        DFX_RETURN_IF_ERROR(
            ParseField(out, include, &end_of_record, &field_status));
        result.Update(field_status);
        ++parsed;
        if (include) ++selected;
        if (explicit_exclude) ++excluded;
      }
      return result;
    }

    // Parses the field at the reader's position and the delimiter or line
    // break after it. The field's own error (a stray quote, a bad value)
    // goes to `*field_status`; the returned status is a read error or an
    // unterminated quoted field.
    absl::Status ParseField(std::vector<Tensor>* out, bool include,
                            bool* end_of_record, absl::Status* field_status) {
      const CsvOptions& o = d_->o_;
      DFX_ASSIGN_OR_RETURN(int c, src_->Peek());
      std::string value;
      if (c < 0) {
        // A delimiter ended the file: one more, empty field.
        *end_of_record = true;
        if (include) *field_status = ToOutput(value, out);
        return absl::OkStatus();
      }
      if (o.use_quote_delim && c == '"') {
        DFX_RETURN_IF_ERROR(src_->Get().status());  // the opening quote
        while (true) {
          DFX_ASSIGN_OR_RETURN(int ch, src_->Get());
          if (ch < 0) {
            return absl::InvalidArgumentError(
                "Reached end of file without closing quoted field in "
                "record");
          }
          if (ch != '"') {
            value.push_back(static_cast<char>(ch));
            continue;
          }
          DFX_ASSIGN_OR_RETURN(int next, src_->Get());
          if (next < 0) {
            *end_of_record = true;
            break;
          }
          if (next == o.delim) break;
          if (next == '\n' || next == '\r') {
            *end_of_record = true;
            if (next == '\r') DFX_RETURN_IF_ERROR(SkipLineFeed());
            break;
          }
          if (next == '"') {
            value.push_back('"');
            continue;
          }
          // Kept to the field's end; the field is then not converted.
          include = false;
          field_status->Update(absl::InvalidArgumentError(
              "Quote inside a string has to be escaped by another quote"));
        }
        if (include) field_status->Update(ToOutput(value, out));
        return absl::OkStatus();
      }
      while (true) {
        DFX_ASSIGN_OR_RETURN(int ch, src_->Get());
        if (ch < 0) {
          *end_of_record = true;
          break;
        }
        if (ch == o.delim) break;
        if (ch == '\n' || ch == '\r') {
          *end_of_record = true;
          if (ch == '\r') DFX_RETURN_IF_ERROR(SkipLineFeed());
          break;
        }
        if (o.use_quote_delim && ch == '"') {
          field_status->Update(absl::InvalidArgumentError(
              "Unquoted fields cannot have quotes inside"));
        }
        value.push_back(static_cast<char>(ch));
      }
      if (include) field_status->Update(ToOutput(value, out));
      return absl::OkStatus();
    }

    // After a "\r": its "\n", if one follows.
    absl::Status SkipLineFeed() {
      absl::StatusOr<int> c = src_->Peek();
      if (c.ok() && *c == '\n') DFX_RETURN_IF_ERROR(src_->Get().status());
      return absl::OkStatus();
    }

    // Appends `field` converted to the next output's dtype.
    absl::Status ToOutput(const std::string& field, std::vector<Tensor>* out) {
      const CsvOptions& o = d_->o_;
      const size_t i = out->size();
      if (i >= o.types.size()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Expect ", o.types.size(), " fields but have more in record"));
      }
      const DataType dtype = o.types[i];
      out->emplace_back(dtype, TensorShape());
      Tensor& t = out->back();
      const Tensor& fallback = o.defaults[i];
      const bool missing = field.empty() || field == o.na_value;
      if (missing && fallback.NumElements() != 1) {
        return absl::InvalidArgumentError(
            absl::StrCat("Field ", i, " is required but missing in record!"));
      }
      auto bad = [&](const char* type) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Field ", i, " in record is not a valid ", type, ": ", field));
      };
      switch (dtype) {
        case DT_INT32:
          if (missing) {
            t.data<int32_t>()[0] = fallback.data<int32_t>()[0];
          } else if (!absl::SimpleAtoi(field, &t.data<int32_t>()[0])) {
            return bad("int32");
          }
          break;
        case DT_INT64:
          if (missing) {
            t.data<int64_t>()[0] = fallback.data<int64_t>()[0];
          } else if (!absl::SimpleAtoi(field, &t.data<int64_t>()[0])) {
            return bad("int64");
          }
          break;
        case DT_FLOAT:
          if (missing) {
            t.data<float>()[0] = fallback.data<float>()[0];
          } else if (!absl::SimpleAtof(field, &t.data<float>()[0])) {
            return bad("float");
          }
          break;
        case DT_DOUBLE:
          if (missing) {
            t.data<double>()[0] = fallback.data<double>()[0];
          } else if (!absl::SimpleAtod(field, &t.data<double>()[0])) {
            return bad("double");
          }
          break;
        case DT_STRING:
          t.data<std::string>()[0] =
              missing ? fallback.data<std::string>()[0] : field;
          break;
        default:
          return absl::InvalidArgumentError(
              absl::StrCat("csv: data type ", DataTypeString(dtype),
                           " not supported in field ", i));
      }
      return absl::OkStatus();
    }

    const std::shared_ptr<const CsvDataset> d_;
    std::unique_ptr<CharSource> src_;
    size_t next_file_ = 0;
    int64_t records_ = 0;  // read from src_, its header not counted
  };

  const std::string node_;
  const std::vector<std::string> files_;
  const CsvOptions o_;
};

// A scalar input of dtype `dtype`; InvalidArgument naming it otherwise.
absl::StatusOr<const Tensor*> Scalar(OpKernelContext* ctx, int index,
                                     absl::string_view name, DataType dtype) {
  const Tensor& t = ctx->input(index);
  if (t.dtype() != dtype || t.dims() != 0) {
    return absl::InvalidArgumentError(absl::StrCat(name, " must be a scalar"));
  }
  return &t;
}

class CsvDatasetOp final : public DatasetOpKernel {
 public:
  explicit CsvDatasetOp(OpKernelConstruction* ctx)
      : DatasetOpKernel(ctx), v2_(ctx->def().op() == "CSVDatasetV2") {}

 private:
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    // TensorFlow's checks, in its order.
    const Tensor& names = ctx->input(0);
    if (names.dtype() != DT_STRING || names.dims() > 1) {
      return absl::InvalidArgumentError(
          "`filenames` must be a scalar or a vector.");
    }
    DFX_ASSIGN_OR_RETURN(const Tensor* compression,
                         Scalar(ctx, 1, "compression_type", DT_STRING));
    CsvOptions o;
    o.types = output_types();
    const int n = static_cast<int>(o.types.size());
    const int defaults_at = 8;
    for (int i = 0; i < n; ++i) {
      const Tensor& d = ctx->input(defaults_at + i);
      if (d.dims() > 1) {
        return absl::InvalidArgumentError(
            "Each record default should be at most rank 1");
      }
      if (d.NumElements() >= 2) {
        return absl::InvalidArgumentError(
            absl::StrCat("There should only be 1 default per field but field ",
                         i, " has ", d.NumElements()));
      }
      if (d.dtype() != o.types[i]) {
        return absl::InvalidArgumentError(absl::StrCat(
            "record default ", i, " is ", DataTypeString(d.dtype()),
            ", its column ", DataTypeString(o.types[i])));
      }
      o.defaults.push_back(d);
    }
    const Tensor& select = ctx->input(7);
    if (select.dtype() != DT_INT64 || select.dims() != 1) {
      return absl::InvalidArgumentError("`select_cols` must be a vector.");
    }
    if (v2_) {
      const Tensor& exclude = ctx->input(defaults_at + n);
      if (exclude.dtype() != DT_INT64 || exclude.dims() != 1) {
        return absl::InvalidArgumentError("`exclude_cols` must be a vector");
      }
      o.exclude.assign(exclude.data<int64_t>(),
                       exclude.data<int64_t>() + exclude.NumElements());
    }
    DFX_ASSIGN_OR_RETURN(int64_t buffer_size,
                         ScalarInt64Input(ctx, 2, "buffer_size"));
    if (buffer_size <= 0) {
      return absl::InvalidArgumentError("buffer_size should be positive");
    }
    DFX_ASSIGN_OR_RETURN(const Tensor* delim,
                         Scalar(ctx, 4, "field_delim", DT_STRING));
    if (delim->data<std::string>()[0].size() != 1) {
      return absl::InvalidArgumentError("field_delim should be only 1 char");
    }
    o.delim = delim->data<std::string>()[0][0];
    DFX_ASSIGN_OR_RETURN(o.header, ScalarBoolInput(ctx, 3, "header"));
    DFX_ASSIGN_OR_RETURN(o.use_quote_delim,
                         ScalarBoolInput(ctx, 5, "use_quote_delim"));
    DFX_ASSIGN_OR_RETURN(const Tensor* na,
                         Scalar(ctx, 6, "na_value", DT_STRING));
    o.na_value = na->data<std::string>()[0];
    const std::string& type = compression->data<std::string>()[0];
    absl::StatusOr<Compression> kind = ParseCompression(type);
    if (!kind.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("Unsupported compression_type: ", type, "."));
    }
    o.compression = *kind;
    // A hostile buffer_size must not size the read buffer.
    o.chunk = static_cast<size_t>(std::min<int64_t>(buffer_size, 1 << 20));
    o.select.assign(select.data<int64_t>(),
                    select.data<int64_t>() + select.NumElements());
    if (!o.select.empty() && o.select.size() != o.types.size()) {
      return absl::InvalidArgumentError("select_cols should match output size");
    }
    for (size_t i = 1; i < o.select.size(); ++i) {
      if (o.select[i - 1] >= o.select[i]) {
        return absl::InvalidArgumentError(
            "select_cols should be strictly increasing indices");
      }
    }
    if (!o.select.empty() && o.select.front() < 0) {
      return absl::InvalidArgumentError(
          "select_cols should be non-negative indices");
    }
    if (!o.select.empty() && !o.exclude.empty()) {
      return absl::InvalidArgumentError(
          "Either select_cols or exclude_cols should be empty");
    }
    for (size_t i = 1; i < o.exclude.size(); ++i) {
      if (o.exclude[i - 1] >= o.exclude[i]) {
        return absl::InvalidArgumentError(
            "exclude_cols should be strictly increasing indices");
      }
    }
    if (!o.exclude.empty() && o.exclude.front() < 0) {
      return absl::InvalidArgumentError(
          "exclude_cols should be non-negative indices");
    }
    std::vector<std::string> files(
        names.data<std::string>(),
        names.data<std::string>() + names.NumElements());
    return std::make_shared<CsvDataset>(name(), std::move(files), std::move(o));
  }

  const bool v2_;
};

}  // namespace

void RegisterCsvDatasetKernels(KernelRegistry* registry) {
  for (const char* op :
       {"CSVDataset", "CSVDatasetV2", "ExperimentalCSVDataset"}) {
    RegisterKernel<CsvDatasetOp>(registry, KernelDefBuilder(op));
  }
}

}  // namespace dfx::data

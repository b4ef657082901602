// FixedLengthRecordDataset (and V2, with compression), MatchingFilesDataset,
// the thread-pool datasets, NonSerializableDataset and DatasetToTFRecord,
// with TensorFlow 2.21's semantics and errors; each file confined to the
// server's --data-dir as every file op is. The CSV datasets are in
// csv_dataset_kernels.cc.
#include <fnmatch.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "base/status_macros.h"
#include "kernels/data/dataset.h"
#include "kernels/data/element_util.h"
#include "kernels/data/elements_dataset.h"
#include "kernels/data/record_file.h"
#include "kernels/data/split_provider.h"
#include "kernels/data/state_util.h"
#include "kernels/data_flow/data_flow_util.h"
#include "runtime/cancellation.h"
#include "runtime/file_policy.h"
#include "runtime/resource_mgr.h"

namespace dfx::data {

void RegisterCsvDatasetKernels(KernelRegistry* registry);

namespace {

namespace fs = std::filesystem;

// The string scalar at input `index`; InvalidArgument naming it otherwise.
absl::StatusOr<std::string> ScalarStringInput(OpKernelContext* ctx, int index,
                                              absl::string_view name) {
  const Tensor& t = ctx->input(index);
  if (t.dtype() != DT_STRING || t.dims() != 0) {
    return absl::InvalidArgumentError(absl::StrCat(name, " must be a scalar"));
  }
  return t.data<std::string>()[0];
}

// The file names at input 0: a scalar or a vector of strings.
absl::StatusOr<std::vector<std::string>> FilenamesInput(OpKernelContext* ctx) {
  const Tensor& names = ctx->input(0);
  if (names.dtype() != DT_STRING || names.dims() > 1) {
    return absl::InvalidArgumentError(
        "`filenames` must be a scalar or a vector.");
  }
  return std::vector<std::string>(
      names.data<std::string>(),
      names.data<std::string>() + names.NumElements());
}

// ---------------------------------------------------------------------------
// FixedLengthRecordDataset: each file's records of record_bytes bytes
// between a header and a footer. Uncompressed, the body's length must be a
// multiple of record_bytes (InvalidArgument before the file's first
// record); compressed, a short last record is DataLoss when it is reached,
// as TensorFlow reads the inflated stream ahead by the footer's length.

struct FixedLengthOptions {
  int64_t header = 0, record = 0, footer = 0;
  Compression compression = Compression::kNone;
};

class FixedLengthRecordDataset final : public DatasetBase {
 public:
  FixedLengthRecordDataset(std::string node, std::vector<std::string> files,
                           FixedLengthOptions options)
      : DatasetBase({DT_STRING}),
        node_(std::move(node)),
        files_(std::move(files)),
        options_(options) {}

  std::string DebugString() const override {
    return absl::StrCat("FixedLengthRecordDataset(", files_.size(),
                        " files, record_bytes=", options_.record, ")");
  }
  absl::StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(
      IteratorContext*) const override {
    return std::unique_ptr<IteratorBase>(
        new Iterator(Self<FixedLengthRecordDataset>()));
  }

 private:
  class Iterator final : public IteratorBase {
   public:
    explicit Iterator(std::shared_ptr<const FixedLengthRecordDataset> d)
        : d_(std::move(d)) {}

    absl::Status GetNext(IteratorContext*, std::vector<Tensor>* out,
                         bool* end) override {
      const FixedLengthOptions& o = d_->options_;
      while (true) {
        if (reader_ != nullptr) {
          std::string record;
          DFX_ASSIGN_OR_RETURN(bool got, NextRecord(&record));
          if (got) {
            ++read_in_file_;
            *end = false;
            out->assign(1, Tensor::Scalar<std::string>(std::move(record)));
            return absl::OkStatus();
          }
          reader_.reset();
          ++next_file_;
        }
        // A tf.data service worker's copy: the files of the dispatcher's
        // splits.
        if (SplitProvider* splits = splits_.Of(d_.get())) {
          DFX_RETURN_IF_ERROR(
              NextSplitFile(*splits, *d_, d_->files_.size(), &next_file_, end));
          if (*end) return absl::OkStatus();
        }
        if (next_file_ >= d_->files_.size()) {
          *end = true;
          return absl::OkStatus();
        }
        const std::string& file = d_->files_[next_file_];
        if (o.compression == Compression::kNone) {
          DFX_ASSIGN_OR_RETURN(std::string resolved,
                               ResolveDataPath(d_->node_, file));
          std::error_code ec;
          const uintmax_t size = fs::file_size(resolved, ec);
          if (ec) {
            return absl::NotFoundError(
                absl::StrCat(file, "; No such file or directory"));
          }
          // TensorFlow's unsigned arithmetic, a file shorter than its
          // header and footer included.
          const uint64_t body = static_cast<uint64_t>(size) -
                                static_cast<uint64_t>(o.header + o.footer);
          if (body % static_cast<uint64_t>(o.record) != 0) {
            return absl::InvalidArgumentError(absl::StrCat(
                "Excluding the header (", o.header, " bytes) and footer (",
                o.footer, " bytes), input file \"", file, "\" has body length ",
                body,
                " bytes, which is not an exact multiple of the record "
                "length (",
                o.record, " bytes)."));
          }
          limit_ = static_cast<int64_t>(size) - o.footer;
        }
        DFX_ASSIGN_OR_RETURN(reader_,
                             FileReader::Open(d_->node_, file, o.compression));
        read_in_file_ = 0;
        DFX_ASSIGN_OR_RETURN(uint64_t skipped,
                             reader_->Skip(static_cast<uint64_t>(o.header)));
        pos_ = static_cast<int64_t>(skipped);
        if (skipped < static_cast<uint64_t>(o.header)) {
          reader_.reset();
          ++next_file_;
          return absl::OutOfRangeError(
              absl::StrCat("reached end of file skipping the ", o.header,
                           "-byte header of ", file));
        }
        lookahead_.clear();
        if (o.compression != Compression::kNone) {
          // The footer's length read ahead: a record is only a record when
          // a footer's worth of bytes follows it.
          lookahead_.resize(static_cast<size_t>(o.footer));
          DFX_ASSIGN_OR_RETURN(size_t got,
                               reader_->Read(lookahead_.data(), o.footer));
          pos_ += static_cast<int64_t>(got);
          if (got < lookahead_.size()) {
            reader_.reset();
            ++next_file_;
            return absl::OutOfRangeError(
                absl::StrCat("reached end of file reading the ", o.footer,
                             "-byte footer of ", file));
          }
        }
      }
    }

    // The file being read and how many of its records were read; a restore
    // reopens it and reads past them (compressed files cannot seek).
    absl::Status Save(const std::string& prefix,
                      IteratorState* state) override {
      state->WriteInt(prefix, "file", static_cast<int64_t>(next_file_));
      state->WriteInt(prefix, "read_in_file",
                      reader_ != nullptr ? read_in_file_ : 0);
      return absl::OkStatus();
    }
    absl::Status Restore(IteratorContext* ctx, const std::string& prefix,
                         const IteratorState& state) override {
      DFX_ASSIGN_OR_RETURN(int64_t file, state.ReadInt(prefix, "file"));
      DFX_ASSIGN_OR_RETURN(int64_t read, state.ReadInt(prefix, "read_in_file"));
      if (file < 0 || file > static_cast<int64_t>(d_->files_.size()) ||
          read < 0 ||
          (read > 0 && file == static_cast<int64_t>(d_->files_.size()))) {
        return absl::InvalidArgumentError(
            "the FixedLengthRecordDataset iterator's saved state is "
            "malformed");
      }
      reader_.reset();
      next_file_ = static_cast<size_t>(file);
      std::vector<Tensor> skipped;
      for (int64_t i = 0; i < read; ++i) {
        bool end = false;
        DFX_RETURN_IF_ERROR(GetNext(ctx, &skipped, &end));
        if (end || next_file_ != static_cast<size_t>(file)) {
          return absl::DataLossError(absl::StrCat(
              d_->files_[file], " has fewer than ", read,
              " records now: it changed since the iterator was saved"));
        }
      }
      return absl::OkStatus();
    }

   private:
    // The next record of the open file; false at its end.
    absl::StatusOr<bool> NextRecord(std::string* record) {
      const FixedLengthOptions& o = d_->options_;
      const std::string& file = d_->files_[next_file_];
      if (o.compression == Compression::kNone) {
        if (pos_ >= limit_) return false;
        record->resize(static_cast<size_t>(o.record));
        DFX_ASSIGN_OR_RETURN(size_t got,
                             reader_->Read(record->data(), record->size()));
        pos_ += static_cast<int64_t>(got);
        if (got < record->size()) {
          return absl::OutOfRangeError(
              absl::StrCat("reached end of file reading a record of ", file));
        }
        return true;
      }
      std::string next(static_cast<size_t>(o.record), '\0');
      DFX_ASSIGN_OR_RETURN(size_t got, reader_->Read(next.data(), next.size()));
      const int64_t before = pos_;
      pos_ += static_cast<int64_t>(got);
      if (got == 0) return false;
      if (got < next.size()) {
        return absl::DataLossError(absl::StrCat(
            "Excluding the header (", o.header, " bytes) and footer (",
            o.footer, " bytes), input file \"", file, "\" has body length ",
            before + static_cast<int64_t>(got) - (o.header + o.footer),
            " bytes, which is not an exact multiple of the record length (",
            o.record, " bytes)."));
      }
      lookahead_ += next;
      record->assign(lookahead_, 0, static_cast<size_t>(o.record));
      lookahead_.erase(0, static_cast<size_t>(o.record));
      return true;
    }

    const std::shared_ptr<const FixedLengthRecordDataset> d_;
    std::unique_ptr<FileReader> reader_;
    SourceSplits splits_;
    size_t next_file_ = 0;
    int64_t read_in_file_ = 0;  // records of the open file read
    int64_t pos_ = 0;    // bytes of the (inflated) file read so far
    int64_t limit_ = 0;  // uncompressed: where the footer starts
    std::string lookahead_;
  };

  const std::string node_;
  const std::vector<std::string> files_;
  const FixedLengthOptions options_;
};

class FixedLengthRecordDatasetOp final : public OpKernel {
 public:
  explicit FixedLengthRecordDatasetOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), v2_(ctx->def().op() == "FixedLengthRecordDatasetV2") {
    set_expensive(false);
  }

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<std::vector<std::string>> files = FilenamesInput(ctx);
    DFX_OP_REQUIRES_OK(ctx, files.status());
    FixedLengthOptions o;
    struct Bound {
      int index;
      const char* name;
      int64_t* value;
      int64_t min;
      const char* error;
    };
    int64_t buffer_size = 0;
    const Bound bounds[] = {
        {1, "header_bytes", &o.header, 0, "`header_bytes` must be >= 0"},
        {2, "record_bytes", &o.record, 1, "`record_bytes` must be > 0"},
        {3, "footer_bytes", &o.footer, 0, "`footer_bytes` must be >= 0"},
        {4, "buffer_size", &buffer_size, 0, "`buffer_size` must be >= 0"},
    };
    for (const Bound& b : bounds) {
      absl::StatusOr<int64_t> v = ScalarInt64Input(ctx, b.index, b.name);
      DFX_OP_REQUIRES_OK(ctx, v.status());
      DFX_OP_REQUIRES(ctx, *v >= b.min, absl::InvalidArgumentError(b.error));
      *b.value = *v;
    }
    if (v2_) {
      absl::StatusOr<std::string> type =
          ScalarStringInput(ctx, 5, "compression_type");
      DFX_OP_REQUIRES_OK(ctx, type.status());
      absl::StatusOr<Compression> kind = ParseCompression(*type);
      DFX_OP_REQUIRES(
          ctx, kind.ok(),
          absl::InvalidArgumentError("Unsupported compression_type."));
      o.compression = *kind;
    }
    SetDatasetOutput(ctx, 0,
                     std::make_shared<FixedLengthRecordDataset>(
                         name(), *std::move(files), o));
  }

 private:
  const bool v2_;
};

// ---------------------------------------------------------------------------
// MatchingFilesDataset: the files each pattern matches (glob syntax, '*'
// and '?' never matching '/'), in ascending order per pattern, patterns one
// after another. NotFound "Don't find any matched files" at the end when no
// pattern matched anything.

class MatchingFilesDataset final : public DatasetBase {
 public:
  MatchingFilesDataset(std::string node, std::vector<std::string> patterns)
      : DatasetBase({DT_STRING}),
        node_(std::move(node)),
        patterns_(std::move(patterns)) {}

  std::string DebugString() const override {
    return absl::StrCat("MatchingFilesDataset(", patterns_.size(),
                        " patterns)");
  }
  absl::StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(
      IteratorContext*) const override {
    return std::unique_ptr<IteratorBase>(
        new Iterator(Self<MatchingFilesDataset>()));
  }

 private:
  class Iterator final : public IteratorBase {
   public:
    explicit Iterator(std::shared_ptr<const MatchingFilesDataset> d)
        : d_(std::move(d)) {}

    absl::Status GetNext(IteratorContext*, std::vector<Tensor>* out,
                         bool* end) override {
      while (next_ >= matches_.size()) {
        if (next_pattern_ >= d_->patterns_.size()) {
          *end = true;
          if (any_) return absl::OkStatus();
          return absl::NotFoundError("Don't find any matched files");
        }
        matches_.clear();
        next_ = 0;
        DFX_RETURN_IF_ERROR(
            Match(d_->node_, d_->patterns_[next_pattern_], &matches_));
        ++next_pattern_;
      }
      any_ = true;
      *end = false;
      out->assign(1, Tensor::Scalar<std::string>(matches_[next_++]));
      return absl::OkStatus();
    }

    // The pattern reached and its matches (not matched again on restore).
    absl::Status Save(const std::string& prefix,
                      IteratorState* state) override {
      state->WriteInt(prefix, "next_pattern",
                      static_cast<int64_t>(next_pattern_));
      state->WriteTensor(prefix, "matches",
                         Tensor::FromVector<std::string>(matches_));
      state->WriteInt(prefix, "next", static_cast<int64_t>(next_));
      state->WriteInt(prefix, "any", any_ ? 1 : 0);
      return absl::OkStatus();
    }
    absl::Status Restore(IteratorContext*, const std::string& prefix,
                         const IteratorState& state) override {
      DFX_ASSIGN_OR_RETURN(
          int64_t next_pattern,
          ReadIntInRange(state, prefix, "next_pattern", 0,
                         static_cast<int64_t>(d_->patterns_.size())));
      DFX_ASSIGN_OR_RETURN(Tensor matches, state.ReadTensor(prefix, "matches"));
      if (matches.dtype() != DT_STRING || matches.dims() != 1) {
        return absl::InvalidArgumentError(
            absl::StrCat("the iterator state's entry ", prefix,
                         "/matches is not a string vector"));
      }
      DFX_ASSIGN_OR_RETURN(
          int64_t next,
          ReadIntInRange(state, prefix, "next", 0, matches.NumElements()));
      DFX_ASSIGN_OR_RETURN(int64_t any,
                           ReadIntInRange(state, prefix, "any", 0, 1));
      next_pattern_ = static_cast<size_t>(next_pattern);
      matches_.assign(matches.data<std::string>(),
                      matches.data<std::string>() + matches.NumElements());
      next_ = static_cast<size_t>(next);
      any_ = any != 0;
      return absl::OkStatus();
    }

   private:
    const std::shared_ptr<const MatchingFilesDataset> d_;
    size_t next_pattern_ = 0;
    std::vector<std::string> matches_;  // of the pattern before next_pattern_
    size_t next_ = 0;
    bool any_ = false;
  };

  // The files `pattern` matches, sorted. As TensorFlow: the search starts
  // at the directory of the pattern's part before its first wildcard ("."
  // when that has none, the pattern then read as "./pattern") and
  // descends only into paths that begin with that part; NotFound when
  // that directory does not exist.
  static absl::Status Match(const std::string& node, std::string pattern,
                            std::vector<std::string>* out) {
    std::string prefix = pattern.substr(0, pattern.find_first_of("*?[\\"));
    const size_t slash = prefix.rfind('/');
    std::string dir;
    if (slash == std::string::npos) {
      dir = ".";
      pattern = "./" + pattern;
      prefix = "./" + prefix;
    } else {
      dir = slash == 0 ? "/" : prefix.substr(0, slash);
    }
    // A file matches only at the pattern's depth: '*' does not match '/'.
    const auto depth = [](const std::string& p) {
      return std::count(p.begin(), p.end(), '/');
    };
    const auto max_depth = depth(pattern);
    DFX_ASSIGN_OR_RETURN(std::string resolved, ResolveDataPath(node, dir));
    // (path as the pattern names it, real path) of directories to search.
    std::vector<std::pair<std::string, std::string>> dirs = {{dir, resolved}};
    while (!dirs.empty()) {
      auto [shown, real] = std::move(dirs.back());
      dirs.pop_back();
      std::error_code ec;
      fs::directory_iterator it(real, ec);
      if (ec) {
        // As TensorFlow: a directory that is not there fails the
        // pattern (and again at every later call).
        if (ec == std::errc::no_such_file_or_directory ||
            ec == std::errc::not_a_directory) {
          return absl::NotFoundError(
              absl::StrCat(shown, "; No such file or directory"));
        }
        return absl::PermissionDeniedError(
            absl::StrCat("cannot list directory ", shown, ": ", ec.message()));
      }
      for (; it != fs::directory_iterator(); it.increment(ec)) {
        if (ec) break;
        const std::string child =
            (shown == "/" ? "/" : shown + "/") + it->path().filename().string();
        if (!absl::StartsWith(child, prefix)) continue;
        std::error_code dir_ec;
        if (it->is_directory(dir_ec)) {
          if (depth(child) < max_depth) {
            dirs.emplace_back(child, it->path().string());
          }
        } else if (fnmatch(pattern.c_str(), child.c_str(), FNM_PATHNAME) == 0) {
          out->push_back(child);
        }
      }
    }
    std::sort(out->begin(), out->end());
    return absl::OkStatus();
  }

  const std::string node_;
  const std::vector<std::string> patterns_;
};

class MatchingFilesDatasetOp final : public OpKernel {
 public:
  explicit MatchingFilesDatasetOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& t = ctx->input(0);
    DFX_OP_REQUIRES(
        ctx, t.dtype() == DT_STRING && t.dims() <= 1,
        absl::InvalidArgumentError("`patterns` must be a scalar or a vector."));
    std::vector<std::string> patterns(t.data<std::string>(),
                                      t.data<std::string>() + t.NumElements());
    SetDatasetOutput(
        ctx, 0,
        std::make_shared<MatchingFilesDataset>(name(), std::move(patterns)));
  }
};

// ---------------------------------------------------------------------------
// ThreadPoolHandle and ThreadPoolDataset: a thread pool that TensorFlow
// runs the input's work on. dfx produces elements on the thread that asks
// (or a prefetch's), so the pool is a hint: the resource records its
// settings and the dataset passes its input through. NonSerializableDataset
// is a pass-through too (dfx never serializes a dataset).

class ThreadPoolResource final : public ResourceBase {
 public:
  static constexpr const char* kTypeName = "ThreadPoolResource";
  ThreadPoolResource(std::string display_name, int64_t num_threads)
      : display_name_(std::move(display_name)), num_threads_(num_threads) {}
  std::string TypeName() const override { return kTypeName; }
  std::string DebugString() const override {
    return absl::StrCat("ThreadPoolResource(", display_name_, ", ",
                        num_threads_, " threads)");
  }

 private:
  const std::string display_name_;
  const int64_t num_threads_;
};

std::atomic<int64_t> next_pool_id{0};

class ThreadPoolHandleOp final : public OpKernel {
 public:
  explicit ThreadPoolHandleOp(OpKernelConstruction* c) : OpKernel(c) {
    set_expensive(false);
    int64_t max_intra = 0;
    c->SetStatus(c->GetAttr("display_name", &display_name_));
    c->SetStatus(c->GetAttr("num_threads", &num_threads_));
    c->SetStatus(c->GetAttr("max_intra_op_parallelism", &max_intra));
    c->SetStatus(c->GetAttr("container", &container_));
    c->SetStatus(c->GetAttr("shared_name", &name_));
    if (!c->status().ok()) return;
    // (0: TensorFlow's default size.)
    if (num_threads_ < 0) {
      c->SetStatus(absl::InvalidArgumentError("`num_threads` must be >= 0"));
      return;
    }
    // Without a shared_name the pool belongs to this kernel.
    if (name_.empty()) {
      name_ =
          absl::StrCat("_", next_pool_id.fetch_add(1), "_", c->def().name());
    }
    ResourceMgr* rm = c->device()->resource_manager();
    if (container_.empty()) container_ = rm->default_container();
    handle_ = data_flow::SharedResourceHandle(
        *c->device(), false, container_, name_, ThreadPoolResource::kTypeName);
  }

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<std::shared_ptr<ThreadPoolResource>> pool =
        ctx->resource_manager()->LookupOrCreate<ThreadPoolResource>(
            container_, name_, [this] {
              return std::make_shared<ThreadPoolResource>(display_name_,
                                                          num_threads_);
            });
    DFX_OP_REQUIRES_OK(ctx, pool.status());
    ctx->set_output(0, handle_);
  }

 private:
  std::string display_name_;
  int64_t num_threads_ = 0;
  std::string container_;
  std::string name_;
  Tensor handle_{DT_RESOURCE, TensorShape()};
};

class PassThroughDataset final : public UnaryDataset {
 public:
  PassThroughDataset(DatasetPtr input, std::string kind)
      : UnaryDataset(input, input->output_dtypes()), kind_(std::move(kind)) {}
  int64_t Cardinality() const override { return input()->Cardinality(); }
  std::string DebugString() const override {
    return absl::StrCat(kind_, "(", input()->DebugString(), ")");
  }
  absl::StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(
      IteratorContext* ctx) const override {
    return input()->MakeIterator(ctx);
  }

 private:
  const std::string kind_;
};

// Also OptimizeDataset (dfx applies no static optimizations) and
// ChooseFastestDataset, whose inputs yield the same elements by contract:
// dfx takes the first, without timing experiments.
class PassThroughDatasetOp final : public DatasetOpKernel {
 public:
  explicit PassThroughDatasetOp(OpKernelConstruction* ctx)
      : DatasetOpKernel(ctx),
        kind_(absl::StrContains(ctx->def().op(), "ThreadPool")
                  ? "ThreadPoolDataset"
                  : absl::StrReplaceAll(ctx->def().op(),
                                        {{"Experimental", ""}})) {}

 private:
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    DFX_ASSIGN_OR_RETURN(DatasetPtr input, DatasetFromInput(ctx, 0));
    if (kind_ == "ThreadPoolDataset") {
      DFX_RETURN_IF_ERROR(
          data_flow::LookupHandle<ThreadPoolResource>(ctx, 1).status());
    }
    if (kind_ == "ChooseFastestDataset") {
      for (int i = 1; i < ctx->num_inputs(); ++i) {
        DFX_ASSIGN_OR_RETURN(DatasetPtr other, DatasetFromInput(ctx, i));
        DFX_RETURN_IF_ERROR(CheckOutputTypes(input->output_dtypes(),
                                             other->output_dtypes(),
                                             "ChooseFastestDataset"));
      }
    }
    return std::make_shared<PassThroughDataset>(std::move(input), kind_);
  }

  const std::string kind_;
};

// WrapDatasetVariant and UnwrapDatasetVariant: TensorFlow wraps a dataset
// variant to carry it through a function boundary; dfx's variant travels
// as it is.
class DatasetVariantIdentityOp final : public OpKernel {
 public:
  explicit DatasetVariantIdentityOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    DFX_OP_REQUIRES_OK(ctx, DatasetFromInput(ctx, 0).status());
    ctx->set_output(0, ctx->input(0));
  }
};

// ---------------------------------------------------------------------------
// ListDataset (tf.data.experimental.from_list): its inputs, a whole number
// of elements of len(output_types) components each, one element after
// another.

class ListDatasetOp final : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;

 private:
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    const DataTypeVector& types = output_types();
    const size_t n = static_cast<size_t>(ctx->num_inputs());
    if (types.empty() || n % types.size() != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "ListDataset: ", n, " tensors are not a whole number of elements of ",
          types.size(), " components"));
    }
    std::vector<std::vector<Tensor>> elements(n / types.size());
    for (size_t i = 0; i < n; ++i) {
      const Tensor& t = ctx->input(static_cast<int>(i));
      if (t.dtype() != types[i % types.size()]) {
        return absl::InvalidArgumentError(absl::StrCat(
            "ListDataset: tensor ", i, " is ", DataTypeString(t.dtype()),
            ", its component ", DataTypeString(types[i % types.size()])));
      }
      elements[i / types.size()].push_back(t);
    }
    return std::make_shared<ElementsDataset>("ListDataset", types,
                                             std::move(elements));
  }
};

// ---------------------------------------------------------------------------
// GroupByReducerDataset: reads its whole input first; key_func(element) picks
// each element's group (a scalar int64), init_func(key) starts a group's
// state, reduce_func(state..., element...) updates it; then one element per
// group, finalize_func(state...), smallest key first.

class GroupByReducerDataset final : public UnaryDataset {
 public:
  GroupByReducerDataset(DatasetPtr input, DataTypeVector dtypes,
                        std::vector<CapturedFunction> funcs)
      : UnaryDataset(std::move(input), std::move(dtypes)),
        funcs_(std::move(funcs)) {}

  int64_t Cardinality() const override {
    return input()->Cardinality() == kInfiniteCardinality ? kInfiniteCardinality
                                                          : kUnknownCardinality;
  }
  std::string DebugString() const override {
    return absl::StrCat("GroupByReducerDataset(", funcs_[kReduce].f->name(),
                        ")");
  }
  absl::StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(
      IteratorContext* ctx) const override {
    DFX_ASSIGN_OR_RETURN(auto in, input()->MakeIterator(ctx));
    return std::unique_ptr<IteratorBase>(
        new Iterator(Self<GroupByReducerDataset>(), std::move(in)));
  }

  enum Func { kKey, kInit, kReduce, kFinalize };

 private:
  class Iterator final : public IteratorBase {
   public:
    Iterator(std::shared_ptr<const GroupByReducerDataset> d,
             std::unique_ptr<IteratorBase> in)
        : d_(std::move(d)), in_(std::move(in)) {}

    absl::Status GetNext(IteratorContext* ctx, std::vector<Tensor>* out,
                         bool* end) override {
      const std::vector<CapturedFunction>& f = d_->funcs_;
      while (in_ != nullptr) {
        if (ctx->cancellation_manager != nullptr &&
            ctx->cancellation_manager->IsCancelled()) {
          return absl::CancelledError("Iterator was cancelled");
        }
        std::vector<Tensor> element;
        bool input_end = false;
        DFX_RETURN_IF_ERROR(in_->GetNext(ctx, &element, &input_end));
        if (input_end) {
          in_.reset();
          next_ = states_.begin();
          break;
        }
        DFX_ASSIGN_OR_RETURN(std::vector<Tensor> key_out,
                             f[kKey].Run(ctx, element));
        if (key_out.size() != 1 || key_out[0].dtype() != DT_INT64 ||
            key_out[0].NumElements() != 1) {
          return absl::InvalidArgumentError(
              "`key_func` must return a scalar int64.");
        }
        const int64_t key = key_out[0].data<int64_t>()[0];
        auto state = states_.find(key);
        if (state == states_.end()) {
          DFX_ASSIGN_OR_RETURN(std::vector<Tensor> init,
                               f[kInit].Run(ctx, std::move(key_out)));
          held_ += ElementBytes(init);
          state = states_.emplace(key, std::move(init)).first;
        }
        std::vector<Tensor> args = state->second;
        args.insert(args.end(), element.begin(), element.end());
        DFX_ASSIGN_OR_RETURN(std::vector<Tensor> reduced,
                             f[kReduce].Run(ctx, std::move(args)));
        held_ += ElementBytes(reduced) - ElementBytes(state->second);
        state->second = std::move(reduced);
        DFX_RETURN_IF_ERROR(CheckHeldElements(held_, d_->DebugString()));
      }
      if (next_ == states_.end()) {
        *end = true;
        return absl::OkStatus();
      }
      DFX_ASSIGN_OR_RETURN(*out, f[kFinalize].Run(ctx, next_->second));
      ++next_;
      *end = false;
      return absl::OkStatus();
    }

    // The input's position and each group's state; once the input is
    // read, the index of the next group to finalize.
    absl::Status Save(const std::string& prefix,
                      IteratorState* state) override {
      DFX_RETURN_IF_ERROR(
          SaveInput(*d_->input(), in_.get(), prefix + "/input", state));
      std::vector<int64_t> keys;
      std::vector<std::vector<Tensor>> states;
      for (const auto& [key, value] : states_) {
        keys.push_back(key);
        states.push_back(value);
      }
      state->WriteTensor(prefix, "keys", Tensor::FromVector<int64_t>(keys));
      WriteElements(state, prefix, "states", states);
      if (in_ == nullptr) {
        state->WriteInt(prefix, "next", std::distance(states_.begin(), next_));
      }
      return absl::OkStatus();
    }
    absl::Status Restore(IteratorContext* ctx, const std::string& prefix,
                         const IteratorState& state) override {
      DFX_RETURN_IF_ERROR(
          RestoreInput(ctx, *d_->input(), &in_, prefix + "/input", state));
      DFX_ASSIGN_OR_RETURN(Tensor keys, state.ReadTensor(prefix, "keys"));
      DFX_ASSIGN_OR_RETURN(auto states, ReadElements(state, prefix, "states"));
      if (keys.dtype() != DT_INT64 || keys.dims() != 1 ||
          keys.NumElements() != static_cast<int64_t>(states.size())) {
        return absl::InvalidArgumentError(
            absl::StrCat("the iterator state's entry ", prefix,
                         "/keys is not an int64 vector, one per state"));
      }
      states_.clear();
      held_ = 0;
      for (size_t i = 0; i < states.size(); ++i) {
        held_ += ElementBytes(states[i]);
        states_[keys.data<int64_t>()[i]] = std::move(states[i]);
      }
      next_ = states_.end();
      if (in_ == nullptr) {
        DFX_ASSIGN_OR_RETURN(
            int64_t next, ReadIntInRange(state, prefix, "next", 0,
                                         static_cast<int64_t>(states_.size())));
        next_ = std::next(states_.begin(), next);
      }
      return absl::OkStatus();
    }

   private:
    const std::shared_ptr<const GroupByReducerDataset> d_;
    std::unique_ptr<IteratorBase> in_;  // null once the input is read
    std::map<int64_t, std::vector<Tensor>> states_;
    // The next state to finalize, once the input is read.
    std::map<int64_t, std::vector<Tensor>>::iterator next_ = states_.end();
    int64_t held_ = 0;  // ElementBytes of the states
  };

  const std::vector<CapturedFunction> funcs_;  // key, init, reduce, finalize
};

class GroupByReducerDatasetOp final : public DatasetOpKernel {
 public:
  explicit GroupByReducerDatasetOp(OpKernelConstruction* ctx)
      : DatasetOpKernel(ctx) {
    static constexpr const char* kAttrs[4][2] = {
        {"key_func", "Tkey_func_other_arguments"},
        {"init_func", "Tinit_func_other_arguments"},
        {"reduce_func", "Treduce_func_other_arguments"},
        {"finalize_func", "Tfinalize_func_other_arguments"}};
    for (int i = 0; i < 4 && ctx->status().ok(); ++i) {
      DataTypeVector captured;
      ctx->SetStatus(ctx->GetAttr(kAttrs[i][1], &captured));
      if (!ctx->status().ok()) return;
      num_captured_[i] = static_cast<int>(captured.size());
      absl::StatusOr<std::shared_ptr<const DatasetFunction>> f =
          DatasetFunction::Create(ctx, kAttrs[i][0]);
      if (!f.ok()) {
        ctx->SetStatus(f.status());
        return;
      }
      f_[i] = *std::move(f);
    }
  }

 private:
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    DFX_ASSIGN_OR_RETURN(DatasetPtr input, DatasetFromInput(ctx, 0));
    std::vector<CapturedFunction> funcs(4);
    int next = 1;
    for (int i = 0; i < 4; ++i) {
      funcs[i].f = f_[i];
      for (int k = 0; k < num_captured_[i] && next < ctx->num_inputs(); ++k) {
        funcs[i].captured.push_back(ctx->input(next++));
      }
    }
    return std::make_shared<GroupByReducerDataset>(
        std::move(input), output_types(), std::move(funcs));
  }

  std::shared_ptr<const DatasetFunction> f_[4];
  int num_captured_[4] = {0, 0, 0, 0};
};

// ---------------------------------------------------------------------------
// DatasetToTFRecord: iterates its input (one string scalar per element) to
// the end, writing each element as a record of a new file.

class DatasetToTFRecordOp final : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    DFX_OP_REQUIRES_OK(ctx, Write(ctx));
  }

 private:
  absl::Status Write(OpKernelContext* ctx) {
    DFX_ASSIGN_OR_RETURN(std::string filename,
                         ScalarStringInput(ctx, 1, "filename"));
    DFX_ASSIGN_OR_RETURN(std::string type,
                         ScalarStringInput(ctx, 2, "compression_type"));
    // TensorFlow's writer logs an unknown compression_type and writes the
    // file uncompressed; SNAPPY is TensorFlow's block framing.
    const Compression compression =
        type == "SNAPPY" ? Compression::kSnappy
                         : ParseCompression(type).value_or(Compression::kNone);
    DFX_ASSIGN_OR_RETURN(std::unique_ptr<RecordWriter> writer,
                         RecordWriter::Create(name(), filename, compression));
    DFX_ASSIGN_OR_RETURN(DatasetPtr dataset, DatasetFromInput(ctx, 0));
    const DataTypeVector& dtypes = dataset->output_dtypes();
    if (dtypes.size() != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "ToTFRecordOp currently only support datasets of 1 single column, "
          "but got ",
          dtypes.size()));
    }
    if (dtypes[0] != DT_STRING) {
      return absl::InvalidArgumentError(absl::StrCat(
          "ToTFRecordOp currently only supports DT_STRING dataypes, but got ",
          DataTypeString(dtypes[0])));
    }
    IteratorContext ictx = IteratorContextOf(ctx);
    DFX_ASSIGN_OR_RETURN(std::unique_ptr<IteratorBase> it,
                         dataset->MakeIterator(&ictx));
    while (true) {
      std::vector<Tensor> element;
      bool end = false;
      DFX_RETURN_IF_ERROR(it->GetNext(&ictx, &element, &end));
      if (end) break;
      // (TensorFlow's kernel aborts on an element that is not a scalar.)
      if (element.size() != 1 || element[0].dtype() != DT_STRING ||
          element[0].dims() != 0) {
        return absl::InvalidArgumentError(
            "DatasetToTFRecord: every element must be one string scalar");
      }
      DFX_RETURN_IF_ERROR(writer->Write(element[0].data<std::string>()[0]));
    }
    return writer->Close();
  }
};

}  // namespace
}  // namespace dfx::data

namespace dfx {

void RegisterDataset3Kernels(KernelRegistry* registry) {
  using data::DatasetToTFRecordOp;
  using data::DatasetVariantIdentityOp;
  using data::FixedLengthRecordDatasetOp;
  using data::GroupByReducerDatasetOp;
  using data::ListDatasetOp;
  using data::MatchingFilesDatasetOp;
  using data::PassThroughDatasetOp;
  using data::ThreadPoolHandleOp;
  for (const char* op :
       {"FixedLengthRecordDataset", "FixedLengthRecordDatasetV2"}) {
    RegisterKernel<FixedLengthRecordDatasetOp>(registry, KernelDefBuilder(op));
  }
  for (const char* op :
       {"MatchingFilesDataset", "ExperimentalMatchingFilesDataset"}) {
    RegisterKernel<MatchingFilesDatasetOp>(registry, KernelDefBuilder(op));
  }
  for (const char* op : {"ThreadPoolHandle", "ExperimentalThreadPoolHandle"}) {
    RegisterKernel<ThreadPoolHandleOp>(registry, KernelDefBuilder(op));
  }
  for (const char* op :
       {"ThreadPoolDataset", "ExperimentalThreadPoolDataset",
        "NonSerializableDataset", "ExperimentalNonSerializableDataset",
        "OptimizeDataset", "ChooseFastestDataset",
        "ExperimentalChooseFastestDataset"}) {
    RegisterKernel<PassThroughDatasetOp>(registry, KernelDefBuilder(op));
  }
  for (const char* op : {"WrapDatasetVariant", "UnwrapDatasetVariant"}) {
    RegisterKernel<DatasetVariantIdentityOp>(registry, KernelDefBuilder(op));
  }
  RegisterKernel<ListDatasetOp>(registry, KernelDefBuilder("ListDataset"));
  for (const char* op :
       {"GroupByReducerDataset", "ExperimentalGroupByReducerDataset"}) {
    RegisterKernel<GroupByReducerDatasetOp>(registry, KernelDefBuilder(op));
  }
  for (const char* op :
       {"DatasetToTFRecord", "ExperimentalDatasetToTFRecord"}) {
    RegisterKernel<DatasetToTFRecordOp>(registry, KernelDefBuilder(op));
  }
  data::RegisterCsvDatasetKernels(registry);
}

}  // namespace dfx

// tf.data's save and load (Dataset.save / Dataset.load): SaveDataset,
// SaveDatasetV2 and LoadDataset, in TensorFlow's on-disk format (its
// snapshot format, version 2), so that a directory either one writes the
// other reads:
//
//   <path>/snapshot.metadata   a binary tensorflow.data.experimental.
//                              SnapshotMetadataRecord (run_id, version 2,
//                              dtypes, num_elements, finalized)
//   <path>/<run_id>/<shard %08u>.shard/<checkpoint %08u>.snapshot
//                              a TFRecord file ("", GZIP, ZLIB or
//                              SNAPPY), one
//                              record per component of each element: the
//                              component as a serialized TensorProto
//                              (tensor_content)
//
// An element goes to the shard its shard_func returns (a scalar int64);
// without one (use_shard_func false) round robin over the CPUs as
// TensorFlow does. LoadDataset hands reader_func a dataset of one dataset
// per shard directory (in name order) and iterates what it returns. Every
// path is confined to the server's --data-dir (runtime/file_policy.h).
// SNAPPY files are framed as TensorFlow's (kernels/data/record_file.cc).
//
// Also the family's small ops: DummyIterationCounter, DeleteMemoryCache,
// CompressElement / UncompressElement, SamplingDataset and the
// parse_example datasets (below).
#include <algorithm>
#include <cstdint>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/status_macros.h"
#include "kernels/data/dataset.h"
#include "kernels/data/elements_dataset.h"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "kernels/data/record_file.h"
#include "kernels/data/save_format.h"
#include "kernels/data/state_util.h"
#include "kernels/kernels.h"
#include "kernels/random/philox.h"
#include "runtime/cancellation.h"
#include "runtime/file_policy.h"

namespace dfx::data {
namespace {

namespace fs = std::filesystem;

constexpr int64_t kFileFormatVersion = 2;
constexpr char kMetadataFile[] = "snapshot.metadata";

// --- The metadata record, in protobuf's wire format (the few fields of
// SnapshotMetadataRecord; unknown ones are skipped when read).

struct SnapshotMetadata {
  std::string run_id;
  int64_t creation_timestamp = 0;
  int64_t version = 0;
  std::vector<int> dtypes;
  int64_t num_elements = 0;
  bool finalized = false;
};

void PutVarint(uint64_t v, std::string* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

void PutTag(int field, int wire_type, std::string* out) {
  PutVarint((static_cast<uint64_t>(field) << 3) | wire_type, out);
}

std::string EncodeMetadata(const SnapshotMetadata& m) {
  std::string out;
  PutTag(2, 2, &out);
  PutVarint(m.run_id.size(), &out);
  out += m.run_id;
  PutTag(3, 0, &out);
  PutVarint(static_cast<uint64_t>(m.creation_timestamp), &out);
  PutTag(4, 0, &out);
  PutVarint(static_cast<uint64_t>(m.version), &out);
  if (!m.dtypes.empty()) {  // packed, as proto3 writes a repeated enum
    std::string packed;
    for (int d : m.dtypes) PutVarint(static_cast<uint64_t>(d), &packed);
    PutTag(5, 2, &out);
    PutVarint(packed.size(), &out);
    out += packed;
  }
  if (m.num_elements != 0) {
    PutTag(6, 0, &out);
    PutVarint(static_cast<uint64_t>(m.num_elements), &out);
  }
  if (m.finalized) {
    PutTag(1000, 0, &out);
    PutVarint(1, &out);
  }
  return out;
}

bool GetVarint(absl::string_view* in, uint64_t* v) {
  *v = 0;
  for (int shift = 0; shift < 64 && !in->empty(); shift += 7) {
    const uint8_t b = static_cast<uint8_t>(in->front());
    in->remove_prefix(1);
    *v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) return true;
  }
  return false;
}

// False for bytes that are not a well-formed message.
bool DecodeMetadata(absl::string_view in, SnapshotMetadata* m) {
  while (!in.empty()) {
    uint64_t tag = 0, v = 0;
    if (!GetVarint(&in, &tag)) return false;
    const uint64_t field = tag >> 3;
    switch (tag & 7) {
      case 0:
        if (!GetVarint(&in, &v)) return false;
        if (field == 3) m->creation_timestamp = static_cast<int64_t>(v);
        if (field == 4) m->version = static_cast<int64_t>(v);
        if (field == 5) m->dtypes.push_back(static_cast<int>(v));
        if (field == 6) m->num_elements = static_cast<int64_t>(v);
        if (field == 1000) m->finalized = v != 0;
        break;
      case 1:
        if (in.size() < 8) return false;
        in.remove_prefix(8);
        break;
      case 5:
        if (in.size() < 4) return false;
        in.remove_prefix(4);
        break;
      case 2: {
        if (!GetVarint(&in, &v) || v > in.size()) return false;
        absl::string_view bytes = in.substr(0, v);
        in.remove_prefix(v);
        if (field == 2) m->run_id = std::string(bytes);
        if (field == 5) {
          while (!bytes.empty()) {
            if (!GetVarint(&bytes, &v)) return false;
            m->dtypes.push_back(static_cast<int>(v));
          }
        }
        break;
      }
      default:
        return false;
    }
  }
  return true;
}

// --- Paths and files.

std::string JoinPath(absl::string_view dir, absl::string_view name) {
  if (dir.empty()) return std::string(name);
  if (dir.back() == '/') return absl::StrCat(dir, name);
  return absl::StrCat(dir, "/", name);
}

std::string ShardDirectory(const std::string& run_dir, int64_t shard) {
  return JoinPath(run_dir,
                  absl::StrFormat("%08u.shard", static_cast<uint64_t>(shard)));
}

std::string CheckpointFile(const std::string& shard_dir, int64_t checkpoint) {
  return JoinPath(
      shard_dir,
      absl::StrFormat("%08u.snapshot", static_cast<uint64_t>(checkpoint)));
}

// Creates directory `dir` and its parents for node `node`.
absl::Status CreateDirs(const std::string& node, const std::string& dir) {
  DFX_ASSIGN_OR_RETURN(std::string resolved, ResolveDataPath(node, dir));
  std::error_code ec;
  fs::create_directories(resolved, ec);
  if (ec) {
    return absl::FailedPreconditionError(
        absl::StrCat("could not create directory ", dir, ": ", ec.message()));
  }
  return absl::OkStatus();
}

// Writes <path>/snapshot.metadata through a temporary file and a rename,
// as TensorFlow does, so a reader never sees half of it.
absl::Status WriteMetadata(const std::string& node, const std::string& path,
                           const SnapshotMetadata& m) {
  DFX_RETURN_IF_ERROR(CreateDirs(node, path));
  DFX_ASSIGN_OR_RETURN(std::string file,
                       ResolveDataPath(node, JoinPath(path, kMetadataFile)));
  const std::string tmp = absl::StrCat(file, "-tmp-dfx");
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    const std::string bytes = EncodeMetadata(m);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out.good()) {
      return absl::DataLossError(absl::StrCat("could not write ", tmp));
    }
  }
  std::error_code ec;
  fs::rename(tmp, file, ec);
  if (ec) {
    return absl::DataLossError(absl::StrCat("could not rename ", tmp, " to ",
                                            file, ": ", ec.message()));
  }
  return absl::OkStatus();
}

int64_t MicrosNow() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

uint64_t NewRunId() {
  std::random_device rd;
  return (static_cast<uint64_t>(rd()) << 32) ^ rd();
}

// TensorFlow's writer and reader map an unknown compression to none.
absl::StatusOr<Compression> SnapshotCompression(const std::string& type) {
  if (type == "SNAPPY") return Compression::kSnappy;
  return ParseCompression(type).value_or(Compression::kNone);
}

// The writers of one save: one TFRecord file per shard, made on the
// shard's first element.
class ShardWriters {
 public:
  ShardWriters(std::string node, std::string run_dir, Compression compression)
      : node_(std::move(node)),
        run_dir_(std::move(run_dir)),
        compression_(compression) {}

  absl::Status Write(int64_t shard, const std::vector<Tensor>& element) {
    std::unique_ptr<RecordWriter>& w = writers_[shard];
    if (w == nullptr) {
      const std::string dir = ShardDirectory(run_dir_, shard);
      DFX_RETURN_IF_ERROR(CreateDirs(node_, dir));
      DFX_ASSIGN_OR_RETURN(
          w, RecordWriter::Create(node_, CheckpointFile(dir, next_[shard]),
                                  compression_));
    }
    for (const Tensor& t : element) {
      if (t.dtype() == DT_VARIANT) {
        return absl::InvalidArgumentError(
            "saving a dataset whose elements hold variant tensors is not "
            "supported by dfx");
      }
      TensorProto proto;
      t.AsProtoTensorContent(&proto);
      DFX_RETURN_IF_ERROR(w->Write(proto.SerializeAsString()));
    }
    return absl::OkStatus();
  }

  absl::Status Close() {
    absl::Status status;
    for (auto& [shard, w] : writers_) status.Update(w->Close());
    writers_.clear();
    return status;
  }

  // Closes the open files; later writes to their shards go to the next
  // checkpoint file (what saving the writing iterator does, as
  // TensorFlow's). A shard's checkpoint files stay numbered without gaps,
  // as the reader wants them.
  absl::Status NextCheckpoint() {
    for (const auto& [shard, w] : writers_) ++next_[shard];
    return Close();
  }
  // Per shard written so far, its next checkpoint file.
  const std::map<int64_t, int64_t>& next_checkpoints() const { return next_; }

  // Writes into `run_dir`'s shards from the checkpoint files `next` on (a
  // restored iterator's), the open files dropped unwritten.
  void Reset(std::string run_dir, std::map<int64_t, int64_t> next) {
    writers_.clear();
    run_dir_ = std::move(run_dir);
    next_ = std::move(next);
  }

 private:
  const std::string node_;
  std::string run_dir_;
  const Compression compression_;
  std::map<int64_t, std::unique_ptr<RecordWriter>> writers_;
  std::map<int64_t, int64_t> next_;  // checkpoint file per shard (else 0)
};

int64_t CpuBudget() {
  const unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int64_t>(n);
}

// What both save ops read from their node: the shard function and its
// captured inputs' count, the compression.
struct SaveOptions {
  std::shared_ptr<const DatasetFunction> shard_func;
  int num_captured = 0;
  bool use_shard_func = true;
  std::string compression;
};

absl::Status ReadSaveOptions(OpKernelConstruction* ctx, SaveOptions* o) {
  DFX_RETURN_IF_ERROR(ctx->GetAttr("compression", &o->compression));
  DFX_RETURN_IF_ERROR(ctx->GetAttr("use_shard_func", &o->use_shard_func));
  DataTypeVector captured;
  DFX_RETURN_IF_ERROR(ctx->GetAttr("Tshard_func_args", &captured));
  o->num_captured = static_cast<int>(captured.size());
  DFX_ASSIGN_OR_RETURN(o->shard_func,
                       DatasetFunction::Create(ctx, "shard_func"));
  return absl::OkStatus();
}

// The shard of `element`: the shard function's scalar int64, or (without
// one) the next of `*shard` round robin over the CPUs.
absl::Status ShardIndex(IteratorContext* ictx, const SaveOptions& o,
                        const std::vector<Tensor>& captured,
                        const std::vector<Tensor>& element, int64_t* shard) {
  if (!o.use_shard_func) {
    *shard = (*shard + 1) % CpuBudget();
    return absl::OkStatus();
  }
  if (o.shard_func == nullptr) {  // (MakeSaveDataset's: one shard)
    *shard = 0;
    return absl::OkStatus();
  }
  std::vector<Tensor> args = element;
  args.insert(args.end(), captured.begin(), captured.end());
  DFX_ASSIGN_OR_RETURN(std::vector<Tensor> out,
                       o.shard_func->Run(ictx, std::move(args)));
  if (out.size() != 1 || out[0].dtype() != DT_INT64 ||
      out[0].NumElements() != 1) {
    return absl::InvalidArgumentError(
        "`shard_func` must return a scalar int64.");
  }
  *shard = out[0].data<int64_t>()[0];
  return absl::OkStatus();
}

SnapshotMetadata MakeMetadata(uint64_t run_id, const DataTypeVector& dtypes,
                              int64_t num_elements, bool finalized) {
  SnapshotMetadata m;
  m.run_id = absl::StrCat(run_id);
  m.creation_timestamp = MicrosNow();
  m.version = kFileFormatVersion;
  for (DataType d : dtypes) m.dtypes.push_back(static_cast<int>(d));
  m.num_elements = num_elements;
  m.finalized = finalized;
  return m;
}

absl::StatusOr<std::string> PathInput(OpKernelContext* ctx, int index) {
  const Tensor& t = ctx->input(index);
  if (t.dtype() != DT_STRING || t.dims() != 0) {
    return absl::InvalidArgumentError("path must be a scalar");
  }
  return t.data<std::string>()[0];
}

// ---------------------------------------------------------------------------
// SaveDataset: iterates its input to the end, writing every element.

class SaveDatasetOp final : public OpKernel {
 public:
  explicit SaveDatasetOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ReadSaveOptions(ctx, &options_));
  }

  void Compute(OpKernelContext* ctx) override {
    DFX_OP_REQUIRES_OK(ctx, Save(ctx));
  }

 private:
  absl::Status Save(OpKernelContext* ctx) {
    DFX_ASSIGN_OR_RETURN(DatasetPtr dataset, DatasetFromInput(ctx, 0));
    DFX_ASSIGN_OR_RETURN(std::string path, PathInput(ctx, 1));
    DFX_ASSIGN_OR_RETURN(Compression compression,
                         SnapshotCompression(options_.compression));
    const std::vector<Tensor> captured =
        CapturedInputs(ctx, options_.num_captured + 1);
    const std::vector<Tensor> shard_args(captured.begin() + 1, captured.end());
    const uint64_t run_id = NewRunId();
    const std::string run_dir = JoinPath(path, absl::StrCat(run_id));
    DFX_RETURN_IF_ERROR(CreateDirs(name(), run_dir));
    const DataTypeVector& dtypes = dataset->output_dtypes();
    DFX_RETURN_IF_ERROR(
        WriteMetadata(name(), path, MakeMetadata(run_id, dtypes, 0, false)));
    IteratorContext ictx = IteratorContextOf(ctx);
    DFX_ASSIGN_OR_RETURN(std::unique_ptr<IteratorBase> it,
                         dataset->MakeIterator(&ictx));
    ShardWriters writers(name(), run_dir, compression);
    int64_t num_elements = 0;
    int64_t shard = -1;
    while (true) {
      if (ctx->cancellation_manager() != nullptr &&
          ctx->cancellation_manager()->IsCancelled()) {
        return absl::CancelledError("Operation was cancelled");
      }
      std::vector<Tensor> element;
      bool end = false;
      DFX_RETURN_IF_ERROR(it->GetNext(&ictx, &element, &end));
      if (end) break;
      ++num_elements;
      DFX_RETURN_IF_ERROR(
          ShardIndex(&ictx, options_, shard_args, element, &shard));
      DFX_RETURN_IF_ERROR(writers.Write(shard, element));
    }
    DFX_RETURN_IF_ERROR(writers.Close());
    return WriteMetadata(name(), path,
                         MakeMetadata(run_id, dtypes, num_elements, true));
  }

  SaveOptions options_;
};

// ---------------------------------------------------------------------------
// SaveDatasetV2: its input's elements, each written as it passes; the
// metadata is finalized when the input ends.

class SaveDataset final : public UnaryDataset {
 public:
  SaveDataset(std::string node, DatasetPtr input, std::string path,
              Compression compression, const SaveOptions* options,
              std::vector<Tensor> captured)
      : UnaryDataset(input, input->output_dtypes()),
        node_(std::move(node)),
        path_(std::move(path)),
        compression_(compression),
        options_(*options),
        captured_(std::move(captured)) {}

  int64_t Cardinality() const override { return input()->Cardinality(); }
  std::string DebugString() const override { return "SaveDatasetV2Dataset"; }
  absl::StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(
      IteratorContext* ctx) const override {
    const uint64_t run_id = NewRunId();
    const std::string run_dir = JoinPath(path_, absl::StrCat(run_id));
    DFX_RETURN_IF_ERROR(CreateDirs(node_, run_dir));
    DFX_RETURN_IF_ERROR(WriteMetadata(
        node_, path_, MakeMetadata(run_id, output_dtypes(), 0, false)));
    DFX_ASSIGN_OR_RETURN(std::unique_ptr<IteratorBase> in,
                         input()->MakeIterator(ctx));
    return std::unique_ptr<IteratorBase>(
        new Iterator(Self<SaveDataset>(), std::move(in), run_id, run_dir));
  }

 private:
  class Iterator final : public IteratorBase {
   public:
    Iterator(std::shared_ptr<const SaveDataset> d,
             std::unique_ptr<IteratorBase> in, uint64_t run_id,
             const std::string& run_dir)
        : d_(std::move(d)),
          in_(std::move(in)),
          run_id_(run_id),
          writers_(d_->node_, run_dir, d_->compression_) {}

    absl::Status GetNext(IteratorContext* ctx, std::vector<Tensor>* out,
                         bool* end) override {
      if (!status_.ok() || closed_) {
        *end = true;
        return status_;
      }
      status_ = Next(ctx, out, end);
      return status_;
    }

    // As TensorFlow: the run and the next checkpoint file, the files
    // written so far closed (later elements go to the next checkpoint
    // file, in the saving and in a restored iterator), and the input's
    // position. A restored iterator writes into the saved run.
    absl::Status Save(const std::string& prefix,
                      IteratorState* state) override {
      if (!closed_ && status_.ok()) {
        DFX_RETURN_IF_ERROR(writers_.NextCheckpoint());
      }
      state->WriteInt(prefix, "run_id", static_cast<int64_t>(run_id_));
      std::vector<int64_t> shards, checkpoints;
      for (const auto& [shard, next] : writers_.next_checkpoints()) {
        shards.push_back(shard);
        checkpoints.push_back(next);
      }
      state->WriteTensor(prefix, "shards", Tensor::FromVector<int64_t>(shards));
      state->WriteTensor(prefix, "checkpoints",
                         Tensor::FromVector<int64_t>(checkpoints));
      state->WriteInt(prefix, "closed", closed_ ? 1 : 0);
      WriteStatus(state, prefix, "status", status_);
      return SaveIterator(*d_->input(), *in_, prefix + "/input", state);
    }
    absl::Status Restore(IteratorContext* ctx, const std::string& prefix,
                         const IteratorState& state) override {
      DFX_ASSIGN_OR_RETURN(int64_t run_id, state.ReadInt(prefix, "run_id"));
      DFX_ASSIGN_OR_RETURN(Tensor shards, state.ReadTensor(prefix, "shards"));
      DFX_ASSIGN_OR_RETURN(Tensor checkpoints,
                           state.ReadTensor(prefix, "checkpoints"));
      if (shards.dtype() != DT_INT64 || shards.dims() != 1 ||
          checkpoints.dtype() != DT_INT64 ||
          checkpoints.shape() != shards.shape()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "the iterator state's entries ", prefix, "/shards and ", prefix,
            "/checkpoints are not int64 vectors of one length"));
      }
      std::map<int64_t, int64_t> next;
      for (int64_t i = 0; i < shards.NumElements(); ++i) {
        const int64_t c = checkpoints.data<int64_t>()[i];
        if (c < 0 || c > std::numeric_limits<uint32_t>::max()) {
          return absl::InvalidArgumentError(absl::StrCat(
              "the iterator state's entry ", prefix, "/checkpoints holds ", c));
        }
        next[shards.data<int64_t>()[i]] = c;
      }
      DFX_ASSIGN_OR_RETURN(int64_t closed,
                           ReadIntInRange(state, prefix, "closed", 0, 1));
      absl::Status status;
      DFX_RETURN_IF_ERROR(ReadStatus(state, prefix, "status", &status));
      DFX_RETURN_IF_ERROR(
          RestoreIterator(*d_->input(), *in_, ctx, prefix + "/input", state));
      run_id_ = static_cast<uint64_t>(run_id);
      const std::string run_dir = JoinPath(d_->path_, absl::StrCat(run_id_));
      closed_ = closed != 0;
      status_ = status;
      if (!closed_) {
        DFX_RETURN_IF_ERROR(CreateDirs(d_->node_, run_dir));
        DFX_RETURN_IF_ERROR(WriteMetadata(
            d_->node_, d_->path_,
            MakeMetadata(run_id_, d_->output_dtypes(), 0, false)));
      }
      writers_.Reset(run_dir, std::move(next));
      return absl::OkStatus();
    }

   private:
    absl::Status Next(IteratorContext* ctx, std::vector<Tensor>* out,
                      bool* end) {
      DFX_RETURN_IF_ERROR(in_->GetNext(ctx, out, end));
      if (*end) {
        closed_ = true;
        DFX_RETURN_IF_ERROR(writers_.Close());
        // TensorFlow records the dataset's cardinality, not the count.
        return WriteMetadata(d_->node_, d_->path_,
                             MakeMetadata(run_id_, d_->output_dtypes(),
                                          d_->Cardinality(), true));
      }
      // TensorFlow starts each element's round robin afresh.
      int64_t shard = 0;
      DFX_RETURN_IF_ERROR(
          ShardIndex(ctx, d_->options_, d_->captured_, *out, &shard));
      return writers_.Write(shard, *out);
    }

    const std::shared_ptr<const SaveDataset> d_;
    const std::unique_ptr<IteratorBase> in_;
    uint64_t run_id_;
    ShardWriters writers_;
    absl::Status status_;
    bool closed_ = false;
  };

  const std::string node_;
  const std::string path_;
  const Compression compression_;
  const SaveOptions options_;
  const std::vector<Tensor> captured_;
};

class SaveDatasetV2Op final : public DatasetOpKernel {
 public:
  explicit SaveDatasetV2Op(OpKernelConstruction* ctx) : DatasetOpKernel(ctx) {
    ctx->SetStatus(ReadSaveOptions(ctx, &options_));
  }

 private:
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    DFX_ASSIGN_OR_RETURN(DatasetPtr input, DatasetFromInput(ctx, 0));
    DFX_ASSIGN_OR_RETURN(std::string path, PathInput(ctx, 1));
    DFX_ASSIGN_OR_RETURN(Compression compression,
                         SnapshotCompression(options_.compression));
    std::vector<Tensor> captured =
        CapturedInputs(ctx, options_.num_captured + 1);
    captured.erase(captured.begin());
    return std::make_shared<SaveDataset>(name(), std::move(input),
                                         std::move(path), compression,
                                         &options_, std::move(captured));
  }

  SaveOptions options_;
};

// ---------------------------------------------------------------------------
// LoadDataset. One shard's elements: its checkpoint files in turn, each
// element one record per component.

class ShardReaderDataset final : public DatasetBase {
 public:
  // start_index: elements of the first file skipped when an iterator is
  // made (SnapshotDatasetReader's input; OutOfRange past the file's end,
  // as TensorFlow).
  ShardReaderDataset(std::string node, std::string shard_dir,
                     Compression compression, DataTypeVector dtypes,
                     int64_t start_index = 0)
      : DatasetBase(std::move(dtypes)),
        node_(std::move(node)),
        shard_dir_(std::move(shard_dir)),
        compression_(compression),
        start_index_(start_index) {}

  std::string DebugString() const override { return "SnapshotDatasetReader"; }
  absl::StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(
      IteratorContext*) const override {
    auto it = std::make_unique<Iterator>(Self<ShardReaderDataset>());
    DFX_RETURN_IF_ERROR(it->Open());
    DFX_RETURN_IF_ERROR(it->Skip(start_index_));
    return std::unique_ptr<IteratorBase>(std::move(it));
  }

 private:
  class Iterator final : public IteratorBase {
   public:
    explicit Iterator(std::shared_ptr<const ShardReaderDataset> d)
        : d_(std::move(d)) {}

    // Opens the current checkpoint file; NotFound when there is none.
    absl::Status Open() {
      const std::string file = CheckpointFile(d_->shard_dir_, checkpoint_);
      DFX_ASSIGN_OR_RETURN(std::string resolved,
                           ResolveDataPath(d_->node_, file));
      std::error_code ec;
      if (!fs::is_regular_file(resolved, ec)) {
        return absl::NotFoundError(absl::StrCat(file, " not found"));
      }
      DFX_ASSIGN_OR_RETURN(reader_,
                           FileReader::Open(d_->node_, file, d_->compression_));
      return absl::OkStatus();
    }

    // Skips `n` elements of the open file.
    absl::Status Skip(int64_t n) {
      std::string record;
      const size_t records = d_->output_dtypes().size();
      for (int64_t i = 0; i < n; ++i) {
        for (size_t c = 0; c < records; ++c) {
          DFX_ASSIGN_OR_RETURN(bool got, reader_->NextRecord(&record));
          if (!got) return absl::OutOfRangeError("End of file");
        }
        ++read_;
      }
      return absl::OkStatus();
    }

    // The checkpoint file reached and the elements read from it (skipped
    // again on restore); nothing more at the end.
    absl::Status Save(const std::string& prefix,
                      IteratorState* state) override {
      state->WriteInt(prefix, "checkpoint", checkpoint_);
      if (reader_ != nullptr) state->WriteInt(prefix, "read", read_);
      return absl::OkStatus();
    }
    absl::Status Restore(IteratorContext*, const std::string& prefix,
                         const IteratorState& state) override {
      DFX_ASSIGN_OR_RETURN(checkpoint_,
                           ReadIntInRange(state, prefix, "checkpoint", 0,
                                          std::numeric_limits<int64_t>::max()));
      reader_.reset();
      read_ = 0;
      if (!state.Contains(prefix, "read")) return absl::OkStatus();
      DFX_ASSIGN_OR_RETURN(int64_t read,
                           ReadIntInRange(state, prefix, "read", 0,
                                          std::numeric_limits<int64_t>::max()));
      DFX_RETURN_IF_ERROR(Open());
      absl::Status skipped = Skip(read);
      if (absl::IsOutOfRange(skipped)) {
        return absl::InvalidArgumentError(
            absl::StrCat("the iterator state's entry ", prefix, "/read is ",
                         read, ": the shard's checkpoint file ", checkpoint_,
                         " has ", read_, " elements"));
      }
      return skipped;
    }

    absl::Status GetNext(IteratorContext*, std::vector<Tensor>* out,
                         bool* end) override {
      const DataTypeVector& dtypes = d_->output_dtypes();
      while (reader_ != nullptr) {
        out->clear();
        bool complete = true;
        for (size_t i = 0; i < dtypes.size(); ++i) {
          std::string record;
          DFX_ASSIGN_OR_RETURN(bool got, reader_->NextRecord(&record));
          if (!got) {
            complete = false;
            break;
          }
          DFX_ASSIGN_OR_RETURN(
              Tensor t, StoredComponent(record, dtypes[i], i, "a saved element",
                                        "element spec says"));
          out->push_back(std::move(t));
        }
        if (complete) {
          ++read_;
          *end = false;
          return absl::OkStatus();
        }
        // The file's end (TensorFlow drops a partial element there too):
        // on to the next checkpoint file, if any.
        reader_.reset();
        ++checkpoint_;
        read_ = 0;
        absl::Status opened = Open();
        if (absl::IsNotFound(opened)) break;
        DFX_RETURN_IF_ERROR(opened);
      }
      out->clear();
      *end = true;
      return absl::OkStatus();
    }

   private:
    const std::shared_ptr<const ShardReaderDataset> d_;
    int64_t checkpoint_ = 0;
    std::unique_ptr<FileReader> reader_;
    int64_t read_ = 0;  // elements of the open file read or skipped
  };

  const std::string node_;
  const std::string shard_dir_;
  const Compression compression_;
  const int64_t start_index_;
};

Tensor DatasetTensor(DatasetPtr d) {
  Tensor out(DT_VARIANT, TensorShape({}));
  out.data<Variant>()[0] = Variant::Make<DatasetVariant>(std::move(d));
  return out;
}

// The elements of shard datasets (one-component elements holding each a
// dataset), one shard after the other.
class ShardsInOrder final : public IteratorBase {
 public:
  ShardsInOrder(IteratorContext*, std::vector<std::vector<Tensor>> shards)
      : shards_(std::move(shards)) {}

  absl::Status GetNext(IteratorContext* ctx, std::vector<Tensor>* out,
                       bool* end) override {
    while (true) {
      if (current_ == nullptr) {
        if (next_ >= shards_.size()) {
          *end = true;
          return absl::OkStatus();
        }
        DFX_RETURN_IF_ERROR(StartShard(ctx, next_++));
      }
      out->clear();
      DFX_RETURN_IF_ERROR(current_->GetNext(ctx, out, end));
      if (!*end) return absl::OkStatus();
      current_.reset();
    }
  }

  // The shards begun and the last one's position (none once it ended).
  absl::Status Save(const std::string& prefix, IteratorState* state) override {
    state->WriteInt(prefix, "next", static_cast<int64_t>(next_));
    state->WriteInt(prefix, "in_shard", current_ != nullptr ? 1 : 0);
    if (current_ == nullptr) return absl::OkStatus();
    return SaveIterator(*current_dataset_, *current_, prefix + "/shard", state);
  }
  absl::Status Restore(IteratorContext* ctx, const std::string& prefix,
                       const IteratorState& state) override {
    DFX_ASSIGN_OR_RETURN(int64_t next,
                         ReadIntInRange(state, prefix, "next", 0,
                                        static_cast<int64_t>(shards_.size())));
    DFX_ASSIGN_OR_RETURN(
        int64_t in_shard,
        ReadIntInRange(state, prefix, "in_shard", 0, next > 0 ? 1 : 0));
    next_ = static_cast<size_t>(next);
    current_.reset();
    if (in_shard == 0) return absl::OkStatus();
    DFX_RETURN_IF_ERROR(StartShard(ctx, next_ - 1));
    return RestoreIterator(*current_dataset_, *current_, ctx, prefix + "/shard",
                           state);
  }

 private:
  absl::Status StartShard(IteratorContext* ctx, size_t i) {
    DFX_ASSIGN_OR_RETURN(current_dataset_,
                         DatasetFromTensor(shards_[i][0], "a shard"));
    DFX_ASSIGN_OR_RETURN(current_, current_dataset_->MakeIterator(ctx));
    return absl::OkStatus();
  }

  const std::vector<std::vector<Tensor>> shards_;
  size_t next_ = 0;
  DatasetPtr current_dataset_;
  std::unique_ptr<IteratorBase> current_;
};

class LoadDataset final : public DatasetBase {
 public:
  LoadDataset(std::string node, std::string path, SnapshotMetadata metadata,
              Compression compression, DataTypeVector dtypes,
              std::shared_ptr<const DatasetFunction> reader_func,
              std::vector<Tensor> captured)
      : DatasetBase(std::move(dtypes)),
        node_(std::move(node)),
        path_(std::move(path)),
        metadata_(std::move(metadata)),
        compression_(compression),
        reader_func_(std::move(reader_func)),
        captured_(std::move(captured)) {}

  int64_t Cardinality() const override { return metadata_.num_elements; }
  std::string DebugString() const override { return "LoadDataset"; }

  absl::StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(
      IteratorContext* ctx) const override {
    const std::string run_dir = JoinPath(path_, metadata_.run_id);
    DFX_ASSIGN_OR_RETURN(std::string resolved, ResolveDataPath(node_, run_dir));
    std::vector<std::string> shards;
    std::error_code ec;
    for (fs::directory_iterator it(resolved, ec), end; !ec && it != end;
         it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (name.size() > 6 && name.compare(name.size() - 6, 6, ".shard") == 0) {
        shards.push_back(name);
      }
    }
    std::sort(shards.begin(), shards.end());
    std::vector<std::vector<Tensor>> shard_datasets;
    for (const std::string& name : shards) {
      shard_datasets.push_back(
          {DatasetTensor(std::make_shared<ShardReaderDataset>(
              node_, JoinPath(run_dir, name), compression_, output_dtypes()))});
    }
    if (reader_func_ == nullptr) {  // (MakeLoadDataset's: shards in order)
      return std::unique_ptr<IteratorBase>(
          new ShardsInOrder(ctx, std::move(shard_datasets)));
    }
    DatasetPtr nested = std::make_shared<ElementsDataset>(
        "SnapshotNestedDatasetReader", DataTypeVector{DT_VARIANT},
        std::move(shard_datasets));
    std::vector<Tensor> args = {DatasetTensor(std::move(nested))};
    args.insert(args.end(), captured_.begin(), captured_.end());
    DFX_ASSIGN_OR_RETURN(std::vector<Tensor> out,
                         reader_func_->Run(ctx, std::move(args)));
    if (out.size() != 1) {
      return absl::InvalidArgumentError(
          "reader_func returns more than one argument.");
    }
    DFX_ASSIGN_OR_RETURN(DatasetPtr read,
                         DatasetFromTensor(out[0], "reader_func's result"));
    DFX_RETURN_IF_ERROR(CheckOutputTypes(output_dtypes(), read->output_dtypes(),
                                         "LoadDataset's reader_func"));
    return read->MakeIterator(ctx);
  }

 private:
  const std::string node_;
  const std::string path_;
  const SnapshotMetadata metadata_;
  const Compression compression_;
  const std::shared_ptr<const DatasetFunction> reader_func_;
  const std::vector<Tensor> captured_;
};

// The metadata under `path`: NotFound when there is none, OutOfRange when
// it does not parse.
absl::StatusOr<SnapshotMetadata> ReadMetadata(const std::string& node,
                                              const std::string& path) {
  DFX_ASSIGN_OR_RETURN(std::string file,
                       ResolveDataPath(node, JoinPath(path, kMetadataFile)));
  std::ifstream in(file, std::ios::binary);
  if (!in.is_open()) {
    return absl::NotFoundError(
        absl::StrCat("Could not find metadata file [", path, "]"));
  }
  const std::string bytes((std::istreambuf_iterator<char>(in)),
                          std::istreambuf_iterator<char>());
  SnapshotMetadata metadata;
  if (!DecodeMetadata(bytes, &metadata)) {
    // TensorFlow's code: its file stream's, which has read to the end.
    return absl::OutOfRangeError(
        absl::StrCat("Can't parse ", JoinPath(path, kMetadataFile),
                     " as binary proto: Read less bytes than requested"));
  }
  return metadata;
}

class LoadDatasetOp final : public DatasetOpKernel {
 public:
  explicit LoadDatasetOp(OpKernelConstruction* ctx) : DatasetOpKernel(ctx) {
    ctx->SetStatus(Init(ctx));
  }

 private:
  absl::Status Init(OpKernelConstruction* ctx) {
    DFX_RETURN_IF_ERROR(ctx->GetAttr("compression", &compression_));
    DataTypeVector captured;
    DFX_RETURN_IF_ERROR(ctx->GetAttr("Treader_func_args", &captured));
    num_captured_ = static_cast<int>(captured.size());
    DFX_ASSIGN_OR_RETURN(reader_func_,
                         DatasetFunction::Create(ctx, "reader_func"));
    return absl::OkStatus();
  }

  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    DFX_ASSIGN_OR_RETURN(std::string path, PathInput(ctx, 0));
    return MakeLoadDataset(name(), path, compression_, output_types(),
                           reader_func_, CapturedInputs(ctx, num_captured_));
  }

  std::string compression_;
  int num_captured_ = 0;
  std::shared_ptr<const DatasetFunction> reader_func_;
};

// ---------------------------------------------------------------------------
// SnapshotDatasetReader: one shard directory of a saved dataset (version 2
// files only; versions 0 and 1, SnapshotDataset v1's custom format, are
// Unimplemented). (SnapshotNestedDatasetReader is not served: TensorFlow
// 2.21 crashes making its iterator.)

class SnapshotDatasetReaderOp final : public DatasetOpKernel {
 public:
  explicit SnapshotDatasetReaderOp(OpKernelConstruction* ctx)
      : DatasetOpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("compression", &compression_));
    ctx->SetStatus(ctx->GetAttr("version", &version_));
  }

 private:
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    const Tensor& dir = ctx->input(0);
    if (dir.dtype() != DT_STRING || dir.dims() != 0) {
      return absl::InvalidArgumentError("shard_dir must be a scalar");
    }
    DFX_ASSIGN_OR_RETURN(int64_t start,
                         ScalarInt64Input(ctx, 1, "start_index"));
    if (version_ != kFileFormatVersion) {
      return absl::UnimplementedError(absl::StrCat(
          "SnapshotDatasetReader: dfx reads snapshot files of version 2 "
          "only, not ",
          version_));
    }
    DFX_ASSIGN_OR_RETURN(Compression compression,
                         SnapshotCompression(compression_));
    return std::make_shared<ShardReaderDataset>(
        name(), dir.data<std::string>()[0], compression, output_types(), start);
  }

  std::string compression_;
  int64_t version_ = 0;
};

// ---------------------------------------------------------------------------
// DummyIterationCounter: a handle to nothing (dfx counts no iterations).
// DeleteMemoryCache: the memory cache handles name no resource (the cache
// is its dataset's own), so there is nothing to delete; but as in
// TensorFlow 2.21, whose AnonymousMemoryCache hands out a ref-counting
// handle that its DeleteMemoryCache refuses, deleting AnonymousMemoryCache's
// handle is Internal (DummyMemoryCache's deletes).

class DummyIterationCounterOp final : public OpKernel {
 public:
  explicit DummyIterationCounterOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    Tensor out(DT_RESOURCE, TensorShape({}));
    ResourceHandle& h = out.scalar<ResourceHandle>();
    h.set_device(ctx->device()->name());
    h.set_name("_DummyIterationCounter");
    ctx->set_output(0, std::move(out));
  }
};

class DeleteMemoryCacheOp final : public OpKernel {
 public:
  explicit DeleteMemoryCacheOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& handle = ctx->input(0);
    if (handle.dtype() != DT_RESOURCE || handle.dims() != 0) {
      ctx->SetStatus(
          absl::InvalidArgumentError("handle must be a scalar resource"));
      return;
    }
    if (handle.scalar<ResourceHandle>().name() == "_AnonymousMemoryCache") {
      ctx->SetStatus(absl::InternalError(
          "Cannot delete an unowned Resource _AnonymousMemoryCache from "
          "ResourceMgr (TensorFlow 2.21 refuses AnonymousMemoryCache's "
          "ref-counting handle too)"));
    }
  }
};

// ---------------------------------------------------------------------------
// CompressElement / UncompressElement: an element's components in one
// scalar variant and back. dfx keeps the tensors as they are (TensorFlow
// snappy-compresses them, which changes nothing a graph can see); the
// value travels between dfx tasks as its tensors, not in TensorFlow's
// CompressedElement encoding.

class CompressedElementVariant final : public VariantValue {
 public:
  static constexpr char kTypeName[] = "dfx.data.CompressedElement";
  explicit CompressedElementVariant(std::vector<Tensor> components)
      : components_(std::move(components)) {}
  std::string TypeName() const override { return kTypeName; }
  void Encode(VariantTensorDataProto* proto) const override {
    for (const Tensor& t : components_) {
      t.AsProtoTensorContent(proto->add_tensors());
    }
  }
  std::string DebugString() const override {
    return absl::StrCat("CompressedElement(", components_.size(),
                        " components)");
  }
  const std::vector<Tensor>& components() const { return components_; }

 private:
  const std::vector<Tensor> components_;
};

class CompressElementOp final : public OpKernel {
 public:
  explicit CompressElementOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
  }
  void Compute(OpKernelContext* ctx) override {
    std::vector<Tensor> components;
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      if (ctx->input(i).dtype() == DT_VARIANT) {
        ctx->SetStatus(absl::InvalidArgumentError(
            "CompressElement: dfx does not compress variant components"));
        return;
      }
      components.push_back(ctx->input(i));
    }
    Tensor out(DT_VARIANT, TensorShape({}));
    out.data<Variant>()[0] =
        Variant::Make<CompressedElementVariant>(std::move(components));
    ctx->set_output(0, std::move(out));
  }
};

class UncompressElementOp final : public OpKernel {
 public:
  explicit UncompressElementOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    set_expensive(false);
    ctx->SetStatus(ctx->GetAttr("output_types", &output_types_));
  }
  void Compute(OpKernelContext* ctx) override {
    DFX_OP_REQUIRES_OK(ctx, Uncompress(ctx));
  }

 private:
  absl::Status Uncompress(OpKernelContext* ctx) {
    const Tensor& t = ctx->input(0);
    if (t.dims() != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "UncompressElement requires its input to be a scalar, but "
          "encountered an input with ",
          t.dims(), " dimensions."));
    }
    const Variant& v = t.data<Variant>()[0];
    std::vector<Tensor> components;
    if (const auto* c = v.get<CompressedElementVariant>(); c != nullptr) {
      components = c->components();
    } else if (const auto* o = v.get<OpaqueVariant>();
               o != nullptr &&
               o->TypeName() == CompressedElementVariant::kTypeName) {
      // From another task: its tensors.
      for (const TensorProto& p : o->proto().tensors()) {
        DFX_ASSIGN_OR_RETURN(Tensor c, Tensor::FromProto(p));
        components.push_back(std::move(c));
      }
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          "Input does not contain a compressed element. Instead got tensor ",
          v.DebugString()));
    }
    if (components.size() != output_types_.size()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "Expected ", output_types_.size(),
          " outputs from uncompress, but got ", components.size()));
    }
    for (size_t i = 0; i < components.size(); ++i) {
      if (components[i].dtype() != output_types_[i]) {
        return absl::FailedPreconditionError(absl::StrCat(
            "Expected a tensor of type ", DataTypeString(output_types_[i]),
            " but got a tensor of type ",
            DataTypeString(components[i].dtype())));
      }
    }
    for (size_t i = 0; i < components.size(); ++i) {
      ctx->set_output(static_cast<int>(i), std::move(components[i]));
    }
    return absl::OkStatus();
  }

  DataTypeVector output_types_;
};

// ---------------------------------------------------------------------------
// SamplingDataset: keeps each input element when a uniform float of
// TensorFlow's Philox stream (seed, seed2; both 0: random) is below
// `rate`, drawing one float per element.

class SamplingDataset final : public UnaryDataset {
 public:
  SamplingDataset(DatasetPtr input, float rate, uint64_t seed, uint64_t seed2)
      : UnaryDataset(input, input->output_dtypes()),
        rate_(rate),
        seed_(seed),
        seed2_(seed2) {}

  std::string DebugString() const override {
    return absl::StrCat("SamplingDataset(rate=", rate_, ")");
  }
  absl::StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(
      IteratorContext* ctx) const override {
    DFX_ASSIGN_OR_RETURN(std::unique_ptr<IteratorBase> in,
                         input()->MakeIterator(ctx));
    return std::unique_ptr<IteratorBase>(
        new Iterator(Self<SamplingDataset>(), std::move(in)));
  }

 private:
  class Iterator final : public IteratorBase {
   public:
    Iterator(std::shared_ptr<const SamplingDataset> d,
             std::unique_ptr<IteratorBase> in)
        : d_(std::move(d)),
          in_(std::move(in)),
          philox_(d_->seed_, d_->seed2_),
          words_(&philox_) {}

    absl::Status GetNext(IteratorContext* ctx, std::vector<Tensor>* out,
                         bool* end) override {
      while (in_ != nullptr) {
        DFX_RETURN_IF_ERROR(in_->GetNext(ctx, out, end));
        if (*end) {
          in_.reset();
          break;
        }
        ++draws_;
        if (random::Uint32ToFloat(words_()) < d_->rate_) {
          return absl::OkStatus();
        }
        out->clear();
      }
      *end = true;
      return absl::OkStatus();
    }

    // The input's position and the floats drawn so far: a restore skips
    // as many words of the dataset's Philox stream (its seeds are the
    // dataset's, drawn once when both are 0).
    absl::Status Save(const std::string& prefix,
                      IteratorState* state) override {
      DFX_RETURN_IF_ERROR(
          SaveInput(*d_->input(), in_.get(), prefix + "/input", state));
      state->WriteInt(prefix, "draws", draws_);
      return absl::OkStatus();
    }
    absl::Status Restore(IteratorContext* ctx, const std::string& prefix,
                         const IteratorState& state) override {
      DFX_RETURN_IF_ERROR(
          RestoreInput(ctx, *d_->input(), &in_, prefix + "/input", state));
      DFX_ASSIGN_OR_RETURN(draws_,
                           ReadIntInRange(state, prefix, "draws", 0,
                                          std::numeric_limits<int64_t>::max()));
      // This iterator is fresh: its stream is at its start.
      words_.Skip(static_cast<uint64_t>(draws_));
      return absl::OkStatus();
    }

   private:
    const std::shared_ptr<const SamplingDataset> d_;
    std::unique_ptr<IteratorBase> in_;
    random::Philox philox_;
    random::PhiloxWords words_;  // draws from philox_
    int64_t draws_ = 0;          // words drawn, one per input element
  };

  const float rate_;
  const uint64_t seed_;
  const uint64_t seed2_;
};

class SamplingDatasetOp final : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;

 private:
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    DFX_ASSIGN_OR_RETURN(DatasetPtr input, DatasetFromInput(ctx, 0));
    const Tensor& rate = ctx->input(1);
    if (rate.dtype() != DT_FLOAT || rate.dims() != 0) {
      return absl::InvalidArgumentError("rate must be a scalar");
    }
    DFX_ASSIGN_OR_RETURN(int64_t seed, ScalarInt64Input(ctx, 2, "seed"));
    DFX_ASSIGN_OR_RETURN(int64_t seed2, ScalarInt64Input(ctx, 3, "seed2"));
    uint64_t s1 = static_cast<uint64_t>(seed);
    uint64_t s2 = static_cast<uint64_t>(seed2);
    if (s1 == 0 && s2 == 0) {
      s1 = NewRunId();
      s2 = NewRunId();
    }
    return std::make_shared<SamplingDataset>(std::move(input),
                                             rate.data<float>()[0], s1, s2);
  }
};

// ---------------------------------------------------------------------------
// ParseExampleDataset (V2, Experimental): each element's strings (every
// component, flattened, one batch) parsed as tf.train.Examples by dfx's
// ParseExample kernel, run inline; the features come out in the order of
// their keys' names (dense, sparse and ragged keys sorted together), a
// sparse feature as a variant vector of its indices, values and shape.
// Elements are parsed in order (num_parallel_calls and determinism change
// nothing dfx shows). RaggedFeature is Unimplemented, as in dfx's
// ParseExampleV2.

// A variant holding one tensor, in the encoding DeserializeSparse reads
// (TensorFlow's "tensorflow::Tensor" kind).
Variant TensorAsVariant(const Tensor& t) {
  VariantTensorDataProto proto;
  proto.set_type_name("tensorflow::Tensor");
  t.AsProtoTensorContent(proto.add_tensors());
  return Variant::Make<OpaqueVariant>(std::move(proto));
}

struct ParseExampleSpec {
  std::vector<std::string> sparse_keys, dense_keys;
  std::shared_ptr<const OpKernel> parse;  // ParseExample
  std::vector<Tensor> dense_defaults;
  // Output index of each dense, then each sparse key.
  std::vector<int> dense_out, sparse_out;
  std::vector<TensorShapeProto> output_shapes;
  DataTypeVector output_types;
};

// Whether `shape` fits `proto` (a partial shape: unknown rank or dims -1).
bool ShapeFits(const TensorShape& shape, const TensorShapeProto& proto) {
  if (proto.unknown_rank()) return true;
  if (proto.dim_size() != shape.dims()) return false;
  for (int d = 0; d < shape.dims(); ++d) {
    if (proto.dim(d).size() >= 0 && proto.dim(d).size() != shape.dim_size(d)) {
      return false;
    }
  }
  return true;
}

class ParseExampleDataset final : public UnaryDataset {
 public:
  ParseExampleDataset(DatasetPtr input,
                      std::shared_ptr<const ParseExampleSpec> spec)
      : UnaryDataset(input, spec->output_types), spec_(std::move(spec)) {}

  int64_t Cardinality() const override { return input()->Cardinality(); }
  std::string DebugString() const override { return "ParseExampleDataset"; }
  absl::StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(
      IteratorContext* ctx) const override {
    DFX_ASSIGN_OR_RETURN(std::unique_ptr<IteratorBase> in,
                         input()->MakeIterator(ctx));
    return std::unique_ptr<IteratorBase>(
        new Iterator(Self<ParseExampleDataset>(), std::move(in)));
  }

 private:
  class Iterator final : public IteratorBase {
   public:
    Iterator(std::shared_ptr<const ParseExampleDataset> d,
             std::unique_ptr<IteratorBase> in)
        : d_(std::move(d)), in_(std::move(in)) {}

    absl::Status GetNext(IteratorContext* ctx, std::vector<Tensor>* out,
                         bool* end) override {
      std::vector<Tensor> element;
      DFX_RETURN_IF_ERROR(in_->GetNext(ctx, &element, end));
      if (*end) return absl::OkStatus();
      absl::Status s = Parse(ctx, element, out);
      if (absl::IsOutOfRange(s)) {
        // As TensorFlow: OutOfRange would read as the end of the input.
        return absl::InvalidArgumentError(absl::StrCat(
            "Function invocation produced OutOfRangeError: ", s.message()));
      }
      return s;
    }

    absl::Status Save(const std::string& prefix,
                      IteratorState* state) override {
      return SaveIterator(*d_->input(), *in_, prefix + "/input", state);
    }
    absl::Status Restore(IteratorContext* ctx, const std::string& prefix,
                         const IteratorState& state) override {
      return RestoreIterator(*d_->input(), *in_, ctx, prefix + "/input", state);
    }

   private:
    absl::Status Parse(IteratorContext* ctx, const std::vector<Tensor>& element,
                       std::vector<Tensor>* out) const {
      const ParseExampleSpec& spec = *d_->spec_;
      int64_t n = 0;
      for (const Tensor& t : element) {
        if (t.dtype() != DT_STRING) {
          return absl::InvalidArgumentError(absl::StrCat(
              "ParseExampleDataset: the input's elements must be strings, "
              "not ",
              DataTypeString(t.dtype())));
        }
        n += t.NumElements();
      }
      Tensor serialized(DT_STRING, TensorShape({n}));
      int64_t at = 0;
      for (const Tensor& t : element) {
        for (int64_t i = 0; i < t.NumElements(); ++i) {
          serialized.data<std::string>()[at++] = t.data<std::string>()[i];
        }
      }
      std::vector<Tensor> inputs = {serialized,
                                    Tensor(DT_STRING, TensorShape({0}))};
      for (const std::string& k : spec.sparse_keys) {
        inputs.push_back(Tensor::Scalar<std::string>(k));
      }
      for (const std::string& k : spec.dense_keys) {
        inputs.push_back(Tensor::Scalar<std::string>(k));
      }
      inputs.insert(inputs.end(), spec.dense_defaults.begin(),
                    spec.dense_defaults.end());
      OpKernelContext::Params params;
      params.op_kernel = const_cast<OpKernel*>(spec.parse.get());
      params.device = ctx->device;
      params.inputs = inputs;
      OpKernelContext pctx(&params);
      params.op_kernel->Compute(&pctx);
      DFX_RETURN_IF_ERROR(pctx.status());
      const std::vector<Tensor> parsed(pctx.mutable_outputs()->begin(),
                                       pctx.mutable_outputs()->end());
      const size_t ns = spec.sparse_keys.size();
      out->assign(spec.output_types.size(), Tensor());
      auto check = [&](const Tensor& t, size_t value, int index) {
        if (t.dtype() != spec.output_types[index]) {
          return absl::InvalidArgumentError(absl::StrCat(
              "Got wrong type for FastParseExample return value ", value,
              " (expected ", DataTypeString(spec.output_types[index]), ", got ",
              DataTypeString(t.dtype()), ")."));
        }
        if (!ShapeFits(t.shape(), spec.output_shapes[index])) {
          return absl::InvalidArgumentError(absl::StrCat(
              "Got wrong shape for FastParseExample return value ", value,
              " (expected another shape, got ", t.shape().DebugString(), ")."));
        }
        return absl::OkStatus();
      };
      for (size_t k = 0; k < spec.dense_keys.size(); ++k) {
        const Tensor& t = parsed[3 * ns + k];
        DFX_RETURN_IF_ERROR(check(t, k, spec.dense_out[k]));
        (*out)[spec.dense_out[k]] = t;
      }
      for (size_t k = 0; k < ns; ++k) {
        Tensor v(DT_VARIANT, TensorShape({3}));
        for (int p = 0; p < 3; ++p) {
          v.data<Variant>()[p] = TensorAsVariant(parsed[p * ns + k]);
        }
        DFX_RETURN_IF_ERROR(check(v, k, spec.sparse_out[k]));
        (*out)[spec.sparse_out[k]] = std::move(v);
      }
      return absl::OkStatus();
    }

    const std::shared_ptr<const ParseExampleDataset> d_;
    const std::unique_ptr<IteratorBase> in_;
  };

  const std::shared_ptr<const ParseExampleSpec> spec_;
};

class ParseExampleDatasetOp final : public DatasetOpKernel {
 public:
  explicit ParseExampleDatasetOp(OpKernelConstruction* ctx)
      : DatasetOpKernel(ctx) {
    ctx->SetStatus(Init(ctx));
  }

 private:
  absl::Status Init(OpKernelConstruction* ctx) {
    DFX_RETURN_IF_ERROR(ctx->GetAttr("sparse_keys", &sparse_keys_));
    DFX_RETURN_IF_ERROR(ctx->GetAttr("dense_keys", &dense_keys_));
    DFX_RETURN_IF_ERROR(ctx->GetAttr("Tdense", &dense_types_));
    DFX_RETURN_IF_ERROR(ctx->GetAttr("output_types", &output_types_));
    std::vector<std::string> ragged;
    if (FindNodeAttr(ctx->def(), "ragged_keys") != nullptr) {
      DFX_RETURN_IF_ERROR(ctx->GetAttr("ragged_keys", &ragged));
    }
    if (!ragged.empty()) {
      return absl::UnimplementedError(
          "ParseExampleDataset: dfx parses FixedLenFeature, "
          "FixedLenSequenceFeature and VarLenFeature; RaggedFeature is not "
          "supported yet");
    }
    const AttrValue* shapes = FindNodeAttr(ctx->def(), "output_shapes");
    if (shapes != nullptr) {
      output_shapes_.assign(shapes->list().shape().begin(),
                            shapes->list().shape().end());
    }
    const AttrValue* dense_shapes = FindNodeAttr(ctx->def(), "dense_shapes");
    if (dense_shapes == nullptr || dense_shapes->list().shape_size() !=
                                       static_cast<int>(dense_keys_.size())) {
      return absl::InvalidArgumentError(
          "dense_shapes must have one shape per dense key");
    }
    for (int i = 0; i < dense_shapes->list().shape_size(); ++i) {
      const TensorShapeProto& p = dense_shapes->list().shape(i);
      bool ok = !p.unknown_rank();
      for (int d = 1; ok && d < p.dim_size(); ++d) ok = p.dim(d).size() >= 0;
      if (!ok) {
        return absl::InvalidArgumentError(
            absl::StrCat("dense_shapes[", i,
                         "] has unknown rank or unknown inner dimensions"));
      }
      variable_.push_back(p.dim_size() > 0 && p.dim(0).size() < 0);
      TensorShape s;
      for (int d = 0; d < p.dim_size(); ++d) {
        if (p.dim(d).size() >= 0)
          DFX_RETURN_IF_ERROR(s.AddDim(p.dim(d).size()));
      }
      dense_shapes_.push_back(s);
    }
    // dfx's ParseExample kernel does the parsing.
    NodeDef node;
    node.set_name(absl::StrCat(name(), "/ParseExample"));
    node.set_op("ParseExample");
    AttrValue v;
    v.set_i(static_cast<int64_t>(sparse_keys_.size()));
    (*node.mutable_attr())["Nsparse"] = v;
    v.set_i(static_cast<int64_t>(dense_keys_.size()));
    (*node.mutable_attr())["Ndense"] = v;
    for (const char* attr : {"sparse_types", "Tdense", "dense_shapes"}) {
      const AttrValue* a = FindNodeAttr(ctx->def(), attr);
      if (a == nullptr) {
        return absl::InvalidArgumentError(absl::StrCat("missing attr ", attr));
      }
      (*node.mutable_attr())[attr] = *a;
    }
    DFX_ASSIGN_OR_RETURN(const OpRegistrationData* op,
                         OpRegistry::Global()->LookUpOrError("ParseExample"));
    DFX_ASSIGN_OR_RETURN(std::unique_ptr<OpKernel> parse,
                         StandardKernelRegistry()->CreateKernel(
                             node, op->op_def, ctx->device()));
    parse_ = std::move(parse);
    // Outputs in the order of the keys' names.
    std::map<std::string, int> index;
    for (const auto& k : dense_keys_) {
      if (!index.emplace(k, 0).second) {
        return absl::InvalidArgumentError(
            absl::StrCat("Duplicate key not allowed: ", k));
      }
    }
    for (const auto& k : sparse_keys_) {
      if (!index.emplace(k, 0).second) {
        return absl::InvalidArgumentError(
            absl::StrCat("Duplicate key not allowed: ", k));
      }
    }
    int i = 0;
    for (auto& [k, at] : index) at = i++;
    for (const auto& k : dense_keys_) dense_out_.push_back(index[k]);
    for (const auto& k : sparse_keys_) sparse_out_.push_back(index[k]);
    if (index.size() != output_types_.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat("output_types has ", output_types_.size(), " types for ",
                       index.size(), " features"));
    }
    return absl::OkStatus();
  }

  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    DFX_ASSIGN_OR_RETURN(DatasetPtr input, DatasetFromInput(ctx, 0));
    DFX_ASSIGN_OR_RETURN(int64_t calls,
                         ScalarInt64Input(ctx, 1, "num_parallel_calls"));
    if (calls <= 0 && calls != -1) {  // -1: AUTOTUNE
      return absl::InvalidArgumentError(
          "num_parallel_calls must be greater than zero.");
    }
    auto spec = std::make_shared<ParseExampleSpec>();
    for (size_t d = 0; d < dense_keys_.size(); ++d) {
      const Tensor& def = ctx->input(2 + static_cast<int>(d));
      if (variable_[d]) {
        if (def.NumElements() != 1) {
          return absl::InvalidArgumentError(absl::StrCat(
              "dense_shape[", d,
              "] is a variable length shape, therefore def_value[", d,
              "] must contain a single element (the padding element).  But "
              "its shape is: ",
              def.shape().DebugString()));
        }
      } else if (def.NumElements() > 0 && def.shape() != dense_shapes_[d]) {
        return absl::InvalidArgumentError(absl::StrCat(
            "def_value[", d, "].shape() == ", def.shape().DebugString(),
            " is not compatible with dense_shapes_[", d,
            "] == ", dense_shapes_[d].DebugString()));
      }
      if (def.dtype() != dense_types_[d]) {
        return absl::InvalidArgumentError(absl::StrCat(
            "dense_defaults[", d, "].dtype() == ", DataTypeString(def.dtype()),
            " != dense_types_[", d, "] == ", DataTypeString(dense_types_[d])));
      }
      spec->dense_defaults.push_back(def);
    }
    spec->sparse_keys = sparse_keys_;
    spec->dense_keys = dense_keys_;
    spec->parse = parse_;
    spec->dense_out = dense_out_;
    spec->sparse_out = sparse_out_;
    spec->output_types = output_types_;
    spec->output_shapes = output_shapes_;
    if (spec->output_shapes.size() != output_types_.size()) {
      spec->output_shapes.assign(output_types_.size(), TensorShapeProto());
      for (auto& p : spec->output_shapes) p.set_unknown_rank(true);
    }
    return std::make_shared<ParseExampleDataset>(std::move(input),
                                                 std::move(spec));
  }

  std::vector<std::string> sparse_keys_, dense_keys_;
  DataTypeVector dense_types_, output_types_;
  std::vector<TensorShapeProto> output_shapes_;
  std::vector<TensorShape> dense_shapes_;
  std::vector<bool> variable_;
  std::vector<int> dense_out_, sparse_out_;
  std::shared_ptr<const OpKernel> parse_;
};

}  // namespace

absl::StatusOr<DatasetPtr> MakeSaveDataset(
    const std::string& node, DatasetPtr input, const std::string& path,
    const std::string& compression,
    std::shared_ptr<const DatasetFunction> shard_func,
    std::vector<Tensor> captured) {
  DFX_ASSIGN_OR_RETURN(Compression c, SnapshotCompression(compression));
  SaveOptions options;
  options.shard_func = std::move(shard_func);
  options.compression = compression;
  return std::make_shared<SaveDataset>(node, std::move(input), path, c,
                                       &options, std::move(captured));
}

absl::StatusOr<DatasetPtr> MakeLoadDataset(
    const std::string& node, const std::string& path,
    const std::string& compression, DataTypeVector dtypes,
    std::shared_ptr<const DatasetFunction> reader_func,
    std::vector<Tensor> captured) {
  DFX_ASSIGN_OR_RETURN(Compression c, SnapshotCompression(compression));
  DFX_ASSIGN_OR_RETURN(SnapshotMetadata metadata, ReadMetadata(node, path));
  if (metadata.version != kFileFormatVersion) {
    // Versions 0 and 1 (the custom format of SnapshotDataset v1) are
    // not read by dfx.
    return absl::UnimplementedError(
        absl::StrCat("dfx reads saved datasets of version 2 only; ", path,
                     " holds version ", metadata.version));
  }
  return std::make_shared<LoadDataset>(
      node, path, std::move(metadata), c, std::move(dtypes),
      std::move(reader_func), std::move(captured));
}

absl::StatusOr<SaveState> ReadSaveState(const std::string& node,
                                        const std::string& path) {
  DFX_ASSIGN_OR_RETURN(SnapshotMetadata metadata, ReadMetadata(node, path));
  SaveState state;
  state.finalized = metadata.finalized;
  state.creation_micros = metadata.creation_timestamp;
  return state;
}

absl::StatusOr<Tensor> StoredComponent(const std::string& record,
                                       DataType dtype, size_t i,
                                       absl::string_view element,
                                       absl::string_view spec) {
  const absl::Status unparsable =
      absl::DataLossError("Unable to parse tensor from stored proto.");
  TensorProto proto;
  if (!proto.ParseFromString(record)) return unparsable;
  uint64_t n = 1;
  bool empty = false;
  for (const auto& d : proto.tensor_shape().dim()) {
    if (d.size() < 0) return unparsable;
    if (d.size() == 0) empty = true;
  }
  for (const auto& d : proto.tensor_shape().dim()) {
    if (empty) break;
    if (static_cast<uint64_t>(d.size()) > record.size()) return unparsable;
    n *= static_cast<uint64_t>(d.size());
    if (n > record.size()) return unparsable;
  }
  absl::StatusOr<Tensor> t = Tensor::FromProto(proto);
  if (!t.ok()) return unparsable;
  if (t->dtype() != dtype) {
    return absl::InvalidArgumentError(absl::StrCat(
        "component ", i, " of ", element, " is ", DataTypeString(t->dtype()),
        ", but the dataset's ", spec, " ", DataTypeString(dtype)));
  }
  return *std::move(t);
}

absl::StatusOr<bool> SaveFinalized(const std::string& node,
                                   const std::string& path) {
  DFX_ASSIGN_OR_RETURN(SaveState state, ReadSaveState(node, path));
  return state.finalized;
}

}  // namespace dfx::data

namespace dfx {

void RegisterDataset4Kernels(KernelRegistry* registry) {
  RegisterKernel<data::SaveDatasetOp>(registry,
                                      KernelDefBuilder("SaveDataset"));
  RegisterKernel<data::SaveDatasetV2Op>(registry,
                                        KernelDefBuilder("SaveDatasetV2"));
  RegisterKernel<data::LoadDatasetOp>(registry,
                                      KernelDefBuilder("LoadDataset"));
  RegisterKernel<data::SnapshotDatasetReaderOp>(
      registry, KernelDefBuilder("SnapshotDatasetReader"));
  RegisterKernel<data::DummyIterationCounterOp>(
      registry, KernelDefBuilder("DummyIterationCounter"));
  RegisterKernel<data::DeleteMemoryCacheOp>(
      registry, KernelDefBuilder("DeleteMemoryCache"));
  RegisterKernel<data::SamplingDatasetOp>(registry,
                                          KernelDefBuilder("SamplingDataset"));
  for (const char* op : {"ParseExampleDataset", "ParseExampleDatasetV2",
                         "ExperimentalParseExampleDataset"}) {
    RegisterKernel<data::ParseExampleDatasetOp>(registry, KernelDefBuilder(op));
  }
  RegisterKernel<data::CompressElementOp>(registry,
                                          KernelDefBuilder("CompressElement"));
  RegisterKernel<data::UncompressElementOp>(
      registry, KernelDefBuilder("UncompressElement"));
}

}  // namespace dfx

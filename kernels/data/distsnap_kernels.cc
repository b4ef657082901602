// tf.data distributed snapshots read back (what Dataset.load builds for a
// directory tf.data.experimental.distributed_save wrote through the tf.data
// service): ListSnapshotChunksDataset and SnapshotChunkDataset. The layout,
// as TensorFlow 2.21's snapshot writers leave it:
//
//   <path>/snapshot.metadata   a text DistributedSnapshotMetadata (the
//                              element spec and compression; read by
//                              Python's load, not by these ops)
//   <path>/chunks/chunk_<stream>_<chunk>_<records>
//                              a TFRecord file ("", GZIP, ZLIB or SNAPPY),
//                              one record per component of each element:
//                              the component as a serialized TensorProto
//   <path>/DONE                the snapshot is complete
//   <path>/ERROR               a text StatusProto: the save failed
//
// ListSnapshotChunksDataset lists <path>/chunks (files ending ".tmp" are
// being written and left out) ordered by chunk index, then stream index,
// and, while there is no DONE file, waits for more chunks to be committed,
// polling with a growing backoff (the wait ends with Cancelled when the
// step is cancelled), as TensorFlow's SnapshotChunkProvider does: reading
// a snapshot while it is written. An ERROR file fails the iterator with
// the status it holds. SnapshotChunkDataset reads the elements of one
// chunk file. Every path is confined to the server's --data-dir
// (runtime/file_policy.h). Iterator states use TensorFlow's keys:
// "chunks_read" (the chunk names read, comma-joined in chunk order) and
// "start_index" (elements of the chunk read).
#include <algorithm>
#include <array>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "base/status_macros.h"
#include "google/protobuf/text_format.h"
#include "graph/node_def_util.h"
#include "kernels/data/dataset.h"
#include "kernels/data/record_file.h"
#include "kernels/data/save_format.h"
#include "kernels/kernels.h"
#include "proto/status.pb.h"
#include "runtime/cancellable_sleep.h"
#include "runtime/cancellation.h"
#include "runtime/file_policy.h"

namespace dfx::data {
namespace {

namespace fs = std::filesystem;

// tsl::io::JoinPath for two parts: one '/' between them.
std::string JoinPath(absl::string_view a, absl::string_view b) {
  if (a.empty()) return std::string(b);
  if (absl::EndsWith(a, "/")) return absl::StrCat(a, b);
  return absl::StrCat(a, "/", b);
}

// "chunk_<stream>_<chunk>_<records>" as its three numbers; nullopt for
// another name.
std::optional<std::array<int64_t, 3>> ParseChunkName(absl::string_view name) {
  std::vector<absl::string_view> parts = absl::StrSplit(name, '_');
  if (parts.size() != 4 || parts[0] != "chunk") return std::nullopt;
  std::array<int64_t, 3> out{};
  for (int i = 0; i < 3; ++i) {
    if (!absl::SimpleAtoi(parts[i + 1], &out[i])) return std::nullopt;
  }
  return out;
}

// TensorFlow's chunk order: by chunk index, then stream index; names that
// do not parse by their bytes.
struct ChunkOrder {
  bool operator()(const std::string& a, const std::string& b) const {
    std::optional<std::array<int64_t, 3>> x = ParseChunkName(a);
    std::optional<std::array<int64_t, 3>> y = ParseChunkName(b);
    if (!x.has_value() || !y.has_value()) return a < b;
    if ((*x)[1] != (*y)[1]) return (*x)[1] < (*y)[1];
    if ((*x)[0] != (*y)[0]) return (*x)[0] < (*y)[0];
    return a < b;  // the same chunk of the same stream: by record count
  }
};
using ChunkSet = std::set<std::string, ChunkOrder>;

// The status a text tensorflow.StatusProto holds ("code: NOT_FOUND
// message: \"...\""); DataLoss when the text does not parse, as
// TensorFlow's ReadTextProto.
absl::StatusOr<absl::Status> ParseStatusText(const std::string& file,
                                             const std::string& text) {
  StatusProto proto;
  if (!google::protobuf::TextFormat::ParseFromString(text, &proto) ||
      proto.code() < 0 || proto.code() > error::UNAUTHENTICATED) {
    return absl::DataLossError(
        absl::StrCat("Can't parse ", file, " as text proto"));
  }
  return absl::Status(static_cast<absl::StatusCode>(proto.code()),
                      proto.message());
}

std::string ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// What the snapshot's state files say: the save's error, or whether it is
// done.
struct SnapshotState {
  absl::Status status;
  bool done = false;
};

absl::StatusOr<SnapshotState> ReadSnapshotState(const std::string& node,
                                                const std::string& path) {
  const std::string error_file = JoinPath(path, "ERROR");
  DFX_ASSIGN_OR_RETURN(std::string error_resolved,
                       ResolveDataPath(node, error_file));
  std::error_code ec;
  SnapshotState state;
  if (fs::exists(error_resolved, ec)) {
    DFX_ASSIGN_OR_RETURN(
        absl::Status status,
        ParseStatusText(error_file, ReadWholeFile(error_resolved)));
    if (status.ok()) {
      return absl::InternalError(
          absl::StrCat("Unexpected snapshot ERROR file contains an OK status "
                       "at ",
                       error_file, "."));
    }
    state.status = status;
    return state;
  }
  DFX_ASSIGN_OR_RETURN(std::string done,
                       ResolveDataPath(node, JoinPath(path, "DONE")));
  state.done = fs::exists(done, ec);
  return state;
}

// The committed chunk names under <path>/chunks (none when the directory
// is not there yet).
absl::StatusOr<std::vector<std::string>> AvailableChunks(
    const std::string& node, const std::string& path) {
  const std::string dir = JoinPath(path, "chunks");
  DFX_ASSIGN_OR_RETURN(std::string resolved, ResolveDataPath(node, dir));
  std::error_code ec;
  std::vector<std::string> out;
  if (!fs::exists(resolved, ec)) return out;
  fs::directory_iterator it(resolved, ec);
  if (ec) {
    return absl::FailedPreconditionError(absl::StrCat(dir, ": ", ec.message()));
  }
  for (const fs::directory_entry& e : it) {
    std::string name = e.path().filename().string();
    if (!absl::EndsWith(name, ".tmp")) out.push_back(std::move(name));
  }
  return out;
}

// ---------------------------------------------------------------------------
// ListSnapshotChunksDataset.

class ListSnapshotChunksDataset final : public DatasetBase {
 public:
  ListSnapshotChunksDataset(std::string node, std::string path)
      : DatasetBase({DT_STRING}),
        node_(std::move(node)),
        path_(std::move(path)) {}

  std::string DebugString() const override {
    return "ListSnapshotChunksDatasetOp::Dataset";
  }
  // The number of chunks of a finished snapshot; unknown while it is
  // written (or when it cannot be listed).
  int64_t Cardinality() const override {
    absl::StatusOr<SnapshotState> state = ReadSnapshotState(node_, path_);
    if (!state.ok() || !state->status.ok() || !state->done) {
      return kUnknownCardinality;
    }
    absl::StatusOr<std::vector<std::string>> chunks =
        AvailableChunks(node_, path_);
    if (!chunks.ok()) return kUnknownCardinality;
    return static_cast<int64_t>(chunks->size());
  }
  absl::StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(
      IteratorContext*) const override {
    return std::unique_ptr<IteratorBase>(
        std::make_unique<Iterator>(Self<ListSnapshotChunksDataset>()));
  }

 private:
  class Iterator final : public IteratorBase {
   public:
    explicit Iterator(std::shared_ptr<const ListSnapshotChunksDataset> d)
        : d_(std::move(d)) {}

    absl::Status GetNext(IteratorContext* ctx, std::vector<Tensor>* out,
                         bool* end) override {
      out->clear();
      for (int retries = 0;; ++retries) {
        // No wait before the first look, nor right after the state files
        // were read the first time.
        if (retries > 1) DFX_RETURN_IF_ERROR(Backoff(ctx, retries - 2));
        DFX_RETURN_IF_ERROR(state_.status);
        if (!unread_.empty()) {
          std::string next = *unread_.begin();
          unread_.erase(unread_.begin());
          Tensor t(DT_STRING, TensorShape({}));
          t.data<std::string>()[0] =
              JoinPath(JoinPath(d_->path_, "chunks"), next);
          read_.insert(std::move(next));
          out->push_back(std::move(t));
          *end = false;
          return absl::OkStatus();
        }
        if (state_.done) {
          *end = true;
          return absl::OkStatus();
        }
        DFX_RETURN_IF_ERROR(Update());
      }
    }

    absl::Status Save(const std::string& prefix,
                      IteratorState* state) override {
      state->WriteString(prefix, "chunks_read", absl::StrJoin(read_, ","));
      return absl::OkStatus();
    }
    absl::Status Restore(IteratorContext*, const std::string& prefix,
                         const IteratorState& state) override {
      DFX_ASSIGN_OR_RETURN(std::string joined,
                           state.ReadString(prefix, "chunks_read"));
      read_.clear();
      unread_.clear();
      if (!joined.empty()) {
        for (absl::string_view s : absl::StrSplit(joined, ',')) {
          read_.insert(std::string(s));
        }
      }
      return Update();
    }

   private:
    // Reads the state files first, then the chunks: a chunk committed in
    // between is seen now or on the next look, never missed once DONE is.
    absl::Status Update() {
      DFX_ASSIGN_OR_RETURN(state_, ReadSnapshotState(d_->node_, d_->path_));
      DFX_RETURN_IF_ERROR(state_.status);
      DFX_ASSIGN_OR_RETURN(std::vector<std::string> chunks,
                           AvailableChunks(d_->node_, d_->path_));
      for (std::string& c : chunks) {
        if (read_.count(c) == 0) unread_.insert(std::move(c));
      }
      return absl::OkStatus();
    }

    // Waits 1 ms * 1.3^n, at most 1 s (TensorFlow's backoff, with a
    // shorter cap), in slices that notice the step's cancellation.
    static absl::Status Backoff(IteratorContext* ctx, int n) {
      double ms = 1.0;
      for (int i = 0; i < n && ms < 1000.0; ++i) ms *= 1.3;
      if (!SleepUnlessCancelled(
              ctx != nullptr ? ctx->cancellation_manager : nullptr,
              absl::Milliseconds(std::min(ms, 1000.0)))) {
        return absl::CancelledError("Cancelled loading tf.data snapshot");
      }
      return absl::OkStatus();
    }

    const std::shared_ptr<const ListSnapshotChunksDataset> d_;
    SnapshotState state_;
    ChunkSet read_;
    ChunkSet unread_;
  };

  const std::string node_;
  const std::string path_;
};

class ListSnapshotChunksDatasetOp final : public DatasetOpKernel {
 public:
  explicit ListSnapshotChunksDatasetOp(OpKernelConstruction* ctx)
      : DatasetOpKernel(ctx) {}

 private:
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    const Tensor& path = ctx->input(0);
    if (path.dtype() != DT_STRING || path.dims() != 0) {
      return absl::InvalidArgumentError("snapshot_path must be a scalar");
    }
    if (path.data<std::string>()[0].empty()) {
      return absl::InvalidArgumentError(
          "snapshot_path is required to list snapshot chunks.");
    }
    DFX_RETURN_IF_ERROR(CheckOutputTypes(output_types(), {DT_STRING},
                                         "ListSnapshotChunksDataset"));
    return std::make_shared<ListSnapshotChunksDataset>(
        name(), path.data<std::string>()[0]);
  }
};

// ---------------------------------------------------------------------------
// SnapshotChunkDataset.

class SnapshotChunkDataset final : public DatasetBase {
 public:
  SnapshotChunkDataset(std::string node, std::string file,
                       Compression compression, DataTypeVector dtypes)
      : DatasetBase(std::move(dtypes)),
        node_(std::move(node)),
        file_(std::move(file)),
        compression_(compression) {}

  std::string DebugString() const override { return "SnapshotChunkDataset"; }
  absl::StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(
      IteratorContext*) const override {
    auto it = std::make_unique<Iterator>(Self<SnapshotChunkDataset>());
    DFX_RETURN_IF_ERROR(it->Open());
    return std::unique_ptr<IteratorBase>(std::move(it));
  }

 private:
  class Iterator final : public IteratorBase {
   public:
    explicit Iterator(std::shared_ptr<const SnapshotChunkDataset> d)
        : d_(std::move(d)) {}

    // Opens the chunk file from its start: NotFound when it is missing.
    absl::Status Open() {
      DFX_ASSIGN_OR_RETURN(
          reader_, FileReader::Open(d_->node_, d_->file_, d_->compression_));
      return absl::OkStatus();
    }

    absl::Status GetNext(IteratorContext*, std::vector<Tensor>* out,
                         bool* end) override {
      out->clear();
      // A bad record fails every later read too: TensorFlow's reader stays
      // before it.
      DFX_RETURN_IF_ERROR(failed_);
      absl::StatusOr<bool> got = Read(out);
      if (!got.ok()) {
        out->clear();
        failed_ = absl::Status(
            got.status().code(),
            absl::StrCat(got.status().message(),
                         " Failed to read tf.data snapshot file: ", d_->file_));
        return failed_;
      }
      *end = !*got;
      if (*end) {
        out->clear();
      } else {
        ++start_index_;
      }
      return absl::OkStatus();
    }

    absl::Status Save(const std::string& prefix,
                      IteratorState* state) override {
      state->WriteInt(prefix, "start_index", start_index_);
      return absl::OkStatus();
    }
    // Reads the chunk again up to the saved element, as TensorFlow does
    // (OutOfRange when the chunk holds fewer).
    absl::Status Restore(IteratorContext*, const std::string& prefix,
                         const IteratorState& state) override {
      DFX_ASSIGN_OR_RETURN(start_index_, state.ReadInt(prefix, "start_index"));
      DFX_RETURN_IF_ERROR(Open());
      std::string record;
      const size_t records = d_->output_dtypes().size();
      for (int64_t i = 0; i < start_index_; ++i) {
        for (size_t c = 0; c < records; ++c) {
          DFX_ASSIGN_OR_RETURN(bool got, reader_->NextRecord(&record));
          if (!got) return absl::OutOfRangeError("End of file");
        }
      }
      return absl::OkStatus();
    }

   private:
    // The next element into `out`; false at the file's end (a partial
    // element there is dropped, as TensorFlow's reader does).
    absl::StatusOr<bool> Read(std::vector<Tensor>* out) {
      const DataTypeVector& dtypes = d_->output_dtypes();
      for (size_t i = 0; i < dtypes.size(); ++i) {
        std::string record;
        DFX_ASSIGN_OR_RETURN(bool got, reader_->NextRecord(&record));
        if (!got) return false;
        DFX_ASSIGN_OR_RETURN(Tensor t, StoredComponent(record, dtypes[i], i,
                                                       "a snapshot element",
                                                       "output_types say"));
        out->push_back(std::move(t));
      }
      return true;
    }

    const std::shared_ptr<const SnapshotChunkDataset> d_;
    std::unique_ptr<FileReader> reader_;
    int64_t start_index_ = 0;  // elements read
    absl::Status failed_;      // the first bad record's
  };

  const std::string node_;
  const std::string file_;
  const Compression compression_;
};

class SnapshotChunkDatasetOp final : public DatasetOpKernel {
 public:
  explicit SnapshotChunkDatasetOp(OpKernelConstruction* ctx)
      : DatasetOpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("compression", &compression_));
  }

 private:
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    const Tensor& file = ctx->input(0);
    if (file.dtype() != DT_STRING || file.dims() != 0) {
      return absl::InvalidArgumentError("chunk_file must be a scalar");
    }
    // TensorFlow's record reader options: SNAPPY, ZLIB, GZIP; anything
    // else reads the file as it is.
    Compression compression = Compression::kNone;
    if (compression_ == "SNAPPY") {
      compression = Compression::kSnappy;
    } else if (compression_ == "ZLIB" || compression_ == "GZIP") {
      DFX_ASSIGN_OR_RETURN(compression, ParseCompression(compression_));
    }
    return std::make_shared<SnapshotChunkDataset>(
        name(), file.data<std::string>()[0], compression, output_types());
  }

  std::string compression_;
};

}  // namespace

void RegisterDistsnapKernels(KernelRegistry* registry) {
  RegisterKernel<ListSnapshotChunksDatasetOp>(
      registry, KernelDefBuilder("ListSnapshotChunksDataset"));
  RegisterKernel<SnapshotChunkDatasetOp>(
      registry, KernelDefBuilder("SnapshotChunkDataset"));
}

}  // namespace dfx::data

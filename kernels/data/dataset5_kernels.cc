// tf.data's pipeline assertions and fingerprint (graph/ops/dataset5_ops.cc):
//
//   AssertNextDataset,     pass their input through once the transformations
//   ExperimentalAssert-    applied after them (downstream, nearest first)
//   NextDataset            match `transformations`;
//   AssertPrevDataset      ... once those before them (upstream, nearest
//                          first) match: each entry a text NameAttrList, an
//                          op name and attrs the op's node must carry;
//   AutoShardDataset,      the input's share for worker `index` of
//   ExperimentalAuto-      `num_workers`, by auto_shard_policy (below);
//   ShardDataset
//   SnapshotDatasetV2      Dataset.snapshot: the first pass writes the
//                          input under <path>/<hash> in the save format
//                          (kernels/data/save_format.h), later passes read
//                          it back through reader_func, a pass while
//                          another still writes passes the input through;
//   SnapshotDataset        v1 (mode auto/read/write/passthrough), the
//                          same without functions;
//   DatasetFingerprint     a uint64 hash of the dataset's pipeline.
//
// <hash> is DatasetFingerprint's value (or the hash attr when hash_valid),
// not TensorFlow's graph hash: dfx finds its own snapshots, and reads one
// TensorFlow wrote through Dataset.load on its directory. AUTO compression
// is SNAPPY, as in TensorFlow.
//
// TensorFlow auto-shards by rewriting the input pipeline's graph. OFF
// passes the input through; DATA keeps every num_workers-th element from
// `index` on (TensorFlow puts its shard below the pipeline's trailing
// prefetch and options, which yields the same elements), and, as
// TensorFlow's ShardDataset with require_non_empty, fails with
// InvalidArgument instead of the first element when the input ends after
// `index` but before num_workers elements. FILE walks the pipeline from
// its end as TensorFlow's rewrite does (pass-through ops, zip and
// concatenate) to a flat_map or interleave whose function makes a reader
// dataset (a TFRecordDataset of its argument) and shards that dataset's
// input (the file names): dfx makes the datasets from there to the end
// again, each from its recorded NodeDef and inputs (DatasetBase::node),
// over the sharded input, dropping assert_cardinality as TensorFlow does.
// A shuffle of the file names before the reader moves below the shard, as
// TensorFlow moves it (two such shuffles, and files under a zip or
// concatenate, are Unimplemented). Where there is no such dataset (a
// range, tensor slices, a reader of a file-name tensor) FILE fails with
// TensorFlow's NotFound and AUTO shards by DATA; any other policy is
// InvalidArgument. FILE with one worker, and HINT, pass the input through
// (dfx's ShardDataset refuses SHARD_HINT when it is made, so a pipeline holds
// no hint to replace).
// An auto-shard's iterator saves the input elements it has read and the
// input's position (FILE: the datasets made again save as any other).
//
// TensorFlow checks AssertNext against its iterator's prefix
// ("Iterator::Root::Map::AssertNext"): the datasets between the assertion
// and the iterator, each named by its type ("Map", "ParallelMapV2",
// "BatchV2"), then "Root". dfx finds the same chain by walking the
// iterator's dataset (IteratorContext::root) down the nodes that made each
// dataset (DatasetBase::node) to the assertion: OptionsDataset and
// OptimizeDataset(V2), which TensorFlow folds into its root, are not
// named. A name matches a type as TensorFlow's MatchesAnyVersion does: the
// same, or the type with a version suffix ("Map" matches "MapV2"). Like
// TensorFlow's, the checks run when the iterator is made, so a mismatch
// fails MakeIterator. TensorFlow checks the pipeline after its static
// rewrites (map_parallelization and the like, under tf.data's default
// options); dfx makes none, so it matches TensorFlow for pipelines whose
// options turn them off. An assertion inside a dataset function (a
// flat_map's) is not reachable from the iterator's dataset: its chain is
// empty.
//
// DatasetFingerprint hashes (FNV-1a, 64 bits) each node's op, attrs
// (deterministically serialized) and the values of its tensor inputs, and
// its input datasets, recursively: equal pipelines give equal fingerprints
// in every dfx process. It is not TensorFlow's number (TensorFlow hashes
// the pipeline's serialized GraphDef, function bodies included, with its
// own graph hash).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/text_format.h"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "kernels/data/dataset.h"
#include "kernels/data/save_format.h"
#include "kernels/data/state_util.h"
#include "kernels/kernels.h"
#include "proto/attr_value.pb.h"
#include "proto/function.pb.h"
#include "proto/tensor.pb.h"

namespace dfx::data {
namespace {

// TensorFlow's MatchesAnyVersion: `type` is `prefix`, or `prefix`
// followed by "V" and digits.
bool MatchesAnyVersion(absl::string_view prefix, absl::string_view type) {
  if (!absl::StartsWith(type, prefix)) return false;
  if (type.size() == prefix.size()) return true;
  size_t i = type.size() - 1;
  while (i > prefix.size() && type[i] >= '0' && type[i] <= '9') --i;
  return i == prefix.size() && type[i] == 'V' && i + 1 < type.size();
}

// The first non-dataset input of `node` (a count, a file name); null when
// there is none or it is not a scalar T.
template <typename T>
const T* FirstArg(const DatasetBase::Node& node) {
  if (node.args.empty()) return nullptr;
  const Tensor& t = node.args[0];
  if (t.dtype() != DataTypeToEnum<T>::value || t.NumElements() != 1) {
    return nullptr;
  }
  return t.data<T>();
}

// The name TensorFlow gives dataset `d` in its iterator's prefix when
// `d`'s input `index` (of `inputs` datasets) leads to the assertion: its
// op without "Experimental" and "Dataset" ("ParallelMapDatasetV2" is
// "ParallelMapV2"), but for the datasets TensorFlow names otherwise
// (TakeDataset is "FiniteTake", a repeat "FiniteRepeat[0]" or
// "ForeverRepeat[0]", an in-memory cache "MemoryCacheImpl", the inputs of
// zip and concatenate "Zip[1]"); empty for the ops TensorFlow folds into
// its root (OptionsDataset, OptimizeDataset(V2)).
std::string PrefixName(const DatasetBase& d, size_t index) {
  std::shared_ptr<const DatasetBase::Node> node = d.node();
  if (node == nullptr) return d.DebugString();
  std::string op = node->def->op();
  if (op == "OptionsDataset" || op == "OptimizeDataset" ||
      op == "OptimizeDatasetV2") {
    return "";
  }
  if (op == "TakeDataset") return "FiniteTake";
  if (op == "SkipDataset") return "FiniteSkip";
  if (op == "RepeatDataset") {
    const int64_t* count = FirstArg<int64_t>(*node);
    return count != nullptr && *count < 0 ? "ForeverRepeat[0]"
                                          : "FiniteRepeat[0]";
  }
  if (op == "CacheDataset" || op == "CacheDatasetV2") {
    const std::string* file = FirstArg<std::string>(*node);
    if (file != nullptr && file->empty()) return "MemoryCacheImpl";
  }
  if (absl::StartsWith(op, "Experimental")) op = op.substr(12);
  const size_t at = op.find("Dataset");
  if (at != std::string::npos) op.erase(at, 7);
  if (op == "Zip" || op == "Concatenate") absl::StrAppend(&op, "[", index, "]");
  return op;
}

// Appends to `path` the datasets from `from` down to `target` (both
// included) when `target` is among `from`'s inputs, transitively.
bool FindPath(const DatasetBase* from, const DatasetBase* target,
              std::vector<const DatasetBase*>* path, int depth) {
  if (depth > 10000) return false;
  path->push_back(from);
  if (from == target) return true;
  std::shared_ptr<const DatasetBase::Node> node = from->node();
  if (node != nullptr) {
    for (const auto& in : node->inputs) {
      if (FindPath(in.get(), target, path, depth + 1)) return true;
    }
  }
  path->pop_back();
  return false;
}

// The prefix names of the transformations applied after `self` up to the
// iterator's dataset, nearest first, then "Root"; empty when `self` is not
// reachable from the iterator's dataset.
std::vector<std::string> NextTransformations(const IteratorContext& ctx,
                                             const DatasetBase* self) {
  std::vector<std::string> names;
  std::vector<const DatasetBase*> path;
  if (ctx.root == nullptr || !FindPath(ctx.root, self, &path, 0)) {
    return names;
  }
  // path runs root ... self; each dataset is named with the index of its
  // input that the path takes.
  for (size_t i = path.size() - 1; i-- > 0;) {
    size_t index = 0;
    std::shared_ptr<const DatasetBase::Node> node = path[i]->node();
    while (node != nullptr && index < node->inputs.size() &&
           node->inputs[index].get() != path[i + 1]) {
      ++index;
    }
    std::string name = PrefixName(*path[i], index);
    if (!name.empty()) names.push_back(std::move(name));
  }
  names.push_back("Root");
  return names;
}

// The strings of input 1 (`transformations`), a vector.
absl::StatusOr<std::vector<std::string>> TransformationsInput(
    OpKernelContext* ctx) {
  const Tensor& t = ctx->input(1);
  if (t.dtype() != DT_STRING || t.dims() != 1) {
    return absl::InvalidArgumentError("transformations must be a vector");
  }
  const std::string* s = t.data<std::string>();
  return std::vector<std::string>(s, s + t.NumElements());
}

// Drops the parser's messages (the status says what failed).
class QuietErrors final : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int, google::protobuf::io::ColumnNumber,
                const std::string&) override {}
};

// A pass-through over its input whose iterator is made only when `check`
// passes. kNext: AssertNext's check; kPrev: AssertPrev's.
class AssertDataset final : public UnaryDataset {
 public:
  enum class Kind { kNext, kPrev };

  AssertDataset(DatasetPtr input, Kind kind,
                std::vector<std::string> transformations)
      : UnaryDataset(input, input->output_dtypes()),
        kind_(kind),
        transformations_(std::move(transformations)) {}

  std::string DebugString() const override {
    return kind_ == Kind::kNext ? "AssertNextDataset" : "AssertPrevDataset";
  }
  int64_t Cardinality() const override { return input()->Cardinality(); }

  absl::StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(
      IteratorContext* ctx) const override {
    DFX_RETURN_IF_ERROR(kind_ == Kind::kNext ? CheckNext(*ctx) : CheckPrev());
    return input()->MakeIterator(ctx);
  }

 private:
  absl::Status CheckNext(const IteratorContext& ctx) const {
    const std::vector<std::string> next = NextTransformations(ctx, this);
    if (transformations_.size() > next.size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Asserted next ", transformations_.size(),
          " transformations but encountered only ", next.size(), "."));
    }
    for (size_t i = 0; i < transformations_.size(); ++i) {
      if (!MatchesAnyVersion(transformations_[i], next[i])) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Asserted transformation matching ", transformations_[i],
            " at offset ", i, " but encountered ", next[i],
            " transformation instead."));
      }
    }
    return absl::OkStatus();
  }

  absl::Status CheckPrev() const {
    const DatasetBase* current = this;
    for (size_t i = 0; i < transformations_.size(); ++i) {
      std::shared_ptr<const DatasetBase::Node> node = current->node();
      if (node == nullptr || node->inputs.empty()) {
        return absl::InvalidArgumentError(
            absl::StrCat("Asserted previous ", transformations_.size(),
                         " transformations but encountered only ", i, "."));
      }
      current = node->inputs.back().get();
      absl::Status s = CheckTransformation(*current, transformations_[i]);
      if (!s.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("Failure checking transformations at offset ", i, ": ",
                         s.message()));
      }
    }
    return absl::OkStatus();
  }

  // `d`'s op against `want`'s name, its node's attrs against `want`'s.
  static absl::Status CheckTransformation(const DatasetBase& d,
                                          const std::string& text) {
    NameAttrList want;
    google::protobuf::TextFormat::Parser parser;
    QuietErrors quiet;
    parser.RecordErrorsTo(&quiet);
    if (!parser.ParseFromString(text, &want)) {
      return absl::InvalidArgumentError(
          absl::StrCat("Couldn't parse transformation '", text, "'."));
    }
    std::shared_ptr<const DatasetBase::Node> node = d.node();
    const std::string op = node == nullptr ? d.DebugString() : node->def->op();
    if (!MatchesAnyVersion(want.name(), op)) {
      return absl::InvalidArgumentError(
          absl::StrCat("Asserted transformation matching '", want.name(),
                       "', but found '", op, "'."));
    }
    for (const auto& [name, value] : want.attr()) {
      const AttrValue* have =
          node == nullptr ? nullptr : FindNodeAttr(*node->def, name);
      if (have == nullptr) {
        return absl::InvalidArgumentError(
            absl::StrCat("Asserted attribute '", name, "' having a value of '",
                         value.ShortDebugString(),
                         "', but found no such attribute defined."));
      }
      if (have->SerializeAsString() != value.SerializeAsString()) {
        return absl::InvalidArgumentError(
            absl::StrCat("Asserted attribute '", name, "' having a value of '",
                         value.ShortDebugString(), "', but found value of '",
                         have->ShortDebugString(), "'."));
      }
    }
    return absl::OkStatus();
  }

  const Kind kind_;
  const std::vector<std::string> transformations_;
};

class AssertNextDatasetOp final : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;

 private:
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    DFX_ASSIGN_OR_RETURN(DatasetPtr input, DatasetFromInput(ctx, 0));
    DFX_ASSIGN_OR_RETURN(std::vector<std::string> t, TransformationsInput(ctx));
    return std::make_shared<AssertDataset>(
        std::move(input), AssertDataset::Kind::kNext, std::move(t));
  }
};

class AssertPrevDatasetOp final : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;

 private:
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    DFX_ASSIGN_OR_RETURN(DatasetPtr input, DatasetFromInput(ctx, 0));
    DFX_ASSIGN_OR_RETURN(std::vector<std::string> t, TransformationsInput(ctx));
    return std::make_shared<AssertDataset>(
        std::move(input), AssertDataset::Kind::kPrev, std::move(t));
  }
};

// ---------------------------------------------------------------------------
// AutoShardDataset (and ExperimentalAutoShardDataset).

// tf.data.experimental.AutoShardPolicy.
constexpr int64_t kOff = -1, kFile = 1, kData = 2, kHint = 3;

// The op lists of TensorFlow's auto-shard rewrite; an op is of a list when
// it matches an entry in any version.
constexpr const char* kReaderOps[] = {
    "ArrayRecordDataset", "FixedLengthRecordDataset", "RecordIODataset",
    "SSTableDataset",     "TextLineDataset",          "TFRecordDataset"};
constexpr const char* kMultipleInputOps[] = {"ConcatenateDataset",
                                             "ZipDataset"};
constexpr const char* kPassThroughOps[] = {"AssertNextDataset",
                                           "BatchDataset",
                                           "CacheDataset",
                                           "ExperimentalMapAndBatchDataset",
                                           "ExperimentalParseExampleDataset",
                                           "ExperimentalRebatchDataset",
                                           "FilterDataset",
                                           "FinalizeDataset",
                                           "MapAndBatchDataset",
                                           "MapDataset",
                                           "MaxIntraOpParallelismDataset",
                                           "ModelDataset",
                                           "OptimizeDataset",
                                           "OptionsDataset",
                                           "PaddedBatchDataset",
                                           "ParallelBatchDataset",
                                           "ParallelMapDataset",
                                           "ParseExampleDataset",
                                           "PrefetchDataset",
                                           "PrivateThreadPoolDataset",
                                           "ReduceDataset",
                                           "RebatchDataset",
                                           "RepeatDataset",
                                           "ShardDataset",
                                           "ShuffleAndRepeatDataset",
                                           "ShuffleDataset",
                                           "SkipDataset",
                                           "TakeDataset",
                                           "WindowDataset"};
constexpr const char* kFuncOps[] = {"ExperimentalParallelInterleaveDataset",
                                    "FlatMapDataset", "InterleaveDataset",
                                    "LegacyParallelInterleaveDataset",
                                    "ParallelInterleaveDataset"};
constexpr const char* kShuffleOps[] = {"ShuffleDataset"};
constexpr const char* kUnshardableSourceOps[] = {
    "GeneratorDataset", "RangeDataset", "SparseTensorsSliceDataset",
    "TensorDataset", "TensorSliceDataset"};

template <size_t N>
bool OpIn(absl::string_view op, const char* const (&list)[N]) {
  for (const char* entry : list) {
    if (MatchesAnyVersion(entry, op)) return true;
  }
  return false;
}

// The functions of `library` that make a reader dataset of their
// arguments, directly or through a nested flat_map/interleave (TensorFlow's
// ReaderOpInFunction).
absl::flat_hash_set<std::string> ReaderFunctions(
    const FunctionDefLibrary& library) {
  absl::flat_hash_map<std::string, const FunctionDef*> by_name;
  for (const FunctionDef& f : library.function()) {
    by_name[f.signature().name()] = &f;
  }
  absl::flat_hash_map<std::string, bool> memo;
  std::function<bool(const std::string&, int)> reads =
      [&](const std::string& name, int depth) -> bool {
    auto m = memo.find(name);
    if (m != memo.end()) return m->second;
    memo[name] = false;  // (a cycle reads nothing)
    auto f = by_name.find(name);
    bool result = false;
    if (f != by_name.end() && depth < 100) {
      for (const NodeDef& n : f->second->node_def()) {
        if (OpIn(n.op(), kReaderOps) && n.input_size() > 0) result = true;
        const AttrValue* fn = FindNodeAttr(n, "f");
        if (!result && OpIn(n.op(), kFuncOps) && fn != nullptr &&
            fn->has_func() && reads(fn->func().name(), depth + 1)) {
          result = true;
        }
        if (result) break;
      }
    }
    memo[name] = result;
    return result;
  };
  absl::flat_hash_set<std::string> out;
  for (const auto& [name, f] : by_name) {
    if (reads(name, 0)) out.insert(name);
  }
  return out;
}

// TensorFlow's FILE sharding walk (RecursivelyHandleOp) over the nodes that
// made `d`: OK when it reaches the dataset whose input it would shard (a
// flat_map or interleave, or a pass-through, whose function reads files),
// NotFound, with TensorFlow's reason, when there is none. `*path` gets the
// datasets from `d` down to that one; `*branches` counts the zip and
// concatenate inputs walked (TensorFlow shards each).
absl::Status FindFileShard(const DatasetBase& d,
                           const absl::flat_hash_set<std::string>& readers,
                           std::vector<const DatasetBase*>* path,
                           int* branches) {
  std::shared_ptr<const DatasetBase::Node> node = d.node();
  if (node == nullptr || path->size() > 10000) {
    return absl::NotFoundError(absl::StrCat(
        "Did not find a shardable source, walked to a node which is not a "
        "dataset: ",
        d.DebugString()));
  }
  path->push_back(&d);
  const std::string& op = node->def->op();
  if (op == "AssertCardinalityDataset" && !node->inputs.empty()) {
    return FindFileShard(*node->inputs[0], readers, path, branches);
  }
  if (OpIn(op, kUnshardableSourceOps)) {
    return absl::NotFoundError(
        absl::StrCat("Found an unshardable source dataset: ", op));
  }
  if (OpIn(op, kMultipleInputOps)) {
    for (const auto& in : node->inputs) {
      ++*branches;
      DFX_RETURN_IF_ERROR(FindFileShard(*in, readers, path, branches));
    }
    return absl::OkStatus();
  }
  const bool func = OpIn(op, kFuncOps);
  const bool pass = OpIn(op, kPassThroughOps);
  const AttrValue* f = FindNodeAttr(*node->def, "f");
  if ((func || pass) && f != nullptr && f->has_func() &&
      readers.contains(f->func().name()) && !node->inputs.empty()) {
    return absl::OkStatus();
  }
  if (OpIn(op, kReaderOps)) {
    return absl::NotFoundError(
        absl::StrCat("Unable to shard this input. You may need to wrap the "
                     "inputs to your reader dataset in a TensorSliceDataset. "
                     "Input node is the file names of ",
                     op));
  }
  if ((!func && !pass) || node->inputs.empty()) {
    return absl::NotFoundError(absl::StrCat(
        "Did not find a shardable source, walked to a node which is not a "
        "dataset: ",
        op,
        ". Consider either turning off auto-sharding or switching the "
        "auto_shard_policy to DATA to shard this dataset."));
  }
  return FindFileShard(*node->inputs[0], readers, path, branches);
}

// Whether a shuffle made any dataset upstream of `d` (TensorFlow's FILE
// rewrite moves it below the shard).
bool ShuffledUpstream(const DatasetBase& d, int depth) {
  std::shared_ptr<const DatasetBase::Node> node = d.node();
  if (node == nullptr || depth > 10000) return false;
  for (const auto& in : node->inputs) {
    std::shared_ptr<const DatasetBase::Node> n = in->node();
    if (n != nullptr && absl::StartsWith(n->def->op(), "Shuffle")) return true;
    if (ShuffledUpstream(*in, depth + 1)) return true;
  }
  return false;
}

// Every num_workers-th element of the input from `index` on, as
// TensorFlow's ShardDataset with require_non_empty (what its rewrite
// inserts): when the input has more than `index` but fewer than
// num_workers elements, InvalidArgument instead of the first element.
class AutoShardedDataset final : public UnaryDataset {
 public:
  AutoShardedDataset(DatasetPtr input, int64_t num_workers, int64_t index)
      : UnaryDataset(input, input->output_dtypes()),
        num_workers_(num_workers),
        index_(index) {}

  std::string DebugString() const override {
    return absl::StrCat("AutoShardDataset(", num_workers_, ", ", index_, ")");
  }
  int64_t Cardinality() const override {
    const int64_t n = input()->Cardinality();
    if (n < 0) return n;
    return n / num_workers_ + (index_ < n % num_workers_ ? 1 : 0);
  }
  absl::StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(
      IteratorContext* ctx) const override {
    DFX_ASSIGN_OR_RETURN(std::unique_ptr<IteratorBase> in,
                         input()->MakeIterator(ctx));
    return std::unique_ptr<IteratorBase>(
        new Iterator(Self<AutoShardedDataset>(), std::move(in)));
  }

 private:
  class Iterator final : public IteratorBase {
   public:
    Iterator(std::shared_ptr<const AutoShardedDataset> d,
             std::unique_ptr<IteratorBase> in)
        : d_(std::move(d)), in_(std::move(in)) {}

    absl::Status GetNext(IteratorContext* ctx, std::vector<Tensor>* out,
                         bool* end) override {
      *end = false;
      while (in_ != nullptr) {
        out->clear();
        DFX_RETURN_IF_ERROR(in_->GetNext(ctx, out, end));
        if (*end) {
          in_.reset();
          break;
        }
        const int64_t at = next_++;
        if (at % d_->num_workers_ != d_->index_) continue;
        // The first element: the input must reach num_workers elements.
        std::vector<Tensor> skipped;
        while (next_ < d_->num_workers_) {
          bool skipped_end = false;
          skipped.clear();
          DFX_RETURN_IF_ERROR(in_->GetNext(ctx, &skipped, &skipped_end));
          if (skipped_end) {
            in_.reset();
            out->clear();
            return absl::InvalidArgumentError(absl::StrCat(
                "Could not apply FILE based sharding: the dataset only has ",
                next_, " file(s), which is not enough for the required ",
                d_->num_workers_, " shards/workers."));
          }
          ++next_;
        }
        return absl::OkStatus();
      }
      out->clear();
      *end = true;
      return absl::OkStatus();
    }

    // The input elements read and the input's position (none once it
    // ended).
    absl::Status Save(const std::string& prefix,
                      IteratorState* state) override {
      state->WriteInt(prefix, "next", next_);
      return SaveInput(*d_->input(), in_.get(), prefix + "/input", state);
    }
    absl::Status Restore(IteratorContext* ctx, const std::string& prefix,
                         const IteratorState& state) override {
      DFX_ASSIGN_OR_RETURN(next_, state.ReadInt(prefix, "next"));
      return RestoreInput(ctx, *d_->input(), &in_, prefix + "/input", state);
    }

   private:
    const std::shared_ptr<const AutoShardedDataset> d_;
    std::unique_ptr<IteratorBase> in_;
    int64_t next_ = 0;  // input elements read
  };

  const int64_t num_workers_;
  const int64_t index_;
};

class AutoShardDatasetOp final : public DatasetOpKernel {
 public:
  explicit AutoShardDatasetOp(OpKernelConstruction* ctx)
      : DatasetOpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("auto_shard_policy", &policy_));
    if (ctx->function_library() != nullptr) {
      readers_ = ReaderFunctions(*ctx->function_library());
      // Kept for FILE sharding, which makes the datasets it rewrites again.
      if (!readers_.empty()) {
        library_ =
            std::make_shared<FunctionDefLibrary>(*ctx->function_library());
      }
    }
  }

 private:
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    DFX_ASSIGN_OR_RETURN(DatasetPtr input, DatasetFromInput(ctx, 0));
    DFX_ASSIGN_OR_RETURN(int64_t num_workers,
                         ScalarInt64Input(ctx, 1, "num_workers"));
    if (num_workers <= 0) {
      return absl::InvalidArgumentError(
          "num_workers must be greater than zero.");
    }
    DFX_ASSIGN_OR_RETURN(int64_t index, ScalarInt64Input(ctx, 2, "index"));
    if (index < 0 || index >= num_workers) {
      return absl::InvalidArgumentError(
          absl::StrCat("index must be between 0 and ", num_workers - 1));
    }
    if (policy_ < kOff || policy_ > kHint) {
      return absl::InvalidArgumentError(
          absl::StrCat("Unknown auto_shard_policy ", policy_));
    }
    // OFF; HINT (dfx's ShardDataset refuses SHARD_HINT when it is made, so
    // no hint is left to replace); FILE over one worker.
    if (policy_ == kOff || policy_ == kHint ||
        (policy_ == kFile && num_workers == 1 && index == 0)) {
      return input;
    }
    if (policy_ != kData) {  // FILE, or AUTO
      std::vector<const DatasetBase*> path;
      int branches = 0;
      absl::Status found = FindFileShard(*input, readers_, &path, &branches);
      if (found.ok()) {
        return ShardByFile(ctx, path, branches, num_workers, index);
      }
      if (policy_ == kFile || !absl::IsNotFound(found)) return found;
    }
    return std::make_shared<AutoShardedDataset>(std::move(input), num_workers,
                                                index);
  }

  // TensorFlow's FILE rewrite: a shard of num_workers from `index` between
  // the last dataset of `path` and its first input, and every dataset of
  // `path` made again over the new one (their kernels built from their
  // NodeDefs, run on their other inputs as recorded); assert_cardinality
  // is dropped, as TensorFlow drops it.
  absl::StatusOr<DatasetPtr> ShardByFile(
      OpKernelContext* ctx, const std::vector<const DatasetBase*>& path,
      int branches, int64_t num_workers, int64_t index) {
    auto unsupported = [](absl::string_view why) {
      return absl::UnimplementedError(absl::StrCat(
          "auto-sharding by FILE is not supported by dfx for this pipeline (",
          why, "); set the auto_shard_policy to DATA or OFF"));
    };
    if (branches > 0) return unsupported("a zip or concatenate of files");
    if (library_ == nullptr) return unsupported("no function library");
    const DatasetBase& target = *path.back();
    // The datasets below the target along first inputs; TensorFlow moves
    // a shuffle among them (the one supported here) below the shard.
    std::vector<DatasetPtr> chain;
    for (DatasetPtr d = target.node()->inputs[0]; d != nullptr;) {
      chain.push_back(d);
      std::shared_ptr<const DatasetBase::Node> n = d->node();
      if (n == nullptr || n->inputs.empty()) break;
      if (n->inputs.size() > 1 && ShuffledUpstream(*d, 0)) {
        return unsupported("a shuffle under a zip or concatenate of files");
      }
      d = n->inputs[0];
    }
    int shuffle = -1;
    for (size_t k = 0; k < chain.size(); ++k) {
      std::shared_ptr<const DatasetBase::Node> n = chain[k]->node();
      if (n != nullptr && OpIn(n->def->op(), kShuffleOps)) {
        if (shuffle >= 0) return unsupported("two shuffles of the files");
        shuffle = static_cast<int>(k);
      }
    }
    DatasetPtr child;
    if (shuffle < 0) {
      child =
          std::make_shared<AutoShardedDataset>(chain[0], num_workers, index);
    } else {
      // Below the shuffle as they were, without it; the shard; the
      // shuffle again, over the shard.
      const DatasetBase::Node& s = *chain[shuffle]->node();
      if (s.inputs.empty()) return unsupported("a shuffle without input");
      DatasetPtr base = s.inputs[0];
      for (int j = shuffle - 1; j >= 0; --j) {
        DFX_ASSIGN_OR_RETURN(
            base, Remake(ctx, *chain[j]->node(), chain[j + 1].get(), base));
      }
      base = std::make_shared<AutoShardedDataset>(std::move(base), num_workers,
                                                  index);
      DFX_ASSIGN_OR_RETURN(child,
                           Remake(ctx, s, s.inputs[0].get(), std::move(base)));
    }
    const DatasetBase* replaced = chain[0].get();
    for (size_t i = path.size(); i-- > 0;) {
      std::shared_ptr<const DatasetBase::Node> node = path[i]->node();
      if (node->def->op() == "AssertCardinalityDataset") {
        replaced = path[i];
        continue;
      }
      DFX_ASSIGN_OR_RETURN(DatasetPtr made,
                           Remake(ctx, *node, replaced, child));
      replaced = path[i];
      child = std::move(made);
    }
    return child;
  }

  // The dataset `node`'s kernel makes with input dataset `old` replaced by
  // `now`.
  absl::StatusOr<DatasetPtr> Remake(OpKernelContext* ctx,
                                    const DatasetBase::Node& node,
                                    const DatasetBase* old, DatasetPtr now) {
    std::vector<Tensor> inputs;
    size_t next_input = 0, next_arg = 0;
    for (const bool is_dataset : node.dataset_input) {
      if (is_dataset) {
        if (next_input >= node.inputs.size()) break;
        const DatasetPtr& in = node.inputs[next_input++];
        Tensor t(DT_VARIANT, TensorShape({}));
        t.data<Variant>()[0] =
            Variant::Make<DatasetVariant>(in.get() == old ? now : in);
        inputs.push_back(std::move(t));
      } else {
        if (next_arg >= node.args.size()) break;
        inputs.push_back(node.args[next_arg++]);
      }
    }
    NodeDef def = *node.def;
    def.clear_input();
    DFX_ASSIGN_OR_RETURN(const OpRegistrationData* reg,
                         OpRegistry::Global()->LookUpOrError(def.op()));
    DFX_ASSIGN_OR_RETURN(std::unique_ptr<OpKernel> kernel,
                         StandardKernelRegistry()->CreateKernel(
                             def, reg->op_def, ctx->device(), library_.get()));
    if (kernel->num_inputs() != static_cast<int>(inputs.size())) {
      return absl::UnimplementedError(absl::StrCat(
          "auto-sharding by FILE could not make ", def.op(), " again"));
    }
    OpKernelContext::Params params;
    params.op_kernel = kernel.get();
    params.device = ctx->device();
    params.inputs = inputs;
    OpKernelContext made(&params);
    kernel->Compute(&made);
    DFX_RETURN_IF_ERROR(made.status());
    return DatasetFromTensor((*made.mutable_outputs())[0], def.op());
  }

  int64_t policy_ = 0;
  absl::flat_hash_set<std::string> readers_;
  std::shared_ptr<const FunctionDefLibrary> library_;
};

// ---------------------------------------------------------------------------
// DatasetFingerprint

class Fnv64 {
 public:
  void Add(absl::string_view bytes) {
    for (unsigned char c : bytes) {
      h_ ^= c;
      h_ *= 0x100000001b3ULL;
    }
  }
  void AddLength(uint64_t n) {
    Add(absl::string_view(reinterpret_cast<const char*>(&n), sizeof(n)));
  }
  uint64_t value() const { return h_; }

 private:
  uint64_t h_ = 0xcbf29ce484222325ULL;
};

// Adds `d`'s pipeline to `h`: its node's op, attrs in name order (the
// node's name and device left out), tensor inputs and input datasets.
void HashDataset(const DatasetBase& d, Fnv64* h, int depth) {
  std::shared_ptr<const DatasetBase::Node> node = d.node();
  if (node == nullptr || depth > 10000) {
    h->Add(d.DebugString());
    return;
  }
  const NodeDef& def = *node->def;
  h->AddLength(def.op().size());
  h->Add(def.op());
  std::vector<std::pair<std::string, const AttrValue*>> attrs;
  for (const auto& [name, value] : def.attr()) {
    // (Python names each dataset in its metadata: not the pipeline.)
    if (name != "metadata") attrs.emplace_back(name, &value);
  }
  std::sort(attrs.begin(), attrs.end());
  for (const auto& [name, value] : attrs) {
    std::string bytes;
    google::protobuf::io::StringOutputStream out(&bytes);
    google::protobuf::io::CodedOutputStream coded(&out);
    coded.SetSerializationDeterministic(true);
    value->SerializeToCodedStream(&coded);
    coded.Trim();
    h->AddLength(name.size());
    h->Add(name);
    h->AddLength(bytes.size());
    h->Add(bytes);
  }
  for (const Tensor& t : node->args) {
    TensorProto proto;
    if (t.dtype() != DT_VARIANT && t.dtype() != DT_RESOURCE) {
      t.AsProtoTensorContent(&proto);
    } else {
      proto.set_dtype(t.dtype());
    }
    const std::string bytes = proto.SerializeAsString();
    h->AddLength(bytes.size());
    h->Add(bytes);
  }
  h->AddLength(node->inputs.size());
  for (const auto& in : node->inputs) HashDataset(*in, h, depth + 1);
}

// ---------------------------------------------------------------------------
// A snapshot's iterator: a writer, a reader or a pass-through of the input,
// whichever the snapshot's state picked when it started. Its checkpoint
// records which, so a restore continues the same kind of pass (with the
// writer's or reader's own position) even when the snapshot on disk has
// moved on since, as TensorFlow's snapshot iterators save their mode.

enum class SnapshotMode : int64_t { kUnset = 0, kWrite, kRead, kPass };

class SnapshotIterator final : public IteratorBase {
 public:
  // The dataset that does a pass of `mode`.
  using Maker = std::function<absl::StatusOr<DatasetPtr>(SnapshotMode)>;
  // The mode a fresh pass takes, from the snapshot's state on disk.
  using Picker = std::function<absl::StatusOr<SnapshotMode>()>;

  SnapshotIterator(Maker make, Picker pick)
      : make_(std::move(make)), pick_(std::move(pick)) {}

  absl::Status Start(IteratorContext* ctx, SnapshotMode mode) {
    inner_.reset();
    DFX_ASSIGN_OR_RETURN(pass_, make_(mode));
    DFX_ASSIGN_OR_RETURN(inner_, pass_->MakeIterator(ctx));
    mode_ = mode;
    return absl::OkStatus();
  }

  absl::Status GetNext(IteratorContext* ctx, std::vector<Tensor>* out,
                       bool* end) override {
    if (mode_ == SnapshotMode::kUnset) {
      DFX_ASSIGN_OR_RETURN(SnapshotMode mode, pick_());
      DFX_RETURN_IF_ERROR(Start(ctx, mode));
    }
    return inner_->GetNext(ctx, out, end);
  }

  absl::Status Save(const std::string& prefix, IteratorState* state) override {
    state->WriteInt(prefix, "mode", static_cast<int64_t>(mode_));
    if (inner_ == nullptr) return absl::OkStatus();
    return SaveIterator(*pass_, *inner_, prefix + "/pass", state);
  }

  absl::Status Restore(IteratorContext* ctx, const std::string& prefix,
                       const IteratorState& state) override {
    DFX_ASSIGN_OR_RETURN(
        int64_t mode,
        ReadIntInRange(state, prefix, "mode", 0,
                       static_cast<int64_t>(SnapshotMode::kPass)));
    if (mode == static_cast<int64_t>(SnapshotMode::kUnset)) {
      inner_.reset();
      pass_.reset();
      mode_ = SnapshotMode::kUnset;
      return absl::OkStatus();
    }
    DFX_RETURN_IF_ERROR(Start(ctx, static_cast<SnapshotMode>(mode)));
    return RestoreIterator(*pass_, *inner_, ctx, prefix + "/pass", state);
  }

 private:
  const Maker make_;
  const Picker pick_;
  SnapshotMode mode_ = SnapshotMode::kUnset;
  DatasetPtr pass_;
  std::unique_ptr<IteratorBase> inner_;
};

// ---------------------------------------------------------------------------
// SnapshotDatasetV2 (Dataset.snapshot): the input's elements, saved under
// <path>/<hash> in the save format on the first pass and read from there
// on later ones.

class SnapshotDataset final : public UnaryDataset {
 public:
  struct Functions {
    std::shared_ptr<const DatasetFunction> reader, shard;
    std::vector<Tensor> reader_captured, shard_captured;
    std::string compression;
  };

  SnapshotDataset(std::string node, DatasetPtr input, std::string dir,
                  std::shared_ptr<const Functions> f)
      : UnaryDataset(input, input->output_dtypes()),
        node_(std::move(node)),
        dir_(std::move(dir)),
        f_(std::move(f)) {}

  int64_t Cardinality() const override { return input()->Cardinality(); }
  std::string DebugString() const override {
    return absl::StrCat("SnapshotDatasetV2(", dir_, ")");
  }

  // As TensorFlow's, each iterator decides when it is made: no metadata,
  // write; finalized, read; a save under way (another writer's), pass the
  // input through.
  absl::StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(
      IteratorContext* ctx) const override {
    auto it = std::make_unique<SnapshotIterator>(
        [d = Self<SnapshotDataset>()](SnapshotMode mode) {
          return d->PassOf(mode);
        },
        [d = Self<SnapshotDataset>()] { return d->Pick(); });
    DFX_ASSIGN_OR_RETURN(SnapshotMode mode, Pick());
    DFX_RETURN_IF_ERROR(it->Start(ctx, mode));
    return std::unique_ptr<IteratorBase>(std::move(it));
  }

 private:
  absl::StatusOr<SnapshotMode> Pick() const {
    absl::StatusOr<bool> finalized = SaveFinalized(node_, dir_);
    if (absl::IsNotFound(finalized.status())) return SnapshotMode::kWrite;
    DFX_RETURN_IF_ERROR(finalized.status());
    return *finalized ? SnapshotMode::kRead : SnapshotMode::kPass;
  }

  absl::StatusOr<DatasetPtr> PassOf(SnapshotMode mode) const {
    switch (mode) {
      case SnapshotMode::kWrite:
        return MakeSaveDataset(node_, input(), dir_, f_->compression, f_->shard,
                               f_->shard_captured);
      case SnapshotMode::kRead:
        return MakeLoadDataset(node_, dir_, f_->compression, output_dtypes(),
                               f_->reader, f_->reader_captured);
      default:
        return input();
    }
  }

  const std::string node_;
  const std::string dir_;
  const std::shared_ptr<const SnapshotDataset::Functions> f_;
};

// SnapshotDataset (v1): as SnapshotDatasetV2 without functions (every
// element to one shard, read back in order), its mode ("auto", "read",
// "write", "passthrough") decided at the iterator's first GetNext, as
// TensorFlow; "auto" writes again over a save older than
// pending_snapshot_expiry_seconds that never finished. Written in the save
// format, not v1's own: a directory TensorFlow's v1 wrote is not read.
class SnapshotV1Dataset final : public UnaryDataset {
 public:
  SnapshotV1Dataset(std::string node, DatasetPtr input, std::string dir,
                    std::string compression, std::string mode,
                    int64_t expiry_seconds)
      : UnaryDataset(input, input->output_dtypes()),
        node_(std::move(node)),
        dir_(std::move(dir)),
        compression_(std::move(compression)),
        mode_(std::move(mode)),
        expiry_seconds_(expiry_seconds) {}

  int64_t Cardinality() const override { return input()->Cardinality(); }
  std::string DebugString() const override {
    return absl::StrCat("SnapshotDataset(", dir_, ")");
  }
  absl::StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(
      IteratorContext*) const override {
    return std::unique_ptr<IteratorBase>(new SnapshotIterator(
        [d = Self<SnapshotV1Dataset>()](SnapshotMode mode) {
          return d->PassOf(mode);
        },
        [d = Self<SnapshotV1Dataset>()] { return d->Pick(); }));
  }

 private:
  absl::StatusOr<SnapshotMode> Pick() const {
    absl::StatusOr<SaveState> saved = ReadSaveState(node_, dir_);
    if (!saved.ok() && !absl::IsNotFound(saved.status())) {
      return saved.status();
    }
    if (mode_ == "read") {
      DFX_RETURN_IF_ERROR(saved.status());
      return SnapshotMode::kRead;
    }
    if (mode_ == "passthrough") return SnapshotMode::kPass;
    if (mode_ == "auto" && saved.ok()) {
      const int64_t age_micros =
          std::chrono::duration_cast<std::chrono::microseconds>(
              std::chrono::system_clock::now().time_since_epoch())
              .count() -
          saved->creation_micros;
      return saved->finalized                           ? SnapshotMode::kRead
             : age_micros > expiry_seconds_ * 1000000LL ? SnapshotMode::kWrite
                                                        : SnapshotMode::kPass;
    }
    return SnapshotMode::kWrite;
  }

  absl::StatusOr<DatasetPtr> PassOf(SnapshotMode mode) const {
    switch (mode) {
      case SnapshotMode::kWrite:
        return MakeSaveDataset(node_, input(), dir_, compression_, nullptr, {});
      case SnapshotMode::kRead:
        return MakeLoadDataset(node_, dir_, compression_, output_dtypes(),
                               nullptr, {});
      default:
        return input();
    }
  }

  const std::string node_;
  const std::string dir_;
  const std::string compression_;
  const std::string mode_;
  const int64_t expiry_seconds_;
};

class SnapshotDatasetOp final : public DatasetOpKernel {
 public:
  explicit SnapshotDatasetOp(OpKernelConstruction* ctx) : DatasetOpKernel(ctx) {
    ctx->SetStatus(Init(ctx));
  }

 private:
  absl::Status Init(OpKernelConstruction* ctx) {
    DFX_RETURN_IF_ERROR(ctx->GetAttr("compression", &compression_));
    DFX_RETURN_IF_ERROR(ctx->GetAttr("mode", &mode_));
    DFX_RETURN_IF_ERROR(ctx->GetAttr("snapshot_name", &name_));
    DFX_RETURN_IF_ERROR(
        ctx->GetAttr("pending_snapshot_expiry_seconds", &expiry_seconds_));
    if (expiry_seconds_ == -1) expiry_seconds_ = 86400;
    if (compression_ != "" && compression_ != "GZIP" &&
        compression_ != "SNAPPY") {
      return absl::InvalidArgumentError(
          "compression must be either '', 'GZIP' or 'SNAPPY'.");
    }
    if (expiry_seconds_ < 1) {
      return absl::InvalidArgumentError(
          "pending_snapshot_expiry_seconds must be at least 1 second.");
    }
    if (mode_ != "auto" && mode_ != "read" && mode_ != "write" &&
        mode_ != "passthrough") {
      return absl::InvalidArgumentError(
          "mode must be either 'auto', 'read', 'write', or 'passthrough'.");
    }
    return absl::OkStatus();
  }

  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    DFX_ASSIGN_OR_RETURN(DatasetPtr input, DatasetFromInput(ctx, 0));
    const Tensor& path = ctx->input(1);
    if (path.dtype() != DT_STRING || path.dims() != 0) {
      return absl::InvalidArgumentError("path must be a scalar");
    }
    // <path>/<hash> (dfx's fingerprint, 16 hex digits as TensorFlow prints
    // its own), or <path>/custom-<snapshot_name>.
    std::string dir = path.data<std::string>()[0];
    if (!dir.empty() && dir.back() != '/') dir.push_back('/');
    if (name_.empty()) {
      Fnv64 h;
      HashDataset(*input, &h, 0);
      absl::StrAppend(&dir, absl::Hex(h.value(), absl::kZeroPad16));
    } else {
      absl::StrAppend(&dir, "custom-", name_);
    }
    return std::make_shared<SnapshotV1Dataset>(name(), std::move(input),
                                               std::move(dir), compression_,
                                               mode_, expiry_seconds_);
  }

  std::string compression_, mode_, name_;
  int64_t expiry_seconds_ = 86400;
};

class SnapshotDatasetV2Op final : public DatasetOpKernel {
 public:
  explicit SnapshotDatasetV2Op(OpKernelConstruction* ctx)
      : DatasetOpKernel(ctx) {
    ctx->SetStatus(Init(ctx));
  }

 private:
  absl::Status Init(OpKernelConstruction* ctx) {
    DFX_RETURN_IF_ERROR(ctx->GetAttr("compression", &compression_));
    DFX_RETURN_IF_ERROR(ctx->GetAttr("hash_valid", &hash_valid_));
    DFX_RETURN_IF_ERROR(ctx->GetAttr("hash", &hash_));
    DataTypeVector reader_args, shard_args;
    DFX_RETURN_IF_ERROR(ctx->GetAttr("Treader_func_args", &reader_args));
    DFX_RETURN_IF_ERROR(ctx->GetAttr("Tshard_func_args", &shard_args));
    num_reader_args_ = static_cast<int>(reader_args.size());
    num_shard_args_ = static_cast<int>(shard_args.size());
    DFX_ASSIGN_OR_RETURN(reader_, DatasetFunction::Create(ctx, "reader_func"));
    DFX_ASSIGN_OR_RETURN(shard_, DatasetFunction::Create(ctx, "shard_func"));
    return absl::OkStatus();
  }

  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    DFX_ASSIGN_OR_RETURN(DatasetPtr input, DatasetFromInput(ctx, 0));
    const Tensor& path = ctx->input(1);
    if (path.dtype() != DT_STRING || path.dims() != 0) {
      return absl::InvalidArgumentError("path must be a scalar");
    }
    // AUTO is SNAPPY, as in TensorFlow.
    const std::string compression =
        compression_ == "AUTO" ? std::string("SNAPPY") : compression_;
    auto f = std::make_shared<SnapshotDataset::Functions>();
    f->reader = reader_;
    f->shard = shard_;
    f->compression = compression;
    for (int i = 0; i < num_reader_args_; ++i) {
      f->reader_captured.push_back(ctx->input(2 + i));
    }
    for (int i = 0; i < num_shard_args_; ++i) {
      f->shard_captured.push_back(ctx->input(2 + num_reader_args_ + i));
    }
    // The directory is named by the input's fingerprint (dfx's, not
    // TensorFlow's graph hash: a directory TensorFlow wrote is read through
    // its own path, by Dataset.load), or the hash attr when valid.
    uint64_t hash = static_cast<uint64_t>(hash_);
    if (!hash_valid_) {
      Fnv64 h;
      HashDataset(*input, &h, 0);
      hash = h.value();
    }
    std::string dir = path.data<std::string>()[0];
    if (!dir.empty() && dir.back() != '/') dir.push_back('/');
    absl::StrAppend(&dir, hash);
    return std::make_shared<SnapshotDataset>(name(), std::move(input),
                                             std::move(dir), std::move(f));
  }

  std::string compression_;
  bool hash_valid_ = false;
  int64_t hash_ = 0;
  int num_reader_args_ = 0;
  int num_shard_args_ = 0;
  std::shared_ptr<const DatasetFunction> reader_, shard_;
};

class DatasetFingerprintOp final : public OpKernel {
 public:
  explicit DatasetFingerprintOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<DatasetPtr> dataset = DatasetFromInput(ctx, 0);
    DFX_OP_REQUIRES_OK(ctx, dataset.status());
    Fnv64 h;
    HashDataset(**dataset, &h, 0);
    ctx->set_output(0, Tensor::Scalar<uint64_t>(h.value()));
  }
};

}  // namespace
}  // namespace dfx::data

namespace dfx {

void RegisterDataset5Kernels(KernelRegistry* registry) {
  for (const char* op :
       {"AssertNextDataset", "ExperimentalAssertNextDataset"}) {
    RegisterKernel<data::AssertNextDatasetOp>(registry, KernelDefBuilder(op));
  }
  RegisterKernel<data::AssertPrevDatasetOp>(
      registry, KernelDefBuilder("AssertPrevDataset"));
  for (const char* op : {"AutoShardDataset", "ExperimentalAutoShardDataset"}) {
    RegisterKernel<data::AutoShardDatasetOp>(registry, KernelDefBuilder(op));
  }
  RegisterKernel<data::SnapshotDatasetV2Op>(
      registry, KernelDefBuilder("SnapshotDatasetV2"));
  RegisterKernel<data::SnapshotDatasetOp>(registry,
                                          KernelDefBuilder("SnapshotDataset"));
  RegisterKernel<data::DatasetFingerprintOp>(
      registry, KernelDefBuilder("DatasetFingerprint"));
}

}  // namespace dfx

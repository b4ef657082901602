// tf.data's pipeline assertions and fingerprint (graph/ops/dataset5_ops.cc):
//
//   AssertNextDataset,     pass their input through once the transformations
//   ExperimentalAssert-    applied after them (downstream, nearest first)
//   NextDataset            match `transformations`;
//   AssertPrevDataset      ... once those before them (upstream, nearest
//                          first) match: each entry a text NameAttrList, an
//                          op name and attrs the op's node must carry;
//   DatasetFingerprint     a uint64 hash of the dataset's pipeline.
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
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/text_format.h"
#include "graph/node_def_util.h"
#include "kernels/data/dataset.h"
#include "kernels/kernels.h"
#include "proto/attr_value.pb.h"
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
  RegisterKernel<data::DatasetFingerprintOp>(
      registry, KernelDefBuilder("DatasetFingerprint"));
}

}  // namespace dfx

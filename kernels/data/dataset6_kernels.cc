// A dataset as a serialized GraphDef and back, random access, the global
// shuffle, IndexFlatMapDataset and WeightedFlatMapDataset
// (graph/ops/dataset6_ops.cc):
//
//   DatasetToGraph,     the GraphDef of the input dataset's pipeline, as
//   DatasetToGraphV2    TensorFlow lays it out: each dataset's node (from
//                       its record, DatasetBase::node) after its inputs,
//                       named "<op>/_<n>" in that order, a Const node
//                       "Const/_<n>" for each other input's recorded value,
//                       a `_Retval` node "dataset" (index 0) over the
//                       output dataset, and the functions the nodes' func
//                       attrs reach, from the kernel's graph library;
//   DatasetFromGraph    runs such a graph (TensorFlow's or dfx's) on the
//                       kernel's device and outputs the dataset its
//                       `_Retval` returns.
//
// A dataset without a record (made by dfx itself rather than by a node:
// an auto-shard's inner shard) fails with FailedPrecondition naming the
// dataset. Recorded inputs that are resource handles (a shuffle's seed
// generator) go into the graph as Consts, as TensorFlow writes them (they
// name resources of this process). Under external_state_policy FAIL (2),
// and for DatasetToGraph unless allow_stateful, a stateful op in the
// functions fails with TensorFlow's FailedPrecondition ("... RandomUniformInt
// is stateful."). The functions come from the library of the graph the
// DatasetToGraph node belongs to: a dataset whose function came from
// elsewhere (a DatasetFromGraph of another graph) fails with NotFound
// naming the function.
//
//   GetElementAtIndex   element `index` of a dataset by its Get
//                       (DatasetBase::Get, kernels/data/random_access.cc):
//                       range, tensor slices, from_tensors, map, batch,
//                       take, skip, concatenate, finite repeat, zip, shard,
//                       memory cache, prefetch, options, assert_cardinality
//                       read by index as TensorFlow's do; others are
//                       TensorFlow's Unimplemented, an infinite or unknown
//                       cardinality its FailedPrecondition, an index
//                       outside the cardinality its OutOfRange. A shuffle
//                       (whose Get in TensorFlow permutes all indices with
//                       its own generator) is Unimplemented in dfx. Sparse
//                       tensor slices, which have no Get in dfx, are read
//                       by a fresh iterator up to the element (Unimplemented
//                       from index 2^24 on).
//
//   GlobalShuffleDataset  element i is the input's element (by its Get) at
//                         TensorFlow's index shuffle of i
//                         (random::IndexShuffle, 8 rounds, keyed by three
//                         seeds of the dataset's generator), over inputs
//                         whose pipeline TensorFlow reads by index for it
//                         (DatasetBase::RandomAccessCompatible; a batch
//                         only with drop_remainder); nothing is held but
//                         the position, which its iterator saves with its
//                         seeds. The seed_generator handle is
//                         not looked up: Python passes a dummy one, and
//                         the dataset makes its own generator, as
//                         TensorFlow does then.
#include <array>
#include <algorithm>
#include <atomic>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "graph/graph_def_import.h"
#include "graph/lower_functional_ops.h"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "kernels/data/dataset.h"
#include "kernels/data/dataset_graph.h"
#include "kernels/data/element_util.h"
#include "kernels/kernels.h"
#include "kernels/random/philox.h"
#include "kernels/random/rng2_kernels.h"
#include "proto/attr_value.pb.h"
#include "proto/function.pb.h"
#include "proto/graph.pb.h"
#include "proto/tensor.pb.h"
#include "runtime/cancellation.h"

namespace dfx::data {
namespace {

// TensorFlow 2.21's GraphDef version (the producer of the graphs its
// DatasetToGraphV2 writes).
constexpr int kProducer = 2474;

// The external_state_policy values that matter here (1, IGNORE, and any
// other value write the graph as WARN does, as in TensorFlow).
constexpr int64_t kPolicyWarn = 0;
constexpr int64_t kPolicyFail = 2;

// Builds the GraphDef of one pipeline.
class PipelineWriter {
 public:
  explicit PipelineWriter(GraphDef* graph) : graph_(graph) {}

  // Adds `d`'s node after its inputs' (each dataset once) and returns its
  // name.
  absl::StatusOr<std::string> Add(const DatasetBase& d, int depth) {
    auto found = names_.find(&d);
    if (found != names_.end()) return found->second;
    if (depth > 10000) {
      return absl::InvalidArgumentError("the pipeline is too deep to write");
    }
    std::shared_ptr<const DatasetBase::Node> node = d.node();
    if (node == nullptr) {
      return absl::FailedPreconditionError(absl::StrCat(
          "cannot write ", d.DebugString(),
          " into a graph: dfx keeps no record of the node that made it"));
    }
    const NodeDef& def = *node->def;
    std::vector<std::string> inputs;
    size_t next_input = 0, next_arg = 0;
    for (const bool is_dataset : node->dataset_input) {
      if (is_dataset) {
        if (next_input >= node->inputs.size()) break;
        DFX_ASSIGN_OR_RETURN(std::string in,
                             Add(*node->inputs[next_input++], depth + 1));
        inputs.push_back(std::move(in));
      } else {
        if (next_arg >= node->args.size()) break;
        DFX_ASSIGN_OR_RETURN(std::string in,
                             AddConst(def, node->args[next_arg++]));
        inputs.push_back(std::move(in));
      }
    }
    NodeDef* out = graph_->add_node();
    *out = def;
    out->clear_input();
    out->clear_device();
    // Internal attrs ("_class" colocations naming nodes of the writing
    // graph) stay behind, as in TensorFlow's graphs.
    for (auto it = out->mutable_attr()->begin();
         it != out->mutable_attr()->end();) {
      if (!it->first.empty() && it->first[0] == '_') {
        it = out->mutable_attr()->erase(it);
      } else {
        ++it;
      }
    }
    out->set_name(absl::StrCat(def.op(), "/_", next_id_++));
    for (std::string& in : inputs) out->add_input(std::move(in));
    for (const auto& [name, value] : def.attr()) AddFunctions(value);
    names_[&d] = out->name();
    return out->name();
  }

  // The names of the functions the nodes' func attrs name.
  const std::vector<std::string>& functions() const { return functions_; }

 private:
  absl::StatusOr<std::string> AddConst(const NodeDef& def, const Tensor& t) {
    if (t.dtype() == DT_VARIANT) {
      const Variant* v = t.data<Variant>();
      for (int64_t i = 0; i < t.NumElements(); ++i) {
        if (v[i].get<DatasetVariant>() != nullptr) {
          return absl::FailedPreconditionError(absl::StrCat(
              "cannot write ", def.op(),
              " into a graph: a dataset among its inputs is not one of its "
              "input datasets"));
        }
      }
    }
    NodeDef* c = graph_->add_node();
    c->set_name(absl::StrCat("Const/_", next_id_++));
    c->set_op("Const");
    (*c->mutable_attr())["dtype"].set_type(t.dtype());
    TensorProto* value = (*c->mutable_attr())["value"].mutable_tensor();
    if (t.dtype() == DT_STRING || t.dtype() == DT_RESOURCE ||
        t.dtype() == DT_VARIANT) {
      t.AsProtoField(value);
    } else {
      t.AsProtoTensorContent(value);
    }
    return c->name();
  }

  void AddFunctions(const AttrValue& value) {
    if (value.has_func()) {
      functions_.push_back(value.func().name());
      for (const auto& [name, v] : value.func().attr()) AddFunctions(v);
    }
    for (const NameAttrList& f : value.list().func()) {
      functions_.push_back(f.name());
      for (const auto& [name, v] : f.attr()) AddFunctions(v);
    }
  }

  GraphDef* const graph_;
  int next_id_ = 0;
  absl::flat_hash_map<const DatasetBase*, std::string> names_;
  std::vector<std::string> functions_;
};

class DatasetToGraphOp final : public OpKernel {
 public:
  explicit DatasetToGraphOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    if (def().op() == "DatasetToGraph") {
      bool allow_stateful = false;
      ctx->SetStatus(ctx->GetAttr("allow_stateful", &allow_stateful));
      policy_ = allow_stateful ? kPolicyWarn : kPolicyFail;
    } else {
      ctx->SetStatus(ctx->GetAttr("external_state_policy", &policy_));
    }
    ctx->SetStatus(
        ctx->GetAttr("strip_device_assignment", &strip_device_assignment_));
    if (ctx->function_library() != nullptr) {
      library_ = std::make_shared<FunctionDefLibrary>(*ctx->function_library());
    }
  }

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<std::string> graph = Write(ctx);
    DFX_OP_REQUIRES_OK(ctx, graph.status());
    ctx->set_output(0, Tensor::Scalar<std::string>(*std::move(graph)));
  }

 private:
  absl::StatusOr<std::string> Write(OpKernelContext* ctx) {
    DFX_ASSIGN_OR_RETURN(DatasetPtr dataset, DatasetFromInput(ctx, 0));
    GraphDef graph;
    DFX_RETURN_IF_ERROR(WriteDatasetGraph(*dataset, library_.get(), policy_,
                                          strip_device_assignment_, &graph));
    std::string bytes;
    {
      google::protobuf::io::StringOutputStream stream(&bytes);
      google::protobuf::io::CodedOutputStream coded(&stream);
      coded.SetSerializationDeterministic(true);
      graph.SerializeToCodedStream(&coded);
    }
    return bytes;
  }

 public:
  // TensorFlow's external state check under FAIL: a function op that is
  // stateful (but Assert, the functional If and While, whose branches are
  // checked as functions of their own, and the dataset ops).
  static absl::Status CheckStateless(const FunctionDefLibrary& library) {
    for (const FunctionDef& f : library.function()) {
      for (const NodeDef& n : f.node_def()) {
        const OpRegistrationData* reg = OpRegistry::Global()->LookUp(n.op());
        if (reg == nullptr || !reg->op_def.is_stateful()) continue;
        const OpDef& op = reg->op_def;
        if (op.name() == "Assert" || op.name() == "If" ||
            op.name() == "While") {
          continue;
        }
        if (op.output_arg_size() == 1 &&
            op.output_arg(0).type() == DT_VARIANT &&
            (absl::EndsWith(op.name(), "Dataset") ||
             absl::EndsWith(op.name(), "DatasetV2"))) {
          continue;
        }
        return absl::FailedPreconditionError(absl::StrCat(
            "Failed to serialize the input pipeline graph: ", op.name(),
            " is stateful."));
      }
    }
    return absl::OkStatus();
  }

 private:
  int64_t policy_ = kPolicyWarn;
  bool strip_device_assignment_ = false;
  std::shared_ptr<const FunctionDefLibrary> library_;
};

class DatasetFromGraphOp final : public OpKernel {
 public:
  explicit DatasetFromGraphOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<DatasetPtr> dataset = Read(ctx);
    DFX_OP_REQUIRES_OK(ctx, dataset.status());
    SetDatasetOutput(ctx, 0, *std::move(dataset));
  }

 private:
  absl::StatusOr<DatasetPtr> Read(OpKernelContext* ctx) {
    const Tensor& in = ctx->input(0);
    if (in.dtype() != DT_STRING || in.NumElements() != 1 ||
        in.shape().dims() != 0) {
      return absl::InvalidArgumentError("graph_def must be a scalar string");
    }
    GraphDef graph;
    if (!graph.ParseFromString(in.data<std::string>()[0])) {
      return absl::InvalidArgumentError("Could not parse GraphDef");
    }
    // The graph's one return value is the dataset; dfx's executor takes it
    // through a call frame of one return value.
    int retvals = 0;
    for (NodeDef& node : *graph.mutable_node()) {
      if (node.op() == "_Retval") {
        ++retvals;
        (*node.mutable_attr())["index"].set_i(0);
      } else if (node.op() == "_Arg") {
        return absl::InvalidArgumentError(
            "the dataset's graph must take no arguments (_Arg node '" +
            node.name() + "')");
      }
      node.set_device(ctx->device()->name());
    }
    if (retvals == 0) {
      // TensorFlow's words: it fetches the _Retval's input, here none.
      return absl::NotFoundError("FetchOutputs node : not found");
    }
    if (retvals != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the dataset's graph must have one _Retval node, has ", retvals));
    }
    DFX_ASSIGN_OR_RETURN(std::unique_ptr<FunctionLibrary> library,
                         FunctionLibrary::Create(ReachableFunctions(graph),
                                                 OpRegistry::Global()));
    ImportOptions import;
    import.allow_internal_names = true;
    import.validate_shapes = false;
    DFX_ASSIGN_OR_RETURN(
        std::unique_ptr<Graph> g,
        ImportGraphDef(std::move(graph), library->op_registry(), import));
    DFX_RETURN_IF_ERROR(LowerFunctionalOps(*library, g.get()));
    ExecutorParams params;
    params.device = ctx->device();
    params.kernel_registry = StandardKernelRegistry();
    DFX_ASSIGN_OR_RETURN(std::unique_ptr<Executor> executor,
                         NewExecutor(params, std::move(g)));
    // A step of its own, numbered apart from the masters' steps and the
    // dataset functions'.
    static std::atomic<int64_t> next_step{0};
    SimpleCallFrame frame({}, 1);
    Executor::Args run;
    run.step_id = (int64_t{1} << 61) | next_step.fetch_add(1);
    run.call_frame = &frame;
    CancellationManager cancel;
    run.cancellation_manager = &cancel;
    DFX_RETURN_IF_ERROR(executor->Run(run));
    DFX_ASSIGN_OR_RETURN(std::vector<Tensor> out, frame.ConsumeRetvals());
    return DatasetFromTensor(out[0], "the graph's _Retval");
  }
};

// The ops of TensorFlow 2.21's datasets with random access: a pipeline of
// these without a Get in dfx (sparse slices) is read by iterating.
bool HasRandomAccess(absl::string_view op) {
  static const absl::flat_hash_set<absl::string_view> kOps = {
      "RangeDataset",
      "TensorSliceDataset",
      "TensorDataset",
      "SparseTensorSliceDataset",
      "MapDataset",
      "ParallelMapDataset",
      "ParallelMapDatasetV2",
      "BatchDataset",
      "BatchDatasetV2",
      "TakeDataset",
      "SkipDataset",
      "ConcatenateDataset",
      "RepeatDataset",
      "ZipDataset",
      "CacheDataset",
      "CacheDatasetV2",
      "PrefetchDataset",
      "OptionsDataset",
      "AssertCardinalityDataset",
      "ExperimentalAssertCardinalityDataset",
  };
  return kOps.contains(op);
}

// OK when every dataset of `d`'s pipeline is one GetElementAtIndex reads;
// TensorFlow's Unimplemented naming the first that is not.
absl::Status CheckRandomAccess(const DatasetBase& d, int depth) {
  std::shared_ptr<const DatasetBase::Node> node = d.node();
  if (node == nullptr || !HasRandomAccess(node->def->op()) || depth > 10000) {
    return absl::UnimplementedError(
        absl::StrCat("Random access is not implemented for dataset ",
                     node == nullptr ? d.DebugString() : node->def->op()));
  }
  if (node->def->op() == "CacheDataset" ||
      node->def->op() == "CacheDatasetV2") {
    // A cache to a file has no random access.
    if (node->args.empty() || node->args[0].dtype() != DT_STRING ||
        node->args[0].NumElements() != 1 ||
        !node->args[0].data<std::string>()[0].empty()) {
      return absl::UnimplementedError(
          "Random access is not implemented for dataset CacheDataset (a "
          "cache to files)");
    }
  }
  for (const DatasetPtr& in : node->inputs) {
    DFX_RETURN_IF_ERROR(CheckRandomAccess(*in, depth + 1));
  }
  return absl::OkStatus();
}

// The most elements GetElementAtIndex reads before the one asked for when
// it iterates (a bound on the time a call takes).
constexpr int64_t kMaxIndexRead = int64_t{1} << 24;

class GetElementAtIndexOp final : public OpKernel {
 public:
  explicit GetElementAtIndexOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<std::vector<Tensor>> element = Get(ctx);
    DFX_OP_REQUIRES_OK(ctx, element.status());
    DFX_OP_REQUIRES_OK(ctx, SetElementOutputs(ctx, *std::move(element), false));
  }

 private:
  absl::StatusOr<std::vector<Tensor>> Get(OpKernelContext* ctx) {
    DFX_ASSIGN_OR_RETURN(DatasetPtr dataset, DatasetFromInput(ctx, 0));
    DFX_ASSIGN_OR_RETURN(int64_t index, ScalarInt64Input(ctx, 1, "index"));
    IteratorContext ictx = IteratorContextOf(ctx);
    ictx.root = dataset.get();
    std::vector<Tensor> element;
    absl::Status s = dataset->Get(&ictx, index, &element);
    if (absl::IsUnimplemented(s) && CheckRandomAccess(*dataset, 0).ok()) {
      // A pipeline TensorFlow reads by index that has a dataset without
      // Get in dfx (sparse slices): read it up to the element.
      DFX_ASSIGN_OR_RETURN(element, Walk(ctx, &ictx, *dataset, index));
    } else {
      DFX_RETURN_IF_ERROR(s);
    }
    DataTypeVector types;
    DFX_RETURN_IF_ERROR(GetNodeAttr(def(), "output_types", &types));
    DataTypeVector actual;
    for (const Tensor& t : element) actual.push_back(t.dtype());
    DFX_RETURN_IF_ERROR(CheckOutputTypes(types, actual, "GetElementAtIndex"));
    return element;
  }

  // Element `index` of `dataset`, read by a fresh iterator.
  static absl::StatusOr<std::vector<Tensor>> Walk(OpKernelContext* ctx,
                                                  IteratorContext* ictx,
                                                  const DatasetBase& dataset,
                                                  int64_t index) {
    const int64_t n = dataset.Cardinality();
    if (n == kInfiniteCardinality) {
      return absl::FailedPreconditionError(
          absl::StrCat("Dataset of type ", dataset.DebugString(),
                       " has infinite cardinality, which does not support "
                       "random access."));
    }
    if (index < 0 || (n >= 0 && index >= n)) {
      return absl::OutOfRangeError(
          absl::StrCat("Index out of range [0, ", n, "):", index));
    }
    if (index >= kMaxIndexRead) {
      return absl::UnimplementedError(absl::StrCat(
          "GetElementAtIndex reads ", dataset.DebugString(),
          " up to the element in dfx; index ", index, " is beyond the ",
          kMaxIndexRead, " elements it reads"));
    }
    DFX_ASSIGN_OR_RETURN(std::unique_ptr<IteratorBase> it,
                         dataset.MakeIterator(ictx));
    std::vector<Tensor> element;
    for (int64_t i = 0; i <= index; ++i) {
      if (ctx->cancellation_manager() != nullptr &&
          ctx->cancellation_manager()->IsCancelled()) {
        return absl::CancelledError("GetElementAtIndex was cancelled");
      }
      element.clear();
      bool end = false;
      DFX_RETURN_IF_ERROR(it->GetNext(ictx, &element, &end));
      if (end) {
        return absl::OutOfRangeError(
            absl::StrCat("Index out of range [0, ", i, "):", index));
      }
    }
    return element;
  }
};

// ---------------------------------------------------------------------------
// GlobalShuffleDataset

// TensorFlow's index shuffle rounds for a global shuffle.
constexpr int kIndexShuffleRounds = 8;

// Element i is the input's element IndexShuffle(i, seeds, n - 1), read by
// the input's Get (GlobalShuffleDatasetOp accepts only inputs that have
// it): nothing is held but the position. Each iterator takes three seeds
// from the dataset's generator, as TensorFlow's (with
// reshuffle_each_iteration, words of Philox(seed, seed2); without, seed,
// seed2, seed), and saves them with its position.
class GlobalShuffleDataset final : public UnaryDataset {
 public:
  GlobalShuffleDataset(DatasetPtr input, int64_t seed, int64_t seed2,
                       bool reshuffle)
      : UnaryDataset(input, input->output_dtypes()),
        seed_(seed),
        seed2_(seed2),
        reshuffle_(reshuffle),
        parent_(static_cast<uint64_t>(seed), static_cast<uint64_t>(seed2)),
        words_(&parent_) {}

  std::string DebugString() const override { return "GlobalShuffleDataset"; }
  int64_t Cardinality() const override { return input()->Cardinality(); }

  absl::StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(
      IteratorContext* ctx) const override {
    std::array<uint32_t, 3> key;
    {
      absl::MutexLock lock(&mu_);
      if (reshuffle_) {
        for (uint32_t& k : key) k = words_();
        words_();  // TensorFlow draws a fourth seed and drops it.
      } else {
        key = {static_cast<uint32_t>(seed_), static_cast<uint32_t>(seed2_),
               static_cast<uint32_t>(seed_)};
      }
    }
    return std::unique_ptr<IteratorBase>(
        new Iterator(Self<GlobalShuffleDataset>(), key));
  }

 private:
  class Iterator final : public IteratorBase {
   public:
    Iterator(std::shared_ptr<const GlobalShuffleDataset> d,
             std::array<uint32_t, 3> key)
        : d_(std::move(d)), n_(d_->input()->Cardinality()), key_(key) {}

    absl::Status GetNext(IteratorContext* ctx, std::vector<Tensor>* out,
                         bool* end) override {
      out->clear();
      *end = next_ >= n_;
      if (*end) return absl::OkStatus();
      const uint64_t at =
          random::IndexShuffle(static_cast<uint64_t>(next_), key_,
                               static_cast<uint64_t>(n_ - 1),
                               kIndexShuffleRounds);
      DFX_RETURN_IF_ERROR(
          d_->input()->Get(ctx, static_cast<int64_t>(at), out));
      ++next_;
      return absl::OkStatus();
    }

    absl::Status Save(const std::string& prefix,
                      IteratorState* state) override {
      state->WriteInt(prefix, "next", next_);
      for (int i = 0; i < 3; ++i) {
        state->WriteInt(prefix, absl::StrCat("key", i), key_[i]);
      }
      return absl::OkStatus();
    }
    absl::Status Restore(IteratorContext*, const std::string& prefix,
                         const IteratorState& state) override {
      DFX_ASSIGN_OR_RETURN(int64_t next, state.ReadInt(prefix, "next"));
      if (next < 0 || next > n_) {
        return absl::InvalidArgumentError(absl::StrCat(
            "the global shuffle's saved position ", next,
            " is outside its ", n_, " elements"));
      }
      for (int i = 0; i < 3; ++i) {
        DFX_ASSIGN_OR_RETURN(int64_t k,
                             state.ReadInt(prefix, absl::StrCat("key", i)));
        key_[i] = static_cast<uint32_t>(k);
      }
      next_ = next;
      return absl::OkStatus();
    }

   private:
    const std::shared_ptr<const GlobalShuffleDataset> d_;
    const int64_t n_;
    std::array<uint32_t, 3> key_;
    int64_t next_ = 0;
  };

  const int64_t seed_, seed2_;
  const bool reshuffle_;
  mutable absl::Mutex mu_;
  mutable random::Philox parent_ ABSL_GUARDED_BY(mu_);
  mutable random::PhiloxWords words_ ABSL_GUARDED_BY(mu_);
};

class GlobalShuffleDatasetOp final : public DatasetOpKernel {
 public:
  explicit GlobalShuffleDatasetOp(OpKernelConstruction* ctx)
      : DatasetOpKernel(ctx) {
    ctx->SetStatus(
        ctx->GetAttr("reshuffle_each_iteration", &reshuffle_each_iteration_));
  }

 private:
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    DFX_ASSIGN_OR_RETURN(DatasetPtr input, DatasetFromInput(ctx, 0));
    if (absl::Status s = input->RandomAccessCompatible(); !s.ok()) {
      return absl::FailedPreconditionError(
          absl::StrCat("`global_shuffle` requires all upstream "
                       "transformations be compatible with random access. "
                       "Got: ",
                       s.ToString()));
    }
    const int64_t n = input->Cardinality();
    if (n <= 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "`global_shuffle` requires the input dataset to have a non-empty "
          "finite cardinality. Got cardinality ",
          n, " for dataset ", input->DebugString()));
    }
    DFX_ASSIGN_OR_RETURN(int64_t seed, ScalarInt64Input(ctx, 1, "seed"));
    DFX_ASSIGN_OR_RETURN(int64_t seed2, ScalarInt64Input(ctx, 2, "seed2"));
    if (seed == 0 && seed2 == 0) {
      // TensorFlow's RandomSeeds: (0, 0) asks for random seeds.
      std::random_device rd;
      seed = static_cast<int64_t>((uint64_t{rd()} << 32) | rd());
      seed2 = static_cast<int64_t>((uint64_t{rd()} << 32) | rd());
    }
    return std::make_shared<GlobalShuffleDataset>(std::move(input), seed, seed2,
                                                  reshuffle_each_iteration_);
  }

  bool reshuffle_each_iteration_ = true;
};

// ---------------------------------------------------------------------------
// IndexFlatMapDataset

// As TensorFlow's iterator outside a global shuffle: element k is
// index_map_func(k) = (i, offset): when i is past the input element last
// read (or none was), the next input element is read and map_func applied
// to it; the output is row `offset` of each of map_func's results (a
// scalar result as it is). TensorFlow aborts on an offset past a result's
// rows; dfx fails with InvalidArgument.
class IndexFlatMapDataset final : public UnaryDataset {
 public:
  IndexFlatMapDataset(DatasetPtr input, DataTypeVector dtypes,
                      CapturedFunction map, CapturedFunction index_map)
      : UnaryDataset(std::move(input), std::move(dtypes)),
        map_(std::move(map)),
        index_map_(std::move(index_map)) {}

  std::string DebugString() const override { return "IndexFlatMapDataset"; }
  absl::StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(
      IteratorContext* ctx) const override {
    DFX_ASSIGN_OR_RETURN(std::unique_ptr<IteratorBase> in,
                         input()->MakeIterator(ctx));
    return std::unique_ptr<IteratorBase>(
        new Iterator(Self<IndexFlatMapDataset>(), std::move(in)));
  }

 private:
  class Iterator final : public IteratorBase {
   public:
    Iterator(std::shared_ptr<const IndexFlatMapDataset> d,
             std::unique_ptr<IteratorBase> in)
        : d_(std::move(d)), in_(std::move(in)) {}

    absl::Status GetNext(IteratorContext* ctx, std::vector<Tensor>* out,
                         bool* end) override {
      out->clear();
      *end = false;
      if (in_ == nullptr) {
        *end = true;
        return absl::OkStatus();
      }
      DFX_ASSIGN_OR_RETURN(
          std::vector<Tensor> index,
          d_->index_map_.Run(ctx, {Tensor::Scalar<int64_t>(count_)}));
      int64_t at[2] = {0, 0};
      if (index.size() != 2) {
        return absl::InvalidArgumentError(
            "The `index_map_fn` for `index_flat_map` is expected to return "
            "two int values representing the element index and an offset "
            "within the element.");
      }
      for (int i = 0; i < 2; ++i) {
        const Tensor& t = index[i];
        if (t.NumElements() != 1 ||
            (t.dtype() != DT_INT32 && t.dtype() != DT_INT64)) {
          return absl::InvalidArgumentError(
              "The `index_map_fn` for `index_flat_map` is expected to return "
              "two int32/int64 values representing the element index and an "
              "offset within the element.");
        }
        at[i] =
            t.dtype() == DT_INT32 ? t.data<int32_t>()[0] : t.data<int64_t>()[0];
      }
      if (at[1] < 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("index_flat_map: offset ", at[1], " is negative"));
      }
      // TensorFlow compares the indices as size_t (a negative one is past
      // every other).
      if (static_cast<uint64_t>(at[0]) > input_index_ || mapped_.empty()) {
        std::vector<Tensor> element;
        bool in_end = false;
        DFX_RETURN_IF_ERROR(in_->GetNext(ctx, &element, &in_end));
        if (in_end) {
          in_.reset();
          mapped_.clear();
          *end = true;
          return absl::OkStatus();
        }
        DFX_ASSIGN_OR_RETURN(mapped_, d_->map_.Run(ctx, std::move(element)));
        input_index_ = static_cast<uint64_t>(at[0]);
      }
      for (const Tensor& t : mapped_) {
        if (t.dims() == 0) {
          out->push_back(t);
          continue;
        }
        if (at[1] >= t.dim_size(0)) {
          out->clear();
          return absl::InvalidArgumentError(
              absl::StrCat("index_flat_map: offset ", at[1], " is past the ",
                           t.dim_size(0), " rows of map_func's result"));
        }
        DFX_ASSIGN_OR_RETURN(Tensor row, RowOf(t, at[1]));
        out->push_back(std::move(row));
      }
      ++count_;
      return absl::OkStatus();
    }

   private:
    const std::shared_ptr<const IndexFlatMapDataset> d_;
    std::unique_ptr<IteratorBase> in_;
    int64_t count_ = 0;         // elements produced
    uint64_t input_index_ = 0;  // the index of the input element in mapped_
    std::vector<Tensor> mapped_;
  };

  const CapturedFunction map_;
  const CapturedFunction index_map_;
};

class IndexFlatMapDatasetOp final : public DatasetOpKernel {
 public:
  explicit IndexFlatMapDatasetOp(OpKernelConstruction* ctx)
      : DatasetOpKernel(ctx) {
    DataTypeVector map_args, index_args;
    ctx->SetStatus(ctx->GetAttr("Tmap_func_args", &map_args));
    ctx->SetStatus(ctx->GetAttr("Tindex_map_func_args", &index_args));
    num_map_args_ = static_cast<int>(map_args.size());
    num_index_args_ = static_cast<int>(index_args.size());
    for (const char* attr : {"map_func", "index_map_func"}) {
      absl::StatusOr<std::shared_ptr<const DatasetFunction>> f =
          DatasetFunction::Create(ctx, attr);
      if (!f.ok()) {
        ctx->SetStatus(f.status());
        return;
      }
      (attr[0] == 'm' ? map_ : index_map_) = *std::move(f);
    }
  }

 private:
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    DFX_ASSIGN_OR_RETURN(DatasetPtr input, DatasetFromInput(ctx, 0));
    CapturedFunction map{map_, {}}, index_map{index_map_, {}};
    for (int i = 0; i < num_map_args_; ++i) {
      map.captured.push_back(ctx->input(1 + i));
    }
    for (int i = 0; i < num_index_args_; ++i) {
      index_map.captured.push_back(ctx->input(1 + num_map_args_ + i));
    }
    // output_cardinality is not used (TensorFlow's cardinality is unknown).
    return std::make_shared<IndexFlatMapDataset>(
        std::move(input), output_types(), std::move(map), std::move(index_map));
  }

  int num_map_args_ = 0;
  int num_index_args_ = 0;
  std::shared_ptr<const DatasetFunction> map_, index_map_;
};

// ---------------------------------------------------------------------------
// WeightedFlatMapDataset

// TensorFlow's normalization: each input contributes as many elements as
// its weight allows before the first input (relative to the weights) is
// exhausted: {100, 100, 10} elements weighted {0.2, 0.3, 0.5} give
// {4, 6, 10}.
absl::StatusOr<std::vector<int64_t>> NormalizeCardinalities(
    const std::vector<double>& weights, std::vector<int64_t> cardinalities) {
  double max_weight = 0.0;
  for (const double w : weights) max_weight = std::max(max_weight, w);
  double min_cardinality = std::numeric_limits<double>::max();
  size_t min_index = 0;
  for (size_t i = 0; i < cardinalities.size(); ++i) {
    const double c =
        static_cast<double>(cardinalities[i]) * weights[i] / max_weight;
    if (min_cardinality > c) {
      min_cardinality = c;
      min_index = i;
    }
  }
  for (size_t i = 0; i < cardinalities.size(); ++i) {
    const uint64_t c = static_cast<uint64_t>(min_cardinality * weights[i] /
                                             weights[min_index]);
    if (c > static_cast<uint64_t>(cardinalities[i])) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Input ", i, " needs to have at least ", c, " elements. It only has ",
          cardinalities[i], " elements."));
    }
    cardinalities[i] = static_cast<int64_t>(c);
  }
  return cardinalities;
}

// The first counts[0] elements of input 0, then counts[1] of input 1, ...
// (TensorFlow's order outside a global shuffle).
class WeightedFlatMapDataset final : public DatasetBase {
 public:
  WeightedFlatMapDataset(std::vector<DatasetPtr> inputs,
                         std::vector<int64_t> counts)
      : DatasetBase(inputs[0]->output_dtypes()),
        inputs_(std::move(inputs)),
        counts_(std::move(counts)) {
    set_options(inputs_[0]->options());
  }

  std::string DebugString() const override { return "WeightedFlatMapDataset"; }
  int64_t Cardinality() const override {
    int64_t n = 0;
    for (const int64_t c : counts_) n += c;
    return n;
  }
  absl::StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(
      IteratorContext* ctx) const override {
    std::vector<std::unique_ptr<IteratorBase>> its;
    for (const DatasetPtr& in : inputs_) {
      DFX_ASSIGN_OR_RETURN(std::unique_ptr<IteratorBase> it,
                           in->MakeIterator(ctx));
      its.push_back(std::move(it));
    }
    return std::unique_ptr<IteratorBase>(
        new Iterator(Self<WeightedFlatMapDataset>(), std::move(its)));
  }

 private:
  class Iterator final : public IteratorBase {
   public:
    Iterator(std::shared_ptr<const WeightedFlatMapDataset> d,
             std::vector<std::unique_ptr<IteratorBase>> its)
        : d_(std::move(d)), its_(std::move(its)) {}

    absl::Status GetNext(IteratorContext* ctx, std::vector<Tensor>* out,
                         bool* end) override {
      out->clear();
      *end = false;
      // The input whose share holds element count_.
      int64_t before = 0;
      size_t i = 0;
      while (i < d_->counts_.size() && count_ >= before + d_->counts_[i]) {
        before += d_->counts_[i++];
      }
      if (i == d_->counts_.size()) {
        *end = true;
        return absl::OkStatus();
      }
      if (its_[i] == nullptr) {
        DFX_ASSIGN_OR_RETURN(its_[i], d_->inputs_[i]->MakeIterator(ctx));
      }
      DFX_RETURN_IF_ERROR(its_[i]->GetNext(ctx, out, end));
      ++count_;
      return absl::OkStatus();
    }

    absl::Status Save(const std::string& prefix,
                      IteratorState* state) override {
      state->WriteInt(prefix, "count", count_);
      for (size_t i = 0; i < its_.size(); ++i) {
        DFX_RETURN_IF_ERROR(SaveInput(*d_->inputs_[i], its_[i].get(),
                                      absl::StrCat(prefix, "/input[", i, "]"),
                                      state));
      }
      return absl::OkStatus();
    }
    absl::Status Restore(IteratorContext* ctx, const std::string& prefix,
                         const IteratorState& state) override {
      DFX_ASSIGN_OR_RETURN(count_, state.ReadInt(prefix, "count"));
      for (size_t i = 0; i < its_.size(); ++i) {
        DFX_RETURN_IF_ERROR(
            RestoreInput(ctx, *d_->inputs_[i], &its_[i],
                         absl::StrCat(prefix, "/input[", i, "]"), state));
      }
      return absl::OkStatus();
    }

   private:
    const std::shared_ptr<const WeightedFlatMapDataset> d_;
    std::vector<std::unique_ptr<IteratorBase>> its_;
    int64_t count_ = 0;
  };

  const std::vector<DatasetPtr> inputs_;
  const std::vector<int64_t> counts_;
};

class WeightedFlatMapDatasetOp final : public DatasetOpKernel {
 public:
  explicit WeightedFlatMapDatasetOp(OpKernelConstruction* ctx)
      : DatasetOpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("N", &n_));
    ctx->SetStatus(ctx->GetAttr("M", &m_));
  }

 private:
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    if (n_ != m_) {
      return absl::InvalidArgumentError(absl::StrCat(
          "`input_datasets` and `weights` of the WeightedFlatMap must have "
          "the same size. Got ",
          n_, " datasets and ", m_, " weights."));
    }
    std::vector<DatasetPtr> inputs;
    for (int64_t i = 0; i < n_; ++i) {
      DFX_ASSIGN_OR_RETURN(DatasetPtr in,
                           DatasetFromInput(ctx, static_cast<int>(i)));
      if (i > 0 && in->output_dtypes() != output_types()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "All inputs to WeightedFlatMap must have the same output types. "
            "Input ",
            i, " has output types: ", DataTypeVectorString(in->output_dtypes()),
            ". Expected: ", DataTypeVectorString(output_types()), "."));
      }
      inputs.push_back(std::move(in));
    }
    std::vector<int64_t> cardinalities;
    for (size_t i = 0; i < inputs.size(); ++i) {
      const int64_t c = inputs[i]->Cardinality();
      if (c < 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Cardinalities of the inputs must be known. Input ", i, " has ",
            c == kInfiniteCardinality ? "INFINITE" : "UNKNOWN",
            " cardinality."));
      }
      cardinalities.push_back(c);
    }
    std::vector<double> weights;
    for (int64_t i = 0; i < m_; ++i) {
      const Tensor& w = ctx->input(static_cast<int>(n_ + i));
      // TensorFlow aborts on a weight that is not a scalar.
      if (w.dtype() != DT_DOUBLE || w.dims() != 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("weight ", i, " must be a scalar double"));
      }
      const double v = w.data<double>()[0];
      if (!(v > 0.0)) {
        return absl::InvalidArgumentError(
            absl::StrCat("`weights` must be greater than 0.0. Input ", i,
                         " has a weight of ", v));
      }
      weights.push_back(v);
    }
    DFX_ASSIGN_OR_RETURN(std::vector<int64_t> counts,
                         NormalizeCardinalities(weights, cardinalities));
    return std::make_shared<WeightedFlatMapDataset>(std::move(inputs),
                                                    std::move(counts));
  }

  int64_t n_ = 0;
  int64_t m_ = 0;
};

}  // namespace

absl::Status WriteDatasetGraph(const DatasetBase& dataset,
                               const FunctionDefLibrary* library,
                               int64_t external_state_policy,
                               bool strip_device_assignment, GraphDef* out) {
  GraphDef& graph = *out;
  PipelineWriter writer(&graph);
  DFX_ASSIGN_OR_RETURN(std::string output, writer.Add(dataset, 0));
  NodeDef* ret = graph.add_node();
  ret->set_name("dataset");
  ret->set_op("_Retval");
  ret->add_input(output);
  (*ret->mutable_attr())["T"].set_type(DT_VARIANT);
  (*ret->mutable_attr())["index"].set_i(0);
  graph.mutable_versions()->set_producer(kProducer);

  if (!writer.functions().empty()) {
    // The functions named, and those they reach.
    GraphDef reach;
    if (library != nullptr) *reach.mutable_library() = *library;
    for (const std::string& f : writer.functions()) {
      NodeDef* call = reach.add_node();
      call->set_op(f);
    }
    *graph.mutable_library() = ReachableFunctions(reach);
    for (const std::string& f : writer.functions()) {
      bool present = false;
      for (const FunctionDef& fd : graph.library().function()) {
        present |= fd.signature().name() == f;
      }
      if (!present) {
        return absl::NotFoundError(absl::StrCat(
            "function '", f,
            "' of the dataset is not in the graph's function library"));
      }
    }
    if (external_state_policy == kPolicyFail) {
      DFX_RETURN_IF_ERROR(DatasetToGraphOp::CheckStateless(graph.library()));
    }
    if (strip_device_assignment) {
      for (FunctionDef& fd : *graph.mutable_library()->mutable_function()) {
        for (NodeDef& n : *fd.mutable_node_def()) n.clear_device();
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace dfx::data

namespace dfx {

void RegisterDataset6Kernels(KernelRegistry* registry) {
  for (const char* op : {"DatasetToGraph", "DatasetToGraphV2"}) {
    RegisterKernel<data::DatasetToGraphOp>(registry, KernelDefBuilder(op));
  }
  RegisterKernel<data::DatasetFromGraphOp>(
      registry, KernelDefBuilder("DatasetFromGraph"));
  RegisterKernel<data::GetElementAtIndexOp>(
      registry, KernelDefBuilder("GetElementAtIndex"));
  RegisterKernel<data::GlobalShuffleDatasetOp>(
      registry, KernelDefBuilder("GlobalShuffleDataset"));
  RegisterKernel<data::IndexFlatMapDatasetOp>(
      registry, KernelDefBuilder("IndexFlatMapDataset"));
  RegisterKernel<data::WeightedFlatMapDatasetOp>(
      registry, KernelDefBuilder("WeightedFlatMapDataset"));
}

}  // namespace dfx

// tf.data in dfx: datasets, their iterators, the functions they run per
// element, and how a dataset travels in a DT_VARIANT tensor.
//
// A dataset op (TensorSliceDataset, MapDataset, ShuffleDatasetV3, ...)
// outputs a scalar DT_VARIANT holding an immutable DatasetBase; the ops
// downstream take it as an input and wrap it. Iterating is separate: an
// iterator resource (IteratorV2, AnonymousIteratorV3) gets an iterator made
// from a dataset by MakeIterator, and IteratorGetNext pulls one element per
// call. Elements are produced on the thread of the kernel that asks
// (IteratorGetNext is an expensive kernel, so that is a pool thread), or,
// below a prefetch, on the prefetch's own thread ahead of the consumer;
// functions (map, filter) run their own executor inline on that thread.
//
// A dataset never leaves its process: its variant does not encode (as in
// TensorFlow, where a dataset crosses tasks only as a serialized graph).
#ifndef DFX_KERNELS_DATA_DATASET_H_
#define DFX_KERNELS_DATA_DATASET_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "graph/function_library.h"
#include "graph/types.h"
#include "runtime/executor.h"
#include "runtime/op_kernel.h"
#include "runtime/tensor.h"
#include "runtime/variant.h"

namespace dfx::data {

// Cardinality values that are not counts, as TensorFlow's.
constexpr int64_t kInfiniteCardinality = -1;
constexpr int64_t kUnknownCardinality = -2;

// What an iterator sees while it produces an element: borrowed for the
// call.
class DatasetBase;
class StatsAggregator;  // kernels/data/stats_aggregator.h

struct IteratorContext {
  // Where functions run.
  Device* device = nullptr;
  // The asking kernel's; may be null. Functions stop when it is cancelled.
  CancellationManager* cancellation_manager = nullptr;
  // The dataset an iterator resource iterates (the pipeline's outermost),
  // for AssertNextDataset; null outside an iterator resource's calls.
  const DatasetBase* root = nullptr;
  // Where the statistics datasets (LatencyStatsDataset, ...) record: set by
  // a SetStatsAggregatorDataset above them for its input's calls; null
  // (nothing recorded) otherwise.
  std::shared_ptr<StatsAggregator> stats_aggregator;
};

// The saved position of an iterator (SerializeIterator's state, as
// TensorFlow's IteratorStateWriter/Reader): named scalars and tensors, each
// key the writing iterator's prefix, '/', and a name of its own. An
// iterator over inputs saves each input under a longer prefix
// ("<prefix>/input", "<prefix>/input[1]").
class IteratorState {
 public:
  void WriteInt(absl::string_view prefix, absl::string_view name,
                int64_t value);
  void WriteString(absl::string_view prefix, absl::string_view name,
                   std::string value);
  void WriteTensor(absl::string_view prefix, absl::string_view name,
                   Tensor value);
  // An element: its component count and components.
  void WriteElement(absl::string_view prefix, absl::string_view name,
                    const std::vector<Tensor>& element);

  bool Contains(absl::string_view prefix, absl::string_view name) const;
  // The value written under the key; InvalidArgument naming the key when
  // there is none, or it has another type (a state from another pipeline).
  absl::StatusOr<int64_t> ReadInt(absl::string_view prefix,
                                  absl::string_view name) const;
  absl::StatusOr<std::string> ReadString(absl::string_view prefix,
                                         absl::string_view name) const;
  absl::StatusOr<Tensor> ReadTensor(absl::string_view prefix,
                                    absl::string_view name) const;
  absl::StatusOr<std::vector<Tensor>> ReadElement(absl::string_view prefix,
                                                  absl::string_view name) const;

  // Every entry, by key: what SerializeIterator encodes.
  const std::map<std::string, Tensor>& entries() const { return entries_; }
  std::map<std::string, Tensor>& mutable_entries() { return entries_; }

  // The saving step's (SerializeIterator's kernel); may be null. A Save
  // that waits (for a prefetch thread to pause) ends the wait with
  // Cancelled when the step is cancelled, leaving the iterator as it was.
  CancellationManager* cancellation_manager() const { return cm_; }
  void set_cancellation_manager(CancellationManager* cm) { cm_ = cm; }

 private:
  std::map<std::string, Tensor> entries_;
  CancellationManager* cm_ = nullptr;
};

// The state of one pass over a dataset. Not thread-safe: the iterator
// resource serializes calls.
class IteratorBase {
 public:
  virtual ~IteratorBase() = default;
  // The next element into `out` (one tensor per component), or `*end`
  // true when the input is exhausted (then `out` is left empty). An error
  // leaves the iterator in an unspecified but safe state.
  virtual absl::Status GetNext(IteratorContext* ctx, std::vector<Tensor>* out,
                               bool* end) = 0;

  // Writes this iterator's position under `prefix`, so that Restore on a
  // fresh iterator of the same dataset continues with the elements this one
  // would produce next. May pause background work (prefetching), which the
  // next GetNext resumes. The default answers that saving is not supported
  // (SaveIterator turns that into an error naming the dataset op): datasets
  // that do not save still compile and fail clearly.
  virtual absl::Status Save(const std::string& prefix, IteratorState* state);
  // Sets this iterator, made by its dataset's MakeIterator and not yet
  // read, to the position Save wrote under `prefix`.
  virtual absl::Status Restore(IteratorContext* ctx, const std::string& prefix,
                               const IteratorState& state);
};

// An immutable, shareable description of a sequence of elements. Held by
// shared_ptr: iterators keep their dataset (and so its inputs) alive.
class DatasetBase : public std::enable_shared_from_this<DatasetBase> {
 public:
  explicit DatasetBase(DataTypeVector output_dtypes)
      : output_dtypes_(std::move(output_dtypes)) {}
  virtual ~DatasetBase() = default;
  DatasetBase(const DatasetBase&) = delete;
  DatasetBase& operator=(const DatasetBase&) = delete;

  // The dtype of each component of an element.
  const DataTypeVector& output_dtypes() const { return output_dtypes_; }
  // The number of elements; kInfiniteCardinality or kUnknownCardinality.
  virtual int64_t Cardinality() const { return kUnknownCardinality; }
  // A new iterator at the first element.
  virtual absl::StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(
      IteratorContext* ctx) const = 0;
  // "ShuffleDataset(buffer_size=10)"; for errors.
  virtual std::string DebugString() const = 0;

  // Random access (TensorFlow's DatasetBase::Get; kernels/data/
  // random_access.cc): element `index`, the one an iterator produces after
  // `index` others, into `out`, without reading those before it. The
  // default is TensorFlow's Unimplemented "Random access is not implemented
  // for dataset <DebugString>". Datasets that have it answer as TensorFlow's
  // do outside their elements, most through CheckRandomAccessCompatible.
  // Thread-safe; functions run on the calling thread.
  virtual absl::Status Get(IteratorContext* ctx, int64_t index,
                           std::vector<Tensor>* out) const;
  // OK when a global shuffle may read this dataset by index (TensorFlow's
  // RandomIndexingCompatible: it and its inputs have Get, and their
  // elements do not depend on the order they are read in); the default is
  // FailedPrecondition "<op> does not support random access.".
  virtual absl::Status RandomAccessCompatible() const;
  // TensorFlow's check before a Get: FailedPrecondition when the
  // cardinality is infinite or unknown, OutOfRange "Index out of range [0,
  // n):index" when `index` is not below it.
  absl::Status CheckRandomAccessCompatible(int64_t index) const;
  // The tf.data Options set on this dataset and its inputs (OptionsDataset),
  // as a serialized tensorflow.data.Options: later options are appended, so
  // parsing merges them as TensorFlow does. Empty: defaults.
  const std::string& options() const { return options_; }

  // How a graph made this dataset, for AssertPrevDataset, AssertNextDataset
  // and DatasetFingerprint: the op's NodeDef, the datasets among its
  // inputs and its other inputs' values. Set once, by the DatasetOpKernel
  // that made it (a kernel that passes its input through leaves the
  // input's); null for datasets made otherwise. Thread-safe.
  struct Node {
    std::shared_ptr<const NodeDef> def;
    std::vector<std::shared_ptr<const DatasetBase>> inputs;
    std::vector<Tensor> args;
    // For each input of the node in order: whether it is one of `inputs`
    // (else the next of `args`).
    std::vector<bool> dataset_input;
  };
  std::shared_ptr<const Node> node() const;
  void SetNodeOnce(std::shared_ptr<const Node> node) const;

 protected:
  void set_options(std::string options) { options_ = std::move(options); }

  // This dataset as a T, shared, for iterators to keep.
  template <typename T>
  std::shared_ptr<const T> Self() const {
    return std::static_pointer_cast<const T>(shared_from_this());
  }

 private:
  const DataTypeVector output_dtypes_;
  std::string options_;
  mutable absl::Mutex node_mu_;
  mutable std::shared_ptr<const Node> node_ ABSL_GUARDED_BY(node_mu_);
};

using DatasetPtr = std::shared_ptr<const DatasetBase>;

// A dataset over one input dataset, whose options it carries.
class UnaryDataset : public DatasetBase {
 public:
  UnaryDataset(DatasetPtr input, DataTypeVector dtypes)
      : DatasetBase(std::move(dtypes)), input_(std::move(input)) {
    set_options(input_->options());
  }
  const DatasetPtr& input() const { return input_; }

 private:
  const DatasetPtr input_;
};

// Saves `it`, an iterator of `dataset`, under `prefix`. Unimplemented
// "Saving iterators of <op> is not supported" when the innermost iterator
// that cannot save is `it`.
absl::Status SaveIterator(const DatasetBase& dataset, IteratorBase& it,
                          const std::string& prefix, IteratorState* state);
// Restores `it`, a fresh iterator of `dataset`, from `prefix`; errors as
// SaveIterator's ("Restoring iterators of <op> ...").
absl::Status RestoreIterator(const DatasetBase& dataset, IteratorBase& it,
                             IteratorContext* ctx, const std::string& prefix,
                             const IteratorState& state);

// An input iterator that may be gone (exhausted) or not made yet: saved
// under `prefix` when `it` is set, else marked absent there. RestoreInput
// makes a fresh iterator of `input` and restores it when one was saved, and
// resets `*it` when none was.
absl::Status SaveInput(const DatasetBase& input, IteratorBase* it,
                       const std::string& prefix, IteratorState* state);
absl::Status RestoreInput(IteratorContext* ctx, const DatasetBase& input,
                          std::unique_ptr<IteratorBase>* it,
                          const std::string& prefix,
                          const IteratorState& state);

// The variant value of a dataset tensor.
class DatasetVariant final : public VariantValue {
 public:
  static constexpr char kTypeName[] = "tensorflow::DatasetVariantWrapper";
  explicit DatasetVariant(DatasetPtr dataset) : dataset_(std::move(dataset)) {}
  std::string TypeName() const override { return kTypeName; }
  // Writes nothing: a dataset does not travel (a receiver gets an opaque
  // value that no dataset op accepts).
  void Encode(VariantTensorDataProto* proto) const override {}
  std::string DebugString() const override;
  const DatasetPtr& dataset() const { return dataset_; }

 private:
  const DatasetPtr dataset_;
};

// The dataset of input `index`: InvalidArgument naming the input when it
// is not a scalar variant holding one (a dataset sent from another task,
// say).
absl::StatusOr<DatasetPtr> DatasetFromInput(OpKernelContext* ctx, int index);
// The dataset `t` holds; InvalidArgument naming `what` otherwise.
absl::StatusOr<DatasetPtr> DatasetFromTensor(const Tensor& t,
                                             absl::string_view what);
// Sets output `index` to a scalar variant holding `dataset`.
void SetDatasetOutput(OpKernelContext* ctx, int index, DatasetPtr dataset);

// The IteratorContext of a kernel's call: its device and cancellation.
IteratorContext IteratorContextOf(OpKernelContext* ctx);

// Reads up to `batch_size` elements of `*in` into `elements` (the input's
// end resets `*in`, so later calls find nothing), keeping what they hold
// under the memory limit (ResourceExhausted naming `what`). `*end` when
// there is no batch to make: nothing read, or a short batch under
// `drop_remainder`.
absl::Status ReadBatch(IteratorContext* ctx, std::unique_ptr<IteratorBase>* in,
                       int64_t batch_size, bool drop_remainder,
                       const std::string& what,
                       std::vector<std::vector<Tensor>>* elements, bool* end);

// Inputs 1..count of a dataset op: the captured inputs (other_arguments)
// its function takes after the element's components.
std::vector<Tensor> CapturedInputs(OpKernelContext* ctx, int count);

// Sets an iterator op's outputs to `element`: OutOfRange "End of sequence"
// when `end` (as TensorFlow's IteratorGetNext), InvalidArgument when the
// element has another number of components than the op has outputs.
absl::Status SetElementOutputs(OpKernelContext* ctx,
                               std::vector<Tensor> element, bool end);

// Deletes the resource of type `type_name` that the handle at input 0
// names (the Delete* ops).
absl::Status DeleteResourceOfInput(OpKernelContext* ctx,
                                   absl::string_view type_name);

// Reads scalar input `index` as T (int64, bool). InvalidArgument naming the
// input ("buffer_size must be a scalar") otherwise.
absl::StatusOr<int64_t> ScalarInt64Input(OpKernelContext* ctx, int index,
                                         absl::string_view name);
absl::StatusOr<bool> ScalarBoolInput(OpKernelContext* ctx, int index,
                                     absl::string_view name);

// The output_types attr every dataset op has, checked against what the
// dataset it builds produces.
absl::Status CheckOutputTypes(const DataTypeVector& declared,
                              const DataTypeVector& actual,
                              absl::string_view op);

// The kernel of a dataset op: reads the op's declared element types
// (output_types, or Toutput_types for the source ops that are typed by
// their inputs), builds the dataset and outputs it. Cheap: building a
// dataset does no per-element work.
class DatasetOpKernel : public OpKernel {
 public:
  explicit DatasetOpKernel(OpKernelConstruction* ctx);
  void Compute(OpKernelContext* ctx) final;

 protected:
  virtual absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) = 0;
  const DataTypeVector& output_types() const { return output_types_; }

 private:
  DataTypeVector output_types_;
  // This node's NodeDef, for the datasets it makes (DatasetBase::node).
  std::shared_ptr<const NodeDef> def_;
};

// A function a dataset runs per element (map's `f`, filter's `predicate`):
// instantiated from the kernel's graph library once, when the kernel is
// built, and run by its own executor on the kernel's device, with the
// element's components followed by the op's captured inputs as arguments.
// Thread-safe.
class DatasetFunction {
 public:
  // Instantiates the function named by func attr `attr` of the kernel being
  // built. InvalidArgument naming the function when the graph's library
  // lacks it or it does not instantiate; the executor's error (a body op
  // without a kernel) otherwise.
  static absl::StatusOr<std::shared_ptr<const DatasetFunction>> Create(
      OpKernelConstruction* ctx, absl::string_view attr);

  const std::string& name() const { return name_; }
  const DataTypeVector& arg_types() const { return arg_types_; }
  const DataTypeVector& ret_types() const { return ret_types_; }

  // Runs the function on `args` and returns its results. Arguments beyond
  // the function's signature are dropped. The function's
  // error comes back with its code, prefixed with the function's name.
  absl::StatusOr<std::vector<Tensor>> Run(IteratorContext* ctx,
                                          std::vector<Tensor> args) const;

 private:
  DatasetFunction() = default;

  std::string name_;
  DataTypeVector arg_types_;
  DataTypeVector ret_types_;
  std::shared_ptr<const FunctionLibrary> library_;
  std::unique_ptr<Executor> executor_;
};

// A dataset function with the captured inputs it takes after its arguments
// (group_by_window's and group_by_reducer's functions).
struct CapturedFunction {
  std::shared_ptr<const DatasetFunction> f;
  std::vector<Tensor> captured;

  absl::StatusOr<std::vector<Tensor>> Run(IteratorContext* ctx,
                                          std::vector<Tensor> args) const {
    args.insert(args.end(), captured.begin(), captured.end());
    return f->Run(ctx, std::move(args));
  }
};

// The function func attr `attr` names, instantiated for a dataset op's
// kernel, and how many captured inputs (attr Targuments) the op takes after
// its input dataset. On error, sets the construction's status and returns
// a null function.
struct DatasetOpFunction {
  std::shared_ptr<const DatasetFunction> f;
  int num_captured = 0;
};
DatasetOpFunction ReadDatasetOpFunction(OpKernelConstruction* ctx,
                                        absl::string_view attr);

// Registration, one per kernel file; RegisterDatasetKernels calls them all.
void RegisterDatasetSourceKernels(KernelRegistry* registry);
void RegisterDatasetTransformKernels(KernelRegistry* registry);
void RegisterShuffleKernels(KernelRegistry* registry);
void RegisterIteratorKernels(KernelRegistry* registry);
void RegisterMultiDeviceKernels(KernelRegistry* registry);
void RegisterPrefetchKernels(KernelRegistry* registry);
void RegisterNestedDatasetKernels(KernelRegistry* registry);
void RegisterFileDatasetKernels(KernelRegistry* registry);
void RegisterSparseSerializeKernels(KernelRegistry* registry);
void RegisterScanKernels(KernelRegistry* registry);
void RegisterWindowKernels(KernelRegistry* registry);
void RegisterDatasetKernels(KernelRegistry* registry);

}  // namespace dfx::data

#endif  // DFX_KERNELS_DATA_DATASET_H_

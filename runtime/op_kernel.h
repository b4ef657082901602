// The kernel API: OpKernel (synchronous), AsyncOpKernel (finishes through a
// callback), their construction and per-call contexts, and the registry of
// kernel factories keyed by op, device type and type constraints.
#ifndef DFX_RUNTIME_OP_KERNEL_H_
#define DFX_RUNTIME_OP_KERNEL_H_

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include "absl/strings/string_view.h"
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "graph/node_def_util.h"
#include "graph/types.h"
#include "proto/node_def.pb.h"
#include "proto/op_def.pb.h"
#include "runtime/device.h"
#include "runtime/frame_and_iter.h"
#include "runtime/tensor.h"

namespace dfx {

class Node;  // graph/graph.h


class AsyncOpKernel;
class CallFrameInterface;
class ResourceMgr;
class ScopedStepContainer;
class CancellationManager;
class FunctionDefLibrary;
class OpKernelContext;
class Rendezvous;

// What a kernel's constructor sees: the node, its op, its resolved types,
// the device and the functions of the node's graph. A constructor that finds
// a bad attr calls SetStatus; the kernel is then discarded and the error
// returned to whoever built it.
class OpKernelConstruction {
 public:
  OpKernelConstruction(const NodeDef& def, const OpDef& op_def,
                       const DataTypeVector& input_types,
                       const DataTypeVector& output_types, Device* device,
                       const FunctionDefLibrary* function_library = nullptr)
      : def_(def),
        op_def_(op_def),
        input_types_(input_types),
        output_types_(output_types),
        device_(device),
        function_library_(function_library) {}

  const NodeDef& def() const { return def_; }
  // When set (to `def` itself), the kernel keeps this NodeDef instead of a
  // copy of it.
  void set_shared_def(std::shared_ptr<const NodeDef> def) {
    shared_def_ = std::move(def);
  }
  const std::shared_ptr<const NodeDef>& shared_def() const {
    return shared_def_;
  }
  const OpDef& op_def() const { return op_def_; }
  Device* device() const { return device_; }
  int num_inputs() const { return static_cast<int>(input_types_.size()); }
  int num_outputs() const { return static_cast<int>(output_types_.size()); }
  DataType input_type(int i) const { return input_types_[i]; }
  DataType output_type(int i) const { return output_types_[i]; }
  const DataTypeVector& input_types() const { return input_types_; }
  const DataTypeVector& output_types() const { return output_types_; }
  // The library of the graph the node belongs to, for kernels that run
  // functions its func attrs name (a dataset's map function); null when the
  // builder has none. Borrowed for the constructor only: copy what is kept.
  const FunctionDefLibrary* function_library() const {
    return function_library_;
  }

  template <typename T>
  absl::Status GetAttr(absl::string_view name, T* value) const {
    return GetNodeAttr(def_, name, value);
  }

  void SetStatus(absl::Status s) {
    if (status_.ok()) status_ = std::move(s);
  }
  const absl::Status& status() const { return status_; }

 private:
  const NodeDef& def_;
  const OpDef& op_def_;
  const DataTypeVector& input_types_;
  const DataTypeVector& output_types_;
  Device* const device_;
  const FunctionDefLibrary* const function_library_;
  std::shared_ptr<const NodeDef> shared_def_;
  absl::Status status_;
};

// A kernel is built once per node (per partition) and called once per step;
// Compute may run on several threads at once for different steps, so a
// kernel keeps no per-call state in members.
class OpKernel {
 public:
  explicit OpKernel(OpKernelConstruction* ctx);
  virtual ~OpKernel();
  OpKernel(const OpKernel&) = delete;
  OpKernel& operator=(const OpKernel&) = delete;

  // Reads inputs from `ctx`, writes outputs or ctx->SetStatus(error).
  virtual void Compute(OpKernelContext* ctx) = 0;
  // Non-null for asynchronous kernels.
  virtual AsyncOpKernel* AsAsync() { return nullptr; }
  // Cheap kernels run inline on the executor's thread; expensive ones may be
  // handed to the inter-op pool.
  virtual bool IsExpensive() const { return expensive_; }

  const NodeDef& def() const { return *def_; }
  const std::string& name() const { return def_->name(); }
  const std::string& type_string() const { return def_->op(); }
  int num_inputs() const { return static_cast<int>(input_types_.size()); }
  int num_outputs() const { return static_cast<int>(output_types_.size()); }
  DataType input_type(int i) const { return input_types_[i]; }
  DataType output_type(int i) const { return output_types_[i]; }

  // Whether input (output) i is read from (written to) host memory rather
  // than the device's: always true on a device the host can read (a CPU);
  // on a GPU, as the kernel's registration says (KernelDefBuilder::
  // HostMemory). The executor copies an input that arrives in the other
  // memory; allocate_output allocates in this one.
  bool input_on_host(int i) const {
    return input_on_host_.empty() || input_on_host_[i];
  }
  bool output_on_host(int i) const {
    return output_on_host_.empty() || output_on_host_[i];
  }
  // The kernel computes on the host (its scratch memory is host memory).
  bool runs_on_host() const { return runs_on_host_; }

 protected:
  // Kernels that are always cheap (Identity, Const, Shape, ...) call this in
  // their constructor.
  void set_expensive(bool expensive) { expensive_ = expensive; }

 private:
  friend class KernelRegistry;  // sets the memory types

  const std::shared_ptr<const NodeDef> def_;
  const DataTypeVector input_types_;
  const DataTypeVector output_types_;
  bool expensive_ = true;
  // Empty on a host-readable device (all true).
  std::vector<bool> input_on_host_;
  std::vector<bool> output_on_host_;
  bool runs_on_host_ = true;
};

// A kernel that waits (on a rendezvous, an RPC, a device) without holding a
// thread: ComputeAsync returns at once and `done` is called exactly once
// when the outputs (or an error) are set, on whatever thread finished it.
class AsyncOpKernel : public OpKernel {
 public:
  using DoneCallback = std::function<void()>;
  using OpKernel::OpKernel;

  virtual void ComputeAsync(OpKernelContext* ctx, DoneCallback done) = 0;

  AsyncOpKernel* AsAsync() final { return this; }
  // Never called: the executor always uses ComputeAsync.
  void Compute(OpKernelContext* ctx) final;
};

// Feeds and fetches of a step run without a rendezvous: _Arg reads argument
// `index`, _Retval writes return value `index`. Thread-safe.
class CallFrameInterface {
 public:
  virtual ~CallFrameInterface() = default;
  virtual size_t num_args() const = 0;
  virtual size_t num_retvals() const = 0;
  virtual absl::Status GetArg(int index, Tensor* value) const = 0;
  virtual absl::Status SetRetval(int index, const Tensor& value) = 0;
};

// What flows along a reference edge (an input or output whose type is
// `float_ref`, ...): the tensor of a reference variable, which lives in the
// variable, and the mutex that guards it. Kernels taking a reference input
// update the tensor in place; the executor hands consumers of the plain type
// a snapshot taken (under the mutex, shared) when they run.
struct TensorRef {
  Tensor* tensor = nullptr;
  absl::Mutex* mu = nullptr;
  bool valid() const { return tensor != nullptr; }
};

// Per-call context of one kernel. Built by the executor on its stack.
class OpKernelContext {
 public:
  // Everything the executor hands a kernel. Pointers are borrowed for the
  // duration of the call (until `done` for async kernels).
  struct Params {
    int64_t step_id = 0;
    OpKernel* op_kernel = nullptr;
    Device* device = nullptr;
    // num_inputs tensors, in input order.
    absl::Span<const Tensor> inputs;
    // Null, or num_inputs indices into `inputs`: input i is
    // inputs[input_map[i]]. The executor gives the inputs that one output
    // feeds one slot (an AddN fed 10,000 times by one Const holds one
    // reference to it, not 10,000); the other slots stay empty.
    const int32_t* input_map = nullptr;
    // Empty, or num_inputs references: set for each input of a reference
    // type (the kernel's input_type(i) is *_ref).
    absl::Span<const TensorRef> input_refs;
    Rendezvous* rendezvous = nullptr;
    CancellationManager* cancellation_manager = nullptr;
    CallFrameInterface* call_frame = nullptr;
    // True when input 0 is a dead tensor (only transfer kernels see this:
    // the executor skips other kernels with dead inputs).
    bool is_input_dead = false;
    // The control-flow frame and iteration the node runs in; (0, 0) outside
    // loops. _Send and _Recv put it into their rendezvous keys.
    FrameAndIter frame_iter;
    // The container of the step's own resources (TensorArrays, stacks);
    // null outside an executor step.
    ScopedStepContainer* step_container = nullptr;
  };

  explicit OpKernelContext(Params* params);
  ~OpKernelContext();

  const OpKernel& op_kernel() const { return *params_->op_kernel; }
  int64_t step_id() const { return params_->step_id; }
  Device* device() const { return params_->device; }
  // Where the kernel's scratch memory comes from: the device's allocator,
  // or the host's for a kernel that runs on the host.
  Allocator* allocator() const {
    return params_->op_kernel->runs_on_host()
               ? params_->device->GetHostAllocator()
               : params_->device->GetAllocator();
  }
  Rendezvous* rendezvous() const { return params_->rendezvous; }
  CancellationManager* cancellation_manager() const {
    return params_->cancellation_manager;
  }
  CallFrameInterface* call_frame() const { return params_->call_frame; }

  int num_inputs() const { return static_cast<int>(params_->inputs.size()); }
  const Tensor& input(int i) const {
    return params_->inputs[params_->input_map == nullptr
                               ? i
                               : params_->input_map[i]];
  }
  DataType input_dtype(int i) const { return input(i).dtype(); }
  // Whether another input of the kernel is input i's tensor itself (the
  // executor gives the inputs one output feeds one slot): a kernel that
  // writes over or takes input i's value must not then.
  bool input_aliased(int i) const {
    for (int j = 0; j < num_inputs(); ++j) {
      if (j != i && &input(j) == &input(i)) return true;
    }
    return false;
  }
  bool is_input_dead() const { return params_->is_input_dead; }
  FrameAndIter frame_iter() const { return params_->frame_iter; }
  ScopedStepContainer* step_container() const {
    return params_->step_container;
  }

  // Reference inputs. REQUIRES: the op's input i is of a reference type.
  // The tensor may only be touched with the mutex held (exclusively to
  // write), unless the op's `use_locking` is false (TensorFlow's racy
  // updates).
  TensorRef input_ref(int i) const;
  // Sets output i, of a reference type, to `ref`.
  void set_output_ref(int i, TensorRef ref);
  // Passes reference input `in` on as reference output `out`.
  void forward_ref_input_to_ref_output(int in, int out) {
    set_output_ref(out, input_ref(in));
  }

  // The device's resource manager (variables).
  ResourceMgr* resource_manager() const;

  int num_outputs() const { return static_cast<int>(outputs_.size()); }
  // Allocates output i with the op's declared output type. ResourceExhausted
  // when out of memory (set as the kernel's status as well).
  absl::Status allocate_output(int i, const TensorShape& shape, Tensor** out);
  // Output i of `shape` in the buffer of the first input of `inputs` that
  // can take it (TensorFlow's forward_input_or_allocate_output): one of
  // the output's dtype and `shape`, of a memcpy-able dtype, on a device the
  // host reads, that no other input of the kernel is, whose buffer is the
  // allocator's and viewed by that input alone (Tensor::CanWriteInPlace:
  // the executor moved the producer's last use into this input's slot).
  // Otherwise allocate_output. The kernel then writes its output over that
  // input, so only element-wise kernels that read each element before they
  // write the same one may ask.
  absl::Status forward_input_or_allocate_output(
      std::initializer_list<int> inputs, int output, const TensorShape& shape,
      Tensor** out);
  // Sets output i to `value` (shares its buffer). A type mismatch with the
  // declared output type becomes an Internal error of this kernel.
  void set_output(int i, Tensor value);
  Tensor* mutable_output(int i) { return &outputs_[i]; }
  // A scratch tensor for the kernel's own use, in allocator()'s memory
  // (host memory for dtypes that always live there).
  absl::Status allocate_temp(DataType dtype, const TensorShape& shape,
                             Tensor* out);

  // Tensors produced by an output that is dead carry no value; set by
  // _Recv when the sender sent a dead tensor.
  void set_is_output_dead(bool dead) { is_output_dead_ = dead; }
  bool is_output_dead() const { return is_output_dead_; }

  // The first error wins; later ones are dropped.
  void SetStatus(absl::Status s);
  const absl::Status& status() const { return status_; }

  // For the executor: the outputs after Compute (or after done), and the
  // references of reference-typed outputs (empty when there are none).
  absl::InlinedVector<Tensor, 4>* mutable_outputs() { return &outputs_; }
  const absl::InlinedVector<TensorRef, 2>& output_refs() const {
    return output_refs_;
  }

 private:
  Params* const params_;
  absl::InlinedVector<Tensor, 4> outputs_;
  absl::InlinedVector<TensorRef, 2> output_refs_;
  absl::Status status_;
  bool is_output_dead_ = false;
};

// Error helpers for kernels: return from Compute with the error set.
#define DFX_OP_REQUIRES(CTX, EXP, STATUS) \
  do {                                    \
    if (ABSL_PREDICT_FALSE(!(EXP))) {     \
      (CTX)->SetStatus(STATUS);           \
      return;                             \
    }                                     \
  } while (0)

#define DFX_OP_REQUIRES_OK(CTX, ...)                 \
  do {                                               \
    ::absl::Status dfx_op_status_ = (__VA_ARGS__);   \
    if (ABSL_PREDICT_FALSE(!dfx_op_status_.ok())) {  \
      (CTX)->SetStatus(std::move(dfx_op_status_));   \
      return;                                        \
    }                                                \
  } while (0)

#define DFX_OP_REQUIRES_ASYNC(CTX, EXP, STATUS, CALLBACK) \
  do {                                                    \
    if (ABSL_PREDICT_FALSE(!(EXP))) {                     \
      (CTX)->SetStatus(STATUS);                           \
      (CALLBACK)();                                       \
      return;                                             \
    }                                                     \
  } while (0)

#define DFX_OP_REQUIRES_OK_ASYNC(CTX, STATUS, CALLBACK) \
  do {                                                  \
    ::absl::Status dfx_op_status_ = (STATUS);           \
    if (ABSL_PREDICT_FALSE(!dfx_op_status_.ok())) {     \
      (CTX)->SetStatus(std::move(dfx_op_status_));      \
      (CALLBACK)();                                     \
      return;                                           \
    }                                                   \
  } while (0)

using KernelFactory =
    std::function<std::unique_ptr<OpKernel>(OpKernelConstruction*)>;

// Which kernel serves an op on a device type, for which types.
class KernelDefBuilder {
 public:
  explicit KernelDefBuilder(std::string op) : op_(std::move(op)) {}
  KernelDefBuilder& Device(std::string device_type) {
    device_type_ = std::move(device_type);
    return *this;
  }
  // Type attr `attr` must be one of `allowed`.
  KernelDefBuilder& TypeConstraint(std::string attr, DataTypeVector allowed) {
    constraints_.push_back({std::move(attr), std::move(allowed)});
    return *this;
  }
  template <typename T>
  KernelDefBuilder& TypeConstraint(std::string attr) {
    return TypeConstraint(std::move(attr), {DataTypeToEnum<T>::value});
  }
  // On a device whose memory the host cannot read (a GPU), the input or
  // output arg `arg` (its OpDef name) is in host memory, as TensorFlow's
  // HostMemory: shapes, axes, indices the kernel reads on the host. Args
  // of type int32, string, resource and variant are always in host memory
  // there (TensorFlow's rule); on a CPU everything is.
  KernelDefBuilder& HostMemory(std::string arg) {
    host_memory_args_.push_back(std::move(arg));
    return *this;
  }
  // The kernel runs on the host: every input and output, and its scratch
  // memory, is in host memory (a CPU kernel serving a GPU's int32 shape
  // arithmetic).
  KernelDefBuilder& AllHostMemory() {
    all_host_memory_ = true;
    return *this;
  }

  struct Constraint {
    std::string attr;
    DataTypeVector allowed;
  };
  const std::string& op() const { return op_; }
  const std::string& device_type() const { return device_type_; }
  const std::vector<Constraint>& constraints() const { return constraints_; }
  const std::vector<std::string>& host_memory_args() const {
    return host_memory_args_;
  }
  bool all_host_memory() const { return all_host_memory_; }

 private:
  std::string op_;
  std::string device_type_ = "CPU";
  std::vector<Constraint> constraints_;
  std::vector<std::string> host_memory_args_;
  bool all_host_memory_ = false;
};

// Tensors of these types stay in host memory on every device: int32 (the
// shapes and indices a GPU's graph computes with), string, resource,
// variant.
bool AlwaysInHostMemory(DataType dtype);

// Thread-safe; registration happens at start-up.
class KernelRegistry {
 public:
  KernelRegistry() = default;
  KernelRegistry(const KernelRegistry&) = delete;
  KernelRegistry& operator=(const KernelRegistry&) = delete;

  void Register(const KernelDefBuilder& def, KernelFactory factory);
  // Registers for `def`'s device the CPU kernel of each node `def`
  // matches, with `def`'s memory types: for kernels that touch only the
  // shapes of their device-memory args (Shape, Reshape), or that compute on
  // the host (def.AllHostMemory(): a GPU's int32 shape arithmetic). A node
  // without a CPU kernel gets NotFound when its kernel is built.
  void RegisterCpuKernelOn(const KernelDefBuilder& def);

  // True when some kernel serves this node on `device_type`.
  bool HasKernel(const NodeDef& node, absl::string_view device_type) const;

  // Builds the kernel for `node` on `device`: picks the registration whose
  // constraints the node's attrs satisfy and runs its factory, which sees
  // `library` (the node's graph's functions; may be null). NotFound naming
  // the node, op, device type and attrs when none matches; the
  // constructor's error when it fails.
  absl::StatusOr<std::unique_ptr<OpKernel>> CreateKernel(
      const NodeDef& node, const OpDef& op_def, Device* device,
      const FunctionDefLibrary* library = nullptr) const;
  // The same for a node of a graph: its types as the graph computed them,
  // and its NodeDef shared with the kernel rather than copied.
  absl::StatusOr<std::unique_ptr<OpKernel>> CreateKernel(
      const Node& node, Device* device,
      const FunctionDefLibrary* library = nullptr) const;

  // "AddV2 on CPU for T in [float, double]", one line each, sorted.
  std::vector<std::string> ListKernels() const;
  // Every registration of `op`, on every device type, in registration order.
  std::vector<KernelDefBuilder> KernelDefsOf(absl::string_view op) const;

 private:
  // Both CreateKernels: `shared` (null, or `node` itself) is kept by the
  // kernel.
  absl::StatusOr<std::unique_ptr<OpKernel>> Create(
      const NodeDef& node, std::shared_ptr<const NodeDef> shared,
      const OpDef& op_def, const DataTypeVector& inputs,
      const DataTypeVector& outputs, Device* device,
      const FunctionDefLibrary* library) const;
  struct Registration {
    KernelDefBuilder def;
    KernelFactory factory;
  };
  const Registration* Find(const NodeDef& node,
                           absl::string_view device_type) const;
  // Where `kernel`'s inputs and outputs live on a device the host cannot
  // read (KernelDefBuilder::HostMemory).
  static absl::Status SetMemoryTypes(const KernelDefBuilder& def,
                                     const OpDef& op_def, OpKernel* kernel);

  mutable absl::Mutex mu_;
  // Keyed by "op:device_type".
  absl::flat_hash_map<std::string, std::vector<Registration>> kernels_
      ABSL_GUARDED_BY(mu_);
};

// Registers `Kernel` (constructible from OpKernelConstruction*) for `def`.
template <typename Kernel>
void RegisterKernel(KernelRegistry* registry, const KernelDefBuilder& def) {
  registry->Register(def, [](OpKernelConstruction* ctx) {
    return std::unique_ptr<OpKernel>(new Kernel(ctx));
  });
}

}  // namespace dfx

#endif  // DFX_RUNTIME_OP_KERNEL_H_

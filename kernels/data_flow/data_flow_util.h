// Helpers of the data-flow kernels (stacks, TensorArrays): per-step resource
// handles and lookups, partial shapes of elements, moving elements of any
// dtype, and the registration functions of each kernel file.
#ifndef DFX_KERNELS_DATA_FLOW_DATA_FLOW_UTIL_H_
#define DFX_KERNELS_DATA_FLOW_DATA_FLOW_UTIL_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "graph/shape_inference.h"
#include "kernels/state/variable_util.h"
#include "runtime/op_kernel.h"
#include "runtime/resource_mgr.h"
#include "runtime/tensor.h"

namespace dfx::data_flow {

// The step's container. Internal when the kernel runs outside a step that
// provides one (stacks and TensorArrays live one step, as in TensorFlow).
absl::StatusOr<ScopedStepContainer*> StepContainer(OpKernelContext* ctx);

// A scalar DT_RESOURCE tensor naming resource `name` of type `type_name` in
// the step's container on this device.
absl::StatusOr<Tensor> MakeStepHandle(OpKernelContext* ctx,
                                      const std::string& name,
                                      const std::string& type_name);

// The resource of type T named by the handle at input `index`: InvalidArgument
// for a malformed handle or one of another device, NotFound when the
// resource does not exist (a handle from an earlier step, say).
template <typename T>
absl::StatusOr<std::shared_ptr<T>> LookupHandle(OpKernelContext* ctx,
                                                int index) {
  absl::StatusOr<const ResourceHandle*> h = HandleFromInput(ctx, index);
  if (!h.ok()) return h.status();
  return ctx->resource_manager()->Lookup<T>((*h)->container(), (*h)->name());
}

// The (container, name) of the resource that input `index` names:
// TensorFlow's [2] string handle, by reference (ConditionalAccumulator,
// FIFOQueue, the v1 TensorArray and Stack) or by value (TensorArrayV2), or a
// DT_RESOURCE handle of this device. InvalidArgument for a malformed handle
// or one of another device.
absl::Status HandleNameFromInput(OpKernelContext* ctx, int index,
                                 std::string* container, std::string* name);

// The per-step resource of type T (a TensorArray, a stack) that input
// `index` names: a DT_RESOURCE handle, or TensorFlow's older [2] string
// handle (prefix, name), by reference or by value, which names resource
// `prefix + name` in the step's container, where the creating kernel keeps
// it under that key whichever handle it outputs (SetStepHandleOutput).
// LookupHandle's errors, and InvalidArgument for a malformed string handle.
template <typename T>
absl::StatusOr<std::shared_ptr<T>> LookupStepResource(OpKernelContext* ctx,
                                                      int index) {
  if (ctx->op_kernel().input_type(index) == DT_RESOURCE) {
    return LookupHandle<T>(ctx, index);
  }
  std::string prefix, name;
  absl::Status s = HandleNameFromInput(ctx, index, &prefix, &name);
  if (!s.ok()) return s;
  absl::StatusOr<ScopedStepContainer*> step = StepContainer(ctx);
  if (!step.ok()) return step.status();
  return ctx->resource_manager()->Lookup<T>((*step)->name(),
                                            absl::StrCat(prefix, name));
}

// Sets output 0 of a kernel that made the per-step resource kept under key
// `prefix + name` in the step's container: a DT_RESOURCE handle (typed
// `type_name`) when the output is one, else TensorFlow's [2] string handle
// (prefix, name), by reference for a reference output (the referenced
// tensor then lives in the step's container beside the resource).
absl::Status SetStepHandleOutput(OpKernelContext* ctx,
                                 const std::string& prefix,
                                 const std::string& name,
                                 const std::string& type_name);

// The handle a kernel that creates a shared resource (queue, accumulator,
// lookup table) outputs: for TensorFlow's reference forms (`ref`) a [2]
// string tensor (container, name), else a scalar DT_RESOURCE handle of
// `device` naming it, typed `type_name`. HandleNameFromInput reads both.
Tensor SharedResourceHandle(const Device& device, bool ref,
                            const std::string& container,
                            const std::string& name,
                            const std::string& type_name);

// --- Partial shapes of elements (TensorFlow's PartialTensorShape).

PartialShape ToPartial(const TensorShape& shape);
// True when `shape` is one of the shapes `partial` describes.
bool IsCompatible(const PartialShape& partial, const TensorShape& shape);
// The most specific shape both describe; InvalidArgument when none.
absl::StatusOr<PartialShape> MergeShapes(const PartialShape& a,
                                         const PartialShape& b);
// REQUIRES: partial.FullyDefined().
TensorShape ToTensorShape(const PartialShape& partial);

// --- Elements.

// True when gather/scatter/concat/split can move elements of `dtype`:
// the fixed-size types, string and resource.
bool CanMove(DataType dtype);
// Copies `n` elements from src[src_offset...] to dst[dst_offset...] (flat
// offsets). REQUIRES: same dtype, CanMove(dtype) or DT_VARIANT (whose
// values are shared), ranges inside both.
void CopyElements(const Tensor& src, int64_t src_offset, Tensor* dst,
                  int64_t dst_offset, int64_t n);

// "[float, int32]": a resource's component types, for messages.
std::string TypesString(const DataTypeVector& types);

// The bytes of a tuple's tensors (a queue's element, a staged tuple).
int64_t TupleBytes(const std::vector<Tensor>& tuple);

// One per kernel file; RegisterDataFlowKernels calls each.
void RegisterStackKernels(KernelRegistry* registry);
void RegisterTensorArrayKernels(KernelRegistry* registry);
// Queues (queue_kernels.cc) and conditional accumulators
// (accumulator_kernels.cc).
void RegisterQueueKernels(KernelRegistry* registry);
void RegisterAccumulatorKernels(KernelRegistry* registry);
// Staging areas and maps (staging_kernels.cc), barriers
// (barrier_kernels.cc).
void RegisterStagingKernels(KernelRegistry* registry);
void RegisterBarrierKernels(KernelRegistry* registry);

}  // namespace dfx::data_flow

#endif  // DFX_KERNELS_DATA_FLOW_DATA_FLOW_UTIL_H_

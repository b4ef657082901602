// The N-d index machinery of GatherNd, ScatterNd and TensorScatter*
// (kernels/array/gather_*.cc), for kernels elsewhere that gather from or
// scatter into a tensor they hold: ResourceGatherNd and the ScatterNd*
// updates of variables (kernels/state/).
#ifndef DFX_KERNELS_ARRAY_ND_INDEX_H_
#define DFX_KERNELS_ARRAY_ND_INDEX_H_

#include "absl/status/status.h"
#include "runtime/op_kernel.h"
#include "runtime/tensor.h"

namespace dfx {

// How a scattered slice combines with what it lands on.
enum class ScatterNdMode { kAssign, kAdd, kSub, kMin, kMax };

// The node's bad_indices_policy attr: true for IGNORE (an index tuple
// outside the tensor is skipped), false for "", DEFAULT and ERROR or an
// absent attr; sets an InvalidArgument on `ctx` for any other value.
bool IgnoreBadIndices(OpKernelConstruction* ctx);

// Sets output 0 to GatherNd(params, indices): shape indices.shape[:-1] +
// params.shape[k:] for k = indices.shape[-1]. InvalidArgument (TensorFlow's
// wording) for a params or indices of rank 0, k > params' rank, entries
// asked of an empty params, or an index tuple outside params (naming it:
// "indices[1] = [0, 3] does not index into param shape [2,2]") unless
// `ignore_bad` (the slice is zeros then).
absl::Status GatherNdToOutput(OpKernelContext* ctx, const Tensor& params,
                              const Tensor& indices, bool ignore_bad);

// out[indices[i]] (op)= updates[i] for each index tuple i of `indices`
// (shape [..., k]), in order: duplicates add up, the last assignment wins.
// REQUIRES: shapes already checked by the caller (updates.shape =
// indices.shape[:-1] + out.shape[k:]); `out` is written in place.
// InvalidArgument for `out` of rank 0 or k < 1 (`out` untouched), or for
// an index tuple outside `out` ("indices[1] = [7] does not index into shape
// [4]") unless `ignore_bad` skips such tuples: the updates before it are
// applied then, as TensorFlow's loop applies them. Internal for a dtype the op
// has no arithmetic for (TensorFlow registers none).
absl::Status ScatterNdInPlace(OpKernelContext* ctx, ScatterNdMode op,
                              const Tensor& indices, const Tensor& updates,
                              bool ignore_bad, Tensor* out);

}  // namespace dfx

#endif  // DFX_KERNELS_ARRAY_ND_INDEX_H_

// Element-wise updates of a variable's tensor in place, shared by the
// resource and reference forms: dense (AssignAdd, AssignSub) and scattered
// by rows (ScatterAdd, ..., ScatterUpdate, and their Resource* forms).
#ifndef DFX_KERNELS_STATE_UPDATE_FUNCTORS_H_
#define DFX_KERNELS_STATE_UPDATE_FUNCTORS_H_

#include "absl/status/status.h"
#include "runtime/device.h"
#include "runtime/tensor.h"

namespace dfx {

enum class UpdateOp { kAssign, kAdd, kSub, kMul, kDiv, kMin, kMax };

// "ScatterAdd", ... for messages.
const char* UpdateOpName(UpdateOp op);

// dst = dst <op> src, element by element. InvalidArgument "Cannot update
// variable with shape [..] using a Tensor with shape [..], shapes must be
// equal." when the shapes differ; Unimplemented for a dtype without
// arithmetic (string, complex). `hogwild`: dst may be read meanwhile
// (VariableInputs::hogwild).
absl::Status DenseUpdate(const Device& device, UpdateOp op, const Tensor& src,
                         Tensor* dst, bool hogwild = false);

// For each i: params[indices[i], ...] = params[indices[i], ...] <op>
// updates[i, ...]. `updates` has shape indices.shape + params.shape[1:], or
// is a scalar applied to every selected row when `allow_scalar_updates`.
// Rows named twice are applied in order. InvalidArgument for an index out
// of [0, params.dim(0)) (naming it) or a shape mismatch; params untouched
// then. Unimplemented for a dtype without the arithmetic.
absl::Status ScatterUpdate(UpdateOp op, const Tensor& indices,
                           const Tensor& updates, bool allow_scalar_updates,
                           Tensor* params);

}  // namespace dfx

#endif  // DFX_KERNELS_STATE_UPDATE_FUNCTORS_H_

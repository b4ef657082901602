// What the xla1 family's kernel files (kernels/xla/xla_array_*.cc) share:
// the check of XLA's element types and their registration functions.
#ifndef DFX_KERNELS_XLA_XLA_ARRAY_UTIL_H_
#define DFX_KERNELS_XLA_XLA_ARRAY_UTIL_H_

#include "absl/status/status.h"
#include "graph/types.h"
#include "runtime/op_kernel.h"

namespace dfx::xla_array {

// OK for the element types XLA computes on (bool, the integers, the floats
// and the complex types); InvalidArgument for any other (string, resource,
// variant, the quantized types), as TensorFlow answers when it finds no
// compiled kernel for the type.
absl::Status CheckXlaType(DataType dtype);

// XlaDot, XlaDotV2 and XlaGather (xla_array_dot.cc).
void RegisterXlaDotKernels(KernelRegistry* registry);

// XlaConv, XlaConvV2 and XlaEinsum (xla_array_conv.cc).
void RegisterXlaConvKernels(KernelRegistry* registry);

// XlaScatter (xla_array_scatter.cc).
void RegisterXlaScatterKernels(KernelRegistry* registry);

// XlaSelfAdjointEig and XlaSvd (xla_array_linalg.cc).
void RegisterXlaLinalgKernels(KernelRegistry* registry);

// Every xla1 kernel; kernels/standard_kernels.cc calls it.
void RegisterXlaArrayKernels(KernelRegistry* registry);

}  // namespace dfx::xla_array

#endif  // DFX_KERNELS_XLA_XLA_ARRAY_UTIL_H_

// The GPU kernels (gpu/kernels/), registered for device type "GPU". No
// CUDA headers: kernels/standard_kernels.cc includes this when dfx is built
// with CUDA (DFX_HAVE_CUDA) and compiles unchanged otherwise.
#ifndef DFX_GPU_KERNELS_GPU_KERNELS_H_
#define DFX_GPU_KERNELS_GPU_KERNELS_H_

#include "runtime/op_kernel.h"

namespace dfx::gpu {

// MatMul (float, double, half, bfloat16) on cuBLAS; element-wise ops
// (float, double): Relu, Neg, Square, Exp, Log, Tanh, Sigmoid, Sqrt, Rsqrt,
// Abs, AddV2/Add, Sub, Mul, RealDiv, Maximum, Minimum, SquaredDifference
// with broadcasting, BiasAdd(V1), BiasAddGrad and ReluGrad; Identity,
// StopGradient and PreventGradient (forwarding).
void RegisterGpuKernels(KernelRegistry* registry);

}  // namespace dfx::gpu

#endif  // DFX_GPU_KERNELS_GPU_KERNELS_H_

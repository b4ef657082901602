// The GPU kernels (gpu/kernels/), registered for device type "GPU". No
// CUDA headers: kernels/standard_kernels.cc includes this when dfx is built
// with CUDA (DFX_HAVE_CUDA) and compiles unchanged otherwise.
#ifndef DFX_GPU_KERNELS_GPU_KERNELS_H_
#define DFX_GPU_KERNELS_GPU_KERNELS_H_

#include "runtime/op_kernel.h"

namespace dfx::gpu {

// MatMul (float, double, half, bfloat16) on cuBLAS; Conv2D (float, half,
// bfloat16) on cuDNN when dfx was built with it; element-wise ops
// (float, double): Relu, Neg, Square, Exp, Log, Tanh, Sigmoid, Sqrt, Rsqrt,
// Abs, AddV2/Add, Sub, Mul, RealDiv, Maximum, Minimum, SquaredDifference
// with broadcasting, BiasAdd(V1), BiasAddGrad and ReluGrad; Identity,
// StopGradient and PreventGradient (forwarding).
void RegisterGpuKernels(KernelRegistry* registry);

// TensorFloat-32 for float32 MatMul and Conv2D on GPUs that have it
// (Ampere and newer): inputs rounded to 10-bit mantissas, float
// accumulation, several times the FP32 rate. Off by default, so float32
// results match the CPU kernels' to about 1e-6 (TensorFlow turns it on by default; PyTorch does
// not). The environment variable DFX_GPU_TF32=1 turns it on for a process
// (a `dfx server` too); this call overrides it. Thread-safe; steps that
// start afterwards see the change.
void SetTensorFloat32Execution(bool enabled);
bool TensorFloat32ExecutionEnabled();

}  // namespace dfx::gpu

#endif  // DFX_GPU_KERNELS_GPU_KERNELS_H_

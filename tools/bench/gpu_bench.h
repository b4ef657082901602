// `dfx_bench gpu`: dfx's GPU kernels and copies against the CUDA libraries
// called directly in the same run.
#ifndef DFX_TOOLS_BENCH_GPU_BENCH_H_
#define DFX_TOOLS_BENCH_GPU_BENCH_H_

namespace dfx {

// `dfx_bench gpu [--sizes 4096,8192] [--iters N]`: MatMul (float32 with
// FP32 and with TF32 math, bfloat16) in TFLOP/s through dfx's GPU kernel, one
// call after another as the executor makes them (each allocates its output and
// enqueues), beside cuBLAS enqueued back to back; Conv2D (ResNet-50's 3x3
// layers, batch 32, float32) beside cuDNN called directly; and host<->GPU
// copies of 256 MiB through GpuDevice in GB/s beside cudaMemcpyAsync on pinned
// memory. Goal: >= 0.9x the direct call in each. And a 256 MiB GPU tensor
// fetched by another task over the bulk plane (TCP, 127.0.0.1) as RecvTensor
// serves it, by range with the copy overlapping the send, beside a whole copy
// to the host and then the send. Prints why nothing was measured on a machine
// without a GPU (exit 0) or a dfx built without CUDA (exit 1). `argv` holds the
// arguments after the subcommand; 2 for bad flags.
int RunGpuBench(int argc, char** argv);

}  // namespace dfx

#endif  // DFX_TOOLS_BENCH_GPU_BENCH_H_

// The dfx_bench subcommand that measures dense kernels as a user sees them:
// one-node graphs through a local session, side by side with TensorFlow.
#ifndef DFX_TOOLS_BENCH_KERNEL_BENCH_H_
#define DFX_TOOLS_BENCH_KERNEL_BENCH_H_

namespace dfx {

// `dfx_bench kernels [--threads 1,2] [--min-time SECONDS] [--no-tf]`:
// MatMul 256/1024/2048 float in GFLOP/s, Conv2D (3x3, 64->64 channels,
// 56x56, batch 1, NHWC) in GFLOP/s, and a 64 MiB element-wise Add and a
// 64 MiB Sum in GB/s next to a memcpy of the same bytes, for each intra-op
// thread count; with TensorFlow 2.21's figures and the ratio when
// `tools/tf_env --check` finds its virtualenv (run through
// tools/bench/tf_kernels.py). An op without a kernel is skipped with a
// message. `argv` holds the arguments after the subcommand. Returns the
// exit status (2 for bad flags, 1 when a step fails).
int RunKernelBench(int argc, char** argv);

}  // namespace dfx

#endif  // DFX_TOOLS_BENCH_KERNEL_BENCH_H_

// The dfx_bench subcommand that measures the cost of one loop iteration.
#ifndef DFX_TOOLS_BENCH_LOOP_BENCH_H_
#define DFX_TOOLS_BENCH_LOOP_BENCH_H_

namespace dfx {

// `dfx_bench loop [--iters 10000] [--repeats 5] [--no-tf] [--trace F]`:
// a TF1 while
// loop counting a scalar to --iters (Enter, Merge, Less, LoopCond, Switch,
// Identity, AddV2, NextIteration, Exit), its time per iteration (best step
// of --repeats): through a dfx local session on one device and split over
// two devices of one process; then, when `tools/tf_env --check` finds
// TensorFlow, tools/bench/loop_vs_tf.py: the same loop from one TensorFlow
// client on two TensorFlow servers and on two dfx servers, on one task and
// across two tasks, with the ratio. --trace F: after the timed steps, one
// FULL_TRACE step of the two-device loop (at most 100 iterations) written
// to F as a Chrome trace. `argv` holds the arguments after the
// subcommand. Returns the exit status (2 for bad flags, 1 when a step
// fails).
int RunLoopBench(int argc, char** argv);

}  // namespace dfx

#endif  // DFX_TOOLS_BENCH_LOOP_BENCH_H_

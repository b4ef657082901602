// The dfx_bench subcommands that measure the cost of partitioning a step:
// the local rendezvous hand-over and a session's per-step overhead.
#ifndef DFX_TOOLS_BENCH_PARTITION_BENCH_H_
#define DFX_TOOLS_BENCH_PARTITION_BENCH_H_

namespace dfx {

// `dfx_bench rendezvous [--iters N]`: microseconds per LocalRendezvous
// Send -> RecvAsync hand-over (send first and receive first) for a 4-byte
// and a 64 MiB tensor, against a 64 MiB memcpy. `argv` holds the arguments
// after the subcommand. Returns the exit status (2 for bad flags).
int RunRendezvousBench(int argc, char** argv);

// `dfx_bench session [--devices 1,4] [--steps N]`: microseconds per step of
// tiny graphs through Session::Create("local") with device_count
// {"CPU": d} for each d, and of a graph whose two nodes sit on different
// devices. Returns the exit status (2 for bad flags, 1 for a failed step).
int RunSessionBench(int argc, char** argv);

}  // namespace dfx

#endif  // DFX_TOOLS_BENCH_PARTITION_BENCH_H_

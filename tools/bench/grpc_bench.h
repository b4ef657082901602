// The dfx_bench subcommands that measure the distributed runtime against
// raw gRPC and raw TCP, measured in the same run.
#ifndef DFX_TOOLS_BENCH_GRPC_BENCH_H_
#define DFX_TOOLS_BENCH_GRPC_BENCH_H_

namespace dfx {

// `dfx_bench grpc [--steps N] [--sizes-mib 1,64,512] [--iters N]
// [--trace F]`:
// (a) microseconds per null step (one Const fetched) through GrpcSession on
// `dfx server` processes, with the Const on the master's task (1 worker) and
// on a second task (2 workers), against the round trip of a raw gRPC unary
// echo to another process; (b) RecvTensor throughput from a `dfx server`
// process for each size, against raw TCP loopback between two processes.
// --trace F: after (a), 5 FULL_TRACE steps of the 2-worker case written to
// F as a Chrome trace. Returns the exit status (2 for bad flags, 1 for a failure).
int RunGrpcBench(int argc, char** argv);

// `dfx_bench collectives [--tasks 2,3] [--sizes-mib 1,64,256] [--iters N]`:
// all-reduce (sum) of each size over `dfx server` processes (one member per
// task), as algorithm and bus bandwidth (2(n-1)/n of the tensor crosses
// each member's link in a ring), against raw TCP loopback between two
// processes measured in the same run. --no-bulk-local: the servers' bulk
// planes use TCP between them, as across hosts, not shared memory.
int RunCollectivesBench(int argc, char** argv);

// `dfx_bench echo-server --port P`: the echo process of (a); runs until
// SIGTERM.
int RunEchoServer(int argc, char** argv);

}  // namespace dfx

#endif  // DFX_TOOLS_BENCH_GRPC_BENCH_H_

// The data movement of the collectives over a step's rendezvous: ring
// all-reduce (reduce-scatter then all-gather, each segment cut into pieces
// that travel the ring independently, so transfers and reductions of
// different pieces overlap), ring reduce-scatter and all-gather (each half
// of it alone), all-to-all (every member sends one block to every other
// directly), and broadcast from the source to every other member.
//
// Every transfer is one rendezvous key from a member's device to the next:
//   <src device>;<src incarnation>;<dst device>;
//       coll:<instance>:<kind>:<piece>:<ring step>;0:0
// so across tasks a piece is one RecvTensor (the bulk plane for 1 MiB and
// more), inside a process it is handed over by reference. An all-gather
// step's piece is received straight into its place in the output
// (Rendezvous::Args::destination): across tasks its bytes are copied once,
// from the wire or the bulk plane's shared memory into the output.
#ifndef DFX_RUNTIME_COLLECTIVE_RING_H_
#define DFX_RUNTIME_COLLECTIVE_RING_H_

#include <cstdint>
#include <functional>

#include "absl/status/statusor.h"
#include "runtime/collective.h"
#include "runtime/rendezvous.h"
#include "runtime/tensor.h"

namespace dfx {

class ThreadPool;

enum class ReduceOp { kAdd, kMul, kMin, kMax };

// One member's part in one collective. Pointers are borrowed until `done`.
struct CollectiveRun {
  Rendezvous* rendezvous = nullptr;
  // May be null. Cancelling it ends the collective with Cancelled.
  CancellationManager* cancellation = nullptr;
  const CollectiveGroup* group = nullptr;
  int rank = 0;
  int32_t instance_key = 0;
  // A piece is at most this many bytes (the pipelining grain).
  int64_t piece_bytes = int64_t{4} << 20;
  // Where reductions run (the device's intra-op pool), each cut into
  // blocks spread over its threads; never on the thread that delivered a
  // piece (a gRPC or bulk-plane thread). Null: on that thread, in one go.
  ThreadPool* pool = nullptr;
  // All-reduce of a group over several tasks with several members on at
  // least one of them goes hierarchically: each task's members reduce
  // inside their process first, one member per task runs the ring between
  // tasks, and hands the result back. False: one ring over every member.
  bool hierarchical = true;
};

using CollectiveDone = std::function<void(absl::StatusOr<Tensor>)>;

// The element-wise reduction of every member's `input` (same dtype and
// shape everywhere), divided by the group size when `divide` (final_op
// Div: integer types divide with truncation, as TensorFlow's Div does).
// `done` runs once, on any thread, with a new tensor of input's shape.
// On the first error this member aborts the step's rendezvous with it
// (every pending transfer of the step fails at once, here and, through the
// failed RecvTensors, at the peers) and calls `done` once its pending
// transfers have ended. A received piece of the wrong dtype or size is
// InvalidArgument naming the instance and the sending device.
// Types: float, double, half, bfloat16, int32, int64. Hierarchical when
// run.hierarchical and the group's tasks hold several members (see
// CollectiveRun); the result is the same.
void RingAllReduce(const CollectiveRun& run, const Tensor& input, ReduceOp op,
                   bool divide, CollectiveDone done);

// TensorFlow's CollectiveReduceScatterV2: the element-wise reduction of
// every member's `input` (same dtype and shape, rank >= 1, dim 0 divisible
// by the group size), of which this member gets rows [rank * k, (rank + 1)
// * k) of dim 0, k = dim 0 / group size: a tensor of input's shape with dim
// 0 = k. The reduce-scatter half of RingAllReduce, with its errors; an
// input of rank 0 or a dim 0 that does not divide is InvalidArgument naming
// the instance (every member has it: the leader checked their shapes).
void RingReduceScatter(const CollectiveRun& run, const Tensor& input,
                       ReduceOp op, bool divide, CollectiveDone done);

// TensorFlow's CollectiveAllToAllV2: `input` (same dtype and shape at every
// member, rank >= 1, dim 0 divisible by the group size n) is cut along dim
// 0 into n blocks; block j goes to member j, and this member's result (of
// input's shape) holds, as its block j, member j's block `rank`. Each block
// is one transfer straight to its member. Errors as RingAllReduce (and
// InvalidArgument as RingReduceScatter for a bad shape). Any memcpy-able
// type.
void AllToAll(const CollectiveRun& run, const Tensor& input,
              CollectiveDone done);

// Every member's `input` (same dtype and shape, rank >= 1) concatenated
// along dim 0 in rank order. Errors as RingAllReduce. Any memcpy-able type.
void RingAllGather(const CollectiveRun& run, const Tensor& input,
                   CollectiveDone done);

// The source (`run.rank == source_rank`) sends `input` to every other
// member and gets it back as its result; the others receive a tensor of
// `dtype` and `shape` (ignored at the source). A received tensor of another
// dtype or shape is InvalidArgument naming the instance and the source.
void Broadcast(const CollectiveRun& run, int source_rank, const Tensor& input,
               DataType dtype, const TensorShape& shape,
               CollectiveDone done);

}  // namespace dfx

#endif  // DFX_RUNTIME_COLLECTIVE_RING_H_

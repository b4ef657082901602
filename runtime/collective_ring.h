// The data movement of the collectives over a step's rendezvous: ring
// all-reduce (reduce-scatter then all-gather, each segment cut into pieces
// that travel the ring independently, so transfers and reductions of
// different pieces overlap), ring all-gather, and broadcast from the source
// to every other member.
//
// Every transfer is one rendezvous key from a member's device to the next:
//   <src device>;<src incarnation>;<dst device>;
//       coll:<instance>:<kind>:<piece>:<ring step>;0:0
// so across tasks a piece is one RecvTensor (the bulk plane for 1 MiB and
// more), inside a process it is handed over by reference.
#ifndef DFX_RUNTIME_COLLECTIVE_RING_H_
#define DFX_RUNTIME_COLLECTIVE_RING_H_

#include <cstdint>
#include <functional>

#include "absl/status/statusor.h"
#include "runtime/collective.h"
#include "runtime/rendezvous.h"
#include "runtime/tensor.h"

namespace dfx {

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
// Types: float, double, half, bfloat16, int32, int64.
void RingAllReduce(const CollectiveRun& run, const Tensor& input, ReduceOp op,
                   bool divide, CollectiveDone done);

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

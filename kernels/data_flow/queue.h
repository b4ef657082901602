// A queue resource (FIFOQueueV2, PaddingFIFOQueueV2, RandomShuffleQueueV2,
// PriorityQueueV2 and their TF1 forms)
// shared by the steps and sessions that name it, and the waits on it.
//
// An enqueue into a full queue and a dequeue from a queue with too few
// elements do not hold a thread: the attempt is stored in the queue with
// its completion callback, and whoever changes the queue (an enqueue, a
// dequeue, a close) completes the attempts that can now go on, in arrival
// order, as TensorFlow's QueueBase does. A waiting attempt also ends on
// the step's cancellation (Cancelled) and on its timeout_ms
// (DeadlineExceeded), both naming the queue. Callbacks run without the
// queue's lock held.
//
// Memory: the queue holds its elements' tensors, allocated by the CPU
// allocator, so they count against --memory-limit; MemoryUsed reports them.
#ifndef DFX_KERNELS_DATA_FLOW_QUEUE_H_
#define DFX_KERNELS_DATA_FLOW_QUEUE_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "graph/shape_inference.h"
#include "graph/types.h"
#include "kernels/data_flow/wait.h"
#include "kernels/random/philox.h"
#include "runtime/cancellation.h"
#include "runtime/resource_mgr.h"
#include "runtime/tensor.h"

namespace dfx::data_flow {

class Queue : public ResourceBase,
              public std::enable_shared_from_this<Queue> {
 public:
  static constexpr const char* kTypeName = "Queue";
  // One element: a tensor per component.
  using Tuple = std::vector<Tensor>;
  using EnqueueDone = std::function<void(absl::Status)>;
  using DequeueDone = std::function<void(absl::Status, std::vector<Tuple>)>;

  // A RandomShuffleQueue's order, as TensorFlow's: each dequeued element
  // is drawn uniformly from those held (a 32-bit Philox word modulo the
  // size, the last element moved into its place), and a dequeue waits
  // while no more than min_after_dequeue elements are left, until the
  // queue is closed. seed and seed2 both 0: random seeds.
  struct Shuffle {
    int64_t min_after_dequeue = 0;
    int64_t seed = 0;
    int64_t seed2 = 0;
  };

  // `kind`: "FIFOQueue", "PaddingFIFOQueue" or "RandomShuffleQueue" (for
  // messages; the last needs `shuffle`). `shapes`: empty (unconstrained) or
  // one per component. capacity < 0: unbounded.
  Queue(std::string kind, std::string name, DataTypeVector types,
        std::vector<PartialShape> shapes, int64_t capacity,
        std::optional<Shuffle> shuffle = std::nullopt);

  std::string TypeName() const override { return kTypeName; }
  std::string DebugString() const override;
  int64_t MemoryUsed() const override;

  const std::string& kind() const { return kind_; }
  const std::string& name() const { return name_; }
  const DataTypeVector& types() const { return types_; }
  const std::vector<PartialShape>& shapes() const { return shapes_; }
  int64_t capacity() const { return capacity_; }
  bool padding() const { return kind_ == "PaddingFIFOQueue"; }
  // A PriorityQueue: elements leave lowest int64 first component first.
  bool priority() const { return kind_ == "PriorityQueue"; }
  // The shuffle attrs as given (seeds as the node had them).
  const std::optional<Shuffle>& shuffle() const { return shuffle_; }

  // Adds `elements` in order (waiting for room as needed). `done` runs
  // once: OK when all are in; Cancelled when the queue is (or gets, with
  // cancel_pending_enqueues) closed or the step is cancelled;
  // DeadlineExceeded after timeout_ms (when >= 0). `cm` may be null.
  void Enqueue(std::vector<Tuple> elements, CancellationManager* cm,
               int64_t timeout_ms, EnqueueDone done);

  // Takes `n` elements (fewer when `up_to` and the queue is closed with at
  // least one left). OutOfRange when the queue is closed with too few;
  // Cancelled / DeadlineExceeded as for Enqueue. Elements taken by an
  // attempt that then fails go back to the front of the queue (a shuffle
  // queue: to the back, last first, as TensorFlow's).
  void Dequeue(int64_t n, bool up_to, CancellationManager* cm,
               int64_t timeout_ms, DequeueDone done);

  void Close(bool cancel_pending_enqueues);
  int64_t Size() const;
  bool IsClosed() const;

 private:
  struct Attempt {
    int64_t id = 0;
    bool enqueue = false;
    std::vector<Tuple> elements;  // enqueue: to add; dequeue: taken
    size_t next = 0;              // enqueue: the next element to add
    int64_t n = 0;                // dequeue: how many
    bool up_to = false;
    CancellationManager* cm = nullptr;
    // The step's cancellation and timeout_ms (kernels/data_flow/wait.h).
    WaitEnds ends;
    EnqueueDone enqueue_done;
    DequeueDone dequeue_done;
  };
  struct Finished {
    std::unique_ptr<Attempt> attempt;
    absl::Status status;
  };

  void Start(std::unique_ptr<Attempt> a, int64_t timeout_ms);
  // Ends the waiting attempt `id` with `status` (cancellation, timeout);
  // nothing when it has finished already.
  void Abort(int64_t id, absl::Status status);
  void RemoveLocked(int64_t id, absl::Status status,
                    std::vector<Finished>* finished)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Moves elements in and out and finishes the attempts that can finish.
  void FlushLocked(std::vector<Finished>* finished)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Unwind(Attempt* a) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // A shuffle queue's dequeue `d`: takes what it may; returns false while
  // it waits, else true with its final status in *status.
  bool ShuffleDequeueLocked(Attempt* d, absl::Status* status, bool* progress)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Removes and returns a uniformly drawn element. REQUIRES: not empty.
  Tuple TakeRandomLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // A priority queue's dequeue `d`: all n at once, lowest priority first,
  // or (DequeueUpTo of a closed queue) all there are; returns false while
  // it waits, else true with its final status in *status.
  bool PriorityDequeueLocked(Attempt* d, absl::Status* status)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  static void Finish(std::vector<Finished> finished);
  absl::Status ClosedError() const;

  const std::string kind_;
  const std::string name_;
  const DataTypeVector types_;
  const std::vector<PartialShape> shapes_;
  const int64_t capacity_;
  const std::optional<Shuffle> shuffle_;

  mutable absl::Mutex mu_;
  std::deque<Tuple> elements_ ABSL_GUARDED_BY(mu_);
  int64_t bytes_ ABSL_GUARDED_BY(mu_) = 0;
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  int64_t next_id_ ABSL_GUARDED_BY(mu_) = 0;
  std::deque<std::unique_ptr<Attempt>> enqueues_ ABSL_GUARDED_BY(mu_);
  std::deque<std::unique_ptr<Attempt>> dequeues_ ABSL_GUARDED_BY(mu_);
  // A shuffle queue's generator and its stream of words.
  random::Philox gen_ ABSL_GUARDED_BY(mu_);
  random::PhiloxWords words_ ABSL_GUARDED_BY(mu_){&gen_};
};

}  // namespace dfx::data_flow

#endif  // DFX_KERNELS_DATA_FLOW_QUEUE_H_

// TensorFlow's Barrier (Barrier, BarrierInsertMany, BarrierTakeMany,
// BarrierClose, BarrierReadySize, BarrierIncompleteSize): elements of
// several components, keyed by strings, each inserted component by
// component; an element is ready once it has every one, and TakeMany takes
// ready elements in insertion order.
//
// A TakeMany of more elements than are ready holds no thread: it waits in
// the barrier's WaitList (kernels/data_flow/wait.h), in arrival order, and
// ends when enough elements are ready, when a close leaves too few to come
// (OutOfRange), when its step is cancelled (Cancelled) or after its
// timeout_ms (DeadlineExceeded; TensorFlow rejects any timeout). Callbacks
// run without the barrier's lock held.
#ifndef DFX_KERNELS_DATA_FLOW_BARRIER_H_
#define DFX_KERNELS_DATA_FLOW_BARRIER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <queue>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "graph/types.h"
#include "kernels/data_flow/wait.h"
#include "runtime/allocator.h"
#include "runtime/cancellation.h"
#include "runtime/resource_mgr.h"
#include "runtime/tensor.h"

namespace dfx::data_flow {

class Barrier : public WaitingResource {
 public:
  static constexpr const char* kTypeName = "Barrier";

  // A ready element: its insertion index, key and components.
  struct Element {
    int64_t index = 0;
    std::string key;
    std::vector<Tensor> values;
  };
  using TakeDone = std::function<void(absl::Status, std::vector<Element>)>;

  // `shapes`: one fully defined shape per component.
  Barrier(std::string name, DataTypeVector types,
          std::vector<TensorShape> shapes);

  std::string TypeName() const override { return kTypeName; }
  std::string DebugString() const override;
  int64_t MemoryUsed() const override;

  const std::string& name() const { return name_; }
  const DataTypeVector& types() const { return types_; }
  const std::vector<TensorShape>& shapes() const { return shapes_; }

  // Inserts row i of `values` (a batch, rank >= 1, one row per key) as
  // component `component` of element keys[i]. A key not seen before gets
  // the insertion index of this call: one more than the last call that
  // brought new keys (TensorFlow counts from int64's smallest). Elements
  // that become complete are ready, and waiting takes may go on.
  // InvalidArgument for a component a key has already, for a complete
  // element of the wrong shapes, or for no values; Cancelled once closed
  // (new keys; any key after a close that cancelled pending enqueues).
  // Rows are copied with `allocator`.
  absl::Status InsertMany(const std::vector<std::string>& keys, int component,
                          const Tensor& values, Allocator* allocator);

  // Takes `n` ready elements, lowest insertion index first, waiting for
  // them (arrival order among takes). Closed: `allow_small_batch` takes
  // what is ready (at least one); OutOfRange when too few are ready (and,
  // without allow_small_batch, incomplete). Cancelled / DeadlineExceeded
  // (timeout_ms >= 0) as the header comment says. `cm` may be null.
  void TakeMany(int64_t n, bool allow_small_batch, CancellationManager* cm,
                int64_t timeout_ms, TakeDone done);

  // Closes the barrier: no new keys; incomplete elements may still
  // complete unless `cancel_pending_enqueues`, which drops them. With no
  // incomplete element left, takes that cannot be served end with
  // OutOfRange. Cancelled when closed already (but a cancelling close may
  // follow a plain one).
  absl::Status Close(bool cancel_pending_enqueues);

  int64_t ReadySize() const;
  int64_t IncompleteSize() const;

 private:
  struct Incomplete {
    int64_t index = 0;
    std::vector<std::optional<Tensor>> values;
  };
  // TensorFlow's PriorityQueue order: lowest index on top (a
  // std::priority_queue of the same comparison, so ties come out as
  // TensorFlow's do).
  struct Later {
    bool operator()(const Element& a, const Element& b) const {
      return a.index > b.index;
    }
  };

  // Puts `value` into `key`'s element; one it completes goes to *completed.
  absl::Status InsertOneLocked(const std::string& key, int component,
                               Tensor value, bool* new_key,
                               std::vector<Element>* completed)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::string name_;
  const DataTypeVector types_;
  const std::vector<TensorShape> shapes_;

  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  // The ready elements' queue is closed (a close with nothing incomplete,
  // or a cancelling one): takes no longer wait for more.
  bool ready_closed_ ABSL_GUARDED_BY(mu_) = false;
  bool cancel_pending_enqueues_ ABSL_GUARDED_BY(mu_) = false;
  int64_t input_index_ ABSL_GUARDED_BY(mu_);
  std::unordered_map<std::string, Incomplete> incomplete_ ABSL_GUARDED_BY(mu_);
  std::priority_queue<Element, std::vector<Element>, Later> ready_
      ABSL_GUARDED_BY(mu_);
  int64_t bytes_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace dfx::data_flow

#endif  // DFX_KERNELS_DATA_FLOW_BARRIER_H_

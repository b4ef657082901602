#include "kernels/data_flow/queue.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "kernels/data_flow/data_flow_util.h"
#include "runtime/device.h"

namespace dfx::data_flow {
namespace {

// The heap order of a priority queue's elements: as TensorFlow's
// std::priority_queue with its ComparePriorityTensorPair (a min-heap of the
// int64 first component), so that equal priorities leave in the order
// TensorFlow's heap gives them.
bool PriorityAfter(const Queue::Tuple& a, const Queue::Tuple& b) {
  return a[0].scalar<int64_t>() > b[0].scalar<int64_t>();
}

}  // namespace

Queue::Queue(std::string kind, std::string name, DataTypeVector types,
             std::vector<PartialShape> shapes, int64_t capacity,
             std::optional<Shuffle> shuffle)
    : kind_(std::move(kind)),
      name_(std::move(name)),
      types_(std::move(types)),
      shapes_(std::move(shapes)),
      capacity_(capacity < 0 ? std::numeric_limits<int32_t>::max()
                             : capacity),
      shuffle_(shuffle) {
  if (shuffle_.has_value()) {
    uint64_t seed = static_cast<uint64_t>(shuffle_->seed);
    uint64_t seed2 = static_cast<uint64_t>(shuffle_->seed2);
    if (seed == 0 && seed2 == 0) {
      seed = NewIncarnation();
      seed2 = NewIncarnation();
    }
    absl::MutexLock lock(&mu_);
    gen_ = random::Philox(seed, seed2);
  }
}

std::string Queue::DebugString() const {
  absl::MutexLock lock(&mu_);
  return absl::StrCat(kind_, " '", name_, "': ", elements_.size(), " of ",
                      capacity_, " elements", closed_ ? ", closed" : "");
}

int64_t Queue::MemoryUsed() const {
  absl::MutexLock lock(&mu_);
  return bytes_;
}

int64_t Queue::Size() const {
  absl::MutexLock lock(&mu_);
  return static_cast<int64_t>(elements_.size());
}

bool Queue::IsClosed() const {
  absl::MutexLock lock(&mu_);
  return closed_;
}

absl::Status Queue::ClosedError() const {
  return absl::CancelledError(absl::StrCat(kind_, " '", name_, "' is closed."));
}

void Queue::Enqueue(std::vector<Tuple> elements, CancellationManager* cm,
                    int64_t timeout_ms, EnqueueDone done) {
  auto a = std::make_unique<Attempt>();
  a->enqueue = true;
  a->elements = std::move(elements);
  a->cm = cm;
  a->enqueue_done = std::move(done);
  Start(std::move(a), timeout_ms);
}

void Queue::Dequeue(int64_t n, bool up_to, CancellationManager* cm,
                    int64_t timeout_ms, DequeueDone done) {
  auto a = std::make_unique<Attempt>();
  a->n = n;
  a->up_to = up_to;
  a->cm = cm;
  a->dequeue_done = std::move(done);
  Start(std::move(a), timeout_ms);
}

void Queue::Start(std::unique_ptr<Attempt> a, int64_t timeout_ms) {
  const std::string what = absl::StrCat(a->enqueue ? "Enqueue" : "Dequeue",
                                        " operation on ", kind_, " '", name_,
                                        "'");
  std::vector<Finished> finished;
  {
    absl::MutexLock lock(&mu_);
    a->id = next_id_++;
    const int64_t id = a->id;
    Attempt* raw = a.get();
    if (a->enqueue && closed_) {
      finished.push_back({std::move(a), ClosedError()});
    } else {
      (a->enqueue ? enqueues_ : dequeues_).push_back(std::move(a));
      FlushLocked(&finished);
    }
    const bool waiting = std::none_of(
        finished.begin(), finished.end(),
        [raw](const Finished& f) { return f.attempt.get() == raw; });
    // Still waiting: the step's cancellation and the timeout end it too.
    if (waiting) {
      std::weak_ptr<Queue> weak = weak_from_this();
      absl::Status armed = ArmWait(
          raw->cm, timeout_ms, what,
          [weak, id](absl::Status status) {
            if (std::shared_ptr<Queue> q = weak.lock()) {
              q->Abort(id, std::move(status));
            }
          },
          &raw->ends);
      // Cancelled already: end it now.
      if (!armed.ok()) RemoveLocked(id, std::move(armed), &finished);
    }
  }
  Finish(std::move(finished));
}

void Queue::Abort(int64_t id, absl::Status status) {
  std::vector<Finished> finished;
  {
    absl::MutexLock lock(&mu_);
    RemoveLocked(id, std::move(status), &finished);
  }
  Finish(std::move(finished));
}

void Queue::RemoveLocked(int64_t id, absl::Status status,
                         std::vector<Finished>* finished) {
  for (auto* list : {&enqueues_, &dequeues_}) {
    for (auto it = list->begin(); it != list->end(); ++it) {
      if ((*it)->id != id) continue;
      Unwind(it->get());
      finished->push_back({std::move(*it), std::move(status)});
      list->erase(it);
      // Another attempt may go on now (one behind it in line).
      FlushLocked(finished);
      return;
    }
  }
}

void Queue::Unwind(Attempt* a) {
  if (a->enqueue) return;  // elements already added stay
  // A dequeue's taken elements go back to the front, in order (a shuffle
  // queue's to the back, last first, as TensorFlow's; a priority queue's
  // into its heap, though its dequeues take all or nothing).
  for (auto it = a->elements.rbegin(); it != a->elements.rend(); ++it) {
    bytes_ += TupleBytes(*it);
    if (priority()) {
      elements_.push_back(std::move(*it));
      std::push_heap(elements_.begin(), elements_.end(), PriorityAfter);
    } else if (shuffle_.has_value()) {
      elements_.push_back(std::move(*it));
    } else {
      elements_.push_front(std::move(*it));
    }
  }
  a->elements.clear();
}

void Queue::Close(bool cancel_pending_enqueues) {
  std::vector<Finished> finished;
  {
    absl::MutexLock lock(&mu_);
    closed_ = true;
    if (cancel_pending_enqueues) {
      while (!enqueues_.empty()) {
        finished.push_back({std::move(enqueues_.front()), ClosedError()});
        enqueues_.pop_front();
      }
    }
    FlushLocked(&finished);
  }
  Finish(std::move(finished));
}

void Queue::FlushLocked(std::vector<Finished>* finished) {
  for (;;) {
    bool progress = false;
    while (!enqueues_.empty()) {
      Attempt* a = enqueues_.front().get();
      while (a->next < a->elements.size() &&
             static_cast<int64_t>(elements_.size()) < capacity_) {
        bytes_ += TupleBytes(a->elements[a->next]);
        elements_.push_back(std::move(a->elements[a->next++]));
        if (priority()) {
          std::push_heap(elements_.begin(), elements_.end(), PriorityAfter);
        }
        progress = true;
      }
      if (a->next < a->elements.size()) break;
      finished->push_back({std::move(enqueues_.front()), absl::OkStatus()});
      enqueues_.pop_front();
      progress = true;
    }
    while (!dequeues_.empty()) {
      Attempt* d = dequeues_.front().get();
      if (priority()) {
        absl::Status status;
        if (!PriorityDequeueLocked(d, &status)) break;
        finished->push_back({std::move(dequeues_.front()), status});
        dequeues_.pop_front();
        progress = true;
        continue;
      }
      if (shuffle_.has_value()) {
        absl::Status status;
        if (!ShuffleDequeueLocked(d, &status, &progress)) break;
        finished->push_back({std::move(dequeues_.front()), status});
        dequeues_.pop_front();
        progress = true;
        continue;
      }
      while (static_cast<int64_t>(d->elements.size()) < d->n &&
             !elements_.empty()) {
        bytes_ -= TupleBytes(elements_.front());
        d->elements.push_back(std::move(elements_.front()));
        elements_.pop_front();
        progress = true;
      }
      absl::Status status;
      if (static_cast<int64_t>(d->elements.size()) == d->n) {
        status = absl::OkStatus();
      } else if (closed_ && enqueues_.empty()) {
        if (!(d->up_to && !d->elements.empty())) {
          Unwind(d);
          status = absl::OutOfRangeError(absl::StrCat(
              kind_, " '", name_, "' is closed and has insufficient elements "
              "(requested ", d->n, ", current size ",
              static_cast<int64_t>(elements_.size()), ")"));
        }
      } else {
        break;  // waits for more
      }
      finished->push_back({std::move(dequeues_.front()), status});
      dequeues_.pop_front();
      progress = true;
    }
    if (!progress) return;
  }
}

Queue::Tuple Queue::TakeRandomLocked() {
  const size_t index = words_() % elements_.size();
  Tuple t = std::move(elements_[index]);
  if (index + 1 != elements_.size()) {
    elements_[index] = std::move(elements_.back());
  }
  elements_.pop_back();
  bytes_ -= TupleBytes(t);
  return t;
}

bool Queue::PriorityDequeueLocked(Attempt* d, absl::Status* status) {
  const int64_t size = static_cast<int64_t>(elements_.size());
  int64_t take = d->n;
  if (size < d->n) {
    // TensorFlow's DequeueMany takes nothing until all n are there, so
    // that a batch comes out sorted.
    if (!(closed_ && enqueues_.empty())) return false;
    if (!(d->up_to && size > 0)) {
      *status = absl::OutOfRangeError(absl::StrCat(
          kind_, " '", name_, "' is closed and has insufficient elements "
          "(requested ", d->n, ", current size ", size, ")"));
      return true;
    }
    // DequeueUpTo of a closed queue: what there is. (TensorFlow's takes
    // those, then fails OutOfRange for the rest and loses them.)
    take = size;
  }
  for (int64_t i = 0; i < take; ++i) {
    std::pop_heap(elements_.begin(), elements_.end(), PriorityAfter);
    bytes_ -= TupleBytes(elements_.back());
    d->elements.push_back(std::move(elements_.back()));
    elements_.pop_back();
  }
  *status = absl::OkStatus();
  return true;
}

bool Queue::ShuffleDequeueLocked(Attempt* d, absl::Status* status,
                                 bool* progress) {
  // Closed, with no enqueue still to add: TensorFlow's close takes effect
  // after the enqueues before it, and a closed queue ignores
  // min_after_dequeue.
  const bool closed = closed_ && enqueues_.empty();
  const int64_t size = static_cast<int64_t>(elements_.size());
  const int64_t wanted = d->n - static_cast<int64_t>(d->elements.size());
  if (closed && size < wanted) {
    // The elements taken go back, last first; DequeueUpTo then takes
    // whatever is there afresh.
    Unwind(d);
    if (d->up_to && !elements_.empty()) {
      d->n = static_cast<int64_t>(elements_.size());
    } else {
      *status = absl::OutOfRangeError(absl::StrCat(
          kind_, " '", name_, "' is closed and has insufficient elements "
          "(requested ", wanted, ", current size ", size, ")"));
      return true;
    }
  }
  int64_t available = static_cast<int64_t>(elements_.size()) -
                      (closed ? 0 : shuffle_->min_after_dequeue);
  while (static_cast<int64_t>(d->elements.size()) < d->n && available > 0) {
    d->elements.push_back(TakeRandomLocked());
    --available;
    *progress = true;
  }
  if (static_cast<int64_t>(d->elements.size()) < d->n) return false;
  *status = absl::OkStatus();
  return true;
}

void Queue::Finish(std::vector<Finished> finished) {
  for (Finished& f : finished) {
    Attempt* a = f.attempt.get();
    // Before `done`: after it the step (and its manager) may be gone.
    DisarmWait(&a->ends);
    if (a->enqueue) {
      a->enqueue_done(std::move(f.status));
    } else {
      a->dequeue_done(std::move(f.status), std::move(a->elements));
    }
  }
}

}  // namespace dfx::data_flow

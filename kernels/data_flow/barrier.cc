#include "kernels/data_flow/barrier.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "kernels/data_flow/data_flow_util.h"

namespace dfx::data_flow {
namespace {

constexpr int kTakes = 0;  // the WaitList lane of takes: arrival order

}  // namespace

Barrier::Barrier(std::string name, DataTypeVector types,
                 std::vector<TensorShape> shapes)
    : name_(std::move(name)),
      types_(std::move(types)),
      shapes_(std::move(shapes)),
      input_index_(std::numeric_limits<int64_t>::min()) {}

std::string Barrier::DebugString() const {
  absl::MutexLock lock(&mu_);
  return absl::StrCat("Barrier '", name_, "': ", ready_.size(), " ready, ",
                      incomplete_.size(), " incomplete",
                      closed_ ? ", closed" : "");
}

int64_t Barrier::MemoryUsed() const {
  absl::MutexLock lock(&mu_);
  return bytes_;
}

int64_t Barrier::ReadySize() const {
  absl::MutexLock lock(&mu_);
  return static_cast<int64_t>(ready_.size());
}

int64_t Barrier::IncompleteSize() const {
  absl::MutexLock lock(&mu_);
  return static_cast<int64_t>(incomplete_.size());
}

absl::Status Barrier::InsertMany(const std::vector<std::string>& keys,
                                 int component, const Tensor& values,
                                 Allocator* allocator) {
  if (!keys.empty() && values.NumElements() == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("Tensors with no elements are not supported ", name_,
                     ": received shape ", values.shape().DebugString()));
  }
  if (!keys.empty() &&
      (values.dims() < 1 ||
       values.dim_size(0) != static_cast<int64_t>(keys.size()))) {
    return absl::InvalidArgumentError(absl::StrCat(
        "BarrierInsertMany of ", keys.size(), " keys into barrier '", name_,
        "' needs values of shape [", keys.size(), ", ...], got ",
        values.shape().DebugString()));
  }
  if (!keys.empty() && !CanMove(values.dtype())) {
    return absl::UnimplementedError(
        absl::StrCat("BarrierInsertMany cannot split ",
                     DataTypeString(values.dtype()), " tensors"));
  }
  TensorShape row = values.shape();
  if (row.dims() > 0) row.RemoveDim(0);
  const int64_t row_size = row.num_elements();
  // Each row its own buffer: an element must not keep the batch alive.
  std::vector<Tensor> rows;
  for (size_t i = 0; i < keys.size(); ++i) {
    absl::StatusOr<Tensor> r = Tensor::Allocate(allocator, values.dtype(), row);
    if (!r.ok()) return r.status();
    CopyElements(values, static_cast<int64_t>(i) * row_size, &*r, 0, row_size);
    rows.push_back(*std::move(r));
  }
  WaitList::FinishedList finished;
  absl::Status status;
  {
    absl::MutexLock lock(&mu_);
    if (closed_ &&
        (cancel_pending_enqueues_ || (!keys.empty() && incomplete_.empty()))) {
      return absl::CancelledError(absl::StrCat(
          "Barrier ", name_, " is closed.  Pending enqueues cancelled: ",
          cancel_pending_enqueues_ ? 1 : 0,
          ".  Number of new insertions: ", keys.size(),
          ".  Number of incomplete keys: ", incomplete_.size(), "."));
    }
    bool new_keys = false;
    std::vector<Element> completed;
    for (size_t i = 0; i < keys.size() && status.ok(); ++i) {
      status = InsertOneLocked(keys[i], component, std::move(rows[i]),
                               &new_keys, &completed);
    }
    // As TensorFlow's: a failed insert keeps what it put into incomplete
    // elements, but the elements it completed are lost and the insertion
    // index stays.
    if (!status.ok()) {
      for (const Element& e : completed) bytes_ -= TupleBytes(e.values);
      return status;
    }
    if (new_keys) ++input_index_;
    for (Element& e : completed) ready_.push(std::move(e));
    waits_.FlushLocked(&finished);
  }
  WaitList::Finish(std::move(finished));
  return status;
}

absl::Status Barrier::InsertOneLocked(const std::string& key, int component,
                                      Tensor value, bool* new_key,
                                      std::vector<Element>* completed) {
  auto it = incomplete_.find(key);
  if (it == incomplete_.end()) {
    if (closed_) {
      return absl::CancelledError(absl::StrCat(
          "Barrier ", name_,
          " is closed, but attempted to insert a brand new key: ", key,
          ".  Pending enqueues cancelled: ", cancel_pending_enqueues_ ? 1 : 0,
          ".  Number of incomplete keys: ", incomplete_.size(), "."));
    }
    *new_key = true;
    Incomplete e;
    e.index = input_index_;
    e.values.resize(types_.size());
    it = incomplete_.emplace(key, std::move(e)).first;
  }
  Incomplete& e = it->second;
  if (e.values[component].has_value()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Key ", key, " already has a value for component ",
                     component, " in barrier ", name_));
  }
  bytes_ += static_cast<int64_t>(value.TotalBytes());
  e.values[component] = std::move(value);
  for (const std::optional<Tensor>& v : e.values) {
    if (!v.has_value()) return absl::OkStatus();
  }
  // Complete: ready, once its shapes are the barrier's.
  Element ready{e.index, key, {}};
  for (std::optional<Tensor>& v : e.values) ready.values.push_back(*v);
  incomplete_.erase(it);
  for (size_t j = 0; j < shapes_.size(); ++j) {
    if (ready.values[j].shape() != shapes_[j]) {
      bytes_ -= TupleBytes(ready.values);
      return absl::InvalidArgumentError(
          absl::StrCat("Shape mismatch in tuple component ", j + 2,
                       ". Expected ", shapes_[j].DebugString(), ", got ",
                       ready.values[j].shape().DebugString(), " (barrier '",
                       name_, "', key ", key, ")"));
    }
  }
  completed->push_back(std::move(ready));
  return absl::OkStatus();
}

void Barrier::TakeMany(int64_t n, bool allow_small_batch,
                       CancellationManager* cm, int64_t timeout_ms,
                       TakeDone done) {
  int64_t wanted = n;
  absl::Status early;
  {
    absl::MutexLock lock(&mu_);
    if (closed_) {
      int64_t available = static_cast<int64_t>(ready_.size());
      if (allow_small_batch) {
        wanted = std::min(n, available);
      } else {
        available += static_cast<int64_t>(incomplete_.size());
      }
      if (available < std::max<int64_t>(wanted, 1)) {
        early = absl::OutOfRangeError(
            absl::StrCat("Barrier '", name_,
                         "' is closed and has insufficient elements "
                         "(requested ",
                         wanted, ", total size ", available, ")"));
      }
    }
  }
  if (!early.ok()) {
    done(std::move(early), {});
    return;
  }
  if (wanted == 0) {
    done(absl::OkStatus(), {});
    return;
  }
  auto taken = std::make_shared<std::vector<Element>>();
  StartWait(
      kTakes,
      [this, taken, wanted, allow_small_batch](absl::Status* status) {
        mu_.AssertHeld();
        const int64_t size = static_cast<int64_t>(ready_.size());
        int64_t n = wanted;
        if (size < wanted) {
          if (!ready_closed_) return false;
          // Closed while it waited: a small batch takes what is ready.
          if (size == 0 || !allow_small_batch) {
            *status = absl::OutOfRangeError(
                absl::StrCat("Barrier '", name_,
                             "' is closed and has insufficient "
                             "elements (requested ",
                             wanted, ", current size ", size, ")"));
            return true;
          }
          n = size;
        }
        for (int64_t i = 0; i < n; ++i) {
          bytes_ -= TupleBytes(ready_.top().values);
          taken->push_back(ready_.top());
          ready_.pop();
        }
        *status = absl::OkStatus();
        return true;
      },
      [taken, done = std::move(done)](absl::Status s) {
        done(std::move(s), std::move(*taken));
      },
      cm, timeout_ms,
      absl::StrCat("TakeMany operation on barrier '", name_, "'"));
}

absl::Status Barrier::Close(bool cancel_pending_enqueues) {
  WaitList::FinishedList finished;
  {
    absl::MutexLock lock(&mu_);
    if (closed_ && (cancel_pending_enqueues_ || !cancel_pending_enqueues)) {
      return absl::CancelledError(
          absl::StrCat("Barrier '", name_, "' is already closed."));
    }
    closed_ = true;
    cancel_pending_enqueues_ = cancel_pending_enqueues;
    if (cancel_pending_enqueues || incomplete_.empty()) {
      for (auto& [key, e] : incomplete_) {
        for (const std::optional<Tensor>& v : e.values) {
          if (v.has_value()) bytes_ -= static_cast<int64_t>(v->TotalBytes());
        }
      }
      incomplete_.clear();
      ready_closed_ = true;
      waits_.FlushLocked(&finished);
    }
  }
  WaitList::Finish(std::move(finished));
  return absl::OkStatus();
}

}  // namespace dfx::data_flow

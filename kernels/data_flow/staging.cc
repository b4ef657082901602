#include "kernels/data_flow/staging.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "kernels/data_flow/data_flow_util.h"

namespace dfx::data_flow {
namespace {

// Lanes of the areas' WaitLists: puts, and gets without a key, go on in
// arrival order; peeks and keyed gets wait for nobody.
constexpr int kPuts = 0;
constexpr int kGets = 1;
constexpr int kAnyOrder = -1;

absl::Status TooLarge(int64_t bytes, int64_t memory_limit) {
  return absl::ResourceExhaustedError(
      absl::StrCat("Attempted to insert tensors with combined size of '", bytes,
                   "' bytes into Staging Area with a memory limit of '",
                   memory_limit, "'."));
}

}  // namespace

// --- StagingArea

StagingArea::StagingArea(std::string name, int64_t capacity,
                         int64_t memory_limit)
    : name_(std::move(name)),
      capacity_(capacity),
      memory_limit_(memory_limit) {}

std::string StagingArea::DebugString() const {
  absl::MutexLock lock(&mu_);
  return absl::StrCat("StagingArea '", name_, "': ", tuples_.size(),
                      " tuples, ", bytes_, " bytes");
}

int64_t StagingArea::MemoryUsed() const {
  absl::MutexLock lock(&mu_);
  return bytes_;
}

int64_t StagingArea::Size() const {
  absl::MutexLock lock(&mu_);
  return static_cast<int64_t>(tuples_.size());
}

std::string StagingArea::On(const std::string& what) const {
  return absl::StrCat(what, " on StagingArea '", name_, "'");
}

bool StagingArea::Fits(int64_t bytes) const {
  if (capacity_ > 0 && static_cast<int64_t>(tuples_.size()) >= capacity_) {
    return false;
  }
  return memory_limit_ <= 0 || bytes_ + bytes <= memory_limit_;
}

void StagingArea::Put(StagedTuple tuple, CancellationManager* cm,
                      StatusDone done) {
  const int64_t bytes = TupleBytes(tuple);
  // It could never fit: fail rather than wait for ever.
  if (memory_limit_ > 0 && bytes > memory_limit_) {
    done(TooLarge(bytes, memory_limit_));
    return;
  }
  auto held = std::make_shared<StagedTuple>(std::move(tuple));
  StartWait(
      kPuts,
      [this, held, bytes](absl::Status* status) {
        mu_.AssertHeld();
        if (!Fits(bytes)) return false;
        tuples_.push_back(std::move(*held));
        bytes_ += bytes;
        *status = absl::OkStatus();
        return true;
      },
      std::move(done), cm, /*timeout_ms=*/-1, On("Stage"));
}

void StagingArea::Get(CancellationManager* cm, TupleDone done) {
  auto out = std::make_shared<StagedTuple>();
  StartWait(
      kGets,
      [this, out](absl::Status* status) {
        mu_.AssertHeld();
        if (tuples_.empty()) return false;
        *out = std::move(tuples_.front());
        tuples_.pop_front();
        bytes_ -= TupleBytes(*out);
        *status = absl::OkStatus();
        return true;
      },
      [out, done = std::move(done)](absl::Status s) {
        done(std::move(s), std::move(*out));
      },
      cm, /*timeout_ms=*/-1, On("Unstage"));
}

void StagingArea::Peek(int64_t index, CancellationManager* cm, TupleDone done) {
  auto out = std::make_shared<StagedTuple>();
  StartWait(
      kAnyOrder,
      [this, out, index](absl::Status* status) {
        mu_.AssertHeld();
        if (index >= static_cast<int64_t>(tuples_.size())) return false;
        *out = tuples_[index];
        *status = absl::OkStatus();
        return true;
      },
      [out, done = std::move(done)](absl::Status s) {
        done(std::move(s), std::move(*out));
      },
      cm, /*timeout_ms=*/-1, On(absl::StrCat("StagePeek of index ", index)));
}

void StagingArea::Clear() {
  WaitList::FinishedList finished;
  {
    absl::MutexLock lock(&mu_);
    tuples_.clear();
    bytes_ = 0;
    waits_.FlushLocked(&finished);
  }
  WaitList::Finish(std::move(finished));
}

// --- StagingMap

template <bool Ordered>
StagingMap<Ordered>::StagingMap(std::string name, DataTypeVector dtypes,
                                int64_t capacity, int64_t memory_limit)
    : name_(std::move(name)),
      dtypes_(std::move(dtypes)),
      capacity_(capacity),
      memory_limit_(memory_limit) {}

template <bool Ordered>
std::string StagingMap<Ordered>::DebugString() const {
  absl::MutexLock lock(&mu_);
  return absl::StrCat(kTypeName, " '", name_, "': ", map_.size(),
                      " complete and ", incomplete_.size(),
                      " incomplete tuples, ", bytes_, " bytes");
}

template <bool Ordered>
int64_t StagingMap<Ordered>::MemoryUsed() const {
  absl::MutexLock lock(&mu_);
  return bytes_;
}

template <bool Ordered>
int64_t StagingMap<Ordered>::Size() const {
  absl::MutexLock lock(&mu_);
  return static_cast<int64_t>(map_.size());
}

template <bool Ordered>
int64_t StagingMap<Ordered>::IncompleteSize() const {
  absl::MutexLock lock(&mu_);
  return static_cast<int64_t>(incomplete_.size());
}

template <bool Ordered>
std::string StagingMap<Ordered>::On(const std::string& what) const {
  return absl::StrCat(what, " on ", kTypeName, " '", name_, "'");
}

template <bool Ordered>
bool StagingMap<Ordered>::Fits(int64_t bytes) const {
  return memory_limit_ <= 0 || bytes_ + bytes <= memory_limit_;
}

template <bool Ordered>
absl::Status StagingMap<Ordered>::CheckIndices(
    int64_t key, const std::vector<int32_t>& indices) const {
  for (size_t i = 0; i + 1 < indices.size(); ++i) {
    if (indices[i] >= indices[i + 1]) {
      return absl::InvalidArgumentError("Indices are not strictly ordered");
    }
  }
  for (int32_t index : indices) {
    if (index < 0 || index >= static_cast<int64_t>(dtypes_.size())) {
      return absl::InvalidArgumentError(
          absl::StrCat("Index '", index, "' for key '", key,
                       "' was out of bounds '", dtypes_.size(), "'."));
    }
  }
  return absl::OkStatus();
}

template <bool Ordered>
absl::Status StagingMap<Ordered>::TakeLocked(
    int64_t key, const std::vector<int32_t>& indices, bool remove,
    typename MapType::iterator entry, StagedTuple* out) {
  OptionalTuple& tuple = entry->second;
  // All or nothing (TensorFlow's may take some and then fail).
  for (int32_t index : indices) {
    if (!tuple[index].has_value()) {
      return absl::InvalidArgumentError(
          absl::StrCat("Tensor at index '", index, "' for key '", key,
                       "' has already been removed."));
    }
  }
  for (int32_t index : indices) {
    out->push_back(*tuple[index]);
    if (remove) tuple[index].reset();
  }
  if (!remove) return absl::OkStatus();
  bytes_ -= TupleBytes(*out);
  if (std::none_of(
          tuple.begin(), tuple.end(),
          [](const std::optional<Tensor>& t) { return t.has_value(); })) {
    map_.erase(entry);
  }
  return absl::OkStatus();
}

template <bool Ordered>
void StagingMap<Ordered>::Put(int64_t key, std::vector<int32_t> indices,
                              StagedTuple values, CancellationManager* cm,
                              StatusDone done) {
  if (indices.size() != values.size()) {
    done(absl::InvalidArgumentError(
        absl::StrCat("MapStage of key '", key, "' has ", values.size(),
                     " values but ", indices.size(), " indices")));
    return;
  }
  absl::Status checked = CheckIndices(key, indices);
  if (!checked.ok()) {
    done(std::move(checked));
    return;
  }
  const int64_t bytes = TupleBytes(values);
  if (memory_limit_ > 0 && bytes > memory_limit_) {
    done(TooLarge(bytes, memory_limit_));
    return;
  }
  struct Args {
    int64_t key;
    std::vector<int32_t> indices;
    StagedTuple values;
  };
  auto args =
      std::make_shared<Args>(Args{key, std::move(indices), std::move(values)});
  StartWait(
      kAnyOrder,
      [this, args, bytes](absl::Status* status) {
        mu_.AssertHeld();
        const bool complete = args->indices.size() == dtypes_.size();
        if (!Fits(bytes)) return false;
        if (complete && capacity_ > 0 &&
            static_cast<int64_t>(map_.size()) >= capacity_) {
          return false;
        }
        *status = absl::OkStatus();
        if (complete) {
          OptionalTuple tuple(args->values.begin(), args->values.end());
          // As TensorFlow's: a key already there keeps its tuple.
          if (map_.emplace(args->key, std::move(tuple)).second) {
            bytes_ += bytes;
          }
          return true;
        }
        auto it = incomplete_.find(args->key);
        if (it == incomplete_.end()) {
          it = incomplete_.emplace(args->key, OptionalTuple(dtypes_.size()))
                   .first;
        } else {
          for (int32_t index : args->indices) {
            if (it->second[index].has_value()) {
              *status = absl::InvalidArgumentError(absl::StrCat(
                  "The tensor for index '", index, "' for key '", args->key,
                  "' was already initialized '", dtypes_.size(), "'."));
              return true;
            }
          }
        }
        for (size_t i = 0; i < args->indices.size(); ++i) {
          it->second[args->indices[i]] = std::move(args->values[i]);
        }
        bytes_ += bytes;
        if (std::all_of(
                it->second.begin(), it->second.end(),
                [](const std::optional<Tensor>& t) { return t.has_value(); })) {
          int64_t tuple_bytes = 0;
          for (const std::optional<Tensor>& t : it->second) {
            tuple_bytes += static_cast<int64_t>(t->TotalBytes());
          }
          OptionalTuple tuple = std::move(it->second);
          incomplete_.erase(it);
          // A key complete already keeps its tuple; this one is dropped.
          if (!map_.emplace(args->key, std::move(tuple)).second) {
            bytes_ -= tuple_bytes;
          }
        }
        return true;
      },
      std::move(done), cm, /*timeout_ms=*/-1,
      On(absl::StrCat("MapStage of key ", key)));
}

template <bool Ordered>
void StagingMap<Ordered>::Get(int64_t key, std::vector<int32_t> indices,
                              bool remove, CancellationManager* cm,
                              TupleDone done) {
  absl::Status checked = CheckIndices(key, indices);
  if (!checked.ok()) {
    done(std::move(checked), {});
    return;
  }
  auto out = std::make_shared<StagedTuple>();
  StartWait(
      kAnyOrder,
      [this, out, key, indices = std::move(indices),
       remove](absl::Status* status) {
        mu_.AssertHeld();
        auto it = map_.find(key);
        if (it == map_.end()) return false;
        *status = TakeLocked(key, indices, remove, it, out.get());
        return true;
      },
      [out, done = std::move(done)](absl::Status s) {
        done(std::move(s), std::move(*out));
      },
      cm, /*timeout_ms=*/-1,
      On(absl::StrCat(remove ? "MapUnstage" : "MapPeek", " of key ", key)));
}

template <bool Ordered>
void StagingMap<Ordered>::GetAny(std::vector<int32_t> indices,
                                 CancellationManager* cm, KeyDone done) {
  absl::Status checked = CheckIndices(0, indices);
  if (!checked.ok()) {
    done(std::move(checked), 0, {});
    return;
  }
  auto out = std::make_shared<StagedTuple>();
  auto key = std::make_shared<int64_t>(0);
  StartWait(
      kGets,
      [this, out, key, indices = std::move(indices)](absl::Status* status) {
        mu_.AssertHeld();
        if (map_.empty()) return false;
        auto it = map_.begin();
        *key = it->first;
        *status = TakeLocked(*key, indices, /*remove=*/true, it, out.get());
        return true;
      },
      [out, key, done = std::move(done)](absl::Status s) {
        done(std::move(s), *key, std::move(*out));
      },
      cm, /*timeout_ms=*/-1, On("MapUnstageNoKey"));
}

template <bool Ordered>
void StagingMap<Ordered>::Clear() {
  WaitList::FinishedList finished;
  {
    absl::MutexLock lock(&mu_);
    map_.clear();
    incomplete_.clear();
    bytes_ = 0;
    waits_.FlushLocked(&finished);
  }
  WaitList::Finish(std::move(finished));
}

template class StagingMap<true>;
template class StagingMap<false>;

}  // namespace dfx::data_flow

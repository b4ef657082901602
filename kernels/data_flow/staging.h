// The staging resources of TensorFlow's StagingArea (Stage, Unstage,
// StagePeek, StageSize, StageClear) and MapStagingArea (MapStage, MapPeek,
// MapUnstage, MapUnstageNoKey, MapSize, MapIncompleteSize, MapClear and
// their Ordered* forms), shared by the steps and sessions that name them.
//
// A put into a full area and a get or peek of what is not there yet do not
// hold a thread, unlike TensorFlow's, which block a kernel thread on a
// condition variable with no way out: the operation waits in the area's
// WaitList (kernels/data_flow/wait.h) with its callback, goes on when a
// later operation makes room or brings what it waits for, and ends with
// Cancelled when its step is cancelled. Callbacks run without the area's
// lock held, on the thread that ended the wait.
//
// Memory: an area holds its tuples' tensors; MemoryUsed reports their
// bytes, which memory_limit bounds.
#ifndef DFX_KERNELS_DATA_FLOW_STAGING_H_
#define DFX_KERNELS_DATA_FLOW_STAGING_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "graph/types.h"
#include "kernels/data_flow/wait.h"
#include "runtime/cancellation.h"
#include "runtime/resource_mgr.h"
#include "runtime/tensor.h"

namespace dfx::data_flow {

using StagedTuple = std::vector<Tensor>;
using StatusDone = std::function<void(absl::Status)>;
using TupleDone = std::function<void(absl::Status, StagedTuple)>;

// TensorFlow's StagingArea: a FIFO of tuples. capacity > 0 bounds the
// number of tuples, memory_limit > 0 their bytes (0: unbounded).
class StagingArea : public WaitingResource {
 public:
  static constexpr const char* kTypeName = "StagingArea";

  StagingArea(std::string name, int64_t capacity, int64_t memory_limit);

  std::string TypeName() const override { return kTypeName; }
  std::string DebugString() const override;
  int64_t MemoryUsed() const override;

  // Adds `tuple` at the back, waiting while the area is full. `done`: OK
  // once added; ResourceExhausted at once when the tuple alone exceeds
  // memory_limit; Cancelled when `cm` (may be null) is cancelled first.
  void Put(StagedTuple tuple, CancellationManager* cm, StatusDone done);
  // Takes the front tuple, waiting while the area is empty; Cancelled as
  // for Put.
  void Get(CancellationManager* cm, TupleDone done);
  // The tuple at `index` (0: the front), left in place, waiting until the
  // area holds more than `index` tuples; Cancelled as for Put.
  void Peek(int64_t index, CancellationManager* cm, TupleDone done);
  int64_t Size() const;
  // Drops every tuple (waiting puts may then go on).
  void Clear();

 private:
  bool Fits(int64_t bytes) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // "<what> on StagingArea '<name>'", for messages.
  std::string On(const std::string& what) const;

  const std::string name_;
  const int64_t capacity_;
  const int64_t memory_limit_;

  std::deque<StagedTuple> tuples_ ABSL_GUARDED_BY(mu_);
  int64_t bytes_ ABSL_GUARDED_BY(mu_) = 0;
};

// TensorFlow's StagingMap: tuples of `dtypes` by int64 key, each complete
// once every component is in (a put may bring some components, `indices`;
// the rest wait as an incomplete entry); a get or peek takes or copies some
// components of a complete tuple, which leaves the map once every one is
// taken. Ordered: keys in order (a get without a key takes the smallest);
// else a hash map (one without a key takes the first in its order, as
// TensorFlow's unordered_map does). capacity bounds the complete tuples,
// memory_limit the bytes of all (0: unbounded).
template <bool Ordered>
class StagingMap : public WaitingResource {
 public:
  static constexpr const char* kTypeName =
      Ordered ? "OrderedStagingMap" : "StagingMap";
  using KeyDone = std::function<void(absl::Status, int64_t, StagedTuple)>;

  StagingMap(std::string name, DataTypeVector dtypes, int64_t capacity,
             int64_t memory_limit);

  std::string TypeName() const override { return kTypeName; }
  std::string DebugString() const override;
  int64_t MemoryUsed() const override;
  const DataTypeVector& dtypes() const { return dtypes_; }

  // Puts `values` as the components `indices` (strictly increasing, one per
  // value) of the tuple `key`. All of them: a complete tuple, which waits
  // while the map holds `capacity` complete tuples; some: into the
  // incomplete entry of `key`, complete once all are in. Both wait while
  // memory_limit would be exceeded. InvalidArgument for bad indices or a
  // component the entry has already; ResourceExhausted when the values
  // alone exceed memory_limit; Cancelled when `cm` is cancelled first.
  void Put(int64_t key, std::vector<int32_t> indices, StagedTuple values,
           CancellationManager* cm, StatusDone done);
  // The components `indices` of complete tuple `key`, waiting until it is
  // there: removed from the tuple when `remove` (MapUnstage), copied
  // (MapPeek). InvalidArgument for bad indices or a component taken
  // already; Cancelled as for Put.
  void Get(int64_t key, std::vector<int32_t> indices, bool remove,
           CancellationManager* cm, TupleDone done);
  // Removes the components `indices` of the first complete tuple (see the
  // class comment), waiting until there is one; its key to `done`.
  void GetAny(std::vector<int32_t> indices, CancellationManager* cm,
              KeyDone done);
  int64_t Size() const;
  int64_t IncompleteSize() const;
  void Clear();

 private:
  using OptionalTuple = std::vector<std::optional<Tensor>>;
  using MapType =
      std::conditional_t<Ordered, std::map<int64_t, OptionalTuple>,
                         std::unordered_map<int64_t, OptionalTuple>>;

  absl::Status CheckIndices(int64_t key,
                            const std::vector<int32_t>& indices) const;
  // Takes or copies the components `indices` of `entry` into *out.
  absl::Status TakeLocked(int64_t key, const std::vector<int32_t>& indices,
                          bool remove, typename MapType::iterator entry,
                          StagedTuple* out) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool Fits(int64_t bytes) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::string On(const std::string& what) const;

  const std::string name_;
  const DataTypeVector dtypes_;
  const int64_t capacity_;
  const int64_t memory_limit_;

  MapType map_ ABSL_GUARDED_BY(mu_);
  std::unordered_map<int64_t, OptionalTuple> incomplete_ ABSL_GUARDED_BY(mu_);
  int64_t bytes_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace dfx::data_flow

#endif  // DFX_KERNELS_DATA_FLOW_STAGING_H_

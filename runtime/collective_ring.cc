#include "runtime/collective_ring.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "base/log.h"
#include "graph/device_name.h"
#include "graph/types.h"
#include "runtime/allocator.h"
#include "runtime/thread_pool.h"
#include "runtime/types.h"

namespace dfx {
namespace {

int Mod(int64_t a, int n) { return static_cast<int>(((a % n) + n) % n); }

// [offset, offset + count) of a flat tensor, in elements.
struct Range {
  int64_t offset = 0;
  int64_t count = 0;
};

// `total` split into `parts` ranges of sizes differing by at most one.
Range Split(int64_t offset, int64_t total, int parts, int index) {
  const int64_t base = total / parts;
  const int64_t extra = total % parts;
  Range r;
  r.offset = offset + index * base + std::min<int64_t>(index, extra);
  r.count = base + (index < extra ? 1 : 0);
  return r;
}

std::string DeviceKeyName(const CollectiveRun& run, int member, int dst,
                          absl::string_view name) {
  const DeviceAttributes& src = run.group->members[member];
  return Rendezvous::CreateKey(src.name(), src.incarnation(),
                               run.group->members[dst].name(), name);
}

absl::StatusOr<Rendezvous::ParsedKey> Key(const CollectiveRun& run, int src,
                                          int dst, absl::string_view kind,
                                          int piece, int step) {
  return Rendezvous::ParsedKey::Parse(DeviceKeyName(
      run, src, dst,
      absl::StrCat("coll:", run.instance_key, ":", kind, ":", piece, ":",
                   step)));
}

// out[i] = (a[i] (op) b[i]) / divisor, vectorized (Eigen arrays).
template <typename T>
void MergeInto(const T* a, const T* b, T* out, int64_t n, ReduceOp op,
               int divisor) {
  using Array = Eigen::Array<T, Eigen::Dynamic, 1>;
  Eigen::Map<const Array> x(a, n);
  Eigen::Map<const Array> y(b, n);
  Eigen::Map<Array> o(out, n);
  const T d = static_cast<T>(divisor);
  const bool div = divisor > 1;
  switch (op) {
    case ReduceOp::kAdd:
      if (div) {
        o = (x + y) / d;
      } else {
        o = x + y;
      }
      return;
    case ReduceOp::kMul:
      if (div) {
        o = (x * y) / d;
      } else {
        o = x * y;
      }
      return;
    case ReduceOp::kMin:
      o = (y < x).select(y, x);
      break;
    case ReduceOp::kMax:
      o = (x < y).select(y, x);
      break;
  }
  if (div) o = o / d;
}

template <typename Fn>
bool VisitReduceType(DataType dtype, Fn&& fn) {
  switch (dtype) {
    case DT_FLOAT: fn.template operator()<float>(); return true;
    case DT_DOUBLE: fn.template operator()<double>(); return true;
    case DT_HALF: fn.template operator()<Eigen::half>(); return true;
    case DT_BFLOAT16: fn.template operator()<Eigen::bfloat16>(); return true;
    case DT_INT32: fn.template operator()<int32_t>(); return true;
    case DT_INT64: fn.template operator()<int64_t>(); return true;
    default: return false;
  }
}

// A reduction block smaller than this is not worth a thread of its own.
constexpr int64_t kMinMergeBlockBytes = int64_t{256} << 10;

// out = (a (op) b) / divisor over `count` elements of `dtype`, on `pool`
// (cut into up to one block per thread) or, without one, here; `then`
// runs once, after the last block, on the thread that finished it.
void MergeAsync(ThreadPool* pool, DataType dtype, const void* a,
                const void* b, void* out, int64_t count, ReduceOp op,
                int divisor, std::function<void()> then) {
  const int64_t elem = DataTypeSize(dtype);
  auto merge = [dtype, op, divisor](const char* a, const char* b, char* out,
                                    int64_t n) {
    VisitReduceType(dtype, [&]<typename T>() {
      MergeInto<T>(reinterpret_cast<const T*>(a),
                   reinterpret_cast<const T*>(b), reinterpret_cast<T*>(out), n,
                   op, divisor);
    });
  };
  const char* ca = static_cast<const char*>(a);
  const char* cb = static_cast<const char*>(b);
  char* co = static_cast<char*>(out);
  if (pool == nullptr) {
    merge(ca, cb, co, count);
    then();
    return;
  }
  const int blocks = static_cast<int>(std::clamp<int64_t>(
      count * elem / kMinMergeBlockBytes, 1, pool->NumThreads()));
  struct Shared {
    std::atomic<int> left;
    std::function<void()> then;
  };
  auto shared = std::make_shared<Shared>();
  shared->left.store(blocks);
  shared->then = std::move(then);
  for (int i = 0; i < blocks; ++i) {
    const Range r = Split(0, count, blocks, i);
    pool->Schedule([shared, merge, ca, cb, co, r, elem] {
      merge(ca + r.offset * elem, cb + r.offset * elem, co + r.offset * elem,
            r.count);
      if (shared->left.fetch_sub(1) == 1) {
        std::function<void()> then = std::move(shared->then);
        then();
      }
    });
  }
}

// What a Ring computes.
enum class RingMode {
  // Reduce-scatter then all-gather: every member gets the whole reduction.
  kAllReduce,
  // The reduce-scatter half: member r gets segment r of the reduction.
  kReduceScatter,
  // The all-gather half: member r's input is segment r of the output.
  kAllGather,
};

// The state of one ring collective at one member, shared by the callbacks
// of its transfers.
//
// The tensor is cut into one segment per member and each segment into
// pieces. Reduce-scatter: at step s (0 <= s < n-1) member r sends its
// partial reduction of segment r-1-s to member r+1 and receives that of
// segment r-2-s from member r-1, which it merges with its own input; after
// the last step it holds the whole reduction of segment r. All-gather: at
// step t member r sends segment r-t (its own first, then what it received
// the step before) and receives segment r-1-t. Each piece walks these
// steps on its own, so pieces overlap on the wire and in the reductions.
//
// Where merged pieces live: a partial reduction (every reduce-scatter step
// but the last) in a piece of its own, the final one in the output. A
// region of the output is written once, and nothing that was sent is
// written again: the ring does not rely on a peer's answer to know that a
// transfer has finished reading its bytes (an all-reduce that merged
// partials into the output and overwrote them with the final value was
// correct by causality, but the sending thread may still be inside its
// sendmsg when the final value arrives, which ThreadSanitizer, seeing one
// process, reports as a race). Scratch pieces of 2 MiB and more come back
// from the allocator's cache, step after step.
class Ring : public std::enable_shared_from_this<Ring> {
 public:
  // `divisor` > 1: the reduction is divided by it (final_op Div).
  Ring(const CollectiveRun& run, Tensor input, Tensor output, RingMode mode,
       ReduceOp op, int divisor, CollectiveDone done)
      : run_(run),
        n_(static_cast<int>(run.group->members.size())),
        rank_(run.rank),
        mode_(mode),
        op_(op),
        divisor_(std::max(1, divisor)),
        input_(std::move(input)),
        output_(std::move(output)),
        elem_bytes_(DataTypeSize(output_.dtype())),
        done_(std::move(done)) {
    const int64_t total = mode_ == RingMode::kAllGather
                              ? output_.NumElements()
                              : input_.NumElements();
    for (int i = 0; i < n_; ++i) {
      switch (mode_) {
        case RingMode::kAllReduce:
          segments_.push_back(Split(0, total, n_, i));
          break;
        case RingMode::kReduceScatter:
        case RingMode::kAllGather: {
          const int64_t k = total / n_;
          segments_.push_back(Range{i * k, k});
          break;
        }
      }
    }
    int64_t max_segment = 0;
    for (const Range& s : segments_) max_segment = std::max(max_segment, s.count);
    const int64_t piece_elems =
        std::max<int64_t>(1, run.piece_bytes / std::max(1, elem_bytes_));
    pieces_ = static_cast<int>(std::clamp<int64_t>(
        (max_segment + piece_elems - 1) / piece_elems, 1, 64));
    current_.resize(static_cast<size_t>(n_) * pieces_);
    // Flat views sharing the buffers.
    input_flat_ = *input_.Reshaped(TensorShape({input_.NumElements()}));
    output_flat_ = *output_.Reshaped(TensorShape({output_.NumElements()}));
  }

  void Start() {
    spdlog::debug("collective instance {}: ring {} of {} bytes over {} "
                  "members in {} pieces per segment starts (rank {})",
                  run_.instance_key, ModeName(), input_.TotalBytes(), n_,
                  pieces_, rank_);
    if (mode_ == RingMode::kAllGather) {
      // Our own block is ours already.
      CopyToOutput(segments_[rank_], input_flat_);
    }
    pending_.store(pieces_);
    for (int p = 0; p < pieces_; ++p) Step(p, 0);
  }

 private:
  const char* ModeName() const {
    switch (mode_) {
      case RingMode::kAllReduce: return "all-reduce";
      case RingMode::kReduceScatter: return "reduce-scatter";
      case RingMode::kAllGather: return "all-gather";
    }
    return "";
  }
  absl::string_view Kind() const {
    switch (mode_) {
      case RingMode::kAllReduce: return "ar";
      case RingMode::kReduceScatter: return "rs";
      case RingMode::kAllGather: return "ag";
    }
    return "";
  }
  int rs_steps() const { return mode_ == RingMode::kAllGather ? 0 : n_ - 1; }
  int total_steps() const {
    return rs_steps() + (mode_ == RingMode::kReduceScatter ? 0 : n_ - 1);
  }

  Range PieceRange(int segment, int piece) const {
    const Range& s = segments_[segment];
    return Split(s.offset, s.count, pieces_, piece);
  }
  // This member's input for (segment, piece): in a reduction any segment,
  // in an all-gather only its own block.
  Tensor InputPiece(int segment, int piece) const {
    const Range r = PieceRange(segment, piece);
    const int64_t base =
        mode_ == RingMode::kAllGather ? segments_[rank_].offset : 0;
    return input_flat_.Slice(r.offset - base, r.offset - base + r.count);
  }
  // The output's region for (segment, piece); in a reduce-scatter only this
  // member's segment is in the output.
  Tensor OutputPiece(int segment, int piece) const {
    const Range r = PieceRange(segment, piece);
    const int64_t base =
        mode_ == RingMode::kReduceScatter ? segments_[rank_].offset : 0;
    return output_flat_.Slice(r.offset - base, r.offset - base + r.count);
  }
  Tensor& Current(int segment, int piece) {
    return current_[static_cast<size_t>(segment) * pieces_ + piece];
  }
  void CopyToOutput(const Range& r, const Tensor& flat) {
    if (r.count == 0) return;
    std::memcpy(static_cast<char*>(output_flat_.raw_data()) +
                    r.offset * elem_bytes_,
                flat.raw_data(), static_cast<size_t>(r.count * elem_bytes_));
  }

  void Step(int piece, int step) {
    int send_seg, recv_seg;
    if (step < rs_steps()) {
      send_seg = Mod(rank_ - 1 - step, n_);
      recv_seg = Mod(rank_ - 2 - step, n_);
    } else {
      const int t = step - rs_steps();
      send_seg = Mod(rank_ - t, n_);
      recv_seg = Mod(rank_ - t - 1, n_);
    }
    // Step 0 sends this member's input: in a reduction its contribution to
    // the segment, in an all-gather its block.
    const Tensor value =
        step == 0 ? InputPiece(send_seg, piece) : Current(send_seg, piece);
    const int next = Mod(rank_ + 1, n_);
    const int prev = Mod(rank_ - 1, n_);
    absl::StatusOr<Rendezvous::ParsedKey> send_key =
        Key(run_, rank_, next, Kind(), piece, step);
    absl::StatusOr<Rendezvous::ParsedKey> recv_key =
        Key(run_, prev, rank_, Kind(), piece, step);
    if (!send_key.ok() || !recv_key.ok()) {
      PieceFailed(!send_key.ok() ? send_key.status() : recv_key.status());
      return;
    }
    Rendezvous::Args args;
    args.cancellation_manager = run_.cancellation;
    if (absl::Status s = run_.rendezvous->Send(*send_key, args, value, false);
        !s.ok()) {
      PieceFailed(s);
      return;
    }
    // An all-gather step's piece goes into the output: across tasks
    // straight there, without a copy of its own.
    Tensor destination;
    if (step >= rs_steps()) {
      destination = OutputPiece(recv_seg, piece);
      args.destination = &destination;
    }
    run_.rendezvous->RecvAsync(
        *recv_key, args,
        [self = shared_from_this(), piece, step, recv_seg, prev](
            const absl::Status& s, const Tensor& t, bool is_dead) {
          self->Received(piece, step, recv_seg, prev, s, t, is_dead);
        });
  }

  void Received(int piece, int step, int segment, int from,
                const absl::Status& status, const Tensor& t, bool is_dead) {
    if (!status.ok()) {
      PieceFailed(status);
      return;
    }
    if (Failed()) {
      PieceEnded();
      return;
    }
    const Range r = PieceRange(segment, piece);
    if (is_dead || t.dtype() != output_.dtype() || t.NumElements() != r.count) {
      PieceFailed(absl::InvalidArgumentError(absl::StrCat(
          "collective instance ", run_.instance_key, ": device ",
          run_.group->members[from].name(), " sent ",
          is_dead ? std::string("a dead tensor")
                  : absl::StrCat(t.NumElements(), " elements of ",
                                 DataTypeString(t.dtype())),
          " where ", r.count, " elements of ",
          DataTypeString(output_.dtype()),
          " were expected: the members' inputs differ")));
      return;
    }
    if (step < rs_steps()) {
      const bool last = step == rs_steps() - 1;
      Tensor merged;
      if (last) {
        merged = OutputPiece(segment, piece);
      } else {
        absl::StatusOr<Tensor> scratch = Tensor::Allocate(
            CpuAllocator(), output_.dtype(), TensorShape({r.count}));
        if (!scratch.ok()) {
          PieceFailed(scratch.status());
          return;
        }
        merged = *std::move(scratch);
      }
      const Tensor mine = InputPiece(segment, piece);
      // `t` and `mine` stay alive in the closure until the merge ended.
      MergeAsync(run_.pool, output_.dtype(), mine.raw_data(), t.raw_data(),
                 merged.raw_data(), r.count, op_, last ? divisor_ : 1,
                 [self = shared_from_this(), mine, t, merged, piece, step,
                  segment]() mutable {
                   self->Current(segment, piece) = std::move(merged);
                   self->Next(piece, step);
                 });
      return;
    }
    if (t.raw_data() != OutputPiece(segment, piece).raw_data()) {
      CopyToOutput(r, t);
    }
    // Forwarded as it came: received tensors are never written.
    Current(segment, piece) = t;
    Next(piece, step);
  }

  void Next(int piece, int step) {
    if (step + 1 < total_steps()) {
      Step(piece, step + 1);
    } else {
      PieceEnded();
    }
  }

  bool Failed() {
    absl::MutexLock lock(&mu_);
    return !status_.ok();
  }

  void PieceFailed(const absl::Status& s) {
    bool first = false;
    {
      absl::MutexLock lock(&mu_);
      if (status_.ok()) {
        status_ = s;
        first = true;
      }
    }
    // Every other transfer of the step ends now, here and at the peers.
    if (first) run_.rendezvous->StartAbort(s);
    PieceEnded();
  }

  void PieceEnded() {
    if (pending_.fetch_sub(1) != 1) return;
    absl::Status status;
    {
      absl::MutexLock lock(&mu_);
      status = status_;
    }
    CollectiveDone done = std::move(done_);
    // Drop what the pieces held before the caller continues.
    current_.clear();
    if (status.ok()) {
      done(output_);
    } else {
      done(status);
    }
  }

  const CollectiveRun run_;
  const int n_;
  const int rank_;
  const RingMode mode_;
  const ReduceOp op_;
  const int divisor_;
  const Tensor input_;
  const Tensor output_;
  const int elem_bytes_;
  Tensor input_flat_;
  Tensor output_flat_;
  std::vector<Range> segments_;
  int pieces_ = 1;
  // Each (segment, piece) is written by one piece's chain of callbacks
  // only, one step after another: no lock needed.
  std::vector<Tensor> current_;
  std::atomic<int> pending_{0};
  CollectiveDone done_;
  absl::Mutex mu_;
  absl::Status status_ ABSL_GUARDED_BY(mu_);
};

// One member's all-to-all: one transfer to and from every other member.
class Exchange : public std::enable_shared_from_this<Exchange> {
 public:
  Exchange(const CollectiveRun& run, Tensor input, Tensor output,
           CollectiveDone done)
      : run_(run),
        n_(static_cast<int>(run.group->members.size())),
        input_(*input.Reshaped(TensorShape({input.NumElements()}))),
        output_(std::move(output)),
        output_flat_(*output_.Reshaped(TensorShape({output_.NumElements()}))),
        block_(input_.NumElements() / n_),
        done_(std::move(done)) {}

  void Start() {
    const int rank = run_.rank;
    const size_t block_bytes =
        static_cast<size_t>(block_ * DataTypeSize(output_.dtype()));
    if (block_bytes > 0) {
      std::memcpy(static_cast<char*>(output_flat_.raw_data()) +
                      rank * block_bytes,
                  static_cast<const char*>(input_.raw_data()) +
                      rank * block_bytes,
                  block_bytes);
    }
    Rendezvous::Args args;
    args.cancellation_manager = run_.cancellation;
    pending_.store(n_);  // one per peer, and this one
    for (int j = 0; j < n_; ++j) {
      if (j == rank) continue;
      absl::StatusOr<Rendezvous::ParsedKey> key = Key(run_, rank, j, "a2a", 0, 0);
      absl::Status s = key.status();
      if (s.ok()) {
        s = run_.rendezvous->Send(
            *key, args, input_.Slice(j * block_, (j + 1) * block_), false);
      }
      if (!s.ok()) {
        Fail(s);
        break;
      }
    }
    for (int j = 0; j < n_; ++j) {
      if (j == rank) continue;
      absl::StatusOr<Rendezvous::ParsedKey> key = Key(run_, j, rank, "a2a", 0, 0);
      if (!key.ok()) {
        Fail(key.status());
        Ended();
        continue;
      }
      run_.rendezvous->RecvAsync(
          *key, args,
          [self = shared_from_this(), j](const absl::Status& s,
                                         const Tensor& t, bool is_dead) {
            self->Received(j, s, t, is_dead);
          });
    }
    Ended();
  }

 private:
  void Received(int from, const absl::Status& status, const Tensor& t,
                bool is_dead) {
    if (!status.ok()) {
      Fail(status);
    } else if (is_dead || t.dtype() != output_.dtype() ||
               t.NumElements() != block_) {
      Fail(absl::InvalidArgumentError(absl::StrCat(
          "collective instance ", run_.instance_key, ": device ",
          run_.group->members[from].name(), " sent ",
          is_dead ? std::string("a dead tensor")
                  : absl::StrCat(t.NumElements(), " elements of ",
                                 DataTypeString(t.dtype())),
          " where ", block_, " elements of ", DataTypeString(output_.dtype()),
          " were expected: the members' inputs differ")));
    } else if (block_ > 0) {
      const size_t block_bytes =
          static_cast<size_t>(block_ * DataTypeSize(output_.dtype()));
      std::memcpy(static_cast<char*>(output_flat_.raw_data()) +
                      from * block_bytes,
                  t.raw_data(), block_bytes);
    }
    Ended();
  }

  void Fail(const absl::Status& s) {
    bool first = false;
    {
      absl::MutexLock lock(&mu_);
      if (status_.ok()) {
        status_ = s;
        first = true;
      }
    }
    if (first) run_.rendezvous->StartAbort(s);
  }

  void Ended() {
    if (pending_.fetch_sub(1) != 1) return;
    absl::Status status;
    {
      absl::MutexLock lock(&mu_);
      status = status_;
    }
    CollectiveDone done = std::move(done_);
    if (status.ok()) {
      done(output_);
    } else {
      done(status);
    }
  }

  const CollectiveRun run_;
  const int n_;
  const Tensor input_;
  const Tensor output_;
  Tensor output_flat_;
  const int64_t block_;
  std::atomic<int> pending_{0};
  CollectiveDone done_;
  absl::Mutex mu_;
  absl::Status status_ ABSL_GUARDED_BY(mu_);
};

// The tasks of a group: the member indices of each task, in rank order
// (members are sorted by task, so each task's are consecutive).
std::vector<std::vector<int>> TasksOf(const CollectiveGroup& group) {
  std::vector<std::vector<int>> tasks;
  std::string last;
  for (size_t i = 0; i < group.members.size(); ++i) {
    absl::StatusOr<DeviceName> name = DeviceName::Parse(group.members[i].name());
    std::string task = name.ok() ? name->TaskName() : group.members[i].name();
    if (tasks.empty() || task != last) tasks.emplace_back();
    tasks.back().push_back(static_cast<int>(i));
    last = std::move(task);
  }
  return tasks;
}

// Hierarchical all-reduce, for a group over several tasks with several
// members on at least one: each task's members hand their inputs to the
// task's first member (inside the process, by reference), which reduces
// them; the first members all-reduce over a ring of their own (one member
// per task: the only transfers between tasks, 2(T-1)/T of the tensor per
// task instead of 2(n-1)/n per ring hop); each hands the result back to
// its task's members. Keys: "hl" (member -> first member) and "hb" (first
// member -> member), piece 0, step 0; the ring's own ("ar") between the
// first members.
class Hierarchy : public std::enable_shared_from_this<Hierarchy> {
 public:
  Hierarchy(const CollectiveRun& run, std::vector<std::vector<int>> tasks,
            Tensor input, ReduceOp op, bool divide, CollectiveDone done)
      : run_(run),
        tasks_(std::move(tasks)),
        input_(std::move(input)),
        op_(op),
        divisor_(divide ? static_cast<int>(run.group->members.size()) : 1),
        done_(std::move(done)) {
    for (size_t t = 0; t < tasks_.size(); ++t) {
      for (int m : tasks_[t]) {
        if (m == run_.rank) task_ = static_cast<int>(t);
      }
    }
  }

  void Start() {
    const std::vector<int>& local = tasks_[task_];
    const int first = local[0];
    Rendezvous::Args args;
    args.cancellation_manager = run_.cancellation;
    if (run_.rank != first) {
      // Hand the input to the task's first member; take the result back.
      absl::StatusOr<Rendezvous::ParsedKey> up =
          Key(run_, run_.rank, first, "hl", 0, 0);
      absl::StatusOr<Rendezvous::ParsedKey> down =
          Key(run_, first, run_.rank, "hb", 0, 0);
      absl::Status s = up.ok() ? down.status() : up.status();
      if (s.ok()) s = run_.rendezvous->Send(*up, args, input_, false);
      if (!s.ok()) {
        Finish(s);
        return;
      }
      run_.rendezvous->RecvAsync(
          *down, args,
          [self = shared_from_this(), first](const absl::Status& s,
                                             const Tensor& t, bool is_dead) {
            if (s.ok()) {
              absl::Status bad = self->CheckReceived(first, t, is_dead);
              if (!bad.ok()) {
                self->Finish(bad);
                return;
              }
            }
            self->Finish(s.ok() ? absl::StatusOr<Tensor>(t)
                                : absl::StatusOr<Tensor>(s));
          });
      return;
    }
    received_.resize(local.size());
    waiting_.store(static_cast<int>(local.size()));
    for (size_t i = 1; i < local.size(); ++i) {
      absl::StatusOr<Rendezvous::ParsedKey> key =
          Key(run_, local[i], first, "hl", 0, 0);
      if (!key.ok()) {
        Arrived(i, key.status(), Tensor(), false);
        continue;
      }
      run_.rendezvous->RecvAsync(
          *key, args,
          [self = shared_from_this(), i](const absl::Status& s,
                                         const Tensor& t, bool is_dead) {
            self->Arrived(i, s, t, is_dead);
          });
    }
    Arrived(0, absl::OkStatus(), input_, false);
  }

 private:
  absl::Status CheckReceived(int from, const Tensor& t, bool is_dead) const {
    if (!is_dead && t.dtype() == input_.dtype() &&
        t.NumElements() == input_.NumElements()) {
      return absl::OkStatus();
    }
    return absl::InvalidArgumentError(absl::StrCat(
        "collective instance ", run_.instance_key, ": device ",
        run_.group->members[from].name(), " sent ",
        is_dead ? std::string("a dead tensor")
                : absl::StrCat(t.NumElements(), " elements of ",
                               DataTypeString(t.dtype())),
        " where ", input_.NumElements(), " elements of ",
        DataTypeString(input_.dtype()),
        " were expected: the members' inputs differ"));
  }

  // The first member: the input of local member i arrived (i = 0: its own).
  void Arrived(size_t i, const absl::Status& s, const Tensor& t,
               bool is_dead) {
    absl::Status bad = s.ok() ? CheckReceived(tasks_[task_][i], t, is_dead) : s;
    if (!bad.ok()) {
      absl::MutexLock lock(&mu_);
      if (status_.ok()) status_ = bad;
    } else {
      received_[i] = t;
    }
    if (waiting_.fetch_sub(1) != 1) return;
    absl::Status status;
    {
      absl::MutexLock lock(&mu_);
      status = status_;
    }
    if (!status.ok()) {
      Finish(status);
      return;
    }
    if (received_.size() == 1) {
      ReduceAcrossTasks(input_);
      return;
    }
    absl::StatusOr<Tensor> sum =
        Tensor::Allocate(CpuAllocator(), input_.dtype(), input_.shape());
    if (!sum.ok()) {
      Finish(sum.status());
      return;
    }
    MergeLocal(*std::move(sum), 1);
  }

  // sum = received_[0] (op) received_[1], then sum (op)= received_[i]...
  void MergeLocal(Tensor sum, size_t i) {
    if (i == received_.size()) {
      received_.clear();
      ReduceAcrossTasks(sum);
      return;
    }
    const void* a = i == 1 ? received_[0].raw_data() : sum.raw_data();
    MergeAsync(run_.pool, input_.dtype(), a, received_[i].raw_data(),
               sum.raw_data(), input_.NumElements(), op_, 1,
               [self = shared_from_this(), sum, i]() mutable {
                 self->MergeLocal(std::move(sum), i + 1);
               });
  }

  // The first members' ring over this task's reduction.
  void ReduceAcrossTasks(const Tensor& local) {
    leaders_.group_key = run_.group->group_key;
    leaders_.group_size = static_cast<int>(tasks_.size());
    leaders_.device_type = run_.group->device_type;
    leaders_.num_tasks = leaders_.group_size;
    for (const std::vector<int>& task : tasks_) {
      leaders_.members.push_back(run_.group->members[task[0]]);
    }
    absl::StatusOr<Tensor> output =
        Tensor::Allocate(CpuAllocator(), input_.dtype(), input_.shape());
    if (!output.ok()) {
      Finish(output.status());
      return;
    }
    CollectiveRun ring_run = run_;
    ring_run.group = &leaders_;
    ring_run.rank = task_;
    auto ring = std::make_shared<Ring>(
        ring_run, local, *std::move(output), RingMode::kAllReduce, op_,
        divisor_, [self = shared_from_this()](absl::StatusOr<Tensor> r) {
          self->HandBack(std::move(r));
        });
    ring->Start();
  }

  // The first member: the result to every other member of the task.
  void HandBack(absl::StatusOr<Tensor> result) {
    if (result.ok()) {
      Rendezvous::Args args;
      args.cancellation_manager = run_.cancellation;
      const std::vector<int>& local = tasks_[task_];
      for (size_t i = 1; i < local.size(); ++i) {
        absl::StatusOr<Rendezvous::ParsedKey> key =
            Key(run_, local[0], local[i], "hb", 0, 0);
        absl::Status s = key.status();
        if (s.ok()) s = run_.rendezvous->Send(*key, args, *result, false);
        if (!s.ok()) {
          Finish(s);
          return;
        }
      }
    }
    Finish(std::move(result));
  }

  // Ends this member's part; an error aborts the step's rendezvous first
  // (every other transfer of the step ends, here and at the peers).
  void Finish(absl::StatusOr<Tensor> result) {
    if (!result.ok()) run_.rendezvous->StartAbort(result.status());
    CollectiveDone done = std::move(done_);
    done(std::move(result));
  }

  const CollectiveRun run_;
  const std::vector<std::vector<int>> tasks_;
  const Tensor input_;
  const ReduceOp op_;
  const int divisor_;
  CollectiveDone done_;
  int task_ = 0;
  // The first member's: its members' inputs, and the group of first
  // members its ring runs over (alive until the ring is done: the ring
  // holds a shared_ptr to this).
  std::vector<Tensor> received_;
  std::atomic<int> waiting_{0};
  CollectiveGroup leaders_;
  absl::Mutex mu_;
  absl::Status status_ ABSL_GUARDED_BY(mu_);
};

absl::Status CheckRun(const CollectiveRun& run) {
  if (run.rendezvous == nullptr || run.group == nullptr || run.rank < 0 ||
      run.rank >= static_cast<int>(run.group->members.size())) {
    return absl::InternalError(absl::StrCat(
        "collective instance ", run.instance_key,
        ": no rendezvous, no group, or a rank outside the group"));
  }
  return absl::OkStatus();
}

// The output tensor of `shape` for `input`, or nullopt once `done` has
// been called: with the allocation's error, or with the result itself when
// there is nothing to exchange (a group of one, whose result is its own
// input, or an empty input, the same empty shape on every member).
std::optional<Tensor> OutputOrDone(const CollectiveRun& run,
                                   const Tensor& input,
                                   const TensorShape& shape,
                                   CollectiveDone& done) {
  absl::StatusOr<Tensor> output =
      Tensor::Allocate(CpuAllocator(), input.dtype(), shape);
  if (!output.ok()) {
    done(output.status());
    return std::nullopt;
  }
  if (run.group->members.size() == 1 || input.NumElements() == 0) {
    if (input.NumElements() > 0) {
      std::memcpy(output->raw_data(), input.raw_data(), input.TotalBytes());
    }
    done(*std::move(output));
    return std::nullopt;
  }
  return *std::move(output);
}

}  // namespace

void RingAllReduce(const CollectiveRun& run, const Tensor& input, ReduceOp op,
                   bool divide, CollectiveDone done) {
  if (absl::Status s = CheckRun(run); !s.ok()) {
    done(s);
    return;
  }
  bool supported = VisitReduceType(input.dtype(), []<typename T>() {});
  if (!supported) {
    done(absl::InvalidArgumentError(
        absl::StrCat("collective instance ", run.instance_key,
                     ": all-reduce of ", DataTypeString(input.dtype()),
                     " is not supported")));
    return;
  }
  const int n = static_cast<int>(run.group->members.size());
  if (run.hierarchical && n > 1 && input.NumElements() > 0 &&
      run.group->num_tasks > 1 && run.group->num_tasks < n) {
    std::vector<std::vector<int>> tasks = TasksOf(*run.group);
    if (tasks.size() > 1 && static_cast<int>(tasks.size()) < n) {
      auto hierarchy = std::make_shared<Hierarchy>(
          run, std::move(tasks), input, op, divide, std::move(done));
      hierarchy->Start();
      return;
    }
  }
  std::optional<Tensor> output =
      OutputOrDone(run, input, input.shape(), done);
  if (!output) return;
  auto ring = std::make_shared<Ring>(run, input, *std::move(output),
                                     RingMode::kAllReduce, op, divide ? n : 1,
                                     std::move(done));
  ring->Start();
}

namespace {

// The shape checks of reduce-scatter and all-to-all: rank >= 1 and dim 0
// divisible by the group size.
absl::Status CheckBlocks(const CollectiveRun& run, const Tensor& input,
                         absl::string_view what) {
  const int n = static_cast<int>(run.group->members.size());
  if (input.dims() < 1 || input.dim_size(0) % n != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "collective instance ", run.instance_key, ": ", what,
        " needs an input of rank >= 1 whose dim 0 divides by the group size ",
        n, ", got ", DataTypeString(input.dtype()), " ",
        input.shape().DebugString()));
  }
  return absl::OkStatus();
}

}  // namespace

void RingReduceScatter(const CollectiveRun& run, const Tensor& input,
                       ReduceOp op, bool divide, CollectiveDone done) {
  if (absl::Status s = CheckRun(run); !s.ok()) {
    done(s);
    return;
  }
  if (!VisitReduceType(input.dtype(), []<typename T>() {})) {
    done(absl::InvalidArgumentError(
        absl::StrCat("collective instance ", run.instance_key,
                     ": reduce-scatter of ", DataTypeString(input.dtype()),
                     " is not supported")));
    return;
  }
  if (absl::Status s = CheckBlocks(run, input, "reduce-scatter"); !s.ok()) {
    done(s);
    return;
  }
  const int n = static_cast<int>(run.group->members.size());
  TensorShape shape = input.shape();
  shape.set_dim(0, input.dim_size(0) / n);
  std::optional<Tensor> output =
      OutputOrDone(run, input, shape, done);
  if (!output) return;
  auto ring = std::make_shared<Ring>(run, input, *std::move(output),
                                     RingMode::kReduceScatter, op,
                                     divide ? n : 1, std::move(done));
  ring->Start();
}

void AllToAll(const CollectiveRun& run, const Tensor& input,
              CollectiveDone done) {
  if (absl::Status s = CheckRun(run); !s.ok()) {
    done(s);
    return;
  }
  if (DataTypeSize(input.dtype()) <= 0) {
    done(absl::InvalidArgumentError(absl::StrCat(
        "collective instance ", run.instance_key, ": all-to-all of ",
        DataTypeString(input.dtype()), " is not supported")));
    return;
  }
  if (absl::Status s = CheckBlocks(run, input, "all-to-all"); !s.ok()) {
    done(s);
    return;
  }
  std::optional<Tensor> output =
      OutputOrDone(run, input, input.shape(), done);
  if (!output) return;
  auto exchange =
      std::make_shared<Exchange>(run, input, *std::move(output), std::move(done));
  exchange->Start();
}

void RingAllGather(const CollectiveRun& run, const Tensor& input,
                   CollectiveDone done) {
  if (absl::Status s = CheckRun(run); !s.ok()) {
    done(s);
    return;
  }
  if (input.dims() < 1 || DataTypeSize(input.dtype()) <= 0) {
    done(absl::InvalidArgumentError(absl::StrCat(
        "collective instance ", run.instance_key,
        ": all-gather needs an input of rank >= 1 and a fixed-size dtype, "
        "got ", DataTypeString(input.dtype()), " ",
        input.shape().DebugString())));
    return;
  }
  const int n = static_cast<int>(run.group->members.size());
  TensorShape shape = input.shape();
  shape.set_dim(0, input.dim_size(0) * n);
  std::optional<Tensor> output =
      OutputOrDone(run, input, shape, done);
  if (!output) return;
  auto ring = std::make_shared<Ring>(run, input, *std::move(output),
                                     RingMode::kAllGather, ReduceOp::kAdd,
                                     /*divisor=*/1, std::move(done));
  ring->Start();
}

void Broadcast(const CollectiveRun& run, int source_rank, const Tensor& input,
               DataType dtype, const TensorShape& shape, CollectiveDone done) {
  if (absl::Status s = CheckRun(run); !s.ok()) {
    done(s);
    return;
  }
  const int n = static_cast<int>(run.group->members.size());
  if (source_rank < 0 || source_rank >= n) {
    done(absl::InternalError(absl::StrCat("collective instance ",
                                          run.instance_key,
                                          ": no broadcast source")));
    return;
  }
  Rendezvous::Args args;
  args.cancellation_manager = run.cancellation;
  if (run.rank == source_rank) {
    for (int m = 0; m < n; ++m) {
      if (m == source_rank) continue;
      absl::StatusOr<Rendezvous::ParsedKey> key =
          Key(run, source_rank, m, "bc", 0, 0);
      absl::Status s = key.status();
      if (s.ok()) s = run.rendezvous->Send(*key, args, input, false);
      if (!s.ok()) {
        run.rendezvous->StartAbort(s);
        done(s);
        return;
      }
    }
    done(input);
    return;
  }
  absl::StatusOr<Rendezvous::ParsedKey> key =
      Key(run, source_rank, run.rank, "bc", 0, 0);
  if (!key.ok()) {
    done(key.status());
    return;
  }
  Rendezvous* rendezvous = run.rendezvous;
  const int32_t instance = run.instance_key;
  const std::string source = run.group->members[source_rank].name();
  rendezvous->RecvAsync(
      *key, args,
      [rendezvous, instance, source, dtype, shape, done = std::move(done)](
          const absl::Status& s, const Tensor& t, bool is_dead) {
        if (!s.ok()) {
          rendezvous->StartAbort(s);
          done(s);
          return;
        }
        if (is_dead || t.dtype() != dtype || t.shape() != shape) {
          absl::Status bad = absl::InvalidArgumentError(absl::StrCat(
              "collective instance ", instance, ": the broadcast source ",
              source, " sent ", DataTypeString(t.dtype()), " ",
              t.shape().DebugString(), " but this member expects ",
              DataTypeString(dtype), " ", shape.DebugString()));
          rendezvous->StartAbort(bad);
          done(bad);
          return;
        }
        done(t);
      });
}

}  // namespace dfx

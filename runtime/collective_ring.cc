#include "runtime/collective_ring.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "base/log.h"
#include "graph/types.h"
#include "runtime/allocator.h"
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

// out[i] = a[i] (op) b[i], then / divisor when divisor > 1.
template <typename T>
void MergeInto(const T* a, const T* b, T* out, int64_t n, ReduceOp op,
               int divisor) {
  switch (op) {
    case ReduceOp::kAdd:
      for (int64_t i = 0; i < n; ++i) out[i] = a[i] + b[i];
      break;
    case ReduceOp::kMul:
      for (int64_t i = 0; i < n; ++i) out[i] = a[i] * b[i];
      break;
    case ReduceOp::kMin:
      for (int64_t i = 0; i < n; ++i) out[i] = b[i] < a[i] ? b[i] : a[i];
      break;
    case ReduceOp::kMax:
      for (int64_t i = 0; i < n; ++i) out[i] = a[i] < b[i] ? b[i] : a[i];
      break;
  }
  if (divisor > 1) {
    const T d = static_cast<T>(divisor);
    for (int64_t i = 0; i < n; ++i) out[i] = out[i] / d;
  }
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

// The state of one ring collective at one member, shared by the callbacks
// of its transfers.
class Ring : public std::enable_shared_from_this<Ring> {
 public:
  // reduce: all-reduce of `input` (shape == output shape). Otherwise
  // all-gather: `input` is this member's block of the output.
  Ring(const CollectiveRun& run, Tensor input, Tensor output, bool reduce,
       ReduceOp op, bool divide, CollectiveDone done)
      : run_(run),
        n_(static_cast<int>(run.group->members.size())),
        rank_(run.rank),
        reduce_(reduce),
        op_(op),
        divisor_(divide ? n_ : 1),
        input_(std::move(input)),
        output_(std::move(output)),
        elem_bytes_(DataTypeSize(output_.dtype())),
        done_(std::move(done)) {
    const int64_t total = output_.NumElements();
    for (int i = 0; i < n_; ++i) {
      segments_.push_back(reduce_ ? Split(0, total, n_, i)
                                  : Range{i * input_.NumElements(),
                                          input_.NumElements()});
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
                  run_.instance_key, reduce_ ? "all-reduce" : "all-gather",
                  output_.TotalBytes(), n_, pieces_, rank_);
    if (!reduce_) {
      // Our own block is ours already.
      CopyToOutput(segments_[rank_], input_flat_);
    }
    pending_.store(pieces_);
    for (int p = 0; p < pieces_; ++p) Step(p, 0);
  }

 private:
  int rs_steps() const { return reduce_ ? n_ - 1 : 0; }
  int total_steps() const { return rs_steps() + n_ - 1; }
  int own_after_rs() const { return reduce_ ? Mod(rank_ + 1, n_) : rank_; }

  Range PieceRange(int segment, int piece) const {
    const Range& s = segments_[segment];
    return Split(s.offset, s.count, pieces_, piece);
  }
  // This member's input for (segment, piece): for all-reduce any segment,
  // for all-gather only its own block.
  Tensor InputPiece(int segment, int piece) const {
    const Range r = PieceRange(segment, piece);
    const int64_t base = reduce_ ? 0 : segments_[rank_].offset;
    return input_flat_.Slice(r.offset - base, r.offset - base + r.count);
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
      send_seg = Mod(rank_ - step, n_);
      recv_seg = Mod(rank_ - step - 1, n_);
    } else {
      const int t = step - rs_steps();
      send_seg = Mod(own_after_rs() - t, n_);
      recv_seg = Mod(own_after_rs() - t - 1, n_);
    }
    const Tensor value =
        step == 0 ? InputPiece(send_seg, piece) : Current(send_seg, piece);
    const int next = Mod(rank_ + 1, n_);
    const int prev = Mod(rank_ - 1, n_);
    const absl::string_view kind = reduce_ ? "ar" : "ag";
    absl::StatusOr<Rendezvous::ParsedKey> send_key =
        Key(run_, rank_, next, kind, piece, step);
    absl::StatusOr<Rendezvous::ParsedKey> recv_key =
        Key(run_, prev, rank_, kind, piece, step);
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
      absl::StatusOr<Tensor> merged = Tensor::Allocate(
          CpuAllocator(), output_.dtype(), TensorShape({r.count}));
      if (!merged.ok()) {
        PieceFailed(merged.status());
        return;
      }
      const Tensor mine = InputPiece(segment, piece);
      const int divisor = step == rs_steps() - 1 ? divisor_ : 1;
      VisitReduceType(output_.dtype(), [&]<typename T>() {
        MergeInto<T>(mine.data<T>(), t.data<T>(), merged->data<T>(), r.count,
                     op_, divisor);
      });
      if (step == rs_steps() - 1) CopyToOutput(r, *merged);
      Current(segment, piece) = *std::move(merged);
    } else {
      CopyToOutput(r, t);
      // Forwarded as it came: received tensors are never written.
      Current(segment, piece) = t;
    }
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
  const bool reduce_;
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

absl::Status CheckRun(const CollectiveRun& run) {
  if (run.rendezvous == nullptr || run.group == nullptr || run.rank < 0 ||
      run.rank >= static_cast<int>(run.group->members.size())) {
    return absl::InternalError(absl::StrCat(
        "collective instance ", run.instance_key,
        ": no rendezvous, no group, or a rank outside the group"));
  }
  return absl::OkStatus();
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
  absl::StatusOr<Tensor> output =
      Tensor::Allocate(CpuAllocator(), input.dtype(), input.shape());
  if (!output.ok()) {
    done(output.status());
    return;
  }
  if (n == 1 || input.NumElements() == 0) {
    // Nothing to exchange (every member has the same, empty, shape).
    if (input.NumElements() > 0) {
      std::memcpy(output->raw_data(), input.raw_data(), input.TotalBytes());
      if (divide) {
        VisitReduceType(input.dtype(), [&]<typename T>() {
          T* d = output->data<T>();
          for (int64_t i = 0; i < output->NumElements(); ++i) {
            d[i] = d[i] / static_cast<T>(n);
          }
        });
      }
    }
    done(*std::move(output));
    return;
  }
  auto ring = std::make_shared<Ring>(run, input, *std::move(output),
                                     /*reduce=*/true, op, divide,
                                     std::move(done));
  ring->Start();
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
  absl::StatusOr<Tensor> output =
      Tensor::Allocate(CpuAllocator(), input.dtype(), shape);
  if (!output.ok()) {
    done(output.status());
    return;
  }
  if (n == 1 || input.NumElements() == 0) {
    if (input.NumElements() > 0) {
      std::memcpy(output->raw_data(), input.raw_data(), input.TotalBytes());
    }
    done(*std::move(output));
    return;
  }
  auto ring = std::make_shared<Ring>(run, input, *std::move(output),
                                     /*reduce=*/false, ReduceOp::kAdd,
                                     /*divide=*/false, std::move(done));
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

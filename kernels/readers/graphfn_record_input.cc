// RecordInput (TF1's input op, the graphfn family): batches of TFRecords
// read from the files matching a pattern, shuffled through a buffer, epoch
// after epoch, as TensorFlow 2.21's record_input_op.cc and record_yielder.cc.
//
// TensorFlow fills the buffer from file_parallelism threads while steps take
// records from it; dfx runs the same producer in the kernel, on the step's
// thread, whenever a step needs a record the buffer cannot give yet (as if
// the producer always ran ahead of the consumer, one of the interleavings
// TensorFlow's threads may take), and a step takes records as soon as
// TensorFlow's would be allowed to: half a buffer, or the epoch's last ones.
// Shards (files j, j + N, ... for shard j) are read one after another.
// With one shard and a buffer that holds an epoch the records come in
// TensorFlow's order (tests/kernels/graphfn_test.cc): the same files in the
// same order (the epoch's shuffle and shift), the same insertions into the
// buffer (each of a batch of 16 records, last first, swapped with a random
// slot drawn from std::mt19937_64(file_random_seed)), taken from its end,
// and the buffer shrunk to the epoch's size after an epoch smaller than it.
#include <glob.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "base/status_macros.h"
#include "kernels/data/record_file.h"
#include "kernels/kernels.h"
#include "runtime/file_policy.h"

namespace dfx {
namespace {

using data::Compression;
using data::FileReader;

// TensorFlow's Hash64 of an int64 (MurmurHash64A, 8 bytes), seeded: the
// seed of an epoch's file shuffle.
uint64_t EpochHash(int64_t epoch, uint64_t seed) {
  constexpr uint64_t kMul = 0xc6a4a7935bd1e995ULL;
  constexpr int kShift = 47;
  uint64_t h = seed ^ (8 * kMul);
  uint64_t k = static_cast<uint64_t>(epoch);
  k *= kMul;
  k ^= k >> kShift;
  k *= kMul;
  h ^= k;
  h *= kMul;
  h ^= h >> kShift;
  h *= kMul;
  h ^= h >> kShift;
  return h;
}

class RecordInputOp : public OpKernel {
 public:
  explicit RecordInputOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    int64_t seed = 0;
    std::string compression;
    ctx->SetStatus(ctx->GetAttr("file_pattern", &pattern_));
    ctx->SetStatus(ctx->GetAttr("file_random_seed", &seed));
    ctx->SetStatus(ctx->GetAttr("file_shuffle_shift_ratio", &shift_ratio_));
    ctx->SetStatus(ctx->GetAttr("file_buffer_size", &bufsize_));
    ctx->SetStatus(ctx->GetAttr("file_parallelism", &parallelism_));
    ctx->SetStatus(ctx->GetAttr("batch_size", &batch_size_));
    ctx->SetStatus(ctx->GetAttr("compression_type", &compression));
    seed_ = static_cast<uint64_t>(seed);
    rnd_.seed(seed_);
    // TensorFlow: parallelism 0 never reads and a step waits forever; a
    // buffer of 0 or less never takes a record (the step waits forever, or
    // TensorFlow's CHECK ends the process).
    if (parallelism_ < 0) {
      ctx->SetStatus(absl::InvalidArgumentError(
          absl::StrCat("file_parallelism should >= 0, got ", parallelism_)));
    } else if (parallelism_ == 0) {
      ctx->SetStatus(absl::InvalidArgumentError(
          "file_parallelism 0 reads no file (TensorFlow waits forever)"));
    }
    if (batch_size_ < 0) {
      ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
          "batch_size must be non-negative but got ", batch_size_)));
    }
    if (bufsize_ <= 0) {
      ctx->SetStatus(absl::InvalidArgumentError(
          absl::StrCat("file_buffer_size must be positive, got ", bufsize_,
                       " (TensorFlow waits forever)")));
    }
    absl::StatusOr<Compression> c = data::ParseCompression(compression);
    if (c.ok()) {
      compression_ = *c;
    } else {
      ctx->SetStatus(c.status());
    }
  }

  void Compute(OpKernelContext* ctx) override {
    Tensor out(DT_STRING, TensorShape({batch_size_}));
    absl::MutexLock lock(&mu_);
    for (int64_t i = 0; i < batch_size_; ++i) {
      DFX_OP_REQUIRES_OK(ctx, YieldOneLocked(&out.data<std::string>()[i]));
    }
    ctx->set_output(0, std::move(out));
  }

 private:
  bool BufEnoughLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    // Before an epoch's end, at least half a buffer, so that what is taken
    // has been shuffled.
    return !status_.ok() || (epoch_end_ && !buf_.empty()) ||
           (!epoch_end_ && static_cast<int64_t>(buf_.size()) >=
                               std::max<int64_t>(1, bufsize_ / 2));
  }

  absl::Status YieldOneLocked(std::string* value)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    while (!BufEnoughLocked()) {
      if (epoch_end_) {  // and the buffer is empty: the next epoch
        epoch_end_ = false;
        epoch_started_ = false;
        if (epoch_records_ == 0) {
          status_ = absl::InvalidArgumentError(
              absl::StrCat("the files matching ", pattern_,
                           " hold no record (TensorFlow waits forever)"));
          break;
        }
      }
      status_ = StepLocked();
    }
    DFX_RETURN_IF_ERROR(status_);
    *value = std::move(buf_.back());
    buf_.pop_back();
    return absl::OkStatus();
  }

  // One step of the producer: start an epoch, add pending records to the
  // buffer (16 read, or the shard's last), open the shard's next file, or
  // read the next record.
  absl::Status StepLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (!epoch_started_) return StartEpochLocked();
    if (shard_ >= parallelism_) {
      // As TensorFlow: an epoch smaller than the buffer shrinks the buffer
      // to the epoch, for good.
      if (epoch_added_ < bufsize_) bufsize_ = epoch_added_;
      epoch_end_ = true;
      return absl::OkStatus();
    }
    if (!values_.empty() && (values_.size() >= 16 || shard_files_done_)) {
      AddLocked();
      if (!values_.empty()) return absl::OkStatus();  // the buffer is full
    }
    if (shard_files_done_) {  // and its records all added: the next shard
      ++shard_;
      next_in_shard_ = 0;
      shard_files_done_ = false;
      return absl::OkStatus();
    }
    if (file_ == nullptr) {
      const size_t j = static_cast<size_t>(shard_) +
                       static_cast<size_t>(parallelism_) * next_in_shard_;
      if (j >= files_.size()) {
        shard_files_done_ = true;
        return absl::OkStatus();
      }
      ++next_in_shard_;
      absl::StatusOr<std::unique_ptr<FileReader>> f =
          FileReader::Open(name(), files_[j], compression_);
      if (!f.ok()) {
        if (f.status().code() == absl::StatusCode::kPermissionDenied) {
          return f.status();
        }
        return absl::InvalidArgumentError(
            absl::StrCat("Can't open ", files_[j]));
      }
      file_ = *std::move(f);
      return absl::OkStatus();
    }
    std::string record;
    DFX_ASSIGN_OR_RETURN(bool got, file_->NextRecord(&record));
    if (!got) {
      file_.reset();
      return absl::OkStatus();
    }
    values_.push_back(std::move(record));
    ++epoch_records_;
    return absl::OkStatus();
  }

  // Adds values_ from its end while the buffer has room, each swapped
  // with a random slot.
  void AddLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    while (static_cast<int64_t>(buf_.size()) < bufsize_ && !values_.empty()) {
      const uint64_t index = rnd_() % (buf_.size() + 1);
      if (index == buf_.size()) {
        buf_.push_back(std::move(values_.back()));
      } else {
        buf_.push_back(std::move(buf_[index]));
        buf_[index] = std::move(values_.back());
      }
      values_.pop_back();
      ++epoch_added_;
    }
  }

  absl::Status StartEpochLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    ++epoch_;
    std::vector<std::string> files;
    for (absl::string_view p : absl::StrSplit(pattern_, ',')) {
      DFX_ASSIGN_OR_RETURN(std::string resolved,
                           ResolveDataPath(name(), std::string(p)));
      glob_t g{};
      const int rc = glob(resolved.c_str(), 0, nullptr, &g);
      for (size_t k = 0; rc == 0 && k < g.gl_pathc; ++k) {
        files.emplace_back(g.gl_pathv[k]);
      }
      globfree(&g);
      if (rc != 0 && rc != GLOB_NOMATCH) {
        return absl::InternalError(absl::StrCat(
            "cannot match files of pattern ", p, " (glob error ", rc, ")"));
      }
    }
    if (files.empty()) {
      return absl::NotFoundError(absl::StrCat("Found no files at ", pattern_));
    }
    std::mt19937_64 shuffle_rnd(EpochHash(epoch_, seed_));
    std::shuffle(files.begin(), files.end(), shuffle_rnd);
    if (0 <= shift_ratio_ && shift_ratio_ < 1) {
      const int64_t shift =
          static_cast<int64_t>(shift_ratio_ * static_cast<float>(files.size()));
      std::rotate(files.begin(), files.begin() + shift, files.end());
    }
    files_ = std::move(files);
    shard_ = 0;
    next_in_shard_ = 0;
    shard_files_done_ = false;
    epoch_records_ = 0;
    epoch_added_ = 0;
    epoch_started_ = true;
    return absl::OkStatus();
  }

  std::string pattern_;
  uint64_t seed_ = 0;
  float shift_ratio_ = 0;
  int64_t bufsize_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t parallelism_ = 0;
  int64_t batch_size_ = 0;
  Compression compression_ = Compression::kNone;

  absl::Mutex mu_;
  absl::Status status_ ABSL_GUARDED_BY(mu_);  // sticky, as TensorFlow's
  std::mt19937_64 rnd_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> buf_ ABSL_GUARDED_BY(mu_);
  bool epoch_end_ ABSL_GUARDED_BY(mu_) = false;
  bool epoch_started_ ABSL_GUARDED_BY(mu_) = false;
  int64_t epoch_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t epoch_records_ ABSL_GUARDED_BY(mu_) = 0;  // read
  int64_t epoch_added_ ABSL_GUARDED_BY(mu_) = 0;    // added to buf_
  std::vector<std::string> files_ ABSL_GUARDED_BY(mu_);
  int64_t shard_ ABSL_GUARDED_BY(mu_) = 0;
  size_t next_in_shard_ ABSL_GUARDED_BY(mu_) = 0;
  bool shard_files_done_ ABSL_GUARDED_BY(mu_) = false;
  std::unique_ptr<FileReader> file_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> values_ ABSL_GUARDED_BY(mu_);
};

}  // namespace

void RegisterGraphfnRecordInputKernels(KernelRegistry* registry) {
  RegisterKernel<RecordInputOp>(registry, KernelDefBuilder("RecordInput"));
}

}  // namespace dfx

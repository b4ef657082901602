// Kernels of the TF1 readers (graph/ops/readers_ops.cc). A reader op
// (TFRecordReaderV2, TextLineReader, ...) makes (or finds) the reader
// named by container and shared_name in the device's resource manager; a
// reader takes its work, file names, one at a time from a queue
// (kernels/data_flow/queue.h) and produces records from each, as
// TensorFlow's ReaderBase: keys "<file>:<offset>" (TFRecordReader),
// "<file>:<line>" (TextLineReader, lines counted from 1 with the skipped
// header lines), "<file>:<record>" (FixedLengthRecordReader), the file
// name (WholeFileReader) or the work itself (IdentityReader).
//
// ReaderRead and ReaderReadUpTo are asynchronous: while the reader waits
// for work, no thread is held (the queue keeps the wait), and the wait ends
// with Cancelled when the step is cancelled. Reads of one reader run one
// after another, in the order they came, as under TensorFlow's lock.
//
// ReaderSerializeState gives TensorFlow's ReaderBaseState proto bytes for
// the readers TensorFlow serializes (IdentityReader, WholeFileReader), and
// ReaderRestoreState reads them back with TensorFlow's checks (including
// its refusal of a state whose work_started exceeds work_finished); the
// other readers answer Unimplemented as TensorFlow's.
//
// Also MatchingFiles (glob patterns, results sorted) and WriteFile (which
// creates the file's missing parent directories). Every file is confined
// to the server's --data-dir (runtime/file_policy.h).
#include <glob.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "base/status_macros.h"
#include "kernels/data/record_file.h"
#include "kernels/data_flow/data_flow_util.h"
#include "kernels/data_flow/queue.h"
#include "kernels/kernels.h"
#include "runtime/file_policy.h"
#include "runtime/memory_limit.h"
#include "runtime/resource_mgr.h"

namespace dfx {
namespace {

using data::Compression;
using data::FileReader;
using data_flow::Queue;

enum class Kind { kTFRecord, kTextLine, kFixedLength, kWholeFile, kIdentity };

struct ReaderOptions {
  Kind kind = Kind::kIdentity;
  Compression compression = Compression::kNone;
  int64_t skip_header_lines = 0;
  int64_t header_bytes = 0;
  int64_t record_bytes = 0;
  int64_t footer_bytes = 0;
  int64_t hop_bytes = 0;
};

// --- TensorFlow's ReaderBaseState proto (proto3: zero fields left out).

void PutVarint(uint64_t v, std::string* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

bool GetVarint(const std::string& s, size_t* pos, uint64_t* v) {
  *v = 0;
  for (int shift = 0; shift < 64 && *pos < s.size(); shift += 7) {
    const uint8_t b = static_cast<uint8_t>(s[(*pos)++]);
    *v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) return true;
  }
  return false;
}

struct BaseState {
  int64_t work_started = 0;
  int64_t work_finished = 0;
  int64_t num_records_produced = 0;
  std::string current_work;

  std::string Serialize() const {
    std::string out;
    const int64_t ints[] = {work_started, work_finished, num_records_produced};
    for (int i = 0; i < 3; ++i) {
      if (ints[i] == 0) continue;
      out.push_back(static_cast<char>((i + 1) << 3));
      PutVarint(static_cast<uint64_t>(ints[i]), &out);
    }
    if (!current_work.empty()) {
      out.push_back(static_cast<char>((4 << 3) | 2));
      PutVarint(current_work.size(), &out);
      out += current_work;
    }
    return out;
  }

  // False when `s` is not a ReaderBaseState (unknown fields are skipped,
  // as protobuf does).
  bool Parse(const std::string& s) {
    size_t pos = 0;
    while (pos < s.size()) {
      uint64_t tag = 0;
      if (!GetVarint(s, &pos, &tag)) return false;
      const uint64_t field = tag >> 3;
      const int wire = static_cast<int>(tag & 7);
      if (field == 0) return false;
      uint64_t v = 0;
      if (wire == 0) {
        if (!GetVarint(s, &pos, &v)) return false;
        if (field == 1) work_started = static_cast<int64_t>(v);
        if (field == 2) work_finished = static_cast<int64_t>(v);
        if (field == 3) num_records_produced = static_cast<int64_t>(v);
        if (field == 4) return false;
      } else if (wire == 2) {
        if (!GetVarint(s, &pos, &v) || v > s.size() - pos) return false;
        if (field == 4) {
          current_work = s.substr(pos, v);
        } else if (field <= 3) {
          return false;
        }
        pos += v;
      } else if (wire == 1 || wire == 5) {
        const size_t n = wire == 1 ? 8 : 4;
        if (field <= 4 || n > s.size() - pos) return false;
        pos += n;
      } else {
        return false;
      }
    }
    return true;
  }

  // Protobuf's DebugString (TensorFlow's messages quote it).
  std::string DebugString() const {
    std::string out;
    if (work_started != 0) absl::StrAppend(&out, "work_started: ", work_started, "\n");
    if (work_finished != 0) absl::StrAppend(&out, "work_finished: ", work_finished, "\n");
    if (num_records_produced != 0) {
      absl::StrAppend(&out, "num_records_produced: ", num_records_produced,
                      "\n");
    }
    if (!current_work.empty()) {
      absl::StrAppend(&out, "current_work: \"", absl::CEscape(current_work),
                      "\"\n");
    }
    return out;
  }
};

// One reader: TensorFlow's ReaderBase and the five kinds of it.
class Reader : public ResourceBase {
 public:
  static constexpr const char* kTypeName = "Reader";

  Reader(std::string name, std::string node, ReaderOptions options)
      : name_(std::move(name)), node_(std::move(node)), options_(options) {}

  std::string TypeName() const override { return kTypeName; }
  std::string DebugString() const override { return name_; }
  const std::string& name() const { return name_; }
  Kind kind() const { return options_.kind; }

  // Runs `fn` once no earlier read holds the reader (at once when none
  // does); the read then holds it until Release.
  void Acquire(std::function<void()> fn) {
    {
      absl::MutexLock lock(&mu_);
      if (busy_) {
        waiting_.push_back(std::move(fn));
        return;
      }
      busy_ = true;
    }
    fn();
  }
  // Hands the reader to the next waiting read, if any.
  void Release() {
    std::function<void()> next;
    {
      absl::MutexLock lock(&mu_);
      if (waiting_.empty()) {
        busy_ = false;
        return;
      }
      next = std::move(waiting_.front());
      waiting_.pop_front();
    }
    next();
  }

  bool WorkInProgress() {
    absl::MutexLock lock(&mu_);
    return work_started_ > work_finished_;
  }

  // Starts `work` (opens the file): OK, or the error that ends the read.
  absl::Status StartWork(std::string work) {
    absl::MutexLock lock(&mu_);
    work_ = std::move(work);
    DFX_RETURN_IF_ERROR(OnWorkStartedLocked());
    ++work_started_;
    return absl::OkStatus();
  }

  // Reads at most one record of the current work into keys/values;
  // *at_end when the work is done (and then finished).
  absl::Status ReadOne(std::vector<std::string>* keys,
                       std::vector<std::string>* values, bool* at_end) {
    absl::MutexLock lock(&mu_);
    bool produced = false;
    std::string key, value;
    // A work unit that failed fails again, as TensorFlow's readers (which
    // read the same bytes again) do, until the reader is reset.
    if (!work_error_.ok()) return work_error_;
    absl::Status s = ReadLocked(&key, &value, &produced, at_end);
    if (!s.ok()) work_error_ = s;
    if (produced) {
      keys->push_back(std::move(key));
      values->push_back(std::move(value));
      ++records_produced_;
    }
    if (s.ok() && !*at_end && !produced) {
      s = absl::InternalError(absl::StrCat(
          "ReadManyLocked() for ", name_,
          " must set *at_end=true, *num_produced > 0 or return an error."));
    }
    if (s.ok() && *at_end) {
      file_.reset();
      lookahead_.clear();
      work_finished_ = work_started_;
    }
    return s;
  }

  int64_t NumRecordsProduced() {
    absl::MutexLock lock(&mu_);
    return records_produced_;
  }
  int64_t NumWorkUnitsCompleted() {
    absl::MutexLock lock(&mu_);
    return work_finished_;
  }
  void Reset() {
    absl::MutexLock lock(&mu_);
    ResetLocked();
  }

  absl::StatusOr<std::string> SerializeState() {
    absl::MutexLock lock(&mu_);
    if (!HasState()) return absl::UnimplementedError("Reader SerializeState");
    BaseState s;
    s.work_started = work_started_;
    s.work_finished = work_finished_;
    s.num_records_produced = records_produced_;
    s.current_work = work_;
    return s.Serialize();
  }

  // On failure the reader is reset, as TensorFlow's.
  absl::Status RestoreState(const std::string& state) {
    absl::MutexLock lock(&mu_);
    absl::Status s = RestoreStateLocked(state);
    if (!s.ok()) ResetLocked();
    return s;
  }

 private:
  bool HasState() const {
    return options_.kind == Kind::kIdentity ||
           options_.kind == Kind::kWholeFile;
  }

  absl::Status RestoreStateLocked(const std::string& state)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (!HasState()) return absl::UnimplementedError("Reader RestoreState");
    BaseState s;
    if (!s.Parse(state)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Could not parse state for ", name_, ": ", absl::CEscape(state)));
    }
    work_started_ = s.work_started;
    work_finished_ = s.work_finished;
    records_produced_ = s.num_records_produced;
    work_ = s.current_work;
    if (work_started_ < 0 || work_finished_ < 0 || records_produced_ < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("Unexpected negative value when restoring in ", name_,
                       ": ", s.DebugString()));
    }
    // TensorFlow's check, inverted as it is there: a state saved while a
    // work unit was in progress does not restore.
    if (work_started_ > work_finished_) {
      return absl::InvalidArgumentError(
          absl::StrCat("Inconsistent work started vs. finished when "
                       "restoring in ",
                       name_, ": ", s.DebugString()));
    }
    return absl::OkStatus();
  }

  void ResetLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    work_started_ = 0;
    work_finished_ = 0;
    records_produced_ = 0;
    work_.clear();
    work_error_ = absl::OkStatus();
    file_.reset();
    lookahead_.clear();
    line_number_ = 0;
    record_number_ = 0;
  }

  absl::Status OnWorkStartedLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    work_error_ = absl::OkStatus();
    line_number_ = 0;
    record_number_ = 0;
    lookahead_.clear();
    file_.reset();
    // WholeFileReader opens its file when it reads, so a missing file
    // fails the read and stays the work in progress, as TensorFlow's.
    if (options_.kind == Kind::kIdentity ||
        options_.kind == Kind::kWholeFile) {
      return absl::OkStatus();
    }
    DFX_ASSIGN_OR_RETURN(file_,
                         FileReader::Open(node_, work_, options_.compression));
    if (options_.kind == Kind::kTextLine) {
      // A file shorter than its header gives no records.
      std::string line;
      for (; line_number_ < options_.skip_header_lines; ++line_number_) {
        DFX_ASSIGN_OR_RETURN(bool got, file_->NextLine(&line));
        if (!got) break;
      }
    } else if (options_.kind == Kind::kFixedLength) {
      std::string header(static_cast<size_t>(options_.header_bytes), '\0');
      DFX_ASSIGN_OR_RETURN(size_t got,
                           file_->Read(header.data(), header.size()));
      if (got < header.size()) {
        // TensorFlow's SkipNBytes: a file shorter than its header fails.
        return absl::OutOfRangeError(absl::StrCat(
            "reached end of file skipping the ", options_.header_bytes,
            "-byte header of ", work_));
      }
    }
    return absl::OkStatus();
  }

  absl::Status ReadLocked(std::string* key, std::string* value, bool* produced,
                          bool* at_end) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    switch (options_.kind) {
      case Kind::kIdentity:
        *key = work_;
        *value = work_;
        *produced = true;
        *at_end = true;
        return absl::OkStatus();
      case Kind::kWholeFile: {
        DFX_ASSIGN_OR_RETURN(file_, FileReader::Open(node_, work_,
                                                     Compression::kNone));
        std::string contents;
        char chunk[1 << 16];
        while (true) {
          DFX_ASSIGN_OR_RETURN(size_t got, file_->Read(chunk, sizeof(chunk)));
          if (got == 0) break;
          contents.append(chunk, got);
          DFX_RETURN_IF_ERROR(CheckHostMemoryHeadroom(
              static_cast<int64_t>(contents.size()),
              absl::StrCat("the contents of ", work_)));
        }
        *key = work_;
        *value = std::move(contents);
        *produced = true;
        *at_end = true;
        return absl::OkStatus();
      }
      case Kind::kTFRecord: {
        const uint64_t offset = file_->record_offset();
        DFX_ASSIGN_OR_RETURN(bool got, file_->NextRecord(value));
        if (!got) {
          *at_end = true;
          return absl::OkStatus();
        }
        *key = absl::StrCat(work_, ":", offset);
        *produced = true;
        return absl::OkStatus();
      }
      case Kind::kTextLine: {
        DFX_ASSIGN_OR_RETURN(bool got, file_->NextLine(value));
        ++line_number_;
        if (!got) {
          *at_end = true;
          return absl::OkStatus();
        }
        *key = absl::StrCat(work_, ":", line_number_);
        *produced = true;
        return absl::OkStatus();
      }
      case Kind::kFixedLength: {
        // A record needs record_bytes, and the footer after it.
        const size_t need = static_cast<size_t>(options_.record_bytes +
                                                options_.footer_bytes);
        while (lookahead_.size() < need) {
          const size_t want = need - lookahead_.size();
          const size_t old = lookahead_.size();
          lookahead_.resize(need);
          DFX_ASSIGN_OR_RETURN(size_t got,
                               file_->Read(lookahead_.data() + old, want));
          lookahead_.resize(old + got);
          if (got == 0) break;
        }
        if (lookahead_.size() < need ||
            (options_.record_bytes == 0 && record_number_ > 0 &&
             options_.hop_bytes == 0)) {
          *at_end = true;
          return absl::OkStatus();
        }
        value->assign(lookahead_, 0, static_cast<size_t>(options_.record_bytes));
        const size_t hop = static_cast<size_t>(
            options_.hop_bytes > 0 ? options_.hop_bytes : options_.record_bytes);
        lookahead_.erase(0, std::min(hop, lookahead_.size()));
        *key = absl::StrCat(work_, ":", record_number_);
        ++record_number_;
        *produced = true;
        return absl::OkStatus();
      }
    }
    return absl::InternalError("unknown reader kind");
  }

  const std::string name_;
  const std::string node_;
  const ReaderOptions options_;

  absl::Mutex mu_;
  bool busy_ ABSL_GUARDED_BY(mu_) = false;
  std::deque<std::function<void()>> waiting_ ABSL_GUARDED_BY(mu_);
  int64_t work_started_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t work_finished_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t records_produced_ ABSL_GUARDED_BY(mu_) = 0;
  std::string work_ ABSL_GUARDED_BY(mu_);
  absl::Status work_error_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<FileReader> file_ ABSL_GUARDED_BY(mu_);
  std::string lookahead_ ABSL_GUARDED_BY(mu_);  // FixedLengthRecordReader
  int64_t line_number_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t record_number_ ABSL_GUARDED_BY(mu_) = 0;
};

std::atomic<int64_t> next_reader_id{0};

class ReaderOp : public OpKernel {
 public:
  explicit ReaderOp(OpKernelConstruction* c) : OpKernel(c) {
    set_expensive(false);
    std::string op = c->def().op();
    ref_ = !absl::EndsWith(op, "V2");
    if (!ref_) op.resize(op.size() - 2);
    kind_name_ = op;
    if (op == "TFRecordReader") {
      options_.kind = Kind::kTFRecord;
      std::string compression;
      c->SetStatus(c->GetAttr("compression_type", &compression));
      if (!c->status().ok()) return;
      absl::StatusOr<Compression> parsed = data::ParseCompression(compression);
      if (!parsed.ok()) {
        c->SetStatus(parsed.status());
        return;
      }
      options_.compression = *parsed;
    } else if (op == "TextLineReader") {
      options_.kind = Kind::kTextLine;
      c->SetStatus(c->GetAttr("skip_header_lines", &options_.skip_header_lines));
    } else if (op == "FixedLengthRecordReader") {
      options_.kind = Kind::kFixedLength;
      c->SetStatus(c->GetAttr("header_bytes", &options_.header_bytes));
      c->SetStatus(c->GetAttr("record_bytes", &options_.record_bytes));
      c->SetStatus(c->GetAttr("footer_bytes", &options_.footer_bytes));
      c->SetStatus(c->GetAttr("hop_bytes", &options_.hop_bytes));
      if (!c->status().ok()) return;
      const std::pair<const char*, int64_t> checks[] = {
          {"header_bytes", options_.header_bytes},
          {"record_bytes", options_.record_bytes},
          {"footer_bytes", options_.footer_bytes},
          {"hop_bytes", options_.hop_bytes}};
      for (const auto& [attr, v] : checks) {
        if (v < 0) {
          c->SetStatus(absl::InvalidArgumentError(
              absl::StrCat(attr, " must be >= 0 not ", v)));
          return;
        }
      }
      if (!ref_) {
        std::string encoding;
        c->SetStatus(c->GetAttr("encoding", &encoding));
        if (!c->status().ok()) return;
        absl::StatusOr<Compression> parsed = data::ParseCompression(encoding);
        if (!parsed.ok()) {
          c->SetStatus(parsed.status());
          return;
        }
        options_.compression = *parsed;
      }
    } else if (op == "WholeFileReader") {
      options_.kind = Kind::kWholeFile;
    } else {
      options_.kind = Kind::kIdentity;
    }
    c->SetStatus(c->GetAttr("container", &container_));
    c->SetStatus(c->GetAttr("shared_name", &name_));
    if (!c->status().ok()) return;
    // A reader without a shared_name belongs to its kernel (one per node
    // and session), under a name of its own.
    if (name_.empty()) {
      name_ = absl::StrCat("_", next_reader_id.fetch_add(1), "_",
                           c->def().name());
    }
    ResourceMgr* rm = c->device()->resource_manager();
    container_ = container_.empty() ? rm->default_container() : container_;
    handle_ = data_flow::SharedResourceHandle(*c->device(), ref_, container_,
                                              name_, Reader::kTypeName);
  }

  void Compute(OpKernelContext* ctx) override {
    // Looked up every step, so a reset container gives a fresh reader.
    absl::StatusOr<std::shared_ptr<Reader>> r =
        ctx->resource_manager()->LookupOrCreate<Reader>(
            container_, name_, [this] {
              return std::make_shared<Reader>(
                  absl::StrCat(kind_name_, " '", name(), "'"), name(),
                  options_);
            });
    DFX_OP_REQUIRES_OK(ctx, r.status());
    DFX_OP_REQUIRES(
        ctx, (*r)->kind() == options_.kind,
        absl::InvalidArgumentError(absl::StrCat(
            "Shared reader '", name_, "' is a ", (*r)->name(),
            "; this node asks for a ", kind_name_)));
    if (ref_) {
      ctx->set_output_ref(0, TensorRef{&handle_, &handle_mu_});
    } else {
      ctx->set_output(0, handle_);
    }
  }

 private:
  bool ref_ = false;
  std::string kind_name_;
  ReaderOptions options_;
  std::string container_;
  std::string name_;
  Tensor handle_{DT_RESOURCE, TensorShape()};
  absl::Mutex handle_mu_;  // the reference's mutex (the handle never changes)
};

absl::StatusOr<std::shared_ptr<Reader>> GetReader(OpKernelContext* ctx) {
  std::string container, name;
  DFX_RETURN_IF_ERROR(
      data_flow::HandleNameFromInput(ctx, 0, &container, &name));
  return ctx->resource_manager()->Lookup<Reader>(container, name);
}

// One ReaderRead or ReaderReadUpTo call, kept alive across its waits.
struct ReadCall {
  OpKernelContext* ctx = nullptr;
  AsyncOpKernel::DoneCallback done;
  std::shared_ptr<Reader> reader;
  std::shared_ptr<Queue> queue;
  bool up_to = false;
  int64_t num_records = 1;
  std::vector<std::string> keys;
  std::vector<std::string> values;
};

void FinishRead(const std::shared_ptr<ReadCall>& call, absl::Status status) {
  OpKernelContext* ctx = call->ctx;
  if (!status.ok()) {
    ctx->SetStatus(std::move(status));
  } else if (!call->up_to) {
    ctx->set_output(0, Tensor::Scalar<std::string>(std::move(call->keys[0])));
    ctx->set_output(1,
                    Tensor::Scalar<std::string>(std::move(call->values[0])));
  } else {
    const int64_t n = static_cast<int64_t>(call->keys.size());
    for (int i = 0; i < 2; ++i) {
      Tensor* out = nullptr;
      absl::Status s = ctx->allocate_output(i, TensorShape({n}), &out);
      if (!s.ok()) {
        ctx->SetStatus(std::move(s));
        break;
      }
      std::vector<std::string>& src = i == 0 ? call->keys : call->values;
      std::string* dst = out->data<std::string>();
      for (int64_t j = 0; j < n; ++j) dst[j] = std::move(src[j]);
    }
  }
  AsyncOpKernel::DoneCallback done = std::move(call->done);
  std::shared_ptr<Reader> reader = std::move(call->reader);
  reader->Release();
  done();
}

// Reads until the call has its records (or a work unit ends after some),
// taking work from the queue as needed: TensorFlow's ReaderBase::ReadUpTo.
void ContinueRead(std::shared_ptr<ReadCall> call) {
  Reader& reader = *call->reader;
  while (true) {
    const int64_t have = static_cast<int64_t>(call->keys.size());
    if (call->num_records - have == 0) {
      FinishRead(call, absl::OkStatus());
      return;
    }
    if (!reader.WorkInProgress()) break;
    bool at_end = false;
    absl::Status s = reader.ReadOne(&call->keys, &call->values, &at_end);
    if (!s.ok() || (at_end && !call->keys.empty())) {
      FinishRead(call, std::move(s));
      return;
    }
  }
  Queue& queue = *call->queue;
  queue.Dequeue(
      1, false, call->ctx->cancellation_manager(), /*timeout_ms=*/-1,
      [call](absl::Status s, std::vector<Queue::Tuple> elements) {
        if (!s.ok()) {
          FinishRead(call, std::move(s));
          return;
        }
        const Queue::Tuple& t = elements[0];
        if (t.size() != 1) {
          FinishRead(call, absl::InvalidArgumentError(
                               "Expected single component queue"));
          return;
        }
        if (t[0].dtype() != DT_STRING) {
          FinishRead(call, absl::InvalidArgumentError(
                               "Expected queue with single string component"));
          return;
        }
        if (t[0].NumElements() != 1) {
          FinishRead(call,
                     absl::InvalidArgumentError(
                         "Expected to dequeue a one-element string tensor"));
          return;
        }
        absl::Status started = call->reader->StartWork(t[0].data<std::string>()[0]);
        if (!started.ok()) {
          FinishRead(call, std::move(started));
          return;
        }
        ContinueRead(call);
      });
}

class ReaderReadOp : public AsyncOpKernel {
 public:
  explicit ReaderReadOp(OpKernelConstruction* c)
      : AsyncOpKernel(c),
        up_to_(absl::StartsWith(c->def().op(), "ReaderReadUpTo")) {}

  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    auto call = std::make_shared<ReadCall>();
    call->ctx = ctx;
    call->up_to = up_to_;
    absl::StatusOr<std::shared_ptr<Reader>> reader = GetReader(ctx);
    DFX_OP_REQUIRES_OK_ASYNC(ctx, reader.status(), done);
    call->reader = *std::move(reader);
    if (up_to_) {
      const Tensor& n = ctx->input(2);
      DFX_OP_REQUIRES_ASYNC(
          ctx, n.NumElements() == 1,
          absl::InvalidArgumentError(absl::StrCat(
              "num_records must be a scalar, got shape ",
              n.shape().DebugString())),
          done);
      call->num_records = n.data<int64_t>()[0];
    }
    std::string container, name;
    DFX_OP_REQUIRES_OK_ASYNC(
        ctx, data_flow::HandleNameFromInput(ctx, 1, &container, &name), done);
    absl::StatusOr<std::shared_ptr<Queue>> queue =
        ctx->resource_manager()->Lookup<Queue>(container, name);
    DFX_OP_REQUIRES_OK_ASYNC(ctx, queue.status(), done);
    call->queue = *std::move(queue);
    call->done = std::move(done);
    Reader* r = call->reader.get();
    r->Acquire([call] { ContinueRead(call); });
  }

 private:
  const bool up_to_;
};

// The synchronous ops on a reader.
class ReaderVerbOp : public OpKernel {
 public:
  explicit ReaderVerbOp(OpKernelConstruction* c) : OpKernel(c) {
    set_expensive(false);
    verb_ = c->def().op();
    if (absl::EndsWith(verb_, "V2")) verb_.resize(verb_.size() - 2);
  }

  void Compute(OpKernelContext* ctx) override {
    absl::StatusOr<std::shared_ptr<Reader>> r = GetReader(ctx);
    DFX_OP_REQUIRES_OK(ctx, r.status());
    Reader& reader = **r;
    if (verb_ == "ReaderNumRecordsProduced") {
      ctx->set_output(0, Tensor::Scalar<int64_t>(reader.NumRecordsProduced()));
    } else if (verb_ == "ReaderNumWorkUnitsCompleted") {
      ctx->set_output(0,
                      Tensor::Scalar<int64_t>(reader.NumWorkUnitsCompleted()));
    } else if (verb_ == "ReaderReset") {
      reader.Reset();
    } else if (verb_ == "ReaderSerializeState") {
      absl::StatusOr<std::string> state = reader.SerializeState();
      DFX_OP_REQUIRES_OK(ctx, state.status());
      ctx->set_output(0, Tensor::Scalar<std::string>(*std::move(state)));
    } else {
      const Tensor& state = ctx->input(1);
      DFX_OP_REQUIRES(
          ctx, state.dims() == 0,
          absl::InvalidArgumentError(absl::StrCat(
              "Reader state must be scalar, but had shape: ",
              state.shape().DebugString())));
      DFX_OP_REQUIRES_OK(ctx,
                         reader.RestoreState(state.data<std::string>()[0]));
    }
  }

 private:
  std::string verb_;
};

// --- MatchingFiles and WriteFile.

class MatchingFilesOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& patterns = ctx->input(0);
    DFX_OP_REQUIRES(
        ctx, patterns.dims() <= 1,
        absl::InvalidArgumentError(absl::StrCat(
            "Input pattern tensor must be scalar or vector, but had shape: ",
            patterns.shape().DebugString())));
    std::vector<std::string> found;
    for (int64_t i = 0; i < patterns.NumElements(); ++i) {
      const std::string& pattern = patterns.data<std::string>()[i];
      absl::StatusOr<std::string> resolved = ResolveDataPath(name(), pattern);
      DFX_OP_REQUIRES_OK(ctx, resolved.status());
      glob_t g{};
      const int rc = glob(resolved->c_str(), 0, nullptr, &g);
      if (rc == 0) {
        for (size_t j = 0; j < g.gl_pathc; ++j) {
          std::string path = g.gl_pathv[j];
          // Names as the pattern gave them, not as the data directory
          // resolved them.
          if (*resolved != pattern &&
              absl::StartsWith(path, *resolved) == false) {
            const std::string dir = DataDir();
            if (!dir.empty() && absl::StartsWith(path, dir + "/") &&
                !absl::StartsWith(pattern, "/")) {
              path = path.substr(dir.size() + 1);
            }
          }
          found.push_back(std::move(path));
        }
      }
      globfree(&g);
      DFX_OP_REQUIRES(
          ctx, rc == 0 || rc == GLOB_NOMATCH,
          absl::InternalError(absl::StrCat("cannot match files of pattern ",
                                           pattern, " (glob error ", rc, ")")));
    }
    std::sort(found.begin(), found.end());
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(
                           0, TensorShape({static_cast<int64_t>(found.size())}),
                           &out));
    for (size_t j = 0; j < found.size(); ++j) {
      out->data<std::string>()[j] = std::move(found[j]);
    }
  }
};

class WriteFileOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& filename = ctx->input(0);
    const Tensor& contents = ctx->input(1);
    DFX_OP_REQUIRES(
        ctx, filename.dims() == 0,
        absl::InvalidArgumentError(absl::StrCat(
            "Input filename tensor must be scalar, but had shape: ",
            filename.shape().DebugString())));
    DFX_OP_REQUIRES(
        ctx, contents.dims() == 0,
        absl::InvalidArgumentError(absl::StrCat(
            "Contents tensor must be scalar, but had shape: ",
            contents.shape().DebugString())));
    const std::string& path = filename.data<std::string>()[0];
    absl::StatusOr<std::string> resolved = ResolveDataPath(name(), path);
    DFX_OP_REQUIRES_OK(ctx, resolved.status());
    const std::filesystem::path parent =
        std::filesystem::path(*resolved).parent_path();
    if (!parent.empty()) {
      std::error_code ec;
      std::filesystem::create_directories(parent, ec);
      DFX_OP_REQUIRES(ctx, !ec,
                      absl::PermissionDeniedError(absl::StrCat(
                          "cannot create the directory of ", path, ": ",
                          ec.message())));
    }
    std::ofstream out(*resolved, std::ios::binary | std::ios::trunc);
    const std::string& data = contents.data<std::string>()[0];
    out.write(data.data(), static_cast<std::streamsize>(data.size()));
    out.close();
    DFX_OP_REQUIRES(ctx, static_cast<bool>(out),
                    absl::PermissionDeniedError(
                        absl::StrCat(path, "; cannot write the file")));
  }
};

}  // namespace

void RegisterReadersKernels(KernelRegistry* r) {
  for (const char* base : {"TFRecordReader", "TextLineReader",
                           "FixedLengthRecordReader", "WholeFileReader",
                           "IdentityReader"}) {
    RegisterKernel<ReaderOp>(r, KernelDefBuilder(base));
    RegisterKernel<ReaderOp>(r, KernelDefBuilder(absl::StrCat(base, "V2")));
  }
  for (const char* base : {"ReaderRead", "ReaderReadUpTo"}) {
    RegisterKernel<ReaderReadOp>(r, KernelDefBuilder(base));
    RegisterKernel<ReaderReadOp>(r, KernelDefBuilder(absl::StrCat(base, "V2")));
  }
  for (const char* base :
       {"ReaderNumRecordsProduced", "ReaderNumWorkUnitsCompleted",
        "ReaderReset", "ReaderSerializeState", "ReaderRestoreState"}) {
    RegisterKernel<ReaderVerbOp>(r, KernelDefBuilder(base));
    RegisterKernel<ReaderVerbOp>(r, KernelDefBuilder(absl::StrCat(base, "V2")));
  }
  RegisterKernel<MatchingFilesOp>(r, KernelDefBuilder("MatchingFiles"));
  RegisterKernel<WriteFileOp>(r, KernelDefBuilder("WriteFile"));
}

}  // namespace dfx

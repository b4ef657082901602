#include "tools/cli/data_service_state.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "checkpoint/crc32c.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "proto/function.pb.h"

namespace dfx::cli {
namespace {

void RenameFunctions(const std::map<std::string, std::string>& names,
                     AttrValue* value) {
  if (value->has_func()) {
    auto it = names.find(value->func().name());
    if (it != names.end()) value->mutable_func()->set_name(it->second);
    for (auto& [k, v] : *value->mutable_func()->mutable_attr()) {
      RenameFunctions(names, &v);
    }
  }
  // (mutable_list() would turn any other value into a list.)
  if (!value->has_list()) return;
  for (NameAttrList& f : *value->mutable_list()->mutable_func()) {
    auto it = names.find(f.name());
    if (it != names.end()) f.set_name(it->second);
  }
}

void RenameFunctions(const std::map<std::string, std::string>& names,
                     NodeDef* node) {
  auto it = names.find(node->op());
  if (it != names.end()) node->set_op(it->second);
  // A dataset op's metadata names it with a counter of its process
  // ("MapDataset:2"): not part of what the pipeline computes.
  node->mutable_attr()->erase("metadata");
  for (auto& [k, v] : *node->mutable_attr()) RenameFunctions(names, &v);
}

// The graph's deterministic serialization with its functions renamed in
// the order the library lists them and the dataset ops' metadata attrs
// left out: TensorFlow's client names a pipeline's functions and datasets
// afresh each time it serializes it (map's lambda_12, then lambda_34;
// MapDataset:1, then :2) and writes some attr maps in any order, and a pipeline
// registered twice must get one id (readers sharing a job name share the
// dataset).
std::string Fingerprint(GraphDef graph) {
  std::map<std::string, std::string> names;
  for (const FunctionDef& f : graph.library().function()) {
    names.emplace(f.signature().name(), absl::StrCat("f", names.size()));
  }
  for (NodeDef& n : *graph.mutable_node()) RenameFunctions(names, &n);
  for (FunctionDef& f : *graph.mutable_library()->mutable_function()) {
    f.mutable_signature()->set_name(names.at(f.signature().name()));
    for (NodeDef& n : *f.mutable_node_def()) RenameFunctions(names, &n);
  }
  // Fields dfx's protos do not name (a FunctionDef's arg_attr) keep the
  // order they came in, which TensorFlow does not fix: left out.
  graph.DiscardUnknownFields();
  std::string out;
  {
    google::protobuf::io::StringOutputStream stream(&out);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    graph.SerializeToCodedStream(&coded);
  }
  return out;
}

absl::Status ClientNotFound(int64_t client_id) {
  return absl::NotFoundError(
      absl::StrCat("Iteration client id not found: ", client_id));
}

// A journal record on disk: its payload's length and masked CRC32C (4
// bytes each, little-endian), then the payload (a serialized
// DispatcherJournalRecord).
void PutU32(uint32_t v, std::string* out) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>(v >> (8 * i)));
}
uint32_t GetU32(const char* p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) {
    v |= static_cast<uint32_t>(static_cast<unsigned char>(p[i])) << (8 * i);
  }
  return v;
}

// `record` as the journal holds it.
std::string Framed(const tfdata::DispatcherJournalRecord& record) {
  std::string payload;
  record.SerializeToString(&payload);
  std::string bytes;
  PutU32(static_cast<uint32_t>(payload.size()), &bytes);
  PutU32(crc32c::Mask(crc32c::Value(payload.data(), payload.size())), &bytes);
  bytes += payload;
  return bytes;
}

// Makes `dir`'s entries (a new or renamed file) durable.
void SyncDir(const std::string& dir) {
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

constexpr char kJournalName[] = "dispatcher_journal";

bool IsStatic(const tfdata::ProcessingModeDef& mode) {
  const auto p = mode.sharding_policy();
  return p == tfdata::ProcessingModeDef::FILE ||
         p == tfdata::ProcessingModeDef::DATA ||
         p == tfdata::ProcessingModeDef::FILE_OR_DATA ||
         p == tfdata::ProcessingModeDef::HINT;
}

// Whether worker `address` ("host:port") is configured entry `entry`:
// the same address, or its host with "%port%" or no port.
bool Matches(const std::string& entry, const std::string& address) {
  if (entry == address) return true;
  const size_t colon = address.rfind(':');
  const std::string host = address.substr(0, colon);
  return entry == host || entry == host + ":%port%";
}

}  // namespace

DispatcherState::~DispatcherState() {
  absl::MutexLock lock(&mu_);
  if (journal_ != nullptr) std::fclose(journal_);
}

void DispatcherState::SeeIdLocked(int64_t id) {
  next_id_ = std::max(next_id_, id + 1);
}

void DispatcherState::SetWorkerAddresses(std::vector<std::string> addresses) {
  absl::MutexLock lock(&mu_);
  worker_addresses_ = std::move(addresses);
}

bool DispatcherState::IsStaticLocked(int64_t iteration_id) {
  auto it = iterations_.find(iteration_id);
  if (it == iterations_.end()) return false;
  auto job = jobs_.find(it->second.job_id);
  return job != jobs_.end() && IsStatic(job->second.mode);
}

absl::StatusOr<int64_t> DispatcherState::WorkerIndexLocked(
    const std::string& worker) {
  auto known = worker_indices_.find(worker);
  if (known != worker_indices_.end()) return known->second;
  std::set<int64_t> taken;
  for (const auto& [address, index] : worker_indices_) taken.insert(index);
  for (size_t i = 0; i < worker_addresses_.size(); ++i) {
    const int64_t index = static_cast<int64_t>(i);
    if (taken.contains(index) || !Matches(worker_addresses_[i], worker)) {
      continue;
    }
    worker_indices_[worker] = index;
    return index;
  }
  return absl::NotFoundError(
      absl::StrCat("Worker ", worker, " is not in the workers list."));
}

void DispatcherState::SetJournalCompactionBytes(int64_t bytes) {
  absl::MutexLock lock(&mu_);
  compact_min_bytes_ = std::max<int64_t>(bytes, 1);
  compact_at_ = std::max(compact_at_, compact_min_bytes_);
}

int64_t DispatcherState::JournalCompactions() {
  absl::MutexLock lock(&mu_);
  return compactions_;
}

int64_t DispatcherState::JournalBytes() {
  absl::MutexLock lock(&mu_);
  return journal_ == nullptr ? 0 : journal_bytes_;
}

absl::Status DispatcherState::AppendLocked(const Record& record) {
  if (journal_ == nullptr) return absl::OkStatus();
  const std::string bytes = Framed(record);
  if (std::fwrite(bytes.data(), 1, bytes.size(), journal_) != bytes.size() ||
      std::fflush(journal_) != 0 || ::fsync(fileno(journal_)) != 0) {
    return absl::UnavailableError(absl::StrCat(
        "cannot write the dispatcher's journal: ", std::strerror(errno)));
  }
  journal_bytes_ += static_cast<int64_t>(bytes.size());
  return absl::OkStatus();
}

absl::Status DispatcherState::ChangeLocked(const Record& record,
                                           absl::Time now) {
  DFX_RETURN_IF_ERROR(AppendLocked(record));
  ApplyLocked(record, now);
  // After the change is applied, so that the snapshot holds it.
  MaybeCompactLocked();
  return absl::OkStatus();
}

void DispatcherState::MaybeCompactLocked() {
  if (journal_ == nullptr || journal_bytes_ <= compact_at_) return;
  absl::Status compacted = CompactLocked();
  if (compacted.ok()) return;
  std::fprintf(stderr,
               "dfx data-service: the journal was not compacted (it stays "
               "as it was): %s\n",
               std::string(compacted.message()).c_str());
  compact_at_ = 2 * journal_bytes_;
}

std::vector<DispatcherState::Record> DispatcherState::SnapshotLocked() {
  std::vector<Record> out;
  for (const auto& [id, dataset] : datasets_) {
    Record& r = out.emplace_back();
    r.mutable_dataset()->set_id(id);
    *r.mutable_dataset()->mutable_request() = dataset.request;
  }
  for (const auto& [id, job] : jobs_) {
    Record& r = out.emplace_back();
    r.mutable_job()->set_id(id);
    *r.mutable_job()->mutable_request() = job.request;
  }
  for (const auto& [id, iteration] : iterations_) {
    Record& r = out.emplace_back();
    r.mutable_iteration()->set_id(id);
    r.mutable_iteration()->set_job_id(iteration.job_id);
    r.mutable_iteration()->set_repetition(iteration.repetition);
    if (!iteration.dynamic) continue;
    Record& splits = out.emplace_back();
    splits.mutable_splits()->set_iteration_id(id);
    splits.mutable_splits()->set_taken(iteration.splits_taken);
    for (const auto& [task, last] : iteration.last_splits) {
      Record::Split* split = splits.mutable_splits()->add_last();
      split->set_iteration_id(id);
      split->set_task_id(task);
      split->set_request_index(last.first);
      split->set_split(last.second);
    }
  }
  for (const auto& [worker, index] : worker_indices_) {
    Record& r = out.emplace_back();
    r.mutable_worker_index()->set_worker(worker);
    r.mutable_worker_index()->set_index(index);
  }
  for (const auto& [id, task] : tasks_) {
    Record& r = out.emplace_back();
    r.mutable_task()->set_id(id);
    r.mutable_task()->set_iteration_id(task.iteration_id);
    r.mutable_task()->set_worker(task.worker);
    r.mutable_task()->set_worker_index(task.worker_index);
    if (task.finished) out.emplace_back().set_finished_task(id);
  }
  // Workers that expired but have finished tasks left (which named them
  // again above).
  std::set<std::string> expired;
  for (const auto& [id, task] : tasks_) {
    if (!workers_.contains(task.worker)) expired.insert(task.worker);
  }
  for (const std::string& worker : expired) {
    out.emplace_back().set_expired_worker(worker);
  }
  for (const auto& [id, client] : clients_) {
    Record& r = out.emplace_back();
    r.mutable_client()->set_id(id);
    r.mutable_client()->set_iteration_id(client.first);
  }
  out.emplace_back().set_next_id(next_id_);
  return out;
}

absl::Status DispatcherState::CompactLocked() {
  std::string bytes;
  for (const Record& r : SnapshotLocked()) bytes += Framed(r);
  const std::string tmp = journal_path_ + ".compacting";
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (f == nullptr) {
    return absl::UnavailableError(
        absl::StrCat("cannot create ", tmp, ": ", std::strerror(errno)));
  }
  if (std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size() ||
      std::fflush(f) != 0 || ::fsync(fileno(f)) != 0 ||
      std::rename(tmp.c_str(), journal_path_.c_str()) != 0) {
    const int error = errno;
    std::fclose(f);
    std::remove(tmp.c_str());
    return absl::UnavailableError(
        absl::StrCat("cannot write the compacted journal ", tmp, ": ",
                     std::strerror(error)));
  }
  SyncDir(journal_dir_);
  // The new file, open at its end, takes the later records.
  std::fclose(journal_);
  journal_ = f;
  journal_bytes_ = static_cast<int64_t>(bytes.size());
  compact_at_ = std::max(compact_min_bytes_, 2 * journal_bytes_);
  ++compactions_;
  return absl::OkStatus();
}

void DispatcherState::SkipSplitsLocked(Iteration& iteration, int64_t n) {
  iteration.splits_taken += n;
  if (iteration.splits == nullptr) return;
  for (int64_t i = 0; i < n; ++i) {
    int64_t split = 0;
    bool end = false;
    iteration.splits->GetNext(&split, &end).IgnoreError();
  }
}

void DispatcherState::ApplyLocked(const Record& r, absl::Time now) {
  switch (r.change_case()) {
    case Record::kDataset: {
      const std::string& id = r.dataset().id();
      datasets_[id] = {Fingerprint(r.dataset().request().dataset().graph()),
                       r.dataset().request().dataset(),
                       r.dataset().request().metadata(), r.dataset().request()};
      int64_t n = 0;
      if (absl::SimpleAtoi(id, &n)) SeeIdLocked(n);
      break;
    }
    case Record::kJob: {
      const auto& request = r.job().request();
      jobs_[r.job().id()] = {request.dataset_id(),
                             request.processing_mode_def(),
                             request.job_name(),
                             {},
                             request};
      if (!request.job_name().empty()) {
        jobs_by_name_[request.job_name()] = r.job().id();
      }
      SeeIdLocked(r.job().id());
      break;
    }
    case Record::kIteration: {
      const int64_t id = r.iteration().id();
      Job& job = jobs_.at(r.iteration().job_id());
      job.iterations[r.iteration().repetition()] = id;
      Iteration& iteration = iterations_[id];
      iteration.job_id = r.iteration().job_id();
      iteration.repetition = r.iteration().repetition();
      iteration.dynamic =
          job.mode.sharding_policy() == tfdata::ProcessingModeDef::DYNAMIC;
      if (iteration.dynamic) {
        absl::StatusOr<std::unique_ptr<data::SplitProvider>> splits =
            splits_ == nullptr ? absl::UnimplementedError(
                                     "this dispatcher has no split providers")
                               : splits_(datasets_.at(job.dataset_id).def);
        if (splits.ok()) {
          iteration.splits = *std::move(splits);
        } else {
          iteration.splits_error = splits.status();
        }
      }
      SeeIdLocked(id);
      break;
    }
    case Record::kClient: {
      const int64_t id = r.client().id();
      iterations_[r.client().iteration_id()].clients.insert(id);
      clients_[id] = {r.client().iteration_id(), now};
      SeeIdLocked(id);
      break;
    }
    case Record::kReleasedClient: {
      auto client = clients_.find(r.released_client());
      if (client == clients_.end()) break;
      const int64_t iteration_id = client->second.first;
      clients_.erase(client);
      auto it = iterations_.find(iteration_id);
      if (it == iterations_.end()) break;
      it->second.clients.erase(r.released_client());
      if (!it->second.clients.empty()) break;
      // No reader is left: the iteration and its tasks go (workers learn
      // it from their next heartbeat's tasks_to_delete).
      for (int64_t task : it->second.tasks) {
        auto t = tasks_.find(task);
        if (t == tasks_.end()) continue;
        auto w = workers_.find(t->second.worker);
        if (w != workers_.end()) w->second.tasks.erase(task);
        tasks_.erase(t);
      }
      iterations_.erase(it);
      break;
    }
    case Record::kTask: {
      const int64_t id = r.task().id();
      tasks_[id] = {r.task().iteration_id(), r.task().worker(), false,
                    r.task().worker_index()};
      if (r.task().worker_index() >= 0) {
        worker_indices_[r.task().worker()] = r.task().worker_index();
      }
      iterations_[r.task().iteration_id()].tasks.insert(id);
      auto [w, is_new] = workers_.try_emplace(r.task().worker());
      if (is_new) w->second.last_heartbeat = now;
      w->second.tasks.insert(id);
      SeeIdLocked(id);
      break;
    }
    case Record::kFinishedTask: {
      auto t = tasks_.find(r.finished_task());
      if (t != tasks_.end()) t->second.finished = true;
      break;
    }
    case Record::kLostTask: {
      auto t = tasks_.find(r.lost_task());
      if (t == tasks_.end()) break;
      auto it = iterations_.find(t->second.iteration_id);
      if (it != iterations_.end()) it->second.tasks.erase(t->first);
      auto w = workers_.find(t->second.worker);
      if (w != workers_.end()) w->second.tasks.erase(t->first);
      tasks_.erase(t);
      break;
    }
    case Record::kSplit: {
      auto it = iterations_.find(r.split().iteration_id());
      if (it == iterations_.end()) break;
      if (r.split().task_id() != 0) {
        it->second.last_splits[r.split().task_id()] = {
            r.split().request_index(), r.split().split()};
      }
      // Replaying: the provider skips the split it handed out (a live
      // change has taken it already, in GetSplit).
      if (replaying_) {
        SkipSplitsLocked(it->second, 1);
      } else {
        ++it->second.splits_taken;
      }
      break;
    }
    case Record::kSplits: {
      auto it = iterations_.find(r.splits().iteration_id());
      if (it == iterations_.end() || !replaying_) break;
      for (const Record::Split& last : r.splits().last()) {
        it->second.last_splits[last.task_id()] = {last.request_index(),
                                                  last.split()};
      }
      SkipSplitsLocked(it->second, std::max<int64_t>(r.splits().taken(), 0));
      break;
    }
    case Record::kWorkerIndex:
      worker_indices_[r.worker_index().worker()] = r.worker_index().index();
      break;
    case Record::kExpiredWorker:
      workers_.erase(r.expired_worker());
      break;
    case Record::kNextId:
      next_id_ = std::max(next_id_, r.next_id());
      break;
    case Record::CHANGE_NOT_SET:
      break;
  }
}

absl::Status DispatcherState::OpenJournal(const std::string& dir,
                                          absl::Time now) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot create the work directory ", dir, ": ", ec.message()));
  }
  const std::string path = absl::StrCat(dir, "/", kJournalName);
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    if (in) {
      bytes.assign(std::istreambuf_iterator<char>(in),
                   std::istreambuf_iterator<char>());
    }
  }
  absl::MutexLock lock(&mu_);
  if (journal_ != nullptr) {
    return absl::FailedPreconditionError("the journal is open already");
  }
  size_t pos = 0;
  replaying_ = true;
  while (bytes.size() - pos >= 8) {
    const uint32_t length = GetU32(bytes.data() + pos);
    const uint32_t crc = crc32c::Unmask(GetU32(bytes.data() + pos + 4));
    if (bytes.size() - pos - 8 < length) break;  // cut short
    const char* payload = bytes.data() + pos + 8;
    if (crc32c::Value(payload, length) != crc) break;
    Record record;
    if (!record.ParseFromArray(payload, static_cast<int>(length))) break;
    ApplyLocked(record, now);
    pos += 8 + length;
  }
  replaying_ = false;
  // A torn tail goes, so that later records follow the last whole one.
  if (pos != bytes.size()) {
    std::fprintf(stderr,
                 "dfx data-service: the journal %s ends with %zu bytes of a "
                 "record cut short or damaged; they are dropped\n",
                 path.c_str(), bytes.size() - pos);
    std::filesystem::resize_file(path, pos, ec);
    if (ec) {
      return absl::FailedPreconditionError(
          absl::StrCat("cannot cut the journal ", path, ": ", ec.message()));
    }
  }
  journal_ = std::fopen(path.c_str(), "ab");
  if (journal_ == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot open the journal ", path, ": ", std::strerror(errno)));
  }
  // The journal file's directory entry, made durable once.
  SyncDir(dir);
  journal_path_ = path;
  journal_dir_ = dir;
  journal_bytes_ = static_cast<int64_t>(pos);
  compact_at_ = compact_min_bytes_;
  // A long journal is compacted at once: the next start replays less.
  MaybeCompactLocked();
  return absl::OkStatus();
}

absl::StatusOr<std::string> DispatcherState::GetOrRegisterDataset(
    const tfdata::GetOrRegisterDatasetRequest& request) {
  // The canonical bytes themselves are the fingerprint (a hash would need
  // a collision check against them anyway).
  std::string fingerprint = Fingerprint(request.dataset().graph());
  absl::MutexLock lock(&mu_);
  std::string id;
  if (request.has_dataset_id() && !request.dataset_id().empty()) {
    auto it = datasets_.find(request.dataset_id());
    if (it != datasets_.end()) {
      if (it->second.fingerprint != fingerprint) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Datasets with the same ID should have the same structure, got "
            "conflicting datasets for ID ",
            request.dataset_id()));
      }
      return request.dataset_id();
    }
    id = request.dataset_id();
  } else {
    for (const auto& [known, d] : datasets_) {
      if (d.fingerprint == fingerprint) return known;
    }
    id = absl::StrCat(next_id_);
  }
  Record r;
  r.mutable_dataset()->set_id(id);
  *r.mutable_dataset()->mutable_request() = request;
  DFX_RETURN_IF_ERROR(ChangeLocked(r, absl::InfinitePast()));
  return id;
}

absl::StatusOr<tfdata::DataServiceMetadata> DispatcherState::GetMetadata(
    const std::string& dataset_id) {
  absl::MutexLock lock(&mu_);
  auto it = datasets_.find(dataset_id);
  if (it == datasets_.end()) {
    return absl::NotFoundError(
        absl::StrCat("Dataset id ", dataset_id, " not found"));
  }
  return it->second.metadata;
}

absl::StatusOr<int64_t> DispatcherState::GetOrCreateJob(
    const tfdata::GetOrCreateJobRequest& request) {
  if (!tfdata::ProcessingModeDef::ShardingPolicy_IsValid(
          request.processing_mode_def().sharding_policy())) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown sharding policy ",
                     request.processing_mode_def().sharding_policy()));
  }
  if (request.has_num_consumers()) {
    return absl::UnimplementedError(
        "dfx's tf.data service dispatcher does not serve round-robin reads "
        "(num_consumers)");
  }
  absl::MutexLock lock(&mu_);
  if (!datasets_.contains(request.dataset_id())) {
    return absl::NotFoundError(
        absl::StrCat("Dataset id ", request.dataset_id(), " not found"));
  }
  const std::string name = request.job_name();
  if (!name.empty()) {
    auto it = jobs_by_name_.find(name);
    if (it != jobs_by_name_.end()) {
      const Job& job = jobs_.at(it->second);
      if (job.dataset_id != request.dataset_id() ||
          job.mode.sharding_policy() !=
              request.processing_mode_def().sharding_policy()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Tried to create job with name ", name,
            ", but found an existing job with different parameters: "
            "dataset id ",
            job.dataset_id, " (requested ", request.dataset_id(), ")"));
      }
      return it->second;
    }
  }
  const int64_t id = next_id_;
  Record r;
  r.mutable_job()->set_id(id);
  *r.mutable_job()->mutable_request() = request;
  DFX_RETURN_IF_ERROR(ChangeLocked(r, absl::InfinitePast()));
  return id;
}

absl::StatusOr<int64_t> DispatcherState::GetOrCreateIteration(
    int64_t job_id, int64_t repetition, absl::Time now) {
  absl::MutexLock lock(&mu_);
  auto job = jobs_.find(job_id);
  if (job == jobs_.end()) {
    return absl::NotFoundError(absl::StrCat("Job id ", job_id, " not found"));
  }
  int64_t iteration_id;
  auto it = job->second.iterations.find(repetition);
  if (it != job->second.iterations.end() && iterations_.contains(it->second)) {
    iteration_id = it->second;
  } else {
    // A DYNAMIC iteration needs its splits: a source that cannot be split
    // is the client's error now (TensorFlow's), before anything is
    // journaled.
    if (job->second.mode.sharding_policy() ==
        tfdata::ProcessingModeDef::DYNAMIC) {
      if (splits_ == nullptr) {
        return absl::UnimplementedError(
            "this dispatcher has no split providers");
      }
      DFX_RETURN_IF_ERROR(
          splits_(datasets_.at(job->second.dataset_id).def).status());
    }
    // Static sharding: every live worker needs its index.
    if (IsStatic(job->second.mode)) {
      for (const auto& [address, worker] : workers_) {
        DFX_RETURN_IF_ERROR(WorkerIndexLocked(address).status());
      }
    }
    iteration_id = next_id_;
    Record r;
    r.mutable_iteration()->set_id(iteration_id);
    r.mutable_iteration()->set_job_id(job_id);
    r.mutable_iteration()->set_repetition(repetition);
    DFX_RETURN_IF_ERROR(ChangeLocked(r, now));
    std::vector<std::string> workers;
    for (const auto& [address, worker] : workers_) workers.push_back(address);
    for (const std::string& address : workers) {
      DFX_RETURN_IF_ERROR(AddTaskLocked(iteration_id, address, now));
    }
  }
  const int64_t client_id = next_id_;
  Record r;
  r.mutable_client()->set_id(client_id);
  r.mutable_client()->set_iteration_id(iteration_id);
  DFX_RETURN_IF_ERROR(ChangeLocked(r, now));
  return client_id;
}

absl::Status DispatcherState::AddTaskLocked(int64_t iteration_id,
                                            const std::string& worker,
                                            absl::Time now) {
  Record r;
  r.mutable_task()->set_id(next_id_);
  r.mutable_task()->set_iteration_id(iteration_id);
  r.mutable_task()->set_worker(worker);
  r.mutable_task()->set_worker_index(-1);
  if (IsStaticLocked(iteration_id)) {
    DFX_ASSIGN_OR_RETURN(int64_t index, WorkerIndexLocked(worker));
    r.mutable_task()->set_worker_index(index);
  }
  return ChangeLocked(r, now);
}

bool DispatcherState::FinishedLocked(const Iteration& iteration) {
  if (iteration.tasks.empty()) return false;
  for (int64_t t : iteration.tasks) {
    if (!tasks_.at(t).finished) return false;
  }
  return true;
}

absl::Status DispatcherState::ReleaseIterationClient(int64_t client_id) {
  absl::MutexLock lock(&mu_);
  if (!clients_.contains(client_id)) return ClientNotFound(client_id);
  return ReleaseClientLocked(client_id, absl::InfinitePast());
}

absl::Status DispatcherState::ReleaseClientLocked(int64_t client_id,
                                                  absl::Time now) {
  Record r;
  r.set_released_client(client_id);
  return ChangeLocked(r, now);
}

absl::StatusOr<tfdata::ClientHeartbeatResponse>
DispatcherState::ClientHeartbeat(const tfdata::ClientHeartbeatRequest& request,
                                 absl::Time now) {
  absl::MutexLock lock(&mu_);
  auto client = clients_.find(request.iteration_client_id());
  if (client == clients_.end()) {
    return ClientNotFound(request.iteration_client_id());
  }
  client->second.second = now;
  const Iteration& iteration = iterations_.at(client->second.first);
  tfdata::ClientHeartbeatResponse response;
  for (int64_t task_id : iteration.tasks) {
    const Task& task = tasks_.at(task_id);
    tfdata::TaskInfo* info = response.add_task_info();
    info->set_worker_address(task.worker);
    info->set_task_id(task_id);
    info->set_iteration_id(client->second.first);
    tfdata::DataTransferServerInfo* server = info->add_transfer_servers();
    server->set_protocol("grpc");
    server->set_address(task.worker);
  }
  response.set_iteration_finished(FinishedLocked(iteration));
  response.set_deployment_mode(tfdata::DEPLOYMENT_MODE_REMOTE);
  return response;
}

absl::StatusOr<tfdata::WorkerHeartbeatResponse>
DispatcherState::WorkerHeartbeat(const tfdata::WorkerHeartbeatRequest& request,
                                 absl::Time now) {
  if (request.worker_address().empty()) {
    return absl::InvalidArgumentError("worker_address must be non-empty");
  }
  absl::MutexLock lock(&mu_);
  if (!worker_addresses_.empty()) {
    bool configured = false;
    for (const std::string& entry : worker_addresses_) {
      configured |= Matches(entry, request.worker_address());
    }
    if (!configured) {
      return absl::FailedPreconditionError(absl::StrCat(
          "The worker's address is not configured in the dispatcher's "
          "worker_addresses: ",
          request.worker_address()));
    }
  }
  const bool is_new = !workers_.contains(request.worker_address());
  workers_[request.worker_address()].last_heartbeat = now;
  if (is_new) {
    // A worker that joins serves every unfinished iteration (OFF: each
    // worker reads a whole epoch; DYNAMIC: it reads splits beside the
    // others).
    std::vector<int64_t> unfinished;
    for (const auto& [id, iteration] : iterations_) {
      if (FinishedLocked(iteration)) continue;
      // A static iteration's worker needs an index (more workers than
      // configured: this one gets none).
      if (IsStaticLocked(id) &&
          !WorkerIndexLocked(request.worker_address()).ok()) {
        continue;
      }
      unfinished.push_back(id);
    }
    for (int64_t id : unfinished) {
      DFX_RETURN_IF_ERROR(AddTaskLocked(id, request.worker_address(), now));
    }
  }
  const Worker& worker = workers_.at(request.worker_address());
  const std::set<int64_t> current(request.current_tasks().begin(),
                                  request.current_tasks().end());
  tfdata::WorkerHeartbeatResponse response;
  for (int64_t task_id : worker.tasks) {
    const Task& task = tasks_.at(task_id);
    if (task.finished || current.contains(task_id)) continue;
    const Iteration& iteration = iterations_.at(task.iteration_id);
    const Job& job = jobs_.at(iteration.job_id);
    tfdata::TaskDef* def = response.add_new_tasks();
    *def->mutable_dataset_def() = datasets_.at(job.dataset_id).def;
    def->set_dataset_id(job.dataset_id);
    def->set_task_id(task_id);
    def->set_iteration_id(task.iteration_id);
    def->set_worker_address(request.worker_address());
    *def->mutable_processing_mode_def() = job.mode;
    if (IsStatic(job.mode)) {
      def->set_num_workers(static_cast<int64_t>(worker_addresses_.size()));
      def->set_worker_index(task.worker_index);
    }
  }
  for (int64_t task_id : current) {
    if (!worker.tasks.contains(task_id)) response.add_tasks_to_delete(task_id);
  }
  return response;
}

absl::Status DispatcherState::WorkerUpdate(
    const tfdata::WorkerUpdateRequest& request) {
  absl::MutexLock lock(&mu_);
  auto worker = workers_.find(request.worker_address());
  if (worker == workers_.end()) {
    return absl::NotFoundError(
        absl::StrCat("Worker ", request.worker_address(), " not found"));
  }
  for (const tfdata::TaskProgress& p : request.updates()) {
    auto task = tasks_.find(p.task_id());
    // A task of a released iteration is gone: nothing to record.
    if (task == tasks_.end()) continue;
    if (task->second.worker != request.worker_address()) {
      return absl::InvalidArgumentError(
          absl::StrCat("Task ", p.task_id(), " is not a task of worker ",
                       request.worker_address()));
    }
    if (p.completed() && !task->second.finished) {
      Record r;
      r.set_finished_task(p.task_id());
      DFX_RETURN_IF_ERROR(ChangeLocked(r, absl::InfinitePast()));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<tfdata::GetSplitResponse> DispatcherState::GetSplit(
    const tfdata::GetSplitRequest& request) {
  absl::MutexLock lock(&mu_);
  auto it = iterations_.find(request.iteration_id());
  if (it == iterations_.end()) {
    return absl::NotFoundError(
        absl::StrCat("Iteration id ", request.iteration_id(), " not found"));
  }
  Iteration& iteration = it->second;
  if (!iteration.dynamic) {
    return absl::FailedPreconditionError(
        absl::StrCat("Iteration ", request.iteration_id(),
                     " is not DYNAMIC (distributed_epoch): it has no splits"));
  }
  if (request.split_provider_index() != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "split provider index ", request.split_provider_index(),
        " is out of range: dfx's iterations have one split provider"));
  }
  if (iteration.splits == nullptr) return iteration.splits_error;
  tfdata::GetSplitResponse response;
  const auto set_split = [&response](int64_t split) {
    TensorProto* t = response.mutable_split();
    t->set_dtype(DT_INT64);
    t->mutable_tensor_shape();
    t->add_int64_val(split);
  };
  const int64_t task = request.dfx_task_id();
  if (task != 0) {
    auto last = iteration.last_splits.find(task);
    const int64_t last_index =
        last == iteration.last_splits.end() ? 0 : last->second.first;
    if (request.dfx_request_index() == last_index && last_index > 0) {
      set_split(last->second.second);  // asked again: the same split
      return response;
    }
    if (request.dfx_request_index() != last_index + 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "task ", task, " asked for split request ",
          request.dfx_request_index(), " after request ", last_index));
    }
  }
  int64_t split = 0;
  bool end = false;
  DFX_RETURN_IF_ERROR(iteration.splits->GetNext(&split, &end));
  response.set_end_of_splits(end);
  if (end) return response;
  // Journaled after it is taken: a restarted dispatcher skips it, and
  // answers the task's repeated request with it.
  Record r;
  r.mutable_split()->set_iteration_id(request.iteration_id());
  r.mutable_split()->set_task_id(task);
  r.mutable_split()->set_request_index(request.dfx_request_index());
  r.mutable_split()->set_split(split);
  DFX_RETURN_IF_ERROR(ChangeLocked(r, absl::InfinitePast()));
  set_split(split);
  return response;
}

std::vector<std::string> DispatcherState::Workers() {
  absl::MutexLock lock(&mu_);
  std::vector<std::string> out;
  for (const auto& [address, worker] : workers_) out.push_back(address);
  return out;
}

void DispatcherState::Expire(absl::Time now) {
  absl::MutexLock lock(&mu_);
  std::vector<std::string> silent;
  for (const auto& [address, w] : workers_) {
    if (now - w.last_heartbeat > worker_timeout_) silent.push_back(address);
  }
  for (const std::string& address : silent) {
    // Its finished tasks keep counting (their elements were read); the
    // others are lost (a DYNAMIC iteration's other tasks read the splits
    // left).
    const std::set<int64_t> tasks = workers_.at(address).tasks;
    bool ok = true;
    for (int64_t task_id : tasks) {
      auto t = tasks_.find(task_id);
      if (t == tasks_.end() || t->second.finished) continue;
      Record r;
      r.set_lost_task(task_id);
      if (!ChangeLocked(r, now).ok()) ok = false;
    }
    if (!ok) continue;
    Record r;
    r.set_expired_worker(address);
    ChangeLocked(r, now).IgnoreError();
  }
  std::vector<int64_t> stale;
  for (const auto& [id, client] : clients_) {
    if (now - client.second > client_timeout_) stale.push_back(id);
  }
  for (int64_t id : stale) ReleaseClientLocked(id, now).IgnoreError();
}

}  // namespace dfx::cli

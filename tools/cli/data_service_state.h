// DispatcherState: what dfx's tf.data service dispatcher knows (datasets,
// jobs, iterations and their clients, workers and their tasks, the splits
// of DYNAMIC iterations) and how each of TensorFlow's dispatcher calls
// changes it. No gRPC and no clock of its own: every call that ages
// something takes `now`, so tests drive time.
//
// Supported: processing mode OFF (each worker a task that reads a whole
// epoch; a worker that joins later gets a task of every unfinished
// iteration); DYNAMIC (distributed_epoch): a task per worker, every task
// reading the splits of the iteration's one split provider (GetSplit), so
// each element is produced once across the workers; shared jobs by job
// name. With a journal (OpenJournal: --work-dir), every change is appended
// to it before it takes effect and replayed on start, so a restarted
// dispatcher serves the same datasets, jobs, iterations, clients and tasks,
// and its split providers go on after the splits already handed out. The
// journal is compacted as it grows: replaced (atomically, by rename) with
// the records that rebuild the state it reached, so its size and the
// replay's time follow the live state, not the dispatcher's age. Static
// sharding (FILE, DATA, FILE_OR_DATA, HINT) over a configured worker list:
// each task is told its worker's index, and the worker shards its pipeline.
// Not supported: round-robin reads (num_consumers: Unimplemented).
#ifndef DFX_TOOLS_CLI_DATA_SERVICE_STATE_H_
#define DFX_TOOLS_CLI_DATA_SERVICE_STATE_H_

#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "kernels/data/split_provider.h"
#include "proto/tf_data_service.pb.h"

namespace dfx::cli {

// TensorFlow's dispatcher version (GetVersion): its clients refuse another.
inline constexpr int64_t kDataServiceVersion = 9;

// Thread-safe. Errors carry TensorFlow's codes: NotFound for an unknown
// dataset, job, iteration client or task; InvalidArgument for a request
// that contradicts what is known (a job name reused for another dataset or
// mode); Unimplemented for what dfx does not serve.
class DispatcherState {
 public:
  // The split provider of a dataset's pipeline (data::MakeSplitProvider of
  // the dataset the graph builds): its errors (a source that cannot be
  // split: Unimplemented) are the errors of creating a DYNAMIC iteration.
  using SplitProviderFactory =
      std::function<absl::StatusOr<std::unique_ptr<data::SplitProvider>>(
          const tfdata::DatasetDef&)>;

  // A worker whose last heartbeat is older than `worker_timeout` loses its
  // tasks; a client older than `client_timeout` is released. Without
  // `splits`, DYNAMIC iterations are Unimplemented.
  DispatcherState(absl::Duration worker_timeout, absl::Duration client_timeout,
                  SplitProviderFactory splits = nullptr)
      : worker_timeout_(worker_timeout),
        client_timeout_(client_timeout),
        splits_(std::move(splits)) {}
  ~DispatcherState();

  // TensorFlow's DispatcherConfig.worker_addresses, for static sharding
  // (FILE, DATA, FILE_OR_DATA, HINT): a worker's index is the place of the
  // first entry not yet taken that matches its address ("host:port", or
  // "host:%port%" or "host" for any port of the host). With a list, a
  // worker matching no entry is refused (FailedPrecondition); a static
  // iteration over a worker without an index is NotFound. Call before
  // serving.
  void SetWorkerAddresses(std::vector<std::string> addresses);

  // Replays the journal in `dir` (created if missing), then appends every
  // later change to it, each record written and fsynced before the change
  // takes effect. A record cut short or failing its checksum (a crash
  // while writing) ends the replay and is cut off. Replayed workers and
  // clients count as heartbeating at `now`. Call once, before serving.
  absl::Status OpenJournal(const std::string& dir, absl::Time now);

  // The journal is compacted when it has grown past
  // max(`bytes`, twice its size after the last compaction); 16 MiB unless
  // set. A compaction that fails (a full disk) leaves the journal as it
  // was and is tried again once it has doubled. Call before OpenJournal.
  void SetJournalCompactionBytes(int64_t bytes);
  // How many times the journal has been compacted since OpenJournal, and
  // its size in bytes now (0 without a journal).
  int64_t JournalCompactions();
  int64_t JournalBytes();

  // The next split of the DYNAMIC iteration (TensorFlow's GetSplit):
  // NotFound for an unknown iteration, FailedPrecondition for one that is
  // not DYNAMIC. A request naming its task and index (dfx's workers) that
  // repeats the task's last index gets the same split again: a worker
  // whose answer was lost (the dispatcher killed after journaling it)
  // reads it after all.
  absl::StatusOr<tfdata::GetSplitResponse> GetSplit(
      const tfdata::GetSplitRequest& request);

  // The id of the dataset: the requested one, or the one registered
  // earlier with the same graph (fingerprint of its serialization), or a
  // new one.
  absl::StatusOr<std::string> GetOrRegisterDataset(
      const tfdata::GetOrRegisterDatasetRequest& request);
  absl::StatusOr<tfdata::DataServiceMetadata> GetMetadata(
      const std::string& dataset_id);
  absl::StatusOr<int64_t> GetOrCreateJob(
      const tfdata::GetOrCreateJobRequest& request);
  // A new iteration client of the job's iteration `repetition` (made with
  // one task per live worker when it does not exist yet).
  absl::StatusOr<int64_t> GetOrCreateIteration(int64_t job_id,
                                               int64_t repetition,
                                               absl::Time now);
  absl::Status ReleaseIterationClient(int64_t client_id);
  // The client's tasks, and whether its iteration has finished (every
  // task of it has reached its end).
  absl::StatusOr<tfdata::ClientHeartbeatResponse> ClientHeartbeat(
      const tfdata::ClientHeartbeatRequest& request, absl::Time now);

  // Registers the worker (or refreshes it): the tasks it should start
  // (those of `current_tasks` it already runs are not sent again) and
  // those it should drop (unknown, or of a released iteration).
  absl::StatusOr<tfdata::WorkerHeartbeatResponse> WorkerHeartbeat(
      const tfdata::WorkerHeartbeatRequest& request, absl::Time now);
  absl::Status WorkerUpdate(const tfdata::WorkerUpdateRequest& request);
  std::vector<std::string> Workers();

  // Drops workers and clients that stopped heartbeating: a worker's
  // unfinished tasks go with it (its iterations' clients stop seeing
  // them), a client's iteration goes when no client is left.
  void Expire(absl::Time now);

 private:
  struct Dataset {
    std::string fingerprint;
    tfdata::DatasetDef def;
    tfdata::DataServiceMetadata metadata;
    // What registered it (compaction journals it again).
    tfdata::GetOrRegisterDatasetRequest request;
  };
  struct Job {
    std::string dataset_id;
    tfdata::ProcessingModeDef mode;
    std::string name;
    std::map<int64_t, int64_t> iterations;  // repetition -> iteration id
    tfdata::GetOrCreateJobRequest request;  // what created it
  };
  struct Task {
    int64_t iteration_id = 0;
    std::string worker;
    bool finished = false;
    int64_t worker_index = -1;  // static sharding
  };
  struct Iteration {
    int64_t job_id = 0;
    int64_t repetition = 0;
    // DYNAMIC: the splits its tasks share, or why there are none.
    bool dynamic = false;
    std::unique_ptr<data::SplitProvider> splits;
    absl::Status splits_error;
    // task id -> the index of its last GetSplit and the split it got.
    std::map<int64_t, std::pair<int64_t, int64_t>> last_splits;
    // How many splits its provider has handed out.
    int64_t splits_taken = 0;
    std::set<int64_t> tasks;
    std::set<int64_t> clients;
  };
  struct Worker {
    absl::Time last_heartbeat;
    std::set<int64_t> tasks;
  };

  using Record = tfdata::DispatcherJournalRecord;
  // Journals `record` (when there is a journal), then applies it: every
  // change of the state goes through here.
  absl::Status ChangeLocked(const Record& record, absl::Time now)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void ApplyLocked(const Record& record, absl::Time now)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status AppendLocked(const Record& record)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The records that rebuild the state as it is now.
  std::vector<Record> SnapshotLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Replaces the journal with SnapshotLocked()'s records: written to a
  // new file, fsynced, renamed over the journal. The old journal stays
  // when any step fails.
  absl::Status CompactLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Compacts when the journal has grown past compact_at_; a failure is
  // logged and tried again once the journal has doubled.
  void MaybeCompactLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Advances a replayed iteration's provider past `n` splits.
  void SkipSplitsLocked(Iteration& iteration, int64_t n)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status AddTaskLocked(int64_t iteration_id, const std::string& worker,
                             absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status ReleaseClientLocked(int64_t client_id, absl::Time now)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Every task of it has ended.
  bool FinishedLocked(const Iteration& iteration)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void SeeIdLocked(int64_t id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool IsStaticLocked(int64_t iteration_id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The worker's index among worker_addresses_ (assigned at the first
  // ask); NotFound when it has none.
  absl::StatusOr<int64_t> WorkerIndexLocked(const std::string& worker)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const absl::Duration worker_timeout_;
  const absl::Duration client_timeout_;
  const SplitProviderFactory splits_;
  absl::Mutex mu_;
  // The journal, open for appending; null without one.
  std::FILE* journal_ ABSL_GUARDED_BY(mu_) = nullptr;
  std::string journal_path_ ABSL_GUARDED_BY(mu_);
  std::string journal_dir_ ABSL_GUARDED_BY(mu_);
  int64_t journal_bytes_ ABSL_GUARDED_BY(mu_) = 0;
  // Compact once journal_bytes_ passes this.
  int64_t compact_at_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t compact_min_bytes_ ABSL_GUARDED_BY(mu_) = int64_t{16} << 20;
  int64_t compactions_ ABSL_GUARDED_BY(mu_) = 0;
  // OpenJournal is applying the journal's records.
  bool replaying_ ABSL_GUARDED_BY(mu_) = false;
  int64_t next_id_ ABSL_GUARDED_BY(mu_) = 1000;
  std::map<std::string, Dataset> datasets_ ABSL_GUARDED_BY(mu_);
  std::map<int64_t, Job> jobs_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, int64_t> jobs_by_name_ ABSL_GUARDED_BY(mu_);
  std::map<int64_t, Iteration> iterations_ ABSL_GUARDED_BY(mu_);
  // iteration client id -> (iteration id, last heartbeat)
  std::map<int64_t, std::pair<int64_t, absl::Time>> clients_
      ABSL_GUARDED_BY(mu_);
  std::map<int64_t, Task> tasks_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, Worker> workers_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> worker_addresses_ ABSL_GUARDED_BY(mu_);
  // worker address -> its index among worker_addresses_
  std::map<std::string, int64_t> worker_indices_ ABSL_GUARDED_BY(mu_);
};

}  // namespace dfx::cli

#endif  // DFX_TOOLS_CLI_DATA_SERVICE_STATE_H_

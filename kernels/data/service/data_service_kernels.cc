// The tf.data service client ops (graph/ops/dataservice_ops.cc), talking
// to TensorFlow's dispatcher and workers (data_service_client.h):
//
//   RegisterDataset,     writes the input dataset's pipeline as a GraphDef
//   RegisterDatasetV2    (DatasetToGraphV2's, kernels/data/dataset_graph.h)
//                        and registers it with GetOrRegisterDataset; the
//                        metadata attr's DataServiceMetadata goes along
//                        with the dataset's cardinality. V1 outputs the id
//                        as int64 (InvalidArgument when it is not one).
//   DataServiceDataset,  a dataset whose iterator creates (or joins, by
//   ...V2, V3, V4        job_name) a job on the dispatcher, learns its
//                        tasks by ClientHeartbeat and reads each task's
//                        elements from its worker's GetElement, the
//                        tasks in turn, round-robin when num_consumers is
//                        set (consumer_index names this reader). The
//                        iterator ends when the dispatcher reports the
//                        iteration finished. Compressed elements are
//                        decoded here (what TensorFlow's uncompress_fn
//                        does), uncompressed ones taken as they are.
//
//   DistributedSave      asks the dispatcher (its Snapshot call) to write
//                        the input dataset's distributed snapshot at a
//                        directory; the dispatcher's workers write it,
//                        readable with tf.data.Dataset.load or dfx's
//                        ListSnapshotChunksDataset/SnapshotChunkDataset.
//
// Building the dataset asks the dispatcher for its config and the
// dataset's metadata, as TensorFlow's kernel does; making an iterator
// checks the read's parameters with TensorFlow's messages, then creates
// the job and its iteration (as TensorFlow's MakeIterator). Each call retries
// transient errors for TensorFlow's 60 minutes and stops when the step is
// cancelled (a session's timeout): an unreachable dispatcher is
// Unavailable after the window, Cancelled or DeadlineExceeded before.
//
// Left out: MaybeRemoveTask (a round-robin reader whose worker keeps
// failing retries it rather than asking the dispatcher to drop the task);
// target_workers LOCAL, which needs a tf.data worker in this process:
// TensorFlow's InvalidArgument; data transfer protocols other than gRPC
// (the worker's gRPC address is used whatever data_transfer_protocol
// says); cross-trainer caches past TensorFlow's checks (the trainer id
// is sent, nothing more).
#include <algorithm>
#include <atomic>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "base/status_macros.h"
#include "kernels/data/dataset.h"
#include "kernels/data/dataset_graph.h"
#include "kernels/data/service/data_service_client.h"
#include "kernels/kernels.h"
#include "runtime/cancellable_sleep.h"
#include "runtime/network_policy.h"

namespace dfx::data {
namespace {

constexpr absl::Duration kDefaultTaskRefreshInterval = absl::Seconds(1);
constexpr int64_t kAutotune = -1;

absl::StatusOr<std::string> StringScalar(OpKernelContext* ctx, int index,
                                         absl::string_view name) {
  const Tensor& t = ctx->input(index);
  if (t.dtype() != DT_STRING || t.dims() != 0) {
    return absl::InvalidArgumentError(absl::StrCat(name, " must be a scalar"));
  }
  return t.data<std::string>()[0];
}

absl::StatusOr<std::string> NonEmptyStringScalar(OpKernelContext* ctx,
                                                 int index,
                                                 absl::string_view name) {
  DFX_ASSIGN_OR_RETURN(std::string s, StringScalar(ctx, index, name));
  if (s.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, " must be non-empty."));
  }
  return s;
}

// ---------------------------------------------------------------------------
// RegisterDataset, RegisterDatasetV2

class RegisterDatasetOp final : public OpKernel {
 public:
  explicit RegisterDatasetOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    v2_ = def().op() == "RegisterDatasetV2";
    ctx->SetStatus(ctx->GetAttr("external_state_policy", &policy_));
    std::string element_spec, metadata;
    ctx->SetStatus(ctx->GetAttr("element_spec", &element_spec));
    ctx->SetStatus(ctx->GetAttr("metadata", &metadata));
    if (v2_) {
      ctx->SetStatus(ctx->GetAttr("requested_dataset_id", &requested_id_));
    }
    if (!element_spec.empty()) metadata_.set_element_spec(element_spec);
    if (!metadata.empty() && !metadata_.MergeFromString(metadata)) {
      ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
          "Failed to parse DataServiceMetadata from string: ", metadata)));
    }
    if (ctx->function_library() != nullptr) {
      library_ = std::make_shared<FunctionDefLibrary>(*ctx->function_library());
    }
  }

  void Compute(OpKernelContext* ctx) override {
    DFX_OP_REQUIRES_OK(ctx, Register(ctx));
  }

 private:
  absl::Status Register(OpKernelContext* ctx) {
    DFX_ASSIGN_OR_RETURN(DatasetPtr dataset, DatasetFromInput(ctx, 0));
    DFX_ASSIGN_OR_RETURN(std::string address,
                         NonEmptyStringScalar(ctx, 1, "address"));
    DFX_ASSIGN_OR_RETURN(std::string protocol,
                         NonEmptyStringScalar(ctx, 2, "protocol"));
    tfdata::GetOrRegisterDatasetRequest request;
    absl::Status written =
        WriteDatasetGraph(*dataset, library_.get(), policy_,
                          /*strip_device_assignment=*/false,
                          request.mutable_dataset()->mutable_graph());
    if (!written.ok()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "Serialization error while trying to register a dataset with "
          "tf.data service. Original error: ",
          written.ToString()));
    }
    *request.mutable_metadata() = metadata_;
    request.mutable_metadata()->set_cardinality(dataset->Cardinality());
    if (!requested_id_.empty()) request.set_dataset_id(requested_id_);
    DFX_RETURN_IF_ERROR(CheckGraphMayConnect(name(), address));
    DFX_ASSIGN_OR_RETURN(std::unique_ptr<DataServiceClient> client,
                         DataServiceClient::Create(address, protocol));
    DFX_ASSIGN_OR_RETURN(
        std::string id,
        client->GetOrRegisterDataset(request, ctx->cancellation_manager()));
    if (v2_) {
      ctx->set_output(0, Tensor::Scalar<std::string>(id));
      return absl::OkStatus();
    }
    int64_t int_id = 0;
    if (!absl::SimpleAtoi(id, &int_id)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Failed to parse dataset ID: ", id, ". Expect integers."));
    }
    ctx->set_output(0, Tensor::Scalar<int64_t>(int_id));
    return absl::OkStatus();
  }

  bool v2_ = false;
  int64_t policy_ = 0;
  std::string requested_id_;
  tfdata::DataServiceMetadata metadata_;
  std::shared_ptr<const FunctionDefLibrary> library_;
};

// ---------------------------------------------------------------------------
// DistributedSave

// The scheme of a URI-like path ("gs" of "gs://b/x"), empty for a plain
// path, as tsl's ParseURI splits it.
absl::string_view PathScheme(absl::string_view path) {
  const size_t colon = path.find("://");
  if (colon == absl::string_view::npos || colon == 0) return {};
  const absl::string_view scheme = path.substr(0, colon);
  if (!absl::ascii_isalpha(scheme[0])) return {};
  for (char c : scheme) {
    if (!absl::ascii_isalnum(c) && c != '.') return {};
  }
  return scheme;
}

class DistributedSaveOp final : public OpKernel {
 public:
  explicit DistributedSaveOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string metadata;
    ctx->SetStatus(ctx->GetAttr("metadata", &metadata));
    if (!metadata.empty() && !metadata_.ParseFromString(metadata)) {
      ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
          "Failed to parse DistributedSnapshotMetadata from string: ",
          metadata)));
    }
    if (metadata_.compression() == "AUTO") metadata_.set_compression("SNAPPY");
    if (ctx->function_library() != nullptr) {
      library_ = std::make_shared<FunctionDefLibrary>(*ctx->function_library());
    }
  }

  void Compute(OpKernelContext* ctx) override {
    DFX_OP_REQUIRES_OK(ctx, Save(ctx));
  }

 private:
  absl::Status Save(OpKernelContext* ctx) {
    DFX_ASSIGN_OR_RETURN(DatasetPtr dataset, DatasetFromInput(ctx, 0));
    if (dataset->Cardinality() == kInfiniteCardinality) {
      return absl::InvalidArgumentError(
          absl::StrCat("Saving an infinite dataset is not allowed: ",
                       dataset->DebugString()));
    }
    DFX_ASSIGN_OR_RETURN(std::string directory,
                         StringScalar(ctx, 1, "directory"));
    if (directory.empty()) {
      return absl::InvalidArgumentError("directory must be nonempty");
    }
    DFX_ASSIGN_OR_RETURN(std::string address, StringScalar(ctx, 2, "address"));
    if (address.empty()) {
      return absl::InvalidArgumentError("address must be nonempty");
    }
    // The dispatcher's workers write the snapshot; TensorFlow checks here
    // that the path's file system renames atomically. dfx knows local
    // paths (and file://), which do; Cloud Storage does not; other schemes
    // are TensorFlow's Unimplemented for a file system it lacks.
    const absl::string_view scheme = PathScheme(directory);
    if (scheme == "gs") {
      return absl::FailedPreconditionError(absl::StrCat(
          "The file system for ", directory,
          " does not support atomic move (rename), which is required to "
          "write tf.data snapshots."));
    }
    if (!scheme.empty() && scheme != "file") {
      return absl::UnimplementedError(
          absl::StrCat("File system scheme '", scheme,
                       "' not implemented (file: '", directory, "')"));
    }
    tfdata::SnapshotRequest request;
    absl::Status written =
        WriteDatasetGraph(*dataset, library_.get(), /*external_state_policy=*/0,
                          /*strip_device_assignment=*/false,
                          request.mutable_dataset()->mutable_graph());
    if (!written.ok()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "Serialization error while trying to save dataset with tf.data "
          "service. The dataset may depend on a resource located on a "
          "different device. To address this, call `distributed_save` from "
          "the device with the resource. Original error: ",
          written.ToString()));
    }
    request.set_path(directory);
    *request.mutable_metadata() = metadata_;
    DFX_RETURN_IF_ERROR(CheckGraphMayConnect(name(), address));
    DFX_ASSIGN_OR_RETURN(std::unique_ptr<DataServiceClient> client,
                         DataServiceClient::Create(address, "grpc"));
    return client->Snapshot(request, ctx->cancellation_manager());
  }

  tfdata::DistributedSnapshotMetadata metadata_;
  std::shared_ptr<const FunctionDefLibrary> library_;
};

// ---------------------------------------------------------------------------
// DataServiceDataset

struct ServiceParams {
  std::string dataset_id;
  tfdata::ProcessingModeDef processing_mode;
  std::string job_name;
  std::optional<int64_t> num_consumers;
  std::optional<int64_t> consumer_index;
  tfdata::TargetWorkers target_workers = tfdata::TARGET_WORKERS_AUTO;
  absl::Duration task_refresh_interval = kDefaultTaskRefreshInterval;
  tfdata::DataServiceMetadata metadata;
  // Whether cross_trainer_cache_options were given, and their trainer.
  bool cross_trainer_cache = false;
  std::string trainer_id;
};

bool IsStaticShard(tfdata::ProcessingModeDef::ShardingPolicy policy) {
  return policy == tfdata::ProcessingModeDef::FILE ||
         policy == tfdata::ProcessingModeDef::DATA ||
         policy == tfdata::ProcessingModeDef::FILE_OR_DATA ||
         policy == tfdata::ProcessingModeDef::HINT;
}

class DataServiceDataset final : public DatasetBase {
 public:
  DataServiceDataset(DataTypeVector dtypes,
                     std::shared_ptr<DataServiceClient> client,
                     ServiceParams params)
      : DatasetBase(std::move(dtypes)),
        client_(std::move(client)),
        params_(std::move(params)) {}

  int64_t Cardinality() const override {
    return params_.metadata.cardinality() == kInfiniteCardinality
               ? kInfiniteCardinality
               : kUnknownCardinality;
  }
  absl::StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(
      IteratorContext* ctx) const override;
  std::string DebugString() const override {
    return absl::StrCat("DataServiceDataset(dataset_id=", params_.dataset_id,
                        ", address=", client_->address(), ")");
  }

  const std::shared_ptr<DataServiceClient>& client() const { return client_; }
  const ServiceParams& params() const { return params_; }
  int64_t NextRepetition() const { return repetitions_.fetch_add(1); }

 private:
  const std::shared_ptr<DataServiceClient> client_;
  const ServiceParams params_;
  mutable std::atomic<int64_t> repetitions_{0};
};

// Reads the job's tasks in turn, one request at a time. In a round-robin
// read (num_consumers set) each request names this consumer and the
// task's round, the rounds advance after each pass over the tasks, and a
// round the dispatcher asks to block is not started until it lets go, as
// in TensorFlow's client; a worker may answer "skip" (the round's data was
// not ready). Otherwise a task whose worker fails transiently is tried
// again after a backoff while the other tasks are read.
class DataServiceIterator final : public IteratorBase {
 public:
  explicit DataServiceIterator(std::shared_ptr<const DataServiceDataset> d)
      : dataset_(std::move(d)) {}
  ~DataServiceIterator() override {
    if (iteration_client_id_.has_value()) {
      dataset_->client()->ReleaseIterationClient(*iteration_client_id_);
    }
  }

  absl::Status GetNext(IteratorContext* ctx, std::vector<Tensor>* out,
                       bool* end) override {
    *end = false;
    CancellationManager* cm = ctx->cancellation_manager;
    const ServiceParams& p = dataset_->params();
    while (true) {
      if (cm != nullptr && cm->IsCancelled()) {
        return absl::CancelledError("Data service iterator was cancelled");
      }
      if (absl::Now() >= next_heartbeat_) DFX_RETURN_IF_ERROR(Heartbeat(cm));
      // The dispatcher finishes an iteration once its tasks have ended
      // (each worker reports a task done after a reader saw its end).
      if (iteration_finished_) {
        *end = true;
        return absl::OkStatus();
      }
      Task* task = NextTask();
      if (task == nullptr) {
        // Nothing to read until the dispatcher names more tasks, lets a
        // blocked round go, or a failed task's backoff ends.
        DFX_RETURN_IF_ERROR(Wait(cm));
        continue;
      }
      tfdata::GetElementRequest request;
      request.set_task_id(task->info.task_id());
      request.set_skipped_previous_round(task->skipped_previous_round);
      if (RoundRobin()) {
        request.set_consumer_index(p.consumer_index.value_or(0));
        request.set_round_index(task->round);
        request.set_allow_skip(true);
      }
      if (!p.trainer_id.empty()) request.set_trainer_id(p.trainer_id);
      absl::StatusOr<tfdata::GetElementResponse> response =
          dataset_->client()->GetElement(task->info.worker_address(), request,
                                         /*retry=*/RoundRobin(), cm);
      if (!response.ok()) {
        if (cm != nullptr && cm->IsCancelled()) return response.status();
        if (!IsTransient(response.status())) return response.status();
        // Another task first; this one after a backoff.
        task->failures = std::min(task->failures + 1, 6);
        task->retry_at =
            absl::Now() + absl::Milliseconds(25) * (1 << task->failures);
        continue;
      }
      task->failures = 0;
      if (response->end_of_sequence()) {
        task->finished = true;
        continue;
      }
      if (response->skip_task()) {
        task->skipped_previous_round = true;
        continue;
      }
      task->skipped_previous_round = false;
      return ToElement(*response, out);
    }
  }

 private:
  struct Task {
    tfdata::TaskInfo info;
    bool finished = false;
    bool skipped_previous_round = false;
    int64_t round = 0;
    int failures = 0;
    absl::Time retry_at = absl::InfinitePast();
  };

  static bool IsTransient(const absl::Status& s) {
    return absl::IsUnavailable(s) || absl::IsAborted(s) ||
           absl::IsCancelled(s) || absl::IsDeadlineExceeded(s);
  }

  bool RoundRobin() const {
    return dataset_->params().num_consumers.has_value();
  }

  // TensorFlow's checks of the read's parameters (ValidateDataServiceParams),
  // with its messages. No tf.data worker runs inside a dfx process, so a
  // LOCAL read always finds none.
  static absl::Status Validate(const ServiceParams& p, int64_t repetition) {
    if (p.target_workers == tfdata::TARGET_WORKERS_LOCAL) {
      const auto policy = p.processing_mode.sharding_policy();
      if (IsStaticShard(policy)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Static sharding policy <",
            tfdata::ProcessingModeDef::ShardingPolicy_Name(policy),
            "> requires local tf.data workers, but no local worker is found. "
            "You need to run local tf.data service workers in your training "
            "workers. Static sharding also requires a fixed worker pool and "
            "a list of worker addresses in the DispatcherConfig. See the "
            "\"Processing Modes\" section in the module doc for details."));
      }
      return absl::InvalidArgumentError(
          "Local reads require local tf.data workers, but no local worker "
          "is found. You need to run local tf.data service workers in your "
          "training workers.");
    }
    if (!p.cross_trainer_cache) return absl::OkStatus();
    if (p.job_name.empty()) {
      return absl::InvalidArgumentError(
          "Cross-trainer caching requires named jobs. Got empty `job_name`.");
    }
    if (p.metadata.cardinality() != kInfiniteCardinality) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Cross-trainer caching requires the input dataset to be infinite. "
          "Got input with cardinality ",
          p.metadata.cardinality()));
    }
    if (repetition > 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Cross-trainer caching requires infinite datasets and disallows "
          "multiple repetitions of the same dataset. Got repetition ",
          repetition));
    }
    if (p.num_consumers.has_value()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Cross-trainer caching does not support coordinated reads. Got "
          "number of coordinated consumers: ",
          *p.num_consumers));
    }
    return absl::OkStatus();
  }

 public:
  // Creates (or joins) the job and its iteration and learns the tasks, as
  // TensorFlow's iterator does when it is made.
  absl::Status Start(CancellationManager* cm) {
    const ServiceParams& p = dataset_->params();
    DataServiceClient& client = *dataset_->client();
    const int64_t repetition = dataset_->NextRepetition();
    DFX_RETURN_IF_ERROR(Validate(p, repetition));
    tfdata::GetOrCreateJobRequest job;
    job.set_dataset_id(p.dataset_id);
    *job.mutable_processing_mode_def() = p.processing_mode;
    if (!p.job_name.empty()) job.set_job_name(p.job_name);
    if (p.num_consumers.has_value()) job.set_num_consumers(*p.num_consumers);
    job.set_target_workers(p.target_workers);
    job.set_use_cross_trainer_cache(p.cross_trainer_cache);
    DFX_ASSIGN_OR_RETURN(int64_t job_id, client.GetOrCreateJob(job, cm));
    DFX_ASSIGN_OR_RETURN(int64_t id,
                         client.GetOrCreateIteration(job_id, repetition, cm));
    iteration_client_id_ = id;
    return Heartbeat(cm);
  }

 private:
  absl::Status Heartbeat(CancellationManager* cm) {
    tfdata::ClientHeartbeatRequest request;
    request.set_iteration_client_id(*iteration_client_id_);
    if (RoundRobin()) {
      request.set_current_round(current_round_);
      if (round_limit_.has_value()) request.set_blocked_round(*round_limit_);
    }
    DFX_ASSIGN_OR_RETURN(tfdata::ClientHeartbeatResponse response,
                         dataset_->client()->ClientHeartbeat(request, cm));
    next_heartbeat_ = absl::Now() + dataset_->params().task_refresh_interval;
    iteration_finished_ |= response.iteration_finished();
    if (response.has_block_round()) {
      // Accepted only when the round has not started.
      if (current_round_ < response.block_round()) {
        round_limit_ = response.block_round();
      }
    } else {
      round_limit_.reset();
    }
    if (iteration_finished_) return absl::OkStatus();
    // Tasks the dispatcher no longer lists are gone; new ones join.
    std::vector<Task> kept;
    for (Task& t : tasks_) {
      for (const tfdata::TaskInfo& info : response.task_info()) {
        if (info.task_id() == t.info.task_id()) {
          kept.push_back(std::move(t));
          break;
        }
      }
    }
    if (kept.size() != tasks_.size()) next_task_ = 0;
    tasks_ = std::move(kept);
    for (const tfdata::TaskInfo& info : response.task_info()) {
      bool known = false;
      for (const Task& t : tasks_) known |= t.info.task_id() == info.task_id();
      if (!known) tasks_.push_back(Task{info});
    }
    return absl::OkStatus();
  }

  // Waits for the next heartbeat or the earliest backoff's end, or until
  // `cm` is cancelled.
  absl::Status Wait(CancellationManager* cm) {
    absl::Time until = next_heartbeat_;
    for (const Task& t : tasks_) {
      if (!t.finished && t.retry_at > absl::Now()) {
        until = std::min(until, t.retry_at);
      }
    }
    const absl::Duration wait = until - absl::Now();
    if (wait <= absl::ZeroDuration()) return absl::OkStatus();
    if (!SleepUnlessCancelled(cm, wait)) {
      return absl::CancelledError("Data service iterator was cancelled");
    }
    return absl::OkStatus();
  }

  // The next task to read, visiting the tasks in order from the last one
  // read, or null (TensorFlow's GetTaskToProcess, one request at a time).
  Task* NextTask() {
    const absl::Time now = absl::Now();
    for (size_t i = 0; i < tasks_.size(); ++i) {
      Task& t = tasks_[next_task_];
      if (RoundRobin() &&
          current_round_ >=
              round_limit_.value_or(std::numeric_limits<int64_t>::max())) {
        return nullptr;
      }
      if (current_round_ < t.info.starting_round() || t.finished ||
          (!RoundRobin() && t.retry_at > now)) {
        Advance();
        continue;
      }
      t.round = current_round_;
      Advance();
      return &t;
    }
    return nullptr;
  }

  void Advance() {
    if (++next_task_ >= tasks_.size()) {
      next_task_ = 0;
      ++current_round_;
    }
  }

  absl::Status ToElement(const tfdata::GetElementResponse& response,
                         std::vector<Tensor>* out) {
    std::vector<Tensor> element;
    if (response.has_compressed()) {
      DFX_ASSIGN_OR_RETURN(element,
                           DecodeCompressedElement(response.compressed()));
    } else if (response.has_uncompressed()) {
      for (const TensorProto& p : response.uncompressed().components()) {
        DFX_ASSIGN_OR_RETURN(Tensor t, Tensor::FromProto(p));
        element.push_back(std::move(t));
      }
    } else {
      return absl::InternalError(
          "tf.data service worker returned a response with no element");
    }
    const DataTypeVector& want = dataset_->output_dtypes();
    bool match = element.size() == want.size();
    for (size_t i = 0; match && i < element.size(); ++i) {
      match = element[i].dtype() == want[i];
    }
    if (!match) {
      std::string got;
      for (const Tensor& t : element) {
        absl::StrAppend(&got, got.empty() ? "" : ", ",
                        DataTypeString(t.dtype()));
      }
      return absl::InvalidArgumentError(
          absl::StrCat("The tf.data service element's components [", got,
                       "] are not the dataset's output_types"));
    }
    *out = std::move(element);
    return absl::OkStatus();
  }

  const std::shared_ptr<const DataServiceDataset> dataset_;
  std::optional<int64_t> iteration_client_id_;
  std::vector<Task> tasks_;
  size_t next_task_ = 0;
  int64_t current_round_ = 0;
  std::optional<int64_t> round_limit_;
  bool iteration_finished_ = false;
  absl::Time next_heartbeat_ = absl::InfinitePast();
};

absl::StatusOr<std::unique_ptr<IteratorBase>> DataServiceDataset::MakeIterator(
    IteratorContext* ctx) const {
  auto it = std::make_unique<DataServiceIterator>(Self<DataServiceDataset>());
  DFX_RETURN_IF_ERROR(it->Start(ctx->cancellation_manager));
  return std::unique_ptr<IteratorBase>(std::move(it));
}

absl::StatusOr<tfdata::TargetWorkers> ParseTargetWorkers(std::string s) {
  const std::string upper = absl::AsciiStrToUpper(s);
  if (upper == "AUTO" || upper.empty()) return tfdata::TARGET_WORKERS_AUTO;
  if (upper == "ANY") return tfdata::TARGET_WORKERS_ANY;
  if (upper == "LOCAL") return tfdata::TARGET_WORKERS_LOCAL;
  return absl::InvalidArgumentError(
      absl::StrCat("Unrecognized target workers: ", s));
}

class DataServiceDatasetOp final : public DatasetOpKernel {
 public:
  explicit DataServiceDatasetOp(OpKernelConstruction* ctx)
      : DatasetOpKernel(ctx) {
    // Building the dataset calls the dispatcher.
    set_expensive(true);
    const std::string& op = def().op();
    version_ = op == "DataServiceDataset" ? 1 : op.back() - '0';
    int64_t refresh_ms = kAutotune;
    ctx->SetStatus(ctx->GetAttr("task_refresh_interval_hint_ms", &refresh_ms));
    if (refresh_ms != kAutotune) {
      params_.task_refresh_interval = absl::Milliseconds(refresh_ms);
    }
    std::string target_workers = "AUTO";
    ctx->SetStatus(ctx->GetAttr("target_workers", &target_workers));
    absl::StatusOr<tfdata::TargetWorkers> parsed =
        ParseTargetWorkers(target_workers);
    ctx->SetStatus(parsed.status());
    if (parsed.ok()) params_.target_workers = *parsed;
    std::string cache_options;
    ctx->SetStatus(ctx->GetAttr("cross_trainer_cache_options", &cache_options));
    if (!cache_options.empty()) {
      tfdata::CrossTrainerCacheOptions options;
      options.ParseFromString(cache_options);
      params_.cross_trainer_cache = true;
      params_.trainer_id = options.trainer_id();
    }
  }

 protected:
  absl::StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    ServiceParams p = params_;
    if (version_ >= 4) {
      DFX_ASSIGN_OR_RETURN(p.dataset_id, StringScalar(ctx, 0, "dataset_id"));
    } else {
      DFX_ASSIGN_OR_RETURN(int64_t id, ScalarInt64Input(ctx, 0, "dataset_id"));
      p.dataset_id = absl::StrCat(id);
    }
    DFX_ASSIGN_OR_RETURN(std::string mode,
                         StringScalar(ctx, 1, "processing_mode"));
    if (mode == "parallel_epochs") {
      p.processing_mode.set_sharding_policy(tfdata::ProcessingModeDef::OFF);
    } else if (mode == "distributed_epoch") {
      p.processing_mode.set_sharding_policy(tfdata::ProcessingModeDef::DYNAMIC);
    } else if (!p.processing_mode.ParseFromString(mode)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Failed to parse ProcessingModeDef from string: ", mode));
    }
    DFX_ASSIGN_OR_RETURN(std::string address,
                         NonEmptyStringScalar(ctx, 2, "address"));
    DFX_ASSIGN_OR_RETURN(std::string protocol,
                         NonEmptyStringScalar(ctx, 3, "protocol"));
    DFX_ASSIGN_OR_RETURN(p.job_name, StringScalar(ctx, 4, "job_name"));
    int next = 5;
    if (version_ >= 2) {
      DFX_ASSIGN_OR_RETURN(int64_t consumer_index,
                           ScalarInt64Input(ctx, 5, "consumer_index"));
      DFX_ASSIGN_OR_RETURN(int64_t num_consumers,
                           ScalarInt64Input(ctx, 6, "num_consumers"));
      if (consumer_index >= 0) p.consumer_index = consumer_index;
      if (num_consumers >= 0) p.num_consumers = num_consumers;
      next = 7;
    }
    DFX_RETURN_IF_ERROR(CheckGraphMayConnect(name(), address));
    DFX_ASSIGN_OR_RETURN(std::shared_ptr<DataServiceClient> client,
                         DataServiceClient::Create(address, protocol));
    CancellationManager* cm = ctx->cancellation_manager();
    DFX_ASSIGN_OR_RETURN(tfdata::DataServiceConfig config,
                         client->GetConfig(cm));
    // Static sharding on a colocated deployment reads the local worker
    // only, as in TensorFlow.
    if (IsStaticShard(p.processing_mode.sharding_policy()) &&
        config.deployment_mode() == tfdata::DEPLOYMENT_MODE_COLOCATED &&
        p.target_workers == tfdata::TARGET_WORKERS_AUTO) {
      p.target_workers = tfdata::TARGET_WORKERS_LOCAL;
    }
    DFX_ASSIGN_OR_RETURN(
        int64_t max_outstanding,
        ScalarInt64Input(ctx, next, "max_outstanding_requests"));
    if (max_outstanding != kAutotune && max_outstanding <= 0) {
      return absl::InvalidArgumentError(
          "max_outstanding_requests must be positive or -1");
    }
    DFX_ASSIGN_OR_RETURN(p.metadata, client->GetMetadata(p.dataset_id, cm));
    return std::make_shared<DataServiceDataset>(
        output_types(), std::move(client), std::move(p));
  }

 private:
  int version_ = 1;
  ServiceParams params_;
};

}  // namespace
}  // namespace dfx::data

namespace dfx {

void RegisterDataserviceKernels(KernelRegistry* registry) {
  for (const char* op : {"RegisterDataset", "RegisterDatasetV2"}) {
    RegisterKernel<data::RegisterDatasetOp>(registry, KernelDefBuilder(op));
  }
  for (const char* op : {"DataServiceDataset", "DataServiceDatasetV2",
                         "DataServiceDatasetV3", "DataServiceDatasetV4"}) {
    RegisterKernel<data::DataServiceDatasetOp>(registry, KernelDefBuilder(op));
  }
  RegisterKernel<data::DistributedSaveOp>(registry,
                                          KernelDefBuilder("DistributedSave"));
}

}  // namespace dfx

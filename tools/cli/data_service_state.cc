#include "tools/cli/data_service_state.h"

#include <map>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
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

}  // namespace

absl::StatusOr<std::string> DispatcherState::GetOrRegisterDataset(
    const tfdata::GetOrRegisterDatasetRequest& request) {
  // The canonical bytes themselves are the fingerprint (a hash would need
  // a collision check against them anyway).
  std::string fingerprint = Fingerprint(request.dataset().graph());
  absl::MutexLock lock(&mu_);
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
    datasets_[request.dataset_id()] = {std::move(fingerprint),
                                       request.dataset(), request.metadata()};
    return request.dataset_id();
  }
  for (const auto& [id, d] : datasets_) {
    if (d.fingerprint == fingerprint) return id;
  }
  const std::string id = absl::StrCat(next_id_++);
  datasets_[id] = {std::move(fingerprint), request.dataset(),
                   request.metadata()};
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
  const auto policy = request.processing_mode_def().sharding_policy();
  if (policy != tfdata::ProcessingModeDef::OFF &&
      policy != tfdata::ProcessingModeDef::DYNAMIC) {
    return absl::UnimplementedError(absl::StrCat(
        "dfx's tf.data service dispatcher serves processing modes OFF "
        "(parallel_epochs) and DYNAMIC (distributed_epoch) only; got "
        "sharding policy ",
        tfdata::ProcessingModeDef::ShardingPolicy_Name(
            request.processing_mode_def().sharding_policy())));
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
  const int64_t id = next_id_++;
  jobs_[id] = {request.dataset_id(), request.processing_mode_def(), name, {}};
  if (!name.empty()) jobs_by_name_[name] = id;
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
    iteration_id = next_id_++;
    job->second.iterations[repetition] = iteration_id;
    Iteration& iteration = iterations_[iteration_id];
    iteration.job_id = job_id;
    iteration.single_task = job->second.mode.sharding_policy() ==
                            tfdata::ProcessingModeDef::DYNAMIC;
    for (const auto& [address, worker] : workers_) {
      AddTaskLocked(iteration_id, address);
      if (iteration.single_task) break;
    }
  }
  const int64_t client_id = next_id_++;
  iterations_[iteration_id].clients.insert(client_id);
  clients_[client_id] = {iteration_id, now};
  return client_id;
}

void DispatcherState::AddTaskLocked(int64_t iteration_id,
                                    const std::string& worker) {
  const int64_t task_id = next_id_++;
  tasks_[task_id] = {iteration_id, worker, false};
  iterations_[iteration_id].tasks.insert(task_id);
  workers_[worker].tasks.insert(task_id);
}

bool DispatcherState::FinishedLocked(const Iteration& iteration) {
  // A DYNAMIC iteration whose task was lost ends: its epoch must not be
  // read twice (without splits, another worker would start it again).
  if (iteration.single_task && iteration.lost) return true;
  if (iteration.tasks.empty()) return false;
  for (int64_t t : iteration.tasks) {
    if (!tasks_.at(t).finished) return false;
  }
  return true;
}

absl::Status DispatcherState::ReleaseIterationClient(int64_t client_id) {
  absl::MutexLock lock(&mu_);
  if (!clients_.contains(client_id)) return ClientNotFound(client_id);
  ReleaseClientLocked(client_id);
  return absl::OkStatus();
}

void DispatcherState::ReleaseClientLocked(int64_t client_id) {
  const int64_t iteration_id = clients_.at(client_id).first;
  clients_.erase(client_id);
  auto it = iterations_.find(iteration_id);
  if (it == iterations_.end()) return;
  it->second.clients.erase(client_id);
  if (!it->second.clients.empty()) return;
  // No reader is left: the iteration and its tasks go (workers learn it
  // from their next heartbeat's tasks_to_delete).
  for (int64_t task : it->second.tasks) {
    auto t = tasks_.find(task);
    if (t == tasks_.end()) continue;
    auto w = workers_.find(t->second.worker);
    if (w != workers_.end()) w->second.tasks.erase(task);
    tasks_.erase(t);
  }
  iterations_.erase(it);
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
  const bool is_new = !workers_.contains(request.worker_address());
  Worker& worker = workers_[request.worker_address()];
  worker.last_heartbeat = now;
  if (is_new) {
    // A worker that joins serves every unfinished iteration (OFF mode:
    // each worker reads a whole epoch).
    // DYNAMIC iterations have one task, given to a worker only while
    // they have none and lost none.
    for (auto& [id, iteration] : iterations_) {
      if (FinishedLocked(iteration)) continue;
      if (iteration.single_task &&
          (iteration.lost || !iteration.tasks.empty())) {
        continue;
      }
      AddTaskLocked(id, request.worker_address());
    }
  }
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
    if (p.completed()) task->second.finished = true;
  }
  return absl::OkStatus();
}

std::vector<std::string> DispatcherState::Workers() {
  absl::MutexLock lock(&mu_);
  std::vector<std::string> out;
  for (const auto& [address, worker] : workers_) out.push_back(address);
  return out;
}

void DispatcherState::Expire(absl::Time now) {
  absl::MutexLock lock(&mu_);
  for (auto w = workers_.begin(); w != workers_.end();) {
    if (now - w->second.last_heartbeat <= worker_timeout_) {
      ++w;
      continue;
    }
    // Its finished tasks keep counting (their elements were read); the
    // others are lost, and an iteration left with only finished tasks
    // ends.
    for (int64_t task_id : w->second.tasks) {
      auto t = tasks_.find(task_id);
      if (t == tasks_.end() || t->second.finished) continue;
      auto it = iterations_.find(t->second.iteration_id);
      if (it != iterations_.end()) {
        it->second.tasks.erase(task_id);
        it->second.lost = true;
      }
      tasks_.erase(t);
    }
    w = workers_.erase(w);
  }
  std::vector<int64_t> stale;
  for (const auto& [id, client] : clients_) {
    if (now - client.second > client_timeout_) stale.push_back(id);
  }
  for (int64_t id : stale) ReleaseClientLocked(id);
}

}  // namespace dfx::cli

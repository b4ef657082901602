#include "runtime/session_state.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace dfx {

int64_t SessionState::GetNewId() {
  absl::MutexLock lock(&mu_);
  return next_id_++;
}

absl::Status SessionState::AddTensor(const std::string& handle,
                                     const Tensor& tensor) {
  absl::MutexLock lock(&mu_);
  if (!tensors_.try_emplace(handle, tensor).second) {
    return absl::InvalidArgumentError(
        absl::StrCat("Failed to add a tensor with handle '", handle,
                     "' to the session store."));
  }
  return absl::OkStatus();
}

absl::StatusOr<Tensor> SessionState::GetTensor(absl::string_view handle) const {
  absl::MutexLock lock(&mu_);
  auto it = tensors_.find(handle);
  if (it == tensors_.end()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "The tensor with handle '", handle, "' is not in the session store."));
  }
  return it->second;
}

absl::Status SessionState::DeleteTensor(absl::string_view handle) {
  Tensor dropped;  // released outside the lock
  absl::MutexLock lock(&mu_);
  auto it = tensors_.find(handle);
  if (it == tensors_.end()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Failed to delete a tensor with handle '", handle,
                     "' in the session store."));
  }
  dropped = std::move(it->second);
  tensors_.erase(it);
  return absl::OkStatus();
}

void SessionState::Clear() {
  absl::flat_hash_map<std::string, Tensor> dropped;
  absl::MutexLock lock(&mu_);
  dropped.swap(tensors_);
}

size_t SessionState::size() const {
  absl::MutexLock lock(&mu_);
  return tensors_.size();
}

std::string TensorStore::MakeHandle(absl::string_view node, int64_t id,
                                    absl::string_view device) {
  return absl::StrCat(node, ";", id, ";", device);
}

absl::Status TensorStore::AddTensor(const std::string& node,
                                    const Tensor& tensor, int64_t id,
                                    const std::string& device) {
  absl::MutexLock lock(&mu_);
  if (!tensors_.try_emplace(node, Entry{tensor, MakeHandle(node, id, device)})
           .second) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Failed to add a tensor with name '", node, "' to the tensor store."));
  }
  return absl::OkStatus();
}

absl::Status TensorStore::SaveTensors(const std::vector<std::string>& nodes,
                                      SessionState* state) {
  absl::MutexLock lock(&mu_);
  for (const std::string& node : nodes) {
    auto it = tensors_.find(node);
    if (it == tensors_.end()) continue;
    absl::Status s = state->AddTensor(it->second.handle, it->second.tensor);
    if (!s.ok()) return s;
    tensors_.erase(it);  // a node named twice is saved once
  }
  return absl::OkStatus();
}

std::string SessionStepContainer(int64_t step_id) {
  return absl::StrCat("__session_step_", step_id);
}

absl::StatusOr<std::shared_ptr<SessionStepResource>> LookupSessionStep(
    const ResourceMgr& rm, int64_t step_id, absl::string_view op) {
  absl::StatusOr<std::shared_ptr<SessionStepResource>> r =
      rm.Lookup<SessionStepResource>(SessionStepContainer(step_id),
                                     kSessionStepName);
  if (!r.ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat(op, " called on null session state"));
  }
  return r;
}

}  // namespace dfx

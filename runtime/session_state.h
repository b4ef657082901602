// SessionState and TensorStore: the tensors a session keeps by handle
// between steps (TensorFlow's GetSessionHandle / GetSessionTensor /
// DeleteSessionTensor), and how a step's kernels reach them.
#ifndef DFX_RUNTIME_SESSION_STATE_H_
#define DFX_RUNTIME_SESSION_STATE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "runtime/resource_mgr.h"
#include "runtime/tensor.h"

namespace dfx {

// The tensors one session stores by handle string
// ("node;id;device", TensorFlow's spelling). One per worker session: a
// handle never resolves in another session's state. Thread-safe.
class SessionState {
 public:
  // The next id of this session (0, 1, ...), as TensorFlow numbers them.
  int64_t GetNewId();
  // InvalidArgument naming the handle when one is stored under it already.
  absl::Status AddTensor(const std::string& handle, const Tensor& tensor);
  // InvalidArgument "The tensor with handle '<h>' is not in the session
  // store." when absent (TensorFlow's code and words).
  absl::StatusOr<Tensor> GetTensor(absl::string_view handle) const;
  // InvalidArgument "Failed to delete a tensor with handle '<h>' in the
  // session store." when absent.
  absl::Status DeleteTensor(absl::string_view handle);
  // Drops every stored tensor (the session closes, or a Reset).
  void Clear();
  size_t size() const;

 private:
  mutable absl::Mutex mu_;
  int64_t next_id_ ABSL_GUARDED_BY(mu_) = 0;
  absl::flat_hash_map<std::string, Tensor> tensors_ ABSL_GUARDED_BY(mu_);
};

// The tensors GetSessionHandle kernels produced during one step, by node
// name; SaveTensors moves the fetched ones into the session at the step's
// successful end. Thread-safe.
class TensorStore {
 public:
  // TensorFlow's handle string: "<node>;<id>;<device>".
  static std::string MakeHandle(absl::string_view node, int64_t id,
                                absl::string_view device);

  // InvalidArgument naming the node when it stored a tensor this step
  // already (a GetSessionHandle in a loop).
  absl::Status AddTensor(const std::string& node, const Tensor& tensor,
                         int64_t id, const std::string& device);
  // Saves the tensors of `nodes` (those whose handle the client fetched)
  // into `state` (each once; a name without a tensor is skipped); the
  // others are dropped with the store.
  absl::Status SaveTensors(const std::vector<std::string>& nodes,
                           SessionState* state);

 private:
  struct Entry {
    Tensor tensor;
    std::string handle;
  };
  absl::Mutex mu_;
  absl::flat_hash_map<std::string, Entry> tensors_ ABSL_GUARDED_BY(mu_);
};

// What a step's kernels find in their device's resource manager, under
// container SessionStepContainer(step_id) and name kSessionStepName: the
// session's state and the step's tensor store. A worker session puts it
// there for the step's duration.
class SessionStepResource : public ResourceBase {
 public:
  static constexpr char kTypeName[] = "SessionStep";
  SessionStepResource(std::shared_ptr<SessionState> state,
                      std::shared_ptr<TensorStore> store)
      : state_(std::move(state)), store_(std::move(store)) {}
  std::string TypeName() const override { return kTypeName; }
  std::string DebugString() const override { return "session step state"; }
  SessionState* state() const { return state_.get(); }
  TensorStore* store() const { return store_.get(); }

 private:
  const std::shared_ptr<SessionState> state_;
  const std::shared_ptr<TensorStore> store_;
};

inline constexpr char kSessionStepName[] = "session";
std::string SessionStepContainer(int64_t step_id);

// The resource of step `step_id` in `rm`; FailedPrecondition "<op> called
// on null session state" (TensorFlow's words) when the step runs outside a
// session that keeps tensors.
absl::StatusOr<std::shared_ptr<SessionStepResource>> LookupSessionStep(
    const ResourceMgr& rm, int64_t step_id, absl::string_view op);

}  // namespace dfx

#endif  // DFX_RUNTIME_SESSION_STATE_H_

// WorkerSession: one master session's state on one worker (its registered
// graphs).
#ifndef DFX_WORKER_WORKER_SESSION_H_
#define DFX_WORKER_WORKER_SESSION_H_

#include <memory>
#include <string>
#include <utility>

#include "worker/graph_mgr.h"

namespace dfx {

// Thread-safe (the GraphMgr is). Shared by the worker's session table and
// the calls running in it, so a session deleted while a step runs lives
// until that step ends.
class WorkerSession {
 public:
  WorkerSession(std::string handle, GraphMgr::Env env)
      : handle_(std::move(handle)),
        graph_mgr_(std::make_unique<GraphMgr>(std::move(env))) {}

  // Empty for the legacy session.
  const std::string& handle() const { return handle_; }
  GraphMgr* graph_mgr() const { return graph_mgr_.get(); }

 private:
  const std::string handle_;
  const std::unique_ptr<GraphMgr> graph_mgr_;
};

}  // namespace dfx

#endif  // DFX_WORKER_WORKER_SESSION_H_

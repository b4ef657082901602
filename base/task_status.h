// Typed facts about a failed step that travel with its absl::Status (as a
// payload, also across gRPC: rpc/grpc_util.h carries payloads in the
// status details), so that a client decides what failed from data, not
// from the message text.
#ifndef DFX_BASE_TASK_STATUS_H_
#define DFX_BASE_TASK_STATUS_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace dfx {

// The payload's type URL. Its value: the full names of the tasks
// ("/job:worker/replica:0/task:1") that did not answer, or answered as a
// new process (a restart), when the master checked them after the step
// failed; '\n'-separated.
inline constexpr absl::string_view kUnavailableTasksPayload =
    "type.dfx.dev/dfx.UnavailableTasks";

// Sets the payload on a non-OK `status` (replacing an earlier one);
// nothing for OK or an empty `tasks`.
void SetUnavailableTasks(absl::Status* status,
                         const std::vector<std::string>& tasks);

// The tasks the payload names; empty when there is none.
std::vector<std::string> UnavailableTasks(const absl::Status& status);

}  // namespace dfx

#endif  // DFX_BASE_TASK_STATUS_H_

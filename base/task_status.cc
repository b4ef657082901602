#include "base/task_status.h"


#include "absl/strings/cord.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace dfx {

void SetUnavailableTasks(absl::Status* status,
                         const std::vector<std::string>& tasks) {
  if (status->ok() || tasks.empty()) return;
  status->SetPayload(kUnavailableTasksPayload,
                     absl::Cord(absl::StrJoin(tasks, "\n")));
}

std::vector<std::string> UnavailableTasks(const absl::Status& status) {
  std::vector<std::string> tasks;
  auto payload =
      status.GetPayload(kUnavailableTasksPayload);
  if (!payload.has_value()) return tasks;
  for (absl::string_view task :
       absl::StrSplit(std::string(*payload), '\n', absl::SkipEmpty())) {
    tasks.emplace_back(task);
  }
  return tasks;
}

}  // namespace dfx

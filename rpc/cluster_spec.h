// The cluster as users write it: TensorFlow's JSON cluster form
// ({"worker": ["host:port", ...], "ps": [...]}) and the TF_CONFIG variable
// ({"cluster": {...}, "task": {"type": "worker", "index": 0}}).
#ifndef DFX_RPC_CLUSTER_SPEC_H_
#define DFX_RPC_CLUSTER_SPEC_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "proto/cluster.pb.h"

namespace dfx {

// Each job maps to a list of addresses (task i is the i-th) or to an object
// {"<index>": "host:port"} (sparse tasks). InvalidArgument naming the job,
// task or address for bad JSON, a job name that is not [A-Za-z][A-Za-z0-9_]*,
// an empty job, an address that is not host:port, or an address given to
// two tasks.
absl::StatusOr<ClusterDef> ParseClusterJson(absl::string_view json);

// The cluster in the list form (or the object form for sparse jobs), jobs
// sorted by name.
std::string ClusterToJson(const ClusterDef& cluster);

struct TaskSpec {
  ClusterDef cluster;
  std::string job;
  int task_index = 0;
};

// TF_CONFIG's cluster and task; "type" may also be spelled "job".
// InvalidArgument for what ParseClusterJson rejects, a missing task, or a
// task not in the cluster.
absl::StatusOr<TaskSpec> ParseTfConfig(absl::string_view json);

// "/job:<job>/replica:0/task:<index>".
std::string TaskName(absl::string_view job, int task_index);

// The address of a task; NotFound naming the task when the cluster has none.
absl::StatusOr<std::string> TaskAddress(const ClusterDef& cluster,
                                        absl::string_view job, int task_index);

// The addresses of tasks 0, 1, ... of `job`, up to the first index the job
// lacks (empty when there is no such job).
std::vector<std::string> JobAddresses(const ClusterDef& cluster,
                                      absl::string_view job);

// ParseClusterJson of a file's contents (what `dfx cluster up` writes as
// cluster.json). NotFound naming the file when it cannot be read.
absl::StatusOr<ClusterDef> ReadClusterJsonFile(const std::string& path);

}  // namespace dfx

#endif  // DFX_RPC_CLUSTER_SPEC_H_

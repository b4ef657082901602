#include "rpc/cluster_spec.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "nlohmann/json.hpp"

namespace dfx {
namespace {

using nlohmann::json;

bool IsJobName(absl::string_view name) {
  if (name.empty() || !std::isalpha(static_cast<unsigned char>(name[0]))) {
    return false;
  }
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

absl::Status CheckAddress(absl::string_view job, int index,
                          const json& value, std::string* address) {
  if (!value.is_string()) {
    return absl::InvalidArgumentError(
        absl::StrCat("cluster: task ", index, " of job '", job,
                     "' must be a \"host:port\" string"));
  }
  *address = value.get<std::string>();
  const size_t colon = address->rfind(':');
  uint32_t port = 0;
  if (colon == std::string::npos || colon == 0 ||
      !absl::SimpleAtoi(absl::string_view(*address).substr(colon + 1),
                        &port) ||
      port > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat("cluster: address '", *address, "' of task ", index,
                     " of job '", job, "' is not host:port"));
  }
  return absl::OkStatus();
}

absl::StatusOr<ClusterDef> ClusterFromJson(const json& root) {
  if (!root.is_object()) {
    return absl::InvalidArgumentError(
        "cluster: expected a JSON object mapping job names to task "
        "addresses, e.g. {\"worker\": [\"127.0.0.1:2222\"]}");
  }
  if (root.empty()) {
    return absl::InvalidArgumentError("cluster: no jobs");
  }
  ClusterDef cluster;
  std::map<std::string, std::string> seen;  // address -> task
  for (const auto& [job, tasks] : root.items()) {
    if (!IsJobName(job)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "cluster: bad job name '", job,
          "' (a letter, then letters, digits or '_')"));
    }
    JobDef* def = cluster.add_job();
    def->set_name(job);
    std::vector<std::pair<int, const json*>> entries;
    if (tasks.is_array()) {
      for (size_t i = 0; i < tasks.size(); ++i) {
        entries.emplace_back(static_cast<int>(i), &tasks[i]);
      }
    } else if (tasks.is_object()) {
      for (const auto& [index_text, address] : tasks.items()) {
        int index = -1;
        if (!absl::SimpleAtoi(index_text, &index) || index < 0) {
          return absl::InvalidArgumentError(
              absl::StrCat("cluster: job '", job, "' has a bad task index '",
                           index_text, "'"));
        }
        entries.emplace_back(index, &address);
      }
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          "cluster: job '", job,
          "' must map to a list of addresses or an object {index: address}"));
    }
    if (entries.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("cluster: job '", job, "' has no tasks"));
    }
    for (const auto& [index, value] : entries) {
      std::string address;
      DFX_RETURN_IF_ERROR(CheckAddress(job, index, *value, &address));
      const std::string task = TaskName(job, index);
      auto [it, inserted] = seen.emplace(address, task);
      if (!inserted) {
        return absl::InvalidArgumentError(
            absl::StrCat("cluster: address '", address, "' is given to both ",
                         it->second, " and ", task));
      }
      (*def->mutable_tasks())[index] = address;
    }
  }
  std::sort(cluster.mutable_job()->begin(), cluster.mutable_job()->end(),
            [](const JobDef& a, const JobDef& b) { return a.name() < b.name(); });
  return cluster;
}

}  // namespace

std::string TaskName(absl::string_view job, int task_index) {
  return absl::StrCat("/job:", job, "/replica:0/task:", task_index);
}

absl::StatusOr<ClusterDef> ParseClusterJson(absl::string_view text) {
  json root = json::parse(text.begin(), text.end(), nullptr,
                          /*allow_exceptions=*/false);
  if (root.is_discarded()) {
    return absl::InvalidArgumentError("cluster: not valid JSON");
  }
  return ClusterFromJson(root);
}

std::string ClusterToJson(const ClusterDef& cluster) {
  json root = json::object();
  for (const JobDef& job : cluster.job()) {
    std::map<int, std::string> tasks(job.tasks().begin(), job.tasks().end());
    bool dense = !tasks.empty() && tasks.rbegin()->first ==
                                       static_cast<int>(tasks.size()) - 1;
    if (dense) {
      json list = json::array();
      for (const auto& [index, address] : tasks) list.push_back(address);
      root[job.name()] = list;
    } else {
      json object = json::object();
      for (const auto& [index, address] : tasks) {
        object[std::to_string(index)] = address;
      }
      root[job.name()] = object;
    }
  }
  return root.dump();
}

absl::StatusOr<TaskSpec> ParseTfConfig(absl::string_view text) {
  json root = json::parse(text.begin(), text.end(), nullptr,
                          /*allow_exceptions=*/false);
  if (root.is_discarded() || !root.is_object()) {
    return absl::InvalidArgumentError("TF_CONFIG: not a JSON object");
  }
  if (!root.contains("cluster")) {
    return absl::InvalidArgumentError("TF_CONFIG: no \"cluster\"");
  }
  TaskSpec spec;
  DFX_ASSIGN_OR_RETURN(spec.cluster, ClusterFromJson(root["cluster"]));
  if (!root.contains("task") || !root["task"].is_object()) {
    return absl::InvalidArgumentError(
        "TF_CONFIG: no \"task\": {\"type\": JOB, \"index\": N}");
  }
  const json& task = root["task"];
  const char* type_key = task.contains("type") ? "type" : "job";
  if (!task.contains(type_key) || !task[type_key].is_string()) {
    return absl::InvalidArgumentError(
        "TF_CONFIG: task.type must be a job name string");
  }
  spec.job = task[type_key].get<std::string>();
  if (task.contains("index")) {
    if (!task["index"].is_number_integer() || task["index"].get<int>() < 0) {
      return absl::InvalidArgumentError(
          "TF_CONFIG: task.index must be a non-negative integer");
    }
    spec.task_index = task["index"].get<int>();
  }
  DFX_RETURN_IF_ERROR(
      TaskAddress(spec.cluster, spec.job, spec.task_index).status());
  return spec;
}

absl::StatusOr<std::string> TaskAddress(const ClusterDef& cluster,
                                        absl::string_view job,
                                        int task_index) {
  for (const JobDef& def : cluster.job()) {
    if (def.name() != job) continue;
    auto it = def.tasks().find(task_index);
    if (it != def.tasks().end()) return it->second;
  }
  return absl::NotFoundError(absl::StrCat(
      "the cluster has no task ", TaskName(job, task_index)));
}

std::vector<std::string> JobAddresses(const ClusterDef& cluster,
                                      absl::string_view job) {
  std::vector<std::string> addresses;
  for (int t = 0;; ++t) {
    absl::StatusOr<std::string> address = TaskAddress(cluster, job, t);
    if (!address.ok()) break;
    addresses.push_back(*std::move(address));
  }
  return addresses;
}

absl::StatusOr<ClusterDef> ReadClusterJsonFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    return absl::NotFoundError(
        absl::StrCat("cannot read the cluster file ", path));
  }
  std::stringstream text;
  text << in.rdbuf();
  absl::StatusOr<ClusterDef> cluster = ParseClusterJson(text.str());
  if (!cluster.ok()) {
    return absl::Status(cluster.status().code(),
                        absl::StrCat(path, ": ", cluster.status().message()));
  }
  return cluster;
}

}  // namespace dfx

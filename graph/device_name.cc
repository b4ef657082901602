#include "graph/device_name.h"

#include <algorithm>
#include <cctype>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace dfx {
namespace {

bool IsJobName(absl::string_view s) {
  if (s.empty() || !std::isalpha(static_cast<unsigned char>(s[0]))) {
    return false;
  }
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

bool IsTypeName(absl::string_view s) {
  if (s.empty() || !std::isalpha(static_cast<unsigned char>(s[0]))) {
    return false;
  }
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

// Parses "N" into *value with *has = true, or "*" into *has = false.
bool ParseIndex(absl::string_view s, bool* has, int* value) {
  if (s == "*") {
    *has = false;
    return true;
  }
  if (s.empty() || !std::all_of(s.begin(), s.end(), [](char c) {
        return c >= '0' && c <= '9';
      })) {
    return false;
  }
  if (!absl::SimpleAtoi(s, value)) return false;
  *has = true;
  return true;
}

}  // namespace

absl::StatusOr<DeviceName> DeviceName::Parse(absl::string_view name) {
  DeviceName d;
  auto bad = [&](absl::string_view part) {
    return absl::InvalidArgumentError(absl::StrCat(
        "malformed device name '", name, "' at '", part,
        "' (expected e.g. /job:worker/replica:0/task:1/device:CPU:0)"));
  };
  if (name.empty()) return d;
  if (name[0] != '/') return bad(name);
  std::vector<absl::string_view> parts =
      absl::StrSplit(name.substr(1), '/');
  for (absl::string_view part : parts) {
    if (part.empty()) return bad(part);
    absl::string_view rest = part;
    if (absl::ConsumePrefix(&rest, "job:")) {
      if (rest == "*") {
        d.has_job = false;
      } else if (IsJobName(rest)) {
        d.has_job = true;
        d.job = std::string(rest);
      } else {
        return bad(part);
      }
    } else if (absl::ConsumePrefix(&rest, "replica:")) {
      if (!ParseIndex(rest, &d.has_replica, &d.replica)) return bad(part);
    } else if (absl::ConsumePrefix(&rest, "task:")) {
      if (!ParseIndex(rest, &d.has_task, &d.task)) return bad(part);
    } else if (absl::ConsumePrefix(&rest, "device:")) {
      // "device:TYPE:ID", "device:TYPE:*", "device:TYPE", "device:*".
      if (rest == "*") {
        d.has_type = false;
        d.has_id = false;
        continue;
      }
      const size_t colon = rest.find(':');
      const absl::string_view type = rest.substr(0, colon);
      if (!IsTypeName(type)) return bad(part);
      d.has_type = true;
      d.type = std::string(type);
      if (colon != absl::string_view::npos) {
        if (!ParseIndex(rest.substr(colon + 1), &d.has_id, &d.id)) {
          return bad(part);
        }
      } else {
        d.has_id = false;
      }
    } else {
      // Legacy "cpu:0", "gpu:*", "CPU:1".
      const size_t colon = rest.find(':');
      if (colon == absl::string_view::npos) return bad(part);
      const std::string type =
          absl::AsciiStrToUpper(rest.substr(0, colon));
      if (type != "CPU" && type != "GPU") return bad(part);
      d.has_type = true;
      d.type = type;
      if (!ParseIndex(rest.substr(colon + 1), &d.has_id, &d.id)) {
        return bad(part);
      }
    }
  }
  return d;
}

std::string DeviceName::TaskName() const {
  std::string out;
  if (has_job) absl::StrAppend(&out, "/job:", job);
  if (has_replica) absl::StrAppend(&out, "/replica:", replica);
  if (has_task) absl::StrAppend(&out, "/task:", task);
  return out;
}

std::string DeviceName::LocalName() const {
  if (!has_type) return "";
  return absl::StrCat("/device:", type, ":",
                      has_id ? absl::StrCat(id) : std::string("*"));
}

std::string DeviceName::ToString() const {
  return absl::StrCat(TaskName(), LocalName());
}

bool DeviceName::Matches(const DeviceName& spec) const {
  if (spec.has_job && (!has_job || job != spec.job)) return false;
  if (spec.has_replica && (!has_replica || replica != spec.replica)) {
    return false;
  }
  if (spec.has_task && (!has_task || task != spec.task)) return false;
  if (spec.has_type && (!has_type || type != spec.type)) return false;
  if (spec.has_id && (!has_id || id != spec.id)) return false;
  return true;
}

bool DeviceName::IsCompatibleWith(const DeviceName& other) const {
  if (has_job && other.has_job && job != other.job) return false;
  if (has_replica && other.has_replica && replica != other.replica) {
    return false;
  }
  if (has_task && other.has_task && task != other.task) return false;
  if (has_type && other.has_type && type != other.type) return false;
  if (has_id && other.has_id && id != other.id) return false;
  return true;
}

absl::Status DeviceName::MergeFrom(const DeviceName& other) {
  if (!IsCompatibleWith(other)) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot merge device specifications '", ToString(),
                     "' and '", other.ToString(), "'"));
  }
  if (!has_job && other.has_job) {
    has_job = true;
    job = other.job;
  }
  if (!has_replica && other.has_replica) {
    has_replica = true;
    replica = other.replica;
  }
  if (!has_task && other.has_task) {
    has_task = true;
    task = other.task;
  }
  if (!has_type && other.has_type) {
    has_type = true;
    type = other.type;
  }
  if (!has_id && other.has_id) {
    has_id = true;
    id = other.id;
  }
  return absl::OkStatus();
}

bool DeviceName::IsSameTask(const DeviceName& other) const {
  return has_job == other.has_job && job == other.job &&
         has_replica == other.has_replica && replica == other.replica &&
         has_task == other.has_task && task == other.task;
}

bool DeviceName::operator==(const DeviceName& other) const {
  return IsSameTask(other) && has_type == other.has_type &&
         type == other.type && has_id == other.has_id && id == other.id;
}

std::string FullDeviceName(absl::string_view job, int replica, int task,
                           absl::string_view type, int id) {
  return absl::StrCat("/job:", job, "/replica:", replica, "/task:", task,
                      "/device:", type, ":", id);
}

}  // namespace dfx

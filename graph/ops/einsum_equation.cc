#include "graph/ops/einsum_equation.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace dfx {

bool EinsumEquation::HasEllipsis(const std::vector<int>& labels) {
  return std::find(labels.begin(), labels.end(), kEllipsis) != labels.end();
}

int EinsumEquation::NumNamed(const std::vector<int>& labels) {
  return static_cast<int>(labels.size()) - (HasEllipsis(labels) ? 1 : 0);
}

namespace {

absl::Status ParseSubscript(absl::string_view equation, absl::string_view sub,
                            EinsumEquation* eq, bool is_output,
                            std::vector<int>* labels) {
  bool ellipsis = false;
  for (size_t i = 0; i < sub.size(); ++i) {
    const char ch = sub[i];
    if (ch == '.') {
      if (sub.substr(i, 3) != "..." || ellipsis) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Invalid ellipsis in einsum equation '", equation,
            "': each subscript may have at most one '...'"));
      }
      ellipsis = true;
      labels->push_back(EinsumEquation::kEllipsis);
      i += 2;
      continue;
    }
    if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z'))) {
      return absl::InvalidArgumentError(
          absl::StrCat("Invalid character '", std::string(1, ch),
                       "' in einsum equation '", equation, "'"));
    }
    size_t id = eq->letters.find(ch);
    if (id == std::string::npos) {
      if (is_output) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Einsum output subscripts for equation '", equation,
            "' has label '", std::string(1, ch),
            "' which is not present in the input subscripts"));
      }
      id = eq->letters.size();
      eq->letters.push_back(ch);
    }
    labels->push_back(static_cast<int>(id));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<EinsumEquation> ParseEinsumEquation(absl::string_view equation,
                                                   int num_inputs) {
  std::vector<absl::string_view> sides = absl::StrSplit(equation, "->");
  if (sides.size() != 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Expecting exactly one '->' in einsum equation: ", equation));
  }
  std::string lhs;
  for (char ch : sides[0]) {
    if (ch != ' ') lhs.push_back(ch);
  }
  std::string rhs;
  for (char ch : sides[1]) {
    if (ch != ' ') rhs.push_back(ch);
  }
  std::vector<absl::string_view> subs = absl::StrSplit(lhs, ',');
  if (subs.size() != 1 && subs.size() != 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Expecting 1 or 2 input subscripts in equation '", equation,
        "' but got: ", subs.size()));
  }
  if (static_cast<int>(subs.size()) != num_inputs) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Expecting ", num_inputs, " input subscripts in equation '",
        equation, "' but got: ", subs.size()));
  }
  EinsumEquation eq;
  eq.inputs.resize(subs.size());
  for (size_t i = 0; i < subs.size(); ++i) {
    absl::Status s = ParseSubscript(equation, subs[i], &eq, false,
                                    &eq.inputs[i]);
    if (!s.ok()) return s;
  }
  absl::Status s = ParseSubscript(equation, rhs, &eq, true, &eq.output);
  if (!s.ok()) return s;
  eq.num_labels = static_cast<int>(eq.letters.size());
  return eq;
}

absl::StatusOr<ResolvedEinsum> ResolveEinsum(const EinsumEquation& eq,
                                             const std::vector<int>& ranks) {
  ResolvedEinsum r;
  r.num_named = eq.num_labels;
  int broadcast_rank = 0;
  std::vector<int> ellipsis_ranks(eq.inputs.size(), 0);
  for (size_t i = 0; i < eq.inputs.size(); ++i) {
    const std::vector<int>& labels = eq.inputs[i];
    const int named = EinsumEquation::NumNamed(labels);
    const bool has_ellipsis = EinsumEquation::HasEllipsis(labels);
    if (ranks[i] < named || (!has_ellipsis && ranks[i] != named)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Input ", i, " to Einsum has rank ", ranks[i],
          " but its subscript has ", named, " labels",
          has_ellipsis ? " and an ellipsis" : ""));
    }
    ellipsis_ranks[i] = ranks[i] - named;
    broadcast_rank = std::max(broadcast_rank, ellipsis_ranks[i]);
  }
  if (broadcast_rank > 0 && !EinsumEquation::HasEllipsis(eq.output)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Shape must be at most rank 0 but is rank ", broadcast_rank,
        ": the inputs' ellipsis dimensions must appear in the output "
        "subscripts (as '...')"));
  }
  r.num_labels = eq.num_labels + broadcast_rank;
  auto expand = [&](const std::vector<int>& labels, int ellipsis_rank,
                    std::vector<int>* out) {
    for (int label : labels) {
      if (label != EinsumEquation::kEllipsis) {
        out->push_back(label);
        continue;
      }
      for (int j = broadcast_rank - ellipsis_rank; j < broadcast_rank; ++j) {
        out->push_back(eq.num_labels + j);
      }
    }
  };
  r.inputs.resize(eq.inputs.size());
  for (size_t i = 0; i < eq.inputs.size(); ++i) {
    expand(eq.inputs[i], ellipsis_ranks[i], &r.inputs[i]);
  }
  expand(eq.output, broadcast_rank, &r.output);
  return r;
}

}  // namespace dfx

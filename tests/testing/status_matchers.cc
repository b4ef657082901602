#include "tests/testing/status_matchers.h"

#include "absl/strings/str_cat.h"

namespace dfx::testing {

bool StatusMatcher::match(const absl::Status& s) const {
  if (ok_) return s.ok();
  return s.code() == code_ &&
         s.message().find(substring_) != absl::string_view::npos;
}

std::string StatusMatcher::describe() const {
  if (ok_) return "is OK";
  return absl::StrCat("has code ", absl::StatusCodeToString(code_),
                      " and a message containing \"", substring_, "\"");
}

}  // namespace dfx::testing

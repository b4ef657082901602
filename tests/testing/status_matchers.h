// Catch2 matchers for absl::Status and absl::StatusOr:
//   REQUIRE_THAT(s, IsOk());
//   REQUIRE_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument, "node 'x'"));
#ifndef DFX_TESTS_TESTING_STATUS_MATCHERS_H_
#define DFX_TESTS_TESTING_STATUS_MATCHERS_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/logging.h"
#include "catch2/catch.hpp"

namespace dfx::testing {

class StatusMatcher : public Catch::MatcherBase<absl::Status> {
 public:
  // With `ok` true, matches an OK status. Otherwise matches `code` with a
  // message containing `substring`.
  StatusMatcher(bool ok, absl::StatusCode code, std::string substring)
      : ok_(ok), code_(code), substring_(std::move(substring)) {}
  bool match(const absl::Status& s) const override;
  std::string describe() const override;

 private:
  bool ok_;
  absl::StatusCode code_;
  std::string substring_;
};

inline StatusMatcher IsOk() {
  return StatusMatcher(true, absl::StatusCode::kOk, "");
}
inline StatusMatcher StatusIs(absl::StatusCode code,
                              std::string substring = "") {
  return StatusMatcher(false, code, std::move(substring));
}

}  // namespace dfx::testing

namespace Catch {
// Prints a status in assertion failures.
template <>
struct StringMaker<absl::Status> {
  static std::string convert(const absl::Status& s) { return s.ToString(); }
};
}  // namespace Catch

// REQUIRE_OK(expr) for a Status or a StatusOr.
#define REQUIRE_OK(expr)                                                   \
  do {                                                                     \
    const ::absl::Status dfx_test_status_ = ::dfx::testing::ToStatus(expr); \
    INFO(dfx_test_status_.ToString());                                     \
    REQUIRE(dfx_test_status_.ok());                                        \
  } while (0)

namespace dfx::testing {
inline absl::Status ToStatus(const absl::Status& s) { return s; }
template <typename T>
absl::Status ToStatus(const absl::StatusOr<T>& s) {
  return s.status();
}
}  // namespace dfx::testing

#endif  // DFX_TESTS_TESTING_STATUS_MATCHERS_H_

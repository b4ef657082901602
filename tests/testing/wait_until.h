// WaitUntil: polls a condition that another thread or process makes true
// soon, for tests that check state settled after a call returned (a
// server's bookkeeping that follows its answer), with a bound so a test
// that would wait forever fails instead.
#ifndef DFX_TESTS_TESTING_WAIT_UNTIL_H_
#define DFX_TESTS_TESTING_WAIT_UNTIL_H_

#include <functional>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "tests/testing/time_scale.h"

namespace dfx::testing {

// Whether `condition` became true within `limit` (times the sanitizers'
// slow-down), checked every millisecond.
inline bool WaitUntil(const std::function<bool()>& condition,
                      absl::Duration limit = absl::Seconds(10)) {
  const absl::Time deadline = absl::Now() + limit * TestTimeScale();
  while (!condition()) {
    if (absl::Now() > deadline) return false;
    absl::SleepFor(absl::Milliseconds(1));
  }
  return true;
}

}  // namespace dfx::testing

#endif  // DFX_TESTS_TESTING_WAIT_UNTIL_H_

// TestTimeScale: how many times slower than a plain build this test run may
// be. tools/test --sanitize sets DFX_TEST_TIME_SCALE (ASan 4, TSan 8);
// limits that only guard against a hang multiply by it, so a slow
// sanitized run does not fail on them. Deadlines a test means to pass (a
// 200 ms RPC timeout it expects to fire) do not.
#ifndef DFX_TESTS_TESTING_TIME_SCALE_H_
#define DFX_TESTS_TESTING_TIME_SCALE_H_

#include <cstdlib>

namespace dfx::testing {

// DFX_TEST_TIME_SCALE as an integer from 1 to 100; 1 when unset or invalid.
inline int TestTimeScale() {
  const char* v = std::getenv("DFX_TEST_TIME_SCALE");
  if (v == nullptr) return 1;
  char* end = nullptr;
  const long scale = std::strtol(v, &end, 10);
  if (end == v || *end != '\0' || scale < 1 || scale > 100) return 1;
  return static_cast<int>(scale);
}

}  // namespace dfx::testing

#endif  // DFX_TESTS_TESTING_TIME_SCALE_H_

// The Rendezvous contract, written once and run against every
// implementation: DFX_RENDEZVOUS_CONFORMANCE_TESTS(Name, factory) defines the
// test cases for a factory returning std::shared_ptr<Rendezvous>, plus a
// helper to make keys whose devices the implementation can serve.
#ifndef DFX_TESTS_RENDEZVOUS_RENDEZVOUS_CONFORMANCE_H_
#define DFX_TESTS_RENDEZVOUS_RENDEZVOUS_CONFORMANCE_H_

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "catch2/catch.hpp"
#include "runtime/cancellation.h"
#include "runtime/rendezvous.h"
#include "tests/testing/status_matchers.h"

namespace dfx::testing {

// A key from CPU:0 of task 0 to CPU:0 of task 0 (same process) carrying
// `name`. Implementations that need another source task pass their own.
inline Rendezvous::ParsedKey ConformanceKey(const std::string& name,
                                            const std::string& src_task =
                                                "/job:localhost/replica:0/task:0",
                                            uint64_t incarnation = 1) {
  return Rendezvous::ParsedKey::Parse(
             Rendezvous::CreateKey(src_task + "/device:CPU:0", incarnation,
                                   "/job:localhost/replica:0/task:0/device:CPU:0",
                                   name))
      .value();
}

// Collects one RecvAsync result.
struct RecvResult {
  absl::Notification done;
  absl::Status status;
  Tensor value;
  bool is_dead = false;
  Rendezvous::DoneCallback Callback() {
    return [this](const absl::Status& s, const Tensor& v, bool dead) {
      status = s;
      value = v;
      is_dead = dead;
      done.Notify();
    };
  }
  bool Wait() { return done.WaitForNotificationWithTimeout(absl::Seconds(30)); }
};

}  // namespace dfx::testing

// Every case takes a fresh rendezvous from FACTORY().
#define DFX_RENDEZVOUS_CONFORMANCE_TESTS(NAME, FACTORY)                        \
  TEST_CASE(NAME ": send before receive hands the tensor over") {              \
    std::shared_ptr<::dfx::Rendezvous> r = FACTORY();                          \
    auto key = ::dfx::testing::ConformanceKey("a");                            \
    ::dfx::Tensor t = ::dfx::Tensor::FromVector<float>({1, 2, 3});             \
    REQUIRE_OK(r->Send(key, {}, t, false));                                    \
    ::dfx::testing::RecvResult got;                                            \
    r->RecvAsync(key, {}, got.Callback());                                     \
    REQUIRE(got.Wait());                                                       \
    REQUIRE_OK(got.status);                                                    \
    REQUIRE(got.value.span<float>()[2] == 3.0f);                               \
    REQUIRE_FALSE(got.is_dead);                                                \
  }                                                                            \
  TEST_CASE(NAME ": receive before send completes when the send comes") {      \
    std::shared_ptr<::dfx::Rendezvous> r = FACTORY();                          \
    auto key = ::dfx::testing::ConformanceKey("b");                            \
    ::dfx::testing::RecvResult got;                                            \
    r->RecvAsync(key, {}, got.Callback());                                     \
    REQUIRE_FALSE(got.done.HasBeenNotified());                                 \
    /* Catch2 is not thread-safe: the thread checks nothing itself. */      \
    ::absl::Status sent;                                                       \
    std::thread sender([&] {                                                   \
      sent = r->Send(key, {}, ::dfx::Tensor::Scalar<int64_t>(42), false);      \
    });                                                                        \
    REQUIRE(got.Wait());                                                       \
    sender.join();                                                             \
    REQUIRE_OK(sent);                                                          \
    REQUIRE_OK(got.status);                                                    \
    REQUIRE(got.value.scalar<int64_t>() == 42);                                \
  }                                                                            \
  TEST_CASE(NAME ": the dead flag travels with the tensor") {                  \
    std::shared_ptr<::dfx::Rendezvous> r = FACTORY();                          \
    auto key = ::dfx::testing::ConformanceKey("dead");                         \
    REQUIRE_OK(r->Send(key, {}, ::dfx::Tensor(), true));                       \
    ::dfx::testing::RecvResult got;                                            \
    r->RecvAsync(key, {}, got.Callback());                                     \
    REQUIRE(got.Wait());                                                       \
    REQUIRE_OK(got.status);                                                    \
    REQUIRE(got.is_dead);                                                      \
  }                                                                            \
  TEST_CASE(NAME ": abort fails pending and later operations") {               \
    std::shared_ptr<::dfx::Rendezvous> r = FACTORY();                          \
    ::dfx::testing::RecvResult pending;                                        \
    r->RecvAsync(::dfx::testing::ConformanceKey("p"), {}, pending.Callback()); \
    r->StartAbort(absl::AbortedError("worker 3 failed"));                      \
    REQUIRE(pending.Wait());                                                   \
    REQUIRE_THAT(pending.status,                                               \
                 ::dfx::testing::StatusIs(absl::StatusCode::kAborted,          \
                                          "worker 3 failed"));                 \
    REQUIRE_THAT(r->Send(::dfx::testing::ConformanceKey("q"), {},              \
                         ::dfx::Tensor::Scalar<float>(1), false),              \
                 ::dfx::testing::StatusIs(absl::StatusCode::kAborted));        \
    ::dfx::testing::RecvResult later;                                          \
    r->RecvAsync(::dfx::testing::ConformanceKey("q"), {}, later.Callback());   \
    REQUIRE(later.Wait());                                                     \
    REQUIRE_THAT(later.status,                                                 \
                 ::dfx::testing::StatusIs(absl::StatusCode::kAborted));        \
    r->StartAbort(absl::InternalError("second"));                              \
    ::dfx::testing::RecvResult third;                                          \
    r->RecvAsync(::dfx::testing::ConformanceKey("r"), {}, third.Callback());   \
    REQUIRE(third.Wait());                                                     \
    REQUIRE_THAT(third.status,                                                 \
                 ::dfx::testing::StatusIs(absl::StatusCode::kAborted,          \
                                          "worker 3 failed"));                 \
  }                                                                            \
  TEST_CASE(NAME ": cancellation ends a pending receive") {                    \
    std::shared_ptr<::dfx::Rendezvous> r = FACTORY();                          \
    ::dfx::CancellationManager cm;                                             \
    ::dfx::Rendezvous::Args args;                                              \
    args.cancellation_manager = &cm;                                           \
    ::dfx::testing::RecvResult got;                                            \
    r->RecvAsync(::dfx::testing::ConformanceKey("c"), args, got.Callback());   \
    REQUIRE_FALSE(got.done.HasBeenNotified());                                 \
    cm.StartCancel();                                                          \
    REQUIRE(got.Wait());                                                       \
    REQUIRE_THAT(got.status,                                                   \
                 ::dfx::testing::StatusIs(absl::StatusCode::kCancelled));      \
    ::dfx::testing::RecvResult after;                                          \
    r->RecvAsync(::dfx::testing::ConformanceKey("c2"), args, after.Callback());\
    REQUIRE(after.Wait());                                                     \
    REQUIRE_THAT(after.status,                                                 \
                 ::dfx::testing::StatusIs(absl::StatusCode::kCancelled));      \
  }                                                                            \
  TEST_CASE(NAME ": many keys from many threads all arrive once") {            \
    std::shared_ptr<::dfx::Rendezvous> r = FACTORY();                          \
    constexpr int kKeys = 2000;                                                \
    std::vector<::dfx::testing::RecvResult> got(kKeys);                        \
    std::thread receiver([&] {                                                 \
      for (int i = 0; i < kKeys; i += 2) {                                     \
        r->RecvAsync(::dfx::testing::ConformanceKey("k" + std::to_string(i)),  \
                     {}, got[i].Callback());                                   \
      }                                                                        \
    });                                                                        \
    ::absl::Status sent;                                                       \
    std::thread sender([&] {                                                   \
      for (int i = 0; i < kKeys && sent.ok(); ++i) {                           \
        sent = r->Send(                                                        \
            ::dfx::testing::ConformanceKey("k" + std::to_string(i)), {},       \
            ::dfx::Tensor::Scalar<int32_t>(i), false);                         \
      }                                                                        \
    });                                                                        \
    for (int i = 1; i < kKeys; i += 2) {                                       \
      r->RecvAsync(::dfx::testing::ConformanceKey("k" + std::to_string(i)),    \
                   {}, got[i].Callback());                                     \
    }                                                                          \
    receiver.join();                                                           \
    sender.join();                                                             \
    REQUIRE_OK(sent);                                                          \
    for (int i = 0; i < kKeys; ++i) {                                          \
      REQUIRE(got[i].Wait());                                                  \
      REQUIRE_OK(got[i].status);                                               \
      REQUIRE(got[i].value.scalar<int32_t>() == i);                            \
    }                                                                          \
  }

#endif  // DFX_TESTS_RENDEZVOUS_RENDEZVOUS_CONFORMANCE_H_

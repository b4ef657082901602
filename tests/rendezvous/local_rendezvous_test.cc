#include "rendezvous/local_rendezvous.h"

#include "absl/time/clock.h"

#include "rendezvous/rendezvous_mgr.h"
#include "tests/rendezvous/rendezvous_conformance.h"

namespace dfx {
namespace {

using testing::ConformanceKey;
using testing::RecvResult;
using testing::StatusIs;

std::shared_ptr<Rendezvous> NewLocal() {
  return std::make_shared<LocalRendezvous>();
}

DFX_RENDEZVOUS_CONFORMANCE_TESTS("LocalRendezvous", NewLocal)

TEST_CASE("LocalRendezvous hands over the buffer without copying it") {
  LocalRendezvous r;
  Tensor big(DT_FLOAT, TensorShape({1 << 20}));
  REQUIRE_OK(r.Send(ConformanceKey("big"), {}, big, false));
  RecvResult got;
  r.RecvAsync(ConformanceKey("big"), {}, got.Callback());
  REQUIRE(got.Wait());
  REQUIRE(got.value.SharesBufferWith(big));
  REQUIRE(got.value.raw_data() == big.raw_data());
}

TEST_CASE("LocalRendezvous rejects a key sent twice") {
  LocalRendezvous r;
  REQUIRE_OK(r.Send(ConformanceKey("twice"), {}, Tensor::Scalar<float>(1),
                    false));
  REQUIRE_THAT(r.Send(ConformanceKey("twice"), {}, Tensor::Scalar<float>(2),
                      false),
               StatusIs(absl::StatusCode::kInvalidArgument, "sent twice"));
}

TEST_CASE("Destroying a LocalRendezvous fails its pending receives") {
  RecvResult got;
  {
    LocalRendezvous r;
    r.RecvAsync(ConformanceKey("never"), {}, got.Callback());
  }
  REQUIRE(got.Wait());
  REQUIRE_THAT(got.status, StatusIs(absl::StatusCode::kCancelled));
}

TEST_CASE("RendezvousMgr keeps one rendezvous per step and cleans up") {
  RendezvousMgr mgr;
  std::shared_ptr<Rendezvous> a = mgr.Find(7);
  REQUIRE(mgr.Find(7) == a);
  REQUIRE(mgr.Find(8) != a);
  REQUIRE(mgr.NumSteps() == 2);
  RecvResult pending;
  a->RecvAsync(ConformanceKey("x"), {}, pending.Callback());
  mgr.Cleanup(7);
  REQUIRE(pending.Wait());
  REQUIRE_THAT(pending.status,
               StatusIs(absl::StatusCode::kCancelled, "step 7"));
  REQUIRE(mgr.NumSteps() == 1);
  REQUIRE(mgr.Find(7) != a);  // a new step 7 gets a fresh rendezvous
  mgr.CleanupAll();
  REQUIRE(mgr.NumSteps() == 0);
}

TEST_CASE("RendezvousMgr drops the steps nothing holds or found for a while") {
  RendezvousMgr mgr;
  std::shared_ptr<Rendezvous> held = mgr.Find(1);
  mgr.Find(2);  // an orphan: sent to, never cleaned up
  REQUIRE(mgr.NumSteps() == 2);
  // Found just now: nothing goes yet.
  CHECK(mgr.CleanupIdle(absl::Seconds(60)) == 0);
  absl::SleepFor(absl::Milliseconds(30));
  CHECK(mgr.CleanupIdle(absl::Milliseconds(20)) == 1);
  CHECK(mgr.NumSteps() == 1);
  CHECK(mgr.Find(1) == held);  // the held one stays
  held.reset();
  absl::SleepFor(absl::Milliseconds(30));
  CHECK(mgr.CleanupIdle(absl::Milliseconds(20)) == 1);
  CHECK(mgr.NumSteps() == 0);
}

}  // namespace
}  // namespace dfx

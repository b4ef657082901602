#include "base/shared_ref.h"

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "catch2/catch.hpp"

namespace dfx {
namespace {

TEST_CASE("SharedRef: Unique only for the last reference, through copies "
          "and moves") {
  SharedRef<int> a(std::make_shared<int>(7));
  CHECK(a.Unique());
  SharedRef<int> b = a;
  CHECK_FALSE(a.Unique());
  CHECK_FALSE(b.Unique());
  CHECK(a.use_count() == 2);
  SharedRef<int> c = std::move(b);
  CHECK(a.use_count() == 2);
  CHECK(b.get() == nullptr);  // NOLINT(bugprone-use-after-move): moved-from is empty
  c = SharedRef<int>(std::make_shared<int>(8));  // drops its share of a
  CHECK(a.Unique());
  CHECK(*c.get() == 8);
  c = a;  // c's 8 goes, c shares a's 7
  CHECK(a.use_count() == 2);
  c = c;  // self-assignment keeps the reference
  CHECK(a.use_count() == 2);
  CHECK(*c.get() == 7);
  c = std::move(c);  // NOLINT: a self-move keeps the reference too
  CHECK(a.use_count() == 2);
  CHECK(*c.get() == 7);
  SharedRef<int> empty;
  CHECK_FALSE(empty.Unique());
  CHECK(empty.use_count() == 0);
}

TEST_CASE("SharedRef: assigning from a reference held inside the object "
          "being let go") {
  struct Node {
    SharedRef<Node> next;
    int value = 0;
  };
  auto second = std::make_shared<Node>();
  second->value = 2;
  auto first = std::make_shared<Node>();
  first->value = 1;
  first->next = SharedRef<Node>(second);
  second.reset();
  SharedRef<Node> head(std::move(first));
  // head's node is freed by this assignment, and with it the `next` being
  // assigned from: the reference must be taken first.
  head = head.get()->next;
  REQUIRE(head.get() != nullptr);
  CHECK(head.get()->value == 2);
  CHECK(head.Unique());
}

// The pattern Unique() exists for: readers on other threads read the
// object and drop their references; the owner writes in place once it is
// the only holder. Under TSan (tools/test --sanitize thread) this test is
// where a missing acquire would be reported.
TEST_CASE("SharedRef: what readers on other threads did happens before "
          "the owner sees Unique") {
  for (int round = 0; round < 50; ++round) {
    SharedRef<std::vector<int>> owner(
        std::make_shared<std::vector<int>>(256, round));
    std::atomic<long> sums{0};
    std::vector<std::thread> readers;
    for (int r = 0; r < 3; ++r) {
      readers.emplace_back([ref = owner, &sums]() mutable {
        long sum = 0;
        for (int v : *ref.get()) sum += v;
        sums += sum;
        ref = SharedRef<std::vector<int>>();  // let go before the thread ends
      });
    }
    while (!owner.Unique()) std::this_thread::yield();
    for (int& v : *owner.get()) v = -1;  // in place: nobody else can see it
    for (std::thread& t : readers) t.join();
    CHECK(sums.load() == 3L * 256 * round);
  }
}

}  // namespace
}  // namespace dfx

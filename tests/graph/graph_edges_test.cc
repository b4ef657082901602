// Graph's edge lists after removals: RemoveEdge takes an edge out in
// constant time (the list's last edge takes its place), and every list stays
// exactly the set of live edges, whatever the order of removals.
#include <algorithm>
#include <random>
#include <set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "catch2/catch.hpp"
#include "graph/graph.h"
#include "graph/graph_def_import.h"
#include "graph/ops/ops.h"
#include "tests/testing/status_matchers.h"

namespace dfx {
namespace {

NodeDef MakeNode(const std::string& name, const std::string& op,
                 std::vector<std::string> inputs = {}) {
  NodeDef def;
  def.set_name(name);
  def.set_op(op);
  for (const std::string& in : inputs) def.add_input(in);
  (*def.mutable_attr())["T"].set_type(DT_FLOAT);
  (*def.mutable_attr())["dtype"].set_type(DT_FLOAT);
  return def;
}

std::set<const Edge*> AsSet(const std::vector<const Edge*>& v) {
  return {v.begin(), v.end()};
}

TEST_CASE("Graph edge lists hold exactly the live edges after removals in "
          "any order") {
  Graph g(OpRegistry::Global());
  auto src = g.AddNode(MakeNode("c", "Placeholder"));
  REQUIRE_OK(src.status());
  constexpr int kConsumers = 200;
  std::vector<Node*> consumers;
  std::vector<const Edge*> edges;
  for (int i = 0; i < kConsumers; ++i) {
    auto n = g.AddNode(MakeNode(absl::StrCat("neg", i), "Neg"));
    REQUIRE_OK(n.status());
    consumers.push_back(*n);
    edges.push_back(g.AddEdge(*src, 0, *n, 0));
    // A control edge too, so that each consumer's in-list has two.
    edges.push_back(g.AddControlEdge(*src, *n));
  }
  std::mt19937 rng(7);
  std::vector<const Edge*> order = edges;
  std::shuffle(order.begin(), order.end(), rng);
  std::set<const Edge*> live(edges.begin(), edges.end());
  for (size_t k = 0; k < order.size(); ++k) {
    const Edge* e = order[k];
    live.erase(e);
    g.RemoveEdge(e);
    if (k % 37 != 0 && k + 1 != order.size()) continue;
    // Every list is the live edges of its node.
    std::set<const Edge*> out;
    for (const Edge* l : live) out.insert(l);
    CHECK(AsSet((*src)->out_edges()) == out);
    CHECK((*src)->out_edges().size() == live.size());
    for (Node* n : consumers) {
      std::set<const Edge*> in;
      for (const Edge* l : live) {
        if (l->dst == n) in.insert(l);
      }
      CHECK(AsSet(n->in_edges()) == in);
    }
  }
  CHECK((*src)->out_edges().empty());
  // Removing a node after some of its edges went: the rest go with it.
  auto a = g.AddNode(MakeNode("a", "Placeholder"));
  REQUIRE_OK(a.status());
  for (Node* n : consumers) g.AddEdge(*a, 0, n, 0);
  g.RemoveEdge((*a)->out_edges()[5]);
  g.RemoveNode(*a);
  for (Node* n : consumers) CHECK(n->in_edges().empty());
  // A control edge that exists is not added twice, from either side.
  const Edge* first = g.AddControlEdge(*src, consumers[0]);
  CHECK(g.AddControlEdge(*src, consumers[0]) == first);
  for (int i = 1; i < 5; ++i) g.AddControlEdge(consumers[i], consumers[0]);
  CHECK(g.AddControlEdge(*src, consumers[0]) == first);
  CHECK(consumers[0]->in_edges().size() == 5);
}

}  // namespace
}  // namespace dfx

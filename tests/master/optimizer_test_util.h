// What the step-graph optimizer's tests share: a GraphDef imported with
// every node on the device its NodeDef names (as the placer would leave
// it), then optimized.
#ifndef DFX_TESTS_MASTER_OPTIMIZER_TEST_UTIL_H_
#define DFX_TESTS_MASTER_OPTIMIZER_TEST_UTIL_H_

#include <memory>
#include <string>
#include <vector>

#include "base/logging.h"
#include "graph/graph_def_import.h"
#include "master/graph_optimizer.h"
#include "tests/master/session_test_util.h"

namespace dfx::testing {

inline std::unique_ptr<Graph> Optimize(const GraphDef& def,
                                       const std::vector<std::string>& kept,
                                       GraphOptimizerStats* stats,
                                       GraphOptimizerOptions options = {}) {
  auto graph = ImportGraphDef(def, &Registries()->ops);
  DFX_CHECK_OK(graph.status());
  for (Node* n : (*graph)->nodes()) {
    n->set_assigned_device_name(n->requested_device());
  }
  DFX_CHECK_OK(OptimizeStepGraph(options, kept, &Registries()->kernels,
                                 graph->get(), stats));
  return std::move(graph).value();
}

}  // namespace dfx::testing

#endif  // DFX_TESTS_MASTER_OPTIMIZER_TEST_UTIL_H_

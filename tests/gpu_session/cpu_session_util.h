// For the host tests of tests/gpu_session/ (a GPU kernel's arithmetic run
// on the host): one node run on the CPU in a local session.
#ifndef DFX_TESTS_GPU_SESSION_CPU_SESSION_UTIL_H_
#define DFX_TESTS_GPU_SESSION_CPU_SESSION_UTIL_H_

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "runtime/session.h"

namespace dfx::testing {

// `op` with `attrs` on the CPU over `inputs` (fed placeholders): its
// first `num_outputs` outputs, or the step's error.
inline absl::StatusOr<std::vector<Tensor>> OnCpuOutputs(
    const std::string& op, const std::vector<Tensor>& inputs,
    const std::map<std::string, AttrValue>& attrs, int num_outputs) {
  GraphDef g;
  std::vector<std::pair<std::string, Tensor>> feeds;
  NodeDef node;
  node.set_name("node");
  node.set_op(op);
  node.set_device("/job:localhost/replica:0/task:0/device:CPU:0");
  for (size_t i = 0; i < inputs.size(); ++i) {
    NodeDef* p = g.add_node();
    p->set_name(absl::StrCat("in", i));
    p->set_op("Placeholder");
    (*p->mutable_attr())["dtype"].set_type(inputs[i].dtype());
    feeds.emplace_back(p->name(), inputs[i]);
    node.add_input(p->name());
  }
  for (const auto& [k, v] : attrs) (*node.mutable_attr())[k] = v;
  *g.add_node() = node;
  auto session = Session::Create("local", SessionOptions());
  DFX_RETURN_IF_ERROR(session.status());
  DFX_RETURN_IF_ERROR((*session)->Extend(g));
  std::vector<std::string> fetches;
  for (int i = 0; i < num_outputs; ++i) {
    fetches.push_back(absl::StrCat("node:", i));
  }
  std::vector<Tensor> out;
  DFX_RETURN_IF_ERROR((*session)->Run(feeds, fetches, {}, &out));
  return out;
}

// Its first output.
inline absl::StatusOr<Tensor> OnCpu(
    const std::string& op, const std::vector<Tensor>& inputs,
    const std::map<std::string, AttrValue>& attrs) {
  DFX_ASSIGN_OR_RETURN(std::vector<Tensor> out,
                       OnCpuOutputs(op, inputs, attrs, 1));
  return out[0];
}

}  // namespace dfx::testing

#endif  // DFX_TESTS_GPU_SESSION_CPU_SESSION_UTIL_H_

#include "tests/kernels/shape_fn_test_util.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "proto/tensor.pb.h"

namespace dfx::testing {

absl::StatusOr<std::vector<PartialShape>> InferShapes(
    const NodeDef& node_in, std::vector<PartialShape> inputs,
    const std::vector<Tensor>& consts, int num_outputs) {
  const OpRegistrationData* op = OpRegistry::Global()->LookUp(node_in.op());
  if (op == nullptr) return absl::NotFoundError(node_in.op());
  NodeDef node = node_in;
  AddDefaultAttrs(op->op_def, &node);
  // The node's attrs must give its inputs and outputs types, as when a
  // graph is built; list outputs count one shape per tensor.
  DataTypeVector in_types, out_types;
  DFX_RETURN_IF_ERROR(
      InOutTypesForNode(node, op->op_def, &in_types, &out_types));
  std::vector<TensorProto> protos(consts.size());
  std::vector<const TensorProto*> ptrs(inputs.size(), nullptr);
  for (size_t i = 0; i < consts.size() && i < inputs.size(); ++i) {
    if (consts[i].IsInitialized()) {
      consts[i].AsProtoTensorContent(&protos[i]);
      ptrs[i] = &protos[i];
    }
  }
  if (num_outputs < 0) num_outputs = static_cast<int>(out_types.size());
  InferenceContext c(node, op->op_def, std::move(inputs), ptrs, num_outputs);
  DFX_RETURN_IF_ERROR(op->shape_fn(&c));
  std::vector<PartialShape> out;
  for (int i = 0; i < c.num_outputs(); ++i) out.push_back(c.output(i));
  return out;
}

absl::StatusOr<PartialShape> InferShape(const NodeDef& node,
                                        std::vector<PartialShape> inputs,
                                        int output) {
  absl::StatusOr<std::vector<PartialShape>> shapes =
      InferShapes(node, std::move(inputs));
  if (!shapes.ok()) return shapes.status();
  if (output < 0 || output >= static_cast<int>(shapes->size())) {
    return absl::OutOfRangeError(
        absl::StrCat(node.op(), " has no output ", output));
  }
  return (*shapes)[output];
}

std::string ShapesString(
    const absl::StatusOr<std::vector<PartialShape>>& shapes) {
  if (!shapes.ok()) return shapes.status().ToString();
  std::string s;
  for (const PartialShape& p : *shapes) s += p.DebugString();
  return s;
}

}  // namespace dfx::testing

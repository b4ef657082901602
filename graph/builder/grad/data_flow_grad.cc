// Gradients of TensorArray element ops (TensorArrayReadV3, WriteV3,
// GatherV3, ScatterV3, ConcatV3, SplitV3), after TensorFlow's
// python/ops/tensor_array_grad.py. A TensorArray's gradient lives in a
// gradient TensorArray (TensorArrayGradV3 of the forward handle, one per
// AddSymbolicGradients call: its `source` attr is the call's "gradients"
// scope); the float flow edges carry the ordering between its reads and
// writes, as gradients. A read's gradient is a write into the gradient
// array (and the reverse), a gather's a scatter, a concat's a split. Used
// inside while loops, the gradient array is written and read by the
// backprop loop (gradients.cc). TensorArrayV3, GradV3, SizeV3 and CloseV3
// have no gradient (array_grad.cc).
//
// TensorList element ops (GetItem, SetItem, Stack, FromTensor), after
// TensorFlow's list_ops.py: a list's gradient is a list (DT_VARIANT, which
// AddSymbolicGradients lets through where a TensorList op made it), summed
// element by element by AddN.
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/status_macros.h"
#include "graph/builder/grad/grad.h"
#include "graph/builder/grad/grad_util.h"
#include "graph/builder/ops.h"
#include "proto/attr_value.pb.h"

namespace dfx {
namespace grad {
namespace {

using Attrs = std::vector<std::pair<std::string, AttrValue>>;

AttrValue TypeValue(DataType t) {
  AttrValue v;
  v.set_type(t);
  return v;
}

// Adds a node of `op` with `inputs` and `attrs` in `scope` (its control
// dependencies and device included); returns its name, empty on failure
// (recorded in the scope).
std::string AddTaNode(const Scope& scope, absl::string_view op,
                      const std::vector<Output>& inputs, Attrs attrs) {
  NodeDef node;
  node.set_name(scope.GetUniqueNameForOp(op));
  node.set_op(std::string(op));
  for (const Output& input : inputs) {
    if (!input.valid()) {
      scope.UpdateStatus(absl::InvalidArgumentError(
          absl::StrCat(op, ": an invalid input")));
      return "";
    }
    node.add_input(input.ToString());
  }
  for (auto& [name, value] : attrs) {
    (*node.mutable_attr())[name] = std::move(value);
  }
  const std::string name = node.name();
  if (!scope.AddNode(std::move(node)).ok()) return "";
  return name;
}

// The AddSymbolicGradients call `scope` is part of: its prefix up to the
// last component that starts with "gradients" (TensorFlow's
// _GetGradSource), so that two calls over one forward array use two
// gradient arrays.
std::string GradSource(const Scope& scope) {
  std::vector<std::string> parts =
      absl::StrSplit(scope.name_prefix(), '/', absl::SkipEmpty());
  size_t last = parts.size();
  for (size_t i = 0; i < parts.size(); ++i) {
    if (absl::StartsWith(parts[i], "gradients")) last = i;
  }
  if (last == parts.size()) return "gradients";
  parts.resize(last + 1);
  return absl::StrJoin(parts, "/");
}

// The gradient array of the forward array `handle`, created (or found)
// after `flow`: {grad_handle, flow_out}.
std::pair<Output, Output> GradArray(const Scope& scope, const Output& handle,
                                    const Output& flow) {
  AttrValue source;
  source.set_s(GradSource(scope));
  const std::string g = AddTaNode(scope, "TensorArrayGradV3", {handle, flow},
                                  {{"source", std::move(source)}});
  if (g.empty()) return {Output(), Output()};
  return {Output(g, 0, DT_RESOURCE), Output(g, 1, DT_FLOAT)};
}

// TensorFlow's write barrier: the incoming flow gradient, after the forward
// op's own flow output, so the gradient array is read after the forward
// write happened.
Output WriteBarrier(const Scope& scope, const GradOp& op, const Output& flow) {
  const Output flow_out =
      ops::Identity(scope.WithOpName("flow_out"), op.output(0));
  return ops::Identity(scope.WithControlDependencies({Operation(flow_out)})
                           .WithOpName("write_barrier"),
                       flow);
}

DataType AttrType(const GradOp& op, absl::string_view name) {
  DataType t = DT_INVALID;
  if (!Attr(op, name, &t).ok()) return DT_INVALID;
  return t;
}

// Read(handle, index, flow) and Gather(handle, indices, flow): dy goes into
// the gradient array at the same place with `write_op` (WriteV3 or
// ScatterV3); the flow input gets the write's flow.
absl::Status ReadLikeGrad(const Scope& scope, const GradOp& op,
                          absl::Span<const Output> dy,
                          std::vector<Output>* dx, const char* write_op) {
  const DataType t = AttrType(op, "dtype");
  if (t == DT_INVALID) {
    return absl::InvalidArgumentError(
        absl::StrCat(op.op(), " node '", op.name(), "' has no dtype attr"));
  }
  auto [g, g_flow] = GradArray(scope, op.input(0), op.input(2));
  const std::string w = AddTaNode(scope, write_op,
                                  {g, op.input(1), dy[0], g_flow},
                                  {{"T", TypeValue(t)}});
  dx->push_back(NoGradient());
  dx->push_back(NoGradient());
  dx->push_back(w.empty() ? Output() : Output(w, 0, DT_FLOAT));
  return scope.status();
}

// Write(handle, index, value, flow) and Scatter(handle, indices, value,
// flow): value's gradient is read from the gradient array at the same
// place with `read_op` (ReadV3 or GatherV3); the flow gradient passes
// through.
absl::Status WriteLikeGrad(const Scope& scope, const GradOp& op,
                           absl::Span<const Output> dy,
                           std::vector<Output>* dx, const char* read_op) {
  const DataType t = AttrType(op, "T");
  if (t == DT_INVALID) {
    return absl::InvalidArgumentError(
        absl::StrCat(op.op(), " node '", op.name(), "' has no T attr"));
  }
  const Output flow = WriteBarrier(scope, op, dy[0]);
  auto [g, g_flow] = GradArray(scope, op.input(0), flow);
  const std::string r = AddTaNode(scope, read_op, {g, op.input(1), g_flow},
                                  {{"dtype", TypeValue(t)}});
  dx->push_back(NoGradient());
  dx->push_back(NoGradient());
  dx->push_back(r.empty() ? Output() : Output(r, 0, t));
  dx->push_back(flow);
  return scope.status();
}

DFX_GRAD_FN(TensorArrayReadGrad) {
  return ReadLikeGrad(scope, op, dy, dx, "TensorArrayWriteV3");
}
DFX_GRAD_FN(TensorArrayWriteGrad) {
  return WriteLikeGrad(scope, op, dy, dx, "TensorArrayReadV3");
}
DFX_GRAD_FN(TensorArrayGatherGrad) {
  return ReadLikeGrad(scope, op, dy, dx, "TensorArrayScatterV3");
}
DFX_GRAD_FN(TensorArrayScatterGrad) {
  return WriteLikeGrad(scope, op, dy, dx, "TensorArrayGatherV3");
}

// Concat(handle, flow) -> (value, lengths): dy split into the gradient
// array by the forward lengths.
DFX_GRAD_FN(TensorArrayConcatGrad) {
  const DataType t = AttrType(op, "dtype");
  if (t == DT_INVALID) return absl::InvalidArgumentError("no dtype attr");
  auto [g, g_flow] = GradArray(scope, op.input(0), op.input(1));
  const std::string s = AddTaNode(scope, "TensorArraySplitV3",
                                  {g, dy[0], op.output(1), g_flow},
                                  {{"T", TypeValue(t)}});
  dx->push_back(NoGradient());
  dx->push_back(s.empty() ? Output() : Output(s, 0, DT_FLOAT));
  return scope.status();
}

// Split(handle, value, lengths, flow): value's gradient is the gradient
// array concatenated.
DFX_GRAD_FN(TensorArraySplitGrad) {
  const DataType t = AttrType(op, "T");
  if (t == DT_INVALID) return absl::InvalidArgumentError("no T attr");
  const Output flow = WriteBarrier(scope, op, dy[0]);
  auto [g, g_flow] = GradArray(scope, op.input(0), flow);
  const std::string c = AddTaNode(scope, "TensorArrayConcatV3", {g, g_flow},
                                  {{"dtype", TypeValue(t)}});
  dx->push_back(NoGradient());
  dx->push_back(c.empty() ? Output() : Output(c, 0, t));
  dx->push_back(NoGradient());
  dx->push_back(flow);
  return scope.status();
}

// ---------------------------------------------------------------------------
// TensorLists (after TensorFlow's python/ops/list_ops.py): a list's gradient
// is a list (DT_VARIANT) of its elements' gradients.

// shape[1:] of `x` as an int32 vector: the element shape of a list made
// from x, or stacked into x.
Output ElementShapeOf(const Scope& scope, const Output& x) {
  return ops::Slice(scope, ops::Shape(scope, x), ops::Const(scope, {1}),
                    ops::Const(scope, {-1}));
}

AttrValue ShapeTypeInt32() { return TypeValue(DT_INT32); }

// GetItem(list, index, shape): a list as long as the input, with dy at
// index (the other elements unset, which count as zeros).
DFX_GRAD_FN(TensorListGetItemGrad) {
  const DataType t = AttrType(op, "element_dtype");
  if (t == DT_INVALID) return absl::InvalidArgumentError("no element_dtype");
  const std::string shape =
      AddTaNode(scope, "TensorListElementShape", {op.input(0)},
                {{"shape_type", ShapeTypeInt32()}});
  const std::string length =
      AddTaNode(scope, "TensorListLength", {op.input(0)}, {});
  if (shape.empty() || length.empty()) return scope.status();
  const std::string reserve = AddTaNode(
      scope, "TensorListReserve",
      {Output(shape, 0, DT_INT32), Output(length, 0, DT_INT32)},
      {{"element_dtype", TypeValue(t)}, {"shape_type", ShapeTypeInt32()}});
  if (reserve.empty()) return scope.status();
  const std::string set = AddTaNode(
      scope, "TensorListSetItem",
      {Output(reserve, 0, DT_VARIANT), op.input(1), dy[0]},
      {{"element_dtype", TypeValue(t)}});
  dx->push_back(set.empty() ? Output() : Output(set, 0, DT_VARIANT));
  dx->push_back(NoGradient());
  dx->push_back(NoGradient());
  return scope.status();
}

// SetItem(list, index, item): the list's gradient with zeros at index, and
// the item's the element at index.
DFX_GRAD_FN(TensorListSetItemGrad) {
  const DataType t = AttrType(op, "element_dtype");
  if (t == DT_INVALID) return absl::InvalidArgumentError("no element_dtype");
  bool resize = false;
  DFX_RETURN_IF_ERROR(Attr(op, "resize_if_index_out_of_bounds", &resize));
  if (resize) {
    return absl::UnimplementedError(
        "the gradient of TensorListSetItem with "
        "resize_if_index_out_of_bounds is not built");
  }
  const Output item = op.input(2);
  const std::string list = AddTaNode(
      scope, "TensorListSetItem",
      {dy[0], op.input(1), ops::ZerosLike(scope, item)},
      {{"element_dtype", TypeValue(t)}});
  const std::string get = AddTaNode(
      scope, "TensorListGetItem",
      {dy[0], op.input(1), ops::Shape(scope, item)},
      {{"element_dtype", TypeValue(t)}});
  dx->push_back(list.empty() ? Output() : Output(list, 0, DT_VARIANT));
  dx->push_back(NoGradient());
  dx->push_back(get.empty() ? Output() : Output(get, 0, t));
  return scope.status();
}

// Stack(list, shape) -> tensor: dy as a list.
DFX_GRAD_FN(TensorListStackGrad) {
  const DataType t = AttrType(op, "element_dtype");
  if (t == DT_INVALID) return absl::InvalidArgumentError("no element_dtype");
  const std::string list = AddTaNode(
      scope, "TensorListFromTensor", {dy[0], ElementShapeOf(scope, dy[0])},
      {{"element_dtype", TypeValue(t)}, {"shape_type", ShapeTypeInt32()}});
  dx->push_back(list.empty() ? Output() : Output(list, 0, DT_VARIANT));
  dx->push_back(NoGradient());
  return scope.status();
}

// FromTensor(tensor, shape) -> list: the list's gradient stacked.
DFX_GRAD_FN(TensorListFromTensorGrad) {
  const DataType t = AttrType(op, "element_dtype");
  if (t == DT_INVALID) return absl::InvalidArgumentError("no element_dtype");
  const std::string stack = AddTaNode(
      scope, "TensorListStack", {dy[0], ElementShapeOf(scope, op.input(0))},
      {{"element_dtype", TypeValue(t)}});
  dx->push_back(stack.empty() ? Output() : Output(stack, 0, t));
  dx->push_back(NoGradient());
  return scope.status();
}

}  // namespace
}  // namespace grad

absl::Status RegisterDataFlowGradients(GradientRegistry* registry) {
  DFX_RETURN_IF_ERROR(
      registry->Register("TensorArrayReadV3", grad::TensorArrayReadGrad));
  DFX_RETURN_IF_ERROR(
      registry->Register("TensorArrayWriteV3", grad::TensorArrayWriteGrad));
  DFX_RETURN_IF_ERROR(
      registry->Register("TensorArrayGatherV3", grad::TensorArrayGatherGrad));
  DFX_RETURN_IF_ERROR(
      registry->Register("TensorArrayScatterV3", grad::TensorArrayScatterGrad));
  DFX_RETURN_IF_ERROR(
      registry->Register("TensorArrayConcatV3", grad::TensorArrayConcatGrad));
  DFX_RETURN_IF_ERROR(
      registry->Register("TensorArraySplitV3", grad::TensorArraySplitGrad));
  DFX_RETURN_IF_ERROR(
      registry->Register("TensorListGetItem", grad::TensorListGetItemGrad));
  DFX_RETURN_IF_ERROR(
      registry->Register("TensorListSetItem", grad::TensorListSetItemGrad));
  DFX_RETURN_IF_ERROR(
      registry->Register("TensorListStack", grad::TensorListStackGrad));
  DFX_RETURN_IF_ERROR(registry->Register("TensorListFromTensor",
                                         grad::TensorListFromTensorGrad));
  return absl::OkStatus();
}

}  // namespace dfx

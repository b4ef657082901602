// Gradients through TF1 conditionals (Switch and Merge outside loops, as
// ops::Cond and tf.compat.v1.cond build them), after TensorFlow's
// python/ops/control_flow_grad.py. The backward pass mirrors the forward
// one: the gradient reaches only the branch that ran; in the other branch
// it is dead, as that branch's forward values are.
//
// Loops (Enter, Exit, NextIteration, LoopCond, and Merge/Switch of a loop
// frame) have no gradient functions here: AddSymbolicGradients
// (gradients.cc) builds a loop's backprop loop as a whole.
#include "base/status_macros.h"
#include "graph/builder/grad/grad.h"
#include "graph/builder/grad/grad_util.h"
#include "graph/builder/ops.h"

namespace dfx {
namespace grad {
namespace {

// Merge: input i gets dy when it was the input taken (value_index == i),
// and a dead tensor otherwise. TensorFlow switches on the cond's predicate;
// value_index says the same without finding the predicate.
DFX_GRAD_FN(MergeGrad) {
  const Output& value_index = op.output(1);
  for (int i = 0; i < op.num_inputs(); ++i) {
    const Output taken =
        ops::Equal(scope, value_index, ops::Const(scope, static_cast<int32_t>(i)));
    dx->push_back(ops::Switch(scope, dy[0], taken).output_true);
  }
  return absl::OkStatus();
}

// Switch: the gradients of its two outputs, one of them dead (the branch
// that did not run), merged into the data's. A branch no gradient reached
// contributes zeros (dead too when that branch did not run).
DFX_GRAD_FN(SwitchGrad) {
  const Output g_false = GradOrZeros(scope, op, dy, 0);
  const Output g_true = GradOrZeros(scope, op, dy, 1);
  dx->push_back(ops::Merge(scope, {g_false, g_true}).output);
  dx->push_back(NoGradient());
  return absl::OkStatus();
}

}  // namespace
}  // namespace grad

absl::Status RegisterControlFlowGradients(GradientRegistry* registry) {
  DFX_RETURN_IF_ERROR(registry->Register("Merge", grad::MergeGrad));
  DFX_RETURN_IF_ERROR(registry->Register("Switch", grad::SwitchGrad));
  return absl::OkStatus();
}

}  // namespace dfx

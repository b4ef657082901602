// SymbolicGradientBody: the gradient function of a library function, built
// with the C++ builder's per-op gradients (graph/builder/gradients.h), for
// the SymbolicGradient op that TF1's function.Defun calls leave in graphs.
#ifndef DFX_GRAPH_BUILDER_SYMBOLIC_GRADIENT_H_
#define DFX_GRAPH_BUILDER_SYMBOLIC_GRADIENT_H_

#include "absl/status/statusor.h"
#include "graph/function_library.h"

namespace dfx {

// The gradient of `forward` (an instantiated function of `library`), as
// TensorFlow's SymbolicGradient computes it: arguments are the function's
// arguments followed by one gradient per result (dy, of the result's type);
// results are one gradient per argument (dx, of the argument's type), the
// sum over every path from the argument to the results of dy times the
// derivative. Arguments no gradient reaches (not connected, integer, or cut
// by StopGradient) get zeros of their shape.
//
// Calls the body makes (by name, PartitionedCall, If, While, nested
// SymbolicGradient) are inlined first with `library`. The body's nodes keep
// their names under "f/"; the gradient nodes are under "gradients/".
//
// Errors: NotFound "No gradient defined for op: X (node 'n')" for an op on
// the path without a gradient; InvalidArgument or Unimplemented as
// AddSymbolicGradients answers otherwise (a PreventGradient, a complex
// tensor, nested loops), or for a body that does not import or lower.
absl::StatusOr<FunctionBody> SymbolicGradientBody(
    const FunctionLibrary& library, const FunctionBody& forward);

}  // namespace dfx

#endif  // DFX_GRAPH_BUILDER_SYMBOLIC_GRADIENT_H_

// Helpers shared by the gradient functions of graph/builder/grad/: typed
// constants, the broadcast reduction of binary ops, reduced shapes, attrs.
// Private to this folder.
#ifndef DFX_GRAPH_BUILDER_GRAD_GRAD_UTIL_H_
#define DFX_GRAPH_BUILDER_GRAD_GRAD_UTIL_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "graph/builder/gradients.h"
#include "graph/builder/scope.h"
#include "proto/node_def.pb.h"

namespace dfx::grad {

// The signature every gradient function of this folder has.
#define DFX_GRAD_FN(name)                                 \
  absl::Status name(const Scope& scope, const GradOp& op, \
                    absl::Span<const Output> dy, std::vector<Output>* dx)

// A scalar Const of `dtype` (a floating-point type) holding `value`: a Const
// for float and double, a Cast of a float Const for half and bfloat16.
Output ScalarOfType(const Scope& scope, DataType dtype, double value);

// `dy[i]`, or ZerosLike(op.output(i)) where no gradient reached output i.
Output GradOrZeros(const Scope& scope, const GradOp& op,
                   absl::Span<const Output> dy, int i);

// For a binary op with NumPy broadcasting: sums `gx` and `gy` (gradients of
// the broadcast shape) over the broadcast axes (BroadcastGradientArgs of
// Shape(x) and Shape(y)) and reshapes them to x's and y's shapes. An invalid
// gx or gy gives NoGradient. Appends two Outputs to `dx`.
void ReduceBroadcastGradients(const Scope& scope, const Output& x,
                              const Output& y, const Output& gx,
                              const Output& gy, std::vector<Output>* dx);

// The shape `input_shape` (an int32 vector) takes when the axes in `axes`
// (int32 or int64, scalar or vector, negative counting from the end) are
// reduced with keep_dims: those dims become 1.
Output ReducedShape(const Scope& scope, const Output& input_shape,
                    const Output& axes);

// `x` as int32 (a Cast when it is int64).
Output ToInt32(const Scope& scope, const Output& x);

// The integer values of a Const node (scalar or vector of int32 or int64);
// false when `node` is not such a Const.
bool ConstInts(const NodeDef& node, std::vector<int64_t>* values);

// Attr getters that return the error naming the attr (attrs of imported
// nodes have their defaults filled in).
absl::Status Attr(const GradOp& op, absl::string_view name, bool* value);
absl::Status Attr(const GradOp& op, absl::string_view name, float* value);
absl::Status Attr(const GradOp& op, absl::string_view name, int64_t* value);
absl::Status Attr(const GradOp& op, absl::string_view name, std::string* value);
absl::Status Attr(const GradOp& op, absl::string_view name,
                  std::vector<int64_t>* value);
absl::Status Attr(const GradOp& op, absl::string_view name, DataType* value);

}  // namespace dfx::grad

#endif  // DFX_GRAPH_BUILDER_GRAD_GRAD_UTIL_H_

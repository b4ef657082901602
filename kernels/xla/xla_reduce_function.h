// ScalarFunction: a function attr of an XLA op (a reducer, comparator,
// select or scatter computation) applied to scalars, with a fast path for
// the bodies jax2tf and tf2xla emit most: one binary op of arguments 0 and 1.
#ifndef DFX_KERNELS_XLA_XLA_REDUCE_FUNCTION_H_
#define DFX_KERNELS_XLA_XLA_REDUCE_FUNCTION_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "kernels/kernels.h"

namespace dfx::xla2 {

// The recognised body: the function's one result is (through Identity
// nodes) this op of argument 0 and argument 1, in that order, or one of
// the arguments itself (kFirst, kSecond: a scatter's "set").
enum class BodyOp {
  kNone,
  kFirst,
  kSecond,
  kAdd,
  kMul,
  kMax,
  kMin,
  kAnd,
  kOr,
  kLess,
  kGreater,
  kLessEqual,
  kGreaterEqual,
};

// acc = f(acc, x) on one element each; null when `op` has no fast form for
// `dtype`.
using CombineFn = void (*)(void* acc, const void* x);
CombineFn FastCombine(BodyOp op, DataType dtype);
// f(a, b) for a comparison; null when `op` is not one for `dtype`.
using PredicateFn = bool (*)(const void* a, const void* b);
PredicateFn FastPredicate(BodyOp op, DataType dtype);

// The recognised body of the function func attr `attr` names; kNone when
// the attr or the function is missing or the body is anything else.
BodyOp RecogniseBody(OpKernelConstruction* ctx, absl::string_view attr);

class ScalarFunction {
 public:
  // Instantiates the function func attr `attr` names (InvalidArgument when
  // the graph's library lacks it) and recognises its body.
  static absl::StatusOr<std::unique_ptr<ScalarFunction>> Create(
      OpKernelConstruction* ctx, absl::string_view attr);
  ~ScalarFunction();

  BodyOp body_op() const { return body_op_; }
  const std::string& name() const;
  size_t num_args() const;
  size_t num_rets() const;

  // Runs the function on scalars; its results must be `num_rets` scalars
  // of the types `ret_types` gives (InvalidArgument naming the function
  // otherwise). Blocks the calling thread while the function runs.
  absl::StatusOr<std::vector<Tensor>> Call(
      OpKernelContext* ctx, std::vector<Tensor> args,
      const DataTypeVector& ret_types) const;

 private:
  struct Impl;
  explicit ScalarFunction(std::unique_ptr<Impl> impl, BodyOp op);
  std::unique_ptr<Impl> impl_;
  BodyOp body_op_;
};

// A scalar tensor holding element `i` of `t` (a POD dtype).
Tensor ElementAsScalar(const Tensor& t, int64_t i);
// True for the dtypes these kernels move as bytes: fixed-size, host types.
bool IsPlainType(DataType dtype);

}  // namespace dfx::xla2

#endif  // DFX_KERNELS_XLA_XLA_REDUCE_FUNCTION_H_

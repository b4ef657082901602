// The op registry: each op's signature (OpDef) and shape function, and
// OpDefBuilder, which writes an OpDef from TensorFlow-style spec strings.
#ifndef DFX_GRAPH_OP_REGISTRY_H_
#define DFX_GRAPH_OP_REGISTRY_H_

#include <memory>
#include <string>
#include "absl/strings/string_view.h"
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "graph/shape_inference.h"
#include "proto/op_def.pb.h"

namespace dfx {

struct OpRegistrationData {
  OpDef op_def;
  ShapeFn shape_fn;  // never empty: defaults to shape_fn::Unknown
};

// Builds an OpDef from spec strings in TensorFlow's syntax:
//   Input("x: T"), Input("values: N * T"), Input("ref: Ref(T)"),
//   Input("x: float"), Input("args: Tlist"), Output(...) likewise;
//   Attr("T: {float, double, int32, int64}"), Attr("T: type"),
//   Attr("N: int >= 1"), Attr("transpose_a: bool = false"),
//   Attr("Tidx: {int32, int64} = DT_INT32"), Attr("axis: list(int) = []"),
//   Attr("shape: shape"), Attr("value: tensor"), Attr("s: string = 'x'").
// Named type sets: numbertype, realnumbertype, alltypes.
// A malformed spec is reported by Finalize(), not at the call.
class OpDefBuilder {
 public:
  explicit OpDefBuilder(std::string op_name);

  OpDefBuilder& Input(absl::string_view spec);
  OpDefBuilder& Output(absl::string_view spec);
  OpDefBuilder& Attr(absl::string_view spec);
  OpDefBuilder& SetIsStateful();
  OpDefBuilder& SetIsCommutative();
  OpDefBuilder& SetIsAggregate();
  OpDefBuilder& SetAllowsUninitializedInput();
  OpDefBuilder& SetShapeFn(ShapeFn fn);

  // Parses every spec and checks that each input and output names attrs that
  // exist with the right kinds. InvalidArgument naming the op otherwise.
  absl::StatusOr<OpRegistrationData> Finalize() const;

 private:
  std::string name_;
  std::vector<std::string> inputs_;
  std::vector<std::string> outputs_;
  std::vector<std::string> attrs_;
  bool stateful_ = false;
  bool commutative_ = false;
  bool aggregate_ = false;
  bool allows_uninitialized_input_ = false;
  ShapeFn shape_fn_;
};

// Thread-safe. Registration is expected at start-up; lookups run while graphs
// are imported.
class OpRegistry {
 public:
  OpRegistry() = default;
  // A registry that answers lookups it cannot answer itself from `fallback`
  // (which must outlive it): a function library's ops over the standard ops.
  explicit OpRegistry(const OpRegistry* fallback) : fallback_(fallback) {}
  OpRegistry(const OpRegistry&) = delete;
  OpRegistry& operator=(const OpRegistry&) = delete;

  // The process-wide registry, holding every standard op of graph/ops/.
  static OpRegistry* Global();

  // AlreadyExists when an op of that name is registered; InvalidArgument for
  // a malformed builder.
  absl::Status Register(const OpDefBuilder& builder);
  // Registers a finished signature (a function's); AlreadyExists as above,
  // also when the fallback has an op of that name.
  absl::Status Register(OpRegistrationData data);

  // Null when no such op (here or in the fallback).
  const OpRegistrationData* LookUp(absl::string_view op) const;
  // NotFound "Op type not registered 'Foo'" when no such op.
  absl::StatusOr<const OpRegistrationData*> LookUpOrError(
      absl::string_view op) const;

  // Sorted names of every registered op, the fallback's included.
  std::vector<std::string> ListOps() const;

 private:
  const OpRegistry* const fallback_ = nullptr;
  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, std::unique_ptr<OpRegistrationData>> ops_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace dfx

#endif  // DFX_GRAPH_OP_REGISTRY_H_

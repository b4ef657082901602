// TensorFlow's functional ops: calls (PartitionedCall,
// StatefulPartitionedCall) and functional control flow (If, Case, While and
// their stateless forms). dfx has no kernels for them: the master lowers
// every one of them into inlined function bodies and TF1 control-flow
// primitives before placement (graph/lower_functional_ops.h).
#include "base/status_macros.h"
#include "graph/ops/ops.h"

namespace dfx {

absl::Status RegisterFunctionalOps(OpRegistry* r) {
  for (const char* name : {"PartitionedCall", "StatefulPartitionedCall"}) {
    OpDefBuilder b(name);
    b.Input("args: Tin")
        .Output("output: Tout")
        .Attr("Tin: list(type) >= 0")
        .Attr("Tout: list(type) >= 0")
        .Attr("f: func")
        .Attr("config: string = ''")
        .Attr("config_proto: string = ''")
        .Attr("executor_type: string = ''")
        .SetShapeFn(shape_fn::Unknown);
    if (name[0] == 'S') b.SetIsStateful();
    DFX_RETURN_IF_ERROR(r->Register(b));
  }
  for (const char* name : {"If", "StatelessIf"}) {
    OpDefBuilder b(name);
    b.Input("cond: Tcond")
        .Input("input: Tin")
        .Output("output: Tout")
        .Attr("Tcond: type")
        .Attr("Tin: list(type) >= 0")
        .Attr("Tout: list(type) >= 0")
        .Attr("then_branch: func")
        .Attr("else_branch: func")
        .Attr("output_shapes: list(shape) = []")
        .SetShapeFn(shape_fn::Unknown);
    if (name[0] == 'I') b.SetIsStateful();
    DFX_RETURN_IF_ERROR(r->Register(b));
  }
  for (const char* name : {"Case", "StatelessCase"}) {
    OpDefBuilder b(name);
    b.Input("branch_index: int32")
        .Input("input: Tin")
        .Output("output: Tout")
        .Attr("Tin: list(type) >= 0")
        .Attr("Tout: list(type) >= 0")
        .Attr("branches: list(func) >= 1")
        .Attr("output_shapes: list(shape) = []")
        .SetShapeFn(shape_fn::Unknown);
    if (name[0] == 'C') b.SetIsStateful();
    DFX_RETURN_IF_ERROR(r->Register(b));
  }
  for (const char* name : {"While", "StatelessWhile"}) {
    OpDefBuilder b(name);
    b.Input("input: T")
        .Output("output: T")
        .Attr("T: list(type) >= 0")
        .Attr("cond: func")
        .Attr("body: func")
        .Attr("output_shapes: list(shape) = []")
        .Attr("parallel_iterations: int = 10")
        .SetShapeFn(shape_fn::Unknown);
    if (name[0] == 'W') b.SetIsStateful();
    DFX_RETURN_IF_ERROR(r->Register(b));
  }
  return absl::OkStatus();
}

}  // namespace dfx

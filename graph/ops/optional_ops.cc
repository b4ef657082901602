// Optional values (DT_VARIANT scalars holding zero or more tensors):
// OptionalFromValue, OptionalNone, OptionalHasValue, OptionalGetValue. TF2
// cond gradients pass a branch's intermediate values out of an If this way.
#include "base/status_macros.h"
#include "graph/ops/ops.h"

namespace dfx {

absl::Status RegisterOptionalOps(OpRegistry* r) {
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("OptionalFromValue")
                                      .Input("components: Toutput_types")
                                      .Output("optional: variant")
                                      .Attr("Toutput_types: list(type) >= 1")
                                      .SetShapeFn(shape_fn::Scalar)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("OptionalNone")
                                      .Output("optional: variant")
                                      .SetShapeFn(shape_fn::Scalar)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("OptionalHasValue")
                                      .Input("optional: variant")
                                      .Output("has_value: bool")
                                      .SetShapeFn(shape_fn::Scalar)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("OptionalGetValue")
                                      .Input("optional: variant")
                                      .Output("components: output_types")
                                      .Attr("output_types: list(type) >= 1")
                                      .Attr("output_shapes: list(shape) >= 1")
                                      .SetShapeFn(shape_fn::Unknown)));
  return absl::OkStatus();
}

}  // namespace dfx

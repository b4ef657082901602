#include "base/status_macros.h"
#include "graph/ops/ops.h"

namespace dfx {

absl::Status RegisterFunctionOps(OpRegistry* registry) {
  // A step's feed `index`, read from the call frame.
  DFX_RETURN_IF_ERROR(registry->Register(OpDefBuilder("_Arg")
                                             .Output("output: T")
                                             .Attr("T: type")
                                             .Attr("index: int >= 0")
                                             .SetIsStateful()
                                             .SetShapeFn(shape_fn::Unknown)));
  // A step's fetch `index`, written to the call frame.
  DFX_RETURN_IF_ERROR(registry->Register(OpDefBuilder("_Retval")
                                             .Input("input: T")
                                             .Attr("T: type")
                                             .Attr("index: int >= 0")
                                             .SetIsStateful()
                                             .SetShapeFn(shape_fn::Unknown)));
  return absl::OkStatus();
}

}  // namespace dfx

// PyFunc, PyFuncStateless and EagerPyFunc (tf.compat.v1.py_func,
// tf.numpy_function, tf.py_function): a call of a Python function that
// lives in the registry of the Python process that built the graph. As
// TensorFlow 2.21's script_ops.cc declares them; a graph that holds them
// imports, and running one fails as on a TensorFlow server in another
// process (kernels/function/pyfunc_kernels.cc).
#include <string>

#include "base/status_macros.h"
#include "graph/ops/ops.h"

namespace dfx {

absl::Status RegisterPyfuncOps(OpRegistry* r) {
  for (const char* name : {"PyFunc", "PyFuncStateless", "EagerPyFunc"}) {
    OpDefBuilder b(name);
    b.Input("input: Tin").Output("output: Tout").Attr("token: string");
    if (std::string(name) == "EagerPyFunc") b.Attr("is_async: bool = false");
    b.Attr("Tin: list(type) >= 0")
        .Attr("Tout: list(type) >= 0")
        .SetShapeFn(shape_fn::Unknown);
    if (std::string(name) != "PyFuncStateless") b.SetIsStateful();
    DFX_RETURN_IF_ERROR(r->Register(b));
  }
  return absl::OkStatus();
}

}  // namespace dfx

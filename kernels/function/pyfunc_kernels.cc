// PyFunc, PyFuncStateless and EagerPyFunc: their Python function is in the
// registry of the client's Python process, which no dfx server has (dfx
// servers run no Python). TensorFlow's own server in another process
// cannot find it either and fails the step with InvalidArgument
// "ValueError: Could not find callback with key=<token> in the registry.";
// dfx fails with the same code and words, and says why. The rest of the
// graph runs: only a step that needs the call fails.
#include <string>

#include "absl/strings/str_cat.h"
#include "kernels/kernels.h"

namespace dfx {
namespace {

class PyFuncOp final : public OpKernel {
 public:
  explicit PyFuncOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("token", &token_));
  }

  void Compute(OpKernelContext* ctx) override {
    ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
        "ValueError: Could not find callback with key=", token_,
        " in the registry. ", type_string(), " node '", name(),
        "' calls a Python function of the client's process; dfx servers run "
        "no Python (as a TensorFlow server in another process, they cannot "
        "reach it): compute it with graph ops, or in the client")));
  }

 private:
  std::string token_;
};

}  // namespace

void RegisterPyfuncKernels(KernelRegistry* registry) {
  for (const char* op : {"PyFunc", "PyFuncStateless", "EagerPyFunc"}) {
    RegisterKernel<PyFuncOp>(registry, KernelDefBuilder(op));
  }
}

}  // namespace dfx

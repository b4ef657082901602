// UnicodeScript (TensorFlow 2.21's unicode_script_op.cc): ICU's script code
// (UScriptCode) of each code point, -1 where ICU reports an error (a value
// outside [0, 0x10FFFF]). ICU's uc library (Debian's libicu-dev) holds
// the script data, as TensorFlow's bundled ICU does; the numbers are ICU's
// enum values, which ICU never renumbers.
#include <cstdint>

#include "kernels/text/text_util.h"
#include "unicode/uscript.h"
#include "unicode/utypes.h"

namespace dfx::text {
namespace {

class UnicodeScriptOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
    const int32_t* in = input.data<int32_t>();
    int32_t* o = out->data<int32_t>();
    for (int64_t i = 0; i < input.NumElements(); ++i) {
      UErrorCode status = U_ZERO_ERROR;
      const UScriptCode script = uscript_getScript(in[i], &status);
      o[i] = U_SUCCESS(status) ? static_cast<int32_t>(script) : -1;
    }
  }
};

}  // namespace

void RegisterTextUnicodeScriptKernel(KernelRegistry* registry) {
  RegisterKernel<UnicodeScriptOp>(registry, KernelDefBuilder("UnicodeScript"));
}

}  // namespace dfx::text

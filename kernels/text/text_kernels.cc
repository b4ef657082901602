// RegisterTextKernels: the text family's kernel files (kernels/text/), and
// the helpers text_util.h declares.
#include "kernels/kernels.h"
#include "kernels/text/text_util.h"

namespace dfx {
namespace text {

const DataTypeVector& PodAndStringTypes() {
  static const DataTypeVector* types = new DataTypeVector{
      DT_FLOAT,      DT_DOUBLE,    DT_INT32,  DT_UINT8, DT_INT16,    DT_INT8,
      DT_STRING,     DT_COMPLEX64, DT_INT64,  DT_BOOL,  DT_BFLOAT16, DT_UINT16,
      DT_COMPLEX128, DT_HALF,      DT_UINT32, DT_UINT64};
  return *types;
}

}  // namespace text

void RegisterTextKernels(KernelRegistry* registry) {
  text::RegisterTextStringKernels(registry);
  text::RegisterTextParseKernels(registry);
  text::RegisterTextSetKernels(registry);
  text::RegisterTextUnicodeKernels(registry);
  text::RegisterTextUnicodeScriptKernel(registry);
}

}  // namespace dfx

// RegisterTextKernels: the text family's kernel files (kernels/text/).
#include "kernels/kernels.h"
#include "kernels/text/text_util.h"

namespace dfx {

void RegisterTextKernels(KernelRegistry* registry) {
  text::RegisterTextStringKernels(registry);
  text::RegisterTextParseKernels(registry);
  text::RegisterTextSetKernels(registry);
  text::RegisterTextUnicodeKernels(registry);
  text::RegisterTextUnicodeScriptKernel(registry);
}

}  // namespace dfx

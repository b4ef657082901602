#include "kernels/kernels.h"
#include "kernels/strings/string_util.h"

namespace dfx {

void RegisterStringKernels(KernelRegistry* registry) {
  strings::RegisterBasicStringKernels(registry);
  strings::RegisterStringConvertKernels(registry);
  strings::RegisterStringJoinSplitKernels(registry);
  strings::RegisterStringRegexBase64Kernels(registry);
  strings::RegisterStringHashKernels(registry);
}

}  // namespace dfx

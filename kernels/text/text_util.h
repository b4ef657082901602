// The registration function of each kernel file of the text family
// (kernels/text/), all called by RegisterTextKernels.
#ifndef DFX_KERNELS_TEXT_TEXT_UTIL_H_
#define DFX_KERNELS_TEXT_TEXT_UTIL_H_

#include "runtime/op_kernel.h"

namespace dfx::text {

// RegexFullMatch, StringSplit, StringNGrams, UnsortedSegmentJoin,
// Fingerprint (string_kernels.cc).
void RegisterTextStringKernels(KernelRegistry* registry);
// DecodeCSV, ParseTensor, SerializeTensor (parse_kernels.cc).
void RegisterTextParseKernels(KernelRegistry* registry);
// SetSize, DenseToDense/DenseToSparse/SparseToSparseSetOperation, ListDiff,
// EditDistance (set_kernels.cc).
void RegisterTextSetKernels(KernelRegistry* registry);
// UnicodeDecode, UnicodeDecodeWithOffsets, UnicodeEncode, UnicodeTranscode
// (unicode_kernels.cc).
void RegisterTextUnicodeKernels(KernelRegistry* registry);
// UnicodeScript (unicode_script_kernel.cc, with ICU).
void RegisterTextUnicodeScriptKernel(KernelRegistry* registry);

}  // namespace dfx::text

#endif  // DFX_KERNELS_TEXT_TEXT_UTIL_H_

// The registration function of each kernel file of the text family
// (kernels/text/), all called by RegisterTextKernels.
#ifndef DFX_KERNELS_TEXT_TEXT_UTIL_H_
#define DFX_KERNELS_TEXT_TEXT_UTIL_H_

#include <cstdint>

#include "runtime/op_kernel.h"

namespace dfx::text {

// Element i of an int32 or int64 tensor, widened.
inline int64_t IntAt(const Tensor& t, int64_t i) {
  return t.dtype() == DT_INT32 ? int64_t{t.data<int32_t>()[i]}
                               : t.data<int64_t>()[i];
}
// Sets element i of an int32 or int64 tensor.
inline void SetInt(Tensor* t, int64_t i, int64_t v) {
  if (t->dtype() == DT_INT32) {
    t->data<int32_t>()[i] = static_cast<int32_t>(v);
  } else {
    t->data<int64_t>()[i] = v;
  }
}

// TensorFlow's POD and string types without the quantized ones: the types
// of its SerializeTensor and EditDistance CPU kernels.
const DataTypeVector& PodAndStringTypes();

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

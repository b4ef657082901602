// The registration function of each kernel file of the text family
// (kernels/text/), all called by RegisterTextKernels.
#ifndef DFX_KERNELS_TEXT_TEXT_UTIL_H_
#define DFX_KERNELS_TEXT_TEXT_UTIL_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "kernels/int_elements.h"
#include "runtime/op_kernel.h"

struct UConverter;  // ICU's

namespace dfx::text {

// Sets element i of an int32 or int64 tensor.
inline void SetInt(Tensor* t, int64_t i, int64_t v) {
  if (t->dtype() == DT_INT32) {
    t->data<int32_t>()[i] = static_cast<int32_t>(v);
  } else {
    t->data<int64_t>()[i] = v;
  }
}

// Reads text in any encoding ICU has a converter for (icu_reader.cc), as
// TensorFlow's Unicode ops do. Not thread-safe; the converter's state
// (a UTF-16 byte order mark's, say) carries from one string to the next,
// as in TensorFlow, where one converter reads all of a step's strings.
class IcuReader {
 public:
  // InvalidArgument ("Could not create converter for input encoding: ...")
  // when ICU knows no such encoding.
  static absl::StatusOr<std::unique_ptr<IcuReader>> Open(
      const std::string& name);
  ~IcuReader();
  IcuReader(const IcuReader&) = delete;
  IcuReader& operator=(const IcuReader&) = delete;

  // Calls fn(code point, bytes consumed, error) for each character of `s`:
  // U+FFFD (ICU's substitute) and error=true for each malformed or
  // unassigned sequence.
  void Iterate(
      absl::string_view s,
      absl::FunctionRef<void(int32_t code_point, int bytes, bool error)> fn);

 private:
  explicit IcuReader(UConverter* converter) : converter_(converter) {}
  UConverter* const converter_;
};

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

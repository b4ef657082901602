// IcuReader (text_util.h): TensorFlow's way of reading a string through an
// ICU converter (unicode_ops.cc's IterateUnicodeString): ucnv_getNextUChar
// character by character, with a to-Unicode callback that notes each
// illegal, irregular or unassigned sequence and substitutes for it as
// ICU's default callback does.
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "kernels/text/text_util.h"
#include "unicode/ucnv.h"
#include "unicode/ucnv_err.h"

namespace dfx::text {
namespace {

void NoteError(const void* context, UConverterToUnicodeArgs* args,
               const char* units, int32_t length,
               UConverterCallbackReason reason, UErrorCode* status) {
  if (reason == UCNV_UNASSIGNED || reason == UCNV_ILLEGAL ||
      reason == UCNV_IRREGULAR) {
    *static_cast<bool*>(const_cast<void*>(context)) = true;
  }
  UCNV_TO_U_CALLBACK_SUBSTITUTE(nullptr, args, units, length, reason, status);
}

}  // namespace

absl::StatusOr<std::unique_ptr<IcuReader>> IcuReader::Open(
    const std::string& name) {
  UErrorCode status = U_ZERO_ERROR;
  UConverter* converter = ucnv_open(name.c_str(), &status);
  if (U_FAILURE(status)) {
    if (converter != nullptr) ucnv_close(converter);
    return absl::InvalidArgumentError(
        absl::StrCat("Could not create converter for input encoding: ", name));
  }
  return std::unique_ptr<IcuReader>(new IcuReader(converter));
}

IcuReader::~IcuReader() { ucnv_close(converter_); }

void IcuReader::Iterate(
    absl::string_view s,
    absl::FunctionRef<void(int32_t code_point, int bytes, bool error)> fn) {
  bool error = false;
  UErrorCode status = U_ZERO_ERROR;
  UConverterToUCallback old_action = nullptr;
  const void* old_context = nullptr;
  ucnv_setToUCallBack(converter_, NoteError, &error, &old_action, &old_context,
                      &status);
  if (U_FAILURE(status)) return;
  const char* at = s.data();
  const char* const end = s.data() + s.size();
  while (at < end) {
    const char* const before = at;
    const UChar32 cp = ucnv_getNextUChar(converter_, &at, end, &status);
    // As TensorFlow: a failure ends the string.
    if (U_FAILURE(status)) at = end;
    fn(cp, static_cast<int>(at - before), error);
    error = false;
  }
  ucnv_setToUCallBack(converter_, old_action, old_context, nullptr, nullptr,
                      &status);
}

}  // namespace dfx::text

// UnicodeDecode, UnicodeDecodeWithOffsets, UnicodeEncode and
// UnicodeTranscode with TensorFlow 2.21's semantics (unicode_ops.cc).
// TensorFlow reads input through ICU's converters; dfx reads the encodings
// TensorFlow's documentation names (UTF-8, UTF-16-BE, UTF-32-BE) itself,
// reproducing ICU's handling of malformed input, and any other encoding
// through ICU (IcuReader):
//   - each maximal ill-formed subpart (Unicode's "maximal subpart"
//     practice, which ICU's UTF-8 converter follows) and each truncated
//     sequence at the end of a string is one error, consuming its bytes;
//   - UTF-16BE: an unpaired surrogate is an error of its 2 bytes; UTF-32BE:
//     a unit above U+10FFFF or a surrogate is an error of its 4 bytes.
// Output is built as ICU's UnicodeString would be (UTF-16 units, a lone
// surrogate code point kept as one unit, so that a lead and a trail given
// as two code points pair up) and then encoded as TensorFlow's Encode does.
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "kernels/strings/string_util.h"
#include "kernels/text/text_util.h"

namespace dfx::text {
namespace {

// kIcu: any other encoding, read through ICU (IcuReader).
enum class Encoding { kUtf8, kUtf16Be, kUtf32Be, kIcu };

constexpr int32_t kMaxCodePoint = 0x10FFFF;

// ICU's converter names match ignoring case, '-' and '_'.
std::string CanonicalName(absl::string_view name) {
  std::string out;
  for (char c : name) {
    if (c == '-' || c == '_' || c == ' ') continue;
    out += absl::ascii_tolower(static_cast<unsigned char>(c));
  }
  return out;
}

// The input encoding `name` names: dfx's own decoders for UTF-8, UTF-16-BE
// and UTF-32-BE (ICU's names match ignoring case, '-' and '_'), ICU's
// converter for any other name ICU knows; InvalidArgument otherwise.
absl::Status ParseInputEncoding(const std::string& name, Encoding* out) {
  const std::string c = CanonicalName(name);
  if (c == "utf8") {
    *out = Encoding::kUtf8;
  } else if (c == "utf16be") {
    *out = Encoding::kUtf16Be;
  } else if (c == "utf32be") {
    *out = Encoding::kUtf32Be;
  } else {
    absl::StatusOr<std::unique_ptr<IcuReader>> icu = IcuReader::Open(name);
    if (!icu.ok()) return icu.status();
    *out = Encoding::kIcu;
  }
  return absl::OkStatus();
}

absl::Status ParseOutputEncoding(const std::string& name, Encoding* out) {
  if (name == "UTF-8") {
    *out = Encoding::kUtf8;
  } else if (name == "UTF-16-BE") {
    *out = Encoding::kUtf16Be;
  } else if (name == "UTF-32-BE") {
    *out = Encoding::kUtf32Be;
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("Invalid encoding \"", name,
                     "\": Should be one of: UTF-8, UTF-16-BE, UTF-32-BE"));
  }
  return absl::OkStatus();
}

struct ErrorOptions {
  int32_t subst = 0xFFFD;
  bool elide = false;            // errors=ignore
  bool strict = false;           // errors=strict
  bool replace_control = false;  // replace_control_characters
};

absl::Status GetErrorOptions(OpKernelConstruction* c, ErrorOptions* out) {
  std::string policy;
  DFX_RETURN_IF_ERROR(c->GetAttr("errors", &policy));
  if (policy == "ignore") {
    out->elide = true;
  } else if (policy == "strict") {
    out->strict = true;
  } else if (policy != "replace") {
    return absl::InvalidArgumentError(
        "errors policy must be one of 'strict', 'replace', or 'ignore'");
  }
  int64_t subst = 0;
  DFX_RETURN_IF_ERROR(c->GetAttr("replacement_char", &subst));
  if (subst < 0 || subst > kMaxCodePoint) {
    return absl::InvalidArgumentError(
        "replacement_char out of unicode codepoint range");
  }
  out->subst = static_cast<int32_t>(subst);
  if (c->def().attr().count("replace_control_characters")) {
    DFX_RETURN_IF_ERROR(
        c->GetAttr("replace_control_characters", &out->replace_control));
  }
  return absl::OkStatus();
}

bool InRange(unsigned char b, unsigned char lo, unsigned char hi) {
  return b >= lo && b <= hi;
}

// Reads one character of `s` at `*at`: its code point (0xFFFD for an
// error), advancing `*at` past the bytes it took. Returns false for an
// error.
bool NextUtf8(absl::string_view s, size_t* at, int32_t* cp) {
  const unsigned char b0 = s[*at];
  if (b0 < 0x80) {
    *cp = b0;
    ++*at;
    return true;
  }
  int need;
  unsigned char lo = 0x80, hi = 0xBF;  // the second byte's range
  if (InRange(b0, 0xC2, 0xDF)) {
    need = 1;
  } else if (InRange(b0, 0xE0, 0xEF)) {
    need = 2;
    if (b0 == 0xE0) lo = 0xA0;
    if (b0 == 0xED) hi = 0x9F;
  } else if (InRange(b0, 0xF0, 0xF4)) {
    need = 3;
    if (b0 == 0xF0) lo = 0x90;
    if (b0 == 0xF4) hi = 0x8F;
  } else {
    *cp = 0xFFFD;
    ++*at;
    return false;
  }
  int32_t v = b0 & (0x3F >> need);
  size_t i = *at + 1;
  for (int k = 0; k < need; ++k, ++i) {
    if (i >= s.size()) {
      // Truncated at the end: one error for what is there.
      *cp = 0xFFFD;
      *at = i;
      return false;
    }
    const unsigned char b = s[i];
    const bool ok = k == 0 ? InRange(b, lo, hi) : InRange(b, 0x80, 0xBF);
    if (!ok) {
      // The maximal subpart ends before b.
      *cp = 0xFFFD;
      *at = i;
      return false;
    }
    v = (v << 6) | (b & 0x3F);
  }
  *cp = v;
  *at = i;
  return true;
}

bool NextUtf16Be(absl::string_view s, size_t* at, int32_t* cp) {
  auto unit = [&](size_t i) {
    return (static_cast<unsigned char>(s[i]) << 8) |
           static_cast<unsigned char>(s[i + 1]);
  };
  *cp = 0xFFFD;
  if (*at + 2 > s.size()) {
    *at = s.size();  // an odd last byte: truncated
    return false;
  }
  const int32_t u = unit(*at);
  *at += 2;
  if (u < 0xD800 || u > 0xDFFF) {
    *cp = u;
    return true;
  }
  if (u >= 0xDC00) return false;  // a trail without a lead
  if (*at + 2 > s.size()) {
    // A lead at the end (with or without one more byte): truncated.
    *at = s.size();
    return false;
  }
  const int32_t t = unit(*at);
  if (t < 0xDC00 || t > 0xDFFF) return false;  // the lead alone
  *at += 2;
  *cp = 0x10000 + ((u - 0xD800) << 10) + (t - 0xDC00);
  return true;
}

bool NextUtf32Be(absl::string_view s, size_t* at, int32_t* cp) {
  *cp = 0xFFFD;
  if (*at + 4 > s.size()) {
    *at = s.size();
    return false;
  }
  uint32_t v = 0;
  for (int k = 0; k < 4; ++k)
    v = v << 8 | static_cast<unsigned char>(s[*at + k]);
  *at += 4;
  if (v > static_cast<uint32_t>(kMaxCodePoint) ||
      (v >= 0xD800 && v <= 0xDFFF)) {
    return false;
  }
  *cp = static_cast<int32_t>(v);
  return true;
}

// Reads one step's strings in one encoding: calls fn(code point, bytes
// consumed, format error) for each character of a string, as TensorFlow's
// IterateUnicodeString does.
class Reader {
 public:
  static absl::StatusOr<Reader> Open(Encoding enc, const std::string& name) {
    Reader r;
    r.enc_ = enc;
    if (enc == Encoding::kIcu) {
      absl::StatusOr<std::unique_ptr<IcuReader>> icu = IcuReader::Open(name);
      if (!icu.ok()) return icu.status();
      r.icu_ = *std::move(icu);
    }
    return r;
  }

  template <typename Fn>
  void Iterate(absl::string_view s, Fn&& fn) {
    if (icu_ != nullptr) {
      icu_->Iterate(s, fn);
      return;
    }
    size_t at = 0;
    while (at < s.size()) {
      const size_t start = at;
      int32_t cp = 0;
      bool ok;
      switch (enc_) {
        case Encoding::kUtf8:
          ok = NextUtf8(s, &at, &cp);
          break;
        case Encoding::kUtf16Be:
          ok = NextUtf16Be(s, &at, &cp);
          break;
        default:
          ok = NextUtf32Be(s, &at, &cp);
          break;
      }
      fn(cp, static_cast<int>(at - start), !ok);
    }
  }

 private:
  Encoding enc_ = Encoding::kUtf8;
  std::unique_ptr<IcuReader> icu_;
};

// ICU's UnicodeString::append(UChar32): a BMP value (lone surrogates
// included) as one unit, a supplementary one as a pair, anything else
// nothing.
void AppendCodePoint(int32_t cp, std::u16string* out) {
  if (cp < 0 || cp > kMaxCodePoint) return;
  if (cp <= 0xFFFF) {
    out->push_back(static_cast<char16_t>(cp));
    return;
  }
  cp -= 0x10000;
  out->push_back(static_cast<char16_t>(0xD800 + (cp >> 10)));
  out->push_back(static_cast<char16_t>(0xDC00 + (cp & 0x3FF)));
}

// TensorFlow's Encode of a UnicodeString: UTF-8 with lone surrogates as
// U+FFFD (toUTF8String), UTF-16BE unit by unit, UTF-32BE by code point
// (lone surrogates as they are).
std::string Encode(Encoding enc, const std::u16string& units) {
  std::string out;
  if (enc == Encoding::kUtf16Be) {
    for (char16_t u : units) {
      out.push_back(static_cast<char>(u >> 8));
      out.push_back(static_cast<char>(u & 0xFF));
    }
    return out;
  }
  for (size_t i = 0; i < units.size(); ++i) {
    int32_t cp = units[i];
    const bool lead = cp >= 0xD800 && cp <= 0xDBFF;
    if (lead && i + 1 < units.size() && units[i + 1] >= 0xDC00 &&
        units[i + 1] <= 0xDFFF) {
      cp = 0x10000 + ((cp - 0xD800) << 10) + (units[i + 1] - 0xDC00);
      ++i;
    }
    if (enc == Encoding::kUtf8) {
      strings::AppendUtf8(cp >= 0xD800 && cp <= 0xDFFF ? 0xFFFD : cp, &out);
    } else {
      for (int shift = 24; shift >= 0; shift -= 8) {
        out.push_back(static_cast<char>((cp >> shift) & 0xFF));
      }
    }
  }
  return out;
}

bool HandleAsError(const ErrorOptions& o, int32_t cp, bool format_error) {
  return (o.replace_control && cp <= 0x1F) || format_error;
}

class UnicodeDecodeOp : public OpKernel {
 public:
  UnicodeDecodeOp(OpKernelConstruction* c, bool offsets)
      : OpKernel(c), offsets_(offsets) {
    c->SetStatus(GetErrorOptions(c, &options_));
    c->SetStatus(c->GetAttr("input_encoding", &name_));
    if (c->status().ok()) c->SetStatus(ParseInputEncoding(name_, &encoding_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const int64_t n = input.NumElements();
    std::vector<int32_t> chars;
    std::vector<int64_t> starts;
    std::vector<int64_t> splits(n + 1, 0);
    bool malformed = false;
    absl::StatusOr<Reader> reader = Reader::Open(encoding_, name_);
    DFX_OP_REQUIRES_OK(ctx, reader.status());
    for (int64_t i = 0; i < n; ++i) {
      int64_t offset = 0;
      reader->Iterate(input.data<std::string>()[i],
                      [&](int32_t cp, int bytes, bool error) {
                        malformed |= error;
                        int32_t value = cp;
                        if (HandleAsError(options_, cp, error)) {
                          if (options_.elide) {
                            offset += bytes;
                            return;
                          }
                          value = options_.subst;
                        }
                        chars.push_back(value);
                        starts.push_back(offset);
                        offset += bytes;
                      });
      splits[i + 1] = static_cast<int64_t>(chars.size());
    }
    DFX_OP_REQUIRES(
        ctx, !(options_.strict && malformed),
        absl::InvalidArgumentError("Invalid formatting on input string"));
    const int64_t m = static_cast<int64_t>(chars.size());
    Tensor *row_splits = nullptr, *values = nullptr, *offsets = nullptr;
    DFX_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(0, TensorShape({n + 1}), &row_splits));
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({m}), &values));
    for (int64_t i = 0; i <= n; ++i) SetInt(row_splits, i, splits[i]);
    for (int64_t k = 0; k < m; ++k) values->data<int32_t>()[k] = chars[k];
    if (offsets_) {
      DFX_OP_REQUIRES_OK(ctx,
                         ctx->allocate_output(2, TensorShape({m}), &offsets));
      for (int64_t k = 0; k < m; ++k) offsets->data<int64_t>()[k] = starts[k];
    }
  }

 private:
  const bool offsets_;
  ErrorOptions options_;
  std::string name_;
  Encoding encoding_ = Encoding::kUtf8;
};

template <bool kOffsets>
class UnicodeDecodeKernel : public UnicodeDecodeOp {
 public:
  explicit UnicodeDecodeKernel(OpKernelConstruction* c)
      : UnicodeDecodeOp(c, kOffsets) {}
};

class UnicodeEncodeOp : public OpKernel {
 public:
  explicit UnicodeEncodeOp(OpKernelConstruction* c) : OpKernel(c) {
    std::string name;
    c->SetStatus(c->GetAttr("output_encoding", &name));
    if (c->status().ok()) c->SetStatus(ParseOutputEncoding(name, &encoding_));
    if (c->status().ok()) c->SetStatus(GetErrorOptions(c, &options_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& values = ctx->input(0);
    const Tensor& splits = ctx->input(1);
    auto split = [&](int64_t i) { return IntAt(splits, i); };
    const int64_t ns = splits.NumElements();
    DFX_OP_REQUIRES(ctx, ns > 0,
                    absl::InvalidArgumentError(
                        "Input_splits should contain elements, but given "
                        "input_values has 0 elements"));
    DFX_OP_REQUIRES(ctx, split(0) == 0,
                    absl::InvalidArgumentError(
                        "First value in input_splits must be zero."));
    DFX_OP_REQUIRES(ctx, split(ns - 1) == values.NumElements(),
                    absl::InvalidArgumentError(
                        "Last value in input_splits must be equal to length of "
                        "input_tensor."));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(0, TensorShape({ns - 1}), &out));
    const int32_t* cps = values.data<int32_t>();
    int64_t idx = 0;
    for (int64_t i = 1; i < ns; ++i) {
      DFX_OP_REQUIRES(ctx, split(i - 1) <= split(i),
                      absl::InvalidArgumentError(
                          "Values in input_splits must be equal or in "
                          "ascending order."));
      std::u16string units;
      for (; idx < split(i); ++idx) {
        int32_t cp = cps[idx];
        if (cp > kMaxCodePoint || cp < 0 || (cp >= 0xD800 && cp <= 0xDFFF)) {
          DFX_OP_REQUIRES(ctx, !options_.strict,
                          absl::InvalidArgumentError(
                              "Code point is out of range for Unicode, or is "
                              "a surrogate."));
          if (options_.elide) continue;
          cp = options_.subst;
        }
        AppendCodePoint(cp, &units);
      }
      out->data<std::string>()[i - 1] = Encode(encoding_, units);
    }
  }

 private:
  Encoding encoding_ = Encoding::kUtf8;
  ErrorOptions options_;
};

class UnicodeTranscodeOp : public OpKernel {
 public:
  explicit UnicodeTranscodeOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(GetErrorOptions(c, &options_));
    std::string out_name;
    c->SetStatus(c->GetAttr("output_encoding", &out_name));
    c->SetStatus(c->GetAttr("input_encoding", &in_name_));
    if (c->status().ok()) {
      c->SetStatus(ParseOutputEncoding(out_name, &output_));
    }
    if (c->status().ok()) c->SetStatus(ParseInputEncoding(in_name_, &input_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
    bool any_error = false;
    absl::StatusOr<Reader> reader = Reader::Open(input_, in_name_);
    DFX_OP_REQUIRES_OK(ctx, reader.status());
    for (int64_t i = 0; i < input.NumElements(); ++i) {
      std::u16string units;
      reader->Iterate(input.data<std::string>()[i],
                      [&](int32_t cp, int, bool error) {
                        if (HandleAsError(options_, cp, error)) {
                          any_error = true;
                          if (options_.elide) return;
                          cp = options_.subst;
                        }
                        AppendCodePoint(cp, &units);
                      });
      out->data<std::string>()[i] = Encode(output_, units);
    }
    DFX_OP_REQUIRES(
        ctx, !(options_.strict && any_error),
        absl::InvalidArgumentError("Invalid formatting on input string"));
  }

 private:
  ErrorOptions options_;
  std::string in_name_;
  Encoding input_ = Encoding::kUtf8;
  Encoding output_ = Encoding::kUtf8;
};

}  // namespace

void RegisterTextUnicodeKernels(KernelRegistry* registry) {
  RegisterKernel<UnicodeDecodeKernel<false>>(registry,
                                             KernelDefBuilder("UnicodeDecode"));
  RegisterKernel<UnicodeDecodeKernel<true>>(
      registry, KernelDefBuilder("UnicodeDecodeWithOffsets"));
  RegisterKernel<UnicodeEncodeOp>(registry, KernelDefBuilder("UnicodeEncode"));
  RegisterKernel<UnicodeTranscodeOp>(registry,
                                     KernelDefBuilder("UnicodeTranscode"));
}

}  // namespace dfx::text

// StringLower, StringUpper, StringLength, Substr, StringStrip, and Equal and
// NotEqual on strings, with TensorFlow 2.21's semantics (string_lower_op.cc,
// string_length_op.cc, substr_op.cc, string_strip_op.cc,
// cwise_op_equal_to_1.cc).
#include <locale.h>

#include <algorithm>
#include <clocale>
#include <cstdint>
#include <cwctype>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "kernels/broadcast.h"
#include "kernels/eigen_util.h"
#include "kernels/strings/string_util.h"

namespace dfx::strings {
namespace {

// --- UTF-8 decoding and encoding for case mapping.

// The code point at s[*i], advancing *i; U+FFFD for a malformed sequence
// (one byte consumed), as ICU's fromUTF8 substitutes.
char32_t DecodeUtf8(const std::string& s, size_t* i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(*i);
  int n = 0;
  char32_t cp = 0;
  if (c < 0x80) {
    ++*i;
    return c;
  } else if ((c & 0xE0) == 0xC0 && c >= 0xC2) {
    n = 1;
    cp = c & 0x1F;
  } else if ((c & 0xF0) == 0xE0) {
    n = 2;
    cp = c & 0x0F;
  } else if ((c & 0xF8) == 0xF0 && c <= 0xF4) {
    n = 3;
    cp = c & 0x07;
  } else {
    ++*i;
    return 0xFFFD;
  }
  for (int k = 1; k <= n; ++k) {
    if (*i + k >= s.size() || (b(*i + k) & 0xC0) != 0x80) {
      ++*i;
      return 0xFFFD;
    }
    cp = (cp << 6) | (b(*i + k) & 0x3F);
  }
  // Overlong forms, surrogates and values past U+10FFFF are malformed.
  if ((n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) || cp > 0x10FFFF ||
      (cp >= 0xD800 && cp <= 0xDFFF)) {
    ++*i;
    return 0xFFFD;
  }
  *i += n + 1;
  return cp;
}

// The C.UTF-8 locale whose towlower_l/towupper_l give Unicode's simple
// case mappings; null when the C library has none.
locale_t Utf8Locale() {
  static const locale_t locale = [] {
    locale_t l = newlocale(LC_CTYPE_MASK, "C.UTF-8", static_cast<locale_t>(0));
    return l;
  }();
  return locale;
}

bool IsCased(char32_t cp, locale_t l) {
  return towlower_l(cp, l) != cp || towupper_l(cp, l) != cp;
}

// Unicode's full lowercasing of `s` (ICU's root-locale toLower): simple
// mappings, with U+0130 to "i\u0307" and a capital sigma that ends a word
// to a final sigma.
std::string Utf8Lower(const std::string& s, locale_t l) {
  std::u32string cps;
  for (size_t i = 0; i < s.size();) cps.push_back(DecodeUtf8(s, &i));
  std::string out;
  for (size_t k = 0; k < cps.size(); ++k) {
    const char32_t cp = cps[k];
    if (cp == 0x130) {
      out += "i\xCC\x87";
      continue;
    }
    if (cp == 0x3A3) {
      // Final_Sigma: a cased letter before (skipping case-ignorable marks,
      // approximated by combining marks) and none after.
      auto ignorable = [](char32_t c) {
        return (c >= 0x300 && c <= 0x36F) || c == 0x27 || c == 0xB7 ||
               c == 0x2019;
      };
      bool before = false, after = false;
      for (size_t j = k; j-- > 0;) {
        if (ignorable(cps[j])) continue;
        before = IsCased(cps[j], l);
        break;
      }
      for (size_t j = k + 1; j < cps.size(); ++j) {
        if (ignorable(cps[j])) continue;
        after = IsCased(cps[j], l);
        break;
      }
      AppendUtf8(before && !after ? 0x3C2 : 0x3C3, &out);
      continue;
    }
    AppendUtf8(static_cast<char32_t>(towlower_l(cp, l)), &out);
  }
  return out;
}

// The code points whose uppercase is more than one code point: the
// unconditional entries of Unicode's SpecialCasing.txt (sharp s,
// ligatures, Greek with iota subscripts, ...), UTF-8 encoded, sorted.
struct MultiUpper {
  char32_t cp;
  const char* upper;
};
constexpr MultiUpper kMultiUpper[] = {
    {0x00DF, "\x53\x53"},
    {0x0149, "\xCA\xBC\x4E"},
    {0x01F0, "\x4A\xCC\x8C"},
    {0x0390, "\xCE\x99\xCC\x88\xCC\x81"},
    {0x03B0, "\xCE\xA5\xCC\x88\xCC\x81"},
    {0x0587, "\xD4\xB5\xD5\x92"},
    {0x1E96, "\x48\xCC\xB1"},
    {0x1E97, "\x54\xCC\x88"},
    {0x1E98, "\x57\xCC\x8A"},
    {0x1E99, "\x59\xCC\x8A"},
    {0x1E9A, "\x41\xCA\xBE"},
    {0x1F50, "\xCE\xA5\xCC\x93"},
    {0x1F52, "\xCE\xA5\xCC\x93\xCC\x80"},
    {0x1F54, "\xCE\xA5\xCC\x93\xCC\x81"},
    {0x1F56, "\xCE\xA5\xCC\x93\xCD\x82"},
    {0x1F80, "\xE1\xBC\x88\xCE\x99"},
    {0x1F81, "\xE1\xBC\x89\xCE\x99"},
    {0x1F82, "\xE1\xBC\x8A\xCE\x99"},
    {0x1F83, "\xE1\xBC\x8B\xCE\x99"},
    {0x1F84, "\xE1\xBC\x8C\xCE\x99"},
    {0x1F85, "\xE1\xBC\x8D\xCE\x99"},
    {0x1F86, "\xE1\xBC\x8E\xCE\x99"},
    {0x1F87, "\xE1\xBC\x8F\xCE\x99"},
    {0x1F88, "\xE1\xBC\x88\xCE\x99"},
    {0x1F89, "\xE1\xBC\x89\xCE\x99"},
    {0x1F8A, "\xE1\xBC\x8A\xCE\x99"},
    {0x1F8B, "\xE1\xBC\x8B\xCE\x99"},
    {0x1F8C, "\xE1\xBC\x8C\xCE\x99"},
    {0x1F8D, "\xE1\xBC\x8D\xCE\x99"},
    {0x1F8E, "\xE1\xBC\x8E\xCE\x99"},
    {0x1F8F, "\xE1\xBC\x8F\xCE\x99"},
    {0x1F90, "\xE1\xBC\xA8\xCE\x99"},
    {0x1F91, "\xE1\xBC\xA9\xCE\x99"},
    {0x1F92, "\xE1\xBC\xAA\xCE\x99"},
    {0x1F93, "\xE1\xBC\xAB\xCE\x99"},
    {0x1F94, "\xE1\xBC\xAC\xCE\x99"},
    {0x1F95, "\xE1\xBC\xAD\xCE\x99"},
    {0x1F96, "\xE1\xBC\xAE\xCE\x99"},
    {0x1F97, "\xE1\xBC\xAF\xCE\x99"},
    {0x1F98, "\xE1\xBC\xA8\xCE\x99"},
    {0x1F99, "\xE1\xBC\xA9\xCE\x99"},
    {0x1F9A, "\xE1\xBC\xAA\xCE\x99"},
    {0x1F9B, "\xE1\xBC\xAB\xCE\x99"},
    {0x1F9C, "\xE1\xBC\xAC\xCE\x99"},
    {0x1F9D, "\xE1\xBC\xAD\xCE\x99"},
    {0x1F9E, "\xE1\xBC\xAE\xCE\x99"},
    {0x1F9F, "\xE1\xBC\xAF\xCE\x99"},
    {0x1FA0, "\xE1\xBD\xA8\xCE\x99"},
    {0x1FA1, "\xE1\xBD\xA9\xCE\x99"},
    {0x1FA2, "\xE1\xBD\xAA\xCE\x99"},
    {0x1FA3, "\xE1\xBD\xAB\xCE\x99"},
    {0x1FA4, "\xE1\xBD\xAC\xCE\x99"},
    {0x1FA5, "\xE1\xBD\xAD\xCE\x99"},
    {0x1FA6, "\xE1\xBD\xAE\xCE\x99"},
    {0x1FA7, "\xE1\xBD\xAF\xCE\x99"},
    {0x1FA8, "\xE1\xBD\xA8\xCE\x99"},
    {0x1FA9, "\xE1\xBD\xA9\xCE\x99"},
    {0x1FAA, "\xE1\xBD\xAA\xCE\x99"},
    {0x1FAB, "\xE1\xBD\xAB\xCE\x99"},
    {0x1FAC, "\xE1\xBD\xAC\xCE\x99"},
    {0x1FAD, "\xE1\xBD\xAD\xCE\x99"},
    {0x1FAE, "\xE1\xBD\xAE\xCE\x99"},
    {0x1FAF, "\xE1\xBD\xAF\xCE\x99"},
    {0x1FB2, "\xE1\xBE\xBA\xCE\x99"},
    {0x1FB3, "\xCE\x91\xCE\x99"},
    {0x1FB4, "\xCE\x86\xCE\x99"},
    {0x1FB6, "\xCE\x91\xCD\x82"},
    {0x1FB7, "\xCE\x91\xCD\x82\xCE\x99"},
    {0x1FBC, "\xCE\x91\xCE\x99"},
    {0x1FC2, "\xE1\xBF\x8A\xCE\x99"},
    {0x1FC3, "\xCE\x97\xCE\x99"},
    {0x1FC4, "\xCE\x89\xCE\x99"},
    {0x1FC6, "\xCE\x97\xCD\x82"},
    {0x1FC7, "\xCE\x97\xCD\x82\xCE\x99"},
    {0x1FCC, "\xCE\x97\xCE\x99"},
    {0x1FD2, "\xCE\x99\xCC\x88\xCC\x80"},
    {0x1FD3, "\xCE\x99\xCC\x88\xCC\x81"},
    {0x1FD6, "\xCE\x99\xCD\x82"},
    {0x1FD7, "\xCE\x99\xCC\x88\xCD\x82"},
    {0x1FE2, "\xCE\xA5\xCC\x88\xCC\x80"},
    {0x1FE3, "\xCE\xA5\xCC\x88\xCC\x81"},
    {0x1FE4, "\xCE\xA1\xCC\x93"},
    {0x1FE6, "\xCE\xA5\xCD\x82"},
    {0x1FE7, "\xCE\xA5\xCC\x88\xCD\x82"},
    {0x1FF2, "\xE1\xBF\xBA\xCE\x99"},
    {0x1FF3, "\xCE\xA9\xCE\x99"},
    {0x1FF4, "\xCE\x8F\xCE\x99"},
    {0x1FF6, "\xCE\xA9\xCD\x82"},
    {0x1FF7, "\xCE\xA9\xCD\x82\xCE\x99"},
    {0x1FFC, "\xCE\xA9\xCE\x99"},
    {0xFB00, "\x46\x46"},
    {0xFB01, "\x46\x49"},
    {0xFB02, "\x46\x4C"},
    {0xFB03, "\x46\x46\x49"},
    {0xFB04, "\x46\x46\x4C"},
    {0xFB05, "\x53\x54"},
    {0xFB06, "\x53\x54"},
    {0xFB13, "\xD5\x84\xD5\x86"},
    {0xFB14, "\xD5\x84\xD4\xB5"},
    {0xFB15, "\xD5\x84\xD4\xBB"},
    {0xFB16, "\xD5\x8E\xD5\x86"},
    {0xFB17, "\xD5\x84\xD4\xBD"},
};

// Unicode's full uppercasing (ICU's root-locale toUpper): kMultiUpper, and
// simple mappings elsewhere.
std::string Utf8Upper(const std::string& s, locale_t l) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    const char32_t cp = DecodeUtf8(s, &i);
    const MultiUpper* it = std::lower_bound(
        std::begin(kMultiUpper), std::end(kMultiUpper), cp,
        [](const MultiUpper& m, char32_t c) { return m.cp < c; });
    if (it != std::end(kMultiUpper) && it->cp == cp) {
      out += it->upper;
      continue;
    }
    AppendUtf8(static_cast<char32_t>(towupper_l(cp, l)), &out);
  }
  return out;
}

template <bool kLower>
class CaseOp : public OpKernel {
 public:
  explicit CaseOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("encoding", &encoding_));
    if (!c->status().ok()) return;
    if (!encoding_.empty() && encoding_ != "utf-8") {
      c->SetStatus(absl::InvalidArgumentError(
          absl::StrCat("only utf-8 or '' (no encoding) is supported, received ",
                       encoding_)));
      return;
    }
    if (!encoding_.empty() && Utf8Locale() == static_cast<locale_t>(0)) {
      c->SetStatus(absl::UnimplementedError(
          "encoding utf-8 needs the C library's C.UTF-8 locale"));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    const std::string* s = in.data<std::string>();
    std::string* o = out->data<std::string>();
    ParallelFor(*ctx->device(), in.NumElements(),
                Eigen::TensorOpCost(32, 32, 128),
                [&](int64_t first, int64_t last) {
                  for (int64_t i = first; i < last; ++i) {
                    if (encoding_.empty()) {
                      o[i] = kLower ? absl::AsciiStrToLower(s[i])
                                    : absl::AsciiStrToUpper(s[i]);
                    } else {
                      // TensorFlow's ICU conversion reads the string up to its
                      // first NUL.
                      const std::string text = s[i].substr(0, s[i].find('\0'));
                      o[i] = kLower ? Utf8Lower(text, Utf8Locale())
                                    : Utf8Upper(text, Utf8Locale());
                    }
                  }
                });
  }

 private:
  std::string encoding_;
};

class StringLengthOp : public OpKernel {
 public:
  explicit StringLengthOp(OpKernelConstruction* c) : OpKernel(c) {
    std::string unit;
    c->SetStatus(c->GetAttr("unit", &unit));
    utf8_ = unit == "UTF8_CHAR";
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    const std::string* s = in.data<std::string>();
    int32_t* o = out->data<int32_t>();
    for (int64_t i = 0; i < in.NumElements(); ++i) {
      o[i] = static_cast<int32_t>(utf8_ ? Utf8Length(s[i])
                                        : static_cast<int64_t>(s[i].size()));
    }
  }

 private:
  bool utf8_ = false;
};

// Strips ASCII whitespace at both ends (TensorFlow's
// absl::StripAsciiWhitespace).
class StringStripOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    const std::string* s = in.data<std::string>();
    std::string* o = out->data<std::string>();
    for (int64_t i = 0; i < in.NumElements(); ++i) {
      o[i] = std::string(absl::StripAsciiWhitespace(s[i]));
    }
  }
};

// Moves *pos forward over n UTF-8 characters, stopping at the end; true
// when all n were there.
template <typename T>
bool ForwardChars(absl::string_view in, T n, T* pos) {
  const T size = static_cast<T>(in.size());
  T counted = 0;
  while (counted < n && *pos < size) {
    do {
      ++*pos;
    } while (*pos < size && IsTrailByte(in[*pos]));
    ++counted;
  }
  return counted == n;
}

// Moves *pos back over n UTF-8 characters, stopping at the start.
template <typename T>
bool BackChars(absl::string_view in, T n, T* pos) {
  T counted = 0;
  while (counted<n&& * pos> 0) {
    do {
      --*pos;
    } while (IsTrailByte(in[*pos]) && *pos > 0);
    ++counted;
  }
  return counted == n;
}

// Byte position and length of the substring `pos`, `len` counted in UTF-8
// characters (a negative pos counts from the end); false when pos is out
// of range.
template <typename T>
bool Utf8PosAndLen(absl::string_view in, T* pos, T* len) {
  if (*pos >= 0) {
    T start = 0;
    if (!ForwardChars(in, *pos, &start)) return false;
    T end = start;
    ForwardChars(in, *len, &end);
    *pos = start;
    *len = end - start;
    return true;
  }
  // In 128 bits, so that -pos and -pos - len cannot overflow; counts past
  // the string's length fail alike, so they are clamped to fit T.
  using Wide = __int128;
  const Wide back = -static_cast<Wide>(*pos);
  Wide skip = back - static_cast<Wide>(*len);
  if (skip < 0) skip = 0;
  const Wide limit = static_cast<Wide>(in.size()) + 1;
  T end = static_cast<T>(in.size());
  if (!BackChars(in, static_cast<T>(std::min(skip, limit)), &end)) {
    return false;
  }
  T start = end;
  if (!BackChars(in, static_cast<T>(std::min(back - skip, limit)), &start)) {
    return false;
  }
  *pos = start;
  *len = end - start;
  return true;
}

template <typename T>
class SubstrOp : public OpKernel {
 public:
  explicit SubstrOp(OpKernelConstruction* c) : OpKernel(c) {
    std::string unit;
    c->SetStatus(c->GetAttr("unit", &unit));
    utf8_ = unit == "UTF8_CHAR";
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& pos = ctx->input(1);
    const Tensor& len = ctx->input(2);
    DFX_OP_REQUIRES(
        ctx, pos.shape() == len.shape(),
        absl::InvalidArgumentError(absl::StrCat(
            "pos and len should have the same shape, got: ",
            pos.shape().DebugString(), " vs. ", len.shape().DebugString())));
    DFX_OP_REQUIRES(
        ctx, pos.NumElements() > 0,
        absl::InvalidArgumentError("received empty tensor pos_tensor"));
    const T* p = pos.data<T>();
    const T* l = len.data<T>();
    const std::string* s = input.data<std::string>();
    Tensor* out = nullptr;
    if (pos.dims() == 0 || pos.shape() == input.shape()) {
      DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
      const bool scalar = pos.dims() == 0;
      for (int64_t i = 0; i < input.NumElements(); ++i) {
        DFX_OP_REQUIRES_OK(ctx,
                           One(s[i], p[scalar ? 0 : i], l[scalar ? 0 : i],
                               absl::StrCat(i), &out->data<std::string>()[i]));
      }
      return;
    }
    // Broadcasting, of rank 1 or 2 as in TensorFlow.
    absl::StatusOr<Broadcast> b = Broadcast::Make(input.shape(), pos.shape());
    DFX_OP_REQUIRES(ctx, b.ok(),
                    absl::InvalidArgumentError(absl::StrCat(
                        "Incompatible shapes: ", input.shape().DebugString(),
                        " vs. ", pos.shape().DebugString())));
    const TensorShape& shape = b->output_shape();
    DFX_OP_REQUIRES(ctx, shape.dims() == 1 || shape.dims() == 2,
                    absl::UnimplementedError(
                        absl::StrCat("Substr broadcast not implemented for ",
                                     shape.dims(), " dimensions")));
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    std::string* o = out->data<std::string>();
    // Index of output element (i, j) in an input of `in_shape`, aligned at
    // the last dim, size-1 dims broadcast.
    auto index = [&](const TensorShape& in_shape, int64_t i, int64_t j) {
      const int rank = in_shape.dims();
      if (shape.dims() == 1) {
        return rank == 0 || in_shape.dim_size(0) == 1 ? int64_t{0} : i;
      }
      const int64_t rows = rank >= 2 ? in_shape.dim_size(0) : 1;
      const int64_t cols = rank >= 1 ? in_shape.dim_size(rank - 1) : 1;
      return (rows == 1 ? 0 : i) * cols + (cols == 1 ? 0 : j);
    };
    const int64_t rows =
        shape.dims() == 1 ? shape.dim_size(0) : shape.dim_size(0);
    const int64_t cols = shape.dims() == 1 ? 1 : shape.dim_size(1);
    for (int64_t i = 0; i < rows; ++i) {
      for (int64_t j = 0; j < cols; ++j) {
        const int64_t k = index(pos.shape(), i, j);
        const std::string where = shape.dims() == 1
                                      ? absl::StrCat(i)
                                      : absl::StrCat("(", i, ", ", j, ")");
        DFX_OP_REQUIRES_OK(
            ctx, One(s[index(input.shape(), i, j)], p[k], l[k],
                     utf8_ ? absl::StrCat(i) : where, &o[i * cols + j]));
      }
    }
  }

 private:
  absl::Status One(const std::string& in, T pos, T len,
                   const std::string& where, std::string* out) const {
    T byte_pos = pos, byte_len = len;
    if (utf8_) {
      if (!Utf8PosAndLen<T>(in, &byte_pos, &byte_len)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "pos ", pos, " out of range for string at index ", where));
      }
    } else {
      if (byte_pos < 0) byte_pos += static_cast<T>(in.size());
      if (byte_pos < 0 || byte_pos > static_cast<T>(in.size())) {
        return absl::InvalidArgumentError(
            absl::StrCat("pos ", pos, " out of range for string b'", in,
                         "' at index ", where));
      }
    }
    // A negative length takes the rest (TensorFlow's substr with a length
    // cast to size_t).
    *out = std::string(absl::string_view(in).substr(
        static_cast<size_t>(byte_pos), static_cast<size_t>(byte_len)));
    return absl::OkStatus();
  }

  bool utf8_ = false;
};

// Equal / NotEqual on strings, broadcasting; with incompatible_shape_error
// false, shapes that do not broadcast give a scalar (false for Equal).
template <bool kEqual>
class StringEqualOp : public OpKernel {
 public:
  explicit StringEqualOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(
        c->GetAttr("incompatible_shape_error", &incompatible_shape_error_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    Tensor* out = nullptr;
    absl::StatusOr<Broadcast> b = Broadcast::Make(x.shape(), y.shape());
    if (!b.ok()) {
      DFX_OP_REQUIRES(ctx, !incompatible_shape_error_, b.status());
      DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(), &out));
      out->data<bool>()[0] = !kEqual;
      return;
    }
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, b->output_shape(), &out));
    const std::string* xs = x.data<std::string>();
    const std::string* ys = y.data<std::string>();
    bool* o = out->data<bool>();
    b->ForEachRun(0, b->num_elements(),
                  [&](int64_t offset, int64_t length, const int64_t* in,
                      const int64_t* step) {
                    for (int64_t k = 0; k < length; ++k) {
                      o[offset + k] = (xs[in[0] + k * step[0]] ==
                                       ys[in[1] + k * step[1]]) == kEqual;
                    }
                  });
  }

 private:
  bool incompatible_shape_error_ = true;
};

}  // namespace

void RegisterBasicStringKernels(KernelRegistry* registry) {
  RegisterKernel<CaseOp<true>>(registry, KernelDefBuilder("StringLower"));
  RegisterKernel<CaseOp<false>>(registry, KernelDefBuilder("StringUpper"));
  RegisterKernel<StringLengthOp>(registry, KernelDefBuilder("StringLength"));
  RegisterKernel<StringStripOp>(registry, KernelDefBuilder("StringStrip"));
  RegisterKernel<SubstrOp<int32_t>>(
      registry, KernelDefBuilder("Substr").TypeConstraint<int32_t>("T"));
  RegisterKernel<SubstrOp<int64_t>>(
      registry, KernelDefBuilder("Substr").TypeConstraint<int64_t>("T"));
  RegisterKernel<StringEqualOp<true>>(
      registry, KernelDefBuilder("Equal").TypeConstraint<std::string>("T"));
  RegisterKernel<StringEqualOp<false>>(
      registry, KernelDefBuilder("NotEqual").TypeConstraint<std::string>("T"));
}

}  // namespace dfx::strings

// StaticRegexReplace, RegexReplace (RE2, TensorFlow's regex_replace_op.cc)
// and EncodeBase64 / DecodeBase64 (web-safe alphabet, TensorFlow's
// lib/strings/base64.cc).
#include <cstdint>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "kernels/strings/string_util.h"
#include "re2/re2.h"

namespace dfx::strings {
namespace {

absl::StatusOr<std::unique_ptr<RE2>> Compile(const std::string& pattern,
                                             const std::string& rewrite) {
  auto re = std::make_unique<RE2>(pattern, RE2::Quiet);
  if (!re->ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Invalid pattern: ", pattern, ", error: ", re->error()));
  }
  // As in TensorFlow, a rewrite naming a group the pattern lacks is not an
  // error: RE2 then replaces nothing.
  (void)rewrite;
  return re;
}

void Replace(OpKernelContext* ctx, const RE2& re, const std::string& rewrite,
             bool global) {
  const Tensor& in = ctx->input(0);
  Tensor* out = nullptr;
  DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
  const std::string* s = in.data<std::string>();
  std::string* o = out->data<std::string>();
  for (int64_t i = 0; i < in.NumElements(); ++i) {
    o[i] = s[i];
    if (global) {
      RE2::GlobalReplace(&o[i], re, rewrite);
    } else {
      RE2::Replace(&o[i], re, rewrite);
    }
  }
}

class StaticRegexReplaceOp : public OpKernel {
 public:
  explicit StaticRegexReplaceOp(OpKernelConstruction* c) : OpKernel(c) {
    std::string pattern;
    c->SetStatus(c->GetAttr("pattern", &pattern));
    c->SetStatus(c->GetAttr("rewrite", &rewrite_));
    c->SetStatus(c->GetAttr("replace_global", &global_));
    if (!c->status().ok()) return;
    absl::StatusOr<std::unique_ptr<RE2>> re = Compile(pattern, rewrite_);
    if (!re.ok()) {
      c->SetStatus(re.status());
      return;
    }
    re_ = *std::move(re);
  }
  void Compute(OpKernelContext* ctx) override {
    Replace(ctx, *re_, rewrite_, global_);
  }

 private:
  std::string rewrite_;
  bool global_ = true;
  std::unique_ptr<RE2> re_;
};

class RegexReplaceOp : public OpKernel {
 public:
  explicit RegexReplaceOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("replace_global", &global_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& pattern = ctx->input(1);
    const Tensor& rewrite = ctx->input(2);
    DFX_OP_REQUIRES(ctx, pattern.dims() == 0,
                    absl::InvalidArgumentError(
                        absl::StrCat("Pattern must be scalar, but received ",
                                     pattern.shape().DebugString())));
    DFX_OP_REQUIRES(ctx, rewrite.dims() == 0,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Replacement rewrite must be scalar, but received ",
                        rewrite.shape().DebugString())));
    absl::StatusOr<std::unique_ptr<RE2>> re =
        Compile(pattern.scalar<std::string>(), rewrite.scalar<std::string>());
    DFX_OP_REQUIRES_OK(ctx, re.status());
    Replace(ctx, **re, rewrite.scalar<std::string>(), global_);
  }

 private:
  bool global_ = true;
};

constexpr char kWebSafe[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

std::string Encode(const std::string& in, bool pad) {
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  const auto byte = [&](size_t k) {
    return static_cast<uint32_t>(static_cast<unsigned char>(in[k]));
  };
  size_t i = 0;
  for (; i + 3 <= in.size(); i += 3) {
    const uint32_t v = (byte(i) << 16) | (byte(i + 1) << 8) | byte(i + 2);
    for (int s = 18; s >= 0; s -= 6) out.push_back(kWebSafe[(v >> s) & 63]);
  }
  const size_t rest = in.size() - i;
  if (rest > 0) {
    uint32_t v = byte(i) << 16;
    if (rest == 2) v |= byte(i + 1) << 8;
    out.push_back(kWebSafe[(v >> 18) & 63]);
    out.push_back(kWebSafe[(v >> 12) & 63]);
    if (rest == 2) out.push_back(kWebSafe[(v >> 6) & 63]);
    if (pad) out.append(rest == 1 ? "==" : "=");
  }
  return out;
}

// The 6-bit value of a web-safe base64 character, or -1.
int Value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '-') return 62;
  if (c == '_') return 63;
  return -1;
}

// Decodes four characters into three bytes appended to `out`.
absl::Status DecodeQuad(const char* q, std::string* out) {
  uint32_t v = 0;
  for (int k = 0; k < 4; ++k) {
    const int d = Value(q[k]);
    if (d < 0) {
      return absl::InvalidArgumentError("Invalid character found in base64.");
    }
    v = (v << 6) | static_cast<uint32_t>(d);
  }
  out->push_back(static_cast<char>(v >> 16));
  out->push_back(static_cast<char>((v >> 8) & 0xFF));
  out->push_back(static_cast<char>(v & 0xFF));
  return absl::OkStatus();
}

// As TensorFlow: padding is optional; a final group of one character is an
// error; the unused bits of a final partial group are not checked.
absl::Status Decode(const std::string& in, std::string* out) {
  out->clear();
  if (in.empty()) return absl::OkStatus();
  const char* p = in.data();
  const char* end = in.data() + in.size();
  while (end - p > 4) {
    absl::Status s = DecodeQuad(p, out);
    if (!s.ok()) return s;
    p += 4;
  }
  if (end - p == 4) {
    if (p[2] == '=' && p[3] == '=') {
      end -= 2;
    } else if (p[3] == '=') {
      end -= 1;
    }
  }
  const int remain = static_cast<int>(end - p);
  if (remain == 1) {
    return absl::InvalidArgumentError(
        "Base64 string length cannot be 1 modulo 4.");
  }
  char tail[4] = {'A', 'A', 'A', 'A'};
  for (int k = 0; k < remain; ++k) tail[k] = p[k];
  absl::Status s = DecodeQuad(tail, out);
  if (!s.ok()) return s;
  out->resize(out->size() - 3 + (remain - 1));
  return absl::OkStatus();
}

class EncodeBase64Op : public OpKernel {
 public:
  explicit EncodeBase64Op(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("pad", &pad_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    for (int64_t i = 0; i < in.NumElements(); ++i) {
      out->data<std::string>()[i] = Encode(in.data<std::string>()[i], pad_);
    }
  }

 private:
  bool pad_ = false;
};

class DecodeBase64Op : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    for (int64_t i = 0; i < in.NumElements(); ++i) {
      DFX_OP_REQUIRES_OK(
          ctx, Decode(in.data<std::string>()[i], &out->data<std::string>()[i]));
    }
  }
};

}  // namespace

void RegisterStringRegexBase64Kernels(KernelRegistry* registry) {
  RegisterKernel<StaticRegexReplaceOp>(registry,
                                       KernelDefBuilder("StaticRegexReplace"));
  RegisterKernel<RegexReplaceOp>(registry, KernelDefBuilder("RegexReplace"));
  RegisterKernel<EncodeBase64Op>(registry, KernelDefBuilder("EncodeBase64"));
  RegisterKernel<DecodeBase64Op>(registry, KernelDefBuilder("DecodeBase64"));
}

}  // namespace dfx::strings

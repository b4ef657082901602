// RegexFullMatch, StringSplit (v1), StringNGrams, UnsortedSegmentJoin and
// Fingerprint with TensorFlow 2.21's semantics and errors
// (regex_full_match_op.cc, string_split_op.cc, string_ngrams_op.cc,
// unsorted_segment_join_op.cc, fingerprint_op.cc).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/types.h"
#include "kernels/fingerprint.h"
#include "kernels/strings/string_util.h"
#include "kernels/text/text_util.h"
#include "re2/re2.h"

namespace dfx::text {
namespace {

class RegexFullMatchOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& pattern = ctx->input(1);
    DFX_OP_REQUIRES(ctx, pattern.dims() == 0,
                    absl::InvalidArgumentError(
                        absl::StrCat("Pattern must be scalar, but received ",
                                     pattern.shape().DebugString())));
    const std::string& p = pattern.scalar<std::string>();
    RE2 re(p, RE2::Quiet);
    DFX_OP_REQUIRES(ctx, re.ok(),
                    absl::InvalidArgumentError(absl::StrCat(
                        "Invalid pattern: ", p, ", error: ", re.error())));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
    const std::string* s = input.data<std::string>();
    bool* o = out->data<bool>();
    for (int64_t i = 0; i < input.NumElements(); ++i) {
      o[i] = RE2::FullMatch(s[i], re);
    }
  }
};

// StringSplit (v1): each byte of `delimiter` is a delimiter; an empty
// delimiter splits into single bytes; an empty string has no tokens.
class StringSplitOp : public OpKernel {
 public:
  explicit StringSplitOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("skip_empty", &skip_empty_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& delimiter = ctx->input(1);
    DFX_OP_REQUIRES(ctx, input.dims() == 1,
                    absl::InvalidArgumentError(
                        absl::StrCat("input must be a vector, got shape: ",
                                     input.shape().DebugString())));
    DFX_OP_REQUIRES(ctx, delimiter.dims() == 0,
                    absl::InvalidArgumentError(
                        absl::StrCat("delimiter must be a scalar, got shape: ",
                                     delimiter.shape().DebugString())));
    const std::string& delim = delimiter.scalar<std::string>();
    const int64_t n = input.NumElements();
    std::vector<std::vector<absl::string_view>> tokens(n);
    for (int64_t i = 0; i < n; ++i) {
      Split(input.data<std::string>()[i], delim, &tokens[i]);
    }
    strings::OutputSplitPieces(ctx, tokens);
  }

 private:
  void Split(absl::string_view s, absl::string_view delim,
             std::vector<absl::string_view>* out) const {
    if (s.empty()) return;
    if (delim.empty()) {
      // Every byte is a token (empty ones cannot occur).
      for (size_t i = 0; i < s.size(); ++i) out->push_back(s.substr(i, 1));
      return;
    }
    size_t start = 0;
    while (true) {
      const size_t at = s.find_first_of(delim, start);
      const absl::string_view token = s.substr(
          start,
          at == absl::string_view::npos ? absl::string_view::npos : at - start);
      if (!skip_empty_ || !token.empty()) out->push_back(token);
      if (at == absl::string_view::npos) return;
      start = at + 1;
    }
  }

  bool skip_empty_ = true;
};

class StringNGramsOp : public OpKernel {
 public:
  explicit StringNGramsOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("separator", &separator_));
    c->SetStatus(c->GetAttr("ngram_widths", &widths_));
    c->SetStatus(c->GetAttr("left_pad", &left_pad_));
    c->SetStatus(c->GetAttr("right_pad", &right_pad_));
    c->SetStatus(c->GetAttr("pad_width", &pad_width_));
    c->SetStatus(c->GetAttr("preserve_short_sequences", &preserve_short_));
  }

  void Compute(OpKernelContext* ctx) override {
    for (int64_t w : widths_) {
      DFX_OP_REQUIRES(ctx, w > 0,
                      absl::InvalidArgumentError(
                          "ngram_widths must contain positive values"));
    }
    const Tensor& data = ctx->input(0);
    const Tensor& splits = ctx->input(1);
    const int64_t data_size = data.NumElements();
    const int64_t num_splits = splits.NumElements();
    if (num_splits > 0) {
      int64_t prev = IntAt(splits, 0);
      DFX_OP_REQUIRES(ctx, prev == 0,
                      absl::InvalidArgumentError(absl::StrCat(
                          "First split value must be 0, got ", prev)));
      for (int64_t i = 1; i < num_splits; ++i) {
        const int64_t cur = IntAt(splits, i);
        DFX_OP_REQUIRES(ctx, cur >= prev && cur <= data_size,
                        absl::InvalidArgumentError(absl::StrCat(
                            "Invalid split value ", cur, ", must be in [", prev,
                            ", ", data_size, "]")));
        prev = cur;
      }
      DFX_OP_REQUIRES(ctx, prev == data_size,
                      absl::InvalidArgumentError(absl::StrCat(
                          "Last split value must be data size. Expected ",
                          data_size, ", got ", prev)));
    }
    Tensor* out_splits = nullptr;
    DFX_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(1, splits.shape(), &out_splits));
    if (data_size == 0 || num_splits == 0) {
      Tensor* empty = nullptr;
      DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, data.shape(), &empty));
      for (int64_t i = 0; i < num_splits; ++i) SetInt(out_splits, i, 0);
      return;
    }
    const int64_t batch = num_splits - 1;
    std::vector<int64_t> starts(num_splits, 0);
    for (int64_t i = 1; i <= batch; ++i) {
      const int64_t length = IntAt(splits, i) - IntAt(splits, i - 1);
      int64_t count = 0;
      for (int64_t w : widths_) count += NumNgrams(length, w);
      if (preserve_short_ && length > 0 && count == 0) count = 1;
      starts[i] = starts[i - 1] + count;
    }
    for (int64_t i = 0; i <= batch; ++i) SetInt(out_splits, i, starts[i]);
    Tensor* ngrams = nullptr;
    DFX_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(0, TensorShape({starts[batch]}), &ngrams));
    const std::string* in = data.data<std::string>();
    std::string* out = ngrams->data<std::string>();
    for (int64_t i = 0; i < batch; ++i) {
      const std::string* tokens = in + IntAt(splits, i);
      const int64_t length = IntAt(splits, i + 1) - IntAt(splits, i);
      int64_t at = starts[i];
      for (int64_t w : widths_) {
        const int64_t count = NumNgrams(length, w);
        MakeNgrams(tokens, out + at, count, w);
        at += count;
      }
      if (preserve_short_ && at == starts[i] && length > 0) {
        DFX_OP_REQUIRES(
            ctx, pad_width_ >= 0,
            absl::InvalidArgumentError(absl::StrCat(
                "Pad width should be >= 0 when preserve_short_sequences is "
                "True and ngram_widths are not provided, got ",
                pad_width_)));
        MakeNgrams(tokens, out + at, 1, length + 2 * pad_width_);
      }
    }
  }

 private:
  // Padding is pad_width (or width - 1 when negative), never above
  // width - 1.
  int64_t PadWidth(int64_t width) const {
    return std::min(pad_width_ < 0 ? width - 1 : pad_width_, width - 1);
  }
  int64_t NumNgrams(int64_t length, int64_t width) const {
    return std::max<int64_t>(0, length + 2 * PadWidth(width) - width + 1);
  }

  // Writes `count` ngrams of `width` tokens (pads included) from `tokens`.
  void MakeNgrams(const std::string* tokens, std::string* out, int64_t count,
                  int64_t width) const {
    const int64_t pad = PadWidth(width);
    for (int64_t g = 0; g < count; ++g) {
      const int64_t left = std::max<int64_t>(0, pad - g);
      const int64_t right = std::max<int64_t>(0, pad - (count - (g + 1)));
      const int64_t num_tokens = width - (left + right);
      const int64_t first = left > 0 ? 0 : g - pad;
      std::string& s = out[g];
      for (int64_t n = 0; n < left; ++n)
        absl::StrAppend(&s, left_pad_, separator_);
      for (int64_t n = 0; n + 1 < num_tokens; ++n) {
        absl::StrAppend(&s, tokens[first + n], separator_);
      }
      if (num_tokens > 0) {
        s += tokens[first + num_tokens - 1];
        for (int64_t n = 0; n < right; ++n) {
          absl::StrAppend(&s, separator_, right_pad_);
        }
      } else {
        for (int64_t n = 0; n + 1 < right; ++n) {
          absl::StrAppend(&s, right_pad_, separator_);
        }
        s += right_pad_;
      }
    }
  }

  std::string separator_, left_pad_, right_pad_;
  std::vector<int64_t> widths_;
  int64_t pad_width_ = 0;
  bool preserve_short_ = false;
};

class UnsortedSegmentJoinOp : public OpKernel {
 public:
  explicit UnsortedSegmentJoinOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("separator", &separator_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& ids = ctx->input(1);
    const Tensor& num_tensor = ctx->input(2);
    DFX_OP_REQUIRES(
        ctx, num_tensor.NumElements() != 0,
        absl::InvalidArgumentError("Number of segments cannot be empty."));
    const int64_t num_segments = IntAt(num_tensor, 0);
    const int input_dims = input.dims();
    const int id_dims = ids.dims();
    DFX_OP_REQUIRES(
        ctx, id_dims != 0,
        absl::InvalidArgumentError("Segment_id cannot have rank 0"));
    DFX_OP_REQUIRES(ctx, id_dims <= input_dims,
                    absl::OutOfRangeError(absl::StrCat(
                        "Invalid segment_id rank ", id_dims, " for input with ",
                        input_dims, " dimension(s)")));
    for (int d = 0; d < id_dims; ++d) {
      // TensorFlow's message names the input's rank, not dim d's size.
      DFX_OP_REQUIRES(
          ctx, ids.dim_size(d) == input.dim_size(d),
          absl::InvalidArgumentError(absl::StrCat(
              "Segment dimension is ", ids.dim_size(d),
              " while input dimension is ", input_dims, " in rank ", d)));
    }
    TensorShape out_shape;
    DFX_OP_REQUIRES_OK(ctx, out_shape.AddDim(num_segments));
    int64_t inner = 1;
    for (int d = id_dims; d < input_dims; ++d) {
      DFX_OP_REQUIRES_OK(ctx, out_shape.AddDim(input.dim_size(d)));
      inner *= input.dim_size(d);
    }
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    const int64_t n = ids.NumElements();
    for (int64_t i = 0; i < n; ++i) {
      const int64_t id = IntAt(ids, i);
      DFX_OP_REQUIRES(ctx, id >= 0 && id < num_segments,
                      absl::InvalidArgumentError(
                          "segment_ids are not allowed to exceed num_segments "
                          "or to have negative values."));
    }
    const std::string* in = input.data<std::string>();
    std::string* o = out->data<std::string>();
    // As TensorFlow: a separator goes before a piece whenever the output
    // so far is non-empty, so empty pieces add no separator.
    for (int64_t j = 0; j < inner; ++j) {
      for (int64_t i = 0; i < n; ++i) {
        std::string& dst = o[IntAt(ids, i) * inner + j];
        if (!dst.empty()) dst += separator_;
        dst += in[i * inner + j];
      }
    }
  }

 private:
  std::string separator_;
};

void PutFingerprint(uint64_t fp, uint8_t* out) {
  for (int b = 0; b < 8; ++b) out[b] = static_cast<uint8_t>(fp >> (8 * b));
}

// Fingerprint: FarmHash Fingerprint64 of each row's bytes (dim 0 rows),
// little-endian. A string row of several elements hashes the
// concatenation of its elements' fingerprints.
class FingerprintOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& method = ctx->input(1);
    DFX_OP_REQUIRES(ctx, input.dims() >= 1,
                    absl::InvalidArgumentError(absl::StrCat(
                        "`data` should have at least one dimension: ",
                        input.shape().DebugString())));
    DFX_OP_REQUIRES(ctx, method.dims() == 0,
                    absl::InvalidArgumentError(
                        absl::StrCat("`method` should be a scalar string: ",
                                     method.shape().DebugString())));
    const std::string& m = method.scalar<std::string>();
    DFX_OP_REQUIRES(ctx, m == "farmhash64",
                    absl::InvalidArgumentError(
                        absl::StrCat("Unsupported fingerprint method: ", m)));
    const int64_t rows = input.dim_size(0);
    const int64_t per_row = rows == 0 ? 0 : input.NumElements() / rows;
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(0, TensorShape({rows, 8}), &out));
    uint8_t* o = out->data<uint8_t>();
    if (input.dtype() == DT_STRING) {
      const std::string* s = input.data<std::string>();
      std::string row_bytes(static_cast<size_t>(per_row) * 8, '\0');
      for (int64_t r = 0; r < rows; ++r) {
        if (per_row == 1) {
          PutFingerprint(Fingerprint64(s[r]), o + 8 * r);
          continue;
        }
        for (int64_t k = 0; k < per_row; ++k) {
          PutFingerprint(Fingerprint64(s[r * per_row + k]),
                         reinterpret_cast<uint8_t*>(&row_bytes[8 * k]));
        }
        PutFingerprint(Fingerprint64(row_bytes), o + 8 * r);
      }
      return;
    }
    const int64_t size = DataTypeSize(input.dtype());
    DFX_OP_REQUIRES(ctx, size > 0,
                    absl::UnimplementedError(absl::StrCat(
                        "Fingerprint of ", DataTypeString(input.dtype()))));
    const char* bytes = static_cast<const char*>(input.raw_data());
    const int64_t row_size = per_row * size;
    for (int64_t r = 0; r < rows; ++r) {
      PutFingerprint(
          Fingerprint64(absl::string_view(bytes + r * row_size, row_size)),
          o + 8 * r);
    }
  }
};

}  // namespace

void RegisterTextStringKernels(KernelRegistry* registry) {
  RegisterKernel<RegexFullMatchOp>(registry,
                                   KernelDefBuilder("RegexFullMatch"));
  RegisterKernel<StringSplitOp>(registry, KernelDefBuilder("StringSplit"));
  RegisterKernel<StringNGramsOp>(registry, KernelDefBuilder("StringNGrams"));
  RegisterKernel<UnsortedSegmentJoinOp>(
      registry, KernelDefBuilder("UnsortedSegmentJoin"));
  RegisterKernel<FingerprintOp>(
      registry, KernelDefBuilder("Fingerprint").HostMemory("method"));
}

}  // namespace dfx::text

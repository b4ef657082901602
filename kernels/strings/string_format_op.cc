// StringFormat: a template with each placeholder replaced by one input
// tensor printed as TensorFlow 2.21 prints tensors for tf.print and
// tf.strings.format (its SummarizeValue with print_v2): nested brackets, the
// first and last `summarize` entries of each dim with "..." between, floats
// in the shortest of %.6g / %.9g (%.15g / %.17g for double) that reads back
// to the same value, strings quoted and C-escaped (bytes above 0x7f
// kept), bools as 1 and 0.
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "kernels/math/misc_kernels.h"
#include "runtime/tensor.h"

namespace dfx::misc_internal {
namespace {

// %.{digits}g, widened to {wide} digits when it does not read back exactly,
// as TensorFlow's FloatToBuffer and DoubleToBuffer do.
std::string ShortestG(double v, int digits, int wide, bool is_float) {
  if (std::isnan(v)) return std::signbit(v) ? "-nan" : "nan";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*g", digits, v);
  const bool exact = is_float
                         ? std::strtof(buf, nullptr) == static_cast<float>(v)
                         : std::strtod(buf, nullptr) == v;
  if (!exact) std::snprintf(buf, sizeof(buf), "%.*g", wide, v);
  return buf;
}

template <typename T>
std::string OneElement(const T& v) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, Eigen::half> ||
                std::is_same_v<T, Eigen::bfloat16>) {
    return ShortestG(static_cast<float>(v), FLT_DIG, FLT_DIG + 3, true);
  } else if constexpr (std::is_same_v<T, double>) {
    return ShortestG(v, DBL_DIG, DBL_DIG + 2, false);
  } else if constexpr (std::is_same_v<T, std::string>) {
    return absl::StrCat("\"", absl::Utf8SafeCEscape(v), "\"");
  } else if constexpr (std::is_same_v<T, bool>) {
    return v ? "1" : "0";
  } else {
    return absl::StrCat(static_cast<int64_t>(v));
  }
}

// Between two entries of dim `dim`: a space in the last dim, else newlines
// (one per inner dim) and an indent of dim + 1 spaces.
void DimSpacing(int dim, int num_dims, std::string* out) {
  if (dim == num_dims - 1) {
    out->append(" ");
    return;
  }
  out->append(num_dims - dim - 1, '\n');
  out->append(dim + 1, ' ');
}

template <typename T>
void PrintDim(int dim, const TensorShape& shape, int64_t at_ends,
              const T* data, int64_t offset, std::string* out) {
  const int num_dims = shape.dims();
  if (dim == num_dims) {
    out->append(OneElement(data[offset]));
    return;
  }
  out->append("[");
  const int64_t count = shape.dim_size(dim);
  int64_t stride = 1;
  for (int d = dim + 1; d < num_dims; ++d) stride *= shape.dim_size(d);
  for (int64_t i = 0; i < at_ends && i < count; ++i) {
    if (i > 0) DimSpacing(dim, num_dims, out);
    PrintDim(dim + 1, shape, at_ends, data, offset + stride * i, out);
  }
  if (count > 2 * at_ends) {
    DimSpacing(dim, num_dims, out);
    out->append("...");
  }
  for (int64_t i = std::max(at_ends, count - at_ends); i < count; ++i) {
    DimSpacing(dim, num_dims, out);
    PrintDim(dim + 1, shape, at_ends, data, offset + stride * i, out);
  }
  out->append("]");
}

template <typename T>
std::string Summarize(const Tensor& t, int64_t summarize) {
  const int64_t n = t.NumElements();
  const int64_t limit = summarize < 0 ? n : std::min(summarize, n);
  const T* data = t.data<T>();
  // TensorFlow 2.21 prints nothing of a bool tensor with summarize 0, and
  // "..." for any other scalar with summarize 0.
  if constexpr (std::is_same_v<T, bool>) {
    if (limit == 0) return "";
  }
  if (t.dims() == 0) return limit == 0 ? "..." : OneElement(data[0]);
  std::string out;
  PrintDim<T>(0, t.shape(), limit, data, 0, &out);
  return out;
}

absl::StatusOr<std::string> SummarizeV2(const Tensor& t, int64_t summarize) {
  switch (t.dtype()) {
    case DT_FLOAT: return Summarize<float>(t, summarize);
    case DT_DOUBLE: return Summarize<double>(t, summarize);
    case DT_HALF: return Summarize<Eigen::half>(t, summarize);
    case DT_BFLOAT16: return Summarize<Eigen::bfloat16>(t, summarize);
    case DT_INT8: return Summarize<int8_t>(t, summarize);
    case DT_INT16: return Summarize<int16_t>(t, summarize);
    case DT_INT32: return Summarize<int32_t>(t, summarize);
    case DT_INT64: return Summarize<int64_t>(t, summarize);
    case DT_UINT8: return Summarize<uint8_t>(t, summarize);
    case DT_UINT16: return Summarize<uint16_t>(t, summarize);
    case DT_UINT32: return Summarize<uint32_t>(t, summarize);
    case DT_BOOL: return Summarize<bool>(t, summarize);
    case DT_STRING: return Summarize<std::string>(t, summarize);
    default:
      return absl::UnimplementedError(absl::StrCat(
          "StringFormat: dfx does not print ", DataTypeString(t.dtype()),
          " tensors"));
  }
}

class StringFormatOp : public OpKernel {
 public:
  explicit StringFormatOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string tmpl;
    std::string placeholder;
    ctx->SetStatus(ctx->GetAttr("template", &tmpl));
    ctx->SetStatus(ctx->GetAttr("placeholder", &placeholder));
    ctx->SetStatus(ctx->GetAttr("summarize", &summarize_));
    if (!ctx->status().ok()) return;
    if (placeholder.empty()) {
      // absl::StrSplit by "" splits between characters; TensorFlow's
      // result is not meaningful either, so dfx refuses it.
      ctx->SetStatus(
          absl::InvalidArgumentError("placeholder must not be empty"));
      return;
    }
    pieces_ = absl::StrSplit(tmpl, placeholder);
    const int64_t placeholders = static_cast<int64_t>(pieces_.size()) - 1;
    if (placeholders != ctx->num_inputs()) {
      ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
          "num placeholders in template and num inputs must match: ",
          placeholders, " vs. ", ctx->num_inputs())));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    std::string result;
    for (int i = 0; i < num_inputs(); ++i) {
      absl::StatusOr<std::string> s = SummarizeV2(ctx->input(i), summarize_);
      DFX_OP_REQUIRES_OK(ctx, s.status());
      absl::StrAppend(&result, pieces_[i], *s);
    }
    absl::StrAppend(&result, pieces_.back());
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({}), &out));
    out->data<std::string>()[0] = std::move(result);
  }

 private:
  int64_t summarize_ = 3;
  std::vector<std::string> pieces_;
};

}  // namespace

void RegisterStringFormatKernels(KernelRegistry* registry) {
  RegisterKernel<StringFormatOp>(registry, KernelDefBuilder("StringFormat"));
}

}  // namespace dfx::misc_internal

// StringToNumber and AsString with TensorFlow 2.21's semantics
// (string_to_number_op.cc with strings::SafeStringToNumeric, and
// as_string_op.cc's "%<fill>*.*<conversion>" formats).
#include <complex>
#include <cstdint>
#include <string>

#include "Eigen/Core"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/status_macros.h"
#include "kernels/strings/string_util.h"

namespace dfx::strings {
namespace {

constexpr char kErrorMessage[] =
    "StringToNumberOp could not correctly convert string: ";

// TensorFlow 2.21's safe_strtof/safe_strtod are absl's SimpleAtof/
// SimpleAtod: surrounding whitespace, "inf"/"infinity"/"nan" in any case,
// hex after "0x"; overflow gives an infinity and underflow zero.
template <typename T>
bool ParseNumber(absl::string_view s, T* out) {
  if constexpr (std::is_same_v<T, float>) {
    return absl::SimpleAtof(s, out);
  } else if constexpr (std::is_same_v<T, double>) {
    return absl::SimpleAtod(s, out);
  } else {
    return absl::SimpleAtoi(s, out);
  }
}

template <typename T>
class StringToNumberOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    const std::string* s = in.data<std::string>();
    T* o = out->data<T>();
    for (int64_t i = 0; i < in.NumElements(); ++i) {
      DFX_OP_REQUIRES(
          ctx, ParseNumber(s[i], &o[i]),
          absl::InvalidArgumentError(absl::StrCat(kErrorMessage, s[i])));
    }
  }
};

bool IsFloating(DataType t) {
  return t == DT_FLOAT || t == DT_DOUBLE || t == DT_HALF || t == DT_BFLOAT16;
}
bool IsComplex(DataType t) { return t == DT_COMPLEX64 || t == DT_COMPLEX128; }
bool IsUnsigned(DataType t) {
  return t == DT_UINT8 || t == DT_UINT16 || t == DT_UINT32 || t == DT_UINT64;
}
bool IsSigned(DataType t) {
  return t == DT_INT8 || t == DT_INT16 || t == DT_INT32 || t == DT_INT64;
}

using FloatFormat = absl::ParsedFormat<
    absl::FormatConversionCharSet::kStar, absl::FormatConversionCharSet::kStar,
    absl::FormatConversionCharSet::g | absl::FormatConversionCharSet::e |
        absl::FormatConversionCharSet::f>;
using IntFormat = absl::ParsedFormat<
    absl::FormatConversionCharSet::kStar, absl::FormatConversionCharSet::kStar,
    absl::FormatConversionCharSet::u | absl::FormatConversionCharSet::d>;
using StrFormat = absl::ParsedFormat<absl::FormatConversionCharSet::kStar,
                                     absl::FormatConversionCharSet::kStar,
                                     absl::FormatConversionCharSet::s>;

// "%<fill><width>.<precision><conversion>" of each element; bools as
// "true"/"false"; strings pass through unless a width pads them.
class AsStringOp : public OpKernel {
 public:
  explicit AsStringOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(Init(c));
  }

 private:
  absl::Status Init(OpKernelConstruction* c) {
    DataType dtype;
    bool scientific = false, shortest = false;
    std::string fill;
    int64_t precision = -1, width = -1;
    DFX_RETURN_IF_ERROR(c->GetAttr("T", &dtype));
    DFX_RETURN_IF_ERROR(c->GetAttr("precision", &precision));
    DFX_RETURN_IF_ERROR(c->GetAttr("scientific", &scientific));
    DFX_RETURN_IF_ERROR(c->GetAttr("shortest", &shortest));
    DFX_RETURN_IF_ERROR(c->GetAttr("width", &width));
    DFX_RETURN_IF_ERROR(c->GetAttr("fill", &fill));
    precision_ = static_cast<int>(precision);
    width_ = static_cast<int>(width);
    if (dtype != DT_STRING && !IsFloating(dtype) && !IsComplex(dtype)) {
      if (scientific || shortest) {
        return absl::InvalidArgumentError(absl::StrCat(
            "scientific and shortest format not supported for datatype ",
            DataTypeString(dtype)));
      }
      if (precision_ >= 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "precision not supported for datatype ", DataTypeString(dtype)));
      }
    }
    if (fill.size() > 1) {
      return absl::InvalidArgumentError(
          "Fill string must be one or fewer characters");
    }
    if (scientific && shortest) {
      return absl::InvalidArgumentError(
          "Cannot select both scientific and shortest notation");
    }
    if (!fill.empty() && !absl::StrContains(" +-0#", fill[0])) {
      return absl::InvalidArgumentError(
          absl::StrCat("Fill argument not supported: \"", fill, "\""));
    }
    if (width_ <= -1) width_ = 0;
    if (dtype == DT_STRING && width_ <= 0) return absl::OkStatus();
    char conversion;
    if (dtype == DT_STRING) {
      conversion = 's';
    } else if (IsUnsigned(dtype)) {
      conversion = 'u';
    } else if (IsSigned(dtype)) {
      conversion = 'd';
    } else if (IsFloating(dtype) || IsComplex(dtype)) {
      conversion = shortest ? 'g' : scientific ? 'e' : 'f';
    } else if (dtype == DT_BOOL) {
      return absl::OkStatus();
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("Type not supported: ", DataTypeString(dtype)));
    }
    const std::string format =
        absl::StrCat("%", fill, "*.*", std::string(1, conversion));
    bool ok = true;
    if (conversion == 's') {
      str_format_ = StrFormat::New(format);
      ok = str_format_ != nullptr;
    } else if (conversion == 'u' || conversion == 'd') {
      int_format_ = IntFormat::New(format);
      ok = int_format_ != nullptr;
    } else {
      float_format_ = FloatFormat::New(format);
      ok = float_format_ != nullptr;
    }
    if (!ok)
      return absl::InvalidArgumentError(
          absl::StrCat("Invalid format: ", format));
    return absl::OkStatus();
  }

 public:
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    if (in.dtype() == DT_STRING && str_format_ == nullptr) {
      ctx->set_output(0, in);
      return;
    }
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    std::string* o = out->data<std::string>();
    const int64_t n = in.NumElements();
    auto ints = [&]<typename T>() {
      for (int64_t i = 0; i < n; ++i) {
        o[i] =
            absl::StrFormat(*int_format_, width_, precision_, in.data<T>()[i]);
      }
    };
    auto floats = [&]<typename T>() {
      for (int64_t i = 0; i < n; ++i) {
        o[i] = Float(in.data<T>()[i]);
      }
    };
    auto complexes = [&]<typename T>() {
      for (int64_t i = 0; i < n; ++i) {
        const T v = in.data<T>()[i];
        o[i] = absl::StrCat("(", Float(v.real()), ",", Float(v.imag()), ")");
      }
    };
    switch (in.dtype()) {
      case DT_BOOL:
        for (int64_t i = 0; i < n; ++i) {
          o[i] = in.data<bool>()[i] ? "true" : "false";
        }
        break;
      case DT_STRING:
        for (int64_t i = 0; i < n; ++i) {
          o[i] = absl::StrFormat(*str_format_, width_, precision_,
                                 in.data<std::string>()[i]);
        }
        break;
      case DT_UINT8:
        ints.operator()<uint8_t>();
        break;
      case DT_UINT16:
        ints.operator()<uint16_t>();
        break;
      case DT_UINT32:
        ints.operator()<uint32_t>();
        break;
      case DT_UINT64:
        ints.operator()<uint64_t>();
        break;
      case DT_INT8:
        ints.operator()<int8_t>();
        break;
      case DT_INT16:
        ints.operator()<int16_t>();
        break;
      case DT_INT32:
        ints.operator()<int32_t>();
        break;
      case DT_INT64:
        ints.operator()<int64_t>();
        break;
      case DT_FLOAT:
        floats.operator()<float>();
        break;
      case DT_DOUBLE:
        floats.operator()<double>();
        break;
      case DT_HALF:
        floats.operator()<Eigen::half>();
        break;
      case DT_BFLOAT16:
        floats.operator()<Eigen::bfloat16>();
        break;
      case DT_COMPLEX64:
        complexes.operator()<std::complex<float>>();
        break;
      case DT_COMPLEX128:
        complexes.operator()<std::complex<double>>();
        break;
      default:
        ctx->SetStatus(absl::InvalidArgumentError(absl::StrCat(
            "Cannot encode input of type ", DataTypeString(in.dtype()))));
    }
  }

 private:
  template <typename T>
  std::string Float(T v) const {
    if constexpr (std::is_same_v<T, double>) {
      return absl::StrFormat(*float_format_, width_, precision_, v);
    } else {
      // float, half and bfloat16 print as TensorFlow passes them: a float.
      return absl::StrFormat(*float_format_, width_, precision_,
                             static_cast<float>(v));
    }
  }

  int precision_ = -1;
  int width_ = -1;
  std::unique_ptr<StrFormat> str_format_;
  std::unique_ptr<IntFormat> int_format_;
  std::unique_ptr<FloatFormat> float_format_;
};

}  // namespace

void RegisterStringConvertKernels(KernelRegistry* registry) {
  RegisterKernel<StringToNumberOp<float>>(
      registry,
      KernelDefBuilder("StringToNumber").TypeConstraint<float>("out_type"));
  RegisterKernel<StringToNumberOp<double>>(
      registry,
      KernelDefBuilder("StringToNumber").TypeConstraint<double>("out_type"));
  RegisterKernel<StringToNumberOp<int32_t>>(
      registry,
      KernelDefBuilder("StringToNumber").TypeConstraint<int32_t>("out_type"));
  RegisterKernel<StringToNumberOp<int64_t>>(
      registry,
      KernelDefBuilder("StringToNumber").TypeConstraint<int64_t>("out_type"));
  RegisterKernel<StringToNumberOp<uint32_t>>(
      registry,
      KernelDefBuilder("StringToNumber").TypeConstraint<uint32_t>("out_type"));
  RegisterKernel<StringToNumberOp<uint64_t>>(
      registry,
      KernelDefBuilder("StringToNumber").TypeConstraint<uint64_t>("out_type"));
  // Every type of the OpDef but variant.
  RegisterKernel<AsStringOp>(
      registry, KernelDefBuilder("AsString")
                    .TypeConstraint(
                        "T", {DT_FLOAT, DT_DOUBLE, DT_INT32, DT_UINT8, DT_INT16,
                              DT_INT8, DT_INT64, DT_BFLOAT16, DT_UINT16,
                              DT_HALF, DT_UINT32, DT_UINT64, DT_COMPLEX64,
                              DT_COMPLEX128, DT_BOOL, DT_STRING}));
}

}  // namespace dfx::strings

// Element conversion and accumulation types of the xla1 family's
// contractions (kernels/xla/xla_array_dot.cc, xla_array_conv.cc): XlaDotV2
// and XlaConvV2 convert each operand to preferred_element_type first.
// Internal to kernels/xla/.
#ifndef DFX_KERNELS_XLA_XLA_ARRAY_CONVERT_H_
#define DFX_KERNELS_XLA_XLA_ARRAY_CONVERT_H_

#include <complex>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "runtime/op_kernel.h"
#include "runtime/types.h"

namespace dfx::xla_array {

// Operand elements widened for conversion: one of four kinds.
struct Wide {
  enum Kind { kSigned, kUnsigned, kFloat, kComplex } kind = kFloat;
  std::vector<int64_t> s;
  std::vector<uint64_t> u;
  std::vector<double> f;
  std::vector<std::complex<double>> c;
};

template <typename S>
void Widen(const Tensor& t, Wide* w) {
  const S* p = t.data<S>();
  const int64_t n = t.NumElements();
  if constexpr (std::is_same_v<S, std::complex<float>> ||
                std::is_same_v<S, std::complex<double>>) {
    w->kind = Wide::kComplex;
    w->c.assign(p, p + n);
  } else if constexpr (std::is_integral_v<S> && std::is_signed_v<S>) {
    w->kind = Wide::kSigned;
    w->s.assign(p, p + n);
  } else if constexpr (std::is_integral_v<S>) {
    w->kind = Wide::kUnsigned;
    w->u.assign(p, p + n);
  } else {
    w->kind = Wide::kFloat;
    w->f.resize(n);
    for (int64_t i = 0; i < n; ++i) w->f[i] = static_cast<double>(p[i]);
  }
}

// Calls fn.template operator()<T>() for the types of XlaDot's T (the
// number types but the quantized ones); false for any other.
template <typename Fn>
bool VisitDotType(DataType dtype, Fn&& fn) {
  switch (dtype) {
    case DT_FLOAT:
      fn.template operator()<float>();
      return true;
    case DT_DOUBLE:
      fn.template operator()<double>();
      return true;
    case DT_HALF:
      fn.template operator()<Eigen::half>();
      return true;
    case DT_BFLOAT16:
      fn.template operator()<Eigen::bfloat16>();
      return true;
    case DT_INT8:
      fn.template operator()<int8_t>();
      return true;
    case DT_INT16:
      fn.template operator()<int16_t>();
      return true;
    case DT_INT32:
      fn.template operator()<int32_t>();
      return true;
    case DT_INT64:
      fn.template operator()<int64_t>();
      return true;
    case DT_UINT8:
      fn.template operator()<uint8_t>();
      return true;
    case DT_UINT16:
      fn.template operator()<uint16_t>();
      return true;
    case DT_UINT32:
      fn.template operator()<uint32_t>();
      return true;
    case DT_UINT64:
      fn.template operator()<uint64_t>();
      return true;
    case DT_COMPLEX64:
      fn.template operator()<std::complex<float>>();
      return true;
    case DT_COMPLEX128:
      fn.template operator()<std::complex<double>>();
      return true;
    default:
      return false;
  }
}

template <typename T>
constexpr bool kIsComplex = std::is_same_v<T, std::complex<float>> ||
                            std::is_same_v<T, std::complex<double>>;

// A double to an integer type: truncated, saturated, NaN to 0.
template <typename T>
T FloatToInt(double v) {
  if (v != v) return T(0);
  if (v <= static_cast<double>(std::numeric_limits<T>::lowest())) {
    return std::numeric_limits<T>::lowest();
  }
  if (v >= static_cast<double>(std::numeric_limits<T>::max())) {
    return std::numeric_limits<T>::max();
  }
  return static_cast<T>(v);
}

template <typename T>
std::vector<T> Narrow(const Wide& w) {
  std::vector<T> out;
  auto put = [&](auto&& values, auto&& fn) {
    out.reserve(values.size());
    for (const auto& v : values) out.push_back(fn(v));
  };
  switch (w.kind) {
    case Wide::kComplex:
      if constexpr (kIsComplex<T>) {
        put(w.c, [](std::complex<double> v) { return T(v); });
      } else if constexpr (std::is_integral_v<T>) {
        put(w.c,
            [](std::complex<double> v) { return FloatToInt<T>(v.real()); });
      } else {
        put(w.c,
            [](std::complex<double> v) { return static_cast<T>(v.real()); });
      }
      break;
    case Wide::kFloat:
      if constexpr (kIsComplex<T>) {
        put(w.f,
            [](double v) { return T(static_cast<typename T::value_type>(v)); });
      } else if constexpr (std::is_integral_v<T>) {
        put(w.f, [](double v) { return FloatToInt<T>(v); });
      } else {
        put(w.f, [](double v) { return static_cast<T>(v); });
      }
      break;
    case Wide::kSigned:
      if constexpr (kIsComplex<T>) {
        put(w.s, [](int64_t v) {
          return T(static_cast<typename T::value_type>(v));
        });
      } else if constexpr (std::is_integral_v<T>) {
        put(w.s, [](int64_t v) { return static_cast<T>(v); });
      } else {
        put(w.s,
            [](int64_t v) { return static_cast<T>(static_cast<float>(v)); });
      }
      break;
    case Wide::kUnsigned:
      if constexpr (kIsComplex<T>) {
        put(w.u, [](uint64_t v) {
          return T(static_cast<typename T::value_type>(v));
        });
      } else if constexpr (std::is_integral_v<T>) {
        put(w.u, [](uint64_t v) { return static_cast<T>(v); });
      } else {
        put(w.u,
            [](uint64_t v) { return static_cast<T>(static_cast<float>(v)); });
      }
      break;
  }
  return out;
}

// The accumulator of a contraction of T: float for half and bfloat16,
// unsigned 64-bit for integers (so that overflow wraps, as XLA's does), T
// otherwise.
template <typename T>
using Acc = std::conditional_t<
    std::is_same_v<T, Eigen::half> || std::is_same_v<T, Eigen::bfloat16>, float,
    std::conditional_t<std::is_integral_v<T>, uint64_t, T>>;

// `t`'s elements as T (a copy when t holds T already).
template <typename T>
std::vector<T> ConvertTo(const Tensor& t) {
  if (t.dtype() == DataTypeToEnum<T>::value) {
    return std::vector<T>(t.data<T>(), t.data<T>() + t.NumElements());
  }
  Wide w;
  VisitDotType(t.dtype(), [&]<typename S>() { Widen<S>(t, &w); });
  return Narrow<T>(w);
}

}  // namespace dfx::xla_array

#endif  // DFX_KERNELS_XLA_XLA_ARRAY_CONVERT_H_

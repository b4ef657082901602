#include "tests/golden/golden_util.h"

#include <cmath>
#include <complex>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "base/logging.h"
#include "runtime/quantized_types.h"
#include "runtime/types.h"
#include "tools/cli/npy.h"

namespace dfx::golden {

namespace fs = std::filesystem;

absl::StatusOr<nlohmann::json> ReadJson(const fs::path& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot open ", path.string()));
  nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    return absl::InvalidArgumentError(absl::StrCat("bad JSON in ", path.string()));
  }
  return j;
}

absl::StatusOr<Tensor> ReadTensorFile(const fs::path& path) {
  if (path.extension() != ".json") return cli::ReadNpyFile(path.string());
  absl::StatusOr<nlohmann::json> j = ReadJson(path);
  if (!j.ok()) return j.status();
  const auto& items = (*j)["base64"];
  TensorShape shape;
  for (int64_t d : (*j)["shape"].get<std::vector<int64_t>>()) {
    if (absl::Status s = shape.AddDim(d); !s.ok()) return s;
  }
  if (static_cast<int64_t>(items.size()) != shape.num_elements()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path.string(), ": ", items.size(),
                     " strings for shape ", shape.DebugString()));
  }
  Tensor t(DT_STRING, shape);
  for (size_t i = 0; i < items.size(); ++i) {
    if (!absl::Base64Unescape(items[i].get<std::string>(),
                              &t.data<std::string>()[i])) {
      return absl::InvalidArgumentError(
          absl::StrCat(path.string(), ": bad base64 in element ", i));
    }
  }
  return t;
}

double ElementAsDouble(const Tensor& t, int64_t i) {
  double v = 0;
  bool known = VisitNumericType(t.dtype(), [&]<typename T>() {
    v = static_cast<double>(t.data<T>()[i]);
  });
  if (!known) {
    known = VisitQuantizedType(t.dtype(), [&]<typename Q>() {
      v = static_cast<double>(t.data<Q>()[i].value);
    });
  }
  DFX_CHECK(known);
  return v;
}

std::string NumpyName(DataType dtype) {
  switch (dtype) {
    case DT_FLOAT: return "float32";
    case DT_DOUBLE: return "float64";
    case DT_HALF: return "float16";
    case DT_BFLOAT16: return "bfloat16";
    case DT_INT8: return "int8";
    case DT_INT16: return "int16";
    case DT_INT32: return "int32";
    case DT_INT64: return "int64";
    case DT_UINT8: return "uint8";
    case DT_UINT16: return "uint16";
    case DT_UINT32: return "uint32";
    case DT_UINT64: return "uint64";
    case DT_BOOL: return "bool";
    case DT_STRING: return "string";
    default: return DataTypeString(dtype);
  }
}

absl::StatusOr<Tensor> ComplexFromPairs(const Tensor& pairs,
                                        DataType dtype) {
  const int dims = pairs.dims();
  if (dims == 0 || pairs.dim_size(dims - 1) != 2 ||
      (pairs.dtype() != DT_FLOAT && pairs.dtype() != DT_DOUBLE)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "complex values must be stored as float pairs [..., 2], got ",
        DataTypeString(pairs.dtype()), " ", pairs.shape().DebugString()));
  }
  TensorShape shape;
  for (int i = 0; i + 1 < dims; ++i) {
    if (absl::Status s = shape.AddDim(pairs.dim_size(i)); !s.ok()) return s;
  }
  Tensor t(dtype, shape);
  for (int64_t i = 0; i < shape.num_elements(); ++i) {
    const double re = ElementAsDouble(pairs, 2 * i);
    const double im = ElementAsDouble(pairs, 2 * i + 1);
    if (dtype == DT_COMPLEX64) {
      t.data<std::complex<float>>()[i] = std::complex<float>(
          static_cast<float>(re), static_cast<float>(im));
    } else {
      t.data<std::complex<double>>()[i] = std::complex<double>(re, im);
    }
  }
  return t;
}

absl::StatusOr<Tensor> QuantizedFromStorage(const Tensor& storage,
                                            DataType dtype) {
  const DataType want = dtype == DT_QINT8    ? DT_INT8
                        : dtype == DT_QUINT8  ? DT_UINT8
                        : dtype == DT_QINT16  ? DT_INT16
                        : dtype == DT_QUINT16 ? DT_UINT16
                        : dtype == DT_QINT32  ? DT_INT32
                                              : DT_INVALID;
  if (want == DT_INVALID || storage.dtype() != want) {
    return absl::InvalidArgumentError(absl::StrCat(
        DataTypeString(dtype), " values must be stored as ",
        DataTypeString(want), ", got ", DataTypeString(storage.dtype())));
  }
  Tensor t(dtype, storage.shape());
  if (t.TotalBytes() > 0) {
    std::memcpy(t.raw_data(), storage.raw_data(), t.TotalBytes());
  }
  return t;
}

namespace {

// got is complex; want holds its (real, imaginary) pairs. Each part must be
// within atol + rtol * |want| of TensorFlow's (|want| the complex modulus,
// so that a small part of a large value is judged on the value's scale).
std::string CompareComplex(const Tensor& got, const Tensor& want, double rtol,
                           double atol) {
  int64_t bad = 0;
  std::string first;
  for (int64_t i = 0; i < got.NumElements(); ++i) {
    std::complex<double> g;
    if (got.dtype() == DT_COMPLEX64) {
      g = std::complex<double>(got.data<std::complex<float>>()[i]);
    } else {
      g = got.data<std::complex<double>>()[i];
    }
    const std::complex<double> w(ElementAsDouble(want, 2 * i),
                                 ElementAsDouble(want, 2 * i + 1));
    // The scale of w from its finite parts, so that a NaN or infinite part
    // does not make the other part's tolerance NaN or infinite.
    const double re_scale = std::isfinite(w.real()) ? w.real() : 0.0;
    const double im_scale = std::isfinite(w.imag()) ? w.imag() : 0.0;
    const double limit = atol + rtol * std::hypot(re_scale, im_scale);
    auto part_ok = [&](double gp, double wp) {
      if (std::isnan(wp)) return std::isnan(gp);
      if (std::isinf(wp)) return gp == wp;
      return std::fabs(gp - wp) <= limit;
    };
    if (part_ok(g.real(), w.real()) && part_ok(g.imag(), w.imag())) continue;
    if (bad++ == 0) {
      std::ostringstream s;
      s.precision(9);
      s << "element " << i << ": dfx " << g << ", TensorFlow " << w;
      first = s.str();
    }
  }
  if (bad == 0) return "";
  return absl::StrCat(bad, " of ", got.NumElements(),
                      " complex elements differ (rtol ", rtol, ", atol ", atol,
                      "); first ", first);
}

}  // namespace

std::string Compare(const Tensor& got, const Tensor& want,
                    const std::string& want_dtype, double rtol, double atol) {
  if (NumpyName(got.dtype()) != want_dtype) {
    return absl::StrCat("dtype ", NumpyName(got.dtype()), ", TensorFlow ",
                        want_dtype);
  }
  if (got.dtype() == DT_COMPLEX64 || got.dtype() == DT_COMPLEX128) {
    // golden_lib stores complex values as (real, imaginary) pairs.
    bool same = want.dims() == got.dims() + 1 &&
                want.dim_size(got.dims()) == 2;
    for (int i = 0; same && i < got.dims(); ++i) {
      same = got.dim_size(i) == want.dim_size(i);
    }
    if (!same) {
      return absl::StrCat("shape ", got.shape().DebugString(),
                          ", TensorFlow (as pairs) ",
                          want.shape().DebugString());
    }
  } else if (got.shape() != want.shape()) {
    return absl::StrCat("shape ", got.shape().DebugString(), ", TensorFlow ",
                        want.shape().DebugString());
  }
  if (got.dtype() == DT_COMPLEX64 || got.dtype() == DT_COMPLEX128) {
    return CompareComplex(got, want, rtol, atol);
  }
  int64_t bad = 0;
  std::string first;
  if (want.dtype() == DT_STRING) {
    for (int64_t i = 0; i < want.NumElements(); ++i) {
      const std::string& g = got.data<std::string>()[i];
      const std::string& w = want.data<std::string>()[i];
      if (g == w) continue;
      if (bad++ == 0) {
        first = absl::StrCat("element ", i, ": dfx \"", absl::CHexEscape(g),
                             "\", TensorFlow \"", absl::CHexEscape(w), "\"");
      }
    }
    if (bad == 0) return "";
    return absl::StrCat(bad, " of ", want.NumElements(),
                        " strings differ; first ", first);
  }
  // 64-bit integers exactly: as doubles, values past 2^53 would merge.
  if ((want.dtype() == DT_INT64 || want.dtype() == DT_UINT64) && rtol == 0 &&
      atol == 0) {
    auto exact = [&](auto tag) {
      using T = decltype(tag);
      const T* g = got.data<T>();
      const T* w = want.data<T>();
      for (int64_t i = 0; i < want.NumElements(); ++i) {
        if (g[i] == w[i]) continue;
        if (bad++ == 0) {
          first = absl::StrCat("element ", i, ": dfx ", g[i], ", TensorFlow ",
                               w[i]);
        }
      }
    };
    if (want.dtype() == DT_INT64) {
      exact(int64_t{});
    } else {
      exact(uint64_t{});
    }
    if (bad == 0) return "";
    return absl::StrCat(bad, " of ", want.NumElements(),
                        " elements differ; first ", first);
  }
  for (int64_t i = 0; i < want.NumElements(); ++i) {
    const double g = ElementAsDouble(got, i);
    const double w = ElementAsDouble(want, i);
    bool ok;
    if (std::isnan(w)) {
      ok = std::isnan(g);
    } else if (std::isinf(w)) {
      ok = g == w;
    } else {
      ok = std::fabs(g - w) <= atol + rtol * std::fabs(w);
    }
    if (!ok) {
      if (bad == 0) {
        std::ostringstream s;
        s.precision(9);
        s << "element " << i << ": dfx " << g << ", TensorFlow " << w;
        first = s.str();
      }
      ++bad;
    }
  }
  if (bad == 0) return "";
  return absl::StrCat(bad, " of ", want.NumElements(),
                      " elements differ (rtol ", rtol, ", atol ", atol,
                      "); first ", first);
}

}  // namespace dfx::golden

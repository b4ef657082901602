#include "tools/cli/json_tensor.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "nlohmann/json.hpp"
#include "tools/cli/internal/elements.h"

namespace dfx::cli {
namespace {

using nlohmann::json;

std::string PathString(const std::vector<int64_t>& path) {
  std::string out;
  for (int64_t i : path) absl::StrAppend(&out, "[", i, "]");
  return out;
}

// Short text of a JSON value for error messages.
std::string Describe(const json& value) {
  std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return text;
}

std::string KindName(const json& value) {
  if (value.is_array()) return "an array";
  if (value.is_object()) return "an object";
  if (value.is_string()) return absl::StrCat("the string ", Describe(value));
  if (value.is_boolean()) return absl::StrCat("the bool ", Describe(value));
  if (value.is_null()) return "null";
  return absl::StrCat("the number ", Describe(value));
}

class Converter {
 public:
  Converter(DataType dtype, TensorShape shape)
      : dtype_(dtype), shape_(std::move(shape)) {}

  template <typename T>
  absl::Status Fill(const json& root, Tensor* out) {
    Tensor t(dtype_, shape_);
    T* data = t.data<T>();
    int64_t next = 0;
    std::vector<int64_t> path;
    absl::Status s = Walk<T>(root, 0, &path, data, &next);
    if (!s.ok()) return s;
    *out = std::move(t);
    return absl::OkStatus();
  }

 private:
  absl::Status Error(const std::vector<int64_t>& path,
                     absl::string_view what) const {
    return absl::InvalidArgumentError(absl::StrCat(
        path.empty() ? std::string("value") : "element " + PathString(path),
        ": ", what));
  }

  template <typename T>
  absl::Status Walk(const json& node, int depth, std::vector<int64_t>* path,
                    T* data, int64_t* next) {
    if (depth < shape_.dims()) {
      const int64_t want = shape_.dim_size(depth);
      if (!node.is_array() || static_cast<int64_t>(node.size()) != want) {
        return Error(*path, absl::StrCat(
            "ragged array: expected an array of ", want, " elements (shape ",
            shape_.DebugString(), " from the first elements), found ",
            node.is_array() ? absl::StrCat("an array of ", node.size(),
                                           " elements")
                            : KindName(node)));
      }
      for (int64_t i = 0; i < want; ++i) {
        path->push_back(i);
        absl::Status s = Walk<T>(node[static_cast<size_t>(i)], depth + 1, path,
                                 data, next);
        if (!s.ok()) return s;
        path->pop_back();
      }
      return absl::OkStatus();
    }
    if (node.is_array()) {
      return Error(*path, absl::StrCat(
          "ragged array: expected a ", NumpyDtypeName(dtype_),
          " value (shape ", shape_.DebugString(),
          " from the first elements), found an array"));
    }
    return Convert<T>(node, *path, &data[(*next)++]);
  }

  template <typename T>
  absl::Status Convert(const json& node, const std::vector<int64_t>& path,
                       T* out) const {
    const std::string type = NumpyDtypeName(dtype_);
    if constexpr (std::is_same_v<T, bool>) {
      if (!node.is_boolean()) {
        return Error(path, absl::StrCat("expected true or false for dtype bool, "
                                        "found ", KindName(node)));
      }
      *out = node.get<bool>();
      return absl::OkStatus();
    } else if constexpr (std::is_same_v<T, std::string>) {
      // A text model's raw input: the string's UTF-8 bytes.
      if (!node.is_string()) {
        return Error(path, absl::StrCat("expected a string for dtype string, "
                                        "found ", KindName(node)));
      }
      *out = node.get<std::string>();
      return absl::OkStatus();
    } else if constexpr (std::is_floating_point_v<T>) {
      if (node.is_string()) {
        const std::string& s = node.get_ref<const std::string&>();
        if (s == "NaN") {
          *out = std::numeric_limits<T>::quiet_NaN();
        } else if (s == "Infinity") {
          *out = std::numeric_limits<T>::infinity();
        } else if (s == "-Infinity") {
          *out = -std::numeric_limits<T>::infinity();
        } else {
          return Error(path, absl::StrCat(
              "expected a number for dtype ", type, ", found ", KindName(node),
              " (only \"NaN\", \"Infinity\", \"-Infinity\" are accepted as "
              "strings)"));
        }
        return absl::OkStatus();
      }
      if (!node.is_number()) {
        return Error(path, absl::StrCat("expected a number for dtype ", type,
                                        ", found ", KindName(node)));
      }
      const double d = node.get<double>();
      // Text just above the largest float32 (its shortest form,
      // "3.4028235e+38") still rounds to it; only overflow to inf is out of
      // range.
      if (!std::isfinite(d) || std::isinf(static_cast<T>(d))) {
        return Error(path, absl::StrCat(Describe(node),
                                        " is out of range for dtype ", type));
      }
      *out = static_cast<T>(d);
      return absl::OkStatus();
    } else if constexpr (std::is_integral_v<T>) {
      if (!node.is_number()) {
        return Error(path, absl::StrCat("expected an integer for dtype ", type,
                                        ", found ", KindName(node)));
      }
      const auto out_of_range = [&] {
        return Error(path, absl::StrCat(Describe(node),
                                        " is out of range for dtype ", type));
      };
      if (node.is_number_unsigned()) {
        const uint64_t v = node.get<uint64_t>();
        if (v > static_cast<uint64_t>(std::numeric_limits<T>::max())) {
          return out_of_range();
        }
        *out = static_cast<T>(v);
        return absl::OkStatus();
      }
      if (node.is_number_integer()) {
        const int64_t v = node.get<int64_t>();
        if constexpr (std::is_unsigned_v<T>) {
          if (v < 0 || static_cast<uint64_t>(v) >
                           static_cast<uint64_t>(std::numeric_limits<T>::max())) {
            return out_of_range();
          }
        } else {
          if (v < static_cast<int64_t>(std::numeric_limits<T>::min()) ||
              v > static_cast<int64_t>(std::numeric_limits<T>::max())) {
            return out_of_range();
          }
        }
        *out = static_cast<T>(v);
        return absl::OkStatus();
      }
      const double d = node.get<double>();
      if (!std::isfinite(d) || d != std::trunc(d)) {
        return Error(path, absl::StrCat(Describe(node),
                                        " is not an integer (dtype ", type,
                                        ")"));
      }
      // 2^63 and 2^64 are exact doubles; compare in double before casting.
      constexpr double kTwo63 = 9223372036854775808.0;
      if constexpr (std::is_unsigned_v<T>) {
        if (d < 0 || d >= 2 * kTwo63 ||
            static_cast<uint64_t>(d) >
                static_cast<uint64_t>(std::numeric_limits<T>::max())) {
          return out_of_range();
        }
        *out = static_cast<T>(static_cast<uint64_t>(d));
      } else {
        if (d < -kTwo63 || d >= kTwo63) return out_of_range();
        const int64_t v = static_cast<int64_t>(d);
        if (v < static_cast<int64_t>(std::numeric_limits<T>::min()) ||
            v > static_cast<int64_t>(std::numeric_limits<T>::max())) {
          return out_of_range();
        }
        *out = static_cast<T>(v);
      }
      return absl::OkStatus();
    } else {
      return Error(path, absl::StrCat("dtype ", type,
                                      " cannot be given as JSON"));
    }
  }

  const DataType dtype_;
  const TensorShape shape_;
};

bool ParsableDtype(DataType dtype) {
  switch (dtype) {
    case DT_FLOAT: case DT_DOUBLE: case DT_INT8: case DT_INT16:
    case DT_INT32: case DT_INT64: case DT_UINT8: case DT_UINT16:
    case DT_UINT32: case DT_UINT64: case DT_BOOL: case DT_STRING:
      return true;
    default:
      return false;
  }
}

// Appends the JSON text of one element.
template <typename T>
void AppendJsonElement(const T& v, std::string* out) {
  if constexpr (std::is_same_v<T, bool>) {
    out->append(v ? "true" : "false");
  } else if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(v)) {
      out->append("\"NaN\"");
    } else if (std::isinf(v)) {
      out->append(v > 0 ? "\"Infinity\"" : "\"-Infinity\"");
    } else {
      out->append(internal::ShortestFloat(v));
    }
  } else if constexpr (std::is_same_v<T, std::string>) {
    out->append(JsonQuote(v));
  } else {
    if constexpr (std::is_signed_v<T>) {
      absl::StrAppend(out, static_cast<int64_t>(v));
    } else {
      absl::StrAppend(out, static_cast<uint64_t>(v));
    }
  }
}

template <typename T>
void AppendNested(const Tensor& t, int depth, int64_t* next, std::string* out) {
  if (depth == t.dims()) {
    AppendJsonElement<T>(t.data<T>()[(*next)++], out);
    return;
  }
  out->push_back('[');
  const int64_t n = t.dim_size(depth);
  for (int64_t i = 0; i < n; ++i) {
    if (i > 0) out->append(", ");
    AppendNested<T>(t, depth + 1, next, out);
  }
  out->push_back(']');
}

}  // namespace

std::string NumpyDtypeName(DataType dtype) {
  switch (dtype) {
    case DT_FLOAT: return "float32";
    case DT_DOUBLE: return "float64";
    case DT_HALF: return "float16";
    default: return DataTypeString(dtype);
  }
}

std::string JsonQuote(absl::string_view s) {
  return json(std::string(s))
      .dump(-1, ' ', /*ensure_ascii=*/false, json::error_handler_t::replace);
}

absl::StatusOr<Tensor> ParseJsonTensor(absl::string_view text, DataType dtype) {
  if (!ParsableDtype(dtype)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "dtype ", NumpyDtypeName(dtype), " cannot be given as a JSON value"));
  }
  json root;
  try {
    root = json::parse(text.begin(), text.end());
  } catch (const json::exception& e) {
    // e.what() is "[json.exception.parse_error.101] parse error at ...".
    absl::string_view what = e.what();
    const size_t bracket = what.find("] ");
    if (absl::StartsWith(what, "[json.exception") && bracket != what.npos) {
      what.remove_prefix(bracket + 2);
    }
    return absl::InvalidArgumentError(absl::StrCat("not valid JSON: ", what));
  }
  // The shape follows the first element at every level; Walk then checks
  // that every other element agrees.
  std::vector<int64_t> dims;
  const json* node = &root;
  while (node->is_array()) {
    if (static_cast<int>(dims.size()) >= TensorShape::kMaxRank) {
      return absl::InvalidArgumentError(absl::StrCat(
          "arrays nested deeper than ", TensorShape::kMaxRank, " levels"));
    }
    dims.push_back(static_cast<int64_t>(node->size()));
    if (node->empty()) break;
    node = &(*node)[0];
  }
  absl::StatusOr<TensorShape> shape = TensorShape::Build(dims);
  if (!shape.ok()) return shape.status();
  Converter converter(dtype, *shape);
  Tensor out;
  absl::Status status;
  internal::VisitElementType(dtype, [&]<typename T>() {
    status = converter.Fill<T>(root, &out);
  });
  if (!status.ok()) return status;
  return out;
}

absl::StatusOr<std::string> TensorToJson(const Tensor& tensor) {
  if (!tensor.IsInitialized()) {
    return absl::InvalidArgumentError("cannot print an uninitialized tensor");
  }
  std::string values;
  const bool known = internal::VisitElementType(
      tensor.dtype(), [&]<typename T>() {
        int64_t next = 0;
        AppendNested<T>(tensor, 0, &next, &values);
      });
  if (!known) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot print a tensor of dtype ", DataTypeString(tensor.dtype()),
        " as JSON"));
  }
  std::string shape = "[";
  for (int i = 0; i < tensor.dims(); ++i) {
    if (i > 0) shape.append(", ");
    absl::StrAppend(&shape, tensor.dim_size(i));
  }
  shape.push_back(']');
  return absl::StrCat("{\"dtype\": ", JsonQuote(NumpyDtypeName(tensor.dtype())),
                      ", \"shape\": ", shape, ", \"values\": ", values, "}");
}

}  // namespace dfx::cli

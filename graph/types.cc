#include "graph/types.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace dfx {
namespace {

struct TypeName {
  DataType dtype;
  const char* name;
};

// Every base type with TensorFlow's short name.
constexpr TypeName kTypeNames[] = {
    {DT_FLOAT, "float"},
    {DT_DOUBLE, "double"},
    {DT_INT32, "int32"},
    {DT_UINT8, "uint8"},
    {DT_INT16, "int16"},
    {DT_INT8, "int8"},
    {DT_STRING, "string"},
    {DT_COMPLEX64, "complex64"},
    {DT_INT64, "int64"},
    {DT_BOOL, "bool"},
    {DT_QINT8, "qint8"},
    {DT_QUINT8, "quint8"},
    {DT_QINT32, "qint32"},
    {DT_BFLOAT16, "bfloat16"},
    {DT_QINT16, "qint16"},
    {DT_QUINT16, "quint16"},
    {DT_UINT16, "uint16"},
    {DT_COMPLEX128, "complex128"},
    {DT_HALF, "half"},
    {DT_RESOURCE, "resource"},
    {DT_VARIANT, "variant"},
    {DT_UINT32, "uint32"},
    {DT_UINT64, "uint64"},
    {DT_FLOAT8_E5M2, "float8_e5m2"},
    {DT_FLOAT8_E4M3FN, "float8_e4m3fn"},
    {DT_FLOAT8_E4M3FNUZ, "float8_e4m3fnuz"},
    {DT_FLOAT8_E4M3B11FNUZ, "float8_e4m3b11fnuz"},
    {DT_FLOAT8_E5M2FNUZ, "float8_e5m2fnuz"},
    {DT_INT4, "int4"},
    {DT_UINT4, "uint4"},
    {DT_INT2, "int2"},
    {DT_UINT2, "uint2"},
};

}  // namespace

std::string DataTypeString(DataType dtype) {
  const DataType base = BaseType(dtype);
  for (const TypeName& t : kTypeNames) {
    if (t.dtype == base) {
      return IsRefType(dtype) ? absl::StrCat(t.name, "_ref") : t.name;
    }
  }
  if (dtype == DT_INVALID) return "invalid";
  return absl::StrCat("unknown dtype ", static_cast<int>(dtype));
}

bool DataTypeFromString(absl::string_view name, DataType* dtype) {
  bool ref = false;
  if (name.size() > 4 && name.substr(name.size() - 4) == "_ref") {
    ref = true;
    name.remove_suffix(4);
  }
  if (name == "float32") name = "float";
  if (name == "float64") name = "double";
  for (const TypeName& t : kTypeNames) {
    if (name == t.name) {
      *dtype = ref ? MakeRefType(t.dtype) : t.dtype;
      return true;
    }
  }
  return false;
}

std::string DataTypeVectorString(const DataTypeVector& types) {
  return absl::StrCat(
      "[",
      absl::StrJoin(types, ", ",
                    [](std::string* out, DataType t) {
                      absl::StrAppend(out, DataTypeString(t));
                    }),
      "]");
}

int DataTypeSize(DataType dtype) {
  switch (BaseType(dtype)) {
    case DT_FLOAT: return 4;
    case DT_DOUBLE: return 8;
    case DT_INT32: return 4;
    case DT_UINT32: return 4;
    case DT_UINT16: return 2;
    case DT_UINT8: return 1;
    case DT_INT16: return 2;
    case DT_INT8: return 1;
    case DT_INT64: return 8;
    case DT_UINT64: return 8;
    case DT_BOOL: return 1;
    case DT_COMPLEX64: return 8;
    case DT_COMPLEX128: return 16;
    case DT_HALF: return 2;
    case DT_BFLOAT16: return 2;
    case DT_QINT8: return 1;
    case DT_QUINT8: return 1;
    case DT_QINT16: return 2;
    case DT_QUINT16: return 2;
    case DT_QINT32: return 4;
    case DT_FLOAT8_E5M2:
    case DT_FLOAT8_E4M3FN:
    case DT_FLOAT8_E4M3FNUZ:
    case DT_FLOAT8_E4M3B11FNUZ:
    case DT_FLOAT8_E5M2FNUZ: return 1;
    default: return 0;
  }
}

bool DataTypeCanMemcpy(DataType dtype) { return DataTypeSize(dtype) > 0; }

}  // namespace dfx

// Names, sizes and reference forms of the DataType enum.
#ifndef DFX_GRAPH_TYPES_H_
#define DFX_GRAPH_TYPES_H_

#include <string>
#include "absl/strings/string_view.h"

#include "absl/container/inlined_vector.h"
#include "proto/types.pb.h"

namespace dfx {

using DataTypeVector = absl::InlinedVector<DataType, 4>;

// TensorFlow's short names: "float", "double", "int32", "string",
// "float_ref", ... Unknown values print as "unknown dtype N".
std::string DataTypeString(DataType dtype);

// Parses a short name ("float", "int64", "float_ref"); false when unknown.
bool DataTypeFromString(absl::string_view name, DataType* dtype);

// "[float, int32]".
std::string DataTypeVectorString(const DataTypeVector& types);

inline bool IsRefType(DataType dtype) { return dtype > 100; }
inline DataType BaseType(DataType dtype) {
  return IsRefType(dtype) ? static_cast<DataType>(dtype - 100) : dtype;
}
inline DataType MakeRefType(DataType dtype) {
  return IsRefType(dtype) ? dtype : static_cast<DataType>(dtype + 100);
}

// Bytes per element for fixed-size types; 0 for string, resource, variant
// and invalid types.
int DataTypeSize(DataType dtype);

// True when a tensor of this type is a plain array of fixed-size elements
// that can be copied with memcpy.
bool DataTypeCanMemcpy(DataType dtype);

}  // namespace dfx

#endif  // DFX_GRAPH_TYPES_H_

// A human-readable, NumPy-like rendering of a Tensor's values.
#ifndef DFX_TOOLS_CLI_TENSOR_FORMAT_H_
#define DFX_TOOLS_CLI_TENSOR_FORMAT_H_

#include <cstdint>
#include <string>

#include "runtime/tensor.h"

namespace dfx::cli {

struct FormatOptions {
  // Tensors with more elements than this are summarized: along each dim
  // longer than 2 * edge_items only the first and last edge_items entries
  // are shown, with "..." between (as numpy.set_printoptions' threshold and
  // edgeitems).
  int64_t threshold = 1000;
  int64_t edge_items = 3;
};

// The values nested in brackets, one innermost row per line and columns
// right-aligned, e.g. "[[1. 2.]\n [3. 4.]]"; a scalar is its bare value, an
// empty tensor "[]". Floats print in the shortest form that reads back
// ("0.1", "2.", "nan", "inf"), bools as True/False, strings quoted. A dtype
// with no printable element type prints as "<dtype values>".
std::string FormatTensorValues(const Tensor& tensor,
                               const FormatOptions& options = {});

}  // namespace dfx::cli

#endif  // DFX_TOOLS_CLI_TENSOR_FORMAT_H_

// Parsing and resolving Einsum equations ("ab,bc->ac", "...ij,...jk->...ik",
// "ii->i"), shared by Einsum's shape function and its CPU kernel.
#ifndef DFX_GRAPH_OPS_EINSUM_EQUATION_H_
#define DFX_GRAPH_OPS_EINSUM_EQUATION_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace dfx {

// An equation's subscripts as label ids (one per letter, in order of first
// appearance); kEllipsis marks where "..." stands.
struct EinsumEquation {
  static constexpr int kEllipsis = -1;
  std::vector<std::vector<int>> inputs;
  std::vector<int> output;
  int num_labels = 0;     // distinct letters
  std::string letters;    // letters[id] is the letter of label id

  // True when subscript `labels` holds an ellipsis.
  static bool HasEllipsis(const std::vector<int>& labels);
  // Named (non-ellipsis) labels of a subscript.
  static int NumNamed(const std::vector<int>& labels);
};

// Parses TensorFlow's Einsum equation form: exactly one "->", one or two
// comma-separated input subscripts (as many as `num_inputs`), letters and at
// most one "..." per subscript, and output labels that appear in an input.
// InvalidArgument with TensorFlow's wording otherwise.
absl::StatusOr<EinsumEquation> ParseEinsumEquation(absl::string_view equation,
                                                   int num_inputs);

// An equation with its ellipses expanded for inputs of given ranks: the
// ellipsis dims become labels num_labels .. num_labels + broadcast_rank - 1,
// aligned from the right (NumPy broadcasting).
struct ResolvedEinsum {
  std::vector<std::vector<int>> inputs;  // one label per input dim
  std::vector<int> output;               // one label per output dim
  int num_labels = 0;                    // named + broadcast labels
  int num_named = 0;                     // labels below this are letters
};

// InvalidArgument when an input's rank does not fit its subscript (too few
// dims, or more dims than labels without an ellipsis), or when the inputs
// have ellipsis dims that the output has no "..." for.
absl::StatusOr<ResolvedEinsum> ResolveEinsum(const EinsumEquation& eq,
                                             const std::vector<int>& ranks);

}  // namespace dfx

#endif  // DFX_GRAPH_OPS_EINSUM_EQUATION_H_

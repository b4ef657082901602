// InferShapes: runs the shape function an op registered for one node on
// given input shapes (and constant inputs), as graph construction does, for
// the kernel tests of shape functions.
#ifndef DFX_TESTS_KERNELS_SHAPE_FN_TEST_UTIL_H_
#define DFX_TESTS_KERNELS_SHAPE_FN_TEST_UTIL_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/shape_inference.h"
#include "proto/node_def.pb.h"
#include "runtime/tensor.h"

namespace dfx::testing {

// The output shapes of `node` (its op's default attrs added) for `inputs`;
// input i is a constant of value consts[i] where that tensor is
// initialized. num_outputs < 0: the node's number of output tensors (a list
// output counts its length). NotFound for an unregistered op; the error of
// attrs that give no input and output types, or of the shape function.
absl::StatusOr<std::vector<PartialShape>> InferShapes(
    const NodeDef& node, std::vector<PartialShape> inputs,
    const std::vector<Tensor>& consts = {}, int num_outputs = -1);

// The shape of output `output` of `node` for `inputs` (InferShapes'
// errors; OutOfRange when there is no such output).
absl::StatusOr<PartialShape> InferShape(const NodeDef& node,
                                        std::vector<PartialShape> inputs,
                                        int output = 0);

// The shapes' DebugStrings run together ("[2,3][]"), or the error's text.
std::string ShapesString(
    const absl::StatusOr<std::vector<PartialShape>>& shapes);

}  // namespace dfx::testing

#endif  // DFX_TESTS_KERNELS_SHAPE_FN_TEST_UTIL_H_

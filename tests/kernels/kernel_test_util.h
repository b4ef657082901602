// RunKernel: builds one node's kernel from the standard registries and runs
// it on given inputs, without an executor. For kernel unit tests.
#ifndef DFX_TESTS_KERNELS_KERNEL_TEST_UTIL_H_
#define DFX_TESTS_KERNELS_KERNEL_TEST_UTIL_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/node_def.pb.h"
#include "runtime/device.h"
#include "runtime/tensor.h"

namespace dfx::testing {

// Builds a NodeDef: NodeBuilder("mm", "MatMul").Attr("T", DT_FLOAT)
//   .Attr("transpose_a", true).Build(). Inputs are named "in0", "in1", ...
class TestNodeBuilder {
 public:
  TestNodeBuilder(std::string name, std::string op, int num_inputs);
  TestNodeBuilder& Attr(const std::string& name, DataType v);
  TestNodeBuilder& Attr(const std::string& name, bool v);
  TestNodeBuilder& Attr(const std::string& name, int64_t v);
  TestNodeBuilder& Attr(const std::string& name, int v) {
    return Attr(name, static_cast<int64_t>(v));
  }
  TestNodeBuilder& Attr(const std::string& name, float v);
  TestNodeBuilder& Attr(const std::string& name, const char* v);
  TestNodeBuilder& Attr(const std::string& name, const std::vector<int64_t>& v);
  TestNodeBuilder& Attr(const std::string& name, const DataTypeVector& v);
  TestNodeBuilder& Attr(const std::string& name, const Tensor& v);
  TestNodeBuilder& Attr(const std::string& name, const TensorShapeProto& v);
  NodeDef Build() const { return def_; }

 private:
  NodeDef def_;
};

// Looks up the node's op in OpRegistry::Global() (adds default attrs),
// creates its kernel from StandardKernelRegistry() on a CPU device, runs it
// (Compute, or ComputeAsync waited for) on `inputs` and returns the outputs.
// Returns the construction or compute error.
absl::StatusOr<std::vector<Tensor>> RunKernel(
    const NodeDef& node, const std::vector<Tensor>& inputs);

// A shared CPU device for tests.
Device* TestCpuDevice();

// Compares the OpDefs in `pbtxt_path` (an OpList of TensorFlow 2.21's, as a
// golden generator writes it) with dfx's registrations, byte for byte.
// Returns what differs (each op missing or different, with both OpDefs),
// empty when everything matches, and sets *count to the ops read.
// NotFound or InvalidArgument when the file is missing or not an OpList.
absl::StatusOr<std::string> DiffOpDefsWithTensorFlow(
    const std::string& pbtxt_path, int* count);

// Compares the CPU kernel types in `path` (a tf_cpu_kernels.txt written by
// golden_lib.write_op_defs: `<Op> <attr> <DataType numbers...>`, `<Op>
// <attr> *`, or `<Op>`) with dfx's CPU kernels in StandardKernelRegistry():
// for each op, the types dfx's kernels serve for that attr (every type the
// OpDef allows when a kernel does not constrain it; quantized, resource,
// variant, float8, int4 and int2 types left out as the file leaves them
// out) must equal the
// listed ones; an `<Op>` line needs one CPU kernel. Returns what differs,
// empty when everything matches, and sets *count to the ops read.
absl::StatusOr<std::string> DiffCpuKernelTypesWithTensorFlow(
    const std::string& path, int* count);

// Inside a TEST_CASE: checks tests/golden/data/<family>/tf_op_defs.pbtxt
// and tf_cpu_kernels.txt with the two functions above; each must hold
// `num_ops` ops (so an op dropped from the generator is noticed) and
// nothing may differ.
void CheckSignaturesWithTensorFlow(const std::string& family, int num_ops);

}  // namespace dfx::testing

#endif  // DFX_TESTS_KERNELS_KERNEL_TEST_UTIL_H_

// Shape functions: what an op's outputs look like, given what is known of its
// inputs. Used to catch shape errors when a graph is imported.
#ifndef DFX_GRAPH_SHAPE_INFERENCE_H_
#define DFX_GRAPH_SHAPE_INFERENCE_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "proto/node_def.pb.h"
#include "proto/op_def.pb.h"
#include "proto/tensor.pb.h"

namespace dfx {

// A shape that may be partly known: rank unknown, or some dims unknown (-1).
struct PartialShape {
  bool unknown_rank = true;
  std::vector<int64_t> dims;

  static PartialShape Unknown() { return PartialShape{}; }
  static PartialShape Known(std::vector<int64_t> d) {
    return PartialShape{false, std::move(d)};
  }
  static PartialShape Scalar() { return PartialShape{false, {}}; }
  static PartialShape FromProto(const TensorShapeProto& proto);

  bool RankKnown() const { return !unknown_rank; }
  int rank() const { return static_cast<int>(dims.size()); }
  // True when the rank and every dim are known.
  bool FullyDefined() const;
  // "[2,?,3]", or "<unknown>".
  std::string DebugString() const;
};

// What a shape function sees of one node. Input shapes and constant input
// values are filled in by the caller; the shape function sets each output.
class InferenceContext {
 public:
  InferenceContext(const NodeDef& node_def, const OpDef& op_def,
                   std::vector<PartialShape> input_shapes,
                   std::vector<const TensorProto*> input_tensors,
                   int num_outputs);

  const NodeDef& node_def() const { return node_def_; }
  const OpDef& op_def() const { return op_def_; }

  int num_inputs() const { return static_cast<int>(inputs_.size()); }
  const PartialShape& input(int i) const { return inputs_[i]; }
  // The value of input i when it comes straight from a Const node, else null.
  const TensorProto* input_tensor(int i) const { return input_tensors_[i]; }

  int num_outputs() const { return static_cast<int>(outputs_.size()); }
  void set_output(int i, PartialShape shape) { outputs_[i] = std::move(shape); }
  const PartialShape& output(int i) const { return outputs_[i]; }

  // Merges two shapes that must describe the same tensor; InvalidArgument
  // naming the node when they are incompatible.
  absl::Status Merge(const PartialShape& a, const PartialShape& b,
                     PartialShape* out) const;
  // Merges two dims (-1 unknown); InvalidArgument when both known and unequal.
  absl::Status MergeDim(int64_t a, int64_t b, int64_t* out) const;
  // NumPy-style broadcast of two shapes.
  absl::Status BroadcastBinary(const PartialShape& a, const PartialShape& b,
                               PartialShape* out) const;
  // InvalidArgument when the rank of `shape` is known and not `rank`.
  absl::Status WithRank(const PartialShape& shape, int rank) const;

  // An InvalidArgument error whose message names this node and its op.
  absl::Status Error(absl::string_view message) const;

 private:
  const NodeDef& node_def_;
  const OpDef& op_def_;
  std::vector<PartialShape> inputs_;
  std::vector<const TensorProto*> input_tensors_;
  std::vector<PartialShape> outputs_;
};

using ShapeFn = std::function<absl::Status(InferenceContext*)>;

// The values of a constant int32 or int64 TensorProto (tensor_content or the
// typed list; a short list is padded with its last value, as TensorFlow
// does). False when the proto is null or not a well-formed integer tensor of
// at most 2^30 elements: shape functions then use what is known otherwise.
bool ConstantInts(const TensorProto* proto, std::vector<int64_t>* values);

// A shape of rank `rank` with every dim unknown.
PartialShape UnknownDims(int rank);

// Shape functions shared by many ops.
namespace shape_fn {
// Every output has unknown shape.
absl::Status Unknown(InferenceContext* c);
// Output 0 has the shape of input 0.
absl::Status UnchangedShape(InferenceContext* c);
// Output 0 is the broadcast of inputs 0 and 1.
absl::Status BroadcastBinaryOp(InferenceContext* c);
// Output 0 is a scalar.
absl::Status Scalar(InferenceContext* c);
}  // namespace shape_fn

}  // namespace dfx

#endif  // DFX_GRAPH_SHAPE_INFERENCE_H_

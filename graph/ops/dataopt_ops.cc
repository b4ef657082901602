// The ops TensorFlow's tf.data optimizer puts into pipelines:
// ChooseFastestBranchDataset (the fastest of several equivalent branch
// functions over one input), MapDefun (a function over the rows of its
// arguments, what map vectorization leaves behind) and WindowOp (a dataset
// of the elements given as its inputs). Every OpDef is TensorFlow 2.21's
// (tests/kernels/dataopt_test.cc compares them with
// tests/golden/data/dataopt/tf_op_defs.pbtxt, written by gen_dataopt.py);
// the kernels are in kernels/data/dataopt_kernels.cc.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/node_def_util.h"
#include "graph/ops/ops.h"

namespace dfx {
namespace {

// MapDefun's outputs: [the arguments' common dim 0] + output_shapes[i].
absl::Status MapDefunShape(InferenceContext* c) {
  const AttrValue* shapes = FindNodeAttr(c->node_def(), "output_shapes");
  if (shapes == nullptr) return shape_fn::Unknown(c);
  if (shapes->list().shape_size() != c->num_outputs()) {
    return c->Error(absl::StrCat(
        "`output_shapes` must be the same length as `output_types` (",
        shapes->list().shape_size(), " vs. ", c->num_outputs(), ")"));
  }
  DataTypeVector args;
  DFX_RETURN_IF_ERROR(GetNodeAttr(c->node_def(), "Targuments", &args));
  int64_t dim0 = -1;
  for (int i = 0; i < static_cast<int>(args.size()) && i < c->num_inputs();
       ++i) {
    const PartialShape& in = c->input(i);
    if (!in.RankKnown()) continue;
    if (in.rank() == 0) {
      return c->Error(absl::StrCat(
          "Arguments must have rank at least 1. Input ", i, " has rank of 0."));
    }
    if (in.dims[0] < 0) continue;
    if (dim0 == -1) {
      dim0 = in.dims[0];
    } else if (in.dims[0] != dim0) {
      return c->Error("Arguments must have the same dimension 0.");
    }
  }
  for (int i = 0; i < c->num_outputs(); ++i) {
    const PartialShape s = PartialShape::FromProto(shapes->list().shape(i));
    if (!s.RankKnown()) {
      c->set_output(i, PartialShape::Unknown());
      continue;
    }
    std::vector<int64_t> dims = {dim0};
    dims.insert(dims.end(), s.dims.begin(), s.dims.end());
    c->set_output(i, PartialShape::Known(std::move(dims)));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status RegisterDataOptOps(OpRegistry* r) {
  DFX_RETURN_IF_ERROR(
      r->Register(OpDefBuilder("ChooseFastestBranchDataset")
                      .Input("input_dataset: variant")
                      .Input("ratio_numerator: int64")
                      .Input("ratio_denominator: int64")
                      .Input("other_arguments: Targuments")
                      .Output("handle: variant")
                      .Attr("Targuments: list(type) >= 0")
                      .Attr("num_elements_per_branch: int >= 1")
                      .Attr("branches: list(func) >= 1")
                      .Attr("other_arguments_lengths: list(int) >= 1")
                      .Attr("output_types: list(type) >= 1")
                      .Attr("output_shapes: list(shape) >= 1")
                      .SetShapeFn(shape_fn::Scalar)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("MapDefun")
                                      .Input("arguments: Targuments")
                                      .Input("captured_inputs: Tcaptured")
                                      .Output("output: output_types")
                                      .Attr("Targuments: list(type) >= 1")
                                      .Attr("Tcaptured: list(type) >= 0 = []")
                                      .Attr("output_types: list(type) >= 1")
                                      .Attr("output_shapes: list(shape) >= 1")
                                      .Attr("f: func")
                                      .Attr("max_intra_op_parallelism: int = 1")
                                      .SetShapeFn(MapDefunShape)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("WindowOp")
                                      .Input("inputs: Tinputs")
                                      .Output("handle: variant")
                                      .Attr("output_types: list(type) >= 1")
                                      .Attr("output_shapes: list(shape) >= 1")
                                      .Attr("Tinputs: list(type) >= 1")
                                      .SetShapeFn(shape_fn::Scalar)));
  return absl::OkStatus();
}

}  // namespace dfx

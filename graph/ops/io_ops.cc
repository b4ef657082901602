// Checkpoint ops and the string helpers that tf.compat.v1.train.Saver graphs
// use around them: SaveV2, RestoreV2, MergeV2Checkpoints, ShardedFilename,
// ShardedFilespec, StringJoin, StaticRegexFullMatch. Signatures follow
// TensorFlow 2.21's io_ops.cc and string_ops.cc.
#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/ops/ops.h"

namespace dfx {
namespace {

// InvalidArgument when `shape` is known to be a vector whose length is
// known and differs from `size`.
absl::Status WithVectorOfSize(InferenceContext* c, const PartialShape& shape,
                              int64_t size, const char* what) {
  DFX_RETURN_IF_ERROR(c->WithRank(shape, 1));
  if (shape.RankKnown() && shape.dims[0] >= 0 && shape.dims[0] != size) {
    return c->Error(absl::StrCat(what, " must have ", size,
                                 " elements (one per tensor), got shape ",
                                 shape.DebugString()));
  }
  return absl::OkStatus();
}

// SaveV2: a scalar prefix and one name and one slice spec per tensor.
absl::Status SaveV2ShapeFn(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 0));
  const int64_t num_tensors = c->num_inputs() - 3;
  DFX_RETURN_IF_ERROR(
      WithVectorOfSize(c, c->input(1), num_tensors, "tensor_names"));
  DFX_RETURN_IF_ERROR(
      WithVectorOfSize(c, c->input(2), num_tensors, "shape_and_slices"));
  return absl::OkStatus();
}

// RestoreV2: as SaveV2 with one name per output. The outputs' shapes come
// from the checkpoint, so they are unknown here. (TensorFlow parses a
// constant non-empty slice spec into the output shape; dfx restores whole
// tensors only and rejects such specs when the step runs.)
absl::Status RestoreV2ShapeFn(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 0));
  const int64_t num_tensors = c->num_outputs();
  DFX_RETURN_IF_ERROR(
      WithVectorOfSize(c, c->input(1), num_tensors, "tensor_names"));
  DFX_RETURN_IF_ERROR(
      WithVectorOfSize(c, c->input(2), num_tensors, "shape_and_slices"));
  for (int i = 0; i < c->num_outputs(); ++i) {
    c->set_output(i, PartialShape::Unknown());
  }
  return absl::OkStatus();
}

absl::Status MergeV2CheckpointsShapeFn(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 1));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 0));
  return absl::OkStatus();
}

// StringJoin: scalars broadcast; the other inputs must share one shape.
absl::Status StringJoinShapeFn(InferenceContext* c) {
  bool all_scalar = true;
  for (int i = 0; i < c->num_inputs(); ++i) {
    if (!c->input(i).RankKnown() || c->input(i).rank() != 0) {
      all_scalar = false;
    }
  }
  if (all_scalar) {
    c->set_output(0, PartialShape::Scalar());
    return absl::OkStatus();
  }
  PartialShape out = PartialShape::Unknown();
  for (int i = 0; i < c->num_inputs(); ++i) {
    const PartialShape& in = c->input(i);
    if (in.RankKnown() && in.rank() != 0) {
      DFX_RETURN_IF_ERROR(c->Merge(out, in, &out));
    }
  }
  c->set_output(0, std::move(out));
  return absl::OkStatus();
}

}  // namespace

absl::Status RegisterIoOps(OpRegistry* r) {
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("SaveV2")
                                      .Input("prefix: string")
                                      .Input("tensor_names: string")
                                      .Input("shape_and_slices: string")
                                      .Input("tensors: dtypes")
                                      .Attr("dtypes: list(type) >= 1")
                                      .SetIsStateful()
                                      .SetShapeFn(SaveV2ShapeFn)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("RestoreV2")
                                      .Input("prefix: string")
                                      .Input("tensor_names: string")
                                      .Input("shape_and_slices: string")
                                      .Output("tensors: dtypes")
                                      .Attr("dtypes: list(type) >= 1")
                                      .SetIsStateful()
                                      .SetShapeFn(RestoreV2ShapeFn)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("MergeV2Checkpoints")
                                      .Input("checkpoint_prefixes: string")
                                      .Input("destination_prefix: string")
                                      .Attr("delete_old_dirs: bool = true")
                                      .Attr("allow_missing_files: bool = false")
                                      .SetIsStateful()
                                      .SetShapeFn(MergeV2CheckpointsShapeFn)));
  // "%s-%05d-of-%05d" of basename, shard, num_shards.
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("ShardedFilename")
                                      .Input("basename: string")
                                      .Input("shard: int32")
                                      .Input("num_shards: int32")
                                      .Output("filename: string")
                                      .SetShapeFn(shape_fn::Scalar)));
  // "%s-?????-of-%05d": the glob of every shard.
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("ShardedFilespec")
                                      .Input("basename: string")
                                      .Input("num_shards: int32")
                                      .Output("filename: string")
                                      .SetShapeFn(shape_fn::Scalar)));
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("StringJoin")
                                      .Input("inputs: N * string")
                                      .Output("output: string")
                                      .Attr("N: int >= 0")
                                      .Attr("separator: string = ''")
                                      .SetShapeFn(StringJoinShapeFn)));
  // Whether each string matches an RE2 pattern fixed at graph time.
  DFX_RETURN_IF_ERROR(r->Register(OpDefBuilder("StaticRegexFullMatch")
                                      .Input("input: string")
                                      .Output("output: bool")
                                      .Attr("pattern: string")
                                      .SetShapeFn(shape_fn::UnchangedShape)));
  return absl::OkStatus();
}

}  // namespace dfx

// The nn2 family: QuantizeV2 and Dequantize, ParameterizedTruncatedNormal,
// fractional pooling with its gradients, CTCBeamSearchDecoder and
// RandomShuffleQueueV2's kin. Signatures follow TensorFlow 2.21's
// array_ops.cc, random_ops.cc, nn_ops.cc, ctc_ops.cc and data_flow_ops.cc;
// the shape functions follow theirs.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/node_def_util.h"
#include "graph/ops/ops.h"
#include "graph/ops/random_shape.h"

namespace dfx {
namespace {

constexpr char kFractionalPoolTypes[] = "T: {float, double, int32, int64}";
constexpr char kQuantizedT[] = "T: {qint8, quint8, qint32, qint16, quint16}";
constexpr char kQuantizeMode[] =
    "mode: {'MIN_COMBINED', 'MIN_FIRST', 'SCALED'} = 'MIN_COMBINED'";

// QuantizeV2 and Dequantize: the output has the input's shape; min and max
// are scalars, or vectors when `axis` names a dim of the input. Only
// max_range's length is merged with that dim, as TensorFlow does.
absl::Status QuantizeShape(InferenceContext* c, bool dequantize) {
  int64_t axis = -1;
  if (FindNodeAttr(c->node_def(), "axis") != nullptr) {
    DFX_RETURN_IF_ERROR(GetNodeAttr(c->node_def(), "axis", &axis));
  }
  if (axis < -1) {
    return c->Error(absl::StrCat("axis should be at least -1, got ", axis));
  }
  const PartialShape& input = c->input(0);
  if (dequantize && input.RankKnown()) {
    // TensorFlow compares with -1 when the rank is unknown, refusing any
    // axis; dfx leaves that to the kernel (a fed input's rank is unknown
    // here until it runs).
    const int64_t rank = input.rank();
    if (axis > rank) {
      return c->Error(absl::StrCat("Axis must be less than input dimension(",
                                   rank, "), got ", axis));
    }
  }
  const int minmax_rank = axis == -1 ? 0 : 1;
  c->set_output(0, input);
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), minmax_rank));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(2), minmax_rank));
  PartialShape minmax = c->input(2);
  if (!minmax.RankKnown()) minmax = UnknownDims(minmax_rank);
  if (axis != -1 && input.RankKnown()) {
    if (input.rank() < axis + 1) {
      return c->Error(absl::StrCat("Shape must be at least rank ", axis + 1,
                                   " but is rank ", input.rank()));
    }
    int64_t depth = -1;
    DFX_RETURN_IF_ERROR(c->MergeDim(minmax.dims[0], input.dims[axis], &depth));
  }
  if (!dequantize) {
    c->set_output(1, minmax);
    c->set_output(2, minmax);
  }
  return absl::OkStatus();
}

// FractionalMaxPool and FractionalAvgPool: [N, H, W, C] pooled to
// floor(dim / ratio) in each dim. The pooling sequences have one more value
// than the pooled dim (TensorFlow's shape function says as many; its
// kernels make one more, and so do dfx's).
absl::Status FractionalPoolShape(InferenceContext* c) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 4));
  const AttrValue* ratio_attr = FindNodeAttr(c->node_def(), "pooling_ratio");
  if (ratio_attr == nullptr) return c->Error("missing attr pooling_ratio");
  const std::vector<float> ratio(ratio_attr->list().f().begin(),
                                 ratio_attr->list().f().end());
  if (ratio.size() != 4) {
    return c->Error("pooling_ratio field must specify 4 dimensions");
  }
  const PartialShape& input = c->input(0);
  std::vector<int64_t> dims(4, -1);
  for (int i = 0; i < 4; ++i) {
    if (!input.RankKnown() || input.dims[i] < 0) continue;
    dims[i] = static_cast<int64_t>(
        std::floor(static_cast<float>(input.dims[i]) / ratio[i]));
    if (dims[i] < 0) {
      return c->Error(absl::StrCat("Size computed for dim ", i,
                                   " is negative: ", dims[i]));
    }
  }
  for (float r : ratio) {
    if (r < 1) {
      return c->Error(
          absl::StrCat("pooling_ratio cannot be smaller than 1, got: ", r));
    }
  }
  c->set_output(0, PartialShape::Known(dims));
  c->set_output(1, PartialShape::Known({dims[1] < 0 ? -1 : dims[1] + 1}));
  c->set_output(2, PartialShape::Known({dims[2] < 0 ? -1 : dims[2] + 1}));
  return absl::OkStatus();
}

// CTCBeamSearchDecoder: inputs [max_time, batch, classes], sequence_length
// [batch]; top_paths sparse results of sizes known only when run, and log
// probabilities [batch, top_paths].
absl::Status CtcBeamSearchShape(InferenceContext* c) {
  const PartialShape& in = c->input(0);
  DFX_RETURN_IF_ERROR(c->WithRank(in, 3));
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 1));
  int64_t batch = in.RankKnown() ? in.dims[1] : -1;
  if (c->input(1).RankKnown()) {
    DFX_RETURN_IF_ERROR(c->MergeDim(batch, c->input(1).dims[0], &batch));
  }
  int64_t top_paths = 0;
  DFX_RETURN_IF_ERROR(GetNodeAttr(c->node_def(), "top_paths", &top_paths));
  int out = 0;
  for (int64_t i = 0; i < top_paths; ++i) {
    c->set_output(out++, PartialShape::Known({-1, 2}));
  }
  for (int64_t i = 0; i < top_paths; ++i) {
    c->set_output(out++, PartialShape::Known({-1}));
  }
  for (int64_t i = 0; i < top_paths; ++i) {
    c->set_output(out++, PartialShape::Known({2}));
  }
  c->set_output(out, PartialShape::Known({batch, top_paths}));
  return absl::OkStatus();
}

OpDefBuilder FractionalPoolOp(const char* name) {
  OpDefBuilder b(name);
  b.Input("value: T")
      .Output("output: T")
      .Output("row_pooling_sequence: int64")
      .Output("col_pooling_sequence: int64")
      .Attr("pooling_ratio: list(float) >= 4")
      .Attr("pseudo_random: bool = false")
      .Attr("overlapping: bool = false")
      .Attr("deterministic: bool = false")
      .Attr("seed: int = 0")
      .Attr("seed2: int = 0")
      .Attr(kFractionalPoolTypes)
      .SetShapeFn(FractionalPoolShape);
  return b;
}

}  // namespace

absl::Status RegisterNn2Ops(OpRegistry* r) {
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("QuantizeV2")
          .Input("input: float")
          .Input("min_range: float")
          .Input("max_range: float")
          .Output("output: T")
          .Output("output_min: float")
          .Output("output_max: float")
          .Attr(kQuantizedT)
          .Attr(kQuantizeMode)
          .Attr("round_mode: {'HALF_AWAY_FROM_ZERO', 'HALF_TO_EVEN'} = "
                "'HALF_AWAY_FROM_ZERO'")
          .Attr("narrow_range: bool = false")
          .Attr("axis: int = -1")
          .Attr("ensure_minimum_range: float = 0.01")
          .SetShapeFn([](InferenceContext* c) {
            return QuantizeShape(c, /*dequantize=*/false);
          })));
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("Dequantize")
          .Input("input: T")
          .Input("min_range: float")
          .Input("max_range: float")
          .Output("output: dtype")
          .Attr(kQuantizedT)
          .Attr(kQuantizeMode)
          .Attr("narrow_range: bool = false")
          .Attr("axis: int = -1")
          .Attr("dtype: {bfloat16, float} = DT_FLOAT")
          .SetShapeFn([](InferenceContext* c) {
            return QuantizeShape(c, /*dequantize=*/true);
          })));
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("ParameterizedTruncatedNormal")
          .Input("shape: T")
          .Input("means: dtype")
          .Input("stdevs: dtype")
          .Input("minvals: dtype")
          .Input("maxvals: dtype")
          .Output("output: dtype")
          .Attr("seed: int = 0")
          .Attr("seed2: int = 0")
          .Attr("dtype: {half, bfloat16, float, double}")
          .Attr("T: {int32, int64}")
          .SetIsStateful()
          .SetShapeFn([](InferenceContext* c) {
            // The parameters are scalars or vectors.
            for (int i = 1; i <= 4; ++i) {
              const PartialShape& p = c->input(i);
              if (p.RankKnown() && p.rank() > 1) {
                return c->Error(absl::StrCat(
                    "Shape must be at most rank 1 but is rank ", p.rank()));
              }
            }
            return RandomShapeFn(c);
          })));
  DFX_RETURN_IF_ERROR(r->Register(FractionalPoolOp("FractionalMaxPool")));
  DFX_RETURN_IF_ERROR(r->Register(FractionalPoolOp("FractionalAvgPool")));
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("FractionalMaxPoolGrad")
          .Input("orig_input: T")
          .Input("orig_output: T")
          .Input("out_backprop: T")
          .Input("row_pooling_sequence: int64")
          .Input("col_pooling_sequence: int64")
          .Output("output: T")
          .Attr("overlapping: bool = false")
          .Attr(kFractionalPoolTypes)
          .SetShapeFn([](InferenceContext* c) {
            DFX_RETURN_IF_ERROR(c->WithRank(c->input(0), 4));
            c->set_output(0, c->input(0).RankKnown() ? c->input(0)
                                                     : UnknownDims(4));
            return absl::OkStatus();
          })));
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("FractionalAvgPoolGrad")
          .Input("orig_input_tensor_shape: int64")
          .Input("out_backprop: T")
          .Input("row_pooling_sequence: int64")
          .Input("col_pooling_sequence: int64")
          .Output("output: T")
          .Attr("overlapping: bool = false")
          .Attr(kFractionalPoolTypes)
          .SetShapeFn([](InferenceContext* c) {
            std::vector<int64_t> dims;
            if (ConstantInts(c->input_tensor(0), &dims) && dims.size() == 4) {
              c->set_output(0, PartialShape::Known(dims));
            } else {
              c->set_output(0, UnknownDims(4));
            }
            return absl::OkStatus();
          })));
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("CTCBeamSearchDecoder")
          .Input("inputs: T")
          .Input("sequence_length: int32")
          .Output("decoded_indices: top_paths * int64")
          .Output("decoded_values: top_paths * int64")
          .Output("decoded_shape: top_paths * int64")
          .Output("log_probability: T")
          .Attr("beam_width: int >= 1")
          .Attr("top_paths: int >= 1")
          .Attr("merge_repeated: bool = true")
          .Attr("T: {float, double} = DT_FLOAT")
          .SetShapeFn(CtcBeamSearchShape)));
  // Used with the queue ops of graph/ops/queue_ops.cc; the queue is
  // kernels/data_flow/queue.h's.
  // RandomShuffleQueue (TF1) hands out a reference to a [2] string handle.
  for (const bool v1 : {false, true}) {
    DFX_RETURN_IF_ERROR(r->Register(
        OpDefBuilder(v1 ? "RandomShuffleQueue" : "RandomShuffleQueueV2")
            .Output(v1 ? "handle: Ref(string)" : "handle: resource")
            .Attr("component_types: list(type) >= 1")
            .Attr("shapes: list(shape) >= 0 = []")
            .Attr("capacity: int = -1")
            .Attr("min_after_dequeue: int = 0")
            .Attr("seed: int = 0")
            .Attr("seed2: int = 0")
            .Attr("container: string = ''")
            .Attr("shared_name: string = ''")
            .SetIsStateful()
            .SetShapeFn([v1](InferenceContext* c) {
              c->set_output(0, v1 ? PartialShape::Known({2})
                                  : PartialShape::Scalar());
              return absl::OkStatus();
            })));
  }
  return absl::OkStatus();
}

}  // namespace dfx

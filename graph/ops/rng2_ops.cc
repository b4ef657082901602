// The rng2 family: the ops of tf.random.Generator on a resource variable
// holding the RNG state (StatefulUniform, StatefulUniformFullInt,
// StatefulUniformInt, StatefulStandardNormalV2, StatefulTruncatedNormal,
// StatefulRandomBinomial, RngSkip, RngReadAndSkip), StatelessRandomBinomial,
// StatelessParameterizedTruncatedNormal,
// RandomPoisson (v1), NonDeterministicInts, the candidate samplers and
// ComputeAccidentalHits, SampleDistortedBoundingBox (V2, stateless),
// StatelessShuffle, RandomIndexShuffle and RandomCrop (v1).
// Signatures and shape functions follow TensorFlow
// 2.21's stateful_random_ops.cc, stateless_random_ops.cc, random_ops.cc and
// candidate_sampling_ops.cc and image_ops.cc.
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/node_def_util.h"
#include "graph/ops/ops.h"
#include "graph/ops/random_shape.h"

namespace dfx {
namespace {

// RngReadAndSkip returns RNG_MAX_COUNTER_SIZE (2) + RNG_KEY_SIZE (1) words.
constexpr int64_t kStateWords = 3;

// The output shape named by the shape tensor at input `index`
// (RandomShapeFn reads input 0 only).
absl::Status ShapeFromInput(InferenceContext* c, int index) {
  if (index == 0) return RandomShapeFn(c);
  // Let RandomShapeFn see the shape input as input 0 of a context of its
  // own: same node, inputs shifted.
  std::vector<PartialShape> inputs = {c->input(index)};
  std::vector<const TensorProto*> tensors = {c->input_tensor(index)};
  InferenceContext sub(c->node_def(), c->op_def(), std::move(inputs), tensors,
                       1);
  DFX_RETURN_IF_ERROR(RandomShapeFn(&sub));
  c->set_output(0, sub.output(0));
  return absl::OkStatus();
}

// The generator ops: a scalar algorithm (input 1), the shape (input 2) and
// `num_scalars` scalars after it.
absl::Status StatefulRandomShape(InferenceContext* c, int num_scalars) {
  DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 0));
  for (int i = 0; i < num_scalars; ++i) {
    DFX_RETURN_IF_ERROR(c->WithRank(c->input(3 + i), 0));
  }
  return ShapeFromInput(c, 2);
}

OpDefBuilder GeneratorOp(const char* name, const char* dtype_default) {
  OpDefBuilder b(name);
  b.Input("resource: resource")
      .Input("algorithm: int64")
      .Input("shape: shape_dtype")
      .Output("output: dtype")
      .Attr(absl::StrCat("dtype: type = ", dtype_default))
      .Attr("shape_dtype: type = DT_INT64")
      .SetIsStateful()
      .SetShapeFn([](InferenceContext* c) { return StatefulRandomShape(c, 0); });
  return b;
}

// A seed input (index `index`) known to be other than a vector of 2.
absl::Status CheckSeed(InferenceContext* c, int index) {
  const PartialShape& seed = c->input(index);
  DFX_RETURN_IF_ERROR(c->WithRank(seed, 1));
  if (seed.RankKnown() && seed.dims[0] >= 0 && seed.dims[0] != 2) {
    return c->Error(
        absl::StrCat("Dimension must be 2 but is ", seed.dims[0]));
  }
  return absl::OkStatus();
}

// The candidate samplers: true_classes [batch, num_true] gives
// sampled_candidates [num_sampled], true_expected_count [batch, num_true]
// and sampled_expected_count [num_sampled].
absl::Status CandidateSamplerShape(InferenceContext* c) {
  int64_t num_sampled = 0;
  int64_t num_true = 0;
  DFX_RETURN_IF_ERROR(GetNodeAttr(c->node_def(), "num_sampled", &num_sampled));
  DFX_RETURN_IF_ERROR(GetNodeAttr(c->node_def(), "num_true", &num_true));
  const PartialShape& true_classes = c->input(0);
  DFX_RETURN_IF_ERROR(c->WithRank(true_classes, 2));
  const int64_t batch = true_classes.RankKnown() ? true_classes.dims[0] : -1;
  c->set_output(0, PartialShape::Known({num_sampled}));
  c->set_output(1, PartialShape::Known({batch, num_true}));
  c->set_output(2, PartialShape::Known({num_sampled}));
  return absl::OkStatus();
}

OpDefBuilder CandidateSampler(const char* name, bool has_range = true) {
  OpDefBuilder b(name);
  b.Input("true_classes: int64")
      .Output("sampled_candidates: int64")
      .Output("true_expected_count: float")
      .Output("sampled_expected_count: float")
      .Attr("num_true: int >= 1")
      .Attr("num_sampled: int >= 1")
      .Attr("unique: bool");
  if (has_range) b.Attr("range_max: int >= 1");
  b.SetIsStateful().SetShapeFn(CandidateSamplerShape);
  return b;
}

// The SampleDistortedBoundingBox ops: image_size [3], bounding_boxes
// [batch, N, 4] give begin [3], size [3] and bboxes [1, 1, 4].
absl::Status SampleBoxShape(InferenceContext* c) {
  const PartialShape& image_size = c->input(0);
  const PartialShape& boxes = c->input(1);
  DFX_RETURN_IF_ERROR(c->WithRank(image_size, 1));
  DFX_RETURN_IF_ERROR(c->WithRank(boxes, 3));
  if (image_size.RankKnown() && image_size.dims[0] >= 0 &&
      image_size.dims[0] != 3) {
    return c->Error(
        absl::StrCat("Dimension must be 3 but is ", image_size.dims[0]));
  }
  if (boxes.RankKnown() && boxes.dims[2] >= 0 && boxes.dims[2] != 4) {
    return c->Error(absl::StrCat("Dimension must be 4 but is ", boxes.dims[2]));
  }
  if (c->num_inputs() > 3) {
    DFX_RETURN_IF_ERROR(c->WithRank(c->input(2), 0));
    DFX_RETURN_IF_ERROR(CheckSeed(c, 3));
  }
  c->set_output(0, PartialShape::Known({3}));
  c->set_output(1, PartialShape::Known({3}));
  c->set_output(2, PartialShape::Known({1, 1, 4}));
  return absl::OkStatus();
}

OpDefBuilder SampleBox(const char* name, bool stateless, bool v1) {
  OpDefBuilder b(name);
  b.Input("image_size: T").Input("bounding_boxes: float");
  if (!v1) b.Input("min_object_covered: float");
  if (stateless) b.Input("seed: Tseed");
  b.Output("begin: T")
      .Output("size: T")
      .Output("bboxes: float")
      .Attr("T: {uint8, int8, int16, int32, int64}");
  if (stateless) {
    b.Attr("Tseed: {int32, int64}");
  } else {
    b.Attr("seed: int = 0").Attr("seed2: int = 0");
  }
  if (v1) b.Attr("min_object_covered: float = 0.1");
  b.Attr("aspect_ratio_range: list(float) = [0.75, 1.33]")
      .Attr("area_range: list(float) = [0.05, 1]")
      .Attr("max_attempts: int = 100")
      .Attr("use_image_if_no_bounding_boxes: bool = false")
      .SetShapeFn(SampleBoxShape);
  if (!stateless) b.SetIsStateful();
  return b;
}

OpDefBuilder& Seeds(OpDefBuilder& b) {
  return b.Attr("seed: int = 0").Attr("seed2: int = 0");
}

}  // namespace

absl::Status RegisterRng2Ops(OpRegistry* r) {
  DFX_RETURN_IF_ERROR(r->Register(GeneratorOp("StatefulUniform", "DT_FLOAT")));
  DFX_RETURN_IF_ERROR(
      r->Register(GeneratorOp("StatefulUniformFullInt", "DT_UINT64")));
  DFX_RETURN_IF_ERROR(
      r->Register(GeneratorOp("StatefulStandardNormalV2", "DT_FLOAT")));
  DFX_RETURN_IF_ERROR(
      r->Register(GeneratorOp("StatefulTruncatedNormal", "DT_FLOAT")));
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("StatefulUniformInt")
          .Input("resource: resource")
          .Input("algorithm: int64")
          .Input("shape: shape_dtype")
          .Input("minval: dtype")
          .Input("maxval: dtype")
          .Output("output: dtype")
          .Attr("dtype: type = DT_INT64")
          .Attr("shape_dtype: type = DT_INT64")
          .SetIsStateful()
          .SetShapeFn(
              [](InferenceContext* c) { return StatefulRandomShape(c, 2); })));
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("StatefulRandomBinomial")
          .Input("resource: resource")
          .Input("algorithm: int64")
          .Input("shape: S")
          .Input("counts: T")
          .Input("probs: T")
          .Output("output: dtype")
          .Attr("S: {int32, int64}")
          .Attr("T: {half, float, double, int32, int64} = DT_DOUBLE")
          .Attr("dtype: {half, float, double, int32, int64} = DT_INT64")
          .SetIsStateful()
          .SetShapeFn(
              [](InferenceContext* c) { return StatefulRandomShape(c, 0); })));
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("RngSkip")
          .Input("resource: resource")
          .Input("algorithm: int64")
          .Input("delta: int64")
          .SetIsStateful()
          .SetShapeFn([](InferenceContext* c) {
            DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 0));
            return c->WithRank(c->input(2), 0);
          })));
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("RngReadAndSkip")
          .Input("resource: resource")
          .Input("alg: int32")
          .Input("delta: uint64")
          .Output("value: int64")
          .SetIsStateful()
          .SetShapeFn([](InferenceContext* c) {
            DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 0));
            DFX_RETURN_IF_ERROR(c->WithRank(c->input(2), 0));
            c->set_output(0, PartialShape::Known({kStateWords}));
            return absl::OkStatus();
          })));
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("NonDeterministicInts")
          .Input("shape: shape_dtype")
          .Output("output: dtype")
          .Attr("dtype: type = DT_INT64")
          .Attr("shape_dtype: type = DT_INT64")
          .SetIsStateful()
          .SetShapeFn(RandomShapeFn)));
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("StatelessRandomBinomial")
          .Input("shape: S")
          .Input("seed: Tseed")
          .Input("counts: T")
          .Input("probs: T")
          .Output("output: dtype")
          .Attr("S: {int32, int64}")
          .Attr("Tseed: {int32, int64} = DT_INT64")
          .Attr("T: {half, float, double, int32, int64} = DT_DOUBLE")
          .Attr("dtype: {half, float, double, int32, int64} = DT_INT64")
          .SetShapeFn([](InferenceContext* c) {
            DFX_RETURN_IF_ERROR(CheckSeed(c, 1));
            return RandomShapeFn(c);
          })));
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("StatelessParameterizedTruncatedNormal")
          .Input("shape: S")
          .Input("seed: Tseed")
          .Input("means: dtype")
          .Input("stddevs: dtype")
          .Input("minvals: dtype")
          .Input("maxvals: dtype")
          .Output("output: dtype")
          .Attr("S: {int32, int64}")
          .Attr("Tseed: {int32, int64} = DT_INT64")
          .Attr("dtype: {half, float, double}")
          .SetShapeFn([](InferenceContext* c) {
            DFX_RETURN_IF_ERROR(CheckSeed(c, 1));
            return RandomShapeFn(c);
          })));
  // RandomPoisson: `shape` followed by the rate's shape. Deprecated at
  // GraphDef version 25, a field OpDefBuilder has no setter for.
  DFX_ASSIGN_OR_RETURN(
      OpRegistrationData poisson,
      OpDefBuilder("RandomPoisson")
          .Input("shape: S")
          .Input("rate: dtype")
          .Output("output: dtype")
          .Attr("seed: int = 0")
          .Attr("seed2: int = 0")
          .Attr("S: {int32, int64}")
          .Attr("dtype: {half, float, double}")
          .SetIsStateful()
          .SetShapeFn([](InferenceContext* c) {
            DFX_RETURN_IF_ERROR(RandomShapeFn(c));
            PartialShape out = c->output(0);
            const PartialShape& rate = c->input(1);
            if (!out.RankKnown() || !rate.RankKnown()) {
              c->set_output(0, PartialShape::Unknown());
              return absl::OkStatus();
            }
            out.dims.insert(out.dims.end(), rate.dims.begin(),
                            rate.dims.end());
            c->set_output(0, std::move(out));
            return absl::OkStatus();
          })
          .Finalize());
  poisson.op_def.mutable_deprecation()->set_version(25);
  poisson.op_def.mutable_deprecation()->set_explanation(
      "Replaced by RandomPoissonV2");
  DFX_RETURN_IF_ERROR(r->Register(std::move(poisson)));
  // RandomCrop: [height, width] of an [H, W, C] image. Deprecated at
  // GraphDef version 8.
  DFX_ASSIGN_OR_RETURN(
      OpRegistrationData crop,
      OpDefBuilder("RandomCrop")
          .Input("image: T")
          .Input("size: int64")
          .Output("output: T")
          .Attr("T: {uint8, int8, int16, int32, int64, float, double}")
          .Attr("seed: int = 0")
          .Attr("seed2: int = 0")
          .SetIsStateful()
          .SetShapeFn([](InferenceContext* c) {
            const PartialShape& image = c->input(0);
            DFX_RETURN_IF_ERROR(c->WithRank(image, 3));
            DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 1));
            const int64_t channels = image.RankKnown() ? image.dims[2] : -1;
            std::vector<int64_t> size;
            int64_t h = -1;
            int64_t w = -1;
            if (ConstantInts(c->input_tensor(1), &size) && size.size() == 2) {
              h = size[0];
              w = size[1];
            }
            c->set_output(0, PartialShape::Known({h, w, channels}));
            return absl::OkStatus();
          })
          .Finalize());
  crop.op_def.mutable_deprecation()->set_version(8);
  crop.op_def.mutable_deprecation()->set_explanation(
      "Random crop is now pure Python");
  DFX_RETURN_IF_ERROR(r->Register(std::move(crop)));

  for (const char* name :
       {"UniformCandidateSampler", "LogUniformCandidateSampler",
        "LearnedUnigramCandidateSampler",
        "ThreadUnsafeUnigramCandidateSampler"}) {
    OpDefBuilder b = CandidateSampler(name);
    DFX_RETURN_IF_ERROR(r->Register(Seeds(b)));
  }
  OpDefBuilder fixed = CandidateSampler("FixedUnigramCandidateSampler");
  fixed.Attr("vocab_file: string = ''")
      .Attr("distortion: float = 1")
      .Attr("num_reserved_ids: int = 0")
      .Attr("num_shards: int >= 1 = 1")
      .Attr("shard: int >= 0 = 0")
      .Attr("unigrams: list(float) = []");
  DFX_RETURN_IF_ERROR(r->Register(Seeds(fixed)));
  OpDefBuilder all = CandidateSampler("AllCandidateSampler", false);
  DFX_RETURN_IF_ERROR(r->Register(Seeds(all)));
  OpDefBuilder hits("ComputeAccidentalHits");
  hits.Input("true_classes: int64")
      .Input("sampled_candidates: int64")
      .Output("indices: int32")
      .Output("ids: int64")
      .Output("weights: float")
      .Attr("num_true: int")
      .SetShapeFn([](InferenceContext* c) {
        int64_t num_true = 0;
        DFX_RETURN_IF_ERROR(GetNodeAttr(c->node_def(), "num_true", &num_true));
        const PartialShape& true_classes = c->input(0);
        DFX_RETURN_IF_ERROR(c->WithRank(true_classes, 2));
        if (true_classes.RankKnown() && true_classes.dims[1] >= 0 &&
            true_classes.dims[1] != num_true) {
          return c->Error(absl::StrCat("Dimension must be ", num_true,
                                       " but is ", true_classes.dims[1]));
        }
        DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 1));
        for (int i = 0; i < 3; ++i) c->set_output(i, PartialShape::Known({-1}));
        return absl::OkStatus();
      });
  DFX_RETURN_IF_ERROR(r->Register(Seeds(hits)));

  DFX_RETURN_IF_ERROR(r->Register(
      SampleBox("SampleDistortedBoundingBox", false, /*v1=*/true)));
  DFX_RETURN_IF_ERROR(r->Register(
      SampleBox("SampleDistortedBoundingBoxV2", false, /*v1=*/false)));
  DFX_RETURN_IF_ERROR(r->Register(
      SampleBox("StatelessSampleDistortedBoundingBox", true, /*v1=*/false)));

  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("StatelessShuffle")
          .Input("value: T")
          .Input("key: uint64")
          .Input("counter: uint64")
          .Input("alg: int32")
          .Output("output: T")
          .Attr("T: type")
          .SetShapeFn([](InferenceContext* c) {
            DFX_RETURN_IF_ERROR(c->WithRank(c->input(1), 1));
            DFX_RETURN_IF_ERROR(c->WithRank(c->input(2), 1));
            DFX_RETURN_IF_ERROR(c->WithRank(c->input(3), 0));
            c->set_output(0, c->input(0));
            return absl::OkStatus();
          })));
  DFX_RETURN_IF_ERROR(r->Register(
      OpDefBuilder("RandomIndexShuffle")
          .Input("index: dtype")
          .Input("seed: Tseed")
          .Input("max_index: dtype")
          .Output("output: dtype")
          .Attr("rounds: int = 4")
          .Attr("dtype: {int32, uint32, int64, uint64}")
          .Attr("Tseed: {int32, uint32, int64, uint64}")
          .SetShapeFn([](InferenceContext* c) {
            const PartialShape& index = c->input(0);
            const PartialShape& seed = c->input(1);
            const PartialShape& max_index = c->input(2);
            if (index.RankKnown() && index.rank() > 1) {
              return c->Error("index must be a scalar or a vector");
            }
            if (seed.RankKnown() && (seed.rank() < 1 || seed.rank() > 2)) {
              return c->Error("seed must be a vector or a matrix");
            }
            if (max_index.RankKnown() && max_index.rank() > 1) {
              return c->Error("max_index must be a scalar or a vector");
            }
            if (index.RankKnown() && index.rank() == 0 && seed.RankKnown() &&
                seed.rank() == 1 && max_index.RankKnown() &&
                max_index.rank() == 0) {
              c->set_output(0, PartialShape::Scalar());
            } else {
              c->set_output(0, PartialShape::Known({-1}));
            }
            return absl::OkStatus();
          })));
  return absl::OkStatus();
}

}  // namespace dfx
